/* tests/test_conv.c — the convolution kernel class (issue 12):
 *  - structure: the fusion claims (relu(conv2d(x, w, b)) and relu(conv2d(x, w, b) * s + t) are
 *    one kernel, a ResNet basic block two, a MobileNet depthwise + pointwise pair two with the
 *    depthwise on the direct schedule, a pad and a transposed view read in place);
 *  - the scheduler's choices (the direct schedule, the product's dims in convolution geometry);
 *  - the real F# examples (examples/conv_*.fs, pad_modes.fs) re-specialized at PyTorch's edge
 *    cases — batch 0 and 1, size-1 spatial dims, odd and symbolic sizes, other dtypes — each run
 *    on the emulator against PyTorch;
 *  - channels-last inputs read through their strides (the implicit GEMM, the depthwise direct
 *    schedule, a ResNet block) give what a contiguous copy gives;
 *  - PyTorch's errors, located at the F# call: at wrong signatures of the examples, and the
 *    calls of tests/conv/conv_errors.fs that PyTorch rejects whatever the sizes.
 *  - the CPU device: a one-group convolution's images folded into its columns (mm_fold).
 * The examples' own signatures run in tests/test_examples.c with every schedule variant. */
#include <criterion/criterion.h>
#include <math.h>
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

static kg_module *load(kg_context *ctx, const char *path) {
  char full[512];
  snprintf(full, sizeof full, "%s/%s.json", KG_SOURCE_DIR, path);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, full, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

/* entry of example `name` at signature sig (NULL: its own) against PyTorch, on a device, its
 * inputs contiguous or not */
static void check_on(const char *name, const char *entry, const char *sig, kg_device_kind dev, bool strided);
typedef void (*conv_visit)(const kg_kvariant *kv, void *arg);
static void cpu_conv_kernels(const char *name, const char *entry, int n, const int64_t (*shapes)[4], const int *ranks, const char *schedule, conv_visit visit,
                             void *arg);
static void check_at(const char *name, const char *entry, const char *sig) { check_on(name, entry, sig, KG_DEVICE_EMU, false); }
static void check_on(const char *name, const char *entry, const char *sig, kg_device_kind dev, bool strided) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = dev, co.seed = 5, co.strided_inputs = strided;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s [%s] at %s: %s", name, entry, sig ? sig : "its signature", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s [%s] at %s: out%d %s %s: %s", name, entry, sig ? sig : "its signature", k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* kernels of an example entry at its signature; how many run the direct schedule */
static uint32_t kernels_of(const char *name, const char *entry, uint32_t *n_direct) {
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  uint32_t n = kg_compiled_n_kernels(c);
  if (n_direct) {
    *n_direct = 0;
    for (uint32_t i = 0; i < n; i++) *n_direct += c->kernels[i].schedule && !strcmp(c->kernels[i].schedule, "conv.direct");
  }
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
  return n;
}

/* the error of `entry` of document `path` at sig (NULL: its own): its text contains want, located
 * at the F# source */
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

Test(conv_fusion, epilogues_and_prologues_are_one_kernel) {
  cr_expect_eq(kernels_of("conv2d_relu_bias", "conv2d_relu_bias", NULL), 1u, "relu(conv2d(x, w, b)): one kernel");
  cr_expect_eq(kernels_of("conv_edge", "conv_scale_shift", NULL), 1u, "relu(conv2d(x, w, b) * s + t): one kernel");
  cr_expect_eq(kernels_of("conv_edge", "conv_view_prologue", NULL), 1u, "a transposed view and its relu * 2 in the loads: one kernel");
  cr_expect_eq(kernels_of("conv_edge", "conv_reflect_pad", NULL), 1u, "a reflect pad read by the loads: one kernel");
  cr_expect_eq(kernels_of("conv_transpose", "conv_transpose2d_strided", NULL), 1u, "conv_transpose2d + bias: one kernel");
  cr_expect_eq(kernels_of("conv_transpose", "conv_transpose1d_tanh", NULL), 1u, "tanh(conv_transpose1d): one kernel");
  cr_expect_eq(kernels_of("conv_dtypes", "conv_half", NULL), 2u, "two half-precision convolutions: two kernels");
}

/* the trip count of the direct schedule's K loop (the `kk` loop) in the kernels of entry: its
 * constant, -1 where it is not a constant, 0 without such a loop */
static int64_t direct_k_trip(const char *name, const char *entry) {
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t trip = 0;
  for (int i = 0; i < kg_compiled_n_kernels(c); i++) {
    const kg_kernel *k = &c->kernels[i];
    if (!k->schedule || strcmp(k->schedule, "conv.direct")) continue;
    for (uint32_t j = 0; j < k->stmts.n; j++) {
      const kg_ks *st = &k->stmts.v[j];
      if (st->kind != KS_FOR || strcmp(k->vars.v[st->a].name, "kk")) continue;
      const kg_kx *hi = &k->exprs.v[st->c];
      trip = hi->kind == KX_CONST ? hi->i : -1;
    }
  }
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  return trip;
}

Test(conv_fusion, cnn_blocks) {
  uint32_t direct;
  cr_expect_eq(kernels_of("conv_blocks", "resnet_basic_block", &direct), 2u, "a ResNet basic block: two kernels");
  cr_expect_eq(direct, 0u);
  cr_expect_eq(kernels_of("conv_blocks", "mobilenet_dw_pw", &direct), 2u, "a depthwise + pointwise pair: two kernels");
  cr_expect_eq(direct, 1u, "the depthwise convolution runs the direct schedule");
  /* its K (the 3 x 3 window, static) a constant trip count the compiler unrolls, its window's
   * div / mod folded (lower_direct.c, output_at) */
  cr_expect_eq(direct_k_trip("conv_blocks", "mobilenet_dw_pw"), 9);
  cr_expect_eq(direct_k_trip("conv_edge", "conv_groups"), 27, "3 input channels per group over 3 x 3");
  cr_expect_eq(kernels_of("conv_edge", "conv_depthwise", &direct), 1u);
  cr_expect_eq(direct, 1u);
  cr_expect_eq(kernels_of("conv_edge", "conv_groups", &direct), 1u);
  cr_expect_eq(direct, 1u, "two output channels per group over a 3x3x3 window (K = 27): direct");
  cr_expect_eq(kernels_of("conv_edge", "conv_kernel_past_input", &direct), 1u);
  cr_expect_eq(direct, 1u, "4 output channels over K = 50: direct");
  cr_expect_eq(kernels_of("conv2d_relu_bias", "conv2d_relu_bias", &direct), 1u);
  cr_expect_eq(direct, 0u, "8 output channels: tiles");
}

/* A max pool read by a 3 x 3 convolution is stored once by a pointwise kernel of its own, ahead
 * of the convolution and of a channel mean that reads it (each pooled value would otherwise be
 * computed once per window position: passes/fuse.c); a pool one 1 x 1 convolution reads stays in
 * that convolution's loads. Against PyTorch on the CPU device (below). */
Test(conv_fusion, pooled_windows_are_stored) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/conv_blocks");
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, "pool_then_convs", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  const kg_graph *g = &c->lg;
  int stored = -1, consumers_after = 0, pools = 0;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    const kg_group *grp = &c->fusion.groups.v[gi];
    if (grp->kind == KG_GROUP_POINTWISE && grp->mats.n) {
      cr_expect_eq(grp->mats.n, 1u);
      cr_expect_eq(g->nodes.v[grp->mats.v[0]].op, KG_OP_POOL, "the stored value is the pool");
      cr_expect_eq(grp->outs.n, 0u);
      cr_expect_lt(stored, 0, "one stored pool");
      stored = (int)gi;
    }
    if (grp->kind == KG_GROUP_MATMUL || grp->kind == KG_GROUP_REDUCE) consumers_after += stored >= 0;
  }
  for (uint32_t i = 0; i < g->nodes.n; i++) pools += g->nodes.v[i].op == KG_OP_POOL;
  cr_expect_eq(pools, 2, "two pools in the program");
  cr_expect_eq(stored, 1, "the 3 x 3 pool's kernel runs second, after the product it reads");
  cr_expect_eq(consumers_after, 3, "the 3 x 3 convolution, the mean and the 1 x 1 convolution run after it");
  cr_expect_eq(kg_compiled_n_kernels(c), 6u);
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
}
/* ... and on the CPU device, inputs strided. (The emulator's check of this entry is the examples
 * suite's, tests/test_examples.c: a test process that ran it alone crashed LeakSanitizer's own
 * exit-time scan under the sanitizer pass — "Tracer caught signal 11" reading a stale dynamic-TLS
 * slot, with no leak or memory error reported — which the CLI's run of the same check did not.) */
Test(conv_fusion, pooled_windows_on_the_cpu_device, .init = setup, .fini = teardown, .timeout = 900) {
  check_on("conv_blocks", "pool_then_convs", "float32[1,3,7,5], float32[8,3,3,3], float32[8], float32[12,8,3,3], float32[12], float32[6,3,1,1]",
           KG_DEVICE_CPU, true);
}

/* CPU convolution kernels whose text computes a max window (a pool read inline), and the most
 * places one of them computes it */
typedef struct window_sites { uint32_t conv, windowed, max_sites; } window_sites;
static void count_window_sites(const kg_kvariant *kv, void *arg) {
  window_sites *w = arg;
  uint32_t n = 0;
  for (const char *p = kv->cuda; (p = strstr(p, "= (-KG_INF_F);")) != NULL; p++) n++;
  w->conv++;
  w->windowed += n > 0;
  if (n > w->max_sites) w->max_sites = n;
}

/* GoogLeNet's inception pattern (examples/conv_blocks.fs, inception_pools): the stage's stride-2
 * pool read by two 1 x 1 convolutions through one shared IM2COL and by the branch's 3 x 3 pool is
 * stored (inline it was evaluated 2 + 9 times per value: the branch pool's 1 x 1 convolution
 * computed a 3 x 3 max of 3 x 3 maxes for every panel element); the branch pool, read once, stays
 * in its convolution's loads. */
Test(conv_fusion, pool_of_pool_and_shared_pool_are_stored, .init = setup, .fini = teardown, .timeout = 900) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/conv_blocks");
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, "inception_pools", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  const kg_graph *g = &c->lg;
  int stored = 0, pools = 0, products = 0;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    const kg_group *grp = &c->fusion.groups.v[gi];
    products += grp->kind == KG_GROUP_MATMUL;
    if (grp->kind != KG_GROUP_POINTWISE || !grp->mats.n) continue;
    stored++;
    cr_expect_eq(gi, 0u, "the stage pool's kernel runs first");
    cr_assert_eq(grp->mats.n, 1u);
    const kg_gnode *p = &g->nodes.v[grp->mats.v[0]];
    cr_expect_eq(p->op, KG_OP_POOL);
    cr_expect_eq(g->nodes.v[p->in[0]].op, KG_OP_INPUT, "the stored pool is the stride-2 one, over the input");
  }
  for (uint32_t i = 0; i < g->nodes.n; i++) pools += g->nodes.v[i].op == KG_OP_POOL;
  cr_expect_eq(pools, 2, "two pools in the program");
  cr_expect_eq(stored, 1, "one stored pool: the branch pool stays inline");
  cr_expect_eq(products, 3);
  cr_expect_eq(kg_compiled_n_kernels(c), 5u, "the pool, three convolutions, the concatenation");
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
  /* On the CPU device the branch convolution's panel evaluates the 3 x 3 pool inline: its columns
   * are one rolled loop (lower_matmul_cpu.c, panel_window), the window written once in its kernel,
   * not once per unrolled panel column (NR + 1 copies: GCC took 14 s for such a GoogLeNet kernel). */
  static const int64_t is[6][4] = {{2, 6, 13, 11}, {5, 6, 1, 1}, {5}, {4, 6, 1, 1}, {7, 6, 1, 1}, {7}};
  static const int ir[6] = {4, 4, 1, 4, 4, 1};
  window_sites w = {0, 0, 0};
  cpu_conv_kernels("conv_blocks", "inception_pools", 6, is, ir, "conv.cpu", count_window_sites, &w);
  cr_expect_eq(w.windowed, 1u, "one panel convolution reads the pool inline (of %u)", w.conv);
  cr_expect_eq(w.max_sites, 1u, "its window's maximum written %u times", w.max_sites);
  check_on("conv_blocks", "inception_pools", NULL, KG_DEVICE_EMU, false);
  check_on("conv_blocks", "inception_pools", NULL, KG_DEVICE_CPU, true);
  check_on("conv_blocks", "inception_pools", "float32[1,6,7,9], float32[5,6,1,1], float32[5], float32[4,6,1,1], float32[7,6,1,1], float32[7]",
           KG_DEVICE_CPU, true);
}

Test(conv_schedule, direct_and_dims) {
  cr_expect(kg_conv_direct(1, 9), "depthwise 3x3");
  cr_expect(kg_conv_direct(2, 49), "depthwise 7x7, multiplier 2");
  cr_expect(!kg_conv_direct(8, 9), "8 output channels per group: tiles");
  cr_expect(!kg_conv_direct(1, 576), "a long K: tiles");
  cr_expect(!kg_conv_direct(1, -1), "K unknown");
  int64_t batch, m, n, space[4] = {3, 12, 5, 7};
  kg_mm_dims(4, space, 8 | (4 << 8), &batch, &m, &n); /* [N=3, O=12, 5, 7] in 4 groups */
  cr_expect(batch == 12 && m == 3 && n == 35, "batch %lld m %lld n %lld", (long long)batch, (long long)m, (long long)n);
  int64_t sym[3] = {-1, 6, 10};
  kg_mm_dims(3, sym, 8 | (1 << 8), &batch, &m, &n);
  cr_expect(batch == -1 && m == 6 && n == 10);
}

Test(conv_numeric, edge_sizes_against_pytorch, .init = setup, .fini = teardown, .timeout = 900) {
  /* batch 0 and 1, size-1 spatial dims under padding, a symbolic batch */
  check_at("conv2d_relu_bias", "conv2d_relu_bias", "float32[0,3,9,9], float32[8,3,3,3], float32[8]");
  check_at("conv2d_relu_bias", "conv2d_relu_bias", "float32[1,3,1,1], float32[8,3,3,3], float32[8]");
  check_at("conv2d_relu_bias", "conv2d_relu_bias", "float32[B,3,4,7], float32[5,3,2,2], float32[5]");
  check_at("conv_edge", "conv_depthwise", "float32[1,8,1,2], float32[8,1,3,3], float32[8]");
  check_at("conv_edge", "conv_depthwise", "float16[3,8,4,5], float16[8,1,3,3], float16[8]");
  /* the direct schedule's sizes symbolic (parameters) and static (constants: lower_matmul.c) */
  check_at("conv_edge", "conv_depthwise", "float32[B,8,H,W], float32[8,1,3,3], float32[8]");
  check_on("conv_edge", "conv_depthwise", "float32[B,8,H,W], float32[8,1,3,3], float32[8]", KG_DEVICE_CPU, true);
  check_on("conv_edge", "conv_depthwise", "float32[3,8,7,9], float32[8,1,3,3], float32[8]", KG_DEVICE_CPU, false);
  check_at("conv_edge", "conv_groups", "float64[1,6,3,4], float64[6,3,3,3]");
  check_at("conv_edge", "conv_groups", "bfloat16[2,4,5,3], bfloat16[2,2,1,1]");
  check_at("conv_edge", "conv_kernel_past_input", "float32[2,2,1,1], float32[3,2,5,5], float32[3]");
  check_at("conv_edge", "conv_stride_dilation", "float32[1,3,3,1], float32[2,3,1,1]");
  check_at("conv_edge", "conv1d_same", "float32[2,4,L], float32[6,4,5], float32[6]");
  check_at("conv_edge", "conv1d_same", "float32[1,4,1], float32[3,4,2], float32[3]");
  check_at("conv_edge", "conv_unbatched", "float64[3,1,1], float64[2,3,3,3], float64[2]");
  check_at("conv_transpose", "conv_transpose2d_strided", "float64[1,4,1,3], float64[4,1,3,3], float64[2]");
  check_at("conv_transpose", "conv_transpose2d_dilated", "float32[2,3,1,1], float32[3,4,1,2]");
  check_at("conv_dtypes", "conv_wide", "float64[1,3,1,1], float64[2,3,1,1], float64[2], int64[2,2,1], int64[1,2,3]");
  check_at("pad_modes", "pad_modes", "float64[1,1,5,4]");
  check_at("pad_modes", "pad_1d", "float64[2,4]");
}

Test(conv_errors, shape_rules_at_wrong_signatures) {
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[2,4,9,9], float32[8,3,3,3], float32[8]",
               "Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 4, 9, 9] to have 3 channels, but got 4 channels instead");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,9,9], float32[8,3,3], float32[8]",
               "Expected 3-dimensional input for 3-dimensional weight [8, 3, 3], but got 4-dimensional input of size [2, 3, 9, 9] instead");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[1,2,3,9,9], float32[8,3,3,3], float32[8]",
               "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [1, 2, 3, 9, 9]");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,1,1], float32[8,3,5,5], float32[8]",
               "Calculated padded input size per channel: (3 x 3). Kernel size: (5 x 5). Kernel size can't be greater than actual input size");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,9,9], float64[8,3,3,3], float32[8]",
               "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,9,9], float32[8,3,3,3], float32[7]",
               "Given weight of size [8, 3, 3, 3], expected bias to be 1-dimensional with 8 elements, but got bias of size [7] instead");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "bool[2,3,9,9], bool[8,3,3,3], bool[8]", "\"slow_conv2d_cpu\" not implemented for 'Bool'");
  expect_error("examples/conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,0,9], float32[8,3,3,3], float32[8]",
               "Only zero batch or zero channel inputs are supported, but got input shape: [2, 3, 0, 9]");
  expect_error("examples/conv_edge", "conv_groups", "float32[2,6,7,7], float32[5,3,3,3]",
               "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[5, 3, 3, 3]] instead");
  expect_error("examples/conv_edge", "conv_stride_dilation", "float32[3,3,H,7], float32[5,3,2,2]", "symbolic size H");
  expect_error("examples/pad_modes", "pad_1d", "int32[2,4]", "\"reflection_pad1d\" not implemented for 'Int'");
  expect_error("examples/pad_modes", "pad_modes", "int64[2,3,5,4]", "\"reflection_pad2d\" not implemented for 'Long'");
  expect_error("examples/conv_transpose", "conv_transpose2d_strided", "float32[2,3,5,4], float32[4,3,3,3], float32[6]",
               "Given transposed=1, weight of size [4, 3, 3, 3], expected input[2, 3, 5, 4] to have 4 channels, but got 3 channels instead");
}

Test(conv_errors, calls_pytorch_rejects) {
  static const char *const cases[][2] = {
    {"same_strided", "padding='same' is not supported for strided convolutions"},
    {"stride_zero", "non-positive stride is not supported"},
    {"padding_negative", "negative padding is not supported"},
    {"dilation_zero", "non-positive dilation is not supported"},
    {"groups_zero", "non-positive groups is not supported"},
    {"stride_three_values", "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]"},
    {"output_padding_too_big", "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 2 stride_height: 2 "
                               "stride_width: 2 dilation_height: 1 dilation_width: 1"},
    {"transposed_output_too_small", "Given input size per channel: (5 x 5). Calculated output size per channel: (-3 x -3). Output size is too small"},
    {"pad_reflect_past_input", "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at dimension 2 of input [1, 2, 3]"},
    {"pad_odd_length", "Padding length must be divisible by 2"},
    {"pad_too_long", "Padding length too large"},
    {"pad_circular_wraps", "Padding value causes wrapping around more than once."},
    {"pad_reflect_1d_input", "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) expect_error("tests/conv/conv_errors", cases[i][0], NULL, cases[i][1]);
}

/* output 0 of c as a zeroed float32 host tensor (its shape in os): the buffer (the caller frees it) */
static float *host_output(kg_compiled *c, int64_t *os, DLTensor *out, size_t *count) {
  DLDataType dt;
  int nd;
  cr_assert_eq(kg_compiled_output(c, 0, &dt, &nd, os), KG_OK);
  size_t on = 1;
  for (int d = 0; d < nd; d++) on *= (size_t)os[d];
  float *o = calloc(on + 1, sizeof(float));
  memset(out, 0, sizeof *out);
  out->data = o, out->ndim = nd, out->shape = os, out->dtype = dt, out->device.device_type = kDLCPU;
  *count = on;
  return o;
}

/* A channels-last input (NHWC memory, NCHW shape: strides C·H·W, 1, W·C, C) is read through its
 * strides: the same entry gives the same values as on a contiguous copy (the contiguous run is
 * checked against PyTorch above), for the implicit GEMM, the depthwise direct schedule and a
 * ResNet block. */
static void channels_last_matches(const char *name, const char *entry, int ni, const int64_t shapes[][4], const int *ranks) {
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  float *buf[8], *cl = NULL;
  DLTensor t[8], x_cl;
  const DLTensor *ins[8], *ins_cl[8];
  for (int i = 0; i < ni; i++) {
    size_t n = 1;
    for (int d = 0; d < ranks[i]; d++) n *= (size_t)shapes[i][d];
    buf[i] = malloc(n * sizeof(float) + 4);
    for (size_t e = 0; e < n; e++) buf[i][e] = (float)((e * 7919 + (size_t)i * 104729) % 1000) / 250.0f - 2.0f;
    memset(&t[i], 0, sizeof t[i]);
    t[i].data = buf[i], t[i].ndim = ranks[i], t[i].shape = (int64_t *)(uintptr_t)shapes[i];
    t[i].dtype = (DLDataType){kDLFloat, 32, 1}, t[i].device.device_type = kDLCPU;
    ins[i] = ins_cl[i] = &t[i];
  }
  /* input 0 in channels-last memory */
  int64_t N = shapes[0][0], C = shapes[0][1], H = shapes[0][2], W = shapes[0][3];
  int64_t st[4] = {C * H * W, 1, W * C, C};
  cl = malloc((size_t)(N * C * H * W) * sizeof(float) + 4);
  for (int64_t n = 0; n < N; n++)
    for (int64_t ch = 0; ch < C; ch++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) cl[n * st[0] + ch * st[1] + h * st[2] + w * st[3]] = buf[0][((n * C + ch) * H + h) * W + w];
  x_cl = t[0], x_cl.data = cl, x_cl.strides = st;
  ins_cl[0] = &x_cl;
  int64_t os[8];
  size_t on;
  DLTensor out1, out2;
  float *o1 = host_output(c, os, &out1, &on), *o2 = host_output(c, os, &out2, &on);
  DLTensor *op1[1] = {&out1}, *op2[1] = {&out2};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, ni, NULL, 0, op1, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins_cl, ni, NULL, 0, op2, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (size_t e = 0; e < on; e++) cr_expect_float_eq(o1[e], o2[e], 1e-5f * (1.0f + fabsf(o1[e])), "%s: element %zu: %g vs %g (channels-last)", entry, e, o1[e], o2[e]);
  for (int i = 0; i < ni; i++) free(buf[i]);
  free(cl), free(o1), free(o2);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(conv_numeric, channels_last_inputs) {
  static const int64_t s1[3][4] = {{2, 3, 9, 9}, {8, 3, 3, 3}, {8}};
  static const int r1[3] = {4, 4, 1};
  channels_last_matches("conv2d_relu_bias", "conv2d_relu_bias", 3, s1, r1);
  static const int64_t s2[5][4] = {{2, 6, 9, 9}, {6, 1, 3, 3}, {6}, {12, 6, 1, 1}, {12}};
  static const int r2[5] = {4, 4, 1, 4, 1};
  channels_last_matches("conv_blocks", "mobilenet_dw_pw", 5, s2, r2);
  static const int64_t s3[7][4] = {{2, 8, 8, 8}, {8, 8, 3, 3}, {8, 1, 1}, {8, 1, 1}, {8, 8, 3, 3}, {8, 1, 1}, {8, 1, 1}};
  static const int r3[7] = {4, 4, 3, 3, 4, 3, 3};
  channels_last_matches("conv_blocks", "resnet_basic_block", 7, s3, r3);
}

/* The CPU device folds a one-group convolution's images into its columns (mm_fold): every image
 * shares the weight (the rows), so images · P columns run under the packed panels — a thread per
 * (column tile, image) read the whole weight once per image, and a small image's P columns filled
 * a fraction of a panel (ResNet-18's last stage at 64 x 64 inputs: 4 of 16). The scheduler's rule
 * from facts; the kernels the CPU device runs (`_fold` in their names); against PyTorch on the CPU
 * device: partial panels, several panels, 1-D, strided inputs, residuals, bfloat16, groups. */
/* Runs entry of examples/<name> on the CPU device at the given input shapes (float32 zeros) and
 * hands every CPU convolution kernel of the given schedule it ran to visit */
static void cpu_conv_kernels(const char *name, const char *entry, int n, const int64_t (*shapes)[4], const int *ranks, const char *schedule, conv_visit visit,
                             void *arg) {
  kg_context *ctx = ctx_new();
  char path[256];
  snprintf(path, sizeof path, "examples/%s", name);
  kg_module *m = load(ctx, path);
  float *buf[8];
  DLTensor t[8];
  const DLTensor *ins[8];
  cr_assert_leq(n, 8);
  for (int i = 0; i < n; i++) {
    size_t e = 1;
    for (int d = 0; d < ranks[i]; d++) e *= (size_t)shapes[i][d];
    buf[i] = calloc(e + 1, sizeof(float));
    memset(&t[i], 0, sizeof t[i]);
    t[i].data = buf[i], t[i].ndim = ranks[i], t[i].shape = (int64_t *)(uintptr_t)shapes[i];
    t[i].dtype = (DLDataType){kDLFloat, 32, 1}, t[i].device.device_type = kDLCPU;
    ins[i] = &t[i];
  }
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize_for(m, entry, ins, n, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t os[8];
  size_t on;
  DLTensor out;
  float *o = host_output(c, os, &out, &on);
  DLTensor *op[1] = {&out};
  cr_assert_eq(kg_run(c, KG_DEVICE_CPU, ins, n, NULL, 0, op, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (uint32_t i = 0; i < c->runtime.n; i++)
    if (!strcmp(c->runtime.v[i]->k.schedule, schedule)) visit(c->runtime.v[i], arg);
  for (int i = 0; i < n; i++) free(buf[i]);
  free(o);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}
typedef struct fold_count { uint32_t fold, conv; } fold_count;
static void count_folded(const kg_kvariant *kv, void *arg) {
  fold_count *f = arg;
  f->conv++;
  f->fold += strstr(kv->k.name, "_fold_cpu") != NULL;
}

Test(conv_numeric, cpu_images_folded_into_columns, .init = setup, .fini = teardown, .timeout = 900) {
  kg_target cpu = kg_target_cpu(2);
  cpu.cpu_vregs = 32;
  struct { int64_t groups, space[4], k; bool fold; int tile; } cs[] = {
      {1, {2, 512, 2, 2}, 4608, true, KG_MM_CPU8},      /* 8 columns: one partial panel for both images */
      {1, {2, 256, 4, 4}, 2304, true, KG_MM_CPU8W},     /* 32 columns: a wide panel */
      {1, {64, 64, 16, 16}, 576, true, KG_MM_CPU8W_ALL}, /* many column tiles: every row per thread */
      {2, {2, 64, 4, 4}, 288, false, KG_MM_CPU8},       /* groups: the batch is (image, group) */
      {1, {1, 512, 2, 2}, 4608, false, KG_MM_CPU8},     /* one image */
      {1, {2, 2, 8, 8}, 9, false, KG_MM_DIRECT},         /* the direct schedule keeps its batch */
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    kg_group_facts gf;
    memset(&gf, 0, sizeof gf);
    gf.kind = KG_GROUP_MATMUL, gf.rank = 4, gf.mm_flags = 8 | (cs[i].groups << 8), gf.mm_k = cs[i].k, gf.mm_dtype = KG_F32;
    kg_sched_facts x;
    memset(&x, 0, sizeof x);
    x.runtime = true, x.contiguous = true, x.align = 64, x.max_elem = 4, x.mm_k = cs[i].k;
    memcpy(x.space, cs[i].space, sizeof cs[i].space);
    kg_variant v = kg_schedule_choose(&gf, &x, &cpu).v;
    cr_expect_eq(v.mm_fold, cs[i].fold, "case %zu: fold %u", i, v.mm_fold);
    cr_expect_eq(v.mm_tile, cs[i].tile, "case %zu: tile %u", i, v.mm_tile);
  }
  /* the kernels the CPU device runs: folded where one group and more than one image */
  static const int64_t s1[3][4] = {{3, 3, 4, 4}, {40, 3, 3, 3}, {40}}, s2[3][4] = {{1, 3, 4, 4}, {40, 3, 3, 3}, {40}};
  static const int r[3] = {4, 4, 1};
  fold_count f1 = {0, 0}, f2 = {0, 0};
  cpu_conv_kernels("conv2d_relu_bias", "conv2d_relu_bias", 3, s1, r, "conv.cpu", count_folded, &f1);
  cr_expect(f1.conv == 1 && f1.fold == 1, "3 images: %u of %u convolution kernels folded", f1.fold, f1.conv);
  cpu_conv_kernels("conv2d_relu_bias", "conv2d_relu_bias", 3, s2, r, "conv.cpu", count_folded, &f2);
  cr_expect(f2.conv == 1 && f2.fold == 0, "1 image: %u of %u convolution kernels folded", f2.fold, f2.conv);
  /* against PyTorch on the CPU device */
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "float32[3,3,4,4], float32[40,3,3,3], float32[40]", KG_DEVICE_CPU, false);
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "float32[5,3,9,9], float32[37,3,3,3], float32[37]", KG_DEVICE_CPU, true);
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "bfloat16[3,3,6,5], bfloat16[16,3,3,3], bfloat16[16]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv1d_same", "float32[3,4,10], float32[6,4,4], float32[6]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_stride_dilation", NULL, KG_DEVICE_CPU, true);
  check_on("conv_edge", "conv_groups", NULL, KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_scale_shift", NULL, KG_DEVICE_CPU, false);
  check_on("conv_blocks", "resnet_basic_block", NULL, KG_DEVICE_CPU, false);
  /* one column tile, 200 channels: 4 row chunks launched as one per core (exec.c's gy_cap), each
   * thread walking several under one packed panel — on this machine's cores and on one */
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,3,3], float32[200,3,3,3], float32[200]", KG_DEVICE_CPU, false);
  setenv("KGEN_CPU_THREADS", "1", 1);
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,3,3], float32[200,3,3,3], float32[200]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv1d_same", "float32[1,4,3], float32[150,4,4], float32[150]", KG_DEVICE_CPU, true);
  unsetenv("KGEN_CPU_THREADS");
}

/* The CPU target's direct convolutions (passes/lower_direct.c): a thread walks a chunk of outputs
 * a row at a time, each row's interior — the outputs whose taps all fall inside the input — one
 * loop without a bounds test, its iterations marked independent (KG_IVDEP: GCC vectorizes it),
 * the borders and the rows past the input's edge the per-output code. The kernels it runs, and
 * PyTorch on the CPU device where the interior is empty (rows of 1 and 2), a row longer than a
 * thread's chunk, rows crossing chunks, strides and dilations, a channel multiplier, groups of
 * several channels, a 1-D convolution, a pad and a transposed view read inline (no source to
 * guard), half precisions and float64, strided inputs (the guard fails: the per-output code). */
typedef struct rows_count { uint32_t rows, ivdep, tested; char *text; } rows_count;
static void count_rows(const kg_kvariant *kv, void *arg) {
  rows_count *r = arg;
  r->rows++;
  if (!r->text) r->text = strdup(kv->cuda);
  const char *p = strstr(kv->cuda, "  KG_IVDEP\n"); /* the statement (not the prelude's #define) */
  if (!p) return;
  r->ivdep++;
  const char *next = strstr(p + 11, "\n    for (");               /* the right border's loop: the interior loop's end */
  for (const char *q = strstr(p, "if ("); q && next && q < next; q = strstr(q + 1, "if (")) r->tested++;
}

Test(conv_numeric, cpu_direct_rows, .init = setup, .fini = teardown, .timeout = 900) {
  static const int64_t s1[5][4] = {{2, 6, 9, 33}, {6, 1, 3, 3}, {6}, {12, 6, 1, 1}, {12}};
  static const int r1[5] = {4, 4, 1, 4, 1};
  rows_count rc = {0, 0, 0, NULL};
  cpu_conv_kernels("conv_blocks", "mobilenet_dw_pw", 5, s1, r1, "conv.direct.rows", count_rows, &rc);
  cr_expect_eq(rc.rows, 1u, "the depthwise convolution walks rows on the CPU device");
  cr_expect_eq(rc.ivdep, 1u, "one interior loop marked independent");
  cr_expect_eq(rc.tested, 0u, "no test inside the interior loop");
  /* its text is CUDA too (KG_IVDEP empty there): NVRTC compiles it for sm_80 and sm_90, no spills */
  kg_context *nctx = ctx_new();
  kg_nvrtc *nv = kg_ctx_nvrtc(nctx);
  for (int a = 80; nv && rc.text && a <= 90; a += 10) {
    kg_nvrtc_out o;
    memset(&o, 0, sizeof o);
    kg_diag d;
    kg_diag_init(&d);
    int e = kg_nvrtc_compile(nv, "rows.cu", rc.text, a, true, NULL, &o, &d);
    char *t = e ? kg_diag_format(&d) : NULL;
    cr_expect_eq(e, 0, "sm_%d: %s", a, t ? t : "");
    cr_expect_eq(e ? 0u : o.n_stats, 1u, "sm_%d: one kernel", a);
    for (uint32_t q = 0; !e && q < o.n_stats; q++)
      cr_expect(o.stats[q].spill_stores == 0 && o.stats[q].spill_loads == 0, "sm_%d: %d / %d bytes spilled", a, o.stats[q].spill_stores, o.stats[q].spill_loads);
    free(t);
    if (!e) kg_nvrtc_out_free(&o);
    kg_diag_free(&d);
  }
  if (!nv) cr_log_warn("libnvrtc cannot be loaded: the rows kernel's CUDA compile not checked");
  kg_context_free(nctx);
  free(rc.text);
  static const int64_t s2[3][4] = {{2, 4, 6, 12}, {4, 1, 3, 3}, {2}};
  static const int r2[3] = {4, 4, 1};
  rows_count tc = {0, 0, 0, NULL};
  cpu_conv_kernels("conv_transpose", "conv_transpose2d_strided", 3, s2, r2, "conv.direct.rows", count_rows, &tc);
  cr_expect(tc.rows == 1 && tc.ivdep == 0, "a transposed convolution's rows: the per-output code only (%u kernels, %u interior loops)", tc.rows, tc.ivdep);
  free(tc.text);
  static const char *const dw[] = {
      "float32[2,8,1,1], float32[8,1,3,3], float32[8]",    /* no interior */
      "float32[1,8,2,2], float32[8,1,3,3], float32[8]",    /* no interior */
      "float32[1,8,5,37], float32[8,1,3,3], float32[8]",   /* rows across 512-output chunks */
      "float32[2,8,3,300], float32[8,1,3,3], float32[8]",  /* rows longer than a chunk */
      "float32[2,8,6,10], float32[16,1,3,3], float32[16]", /* a channel multiplier of 2 */
      "bfloat16[2,8,5,19], bfloat16[8,1,3,3], bfloat16[8]",
      "float16[1,8,4,21], float16[8,1,3,3], float16[8]",
  };
  for (size_t i = 0; i < sizeof dw / sizeof *dw; i++) check_on("conv_edge", "conv_depthwise", dw[i], KG_DEVICE_CPU, i % 2 == 1);
  check_on("conv_edge", "conv_stride_dilation", "float32[2,3,11,13], float32[4,3,3,3]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_stride_dilation", "float32[1,3,17,29], float32[2,3,2,3]", KG_DEVICE_CPU, true);
  check_on("conv_edge", "conv_groups", "float64[1,6,3,4], float64[6,3,3,3]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_groups", "float32[2,4,9,11], float32[8,2,3,3]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv1d_strided", "float32[2,3,40], float32[4,3,5]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_reflect_pad", "float32[2,4,6,9], float32[4,4,3,3]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_view_prologue", "float32[2,3,7,10], float32[3,3,3,3]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_kernel_past_input", NULL, KG_DEVICE_CPU, false);
}

/* A CPU convolution's epilogue over a full tile inside one row of its output (the row's static
 * size a multiple of the panel's width): rows outer, each row's columns one loop marked
 * independent, which GCC's loop vectorizer takes at the product kernels' cheapest cost model
 * (codegen-cuda/cpu.c; passes/lower_matmul_cpu.c, conv_row_loop) — it was a column-outer scalar
 * loop, branching on ReLU6's NaN tests for every output (MobileNetV2's 1 x 1 convolutions). The
 * kernels, then PyTorch on the CPU device: a bias, a residual, a batch norm's scale and shift,
 * 1-D, bfloat16, strided inputs (the residual's guard fails: the column loop). */
typedef struct epi_loops { uint32_t conv, loops, cheap; kg_nvrtc *nv; int compiled; } epi_loops;
static void count_epi_loops(const kg_kvariant *kv, void *arg) {
  epi_loops *e = arg;
  e->conv++;
  /* its text is CUDA too (KG_IVDEP empty there; the panel's clamped window, bit mask and
   * __restrict__ scratch): NVRTC compiles it for sm_80 and sm_90. Spills are not asked of it: a
   * CPU product kernel keeps an 8 x 32 register block (256 floats, 16 AVX-512 registers' worth)
   * and runs only on the CPU device (the CUDA glue never loads a `_cpu` variant) */
  for (int a = 80; e->nv && a <= 90; a += 10) {
    kg_nvrtc_out o;
    memset(&o, 0, sizeof o);
    kg_diag d;
    kg_diag_init(&d);
    int rc = kg_nvrtc_compile(e->nv, "conv_cpu_panel.cu", kv->cuda, a, true, NULL, &o, &d);
    char *t = rc ? kg_diag_format(&d) : NULL;
    cr_expect_eq(rc, 0, "sm_%d: %s", a, t ? t : "");
    e->compiled += rc == 0;
    free(t);
    if (!rc) kg_nvrtc_out_free(&o);
    kg_diag_free(&d);
  }
  for (const char *q = kv->cuda; (q = strstr(q, "  KG_IVDEP\n")) != NULL; q++) e->loops++;
  e->cheap += kv->cpu_pre && strstr(kv->cpu_pre, "vect-cost-model=very-cheap") != NULL;
}

Test(conv_numeric, cpu_conv_row_epilogue, .init = setup, .fini = teardown, .timeout = 900) {
  static const int64_t s1[3][4] = {{2, 3, 64, 64}, {40, 3, 3, 3}, {40}}, s2[3][4] = {{2, 3, 62, 62}, {40, 3, 3, 3}, {40}};
  static const int r[3] = {4, 4, 1};
  kg_context *nctx = ctx_new();
  epi_loops a = {0, 0, 0, kg_ctx_nvrtc(nctx), 0}, b = {0, 0, 0, NULL, 0};
  cpu_conv_kernels("conv2d_relu_bias", "conv2d_relu_bias", 3, s1, r, "conv.cpu", count_epi_loops, &a);
  if (a.nv) cr_expect_eq(a.compiled, 2, "the convolution kernel compiled for sm_80 and sm_90");
  else cr_log_warn("libnvrtc cannot be loaded: the CPU convolution kernel's CUDA compile not checked");
  kg_context_free(nctx);
  /* independent loops: the full panel's columns (lower_matmul_cpu.c) and, rows of 32, the row loop
   * in both copies of the register blocks (A's rows contiguous or not) */
  cr_expect(a.conv == 1 && a.loops == 3, "rows of 32: %u independent loops in %u convolution kernels (the panel's columns, the row loop twice)", a.loops, a.conv);
  cr_expect_eq(a.cheap, a.conv, "the cheapest cost model in %u of %u", a.cheap, a.conv);
  cpu_conv_kernels("conv2d_relu_bias", "conv2d_relu_bias", 3, s2, r, "conv.cpu", count_epi_loops, &b);
  cr_expect(b.conv == 1 && b.loops == 1, "rows of 31: %u independent loops in %u kernels (the panel's columns only)", b.loops, b.conv);
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "float32[2,3,64,64], float32[40,3,3,3], float32[40]", KG_DEVICE_CPU, false);
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "float32[1,3,128,96], float32[24,3,3,3], float32[24]", KG_DEVICE_CPU, true);
  check_on("conv2d_relu_bias", "conv2d_relu_bias", "bfloat16[2,3,64,64], bfloat16[16,3,3,3], bfloat16[16]", KG_DEVICE_CPU, false);
  static const char *const rb = "float32[2,8,32,32], float32[8,8,3,3], float32[8,1,1], float32[8,1,1], float32[8,8,3,3], float32[8,1,1], float32[8,1,1]";
  check_on("conv_blocks", "resnet_basic_block", rb, KG_DEVICE_CPU, false);
  check_on("conv_blocks", "resnet_basic_block", rb, KG_DEVICE_CPU, true);
  check_on("conv_blocks", "mobilenet_dw_pw", "float32[2,6,64,64], float32[6,1,3,3], float32[6], float32[12,6,1,1], float32[12]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv1d_same", "float32[2,4,64], float32[6,4,4], float32[6]", KG_DEVICE_CPU, false);
  check_on("conv_edge", "conv_scale_shift", "float32[2,3,32,32], float32[8,3,3,3], float32[8], float32[8,1,1], float32[8,1,1]", KG_DEVICE_CPU, false);
}
