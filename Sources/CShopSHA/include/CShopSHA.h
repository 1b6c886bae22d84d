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

#endif
