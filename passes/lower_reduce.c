/* passes/lower_reduce.c — the reduction schedules: one REDUCE fusion group → its kernel.
 *
 * A block per row (persistent: every reduction of the group walks the row in turn,
 * later ones may use earlier ones, then the row outputs are written), a warp per
 * row (short rows), a thread per output (outer reductions: coalesced columns), and
 * split reductions (a partial kernel over chunks of the reduced dim, then a finish
 * kernel folding the chunks in order). Row walks may load 128-bit vectors or keep
 * the row in registers; a variance beside a mean rides in the mean's walk (Welford)
 * and independent siblings share walks; kg_reduce_passes counts the walks. Which of these
 * schedules a group gets is the scheduler's choice (schedule.c). The machinery that
 * evaluates a group's DAG at a coordinate is lower.c's (lower_int.h). */
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

/* A walk over the row, one element per iteration: a loop (j = first; j < bound;
 * j += step), or with the row cache, KG_ROW_CACHE guarded slots unrolled in the IR
 * (j = first + s · step; if (j < bound)), so that the cache vars stay in registers, or
 * with 128-bit loads two loops: whole vectors (j = first · vec; j < bound − bound % vec;
 * j += step · vec; row_lanes() elements each, lane by lane), then the scalar tail
 * (j = bound − bound % vec + first; j < bound; j += step).
 * Usage: for (s = 0; s < row_slots(L); s++) { j = row_begin(...); for each lane: body; row_end(...); } */
typedef struct rowwalk {
  kg_kcursor top;
  uint32_t lanes; /* elements per iteration: the vector loop's vec, else 1 */
} rowwalk;
static int row_slots(const lctx *L) { return L->cvar ? KG_ROW_CACHE : L->rvec > 1 ? 2 : 1; }
static uint32_t row_begin(lctx *L, rowwalk *w, int s, uint32_t first, uint32_t bound, uint32_t step) {
  kg_kernel *k = L->k;
  w->lanes = 1;
  if (L->rvec > 1) {
    uint32_t vc = kg_kx_const_i(k, L->ix, L->rvec);
    uint32_t vend = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, bound, vc, KG_NONE), vc, KG_NONE);
    uint32_t jv = kg_kvar_new(k, "j", L->ix);
    kg_ks fr = kg_ks_make(KS_FOR);
    if (s == 0) {
      fr.a = jv, fr.b = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, first, vc, KG_NONE), fr.c = vend;
      fr.d = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, step, vc, KG_NONE);
      w->lanes = L->rvec;
    } else {
      fr.a = jv, fr.b = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, vend, first, KG_NONE), fr.c = bound, fr.d = step;
    }
    uint32_t fs = kg_ks_add(&L->cur, fr);
    w->top = L->cur;
    L->cur = kg_kcursor_body(k, fs, false);
    return kg_kx_var(k, jv);
  }
  if (!L->cvar) {
    uint32_t jv = kg_kvar_new(k, "j", L->ix);
    kg_ks fr = kg_ks_make(KS_FOR);
    fr.a = jv, fr.b = first, fr.c = bound, fr.d = step;
    uint32_t fs = kg_ks_add(&L->cur, fr);
    w->top = L->cur; /* after the loop statement: later statements follow it */
    L->cur = kg_kcursor_body(k, fs, false);
    return kg_kx_var(k, jv);
  }
  uint32_t j = kg_lw_decl(L, "j", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, first, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, kg_kx_const_i(k, L->ix, s), step, KG_NONE), KG_NONE));
  kg_ks in = kg_ks_make(KS_IF);
  in.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, j, bound, KG_NONE);
  uint32_t is = kg_ks_add(&L->cur, in);
  w->top = L->cur;
  L->cur = kg_kcursor_body(k, is, false);
  L->slot = s;
  return j;
}

/* The vector loop's loads: each source that varies along the row, vec elements from
 * the offset of element j0 (the runtime guarantees contiguity and 16-byte alignment). */
static void row_vloads(lctx *L, const uint32_t *coord, uint32_t j0, const uint32_t *size_p, int64_t mask, const uint32_t *in_stride) {
  kg_kernel *k = L->k;
  uint32_t rc[KG_MAX_RANK];
  memcpy(rc, coord, sizeof rc);
  kg_lw_decompose(L, j0, size_p, mask, true, rc);
  kg_lw_source_offsets(L, in_stride, rc);
  for (uint32_t p = 0; p < L->nsrc; p++) {
    if (!L->vecd[p]) continue;
    kg_dtype dt = (kg_dtype)k->params.v[L->pparam[p]].dtype;
    L->plane[p] = k->vars.n;
    for (uint32_t j = 0; j < L->rvec; j++) kg_kvar_new(k, "v", dt);
    kg_ks vl = kg_ks_make(KS_VLOAD);
    vl.a = L->pparam[p], vl.b = L->poff[p], vl.c = L->plane[p];
    kg_ks_add(&L->cur, vl);
  }
}

static void row_end(lctx *L, rowwalk *w, int s) {
  L->cur = w->top;
  L->slot = -1;
  if (L->cvar && s == KG_ROW_CACHE - 1) /* a whole pass is done: what it loaded is on chip */
    for (uint32_t p = 0; p < L->nsrc; p++)
      if (L->cfilling[p]) L->cfilled[p] = 1, L->cfilling[p] = 0;
}


/* ---- the reduction schedule ----
 * One block per output element: thread t accumulates the reduced elements
 * t, t + blockDim.x, … (its prologue evaluated inline at each), in the
 * accumulator dtype; a block-wide collective (warp shuffles, then shared memory
 * across warps, a fixed tree: bit-identical on every run, no atomics) combines
 * the partials; thread 0 finishes (mean divides by the count) and stores. Works
 * for any set of reduced dims and any operand strides. */

static uint32_t combine_op(kg_op red) {
  switch (red) {
  case KG_OP_RPROD: return KG_OP_MUL;
  case KG_OP_RAMAX: return KG_OP_MAXIMUM;
  case KG_OP_RAMIN: return KG_OP_MINIMUM;
  default: return KG_OP_ADD;
  }
}

/* Forgets per-element values; the group's finished reductions stay (per row). */
static void reset_memo(lctx *L, const uint32_t *rowval) {
  for (uint32_t i = 0; i < L->g->nodes.n; i++) L->memo[i] = rowval[i];
}

/* Offset of an output of shape `os` (rank ro) at the row's kept coordinates:
 * its dims are the space's (keepdim form: reduced dims are 0) or the kept dims. */
static uint32_t row_dim_of(const lctx *L, int64_t mask, int ro, int od) {
  uint32_t r = L->grp->space.rank;
  if ((uint32_t)ro == r) return (uint32_t)od;
  int k = -1;
  for (uint32_t d = 0; d < r; d++)
    if (!((mask >> d) & 1) && ++k == od) return d;
  return KG_NONE;
}

/* Does node's DAG reach a reduction of the group at index ≥ from (stopping at reductions)? */
static bool reaches_group_from(const kg_graph *g, const kg_group *grp, uint32_t node, uint32_t from, uint8_t *visit) {
  if (visit[node]) return false;
  visit[node] = 1;
  const kg_gnode *n = &g->nodes.v[node];
  if (kg_op_get((kg_op)n->op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN)) {
    for (uint32_t j = from; j < grp->reds.n; j++)
      if (grp->reds.v[j] == node) return true;
    return false;
  }
  for (int j = 0; j < n->n_in; j++)
    if (reaches_group_from(g, grp, n->in[j], from, visit)) return true;
  return false;
}

/* The later reductions that ride along in reduction ri's pass (indices into grp->reds):
 * simple ones (sum, nansum, mean, prod, amax, amin) that read none of the group's
 * reductions from ri on, not computed yet (`taken`), and not a mean that leads a Welford
 * variance (it keeps its own pass). */
static uint32_t pick_siblings(const kg_graph *g, const kg_group *grp, uint32_t ri, const uint32_t *taken, uint32_t *fol, uint8_t *visit) {
  uint32_t nfol = 0, nred = grp->reds.n;
  if (!kg_red_op_splittable((kg_op)g->nodes.v[grp->reds.v[ri]].op)) return 0;
  for (uint32_t q = ri + 1; q < nred && nfol < 16; q++) {
    const kg_gnode *Q = &g->nodes.v[grp->reds.v[q]];
    if (!kg_red_op_splittable((kg_op)Q->op) || taken[grp->reds.v[q]] != KG_NONE) continue;
    bool leads_var = false;
    for (uint32_t q2 = q + 1; q2 < nred && Q->op == KG_OP_RMEAN; q2++) {
      const kg_gnode *Q2 = &g->nodes.v[grp->reds.v[q2]];
      leads_var |= Q2->op == KG_OP_RVAR && Q2->in[0] == Q->in[0] && Q2->cdtype == Q->cdtype;
    }
    memset(visit, 0, g->nodes.n + 1);
    if (leads_var || reaches_group_from(g, grp, Q->in[0], ri, visit)) continue;
    fol[nfol++] = q;
  }
  return nfol;
}

/* Welford's pairing: the first later variance of the same input as mean ri, or KG_NONE. */
static uint32_t welford_var_of(const kg_graph *g, const kg_group *grp, uint32_t ri) {
  const kg_gnode *R = &g->nodes.v[grp->reds.v[ri]];
  if (R->op != KG_OP_RMEAN || !kg_dtype_is_float((kg_dtype)R->cdtype)) return KG_NONE;
  for (uint32_t q = ri + 1; q < grp->reds.n; q++) {
    const kg_gnode *Q = &g->nodes.v[grp->reds.v[q]];
    if (Q->op == KG_OP_RVAR && Q->in[0] == R->in[0] && Q->cdtype == R->cdtype) return grp->reds.v[q];
  }
  return KG_NONE;
}

int kg_reduce_passes(const kg_graph *g, const kg_group *grp) {
  if (grp->kind != KG_GROUP_REDUCE) return 1;
  uint32_t nn = g->nodes.n, fol[16];
  uint32_t *taken = kg_xmalloc((nn + 1) * sizeof *taken);
  uint8_t *visit = kg_xcalloc(nn + 1, 1), *meanseen = kg_xcalloc(nn + 1, 1);
  for (uint32_t i = 0; i < nn; i++) taken[i] = KG_NONE;
  int passes = grp->outs.n ? 1 : 0;
  for (uint32_t ri = 0; ri < grp->reds.n; ri++) {
    uint32_t node = grp->reds.v[ri];
    const kg_gnode *R = &g->nodes.v[node];
    if (R->op == KG_OP_RMEAN) meanseen[R->in[0]] = 1;
    if (taken[node] != KG_NONE) continue;
    bool two = R->op == KG_OP_RARGMAX || R->op == KG_OP_RARGMIN || (R->op == KG_OP_RVAR && !meanseen[R->in[0]]);
    passes += two ? 2 : 1;
    uint32_t wv = welford_var_of(g, grp, ri);
    if (wv != KG_NONE) taken[wv] = 1;
    uint32_t nf = pick_siblings(g, grp, ri, taken, fol, visit);
    for (uint32_t f = 0; f < nf; f++) taken[grp->reds.v[fol[f]]] = 1;
  }
  free(taken), free(visit), free(meanseen);
  return passes;
}

bool kg_lw_reduce(lctx *L, const char *name) {
  (void)name;
  kg_kernel *k = L->k;
  const kg_graph *g = L->g;
  const kg_group *grp = L->grp;
  kg_arena *A = L->c->arena;
  uint32_t r = grp->space.rank, nn = g->nodes.n;
  int64_t mask = g->nodes.v[grp->red].ia[0];
  /* LINEAR here selects the column schedule (the caller only asks for it when the
   * innermost dim is kept): one thread per output element walks its row serially —
   * neighbouring threads read neighbouring addresses, no collective needed.
   * A split reduction (v->split) is two kernels: the partial one is either schedule
   * over one chunk of the reduced dim per blockIdx (chunk-major: bid = chunk · blocks
   * per chunk + block), storing its raw accumulator to scratch[chunk · n + o]; the
   * finish one is a thread per output folding the chunks in order, then doing what
   * the unsplit kernel does after its loop (mean's division, cast, store, epilogue). */
  int split = L->v->split;
  KG_ASSERT(!split || kg_group_splittable(g, grp));
  bool col = L->v->layout == KG_LAYOUT_LINEAR || split == 2;
  /* a warp per row: the block's 8 warps take rows bid · 8 + w; lane l walks l, l + 32, …;
   * the collective is a warp all-reduce (shuffles down, then lane 0's value broadcast) */
  bool warp = L->v->warp && !col && !split;
  bool persistent = grp->reds.n > 1 || grp->outs.n;
  bool cache = L->v->cache && !col && !split && !warp;
  k->schedule = split == 1   ? (col ? "reduce.split_partial.columns" : "reduce.split_partial.rows")
                : split == 2 ? "reduce.split_finish"
                : col        ? "reduce.thread_per_output"
                : warp       ? (persistent ? "reduce.rows_persistent.warp" : "reduce.warp_per_output")
                : persistent ? (cache ? "reduce.rows_persistent.cached" : "reduce.rows_persistent")
                             : cache ? "reduce.block_per_output.cached" : "reduce.block_per_output";
  k->launch.per_output = col ? 2 : warp ? 3 : 1;
  k->launch.block[0] = 256;
  k->launch.elems_per_thread = 1;
  k->vec = 1;
  /* parameters: sources, stored reductions, row outputs, epilogue outputs, sizes, strides */
  kg_lw_add_source_params(L, A);
  uint32_t nred = grp->reds.n;
  uint32_t *rparam = kg_xmalloc((nred + 1) * sizeof *rparam), *rstride = kg_xmalloc(((size_t)nred + 1) * KG_MAX_RANK * sizeof *rstride);
  for (uint32_t i = 0; i < nred; i++) {
    rparam[i] = KG_NONE;
    for (uint32_t d = 0; d < KG_MAX_RANK; d++) rstride[i * KG_MAX_RANK + d] = KG_NONE;
    uint32_t mi = kg_fusion_mat_index(L->f, grp->reds.v[i]);
    if (mi == KG_NONE) continue;
    const kg_gnode *R = &g->nodes.v[grp->reds.v[i]];
    kg_bufref ob = L->f->mat_buf.v[mi];
    uint32_t enc = (ob.kind == 1 ? 0x80000000u : 0x40000000u) | ob.index;
    rparam[i] = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)R->dtype, true, ob.kind == 1 ? kg_arena_printf(A, "out%u", ob.index) : kg_arena_printf(A, "tmp%u", ob.index),
                                         KPR_TENSOR, ob.kind, ob.index));
    for (int od = 0; od < R->shape.rank; od++) {
      uint32_t d = row_dim_of(L, mask, R->shape.rank, od);
      if (d != KG_NONE && !((mask >> d) & 1) && !kg_lw_dim_is_one(&grp->space.d[d]))
        rstride[i * KG_MAX_RANK + d] = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "sr%u_%d", i, od), KPR_STRIDE, enc | 0x20000000u, (uint32_t)od));
    }
  }
  uint32_t no = grp->outs.n, ne = grp->epi.n;
  for (uint32_t j = 0; j < no; j++) {
    uint32_t o = grp->outs.v[j];
    L->oparam[j] = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)g->nodes.v[g->outputs.v[o]].dtype, true, kg_arena_printf(A, "out%u", o), KPR_TENSOR, 1, o));
  }
  uint32_t *eparam = kg_xmalloc((ne + 1) * sizeof *eparam), *estride = kg_xmalloc(((size_t)ne + 1) * KG_MAX_RANK * sizeof *estride);
  for (uint32_t j = 0; j < ne; j++) {
    uint32_t o = grp->epi.v[j];
    const kg_gnode *on = &g->nodes.v[g->outputs.v[o]];
    eparam[j] = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)on->dtype, true, kg_arena_printf(A, "out%u", o), KPR_TENSOR, 1, o));
    for (uint32_t d = 0; d < KG_MAX_RANK; d++) estride[j * KG_MAX_RANK + d] = KG_NONE;
    for (int od = 0; od < on->shape.rank; od++) {
      uint32_t d = row_dim_of(L, mask, on->shape.rank, od);
      if (d != KG_NONE && !((mask >> d) & 1) && !kg_lw_dim_is_one(&grp->space.d[d]))
        estride[j * KG_MAX_RANK + d] = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "se%u_%d", o, od), KPR_STRIDE, (0x80000000u | o) | 0x20000000u, (uint32_t)od));
    }
  }
  uint32_t numel_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "n", KPR_NUMEL, 0, 0));
  uint32_t rn = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "rn", KPR_RED_N, 0, 0));
  uint32_t part = KG_NONE, chunk_p = KG_NONE, nchunk_p = KG_NONE, nb_p = KG_NONE;
  if (split) {
    part = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)g->nodes.v[grp->reds.v[0]].cdtype, split == 1, "part", KPR_TENSOR, 3, 0));
    if (split == 1) chunk_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "chunk", KPR_SPLIT_LEN, 0, 0));
    if (split == 1 && col) nb_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "nb", KPR_SPLIT_NB, 0, 0));
    if (split == 2) nchunk_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "nchunk", KPR_SPLIT_N, 0, 0));
  }
  uint32_t size_p[KG_MAX_RANK];
  for (uint32_t d = 0; d < r; d++)
    size_p[d] = kg_lw_dim_is_one(&grp->space.d[d]) ? KG_NONE
                                             : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "size%u", d), KPR_SIZE, 0, d));
  uint32_t *in_stride = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *in_stride);
  for (size_t i = 0; i < (size_t)L->nsrc * KG_MAX_RANK; i++) in_stride[i] = KG_NONE;
  kg_lw_add_source_strides(L, A, in_stride);
  /* squeezed epilogues (no keepdim) address what they read against their own shape */
  uint32_t *sq_stride = NULL;
  for (uint32_t j = 0; j < ne && !sq_stride; j++)
    if (g->nodes.v[g->outputs.v[grp->epi.v[j]]].shape.rank < (int)r) {
      sq_stride = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *sq_stride);
      for (size_t i = 0; i < (size_t)L->nsrc * KG_MAX_RANK; i++) sq_stride[i] = KG_NONE;
      kg_lw_add_source_strides_squeezed(L, A, mask, sq_stride);
    }
  KG_ASSERT(no <= KG_ROW_OUTPUTS_MAX); /* kg_schedule_accepts keeps the fuser within it */
  uint32_t out_stride[KG_MAX_RANK * KG_ROW_OUTPUTS_MAX + 1];
  for (uint32_t j = 0; j < no; j++)
    for (uint32_t d = 0; d < r; d++)
      out_stride[j * KG_MAX_RANK + d] =
          kg_lw_dim_is_one(&grp->space.d[d]) ? KG_NONE
                                       : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "so%u_%u", grp->outs.v[j], d), KPR_STRIDE, 0x80000000u | grp->outs.v[j], d));
  /* body: the row's kept coordinates */
  L->cur = kg_kcursor_top(k);
  uint32_t bid = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_CTAID_X, KG_I32), L->ix);
  uint32_t tid = kg_lw_decl(L, "tid", L->ix, kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32), L->ix));
  uint32_t nt = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_NTID_X, KG_I32), L->ix);
  uint32_t o, lo = KG_NONE, hi = KG_NONE, ch = KG_NONE;
  if (split == 1) { /* chunk-major block index */
    uint32_t per = col ? kg_kx_param(k, nb_p) : kg_kx_param(k, numel_p);
    ch = kg_lw_decl(L, "ch", L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, bid, per, KG_NONE));
    bid = kg_lw_decl(L, "ob", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, bid, per, KG_NONE));
    lo = kg_lw_decl(L, "lo", L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, ch, kg_kx_param(k, chunk_p), KG_NONE));
    hi = kg_lw_decl(L, "hi", L->ix,
              kg_kx_op(k, KG_OP_MINIMUM, L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, lo, kg_kx_param(k, chunk_p), KG_NONE), kg_kx_param(k, rn), KG_NONE));
  }
  uint32_t leader = tid; /* the thread that stores a row's values */
  if (warp) {
    uint32_t w32 = kg_kx_const_i(k, L->ix, 32);
    leader = kg_lw_decl(L, "lane", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, tid, w32, KG_NONE));
    uint32_t w = kg_kx_op(k, KG_OP_IDX_DIV, L->ix, tid, w32, KG_NONE);
    o = kg_lw_decl(L, "o", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, bid, kg_kx_const_i(k, L->ix, 8), KG_NONE), w, KG_NONE));
    kg_ks in = kg_ks_make(KS_IF); /* a whole warp takes this branch or not */
    in.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, o, kg_kx_param(k, numel_p), KG_NONE);
    uint32_t is = kg_ks_add(&L->cur, in);
    L->cur = kg_kcursor_body(k, is, false);
  } else if (col) {
    o = kg_lw_decl(L, "o", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, bid, nt, KG_NONE), tid, KG_NONE));
    kg_ks in = kg_ks_make(KS_IF);
    in.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, o, kg_kx_param(k, numel_p), KG_NONE);
    uint32_t is = kg_ks_add(&L->cur, in);
    L->cur = kg_kcursor_body(k, is, false);
  } else {
    o = kg_lw_decl(L, "o", L->ix, bid);
  }
  uint32_t first = col ? kg_kx_const_i(k, L->ix, 0) : leader, step = col ? kg_kx_const_i(k, L->ix, 1) : warp ? kg_kx_const_i(k, L->ix, 32) : nt;
  uint32_t bound = kg_kx_param(k, rn);
  if (split == 1) first = col ? lo : kg_kx_op(k, KG_OP_IDX_ADD, L->ix, lo, tid, KG_NONE), bound = hi;
  if (split == 2) bound = kg_kx_param(k, nchunk_p);
  uint32_t coord[KG_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) coord[d] = KG_NONE;
  kg_lw_decompose(L, o, size_p, mask, false, coord);
  uint32_t *rowval = kg_xmalloc((nn + 1) * sizeof *rowval), *rowacc = kg_xmalloc((nn + 1) * sizeof *rowacc);
  for (uint32_t i = 0; i < nn; i++) rowval[i] = rowacc[i] = KG_NONE;
  uint32_t zero = kg_kx_const_i(k, L->ix, 0);
  /* the row cache: KG_ROW_CACHE vars per buffer source, declared at row scope */
  L->slot = -1;
  if (cache) {
    L->cvar = kg_xmalloc((L->nsrc + 1) * sizeof *L->cvar);
    L->cfilled = kg_xcalloc(L->nsrc + 1, 1), L->cfilling = kg_xcalloc(L->nsrc + 1, 1);
    for (uint32_t p = 0; p < L->nsrc; p++) {
      L->cvar[p] = KG_NONE;
      if (L->pparam[p] == KG_NONE || k->params.v[L->pparam[p]].kind != KP_BUFFER) continue;
      for (int s = 0; s < KG_ROW_CACHE; s++) {
        uint32_t cv = kg_kvar_new(k, "rc", (kg_dtype)k->params.v[L->pparam[p]].dtype);
        if (s == 0) L->cvar[p] = cv;
        KG_ASSERT(cv == L->cvar[p] + (uint32_t)s);
        kg_ks dcl = kg_ks_make(KS_DECL);
        dcl.a = cv, dcl.b = KG_NONE;
        kg_ks_add(&L->cur, dcl);
      }
    }
  }
  /* 128-bit row loads: the reduced dim is the innermost, and the runtime checked that the
   * sources varying along it are contiguous there and aligned (exec.c) */
  L->rvec = L->v->vec > 1 && !col && !split && !cache && mask == ((int64_t)1 << (r - 1)) ? L->v->vec : 1;
  if (L->rvec > 1) {
    L->vecd = kg_xcalloc(L->nsrc + 1, 1);
    uint32_t ngp = g->params.n;
    for (uint32_t p = 0; p < L->nsrc; p++) {
      if (L->pparam[p] == KG_NONE || k->params.v[L->pparam[p]].kind != KP_BUFFER) continue;
      const kg_gnode *sn = &g->nodes.v[p < ngp ? g->params.v[p].node : L->f->mat.v[p - ngp]];
      L->vecd[p] = sn->vkind == KG_V_TENSOR && sn->shape.rank > 0 && !kg_lw_dim_is_one(&sn->shape.d[sn->shape.rank - 1]);
    }
    /* at most 16 bytes per access for the widest vector-loaded source */
    uint32_t wsz = 1;
    for (uint32_t p = 0; p < L->nsrc; p++)
      if (L->vecd[p] && kg_dtype_get((kg_dtype)k->params.v[L->pparam[p]].dtype)->size > wsz) wsz = kg_dtype_get((kg_dtype)k->params.v[L->pparam[p]].dtype)->size;
    while (L->rvec > 1 && L->rvec * wsz > 16) L->rvec /= 2;
    if (L->rvec < 2) {
      free(L->vecd);
      L->vecd = NULL, L->rvec = 1;
    } else {
      k->vec = L->rvec;
      k->schedule = kg_arena_printf(L->c->arena, "%s.vec%u", k->schedule, L->rvec);
    }
  }
  /* one pass over the row per reduction (variance: two, mean then squared deviations —
   * or none, when a sibling mean of the same input computed it by Welford in its pass) */
  uint32_t *preset = kg_xmalloc((nn + 1) * sizeof *preset); /* per reduction node: its value, computed in an earlier walk (Welford, or as a sibling) */
  for (uint32_t i = 0; i < nn; i++) preset[i] = KG_NONE;
  uint8_t *rvisit = kg_xcalloc(nn + 1, 1);
  for (uint32_t ri = 0; ri < nred; ri++) {
    const kg_gnode *R = &g->nodes.v[grp->reds.v[ri]];
    kg_op red = (kg_op)R->op;
    kg_dtype odt = (kg_dtype)R->dtype;
    bool arg = red == KG_OP_RARGMAX || red == KG_OP_RARGMIN;
    uint32_t center = KG_NONE, res = KG_NONE;
    int first_pass = 0;
    /* Welford: a mean followed in the group by a variance of the same input takes the
     * variance along in its own pass — per thread a running (count, mean, M2), then
     * M2 = Σ_threads M2_t + n_t (mean_t − mean)² with the block's mean (Chan et al.'s
     * combination, as two fixed-tree sums: deterministic) */
    uint32_t wvar = split || preset[grp->reds.v[ri]] != KG_NONE ? KG_NONE : welford_var_of(g, grp, ri);
    uint32_t wn = KG_NONE, wm = KG_NONE, wq = KG_NONE;
    if (wvar != KG_NONE) {
      kg_dtype acc = (kg_dtype)R->cdtype;
      wn = kg_kvar_new(k, "wn", acc), wm = kg_kvar_new(k, "wmean", acc), wq = kg_kvar_new(k, "wm2", acc);
      uint32_t wv[3] = {wn, wm, wq};
      for (int i = 0; i < 3; i++) {
        kg_ks dcl = kg_ks_make(KS_DECL);
        dcl.a = wv[i], dcl.b = KG_NONE;
        kg_ks_add(&L->cur, dcl);
      }
    }
    /* Siblings: later reductions of the group that are simple (sum, nansum, mean, prod,
     * amax, amin) and read none of the group's reductions from this one on ride along in
     * this reduction's pass, each with its own accumulator and collective (x.sum(-1L) and
     * x.amax(-1L): one walk over the row). A mean that leads a Welford variance keeps its
     * own pass. */
    uint32_t fol[16], nfol = split || preset[grp->reds.v[ri]] != KG_NONE ? 0 : pick_siblings(g, grp, ri, preset, fol, rvisit);
    uint32_t facc[16];
    if (preset[grp->reds.v[ri]] != KG_NONE) { /* done in an earlier pass (Welford, or as a sibling) */
      res = preset[grp->reds.v[ri]];
      first_pass = 2;
      nfol = 0;
    } else if (red == KG_OP_RVAR) /* a mean of the same input over the same rows is already in registers: skip pass 0 */
      for (uint32_t q = 0; q < ri; q++) {
        const kg_gnode *Q = &g->nodes.v[grp->reds.v[q]];
        if (Q->op == KG_OP_RMEAN && Q->in[0] == R->in[0] && Q->cdtype == R->cdtype && rowacc[grp->reds.v[q]] != KG_NONE) {
          center = rowacc[grp->reds.v[q]];
          first_pass = 1;
          break;
        }
      }
    for (int pass = first_pass; pass < (red == KG_OP_RVAR || arg ? 2 : 1); pass++) {
      kg_op comb = red == KG_OP_RVAR ? KG_OP_RSUM : red == KG_OP_RARGMAX ? KG_OP_RAMAX : red == KG_OP_RARGMIN ? KG_OP_RAMIN : red;
      kg_dtype acc = (kg_dtype)R->cdtype;
      if (arg && pass == 1) comb = KG_OP_RAMIN, acc = KG_I64; /* the least index holding the extremum */
      uint32_t accv = kg_kvar_new(k, "acc", acc);
      kg_ks dcl = kg_ks_make(KS_DECL);
      dcl.a = accv, dcl.b = kg_lw_identity(k, comb, acc);
      kg_ks_add(&L->cur, dcl);
      for (uint32_t f = 0; f < nfol; f++) {
        const kg_gnode *F = &g->nodes.v[grp->reds.v[fol[f]]];
        facc[f] = kg_kvar_new(k, "acc", (kg_dtype)F->cdtype);
        kg_ks fd = kg_ks_make(KS_DECL);
        fd.a = facc[f], fd.b = kg_lw_identity(k, (kg_op)F->op == KG_OP_RMEAN || (kg_op)F->op == KG_OP_RNANSUM ? KG_OP_RSUM : (kg_op)F->op, (kg_dtype)F->cdtype);
        kg_ks_add(&L->cur, fd);
      }
      for (int sl = 0; sl < row_slots(L); sl++) {
      rowwalk rw;
      uint32_t j0 = row_begin(L, &rw, sl, first, bound, step), jx = j0;
      if (rw.lanes > 1) row_vloads(L, coord, j0, size_p, mask, in_stride);
      for (uint32_t ln = 0; ln < rw.lanes; ln++) {
      if (rw.lanes > 1) jx = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, j0, kg_kx_const_i(k, L->ix, ln), KG_NONE), L->lane = (int)ln;
      uint32_t v;
      if (split == 2) { /* the chunks' accumulators, in chunk order */
        v = kg_kx_load(k, part, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, jx, kg_kx_param(k, numel_p), KG_NONE), o, KG_NONE));
      } else {
        uint32_t rc[KG_MAX_RANK];
        memcpy(rc, coord, sizeof rc);
        kg_lw_decompose(L, jx, size_p, mask, true, rc);
        kg_lw_source_offsets(L, in_stride, rc);
        reset_memo(L, rowval);
        v = arg && pass == 1 ? KG_NONE : kg_lw_cvt(L, kg_lw_val(L, R->in[0]), acc);
      }
      if (red == KG_OP_RNANSUM && kg_dtype_is_float(acc) && split != 2)
        v = kg_kx_select(k, acc, kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, v, KG_NONE, KG_NONE), kg_kx_const_f(k, acc, 0), v);
      if (center != KG_NONE && !arg) {
        uint32_t dv = kg_lw_decl(L, "dev", acc, kg_kx_op(k, KG_OP_SUB, acc, v, center, KG_NONE));
        v = kg_kx_op(k, KG_OP_MUL, acc, dv, dv, KG_NONE);
      }
      if (center != KG_NONE && arg) { /* v is already the extremum's type: compare, else "no index" */
        kg_dtype et = (kg_dtype)R->cdtype;
        uint32_t ve = kg_lw_decl(L, "v", et, kg_lw_cvt(L, kg_lw_val(L, R->in[0]), et));
        uint32_t match = kg_kx_op(k, KG_OP_EQ, KG_BOOL, ve, center, KG_NONE);
        if (kg_dtype_is_float(et))
          match = kg_kx_op(k, KG_OP_LOR, KG_BOOL, match,
                           kg_kx_op(k, KG_OP_LAND, KG_BOOL, kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, center, KG_NONE, KG_NONE),
                                    kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, ve, KG_NONE, KG_NONE), KG_NONE),
                           KG_NONE);
        v = kg_kx_select(k, KG_I64, match, kg_lw_cvt(L, jx, KG_I64), kg_kx_const_i(k, KG_I64, INT64_MAX));
      }
      kg_ks as = kg_ks_make(KS_ASSIGN);
      as.a = accv, as.b = kg_kx_op(k, (kg_op)combine_op(comb), acc, kg_kx_var(k, accv), v, KG_NONE);
      kg_ks_add(&L->cur, as);
      if (wvar != KG_NONE) { /* n += 1; d = v − mean; mean += d / n; M2 += d · (v − mean) */
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
      for (uint32_t f = 0; f < nfol && split != 2; f++) { /* the siblings, at the same element */
        const kg_gnode *F = &g->nodes.v[grp->reds.v[fol[f]]];
        kg_dtype fa = (kg_dtype)F->cdtype;
        kg_op fc = (kg_op)F->op == KG_OP_RMEAN || (kg_op)F->op == KG_OP_RNANSUM ? KG_OP_RSUM : (kg_op)F->op;
        uint32_t fv = kg_lw_cvt(L, kg_lw_val(L, F->in[0]), fa);
        if ((kg_op)F->op == KG_OP_RNANSUM && kg_dtype_is_float(fa))
          fv = kg_kx_select(k, fa, kg_kx_op(k, KG_OP_ISNAN, KG_BOOL, fv, KG_NONE, KG_NONE), kg_kx_const_f(k, fa, 0), fv);
        kg_ks fs = kg_ks_make(KS_ASSIGN);
        fs.a = facc[f], fs.b = kg_kx_op(k, (kg_op)combine_op(fc), fa, kg_kx_var(k, facc[f]), fv, KG_NONE);
        kg_ks_add(&L->cur, fs);
      }
      }
      L->lane = -1;
      row_end(L, &rw, sl);
      }
      /* all threads get the row's value (needed by later passes); i = 1 asks for the broadcast */
      uint32_t tot = kg_kx_var(k, accv);
      if (!col) {
        tot = kg_kx_op(k, comb, acc, tot, KG_NONE, KG_NONE);
        k->exprs.v[tot].i = split == 1 ? 0 : warp ? 2 : 1; /* a partial is only stored, by thread 0 */
      }
      res = kg_lw_decl(L, "tot", acc, tot);
      if (split == 1) { /* the chunk's raw accumulator: scratch[chunk · n + o] */
        kg_ks ifs = kg_ks_make(KS_IF);
        ifs.a = col ? kg_kx_const_i(k, KG_BOOL, 1) : kg_kx_op(k, KG_OP_EQ, KG_BOOL, leader, zero, KG_NONE);
        uint32_t is = kg_ks_add(&L->cur, ifs);
        kg_kcursor c0 = kg_kcursor_body(k, is, false);
        kg_ks st = kg_ks_make(KS_STORE);
        st.a = part;
        st.b = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, ch, kg_kx_param(k, numel_p), KG_NONE), o, KG_NONE);
        st.c = res;
        kg_ks_add(&c0, st);
        goto done;
      }
      uint32_t cnt = kg_lw_cvt(L, kg_kx_param(k, rn), acc);
      if (red == KG_OP_RMEAN || (red == KG_OP_RVAR && pass == 0)) res = kg_lw_decl(L, "mean", acc, kg_kx_op(k, KG_OP_DIV, acc, res, cnt, KG_NONE));
      if ((red == KG_OP_RVAR || arg) && pass == 0) center = res;
      if (wvar != KG_NONE) { /* the sibling variance: Σ M2_t + n_t (mean_t − mean)², over max(N − correction, 0) */
        uint32_t dm = kg_kx_op(k, KG_OP_SUB, acc, kg_kx_var(k, wm), res, KG_NONE);
        uint32_t t = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, wq),
                              kg_kx_op(k, KG_OP_MUL, acc, kg_kx_var(k, wn), kg_kx_op(k, KG_OP_MUL, acc, dm, dm, KG_NONE), KG_NONE), KG_NONE);
        if (!col) {
          t = kg_kx_op(k, KG_OP_RSUM, acc, t, KG_NONE, KG_NONE);
          k->exprs.v[t].i = warp ? 2 : 1;
        }
        uint32_t m2 = kg_lw_decl(L, "m2", acc, t);
        const kg_gnode *V = &g->nodes.v[wvar];
        uint32_t den = kg_kx_op(k, KG_OP_MAXIMUM, acc, kg_kx_op(k, KG_OP_SUB, acc, cnt, kg_kx_const_f(k, acc, V->fa[0]), KG_NONE), kg_kx_const_f(k, acc, 0), KG_NONE);
        preset[wvar] = kg_lw_decl(L, "wvar", acc, kg_kx_op(k, KG_OP_DIV, acc, m2, den, KG_NONE));
      }
      for (uint32_t f = 0; f < nfol; f++) { /* the siblings' values, for their turn in this loop */
        const kg_gnode *F = &g->nodes.v[grp->reds.v[fol[f]]];
        kg_dtype fa = (kg_dtype)F->cdtype;
        kg_op fc = (kg_op)F->op == KG_OP_RMEAN || (kg_op)F->op == KG_OP_RNANSUM ? KG_OP_RSUM : (kg_op)F->op;
        uint32_t ft = kg_kx_var(k, facc[f]);
        if (!col) {
          ft = kg_kx_op(k, fc, fa, ft, KG_NONE, KG_NONE);
          k->exprs.v[ft].i = warp ? 2 : 1;
        }
        uint32_t fr = kg_lw_decl(L, "tot", fa, ft);
        if ((kg_op)F->op == KG_OP_RMEAN) fr = kg_lw_decl(L, "mean", fa, kg_kx_op(k, KG_OP_DIV, fa, fr, kg_lw_cvt(L, kg_kx_param(k, rn), fa), KG_NONE));
        preset[grp->reds.v[fol[f]]] = fr;
      }
      if (red == KG_OP_RVAR && pass == 1) { /* sum of squares / max(count - correction, 0): 0/0 = NaN like PyTorch */
        uint32_t den = kg_kx_op(k, KG_OP_MAXIMUM, acc, kg_kx_op(k, KG_OP_SUB, acc, cnt, kg_kx_const_f(k, acc, R->fa[0]), KG_NONE), kg_kx_const_f(k, acc, 0), KG_NONE);
        res = kg_kx_op(k, KG_OP_DIV, acc, res, den, KG_NONE);
      }
    }
    if (red == KG_OP_RMEAN) rowacc[grp->reds.v[ri]] = res; /* the mean in accumulator precision */
    rowval[grp->reds.v[ri]] = kg_lw_decl(L, "red", odt, kg_lw_cvt(L, res, odt));
    if (rparam[ri] != KG_NONE) {
      kg_ks ifs = kg_ks_make(KS_IF);
      ifs.a = col ? kg_kx_const_i(k, KG_BOOL, 1) : kg_kx_op(k, KG_OP_EQ, KG_BOOL, leader, zero, KG_NONE);
      uint32_t is = kg_ks_add(&L->cur, ifs);
      kg_kcursor c0 = kg_kcursor_body(k, is, false);
      uint32_t off = kg_lw_linear_offset(L, coord, &rstride[ri * KG_MAX_RANK], r);
      kg_ks st = kg_ks_make(KS_STORE);
      st.a = rparam[ri], st.b = off == KG_NONE ? zero : off, st.c = rowval[grp->reds.v[ri]];
      kg_ks_add(&c0, st);
    }
  }
  /* a last pass writes the row outputs */
  for (int sl = 0; no && sl < row_slots(L); sl++) {
    rowwalk rw;
    uint32_t j0 = row_begin(L, &rw, sl, first, kg_kx_param(k, rn), step), jx = j0;
    if (rw.lanes > 1) row_vloads(L, coord, j0, size_p, mask, in_stride);
    for (uint32_t ln = 0; ln < rw.lanes; ln++) {
      if (rw.lanes > 1) jx = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, j0, kg_kx_const_i(k, L->ix, ln), KG_NONE), L->lane = (int)ln;
      uint32_t rc[KG_MAX_RANK];
      memcpy(rc, coord, sizeof rc);
      kg_lw_decompose(L, jx, size_p, mask, true, rc);
      kg_lw_source_offsets(L, in_stride, rc);
      reset_memo(L, rowval);
      for (uint32_t j = 0; j < no; j++) {
        uint32_t node = g->outputs.v[grp->outs.v[j]];
        uint32_t x = kg_lw_cvt(L, kg_lw_val(L, node), (kg_dtype)g->nodes.v[node].dtype);
        uint32_t off = kg_lw_linear_offset(L, rc, &out_stride[j * KG_MAX_RANK], r);
        kg_ks st = kg_ks_make(KS_STORE);
        st.a = L->oparam[j], st.b = off == KG_NONE ? zero : off, st.c = x;
        kg_ks_add(&L->cur, st);
      }
    }
    L->lane = -1;
    row_end(L, &rw, sl);
  }
  /* epilogue: thread 0 of the row computes the outputs shaped like the reductions' result */
  if (ne) {
    kg_ks ifs = kg_ks_make(KS_IF);
    ifs.a = col ? kg_kx_const_i(k, KG_BOOL, 1) : kg_kx_op(k, KG_OP_EQ, KG_BOOL, leader, zero, KG_NONE);
    uint32_t is = kg_ks_add(&L->cur, ifs);
    kg_kcursor top = L->cur;
    L->cur = kg_kcursor_body(k, is, false);
    for (uint32_t j = 0; j < ne; j++) {
      uint32_t node = g->outputs.v[grp->epi.v[j]];
      /* sources broadcast against this output's shape: coordinates of the kept dims, reduced dims at 0 */
      uint32_t ec[KG_MAX_RANK];
      for (uint32_t d = 0; d < r; d++) ec[d] = ((mask >> d) & 1) ? KG_NONE : coord[d];
      bool squeezed = g->nodes.v[node].shape.rank < (int)r;
      kg_lw_source_offsets(L, squeezed ? sq_stride : in_stride, ec);
      reset_memo(L, rowval);
      uint32_t x = kg_lw_cvt(L, kg_lw_val(L, node), (kg_dtype)g->nodes.v[node].dtype);
      uint32_t off = kg_lw_linear_offset(L, coord, &estride[j * KG_MAX_RANK], r);
      kg_ks st = kg_ks_make(KS_STORE);
      st.a = eparam[j], st.b = off == KG_NONE ? zero : off, st.c = x;
      kg_ks_add(&L->cur, st);
    }
    L->cur = top;
  }
done:
  free(preset), free(rvisit);
  free(L->vecd);
  L->vecd = NULL, L->rvec = 1;
  free(L->cvar), free(L->cfilled), free(L->cfilling);
  L->cvar = NULL, L->cfilled = L->cfilling = NULL;
  free(rowval), free(rowacc), free(rparam), free(rstride), free(eparam), free(estride), free(in_stride), free(sq_stride);
  free(L->needed), free(L->local), free(L->src_of), free(L->memo), free(L->pparam), free(L->poff), free(L->plane), free(L->oparam), free(L->ooff);
  if (L->c->verify && !kg_kernel_verify(k, L->c->d)) return false;
  return true;
}

