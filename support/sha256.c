/* support/sha256.c — SHA-256 (FIPS 180-4), for content hashes that must not collide by
 * accident or by design: offline kernel packages (runtime/package_*.c) name their sections
 * and themselves by it. Plain C, no tables beyond the round constants; about 200 MB/s — and on
 * x86-64 CPUs with the SHA extensions (Intel since Ice Lake / Goldmont, AMD since Zen) the same
 * compression function on SHA-NI instructions, picked at run time, about 1.5 GB/s: checking a
 * large package's plan section on first use was a sixth of its specialization (docs/perf.md).
 * tests/test_package.c checks both paths against each other and the FIPS vectors. */
#include "support.h"

#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KG_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
    0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
    0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
    0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
    0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
    0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++) w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

#ifdef KG_SHA_NI
/* nb blocks on the SHA extensions: the state as ABEF / CDGH, four rounds per step, the message
 * schedule by sha256msg1/msg2 (W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]) */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_ni(uint32_t h[8], const unsigned char *p, size_t nb) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
  __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
  __m128i s0 = _mm_alignr_epi8(t, s1, 8);                                      /* ABEF */
  s1 = _mm_blend_epi16(s1, t, 0xF0);                                           /* CDGH */
  for (; nb; nb--, p += 64) {
    __m128i a0 = s0, c0 = s1, m[4];
    for (int g = 0; g < 16; g++) {
      if (g < 4) {
        m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
      } else {
        __m128i x = _mm_sha256msg1_epu32(m[g & 3], m[(g + 1) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(m[(g + 3) & 3], m[(g + 2) & 3], 4));
        m[g & 3] = _mm_sha256msg2_epu32(x, m[(g + 3) & 3]);
      }
      __m128i wk = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
      s1 = _mm_sha256rnds2_epu32(s1, s0, wk);
      s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(wk, 0x0E));
    }
    s0 = _mm_add_epi32(s0, a0), s1 = _mm_add_epi32(s1, c0);
  }
  t = _mm_shuffle_epi32(s0, 0x1B);  /* FEBA */
  s1 = _mm_shuffle_epi32(s1, 0xB1); /* DCHG */
  _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, s1, 0xF0)); /* DCBA */
  _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(s1, t, 8));    /* HGFE */
}
#endif

#ifdef KG_SHA_NI
/* CPUID: SHA (leaf 7 EBX bit 29), SSE4.1 and SSSE3 (leaf 1 ECX bits 19, 9); asked once (clang 14's
 * __builtin_cpu_supports knows no "sha") */
static bool has_sha_ni(void) {
  static _Atomic int known; /* 0: not asked yet, 1: no, 2: yes */
  int k = known;
  if (!k) {
    unsigned a, b, c, d;
    bool sse = __get_cpuid(1, &a, &b, &c, &d) && (c >> 19 & 1) && (c >> 9 & 1);
    bool sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 29 & 1);
    known = k = sse && sha ? 2 : 1;
  }
  return k == 2;
}
#endif

/* nb whole blocks, on the SHA extensions where the CPU has them (force_plain: the C rounds) */
static void blocks(uint32_t h[8], const unsigned char *p, size_t nb, int force_plain) {
#ifdef KG_SHA_NI
  if (!force_plain && nb && has_sha_ni()) {
    blocks_ni(h, p, nb);
    return;
  }
#endif
  (void)force_plain;
  for (; nb; nb--, p += 64) block(h, p);
}

void kg_sha256_impl(const void *data, size_t n, unsigned char out[32], int force_plain) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const unsigned char *p = data;
  size_t i = n / 64 * 64;
  blocks(h, p, n / 64, force_plain);
  unsigned char tail[128];
  size_t r = n - i;
  memset(tail, 0, sizeof tail);
  if (r) memcpy(tail, p + i, r);
  tail[r] = 0x80;
  size_t tl = r + 9 <= 64 ? 64 : 128;
  uint64_t bits = (uint64_t)n * 8;
  for (int j = 0; j < 8; j++) tail[tl - 1 - j] = (unsigned char)(bits >> (8 * j));
  blocks(h, tail, tl / 64, force_plain);
  for (int j = 0; j < 8; j++) out[4 * j] = (unsigned char)(h[j] >> 24), out[4 * j + 1] = (unsigned char)(h[j] >> 16),
                              out[4 * j + 2] = (unsigned char)(h[j] >> 8), out[4 * j + 3] = (unsigned char)h[j];
}

void kg_sha256(const void *data, size_t n, unsigned char out[32]) { kg_sha256_impl(data, n, out, 0); }

void kg_sha256_hex(const void *data, size_t n, char out[65]) {
  static const char hx[] = "0123456789abcdef";
  unsigned char d[32];
  kg_sha256(data, n, d);
  for (int j = 0; j < 32; j++) out[2 * j] = hx[d[j] >> 4], out[2 * j + 1] = hx[d[j] & 15];
  out[64] = 0;
}
