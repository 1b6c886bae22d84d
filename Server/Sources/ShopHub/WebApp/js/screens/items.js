// The household's items, by name or by the date last bought, and one item with its details and history.
import { t } from '../i18n.js';
import * as tpl from '../template.js';

export function items({ model, view }, mode = 'name') {
  return {
    name: 'items',
    mount() { view.mount(tpl.screen(t('itemsTitle'), tpl.itemsBody(mode))); },
    async refresh() {
      const [byName, locations] = await Promise.all([model.view('all-items-by-name'), model.view('locations')]);
      if (mode === 'date') view.region('items', tpl.itemsByDate(await model.view('all-items-by-purchase-date'), byName, model.zone));
      else view.region('items', tpl.itemsByName(byName, model.zone));
      if (!view.has('item-location')) view.region('itemLocation', tpl.locationSelect('item-location', locations.locations, null));
    },
  };
}

export function item(app, id) {
  const { model, view } = app;
  let shown = null;
  // Opened from a list (its entry's name): "Back" goes back to that list.
  const from = app.current?.address ?? '';
  const back = from.startsWith('#/list/') ? from : '#/items';
  return {
    name: 'items', item: id,
    mount() { view.mount(tpl.screen('…', tpl.html`<div data-region="item"><p class="loading">${t('loading')}</p></div>`, { back })); },
    async refresh() {
      const [detail, locations] = await Promise.all([model.view('item', { item: id }), model.view('locations')]);
      if (app.current !== this) return;   // another screen was opened meanwhile: its heading is its own
      view.setHeading(detail.item.name);
      // Drawn again only when the item changed, and never over what a person is typing (until saved).
      const now = JSON.stringify([detail, locations.locations]);
      if (now === shown || view.typedIn('itemDetails')) return;
      view.region('item', tpl.itemDetail(detail, locations.locations, model.currency, model.zone));
      view.watchTyping('itemDetails');
      shown = now;
    },
  };
}
