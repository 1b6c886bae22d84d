// The app's words (js/i18n.js and the tables in js/strings/): nothing done at import, the same keys and
// placeholders in every language, the language chosen at start-up, refusals in words. Without a browser.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tables, languages, pick, chooseLanguage, setLanguage, useLanguage, t, tn, refusal, reasonWords }
  from '../../Sources/ShopHub/WebApp/js/i18n.js';

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const keys = (table) => Object.keys(table).sort();

/** A browser's storage in memory. */
function memory(entries = {}) {
  const kept = new Map(Object.entries(entries));
  return { kept, getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, String(v)), removeItem: (k) => kept.delete(k) };
}

test('importing the words touches no browser: no storage, no navigator, no document here', () => {
  assert.equal(typeof globalThis.localStorage, 'undefined');
  assert.equal(typeof globalThis.document, 'undefined');
  assert.deepEqual(keys(tables), ['de', 'en']);
  assert.deepEqual(keys(languages), ['de', 'en']);
});

test('every key of the app and every refusal code is in both languages, none empty', () => {
  for (const part of ['words', 'reasons']) {
    assert.deepEqual(keys(tables.de[part]), keys(tables.en[part]), part);
    for (const code of Object.keys(languages)) {
      for (const [key, text] of Object.entries(tables[code][part])) assert.ok(typeof text === 'string' && text.trim() !== '', `${code}.${part}.${key}`);
    }
  }
  assert.deepEqual(keys(tables.en), ['reasons', 'words']);
  assert.deepEqual(keys(tables.de), ['reasons', 'words']);
});

test('the placeholders of every sentence are the same in both languages', () => {
  for (const part of ['words', 'reasons']) {
    for (const [key, text] of Object.entries(tables.en[part])) {
      assert.deepEqual(placeholders(tables.de[part][key]), placeholders(text), `${part}.${key}`);
    }
  }
});

test('the language: a kept choice first, else the browser’s first language, German for any de-*, else English', () => {
  assert.equal(pick(null, ['de-AT', 'en']), 'de');
  assert.equal(pick(null, ['en-GB', 'de']), 'en');
  assert.equal(pick(null, ['fr']), 'en');
  assert.equal(pick(null, []), 'en');
  assert.equal(pick('de', ['en']), 'de');
  assert.equal(pick('en', ['de-DE']), 'en');
  assert.equal(pick('xx', ['de-DE']), 'de');   // a kept choice no longer offered: the browser's
});

test('chosen at start-up from storage and browser, kept by the switch, forgotten with null', () => {
  const storage = memory();
  assert.equal(chooseLanguage(storage, { language: 'de-DE' }), 'de');
  assert.equal(t('join'), 'Beitreten');
  assert.equal(setLanguage('en'), 'en');
  assert.deepEqual([...storage.kept], [['shopevents.language', 'en']]);
  assert.equal(t('join'), 'Join');
  assert.equal(setLanguage(null), 'de');
  assert.deepEqual([...storage.kept], []);
  assert.equal(chooseLanguage(memory({ 'shopevents.language': 'de' }), { languages: ['en-US'], language: 'en-US' }), 'de');
  useLanguage('en');
});

test('words with placeholders and counts, in both languages; an unknown key reads as itself', () => {
  useLanguage('en');
  assert.equal(t('notDoneItem', { what: 'Tea', why: 'deleted' }), 'Not done: Tea — deleted');
  assert.equal(tn('waiting', 1), '1 change waiting');
  assert.equal(tn('waiting', 3), '3 changes waiting');
  assert.equal(t('noSuchKey'), 'noSuchKey');
  useLanguage('de');
  assert.equal(t('confirmDelete', { name: 'Tee' }), '„Tee“ löschen?');
  assert.equal(tn('waiting', 1), tables.de.words.waiting_one);
  assert.equal(tn('waiting', 2), tables.de.words.waiting_other.replace('{count}', '2'));
  useLanguage('en');
});

test('a refusal in words with a way forward, per code in both languages, never its code; a code without words says so in general', () => {
  const expected = {
    en: {
      name_taken: 'That name is taken already. Choose another name.',
      list_deleted: 'That list was deleted. Restore it from “Deleted lists” or choose another list.',
      forbidden: 'Your role does not allow that. An owner can change your role on the Household screen.',
      invalid_quantity: 'That quantity cannot be used. Enter 0.001 to 9999, with at most three decimals.',
      rate_limited: 'Too many changes at once. Wait a moment and try again.',
    },
    de: {
      name_taken: 'Der Name ist schon vergeben. Wähle einen anderen Namen.',
      list_deleted: 'Diese Liste wurde gelöscht. Stell sie unter „Gelöschte Listen“ wieder her oder wähle eine andere Liste.',
      forbidden: 'Das darf deine Rolle nicht. Ein Eigentümer kann deine Rolle auf der Seite „Haushalt“ ändern.',
      invalid_quantity: 'Diese Menge geht nicht. Gib 0,001 bis 9999 ein, mit höchstens drei Nachkommastellen.',
      rate_limited: 'Zu viele Änderungen auf einmal. Warte einen Moment und versuch es noch einmal.',
    },
  };
  for (const code of ['en', 'de']) {
    useLanguage(code);
    for (const [reason, text] of Object.entries(expected[code])) assert.equal(refusal(reason), text);
    assert.equal(refusal('journal_full'), tables[code].words.refusedOther);
    assert.deepEqual(reasonWords(), tables[code].reasons);
    // every code has its own sentence in each language, German differing from English
    for (const reason of Object.keys(tables.en.reasons)) {
      assert.equal(refusal(reason), tables[code].reasons[reason]);
      if (code === 'de') assert.notEqual(tables.de.reasons[reason], tables.en.reasons[reason], reason);
    }
  }
  useLanguage('en');
});
