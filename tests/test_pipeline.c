/* tests/test_pipeline.c — elaboration, passes, lowering and execution, stage by
 * stage: type promotion and broadcasting, member resolution (F# operators,
 * Scalar wrappers, filled-in optional arguments, dtype spellings), inlining,
 * folding/CSE/DCE, fusion structure, the pointwise schedule's variants (vector
 * width, 64-bit indices, strides), and emulator runs on edge layouts (odd sizes,
 * transposed and broadcast inputs, size 0, outputs aliasing inputs). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "qjson.h"
#include "runtime/api_int.h"

#define FN_TT FN(T, FN(T, T))

static kg_context *ctx_new(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

/* fun x y -> x OP y over two tensors */
static char *binop_doc(const char *op, const char *sig) {
  char *e = qj_lambda(0, FN_TT, qj_lambda(1, FN(T, T), qj_fsop(op, T, T, T, qj_var(0, T), qj_var(1, T))));
  return qj_doc(TVAR("x") "," TVAR("y"), "f", e, sig);
}

static kg_compiled *compile(kg_context *ctx, const char *doc, const char *sig, kg_module **mo) {
  kg_module *m;
  kg_status s = kg_module_load(ctx, doc, strlen(doc), &m);
  cr_assert_eq(s, KG_OK, "load: %s", kg_last_error(ctx));
  kg_compiled *c;
  s = kg_specialize(m, NULL, sig, &c);
  cr_assert_eq(s, KG_OK, "specialize: %s", kg_last_error(ctx));
  *mo = m;
  return c;
}

static kg_dtype out_dtype(kg_compiled *c, int i) { return (kg_dtype)c->g.nodes.v[c->g.outputs.v[i]].dtype; }

static void expect_promotion(const char *sig, kg_dtype want) {
  kg_context *ctx = ctx_new();
  char *doc = binop_doc("op_Addition", NULL);
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, sig, &m);
  cr_expect_eq(out_dtype(c, 0), want, "%s: got %s, want %s", sig, kg_dtype_name(out_dtype(c, 0)), kg_dtype_name(want));
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(elab, promotion_tensors_and_zero_dim) {
  expect_promotion("float16[4], float64[]", KG_F16);   /* 0-dim of the same category does not win */
  expect_promotion("int8[4], int64[]", KG_I8);
  expect_promotion("int32[4], float64[]", KG_F64);     /* 0-dim of a higher category wins with its dtype */
  expect_promotion("uint8[4], int8[4]", KG_I16);
  expect_promotion("bool[3], int32[3]", KG_I32);
  expect_promotion("float16[2], bfloat16[2]", KG_F32);
  expect_promotion("int64[], float16[]", KG_F16);
}

Test(elab, promotion_wrapped_scalars) {
  /* fun x -> x * 0.5f  and  x + 1 : Operators over (Tensor, Single) / (Tensor, Int32) */
  struct { const char *ty, *lit, *sig; kg_dtype want; } cases[] = {
      {F32, "0.5", "int32[5]", KG_F32},   {F32, "0.5", "float16[5]", KG_F16}, {I32, "1", "bool[5]", KG_I64},
      {I32, "1", "uint8[5]", KG_U8},      {F64, "2.5", "float32[5]", KG_F32}, {I32, "3", "int16[5]", KG_I16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *e = qj_lambda(0, FN(T, T), qj_fsop("op_Multiply", T, cases[i].ty, T, qj_var(0, T), qj_val(cases[i].ty, cases[i].lit)));
    char *doc = qj_doc(TVAR("x"), "f", e, NULL);
    kg_context *ctx = ctx_new();
    kg_module *m;
    kg_compiled *c = compile(ctx, doc, cases[i].sig, &m);
    cr_expect_eq(out_dtype(c, 0), cases[i].want, "case %zu: got %s", i, kg_dtype_name(out_dtype(c, 0)));
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
  }
}

Test(elab, broadcasting_shapes_and_errors) {
  kg_context *ctx = ctx_new();
  char *doc = binop_doc("op_Multiply", NULL);
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, "float32[4,1,5], float32[3,1]", &m);
  DLDataType dt;
  int nd;
  int64_t sh[8];
  kg_compiled_output(c, 0, &dt, &nd, sh);
  cr_expect_eq(nd, 3);
  cr_expect(sh[0] == 4 && sh[1] == 3 && sh[2] == 5);
  kg_compiled_free(c);
  kg_compiled *bad;
  cr_expect_eq(kg_specialize(m, NULL, "float32[3,4], float32[5]", &bad), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "cannot be broadcast") != NULL, "%s", kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), "$.entries[0].expr.body.body") != NULL, "%s", kg_last_error(ctx));
  /* symbolic sizes stay symbolic: one kernel for every N */
  c = compile(ctx, doc, "float32[N,768], float32[768]", &m);
  kg_compiled_output(c, 0, &dt, &nd, sh);
  cr_expect(nd == 2 && sh[0] == -1 && sh[1] == 768);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(elab, scalar_wrappers_optional_args_and_dtypes) {
  /* fun x -> x.add(x, Scalar 2.0f).div(x, RoundingMode.floor).to_type(torch.float64)
   * (the instance div: TorchSharp 0.107's static torch.div drops its rounding mode) */
  char *alpha = qj_call(NULL, "TorchSharp.Scalar", "op_Implicit", 1, "\"" F32 "\"", "TorchSharp.Scalar", NULL, qj_list(1, qj_val(F32, "2.0")));
  char *add = qj_call(qj_var(0, T), "TorchSharp.torch+Tensor", "add", 0, "\"" T "\",\"TorchSharp.Scalar\"", T, NULL, qj_list(2, qj_var(0, T), alpha));
  char *mode = qj_val("TorchSharp.torch+RoundingMode", "{\"enum\":2,\"name\":\"floor\"}");
  char *div = qj_call(add, "TorchSharp.torch+Tensor", "div", 0, "\"" T "\",\"TorchSharp.torch+RoundingMode\"", T, NULL,
                      qj_list(2, qj_var(0, T), mode));
  char *f64 = qj_fmt("{\"k\":\"FieldGet\",\"ty\":\"TorchSharp.torch+ScalarType\",\"obj\":null,\"field\":{\"decl\":\"TorchSharp.torch\",\"name\":\"float64\",\"static\":true,\"params\":[],\"ret\":\"TorchSharp.torch+ScalarType\",\"genericArgs\":[]}}");
  char *to = qj_call(div, "TorchSharp.torch+Tensor", "to_type", 0,
                     "\"TorchSharp.torch+ScalarType\",\"" BOOLT "\",\"" BOOLT "\",\"" BOOLT "\"", T, NULL,
                     qj_list(4, f64, qj_val(BOOLT, "false"), qj_val(BOOLT, "false"), qj_val(BOOLT, "false")));
  char *doc = qj_doc(TVAR("x"), "f", qj_lambda(0, FN(T, T), to), NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, "float32[7]", &m);
  cr_expect_eq(out_dtype(c, 0), KG_F64);
  kg_strbuf b;
  kg_sb_init(&b);
  kg_graph_print(&c->g, &b);
  cr_expect(strstr(kg_sb_cstr(&b), "FLOORDIV") != NULL, "%s", kg_sb_cstr(&b));
  cr_expect(strstr(kg_sb_cstr(&b), "MUL") != NULL, "alpha is x + alpha*y: %s", kg_sb_cstr(&b));
  kg_sb_free(&b);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(elab, let_bound_lambda_and_definitions_are_inlined) {
  /* let sq = fun v -> v * v in fun x -> sq (helper x), helper = [<ReflectedDefinition>] fun t -> t + t */
  char *sqbody = qj_fsop("op_Multiply", T, T, T, qj_var(2, T), qj_var(2, T));
  char *sq = qj_lambda(2, FN(T, T), sqbody);
  char *helper_call = qj_call(NULL, "Model", "helper", 1, "\"" T "\"", T, NULL, qj_list(1, qj_var(0, T)));
  char *app = qj_fmt("{\"k\":\"Application\",\"ty\":\"" T "\",\"func\":%s,\"arg\":%s}", "{\"k\":\"Var\",\"ty\":\"" FN(T, T) "\",\"var\":1}", helper_call);
  free(helper_call);
  char *let = qj_fmt("{\"k\":\"Let\",\"ty\":\"" T "\",\"var\":1,\"value\":%s,\"body\":%s}", sq, app);
  free(sq), free(app);
  char *entry = qj_lambda(0, FN(T, T), let);
  char *defbody = qj_lambda(3, FN(T, T), qj_fsop("op_Addition", T, T, T, qj_var(3, T), qj_var(3, T)));
  char *doc = qj_fmt("{\"format\":\"kgen-quotation\",\"version\":1,\"vars\":[" TVAR("x") ",{\"name\":\"sq\",\"type\":\"" FN(T, T)
                     "\",\"mutable\":false}," TVAR("v") "," TVAR("t") "],\"entries\":[{\"name\":\"f\",\"expr\":%s}],"
                     "\"definitions\":[{\"member\":{\"decl\":\"Model\",\"name\":\"helper\",\"static\":true,\"params\":[\"" T "\"],\"ret\":\"" T
                     "\",\"genericArgs\":[]},\"expr\":%s}]}",
                     entry, defbody);
  free(entry), free(defbody);
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, "float32[3]", &m);
  /* (x + x) * (x + x): CSE leaves one ADD and one MUL */
  int adds = 0, muls = 0;
  for (uint32_t i = 0; i < c->g.nodes.n; i++) adds += c->g.nodes.v[i].op == KG_OP_ADD, muls += c->g.nodes.v[i].op == KG_OP_MUL;
  cr_expect_eq(adds, 1);
  cr_expect_eq(muls, 1);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(elab, unsupported_constructs_are_named_with_paths) {
  char *e = qj_lambda(0, FN(T, T), qj_fmt("{\"k\":\"TryWith\",\"ty\":\"" T "\",\"kids\":[]}"));
  char *doc = qj_doc(TVAR("x"), "f", e, NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  if (kg_module_load(ctx, doc, strlen(doc), &m) == KG_OK) {
    kg_compiled *c;
    cr_expect_eq(kg_specialize(m, NULL, "float32[2]", &c), KG_ERR_INPUT);
    kg_module_free(m);
  }
  cr_expect(strstr(kg_last_error(ctx), "TryWith") != NULL, "%s", kg_last_error(ctx));
  kg_context_free(ctx), free(doc);
}

Test(passes, fold_cse_dce) {
  /* fun x -> x * (2.0f * 3.0f) + exp(x) + exp(x), with an unused exp(neg x) */
  char *k = qj_fsop("op_Multiply", F32, F32, F32, qj_val(F32, "2.0"), qj_val(F32, "3.0"));
  char *mul = qj_fsop("op_Multiply", T, F32, T, qj_var(0, T), k);
  char *e1 = qj_torch1("exp", qj_var(0, T)), *e2 = qj_torch1("exp", qj_var(0, T));
  char *sum = qj_fsop("op_Addition", T, T, T, qj_fsop("op_Addition", T, T, T, mul, e1), e2);
  char *unused = qj_torch1("exp", qj_torch1("neg", qj_var(0, T)));
  char *let = qj_fmt("{\"k\":\"Let\",\"ty\":\"" T "\",\"var\":1,\"value\":%s,\"body\":%s}", unused, sum);
  free(unused), free(sum);
  char *doc = qj_doc(TVAR("x") "," TVAR("u"), "f", qj_lambda(0, FN(T, T), let), NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, "float32[9]", &m);
  int exps = 0, negs = 0, consts6 = 0;
  for (uint32_t i = 0; i < c->g.nodes.n; i++) {
    const kg_gnode *n = &c->g.nodes.v[i];
    exps += n->op == KG_OP_EXP, negs += n->op == KG_OP_NEG;
    consts6 += n->op == KG_OP_CONST && n->fa[0] == 6.0;
  }
  cr_expect_eq(exps, 1, "CSE merges exp(x)");
  cr_expect_eq(negs, 0, "DCE removes the unused value");
  cr_expect_eq(consts6, 1, "2*3 folds to 6");
  cr_expect(strstr(c->explain, "== after fold") != NULL);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(passes, fusion_groups_by_output_shape) {
  /* fun x b -> (x + b, x * b, tanh b): two kernels ([N,8] twice, then [8]) */
  char *t1 = qj_fsop("op_Addition", T, T, T, qj_var(0, T), qj_var(1, T));
  char *t2 = qj_fsop("op_Multiply", T, T, T, qj_var(0, T), qj_var(1, T));
  char *t3 = qj_torch1("tanh", qj_var(1, T));
  char *tup = qj_fmt("{\"k\":\"NewTuple\",\"ty\":\"System.Tuple`3[" T "," T "," T "]\",\"items\":[%s,%s,%s]}", t1, t2, t3);
  free(t1), free(t2), free(t3);
  char *doc = qj_doc(TVAR("x") "," TVAR("b"), "f", qj_lambda(0, FN_TT, qj_lambda(1, FN(T, "System.Tuple`3[" T "," T "," T "]"), tup)), NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, "float32[N,8], float32[8]", &m);
  cr_expect_eq(kg_compiled_n_kernels(c), 2);
  cr_expect_eq(kg_compiled_n_outputs(c), 3);
  cr_expect_eq(c->fusion.groups.v[0].outs.n, 2);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(lower, vector_width_and_index_width) {
  struct { const char *sig; uint32_t vec; kg_dtype ix; } cases[] = {
      {"float32[1000], float32[1000]", 4, KG_I32}, {"float64[10], float64[10]", 2, KG_I32},
      {"float16[10], float16[10]", 8, KG_I32},     {"int8[10], int8[10]", 8, KG_I32},
      {"float32[3000000000], float32[3000000000]", 4, KG_I64},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *doc = binop_doc("op_Addition", NULL);
    kg_context *ctx = ctx_new();
    kg_module *m;
    kg_compiled *c = compile(ctx, doc, cases[i].sig, &m);
    cr_expect_eq(c->kernels[0].vec, cases[i].vec, "%s: vec %u", cases[i].sig, c->kernels[0].vec);
    cr_expect_eq(c->kernels[0].launch.elems_per_thread, cases[i].vec);
    cr_expect_eq(c->kernels[0].index_dtype, cases[i].ix, "%s", cases[i].sig);
    cr_expect(strstr(c->cuda, cases[i].vec * 4 >= 16 || cases[i].vec == 8 ? "uint" : "unsigned") != NULL);
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
  }
}

Test(lower, broadcast_dims_have_no_stride_parameter) {
  char *doc = binop_doc("op_Addition", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = compile(ctx, doc, "float32[4,1,5], float32[3,1]", &m);
  const kg_kernel *k = &c->kernels[0];
  cr_expect_str_eq(k->schedule, "pointwise.strided");
  int strides = 0;
  for (uint32_t i = 0; i < k->params.n; i++) strides += k->params.v[i].role == KPR_STRIDE && !(k->params.v[i].r0 & 0x80000000u);
  /* x:[4,1,5] has strides for dims 0 and 2; y:[3,1] only for dim 1 */
  cr_expect_eq(strides, 3);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

/* ---- execution on the emulator ---- */

static DLTensor view(void *data, DLDataType dt, int nd, int64_t *shape, int64_t *strides) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.dtype = dt, t.ndim = nd, t.shape = shape, t.strides = strides;
  t.device.device_type = kDLCPU;
  return t;
}

static const DLDataType F32T = {kDLFloat, 32, 1};

static void run_add(int64_t n, int misalign) {
  char *doc = binop_doc("op_Addition", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  float *xb = calloc((size_t)n + 8, 4), *yb = calloc((size_t)n + 8, 4), *ob = calloc((size_t)n + 8, 4);
  float *x = xb + misalign, *y = yb + misalign, *o = ob + misalign;
  for (int64_t i = 0; i < n; i++) x[i] = (float)i * 0.5f, y[i] = (float)(n - i);
  int64_t shape[1] = {n};
  DLTensor tx = view(x, F32T, 1, shape, NULL), ty = view(y, F32T, 1, shape, NULL), to = view(o, F32T, 1, shape, NULL);
  const DLTensor *ins[2] = {&tx, &ty};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int64_t i = 0; i < n; i++) cr_assert_eq(o[i], x[i] + y[i], "n=%lld i=%lld", (long long)n, (long long)i);
  if (n > 0) {
    cr_assert_eq(c->runtime.n, 1);
    cr_expect_eq(c->runtime.v[0]->v.layout, KG_LAYOUT_LINEAR);
    cr_expect_eq(c->runtime.v[0]->v.vec, misalign ? 1 : 4, "misaligned buffers fall back to scalar access");
  } else {
    cr_expect_eq(c->runtime.n, 0, "a size-0 run launches nothing");
  }
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc), free(xb), free(yb), free(ob);
}

Test(exec, linear_vectorized_with_ragged_end) {
  run_add(1027, 0);
  run_add(1, 0);
  run_add(4, 0);
  run_add(0, 0);
  run_add(515, 1);
}

Test(exec, transposed_and_broadcast_inputs) {
  /* x: a [3,4] transposed view of a [4,3] buffer; y: [4] broadcast along rows */
  char *doc = binop_doc("op_Subtraction", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  float buf[12], yv[4], out[12];
  for (int i = 0; i < 12; i++) buf[i] = (float)(i * i);
  for (int i = 0; i < 4; i++) yv[i] = (float)(10 * i);
  int64_t xs[2] = {3, 4}, xst[2] = {1, 3}, ys[1] = {4}, os[2] = {3, 4};
  DLTensor tx = view(buf, F32T, 2, xs, xst), ty = view(yv, F32T, 1, ys, NULL), to = view(out, F32T, 2, os, NULL);
  const DLTensor *ins[2] = {&tx, &ty};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int r = 0; r < 3; r++)
    for (int q = 0; q < 4; q++) cr_expect_eq(out[r * 4 + q], buf[q * 3 + r] - yv[q], "[%d,%d]", r, q);
  cr_expect_eq(c->runtime.v[0]->v.layout, KG_LAYOUT_STRIDED);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(exec, output_may_alias_an_input) {
  char *doc = binop_doc("op_Multiply", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  float x[37], y[37];
  for (int i = 0; i < 37; i++) x[i] = (float)i, y[i] = 2.0f;
  int64_t s[1] = {37};
  DLTensor tx = view(x, F32T, 1, s, NULL), ty = view(y, F32T, 1, s, NULL);
  const DLTensor *ins[2] = {&tx, &ty};
  DLTensor *outs[1] = {&tx};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK);
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int i = 0; i < 37; i++) cr_expect_eq(x[i], 2.0f * (float)i);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(exec, wrong_inputs_are_rejected_clearly) {
  char *doc = binop_doc("op_Addition", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, "float32[N], float32[N]", &c), KG_OK);
  float a[4] = {0}, b[5] = {0}, o[4];
  int64_t s4[1] = {4}, s5[1] = {5};
  DLTensor ta = view(a, F32T, 1, s4, NULL), tb = view(b, F32T, 1, s5, NULL), to = view(o, F32T, 1, s4, NULL);
  const DLTensor *ins[2] = {&ta, &tb};
  DLTensor *outs[1] = {&to};
  cr_expect_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "symbol N is already 4") != NULL, "%s", kg_last_error(ctx));
  DLTensor td = view(a, (DLDataType){kDLInt, 32, 1}, 1, s4, NULL);
  const DLTensor *ins2[2] = {&ta, &td};
  cr_expect_eq(kg_run(c, KG_DEVICE_EMU, ins2, 2, NULL, 0, outs, 1, NULL), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "dtype int32") != NULL, "%s", kg_last_error(ctx));
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

/* Hostile sizes through the API (issue 25): a negative size, and a shape whose element count no
 * 64-bit index reaches, are input errors naming the tensor, on every device kind — never a
 * launch with a negative element count or an assertion. */
Test(exec, hostile_sizes_are_input_errors) {
  char *doc = binop_doc("op_Addition", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, "float32[N,M], float32[N,M]", &c), KG_OK);
  float a[4] = {0}, o[4];
  int64_t s[2] = {2, 2}, neg[2] = {-5, 2}, huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40}, empty[2] = {0, INT64_MAX};
  DLTensor ta = view(a, F32T, 2, s, NULL), tn = view(a, F32T, 2, neg, NULL), th = view(a, F32T, 2, huge, NULL), to = view(o, F32T, 2, s, NULL);
  DLTensor te = view(a, F32T, 2, empty, NULL);
  const DLTensor *ins_neg[2] = {&tn, &ta}, *ins_huge[2] = {&th, &th}, *ins_empty[2] = {&te, &te};
  DLTensor *outs[1] = {&to}, *outs_neg[1] = {&tn}, *outs_empty[1] = {&te};
  kg_device_kind devs[2] = {KG_DEVICE_EMU, KG_DEVICE_NULL};
  for (int i = 0; i < 2; i++) {
    cr_expect_eq(kg_run(c, devs[i], ins_neg, 2, NULL, 0, outs, 1, NULL), KG_ERR_INPUT);
    cr_expect(strstr(kg_last_error(ctx), "input 1 ('x') has a negative size -5 at dim 0") != NULL, "%s", kg_last_error(ctx));
    const DLTensor *ins_ok[2] = {&ta, &ta};
    cr_expect_eq(kg_run(c, devs[i], ins_ok, 2, NULL, 0, outs_neg, 1, NULL), KG_ERR_INPUT);
    cr_expect(strstr(kg_last_error(ctx), "output 0 has a negative size -5") != NULL, "%s", kg_last_error(ctx));
    cr_expect_eq(kg_run(c, devs[i], ins_huge, 2, NULL, 0, outs, 1, NULL), KG_ERR_INPUT);
    cr_expect(strstr(kg_last_error(ctx), "more elements than a 64-bit index addresses") != NULL, "%s", kg_last_error(ctx));
    /* an empty tensor with a huge other dim is fine: nothing to address */
    cr_expect_eq(kg_run(c, devs[i], ins_empty, 2, NULL, 0, outs_empty, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  }
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(exec, cuda_device_fails_cleanly_without_a_gpu) {
  if (kg_dev_cuda_available()) cr_skip_test("a CUDA device is present");
  char *doc = binop_doc("op_Addition", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  float a[2] = {1, 2}, o[2];
  int64_t s[1] = {2};
  DLTensor ta = view(a, F32T, 1, s, NULL), to = view(o, F32T, 1, s, NULL);
  const DLTensor *ins[2] = {&ta, &ta};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK);
  cr_expect_eq(kg_default_device(ctx), KG_DEVICE_EMU);
  cr_expect_eq(kg_run(c, KG_DEVICE_CUDA, ins, 2, NULL, 0, outs, 1, NULL), KG_ERR_INTERNAL);
  cr_expect(strstr(kg_last_error(ctx), "CUDA") != NULL || strstr(kg_last_error(ctx), "cuda") != NULL, "%s", kg_last_error(ctx));
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

/* KG_SPEC_DYNAMIC: sizes of 2 and more become symbols shared by equal sizes, 0 and 1 stay
 * static; one compiled entry then runs on every size pattern like the first, and its output
 * dims name their symbols (the .NET fast path computes output shapes from them). */
Test(exec, dynamic_sizes_duck_symbols) {
  char *doc = binop_doc("op_Addition", NULL);
  kg_context *ctx = ctx_new();
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  float x[42], y[7], out[42];
  for (int i = 0; i < 42; i++) x[i] = (float)i;
  for (int i = 0; i < 7; i++) y[i] = (float)(100 * i);
  int64_t xs[2] = {3, 4}, ys[1] = {4};
  DLTensor tx = view(x, F32T, 2, xs, NULL), ty = view(y, F32T, 1, ys, NULL), to = view(out, F32T, 2, xs, NULL);
  const DLTensor *ins[2] = {&tx, &ty};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for_ex(m, NULL, ins, 2, NULL, 0, KG_SPEC_DYNAMIC, &c), KG_OK, "%s", kg_last_error(ctx));
  int nd;
  int64_t shape[8];
  DLDataType dt;
  cr_assert_eq(kg_compiled_output(c, 0, &dt, &nd, shape), KG_OK);
  cr_expect(nd == 2 && shape[0] == -1 && shape[1] == -1, "symbolic output dims read as -1");
  cr_expect_str_eq(kg_compiled_output_symbol(c, 0, 0), "s0");
  cr_expect_str_eq(kg_compiled_output_symbol(c, 0, 1), "s1");
  cr_expect_null(kg_compiled_output_symbol(c, 0, 2));
  cr_expect_null(kg_compiled_output_symbol(c, 1, 0));
  /* the same entry on [6,7] + [7] */
  xs[0] = 6, xs[1] = 7, ys[0] = 7;
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int i = 0; i < 42; i++) cr_expect_eq(out[i], x[i] + y[i % 7], "[%d]", i);
  /* a size pattern unlike the first is the caller's to re-specialize: here a bound error */
  ys[0] = 5;
  cr_expect_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_ERR_INPUT);
  kg_context_stats st;
  cr_assert_eq(kg_context_stats_get(ctx, &st), KG_OK);
  cr_expect_eq(st.specializations, 1);
  cr_expect_eq(st.emu_compiles + st.emu_cache_hits, 1, "one kernel built or found in the cache");
  kg_compiled_free(c);
  /* equal sizes share a symbol; sizes 1 stay static (broadcast) */
  int64_t xs2[2] = {4, 4}, ys2[1] = {1};
  DLTensor ux = view(x, F32T, 2, xs2, NULL), uy = view(y, F32T, 1, ys2, NULL);
  const DLTensor *ins2[2] = {&ux, &uy};
  cr_assert_eq(kg_specialize_for_ex(m, NULL, ins2, 2, NULL, 0, KG_SPEC_DYNAMIC, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_str_eq(kg_compiled_output_symbol(c, 0, 0), "s0");
  cr_expect_str_eq(kg_compiled_output_symbol(c, 0, 1), "s0");
  cr_assert_eq(kg_context_stats_get(ctx, &st), KG_OK);
  cr_expect_eq(st.specializations, 2);
  kg_compiled_free(c);
  /* sizes that cannot broadcast ([3,4] + [5]) are distinct symbols that broadcasting assumes
   * equal: the guard fails the run with a shape error, no kernel reads out of bounds */
  int64_t xs3[2] = {3, 4}, ys3[1] = {5};
  DLTensor vx = view(x, F32T, 2, xs3, NULL), vy = view(y, F32T, 1, ys3, NULL), vo = view(out, F32T, 2, xs3, NULL);
  const DLTensor *ins3[2] = {&vx, &vy};
  DLTensor *outs3[1] = {&vo};
  cr_assert_eq(kg_specialize_for_ex(m, NULL, ins3, 2, NULL, 0, KG_SPEC_DYNAMIC, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_eq(kg_run(c, KG_DEVICE_EMU, ins3, 2, NULL, 0, outs3, 1, NULL), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "cannot be broadcast: s1 is 4 but s2 is 5") != NULL, "%s", kg_last_error(ctx));
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}
