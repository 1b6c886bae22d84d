#ifndef CSHOPSHA_H
#define CSHOPSHA_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions this file uses (x86-64 SHA-NI with
/// SSSE3 and SSE4.1), else 0: then the caller uses its portable code.
int shopevents_sha256_has_extensions(void);

/// Folds `blocks` 64-byte blocks at `data` into `state` (a, b, …, h) with the
/// CPU's SHA instructions. Call only when `shopevents_sha256_has_extensions()`.
void shopevents_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// Hashes two whole messages side by side: `stateA` and `stateB` hold the
/// initial state when called and the final one after (the padding is done
/// here). Their rounds interleaved, two take about two thirds of the time of
/// one after the other. Call only when `shopevents_sha256_has_extensions()`.
void shopevents_sha256_two(uint32_t stateA[8], const uint8_t *a, size_t lengthA,
                           uint32_t stateB[8], const uint8_t *b, size_t lengthB);

/// 1 when this CPU has the vector instructions the hex parsers use (x86-64
/// SSSE3 and SSE4.1), else 0: then the caller uses its portable code.
int shopevents_hex_has_vectors(void);

/// Parses the 36 bytes at `text` as a UUID (`8-4-4-4-12` hex digits, any
/// case) into `out`: 1 if they are one, else 0 (`out` then undefined). Reads
/// exactly those 36 bytes. Call only when `shopevents_hex_has_vectors()`.
int shopevents_parse_uuid(const uint8_t *text, uint8_t out[16]);

/// Parses the 64 hex digits (any case) at `text` into 32 bytes: 1 if they
/// are all hex digits, else 0. Call only when `shopevents_hex_has_vectors()`.
int shopevents_parse_hex32(const uint8_t *text, uint8_t out[32]);

/// Bits of ``shopevents_features()``: the CPU's features found (always set
/// once they are), its hex vector instructions, its SHA extensions.
#define SHOPEVENTS_FEATURES_FOUND 1
#define SHOPEVENTS_HEX_VECTORS 2
#define SHOPEVENTS_SHA_EXTENSIONS 4

/// What `shopevents_features()` found; 0 until the first call. Not for callers.
extern int shopevents_features_found;

/// Finds the CPU's features, keeps and returns them. Not for callers.
int shopevents_find_features(void);

/// The CPU's features (the bits above), found on the first call. A load and a
/// test after that, where a Swift `static let` read on the hot path is a call
/// into the runtime (`swift_once`) on every read on Linux.
static inline int shopevents_features(void) {
    int found = __atomic_load_n(&shopevents_features_found, __ATOMIC_RELAXED);
    return found ? found : shopevents_find_features();
}

#endif
