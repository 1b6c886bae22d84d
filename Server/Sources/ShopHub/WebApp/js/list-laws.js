// The laws of one list on the screen (docs/APP.md, "Buying on purpose"): what is left to buy and what goes
// into the collapsed "Bought" part, what a line costs, and which message with which Undo follows a change
// that takes something off the screen. Pure: views and entries in, plain values out; nothing done at import.

/**
 * The list split for the screen. `shown`: the view of the mode (by location, by name, or the list's own
 * order), the waiting commands laid over it (pending.js); `detail`: the list's own order (list-detail) laid
 * over the same way, the one view that holds the bought entries with their purchases. Answers `{toBuy,
 * bought}`: `toBuy` the view with no bought entry left in it (by location and by name: sections left empty
 * dropped); `bought` the bought entries, the latest first (those bought here and still waiting, then the
 * hub's in reverse of the order it bought them).
 */
export function splitBought(shown, detail) {
  const toBuy = structuredClone(shown);
  if (toBuy.view === 'list-detail') toBuy.entries = toBuy.entries.filter((e) => !e.bought);
  else toBuy.sections = toBuy.sections.map((s) => ({ ...s, entries: s.entries.filter((e) => !e.bought) })).filter((s) => s.entries.length > 0);
  const all = (detail ?? shown).view === 'list-detail' ? (detail ?? shown).entries : [];
  const boughtHere = all.filter((e) => e.bought && e.pending);
  const boughtThere = all.filter((e) => e.bought && !e.pending).reverse();
  return { toBuy, bought: [...boughtHere, ...boughtThere] };
}

/**
 * What a line costs: quantity × unit price in minor units, rounded half to even to the minor unit as the core
 * counts totals (docs/VIEWS.md, "Units and decimals": in exact thousandths). null without a price.
 */
export function lineTotal(quantity, unitPrice) {
  if (unitPrice === null || unitPrice === undefined || !Number.isFinite(Number(quantity))) return null;
  const product = Math.round(Number(quantity) * 1000) * unitPrice;   // thousandths of a minor unit, exact
  const whole = Math.floor(product / 1000), rest = product - whole * 1000;
  return rest > 500 || (rest === 500 && whole % 2 === 1) ? whole + 1 : whole;
}

/**
 * The message after a change that takes an entry off the screen, and its Undo: `{words, params, action?,
 * data?}` — `words` the key of the string table, `action` the handler the Undo button calls with `data`.
 * `kind`: 'bought' (`purchase` the purchase made), 'removed' (`entry` as the list showed it), 'reverted',
 * 'restored' (an Undo done: nothing more to undo). `pending`: the change waits to be sent.
 * A new message replaces the one shown: its Undo is for what was done last.
 */
export function undoToast(kind, { name, pending = false, purchase, entry, list } = {}) {
  switch (kind) {
    case 'bought':
      return { words: pending ? 'boughtWaiting' : 'boughtToast', params: { name }, action: 'undo', data: { purchase, name } };
    case 'removed':
      return {
        words: pending ? 'removedWaiting' : 'removedToast', params: { name }, action: 'undoRemove',
        data: { list, item: entry.item, name, quantity: String(entry.quantity), assignee: entry.assignee ?? '' },
      };
    case 'reverted': return { words: 'revertedToast', params: { name } };
    case 'restored': return { words: 'restoredToast', params: { name } };
    default: throw new Error(`no message for ${kind}`);
  }
}

/**
 * The commands that put a removed entry back as it was: on the same list with the same quantity, for the
 * same person. (Its unit is the item's own and a removal leaves it as it was.) `data`: an Undo's data.
 */
export function restoreCommands({ list, item, name, quantity, assignee }) {
  const commands = [{ type: 'AddItemToList', data: { list, item, quantity: Number(quantity) }, label: name }];
  if (assignee) commands.push({ type: 'AssignEntry', data: { list, item, member: assignee }, label: name });
  return commands;
}

/**
 * Where the message goes so that it covers no row a person taps next: at the bottom (above the sections bar)
 * unless it would cover there the rows around the one just tapped — the next row takes that one's place
 * when it leaves the list, or shows right under it — then at the top, over the title bar, where no row is.
 * `tapped`: the tapped row's {top, bottom} on the screen (null: nothing tapped, the bottom); `bottom`: the
 * message's {top, bottom} where it shows at the bottom.
 */
export function toastSide(tapped, bottom) {
  if (!tapped) return 'bottom';
  const near = { top: tapped.top, bottom: tapped.bottom + (tapped.bottom - tapped.top) };
  return near.top < bottom.bottom && bottom.top < near.bottom ? 'top' : 'bottom';
}
