// What a list shows while this phone's commands wait in the outbox (docs/APP.md,
// "Every command waits in an outbox"): the hub's view with the waiting commands
// laid over it, each entry they touch marked `pending`. Pure: the view and the
// outbox's records are passed in; nothing is done at import.

/**
 * The list as it will be once the outbox is sent: purchases shown bought, entries added, quantities changed,
 * assignments made, entries removed, bought entries cleared, the list's own order changed; each entry marked `pending`. The views' JSON is not changed in place.
 */
export function withPending(fetched, waiting, list) {
  const shown = structuredClone(fetched);
  const rows = shown.view === 'list-detail' ? [shown.entries] : shown.sections.map((s) => s.entries);
  const find = (item) => rows.flat().find((e) => e.item === item);
  // A new item's quantity is the item's own (its CreateItem carries it); a purchase undone before it went is no purchase.
  const created = new Map(waiting.filter((w) => w.command.type === 'CreateItem').map((w) => [w.command.data.item, w.command.data]));
  const reverted = new Set(waiting.filter((w) => w.command.type === 'RevertPurchase').map((w) => w.command.data.purchase));
  for (const { command: { type, data }, label } of waiting) {
    const entry = data?.item ? find(data.item) : null;
    if (type === 'RevertPurchase') {
      const bought = rows.flat().find((e) => e.bought && e.purchase === data.purchase);
      if (bought) { Object.assign(bought, { bought: false, pending: true }); shown.bought -= 1; if (shown.remaining !== undefined) shown.remaining += 1; }
      continue;
    }
    if (data?.list !== list) continue;
    if (type === 'PurchaseItem' && entry && !entry.bought && !reverted.has(data.purchase)) {
      Object.assign(entry, { bought: true, pending: true, purchase: data.purchase });
      shown.bought += 1;
      if (shown.remaining !== undefined) shown.remaining -= 1;
    } else if (type === 'AddItemToList' && !(entry && !entry.bought)) {
      if (rows.length === 0) {
        const section = { title: '', location: null, entries: [] };
        shown.sections.push(section);
        rows.push(section.entries);
      }
      const item = created.get(data.item);
      rows[rows.length - 1].push({ item: data.item, name: label ?? String(data.item), quantity: data.quantity ?? item?.quantity ?? 1,
        bought: false, unit: item?.unit ?? null, assignee: null, pending: true });
      if (shown.remaining !== undefined) shown.remaining += 1; else shown.total += 1;
    } else if (type === 'ChangeQuantity' && entry) {
      Object.assign(entry, { quantity: data.quantity, pending: true });
    } else if (type === 'AssignEntry' && entry) {
      Object.assign(entry, { assignee: data.member ?? null, pending: true });
    } else if (type === 'RemoveItemFromList' && entry) {
      for (const r of rows) { const at = r.indexOf(entry); if (at >= 0) r.splice(at, 1); }
      if (entry.bought) shown.bought -= 1; else if (shown.remaining !== undefined) shown.remaining -= 1;
      if (shown.total !== undefined) shown.total -= 1;
    } else if (type === 'ClearBought') {
      for (const r of rows) {
        const kept = r.filter((e) => !e.bought);
        if (shown.total !== undefined) shown.total -= r.length - kept.length;
        r.splice(0, r.length, ...kept);
      }
      shown.bought = 0;
    } else if (type === 'ReorderList' && shown.view === 'list-detail') {
      // Only the list's own order shows it: the entries to buy as ordered (the moved ones marked), the bought ones last.
      const rank = new Map(data.order.map((item, at) => [item, at]));
      const toBuy = shown.entries.filter((e) => !e.bought);
      const ordered = [...toBuy].sort((a, b) => (rank.get(a.item) ?? rank.size) - (rank.get(b.item) ?? rank.size));
      ordered.forEach((e, at) => { if (toBuy[at] !== e) e.pending = true; });
      shown.entries.splice(0, shown.entries.length, ...ordered, ...shown.entries.filter((e) => e.bought));
    }
  }
  return shown;
}
