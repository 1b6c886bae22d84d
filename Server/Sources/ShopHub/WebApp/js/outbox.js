// The outbox: commands this browser made that the hub has not taken yet, kept
// in IndexedDB (docs/APP.md, "Every command waits in an outbox"). A command is written here, with its
// id, before the screen says anything about it; it leaves only when the hub
// answered it. Refusals a person has not seen yet are kept, with their
// message, until dismissed.

import { ordered } from './outbox-laws.js';

const name = 'shopevents';
const version = 1;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the outbox could not be written'));
  });
}

export class Outbox {
  /** `factory`: the browser's IndexedDB (a stand-in in tests). */
  constructor(factory = globalThis.indexedDB) {
    this.factory = factory;
    this.opened = null;
  }

  /**
   * The database, opened once and opened again when the browser closed it (storage cleared, the disk
   * full, a crash: `onclose`) or another version of the app needs it (`onversionchange`: closed here so
   * that one can upgrade), as idb-keyval does. An open that failed is tried again on the next call.
   */
  db() {
    if (!this.opened) {
      const opened = new Promise((resolve, reject) => {
        const open = this.factory.open(name, version);
        open.onupgradeneeded = () => {
          const db = open.result;
          // `n` orders the commands as they were made; the hub takes them in that order.
          db.createObjectStore('outbox', { keyPath: 'n', autoIncrement: true }).createIndex('household', 'household');
          db.createObjectStore('rejected', { keyPath: 'n', autoIncrement: true }).createIndex('household', 'household');
        };
        open.onsuccess = () => {
          const db = open.result;
          const forget = () => { if (this.opened === opened) this.opened = null; };
          db.onclose = forget;
          db.onversionchange = () => { db.close(); forget(); };
          resolve(db);
        };
        open.onerror = () => { if (this.opened === opened) this.opened = null; reject(open.error); };
      });
      this.opened = opened;
    }
    return this.opened;
  }

  /** Keeps `entries` ({household, command, label?}) in order; resolves once the transaction is committed. */
  async add(entries) {
    const db = await this.db();
    const tx = db.transaction('outbox', 'readwrite', { durability: 'strict' });
    const keys = entries.map((entry) => request(tx.objectStore('outbox').add({ ...entry, made: new Date().toISOString() })));
    await done(tx);
    return Promise.all(keys);
  }

  /** The household's waiting commands, oldest first. */
  async all(household) {
    const db = await this.db();
    const tx = db.transaction('outbox', 'readonly');
    const rows = await request(tx.objectStore('outbox').index('household').getAll(household));
    return ordered(rows);
  }

  async remove(keys) {
    const db = await this.db();
    const tx = db.transaction('outbox', 'readwrite', { durability: 'strict' });
    for (const key of keys) tx.objectStore('outbox').delete(key);
    await done(tx);
  }

  /** Puts `command` in place of the entry `n` (same place in the order), before it is sent again. */
  async replace(n, command) {
    const db = await this.db();
    const tx = db.transaction('outbox', 'readwrite', { durability: 'strict' });
    const store = tx.objectStore('outbox');
    const entry = await request(store.get(n));
    if (!entry) { await done(tx); return false; }   // answered meanwhile (another tab): nothing to put back
    store.put({ ...entry, command });
    await done(tx);
    return true;
  }

  /** Moves the entry `n` to the refusals kept for the person, with the hub's error. */
  async reject(n, error) {
    const db = await this.db();
    const tx = db.transaction(['outbox', 'rejected'], 'readwrite', { durability: 'strict' });
    const entry = await request(tx.objectStore('outbox').get(n));
    if (entry) {
      tx.objectStore('rejected').add({ household: entry.household, command: entry.command, label: entry.label, error, at: new Date().toISOString() });
      tx.objectStore('outbox').delete(n);
    }
    await done(tx);
  }

  async rejected(household) {
    const db = await this.db();
    const tx = db.transaction('rejected', 'readonly');
    return request(tx.objectStore('rejected').index('household').getAll(household));
  }

  async dismiss(n) {
    const db = await this.db();
    const tx = db.transaction('rejected', 'readwrite');
    tx.objectStore('rejected').delete(n);
    await done(tx);
  }

  /** Forgets everything of a household (signing out). */
  async forget(household) {
    const db = await this.db();
    const tx = db.transaction(['outbox', 'rejected'], 'readwrite');
    for (const store of ['outbox', 'rejected']) {
      for (const key of await request(tx.objectStore(store).index('household').getAllKeys(household))) tx.objectStore(store).delete(key);
    }
    await done(tx);
  }
}
