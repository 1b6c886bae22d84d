// Hex digits to bytes with the CPU's vector instructions (x86-64 SSSE3 and
// SSE4.1), for the journal's ids and hashes: a line holds six UUIDs and a
// SHA-256 in hex, and the reader turns each into bytes. The Swift code keeps
// the portable way (eight digits at a time in a 64-bit word) and uses these
// only when the CPU has the instructions; tests check both give the same on
// every byte value in every position.
#include "CShopSHA.h"

int shopevents_features_found = 0;

int shopevents_find_features(void) {
    int found = SHOPEVENTS_FEATURES_FOUND
        | (shopevents_hex_has_vectors() ? SHOPEVENTS_HEX_VECTORS : 0)
        | (shopevents_sha256_has_extensions() ? SHOPEVENTS_SHA_EXTENSIONS : 0);
    __atomic_store_n(&shopevents_features_found, found, __ATOMIC_RELAXED);
    return found;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>

int shopevents_hex_has_vectors(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return ((c >> 9) & 1) && ((c >> 19) & 1);   // SSSE3, SSE4.1
}

#define HEX_TARGET __attribute__((target("sse4.1,ssse3")))

// Sixteen hex digits to their values (0…15), any case; a lane that is not a
// hex digit sets its byte in `bad`.
HEX_TARGET static inline __m128i nibbles(__m128i c, __m128i *bad) {
    const __m128i digit = _mm_sub_epi8(c, _mm_set1_epi8('0'));
    const __m128i letter = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    // Unsigned x ≤ n exactly when min(x, n) == x: digits '0'…'9', letters 'a'…'f' and 'A'…'F' (0x20 folds the case).
    const __m128i isDigit = _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit);
    const __m128i isLetter = _mm_cmpeq_epi8(_mm_min_epu8(letter, _mm_set1_epi8(5)), letter);
    *bad = _mm_or_si128(*bad, _mm_cmpeq_epi8(_mm_or_si128(isDigit, isLetter), _mm_setzero_si128()));
    return _mm_blendv_epi8(_mm_add_epi8(letter, _mm_set1_epi8(10)), digit, isDigit);
}

// Two vectors of sixteen nibbles, high nibble first, to sixteen bytes.
HEX_TARGET static inline __m128i bytes(__m128i first, __m128i second) {
    const __m128i weights = _mm_set1_epi16(0x0110);   // each pair: 16 × its first + its second
    return _mm_packus_epi16(_mm_maddubs_epi16(first, weights), _mm_maddubs_epi16(second, weights));
}

HEX_TARGET int shopevents_parse_uuid(const uint8_t *text, uint8_t out[16]) {
    if (text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') return 0;
    const __m128i at0 = _mm_loadu_si128((const __m128i *)text);          // text[0…15]
    const __m128i at16 = _mm_loadu_si128((const __m128i *)(text + 16));  // text[16…31]
    const __m128i at20 = _mm_loadu_si128((const __m128i *)(text + 20));  // text[20…35]
    // The 32 digits without their dashes: 0…7, 9…12, 14…17 | 19…22, 24…35 (-1 leaves a lane zero).
    const __m128i first = _mm_or_si128(
        _mm_shuffle_epi8(at0, _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, -1, -1)),
        _mm_shuffle_epi8(at16, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1)));
    const __m128i second = _mm_or_si128(
        _mm_shuffle_epi8(at16, _mm_setr_epi8(3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1)),
        _mm_shuffle_epi8(at20, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 13, 14, 15)));
    __m128i bad = _mm_setzero_si128();
    const __m128i a = nibbles(first, &bad), b = nibbles(second, &bad);
    if (!_mm_testz_si128(bad, bad)) return 0;
    _mm_storeu_si128((__m128i *)out, bytes(a, b));
    return 1;
}

HEX_TARGET int shopevents_parse_hex32(const uint8_t *text, uint8_t out[32]) {
    __m128i bad = _mm_setzero_si128();
    const __m128i a = nibbles(_mm_loadu_si128((const __m128i *)text), &bad);
    const __m128i b = nibbles(_mm_loadu_si128((const __m128i *)(text + 16)), &bad);
    const __m128i c = nibbles(_mm_loadu_si128((const __m128i *)(text + 32)), &bad);
    const __m128i d = nibbles(_mm_loadu_si128((const __m128i *)(text + 48)), &bad);
    if (!_mm_testz_si128(bad, bad)) return 0;
    _mm_storeu_si128((__m128i *)out, bytes(a, b));
    _mm_storeu_si128((__m128i *)(out + 16), bytes(c, d));
    return 1;
}

#else

int shopevents_hex_has_vectors(void) { return 0; }
int shopevents_parse_uuid(const uint8_t *text, uint8_t out[16]) { (void)text; (void)out; return 0; }
int shopevents_parse_hex32(const uint8_t *text, uint8_t out[32]) { (void)text; (void)out; return 0; }

#endif
