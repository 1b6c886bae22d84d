// The shopping trip (start, pause, resume, end), and what is due to buy again.
import { t } from '../i18n.js';
import * as tpl from '../template.js';

export function trip({ model, view }) {
  return {
    name: 'trip',
    mount() { view.mount(tpl.screen(t('tripTitle'), tpl.html`<div data-region="trip"></div>`)); },
    async refresh() {
      const [household, stores] = await Promise.all([model.refreshHousehold(), model.view('stores')]);
      if (view.editing('startTrip') && !household.trip) return;
      view.region('trip', tpl.trip(household, stores, model.zone));
    },
  };
}

export function due({ model, view }) {
  return {
    name: 'due',
    mount() { view.mount(tpl.screen(t('dueTitle'), tpl.html`<p class="help">${t('dueHelp')}</p><div data-region="due"></div>`)); },
    async refresh() {
      const [due, lists] = await Promise.all([model.view('due'), model.view('lists')]);
      const chosen = view.value('due-list');
      view.region('due', tpl.due(due, lists));
      if (chosen) view.setValue('due-list', chosen);
    },
  };
}
