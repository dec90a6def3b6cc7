/* support/hash.c — 64-bit FNV-1a, used for cache keys and interning.
 * Not cryptographic: cache entries also carry a length and are compared
 * against their full key text before use. */
#include "support.h"

#include <string.h>

uint64_t kg_hash64(const void *data, size_t n, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}
uint64_t kg_hash_str(const char *s) { return kg_hash64(s, strlen(s), 0); }
void kg_hash_hex(uint64_t h, char out[17]) {
  static const char hx[] = "0123456789abcdef";
  for (int i = 15; i >= 0; i--, h >>= 4) out[i] = hx[h & 15];
  out[16] = 0;
}
