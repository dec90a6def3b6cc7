/* ir/eval.c — exact scalar semantics on constants.
 *
 * Used by constant folding (passes/fold.c) and by the frontend to decide
 * compile-time conditions. Every rule here mirrors what the CUDA emitter
 * produces (codegen-cuda/cuda.c): integer arithmetic wraps, integer division
 * by zero gives 0, float→int conversion truncates and saturates (NaN → 0),
 * float16/bfloat16 values are rounded to nearest even after each op, and
 * float32 ops are computed in single precision. Ops whose device results
 * may legitimately differ from the host's libm by an ulp (transcendentals)
 * are NOT folded, so a folded constant always equals the run-time value. */
#include <math.h>
#include <string.h>

#include "ir.h"

uint16_t kg_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to inf */
  if (ax < 0x38800000u) {                                    /* subnormal or zero in half */
    if (ax < 0x33000000u) return (uint16_t)sign;             /* < half of the smallest subnormal */
    uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(ax >> 23) + 24 - 10; /* to align to 2^-24 units */
    uint32_t r = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((ax >> 13) - (112u << 10));
  uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) r++;
  return (uint16_t)(sign | r);
}

float kg_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
  if (e == 0x1f) x = sign | 0x7f800000u | (m << 13);
  else if (e) x = sign | ((e + 112u) << 23) | (m << 13);
  else if (!m) x = sign;
  else {
    float f = (float)m * 0x1p-24f;
    return sign ? -f : f;
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

uint16_t kg_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

float kg_bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static double round_to(kg_dtype t, double v) {
  switch (t) {
  case KG_F32: return (double)(float)v;
  case KG_F16: return (double)kg_f16_to_f32(kg_f32_to_f16((float)v));
  case KG_BF16: return (double)kg_bf16_to_f32(kg_f32_to_bf16((float)v));
  default: return v;
  }
}

static int64_t wrap_to(kg_dtype t, int64_t v) {
  uint64_t u = (uint64_t)v;
  switch (t) {
  case KG_BOOL: return v != 0;
  case KG_U8: return (int64_t)(uint8_t)u;
  case KG_I8: return (int64_t)(int8_t)(uint8_t)u;
  case KG_I16: return (int64_t)(int16_t)(uint16_t)u;
  case KG_I32: return (int64_t)(int32_t)(uint32_t)u;
  default: return v;
  }
}

kg_cval kg_cval_int(kg_dtype t, int64_t v) {
  kg_cval c = {t, 0, 0};
  if (kg_dtype_is_float(t)) c.f = round_to(t, (double)v);
  else c.i = wrap_to(t, v);
  return c;
}
kg_cval kg_cval_float(kg_dtype t, double v) {
  kg_cval c = {t, 0, 0};
  if (kg_dtype_is_float(t)) c.f = round_to(t, v);
  else return kg_cval_cast((kg_cval){KG_F64, 0, v}, t);
  return c;
}
double kg_cval_as_double(kg_cval v) { return kg_dtype_is_float(v.dt) ? v.f : (double)v.i; }
bool kg_cval_truthy(kg_cval v) { return kg_dtype_is_float(v.dt) ? v.f != 0 : v.i != 0; }

/* float → integer: truncate toward zero, saturate, NaN → 0 (kernels use the same rule). */
static int64_t f2i(double f, kg_dtype t) {
  if (f != f) return 0;
  double lo, hi;
  switch (t) {
  case KG_U8: lo = 0, hi = 255; break;
  case KG_I8: lo = -128, hi = 127; break;
  case KG_I16: lo = -32768, hi = 32767; break;
  case KG_I32: lo = -2147483648.0, hi = 2147483647.0; break;
  default: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
  }
  if (f <= lo) return (int64_t)lo;
  if (f >= hi) return t == KG_I64 ? INT64_MAX : (int64_t)hi;
  return (int64_t)trunc(f);
}

kg_cval kg_cval_cast(kg_cval v, kg_dtype t) {
  if (t == KG_BOOL) return (kg_cval){t, kg_cval_truthy(v), 0};
  if (kg_dtype_is_float(t)) return kg_cval_float(t, kg_cval_as_double(v));
  if (kg_dtype_is_float(v.dt)) return (kg_cval){t, f2i(v.f, t), 0};
  return kg_cval_int(t, v.i);
}

static int bits_of(kg_dtype t) { return kg_dtype_get(t)->size * 8; }

bool kg_eval_op(kg_op op, kg_dtype out, kg_dtype cdt, const kg_cval *a, int n, const int64_t ia[2],
                const double fa[4], kg_cval *res) {
  (void)ia, (void)fa;
  bool fl = kg_dtype_is_float(cdt);
  double x = n > 0 ? kg_cval_as_double(a[0]) : 0, y = n > 1 ? kg_cval_as_double(a[1]) : 0;
  int64_t p = n > 0 ? a[0].i : 0, q = n > 1 ? a[1].i : 0;
  uint64_t up = (uint64_t)p, uq = (uint64_t)q;
  switch (op) {
  case KG_OP_IDX_ADD:
  case KG_OP_ADD: *res = fl ? kg_cval_float(out, x + y) : kg_cval_int(out, (int64_t)(up + uq)); return true;
  case KG_OP_SUB: *res = fl ? kg_cval_float(out, x - y) : kg_cval_int(out, (int64_t)(up - uq)); return true;
  case KG_OP_IDX_MUL:
  case KG_OP_MUL: *res = fl ? kg_cval_float(out, x * y) : kg_cval_int(out, (int64_t)(up * uq)); return true;
  case KG_OP_NEG: *res = fl ? kg_cval_float(out, -x) : kg_cval_int(out, (int64_t)(0 - up)); return true;
  case KG_OP_POS: *res = fl ? kg_cval_float(out, x) : kg_cval_int(out, p); return true;
  case KG_OP_DIV:
    if (!fl) return false;
    *res = kg_cval_float(out, x / y);
    return true;
  case KG_OP_IDIV:
  case KG_OP_TRUNCDIV:
    if (fl) { *res = kg_cval_float(out, trunc(x / y)); return true; }
    if (q == 0) { *res = kg_cval_int(out, 0); return true; }
    if (q == -1) { *res = kg_cval_int(out, (int64_t)(0 - up)); return true; }
    *res = kg_cval_int(out, p / q);
    return true;
  case KG_OP_FLOORDIV:
    if (fl) { *res = kg_cval_float(out, floor(x / y)); return true; }
    if (q == 0) { *res = kg_cval_int(out, 0); return true; }
    if (q == -1) { *res = kg_cval_int(out, (int64_t)(0 - up)); return true; }
    { int64_t d = p / q; if ((p % q != 0) && ((p < 0) != (q < 0))) d--; *res = kg_cval_int(out, d); }
    return true;
  case KG_OP_FMOD:
    if (fl) { *res = kg_cval_float(out, fmod(x, y)); return true; }
    *res = kg_cval_int(out, (q == 0 || q == -1) ? 0 : p % q);
    return true;
  case KG_OP_REM:
    if (fl) {
      double r = fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      *res = kg_cval_float(out, r);
      return true;
    }
    if (q == 0 || q == -1) { *res = kg_cval_int(out, 0); return true; }
    { int64_t r = p % q; if (r != 0 && ((r < 0) != (q < 0))) r += q; *res = kg_cval_int(out, r); }
    return true;
  case KG_OP_MAXIMUM:
  case KG_OP_MINIMUM: {
    bool mx = op == KG_OP_MAXIMUM;
    if (fl) {
      if (x != x || y != y) { *res = kg_cval_float(out, NAN); return true; }
      *res = kg_cval_float(out, mx ? (x > y ? x : y) : (x < y ? x : y));
    } else {
      *res = kg_cval_int(out, mx ? (p > q ? p : q) : (p < q ? p : q));
    }
    return true;
  }
  case KG_OP_EQ: *res = kg_cval_int(KG_BOOL, fl ? x == y : p == q); return true;
  case KG_OP_NE: *res = kg_cval_int(KG_BOOL, fl ? x != y : p != q); return true;
  case KG_OP_LT: *res = kg_cval_int(KG_BOOL, fl ? x < y : p < q); return true;
  case KG_OP_LE: *res = kg_cval_int(KG_BOOL, fl ? x <= y : p <= q); return true;
  case KG_OP_GT: *res = kg_cval_int(KG_BOOL, fl ? x > y : p > q); return true;
  case KG_OP_GE: *res = kg_cval_int(KG_BOOL, fl ? x >= y : p >= q); return true;
  case KG_OP_LAND: *res = kg_cval_int(KG_BOOL, kg_cval_truthy(a[0]) && kg_cval_truthy(a[1])); return true;
  case KG_OP_LOR: *res = kg_cval_int(KG_BOOL, kg_cval_truthy(a[0]) || kg_cval_truthy(a[1])); return true;
  case KG_OP_LXOR: *res = kg_cval_int(KG_BOOL, kg_cval_truthy(a[0]) != kg_cval_truthy(a[1])); return true;
  case KG_OP_LNOT: *res = kg_cval_int(KG_BOOL, !kg_cval_truthy(a[0])); return true;
  case KG_OP_BAND: if (fl) return false; *res = kg_cval_int(out, p & q); return true;
  case KG_OP_BOR: if (fl) return false; *res = kg_cval_int(out, p | q); return true;
  case KG_OP_BXOR: if (fl) return false; *res = kg_cval_int(out, p ^ q); return true;
  case KG_OP_BNOT:
    if (fl) return false;
    *res = out == KG_BOOL ? kg_cval_int(out, !p) : kg_cval_int(out, ~p);
    return true;
  case KG_OP_NET_SHL:
  case KG_OP_NET_SHR: {
    if (fl) return false;
    int b = bits_of(cdt), s = (int)(q & (b - 1));
    if (op == KG_OP_NET_SHL) *res = kg_cval_int(out, (int64_t)(up << s));
    else if (kg_dtype_get(cdt)->is_signed) *res = kg_cval_int(out, p >> s);
    else *res = kg_cval_int(out, (int64_t)(up >> s));
    return true;
  }
  case KG_OP_SHL:
  case KG_OP_SHR: {
    if (fl) return false;
    int b = bits_of(cdt);
    if (q < 0 || q >= b) {
      *res = kg_cval_int(out, (op == KG_OP_SHR && kg_dtype_get(cdt)->is_signed && p < 0) ? -1 : 0);
      return true;
    }
    if (op == KG_OP_SHL) *res = kg_cval_int(out, (int64_t)(up << q));
    else if (kg_dtype_get(cdt)->is_signed) *res = kg_cval_int(out, p >> q);
    else *res = kg_cval_int(out, (int64_t)(up >> q));
    return true;
  }
  case KG_OP_ABS: *res = fl ? kg_cval_float(out, fabs(x)) : kg_cval_int(out, p < 0 ? (int64_t)(0 - up) : p); return true;
  case KG_OP_SQUARE: *res = fl ? kg_cval_float(out, x * x) : kg_cval_int(out, (int64_t)(up * up)); return true;
  case KG_OP_FLOOR: *res = fl ? kg_cval_float(out, floor(x)) : kg_cval_int(out, p); return true;
  case KG_OP_CEIL: *res = fl ? kg_cval_float(out, ceil(x)) : kg_cval_int(out, p); return true;
  case KG_OP_TRUNC: *res = fl ? kg_cval_float(out, trunc(x)) : kg_cval_int(out, p); return true;
  case KG_OP_ROUND:
    if (ia && ia[0]) return false;
    *res = fl ? kg_cval_float(out, nearbyint(x)) : kg_cval_int(out, p);
    return true;
  case KG_OP_SIGN:
    if (fl) *res = kg_cval_float(out, x != x ? x : (x > 0) - (x < 0));
    else *res = kg_cval_int(out, (p > 0) - (p < 0));
    return true;
  case KG_OP_ISNAN: *res = kg_cval_int(KG_BOOL, fl && x != x); return true;
  case KG_OP_ISINF: *res = kg_cval_int(KG_BOOL, fl && isinf(x)); return true;
  case KG_OP_ISFINITE: *res = kg_cval_int(KG_BOOL, !fl || isfinite(x)); return true;
  case KG_OP_SQRT:
    /* IEEE sqrt is correctly rounded on host and device alike */
    if (!fl) return false;
    *res = kg_cval_float(out, cdt == KG_F64 ? sqrt(x) : (double)sqrtf((float)x));
    return true;
  case KG_OP_CAST: *res = kg_cval_cast(a[0], out); return true;
  case KG_OP_WHERE: *res = kg_cval_cast(kg_cval_truthy(a[0]) ? a[1] : a[2], out); return true;
  default: return false;
  }
}

bool kg_eval_node(const kg_gnode *n, const kg_cval *operands, kg_cval *res) {
  if (n->n_in > 3) return false;
  kg_cval a[3];
  for (int j = 0; j < n->n_in; j++) {
    kg_dtype to = n->cdtype < KG_DT__COUNT ? (kg_dtype)n->cdtype : operands[j].dt;
    if ((n->op == KG_OP_NET_SHL || n->op == KG_OP_NET_SHR) && j == 1) to = operands[j].dt;
    a[j] = kg_cval_cast(operands[j], n->op == KG_OP_CAST ? operands[j].dt : to);
  }
  return kg_eval_op((kg_op)n->op, (kg_dtype)n->dtype, (kg_dtype)n->cdtype, a, n->n_in, n->ia, n->fa, res);
}

/* Transcendentals with the host's libm, at the compute dtype's precision (float32 through
 * the float functions, as .NET's MathF and the CUDA single-precision ones are). Only for
 * host values of a host plan, which the program computes on the host (a .NET program on
 * the CPU would): constant folding does not use it, so a value computed in a kernel is
 * never folded to a host libm result. */
bool kg_eval_node_host(const kg_gnode *n, const kg_cval *operands, kg_cval *res) {
  if (kg_eval_node(n, operands, res)) return true;
  kg_dtype cdt = n->cdtype < KG_DT__COUNT ? (kg_dtype)n->cdtype : (kg_dtype)n->dtype;
  if (n->op == KG_OP_CLAMP && n->n_in == 3) { /* min(max(a, lo), hi), NaN-propagating, as kernels do */
    kg_cval a[3], t;
    for (int j = 0; j < 3; j++) a[j] = kg_cval_cast(operands[j], cdt);
    if (!kg_eval_op(KG_OP_MAXIMUM, cdt, cdt, a, 2, NULL, NULL, &t)) return false;
    kg_cval b[2] = {t, a[2]};
    return kg_eval_op(KG_OP_MINIMUM, (kg_dtype)n->dtype, cdt, b, 2, NULL, NULL, res);
  }
  if (!kg_dtype_is_float(cdt) || !kg_dtype_is_float((kg_dtype)n->dtype) || n->n_in < 1 || n->n_in > 2) return false;
  double x = kg_cval_as_double(kg_cval_cast(operands[0], cdt));
  double y = n->n_in == 2 ? kg_cval_as_double(kg_cval_cast(operands[1], cdt)) : 0;
  bool f64 = cdt == KG_F64;
  float xf = (float)x, yf = (float)y;
  double r;
  switch ((kg_op)n->op) {
  case KG_OP_EXP: r = f64 ? exp(x) : expf(xf); break;
  case KG_OP_LOG: r = f64 ? log(x) : logf(xf); break;
  case KG_OP_LOG2: r = f64 ? log2(x) : log2f(xf); break;
  case KG_OP_LOG10: r = f64 ? log10(x) : log10f(xf); break;
  case KG_OP_CBRT: r = f64 ? cbrt(x) : cbrtf(xf); break;
  case KG_OP_SIN: r = f64 ? sin(x) : sinf(xf); break;
  case KG_OP_COS: r = f64 ? cos(x) : cosf(xf); break;
  case KG_OP_TAN: r = f64 ? tan(x) : tanf(xf); break;
  case KG_OP_ASIN: r = f64 ? asin(x) : asinf(xf); break;
  case KG_OP_ACOS: r = f64 ? acos(x) : acosf(xf); break;
  case KG_OP_ATAN: r = f64 ? atan(x) : atanf(xf); break;
  case KG_OP_SINH: r = f64 ? sinh(x) : sinhf(xf); break;
  case KG_OP_COSH: r = f64 ? cosh(x) : coshf(xf); break;
  case KG_OP_TANH: r = f64 ? tanh(x) : tanhf(xf); break;
  case KG_OP_ATAN2: if (n->n_in != 2) return false; r = f64 ? atan2(x, y) : atan2f(xf, yf); break;
  case KG_OP_POW: if (n->n_in != 2) return false; r = f64 ? pow(x, y) : powf(xf, yf); break;
  default: return false;
  }
  *res = kg_cval_float((kg_dtype)n->dtype, r);
  return true;
}
