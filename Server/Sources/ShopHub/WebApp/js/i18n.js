// The app's words in English and German (the tables are data: js/strings/en.js,
// js/strings/de.js). Nothing is done at import: app.js chooses the language at
// start-up (`chooseLanguage`) from the browser's language or the choice kept by
// the switch on the household screen.

import en from './strings/en.js';
import de from './strings/de.js';

/** The string tables by language: `words` (the app's sentences) and `reasons` (refusals by code). */
export const tables = { en, de };

export const languages = { en: 'English', de: 'Deutsch' };

const key = 'shopevents.language';

/** The language in use; English until `chooseLanguage` or `useLanguage` is called. */
export let lang = 'en';

/** Where the choice is kept and where the browser's languages are read; set by `chooseLanguage`. */
let place = null;

/** The language for a kept choice (or none) and the browser's languages, first preferred: pure. */
export function pick(stored, browserLanguages = []) {
  if (stored && tables[stored]) return stored;
  const browser = browserLanguages[0] || 'en';
  return browser.toLowerCase().startsWith('de') ? 'de' : 'en';
}

/** Chooses the language at start-up: the one kept in `storage` (localStorage), else the browser's. */
export function chooseLanguage(storage, navigator) {
  place = { storage, navigator };
  lang = pick(storage.getItem(key), browserLanguages(navigator));
  return lang;
}

/** Uses `code` without keeping it (tests, and what `chooseLanguage` and `setLanguage` end in). */
export function useLanguage(code) {
  lang = tables[code] ? code : 'en';
  return lang;
}

/** Chooses a language for this browser (kept), or the browser's own with null. */
export function setLanguage(code) {
  const { storage, navigator } = place;
  if (code) storage.setItem(key, code); else storage.removeItem(key);
  return useLanguage(pick(storage.getItem(key), browserLanguages(navigator)));
}

function browserLanguages(navigator) {
  return navigator.languages?.length ? [...navigator.languages] : [navigator.language || 'en'];
}

/** The words for `name` in the language chosen, with `{placeholders}` filled from `values`. */
export function t(name, values = {}) {
  const text = tables[lang].words[name] ?? en.words[name] ?? name;
  return text.replace(/\{(\w+)\}/g, (_, k) => (values[k] ?? ''));
}

/** A refusal in words, with a way forward: never its code nor the hub's message (a code without words says so in general). */
export function refusal(code) {
  return tables[lang].reasons[code] ?? t('refusedOther');
}

/** The words for the codes a person meets often, in the language chosen (refusals.js says the rest). */
export const reasonWords = () => tables[lang].reasons;

/** Words that depend on a count: `name_one` or `name_other`, as the language's plural rules say. */
export function tn(name, count, values = {}) {
  const form = new Intl.PluralRules(lang).select(count) === 'one' ? 'one' : 'other';
  return t(`${name}_${form}`, { count, ...values });
}
