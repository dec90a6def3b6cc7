/* frontend/products.c — matrix products: matmul / mm / bmm / mv / dot, linear, addmm and
 * baddbmm elaborated into one MATMUL node (or the composite LINEAR / ADDMM, which the twin
 * calls by name and passes/decompose.c expands into a MATMUL and pointwise ops).
 *
 * PyTorch's shape rules, read off torch 1.13 (the oracle): a 1-D operand of matmul loses
 * its dim in the result ([M, K] @ [K] = [M]); batch dims broadcast ([5, 1, 2, 3] @ [7, 3, 4]
 * = [5, 7, 2, 4]); mm and bmm take exactly 2-D / 3-D operands and do not broadcast; linear is
 * x @ w^T (+ b) with w of rank ≤ 2 and the bias expandable to the folded 2-D result (PyTorch's
 * addmm path); addmm and baddbmm expand their input to the product's shape. Operands must
 * have one dtype (no promotion: PyTorch's "expected scalar type Float but found Double"),
 * bool is rejected as PyTorch's CPU kernels reject it, integers multiply with wrap-around.
 * Every error is PyTorch's message, located at the F# call. A size that is a symbol on one
 * side is checked when the sizes are bound (runtime/exec.c), as for broadcasting.
 *
 *   x.matmul(w) with x: float16[N, 64], w: float16[64, 32]
 *     %2 = MATMUL:float16[N,32](%0, %1) cdtype float32        (accumulates in float32)
 *   torch.nn.functional.linear(x, w, b)  →  %3 = LINEAR:float32[N,32](%0, %1, %2)
 */
#include <stdio.h>
#include <string.h>

#include "frontend.h"

static const char *scalar_type(kg_dtype t) {
  switch (t) {
  case KG_BOOL: return "Bool";
  case KG_U8: return "Byte";
  case KG_I8: return "Char";
  case KG_I16: return "Short";
  case KG_I32: return "Int";
  case KG_I64: return "Long";
  case KG_F16: return "Half";
  case KG_BF16: return "BFloat16";
  case KG_F32: return "Float";
  case KG_F64: return "Double";
  default: return "?";
  }
}

/* The accumulator of a product of dtype t: float32 for half precision (rounded once at the
 * store), int64 for int64, int32 for narrower integers (wrap-around agrees modulo 2^bits). */
static kg_dtype acc_of(kg_dtype t) {
  if (t == KG_F16 || t == KG_BF16) return KG_F32;
  if (kg_dtype_is_int(t)) return t == KG_I64 ? KG_I64 : KG_I32;
  return t;
}

typedef struct pctx {
  kg_elab *el;
  const kg_ast *at;
  char buf[4][160];
} pctx;

static const char *dim_s(pctx *P, int slot, const kg_dim *d) {
  char *b = P->buf[slot];
  if (d->kind == KG_DIM_STATIC) snprintf(b, sizeof P->buf[0], "%lld", (long long)d->v);
  else snprintf(b, sizeof P->buf[0], "%s", P->el->g->syms.v[d->v]);
  return b;
}

/* the product of dims [lo, hi) of s, as text ("10", "N*2") */
static const char *prod_s(pctx *P, int slot, const kg_shape *s, int lo, int hi, const kg_dim *extra) {
  char *b = P->buf[slot];
  int64_t p = 1;
  size_t n = 0;
  b[0] = 0;
  for (int i = lo; i <= hi; i++) {
    const kg_dim *d = i < hi ? &s->d[i] : extra;
    if (!d) continue;
    if (d->kind == KG_DIM_STATIC) p *= d->v;
    else n += (size_t)snprintf(b + n, sizeof P->buf[0] - n, "%s%s", n ? "*" : "", P->el->g->syms.v[d->v]);
    if (n >= sizeof P->buf[0] - 24) break;
  }
  if (!n || p != 1) snprintf(b + n, sizeof P->buf[0] - n, "%s%lld", n ? "*" : "", (long long)p);
  return b;
}

static const char *shape_s(pctx *P, int slot, const kg_shape *s) {
  char *b = P->buf[slot];
  size_t n = (size_t)snprintf(b, sizeof P->buf[0], "[");
  for (int i = 0; i < s->rank && n < sizeof P->buf[0] - 24; i++) {
    char t[64];
    const kg_dim *d = &s->d[i];
    if (d->kind == KG_DIM_STATIC) snprintf(t, sizeof t, "%lld", (long long)d->v);
    else snprintf(t, sizeof t, "%s", P->el->g->syms.v[d->v]);
    n += (size_t)snprintf(b + n, sizeof P->buf[0] - n, "%s%s", i ? ", " : "", t);
  }
  snprintf(b + n, sizeof P->buf[0] - n, "]");
  return b;
}

/* two sizes that must agree: false only when both are static and differ (symbols are
 * checked when the sizes are bound) */
static bool same_dim(const kg_dim *a, const kg_dim *b) {
  return !(a->kind == KG_DIM_STATIC && b->kind == KG_DIM_STATIC && a->v != b->v);
}

#define FAIL(...) (kg_elab_error(P->el, P->at, KG_E_SHAPE, __VA_ARGS__).kind != EV_ERR)

/* PyTorch's expand of `src` to `target` (addmm's input, linear's bias) */
static bool check_expand(pctx *P, const kg_shape *src, const kg_shape *target, kg_dtype dt) {
  if (src->rank > target->rank)
    return FAIL("expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                scalar_type(dt), shape_s(P, 0, src), shape_s(P, 1, target), target->rank, src->rank);
  for (int i = 0; i < src->rank; i++) {
    const kg_dim *s = &src->d[i], *t = &target->d[target->rank - src->rank + i];
    if (s->kind == KG_DIM_STATIC && s->v == 1) continue;
    if (!same_dim(s, t))
      return FAIL("The expanded size of the tensor (%s) must match the existing size (%s) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                  dim_s(P, 0, t), dim_s(P, 1, s), target->rank - src->rank + i, shape_s(P, 2, target), shape_s(P, 3, src));
  }
  return true;
}

static bool dtype_ok(pctx *P, kg_dtype a, kg_dtype b, const char *kernel, bool dot) {
  if (a != b) {
    if (dot) return kg_elab_error(P->el, P->at, KG_E_TYPE, "dot : expected both vectors to have same dtype, but found %s and %s", scalar_type(a), scalar_type(b)).kind != EV_ERR;
    return kg_elab_error(P->el, P->at, KG_E_TYPE, "expected scalar type %s but found %s", scalar_type(a), scalar_type(b)).kind != EV_ERR;
  }
  if (a == KG_BOOL) return kg_elab_error(P->el, P->at, KG_E_TYPE, "\"%s\" not implemented for 'Bool'", kernel).kind != EV_ERR;
  return true;
}

/* the shape of a product and its MATMUL flags; false + a located error when the operands
 * do not multiply under `spelling`'s rules */
static bool product_shape(pctx *P, const kg_gnode *a, const kg_gnode *b, int spelling, kg_shape *out, int64_t *flags) {
  const kg_shape *sa = &a->shape, *sb = &b->shape;
  int ra = sa->rank, rb = sb->rank;
  kg_dtype da = (kg_dtype)a->dtype, db = (kg_dtype)b->dtype;
  memset(out, 0, sizeof *out);
  *flags = 0;
  switch (spelling) {
  case 1: /* mm */
    if (ra != 2) return FAIL("self must be a matrix");
    if (rb != 2) return FAIL("mat2 must be a matrix");
    break;
  case 2: /* bmm */
    if (ra != 3) return FAIL("batch1 must be a 3D tensor");
    if (rb != 3) return FAIL("batch2 must be a 3D tensor");
    if (!same_dim(&sa->d[0], &sb->d[0]) || !same_dim(&sa->d[2], &sb->d[1]))
      return FAIL("Expected size for first two dimensions of batch2 tensor to be: [%s, %s] but got: [%s, %s].", dim_s(P, 0, &sa->d[0]),
                  dim_s(P, 1, &sa->d[2]), dim_s(P, 2, &sb->d[0]), dim_s(P, 3, &sb->d[1]));
    break;
  case 3: /* mv */
    if (ra != 2 || rb != 1) return FAIL("vector + matrix @ vector expected, got 1, %d, %d", ra, rb);
    break;
  case 4: /* dot */
    if (ra != 1 || rb != 1) return FAIL("1D tensors expected, but got %dD and %dD tensors", ra, rb);
    break;
  default:
    if (ra == 0 || rb == 0) return FAIL("both arguments to matmul need to be at least 1D, but they are %dD and %dD", ra, rb);
    break;
  }
  const char *kern = ra == 1 && rb == 1 ? "dot" : rb == 1 ? "addmv_impl_cpu" : spelling == 2 || (ra >= 3 && rb >= 3) ? "bmm" : "addmm_impl_cpu_";
  if (!dtype_ok(P, da, db, kern, spelling == 4)) return false;
  const kg_dim *ka = &sa->d[ra - 1], *kb = &sb->d[rb == 1 ? 0 : rb - 2];
  if (ra == 1 && rb == 1) {
    if (!same_dim(ka, kb))
      return FAIL("inconsistent tensor size, expected tensor [%s] and src [%s] to have the same number of elements, but got %s and %s elements respectively",
                  dim_s(P, 0, ka), dim_s(P, 1, kb), dim_s(P, 2, ka), dim_s(P, 3, kb));
    *flags = 3;
    return true;
  }
  if (rb == 1) { /* [..., M, K] @ [K]: matrix-vector over the folded rows */
    if (!same_dim(ka, kb)) {
      const char *p = prod_s(P, 0, sa, 0, ra - 1, NULL);
      return FAIL("size mismatch, got %s, %sx%s,%s", p, p, dim_s(P, 1, ka), dim_s(P, 2, kb));
    }
    *out = *sa;
    out->rank--;
    *flags = 2;
    return true;
  }
  const kg_dim *n = &sb->d[rb - 1];
  if (ra == 1) { /* [K] @ [..., K, N] */
    if (!same_dim(ka, kb)) {
      if (rb == 2) return FAIL("mat1 and mat2 shapes cannot be multiplied (1x%s and %sx%s)", dim_s(P, 0, ka), dim_s(P, 1, kb), dim_s(P, 2, n));
      const char *p = prod_s(P, 0, sb, 0, rb - 2, n);
      return FAIL("size mismatch, got %s, %sx%s,%s", p, p, dim_s(P, 1, kb), dim_s(P, 2, ka));
    }
    *out = *sb;
    out->d[rb - 2] = *n;
    out->rank--;
    *flags = 1;
    return true;
  }
  /* batch dims: broadcast (matmul) or equal (bmm, checked above) */
  kg_shape ba, bb, bo;
  memset(&ba, 0, sizeof ba), memset(&bb, 0, sizeof bb);
  ba.rank = (uint8_t)(ra - 2), bb.rank = (uint8_t)(rb - 2);
  memcpy(ba.d, sa->d, sizeof(kg_dim) * (size_t)ba.rank);
  memcpy(bb.d, sb->d, sizeof(kg_dim) * (size_t)bb.rank);
  int bad = 0;
  if (!kg_shape_broadcast(&ba, &bb, &bo, &bad, NULL, NULL)) {
    int r = ba.rank > bb.rank ? ba.rank : bb.rank;
    return FAIL("The size of tensor a (%s) must match the size of tensor b (%s) at non-singleton dimension %d", dim_s(P, 0, &ba.d[ba.rank - r + bad]),
                dim_s(P, 1, &bb.d[bb.rank - r + bad]), bad);
  }
  if (!kg_elab_broadcast(P->el, P->at, &ba, &bb, &bo)) return false; /* guards symbol pairs */
  const kg_dim *m = &sa->d[ra - 2];
  if (!same_dim(ka, kb)) {
    if (rb == 2)
      return FAIL("mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", prod_s(P, 0, sa, 0, ra - 1, NULL), dim_s(P, 1, ka), dim_s(P, 2, kb), dim_s(P, 3, n));
    if (ra == 2)
      return FAIL("mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", prod_s(P, 0, sb, 0, rb - 2, n), dim_s(P, 1, kb), dim_s(P, 2, ka), dim_s(P, 3, m));
    return FAIL("Expected size for first two dimensions of batch2 tensor to be: [%s, %s] but got: [%s, %s].", prod_s(P, 0, &bo, 0, bo.rank, NULL),
                dim_s(P, 1, ka), prod_s(P, 2, &bo, 0, bo.rank, NULL), dim_s(P, 3, kb));
  }
  *out = bo;
  out->d[out->rank++] = *m;
  out->d[out->rank++] = *n;
  return true;
}

void kg_addmm_k0_message(kg_dtype dt, bool batched, char *buf, size_t cap) {
  static const char *const cname[] = {"Bool", "Byte", "Char", "Short", "Int", "Long"};
  snprintf(buf, cap, "result type Float can't be cast to the desired output type %s (%s of integer matrices scales the input by the float beta when %s has no columns)",
           dt <= KG_I64 ? cname[dt] : kg_dtype_name(dt), batched ? "baddbmm" : "addmm", batched ? "batch1" : "mat1");
}

static kg_ev node_of(pctx *P, kg_op op, kg_dtype dt, const uint32_t *in, int n, const kg_shape *shape, int64_t ia0, int64_t ia1, double beta,
                     double alpha) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)n;
  for (int j = 0; j < n; j++) g.in[j] = in[j];
  g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)acc_of(dt);
  g.shape = *shape;
  g.ia[0] = ia0, g.ia[1] = ia1;
  g.fa[0] = beta, g.fa[1] = alpha;
  return kg_ev_node(kg_elab_add_node(P->el, P->at, &g));
}

static kg_ev linear(pctx *P, const uint32_t *in, bool has_bias) {
  const kg_gnode *x = kg_elab_gnode(P->el, in[0]), *w = kg_elab_gnode(P->el, in[1]);
  int rx = x->shape.rank, rw = w->shape.rank;
  if (rw > 2) { (void)FAIL("t() expects a tensor with <= 2 dimensions, but self is %dD", rw); return kg_ev_err(); }
  /* w^T as the matmul operand: [K, N] from [N, K] */
  kg_gnode wt = *w;
  if (rw == 2) wt.shape.d[0] = w->shape.d[1], wt.shape.d[1] = w->shape.d[0];
  kg_shape out;
  int64_t flags;
  if (!product_shape(P, x, &wt, 0, &out, &flags)) return kg_ev_err();
  if (rw == 2) flags |= 4;
  kg_dtype dt = (kg_dtype)x->dtype;
  if (has_bias) {
    const kg_gnode *b = kg_elab_gnode(P->el, in[2]);
    if (b->dtype != dt) { (void)kg_elab_error(P->el, P->at, KG_E_TYPE, "self and mat2 must have the same dtype"); return kg_ev_err(); }
    /* PyTorch's addmm path: the bias expands to the folded 2-D result [prod(x[:-1]), N] */
    kg_shape target = out;
    if (rx >= 2 && rw == 2) {
      target.rank = 2;
      target.d[1] = out.d[out.rank - 1];
      int64_t prod = 1;
      bool sym = false;
      for (int i = 0; i < rx - 1; i++) { /* folded rows: a symbol stands for the product when one is symbolic */
        if (x->shape.d[i].kind == KG_DIM_STATIC) prod *= x->shape.d[i].v;
        else sym = true, target.d[0] = x->shape.d[i];
      }
      if (!sym) target.d[0] = (kg_dim){KG_DIM_STATIC, prod};
    }
    if (!check_expand(P, &b->shape, &target, (kg_dtype)b->dtype)) return kg_ev_err();
  }
  return node_of(P, KG_OP_LINEAR, dt, in, has_bias ? 3 : 2, &out, flags, 0, 0, 0);
}

kg_ev kg_elab_product(kg_elab *el, const kg_ast *at, kg_op op, int spelling, const kg_ev *ops, const bool *present, int n,
                      const double *fattr, int n_f) {
  pctx PC, *P = &PC;
  memset(P, 0, sizeof *P);
  P->el = el, P->at = at;
  uint32_t in[3];
  int nt = 0;
  for (int j = 0; j < n && j < 3; j++) {
    if (!present[j]) continue;
    if (!kg_ev_is_tensor(el, ops[j])) return kg_elab_error(el, at, KG_E_TYPE, "argument %d of %s must be a tensor", j + 1, kg_op_get(op)->torch);
    in[nt++] = ops[j].id;
  }
  if (op == KG_OP_LINEAR) return linear(P, in, nt == 3);
  if (op == KG_OP_MATMUL) {
    kg_shape out;
    int64_t flags;
    const kg_gnode *a = kg_elab_gnode(el, in[0]), *b = kg_elab_gnode(el, in[1]);
    if (!product_shape(P, a, b, spelling, &out, &flags)) return kg_ev_err();
    return node_of(P, KG_OP_MATMUL, (kg_dtype)a->dtype, in, 2, &out, flags, spelling, 0, 0);
  }
  /* addmm / baddbmm: beta * input + alpha * (m1 @ m2) */
  bool batched = spelling == 1;
  if (batched) {
    /* TorchSharp 0.107's baddbmm passes its operands to LibTorchSharp's
     * THSTensor_baddbmm(batch1, batch2, mat) as (self, batch1, batch2) (Tensor.cs:3341,
     * THSTensorMath.cpp:168), so x.baddbmm(b1, b2) and torch.baddbmm(x, b1, b2) compute
     * b2 * beta + alpha * (x @ b1): kgen computes what the F# code really computes (found by
     * the .NET three-way check; the torch.div rows are the same kind of case) */
    uint32_t x = in[0];
    in[0] = in[2], in[2] = in[1], in[1] = x;
  }
  const kg_gnode *c = kg_elab_gnode(el, in[0]), *a = kg_elab_gnode(el, in[1]), *b = kg_elab_gnode(el, in[2]);
  double beta = n_f > 0 ? fattr[0] : 1, alpha = n_f > 1 ? fattr[1] : 1;
  kg_shape out;
  int64_t flags;
  if (!batched) {
    if (a->shape.rank != 2) { (void)FAIL("mat1 must be a matrix, got %d-D tensor", a->shape.rank); return kg_ev_err(); }
    if (b->shape.rank != 2) { (void)FAIL("mat2 must be a matrix, got %d-D tensor", b->shape.rank); return kg_ev_err(); }
    if (a->dtype != b->dtype || c->dtype != a->dtype) { (void)kg_elab_error(el, at, KG_E_TYPE, "self and mat2 must have the same dtype"); return kg_ev_err(); }
  }
  if (!product_shape(P, a, b, batched ? 2 : 1, &out, &flags)) return kg_ev_err();
  if (!check_expand(P, &c->shape, &out, (kg_dtype)c->dtype)) return kg_ev_err();
  kg_dtype dt = (kg_dtype)a->dtype;
  /* mat1 (batch1) without columns and a non-empty result: PyTorch (and TorchSharp, whose addmm
   * and baddbmm pass float beta and alpha) scales the input in place by the float beta, which
   * an integer result cannot hold (addmm_impl_cpu_, baddbmm_out_cpu); found by kgen fuzz, seed
   * 10199. Raised here when the sizes are static, else at run time (ia[1]: the MATMUL's ia[2],
   * runtime/exec.c); an empty result or beta = 0 returns. */
  int64_t k0_raises = 0;
  if (kg_dtype_is_int(dt) && beta != 0) {
    const kg_dim *K = &a->shape.d[a->shape.rank - 1];
    bool empty = false, all_static = K->kind == KG_DIM_STATIC;
    for (int i = 0; i < out.rank; i++) {
      empty |= out.d[i].kind == KG_DIM_STATIC && out.d[i].v == 0;
      all_static &= out.d[i].kind == KG_DIM_STATIC;
    }
    if (!empty && !(K->kind == KG_DIM_STATIC && K->v != 0)) {
      if (all_static) {
        char msg[200];
        kg_addmm_k0_message(dt, batched, msg, sizeof msg);
        (void)kg_elab_error(el, at, KG_E_TYPE, "%s", msg);
        return kg_ev_err();
      }
      k0_raises = batched ? 2 : 1;
    }
  }
  if (kg_dtype_is_int(dt)) { /* PyTorch converts beta and alpha to the integer type */
    beta = beta != beta || beta > 9e18 || beta < -9e18 ? 0 : (double)(int64_t)beta;
    alpha = alpha != alpha || alpha > 9e18 || alpha < -9e18 ? 0 : (double)(int64_t)alpha;
  }
  return node_of(P, KG_OP_ADDMM, dt, in, 3, &out, batched, k0_raises, beta, alpha);
}
