// The model: the household as this browser knows it, the commands it sends,
// and the live connection that tells it when anything changed. Every rule is
// the hub's: a command goes to the hub, and its answer (accepted or refused
// with a code) is what the screen shows.
import { HubFailure, Unreachable, lineHash } from './store.js';

/** Ids made here, as SPEC 12 asks: every command and every thing it creates. */
export const newId = () => crypto.randomUUID().toUpperCase();

export class Model extends EventTarget {
  constructor(store) {
    super();
    this.store = store;
    this.household = null;     // the `household` view: name, currency, zone, running trip
    this.head = null;          // {seq, hash} of the last line this browser knows
    this.online = true;
    this.stopped = false;
    this.controller = null;
  }

  get session() { return this.store.session; }

  // Sign in

  /**
   * Starts a household: the hub enrols this device as `actor`, which becomes its first owner. If the
   * household's first commands are refused (a time zone the core does not know, say), the device stays
   * enrolled on that empty household and the next try pushes them again there: no second household is made.
   */
  async startHousehold({ name, currency, timeZone, actor, device }) {
    let session = this.store.session;
    if (!session || session.started !== false) {
      const enrolled = await this.store.createHousehold(device, actor);
      session = { household: enrolled.household, token: enrolled.token, actor: enrolled.actor, device, started: false };
      this.store.saveSession(session);
    }
    const results = await this.run([
      { type: 'CreateHousehold', data: { household: session.household, name, currency, timeZone } },
      { type: 'AddMember', data: { member: session.actor, role: 'owner' } },
    ]);
    const refused = results.find((r) => !r.ok);
    if (refused) throw new HubFailure(400, refused.error.code, refused.error.message);
    this.store.saveSession({ ...session, started: true });
  }

  /** A household whose first commands were refused: the device is enrolled, the household still empty. */
  get unstarted() { return this.store.session?.started === false; }

  async join({ code, device }) {
    const joined = await this.store.join(code.trim(), device);
    this.store.saveSession({ household: joined.household, token: joined.token, actor: joined.actor, device });
  }

  /** Forgets this browser's token; with `revoke`, asks the hub first to revoke it (a copy of it works no more). */
  async signOut({ revoke = false } = {}) {
    this.stop();
    if (revoke && this.store.session) {
      try { await this.store.revoke(this.store.session.device); } catch { /* already revoked, or unreachable: forgotten all the same */ }
    }
    this.store.forget();
    this.household = null;
    this.head = null;
  }

  // Commands

  /**
   * Sends commands in one push; each gets an id made here. Answers the hub's
   * results, one a command. A refused command changed nothing.
   */
  async run(commands) {
    const sent = commands.map((c) => ({ type: c.type, id: c.id ?? newId(), data: c.data }));
    const results = await this.store.push(sent);
    if (results.some((r) => r.ok)) this.changed('push');
    return results;
  }

  /** One command: its result, or a thrown HubFailure with the hub's code when refused. */
  async command(type, data) {
    const [result] = await this.run([{ type, data }]);
    if (!result.ok) throw new HubFailure(400, result.error.code, result.error.message);
    return result;
  }

  // Views

  view(name, options) { return this.store.view(name, options); }

  async refreshHousehold() {
    this.household = await this.store.view('household');
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
  }

  stop() {
    this.stopped = true;
    this.controller?.abort();
  }

  /** Follows the household's journal until stopped: each line that arrives is a change to show. */
  async live() {
    this.stopped = false;
    let pause = 1000, behind = false;
    while (!this.stopped && this.session) {
      try {
        if (!this.head) this.head = await this.store.hello();
        this.controller = new AbortController();
        // Catching up (more lines than one answer holds) asks without waiting.
        const { lines, more } = await this.store.pull(this.head.seq, this.head.hash, behind ? 0 : 25, this.controller.signal);
        behind = more;
        this.setOnline(true);
        pause = 1000;
        if (lines.length > 0) {
          const last = lines[lines.length - 1];
          this.head = { seq: JSON.parse(last).seq, hash: await lineHash(last) };
          if (!more) this.changed('live');
        }
      } catch (error) {
        if (error.name === 'AbortError' || this.stopped) return;
        if (error instanceof HubFailure && error.status === 401) {
          this.dispatchEvent(new CustomEvent('signedOut'));
          return;
        }
        if (error instanceof HubFailure && error.status === 409) { this.head = null; continue; }   // diverged: ask the head again
        if (error instanceof Unreachable || error instanceof HubFailure) this.setOnline(false);
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, 10000);
      }
    }
  }
}
