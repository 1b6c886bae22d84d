// Templates: HTML for each part of a screen, from the views' JSON. Every value
// is escaped; nothing here talks to the hub or keeps state. No inline style
// and no inline script (the Content-Security-Policy allows neither): colours
// and bar lengths are data attributes that the view sets through the CSSOM.
// Here the one escaping point (`html`), the parts every screen uses, the start,
// the lists and one list; js/template-household.js the other screens (items,
// places, trip, due, household, report), exported from here too.
import { t, tn, languages, lang, reasonWords } from './i18n.js';
import { describe, label } from './refusals.js';
import { money, amount, date, dateTime, duration, days } from './format.js';
import { lineTotal } from './list-laws.js';

class Raw { constructor(text) { this.text = text; } }
export const raw = (text) => new Raw(text);
const escapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (value) => String(value).replace(/[&<>"']/g, (c) => escapes[c]);
function piece(value) {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return esc(value);
}
/** A tagged template whose values are escaped (arrays joined, `raw()` kept as it is). */
export function html(strings, ...values) {
  return raw(strings.reduce((out, text, i) => out + text + (i < values.length ? piece(values[i]) : ''), ''));
}
export const text = (value) => piece(value);

/** An element id made from a name a person typed (spaces, quotes): letters, digits, '-' and '_' only, and unique. */
export const idOf = (prefix, text) => `${prefix}-${Array.from(new TextEncoder().encode(String(text)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

export const field = (id, label, input) => html`<label class="field" for="${id}"><span>${label}</span>${input}</label>`;
export const option = (value, label, selected) => html`<option value="${value}"${selected ? raw(' selected') : ''}>${label}</option>`;
export const tabs = (label, items) => html`<div class="tabs" role="group" aria-label="${label}">${items.map((i) =>
  html`<a class="tab" href="${i.href}"${i.current ? raw(' aria-current="page"') : ''}>${i.label}</a>`)}</div>`;

export function screen(title, body, { back } = {}) {
  return html`<div class="screen">
    <div class="screen-head">${back ? html`<a class="back" href="${back}"><span aria-hidden="true">‹&nbsp;</span>${t('back')}</a>` : ''}<h2 id="screen-title" tabindex="-1">${title}</h2></div>
    ${body}</div>`;
}

// Start and join

export function welcome(defaults, notice, more = '') {
  return html`<div class="screen welcome">
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${more}
    <p class="lead">${t('welcome')}</p>
    <form class="card" data-form="start" aria-labelledby="start-title">
      <h2 id="start-title">${t('startTitle')}</h2>
      <p class="help">${t('startHelp')}</p>
      ${field('start-name', t('householdName'), html`<input id="start-name" name="name" required maxlength="200" autocomplete="off">`)}
      ${field('start-actor', t('yourName'), html`<input id="start-actor" name="actor" required maxlength="100" autocomplete="given-name">`)}
      <div class="row">
        ${field('start-currency', t('currency'), html`<input id="start-currency" name="currency" required pattern="[A-Za-z]{3}" maxlength="3" value="${defaults.currency}">`)}
        ${field('start-zone', t('timeZone'), html`<input id="start-zone" name="timeZone" required value="${defaults.timeZone}">`)}
      </div>
      ${field('start-device', t('deviceName'), html`<input id="start-device" name="device" required maxlength="100" value="${defaults.device}">`)}
      <button class="primary" type="submit">${t('startHousehold')}</button>
    </form>
    <form class="card" data-form="join" aria-labelledby="join-title">
      <h2 id="join-title">${t('joinTitle')}</h2>
      <p class="help">${t('joinHelp')}</p>
      ${field('join-code', t('inviteCode'), html`<input id="join-code" name="code" required autocomplete="off" autocapitalize="characters" spellcheck="false">`)}
      ${field('join-device', t('deviceName'), html`<input id="join-device" name="device" required maxlength="100" value="${defaults.device}">`)}
      <button class="primary" type="submit">${t('join')}</button>
    </form>
    ${languageSwitch()}
  </div>`;
}

export function languageSwitch() {
  return html`<div class="language">${field('language', t('language'), html`<select id="language" data-change="language">
    ${Object.entries(languages).map(([code, name]) => option(code, name, code === lang))}</select>`)}</div>`;
}

export function nav(current, running) {
  const links = [['lists', '#/lists', t('navLists')], ['items', '#/items', t('navItems')], ['trip', '#/trip', t('navTrip')],
    ['due', '#/due', t('navDue')], ['places', '#/places', t('navPlaces')], ['household', '#/household', t('navHousehold')],
    ['report', '#/report', t('navReport')]];
  return html`<ul>${links.map(([key, href, label]) => html`<li><a href="${href}"${key === current ? raw(' aria-current="page"') : ''}
    class="${key === 'trip' && running ? 'running' : ''}">${label}</a></li>`)}</ul>`;
}

// Lists

export function listsBody() {
  return html`<div data-region="lists"><p class="loading">${t('loading')}</p></div>
    <form class="card" data-form="createList" aria-labelledby="new-list-title">
      <h3 id="new-list-title">${t('newList')}</h3>
      <div class="row">
        ${field('list-name', t('listName'), html`<input id="list-name" name="name" required maxlength="200" autocomplete="off">`)}
        ${field('list-priority', t('priority'), priorities('normal', 'list-priority'))}
      </div>
      <button type="submit">${t('createList')}</button>
    </form>
    <p><a href="#/deleted">${t('deletedListsLink')}</a></p>`;
}

const priorities = (current, id) => html`<select id="${id}" name="priority">${['high', 'normal', 'low'].map((p) => option(p, t(`priority_${p}`), p === current))}</select>`;

export function lists(view) {
  if (view.lists.length === 0) return html`<p class="empty">${t('noLists')}</p>`;
  return html`<ul class="cards">${view.lists.map((list) => html`<li class="card list-card" data-list="${list.id}">
    <a class="list-link" href="#/list/${list.id}"><span class="list-name">${list.name}</span>
      <span class="badge priority-${list.priority}">${t(`priority_${list.priority}`)}</span>
      <span class="counts">${t('entriesCount', { remaining: list.remaining, bought: list.bought })}</span></a>
    <details class="more"><summary>${t('more')}<span class="visually-hidden"> ${list.name}</span></summary>
      <form data-form="renameList" data-list="${list.id}" class="row">
        ${field(`rename-${list.id}`, t('newName'), html`<input id="rename-${list.id}" name="name" required value="${list.name}">`)}
        <button type="submit">${t('rename')}</button></form>
      <form data-form="listPriority" data-list="${list.id}" class="row">
        ${field(`priority-${list.id}`, t('priority'), priorities(list.priority, `priority-${list.id}`))}
        <button type="submit">${t('change')}</button></form>
      <button class="danger" data-action="deleteList" data-list="${list.id}" data-name="${list.name}">${t('deleteList')}</button>
    </details></li>`)}</ul>`;
}

// One list

export function listBody(list, mode, members) {
  const base = `#/list/${list}`;
  return html`<div data-region="summary" class="summary"></div>
    ${tabs(t('listMode'), [
      { href: `${base}/location`, label: t('byLocation'), current: mode === 'location' },
      { href: `${base}/name`, label: t('byName'), current: mode === 'name' },
      { href: `${base}/order`, label: t('inOrder'), current: mode === 'order' }])}
    <div data-region="store"></div>
    <form class="card add" data-form="addEntry" autocomplete="off" aria-label="${t('add')}">
      <div class="add-line">
        <div class="combo">
          ${field('add-item', t('item'), html`<input id="add-item" name="item" required maxlength="200" role="combobox" placeholder="${t('addPlaceholder')}"
            aria-autocomplete="list" aria-expanded="false" aria-controls="add-suggestions" autocomplete="off" spellcheck="false">`)}
          <ul id="add-suggestions" class="suggestions" role="listbox" aria-label="${t('suggestions')}" hidden></ul>
        </div>
        <button class="primary" type="submit">${t('add')}</button>
      </div>
      <details class="add-more"><summary aria-label="${t('more')}${t('addMoreHidden')}">${t('more')}</summary>
        <div class="row">
          ${field('add-quantity', t('quantity'), html`<input id="add-quantity" name="quantity" inputmode="decimal" value="1" required>`)}
          ${field('add-unit', t('unit'), html`<input id="add-unit" name="unit" maxlength="16" placeholder="kg, l, pack">`)}
          ${field('add-for', t('assignTo'), memberSelect('add-for', 'member', members, null))}
        </div>
      </details>
    </form>
    <div data-region="entries"><p class="loading">${t('loading')}</p></div>`;
}

export function memberSelect(id, name, members, current, label) {
  return html`<select id="${id}" name="${name}"${label ? html` aria-label="${label}"` : ''}>${option('', t('nobody'), !current)}
    ${members.map((m) => option(m, m, m === current))}</select>`;
}

export function storeChoice(stores, chosen, trip) {
  // With no store chosen the list follows the running trip's store (docs/VIEWS.md): the first choice says so.
  const first = trip?.store ? t('tripStore', { store: trip.store.name }) : t('householdOrder');
  return html`<div class="row store-choice">${field('store', t('store'), html`<select id="store" data-change="store">
    ${option('', first, !chosen)}
    ${stores.map((s) => option(s.id, s.name, s.id === chosen))}</select>`)}</div>`;
}

export function summary(counts, view, currency) {
  const total = counts.bought + counts.remaining;
  return html`<p class="progress"><strong>${t('boughtOf', { bought: counts.bought, total })}</strong>
    ${view.estimatedTotal ? html` · ${t('total', { amount: money(view.estimatedTotal, currency) })}` : ''}</p>
    <meter min="0" max="${Math.max(total, 1)}" value="${counts.bought}" aria-label="${t('boughtOf', { bought: counts.bought, total })}"></meter>
    ${counts.bought > 0 ? html`<button data-action="clearBought">${t('clearBought')}</button>` : ''}`;
}

function entryRow(e, { currency, members, list, ordering, position, count, location, locations = [], locationOf = new Map() }) {
  const id = `n-${e.item}`;
  // What a purchase made offline takes with it (resolved when it is made: docs/SYNC.md).
  const resolved = html` data-quantity="${e.quantity}"${e.unitPrice === null || e.unitPrice === undefined ? '' : html` data-price="${e.unitPrice}"`}${location ? html` data-location="${location}"` : ''}`;
  const waiting = e.pending ? html`<span class="badge pending">${t('pendingMark')}</span>` : '';
  const who = e.assignee ? html`<span class="who">${t('forMember', { member: e.assignee })}</span>` : '';
  const buyOrUndo = e.bought
    ? html`<button class="undo" data-action="undo" data-purchase="${e.purchase ?? ''}" data-name="${e.name}" aria-describedby="${id}">${t('undo')}</button>`
    : html`<button class="buy" data-action="buy" data-item="${e.item}" data-name="${e.name}"${resolved} aria-describedby="${id}">${t('buy')}</button>`;
  const moves = ordering && !e.bought ? html`
    <button class="icon" data-action="moveEntry" data-item="${e.item}" data-by="-1" aria-describedby="${id}"${position === 0 ? raw(' disabled') : ''} aria-label="${t('moveUp')}">↑</button>
    <button class="icon" data-action="moveEntry" data-item="${e.item}" data-by="1" aria-describedby="${id}"${position === count - 1 ? raw(' disabled') : ''} aria-label="${t('moveDown')}">↓</button>` : '';
  const here = location ?? locationOf.get(e.item) ?? null;
  // The name opens the item; only "Buy" buys (docs/APP.md, "Buying on purpose").
  return html`<li class="entry${e.bought ? ' bought' : ''}${e.pending ? ' pending' : ''}${e.available === false ? ' unavailable' : ''}" data-item="${e.item}"${ordering && !e.bought ? raw(' draggable="true"') : ''}>
    ${buyOrUndo}
    <span class="what"><a class="name" id="${id}" href="#/item/${e.item}">${e.name}</a> ${waiting}
      <span class="qty">${amount(e.quantity, e.unit)}</span> ${who} ${linePrice(e, currency)}
      ${e.available === false ? html`<span class="badge">${t('notAvailable')}</span>` : ''}</span>
    ${moves}
    ${e.bought ? '' : html`<details class="more"><summary aria-describedby="${id}">${t('more')}</summary>
      <form data-form="changeQuantity" data-item="${e.item}" class="row">
        <label class="field"><span>${t('quantity')}</span><input name="quantity" inputmode="decimal" value="${e.quantity}" aria-label="${t('quantity')}: ${e.name}"></label>
        <button type="submit" aria-describedby="${id}">${t('change')}</button></form>
      <form data-form="assign" data-item="${e.item}" class="row">
        <label class="field"><span>${t('assignTo')}</span>${memberSelect(`for-${e.item}`, 'member', members, e.assignee, `${t('assignTo')}: ${e.name}`)}</label>
        <button type="submit" aria-describedby="${id}">${t('change')}</button></form>
      ${locations.length ? html`<form data-form="relocateEntry" data-item="${e.item}" data-name="${e.name}" class="row">
        <label class="field"><span>${t('entryLocation')}</span><select name="location" aria-label="${t('entryLocation')}: ${e.name}">
          ${here ? '' : option('', '—', true)}${locations.map((l) => option(l.id, locationName(l.id, l.name), l.id === here))}</select></label>
        <button type="submit" aria-describedby="${id}">${t('moveThere')}</button></form>` : ''}
      <button class="danger" data-action="removeEntry" data-item="${e.item}" data-name="${e.name}" data-quantity="${e.quantity}" data-assignee="${e.assignee ?? ''}" aria-describedby="${id}">${t('remove')}</button>
    </details>`}</li>`;
}

/** The unit price, and beside it what the line costs (quantity × price, as the core rounds it: list-laws.js). */
function linePrice(e, currency) {
  if (e.unitPrice === undefined || e.unitPrice === null) return '';
  const each = e.unit ? t('pricePer', { price: money(e.unitPrice, currency), unit: e.unit }) : t('priceEach', { price: money(e.unitPrice, currency) });
  const total = Number(e.quantity) === 1 ? '' : html` <span class="line-total">${t('lineTotal', { amount: money(lineTotal(e.quantity, e.unitPrice), currency) })}</span>`;
  return html`<span class="price">${each}${total}</span>`;
}

/**
 * The entries to buy (`toBuy`: the view of the mode, no bought entry in it) and under them the collapsed
 * "Bought" part with each bought entry's Undo (`bought`; list-laws.js says which).
 */
export function entries({ toBuy, bought }, options) {
  let rows;
  if (toBuy.view === 'list-detail') {
    rows = toBuy.entries.length === 0 ? html`<p class="empty">${t('nothingToBuy')}</p>`
      : html`<ul class="entries" data-list-order>${toBuy.entries.map((e, n) => entryRow(e, { ...options, ordering: true, position: n, count: toBuy.entries.length }))}</ul>`;
  } else if (toBuy.sections.length === 0) {
    rows = html`<p class="empty">${t('nothingToBuy')}</p>`;
  } else {
    rows = toBuy.sections.map((s) => html`<section class="aisle" aria-labelledby="aisle-${s.location ?? 'all'}">
    <h3 id="aisle-${s.location ?? 'all'}" class="aisle-title">${locationName(s.location, s.title)}</h3>
    <ul class="entries">${s.entries.map((e) => entryRow(e, { ...options, location: s.location }))}</ul></section>`);
  }
  const part = bought.length === 0 ? '' : html`<div data-keep="bought"><details class="bought-part">
    <summary>${t('boughtPart', { count: bought.length })}</summary>
    <ul class="entries">${bought.map((e) => entryRow(e, options))}</ul></details></div>`;
  return html`${rows}${part}`;
}

/** The suggestions for the name typed (`typed`: the name alone, parse-entry.js), and the name as a new item unless the household has it. */
export function suggestionOptions(items, typed) {
  const exact = items.some((i) => i.name.toLowerCase() === typed.trim().toLowerCase());
  const rows = items.map((i, n) => html`<li role="option" id="sugg-${n}" data-name="${i.name}" data-unit="${i.unit ?? ''}" aria-selected="false">
    <span>${i.name}</span>${i.due ? html` <span class="badge due">${t('dueMark')}</span>` : ''}</li>`);
  if (!exact && typed.trim()) {
    rows.push(html`<li role="option" id="sugg-new" data-name="${typed.trim()}" data-unit="" aria-selected="false"><span>${typed.trim()}</span> <span class="badge">${t('newItemMark')}</span></li>`);
  }
  return rows;
}

/** Commands that waited and were then refused: each with its message, kept until dismissed (docs/APP.md). */
/**
 * The refusals kept for the person (refusals.js says each in words, with its way forward). `names`: the lists'
 * and items' names by id; `lists`: the live lists an entry can go to instead.
 */
export function refusals(kept, names = new Map(), lists = []) {
  if (kept.length === 0) return html``;
  return html`<h2 class="visually-hidden">${t('notDone')}</h2><ul>${kept.map((r) => {
    const shown = describe(r, { lang, names, reasons: reasonWords() });
    const item = r.label ?? names.get(r.command.data?.item) ?? '';
    const others = lists.filter((l) => l.id !== r.command.data?.list);
    const elsewhere = shown.actions.includes('addElsewhere') && others.length > 0;
    return html`<li><span>${shown.text}</span>
    ${elsewhere ? html`<span class="elsewhere"><select id="elsewhere-${r.n}" aria-label="${label(lang, 'listFor', { item })}">${others.map((l) => option(l.id, l.name))}</select>
      <button data-action="addElsewhere" data-n="${r.n}">${label(lang, 'addElsewhere')}</button></span>` : ''}
    <button data-action="dismiss" data-n="${r.n}">${label(lang, 'dismiss')}</button></li>`;
  })}</ul>`;
}

export const unknownLocationId = '00000000-0000-0000-0000-000000000000';

/** A location's name; the Unknown Location in the app's language while it keeps the name the core gives it. */
export function locationName(id, name) {
  return id === unknownLocationId && name === 'Unknown Location' ? t('unknownLocation') : name;
}

export * from './template-household.js';
