// The household: members and roles, and for owners the devices and invites; and the report.
import { t } from '../i18n.js';
import * as tpl from '../template.js';
import * as home from '../template-home.js';
import { Api } from '../api.js';

export function household({ model, view, api, membersView }) {
  return {
    name: 'household',
    mount() {
      // The households on this phone and, over plain HTTP, that offline needs HTTPS (template-home.js).
      const more = tpl.html`${home.httpsNotice(globalThis.isSecureContext)}${home.households(Api.sessions())}`;
      view.mount(tpl.screen(model.household?.household?.name ?? t('householdTitle'), tpl.html`${tpl.householdBody(model.household ?? {})}${more}`));
    },
    async refresh() {
      const members = await membersView();
      const me = api.session.actor;
      const owner = members.open || members.members.some((m) => m.member === me && m.role === 'owner');
      view.region('members', tpl.members(members, me, owner));
      if (!owner) { view.region('owners', tpl.html`<p class="help">${t('ownersOnly')}</p>`); return; }
      const [devices, waiting] = await Promise.all([api.devices(), api.invites()]);
      // Not over the invite form while a person fills it; the codes shown this visit stay.
      if (!view.editing('invite')) view.regionKeeping('owners', tpl.owners(devices, api.session.device, model.zone), 'inviteCode');
      view.region('invites', tpl.invites(waiting, model.zone));
    },
  };
}

export function report({ model, view }) {
  return {
    name: 'report',
    mount() { view.mount(tpl.screen(t('reportTitle'), tpl.html`<div data-region="report"></div>`)); },
    async refresh() { view.region('report', tpl.report(await model.view('stats'), model.currency)); },
  };
}
