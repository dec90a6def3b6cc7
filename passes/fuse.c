/* passes/fuse.c — fusion: which kernels an entry needs and what each computes.
 *
 * Pointwise ops fuse freely: an output element depends only on the input
 * elements at the same (broadcast) coordinates, so one kernel per distinct
 * output shape computes every pointwise producer inline, per element;
 * intermediates are never stored, and a broadcast intermediate is recomputed
 * per element rather than materialized (bandwidth, not ALU, bounds pointwise code).
 *
 * Reductions form row groups: reductions over the same input shape and the same
 * reduced dims, in node order, share one kernel that walks each row once per
 * reduction (a "persistent" row schedule: block per row); later reductions of the
 * group may use earlier ones (softmax: max, then sum of exp(x - max)). The group
 * also takes the outputs that have the rows' shape and depend on its reductions
 * (x - mean, x / sum: written in a last pass over the row), and the epilogue
 * outputs shaped like a reduction's result (sum * 0.5: thread 0 of the row).
 * A layout op over a reduction reads other rows' values, so it is left to a pointwise kernel
 * reading them from memory — except a squeeze view (a RESHAPE only removing or inserting
 * static size-1 dims) that lines up with the rows (row_view): a global pool flattened,
 * mean(-1, keepdim).squeeze(-1), batch_norm's running-statistics update stay in the kernel.
 * Only a reduction read by another kernel (or returned) is materialized, into its
 * output or a temporary buffer. Kernels run in node order. Every merge is kept only
 * if the scheduler accepts the merged group (kg_schedule_accepts, schedule.c). Merging reductions with
 * different reduced dims and rows cached on chip are the scheduler's next steps.
 *
 * A matrix product (MATMUL) is a group of its own, in node order among the reductions: its
 * operands' pointwise producers are evaluated inline in its tile loads (the prologue), and
 * the pointwise nodes of the product's shape computed from it — bias, activation, residual,
 * scale, cast — form its epilogue set E: an output in E is stored by the product's kernel,
 * and a node of E another kernel reads is materialized there, the largest such node on the
 * reader's path (gelu(x W1 + b1) feeding a second linear is stored once, after the gelu); a
 * layout op over the product (flip, roll: other coordinates) is never in E:
 *   gelu(linear(x, w, b)) + r            ⇒  group0 MATMUL, epilogue out0      (one kernel)
 *   linear(gelu(linear(x, w1, b1)), w2)  ⇒  group0 MATMUL stores h = gelu(..) ; group1 MATMUL
 *
 * A norm before a product — a row group with nothing else to do whose reductions (sums, means,
 * variances over the last dim of a tensor shaped as the product's A) only that product's A
 * prologue reads — becomes the product's *row statistics* (grp->pre, row_stats below): its kernel
 * computes them for its tile's rows before its K loop (passes/lower_rowstats.c), at few rows
 * (kg_schedule_row_stats), and the row kernel is gone:
 *   linear(x * rsqrt(x.pow(2).mean(-1, keepdim) + eps) * g, W)  ⇒  group0 MATMUL, pre {mean}
 *
 * A pooling window (POOL) is evaluated inline where it is read, like a pointwise op, except when
 * inline it would be evaluated twice or more per element: read through the windows of
 * convolutions (IM2COL) or of other pools, each pooled value is evaluated once per window
 * position (a 3 x 3 convolution after ResNet's max pool: 9 evaluations of a 9-element max per
 * value, 40 % of ResNet-18's time on the CPU device), and once per product reading it (GoogLeNet's
 * stage pool feeds three 1 x 1 convolutions and the branch pool) — such a node (window_stores)
 * gets a pointwise kernel of its own that stores it (grp->mats), in node order among the groups
 * of step 1:
 *   conv3x3(maxpool(relu(bn(conv(x)))))  ⇒  group0 MATMUL stores r ; group1 stores maxpool(r) ; group2 MATMUL
 *
 * The split-rows plan (split_rows, built at run time for few, very long rows) is
 * the same program without row groups: each reduction alone (it can then split
 * into a partial and a finish kernel across the whole GPU), row outputs in pointwise
 * kernels that read the reductions from temporaries. Two pairs stay together, as a split
 * reads the row once for both: a mean with the variance of the same input (layer_norm's:
 * the variance's Welford partials hold the mean), and a max with the sum of exp(x − max)
 * online softmax takes along (softmax's: a chunk's max and its sum relative to it).
 *
 *   m = x.mean(-1, keepdim); y = x - m          ⇒  group0 REDUCE {m} rows [N,D], row output y (m stays on chip)
 *   outputs y:[N,768], z:[N,768], w:[768]        ⇒  group0 {y, z} over [N,768] ; group1 {w} over [768]
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

uint32_t kg_fusion_mat_index(const kg_fusion *f, uint32_t node) {
  for (uint32_t i = 0; i < f->mat.n; i++)
    if (f->mat.v[i] == node) return i;
  return KG_NONE;
}

static bool is_red_only(const kg_graph *g, uint32_t n) { return (kg_op_get((kg_op)g->nodes.v[n].op)->flags & KG_OPF_REDUCE) != 0; }
/* a product kernel of its own: a matrix product, or attention (ATTN: the fused flash kernel, whose
 * operands are its prologue and whose pointwise consumers of its shape its epilogue, as a
 * product's) */
static bool is_matmul(const kg_graph *g, uint32_t n) { return g->nodes.v[n].op == KG_OP_MATMUL || g->nodes.v[n].op == KG_OP_ATTN; }
static bool product_group(uint8_t kind) { return kind == KG_GROUP_MATMUL || kind == KG_GROUP_ATTN; }

/* What the matrix products of a program need from the fuser (all NULL without products). */
typedef struct mmctx {
  bool on;           /* the program has a product */
  uint8_t *valued;   /* per node: its value is needed (FULL's second operand gives only a shape) */
  uint32_t *gdep;    /* per node: the latest group whose value it reads (reduction, scan, product) */
  uint32_t *epi_of;  /* per node: the MATMUL group whose epilogue set E it belongs to, or KG_NONE */
} mmctx;

static int value_operands(const kg_gnode *n) { return n->op == KG_OP_FULL ? 1 : n->n_in; }

static void mm_init(const kg_graph *g, mmctx *M) {
  memset(M, 0, sizeof *M);
  for (uint32_t i = 0; i < g->nodes.n && !M->on; i++) M->on = is_matmul(g, i);
  if (!M->on) return;
  uint32_t nn = g->nodes.n;
  M->valued = kg_xcalloc(nn + 1, 1);
  M->gdep = kg_xmalloc((nn + 1) * sizeof *M->gdep);
  M->epi_of = kg_xmalloc((nn + 1) * sizeof *M->epi_of);
  for (uint32_t o = 0; o < g->outputs.n; o++) M->valued[g->outputs.v[o]] = 1;
  for (uint32_t i = nn; i-- > 0;) {
    if (!M->valued[i]) continue;
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < value_operands(n); j++) M->valued[n->in[j]] = 1;
  }
}

/* After the groups of step 1: gdep and the epilogue sets, in node order. A node joins E of
 * product group p when it is a pointwise tensor node of p's shape, p is the latest group it
 * reads, and it reads p through E (not through another kernel's result). */
static void mm_epilogue_sets(const kg_graph *g, const kg_fusion *f, const uint32_t *group_of, mmctx *M) {
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    M->gdep[i] = M->epi_of[i] = KG_NONE;
    bool value = (kg_op_get((kg_op)n->op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL)) != 0;
    if (!value && group_of[i] != KG_NONE) { /* a stored window: read from memory after its group */
      M->gdep[i] = group_of[i];
      continue;
    }
    if (value) {
      M->gdep[i] = group_of[i];
      if (is_matmul(g, i)) M->epi_of[i] = group_of[i];
      continue;
    }
    uint32_t gd = KG_NONE;
    for (int j = 0; j < value_operands(n); j++) {
      uint32_t q = M->gdep[n->in[j]];
      if (q != KG_NONE && (gd == KG_NONE || q > gd)) gd = q;
    }
    M->gdep[i] = gd;
    if (gd == KG_NONE || n->vkind != KG_V_TENSOR || !product_group(f->groups.v[gd].kind)) continue;
    /* a layout op reads its operand at other coordinates: the epilogue holds the product at its
     * own (m, n) only, so such a node reads the product from memory instead */
    if (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT) continue;
    if (!kg_shape_equal(&n->shape, &f->groups.v[gd].space)) continue;
    bool through = false, other = false;
    for (int j = 0; j < value_operands(n); j++) {
      uint32_t q = n->in[j];
      if (M->epi_of[q] == gd) through = true;
      else if (M->gdep[q] == gd) other = true;
    }
    if (through && !other) M->epi_of[i] = gd;
  }
}

/* Reuse counts only meet the threshold 2: they saturate here (windows of hostile sizes, deep chains) */
#define REUSE_CAP ((int64_t)1 << 20)
static int64_t reuse_mul(int64_t a, int64_t b) { return a * b < REUSE_CAP ? a * b : REUSE_CAP; } /* a, b <= REUSE_CAP */

/* How many times pooling node n reads an element of its operand: its window (as a convolution's
 * window counts); an adaptive pool's windows split the input (about once per element), and
 * an input smaller than the output is read O / I times along the dim (AlexNet's 2 x 2 to 6 x 6:
 * 9 times; VGG's 1 x 1 to 7 x 7: 49) */
static int64_t pool_window(const kg_graph *g, const kg_gnode *n) {
  int nd = (int)(n->ia[2] & 3), r = n->shape.rank;
  bool adaptive = ((n->ia[2] >> 2) & 3) >= 2;
  const kg_gnode *x = &g->nodes.v[n->in[0]];
  int64_t w = 1;
  for (int i = 0; i < nd; i++) {
    int64_t in = x->shape.d[r - nd + i].v, out = n->shape.d[r - nd + i].v;
    int64_t e = adaptive ? (in > 0 ? (out + in - 1) / in : 1) : (n->ia[i] & 0xffff);
    w = reuse_mul(w, e < REUSE_CAP ? e : REUSE_CAP);
  }
  return w;
}

/* The POOL nodes stored by a kernel of their own (the header above): per node, 1 for those whose
 * elements would be evaluated twice or more inline; NULL when there are none. A node's evaluations
 * per element: the window of each windowed reader times that reader's own evaluations — an
 * IM2COL once per product reading it (CSE shares one IM2COL among the 1 x 1 convolutions of one
 * input: GoogLeNet's inception branches), a POOL as many times as it is evaluated itself when
 * inline (a pool of a pool: the 3 x 3 branch pool after the stage's stride-2 pool read 81 values
 * per element); readers in node order after their operands, so one backward sweep decides. */
static uint8_t *window_stores(const kg_graph *g, const mmctx *M) {
  if (!M->on) return NULL;
  uint32_t nn = g->nodes.n;
  bool any = false;
  for (uint32_t i = 0; i < nn && !any; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    any = (n->op == KG_OP_IM2COL || n->op == KG_OP_POOL) && M->valued[i] && g->nodes.v[n->in[0]].op == KG_OP_POOL &&
          g->nodes.v[n->in[0]].vkind == KG_V_TENSOR;
  }
  if (!any) return NULL;
  int64_t *reuse = kg_xcalloc(nn + 1, sizeof *reuse); /* a POOL's evaluations per element; an IM2COL's readers */
  for (uint32_t i = 0; i < nn; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < value_operands(n) && M->valued[i]; j++)
      if (g->nodes.v[n->in[j]].op == KG_OP_IM2COL) reuse[n->in[j]]++;
  }
  uint8_t *st = kg_xcalloc(nn + 1, 1);
  for (uint32_t i = nn; i-- > 0;) {
    const kg_gnode *n = &g->nodes.v[i];
    if (!M->valued[i] || (n->op != KG_OP_IM2COL && n->op != KG_OP_POOL)) continue;
    int64_t evals = reuse[i] > 1 ? (reuse[i] < REUSE_CAP ? reuse[i] : REUSE_CAP) : 1, w = 1;
    if (n->op == KG_OP_POOL) {
      st[i] = n->vkind == KG_V_TENSOR && reuse[i] >= 2;
      if (st[i]) evals = 1;
      w = pool_window(g, n);
    } else {
      for (int d = 0; d < n->shape.rank - 3 && d < KG_CONV_MAX_DIMS; d++) w = reuse_mul(w, kg_conv_get(n->ia[3], d));
    }
    const kg_gnode *x = &g->nodes.v[n->in[0]];
    if (x->op == KG_OP_POOL && x->vkind == KG_V_TENSOR) reuse[n->in[0]] = reuse_mul(1, reuse[n->in[0]] + reuse_mul(w, evals));
  }
  free(reuse);
  return st;
}

static void mm_free(mmctx *M) { free(M->valued), free(M->gdep), free(M->epi_of); }
/* values that live in memory between kernels: reductions and scans */
static bool is_reduce(const kg_graph *g, uint32_t n) {
  return (kg_op_get((kg_op)g->nodes.v[n].op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN)) != 0;
}

/* The reductions node `root` depends on without crossing another reduction
 * (they are its direct reduction inputs): marks them in `seen`. */
static void reductions_reached(const kg_graph *g, uint32_t root, uint8_t *seen, uint8_t *visit) {
  if (visit[root]) return;
  visit[root] = 1;
  if (is_reduce(g, root)) { seen[root] = 1; return; }
  const kg_gnode *n = &g->nodes.v[root];
  for (int j = 0; j < n->n_in; j++) reductions_reached(g, n->in[j], seen, visit);
}

/* The values group gi reads from other kernels, reached from `root`: reductions and scans (as
 * reductions_reached), and with products, nodes of another product's epilogue set — the first
 * met on the way down, the largest (group gi's own product and its E are computed in place). */
static void values_reached(const kg_graph *g, const mmctx *M, uint32_t gi, uint32_t root, uint8_t *seen, uint8_t *visit) {
  if (visit[root]) return;
  visit[root] = 1;
  if (is_reduce(g, root)) { seen[root] = 1; return; }
  if (M->epi_of[root] != KG_NONE && M->epi_of[root] != gi) { seen[root] = 1; return; }
  if (is_matmul(g, root)) return; /* its own product: the accumulator */
  const kg_gnode *n = &g->nodes.v[root];
  for (int j = 0; j < value_operands(n); j++) values_reached(g, M, gi, n->in[j], seen, visit);
}

/* Where a row group's values are read: a frame is the shape a DAG is evaluated against
 * (the space for a reduction's input or a row output; the keepdim or squeezed result for an
 * epilogue) and which of its dims the rows keep (their coordinates are the row's). */
typedef struct frame {
  const kg_shape *shape;
  int64_t kept; /* bit d: dim d is a kept dim of the rows */
} frame;

static bool is_one(const kg_dim *d) { return d->kind == KG_DIM_STATIC && d->v == 1; }

/* A RESHAPE that only removes or inserts dims of static size 1 (squeeze, unsqueeze, a
 * flatten or view of size-1 dims): the dims of other sizes stay, in order. */
static bool squeeze_view(const kg_graph *g, uint32_t id) {
  const kg_gnode *n = &g->nodes.v[id];
  if (n->op != KG_OP_RESHAPE || n->vkind != KG_V_TENSOR) return false;
  const kg_shape *a = &n->shape, *b = &g->nodes.v[n->in[0]].shape;
  int i = 0, j = 0;
  for (;;) {
    while (i < a->rank && is_one(&a->d[i])) i++;
    while (j < b->rank && is_one(&b->d[j])) j++;
    if (i == a->rank || j == b->rank) return i == a->rank && j == b->rank;
    if (a->d[i].kind != b->d[j].kind || a->d[i].v != b->d[j].v) return false;
    i++, j++;
  }
}

/* Does a value of shape v, read in frame fr (right-aligned, as broadcasting reads it), put
 * its dims of sizes other than 1 exactly on the frame's kept dims of sizes other than 1?
 * Then it holds one value per row, at the row's coordinates: a squeeze view of the group's
 * reductions lines up with the rows (mean(-1, keepdim).squeeze(-1) as a squeezed epilogue,
 * a global pool's [N, C, 1, 1] flattened to [N, C]). */
static bool lines_up(const kg_shape *v, const frame *fr) {
  const kg_shape *f = fr->shape;
  int off = f->rank - v->rank, d = 0;
  for (int j = 0; j < v->rank; j++) {
    if (is_one(&v->d[j])) continue;
    int at = j + off;
    if (at < 0) return false;
    for (; d < at; d++) /* a kept dim of the frame skipped: the value lacks it */
      if (((fr->kept >> d) & 1) && !is_one(&f->d[d])) return false;
    if (!((fr->kept >> at) & 1) || f->d[at].kind != v->d[j].kind || f->d[at].v != v->d[j].v) return false;
    d = at + 1;
  }
  for (; d < f->rank; d++)
    if (((fr->kept >> d) & 1) && !is_one(&f->d[d])) return false;
  return true;
}

/* A squeeze view that lines up in frame fr (NULL: none does). Below it, its operand is read
 * at the same row's coordinates, so what it reads is read as the view's own value is;
 * a second view below one is treated as any layout op. */
static bool row_view(const kg_graph *g, uint32_t id, const frame *fr) {
  return fr && squeeze_view(g, id) && lines_up(&g->nodes.v[id].shape, fr);
}

/* Does `root` read a reduction through a layout op (a view, cat, an index: a value at other
 * coordinates)? A row kernel holds each reduction's value for its own row only, so such a
 * value must come from memory — unless the layout op is a squeeze view lining up with the
 * rows in frame fr (row_view). visit: bit 1 plain, 2 under a layout op, 4 below a row view. */
static bool layout_over_reduction(const kg_graph *g, uint32_t root, bool under, const frame *fr, uint8_t *visit) {
  uint8_t bit = under ? 2 : fr ? 1 : 4;
  if (visit[root] & bit) return false;
  visit[root] |= bit;
  if (is_reduce(g, root)) return under;
  if (is_matmul(g, root)) return false; /* a product's value comes from memory; its operands are its own kernel's */
  const kg_gnode *n = &g->nodes.v[root];
  if (!under && row_view(g, root, fr)) return layout_over_reduction(g, n->in[0], false, NULL, visit);
  bool lay = under || (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT);
  for (int j = 0; j < n->n_in; j++)
    if (layout_over_reduction(g, n->in[j], lay, fr, visit)) return true;
  return false;
}

/* Does `root` compute a layout op before reaching a reduction? (An epilogue's values are
 * evaluated against its own shape's coordinates, the row's kept ones; a squeeze view lining
 * up with the rows in frame fr maps them onto its operand's, other layout ops are left to
 * pointwise kernels.) */
static bool has_layout(const kg_graph *g, uint32_t root, const frame *fr, uint8_t *visit) {
  uint8_t bit = fr ? 1 : 2;
  if (visit[root] & bit) return false;
  visit[root] |= bit;
  if (is_reduce(g, root) || is_matmul(g, root)) return false;
  const kg_gnode *n = &g->nodes.v[root];
  if (row_view(g, root, fr)) return has_layout(g, n->in[0], NULL, visit);
  if (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT) return true;
  for (int j = 0; j < n->n_in; j++)
    if (has_layout(g, n->in[j], fr, visit)) return true;
  return false;
}

/* A row output reads each of the group's reductions per row, which is right only when the
 * reduction's value lines up with the rows: keepdim, or only leading dims reduced (its squeezed
 * result then right-aligns with the kept dims). x / x.mean(1) on [A, B] without keepdim
 * broadcasts the [A] means along the columns instead (found by kgen fuzz, seed 741): such an
 * output is a pointwise kernel reading the reduction from memory. */
static bool rows_line_up(const kg_graph *g, const kg_group *grp, const uint8_t *seen) {
  int r = grp->space.rank;
  for (uint32_t j = 0; j < grp->reds.n; j++) {
    const kg_gnode *R = &g->nodes.v[grp->reds.v[j]];
    if (!seen[grp->reds.v[j]] || R->shape.rank == r) continue;
    int k = r - R->shape.rank; /* dims squeezed away: they must be the leading k */
    if (k < 0 || k >= 63 || R->ia[0] != (((int64_t)1 << k) - 1)) return false;
  }
  return true;
}

/* The keepdim-free output shape of the reductions of a group, and its keepdim form. */
static bool epilogue_shape(const kg_graph *g, const kg_group *grp, const kg_shape *s) {
  const kg_gnode *r = &g->nodes.v[grp->red];
  int64_t mask = r->ia[0];
  kg_shape keep = grp->space, squeeze;
  memset(&squeeze, 0, sizeof squeeze);
  for (int d = 0; d < grp->space.rank; d++) {
    if ((mask >> d) & 1) keep.d[d] = (kg_dim){KG_DIM_STATIC, 1};
    else squeeze.d[squeeze.rank++] = grp->space.d[d];
  }
  return kg_shape_equal(s, &keep) || kg_shape_equal(s, &squeeze);
}

/* The frame an output of shape s of row group grp is read in: the space (a row output) or
 * the keepdim result, whose kept dims are the rows'; the squeezed result, all of whose dims
 * are. NULL for any other shape (a pointwise kernel's). */
static const frame *output_frame(const kg_graph *g, const kg_group *grp, const kg_shape *s, frame *fr) {
  int64_t mask = g->nodes.v[grp->red].ia[0], all = ((int64_t)1 << s->rank) - 1;
  fr->shape = s;
  if (kg_shape_equal(s, &grp->space) || (s->rank == grp->space.rank && epilogue_shape(g, grp, s))) fr->kept = all & ~mask;
  else if (epilogue_shape(g, grp, s)) fr->kept = all;
  else return NULL;
  return fr;
}

/* Row statistics into the product (kg_group.pre, kg_schedule_row_stats): reductions of a row
 * group with nothing else to do (no row outputs, no epilogues) whose values every reader reaches
 * only on the way into one product's A — the group's reductions' own walks aside — become that
 * product's, computed by its kernel for its tile's rows before its K loop; the row group is gone
 * (dead[gi]; removed after step 3):
 *   rms = x.pow(2).mean(-1, keepdim); linear(x * rsqrt(rms + eps) * w, W)   ⇒  group0 MATMUL, pre {rms}
 * `users` is the graph's users in CSR form (uoff, uses). */
static bool only_in_prologue(const kg_graph *g, const kg_group *R, uint32_t r, uint32_t mm, const uint32_t *uoff, const uint32_t *uses,
                             uint8_t *in_u, uint32_t *stack) {
  const kg_gnode *P = &g->nodes.v[mm];
  uint32_t sp = 0;
  stack[sp++] = r, in_u[r] = 1;
  bool ok = true;
  while (sp && ok) {
    uint32_t u = stack[--sp];
    for (uint32_t o = 0; o < g->outputs.n && ok; o++) ok = g->outputs.v[o] != u;
    for (uint32_t e = uoff[u]; e < uoff[u + 1] && ok; e++) {
      uint32_t w = uses[e];
      if (w == mm) { /* A only: not B */
        ok = P->in[0] == u && P->in[1] != u;
        continue;
      }
      bool sib = false;
      for (uint32_t j = 0; j < R->reds.n && !sib; j++) sib = R->reds.v[j] == w && w > r;
      if (sib) continue; /* a later reduction of the group reads it per row: computed after it */
      const kg_gnode *n = &g->nodes.v[w];
      uint32_t fl = kg_op_get((kg_op)n->op)->flags;
      if ((fl & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL | KG_OPF_LAYOUT)) || is_matmul(g, w) || n->vkind != KG_V_TENSOR) { ok = false; continue; }
      if (!in_u[w]) in_u[w] = 1, stack[sp++] = w;
    }
  }
  return ok;
}

static bool first_use(const kg_gnode *n, int j) { /* x * x: one use */
  for (int q = 0; q < j; q++)
    if (n->in[q] == n->in[j]) return false;
  return true;
}

static void row_stats(const kg_graph *g, kg_fusion *f, uint32_t *group_of, uint8_t *dead, bool symbolic_rows) {
  uint32_t nn = g->nodes.n;
  uint32_t *uoff = kg_xcalloc(nn + 2, sizeof *uoff), *fill = kg_xcalloc(nn + 1, sizeof *fill), ne = 0;
  for (uint32_t i = 0; i < nn; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < n->n_in; j++)
      if (first_use(n, j)) uoff[n->in[j] + 1]++, ne++;
  }
  for (uint32_t i = 0; i < nn; i++) uoff[i + 1] += uoff[i];
  uint32_t *uses = kg_xmalloc((ne + 1) * sizeof *uses);
  for (uint32_t i = 0; i < nn; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < n->n_in; j++)
      if (first_use(n, j)) uses[uoff[n->in[j]] + fill[n->in[j]]++] = i;
  }
  uint8_t *in_u = kg_xcalloc(nn + 1, 1);
  uint32_t *stack = kg_xmalloc((nn + 1) * sizeof *stack);
  for (uint32_t pi = 0; pi < f->groups.n; pi++) {
    kg_group *P = &f->groups.v[pi];
    if (P->kind != KG_GROUP_MATMUL) continue;
    const kg_gnode *mm = &g->nodes.v[P->red];
    if (mm->ia[0] & (1 | 8)) continue;
    const kg_shape *as = &g->nodes.v[mm->in[0]].shape;
    int64_t rows = 1, k = as->d[as->rank - 1].kind == KG_DIM_STATIC ? as->d[as->rank - 1].v : -1;
    for (int d = 0; d + 1 < as->rank && rows >= 0; d++) rows = as->d[d].kind == KG_DIM_STATIC ? rows * as->d[d].v : -1;
    if (symbolic_rows) rows = rows < 0 ? 1 : rows, k = k < 0 ? 0 : k; /* symbolic: the few-rows plan's, checked per run */
    if (!kg_schedule_row_stats(rows, k)) continue;
    for (uint32_t ri = 0; ri < pi; ri++) {
      kg_group *R = &f->groups.v[ri];
      if (dead[ri] || R->kind != KG_GROUP_REDUCE || R->outs.n || R->epi.n || R->reds.n + P->pre.n > KG_MM_ROW_STATS) continue;
      bool ok = true;
      memset(in_u, 0, nn + 1);
      for (uint32_t j = 0; j < R->reds.n && ok; j++)
        ok = kg_mm_row_stat_ok(g, mm, R->reds.v[j]) && only_in_prologue(g, R, R->reds.v[j], P->red, uoff, uses, in_u, stack);
      if (!ok) continue;
      for (uint32_t j = 0; j < R->reds.n; j++) {
        KG_VEC_PUSH(P->pre, R->reds.v[j]);
        group_of[R->reds.v[j]] = pi;
      }
      dead[ri] = 1;
    }
  }
  free(uoff), free(uses), free(fill), free(in_u), free(stack);
}

void kg_pass_fuse(const kg_graph *g, kg_fusion *f, bool split_rows, kg_pass_ctx *c) {
  memset(f, 0, sizeof *f);
  uint32_t nn = g->nodes.n;
  uint32_t *group_of = kg_xmalloc((nn + 1) * sizeof *group_of); /* reduction → its group */
  for (uint32_t i = 0; i < nn; i++) group_of[i] = KG_NONE;
  uint8_t *seen = kg_xcalloc(nn + 1, 1), *visit = kg_xcalloc(nn + 1, 1);
  mmctx M;
  mm_init(g, &M);
  uint8_t *wst = window_stores(g, &M);
  /* 1. row groups of reductions, a group per matrix product, and one per stored window, in node order */
  for (uint32_t i = 0; i < nn; i++) {
    if (wst && wst[i]) {
      kg_group grp;
      memset(&grp, 0, sizeof grp);
      grp.kind = KG_GROUP_POINTWISE;
      grp.space = g->nodes.v[i].shape;
      KG_VEC_PUSH(grp.mats, i);
      KG_VEC_PUSH(f->groups, grp);
      group_of[i] = f->groups.n - 1; /* what reads it reads it after this group (mm_epilogue_sets' gdep) */
      continue;
    }
    if (M.on && is_matmul(g, i)) {
      if (!M.valued[i]) continue; /* only its shape is read (zeros_like): no kernel */
      kg_group grp;
      memset(&grp, 0, sizeof grp);
      grp.kind = g->nodes.v[i].op == KG_OP_ATTN ? KG_GROUP_ATTN : KG_GROUP_MATMUL;
      grp.red = i;
      grp.space = g->nodes.v[i].shape;
      KG_VEC_PUSH(grp.reds, i);
      KG_VEC_PUSH(f->groups, grp);
      group_of[i] = f->groups.n - 1;
      continue;
    }
    if (!is_reduce(g, i)) continue;
    const kg_gnode *r = &g->nodes.v[i];
    if (!is_red_only(g, i)) { /* a scan: a group of its own */
      kg_group grp;
      memset(&grp, 0, sizeof grp);
      grp.kind = KG_GROUP_SCAN;
      grp.red = i;
      grp.space = g->nodes.v[r->in[0]].shape;
      KG_VEC_PUSH(grp.reds, i);
      KG_VEC_PUSH(f->groups, grp);
      group_of[i] = f->groups.n - 1;
      continue;
    }
    const kg_shape *s = &g->nodes.v[r->in[0]].shape;
    kg_group *last = NULL;
    for (uint32_t k = f->groups.n; k-- > 0;)
      if (f->groups.v[k].kind != KG_GROUP_POINTWISE || f->groups.v[k].mats.n) { last = &f->groups.v[k]; break; }
    if (last && (last->kind == KG_GROUP_SCAN || last->kind == KG_GROUP_POINTWISE || product_group(last->kind)))
      last = NULL; /* a scan, a product or a stored window runs between: start a new group */
    /* the split-rows plan keeps a mean and its Welford variance together: a split of the pair
     * reads the row once for both (kg_group_welford_pair) */
    const kg_gnode *lm = last && last->kind == KG_GROUP_REDUCE && last->reds.n == 1 ? &g->nodes.v[last->reds.v[0]] : NULL;
    bool pair = split_rows && lm && lm->op == KG_OP_RMEAN && r->op == KG_OP_RVAR && lm->in[0] == r->in[0] && lm->cdtype == r->cdtype &&
                kg_dtype_is_float((kg_dtype)r->cdtype);
    if (split_rows && lm && lm->op == KG_OP_RAMAX) { /* and a max with the sum of exp online softmax takes along */
      KG_VEC_PUSH(last->reds, i);
      pair = kg_group_online_pair(g, last);
      last->reds.n--;
    }
    bool join = (!split_rows || pair) && last && kg_shape_equal(&last->space, s) && g->nodes.v[last->red].ia[0] == r->ia[0];
    if (join) {
      frame fr = {s, (((int64_t)1 << s->rank) - 1) & ~r->ia[0]};
      memset(visit, 0, nn + 1);
      join = !layout_over_reduction(g, r->in[0], false, &fr, visit);
    }
    if (join) { /* the group's reductions it reads are read per row: they must line up with the
                   rows as a row output's must ((x - x.mean(1)).sum(1) on a square x reads the
                   means along the columns; found by a kgen fuzz case, issue 13) */
      memset(seen, 0, nn + 1), memset(visit, 0, nn + 1);
      reductions_reached(g, r->in[0], seen, visit);
      join = rows_line_up(g, last, seen);
    }
    if (join) { /* every reduction it reads must be in this group or an earlier one: it is, as the last group runs last */
      KG_VEC_PUSH(last->reds, i);
      if (kg_schedule_accepts(g, last)) {
        group_of[i] = (uint32_t)(last - f->groups.v);
        continue;
      }
      last->reds.n--; /* the schedule cannot take it: a group of its own */
    }
    kg_group grp;
    memset(&grp, 0, sizeof grp);
    grp.kind = KG_GROUP_REDUCE;
    grp.red = i;
    grp.space = *s;
    KG_VEC_PUSH(grp.reds, i);
    KG_VEC_PUSH(f->groups, grp);
    group_of[i] = f->groups.n - 1;
  }
  if (M.on) mm_epilogue_sets(g, f, group_of, &M);
  /* 2. outputs: reductions themselves, row outputs and epilogues of a row group, a product's
   * epilogue, or pointwise groups */
  for (uint32_t o = 0; o < g->outputs.n; o++) {
    uint32_t node = g->outputs.v[o];
    const kg_gnode *n = &g->nodes.v[node];
    bool dup = false;
    for (uint32_t q = 0; q < o; q++) dup |= g->outputs.v[q] == node;
    if ((is_reduce(g, node) || (wst && wst[node])) && !dup) continue; /* stored by its own group */
    if (M.on && M.epi_of[node] != KG_NONE) { /* the product's epilogue stores it */
      kg_group *grp = &f->groups.v[M.epi_of[node]];
      if (grp->outs.n + grp->mats.n < KG_MM_OUTPUTS_MAX) {
        KG_VEC_PUSH(grp->outs, o);
        if (kg_schedule_accepts(g, grp)) continue;
        grp->outs.n--;
      }
    }
    kg_shape s = n->shape;
    if (n->vkind == KG_V_SCALAR) s.rank = 0;
    /* the latest row group whose reductions it reads */
    memset(seen, 0, nn + 1), memset(visit, 0, nn + 1);
    reductions_reached(g, node, seen, visit);
    uint32_t gl = KG_NONE;
    for (uint32_t i = 0; i < nn; i++)
      if (seen[i] && (gl == KG_NONE || group_of[i] > gl)) gl = group_of[i];
    bool later = M.on && M.gdep[node] != KG_NONE && M.gdep[node] != gl; /* reads a product run after gl */
    memset(visit, 0, nn + 1);
    frame ofr;
    const frame *fr = gl != KG_NONE && f->groups.v[gl].kind == KG_GROUP_REDUCE ? output_frame(g, &f->groups.v[gl], &s, &ofr) : NULL;
    if (gl != KG_NONE && !later && !is_reduce(g, node) && f->groups.v[gl].kind == KG_GROUP_REDUCE && !layout_over_reduction(g, node, false, fr, visit)) {
      kg_group *grp = &f->groups.v[gl];
      if (kg_shape_equal(&s, &grp->space) && n->vkind == KG_V_TENSOR && !split_rows && rows_line_up(g, grp, seen)) {
        KG_VEC_PUSH(grp->outs, o);
        if (kg_schedule_accepts(g, grp)) continue;
        grp->outs.n--; /* past the row kernel's capacity: a pointwise kernel reads the reductions instead */
      }
      /* an epilogue in keepdim form lines up with the rows; a squeezed one reads its sources
       * right-aligned against the kept dims (its own shape: passes/lower_reduce.c), so it may
       * read other tensors and other groups' reductions too (sum(1) + b: one kernel) */
      memset(visit, 0, nn + 1);
      if (epilogue_shape(g, grp, &s) && n->vkind == KG_V_TENSOR && !has_layout(g, node, fr, visit)) {
        KG_VEC_PUSH(grp->epi, o);
        if (kg_schedule_accepts(g, grp)) continue;
        grp->epi.n--;
      }
    }
    uint32_t gi = KG_NONE;
    for (uint32_t i = 0; i < f->groups.n && gi == KG_NONE; i++)
      if (f->groups.v[i].kind == KG_GROUP_POINTWISE && kg_shape_equal(&f->groups.v[i].space, &s)) {
        KG_VEC_PUSH(f->groups.v[i].outs, o);
        if (kg_schedule_accepts(g, &f->groups.v[i])) gi = i;
        else f->groups.v[i].outs.n--; /* full: another kernel of the same shape */
      }
    if (gi == KG_NONE) {
      kg_group grp;
      memset(&grp, 0, sizeof grp);
      grp.kind = KG_GROUP_POINTWISE;
      grp.space = s;
      KG_VEC_PUSH(grp.outs, o);
      KG_VEC_PUSH(f->groups, grp);
    }
  }
  /* 2b. a norm's statistics into the product that alone reads them (row_stats) */
  uint8_t *dead = kg_xcalloc(f->groups.n + 1, 1);
  if (M.on && !split_rows) row_stats(g, f, group_of, dead, c && c->merge_symbolic);
  /* 3. materialize what crosses kernels: a reduction read by another group, or returned; every scan */
  uint8_t *mat = kg_xcalloc(nn + 1, 1);
  for (uint32_t o = 0; o < g->outputs.n; o++)
    if (is_reduce(g, g->outputs.v[o])) mat[g->outputs.v[o]] = 1;
  for (uint32_t i = 0; i < nn; i++)
    if ((is_reduce(g, i) && !is_red_only(g, i)) || (wst && wst[i])) mat[i] = 1;
  for (uint32_t gi = 0; gi < f->groups.n; gi++) {
    const kg_group *grp = &f->groups.v[gi];
    if (dead[gi]) continue;
    memset(seen, 0, nn + 1), memset(visit, 0, nn + 1);
    if (M.on) {
      for (uint32_t j = 0; j < grp->pre.n; j++) values_reached(g, &M, gi, g->nodes.v[grp->pre.v[j]].in[0], seen, visit);
      for (uint32_t j = 0; j < grp->outs.n; j++) values_reached(g, &M, gi, g->outputs.v[grp->outs.v[j]], seen, visit);
      for (uint32_t j = 0; j < grp->epi.n; j++) values_reached(g, &M, gi, g->outputs.v[grp->epi.v[j]], seen, visit);
      for (uint32_t j = 0; j < grp->mats.n && grp->kind == KG_GROUP_POINTWISE; j++) values_reached(g, &M, gi, grp->mats.v[j], seen, visit);
      for (uint32_t j = 0; j < grp->reds.n; j++) {
        const kg_gnode *rn = &g->nodes.v[grp->reds.v[j]];
        for (int q = 0; q < (grp->kind == KG_GROUP_ATTN ? rn->n_in : grp->kind == KG_GROUP_MATMUL ? 2 : 1); q++) values_reached(g, &M, gi, rn->in[q], seen, visit);
      }
      /* a product's epilogue set computes in its store whatever it reads: another product's
       * value among them (SwiGLU's silu(gate) * up, found by the GenAI Llama MLP) comes from
       * memory, so its kernel must store it */
      if (product_group(grp->kind))
        for (uint32_t i = 0; i < nn; i++) {
          if (M.epi_of[i] != gi || !M.valued[i] || is_matmul(g, i)) continue;
          const kg_gnode *en = &g->nodes.v[i];
          for (int q = 0; q < value_operands(en); q++) values_reached(g, &M, gi, en->in[q], seen, visit);
        }
      for (uint32_t i = 0; i < nn; i++)
        if (seen[i] && (M.epi_of[i] != KG_NONE ? M.epi_of[i] != gi : group_of[i] != gi)) mat[i] = 1;
      continue;
    }
    for (uint32_t j = 0; j < grp->outs.n; j++) reductions_reached(g, g->outputs.v[grp->outs.v[j]], seen, visit);
    for (uint32_t j = 0; j < grp->epi.n; j++) reductions_reached(g, g->outputs.v[grp->epi.v[j]], seen, visit);
    for (uint32_t j = 0; j < grp->reds.n; j++) reductions_reached(g, g->nodes.v[grp->reds.v[j]].in[0], seen, visit);
    for (uint32_t i = 0; i < nn; i++)
      if (seen[i] && group_of[i] != gi) mat[i] = 1;
  }
  for (uint32_t i = 0; i < nn; i++) {
    if (!mat[i]) continue;
    kg_bufref b = {KG_BUF_TEMP, 0};
    for (uint32_t o = 0; o < g->outputs.n; o++)
      if (g->outputs.v[o] == i) { b.kind = KG_BUF_OUTPUT, b.index = o; break; }
    if (b.kind == KG_BUF_TEMP) {
      b.index = f->temps.n;
      KG_VEC_PUSH(f->temps, i);
    }
    KG_VEC_PUSH(f->mat, i);
    KG_VEC_PUSH(f->mat_buf, b);
    if (M.on && M.epi_of[i] != KG_NONE) KG_VEC_PUSH(f->groups.v[M.epi_of[i]].mats, i); /* its product's kernel stores it */
  }
  /* the row groups whose statistics went into products */
  uint32_t kept = 0;
  for (uint32_t gi = 0; gi < f->groups.n; gi++) {
    if (!dead[gi]) {
      f->groups.v[kept++] = f->groups.v[gi];
      continue;
    }
    kg_group *grp = &f->groups.v[gi];
    KG_VEC_FREE(grp->outs), KG_VEC_FREE(grp->reds), KG_VEC_FREE(grp->epi), KG_VEC_FREE(grp->mats), KG_VEC_FREE(grp->pre);
  }
  f->groups.n = kept;
  mm_free(&M);
  free(mat), free(seen), free(visit), free(group_of), free(wst), free(dead);
}

void kg_fusion_free(kg_fusion *f) {
  for (uint32_t i = 0; i < f->groups.n; i++) {
    KG_VEC_FREE(f->groups.v[i].outs);
    KG_VEC_FREE(f->groups.v[i].reds);
    KG_VEC_FREE(f->groups.v[i].epi);
    KG_VEC_FREE(f->groups.v[i].mats);
    KG_VEC_FREE(f->groups.v[i].pre);
  }
  KG_VEC_FREE(f->groups);
  KG_VEC_FREE(f->mat);
  KG_VEC_FREE(f->mat_buf);
  KG_VEC_FREE(f->temps);
}

void kg_fusion_print(const kg_graph *g, const kg_fusion *f, kg_strbuf *o) {
  for (uint32_t i = 0; i < f->groups.n; i++) {
    const kg_group *grp = &f->groups.v[i];
    if (grp->kind == KG_GROUP_SCAN) {
      uint32_t mi = kg_fusion_mat_index(f, grp->red);
      kg_sb_printf(o, "group %u: scan %%%u=%s over ", i, grp->red, kg_op_name((kg_op)g->nodes.v[grp->red].op));
      kg_shape_print(g, &grp->space, o);
      if (mi != KG_NONE) kg_sb_printf(o, " -> %s%u", f->mat_buf.v[mi].kind == KG_BUF_OUTPUT ? "out" : "temp", f->mat_buf.v[mi].index);
      kg_sb_putc(o, '\n');
      continue;
    }
    if (product_group(grp->kind)) {
      kg_sb_printf(o, "group %u: %s %%%u over ", i, grp->kind == KG_GROUP_ATTN ? "attention" : "matmul", grp->red);
      kg_shape_print(g, &grp->space, o);
      for (uint32_t j = 0; j < grp->pre.n; j++) kg_sb_printf(o, "%s %%%u=%s", j ? "" : "; row statistics", grp->pre.v[j], kg_op_name((kg_op)g->nodes.v[grp->pre.v[j]].op));
      for (uint32_t j = 0; j < grp->outs.n; j++) kg_sb_printf(o, "%s out%u=%%%u", j ? "" : "; epilogue", grp->outs.v[j], g->outputs.v[grp->outs.v[j]]);
      for (uint32_t j = 0; j < grp->mats.n; j++) {
        uint32_t mi = kg_fusion_mat_index(f, grp->mats.v[j]);
        kg_sb_printf(o, "%s %%%u->%s%u", j ? "" : "; stores", grp->mats.v[j], f->mat_buf.v[mi].kind == KG_BUF_OUTPUT ? "out" : "temp", f->mat_buf.v[mi].index);
      }
      kg_sb_putc(o, '\n');
      continue;
    }
    if (grp->kind == KG_GROUP_REDUCE) {
      kg_sb_printf(o, "group %u: rows of ", i);
      kg_shape_print(g, &grp->space, o);
      kg_sb_puts(o, " reducing");
      for (uint32_t j = 0; j < grp->reds.n; j++) {
        uint32_t rn = grp->reds.v[j], mi = kg_fusion_mat_index(f, rn);
        kg_sb_printf(o, " %%%u=%s", rn, kg_op_name((kg_op)g->nodes.v[rn].op));
        if (mi != KG_NONE) kg_sb_printf(o, "->%s%u", f->mat_buf.v[mi].kind == KG_BUF_OUTPUT ? "out" : "temp", f->mat_buf.v[mi].index);
      }
      for (uint32_t j = 0; j < grp->outs.n; j++) kg_sb_printf(o, "%s out%u=%%%u", j ? "" : "; row outputs", grp->outs.v[j], g->outputs.v[grp->outs.v[j]]);
      for (uint32_t j = 0; j < grp->epi.n; j++) kg_sb_printf(o, "%s out%u=%%%u", j ? "" : "; epilogue", grp->epi.v[j], g->outputs.v[grp->epi.v[j]]);
      kg_sb_putc(o, '\n');
      continue;
    }
    kg_sb_printf(o, "group %u: pointwise over ", i);
    kg_shape_print(g, &grp->space, o);
    if (grp->outs.n) kg_sb_puts(o, " -> outputs");
    for (uint32_t j = 0; j < grp->outs.n; j++)
      kg_sb_printf(o, " out%u=%%%u", grp->outs.v[j], g->outputs.v[grp->outs.v[j]]);
    for (uint32_t j = 0; j < grp->mats.n; j++) {
      uint32_t mi = kg_fusion_mat_index(f, grp->mats.v[j]);
      kg_sb_printf(o, "%s %%%u=%s->%s%u", j ? "" : (grp->outs.n ? ";" : " stores"), grp->mats.v[j], kg_op_name((kg_op)g->nodes.v[grp->mats.v[j]].op),
                   f->mat_buf.v[mi].kind == KG_BUF_OUTPUT ? "out" : "temp", f->mat_buf.v[mi].index);
    }
    kg_sb_putc(o, '\n');
  }
}
