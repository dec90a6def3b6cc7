/* tests/test_dtype.c — the dtype table and PyTorch type promotion.
 *
 * The tables below were printed by PyTorch 1.13 (/usr/bin/python3) with this script
 * (one letter per dtype, in kg_dtype order: b=bool B=uint8 c=int8 s=int16 i=int32
 * l=int64 h=float16 H=bfloat16 f=float32 d=float64):
 *
 *   ds = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
 *         torch.float16, torch.bfloat16, torch.float32, torch.float64]
 *   code = "bBcsilhHfd"
 *   def mk(cls, d):   # 0 dimensioned tensor, 1 0-dim tensor, 2 Python scalar
 *       if cls == 0: return torch.zeros(2, dtype=d)
 *       if cls == 1: return torch.zeros((), dtype=d)
 *       return True if d == torch.bool else (1.5 if d.is_floating_point else 1)
 *   promote:     code[ds.index(torch.promote_types(a, b))]       for a in ds for b in ds
 *   result_type: code[ds.index(torch.result_type(mk(ca, a), mk(cb, b)))] for a, b in ds
 */
#include <criterion/criterion.h>
#include <string.h>

#include "ir/ir.h"

static const char kg_codes[] = "bBcsilhHfd";

static kg_dtype dt_of(char c) {
  const char *p = strchr(kg_codes, c);
  cr_assert(p && c, "bad code %c", c);
  return (kg_dtype)(p - kg_codes);
}

/* torch.promote_types(row, column). */
static const char *const kg_promote_table[10] = {
    "bBcsilhHfd", "BBssilhHfd", "cscsilhHfd", "ssssilhHfd", "iiiiilhHfd",
    "llllllhHfd", "hhhhhhhffd", "HHHHHHfHfd", "fffffffffd", "dddddddddd",
};

/* torch.result_type(mk(ca, a), mk(cb, b)) for every pair of classes (not both scalars);
 * 100 letters each, a-major. */
static const struct {
  kg_operand_class ca, cb;
  const char *table;
} kg_rt_tables[] = {
    {KG_CLS_DIM, KG_CLS_DIM,
     "bBcsilhHfdBBssilhHfdcscsilhHfdssssilhHfdiiiiilhHfd"
     "llllllhHfdhhhhhhhffdHHHHHHfHfdfffffffffddddddddddd"},
    {KG_CLS_DIM, KG_CLS_ZERODIM,
     "bBcsilhHfdBBBBBBhHfdcccccchHfdsssssshHfdiiiiiihHfd"
     "llllllhHfdhhhhhhhhhhHHHHHHHHHHffffffffffdddddddddd"},
    {KG_CLS_DIM, KG_CLS_SCALAR,
     "blllllffffBBBBBBffffccccccffffssssssffffiiiiiiffff"
     "llllllffffhhhhhhhhhhHHHHHHHHHHffffffffffdddddddddd"},
    {KG_CLS_ZERODIM, KG_CLS_DIM,
     "bBcsilhHfdBBcsilhHfdcBcsilhHfdsBcsilhHfdiBcsilhHfd"
     "lBcsilhHfdhhhhhhhHfdHHHHHHhHfdffffffhHfdddddddhHfd"},
    {KG_CLS_ZERODIM, KG_CLS_ZERODIM,
     "bBcsilhHfdBBssilhHfdcscsilhHfdssssilhHfdiiiiilhHfd"
     "llllllhHfdhhhhhhhffdHHHHHHfHfdfffffffffddddddddddd"},
    {KG_CLS_ZERODIM, KG_CLS_SCALAR,
     "blllllffffBBBBBBffffccccccffffssssssffffiiiiiiffff"
     "llllllffffhhhhhhhhhhHHHHHHHHHHffffffffffdddddddddd"},
    {KG_CLS_SCALAR, KG_CLS_DIM,
     "bBcsilhHfdlBcsilhHfdlBcsilhHfdlBcsilhHfdlBcsilhHfd"
     "lBcsilhHfdffffffhHfdffffffhHfdffffffhHfdffffffhHfd"},
    {KG_CLS_SCALAR, KG_CLS_ZERODIM,
     "bBcsilhHfdlBcsilhHfdlBcsilhHfdlBcsilhHfdlBcsilhHfd"
     "lBcsilhHfdffffffhHfdffffffhHfdffffffhHfdffffffhHfd"},
};

Test(dtype, table_and_names) {
  cr_assert_eq(KG_DT__COUNT, 10);
  for (int t = 0; t < KG_DT__COUNT; t++) {
    const kg_dtype_info *info = kg_dtype_get((kg_dtype)t);
    cr_assert_not_null(info);
    cr_assert_eq(kg_dtype_from_name(info->name), (kg_dtype)t);
    cr_assert_eq(kg_dtype_from_clr(info->clr), (kg_dtype)t);
    cr_assert_str_eq(kg_dtype_name((kg_dtype)t), info->name);
  }
  cr_assert_null(kg_dtype_get(KG_DT_NONE));
  cr_assert_str_eq(kg_dtype_name(KG_DT_NONE), "none");
  cr_assert_eq(kg_dtype_from_name("float"), KG_DT_NONE);
  cr_assert_eq(kg_dtype_from_name("Float32"), KG_DT_NONE);
  cr_assert_eq(kg_dtype_from_name(NULL), KG_DT_NONE);
  cr_assert_eq(kg_dtype_from_clr("System.UInt32"), KG_DT_NONE);
  cr_assert_eq(kg_dtype_from_clr("System.Single"), KG_F32);
  cr_assert_eq(kg_dtype_get(KG_F16)->size, 2);
  cr_assert_eq(kg_dtype_get(KG_U8)->is_signed, false);
  cr_assert_eq(kg_dtype_get(KG_BF16)->category, 2);
}

Test(dtype, scalartype_codes) {
  static const struct {
    int64_t code;
    kg_dtype t;
  } cases[] = {
      {0, KG_U8},       {1, KG_I8},       {2, KG_I16},      {3, KG_I32},
      {4, KG_I64},      {5, KG_F16},      {6, KG_F32},      {7, KG_F64},
      {11, KG_BOOL},    {15, KG_BF16},    {8, KG_DT_NONE},  {9, KG_DT_NONE},
      {10, KG_DT_NONE}, {12, KG_DT_NONE}, {-1, KG_DT_NONE}, {1LL << 40, KG_DT_NONE},
  };
  for (size_t i = 0; i < KG_COUNTOF(cases); i++)
    cr_assert_eq(kg_dtype_from_scalartype(cases[i].code), cases[i].t, "code %lld",
                 (long long)cases[i].code);
}

Test(dtype, opmath) {
  cr_assert_eq(kg_dtype_opmath(KG_F16), KG_F32);
  cr_assert_eq(kg_dtype_opmath(KG_BF16), KG_F32);
  cr_assert_eq(kg_dtype_opmath(KG_F64), KG_F64);
  cr_assert_eq(kg_dtype_opmath(KG_I8), KG_I8);
  cr_assert_eq(kg_dtype_opmath(KG_BOOL), KG_BOOL);
}

Test(dtype, promote_types_full_table) {
  for (int a = 0; a < 10; a++)
    for (int b = 0; b < 10; b++) {
      kg_dtype want = dt_of(kg_promote_table[a][b]);
      kg_dtype got = kg_dtype_promote((kg_dtype)a, (kg_dtype)b);
      cr_assert_eq(got, want, "promote(%s, %s) = %s, torch says %s", kg_dtype_name((kg_dtype)a),
                   kg_dtype_name((kg_dtype)b), kg_dtype_name(got), kg_dtype_name(want));
    }
  cr_assert_eq(kg_dtype_promote(KG_DT_NONE, KG_F32), KG_DT_NONE);
}

Test(dtype, result_type_all_pairs) {
  for (size_t k = 0; k < KG_COUNTOF(kg_rt_tables); k++) {
    cr_assert_eq(strlen(kg_rt_tables[k].table), 100);
    for (int a = 0; a < 10; a++)
      for (int b = 0; b < 10; b++) {
        kg_dtype dt[2] = {(kg_dtype)a, (kg_dtype)b};
        kg_operand_class cls[2] = {kg_rt_tables[k].ca, kg_rt_tables[k].cb};
        kg_dtype want = dt_of(kg_rt_tables[k].table[a * 10 + b]);
        kg_dtype got = kg_result_type(dt, cls, 2);
        cr_assert_eq(got, want, "result_type(%s cls %d, %s cls %d) = %s, torch says %s",
                     kg_dtype_name(dt[0]), cls[0], kg_dtype_name(dt[1]), cls[1], kg_dtype_name(got),
                     kg_dtype_name(want));
      }
  }
}

static kg_dtype rt2(kg_dtype a, kg_operand_class ca, kg_dtype b, kg_operand_class cb) {
  kg_dtype dt[2] = {a, b};
  kg_operand_class cls[2] = {ca, cb};
  return kg_result_type(dt, cls, 2);
}

Test(dtype, result_type_named_cases) {
  cr_assert_eq(rt2(KG_I32, KG_CLS_DIM, KG_F64, KG_CLS_SCALAR), KG_F32);   /* int32 + 2.5 */
  cr_assert_eq(rt2(KG_F16, KG_CLS_DIM, KG_F64, KG_CLS_ZERODIM), KG_F16);  /* f16 + f64 0-dim */
  cr_assert_eq(rt2(KG_I8, KG_CLS_DIM, KG_I64, KG_CLS_ZERODIM), KG_I8);    /* int8 + int64 0-dim */
  cr_assert_eq(rt2(KG_BOOL, KG_CLS_DIM, KG_I32, KG_CLS_SCALAR), KG_I64);  /* bool + 1 */
  cr_assert_eq(rt2(KG_U8, KG_CLS_DIM, KG_I8, KG_CLS_ZERODIM), KG_U8);     /* uint8 + int8 0-dim */
  cr_assert_eq(rt2(KG_I32, KG_CLS_DIM, KG_F64, KG_CLS_ZERODIM), KG_F64);  /* int32 + f64 0-dim */
  cr_assert_eq(rt2(KG_F16, KG_CLS_DIM, KG_F64, KG_CLS_SCALAR), KG_F16);   /* f16 + 2.0 */
  cr_assert_eq(rt2(KG_BOOL, KG_CLS_DIM, KG_F64, KG_CLS_ZERODIM), KG_F64); /* bool + f64 0-dim */
  cr_assert_eq(rt2(KG_BOOL, KG_CLS_DIM, KG_F32, KG_CLS_SCALAR), KG_F32);  /* bool + 2.5 */
  cr_assert_eq(rt2(KG_U8, KG_CLS_DIM, KG_I8, KG_CLS_DIM), KG_I16);
  cr_assert_eq(rt2(KG_F16, KG_CLS_DIM, KG_BF16, KG_CLS_DIM), KG_F32);
}

Test(dtype, result_type_more_operands) {
  /* int32[N] + int64 0-dim + 2.5: the scalar's category beats both → float32. */
  kg_dtype dt[3] = {KG_I32, KG_I64, KG_F64};
  kg_operand_class cls[3] = {KG_CLS_DIM, KG_CLS_ZERODIM, KG_CLS_SCALAR};
  cr_assert_eq(kg_result_type(dt, cls, 3), KG_F32);
  /* int32[N] + float64 0-dim + 2.5: the 0-dim float wins over the scalar. */
  dt[1] = KG_F64;
  cr_assert_eq(kg_result_type(dt, cls, 3), KG_F64);
  /* bool[N] + bool 0-dim + 1 → int64. */
  dt[0] = KG_BOOL, dt[1] = KG_BOOL, dt[2] = KG_I32;
  cr_assert_eq(kg_result_type(dt, cls, 3), KG_I64);
  /* uint8[N] + int8[N] + int64 0-dim → int16 (dims promote fully; 0-dim same category). */
  dt[0] = KG_U8, dt[1] = KG_I8, dt[2] = KG_I64;
  cls[1] = KG_CLS_DIM, cls[2] = KG_CLS_ZERODIM;
  cr_assert_eq(kg_result_type(dt, cls, 3), KG_I16);
  /* Only scalars: 1 + 2.5 → float32; 1 + 2 → int64; no operands → none. */
  kg_dtype s[2] = {KG_I32, KG_F64};
  kg_operand_class sc[2] = {KG_CLS_SCALAR, KG_CLS_SCALAR};
  cr_assert_eq(kg_result_type(s, sc, 2), KG_F32);
  s[1] = KG_I16;
  cr_assert_eq(kg_result_type(s, sc, 2), KG_I64);
  cr_assert_eq(kg_result_type(s, sc, 0), KG_DT_NONE);
  s[0] = KG_DT_NONE;
  cr_assert_eq(kg_result_type(s, sc, 2), KG_DT_NONE);
}
