// The start screen: start a household or join one; says why this phone was signed out, if it was.
import { t, lang } from '../i18n.js';
import * as tpl from '../template.js';
import * as home from '../template-home.js';
import { currencyFor } from '../format.js';

/** `adding`: opened from a household to start or join one more (the open one stays). */
export default function welcome({ model, view, api }, { adding = false } = {}) {
  return {
    name: 'welcome',
    mount() {
      view.setNav(null);
      view.setTitle(t('appName'));
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
      const kept = sessionStorage.getItem('shopevents.notice');
      const notice = model.unstarted ? t('unstartedNotice') : kept === 'later' ? t('signedOutOfflineNotice')
        : kept === 'member_removed' ? t('member_removed') : kept ? t('revokedNotice') : null;
      const more = tpl.html`${adding ? home.backTo(api.session) : ''}${home.httpsNotice(globalThis.isSecureContext)}`;
      view.mount(tpl.welcome({ currency: currencyFor(navigator.language, lang), timeZone: zone, device: t('defaultDevice') }, notice, more), { focus: false });
    },
    async refresh() {},
  };
}
