// SHA-256 with the CPU's SHA extensions (x86-64 SHA-NI), for the journal's
// hash chain. The Swift code in ShopEvents keeps the portable implementation
// and uses this only when the CPU has the instructions; tests check both
// against the NIST vectors. No library is used: the compiler's intrinsics only.
#include "CShopSHA.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

int shopevents_sha256_has_extensions(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    int sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}

static const uint32_t K[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

// The round loops unrolled in full, so that the message words stay in
// registers and each group's index into them is a constant: left as loops,
// the compiler kept the four words on the stack and computed every index.
#define UNROLLED(n) _Pragma(UNROLL_TEXT(GCC unroll n))
#define UNROLL_TEXT(x) #x

// The instructions keep the state as two registers, ABEF and CDGH.
SHA_TARGET static inline void load(const uint32_t state[8], __m128i *abef, __m128i *cdgh) {
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    *abef = _mm_alignr_epi8(cdab, efgh, 8);
    *cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
}

SHA_TARGET static inline void store(uint32_t state[8], __m128i abef, __m128i cdgh) {
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));   // DCBA
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));      // HGFE
}

SHA_TARGET static inline void words(__m128i m[4], const uint8_t *block) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    UNROLLED(4)
    for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * i)), byteSwap);
}

// W[t] for the next four t of round group i (4 ≤ i < 16): σ0 and W[t-16] (msg1), W[t-7] (alignr), σ1 (msg2).
SHA_TARGET static inline void schedule(__m128i m[4], int i) {
    __m128i x = _mm_sha256msg1_epu32(m[i & 3], m[(i + 1) & 3]);
    x = _mm_add_epi32(x, _mm_alignr_epi8(m[(i + 3) & 3], m[(i + 2) & 3], 4));
    m[i & 3] = _mm_sha256msg2_epu32(x, m[(i + 3) & 3]);
}

SHA_TARGET static inline void compress(__m128i *abef, __m128i *cdgh, const uint8_t *block) {
    const __m128i a = *abef, c = *cdgh;
    __m128i m[4];
    words(m, block);
    UNROLLED(16)
    for (int i = 0; i < 16; i++) {
        if (i >= 4) schedule(m, i);
        __m128i msg = _mm_add_epi32(m[i & 3], _mm_load_si128((const __m128i *)&K[4 * i]));
        *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, msg);
        *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, _mm_shuffle_epi32(msg, 0x0E));
    }
    *abef = _mm_add_epi32(*abef, a);
    *cdgh = _mm_add_epi32(*cdgh, c);
}

// One block of each of two messages, their rounds interleaved: each round
// waits on the one before it, so a single message leaves the SHA unit idle
// between them, and a second one fills those cycles.
SHA_TARGET static inline void compressTwo(__m128i *abefA, __m128i *cdghA, const uint8_t *blockA,
                                          __m128i *abefB, __m128i *cdghB, const uint8_t *blockB) {
    const __m128i a = *abefA, c = *cdghA, b = *abefB, d = *cdghB;
    __m128i m[4], n[4];
    words(m, blockA);
    words(n, blockB);
    UNROLLED(16)
    for (int i = 0; i < 16; i++) {
        if (i >= 4) { schedule(m, i); schedule(n, i); }
        const __m128i k = _mm_load_si128((const __m128i *)&K[4 * i]);
        __m128i msgA = _mm_add_epi32(m[i & 3], k), msgB = _mm_add_epi32(n[i & 3], k);
        *cdghA = _mm_sha256rnds2_epu32(*cdghA, *abefA, msgA);
        *cdghB = _mm_sha256rnds2_epu32(*cdghB, *abefB, msgB);
        *abefA = _mm_sha256rnds2_epu32(*abefA, *cdghA, _mm_shuffle_epi32(msgA, 0x0E));
        *abefB = _mm_sha256rnds2_epu32(*abefB, *cdghB, _mm_shuffle_epi32(msgB, 0x0E));
    }
    *abefA = _mm_add_epi32(*abefA, a);
    *cdghA = _mm_add_epi32(*cdghA, c);
    *abefB = _mm_add_epi32(*abefB, b);
    *cdghB = _mm_add_epi32(*cdghB, d);
}

SHA_TARGET void shopevents_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    __m128i abef, cdgh;
    load(state, &abef, &cdgh);
    for (size_t i = 0; i < blocks; i++) compress(&abef, &cdgh, data + 64 * i);
    store(state, abef, cdgh);
}

// A whole message as blocks: its whole 64-byte blocks where they are, then
// its last bytes, the 0x80, the zeros and the bit length in `tail` (one or
// two blocks).
struct message {
    const uint8_t *data;
    size_t whole, blocks;
    uint8_t tail[128];
};

static void prepare(struct message *message, const uint8_t *data, size_t length) {
    size_t rest = length % 64;
    message->data = data;
    message->whole = length / 64;
    memset(message->tail, 0, sizeof message->tail);
    if (rest > 0) memcpy(message->tail, data + length - rest, rest);
    message->tail[rest] = 0x80;
    size_t tailBlocks = rest < 56 ? 1 : 2;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) message->tail[tailBlocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
    message->blocks = message->whole + tailBlocks;
}

static inline const uint8_t *block(const struct message *message, size_t i) {
    return i < message->whole ? message->data + 64 * i : message->tail + 64 * (i - message->whole);
}

SHA_TARGET void shopevents_sha256_two(uint32_t stateA[8], const uint8_t *a, size_t lengthA,
                                      uint32_t stateB[8], const uint8_t *b, size_t lengthB) {
    struct message ma, mb;
    prepare(&ma, a, lengthA);
    prepare(&mb, b, lengthB);
    __m128i abefA, cdghA, abefB, cdghB;
    load(stateA, &abefA, &cdghA);
    load(stateB, &abefB, &cdghB);
    size_t both = ma.blocks < mb.blocks ? ma.blocks : mb.blocks, i = 0;
    for (; i < both; i++) compressTwo(&abefA, &cdghA, block(&ma, i), &abefB, &cdghB, block(&mb, i));
    for (size_t j = i; j < ma.blocks; j++) compress(&abefA, &cdghA, block(&ma, j));
    for (size_t j = i; j < mb.blocks; j++) compress(&abefB, &cdghB, block(&mb, j));
    store(stateA, abefA, cdghA);
    store(stateB, abefB, cdghB);
}

#else

int shopevents_sha256_has_extensions(void) { return 0; }

void shopevents_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
}

void shopevents_sha256_two(uint32_t stateA[8], const uint8_t *a, size_t lengthA,
                           uint32_t stateB[8], const uint8_t *b, size_t lengthB) {
    (void)stateA; (void)a; (void)lengthA; (void)stateB; (void)b; (void)lengthB;
}

#endif
