// What each tap, form and choice does: the command it sends, or the hub route it asks. Decides nothing
// (the hub does); the names a person types are resolved by names.js, what waits is shown by pending.js.
import { t, tn, lang, setLanguage, refusal } from './i18n.js';
import { Unreachable } from './api.js';
import { newId } from './model.js';
import { knownItems, addCommands } from './names.js';
import { parseMoney, parseQuantity } from './format.js';
import { parseEntry } from './parse-entry.js';
import { undoToast, restoreCommands } from './list-laws.js';
import * as tpl from './template.js';

/** The handlers by `data-action`, `data-form` and `data-change` name, for `view.bind`; `app` is the controller's wiring. */
export function actions(app) {
  const { api, model, view, send, sendAll, failed, redraw, show, signedOut, begin, forget } = app;
  return {
    language: async (el, code) => { view.setLanguage(setLanguage(code)); await show(); },
    closeToast: () => view.closeToast(),
    dismiss: (el) => model.dismiss(Number(el.dataset.n)),
    /** A refused entry's item put on the list chosen beside it instead; the refusal then goes. */
    addElsewhere: async (el) => {
      const n = Number(el.dataset.n);
      const kept = (await model.rejected()).find((r) => r.n === n);
      const list = view.value(`elsewhere-${n}`);
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
    switchHousehold: (el) => app.switchTo(el.dataset.household),
    signOut: async () => {
      // What still waits goes first if it can; what cannot is named in the question.
      await model.flush();
      const left = (await model.pending()).length;
      // Said as it will be: without a network the access ends only when this phone next reaches the hub.
      const reachable = await api.hello().then(() => true, (error) => !(error instanceof Unreachable));
      const asked = reachable ? t('signOutConfirm') : t('signOutConfirmOffline');
      const question = left > 0 ? `${asked} ${tn('signOutLoses', left)}` : asked;
      if (view.confirm(question)) signedOut({ revoke: true });
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
    deleteList: (el) => view.confirm(t('confirmDelete', { name: el.dataset.name })) && send('DeleteList', { list: el.dataset.list }),
    restoreList: (el) => send('RestoreList', { list: el.dataset.list }),
    purgeList: (el) => view.confirm(t('confirmPurge', { name: el.dataset.name })) && send('PurgeList', { list: el.dataset.list }),

    // One list
    store: (el, value) => {
      app.current.state.store = value;
      sessionStorage.setItem(`store:${app.current.list}`, value);
      redraw();
    },
    addEntry: (form, data) => addEntry(app, form, data),
    buy: async (el) => {
      const purchase = newId();
      const { name, item, quantity, price, location } = el.dataset;
      // Resolved when it is made (docs/SYNC.md): what the row shows, and the time on this phone.
      const data = { purchase, item, list: app.current?.list, purchasedAt: new Date().toISOString() };
      const trip = model.household?.trip;
      if (trip?.store) data.store = trip.store.id;   // a purchase during a trip is at its store, also when sent later
      if (quantity) data.quantity = Number(quantity);
      if (price) data.unitPrice = Number(price);
      if (location) data.location = location;
      const result = await send('PurchaseItem', data, { label: name });
      if (result) toast(view, undoToast('bought', { name, purchase, pending: result.pending }));
    },
    undo: async (el) => {
      const { purchase, name } = el.dataset;
      if (!purchase) return;
      if (await send('RevertPurchase', { purchase })) toast(view, undoToast('reverted', { name }));
    },
    /** A change refused because the entry left its list meanwhile: the entry put back, as changed. */
    addAgain: async (el) => {
      const { list, item, quantity, name } = el.dataset;
      view.closeToast();
      await send('AddItemToList', { list, item, ...(quantity ? { quantity: Number(quantity) } : {}) },
        { label: name, toast: { message: t('addedToast', { name }) } });
    },
    // No command brings cleared entries back as they were (docs/COMMANDS.md): asked first, and said so.
    clearBought: () => view.confirm(t('confirmClearForGood')) && send('ClearBought', { list: app.current?.list }),
    changeQuantity: (form, data) => {
      const quantity = parseQuantity(data.get('quantity'));
      return send('ChangeQuantity', { list: app.current?.list, item: form.dataset.item, quantity });
    },
    assign: (form, data) => send('AssignEntry', { list: app.current?.list, item: form.dataset.item, member: data.get('member') || null }),
    removeEntry: async (el) => {
      const list = app.current?.list;
      const { item, name, quantity, assignee } = el.dataset;
      const result = await send('RemoveItemFromList', { list, item }, { label: name });
      if (result) toast(view, undoToast('removed', { name, list, pending: result.pending, entry: { item, quantity: Number(quantity), assignee: assignee || null } }));
    },
    undoRemove: async (el) => {
      const results = await sendAll(restoreCommands(el.dataset));
      if (results) toast(view, undoToast('restored', { name: el.dataset.name }));
    },
    relocateEntry: (form, data) => {
      const location = data.get('location');
      if (!location) return null;
      forget('all-items-by-name');
      return send('RelocateItem', { item: form.dataset.item, location });
    },
    moveEntry: (el) => moveWithin(app.current.state.order, el.dataset.item, Number(el.dataset.by),
      (order) => send('ReorderList', { list: app.current?.list, order })),

    // Items
    createItem: async (form, data) => {
      const item = newId();
      if (await send('CreateItem', { item, name: data.get('name'), location: data.get('location') || undefined })) {
        form.reset();
        location.hash = `#/item/${item}`;
      }
    },
    itemDetails: (form, data) => saveItem(app, form, data),
    deleteItem: async (el) => {
      if (view.confirm(t('confirmDelete', { name: el.dataset.name })) && await send('DeleteItem', { item: el.dataset.item })) location.hash = '#/items';
    },

    // Locations and stores
    createLocation: async (form, data) => { forget('locations'); if (await send('CreateLocation', { name: data.get('name') })) form.reset(); },
    renameLocation: (form, data) => forget('locations') || send('RenameLocation', { location: form.dataset.location, name: data.get('name') }),
    deleteLocation: (el) => view.confirm(t('confirmDelete', { name: el.dataset.name })) && !forget('locations') && send('DeleteLocation', { location: el.dataset.location }),
    moveLocation: (el) => {
      const order = (app.current.locations ?? []).map((l) => l.id).filter((l) => l !== tpl.unknownLocationId);
      return moveWithin(order, el.dataset.location, Number(el.dataset.by), (o) => send('ReorderLocations', { order: o }));
    },
    createStore: async (form, data) => { forget('stores'); if (await send('CreateStore', { name: data.get('name') })) form.reset(); },
    renameStore: (form, data) => forget('stores') || send('RenameStore', { store: form.dataset.store, name: data.get('name') }),
    deleteStore: (el) => view.confirm(t('confirmDelete', { name: el.dataset.name })) && send('DeleteStore', { store: el.dataset.store }),
    moveStoreLocation: (el) => {
      const order = (app.current.order ?? []).filter((l) => l !== tpl.unknownLocationId);
      return moveWithin(order, el.dataset.location, Number(el.dataset.by), (o) => send('ReorderStoreLocations', { store: app.current.storeId, order: o }));
    },
    resetStoreOrder: () => send('ReorderStoreLocations', { store: app.current.storeId, order: [] }),

    // Trip
    startTrip: (form, data) => startTrip(app, data),
    tripStore: (el, value) => view.reveal('trip-new-store', value === newStoreChoice),
    pauseTrip: (el) => send('PauseTrip', { trip: el.dataset.trip }),
    resumeTrip: (el) => send('ResumeTrip', { trip: el.dataset.trip }),
    endTrip: (el) => send('EndTrip', { trip: el.dataset.trip }),

    // Due
    addDue: (el) => send('AddItemToList', { list: view.value('due-list'), item: el.dataset.item },
      { toast: { message: t('addedToast', { name: el.dataset.name }) } }),

    // Household
    changeRole: (form, data) => forget('members') || send('ChangeMemberRole', { member: form.dataset.member, role: data.get('role') }),
    removeMember: (el) => view.confirm(t('confirmDelete', { name: el.dataset.name })) && send('RemoveMember', { member: el.dataset.member }),
    revoke: async (el) => {
      if (!view.confirm(t('confirmRevoke', { name: el.dataset.name }))) return;
      try { await api.revoke(el.dataset.device); await redraw(); } catch (error) { failed(error); }
    },
    invite: (form, data) => invite(app, form, data),
    cancelInvite: async (el) => {
      try { await api.cancelInvite(el.dataset.invite); await redraw(); } catch (error) { failed(error); }
    },

    // Report
    downloadReport: async () => {
      try {
        const page = await api.report(lang);   // in the app's language
        view.download(`${(model.household?.household?.name ?? 'household').replace(/[^\p{L}\p{N}]+/gu, '-')}-report.html`, page, 'text/html');
      } catch (error) { failed(error); }
    },
  };
}

/** A message from list-laws.js's `undoToast`, in words, with its Undo. */
function toast(view, { words, params, action, data }) {
  view.toast(t(words, params), action ? { action, label: t('undo'), data } : {});
}

/** The Trip screen's store choice that makes a new store first (its name in the field beside). */
export const newStoreChoice = 'new';

/** A trip started at the store chosen, or at a new one made in the same push (`CreateStore` first). */
async function startTrip({ sendAll, forget, view }, data) {
  const trip = newId();
  const chosen = data.get('store');
  if (chosen !== newStoreChoice) return sendAll([{ type: 'StartTrip', data: { trip, store: chosen || undefined } }]);
  const name = (data.get('newStore') ?? '').trim();
  if (!name) { view.reveal('trip-new-store', true); return null; }
  const store = newId();
  forget('stores');
  return sendAll([{ type: 'CreateStore', data: { store, name } }, { type: 'StartTrip', data: { trip, store } }]);
}

export function moveWithin(order, id, by, then) {
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
async function addEntry(app, form, data) {
  const { model, view, sendAll, itemsSeen } = app;
  const list = app.current?.list;
  // One field: the name, and a quantity and unit typed with it (parse-entry.js); else "More"'s fields.
  const typed = parseEntry(data.get('item'));
  const name = typed.name;
  const quantity = typed.quantity ?? parseQuantity(data.get('quantity') || '1');
  const unit = typed.unit ?? data.get('unit').trim();
  const member = data.get('member');
  if (!name) return;
  const asked = await model.view('suggestions', { prefix: name, limit: 100 }).then((v) => v.items).catch(() => null);
  const [items, waiting] = await Promise.all([asked ?? itemsSeen().catch(() => []), model.pending()]);
  const known = knownItems(items, waiting.map((w) => w.command));
  const results = await sendAll(addCommands({ list, name, quantity, unit, member }, known, newId));
  if (results) {
    form.reset();
    view.suggestions(null);
    view.focus('add-item');
    view.toast(results.some((r) => r.pending) ? t('addedWaiting', { name }) : t('addedToast', { name }));
  }
}

async function saveItem({ model, view, sendAll, redraw }, form, data) {
  const item = form.dataset.item;
  const detail = await model.view('item', { item });
  const was = detail.item;
  const commands = [];
  const name = data.get('name').trim();
  if (name !== was.name) commands.push({ type: 'RenameItem', data: { item, name } });
  const patch = {};
  const price = parseMoney(data.get('unitPrice'));
  if (Number.isNaN(price)) { view.toast(refusal('invalid_price'), { error: true }); return; }
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
    view.saved(form);
    if (commands.length) view.toast(t('saved'));
    redraw();
  }
}

async function invite({ model, view, api, forget, failed }, form, data) {
  const actor = data.get('actor').trim();
  const role = data.get('role');
  try {
    const members = await model.view('members');
    if (!members.members.some((m) => m.member === actor)) { forget('members'); await model.command('AddMember', { member: actor, role }); }
    const answer = await api.invite(actor);
    form.reset();
    view.prepend('inviteCode', tpl.inviteCode(answer.code, actor, answer.expires, model.zone));
    view.region('invites', tpl.invites(await api.invites(), model.zone));
  } catch (error) { failed(error); }
}
