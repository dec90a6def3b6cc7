/* tests/test_pool.c — pooling, normalization over channels, resampling and pixel shuffle
 * (issue 12, all but convolutions):
 *  - structure: what fuses (an eval-mode batch_norm, relu and max_pool2d with a bias in one
 *    kernel; training-mode batch_norm one row kernel, its running statistics sharing the
 *    output's; group_norm over G groups two; a global average pool a row reduction, flattened
 *    too);
 *  - the real F# examples (pool_max_avg, pool_adaptive_resample, norm_batch_group, norm_fused)
 *    re-specialized at other signatures — batch 0 and 1, size-1 spatial dims, kernels larger
 *    than the input, odd sizes, a symbolic batch, float16 / bfloat16 / float64 — each run on the
 *    emulator against PyTorch;
 *  - PyTorch's errors (libtorch's, as TorchSharp 0.107 raises them), located at the F# call.
 * The examples' own signatures run in tests/test_examples.c with every schedule variant. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"

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

static kg_module *load(kg_context *ctx, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, name);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

/* entry of example `name` at signature sig (NULL: its own) against PyTorch */
static void check_at(const char *name, const char *entry, const char *sig) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, name);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_EMU, co.seed = 5;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s [%s] at %s: %s", name, entry, sig ? sig : "its signature", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s [%s] at %s: out%d %s %s: %s", name, entry, sig ? sig : "its signature", k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* kernels of entry at its signature; *n_reduce: how many are row (reduction) kernels */
static uint32_t kernels_of(const char *name, const char *entry, uint32_t *n_reduce) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, name);
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  uint32_t n = c->fusion.groups.n;
  *n_reduce = 0;
  for (uint32_t i = 0; i < n; i++) *n_reduce += c->fusion.groups.v[i].kind == KG_GROUP_REDUCE;
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
  return n;
}

/* the error of entry at sig: its text contains want, located at the F# source */
static void expect_error(const char *name, const char *entry, const char *sig, const char *want) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, name);
  kg_compiled *c = NULL;
  kg_status s = kg_specialize(m, entry, sig, &c);
  cr_expect_neq(s, KG_OK, "%s [%s] at %s compiled", name, entry, sig);
  cr_expect(strstr(kg_last_error(ctx), want) != NULL, "%s [%s] at %s: wanted '%s' in:\n%s", name, entry, sig, want, kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), ".fs:") != NULL, "the error is located at the F# source:\n%s", kg_last_error(ctx));
  if (c) kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(pool, what_fuses) {
  uint32_t red, n;
  n = kernels_of("norm_fused", "norm_bn_relu_pool", &red);
  cr_expect_eq(n, 1u, "max_pool2d(relu(batch_norm eval(x))) + 1: %u kernels", n);
  n = kernels_of("norm_fused", "norm_bn_train", &red);
  cr_expect(n == 1 && red == 1, "relu(batch_norm training(x)): %u kernels (%u row kernels)", n, red);
  n = kernels_of("norm_fused", "norm_group2", &red);
  cr_expect(n == 2 && red == 1, "silu(group_norm(x, 2)): %u kernels (%u row kernels)", n, red);
  n = kernels_of("norm_fused", "pool_global_head", &red);
  cr_expect(n == 1 && red == 1, "adaptive_avg_pool2d(relu(x), 1) * 0.5: %u kernels (%u row kernels)", n, red);
  /* the global pool flattened: the squeeze view of the row reduction is the kernel's epilogue */
  n = kernels_of("red_fuse_squeeze_views", "pool_flatten", &red);
  cr_expect(n == 1 && red == 1, "adaptive_avg_pool2d(relu(x), 1).flatten(1) * 0.5: %u kernels (%u row kernels)", n, red);
  /* ResNet-18's BasicBlock in training mode: three convolutions, each batch_norm's statistics
   * and running-statistics update one row kernel after its product (was 11 kernels) */
  n = kernels_of("models/resnet", "resnet_basic_block_train", &red);
  cr_expect(n == 7 && red == 3, "BasicBlock training: %u kernels (%u row kernels)", n, red);
}

/* batch_norm in training mode with running statistics: the update reads the output's own
 * statistics (one mean, the biased and the unbiased variance from one M2), so the row kernel
 * walks the input once for them and once to write the output */
Test(pool, batch_norm_training_shares_its_statistics) {
  const char *entries[] = {"norm_batch_train", "norm_batch_train_half", "norm_batch_train_module"};
  for (int e = 0; e < 3; e++) {
    kg_context *ctx = ctx_new();
    kg_module *m = load(ctx, "norm_batch_train");
    kg_compiled *c = NULL;
    cr_assert_eq(kg_specialize(m, entries[e], NULL, &c), KG_OK, "%s", kg_last_error(ctx));
    const kg_group *grp = NULL;
    for (uint32_t i = 0; i < c->fusion.groups.n; i++)
      if (c->fusion.groups.v[i].kind == KG_GROUP_REDUCE) grp = grp ? NULL : &c->fusion.groups.v[i];
    cr_assert(grp, "%s: one row kernel", entries[e]);
    uint32_t means = 0, vars = 0;
    for (uint32_t j = 0; j < grp->reds.n; j++) {
      means += c->lg.nodes.v[grp->reds.v[j]].op == KG_OP_RMEAN;
      vars += c->lg.nodes.v[grp->reds.v[j]].op == KG_OP_RVAR;
    }
    cr_expect(means == 1 && vars == 2 && grp->reds.n == 3, "%s: %u means, %u variances of %u reductions", entries[e], means, vars, grp->reds.n);
    cr_expect_eq(kg_reduce_passes(&c->lg, grp), 2, "%s: %d walks over the row", entries[e], kg_reduce_passes(&c->lg, grp));
    cr_expect_eq(grp->epi.n, 2u, "%s: the running statistics are the row kernel's epilogue", entries[e]);
    kg_compiled_free(c);
    kg_module_free(m);
    kg_context_free(ctx);
  }
}

Test(pool, edge_sizes_against_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  /* batch 1 and size-1 spatial dims: 3x3 windows with padding 1 over a 1x1 input (kernel larger
   * than the input), a ceil_mode 1-d window starting in the padding */
  check_at("pool_max_avg", "pool_max_avg", "float32[1,3,1,1], float32[3,1,1], float32[1,4,3]");
  /* batch 0 */
  check_at("pool_max_avg", "pool_max_avg", "float32[0,3,9,7], float32[3,1,1], float32[0,4,11]");
  /* odd sizes and a symbolic batch */
  check_at("pool_max_avg", "pool_max_avg", "float32[B,3,13,2], float32[3,1,1], float32[B,4,6]");
  check_at("pool_max_avg", "pool_windows", "float32[1,1,4,3]");
  check_at("pool_adaptive_resample", "pool_adaptive_resample", "float32[1,3,4,4], float32[1,4,2,2], float32[1,3,4]");
  check_at("pool_adaptive_resample", "pool_adaptive_resample", "float32[3,2,11,13], float32[1,12,4,6], float32[3,1,5]");
  check_at("norm_batch_group", "norm_batch_group", "float32[1,6,1,1], float32[6], float32[6], float32[6], float32[6], float32[5,4,1]");
  check_at("norm_batch_group", "norm_batch_group", "float32[N,6,3,2], float32[6], float32[6], float32[6], float32[6], float32[2,4,3]");
  check_at("norm_fused", "norm_bn_train", "float32[1,4,1,7], float32[4], float32[4]");
  check_at("norm_fused", "pool_global_head", "float32[3,8,1,1]");
  /* training batch_norm's shared statistics: one value per channel (the unbiased variance
   * NaN), a symbolic batch, float64; a global pool flattened over 1x1 and empty batches */
  check_at("norm_batch_train", "norm_batch_train", "float32[1,3,1,1], float32[3], float32[3], float32[3], float32[3]");
  check_at("norm_batch_train", "norm_batch_train", "float32[N,3,5,1], float32[3], float32[3], float32[3], float32[3]");
  check_at("norm_batch_train", "norm_batch_train", "float64[3,4,2,3], float64[4], float64[4], float64[4], float64[4]");
  check_at("red_fuse_squeeze_views", "pool_flatten", "float16[3,5,1,1]");
  check_at("red_fuse_squeeze_views", "pool_flatten", "float32[0,5,2,2]");
}

Test(pool, dtypes_against_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  check_at("pool_max_avg", "pool_max_avg", "float16[2,3,9,7], float16[3,1,1], float16[2,4,11]");
  check_at("pool_max_avg", "pool_max_avg", "bfloat16[2,3,9,7], bfloat16[3,1,1], bfloat16[2,4,11]");
  check_at("pool_max_avg", "pool_max_avg", "float64[2,3,9,7], float64[3,1,1], float64[2,4,11]");
  check_at("pool_max_avg", "pool_windows", "float64[2,3,5,8]");
  check_at("pool_adaptive_resample", "pool_adaptive_resample", "float16[2,3,7,5], float16[2,8,6,4], float16[2,3,9]");
  check_at("pool_adaptive_resample", "pool_adaptive_resample", "float64[2,3,7,5], float64[2,8,6,4], float64[2,3,9]");
  check_at("norm_batch_group", "norm_batch_group", "bfloat16[2,6,5,3], bfloat16[6], bfloat16[6], bfloat16[6], bfloat16[6], bfloat16[3,4,7]");
  check_at("norm_batch_group", "norm_batch_group", "float64[2,6,5,3], float64[6], float64[6], float64[6], float64[6], float64[3,4,7]");
}

Test(pool, pytorch_errors_located) {
  /* output sizes */
  expect_error("pool_max_avg", "pool_windows", "float32[2,3,1,2]", "max_pool1d() Invalid computed output size: 0");
  expect_error("pool_max_avg", "pool_max_avg", "float32[2,3,9,7], float32[3,1,1], float32[2,4,1]", "max_pool1d() Invalid computed output size: 0");
  /* ranks and empty non-batch dims */
  expect_error("pool_max_avg", "pool_windows", "float32[5,8]", "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[5, 8]");
  expect_error("pool_max_avg", "pool_max_avg", "float32[2,0,9,7], float32[3,1,1], float32[2,4,11]", "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 9, 7]");
  expect_error("pool_adaptive_resample", "pool_adaptive_resample", "float32[2,3,0,5], float32[2,8,6,4], float32[2,3,9]",
               "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [2, 3, 0, 5] with dimension 2 being empty");
  /* integer inputs */
  expect_error("pool_max_avg", "pool_windows", "int32[2,3,5,8]", "not implemented for 'Int'");
  /* symbolic spatial sizes: the output's shape needs them */
  expect_error("pool_max_avg", "pool_windows", "float32[2,3,H,8]", "has a symbolic size");
  /* normalization */
  expect_error("norm_batch_group", "norm_batch_group", "float32[2,6,5,3], float32[5], float32[6], float32[6], float32[6], float32[3,4,7]", "running_mean should contain 6 elements not 5");
  expect_error("norm_batch_group", "norm_batch_group", "float32[2,5,5,3], float32[5], float32[5], float32[5], float32[5], float32[3,4,7]",
               "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 5, 5, 3] and num_groups=2");
  expect_error("norm_batch_group", "norm_batch_group", "float32[2,6,5,3], float64[6], float32[6], float32[6], float32[6], float32[3,4,7]",
               "mixed dtype (CPU): all inputs must share same datatype.");
  expect_error("norm_fused", "norm_group2", "float32[2,6,3,5], float32[4], float32[6]",
               "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [4] and input of shape [2, 6, 3, 5]");
  /* resampling and pixel shuffle */
  expect_error("pool_adaptive_resample", "pool_adaptive_resample", "float32[2,3,7,5], float32[2,7,6,4], float32[2,3,9]",
               "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=7 is not divisible by 4");
  expect_error("pool_adaptive_resample", "pool_adaptive_resample", "float32[2,3,7,5], float32[2,8,5,4], float32[2,3,9]",
               "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=5 is not divisible by 2");
  expect_error("pool_adaptive_resample", "pool_adaptive_resample", "float32[2,3,7,5], float32[2,8,6,4], float32[2,3,9,2]", "argument #1 'self' (while checking arguments for adaptive_avg_pool1d)");
}
