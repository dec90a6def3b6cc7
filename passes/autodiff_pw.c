/* passes/autodiff_pw.c — the derivatives of the pointwise ops (arithmetic, unary math,
 * activations, casts, where), as PyTorch 1.13's tools/autograd/derivatives.yaml and
 * FunctionsManual.cpp define them, with PyTorch's choices where the derivative is not defined:
 *   relu at 0: 0 (threshold_backward: result > 0); abs at 0: 0 (sgn); maximum / minimum of equal
 *   operands: half to each; clamp: the gradient passes at the bounds (self >= min & self <= max)
 *   and goes to a tensor bound where it clipped; hardtanh / relu6: not at the bounds (exclusive);
 *   floor, ceil, round, trunc, sign, floor_divide, div(trunc): zeros; pow with exponent 0: zeros;
 *   a NaN: NaN propagates through the formulas as it does in PyTorch's.
 * Each rule computes in the node's compute dtype (float32 for half precision) and kg_ad_acc
 * converts to the operand's dtype. g is the gradient of node v. */
#include <math.h>
#include <string.h>

#include "autodiff.h"

typedef struct pw {
  kg_ad *A;
  kg_gb *b;
  kg_dtype ct;
} pw;

static uint32_t K(pw *P, double v) { return kg_gb_const(P->b, P->ct, v); }
static uint32_t X(pw *P, uint32_t id) { return kg_gb_cast(P->b, id, P->ct); }
static uint32_t add(pw *P, uint32_t a, uint32_t c) { return kg_gb_2(P->b, KG_OP_ADD, P->ct, a, c); }
static uint32_t sub(pw *P, uint32_t a, uint32_t c) { return kg_gb_2(P->b, KG_OP_SUB, P->ct, a, c); }
static uint32_t mul(pw *P, uint32_t a, uint32_t c) { return kg_gb_2(P->b, KG_OP_MUL, P->ct, a, c); }
static uint32_t dv(pw *P, uint32_t a, uint32_t c) { return kg_gb_2(P->b, KG_OP_DIV, P->ct, a, c); }
static uint32_t neg(pw *P, uint32_t a) { return kg_gb_1(P->b, KG_OP_NEG, P->ct, a); }
static uint32_t un(pw *P, kg_op op, uint32_t a) { return kg_gb_1(P->b, op, P->ct, a); }
static uint32_t cmp(pw *P, kg_op op, uint32_t a, uint32_t c) { return kg_gb_2(P->b, op, P->ct, a, c); }
static uint32_t land(pw *P, uint32_t a, uint32_t c) { return kg_gb_2(P->b, KG_OP_LAND, KG_BOOL, a, c); }
static uint32_t lor(pw *P, uint32_t a, uint32_t c) { return kg_gb_2(P->b, KG_OP_LOR, KG_BOOL, a, c); }
static uint32_t lnot(pw *P, uint32_t a) { return kg_gb_1(P->b, KG_OP_LNOT, KG_BOOL, a); }
static uint32_t sel(pw *P, uint32_t c, uint32_t a, uint32_t e) { return kg_gb_where(P->b, P->ct, c, a, e); }
/* g where c, else 0 */
static uint32_t keep(pw *P, uint32_t c, uint32_t g) { return sel(P, c, g, K(P, 0)); }
static uint32_t sq(pw *P, uint32_t a) { return mul(P, a, a); }
static uint32_t sigmoid(pw *P, uint32_t a) { return un(P, KG_OP_SIGMOID, a); }

/* elu's backward (PyTorch elu_backward on the input): x > 0 ? g * scale : g * input_scale *
 * alpha * scale * exp(x * input_scale) */
static uint32_t elu_grad(pw *P, uint32_t x, uint32_t g, double alpha, double scale, double iscale) {
  uint32_t negpart = mul(P, mul(P, g, K(P, iscale * alpha * scale)), un(P, KG_OP_EXP, mul(P, x, K(P, iscale))));
  return sel(P, cmp(P, KG_OP_GT, x, K(P, 0)), mul(P, g, K(P, scale)), negpart);
}

bool kg_ad_rule_pointwise(kg_ad *A, uint32_t v, uint32_t gid) {
  const kg_gnode n = *kg_ad_n(A, v);
  const kg_op_info *oi = kg_op_get((kg_op)n.op);
  if (oi->flags & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_LAYOUT | KG_OPF_MATMUL | KG_OPF_COMPOSITE | KG_OPF_MAP)) return false;
  pw P = {A, &A->b, kg_gb_ct((kg_dtype)n.dtype)};
  pw *p = &P;
  uint32_t g = X(p, gid);
  uint32_t a = n.n_in > 0 ? n.in[0] : KG_NONE, c = n.n_in > 1 ? n.in[1] : KG_NONE, d = n.n_in > 2 ? n.in[2] : KG_NONE;
  uint32_t x = a != KG_NONE ? X(p, a) : KG_NONE, y = c != KG_NONE ? X(p, c) : KG_NONE;
  uint32_t out = X(p, v);
  const double *fa = n.fa;
  switch ((kg_op)n.op) {
  case KG_OP_ADD: kg_ad_acc(A, a, g), kg_ad_acc(A, c, g); break;
  case KG_OP_SUB: kg_ad_acc(A, a, g), kg_ad_acc(A, c, neg(p, g)); break;
  case KG_OP_MUL: kg_ad_acc(A, a, mul(p, g, y)), kg_ad_acc(A, c, mul(p, g, x)); break;
  case KG_OP_DIV:
    kg_ad_acc(A, a, dv(p, g, y));
    kg_ad_acc(A, c, neg(p, dv(p, mul(p, g, x), mul(p, y, y))));
    break;
  case KG_OP_NEG: kg_ad_acc(A, a, neg(p, g)); break;
  case KG_OP_POS:
  case KG_OP_FRAC: kg_ad_acc(A, a, g); break;
  case KG_OP_POW:
  case KG_OP_FLOAT_POW: {
    const kg_gnode *en = kg_ad_n(A, c);
    if (en->op == KG_OP_CONST) { /* pow(x, s): s == 0 gives zeros, else g · s · x^(s - 1) */
      double s = kg_dtype_is_float((kg_dtype)en->dtype) ? en->fa[0] : (double)en->ia[0];
      if (s == 0) kg_ad_zero(A, a);
      else kg_ad_acc(A, a, mul(p, mul(p, g, K(p, s)), kg_gb_2(p->b, KG_OP_POW, p->ct, x, K(p, s - 1))));
    } else {
      /* self: where(e == 0, 0, g · e · x^(e - 1)); exponent: g · where(x == 0 & e >= 0, 0, out · log x) */
      kg_ad_acc(A, a, sel(p, cmp(p, KG_OP_EQ, y, K(p, 0)), K(p, 0), mul(p, mul(p, g, y), kg_gb_2(p->b, KG_OP_POW, p->ct, x, sub(p, y, K(p, 1))))));
      uint32_t z = land(p, cmp(p, KG_OP_EQ, x, K(p, 0)), cmp(p, KG_OP_GE, y, K(p, 0)));
      kg_ad_acc(A, c, mul(p, g, sel(p, z, K(p, 0), mul(p, out, un(p, KG_OP_LOG, x)))));
    }
    break;
  }
  case KG_OP_ATAN2: { /* self: g · other / (self² + other²); other: g · -self / (...) */
    uint32_t r = dv(p, g, add(p, sq(p, x), sq(p, y)));
    kg_ad_acc(A, a, mul(p, r, y)), kg_ad_acc(A, c, mul(p, r, neg(p, x)));
    break;
  }
  case KG_OP_HYPOT: kg_ad_acc(A, a, mul(p, g, dv(p, x, out))), kg_ad_acc(A, c, mul(p, g, dv(p, y, out))); break;
  case KG_OP_XLOGY:
    /* self: xlogy(g, other) masked to 0 where self == 0 & other <= 0; other: g · self / other */
    kg_ad_acc(A, a, sel(p, land(p, cmp(p, KG_OP_EQ, x, K(p, 0)), cmp(p, KG_OP_LE, y, K(p, 0))), K(p, 0), kg_gb_2(p->b, KG_OP_XLOGY, p->ct, g, y)));
    kg_ad_acc(A, c, dv(p, mul(p, g, x), y));
    break;
  case KG_OP_MAXIMUM:
  case KG_OP_MINIMUM: {
    /* where(self == other, g / 2, g), masked where the other operand wins */
    uint32_t h = sel(p, cmp(p, KG_OP_EQ, x, y), dv(p, g, K(p, 2)), g);
    kg_op lose = n.op == KG_OP_MAXIMUM ? KG_OP_LT : KG_OP_GT, win = n.op == KG_OP_MAXIMUM ? KG_OP_GT : KG_OP_LT;
    kg_ad_acc(A, a, sel(p, cmp(p, lose, x, y), K(p, 0), h));
    kg_ad_acc(A, c, sel(p, cmp(p, win, x, y), K(p, 0), h));
    break;
  }
  case KG_OP_FMAX:
  case KG_OP_FMIN: {
    /* self: g where (self >= other (fmin: <=) or other is NaN); other: the rest */
    uint32_t mine = lor(p, cmp(p, n.op == KG_OP_FMAX ? KG_OP_GE : KG_OP_LE, x, y), un(p, KG_OP_ISNAN, y));
    kg_ad_acc(A, a, keep(p, mine, g)), kg_ad_acc(A, c, keep(p, lnot(p, mine), g));
    break;
  }
  case KG_OP_LERP: { /* a + w (b - a): a: g (1 - w), b: g w, w: g (b - a) */
    uint32_t w = X(p, d);
    kg_ad_acc(A, a, mul(p, g, sub(p, K(p, 1), w))), kg_ad_acc(A, c, mul(p, g, w)), kg_ad_acc(A, d, mul(p, g, sub(p, y, x)));
    break;
  }
  case KG_OP_CLAMP: {
    uint32_t lo = y, hi = X(p, d);
    uint32_t ge = cmp(p, KG_OP_GE, x, lo), le = cmp(p, KG_OP_LE, x, hi);
    kg_ad_acc(A, a, keep(p, land(p, ge, le), g));
    kg_ad_acc(A, c, keep(p, land(p, cmp(p, KG_OP_LT, x, lo), cmp(p, KG_OP_LT, lo, hi)), g));
    kg_ad_acc(A, d, keep(p, lor(p, cmp(p, KG_OP_GT, x, hi), cmp(p, KG_OP_LT, hi, lo)), g));
    break;
  }
  case KG_OP_CLAMP_MIN: kg_ad_acc(A, a, keep(p, cmp(p, KG_OP_GE, x, y), g)), kg_ad_acc(A, c, keep(p, cmp(p, KG_OP_LT, x, y), g)); break;
  case KG_OP_CLAMP_MAX: kg_ad_acc(A, a, keep(p, cmp(p, KG_OP_LE, x, y), g)), kg_ad_acc(A, c, keep(p, cmp(p, KG_OP_GT, x, y), g)); break;
  case KG_OP_WHERE: /* the condition has none */
    kg_ad_acc(A, c, sel(p, a, g, K(p, 0)));
    kg_ad_acc(A, d, sel(p, a, K(p, 0), g));
    break;
  case KG_OP_ABS: kg_ad_acc(A, a, mul(p, g, un(p, KG_OP_SIGN, x))); break;
  case KG_OP_SIGN:
  case KG_OP_FLOOR:
  case KG_OP_CEIL:
  case KG_OP_ROUND:
  case KG_OP_TRUNC:
  case KG_OP_TRUNCDIV:
  case KG_OP_FLOORDIV: kg_ad_zero(A, a), kg_ad_zero(A, c); break;
  case KG_OP_REM: /* other: -g · floor(self / other) */
  case KG_OP_FMOD: /* other: -g · trunc(self / other) */
    kg_ad_acc(A, a, g);
    kg_ad_acc(A, c, neg(p, mul(p, g, un(p, n.op == KG_OP_REM ? KG_OP_FLOOR : KG_OP_TRUNC, dv(p, x, y)))));
    break;
  case KG_OP_EXP: kg_ad_acc(A, a, mul(p, g, out)); break;
  case KG_OP_EXP2: kg_ad_acc(A, a, mul(p, mul(p, g, out), K(p, M_LN2))); break;
  case KG_OP_EXPM1: kg_ad_acc(A, a, mul(p, g, add(p, out, K(p, 1)))); break;
  case KG_OP_LOG: kg_ad_acc(A, a, dv(p, g, x)); break;
  case KG_OP_LOG1P: kg_ad_acc(A, a, dv(p, g, add(p, x, K(p, 1)))); break;
  case KG_OP_LOG2: kg_ad_acc(A, a, dv(p, g, mul(p, x, K(p, M_LN2)))); break;
  case KG_OP_LOG10: kg_ad_acc(A, a, dv(p, g, mul(p, x, K(p, M_LN10)))); break;
  case KG_OP_SQRT: {
    /* std (sqrt of var) and the 2-norm (sqrt of a sum of squares): PyTorch's std_backward /
     * norm_backward give 0 where the result is 0 (not 0 · inf) */
    const kg_gnode *q = kg_ad_n(A, a), *sq_ = q->op == KG_OP_RSUM ? kg_ad_n(A, q->in[0]) : NULL;
    bool masked = q->op == KG_OP_RVAR || (sq_ && sq_->op == KG_OP_MUL && sq_->in[0] == sq_->in[1]);
    uint32_t r = dv(p, g, mul(p, K(p, 2), out));
    kg_ad_acc(A, a, masked ? sel(p, cmp(p, KG_OP_EQ, out, K(p, 0)), K(p, 0), r) : r);
    break;
  }
  case KG_OP_RSQRT: kg_ad_acc(A, a, mul(p, mul(p, K(p, -0.5), g), mul(p, out, sq(p, out)))); break;
  case KG_OP_SQUARE: kg_ad_acc(A, a, mul(p, mul(p, K(p, 2), g), x)); break;
  case KG_OP_RECIP: kg_ad_acc(A, a, neg(p, mul(p, g, sq(p, out)))); break;
  case KG_OP_SIN: kg_ad_acc(A, a, mul(p, g, un(p, KG_OP_COS, x))); break;
  case KG_OP_COS: kg_ad_acc(A, a, neg(p, mul(p, g, un(p, KG_OP_SIN, x)))); break;
  case KG_OP_TAN: kg_ad_acc(A, a, mul(p, g, add(p, K(p, 1), sq(p, out)))); break;
  case KG_OP_ASIN: kg_ad_acc(A, a, mul(p, g, un(p, KG_OP_RSQRT, sub(p, K(p, 1), sq(p, x))))); break;
  case KG_OP_ACOS: kg_ad_acc(A, a, neg(p, mul(p, g, un(p, KG_OP_RSQRT, sub(p, K(p, 1), sq(p, x)))))); break;
  case KG_OP_ATAN: kg_ad_acc(A, a, dv(p, g, add(p, K(p, 1), sq(p, x)))); break;
  case KG_OP_SINH: kg_ad_acc(A, a, mul(p, g, un(p, KG_OP_COSH, x))); break;
  case KG_OP_COSH: kg_ad_acc(A, a, mul(p, g, un(p, KG_OP_SINH, x))); break;
  case KG_OP_TANH: kg_ad_acc(A, a, mul(p, g, sub(p, K(p, 1), sq(p, out)))); break;
  case KG_OP_SIGMOID: kg_ad_acc(A, a, mul(p, g, mul(p, out, sub(p, K(p, 1), out)))); break;
  case KG_OP_ERF:
  case KG_OP_ERFC: {
    uint32_t e = mul(p, K(p, n.op == KG_OP_ERF ? M_2_SQRTPI : -M_2_SQRTPI), un(p, KG_OP_EXP, neg(p, sq(p, x))));
    kg_ad_acc(A, a, mul(p, g, e));
    break;
  }
  case KG_OP_LOGIT: { /* g / (x (1 - x)); outside [eps, 1 - eps]: 0; without eps outside [0, 1]: NaN */
    uint32_t r = dv(p, g, mul(p, x, sub(p, K(p, 1), x)));
    if (n.ia[0]) r = sel(p, lor(p, cmp(p, KG_OP_LT, x, K(p, fa[0])), cmp(p, KG_OP_GT, x, K(p, 1 - fa[0]))), K(p, 0), r);
    else r = sel(p, lor(p, cmp(p, KG_OP_LT, x, K(p, 0)), cmp(p, KG_OP_GT, x, K(p, 1))), K(p, NAN), r);
    kg_ad_acc(A, a, r);
    break;
  }
  case KG_OP_NAN_TO_NUM: kg_ad_acc(A, a, keep(p, un(p, KG_OP_ISFINITE, x), g)); break;
  case KG_OP_RELU: kg_ad_acc(A, a, sel(p, cmp(p, KG_OP_LE, out, K(p, 0)), K(p, 0), g)); break; /* threshold_backward: a NaN result passes g */
  case KG_OP_RELU6:
  case KG_OP_HARDTANH: { /* hardtanh_backward: 0 where x <= min or x >= max */
    double lo = n.op == KG_OP_RELU6 ? 0 : fa[0], hi = n.op == KG_OP_RELU6 ? 6 : fa[1];
    kg_ad_acc(A, a, sel(p, lor(p, cmp(p, KG_OP_LE, x, K(p, lo)), cmp(p, KG_OP_GE, x, K(p, hi))), K(p, 0), g));
    break;
  }
  case KG_OP_GELU:
    if (n.ia[0] == 0) { /* g (Φ(x) + x φ(x)) */
      uint32_t cdf = mul(p, K(p, 0.5), add(p, K(p, 1), un(p, KG_OP_ERF, mul(p, x, K(p, M_SQRT1_2)))));
      uint32_t pdf = mul(p, K(p, 0.5 * M_2_SQRTPI * M_SQRT1_2), un(p, KG_OP_EXP, mul(p, K(p, -0.5), sq(p, x))));
      kg_ad_acc(A, a, mul(p, g, add(p, cdf, mul(p, x, pdf))));
    } else { /* PyTorch's GeluBackward, tanh approximation */
      double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
      uint32_t x2 = sq(p, x);
      uint32_t inner = mul(p, K(p, beta), add(p, x, mul(p, K(p, kappa), mul(p, x2, x))));
      uint32_t t = un(p, KG_OP_TANH, inner);
      uint32_t left = mul(p, K(p, 0.5), x), right = add(p, K(p, 1), t);
      uint32_t dleft = mul(p, K(p, 0.5), right);
      uint32_t dinner = mul(p, K(p, beta), add(p, K(p, 1), mul(p, K(p, 3 * kappa), x2)));
      uint32_t dright = mul(p, mul(p, left, sub(p, K(p, 1), sq(p, t))), dinner);
      kg_ad_acc(A, a, mul(p, g, add(p, dleft, dright)));
    }
    break;
  case KG_OP_SILU: {
    uint32_t s = sigmoid(p, x);
    kg_ad_acc(A, a, mul(p, mul(p, g, s), add(p, K(p, 1), mul(p, x, sub(p, K(p, 1), s)))));
    break;
  }
  case KG_OP_SOFTPLUS: { /* x·beta > threshold: g; else g · z / (z + 1), z = exp(x·beta) */
    uint32_t xb = mul(p, x, K(p, fa[0]));
    uint32_t z = un(p, KG_OP_EXP, xb);
    kg_ad_acc(A, a, sel(p, cmp(p, KG_OP_GT, xb, K(p, fa[1])), g, mul(p, g, dv(p, z, add(p, z, K(p, 1))))));
    break;
  }
  case KG_OP_LEAKY_RELU: kg_ad_acc(A, a, sel(p, cmp(p, KG_OP_GT, x, K(p, 0)), g, mul(p, g, K(p, fa[0])))); break;
  case KG_OP_ELU: kg_ad_acc(A, a, elu_grad(p, x, g, fa[0], fa[1], fa[2])); break;
  case KG_OP_CELU: kg_ad_acc(A, a, elu_grad(p, x, g, fa[0], 1, 1 / fa[0])); break;
  case KG_OP_SELU: kg_ad_acc(A, a, elu_grad(p, x, g, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1)); break;
  case KG_OP_HARDSIGMOID: kg_ad_acc(A, a, keep(p, land(p, cmp(p, KG_OP_GT, x, K(p, -3)), cmp(p, KG_OP_LT, x, K(p, 3))), dv(p, g, K(p, 6)))); break;
  case KG_OP_HARDSWISH: /* x < -3: 0; x <= 3: g (x / 3 + 1/2); else g */
    kg_ad_acc(A, a, sel(p, cmp(p, KG_OP_LT, x, K(p, -3)), K(p, 0), sel(p, cmp(p, KG_OP_LE, x, K(p, 3)), mul(p, g, add(p, dv(p, x, K(p, 3)), K(p, 0.5))), g)));
    break;
  case KG_OP_MISH: { /* g (tanh(softplus x) + x σ(x) (1 - tanh²(softplus x))) */
    uint32_t ts = un(p, KG_OP_TANH, kg_gb_opa(p->b, KG_OP_SOFTPLUS, p->ct, x, KG_NONE, 0, (const double[4]){1, 20, 0, 0}));
    kg_ad_acc(A, a, mul(p, g, add(p, ts, mul(p, mul(p, x, sigmoid(p, x)), sub(p, K(p, 1), sq(p, ts))))));
    break;
  }
  case KG_OP_LOGSIGMOID: kg_ad_acc(A, a, mul(p, g, sigmoid(p, neg(p, x)))); break;
  case KG_OP_CAST: /* float to float: the gradient converted back (kg_ad_acc) */
    kg_ad_acc(A, a, gid);
    break;
  default: return false;
  }
  return true;
}
