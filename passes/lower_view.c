/* passes/lower_view.c — values at coordinates: how a kernel computes layout ops (views,
 * slices, permutes, expands, cat, indexing, generators) as index arithmetic instead of
 * copies.
 *
 * Every schedule evaluates a group's DAG at "the element": the coordinates of the current
 * element over the group's space (L->gcoord), where each source has a precomputed offset
 * (lower.c). A layout op's value at coordinate c of its own shape is its operand's value at
 * another coordinate (PERMUTE: c permuted; SLICE: start + c·step; RESHAPE: c linearized
 * over the result's sizes and split over the operand's; CAT: the one input whose range
 * holds c, read under an `if`, so no other input is touched), or a function of c itself
 * (ARANGE, EYE, TRIL's mask). So kg_lw_val_at evaluates any node at any coordinate:
 *   - a node the element reads at its own coordinates (direct) at those coordinates is the
 *     ordinary kg_lw_val (offsets, vector lanes and the row cache stay as they were);
 *   - a source loads at Σ c_j · stride_j over its own dims (stride parameters added on
 *     first use, KPR_STRIDE with the own-dim bit);
 *   - a pointwise node evaluates its operands at the broadcast coordinates (right-aligned,
 *     static size-1 dims at 0) and is built by lower.c's kg_lw_build;
 *   - values are memoized per (node, coordinate); those computed inside a predicated
 *     branch (cat) are forgotten when the branch ends, as the branch's locals go out of
 *     scope.
 * A coordinate is an index expression of type L->ix, or KG_NONE for 0 (the coordinate of
 * every static size-1 dim). Sizes known only at run time come in as KPR_SYM parameters.
 *
 *   y = x.view(4, 6).transpose(0, 1) + 1, x: [24] (pointwise over [6, 4]):
 *     c1 = i % 4; c0 = i / 4;             the element (lower.c)
 *     ld = in0[(c1 * 6 + c0) * os0_0]     PERMUTE → (c1, c0), RESHAPE → c1·6 + c0, a load
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

typedef struct kg_lw_at {
  uint32_t node, e;
  uint32_t c[KG_MAX_RANK];
} kg_lw_at;

static const kg_gnode *gn(const lctx *L, uint32_t id) { return &L->g->nodes.v[id]; }

static bool is_one(const kg_dim *d) { return d->kind == KG_DIM_STATIC && d->v == 1; }
static bool dim_eq(const kg_dim *a, const kg_dim *b) { return a->kind == b->kind && a->v == b->v; }

void kg_lw_memo_set(lctx *L, uint32_t id, uint32_t e) {
  L->memo[id] = e;
  if (L->scoped) {
    if (L->n_log == L->cap_log) {
      L->cap_log = L->cap_log ? 2 * L->cap_log : 32;
      L->log = kg_xrealloc(L->log, L->cap_log * sizeof *L->log);
    }
    L->log[L->n_log++] = id;
  }
}

void kg_lw_at_reset(lctx *L) { L->n_at = 0; }

void kg_lw_view_free(lctx *L) {
  free(L->direct), free(L->ostride), free(L->symp), free(L->at), free(L->log);
  L->direct = NULL, L->ostride = NULL, L->symp = NULL, L->at = NULL, L->log = NULL;
}

void kg_lw_mark_direct(lctx *L) {
  const kg_graph *g = L->g;
  uint32_t nn = g->nodes.n;
  L->direct = kg_xcalloc(nn + 1, 1);
  const kg_group *grp = L->grp;
  for (uint32_t j = 0; j < grp->reds.n; j++) L->direct[grp->reds.v[j]] = 1;
  for (uint32_t j = 0; j < grp->epi.n; j++) L->direct[g->outputs.v[grp->epi.v[j]]] = 1;
  for (uint32_t j = 0; j < grp->outs.n; j++) L->direct[g->outputs.v[grp->outs.v[j]]] = 1;
  for (uint32_t j = 0; j < grp->mats.n && grp->kind == KG_GROUP_POINTWISE; j++) L->direct[grp->mats.v[j]] = 1;
  for (uint32_t i = nn; i-- > 0;) {
    if (!L->direct[i]) continue;
    if (L->src_of[i] != KG_NONE && !L->local[i]) continue;
    const kg_gnode *n = gn(L, i);
    if (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT) continue; /* its operands: at other coordinates */
    int nin = n->op == KG_OP_FULL ? 1 : n->n_in;
    for (int j = 0; j < nin; j++) L->direct[n->in[j]] = 1;
  }
  uint32_t ns = L->nsrc;
  L->ostride = kg_xmalloc(((size_t)ns * KG_MAX_RANK + 1) * sizeof *L->ostride);
  for (size_t i = 0; i < (size_t)ns * KG_MAX_RANK; i++) L->ostride[i] = KG_NONE;
  L->symp = kg_xmalloc((g->syms.n + 1) * sizeof *L->symp);
  for (uint32_t i = 0; i < g->syms.n; i++) L->symp[i] = KG_NONE;
}

/* ---- index arithmetic (KG_NONE is 0) ---- */

static uint32_t ic(lctx *L, int64_t v) { return kg_kx_const_i(L->k, L->ix, v); }
static uint32_t iadd(lctx *L, uint32_t a, uint32_t b) {
  if (a == KG_NONE) return b;
  if (b == KG_NONE) return a;
  return kg_kx_op(L->k, KG_OP_IDX_ADD, L->ix, a, b, KG_NONE);
}
static uint32_t imul(lctx *L, uint32_t a, uint32_t b) {
  if (a == KG_NONE || b == KG_NONE) return KG_NONE;
  return kg_kx_op(L->k, KG_OP_IDX_MUL, L->ix, a, b, KG_NONE);
}
static uint32_t zero_if_none(lctx *L, uint32_t a) { return a == KG_NONE ? ic(L, 0) : a; }

/* a dim's size as an index expression: a constant, or the symbol's run-time value */
uint32_t kg_lw_size(lctx *L, const kg_dim *d) {
  if (d->kind == KG_DIM_STATIC) return ic(L, d->v);
  uint32_t s = (uint32_t)d->v;
  if (L->symp[s] == KG_NONE)
    L->symp[s] = kg_kparam_add(L->k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(L->c->arena, "sym%u", s), KPR_SYM, s, 0));
  return kg_kx_param(L->k, L->symp[s]);
}

/* coordinates of operand shape `o` broadcast against coordinates c of shape `x` */
static void bcast(const kg_shape *x, const uint32_t *c, const kg_shape *o, uint32_t *oc) {
  for (int j = 0; j < o->rank; j++) {
    int d = j + x->rank - o->rank;
    oc[j] = d < 0 || is_one(&o->d[j]) ? KG_NONE : c[d];
  }
}

/* the coordinates node id is read at by the element (right-aligned against the space, or
 * against the frame a squeezed epilogue is evaluated in) */
static void ctx0(lctx *L, uint32_t id, uint32_t *c) {
  KG_ASSERT(L->has_gcoord);
  bcast(L->gframe ? L->gframe : &L->grp->space, L->gcoord, &gn(L, id)->shape, c);
}

/* ---- loads ---- */

uint32_t kg_lw_source_stride(lctx *L, uint32_t id, int j) {
  uint32_t s = L->src_of[id];
  KG_ASSERT(s != KG_NONE && j >= 0 && j < KG_MAX_RANK);
  uint32_t *st = &L->ostride[s * KG_MAX_RANK + (uint32_t)j];
  if (*st == KG_NONE) {
    uint32_t r0, r1, sr0;
    kg_lw_source_role(L, s, &r0, &r1, &sr0);
    *st = kg_kparam_add(L->k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(L->c->arena, "os%u_%d", s, j), KPR_STRIDE,
                                            sr0 | 0x20000000u, (uint32_t)j));
  }
  return *st;
}

uint32_t kg_lw_source_offset(lctx *L, uint32_t id, const uint32_t *c, uint32_t *param) {
  const kg_gnode *n = gn(L, id);
  uint32_t s = L->src_of[id];
  KG_ASSERT(s != KG_NONE && n->vkind == KG_V_TENSOR);
  *param = L->pparam[s];
  uint32_t off = KG_NONE;
  for (int j = 0; j < n->shape.rank; j++) {
    if (c[j] == KG_NONE || is_one(&n->shape.d[j])) continue;
    off = iadd(L, off, imul(L, c[j], kg_lw_stride(L, kg_lw_source_stride(L, id, j))));
  }
  return off != KG_NONE ? kg_lw_decl(L, "off", L->ix, off) : KG_NONE;
}

static uint32_t source_load(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  uint32_t kp = L->pparam[L->src_of[id]];
  if (n->vkind == KG_V_SCALAR) return kg_kx_param(L->k, kp);
  uint32_t off = kg_lw_source_offset(L, id, c, &kp);
  return kg_lw_decl(L, "ld", (kg_dtype)n->dtype, kg_kx_load(L->k, kp, zero_if_none(L, off)));
}

/* ---- branches: values computed inside are forgotten when it ends ---- */

typedef struct scope { uint32_t n_at, n_log; kg_kcursor cur; } scope;

static scope scope_enter(lctx *L, kg_kcursor body) {
  scope s = {L->n_at, L->n_log, L->cur};
  L->scoped++;
  L->cur = body;
  return s;
}

static void scope_leave(lctx *L, scope s) {
  for (uint32_t i = s.n_log; i < L->n_log; i++) L->memo[L->log[i]] = KG_NONE;
  L->n_log = s.n_log, L->n_at = s.n_at;
  L->scoped--;
  L->cur = s.cur;
}

/* the same for lower_window.c's loops over a window (a loop body is a branch too) */
kg_lw_scope kg_lw_scope_enter(lctx *L, kg_kcursor body) {
  scope s = scope_enter(L, body);
  kg_lw_scope r = {s.n_at, s.n_log, s.cur};
  return r;
}
void kg_lw_scope_leave(lctx *L, kg_lw_scope s) {
  scope t = {s.n_at, s.n_log, s.cur};
  scope_leave(L, t);
}

uint32_t kg_lw_open_for(lctx *L, const char *name, uint32_t lo, uint32_t hi, uint32_t step, kg_lw_scope *sc) {
  uint32_t v = kg_kvar_new(L->k, name, L->ix);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.a = v, fr.b = lo, fr.c = hi, fr.d = step;
  uint32_t st = kg_ks_add(&L->cur, fr);
  *sc = kg_lw_scope_enter(L, kg_kcursor_body(L->k, st, false));
  return kg_kx_var(L->k, v);
}

/* ---- layout ops ---- */

/* RESHAPE: leading and trailing dims both shapes share map through; the rest is linearized
 * over the result's sizes and split over the operand's */
static void reshape_map(lctx *L, const kg_shape *x, const uint32_t *c, const kg_shape *o, uint32_t *oc) {
  int rx = x->rank, ro = o->rank, p = 0, q = 0;
  while (p < rx && p < ro && dim_eq(&x->d[p], &o->d[p])) oc[p] = c[p], p++;
  while (q < rx - p && q < ro - p && dim_eq(&x->d[rx - 1 - q], &o->d[ro - 1 - q])) oc[ro - 1 - q] = c[rx - 1 - q], q++;
  uint32_t lin = KG_NONE;
  for (int d = p; d < rx - q; d++) {
    if (is_one(&x->d[d])) continue;
    lin = iadd(L, imul(L, lin, kg_lw_size(L, &x->d[d])), c[d]);
  }
  if (lin != KG_NONE) lin = kg_lw_decl(L, "lin", L->ix, lin);
  int outer = -1;
  for (int d = p; d < ro - q && outer < 0; d++)
    if (!is_one(&o->d[d])) outer = d;
  uint32_t rem = lin;
  for (int d = ro - q - 1; d >= p; d--) {
    if (is_one(&o->d[d]) || rem == KG_NONE) { oc[d] = KG_NONE; continue; }
    if (d == outer) { oc[d] = rem; continue; }
    uint32_t sz = kg_lw_size(L, &o->d[d]);
    oc[d] = kg_lw_decl(L, "rc", L->ix, kg_kx_op(L->k, KG_OP_IDX_MOD, L->ix, rem, sz, KG_NONE));
    rem = kg_lw_decl(L, "rq", L->ix, kg_kx_op(L->k, KG_OP_IDX_DIV, L->ix, rem, sz, KG_NONE));
  }
}

/* an integer index value v (any integer dtype) into a dim of size sz: negative counts from
 * the end, out of range reads element 0 (a kernel cannot raise) */
static uint32_t wrap_index(lctx *L, uint32_t v, const kg_dim *sz) {
  kg_kernel *k = L->k;
  uint32_t x = kg_lw_cvt(L, v, KG_I64), n = kg_lw_cvt(L, kg_lw_size(L, sz), KG_I64), z = kg_kx_const_i(k, KG_I64, 0);
  uint32_t w = kg_kx_select(k, KG_I64, kg_kx_op(k, KG_OP_LT, KG_BOOL, x, z, KG_NONE), kg_kx_op(k, KG_OP_ADD, KG_I64, x, n, KG_NONE), x);
  w = kg_lw_decl(L, "ix", KG_I64, w);
  uint32_t bad = kg_kx_op(k, KG_OP_LOR, KG_BOOL, kg_kx_op(k, KG_OP_LT, KG_BOOL, w, z, KG_NONE), kg_kx_op(k, KG_OP_GE, KG_BOOL, w, n, KG_NONE), KG_NONE);
  return kg_lw_decl(L, "ix", L->ix, kg_lw_cvt(L, kg_kx_select(k, KG_I64, bad, z, w), L->ix));
}

static uint32_t cat_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  int dim = (int)n->ia[0];
  uint32_t var = kg_kvar_new(k, "cat", dt);
  kg_ks dcl = kg_ks_make(KS_DECL);
  dcl.a = var;
  kg_ks_add(&L->cur, dcl);
  uint32_t start = KG_NONE; /* where the current input begins along dim */
  kg_kcursor at = L->cur;    /* where the next test goes: the kernel's block, then each else */
  bool top = true;
  for (int j = 0; j < n->n_in; j++) {
    const kg_gnode *in = gn(L, n->in[j]);
    uint32_t oc[KG_MAX_RANK];
    memcpy(oc, c, sizeof oc);
    /* along dim: c - start, never negative here (earlier inputs took the smaller ones) */
    if (start != KG_NONE) oc[dim] = kg_kx_op(k, KG_OP_SUB, L->ix, zero_if_none(L, c[dim]), start, KG_NONE);
    if (is_one(&in->shape.d[dim])) oc[dim] = KG_NONE;
    uint32_t end = iadd(L, start, kg_lw_size(L, &in->shape.d[dim]));
    bool last = j == n->n_in - 1;
    kg_kcursor body = at;
    uint32_t st = KG_NONE;
    if (!last) {
      kg_ks ifs = kg_ks_make(KS_IF);
      ifs.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, zero_if_none(L, c[dim]), end, KG_NONE);
      st = kg_ks_add(&at, ifs);
      if (top) L->cur = at; /* the kernel's block goes on after the test */
      body = kg_kcursor_body(k, st, false);
    }
    KG_ASSERT(!(last && top)); /* one input: no cat node (frontend) */
    scope sc = scope_enter(L, body);
    if (oc[dim] != KG_NONE && start != KG_NONE) oc[dim] = kg_lw_decl(L, "cc", L->ix, oc[dim]);
    uint32_t v = kg_lw_cvt(L, kg_lw_val_at(L, n->in[j], oc), dt);
    kg_ks as = kg_ks_make(KS_ASSIGN);
    as.a = var, as.b = v;
    kg_ks_add(&L->cur, as);
    scope_leave(L, sc);
    if (!last) at = kg_kcursor_body(k, st, true), top = false;
    start = end;
  }
  return kg_kx_var(k, var);
}

/* ---- random draws (RAND, BERNOULLI): Philox at (the element's row-major index over the node's
 * own shape, the call's offset + the node's stream) under the call's seed; every kernel that
 * needs the value recomputes the same bits (docs/design.md "The random generator") ---- */

static uint32_t rng_param(lctx *L, int which) {
  if (!L->rngp[which])
    L->rngp[which] = 1 + kg_kparam_add(L->k, kg_lw_mkparam(KP_SCALAR, KG_I64, false, which ? "rng_off" : "rng_seed", KPR_RNG, (uint32_t)which, 0));
  return kg_kx_param(L->k, L->rngp[which] - 1);
}

/* mode: 0 the 24-bit uniform (int32), 1 the 53-bit one (int64), 2 / 3 a normal float32 / float64 */
static uint32_t draw(lctx *L, const kg_gnode *n, const uint32_t *c, int mode) {
  kg_kernel *k = L->k;
  uint32_t lin = KG_NONE;
  for (int d = 0; d < n->shape.rank; d++)
    if (!is_one(&n->shape.d[d])) lin = iadd(L, imul(L, lin, kg_lw_size(L, &n->shape.d[d])), c[d]);
  uint32_t e = kg_lw_cvt(L, zero_if_none(L, lin), KG_I64);
  uint32_t ctr = kg_kx_op(k, KG_OP_ADD, KG_I64, rng_param(L, 1), kg_kx_const_i(k, KG_I64, n->ia[0]), KG_NONE);
  static const kg_dtype rt[] = {KG_I32, KG_I64, KG_F32, KG_F64};
  uint32_t x = kg_kx_op(k, KG_OP_PHILOX, rt[mode], e, rng_param(L, 0), ctr);
  k->exprs.v[x].i = mode;
  return kg_lw_decl(L, "rnd", rt[mode], x);
}

/* the element's uniform in [0, 1): k·2^-24 in float32, or k·2^-53 in float64 */
static uint32_t uniform(lctx *L, const kg_gnode *n, const uint32_t *c, bool f64) {
  kg_kernel *k = L->k;
  if (f64) return kg_kx_op(k, KG_OP_MUL, KG_F64, kg_lw_cvt(L, draw(L, n, c, 1), KG_F64), kg_kx_const_f(k, KG_F64, 0x1p-53), KG_NONE);
  return kg_kx_op(k, KG_OP_MUL, KG_F32, kg_lw_cvt(L, draw(L, n, c, 0), KG_F32), kg_kx_const_f(k, KG_F32, 0x1p-24), KG_NONE);
}

static uint32_t random_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  bool f64 = dt == KG_F64;
  if (n->op == KG_OP_BERNOULLI) { /* 1 where the uniform is below p (in p's precision class) */
    uint32_t p = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], c), f64 ? KG_F64 : KG_F32);
    uint32_t keep = kg_kx_op(k, KG_OP_LT, KG_BOOL, uniform(L, n, c, f64), p, KG_NONE);
    return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, keep, dt));
  }
  switch (n->ia[1]) {
  case 0: { /* uniform; a half-precision draw rounded up to 1 is 0 (PyTorch flips the bound alike) */
    uint32_t u = kg_lw_cvt(L, uniform(L, n, c, f64), dt);
    if (dt == KG_F16 || dt == KG_BF16) {
      u = kg_lw_decl(L, "u", dt, u);
      u = kg_kx_select(k, dt, kg_kx_op(k, KG_OP_EQ, KG_BOOL, u, kg_kx_const_f(k, dt, 1), KG_NONE), kg_kx_const_f(k, dt, 0), u);
    }
    return kg_lw_decl(L, "t", dt, u);
  }
  case 1: return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, draw(L, n, c, f64 ? 3 : 2), dt));
  default: { /* dropout's mask: scale where the 24-bit draw k < ceil(q·2^24) (i.e. k·2^-24 < q), else 0 */
    double th = ceil(n->fa[0] * 16777216.0);
    uint32_t keep = kg_kx_op(k, KG_OP_LT, KG_BOOL, draw(L, n, c, 0), kg_kx_const_i(k, KG_I32, (int64_t)th), KG_NONE);
    return kg_lw_decl(L, "t", dt, kg_kx_select(k, dt, keep, kg_kx_const_f(k, dt, n->fa[1]), kg_kx_const_f(k, dt, 0)));
  }
  }
}

/* ---- convolution operands and pad ---- */

static uint32_t sop(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, L->ix, zero_if_none(L, a), zero_if_none(L, b), KG_NONE); }
static uint32_t bop(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, KG_BOOL, a, b, KG_NONE); }

/* var = (cond ? operand's value at oc : fill): the read only under the condition (a padded
 * border never touches memory), what it computed forgotten after the branch */
static uint32_t predicated(lctx *L, uint32_t id, uint32_t cond, const uint32_t *oc, uint32_t fill) {
  const kg_gnode *n = gn(L, id);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  uint32_t var = kg_kvar_new(k, "pv", dt);
  kg_ks dcl = kg_ks_make(KS_DECL);
  dcl.a = var, dcl.b = fill;
  kg_ks_add(&L->cur, dcl);
  if (cond == KG_NONE) cond = kg_kx_const_i(k, KG_BOOL, 1);
  kg_ks ifs = kg_ks_make(KS_IF);
  ifs.a = cond;
  uint32_t st = kg_ks_add(&L->cur, ifs);
  scope sc = scope_enter(L, kg_kcursor_body(k, st, false));
  uint32_t v = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), dt);
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = var, as.b = v;
  kg_ks_add(&L->cur, as);
  scope_leave(L, sc);
  return kg_kx_var(k, var);
}

static uint32_t land_c(lctx *L, uint32_t a, uint32_t b) { return a == KG_NONE ? b : bop(L, KG_OP_LAND, a, b); }

/* IM2COL at [n, g, k, o...]: k split over [C/G, k...]; input index j = o·stride - pad + kk·dil,
 * read at j / fa (the input's dilation) where that is an integer inside the input, else 0 */
static uint32_t im2col_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id), *x = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  int nd = x->shape.rank - 2;
  int64_t G = n->shape.d[1].v, Cg = x->shape.d[1].v / (G ? G : 1);
  uint32_t kk[KG_CONV_MAX_DIMS], rem = c[2];
  for (int i = nd - 1; i >= 0; i--) {
    int64_t ks = kg_conv_get(n->ia[3], i);
    kk[i] = KG_NONE;
    if (rem == KG_NONE || ks == 1) continue;
    kk[i] = kg_lw_decl(L, "kw", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, rem, ic(L, ks), KG_NONE));
    rem = kg_lw_decl(L, "kq", L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, rem, ic(L, ks), KG_NONE));
  }
  uint32_t oc[KG_MAX_RANK], cond = KG_NONE;
  oc[0] = c[0];
  oc[1] = iadd(L, c[1] == KG_NONE ? KG_NONE : imul(L, c[1], ic(L, Cg)), Cg == 1 ? KG_NONE : rem);
  for (int i = 0; i < nd; i++) {
    int64_t st = kg_conv_get(n->ia[0], i), pd = kg_conv_get(n->ia[1], i), dl = kg_conv_get(n->ia[2], i), sd = (int64_t)n->fa[i];
    uint32_t j = iadd(L, st == 1 ? c[3 + i] : imul(L, c[3 + i], ic(L, st)), dl == 1 ? kk[i] : imul(L, kk[i], ic(L, dl)));
    if (pd) j = sop(L, KG_OP_SUB, j, ic(L, pd));
    j = kg_lw_decl(L, "ij", L->ix, zero_if_none(L, j));
    uint32_t sz = kg_lw_size(L, &x->shape.d[2 + i]), z = ic(L, 0);
    if (sd > 1) { /* a transposed convolution: only every sd-th index is an input element */
      uint32_t jj = kg_lw_decl(L, "ij", L->ix, kg_kx_select(k, L->ix, bop(L, KG_OP_GE, j, z), j, z));
      cond = land_c(L, cond, bop(L, KG_OP_GE, j, z));
      cond = land_c(L, cond, bop(L, KG_OP_EQ, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, jj, ic(L, sd), KG_NONE), z));
      j = kg_lw_decl(L, "ij", L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, jj, ic(L, sd), KG_NONE));
      cond = land_c(L, cond, bop(L, KG_OP_LT, j, sz));
    } else {
      cond = land_c(L, cond, land_c(L, bop(L, KG_OP_GE, j, z), bop(L, KG_OP_LT, j, sz)));
    }
    oc[2 + i] = j;
  }
  if (cond != KG_NONE) cond = kg_lw_decl(L, "in", KG_BOOL, cond);
  uint32_t zero = kg_dtype_is_float(dt) ? kg_kx_const_f(k, dt, 0) : kg_kx_const_i(k, dt, 0);
  if (!L->clamp_window || cond == KG_NONE) return predicated(L, id, cond, oc, zero);
  /* clamped: every index inside the input, the operand read there unconditionally and the padding
   * selected after — no branch, so that a loop over columns vectorizes (its loads as gathers) */
  for (int i = 0; i < nd; i++) {
    uint32_t sz = kg_lw_size(L, &x->shape.d[2 + i]), z = ic(L, 0), j = oc[2 + i];
    uint32_t lo = kg_kx_select(k, L->ix, bop(L, KG_OP_LT, j, z), z, j);
    oc[2 + i] = kg_lw_decl(L, "ij", L->ix, kg_kx_select(k, L->ix, bop(L, KG_OP_LT, lo, sz), lo, sop(L, KG_OP_SUB, sz, ic(L, 1))));
  }
  uint32_t v = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), dt);
  if (dt != KG_F32) return kg_lw_decl(L, "pv", dt, kg_kx_select(k, dt, cond, v, zero));
  /* float32: the padding's zero by a mask of the bits, v & -(int)in — a select GCC turns back
   * into a conditional (masked) load at the unaffine address, which its vectorizer rejects */
  uint32_t mask = kg_kx_op(k, KG_OP_SUB, KG_I32, kg_kx_const_i(k, KG_I32, 0), kg_lw_cvt(L, cond, KG_I32), KG_NONE);
  uint32_t bits = kg_kx_op(k, KG_OP_BAND, KG_I32, kg_kx_op(k, KG_OP_BITCAST, KG_I32, v, KG_NONE, KG_NONE), mask, KG_NONE);
  return kg_lw_decl(L, "pv", dt, kg_kx_op(k, KG_OP_BITCAST, KG_F32, bits, KG_NONE, KG_NONE));
}

/* PAD at c: each padded dim's index i = c - left mapped back into the input (reflect, replicate,
 * circular), or a predicated read with the value outside (constant) */
static uint32_t pad_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id), *x = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  int r = n->shape.rank, mode = (int)n->ia[0];
  uint32_t oc[KG_MAX_RANK], cond = KG_NONE;
  memcpy(oc, c, sizeof oc);
  for (int j = 0; j < n->ia[3]; j++) {
    int d = r - 1 - j;
    int64_t left = kg_pad_left(n->ia, d);
    if (x->shape.d[d].kind != KG_DIM_STATIC) continue; /* unpadded (frontend) */
    int64_t S = x->shape.d[d].v;
    uint32_t i = left ? sop(L, KG_OP_SUB, c[d], ic(L, left)) : zero_if_none(L, c[d]);
    i = kg_lw_decl(L, "pi", L->ix, i);
    uint32_t z = ic(L, 0), sz = ic(L, S), last = ic(L, S - 1);
    uint32_t lo = bop(L, KG_OP_LT, i, z), hi = bop(L, KG_OP_GE, i, sz);
    switch (mode) {
    case 0: cond = land_c(L, cond, bop(L, KG_OP_LAND, kg_kx_op(k, KG_OP_LNOT, KG_BOOL, lo, KG_NONE, KG_NONE), kg_kx_op(k, KG_OP_LNOT, KG_BOOL, hi, KG_NONE, KG_NONE))); break;
    case 1: { /* reflect (without repeating the edge): -i, then 2(S-1) - i */
      uint32_t a = kg_lw_decl(L, "pr", L->ix, kg_kx_select(k, L->ix, lo, sop(L, KG_OP_SUB, z, i), i));
      i = kg_kx_select(k, L->ix, bop(L, KG_OP_GE, a, sz), sop(L, KG_OP_SUB, ic(L, 2 * (S - 1)), a), a);
      break;
    }
    case 2: i = kg_kx_select(k, L->ix, lo, z, kg_kx_select(k, L->ix, hi, last, i)); break;
    default: i = kg_kx_select(k, L->ix, lo, sop(L, KG_OP_ADD, i, sz), kg_kx_select(k, L->ix, hi, sop(L, KG_OP_SUB, i, sz), i)); break;
    }
    oc[d] = kg_lw_decl(L, "pc", L->ix, i);
  }
  if (mode != 0) return kg_lw_val_at(L, n->in[0], oc);
  uint32_t fill = kg_dtype_is_float(dt) ? kg_kx_const_f(k, dt, n->fa[0]) : kg_lw_cvt(L, kg_kx_const_f(k, KG_F64, n->fa[0]), dt);
  if (cond != KG_NONE) cond = kg_lw_decl(L, "in", KG_BOOL, cond);
  return predicated(L, id, cond, oc, fill);
}

static uint32_t layout_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  const kg_shape *xs = &n->shape;
  const kg_shape *os = n->n_in ? &gn(L, n->in[0])->shape : NULL;
  uint32_t oc[KG_MAX_RANK];
  for (int j = 0; j < KG_MAX_RANK; j++) oc[j] = KG_NONE;
  switch (n->op) {
  case KG_OP_RESHAPE: reshape_map(L, xs, c, os, oc); break;
  case KG_OP_PERMUTE:
    for (int i = 0; i < xs->rank; i++) oc[(n->ia[0] >> (4 * i)) & 15] = c[i];
    break;
  case KG_OP_EXPAND: bcast(xs, c, os, oc); break;
  case KG_OP_SLICE: {
    int d = (int)n->ia[0];
    memcpy(oc, c, sizeof oc);
    uint32_t s = n->ia[1] ? ic(L, n->ia[1]) : KG_NONE;
    oc[d] = iadd(L, s, n->ia[2] == 1 ? c[d] : imul(L, c[d], ic(L, n->ia[2])));
    if (is_one(&os->d[d])) oc[d] = KG_NONE;
    break;
  }
  case KG_OP_SELECT: {
    int d = (int)n->ia[0];
    for (int j = 0, i = 0; j < os->rank; j++) oc[j] = j == d ? (n->ia[1] ? ic(L, n->ia[1]) : KG_NONE) : c[i++];
    break;
  }
  case KG_OP_FLIP:
    for (int d = 0; d < xs->rank; d++) {
      oc[d] = c[d];
      if (!((n->ia[0] >> d) & 1) || is_one(&xs->d[d])) continue;
      uint32_t last = kg_kx_op(k, KG_OP_SUB, L->ix, kg_lw_size(L, &xs->d[d]), ic(L, 1), KG_NONE);
      oc[d] = kg_lw_decl(L, "fc", L->ix, kg_kx_op(k, KG_OP_SUB, L->ix, last, zero_if_none(L, c[d]), KG_NONE));
    }
    break;
  case KG_OP_ROLL: {
    int d = (int)n->ia[0];
    memcpy(oc, c, sizeof oc);
    if (!is_one(&xs->d[d]) && n->ia[1]) {
      uint32_t sz = kg_lw_size(L, &xs->d[d]);
      uint32_t t = iadd(L, zero_if_none(L, c[d]), kg_kx_op(k, KG_OP_SUB, L->ix, sz, ic(L, n->ia[1]), KG_NONE));
      oc[d] = kg_lw_decl(L, "rl", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, t, sz, KG_NONE));
    }
    break;
  }
  case KG_OP_REPEAT:
    for (int j = 0; j < os->rank; j++) {
      int d = j + xs->rank - os->rank;
      if (is_one(&os->d[j]) || c[d] == KG_NONE) { oc[j] = KG_NONE; continue; }
      oc[j] = dim_eq(&os->d[j], &xs->d[d]) ? c[d] : kg_lw_decl(L, "rp", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, c[d], kg_lw_size(L, &os->d[j]), KG_NONE));
    }
    break;
  case KG_OP_CAT: return cat_at(L, id, c);
  case KG_OP_IM2COL: return im2col_at(L, id, c);
  case KG_OP_PAD: return pad_at(L, id, c);
  case KG_OP_TRIL: {
    int r = xs->rank;
    uint32_t row = zero_if_none(L, c[r - 2]), col = zero_if_none(L, c[r - 1]);
    uint32_t diff = kg_kx_op(k, KG_OP_SUB, KG_I64, kg_lw_cvt(L, col, KG_I64), kg_lw_cvt(L, row, KG_I64), KG_NONE);
    uint32_t cond = kg_kx_op(k, n->ia[1] ? KG_OP_GE : KG_OP_LE, KG_BOOL, diff, kg_kx_const_i(k, KG_I64, n->ia[0]), KG_NONE);
    uint32_t v = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], c), dt);
    uint32_t z = kg_dtype_is_float(dt) ? kg_kx_const_f(k, dt, 0) : kg_kx_const_i(k, dt, 0);
    return kg_lw_decl(L, "t", dt, kg_kx_select(k, dt, cond, v, z));
  }
  case KG_OP_INDEX: {
    int d = (int)n->ia[0];
    const kg_gnode *ix = gn(L, n->in[1]);
    int ri = ix->shape.rank;
    uint32_t icx[KG_MAX_RANK];
    for (int j = 0; j < ri; j++) icx[j] = is_one(&ix->shape.d[j]) ? KG_NONE : c[d + j];
    uint32_t v = ix->vkind == KG_V_SCALAR ? kg_lw_val(L, n->in[1]) : kg_lw_val_at(L, n->in[1], icx);
    for (int j = 0; j < d; j++) oc[j] = c[j];
    oc[d] = wrap_index(L, v, &os->d[d]);
    for (int j = d + 1; j < os->rank; j++) oc[j] = c[j - 1 + ri];
    break;
  }
  case KG_OP_GATHER: {
    int d = (int)n->ia[0];
    memcpy(oc, c, sizeof oc);
    uint32_t v = kg_lw_val_at(L, n->in[1], c);
    oc[d] = wrap_index(L, v, &os->d[d]);
    break;
  }
  case KG_OP_ARANGE: {
    uint32_t i = zero_if_none(L, c[0]);
    if (kg_dtype_is_float(dt)) {
      uint32_t e = kg_kx_op(k, KG_OP_ADD, KG_F64, kg_kx_const_f(k, KG_F64, n->fa[0]),
                            kg_kx_op(k, KG_OP_MUL, KG_F64, kg_lw_cvt(L, i, KG_F64), kg_kx_const_f(k, KG_F64, n->fa[1]), KG_NONE), KG_NONE);
      return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, e, dt));
    }
    uint32_t e = kg_kx_op(k, KG_OP_ADD, KG_I64, kg_kx_const_i(k, KG_I64, (int64_t)n->fa[0]),
                          kg_kx_op(k, KG_OP_MUL, KG_I64, kg_lw_cvt(L, i, KG_I64), kg_kx_const_i(k, KG_I64, (int64_t)n->fa[1]), KG_NONE), KG_NONE);
    return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, e, dt));
  }
  case KG_OP_LINSPACE: {
    /* PyTorch's kernel: step in the dtype (float64 for integers), the two halves from each end */
    kg_dtype ct = kg_dtype_is_float(dt) ? dt : KG_F64;
    uint32_t i = kg_lw_cvt(L, zero_if_none(L, c[0]), KG_I64), s = kg_lw_cvt(L, kg_lw_size(L, &xs->d[0]), KG_I64);
    uint32_t one = kg_kx_const_i(k, KG_I64, 1), last = kg_kx_op(k, KG_OP_SUB, KG_I64, s, one, KG_NONE);
    uint32_t st = kg_kx_const_f(k, ct, n->fa[0]), en = kg_kx_const_f(k, ct, n->fa[1]);
    uint32_t step = kg_lw_decl(L, "step", ct, kg_kx_op(k, KG_OP_DIV, ct, kg_kx_op(k, KG_OP_SUB, ct, en, st, KG_NONE), kg_lw_cvt(L, last, ct), KG_NONE));
    uint32_t lo = kg_kx_op(k, KG_OP_ADD, ct, st, kg_kx_op(k, KG_OP_MUL, ct, step, kg_lw_cvt(L, i, ct), KG_NONE), KG_NONE);
    uint32_t hi = kg_kx_op(k, KG_OP_SUB, ct, en, kg_kx_op(k, KG_OP_MUL, ct, step, kg_lw_cvt(L, kg_kx_op(k, KG_OP_SUB, KG_I64, last, i, KG_NONE), ct), KG_NONE), KG_NONE);
    uint32_t half = kg_kx_op(k, KG_OP_IDIV, KG_I64, s, kg_kx_const_i(k, KG_I64, 2), KG_NONE);
    uint32_t v = kg_kx_select(k, ct, kg_kx_op(k, KG_OP_LT, KG_BOOL, i, half, KG_NONE), lo, hi);
    v = kg_kx_select(k, ct, kg_kx_op(k, KG_OP_EQ, KG_BOOL, s, one, KG_NONE), st, v);
    return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, v, dt));
  }
  case KG_OP_EYE: {
    int r = xs->rank;
    uint32_t eq = kg_kx_op(k, KG_OP_EQ, KG_BOOL, zero_if_none(L, c[r - 2]), zero_if_none(L, c[r - 1]), KG_NONE);
    return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, eq, dt));
  }
  case KG_OP_FILL: return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, kg_lw_val(L, n->in[0]), dt));
  case KG_OP_POOL:
  case KG_OP_UPSAMPLE:
  case KG_OP_PIXEL_SHUFFLE: return kg_lw_window_at(L, id, c);
  case KG_OP_RAND:
  case KG_OP_BERNOULLI: return random_at(L, id, c);
  case KG_OP_MMFOLD: return kg_lw_dot_at(L, id, c);
  case KG_OP_UNSLICE:
  case KG_OP_POOL_GRAD:
  case KG_OP_UPSAMPLE_GRAD:
  case KG_OP_PAD_GRAD: return kg_lw_adjoint_at(L, id, c); /* the backward's own: lower_adjoint.c */
  default: KG_UNREACHABLE();
  }
  return kg_lw_val_at(L, n->in[0], oc);
}

uint32_t kg_lw_layout_val(lctx *L, uint32_t id) {
  uint32_t c[KG_MAX_RANK];
  ctx0(L, id, c);
  return layout_at(L, id, c);
}

uint32_t kg_lw_val_at(lctx *L, uint32_t id, const uint32_t *coord) {
  const kg_gnode *n = gn(L, id);
  int r = n->shape.rank;
  uint32_t c[KG_MAX_RANK];
  for (int j = 0; j < KG_MAX_RANK; j++) c[j] = j < r && !is_one(&n->shape.d[j]) ? coord[j] : KG_NONE;
  if (L->rs && L->local[id]) { /* a product's row statistic: its value at the row */
    uint32_t e = kg_lw_row_stat_at(L, id, r >= 2 ? c[r - 2] : KG_NONE);
    if (e != KG_NONE) return e;
  }
  /* scalars, the group's own reductions (per row) and constants do not depend on it */
  if (n->vkind == KG_V_SCALAR || L->local[id] || n->op == KG_OP_CONST) return kg_lw_val(L, id);
  if (L->direct[id] && L->has_gcoord) {
    uint32_t c0[KG_MAX_RANK];
    ctx0(L, id, c0);
    if (!memcmp(c, c0, (size_t)r * sizeof *c)) return kg_lw_val(L, id);
  }
  for (uint32_t i = L->n_at; i-- > 0;)
    if (L->at[i].node == id && !memcmp(L->at[i].c, c, sizeof c)) return L->at[i].e;
  uint32_t e;
  if (L->src_of[id] != KG_NONE) {
    e = source_load(L, id, c);
  } else if (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT) {
    e = layout_at(L, id, c);
  } else {
    uint32_t xv[8];
    int nin = n->op == KG_OP_FULL ? 1 : n->n_in;
    for (int j = 0; j < nin && j < 8; j++) {
      const kg_gnode *o = gn(L, n->in[j]);
      if (o->vkind == KG_V_SCALAR) { xv[j] = kg_lw_val(L, n->in[j]); continue; }
      uint32_t oc[KG_MAX_RANK];
      bcast(&n->shape, c, &o->shape, oc);
      xv[j] = kg_lw_val_at(L, n->in[j], oc);
    }
    e = kg_lw_build(L, id, xv);
  }
  if (L->n_at == L->cap_at) {
    L->cap_at = L->cap_at ? 2 * L->cap_at : 32;
    L->at = kg_xrealloc(L->at, L->cap_at * sizeof *L->at);
  }
  kg_lw_at *m = &L->at[L->n_at++];
  m->node = id, m->e = e;
  memcpy(m->c, c, sizeof c);
  return e;
}
