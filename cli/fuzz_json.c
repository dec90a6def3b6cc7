/* cli/fuzz_json.c — the JSON node builders of the `kgen fuzz` generator (issue 13).
 *
 * Every node is spelled as the F# serializer writes it (the documents of examples/): F#
 * operators as Microsoft.FSharp.Core.Operators calls with their witness lambdas, methods
 * and static functions of TorchSharp with every optional argument filled in (DefaultValue,
 * Value null), dtypes as FieldGet of torch.float32 & co, Int64[] arguments as NewArray,
 * Nullable<Int64> as its constructor, IEnumerable<Tensor> as a Coerce of a Tensor[].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_int.h"

int fz_new_var(fz_em *e, const char *name, const char *ty, bool mut) {
  cJSON *v = cJSON_CreateObject();
  cJSON_AddStringToObject(v, "name", name);
  cJSON_AddStringToObject(v, "type", ty);
  cJSON_AddBoolToObject(v, "mutable", mut);
  cJSON_AddItemToArray(e->vars, v);
  return e->nvars++;
}

char *fz_fn_ty(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 64;
  char *s = malloc(n);
  if (s) snprintf(s, n, "Microsoft.FSharp.Core.FSharpFunc`2[%s,%s]", a, b);
  return s;
}

static cJSON *strings(const char *const *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
  return a;
}

cJSON *fz_member(const char *decl, const char *name, bool st, const char *const *params, int np, const char *ret,
                 const char *const *gargs, int ng) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "decl", decl);
  cJSON_AddStringToObject(m, "name", name);
  cJSON_AddBoolToObject(m, "static", st);
  cJSON_AddItemToObject(m, "params", strings(params, np));
  cJSON_AddStringToObject(m, "ret", ret);
  cJSON_AddItemToObject(m, "genericArgs", strings(gargs, ng));
  return m;
}

cJSON *fz_knode(const char *k, const char *ty) {
  cJSON *n = cJSON_CreateObject();
  cJSON_AddStringToObject(n, "k", k);
  cJSON_AddStringToObject(n, "ty", ty);
  return n;
}

cJSON *fz_call(const char *ty, cJSON *obj, cJSON *method, cJSON **args, int na) {
  cJSON *n = fz_knode("Call", ty);
  cJSON_AddItemToObject(n, "obj", obj ? obj : cJSON_CreateNull());
  cJSON_AddItemToObject(n, "method", method);
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < na; i++) cJSON_AddItemToArray(a, args[i]);
  cJSON_AddItemToObject(n, "args", a);
  return n;
}

cJSON *fz_var_ref(int v, const char *ty) {
  cJSON *n = fz_knode("Var", ty);
  cJSON_AddNumberToObject(n, "var", v);
  return n;
}

cJSON *fz_value_num(const char *ty, double v) {
  cJSON *n = fz_knode("Value", ty);
  cJSON_AddNumberToObject(n, "value", v);
  return n;
}

cJSON *fz_value_bool(bool v) {
  cJSON *n = fz_knode("Value", T_BOOL);
  cJSON_AddBoolToObject(n, "value", v);
  return n;
}

cJSON *fz_value_null(const char *ty) {
  cJSON *n = fz_knode("Value", ty);
  cJSON_AddNullToObject(n, "value");
  return n;
}

cJSON *fz_default(const char *ty) { return fz_knode("DefaultValue", ty); }

cJSON *fz_lambda(const char *ty, int var, cJSON *body) {
  cJSON *n = fz_knode("Lambda", ty);
  cJSON_AddNumberToObject(n, "var", var);
  cJSON_AddItemToObject(n, "body", body);
  return n;
}

cJSON *fz_method(const char *name, cJSON *obj, const char *const *params, cJSON **args, int na) {
  return fz_call(T_TENSOR, obj, fz_member(T_TENSOR, name, false, params, na, T_TENSOR, NULL, 0), args, na);
}

cJSON *fz_static(const char *decl, const char *name, const char *const *params, cJSON **args, int na) {
  return fz_call(T_TENSOR, NULL, fz_member(decl, name, true, params, na, T_TENSOR, NULL, 0), args, na);
}

cJSON *fz_torch(const char *name, cJSON **args, int na) {
  const char *params[3] = {T_TENSOR, T_TENSOR, T_TENSOR};
  return fz_static(D_TORCH, name, params, args, na);
}

/* An F# operator on (ta, tb) with its witness: fun (a: ta) (b: tb) -> Tensor.op(a, b). */
cJSON *fz_op2(fz_em *e, const char *op, const char *ta, const char *tb, cJSON *a, cJSON *b) {
  const char *params[2] = {ta, tb}, *gargs[3] = {ta, tb, T_TENSOR};
  /* &&& ||| ^^^ are generic in one type (^T -> ^T -> ^T) */
  bool one = !strcmp(op, "op_BitwiseAnd") || !strcmp(op, "op_BitwiseOr") || !strcmp(op, "op_ExclusiveOr");
  if (one) gargs[0] = T_TENSOR;
  char wn[32];
  snprintf(wn, sizeof wn, "arg0_%d", e->nwit);
  int va = fz_new_var(e, wn, ta, false);
  snprintf(wn, sizeof wn, "arg1_%d", e->nwit++);
  int vb = fz_new_var(e, wn, tb, false);
  cJSON *wargs[2] = {fz_var_ref(va, ta), fz_var_ref(vb, tb)};
  cJSON *inner = fz_call(T_TENSOR, NULL, fz_member(T_TENSOR, op, true, params, 2, T_TENSOR, NULL, 0), wargs, 2);
  char *f_bt = fz_fn_ty(tb, T_TENSOR), *f_abt = fz_fn_ty(ta, f_bt);
  cJSON *wit = fz_lambda(f_abt, va, fz_lambda(f_bt, vb, inner));
  free(f_bt), free(f_abt);
  cJSON *args[2] = {a, b};
  cJSON *n = fz_call(T_TENSOR, NULL, fz_member(OPERATORS, op, true, params, 2, T_TENSOR, gargs, one ? 1 : 3), args, 2);
  cJSON *w = cJSON_CreateArray();
  cJSON_AddItemToArray(w, wit);
  cJSON_AddItemToObject(n, "witnesses", w);
  return n;
}

/* A primitive F# operator (Int32 + Int32, Int32 < Int32, ...); its witness is left out (the
 * reader takes witnesses as optional, and kgen folds primitive operators by name). */
cJSON *fz_prim_op2(const char *op, const char *t, const char *ret, cJSON *a, cJSON *b) {
  const char *params[2] = {t, t}, *g3[3] = {t, t, t}, *g1[1] = {t};
  bool cmp = !strcmp(ret, T_BOOL);
  cJSON *args[2] = {a, b};
  return fz_call(ret, NULL, fz_member(OPERATORS, op, true, params, 2, ret, cmp ? g1 : g3, cmp ? 1 : 3), args, 2);
}

cJSON *fz_neg_op(fz_em *e, cJSON *a) {
  const char *params[1] = {T_TENSOR}, *gargs[1] = {T_TENSOR};
  char wn[32];
  snprintf(wn, sizeof wn, "arg0_%d", e->nwit++);
  int va = fz_new_var(e, wn, T_TENSOR, false);
  cJSON *wargs[1] = {fz_var_ref(va, T_TENSOR)};
  cJSON *inner = fz_call(T_TENSOR, NULL, fz_member(T_TENSOR, "op_UnaryNegation", true, params, 1, T_TENSOR, NULL, 0), wargs, 1);
  char *f = fz_fn_ty(T_TENSOR, T_TENSOR);
  cJSON *wit = fz_lambda(f, va, inner);
  free(f);
  cJSON *args[1] = {a};
  cJSON *n = fz_call(T_TENSOR, NULL, fz_member(OPERATORS, "op_UnaryNegation", true, params, 1, T_TENSOR, gargs, 1), args, 1);
  cJSON *w = cJSON_CreateArray();
  cJSON_AddItemToArray(w, wit);
  cJSON_AddItemToObject(n, "witnesses", w);
  return n;
}

cJSON *fz_scalar_value(double v, bool is_int) { return fz_value_num(is_int ? T_INT32 : T_SINGLE, v); }

cJSON *fz_to_scalar(const char *ty, double v) {
  const char *sp[1] = {ty};
  cJSON *a = fz_value_num(ty, v);
  return fz_call(T_SCALAR, NULL, fz_member("TorchSharp.ScalarExtensionMethods", "ToScalar", true, sp, 1, T_SCALAR, NULL, 0), &a, 1);
}

cJSON *fz_implicit_scalar(const char *ty, double v) {
  const char *sp[1] = {ty};
  cJSON *a = fz_value_num(ty, v);
  return fz_call(T_SCALAR, NULL, fz_member(T_SCALAR, "op_Implicit", true, sp, 1, T_SCALAR, NULL, 0), &a, 1);
}

cJSON *fz_dtype_field(int dt) {
  cJSON *n = fz_knode("FieldGet", "TorchSharp.torch+ScalarType");
  cJSON_AddItemToObject(n, "obj", cJSON_CreateNull());
  cJSON_AddItemToObject(n, "field", fz_member(D_TORCH, fz_dt_name[dt], true, NULL, 0, "TorchSharp.torch+ScalarType", NULL, 0));
  return n;
}

cJSON *fz_dims_array(const int *dims, int k) {
  cJSON *n = fz_knode("NewArray", T_I64ARR);
  cJSON_AddStringToObject(n, "elemType", T_INT64);
  cJSON *items = cJSON_CreateArray();
  for (int i = 0; i < k; i++) cJSON_AddItemToArray(items, fz_value_num(T_INT64, dims[i]));
  cJSON_AddItemToObject(n, "items", items);
  return n;
}

cJSON *fz_nullable_i64(long long v) {
  const char *ty = "System.Nullable`1[System.Int64]", *params[1] = {T_INT64};
  cJSON *n = fz_knode("NewObject", ty);
  cJSON_AddItemToObject(n, "ctor", fz_member(ty, ".ctor", false, params, 1, ty, NULL, 0));
  cJSON *a = cJSON_CreateArray();
  cJSON_AddItemToArray(a, fz_value_num(T_INT64, (double)v));
  cJSON_AddItemToObject(n, "args", a);
  return n;
}

cJSON *fz_shape_of(cJSON *t, int dim) {
  cJSON *pg = fz_knode("PropertyGet", T_I64ARR);
  cJSON_AddItemToObject(pg, "obj", t);
  cJSON_AddItemToObject(pg, "property", fz_member(T_TENSOR, "shape", false, NULL, 0, T_I64ARR, NULL, 0));
  cJSON_AddItemToObject(pg, "args", cJSON_CreateArray());
  const char *params[2] = {T_I64ARR, T_INT32}, *g[1] = {T_INT64};
  cJSON *args[2] = {pg, fz_value_num(T_INT32, dim)};
  return fz_call(T_INT64, NULL, fz_member("Microsoft.FSharp.Core.LanguagePrimitives+IntrinsicFunctions", "GetArray", true, params, 2, T_INT64, g, 1),
                 args, 2);
}

cJSON *fz_ignore_pipe(fz_em *e, cJSON *t) {
  char nm[32];
  snprintf(nm, sizeof nm, "value");
  int v = fz_new_var(e, nm, T_TENSOR, false);
  const char *p1[1] = {T_TENSOR}, *g1[1] = {T_TENSOR};
  cJSON *va = fz_var_ref(v, T_TENSOR);
  cJSON *ign = fz_call(T_UNIT, NULL, fz_member(OPERATORS, "Ignore", true, p1, 1, "System.Void", g1, 1), &va, 1);
  char *fty = fz_fn_ty(T_TENSOR, T_UNIT);
  cJSON *lam = fz_lambda(fty, v, ign);
  const char *p2[2] = {T_TENSOR, fty}, *g2[2] = {T_TENSOR, T_UNIT};
  cJSON *args[2] = {t, lam};
  cJSON *n = fz_call(T_UNIT, NULL, fz_member(OPERATORS, "op_PipeRight", true, p2, 2, T_UNIT, g2, 2), args, 2);
  free(fty);
  return n;
}

cJSON *fz_enum(const char *ty, int v, const char *name) {
  cJSON *n = fz_knode("Value", ty), *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "enum", v);
  cJSON_AddStringToObject(o, "name", name);
  cJSON_AddItemToObject(n, "value", o);
  return n;
}
