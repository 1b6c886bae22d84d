// The list's one "Item" field read as a name, a quantity and a unit (js/parse-entry.js), in English and German:
// whole values for each form a person types. Without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEntry, withName } from '../../Sources/ShopHub/WebApp/js/parse-entry.js';

const read = (name, quantity = null, unit = null) => ({ name, quantity, unit });

test('a quantity and a unit in front of the name', () => {
  assert.deepEqual(parseEntry('2 l milk'), read('milk', 2, 'l'));
  assert.deepEqual(parseEntry('2l milk'), read('milk', 2, 'l'));
  assert.deepEqual(parseEntry('500 g flour'), read('flour', 500, 'g'));
  assert.deepEqual(parseEntry('500g Mehl'), read('Mehl', 500, 'g'));
  assert.deepEqual(parseEntry('2 packs of pasta'), read('pasta', 2, 'pack'));
  assert.deepEqual(parseEntry('1 Liter Milch'), read('Milch', 1, 'l'));
  assert.deepEqual(parseEntry('2 Kilo Kartoffeln'), read('Kartoffeln', 2, 'kg'));
  assert.deepEqual(parseEntry('3 Dosen Tomaten'), read('Tomaten', 3, 'Dose'));
  assert.deepEqual(parseEntry('2 Flaschen Wasser'), read('Wasser', 2, 'Flasche'));
  assert.deepEqual(parseEntry('1 Packung Nudeln'), read('Nudeln', 1, 'Packung'));
  assert.deepEqual(parseEntry('250 ml cream'), read('cream', 250, 'ml'));
  assert.deepEqual(parseEntry('1 bunch Parsley'), read('Parsley', 1, 'bunch'));
  assert.deepEqual(parseEntry('1 Bund Petersilie'), read('Petersilie', 1, 'Bund'));
});

test('a German decimal comma and a decimal point', () => {
  assert.deepEqual(parseEntry('1,5 kg Äpfel'), read('Äpfel', 1.5, 'kg'));
  assert.deepEqual(parseEntry('1.5 kg Äpfel'), read('Äpfel', 1.5, 'kg'));
  assert.deepEqual(parseEntry('Cola 0,5 l'), read('Cola', 0.5, 'l'));
  assert.deepEqual(parseEntry('0,25kg Butter'), read('Butter', 0.25, 'kg'));
});

test('a quantity and a unit behind the name', () => {
  assert.deepEqual(parseEntry('Bananas 1.5 kg'), read('Bananas', 1.5, 'kg'));
  assert.deepEqual(parseEntry('Bananas 1.5kg'), read('Bananas', 1.5, 'kg'));
  assert.deepEqual(parseEntry('Coke Zero 1.5l'), read('Coke Zero', 1.5, 'l'));
  assert.deepEqual(parseEntry('Orange juice 2 bottles'), read('Orange juice', 2, 'bottle'));
});

test('pieces: a count, with or without a word for pieces, has no unit', () => {
  assert.deepEqual(parseEntry('3 eggs'), read('eggs', 3));
  assert.deepEqual(parseEntry('3 Eier'), read('Eier', 3));
  assert.deepEqual(parseEntry('milk 2'), read('milk', 2));
  assert.deepEqual(parseEntry('milk x2'), read('milk', 2));
  assert.deepEqual(parseEntry('milk ×2'), read('milk', 2));
  assert.deepEqual(parseEntry('2x milk'), read('milk', 2));
  assert.deepEqual(parseEntry('2 x milk'), read('milk', 2));
  assert.deepEqual(parseEntry('Eier 10 Stück'), read('Eier', 10));
  assert.deepEqual(parseEntry('2 Stück Butter'), read('Butter', 2));
  assert.deepEqual(parseEntry('4 pcs rolls'), read('rolls', 4));
});

test('a name alone, and the name in its own spelling with single spaces', () => {
  assert.deepEqual(parseEntry('milk'), read('milk'));
  assert.deepEqual(parseEntry('  Greek   yoghurt  '), read('Greek yoghurt'));
  assert.deepEqual(parseEntry('Äpfel'), read('Äpfel'));
  assert.deepEqual(parseEntry(''), read(''));
  assert.deepEqual(parseEntry(undefined), read(''));
});

test('a number inside a name or without a name stays the name', () => {
  assert.deepEqual(parseEntry('Vitamin B12'), read('Vitamin B12'));
  assert.deepEqual(parseEntry('2 kg'), read('2 kg'));
  assert.deepEqual(parseEntry('500g'), read('500g'));
  assert.deepEqual(parseEntry('7'), read('7'));
  assert.deepEqual(parseEntry('Cola 12345'), read('Cola 12345'));
  // Not a unit word: the word after the number is the name's.
  assert.deepEqual(parseEntry('2 big onions'), read('big onions', 2));
  // A unit word and nothing else after the number: read from behind, as the name and an amount.
  assert.deepEqual(parseEntry('1 kg'), read('1 kg'));
});

test('a suggestion chosen keeps the quantity and unit typed in front of its name', () => {
  assert.equal(withName('2 l mil', 'Milk'), '2 l Milk');
  assert.equal(withName('3 eg', 'Eggs'), '3 Eggs');
  assert.equal(withName('1,5 kg Äp', 'Äpfel'), '1.5 kg Äpfel');
  assert.equal(withName('mil', 'Milk'), 'Milk');
  assert.deepEqual(parseEntry(withName('1,5 kg Äp', 'Äpfel')), read('Äpfel', 1.5, 'kg'));
});
