// What a refusal the person must decide on says (js/refusals.js), without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe, label } from '../../Sources/ShopHub/WebApp/js/refusals.js';

const names = new Map([['L-WEEKLY', 'Weekly'], ['L-PARTY', 'Party'], ['I-TEA', 'Tea']]);
const kept = (type, data, code, label) => ({ command: { type, id: 'C1', data }, label, error: { code, message: `item C1 is not a UUID (at byte 129 of the line) ${code}` } });
const technical = /[A-Z][a-z]+[A-Z]\w*|_|\(|byte|hub|C1|UUID/;

test('an entry for a deleted list: said in words, with another list as the way forward', () => {
  const shown = describe(kept('AddItemToList', { list: 'L-WEEKLY', item: 'I-CHOC' }, 'list_deleted', 'Chocolate'), { names });
  assert.deepEqual(shown, { text: 'Weekly was deleted, so Chocolate was not added. Restore it from “Deleted lists” or choose another list.', actions: ['addElsewhere', 'dismiss'] });
  assert.doesNotMatch(shown.text, technical);
});

test('a list deleted for good (its name unknown) and in German', () => {
  assert.deepEqual(describe(kept('AddItemToList', { list: 'L-GONE', item: 'I-CHOC' }, 'unknown_list', 'Chocolate'), { names }),
    { text: 'The list was deleted, so Chocolate was not added. Choose another list.', actions: ['addElsewhere', 'dismiss'] });
  assert.deepEqual(describe(kept('AddItemToList', { list: 'L-WEEKLY', item: 'I-CHOC' }, 'list_deleted', 'Schokolade'), { names, lang: 'de' }),
    { text: 'Weekly wurde gelöscht – Schokolade wurde nicht hinzugefügt. Stell sie unter „Gelöschte Listen“ wieder her oder wähle eine andere Liste.', actions: ['addElsewhere', 'dismiss'] });
});

test('a lost right and a lost membership: said with who can help', () => {
  assert.deepEqual(describe(kept('PurchaseItem', { list: 'L-WEEKLY', item: 'I-TEA', purchase: 'P' }, 'forbidden', 'Tea'), { names }),
    { text: 'Your role no longer allows changes, so Tea was not bought. An owner can change your role.', actions: ['dismiss'] });
  assert.deepEqual(describe(kept('CreateList', { list: 'L-NEW', name: 'Camping' }, 'not_a_member'), { names }),
    { text: 'You are no longer a member of this household, so Camping was not made. An owner can add you again.', actions: ['dismiss'] });
});

test('an entry gone from its list: the item named from the views when the refusal has no label', () => {
  assert.deepEqual(describe(kept('ChangeQuantity', { list: 'L-PARTY', item: 'I-TEA', quantity: 3 }, 'not_on_list'), { names }),
    { text: 'Tea is no longer on Party, so the quantity of Tea was not changed. Add it again if you still need it.', actions: ['addElsewhere', 'dismiss'] });
});

test('a rename to a taken name, and a code without a sentence of its own: the reason in words, never the code', () => {
  assert.deepEqual(describe(kept('RenameItem', { item: 'I-TEA', name: 'Coffee' }, 'name_taken'), { names }),
    { text: 'Another one is called Coffee already, so Tea was not renamed. Choose another name.', actions: ['dismiss'] });
  const reasons = { invalid_quantity: 'That quantity is not allowed (0.001 to 9999, at most three decimals).' };
  assert.deepEqual(describe(kept('ChangeQuantity', { list: 'L-PARTY', item: 'I-TEA', quantity: 0 }, 'invalid_quantity'), { names, reasons }),
    { text: 'The quantity of Tea was not changed: That quantity is not allowed (0.001 to 9999, at most three decimals).', actions: ['dismiss'] });
  const unknown = describe(kept('SetListPriority', { list: 'L-PARTY', priority: 'high' }, 'conflict'), { names });
  assert.deepEqual(unknown, { text: 'A change to Party was not made. Reload the app and try again.', actions: ['dismiss'] });
  assert.doesNotMatch(unknown.text, technical);
});

test('the actions are named in the language chosen', () => {
  assert.equal(label('en', 'addElsewhere'), 'Add to another list');
  assert.equal(label('de', 'dismiss'), 'Verwerfen');
  assert.equal(label('en', 'listFor', { item: 'Chocolate' }), 'List for Chocolate');
});
