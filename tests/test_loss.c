/* tests/test_loss.c — the loss functions (issue 24): torch.nn.functional.cross_entropy, nll_loss,
 * mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy(_with_logits), kl_div.
 *  - PyTorch's errors for bad shapes, dtypes and arguments, located at the F# call: the examples
 *    (examples/loss_*.fs) at wrong signatures, and tests/grad/loss_errors.fs;
 *  - structure: log_softmax and nll are one row kernel (the class-index losses' reductions over
 *    the class dim share one walk), the 'none' reduction one kernel;
 *  - numbers: the examples at other sizes (symbolic batch 1 and 0, odd sizes) against PyTorch.
 * The examples' own signatures are checked against PyTorch in tests/test_examples.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"
#include "tests/oracle_fixture.h"


static void expect_error(const char *path, const char *entry, const char *sig, const char *want) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, path);
  kg_compiled *c = NULL;
  kg_status s = kg_specialize(m, entry, sig, &c);
  cr_expect_neq(s, KG_OK, "%s [%s] at %s compiled", path, entry, sig ? sig : "its signature");
  cr_expect(strstr(kg_last_error(ctx), want) != NULL, "%s [%s]: wanted '%s' in:\n%s", path, entry, want, kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), ".fs:") != NULL, "the error is located at the F# source:\n%s", kg_last_error(ctx));
  if (c) kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(loss_errors, pytorch_rejects_at_the_call) {
  const char *ce = "examples/loss_cross_entropy", *rg = "examples/loss_regression", *bi = "examples/loss_binary";
  expect_error(ce, "loss_ce_mean", "float32[3,5], int32[3]", "expected scalar type Long but found Int");
  expect_error(ce, "loss_ce_mean", "float32[3,5], float32[3]", "expected scalar type Long but found Float");
  expect_error(ce, "loss_ce_mean", "float32[3,5], int64[2]", "Expected input batch_size (3) to match target batch_size (2).");
  expect_error(ce, "loss_ce_mean", "int64[3,5], int64[3]", "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_error(ce, "loss_ce_mean", "float32[2,4,3,5], int64[2,3]", "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2");
  expect_error(ce, "loss_ce_mean", "float32[2,4,3], int64[2,5]", "Expected target size [2, 3], got [2, 5]");
  expect_error(ce, "loss_ce_mean", "float32[5], int64[1]", "size mismatch (got input: [5], target: [1])");
  expect_error(ce, "loss_ce_mean", "float32[], int64[]", "Expected 1 or more dimensions (got 0)");
  expect_error(ce, "loss_ce_weight_ignore", "float32[6,5], int64[6], float32[4]",
               "weight tensor should be defined either for all 5 classes or no classes but got weight tensor of shape: [4]");
  expect_error(ce, "loss_ce_weight_ignore", "float32[6,5], int64[6], float64[5]", "expected scalar type Float but found Double");
  expect_error(ce, "loss_ce_probs", "float32[4,6], int64[4,6], float32[6]", "Expected floating point type for target with class probabilities, got Long");
  expect_error(rg, "loss_mse_l1", "int64[4,5], int64[4,5]", "\"mse_cpu\" not implemented for 'Long'");
  expect_error(rg, "loss_mse_l1", "float32[4,5], float32[3]", "cannot be broadcast");
  expect_error(bi, "loss_bce", "float32[3,5], float32[5], float32[5]",
               "Using a target size ([5]) that is different to the input size ([3, 5]) is deprecated. Please ensure they have the same size.");
  expect_error(bi, "loss_bce", "float32[4,5], float64[4,5], float32[5]", "Found dtype Double but expected Float");
  expect_error(bi, "loss_bce_logits", "float32[3,5], float32[5], float32[5], float32[5]", "Target size ([5]) must be the same as input size ([3, 5])");
  expect_error(bi, "loss_bce_logits", "float32[3,5], float32[3,5], float32[4], float32[5]", "cannot be broadcast");
  const char *le = "tests/grad/loss_errors";
  expect_error(le, "ce_probs_ignore", NULL, "ignore_index is not supported for floating point target");
  expect_error(le, "ce_smoothing_big", NULL, "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  expect_error(le, "huber_delta_zero", NULL, "huber_loss does not support non-positive values for delta.");
  expect_error(le, "smooth_beta_negative", NULL, "smooth_l1_loss does not support negative values for beta.");
}

/* kernels of an example entry at its signature */
static uint32_t kernels_of(const char *name, const char *entry, const char *sig) {
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, entry, sig, &c), KG_OK, "%s", kg_last_error(ctx));
  uint32_t n = kg_compiled_n_kernels(c);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
  return n;
}

Test(loss_fusion, log_softmax_and_nll_are_one_row_kernel) {
  /* cross_entropy's max, sum of exp and the target's logit: one row kernel over the class dim;
   * mean: one more small kernel (the sums over the batch) */
  cr_expect_eq(kernels_of("loss_cross_entropy", "loss_ce_mean", NULL), 2u);
  cr_expect_eq(kernels_of("loss_cross_entropy", "loss_ce_single", NULL), 2u);
  /* an MSE over one shape: one kernel (the sum over every element) */
  cr_expect_eq(kernels_of("loss_regression", "loss_mse_l1", "float32[4,5], float32[4,5]"), 2u);
}

static void check_at(const char *name, const char *entry, const char *sig) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_EMU, co.seed = 3;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s [%s] at %s: %s", name, entry, sig ? sig : "its signature", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s [%s] at %s: out%d %s %s: %s", name, entry, sig ? sig : "its signature", k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(loss_numbers, other_sizes_match_pytorch, .init = setup, .fini = teardown, .timeout = 240) {
  check_at("loss_cross_entropy", "loss_ce_mean", "float32[1,10], int64[1] in [0, 10)");
  check_at("loss_cross_entropy", "loss_ce_mean", "float32[0,10], int64[0]");
  check_at("loss_cross_entropy", "loss_ce_weight_ignore", "float32[9,3], int64[9] in [0, 3), float32[3] in [0.5, 2)");
  check_at("loss_cross_entropy", "loss_ce_smoothing", "float32[B,C], int64[B] in [0, 4), float32[C] in [0.5, 2)");
  check_at("loss_cross_entropy", "loss_ce_spatial", "float64[3,2,1,7], int64[3,1,7] in [0, 2)");
  check_at("loss_regression", "loss_mse_l1", "float64[7], float64[7]");
  check_at("loss_regression", "loss_smooth_huber", "float16[3,5], float16[3,5] in [-3, 3)");
  check_at("loss_binary", "loss_bce_logits", "float64[2,3,5], float64[2,3,5] in [0, 1), float64[5] in [0.5, 2), float64[5] in [0.5, 3)");
}
