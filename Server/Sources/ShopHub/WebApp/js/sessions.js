// The households this browser is signed in to (docs/APP.md, "Several households"): each with its own
// session ({household, token, actor, device, name?, started?}), one of them open now. Pure laws over
// plain values; api.js keeps them in localStorage: the open one under `shopevents.session`, all of them
// under `shopevents.sessions`. Nothing done at import.

/** `{current, all}` from what was kept (the texts, or null); a browser that kept only one session (an older app) has that one. */
export function fromStorage(currentText, allText) {
  const parse = (text, fallback) => { try { return JSON.parse(text ?? 'null') ?? fallback; } catch { return fallback; } };
  const valid = (s) => s && typeof s === 'object' && typeof s.household === 'string' && typeof s.token === 'string' && s.token !== '';
  const all = (Array.isArray(parse(allText, [])) ? parse(allText, []) : []).filter(valid);
  const open = parse(currentText, null);
  if (valid(open)) {
    const at = all.findIndex((s) => s.household === open.household);
    if (at < 0) all.push(open); else all[at] = open;   // the open one as kept last (another tab may have written it)
    return { current: open.household, all };
  }
  return { current: null, all };
}

/** The texts to keep: `session` (the open one; null: none open) and `sessions` (all). */
export function toStorage(state) {
  const open = currentSession(state);
  return { session: open ? JSON.stringify(open) : null, sessions: JSON.stringify(state.all) };
}

/** The session open now, or null. */
export const currentSession = (state) => state.all.find((s) => s.household === state.current) ?? null;

/** Signed in (started or joined): the session is kept, in place of one of the same household, and open now. */
export function kept(state, session) {
  const at = state.all.findIndex((s) => s.household === session.household);
  const all = at < 0 ? [...state.all, session] : state.all.map((s, n) => (n === at ? session : s));
  return { current: session.household, all };
}

/** Another household on this phone opened; one not kept here changes nothing. */
export function switched(state, household) {
  return state.all.some((s) => s.household === household) ? { ...state, current: household } : state;
}

/**
 * Signed out of `household`: its session goes, the others stay. With `token`, only if the session kept is
 * still that one (another tab may have joined the household anew meanwhile). If it was the open one, the
 * first household left is open now (none: the start screen).
 */
export function signedOut(state, household, token = null) {
  const gone = state.all.find((s) => s.household === household);
  if (!gone || (token && gone.token !== token)) return state;
  const all = state.all.filter((s) => s !== gone);
  const current = state.current === household ? all[0]?.household ?? null : state.current;
  return { current, all };
}

/** The household's name as its view last said it, kept beside its session for the switcher. */
export function named(state, household, name) {
  return { ...state, all: state.all.map((s) => (s.household === household && name ? { ...s, name } : s)) };
}
