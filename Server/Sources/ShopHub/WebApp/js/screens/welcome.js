// The start screen: start a household or join one; says why this phone was signed out, if it was.
import { t, lang } from '../i18n.js';
import * as tpl from '../template.js';
import * as home from '../template-home.js';

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
      view.mount(tpl.welcome({ currency: lang === 'de' ? 'EUR' : guessCurrency(), timeZone: zone, device: t('defaultDevice') }, notice, more), { focus: false });
    },
    async refresh() {},
  };
}

function guessCurrency() {
  const region = (navigator.language || 'en-US').split('-')[1];
  return ({ US: 'USD', GB: 'GBP', CH: 'CHF', JP: 'JPY', CA: 'CAD', AU: 'AUD', SE: 'SEK', DK: 'DKK', NO: 'NOK', PL: 'PLN' })[region] ?? 'EUR';
}
