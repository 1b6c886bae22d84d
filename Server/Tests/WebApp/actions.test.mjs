// The arrows that move an entry, a location or a store's location one place (js/actions.js): the new order,
// or nothing at either end. Without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moveWithin } from '../../Sources/ShopHub/WebApp/js/actions.js';

test('one place down or up: the new order handed on; the order given untouched', () => {
  const order = ['MILK', 'TEA', 'BREAD'];
  assert.deepEqual(moveWithin(order, 'MILK', 1, (o) => o), ['TEA', 'MILK', 'BREAD']);
  assert.deepEqual(moveWithin(order, 'BREAD', -1, (o) => o), ['MILK', 'BREAD', 'TEA']);
  assert.deepEqual(order, ['MILK', 'TEA', 'BREAD']);
});

test('past either end, or a name not in the order: nothing sent', () => {
  let sent = 0;
  const send = () => { sent += 1; return 'sent'; };
  assert.equal(moveWithin(['MILK', 'TEA'], 'MILK', -1, send), null);
  assert.equal(moveWithin(['MILK', 'TEA'], 'TEA', 1, send), null);
  assert.equal(moveWithin(['MILK', 'TEA'], 'EGGS', 1, send), null);
  assert.equal(sent, 0);
  assert.equal(moveWithin(['MILK', 'TEA'], 'TEA', -1, send), 'sent');
});
