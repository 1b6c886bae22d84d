// One list: by location (the store chosen, or the running trip's), by name, or in its own order; what this
// phone did that the hub has not taken yet shows at once, marked as waiting (pending.js).
import * as tpl from '../template.js';
import { withPending } from '../pending.js';

export default function list({ model, view, memberNames, storesView, send }, id, mode = 'location') {
  const state = { store: sessionStorage.getItem(`store:${id}`) || '', order: [] };
  return {
    name: 'lists', list: id, mode, state,
    async mount() {
      const members = await memberNames();
      view.mount(tpl.screen('…', tpl.listBody(id, mode, members), { back: '#/lists' }));
      view.bindSuggestions(async (typed) => tpl.suggestionOptions((await model.view('suggestions', { list: id, prefix: typed.trim(), limit: 8 })).items, typed));
    },
    async refresh() {
      const name = mode === 'order' ? 'list-detail' : mode === 'name' ? 'shopping-list-by-name' : 'shopping-list-by-location';
      const options = { list: id };
      if (mode === 'location' && state.store) options.store = state.store;
      const [fetched, members, stores, waiting] = await Promise.all([model.view(name, options), memberNames(),
        mode === 'location' ? storesView().catch(() => null) : null, model.pending()]);
      const shown = withPending(fetched, waiting, id);
      // The counts of the whole list: the shopping list views count bought and left; list-detail all and bought.
      const counts = shown.view === 'list-detail' ? { bought: shown.bought, remaining: shown.total - shown.bought }
        : { bought: shown.bought, remaining: shown.remaining };
      view.setHeading(shown.list.name);
      view.region('summary', tpl.summary(counts, shown, model.currency));
      if (stores) view.region('store', tpl.storeChoice(stores.stores, state.store, model.household?.trip));
      if (mode === 'order') state.order = shown.entries.map((e) => e.item);
      view.region('entries', tpl.entries(shown, { currency: model.currency, members, list: id }));
      view.bindDrag(() => state.order, (order) => send('ReorderList', { list: id, order }));
    },
  };
}
