// The household's lists, and the lists deleted (to restore or delete for good).
import { t } from '../i18n.js';
import * as tpl from '../template.js';

export function lists({ model, view }) {
  return {
    name: 'lists',
    mount() { view.mount(tpl.screen(t('listsTitle'), tpl.listsBody())); },
    async refresh() { view.region('lists', tpl.lists(await model.view('lists'))); },
  };
}

export function deleted({ model, view }) {
  return {
    name: 'lists',
    mount() { view.mount(tpl.screen(t('deletedTitle'), tpl.html`<div data-region="deleted"></div>`, { back: '#/lists' })); },
    async refresh() { view.region('deleted', tpl.deletedLists(await model.view('deleted-lists'), model.zone)); },
  };
}
