// Ids made on the phone (docs/APP.md): random UUIDs, version 4 (RFC 4122), upper case as the core writes them.
// Made from `crypto.getRandomValues`, which every browser has also where the page is no secure context
// (the app over plain HTTP at a home address has no `crypto.randomUUID`). Pure: nothing done at import.

/** A version 4 UUID from 16 random bytes given by `fill` (the platform's getRandomValues, or a stand-in in tests). */
export function uuidV4(fill = (bytes) => globalThis.crypto.getRandomValues(bytes)) {
  const b = new Uint8Array(16);
  fill(b);
  b[6] = (b[6] & 0x0f) | 0x40;   // version 4
  b[8] = (b[8] & 0x3f) | 0x80;   // variant 10xx (RFC 4122)
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toUpperCase();
}
