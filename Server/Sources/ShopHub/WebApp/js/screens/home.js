// At home (docs/APP.md, "At home"): the page saying that working offline needs HTTPS and how; and what a
// sign-out of one household says when another household stays open on this phone.
import { t } from '../i18n.js';
import * as tpl from '../template.js';
import * as home from '../template-home.js';

export function httpsHelp({ api, view }) {
  return {
    name: 'https',
    mount() {
      if (!api.session) { view.setNav(null); view.setTitle(t('appName')); }
      view.mount(tpl.screen(t('httpsTitle'), home.httpsHelp(location.origin, globalThis.isSecureContext && location.protocol === 'https:'), { back: api.session ? '#/household' : '#/' }));
    },
    async refresh() {},
  };
}

/** The word kept for the start screen (why this phone was signed out) said at once instead, and forgotten. */
export function noticeSaid(view) {
  const kept = sessionStorage.getItem('shopevents.notice');
  sessionStorage.removeItem('shopevents.notice');
  if (kept) view.toast(t(kept === 'later' ? 'signedOutOfflineNotice' : kept === 'member_removed' ? kept : 'revokedNotice'));
}
