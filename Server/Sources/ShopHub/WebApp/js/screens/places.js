// Locations and stores, and one store's order of the locations.
import { t } from '../i18n.js';
import * as tpl from '../template.js';

export function places({ model, view }) {
  return {
    name: 'places',
    mount() { view.mount(tpl.screen(t('placesTitle'), tpl.placesBody())); },
    async refresh() {
      const [locations, stores] = await Promise.all([model.view('locations'), model.view('stores')]);
      this.locations = locations.locations;
      view.region('locations', tpl.locations(locations));
      view.region('stores', tpl.stores(stores, model.currency));
    },
  };
}

export function storeOrder(app, id) {
  const { model, view } = app;
  return {
    name: 'places', storeId: id,
    mount() { view.mount(tpl.screen('…', tpl.html`<div data-region="storeOrder"></div>`, { back: '#/places' })); },
    async refresh() {
      const [stores, locations] = await Promise.all([model.view('stores'), model.view('locations')]);
      const shown = stores.stores.find((s) => s.id === id);
      if (app.current !== this) return;   // another screen was opened meanwhile: its heading is its own
      if (!shown) { location.hash = '#/places'; return; }
      this.order = shown.order;
      view.setHeading(t('storeOrder', { store: shown.name }), shown.name);
      view.region('storeOrder', tpl.storeOrder(shown, new Map(locations.locations.map((l) => [l.id, l.name]))));
    },
  };
}
