/* passes/fold_products.c — small matrix products folded into the kernels that read them.
 *
 * A MATMUL is a kernel of its own (passes/lower_matmul.c's tiles): right for big products, but
 * an RNN step — h' = tanh(x Wx + h Wh + b) at a batch of a few rows — is then three launches for
 * a few thousand multiply-adds, and at these sizes a launch costs more than the arithmetic. This
 * pass rewrites such a product into MMFOLD, a layout-class op whose value at (batch..., m, n) is
 * its K-long dot product computed by the kernel that reads it (passes/lower_dot.c): the products
 * of a step and the pointwise ops around them are one kernel, and so are an LSTM or GRU cell's
 * gates picked by chunk / select / narrow (views: each gate element read once).
 *
 * A product folds when
 *   - it is a plain product (not a convolution's implicit GEMM) whose sizes are static, with
 *     K <= KG_FOLD_K_MAX and batch·M·N·K <= KG_FOLD_MACS_MAX: a thread per output walking K is
 *     a few microseconds at most, below what a launch of the tiled kernel costs (symbolic sizes
 *     keep the tiled kernel, which suits every size);
 *   - its operands reach no inline window (POOL, UPSAMPLE, IM2COL: each operand element is read
 *     once per output column, so the window would be recomputed N times);
 *   - and each element of it is computed once per kernel that reads it: every path from it to
 *     a kernel's output goes through pointwise ops that do not broadcast it and through views
 *     that read each element at most once (reshape, permute, slice, select, cat, flip, roll,
 *     tril, pixel_shuffle), never into a reduction, a scan or a product's operand (a row walk
 *     per pass, a tile load per column tile or a loop per output: K·K work), an expand, a
 *     repeat or an index (copies of one element);
 *   - and the options allow it: force_variant 2 (strided, 64-bit indices) and 5 keep every
 *     product tiled — the general schedule, which the test runs of those variants cover.
 *
 *   h' = tanh(x @ wx + h @ wh + b), x [4, 8], h [4, 16], wx [8, 16], wh [16, 16]
 *     before: group0 matmul x@wx; group1 matmul h@wh, epilogue tanh(.. + ..)     2 kernels
 *     after:  group0 pointwise over [4, 16]: tanh(Σ_k x·wx + Σ_k h·wh + b)          1 kernel
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool op_is(const kg_gnode *n, unsigned flags) { return (kg_op_get((kg_op)n->op)->flags & flags) != 0; }

static bool all_static(const kg_shape *s) {
  for (int d = 0; d < s->rank; d++)
    if (s->d[d].kind != KG_DIM_STATIC) return false;
  return true;
}

static int64_t numel(const kg_shape *s) {
  int64_t e = 1;
  for (int d = 0; d < s->rank; d++) e *= s->d[d].v;
  return e;
}

bool kg_fold_small(int64_t k, int64_t e) {
  return k >= 0 && e >= 0 && k <= KG_FOLD_K_MAX && e <= KG_FOLD_MACS_MAX && (k == 0 || e <= KG_FOLD_MACS_MAX / k);
}

/* Are its sizes static? */
static bool static_product(const kg_graph *g, const kg_gnode *n) {
  const kg_gnode *a = &g->nodes.v[n->in[0]], *b = &g->nodes.v[n->in[1]];
  return all_static(&n->shape) && all_static(&a->shape) && all_static(&b->shape);
}

/* Small enough to fold: static sizes, a short K, few multiply-adds. */
static bool small_product(const kg_graph *g, const kg_gnode *n) {
  const kg_gnode *a = &g->nodes.v[n->in[0]];
  if (!static_product(g, n) || a->shape.rank < 1) return false;
  return kg_fold_small(a->shape.d[a->shape.rank - 1].v, numel(&n->shape));
}

/* Does an operand reach an inline window through pointwise and layout ops (stopping at what
 * another kernel computes: reductions, scans, products)? */
static bool reaches_window(const kg_graph *g, uint32_t id, uint8_t *visit) {
  if (visit[id]) return false;
  visit[id] = 1;
  const kg_gnode *n = &g->nodes.v[id];
  if (op_is(n, KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL)) return false;
  if (n->op == KG_OP_POOL || n->op == KG_OP_UPSAMPLE || n->op == KG_OP_IM2COL || n->op == KG_OP_MMFOLD || n->op == KG_OP_POOL_GRAD ||
      n->op == KG_OP_UPSAMPLE_GRAD || n->op == KG_OP_PAD_GRAD)
    return true;
  int nin = n->op == KG_OP_FULL ? 1 : n->n_in;
  for (int j = 0; j < nin; j++)
    if (reaches_window(g, n->in[j], visit)) return true;
  return false;
}

/* Views that read each operand element at most once per output element. */
static bool view_reads_once(kg_op op) {
  switch (op) {
  case KG_OP_RESHAPE: case KG_OP_PERMUTE: case KG_OP_SLICE: case KG_OP_SELECT: case KG_OP_CAT:
  case KG_OP_FLIP: case KG_OP_ROLL: case KG_OP_TRIL: case KG_OP_PIXEL_SHUFFLE: return true;
  default: return false;
  }
}

/* Is product p's value computed once per element by each kernel that reads it? (The nodes
 * reading it are after it in node order; reach marks those that carry its value.) */
static bool read_once(const kg_graph *g, uint32_t p, uint8_t *reach) {
  memset(reach, 0, g->nodes.n + 1);
  reach[p] = 1;
  for (uint32_t i = p + 1; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    int nin = n->op == KG_OP_FULL ? 1 : n->n_in;
    bool reads = false, bcast = false;
    for (int j = 0; j < nin; j++) {
      if (!reach[n->in[j]]) continue;
      reads = true;
      const kg_gnode *o = &g->nodes.v[n->in[j]];
      if (o->vkind != KG_V_TENSOR || !kg_shape_equal(&o->shape, &n->shape)) bcast = true;
    }
    if (!reads) continue;
    if (op_is(n, KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL | KG_OPF_COMPOSITE) || n->op == KG_OP_MMFOLD) return false;
    if (op_is(n, KG_OPF_LAYOUT)) {
      if (!view_reads_once((kg_op)n->op)) return false;
    } else if (bcast || n->vkind != KG_V_TENSOR) {
      return false; /* broadcast copies, or a scalar read of a tensor (item) */
    }
    reach[i] = 1;
  }
  return true;
}

/* The structural rules: a plain product whose operands reach no window, read once per element. */
static bool structurally_foldable(const kg_graph *g, uint32_t i, uint8_t *mark) {
  const kg_gnode *n = &g->nodes.v[i];
  if (n->op != KG_OP_MATMUL || (n->ia[0] & 8) || g->nodes.v[n->in[0]].shape.rank < 1) return false;
  memset(mark, 0, g->nodes.n + 1);
  if (reaches_window(g, n->in[0], mark)) return false;
  memset(mark, 0, g->nodes.n + 1);
  if (reaches_window(g, n->in[1], mark)) return false;
  return read_once(g, i, mark);
}

bool kg_pass_fold_products(kg_graph *g, kg_pass_ctx *c) {
  if (c->no_fold) return false;
  bool changed = false;
  uint8_t *mark = kg_xmalloc(g->nodes.n + 1);
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    if (g->nodes.v[i].op != KG_OP_MATMUL || !small_product(g, &g->nodes.v[i]) || !structurally_foldable(g, i, mark)) continue;
    g->nodes.v[i].op = KG_OP_MMFOLD;
    changed = true;
  }
  free(mark);
  return changed;
}

uint32_t kg_fold_candidates(const kg_graph *g, uint32_t **out) {
  *out = NULL;
  uint32_t n = 0;
  uint8_t *mark = kg_xmalloc(g->nodes.n + 1);
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    if (g->nodes.v[i].op != KG_OP_MATMUL || static_product(g, &g->nodes.v[i]) || !structurally_foldable(g, i, mark)) continue;
    *out = kg_xrealloc(*out, (n + 1) * sizeof **out);
    (*out)[n++] = i;
  }
  free(mark);
  return n;
}
