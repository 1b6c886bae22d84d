// The controller, wiring only: which screen the address names (js/screens/),
// what each tap or form does (js/actions.js), and redrawing when the household
// changes. Rules are the hub's: a refusal comes back with its code and is
// shown in words. The page is touched only through the view (js/view.js).
import { t, lang, chooseLanguage } from './i18n.js';
import { explain } from './refusals.js';
import { Api, HubFailure, Unreachable } from './api.js';
import { Model, sendOthers } from './model.js';
import { View } from './view.js';
import { actions } from './actions.js';
import { viewCache } from './view-cache.js';
import * as tpl from './template.js';
import welcome from './screens/welcome.js';
import list from './screens/list.js';
import { lists, deleted } from './screens/lists.js';
import { items, item } from './screens/items.js';
import { places, storeOrder } from './screens/places.js';
import { trip, due } from './screens/trip.js';
import { household, report } from './screens/household.js';
import { httpsHelp, noticeSaid } from './screens/home.js';

chooseLanguage(localStorage, navigator);   // the language kept here, else the browser's
const api = new Api();
const model = new Model(api);
const view = new View();
let current = null;          // the screen shown: {name, refresh()}
let refreshing = null;       // one redraw at a time; a change meanwhile asks for one more
let again = false;

// Telling a person what happened

/** Any failure in words with a way forward (refusals.js): a refused change names its thing; never a code. */
async function failed(error) {
  const kind = error instanceof HubFailure ? 'refused' : error instanceof Unreachable ? 'unreachable'
    : error instanceof DOMException ? 'storage' : 'other';
  if (kind === 'other' || kind === 'storage') console.error(error);
  const names = error.command ? await listNames() : new Map();
  const { text, again } = explain({ kind, code: error.code, command: error.command, label: error.label }, { lang, names });
  const name = error.label ?? names.get(error.command?.data?.item) ?? '';
  view.toast(text, again ? { error: true, action: 'addAgain', label: t('addAgain'), data: { ...again, name } } : { error: true });
}
const listNames = async () => new Map((await Promise.all([model.view('lists').then((v) => v.lists), itemsSeen()]
  .map((p) => p.catch(() => [])))).flat().map((x) => [x.id, x.name]));

/** Runs a command and redraws; a refusal is shown and changes nothing. */
async function send(type, data, { toast, label } = {}) {
  try {
    const result = await model.command(type, data, label);
    if (toast) view.toast(toast.message, toast);
    return result;
  } catch (error) {
    failed(Object.assign(error, { command: { type, data }, label }));
    return null;
  }
}

async function sendAll(commands) {
  try {
    const results = await model.run(commands);
    const at = results.findIndex((r) => !r.ok);
    if (at >= 0) throw Object.assign(new HubFailure(400, results[at].error.code, results[at].error.message), { command: commands[at], label: commands[at].label });
    return results;
  } catch (error) {
    failed(error);
    return null;
  }
}

// Members, stores, locations and the items seen change seldom: asked again at most every 30 seconds (view-cache.js).
const views = viewCache(model);
const { cachedView, memberNames, storesView, locationsView, membersView, itemsSeen, forget } = views;

// Routing: #/lists, #/list/ID[/location|name|order], #/items[/date], #/item/ID,
// #/places, #/store/ID, #/trip, #/due, #/deleted, #/household, #/report.

function route() {
  if (location.hash === '#/https') return httpsHelp(app);   // with or without a household
  if (!api.session || model.unstarted) return welcome(app);
  const [, name, id, mode] = location.hash.split('/');
  switch (name) {
    case 'add': return welcome(app, { adding: true });   // another household on this phone
    case 'list': return id ? list(app, id, mode || 'location') : lists(app);
    case 'items': return items(app, id === 'date' ? 'date' : 'name');
    case 'item': return id ? item(app, id) : items(app);
    case 'places': return places(app);
    case 'store': return id ? storeOrder(app, id) : places(app);
    case 'trip': return trip(app);
    case 'due': return due(app);
    case 'deleted': return deleted(app);
    case 'household': return household(app);
    case 'report': return report(app);
    default: return lists(app);
  }
}

async function show() {
  current = route();
  current.address = location.hash;
  if (api.session) {
    view.setNav(tpl.nav(current.name, Boolean(model.household?.trip)));
    if (!current.list && !current.item && !current.storeId) view.setTitle(model.household?.household?.name ?? t('appName'));
  }
  await current.mount();
  await redraw();
}

/** Redraws the screen shown from the views now; changes that arrive meanwhile redraw once more after. */
async function redraw() {
  if (refreshing) { again = true; return refreshing; }
  const screen = current;
  refreshing = (async () => {
    try { await screen.refresh(); }
    catch (error) {
      if (error instanceof HubFailure && error.status === 404 && screen.name !== 'lists') { location.hash = '#/lists'; return; }
      if (error instanceof HubFailure && error.status === 401) { signedOut({ revoked: true, why: error.code, refused: error.session }); return; }
      failed(error);
    }
  })();
  await refreshing;
  refreshing = null;
  // Again for the screen shown now, also when it is another than the one just drawn: a screen mounted
  // while the last one was being drawn asked for its first drawing here.
  if (again) { again = false; await redraw(); }
}

/** Back to the start screen, or to the next household on this phone; `revoked`: the hub no longer takes this device's
 * token, and the app says so (`why`: the hub's code; `member_removed` is said in its own words). `refused`: the session
 * the hub refused, when known. */
async function signedOut({ revoked = false, revoke = false, why = null, refused = null } = {}) {
  if (refused && refused.token !== api.session?.token) return;   // a household no longer open (signed out, switched)
  // Signed out without a network: the token works until the app next reaches the hub, and the screen says so.
  const now = await model.signOut({ revoke });
  if (revoked) sessionStorage.setItem('shopevents.notice', why === 'member_removed' ? why : 'revoked');
  else if (!now) sessionStorage.setItem('shopevents.notice', 'later');
  else sessionStorage.removeItem('shopevents.notice');
  view.setRole(null);
  view.setLive(null);
  if (api.session) { noticeSaid(view); return switchTo(api.session.household); }   // another household stays on this phone
  location.hash = '#/';
  show();
}

/** Opens another household this browser is signed in to, at its lists (docs/APP.md, "Several households"). */
async function switchTo(id) {
  api.switchTo(id);
  history.replaceState(null, '', '#/lists');
  await begin();
}

// What the screens and the handlers are given: the hub, the model, the view and the controller's own steps.
const app = {
  api, model, view, send, sendAll, failed, redraw, show, signedOut, begin, switchTo, forget, itemsSeen, memberNames, storesView,
  locationsView, membersView,
  get current() { return current; },
};
view.bind(actions(app));

/** The header's word on the connection and the changes waiting; the refusals kept for the person. */
let pendingShown = 0;
async function showPending() {
  if (!api.session) { view.setLive(null); return; }   // signed out: nothing is live
  const ticket = ++pendingShown;   // only the latest call draws: an earlier one may finish after it
  const [waiting, refused] = await Promise.all([model.pending(), model.rejected()]);
  if (ticket !== pendingShown) return;
  view.setLive(model.online, waiting.length);
  if (refused.length === 0) { view.refusals(tpl.refusals([])); return; }
  // Said with the names of the lists and items they touch, as the views last said them (deleted lists too).
  const [lists, deleted, items] = await Promise.all([model.view('lists'), model.view('deleted-lists'), itemsSeen()]
    .map((p) => p.catch(() => null)));
  if (ticket !== pendingShown) return;
  const names = new Map([...(deleted?.lists ?? []), ...(lists?.lists ?? []), ...(items ?? [])].map((x) => [x.id, x.name]));
  view.refusals(tpl.refusals(refused, names, lists?.lists ?? []));
}

// Start

/** Shows what the role allows: a viewer's screens have no controls that change things (the hub refuses them anyway). */
async function applyRole() {
  try {
    const members = await cachedView('members');
    const me = members.members.find((m) => m.member === api.session?.actor);
    view.setRole(members.open ? 'owner' : me?.role ?? 'none');
  } catch { /* shown by the screens */ }
}

async function begin() {
  view.closeToast();   // a message about the last household (or a failed join) is not this one's
  model.stop();    // the last household's live connection, if another was open
  model.reset();
  views.clear();
  try { api.nameHousehold((await model.refreshHousehold()).household?.name); } catch (error) {
    if (error instanceof HubFailure && error.status === 401) { signedOut({ revoked: error.code === 'member_removed', why: error.code, refused: error.session }); return; }
  }
  await applyRole();
  if (['', '#/', '#/add'].includes(location.hash)) location.hash = '#/lists';   // signed in (also to one more household)
  else await show();
  showPending();
  itemsSeen().catch(() => {});   // kept for adding by name without a network
  model.flush().then(() => sendOthers(api.session));   // and what waits in the other households on this phone
  model.live();
}

// A push of this phone's and the long poll's wake-up for the same lines come within milliseconds: one redraw.
// The outbox's changes too: a command pushed at once makes one redraw, one that waits shows as waiting.
let changeTimer = null;
function soon() {
  clearTimeout(changeTimer);
  changeTimer = setTimeout(changed, 80);
}
model.addEventListener('changed', soon);

async function changed() {
  if (current?.name === 'household') forget('members');
  applyRole();
  itemsSeen().catch(() => {});
  const hadTrip = Boolean(model.household?.trip);
  try { await model.refreshHousehold(); } catch { /* shown by the redraw */ }
  if (hadTrip !== Boolean(model.household?.trip)) view.setNav(tpl.nav(current?.name, Boolean(model.household?.trip)));
  redraw();
}
model.addEventListener('online', () => showPending());
// The screen is drawn again for what waits (shown as waiting) only when something waits or waited: an outbox found
// empty at each load asks no view twice.
let waitedBefore = 0;
model.addEventListener('pending', async () => {
  showPending();
  const waiting = (await model.pending()).length;
  if (waiting > 0 || waitedBefore > 0) soon();
  waitedBefore = waiting;
});
window.addEventListener('online', () => { model.retryNow(); api.revokeWaiting(); sendOthers(api.session); });
// The app and the last views open without a network (sw.js; docs/APP.md).
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch((error) => console.warn('no offline copy:', error));
model.addEventListener('signedOut', ({ detail }) => signedOut({ revoked: true, why: detail.code, refused: detail.session }));
window.addEventListener('hashchange', () => {
  // "Skip to content" is no screen: it moves the focus to the screen shown.
  if (location.hash === '#main') {
    history.replaceState(null, '', current?.address ?? '#/lists');
    view.focusMain();
    return;
  }
  show();
});

view.setLanguage(lang);
api.revokeWaiting();   // a sign-out made without a network ends the access now
if (api.session) begin(); else show();
