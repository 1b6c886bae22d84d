// How a name a person types becomes an id, on the phone (docs/APP.md, "Nothing
// added is lost"). The hub's sync route takes ids only, so the app decides:
// a name the household has (as the app last saw it, or made here and still
// waiting) is added by its id; another is created with a new id and added.
// At push, what the hub refused because another phone got there first is
// turned into what the person meant: an item, list or location of that name
// made meanwhile elsewhere is used instead of the one made here; an entry
// already on the list keeps the larger quantity; a purchase whose entry is
// gone is made off the list. Everything else is for the person to decide.
// Pure: no DOM, no storage, nothing done at import.

/** Names are unique ignoring case and surrounding white space, as the core compares them. */
export const nameKey = (name) => String(name ?? '').trim().toLowerCase();

/** What each creating command makes: the kind, the data field that holds its id, the view that lists that kind. */
const creating = {
  CreateItem: { kind: 'item', field: 'item' },
  CreateList: { kind: 'list', field: 'list' },
  CreateLocation: { kind: 'location', field: 'location' },
};

/** The fields of a command's data that name an item, a list or a location by id. */
const idFields = ['item', 'list', 'location'];

/**
 * The items a name can be resolved against: `items` as a view gave them (`{item}` or `{id}`, `name`, `unit`?),
 * then those this phone created that still wait (`waiting`: outbox commands), which the views do not show yet.
 */
export function knownItems(items, waiting = []) {
  const known = new Map();
  for (const i of items ?? []) known.set(nameKey(i.name), { item: i.item ?? i.id, name: i.name, unit: i.unit });
  for (const c of waiting) {
    if (c.type === 'CreateItem' && !known.has(nameKey(c.data.name))) {
      known.set(nameKey(c.data.name), { item: c.data.item, name: c.data.name, unit: c.data.unit ?? null });
    }
  }
  return known;
}

/**
 * The commands that put `name` on `list`: a known item by its id (with a unit change if the person gave
 * another unit), else a new item (carrying the quantity and unit as its own: a refused quantity refuses the
 * item too) and its entry; then the assignment, if `member`. `known`: from knownItems.
 */
export function addCommands({ list, name, quantity, unit, member }, known, newId) {
  const commands = [];
  const existing = known.get(nameKey(name));
  let item = existing?.item;
  if (!item) {
    item = newId();
    commands.push({ type: 'CreateItem', data: { item, name, quantity, ...(unit ? { unit } : {}) } });
    commands.push({ type: 'AddItemToList', data: { list, item }, label: name });
  } else {
    if (unit && unit !== (existing.unit ?? '')) commands.push({ type: 'ChangeItemDetails', data: { item, unit } });
    commands.push({ type: 'AddItemToList', data: { list, item, quantity }, label: name });
  }
  if (member) commands.push({ type: 'AssignEntry', data: { list, item, member }, label: name });
  return commands;
}

/** A purchase refused because its entry is gone or bought is sent again off the list: never lost. */
const entryGone = new Set(['not_on_list', 'already_bought', 'unknown_list', 'list_deleted', 'item_deleted']);

/**
 * What the hub's views must say before `settle` can decide this push's refusals: the kinds whose names it
 * needs (`item`, `list`, `location`) and the lists whose entries it needs. Empty when nothing needs asking.
 */
export function needs(entries, results, isFresh = () => false) {
  const kinds = new Set(), lists = new Set();
  for (const entry of entries) {
    const result = results.get(entry.command.id);
    if (!result || result.ok || isFresh(entry)) continue;
    const made = creating[entry.command.type];
    if (made && result.error.code === 'name_taken') kinds.add(made.kind);
    if (entry.command.type === 'AddItemToList' && result.error.code === 'already_on_list') lists.add(entry.command.data.list);
  }
  return { kinds, lists };
}

/**
 * Decides, after a push, what becomes of each outbox entry (`entries`: the household's outbox, oldest first,
 * `{n, command}`; `results`: the hub's answers by command id, for those pushed). `seen`: what the hub's views
 * say now: `{items, lists, locations}` (each `[{id, name}]`) for the kinds `needs` named, and `entries`
 * (`{[list]: {[item]: quantity}}`, unbought entries) for its lists. `isFresh(entry)`: made while the person
 * looks, who is answered the refusal as it is. Answers one step an entry, in order:
 * - `{n, step: 'done', result}`: it leaves the outbox (accepted, or what it meant is there already);
 * - `{n, step: 'send', command}`: put in its place and sent again (a new id when it was refused);
 * - `{n, step: 'refused', error}`: for the person to decide;
 * - nothing for an entry that was not pushed and stays as it is.
 */
export function settle(entries, results, seen = {}, newId, isFresh = () => false) {
  const instead = new Map();   // an id made here → {id: the household's, data: what the creating command carried}
  const steps = [];
  for (const entry of entries) {
    const { n, command } = entry;
    const result = results.get(command.id);
    if (!result) {
      // Not in this push: what it names that was made elsewhere first is named as it is there.
      const moved = renamed(command, instead);
      if (moved) steps.push({ n, step: 'send', command: moved });
      continue;
    }
    if (result.ok) { steps.push({ n, step: 'done', result }); continue; }
    const { code } = result.error;
    const retry = offList(command, result.error, newId);
    if (retry) { steps.push({ n, step: 'send', command: retry }); continue; }
    if (isFresh(entry)) { steps.push({ n, step: 'refused', error: result.error }); continue; }
    const made = creating[command.type];
    if (made && code === 'name_taken') {
      const other = find(seen[`${made.kind}s`], command.data.name);
      if (other && other.id !== command.data[made.field]) {
        instead.set(command.data[made.field], { id: other.id, data: command.data });
        // The new item's unit becomes the existing one's (a patch: what it leaves out stays); nothing else to send.
        if (command.type === 'CreateItem' && command.data.unit) {
          steps.push({ n, step: 'send', command: again(command, 'ChangeItemDetails', { item: other.id, unit: command.data.unit }, newId) });
        } else {
          steps.push({ n, step: 'done', result: { command: command.id, ok: true, settled: true } });
        }
        continue;
      }
    }
    const moved = renamed(command, instead);
    if (moved) { steps.push({ n, step: 'send', command: again(moved, moved.type, moved.data, newId) }); continue; }
    if (command.type === 'AddItemToList' && code === 'already_on_list') {
      const theirs = seen.entries?.[command.data.list]?.[command.data.item];
      const ours = command.data.quantity;
      if (ours !== undefined && theirs !== undefined && ours > theirs) {
        const { list, item } = command.data;
        steps.push({ n, step: 'send', command: again(command, 'ChangeQuantity', { list, item, quantity: ours }, newId) });
      } else {
        steps.push({ n, step: 'done', result: { command: command.id, ok: true, settled: true } });
      }
      continue;
    }
    // Satisfied as it is: the same unit, an assignment already so.
    if (code === 'unchanged') { steps.push({ n, step: 'done', result: { command: command.id, ok: true, settled: true } }); continue; }
    steps.push({ n, step: 'refused', error: result.error });
  }
  return steps;
}

function find(things, name) {
  const key = nameKey(name);
  return (things ?? []).find((t) => nameKey(t.name) === key) ?? null;
}

/** `command` with the ids made here that the household has under another id put in, or null if it names none. */
function renamed(command, instead) {
  if (instead.size === 0 || !command.data) return null;
  const data = { ...command.data };
  let changed = false;
  for (const field of idFields) {
    const to = instead.get(data[field]);
    if (to) {
      data[field] = to.id;
      changed = true;
      // An entry of the item made here took that item's quantity; the existing item's may differ: the entry says it.
      if (field === 'item' && command.type === 'AddItemToList' && data.quantity === undefined && to.data.quantity !== undefined) {
        data.quantity = to.data.quantity;
      }
    }
  }
  if (Array.isArray(data.order)) {
    const order = data.order.map((id) => instead.get(id)?.id ?? id);
    if (order.some((id, i) => id !== data.order[i])) { data.order = order; changed = true; }
  }
  return changed ? { ...command, data } : null;
}

/** A command sent again in place of a refused one: a new id, `correlation` naming the first. */
function again(command, type, data, newId) {
  return { type, id: newId(), correlation: command.correlation ?? command.id, data };
}

/** The same purchase off any list, with a new command id, if `error` says its entry is gone; else null. */
function offList(command, error, newId) {
  if (command.type !== 'PurchaseItem' || !command.data.list || !entryGone.has(error.code)) return null;
  const { list, ...data } = command.data;
  return again(command, 'PurchaseItem', data, newId);
}
