/* runtime/package_json.c — the package reader's JSON parser: a package's manifest, plan and
 * launch-metadata sections parsed into cJSON-shaped nodes that live in one arena.
 *
 * Why not cJSON_Parse: a large plan (googlenet's: 709 KB, ~60 000 values) cost cJSON one
 * malloc per value and per string, strtod per number and a free per value after — about half
 * of a package's specialization time (docs/perf.md). Here the nodes come in slabs out of a
 * kg_arena the caller frees in one call, the strings go into one buffer of the text's length,
 * integers are read without strtod, and strings without escapes are copied with memcpy. The nodes are laid out as cJSON's (same struct, same
 * type bits, `valueint` saturated as cJSON does), so the readers (runtime/package_ir.c,
 * package_load.c, package_read.c) walk them with the cJSON accessors unchanged; they must never
 * be given to cJSON_Delete.
 *
 * Strict RFC 8259 JSON (unlike cJSON, which accepts trailing bytes and raw control characters):
 * one value, whitespace around it, nesting at most KG_PKJ_DEPTH deep; `\u0000` is refused (a
 * C string cannot hold it). A violation is an error naming its byte offset, never a crash.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

#define KG_PKJ_DEPTH 256

typedef struct pj {
  const char *s, *end;
  kg_arena *a;
  cJSON *nodes;  /* the current slab of nodes (zeroed), and how many are left in it */
  size_t n_left;
  char *sb;      /* the strings: one buffer of the text's length (a string's decoded bytes and
                    its NUL never exceed its quoted source) */
  const char *base;
  char *err;
  size_t errcap;
  int depth;
} pj;

static cJSON *perr(pj *P, const char *at, const char *what) {
  if (P->err && !P->err[0]) snprintf(P->err, P->errcap, "%s at byte %zu", what, (size_t)(at - P->base));
  return NULL;
}

static void ws(pj *P) {
  while (P->s < P->end && (*P->s == ' ' || *P->s == '\n' || *P->s == '\r' || *P->s == '\t')) P->s++;
}

static cJSON *node(pj *P) {
  if (!P->n_left) P->nodes = kg_arena_alloc(P->a, 512 * sizeof(cJSON)), P->n_left = 512;
  return P->n_left--, P->nodes++;
}

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v << 4 | d;
  }
  return v;
}

/* a string at P->s (its opening quote): NUL-terminated, in the arena */
static char *str(pj *P) {
  const char *q = ++P->s, *e = P->end;
  const char *r = q;
  /* eight bytes at a time while none is a quote, a backslash or a control character */
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  for (; e - r >= 8; r += 8) {
    uint64_t w;
    memcpy(&w, r, 8);
    uint64_t xq = w ^ (ones * '"'), xb = w ^ (ones * '\\');
    uint64_t hit = ((xq - ones) & ~xq) | ((xb - ones) & ~xb) | ((w - ones * 0x20) & ~w);
    if (hit & highs) break;
  }
  while (r < e && *r != '"' && *r != '\\' && (unsigned char)*r >= 0x20) r++;
  if (r < e && *r == '"') { /* no escapes: the common case */
    char *o = P->sb;
    memcpy(o, q, (size_t)(r - q));
    o[r - q] = 0;
    P->sb += r - q + 1;
    P->s = r + 1;
    return o;
  }
  /* escapes: the decoded text is never longer than the source */
  const char *t = r;
  while (t < e && *t != '"') t += *t == '\\' && t + 1 < e ? 2 : 1;
  if (t >= e) return perr(P, q - 1, "unterminated string"), NULL;
  char *o = P->sb, *w = o;
  memcpy(w, q, (size_t)(r - q));
  w += r - q;
  for (const char *p = r; p < t;) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20) return perr(P, p, "a control character in a string"), NULL;
    if (c != '\\') {
      *w++ = (char)c, p++;
      continue;
    }
    char x = p[1];
    p += 2;
    switch (x) {
    case '"': *w++ = '"'; break;
    case '\\': *w++ = '\\'; break;
    case '/': *w++ = '/'; break;
    case 'b': *w++ = '\b'; break;
    case 'f': *w++ = '\f'; break;
    case 'n': *w++ = '\n'; break;
    case 'r': *w++ = '\r'; break;
    case 't': *w++ = '\t'; break;
    case 'u': {
      int u = t - p >= 4 ? hex4(p) : -1;
      if (u < 0) return perr(P, p - 2, "a bad \\u escape"), NULL;
      p += 4;
      unsigned cp = (unsigned)u;
      if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
        int lo = t - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2) : -1;
        if (lo < 0xDC00 || lo >= 0xE000) return perr(P, p - 6, "an unpaired surrogate"), NULL;
        cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
        p += 6;
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        return perr(P, p - 6, "an unpaired surrogate"), NULL;
      }
      if (cp == 0) return perr(P, p - 6, "\\u0000 in a string"), NULL;
      /* at most 4 bytes from at least 6 of source: never past the allocation */
      if (cp < 0x80) *w++ = (char)cp;
      else if (cp < 0x800) *w++ = (char)(0xC0 | cp >> 6), *w++ = (char)(0x80 | (cp & 63));
      else if (cp < 0x10000) *w++ = (char)(0xE0 | cp >> 12), *w++ = (char)(0x80 | (cp >> 6 & 63)), *w++ = (char)(0x80 | (cp & 63));
      else *w++ = (char)(0xF0 | cp >> 18), *w++ = (char)(0x80 | (cp >> 12 & 63)), *w++ = (char)(0x80 | (cp >> 6 & 63)), *w++ = (char)(0x80 | (cp & 63));
      break;
    }
    default: return perr(P, p - 2, "a bad escape in a string"), NULL;
    }
  }
  *w = 0;
  P->sb = w + 1;
  P->s = t + 1;
  return o;
}

static cJSON *num(pj *P, cJSON *n) {
  const char *p = P->s, *e = P->end, *st = p;
  bool neg = p < e && *p == '-';
  if (neg) p++;
  const char *d0 = p;
  int64_t v = 0;
  while (p < e && *p >= '0' && *p <= '9') {
    if (p - d0 < 18) v = v * 10 + (*p - '0');
    p++;
  }
  size_t nd = (size_t)(p - d0);
  if (!nd || (nd > 1 && *d0 == '0')) return perr(P, st, "a bad number");
  bool frac = p < e && (*p == '.' || *p == 'e' || *p == 'E');
  if (frac) {
    if (*p == '.') {
      const char *f = ++p;
      while (p < e && *p >= '0' && *p <= '9') p++;
      if (p == f) return perr(P, st, "a bad number");
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
      p++;
      if (p < e && (*p == '+' || *p == '-')) p++;
      const char *f = p;
      while (p < e && *p >= '0' && *p <= '9') p++;
      if (p == f) return perr(P, st, "a bad number");
    }
  }
  double x;
  if (!frac && nd <= 15) {
    x = neg ? -(double)v : (double)v; /* exact: what strtod gives, -0 included */
  } else {
    char buf[512];
    size_t len = (size_t)(p - st);
    if (len >= sizeof buf) return perr(P, st, "a number too long");
    memcpy(buf, st, len);
    buf[len] = 0;
    char dp = localeconv()->decimal_point[0]; /* strtod follows the locale (a .NET host may set one) */
    if (dp != '.')
      for (size_t i = 0; i < len; i++)
        if (buf[i] == '.') buf[i] = dp;
    x = strtod(buf, NULL);
  }
  n->type = cJSON_Number;
  n->valuedouble = x;
  n->valueint = x >= 2147483647.0 ? 2147483647 : x <= -2147483648.0 ? (-2147483647 - 1) : (int)x;
  P->s = p;
  return n;
}

static bool lit(pj *P, const char *w, size_t n) {
  if ((size_t)(P->end - P->s) < n || memcmp(P->s, w, n)) return false;
  P->s += n;
  return true;
}

static cJSON *value(pj *P);

/* an array's or object's members, after its opening bracket */
static cJSON *members(pj *P, cJSON *n, bool obj) {
  const char *open = P->s - 1;
  char close = obj ? '}' : ']';
  if (++P->depth > KG_PKJ_DEPTH) return perr(P, open, "nesting too deep");
  ws(P);
  if (P->s < P->end && *P->s == close) {
    P->s++, P->depth--;
    return n;
  }
  cJSON *last = NULL;
  for (;;) {
    char *key = NULL;
    if (obj) {
      ws(P);
      if (P->s >= P->end || *P->s != '"') return perr(P, P->s, "expected a member name");
      if (!(key = str(P))) return NULL;
      ws(P);
      if (P->s >= P->end || *P->s != ':') return perr(P, P->s, "expected ':'");
      P->s++;
    }
    cJSON *c = value(P);
    if (!c) return NULL;
    c->string = key;
    if (last) last->next = c, c->prev = last;
    else n->child = c;
    last = c;
    ws(P);
    if (P->s >= P->end) return perr(P, open, obj ? "unterminated object" : "unterminated array");
    if (*P->s == ',') {
      P->s++;
      continue;
    }
    if (*P->s != close) return perr(P, P->s, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    P->s++;
    break;
  }
  n->child->prev = last; /* as cJSON links them: the first member's prev is the last */
  P->depth--;
  return n;
}

static cJSON *value(pj *P) {
  ws(P);
  if (P->s >= P->end) return perr(P, P->s, "expected a value");
  cJSON *n = node(P);
  switch (*P->s) {
  case '{': P->s++, n->type = cJSON_Object; return members(P, n, true);
  case '[': P->s++, n->type = cJSON_Array; return members(P, n, false);
  case '"':
    n->type = cJSON_String;
    return (n->valuestring = str(P)) ? n : NULL;
  case 't': n->type = cJSON_True, n->valueint = 1; return lit(P, "true", 4) ? n : perr(P, P->s, "a bad literal");
  case 'f': n->type = cJSON_False; return lit(P, "false", 5) ? n : perr(P, P->s, "a bad literal");
  case 'n': n->type = cJSON_NULL; return lit(P, "null", 4) ? n : perr(P, P->s, "a bad literal");
  default: return num(P, n);
  }
}

const cJSON *kg_pkj_parse(kg_arena *a, const char *s, size_t n, char *err, size_t errcap) {
  pj P = {s, s + n, a, NULL, 0, kg_arena_alloc_raw(a, n + 1), s, err, errcap, 0};
  if (err && errcap) err[0] = 0;
  cJSON *v = value(&P);
  if (!v) return NULL;
  ws(&P);
  if (P.s != P.end) return perr(&P, P.s, "bytes after the value");
  return v;
}
