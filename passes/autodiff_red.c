/* passes/autodiff_red.c — the derivatives of reductions, scans, matrix products and
 * convolutions (PyTorch 1.13's formulas):
 *   sum: the gradient broadcast back; mean: over the count; nansum: 0 at the NaNs; prod: the
 *   product of the others (prod_backward, zeros included); amax / amin / max(): spread evenly
 *   over the ties (evenly_distribute_backward); max(dim) / min(dim) values: all of it at the
 *   first index (value_selecting_reduction_backward); var: 2 (x - mean) / (n - correction);
 *   cumsum: the reversed cumsum of the gradient.
 *   matmul: dA = g·Bᵀ, dB = Aᵀ·g as MATMUL nodes whose transposed operand is read in place (B by
 *   the product's transposed-B flag, A through a PERMUTE view); a weight without the batch dims
 *   of its activations (linear over [B, T, K]) gets one product over the folded batch, not a
 *   product per batch summed afterwards; 1-D operands give outer products.
 *   convolution (a MATMUL in convolution geometry over IM2COL, passes/decompose.c): the input's
 *   gradient is a transposed convolution of the output's gradient by the same weight (a CONV
 *   node, itself an implicit GEMM: nothing materialized), the weight's a product over images
 *   and positions (the output gradient and IM2COL regrouped by views); conv_transpose the other
 *   way around. */
#include <string.h>

#include "autodiff.h"

/* g of a reduction's result viewed with the reduced dims kept (size 1) */
static uint32_t keep_dims(kg_ad *A, uint32_t g, const kg_gnode *n, const kg_shape *xs) {
  if (n->ia[1]) return g;
  kg_shape s = *xs;
  for (int d = 0; d < xs->rank; d++)
    if ((n->ia[0] >> d) & 1) s.d[d] = (kg_dim){KG_DIM_STATIC, 1};
  return kg_gb_reshape(&A->b, g, &s);
}

/* arange over dim d of a rank-r shape, viewed [size, 1, ...] (right-aligned against rank r) */
static uint32_t iota_along(kg_ad *A, const kg_shape *xs, int d) {
  uint32_t i = kg_gb_arange(&A->b, KG_I64, xs->d[d]);
  kg_shape s = kg_gb_n(&A->b, i)->shape;
  for (int k = d + 1; k < xs->rank; k++) s.d[s.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  return kg_gb_reshape(&A->b, i, &s);
}

bool kg_ad_rule_reduce(kg_ad *A, uint32_t v, uint32_t gid) {
  const kg_gnode n = *kg_ad_n(A, v);
  if (!(kg_op_get((kg_op)n.op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN))) return false;
  kg_gb *b = &A->b;
  kg_dtype ct = kg_gb_ct((kg_dtype)n.dtype);
  uint32_t xi = n.in[0];
  const kg_shape xs = kg_ad_n(A, xi)->shape;
  uint32_t g = kg_gb_cast(b, gid, ct), x = kg_gb_cast(b, xi, ct);
  uint32_t zero = kg_gb_const(b, ct, 0);
  if (n.op == KG_OP_RCUMSUM) { /* flip(cumsum(flip(g))) along the dim */
    int64_t fl[4] = {n.ia[0], 0, 0, 0};
    uint32_t f = kg_gb_layout(b, KG_OP_FLIP, g, KG_NONE, &xs, fl, NULL);
    kg_gnode s;
    memset(&s, 0, sizeof s);
    s.op = KG_OP_RCUMSUM, s.dtype = (uint8_t)ct, s.cdtype = KG_F64, s.vkind = KG_V_TENSOR, s.n_in = 1, s.in[0] = f, s.ia[0] = n.ia[0], s.shape = xs;
    kg_ad_acc(A, xi, kg_gb_layout(b, KG_OP_FLIP, kg_gb_add(b, &s), KG_NONE, &xs, fl, NULL));
    return true;
  }
  uint32_t gk = keep_dims(A, g, &n, &xs);
  switch ((kg_op)n.op) {
  case KG_OP_RSUM: kg_ad_acc(A, xi, gk); break;
  case KG_OP_RNANSUM: kg_ad_acc(A, xi, kg_gb_where(b, ct, kg_gb_1(b, KG_OP_ISNAN, ct, x), zero, gk)); break;
  case KG_OP_RMEAN: kg_ad_acc(A, xi, kg_gb_2(b, KG_OP_DIV, ct, gk, kg_ad_count(A, &xs, n.ia[0], ct))); break;
  case KG_OP_RPROD: {
    /* x != 0: g · out / x; x == 0: g · (the product of the others: the non-zeros' product when x
     * is the only zero, else 0) */
    uint32_t out = keep_dims(A, kg_gb_cast(b, v, ct), &n, &xs);
    uint32_t isz = kg_gb_2(b, KG_OP_EQ, ct, x, zero);
    uint32_t nzp = kg_gb_reduce(b, KG_OP_RPROD, ct, ct, kg_gb_where(b, ct, isz, kg_gb_const(b, ct, 1), x), n.ia[0], true, 0);
    uint32_t nz = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, kg_gb_cast(b, isz, ct), n.ia[0], true, 0);
    uint32_t others = kg_gb_where(b, ct, kg_gb_2(b, KG_OP_EQ, ct, nz, kg_gb_const(b, ct, 1)), nzp, zero);
    kg_ad_acc(A, xi, kg_gb_2(b, KG_OP_MUL, ct, gk, kg_gb_where(b, ct, isz, others, kg_gb_2(b, KG_OP_DIV, ct, out, x))));
    break;
  }
  case KG_OP_RAMAX:
  case KG_OP_RAMIN:
    if (n.ia[3] == 1) { /* the values of max(dim) / min(dim): all of it at the first index */
      int d = 0;
      while (d < xs.rank && !((n.ia[0] >> d) & 1)) d++;
      uint32_t idx = kg_gb_reduce(b, n.op == KG_OP_RAMAX ? KG_OP_RARGMAX : KG_OP_RARGMIN, KG_I64, n.cdtype, xi, n.ia[0], true, 0);
      uint32_t hit = kg_gb_2(b, KG_OP_EQ, KG_I64, iota_along(A, &xs, d), idx);
      kg_ad_acc(A, xi, kg_gb_where(b, ct, hit, gk, zero));
    } else { /* spread evenly over the elements equal to the result: (g / count) · mask */
      uint32_t out = keep_dims(A, kg_gb_cast(b, v, ct), &n, &xs);
      uint32_t hit = kg_gb_cast(b, kg_gb_2(b, KG_OP_EQ, ct, x, out), ct);
      uint32_t cnt = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, hit, n.ia[0], true, 0);
      kg_ad_acc(A, xi, kg_gb_2(b, KG_OP_MUL, ct, kg_gb_2(b, KG_OP_DIV, ct, gk, cnt), hit));
    }
    break;
  case KG_OP_RVAR: { /* 2 (x - mean) / (n - correction); the forward's own keepdim mean of x when it has one
                     * (layer_norm's, batch_norm's: saved, not a second walk over the rows) */
    uint32_t mean = KG_NONE;
    for (uint32_t i = 0; i < A->nf && mean == KG_NONE; i++) {
      const kg_gnode *q = kg_ad_n(A, i);
      if (q->op == KG_OP_RMEAN && q->in[0] == xi && q->ia[0] == n.ia[0] && q->ia[1] && q->dtype == ct) mean = i;
    }
    if (mean == KG_NONE) mean = kg_gb_reduce(b, KG_OP_RMEAN, ct, KG_F64, x, n.ia[0], true, 0);
    uint32_t den = kg_gb_2(b, KG_OP_SUB, ct, kg_ad_count(A, &xs, n.ia[0], ct), kg_gb_const(b, ct, n.fa[0]));
    uint32_t t = kg_gb_2(b, KG_OP_DIV, ct, kg_gb_2(b, KG_OP_MUL, ct, kg_gb_const(b, ct, 2), kg_gb_2(b, KG_OP_SUB, ct, x, mean)), den);
    kg_ad_acc(A, xi, kg_gb_2(b, KG_OP_MUL, ct, gk, t));
    break;
  }
  default: return false;
  }
  return true;
}

/* ---- products ---- */

/* the product of dims [lo, hi) of s as one dim (a static size or a derived symbol) */
static kg_dim prod_dim(kg_ad *A, const kg_shape *s, int lo, int hi) {
  int64_t coeff = 1;
  uint32_t f[KG_MAX_RANK];
  int nf = 0;
  for (int i = lo; i < hi; i++) {
    if (s->d[i].kind == KG_DIM_STATIC) coeff *= s->d[i].v;
    else if (nf < KG_MAX_RANK) f[nf++] = (uint32_t)s->d[i].v;
  }
  if (!nf) return (kg_dim){KG_DIM_STATIC, coeff};
  return kg_graph_sym_product(A->j, coeff, f, nf);
}

static kg_shape shape_of(int r, const kg_dim *d) {
  kg_shape s;
  memset(&s, 0, sizeof s);
  s.rank = (uint8_t)r;
  for (int i = 0; i < r; i++) s.d[i] = d[i];
  return s;
}

/* x with its last two dims swapped: a PERMUTE view, read in place by the product's loads */
static uint32_t transposed(kg_ad *A, uint32_t x) {
  kg_shape s = kg_ad_n(A, x)->shape;
  int r = s.rank;
  int64_t perm = 0;
  for (int i = 0; i < r; i++) perm |= (int64_t)(i == r - 2 ? r - 1 : i == r - 1 ? r - 2 : i) << (4 * i);
  kg_dim t = s.d[r - 1];
  s.d[r - 1] = s.d[r - 2], s.d[r - 2] = t;
  int64_t ia[4] = {perm, 0, 0, 0};
  return kg_gb_layout(&A->b, KG_OP_PERMUTE, x, KG_NONE, &s, ia, NULL);
}

/* a MATMUL a @ b (flags: ia[0]) of shape sh, dtype dt, accumulator acc */
static uint32_t product(kg_ad *A, kg_dtype dt, kg_dtype acc, uint32_t a, uint32_t c, int64_t flags, const kg_shape *sh) {
  kg_gnode m;
  memset(&m, 0, sizeof m);
  m.op = KG_OP_MATMUL, m.dtype = (uint8_t)dt, m.cdtype = (uint8_t)acc, m.vkind = KG_V_TENSOR, m.n_in = 2;
  m.in[0] = a, m.in[1] = c, m.ia[0] = flags, m.shape = *sh;
  return kg_gb_add(&A->b, &m);
}

/* the permutation node of x putting dim order[i] at i */
static uint32_t permute(kg_ad *A, uint32_t x, const int *order) {
  kg_shape xs = kg_ad_n(A, x)->shape, s = xs;
  int64_t perm = 0;
  for (int i = 0; i < xs.rank; i++) s.d[i] = xs.d[order[i]], perm |= (int64_t)order[i] << (4 * i);
  int64_t ia[4] = {perm, 0, 0, 0};
  return kg_gb_layout(&A->b, KG_OP_PERMUTE, x, KG_NONE, &s, ia, NULL);
}

static void conv_grads(kg_ad *A, uint32_t v, uint32_t g, kg_dtype ct);

bool kg_ad_rule_product(kg_ad *A, uint32_t v, uint32_t gid) {
  const kg_gnode n = *kg_ad_n(A, v);
  if (n.op != KG_OP_MATMUL) return false;
  kg_dtype ct = (kg_dtype)n.dtype, acc = (kg_dtype)n.cdtype;
  uint32_t g = kg_gb_cast(&A->b, gid, ct);
  if (n.ia[0] & 8) {
    conv_grads(A, v, g, ct);
    return true;
  }
  uint32_t a = n.in[0], c = n.in[1];
  const kg_shape as0 = kg_ad_n(A, a)->shape, bs0 = kg_ad_n(A, c)->shape;
  bool a1 = n.ia[0] & 1, b1 = n.ia[0] & 2, bt = n.ia[0] & 4;
  kg_gb *b = &A->b;
  if (a1 && b1) { /* dot: g · b, g · a */
    kg_ad_acc(A, a, kg_gb_2(b, KG_OP_MUL, ct, g, kg_gb_cast(b, c, ct)));
    kg_ad_acc(A, c, kg_gb_2(b, KG_OP_MUL, ct, g, kg_gb_cast(b, a, ct)));
    return true;
  }
  /* a 1-D operand as a matrix: a [K] as [1, K], b [K] as [K, 1]; g with the dim they dropped */
  uint32_t aa = a, bb = c;
  kg_shape os = n.shape;
  if (a1) {
    kg_dim d2[2] = {{KG_DIM_STATIC, 1}, as0.d[0]};
    kg_shape s = shape_of(2, d2);
    aa = kg_gb_reshape(b, a, &s);
    os.d[os.rank] = os.d[os.rank - 1], os.d[os.rank - 1] = (kg_dim){KG_DIM_STATIC, 1}, os.rank++;
  }
  if (b1) {
    kg_dim d2[2] = {bs0.d[0], {KG_DIM_STATIC, 1}};
    kg_shape s = shape_of(2, d2);
    bb = kg_gb_reshape(b, c, &s);
    os.d[os.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  }
  g = kg_gb_reshape(b, g, &os);
  const kg_shape as = kg_ad_n(A, aa)->shape, bs = kg_ad_n(A, bb)->shape;
  int r = os.rank;
  if (A->rg[a]) { /* da = g @ bᵀ: [.., M, K] (b's transpose read in place by the product's flag) */
    kg_shape s = os;
    s.d[r - 1] = as.d[as.rank - 1];
    kg_ad_acc(A, a, product(A, ct, acc, g, bb, bt ? 0 : 4, &s));
  }
  if (A->rg[c]) {
    /* a weight without the batch dims of a (linear over [B, T, K]): those dims folded into M, one
     * product instead of one per batch summed afterwards */
    uint32_t a2 = aa, g2 = g;
    if (bs.rank == 2 && as.rank > 2 && as.rank == r) {
      kg_dim m = prod_dim(A, &os, 0, r - 1);
      kg_dim ad[2] = {m, as.d[as.rank - 1]}, gd[2] = {m, os.d[r - 1]};
      kg_shape sa = shape_of(2, ad), sg = shape_of(2, gd);
      a2 = kg_gb_reshape(b, aa, &sa), g2 = kg_gb_reshape(b, g, &sg);
    }
    const kg_shape ash = kg_ad_n(A, a2)->shape, gsh = kg_ad_n(A, g2)->shape;
    kg_shape s = gsh;
    uint32_t db;
    if (!bt) { /* db = aᵀ @ g: [.., K, N] */
      s.d[s.rank - 2] = ash.d[ash.rank - 1];
      db = product(A, ct, acc, transposed(A, a2), g2, 0, &s);
    } else { /* b stored [.., N, K]: db = gᵀ @ a */
      s.d[s.rank - 2] = gsh.d[gsh.rank - 1], s.d[s.rank - 1] = ash.d[ash.rank - 1];
      db = product(A, ct, acc, transposed(A, g2), a2, 0, &s);
    }
    if (b1) { /* [.., K, 1] → [.., K] */
      kg_shape q = kg_ad_n(A, db)->shape;
      q.rank--;
      db = kg_gb_reshape(b, db, &q);
    }
    kg_ad_acc(A, c, db);
  }
  return true;
}

/* ---- convolutions ---- */

/* The weight w of a convolution product's A operand (decompose.c's views of it): RESHAPE(w), or for
 * a transposed convolution RESHAPE(FLIP(PERMUTE(RESHAPE(w)))); KG_NONE when A is something else. */
static uint32_t conv_weight(kg_ad *A, uint32_t a, bool transposed) {
  const kg_gnode *n = kg_ad_n(A, a);
  if (n->op != KG_OP_RESHAPE) return KG_NONE;
  if (!transposed) return n->in[0];
  const kg_gnode *f = kg_ad_n(A, n->in[0]);
  if (f->op != KG_OP_FLIP) return KG_NONE;
  const kg_gnode *p = kg_ad_n(A, f->in[0]);
  if (p->op != KG_OP_PERMUTE) return KG_NONE;
  const kg_gnode *r = kg_ad_n(A, p->in[0]);
  return r->op == KG_OP_RESHAPE ? r->in[0] : KG_NONE;
}

static void conv_grads(kg_ad *A, uint32_t v, uint32_t g, kg_dtype ct) {
  const kg_gnode n = *kg_ad_n(A, v);
  kg_gb *b = &A->b;
  uint32_t a = n.in[0], col = n.in[1];
  const kg_gnode cn = *kg_ad_n(A, col);
  if (cn.op != KG_OP_IM2COL) {
    kg_ad_fail(A, v, "a convolution product whose input operand is not IM2COL");
    return;
  }
  int64_t G = n.ia[0] >> 8;
  const kg_shape os = n.shape, cs = cn.shape;
  int nd = cs.rank - 3;
  kg_dim N = os.d[0], O = os.d[1], K = cs.d[2];
  kg_dim S = prod_dim(A, &os, 2, os.rank);
  kg_dim NS = prod_dim(A, &(kg_shape){2, {N, S}}, 0, 2);
  kg_dim Og = O.kind == KG_DIM_STATIC ? (kg_dim){KG_DIM_STATIC, O.v / G} : O;
  bool tr = cn.fa[0] != 1 || (nd > 1 && cn.fa[1] != 1); /* a transposed convolution reads its input dilated */
  if (A->rg[a]) {
    /* dA [G, Og, K] = g [G, Og, N·S] @ IM2COL [G, K, N·S]ᵀ */
    kg_dim d4[4] = {N, {KG_DIM_STATIC, G}, Og, S}, c4[4] = {N, {KG_DIM_STATIC, G}, K, S};
    kg_shape s4 = shape_of(4, d4), k4 = shape_of(4, c4);
    static const int order[4] = {1, 2, 0, 3};
    uint32_t gp = permute(A, kg_gb_reshape(b, g, &s4), order);
    uint32_t cp = permute(A, kg_gb_reshape(b, col, &k4), order);
    kg_dim gd[3] = {{KG_DIM_STATIC, G}, Og, NS}, kd[3] = {{KG_DIM_STATIC, G}, K, NS}, od[3] = {{KG_DIM_STATIC, G}, Og, K};
    int off = G == 1 ? 1 : 0; /* one group: [Og, N·S] and [K, N·S], as A is [O, K] */
    kg_shape gs = shape_of(3 - off, gd + off), ks = shape_of(3 - off, kd + off), as = shape_of(3 - off, od + off);
    uint32_t da = product(A, ct, (kg_dtype)n.cdtype, kg_gb_reshape(b, gp, &gs), kg_gb_reshape(b, cp, &ks), 4, &as);
    kg_ad_acc(A, a, kg_gb_reshape(b, da, &kg_ad_n(A, a)->shape));
  }
  uint32_t x = cn.in[0];
  if (!A->rg[x]) return;
  uint32_t w = conv_weight(A, a, tr);
  if (w == KG_NONE) {
    kg_ad_fail(A, v, "the gradient of a convolution's input needs its weight (a view kgen did not make)");
    return;
  }
  /* the convolution that is the adjoint: transposed for a convolution, plain for a transposed one */
  const kg_shape xs = kg_ad_n(A, x)->shape;
  int64_t st[KG_CONV_MAX_DIMS], pd[KG_CONV_MAX_DIMS], dl[KG_CONV_MAX_DIMS], ks[KG_CONV_MAX_DIMS], op[KG_CONV_MAX_DIMS] = {0, 0, 0};
  for (int i = 0; i < nd; i++) {
    st[i] = kg_conv_get(cn.ia[0], i), pd[i] = kg_conv_get(cn.ia[1], i), dl[i] = kg_conv_get(cn.ia[2], i), ks[i] = kg_conv_get(cn.ia[3], i);
    if (tr) st[i] = (int64_t)cn.fa[i], pd[i] = dl[i] * (ks[i] - 1) - pd[i];
    else { /* output_padding making the transposed convolution's size the input's */
      int64_t X = xs.d[2 + i].v, Sd = os.d[2 + i].v;
      op[i] = X - ((Sd - 1) * st[i] - 2 * pd[i] + dl[i] * (ks[i] - 1) + 1);
    }
  }
  kg_gnode cv;
  memset(&cv, 0, sizeof cv);
  cv.op = KG_OP_CONV, cv.dtype = (uint8_t)ct, cv.cdtype = n.cdtype, cv.vkind = KG_V_TENSOR, cv.n_in = 2;
  cv.in[0] = g, cv.in[1] = kg_gb_cast(b, w, ct), cv.shape = xs;
  cv.ia[0] = kg_conv_pack(st, nd), cv.ia[1] = kg_conv_pack(pd, nd), cv.ia[2] = kg_conv_pack(dl, nd);
  cv.ia[3] = kg_conv_ia3(G, nd, 0, !tr, op);
  kg_ad_acc(A, x, kg_gb_add(b, &cv));
}
