// The views that change seldom, asked of the hub again at most every 30 seconds, or after this phone
// changed them (`forget`): a busy list (every tap a push and a redraw) stays well within the hub's rate
// per device. `model` is what asks (model.js's `view(name)`).

/** A cache of `model`'s views: each asked once per 30 seconds; a failed answer is not kept. */
export function viewCache(model, now = () => performance.now()) {
  const cached = new Map();
  function cachedView(name, pick = (v) => v) {
    const hit = cached.get(name);
    if (hit && now() - hit.at < 30000) return hit.value.then(pick);
    const value = model.view(name).catch((error) => { cached.delete(name); throw error; });
    cached.set(name, { at: now(), value });
    return value.then(pick);
  }
  return {
    cachedView,
    memberNames: () => cachedView('members', (m) => m.members.map((x) => x.member)).catch(() => []),
    storesView: () => cachedView('stores'),
    locationsView: () => cachedView('locations'),
    // The household's members with their roles: the household screen's (forgotten at each change there).
    membersView: () => cachedView('members'),
    // The household's items as last seen: what a name typed offline is looked up in (the service worker keeps the view too).
    itemsSeen: () => cachedView('all-items-by-name', (v) => v.items),
    forget: (...names) => names.forEach((n) => cached.delete(n)),
    clear: () => cached.clear(),
  };
}
