/* tests/test_reduce.c — reductions, stage by stage: dims / keepdim / dtype rules
 * and errors in elaboration, fusion structure (prologue fused, results read by
 * later kernels through temporaries), and emulator runs compared with a plain C
 * reference over every axis, odd sizes, all three thread orders, NaN propagation,
 * integer sums, and empty reductions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "qjson.h"
#include "runtime/api_int.h"

static kg_context *ctx_new(int order) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.emu_thread_order = order;
  o.emu_seed = 11;
  return kg_context_new(&o);
}

#define NDT "System.Nullable`1[TorchSharp.torch+ScalarType]"

/* x.sum(dim, keepdim) / x.amax([|dims|], keepdim) / x.mean([|dims|], keepdim) */
static char *reduce_doc(const char *name, const char *dims_json, bool array, bool keepdim, const char *prologue_op) {
  char *x = qj_var(0, T);
  if (prologue_op) x = qj_fsop(prologue_op, T, F32, T, x, qj_val(F32, "2.0"));
  char *dims;
  if (array) {
    /* "0,-2" → [Value 0L, Value -2L] */
    char items[512] = "", buf[64];
    char *p = (char *)(uintptr_t)dims_json;
    while (*p) {
      long long v = strtoll(p, &p, 10);
      snprintf(buf, sizeof buf, "%s{\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":%lld}", items[0] ? "," : "", v);
      strcat(items, buf);
      if (*p == ',') p++;
    }
    dims = qj_fmt("{\"k\":\"NewArray\",\"ty\":\"System.Int64[]\",\"elemType\":\"System.Int64\",\"items\":[%s]}", items);
  } else {
    dims = qj_val(I64, dims_json);
  }
  char *kd = qj_val(BOOLT, keepdim ? "true" : "false");
  char *call;
  if (!strcmp(name, "sum"))
    call = qj_call(x, T, "sum", 0, "\"" I64 "\",\"" BOOLT "\",\"" NDT "\"", T, NULL,
                   qj_list(3, dims, kd, qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")));
  else if (!strcmp(name, "mean"))
    call = qj_call(x, T, "mean", 0, "\"System.Int64[]\",\"" BOOLT "\",\"" NDT "\"", T, NULL,
                   qj_list(3, dims, kd, qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")));
  else
    call = qj_call(x, T, name, 0, "\"System.Int64[]\",\"" BOOLT "\",\"" T "\"", T, NULL,
                   qj_list(3, dims, kd, qj_val(T, "null")));
  return qj_doc(TVAR("x"), "r", qj_lambda(0, FN(T, T), call), NULL);
}

static kg_compiled *compile(kg_context *ctx, const char *doc, const char *sig, kg_module **mo, kg_status want) {
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c = NULL;
  kg_status s = kg_specialize(m, NULL, sig, &c);
  cr_assert_eq(s, want, "%s", kg_last_error(ctx));
  *mo = m;
  return c;
}

Test(reduce, dtypes_shapes_and_errors) {
  kg_context *ctx = ctx_new(0);
  kg_module *m;
  char *doc = reduce_doc("sum", "-1", false, false, NULL);
  kg_compiled *c = compile(ctx, doc, "int32[4,7]", &m, KG_OK);
  DLDataType dt;
  int nd;
  int64_t sh[8];
  kg_compiled_output(c, 0, &dt, &nd, sh);
  cr_expect(dt.code == kDLInt && dt.bits == 64, "integer sums give int64");
  cr_expect(nd == 1 && sh[0] == 4);
  kg_compiled_free(c);
  c = compile(ctx, doc, "bool[9]", &m, KG_OK);
  kg_compiled_output(c, 0, &dt, &nd, sh);
  cr_expect(dt.code == kDLInt && dt.bits == 64 && nd == 0, "bool sums give int64");
  kg_compiled_free(c);
  kg_compiled *bad;
  cr_expect_eq(kg_specialize(m, NULL, "float32[4]", &bad), KG_OK);
  kg_compiled_free(bad);
  cr_expect_eq(kg_specialize(m, NULL, "float32[]", &bad), KG_OK, "dim -1 of a 0-dim tensor is allowed: %s", kg_last_error(ctx));
  kg_compiled_free(bad);
  kg_module_free(m), free(doc);
  doc = reduce_doc("sum", "2", false, true, NULL);
  compile(ctx, doc, "float32[4,7]", &m, KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "dimension out of range (expected to be in range of [-2, 1], but got 2)") != NULL, "%s",
            kg_last_error(ctx));
  kg_module_free(m), free(doc);
  doc = reduce_doc("amax", "0,-2", true, true, NULL);
  compile(ctx, doc, "float32[4,7]", &m, KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "appears multiple times") != NULL, "%s", kg_last_error(ctx));
  kg_compiled *cc = compile(ctx, doc, "float32[4,7,3]", &m, KG_OK);
  kg_compiled_output(cc, 0, &dt, &nd, sh);
  cr_expect(nd == 3 && sh[0] == 1 && sh[1] == 1 && sh[2] == 3, "keepdim keeps size-1 dims");
  kg_compiled_free(cc);
  cr_expect_eq(kg_specialize(m, NULL, "float32[0,5,2]", &bad), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "non-zero size") != NULL, "%s", kg_last_error(ctx));
  kg_module_free(m), free(doc);
  doc = reduce_doc("mean", "0", true, false, NULL);
  compile(ctx, doc, "int16[5]", &m, KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "mean(): could not infer output dtype") != NULL, "%s", kg_last_error(ctx));
  kg_module_free(m), free(doc);
  kg_context_free(ctx);
}

Test(reduce, prologue_and_row_outputs_fused) {
  /* fun x -> x - x.mean([|-1L|], true): the reduction writes a temporary the pointwise kernel broadcasts */
  char *mean = reduce_doc("mean", "-1", true, true, NULL);
  kg_context *ctx = ctx_new(0);
  kg_module *m;
  kg_compiled *c = compile(ctx, mean, "float32[6,9]", &m, KG_OK);
  cr_expect_eq(kg_compiled_n_kernels(c), 1, "the mean is its own output: one kernel");
  kg_compiled_free(c), kg_module_free(m), free(mean);
  /* (x * 2).sum(-1): the prologue runs inside the reduction kernel */
  char *doc = reduce_doc("sum", "-1", false, false, "op_Multiply");
  c = compile(ctx, doc, "float32[6,9]", &m, KG_OK);
  cr_expect_eq(kg_compiled_n_kernels(c), 1);
  cr_expect_eq(c->fusion.groups.v[0].kind, KG_GROUP_REDUCE);
  cr_expect(strstr(c->cuda, "kg_bred_sum_f") != NULL);
  kg_compiled_free(c), kg_module_free(m), free(doc);
  /* x - x.mean(-1, keepdim): one persistent row kernel, the mean stays on chip */
  char *mn = qj_call(qj_var(0, T), T, "mean", 0, "\"System.Int64[]\",\"" BOOLT "\",\"" NDT "\"", T, NULL,
                     qj_list(3, qj_fmt("{\"k\":\"NewArray\",\"ty\":\"System.Int64[]\",\"elemType\":\"System.Int64\",\"items\":[%s]}", "{\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":-1}"),
                             qj_val(BOOLT, "true"), qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")));
  char *sub = qj_fsop("op_Subtraction", T, T, T, qj_var(0, T), mn);
  doc = qj_doc(TVAR("x"), "center", qj_lambda(0, FN(T, T), sub), NULL);
  c = compile(ctx, doc, "float32[6,9]", &m, KG_OK);
  cr_expect_eq(kg_compiled_n_kernels(c), 1);
  cr_expect_eq(c->fusion.temps.n, 0);
  cr_expect_str_eq(c->kernels[0].schedule, "reduce.rows_persistent");
  /* run it */
  float x[54], out[54];
  for (int i = 0; i < 54; i++) x[i] = (float)((i * 37) % 11) - 3.5f;
  int64_t s[2] = {6, 9};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, s, NULL, 0}, to = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, s, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  DLTensor *outs[1] = {&to};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int r = 0; r < 6; r++) {
    double mu = 0;
    for (int q = 0; q < 9; q++) mu += x[r * 9 + q];
    mu /= 9;
    for (int q = 0; q < 9; q++) cr_expect(fabs(out[r * 9 + q] - (x[r * 9 + q] - mu)) < 1e-5, "[%d,%d]", r, q);
  }
  kg_compiled_free(c), kg_module_free(m), free(doc);
  kg_context_free(ctx);
}

/* sum / amax over one axis of an [a, b, c] float32 tensor on the emulator, vs C */
static void run_axis(const char *op, int axis, int64_t a, int64_t b, int64_t cdim, int order, bool nan) {
  char dims[8];
  snprintf(dims, sizeof dims, "%d", axis);
  char *doc = reduce_doc(op, dims, strcmp(op, "sum") != 0, false, NULL);
  kg_context *ctx = ctx_new(order);
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  int64_t shape[3] = {a, b, cdim}, n = a * b * cdim;
  float *x = malloc((size_t)(n + 1) * sizeof *x);
  for (int64_t i = 0; i < n; i++) x[i] = (float)((i * 7919) % 2003) / 100.0f - 10.0f;
  if (nan && n > 3) x[n / 3] = NAN;
  DLTensor tx = {x, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, shape, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t os[3];
  int k = 0;
  for (int d = 0; d < 3; d++)
    if (d != axis) os[k++] = shape[d];
  int64_t no = n / shape[axis];
  float *out = calloc((size_t)no + 1, sizeof *out);
  DLTensor to = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, os, NULL, 0};
  DLTensor *outs[1] = {&to};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  /* outer reductions with many outputs or short rows use the column schedule; few outputs
   * over long rows split the rows into chunks: a partial kernel (over columns when the
   * innermost dim is kept) and a finish kernel */
  bool colsched = kg_reduce_use_columns(axis != 2, no, shape[axis]);
  int64_t chunks = kg_reduce_split_chunks(&kg_target_h100, axis != 2, no, shape[axis]);
  const char *want = chunks > 1 ? (axis != 2 ? "reduce.split_partial.columns" : "reduce.split_partial.rows")
                     : colsched                        ? "reduce.thread_per_output"
                     : shape[axis] <= KG_WARP_ROW_MAX ? "reduce.warp_per_output" /* short rows: a warp each */
                                                       : "reduce.block_per_output";
  cr_expect_eq(c->runtime.n, chunks > 1 ? 2u : 1u, "%s axis %d: run-time kernels", op, axis);
  /* rows along the contiguous last dim, 4-aligned: 128-bit loads (a split's partial kernel
   * over rows too: its chunks are whole vectors) */
  char wantv[96], seg[16] = "";
  bool vec = axis == 2 && (chunks > 1 || !colsched) && cdim % 4 == 0 && cdim >= 8;
  /* rows much shorter than a warp: segments of it (rows of 5: 4 lanes; of 1: a lane) */
  uint32_t sg = chunks == 1 && !colsched && shape[axis] <= KG_WARP_ROW_MAX ? kg_reduce_row_seg(shape[axis], vec ? 4 : 1) : 0;
  if (sg) snprintf(seg, sizeof seg, ".seg%u", 32u >> sg);
  /* over columns (the column schedule or a split's partial over them): a thread takes 4 or 2
   * neighbouring outputs where the innermost size allows, each row's elements one load */
  bool cols = axis != 2 && (chunks > 1 || colsched);
  const char *cv = cols && cdim % 4 == 0 ? ".vec4" : cols && cdim % 2 == 0 ? ".vec2" : "";
  snprintf(wantv, sizeof wantv, "%s%s%s%s", want, seg, vec ? ".vec4" : "", cv);
  if (c->runtime.n)
    cr_expect_str_eq(c->runtime.v[0]->k.schedule, wantv, "%s axis %d %lldx%lldx%lld", op, axis, (long long)a, (long long)b, (long long)cdim);
  if (c->runtime.n > 1) cr_expect_str_eq(c->runtime.v[1]->k.schedule, "reduce.split_finish");
  int64_t st[3] = {b * cdim, cdim, 1};
  for (int64_t oi = 0; oi < no; oi++) {
    int64_t crd[3], rem = oi;
    for (int d = 2; d >= 0; d--) {
      if (d == axis) continue;
      crd[d] = rem % shape[d], rem /= shape[d];
    }
    double ref = strcmp(op, "sum") ? -INFINITY : 0;
    bool any_nan = false;
    for (int64_t j = 0; j < shape[axis]; j++) {
      crd[axis] = j;
      float v = x[crd[0] * st[0] + crd[1] * st[1] + crd[2] * st[2]];
      any_nan |= v != v;
      if (!strcmp(op, "sum")) ref += v;
      else if (v > ref) ref = v;
    }
    if (any_nan) cr_expect(out[oi] != out[oi], "%s axis %d [%lld]: NaN propagates", op, axis, (long long)oi);
    else cr_expect(fabs(out[oi] - ref) <= 1e-4 * (1 + fabs(ref)), "%s axis %d order %d [%lld]: %g vs %g", op, axis, order, (long long)oi, out[oi], ref);
  }
  free(x), free(out);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
}

Test(reduce, every_axis_odd_sizes_every_order, .timeout = 300) {
  int64_t sizes[][3] = {{3, 7, 67}, {1, 457, 5}, {2, 1, 1024}, {5, 4097, 1}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int axis = 0; axis < 3; axis++)
      for (int order = 0; order < 3; order++) run_axis(order == 1 ? "amax" : "sum", axis, sizes[s][0], sizes[s][1], sizes[s][2], order, false);
  run_axis("amax", 1, 3, 67, 2, 2, true);
  run_axis("sum", 2, 2, 3, 457, 0, true);
}

/* Few outputs over long rows: split reductions (chunks of the rows in a partial kernel, then a
 * finish kernel), over rows and over columns, odd sizes (a short last chunk), NaN, every order. */
Test(reduce, split_reductions, .timeout = 300) {
  cr_assert_gt(kg_reduce_split_chunks(&kg_target_h100, false, 6, 70001), 1);
  cr_assert_gt(kg_reduce_split_chunks(&kg_target_h100, true, 3, 5003), 1);
  cr_assert_eq(kg_reduce_split_chunks(&kg_target_h100, false, 4096, 4096), 1); /* enough rows: no split */
  cr_assert_eq(kg_reduce_split_chunks(&kg_target_h100, true, 3, 40), 1);        /* short columns: no split */
  for (int order = 0; order < 3; order++) {
    run_axis(order == 1 ? "amax" : "sum", 2, 2, 3, 70001, order, false); /* rows */
    run_axis(order == 1 ? "amax" : "sum", 2, 1, 3, 70004, order, false); /* rows, 128-bit loads: chunks of whole vectors, a short last one */
    run_axis(order == 1 ? "amax" : "sum", 0, 5003, 3, 1, order, false);  /* columns */
    run_axis(order == 1 ? "amax" : "sum", 1, 2, 4099, 3, order, false);  /* the middle dim */
  }
  run_axis("amax", 2, 1, 2, 40000, 2, true);
  run_axis("sum", 0, 5000, 3, 1, 0, true);
}

Test(reduce, empty_reductions) {
  char *doc = reduce_doc("sum", "1", false, false, NULL);
  kg_context *ctx = ctx_new(0);
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  float x[1], out[3] = {7, 7, 7};
  int64_t s[2] = {3, 0}, os[1] = {3};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, s, NULL, 0}, to = {out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, os, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int i = 0; i < 3; i++) cr_expect_eq(out[i], 0.0f, "a sum over nothing is 0");
  kg_compiled_free(c), kg_module_free(m), free(doc);
  /* amax over a run-time empty dim is an input error, like PyTorch's */
  doc = reduce_doc("amax", "1", true, false, NULL);
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
  cr_assert_eq(kg_specialize(m, NULL, "float32[3,N]", &c), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "non-zero size") != NULL, "%s", kg_last_error(ctx));
  kg_compiled_free(c), kg_module_free(m), free(doc);
  kg_context_free(ctx);
}

/* Structure of the reduction examples: how many kernels, which schedule. */
Test(reduce, fusion_structure_of_examples) {
  struct { const char *name; int kernels; const char *schedule0; } cases[] = {
      {"red_fuse_prologue_affine", 1, "reduce.block_per_output"}, /* (x * 2 + b).sum(-1) */
      {"red_fuse_exp_sum", 1, "reduce.block_per_output"},
      {"red_fuse_map_sum", 1, "reduce.block_per_output"},         /* a map lambda feeding a sum */
      {"red_fuse_center", 1, "reduce.rows_persistent"},           /* x - x.mean(-1, keepdim) */
      {"red_fuse_normalize", 1, "reduce.rows_persistent"},        /* p / p.sum(-1, keepdim), x / |x|.amax */
      {"red_fuse_two_reductions", 1, "reduce.rows_persistent"},   /* sum, amax, mean of one input: one kernel */
      {"red_fuse_two_stage", 1, "reduce.rows_persistent"},        /* variance by hand, then normalize */
      {"red_reduce_of_reduce", 4, "reduce.block_per_output"},     /* a reduction of a reduction: temporaries */
      /* ten row outputs: the row kernel takes 8 (kg_schedule_accepts), a pointwise kernel the rest */
      {"red_fuse_many_row_outputs", 2, "reduce.rows_persistent"},
      /* an epilogue reading another group's reduction rides in the later group's kernel */
      {"red_epilogue_other_group", 4, "reduce.block_per_output"},
      /* squeezed epilogues reading other tensors ([9] and [5,1] against a [5,9] result): one kernel */
      {"red_epilogue_squeezed_reads", 1, "reduce.thread_per_output"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, cases[i].name);
    kg_context *ctx = ctx_new(0);
    kg_module *m;
    cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s: %s", cases[i].name, kg_last_error(ctx));
    cr_expect_eq(kg_compiled_n_kernels(c), cases[i].kernels, "%s: %d kernels", cases[i].name, kg_compiled_n_kernels(c));
    cr_expect_str_eq(c->kernels[0].schedule, cases[i].schedule0, "%s", cases[i].name);
    /* sum, amax and mean of one input (independent siblings): one walk over the row */
    if (!strcmp(cases[i].name, "red_fuse_two_reductions")) {
      int loops = 0;
      for (uint32_t st = c->kernels[0].body; st != KG_NONE; st = c->kernels[0].stmts.v[st].next) loops += c->kernels[0].stmts.v[st].kind == KS_FOR;
      cr_expect_eq(loops, 1, "siblings share one pass: %d passes", loops);
      cr_expect_eq(kg_reduce_passes(&c->lg, &c->fusion.groups.v[0]), 1);
    }
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* Squeeze and unsqueeze views of row reductions: read in the row kernel when they line up
 * with the rows (a squeezed epilogue, a row output), from memory when not (a square x's row
 * means squeezed and broadcast along the rows). */
Test(reduce, squeeze_views_fuse) {
  struct { const char *entry; uint32_t kernels, temps; } cases[] = {
      {"pool_flatten", 1, 0},       /* adaptive_avg_pool2d(relu(x), 1).flatten(1) * 0.5 */
      {"mean_squeeze", 1, 0},       /* x.mean(-1, keepdim).squeeze(-1) * 2 + b.view(-1) */
      {"sum_unsqueeze_rows", 1, 0}, /* x / x.sum(0).unsqueeze(0) + x.amax(0, keepdim).squeeze(0) */
      {"squeeze_misaligned", 2, 1}, /* x - x.mean(1, keepdim).squeeze(1) */
  };
  char path[512];
  snprintf(path, sizeof path, "%s/examples/red_fuse_squeeze_views.json", KG_SOURCE_DIR);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kg_context *ctx = ctx_new(0);
    kg_module *m;
    cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, cases[i].entry, NULL, &c), KG_OK, "%s: %s", cases[i].entry, kg_last_error(ctx));
    cr_expect_eq(c->fusion.groups.n, cases[i].kernels, "%s: %u kernels", cases[i].entry, c->fusion.groups.n);
    cr_expect_eq(c->fusion.temps.n, cases[i].temps, "%s: %u temporaries", cases[i].entry, c->fusion.temps.n);
    cr_expect_eq(c->fusion.groups.v[0].kind, KG_GROUP_REDUCE, "%s", cases[i].entry);
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* softmax, log_softmax, layer_norm (ops) and RMSNorm (written from primitives) are one
 * kernel each for float32 rows of 8192 and more elements. */
static char *member1(const char *name, const char *params, char *args, const char *decl, int is_static) {
  return qj_call(is_static ? NULL : qj_var(0, T), decl, name, is_static, params, T, NULL, args);
}

Test(reduce, normalizations_are_one_kernel) {
  const char *sigs[] = {"float32[4,8192]", "float32[2,16384]", "float32[N,8192]"};
  char *docs[4];
  docs[0] = qj_doc(TVAR("x"), "softmax", qj_lambda(0, FN(T, T), member1("softmax", "\"" I64 "\",\"" NDT "\"", qj_list(2, qj_val(I64, "-1"), qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")), T, 0)), NULL);
  docs[1] = qj_doc(TVAR("x"), "log_softmax", qj_lambda(0, FN(T, T), member1("log_softmax", "\"" I64 "\",\"" NDT "\"", qj_list(2, qj_val(I64, "-1"), qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")), T, 0)), NULL);
  char *shape = qj_fmt("{\"k\":\"NewArray\",\"ty\":\"System.Int64[]\",\"elemType\":\"System.Int64\",\"items\":[{\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":8192}]}");
  docs[2] = qj_doc(TVAR("x"), "layer_norm", qj_lambda(0, FN(T, T), qj_call(NULL, "TorchSharp.torch+nn+functional", "layer_norm", 1,
      "\"" T "\",\"System.Int64[]\",\"" T "\",\"" T "\",\"" F64 "\"", T, NULL,
      qj_list(5, qj_var(0, T), shape, qj_val(T, "null"), qj_val(T, "null"), qj_val(F64, "1e-05")))), NULL);
  /* RMSNorm: x * (x * x).mean([|-1|], true).add(eps).rsqrt() */
  char *sq = qj_fsop("op_Multiply", T, T, T, qj_var(0, T), qj_var(0, T));
  char *dims = qj_fmt("{\"k\":\"NewArray\",\"ty\":\"System.Int64[]\",\"elemType\":\"System.Int64\",\"items\":[{\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":-1}]}");
  char *mean = qj_call(sq, T, "mean", 0, "\"System.Int64[]\",\"" BOOLT "\",\"" NDT "\"", T, NULL,
                       qj_list(3, dims, qj_val(BOOLT, "true"), qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")));
  char *eps = qj_fsop("op_Addition", T, F32, T, mean, qj_val(F32, "1e-06"));
  char *rs = qj_call(eps, T, "rsqrt", 0, "", T, NULL, qj_list(0));
  docs[3] = qj_doc(TVAR("x"), "rmsnorm", qj_lambda(0, FN(T, T), qj_fsop("op_Multiply", T, T, T, qj_var(0, T), rs)), NULL);
  for (int d = 0; d < 4; d++) {
    for (size_t s = 0; s < sizeof sigs / sizeof sigs[0]; s++) {
      if (d == 2 && s == 1) continue; /* layer_norm's normalized_shape is [8192] */
      kg_context *ctx = ctx_new(0);
      kg_module *m;
      kg_compiled *c = compile(ctx, docs[d], sigs[s], &m, KG_OK);
      cr_expect_eq(kg_compiled_n_kernels(c), 1, "doc %d %s: %d kernels", d, sigs[s], kg_compiled_n_kernels(c));
      cr_expect_str_eq(c->kernels[0].schedule, "reduce.rows_persistent");
      cr_expect_eq(c->fusion.temps.n, 0, "nothing goes through memory");
      /* walks over the row: softmax and log_softmax 2 (max and sum of exp online, then write),
       * layer_norm 2 (mean and variance in one pass by Welford, then write), RMSNorm 2 (mean of
       * squares, write) */
      int loops = 0;
      for (uint32_t st = c->kernels[0].body; st != KG_NONE; st = c->kernels[0].stmts.v[st].next) loops += c->kernels[0].stmts.v[st].kind == KS_FOR;
      cr_expect_eq(loops, 2, "doc %d: %d passes over the row", d, loops);
      kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
    }
    free(docs[d]);
  }
}

/* Few, very long rows: softmax over 2 rows of 70001 runs the split-rows plan — the max and
 * the sum of exp split together into a partial and a finish kernel (online, per chunk), then
 * a pointwise kernel writes the output — and matches C; 64 rows of 300 keep the one
 * persistent kernel. */
static void split_rows_plan(bool row_cache);
Test(reduce, split_rows_plan_for_few_long_rows, .timeout = 300) { split_rows_plan(false); }
/* the same with the row cache (opt-in): 64 rows of 300 then keep each row in registers */
Test(reduce, row_cache_opt_in, .timeout = 300) { split_rows_plan(true); }
static void split_rows_plan(bool row_cache) {
  if (row_cache) setenv("KGEN_ROW_CACHE", "1", 1); /* each test runs in its own process */
  char *doc = qj_doc(TVAR("x"), "softmax", qj_lambda(0, FN(T, T), member1("softmax", "\"" I64 "\",\"" NDT "\"", qj_list(2, qj_val(I64, "-1"), qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")), T, 0)), NULL);
  int64_t shapes[2][2] = {{2, 70001}, {64, 300}};
  for (int si = 0; si < 2; si++) {
    kg_context *ctx = ctx_new(2);
    kg_module *m;
    cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
    int64_t R = shapes[si][0], D = shapes[si][1], n = R * D;
    float *x = malloc((size_t)n * sizeof *x), *out = malloc((size_t)n * sizeof *out);
    for (int64_t i = 0; i < n; i++) x[i] = (float)((i * 7919) % 2003) / 200.0f - 5.0f, out[i] = NAN;
    DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shapes[si], NULL, 0}, to = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shapes[si], NULL, 0};
    const DLTensor *ins[1] = {&tx};
    DLTensor *outs[1] = {&to};
    kg_compiled *c;
    cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
    cr_expect_eq(kg_compiled_n_kernels(c), 1, "the fused plan: one persistent kernel");
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
    if (si == 0) {
      /* the max and its sum of exp split as one pair (a chunk's max and its sum relative to it:
       * one walk over the row), then the output kernel reads the [2, 1] max and sum broadcast:
       * the strided layout */
      const char *want[3] = {"reduce.split_partial.rows", "reduce.split_finish", "pointwise.strided"};
      cr_assert_eq(c->runtime.n, 3u, "split-rows plan: %u kernels launched", c->runtime.n);
      for (int k = 0; k < 3; k++) {
        cr_expect_eq(c->runtime.v[k]->v.plan, 1);
        cr_expect_str_eq(c->runtime.v[k]->k.schedule, want[k], "kernel %d: %s", k, c->runtime.v[k]->k.schedule);
      }
    } else {
      cr_assert_eq(c->runtime.n, 1u);
      /* rows of 300 floats, 16-byte aligned: 128-bit loads (unless the row is cached) */
      cr_expect_str_eq(c->runtime.v[0]->k.schedule, row_cache ? "reduce.rows_persistent.cached" : "reduce.rows_persistent.vec4");
    }
    for (int64_t r = 0; r < R; r++) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < D; j++) mx = fmax(mx, x[r * D + j]);
      for (int64_t j = 0; j < D; j++) sum += exp((double)x[r * D + j] - mx);
      for (int64_t j = 0; j < D; j++) {
        double want = exp((double)x[r * D + j] - mx) / sum;
        if (!(fabs(out[r * D + j] - want) <= 1e-6 * want + 1e-9)) {
          cr_expect(false, "%lldx%lld [%lld,%lld]: %g vs %g", (long long)R, (long long)D, (long long)r, (long long)j, out[r * D + j], want);
          j = D, r = R;
        }
      }
    }
    free(x), free(out);
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
  free(doc);
}

/* cumsum: an inclusive scan along the last and the first dim, vs C */
Test(reduce, cumsum_along_each_dim) {
  for (int dim = 0; dim < 2; dim++) {
    char *call = qj_call(qj_var(0, T), T, "cumsum", 0, "\"" I64 "\",\"" NDT "\"", T, NULL,
                         qj_list(2, qj_val(I64, dim ? "-1" : "0"), qj_fmt("{\"k\":\"DefaultValue\",\"ty\":\"" NDT "\"}")));
    char *doc = qj_doc(TVAR("x"), "cs", qj_lambda(0, FN(T, T), call), NULL);
    kg_context *ctx = ctx_new(2);
    kg_module *m;
    cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK);
    float x[7 * 457], out[7 * 457];
    for (int i = 0; i < 7 * 457; i++) x[i] = (float)((i * 31) % 17) - 8.0f;
    int64_t s[2] = {7, 457};
    DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, s, NULL, 0}, to = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, s, NULL, 0};
    const DLTensor *ins[1] = {&tx};
    DLTensor *outs[1] = {&to};
    kg_compiled *c;
    cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
    cr_expect_eq(kg_compiled_n_kernels(c), 1, "a lone cumsum is one scan kernel");
    cr_expect_str_eq(c->kernels[0].schedule, "scan.thread_per_row");
    for (int r = 0; r < 7; r++) {
      double acc = 0;
      for (int q = 0; q < 457; q++) {
        int i = dim ? r * 457 + q : q * 457 + r; /* dim 0: walk down column r (r < 7 of 457 columns) */
        acc += x[i];
        cr_expect(fabs(out[i] - acc) < 1e-3, "dim %d [%d]: %g vs %g", dim, i, out[i], acc);
        if (!dim && q >= 6) break; /* dim 0 has 7 rows */
      }
    }
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx), free(doc);
  }
}
