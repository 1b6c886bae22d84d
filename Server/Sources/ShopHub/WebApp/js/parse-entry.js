// What a person types into the list's one "Item" field, read as the item's name, a quantity and a unit
// (docs/APP.md, "The list first"): "2 l milk", "Bananas 1.5 kg", "3 eggs", "1,5 kg Äpfel", "milk".
// A number is a quantity only beside the name, before or after it; a unit only when it is one of the
// words below, right after the number. The core takes any unit of up to 16 characters (docs/COMMANDS.md,
// "Values"); these are the ones read from the text, written as the app writes them. Pure: nothing done at import.

/** The units read from the text: each word a person may type (any case) → the unit written on the item. */
const unitWords = {
  g: 'g', gr: 'g', gram: 'g', grams: 'g', gramm: 'g', gramme: 'g', grammes: 'g',
  kg: 'kg', kilo: 'kg', kilos: 'kg', kilogram: 'kg', kilograms: 'kg', kilogramm: 'kg',
  mg: 'mg',
  l: 'l', ltr: 'l', liter: 'l', litre: 'l', liters: 'l', litres: 'l',
  ml: 'ml', milliliter: 'ml', millilitre: 'ml', milliliters: 'ml', millilitres: 'ml',
  cl: 'cl', dl: 'dl',
  pack: 'pack', packs: 'pack', packet: 'pack', packets: 'pack', pkg: 'pack',
  packung: 'Packung', packungen: 'Packung', pck: 'Packung', pkt: 'Packung',
  can: 'can', cans: 'can', tin: 'can', tins: 'can', dose: 'Dose', dosen: 'Dose',
  bottle: 'bottle', bottles: 'bottle', flasche: 'Flasche', flaschen: 'Flasche',
  jar: 'jar', jars: 'jar', glas: 'Glas', 'gläser': 'Glas',
  bag: 'bag', bags: 'bag', beutel: 'Beutel', 'tüte': 'Tüte', 'tüten': 'Tüte',
  box: 'box', boxes: 'box', schachtel: 'Schachtel', schachteln: 'Schachtel',
  bunch: 'bunch', bunches: 'bunch', bund: 'Bund',
};

/** Words that say "pieces": no unit (the core's pieces), the number stays the quantity. */
const pieceWords = new Set(['x', '×', 'pc', 'pcs', 'piece', 'pieces', 'stück', 'stk', 'st']);

/** "of" / "von" between a unit and the name ("2 packs of pasta") is no part of the name. */
const joiners = new Set(['of', 'von']);

const number = /^(\d{1,4}(?:[.,]\d{1,3})?)$/;
/** A number with a unit or "x" written on to it: "500g", "1,5kg", "2x", "x2", "×3". */
const joined = /^(?:[x×](\d{1,4}(?:[.,]\d{1,3})?)|(\d{1,4}(?:[.,]\d{1,3})?)([\p{L}.]+))$/u;

const toNumber = (text) => Number(text.replace(',', '.'));

/** A unit word as written on the item: `undefined` when it is none, null for pieces. */
function unitOf(word) {
  const key = word.toLowerCase().replace(/\.$/, '');
  if (pieceWords.has(key)) return null;
  return Object.hasOwn(unitWords, key) ? unitWords[key] : undefined;
}

/** One token as an amount: {quantity, unit?} (unit null for pieces, absent when not said), or null. */
function amountOf(token) {
  if (number.test(token)) return { quantity: toNumber(token) };
  const m = joined.exec(token);
  if (!m) return null;
  if (m[1]) return { quantity: toNumber(m[1]), unit: null };
  const unit = unitOf(m[3]);
  return unit === undefined ? null : { quantity: toNumber(m[2]), unit };
}

/**
 * The text read: `{name, quantity, unit}`. `quantity` null when none was typed; `unit` a unit word as the
 * app writes it, null for pieces said ("3 Stück", "2x") or none said. The name is what is left, its own
 * spelling kept; nothing left (a bare "2 kg") reads the whole text as the name.
 */
export function parseEntry(text) {
  const typed = String(text ?? '').trim().replace(/\s+/g, ' ');
  const none = { name: typed, quantity: null, unit: null };
  const words = typed.split(' ');
  if (typed === '' || words.length < 2) return none;

  // In front: "2 l milk", "2l milk", "3 eggs", "2 x milk", "2 packs of pasta".
  const front = amountOf(words[0]);
  if (front) {
    let rest = words.slice(1), unit = front.unit ?? null;
    if (front.unit === undefined && rest.length > 1) {
      const said = unitOf(rest[0]);
      if (said !== undefined) { unit = said; rest = rest.slice(1); }
    }
    if (rest.length > 1 && joiners.has(rest[0].toLowerCase())) rest = rest.slice(1);
    // A bare amount ("2 kg") names nothing: read as a name below.
    const bare = rest.length === 1 && front.unit === undefined && unitOf(rest[0]) !== undefined;
    if (rest.length > 0 && !bare) return { name: rest.join(' '), quantity: front.quantity, unit };
  }

  // Behind: "Bananas 1.5 kg", "Bananas 1.5kg", "milk x2", "milk 2", "milk 2 x".
  const last = words[words.length - 1];
  if (words.length >= 3 && unitOf(last) !== undefined && number.test(words[words.length - 2])) {
    return { name: words.slice(0, -2).join(' '), quantity: toNumber(words[words.length - 2]), unit: unitOf(last) };
  }
  const back = amountOf(last);
  if (back) return { name: words.slice(0, -1).join(' '), quantity: back.quantity, unit: back.unit ?? null };
  return none;
}

/** The field's text again with another name (a suggestion chosen), the quantity and unit typed kept in front. */
export function withName(text, name) {
  const { quantity, unit } = parseEntry(text);
  if (quantity === null) return name;
  const amount = String(quantity);
  return unit ? `${amount} ${unit} ${name}` : `${amount} ${name}`;
}
