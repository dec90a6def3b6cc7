/* passes/lower_adjoint.c — the backward program's own layout ops as values at coordinates
 * (lower_view.c's layout_at hands them here), so a gradient sent back through a slice or a pool
 * is computed in the kernel that reads it, never materialized on its own:
 *   UNSLICE: the slice's gradient where the coordinate was sliced from, else 0 (a predicated read);
 *   POOL_GRAD: at an input coordinate, a loop over the windows that contain it — for a window of
 *     stride s, padding p and dilation d the taps j with (h + p - j·d) divisible by s give the
 *     window o = (h + p - j·d) / s; adaptive windows [floor(o·I/O), ceil((o+1)·I/O)) are scanned
 *     over the few o near h·O/I — adding each window's gradient: avg over its divisor (the forward
 *     pool's, exactly), max only when this coordinate is the window's maximum as PyTorch's indices
 *     pick it (the window scanned again in the forward's order: the first maximum, a NaN the
 *     last), so no index tensor is saved;
 *   PAD_GRAD (reflect, replicate, circular): at an input coordinate, the padded positions that read
 *     it (pad_grad_at);
 *   UPSAMPLE_GRAD: at an input coordinate, the outputs near it whose nearest source is it
 *     (weight 1), or whose linear neighbours include it (the neighbour's weight, both when the
 *     two neighbours coincide at the edge). */
#include <math.h>
#include <string.h>

#include "lower_int.h"

static const kg_gnode *gn(const lctx *L, uint32_t id) { return &L->g->nodes.v[id]; }
static uint32_t ic(lctx *L, int64_t v) { return kg_kx_const_i(L->k, L->ix, v); }
static uint32_t zero_if_none(lctx *L, uint32_t a) { return a == KG_NONE ? ic(L, 0) : a; }
static uint32_t iop(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, L->ix, a, b, KG_NONE); }
static uint32_t bop(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, KG_BOOL, a, b, KG_NONE); }
static uint32_t band(lctx *L, uint32_t a, uint32_t b) { return a == KG_NONE ? b : bop(L, KG_OP_LAND, a, b); }

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

static void open_if(lctx *L, uint32_t cond, kg_lw_scope *sc) {
  kg_ks s = kg_ks_make(KS_IF);
  s.a = cond;
  uint32_t st = kg_ks_add(&L->cur, s);
  *sc = kg_lw_scope_enter(L, kg_kcursor_body(L->k, st, false));
}

/* ---- UNSLICE ---- */

static uint32_t unslice_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id), *x = gn(L, n->in[0]);
  kg_dtype dt = (kg_dtype)n->dtype;
  int d = (int)n->ia[0];
  int64_t start = n->ia[1], step = n->ia[2] > 0 ? n->ia[2] : 1;
  uint32_t oc[KG_MAX_RANK];
  memcpy(oc, c, sizeof oc);
  /* j = i - start (signed: the kernel's signed index type), inside [0, step·size) and on a step */
  uint32_t j = kg_lw_decl(L, "uj", L->ix, iop(L, KG_OP_SUB, zero_if_none(L, c[d]), ic(L, start)));
  uint32_t cond = bop(L, KG_OP_GE, j, ic(L, 0));
  uint32_t q = j;
  if (step != 1) {
    cond = band(L, cond, bop(L, KG_OP_EQ, iop(L, KG_OP_IDX_MOD, j, ic(L, step)), ic(L, 0)));
    q = kg_lw_decl(L, "uq", L->ix, iop(L, KG_OP_IDX_DIV, j, ic(L, step)));
  }
  cond = band(L, cond, bop(L, KG_OP_LT, q, kg_lw_size(L, &x->shape.d[d])));
  oc[d] = kg_lw_dim_is_one(&x->shape.d[d]) ? KG_NONE : q;
  uint32_t var = new_var(L, "uv", dt, kg_lw_cvt(L, kg_kx_const_f(L->k, KG_F64, 0), dt));
  kg_lw_scope sc;
  open_if(L, kg_lw_decl(L, "uin", KG_BOOL, cond), &sc);
  assign(L, var, kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), dt));
  kg_lw_scope_leave(L, sc);
  return kg_kx_var(L->k, var);
}

/* ---- POOL_GRAD ---- */

typedef struct gdim {
  int axis;
  int64_t in, out, k, s, p, d;
  uint32_t h;     /* this input coordinate along the axis */
  uint32_t o;     /* the window (output) index, inside the loops */
  uint32_t lo, hi;/* the window [lo, hi) of o (adaptive), or lo = o·s - p */
} gdim;

/* the window of output o along one dim: adaptive [floor(o·I/O), ceil((o+1)·I/O)); else lo = o·s - p */
static void window_of(lctx *L, gdim *q, bool adaptive) {
  if (adaptive) {
    q->lo = kg_lw_decl(L, "gs", L->ix, iop(L, KG_OP_IDX_DIV, iop(L, KG_OP_IDX_MUL, q->o, ic(L, q->in)), ic(L, q->out)));
    uint32_t e = iop(L, KG_OP_IDX_ADD, iop(L, KG_OP_IDX_MUL, iop(L, KG_OP_IDX_ADD, q->o, ic(L, 1)), ic(L, q->in)), ic(L, q->out - 1));
    q->hi = kg_lw_decl(L, "ge", L->ix, iop(L, KG_OP_IDX_DIV, e, ic(L, q->out)));
  } else {
    q->lo = kg_lw_decl(L, "gs", L->ix, iop(L, KG_OP_SUB, iop(L, KG_OP_IDX_MUL, q->o, ic(L, q->s)), ic(L, q->p)));
    q->hi = KG_NONE;
  }
}

/* Is coordinate h (per dim) the maximum of the window of outputs o (PyTorch's index: the first
 * greater value, a NaN always)? Scans the window as the forward pool does. */
static uint32_t is_window_max(lctx *L, const kg_gnode *n, gdim *P, int nd, bool adaptive, const uint32_t *c) {
  kg_kernel *k = L->k;
  const kg_gnode *xn = gn(L, n->in[1]);
  kg_dtype dt = (kg_dtype)xn->dtype;
  uint32_t mv = new_var(L, "gm", dt, kg_kx_const_f(k, dt, -INFINITY));
  uint32_t mi = new_var(L, "gi", L->ix, ic(L, -1)); /* the linear position (over the pooled dims) of the max */
  kg_lw_scope sc[2], si;
  uint32_t pos[2] = {KG_NONE, KG_NONE};
  for (int i = 0; i < nd; i++) {
    gdim *q = &P[i];
    if (adaptive) pos[i] = kg_lw_open_for(L, "gw", q->lo, q->hi, ic(L, 1), &sc[i]);
    else {
      uint32_t t = kg_lw_open_for(L, "gt", ic(L, 0), ic(L, q->k), ic(L, 1), &sc[i]);
      pos[i] = kg_lw_decl(L, "gp", L->ix, iop(L, KG_OP_ADD, q->lo, q->d == 1 ? t : iop(L, KG_OP_MUL, t, ic(L, q->d))));
    }
  }
  uint32_t inside = KG_NONE;
  if (!adaptive)
    for (int i = 0; i < nd; i++) inside = band(L, inside, band(L, bop(L, KG_OP_GE, pos[i], ic(L, 0)), bop(L, KG_OP_LT, pos[i], ic(L, P[i].in))));
  if (inside != KG_NONE) open_if(L, inside, &si);
  uint32_t oc[KG_MAX_RANK];
  memcpy(oc, c, sizeof oc);
  for (int i = 0; i < nd; i++) oc[P[i].axis] = P[i].in == 1 ? KG_NONE : pos[i];
  uint32_t v = kg_lw_decl(L, "gv", dt, kg_lw_cvt(L, kg_lw_val_at(L, n->in[1], oc), dt));
  uint32_t cur = kg_kx_var(k, mv);
  uint32_t take = bop(L, KG_OP_LOR, kg_kx_op(k, KG_OP_GT, KG_BOOL, v, cur, KG_NONE), kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, v, KG_NONE, KG_NONE));
  take = kg_lw_decl(L, "gk", KG_BOOL, take);
  uint32_t lin = pos[0];
  if (nd == 2) lin = iop(L, KG_OP_ADD, iop(L, KG_OP_MUL, pos[0], ic(L, P[1].in)), pos[1]);
  assign(L, mv, kg_kx_select(k, dt, take, v, cur));
  assign(L, mi, kg_kx_select(k, L->ix, take, lin, kg_kx_var(k, mi)));
  if (inside != KG_NONE) kg_lw_scope_leave(L, si);
  for (int i = nd; i-- > 0;) kg_lw_scope_leave(L, sc[i]);
  uint32_t me = P[0].h;
  if (nd == 2) me = iop(L, KG_OP_ADD, iop(L, KG_OP_MUL, P[0].h, ic(L, P[1].in)), P[1].h);
  return bop(L, KG_OP_EQ, kg_kx_var(k, mi), me);
}

/* the avg pool's divisor of the current (not adaptive) windows, the forward pool's rule, in acc */
static uint32_t avg_divisor(lctx *L, const kg_gnode *n, gdim *P, int nd, kg_dtype acc) {
  kg_kernel *k = L->k;
  bool cip = (n->ia[2] >> 4) & 1;
  if (n->ia[3]) return kg_kx_const_f(k, acc, (double)n->ia[3]);
  uint32_t cnt = KG_NONE;
  for (int i = 0; i < nd; i++) {
    gdim *q = &P[i];
    uint32_t len, end = iop(L, KG_OP_ADD, q->lo, ic(L, q->k));
    if (cip) len = iop(L, KG_OP_SUB, iop(L, KG_OP_MINIMUM, end, ic(L, q->in + q->p)), q->lo);
    else len = iop(L, KG_OP_SUB, iop(L, KG_OP_MINIMUM, end, ic(L, q->in)), iop(L, KG_OP_MAXIMUM, q->lo, ic(L, 0)));
    cnt = cnt == KG_NONE ? len : iop(L, KG_OP_MUL, cnt, len);
  }
  return kg_lw_cvt(L, kg_lw_decl(L, "gn", L->ix, cnt), acc);
}

static uint32_t pool_grad_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id), *gnode = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  kg_dtype acc = dt == KG_F64 ? KG_F64 : KG_F32;
  int nd = (int)(n->ia[2] & 3), kind = (int)((n->ia[2] >> 2) & 3), r = n->shape.rank;
  bool adaptive = kind >= 2, mx = kind == 0 || kind == 3;
  gdim P[2];
  for (int i = 0; i < nd; i++) {
    gdim *q = &P[i];
    q->axis = r - nd + i;
    q->in = n->shape.d[q->axis].v, q->out = gnode->shape.d[q->axis].v;
    int64_t w = n->ia[i];
    q->k = w & 0xffff, q->s = (w >> 16) & 0xffff, q->p = (w >> 32) & 0xffff, q->d = (w >> 48) & 0xffff;
    if (q->s <= 0) q->s = 1;
    if (q->d <= 0) q->d = 1;
    q->h = kg_lw_decl(L, "gh", L->ix, zero_if_none(L, c[q->axis]));
  }
  uint32_t sum = new_var(L, "gsum", acc, kg_kx_const_f(k, acc, 0));
  kg_lw_scope sc[2], sv;
  /* per dim: a loop over the candidate windows o, with a validity condition */
  uint32_t valid = KG_NONE;
  for (int i = 0; i < nd; i++) {
    gdim *q = &P[i];
    if (adaptive) { /* o from floor(h·O/I) - 1 to floor((h+1)·O/I) + 1, clipped to [0, O) */
      uint32_t lo = iop(L, KG_OP_SUB, iop(L, KG_OP_IDX_DIV, iop(L, KG_OP_IDX_MUL, q->h, ic(L, q->out)), ic(L, q->in)), ic(L, 1));
      lo = kg_lw_decl(L, "gl", L->ix, iop(L, KG_OP_MAXIMUM, lo, ic(L, 0)));
      uint32_t hi = iop(L, KG_OP_ADD, iop(L, KG_OP_IDX_DIV, iop(L, KG_OP_IDX_MUL, iop(L, KG_OP_IDX_ADD, q->h, ic(L, 1)), ic(L, q->out)), ic(L, q->in)), ic(L, 2));
      hi = kg_lw_decl(L, "gu", L->ix, iop(L, KG_OP_MINIMUM, hi, ic(L, q->out)));
      q->o = kg_lw_open_for(L, "go", lo, hi, ic(L, 1), &sc[i]);
      window_of(L, q, true);
      valid = band(L, valid, band(L, bop(L, KG_OP_GE, q->h, q->lo), bop(L, KG_OP_LT, q->h, q->hi)));
    } else { /* the taps t with (h + p - t·d) = o·s, 0 <= o < O */
      uint32_t t = kg_lw_open_for(L, "gt", ic(L, 0), ic(L, q->k), ic(L, 1), &sc[i]);
      uint32_t num = kg_lw_decl(L, "gq", L->ix, iop(L, KG_OP_SUB, iop(L, KG_OP_ADD, q->h, ic(L, q->p)), iop(L, KG_OP_MUL, t, ic(L, q->d))));
      uint32_t ok = bop(L, KG_OP_GE, num, ic(L, 0));
      if (q->s != 1) ok = band(L, ok, bop(L, KG_OP_EQ, iop(L, KG_OP_IDX_MOD, num, ic(L, q->s)), ic(L, 0)));
      q->o = kg_lw_decl(L, "go", L->ix, q->s == 1 ? num : iop(L, KG_OP_IDX_DIV, num, ic(L, q->s)));
      ok = band(L, ok, bop(L, KG_OP_LT, q->o, ic(L, q->out)));
      valid = band(L, valid, ok);
      window_of(L, q, false);
    }
  }
  open_if(L, kg_lw_decl(L, "gok", KG_BOOL, valid), &sv);
  uint32_t oc[KG_MAX_RANK];
  memcpy(oc, c, sizeof oc);
  for (int i = 0; i < nd; i++) oc[P[i].axis] = P[i].out == 1 ? KG_NONE : P[i].o;
  if (mx) {
    kg_lw_scope sm;
    open_if(L, kg_lw_decl(L, "gmax", KG_BOOL, is_window_max(L, n, P, nd, adaptive, c)), &sm);
    uint32_t gv = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), acc);
    assign(L, sum, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, sum), gv, KG_NONE));
    kg_lw_scope_leave(L, sm);
  } else {
    uint32_t gv = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), acc);
    if (adaptive) { /* PyTorch: g / kh / kw */
      for (int i = 0; i < nd; i++) gv = kg_kx_op(k, KG_OP_DIV, acc, gv, kg_lw_cvt(L, iop(L, KG_OP_SUB, P[i].hi, P[i].lo), acc), KG_NONE);
    } else {
      gv = kg_kx_op(k, KG_OP_DIV, acc, gv, avg_divisor(L, n, P, nd, acc), KG_NONE);
    }
    assign(L, sum, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, sum), gv, KG_NONE));
  }
  kg_lw_scope_leave(L, sv);
  for (int i = nd; i-- > 0;) kg_lw_scope_leave(L, sc[i]);
  return kg_lw_decl(L, "gr", dt, kg_lw_cvt(L, kg_kx_var(k, sum), dt));
}

/* ---- UPSAMPLE_GRAD ---- */

static uint32_t upsample_grad_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id), *gnd = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype;
  kg_dtype ct = dt == KG_F64 ? KG_F64 : KG_F32;
  int nd = (int)(n->ia[2] & 3), r = n->shape.rank;
  bool linear = (n->ia[2] >> 2) & 1, align = (n->ia[2] >> 4) & 1, has_scale = (n->ia[2] >> 5) & 1;
  uint32_t sum = new_var(L, "usum", ct, kg_kx_const_f(k, ct, 0));
  kg_lw_scope sc[2], sv;
  uint32_t oc[KG_MAX_RANK], w = KG_NONE, ok = KG_NONE;
  memcpy(oc, c, sizeof oc);
  for (int i = 0; i < nd; i++) {
    int a = r - nd + i;
    int64_t I = n->shape.d[a].v, O = gnd->shape.d[a].v, span = (O + I - 1) / (I ? I : 1);
    uint32_t h = kg_lw_decl(L, "uh", L->ix, zero_if_none(L, c[a]));
    /* the outputs near h: o from h·O/I - span - 2 to (h+1)·O/I + span + 2, clipped to [0, O) */
    uint32_t lo = iop(L, KG_OP_SUB, iop(L, KG_OP_IDX_DIV, iop(L, KG_OP_IDX_MUL, h, ic(L, O)), ic(L, I ? I : 1)), ic(L, span + 2));
    lo = kg_lw_decl(L, "ul", L->ix, iop(L, KG_OP_MAXIMUM, lo, ic(L, 0)));
    uint32_t hi = iop(L, KG_OP_ADD, iop(L, KG_OP_IDX_DIV, iop(L, KG_OP_IDX_MUL, iop(L, KG_OP_IDX_ADD, h, ic(L, 1)), ic(L, O)), ic(L, I ? I : 1)), ic(L, span + 2));
    hi = kg_lw_decl(L, "uu", L->ix, iop(L, KG_OP_MINIMUM, hi, ic(L, O)));
    uint32_t o = kg_lw_open_for(L, "uo", lo, hi, ic(L, 1), &sc[i]);
    oc[a] = O == 1 ? KG_NONE : o;
    if (!linear) {
      uint32_t s = I == 1 ? ic(L, 0) : kg_lw_nearest_src(L, o, I, O, has_scale, n->fa[i]);
      ok = band(L, ok, bop(L, KG_OP_EQ, s, h));
    } else {
      uint32_t i0, i1, l0, l1;
      kg_lw_linear_src(L, ct, o, I, O, align, has_scale, n->fa[i], &i0, &i1, &l0, &l1);
      uint32_t z = kg_kx_const_f(k, ct, 0);
      uint32_t wd = kg_kx_op(k, KG_OP_ADD, ct, kg_kx_select(k, ct, bop(L, KG_OP_EQ, i0, h), l0, z), kg_kx_select(k, ct, bop(L, KG_OP_EQ, i1, h), l1, z), KG_NONE);
      wd = kg_lw_decl(L, "uw", ct, wd);
      w = w == KG_NONE ? wd : kg_lw_decl(L, "uw", ct, kg_kx_op(k, KG_OP_MUL, ct, w, wd, KG_NONE));
    }
  }
  if (!linear) open_if(L, kg_lw_decl(L, "uok", KG_BOOL, ok), &sv);
  uint32_t gv = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), ct);
  if (linear) gv = kg_kx_op(k, KG_OP_MUL, ct, w, gv, KG_NONE);
  assign(L, sum, kg_kx_op(k, KG_OP_ADD, ct, kg_kx_var(k, sum), gv, KG_NONE));
  if (!linear) kg_lw_scope_leave(L, sv);
  for (int i = nd; i-- > 0;) kg_lw_scope_leave(L, sc[i]);
  return kg_lw_decl(L, "ur", dt, kg_lw_cvt(L, kg_kx_var(k, sum), dt));
}

/* ---- PAD_GRAD ---- */

/* pad_at's map of a padded position o to the input index along one dim (reflect, replicate,
 * circular) */
static uint32_t pad_src(lctx *L, int mode, uint32_t o, int64_t left, int64_t S) {
  kg_kernel *k = L->k;
  uint32_t i = iop(L, KG_OP_SUB, o, ic(L, left)), z = ic(L, 0), sz = ic(L, S);
  uint32_t lo = bop(L, KG_OP_LT, i, z), hi = bop(L, KG_OP_GE, i, sz);
  if (mode == 1) {
    uint32_t a = kg_kx_select(k, L->ix, lo, iop(L, KG_OP_SUB, z, i), i);
    return kg_kx_select(k, L->ix, bop(L, KG_OP_GE, a, sz), iop(L, KG_OP_SUB, ic(L, 2 * (S - 1)), a), a);
  }
  if (mode == 2) return kg_kx_select(k, L->ix, lo, z, kg_kx_select(k, L->ix, hi, ic(L, S - 1), i));
  return kg_kx_select(k, L->ix, lo, iop(L, KG_OP_ADD, i, sz), kg_kx_select(k, L->ix, hi, iop(L, KG_OP_SUB, i, sz), i));
}

/* At input coordinate h of each padded dim, the padded positions o with pad_src(o) == h: replicate
 * a range (the edges read by every position past them), reflect and circular up to three
 * candidates (h + left; reflect: left - h, left + 2(S - 1) - h; circular: h + left ± S), each
 * counted once. */
static uint32_t pad_grad_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_gnode *n = gn(L, id), *gnd = gn(L, n->in[0]);
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype, ct = kg_dtype_is_float(dt) && dt != KG_F64 ? KG_F32 : dt;
  int r = n->shape.rank, mode = (int)n->ia[0];
  uint32_t sum = new_var(L, "psum", ct, kg_kx_const_f(k, ct, 0));
  uint32_t oc[KG_MAX_RANK], ok = KG_NONE;
  memcpy(oc, c, sizeof oc);
  kg_lw_scope sc[KG_MAX_RANK], sv;
  int nl = 0;
  for (int j = 0; j < n->ia[3]; j++) {
    int d = r - 1 - j;
    if (n->shape.d[d].kind != KG_DIM_STATIC) continue; /* unpadded (frontend) */
    int64_t S = n->shape.d[d].v, O = gnd->shape.d[d].v, left = kg_pad_left(n->ia, d);
    uint32_t h = kg_lw_decl(L, "ph", L->ix, zero_if_none(L, c[d]));
    uint32_t o;
    if (mode == 2) {
      uint32_t lo = kg_kx_select(k, L->ix, bop(L, KG_OP_EQ, h, ic(L, 0)), ic(L, 0), iop(L, KG_OP_ADD, h, ic(L, left)));
      uint32_t hi = kg_kx_select(k, L->ix, bop(L, KG_OP_EQ, h, ic(L, S - 1)), ic(L, O), iop(L, KG_OP_ADD, h, ic(L, left + 1)));
      o = kg_lw_open_for(L, "po", kg_lw_decl(L, "pl", L->ix, iop(L, KG_OP_MAXIMUM, lo, ic(L, 0))), kg_lw_decl(L, "pu", L->ix, iop(L, KG_OP_MINIMUM, hi, ic(L, O))),
                         ic(L, 1), &sc[nl++]);
    } else {
      uint32_t t = kg_lw_open_for(L, "pk", ic(L, 0), ic(L, 3), ic(L, 1), &sc[nl++]);
      uint32_t c0 = iop(L, KG_OP_ADD, h, ic(L, left));
      uint32_t c1 = mode == 1 ? iop(L, KG_OP_SUB, ic(L, left), h) : iop(L, KG_OP_SUB, c0, ic(L, S));
      uint32_t c2 = mode == 1 ? iop(L, KG_OP_SUB, ic(L, left + 2 * (S - 1)), h) : iop(L, KG_OP_ADD, c0, ic(L, S));
      c0 = kg_lw_decl(L, "pc", L->ix, c0), c1 = kg_lw_decl(L, "pc", L->ix, c1), c2 = kg_lw_decl(L, "pc", L->ix, c2);
      o = kg_lw_decl(L, "po", L->ix, kg_kx_select(k, L->ix, bop(L, KG_OP_EQ, t, ic(L, 0)), c0, kg_kx_select(k, L->ix, bop(L, KG_OP_EQ, t, ic(L, 1)), c1, c2)));
      /* a candidate equal to an earlier one is that one */
      uint32_t fresh = bop(L, KG_OP_LOR, bop(L, KG_OP_EQ, t, ic(L, 0)),
                           bop(L, KG_OP_LAND, bop(L, KG_OP_NE, o, c0), bop(L, KG_OP_LOR, bop(L, KG_OP_EQ, t, ic(L, 1)), bop(L, KG_OP_NE, o, c1))));
      uint32_t inr = band(L, bop(L, KG_OP_GE, o, ic(L, 0)), bop(L, KG_OP_LT, o, ic(L, O)));
      ok = band(L, ok, band(L, fresh, inr));
    }
    ok = band(L, ok, bop(L, KG_OP_EQ, pad_src(L, mode, o, left, S), h));
    oc[d] = O == 1 ? KG_NONE : o;
  }
  if (ok != KG_NONE) open_if(L, kg_lw_decl(L, "pok", KG_BOOL, ok), &sv);
  uint32_t gv = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], oc), ct);
  assign(L, sum, kg_kx_op(k, KG_OP_ADD, ct, kg_kx_var(k, sum), gv, KG_NONE));
  if (ok != KG_NONE) kg_lw_scope_leave(L, sv);
  for (int i = nl; i-- > 0;) kg_lw_scope_leave(L, sc[i]);
  return kg_lw_decl(L, "pr", dt, kg_lw_cvt(L, kg_kx_var(k, sum), dt));
}

uint32_t kg_lw_adjoint_at(lctx *L, uint32_t id, const uint32_t *c) {
  switch (L->g->nodes.v[id].op) {
  case KG_OP_UNSLICE: return unslice_at(L, id, c);
  case KG_OP_POOL_GRAD: return pool_grad_at(L, id, c);
  case KG_OP_UPSAMPLE_GRAD: return upsample_grad_at(L, id, c);
  case KG_OP_PAD_GRAD: return pad_grad_at(L, id, c);
  default: KG_UNREACHABLE();
  }
}
