/* codegen-cuda/cuda.c — kernel IR → CUDA C.
 *
 * The text is in the common subset of C11 and CUDA C++ (no templates,
 * references, overloads, or bool; `expf` not `exp`), so the same bytes compile
 * under NVRTC and — after kg_emu.h — under the host C compiler for the CPU
 * emulator. Registers: bool values are int 0/1, float16/bfloat16 values are
 * float (rounded to their dtype after each op, kg_rh / kg_rbf), every other
 * dtype its C type. Storage: codegen converts at loads and stores. Integer
 * arithmetic is done in unsigned types and converted back, so it wraps without
 * undefined behaviour on either compiler. Float literals print exactly
 * (%.9g / %.17g round-trip) with a suffix and never as "1e+38.0".
 *
 * Planted faults (TEST ONLY): the environment variable KGEN_PLANT_FAULT, read in one
 * place (plant_faults(), once per kg_cuda_emit call), makes this printer wrong on purpose
 * so that `kgen fuzz` and `kgen reduce` can be tested end to end (tests/test_shrink.c,
 * docs/fuzz.md). A comma-separated list of:
 *   mul-as-sub   an int32 multiplication is printed as a subtraction (a wrong answer);
 *   crash-rank3  abort() when printing a kernel whose iteration space has 3 or more dims
 *                (one with size or stride parameters for dim 2 or beyond: a strided or
 *                row kernel over a rank >= 3 space), i.e. a crash inside kgen.
 * Unknown names are ignored. Never set it outside tests: the output is wrong by design.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_int.h"
#include "prelude.h"
#include "prelude_tc.h"

/* Planted faults (file-top comment): bits of emit.plant. */
enum { PLANT_MUL_AS_SUB = 1, PLANT_CRASH_RANK3 = 2 };

typedef kg_cu_emit emit;

/* C type of a register value */
static const char *rtype(kg_dtype t) {
  switch (t) {
  case KG_BOOL: return "int";
  case KG_U8: return "unsigned char";
  case KG_I8: return "signed char";
  case KG_I16: return "short";
  case KG_I32: return "int";
  case KG_I64: return "long long";
  case KG_F16:
  case KG_BF16:
  case KG_F32: return "float";
  case KG_F64: return "double";
  default: return "?";
  }
}
static const char *isfx(kg_dtype t) {
  switch (t) {
  case KG_I8: return "i8";
  case KG_U8: return "u8";
  case KG_I16: return "i16";
  case KG_I64: return "i64";
  default: return "i32";
  }
}
static const char *utype(kg_dtype t) { return t == KG_I64 ? "unsigned long long" : "unsigned int"; }
static bool is_f64(kg_dtype t) { return t == KG_F64; }

static void var_name(const emit *E, uint32_t v, kg_strbuf *o) {
  kg_sb_printf(o, "v%u", v);
  const char *n = E->k->vars.v[v].name;
  if (!n) return;
  kg_sb_putc(o, '_');
  for (const char *p = n; *p && p - n < 24; p++) {
    char ch = *p;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    kg_sb_putc(o, ok ? ch : '_');
  }
}

static void float_lit(kg_strbuf *o, double v, bool dbl) {
  if (v != v) { kg_sb_puts(o, dbl ? "KG_NAN_D" : "KG_NAN_F"); return; }
  if (isinf(v)) { kg_sb_puts(o, v > 0 ? (dbl ? "KG_INF_D" : "KG_INF_F") : (dbl ? "(-KG_INF_D)" : "(-KG_INF_F)")); return; }
  char buf[64];
  snprintf(buf, sizeof buf, dbl ? "%.17g" : "%.9g", v);
  bool has = strpbrk(buf, ".e") != NULL;
  if (v < 0 || (v == 0 && signbit(v))) kg_sb_putc(o, '(');
  kg_sb_puts(o, buf);
  if (!has) kg_sb_puts(o, ".0");
  if (!dbl) kg_sb_putc(o, 'f');
  if (v < 0 || (v == 0 && signbit(v))) kg_sb_putc(o, ')');
}

static void int_lit(kg_strbuf *o, int64_t v, kg_dtype t) {
  if (t == KG_I64) {
    if (v == INT64_MIN) kg_sb_puts(o, "(-9223372036854775807LL - 1)");
    else kg_sb_printf(o, v < 0 ? "(%lldLL)" : "%lldLL", (long long)v);
  } else {
    if (v == INT32_MIN) kg_sb_puts(o, "(-2147483647 - 1)");
    else kg_sb_printf(o, v < 0 ? "(%lld)" : "%lld", (long long)v);
  }
}

static void ex(const emit *E, uint32_t e);

/* Round a float-register result to float16 / bfloat16 when the dtype asks. */
static void open_round(const emit *E, kg_dtype t) {
  if (t == KG_F16) kg_sb_puts(E->o, "kg_rh(");
  else if (t == KG_BF16) kg_sb_puts(E->o, "kg_rbf(");
  else kg_sb_putc(E->o, '(');
}

static void bin(const emit *E, const char *opx, uint32_t a, uint32_t b) {
  kg_sb_putc(E->o, '(');
  ex(E, a);
  kg_sb_printf(E->o, " %s ", opx);
  ex(E, b);
  kg_sb_putc(E->o, ')');
}

static void call1(const emit *E, const char *fn, uint32_t a) {
  kg_sb_printf(E->o, "%s(", fn);
  ex(E, a);
  kg_sb_putc(E->o, ')');
}
static void call2(const emit *E, const char *fn, uint32_t a, uint32_t b) {
  kg_sb_printf(E->o, "%s(", fn);
  ex(E, a);
  kg_sb_puts(E->o, ", ");
  ex(E, b);
  kg_sb_putc(E->o, ')');
}
static void call3(const emit *E, const char *fn, uint32_t a, uint32_t b, uint32_t c) {
  kg_sb_printf(E->o, "%s(", fn);
  ex(E, a);
  kg_sb_puts(E->o, ", ");
  ex(E, b);
  kg_sb_puts(E->o, ", ");
  ex(E, c);
  kg_sb_putc(E->o, ')');
}

/* wrapping integer binary op: (T)((U)a op (U)b) */
static void ibin(const emit *E, kg_dtype t, const char *opx, uint32_t a, uint32_t b) {
  kg_sb_printf(E->o, "((%s)((%s)", rtype(t), utype(t));
  ex(E, a);
  kg_sb_printf(E->o, " %s (%s)", opx, utype(t));
  ex(E, b);
  kg_sb_puts(E->o, "))");
}

typedef struct fnames { kg_op op; const char *f; const char *d; } fnames;
static const fnames unary_math[] = {
    {KG_OP_EXP, "expf", "exp"},       {KG_OP_EXP2, "exp2f", "exp2"},     {KG_OP_EXPM1, "expm1f", "expm1"},
    {KG_OP_LOG, "logf", "log"},       {KG_OP_LOG1P, "log1pf", "log1p"},  {KG_OP_LOG2, "log2f", "log2"},
    {KG_OP_LOG10, "log10f", "log10"}, {KG_OP_SQRT, "sqrtf", "sqrt"},     {KG_OP_RSQRT, "rsqrtf", "rsqrt"},
    {KG_OP_CBRT, "cbrtf", "cbrt"},    {KG_OP_SIN, "sinf", "sin"},        {KG_OP_COS, "cosf", "cos"},
    {KG_OP_TAN, "tanf", "tan"},       {KG_OP_ASIN, "asinf", "asin"},     {KG_OP_ACOS, "acosf", "acos"},
    {KG_OP_ATAN, "atanf", "atan"},    {KG_OP_SINH, "sinhf", "sinh"},     {KG_OP_COSH, "coshf", "cosh"},
    {KG_OP_TANH, "tanhf", "tanh"},    {KG_OP_ERF, "erff", "erf"},        {KG_OP_ERFC, "erfcf", "erfc"},
    {KG_OP_FLOOR, "floorf", "floor"}, {KG_OP_CEIL, "ceilf", "ceil"},     {KG_OP_TRUNC, "truncf", "trunc"},
    {KG_OP_ABS, "fabsf", "fabs"},
};

static void lit(const emit *E, double v, kg_dtype t) { float_lit(E->o, v, is_f64(t)); }

/* Expression for a float op on float registers (t = F16 / BF16 / F32 / F64). */
static void float_op(const emit *E, const kg_kx *x, kg_dtype t) {
  kg_strbuf *o = E->o;
  bool d = is_f64(t);
  const char *sf = d ? "d" : "f";
  uint32_t a = x->a, b = x->b, c = x->c;
  for (size_t i = 0; i < KG_COUNTOF(unary_math); i++)
    if (unary_math[i].op == x->op) {
      call1(E, d ? unary_math[i].d : unary_math[i].f, a);
      return;
    }
  switch ((kg_op)x->op) {
  case KG_OP_ADD: bin(E, "+", a, b); return;
  case KG_OP_SUB: bin(E, "-", a, b); return;
  case KG_OP_MUL: bin(E, "*", a, b); return;
  case KG_OP_DIV: bin(E, "/", a, b); return;
  case KG_OP_IDIV:
  case KG_OP_TRUNCDIV: kg_sb_printf(o, "%s(", d ? "trunc" : "truncf"), bin(E, "/", a, b), kg_sb_putc(o, ')'); return;
  case KG_OP_FLOORDIV: kg_sb_printf(o, "%s(", d ? "floor" : "floorf"), bin(E, "/", a, b), kg_sb_putc(o, ')'); return;
  case KG_OP_REM: call2(E, d ? "kg_remd" : "kg_remf", a, b); return;
  case KG_OP_FMOD: call2(E, d ? "fmod" : "fmodf", a, b); return;
  case KG_OP_NEG: kg_sb_puts(o, "(-"), ex(E, a), kg_sb_putc(o, ')'); return;
  case KG_OP_POS: ex(E, a); return;
  case KG_OP_POW: case KG_OP_FLOAT_POW: call2(E, d ? "pow" : "powf", a, b); return;
  case KG_OP_ATAN2: call2(E, d ? "atan2" : "atan2f", a, b); return;
  case KG_OP_HYPOT: call2(E, d ? "hypot" : "hypotf", a, b); return;
  case KG_OP_XLOGY: call2(E, d ? "kg_xlogyd" : "kg_xlogyf", a, b); return;
  case KG_OP_MAXIMUM: case KG_OP_CLAMP_MIN: call2(E, d ? "kg_maxd" : "kg_maxf", a, b); return;
  case KG_OP_MINIMUM: case KG_OP_CLAMP_MAX: call2(E, d ? "kg_mind" : "kg_minf", a, b); return;
  case KG_OP_FMAX: call2(E, d ? "fmax" : "fmaxf", a, b); return;
  case KG_OP_FMIN: call2(E, d ? "fmin" : "fminf", a, b); return;
  case KG_OP_LERP: call3(E, d ? "kg_lerpd" : "kg_lerpf", a, b, c); return;
  case KG_OP_CLAMP:
    kg_sb_printf(o, "kg_min%s(kg_max%s(", sf, sf), ex(E, a), kg_sb_puts(o, ", "), ex(E, b), kg_sb_puts(o, "), "), ex(E, c), kg_sb_putc(o, ')');
    return;
  case KG_OP_SQUARE: bin(E, "*", a, a); return;
  case KG_OP_RECIP: kg_sb_puts(o, "("), lit(E, 1, t), kg_sb_puts(o, " / "), ex(E, a), kg_sb_putc(o, ')'); return;
  case KG_OP_SIGN: call1(E, d ? "kg_signd" : "kg_signf", a); return;
  case KG_OP_SIGMOID:
    kg_sb_puts(o, "("), lit(E, 1, t), kg_sb_puts(o, " / ("), lit(E, 1, t), kg_sb_printf(o, " + %s(-", d ? "exp" : "expf"), ex(E, a), kg_sb_puts(o, ")))");
    return;
  case KG_OP_ROUND:
    if (x->i == 0) { call1(E, d ? "rint" : "rintf", a); return; }
    {
      double m = pow(10.0, (double)(x->i > 0 ? x->i : -x->i));
      kg_sb_printf(o, "(%s(", d ? "rint" : "rintf");
      ex(E, a);
      kg_sb_puts(o, x->i > 0 ? " * " : " / "), lit(E, m, t);
      kg_sb_puts(o, x->i > 0 ? ") / " : ") * "), lit(E, m, t), kg_sb_putc(o, ')');
    }
    return;
  case KG_OP_FRAC: kg_sb_puts(o, "("), ex(E, a), kg_sb_printf(o, " - %s(", d ? "trunc" : "truncf"), ex(E, a), kg_sb_puts(o, "))"); return;
  case KG_OP_LOGIT:
    if (!x->i) {
      kg_sb_printf(o, "%s(", d ? "log" : "logf"), ex(E, a), kg_sb_puts(o, " / ("), lit(E, 1, t), kg_sb_puts(o, " - "), ex(E, a), kg_sb_puts(o, "))");
    } else {
      kg_sb_printf(o, "%s(kg_min%s(kg_max%s(", d ? "log" : "logf", sf, sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, x->f, t);
      kg_sb_puts(o, "), "), lit(E, 1 - x->f, t), kg_sb_printf(o, ") / (");
      lit(E, 1, t), kg_sb_printf(o, " - kg_min%s(kg_max%s(", sf, sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, x->f, t);
      kg_sb_puts(o, "), "), lit(E, 1 - x->f, t), kg_sb_puts(o, ")))");
    }
    return;
  case KG_OP_NAN_TO_NUM: {
    double big = t == KG_F64 ? 1.7976931348623157e308 : t == KG_F16 ? 65504.0 : t == KG_BF16 ? 3.3895313892515355e38 : 3.4028234663852886e38;
    kg_sb_printf(o, "kg_nan2num%s(", sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, x->f, t), kg_sb_puts(o, ", ");
    lit(E, (x->i & 1) ? x->f2 : big, t), kg_sb_puts(o, ", "), lit(E, (x->i & 2) ? x->f3 : -big, t), kg_sb_putc(o, ')');
    return;
  }
  case KG_OP_RELU: kg_sb_printf(o, "kg_max%s(", sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, 0, t), kg_sb_putc(o, ')'); return;
  case KG_OP_RELU6:
    kg_sb_printf(o, "kg_min%s(kg_max%s(", sf, sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, 0, t), kg_sb_puts(o, "), "), lit(E, 6, t), kg_sb_putc(o, ')');
    return;
  case KG_OP_HARDTANH:
    kg_sb_printf(o, "kg_min%s(kg_max%s(", sf, sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, x->f, t), kg_sb_puts(o, "), "), lit(E, x->f2, t), kg_sb_putc(o, ')');
    return;
  case KG_OP_GELU:
    if (x->i == 0) {
      kg_sb_puts(o, "("), lit(E, 0.5, t), kg_sb_puts(o, " * "), ex(E, a), kg_sb_puts(o, " * ("), lit(E, 1, t);
      kg_sb_printf(o, " + %s(", d ? "erf" : "erff"), ex(E, a), kg_sb_puts(o, " * "), lit(E, 0.70710678118654752440, t), kg_sb_puts(o, ")))");
    } else {
      kg_sb_puts(o, "("), lit(E, 0.5, t), kg_sb_puts(o, " * "), ex(E, a), kg_sb_puts(o, " * ("), lit(E, 1, t);
      kg_sb_printf(o, " + %s(", d ? "tanh" : "tanhf"), lit(E, 0.79788456080286535588, t), kg_sb_puts(o, " * (");
      ex(E, a), kg_sb_puts(o, " + "), lit(E, 0.044715, t), kg_sb_puts(o, " * "), ex(E, a), kg_sb_puts(o, " * "), ex(E, a), kg_sb_puts(o, " * "), ex(E, a);
      kg_sb_puts(o, "))))");
    }
    return;
  case KG_OP_SILU: kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " / ("), lit(E, 1, t), kg_sb_printf(o, " + %s(-", d ? "exp" : "expf"), ex(E, a), kg_sb_puts(o, ")))"); return;
  case KG_OP_SOFTPLUS:
    kg_sb_printf(o, "kg_softplus%s(", sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, x->f, t), kg_sb_puts(o, ", "), lit(E, x->f2, t), kg_sb_putc(o, ')');
    return;
  case KG_OP_LEAKY_RELU: kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " > 0 ? "), ex(E, a), kg_sb_puts(o, " : "), ex(E, a), kg_sb_puts(o, " * "), lit(E, x->f, t), kg_sb_putc(o, ')'); return;
  case KG_OP_ELU:
    kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " > 0 ? "), ex(E, a), kg_sb_puts(o, " * "), lit(E, x->f2, t);
    kg_sb_printf(o, " : (%s(", d ? "exp" : "expf"), ex(E, a), kg_sb_puts(o, " * "), lit(E, x->f3, t), kg_sb_puts(o, ") - "), lit(E, 1, t);
    kg_sb_puts(o, ") * "), lit(E, x->f * x->f2, t), kg_sb_putc(o, ')');
    return;
  case KG_OP_CELU:
    kg_sb_printf(o, "(kg_max%s(", sf), lit(E, 0, t), kg_sb_puts(o, ", "), ex(E, a), kg_sb_printf(o, ") + kg_min%s(", sf), lit(E, 0, t);
    kg_sb_puts(o, ", "), lit(E, x->f, t), kg_sb_printf(o, " * (%s(", d ? "exp" : "expf"), ex(E, a), kg_sb_puts(o, " / "), lit(E, x->f, t);
    kg_sb_puts(o, ") - "), lit(E, 1, t), kg_sb_puts(o, ")))");
    return;
  case KG_OP_SELU:
    kg_sb_puts(o, "("), lit(E, 1.0507009873554804934193349852946, t), kg_sb_puts(o, " * ("), ex(E, a), kg_sb_puts(o, " > 0 ? "), ex(E, a);
    kg_sb_puts(o, " : "), lit(E, 1.6732632423543772848170429916717, t), kg_sb_printf(o, " * (%s(", d ? "exp" : "expf"), ex(E, a), kg_sb_puts(o, ") - "), lit(E, 1, t), kg_sb_puts(o, ")))");
    return;
  case KG_OP_HARDSIGMOID:
    kg_sb_printf(o, "(kg_min%s(kg_max%s(", sf, sf), ex(E, a), kg_sb_puts(o, " + "), lit(E, 3, t), kg_sb_puts(o, ", "), lit(E, 0, t);
    kg_sb_puts(o, "), "), lit(E, 6, t), kg_sb_puts(o, ") / "), lit(E, 6, t), kg_sb_putc(o, ')');
    return;
  case KG_OP_HARDSWISH:
    kg_sb_puts(o, "("), ex(E, a), kg_sb_printf(o, " * kg_min%s(kg_max%s(", sf, sf), ex(E, a), kg_sb_puts(o, " + "), lit(E, 3, t), kg_sb_puts(o, ", "), lit(E, 0, t);
    kg_sb_puts(o, "), "), lit(E, 6, t), kg_sb_puts(o, ") / "), lit(E, 6, t), kg_sb_putc(o, ')');
    return;
  case KG_OP_MISH:
    kg_sb_puts(o, "("), ex(E, a), kg_sb_printf(o, " * %s(kg_softplus%s(", d ? "tanh" : "tanhf", sf), ex(E, a), kg_sb_puts(o, ", "), lit(E, 1, t);
    kg_sb_puts(o, ", "), lit(E, 20, t), kg_sb_puts(o, ")))");
    return;
  case KG_OP_LOGSIGMOID: call1(E, d ? "kg_logsigmoidd" : "kg_logsigmoidf", a); return;
  default: break;
  }
  kg_sb_printf(o, "/* unsupported float op %s */ 0", kg_op_name((kg_op)x->op));
}

/* Integer (and bool) ops on integer registers. */
static void int_op(const emit *E, const kg_kx *x, kg_dtype t) {
  kg_strbuf *o = E->o;
  uint32_t a = x->a, b = x->b, c = x->c;
  const char *s = isfx(t);
  if (t == KG_BOOL) {
    switch ((kg_op)x->op) {
    case KG_OP_ADD: case KG_OP_BOR: case KG_OP_MAXIMUM: case KG_OP_FMAX: case KG_OP_CLAMP_MIN: bin(E, "|", a, b); return;
    case KG_OP_MUL: case KG_OP_BAND: case KG_OP_MINIMUM: case KG_OP_FMIN: case KG_OP_CLAMP_MAX: bin(E, "&", a, b); return;
    case KG_OP_BXOR: bin(E, "^", a, b); return;
    case KG_OP_BNOT: kg_sb_puts(o, "(!"), ex(E, a), kg_sb_putc(o, ')'); return;
    case KG_OP_POS: case KG_OP_ABS: case KG_OP_SIGN: case KG_OP_FLOOR: case KG_OP_CEIL: case KG_OP_TRUNC: case KG_OP_ROUND:
    case KG_OP_RELU: case KG_OP_NAN_TO_NUM: case KG_OP_SQUARE:
      ex(E, a);
      return;
    case KG_OP_CLAMP: kg_sb_puts(o, "(("), ex(E, a), kg_sb_puts(o, " | "), ex(E, b), kg_sb_puts(o, ") & "), ex(E, c), kg_sb_putc(o, ')'); return;
    default: break;
    }
  }
  switch ((kg_op)x->op) {
  case KG_OP_ADD: ibin(E, t, "+", a, b); return;
  case KG_OP_SUB: ibin(E, t, "-", a, b); return;
  case KG_OP_MUL: ibin(E, t, (E->plant & PLANT_MUL_AS_SUB) && t == KG_I32 ? "-" : "*", a, b); return;
  case KG_OP_SQUARE: ibin(E, t, "*", a, a); return;
  case KG_OP_NEG: kg_sb_printf(o, "((%s)(0u - (%s)", rtype(t), utype(t)), ex(E, a), kg_sb_puts(o, "))"); return;
  case KG_OP_POS: case KG_OP_FLOOR: case KG_OP_CEIL: case KG_OP_TRUNC: case KG_OP_ROUND: case KG_OP_NAN_TO_NUM: ex(E, a); return;
  case KG_OP_IDIV: case KG_OP_TRUNCDIV: kg_sb_printf(o, "kg_idiv_%s", s), call2(E, "", a, b); return;
  case KG_OP_FMOD: kg_sb_printf(o, "kg_imod_%s", s), call2(E, "", a, b); return;
  case KG_OP_FLOORDIV: kg_sb_printf(o, "kg_fdiv_%s", s), call2(E, "", a, b); return;
  case KG_OP_REM: kg_sb_printf(o, "kg_frem_%s", s), call2(E, "", a, b); return;
  case KG_OP_POW: kg_sb_printf(o, "kg_ipow_%s", s), call2(E, "", a, b); return;
  case KG_OP_IDX_ADD: bin(E, "+", a, b); return;
  case KG_OP_IDX_MUL: bin(E, "*", a, b); return;
  case KG_OP_IDX_DIV: bin(E, "/", a, b); return;
  case KG_OP_IDX_MOD: bin(E, "%", a, b); return;
  case KG_OP_MAXIMUM: case KG_OP_FMAX: case KG_OP_CLAMP_MIN:
    kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " > "), ex(E, b), kg_sb_puts(o, " ? "), ex(E, a), kg_sb_puts(o, " : "), ex(E, b), kg_sb_putc(o, ')');
    return;
  case KG_OP_MINIMUM: case KG_OP_FMIN: case KG_OP_CLAMP_MAX:
    kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " < "), ex(E, b), kg_sb_puts(o, " ? "), ex(E, a), kg_sb_puts(o, " : "), ex(E, b), kg_sb_putc(o, ')');
    return;
  case KG_OP_CLAMP:
  case KG_OP_HARDTANH:
  case KG_OP_RELU6: {
    /* min(max(a, lo), hi) */
    kg_sb_puts(o, "((");
    ex(E, a), kg_sb_puts(o, " > ");
    if (x->op == KG_OP_CLAMP) ex(E, b); else int_lit(o, x->op == KG_OP_RELU6 ? 0 : (int64_t)x->f, t);
    kg_sb_puts(o, " ? "), ex(E, a), kg_sb_puts(o, " : ");
    if (x->op == KG_OP_CLAMP) ex(E, b); else int_lit(o, x->op == KG_OP_RELU6 ? 0 : (int64_t)x->f, t);
    kg_sb_puts(o, ") < ");
    if (x->op == KG_OP_CLAMP) ex(E, c); else int_lit(o, x->op == KG_OP_RELU6 ? 6 : (int64_t)x->f2, t);
    kg_sb_puts(o, " ? (");
    ex(E, a), kg_sb_puts(o, " > ");
    if (x->op == KG_OP_CLAMP) ex(E, b); else int_lit(o, x->op == KG_OP_RELU6 ? 0 : (int64_t)x->f, t);
    kg_sb_puts(o, " ? "), ex(E, a), kg_sb_puts(o, " : ");
    if (x->op == KG_OP_CLAMP) ex(E, b); else int_lit(o, x->op == KG_OP_RELU6 ? 0 : (int64_t)x->f, t);
    kg_sb_puts(o, ") : ");
    if (x->op == KG_OP_CLAMP) ex(E, c); else int_lit(o, x->op == KG_OP_RELU6 ? 6 : (int64_t)x->f2, t);
    kg_sb_putc(o, ')');
    return;
  }
  case KG_OP_RELU: kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " > 0 ? "), ex(E, a), kg_sb_puts(o, " : 0)"); return;
  case KG_OP_ABS: kg_sb_puts(o, "("), ex(E, a), kg_sb_printf(o, " < 0 ? (%s)(0u - (%s)", rtype(t), utype(t)), ex(E, a), kg_sb_puts(o, ") : "), ex(E, a), kg_sb_putc(o, ')'); return;
  case KG_OP_SIGN: kg_sb_printf(o, "((%s)((", rtype(t)), ex(E, a), kg_sb_puts(o, " > 0) - ("), ex(E, a), kg_sb_puts(o, " < 0)))"); return;
  case KG_OP_BAND: kg_sb_printf(o, "((%s)", rtype(t)), bin(E, "&", a, b), kg_sb_putc(o, ')'); return;
  case KG_OP_BOR: kg_sb_printf(o, "((%s)", rtype(t)), bin(E, "|", a, b), kg_sb_putc(o, ')'); return;
  case KG_OP_BXOR: kg_sb_printf(o, "((%s)", rtype(t)), bin(E, "^", a, b), kg_sb_putc(o, ')'); return;
  case KG_OP_BNOT: kg_sb_printf(o, "((%s)(~", rtype(t)), ex(E, a), kg_sb_puts(o, "))"); return;
  case KG_OP_SHL: kg_sb_printf(o, "kg_shl_%s", s), call2(E, "", a, b); return;
  case KG_OP_SHR: kg_sb_printf(o, "kg_shr_%s", s), call2(E, "", a, b); return;
  case KG_OP_NET_SHL: kg_sb_printf(o, "kg_nshl_%s", s), call2(E, "", a, b); return;
  case KG_OP_NET_SHR: kg_sb_printf(o, "kg_nshr_%s", s), call2(E, "", a, b); return;
  default: break;
  }
  kg_sb_printf(o, "/* unsupported int op %s */ 0", kg_op_name((kg_op)x->op));
}

static void cast_expr(const emit *E, kg_dtype to, uint32_t a) {
  kg_strbuf *o = E->o;
  kg_dtype from = (kg_dtype)E->k->exprs.v[a].dtype;
  if (to == KG_BOOL) { kg_sb_puts(o, "("), ex(E, a), kg_sb_puts(o, " != 0)"); return; }
  if (to == KG_F16 || to == KG_BF16) {
    kg_sb_puts(o, to == KG_F16 ? "kg_rh((float)" : "kg_rbf((float)"), ex(E, a), kg_sb_putc(o, ')');
    return;
  }
  if (kg_dtype_is_float(to)) { kg_sb_printf(o, "((%s)", rtype(to)), ex(E, a), kg_sb_putc(o, ')'); return; }
  if (kg_dtype_is_float(from)) { kg_sb_printf(o, "kg_f2i_%s((double)", isfx(to)), ex(E, a), kg_sb_putc(o, ')'); return; }
  kg_sb_printf(o, "((%s)", rtype(to)), ex(E, a), kg_sb_putc(o, ')');
}

static const char *sreg_c(uint32_t w) {
  static const char *n[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z",
                            "blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z"};
  return w < KG_COUNTOF(n) ? n[w] : "0";
}

static void load_conv_open(kg_strbuf *o, kg_dtype t) {
  if (t == KG_F16) kg_sb_puts(o, "kg_h2f(");
  else if (t == KG_BF16) kg_sb_puts(o, "kg_bf2f(");
  else if (t == KG_BOOL) kg_sb_puts(o, "(int)(");
  else kg_sb_putc(o, '(');
}

static void ex(const emit *E, uint32_t e) {
  kg_strbuf *o = E->o;
  const kg_kx *x = &E->k->exprs.v[e];
  kg_dtype t = (kg_dtype)x->dtype;
  switch ((kg_kx_kind)x->kind) {
  case KX_CONST:
    if (kg_dtype_is_float(t)) lit(E, x->f, t);
    else if (t == KG_BOOL) kg_sb_puts(o, x->i ? "1" : "0");
    else int_lit(o, x->i, t);
    return;
  case KX_VAR: var_name(E, x->a, o); return;
  case KX_PARAM: kg_sb_puts(o, E->k->params.v[x->a].name); return;
  case KX_SREG:
    if (x->a == KG_SREG_SMEM) kg_sb_puts(o, "(int)kg_saddr(kg_smem)");
    else kg_sb_printf(o, "(int)%s", sreg_c(x->a));
    return;
  case KX_LOAD:
    load_conv_open(o, t);
    kg_sb_printf(o, "%s[", E->k->params.v[x->a].name);
    ex(E, x->b);
    kg_sb_puts(o, t == KG_BOOL ? "] != 0)" : "])");
    return;
  case KX_SLOAD:
    kg_sb_printf(o, "sh%u_%s[", x->a, E->k->shared.v[x->a].name);
    ex(E, x->b);
    kg_sb_putc(o, ']');
    return;
  case KX_SMEM:
    kg_sb_printf(o, "(*(const %s *)(kg_smem + ", t == KG_F32 ? "float" : "int");
    ex(E, x->a);
    kg_sb_puts(o, "))");
    return;
  case KX_CAST: cast_expr(E, t, x->a); return;
  case KX_SELECT:
    kg_sb_putc(o, '(');
    ex(E, x->a), kg_sb_puts(o, " ? "), ex(E, x->b), kg_sb_puts(o, " : "), ex(E, x->c);
    kg_sb_putc(o, ')');
    return;
  case KX_OP: break;
  }
  if (x->op == KG_OP_TC_PACK2) { /* a fragment register (prelude_tc.h) */
    kg_sb_puts(o, x->i ? "kg_pack_bf2(" : "kg_pack_h2("), ex(E, x->a), kg_sb_puts(o, ", "), ex(E, x->b), kg_sb_putc(o, ')');
    return;
  }
  if (x->op == KG_OP_BITCAST) {
    kg_dtype from = (kg_dtype)E->k->exprs.v[x->a].dtype;
    kg_sb_puts(o, t == KG_F32 && from == KG_I32 ? "__int_as_float(" : t == KG_I32 && from == KG_F32 ? "__float_as_int(" : "(");
    ex(E, x->a), kg_sb_putc(o, ')');
    return;
  }
  if (x->op == KG_OP_SHFL_XOR) {
    kg_sb_puts(o, "__shfl_xor_sync(0xffffffffu, "), ex(E, x->a), kg_sb_puts(o, ", "), ex(E, x->b), kg_sb_putc(o, ')');
    return;
  }
  if (x->op == KG_OP_TF32_RNA) {
    kg_sb_puts(o, "kg_tf32("), ex(E, x->a), kg_sb_putc(o, ')');
    return;
  }
  if (x->op == KG_OP_PHILOX) { /* a draw (prelude: KG_CUDA_PRELUDE_RNG) */
    static const char *fn[] = {"kg_rand_u24", "kg_rand_u53", "kg_randn_f", "kg_randn_d"};
    kg_sb_printf(o, "%s((long long)", fn[x->i & 3]), ex(E, x->a), kg_sb_puts(o, ", (long long)"), ex(E, x->b);
    kg_sb_puts(o, ", (long long)"), ex(E, x->c), kg_sb_putc(o, ')');
    return;
  }
  const kg_op_info *oi = kg_op_get((kg_op)x->op);
  kg_dtype at = x->a != KG_NONE ? (kg_dtype)E->k->exprs.v[x->a].dtype : t;
  if (oi->flags & KG_OPF_REDUCE) { /* block-wide collective */
    const char *comb = x->op == KG_OP_RPROD ? "prod" : x->op == KG_OP_RAMAX ? "max" : x->op == KG_OP_RAMIN ? "min" : "sum";
    const char *sfx = t == KG_F64 ? "d" : t == KG_I64 ? "ll" : kg_dtype_is_float(t) ? "f" : "i";
    uint32_t lanes = kg_coll_lanes(x->i); /* a warp's or a segment's lanes: kg_wall's width */
    kg_sb_printf(o, "kg_%s_%s_%s(", lanes ? "wall" : x->i ? "ball" : "bred", comb, sfx);
    ex(E, x->a);
    if (lanes) kg_sb_printf(o, ", %u", lanes);
    kg_sb_putc(o, ')');
    return;
  }
  /* comparisons and predicates: operands have the compute dtype, result is bool */
  if (oi->flags & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED)) {
    switch ((kg_op)x->op) {
    case KG_OP_EQ: bin(E, "==", x->a, x->b); return;
    case KG_OP_NE: bin(E, "!=", x->a, x->b); return;
    case KG_OP_LT: bin(E, "<", x->a, x->b); return;
    case KG_OP_LE: bin(E, "<=", x->a, x->b); return;
    case KG_OP_GT: bin(E, ">", x->a, x->b); return;
    case KG_OP_GE: bin(E, ">=", x->a, x->b); return;
    case KG_OP_LAND: bin(E, "&&", x->a, x->b); return;
    case KG_OP_LOR: bin(E, "||", x->a, x->b); return;
    case KG_OP_LXOR: kg_sb_puts(o, "(("), ex(E, x->a), kg_sb_puts(o, " != 0) != ("), ex(E, x->b), kg_sb_puts(o, " != 0))"); return;
    case KG_OP_LNOT: kg_sb_puts(o, "(!"), ex(E, x->a), kg_sb_putc(o, ')'); return;
    case KG_OP_ISNAN:
      if (kg_dtype_is_float(at)) { kg_sb_puts(o, "("), ex(E, x->a), kg_sb_puts(o, " != "), ex(E, x->a), kg_sb_putc(o, ')'); }
      else kg_sb_puts(o, "0");
      return;
    case KG_OP_ISINF:
      if (kg_dtype_is_float(at)) { kg_sb_puts(o, "(isinf("), ex(E, x->a), kg_sb_puts(o, ") != 0)"); }
      else kg_sb_puts(o, "0");
      return;
    case KG_OP_ISFINITE:
      if (kg_dtype_is_float(at)) { kg_sb_puts(o, "(isfinite("), ex(E, x->a), kg_sb_puts(o, ") != 0)"); }
      else kg_sb_puts(o, "1");
      return;
    case KG_OP_ISCLOSE:
      kg_sb_puts(o, "kg_isclosed((double)"), ex(E, x->a), kg_sb_puts(o, ", (double)"), ex(E, x->b);
      kg_sb_puts(o, ", "), float_lit(o, x->f, true), kg_sb_puts(o, ", "), float_lit(o, x->f2, true);
      kg_sb_printf(o, ", %d)", x->i ? 1 : 0);
      return;
    default: break;
    }
  }
  if (kg_dtype_is_float(t)) {
    open_round(E, t);
    float_op(E, x, t);
    kg_sb_putc(o, ')');
  } else {
    int_op(E, x, t);
  }
}

/* ---- vector access ---- */

static const char *vtype(uint32_t bytes) {
  switch (bytes) {
  case 16: return "uint4";
  case 8: return "uint2";
  case 4: return "unsigned int";
  case 2: return "unsigned short";
  default: return "unsigned char";
  }
}

/* the 32-bit word w of a vector value r of `bytes` bytes */
static void word(kg_strbuf *o, uint32_t bytes, uint32_t w) {
  static const char *f[] = {"r.x", "r.y", "r.z", "r.w"};
  if (bytes >= 8) kg_sb_puts(o, f[w]);
  else kg_sb_puts(o, "(unsigned int)r");
}

static void vload(const emit *E, const kg_ks *st, int ind) {
  kg_strbuf *o = E->o;
  const kg_kparam *p = &E->k->params.v[st->a];
  kg_dtype t = (kg_dtype)p->dtype;
  uint32_t sz = kg_dtype_get(t)->size, vec = E->k->vec, bytes = sz * vec;
  kg_sb_indent(o, ind);
  kg_sb_printf(o, "%s ", rtype(t));
  for (uint32_t j = 0; j < vec; j++) {
    if (j) kg_sb_puts(o, ", ");
    var_name(E, st->c + j, o);
  }
  kg_sb_puts(o, ";\n");
  kg_sb_indent(o, ind);
  kg_sb_printf(o, "{ const %s r = *(const %s *)(%s + ", vtype(bytes), vtype(bytes), p->name);
  ex(E, st->b);
  kg_sb_puts(o, ");\n");
  for (uint32_t j = 0; j < vec; j++) {
    kg_sb_indent(o, ind + 1);
    var_name(E, st->c + j, o);
    kg_sb_puts(o, " = ");
    uint32_t byte = j * sz, w = byte / 4, sh = (byte % 4) * 8;
    switch (sz) {
    case 8:
      kg_sb_puts(o, t == KG_F64 ? "__longlong_as_double((long long)(((unsigned long long)" : "(long long)(((unsigned long long)");
      word(o, bytes, w + 1), kg_sb_puts(o, " << 32) | "), word(o, bytes, w);
      kg_sb_puts(o, t == KG_F64 ? "))" : ")");
      break;
    case 4:
      if (t == KG_F32) kg_sb_puts(o, "__uint_as_float("), word(o, bytes, w), kg_sb_putc(o, ')');
      else kg_sb_puts(o, "(int)"), word(o, bytes, w);
      break;
    case 2:
      kg_sb_puts(o, t == KG_F16 ? "kg_h2f((unsigned short)((" : t == KG_BF16 ? "kg_bf2f((unsigned short)((" : "(short)(unsigned short)((");
      word(o, bytes, w), kg_sb_printf(o, " >> %u) & 0xffffu)", sh);
      if (t == KG_F16 || t == KG_BF16) kg_sb_putc(o, ')');
      break;
    default:
      kg_sb_puts(o, t == KG_BOOL ? "(int)(((" : t == KG_I8 ? "(signed char)(unsigned char)((" : "(unsigned char)((");
      word(o, bytes, w), kg_sb_printf(o, " >> %u) & 0xffu)", sh);
      if (t == KG_BOOL) kg_sb_puts(o, " != 0)");
      break;
    }
    kg_sb_puts(o, ";\n");
  }
  kg_sb_indent(o, ind);
  kg_sb_puts(o, "}\n");
}

/* bits of lane value v (a var) of dtype t, as an unsigned int of `sz` bytes */
static void lane_bits(const emit *E, kg_dtype t, uint32_t var, bool hi) {
  kg_strbuf *o = E->o;
  switch (t) {
  case KG_F32: kg_sb_puts(o, "__float_as_uint("), var_name(E, var, o), kg_sb_putc(o, ')'); return;
  case KG_F64:
    kg_sb_printf(o, "(unsigned int)((unsigned long long)__double_as_longlong("), var_name(E, var, o), kg_sb_printf(o, ")%s)", hi ? " >> 32" : "");
    return;
  case KG_I64: kg_sb_printf(o, "(unsigned int)((unsigned long long)"), var_name(E, var, o), kg_sb_printf(o, "%s)", hi ? " >> 32" : ""); return;
  case KG_F16: kg_sb_puts(o, "(unsigned int)kg_f2h("), var_name(E, var, o), kg_sb_putc(o, ')'); return;
  case KG_BF16: kg_sb_puts(o, "(unsigned int)kg_f2bf("), var_name(E, var, o), kg_sb_putc(o, ')'); return;
  case KG_I16: kg_sb_puts(o, "(unsigned int)(unsigned short)"), var_name(E, var, o); return;
  case KG_I8:
  case KG_U8:
  case KG_BOOL: kg_sb_puts(o, "(unsigned int)(unsigned char)"), var_name(E, var, o); return;
  default: kg_sb_puts(o, "(unsigned int)"), var_name(E, var, o); return;
  }
}

static void vstore(const emit *E, const kg_ks *st, int ind) {
  kg_strbuf *o = E->o;
  const kg_kparam *p = &E->k->params.v[st->a];
  kg_dtype t = (kg_dtype)p->dtype;
  uint32_t sz = kg_dtype_get(t)->size, vec = E->k->vec, bytes = sz * vec;
  uint32_t words = bytes >= 4 ? bytes / 4 : 1;
  static const char *f[] = {"x", "y", "z", "w"};
  kg_sb_indent(o, ind);
  kg_sb_printf(o, "{ %s r;\n", vtype(bytes));
  for (uint32_t w = 0; w < words; w++) {
    kg_sb_indent(o, ind + 1);
    if (bytes >= 8) kg_sb_printf(o, "r.%s = ", f[w]);
    else kg_sb_printf(o, "r = (%s)(", vtype(bytes));
    bool first = true;
    for (uint32_t j = 0; j < vec; j++) {
      uint32_t byte = j * sz;
      if (sz == 8) {
        if (byte / 4 != w && byte / 4 + 1 != w) continue;
        lane_bits(E, t, st->c + j, byte / 4 + 1 == w);
        first = false;
        continue;
      }
      if (byte / 4 != w) continue;
      if (!first) kg_sb_puts(o, " | ");
      kg_sb_putc(o, '(');
      lane_bits(E, t, st->c + j, false);
      kg_sb_printf(o, " << %u)", (byte % 4) * 8);
      first = false;
    }
    kg_sb_puts(o, bytes >= 8 ? ";\n" : ");\n");
  }
  kg_sb_indent(o, ind + 1);
  kg_sb_printf(o, "*(%s *)(%s + ", vtype(bytes), p->name);
  ex(E, st->b);
  kg_sb_puts(o, ") = r; }\n");
}

/* ---- statements ---- */

static void store_conv(const emit *E, kg_dtype t, uint32_t v) {
  kg_strbuf *o = E->o;
  if (t == KG_F16) kg_sb_puts(o, "kg_f2h("), ex(E, v), kg_sb_putc(o, ')');
  else if (t == KG_BF16) kg_sb_puts(o, "kg_f2bf("), ex(E, v), kg_sb_putc(o, ')');
  else if (t == KG_BOOL) kg_sb_puts(o, "(unsigned char)("), ex(E, v), kg_sb_puts(o, " != 0)");
  else kg_sb_printf(o, "(%s)", kg_dtype_get(t)->ctype), ex(E, v);
}

static void block(const emit *E, uint32_t s, int ind) {
  kg_strbuf *o = E->o;
  const kg_kernel *k = E->k;
  for (; s != KG_NONE; s = k->stmts.v[s].next) {
    const kg_ks *st = &k->stmts.v[s];
    if (st->kind == KS_VLOAD) { vload(E, st, ind); continue; }
    if (st->kind == KS_VSTORE) { vstore(E, st, ind); continue; }
    if (st->kind == KS_DOT) { /* kg_dot16_NIxNJ(P, Y, offsets..., steps): prelude.h, kg_cpu.h */
      kg_sb_indent(o, ind);
      kg_sb_printf(o, "kg_dot16_%ux%u(%s, %s", st->imm & 0xff, st->imm >> 8, k->params.v[st->a].name, k->params.v[st->b].name);
      for (uint32_t j = 0; j < 1 + (st->imm & 0xff) + (st->imm >> 8); j++) kg_sb_puts(o, ", "), var_name(E, st->c + j, o);
      kg_sb_puts(o, ", "), ex(E, st->d), kg_sb_puts(o, ");\n");
      continue;
    }
    if (st->kind == KS_TPACK) { /* kg_tpack16(P, Y, o_p, {o_y(0 .. 15)}, count, row stride): prelude.h, kg_cpu.h */
      kg_sb_indent(o, ind);
      kg_sb_puts(o, "{ const long long kg_yo_[16] = {");
      for (uint32_t j = 0; j < 16; j++) kg_sb_puts(o, j ? ", " : ""), var_name(E, st->c + 1 + j, o);
      kg_sb_printf(o, "}; kg_tpack16(%s, %s, ", k->params.v[st->a].name, k->params.v[st->b].name);
      var_name(E, st->c, o);
      kg_sb_puts(o, ", kg_yo_, "), ex(E, st->d), kg_sb_printf(o, ", %u); }\n", st->imm ? st->imm : 16);
      continue;
    }
    kg_sb_indent(o, ind);
    switch ((kg_ks_kind)st->kind) {
    case KS_DECL:
      kg_sb_printf(o, "%s ", rtype((kg_dtype)k->vars.v[st->a].dtype));
      var_name(E, st->a, o);
      kg_sb_puts(o, " = ");
      if (st->b != KG_NONE) ex(E, st->b);
      else kg_sb_puts(o, "0");
      kg_sb_puts(o, ";\n");
      break;
    case KS_ASSIGN:
      var_name(E, st->a, o);
      kg_sb_puts(o, " = ");
      ex(E, st->b);
      kg_sb_puts(o, ";\n");
      break;
    case KS_STORE:
      kg_sb_printf(o, "%s[", k->params.v[st->a].name);
      ex(E, st->b);
      kg_sb_puts(o, "] = ");
      store_conv(E, (kg_dtype)k->params.v[st->a].dtype, st->c);
      kg_sb_puts(o, ";\n");
      break;
    case KS_IF:
      kg_sb_puts(o, "if (");
      ex(E, st->a);
      kg_sb_puts(o, ") {\n");
      block(E, st->body, ind + 1);
      kg_sb_indent(o, ind);
      if (st->els != KG_NONE) {
        kg_sb_puts(o, "} else {\n");
        block(E, st->els, ind + 1);
        kg_sb_indent(o, ind);
      }
      kg_sb_puts(o, "}\n");
      break;
    case KS_FOR: {
      kg_dtype vt = (kg_dtype)k->vars.v[st->a].dtype;
      if (st->incl) {
        /* F# for: end inclusive and evaluated once; no overflow past the end */
        kg_sb_printf(o, "{ %s ", rtype(vt)), var_name(E, st->a, o), kg_sb_puts(o, " = "), ex(E, st->b);
        kg_sb_printf(o, "; const %s e%u = ", rtype(vt), s), ex(E, st->c), kg_sb_puts(o, ";\n");
        kg_sb_indent(o, ind + 1);
        kg_sb_puts(o, "if ("), var_name(E, st->a, o), kg_sb_printf(o, " <= e%u) for (;; ", s), var_name(E, st->a, o);
        kg_sb_puts(o, " = ("), kg_sb_printf(o, "%s)(", rtype(vt)), var_name(E, st->a, o), kg_sb_puts(o, " + "), ex(E, st->d), kg_sb_puts(o, ")) {\n");
        block(E, st->body, ind + 2);
        kg_sb_indent(o, ind + 2);
        kg_sb_puts(o, "if ("), var_name(E, st->a, o), kg_sb_printf(o, " >= e%u) break;\n", s);
        kg_sb_indent(o, ind + 1);
        kg_sb_puts(o, "}\n");
        kg_sb_indent(o, ind);
        kg_sb_puts(o, "}\n");
      } else {
        if (st->imm & 1) kg_sb_puts(o, "KG_IVDEP\n"), kg_sb_indent(o, ind); /* independent iterations (the host compiler's vectorizer) */
        kg_sb_printf(o, "for (%s ", rtype(vt)), var_name(E, st->a, o), kg_sb_puts(o, " = "), ex(E, st->b);
        kg_sb_puts(o, "; "), var_name(E, st->a, o), kg_sb_puts(o, " < "), ex(E, st->c), kg_sb_puts(o, "; "), var_name(E, st->a, o);
        kg_sb_puts(o, " += "), ex(E, st->d), kg_sb_puts(o, ") {\n");
        block(E, st->body, ind + 1);
        kg_sb_indent(o, ind);
        kg_sb_puts(o, "}\n");
      }
      break;
    }
    case KS_WHILE:
      kg_sb_puts(o, "while (");
      ex(E, st->a);
      kg_sb_puts(o, ") {\n");
      block(E, st->body, ind + 1);
      kg_sb_indent(o, ind);
      kg_sb_puts(o, "}\n");
      break;
    case KS_SSTORE: {
      kg_dtype at = (kg_dtype)k->shared.v[st->a].dtype, vt = (kg_dtype)k->exprs.v[st->c].dtype;
      kg_sb_printf(o, "sh%u_%s[", st->a, k->shared.v[st->a].name);
      ex(E, st->b);
      kg_sb_puts(o, "] = ");
      if (vt != at) kg_sb_printf(o, "(%s)", rtype(at));
      ex(E, st->c);
      kg_sb_puts(o, ";\n");
      break;
    }
    case KS_BREAK: kg_sb_puts(o, "break;\n"); break;
    case KS_SMEM_ST:
    case KS_TC: kg_cu_tc_stmt(E, st, ind); break;
    case KS_BARRIER: kg_sb_puts(o, "__syncthreads();\n"); break;
    case KS_COMMENT: kg_sb_printf(o, "/* %s */\n", st->text ? st->text : ""); break;
    default: break;
    }
  }
}

/* A kernel's private scratch (a CPU product's panels, a split's partials: the runtime's own
 * allocation) never shares storage with a tensor, so it is __restrict__: the compiler may keep
 * values loaded from the tensors in registers across the stores into it (a panel copy's
 * prologue reads the same per-channel values for every column). */
static bool scratch_param(const kg_kparam *p) { return p->role == KPR_TENSOR && p->r0 == KG_BUF_SCRATCH; }

static void signature(const kg_kernel *k, kg_strbuf *o) {
  for (uint32_t i = 0; i < k->params.n; i++) {
    const kg_kparam *p = &k->params.v[i];
    if (i) kg_sb_puts(o, ", ");
    if (p->kind == KP_BUFFER)
      kg_sb_printf(o, "%s%s *%s%s", p->is_output ? "" : "const ", kg_dtype_get((kg_dtype)p->dtype)->ctype, scratch_param(p) ? "__restrict__ " : "", p->name);
    else if (p->kind == KP_TMAP) kg_sb_printf(o, "const __grid_constant__ kg_tmap %s", p->name);
    else kg_sb_printf(o, "%s %s", p->dtype == KG_BOOL ? "unsigned char" : rtype((kg_dtype)p->dtype), p->name);
  }
}

void kg_cu_ex(const kg_cu_emit *E, uint32_t e) { ex(E, e); }
void kg_cu_var(const kg_cu_emit *E, uint32_t v, kg_strbuf *o) { var_name(E, v, o); }

/* The one reader of KGEN_PLANT_FAULT (test only; file-top comment). */
static unsigned plant_faults(void) {
  const char *v = getenv("KGEN_PLANT_FAULT");
  unsigned m = 0;
  for (const char *p = v; p && *p;) {
    size_t l = strcspn(p, ",");
    if (l == 10 && !strncmp(p, "mul-as-sub", l)) m |= PLANT_MUL_AS_SUB;
    if (l == 11 && !strncmp(p, "crash-rank3", l)) m |= PLANT_CRASH_RANK3;
    p += l + (p[l] == ',');
  }
  return m;
}

/* Dims of a kernel's iteration space that its parameters name (size or stride of dim d). */
static uint32_t space_rank(const kg_kernel *k) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < k->params.n; i++) {
    const kg_kparam *p = &k->params.v[i];
    uint32_t d = p->role == KPR_SIZE ? p->r0 : p->role == KPR_STRIDE ? p->r1 : 0;
    if ((p->role == KPR_SIZE || p->role == KPR_STRIDE) && d + 1 > r) r = d + 1;
  }
  return r;
}

void kg_cuda_emit(const kg_kernel *const *ks, uint32_t n, const char *program, kg_strbuf *o) {
  unsigned plant = plant_faults();
  kg_sb_printf(o, "/* kgen %s: %s — %u kernel%s. Generated code: edits are lost. */\n", "0.1.0", program ? program : "", n, n == 1 ? "" : "s");
  kg_sb_puts(o, KG_CUDA_PRELUDE_1);
  kg_sb_puts(o, KG_CUDA_PRELUDE_2);
  kg_sb_puts(o, KG_CUDA_PRELUDE_3);
  kg_sb_puts(o, KG_CUDA_PRELUDE_4);
  kg_sb_puts(o, KG_CUDA_PRELUDE_5);
  bool reduces = false;
  for (uint32_t i = 0; i < n && !reduces; i++)
    for (uint32_t e = 0; e < ks[i]->exprs.n && !reduces; e++)
      reduces = ks[i]->exprs.v[e].kind == KX_OP && (kg_op_get((kg_op)ks[i]->exprs.v[e].op)->flags & KG_OPF_REDUCE);
  bool draws = false; /* the random generator only where a kernel draws (other translation units unchanged) */
  for (uint32_t i = 0; i < n && !draws; i++)
    for (uint32_t e = 0; e < ks[i]->exprs.n && !draws; e++) draws = ks[i]->exprs.v[e].kind == KX_OP && ks[i]->exprs.v[e].op == KG_OP_PHILOX;
  if (draws) kg_sb_puts(o, KG_CUDA_PRELUDE_RNG);
  bool dots = false; /* the CPU products' helpers (KS_DOT, KS_TPACK) */
  for (uint32_t i = 0; i < n && !dots; i++)
    for (uint32_t q = 0; q < ks[i]->stmts.n && !dots; q++) dots = ks[i]->stmts.v[q].kind == KS_DOT || ks[i]->stmts.v[q].kind == KS_TPACK;
  if (dots) kg_sb_puts(o, KG_CUDA_PRELUDE_DOT);
  bool tc = false; /* the tensor-core prelude only where a kernel has dynamic shared memory */
  for (uint32_t i = 0; i < n && !tc; i++) tc = ks[i]->launch.smem_dyn > 0;
  if (tc) {
    kg_sb_puts(o, KG_CUDA_PRELUDE_TC_1);
    kg_sb_puts(o, KG_CUDA_PRELUDE_TC_HOPPER);
    kg_sb_puts(o, KG_CUDA_PRELUDE_TC_2);
  }
  if (reduces) { /* block reductions only where used: their __shared__ arrays cost nothing otherwise */
    kg_sb_puts(o, KG_CUDA_PRELUDE_6);
    kg_sb_puts(o, KG_CUDA_PRELUDE_7);
    kg_sb_puts(o, KG_CUDA_PRELUDE_8);
  }
  for (uint32_t i = 0; i < n; i++) {
    const kg_kernel *k = ks[i];
    emit E = {k, o, plant};
    if ((plant & PLANT_CRASH_RANK3) && space_rank(k) >= 3) abort(); /* planted fault: a crash, test only */
    kg_sb_printf(o, "\n/* %s: schedule %s, index %s, block %u, %u element%s per thread */\n", k->name,
                 k->schedule ? k->schedule : "?", kg_dtype_name((kg_dtype)k->index_dtype), k->launch.block[0],
                 k->launch.elems_per_thread, k->launch.elems_per_thread == 1 ? "" : "s");
    if (k->max_threads) kg_sb_printf(o, "KG_KERNEL void __launch_bounds__(%u, 1) %s(", k->max_threads, k->name);
    else kg_sb_printf(o, "KG_KERNEL void %s(", k->name);
    signature(k, o);
    kg_sb_puts(o, ") {\n");
    for (uint32_t a = 0; a < k->shared.n; a++)
      kg_sb_printf(o, "  __shared__ %s sh%u_%s[%u];\n", rtype((kg_dtype)k->shared.v[a].dtype), a, k->shared.v[a].name, k->shared.v[a].count);
    if (k->launch.smem_dyn) kg_sb_printf(o, "  KG_SMEM_DECL; /* %u bytes */\n", k->launch.smem_dyn);
    block(&E, k->body, 1);
    kg_sb_puts(o, "}\n");
  }
}

void kg_cuda_emit_trampolines(const kg_kernel *const *ks, uint32_t n, kg_strbuf *o) {
  kg_sb_puts(o, "\n/* emulator trampolines: unpack cuLaunchKernel-style parameter arrays */\n");
  for (uint32_t i = 0; i < n; i++) {
    const kg_kernel *k = ks[i];
    kg_sb_printf(o, "void %s__kg_thread(void **p);\nvoid %s__kg_thread(void **p) { %s(", k->name, k->name, k->name);
    for (uint32_t j = 0; j < k->params.n; j++) {
      const kg_kparam *p = &k->params.v[j];
      if (j) kg_sb_puts(o, ", ");
      if (p->kind == KP_BUFFER)
        kg_sb_printf(o, "*(%s%s **)p[%u]", p->is_output ? "" : "const ", kg_dtype_get((kg_dtype)p->dtype)->ctype, j);
      else if (p->kind == KP_TMAP) kg_sb_printf(o, "*(const kg_tmap *)p[%u]", j);
      else kg_sb_printf(o, "*(%s *)p[%u]", p->dtype == KG_BOOL ? "unsigned char" : rtype((kg_dtype)p->dtype), j);
    }
    kg_sb_puts(o, "); }\n");
  }
}
