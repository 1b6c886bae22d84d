// One list on the screen (js/list-laws.js): what goes into the "Bought" part and what stays to buy, in every
// list view; what a line costs; which message with which Undo follows a buy or a remove, and what an Undo
// of a remove sends. Whole values. Without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitBought, lineTotal, undoToast, restoreCommands, toastSide } from '../../Sources/ShopHub/WebApp/js/list-laws.js';
import { withPending } from '../../Sources/ShopHub/WebApp/js/pending.js';

const L = 'L-WEEKLY';
const milk = { item: 'I-MILK', name: 'Milk', quantity: 2, bought: false, unit: 'l', assignee: null };
const bread = { item: 'I-BREAD', name: 'Bread', quantity: 1, bought: false, unit: null, assignee: null };
const tea = { item: 'I-TEA', name: 'Tea', quantity: 1, bought: true, unit: null, assignee: 'ben', purchase: 'P-TEA' };
const jam = { item: 'I-JAM', name: 'Jam', quantity: 1, bought: true, unit: null, assignee: null, purchase: 'P-JAM' };

const byLocation = () => ({
  view: 'shopping-list-by-location', list: { id: L, name: 'Weekly' }, store: null, bought: 2, remaining: 2,
  sections: [
    { title: 'Dairy', location: 'LOC-DAIRY', entries: [{ ...milk }] },
    { title: 'Bakery', location: 'LOC-BAKERY', entries: [{ ...bread }] },
  ],
});
const byName = () => ({ view: 'shopping-list-by-name', list: { id: L, name: 'Weekly' }, bought: 2, remaining: 2,
  sections: [{ title: 'Weekly', location: null, entries: [{ ...bread }, { ...milk }] }] });
// The list's own order: to buy in order, then the bought as they were bought (Tea first, Jam last).
const detail = () => ({ view: 'list-detail', list: { id: L, name: 'Weekly' }, total: 4, bought: 2,
  entries: [{ ...milk }, { ...bread }, { ...tea }, { ...jam }] });
const waiting = (type, data, n) => ({ n, household: 'H', command: { type, id: `C${n}`, data } });

test('by location: the bought entries in the Bought part, latest first; the sections to buy as they were', () => {
  const { toBuy, bought } = splitBought(byLocation(), detail());
  assert.deepEqual(toBuy, byLocation());
  assert.deepEqual(bought, [jam, tea]);
});

test('by name and in its own order: the same Bought part; the list to buy without a bought entry', () => {
  assert.deepEqual(splitBought(byName(), detail()), { toBuy: byName(), bought: [jam, tea] });
  const own = splitBought(detail(), detail());
  assert.deepEqual(own.toBuy, { ...detail(), entries: [milk, bread] });
  assert.deepEqual(own.bought, [jam, tea]);
  // The list's own order alone (no second view): its own bought entries.
  assert.deepEqual(splitBought(detail()).bought, [jam, tea]);
});

test('bought here and waiting: out of the list to buy at once (its section gone when empty), first in the Bought part', () => {
  const buyBread = [waiting('PurchaseItem', { purchase: 'P-BREAD', item: 'I-BREAD', list: L }, 1)];
  const { toBuy, bought } = splitBought(withPending(byLocation(), buyBread, L), withPending(detail(), buyBread, L));
  assert.deepEqual(toBuy.sections, [{ title: 'Dairy', location: 'LOC-DAIRY', entries: [milk] }]);
  assert.deepEqual(bought, [{ ...bread, bought: true, pending: true, purchase: 'P-BREAD' }, jam, tea]);
});

test('an Undo waiting: the entry back in the list to buy, out of the Bought part', () => {
  const undoTea = [waiting('RevertPurchase', { purchase: 'P-TEA' }, 1)];
  const { toBuy, bought } = splitBought(withPending(detail(), undoTea, L), withPending(detail(), undoTea, L));
  assert.deepEqual(toBuy.entries, [milk, bread, { ...tea, bought: false, pending: true }]);
  assert.deepEqual(bought, [jam]);
});

test('nothing bought: an empty Bought part; nothing to buy: no section', () => {
  const none = { ...detail(), bought: 0, entries: [{ ...milk }] };
  assert.deepEqual(splitBought(byLocation(), none).bought, []);
  const allBought = { ...byName(), sections: [] };
  assert.deepEqual(splitBought(allBought, detail()).toBuy.sections, []);
  // The list's own order not at hand (offline, never asked): the list to buy all the same, no Bought part.
  assert.deepEqual(splitBought(byLocation(), null), { toBuy: byLocation(), bought: [] });
});

test('a line total: quantity × unit price, rounded half to even to the minor unit, as the core counts', () => {
  assert.equal(lineTotal(10, 30), 300);          // Eggs ×10 at €0.30: €3.00
  assert.equal(lineTotal(1, 249), 249);
  assert.equal(lineTotal(1.5, 199), 298);        // 298.5 → 298 (even)
  assert.equal(lineTotal(1.5, 201), 302);        // 301.5 → 302 (even)
  assert.equal(lineTotal(0.333, 100), 33);       // 33.3
  assert.equal(lineTotal(0.335, 100), 34);       // 33.5 → 34
  assert.equal(lineTotal(2.5, 1), 2);            // 2.5 → 2
  assert.equal(lineTotal(9999, 100000000), 999900000000);
  assert.equal(lineTotal(3, null), null);
  assert.equal(lineTotal(3, undefined), null);
  assert.equal(lineTotal(3, 0), 0);
});

test('after a buy: "Bought …" with an Undo of that purchase; waiting, said so', () => {
  assert.deepEqual(undoToast('bought', { name: 'Bread', purchase: 'P-1' }),
    { words: 'boughtToast', params: { name: 'Bread' }, action: 'undo', data: { purchase: 'P-1', name: 'Bread' } });
  assert.deepEqual(undoToast('bought', { name: 'Bread', purchase: 'P-1', pending: true }),
    { words: 'boughtWaiting', params: { name: 'Bread' }, action: 'undo', data: { purchase: 'P-1', name: 'Bread' } });
});

test('after a remove: its own message and an Undo carrying the entry as it was', () => {
  const entry = { item: 'I-MILK', quantity: 2.5, assignee: 'ben' };
  assert.deepEqual(undoToast('removed', { name: 'Milk', entry, list: L }), {
    words: 'removedToast', params: { name: 'Milk' }, action: 'undoRemove',
    data: { list: L, item: 'I-MILK', name: 'Milk', quantity: '2.5', assignee: 'ben' },
  });
  assert.deepEqual(undoToast('removed', { name: 'Milk', entry: { item: 'I-MILK', quantity: 1, assignee: null }, list: L, pending: true }), {
    words: 'removedWaiting', params: { name: 'Milk' }, action: 'undoRemove',
    data: { list: L, item: 'I-MILK', name: 'Milk', quantity: '1', assignee: '' },
  });
});

test('after an Undo: a message with no Undo of its own', () => {
  assert.deepEqual(undoToast('reverted', { name: 'Bread' }), { words: 'revertedToast', params: { name: 'Bread' } });
  assert.deepEqual(undoToast('restored', { name: 'Milk' }), { words: 'restoredToast', params: { name: 'Milk' } });
  assert.throws(() => undoToast('cleared', { name: 'x' }), /no message for cleared/);
});

test('an Undo of a remove: the entry back with its quantity, for the same person', () => {
  assert.deepEqual(restoreCommands({ list: L, item: 'I-MILK', name: 'Milk', quantity: '2.5', assignee: 'ben' }), [
    { type: 'AddItemToList', data: { list: L, item: 'I-MILK', quantity: 2.5 }, label: 'Milk' },
    { type: 'AssignEntry', data: { list: L, item: 'I-MILK', member: 'ben' }, label: 'Milk' },
  ]);
  assert.deepEqual(restoreCommands({ list: L, item: 'I-MILK', name: 'Milk', quantity: '1', assignee: '' }), [
    { type: 'AddItemToList', data: { list: L, item: 'I-MILK', quantity: 1 }, label: 'Milk' },
  ]);
});

test('the message at the bottom, unless there it would cover the row tapped or the one under it: then at the top', () => {
  const bottom = { top: 716, bottom: 772 };   // above the sections bar of a 844 px high phone
  assert.equal(toastSide(null, bottom), 'bottom');                          // nothing tapped (a form sent)
  assert.equal(toastSide({ top: 470, bottom: 536 }, bottom), 'bottom');    // high up: the next row far above it
  assert.equal(toastSide({ top: 600, bottom: 655 }, bottom), 'bottom');    // the row under it ends at 710, ...
  assert.equal(toastSide({ top: 600, bottom: 670 }, bottom), 'top');       // ... or reaches into it (740)
  assert.equal(toastSide({ top: 700, bottom: 760 }, bottom), 'top');       // the row itself under it
  assert.equal(toastSide({ top: 740, bottom: 790 }, bottom), 'top');       // reaching into it from above
  assert.equal(toastSide({ top: 772, bottom: 800 }, bottom), 'bottom');    // touching is not covering
});
