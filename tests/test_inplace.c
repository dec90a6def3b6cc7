/* tests/test_inplace.c — in-place ops on the caller's tensors (issue 11): x.add_(y), copy_,
 * zero_, fill_ on entry inputs and captured tensors change the caller's tensor, as in PyTorch.
 *  - the API: which parameters an entry writes (kg_compiled_writeback), results unchanged;
 *  - the write-back honours the caller's strides (a transposed input) and leaves other
 *    parameters alone; reads before the in-place op see the old value;
 *  - examples/inplace_inputs against PyTorch at other sizes (0, 1, odd), the twin changing its
 *    own copies of the inputs (kgen check compares the updated tensors as extra rows);
 *  - the refusals, located at the F# call (tests/inplace/inplace_refused.fs).
 * The examples' own signatures also run in tests/test_examples.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/check.h"

static kg_oracle *orc;
static void setup(void) {
  kg_diag d;
  kg_diag_init(&d);
  orc = kg_oracle_start(&d);
  kg_diag_free(&d);
}
static void teardown(void) {
  if (orc) kg_oracle_stop(orc);
  orc = NULL;
}

static kg_context *ctx_new(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

static kg_module *load(kg_context *ctx, const char *path) {
  char full[512];
  snprintf(full, sizeof full, "%s/%s", KG_SOURCE_DIR, path);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, full, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

static DLTensor f32(float *data, int ndim, int64_t *shape, int64_t *strides) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.ndim = ndim, t.shape = shape, t.strides = strides;
  t.dtype = (DLDataType){kDLFloat, 32, 1};
  t.device.device_type = kDLCPU;
  return t;
}

Test(inplace, api_names_the_written_parameters) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/inplace_inputs.json");
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, "inplace_copy_zero_fill", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_eq(kg_compiled_n_outputs(c), 2, "the entry's results only");
  cr_assert_eq(kg_compiled_n_writebacks(c), 3);
  const char *want[] = {"a", "b", "c"};
  for (int i = 0; i < 3; i++) {
    int p, cap;
    const char *nm;
    cr_assert_eq(kg_compiled_writeback(c, i, &p, &cap, &nm), KG_OK);
    cr_expect_str_eq(nm, want[i]);
    cr_expect_eq(cap, 0);
    cr_expect_eq(p, i == 0 ? 0 : i + 1, "input index of %s", nm);
  }
  cr_expect_neq(kg_compiled_writeback(c, 3, NULL, NULL, NULL), KG_OK);
  kg_compiled_free(c);
  cr_assert_eq(kg_specialize(m, "inplace_running_stats", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_compiled_n_writebacks(c), 2);
  int p, cap;
  const char *nm;
  kg_compiled_writeback(c, 1, &p, &cap, &nm);
  cr_expect(cap && p == 1 && !strcmp(nm, "running_var"), "capture 1 running_var, got %d %d %s", cap, p, nm);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* x.add_(y); x.mul_(2).relu_(); (x.sum() before, x * 3) with x a transposed view of a 6 × 4
 * buffer: the write-back goes through the caller's strides; y is left alone. */
Test(inplace, write_back_honours_strides) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/inplace_inputs.json");
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, "inplace_add_input", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  float xb[24], x0[24], yb[6], y0[6], s = 0, o1[24];
  for (int i = 0; i < 24; i++) xb[i] = x0[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < 6; i++) yb[i] = y0[i] = (float)i - 2.5f;
  int64_t xs[2] = {4, 6}, xst[2] = {1, 4}, ys[1] = {6}, o1s[2] = {4, 6};
  DLTensor x = f32(xb, 2, xs, xst), y = f32(yb, 1, ys, NULL), out0 = f32(&s, 0, NULL, NULL), out1 = f32(o1, 2, o1s, NULL);
  const DLTensor *ins[2] = {&x, &y};
  DLTensor *outs[2] = {&out0, &out1};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 2, NULL), KG_OK, "%s", kg_last_error(ctx));
  float sum = 0;
  for (int i = 0; i < 24; i++) sum += x0[i];
  cr_expect_float_eq(s, sum, 1e-4f, "the sum read x before the update: %g vs %g", s, sum);
  for (int r = 0; r < 4; r++)
    for (int k = 0; k < 6; k++) {
      float old = x0[r + 4 * k], nw = fmaxf((old + y0[k]) * 2.0f, 0.0f);
      cr_expect_float_eq(xb[r + 4 * k], nw, 1e-6f, "x[%d,%d] = %g, want %g", r, k, xb[r + 4 * k], nw);
      cr_expect_float_eq(o1[r * 6 + k], nw * 3.0f, 1e-5f, "out1[%d,%d]", r, k);
    }
  cr_expect(!memcmp(yb, y0, sizeof yb), "y is not written");
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

static void check_at_opts(const char *entry, const char *sig, int want_rows, bool strided) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/inplace_inputs.json");
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_EMU, co.seed = 11;
  co.strided_inputs = strided;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s at %s: %s", entry, sig ? sig : "its signature", kg_last_error(ctx));
  cr_expect_eq(r.n_outputs, want_rows, "%s: rows (results + updated tensors)", entry);
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s at %s: %s %s %s: %s", entry, sig ? sig : "its signature", r.row_names[k], r.rows[k].dtype, r.rows[k].shape,
              r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

static void check_at(const char *entry, const char *sig, int want_rows) { check_at_opts(entry, sig, want_rows, false); }

/* inputs stored non-contiguous (kgen check --strided): the updated tensors are read back through
 * their strides (the check compared the untouched contiguous copy before) */
Test(inplace, strided_inputs_updated_in_place, .init = setup, .fini = teardown, .timeout = 300) {
  check_at_opts("inplace_add_input", NULL, 3, true);
  check_at_opts("inplace_running_stats", NULL, 3, true);
  check_at_opts("inplace_copy_zero_fill", NULL, 5, true);
}

Test(inplace, against_pytorch_at_edge_sizes, .init = setup, .fini = teardown, .timeout = 300) {
  check_at("inplace_add_input", "float32[0,6], float32[6]", 3);
  check_at("inplace_add_input", "float32[1,1], float32[1]", 3);
  check_at("inplace_add_input", "float32[7,3], float32[7,1]", 3);
  check_at("inplace_running_stats", "float32[1,5], running_mean=float32[5], running_var=float32[5]", 3);
  check_at("inplace_running_stats", "float32[9,3], running_mean=float32[3], running_var=float32[3]", 3);
  check_at("inplace_copy_zero_fill", "int32[2,1], float32[1], float32[0], int64[5]", 5);
  check_at("inplace_copy_zero_fill", "int32[3,5], float32[5], float32[2,2], int64[]", 5);
}

static void expect_error(const char *entry, const char *want) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "tests/inplace/inplace_refused.json");
  kg_compiled *c = NULL;
  cr_expect_neq(kg_specialize(m, entry, NULL, &c), KG_OK, "%s compiled", entry);
  cr_expect(strstr(kg_last_error(ctx), want) != NULL, "%s: wanted '%s' in:\n%s", entry, want, kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), "inplace_refused.fs:") != NULL, "located at the F# source:\n%s", kg_last_error(ctx));
  if (c) kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(inplace, refusals_are_located) {
  expect_error("inplace_input_in_loop", "writes the caller's tensor inside a loop or branch");
  expect_error("inplace_input_transpose", "whose shape would change for the caller");
  expect_error("inplace_input_with_view", "its receiver has views");
  expect_error("inplace_on_view_of_input", "its receiver is a view");
}
