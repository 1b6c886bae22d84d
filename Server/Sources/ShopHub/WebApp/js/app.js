// The controller: which screen the address names, what each tap or form
// sends, and redrawing when the household changes. Rules are the hub's: a
// refusal comes back with its code and is shown in words.
import { t, tn, lang, chooseLanguage, setLanguage, refusal } from './i18n.js';
import { Api, HubFailure, Unreachable } from './api.js';
import { Model, newId } from './model.js';
import { knownItems, addCommands } from './names.js';
import { withPending } from './pending.js';
import { View } from './view.js';
import { parseMoney, parseQuantity } from './format.js';
import * as tpl from './template.js';

chooseLanguage(localStorage, navigator);   // the language kept here, else the browser's
const api = new Api();
const model = new Model(api);
const view = new View();
let current = null;          // the screen shown: {name, refresh()}
let refreshing = null;       // one redraw at a time; a change meanwhile asks for one more
let again = false;

// Telling a person what happened

function failed(error) {
  if (error instanceof HubFailure) view.toast(refusal(error.code, error.message), { error: true });
  else if (error instanceof Unreachable) view.toast(t('unreachable'), { error: true });
  else { console.error(error); view.toast(String(error.message ?? error), { error: true }); }
}

/** Runs a command and redraws; a refusal is shown and changes nothing. */
async function send(type, data, { toast, label } = {}) {
  try {
    const result = await model.command(type, data, label);
    if (toast) view.toast(toast.message, toast);
    return result;
  } catch (error) {
    failed(error);
    return null;
  }
}

async function sendAll(commands) {
  try {
    const results = await model.run(commands);
    const refused = results.find((r) => !r.ok);
    if (refused) throw new HubFailure(400, refused.error.code, refused.error.message);
    return results;
  } catch (error) {
    failed(error);
    return null;
  }
}

const confirmed = (message) => window.confirm(message);

// Screens. Each: mount() writes its markup once; refresh() fills its regions
// from the views, and runs again on every change, live or made here.

const screens = {
  welcome() {
    return {
      name: 'welcome',
      mount() {
        view.setNav(null);
        view.setTitle(t('appName'));
        const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
        const kept = sessionStorage.getItem('shopevents.notice');
        const notice = model.unstarted ? t('unstartedNotice') : kept === 'later' ? t('signedOutOfflineNotice')
          : kept === 'member_removed' ? t('member_removed') : kept ? t('revokedNotice') : null;
        view.mount(tpl.welcome({ currency: lang === 'de' ? 'EUR' : guessCurrency(), timeZone: zone, device: t('defaultDevice') }, notice), { focus: false });
      },
      async refresh() {},
    };
  },

  lists() {
    return {
      name: 'lists',
      mount() { view.mount(tpl.screen(t('listsTitle'), tpl.listsBody())); },
      async refresh() { view.region('lists', tpl.lists(await model.view('lists'))); },
    };
  },

  list(id, mode = 'location') {
    const state = { store: sessionStorage.getItem(`store:${id}`) || '', order: [] };
    const screen = {
      name: 'lists', list: id, mode, state,
      async mount() {
        const members = await memberNames();
        view.mount(tpl.screen('…', tpl.listBody(id, mode, members), { back: '#/lists' }));
        bindSuggestions(id);
      },
      async refresh() {
        const name = mode === 'order' ? 'list-detail' : mode === 'name' ? 'shopping-list-by-name' : 'shopping-list-by-location';
        const options = { list: id };
        if (mode === 'location' && state.store) options.store = state.store;
        const [fetched, members, stores, waiting] = await Promise.all([model.view(name, options), memberNames(),
          mode === 'location' ? storesView().catch(() => null) : null, model.pending()]);
        // What this phone did that the hub has not taken yet shows at once, marked as waiting (SPEC 12).
        const shown = withPending(fetched, waiting, id);
        // The counts of the whole list: the shopping list views count bought and left; list-detail all and bought.
        const counts = shown.view === 'list-detail' ? { bought: shown.bought, remaining: shown.total - shown.bought }
          : { bought: shown.bought, remaining: shown.remaining };
        const title = document.getElementById('screen-title');
        if (title) title.textContent = shown.list.name;
        view.setTitle(shown.list.name);
        view.region('summary', tpl.summary(counts, shown, model.currency));
        if (stores) view.region('store', tpl.storeChoice(stores.stores, state.store, model.household?.trip));
        if (mode === 'order') state.order = shown.entries.map((e) => e.item);
        view.region('entries', tpl.entries(shown, { currency: model.currency, members, list: id }));
        bindDrag(id, state);
      },
    };
    return screen;
  },

  items(mode = 'name') {
    return {
      name: 'items',
      mount() { view.mount(tpl.screen(t('itemsTitle'), tpl.itemsBody(mode))); },
      async refresh() {
        const [byName, locations] = await Promise.all([model.view('all-items-by-name'), model.view('locations')]);
        if (mode === 'date') view.region('items', tpl.itemsByDate(await model.view('all-items-by-purchase-date'), byName, model.zone));
        else view.region('items', tpl.itemsByName(byName, model.zone));
        if (!document.getElementById('item-location')) view.region('itemLocation', tpl.locationSelect('item-location', locations.locations, null));
      },
    };
  },

  item(id) {
    let shown = null;
    return {
      name: 'items', item: id,
      mount() { view.mount(tpl.screen('…', tpl.html`<div data-region="item"><p class="loading">${t('loading')}</p></div>`, { back: '#/items' })); },
      async refresh() {
        const [detail, locations] = await Promise.all([model.view('item', { item: id }), model.view('locations')]);
        document.getElementById('screen-title').textContent = detail.item.name;
        view.setTitle(detail.item.name);
        // Drawn again only when the item changed, and never over what a person is typing (until saved).
        const form = document.querySelector('form[data-form="itemDetails"]');
        const now = JSON.stringify([detail, locations.locations]);
        if (now === shown || (form && form.dataset.dirty === 'true')) return;
        view.region('item', tpl.itemDetail(detail, locations.locations, model.currency, model.zone));
        document.querySelector('form[data-form="itemDetails"]')?.addEventListener('input', (event) => {
          event.currentTarget.dataset.dirty = 'true';
        });
        shown = now;
      },
    };
  },

  places() {
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
  },

  store(id) {
    return {
      name: 'places', storeId: id,
      mount() { view.mount(tpl.screen('…', tpl.html`<div data-region="storeOrder"></div>`, { back: '#/places' })); },
      async refresh() {
        const [stores, locations] = await Promise.all([model.view('stores'), model.view('locations')]);
        const shown = stores.stores.find((s) => s.id === id);
        if (!shown) { location.hash = '#/places'; return; }
        this.order = shown.order;
        document.getElementById('screen-title').textContent = t('storeOrder', { store: shown.name });
        view.setTitle(shown.name);
        view.region('storeOrder', tpl.storeOrder(shown, new Map(locations.locations.map((l) => [l.id, l.name]))));
      },
    };
  },

  trip() {
    return {
      name: 'trip',
      mount() { view.mount(tpl.screen(t('tripTitle'), tpl.html`<div data-region="trip"></div>`)); },
      async refresh() {
        const [household, stores] = await Promise.all([model.refreshHousehold(), model.view('stores')]);
        if (document.querySelector('form[data-form="startTrip"]')?.contains(document.activeElement) && !household.trip) return;
        view.region('trip', tpl.trip(household, stores, model.zone));
      },
    };
  },

  due() {
    return {
      name: 'due',
      mount() { view.mount(tpl.screen(t('dueTitle'), tpl.html`<p class="help">${t('dueHelp')}</p><div data-region="due"></div>`)); },
      async refresh() {
        const [due, lists] = await Promise.all([model.view('due'), model.view('lists')]);
        const chosen = document.getElementById('due-list')?.value;
        view.region('due', tpl.due(due, lists));
        if (chosen && document.getElementById('due-list')) document.getElementById('due-list').value = chosen;
      },
    };
  },

  deleted() {
    return {
      name: 'lists',
      mount() { view.mount(tpl.screen(t('deletedTitle'), tpl.html`<div data-region="deleted"></div>`, { back: '#/lists' })); },
      async refresh() { view.region('deleted', tpl.deletedLists(await model.view('deleted-lists'), model.zone)); },
    };
  },

  household() {
    return {
      name: 'household',
      mount() { view.mount(tpl.screen(model.household?.household?.name ?? t('householdTitle'), tpl.householdBody(model.household ?? {}))); },
      async refresh() {
        const members = await model.view('members');
        const me = api.session.actor;
        const owner = members.open || members.members.some((m) => m.member === me && m.role === 'owner');
        this.members = members.members.map((m) => m.member);
        view.region('members', tpl.members(members, me, owner));
        if (!owner) { view.region('owners', tpl.html`<p class="help">${t('ownersOnly')}</p>`); return; }
        const [devices, waiting] = await Promise.all([api.devices(), api.invites()]);
        const form = document.querySelector('form[data-form="invite"]');
        if (!form || !form.contains(document.activeElement)) {
          const codes = document.querySelector('[data-region="inviteCode"]')?.innerHTML ?? '';
          view.region('owners', tpl.owners(devices, api.session.device, model.zone));
          const box = document.querySelector('[data-region="inviteCode"]');
          if (box && codes) box.innerHTML = codes;   // the codes shown this visit, drawn by us above
        }
        view.region('invites', tpl.invites(waiting, model.zone));
      },
    };
  },

  report() {
    return {
      name: 'report',
      mount() { view.mount(tpl.screen(t('reportTitle'), tpl.html`<div data-region="report"></div>`)); },
      async refresh() { view.region('report', tpl.report(await model.view('stats'), model.currency)); },
    };
  },
};

function guessCurrency() {
  const region = (navigator.language || 'en-US').split('-')[1];
  return ({ US: 'USD', GB: 'GBP', CH: 'CHF', JP: 'JPY', CA: 'CAD', AU: 'AUD', SE: 'SEK', DK: 'DKK', NO: 'NOK', PL: 'PLN' })[region] ?? 'EUR';
}

// Members and stores change seldom: asked again at most every 30 seconds, or after this phone changed them,
// so that a busy list (every tap a push and a redraw) stays well within the hub's rate per device.
const cached = new Map();
function cachedView(name, pick = (v) => v) {
  const hit = cached.get(name);
  if (hit && performance.now() - hit.at < 30000) return hit.value.then(pick);
  const value = model.view(name).catch((error) => { cached.delete(name); throw error; });
  cached.set(name, { at: performance.now(), value });
  return value.then(pick);
}
const memberNames = () => cachedView('members', (m) => m.members.map((x) => x.member)).catch(() => []);
const storesView = () => cachedView('stores');
// The household's items as last seen: what a name typed offline is looked up in (the service worker keeps the view too).
const itemsSeen = () => cachedView('all-items-by-name', (v) => v.items);
const forget = (...names) => names.forEach((n) => cached.delete(n));

// Routing: #/lists, #/list/ID[/location|name|order], #/items[/date], #/item/ID,
// #/places, #/store/ID, #/trip, #/due, #/deleted, #/household, #/report.

function route() {
  if (!api.session || model.unstarted) return screens.welcome();
  const [, name, id, mode] = location.hash.split('/');
  switch (name) {
    case 'list': return id ? screens.list(id, mode || 'location') : screens.lists();
    case 'items': return screens.items(id === 'date' ? 'date' : 'name');
    case 'item': return id ? screens.item(id) : screens.items();
    case 'places': return screens.places();
    case 'store': return id ? screens.store(id) : screens.places();
    case 'trip': return screens.trip();
    case 'due': return screens.due();
    case 'deleted': return screens.deleted();
    case 'household': return screens.household();
    case 'report': return screens.report();
    default: return screens.lists();
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
      if (error instanceof HubFailure && error.status === 401) { signedOut({ revoked: true, why: error.code }); return; }
      failed(error);
    }
  })();
  await refreshing;
  refreshing = null;
  // Again for the screen shown now, also when it is another than the one just drawn: a screen mounted
  // while the last one was being drawn asked for its first drawing here.
  if (again) { again = false; await redraw(); }
}

/** Back to the start screen; `revoked`: the hub no longer takes this device's token, and the screen says so
 * (`why`: the hub's code; `member_removed` is said in its own words). */
async function signedOut({ revoked = false, revoke = false, why = null } = {}) {
  // Signed out without a network: the token works until the app next reaches the hub, and the screen says so.
  const now = await model.signOut({ revoke });
  if (revoked) sessionStorage.setItem('shopevents.notice', why === 'member_removed' ? why : 'revoked');
  else if (!now) sessionStorage.setItem('shopevents.notice', 'later');
  else sessionStorage.removeItem('shopevents.notice');
  document.body.removeAttribute('data-role');
  location.hash = '#/';
  show();
}

// What a person does

function selectedList() { return current?.list; }

view.bind({
  language: async (el, code) => { setLanguage(code); document.documentElement.lang = lang; await show(); },
  closeToast: () => view.closeToast(),
  dismiss: (el) => model.dismiss(Number(el.dataset.n)),
  /** A refused entry's item put on the list chosen beside it instead; the refusal then goes. */
  addElsewhere: async (el) => {
    const n = Number(el.dataset.n);
    const kept = (await model.rejected()).find((r) => r.n === n);
    const list = document.getElementById(`elsewhere-${n}`)?.value;
    if (!kept || !list) return;
    const { item, quantity } = kept.command.data;
    const name = kept.label ?? '';
    const results = await sendAll([{ type: 'AddItemToList', data: { list, item, ...(quantity ? { quantity } : {}) }, label: name }]);
    if (results) {
      await model.dismiss(n);
      view.toast(results[0].pending ? t('addedWaiting', { name }) : t('addedToast', { name }));
    }
  },

  start: async (form, data) => {
    sessionStorage.removeItem('shopevents.notice');
    try {
      await model.startHousehold({
        name: data.get('name').trim(), actor: data.get('actor').trim(), device: data.get('device').trim(),
        currency: data.get('currency').trim().toUpperCase(), timeZone: data.get('timeZone').trim(),
      });
      await begin();
    } catch (error) {
      // Refused after the hub enrolled the device: it stays enrolled on the empty household, and the next try
      // starts that one (model.unstarted); nothing else is made.
      failed(error);
    }
  },
  join: async (form, data) => {
    sessionStorage.removeItem('shopevents.notice');
    try {
      await model.join({ code: data.get('code'), device: data.get('device').trim() });
      await begin();
    } catch (error) { failed(error); }
  },
  signOut: async () => {
    // What still waits goes first if it can; what cannot is named in the question.
    await model.flush();
    const left = (await model.pending()).length;
    // Said as it will be: without a network the access ends only when this phone next reaches the hub.
    const reachable = await api.hello().then(() => true, (error) => !(error instanceof Unreachable));
    const asked = reachable ? t('signOutConfirm') : t('signOutConfirmOffline');
    const question = left > 0 ? `${asked} ${tn('signOutLoses', left)}` : asked;
    if (confirmed(question)) signedOut({ revoke: true });
  },

  // Lists
  createList: async (form, data) => {
    const list = newId();
    if (await send('CreateList', { list, name: data.get('name'), priority: data.get('priority') })) {
      form.reset();
      location.hash = `#/list/${list}`;
    }
  },
  renameList: (form, data) => send('RenameList', { list: form.dataset.list, name: data.get('name') }),
  listPriority: (form, data) => send('SetListPriority', { list: form.dataset.list, priority: data.get('priority') }),
  deleteList: (el) => confirmed(t('confirmDelete', { name: el.dataset.name })) && send('DeleteList', { list: el.dataset.list }),
  restoreList: (el) => send('RestoreList', { list: el.dataset.list }),
  purgeList: (el) => confirmed(t('confirmPurge', { name: el.dataset.name })) && send('PurgeList', { list: el.dataset.list }),

  // One list
  store: (el, value) => {
    current.state.store = value;
    sessionStorage.setItem(`store:${current.list}`, value);
    redraw();
  },
  addEntry: (form, data) => addEntry(form, data),
  buy: async (el) => {
    const purchase = newId();
    const { name, item, quantity, price, location } = el.dataset;
    // Resolved when it is made (SPEC 7): what the row shows, and the time on this phone.
    const data = { purchase, item, list: selectedList(), purchasedAt: new Date().toISOString() };
    const trip = model.household?.trip;
    if (trip?.store) data.store = trip.store.id;   // a purchase during a trip is at its store, also when sent later
    if (quantity) data.quantity = Number(quantity);
    if (price) data.unitPrice = Number(price);
    if (location) data.location = location;
    const result = await send('PurchaseItem', data, { label: name });
    if (result) {
      view.toast(result.pending ? t('boughtWaiting', { name }) : t('boughtToast', { name }),
        { action: 'undo', label: t('undo'), data: { purchase, name } });
    }
  },
  undo: async (el) => {
    const { purchase, name } = el.dataset;
    if (!purchase) return;
    if (await send('RevertPurchase', { purchase })) view.toast(t('revertedToast', { name }));
  },
  clearBought: () => confirmed(t('confirmClear')) && send('ClearBought', { list: selectedList() }),
  changeQuantity: (form, data) => {
    const quantity = parseQuantity(data.get('quantity'));
    return send('ChangeQuantity', { list: selectedList(), item: form.dataset.item, quantity });
  },
  assign: (form, data) => send('AssignEntry', { list: selectedList(), item: form.dataset.item, member: data.get('member') || null }),
  removeEntry: (el) => send('RemoveItemFromList', { list: selectedList(), item: el.dataset.item }),
  moveEntry: (el) => moveWithin(current.state.order, el.dataset.item, Number(el.dataset.by),
    (order) => send('ReorderList', { list: selectedList(), order })),

  // Items
  createItem: async (form, data) => {
    const item = newId();
    if (await send('CreateItem', { item, name: data.get('name'), location: data.get('location') || undefined })) {
      form.reset();
      location.hash = `#/item/${item}`;
    }
  },
  itemDetails: (form, data) => saveItem(form, data),
  deleteItem: async (el) => {
    if (confirmed(t('confirmDelete', { name: el.dataset.name })) && await send('DeleteItem', { item: el.dataset.item })) location.hash = '#/items';
  },

  // Locations and stores
  createLocation: async (form, data) => { if (await send('CreateLocation', { name: data.get('name') })) form.reset(); },
  renameLocation: (form, data) => send('RenameLocation', { location: form.dataset.location, name: data.get('name') }),
  deleteLocation: (el) => confirmed(t('confirmDelete', { name: el.dataset.name })) && send('DeleteLocation', { location: el.dataset.location }),
  moveLocation: (el) => {
    const order = (current.locations ?? []).map((l) => l.id).filter((l) => l !== tpl.unknownLocationId);
    return moveWithin(order, el.dataset.location, Number(el.dataset.by), (o) => send('ReorderLocations', { order: o }));
  },
  createStore: async (form, data) => { forget('stores'); if (await send('CreateStore', { name: data.get('name') })) form.reset(); },
  renameStore: (form, data) => forget('stores') || send('RenameStore', { store: form.dataset.store, name: data.get('name') }),
  deleteStore: (el) => confirmed(t('confirmDelete', { name: el.dataset.name })) && send('DeleteStore', { store: el.dataset.store }),
  moveStoreLocation: (el) => {
    const order = (current.order ?? []).filter((l) => l !== tpl.unknownLocationId);
    return moveWithin(order, el.dataset.location, Number(el.dataset.by), (o) => send('ReorderStoreLocations', { store: current.storeId, order: o }));
  },
  resetStoreOrder: () => send('ReorderStoreLocations', { store: current.storeId, order: [] }),

  // Trip
  startTrip: (form, data) => send('StartTrip', { trip: newId(), store: data.get('store') || undefined }),
  pauseTrip: (el) => send('PauseTrip', { trip: el.dataset.trip }),
  resumeTrip: (el) => send('ResumeTrip', { trip: el.dataset.trip }),
  endTrip: (el) => send('EndTrip', { trip: el.dataset.trip }),

  // Due
  addDue: (el) => send('AddItemToList', { list: document.getElementById('due-list').value, item: el.dataset.item },
    { toast: { message: t('addedToast', { name: el.dataset.name }) } }),

  // Household
  changeRole: (form, data) => forget('members') || send('ChangeMemberRole', { member: form.dataset.member, role: data.get('role') }),
  removeMember: (el) => confirmed(t('confirmDelete', { name: el.dataset.name })) && send('RemoveMember', { member: el.dataset.member }),
  revoke: async (el) => {
    if (!confirmed(t('confirmRevoke', { name: el.dataset.name }))) return;
    try { await api.revoke(el.dataset.device); await redraw(); } catch (error) { failed(error); }
  },
  invite: (form, data) => invite(form, data),
  cancelInvite: async (el) => {
    try { await api.cancelInvite(el.dataset.invite); await redraw(); } catch (error) { failed(error); }
  },

  // Report
  downloadReport: async () => {
    try {
      const page = await api.report();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([page], { type: 'text/html' }));
      link.download = `${(model.household?.household?.name ?? 'household').replace(/[^\p{L}\p{N}]+/gu, '-')}-report.html`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (error) { failed(error); }
  },
});

/** The header's word on the connection and the changes waiting; the refusals kept for the person. */
let pendingShown = 0;
async function showPending() {
  if (!api.session) { view.setLive(model.online, 0); return; }
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

function moveWithin(order, id, by, then) {
  const from = order.indexOf(id), to = from + by;
  if (from < 0 || to < 0 || to >= order.length) return null;
  const moved = [...order];
  moved.splice(to, 0, moved.splice(from, 1)[0]);
  return then(moved);
}

/**
 * Adds what the "Item" field names to the list: the household's item of that name, else a new item first, in
 * the same push; assigned to someone when "For" names them. The app decides the name (names.js): from the
 * hub's suggestions, or offline from the items it last saw and those made here that still wait; the hub's
 * route takes ids only.
 */
async function addEntry(form, data) {
  const list = selectedList();
  const name = data.get('item').trim();
  const quantity = parseQuantity(data.get('quantity') || '1');
  const unit = data.get('unit').trim();
  const member = data.get('member');
  if (!name) return;
  const asked = await model.view('suggestions', { prefix: name, limit: 100 }).then((v) => v.items).catch(() => null);
  const [items, waiting] = await Promise.all([asked ?? itemsSeen().catch(() => []), model.pending()]);
  const known = knownItems(items, waiting.map((w) => w.command));
  const results = await sendAll(addCommands({ list, name, quantity, unit, member }, known, newId));
  if (results) {
    form.reset();
    view.suggestions(null);
    document.getElementById('add-item')?.focus();
    view.toast(results.some((r) => r.pending) ? t('addedWaiting', { name }) : t('addedToast', { name }));
  }
}

async function saveItem(form, data) {
  const item = form.dataset.item;
  const detail = await model.view('item', { item });
  const was = detail.item;
  const commands = [];
  const name = data.get('name').trim();
  if (name !== was.name) commands.push({ type: 'RenameItem', data: { item, name } });
  const patch = {};
  const price = parseMoney(data.get('unitPrice'));
  if (Number.isNaN(price)) { view.toast(refusal('invalid_price', `${data.get('unitPrice')}`), { error: true }); return; }
  if (price !== was.unitPrice) patch.unitPrice = price;
  for (const key of ['unit', 'barcode', 'category', 'notes']) {
    const value = data.get(key).trim() === '' ? null : data.get(key).trim();
    if (value !== (was[key] ?? null)) patch[key] = value;
  }
  if (Object.keys(patch).length) commands.push({ type: 'ChangeItemDetails', data: { item, ...patch } });
  const location = data.get('location');
  if (location && location !== was.location) commands.push({ type: 'RelocateItem', data: { item, location } });
  const available = data.get('available') === 'on';
  if (available !== was.available) commands.push({ type: 'SetItemAvailability', data: { item, available } });
  if (commands.length === 0 || await sendAll(commands)) {
    delete form.dataset.dirty;
    if (commands.length) view.toast(t('saved'));
    redraw();
  }
}

async function invite(form, data) {
  const actor = data.get('actor').trim();
  const role = data.get('role');
  try {
    const members = await model.view('members');
    if (!members.members.some((m) => m.member === actor)) { forget('members'); await model.command('AddMember', { member: actor, role }); }
    const answer = await api.invite(actor);
    form.reset();
    const box = document.querySelector('[data-region="inviteCode"]');
    box?.insertAdjacentHTML('afterbegin', tpl.text(tpl.inviteCode(answer.code, actor, answer.expires, model.zone)));
    view.region('invites', tpl.invites(await api.invites(), model.zone));
  } catch (error) { failed(error); }
}

// Suggestions while typing (SPEC section 11's view, asked as a person types).

function bindSuggestions(list) {
  const input = document.getElementById('add-item');
  const box = document.getElementById('add-suggestions');
  if (!input || !box) return;
  let asked = 0, timer = null, active = -1;
  const options = () => [...box.querySelectorAll('[role=option]')];
  const choose = (option) => {
    input.value = option.dataset.name;
    if (option.dataset.unit) document.getElementById('add-unit').value = option.dataset.unit;
    view.suggestions(null);
    document.getElementById('add-quantity')?.focus();
  };
  const highlight = (n) => {
    const all = options();
    active = (n + all.length) % all.length;
    all.forEach((o, i) => o.setAttribute('aria-selected', String(i === active)));
    input.setAttribute('aria-activedescendant', all[active].id);
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    const typed = input.value;
    if (!typed.trim()) { view.suggestions(null); return; }
    timer = setTimeout(async () => {
      const ticket = ++asked;
      try {
        const answer = await model.view('suggestions', { list, prefix: typed.trim(), limit: 8 });
        if (ticket === asked && input.value === typed) { active = -1; view.suggestions(tpl.suggestionOptions(answer.items, typed)); }
      } catch { /* suggestions are a help, never in the way */ }
    }, 120);
  });
  input.addEventListener('keydown', (event) => {
    const all = options();
    if (box.hidden || all.length === 0) return;
    if (event.key === 'ArrowDown') { event.preventDefault(); highlight(active + 1); }
    else if (event.key === 'ArrowUp') { event.preventDefault(); highlight(active - 1); }
    else if (event.key === 'Enter' && active >= 0) { event.preventDefault(); choose(all[active]); }
    else if (event.key === 'Escape') view.suggestions(null);
  });
  box.addEventListener('mousedown', (event) => event.preventDefault());   // keep the field's focus
  box.addEventListener('click', (event) => {
    const option = event.target.closest('[role=option]');
    if (option) choose(option);
  });
  input.addEventListener('blur', () => setTimeout(() => view.suggestions(null), 150));
}

// Drag to reorder (the "In order" list); the arrows do the same by touch or keys.

function bindDrag(list, state) {
  const box = document.querySelector('[data-list-order]');
  if (!box) return;
  let dragged = null;
  box.addEventListener('dragstart', (event) => {
    dragged = event.target.closest('li[data-item]')?.dataset.item ?? null;
    event.dataTransfer?.setData('text/plain', dragged ?? '');
  });
  box.addEventListener('dragover', (event) => { if (dragged) event.preventDefault(); });
  box.addEventListener('drop', (event) => {
    event.preventDefault();
    const target = event.target.closest('li[data-item]')?.dataset.item;
    if (!dragged || !target || target === dragged) return;
    const order = state.order.filter((i) => i !== dragged);
    order.splice(order.indexOf(target) + (state.order.indexOf(dragged) < state.order.indexOf(target) ? 1 : 0), 0, dragged);
    dragged = null;
    send('ReorderList', { list, order });
  });
}

// Start

/** Shows what the role allows: a viewer's screens have no controls that change things (the hub refuses them anyway). */
async function applyRole() {
  try {
    const members = await cachedView('members');
    const me = members.members.find((m) => m.member === api.session?.actor);
    document.body.dataset.role = members.open ? 'owner' : me?.role ?? 'none';
  } catch { /* shown by the screens */ }
}

async function begin() {
  cached.clear();
  try { await model.refreshHousehold(); } catch (error) {
    if (error instanceof HubFailure && error.status === 401) { signedOut({ revoked: error.code === 'member_removed', why: error.code }); return; }
  }
  await applyRole();
  if (!location.hash || location.hash === '#/') location.hash = '#/lists';
  else await show();
  showPending();
  itemsSeen().catch(() => {});   // kept for adding by name without a network
  model.flush();
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
  applyRole();
  itemsSeen().catch(() => {});
  const hadTrip = Boolean(model.household?.trip);
  try { await model.refreshHousehold(); } catch { /* shown by the redraw */ }
  if (hadTrip !== Boolean(model.household?.trip)) view.setNav(tpl.nav(current?.name, Boolean(model.household?.trip)));
  redraw();
}
model.addEventListener('online', () => showPending());
model.addEventListener('pending', () => { showPending(); soon(); });
window.addEventListener('online', () => { model.retryNow(); api.revokeWaiting(); });
// The app and the last views open without a network (sw.js, SPEC 12).
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch((error) => console.warn('no offline copy:', error));
model.addEventListener('signedOut', (event) => signedOut({ revoked: true, why: event.detail }));
document.addEventListener('keydown', (event) => { if (event.key === 'Escape') view.closeToast(); });
window.addEventListener('hashchange', () => {
  // "Skip to content" is no screen: it moves the focus to the screen shown.
  if (location.hash === '#main') {
    history.replaceState(null, '', current?.address ?? '#/lists');
    document.getElementById('main').focus();
    return;
  }
  show();
});

document.documentElement.lang = lang;
api.revokeWaiting();   // a sign-out made without a network ends the access now
if (api.session) begin(); else show();
