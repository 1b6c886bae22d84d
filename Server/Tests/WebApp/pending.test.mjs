// What a list shows while this phone's commands wait in the outbox (js/pending.js), for each command type
// the app sends: whole expected views. Without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withPending } from '../../Sources/ShopHub/WebApp/js/pending.js';

const L = 'L-WEEKLY';
const milk = { item: 'I-MILK', name: 'Milk', quantity: 2, bought: false, unit: 'l', assignee: null };
const tea = { item: 'I-TEA', name: 'Tea', quantity: 1, bought: true, unit: null, assignee: 'M-BEN', purchase: 'P-TEA' };
const bread = { item: 'I-BREAD', name: 'Bread', quantity: 1, bought: false, unit: null, assignee: null };

/** The by-location view the hub answered: two sections, Milk and Bread to buy, Tea bought. */
const byLocation = () => ({
  view: 'shopping-list-by-location', list: { id: L, name: 'Weekly' }, store: null, bought: 1, remaining: 2,
  sections: [
    { title: 'Dairy', location: 'LOC-DAIRY', entries: [{ ...milk }, { ...tea }] },
    { title: 'Bakery', location: 'LOC-BAKERY', entries: [{ ...bread }] },
  ],
});
/** The list's own order (list-detail): the entries to buy in order, then the bought, counted as `total` and `bought`. */
const detail = () => ({ view: 'list-detail', list: { id: L, name: 'Weekly' }, total: 3, bought: 1, entries: [{ ...milk }, { ...bread }, { ...tea }] });
const empty = () => ({ view: 'shopping-list-by-name', list: { id: L, name: 'Weekly' }, bought: 0, remaining: 0, sections: [] });

let n = 0;
const waiting = (type, data, label) => ({ n: ++n, household: 'H', command: { type, id: `C${n}`, data }, ...(label ? { label } : {}) });

test('nothing waiting: the view as the hub answered it, a copy, never the same object', () => {
  const fetched = byLocation();
  const shown = withPending(fetched, [], L);
  assert.deepEqual(shown, byLocation());
  assert.notEqual(shown, fetched);
  assert.notEqual(shown.sections[0].entries[0], fetched.sections[0].entries[0]);
});

test('PurchaseItem: the entry bought with its purchase, marked waiting; the counts move; the view itself untouched', () => {
  const fetched = byLocation();
  const shown = withPending(fetched, [waiting('PurchaseItem', { list: L, item: 'I-MILK', purchase: 'P-NEW' })], L);
  const expected = byLocation();
  expected.sections[0].entries[0] = { ...milk, bought: true, pending: true, purchase: 'P-NEW' };
  expected.bought = 2; expected.remaining = 1;
  assert.deepEqual(shown, expected);
  assert.deepEqual(fetched, byLocation());
});

test('PurchaseItem of an entry bought already, on another list or of an item not on it: nothing changes', () => {
  const shown = withPending(byLocation(), [
    waiting('PurchaseItem', { list: L, item: 'I-TEA', purchase: 'P-2' }),
    waiting('PurchaseItem', { list: 'L-PARTY', item: 'I-MILK', purchase: 'P-3' }),
    waiting('PurchaseItem', { list: L, item: 'I-GONE', purchase: 'P-4' }),
  ], L);
  assert.deepEqual(shown, byLocation());
});

test('RevertPurchase: the bought entry to buy again, marked waiting; a purchase and its undo both waiting: not bought', () => {
  const expected = byLocation();
  expected.sections[0].entries[1] = { ...tea, bought: false, pending: true };
  expected.bought = 0; expected.remaining = 3;
  assert.deepEqual(withPending(byLocation(), [waiting('RevertPurchase', { purchase: 'P-TEA' })], L), expected);

  assert.deepEqual(withPending(byLocation(), [
    waiting('PurchaseItem', { list: L, item: 'I-MILK', purchase: 'P-NEW' }),
    waiting('RevertPurchase', { purchase: 'P-NEW' }),
  ], L), byLocation());
});

test('AddItemToList: a new entry at the end of the last section with its label and quantity, marked waiting', () => {
  const expected = byLocation();
  expected.sections[1].entries.push({ item: 'I-EGGS', name: 'Eggs', quantity: 6, bought: false, unit: null, assignee: null, pending: true });
  expected.remaining = 3;
  assert.deepEqual(withPending(byLocation(), [waiting('AddItemToList', { list: L, item: 'I-EGGS', quantity: 6 }, 'Eggs')], L), expected);
});

test('AddItemToList without a quantity or a label: quantity 1, the id as its name; on list-detail the total grows', () => {
  const expected = detail();
  expected.entries.push({ item: 'I-EGGS', name: 'I-EGGS', quantity: 1, bought: false, unit: null, assignee: null, pending: true });
  expected.total = 4;
  assert.deepEqual(withPending(detail(), [waiting('AddItemToList', { list: L, item: 'I-EGGS' })], L), expected);
});

test('CreateItem then AddItemToList: the new item’s own quantity and unit; onto an empty list, a section of its own', () => {
  const shown = withPending(empty(), [
    waiting('CreateItem', { item: 'I-FLOUR', name: 'Flour', quantity: 2, unit: 'kg' }),
    waiting('AddItemToList', { list: L, item: 'I-FLOUR' }, 'Flour'),
  ], L);
  assert.deepEqual(shown, { ...empty(), remaining: 1, sections: [{ title: '', location: null,
    entries: [{ item: 'I-FLOUR', name: 'Flour', quantity: 2, bought: false, unit: 'kg', assignee: null, pending: true }] }] });
});

test('AddItemToList of an item to buy there already: nothing added; of a bought one: added again to buy', () => {
  assert.deepEqual(withPending(byLocation(), [waiting('AddItemToList', { list: L, item: 'I-MILK' }, 'Milk')], L), byLocation());
  const expected = byLocation();
  expected.sections[1].entries.push({ item: 'I-TEA', name: 'Tea', quantity: 1, bought: false, unit: null, assignee: null, pending: true });
  expected.remaining = 3;
  assert.deepEqual(withPending(byLocation(), [waiting('AddItemToList', { list: L, item: 'I-TEA' }, 'Tea')], L), expected);
});

test('ChangeQuantity: the new quantity, marked waiting', () => {
  const expected = byLocation();
  expected.sections[1].entries[0] = { ...bread, quantity: 3, pending: true };
  assert.deepEqual(withPending(byLocation(), [waiting('ChangeQuantity', { list: L, item: 'I-BREAD', quantity: 3 })], L), expected);
});

test('AssignEntry: the member, or nobody, marked waiting', () => {
  const expected = byLocation();
  expected.sections[0].entries[0] = { ...milk, assignee: 'M-ANA', pending: true };
  expected.sections[0].entries[1] = { ...tea, assignee: null, pending: true };
  assert.deepEqual(withPending(byLocation(), [
    waiting('AssignEntry', { list: L, item: 'I-MILK', member: 'M-ANA' }),
    waiting('AssignEntry', { list: L, item: 'I-TEA', member: null }),
  ], L), expected);
});

test('RemoveItemFromList: the entry gone and the counts with it, to buy or bought, by location and on list-detail', () => {
  const expected = byLocation();
  expected.sections[1].entries = [];
  expected.sections[0].entries = [{ ...milk }];
  expected.remaining = 1; expected.bought = 0;
  assert.deepEqual(withPending(byLocation(), [
    waiting('RemoveItemFromList', { list: L, item: 'I-BREAD' }),
    waiting('RemoveItemFromList', { list: L, item: 'I-TEA' }),
  ], L), expected);
  assert.deepEqual(withPending(detail(), [waiting('RemoveItemFromList', { list: L, item: 'I-MILK' })], L),
    { ...detail(), total: 2, entries: [{ ...bread }, { ...tea }] });
});

test('commands on another list and commands that touch no list entry leave the view as it is', () => {
  assert.deepEqual(withPending(byLocation(), [
    waiting('ChangeQuantity', { list: 'L-PARTY', item: 'I-MILK', quantity: 9 }),
    waiting('RemoveItemFromList', { list: 'L-PARTY', item: 'I-BREAD' }),
    waiting('RenameItem', { item: 'I-MILK', name: 'Oat milk' }),
    waiting('CreateList', { list: 'L-NEW', name: 'Camping' }),
  ], L), byLocation());
});

test('one after another, in the outbox’s order: added, then its quantity changed, then bought', () => {
  const shown = withPending(byLocation(), [
    waiting('AddItemToList', { list: L, item: 'I-EGGS' }, 'Eggs'),
    waiting('ChangeQuantity', { list: L, item: 'I-EGGS', quantity: 10 }),
    waiting('PurchaseItem', { list: L, item: 'I-EGGS', purchase: 'P-EGGS' }),
  ], L);
  const expected = byLocation();
  expected.sections[1].entries.push({ item: 'I-EGGS', name: 'Eggs', quantity: 10, bought: true, unit: null, assignee: null, pending: true, purchase: 'P-EGGS' });
  expected.bought = 2;
  assert.deepEqual(shown, expected);
});

test('ClearBought: the bought entries leave the list, none bought; on list-detail the total shrinks too', () => {
  const expected = byLocation();
  expected.sections[0].entries = [{ ...milk }];
  expected.bought = 0;
  assert.deepEqual(withPending(byLocation(), [waiting('ClearBought', { list: L })], L), expected);
  assert.deepEqual(withPending(detail(), [waiting('ClearBought', { list: L })], L),
    { ...detail(), total: 2, bought: 0, entries: [{ ...milk }, { ...bread }] });
  // A purchase waiting before the clear is cleared with it; on another list, nothing.
  assert.deepEqual(withPending(detail(), [waiting('PurchaseItem', { list: L, item: 'I-BREAD', purchase: 'P-B' }), waiting('ClearBought', { list: L })], L),
    { ...detail(), total: 1, bought: 0, entries: [{ ...milk }] });
  assert.deepEqual(withPending(byLocation(), [waiting('ClearBought', { list: 'L-PARTY' })], L), byLocation());
});

test('ReorderList: on list-detail the entries to buy in the new order, the moved ones marked waiting, the bought ones last', () => {
  const shown = withPending(detail(), [waiting('ReorderList', { list: L, order: ['I-TEA', 'I-BREAD', 'I-MILK'] })], L);
  assert.deepEqual(shown, { ...detail(), entries: [{ ...bread, pending: true }, { ...milk, pending: true }, { ...tea }] });
  // The order it had already: nothing marked. By location (the sections' own order) and on another list: nothing changes.
  assert.deepEqual(withPending(detail(), [waiting('ReorderList', { list: L, order: ['I-MILK', 'I-BREAD', 'I-TEA'] })], L), detail());
  assert.deepEqual(withPending(byLocation(), [waiting('ReorderList', { list: L, order: ['I-BREAD', 'I-MILK', 'I-TEA'] })], L), byLocation());
  assert.deepEqual(withPending(detail(), [waiting('ReorderList', { list: 'L-PARTY', order: ['I-BREAD', 'I-MILK', 'I-TEA'] })], L), detail());
});
