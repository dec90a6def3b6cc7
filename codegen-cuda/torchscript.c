/* codegen-cuda/torchscript.c — the PyTorch twin of a typed tensor program.
 *
 * Emits one Python function per entry, either as TorchScript source (for
 * torch.jit.CompilationUnit) or as a plain eager-Python module. The twin makes
 * ONE torch call per op with the op's own PyTorch spelling and never inserts a
 * cast the program does not have: PyTorch applies its own type promotion, so a
 * disagreement with kgen's type inference shows up as a dtype mismatch in the
 * cross-check (architecture.md: "two independent semantics meet").
 *
 *   def bias_tanh(x: torch.Tensor, b: torch.Tensor, s: torch.Tensor):
 *       t2 = float(s)  # %2 $.entries[0]...
 *       t3 = torch.add(x, b)  # %3 $.entries[0].expr.body.body.args[0]
 *       t4 = torch.mul(torch.tanh(t3), t2) ...
 *       return t4
 *
 * Names: a node's value is t<id>; a tensor parameter keeps its sanitized F#
 * name (kg_ts_param_name); CONST nodes are inlined as Python literals (wrapped
 * numbers, as TorchSharp passes them); locals of a map node N are t<N>_<x><k>.
 * Every line that comes from a node ends with "# %<id> <json path>".
 *
 * .NET scalars (vkind KG_V_SCALAR) are Python numbers, which is how a Scalar
 * takes part in PyTorch's type promotion. An op on scalars is computed on 0-dim
 * tensors of its dtype and converted back (float()/int()/bool()): int32 wraps,
 * float32 rounds to single, x/0.0 is inf and sqrt(-1) is NaN exactly as in .NET,
 * where Python numbers would use bignums, doubles and exceptions instead.
 *
 * Map lambdas (MAP nodes) are vectorized by ts_map.c with the "kernel" expression emitter:
 * every local becomes a full-shape tensor, each statement runs under a bool
 * mask (if → two masks, while/for → a Python loop that runs while any lane is
 * active, break → clears lanes from the loop's masks), and integer division,
 * remainder, shifts, pow and float→int casts get the guards that kernels have
 * (x/0 = 0, no traps, saturating casts) through small helper functions that
 * are emitted before the entry function when used.
 *
 * An entry with a host plan gets its loops, branches, item() reads and views as Python
 * control flow around the same per-op lines (ts_plan.c).
 *
 * Matrix products call torch.matmul / mm / bmm / mv / dot, torch.nn.functional.linear,
 * torch.addmm / baddbmm (beta, alpha) as written (baddbmm with beta 0 as alpha · bmm: the
 * oracle's PyTorch reads uninitialized memory there).
 *
 * upcast_half (CPU reference mode): float16/bfloat16 values are carried as
 * float32 and rounded back to their dtype after every op that yields them, so
 * the values equal op-by-op half-precision PyTorch on a GPU (which computes
 * half ops in float32 and rounds once); every operand of an op that computes in
 * half precision (a comparison's operands' common dtype included) is rounded to
 * it first, Python numbers too, as PyTorch converts operands to the common dtype.
 *
 * One spelling dodges TorchScript's optimizer: a bool tensor times the int 1 (plus
 * 0) takes the int as a 0-dim int64 tensor, since the optimizing executor drops the
 * op as a no-op and loses PyTorch's promotion to int64 (bool_noop_int).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_int.h"

/* ---- context (ts_ctx and vval: ts_int.h) ---- */

const char *kg_twin_fmt(ts_ctx *c, const char *f, ...) {
  kg_strbuf b;
  kg_sb_init(&b);
  va_list ap;
  va_start(ap, f);
  kg_sb_vprintf(&b, f, ap);
  va_end(ap);
  char *r = kg_arena_strdup(c->a, kg_sb_cstr(&b));
  kg_sb_free(&b);
  return r;
}

void kg_twin_fail(ts_ctx *c, uint32_t node, const char *f, ...) {
  const kg_gnode *n = node < c->g->nodes.n ? &c->g->nodes.v[node] : NULL;
  if (c->ok) {
    kg_strbuf b;
    kg_sb_init(&b);
    kg_sb_puts(&b, "TorchScript twin: ");
    va_list ap;
    va_start(ap, f);
    kg_sb_vprintf(&b, f, ap);
    va_end(ap);
    kg_diag_add(c->d, KG_E_UNSUPPORTED, n ? n->path : NULL, n ? n->srcloc : NULL, "%s", kg_sb_cstr(&b));
    kg_sb_free(&b);
  }
  c->ok = false;
}

static bool is_half(kg_dtype t) { return t == KG_F16 || t == KG_BF16; }
kg_dtype kg_twin_carry(const ts_ctx *c, kg_dtype t) { return c->up && is_half(t) ? KG_F32 : t; }
const char *kg_twin_tdt(ts_ctx *c, kg_dtype t) { return fmt(c, "torch.%s", kg_dtype_name(t)); }
static int dt_bits(kg_dtype t) { return 8 * kg_dtype_get(t)->size; }

/* ---- output lines ---- */

void kg_twin_pad(ts_ctx *c) {
  for (int i = 0; i < c->ind; i++) kg_sb_puts(c->body, "    ");
}

/* "  # %<id> <path>" for a line that comes from node id. */
void kg_twin_node_comment(ts_ctx *c, uint32_t id) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_sb_printf(c->body, "  # %%%u", id);
  if (n->path) {
    kg_sb_putc(c->body, ' ');
    for (const char *p = n->path; *p; p++) kg_sb_putc(c->body, *p == '\n' || *p == '\r' ? ' ' : *p);
  }
}

void kg_twin_line(ts_ctx *c, uint32_t node, const char *f, ...) {
  pad(c);
  va_list ap;
  va_start(ap, f);
  kg_sb_vprintf(c->body, f, ap);
  va_end(ap);
  if (node != KG_NONE) node_comment(c, node);
  kg_sb_putc(c->body, '\n');
}

/* ---- literals ---- */

/* A float literal that reads back as exactly v: the shortest %.Ng that round-trips. */
static const char *float_lit(ts_ctx *c, double v) {
  if (isnan(v)) return "float('nan')";
  if (isinf(v)) return v > 0 ? "float('inf')" : "float('-inf')";
  /* like Python's repr: the shortest digits, fixed notation for exponents in [-4, 16) */
  char buf[64];
  int p = 1;
  for (;; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    if (p == 17 || strtod(buf, NULL) == v) break;
  }
  int e = atoi(strchr(buf, 'e') + 1);
  if (e >= -4 && e < 16) {
    snprintf(buf, sizeof buf, "%.*f", p - 1 - e > 0 ? p - 1 - e : 0, v);
    if (!strchr(buf, '.')) strcat(buf, ".0");
  }
  return kg_arena_strdup(c->a, buf);
}

static const char *lit_text(ts_ctx *c, kg_dtype dt, int64_t i, double f) {
  if (dt == KG_BOOL) return i ? "True" : "False";
  if (kg_dtype_is_float(dt)) return float_lit(c, f);
  if (i == INT64_MIN) return "(-9223372036854775807 - 1)"; /* TorchScript cannot negate 2^63 */
  return fmt(c, "%lld", (long long)i);
}

const char *kg_twin_text(ts_ctx *c, vval v) { return v.s ? v.s : lit_text(c, (kg_dtype)v.dt, v.i, v.f); }

/* A Python number as a Scalar argument: TorchScript takes no bool there. */
const char *kg_twin_scalar_arg(ts_ctx *c, vval v) {
  if (v.dt != KG_BOOL) return text(c, v);
  if (v.s) return fmt(c, "int(%s)", v.s);
  return v.i ? "1" : "0";
}

/* A 0-dim tensor holding a Python number. Not torch.tensor(v, dtype=...):
 * TorchScript builds that through float32 (1e-300 becomes 0.0 in float64). */
const char *kg_twin_zero_dim(ts_ctx *c, const char *val, kg_dtype dt, const char *device) {
  if (device) return fmt(c, "torch.full([], %s, dtype=%s, device=%s.device)", val, tdt(c, dt), device);
  return fmt(c, "torch.full([], %s, dtype=%s)", val, tdt(c, dt));
}

vval kg_twin_vlit(kg_dtype dt, int64_t i, double f) {
  vval v = {NULL, (uint8_t)dt, true, false, i, f};
  return v;
}
vval kg_twin_vtens(const char *s, kg_dtype dt, bool full) {
  vval v = {s, (uint8_t)dt, false, full, 0, 0};
  return v;
}

/* A literal converted at emit time as a kernel converts it (C conversions;
 * float -> int saturates, NaN -> 0; int -> narrower int wraps). Not for half. */
static vval lit_convert(vval v, kg_dtype to) {
  bool from_f = kg_dtype_is_float((kg_dtype)v.dt);
  double fv = from_f ? v.f : (double)v.i;
  vval r = vlit(to, 0, 0);
  if (to == KG_BOOL) {
    r.i = from_f ? (v.f != 0) : (v.i != 0);
  } else if (kg_dtype_is_int(to)) {
    int64_t x;
    if (from_f) {
      static const double lo[] = {[KG_U8] = 0, [KG_I8] = -128, [KG_I16] = -32768, [KG_I32] = -2147483648.0,
                                  [KG_I64] = -9223372036854775808.0};
      static const double hi[] = {[KG_U8] = 255, [KG_I8] = 127, [KG_I16] = 32767, [KG_I32] = 2147483647.0,
                                  [KG_I64] = 9223372036854775808.0};
      if (isnan(fv)) x = 0;
      else if (fv <= lo[to]) x = to == KG_I64 ? INT64_MIN : (int64_t)lo[to];
      else if (fv >= hi[to]) x = to == KG_I64 ? INT64_MAX : (int64_t)hi[to];
      else x = (int64_t)fv;
    } else {
      x = v.i;
    }
    switch (to) {
    case KG_U8: x = (int64_t)(uint8_t)x; break;
    case KG_I8: x = (int64_t)(int8_t)x; break;
    case KG_I16: x = (int64_t)(int16_t)x; break;
    case KG_I32: x = (int64_t)(int32_t)x; break;
    default: break;
    }
    r.i = x;
  } else {
    r.f = to == KG_F32 ? (double)(float)fv : fv;
  }
  return r;
}

/* Makes a literal a tensor of its dtype: full-shape in map code, else 0-dim.
 * Half literals are created in their dtype so that the value is rounded. */
vval kg_twin_vtensor(ts_ctx *c, vval v) {
  if (!v.num) return v;
  kg_dtype dt = (kg_dtype)v.dt;
  bool rnd = c->up && is_half(dt);
  const char *mk = tdt(c, rnd ? dt : carry(c, dt));
  const char *s;
  if (c->like) s = fmt(c, "torch.full_like(%s, %s, dtype=%s)", c->like, scalar_arg(c, v), mk);
  else s = fmt(c, "torch.full([], %s, dtype=%s)", scalar_arg(c, v), mk);
  if (rnd) s = fmt(c, "%s.float()", s);
  return vtens(s, dt, c->like != NULL);
}

/* ---- kernel-semantics conversions ---- */

static int sat_helper(kg_dtype t) {
  switch (t) {
  case KG_U8: return H_SAT_U8;
  case KG_I8: return H_SAT_I8;
  case KG_I16: return H_SAT_I16;
  case KG_I32: return H_SAT_I32;
  default: return H_SAT_I64;
  }
}

/* v converted to dtype `to` as kernels convert (CAST, map arguments). */
vval kg_twin_vcast(ts_ctx *c, vval v, kg_dtype to) {
  if (v.dt == to) return v;
  if (v.num && !v.s) {
    if (!is_half(to)) return lit_convert(v, to);
    vval r = vlit(to, 0, kg_dtype_is_float((kg_dtype)v.dt) ? v.f : (double)v.i);
    return vtensor(c, r);
  }
  if (v.num) v = vtensor(c, v);
  const char *s = v.s;
  if (kg_dtype_is_float((kg_dtype)v.dt) && kg_dtype_is_int(to)) {
    int h = sat_helper(to);
    c->helper[h] = true;
    s = fmt(c, "_kg_sat_%s(%s)", kg_dtype_name(to), s);
  } else if (c->up && is_half(to)) {
    s = fmt(c, "%s.to(%s).float()", s, tdt(c, to));
  } else if (carry(c, (kg_dtype)v.dt) != carry(c, to)) {
    s = fmt(c, "%s.to(%s)", s, tdt(c, carry(c, to)));
  }
  v.s = s;
  v.dt = (uint8_t)to;
  return v;
}

/* ---- one torch call per op ---- */

static bool is_cmp(kg_op op) { return op >= KG_OP_EQ && op <= KG_OP_GE; }

/* a OP b == b MIRROR(OP) a */
static kg_op cmp_mirror(kg_op op) {
  switch (op) {
  case KG_OP_LT: return KG_OP_GT;
  case KG_OP_GT: return KG_OP_LT;
  case KG_OP_LE: return KG_OP_GE;
  case KG_OP_GE: return KG_OP_LE;
  default: return op;
  }
}

/* Does the torch call for op accept a Python number as operand i (eager and
 * TorchScript, torch 1.13)? `helper`: the op goes through a _kg_ helper. */
static bool accepts_num(kg_op op, int i, bool helper) {
  if (helper) return false;
  switch (op) {
  case KG_OP_ADD: case KG_OP_SUB: case KG_OP_MUL: case KG_OP_DIV: case KG_OP_REM: case KG_OP_POW:
  case KG_OP_FLOAT_POW: case KG_OP_XLOGY: case KG_OP_BAND: case KG_OP_BOR: case KG_OP_BXOR:
  case KG_OP_SHL: case KG_OP_SHR: case KG_OP_NET_SHL: case KG_OP_NET_SHR:
    return true;
  case KG_OP_TRUNCDIV: case KG_OP_FLOORDIV: case KG_OP_FMOD: case KG_OP_CLAMP: case KG_OP_CLAMP_MIN:
  case KG_OP_CLAMP_MAX: case KG_OP_WHERE:
  case KG_OP_EQ: case KG_OP_NE: case KG_OP_LT: case KG_OP_LE: case KG_OP_GT: case KG_OP_GE:
    return i >= 1;
  case KG_OP_LERP: return i == 2;
  case KG_OP_POS: return true;
  default: return false;
  }
}

/* Does op (with compute dtype cd) go through a helper in kernel semantics? */
static bool uses_helper(kg_op op, kg_dtype cd, bool kernel) {
  bool icd = kg_dtype_is_int(cd);
  switch (op) {
  case KG_OP_IDIV: return icd;
  case KG_OP_TRUNCDIV: case KG_OP_FLOORDIV: case KG_OP_REM: case KG_OP_FMOD: case KG_OP_POW:
    return kernel && icd;
  case KG_OP_SHL: case KG_OP_SHR: return kernel;
  case KG_OP_CBRT: return true;
  default: return false;
  }
}

static const char *attr_f(ts_ctx *c, double v) { return float_lit(c, v); }

/* The text of the torch call for op over operands a[0..n). kernel: kgen's
 * kernel / .NET semantics (guarded integer division, shifts, pow); else the
 * PyTorch op as is. cd: compute dtype (kernel) or result dtype (tensor level). */
static const char *op_call(ts_ctx *c, uint32_t node, kg_op op, int64_t ia, const double *fa, const vval *a, int n,
                           bool kernel, kg_dtype cd) {
  const kg_op_info *oi = kg_op_get(op);
  const char *A = n > 0 ? text(c, a[0]) : "", *B = n > 1 ? text(c, a[1]) : "", *C = n > 2 ? text(c, a[2]) : "";
  bool icd = cd < KG_DT__COUNT && kg_dtype_is_int(cd);
  bool sgn = cd < KG_DT__COUNT && kg_dtype_get(cd)->is_signed;
  bool ikern = kernel && icd;
  const char *T = sgn ? "True" : "False";
  switch (op) {
  case KG_OP_IDIV:
    if (!icd) return fmt(c, "torch.div(%s, %s, rounding_mode='trunc')", A, B);
    c->helper[H_IDIV] = true;
    return fmt(c, "_kg_idiv(%s, %s, %s)", A, B, T);
  case KG_OP_TRUNCDIV:
    if (ikern) return c->helper[H_IDIV] = true, fmt(c, "_kg_idiv(%s, %s, %s)", A, B, T);
    return fmt(c, "torch.div(%s, %s, rounding_mode='trunc')", A, B);
  case KG_OP_FLOORDIV:
    if (ikern) return c->helper[H_FLOORDIV] = true, fmt(c, "_kg_floordiv(%s, %s, %s)", A, B, T);
    return fmt(c, "torch.div(%s, %s, rounding_mode='floor')", A, B);
  case KG_OP_REM:
    if (ikern) return c->helper[H_IMOD] = true, fmt(c, "_kg_imod(%s, %s, %s, True)", A, B, T);
    return fmt(c, "torch.remainder(%s, %s)", A, B);
  case KG_OP_FMOD:
    if (ikern) return c->helper[H_IMOD] = true, fmt(c, "_kg_imod(%s, %s, %s, False)", A, B, T);
    return fmt(c, "torch.fmod(%s, %s)", A, B);
  case KG_OP_POW:
    if (ikern) return c->helper[H_IPOW] = true, fmt(c, "_kg_ipow(%s, %s)", A, B);
    return fmt(c, "torch.pow(%s, %s)", A, B);
  case KG_OP_POS: return A;
  case KG_OP_CBRT: c->helper[H_CBRT] = true; return fmt(c, "_kg_cbrt(%s)", A);
  case KG_OP_SHL:
    if (kernel) return c->helper[H_SHL] = true, fmt(c, "_kg_shl(%s, %s, %d)", A, B, dt_bits(cd));
    return fmt(c, "torch.bitwise_left_shift(%s, %s)", A, B);
  case KG_OP_SHR:
    if (kernel) return c->helper[H_SHR] = true, fmt(c, "_kg_shr(%s, %s, %d, %s)", A, B, dt_bits(cd), T);
    return fmt(c, "torch.bitwise_right_shift(%s, %s)", A, B);
  case KG_OP_NET_SHL:
  case KG_OP_NET_SHR: {
    /* .NET masks the count to the operand width */
    int m = (icd ? dt_bits(cd) : 32) - 1;
    const char *cnt;
    if (a[1].num && !a[1].s) cnt = fmt(c, "%lld", (long long)(a[1].i & m));
    else if (a[1].num) cnt = fmt(c, "(%s & %d)", B, m);
    else cnt = fmt(c, "torch.bitwise_and(%s, %d)", B, m);
    return fmt(c, "torch.bitwise_%s_shift(%s, %s)", op == KG_OP_NET_SHL ? "left" : "right", A, cnt);
  }
  case KG_OP_CLAMP: return fmt(c, "torch.clamp(%s, min=%s, max=%s)", A, B, C);
  case KG_OP_CLAMP_MIN: return fmt(c, "torch.clamp(%s, min=%s)", A, B);
  case KG_OP_CLAMP_MAX: return fmt(c, "torch.clamp(%s, max=%s)", A, B);
  case KG_OP_FLOOR: case KG_OP_CEIL: case KG_OP_TRUNC:
    if (ikern) return A;
    break;
  case KG_OP_ROUND:
    if (ikern) return A;
    if (ia) return fmt(c, "torch.round(%s, decimals=%lld)", A, (long long)ia);
    return fmt(c, "torch.round(%s)", A);
  case KG_OP_LOGIT:
    if (ia) return fmt(c, "torch.logit(%s, eps=%s)", A, attr_f(c, fa[0]));
    return fmt(c, "torch.logit(%s)", A);
  case KG_OP_NAN_TO_NUM: {
    const char *s = fmt(c, "torch.nan_to_num(%s, nan=%s", A, attr_f(c, fa[0]));
    /* in upcast mode the dtype's own max is not float32's */
    double big = cd == KG_F16 ? 65504.0 : 3.3895313892515355e38;
    bool half_default = c->up && is_half(cd);
    if (ia & 1) s = fmt(c, "%s, posinf=%s", s, attr_f(c, fa[1]));
    else if (half_default) s = fmt(c, "%s, posinf=%s", s, attr_f(c, big));
    if (ia & 2) s = fmt(c, "%s, neginf=%s", s, attr_f(c, fa[2]));
    else if (half_default) s = fmt(c, "%s, neginf=%s", s, attr_f(c, -big));
    return fmt(c, "%s)", s);
  }
  case KG_OP_GELU:
    if (ia) return fmt(c, "torch.nn.functional.gelu(%s, approximate='tanh')", A);
    return fmt(c, "torch.nn.functional.gelu(%s)", A);
  case KG_OP_SOFTPLUS:
    return fmt(c, "torch.nn.functional.softplus(%s, beta=%s, threshold=%s)", A, attr_f(c, fa[0]), attr_f(c, fa[1]));
  case KG_OP_LEAKY_RELU:
    return fmt(c, "torch.nn.functional.leaky_relu(%s, negative_slope=%s)", A, attr_f(c, fa[0]));
  case KG_OP_ELU: {
    /* TorchSharp's elu(alpha, scale, input_scale); 0 = not given = 1 */
    double sc = fa[1] == 0 ? 1 : fa[1], isc = fa[2] == 0 ? 1 : fa[2];
    if (sc == 1 && isc == 1) return fmt(c, "torch.nn.functional.elu(%s, alpha=%s)", A, attr_f(c, fa[0]));
    return fmt(c, "torch.ops.aten.elu(%s, %s, %s, %s)", A, attr_f(c, fa[0]), attr_f(c, sc), attr_f(c, isc));
  }
  case KG_OP_CELU: return fmt(c, "torch.celu(%s, alpha=%s)", A, attr_f(c, fa[0]));
  case KG_OP_HARDTANH:
    return fmt(c, "torch.nn.functional.hardtanh(%s, min_val=%s, max_val=%s)", A, attr_f(c, fa[0]), attr_f(c, fa[1]));
  default: break;
  }
  if (!*oi->torch || oi->arity < 0 || (oi->flags & (KG_OPF_LEAF | KG_OPF_CREATE | KG_OPF_CAST))) {
    fail(c, node, "op %s has no direct torch spelling here", oi->name);
    return "None";
  }
  if (n == 1) return fmt(c, "%s(%s)", oi->torch, A);
  if (n == 2) return fmt(c, "%s(%s, %s)", oi->torch, A, B);
  return fmt(c, "%s(%s, %s, %s)", oi->torch, A, B, C);
}

/* ---- kernel-semantics expressions (map code: ts_map.c, .NET scalar ops) ---- */

/* Applies op with kernel semantics to in[0..n); `want` is the kernel-IR dtype. */
vval kg_twin_vop(ts_ctx *c, uint32_t node, kg_op op, int64_t ia, const double *fa, vval *in, int n, kg_dtype want) {
  const kg_op_info *oi = kg_op_get(op);
  unsigned fl = oi->flags;
  int first = op == KG_OP_WHERE ? 1 : 0;
  /* 1. the compute dtype: operands are converted to it, so torch's result is predictable */
  kg_dtype cd = want;
  if (fl & (KG_OPF_CMP | KG_OPF_PRED | KG_OPF_FLOAT | KG_OPF_FLOATRES | KG_OPF_F64RES)) {
    cd = (kg_dtype)in[0].dt;
    for (int i = 1; i < n; i++) cd = kg_dtype_promote(cd, (kg_dtype)in[i].dt);
    if ((fl & (KG_OPF_FLOAT | KG_OPF_FLOATRES)) && !kg_dtype_is_float(cd))
      cd = kg_dtype_is_float(want) ? want : KG_F32;
  } else if (fl & KG_OPF_LOGIC) {
    cd = KG_DT_NONE;
  } else if (op == KG_OP_NET_SHL || op == KG_OP_NET_SHR) {
    /* the count keeps its own dtype (masking happens first) */
    in[0] = vcast(c, in[0], want);
    first = n;
  }
  if (cd != KG_DT_NONE)
    for (int i = first; i < n; i++) in[i] = vcast(c, in[i], cd);
  if (op == KG_OP_WHERE && in[0].dt != KG_BOOL) in[0] = vcast(c, in[0], KG_BOOL);
  /* 2. literals where torch wants tensors */
  if (is_cmp(op) && in[0].num && !in[1].num) {
    vval t = in[0];
    in[0] = in[1], in[1] = t;
    op = cmp_mirror(op);
  }
  bool helper = uses_helper(op, cd, true);
  bool any_t = false;
  for (int i = 0; i < n; i++) any_t |= !in[i].num;
  if (!any_t && n) in[0] = vtensor(c, in[0]);
  bool clamp_mixed = op == KG_OP_CLAMP && in[1].num != in[2].num;
  for (int i = 0; i < n; i++)
    if (in[i].num && (in[i].dt == KG_BOOL || !accepts_num(op, i, helper) || clamp_mixed)) in[i] = vtensor(c, in[i]);
  /* 3. the call and the dtype torch gives it */
  const char *s = op_call(c, node, op, ia, fa, in, n, true, cd);
  kg_dtype rt;
  if (fl & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED)) rt = KG_BOOL;
  else if (fl & KG_OPF_F64RES) rt = KG_F64;
  else if (op == KG_OP_SQUARE && cd == KG_BOOL) rt = KG_I64;
  else rt = cd;
  vval r = vtens(s, want, false);
  for (int i = 0; i < n; i++) r.full |= in[i].full;
  if (c->up && is_half(want)) r.s = fmt(c, "%s.to(%s).float()", s, tdt(c, want));
  else if (carry(c, rt) != carry(c, want)) r.s = fmt(c, "%s.to(%s)", s, tdt(c, carry(c, want)));
  return r;
}

/* ---- graph nodes ---- */

/* The value of node id as an operand: CONST → literal, .NET scalar → Python
 * number variable, else a tensor. */
vval kg_twin_node_val(ts_ctx *c, uint32_t id) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_dtype dt = (kg_dtype)n->dtype;
  if (n->op == KG_OP_CONST) return kg_dtype_is_float(dt) ? vlit(dt, 0, n->fa[0]) : vlit(dt, n->ia[0], 0);
  vval v = vtens(c->name[id] ? c->name[id] : "None", dt, false);
  v.num = n->vkind == KG_V_SCALAR;
  return v;
}

const char *kg_twin_py_conv(kg_dtype t) { return t == KG_BOOL ? "bool" : kg_dtype_is_int(t) ? "int" : "float"; }

/* A Python number where torch wants a tensor: a 0-dim tensor whose dtype makes
 * PyTorch promote as it does for a wrapped number next to a tensor of dtype
 * `other` (same or lower category: other's dtype; higher: the default dtype). */
static vval wrap_num(ts_ctx *c, vval v, kg_dtype other) {
  int cs = kg_dtype_get((kg_dtype)v.dt)->category;
  kg_dtype w;
  if (other != KG_DT_NONE && cs <= kg_dtype_get(other)->category) w = other;
  else w = cs == 2 ? KG_F32 : cs == 1 ? KG_I64 : KG_BOOL;
  const char *s = zero_dim(c, scalar_arg(c, v), w, NULL);
  if (c->up && is_half(w)) s = fmt(c, "%s.float()", s);
  return vtens(s, w, false);
}

/* A Python number converted to half dtype hd, as PyTorch converts a Scalar operand to a
 * half compute dtype (through float32, as c10::Half is built): a literal is rounded here
 * (an integer stays one while the rounded value is one), a variable on a 0-dim tensor. */
static vval round_num(ts_ctx *c, vval v, kg_dtype hd) {
  if (v.dt == KG_BOOL) return v; /* 0 and 1: exact */
  if (v.s) return vtens(fmt(c, "%s.float()", zero_dim(c, scalar_arg(c, v), hd, NULL)), hd, false);
  float f = kg_dtype_is_float((kg_dtype)v.dt) ? (float)v.f : (float)v.i;
  double r = hd == KG_F16 ? (double)kg_f16_to_f32(kg_f32_to_f16(f)) : (double)kg_bf16_to_f32(kg_f32_to_bf16(f));
  if (!kg_dtype_is_float((kg_dtype)v.dt) && isfinite(r)) return vlit((kg_dtype)v.dt, (int64_t)r, 0);
  return vlit(kg_dtype_is_float((kg_dtype)v.dt) ? (kg_dtype)v.dt : KG_F32, 0, r);
}

/* TorchScript's optimizing executor (torch 1.13's, and libtorch 2.10's under TorchSharp)
 * drops `b * 1` and `b + 0` of a bool tensor b as no-ops, though PyTorch promotes bool by
 * the int to int64 (kgen fuzz, seed 1544: the twin returned bool). Such an int goes in as
 * the 0-dim int64 tensor that promotes alike (wrap_num), which the optimizer leaves alone. */
static bool bool_noop_int(kg_op op, vval v, kg_dtype other) {
  return other == KG_BOOL && !v.s && kg_dtype_is_int((kg_dtype)v.dt) &&
         ((op == KG_OP_MUL && v.i == 1) || ((op == KG_OP_ADD || op == KG_OP_SUB) && v.i == 0));
}

/* A .NET scalar op: computed on 0-dim tensors (kernel semantics), converted
 * back to a Python number. */
static void emit_scalar(ts_ctx *c, uint32_t id) {
  const kg_gnode *n = &c->g->nodes.v[id];
  const kg_op_info *oi = kg_op_get((kg_op)n->op);
  kg_dtype dt = (kg_dtype)n->dtype;
  c->up = true; /* .NET Half arithmetic is float arithmetic rounded to half */
  c->like = NULL;
  if ((oi->flags & (KG_OPF_LEAF | KG_OPF_CREATE | KG_OPF_MAP)) || n->n_in != oi->arity || n->n_in > 3) {
    fail(c, id, "op %s cannot yield a .NET scalar", oi->name);
    return;
  }
  vval in[3];
  for (int j = 0; j < n->n_in; j++) {
    const kg_gnode *m = &c->g->nodes.v[n->in[j]];
    kg_dtype mt = (kg_dtype)m->dtype;
    if (m->op == KG_OP_CONST) in[j] = node_val(c, n->in[j]);
    else if (m->vkind == KG_V_SCALAR)
      in[j] = vtens(zero_dim(c, scalar_arg(c, node_val(c, n->in[j])), carry(c, mt), NULL), mt, false);
    else {
      fail(c, id, "a .NET scalar computed from a tensor (%%%u)", n->in[j]);
      return;
    }
  }
  vval r = n->op == KG_OP_CAST ? vcast(c, in[0], dt) : vop(c, id, (kg_op)n->op, n->ia[0], n->fa, in, n->n_in, dt);
  line(c, id, "%s = %s(%s)", c->name[id], py_conv(dt), text(c, r));
}

/* A tensor-level op: one torch call, PyTorch semantics and promotion. */
/* a convolution: PyTorch's own torch.nn.functional.conv{1,2}d / conv_transpose{1,2}d with the
 * parameters as written (frontend/conv.c) */
static const char *twin_conv(ts_ctx *c, const kg_gnode *n, const vval *a) {
  int nd = kg_conv_dims(n->ia[3]), sp = kg_conv_spelling(n->ia[3]);
  bool tr = kg_conv_transposed(n->ia[3]);
  const char *st = "", *pd = "", *dl = "", *op = "";
  for (int i = 0; i < nd; i++) {
    st = fmt(c, "%s%s%lld", st, i ? ", " : "", (long long)kg_conv_get(n->ia[0], i));
    pd = fmt(c, "%s%s%lld", pd, i ? ", " : "", (long long)kg_conv_get(n->ia[1], i));
    dl = fmt(c, "%s%s%lld", dl, i ? ", " : "", (long long)kg_conv_get(n->ia[2], i));
    op = fmt(c, "%s%s%lld", op, i ? ", " : "", (long long)kg_conv_outpad(n->ia[3], i));
  }
  const char *b = n->n_in == 3 ? text(c, a[2]) : "None";
  long long g = (long long)kg_conv_groups(n->ia[3]);
  if (tr)
    return fmt(c, "torch.nn.functional.conv_transpose%dd(%s, %s, %s, stride=[%s], padding=[%s], output_padding=[%s], groups=%lld, dilation=[%s])", nd,
               text(c, a[0]), text(c, a[1]), b, st, pd, op, g, dl);
  const char *padarg = sp == 1 ? "'valid'" : sp == 2 ? "'same'" : fmt(c, "[%s]", pd);
  return fmt(c, "torch.nn.functional.conv%dd(%s, %s, %s, stride=[%s], padding=%s, dilation=[%s], groups=%lld)", nd, text(c, a[0]), text(c, a[1]), b, st,
             padarg, dl, g);
}

static void emit_tensor_op(ts_ctx *c, uint32_t id) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_op op = (kg_op)n->op;
  const kg_op_info *oi = kg_op_get(op);
  kg_dtype dt = (kg_dtype)n->dtype;
  bool rnd = c->up && is_half(dt);
  if (oi->arity >= 0 && n->n_in != oi->arity) {
    fail(c, id, "op %s with %d operands", oi->name, n->n_in);
    return;
  }
  vval a[8];
  for (int j = 0; j < n->n_in && j < 8; j++) a[j] = node_val(c, n->in[j]);
  const char *s;
  if (op == KG_OP_MATMUL || op == KG_OP_LINEAR || op == KG_OP_ADDMM) {
    /* matrix products: PyTorch's own op, by the spelling the F# code used */
    static const char *const mm_fn[] = {"matmul", "mm", "bmm", "mv", "dot"};
    if (op == KG_OP_LINEAR)
      s = n->n_in == 3 ? fmt(c, "torch.nn.functional.linear(%s, %s, %s)", text(c, a[0]), text(c, a[1]), text(c, a[2]))
                       : fmt(c, "torch.nn.functional.linear(%s, %s)", text(c, a[0]), text(c, a[1]));
    else if (op == KG_OP_ADDMM && n->ia[0] && n->fa[0] == 0.0 && kg_dtype_is_float(dt))
      /* baddbmm with beta = 0 is alpha · bmm (PyTorch ignores the input then). Spelled so because
       * the oracle's PyTorch (Debian's 1.13) reads its uninitialized result in that case for
       * small sizes: NaN when the memory held NaN (an example failed at random in CI) */
      s = fmt(c, "torch.mul(torch.bmm(%s, %s), %s)", text(c, a[1]), text(c, a[2]), attr_f(c, n->fa[1]));
    else if (op == KG_OP_ADDMM)
      s = fmt(c, "torch.%s(%s, %s, %s, beta=%s, alpha=%s)", n->ia[0] ? "baddbmm" : "addmm", text(c, a[0]), text(c, a[1]), text(c, a[2]),
              attr_f(c, n->fa[0]), attr_f(c, n->fa[1]));
    else if (n->ia[0] & 4) /* only in a lowering program: linear's weight read transposed */
      s = fmt(c, "torch.matmul(%s, %s.transpose(-1, -2))", text(c, a[0]), text(c, a[1]));
    else
      s = fmt(c, "torch.%s(%s, %s)", mm_fn[n->ia[1] >= 0 && n->ia[1] <= 4 ? n->ia[1] : 0], text(c, a[0]), text(c, a[1]));
    if (rnd) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  } else if (op == KG_OP_ATTN) {
    s = kg_twin_attention(c, n, a); /* scaled_dot_product_attention as PyTorch's math path: ts_attn.c */
    if (rnd) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  } else if (op == KG_OP_POOL || op == KG_OP_UPSAMPLE || op == KG_OP_PIXEL_SHUFFLE || op == KG_OP_BATCH_NORM || op == KG_OP_GROUP_NORM) {
    s = kg_twin_cnn(c, id, a); /* pooling, normalization over channels, resampling: ts_cnn.c */
    if (!s) return;
  } else if (op == KG_OP_CONV) {
    s = twin_conv(c, n, a);
    if (rnd) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  } else if (kg_op_is_loss(op)) {
    s = kg_twin_loss(c, id, a); /* the loss functions: ts_loss.c */
    if (!s) return;
  } else if (op == KG_OP_SELECT_SCATTER) {
    s = fmt(c, "torch.select_scatter(%s, %s, %d, int(%s))", text(c, a[0]), text(c, a[1]), (int)n->ia[0], text(c, a[2]));
  } else if (oi->flags & (KG_OPF_REDUCE | KG_OPF_COMPOSITE | KG_OPF_SCAN)) {
    s = kg_twin_reduce(c, id, a);
    if (!s) return;
  } else if (oi->flags & KG_OPF_LAYOUT) {
    s = kg_twin_layout(c, id, a);
  } else if (op == KG_OP_CAST) {
    if (a[0].num) s = zero_dim(c, scalar_arg(c, a[0]), dt, NULL);
    else s = fmt(c, "%s.to(%s)", text(c, a[0]), tdt(c, dt));
    if (rnd) s = fmt(c, "%s.float()", s);
  } else if (op == KG_OP_FULL || op == KG_OP_TENSOR) {
    kg_dtype vt = (kg_dtype)a[0].dt;
    const char *v = a[0].num ? scalar_arg(c, a[0])
                  : fmt(c, "%s(%s)", vt == KG_BOOL ? "int" : py_conv(vt), text(c, a[0]));
    if (op == KG_OP_TENSOR) {
      s = zero_dim(c, v, dt, NULL);
    } else if (a[1].num) {
      fail(c, id, "full_like of a scalar");
      return;
    } else if (n->ia[0] == 0) {
      s = fmt(c, "torch.full_like(%s, %s, dtype=%s)", text(c, a[1]), v, tdt(c, dt));
    } else {
      /* ones_like; zeros_like; empty_like, which kgen fills with zeros */
      s = fmt(c, "torch.%s_like(%s, dtype=%s)", n->ia[0] == 2 ? "ones" : "zeros", text(c, a[1]), tdt(c, dt));
    }
    if (rnd) s = fmt(c, "%s.float()", s);
  } else {
    unsigned fl = oi->flags;
    int first = op == KG_OP_WHERE ? 1 : 0;
    /* upcast: an operand an op computing in half precision converts to that dtype (a
     * wider 0-dim tensor, an integer, a Python number) is rounded to it first, as PyTorch
     * converts every operand to the common dtype; a comparison computes in its operands'
     * common dtype (cdtype), not in its bool result's */
    kg_dtype hd = is_cmp(op) ? (kg_dtype)n->cdtype : dt;
    if (c->up && is_half(hd) && (is_cmp(op) || (fl & (KG_OPF_ARITH | KG_OPF_FLOAT | KG_OPF_FLOATRES | KG_OPF_ROUND | KG_OPF_SELECT))))
      for (int j = first; j < n->n_in; j++) {
        if (a[j].num) a[j] = round_num(c, a[j], hd);
        else if (a[j].dt != hd) a[j] = vtens(fmt(c, "%s.to(%s).float()", text(c, a[j]), tdt(c, hd)), hd, false);
      }
    if (is_cmp(op) && a[0].num && !a[1].num) {
      vval t = a[0];
      a[0] = a[1], a[1] = t;
      op = cmp_mirror(op);
    }
    kg_dtype other = KG_DT_NONE;
    for (int j = first; j < n->n_in && other == KG_DT_NONE; j++)
      if (!a[j].num) other = (kg_dtype)a[j].dt;
    bool helper = uses_helper(op, dt, false);
    bool any_t = false;
    for (int j = 0; j < n->n_in; j++) any_t |= !a[j].num;
    if (!any_t && n->n_in) a[0] = wrap_num(c, a[0], KG_DT_NONE);
    bool clamp_mixed = op == KG_OP_CLAMP && a[1].num != a[2].num;
    for (int j = 0; j < n->n_in; j++)
      if (a[j].num && (a[j].dt == KG_BOOL || !accepts_num(op, j, helper) || clamp_mixed || bool_noop_int(op, a[j], other)))
        a[j] = wrap_num(c, a[j], op == KG_OP_WHERE && j == 0 ? KG_DT_NONE : other); /* TorchScript: a bool is no Scalar */
    s = op_call(c, id, op, n->ia[0], n->fa, a, n->n_in, false, dt);
    if (rnd) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  }
  line(c, id, "%s = %s", c->name[id], s);
}

void kg_twin_emit_node(ts_ctx *c, uint32_t id) {
  const kg_gnode *n = &c->g->nodes.v[id];
  if (n->op >= KG_OP__COUNT || n->dtype >= KG_DT__COUNT || n->n_in > 8) {
    fail(c, id, "malformed node %%%u", id);
    return;
  }
  for (int j = 0; j < n->n_in; j++)
    if (n->in[j] >= id) {
      fail(c, id, "node %%%u uses %%%u before its definition", id, n->in[j]);
      return;
    }
  if (n->op == KG_OP_INPUT) {
    if (!c->name[id]) fail(c, id, "INPUT node %%%u is not a parameter", id);
    return;
  }
  if (n->op == KG_OP_CONST) return; /* inlined as a literal */
  if (n->op == KG_OP_PLANVAL) {
    if (!c->name[id]) fail(c, id, "PLANVAL node %%%u has no plan step defining it", id);
    return;
  }
  c->name[id] = fmt(c, "t%u", id);
  c->up = c->o->upcast_half;
  c->like = NULL;
  if (n->op == KG_OP_MAP) kg_twin_emit_map(c, id);
  else if (n->vkind == KG_V_SCALAR) emit_scalar(c, id);
  else emit_tensor_op(c, id);
}

/* ---- names ---- */

static const char *const reserved_words[] = {
  /* Python keywords */
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
  "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
  "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
  /* names the emitted code or TorchScript relies on */
  "torch", "math", "float", "int", "bool", "str", "complex", "range", "len", "print", "list", "tuple", "dict",
  "min", "max", "abs", "sum", "any", "all", "round", "divmod", "isinstance", "annotate", "unchecked_cast",
  "Tensor", "List", "Tuple", "Dict", "Optional", "Union", "Any", "Final", "self", "super", "object", "type",
};

static bool is_reserved(const char *s) {
  for (size_t i = 0; i < KG_COUNTOF(reserved_words); i++)
    if (!strcmp(s, reserved_words[i])) return true;
  if (!strncmp(s, "_kg", 3)) return true;                    /* helper functions */
  if (s[0] == 't' && s[1] >= '0' && s[1] <= '9') return true; /* t<id> values */
  return false;
}

static bool is_ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* name as a Python identifier that is no keyword and no name the emitter uses */
static char *sanitize(kg_arena *a, const char *name) {
  if (!name || !*name) name = "p";
  size_t n = strlen(name);
  char *b = kg_arena_alloc(a, n + 3);
  size_t k = 0;
  if (name[0] >= '0' && name[0] <= '9') b[k++] = 'p';
  for (size_t i = 0; i < n; i++) b[k++] = is_ident_char(name[i]) ? name[i] : '_';
  b[k] = 0;
  if (is_reserved(b)) b[k++] = '_', b[k] = 0;
  return b;
}

/* Python names of all parameters: sanitized, then made unique with _1, _2, … */
static const char **param_names(const kg_graph *g, kg_arena *a) {
  const char **names = kg_arena_alloc(a, (g->params.n + 1) * sizeof *names);
  for (uint32_t i = 0; i < g->params.n; i++) {
    const char *base = sanitize(a, g->params.v[i].name);
    const char *cand = base;
    for (unsigned k = 1;; k++) {
      bool used = false;
      for (uint32_t j = 0; j < i && !used; j++) used = !strcmp(names[j], cand);
      if (!used) break;
      cand = kg_arena_printf(a, "%s_%u", base, k);
    }
    names[i] = cand;
  }
  return names;
}

const char *kg_ts_param_name(const kg_graph *g, uint32_t i, kg_arena *a) {
  KG_ASSERT(i < g->params.n);
  return param_names(g, a)[i];
}

/* ---- the entry ---- */

bool kg_ts_emit(const kg_graph *g, const kg_ts_opts *opts, kg_strbuf *out, kg_diag *d) {
  return kg_ts_emit_plan(g, NULL, opts, out, d);
}

bool kg_ts_emit_plan(const kg_graph *g, const kg_plan *plan, const kg_ts_opts *opts, kg_strbuf *out, kg_diag *d) {
  static const kg_ts_opts defaults = {false, false};
  if (!opts) opts = &defaults;
  kg_arena arena;
  kg_arena_init(&arena);
  kg_strbuf body;
  kg_sb_init(&body);
  ts_ctx c;
  memset(&c, 0, sizeof c);
  c.g = g, c.o = opts, c.d = d, c.a = &arena, c.body = &body, c.ok = true, c.ind = 1;
  c.up = opts->upcast_half;
  c.name = kg_arena_alloc(&arena, (g->nodes.n + 1) * sizeof *c.name);
  const char **pn = param_names(g, &arena);
  const char *entry = sanitize(&arena, g->entry ? g->entry : "entry");

  /* parameters: scalars become Python numbers, half tensors float32 (upcast) */
  for (uint32_t i = 0; i < g->params.n && c.ok; i++) {
    uint32_t id = g->params.v[i].node;
    if (id >= g->nodes.n || g->nodes.v[id].op != KG_OP_INPUT) {
      fail(&c, KG_NONE, "parameter %u is not an INPUT node", i);
      break;
    }
    const kg_gnode *n = &g->nodes.v[id];
    if (n->vkind == KG_V_SCALAR) {
      c.name[id] = fmt(&c, "t%u", id);
      line(&c, id, "%s = %s(%s)", c.name[id], py_conv((kg_dtype)n->dtype), pn[i]);
    } else if (opts->upcast_half && is_half((kg_dtype)n->dtype)) {
      c.name[id] = fmt(&c, "t%u", id);
      line(&c, id, "%s = %s.float()", c.name[id], pn[i]);
    } else {
      c.name[id] = pn[i];
    }
  }
  /* the random generator's state of the call: kg_rng = [seed, offset] (int64 bits) */
  bool draws = false;
  for (uint32_t id = 0; id < g->nodes.n; id++) draws |= kg_op_is_random(g->nodes.v[id].op);
  if (draws) line(&c, KG_NONE, "rng_seed = int(kg_rng[0])"), line(&c, KG_NONE, "rng_off = int(kg_rng[1])");
  if (plan) kg_twin_emit_pblock(&c, plan, 0);
  else
    for (uint32_t id = 0; id < g->nodes.n && c.ok; id++) emit_node(&c, id);

  /* in-place updates of parameters (kg_gparam.wb): the caller's tensor changes, as it does in
   * the F# code (copy_ converts to the parameter's dtype) */
  for (uint32_t i = 0; i < g->params.n && c.ok; i++) {
    if (!g->params.v[i].wb) continue;
    vval v = node_val(&c, g->outputs.v[g->params.v[i].wb - 1]);
    pad(&c);
    kg_sb_printf(&body, "%s.%s(%s)\n", pn[i], v.num ? "fill_" : "copy_", text(&c, v));
  }
  /* outputs, back in their own dtypes */
  uint32_t nres = kg_graph_n_results(g);
  if (c.ok) {
    c.up = opts->upcast_half;
    pad(&c);
    kg_sb_puts(&body, "return ");
    if (!nres) kg_sb_puts(&body, "None");
    for (uint32_t i = 0; i < nres; i++) {
      uint32_t id = g->outputs.v[i];
      if (id >= g->nodes.n) {
        fail(&c, KG_NONE, "output %u is out of range", i);
        break;
      }
      vval v = node_val(&c, id);
      const char *s = text(&c, v);
      if (v.num) s = zero_dim(&c, scalar_arg(&c, v), (kg_dtype)v.dt, NULL);
      else if (opts->upcast_half && is_half((kg_dtype)v.dt)) s = fmt(&c, "%s.to(%s)", s, tdt(&c, (kg_dtype)v.dt));
      kg_sb_printf(&body, "%s%s", i ? ", " : "", s);
    }
    kg_sb_putc(&body, '\n');
  }

  if (c.ok) {
    if (opts->eager_python) kg_sb_puts(out, c.helper[H_RAND] ? "import math\nimport torch\nfrom typing import List\n\n" : "import math\nimport torch\n\n");
    kg_sb_printf(out, "# kgen: %s twin of entry '%s' (generated: one torch call per op)\n",
                 opts->eager_python ? "eager-Python" : "TorchScript", entry);
    if (opts->upcast_half)
      kg_sb_puts(out, "# reference mode: float16/bfloat16 values are carried as float32 and rounded after every op\n");
    for (int h = 0; h < H__COUNT; h++)
      if (c.helper[h]) kg_sb_printf(out, "\n%s", kg_twin_helper_src[h]);
    kg_sb_printf(out, "\n\ndef %s(", entry);
    for (uint32_t i = 0; i < g->params.n; i++) kg_sb_printf(out, "%s%s: torch.Tensor", i ? ", " : "", pn[i]);
    if (draws) kg_sb_printf(out, "%skg_rng: torch.Tensor", g->params.n ? ", " : "");
    kg_sb_puts(out, "):\n");
    kg_sb_puts(out, kg_sb_cstr(&body));
  }
  kg_sb_free(&body);
  kg_arena_free(&arena);
  return c.ok;
}

const char *kg_ts_entry_name(const kg_graph *g, kg_arena *a) { return sanitize(a, g->entry ? g->entry : "entry"); }
