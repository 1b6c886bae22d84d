// One list: by location (the store chosen, or the running trip's), by name, or in its own order; what this
// phone did that the hub has not taken yet shows at once, marked as waiting (pending.js). Under the entries
// to buy, the collapsed "Bought" part (list-laws.js), in every mode.
import * as tpl from '../template.js';
import { withPending } from '../pending.js';
import { splitBought } from '../list-laws.js';
import { parseEntry } from '../parse-entry.js';

export default function list({ model, view, memberNames, storesView, locationsView, itemsSeen, send }, id, mode = 'location') {
  const state = { store: sessionStorage.getItem(`store:${id}`) || '', order: [] };
  return {
    name: 'lists', list: id, mode, state,
    async mount() {
      const members = await memberNames();
      view.mount(tpl.screen('…', tpl.listBody(id, mode, members), { back: '#/lists' }));
      // Suggested by the name typed, without the quantity and unit in front of it or behind it.
      view.bindSuggestions(async (typed) => {
        const { name } = parseEntry(typed);
        return tpl.suggestionOptions((await model.view('suggestions', { list: id, prefix: name, limit: 8 })).items, name);
      });
    },
    async refresh() {
      const name = mode === 'order' ? 'list-detail' : mode === 'name' ? 'shopping-list-by-name' : 'shopping-list-by-location';
      const options = { list: id };
      if (mode === 'location' && state.store) options.store = state.store;
      // The bought entries and their purchases are in the list's own order (list-detail) only.
      const [fetched, detail, members, stores, waiting, locations, items] = await Promise.all([model.view(name, options),
        // Not there (never asked before this phone went offline): no Bought part this time, the list all the same.
        mode === 'order' ? null : model.view('list-detail', { list: id }).catch(() => null), memberNames(),
        mode === 'location' ? storesView().catch(() => null) : null, model.pending(),
        locationsView().then((v) => v.locations).catch(() => []), itemsSeen().catch(() => [])]);
      const shown = withPending(fetched, waiting, id);
      const split = splitBought(shown, detail ? withPending(detail, waiting, id) : mode === 'order' ? shown : null);
      // The counts of the whole list: the shopping list views count bought and left; list-detail all and bought.
      const counts = shown.view === 'list-detail' ? { bought: shown.bought, remaining: shown.total - shown.bought }
        : { bought: shown.bought, remaining: shown.remaining };
      view.setHeading(shown.list.name);
      view.region('summary', tpl.summary(counts, shown, model.currency));
      if (stores) view.region('store', tpl.storeChoice(stores.stores, state.store, model.household?.trip));
      // Every item on the list, bought too, as the core's reorder takes it: those to buy as shown, the bought ones last.
      if (mode === 'order') state.order = [...split.toBuy.entries, ...split.bought].map((e) => e.item);
      const locationOf = new Map(items.map((i) => [i.id ?? i.item, i.location]));
      view.region('entries', tpl.entries(split, { currency: model.currency, members, list: id, locations, locationOf }));
      view.bindDrag(() => state.order, (order) => send('ReorderList', { list: id, order }));
    },
  };
}
