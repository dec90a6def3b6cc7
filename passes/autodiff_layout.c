/* passes/autodiff_layout.c — the adjoints of the layout ops (views, slices, joins, indexing,
 * windows). A layout op reads its operand at mapped coordinates; its adjoint sends each element of
 * the gradient back to the coordinate it was read from, summing where several read one element:
 *   reshape, permute, flip, roll, pixel_shuffle: the inverse map (a view again: nothing copied);
 *   expand, repeat: sums over the copies; slice, select: UNSLICE (zeros outside the slice, a
 *   layout op: the next kernel reads it in place); cat: a slice per input; tril / triu: the same
 *   mask; constant pad: the crop (a PAD of the negated pads); reflect / replicate / circular pad:
 *   PAD_GRAD (every padded position that read an element adds its gradient);
 *   index_select / embedding / gather (PyTorch's index_add / scatter_add): for every element of
 *   the operand the sum of the gradients of the positions that read it, as a compare-and-sum over
 *   the index positions (deterministic; its cost is |operand| · |index| / |operand's indexed dim|
 *   multiply-adds, fine for the vocabularies of the examples, not for a 50k-token embedding);
 *   pooling and resampling: POOL_GRAD / UPSAMPLE_GRAD (passes/lower_adjoint.c: each input element
 *   sums the gradients of the windows or outputs that read it; max pooling only through each
 *   window's own maximum, as PyTorch's indices);
 *   random draws, factories, arange: no gradient; bernoulli: zeros for its probabilities. */
#include <string.h>

#include "autodiff.h"

static uint32_t layout(kg_ad *A, kg_op op, uint32_t x, uint32_t x1, const kg_shape *sh, int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  int64_t ia[4] = {a0, a1, a2, a3};
  return kg_gb_layout(&A->b, op, x, x1, sh, ia, NULL);
}

static bool static_dim(const kg_dim *d) { return d->kind == KG_DIM_STATIC; }

/* gradient of an indexed read of x (INDEX along dim d by idx, or GATHER along d): for each x
 * coordinate the sum over the index positions that read it */
static void index_grad(kg_ad *A, uint32_t v, const kg_gnode *n, uint32_t g) {
  kg_gb *b = &A->b;
  uint32_t x = n->in[0], idx = n->in[1];
  const kg_shape xs = kg_ad_n(A, x)->shape, is = kg_ad_n(A, idx)->shape;
  kg_dtype ct = (kg_dtype)kg_ad_n(A, g)->dtype;
  int d = (int)n->ia[0], r = xs.rank, ri = is.rank;
  kg_dim V = xs.d[d];
  uint32_t ii = kg_gb_cast(b, idx, KG_I64);
  kg_shape big; /* INDEX: x[:d] + [V] + I + x[d+1:];  GATHER: x[:d] + [V] + [J] + x[d+1:] */
  memset(&big, 0, sizeof big);
  kg_shape gsh, ish; /* g and the index viewed in `big`'s frame (a 1 at V) */
  memset(&gsh, 0, sizeof gsh), memset(&ish, 0, sizeof ish);
  int64_t mask = 0;
  if (n->op == KG_OP_INDEX) {
    if (r + ri > KG_MAX_RANK) {
      kg_ad_fail(A, v, "the gradient of an index of rank %d by an index of rank %d (more than %d dims)", r, ri, KG_MAX_RANK);
      return;
    }
    for (int i = 0; i < d; i++) big.d[big.rank++] = xs.d[i], ish.d[ish.rank++] = (kg_dim){KG_DIM_STATIC, 1};
    big.d[big.rank++] = V, ish.d[ish.rank++] = (kg_dim){KG_DIM_STATIC, 1};
    for (int i = 0; i < ri; i++) mask |= (int64_t)1 << big.rank, big.d[big.rank++] = is.d[i], ish.d[ish.rank++] = is.d[i];
    for (int i = d + 1; i < r; i++) big.d[big.rank++] = xs.d[i], ish.d[ish.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  } else {
    if (r + 1 > KG_MAX_RANK) {
      kg_ad_fail(A, v, "the gradient of a gather of rank %d", r);
      return;
    }
    for (int i = 0; i < r; i++) {
      if (i == d) {
        big.d[big.rank++] = V, ish.d[ish.rank++] = (kg_dim){KG_DIM_STATIC, 1};
        mask |= (int64_t)1 << big.rank, big.d[big.rank++] = is.d[i], ish.d[ish.rank++] = is.d[i];
      } else {
        kg_shape a1 = {1, {xs.d[i]}}, b1 = {1, {is.d[i]}};
        if (!kg_shape_equal(&a1, &b1)) {
          kg_ad_fail(A, v, "the gradient of a gather whose index is smaller than its input along dim %d", i);
          return;
        }
        big.d[big.rank++] = xs.d[i], ish.d[ish.rank++] = is.d[i];
      }
    }
  }
  gsh = ish;
  for (int i = 0; i < big.rank; i++)
    if (!((mask >> i) & 1) && !(n->op == KG_OP_INDEX && i == d) && !(n->op == KG_OP_GATHER && i == d)) gsh.d[i] = big.d[i];
  uint32_t iv = kg_gb_reshape(b, ii, &ish);
  /* the positions along V: arange viewed [V, 1, ...] right-aligned in big's frame; an index
   * counts from the end when negative: position p is index p or p - V, and p - V = -(V - 1 - p)
   * - 1 where V - 1 - p is the flipped arange (V may be a symbol) */
  uint32_t pos = kg_gb_arange(b, KG_I64, V);
  kg_shape ps = kg_gb_n(b, pos)->shape;
  int64_t fl[4] = {1, 0, 0, 0};
  uint32_t back = kg_gb_layout(b, KG_OP_FLIP, pos, KG_NONE, &ps, fl, NULL);
  kg_shape cs = ps;
  for (int i = d + 1; i < big.rank; i++) cs.d[cs.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  pos = kg_gb_reshape(b, pos, &cs), back = kg_gb_reshape(b, back, &cs);
  uint32_t neg = kg_gb_2(b, KG_OP_SUB, KG_I64, kg_gb_1(b, KG_OP_NEG, KG_I64, iv), kg_gb_const(b, KG_I64, 1));
  uint32_t hit = kg_gb_2(b, KG_OP_LOR, KG_BOOL, kg_gb_2(b, KG_OP_EQ, KG_I64, pos, iv), kg_gb_2(b, KG_OP_EQ, KG_I64, back, neg));
  uint32_t gv = kg_gb_reshape(b, g, &gsh);
  uint32_t sel = kg_gb_where(b, ct, hit, gv, kg_gb_const(b, ct, 0));
  sel = kg_gb_expand(b, sel, &big);
  uint32_t s = kg_gb_reduce(b, KG_OP_RSUM, ct, KG_F64, sel, mask, false, 0);
  kg_ad_acc(A, x, s);
}

bool kg_ad_rule_layout(kg_ad *A, uint32_t v, uint32_t gid) {
  const kg_gnode n = *kg_ad_n(A, v);
  if (!(kg_op_get((kg_op)n.op)->flags & KG_OPF_LAYOUT)) return false;
  kg_gb *b = &A->b;
  uint32_t x = n.n_in ? n.in[0] : KG_NONE;
  const kg_shape xs = x != KG_NONE ? kg_ad_n(A, x)->shape : n.shape, os = n.shape;
  uint32_t g = gid;
  switch ((kg_op)n.op) {
  case KG_OP_RESHAPE: kg_ad_acc(A, x, kg_gb_reshape(b, g, &xs)); break;
  case KG_OP_PERMUTE: {
    int64_t inv = 0;
    for (int i = 0; i < os.rank; i++) inv |= (int64_t)i << (4 * ((n.ia[0] >> (4 * i)) & 15));
    kg_ad_acc(A, x, layout(A, KG_OP_PERMUTE, g, KG_NONE, &xs, inv, 0, 0, 0));
    break;
  }
  case KG_OP_EXPAND: kg_ad_acc(A, x, g); break; /* kg_ad_acc sums over the expanded dims */
  case KG_OP_SLICE: kg_ad_acc(A, x, layout(A, KG_OP_UNSLICE, g, KG_NONE, &xs, n.ia[0], n.ia[1], n.ia[2], 0)); break;
  case KG_OP_SELECT: {
    kg_shape s = xs;
    s.d[n.ia[0]] = (kg_dim){KG_DIM_STATIC, 1};
    kg_ad_acc(A, x, layout(A, KG_OP_UNSLICE, kg_gb_reshape(b, g, &s), KG_NONE, &xs, n.ia[0], n.ia[1], 1, 0));
    break;
  }
  case KG_OP_FLIP: kg_ad_acc(A, x, layout(A, KG_OP_FLIP, g, KG_NONE, &xs, n.ia[0], 0, 0, 0)); break;
  case KG_OP_ROLL: {
    const kg_dim *sz = &xs.d[n.ia[0]];
    if (!static_dim(sz)) {
      kg_ad_fail(A, v, "the gradient of roll along a dim of symbolic size");
      break;
    }
    kg_ad_acc(A, x, layout(A, KG_OP_ROLL, g, KG_NONE, &xs, n.ia[0], (sz->v - n.ia[1]) % (sz->v ? sz->v : 1), 0, 0));
    break;
  }
  case KG_OP_REPEAT: { /* g viewed [lead..., r0, x0, r1, x1, ...], summed over the copies */
    int lead = os.rank - xs.rank;
    if (lead + 2 * xs.rank > KG_MAX_RANK) {
      kg_ad_fail(A, v, "the gradient of repeat over %d dims (more than %d after splitting each)", os.rank, KG_MAX_RANK / 2);
      break;
    }
    kg_shape s;
    memset(&s, 0, sizeof s);
    int64_t mask = 0;
    for (int i = 0; i < lead; i++) mask |= (int64_t)1 << s.rank, s.d[s.rank++] = os.d[i];
    for (int i = 0; i < xs.rank; i++) {
      const kg_dim *o = &os.d[lead + i], *xd = &xs.d[i];
      int64_t rep;
      if (static_dim(o) && static_dim(xd)) rep = xd->v ? o->v / xd->v : 1;
      else if (o->kind == xd->kind && o->v == xd->v) rep = 1;
      else {
        kg_ad_fail(A, v, "the gradient of repeat of a dim of symbolic size");
        return true;
      }
      mask |= (int64_t)1 << s.rank, s.d[s.rank++] = (kg_dim){KG_DIM_STATIC, rep};
      s.d[s.rank++] = *xd;
    }
    kg_dtype dt = (kg_dtype)kg_ad_n(A, g)->dtype;
    uint32_t t = kg_gb_reduce(b, KG_OP_RSUM, dt, KG_F64, kg_gb_reshape(b, g, &s), mask, false, 0);
    kg_ad_acc(A, x, kg_gb_reshape(b, t, &xs));
    break;
  }
  case KG_OP_CAT: {
    int d = (int)n.ia[0];
    int64_t off = 0;
    for (int i = 0; i < n.n_in; i++) {
      const kg_shape is = kg_ad_n(A, n.in[i])->shape;
      if (A->rg[n.in[i]]) kg_ad_acc(A, n.in[i], layout(A, KG_OP_SLICE, g, KG_NONE, &is, d, off, 1, 0));
      if (!static_dim(&is.d[d]) && i + 1 < n.n_in) {
        kg_ad_fail(A, v, "the gradient of cat after an input of symbolic size along the joined dim");
        break;
      }
      off += is.d[d].v;
    }
    break;
  }
  case KG_OP_TRIL: kg_ad_acc(A, x, layout(A, KG_OP_TRIL, g, KG_NONE, &xs, n.ia[0], n.ia[1], 0, 0)); break;
  case KG_OP_INDEX:
  case KG_OP_GATHER: index_grad(A, v, &n, kg_gb_cast(b, g, kg_gb_ct((kg_dtype)n.dtype))); break;
  case KG_OP_PIXEL_SHUFFLE: kg_ad_acc(A, x, layout(A, KG_OP_PIXEL_SHUFFLE, g, KG_NONE, &xs, n.ia[0], !n.ia[1], 0, 0)); break;
  case KG_OP_PAD:
    if (n.ia[0] != 0) { /* reflect, replicate, circular: several padded positions read one element */
      kg_gnode p = n;
      p.op = KG_OP_PAD_GRAD, p.in[0] = g, p.shape = xs;
      p.dtype = p.cdtype = kg_ad_n(A, g)->dtype;
      kg_ad_acc(A, x, kg_gb_add(b, &p));
    } else { /* the crop: a constant pad by the negated pads */
      int64_t ia[4] = {0, 0, 0, n.ia[3]};
      for (int j = 0; j < n.ia[3]; j++) {
        int d = os.rank - 1 - j;
        kg_pad_set_left(ia, d, -kg_pad_left(n.ia, d));
      }
      kg_ad_acc(A, x, kg_gb_layout(b, KG_OP_PAD, g, KG_NONE, &xs, ia, NULL));
    }
    break;
  case KG_OP_POOL: {
    int kind = (int)((n.ia[2] >> 2) & 3);
    bool mx = kind == 0 || kind == 3;
    kg_gnode p = n;
    p.op = KG_OP_POOL_GRAD, p.n_in = mx ? 2 : 1, p.in[0] = g, p.in[1] = x, p.shape = xs;
    p.dtype = p.cdtype = kg_ad_n(A, g)->dtype;
    kg_ad_acc(A, x, kg_gb_add(b, &p));
    break;
  }
  case KG_OP_UPSAMPLE: {
    kg_gnode p = n;
    p.op = KG_OP_UPSAMPLE_GRAD, p.n_in = 1, p.in[0] = g, p.shape = xs;
    p.dtype = p.cdtype = kg_ad_n(A, g)->dtype;
    kg_ad_acc(A, x, kg_gb_add(b, &p));
    break;
  }
  case KG_OP_BERNOULLI: kg_ad_zero(A, x); break;
  case KG_OP_IM2COL: kg_ad_fail(A, v, "the gradient of IM2COL outside a convolution"); break;
  default: return false;
  }
  return true;
}
