/* ir/dtype.c — the dtype table (KG_DTYPES) and PyTorch type promotion.
 *
 * Main idea: everything is driven by the one X-macro table in ir.h; promotion
 * is the exact PyTorch 1.13 `promote_types` lattice for our ten dtypes (checked
 * against torch, see tests/test_dtype.c), and `kg_result_type` is PyTorch's
 * `result_type` with its three participation classes:
 *
 *   dimensioned tensors  promote among themselves with promote_types;
 *   0-dim tensors        count only when of a higher category (bool < int < float)
 *                        than every dimensioned tensor, and then with their own dtype;
 *   wrapped scalars      count only when of a higher category than all of the above,
 *                        and then as the category's default (int64, float32).
 *
 * e.g. int32[N] + 2.5 → float32, float16[N] + float64 0-dim → float16,
 *      uint8[N] + int8 0-dim → uint8, bool[N] + 1 → int64.
 */
#include "ir.h"

#include <string.h>

static const kg_dtype_info kg_dtype_table[KG_DT__COUNT] = {
#define X(e, nm, ct, clr, sz, cat, sg) {nm, ct, clr, sz, cat, sg},
    KG_DTYPES(X)
#undef X
};

const kg_dtype_info *kg_dtype_get(kg_dtype t) {
  return (unsigned)t < KG_DT__COUNT ? &kg_dtype_table[t] : NULL;
}

const char *kg_dtype_name(kg_dtype t) {
  return (unsigned)t < KG_DT__COUNT ? kg_dtype_table[t].name : "none";
}

kg_dtype kg_dtype_from_name(const char *name) {
  if (!name) return KG_DT_NONE;
  for (int t = 0; t < KG_DT__COUNT; t++)
    if (strcmp(kg_dtype_table[t].name, name) == 0) return (kg_dtype)t;
  return KG_DT_NONE;
}

kg_dtype kg_dtype_from_clr(const char *clr) {
  if (!clr) return KG_DT_NONE;
  for (int t = 0; t < KG_DT__COUNT; t++)
    if (strcmp(kg_dtype_table[t].clr, clr) == 0) return (kg_dtype)t;
  return KG_DT_NONE;
}

/* TorchSharp's ScalarType enum (= c10::ScalarType codes). */
kg_dtype kg_dtype_from_scalartype(int64_t code) {
  switch (code) {
  case 0: return KG_U8;
  case 1: return KG_I8;
  case 2: return KG_I16;
  case 3: return KG_I32;
  case 4: return KG_I64;
  case 5: return KG_F16;
  case 6: return KG_F32;
  case 7: return KG_F64;
  case 11: return KG_BOOL;
  case 15: return KG_BF16;
  default: return KG_DT_NONE;
  }
}

kg_dtype kg_dtype_opmath(kg_dtype t) { return t == KG_F16 || t == KG_BF16 ? KG_F32 : t; }

static bool kg_dtype_valid(kg_dtype t) { return (unsigned)t < KG_DT__COUNT; }

/* Rank of an integer dtype in the chain int8 < int16 < int32 < int64 (uint8 apart). */
static int kg_int_rank(kg_dtype t) {
  switch (t) {
  case KG_I8: return 0;
  case KG_I16: return 1;
  case KG_I32: return 2;
  default: return 3; /* KG_I64 */
  }
}

static kg_dtype kg_promote_int(kg_dtype a, kg_dtype b) {
  if (a == b) return a;
  if (a == KG_U8 || b == KG_U8) {
    /* uint8 with a signed type: the smallest signed type holding both ranges. */
    kg_dtype s = a == KG_U8 ? b : a;
    return s == KG_I8 ? KG_I16 : s;
  }
  return kg_int_rank(a) >= kg_int_rank(b) ? a : b;
}

static kg_dtype kg_promote_float(kg_dtype a, kg_dtype b) {
  if (a == b) return a;
  if (a == KG_F64 || b == KG_F64) return KG_F64;
  return KG_F32; /* f16+bf16, f16+f32, bf16+f32 */
}

kg_dtype kg_dtype_promote(kg_dtype a, kg_dtype b) {
  if (!kg_dtype_valid(a) || !kg_dtype_valid(b)) return KG_DT_NONE;
  if (a == KG_BOOL) return b;
  if (b == KG_BOOL) return a;
  bool fa = kg_dtype_is_float(a), fb = kg_dtype_is_float(b);
  if (fa && fb) return kg_promote_float(a, b);
  if (fa) return a; /* int + float → the float */
  if (fb) return b;
  return kg_promote_int(a, b);
}

/* promote_types where KG_DT_NONE means "no operand of this class yet". */
static kg_dtype kg_promote_skip_none(kg_dtype a, kg_dtype b) {
  if (a == KG_DT_NONE) return b;
  if (b == KG_DT_NONE) return a;
  return kg_dtype_promote(a, b);
}

/* PyTorch's combine_categories(higher, lower): `lower` counts only when of a
 * higher category than `higher`. */
static kg_dtype kg_combine_categories(kg_dtype higher, kg_dtype lower) {
  if (kg_dtype_is_float(higher)) return higher;
  if (higher == KG_BOOL || kg_dtype_is_float(lower)) return kg_promote_skip_none(higher, lower);
  if (higher != KG_DT_NONE) return higher;
  return lower;
}

kg_dtype kg_result_type(const kg_dtype *dt, const kg_operand_class *cls, int n) {
  kg_dtype dim = KG_DT_NONE, zero = KG_DT_NONE, wrapped = KG_DT_NONE;
  for (int i = 0; i < n; i++) {
    kg_dtype t = dt[i];
    if (!kg_dtype_valid(t)) return KG_DT_NONE;
    switch (cls[i]) {
    case KG_CLS_DIM: dim = kg_promote_skip_none(dim, t); break;
    case KG_CLS_ZERODIM: zero = kg_promote_skip_none(zero, t); break;
    case KG_CLS_SCALAR:
      /* A wrapped number has its category's default dtype (Python int → int64, float → float32). */
      if (kg_dtype_is_float(t))
        t = KG_F32;
      else if (kg_dtype_is_int(t))
        t = KG_I64;
      wrapped = kg_promote_skip_none(wrapped, t);
      break;
    default: return KG_DT_NONE;
    }
  }
  return kg_combine_categories(dim, kg_combine_categories(zero, wrapped));
}
