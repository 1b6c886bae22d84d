// The views that change seldom, as a law without a browser (view-cache.js): each asked of the hub once per
// 30 seconds, a failure not kept, `forget` and `clear` ask anew.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { viewCache } from '../../Sources/ShopHub/WebApp/js/view-cache.js';

/** A model whose views answer `answers[name]` (an Error is a refusal), counting what was asked. */
function counting(answers) {
  const asked = [];
  return { asked, view: async (name) => { asked.push(name); const a = answers[name]; if (a instanceof Error) throw a; return a; } };
}

test('a view is asked once within 30 seconds, again after; a pick reads the one answer', async () => {
  let clock = 0;
  const model = counting({ members: { members: [{ member: 'ana' }, { member: 'ben' }] }, stores: { stores: [] } });
  const views = viewCache(model, () => clock);
  assert.deepEqual(await views.memberNames(), ['ana', 'ben']);
  assert.deepEqual(await views.membersView(), { members: [{ member: 'ana' }, { member: 'ben' }] });
  clock = 29_999;
  await views.memberNames();
  assert.deepEqual(model.asked, ['members']);
  clock = 30_000;
  await views.memberNames();
  assert.deepEqual(model.asked, ['members', 'members']);
});

test('a failed answer is not kept: the next asks again; memberNames of a failure is no one', async () => {
  const model = counting({ members: new Error('unreachable') });
  const views = viewCache(model, () => 0);
  assert.deepEqual(await views.memberNames(), []);
  await assert.rejects(views.cachedView('members'));
  assert.deepEqual(model.asked, ['members', 'members']);
});

test('forget asks the named views anew, clear all of them', async () => {
  const model = counting({ stores: { stores: [] }, locations: { locations: [] }, 'all-items-by-name': { items: [{ id: 'i', name: 'Milk' }] } });
  const views = viewCache(model, () => 0);
  await Promise.all([views.storesView(), views.locationsView(), views.itemsSeen()]);
  views.forget('stores');
  await Promise.all([views.storesView(), views.locationsView()]);
  assert.deepEqual(model.asked, ['stores', 'locations', 'all-items-by-name', 'stores']);
  views.clear();
  assert.deepEqual(await views.itemsSeen(), [{ id: 'i', name: 'Milk' }]);
  assert.deepEqual(model.asked.slice(4), ['all-items-by-name']);
});
