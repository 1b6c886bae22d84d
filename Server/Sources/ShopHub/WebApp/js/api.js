// The HTTP client: everything the app says to the hub, and the session this
// browser keeps. It decides nothing; the hub's core does (docs/HUB.md, docs/SYNC.md).

import { sha256Hex } from './sha256.js';
import { fromStorage, toStorage, currentSession, kept, switched, signedOut, named } from './sessions.js';

/** The open household's session; every household's beside it (sessions.js). */
const sessionKey = 'shopevents.session';
const sessionsKey = 'shopevents.sessions';
/** Tokens signed out without a network, to revoke when there is one: not the household's data, kept apart. */
const revokeKey = 'shopevents.revoke';

/** A refusal from the hub: its HTTP status, stable code and message. */
export class HubFailure extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The hub could not be reached (no network, a dropped connection). */
export class Unreachable extends Error {}

export class Api {
  constructor(base = '') {
    this.base = base;
    this.session = Api.loadSession();
    this.inflight = new Set();   // the requests not answered yet
    // The views this page last got, by address (its household in it): what it shows while the hub cannot be
    // reached where no service worker keeps them (plain HTTP at a home address: docs/APP.md, "At home").
    this.lastSeen = new Map();
  }

  /** Resolves once the requests made until now are answered (or failed), or after `limit` ms. */
  settled(limit = 3000) {
    return Promise.race([Promise.allSettled([...this.inflight]), new Promise((resolve) => setTimeout(resolve, limit))]);
  }

  /** The session of the household open now (its id, actor, device and token); null before any. */
  static loadSession() { return currentSession(Api.sessions()); }

  /** Every household this browser is signed in to, and which one is open (sessions.js). */
  static sessions() { return fromStorage(localStorage.getItem(sessionKey), localStorage.getItem(sessionsKey)); }

  static keep(state) {
    const { session, sessions } = toStorage(state);
    if (session) localStorage.setItem(sessionKey, session); else localStorage.removeItem(sessionKey);
    localStorage.setItem(sessionsKey, sessions);
    return currentSession(state);
  }

  /** Signed in to a household (started or joined): kept beside the others, and open now. */
  saveSession(session) {
    Api.keep(kept(Api.sessions(), session));
    this.session = session;
  }

  /** Opens another household this browser is signed in to. */
  switchTo(household) { this.session = Api.keep(switched(Api.sessions(), household)); }

  /** The name of the household open now, kept for the switcher. */
  nameHousehold(name) {
    if (!this.session || !name) return;
    Api.keep(named(Api.sessions(), this.session.household, name));
    this.session = { ...this.session, name };
  }

  /**
   * Forgets the open household's session (the others stay); with `token`, only if it is still that one
   * (another tab may have joined anew). The first household left, if any, is open then.
   */
  forget(token) {
    if (this.session) {
      const mine = this.householdPath('/');
      for (const address of this.lastSeen.keys()) if (address.startsWith(mine)) this.lastSeen.delete(address);
      Api.keep(signedOut(Api.sessions(), this.session.household, token));
    }
    this.session = Api.loadSession();
  }

  async request(method, path, options = {}) {
    const asked = this.asked(method, path, options);
    this.inflight.add(asked);
    try { return await asked; } finally { this.inflight.delete(asked); }
  }

  async asked(method, path, options) {
    try {
      return await this.once(method, path, options);
    } catch (error) {
      // Past the device's rate (429): a read waits as long as the hub asks, once, and asks again.
      if (!(error instanceof Unreachable) || !error.retryAfter || method !== 'GET') throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(error.retryAfter, 3) * 1000));
      return this.once(method, path, options);
    }
  }

  async once(method, path, { body, auth = true, signal, accept = 'application/json', fresh = false } = {}) {
    const headers = { Accept: accept };
    const session = this.session;   // whose request it is: a refusal names it (another household may be open by then)
    if (fresh) headers['Cache-Control'] = 'no-cache';   // the hub's answer now, never the service worker's kept one
    if (auth && session) headers.Authorization = `Bearer ${session.token}`;
    if (body !== undefined) headers['Content-Type'] = typeof body === 'string' ? 'application/x-ndjson' : 'application/json';
    let response;
    try {
      response = await fetch(this.base + path, {
        method, headers, signal, cache: 'no-store',
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      throw new Unreachable(String(error));
    }
    const text = await response.text();
    if (!response.ok) {
      let code = 'unavailable', message = `HTTP ${response.status}`;
      try { ({ code, message } = JSON.parse(text).error); } catch { /* not the hub's JSON */ }
      if (response.status >= 500 || response.status === 429) {
        const failure = new Unreachable(`${code}: ${message}`);
        failure.code = code;   // why, when the hub said: its rate (429), its storage (503)
        failure.retryAfter = Number(response.headers.get('Retry-After')) || (response.status === 429 ? 1 : 0);
        throw failure;
      }
      throw Object.assign(new HubFailure(response.status, code, message), { session });
    }
    return text;
  }

  householdPath(rest) { return `/v1/households/${this.session.household}${rest}`; }

  // Households and devices (docs/HUB.md)

  async createHousehold(device, actor) {
    return JSON.parse(await this.request('POST', '/v1/households', { body: { device, actor }, auth: false }));
  }

  async join(code, device) {
    return JSON.parse(await this.request('POST', '/v1/join', { body: { code, device }, auth: false }));
  }

  async invite(actor) {
    return JSON.parse(await this.request('POST', this.householdPath('/invites'), { body: { actor } }));
  }

  /** The invites not used yet (owners): `[{id, actor, by, expires}]`. */
  async invites() {
    return JSON.parse(await this.request('GET', this.householdPath('/invites'))).invites;
  }

  async cancelInvite(id) {
    await this.request('DELETE', this.householdPath(`/invites/${encodeURIComponent(id)}`));
  }

  async devices() {
    return JSON.parse(await this.request('GET', this.householdPath('/devices'))).devices;
  }

  async revoke(device) {
    await this.request('DELETE', this.householdPath(`/devices/${encodeURIComponent(device)}`));
  }

  /** Keeps `session`'s token to revoke the next time the hub can be reached (signed out offline). */
  revokeLater(session) {
    const later = Api.revokesWaiting().filter((r) => r.token !== session.token);
    later.push({ household: session.household, device: session.device, token: session.token });
    localStorage.setItem(revokeKey, JSON.stringify(later));
  }

  static revokesWaiting() {
    try { return JSON.parse(localStorage.getItem(revokeKey) || '[]').filter((r) => r && r.token); } catch { return []; }
  }

  /**
   * Revokes the tokens signed out offline: each with its own token. One revoked, or refused as no longer
   * valid (401), is forgotten; one the hub cannot be reached for waits for the next time.
   */
  async revokeWaiting() {
    for (const r of Api.revokesWaiting()) {
      try {
        await fetch(`${this.base}/v1/households/${r.household}/devices/${encodeURIComponent(r.device)}`, {
          method: 'DELETE', cache: 'no-store', headers: { Authorization: `Bearer ${r.token}`, Accept: 'application/json' },
        }).then((answer) => { if (!answer.ok && answer.status !== 401 && answer.status !== 404) throw new Error(`HTTP ${answer.status}`); });
      } catch { continue; }
      localStorage.setItem(revokeKey, JSON.stringify(Api.revokesWaiting().filter((x) => x.token !== r.token)));
    }
  }

  /** The household's report page, in `language` (en, de: the app's). */
  async report(language = 'en') {
    return this.request('GET', this.householdPath(`/report?lang=${encodeURIComponent(language)}`), { accept: 'text/html' });
  }

  // Views (docs/HUB.md): the same JSON as `shop-replay view NAME --json`.

  /** A view; `fresh`: the hub's answer or a failure, never the copy kept for offline. */
  async view(name, options = {}, { fresh = false } = {}) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(options)) {
      if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
    }
    const suffix = query.toString() ? `?${query}` : '';
    const address = this.householdPath(`/views/${name}${suffix}`);
    try {
      const text = await this.request('GET', address, { fresh });
      this.lastSeen.set(address, text);
      return JSON.parse(text);
    } catch (error) {
      // Unreachable: the view as this page last got it (a service worker answers before this, where there is one).
      if (!fresh && error instanceof Unreachable && this.lastSeen.has(address)) return JSON.parse(this.lastSeen.get(address));
      throw error;
    }
  }

  // Sync (docs/SYNC.md over the route of docs/HUB.md): one request line, one answer.

  async sync(request, signal) {
    return this.request('POST', this.householdPath('/sync'), { body: `${JSON.stringify(request)}\n`, signal, accept: 'application/x-ndjson' });
  }

  /** The hub's head: `{seq, hash}`. */
  async hello() {
    const s = this.session;
    const answer = JSON.parse(await this.sync({ hello: { protocol: 1, device: s.device, actor: s.actor } }));
    return answer.hello.head;
  }

  /** Pushes commands; the hub decides them in order: one result each. */
  async push(commands) {
    const answer = JSON.parse(await this.sync({ push: { commands } }));
    if (answer.error) throw new HubFailure(400, answer.error.code, answer.error.message);
    return answer.results;
  }

  /** The lines after `seq` (whose line has `hash`), waiting up to `wait` seconds for one. */
  async pull(seq, hash, wait, signal) {
    const text = await this.sync({ pull: { after: seq, hash, wait } }, signal);
    const lines = text.split('\n').filter((line) => line.length > 0);
    const header = JSON.parse(lines.shift());
    if (header.error) throw new HubFailure(409, header.error.code, header.error.message);
    return { lines, more: header.more };
  }
}

/**
 * The SHA-256 of a journal line's bytes, in hex: how the chain names a line. The browser's own where it has
 * one (`crypto.subtle`, only in a secure context), else sha256.js's (the app over plain HTTP at home).
 */
export async function lineHash(line) {
  const bytes = new TextEncoder().encode(line);
  if (!globalThis.crypto?.subtle) return sha256Hex(bytes);
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
