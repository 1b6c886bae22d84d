// Templates for the household's other screens: items and an item, places and a
// store's order, the trip, what is due, deleted lists, the household, the
// report. Escaped through `html` (template.js), which exports these too.
import { t, tn, lang } from './i18n.js';
import { money, amount, date, dateTime, duration, days } from './format.js';
import { html, raw, idOf, field, option, tabs, locationName, unknownLocationId, languageSwitch } from './template.js';

// Items

export function itemsBody(mode) {
  return html`${tabs(t('itemsTitle'), [
    { href: '#/items', label: t('byName'), current: mode === 'name' },
    { href: '#/items/date', label: t('byPurchaseDate'), current: mode === 'date' }])}
    <div data-region="items"><p class="loading">${t('loading')}</p></div>
    <form class="card" data-form="createItem" aria-labelledby="new-item-title">
      <h3 id="new-item-title">${t('newItem')}</h3>
      ${field('item-name', t('name'), html`<input id="item-name" name="name" required maxlength="200" autocomplete="off">`)}
      <div data-region="itemLocation"></div>
      <button type="submit">${t('createItem')}</button>
    </form>`;
}

export function locationSelect(id, locations, current) {
  return field(id, t('location'), html`<select id="${id}" name="location">${locations.map((l) => option(l.id, locationName(l.id, l.name), l.id === current))}</select>`);
}

const itemLine = (item, zone) => html`<li class="card item-card"><a href="#/item/${item.id}"><span class="name">${item.name}</span>
  <span class="meta">${locationName(item.location, item.locationName)} · ${item.lastPurchased ? t('lastBought', { date: date(item.lastPurchased, zone) }) : t('neverBought')}
  ${item.onLists.length ? html` · ${tn('onLists', item.onLists.length)}` : ''}</span></a></li>`;

export function itemsByName(view, zone) {
  return html`<ul class="cards">${view.items.map((i) => itemLine(i, zone))}</ul>`;
}

export function itemsByDate(view, byName, zone) {
  const items = new Map(byName.items.map((i) => [i.id, i]));
  return view.sections.map((s) => html`<section><h3>${s.day ? date(`${s.day}T12:00:00Z`, 'UTC') : t('neverBought')}</h3>
    <ul class="cards">${s.items.map((id) => items.get(id)).filter(Boolean).map((i) => itemLine(i, zone))}</ul></section>`);
}

// An item's details

export function itemDetail(view, locations, currency, zone) {
  const item = view.item;
  const value = (v) => (v === null || v === undefined ? '' : v);
  return html`<form class="card" data-form="itemDetails" data-item="${item.id}" aria-labelledby="details-title">
      <h3 id="details-title">${t('details')}${item.deleted ? html` <span class="badge">${t('deleted')}</span>` : ''}</h3>
      ${field('d-name', t('name'), html`<input id="d-name" name="name" required maxlength="200" value="${item.name}">`)}
      <div class="row">
        ${field('d-price', t('price'), html`<input id="d-price" name="unitPrice" inputmode="decimal" value="${item.unitPrice === null ? '' : (item.unitPrice / 100).toFixed(2)}">`)}
        ${field('d-unit', t('unit'), html`<input id="d-unit" name="unit" maxlength="16" value="${value(item.unit)}">`)}
      </div>
      <div class="row">
        ${field('d-barcode', t('barcode'), html`<input id="d-barcode" name="barcode" inputmode="numeric" value="${value(item.barcode)}">`)}
        ${field('d-category', t('category'), html`<input id="d-category" name="category" maxlength="200" value="${value(item.category)}">`)}
      </div>
      ${field('d-notes', t('notes'), html`<textarea id="d-notes" name="notes" rows="3">${value(item.notes)}</textarea>`)}
      ${locationSelect('d-location', locations, item.location)}
      <label class="check"><input type="checkbox" name="available"${item.available ? raw(' checked') : ''}> ${t('available')}</label>
      <div class="row"><button class="primary" type="submit">${t('save')}</button>
      ${item.deleted ? '' : html`<button type="button" class="danger" data-action="deleteItem" data-item="${item.id}" data-name="${item.name}">${t('deleteItem')}</button>`}</div>
    </form>
    <section class="card"><h3>${t('pricesPerStore')}</h3>${view.prices.length === 0 ? html`<p class="empty">${t('noPurchases')}</p>` : html`<ul class="plain">${view.prices.map((p) => html`<li>
      <strong>${p.name}</strong> ${money(p.lastUnitPrice, currency)}${p.store === view.cheapest ? html` <span class="badge">${t('cheapest')}</span>` : ''}
      <span class="meta">${t('lowestHighest', { low: money(p.lowest, currency), high: money(p.highest, currency) })} · ${date(p.lastPurchased, zone)}</span></li>`)}</ul>`}</section>
    <section class="card"><h3>${t('history')}</h3>${view.purchases.length === 0 ? html`<p class="empty">${t('noPurchases')}</p>` : html`<ul class="plain">${view.purchases.map((p) => html`<li${p.reverted ? raw(' class="reverted"') : ''}>
      ${dateTime(p.purchasedAt, zone)} · ${amount(p.quantity, view.item.unit)} · ${money(p.unitPrice, currency)} · ${p.actor}${p.storeName ? html` · ${p.storeName}` : ''}
      ${p.reverted ? html` <span class="badge">${t('reverted')}</span>` : ''}</li>`)}</ul>`}</section>`;
}

// Locations and stores

export function placesBody() {
  return html`<section aria-labelledby="locations-title"><h3 id="locations-title">${t('locationsTitle')}</h3>
      <div data-region="locations"><p class="loading">${t('loading')}</p></div>
      <form class="card row" data-form="createLocation">
        ${field('location-name', t('newLocation'), html`<input id="location-name" name="name" required maxlength="200" autocomplete="off">`)}
        <button type="submit">${t('createLocation')}</button></form></section>
    <section aria-labelledby="stores-title"><h3 id="stores-title">${t('storesTitle')}</h3>
      <div data-region="stores"><p class="loading">${t('loading')}</p></div>
      <form class="card row" data-form="createStore">
        ${field('store-name', t('newStore'), html`<input id="store-name" name="name" required maxlength="200" autocomplete="off">`)}
        <button type="submit">${t('createStore')}</button></form></section>`;
}


export function locations(view) {
  const movable = view.locations.filter((l) => l.id !== unknownLocationId);
  return html`<ul class="cards">${view.locations.map((l) => {
    const n = movable.indexOf(l);
    return html`<li class="card location" data-color="${colorOf(l.color)}">
      <span class="swatch" aria-hidden="true" data-color="${colorOf(l.color)}"></span>
      <span class="name" id="loc-${l.id}">${locationName(l.id, l.name)}</span> <span class="meta">${tn('itemsCount', l.items)}</span>
      ${l.id === unknownLocationId ? '' : html`
        <button class="icon" data-action="moveLocation" data-location="${l.id}" data-by="-1" aria-label="${t('moveUp')}" aria-describedby="loc-${l.id}"${n === 0 ? raw(' disabled') : ''}>↑</button>
        <button class="icon" data-action="moveLocation" data-location="${l.id}" data-by="1" aria-label="${t('moveDown')}" aria-describedby="loc-${l.id}"${n === movable.length - 1 ? raw(' disabled') : ''}>↓</button>`}
      <details class="more"><summary aria-describedby="loc-${l.id}">${t('more')}</summary>
        <form data-form="renameLocation" data-location="${l.id}" class="row">
          <label class="field"><span>${t('newName')}</span><input name="name" required value="${l.name}" aria-label="${t('newName')}: ${l.name}"></label>
          <button type="submit" aria-describedby="loc-${l.id}">${t('rename')}</button></form>
        ${l.id === unknownLocationId ? '' : html`<button class="danger" data-action="deleteLocation" data-location="${l.id}" data-name="${l.name}" aria-describedby="loc-${l.id}">${t('deleteLocation')}</button>`}
      </details></li>`;
  })}</ul>`;
}

export function colorOf(color) {
  if (!color) return '';
  const c = (v) => Math.round(Math.min(1, Math.max(0, v)) * 255);
  return `rgb(${c(color.red)} ${c(color.green)} ${c(color.blue)})`;
}

export function stores(view, currency) {
  return html`<ul class="cards">${view.stores.map((s) => html`<li class="card">
    <a href="#/store/${s.id}"><span class="name" id="store-${s.id}">${s.name}</span></a>
    <span class="meta">${tn('purchasesSpend', s.purchases, { amount: money(s.spend, currency) })}
      · ${s.ownOrder.length ? t('ownOrder') : t('sameAsHousehold')}</span>
    <details class="more"><summary aria-describedby="store-${s.id}">${t('more')}</summary>
      <form data-form="renameStore" data-store="${s.id}" class="row">
        <label class="field"><span>${t('newName')}</span><input name="name" required value="${s.name}" aria-label="${t('newName')}: ${s.name}"></label>
        <button type="submit" aria-describedby="store-${s.id}">${t('rename')}</button></form>
      <button class="danger" data-action="deleteStore" data-store="${s.id}" data-name="${s.name}" aria-describedby="store-${s.id}">${t('deleteStore')}</button>
    </details></li>`)}</ul>`;
}

export function storeOrder(store, names) {
  const movable = store.order.filter((id) => id !== unknownLocationId);
  return html`<p class="help">${store.ownOrder.length ? t('ownOrder') : t('sameAsHousehold')}</p>
    <ol class="cards">${store.order.map((id) => {
      const n = movable.indexOf(id);
      return html`<li class="card"><span class="name" id="so-${id}">${locationName(id, names.get(id) ?? id)}</span>
        ${id === unknownLocationId ? '' : html`
        <button class="icon" data-action="moveStoreLocation" data-location="${id}" data-by="-1" aria-label="${t('moveUp')}" aria-describedby="so-${id}"${n === 0 ? raw(' disabled') : ''}>↑</button>
        <button class="icon" data-action="moveStoreLocation" data-location="${id}" data-by="1" aria-label="${t('moveDown')}" aria-describedby="so-${id}"${n === movable.length - 1 ? raw(' disabled') : ''}>↓</button>`}</li>`;
    })}</ol>
    ${store.ownOrder.length ? html`<button data-action="resetStoreOrder">${t('resetOrder')}</button>` : ''}`;
}

// Trip

// A trip is its shopper's: this phone's actor's own trip (`trip`), and the others' under way (`trips`), which any
// member may end (someone may have left theirs running).
export function trip(view, storesView, zone) {
  const running = view.trip;
  const others = (view.trips || []).filter((other) => other.id !== running?.id);
  return html`${running ? ownTrip(running, zone) : html`<p>${t('noTrip')}</p><form class="card" data-form="startTrip">
      ${field('trip-store', t('store'), html`<select id="trip-store" name="store" data-change="tripStore">${option('', t('anyStore'), true)}
        ${storesView.stores.map((s) => option(s.id, s.name, false))}${option('new', t('newStoreChoice'), false)}</select>`)}
      <label class="field" for="trip-new-store" hidden><span>${t('newStoreName')}</span><input id="trip-new-store" name="newStore" maxlength="200" autocomplete="off"></label>
      <button class="primary" type="submit">${t('startTrip')}</button></form>`}
    ${others.length ? html`<section aria-labelledby="others-trips"><h3 id="others-trips">${t('othersTrips')}</h3><ul class="cards">${others.map((other) =>
      html`<li class="card"><p>${other.store ? t('otherTripAt', { shopper: other.shopper, store: other.store.name }) : other.shopper}</p>
        <p class="meta">${t('tripStarted', { time: dateTime(other.startedAt, zone) })}${other.paused ? html` · ${t('tripPaused')}` : ''}</p>
        <button data-action="endTrip" data-trip="${other.id}">${t('endOthersTrip', { shopper: other.shopper })}</button></li>`)}</ul></section>` : ''}`;
}

function ownTrip(running, zone) {
  return html`<h3>${t('yourTrip')}</h3><div class="card trip">
    <p class="timer" data-timer data-seconds="${running.activeSeconds}" data-paused="${running.paused}" role="timer" aria-live="off">0:00:00</p>
    ${running.store ? html`<p>${t('tripAt', { store: running.store.name })}</p>` : ''}
    <p class="meta">${t('tripStarted', { time: dateTime(running.startedAt, zone) })}${running.paused ? html` · ${t('tripPaused')}` : ''}</p>
    <div class="row">${running.paused
      ? html`<button data-action="resumeTrip" data-trip="${running.id}">${t('resumeTrip')}</button>`
      : html`<button data-action="pauseTrip" data-trip="${running.id}">${t('pauseTrip')}</button>`}
      <button class="primary" data-action="endTrip" data-trip="${running.id}">${t('endTrip')}</button></div></div>`;
}

// Due

export function due(view, listsView) {
  if (view.items.length === 0) return html`<p class="empty">${t('nothingDue')}</p>`;
  return html`${listsView.lists.length ? field('due-list', t('toList'), html`<select id="due-list">${listsView.lists.map((l, n) => option(l.id, l.name, n === 0))}</select>`) : ''}
    <ul class="cards">${view.items.map((i) => html`<li class="card"><span class="name" id="due-${i.item}">${i.name}</span>
    <span class="meta">${t('overdueDays', { every: days(i.meanIntervalDays), since: days(i.daysSince) })}</span>
    ${listsView.lists.length ? html`<button data-action="addDue" data-item="${i.item}" data-name="${i.name}" aria-describedby="due-${i.item}">${t('addTo')}</button>` : ''}</li>`)}</ul>`;
}

// Deleted lists

export function deletedLists(view, zone) {
  if (view.lists.length === 0) return html`<p class="empty">${t('noDeleted')}</p>`;
  return html`<ul class="cards">${view.lists.map((l) => html`<li class="card"><span class="name" id="del-${l.id}">${l.name}</span>
    <span class="meta">${t('deletedBy', { date: date(l.deletedAt, zone), actor: l.deletedBy })}</span>
    <div class="row"><button data-action="restoreList" data-list="${l.id}" aria-describedby="del-${l.id}">${t('restore')}</button>
    <button class="danger" data-action="purgeList" data-list="${l.id}" data-name="${l.name}" aria-describedby="del-${l.id}">${t('purge')}</button></div></li>`)}</ul>`;
}

// Household: members, devices, invites

export function householdBody(view) {
  const h = view.household;
  return html`${h ? html`<p class="meta">${h.currency} · ${h.timeZone}</p>` : ''}
    <section aria-labelledby="members-title"><h3 id="members-title">${t('members')}</h3><div data-region="members"></div></section>
    <section data-region="owners"></section>
    <section class="card">${languageSwitch()}<button class="danger" data-action="signOut">${t('signOut')}</button></section>`;
}

const roles = ['owner', 'member', 'viewer'];
const roleSelect = (id, current, label) => html`<select id="${id}" name="role"${label ? html` aria-label="${label}"` : ''}>${roles.map((r) => option(r, t(`role_${r}`), r === current))}</select>`;

export function members(view, me, owner) {
  return html`${view.open ? html`<p class="help">${t('openHousehold')}</p>` : ''}<ul class="cards">${view.members.map((m) => html`<li class="card">
    <span class="name" id="${idOf('m', m.member)}">${m.member === me ? t('you', { actor: me }) : m.member}</span> <span class="badge">${t(`role_${m.role}`)}</span>
    ${owner ? html`<details class="more"><summary aria-describedby="${idOf('m', m.member)}">${t('more')}</summary>
      <form data-form="changeRole" data-member="${m.member}" class="row">${roleSelect(idOf('role', m.member), m.role, `${t('role')}: ${m.member}`)}
        <button type="submit" aria-describedby="${idOf('m', m.member)}">${t('changeRole')}</button></form>
      <button class="danger" data-action="removeMember" data-member="${m.member}" data-name="${m.member}" aria-describedby="${idOf('m', m.member)}">${t('removeMember')}</button>
    </details>` : ''}</li>`)}</ul>`;
}

export function owners(devices, me, zone) {
  return html`<h3 id="invite-title">${t('invites')}</h3>
    <form class="card" data-form="invite">
      <div class="row">${field('invite-actor', t('inviteFor'), html`<input id="invite-actor" name="actor" required maxlength="100" autocomplete="off">`)}
      ${field('invite-role', t('role'), roleSelect('invite-role', 'member'))}</div>
      <button class="primary" type="submit">${t('invite')}</button>
      <ul class="invite-code" data-region="inviteCode" role="status"></ul>
    </form>
    <h3 id="waiting-title">${t('outstandingInvites')}</h3>
    <div data-region="invites"></div>
    <h3>${t('devices')}</h3>
    <ul class="cards">${devices.map((d) => html`<li class="card"><span class="name" id="${idOf('dev', d.device)}">${d.device}</span>
      <span class="meta">${d.actor}${d.lastSeen ? html` · ${t('lastSeen', { date: dateTime(d.lastSeen, zone) })}` : ''}${d.device === me ? html` · ${t('thisDevice')}` : ''}</span>
 ${d.device === me ? '' : html`<button class="danger" data-action="revoke" data-device="${d.device}" data-name="${d.device}" aria-describedby="${idOf('dev', d.device)}">${t('revoke')}</button>`}</li>`)}</ul>`;
}

/** The invites not used yet: whom each is for, who made it, until when; a "Cancel invite" each. */
export function invites(waiting, zone) {
  if (waiting.length === 0) return html`<p class="help">${t('noInvites')}</p>`;
  return html`<ul class="cards">${waiting.map((i) => html`<li class="card"><span class="name" id="${idOf('inv', i.id)}">${t('inviteWaiting', { actor: i.actor, by: i.by, date: dateTime(i.expires, zone) })}</span>
    <button class="danger" data-action="cancelInvite" data-invite="${i.id}" aria-describedby="${idOf('inv', i.id)}">${t('cancelInvite')}</button></li>`)}</ul>`;
}

export function inviteCode(code, actor, expires, zone) {
  // The code kept on one line: it never breaks at its hyphen.
  const [before, after] = t('inviteShown', { actor, code: '\u0001', date: dateTime(expires, zone) }).split('\u0001');
  return html`<li>${before}<span class="nowrap">${code}</span>${after}</li>`;
}

// Report

/** "2026-07" as the language says a month: "Jul 2026". */
function monthName(month) {
  const [year, number] = month.split('-').map(Number);
  return new Intl.DateTimeFormat(lang, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(Date.UTC(year, number - 1, 15));
}

export function report(stats, currency) {
  const months = stats.months.slice(-12);
  const most = Math.max(1, ...months.map((m) => m.spend));
  const storesMost = Math.max(1, ...stats.stores.map((s) => s.spend));
  const actorsMost = Math.max(1, ...(stats.actors ?? []).map((a) => a.spend));
  const top = [...stats.items].sort((a, b) => b.purchases - a.purchases).slice(0, 10);
  const purchases = stats.months.reduce((n, m) => n + m.purchases, 0);
  return html`<p><button class="primary" data-action="downloadReport">${t('downloadReport')}</button></p>
    <p>${tn('purchasesCount', purchases)}${stats.trips?.count ? html` · ${tn('trips', stats.trips.count, { mean: duration(stats.trips.meanSeconds) })}` : ''}</p>
    <section class="card"><h3>${t('spendByMonth')}</h3><ul class="bars">${months.map((m) => html`<li><span class="label">${monthName(m.month)}</span>
      <span class="bar" data-fraction="${m.spend / most}"></span><span class="value">${money(m.spend, currency)}</span></li>`)}</ul></section>
    <section class="card"><h3>${t('spendByStore')}</h3><ul class="bars">${stats.stores.map((s) => html`<li><span class="label">${s.store ? s.name : t('anyStore')}</span>
      <span class="bar" data-fraction="${s.spend / storesMost}"></span><span class="value">${money(s.spend, currency)}</span></li>`)}</ul></section>
    <section class="card"><h3>${t('whoShopped')}</h3><ul class="bars">${(stats.actors ?? []).map((a) => html`<li><span class="label">${a.actor}</span>
      <span class="bar" data-fraction="${a.spend / actorsMost}"></span><span class="value">${tn('purchasesSpend', a.purchases, { amount: money(a.spend, currency) })}</span></li>`)}</ul></section>
    <section class="card"><h3>${t('topItems')}</h3><ol class="plain">${top.map((i) => html`<li>${i.name} · ${i.purchases} · ${money(i.spend, currency)}</li>`)}</ol></section>`;
}
