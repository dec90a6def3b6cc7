/* runtime/package_ir.c — the compiler's run-time structures ⇄ JSON, for offline kernel
 * packages (runtime/package.h, docs/package.md "The format").
 *
 * What is written is exactly what the runtime reads (exec.c, plan.c): typed programs (nodes
 * with their op by name, dtypes by name, shapes, attributes, JSON path and F# position for
 * run-time errors; map functions are not needed to run and are left out), fusion groups and
 * temporaries (host plans: runtime/package_plan.c), and each kernel's launch metadata — its parameters with their
 * roles and owners (r0, r1), its launch fields — never its body (that is the CUDA C and the
 * cubins). Structures that grow as kernel classes are added (kg_launch, kg_variant) go
 * through field tables: a field is written only when it is not zero, and a reader meets a
 * field it does not know as an error naming it (a package of a newer kgen), never as a
 * silently dropped launch setting. Enumerations go by name (ops, dtypes, roles), so a
 * reordered table reads the same.
 *
 * The reader checks every index the runtime will follow (nodes, symbols, parameters,
 * outputs, temporaries, groups), so a corrupt or hostile package is an
 * error at its JSON path, never an out-of-bounds read later.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

/* ---- field tables ---- */

typedef enum { PF_U8, PF_U32, PF_U32X3 } pf_type;
typedef struct pk_field {
  const char *key;
  uint32_t off;
  uint8_t type;
} pk_field;

#define PKF(T, f, ty) {#f, (uint32_t)offsetof(T, f), ty}
/* A new field of kg_launch or kg_variant goes into its table here (and into docs/package.md):
 * these asserts fail when the structure grows, so that it is not forgotten. */
_Static_assert(sizeof(kg_launch) == 36, "kg_launch changed: add the field to launch_fields (runtime/package_ir.c) and docs/package.md");
_Static_assert(sizeof(kg_variant) == 15, "kg_variant changed: add the field to variant_fields (runtime/package_ir.c) and docs/package.md");
static const pk_field launch_fields[] = {
    PKF(kg_launch, per_output, PF_U8), PKF(kg_launch, block, PF_U32X3), PKF(kg_launch, elems_per_thread, PF_U32),
    PKF(kg_launch, smem_static, PF_U32), PKF(kg_launch, smem_dyn, PF_U32), PKF(kg_launch, tile_m, PF_U32), PKF(kg_launch, tile_n, PF_U32),
};
static const pk_field variant_fields[] = {
    PKF(kg_variant, layout, PF_U8), PKF(kg_variant, vec, PF_U8),   PKF(kg_variant, index_dtype, PF_U8), PKF(kg_variant, split, PF_U8),
    PKF(kg_variant, warp, PF_U8),   PKF(kg_variant, plan, PF_U8),  PKF(kg_variant, cache, PF_U8),       PKF(kg_variant, mm_tile, PF_U8),
    PKF(kg_variant, mm_prec, PF_U8), PKF(kg_variant, mm_a, PF_U8), PKF(kg_variant, mm_b, PF_U8),   PKF(kg_variant, cpu, PF_U8),
    PKF(kg_variant, no_online, PF_U8), PKF(kg_variant, seg, PF_U8), PKF(kg_variant, mm_fold, PF_U8),
};

static const char *const role_names[] = {"tensor", "numel", "size", "stride", "scalar", "red_n", "split_len", "split_n", "split_nb", "sym", "rng", "tmap", "kept"};
_Static_assert(KPR_KEPT == 12, "a kernel parameter role was added: name it in role_names (runtime/package_ir.c) and docs/package.md");

/* ---- writing ---- */

void kg_pkw_str(kg_strbuf *b, const char *s) {
  if (!s) {
    kg_sb_puts(b, "null");
    return;
  }
  kg_sb_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') kg_sb_putc(b, '\\'), kg_sb_putc(b, (char)*p);
    else if (*p < 0x20) kg_sb_printf(b, "\\u%04x", *p);
    else kg_sb_putc(b, (char)*p);
  }
  kg_sb_putc(b, '"');
}

void kg_pkw_i64(kg_strbuf *b, int64_t v) {
  /* JSON numbers are read as doubles: beyond 2^53 an integer goes as a string */
  if (v > ((int64_t)1 << 53) || v < -((int64_t)1 << 53)) kg_sb_printf(b, "\"%lld\"", (long long)v);
  else kg_sb_printf(b, "%lld", (long long)v);
}
static void w_f64(kg_strbuf *b, double v) {
  if (isnan(v)) kg_sb_puts(b, "\"nan\"");
  else if (isinf(v)) kg_sb_puts(b, v > 0 ? "\"inf\"" : "\"-inf\"");
  else kg_sb_printf(b, "%.17g", v);
}
void kg_pkw_u32s(kg_strbuf *b, const uint32_t *v, uint32_t n) {
  kg_sb_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) kg_sb_printf(b, "%s%u", i ? "," : "", v[i]);
  kg_sb_putc(b, ']');
}
static void w_fields(kg_strbuf *b, const void *s, const pk_field *f, int n) {
  kg_sb_putc(b, '{');
  bool first = true;
  for (int i = 0; i < n; i++) {
    const unsigned char *p = (const unsigned char *)s + f[i].off;
    uint32_t u[3] = {0, 0, 0};
    if (f[i].type == PF_U8) u[0] = *p;
    else memcpy(u, p, f[i].type == PF_U32X3 ? 12 : 4);
    if (!u[0] && !u[1] && !u[2]) continue;
    kg_sb_printf(b, "%s\"%s\":", first ? "" : ",", f[i].key);
    first = false;
    if (f[i].type == PF_U32X3) kg_sb_printf(b, "[%u,%u,%u]", u[0], u[1], u[2]);
    else kg_sb_printf(b, "%u", u[0]);
  }
  kg_sb_putc(b, '}');
}
/* a shape: static sizes as numbers, symbol k as -(k + 1) */
static void w_shape(kg_strbuf *b, const kg_shape *s) {
  kg_sb_putc(b, '[');
  for (int i = 0; i < s->rank; i++) {
    kg_sb_puts(b, i ? "," : "");
    kg_pkw_i64(b, s->d[i].kind == KG_DIM_STATIC ? s->d[i].v : -(s->d[i].v + 1));
  }
  kg_sb_putc(b, ']');
}

static void w_node(kg_strbuf *b, const kg_gnode *n) {
  kg_sb_printf(b, "{\"op\":\"%s\",\"dt\":\"%s\"", kg_op_name((kg_op)n->op), kg_dtype_name((kg_dtype)n->dtype));
  if (n->cdtype != n->dtype) kg_sb_printf(b, ",\"cdt\":\"%s\"", n->cdtype < KG_DT__COUNT ? kg_dtype_name((kg_dtype)n->cdtype) : "none");
  if (n->vkind == KG_V_SCALAR) kg_sb_puts(b, ",\"scalar\":1");
  if (n->n_in) kg_sb_puts(b, ",\"in\":"), kg_pkw_u32s(b, n->in, n->n_in);
  if (n->shape.rank) kg_sb_puts(b, ",\"shape\":"), w_shape(b, &n->shape);
  if (n->ia[0] || n->ia[1] || n->ia[2] || n->ia[3]) {
    kg_sb_puts(b, ",\"ia\":[");
    for (int i = 0; i < 4; i++) kg_sb_puts(b, i ? "," : ""), kg_pkw_i64(b, n->ia[i]);
    kg_sb_putc(b, ']');
  }
  if (n->fa[0] != 0 || n->fa[1] != 0 || n->fa[2] != 0 || n->fa[3] != 0 || signbit(n->fa[0]) || signbit(n->fa[1]) || signbit(n->fa[2]) ||
      signbit(n->fa[3])) {
    kg_sb_puts(b, ",\"fa\":[");
    for (int i = 0; i < 4; i++) kg_sb_puts(b, i ? "," : ""), w_f64(b, n->fa[i]);
    kg_sb_putc(b, ']');
  }
  if (n->path) kg_sb_puts(b, ",\"path\":"), kg_pkw_str(b, n->path);
  if (n->srcloc) kg_sb_puts(b, ",\"loc\":"), kg_pkw_str(b, n->srcloc);
  kg_sb_putc(b, '}');
}

void kg_pkw_graph(kg_strbuf *b, const kg_graph *g) {
  kg_sb_puts(b, "{\"entry\":"), kg_pkw_str(b, g->entry);
  kg_sb_puts(b, ",\"syms\":[");
  for (uint32_t i = 0; i < g->syms.n; i++) kg_sb_puts(b, i ? "," : ""), kg_pkw_str(b, g->syms.v[i]);
  kg_sb_puts(b, "],\"symdefs\":[");
  for (uint32_t i = 0; i < g->symdefs.n; i++) {
    const kg_symdef *s = &g->symdefs.v[i];
    kg_sb_printf(b, "%s{\"sym\":%u,\"coeff\":", i ? "," : "", s->sym);
    kg_pkw_i64(b, s->coeff);
    kg_sb_puts(b, ",\"f\":"), kg_pkw_u32s(b, s->f, s->n), kg_sb_putc(b, '}');
  }
  kg_sb_puts(b, "],\"guards\":[");
  for (uint32_t i = 0; i < g->guards.n; i++) {
    const kg_sym_guard *q = &g->guards.v[i];
    kg_sb_printf(b, "%s{\"a\":%u,\"b\":%u,\"path\":", i ? "," : "", q->a, q->b);
    kg_pkw_str(b, q->path), kg_sb_puts(b, ",\"loc\":"), kg_pkw_str(b, q->srcloc), kg_sb_putc(b, '}');
  }
  kg_sb_printf(b, "],\"n_entry_params\":%u,\"params\":[", g->n_entry_params);
  for (uint32_t i = 0; i < g->params.n; i++) {
    const kg_gparam *p = &g->params.v[i];
    kg_sb_puts(b, i ? ",{\"name\":" : "{\"name\":"), kg_pkw_str(b, p->name);
    kg_sb_printf(b, ",\"node\":%u", p->node);
    if (p->is_capture) kg_sb_puts(b, ",\"capture\":1");
    if (p->wb) kg_sb_printf(b, ",\"wb\":%u", p->wb);
    if (p->range) kg_sb_puts(b, ",\"range\":["), w_f64(b, p->range[0]), kg_sb_putc(b, ','), w_f64(b, p->range[1]), kg_sb_putc(b, ']');
    kg_sb_putc(b, '}');
  }
  kg_sb_puts(b, "],\"outputs\":"), kg_pkw_u32s(b, g->outputs.v, g->outputs.n);
  kg_sb_puts(b, ",\"nodes\":[");
  for (uint32_t i = 0; i < g->nodes.n; i++) kg_sb_puts(b, i ? ",\n" : "\n"), w_node(b, &g->nodes.v[i]);
  kg_sb_puts(b, "]}");
}

void kg_pkw_fusion(kg_strbuf *b, const kg_fusion *f) {
  kg_sb_puts(b, "{\"groups\":[");
  for (uint32_t i = 0; i < f->groups.n; i++) {
    const kg_group *G = &f->groups.v[i];
    kg_sb_printf(b, "%s{\"kind\":%u,\"space\":", i ? "," : "", G->kind);
    w_shape(b, &G->space);
    kg_sb_puts(b, ",\"outs\":"), kg_pkw_u32s(b, G->outs.v, G->outs.n);
    if (G->kind != KG_GROUP_POINTWISE) kg_sb_printf(b, ",\"red\":%u", G->red);
    kg_sb_puts(b, ",\"reds\":"), kg_pkw_u32s(b, G->reds.v, G->reds.n);
    kg_sb_puts(b, ",\"epi\":"), kg_pkw_u32s(b, G->epi.v, G->epi.n);
    kg_sb_puts(b, ",\"mats\":"), kg_pkw_u32s(b, G->mats.v, G->mats.n);
    if (G->pre.n) kg_sb_puts(b, ",\"pre\":"), kg_pkw_u32s(b, G->pre.v, G->pre.n); /* a product's row statistics */
    kg_sb_putc(b, '}');
  }
  kg_sb_puts(b, "],\"mat\":"), kg_pkw_u32s(b, f->mat.v, f->mat.n);
  kg_sb_puts(b, ",\"mat_buf\":[");
  for (uint32_t i = 0; i < f->mat_buf.n; i++) kg_sb_printf(b, "%s[%u,%u]", i ? "," : "", f->mat_buf.v[i].kind, f->mat_buf.v[i].index);
  kg_sb_puts(b, "],\"temps\":"), kg_pkw_u32s(b, f->temps.v, f->temps.n);
  kg_sb_putc(b, '}');
}

void kg_pkw_kernel(kg_strbuf *b, const kg_kernel *k) {
  kg_sb_puts(b, "{\"name\":"), kg_pkw_str(b, k->name);
  kg_sb_printf(b, ",\"index\":\"%s\",\"vec\":%u,\"schedule\":", kg_dtype_name((kg_dtype)k->index_dtype), k->vec);
  kg_pkw_str(b, k->schedule);
  kg_sb_puts(b, ",\"params\":[");
  for (uint32_t i = 0; i < k->params.n; i++) {
    const kg_kparam *p = &k->params.v[i];
    KG_ASSERT(p->role < KG_COUNTOF(role_names));
    kg_sb_puts(b, i ? ",[" : "["), kg_pkw_str(b, p->name);
    kg_sb_printf(b, ",\"%s\",\"%s\",%d,\"%s\",%u,%u]", p->kind == KP_BUFFER ? "buffer" : p->kind == KP_TMAP ? "tmap" : "scalar", kg_dtype_name((kg_dtype)p->dtype), p->is_output ? 1 : 0,
                 role_names[p->role], p->r0, p->r1);
  }
  kg_sb_puts(b, "],\"launch\":");
  w_fields(b, &k->launch, launch_fields, (int)KG_COUNTOF(launch_fields));
  if (k->tmaps.n) { /* TMA tensor maps made at launch: [owner, index, inner dim, outer dim, batched, box inner, box outer, swizzle] */
    kg_sb_puts(b, ",\"tmaps\":[");
    for (uint32_t i = 0; i < k->tmaps.n; i++) {
      const kg_ktmap *t = &k->tmaps.v[i];
      kg_sb_printf(b, "%s[%u,%u,%d,%d,%d,%u,%u,%u]", i ? "," : "", t->owner, t->index, t->inner, t->outer, t->batched ? 1 : 0, t->box[0], t->box[1], t->swizzle);
    }
    kg_sb_putc(b, ']');
  }
  if (k->sm90a) kg_sb_puts(b, ",\"sm90a\":1");
  if (k->max_threads) kg_sb_printf(b, ",\"max_threads\":%u", k->max_threads);
  kg_sb_putc(b, '}');
}

void kg_pkw_variant(kg_strbuf *b, const kg_variant *v) { w_fields(b, v, variant_fields, (int)KG_COUNTOF(variant_fields)); }

/* ---- reading ---- */

void kg_pkr_push(kg_pkr *R, const char *key, int idx) {
  if (R->depth < (int)KG_COUNTOF(R->fr)) R->fr[R->depth].key = key, R->fr[R->depth].idx = idx;
  R->depth++;
}
void kg_pkr_pop(kg_pkr *R) { R->depth--; }

bool kg_pkr_fail(kg_pkr *R, const char *fmt, ...) {
  if (R->failed) return false;
  R->failed = true;
  kg_strbuf p;
  kg_sb_init(&p);
  kg_sb_printf(&p, "%s: section %s: $", R->file ? R->file : "package", R->where ? R->where : "manifest");
  for (int i = 0; i < R->depth && i < (int)KG_COUNTOF(R->fr); i++) {
    if (R->fr[i].key) kg_sb_printf(&p, ".%s", R->fr[i].key);
    if (R->fr[i].idx >= 0) kg_sb_printf(&p, "[%d]", R->fr[i].idx);
  }
  va_list ap;
  va_start(ap, fmt);
  kg_strbuf m;
  kg_sb_init(&m);
  kg_sb_vprintf(&m, fmt, ap);
  va_end(ap);
  kg_diag_add(R->d, KG_E_FORMAT, kg_sb_cstr(&p), NULL, "corrupt or unsupported kernel package: %s", kg_sb_cstr(&m));
  kg_sb_free(&p), kg_sb_free(&m);
  return false;
}

const cJSON *kg_pkr_get(const cJSON *o, const char *key) {
  /* cJSON_GetObjectItemCaseSensitive without a strcmp call per member: the first byte decides most */
  if (!cJSON_IsObject(o)) return NULL;
  for (const cJSON *x = o->child; x; x = x->next)
    if (x->string && x->string[0] == key[0] && !strcmp(x->string, key)) return x;
  return NULL;
}

bool kg_pkr_int(kg_pkr *R, const cJSON *v, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  kg_pkr_push(R, key, -1);
  bool ok = false;
  int64_t x = 0;
  if (cJSON_IsNumber(v)) {
    double f = v->valuedouble;
    ok = f == floor(f) && f >= -9007199254740992.0 && f <= 9007199254740992.0;
    x = ok ? (int64_t)f : 0;
  } else if (cJSON_IsString(v) && v->valuestring[0]) {
    char *e;
    long long y = strtoll(v->valuestring, &e, 10);
    ok = !*e;
    x = y;
  }
  if (!ok) kg_pkr_fail(R, "expected an integer");
  else if (x < lo || x > hi) ok = kg_pkr_fail(R, "%lld is outside [%lld, %lld]", (long long)x, (long long)lo, (long long)hi);
  kg_pkr_pop(R);
  if (ok) *out = x;
  return ok;
}

static bool r_f64(kg_pkr *R, const cJSON *v, double *out) {
  if (cJSON_IsNumber(v)) return *out = v->valuedouble, true;
  if (cJSON_IsString(v)) {
    if (!strcmp(v->valuestring, "nan")) return *out = NAN, true;
    if (!strcmp(v->valuestring, "inf")) return *out = INFINITY, true;
    if (!strcmp(v->valuestring, "-inf")) return *out = -INFINITY, true;
  }
  return kg_pkr_fail(R, "expected a number");
}

const char *kg_pkr_strv(kg_pkr *R, const cJSON *v, const char *key, bool nullable) {
  if (nullable && (!v || cJSON_IsNull(v))) return NULL;
  if (!cJSON_IsString(v)) {
    kg_pkr_push(R, key, -1);
    kg_pkr_fail(R, v ? "expected a string" : "missing");
    kg_pkr_pop(R);
    return NULL;
  }
  return kg_arena_strdup(R->arena, v->valuestring);
}

bool kg_pkr_u32s(kg_pkr *R, const cJSON *arr, const char *key, uint32_t hi, uint32_t **out, uint32_t *n) {
  *out = NULL, *n = 0;
  if (!cJSON_IsArray(arr)) {
    kg_pkr_push(R, key, -1);
    kg_pkr_fail(R, arr ? "expected an array" : "missing");
    kg_pkr_pop(R);
    return false;
  }
  int cnt = cJSON_GetArraySize(arr);
  uint32_t *v = kg_arena_alloc(R->arena, ((size_t)cnt + 1) * sizeof *v);
  int i = 0;
  for (const cJSON *x = arr->child; x; x = x->next, i++) {
    int64_t y;
    kg_pkr_push(R, key, i);
    bool ok = kg_pkr_int(R, x, NULL, 0, (int64_t)hi - 1, &y);
    kg_pkr_pop(R);
    if (!ok) return false;
    v[i] = (uint32_t)y;
  }
  *out = v, *n = (uint32_t)cnt;
  return true;
}

/* into a KG_VEC of uint32 */
bool kg_pkr_keys(kg_pkr *R, const cJSON *o, const char *const *keys, int n) {
  if (!cJSON_IsObject(o)) return kg_pkr_fail(R, "expected an object");
  for (const cJSON *x = o->child; x; x = x->next) {
    bool known = false;
    for (int i = 0; i < n && !known; i++) known = x->string && x->string[0] == keys[i][0] && !strcmp(x->string, keys[i]);
    if (!known)
      return kg_pkr_fail(R, "field '%s' is not known to this kgen (%s, package format %d): the package needs a newer kgen, or was damaged",
                         x->string ? x->string : "?", KGEN_VERSION_STRING, KG_PKG_FORMAT);
  }
  return true;
}

static bool r_fields(kg_pkr *R, const cJSON *o, void *s, const pk_field *f, int n, const char *what) {
  if (!cJSON_IsObject(o)) return kg_pkr_fail(R, "%s: expected an object", what);
  for (const cJSON *x = o->child; x; x = x->next) {
    int i = 0;
    while (i < n && strcmp(f[i].key, x->string)) i++;
    if (i == n)
      return kg_pkr_fail(R, "%s field '%s' is not known to this kgen (%s, package format %d): the package needs a newer kgen, or was damaged", what,
                         x->string, KGEN_VERSION_STRING, KG_PKG_FORMAT);
    unsigned char *p = (unsigned char *)s + f[i].off;
    int64_t y;
    if (f[i].type == PF_U32X3) {
      if (!cJSON_IsArray(x) || cJSON_GetArraySize(x) != 3) return kg_pkr_fail(R, "%s field '%s': expected 3 numbers", what, x->string);
      uint32_t u[3];
      int j = 0;
      for (const cJSON *e = x->child; e; e = e->next, j++) {
        if (!kg_pkr_int(R, e, x->string, 0, UINT32_MAX, &y)) return false;
        u[j] = (uint32_t)y;
      }
      memcpy(p, u, sizeof u);
    } else {
      if (!kg_pkr_int(R, x, x->string, 0, f[i].type == PF_U8 ? 255 : UINT32_MAX, &y)) return false;
      if (f[i].type == PF_U8) *p = (uint8_t)y;
      else {
        uint32_t u = (uint32_t)y;
        memcpy(p, &u, 4);
      }
    }
  }
  return true;
}

/* ops and dtypes by name through hash tables in the reader, built on its first node (a plan of
 * thousands of nodes scanned the op table with strcmp for each: 8 % of a large plan's load) */
static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static void build_tabs(kg_pkr *R) {
  _Static_assert(KG_OP__COUNT < 256 && KG_DT__COUNT < 32, "the reader's name tables hold at most half their slots");
  memset(R->optab, 0, sizeof R->optab), memset(R->dttab, 0, sizeof R->dttab);
  for (int o = 0; o < KG_OP__COUNT; o++) {
    uint32_t i = name_hash(kg_op_name((kg_op)o)) & 511;
    while (R->optab[i]) i = (i + 1) & 511;
    R->optab[i] = (uint16_t)(o + 1);
  }
  for (int t = 0; t < KG_DT__COUNT; t++) {
    uint32_t i = name_hash(kg_dtype_name((kg_dtype)t)) & 63;
    while (R->dttab[i]) i = (i + 1) & 63;
    R->dttab[i] = (uint8_t)(t + 1);
  }
  R->tabs = true;
}

static kg_op op_by_name(kg_pkr *R, const char *s) {
  if (!R->tabs) build_tabs(R);
  for (uint32_t i = name_hash(s) & 511; R->optab[i]; i = (i + 1) & 511)
    if (!strcmp(kg_op_name((kg_op)(R->optab[i] - 1)), s)) return (kg_op)(R->optab[i] - 1);
  return KG_OP__COUNT;
}

static kg_dtype dtype_by_name(kg_pkr *R, const char *s) {
  if (!R->tabs) build_tabs(R);
  for (uint32_t i = name_hash(s) & 63; R->dttab[i]; i = (i + 1) & 63)
    if (!strcmp(kg_dtype_name((kg_dtype)(R->dttab[i] - 1)), s)) return (kg_dtype)(R->dttab[i] - 1);
  return KG_DT_NONE;
}

static bool r_dtype(kg_pkr *R, const cJSON *v, const char *key, bool none_ok, uint8_t *out) {
  const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
  if (s && none_ok && !strcmp(s, "none")) return *out = KG_DT_NONE, true;
  kg_dtype t = s ? dtype_by_name(R, s) : KG_DT_NONE;
  if (t == KG_DT_NONE) {
    kg_pkr_push(R, key, -1);
    kg_pkr_fail(R, "expected a dtype name");
    kg_pkr_pop(R);
    return false;
  }
  *out = (uint8_t)t;
  return true;
}

static bool r_shape(kg_pkr *R, const cJSON *v, const char *key, uint32_t nsyms, kg_shape *s) {
  memset(s, 0, sizeof *s);
  if (!v) return true;
  kg_pkr_push(R, key, -1);
  bool ok = cJSON_IsArray(v) && cJSON_GetArraySize(v) <= KG_MAX_RANK;
  if (!ok) kg_pkr_fail(R, "expected an array of at most %d sizes", KG_MAX_RANK);
  int i = 0;
  for (const cJSON *x = ok ? v->child : NULL; x && ok; x = x->next, i++) {
    int64_t y;
    ok = kg_pkr_int(R, x, NULL, -(int64_t)nsyms, INT64_MAX, &y);
    if (y >= 0) s->d[i].kind = KG_DIM_STATIC, s->d[i].v = y;
    else s->d[i].kind = KG_DIM_SYM, s->d[i].v = -y - 1;
  }
  s->rank = (uint8_t)i;
  kg_pkr_pop(R);
  return ok;
}

static bool r_node(kg_pkr *R, const cJSON *j, uint32_t id, const kg_graph *g, kg_gnode *n) {
  static const char *const keys[] = {"op", "dt", "cdt", "scalar", "in", "shape", "ia", "fa", "path", "loc"};
  memset(n, 0, sizeof *n);
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  const cJSON *opj = kg_pkr_get(j, "op");
  if (!cJSON_IsString(opj)) return kg_pkr_strv(R, opj, "op", false), false; /* the error */
  const char *op = opj->valuestring;
  kg_op o = op_by_name(R, op);
  if (o == KG_OP__COUNT) return kg_pkr_fail(R, "op '%s' is not known to this kgen (%s)", op, KGEN_VERSION_STRING);
  n->op = (uint16_t)o;
  if (!r_dtype(R, kg_pkr_get(j, "dt"), "dt", false, &n->dtype)) return false;
  n->cdtype = n->dtype;
  if (kg_pkr_get(j, "cdt") && !r_dtype(R, kg_pkr_get(j, "cdt"), "cdt", true, &n->cdtype)) return false;
  n->vkind = kg_pkr_get(j, "scalar") ? KG_V_SCALAR : KG_V_TENSOR;
  const cJSON *in = kg_pkr_get(j, "in");
  if (in) {
    uint32_t *v, cnt;
    if (!kg_pkr_u32s(R, in, "in", id, &v, &cnt)) return false; /* operands are defined before the node */
    if (cnt > 8) return kg_pkr_fail(R, "more than 8 operands");
    n->n_in = (uint8_t)cnt;
    memcpy(n->in, v, cnt * sizeof *v);
  }
  int ar = kg_op_get(o)->arity;
  if (ar >= 0 && n->n_in != ar) return kg_pkr_fail(R, "%s has %d operands, wants %d", op, n->n_in, ar);
  if (!r_shape(R, kg_pkr_get(j, "shape"), "shape", g->syms.n, &n->shape)) return false;
  if (n->vkind == KG_V_SCALAR && n->shape.rank) return kg_pkr_fail(R, "a scalar with a shape");
  const cJSON *ia = kg_pkr_get(j, "ia"), *fa = kg_pkr_get(j, "fa");
  if (ia) {
    if (!cJSON_IsArray(ia) || cJSON_GetArraySize(ia) != 4) return kg_pkr_fail(R, "ia: expected 4 integers");
    int i = 0;
    for (const cJSON *x = ia->child; x; x = x->next, i++)
      if (!kg_pkr_int(R, x, "ia", INT64_MIN, INT64_MAX, &n->ia[i])) return false;
  }
  if (fa) {
    if (!cJSON_IsArray(fa) || cJSON_GetArraySize(fa) != 4) return kg_pkr_fail(R, "fa: expected 4 numbers");
    int i = 0;
    for (const cJSON *x = fa->child; x; x = x->next, i++)
      if (!r_f64(R, x, &n->fa[i])) return false;
  }
  /* a product's flags (1, 2: a vector operand; 4: B transposed; 8: convolution geometry, its
   * groups above them): the lowering divides the output channels by the groups */
  if (o == KG_OP_MATMUL && (n->ia[0] < 0 || n->ia[0] > INT32_MAX)) return kg_pkr_fail(R, "ia: product flags %lld", (long long)n->ia[0]);
  if (o == KG_OP_MATMUL && (n->ia[0] & 8)) {
    int64_t G = n->ia[0] >> 8;
    if (G < 1 || n->shape.rank < 3 || n->shape.d[1].kind != KG_DIM_STATIC || n->shape.d[1].v % G)
      return kg_pkr_fail(R, "a convolution product in %lld group(s) whose output channels do not divide into them", (long long)G);
  }
  n->path = kg_pkr_strv(R, kg_pkr_get(j, "path"), "path", true);
  n->srcloc = kg_pkr_strv(R, kg_pkr_get(j, "loc"), "loc", true);
  n->fn = KG_NONE; /* map functions are not packaged: nothing that runs reads them */
  return !R->failed;
}

bool kg_pkr_graph(kg_pkr *R, const cJSON *j, kg_graph *g) {
  static const char *const keys[] = {"entry", "syms", "symdefs", "guards", "n_entry_params", "params", "outputs", "nodes"};
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  g->entry = kg_pkr_strv(R, kg_pkr_get(j, "entry"), "entry", false);
  if (!g->entry) return false;
  const cJSON *a = kg_pkr_get(j, "syms");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "syms: expected an array");
  int i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    kg_pkr_push(R, "syms", i);
    const char *s = kg_pkr_strv(R, x, NULL, false);
    kg_pkr_pop(R);
    if (!s) return false;
    KG_VEC_PUSH(g->syms, s);
  }
  uint32_t ns = g->syms.n;
  a = kg_pkr_get(j, "symdefs");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "symdefs: expected an array");
  i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    kg_symdef s;
    memset(&s, 0, sizeof s);
    int64_t y;
    uint32_t *f, nf;
    kg_pkr_push(R, "symdefs", i);
    bool ok = kg_pkr_int(R, kg_pkr_get(x, "sym"), "sym", 0, (int64_t)ns - 1, &y) && (s.sym = (uint32_t)y, true) &&
              kg_pkr_int(R, kg_pkr_get(x, "coeff"), "coeff", INT64_MIN, INT64_MAX, &s.coeff) && kg_pkr_u32s(R, kg_pkr_get(x, "f"), "f", ns, &f, &nf) &&
              (nf <= KG_MAX_RANK || kg_pkr_fail(R, "more than %d factors", KG_MAX_RANK));
    kg_pkr_pop(R);
    if (!ok) return false;
    s.n = (uint8_t)nf;
    memcpy(s.f, f, nf * sizeof *f);
    KG_VEC_PUSH(g->symdefs, s);
  }
  a = kg_pkr_get(j, "guards");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "guards: expected an array");
  i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    kg_sym_guard q;
    int64_t y0, y1;
    kg_pkr_push(R, "guards", i);
    bool ok = kg_pkr_int(R, kg_pkr_get(x, "a"), "a", 0, (int64_t)ns - 1, &y0) && kg_pkr_int(R, kg_pkr_get(x, "b"), "b", 0, (int64_t)ns - 1, &y1);
    q.path = kg_pkr_strv(R, kg_pkr_get(x, "path"), "path", true), q.srcloc = kg_pkr_strv(R, kg_pkr_get(x, "loc"), "loc", true);
    kg_pkr_pop(R);
    if (!ok || R->failed) return false;
    q.a = (uint32_t)y0, q.b = (uint32_t)y1;
    KG_VEC_PUSH(g->guards, q);
  }
  a = kg_pkr_get(j, "nodes");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "nodes: expected an array");
  i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    kg_gnode n;
    kg_pkr_push(R, "nodes", i);
    bool ok = r_node(R, x, (uint32_t)i, g, &n);
    kg_pkr_pop(R);
    if (!ok) return false;
    KG_VEC_PUSH(g->nodes, n);
  }
  uint32_t nn = g->nodes.n;
  R_VEC(R, j, "outputs", nn, g->outputs);
  a = kg_pkr_get(j, "params");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "params: expected an array");
  i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    static const char *const pkeys[] = {"name", "node", "capture", "wb", "range"};
    kg_gparam p;
    memset(&p, 0, sizeof p);
    int64_t y = 0, wb = 0;
    kg_pkr_push(R, "params", i);
    bool ok = kg_pkr_keys(R, x, pkeys, (int)KG_COUNTOF(pkeys)) && (p.name = kg_pkr_strv(R, kg_pkr_get(x, "name"), "name", false)) &&
              kg_pkr_int(R, kg_pkr_get(x, "node"), "node", 0, (int64_t)nn - 1, &y) &&
              (!kg_pkr_get(x, "wb") || kg_pkr_int(R, kg_pkr_get(x, "wb"), "wb", 1, g->outputs.n, &wb));
    const cJSON *rg = kg_pkr_get(x, "range");
    if (ok && rg) {
      double *r = kg_arena_alloc(R->arena, 2 * sizeof *r);
      ok = cJSON_GetArraySize(rg) == 2 && r_f64(R, rg->child, &r[0]) && r_f64(R, rg->child->next, &r[1]);
      if (!ok) kg_pkr_fail(R, "range: expected two numbers");
      p.range = r;
    }
    if (ok && g->nodes.v[y].op != KG_OP_INPUT) ok = kg_pkr_fail(R, "a parameter's node must be an INPUT");
    kg_pkr_pop(R);
    if (!ok) return false;
    p.node = (uint32_t)y, p.wb = (uint32_t)wb, p.is_capture = kg_pkr_get(x, "capture") != NULL;
    KG_VEC_PUSH(g->params, p);
  }
  int64_t ne;
  if (!kg_pkr_int(R, kg_pkr_get(j, "n_entry_params"), "n_entry_params", 0, g->params.n, &ne)) return false;
  g->n_entry_params = (uint32_t)ne;
  /* the entry's own parameters come first, the captures after them (binding reads inputs[p] for
   * every p below n_entry_params) */
  for (uint32_t p = 0; p < g->params.n; p++)
    if (g->params.v[p].is_capture != (p >= g->n_entry_params))
      return kg_pkr_fail(R, "params[%u]: %s, but n_entry_params is %u (the entry's parameters come first, then the captures)", p,
                         g->params.v[p].is_capture ? "a capture" : "not a capture", g->n_entry_params);
  /* write-backs follow the results and have their parameter's type (kg_graph_verify's rule) */
  uint32_t nres = kg_graph_n_results(g);
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gparam *gp = &g->params.v[p];
    if (gp->wb && (gp->wb - 1 < nres || g->nodes.v[gp->node].vkind != KG_V_TENSOR ||
                   !kg_shape_equal(&g->nodes.v[g->outputs.v[gp->wb - 1]].shape, &g->nodes.v[gp->node].shape) ||
                   g->nodes.v[g->outputs.v[gp->wb - 1]].dtype != g->nodes.v[gp->node].dtype))
      return kg_pkr_fail(R, "parameter %u's write-back output does not fit it", p);
  }
  return true;
}

static bool r_group(kg_pkr *R, const cJSON *j, const kg_graph *g, kg_group *G) {
  static const char *const keys[] = {"kind", "space", "outs", "red", "reds", "epi", "mats", "pre"};
  memset(G, 0, sizeof *G);
  int64_t y;
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys)) || !kg_pkr_int(R, kg_pkr_get(j, "kind"), "kind", 0, KG_GROUP_ATTN, &y)) return false;
  G->kind = (uint8_t)y;
  if (!r_shape(R, kg_pkr_get(j, "space"), "space", g->syms.n, &G->space)) return false;
  R_VEC(R, j, "outs", g->outputs.n, G->outs);
  R_VEC(R, j, "reds", g->nodes.n, G->reds);
  R_VEC(R, j, "epi", g->outputs.n, G->epi);
  R_VEC(R, j, "mats", g->nodes.n, G->mats);
  if (kg_pkr_get(j, "pre")) R_VEC(R, j, "pre", g->nodes.n, G->pre); /* absent: none (packages before row statistics) */
  if (G->pre.n && G->kind != KG_GROUP_MATMUL) return kg_pkr_fail(R, "pre: row statistics belong to a product group");
  G->red = KG_NONE;
  if (G->kind == KG_GROUP_POINTWISE) return true;
  if (!kg_pkr_int(R, kg_pkr_get(j, "red"), "red", 0, (int64_t)g->nodes.n - 1, &y)) return false;
  G->red = (uint32_t)y;
  /* what exec.c reads of a group's own nodes */
  const kg_gnode *P = &g->nodes.v[G->red];
  (void)P;
  if (G->kind == KG_GROUP_REDUCE && !G->reds.n) return kg_pkr_fail(R, "a reduction group without reductions");
  for (uint32_t i = 0; i < G->reds.n; i++)
    if (g->nodes.v[G->reds.v[i]].cdtype >= KG_DT__COUNT) return kg_pkr_fail(R, "a reduction without a compute dtype");
  if (G->kind == KG_GROUP_MATMUL) {
    if (P->op != KG_OP_MATMUL || P->n_in < 2) return kg_pkr_fail(R, "a product group whose node is not a product of two operands");
    const kg_gnode *a = &g->nodes.v[P->in[0]], *b = &g->nodes.v[P->in[1]];
    if (a->shape.rank < 1 || b->shape.rank < ((P->ia[0] & 8) ? 3 : 2)) return kg_pkr_fail(R, "a product's operands have too few dims");
    if (G->pre.n > KG_MM_ROW_STATS) return kg_pkr_fail(R, "pre: %u row statistics, at most %d", G->pre.n, KG_MM_ROW_STATS);
    for (uint32_t i = 0; i < G->pre.n; i++)
      if (!kg_mm_row_stat_ok(g, P, G->pre.v[i]) || (i && G->pre.v[i] <= G->pre.v[i - 1]))
        return kg_pkr_fail(R, "pre[%u]: node %u is not a row statistic of the product (a sum, mean or variance over A's rows, in node order)", i, G->pre.v[i]);
  }
  if (G->kind == KG_GROUP_ATTN) { /* q, k, v [, mask]: lower_attn*.c reads their last two dims */
    if (P->op != KG_OP_ATTN || P->n_in < 3) return kg_pkr_fail(R, "an attention group whose node is not an attention of q, k and v");
    for (uint32_t i = 0; i < 3; i++)
      if (g->nodes.v[P->in[i]].shape.rank < 2) return kg_pkr_fail(R, "an attention's operand %u has too few dims", i);
  }
  return true;
}

bool kg_pkr_fusion(kg_pkr *R, const cJSON *j, const kg_graph *g, kg_fusion *f) {
  static const char *const keys[] = {"groups", "mat", "mat_buf", "temps"};
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  const cJSON *a = kg_pkr_get(j, "groups");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "groups: expected an array");
  int i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    kg_group G;
    kg_pkr_push(R, "groups", i);
    bool ok = r_group(R, x, g, &G);
    kg_pkr_pop(R);
    KG_VEC_PUSH(f->groups, G); /* pushed even when partly read: kg_fusion_free frees it */
    if (!ok) return false;
  }
  R_VEC(R, j, "mat", g->nodes.n, f->mat);
  R_VEC(R, j, "temps", g->nodes.n, f->temps);
  a = kg_pkr_get(j, "mat_buf");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "mat_buf: expected an array");
  i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    int64_t k, ix;
    kg_pkr_push(R, "mat_buf", i);
    bool ok = cJSON_GetArraySize(x) == 2 && kg_pkr_int(R, x->child, NULL, KG_BUF_OUTPUT, KG_BUF_TEMP, &k) &&
              kg_pkr_int(R, x->child->next, NULL, 0, k == KG_BUF_TEMP ? (int64_t)f->temps.n - 1 : (int64_t)g->outputs.n - 1, &ix);
    if (!ok) kg_pkr_fail(R, "expected [owner, index]");
    kg_pkr_pop(R);
    if (!ok) return false;
    kg_bufref br = {(uint8_t)k, (uint32_t)ix};
    KG_VEC_PUSH(f->mat_buf, br);
  }
  if (f->mat_buf.n != f->mat.n) return kg_pkr_fail(R, "mat and mat_buf differ in length");
  return true;
}

bool kg_pkr_kernel(kg_pkr *R, const cJSON *j, kg_kernel *k) {
  static const char *const keys[] = {"name", "index", "vec", "schedule", "params", "launch", "tmaps", "sm90a", "max_threads"};
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  int64_t mt = 0;
  if (kg_pkr_get(j, "max_threads") && !kg_pkr_int(R, kg_pkr_get(j, "max_threads"), "max_threads", 0, 1024, &mt)) return false;
  k->max_threads = (uint32_t)mt, k->sm90a = kg_pkr_get(j, "sm90a") != NULL;
  const cJSON *tm = kg_pkr_get(j, "tmaps");
  if (tm && !cJSON_IsArray(tm)) return kg_pkr_fail(R, "tmaps: expected an array");
  int ti = 0;
  for (const cJSON *x = tm ? tm->child : NULL; x; x = x->next, ti++) {
    int64_t f[8];
    int n = 0;
    kg_pkr_push(R, "tmaps", ti);
    static const int64_t lo[8] = {0, 0, -KG_MAX_RANK, -KG_MAX_RANK, 0, 0, 0, 0}, hi[8] = {UINT32_MAX, UINT32_MAX, -1, -1, 1, 256, 256, 128};
    bool ok = cJSON_GetArraySize(x) == 8;
    for (const cJSON *y = ok ? x->child : NULL; y && ok; y = y->next, n++) ok = kg_pkr_int(R, y, NULL, lo[n], hi[n], &f[n]);
    if (!ok && !R->failed) kg_pkr_fail(R, "expected [owner, index, inner, outer, batched, box inner, box outer, swizzle]");
    kg_pkr_pop(R);
    if (!ok) return false;
    kg_ktmap t;
    memset(&t, 0, sizeof t);
    t.owner = (uint32_t)f[0], t.index = (uint32_t)f[1], t.inner = (int8_t)f[2], t.outer = (int8_t)f[3], t.batched = f[4] != 0;
    t.box[0] = (uint32_t)f[5], t.box[1] = (uint32_t)f[6], t.swizzle = (uint32_t)f[7];
    KG_VEC_PUSH(k->tmaps, t);
  }
  k->name = kg_pkr_strv(R, kg_pkr_get(j, "name"), "name", false);
  k->schedule = kg_pkr_strv(R, kg_pkr_get(j, "schedule"), "schedule", true);
  int64_t vec;
  uint8_t ix;
  if (!k->name || R->failed || !r_dtype(R, kg_pkr_get(j, "index"), "index", false, &ix) || !kg_pkr_int(R, kg_pkr_get(j, "vec"), "vec", 0, 64, &vec))
    return false;
  if (ix != KG_I32 && ix != KG_I64) return kg_pkr_fail(R, "index: int32 or int64");
  k->index_dtype = ix, k->vec = (uint32_t)vec;
  const cJSON *a = kg_pkr_get(j, "params");
  if (!cJSON_IsArray(a)) return kg_pkr_fail(R, "params: expected an array");
  int i = 0;
  for (const cJSON *x = a->child; x; x = x->next, i++) {
    kg_kparam p;
    memset(&p, 0, sizeof p);
    kg_pkr_push(R, "params", i);
    const cJSON *e[7];
    int n = 0;
    for (const cJSON *y = cJSON_IsArray(x) ? x->child : NULL; y && n < 7; y = y->next) e[n++] = y;
    bool ok = n == 7 && cJSON_GetArraySize(x) == 7;
    if (!ok) kg_pkr_fail(R, "expected [name, kind, dtype, is_output, role, r0, r1]");
    int64_t io = 0, r0 = 0, r1 = 0;
    if (ok) ok = (p.name = kg_pkr_strv(R, e[0], "name", false)) && cJSON_IsString(e[1]) && r_dtype(R, e[2], "dtype", false, &p.dtype) &&
                 kg_pkr_int(R, e[3], "is_output", 0, 1, &io) && cJSON_IsString(e[4]) && kg_pkr_int(R, e[5], "r0", 0, UINT32_MAX, &r0) &&
                 kg_pkr_int(R, e[6], "r1", 0, UINT32_MAX, &r1);
    if (ok && R->failed) ok = false;
    if (ok) {
      p.kind = !strcmp(e[1]->valuestring, "buffer") ? KP_BUFFER : !strcmp(e[1]->valuestring, "tmap") ? KP_TMAP : KP_SCALAR;
      if (p.kind == KP_SCALAR && strcmp(e[1]->valuestring, "scalar")) ok = kg_pkr_fail(R, "kind '%s': buffer, tmap or scalar", e[1]->valuestring);
      uint32_t r = 0;
      while (r < KG_COUNTOF(role_names) && strcmp(role_names[r], e[4]->valuestring)) r++;
      if (ok && r == KG_COUNTOF(role_names))
        ok = kg_pkr_fail(R, "kernel parameter role '%s' is not known to this kgen (%s, package format %d): the package needs a newer kgen", e[4]->valuestring,
                         KGEN_VERSION_STRING, KG_PKG_FORMAT);
      p.role = (uint8_t)r, p.is_output = io != 0, p.r0 = (uint32_t)r0, p.r1 = (uint32_t)r1;
    } else if (!R->failed) {
      kg_pkr_fail(R, "expected [name, kind, dtype, is_output, role, r0, r1]");
    }
    kg_pkr_pop(R);
    if (!ok) return false;
    KG_VEC_PUSH(k->params, p);
  }
  kg_pkr_push(R, "launch", -1);
  bool ok = r_fields(R, kg_pkr_get(j, "launch"), &k->launch, launch_fields, (int)KG_COUNTOF(launch_fields), "launch");
  kg_pkr_pop(R);
  if (!ok) return false;
  const kg_launch *L = &k->launch;
  if (L->per_output > KG_LAUNCH_TILES) return kg_pkr_fail(R, "launch: unknown grid shape %u", L->per_output);
  if (!L->block[0] || !L->block[1] || !L->block[2] ||
      ((L->per_output == KG_LAUNCH_ELEMENTS || L->per_output == KG_LAUNCH_THREAD_PER_OUTPUT) && !L->elems_per_thread) ||
      (L->per_output == KG_LAUNCH_TILES && (!L->tile_m || !L->tile_n)))
    return kg_pkr_fail(R, "launch: a zero block size, elements per thread or tile");
  if (L->per_output == KG_LAUNCH_WARP_PER_OUTPUT && (!L->tile_m || L->block[0] % L->tile_m))
    return kg_pkr_fail(R, "launch: %u rows a block of %u threads (a warp per row: a divisor of the block)", L->tile_m, L->block[0]);
  return true;
}

bool kg_pkr_variant(kg_pkr *R, const cJSON *j, kg_variant *v) {
  memset(v, 0, sizeof *v);
  if (!r_fields(R, j, v, variant_fields, (int)KG_COUNTOF(variant_fields), "variant")) return false;
  if (v->plan > 2 || v->layout > KG_LAYOUT_STRIDED || v->split > KG_SPLIT_FINISH || v->mm_tile >= KG_MM__COUNT || v->mm_prec > KG_MM_PREC_TF32 || v->cpu > 1 || v->no_online > 1 ||
      v->warp > 1 || v->seg > 5 || (v->seg && !v->warp) || v->mm_fold > 1 || (v->mm_fold && !v->cpu) ||
      v->mm_a > (KG_MM_KMAJOR | KG_MM_ASYNC) || v->mm_b > (KG_MM_KMAJOR | KG_MM_ASYNC) ||
      (v->index_dtype != KG_I32 && v->index_dtype != KG_I64))
    return kg_pkr_fail(R, "variant: a value out of range");
  return true;
}
