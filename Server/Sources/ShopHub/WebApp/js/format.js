// Amounts, quantities, dates and durations for people: in the app's language,
// in the household's currency and time zone (docs/APP.md).
import { lang } from './i18n.js';

/** Minor units as money in `currency` (249 → "€2.49"), as the core counts them: hundredths. */
export function money(minor, currency) {
  if (minor === null || minor === undefined) return '—';
  const value = minor / 100;
  if (!currency) return new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
  } catch {
    return `${new Intl.NumberFormat(lang, { minimumFractionDigits: 2 }).format(value)} ${currency}`;
  }
}

/** A quantity with its unit: "1.5 kg", or "×2" for pieces. */
export function amount(quantity, unit) {
  const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 3 }).format(quantity);
  return unit ? `${number} ${unit}` : `×${number}`;
}

function zoned(options, zone) {
  try { return new Intl.DateTimeFormat(lang, { ...options, timeZone: zone || undefined }); }
  catch { return new Intl.DateTimeFormat(lang, options); }
}

/** A day and time in the household's zone. */
export function dateTime(text, zone) {
  if (!text) return '—';
  return zoned({ dateStyle: 'medium', timeStyle: 'short' }, zone).format(new Date(text));
}

/** A day in the household's zone. */
export function date(text, zone) {
  if (!text) return '—';
  return zoned({ dateStyle: 'medium' }, zone).format(new Date(text));
}

/** Seconds as a running timer: 0:05:09. */
export function timer(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}`;
}

/** Seconds as a duration: "42 min", "1 h 5 min". */
export function duration(seconds) {
  const minutes = Math.round(seconds / 60);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

/** A number of days, one decimal. */
export function days(value) {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(value);
}

/** A price typed by a person ("2,49", "2.49", "€ 2") as minor units, null when empty; NaN when unreadable. */
export function parseMoney(text) {
  const cleaned = String(text).replace(/[^\d.,-]/g, '').trim();
  if (cleaned === '') return null;
  // The last of "." and "," is the decimal mark ("1.234,56" and "1,234.56" are both 1234.56; "2,49" is 2.49).
  const mark = Math.max(cleaned.lastIndexOf('.'), cleaned.lastIndexOf(','));
  const digits = (text) => text.replace(/[.,]/g, '');
  const normal = mark < 0 ? cleaned : `${digits(cleaned.slice(0, mark))}.${digits(cleaned.slice(mark + 1))}`;
  const value = Number(normal);
  return Number.isFinite(value) ? Math.round(value * 100) : NaN;
}

/** A quantity typed by a person ("1,5" or "1.5"). */
export function parseQuantity(text) {
  const value = Number(String(text).trim().replace(',', '.'));
  return Number.isFinite(value) ? value : NaN;
}

// The currency of a region (ISO 3166 → ISO 4217), for the start form's default; the euro's regions and the others.
const euro = 'AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK'.split(' ');
const currencies = { US: 'USD', GB: 'GBP', CH: 'CHF', LI: 'CHF', JP: 'JPY', CA: 'CAD', AU: 'AUD', NZ: 'NZD', SE: 'SEK', DK: 'DKK',
  NO: 'NOK', PL: 'PLN', CZ: 'CZK', HU: 'HUF', RO: 'RON', BG: 'BGN', IS: 'ISK', TR: 'TRY', IN: 'INR', CN: 'CNY', KR: 'KRW',
  BR: 'BRL', MX: 'MXN', ZA: 'ZAR', SG: 'SGD', HK: 'HKD', IL: 'ILS', UA: 'UAH', RU: 'RUB' };

/** The currency a browser's locale ("de-AT", "en-GB", "de") points to: its region's, the likely region's
 * when it names none (Intl.Locale's maximize: "de" → DE, "en" → US), else the app language's (EUR for German). */
export function currencyFor(locale, appLanguage = 'en') {
  let region = null;
  try { region = new Intl.Locale(locale || appLanguage).maximize().region ?? null; } catch { region = null; }
  if (region && euro.includes(region)) return 'EUR';
  return currencies[region] ?? (appLanguage === 'de' ? 'EUR' : 'USD');
}
