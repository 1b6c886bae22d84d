// The start screen: start a household or join one; says why this phone was signed out, if it was.
import { t, lang } from '../i18n.js';
import * as tpl from '../template.js';
import { currencyFor } from '../format.js';

export default function welcome({ model, view }) {
  return {
    name: 'welcome',
    mount() {
      view.setNav(null);
      view.setTitle(t('appName'));
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
      const kept = sessionStorage.getItem('shopevents.notice');
      const notice = model.unstarted ? t('unstartedNotice') : kept === 'later' ? t('signedOutOfflineNotice')
        : kept === 'member_removed' ? t('member_removed') : kept ? t('revokedNotice') : null;
      view.mount(tpl.welcome({ currency: currencyFor(navigator.language, lang), timeZone: zone, device: t('defaultDevice') }, notice), { focus: false });
    },
    async refresh() {},
  };
}
