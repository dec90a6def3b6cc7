/* passes/lower_window.c — pooling, resampling and pixel shuffle as values at coordinates
 * (lower_view.c's layout ops whose value at an output coordinate reads a window or a few
 * neighbours of their operand).
 *
 * POOL is a direct schedule: the thread that owns an output element loops over its window,
 * evaluating the operand — a source load, or its pointwise producers inline (relu, a batch
 * norm's scale and shift) — at each window coordinate with kg_lw_val_at; the loop body is a
 * scope, so what it computes is forgotten after it. Pooling windows are small (2×2, 3×3): a
 * loop per output is cheaper than a reduction kernel's collectives, reads each input element
 * about k²/s² times from cache, and lets the pool sit inside the kernel of its consumers
 * (pointwise work over the pooled shape) and of its producers — one kernel for
 * maxpool(relu(x)) + b. Global pooling (adaptive to 1×1: whole rows of H·W) is a row reduction
 * instead (passes/decompose.c). PyTorch's rules, exactly:
 *   max:      padding reads nothing (the maximum starts at -inf); a NaN wins and stays
 *             (val > max || isnan(val));
 *   avg:      the sum in float32 (float64 for float64) over the window's elements inside the
 *             input, divided by divisor_override, or by the window clipped to the padded input
 *             (count_include_pad), or by the elements inside the input;
 *   adaptive: window [floor(o·I/O), ceil((o+1)·I/O)) per dim; avg divides by its height, then
 *             its width (PyTorch's out / kh / kw).
 * UPSAMPLE nearest reads min(floor(o · scale), I − 1) with PyTorch's float32 scale (1 /
 * scale_factor when given, else I / O); linear / bilinear lerp the 2 or 4 neighbours with
 * PyTorch's source index (align_corners: o · (I−1)/(O−1); else (o + 0.5) · scale − 0.5, clamped
 * at 0) and weights computed in double (its CPU accscalar_t) and rounded to float only as
 * weights, in PyTorch's order of operations.
 * PIXEL_SHUFFLE maps (c, h, w) to (c·r² + (h mod r)·r + w mod r, h / r, w / r) (and back).
 *
 *   maxpool 2×2 stride 2 of relu(x), x: [N,C,8,8] (pointwise over [N,C,4,4]):
 *     m = -inf; for (i = 0; i < 2; i++) for (j = 0; j < 2; j++) {
 *       h = c2 * 2 - 0 + i * 1; w = c3 * 2 + j; if (0 <= h && h < 8 && 0 <= w && w < 8) {
 *         v = relu(x[... + h * s2 + w * s3]); m = (v > m || isnan(v)) ? v : m } }
 */
#include <math.h>
#include <string.h>

#include "lower_int.h"

static const kg_gnode *gn(const lctx *L, uint32_t id) { return &L->g->nodes.v[id]; }

static uint32_t ic(lctx *L, int64_t v) { return kg_kx_const_i(L->k, L->ix, v); }
static uint32_t zero_if_none(lctx *L, uint32_t a) { return a == KG_NONE ? ic(L, 0) : a; }
static uint32_t iop(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, L->ix, a, b, KG_NONE); }
static uint32_t bop(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, KG_BOOL, a, b, KG_NONE); }

static void assign(lctx *L, uint32_t var, uint32_t e) {
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = var, as.b = e;
  kg_ks_add(&L->cur, as);
}

static uint32_t new_var(lctx *L, const char *name, kg_dtype t, uint32_t init) {
  uint32_t v = kg_kvar_new(L->k, name, t);
  kg_ks d = kg_ks_make(KS_DECL);
  d.a = v, d.b = init;
  kg_ks_add(&L->cur, d);
  return v;
}

/* for (v = lo; v < hi; v++) { ... }: the loop variable; L->cur is its body (in a scope) */
static uint32_t open_for(lctx *L, const char *name, uint32_t lo, uint32_t hi, kg_lw_scope *sc) {
  return kg_lw_open_for(L, name, lo, hi, ic(L, 1), sc);
}

/* if (cond) { ... }: L->cur is its body (in a scope) */
static void open_if(lctx *L, uint32_t cond, kg_lw_scope *sc) {
  kg_ks s = kg_ks_make(KS_IF);
  s.a = cond;
  uint32_t st = kg_ks_add(&L->cur, s);
  *sc = kg_lw_scope_enter(L, kg_kcursor_body(L->k, st, false));
}

/* ---- POOL ---- */

typedef struct pdim {
  int axis;         /* the dim of the operand (and of the output) */
  int64_t in, out;  /* sizes */
  int64_t k, s, p, d;
  uint32_t lo, hi;  /* adaptive: the window; else lo = o·s − p (may be negative) */
} pdim;

static uint32_t pool_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  const kg_gnode *xn = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  int nd = (int)(n->ia[2] & 3), kind = (int)((n->ia[2] >> 2) & 3), r = n->shape.rank;
  bool cip = (n->ia[2] >> 4) & 1, adaptive = kind >= 2, mx = kind == 0 || kind == 3;
  int64_t divisor = n->ia[3];
  kg_dtype acc = dt == KG_F64 ? KG_F64 : KG_F32;
  pdim P[2];
  for (int i = 0; i < nd; i++) {
    pdim *q = &P[i];
    q->axis = r - nd + i;
    q->in = xn->shape.d[q->axis].v, q->out = n->shape.d[q->axis].v;
    int64_t w = n->ia[i];
    q->k = w & 0xffff, q->s = (w >> 16) & 0xffff, q->p = (w >> 32) & 0xffff, q->d = (w >> 48) & 0xffff;
    uint32_t o = zero_if_none(L, c[q->axis]);
    if (adaptive) { /* [floor(o·I/O), ceil((o+1)·I/O)) */
      q->lo = kg_lw_decl(L, "ws", L->ix, iop(L, KG_OP_IDX_DIV, iop(L, KG_OP_IDX_MUL, o, ic(L, q->in)), ic(L, q->out)));
      uint32_t e = iop(L, KG_OP_IDX_ADD, iop(L, KG_OP_IDX_MUL, iop(L, KG_OP_IDX_ADD, o, ic(L, 1)), ic(L, q->in)), ic(L, q->out - 1));
      q->hi = kg_lw_decl(L, "we", L->ix, iop(L, KG_OP_IDX_DIV, e, ic(L, q->out)));
    } else {
      q->lo = kg_lw_decl(L, "ws", L->ix, iop(L, KG_OP_SUB, iop(L, KG_OP_IDX_MUL, o, ic(L, q->s)), ic(L, q->p)));
      q->hi = KG_NONE;
    }
  }
  /* the accumulator: max in the value's dtype (starting at -inf), sums in acc */
  uint32_t av = mx ? new_var(L, "pm", dt, kg_kx_const_f(k, dt, -INFINITY)) : new_var(L, "ps", acc, kg_kx_const_f(k, acc, 0));
  kg_lw_scope sc[2], si;
  uint32_t pos[2];
  for (int i = 0; i < nd; i++) {
    pdim *q = &P[i];
    if (adaptive) {
      pos[i] = open_for(L, "wi", q->lo, q->hi, &sc[i]);
    } else {
      uint32_t j = open_for(L, "wj", ic(L, 0), ic(L, q->k), &sc[i]);
      pos[i] = kg_lw_decl(L, "wp", L->ix, iop(L, KG_OP_ADD, q->lo, q->d == 1 ? j : iop(L, KG_OP_MUL, j, ic(L, q->d))));
    }
  }
  bool guard = !adaptive;
  if (guard) {
    uint32_t cond = KG_NONE;
    for (int i = 0; i < nd; i++) {
      uint32_t ok = bop(L, KG_OP_LAND, bop(L, KG_OP_GE, pos[i], ic(L, 0)), bop(L, KG_OP_LT, pos[i], ic(L, P[i].in)));
      cond = cond == KG_NONE ? ok : bop(L, KG_OP_LAND, cond, ok);
    }
    open_if(L, cond, &si);
  }
  uint32_t oc[KG_MAX_RANK];
  memcpy(oc, c, sizeof oc);
  for (int i = 0; i < nd; i++) oc[P[i].axis] = P[i].in == 1 ? KG_NONE : pos[i];
  uint32_t v = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), dt);
  if (mx) {
    v = kg_lw_decl(L, "pv", dt, v);
    uint32_t cur = kg_kx_var(k, av);
    uint32_t take = bop(L, KG_OP_LOR, kg_kx_op(k, KG_OP_GT, KG_BOOL, v, cur, KG_NONE), kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, v, KG_NONE, KG_NONE));
    assign(L, av, kg_kx_select(k, dt, take, v, cur));
  } else {
    assign(L, av, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, av), kg_lw_cvt(L, v, acc), KG_NONE));
  }
  if (guard) kg_lw_scope_leave(L, si);
  for (int i = nd; i-- > 0;) kg_lw_scope_leave(L, sc[i]);
  if (mx) return kg_kx_var(k, av);
  uint32_t sum = kg_kx_var(k, av);
  if (adaptive) { /* out / kh / kw */
    for (int i = 0; i < nd; i++) {
      uint32_t len = kg_lw_cvt(L, iop(L, KG_OP_SUB, P[i].hi, P[i].lo), acc);
      sum = kg_lw_decl(L, "pa", acc, kg_kx_op(k, KG_OP_DIV, acc, sum, len, KG_NONE));
    }
    return kg_lw_cvt(L, sum, dt);
  }
  uint32_t div;
  if (divisor) {
    div = kg_kx_const_f(k, acc, (double)divisor);
  } else {
    uint32_t cnt = KG_NONE;
    for (int i = 0; i < nd; i++) {
      pdim *q = &P[i];
      uint32_t end = iop(L, KG_OP_ADD, q->lo, ic(L, q->k)), len;
      if (cip) { /* the window clipped to the padded input */
        len = iop(L, KG_OP_SUB, iop(L, KG_OP_MINIMUM, end, ic(L, q->in + q->p)), q->lo);
      } else { /* the elements inside the input */
        len = iop(L, KG_OP_SUB, iop(L, KG_OP_MINIMUM, end, ic(L, q->in)), iop(L, KG_OP_MAXIMUM, q->lo, ic(L, 0)));
      }
      cnt = cnt == KG_NONE ? len : iop(L, KG_OP_MUL, cnt, len);
    }
    div = kg_lw_cvt(L, kg_lw_decl(L, "pn", L->ix, cnt), acc);
  }
  return kg_lw_decl(L, "pa", dt, kg_lw_cvt(L, kg_kx_op(k, KG_OP_DIV, acc, sum, div, KG_NONE), dt));
}

/* ---- UPSAMPLE ---- */

/* PyTorch's float32 nearest index: min(floor(o · scale), I − 1), with the shortcuts it takes
 * (O = I: o; O = 2I: o >> 1) */
static uint32_t nearest_src(lctx *L, uint32_t o, int64_t in, int64_t out, bool has_scale, double sf) {
  kg_kernel *k = L->k;
  if (out == in) return o;
  if (out == 2 * in) return kg_lw_decl(L, "un", L->ix, iop(L, KG_OP_IDX_DIV, o, ic(L, 2)));
  float scale = has_scale && sf > 0 ? (float)(1.0 / sf) : (float)in / (float)out;
  uint32_t f = kg_kx_op(k, KG_OP_MUL, KG_F32, kg_kx_cast(k, KG_F32, o), kg_kx_const_f(k, KG_F32, scale), KG_NONE);
  uint32_t s = kg_lw_cvt(L, kg_kx_op(k, KG_OP_FLOOR, KG_F32, f, KG_NONE, KG_NONE), L->ix);
  return kg_lw_decl(L, "un", L->ix, iop(L, KG_OP_MINIMUM, s, ic(L, in - 1)));
}

/* PyTorch's linear source index and weights along one dim (1.13's CPU
 * compute_source_index_and_lambda): the scale in the opmath ct (float32, or float64 for
 * float64), the source index and both weights in its accumulation type, double — l1 =
 * clamp(src − i0, 0, 1), l0 = 1 − l1 — rounded to ct only as weights (rounding the index to
 * float32 first moved a weight by an ulp of the index, 1e-6 of a neighbour difference: fuzz
 * seed 9, examples/fs_fuzz_bilinear_weights; libtorch 2.x, under TorchSharp, takes the index in
 * float32: kgen is the nearer to float64 of the two); an output as long as its input copies. Gives i0,
 * i1, l0 (the weight of i0), l1. */
static void linear_src(lctx *L, kg_dtype ct, uint32_t o, int64_t in, int64_t out, bool align, bool has_scale, double sf,
                       uint32_t *i0, uint32_t *i1, uint32_t *l0, uint32_t *l1) {
  kg_kernel *k = L->k;
  bool dbl = ct == KG_F64;
  if (in == out) { /* PyTorch's shortcut: input_index0 = input_index1 = o, lambda0 = 1 */
    *i0 = *i1 = o;
    *l0 = kg_kx_const_f(k, ct, 1), *l1 = kg_kx_const_f(k, ct, 0);
    return;
  }
  double scale;
  if (align) scale = out > 1 ? (dbl ? (double)(in - 1) / (double)(out - 1) : (double)((float)(in - 1) / (float)(out - 1))) : 0.0;
  else if (has_scale && sf > 0) scale = dbl ? 1.0 / sf : (double)(float)(1.0 / sf);
  else scale = dbl ? (double)in / (double)out : (double)((float)in / (float)out);
  uint32_t od = kg_kx_cast(k, KG_F64, o), src;
  if (align) src = kg_kx_op(k, KG_OP_MUL, KG_F64, kg_kx_const_f(k, KG_F64, scale), od, KG_NONE);
  else { /* scale · (o + 0.5) − 0.5, clamped at 0 */
    od = kg_kx_op(k, KG_OP_ADD, KG_F64, od, kg_kx_const_f(k, KG_F64, 0.5), KG_NONE);
    uint32_t t = kg_lw_decl(L, "us", KG_F64,
                            kg_kx_op(k, KG_OP_SUB, KG_F64, kg_kx_op(k, KG_OP_MUL, KG_F64, kg_kx_const_f(k, KG_F64, scale), od, KG_NONE),
                                     kg_kx_const_f(k, KG_F64, 0.5), KG_NONE));
    uint32_t z = kg_kx_const_f(k, KG_F64, 0);
    src = kg_kx_select(k, KG_F64, kg_kx_op(k, KG_OP_LT, KG_BOOL, t, z, KG_NONE), z, t);
  }
  src = kg_lw_decl(L, "us", KG_F64, src);
  *i0 = kg_lw_decl(L, "u0", L->ix, kg_lw_cvt(L, src, L->ix)); /* src >= 0: truncation is floor */
  *i1 = kg_lw_decl(L, "u1", L->ix, kg_kx_select(k, L->ix, bop(L, KG_OP_LT, *i0, ic(L, in - 1)), iop(L, KG_OP_IDX_ADD, *i0, ic(L, 1)), *i0));
  uint32_t lam = kg_kx_op(k, KG_OP_SUB, KG_F64, src, kg_kx_cast(k, KG_F64, *i0), KG_NONE);
  lam = kg_lw_decl(L, "ud", KG_F64,
                   kg_kx_op(k, KG_OP_MINIMUM, KG_F64, kg_kx_op(k, KG_OP_MAXIMUM, KG_F64, lam, kg_kx_const_f(k, KG_F64, 0), KG_NONE),
                            kg_kx_const_f(k, KG_F64, 1), KG_NONE));
  *l1 = kg_lw_decl(L, "ul", ct, kg_lw_cvt(L, lam, ct));
  *l0 = kg_lw_decl(L, "ul", ct, kg_lw_cvt(L, kg_kx_op(k, KG_OP_SUB, KG_F64, kg_kx_const_f(k, KG_F64, 1), lam, KG_NONE), ct));
}

static uint32_t upsample_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  const kg_gnode *xn = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  int nd = (int)(n->ia[2] & 3), r = n->shape.rank;
  bool linear = (n->ia[2] >> 2) & 1, align = (n->ia[2] >> 4) & 1, has_scale = (n->ia[2] >> 5) & 1;
  uint32_t oc[KG_MAX_RANK];
  memcpy(oc, c, sizeof oc);
  if (!linear) {
    for (int i = 0; i < nd; i++) {
      int a = r - nd + i;
      int64_t in = xn->shape.d[a].v;
      oc[a] = in == 1 ? KG_NONE : nearest_src(L, zero_if_none(L, c[a]), in, n->shape.d[a].v, has_scale, n->fa[i]);
    }
    return kg_lw_val_at(L, n->in[0], oc);
  }
  kg_dtype ct = dt == KG_F64 ? KG_F64 : KG_F32;
  uint32_t i0[2], i1[2], l0[2], l1[2];
  for (int i = 0; i < nd; i++) {
    int a = r - nd + i;
    linear_src(L, ct, zero_if_none(L, c[a]), xn->shape.d[a].v, n->shape.d[a].v, align, has_scale, n->fa[i], &i0[i], &i1[i], &l0[i], &l1[i]);
  }
  /* the innermost dim first: t(h) = x[h, w0]·lw0 + x[h, w1]·lw1; then t(h0)·lh0 + t(h1)·lh1 */
  int aw = r - 1, ah = r - 2;
  uint32_t rows[2];
  for (int hh = 0; hh < (nd == 2 ? 2 : 1); hh++) {
    if (nd == 2) oc[ah] = xn->shape.d[ah].v == 1 ? KG_NONE : (hh ? i1[0] : i0[0]);
    uint32_t x0, x1;
    oc[aw] = xn->shape.d[aw].v == 1 ? KG_NONE : i0[nd - 1];
    x0 = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), ct);
    oc[aw] = xn->shape.d[aw].v == 1 ? KG_NONE : i1[nd - 1];
    x1 = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), ct);
    uint32_t t = kg_kx_op(k, KG_OP_ADD, ct, kg_kx_op(k, KG_OP_MUL, ct, x0, l0[nd - 1], KG_NONE),
                          kg_kx_op(k, KG_OP_MUL, ct, x1, l1[nd - 1], KG_NONE), KG_NONE);
    rows[hh] = kg_lw_decl(L, "ut", ct, t);
  }
  uint32_t v = rows[0];
  if (nd == 2)
    v = kg_kx_op(k, KG_OP_ADD, ct, kg_kx_op(k, KG_OP_MUL, ct, rows[0], l0[0], KG_NONE), kg_kx_op(k, KG_OP_MUL, ct, rows[1], l1[0], KG_NONE), KG_NONE);
  return kg_lw_decl(L, "uv", dt, kg_lw_cvt(L, v, dt));
}

/* ---- PIXEL_SHUFFLE ---- */

static uint32_t shuffle_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id);
  const kg_gnode *xn = gn(L, n->in[0]);
  int r = n->shape.rank;
  int64_t f = n->ia[0];
  uint32_t oc[KG_MAX_RANK];
  memcpy(oc, c, sizeof oc);
  uint32_t cc = zero_if_none(L, c[r - 3]), h = zero_if_none(L, c[r - 2]), w = zero_if_none(L, c[r - 1]);
  uint32_t rr = ic(L, f), r2 = ic(L, f * f);
  if (!n->ia[1]) { /* shuffle: in[c·r² + (h % r)·r + w % r, h / r, w / r] */
    uint32_t ch = iop(L, KG_OP_IDX_ADD, iop(L, KG_OP_IDX_MUL, cc, r2),
                      iop(L, KG_OP_IDX_ADD, iop(L, KG_OP_IDX_MUL, iop(L, KG_OP_IDX_MOD, h, rr), rr), iop(L, KG_OP_IDX_MOD, w, rr)));
    oc[r - 3] = kg_lw_decl(L, "pc", L->ix, ch);
    oc[r - 2] = kg_lw_decl(L, "ph", L->ix, iop(L, KG_OP_IDX_DIV, h, rr));
    oc[r - 1] = kg_lw_decl(L, "pw", L->ix, iop(L, KG_OP_IDX_DIV, w, rr));
  } else { /* unshuffle: out[c'] with c' = c·r² + i·r + j reads in[c, h·r + i, w·r + j] */
    uint32_t q = kg_lw_decl(L, "pq", L->ix, iop(L, KG_OP_IDX_MOD, cc, r2));
    oc[r - 3] = kg_lw_decl(L, "pc", L->ix, iop(L, KG_OP_IDX_DIV, cc, r2));
    oc[r - 2] = kg_lw_decl(L, "ph", L->ix, iop(L, KG_OP_IDX_ADD, iop(L, KG_OP_IDX_MUL, h, rr), iop(L, KG_OP_IDX_DIV, q, rr)));
    oc[r - 1] = kg_lw_decl(L, "pw", L->ix, iop(L, KG_OP_IDX_ADD, iop(L, KG_OP_IDX_MUL, w, rr), iop(L, KG_OP_IDX_MOD, q, rr)));
  }
  for (int j = r - 3; j < r; j++)
    if (xn->shape.d[j].kind == KG_DIM_STATIC && xn->shape.d[j].v == 1) oc[j] = KG_NONE;
  return kg_lw_val_at(L, n->in[0], oc);
}

/* the forward's source index maps, for UPSAMPLE_GRAD (lower_adjoint.c) */
uint32_t kg_lw_nearest_src(lctx *L, uint32_t o, int64_t in, int64_t out, bool has_scale, double sf) {
  return nearest_src(L, o, in, out, has_scale, sf);
}
void kg_lw_linear_src(lctx *L, kg_dtype ct, uint32_t o, int64_t in, int64_t out, bool align, bool has_scale, double sf, uint32_t *i0,
                      uint32_t *i1, uint32_t *l0, uint32_t *l1) {
  linear_src(L, ct, o, in, out, align, has_scale, sf, i0, i1, l0, l1);
}

uint32_t kg_lw_window_at(lctx *L, uint32_t id, const uint32_t *c) {
  switch (L->g->nodes.v[id].op) {
  case KG_OP_POOL: return pool_at(L, id, c);
  case KG_OP_UPSAMPLE: return upsample_at(L, id, c);
  case KG_OP_PIXEL_SHUFFLE: return shuffle_at(L, id, c);
  default: KG_UNREACHABLE();
  }
}
