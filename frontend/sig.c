/* frontend/sig.c — entry signatures: what the caller will pass (spec "The signature").
 *
 * Two spellings, one result (kg_sig in ir/ir.h):
 *
 *   JSON   {"params": [{"dtype": "float32", "shape": ["B", 1024, null]}, {"scalar": "float32"}],
 *           "captures": {"w": {"dtype": "float16", "shape": [1024]}}}
 *   compact (kgen compile --sig)
 *          float32[B,1024,?], float32, w=float16[1024]
 *
 * A dim is a static size (integer ≥ 0), a symbol (an identifier; equal names are
 * equal sizes) or any size (null / "?"). In the compact form a bare dtype is a
 * scalar parameter, "[]" a 0-dim tensor and "name=" makes the item a capture. An item may
 * end with the range its test values are drawn from: `int64[B,T] in [0, 100)`, JSON
 * "range": [0, 100] (kgen's extension of the spec, docs/fsharp.md "Signatures").
 * The JSON form is read by kg_fe_sig_from_json, shared with json.c (entries'
 * "signature"); errors carry JSON paths ("$.params[1].shape[0]") or, for the
 * compact form, "--sig item N" (1-based).
 */
#include "json_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define KG_DTYPE_LIST "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64"

typedef struct kg_sigrd {
  kg_arena *arena;
  kg_diag *d;
  uint32_t max_rank;
  uint32_t n_errors;
} kg_sigrd;

static void kg_sig_err(kg_sigrd *s, kg_diag_code code, const char *path, const char *fmt, ...)
    KG_PRINTF(4, 5);
static void kg_sig_err(kg_sigrd *s, kg_diag_code code, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_diag_vadd(s->d, code, path, NULL, fmt, ap);
  va_end(ap);
  s->n_errors++;
}

static bool kg_sig_ident(const char *p, size_t n) {
  if (!n || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z') ||
          (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
      return false;
  return true;
}

static const char *kg_sig_found(kg_sigrd *s, const cJSON *j) {
  if (cJSON_IsNumber(j)) return kg_arena_printf(s->arena, "%.17g", j->valuedouble);
  if (cJSON_IsString(j))
    return kg_arena_printf(s->arena, "'%s'", kg_fe_quote(s->arena, j->valuestring));
  if (cJSON_IsObject(j)) return "an object";
  if (cJSON_IsArray(j)) return "an array";
  if (cJSON_IsBool(j)) return cJSON_IsTrue(j) ? "true" : "false";
  return "null";
}

static kg_dtype kg_sig_dtype(kg_sigrd *s, const char *name, const char *path) {
  kg_dtype t = kg_dtype_from_name(name);
  if (t == KG_DT_NONE)
    kg_sig_err(s, KG_E_TYPE, path, "unknown dtype '%s' (expected one of %s)",
               kg_fe_quote(s->arena, name), KG_DTYPE_LIST);
  return t;
}

static void kg_sig_rank_error(kg_sigrd *s, const char *path, size_t rank) {
  kg_sig_err(s, KG_E_LIMIT, path, "tensor rank %zu is above the limit of %u (max_rank)", rank,
             s->max_rank);
}

/* ---- the JSON form ---- */

static void kg_sig_json_dim(kg_sigrd *s, const cJSON *e, const char *path, kg_sig_dim *dim) {
  if (cJSON_IsNull(e)) {
    dim->kind = KG_DIM_ANY;
  } else if (cJSON_IsString(e)) {
    if (!kg_sig_ident(e->valuestring, strlen(e->valuestring)))
      kg_sig_err(s, KG_E_FORMAT, path, "a symbolic size must be an identifier, found %s",
                 kg_sig_found(s, e));
    dim->kind = KG_DIM_SYM, dim->sym = kg_arena_strdup(s->arena, e->valuestring);
  } else if (cJSON_IsNumber(e) && e->valuedouble == floor(e->valuedouble) && e->valuedouble < 0) {
    kg_sig_err(s, KG_E_SHAPE, path, "negative size %s", kg_sig_found(s, e));
  } else if (cJSON_IsNumber(e) && e->valuedouble == floor(e->valuedouble) &&
             e->valuedouble < 9007199254740992.0) {
    dim->kind = KG_DIM_STATIC, dim->size = (int64_t)e->valuedouble;
  } else {
    kg_sig_err(s, KG_E_FORMAT, path,
               "a size must be an integer from 0 to 2^53, an identifier or null, found %s",
               kg_sig_found(s, e));
  }
}

/* A parameter's test-value range [lo, hi) (kg_sig_param.has_range). */
static void kg_sig_range(kg_sigrd *s, const char *path, kg_sig_param *p, double lo, double hi) {
  if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi))
    kg_sig_err(s, KG_E_ARG, path, "a range [lo, hi) needs finite lo <= hi, found [%g, %g)", lo, hi);
  else if (p->dtype == KG_BOOL)
    kg_sig_err(s, KG_E_ARG, path, "a bool parameter takes no range (its test values are 0 and 1)");
  else
    p->has_range = true, p->lo = lo, p->hi = hi;
}

/* {"dtype": "float32", "shape": [...]} or {"scalar": "float32"}. */
static void kg_sig_json_param(kg_sigrd *s, const cJSON *j, const char *path, kg_sig_param *p) {
  if (!cJSON_IsObject(j)) {
    kg_sig_err(
        s, KG_E_FORMAT, path,
        "a parameter must be {\"dtype\": ..., \"shape\": [...]} or {\"scalar\": ...}, found %s",
        kg_sig_found(s, j));
    return;
  }
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(j, "scalar");
  const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "dtype");
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(j, "shape");
  if (sc && (dt || sh)) {
    kg_sig_err(s, KG_E_FORMAT, path,
               "a parameter has either \"scalar\" or \"dtype\" and \"shape\", not both");
    return;
  }
  p->is_scalar = sc != NULL;
  const cJSON *name = sc ? sc : dt;
  const char *npath = kg_arena_printf(s->arena, "%s.%s", path, sc ? "scalar" : "dtype");
  if (!name) {
    kg_sig_err(s, KG_E_FORMAT, path, "a parameter is missing required field 'dtype' (or 'scalar')");
  } else if (!cJSON_IsString(name)) {
    kg_sig_err(s, KG_E_FORMAT, npath, "a dtype must be a string, found %s", kg_sig_found(s, name));
  } else {
    p->dtype = kg_sig_dtype(s, name->valuestring, npath);
  }
  const cJSON *rg = cJSON_GetObjectItemCaseSensitive(j, "range");
  if (rg) {
    const char *rpath = kg_arena_printf(s->arena, "%s.range", path);
    if (!cJSON_IsArray(rg) || cJSON_GetArraySize(rg) != 2 || !cJSON_IsNumber(rg->child) || !cJSON_IsNumber(rg->child->next))
      kg_sig_err(s, KG_E_FORMAT, rpath, "field 'range' must be [lo, hi] (two numbers), found %s", kg_sig_found(s, rg));
    else
      kg_sig_range(s, rpath, p, rg->child->valuedouble, rg->child->next->valuedouble);
  }
  if (sc) return;
  const char *spath = kg_arena_printf(s->arena, "%s.shape", path);
  if (!sh) {
    kg_sig_err(s, KG_E_FORMAT, path,
               "a tensor parameter is missing required field 'shape' ([] for 0-dim)");
    return;
  }
  if (!cJSON_IsArray(sh)) {
    kg_sig_err(s, KG_E_FORMAT, spath, "field 'shape' must be an array, found %s",
               kg_sig_found(s, sh));
    return;
  }
  size_t rank = (size_t)cJSON_GetArraySize(sh);
  if (rank > s->max_rank) {
    kg_sig_rank_error(s, spath, rank);
    return;
  }
  p->rank = (uint8_t)rank;
  int i = 0;
  for (const cJSON *e = sh->child; e; e = e->next, i++)
    kg_sig_json_dim(s, e, kg_arena_printf(s->arena, "%s[%d]", spath, i), &p->dims[i]);
}

kg_sig *kg_fe_sig_from_json(kg_arena *arena, const cJSON *j, const char *path, uint32_t max_rank,
                            kg_diag *d) {
  kg_sigrd s = {arena, d, max_rank && max_rank < KG_MAX_RANK ? max_rank : KG_MAX_RANK, 0};
  kg_sig *sig = kg_arena_alloc(arena, sizeof *sig);
  if (!cJSON_IsObject(j)) {
    kg_sig_err(&s, KG_E_FORMAT, path,
               "a signature must be an object {\"params\", \"captures\"}, found %s",
               kg_sig_found(&s, j));
    return NULL;
  }
  const cJSON *ps = cJSON_GetObjectItemCaseSensitive(j, "params");
  if (ps && !cJSON_IsNull(ps) && !cJSON_IsArray(ps)) {
    kg_sig_err(&s, KG_E_FORMAT, kg_arena_printf(arena, "%s.params", path),
               "field 'params' must be an array, found %s", kg_sig_found(&s, ps));
  } else if (ps && cJSON_IsArray(ps)) {
    sig->n_params = (uint32_t)cJSON_GetArraySize(ps);
    sig->params = kg_arena_alloc(arena, (sig->n_params ? sig->n_params : 1) * sizeof *sig->params);
    int i = 0;
    for (const cJSON *e = ps->child; e; e = e->next, i++)
      kg_sig_json_param(&s, e, kg_arena_printf(arena, "%s.params[%d]", path, i), &sig->params[i]);
  }
  const cJSON *cs = cJSON_GetObjectItemCaseSensitive(j, "captures");
  if (cs && !cJSON_IsNull(cs) && !cJSON_IsObject(cs)) {
    kg_sig_err(&s, KG_E_FORMAT, kg_arena_printf(arena, "%s.captures", path),
               "field 'captures' must be an object {name: parameter}, found %s",
               kg_sig_found(&s, cs));
  } else if (cs && cJSON_IsObject(cs)) {
    uint32_t n = (uint32_t)cJSON_GetArraySize(cs), i = 0;
    sig->n_captures = n;
    sig->captures = kg_arena_alloc(arena, (n ? n : 1) * sizeof *sig->captures);
    sig->capture_names = kg_arena_alloc(arena, (n ? n : 1) * sizeof *sig->capture_names);
    for (const cJSON *e = cs->child; e; e = e->next, i++) {
      sig->capture_names[i] = kg_arena_strdup(arena, e->string);
      const char *cp =
          kg_sig_ident(e->string, strlen(e->string))
              ? kg_arena_printf(arena, "%s.captures.%s", path, e->string)
              : kg_arena_printf(arena, "%s.captures['%s']", path, kg_fe_quote(arena, e->string));
      if (!e->string[0]) kg_sig_err(&s, KG_E_FORMAT, cp, "a capture name must not be empty");
      kg_sig_json_param(&s, e, cp, &sig->captures[i]);
    }
  }
  return s.n_errors ? NULL : sig;
}

/* ---- the compact form ---- */

typedef struct kg_sigtok {
  const char *p; /* cursor */
  const char *path;
} kg_sigtok;

static void kg_skip_ws(kg_sigtok *t) {
  while (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r') t->p++;
}

static size_t kg_ident_len(const char *p) {
  size_t n = 0;
  while ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= 'a' && p[n] <= 'z') ||
         (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
    n++;
  return n;
}

/* What the cursor is at, for messages. */
static const char *kg_tok_desc(kg_sigrd *s, const char *p) {
  if (!*p) return "the end of the signature";
  size_t n = kg_ident_len(p);
  return kg_arena_printf(s->arena, "'%s'",
                         kg_fe_quote(s->arena, kg_arena_strndup(s->arena, p, n ? n : 1)));
}

/* One dim: integer, identifier or '?'. */
static bool kg_sig_text_dim(kg_sigrd *s, kg_sigtok *t, kg_sig_dim *dim) {
  kg_skip_ws(t);
  const char *p = t->p;
  if (*p == '?') {
    dim->kind = KG_DIM_ANY, t->p++;
    return true;
  }
  if (*p == '-' || (*p >= '0' && *p <= '9')) {
    size_t n = (*p == '-') + kg_ident_len(p + (*p == '-'));
    const char *text = kg_fe_quote(s->arena, kg_arena_strndup(s->arena, p, n));
    int64_t v = 0;
    bool ok = n > (*p == '-'), big = false;
    for (size_t i = *p == '-'; i < n && ok; i++) {
      ok = p[i] >= '0' && p[i] <= '9';
      big |= v > (INT64_MAX - 9) / 10;
      if (ok && !big) v = v * 10 + (p[i] - '0');
    }
    if (ok && big) {
      kg_sig_err(s, KG_E_SHAPE, t->path, "size '%s' is too large", text);
      return false;
    }
    if (!ok) {
      kg_sig_err(s, KG_E_FORMAT, t->path,
                 "bad size '%s' (expected an integer, an identifier or '?')", text);
      return false;
    }
    if (*p == '-') {
      kg_sig_err(s, KG_E_SHAPE, t->path, "negative size '%s'", text);
      return false;
    }
    dim->kind = KG_DIM_STATIC, dim->size = v, t->p += n;
    return true;
  }
  size_t n = kg_ident_len(p);
  if (!kg_sig_ident(p, n)) {
    kg_sig_err(s, KG_E_FORMAT, t->path,
               "expected a size (an integer, an identifier or '?'), found %s", kg_tok_desc(s, p));
    return false;
  }
  dim->kind = KG_DIM_SYM, dim->sym = kg_arena_strndup(s->arena, p, n), t->p += n;
  return true;
}

/* "[d, d, ...]" after the dtype (the cursor is at '['). */
static bool kg_sig_text_shape(kg_sigrd *s, kg_sigtok *t, kg_sig_param *p) {
  t->p++;
  kg_skip_ws(t);
  if (*t->p == ']') {
    t->p++;
    return true;
  }
  for (size_t rank = 0;; rank++) {
    kg_sig_dim dim = {0};
    if (rank >= s->max_rank) {
      size_t more = rank + 1;
      for (const char *q = t->p; *q && *q != ']'; q++) more += *q == ',';
      kg_sig_rank_error(s, t->path, more);
      return false;
    }
    if (!kg_sig_text_dim(s, t, &dim)) return false;
    p->dims[rank] = dim, p->rank = (uint8_t)(rank + 1);
    kg_skip_ws(t);
    if (*t->p == ']') {
      t->p++;
      return true;
    }
    if (*t->p != ',') {
      kg_sig_err(s, KG_E_FORMAT, t->path, "expected ',' or ']' in a shape, found %s",
                 kg_tok_desc(s, t->p));
      return false;
    }
    t->p++;
  }
}

/* An optional "in [lo, hi)" after an item's dtype and shape. */
static bool kg_sig_text_range(kg_sigrd *s, kg_sigtok *t, kg_sig_param *p) {
  kg_skip_ws(t);
  if (strncmp(t->p, "in", 2) || kg_ident_len(t->p) != 2) return true;
  t->p += 2;
  kg_skip_ws(t);
  double v[2];
  for (int i = 0; i < 2; i++) {
    if (*t->p != (i ? ',' : '[')) {
      kg_sig_err(s, KG_E_FORMAT, t->path, "expected '%c' in a range 'in [lo, hi)', found %s", i ? ',' : '[', kg_tok_desc(s, t->p));
      return false;
    }
    t->p++;
    kg_skip_ws(t);
    char *end;
    v[i] = strtod(t->p, &end);
    if (end == t->p) {
      kg_sig_err(s, KG_E_FORMAT, t->path, "expected a number in a range 'in [lo, hi)', found %s", kg_tok_desc(s, t->p));
      return false;
    }
    t->p = end;
    kg_skip_ws(t);
  }
  if (*t->p != ')') {
    kg_sig_err(s, KG_E_FORMAT, t->path, "expected ')' closing a range 'in [lo, hi)' (hi is excluded), found %s", kg_tok_desc(s, t->p));
    return false;
  }
  t->p++;
  uint32_t before = s->n_errors;
  kg_sig_range(s, t->path, p, v[0], v[1]);
  return s->n_errors == before;
}

/* One item: [name '='] dtype ['[' dims ']'] ['in' '[' lo ',' hi ')']. */
static bool kg_sig_text_item(kg_sigrd *s, kg_sigtok *t, const char **cap_name, kg_sig_param *p) {
  kg_skip_ws(t);
  size_t n = kg_ident_len(t->p);
  const char *q = t->p + n;
  while (*q == ' ' || *q == '\t') q++;
  if (n && *q == '=') {
    if (!kg_sig_ident(t->p, n)) {
      kg_sig_err(s, KG_E_FORMAT, t->path, "a capture name must be an identifier, found %s",
                 kg_tok_desc(s, t->p));
      return false;
    }
    *cap_name = kg_arena_strndup(s->arena, t->p, n);
    t->p = q + 1;
    kg_skip_ws(t);
    n = kg_ident_len(t->p);
  }
  if (!n) {
    kg_sig_err(s, KG_E_FORMAT, t->path, "expected a dtype, found %s", kg_tok_desc(s, t->p));
    return false;
  }
  p->dtype = kg_sig_dtype(s, kg_arena_strndup(s->arena, t->p, n), t->path);
  if (p->dtype == KG_DT_NONE) return false;
  t->p += n;
  kg_skip_ws(t);
  if (*t->p != '[') p->is_scalar = true;
  else if (!kg_sig_text_shape(s, t, p)) return false;
  return kg_sig_text_range(s, t, p);
}

static kg_sig *kg_sig_parse_text(kg_sigrd *s, const char *text) {
  /* Items are separated by ',' outside brackets; count them for the arrays. */
  uint32_t n_items = 1;
  int depth = 0;
  for (const char *q = text; *q; q++) {
    depth += (*q == '[') - (*q == ']' || *q == ')'); /* a range 'in [lo, hi)' closes with ')' */
    n_items += *q == ',' && depth <= 0;
  }
  kg_sig_param *items = kg_arena_alloc(s->arena, n_items * sizeof *items);
  const char **names = kg_arena_alloc(s->arena, n_items * sizeof *names);
  kg_sigtok t = {text, NULL};
  uint32_t n = 0;
  for (;; n++) {
    t.path = kg_arena_printf(s->arena, "--sig item %u", n + 1);
    if (n >= n_items) {
      kg_sig_err(s, KG_E_INTERNAL, t.path, "signature item count mismatch");
      return NULL;
    }
    if (!kg_sig_text_item(s, &t, &names[n], &items[n])) return NULL;
    kg_skip_ws(&t);
    if (!*t.p) break;
    if (*t.p != ',') {
      kg_sig_err(s, KG_E_FORMAT, t.path, "expected ',' between items, found %s",
                 kg_tok_desc(s, t.p));
      return NULL;
    }
    t.p++;
  }
  n++;
  kg_sig *sig = kg_arena_alloc(s->arena, sizeof *sig);
  sig->params = kg_arena_alloc(s->arena, n * sizeof *sig->params);
  sig->captures = kg_arena_alloc(s->arena, n * sizeof *sig->captures);
  sig->capture_names = kg_arena_alloc(s->arena, n * sizeof *sig->capture_names);
  for (uint32_t i = 0; i < n; i++) {
    if (!names[i]) {
      sig->params[sig->n_params++] = items[i];
      continue;
    }
    for (uint32_t k = 0; k < sig->n_captures; k++)
      if (strcmp(sig->capture_names[k], names[i]) == 0)
        kg_sig_err(s, KG_E_FORMAT, kg_arena_printf(s->arena, "--sig item %u", i + 1),
                   "capture '%s' is given twice", names[i]);
    sig->capture_names[sig->n_captures] = names[i];
    sig->captures[sig->n_captures++] = items[i];
  }
  return s->n_errors ? NULL : sig;
}

kg_sig *kg_fe_parse_sig(kg_arena *arena, const char *text, kg_diag *d) {
  kg_sigrd s = {arena, d, KG_MAX_RANK, 0};
  if (!text) text = "";
  const char *p = text;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (*p == '{') {
    cJSON *j = kg_fe_json_parse(text, strlen(text), NULL, d);
    if (!j) return NULL;
    kg_sig *sig = kg_fe_sig_from_json(arena, j, "$", KG_MAX_RANK, d);
    cJSON_Delete(j);
    return sig;
  }
  if (!*p) {
    kg_sig_err(&s, KG_E_FORMAT, "--sig",
               "empty signature (expected e.g. \"float32[B,1024], float32\")");
    return NULL;
  }
  return kg_sig_parse_text(&s, p);
}
