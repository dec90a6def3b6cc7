/* passes/attention.c — the attention a forward writes out by hand, recognized in the lowering
 * program and compiled to the fused attention kernel (passes/lower_attn.c), as
 * scaled_dot_product_attention is:
 *
 *   s = q @ k.transpose(-2, -1)                 MATMUL (k read transposed, or through a PERMUTE)
 *   x = f(s)                                    any pointwise score function of s's shape: a scale,
 *                                               an additive mask, masked_fill(mask, -inf), a
 *                                               causal bias sliced from a buffer (ModestGpt), ...
 *   p = softmax(x, -1) [.to(dtype)] [* dropout] decompose's amax / exp / sum / div, casts, a
 *                                               dropout mask (RAND) of p's shape
 *   o = p @ v                                   MATMUL
 *
 * becomes o = ATTN(q, k, v, x, s') with s' = ATTN_SCORES(q, k) (s rewritten in place): the kernel
 * evaluates f at each (b, i, j) of a key block with s' standing for the dot product it just
 * computed (ia[0] & 16: "the scores are in[3]"; & 32: in[1] is kᵀ, [.., E, S]; & 8: the dropout
 * mask is the last operand). The twin keeps the user's ops (this runs after decompose), so the
 * check compares the fused kernel with the three-kernel original's PyTorch ops.
 *
 * Only when nothing else reads the intermediates (attention weights that are also returned, as
 * NasBert's need_weights path, keep the three kernels), the softmax is over the last dim, f
 * reads s only at its own coordinates (no layout op between s and x), and the head dims are
 * static and within the kernel's limits (frontend/attention.c's). Runs on the lowering program
 * before fold_products; `no_fold` (force_variant 2 and 5) turns it off, so those runs check the
 * unfused kernels. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct actx {
  kg_graph *g;
  uint32_t *uses;
} actx;

static const kg_gnode *N(actx *A, uint32_t i) { return &A->g->nodes.v[i]; }
static bool one_use(actx *A, uint32_t i) { return A->uses[i] == 1; }

/* CASTs to float dtypes with a single use, peeled */
static uint32_t peel_casts(actx *A, uint32_t i) {
  while (N(A, i)->op == KG_OP_CAST && kg_dtype_is_float((kg_dtype)N(A, i)->dtype) && one_use(A, i) &&
         kg_dtype_is_float((kg_dtype)N(A, N(A, i)->in[0])->dtype))
    i = N(A, i)->in[0];
  return i;
}

static bool last_dim_keep(const kg_gnode *r, int rank) { return r->ia[0] == ((int64_t)1 << (rank - 1)) && r->ia[1] == 1; }

/* the scores product reached from x through pointwise nodes of x's shape only; KG_NONE when
 * there is not exactly one, or a layout op lies between it and x */
static void find_scores(actx *A, uint32_t i, const kg_shape *sh, uint8_t *seen, uint32_t *found, bool *bad) {
  if (seen[i] || *bad) return;
  seen[i] = 1;
  const kg_gnode *n = N(A, i);
  unsigned fl = kg_op_get((kg_op)n->op)->flags;
  if (n->op == KG_OP_MATMUL) {
    if (n->vkind == KG_V_TENSOR && kg_shape_equal(&n->shape, sh) && !(n->ia[0] & ~(int64_t)4) && *found == KG_NONE) *found = i;
    else *bad = true;
    return;
  }
  if (n->vkind == KG_V_SCALAR || (fl & (KG_OPF_LEAF | KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL | KG_OPF_LAYOUT | KG_OPF_COMPOSITE))) return;
  for (int j = 0; j < (n->op == KG_OP_FULL ? 1 : n->n_in); j++) find_scores(A, n->in[j], sh, seen, found, bad);
}

/* does `i` reach `target` through a layout op (a read at other coordinates)? */
static bool layout_reaches(actx *A, uint32_t i, uint32_t target, bool under, uint8_t *seen) {
  if (i == target) return under;
  if (seen[i] & (under ? 2 : 1)) return false;
  seen[i] |= under ? 2 : 1;
  const kg_gnode *n = N(A, i);
  unsigned fl = kg_op_get((kg_op)n->op)->flags;
  if (fl & (KG_OPF_LEAF | KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL)) return false;
  bool u = under || (fl & KG_OPF_LAYOUT);
  for (int j = 0; j < n->n_in; j++)
    if (layout_reaches(A, n->in[j], target, u, seen)) return true;
  return false;
}

static bool head_ok(const kg_dim *d, kg_dtype dt) {
  return d->kind == KG_DIM_STATIC && d->v >= 1 && d->v <= (dt == KG_F64 ? 128 : 256);
}

/* one final product o = p @ v: rewritten when it is a recognized attention */
static bool try_rewrite(actx *A, uint32_t o) {
  kg_graph *g = A->g;
  const kg_gnode *on = N(A, o);
  if (on->op != KG_OP_MATMUL || on->ia[0] != 0 || !kg_dtype_is_float((kg_dtype)on->dtype) || on->shape.rank < 2) return false;
  int r = on->shape.rank;
  uint32_t p = peel_casts(A, on->in[0]), drop = KG_NONE, v = on->in[1];
  if (!one_use(A, on->in[0])) return false;
  if (N(A, p)->op == KG_OP_MUL && one_use(A, p)) { /* dropout of the probabilities */
    for (int s = 0; s < 2 && drop == KG_NONE; s++) {
      const kg_gnode *m = N(A, N(A, p)->in[s]);
      if (m->op == KG_OP_RAND && m->ia[1] == 2 && kg_shape_equal(&m->shape, &N(A, p)->shape)) {
        drop = N(A, p)->in[s];
        p = peel_casts(A, N(A, p)->in[1 - s]);
      }
    }
    if (drop == KG_NONE) return false;
    if (!one_use(A, p)) return false;
  }
  /* p = e / sum(e), e = exp(x - amax(x)) over the last dim */
  const kg_gnode *dv = N(A, p);
  if (dv->op != KG_OP_DIV || dv->shape.rank != r || !one_use(A, p)) return false;
  uint32_t e = dv->in[0], su = dv->in[1];
  const kg_gnode *en = N(A, e), *sn = N(A, su);
  if (en->op != KG_OP_EXP || sn->op != KG_OP_RSUM || sn->in[0] != e || !last_dim_keep(sn, r) || A->uses[e] != 2 || !one_use(A, su)) return false;
  uint32_t xm = en->in[0];
  const kg_gnode *xn = N(A, xm);
  if (xn->op != KG_OP_SUB || !one_use(A, xm)) return false;
  uint32_t x = xn->in[0], mx = xn->in[1];
  const kg_gnode *mn = N(A, mx);
  if (mn->op != KG_OP_RAMAX || mn->in[0] != x || !last_dim_keep(mn, r) || !one_use(A, mx) || A->uses[x] != 2) return false;
  if (!kg_shape_equal(&N(A, x)->shape, &dv->shape)) return false;
  /* the scores product inside x */
  uint8_t *seen = kg_xcalloc(g->nodes.n + 1, 1);
  uint32_t sc = KG_NONE;
  bool bad = false;
  find_scores(A, x, &N(A, x)->shape, seen, &sc, &bad);
  if (!bad && sc != KG_NONE) {
    memset(seen, 0, g->nodes.n + 1);
    bad = layout_reaches(A, x, sc, false, seen) || !one_use(A, sc);
  }
  free(seen);
  if (bad || sc == KG_NONE) return false;
  const kg_gnode *sn2 = N(A, sc);
  uint32_t q = sn2->in[0], b = sn2->in[1], k = b;
  int64_t flags = 16 | (drop != KG_NONE ? 8 : 0);
  if (!(sn2->ia[0] & 4)) { /* b = kᵀ: k through a PERMUTE of its last two dims, else read transposed */
    const kg_gnode *bn = N(A, b);
    int rb = bn->shape.rank;
    int64_t swap = 0;
    for (int d = 0; d < rb; d++) swap |= (int64_t)(d == rb - 1 ? rb - 2 : d == rb - 2 ? rb - 1 : d) << (4 * d);
    if (bn->op == KG_OP_PERMUTE && bn->ia[0] == swap) k = bn->in[0];
    else flags |= 32;
  }
  const kg_gnode *qn = N(A, q), *kn = N(A, k), *vn = N(A, v);
  kg_dtype dt = (kg_dtype)on->dtype;
  if (qn->shape.rank < 2 || kn->shape.rank < 2 || vn->shape.rank < 2 || !head_ok(&qn->shape.d[qn->shape.rank - 1], dt) ||
      !head_ok(&on->shape.d[r - 1], dt))
    return false;
  /* rewrite: s in place into the scores placeholder, o in place into the attention */
  g->nodes.v[sc].op = KG_OP_ATTN_SCORES;
  kg_gnode *at = &g->nodes.v[o];
  at->op = KG_OP_ATTN;
  at->in[0] = q, at->in[1] = k, at->in[2] = v, at->in[3] = x, at->in[4] = sc;
  at->n_in = 5;
  if (drop != KG_NONE) at->in[at->n_in++] = drop;
  at->ia[0] = flags, at->ia[1] = 1;
  at->fa[0] = 1;
  at->cdtype = (uint8_t)kg_dtype_opmath(dt);
  return true;
}

bool kg_pass_attention(kg_graph *g, kg_pass_ctx *c) {
  if (c->no_fold || c->no_attn) return false;
  actx A = {g, kg_graph_use_counts(g)};
  bool changed = false;
  for (uint32_t i = 0; i < g->nodes.n; i++) changed |= try_rewrite(&A, i);
  free(A.uses);
  return changed;
}
