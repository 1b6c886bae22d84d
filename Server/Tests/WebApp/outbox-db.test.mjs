// The outbox's database (js/outbox.js) opened again when the browser closes it or another version of the app
// needs it, as idb-keyval does; an open that failed is tried again. IndexedDB is a stand-in here.
// Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Outbox } from '../../Sources/ShopHub/WebApp/js/outbox.js';

/** An IndexedDB stand-in: each open answers on the next turn, failing while `failing` says so. */
function factory() {
  const opened = [];
  const stand = {
    opened, failing: false,
    open(name, version) {
      const db = { name, version, closed: 0, stores: [], close() { this.closed += 1; },
        createObjectStore(store) { this.stores.push(store); return { createIndex() {} }; } };
      const request = {};
      const fail = stand.failing;
      setTimeout(() => {
        if (fail) { request.error = new Error('quota'); request.onerror(); return; }
        request.result = db;
        if (opened.filter((d) => d).length === 0) request.onupgradeneeded();
        opened.push(db);
        request.onsuccess();
      }, 0);
      return request;
    },
  };
  return stand;
}

test('opened once, the stores made on the first open; the same database for every call meanwhile', async () => {
  const idb = factory();
  const outbox = new Outbox(idb);
  const [a, b] = await Promise.all([outbox.db(), outbox.db()]);
  assert.equal(a, b);
  assert.equal(await outbox.db(), a);
  assert.equal(idb.opened.length, 1);
  assert.deepEqual({ name: a.name, version: a.version, stores: a.stores }, { name: 'shopevents', version: 1, stores: ['outbox', 'rejected'] });
});

test('closed by the browser (onclose): the next call opens it again', async () => {
  const idb = factory();
  const outbox = new Outbox(idb);
  const first = await outbox.db();
  first.onclose();
  const second = await outbox.db();
  assert.notEqual(second, first);
  assert.equal(idb.opened.length, 2);
  assert.equal(await outbox.db(), second);
  first.onclose();   // the old one's late word changes nothing
  assert.equal(await outbox.db(), second);
  assert.equal(idb.opened.length, 2);
});

test('another version wants it (onversionchange): closed here, and opened again on the next call', async () => {
  const idb = factory();
  const outbox = new Outbox(idb);
  const first = await outbox.db();
  first.onversionchange();
  assert.equal(first.closed, 1);
  const second = await outbox.db();
  assert.notEqual(second, first);
  assert.equal(second.closed, 0);
  assert.equal(idb.opened.length, 2);
});

test('an open that failed: the error answered, and the next call tries again', async () => {
  const idb = factory();
  idb.failing = true;
  const outbox = new Outbox(idb);
  await assert.rejects(outbox.db(), { message: 'quota' });
  idb.failing = false;
  const db = await outbox.db();
  assert.equal(idb.opened.length, 1);
  assert.equal(await outbox.db(), db);
});
