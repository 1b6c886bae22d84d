// The model: the household as this browser knows it, the commands it sends,
// and the live connection that tells it when anything changed. Every rule is
// the hub's: a command goes to the hub, and its answer (accepted or refused
// with a code) is what the screen shows. A command waits in the outbox
// (IndexedDB) from the moment it is made until the hub answered it, so a
// phone without a network keeps working and sends everything, in order, when
// it is back (docs/APP.md, "Every command waits in an outbox"; docs/SYNC.md).
import { Api, HubFailure, Unreachable, lineHash } from './api.js';
import { Outbox } from './outbox.js';
import { batch, pushInHalves, sendRounds, sendAgain, firstPause, nextPause } from './outbox-laws.js';
import { needs, settle } from './names.js';
import { uuidV4 } from './ids.js';

/** Ids made here, as docs/APP.md says: every command and every thing it creates (also over plain HTTP: ids.js). */
export const newId = () => uuidV4();

export class Model extends EventTarget {
  constructor(api) {
    super();
    this.api = api;
    this.household = null;     // the `household` view: name, currency, zone, running trip
    this.head = null;          // {seq, hash} of the last line this browser knows
    this.online = true;
    this.stopped = false;
    this.controller = null;
    this.outbox = new Outbox();
    this.flushing = Promise.resolve();
    this.fresh = new Set();    // ids of commands made in this tab whose maker waits for their answer
    this.results = new Map();  // the hub's answers to them, by id
    this.living = false;
    this.wake = null;          // ends the live loop's pause at once (the network is back)
  }

  get session() { return this.api.session; }

  // Sign in

  /**
   * Starts a household: the hub enrols this device as `actor`, which becomes its first owner. If the
   * household's first commands are refused (a time zone the core does not know, say), the device stays
   * enrolled on that empty household and the next try pushes them again there: no second household is made.
   */
  async startHousehold({ name, currency, timeZone, actor, device }) {
    let session = this.api.session;
    if (!session || session.started !== false) {
      const enrolled = await this.api.createHousehold(device, actor);
      session = { household: enrolled.household, token: enrolled.token, actor: enrolled.actor, device, started: false };
      this.api.saveSession(session);
    }
    const results = await this.run([
      { type: 'CreateHousehold', data: { household: session.household, name, currency, timeZone } },
      { type: 'AddMember', data: { member: session.actor, role: 'owner' } },
    ]);
    const refused = results.find((r) => !r.ok);
    if (refused) throw new HubFailure(400, refused.error.code, refused.error.message);
    this.api.saveSession({ ...session, started: true });
  }

  /** A household whose first commands were refused: the device is enrolled, the household still empty. */
  get unstarted() { return this.api.session?.started === false; }

  async join({ code, device }) {
    const joined = await this.api.join(code.trim(), device);
    this.api.saveSession({ household: joined.household, token: joined.token, actor: joined.actor, device });
  }

  /**
   * Forgets this browser's token. `revoke`: asks the hub first to revoke it (a copy of it works no more);
   * what still waits in the outbox is then dropped (the person was told how much, and agreed). If the hub
   * cannot be reached, the token is kept aside, apart from the household's data, and revoked the next time
   * the app opens with a network (Api.revokeLater); answers false then. Without `revoke` (the hub refused
   * the token), what waits is kept: joined again to the household, the phone sends it. Either way the views
   * this browser kept go.
   */
  async signOut({ revoke = false } = {}) {
    this.stop();
    const session = this.api.session;
    let revoked = true;
    if (revoke && session) {
      try { await this.api.revoke(session.device); } catch (error) {
        // Already revoked (401): nothing more to do. Unreachable: revoked later.
        if (!(error instanceof HubFailure)) { this.api.revokeLater(session); revoked = false; }
      }
      await this.outbox.forget(session.household).catch(() => {});
    }
    await forgetViews(session?.household);
    this.api.forget(session?.token);
    // A view asked just before is kept by the service worker before it is answered: once answered, deleted too.
    await this.api.settled();
    await forgetViews(session?.household);
    this.reset();
    return revoked;
  }

  /** Another household open now (switched, or the one left after a sign-out): nothing of the last one's is kept here. */
  reset() {
    this.household = null;
    this.head = null;
  }

  // Commands

  /**
   * Commands made now: each gets an id made here and is kept in the outbox before anything is
   * shown; then the outbox is sent. Answers one result a command: the hub's, or `{pending: true}`
   * while the hub cannot be reached. A command refused now (the person is looking) leaves the
   * outbox with its refusal; one refused later (it waited) is kept until the person dismisses it.
   */
  async run(commands) {
    const household = this.session.household;
    const sent = commands.map((c) => ({ type: c.type, id: c.id ?? newId(), data: c.data }));
    // Made now: a refusal of one of these is answered to the person looking, whichever flush sends it.
    for (const c of sent) this.fresh.add(c.id);
    await this.outbox.add(sent.map((command, n) => ({ household, command, label: commands[n].label })));
    this.pendingChanged();
    await this.flush();
    const results = sent.map((c) => this.results.get(c.id) ?? { command: c.id, ok: true, pending: true });
    for (const c of sent) { this.fresh.delete(c.id); this.results.delete(c.id); }
    return results;
  }

  /** One command: its result (`pending` while offline), or a thrown HubFailure with the hub's code when refused. */
  async command(type, data, label) {
    const [result] = await this.run([{ type, data, label }]);
    if (!result.ok) throw new HubFailure(400, result.error.code, result.error.message);
    return result;
  }

  /** The household's waiting commands, oldest first. */
  pending() { return this.session ? this.outbox.all(this.session.household) : Promise.resolve([]); }

  /** Refusals of commands that had waited, kept until dismissed. */
  rejected() { return this.session ? this.outbox.rejected(this.session.household) : Promise.resolve([]); }

  async dismiss(n) { await this.outbox.dismiss(n); this.pendingChanged(); }

  pendingChanged() { this.dispatchEvent(new CustomEvent('pending')); }

  /**
   * Sends the outbox in order, one push at a time, in this tab and across the browser's tabs (a lock);
   * safe to interrupt anywhere and to repeat: the hub answers a command id it has from its record.
   */
  async flush() {
    const previous = this.flushing;
    let release;
    this.flushing = new Promise((resolve) => { release = resolve; });
    await previous;
    try {
      if (navigator.locks) await navigator.locks.request('shopevents-outbox', () => this.send());
      else await this.send();
    } finally {
      release();
      this.pendingChanged();
    }
  }

  async send() {
    const retries = new Map();   // a retry's id → the command it stands for
    const original = (command) => retries.get(command.id) ?? command.correlation ?? command.id;
    const isFresh = (entry) => this.fresh.has(original(entry.command));
    for (let round = 0; round < sendRounds && this.session; round++) {
      const all = await this.outbox.all(this.session.household);
      const waiting = batch(all);
      if (waiting.length === 0) break;
      const results = await this.pushed(waiting);
      if (!results) break;   // unreachable: everything stays
      // What a refusal means may depend on what the household holds now (an item of that name made meanwhile).
      const seen = await this.seen(needs(waiting, results, isFresh));
      if (!seen) break;      // the views could not be asked: the refused commands wait, and are pushed again
      let again = false, refused = 0;
      const done = [];
      for (const step of settle(all, results, seen, newId, isFresh)) {
        const entry = all.find((e) => e.n === step.n);
        const first = original(entry.command);
        if (step.step === 'done') { done.push(step.n); this.answer(first, step.result); }
        else if (step.step === 'send') {
          // Recorded in the outbox before it is sent.
          if (await this.outbox.replace(step.n, step.command)) { retries.set(step.command.id, first); again = true; }
        } else if (isFresh(entry)) {
          done.push(step.n);
          this.answer(first, { command: first, ok: false, error: step.error });
        } else {
          await this.outbox.reject(step.n, step.error);
          refused += 1;
        }
      }
      await this.outbox.remove(done);
      if (done.length) this.changed('push');
      // Again while anything moved (more may wait behind this push); never round and round on the same commands.
      if (!sendAgain({ resent: again, done: done.length, refused })) break;
    }
  }

  /**
   * What the hub's views say now, as `settle` needs it (names.js): the items, lists or locations by name, and
   * the entries of some lists; null while the hub cannot be reached.
   */
  async seen({ kinds, lists }) {
    const views = { item: 'all-items-by-name', list: 'lists', location: 'locations' };
    try {
      const seen = { entries: {} };
      for (const kind of kinds) {
        const answer = await this.api.view(views[kind], {}, { fresh: true });
        seen[`${kind}s`] = answer[kind === 'item' ? 'items' : `${kind}s`];
      }
      for (const list of lists) {
        const detail = await this.api.view('list-detail', { list }, { fresh: true }).catch((error) => {
          if (error instanceof HubFailure && error.status === 404) return { entries: [] };
          throw error;
        });
        seen.entries[list] = Object.fromEntries(detail.entries.filter((e) => !e.bought).map((e) => [e.item, e.quantity]));
      }
      return seen;
    } catch (error) {
      if (error instanceof Unreachable) { this.setOnline(false); return null; }
      return { entries: {} };   // the views refused (not unreachable): decided without them, as refusals to show
    }
  }

  answer(id, result) { if (this.fresh.has(id)) this.results.set(id, result); }

  /** One push of `waiting`: the hub's results by command id, or null while it cannot be reached (outbox-laws.js). */
  pushed(waiting) {
    return pushInHalves(waiting, async (commands) => {
      try {
        const results = await this.api.push(commands);
        this.setOnline(true);
        return { results };
      } catch (error) {
        if (error instanceof Unreachable) { this.setOnline(false); return null; }
        if (error instanceof HubFailure && error.status === 401) { this.dispatchEvent(new CustomEvent('signedOut', { detail: { code: error.code, session: error.session } })); return null; }
        if (error instanceof HubFailure) return { refused: { code: error.code, message: error.message } };
        throw error;
      }
    });
  }

  // Views

  view(name, options) { return this.api.view(name, options); }

  async refreshHousehold() {
    this.household = await this.api.view('household');
    return this.household;
  }

  get currency() { return this.household?.household?.currency ?? null; }
  get zone() { return this.household?.household?.timeZone ?? null; }

  // Live: a long poll on the sync route (docs/HUB.md says why not a stream).

  changed(why) { this.dispatchEvent(new CustomEvent('changed', { detail: why })); }

  setOnline(online) {
    if (this.online === online) return;
    this.online = online;
    this.dispatchEvent(new CustomEvent('online', { detail: online }));
    if (online) this.flush();   // back: what waited goes now
  }

  /** The network is back (the browser says so): try at once rather than after the pause. */
  retryNow() { this.wake?.(); }

  stop() {
    this.stopped = true;
    this.controller?.abort();
    this.wake?.();
  }

  /** Follows the open household's journal until stopped: each line that arrives is a change to show. */
  async live() {
    if (this.living) {
      if (!this.stopped) return;   // one long poll per tab
      await this.following;        // stopped (another household opened): that one ends first
      if (this.living) return;
    }
    this.living = true;
    this.following = (async () => { try { await this.follow(); } finally { this.living = false; } })();
    return this.following;
  }

  async follow() {
    this.stopped = false;
    let pause = firstPause, behind = false;
    while (!this.stopped && this.session) {
      try {
        if (!this.head) { this.head = await this.api.hello(); this.setOnline(true); }
        if (this.stopped) return;
        this.controller = new AbortController();
        // Catching up (more lines than one answer holds), or not yet sure the hub is reachable, asks without waiting:
        // a long poll answers only when something changes, and the outbox waits for the word that the hub is back.
        const { lines, more } = await this.api.pull(this.head.seq, this.head.hash, behind || !this.online ? 0 : 25, this.controller.signal);
        behind = more;
        this.setOnline(true);
        pause = firstPause;
        if (lines.length > 0) {
          const last = lines[lines.length - 1];
          this.head = { seq: JSON.parse(last).seq, hash: await lineHash(last) };
          if (!more) this.changed('live');
        }
      } catch (error) {
        if (error.name === 'AbortError' || this.stopped) return;
        if (error instanceof HubFailure && error.status === 401) {
          this.dispatchEvent(new CustomEvent('signedOut', { detail: { code: error.code, session: error.session } }));
          return;
        }
        if (error instanceof HubFailure && error.status === 409) { this.head = null; continue; }   // diverged: ask the head again
        if (error instanceof Unreachable || error instanceof HubFailure) this.setOnline(false);
        await new Promise((resolve) => { this.wake = resolve; setTimeout(resolve, pause); });
        this.wake = null;
        pause = nextPause(pause);
      }
    }
  }
}

/**
 * Sends what waits in the other households' outboxes on this phone (docs/APP.md, "Several households"),
 * each with its own session, one after the other: a household not open now loses nothing and waits for
 * nothing. A refusal is kept for that household, shown when it is opened.
 */
export async function sendOthers(open) {
  for (const session of Api.sessions().all) {
    if (session.household === open?.household) continue;
    const api = new Api();
    api.session = session;
    await new Model(api).flush().catch(() => {});
  }
}

/** Deletes the views the service worker kept for `household`, every session's of it (sw.js); the other households' stay. */
async function forgetViews(household) {
  if (!globalThis.caches || !household) return;
  const keys = await caches.keys().catch(() => []);
  await Promise.all(keys.filter((k) => k === 'views' || k.startsWith(`views-${household}-`)).map((k) => caches.delete(k).catch(() => {})));
}
