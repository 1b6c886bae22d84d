// Several households in one browser (js/sessions.js): which one is open, what signing in, switching and
// signing out keep and remove, without a browser. Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromStorage, toStorage, currentSession, kept, switched, signedOut, named } from '../../Sources/ShopHub/WebApp/js/sessions.js';

const A = { household: 'HA', token: 'ta', actor: 'ana', device: 'Ana phone' };
const B = { household: 'HB', token: 'tb', actor: 'ana', device: 'Ana phone' };
const C = { household: 'HC', token: 'tc', actor: 'cleo', device: 'Flat phone' };
const none = { current: null, all: [] };

test('nothing kept: no household open', () => {
  assert.deepEqual(fromStorage(null, null), none);
  assert.equal(currentSession(none), null);
  assert.deepEqual(fromStorage('not json', '{'), none);
});

test('an older app kept one session: it is the one open, and the only one', () => {
  assert.deepEqual(fromStorage(JSON.stringify(A), null), { current: 'HA', all: [A] });
});

test('sessions without a household or a token are not kept', () => {
  assert.deepEqual(fromStorage(JSON.stringify({ household: 'HA' }), JSON.stringify([B, { token: 'x' }, null, 3])), { current: null, all: [B] });
});

test('signing in to a second household keeps the first and opens the second', () => {
  const one = kept(none, A);
  assert.deepEqual(one, { current: 'HA', all: [A] });
  const two = kept(one, B);
  assert.deepEqual(two, { current: 'HB', all: [A, B] });
  assert.deepEqual(currentSession(two), B);
});

test('joining a household again replaces its session in its place', () => {
  const again = { ...A, token: 'ta2', device: 'new' };
  assert.deepEqual(kept(kept(kept(none, A), B), again), { current: 'HA', all: [again, B] });
});

test('switching opens another household kept here; an unknown one changes nothing', () => {
  const two = kept(kept(none, A), B);
  assert.deepEqual(switched(two, 'HA'), { current: 'HA', all: [A, B] });
  assert.deepEqual(switched(two, 'HX'), two);
});

test('signing out of the open household leaves the others and opens the first of them', () => {
  const three = kept(kept(kept(none, A), B), C);
  assert.deepEqual(signedOut(three, 'HC'), { current: 'HA', all: [A, B] });
  assert.deepEqual(signedOut(switched(three, 'HA'), 'HA'), { current: 'HB', all: [B, C] });
});

test('signing out of another household leaves the open one open', () => {
  const two = kept(kept(none, A), B);
  assert.deepEqual(signedOut(two, 'HA'), { current: 'HB', all: [B] });
});

test('signing out of the last household leaves none open', () => {
  assert.deepEqual(signedOut(kept(none, A), 'HA'), none);
});

test('a sign-out for a token no longer kept (another tab joined anew) removes nothing', () => {
  const two = kept(kept(none, A), B);
  assert.deepEqual(signedOut(two, 'HA', 'old-token'), two);
  assert.deepEqual(signedOut(two, 'HA', 'ta'), { current: 'HB', all: [B] });
  assert.deepEqual(signedOut(two, 'HX'), two);
});

test('kept and read back: the open session under its own key, all of them beside it', () => {
  const two = named(kept(kept(none, A), B), 'HA', 'The Bergs');
  const text = toStorage(two);
  assert.deepEqual(JSON.parse(text.session), B);
  assert.deepEqual(JSON.parse(text.sessions), [{ ...A, name: 'The Bergs' }, B]);
  assert.deepEqual(fromStorage(text.session, text.sessions), two);
  assert.deepEqual(toStorage(none), { session: null, sessions: '[]' });
});

test('the open session as another tab wrote it last wins over the copy in the list', () => {
  const newer = { ...B, started: true };
  assert.deepEqual(fromStorage(JSON.stringify(newer), JSON.stringify([A, B])), { current: 'HB', all: [A, newer] });
});

test('a name is kept for its household only, and an empty one changes nothing', () => {
  const two = kept(kept(none, A), B);
  assert.deepEqual(named(two, 'HB', 'Shared flat').all, [A, { ...B, name: 'Shared flat' }]);
  assert.deepEqual(named(two, 'HB', ''), two);
});
