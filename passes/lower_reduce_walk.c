/* passes/lower_reduce_walk.c — the walks over the row of the reduction schedules
 * (lower_reduce.c sets up the kernel, its schedule's mapping of threads to a row and the
 * state they share, rkern in lower_int.h; the walks are the same for every schedule).
 *
 * One reduction at a time (kg_lw_reduce_one): its passes over the row (one; two for a
 * variance without a mean beside it, mean then squared deviations, and for argmax /
 * argmin, the extremum then its least index; none when an earlier walk computed it), each
 * a walk accumulating the prologue's value at every element, then the schedule's
 * collective; a Welford variance rides along in its mean's walk, a max's sum of exp in the
 * max's (online softmax: softmax reads the row twice, not three times) and simple siblings
 * in an earlier reduction's walk (which ones: lower_reduce.c). Then the row-output pass
 * (kg_lw_row_outputs). A split partial stores its chunk's accumulator after the walk; a
 * finish kernel walks the chunks instead of the row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

/* ---- the row's elements and their accumulation ---- */

/* The row's element j: its coordinates rc (the row's kept ones, j split over the
 * reduced dims) and the sources' offsets there. */
static void at_element(rkern *S, uint32_t j, uint32_t *rc) {
  if (S->nest)
    memcpy(rc, S->nest_rc, sizeof S->nest_rc);
  else {
    memcpy(rc, S->coord, sizeof S->coord);
    kg_lw_decompose(S->L, j, S->size_p, S->mask, true, rc);
  }
  kg_lw_source_offsets(S->L, S->in_stride, rc);
}

/* The row's value from each thread's partial v: the schedule's collective for reduction
 * red, or v itself with a thread per output. */
static uint32_t collective(rkern *S, kg_op red, kg_dtype acc, uint32_t v) {
  if (S->coll == KG_COLL_NONE) return v;
  uint32_t t = kg_kx_op(S->k, red, acc, v, KG_NONE, KG_NONE);
  S->k->exprs.v[t].i = S->coll == KG_COLL_WARP_ALL ? kg_coll_segment(32u >> S->seg) : S->coll;
  return t;
}

/* How an accumulator takes one more element: red's binary combination. */
static kg_op combine_op(kg_op red) {
  switch (red) {
  case KG_OP_RPROD: return KG_OP_MUL;
  case KG_OP_RAMAX: return KG_OP_MAXIMUM;
  case KG_OP_RAMIN: return KG_OP_MINIMUM;
  default: return KG_OP_ADD;
  }
}

/* A simple sibling's accumulation: mean and nansum accumulate a sum. */
static kg_op sibling_comb(kg_op op) { return op == KG_OP_RMEAN || op == KG_OP_RNANSUM ? KG_OP_RSUM : op; }

/* ---- the walks over the row ----
 * One element per iteration: a loop (j = first; j < bound; j += step), or with the row
 * cache, KG_ROW_CACHE guarded slots unrolled in the IR (j = first + s · step; if (j <
 * bound)), so that the cache vars stay in registers, or with 128-bit loads two loops:
 * whole vectors (j = first · vec; j < bound − bound % vec; j += step · vec; rw.lanes
 * elements each, lane by lane), then the scalar tail (j = bound − bound % vec + first;
 * j < bound; j += step). row_walk runs a body at every element. */
typedef struct rowwalk {
  kg_kcursor top;
  uint32_t lanes; /* elements per iteration: the vector loop's vec, else 1 */
} rowwalk;
/* Walks per pass: KG_ROW_CACHE cache slots, the vector loop and its tail, or one loop. */
static int row_slots(const lctx *L) { return L->cvar ? KG_ROW_CACHE : L->rvec > 1 ? 2 : 1; }
/* Walk s of a pass with 128-bit loads: the vector loop (s 0, rvec elements per
 * iteration, from the walk's base: 0, or a split partial's chunk start, a multiple of rvec)
 * or the scalar tail (s 1). */
static uint32_t row_begin_vec(lctx *L, rowwalk *w, int s, uint32_t first, uint32_t bound, uint32_t step) {
  kg_kernel *k = L->k;
  uint32_t vc = kg_kx_const_i(k, L->ix, L->rvec);
  uint32_t vend = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, bound, vc, KG_NONE), vc, KG_NONE);
  uint32_t jv = kg_kvar_new(k, "j", L->ix);
  kg_ks fr = kg_ks_make(KS_FOR);
  uint32_t t = L->vbase == KG_NONE ? first : L->vtid; /* the thread's index among the row's */
  if (s == 0) {
    uint32_t j0 = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, t, vc, KG_NONE);
    fr.a = jv, fr.b = L->vbase == KG_NONE ? j0 : kg_kx_op(k, KG_OP_IDX_ADD, L->ix, L->vbase, j0, KG_NONE), fr.c = vend;
    fr.d = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, step, vc, KG_NONE);
    w->lanes = L->rvec;
  } else {
    fr.a = jv, fr.b = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, vend, t, KG_NONE), fr.c = bound, fr.d = step;
  }
  uint32_t fs = kg_ks_add(&L->cur, fr);
  w->top = L->cur;
  L->cur = kg_kcursor_body(k, fs, false);
  return kg_kx_var(k, jv);
}

/* The plain walk: one loop. */
static uint32_t row_begin_loop(lctx *L, rowwalk *w, uint32_t first, uint32_t bound, uint32_t step) {
  kg_kernel *k = L->k;
  uint32_t jv = kg_kvar_new(k, "j", L->ix);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.a = jv, fr.b = first, fr.c = bound, fr.d = step;
  uint32_t fs = kg_ks_add(&L->cur, fr);
  w->top = L->cur; /* after the loop statement: later statements follow it */
  L->cur = kg_kcursor_body(k, fs, false);
  return kg_kx_var(k, jv);
}

/* Row-cache slot s: j = first + s · step, if (j < bound). */
static uint32_t row_begin_slot(lctx *L, rowwalk *w, int s, uint32_t first, uint32_t bound, uint32_t step) {
  kg_kernel *k = L->k;
  uint32_t j = kg_lw_decl(L, "j", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, first, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, kg_kx_const_i(k, L->ix, s), step, KG_NONE), KG_NONE));
  kg_ks in = kg_ks_make(KS_IF);
  in.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, j, bound, KG_NONE);
  uint32_t is = kg_ks_add(&L->cur, in);
  w->top = L->cur;
  L->cur = kg_kcursor_body(k, is, false);
  L->slot = s;
  return j;
}

/* Opens walk s of a pass (L->cur moves into its body); returns the element index j. */
static uint32_t row_begin(lctx *L, rowwalk *w, int s, uint32_t first, uint32_t bound, uint32_t step) {
  w->lanes = 1;
  if (L->rvec > 1) return row_begin_vec(L, w, s, first, bound, step);
  if (!L->cvar) return row_begin_loop(L, w, first, bound, step);
  return row_begin_slot(L, w, s, first, bound, step);
}

/* The vector loop's loads: each source that varies along the row, vec elements from
 * the offset of element j0 (the runtime guarantees contiguity and 16-byte alignment). */
static void row_vloads(rkern *S, uint32_t j0, uint32_t lanes) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t rc[KG_MAX_RANK];
  at_element(S, j0, rc);
  for (uint32_t p = 0; p < L->nsrc; p++) {
    if (!L->vecd[p]) continue;
    kg_dtype dt = (kg_dtype)k->params.v[L->pparam[p]].dtype;
    L->plane[p] = k->vars.n;
    for (uint32_t j = 0; j < lanes; j++) kg_kvar_new(k, "v", dt);
    kg_ks vl = kg_ks_make(KS_VLOAD);
    vl.a = L->pparam[p], vl.b = L->poff[p], vl.c = L->plane[p];
    kg_ks_add(&L->cur, vl);
  }
}

/* Closes walk s (L->cur back after it). */
static void row_end(lctx *L, rowwalk *w, int s) {
  L->cur = w->top;
  L->slot = -1;
  if (L->cvar && s == KG_ROW_CACHE - 1) /* a whole pass is done: what it loaded is on chip */
    for (uint32_t p = 0; p < L->nsrc; p++)
      if (L->cfilling[p]) L->cfilled[p] = 1, L->cfilling[p] = 0;
}

/* What a walk does at element j of the row (vector lane L->lane, or -1). */
typedef void row_body(rkern *S, void *arg, uint32_t j);

/* The CPU target's thread per output over a whole row of several reduced dims: the innermost
 * one's index din, else -1. */
static int nest_dim(const rkern *S, uint32_t bound) {
  const lctx *L = S->L;
  if (!L->v->cpu || !S->col || S->split != KG_SPLIT_NONE || S->cvec > 1 || L->cvar || L->rvec > 1 || (bound != KG_NONE && bound != S->bound)) return -1;
  int din = -1, n = 0;
  for (uint32_t d = 0; d < S->r; d++)
    if (((S->mask >> d) & 1) && S->size_p[d] != KG_NONE) din = (int)d, n++;
  return n >= 2 ? din : -1;
}

/* The nested walk: the row's element j = q · size_in + c in the same order as the flat loop,
 * q split over the outer reduced dims once per q, the innermost dim's coordinate the inner
 * loop's c. On the CPU device the flat loop's div / mod per element (two integer divisions for
 * a batch norm's [N, ·, H, W] rows) cost more than the element's arithmetic. */
static void row_walk_nested(rkern *S, int din, row_body *body, void *arg) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t ix = L->ix, sz = kg_kx_param(k, S->size_p[din]), one = kg_kx_const_i(k, ix, 1);
  uint32_t nq = kg_lw_decl(L, "nq", ix, kg_kx_op(k, KG_OP_IDX_DIV, ix, kg_kx_param(k, S->rn), kg_kx_op(k, KG_OP_MAXIMUM, ix, sz, one, KG_NONE), KG_NONE));
  rowwalk wq, wc;
  uint32_t q = row_begin_loop(L, &wq, S->zero, nq, one);
  memcpy(S->nest_rc, S->coord, sizeof S->coord);
  kg_lw_decompose(L, q, S->size_p, S->mask & ~((int64_t)1 << din), true, S->nest_rc);
  uint32_t c = row_begin_loop(L, &wc, S->zero, sz, one);
  S->nest_rc[din] = c;
  S->nest = true;
  body(S, arg, kg_kx_op(k, KG_OP_IDX_ADD, ix, kg_kx_op(k, KG_OP_IDX_MUL, ix, q, sz, KG_NONE), c, KG_NONE));
  S->nest = false;
  row_end(L, &wc, 0);
  row_end(L, &wq, 0);
}

/* A walk over the row: every slot, every lane; bound KG_NONE: the row's length (rn). */
static void row_walk(rkern *S, uint32_t bound, row_body *body, void *arg) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  int din = nest_dim(S, bound);
  if (din >= 0) {
    row_walk_nested(S, din, body, arg);
    return;
  }
  for (int sl = 0; sl < row_slots(L); sl++) {
    rowwalk rw;
    uint32_t j0 = row_begin(L, &rw, sl, S->first, bound == KG_NONE ? kg_kx_param(k, S->rn) : bound, S->step), jx = j0;
    if (rw.lanes > 1) row_vloads(S, j0, rw.lanes);
    for (uint32_t ln = 0; ln < rw.lanes; ln++) {
      if (rw.lanes > 1) jx = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, j0, kg_kx_const_i(k, L->ix, ln), KG_NONE), L->lane = (int)ln;
      body(S, arg, jx);
    }
    L->lane = -1;
    row_end(L, &rw, sl);
  }
}

/* ---- one reduction's passes over the row ---- */

/* What the passes of one reduction share (kg_lw_reduce_one). */
typedef struct rpass {
  uint32_t ri;          /* index into grp->reds */
  const kg_gnode *R;
  kg_op red;
  bool arg;             /* argmax / argmin: pass 0 finds the extremum, pass 1 its least index */
  int first_pass;       /* 0; 1 when a mean beside it is a variance's centre; 2 when computed earlier */
  uint32_t center;      /* pass 1's centre: the mean (variance) or the extremum (arg) */
  uint32_t res;         /* the row's value */
  /* Welford: the variance riding along (a node), its running count, mean and M2 vars */
  uint32_t wvar, wn, wm, wq;
  bool centred; /* the CPU target: the paired variances in one walk after the mean's (centred_pair) */
  /* online softmax: the sum of exp(x − shift) riding along in a max's walk (an index into
   * grp->reds, or KG_NONE), its shift (a node: a function of the max), the thread's running
   * sum (relative to its running max, the max's accumulator) and the row's, relative to the
   * row's max */
  uint32_t osum, oshift, os, osm;
  /* siblings riding along: indices into grp->reds, their accumulator vars */
  uint32_t nfol, fol[16], facc[16];
  /* the pass being built: its number, combination, accumulator dtype and var */
  int pass;
  kg_op comb;
  kg_dtype acc;
  uint32_t accv;
} rpass;

/* Welford's running (count, mean, M2), declared before the walk. */
static void welford_decl(rkern *S, rpass *P) {
  kg_kernel *k = S->k;
  kg_dtype acc = (kg_dtype)P->R->cdtype;
  P->wn = kg_kvar_new(k, "wn", acc), P->wm = kg_kvar_new(k, "wmean", acc), P->wq = kg_kvar_new(k, "wm2", acc);
  uint32_t wv[3] = {P->wn, P->wm, P->wq};
  for (int i = 0; i < 3; i++) {
    kg_ks dcl = kg_ks_make(KS_DECL);
    dcl.a = wv[i], dcl.b = KG_NONE;
    kg_ks_add(&S->L->cur, dcl);
  }
}

/* A variance whose mean (same input, same rows) is already in registers centres on it:
 * pass 0 is skipped. */
static void centre_on_mean(rkern *S, rpass *P) {
  const kg_group *grp = S->grp;
  for (uint32_t q = 0; q < P->ri; q++) {
    const kg_gnode *Q = &S->g->nodes.v[grp->reds.v[q]];
    if (Q->op == KG_OP_RMEAN && Q->in[0] == P->R->in[0] && Q->cdtype == P->R->cdtype && S->rowacc[grp->reds.v[q]] != KG_NONE) {
      P->center = S->rowacc[grp->reds.v[q]];
      P->first_pass = 1;
      return;
    }
  }
}

/* Reduction ri's plan: who rides along in its walks, which passes it needs. */
static void rpass_begin(rkern *S, rpass *P, uint32_t ri) {
  const kg_graph *g = S->g;
  const kg_group *grp = S->grp;
  uint32_t node = grp->reds.v[ri];
  P->ri = ri, P->R = &g->nodes.v[node], P->red = (kg_op)P->R->op;
  P->arg = P->red == KG_OP_RARGMAX || P->red == KG_OP_RARGMIN;
  P->center = P->res = KG_NONE;
  P->first_pass = 0;
  /* Welford: a mean followed in the group by a variance of the same input takes the
   * variance along in its own pass — per thread a running (count, mean, M2), then
   * M2 = Σ_threads M2_t + n_t (mean_t − mean)² with the block's mean (Chan et al.'s
   * combination, as two fixed-tree sums: deterministic) */
  P->wvar = S->split || S->preset[node] != KG_NONE ? KG_NONE : kg_lw_welford_var_of(g, grp, ri);
  /* the CPU target's thread per output walks the row alone, one element after another: there
   * Welford's update is a serial chain through a division per element (~25 cycles; a training
   * batch norm's statistics were 90 % of its kernel), so the paired variances take one more walk
   * instead, the squared deviations about the mean (centred_pair) — the two-pass scheme ATen's
   * CPU kernels use; the row is in cache from the mean's walk */
  P->centred = P->wvar != KG_NONE && S->L->v->cpu && S->col;
  if (P->centred) P->wvar = KG_NONE;
  /* a split variance's partial kernel: its chunk's Welford (count, mean, M2), merged in chunk
   * order by the finish kernel (split_var_finish) */
  if (S->split == KG_SPLIT_PARTIAL && P->red == KG_OP_RVAR) P->wvar = node;
  P->wn = P->wm = P->wq = KG_NONE;
  if (P->wvar != KG_NONE) welford_decl(S, P);
  /* Siblings: later reductions of the group that are simple (sum, nansum, mean, prod,
   * amax, amin) and read none of the group's reductions from this one on ride along in
   * this reduction's pass, each with its own accumulator and collective (x.sum(-1L) and
   * x.amax(-1L): one walk over the row). A mean that leads a Welford variance keeps its
   * own pass. */
  P->nfol = S->split || S->preset[node] != KG_NONE ? 0 : kg_lw_pick_siblings(g, grp, ri, S->preset, P->fol, S->rvisit);
  /* online softmax: a max followed in the group by a sum of exp(x − m) takes the sum along
   * (kg_lw_online_sum: which sums) */
  P->osum = P->os = P->osm = KG_NONE;
  if (S->online && S->preset[node] == KG_NONE) {
    uint32_t q = kg_lw_online_sum(g, grp, ri, &P->oshift);
    if (q != KG_NONE && S->preset[grp->reds.v[q]] == KG_NONE) P->osum = q;
  }
  if (S->preset[node] != KG_NONE) { /* done in an earlier pass (Welford, or as a sibling) */
    P->res = S->preset[node];
    P->first_pass = 2;
    P->nfol = 0;
  } else if (P->red == KG_OP_RVAR) /* a mean of the same input over the same rows is already in registers: skip pass 0 */
    centre_on_mean(S, P);
}

/* A pass's accumulators, the reduction's and the siblings', at their identities. */
static void pass_begin(rkern *S, rpass *P) {
  kg_kernel *k = S->k;
  kg_op red = P->red;
  P->comb = red == KG_OP_RVAR ? KG_OP_RSUM : red == KG_OP_RARGMAX ? KG_OP_RAMAX : red == KG_OP_RARGMIN ? KG_OP_RAMIN : red;
  P->acc = (kg_dtype)P->R->cdtype;
  if (P->arg && P->pass == 1) P->comb = KG_OP_RAMIN, P->acc = KG_I64; /* the least index holding the extremum */
  P->accv = kg_kvar_new(k, "acc", P->acc);
  kg_ks dcl = kg_ks_make(KS_DECL);
  dcl.a = P->accv, dcl.b = kg_lw_identity(k, P->comb, P->acc);
  kg_ks_add(&S->L->cur, dcl);
  if (P->osum != KG_NONE) {
    kg_dtype st = (kg_dtype)S->g->nodes.v[S->grp->reds.v[P->osum]].cdtype;
    P->os = kg_kvar_new(k, "osum", st);
    kg_ks od = kg_ks_make(KS_DECL);
    od.a = P->os, od.b = kg_kx_const_f(k, st, 0);
    kg_ks_add(&S->L->cur, od);
  }
  for (uint32_t f = 0; f < P->nfol; f++) {
    const kg_gnode *F = &S->g->nodes.v[S->grp->reds.v[P->fol[f]]];
    P->facc[f] = kg_kvar_new(k, "acc", (kg_dtype)F->cdtype);
    kg_ks fd = kg_ks_make(KS_DECL);
    fd.a = P->facc[f], fd.b = kg_lw_identity(k, sibling_comb((kg_op)F->op), (kg_dtype)F->cdtype);
    kg_ks_add(&S->L->cur, fd);
  }
}

/* The pass's value at element j, in the accumulator dtype: the prologue evaluated there
 * (none in an arg's pass 1, which compares), or a finish kernel's chunk accumulator;
 * nansum's NaNs count 0. */
static uint32_t element_value(rkern *S, rpass *P, uint32_t j) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t v;
  if (S->split == KG_SPLIT_FINISH) { /* the chunks' accumulators (a pair's first slot), in chunk order */
    uint32_t row = S->slots > 1 ? kg_kx_op(k, KG_OP_IDX_MUL, L->ix, j, kg_kx_const_i(k, L->ix, S->slots), KG_NONE) : j;
    v = kg_lw_cvt(L, kg_kx_load(k, S->part, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, row, kg_kx_param(k, S->numel_p), KG_NONE), S->o, KG_NONE)),
                  P->acc);
  } else {
    uint32_t rc[KG_MAX_RANK];
    at_element(S, j, rc);
    kg_lw_row_memo_reset(S);
    v = P->arg && P->pass == 1 ? KG_NONE : kg_lw_cvt(L, kg_lw_val(L, P->R->in[0]), P->acc);
  }
  if (P->red == KG_OP_RNANSUM && kg_dtype_is_float(P->acc) && S->split != KG_SPLIT_FINISH)
    v = kg_kx_select(k, P->acc, kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, v, KG_NONE, KG_NONE), kg_kx_const_f(k, P->acc, 0), v);
  return v;
}

/* Pass 1 against the centre: a variance's squared deviation; an arg's index j where the
 * element equals the extremum (NaN matching NaN), else "no index". */
static uint32_t centred(rkern *S, rpass *P, uint32_t v, uint32_t j) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  if (P->center == KG_NONE) return v;
  if (!P->arg) {
    uint32_t dv = kg_lw_decl(L, "dev", P->acc, kg_kx_op(k, KG_OP_SUB, P->acc, v, P->center, KG_NONE));
    return kg_kx_op(k, KG_OP_MUL, P->acc, dv, dv, KG_NONE);
  }
  kg_dtype et = (kg_dtype)P->R->cdtype; /* v is already the extremum's type: compare */
  uint32_t ve = kg_lw_decl(L, "v", et, kg_lw_cvt(L, kg_lw_val(L, P->R->in[0]), et));
  uint32_t match = kg_kx_op(k, KG_OP_EQ, KG_BOOL, ve, P->center, KG_NONE);
  if (kg_dtype_is_float(et))
    match = kg_kx_op(k, KG_OP_LOR, KG_BOOL, match,
                     kg_kx_op(k, KG_OP_LAND, KG_BOOL, kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, P->center, KG_NONE, KG_NONE),
                              kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, ve, KG_NONE, KG_NONE), KG_NONE),
                     KG_NONE);
  return kg_kx_select(k, KG_I64, match, kg_lw_cvt(L, j, KG_I64), kg_kx_const_i(k, KG_I64, INT64_MAX));
}

/* Welford's step at v: n += 1; d = v − mean; mean += d / n; M2 += d · (v − mean) */
static void welford_step(rkern *S, rpass *P, uint32_t v) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = P->acc;
  uint32_t wn = P->wn, wm = P->wm, wq = P->wq;
  kg_ks a1 = kg_ks_make(KS_ASSIGN);
  a1.a = wn, a1.b = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, wn), kg_kx_const_f(k, acc, 1), KG_NONE);
  kg_ks_add(&L->cur, a1);
  uint32_t d = kg_lw_decl(L, "wd", acc, kg_kx_op(k, KG_OP_SUB, acc, v, kg_kx_var(k, wm), KG_NONE));
  kg_ks a2 = kg_ks_make(KS_ASSIGN);
  a2.a = wm, a2.b = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, wm), kg_kx_op(k, KG_OP_DIV, acc, d, kg_kx_var(k, wn), KG_NONE), KG_NONE);
  kg_ks_add(&L->cur, a2);
  kg_ks a3 = kg_ks_make(KS_ASSIGN);
  a3.a = wq, a3.b = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, wq),
                             kg_kx_op(k, KG_OP_MUL, acc, d, kg_kx_op(k, KG_OP_SUB, acc, v, kg_kx_var(k, wm), KG_NONE), KG_NONE), KG_NONE);
  kg_ks_add(&L->cur, a3);
}

/* Online softmax's step at v, before the max m takes it (per thread, s = Σ exp(x − m) over the
 * elements seen): a new max (v > m) rescales, s = s · exp(m − v) + 1, else s += exp(v − m) —
 * one exp(−|v − m|) either way; an element of −inf adds nothing (also when m is −inf, where
 * v − m is NaN). Exact for finite and −inf elements; +inf and NaN make the row's max
 * non-finite, which online_finish answers from the max alone. */
static void online_step(rkern *S, rpass *P, uint32_t v) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype ct = P->acc, st = (kg_dtype)S->g->nodes.v[S->grp->reds.v[P->osum]].cdtype;
  uint32_t m = kg_kx_var(k, P->accv);
  uint32_t ad = kg_kx_op(k, KG_OP_ABS, ct, kg_kx_op(k, KG_OP_SUB, ct, v, m, KG_NONE), KG_NONE, KG_NONE);
  uint32_t e = kg_kx_op(k, KG_OP_EXP, ct, kg_kx_op(k, KG_OP_NEG, ct, ad, KG_NONE, KG_NONE), KG_NONE, KG_NONE);
  e = kg_lw_decl(L, "oe", st, kg_lw_cvt(L, kg_kx_select(k, ct, kg_kx_op(k, KG_OP_EQ, KG_BOOL, v, kg_kx_const_f(k, ct, -INFINITY), KG_NONE), kg_kx_const_f(k, ct, 0), e), st));
  uint32_t s = kg_kx_var(k, P->os);
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = P->os;
  as.b = kg_kx_select(k, st, kg_kx_op(k, KG_OP_GT, KG_BOOL, v, m, KG_NONE), kg_kx_op(k, KG_OP_ADD, st, kg_kx_op(k, KG_OP_MUL, st, s, e, KG_NONE), kg_kx_const_f(k, st, 1), KG_NONE),
                      kg_kx_op(k, KG_OP_ADD, st, s, e, KG_NONE));
  kg_ks_add(&L->cur, as);
}

/* After the max's collective (its row value M): the threads' sums rescaled to M and summed,
 * s_t · exp(m_t − M) (nothing from a thread whose max is −inf: it saw only −inf, or nothing). */
static void online_collect(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype ct = P->acc, st = (kg_dtype)S->g->nodes.v[S->grp->reds.v[P->osum]].cdtype;
  uint32_t mt = kg_kx_var(k, P->accv);
  uint32_t sc = kg_lw_cvt(L, kg_kx_op(k, KG_OP_EXP, ct, kg_kx_op(k, KG_OP_SUB, ct, mt, P->res, KG_NONE), KG_NONE, KG_NONE), st);
  uint32_t t = kg_kx_select(k, st, kg_kx_op(k, KG_OP_EQ, KG_BOOL, mt, kg_kx_const_f(k, ct, -INFINITY), KG_NONE), kg_kx_const_f(k, st, 0),
                            kg_kx_op(k, KG_OP_MUL, st, kg_kx_var(k, P->os), sc, KG_NONE));
  P->osm = kg_lw_decl(L, "osum", st, collective(S, KG_OP_RSUM, st, t));
}

/* The sum's value once the max's is in registers: Σ exp(x − c) = exp(M − c) · Σ exp(x − M) for
 * a finite row max M (c = M: softmax's factor is exactly 1). A non-finite M gives what the
 * sum walked apart gives: −inf (every element −inf) n · exp(−inf − c) (0 over an empty row),
 * +inf or NaN exp(M − c) (NaN for softmax: exp(inf − inf); +inf for logsumexp's c = 0). */
static void online_finish(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype ct = P->acc, st = (kg_dtype)S->g->nodes.v[S->grp->reds.v[P->osum]].cdtype;
  kg_lw_row_memo_reset(S);
  uint32_t M = P->res, c = kg_lw_cvt(L, kg_lw_val(L, P->oshift), ct);
  uint32_t f = kg_lw_decl(L, "oscale", st, kg_lw_cvt(L, kg_kx_op(k, KG_OP_EXP, ct, kg_kx_op(k, KG_OP_SUB, ct, M, c, KG_NONE), KG_NONE, KG_NONE), st));
  uint32_t rn = kg_kx_param(k, S->rn);
  uint32_t all_ninf = kg_kx_select(k, st, kg_kx_op(k, KG_OP_EQ, KG_BOOL, rn, S->zero, KG_NONE), kg_kx_const_f(k, st, 0),
                                   kg_kx_op(k, KG_OP_MUL, st, f, kg_lw_cvt(L, rn, st), KG_NONE));
  uint32_t nonfin = kg_kx_select(k, st, kg_kx_op(k, KG_OP_EQ, KG_BOOL, M, kg_kx_const_f(k, ct, -INFINITY), KG_NONE), all_ninf, f);
  uint32_t v = kg_kx_select(k, st, kg_kx_op(k, KG_OP_ISFINITE, KG_BOOL, M, KG_NONE, KG_NONE), kg_kx_op(k, KG_OP_MUL, st, P->osm, f, KG_NONE), nonfin);
  S->preset[S->grp->reds.v[P->osum]] = kg_lw_decl(L, "tot", st, v);
}

/* scratch[(ch · slots + sl) · n + o]: a split's slot sl of chunk ch for this output */
static uint32_t part_at(rkern *S, uint32_t ch, uint32_t sl) {
  kg_kernel *k = S->k;
  uint32_t ix = S->L->ix;
  uint32_t row = S->slots == 1 ? ch : kg_kx_op(k, KG_OP_IDX_MUL, ix, ch, kg_kx_const_i(k, ix, S->slots), KG_NONE);
  if (sl) row = kg_kx_op(k, KG_OP_IDX_ADD, ix, row, kg_kx_const_i(k, ix, sl), KG_NONE);
  return kg_kx_op(k, KG_OP_IDX_ADD, ix, kg_kx_op(k, KG_OP_IDX_MUL, ix, row, kg_kx_param(k, S->numel_p), KG_NONE), S->o, KG_NONE);
}

/* A max and its online sum, split (the split-rows plan's softmax): chunk ch's max M_c (every
 * thread needs it) and its sum relative to it (online_collect: each thread's running sum
 * rescaled to M_c) at slots 0 and 1, in the scratch's dtype. */
static void split_online_partial(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  int coll = S->coll;
  if (coll == KG_COLL_BLOCK_LEADER) S->coll = KG_COLL_BLOCK_ALL;
  P->res = kg_lw_decl(L, "tot", P->acc, collective(S, P->comb, P->acc, kg_kx_var(k, P->accv)));
  S->coll = coll;
  online_collect(S, P);
  kg_dtype sdt = kg_split_dtype(S->g, S->grp);
  kg_kcursor c0 = kg_lw_row_leader_only(S);
  kg_lw_row_store(S, &c0, S->part, part_at(S, S->ch, 0), kg_lw_cvt(L, P->res, sdt));
  kg_lw_row_store(S, &c0, S->part, part_at(S, S->ch, 1), kg_lw_cvt(L, P->osm, sdt));
}

/* The finish's second walk, at chunk j: its sum rescaled to the row's max M, s_j · exp(m_j − M)
 * (nothing from a chunk whose max is −inf: it saw only −inf), as online_collect rescales a
 * thread's. */
static void split_online_sum_at(rkern *S, void *arg, uint32_t j) {
  rpass *P = arg;
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype ct = P->acc, st = (kg_dtype)S->g->nodes.v[S->grp->reds.v[P->osum]].cdtype;
  uint32_t mj = kg_lw_decl(L, "pm", ct, kg_lw_cvt(L, kg_kx_load(k, S->part, part_at(S, j, 0)), ct));
  uint32_t sj = kg_lw_cvt(L, kg_kx_load(k, S->part, part_at(S, j, 1)), st);
  uint32_t sc = kg_lw_cvt(L, kg_kx_op(k, KG_OP_EXP, ct, kg_kx_op(k, KG_OP_SUB, ct, mj, P->res, KG_NONE), KG_NONE, KG_NONE), st);
  uint32_t t = kg_kx_select(k, st, kg_kx_op(k, KG_OP_EQ, KG_BOOL, mj, kg_kx_const_f(k, ct, -INFINITY), KG_NONE), kg_kx_const_f(k, st, 0),
                            kg_kx_op(k, KG_OP_MUL, st, sj, sc, KG_NONE));
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = P->os, as.b = kg_kx_op(k, KG_OP_ADD, st, kg_kx_var(k, P->os), t, KG_NONE);
  kg_ks_add(&L->cur, as);
}

static void pass_element(rkern *S, void *arg, uint32_t j);

/* Its finish kernel (a thread per output): the row's max M over the chunks' maxima in chunk
 * order (the max's own combination: NaN propagates), then the chunks' sums rescaled to M and
 * added in chunk order — what online_finish reads as the threads' sums. */
static void split_online_finish(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t osum = P->osum;
  P->osum = KG_NONE; /* no online step over the chunks' maxima */
  P->pass = 0;
  pass_begin(S, P);
  row_walk(S, S->bound, pass_element, P);
  P->osum = osum;
  P->res = kg_lw_decl(L, "tot", P->acc, collective(S, P->comb, P->acc, kg_kx_var(k, P->accv)));
  kg_dtype st = (kg_dtype)S->g->nodes.v[S->grp->reds.v[P->osum]].cdtype;
  P->os = kg_kvar_new(k, "osum", st);
  kg_ks od = kg_ks_make(KS_DECL);
  od.a = P->os, od.b = kg_kx_const_f(k, st, 0);
  kg_ks_add(&L->cur, od);
  row_walk(S, S->bound, split_online_sum_at, P);
  P->osm = kg_lw_decl(L, "osum", st, kg_kx_var(k, P->os));
}

/* The siblings' accumulations at the same element (their prologues evaluated there). */
static void siblings_step(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  for (uint32_t f = 0; f < P->nfol; f++) {
    const kg_gnode *F = &S->g->nodes.v[S->grp->reds.v[P->fol[f]]];
    kg_dtype fa = (kg_dtype)F->cdtype;
    kg_op fc = sibling_comb((kg_op)F->op);
    uint32_t fv = kg_lw_cvt(L, kg_lw_val(L, F->in[0]), fa);
    if ((kg_op)F->op == KG_OP_RNANSUM && kg_dtype_is_float(fa))
      fv = kg_kx_select(k, fa, kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, fv, KG_NONE, KG_NONE), kg_kx_const_f(k, fa, 0), fv);
    kg_ks fs = kg_ks_make(KS_ASSIGN);
    fs.a = P->facc[f], fs.b = kg_kx_op(k, combine_op(fc), fa, kg_kx_var(k, P->facc[f]), fv, KG_NONE);
    kg_ks_add(&L->cur, fs);
  }
}

/* One element of a pass: its value (against the centre), into the accumulators. */
static void pass_element(rkern *S, void *arg, uint32_t j) {
  rpass *P = arg;
  kg_kernel *k = S->k;
  uint32_t v = centred(S, P, element_value(S, P, j), j);
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = P->accv, as.b = kg_kx_op(k, combine_op(P->comb), P->acc, kg_kx_var(k, P->accv), v, KG_NONE);
  if (P->osum != KG_NONE) online_step(S, P, v); /* reads the max before this element */
  kg_ks_add(&S->L->cur, as);
  if (P->wvar != KG_NONE) welford_step(S, P, v);
  if (S->split != KG_SPLIT_FINISH) siblings_step(S, P);
}

/* A split partial's result: the chunk's raw accumulator to scratch[chunk · n + o]. */
static void store_partial(rkern *S, rpass *P) {
  KG_ASSERT(S->slots == 1);
  kg_kcursor c0 = kg_lw_row_leader_only(S);
  kg_lw_row_store(S, &c0, S->part, part_at(S, S->ch, 0), P->res);
}

/* A split variance's partial result, chunk ch's Welford partial at scratch[(ch · 3 + s) · n + o]:
 * s = 0 its count (hi − lo), 1 its mean (the block's sum / count: every thread needs it), 2 its
 * M2 (Σ_threads M2_t + n_t (mean_t − mean)², Chan's combination as a fixed-tree sum). */
static void split_var_partial(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = P->acc;
  uint32_t ix = L->ix;
  uint32_t cnt = kg_lw_decl(L, "cnt", acc, kg_lw_cvt(L, kg_kx_op(k, KG_OP_SUB, ix, S->hi, S->lo, KG_NONE), acc));
  int coll = S->coll;
  if (coll == KG_COLL_BLOCK_LEADER) S->coll = KG_COLL_BLOCK_ALL;
  uint32_t mean = kg_lw_decl(L, "mean", acc, kg_kx_op(k, KG_OP_DIV, acc, collective(S, KG_OP_RSUM, acc, kg_kx_var(k, P->accv)), cnt, KG_NONE));
  S->coll = coll;
  uint32_t dm = kg_kx_op(k, KG_OP_SUB, acc, kg_kx_var(k, P->wm), mean, KG_NONE);
  uint32_t t = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, P->wq), kg_kx_op(k, KG_OP_MUL, acc, kg_kx_var(k, P->wn), kg_kx_op(k, KG_OP_MUL, acc, dm, dm, KG_NONE), KG_NONE), KG_NONE);
  uint32_t m2 = kg_lw_decl(L, "m2", acc, collective(S, KG_OP_RSUM, acc, t));
  uint32_t val[3] = {cnt, mean, m2};
  KG_ASSERT(S->slots == 3);
  kg_kcursor c0 = kg_lw_row_leader_only(S);
  for (uint32_t sl = 0; sl < 3; sl++) kg_lw_row_store(S, &c0, S->part, part_at(S, S->ch, sl), val[sl]);
}

/* The finish kernel's step at chunk j: its (count c, mean mb, M2 qb) into the running (n, mean,
 * M2) by Chan's formula — n' = n + c, d = mb − mean, mean += d · c / n', M2 += qb + d² · n · c / n'
 * (chunks are never empty: n' > 0). */
static void split_var_merge_at(rkern *S, void *arg, uint32_t j) {
  rpass *P = arg;
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = P->acc;
  uint32_t x[3];
  KG_ASSERT(S->slots == 3);
  for (uint32_t sl = 0; sl < 3; sl++) x[sl] = kg_lw_decl(L, "pv", acc, kg_kx_load(k, S->part, part_at(S, j, sl)));
  uint32_t n0 = kg_kx_var(k, P->wn);
  uint32_t nn = kg_lw_decl(L, "wn1", acc, kg_kx_op(k, KG_OP_ADD, acc, n0, x[0], KG_NONE));
  uint32_t d = kg_lw_decl(L, "wd", acc, kg_kx_op(k, KG_OP_SUB, acc, x[1], kg_kx_var(k, P->wm), KG_NONE));
  uint32_t f = kg_lw_decl(L, "wf", acc, kg_kx_op(k, KG_OP_DIV, acc, x[0], nn, KG_NONE));
  kg_ks a = kg_ks_make(KS_ASSIGN);
  a.a = P->wm, a.b = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, P->wm), kg_kx_op(k, KG_OP_MUL, acc, d, f, KG_NONE), KG_NONE);
  kg_ks_add(&L->cur, a);
  a = kg_ks_make(KS_ASSIGN);
  a.a = P->wq, a.b = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, P->wq), x[2], KG_NONE),
                              kg_kx_op(k, KG_OP_MUL, acc, kg_kx_op(k, KG_OP_MUL, acc, d, d, KG_NONE), kg_kx_op(k, KG_OP_MUL, acc, n0, f, KG_NONE), KG_NONE), KG_NONE);
  kg_ks_add(&L->cur, a);
  a = kg_ks_make(KS_ASSIGN);
  a.a = P->wn, a.b = nn;
  kg_ks_add(&L->cur, a);
}

/* A split variance's finish kernel: the chunks' partials merged in order, then M2 / max(N −
 * correction, 0) (0 / 0 = NaN like PyTorch). */
static void split_var_finish(rkern *S, rpass *P) {
  kg_kernel *k = S->k;
  P->acc = (kg_dtype)P->R->cdtype;
  welford_decl(S, P);
  row_walk(S, S->bound, split_var_merge_at, P);
  kg_dtype acc = P->acc;
  uint32_t cnt = kg_lw_cvt(S->L, kg_kx_param(k, S->rn), acc);
  uint32_t den = kg_kx_op(k, KG_OP_MAXIMUM, acc, kg_kx_op(k, KG_OP_SUB, acc, cnt, kg_kx_const_f(k, acc, P->R->fa[0]), KG_NONE), kg_kx_const_f(k, acc, 0), KG_NONE);
  P->res = kg_kx_op(k, KG_OP_DIV, acc, kg_kx_var(k, P->wq), den, KG_NONE);
}

/* Every variance paired with mean P (kg_lw_welford_next) not yet computed: M2 over
 * max(count − its correction, 0) (0 / 0 = NaN like PyTorch). */
static void paired_variances(rkern *S, const rpass *P, uint32_t m2, uint32_t cnt, const char *name) {
  kg_kernel *k = S->k;
  kg_dtype acc = P->acc;
  for (uint32_t q = kg_lw_welford_next(S->g, S->grp, P->ri, P->ri); q != KG_NONE; q = kg_lw_welford_next(S->g, S->grp, P->ri, q)) {
    uint32_t vn = S->grp->reds.v[q];
    if (S->preset[vn] != KG_NONE) continue; /* a sibling's or an earlier mean's */
    const kg_gnode *V = &S->g->nodes.v[vn];
    uint32_t den = kg_kx_op(k, KG_OP_MAXIMUM, acc, kg_kx_op(k, KG_OP_SUB, acc, cnt, kg_kx_const_f(k, acc, V->fa[0]), KG_NONE), kg_kx_const_f(k, acc, 0), KG_NONE);
    S->preset[vn] = kg_lw_decl(S->L, name, acc, kg_kx_op(k, KG_OP_DIV, acc, m2, den, KG_NONE));
  }
}

/* The sibling variances: Σ M2_t + n_t (mean_t − mean)², over max(N − correction, 0) each. */
static void welford_finish(rkern *S, rpass *P, uint32_t cnt) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = P->acc;
  uint32_t dm = kg_kx_op(k, KG_OP_SUB, acc, kg_kx_var(k, P->wm), P->res, KG_NONE);
  uint32_t t = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, P->wq),
                        kg_kx_op(k, KG_OP_MUL, acc, kg_kx_var(k, P->wn), kg_kx_op(k, KG_OP_MUL, acc, dm, dm, KG_NONE), KG_NONE), KG_NONE);
  paired_variances(S, P, kg_lw_decl(L, "m2", acc, collective(S, KG_OP_RSUM, acc, t)), cnt, "wvar");
}

/* The variances paired with mean P (kg_lw_welford_next) on the CPU target: one walk summing the
 * squared deviations about the mean in its accumulator, M2, then M2 / max(N − correction, 0) each
 * (the Welford pairing's values, by the two-pass formula). */
static void centred_pair(rkern *S, const rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  rpass Q = *P;
  Q.red = KG_OP_RVAR, Q.pass = 1, Q.center = P->res, Q.centred = false;
  Q.nfol = 0, Q.osum = KG_NONE;
  pass_begin(S, &Q);
  row_walk(S, S->bound, pass_element, &Q);
  kg_dtype acc = Q.acc;
  uint32_t m2 = kg_lw_decl(L, "m2", acc, collective(S, KG_OP_RSUM, acc, kg_kx_var(k, Q.accv)));
  paired_variances(S, P, m2, kg_lw_cvt(L, kg_kx_param(k, S->rn), acc), "var");
}

/* The siblings' values, for their turn in the loop over the reductions. */
static void siblings_finish(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  for (uint32_t f = 0; f < P->nfol; f++) {
    const kg_gnode *F = &S->g->nodes.v[S->grp->reds.v[P->fol[f]]];
    kg_dtype fa = (kg_dtype)F->cdtype;
    uint32_t fr = kg_lw_decl(L, "tot", fa, collective(S, sibling_comb((kg_op)F->op), fa, kg_kx_var(k, P->facc[f])));
    if ((kg_op)F->op == KG_OP_RMEAN) fr = kg_lw_decl(L, "mean", fa, kg_kx_op(k, KG_OP_DIV, fa, fr, kg_lw_cvt(L, kg_kx_param(k, S->rn), fa), KG_NONE));
    S->preset[S->grp->reds.v[P->fol[f]]] = fr;
  }
}

/* After a walk: the row's value (every thread gets it: later passes need it). A split
 * partial stores it and is done (true); else the mean's division, the centre for pass 1,
 * Welford's variance, the siblings' values, the variance's division. */
static bool pass_end(rkern *S, rpass *P) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = P->acc;
  kg_op red = P->red;
  if (S->split == KG_SPLIT_PARTIAL && red == KG_OP_RVAR) {
    split_var_partial(S, P);
    return true;
  }
  if (S->split == KG_SPLIT_PARTIAL && P->osum != KG_NONE) {
    split_online_partial(S, P);
    return true;
  }
  P->res = kg_lw_decl(L, "tot", acc, collective(S, P->comb, acc, kg_kx_var(k, P->accv)));
  if (S->split == KG_SPLIT_PARTIAL) {
    store_partial(S, P);
    return true;
  }
  uint32_t cnt = kg_lw_cvt(L, kg_kx_param(k, S->rn), acc);
  if (red == KG_OP_RMEAN || (red == KG_OP_RVAR && P->pass == 0)) P->res = kg_lw_decl(L, "mean", acc, kg_kx_op(k, KG_OP_DIV, acc, P->res, cnt, KG_NONE));
  if ((red == KG_OP_RVAR || P->arg) && P->pass == 0) P->center = P->res;
  if (P->wvar != KG_NONE) welford_finish(S, P, cnt);
  if (P->osum != KG_NONE) online_collect(S, P);
  siblings_finish(S, P);
  if (red == KG_OP_RVAR && P->pass == 1) { /* sum of squares / max(count - correction, 0): 0/0 = NaN like PyTorch */
    uint32_t den = kg_kx_op(k, KG_OP_MAXIMUM, acc, kg_kx_op(k, KG_OP_SUB, acc, cnt, kg_kx_const_f(k, acc, P->R->fa[0]), KG_NONE), kg_kx_const_f(k, acc, 0), KG_NONE);
    P->res = kg_kx_op(k, KG_OP_DIV, acc, P->res, den, KG_NONE);
  }
  return false;
}

/* The reduction's value in registers for what follows (a mean also in accumulator
 * precision); the leader stores it when it is read elsewhere. */
static void reduction_value(rkern *S, rpass *P) {
  lctx *L = S->L;
  uint32_t node = S->grp->reds.v[P->ri];
  kg_dtype odt = (kg_dtype)P->R->dtype;
  if (P->red == KG_OP_RMEAN) S->rowacc[node] = P->res; /* the mean in accumulator precision */
  S->rowval[node] = kg_lw_decl(L, "red", odt, kg_lw_cvt(L, P->res, odt));
  if (S->rparam[P->ri] == KG_NONE) return;
  kg_kcursor c0 = kg_lw_row_leader_only(S);
  kg_lw_row_store(S, &c0, S->rparam[P->ri], kg_lw_linear_offset(L, S->coord, &S->rstride[P->ri * KG_MAX_RANK], S->r), S->rowval[node]);
}

/* Reduction ri of the group: its passes over the row (none when an earlier walk computed
 * it), then its value. True when the kernel is done: a split partial stored its chunk. */
bool kg_lw_reduce_one(rkern *S, uint32_t ri) {
  rpass P;
  rpass_begin(S, &P, ri);
  if (S->split == KG_SPLIT_FINISH && P.osum != KG_NONE) { /* a max and its sum of exp: the chunks' pairs */
    split_online_finish(S, &P);
    reduction_value(S, &P);
    online_finish(S, &P);
    return false;
  }
  if (S->split == KG_SPLIT_FINISH && P.red == KG_OP_RVAR) { /* the chunks' Welford partials */
    split_var_finish(S, &P);
    if (kg_group_welford_pair(S->g, S->grp)) { /* the paired mean: the merged mean (NaN over no elements, as Σ / 0) */
      kg_kernel *k = S->k;
      kg_dtype acc = P.acc;
      uint32_t cnt = kg_lw_cvt(S->L, kg_kx_param(k, S->rn), acc), zero = kg_kx_const_f(k, acc, 0);
      uint32_t none = kg_kx_op(k, KG_OP_DIV, acc, zero, cnt, KG_NONE);
      S->preset[S->grp->reds.v[0]] = kg_lw_decl(S->L, "mean", acc, kg_kx_select(k, acc, kg_kx_op(k, KG_OP_GT, KG_BOOL, cnt, zero, KG_NONE), kg_kx_var(k, P.wm), none));
    }
    reduction_value(S, &P);
    return false;
  }
  for (P.pass = P.first_pass; P.pass < (P.red == KG_OP_RVAR || P.arg ? 2 : 1); P.pass++) {
    pass_begin(S, &P);
    row_walk(S, S->bound, pass_element, &P);
    if (pass_end(S, &P)) return true;
  }
  if (P.centred) centred_pair(S, &P);
  reduction_value(S, &P);
  if (P.osum != KG_NONE) online_finish(S, &P); /* its shift reads the max's row value */
  return false;
}

/* ---- the column schedules with vectors ---- */

/* The thread's outputs o + l (l < cvec) share every coordinate but the innermost (kept) one,
 * c + l: lane l's coordinate, and with `out` its output index too (KG_NONE: the first output's). */
static void column_lane(rkern *S, uint32_t o0, uint32_t c0, uint32_t l, bool out) {
  kg_kernel *k = S->k;
  uint32_t ix = S->L->ix;
  if (l == KG_NONE) {
    S->o = o0, S->coord[S->r - 1] = c0;
    return;
  }
  uint32_t dl = kg_kx_const_i(k, ix, l);
  S->coord[S->r - 1] = kg_kx_op(k, KG_OP_IDX_ADD, ix, c0, dl, KG_NONE);
  if (out) S->o = kg_lw_decl(S->L, "ol", ix, kg_kx_op(k, KG_OP_IDX_ADD, ix, o0, dl, KG_NONE));
}

bool kg_lw_reduce_columns(rkern *S, void (*per_output)(rkern *S)) {
  lctx *L = S->L;
  uint32_t n = S->cvec, o0 = S->o, c0 = S->coord[S->r - 1];
  KG_ASSERT(n > 1 && n <= 8 && S->grp->reds.n == 1 && c0 != KG_NONE);
  rpass P[8];
  for (uint32_t l = 0; l < n; l++) {
    rpass_begin(S, &P[l], 0);
    KG_ASSERT(P[l].first_pass == 0 && !P[l].arg && P[l].red != KG_OP_RVAR && !P[l].nfol && P[l].osum == KG_NONE);
    P[l].pass = 0;
    pass_begin(S, &P[l]);
  }
  /* one walk down the rows: at row j, each source varying along the outputs one vector load
   * (the first output's offset: a multiple of cvec), then each output's element from its lane */
  rowwalk rw;
  uint32_t j = row_begin_loop(L, &rw, S->first, S->bound, S->step);
  if (L->vecd) row_vloads(S, j, n);
  for (uint32_t l = 0; l < n; l++) {
    column_lane(S, o0, c0, l, false);
    L->lane = L->vecd ? (int)l : -1;
    pass_element(S, &P[l], j);
  }
  L->lane = -1;
  column_lane(S, o0, c0, KG_NONE, false);
  row_end(L, &rw, 0);
  /* each output's value (a split partial: its chunk's accumulator stored), its stores */
  bool done = false;
  for (uint32_t l = 0; l < n; l++) {
    column_lane(S, o0, c0, l, true);
    done = pass_end(S, &P[l]);
    if (!done) {
      reduction_value(S, &P[l]);
      per_output(S);
    }
  }
  column_lane(S, o0, c0, KG_NONE, false);
  return done;
}

/* ---- the row-output pass ---- */

/* A last pass writes the row outputs (the reductions' values in registers). */
static void row_outputs_at(rkern *S, void *arg, uint32_t j) {
  (void)arg;
  lctx *L = S->L;
  const kg_graph *g = S->g;
  uint32_t rc[KG_MAX_RANK];
  at_element(S, j, rc);
  kg_lw_row_memo_reset(S);
  for (uint32_t i = 0; i < S->grp->outs.n; i++) {
    uint32_t node = g->outputs.v[S->grp->outs.v[i]];
    uint32_t x = kg_lw_cvt(L, kg_lw_val(L, node), (kg_dtype)g->nodes.v[node].dtype);
    kg_lw_row_store(S, &L->cur, L->oparam[i], kg_lw_linear_offset(L, rc, &S->out_stride[i * KG_MAX_RANK], S->r), x);
  }
}

void kg_lw_row_outputs(rkern *S) {
  if (S->grp->outs.n) row_walk(S, KG_NONE, row_outputs_at, NULL);
}
