/* passes/decompose_loss.c — the loss functions (ops.def's training block) expanded into the ops
 * kernels are built from, for passes/decompose.c (the twin calls PyTorch's own loss, so a mistake
 * here cannot hide in both sides of the cross-check). Computed in float32 for float16 / bfloat16
 * and rounded once; sums and means accumulate in float64.
 *
 * Class losses (cross_entropy, nll_loss) over x [N, C, d...] (class dim k = 1; 0 for a 1-D x):
 * every value is a reduction over the class dim, so log_softmax and nll are ONE row kernel —
 *   m = amax_k(x)   s = sum_k(exp(x - m))   lse = m + log s          (cross_entropy; nll: lse = 0)
 *   pick = sum_k(where(c == t, x, 0))       (the target's logit: a compare-and-sum, no gather)
 *   nll = lse - pick,  each = where(t != ignore_index, w[t] nll, 0)
 * label smoothing ε adds (ε / C) · where(kept, lse · Σw - Σ_k w x, 0) to (1 - ε) · each (Σw over
 * the classes; unweighted Σw = C); probabilities p (with ε: p (1 - ε) + ε / C) give
 *   each = lse · Σ_k(w p) - Σ_k(w p x)
 * and mean divides the sum by Σ kept w[t] (class indices: PyTorch's nll_loss) or by N·d...
 * (probabilities). The pointwise losses are their formulas (ops.def) and a sum or mean over
 * every element.
 */
#include <math.h>
#include <string.h>

#include "gbuild.h"

/* the reduction of per-element losses `each` (dtype ct) to the node's result of dtype dt */
static uint32_t reduce_all(kg_gb *b, uint32_t each, int64_t red, kg_dtype ct, kg_dtype dt) {
  const kg_gnode *e = kg_gb_n(b, each);
  int r = e->shape.rank;
  int64_t all = r ? (((int64_t)1 << r) - 1) : 0;
  uint32_t v = each;
  if (r == 0) return kg_gb_cast(b, v, dt); /* one element: its own mean and sum */
  if (red == 1) v = kg_gb_reduce(b, KG_OP_RMEAN, ct, KG_F64, each, all, false, 0);
  else if (red == 2) v = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, each, all, false, 0);
  return kg_gb_cast(b, v, dt);
}

/* the shape of x with dim k of size 1 */
static kg_shape keep_dim1(const kg_shape *x, int k) {
  kg_shape s = *x;
  s.d[k] = (kg_dim){KG_DIM_STATIC, 1};
  return s;
}

/* the shape of x without dim k */
static kg_shape drop_dim(const kg_shape *x, int k) {
  kg_shape s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < x->rank; i++)
    if (i != k) s.d[s.rank++] = x->d[i];
  return s;
}

/* a [C] vector v (weights, class ids) viewed along dim k of rank-r values: [C, 1, ...] */
static uint32_t along(kg_gb *b, uint32_t v, int k, int r) {
  kg_shape s = kg_gb_n(b, v)->shape;
  for (int i = k + 1; i < r; i++) s.d[s.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  return kg_gb_reshape(b, v, &s);
}

static uint32_t class_loss(kg_gb *b, const kg_gnode *n, const uint32_t *in) {
  kg_dtype dt = (kg_dtype)n->dtype, ct = kg_gb_ct(dt);
  const kg_shape xs = kg_gb_n(b, in[0])->shape;
  int r = xs.rank, k = r == 1 ? 0 : 1;
  int64_t km = (int64_t)1 << k, red = n->ia[0];
  bool weighted = n->ia[1] & 1, probs = n->ia[1] & 2, ce = n->op == KG_OP_CROSS_ENTROPY;
  double eps = ce ? n->fa[0] : 0;
  kg_dim C = xs.d[k];
  uint32_t x = kg_gb_cast(b, in[0], ct);
  /* class weights: PyTorch differentiates them with class probabilities only (nll_loss's are not) */
  uint32_t w = weighted ? along(b, probs ? kg_gb_cast(b, in[2], ct) : kg_gb_detach(b, in[2], ct), k, r) : KG_NONE;
  /* lse = m + log sum exp(x - m) over the class dim (keepdim); 0 for nll_loss */
  uint32_t lse = KG_NONE;
  if (ce) {
    uint32_t m = kg_gb_reduce(b, KG_OP_RAMAX, ct, ct, x, km, true, 0);
    b->g->nodes.v[m].ia[2] = 1; /* log_softmax's own max: an empty dim is no error (decompose.c) */
    uint32_t s = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, kg_gb_1(b, KG_OP_EXP, ct, kg_gb_2(b, KG_OP_SUB, ct, x, m)), km, true, 0);
    lse = kg_gb_2(b, KG_OP_ADD, ct, m, kg_gb_1(b, KG_OP_LOG, ct, s));
  }
  double cnum = C.kind == KG_DIM_STATIC ? (double)C.v : 0; /* a symbolic C: counted below */
  uint32_t csize = KG_NONE;                              /* C as a value of ct */
  if (ce && (eps > 0 || probs)) {
    if (C.kind == KG_DIM_STATIC) csize = kg_gb_const(b, ct, cnum);
    else { /* the count of the class dim: a sum of ones over it (a sibling in the row kernel) */
      uint32_t one = kg_gb_expand(b, kg_gb_const(b, ct, 1), &xs);
      csize = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, one, km, true, 0);
    }
  }
  kg_shape ks = keep_dim1(&xs, k);
  uint32_t each;
  uint32_t denom = KG_NONE; /* mean: the divisor of the sum (class indices) */
  if (probs) {
    uint32_t p = kg_gb_cast(b, in[1], ct);
    if (eps > 0)
      p = kg_gb_2(b, KG_OP_ADD, ct, kg_gb_2(b, KG_OP_MUL, ct, p, kg_gb_const(b, ct, 1 - eps)), kg_gb_2(b, KG_OP_DIV, ct, kg_gb_const(b, ct, eps), csize));
    uint32_t wp = w != KG_NONE ? kg_gb_2(b, KG_OP_MUL, ct, p, w) : p;
    uint32_t swpx = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, kg_gb_2(b, KG_OP_MUL, ct, wp, x), km, true, 0);
    uint32_t swp = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, wp, km, true, 0);
    each = kg_gb_2(b, KG_OP_SUB, ct, kg_gb_2(b, KG_OP_MUL, ct, lse, swp), swpx);
  } else {
    /* the target viewed along the class dim: [N, 1, d...] */
    uint32_t t = kg_gb_reshape(b, in[1], &ks);
    uint32_t cls = along(b, kg_gb_arange(b, KG_I64, C), k, r);
    uint32_t hit = kg_gb_2(b, KG_OP_EQ, KG_I64, cls, t);
    uint32_t pick = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, kg_gb_where(b, ct, hit, x, kg_gb_const(b, ct, 0)), km, true, 0);
    uint32_t nll = lse != KG_NONE ? kg_gb_2(b, KG_OP_SUB, ct, lse, pick) : kg_gb_1(b, KG_OP_NEG, ct, pick);
    uint32_t kept = kg_gb_2(b, KG_OP_NE, KG_I64, t, kg_gb_const(b, KG_I64, (double)n->ia[2]));
    uint32_t wt = KG_NONE; /* w[t] */
    if (weighted) {
      int64_t ia[4] = {0, 1, 0, 0};
      wt = kg_gb_layout(b, KG_OP_INDEX, kg_gb_detach(b, in[2], ct), t, &ks, ia, NULL);
    }
    uint32_t zero = kg_gb_const(b, ct, 0);
    each = kg_gb_where(b, ct, kept, wt != KG_NONE ? kg_gb_2(b, KG_OP_MUL, ct, wt, nll) : nll, zero);
    if (eps > 0) {
      /* -Σ_c w_c lp_c = lse Σw - Σ w x */
      uint32_t sw, swx;
      if (w != KG_NONE) {
        sw = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, kg_gb_expand(b, w, &xs), km, true, 0);
        swx = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, kg_gb_2(b, KG_OP_MUL, ct, w, x), km, true, 0);
      } else {
        sw = csize;
        swx = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, x, km, true, 0);
      }
      uint32_t smooth = kg_gb_where(b, ct, kept, kg_gb_2(b, KG_OP_SUB, ct, kg_gb_2(b, KG_OP_MUL, ct, lse, sw), swx), zero);
      each = kg_gb_2(b, KG_OP_ADD, ct, kg_gb_2(b, KG_OP_MUL, ct, each, kg_gb_const(b, ct, 1 - eps)),
                     kg_gb_2(b, KG_OP_MUL, ct, smooth, kg_gb_2(b, KG_OP_DIV, ct, kg_gb_const(b, ct, eps), csize)));
    }
    if (red == 1) /* nll_loss's mean: over the weights of the kept targets */
      denom = kg_gb_where(b, ct, kept, wt != KG_NONE ? wt : kg_gb_const(b, ct, 1), zero);
  }
  /* drop the class dim: [N, d...] (a 1-D input: 0-dim) */
  kg_shape es = drop_dim(&xs, k);
  each = kg_gb_reshape(b, each, &es);
  if (denom == KG_NONE) return reduce_all(b, each, red, ct, dt);
  denom = kg_gb_reshape(b, denom, &es);
  if (es.rank == 0) return kg_gb_cast(b, kg_gb_2(b, KG_OP_DIV, ct, each, denom), dt);
  int64_t all = es.rank ? (((int64_t)1 << es.rank) - 1) : 0;
  uint32_t num = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, each, all, false, 0);
  uint32_t den = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, denom, all, false, 0);
  return kg_gb_cast(b, kg_gb_2(b, KG_OP_DIV, ct, num, den), dt);
}

/* the pointwise losses: per element, then reduced */
static uint32_t pointwise_loss(kg_gb *b, const kg_gnode *n, const uint32_t *in) {
  kg_dtype dt = (kg_dtype)n->dtype, ct = kg_gb_ct(dt);
  uint32_t x = kg_gb_cast(b, in[0], ct), t = kg_gb_cast(b, in[1], ct), e;
  uint32_t zero = kg_gb_const(b, ct, 0);
  switch (n->op) {
  case KG_OP_MSE_LOSS: {
    uint32_t d = kg_gb_2(b, KG_OP_SUB, ct, x, t);
    e = kg_gb_2(b, KG_OP_MUL, ct, d, d);
    break;
  }
  case KG_OP_L1_LOSS: e = kg_gb_1(b, KG_OP_ABS, ct, kg_gb_2(b, KG_OP_SUB, ct, x, t)); break;
  case KG_OP_SMOOTH_L1_LOSS:
  case KG_OP_HUBER_LOSS: {
    double a = n->fa[0];
    uint32_t z = kg_gb_1(b, KG_OP_ABS, ct, kg_gb_2(b, KG_OP_SUB, ct, x, t));
    if (n->op == KG_OP_SMOOTH_L1_LOSS && a == 0) {
      e = z;
      break;
    }
    uint32_t ca = kg_gb_const(b, ct, a), half = kg_gb_const(b, ct, 0.5);
    uint32_t sq = kg_gb_2(b, KG_OP_MUL, ct, kg_gb_2(b, KG_OP_MUL, ct, half, z), z);
    uint32_t lin = kg_gb_2(b, KG_OP_SUB, ct, z, kg_gb_const(b, ct, 0.5 * a));
    if (n->op == KG_OP_SMOOTH_L1_LOSS) sq = kg_gb_2(b, KG_OP_DIV, ct, sq, ca);
    else lin = kg_gb_2(b, KG_OP_MUL, ct, ca, lin);
    e = kg_gb_where(b, ct, kg_gb_2(b, KG_OP_LT, ct, z, ca), sq, lin);
    break;
  }
  case KG_OP_BCE_LOSS: {
    /* (t - 1) max(log1p(-x), -100) - t max(log x, -100) */
    uint32_t lo = kg_gb_const(b, ct, -100);
    uint32_t l1 = kg_gb_2(b, KG_OP_MAXIMUM, ct, kg_gb_1(b, KG_OP_LOG1P, ct, kg_gb_1(b, KG_OP_NEG, ct, x)), lo);
    uint32_t l0 = kg_gb_2(b, KG_OP_MAXIMUM, ct, kg_gb_1(b, KG_OP_LOG, ct, x), lo);
    e = kg_gb_2(b, KG_OP_SUB, ct, kg_gb_2(b, KG_OP_MUL, ct, kg_gb_2(b, KG_OP_SUB, ct, t, kg_gb_const(b, ct, 1)), l1), kg_gb_2(b, KG_OP_MUL, ct, t, l0));
    break;
  }
  case KG_OP_BCE_LOGITS_LOSS: {
    /* (1 - t) x + lw (m + log(exp(-m) + exp(-x - m))), m = max(-x, 0), lw = 1 + (pw - 1) t */
    uint32_t m = kg_gb_2(b, KG_OP_CLAMP_MIN, ct, kg_gb_1(b, KG_OP_NEG, ct, x), zero);
    uint32_t sp = kg_gb_2(b, KG_OP_ADD, ct, kg_gb_1(b, KG_OP_LOG, ct,
                                                    kg_gb_2(b, KG_OP_ADD, ct, kg_gb_1(b, KG_OP_EXP, ct, kg_gb_1(b, KG_OP_NEG, ct, m)),
                                                            kg_gb_1(b, KG_OP_EXP, ct, kg_gb_2(b, KG_OP_SUB, ct, kg_gb_1(b, KG_OP_NEG, ct, x), m)))),
                          m);
    if (n->ia[1] & 2) {
      uint32_t pw = kg_gb_detach(b, in[2 + ((n->ia[1] & 1) ? 1 : 0)], ct); /* no gradient in PyTorch */
      uint32_t lw = kg_gb_2(b, KG_OP_ADD, ct, kg_gb_2(b, KG_OP_MUL, ct, kg_gb_2(b, KG_OP_SUB, ct, pw, kg_gb_const(b, ct, 1)), t), kg_gb_const(b, ct, 1));
      sp = kg_gb_2(b, KG_OP_MUL, ct, lw, sp);
    }
    e = kg_gb_2(b, KG_OP_ADD, ct, kg_gb_2(b, KG_OP_MUL, ct, kg_gb_2(b, KG_OP_SUB, ct, kg_gb_const(b, ct, 1), t), x), sp);
    break;
  }
  case KG_OP_KL_DIV:
    if (n->ia[1]) e = kg_gb_2(b, KG_OP_MUL, ct, kg_gb_1(b, KG_OP_EXP, ct, t), kg_gb_2(b, KG_OP_SUB, ct, t, x));
    else e = kg_gb_2(b, KG_OP_SUB, ct, kg_gb_2(b, KG_OP_XLOGY, ct, t, t), kg_gb_2(b, KG_OP_MUL, ct, t, x));
    break;
  default: KG_UNREACHABLE();
  }
  if ((n->op == KG_OP_BCE_LOSS || n->op == KG_OP_BCE_LOGITS_LOSS) && (n->ia[1] & 1)) e = kg_gb_2(b, KG_OP_MUL, ct, e, kg_gb_detach(b, in[2], ct));
  /* PyTorch's output of a broadcast loss has the broadcast shape; a weight of a smaller shape
   * already broadcast in e */
  return reduce_all(b, e, n->ia[0], ct, dt);
}

uint32_t kg_decompose_loss(kg_graph *out, const kg_gnode *n, const uint32_t *in) {
  kg_gb b = {out, n->path, n->srcloc};
  if (n->op == KG_OP_CROSS_ENTROPY || n->op == KG_OP_NLL_LOSS) return class_loss(&b, n, in);
  return pointwise_loss(&b, n, in);
}
