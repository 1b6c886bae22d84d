// What a refusal the person must decide on says (docs/APP.md, "Nothing added
// is lost"): a change made here that waited and that the household no longer
// allows, in the family's words, with a way forward. No command type, no
// code, no technical message: those stay in the outbox's record. Pure: the
// language and the names are passed in; nothing is done at import.
import { tables } from './i18n.js';

const words = {
  en: {
    added: '{item} was not added',
    bought: '{item} was not bought',
    quantity: 'the quantity of {item} was not changed',
    assigned: '{item} was not given to anyone',
    removed: '{item} was not taken off {list}',
    created: '{name} was not made',
    renamed: '{name} was not renamed',
    changed: 'a change to {name} was not made',
    other: 'a change made on this phone was not made',
    listDeleted: '{list} was deleted, so {what}. Restore it from “Deleted lists” or choose another list.',
    listGone: 'The list was deleted, so {what}. Choose another list.',
    itemDeleted: '{item} was deleted, so {what}. Make it again if you still need it.',
    notOnList: '{item} is no longer on {list}, so {what}. Add it again if you still need it.',
    forbidden: 'Your role no longer allows changes, so {what}. An owner can change your role.',
    notAMember: 'You are no longer a member of this household, so {what}. An owner can add you again.',
    nameTaken: 'Another one is called {name} already, so {what}. Choose another name.',
    because: '{What}: {reason}',
    otherReason: '{What}. Reload the app and try again.',
    theList: 'the list',
    thisItem: 'an item',
    addElsewhere: 'Add to another list',
    listFor: 'List for {item}',
    addAgain: 'Add again',
    dismiss: 'Dismiss',
  },
  de: {
    added: '{item} wurde nicht hinzugefügt',
    bought: '{item} wurde nicht gekauft',
    quantity: 'die Menge von {item} wurde nicht geändert',
    assigned: '{item} wurde niemandem zugeteilt',
    removed: '{item} wurde nicht von {list} genommen',
    created: '{name} wurde nicht angelegt',
    renamed: '{name} wurde nicht umbenannt',
    changed: 'eine Änderung an {name} wurde nicht gemacht',
    other: 'eine Änderung auf diesem Telefon wurde nicht gemacht',
    listDeleted: '{list} wurde gelöscht – {what}. Stell sie unter „Gelöschte Listen“ wieder her oder wähle eine andere Liste.',
    listGone: 'Die Liste wurde gelöscht – {what}. Wähle eine andere Liste.',
    itemDeleted: '{item} wurde gelöscht – {what}. Leg ihn neu an, wenn du ihn noch brauchst.',
    notOnList: '{item} steht nicht mehr auf {list} – {what}. Füge es neu hinzu, wenn du es noch brauchst.',
    forbidden: 'Deine Rolle erlaubt keine Änderungen mehr – {what}. Ein Eigentümer kann deine Rolle ändern.',
    notAMember: 'Du bist kein Mitglied dieses Haushalts mehr – {what}. Ein Eigentümer kann dich wieder hinzufügen.',
    nameTaken: 'Ein anderes heißt schon {name} – {what}. Wähle einen anderen Namen.',
    because: '{What}: {reason}',
    otherReason: '{What}. Lade die App neu und versuch es noch einmal.',
    theList: 'die Liste',
    thisItem: 'ein Artikel',
    addElsewhere: 'Zu einer anderen Liste hinzufügen',
    listFor: 'Liste für {item}',
    addAgain: 'Neu hinzufügen',
    dismiss: 'Verwerfen',
  },
};

function say(lang, key, values = {}) {
  const text = (words[lang] ?? words.en)[key] ?? words.en[key];
  return text.replace(/\{(\w+)\}/g, (_, k) => {
    if (k === 'What') { const v = String(values.what ?? ''); return v.charAt(0).toLocaleUpperCase(lang) + v.slice(1); }
    return values[k] ?? '';
  });
}

/** The words of the action `key` (the buttons and the list field of a refusal), in `lang`. */
export function label(lang, key, values) { return say(lang, key, values); }

/** What did not happen, as a clause: "Chocolate was not added". */
function what(lang, command, names) {
  const d = command.data ?? {};
  const item = names.item ?? names.of(d.item) ?? say(lang, 'thisItem');
  const list = names.of(d.list) ?? say(lang, 'theList');
  const name = d.name ?? names.item ?? names.of(d.item ?? d.list ?? d.location ?? d.store) ?? '';
  switch (command.type) {
    case 'AddItemToList': return say(lang, 'added', { item });
    case 'PurchaseItem': return say(lang, 'bought', { item });
    case 'ChangeQuantity': return say(lang, 'quantity', { item });
    case 'AssignEntry': return say(lang, 'assigned', { item });
    case 'RemoveItemFromList': return say(lang, 'removed', { item, list });
    case 'CreateItem': case 'CreateList': case 'CreateLocation': case 'CreateStore': return say(lang, 'created', { name });
    case 'RenameItem': case 'RenameList': case 'RenameLocation': case 'RenameStore': return say(lang, 'renamed', { name: names.of(d.item ?? d.list ?? d.location ?? d.store) ?? name });
    default: return name ? say(lang, 'changed', { name }) : say(lang, 'other');
  }
}

/**
 * A kept refusal (`{command, label, error}`) in words: `{text, actions}`. `names`: `{lists: Map(id → name)}`
 * (live and deleted lists, and items, as the views last said); `reasons`: the language's words for the
 * codes a person meets often (i18n.js), used where no sentence of our own fits. `actions`: `addElsewhere`
 * (the entry's item to another list), always `dismiss`.
 */
export function describe(kept, { lang = 'en', names = new Map(), reasons = {} } = {}) {
  const { command, error } = kept;
  const d = command.data ?? {};
  const lookup = { item: kept.label ?? null, of: (id) => (id ? names.get(id) ?? null : null) };
  const done = what(lang, command, lookup);
  const item = lookup.item ?? lookup.of(d.item) ?? say(lang, 'thisItem');
  const list = lookup.of(d.list);
  const actions = [];
  let text;
  switch (error.code) {
    case 'list_deleted': case 'unknown_list':
      text = list ? say(lang, 'listDeleted', { list, what: done }) : say(lang, 'listGone', { what: done });
      break;
    case 'item_deleted':
      text = say(lang, 'itemDeleted', { item, what: done });
      break;
    case 'not_on_list':
      text = say(lang, 'notOnList', { item, list: list ?? say(lang, 'theList'), what: done });
      break;
    case 'forbidden':
      text = say(lang, 'forbidden', { what: done });
      break;
    case 'not_a_member':
      text = say(lang, 'notAMember', { what: done });
      break;
    case 'name_taken':
      text = say(lang, 'nameTaken', { name: d.name ?? '', what: done });
      break;
    default:
      text = reasons[error.code] ? say(lang, 'because', { what: done, reason: reasons[error.code] }) : say(lang, 'otherReason', { what: done });
  }
  // An entry that could not be made or changed on its list can go on another one.
  const entry = ['AddItemToList', 'ChangeQuantity', 'AssignEntry'].includes(command.type) && d.item;
  if (entry && ['list_deleted', 'unknown_list', 'not_on_list'].includes(error.code)) actions.push('addElsewhere');
  actions.push('dismiss');
  return { text, actions };
}

/**
 * Any failure a person meets, in words with a way forward (docs/APP.md, "Refusals in words"): `{text, again}`.
 * `failure`: `{kind, code, command, label}`, `kind` one of `refused` (the hub answered with `code`; `command`
 * `{type, data}` when a change was refused), `unreachable` (no answer; `code` when the hub said why: its rate,
 * its storage), `storage` (this browser's storage failed) or `other`. `again`: the entry to add again
 * (`{list, item, quantity}`) when the change was to an entry no longer on its list, else null.
 */
export function explain(failure, { lang = 'en', names = new Map(), reasons = tables[lang]?.reasons ?? tables.en.reasons } = {}) {
  const words = (tables[lang] ?? tables.en).words;
  const { kind, code, command } = failure;
  if (kind === 'refused' && command) {
    const { text } = describe({ command, label: failure.label ?? null, error: { code } }, { lang, names, reasons });
    const d = command.data ?? {};
    const again = code === 'not_on_list' && d.list && d.item && ['ChangeQuantity', 'AssignEntry'].includes(command.type)
      ? { list: d.list, item: d.item, ...(d.quantity ? { quantity: d.quantity } : {}) } : null;
    return { text, again };
  }
  if (kind === 'refused') return { text: reasons[code] ?? words.refusedOther, again: null };
  if (kind === 'unreachable') return { text: (code && ['rate_limited', 'unavailable'].includes(code) && reasons[code]) || words.unreachable, again: null };
  if (kind === 'storage') return { text: words.storageUnavailable, again: null };
  return { text: words.refusedOther, again: null };
}
