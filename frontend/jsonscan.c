/* frontend/jsonscan.c — stage 1 of reading a kgen-quotation document: text → cJSON.
 *
 * The size limit; a cheap scan of the bytes that enforces the nesting limit
 * *before* cJSON recurses and catches what cJSON lets through (NUL and control
 * characters, "\u0000", invalid UTF-8, text after the document); cJSON parses;
 * every object is then checked for duplicate keys (cJSON keeps them silently).
 * Errors name the byte, line and column (and, for duplicate keys, the JSON path
 * and F# location). Used by json.c (documents) and sig.c (signature strings).
 */
#include "json_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- stage 1: text → cJSON ---- */

/* A strict RFC 8259 validator, run before cJSON: it enforces the nesting limit
 * before anything recurses, reports every syntax error at its exact byte with a
 * useful message (cJSON gives only a position, sometimes one byte late), and
 * rejects what cJSON accepts silently: leading zeros, "1.", NUL and control
 * bytes (cJSON skips them as whitespace), "\u0000" (it would cut strings short),
 * invalid UTF-8 and unpaired surrogates. Numbers over 63 characters are refused
 * as cJSON cannot read them. Iterative: an explicit stack of open brackets. */
typedef struct kg_scan {
  const unsigned char *s;
  size_t n, i;
  bool bad;      /* a syntax error at `off`, described by `what` */
  bool too_deep; /* the nesting limit was exceeded at `off` */
  size_t off;
  char what[192];
} kg_scan;

static void kg_scan_fail(kg_scan *sc, size_t off, const char *fmt, ...) KG_PRINTF(3, 4);
static void kg_scan_fail(kg_scan *sc, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sc->what, sizeof sc->what, fmt, ap);
  va_end(ap);
  sc->bad = true, sc->off = off;
}

/* Length of the valid UTF-8 sequence at p (n bytes available), 0 if invalid. */
static size_t kg_utf8_len(const unsigned char *p, size_t n) {
  unsigned c = p[0], lo = 0x80, hi = 0xBF;
  size_t len;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c == 0xE0)
    len = 3, lo = 0xA0;
  else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    len = 3;
  else if (c == 0xED)
    len = 3, hi = 0x9F; /* no UTF-16 surrogates */
  else if (c == 0xF0)
    len = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3)
    len = 4;
  else if (c == 0xF4)
    len = 4, hi = 0x8F; /* ≤ U+10FFFF */
  else
    return 0;
  if (n < len || p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return len;
}

static bool kg_is_digit(unsigned c) { return c >= '0' && c <= '9'; }
static bool kg_is_alpha(unsigned c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool kg_is_ws(unsigned c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool kg_is_punct(unsigned c) { return c && strchr(",:[]{}\"", (int)c); }

/* The 4 hex digits of "\uXXXX" at s[i] == '\\'; -1 if malformed. */
static long kg_hex4(const kg_scan *sc, size_t i) {
  if (sc->n - i < 6 || sc->s[i] != '\\' || sc->s[i + 1] != 'u') return -1;
  long v = 0;
  for (size_t k = i + 2; k < i + 6; k++) {
    unsigned c = sc->s[k];
    int dg = kg_is_digit(c)                           ? (int)(c - '0')
             : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (int)((c | 0x20) - 'a' + 10)
                                                      : -1;
    if (dg < 0) return -1;
    v = v * 16 + dg;
  }
  return v;
}

/* An escape sequence at s[i] == '\\'; returns its length, 0 after a failure. */
static size_t kg_scan_escape(kg_scan *sc, size_t i) {
  unsigned e = i + 1 < sc->n ? sc->s[i + 1] : 0;
  if (e && strchr("\"\\/bfnrt", (int)e)) return 2;
  if (e != 'u') {
    if (e > 0x20 && e < 0x7f)
      kg_scan_fail(sc, i, "invalid escape sequence '\\%c'", e);
    else
      kg_scan_fail(sc, i, "invalid escape sequence");
    return 0;
  }
  long u = kg_hex4(sc, i);
  if (u < 0) {
    kg_scan_fail(sc, i, "invalid \\u escape: expected 4 hex digits");
    return 0;
  }
  if (u == 0) {
    kg_scan_fail(sc, i, "\\u0000 (NUL) is not allowed in strings");
    return 0;
  }
  if (u >= 0xDC00 && u <= 0xDFFF) {
    kg_scan_fail(sc, i, "invalid \\u escape: unpaired low surrogate \\u%04lX", (unsigned long)u);
    return 0;
  }
  if (u >= 0xD800 && u <= 0xDBFF) {
    long lo = kg_hex4(sc, i + 6);
    if (lo < 0xDC00 || lo > 0xDFFF) {
      kg_scan_fail(sc, i, "invalid \\u escape: high surrogate \\u%04lX without a low surrogate",
                   (unsigned long)u);
      return 0;
    }
    return 12;
  }
  return 6;
}

/* A string at s[i] == '"'; moves past it. */
static void kg_scan_string(kg_scan *sc) {
  size_t start = sc->i, i = sc->i + 1;
  while (i < sc->n) {
    unsigned c = sc->s[i];
    if (c == '"') {
      sc->i = i + 1;
      return;
    }
    size_t l;
    if (c == '\\') {
      l = kg_scan_escape(sc, i);
      if (!l) return;
    } else if (c < 0x20) {
      kg_scan_fail(sc, i, "unescaped control character 0x%02x in a string", c);
      return;
    } else if (!(l = kg_utf8_len(sc->s + i, sc->n - i))) {
      kg_scan_fail(sc, i, "invalid UTF-8 byte 0x%02x in a string", c);
      return;
    }
    i += l;
  }
  kg_scan_fail(sc, start, "unterminated string");
}

/* The bytes of a token starting at i, up to a delimiter (for messages). */
static int kg_token_len(const kg_scan *sc, size_t i) {
  size_t m = 0;
  while (i + m < sc->n && m < 24 && !kg_is_ws(sc->s[i + m]) && !kg_is_punct(sc->s[i + m]) &&
         sc->s[i + m] >= 0x20 && sc->s[i + m] < 0x7f)
    m++;
  return (int)(m ? m : 1);
}

static void kg_scan_number(kg_scan *sc) {
  const unsigned char *s = sc->s;
  size_t i = sc->i, n = sc->n;
  bool ok = true;
  if (s[i] == '-') i++;
  if (i < n && s[i] == '0')
    i++;
  else if (i < n && kg_is_digit(s[i]))
    while (i < n && kg_is_digit(s[i])) i++;
  else
    ok = false;
  if (ok && i < n && s[i] == '.') {
    ok = ++i < n && kg_is_digit(s[i]);
    while (i < n && kg_is_digit(s[i])) i++;
  }
  if (ok && i < n && (s[i] == 'e' || s[i] == 'E')) {
    if (++i < n && (s[i] == '+' || s[i] == '-')) i++;
    ok = i < n && kg_is_digit(s[i]);
    while (i < n && kg_is_digit(s[i])) i++;
  }
  if (ok && i < n && !kg_is_ws(s[i]) && !kg_is_punct(s[i])) ok = false;
  if (!ok) {
    kg_scan_fail(sc, sc->i, "invalid number '%.*s'", kg_token_len(sc, sc->i),
                 (const char *)s + sc->i);
  } else if (i - sc->i > 63) {
    kg_scan_fail(sc, sc->i, "number too long (%zu characters; at most 63)", i - sc->i);
  }
  sc->i = i;
}

static void kg_scan_literal(kg_scan *sc) {
  static const char *const lits[] = {"true", "false", "null"};
  for (size_t k = 0; k < KG_COUNTOF(lits); k++) {
    size_t m = strlen(lits[k]);
    if (sc->n - sc->i >= m && memcmp(sc->s + sc->i, lits[k], m) == 0 &&
        (sc->n - sc->i == m || !kg_is_alpha(sc->s[sc->i + m]))) {
      sc->i += m;
      return;
    }
  }
  kg_scan_fail(sc, sc->i, "unexpected token '%.*s'", kg_token_len(sc, sc->i),
               (const char *)sc->s + sc->i);
}

/* "'x'" for a printable byte, "byte 0xNN" otherwise, "end of input" past the end. */
static const char *kg_scan_what(const kg_scan *sc, size_t i, char buf[16]) {
  if (i >= sc->n) return "the end of input";
  unsigned c = sc->s[i];
  if (c > 0x20 && c < 0x7f)
    snprintf(buf, 16, "'%c'", c);
  else
    snprintf(buf, 16, "byte 0x%02x", c);
  return buf;
}

typedef enum kg_scan_state {
  KG_SS_VALUE,      /* a value (top level, after ':' or after ',' in an array) */
  KG_SS_FIRST_ITEM, /* after '[': a value or ']' */
  KG_SS_FIRST_KEY,  /* after '{': a key or '}' */
  KG_SS_KEY,        /* after ',' in an object: a key */
  KG_SS_COLON,      /* after a key */
  KG_SS_AFTER,      /* after a value: ',' or the closing bracket (or the end at top level) */
} kg_scan_state;

static void kg_json_scan(const char *text, size_t n, uint32_t max_depth, kg_scan *sc) {
  size_t open[KG_JSON_DEPTH_CAP]; /* offsets of the open brackets */
  uint32_t depth = 0;
  kg_scan_state st = KG_SS_VALUE;
  char b[16];
  memset(sc, 0, sizeof *sc);
  sc->s = (const unsigned char *)text, sc->n = n;
  if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) sc->i = 3; /* a UTF-8 BOM, as cJSON */
  while (!sc->bad) {
    while (sc->i < n && kg_is_ws(sc->s[sc->i])) sc->i++;
    if (sc->i >= n) break;
    size_t i = sc->i;
    unsigned c = sc->s[i];
    bool in_obj = depth && sc->s[open[depth - 1]] == '{';
    switch (st) {
    case KG_SS_FIRST_KEY:
    case KG_SS_KEY:
      if (c == '"') {
        kg_scan_string(sc);
        st = KG_SS_COLON;
      } else if (c == '}' && st == KG_SS_FIRST_KEY) {
        depth--, sc->i++, st = KG_SS_AFTER;
      } else if (c == '}') {
        kg_scan_fail(sc, i, "trailing comma before '}'");
      } else {
        kg_scan_fail(sc, i, "expected a string key%s, found %s",
                     st == KG_SS_FIRST_KEY ? " or '}'" : "", kg_scan_what(sc, i, b));
      }
      break;
    case KG_SS_COLON:
      if (c == ':')
        sc->i++, st = KG_SS_VALUE;
      else
        kg_scan_fail(sc, i, "expected ':' after an object key, found %s", kg_scan_what(sc, i, b));
      break;
    case KG_SS_AFTER:
      if (depth == 0) {
        kg_scan_fail(sc, i, "unexpected %s after the end of the document", kg_scan_what(sc, i, b));
      } else if (c == ',') {
        sc->i++, st = in_obj ? KG_SS_KEY : KG_SS_VALUE;
      } else if (c == (in_obj ? '}' : ']')) {
        depth--, sc->i++;
      } else {
        size_t line, col;
        kg_linecol(text, open[depth - 1], &line, &col);
        kg_scan_fail(
            sc, i,
            "expected ',' or '%c' after %s, found %s (the '%c' opened at line %zu, column %zu)",
            in_obj ? '}' : ']', in_obj ? "an object member" : "an array item",
            kg_scan_what(sc, i, b), in_obj ? '{' : '[', line, col);
      }
      break;
    case KG_SS_VALUE:
    case KG_SS_FIRST_ITEM: {
      if (c == ']' && st == KG_SS_FIRST_ITEM) {
        depth--, sc->i++, st = KG_SS_AFTER;
        break;
      }
      if (c == ']' && depth && !in_obj) {
        kg_scan_fail(sc, i, "trailing comma before ']'");
        break;
      }
      bool first = st == KG_SS_FIRST_ITEM;
      st = KG_SS_AFTER;
      if (c == '{' || c == '[') {
        if (depth >= max_depth) {
          sc->too_deep = true, sc->off = i;
          return;
        }
        open[depth++] = i, sc->i++;
        st = c == '{' ? KG_SS_FIRST_KEY : KG_SS_FIRST_ITEM;
      } else if (c == '"') {
        kg_scan_string(sc);
      } else if (c == '-' || kg_is_digit(c)) {
        kg_scan_number(sc);
      } else if (kg_is_alpha(c)) {
        kg_scan_literal(sc);
      } else {
        kg_scan_fail(sc, i, "expected a value%s, found %s", first ? " or ']'" : "",
                     kg_scan_what(sc, i, b));
      }
      break;
    }
    }
  }
  if (sc->bad) return;
  if (depth > 0) {
    size_t line, col;
    kg_linecol(text, open[depth - 1], &line, &col);
    kg_scan_fail(sc, n,
                 "unexpected end of input: the '%c' opened at line %zu, column %zu is not closed",
                 text[open[depth - 1]], line, col);
  } else if (st != KG_SS_AFTER) {
    kg_scan_fail(sc, n, "empty document");
  }
}

static void kg_json_error(kg_diag *d, const char *text, size_t off, const char *what) {
  size_t line, col;
  kg_linecol(text, off, &line, &col);
  kg_diag_add(d, KG_E_JSON, NULL, NULL, "malformed JSON at byte %zu (line %zu, column %zu): %s",
              off, line, col, what);
}

/* Duplicate keys, checked over the whole tree; errors carry the object's path
 * and the F# location of the nearest enclosing object with a valid "loc". */
typedef struct kg_dupck {
  kg_diag *d;
  const cJSON *files; /* the root's "files" array, or NULL */
  kg_strbuf path;
  bool found;
} kg_dupck;

/* A "loc" shaped [file, startLine, startCol, endLine, endCol] (the file index is
 * checked only when an error needs it: cJSON arrays have no O(1) indexing). */
static bool kg_loc_shaped(const cJSON *loc) {
  if (!cJSON_IsArray(loc) || cJSON_GetArraySize(loc) != 5) return false;
  for (const cJSON *e = loc->child; e; e = e->next)
    if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble <= 2147483647.0) ||
        e->valuedouble != floor(e->valuedouble))
      return false;
  return true;
}

static int kg_strptr_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void kg_dup_report(kg_dupck *c, const char *key, const cJSON *loc) {
  const cJSON *file = loc && cJSON_IsArray(c->files)
                          ? cJSON_GetArrayItem(c->files, (int)loc->child->valuedouble)
                          : NULL;
  char *where = NULL;
  if (cJSON_IsString(file)) {
    kg_strbuf w;
    kg_sb_init(&w);
    kg_sb_printf(&w, "%s:%d:%d", file->valuestring, (int)loc->child->next->valuedouble,
                 (int)loc->child->next->next->valuedouble);
    where = kg_sb_take(&w);
  }
  kg_strbuf m;
  kg_sb_init(&m);
  kg_sb_quoted(&m, key, KG_QUOTE_MAX);
  kg_diag_add(c->d, KG_E_JSON, kg_sb_cstr(&c->path), where, "duplicate key '%s' in object",
              kg_sb_cstr(&m));
  kg_sb_free(&m);
  free(where);
  c->found = true;
}

static void kg_dup_object(kg_dupck *c, const cJSON *j, const cJSON *loc) {
  int n = cJSON_GetArraySize(j);
  if (n < 2) return;
  if (n <= 16) {
    int i = 0;
    for (const cJSON *a = j->child; a; a = a->next, i++)
      for (const cJSON *b = j->child; b != a; b = b->next)
        if (strcmp(a->string, b->string) == 0) {
          kg_dup_report(c, a->string, loc);
          break;
        }
    return;
  }
  const char **keys = kg_xmalloc((size_t)n * sizeof *keys);
  int k = 0;
  for (const cJSON *a = j->child; a; a = a->next) keys[k++] = a->string;
  qsort(keys, (size_t)k, sizeof *keys, kg_strptr_cmp);
  for (int i = 1; i < k; i++)
    if (strcmp(keys[i], keys[i - 1]) == 0) kg_dup_report(c, keys[i], loc);
  free(keys);
}

static void kg_dup_walk(kg_dupck *c, const cJSON *j, const cJSON *loc) {
  if (!cJSON_IsObject(j) && !cJSON_IsArray(j)) return;
  size_t mark = c->path.len;
  if (cJSON_IsObject(j)) {
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(j, "loc");
    if (kg_loc_shaped(own)) loc = own;
    kg_dup_object(c, j, loc);
  }
  int i = 0;
  for (const cJSON *e = j->child; e; e = e->next, i++) {
    if (!cJSON_IsObject(e) && !cJSON_IsArray(e)) continue;
    if (cJSON_IsObject(j))
      kg_sb_path_key(&c->path, e->string);
    else
      kg_sb_printf(&c->path, "[%d]", i);
    kg_dup_walk(c, e, loc);
    c->path.len = mark, c->path.s[mark] = 0;
  }
}

cJSON *kg_fe_json_parse(const char *text, size_t len, const kg_fe_limits *lim, kg_diag *d) {
  kg_fe_limits l;
  kg_fe_limits_resolve(lim, &l);
  if (!text) text = "", len = 0;
  if (len > l.max_bytes) {
    kg_diag_add(d, KG_E_LIMIT, NULL, NULL,
                "document too large: %zu bytes is above the limit of %zu bytes (max_bytes)", len,
                l.max_bytes);
    return NULL;
  }
  kg_scan sc;
  kg_json_scan(text, len, l.max_depth, &sc);
  if (sc.too_deep) {
    size_t line, col;
    kg_linecol(text, sc.off, &line, &col);
    kg_diag_add(
        d, KG_E_LIMIT, NULL, NULL,
        "JSON nesting deeper than the limit of %u (max_depth) at byte %zu (line %zu, column %zu)",
        l.max_depth, sc.off, line, col);
    return NULL;
  }
  if (sc.bad) {
    kg_json_error(d, text, sc.off, sc.what);
    return NULL;
  }
  /* cJSON wants the terminating NUL inside the length to reject trailing text. */
  char *buf = kg_xmalloc(len + 1);
  if (len) memcpy(buf, text, len);
  buf[len] = 0;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
  size_t q = end ? (size_t)(end - buf) : 0;
  free(buf);
  if (!root) { /* not expected after the validator (out of memory?): say where cJSON stopped */
    kg_json_error(d, text, q, "cJSON could not parse the document here");
    return NULL;
  }
  kg_dupck c = {.d = d,
                .files =
                    cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "files") : NULL};
  kg_sb_init(&c.path);
  kg_sb_putc(&c.path, '$');
  kg_dup_walk(&c, root, NULL);
  kg_sb_free(&c.path);
  if (c.found) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}
