/* cli/fuzz_pw.c — the pointwise families of the `kgen fuzz` generator (issue 13):
 * arith, unary, cmp, cast, intops (integer division and remainder, shifts, bitwise) and act
 * (activations, clamp, pow). Each gen_* types a new node as PyTorch does and keeps its
 * magnitude bound (fuzz_gen.c says what is avoided and why); fz_expr_pw spells it.
 */
#include <math.h>
#include <string.h>

#include "fuzz_int.h"

enum { A_ADD, A_SUB, A_MUL, A_DIV };
static const char *const arith_name[] = {"op_Addition", "op_Subtraction", "op_Multiply", "op_Division"};
enum { U_EXP, U_TANH, U_TANH_T, U_SIGMOID, U_SIGMOID_T, U_SIN_T, U_COS, U_SQRTABS, U_LOGABS1, U_ABS, U_NEG, U_NEGOP, U_RELU, U_N };
static const char *const cmp_name[] = {"gt", "lt", "ge", "le", "eq", "ne"};

static bool gen_arith(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  int k = fz_rnd(r, 100);
  if (k < 55) { /* tensor op tensor */
    fz_node_init(&x, N_BIN);
    x.op = fz_rnd(r, 3), x.in[0] = fz_pick(p), x.in[1] = fz_pick(p), x.nin = 2;
    const fz_node *a = &p->n[x.in[0]], *b = &p->n[x.in[1]];
    if (!fz_bcast(&a->shape, &b->shape, &x.shape)) return false;
    if (x.op == A_SUB && (a->dtype == BOOL || b->dtype == BOOL)) return false;
    x.dtype = fz_result_type(p, x.in, 2, 0);
    if (x.dtype == BOOL) return false;
    x.mag = x.op == A_MUL ? a->mag * b->mag : a->mag + b->mag;
  } else if (k < 85) { /* tensor op scalar, scalar op tensor */
    fz_node_init(&x, N_BINS);
    x.op = fz_rnd(r, 4), x.in[0] = fz_pick(p), x.nin = 1;
    const fz_node *a = &p->n[x.in[0]];
    x.shape = a->shape;
    x.sc_int = fz_chance(r, 40);
    if (x.sc_int) {
      static const int iv[] = {1, 2, 3, -2, 5, -1};
      x.sc = iv[fz_rnd(r, 6)];
      if (a->dtype == U8 && x.sc < 0) x.sc = -x.sc;
    } else x.sc = fz_fconst(r);
    x.sc_left = x.op != A_DIV && fz_chance(r, 30);
    if (x.op == A_SUB && a->dtype == BOOL) return false;
    if (x.op == A_DIV) x.dtype = is_float(a->dtype) ? a->dtype : F32; /* true division */
    else x.dtype = fz_result_type(p, x.in, 1, x.sc_int ? 1 : 2);
    double s = fabs(x.sc);
    x.mag = x.op == A_MUL ? a->mag * s : x.op == A_DIV ? a->mag / s : a->mag + s;
    x.inexact = x.op == A_DIV;
  } else { /* x / (|y| + 1): never a zero divisor */
    fz_node_init(&x, N_DIV);
    x.in[0] = fz_pick(p), x.in[1] = fz_pick(p), x.nin = 2;
    const fz_node *a = &p->n[x.in[0]], *b = &p->n[x.in[1]];
    if (b->dtype == BOOL) return false; /* abs of bool is an error in PyTorch */
    if (!fz_bcast(&a->shape, &b->shape, &x.shape)) return false;
    /* the divisor |y| + 1f: a float stays itself, an int becomes float32 */
    if (p->nn + 1 >= MAXN) return false;
    p->n[p->nn] = *b;
    p->n[p->nn].dtype = is_float(b->dtype) ? b->dtype : F32;
    int ab[2] = {x.in[0], p->nn};
    x.dtype = fz_result_type(p, ab, 2, 0);
    if (!is_float(x.dtype)) x.dtype = F32;
    x.mag = a->mag, x.inexact = true;
  }
  if (x.dtype == U8 && x.op == A_SUB) x.mag = 255;
  if (x.dtype == U8 && x.mag > 255) x.mag = 255;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  x.contig = true;
  return fz_add_node(p, &x) >= 0;
}
bool fz_gen_arith(fz_prog *p) { return gen_arith(p); }

bool fz_gen_unary(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_UN);
  x.in[0] = fz_pick(p), x.nin = 1;
  const fz_node *a = &p->n[x.in[0]];
  if (a->mag > 1e3 && is_float(a->dtype)) {
    static const int squash[] = {U_TANH, U_TANH_T, U_SIGMOID, U_SIGMOID_T, U_SIN_T, U_COS};
    x.op = squash[fz_rnd(r, 6)];
  } else x.op = fz_rnd(r, U_N);
  /* sin and cos of a large value an ulp apart differ by that ulp times the value (sin(t) of a
   * float32 std t ~ 600 was 1e-5 apart): only of exact or small values */
  if ((x.op == U_SIN_T || x.op == U_COS) && a->inexact && a->mag > 16) x.op = U_TANH;
  x.shape = a->shape;
  bool float_only = x.op <= U_LOGABS1;
  if (a->dtype == BOOL && x.op >= U_SQRTABS) return false; /* abs / neg of bool: errors */
  if (a->dtype == U8 && (x.op == U_NEG || x.op == U_NEGOP)) return false;
  if (x.op == U_EXP && a->mag > 10) return false;
  x.dtype = float_only && !is_float(a->dtype) ? F32 : a->dtype;
  switch (x.op) {
  case U_EXP: x.mag = exp(a->mag); break;
  case U_SQRTABS: x.mag = sqrt(a->mag); break;
  case U_LOGABS1: x.mag = log(a->mag + 1); break;
  case U_ABS: case U_NEG: case U_NEGOP: case U_RELU: x.mag = a->mag; break;
  default: x.mag = 1; break;
  }
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  x.inexact = x.op <= U_LOGABS1, x.contig = true;
  return fz_add_node(p, &x) >= 0;
}

static bool gen_cmp_into(fz_prog *p, fz_node *x) {
  fz_rng *r = &p->r;
  fz_node_init(x, N_CMP);
  x->op = fz_rnd(r, 6), x->in[0] = fz_pick(p), x->dtype = BOOL, x->mag = 1, x->contig = true;
  const fz_node *a = &p->n[x->in[0]];
  if (a->inexact) return false;
  if (fz_chance(r, 25)) {
    x->kind = N_CMPS, x->sc = fz_fconst(r), x->shape = a->shape, x->nin = 1;
    return true;
  }
  x->in[1] = fz_pick(p), x->nin = 2;
  if (p->n[x->in[1]].inexact) return false;
  return fz_bcast(&a->shape, &p->n[x->in[1]].shape, &x->shape);
}

bool fz_gen_cmp(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  if (fz_chance(r, 55)) {
    if (!gen_cmp_into(p, &x)) return false;
    return fz_add_node(p, &x) >= 0;
  }
  /* torch.where(cond, a, b): a bool node as the condition, else a new comparison */
  int cond = -1;
  for (int t = 0; t < 6 && cond < 0; t++) {
    int c = fz_pick(p);
    if (p->n[c].dtype == BOOL) cond = c;
  }
  if (cond < 0) {
    if (p->nn + 2 >= MAXN || !gen_cmp_into(p, &x)) return false;
    if ((cond = fz_add_node(p, &x)) < 0) return false;
  }
  fz_node_init(&x, N_WHERE);
  x.in[0] = cond, x.in[1] = fz_pick(p), x.in[2] = fz_pick(p), x.nin = 3;
  fz_shp s1;
  if (!fz_bcast(&p->n[x.in[0]].shape, &p->n[x.in[1]].shape, &s1) || !fz_bcast(&s1, &p->n[x.in[2]].shape, &x.shape)) return false;
  x.dtype = fz_result_type(p, x.in + 1, 2, 0);
  x.mag = fmax(p->n[x.in[1]].mag, p->n[x.in[2]].mag), x.contig = true;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

bool fz_gen_cast(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_CAST);
  x.in[0] = fz_pick(p), x.nin = 1, x.dtype = fz_rnd(r, NDT), x.alias = fz_chance(r, 50);
  const fz_node *a = &p->n[x.in[0]];
  x.shape = a->shape, x.mag = a->mag, x.contig = a->contig;
  if (a->inexact && !is_float(x.dtype)) return false;
  if (x.dtype == BOOL) x.mag = 1;
  else if (x.dtype == U8) {
    if (is_float(a->dtype)) return false; /* float → uint8 of a negative value: undefined */
    if (x.mag > 255) x.mag = 255;          /* int → uint8 wraps: defined */
  } else if (is_int(x.dtype) && x.mag > fz_dt_lim[x.dtype]) return false;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- intops: integer division and remainder with non-zero divisors, shifts, bitwise ---- */
enum { ID_MOD_T, ID_FLOORDIV, ID_DIV_TRUNC, ID_DIV_FLOOR, ID_FMOD, ID_REM_T, ID_MOD_SC, ID_REM_SC, ID_N };

static double pow2_above(double m) {
  double b = 1;
  while (b <= m) b *= 2;
  return b;
}

bool fz_gen_intops(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  int k = fz_rnd(r, 100);
  if (k < 55) { /* a / d, a % d … with d = |b| + 1 (tensor) or a non-zero int constant */
    fz_node_init(&x, N_INTDIV);
    x.op = fz_rnd(r, ID_N), x.in[0] = fz_pick(p), x.nin = 1;
    const fz_node *a = &p->n[x.in[0]];
    /* rounding division and remainders jump at multiples of the divisor: never of a value an
     * ulp may move across one (seed 10289: fmod of a float32 product ~1e11, whose ulp is 1e4) */
    if (a->dtype == BOOL || a->inexact) return false;
    if (x.op >= ID_MOD_SC) {
      static const int iv[] = {3, -4, 7, 2, 5, -3};
      x.sc = iv[fz_rnd(r, 6)], x.sc_int = true, x.shape = a->shape;
      if (a->dtype == U8) x.sc = fabs(x.sc); /* a negative Scalar would wrap to uint8 first */
      x.dtype = fz_result_type(p, x.in, 1, 1);
      x.mag = fabs(x.sc); /* the remainder has the divisor's sign and is smaller */
    } else {
      x.in[1] = fz_pick(p), x.nin = 2;
      const fz_node *b = &p->n[x.in[1]];
      if (b->dtype == BOOL || b->inexact || !fz_mag_ok(b->dtype, b->mag + 1) || (b->dtype == U8 && b->mag + 1 > 255)) return false;
      if (!fz_bcast(&a->shape, &b->shape, &x.shape)) return false;
      x.dtype = fz_result_type(p, x.in, 2, 0); /* |b| + 1 keeps b's dtype */
      double dm = b->mag + 1;
      x.mag = x.op == ID_FLOORDIV || x.op == ID_DIV_TRUNC || x.op == ID_DIV_FLOOR ? a->mag + 1 : x.op == ID_FMOD ? fmin(a->mag, dm) : dm;
    }
    x.inexact = is_float(x.dtype);
    if (x.dtype == U8 && x.mag > 255) x.mag = 255;
  } else if (k < 75) { /* a << (s % 8), a >> (s % 8) */
    fz_node_init(&x, N_SHIFT);
    x.op = fz_rnd(r, 4), x.in[0] = fz_int_operand(p, fz_pick(p));
    x.in[1] = x.in[0] < 0 ? -1 : fz_int_operand(p, fz_pick(p)), x.nin = 2;
    if (x.in[0] < 0 || x.in[1] < 0) return false;
    const fz_node *a = &p->n[x.in[0]], *s = &p->n[x.in[1]];
    if (!is_int(a->dtype) || !is_int(s->dtype) || !fz_bcast(&a->shape, &s->shape, &x.shape)) return false;
    x.dtype = fz_result_type(p, x.in, 2, 0);
    bool left = x.op < 2;
    x.mag = left ? a->mag * 128 : a->mag;
    if (x.mag > fz_dt_lim[x.dtype]) { /* left shifts wrap in the dtype (PyTorch shifts the unsigned bits) */
      if (x.dtype == I64) return false;
      x.mag = x.dtype == U8 ? 255 : fz_dt_lim[x.dtype] + 1;
    }
  } else { /* &&& ||| ^^^, bitwise_not */
    fz_node_init(&x, N_BITW);
    x.op = fz_rnd(r, 4), x.in[0] = fz_int_operand(p, fz_pick(p)), x.nin = x.op == 3 ? 1 : 2;
    if (x.in[0] < 0) return false;
    const fz_node *a = &p->n[x.in[0]];
    if (x.nin == 2) {
      x.in[1] = fz_int_operand(p, fz_pick(p));
      if (x.in[1] < 0) return false;
      a = &p->n[x.in[0]];
      const fz_node *b = &p->n[x.in[1]];
      if (is_float(b->dtype) || !fz_bcast(&a->shape, &b->shape, &x.shape)) return false;
      x.dtype = fz_result_type(p, x.in, 2, 0);
      x.mag = x.dtype == BOOL ? 1 : pow2_above(fmax(a->mag, b->mag));
    } else {
      x.shape = a->shape, x.dtype = a->dtype;
      x.mag = a->dtype == BOOL ? 1 : a->dtype == U8 ? 255 : a->mag + 1;
    }
  }
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  x.contig = true;
  return fz_add_node(p, &x) >= 0;
}

/* ---- act: activations, clamp, pow ---- */
enum { AC_GELU, AC_GELU_F, AC_GELU_TANH, AC_SILU, AC_SILU_F, AC_SOFTPLUS, AC_ELU, AC_HARDTANH, AC_HARDTANH_F, AC_LEAKY,
       AC_LEAKY_F, AC_MISH, AC_HARDSWISH, AC_CLAMP, AC_POW2, AC_N };

bool fz_act_nan_safe(int op) { return op == AC_CLAMP || op == AC_HARDTANH || op == AC_HARDTANH_F; }

bool fz_gen_act(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_ACT);
  x.op = fz_rnd(r, AC_N);
  int a0 = fz_pick(p);
  if (x.op != AC_CLAMP && x.op != AC_POW2) a0 = fz_float_operand(p, a0); /* activations take floats */
  if (a0 < 0) return false;
  x.in[0] = a0, x.nin = 1;
  const fz_node *a = &p->n[a0];
  if (a->dtype == BOOL) return false;
  x.shape = a->shape, x.dtype = a->dtype, x.contig = true;
  x.sc = fz_fconst(r);
  switch (x.op) {
  case AC_SOFTPLUS: x.mag = a->mag + 1, x.inexact = true; break;
  case AC_ELU: x.mag = fmax(a->mag, 1), x.inexact = true; break;
  case AC_HARDTANH: case AC_HARDTANH_F: x.mag = fmin(a->mag, 2); break;
  case AC_LEAKY: case AC_LEAKY_F: x.mag = a->mag, x.inexact = true; break;
  case AC_CLAMP: /* clamp(-k, k) with int bounds on ints (a float bound makes it float) */
    x.sc = fabs(x.sc) < 1 ? 1 : fabs(x.sc), x.sc_int = !is_float(a->dtype);
    if (x.sc_int) x.sc = floor(x.sc);
    if (a->dtype == U8) return false;
    x.mag = fmin(a->mag, x.sc);
    break;
  case AC_POW2:
    if (!is_float(a->dtype) || a->mag > 1e6) return false;
    x.mag = a->mag * a->mag, x.inexact = true;
    break;
  default: x.mag = a->mag + 1, x.inexact = true; break;
  }
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- emission ---- */
static const char *const rounding[] = {"none", "trunc", "floor"};

/* |b| + 1 (an int stays its dtype: Int32 1) */
static cJSON *divisor(fz_em *e, int b) {
  cJSON *absb = fz_method("abs", fz_ref(e, b), NULL, NULL, 0);
  return fz_op2(e, "op_Addition", T_TENSOR, T_INT32, absb, fz_value_num(T_INT32, 1));
}

static cJSON *expr_intops(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  const char *pt[2] = {T_TENSOR, T_TENSOR}, *ps[1] = {T_SCALAR};
  if (x->kind == N_SHIFT) {
    cJSON *s = fz_op2(e, "op_Modulus", T_TENSOR, T_INT32, fz_ref(e, x->in[1]), fz_value_num(T_INT32, 8));
    const char *name = x->op < 2 ? "bitwise_left_shift" : "bitwise_right_shift";
    cJSON *args[2] = {a, s};
    if (x->op % 2) return fz_torch(name, args, 2);
    return fz_method(name, a, pt, args + 1, 1);
  }
  if (x->kind == N_BITW) {
    static const char *const op[] = {"op_BitwiseAnd", "op_BitwiseOr", "op_ExclusiveOr"};
    if (x->op == 3) return fz_method("bitwise_not", a, NULL, NULL, 0);
    return fz_op2(e, op[x->op], T_TENSOR, T_TENSOR, a, fz_ref(e, x->in[1]));
  }
  switch (x->op) {
  case ID_MOD_SC: return fz_op2(e, "op_Modulus", T_TENSOR, T_INT32, a, fz_value_num(T_INT32, x->sc));
  case ID_REM_SC: {
    cJSON *s = fz_to_scalar(T_INT32, x->sc);
    return fz_method("remainder", a, ps, &s, 1);
  }
  default: break;
  }
  cJSON *d = divisor(e, x->in[1]);
  switch (x->op) {
  case ID_MOD_T: return fz_op2(e, "op_Modulus", T_TENSOR, T_TENSOR, a, d);
  case ID_FLOORDIV: {
    cJSON *args[2] = {a, d};
    return fz_torch("floor_divide", args, 2);
  }
  case ID_DIV_TRUNC: case ID_DIV_FLOOR: {
    const char *pr[3] = {T_TENSOR, T_TENSOR, "TorchSharp.torch+RoundingMode"};
    int m = x->op == ID_DIV_TRUNC ? 1 : 2;
    cJSON *args[3] = {a, d, fz_enum("TorchSharp.torch+RoundingMode", m, rounding[m])};
    if (x->op == ID_DIV_TRUNC) return fz_static(D_TORCH, "div", pr, args, 3);
    return fz_method("div", a, pr + 1, args + 1, 2);
  }
  case ID_FMOD: {
    cJSON *args[2] = {a, d};
    return fz_torch("fmod", args, 2);
  }
  default: return fz_method("remainder", a, pt, &d, 1);
  }
}

static cJSON *expr_act(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  const char *pd2[2] = {T_DOUBLE, T_DOUBLE}, *ps2[2] = {T_SCALAR, T_SCALAR};
  switch (x->op) {
  case AC_GELU: return fz_method("gelu", a, NULL, NULL, 0);
  case AC_GELU_F: {
    const char *pr[1] = {T_TENSOR};
    return fz_static(D_FUNC, "gelu", pr, &a, 1);
  }
  case AC_GELU_TANH: {
    const char *pr[1] = {"TorchSharp.Modules.GELU+Approximate"};
    cJSON *m = fz_enum(pr[0], 1, "tanh");
    return fz_method("gelu", a, pr, &m, 1);
  }
  case AC_SILU: return fz_method("silu", a, NULL, NULL, 0);
  case AC_SILU_F: case AC_MISH: case AC_HARDSWISH: {
    const char *pr[2] = {T_TENSOR, T_BOOL};
    cJSON *args[2] = {a, fz_value_bool(false)};
    return fz_static(D_FUNC, x->op == AC_SILU_F ? "silu" : x->op == AC_MISH ? "mish" : "hardswish", pr, args, 2);
  }
  case AC_SOFTPLUS: {
    cJSON *args[2] = {fz_value_num(T_DOUBLE, fabs(x->sc) < 0.5 ? 2 : fabs(x->sc)), fz_value_num(T_DOUBLE, 5)};
    return fz_method("softplus", a, pd2, args, 2);
  }
  case AC_ELU: {
    const char *pr[1] = {T_DOUBLE};
    cJSON *al = fz_value_num(T_DOUBLE, fabs(x->sc));
    return fz_method("elu", a, pr, &al, 1);
  }
  case AC_HARDTANH: {
    cJSON *args[2] = {fz_implicit_scalar(T_SINGLE, -2), fz_implicit_scalar(T_SINGLE, 2)};
    return fz_method("hardtanh", a, ps2, args, 2);
  }
  case AC_HARDTANH_F: {
    const char *pr[4] = {T_TENSOR, T_DOUBLE, T_DOUBLE, T_BOOL};
    cJSON *args[4] = {a, fz_value_num(T_DOUBLE, -1), fz_value_num(T_DOUBLE, 1), fz_value_bool(false)};
    return fz_static(D_FUNC, "hardtanh", pr, args, 4);
  }
  case AC_LEAKY: {
    const char *pr[1] = {T_SCALAR};
    cJSON *s = fz_implicit_scalar(T_DOUBLE, 0.2);
    return fz_method("leaky_relu", a, pr, &s, 1);
  }
  case AC_LEAKY_F: {
    const char *pr[3] = {T_TENSOR, T_DOUBLE, T_BOOL};
    cJSON *args[3] = {a, fz_value_num(T_DOUBLE, 0.01), fz_value_bool(false)};
    return fz_static(D_FUNC, "leaky_relu", pr, args, 3);
  }
  case AC_CLAMP: {
    const char *ty = x->sc_int ? T_INT32 : T_SINGLE;
    cJSON *args[2] = {fz_to_scalar(ty, -x->sc), fz_to_scalar(ty, x->sc)};
    return fz_method("clamp", a, ps2, args, 2);
  }
  default: { /* AC_POW2 */
    const char *pr[1] = {T_SCALAR};
    cJSON *s = fz_to_scalar(T_SINGLE, 2);
    return fz_method("pow", a, pr, &s, 1);
  }
  }
}

cJSON *fz_expr_pw(fz_em *e, const fz_node *x) {
  switch (x->kind) {
  case N_BIN: {
    cJSON *a = fz_ref(e, x->in[0]);
    return fz_op2(e, arith_name[x->op], T_TENSOR, T_TENSOR, a, fz_ref(e, x->in[1]));
  }
  case N_BINS: {
    const char *st = x->sc_int ? T_INT32 : T_SINGLE;
    cJSON *a = fz_ref(e, x->in[0]);
    if (x->sc_left) return fz_op2(e, arith_name[x->op], st, T_TENSOR, fz_scalar_value(x->sc, x->sc_int), a);
    return fz_op2(e, arith_name[x->op], T_TENSOR, st, a, fz_scalar_value(x->sc, x->sc_int));
  }
  case N_DIV: {
    cJSON *a = fz_ref(e, x->in[0]);
    cJSON *absb = fz_method("abs", fz_ref(e, x->in[1]), NULL, NULL, 0);
    cJSON *den = fz_op2(e, "op_Addition", T_TENSOR, T_SINGLE, absb, fz_value_num(T_SINGLE, 1));
    return fz_op2(e, "op_Division", T_TENSOR, T_TENSOR, a, den);
  }
  case N_UN: {
    cJSON *a = fz_ref(e, x->in[0]);
    switch (x->op) {
    case U_EXP: return fz_method("exp", a, NULL, NULL, 0);
    case U_TANH: return fz_method("tanh", a, NULL, NULL, 0);
    case U_TANH_T: return fz_torch("tanh", &a, 1);
    case U_SIGMOID: return fz_method("sigmoid", a, NULL, NULL, 0);
    case U_SIGMOID_T: return fz_torch("sigmoid", &a, 1);
    case U_SIN_T: return fz_torch("sin", &a, 1);
    case U_COS: return fz_method("cos", a, NULL, NULL, 0);
    case U_SQRTABS: return fz_method("sqrt", fz_method("abs", a, NULL, NULL, 0), NULL, NULL, 0);
    case U_LOGABS1:
      return fz_method("log", fz_op2(e, "op_Addition", T_TENSOR, T_SINGLE, fz_method("abs", a, NULL, NULL, 0), fz_value_num(T_SINGLE, 1)), NULL, NULL, 0);
    case U_ABS: return fz_method("abs", a, NULL, NULL, 0);
    case U_NEG: return fz_method("neg", a, NULL, NULL, 0);
    case U_NEGOP: return fz_neg_op(e, a);
    default: return fz_method("relu", a, NULL, NULL, 0);
    }
  }
  case N_CMP: {
    const char *params[1] = {T_TENSOR};
    cJSON *a = fz_ref(e, x->in[0]);
    cJSON *b = fz_ref(e, x->in[1]);
    return fz_method(cmp_name[x->op], a, params, &b, 1);
  }
  case N_CMPS: {
    const char *params[1] = {T_SCALAR};
    cJSON *s = fz_to_scalar(T_SINGLE, x->sc);
    return fz_method(cmp_name[x->op], fz_ref(e, x->in[0]), params, &s, 1);
  }
  case N_WHERE: {
    cJSON *args[3];
    args[0] = fz_ref(e, x->in[0]), args[1] = fz_ref(e, x->in[1]), args[2] = fz_ref(e, x->in[2]);
    return fz_torch("where", args, 3);
  }
  case N_CAST: {
    cJSON *a = fz_ref(e, x->in[0]);
    if (x->alias) return fz_method(fz_dt_method[x->dtype], a, NULL, NULL, 0);
    const char *params[4] = {"TorchSharp.torch+ScalarType", T_BOOL, T_BOOL, T_BOOL};
    cJSON *args[4] = {fz_dtype_field(x->dtype), fz_value_bool(false), fz_value_bool(false), fz_value_bool(false)};
    return fz_method("to_type", a, params, args, 4);
  }
  case N_INTDIV: case N_SHIFT: case N_BITW: return expr_intops(e, x);
  default: return expr_act(e, x);
  }
}
