// Every refusal the hub can answer, in the app's words (js/i18n.js `refusal`, js/refusals.js `explain`), in
// English and German: the codes are read from the docs that list them (docs/HUB.md, docs/COMMANDS.md and the
// rules' and codec's codes in docs/JOURNAL.md), so a code added there without words fails here.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tables, useLanguage, refusal } from '../../Sources/ShopHub/WebApp/js/i18n.js';
import { explain } from '../../Sources/ShopHub/WebApp/js/refusals.js';

const doc = (name) => readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');
const codesIn = (text) => [...text.matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)].map((m) => m[1]);
const between = (text, from, to) => text.slice(text.indexOf(from), text.indexOf(to, text.indexOf(from)));

/** The codes a person can meet: the hub's errors, the views' errors, every rule's and the codec's. */
const hubCodes = (() => {
  const hub = doc('HUB.md');
  const journal = doc('JOURNAL.md');
  const rows = journal.split('\n').filter((l) => l.startsWith('| rules (') || l.startsWith('| codec ('));
  const codes = new Set([
    ...codesIn(between(hub, '**Errors**: ', 'A refused')),
    ...codesIn(between(hub, '- **Errors** (the hub', '- **ETag**')).filter((c) => c !== 'item'),
    ...[...doc('COMMANDS.md').matchAll(/`([a-z]+_[a-z_]+)`/g)].map((m) => m[1]),
    ...rows.flatMap((row) => codesIn(row.split('|')[2]).filter((c) => !['apply', 'verify'].includes(c))),
  ]);
  return [...codes].sort();
})();

/** What a family must never read: a code, a command type, a byte offset, an id, the word hub. */
const technical = /\b[a-z]+_[a-z_]+\b|\b[A-Z][a-z]+[A-Z]\w+|\b[Hh]ub\b|byte|UUID|\(\w+\)$|C-42|I-TEA|L-WEEK/;

test('the docs name the codes: the hub’s, the views’, the rules’ and the codec’s', () => {
  assert.ok(hubCodes.length >= 70, `${hubCodes.length} codes`);
  for (const code of ['bad_request', 'rate_limited', 'unavailable', 'unknown_invite', 'not_on_list', 'invalid_field', 'unchanged', 'conflict', 'unknown_view', 'no_list', 'device_exists']) {
    assert.ok(hubCodes.includes(code), code);
  }
});

for (const lang of ['en', 'de']) {
  test(`every code the hub can answer has its own words in ${lang}: with a way forward, no code, no “hub”`, () => {
    useLanguage(lang);
    const missing = hubCodes.filter((code) => !(code in tables[lang].reasons));
    assert.deepEqual(missing, []);
    for (const code of hubCodes) {
      const said = refusal(code);
      assert.equal(said, tables[lang].reasons[code], code);
      assert.notEqual(said, tables[lang].words.refusedOther, code);
      assert.doesNotMatch(said, technical, code);
      // a sentence that says what happened, then one that says what to do
      assert.match(said, /^\p{Lu}.*[.:] \p{Lu}.*\.$|^\p{Lu}.*, .*\.$/u, code);
      if (lang === 'de') assert.notEqual(said, tables.en.reasons[code], code);
    }
    useLanguage('en');
  });

  test(`every code refusing a change names the thing in ${lang}, never the command or the code`, () => {
    const names = new Map([['L-WEEK', 'Weekly'], ['I-TEA', 'Tea']]);
    const command = { type: 'ChangeQuantity', data: { list: 'L-WEEK', item: 'I-TEA', quantity: 3 } };
    for (const code of hubCodes) {
      const { text } = explain({ kind: 'refused', code, command, label: 'Tea' }, { lang, names });
      assert.match(text, /Tea/, code);
      assert.doesNotMatch(text, technical, code);
    }
  });
}

test('an entry taken off its list while its quantity was changed: said with both names, and added again as changed', () => {
  const names = new Map([['L-WEEK', 'Weekly']]);
  const failure = { kind: 'refused', code: 'not_on_list', command: { type: 'ChangeQuantity', data: { list: 'L-WEEK', item: 'I-COFFEE', quantity: 2 } }, label: 'Coffee' };
  assert.deepEqual(explain(failure, { lang: 'en', names }), {
    text: 'Coffee is no longer on Weekly, so the quantity of Coffee was not changed. Add it again if you still need it.',
    again: { list: 'L-WEEK', item: 'I-COFFEE', quantity: 2 },
  });
  assert.deepEqual(explain(failure, { lang: 'de', names }), {
    text: 'Coffee steht nicht mehr auf Weekly – die Menge von Coffee wurde nicht geändert. Füge es neu hinzu, wenn du es noch brauchst.',
    again: { list: 'L-WEEK', item: 'I-COFFEE', quantity: 2 },
  });
  // a purchase refused for the same reason is not added back: only a change to the entry is
  assert.equal(explain({ ...failure, command: { type: 'PurchaseItem', data: { list: 'L-WEEK', item: 'I-COFFEE' } } }, { names }).again, null);
});

test('a refusal without a change (join, invite, a device), the network, the rate, the storage: each in words', () => {
  assert.deepEqual(explain({ kind: 'refused', code: 'unknown_invite' }, { lang: 'en' }),
    { text: 'That invite code is unknown, expired, cancelled or used already. Ask an owner for a new one.', again: null });
  assert.deepEqual(explain({ kind: 'refused', code: 'unknown_invite' }, { lang: 'de' }),
    { text: 'Der Einladungscode ist unbekannt, abgelaufen, zurückgezogen oder schon benutzt. Bitte einen Eigentümer um einen neuen.', again: null });
  assert.equal(explain({ kind: 'unreachable' }, { lang: 'en' }).text,
    'The household cannot be reached: this phone is offline or the server is down. Check the network and try again.');
  assert.equal(explain({ kind: 'unreachable', code: 'rate_limited' }, { lang: 'en' }).text, 'Too many changes at once. Wait a moment and try again.');
  assert.equal(explain({ kind: 'unreachable', code: 'unavailable' }, { lang: 'de' }).text,
    'Der Speicher des Haushalts antwortet gerade nicht. Warte einen Moment und versuch es noch einmal.');
  assert.match(explain({ kind: 'storage' }, { lang: 'en' }).text, /^This phone could not keep that: the browser’s storage is not available/);
  assert.match(explain({ kind: 'storage' }, { lang: 'de' }).text, /^Dieses Telefon konnte das nicht speichern/);
  // a code no doc names (a newer hub): said in general, never shown
  assert.deepEqual(explain({ kind: 'refused', code: 'journal_full' }, { lang: 'en' }), { text: 'That was not done. Reload the app and try again.', again: null });
  assert.deepEqual(explain({ kind: 'other' }, { lang: 'de' }), { text: 'Das wurde nicht gemacht. Lade die App neu und versuch es noch einmal.', again: null });
});
