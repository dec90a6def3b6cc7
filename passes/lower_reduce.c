/* passes/lower_reduce.c — the reduction schedules: one REDUCE fusion group → its kernel.
 *
 * A block per row (persistent: every reduction of the group walks the row in turn,
 * later ones may use earlier ones, then the row outputs are written), a warp per
 * row (short rows), a thread per output (outer reductions: coalesced columns), and
 * split reductions (a partial kernel over chunks of the reduced dim, then a finish
 * kernel folding the chunks in order). Row walks may load 128-bit vectors or keep
 * the row in registers; a variance beside a mean rides in the mean's walk (Welford), a
 * max's sum of exp in the max's (online softmax), and independent siblings share walks; kg_reduce_passes counts the walks. Which of these
 * schedules a group gets is the scheduler's choice (schedule.c). The machinery that
 * evaluates a group's DAG at a coordinate is lower.c's (lower_int.h).
 *
 * kg_lw_reduce reads as the list of phases, over one struct of shared state (rkern):
 * the kernel's parameters; the schedule's mapping of threads to an output row (one
 * function per schedule: map_block, map_warp, map_thread, map_split_partial,
 * map_split_finish — the only part that differs between them: the output element o, the
 * leader that stores, the walks' first / step / bound, the collective); the row cache and
 * the 128-bit row loads; each reduction's passes over the row (kg_lw_reduce_one, with
 * Welford, online softmax and siblings) and the row-output pass, both in lower_reduce_walk.c; the
 * epilogue. Which reductions share a walk (siblings, Welford's pairing) is decided here,
 * where kg_reduce_passes counts the walks the same way. */
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

/* ---- what the walks share with the epilogue ---- */

/* Forgets per-element values; the group's finished reductions stay (per row). */
void kg_lw_row_memo_reset(rkern *S) {
  for (uint32_t i = 0; i < S->g->nodes.n; i++) S->L->memo[i] = S->rowval[i];
  kg_lw_at_reset(S->L);
}

/* param[off] = x at cursor c (off KG_NONE: offset 0). */
void kg_lw_row_store(rkern *S, kg_kcursor *c, uint32_t param, uint32_t off, uint32_t x) {
  kg_ks st = kg_ks_make(KS_STORE);
  st.a = param, st.b = off == KG_NONE ? S->zero : off, st.c = x;
  kg_ks_add(c, st);
}

/* if (leader == 0) { … } (every thread of the column schedule): the cursor of its body,
 * for what one thread of the row stores. */
kg_kcursor kg_lw_row_leader_only(rkern *S) {
  kg_kernel *k = S->k;
  kg_ks ifs = kg_ks_make(KS_IF);
  ifs.a = S->col ? kg_kx_const_i(k, KG_BOOL, 1) : kg_kx_op(k, KG_OP_EQ, KG_BOOL, S->leader, S->zero, KG_NONE);
  uint32_t is = kg_ks_add(&S->L->cur, ifs);
  return kg_kcursor_body(k, is, false);
}

/* ---- the schedules: how a block, a warp or a thread maps to an output row ----
 * Each names the kernel's schedule and grid shape and sets o, the leader, the walks'
 * first / step / bound and the collective. Every one works for any set of reduced dims
 * and any operand strides. */

/* The hardware indices every schedule starts from. */
static void row_ids(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  L->cur = kg_kcursor_top(k);
  S->bid = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_CTAID_X, KG_I32), L->ix);
  S->tid = kg_lw_decl(L, "tid", L->ix, kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32), L->ix));
  S->nt = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_NTID_X, KG_I32), L->ix);
  S->ch = S->lo = S->hi = KG_NONE;
  S->leader = S->tid;
}

/* if (o < n) { the rest of the kernel }: the grid may overshoot the outputs */
static void guard_o(rkern *S) {
  kg_kernel *k = S->k;
  kg_ks in = kg_ks_make(KS_IF);
  in.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, S->o, kg_kx_param(k, S->numel_p), KG_NONE);
  uint32_t is = kg_ks_add(&S->L->cur, in);
  S->L->cur = kg_kcursor_body(k, is, false);
}

/* A block per row: thread t accumulates the reduced elements t, t + blockDim.x, …
 * (its prologue evaluated inline at each), in the accumulator dtype; a block-wide
 * collective (warp shuffles, then shared memory across warps, a fixed tree: bit-identical
 * on every run, no atomics) combines the partials and gives every thread the row's value;
 * thread 0 finishes (mean divides by the count) and stores. */
static void map_block(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  k->schedule = S->persistent ? (S->cache ? "reduce.rows_persistent.cached" : "reduce.rows_persistent")
                              : S->cache ? "reduce.block_per_output.cached" : "reduce.block_per_output";
  k->launch.per_output = KG_LAUNCH_BLOCK_PER_OUTPUT;
  S->o = kg_lw_decl(L, "o", L->ix, S->bid);
  S->first = S->leader, S->step = S->nt, S->bound = kg_kx_param(k, S->rn);
  S->coll = KG_COLL_BLOCK_ALL;
}

/* A warp per row: the block's 8 warps take rows bid · 8 + w; lane l walks l, l + 32, …;
 * the collective is a warp all-reduce (shuffles down, then lane 0's value broadcast). With
 * segments (v->seg > 0: rows much shorter than 32) the same over `lanes` = 32 >> seg lanes:
 * the block's 256 / lanes segments take rows bid · (256 / lanes) + tid / lanes, the lane is
 * tid % lanes, and the collective shuffles within the segment (width and mask of its lanes). */
static void map_warp(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t lanes = 32u >> S->seg, rows = k->launch.block[0] / lanes;
  k->schedule = S->seg ? kg_arena_printf(L->c->arena, "%s.seg%u", S->persistent ? "reduce.rows_persistent.warp" : "reduce.warp_per_output", lanes)
                       : S->persistent ? "reduce.rows_persistent.warp" : "reduce.warp_per_output";
  k->launch.per_output = KG_LAUNCH_WARP_PER_OUTPUT;
  k->launch.tile_m = rows;
  uint32_t wl = kg_kx_const_i(k, L->ix, lanes);
  S->leader = kg_lw_decl(L, "lane", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, S->tid, wl, KG_NONE));
  uint32_t w = kg_kx_op(k, KG_OP_IDX_DIV, L->ix, S->tid, wl, KG_NONE);
  S->o = kg_lw_decl(L, "o", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, S->bid, kg_kx_const_i(k, L->ix, rows), KG_NONE), w, KG_NONE));
  guard_o(S); /* a whole segment takes this branch or not */
  S->first = S->leader, S->step = wl, S->bound = kg_kx_param(k, S->rn);
  S->coll = KG_COLL_WARP_ALL;
}

/* A thread per output (the column schedule: v->layout LINEAR, asked for only when the
 * innermost dim is kept): each thread walks its row serially — neighbouring threads read
 * neighbouring addresses, no collective needed. */
static void map_thread(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  k->schedule = S->cvec > 1 ? kg_arena_printf(L->c->arena, "reduce.thread_per_output.vec%u", S->cvec) : "reduce.thread_per_output";
  k->launch.per_output = KG_LAUNCH_THREAD_PER_OUTPUT;
  k->launch.elems_per_thread = S->cvec; /* with vectors: the first of cvec neighbouring outputs */
  uint32_t t = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, S->bid, S->nt, KG_NONE), S->tid, KG_NONE);
  if (S->cvec > 1) t = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, t, kg_kx_const_i(k, L->ix, S->cvec), KG_NONE);
  S->o = kg_lw_decl(L, "o", L->ix, t);
  guard_o(S); /* the outputs are a multiple of cvec: all of the thread's or none */
  S->first = kg_kx_const_i(k, L->ix, 0), S->step = kg_kx_const_i(k, L->ix, 1), S->bound = kg_kx_param(k, S->rn);
  S->coll = KG_COLL_NONE;
}

/* A split reduction's partial kernel (v->split KG_SPLIT_PARTIAL): the block or thread
 * schedule over one chunk [lo, hi) of the reduced dim per blockIdx, chunk-major (bid =
 * chunk · blocks per chunk + block); the chunk's raw accumulator goes to scratch[chunk ·
 * n + o] (store_partial, lower_reduce_walk.c), so the collective leaves it in thread 0. */
static void map_split_partial(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t per = S->col ? kg_kx_param(k, S->nb_p) : kg_kx_param(k, S->numel_p);
  S->ch = kg_lw_decl(L, "ch", L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, S->bid, per, KG_NONE));
  S->bid = kg_lw_decl(L, "ob", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, S->bid, per, KG_NONE));
  S->lo = kg_lw_decl(L, "lo", L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, S->ch, kg_kx_param(k, S->chunk_p), KG_NONE));
  S->hi = kg_lw_decl(L, "hi", L->ix,
                     kg_kx_op(k, KG_OP_MINIMUM, L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, S->lo, kg_kx_param(k, S->chunk_p), KG_NONE), kg_kx_param(k, S->rn), KG_NONE));
  if (S->col) map_thread(S);
  else map_block(S);
  k->schedule = S->col ? S->cvec > 1 ? kg_arena_printf(L->c->arena, "reduce.split_partial.columns.vec%u", S->cvec) : "reduce.split_partial.columns"
                       : "reduce.split_partial.rows";
  S->first = S->col ? S->lo : kg_kx_op(k, KG_OP_IDX_ADD, L->ix, S->lo, S->tid, KG_NONE), S->bound = S->hi;
  if (!S->col) S->coll = KG_COLL_BLOCK_LEADER;
}

/* A split reduction's finish kernel (v->split KG_SPLIT_FINISH): a thread per output folds the chunks'
 * accumulators in order, then does what the unsplit kernel does after its loop (mean's
 * division, cast, store, epilogue). */
static void map_split_finish(rkern *S) {
  map_thread(S);
  S->k->schedule = "reduce.split_finish";
  S->bound = kg_kx_param(S->k, S->nchunk_p);
}

/* The schedule's mapping, then the row's kept coordinates. */
static void map_row(rkern *S) {
  row_ids(S);
  if (S->split == KG_SPLIT_PARTIAL) map_split_partial(S);
  else if (S->split == KG_SPLIT_FINISH) map_split_finish(S);
  else if (S->col) map_thread(S);
  else if (S->warp) map_warp(S);
  else map_block(S);
  for (uint32_t d = 0; d < S->r; d++) S->coord[d] = KG_NONE;
  kg_lw_decompose(S->L, S->o, S->size_p, S->mask, false, S->coord);
  S->zero = kg_kx_const_i(S->k, S->L->ix, 0);
}

/* ---- the kernel's parameters ----
 * sources, stored reductions, row outputs, epilogue outputs, sizes, strides */

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

/* The reductions read elsewhere (stored): a buffer each, and its strides over the kept dims. */
static void params_reductions(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_arena *A = L->c->arena;
  const kg_group *grp = S->grp;
  uint32_t nred = grp->reds.n;
  S->rparam = kg_xmalloc((nred + 1) * sizeof *S->rparam), S->rstride = kg_xmalloc(((size_t)nred + 1) * KG_MAX_RANK * sizeof *S->rstride);
  for (uint32_t i = 0; i < nred; i++) {
    S->rparam[i] = KG_NONE;
    for (uint32_t d = 0; d < KG_MAX_RANK; d++) S->rstride[i * KG_MAX_RANK + d] = KG_NONE;
    uint32_t mi = kg_fusion_mat_index(L->f, grp->reds.v[i]);
    if (mi == KG_NONE) continue;
    const kg_gnode *R = &S->g->nodes.v[grp->reds.v[i]];
    kg_bufref ob = L->f->mat_buf.v[mi];
    uint32_t enc = (ob.kind == KG_BUF_OUTPUT ? 0x80000000u : 0x40000000u) | ob.index;
    S->rparam[i] = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)R->dtype, true, ob.kind == KG_BUF_OUTPUT ? kg_arena_printf(A, "out%u", ob.index) : kg_arena_printf(A, "tmp%u", ob.index),
                                               KPR_TENSOR, ob.kind, ob.index));
    for (int od = 0; od < R->shape.rank; od++) {
      uint32_t d = row_dim_of(L, S->mask, R->shape.rank, od);
      if (d != KG_NONE && !((S->mask >> d) & 1) && !kg_lw_dim_is_one(&grp->space.d[d]))
        S->rstride[i * KG_MAX_RANK + d] = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "sr%u_%d", i, od), KPR_STRIDE, enc | 0x20000000u, (uint32_t)od));
    }
  }
}

/* The row outputs' buffers (their strides come with the other strides). */
static void params_row_outputs(rkern *S) {
  lctx *L = S->L;
  const kg_graph *g = S->g;
  for (uint32_t j = 0; j < S->grp->outs.n; j++) {
    uint32_t o = S->grp->outs.v[j];
    L->oparam[j] = kg_kparam_add(S->k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)g->nodes.v[g->outputs.v[o]].dtype, true, kg_arena_printf(L->c->arena, "out%u", o), KPR_TENSOR, KG_BUF_OUTPUT, o));
  }
}

/* The epilogue outputs: a buffer each, and its strides over the kept dims. */
static void params_epilogues(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_arena *A = L->c->arena;
  const kg_graph *g = S->g;
  const kg_group *grp = S->grp;
  uint32_t ne = grp->epi.n;
  S->eparam = kg_xmalloc((ne + 1) * sizeof *S->eparam), S->estride = kg_xmalloc(((size_t)ne + 1) * KG_MAX_RANK * sizeof *S->estride);
  for (uint32_t j = 0; j < ne; j++) {
    uint32_t o = grp->epi.v[j];
    const kg_gnode *on = &g->nodes.v[g->outputs.v[o]];
    S->eparam[j] = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)on->dtype, true, kg_arena_printf(A, "out%u", o), KPR_TENSOR, KG_BUF_OUTPUT, o));
    for (uint32_t d = 0; d < KG_MAX_RANK; d++) S->estride[j * KG_MAX_RANK + d] = KG_NONE;
    for (int od = 0; od < on->shape.rank; od++) {
      uint32_t d = row_dim_of(L, S->mask, on->shape.rank, od);
      if (d != KG_NONE && !((S->mask >> d) & 1) && !kg_lw_dim_is_one(&grp->space.d[d]))
        S->estride[j * KG_MAX_RANK + d] = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "se%u_%d", o, od), KPR_STRIDE, (0x80000000u | o) | 0x20000000u, (uint32_t)od));
    }
  }
}

/* Output elements, row length, a split's scratch and chunking, the space's sizes. */
static void params_scalars(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  S->numel_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "n", KPR_NUMEL, 0, 0));
  S->rn = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "rn", KPR_RED_N, 0, 0));
  S->part = S->chunk_p = S->nchunk_p = S->nb_p = KG_NONE;
  if (S->split) {
    S->part = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, kg_split_dtype(S->g, S->grp), S->split == KG_SPLIT_PARTIAL, "part", KPR_TENSOR, KG_BUF_SCRATCH, 0));
    if (S->split == KG_SPLIT_PARTIAL) S->chunk_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "chunk", KPR_SPLIT_LEN, 0, 0));
    if (S->split == KG_SPLIT_PARTIAL && S->col) S->nb_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "nb", KPR_SPLIT_NB, 0, 0));
    if (S->split == KG_SPLIT_FINISH) S->nchunk_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "nchunk", KPR_SPLIT_N, 0, 0));
  }
  for (uint32_t d = 0; d < S->r; d++)
    S->size_p[d] = kg_lw_dim_is_one(&S->grp->space.d[d]) ? KG_NONE
                                                          : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(L->c->arena, "size%u", d), KPR_SIZE, 0, d));
}

/* The sources' strides over the space (and against squeezed epilogues), the row outputs'. */
static void params_strides(rkern *S) {
  lctx *L = S->L;
  kg_arena *A = L->c->arena;
  const kg_graph *g = S->g;
  const kg_group *grp = S->grp;
  S->in_stride = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *S->in_stride);
  for (size_t i = 0; i < (size_t)L->nsrc * KG_MAX_RANK; i++) S->in_stride[i] = KG_NONE;
  kg_lw_add_source_strides(L, A, S->in_stride);
  /* squeezed epilogues (no keepdim) address what they read against their own shape */
  S->sq_stride = NULL;
  for (uint32_t j = 0; j < grp->epi.n && !S->sq_stride; j++)
    if (g->nodes.v[g->outputs.v[grp->epi.v[j]]].shape.rank < (int)S->r) {
      S->sq_stride = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *S->sq_stride);
      for (size_t i = 0; i < (size_t)L->nsrc * KG_MAX_RANK; i++) S->sq_stride[i] = KG_NONE;
      kg_lw_add_source_strides_squeezed(L, A, S->mask, S->sq_stride);
    }
  KG_ASSERT(grp->outs.n <= KG_ROW_OUTPUTS_MAX); /* kg_schedule_accepts keeps the fuser within it */
  for (uint32_t j = 0; j < grp->outs.n; j++)
    for (uint32_t d = 0; d < S->r; d++)
      S->out_stride[j * KG_MAX_RANK + d] =
          kg_lw_dim_is_one(&grp->space.d[d]) ? KG_NONE
                                             : kg_kparam_add(S->k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "so%u_%u", grp->outs.v[j], d), KPR_STRIDE, 0x80000000u | grp->outs.v[j], d));
}

static void reduce_params(rkern *S) {
  kg_lw_add_source_params(S->L, S->L->c->arena);
  params_reductions(S);
  params_row_outputs(S);
  params_epilogues(S);
  params_scalars(S);
  params_strides(S);
}

/* ---- the row cache and the 128-bit row loads ---- */

/* The row cache: KG_ROW_CACHE vars per buffer source, declared at row scope. */
static void row_cache_setup(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  L->slot = -1;
  if (!S->cache) return;
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
 * sources varying along it are contiguous there and aligned (exec.c). A split's partial kernel
 * walks its chunk with them too: the scheduler makes the chunk a multiple of the vector, so
 * every chunk starts aligned (schedule.c). */
static void row_vec_setup(rkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  const kg_graph *g = S->g;
  /* the column schedules' vectors (S->cvec) run across outputs, not along the row: the same
   * vector-loaded sources, the row walked an element at a time (L->rvec back to 1 below) */
  bool cols = S->cvec > 1;
  L->rvec = cols ? S->cvec
            : L->v->vec > 1 && !S->col && S->split != KG_SPLIT_FINISH && !S->cache && S->mask == ((int64_t)1 << (S->r - 1)) ? L->v->vec : 1;
  if (L->rvec <= 1) return;
  L->vtid = S->tid;
  L->vbase = S->split == KG_SPLIT_PARTIAL ? S->lo : KG_NONE;
  L->vecd = kg_xcalloc(L->nsrc + 1, 1);
  uint32_t ngp = g->params.n;
  for (uint32_t p = 0; p < L->nsrc; p++) {
    if (L->pparam[p] == KG_NONE || k->params.v[L->pparam[p]].kind != KP_BUFFER) continue;
    uint32_t node = p < ngp ? g->params.v[p].node : L->f->mat.v[p - ngp];
    const kg_gnode *sn = &g->nodes.v[node];
    /* a source read only through layout ops (a gather's index: cross_entropy's target) has no
     * offset along the row to load vectors at (lower.c leaves its poff KG_NONE) */
    L->vecd[p] = L->direct && L->direct[node] && sn->vkind == KG_V_TENSOR && sn->shape.rank > 0 &&
                 !kg_lw_dim_is_one(&sn->shape.d[sn->shape.rank - 1]);
  }
  /* at most 16 bytes per access for the widest vector-loaded source */
  uint32_t wsz = 1;
  for (uint32_t p = 0; p < L->nsrc; p++)
    if (L->vecd[p] && kg_dtype_get((kg_dtype)k->params.v[L->pparam[p]].dtype)->size > wsz) wsz = kg_dtype_get((kg_dtype)k->params.v[L->pparam[p]].dtype)->size;
  if (cols) { /* the scheduler's width fits 16 bytes of every source varying along the outputs */
    if (L->rvec * wsz > 16) free(L->vecd), L->vecd = NULL; /* (not reached) each lane loads its own */
    k->vec = S->cvec, L->rvec = 1;
    return;
  }
  while (L->rvec > 1 && L->rvec * wsz > 16) L->rvec /= 2;
  if (L->rvec < 2) {
    free(L->vecd);
    L->vecd = NULL, L->rvec = 1;
  } else {
    k->vec = L->rvec;
    k->schedule = kg_arena_printf(L->c->arena, "%s.vec%u", k->schedule, L->rvec);
  }
}

/* ---- which reductions share a walk ---- */

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
uint32_t kg_lw_pick_siblings(const kg_graph *g, const kg_group *grp, uint32_t ri, const uint32_t *taken, uint32_t *fol, uint8_t *visit) {
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

/* Welford's pairing: the index of the first variance after index `from` of the same input
 * and accumulator as mean ri, or KG_NONE. Every such variance shares the mean's M2, each over
 * its own count − correction (batch_norm's biased variance and its running statistics'
 * unbiased one: one walk). */
uint32_t kg_lw_welford_next(const kg_graph *g, const kg_group *grp, uint32_t ri, uint32_t from) {
  const kg_gnode *R = &g->nodes.v[grp->reds.v[ri]];
  if (R->op != KG_OP_RMEAN || !kg_dtype_is_float((kg_dtype)R->cdtype)) return KG_NONE;
  for (uint32_t q = from + 1; q < grp->reds.n; q++) {
    const kg_gnode *Q = &g->nodes.v[grp->reds.v[q]];
    if (Q->op == KG_OP_RVAR && Q->in[0] == R->in[0] && Q->cdtype == R->cdtype) return q;
  }
  return KG_NONE;
}

/* the first of them: the variance whose walk the mean's takes along, or KG_NONE */
uint32_t kg_lw_welford_var_of(const kg_graph *g, const kg_group *grp, uint32_t ri) {
  uint32_t q = kg_lw_welford_next(g, grp, ri, ri);
  return q == KG_NONE ? KG_NONE : grp->reds.v[q];
}

/* Is node a function of the row value m alone — m, constants and pointwise ops of them (softmax's
 * m, logsumexp's isinf(m) ? 0 : m)? *dep: it reads m. */
static bool of_row_value(const kg_graph *g, uint32_t node, uint32_t m, bool *dep, int depth) {
  if (node == m) return *dep = true;
  const kg_gnode *n = &g->nodes.v[node];
  if (n->op == KG_OP_CONST) return true;
  unsigned fl = kg_op_get((kg_op)n->op)->flags;
  if (depth > 8 || (fl & (KG_OPF_LEAF | KG_OPF_LAYOUT | KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL | KG_OPF_COMPOSITE | KG_OPF_MAP | KG_OPF_CREATE)))
    return false;
  for (int j = 0; j < n->n_in; j++)
    if (!of_row_value(g, n->in[j], m, dep, depth + 1)) return false;
  return true;
}

/* Online softmax's pairing: for a max ri (float) over x, the index of the first later sum of
 * exp(x − c) in its accumulator's float dtype, c a function of the max alone (softmax,
 * log_softmax, cross_entropy: c = m; logsumexp: isinf(m) ? 0 : m), or KG_NONE; *shift = c.
 * That sum rides along in the max's walk (lower_reduce_walk.c). */
uint32_t kg_lw_online_sum(const kg_graph *g, const kg_group *grp, uint32_t ri, uint32_t *shift) {
  uint32_t m = grp->reds.v[ri];
  const kg_gnode *R = &g->nodes.v[m];
  kg_dtype ct = (kg_dtype)R->cdtype;
  if (R->op != KG_OP_RAMAX || !kg_dtype_is_float(ct) || g->nodes.v[R->in[0]].dtype != ct) return KG_NONE;
  for (uint32_t q = ri + 1; q < grp->reds.n; q++) {
    const kg_gnode *Q = &g->nodes.v[grp->reds.v[q]];
    if (Q->op != KG_OP_RSUM || !kg_dtype_is_float((kg_dtype)Q->cdtype)) continue;
    const kg_gnode *E = &g->nodes.v[Q->in[0]];
    if (E->op != KG_OP_EXP || E->dtype != ct) continue;
    const kg_gnode *D = &g->nodes.v[E->in[0]];
    bool dep = false;
    if (D->op != KG_OP_SUB || D->dtype != ct || D->in[0] != R->in[0] || g->nodes.v[D->in[1]].dtype != ct || !of_row_value(g, D->in[1], m, &dep, 0) || !dep)
      continue;
    *shift = D->in[1];
    return q;
  }
  return KG_NONE;
}

bool kg_group_online_pair(const kg_graph *g, const kg_group *grp) {
  uint32_t shift;
  return grp->kind == KG_GROUP_REDUCE && grp->reds.n == 2 && kg_lw_online_sum(g, grp, 0, &shift) == 1;
}

static int reduce_passes(const kg_graph *g, const kg_group *grp, bool online, bool centred);
int kg_reduce_passes(const kg_graph *g, const kg_group *grp) { return reduce_passes(g, grp, true, false); }
int kg_reduce_passes_variant(const kg_graph *g, const kg_group *grp, const kg_variant *v) {
  /* a partial walks its chunk once (a variance: Welford; a max with its sum of exp: online), the
   * finish its chunks — twice for a max and its sum of exp (the max, then the sums rescaled to it) */
  if (v->split && grp->kind == KG_GROUP_REDUCE) return v->split == KG_SPLIT_FINISH && kg_group_online_pair(g, grp) ? 2 : 1;
  return reduce_passes(g, grp, !v->no_online, v->cpu);
}

/* centred: the CPU target's pairing, a mean's paired variances in one more walk (lower_reduce_walk.c) */
static int reduce_passes(const kg_graph *g, const kg_group *grp, bool online, bool centred) {
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
    uint32_t w0 = kg_lw_welford_next(g, grp, ri, ri);
    for (uint32_t q = w0; q != KG_NONE; q = kg_lw_welford_next(g, grp, ri, q)) taken[grp->reds.v[q]] = 1;
    if (centred && w0 != KG_NONE) passes++;
    uint32_t shift, q = online ? kg_lw_online_sum(g, grp, ri, &shift) : KG_NONE;
    if (q != KG_NONE) taken[grp->reds.v[q]] = 1;
    uint32_t nf = kg_lw_pick_siblings(g, grp, ri, taken, fol, visit);
    for (uint32_t f = 0; f < nf; f++) taken[grp->reds.v[fol[f]]] = 1;
  }
  free(taken), free(visit), free(meanseen);
  return passes;
}

/* ---- the epilogue ---- */

/* Epilogue: the row's leader computes the outputs shaped like the reductions' result. */
static void epilogue(rkern *S) {
  lctx *L = S->L;
  const kg_graph *g = S->g;
  if (!S->grp->epi.n) return;
  kg_kcursor body = kg_lw_row_leader_only(S);
  kg_kcursor top = L->cur;
  L->cur = body;
  for (uint32_t j = 0; j < S->grp->epi.n; j++) {
    uint32_t node = g->outputs.v[S->grp->epi.v[j]];
    /* sources broadcast against this output's shape: coordinates of the kept dims, reduced dims at 0 */
    uint32_t ec[KG_MAX_RANK];
    for (uint32_t d = 0; d < S->r; d++) ec[d] = ((S->mask >> d) & 1) ? KG_NONE : S->coord[d];
    bool squeezed = g->nodes.v[node].shape.rank < (int)S->r;
    kg_lw_source_offsets(L, squeezed ? S->sq_stride : S->in_stride, ec);
    if (squeezed) { /* its values at coordinates (a squeeze view: passes/fuse.c) are over its own shape, the kept dims */
      uint32_t rs = 0;
      for (uint32_t d = 0; d < S->r; d++)
        if (!((S->mask >> d) & 1)) L->gcoord[rs++] = S->coord[d];
      L->gframe = &g->nodes.v[node].shape;
    }
    kg_lw_row_memo_reset(S);
    uint32_t x = kg_lw_cvt(L, kg_lw_val(L, node), (kg_dtype)g->nodes.v[node].dtype);
    kg_lw_row_store(S, &L->cur, S->eparam[j], kg_lw_linear_offset(L, S->coord, &S->estride[j * KG_MAX_RANK], S->r), x);
    L->gframe = NULL;
  }
  L->cur = top;
}

/* ---- the driver ---- */

/* The schedule's flags from the variant, the launch's fixed part, the per-node tables. */
static void reduce_init(rkern *S, lctx *L) {
  memset(S, 0, sizeof *S);
  S->L = L, S->k = L->k, S->g = L->g, S->grp = L->grp;
  S->r = S->grp->space.rank;
  S->mask = S->g->nodes.v[S->grp->red].ia[0];
  S->split = (kg_split_part)L->v->split;
  KG_ASSERT(!S->split || kg_group_splittable(S->g, S->grp));
  /* LINEAR here selects the column schedule; the finish kernel is a thread per output too */
  S->col = L->v->layout == KG_LAYOUT_LINEAR || S->split == KG_SPLIT_FINISH;
  S->warp = L->v->warp && !S->col && !S->split;
  S->seg = S->warp ? L->v->seg : 0;
  /* the column schedules with vectors: neighbouring outputs a thread (the finish kernel: one);
   * a vector the group cannot take (a variant made elsewhere) is ignored, as the rows' is */
  S->cvec = S->col && S->split != KG_SPLIT_FINISH && L->v->vec > 1 && kg_group_col_vec(S->g, S->grp) ? L->v->vec : 1;
  S->persistent = S->grp->reds.n > 1 || S->grp->outs.n;
  S->cache = L->v->cache && !S->col && !S->split && !S->warp;
  /* a split takes a sum of exp along only as a max's online pair (always online: its partials are
   * the chunk's max and its sum relative to it) */
  S->online = S->split ? kg_group_online_pair(S->g, S->grp) : !L->v->no_online;
  S->slots = S->split ? kg_split_slots(S->g, S->grp) : 1;
  S->k->launch.block[0] = 256;
  S->k->launch.elems_per_thread = 1;
  S->k->vec = 1;
  uint32_t nn = S->g->nodes.n;
  S->rowval = kg_xmalloc((nn + 1) * sizeof *S->rowval), S->rowacc = kg_xmalloc((nn + 1) * sizeof *S->rowacc);
  S->preset = kg_xmalloc((nn + 1) * sizeof *S->preset);
  for (uint32_t i = 0; i < nn; i++) S->rowval[i] = S->rowacc[i] = S->preset[i] = KG_NONE;
  S->rvisit = kg_xcalloc(nn + 1, 1);
}

/* Frees what the kernel's build held; verifies the kernel. */
static bool reduce_end(rkern *S) {
  lctx *L = S->L;
  free(S->preset), free(S->rvisit);
  free(L->vecd);
  L->vecd = NULL, L->rvec = 1;
  free(L->cvar), free(L->cfilled), free(L->cfilling);
  L->cvar = NULL, L->cfilled = L->cfilling = NULL;
  free(S->rowval), free(S->rowacc), free(S->rparam), free(S->rstride), free(S->eparam), free(S->estride), free(S->in_stride), free(S->sq_stride);
  kg_lw_view_free(L);
  free(L->needed), free(L->local), free(L->src_of), free(L->memo), free(L->pparam), free(L->poff), free(L->plane), free(L->oparam), free(L->ooff);
  if (L->c->verify && !kg_kernel_verify(S->k, L->c->d)) return false;
  return true;
}

bool kg_lw_reduce(lctx *L, const char *name) {
  (void)name;
  rkern S;
  reduce_init(&S, L);
  reduce_params(&S);
  map_row(&S);         /* o, the leader, the walks' bounds, the collective; the row's coordinates */
  row_cache_setup(&S);
  row_vec_setup(&S);
  /* one pass over the row per reduction (variance: two, mean then squared deviations —
   * or none, when a sibling mean of the same input computed it by Welford in its pass);
   * a split partial is done once it stored its accumulator */
  bool done = false;
  if (S.cvec > 1) {
    if (!kg_lw_reduce_columns(&S, epilogue)) kg_lw_row_outputs(&S); /* (a lone reduction has no row outputs) */
    return reduce_end(&S);
  }
  if (S.split && kg_group_welford_pair(S.g, S.grp)) {
    /* a mean and its variance split together (the split-rows plan): the variance's partials
     * (count, mean, M2) hold the mean too — the partial walks its chunk once for both, the
     * finish sets the mean from the merged partials (kg_lw_reduce_one), then stores it */
    done = kg_lw_reduce_one(&S, 1);
    if (!done) done = kg_lw_reduce_one(&S, 0);
  } else
    for (uint32_t ri = 0; ri < S.grp->reds.n && !done; ri++) done = kg_lw_reduce_one(&S, ri);
  if (!done) {
    kg_lw_row_outputs(&S);
    epilogue(&S);
  }
  return reduce_end(&S);
}
