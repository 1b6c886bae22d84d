// How a name becomes an id on the phone, and what a push's refusals turn into (js/names.js), without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knownItems, addCommands, needs, settle, nameKey } from '../../Sources/ShopHub/WebApp/js/names.js';

const ids = () => { let n = 0; return () => `NEW-${++n}`; };
const LIST = 'L-WEEKLY';

test('a name is compared ignoring case and surrounding white space', () => {
  assert.equal(nameKey('  Chocolate '), 'chocolate');
  assert.equal(nameKey('KAFFEE'), nameKey('kaffee'));
});

test('offline, a known name is added by its id, with the quantity and the person', () => {
  const known = knownItems([{ id: 'I-COFFEE', name: 'Coffee' }]);
  assert.deepEqual(addCommands({ list: LIST, name: 'coffee ', quantity: 2, unit: '', member: 'ben' }, known, ids()), [
    { type: 'AddItemToList', data: { list: LIST, item: 'I-COFFEE', quantity: 2 }, label: 'coffee ' },
    { type: 'AssignEntry', data: { list: LIST, item: 'I-COFFEE', member: 'ben' }, label: 'coffee ' },
  ]);
});

test('offline, a known name with another unit changes the unit first', () => {
  const known = knownItems([{ item: 'I-FLOUR', name: 'Flour', unit: null }]);
  assert.deepEqual(addCommands({ list: LIST, name: 'Flour', quantity: 1.5, unit: 'kg' }, known, ids()), [
    { type: 'ChangeItemDetails', data: { item: 'I-FLOUR', unit: 'kg' } },
    { type: 'AddItemToList', data: { list: LIST, item: 'I-FLOUR', quantity: 1.5 }, label: 'Flour' },
  ]);
});

test('offline, an unknown name is created with a new id and added; never a name where an id goes', () => {
  const commands = addCommands({ list: LIST, name: 'Chocolate', quantity: 3, unit: 'bar', member: 'ana' }, knownItems([]), ids());
  assert.deepEqual(commands, [
    { type: 'CreateItem', data: { item: 'NEW-1', name: 'Chocolate', quantity: 3, unit: 'bar' } },
    { type: 'AddItemToList', data: { list: LIST, item: 'NEW-1' }, label: 'Chocolate' },
    { type: 'AssignEntry', data: { list: LIST, item: 'NEW-1', member: 'ana' }, label: 'Chocolate' },
  ]);
});

test('an item created here that still waits is known: added twice offline, created once', () => {
  const waiting = [{ type: 'CreateItem', data: { item: 'NEW-1', name: 'Chocolate', quantity: 1 } }];
  const known = knownItems([{ id: 'I-COFFEE', name: 'Coffee' }], waiting);
  assert.deepEqual(addCommands({ list: 'L-PARTY', name: 'CHOCOLATE', quantity: 1 }, known, ids()), [
    { type: 'AddItemToList', data: { list: 'L-PARTY', item: 'NEW-1', quantity: 1 }, label: 'CHOCOLATE' },
  ]);
});

// At push

const entry = (n, type, data, id = `C${n}`) => ({ n, command: { type, id, data } });
const refused = (id, code) => ({ command: id, ok: false, error: { code, message: `technical ${code} at byte 129` } });
const accepted = (id) => ({ command: id, ok: true, seq: 1 });
const answers = (...rs) => new Map(rs.map((r) => [r.command, r]));

test('a new item another phone created meanwhile: the existing one is added instead, with quantity and assignee', () => {
  const entries = [
    entry(1, 'CreateItem', { item: 'NEW-1', name: 'Chocolate', quantity: 3 }),
    entry(2, 'AddItemToList', { list: LIST, item: 'NEW-1' }),
    entry(3, 'AssignEntry', { list: LIST, item: 'NEW-1', member: 'ben' }),
  ];
  const results = answers(refused('C1', 'name_taken'), refused('C2', 'unknown_item'), refused('C3', 'unknown_item'));
  assert.deepEqual(needs(entries, results), { kinds: new Set(['item']), lists: new Set() });
  const seen = { items: [{ id: 'I-CHOC', name: 'chocolate' }] };
  assert.deepEqual(settle(entries, results, seen, ids()), [
    { n: 1, step: 'done', result: { command: 'C1', ok: true, settled: true } },
    { n: 2, step: 'send', command: { type: 'AddItemToList', id: 'NEW-1', correlation: 'C2', data: { list: LIST, item: 'I-CHOC', quantity: 3 } } },
    { n: 3, step: 'send', command: { type: 'AssignEntry', id: 'NEW-2', correlation: 'C3', data: { list: LIST, item: 'I-CHOC', member: 'ben' } } },
  ]);
});

test('a new item with a unit, taken meanwhile: the existing item gets the unit', () => {
  const entries = [entry(1, 'CreateItem', { item: 'NEW-1', name: 'Rice', quantity: 2, unit: 'kg' })];
  assert.deepEqual(settle(entries, answers(refused('C1', 'name_taken')), { items: [{ id: 'I-RICE', name: 'Rice' }] }, ids()), [
    { n: 1, step: 'send', command: { type: 'ChangeItemDetails', id: 'NEW-1', correlation: 'C1', data: { item: 'I-RICE', unit: 'kg' } } },
  ]);
});

test('commands not in this push that name the item made here are renamed too, keeping their ids', () => {
  const entries = [
    entry(1, 'CreateItem', { item: 'NEW-1', name: 'Chocolate', quantity: 1 }),
    entry(2, 'AddItemToList', { list: LIST, item: 'NEW-1', quantity: 2 }),
    entry(3, 'ReorderList', { list: LIST, order: ['I-A', 'NEW-1'] }),
  ];
  const results = answers(refused('C1', 'name_taken'));
  assert.deepEqual(settle(entries, results, { items: [{ id: 'I-CHOC', name: 'Chocolate' }] }, ids()), [
    { n: 1, step: 'done', result: { command: 'C1', ok: true, settled: true } },
    { n: 2, step: 'send', command: { type: 'AddItemToList', id: 'C2', data: { list: LIST, item: 'I-CHOC', quantity: 2 } } },
    { n: 3, step: 'send', command: { type: 'ReorderList', id: 'C3', data: { list: LIST, order: ['I-A', 'I-CHOC'] } } },
  ]);
});

test('already on the list: the larger quantity stands', () => {
  const entries = [entry(1, 'AddItemToList', { list: LIST, item: 'I-COFFEE', quantity: 3 }), entry(2, 'AddItemToList', { list: LIST, item: 'I-TEA', quantity: 1 })];
  const results = answers(refused('C1', 'already_on_list'), refused('C2', 'already_on_list'));
  assert.deepEqual(needs(entries, results), { kinds: new Set(), lists: new Set([LIST]) });
  const seen = { entries: { [LIST]: { 'I-COFFEE': 2, 'I-TEA': 4 } } };
  assert.deepEqual(settle(entries, results, seen, ids()), [
    { n: 1, step: 'send', command: { type: 'ChangeQuantity', id: 'NEW-1', correlation: 'C1', data: { list: LIST, item: 'I-COFFEE', quantity: 3 } } },
    { n: 2, step: 'done', result: { command: 'C2', ok: true, settled: true } },
  ]);
});

test('a renamed entry that is then already on the list is satisfied', () => {
  const entries = [entry(1, 'AddItemToList', { list: LIST, item: 'I-CHOC', quantity: 1 }, 'R1')];
  assert.deepEqual(settle(entries, answers(refused('R1', 'already_on_list')), { entries: { [LIST]: { 'I-CHOC': 1 } } }, ids()), [
    { n: 1, step: 'done', result: { command: 'R1', ok: true, settled: true } },
  ]);
});

test('a list and a location made offline under a name taken meanwhile: the existing ones are used', () => {
  const entries = [
    entry(1, 'CreateList', { list: 'NEW-L', name: 'Party', priority: 'normal' }),
    entry(2, 'CreateLocation', { location: 'NEW-P', name: 'Sweets' }),
    entry(3, 'CreateItem', { item: 'NEW-1', name: 'Gummy bears', quantity: 1, location: 'NEW-P' }),
    entry(4, 'AddItemToList', { list: 'NEW-L', item: 'NEW-1' }),
  ];
  const results = answers(refused('C1', 'name_taken'), refused('C2', 'name_taken'), refused('C3', 'unknown_location'), refused('C4', 'unknown_list'));
  assert.deepEqual(needs(entries, results).kinds, new Set(['list', 'location']));
  const seen = { lists: [{ id: 'L-PARTY', name: 'party' }], locations: [{ id: 'P-SWEETS', name: 'Sweets' }] };
  assert.deepEqual(settle(entries, results, seen, ids()), [
    { n: 1, step: 'done', result: { command: 'C1', ok: true, settled: true } },
    { n: 2, step: 'done', result: { command: 'C2', ok: true, settled: true } },
    { n: 3, step: 'send', command: { type: 'CreateItem', id: 'NEW-1', correlation: 'C3', data: { item: 'NEW-1', name: 'Gummy bears', quantity: 1, location: 'P-SWEETS' } } },
    { n: 4, step: 'send', command: { type: 'AddItemToList', id: 'NEW-2', correlation: 'C4', data: { list: 'L-PARTY', item: 'NEW-1' } } },
  ]);
});

test('a deleted list, a lost right, a rename to a taken name: for the person to decide', () => {
  const entries = [
    entry(1, 'AddItemToList', { list: LIST, item: 'I-COFFEE', quantity: 1 }),
    entry(2, 'ChangeQuantity', { list: 'L-2', item: 'I-TEA', quantity: 2 }),
    entry(3, 'RenameItem', { item: 'I-TEA', name: 'Coffee' }),
    entry(4, 'CreateItem', { item: 'NEW-1', name: 'Coffee' }),
  ];
  const results = answers(refused('C1', 'list_deleted'), refused('C2', 'forbidden'), refused('C3', 'name_taken'), refused('C4', 'name_taken'));
  // The one of that name is this very item (nothing else has it in the view): nothing to use instead.
  assert.deepEqual(settle(entries, results, { items: [{ id: 'NEW-1', name: 'Coffee' }] }, ids()), [
    { n: 1, step: 'refused', error: results.get('C1').error },
    { n: 2, step: 'refused', error: results.get('C2').error },
    { n: 3, step: 'refused', error: results.get('C3').error },
    { n: 4, step: 'refused', error: results.get('C4').error },
  ]);
});

test('a purchase whose entry is gone is made off the list; accepted commands leave; a fresh refusal is answered as it is', () => {
  const entries = [
    entry(1, 'PurchaseItem', { purchase: 'P1', item: 'I-MILK', list: LIST, purchasedAt: '2026-11-28T09:00:00Z' }),
    entry(2, 'AddItemToList', { list: LIST, item: 'I-TEA', quantity: 1 }),
    entry(3, 'AddItemToList', { list: LIST, item: 'I-COFFEE', quantity: 1 }),
  ];
  const results = answers(refused('C1', 'already_bought'), accepted('C2'), refused('C3', 'already_on_list'));
  const fresh = (e) => e.n === 3;
  assert.deepEqual(needs(entries, results, fresh), { kinds: new Set(), lists: new Set() });
  assert.deepEqual(settle(entries, results, {}, ids(), fresh), [
    { n: 1, step: 'send', command: { type: 'PurchaseItem', id: 'NEW-1', correlation: 'C1', data: { purchase: 'P1', item: 'I-MILK', purchasedAt: '2026-11-28T09:00:00Z' } } },
    { n: 2, step: 'done', result: accepted('C2') },
    { n: 3, step: 'refused', error: results.get('C3').error },
  ]);
});

test('a change that is so already is satisfied', () => {
  const entries = [entry(1, 'ChangeItemDetails', { item: 'I-RICE', unit: 'kg' })];
  assert.deepEqual(settle(entries, answers(refused('C1', 'unchanged')), {}, ids()), [
    { n: 1, step: 'done', result: { command: 'C1', ok: true, settled: true } },
  ]);
});
