/* frontend/members.c — the member table: exact TorchSharp member keys → ops.
 *
 * Two parts, one lookup:
 *  - exact rows (members.def, generated from shared/spec/torchsharp-members.md by
 *    tools/gen_members.py): every TorchSharp member kgen compiles, keyed by the
 *    spec's exact key;
 *  - families: F# core operators and System.Math / System.MathF members, which
 *    arrive instantiated at the operand types, keyed "decl::name". An F# operator
 *    over tensors is resolved (elab.c) to the exact Tensor::op_* row for the
 *    operand types, e.g. Operators::op_Multiply(Tensor, Single) →
 *    "TorchSharp.torch+Tensor::op_Multiply(TorchSharp.torch+Tensor,System.Single)".
 *
 * Handlers (kg_mhandler, frontend.h) say how a row's operands become nodes. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"


enum { DT_NONE = KG_DT_NONE, DT_BOOL = KG_BOOL, DT_U8 = KG_U8, DT_I8 = KG_I8, DT_I16 = KG_I16,
       DT_I32 = KG_I32, DT_I64 = KG_I64, DT_F16 = KG_F16, DT_BF16 = KG_BF16, DT_F32 = KG_F32,
       DT_F64 = KG_F64 };

static const kg_member_row exact_rows[] = {
#define KG_MEMBER(key, h, op, spec, dt, extra) {key, h, KG_OP_##op, spec, (kg_dtype)DT_##dt, extra},
#include "members.def"
#undef KG_MEMBER
};

#define FS "Microsoft.FSharp.Core.Operators::"
#define XT "Microsoft.FSharp.Core.ExtraTopLevelOperators::"
#define FAM_MATH(decl)                                                                             \
  {decl "Exp", H_SMATH, KG_OP_EXP, "", KG_DT_NONE, 0},                                             \
  {decl "Log", H_SMATH, KG_OP_LOG, "", KG_DT_NONE, 0},                                             \
  {decl "Log10", H_SMATH, KG_OP_LOG10, "", KG_DT_NONE, 0},                                         \
  {decl "Log2", H_SMATH, KG_OP_LOG2, "", KG_DT_NONE, 0},                                           \
  {decl "Sqrt", H_SMATH, KG_OP_SQRT, "", KG_DT_NONE, 0},                                           \
  {decl "Cbrt", H_SMATH, KG_OP_CBRT, "", KG_DT_NONE, 0},                                           \
  {decl "Sin", H_SMATH, KG_OP_SIN, "", KG_DT_NONE, 0},                                             \
  {decl "Cos", H_SMATH, KG_OP_COS, "", KG_DT_NONE, 0},                                             \
  {decl "Tan", H_SMATH, KG_OP_TAN, "", KG_DT_NONE, 0},                                             \
  {decl "Asin", H_SMATH, KG_OP_ASIN, "", KG_DT_NONE, 0},                                           \
  {decl "Acos", H_SMATH, KG_OP_ACOS, "", KG_DT_NONE, 0},                                           \
  {decl "Atan", H_SMATH, KG_OP_ATAN, "", KG_DT_NONE, 0},                                           \
  {decl "Sinh", H_SMATH, KG_OP_SINH, "", KG_DT_NONE, 0},                                           \
  {decl "Cosh", H_SMATH, KG_OP_COSH, "", KG_DT_NONE, 0},                                           \
  {decl "Tanh", H_SMATH, KG_OP_TANH, "", KG_DT_NONE, 0},                                           \
  {decl "Atan2", H_SMATH, KG_OP_ATAN2, "", KG_DT_NONE, 0},                                         \
  {decl "Pow", H_SMATH, KG_OP_POW, "", KG_DT_NONE, 0},                                             \
  {decl "Floor", H_SMATH, KG_OP_FLOOR, "", KG_DT_NONE, 0},                                         \
  {decl "Ceiling", H_SMATH, KG_OP_CEIL, "", KG_DT_NONE, 0},                                        \
  {decl "Round", H_SMATH, KG_OP_ROUND, "", KG_DT_NONE, 0},                                         \
  {decl "Truncate", H_SMATH, KG_OP_TRUNC, "", KG_DT_NONE, 0},                                      \
  {decl "Abs", H_SMATH, KG_OP_ABS, "", KG_DT_NONE, 0},                                             \
  {decl "Max", H_SMATH, KG_OP_MAXIMUM, "", KG_DT_NONE, 0},                                         \
  {decl "Min", H_SMATH, KG_OP_MINIMUM, "", KG_DT_NONE, 0},                                         \
  {decl "Sign", H_SMATH, KG_OP_SIGN, "", KG_I32, 0},                                            \
  {decl "Clamp", H_SMATH, KG_OP_CLAMP, "", KG_DT_NONE, 0},                                         \
  {decl "FusedMultiplyAdd", H_SMATH, KG_OP_MUL, "", KG_DT_NONE, 1}

static const kg_member_row family_rows[] = {
  {FS "op_Addition", H_FSHARP, KG_OP_ADD, "", KG_DT_NONE, 0},
  {FS "op_Subtraction", H_FSHARP, KG_OP_SUB, "", KG_DT_NONE, 0},
  {FS "op_Multiply", H_FSHARP, KG_OP_MUL, "", KG_DT_NONE, 0},
  {FS "op_Division", H_FSHARP, KG_OP_IDIV, "", KG_DT_NONE, 0},
  {FS "op_Modulus", H_FSHARP, KG_OP_FMOD, "", KG_DT_NONE, 0},
  {FS "op_UnaryNegation", H_FSHARP, KG_OP_NEG, "", KG_DT_NONE, 0},
  {FS "op_UnaryPlus", H_FSHARP, KG_OP_POS, "", KG_DT_NONE, 0},
  {FS "op_BitwiseAnd", H_FSHARP, KG_OP_BAND, "", KG_DT_NONE, 0},
  {FS "op_BitwiseOr", H_FSHARP, KG_OP_BOR, "", KG_DT_NONE, 0},
  {FS "op_ExclusiveOr", H_FSHARP, KG_OP_BXOR, "", KG_DT_NONE, 0},
  {FS "op_LogicalNot", H_FSHARP, KG_OP_BNOT, "", KG_DT_NONE, 0},
  {FS "op_LeftShift", H_FSHARP, KG_OP_NET_SHL, "", KG_DT_NONE, 0},
  {FS "op_RightShift", H_FSHARP, KG_OP_NET_SHR, "", KG_DT_NONE, 0},
  {FS "op_Equality", H_FSHARP, KG_OP_EQ, "", KG_BOOL, 0},
  {FS "op_Inequality", H_FSHARP, KG_OP_NE, "", KG_BOOL, 0},
  {FS "op_LessThan", H_FSHARP, KG_OP_LT, "", KG_BOOL, 0},
  {FS "op_LessThanOrEqual", H_FSHARP, KG_OP_LE, "", KG_BOOL, 0},
  {FS "op_GreaterThan", H_FSHARP, KG_OP_GT, "", KG_BOOL, 0},
  {FS "op_GreaterThanOrEqual", H_FSHARP, KG_OP_GE, "", KG_BOOL, 0},
  {FS "Not", H_SMATH, KG_OP_LNOT, "", KG_BOOL, 0},
  {FS "PowInteger", H_SMATH, KG_OP_POW, "", KG_DT_NONE, 0},
  {FS "op_Exponentiation", H_SMATH, KG_OP_POW, "", KG_DT_NONE, 0},
  {FS "Identity", H_SCONV, KG_OP_POS, "", KG_DT_NONE, 0},
  {FS "ToSingle", H_SCONV, KG_OP_CAST, "", KG_F32, 0},
  {FS "ToDouble", H_SCONV, KG_OP_CAST, "", KG_F64, 0},
  {FS "ToInt32", H_SCONV, KG_OP_CAST, "", KG_I32, 0},
  {FS "ToInt", H_SCONV, KG_OP_CAST, "", KG_I32, 0},
  {FS "ToInt64", H_SCONV, KG_OP_CAST, "", KG_I64, 0},
  {FS "ToInt16", H_SCONV, KG_OP_CAST, "", KG_I16, 0},
  {FS "ToSByte", H_SCONV, KG_OP_CAST, "", KG_I8, 0},
  {FS "ToByte", H_SCONV, KG_OP_CAST, "", KG_U8, 0},
  {XT "ToSingle", H_SCONV, KG_OP_CAST, "", KG_F32, 0},
  {XT "ToDouble", H_SCONV, KG_OP_CAST, "", KG_F64, 0},
  {"Kgen.Ops::map", H_MAP, KG_OP_MAP, "", KG_DT_NONE, 1},
  {"Kgen.Ops::map2", H_MAP, KG_OP_MAP, "", KG_DT_NONE, 2},
  {"Kgen.Ops::map3", H_MAP, KG_OP_MAP, "", KG_DT_NONE, 3},
  FAM_MATH(FS), FAM_MATH("System.Math::"), FAM_MATH("System.MathF::"),
};

const kg_member_row *kg_member_rows(uint32_t *n) {
  *n = (uint32_t)KG_COUNTOF(exact_rows);
  return exact_rows;
}
const kg_member_row *kg_member_family_rows(uint32_t *n) {
  *n = (uint32_t)KG_COUNTOF(family_rows);
  return family_rows;
}

/* The tables are small (a few hundred rows) and sorted at no point: a linear
 * scan costs ~2 µs per lookup, far below the budget (the pipeline's total target
 * is 2% of NVRTC's ~30 ms). */
const kg_member_row *kg_member_lookup_key(const char *key) {
  for (size_t i = 0; i < KG_COUNTOF(exact_rows); i++)
    if (strcmp(exact_rows[i].key, key) == 0) return &exact_rows[i];
  return NULL;
}

const kg_member_row *kg_member_lookup(const kg_member *m) {
  const kg_member_row *r = m->key ? kg_member_lookup_key(m->key) : NULL;
  if (r) return r;
  size_t dl = strlen(m->decl);
  for (size_t i = 0; i < KG_COUNTOF(family_rows); i++) {
    const char *k = family_rows[i].key;
    if (strncmp(k, m->decl, dl) == 0 && k[dl] == ':' && k[dl + 1] == ':' && strcmp(k + dl + 2, m->name) == 0)
      return &family_rows[i];
  }
  return NULL;
}

static const char *handler_note(kg_mhandler h) {
  switch (h) {
  case H_ALPHA: return " (alpha: x + alpha·y)";
  case H_DIVMODE: return " (rounding_mode selects TRUNCDIV / FLOORDIV)";
  case H_CLAMP: return " (a null bound selects CLAMP_MIN / CLAMP_MAX)";
  case H_WHERE: return " (x.where(c, y) = where(c, x, y))";
  case H_LIKE: return " (fill per creator; dtype optional)";
  case H_REDUCE: return " (dims: constants, negative from the end, none = all; keepdim; dtype converts the input first)";
  default: return "";
  }
}

void kg_member_doc(kg_strbuf *o) {
  kg_sb_puts(o, "# Supported operations\n\n"
                "Generated from the op table (`ir/ops.def`) and the member table (`frontend/members.def`,\n"
                "itself generated from `shared/spec/torchsharp-members.md`); `tests/test_docs.c` fails when\n"
                "this file is stale (regenerate with `KG_UPDATE_GOLDEN=1` or `kgen ops > docs/ops.md`).\n\n"
                "Pointwise ops fuse into one kernel per output shape; a reduction (RSUM … RAMIN) is one\n"
                "kernel with its pointwise prologue fused, its result read by later kernels. Dtypes: bool, uint8, int8, int16, int32,\n"
                "int64, float16, bfloat16, float32, float64 (result dtypes follow PyTorch's promotion).\n"
                "F# operators (`+ - * / %`, unary `-`, `&&& ||| ^^^`) on tensors resolve to the\n"
                "`Tensor::op_*` rows for their operand types; on scalars they have .NET semantics.\n\n");
  kg_sb_puts(o, "| op | semantics | member keys |\n|---|---|---|\n");
  for (int op = 0; op < KG_OP__COUNT; op++) {
    const kg_op_info *oi = kg_op_get((kg_op)op);
    kg_strbuf keys;
    kg_sb_init(&keys);
    int n = 0;
    for (size_t i = 0; i < KG_COUNTOF(exact_rows); i++) {
      const kg_member_row *r = &exact_rows[i];
      bool divmode = r->handler == H_DIVMODE && (op == KG_OP_TRUNCDIV || op == KG_OP_FLOORDIV);
      bool clamp1 = r->handler == H_CLAMP && (op == KG_OP_CLAMP_MIN || op == KG_OP_CLAMP_MAX);
      if (divmode || clamp1) {
        kg_sb_printf(&keys, "%s`%s`%s", n++ ? "<br>" : "", r->key, handler_note(r->handler));
        continue;
      }
      if (r->op != (kg_op)op || r->handler == H_PASS || r->handler == H_ID || r->handler == H_DTYPE || r->handler == H_GETDTYPE) continue;
      kg_sb_printf(&keys, "%s`%s`%s", n++ ? "<br>" : "", r->key, handler_note(r->handler));
    }
    for (size_t i = 0; i < KG_COUNTOF(family_rows); i++) {
      const kg_member_row *r = &family_rows[i];
      if (r->op != (kg_op)op) continue;
      kg_sb_printf(&keys, "%s`%s(…)`%s", n++ ? "<br>" : "", r->key, r->handler == H_MAP ? "" : " (scalar, .NET semantics)");
    }
    kg_sb_printf(o, "| %s | ", oi->name);
    for (const char *p = oi->sem; *p; p++) { /* a '|' would end the table cell */
      if (*p == '|') kg_sb_putc(o, '\\');
      kg_sb_putc(o, *p);
    }
    kg_sb_printf(o, " | %s |\n", n ? kg_sb_cstr(&keys) : "(internal: produced by other ops' lowering)");
    kg_sb_free(&keys);
  }
  kg_sb_puts(o, "\n## Members that pass values through\n\n| key | meaning |\n|---|---|\n");
  for (size_t i = 0; i < KG_COUNTOF(exact_rows); i++) {
    const kg_member_row *r = &exact_rows[i];
    const char *what = r->handler == H_PASS ? "Scalar wrapper: the number itself"
                       : r->handler == H_ID ? "no-op on a value (detach / clone / contiguous / device moves)"
                       : r->handler == H_DTYPE ? "a dtype constant"
                       : r->handler == H_GETDTYPE ? "the tensor's dtype"
                                                  : NULL;
    if (what) kg_sb_printf(o, "| `%s` | %s%s |\n", r->key, what, r->handler == H_DTYPE && r->dtype == KG_DT_NONE ? " (rejected: kgen does not support this dtype)" : "");
  }
  kg_sb_puts(o, "\n## Members the host plan handles (control flow over tensors: frontend/hostflow.c)\n\n| key | meaning |\n|---|---|\n");
  uint32_t nh;
  const char *const *hk = kg_hf_member_doc(&nh);
  for (uint32_t i = 0; i + 1 < nh; i += 2) kg_sb_printf(o, "| `%s` | %s |\n", hk[i], hk[i + 1]);
}
