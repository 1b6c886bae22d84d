// What a family noticed, as laws without a browser: counts in each language's plural (Intl.PluralRules through
// i18n.js `tn`), and the start form's currency from the browser's locale (format.js `currencyFor`).
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useLanguage, tn } from '../../Sources/ShopHub/WebApp/js/i18n.js';
import { currencyFor } from '../../Sources/ShopHub/WebApp/js/format.js';

test('one trip, one purchase, one item: singular in English and German; more: plural', () => {
  useLanguage('en');
  assert.deepEqual([tn('trips', 1, { mean: '40 min' }), tn('trips', 2, { mean: '40 min' }), tn('purchasesCount', 1), tn('purchasesCount', 0),
    tn('itemsCount', 1), tn('itemsCount', 3), tn('purchasesSpend', 1, { amount: '€2.49' })],
  ['1 trip, 40 min', '2 trips, 40 min on average', '1 purchase', '0 purchases', '1 item', '3 items', '1 purchase · €2.49']);
  useLanguage('de');
  assert.deepEqual([tn('trips', 1, { mean: '40 Min.' }), tn('trips', 2, { mean: '40 Min.' }), tn('purchasesCount', 1), tn('purchasesCount', 0),
    tn('itemsCount', 1), tn('itemsCount', 3), tn('purchasesSpend', 1, { amount: '2,49 €' })],
  ['1 Einkauf, 40 Min.', '2 Einkäufe, im Schnitt 40 Min.', '1 Kauf', '0 Käufe', '1 Artikel', '3 Artikel', '1 Kauf · 2,49 €']);
  useLanguage('en');
});

test('the start form’s currency: the locale’s region, its likely region when it names none, else the language’s', () => {
  const cases = { 'en-US': 'USD', 'en-GB': 'GBP', 'de-DE': 'EUR', 'de-AT': 'EUR', 'de-CH': 'CHF', 'fr-FR': 'EUR', 'en-IE': 'EUR',
    'sv-SE': 'SEK', 'ja-JP': 'JPY', 'pt-BR': 'BRL', de: 'EUR', en: 'USD', fr: 'EUR' };
  assert.deepEqual(Object.fromEntries(Object.keys(cases).map((l) => [l, currencyFor(l)])), cases);
  assert.equal(currencyFor('', 'de'), 'EUR');
  assert.equal(currencyFor('not a locale!', 'de'), 'EUR');
  assert.equal(currencyFor('not a locale!', 'en'), 'USD');
});
