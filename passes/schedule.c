/* passes/schedule.c — the scheduler: one home for every choice of how a fusion group runs.
 *
 * A pure function, kg_schedule_choose, takes what matters as plain numbers — the group's
 * static facts (kind, rank, reduced dims, how many reductions and row outputs, whether it
 * can split, its widest vector), the facts of one moment (the sizes, whether every operand
 * is contiguous, alignments, strides) and a target (SM count, threads and blocks per SM) —
 * and returns the kernel variant as enums and numbers: layout, vector width, index width,
 * block / warp / thread per row, threads per block, the row cache, the split and its
 * chunking. It has three callers, one function:
 *   - the fuser (fuse.c) asks kg_schedule_accepts before every merge: can a schedule take
 *     the merged group at all (row outputs, CUDA's 4 KB of kernel parameters)?
 *   - compile time (runtime/api.c) asks for the default variant from shapes alone (sizes
 *     may be symbolic, no tensors): what `kgen compile` emits;
 *   - run time (runtime/exec.c) asks again with the actual sizes, strides and addresses,
 *     and whether the split-rows plan is wanted (kg_schedule_split_rows), or on the CPU
 *     device the unfold plan (kg_schedule_unfold). The CPU target's choices live in
 *     schedule_cpu.c (kg_schedule_cpu_choose).
 * Gathering the facts stays with each caller (the graph here, DLTensors in exec.c); the
 * policy is only here, tested from a table (tests/test_schedule.c: facts in, variant out).
 * New kernel classes (matrix products, convolutions) add their schedules here.
 *
 * The constants were measured on an H100 (docs/gpu.md); the target description carries
 * what depends on the GPU's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

const kg_target kg_target_h100 = {"H100 SXM", 90, 132, 2048, 8, 228 * 1024, 227 * 1024, true, 0, 0};
const kg_target kg_target_a100 = {"A100 SXM", 80, 108, 2048, 8, 164 * 1024, 163 * 1024, false, 0, 0};

/* ---- the fuser's question ---- */

/* Sources a group's kernel reads: tensor inputs, scalar inputs and other groups'
 * reductions reachable from `node` without crossing a reduction of the group's own
 * (which stay on chip) — an upper bound of what the lowering adds as parameters. */
static void count_sources(const kg_graph *g, const kg_group *grp, uint32_t node, uint8_t *seen, uint32_t *params) {
  if (seen[node]) return;
  seen[node] = 1;
  const kg_gnode *n = &g->nodes.v[node];
  bool own = false;
  for (uint32_t j = 0; j < grp->reds.n; j++) own |= grp->reds.v[j] == node;
  if (own) {
    count_sources(g, grp, n->in[0], seen, params);
    if (n->op == KG_OP_MATMUL) count_sources(g, grp, n->in[1], seen, params);
    for (int j = 1; n->op == KG_OP_ATTN && j < n->n_in; j++) count_sources(g, grp, n->in[j], seen, params);
    return;
  }
  if (n->op == KG_OP_INPUT || (kg_op_get((kg_op)n->op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL))) {
    *params += 1 + (n->vkind == KG_V_TENSOR ? (uint32_t)n->shape.rank : 0); /* pointer or value, strides */
    return;
  }
  for (int j = 0; j < n->n_in; j++) count_sources(g, grp, n->in[j], seen, params);
}

bool kg_schedule_accepts(const kg_graph *g, const kg_group *grp) {
  if (grp->kind == KG_GROUP_REDUCE && grp->outs.n > KG_ROW_OUTPUTS_MAX) return false;
  uint32_t r = (uint32_t)grp->space.rank, params = 4 + r; /* numel, row length, split / chunk scalars; sizes */
  uint8_t *seen = kg_xcalloc(g->nodes.n + 1, 1);
  for (uint32_t j = 0; j < grp->outs.n; j++) {
    count_sources(g, grp, g->outputs.v[grp->outs.v[j]], seen, &params);
    params += 1 + r; /* the output: pointer, strides */
  }
  for (uint32_t j = 0; grp->kind == KG_GROUP_POINTWISE && j < grp->mats.n; j++) { /* a stored value's operands */
    const kg_gnode *n = &g->nodes.v[grp->mats.v[j]];
    for (int q = 0; q < n->n_in; q++) count_sources(g, grp, n->in[q], seen, &params);
    params += 1 + r;
  }
  uint8_t *eseen = kg_xcalloc(g->nodes.n + 1, 1); /* an epilogue's sources get strides of their own too */
  for (uint32_t j = 0; j < grp->epi.n; j++) {
    count_sources(g, grp, g->outputs.v[grp->epi.v[j]], seen, &params);
    count_sources(g, grp, g->outputs.v[grp->epi.v[j]], eseen, &params);
    params += 1 + r;
  }
  free(eseen);
  for (uint32_t j = 0; j < grp->reds.n; j++) {
    count_sources(g, grp, grp->reds.v[j], seen, &params);
    params += 1 + r; /* stored if read elsewhere */
  }
  free(seen);
  return (uint64_t)params * 8 <= KG_PARAM_BYTES_MAX;
}

/* ---- a group's static facts ---- */

bool kg_red_op_splittable(kg_op op) {
  switch (op) {
  case KG_OP_RSUM: case KG_OP_RNANSUM: case KG_OP_RMEAN: case KG_OP_RPROD: case KG_OP_RAMAX: case KG_OP_RAMIN: return true;
  default: return false;
  }
}

/* A variance splits too (float accumulators): each chunk's Welford partial (count, mean, M2),
 * merged in chunk order by Chan's formula (lower_reduce_walk.c). */
static bool red_node_splits(const kg_gnode *n) {
  return kg_red_op_splittable((kg_op)n->op) || (n->op == KG_OP_RVAR && kg_dtype_is_float((kg_dtype)n->cdtype));
}

uint32_t kg_split_slots(const kg_graph *g, const kg_group *grp) {
  for (uint32_t j = 0; j < grp->reds.n; j++)
    if (g->nodes.v[grp->reds.v[j]].op == KG_OP_RVAR) return 3;
  return kg_group_online_pair(g, grp) ? 2 : 1;
}

kg_dtype kg_split_dtype(const kg_graph *g, const kg_group *grp) {
  kg_dtype t = (kg_dtype)g->nodes.v[grp->reds.v[0]].cdtype;
  for (uint32_t j = 1; j < grp->reds.n; j++) {
    kg_dtype u = (kg_dtype)g->nodes.v[grp->reds.v[j]].cdtype;
    if (kg_dtype_get(u)->size > kg_dtype_get(t)->size) t = u;
  }
  return t;
}

bool kg_group_welford_pair(const kg_graph *g, const kg_group *grp) {
  if (grp->kind != KG_GROUP_REDUCE || grp->reds.n != 2) return false;
  const kg_gnode *m = &g->nodes.v[grp->reds.v[0]], *v = &g->nodes.v[grp->reds.v[1]];
  return m->op == KG_OP_RMEAN && v->op == KG_OP_RVAR && m->in[0] == v->in[0] && m->cdtype == v->cdtype &&
         kg_dtype_is_float((kg_dtype)m->cdtype) && m->ia[0] == v->ia[0];
}

/* A lone single-pass reduction (sum, nansum, mean, prod, amax, amin) without row outputs: what
 * the column schedules give several neighbouring outputs a thread (vectors over columns). */
bool kg_group_col_vec(const kg_graph *g, const kg_group *grp) {
  if (grp->kind != KG_GROUP_REDUCE || grp->reds.n != 1 || grp->outs.n != 0) return false;
  kg_op op = (kg_op)g->nodes.v[grp->reds.v[0]].op;
  return op == KG_OP_RSUM || op == KG_OP_RNANSUM || op == KG_OP_RMEAN || op == KG_OP_RPROD || op == KG_OP_RAMAX || op == KG_OP_RAMIN;
}

/* One reduction, a mean and its Welford variance (one walk for both: the variance's partials
 * hold the mean), or a max and its online sum of exp; no row outputs. */
bool kg_group_splittable(const kg_graph *g, const kg_group *grp) {
  if (grp->kind != KG_GROUP_REDUCE || grp->outs.n != 0) return false;
  if (grp->reds.n == 2 && kg_group_online_pair(g, grp)) return true;
  if (grp->reds.n == 2) return kg_group_welford_pair(g, grp) && red_node_splits(&g->nodes.v[grp->reds.v[1]]);
  return grp->reds.n == 1 && red_node_splits(&g->nodes.v[grp->reds.v[0]]);
}

/* Is node i a value pointwise group grp computes and stores for later kernels (a stored window,
 * fuse.c)? It is the group's own, not read from memory. */
static bool pw_stores(const kg_group *grp, uint32_t i) {
  for (uint32_t j = 0; grp->kind == KG_GROUP_POINTWISE && j < grp->mats.n; j++)
    if (grp->mats.v[j] == i) return true;
  return false;
}

/* Walks the nodes a group's outputs need (stopping at materialized nodes); calls `visit`
 * on each tensor input and materialized node reached. */
static void walk_sources(const kg_graph *g, const kg_fusion *f, const kg_group *grp, bool full_operands,
                         void (*visit)(const kg_gnode *n, void *arg), void *arg) {
  uint8_t *need = kg_xcalloc(g->nodes.n + 1, 1);
  for (uint32_t j = 0; j < grp->outs.n; j++) need[g->outputs.v[grp->outs.v[j]]] = 1;
  for (uint32_t j = 0; grp->kind == KG_GROUP_POINTWISE && j < grp->mats.n; j++) need[grp->mats.v[j]] = 1;
  for (uint32_t i = g->nodes.n; i-- > 0;) {
    if (!need[i]) continue;
    const kg_gnode *n = &g->nodes.v[i];
    bool mat = kg_fusion_mat_index(f, i) != KG_NONE && !pw_stores(grp, i);
    if (!mat)
      for (int j = 0; j < (!full_operands && n->op == KG_OP_FULL ? 1 : n->n_in); j++) need[n->in[j]] = 1;
    if ((n->op == KG_OP_INPUT && n->vkind == KG_V_TENSOR) || mat) visit(n, arg);
  }
  free(need);
}

static void widest(const kg_gnode *n, void *arg) {
  uint32_t *maxsz = arg, s = kg_dtype_get((kg_dtype)n->dtype)->size;
  if (s > *maxsz) *maxsz = s;
}

uint32_t kg_group_max_vec(const kg_graph *g, const kg_fusion *f, const kg_group *grp) {
  uint32_t maxsz = 1;
  for (uint32_t j = 0; j < grp->outs.n; j++) widest(&g->nodes.v[g->outputs.v[grp->outs.v[j]]], &maxsz);
  for (uint32_t j = 0; grp->kind == KG_GROUP_POINTWISE && j < grp->mats.n; j++) widest(&g->nodes.v[grp->mats.v[j]], &maxsz);
  walk_sources(g, f, grp, false, widest, &maxsz);
  uint32_t v = 16 / maxsz;
  return v > 8 ? 8 : v;
}

typedef struct shape_check {
  const kg_shape *space;
  bool all_equal;
} shape_check;

static void same_shape(const kg_gnode *n, void *arg) {
  shape_check *s = arg;
  if (!kg_shape_equal(&n->shape, s->space)) s->all_equal = false;
}

/* Does the group compute a layout op (anything the kernel evaluates at coordinates other
 * than the element's own)? Walks what its outputs and reductions need, stopping at values
 * read from memory. */
bool kg_group_has_layout(const kg_graph *g, const kg_fusion *f, const kg_group *grp) {
  uint8_t *need = kg_xcalloc(g->nodes.n + 1, 1);
  for (uint32_t j = 0; j < grp->outs.n; j++) need[g->outputs.v[grp->outs.v[j]]] = 1;
  for (uint32_t j = 0; j < grp->epi.n; j++) need[g->outputs.v[grp->epi.v[j]]] = 1;
  for (uint32_t j = 0; j < grp->reds.n; j++) need[grp->reds.v[j]] = 1;
  for (uint32_t j = 0; grp->kind == KG_GROUP_POINTWISE && j < grp->mats.n; j++) need[grp->mats.v[j]] = 1;
  bool any = false;
  for (uint32_t i = g->nodes.n; i-- > 0 && !any;) {
    if (!need[i]) continue;
    const kg_gnode *n = &g->nodes.v[i];
    bool own = pw_stores(grp, i);
    for (uint32_t j = 0; j < grp->reds.n; j++) own |= grp->reds.v[j] == i;
    if (!own && kg_fusion_mat_index(f, i) != KG_NONE) continue;
    if (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT) any = true;
    for (int j = 0; j < (n->op == KG_OP_FULL ? 1 : n->n_in); j++) need[n->in[j]] = 1;
  }
  free(need);
  return any;
}

kg_group_facts kg_group_facts_of(const kg_graph *g, const kg_fusion *f, const kg_group *grp) {
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = (uint8_t)grp->kind;
  gf.rank = grp->space.rank;
  gf.n_reds = grp->reds.n;
  gf.n_outs = grp->outs.n;
  if (grp->kind == KG_GROUP_MATMUL) {
    const kg_gnode *mm = &g->nodes.v[grp->red], *a = &g->nodes.v[mm->in[0]];
    gf.mm_flags = mm->ia[0];
    const kg_dim *kd = &a->shape.d[a->shape.rank - 1];
    gf.mm_k = kd->kind == KG_DIM_STATIC ? kd->v : -1;
    const kg_gnode *b = &g->nodes.v[mm->in[1]];
    gf.mm_dtype = a->dtype == b->dtype ? a->dtype : KG_DT_NONE;
    /* read from memory as it is: an input tensor, or a value an earlier kernel stored */
    /* a 1 × 1 convolution's B: the input itself (kg_im2col_identity) */
    uint32_t bid = mm->in[1];
    if ((mm->ia[0] & 8) && b->op == KG_OP_IM2COL && kg_im2col_identity(b->ia, b->fa, b->shape.rank)) {
      uint32_t xid = b->in[0];
      const kg_gnode *x = &g->nodes.v[xid];
      if ((x->op == KG_OP_INPUT && x->vkind == KG_V_TENSOR) || kg_fusion_mat_index(f, xid) != KG_NONE)
        gf.mm_b_direct = true, b = x, bid = xid;
    }
    for (int w = 0; w < 2; w++) {
      const kg_gnode *o = w ? b : a;
      bool src = (o->op == KG_OP_INPUT && o->vkind == KG_V_TENSOR) || kg_fusion_mat_index(f, w ? bid : mm->in[w]) != KG_NONE;
      if (w) gf.mm_b_src = src;
      else gf.mm_a_src = src;
      /* contiguous, its rows would start 16-byte aligned: what compile time assumes */
      const kg_dim *in = o->shape.rank ? &o->shape.d[o->shape.rank - 1] : NULL;
      gf.mm_rows16[w] = src && in && in->kind == KG_DIM_STATIC && (in->v * kg_dtype_get((kg_dtype)o->dtype)->size) % 16 == 0;
      if (w && gf.mm_b_direct) { /* its rows are a channel's spatial plane [S...] flattened */
        int64_t plane = 1;
        for (int d = 2; d < o->shape.rank; d++) plane = o->shape.d[d].kind == KG_DIM_STATIC && plane > 0 ? plane * o->shape.d[d].v : -1;
        gf.mm_rows16[w] = src && plane > 0 && (plane * (int64_t)kg_dtype_get((kg_dtype)o->dtype)->size) % 16 == 0;
      }
      gf.mm_rank[w] = (int8_t)o->shape.rank;
    }
    const kg_gnode *bo = &g->nodes.v[mm->in[1]];
    gf.mm_b_shared = (mm->ia[0] & 11) == 0 && grp->space.rank > 2 && grp->pre.n == 0;
    for (int d = 0; gf.mm_b_shared && d < bo->shape.rank - 2; d++)
      gf.mm_b_shared = bo->shape.d[d].kind == KG_DIM_STATIC && bo->shape.d[d].v == 1;
    if (!gf.mm_b_src && kg_mm_cat_of_sources(g, f, mm, bid)) {
      gf.mm_b_cat = true;
      gf.mm_rows16[1] = b->shape.d[1].kind == KG_DIM_STATIC && (b->shape.d[1].v * kg_dtype_get((kg_dtype)b->dtype)->size) % 16 == 0;
    }
  }
  else if (grp->kind == KG_GROUP_ATTN) { /* attention: mm_k = the head dim E, mm_flags its ia[0] */
    const kg_gnode *at = &g->nodes.v[grp->red], *q = &g->nodes.v[at->in[0]];
    gf.mm_flags = at->ia[0];
    gf.mm_k = q->shape.d[q->shape.rank - 1].v;
    gf.attn_esz = kg_dtype_get((kg_dtype)at->cdtype)->size;
    kg_dtype qd = (kg_dtype)q->dtype;
    gf.mm_dtype = g->nodes.v[at->in[1]].dtype == qd && g->nodes.v[at->in[2]].dtype == qd ? qd : KG_DT_NONE;
  }
  else if (grp->kind != KG_GROUP_POINTWISE) gf.red_mask = g->nodes.v[grp->red].ia[0];
  gf.splittable = kg_group_splittable(g, grp);
  for (uint32_t j = 0; j < grp->reds.n; j++) gf.any_splittable |= red_node_splits(&g->nodes.v[grp->reds.v[j]]);
  gf.max_vec = kg_group_max_vec(g, f, grp);
  shape_check sc = {&grp->space, true};
  walk_sources(g, f, grp, true, same_shape, &sc);
  gf.operands_match_space = sc.all_equal;
  gf.coords = kg_group_has_layout(g, f, grp);
  gf.col_vec = kg_group_col_vec(g, grp);
  return gf;
}

/* ---- the policy ---- */

/* Threads per block of the persistent row kernels (several reductions or row outputs:
 * softmax, layer_norm, RMSNorm): about 8 row elements per thread, 128 to 1024. Measured on
 * an H100 (docs/gpu.md): 128 threads for rows of 1024 (softmax 135 → 115 µs at 32768 rows),
 * 512 for 4096, 1024 for rows of a million (softmax 2.7 → 0.74 ms for 16 rows). */
uint32_t kg_reduce_row_threads(int64_t n_red) {
  uint32_t t = 128;
  while (t < 1024 && (int64_t)t * 8 < n_red) t *= 2;
  return t;
}

/* Rows a warp takes (log2) when rows get a warp: segments of 32 >> seg lanes, the fewest
 * lanes that give each lane at most two of the walk's steps (vec elements each: two vectors,
 * or two elements without them) — rows of 64 float32 with 128-bit loads: 8 lanes, 4 rows a
 * warp; of 16: 2 lanes; of 2 or fewer: a lane each. Fewer lanes mean fewer shuffle steps in
 * the collective and every lane busy; all of a warp's loads stay within its rows. */
uint32_t kg_reduce_row_seg(int64_t n_red, uint32_t vec) {
  uint32_t seg = 0;
  while (seg < 5 && (int64_t)(32u >> (seg + 1)) * 2 * vec >= n_red) seg++;
  return seg;
}

/* The column schedule (a thread per output, serial coalesced rows) when the innermost dim
 * is kept and either the outputs are many enough to fill the GPU (≥ 8192 threads = 32
 * blocks) or the rows are short (≤ 64); else a block per row. */
bool kg_reduce_use_columns(bool inner_kept, int64_t n_out, int64_t n_red) {
  return inner_kept && (n_out >= 8192 || n_red <= 64);
}

/* How many chunks to split the reduced dim into (1 = do not split): enough blocks (row
 * schedule: blocks_per_sm per SM) or threads (column schedule: every thread of every SM) to
 * fill the target, chunks not shorter than 4096 elements (rows) or 32 rows (columns). */
int64_t kg_reduce_split_chunks(const kg_target *t, bool columns, int64_t n_out, int64_t n_red) {
  int64_t s, cap;
  if (n_out <= 0 || n_red <= 0) return 1;
  if (t->cpu_cores) { /* a CPU: two chunks per core over fewer outputs than cores, 16 Ki elements or more each */
    if (n_out >= t->cpu_cores) return 1;
    s = (2 * (int64_t)t->cpu_cores + n_out - 1) / n_out, cap = n_red / 16384;
    if (s > cap) s = cap;
    return s < 2 ? 1 : s;
  }
  int64_t threads = (int64_t)t->sm_count * t->threads_per_sm, blocks = (int64_t)t->sm_count * t->blocks_per_sm;
  if (columns) s = (threads + n_out - 1) / n_out, cap = n_red / 32;
  else s = n_out >= 2 * t->sm_count ? 1 : (blocks + n_out - 1) / n_out, cap = n_red / 4096;
  if (s > cap) s = cap;
  if (s > 65535) s = 65535;
  return s < 2 ? 1 : s;
}

/* rows and outputs of a reduction over `space` (sizes known) */
static void row_counts(const kg_group_facts *gf, const int64_t *space, int64_t *nout, int64_t *nred, bool *known) {
  *nout = 1, *nred = 1, *known = true;
  for (int d = 0; d < gf->rank; d++) {
    if (space[d] < 0) { *known = false; continue; }
    if ((gf->red_mask >> d) & 1) *nred *= space[d];
    else *nout *= space[d];
  }
}

static bool inner_kept(const kg_group_facts *gf) { return gf->rank > 0 && !((gf->red_mask >> (gf->rank - 1)) & 1); }

/* 128-bit loads along the rows when the reduced dim is the innermost one and every source
 * that varies along it is contiguous there, with rows starting aligned (the widest source's
 * 16 bytes decide the width; narrower widths are tried) */
static uint8_t row_vector(const kg_sched_facts *x) {
  uint32_t rsz = 0;
  for (uint32_t j = 0; j < x->n_row; j++)
    if (x->row[j].varies && x->row[j].elem > rsz) rsz = x->row[j].elem;
  uint32_t vec = rsz ? 16 / rsz : 1;
  if (vec > 8) vec = 8;
  for (; vec >= 2; vec /= 2) {
    bool ok = true;
    for (uint32_t j = 0; j < x->n_row && ok; j++) {
      const kg_row_operand *o = &x->row[j];
      if (!o->varies) continue; /* broadcast along the row: scalar loads */
      ok = o->inner_stride == 1 && o->align % ((uint64_t)vec * o->elem) == 0 && o->outer_stride_pow2 % vec == 0;
    }
    if (ok) break;
  }
  return (uint8_t)vec;
}

/* ---- matrix products ---- */

static const kg_mm_tile_info mm_tiles[KG_MM__COUNT] = {
  [KG_MM_T64] = {64, 64, 4, 4, "t64", 0, 0, 0, 0},
  [KG_MM_T32] = {32, 32, 2, 2, "t32", 0, 0, 0, 0},
  [KG_MM_T16] = {16, 16, 1, 1, "t16", 0, 0, 0, 0},
  [KG_MM_ROW] = {4, 64, 1, 1, "row", 0, 0, 0, 0},
  [KG_MM_COL] = {64, 4, 1, 1, "col", 0, 0, 0, 0},
  [KG_MM_DIRECT] = {1, 1, 1, 1, "direct", 0, 0, 0, 0},
  /* tensor cores (mma.sync): warp tiles of 64 × 32 (16 m16n8 products, 64 accumulators a
   * thread) where the product fills the GPU, smaller tiles to spread small products */
  [KG_MM_TC128] = {128, 128, 64, 32, "tc128", 1, 2, 4, 4},
  [KG_MM_TC128N64] = {128, 64, 64, 32, "tc128n64", 1, 2, 2, 4},
  [KG_MM_TC64] = {64, 64, 32, 32, "tc64", 1, 2, 2, 3},
  [KG_MM_TC32] = {32, 32, 16, 16, "tc32", 1, 2, 2, 3},
  [KG_MM_TC128N64W8] = {128, 64, 32, 32, "tc128n64w8", 1, 4, 2, 4},
  /* Hopper: tm x tn is a consumer warpgroup's tile */
  [KG_MM_WG128] = {128, 128, 64, 128, "wg128", 2, 2, 1, 4},
  [KG_MM_WG256] = {128, 256, 64, 256, "wg256", 2, 2, 1, 3},
  [KG_MM_CPU] = {KG_MM_CPU_MC, 16, KG_MM_CPU_MR, 16, "packed", 0, 0, 0, 0},
  [KG_MM_CPU_ALL] = {KG_MM_CPU_MC_ALL, 16, KG_MM_CPU_MR, 16, "packed_all", 0, 0, 0, 0},
  [KG_MM_CPU8] = {KG_MM_CPU_MC, 16, 8, 16, "packed8", 0, 0, 0, 0},
  [KG_MM_CPU8_ALL] = {KG_MM_CPU_MC_ALL, 16, 8, 16, "packed8_all", 0, 0, 0, 0},
  [KG_MM_CPU_DOT] = {KG_MM_CPU_DOT_M, KG_MM_CPU_DOT_N, 4, 16, "dot", 0, 0, 0, 0},
  [KG_MM_CPU_DOT8] = {KG_MM_CPU_DOT_M, KG_MM_CPU_DOT_N, 8, 16, "dot8", 0, 0, 0, 0},
  [KG_MM_CPU8W] = {KG_MM_CPU_MC, 32, 8, 32, "packed8w", 0, 0, 0, 0},
  [KG_MM_CPU8W_ALL] = {KG_MM_CPU_MC_ALL, 32, 8, 32, "packed8w_all", 0, 0, 0, 0},
};

uint32_t kg_mm_cpu_cols(int t, kg_dtype acc) { return t == KG_MM_CPU_DOT || t == KG_MM_CPU_DOT8 ? mm_tiles[t].bn : kg_mm_cpu_nr(t, acc); }

uint32_t kg_mm_cpu_tile_rows(int t) { return (t == KG_MM_CPU_DOT || t == KG_MM_CPU_DOT8 ? 2 : 1) * mm_tiles[t].tm; }

bool kg_mm_tile_cpu(int t) { return t >= KG_MM_CPU && t <= KG_MM_CPU8W_ALL; }

bool kg_mm_tile_cpu_panel(int t) { return kg_mm_tile_cpu(t) && t != KG_MM_CPU_DOT && t != KG_MM_CPU_DOT8; }

const kg_mm_tile_info *kg_mm_tile_get(kg_mm_tile t) { return &mm_tiles[(unsigned)t < KG_MM__COUNT ? t : KG_MM_T64]; }

void kg_mm_dims(int rank, const int64_t *space, int64_t flags, int64_t *batch, int64_t *m, int64_t *n) {
  if (flags & 8) { /* a convolution over [N, O, S...] */
    int64_t G = flags >> 8;
    *batch = space[0] < 0 ? -1 : space[0] * G;
    *m = space[1] < 0 ? -1 : space[1] / G;
    *n = 1;
    for (int d = 2; d < rank; d++) *n = space[d] < 0 || *n < 0 ? -1 : *n * space[d];
    return;
  }
  int nb = rank - ((flags & 1) ? 0 : 1) - ((flags & 2) ? 0 : 1);
  *m = (flags & 1) ? 1 : space[rank - ((flags & 2) ? 1 : 2)];
  *n = (flags & 2) ? 1 : space[rank - 1];
  *batch = 1;
  for (int d = 0; d < nb; d++) *batch = space[d] < 0 || *batch < 0 ? -1 : *batch * space[d];
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool kg_conv_direct(int64_t m, int64_t k) { return m >= 0 && m <= 4 && k >= 0 && k <= 64; }

/* The tile: a skinny one for a vector operand (M or N ≤ 4), else the largest square tile
 * that still gives every SM a block (a 64 × 64 tile per 256 threads where the product is
 * big enough; 32 × 32 and 16 × 16 spread small products — an RNN step — over more blocks).
 * Unknown sizes (compile time): 64 × 64. */
kg_mm_tile kg_mm_choose_tile(const kg_target *t, int64_t batch, int64_t m, int64_t n) {
  if (m >= 0 && n > 4 && m <= 4) return KG_MM_ROW;
  if (n >= 0 && m > 4 && n <= 4) return KG_MM_COL;
  if (m < 0 || n < 0 || batch < 0) return KG_MM_T64;
  if (batch * cdiv(m, 64) * cdiv(n, 64) >= t->sm_count) return KG_MM_T64;
  if (batch * cdiv(m, 32) * cdiv(n, 32) >= t->sm_count) return KG_MM_T32;
  return KG_MM_T16;
}

/* Can the tensor-core tier take this product? sm_80 or later; float16 / bfloat16 operands, or
 * float32 ones unless the options keep float32 on SIMT; two matrix operands (a vector operand
 * is the skinny SIMT tiles' case); and — unless a test forces the tier — a product big enough
 * that a 16-row, 8-column, 16-deep instruction is not mostly padding. */
bool kg_mm_tensor_cores(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, int64_t m, int64_t n) {
  if (t->arch < 80 || x->force == KG_SCHED_NO_TENSOR_CORES || (gf->mm_flags & 3)) return false;
  kg_dtype dt = (kg_dtype)gf->mm_dtype;
  if (dt != KG_F16 && dt != KG_BF16 && !(dt == KG_F32 && x->f32_matmul != KG_SCHED_F32_SIMT)) return false;
  if (x->force == KG_SCHED_TENSOR_CORES) return true;
  return (m < 0 || m >= KG_MM_TC_MIN_ROWS) && (n < 0 || n >= 8) && (gf->mm_k < 0 || gf->mm_k >= 16);
}

/* The tensor-core tile: the largest that still gives every SM a block. */
kg_mm_tile kg_mm_choose_tc_tile(const kg_target *t, int64_t batch, int64_t m, int64_t n) {
  if (m < 0 || n < 0 || batch < 0) return KG_MM_TC128;
  if (batch * cdiv(m, 128) * cdiv(n, 128) >= t->sm_count) return KG_MM_TC128;
  if (batch * cdiv(m, 128) * cdiv(n, 64) >= t->sm_count) return KG_MM_TC128N64;
  if (batch * cdiv(m, 64) * cdiv(n, 64) >= t->sm_count) return KG_MM_TC64;
  return KG_MM_TC32;
}

/* Split-K: when the output tiles leave more than half of the SMs idle and K is long, K is cut
 * into chunks — a partial kernel multiplies each (tile, chunk) into a float32 scratch, a finish
 * kernel sums the chunks in order and runs the epilogue (deterministic: the chunking follows the
 * sizes only). Enough chunks to give every SM about one block, each at least 8 k-tiles (the
 * pipeline's prologue and drain amortized), at most 32. */
int64_t kg_mm_split_k(const kg_target *t, int64_t tiles, int64_t ktiles, int64_t kblock, int64_t *chunk) {
  *chunk = ktiles;
  if (tiles <= 0 || ktiles <= 0 || 2 * tiles > t->sm_count) return 1;
  int64_t s = t->sm_count / tiles, most = ktiles / 8;
  if (s > most) s = most;
  if (s > 32) s = 32;
  if (s < 2) return 1;
  int64_t len = cdiv(ktiles, s);
  if (kblock > 1) len = cdiv(len, kblock) * kblock; /* float32: whole blocks of the blocked summation */
  s = cdiv(ktiles, len);
  if (s < 2) return 1;
  *chunk = len;
  return s;
}

bool kg_mm_hopper(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, int64_t m, int64_t n) {
  if (!t->wgmma || x->force == KG_SCHED_NO_TENSOR_CORES || (gf->mm_flags & 11)) return false;
  if (gf->mm_dtype != KG_F16 && gf->mm_dtype != KG_BF16) return false;
  for (int w = 0; w < 2; w++) {
    bool src = w ? gf->mm_b_src : gf->mm_a_src;
    bool tma = x->runtime ? x->mm_tma[w] : gf->mm_rows16[w]; /* contiguous batch dims collapse into one */
    if (!src || !tma) return false;
  }
  if (x->force == KG_SCHED_TENSOR_CORES) return true;
  return (m < 0 || m >= 64) && (n < 0 || n >= 64) && (gf->mm_k < 0 || gf->mm_k >= 64);
}

const char *kg_mm_tier_reason(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, const kg_variant *v, char *buf, size_t n) {
  const kg_mm_tile_info *T = kg_mm_tile_get((kg_mm_tile)v->mm_tile);
  kg_dtype dt = (kg_dtype)gf->mm_dtype;
  bool half = dt == KG_F16 || dt == KG_BF16;
  const char *why;
  if (v->cpu) {
    snprintf(buf, n, "CPU: %s", v->mm_tile == KG_MM_DIRECT ? "a depthwise convolution: a thread walks rows of outputs, each row's interior one vectorized loop"
                                                           : "a panel of B packed per thread, register blocks over it (no tensor cores)");
    return buf;
  }
  if (T->tier == 2) why = "sm_90a, both operands tensors TMA reads as they are";
  else if (v->mm_tile == KG_MM_DIRECT) why = "a depthwise convolution: a thread per output walks its window";
  else if (x->force == KG_SCHED_NO_TENSOR_CORES) why = "tensor cores forced off";
  else if (t->arch < 80) why = "the target has no mma.sync with these types (sm_80 and later)";
  else if (!half && dt != KG_F32) why = "float64 and integer products stay on the SIMT tiles";
  else if (dt == KG_F32 && x->f32_matmul == KG_SCHED_F32_SIMT) why = "float32 on the SIMT tiles (kg_options.f32_matmul)";
  else if (gf->mm_flags & 3) why = "a vector operand: the skinny SIMT tiles";
  else if (T->tier == 0) why = "too small for the 16 x 8 x 16 instruction tiles";
  else if (!half) why = "float32: mma.sync (wgmma's TF32 wants both operands K-major in shared memory)";
  else if (!t->wgmma) why = t->arch == 90 ? "no sm_90a here (an NVRTC older than CUDA 12, or no tensor maps)" : "not an sm_90 GPU";
  else if ((gf->mm_flags & 8) && gf->mm_b_direct) why = "a 1 x 1 convolution: its input read as it is, by cp.async where aligned (the Hopper tier takes products only)";
  else if (gf->mm_flags & 8) why = "a convolution's window is read into registers, not by TMA";
  else why = "an operand is not a tensor TMA can read as it is (a prologue, a view, misaligned rows or a broadcast batch)";
  snprintf(buf, n, "%s: %s%s", T->tier == 2 ? "Hopper (wgmma + TMA)" : T->tier == 1 ? "tensor cores (mma.sync)" : "SIMT", why,
           v->split == KG_SPLIT_PARTIAL ? "; split-K: few output tiles over a long K, chunks of K summed by a finish kernel" : "");
  return buf;
}

bool kg_mm_cat_of_sources(const kg_graph *g, const kg_fusion *f, const kg_gnode *mm, uint32_t b) {
  const kg_gnode *n = &g->nodes.v[b];
  if (mm->op != KG_OP_MATMUL || mm->ia[0] != 4 || n->op != KG_OP_CAT || n->ia[0] != 0 || n->shape.rank != 2 || n->vkind != KG_V_TENSOR ||
      n->n_in < 1 || n->n_in > 8)
    return false;
  for (int j = 0; j < n->n_in; j++) {
    const kg_gnode *x = &g->nodes.v[n->in[j]];
    bool src = (x->op == KG_OP_INPUT && x->vkind == KG_V_TENSOR) || (f && kg_fusion_mat_index(f, n->in[j]) != KG_NONE);
    if (!src || x->dtype != n->dtype || x->shape.rank != 2 || x->shape.d[0].kind != KG_DIM_STATIC) return false;
  }
  return true;
}

/* How an operand is staged: K-major when K is its contiguous dim (or, not knowing, when it is
 * A or a transposed B — an [M, K] activation, linear's [N, K] weight); cp.async when it is read
 * as it is from a tensor whose rows start 16-byte aligned. A convolution's B (its IM2COL view)
 * is read along the output columns, which are the input's contiguous dim — except a 1 × 1
 * convolution's channels-last input, whose channels (K) are. */
static uint8_t mm_operand_mode(const kg_group_facts *gf, const kg_sched_facts *x, int which) {
  bool conv = (gf->mm_flags & 8) != 0;
  bool km = x->mm_kmajor[which] >= 0 ? x->mm_kmajor[which] != 0 : which == 0 || (gf->mm_flags & 4) != 0;
  if (conv && which == 1) km = gf->mm_b_direct && x->runtime && x->mm_kmajor[1] == 1; /* a channels-last 1 × 1 input */
  bool src = which ? gf->mm_b_src || gf->mm_b_cat : gf->mm_a_src; /* a concatenation: a source per row */
  bool async = src && (!conv || (which == 1 && gf->mm_b_direct)) && (x->runtime ? x->mm_async[which] : gf->mm_rows16[which]);
  return (uint8_t)((km ? KG_MM_KMAJOR : 0) | (async ? KG_MM_ASYNC : 0));
}

kg_schedule kg_schedule_choose(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t) {
  kg_schedule s;
  memset(&s, 0, sizeof s);
  s.nchunk = 1;
  s.row_threads = 256;
  kg_variant *v = &s.v;
  v->vec = 1, v->index_dtype = KG_I32, v->plan = x->plan;
  int64_t numel = 1, nout, nred;
  bool known;
  for (int d = 0; d < gf->rank; d++) numel *= x->space[d] < 0 ? 1 : x->space[d];
  row_counts(gf, x->space, &nout, &nred, &known);
  const int64_t big = ((int64_t)1 << 31) - 4096;
  /* the CPU target; attention (its tiles cooperate through shared memory) keeps the GPU's
   * schedule below, which the CPU device runs on fibers. The CPU target has no tensor cores
   * (arch 0, no wgmma), so no product there takes a tensor-core tier either way. */
  if (t->cpu_cores && x->runtime && gf->kind != KG_GROUP_ATTN) return kg_schedule_cpu_choose(gf, x, t, s, numel, nout, nred, big);

  if (gf->kind == KG_GROUP_ATTN) {
    /* attention: query tiles over coordinates (strides are parameters), as a product's */
    int64_t batch = 1, l = gf->rank >= 2 ? x->space[gf->rank - 2] : 1, ev = x->space[gf->rank - 1];
    for (int d = 0; d < gf->rank - 2; d++) batch = x->space[d] < 0 || batch < 0 ? -1 : batch * x->space[d];
    v->layout = KG_LAYOUT_STRIDED;
    if ((x->runtime && x->max_offset > big) || numel > big || x->force == KG_SCHED_STRIDED_I64) v->index_dtype = KG_I64;
    v->mm_tile = (uint8_t)(kg_attn_tensor_cores(gf, x, t, l, ev) ? KG_ATTN_TC64 : kg_attn_choose_tile(t, batch, l, gf->mm_k, ev, gf->attn_esz));
    return s;
  }

  if (gf->kind == KG_GROUP_MATMUL) {
    /* a product: tiles addressed by coordinates (strides are parameters); 64-bit indices when
     * an operand's extent or the output's needs them */
    int64_t batch, m, n;
    kg_mm_dims(gf->rank, x->space, gf->mm_flags, &batch, &m, &n);
    v->layout = KG_LAYOUT_STRIDED;
    if ((x->runtime && x->max_offset > big) || numel > big) v->index_dtype = KG_I64;
    if (x->force == KG_SCHED_STRIDED_I64) v->index_dtype = KG_I64;
    v->mm_tile = (uint8_t)kg_mm_choose_tile(t, batch, m, n);
    if ((gf->mm_flags & 8) && kg_conv_direct(m, gf->mm_k)) v->mm_tile = KG_MM_DIRECT;
    else if (kg_mm_hopper(gf, x, t, m, n)) {
      /* 128 x 256 where its tiles still fill the GPU */
      bool wide = n < 0 || m < 0 || batch < 0 || batch * cdiv(m, 128) * cdiv(n, 256) >= t->sm_count;
      v->mm_tile = wide ? KG_MM_WG256 : KG_MM_WG128;
      v->mm_prec = KG_MM_PREC_NATIVE;
      v->mm_a = mm_operand_mode(gf, x, 0) & KG_MM_KMAJOR, v->mm_b = mm_operand_mode(gf, x, 1) & KG_MM_KMAJOR;
    } else if (kg_mm_tensor_cores(gf, x, t, m, n)) {
      v->mm_tile = (uint8_t)kg_mm_choose_tc_tile(t, batch, m, n);
      /* a convolution's window is evaluated into registers (index arithmetic per element): 256
       * threads a block halve each thread's chunks (128 x 64 over 4 warps spilled 120 bytes on sm_80) */
      if ((gf->mm_flags & 8) && v->mm_tile == KG_MM_TC128N64) v->mm_tile = KG_MM_TC128N64W8;
      /* float32 holds partial sums beside its accumulators (blocked summation) and split-TF32
       * fragments: warp tiles of 32 x 32 (64 x 32 took 240-255 registers, NVRTC 12.4, sm_80) */
      if (gf->mm_dtype == KG_F32 && (v->mm_tile == KG_MM_TC128 || v->mm_tile == KG_MM_TC128N64)) v->mm_tile = KG_MM_TC128N64W8;
      /* 64-bit indices (an operand or the output past 2^31 elements) hold addresses in register
       * pairs. NVRTC 12.4, sm_80 and sm_90: a convolution's window evaluated into registers then
       * spilled on every tile but 32 x 32 (float32 3 x 3 and 7 x 7: 48-204 bytes; float16: 228-1400;
       * a 1 x 1 convolution's input read as it is did not), and 128 x 64 over 4 warps on
       * half-precision products (16-40 bytes); those take 32 x 32 and 128 x 64 over 8 warps
       * (tests/test_mma.c, int64_indices_without_spills) */
      if (v->index_dtype == KG_I64 && (gf->mm_flags & 8) && !gf->mm_b_direct) v->mm_tile = KG_MM_TC32;
      else if (v->index_dtype == KG_I64 && v->mm_tile == KG_MM_TC128N64) v->mm_tile = KG_MM_TC128N64W8;
      v->mm_prec = gf->mm_dtype != KG_F32 ? KG_MM_PREC_NATIVE : x->f32_matmul == KG_SCHED_F32_TF32 ? KG_MM_PREC_TF32 : KG_MM_PREC_3XTF32;
      v->mm_a = mm_operand_mode(gf, x, 0), v->mm_b = mm_operand_mode(gf, x, 1);
      /* split-K for products whose tiles leave the GPU idle (K known: this run's or static) */
      int64_t K = x->mm_k > 0 ? x->mm_k : gf->mm_k;
      const kg_mm_tile_info *T = kg_mm_tile_get((kg_mm_tile)v->mm_tile);
      if (K > 0 && batch > 0 && m > 0 && n > 0 && x->force != KG_SCHED_NO_TENSOR_CORES) {
        int64_t bk = KG_MM_TC_KBYTES / (gf->mm_dtype == KG_F32 ? 4 : 2);
        int64_t chunk, parts = kg_mm_split_k(t, batch * cdiv(m, T->bm) * cdiv(n, T->bn), cdiv(K, bk),
                                             gf->mm_dtype == KG_F32 ? KG_MM_KBLOCK / bk : 1, &chunk);
        if (parts > 1) v->split = KG_SPLIT_PARTIAL, s.nchunk = parts, s.chunk = chunk;
      }
    }
    return s;
  }

  if (!x->runtime) {
    /* compile time, from shapes: linear where every operand has the space's shape (assumed
     * contiguous), the column schedule where the static sizes ask for it; 64-bit indices
     * when static sizes need them. Warps, splits, row vectors and the row cache need the
     * actual sizes and tensors: run time decides them. */
    v->layout = KG_LAYOUT_LINEAR;
    if (gf->kind == KG_GROUP_SCAN) v->layout = KG_LAYOUT_STRIDED;
    if (gf->kind == KG_GROUP_REDUCE)
      v->layout = known && kg_reduce_use_columns(inner_kept(gf), nout, nred) ? KG_LAYOUT_LINEAR : KG_LAYOUT_STRIDED;
    if (known && numel > big) v->index_dtype = KG_I64;
    if (!x->contiguous) v->layout = KG_LAYOUT_STRIDED;
    if (gf->coords && gf->kind == KG_GROUP_POINTWISE) v->layout = KG_LAYOUT_STRIDED;
    if (v->layout == KG_LAYOUT_LINEAR && gf->kind == KG_GROUP_POINTWISE) v->vec = (uint8_t)gf->max_vec; /* a reduction's vectors: run time */
    return s;
  }

  bool reduce = gf->kind != KG_GROUP_POINTWISE;
  bool linear = !reduce && x->contiguous && !gf->coords;
  v->layout = linear ? KG_LAYOUT_LINEAR : KG_LAYOUT_STRIDED;
  if (numel > big || x->max_offset > big) v->index_dtype = KG_I64;
  if (linear) {
    /* every operand must be aligned to vec * its own size: the widest decides */
    uint32_t vec = gf->max_vec;
    while (vec > 1 && (uint64_t)vec * x->max_elem > x->align) vec /= 2;
    v->vec = (uint8_t)vec;
  }
  switch (x->force) {
  case KG_SCHED_STRIDED: v->layout = KG_LAYOUT_STRIDED, v->vec = 1; break;
  case KG_SCHED_STRIDED_I64: v->layout = KG_LAYOUT_STRIDED, v->vec = 1, v->index_dtype = KG_I64; break;
  case KG_SCHED_NO_VECTORS: v->vec = 1; break;
  default: break;
  }
  if (gf->kind == KG_GROUP_SCAN) {
    v->layout = KG_LAYOUT_STRIDED, v->vec = 1;
    return s;
  }
  if (!reduce) return s;

  /* a reduction: the column schedule (a thread per output, serial rows) when the innermost
   * dim is kept — coalesced — and there are enough outputs or the rows are short; else a
   * block per row (a collective over the row) */
  bool forced = x->force == KG_SCHED_STRIDED || x->force == KG_SCHED_STRIDED_I64;
  bool kept = inner_kept(gf);
  /* a max's sum of exp rides along in the max's walk (online softmax: a running sum rescaled
   * as the thread's max grows; lower_reduce_walk.c) — one pass over the row fewer for
   * softmax, log_softmax, logsumexp and cross_entropy. The forced-strided variants keep the
   * two walks (max, then sum), so that the fuzzer's variants test that scheme too. */
  v->no_online = forced;
  bool colsched = kg_reduce_use_columns(kept, nout, nred) && !forced;
  /* few outputs over long rows: split the reduced dim into chunks (two kernels), over
   * columns (coalesced) when the innermost dim is kept */
  int64_t S = 1;
  if (gf->splittable && !forced) {
    S = kg_reduce_split_chunks(t, kept, nout, nred);
    if (S > 1) colsched = kept;
  }
  v->layout = colsched ? KG_LAYOUT_LINEAR : KG_LAYOUT_STRIDED, v->vec = 1;
  bool persistent = gf->n_reds > 1 || gf->n_outs > 0;
  int r = gf->rank;
  /* 128-bit row loads, a split's partial kernel over rows included (its chunks a multiple of
   * the vector, so each starts aligned); not with the row cache (below) */
  uint8_t rvec = 1;
  if (!colsched && !forced && !gf->coords && r > 0 && gf->red_mask == ((int64_t)1 << (r - 1)) && nred >= 8) {
    uint8_t vec = row_vector(x);
    if (vec >= 2 && nred >= 2 * (int64_t)vec) rvec = vec;
  }
  /* a warp per row for short rows (measured on an H100: row sums of 32768 x 1024 4% faster
   * with a warp each; the multi-pass persistent kernels — softmax, layer_norm — 20-30% slower
   * at that length, so they keep a block past KG_WARP_PERSISTENT_MAX; docs/gpu.md), and for rows
   * much shorter than a warp, segments of it: kg_reduce_row_seg */
  bool warp = !colsched && S == 1 && nred <= (persistent ? KG_WARP_PERSISTENT_MAX : KG_WARP_ROW_MAX);
  v->warp = warp;
  v->seg = warp ? (uint8_t)kg_reduce_row_seg(nred, rvec) : 0;
  /* threads per block of the block-per-row kernels (any multiple of 32 up to 1024: the
   * kernels read blockDim): persistent row kernels, and lone unsplit ones over rows of
   * 64 Ki elements and more (var, argmax), get about 8 elements per thread, the rest 256;
   * reduce_block (KGEN_REDUCE_BLOCK) overrides it for tuning experiments */
  s.row_threads = S == 1 && (persistent || nred >= 65536) ? kg_reduce_row_threads(nred) : 256;
  if (x->reduce_block) s.row_threads = x->reduce_block;
  /* a persistent row kernel can keep its row in registers when it fits (every later pass
   * reads it from there instead of memory). Measured on an H100 (docs/gpu.md) it was 2-5 %
   * slower than re-reading the row, which then comes from L1, so it is opt-in (row_cache:
   * KGEN_ROW_CACHE=1) */
  v->cache = x->row_cache && !gf->coords && persistent && !colsched && !warp && S == 1 && (int64_t)s.row_threads * KG_ROW_CACHE >= nred && !forced;
  if (!v->cache) v->vec = rvec;
  /* 128-bit loads in the column schedules (a thread per output, and a split's partial over
   * columns): a thread takes vec neighbouring outputs — a whole vector of the innermost (kept)
   * dim, whose size vec divides — and loads each row's vec elements at once; for a lone
   * single-pass reduction (col_vec) whose sources varying along that dim are contiguous there
   * and aligned (the row operands' facts: the same dim) */
  if (colsched && !forced && !gf->coords && gf->col_vec && r > 0 && x->space[r - 1] > 0) {
    uint8_t vec = row_vector(x);
    while (vec > 1 && x->space[r - 1] % vec) vec /= 2;
    if (vec >= 2) v->vec = vec;
  }
  if (S > 1) {
    v->split = KG_SPLIT_PARTIAL;
    s.chunk = (nred + S - 1) / S;
    if (v->vec > 1 && !colsched) s.chunk = (s.chunk + v->vec - 1) / v->vec * v->vec; /* rows: whole vectors */
    s.nchunk = (nred + s.chunk - 1) / s.chunk; /* no empty chunk */
  }
  return s;
}

bool kg_schedule_split_rows(const kg_group_facts *gf, const int64_t *space, kg_sched_force force, const kg_target *t) {
  if (force == KG_SCHED_SPLIT_ROWS) return true;
  if (force == KG_SCHED_STRIDED || force == KG_SCHED_STRIDED_I64) return false;
  if (gf->kind != KG_GROUP_REDUCE || (gf->n_reds < 2 && gf->n_outs == 0) || !gf->any_splittable) return false;
  int64_t nout, nred;
  bool known;
  row_counts(gf, space, &nout, &nred, &known);
  return known && kg_reduce_split_chunks(t, inner_kept(gf), nout, nred) > 1;
}

bool kg_schedule_merge_siblings(int64_t rows, int64_t bytes, bool by_rows) {
  if (rows < 1 || rows >= KG_MERGE_SIBLING_ROWS) return false;
  /* fewer rows than a tensor-core instruction tile: the SIMT tiles load every weight into
   * registers element by element, merged or not (kg_mm_tensor_cores; the product's own m is at
   * most these rows); weights that are tensors cp.async copies a row at a time on mma.sync,
   * merged or not (lower_mma.c, a concatenation's rows): either way weights of any size merge */
  if (rows < KG_MM_TC_MIN_ROWS || by_rows) return true;
  return bytes >= 0 && bytes <= KG_MERGE_SIBLING_BYTES;
}

bool kg_schedule_row_stats(int64_t rows, int64_t k) {
  return rows >= 1 && rows < KG_MERGE_SIBLING_ROWS && k >= 0 && k <= KG_MM_ROW_STATS_K;
}

bool kg_mm_row_stat_ok(const kg_graph *g, const kg_gnode *mm, uint32_t r) {
  if (mm->op != KG_OP_MATMUL || mm->n_in < 2 || (mm->ia[0] & (1 | 8)) || r >= g->nodes.n) return false;
  const kg_gnode *R = &g->nodes.v[r];
  if ((R->op != KG_OP_RSUM && R->op != KG_OP_RMEAN && R->op != KG_OP_RVAR) || R->n_in < 1 || R->vkind != KG_V_TENSOR) return false;
  if (R->dtype != KG_F32 && R->dtype != KG_F16 && R->dtype != KG_BF16) return false;
  if (!kg_dtype_is_float((kg_dtype)R->cdtype)) return false;
  const kg_gnode *in = &g->nodes.v[R->in[0]], *A = &g->nodes.v[mm->in[0]];
  int rk = A->shape.rank;
  if (rk < 2 || in->vkind != KG_V_TENSOR || !kg_shape_equal(&in->shape, &A->shape) || R->ia[0] != ((int64_t)1 << (rk - 1))) return false;
  if (R->shape.rank != rk) return false; /* keepdim: [.., M, 1] */
  for (int d = 0; d < rk - 1; d++)
    if (R->shape.d[d].kind != A->shape.d[d].kind || R->shape.d[d].v != A->shape.d[d].v) return false;
  return R->shape.d[rk - 1].kind == KG_DIM_STATIC && R->shape.d[rk - 1].v == 1;
}

bool kg_merge_weights_by_rows(const kg_graph *g, const uint32_t *w, int n) {
  for (int j = 0; j < n; j++) {
    const kg_gnode *x = &g->nodes.v[w[j]];
    if (x->op != KG_OP_INPUT || x->vkind != KG_V_TENSOR || x->shape.rank != 2 || x->shape.d[1].kind != KG_DIM_STATIC ||
        (x->shape.d[1].v * (int64_t)kg_dtype_get((kg_dtype)x->dtype)->size) % 16 != 0)
      return false;
  }
  return n > 0;
}

/* ---- attention (issue 23) ---- */

static const kg_attn_tile_info attn_tiles[KG_ATTN__COUNT] = {
  {64, 32, 128, "q64", false}, {32, 32, 128, "q32", false}, {16, 32, 128, "q16", false}, {8, 16, 128, "q8", false},
  {64, 64, 128, "tc64", true},
};

const kg_attn_tile_info *kg_attn_tile_get(kg_attn_tile t) { return &attn_tiles[(unsigned)t < KG_ATTN__COUNT ? t : 0]; }

uint32_t kg_attn_smem(kg_attn_tile t, int64_t e, int64_t ev, uint32_t esz) {
  /* as passes/lower_attn.c lays them out: the query tile, one key / value tile (its rows padded
   * to the accumulators' columns), the probabilities, the rows' partial sums */
  const kg_attn_tile_info *T = kg_attn_tile_get(t);
  int64_t tpr = T->threads / T->bq, evpad = (ev + tpr - 1) / tpr * tpr, kv = e > evpad ? e : evpad;
  return (uint32_t)((int64_t)esz * ((int64_t)T->bq * (e + 1) + (int64_t)T->bk * (kv + 1) + (int64_t)T->bq * (T->bk + 1) + (int64_t)T->bq * tpr));
}

/* rows of 16-byte chunks padded by one chunk: ldmatrix's eight row addresses fall in distinct
 * banks (an odd number of chunks a row) */
int64_t kg_attn_mma_pitch(int64_t d) { return (d + 15) / 16 * 32 + 16; }
/* keys a block: 64, or 32 for head dims past 64 (the d = 128 kernel spilled on sm_90 at 64:
 * 255 registers, NVRTC 12.4) */
uint32_t kg_attn_mma_bk(int64_t e, int64_t ev) { return e > 64 || ev > 64 ? 32 : attn_tiles[KG_ATTN_TC64].bk; }
uint32_t kg_attn_mma_smem(int64_t e, int64_t ev) {
  const kg_attn_tile_info *T = &attn_tiles[KG_ATTN_TC64];
  return (uint32_t)(T->bq * kg_attn_mma_pitch(e) + kg_attn_mma_bk(e, ev) * (kg_attn_mma_pitch(e) + kg_attn_mma_pitch(ev)));
}

bool kg_attn_tensor_cores(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, int64_t l, int64_t ev) {
  if (t->arch < 80 || x->force == KG_SCHED_NO_TENSOR_CORES || gf->attn_esz != 4) return false;
  if (gf->mm_dtype != KG_F16 && gf->mm_dtype != KG_BF16) return false;
  if (gf->mm_k < 1 || gf->mm_k > KG_ATTN_TC_DIM_MAX || ev < 1 || ev > KG_ATTN_TC_DIM_MAX) return false;
  if (kg_attn_mma_smem(gf->mm_k, ev) > (uint32_t)t->smem_per_block) return false;
  return x->force == KG_SCHED_TENSOR_CORES || l < 0 || l >= 16;
}

/* The largest query tile whose accumulators (Ev over the row's threads) stay within
 * KG_ATTN_ACC_MAX registers and whose tiles fit the static shared memory; then smaller ones
 * while the blocks (batch × query tiles) would leave SMs idle, as kg_mm_choose_tile does. */
kg_attn_tile kg_attn_choose_tile(const kg_target *t, int64_t batch, int64_t l, int64_t e, int64_t ev, uint32_t esz) {
  int best = KG_ATTN_SIMT_COUNT - 1;
  for (int i = 0; i < KG_ATTN_SIMT_COUNT; i++) {
    const kg_attn_tile_info *T = &attn_tiles[i];
    uint32_t tpr = T->threads / T->bq;
    if ((ev + tpr - 1) / tpr > KG_ATTN_ACC_MAX || kg_attn_smem((kg_attn_tile)i, e, ev, esz) > KG_ATTN_SMEM_MAX) continue;
    best = i;
    break;
  }
  if (batch < 0 || l < 0) return (kg_attn_tile)best;
  while (best + 1 < KG_ATTN_SIMT_COUNT && batch * ((l + attn_tiles[best].bq - 1) / attn_tiles[best].bq) < t->sm_count &&
         kg_attn_smem((kg_attn_tile)(best + 1), e, ev, esz) <= KG_ATTN_SMEM_MAX)
    best++;
  return (kg_attn_tile)best;
}
