/* frontend/json.c — reads a kgen-quotation document (shared/spec/quotation-json.md)
 * into the AST of frontend.h.
 *
 * Three stages; each records diagnostics and the read fails if any was recorded:
 *   1. Text → cJSON (kg_fe_json_parse, frontend/jsonscan.c, shared with sig.c).
 *   2. The document: format, version, files, vars, entries, definitions.
 *   3. Nodes, recursively (the depth is bounded by stage 1): "k", "ty", "loc" and
 *      the fields of each kind with their JSON types; constants decoded by "ty"
 *      (json_value.c); member keys built exactly as the spec says.
 * Every diagnostic names the JSON path of what is wrong and, when that node or
 * its nearest ancestor has "loc", the F# location. Nothing is desugared here.
 * The cJSON tree is freed before returning; the AST lives in the caller's arena.
 */
#include "json_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Total bytes of node paths; only a document both very deep and very wide gets near. */
#define KG_PATH_BUDGET ((size_t)256 << 20)

/* ---- names, limits, locations ---- */

static const char *const kg_ast_kind_names[KG_AST__COUNT] = {
#define X(n) #n,
    KG_AST_KINDS(X)
#undef X
};

const char *kg_ast_kind_name(kg_ast_kind k) {
  return (unsigned)k < KG_AST__COUNT ? kg_ast_kind_names[k] : "?";
}

void kg_fe_limits_default(kg_fe_limits *l) {
  l->max_bytes = (size_t)64 << 20;
  l->max_depth = 200;
  l->max_nodes = 1000000;
  l->max_rank = KG_MAX_RANK;
}

/* NULL or a zero field means the default; depth and rank are capped at what the
 * parser and kg_sig can hold. */
void kg_fe_limits_resolve(const kg_fe_limits *lim, kg_fe_limits *out) {
  kg_fe_limits_default(out);
  if (!lim) return;
  if (lim->max_bytes) out->max_bytes = lim->max_bytes;
  if (lim->max_depth)
    out->max_depth = lim->max_depth < KG_JSON_DEPTH_CAP ? lim->max_depth : KG_JSON_DEPTH_CAP;
  if (lim->max_nodes) out->max_nodes = lim->max_nodes;
  if (lim->max_rank) out->max_rank = lim->max_rank < KG_MAX_RANK ? lim->max_rank : KG_MAX_RANK;
}

const char *kg_fe_srcloc(kg_arena *arena, const kg_doc *doc, const kg_ast *n) {
  if (!n || !doc || !n->has_loc || n->loc[0] < 0 || (uint32_t)n->loc[0] >= doc->n_files)
    return NULL;
  return kg_arena_printf(arena, "%s:%d:%d", doc->files[n->loc[0]], (int)n->loc[1], (int)n->loc[2]);
}

/* Appends s for a message: \ ' and control bytes escaped, cut after `max` bytes
 * (at a UTF-8 boundary) with "...". */
void kg_sb_quoted(kg_strbuf *b, const char *s, size_t max) {
  size_t i = 0;
  for (; s[i]; i++) {
    unsigned char c = (unsigned char)s[i];
    if (i >= max && (c & 0xC0) != 0x80) {
      kg_sb_puts(b, "...");
      return;
    }
    if (c == '\\' || c == '\'')
      kg_sb_putc(b, '\\'), kg_sb_putc(b, (char)c);
    else if (c < 0x20 || c == 0x7f)
      kg_sb_printf(b, "\\x%02x", c);
    else
      kg_sb_putc(b, (char)c);
  }
}

const char *kg_fe_quote(kg_arena *arena, const char *s) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_quoted(&b, s ? s : "", KG_QUOTE_MAX);
  const char *r = kg_arena_strdup(arena, kg_sb_cstr(&b));
  kg_sb_free(&b);
  return r;
}

static bool kg_is_ident(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return false;
  for (s++; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return false;
  return true;
}

/* ".key" for identifiers, "['key']" otherwise. */
void kg_sb_path_key(kg_strbuf *b, const char *key) {
  if (kg_is_ident(key)) {
    kg_sb_putc(b, '.'), kg_sb_puts(b, key);
  } else {
    kg_sb_puts(b, "['"), kg_sb_quoted(b, key, KG_QUOTE_MAX), kg_sb_puts(b, "']");
  }
}

void kg_linecol(const char *s, size_t off, size_t *line, size_t *col) {
  size_t l = 1, start = 0;
  for (size_t i = 0; i < off; i++)
    if (s[i] == '\n') l++, start = i + 1;
  *line = l, *col = off - start + 1;
}

/* ---- stage 2 and 3: the reader ---- */

/* (kg_rd, the reader's state, is in json_int.h: json_value.c reads values with it) */

void kg_rd_err(kg_rd *r, kg_diag_code code, const char *path, const kg_ast *at,
               const char *fmt, ...) {
  va_list ap;
  uint32_t max = r->d->max_errors ? r->d->max_errors : 20;
  r->n_errors++;
  if (r->d->n >= max) return; /* kg_diag keeps no more: skip building the location */
  va_start(ap, fmt);
  kg_diag_vadd(r->d, code, path, kg_fe_srcloc(r->arena, r->doc, at), fmt, ap);
  va_end(ap);
}

const char *kg_rd_path(kg_rd *r, const char *base, const char *key, long idx) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_puts(&b, base);
  if (key) kg_sb_path_key(&b, key);
  if (idx >= 0) kg_sb_printf(&b, "[%ld]", idx);
  const char *p = kg_arena_strndup(r->arena, kg_sb_cstr(&b), b.len);
  r->path_bytes += b.len + 1;
  kg_sb_free(&b);
  if (r->path_bytes > KG_PATH_BUDGET && !r->stop) {
    kg_rd_err(r, KG_E_LIMIT, p, NULL,
              "the JSON paths of the nodes exceed %zu MiB in total: the document is too deep and "
              "too wide (lower max_nodes or split the document)",
              KG_PATH_BUDGET >> 20);
    r->stop = true;
  }
  return p;
}

static const char *kg_jtype(const cJSON *j) {
  if (cJSON_IsObject(j)) return "an object";
  if (cJSON_IsArray(j)) return "an array";
  if (cJSON_IsString(j)) return "a string";
  if (cJSON_IsNumber(j)) return "a number";
  if (cJSON_IsBool(j)) return "a boolean";
  if (cJSON_IsNull(j)) return "null";
  return "nothing";
}

static const char *kg_num_text(kg_arena *a, double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
  return kg_arena_strdup(a, buf);
}

const char *kg_rd_found(kg_rd *r, const cJSON *j) {
  if (cJSON_IsNumber(j)) return kg_num_text(r->arena, j->valuedouble);
  if (cJSON_IsString(j))
    return kg_arena_printf(r->arena, "the string '%s'", kg_fe_quote(r->arena, j->valuestring));
  if (cJSON_IsBool(j)) return cJSON_IsTrue(j) ? "true" : "false";
  if (cJSON_IsArray(j)) {
    int n = cJSON_GetArraySize(j);
    return kg_arena_printf(r->arena, "an array of %d item%s", n, n == 1 ? "" : "s");
  }
  return kg_jtype(j);
}

const char *kg_rd_valtext(kg_rd *r, const cJSON *j) {
  if (cJSON_IsString(j))
    return kg_arena_printf(r->arena, "'%s'", kg_fe_quote(r->arena, j->valuestring));
  return kg_rd_found(r, j);
}

/* An integer held exactly by a JSON number (|v| < 2^53). */
static bool kg_jint(const cJSON *j, int64_t *out) {
  if (!cJSON_IsNumber(j)) return false;
  double v = j->valuedouble;
  if (!(fabs(v) < KG_TWO_53) || v != floor(v)) return false;
  *out = (int64_t)v;
  return true;
}

/* Optional field: NULL when absent or null. */
static const cJSON *kg_opt(const cJSON *j, const char *key) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, key);
  return f && !cJSON_IsNull(f) ? f : NULL;
}

/* Required field of `j` (at `path`), described in messages as `what`. */
static const cJSON *kg_req(kg_rd *r, const cJSON *j, const char *key, const char *what,
                           const char *path, const kg_ast *at) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, key);
  if (!f) kg_rd_err(r, KG_E_FORMAT, path, at, "%s is missing required field '%s'", what, key);
  return f;
}

void kg_bad_field(kg_rd *r, const cJSON *f, const char *key, const char *want,
                  const char *path, const kg_ast *at) {
  kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, path, key, -1), at, "field '%s' must be %s, found %s",
            key, want, kg_rd_found(r, f));
}

const char *kg_req_str(kg_rd *r, const cJSON *j, const char *key, const char *what,
                       const char *path, const kg_ast *at, bool nonempty) {
  const cJSON *f = kg_req(r, j, key, what, path, at);
  if (!f) return NULL;
  if (!cJSON_IsString(f) || (nonempty && !f->valuestring[0])) {
    kg_bad_field(r, f, key, nonempty ? "a non-empty string" : "a string", path, at);
    return NULL;
  }
  return kg_arena_strdup(r->arena, f->valuestring);
}

static bool kg_req_bool(kg_rd *r, const cJSON *j, const char *key, const char *what,
                        const char *path, const kg_ast *at) {
  const cJSON *f = kg_req(r, j, key, what, path, at);
  if (f && !cJSON_IsBool(f)) kg_bad_field(r, f, key, "true or false", path, at);
  return cJSON_IsTrue(f);
}

static bool kg_req_int(kg_rd *r, const cJSON *j, const char *key, const char *what,
                       const char *path, const kg_ast *at, int64_t lo, int64_t hi, int64_t *out) {
  const cJSON *f = kg_req(r, j, key, what, path, at);
  if (!f) return false;
  if (!kg_jint(f, out) || *out < lo || *out > hi) {
    const char *want =
        kg_arena_printf(r->arena, "an integer from %lld to %lld", (long long)lo, (long long)hi);
    kg_bad_field(r, f, key, want, path, at);
    return false;
  }
  return true;
}

static const cJSON *kg_req_array(kg_rd *r, const cJSON *j, const char *key, const char *what,
                                 const char *path, const kg_ast *at) {
  const cJSON *f = kg_req(r, j, key, what, path, at);
  if (f && !cJSON_IsArray(f)) {
    kg_bad_field(r, f, key, "an array", path, at);
    return NULL;
  }
  return f;
}

static const char *kg_plural(uint32_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

/* An array of type strings at path.key (f already checked to be an array). */
static const char **kg_rd_strings(kg_rd *r, const cJSON *f, const char *key, const char *path,
                                  const kg_ast *at, uint32_t *count) {
  uint32_t n = (uint32_t)cJSON_GetArraySize(f), i = 0;
  const char **v = kg_arena_alloc(r->arena, (n ? n : 1) * sizeof *v);
  for (const cJSON *e = f->child; e; e = e->next, i++) {
    if (cJSON_IsString(e) && e->valuestring[0])
      v[i] = kg_arena_strdup(r->arena, e->valuestring);
    else
      kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, path, key, (long)i), at,
                "'%s' items must be non-empty type strings, found %s", key, kg_rd_found(r, e));
  }
  *count = n;
  return v;
}

/* ---- members ---- */

typedef enum kg_member_form {
  KG_MF_CALL,  /* decl::name(p1,p2) — Call, NewObject, definitions */
  KG_MF_GET,   /* decl::get_name(p...) — PropertyGet */
  KG_MF_SET,   /* decl::set_name(p...) — PropertySet */
  KG_MF_FIELD, /* decl::name — FieldGet */
} kg_member_form;

static kg_member *kg_rd_member(kg_rd *r, const cJSON *m, const char *path, const kg_ast *at,
                               kg_member_form form) {
  if (!cJSON_IsObject(m)) {
    kg_rd_err(
        r, KG_E_FORMAT, path, at,
        "expected a member object {\"decl\", \"name\", \"static\", \"params\", ...}, found %s",
        kg_rd_found(r, m));
    return NULL;
  }
  uint32_t errs = r->n_errors;
  kg_member *mb = kg_arena_alloc(r->arena, sizeof *mb);
  mb->decl = kg_req_str(r, m, "decl", "a member", path, at, true);
  mb->name = kg_req_str(r, m, "name", "a member", path, at, true);
  mb->is_static = kg_req_bool(r, m, "static", "a member", path, at);
  const cJSON *ps =
      form == KG_MF_FIELD ? kg_opt(m, "params") : kg_req(r, m, "params", "a member", path, at);
  if (ps && !cJSON_IsArray(ps))
    kg_bad_field(r, ps, "params", "an array of type strings", path, at);
  else if (ps)
    mb->params = kg_rd_strings(r, ps, "params", path, at, &mb->n_params);
  const cJSON *ret = kg_opt(m, "ret");
  if (ret && !cJSON_IsString(ret))
    kg_bad_field(r, ret, "ret", "a type string or null", path, at);
  else if (ret)
    mb->ret = kg_arena_strdup(r->arena, ret->valuestring);
  const cJSON *ga = kg_opt(m, "genericArgs");
  if (ga && !cJSON_IsArray(ga))
    kg_bad_field(r, ga, "genericArgs", "an array of type strings", path, at);
  else if (ga)
    mb->generic_args = kg_rd_strings(r, ga, "genericArgs", path, at, &mb->n_generic_args);
  if (r->n_errors != errs) return mb;

  kg_strbuf k;
  kg_sb_init(&k);
  kg_sb_printf(&k, "%s::%s%s", mb->decl,
               form == KG_MF_GET   ? "get_"
               : form == KG_MF_SET ? "set_"
                                   : "",
               mb->name);
  if (form != KG_MF_FIELD) {
    kg_sb_putc(&k, '(');
    for (uint32_t i = 0; i < mb->n_params; i++) {
      if (i) kg_sb_putc(&k, ',');
      kg_sb_puts(&k, mb->params[i]);
    }
    kg_sb_putc(&k, ')');
  }
  mb->key = kg_arena_strndup(r->arena, kg_sb_cstr(&k), k.len);
  kg_sb_free(&k);
  return mb;
}

/* ---- nodes ---- */

static kg_ast *kg_rd_node(kg_rd *r, const cJSON *j, const char *path, const kg_ast *up);

/* "a Lambda node": how messages name a node of kind k. */
static const char *const kg_node_whats[KG_AST__COUNT] = {
#define X(n) "a " #n " node",
    KG_AST_KINDS(X)
#undef X
};

static const char *kg_node_what(const kg_ast *n) { return kg_node_whats[n->k]; }

/* A required field of node n, or NULL after an error (the message names the kind). */
static const cJSON *kg_nreq(kg_rd *r, const cJSON *j, const kg_ast *n, const char *key,
                            const kg_ast *at) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, key);
  if (!f)
    kg_rd_err(r, KG_E_FORMAT, n->path, at, "%s is missing required field '%s'", kg_node_what(n),
              key);
  return f;
}

/* A required child node n.key. */
static kg_ast *kg_rd_kid(kg_rd *r, const cJSON *j, const kg_ast *n, const char *key,
                         const kg_ast *at) {
  const cJSON *f = kg_nreq(r, j, n, key, at);
  return f ? kg_rd_node(r, f, kg_rd_path(r, n->path, key, -1), at) : NULL;
}

/* "obj": a node or null (static members). */
static kg_ast *kg_rd_obj(kg_rd *r, const cJSON *j, const kg_ast *n, const kg_ast *at) {
  const cJSON *f = kg_nreq(r, j, n, "obj", at);
  return f && !cJSON_IsNull(f) ? kg_rd_node(r, f, kg_rd_path(r, n->path, "obj", -1), at) : NULL;
}

/* The nodes of array field f (already checked) at n.key[i]. */
static kg_ast **kg_rd_node_list(kg_rd *r, const cJSON *f, const kg_ast *n, const char *key,
                                const kg_ast *at, uint32_t *count) {
  uint32_t cnt = (uint32_t)cJSON_GetArraySize(f), i = 0;
  kg_ast **v = kg_arena_alloc(r->arena, (cnt ? cnt : 1) * sizeof *v);
  for (const cJSON *e = f->child; e && !r->stop; e = e->next, i++)
    v[i] = kg_rd_node(r, e, kg_rd_path(r, n->path, key, (long)i), at);
  *count = cnt;
  return v;
}

/* A required array-of-nodes field. */
static kg_ast **kg_rd_kids(kg_rd *r, const cJSON *j, const kg_ast *n, const char *key,
                           const kg_ast *at, uint32_t *count) {
  const cJSON *f = kg_nreq(r, j, n, key, at);
  *count = 0;
  if (!f) return NULL;
  if (!cJSON_IsArray(f)) {
    kg_bad_field(r, f, key, "an array of nodes", n->path, at);
    return NULL;
  }
  return kg_rd_node_list(r, f, n, key, at, count);
}

/* A variable index field, checked against "vars". */
static void kg_rd_var(kg_rd *r, const cJSON *j, const char *key, const char *path, const char *what,
                      const kg_ast *at, uint32_t *out) {
  const cJSON *f = kg_req(r, j, key, what, path, at);
  int64_t v;
  if (!f) return;
  if (!kg_jint(f, &v)) {
    kg_bad_field(r, f, key, "a variable index (an integer)", path, at);
  } else if (v < 0 || v >= (int64_t)r->doc->n_vars) {
    kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, path, key, -1), at,
              "variable index %lld is out of range (\"vars\" has %u %s)", (long long)v,
              r->doc->n_vars, kg_plural(r->doc->n_vars, "entry", "entries"));
  } else {
    *out = (uint32_t)v;
  }
}

static void kg_rd_node_var(kg_rd *r, const cJSON *j, kg_ast *n, const kg_ast *at) {
  if (kg_nreq(r, j, n, "var", at)) kg_rd_var(r, j, "var", n->path, kg_node_what(n), at, &n->var);
}

static void kg_rd_member_field(kg_rd *r, const cJSON *j, kg_ast *n, const char *key,
                               const kg_ast *at, kg_member_form form) {
  const cJSON *f = kg_nreq(r, j, n, key, at);
  if (f) n->member = kg_rd_member(r, f, kg_rd_path(r, n->path, key, -1), at, form);
}

/* A constant "value", decoded by the node's "ty". */
static void kg_rd_const(kg_rd *r, const cJSON *j, kg_ast *n, const kg_ast *at) {
  const cJSON *f = kg_nreq(r, j, n, "value", at);
  if (f && n->ty) kg_rd_value(r, f, n->ty, kg_rd_path(r, n->path, "value", -1), at, &n->value);
}

/* "loc": [file, startLine, startCol, endLine, endCol], file an index into "files". */
static void kg_rd_loc(kg_rd *r, const cJSON *j, kg_ast *n, const kg_ast *up) {
  const cJSON *f = kg_opt(j, "loc");
  if (!f) return;
  const char *lp = kg_rd_path(r, n->path, "loc", -1);
  if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) != 5) {
    kg_rd_err(r, KG_E_FORMAT, lp, up,
              "field 'loc' must be an array of 5 integers [file, startLine, startCol, endLine, "
              "endCol], found %s",
              kg_rd_found(r, f));
    return;
  }
  int32_t v[5];
  int i = 0;
  bool ok = true;
  for (const cJSON *e = f->child; e; e = e->next, i++) {
    int64_t x;
    if (!kg_jint(e, &x) || x < 0 || x > INT32_MAX) {
      kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, lp, NULL, i), up,
                "loc items must be integers from 0 to 2147483647, found %s", kg_rd_found(r, e));
      ok = false;
    } else {
      v[i] = (int32_t)x;
    }
  }
  if (!ok) return;
  if ((uint32_t)v[0] >= r->doc->n_files) {
    kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, lp, NULL, 0), up,
              "loc file index %d is out of range (\"files\" has %u %s)", (int)v[0], r->doc->n_files,
              kg_plural(r->doc->n_files, "entry", "entries"));
    return;
  }
  n->has_loc = true;
  memcpy(n->loc, v, sizeof v);
}

/* LetRecursive "bindings": [{"var", "value"}]. */
static void kg_rd_bindings(kg_rd *r, const cJSON *j, kg_ast *n, const kg_ast *at) {
  const cJSON *f = kg_nreq(r, j, n, "bindings", at);
  if (!f) return;
  if (!cJSON_IsArray(f)) {
    kg_bad_field(r, f, "bindings", "an array of {\"var\", \"value\"}", n->path, at);
    return;
  }
  uint32_t cnt = (uint32_t)cJSON_GetArraySize(f), i = 0;
  n->kids = kg_arena_alloc(r->arena, (cnt ? cnt : 1) * sizeof *n->kids);
  n->bind_vars = kg_arena_alloc(r->arena, (cnt ? cnt : 1) * sizeof *n->bind_vars);
  n->n_kids = cnt;
  for (const cJSON *b = f->child; b && !r->stop; b = b->next, i++) {
    const char *bp = kg_rd_path(r, n->path, "bindings", (long)i);
    if (!cJSON_IsObject(b)) {
      kg_rd_err(r, KG_E_FORMAT, bp, at,
                "a binding must be an object {\"var\", \"value\"}, found %s", kg_rd_found(r, b));
      continue;
    }
    kg_rd_var(r, b, "var", bp, "a binding", at, &n->bind_vars[i]);
    const cJSON *v = kg_req(r, b, "value", "a binding", bp, at);
    if (v) n->kids[i] = kg_rd_node(r, v, kg_rd_path(r, bp, "value", -1), at);
  }
}

/* Kinds kgen parses but does not compile: the spec leaves their fields "as in F#",
 * so every field holding a node (or an array of nodes) is read as a child, in
 * document order, into kids; "expr" goes to `a` for the kinds with one operand,
 * and WithValue's "value" is decoded as a constant. Elaboration rejects them. */
static bool kg_is_node_json(const cJSON *f) {
  return cJSON_IsObject(f) && cJSON_GetObjectItemCaseSensitive(f, "k") != NULL;
}

static void kg_rd_other(kg_rd *r, const cJSON *j, kg_ast *n, const kg_ast *at) {
  bool expr_in_a = n->k == KG_AST_Quote || n->k == KG_AST_WithValue || n->k == KG_AST_AddressOf ||
                   n->k == KG_AST_TypeTest || n->k == KG_AST_UnionCaseTest;
  uint32_t cap = 0;
  for (const cJSON *f = j->child; f; f = f->next) {
    if (kg_is_node_json(f))
      cap++;
    else if (cJSON_IsArray(f))
      for (const cJSON *e = f->child; e; e = e->next) cap += kg_is_node_json(e);
  }
  n->kids = kg_arena_alloc(r->arena, (cap ? cap : 1) * sizeof *n->kids);
  for (const cJSON *f = j->child; f && !r->stop; f = f->next) {
    bool is_meta = !strcmp(f->string, "k") || !strcmp(f->string, "ty") || !strcmp(f->string, "loc");
    if (is_meta || (n->k == KG_AST_WithValue && !strcmp(f->string, "value"))) continue;
    if (kg_is_node_json(f)) {
      kg_ast *c = kg_rd_node(r, f, kg_rd_path(r, n->path, f->string, -1), at);
      if (expr_in_a && !n->a && !strcmp(f->string, "expr"))
        n->a = c;
      else
        n->kids[n->n_kids++] = c;
    } else if (cJSON_IsArray(f)) {
      long i = 0;
      for (const cJSON *e = f->child; e && !r->stop; e = e->next, i++)
        if (kg_is_node_json(e))
          n->kids[n->n_kids++] = kg_rd_node(r, e, kg_rd_path(r, n->path, f->string, i), at);
    }
  }
  if (n->k == KG_AST_WithValue) kg_rd_const(r, j, n, at);
}

/* The fields of each kind (spec "Nodes"; the slots are listed in frontend.h). */
static void kg_rd_fields(kg_rd *r, const cJSON *j, kg_ast *n, const kg_ast *at) {
  switch (n->k) {
  case KG_AST_Var: kg_rd_node_var(r, j, n, at); break;
  case KG_AST_Value: kg_rd_const(r, j, n, at); break;
  case KG_AST_ValueWithName:
    kg_rd_const(r, j, n, at);
    n->name = kg_req_str(r, j, "name", kg_node_what(n), n->path, at, false);
    break;
  case KG_AST_Lambda: kg_rd_node_var(r, j, n, at), n->a = kg_rd_kid(r, j, n, "body", at); break;
  case KG_AST_Application:
    n->a = kg_rd_kid(r, j, n, "func", at), n->b = kg_rd_kid(r, j, n, "arg", at);
    break;
  case KG_AST_Let:
    kg_rd_node_var(r, j, n, at);
    n->a = kg_rd_kid(r, j, n, "value", at), n->b = kg_rd_kid(r, j, n, "body", at);
    break;
  case KG_AST_LetRecursive:
    kg_rd_bindings(r, j, n, at), n->a = kg_rd_kid(r, j, n, "body", at);
    break;
  case KG_AST_IfThenElse:
    n->a = kg_rd_kid(r, j, n, "cond", at), n->b = kg_rd_kid(r, j, n, "then", at);
    n->c = kg_rd_kid(r, j, n, "else", at);
    break;
  case KG_AST_ForIntegerRangeLoop:
    kg_rd_node_var(r, j, n, at);
    n->a = kg_rd_kid(r, j, n, "start", at), n->b = kg_rd_kid(r, j, n, "end", at);
    n->c = kg_rd_kid(r, j, n, "body", at);
    break;
  case KG_AST_TryFinally: /* docs/fsharp.md: {"body", "finally"} (how `use` arrives) */
    n->a = kg_rd_kid(r, j, n, "body", at), n->b = kg_rd_kid(r, j, n, "finally", at);
    break;
  case KG_AST_WhileLoop:
    n->a = kg_rd_kid(r, j, n, "cond", at), n->b = kg_rd_kid(r, j, n, "body", at);
    break;
  case KG_AST_Sequential:
    n->a = kg_rd_kid(r, j, n, "first", at), n->b = kg_rd_kid(r, j, n, "second", at);
    break;
  case KG_AST_VarSet: kg_rd_node_var(r, j, n, at), n->a = kg_rd_kid(r, j, n, "value", at); break;
  case KG_AST_Call: {
    n->a = kg_rd_obj(r, j, n, at);
    kg_rd_member_field(r, j, n, "method", at, KG_MF_CALL);
    n->kids = kg_rd_kids(r, j, n, "args", at, &n->n_kids);
    const cJSON *w = kg_opt(j, "witnesses");
    if (w && !cJSON_IsArray(w))
      kg_bad_field(r, w, "witnesses", "an array of nodes", n->path, at);
    else if (w)
      n->wits = kg_rd_node_list(r, w, n, "witnesses", at, &n->n_wits);
    break;
  }
  case KG_AST_PropertyGet:
    n->a = kg_rd_obj(r, j, n, at);
    kg_rd_member_field(r, j, n, "property", at, KG_MF_GET);
    n->kids = kg_rd_kids(r, j, n, "args", at, &n->n_kids);
    break;
  case KG_AST_PropertySet:
    n->a = kg_rd_obj(r, j, n, at);
    kg_rd_member_field(r, j, n, "property", at, KG_MF_SET);
    n->kids = kg_rd_kids(r, j, n, "args", at, &n->n_kids);
    n->b = kg_rd_kid(r, j, n, "value", at);
    break;
  case KG_AST_FieldGet:
    n->a = kg_rd_obj(r, j, n, at), kg_rd_member_field(r, j, n, "field", at, KG_MF_FIELD);
    break;
  case KG_AST_NewTuple:
  case KG_AST_NewStructTuple: n->kids = kg_rd_kids(r, j, n, "items", at, &n->n_kids); break;
  case KG_AST_TupleGet: {
    int64_t ix = 0;
    n->a = kg_rd_kid(r, j, n, "tuple", at);
    if (kg_req_int(r, j, "index", kg_node_what(n), n->path, at, 0, INT32_MAX, &ix))
      n->index = (int32_t)ix;
    break;
  }
  case KG_AST_NewArray:
    n->elem_type = kg_req_str(r, j, "elemType", kg_node_what(n), n->path, at, true);
    n->kids = kg_rd_kids(r, j, n, "items", at, &n->n_kids);
    break;
  case KG_AST_NewObject:
    kg_rd_member_field(r, j, n, "ctor", at, KG_MF_CALL);
    n->kids = kg_rd_kids(r, j, n, "args", at, &n->n_kids);
    break;
  case KG_AST_Coerce: n->a = kg_rd_kid(r, j, n, "expr", at); break;
  case KG_AST_DefaultValue: break;
  default: kg_rd_other(r, j, n, at); break;
  }
}

static bool kg_kind_from_name(const char *s, kg_ast_kind *k) {
  for (int i = 0; i < KG_AST__COUNT; i++)
    if (strcmp(kg_ast_kind_names[i], s) == 0) {
      *k = (kg_ast_kind)i;
      return true;
    }
  return false;
}

/* Reads one node at `path` (an arena string); `up` is the nearest ancestor with
 * "loc". Returns NULL only when j is not a node at all; otherwise the node, with
 * errors recorded for whatever is wrong inside it. */
static kg_ast *kg_rd_node(kg_rd *r, const cJSON *j, const char *path, const kg_ast *up) {
  if (r->stop) return NULL;
  if (!cJSON_IsObject(j)) {
    kg_rd_err(r, KG_E_FORMAT, path, up,
              "expected a node (an object with \"k\" and \"ty\"), found %s", kg_rd_found(r, j));
    return NULL;
  }
  if (++r->doc->n_nodes > r->lim.max_nodes) {
    kg_rd_err(r, KG_E_LIMIT, path, up, "too many nodes: more than the limit of %u (max_nodes)",
              r->lim.max_nodes);
    r->stop = true;
    return NULL;
  }
  kg_ast *n = kg_arena_alloc(r->arena, sizeof *n);
  n->path = path;
  kg_rd_loc(r, j, n, up);
  const kg_ast *at = n->has_loc ? n : up;
  const cJSON *k = kg_req(r, j, "k", "a node", path, at);
  if (!k) return NULL;
  if (!cJSON_IsString(k)) {
    kg_bad_field(r, k, "k", "a node kind string", path, at);
    return NULL;
  }
  if (!kg_kind_from_name(k->valuestring, &n->k)) {
    kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, path, "k", -1), at, "unknown node kind '%s'",
              kg_fe_quote(r->arena, k->valuestring));
    return NULL;
  }
  n->ty = kg_req_str(r, j, "ty", kg_node_what(n), path, at, true);
  kg_rd_fields(r, j, n, at);
  return n;
}

/* ---- the document ---- */

typedef struct kg_named {
  const char *s;
  uint32_t i;
} kg_named;

static int kg_named_cmp(const void *a, const void *b) {
  const kg_named *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Reports every name of v that an earlier item of array `arr` already had. */
static void kg_rd_unique(kg_rd *r, kg_named *v, uint32_t n, const char *arr, const char *what) {
  qsort(v, n, sizeof *v, kg_named_cmp);
  for (uint32_t i = 1, first = 0; i < n; i++) {
    if (strcmp(v[i].s, v[i - 1].s) != 0) {
      first = i;
      continue;
    }
    kg_rd_err(r, KG_E_FORMAT, kg_rd_path(r, arr, NULL, v[i].i), NULL,
              "duplicate %s '%s' (first at %s[%u])", what, kg_fe_quote(r->arena, v[i].s), arr,
              v[first].i);
  }
}

static bool kg_rd_header(kg_rd *r, const cJSON *root) {
  uint32_t errs = r->n_errors;
  const char *fmt = kg_req_str(r, root, "format", "the document", "$", NULL, false);
  if (fmt && strcmp(fmt, "kgen-quotation") != 0)
    kg_rd_err(r, KG_E_FORMAT, "$.format", NULL, "unknown format '%s' (expected \"kgen-quotation\")",
              kg_fe_quote(r->arena, fmt));
  int64_t ver;
  const cJSON *v = kg_req(r, root, "version", "the document", "$", NULL);
  if (v && !kg_jint(v, &ver))
    kg_bad_field(r, v, "version", "an integer", "$", NULL);
  else if (v && (ver > 1 || ver < 1))
    kg_rd_err(r, KG_E_FORMAT, "$.version", NULL,
              "unsupported version %lld (this kgen reads version 1)", (long long)ver);
  return r->n_errors == errs;
}

static void kg_rd_files(kg_rd *r, const cJSON *root) {
  const cJSON *f = kg_opt(root, "files");
  if (f && !cJSON_IsArray(f))
    kg_bad_field(r, f, "files", "an array of file names", "$", NULL);
  else if (f)
    r->doc->files = kg_rd_strings(r, f, "files", "$", NULL, &r->doc->n_files);
}

static void kg_rd_vars(kg_rd *r, const cJSON *root) {
  const cJSON *f = kg_req_array(r, root, "vars", "the document", "$", NULL);
  if (!f) return;
  kg_doc *doc = r->doc;
  doc->n_vars = (uint32_t)cJSON_GetArraySize(f);
  doc->vars = kg_arena_alloc(r->arena, (doc->n_vars ? doc->n_vars : 1) * sizeof *doc->vars);
  uint32_t i = 0;
  for (const cJSON *e = f->child; e; e = e->next, i++) {
    const char *p = kg_rd_path(r, "$", "vars", (long)i);
    if (!cJSON_IsObject(e)) {
      kg_rd_err(r, KG_E_FORMAT, p, NULL,
                "a var must be an object {\"name\", \"type\", \"mutable\"}, found %s",
                kg_rd_found(r, e));
      continue;
    }
    doc->vars[i].name = kg_req_str(r, e, "name", "a var", p, NULL, false);
    doc->vars[i].type = kg_req_str(r, e, "type", "a var", p, NULL, true);
    doc->vars[i].is_mutable = kg_req_bool(r, e, "mutable", "a var", p, NULL);
  }
}

static void kg_rd_entries(kg_rd *r, const cJSON *root) {
  const cJSON *f = kg_req_array(r, root, "entries", "the document", "$", NULL);
  if (!f) return;
  kg_doc *doc = r->doc;
  doc->n_entries = (uint32_t)cJSON_GetArraySize(f);
  if (!doc->n_entries) {
    kg_rd_err(r, KG_E_FORMAT, "$.entries", NULL, "\"entries\" is empty: nothing to compile");
    return;
  }
  doc->entries = kg_arena_alloc(r->arena, doc->n_entries * sizeof *doc->entries);
  kg_named *names = kg_xmalloc(doc->n_entries * sizeof *names);
  uint32_t i = 0, n_names = 0;
  for (const cJSON *e = f->child; e && !r->stop; e = e->next, i++) {
    kg_doc_entry *en = &doc->entries[i];
    en->path = kg_rd_path(r, "$", "entries", (long)i);
    if (!cJSON_IsObject(e)) {
      kg_rd_err(r, KG_E_FORMAT, en->path, NULL,
                "an entry must be an object {\"name\", \"expr\", \"signature\"?}, found %s",
                kg_rd_found(r, e));
      continue;
    }
    en->name = kg_req_str(r, e, "name", "an entry", en->path, NULL, true);
    if (en->name) names[n_names++] = (kg_named){en->name, i};
    const cJSON *x = kg_req(r, e, "expr", "an entry", en->path, NULL);
    if (x) en->expr = kg_rd_node(r, x, kg_rd_path(r, en->path, "expr", -1), NULL);
    const cJSON *s = kg_opt(e, "signature");
    if (s && !cJSON_IsObject(s)) {
      kg_bad_field(r, s, "signature", "an object {\"params\", \"captures\"}", en->path, NULL);
    } else if (s) {
      en->sig = kg_fe_sig_from_json(r->arena, s, kg_rd_path(r, en->path, "signature", -1),
                                    r->lim.max_rank, r->d);
      if (!en->sig) r->n_errors++;
    }
  }
  kg_rd_unique(r, names, n_names, "$.entries", "entry name");
  free(names);
}

static void kg_rd_defs(kg_rd *r, const cJSON *root) {
  const cJSON *f = kg_opt(root, "definitions");
  if (!f) return;
  if (!cJSON_IsArray(f)) {
    kg_bad_field(r, f, "definitions", "an array of {\"member\", \"expr\"}", "$", NULL);
    return;
  }
  kg_doc *doc = r->doc;
  doc->n_defs = (uint32_t)cJSON_GetArraySize(f);
  doc->defs = kg_arena_alloc(r->arena, (doc->n_defs ? doc->n_defs : 1) * sizeof *doc->defs);
  kg_named *keys = kg_xmalloc((doc->n_defs ? doc->n_defs : 1) * sizeof *keys);
  uint32_t i = 0, n_keys = 0;
  for (const cJSON *e = f->child; e && !r->stop; e = e->next, i++) {
    kg_doc_def *df = &doc->defs[i];
    df->path = kg_rd_path(r, "$", "definitions", (long)i);
    if (!cJSON_IsObject(e)) {
      kg_rd_err(r, KG_E_FORMAT, df->path, NULL,
                "a definition must be an object {\"member\", \"expr\"}, found %s",
                kg_rd_found(r, e));
      continue;
    }
    const cJSON *m = kg_req(r, e, "member", "a definition", df->path, NULL);
    if (m) df->member = kg_rd_member(r, m, kg_rd_path(r, df->path, "member", -1), NULL, KG_MF_CALL);
    if (df->member && df->member->key) keys[n_keys++] = (kg_named){df->member->key, i};
    const cJSON *x = kg_req(r, e, "expr", "a definition", df->path, NULL);
    if (x) df->expr = kg_rd_node(r, x, kg_rd_path(r, df->path, "expr", -1), NULL);
  }
  kg_rd_unique(r, keys, n_keys, "$.definitions", "definition of");
  free(keys);
}

kg_doc *kg_fe_read(kg_arena *arena, const char *json, size_t len, const kg_fe_limits *lim,
                   kg_diag *d) {
  kg_rd r = {.arena = arena, .d = d};
  kg_fe_limits_resolve(lim, &r.lim);
  cJSON *root = kg_fe_json_parse(json, len, &r.lim, d);
  if (!root) return NULL;
  r.doc = kg_arena_alloc(arena, sizeof *r.doc);
  if (!cJSON_IsObject(root)) {
    kg_rd_err(&r, KG_E_FORMAT, "$", NULL, "the document must be a JSON object, found %s",
              kg_rd_found(&r, root));
  } else if (kg_rd_header(&r, root)) {
    kg_rd_files(&r, root);
    kg_rd_vars(&r, root);
    kg_rd_entries(&r, root);
    kg_rd_defs(&r, root);
  }
  cJSON_Delete(root);
  return r.n_errors ? NULL : r.doc;
}
