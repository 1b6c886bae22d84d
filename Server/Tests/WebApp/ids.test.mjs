// Ids made on the phone without crypto.randomUUID (js/ids.js) and the line hash without crypto.subtle
// (js/sha256.js), without a browser. Run: node --test Server/Tests/WebApp/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { uuidV4 } from '../../Sources/ShopHub/WebApp/js/ids.js';
import { sha256, sha256Hex } from '../../Sources/ShopHub/WebApp/js/sha256.js';

const format = /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/;

test('an id is a version 4 UUID in upper case, from getRandomValues', () => {
  for (let n = 0; n < 1000; n++) assert.match(uuidV4(), format);
  const ids = new Set(Array.from({ length: 1000 }, () => uuidV4()));
  assert.equal(ids.size, 1000);
});

test('the version and variant bits are set whatever the random bytes are', () => {
  assert.equal(uuidV4((b) => b.fill(0xff)), 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF');
  assert.equal(uuidV4((b) => b.fill(0x00)), '00000000-0000-4000-8000-000000000000');
  assert.equal(uuidV4((b) => b.forEach((_, i) => { b[i] = i * 17; })), '00112233-4455-4677-8899-AABBCCDDEEFF');
});

test('the id does not use crypto.randomUUID', () => {
  const randomUUID = globalThis.crypto.randomUUID;
  Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
  try { assert.match(uuidV4(), format); } finally {
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: randomUUID, configurable: true });
  }
});

const node = (bytes) => createHash('sha256').update(bytes).digest('hex');

test('SHA-256 of known vectors', () => {
  assert.equal(sha256Hex(new Uint8Array()), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(sha256Hex(new TextEncoder().encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(sha256Hex(new TextEncoder().encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  assert.equal(sha256(new Uint8Array(3)).length, 32);
});

test('SHA-256 as node computes it, at every length around the block boundaries', () => {
  for (let length = 0; length <= 200; length++) {
    const bytes = randomBytes(length);
    assert.equal(sha256Hex(new Uint8Array(bytes)), node(bytes), `length ${length}`);
  }
  for (const length of [55, 56, 63, 64, 65, 119, 120, 128]) {
    const bytes = new Uint8Array(length).fill(0x61);
    assert.equal(sha256Hex(bytes), node(bytes), `length ${length} of "a"`);
  }
});

test('SHA-256 of multi-byte UTF-8 text, as a journal line is hashed', () => {
  for (const text of ['Äpfel', 'Grüße aus München 🍞', '{"seq":1,"data":{"name":"Käse – 🧀"}}', '日本語のテキスト'.repeat(20)]) {
    const bytes = new TextEncoder().encode(text);
    assert.equal(sha256Hex(bytes), node(bytes), text);
  }
});

test('SHA-256 of a megabyte and of many random inputs', () => {
  const big = randomBytes(1024 * 1024);
  assert.equal(sha256Hex(new Uint8Array(big)), node(big));
  for (let n = 0; n < 300; n++) {
    const bytes = randomBytes(Math.floor(Math.random() * 3000));
    assert.equal(sha256Hex(new Uint8Array(bytes)), node(bytes));
  }
});
