// Templates for a family running the hub at home (docs/APP.md, "At home"): the word that working offline
// needs HTTPS (over plain HTTP: no secure context, no service worker), the page saying how, and the
// households this phone is signed in to, with a switcher. Escaped through `html` (template.js).
import { t } from './i18n.js';
import { html } from './template.js';

/** Over plain HTTP at a home address: the app works online only, said in words with a link to how. */
export function httpsNotice(secure) {
  if (secure) return '';
  return html`<p class="notice https-notice">${t('httpsNotice')} <a href="#/https">${t('httpsHow')}</a></p>`;
}

/** The page a person opens from that notice: why (or, opened over HTTPS, that it already works offline), and the two ways. */
export function httpsHelp(origin, secure = false) {
  return html`<div class="card https-help">
    <p>${t(secure ? 'httpsSecure' : 'httpsWhy', { origin })}</p>
    <p>${t('httpsWays')}</p>
    <ul><li>${t('httpsOwn')}</li><li>${t('httpsCaddy')}</li></ul>
    <p>${t('httpsDocs')}</p></div>`;
}

/**
 * The households this browser is signed in to: the open one named, each other one a button that opens it;
 * and a link to start or join one more. `sessions`: `{current, all}` (sessions.js).
 */
export function households(sessions) {
  const name = (s) => s.name ?? s.household.slice(0, 8);
  return html`<section class="card households" aria-labelledby="households-title">
    <h3 id="households-title">${t('householdsTitle')}</h3>
    <p class="help">${t('householdsHelp')}</p>
    <ul class="household-switch">${sessions.all.map((s) => html`<li>${s.household === sessions.current
      ? html`<span aria-current="true">${t('householdOpen', { name: name(s) })}</span>`
      : html`<button type="button" data-action="switchHousehold" data-household="${s.household}">${t('switchTo', { name: name(s) })}</button>`}</li>`)}</ul>
    <p><a href="#/add">${t('addHousehold')}</a></p></section>`;
}

/** On the start screen opened to add a household: the way back to the one open. */
export function backTo(session) {
  return session ? html`<p><a href="#/lists">${t('backTo', { name: session.name ?? session.household.slice(0, 8) })}</a></p>` : '';
}
