// The outbox's laws (js/outbox-laws.js): the order commands go in, how many one push carries, a push refused
// as a whole sent again in halves down to the one line, and when to try again. The hub is a function here.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ordered, batch, pushLimits, pushInHalves, sendRounds, sendAgain, firstPause, nextPause }
  from '../../Sources/ShopHub/WebApp/js/outbox-laws.js';

const record = (n, data = {}) => ({ n, household: 'H', command: { type: 'PurchaseItem', id: `C${n}`, data } });
const ok = (id) => ({ command: id, ok: true, seq: Number(id.slice(1)) });

test('the order: as the commands were made (n), whatever order the store answers in; the records themselves untouched', () => {
  const rows = [record(3), record(1), record(10), record(2)];
  assert.deepEqual(ordered(rows).map((r) => r.n), [1, 2, 3, 10]);
  assert.deepEqual(rows.map((r) => r.n), [3, 1, 10, 2]);
  assert.deepEqual(ordered([]), []);
});

test('one push carries at most 1,000 commands, from the first, in order', () => {
  assert.deepEqual(pushLimits, { commands: 1000, bytes: 900_000 });
  const many = Array.from({ length: 1500 }, (_, i) => record(i + 1));
  const taken = batch(many);
  assert.equal(taken.length, 1000);
  assert.deepEqual(taken, many.slice(0, 1000));
  assert.deepEqual(batch(many.slice(1000)), many.slice(1000));
  assert.deepEqual(batch([]), []);
});

test('one push stays under the body limit counting 3 bytes a character; a single command over it still goes alone', () => {
  const big = (n) => record(n, { note: 'x'.repeat(100_000) });   // about 300 KB each as counted
  const records = [big(1), big(2), big(3), big(4)];
  assert.deepEqual(batch(records).map((r) => r.n), [1, 2]);
  const huge = record(1, { note: 'é'.repeat(400_000) });
  assert.deepEqual(batch([huge, record(2)]), [huge]);
  assert.deepEqual(batch([record(1), record(2), record(3)], { commands: 2, bytes: 900_000 }).map((r) => r.n), [1, 2]);
});

/** A hub that refuses any push holding `bad` as a whole, answers the rest, and records each push. */
function hub({ bad = new Set(), unreachableAfter = Infinity } = {}) {
  const pushes = [];
  const attempt = async (commands) => {
    pushes.push(commands.map((c) => c.id));
    if (pushes.length > unreachableAfter) return null;
    if (commands.some((c) => bad.has(c.id))) return { refused: { code: 'invalid_line', message: 'line 1 is not JSON' } };
    return { results: commands.map((c) => ok(c.id)) };
  };
  return { attempt, pushes };
}

test('a push the hub takes: one push, the results by command id', async () => {
  const { attempt, pushes } = hub();
  const results = await pushInHalves([record(1), record(2)], attempt);
  assert.deepEqual([...results], [['C1', ok('C1')], ['C2', ok('C2')]]);
  assert.equal(results.partial, undefined);
  assert.deepEqual(pushes, [['C1', 'C2']]);
});

test('a push refused as a whole: sent again in halves until only the line the hub cannot take is refused', async () => {
  const { attempt, pushes } = hub({ bad: new Set(['C3']) });
  const records = [1, 2, 3, 4, 5].map((n) => record(n));
  const results = await pushInHalves(records, attempt);
  const refused = { command: 'C3', ok: false, error: { code: 'invalid_line', message: 'line 1 is not JSON' } };
  assert.deepEqual([...results], [['C1', ok('C1')], ['C2', ok('C2')], ['C3', refused], ['C4', ok('C4')], ['C5', ok('C5')]]);
  assert.equal(results.partial, undefined);
  assert.deepEqual(pushes, [['C1', 'C2', 'C3', 'C4', 'C5'], ['C1', 'C2', 'C3'], ['C1', 'C2'], ['C3'], ['C4', 'C5']]);
});

test('a single command refused as a push: that command refused with the hub’s code and message', async () => {
  const { attempt } = hub({ bad: new Set(['C1']) });
  assert.deepEqual([...await pushInHalves([record(1)], attempt)],
    [['C1', { command: 'C1', ok: false, error: { code: 'invalid_line', message: 'line 1 is not JSON' } }]]);
});

test('the hub unreachable: null at once; gone while halving, what was answered kept and the map marked partial', async () => {
  assert.equal(await pushInHalves([record(1), record(2)], hub({ unreachableAfter: 0 }).attempt), null);
  // The whole refused, the first half answered, the second half cannot be sent: the first half's results, partial.
  const { attempt, pushes } = hub({ bad: new Set(['C4']), unreachableAfter: 2 });
  const results = await pushInHalves([1, 2, 3, 4].map((n) => record(n)), attempt);
  assert.deepEqual([...results], [['C1', ok('C1')], ['C2', ok('C2')]]);
  assert.equal(results.partial, true);
  assert.deepEqual(pushes, [['C1', 'C2', 'C3', 'C4'], ['C1', 'C2'], ['C3', 'C4']]);
  // Gone in a deeper half: still partial at the top.
  const deeper = hub({ bad: new Set(['C4']), unreachableAfter: 4 });
  const some = await pushInHalves([1, 2, 3, 4].map((n) => record(n)), deeper.attempt);
  assert.deepEqual([...some], [['C1', ok('C1')], ['C2', ok('C2')], ['C3', ok('C3')]]);
  assert.equal(some.partial, true);
  // The first half cannot be sent: nothing, the second half not tried.
  const first = hub({ bad: new Set(['C1']), unreachableAfter: 1 });
  assert.equal(await pushInHalves([1, 2, 3, 4].map((n) => record(n)), first.attempt), null);
  assert.deepEqual(first.pushes, [['C1', 'C2', 'C3', 'C4'], ['C1', 'C2']]);
});

test('another push while anything moved, at most 50 a sending', () => {
  assert.equal(sendRounds, 50);
  assert.equal(sendAgain({ resent: false, done: 0, refused: 0 }), false);
  assert.equal(sendAgain({ resent: true, done: 0, refused: 0 }), true);
  assert.equal(sendAgain({ resent: false, done: 3, refused: 0 }), true);
  assert.equal(sendAgain({ resent: false, done: 0, refused: 1 }), true);
});

test('the hub unreachable: asked again after 1 s, then 2 s, then every 4 s', () => {
  const pauses = [firstPause];
  for (let i = 0; i < 4; i++) pauses.push(nextPause(pauses.at(-1)));
  assert.deepEqual(pauses, [1000, 2000, 4000, 4000, 4000]);
});
