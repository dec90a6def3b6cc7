/* tests/test_matmul.c — the matrix-product kernel class: its fusion claims (how many kernels
 * real programs take), the scheduler's tile choice, and runs on the emulator with layouts the
 * example checks do not produce (a transposed operand, a broadcast batch read at stride 0, a
 * batch past the grid's 65535). Values are checked against a plain C product. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api_int.h"

static kg_context *ctx_forced(int force_variant) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.force_variant = force_variant;
  return kg_context_new(&o);
}
static kg_context *ctx_new(void) { return ctx_forced(0); }

static kg_module *load_example(kg_context *ctx, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, name);
  size_t len;
  char *doc = kg_read_file(path, &len);
  cr_assert_not_null(doc, "cannot read %s", path);
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, len, &m), KG_OK, "%s: %s", name, kg_last_error(ctx));
  free(doc);
  return m;
}

/* kernels of an example's entry, specialized with its own signature; the tiled plan
 * (force_variant 5: no product folded into its reader) or the default */
static uint32_t kernels_in(const char *name, int force_variant, uint32_t *n_matmul, uint32_t *n_folded) {
  kg_context *ctx = ctx_forced(force_variant);
  kg_module *m = load_example(ctx, name);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s: %s", name, kg_last_error(ctx));
  uint32_t n = kg_compiled_n_kernels(c);
  *n_matmul = 0;
  for (uint32_t i = 0; i < c->fusion.groups.n; i++) *n_matmul += c->fusion.groups.v[i].kind == KG_GROUP_MATMUL;
  if (n_folded) {
    *n_folded = 0;
    for (uint32_t i = 0; i < c->lg.nodes.n; i++) *n_folded += c->lg.nodes.v[i].op == KG_OP_MMFOLD;
  }
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  return n;
}
/* the tiled kernel class's fusion claims (small examples would fold their products) */
static uint32_t kernels_of(const char *name, uint32_t *n_matmul) { return kernels_in(name, KG_FORCE_TILED, n_matmul, NULL); }

Test(matmul_fusion, linear_gelu_residual_is_one_kernel) {
  uint32_t mm, n = kernels_of("linear_gelu_residual", &mm);
  cr_expect_eq(n, 1, "gelu(linear(x, w, b)) + r: %u kernels", n);
  cr_expect_eq(mm, 1);
}

Test(matmul_fusion, mlp_block_is_two_kernels) {
  uint32_t mm, n = kernels_of("linear_mlp_block", &mm);
  cr_expect_eq(n, 2, "Linear -> GELU -> Linear: %u kernels", n);
  cr_expect_eq(mm, 2);
}

Test(matmul_fusion, attention_is_three_kernels) {
  uint32_t mm, n = kernels_of("mm_attention_scores", &mm);
  cr_expect_eq(n, 3, "q @ kT * s + mask, softmax, @ v: %u kernels", n);
  cr_expect_eq(mm, 2);
}

Test(matmul_fusion, multi_head_attention_with_views_is_four_kernels) {
  /* heads split by view + transpose, k transposed in place, causal mask, softmax, @ v, the heads
   * merged back and a linear projection: scores, softmax, p @ v, the projection */
  uint32_t mm, n = kernels_of("mm_attention_heads", &mm);
  cr_expect_eq(n, 4, "%u kernels", n);
  cr_expect_eq(mm, 3);
}

Test(matmul_fusion, prologue_casts_and_ops_are_inline) {
  uint32_t mm, n = kernels_of("mm_prologue", &mm);
  cr_expect_eq(n, 2, "two products with their operands' casts and ops inline: %u kernels", n);
  cr_expect_eq(mm, 2);
}

Test(matmul_fusion, mlp_stores_the_activation_not_the_product) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "linear_mlp_block");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  const kg_group *g0 = &c->fusion.groups.v[0];
  cr_assert_eq(g0->kind, KG_GROUP_MATMUL);
  cr_assert_eq(g0->mats.n, 1, "the first product stores one value");
  cr_expect_eq(c->lg.nodes.v[g0->mats.v[0]].op, KG_OP_GELU, "the stored value is gelu(x W1 + b1), read once by the second product");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* passes/fold_products.c: small static products are computed by the kernel that reads them */
Test(matmul_fold, rnn_cells_are_one_kernel) {
  static const struct { const char *name; uint32_t products, tiled_kernels; } cells[] = {
      {"rnn_elman_cell", 2, 2}, /* the second product's epilogue takes the add and tanh */
      {"rnn_lstm_cell", 2, 3},  /* chunked gates: views of the sum, read once each */
      {"rnn_gru_cell", 2, 3},
  };
  for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
    uint32_t mm, folded, n = kernels_in(cells[i].name, 0, &mm, &folded);
    cr_expect_eq(n, 1, "%s: %u kernels, expected one", cells[i].name, n);
    cr_expect_eq(mm, 0, "%s: %u tiled products", cells[i].name, mm);
    cr_expect_eq(folded, cells[i].products, "%s: %u folded products", cells[i].name, folded);
    n = kernels_in(cells[i].name, KG_FORCE_TILED, &mm, &folded);
    cr_expect_eq(n, cells[i].tiled_kernels, "%s tiled: %u kernels", cells[i].name, n);
    cr_expect(mm == cells[i].products && folded == 0, "%s tiled: %u products, %u folded", cells[i].name, mm, folded);
    n = kernels_in(cells[i].name, KG_FORCE_STRIDED_I64, &mm, &folded);
    cr_expect(mm == cells[i].products && folded == 0, "%s, variant 2 keeps the general schedule: %u products, %u folded", cells[i].name, mm, folded);
  }
}

/* what is not folded: a product read by another product's operand (the MLP's first: K·K work),
 * by a reduction (attention scores under softmax: a walk per pass), a symbolic size */
Test(matmul_fold, only_where_each_element_is_computed_once) {
  uint32_t mm, folded;
  uint32_t n = kernels_in("linear_mlp_block", 0, &mm, &folded);
  cr_expect(n == 2 && mm == 1 && folded == 1, "MLP: the first product stores gelu(..), the second folds into a pointwise kernel: %u kernels, %u tiled, %u folded", n, mm, folded);
  n = kernels_in("mm_attention_scores", 0, &mm, &folded);
  cr_expect(n == 1 && mm == 0 && folded == 0, "attention: recognized (passes/attention.c), one fused kernel: %u kernels, %u tiled, %u folded", n, mm, folded);
  n = kernels_in("mm_attention_scores", KG_FORCE_TILED, &mm, &folded);
  cr_expect(n == 3 && mm == 2, "attention kept tiled: scores, softmax, p @ v: %u kernels, %u tiled", n, mm);
  n = kernels_in("linear_gelu_residual", 0, &mm, &folded);
  cr_expect(n == 1 && mm == 1 && folded == 0, "symbolic N: the tiled kernel, %u kernels, %u tiled, %u folded", n, mm, folded);
}

Test(matmul_schedule, tile_from_the_sizes) {
  const kg_target *t = &kg_target_h100;
  cr_expect_eq(kg_mm_choose_tile(t, 1, 4096, 4096), KG_MM_T64);
  cr_expect_eq(kg_mm_choose_tile(t, 1, 512, 512), KG_MM_T32);   /* 64 blocks of 64x64 < 132 SMs */
  cr_expect_eq(kg_mm_choose_tile(t, 1, 64, 64), KG_MM_T16);     /* an RNN step: spread it */
  cr_expect_eq(kg_mm_choose_tile(t, 64, 128, 128), KG_MM_T64);  /* the batch fills the GPU */
  cr_expect_eq(kg_mm_choose_tile(t, 1, 1, 4096), KG_MM_ROW);    /* vector @ matrix */
  cr_expect_eq(kg_mm_choose_tile(t, 1, 4096, 1), KG_MM_COL);    /* matrix @ vector */
  cr_expect_eq(kg_mm_choose_tile(t, 1, -1, 768), KG_MM_T64);    /* compile time, M unknown */
  int64_t batch, mm, nn, space[3] = {5, 7, 9};
  kg_mm_dims(3, space, 0, &batch, &mm, &nn);
  cr_expect(batch == 5 && mm == 7 && nn == 9);
  kg_mm_dims(2, space, 2, &batch, &mm, &nn); /* [5, 7] from [5, 7, K] @ [K] */
  cr_expect(batch == 5 && mm == 7 && nn == 1);
}

static DLTensor view(void *data, DLDataType dt, int nd, int64_t *shape, int64_t *strides) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.dtype = dt, t.ndim = nd, t.shape = shape, t.strides = strides;
  t.device.device_type = kDLCPU;
  return t;
}

static const DLDataType F32T = {kDLFloat, 32, 1};

/* mm_matmul_odd ([67,33] @ [33,70]) with A a transposed view of a [33,67] buffer */
Test(matmul_exec, transposed_operand) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "mm_matmul_odd");
  enum { M = 67, K = 33, N = 70 };
  float *abuf = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), *out = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; i++) abuf[i] = (float)((i * 7) % 13) - 6.0f;
  for (int i = 0; i < K * N; i++) b[i] = (float)((i * 5) % 11) - 5.0f;
  int64_t as[2] = {M, K}, ast[2] = {1, M}, bs[2] = {K, N}, os[2] = {M, N};
  DLTensor ta = view(abuf, F32T, 2, as, ast), tb = view(b, F32T, 2, bs, NULL), to = view(out, F32T, 2, os, NULL);
  const DLTensor *ins[2] = {&ta, &tb};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += (double)abuf[k * M + i] * b[k * N + j];
      cr_expect(fabs(out[i * N + j] - s) <= 1e-3, "[%d,%d]: %g vs %g", i, j, out[i * N + j], s);
    }
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  free(abuf), free(b), free(out);
}

/* mm_bmm_sym ([B,9,5] @ [B,5,6]) with B = 70000 (grid.z is capped at 65535: the kernel strides
 * over the rest) and the second operand one [5,6] matrix broadcast along B at stride 0 */
Test(matmul_exec, batch_past_the_grid_and_stride_zero) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "mm_bmm_sym");
  enum { B = 70000, M = 9, K = 5, N = 6 };
  float *a = malloc(sizeof(float) * B * M * K), bm[K * N], *o0 = malloc(sizeof(float) * B * M * N), *o1 = malloc(sizeof(float) * B * M * N);
  for (long i = 0; i < (long)B * M * K; i++) a[i] = (float)((i * 3) % 7) - 3.0f;
  for (int i = 0; i < K * N; i++) bm[i] = (float)(i % 5) - 2.0f;
  int64_t as[3] = {B, M, K}, bs[3] = {B, K, N}, bst[3] = {0, N, 1}, os[3] = {B, M, N};
  DLTensor ta = view(a, F32T, 3, as, NULL), tb = view(bm, F32T, 3, bs, bst), t0 = view(o0, F32T, 3, os, NULL), t1 = view(o1, F32T, 3, os, NULL);
  const DLTensor *ins[2] = {&ta, &tb};
  DLTensor *outs[2] = {&t0, &t1};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 2, NULL), KG_OK, "%s", kg_last_error(ctx));
  int bad = 0;
  for (long z = 0; z < B && bad < 5; z += 997)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        float s = 0;
        for (int k = 0; k < K; k++) s += a[(z * M + i) * K + k] * bm[k * N + j];
        long o = (z * M + i) * N + j;
        if (o0[o] != s || o1[o] != (s > 0 ? s : 0)) bad++;
      }
  long last = ((long)(B - 1) * M) * N; /* the last batch, past 65535 */
  float s = 0;
  for (int k = 0; k < K; k++) s += a[((long)(B - 1) * M) * K + k] * bm[k * N];
  cr_expect_eq(o0[last], s);
  cr_expect_eq(bad, 0);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  free(a), free(o0), free(o1);
}

/* a K that disagrees at run time (a symbol bound against a static size) is PyTorch's error,
 * not an out-of-bounds read */
Test(matmul_exec, k_mismatch_is_rejected) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "mm_bmm_sym");
  float a[2 * 9 * 5], b[2 * 4 * 6], o[2 * 9 * 6];
  memset(a, 0, sizeof a), memset(b, 0, sizeof b);
  int64_t as[3] = {2, 9, 5}, bs[3] = {2, 4, 6}, os[3] = {2, 9, 6};
  DLTensor ta = view(a, F32T, 3, as, NULL), tb = view(b, F32T, 3, bs, NULL), t0 = view(o, F32T, 3, os, NULL);
  const DLTensor *ins[2] = {&ta, &tb};
  kg_compiled *c;
  kg_status st = kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c);
  cr_expect_neq(st, KG_OK, "a [2,9,5] @ [2,4,6] product must be refused");
  (void)t0;
  if (st == KG_OK) kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
}

/* float32 products sum K in blocks of 32 (KG_MM_KBLOCK) apart, each added to the accumulator (blocked
 * summation, as BLAS and oneDNN do): over K = 2304 (ResNet's 3x3 convolutions over 256
 * channels) the result is several times closer to the float64 product than one sequential
 * float32 sum, which left ResNet-18 ~3.6x further from float64 than PyTorch (docs/models.md);
 * for K <= 32 the bits are one sequential sum's (mm_prologue, K = 24, stays equal to
 * PyTorch's: checked by the examples) */
Test(matmul_exec, long_k_is_summed_in_blocks) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "mm_matmul_odd");
  enum { M = 16, K = 2304, N = 16 };
  float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), out[M * N];
  uint64_t s = 7;
  for (int i = 0; i < M * K; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (float)((double)(s >> 11) * 0x1.0p-53 * 2 - 1);
  }
  for (int i = 0; i < K * N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b[i] = (float)(((double)(s >> 11) * 0x1.0p-53 * 2 - 1) * 0.03);
  }
  int64_t as[2] = {M, K}, bs[2] = {K, N}, os[2] = {M, N};
  DLTensor ta = view(a, F32T, 2, as, NULL), tb = view(b, F32T, 2, bs, NULL), to = view(out, F32T, 2, os, NULL);
  const DLTensor *ins[2] = {&ta, &tb};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  double e_ours = 0, e_seq = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double ref = 0;
      volatile float seq = 0;
      for (int k = 0; k < K; k++) {
        volatile float p = a[i * K + k] * b[k * N + j];
        ref += (double)a[i * K + k] * b[k * N + j];
        seq = seq + p;
      }
      e_ours += (out[i * N + j] - ref) * (out[i * N + j] - ref);
      e_seq += (seq - ref) * (seq - ref);
    }
  e_ours = sqrt(e_ours / (M * N)), e_seq = sqrt(e_seq / (M * N));
  cr_expect_lt(e_ours, 0.5 * e_seq, "rmse vs float64: ours %g, one sequential float32 sum %g", e_ours, e_seq);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  free(a), free(b);
}

/* one run of rnn_elman_cell (compiled once over symbolic sizes, or for these) at B, I, H on dev:
 * the launches it took and its values against a double reference */
static uint64_t elman_run_on(kg_compiled *c, kg_context *ctx, kg_device_kind dev, int B, int I, int H) {
  float *x = malloc(sizeof(float) * B * I), *h = malloc(sizeof(float) * B * H), *wi = malloc(sizeof(float) * H * I);
  float *wh = malloc(sizeof(float) * H * H), *bi = malloc(sizeof(float) * H), *bh = malloc(sizeof(float) * H), *out = malloc(sizeof(float) * B * H);
  for (int i = 0; i < B * I; i++) x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (int i = 0; i < B * H; i++) h[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  for (int i = 0; i < H * I; i++) wi[i] = (float)((i * 3) % 17) / 17.0f - 0.5f;
  for (int i = 0; i < H * H; i++) wh[i] = (float)((i * 11) % 19) / 19.0f - 0.5f;
  for (int i = 0; i < H; i++) bi[i] = 0.01f * (float)i, bh[i] = -0.02f * (float)i;
  int64_t sx[2] = {B, I}, sh[2] = {B, H}, swi[2] = {H, I}, swh[2] = {H, H}, sb[1] = {H};
  DLTensor tx = view(x, F32T, 2, sx, NULL), th = view(h, F32T, 2, sh, NULL), twi = view(wi, F32T, 2, swi, NULL), twh = view(wh, F32T, 2, swh, NULL);
  DLTensor tbi = view(bi, F32T, 1, sb, NULL), tbh = view(bh, F32T, 1, sb, NULL), to = view(out, F32T, 2, sh, NULL);
  const DLTensor *ins[6] = {&tx, &th, &twi, &twh, &tbi, &tbh};
  DLTensor *outs[1] = {&to};
  cr_assert_eq(kg_run(c, dev, ins, 6, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  for (int b = 0; b < B; b += B > 64 ? 97 : 1)
    for (int j = 0; j < H; j++) {
      double s = (double)bi[j] + bh[j];
      for (int k = 0; k < I; k++) s += (double)x[b * I + k] * wi[j * I + k];
      for (int k = 0; k < H; k++) s += (double)h[b * H + k] * wh[j * H + k];
      cr_expect(fabs(out[b * H + j] - tanh(s)) <= 2e-5, "B=%d [%d,%d]: %g vs %g", B, b, j, out[b * H + j], tanh(s));
    }
  free(x), free(h), free(wi), free(wh), free(bi), free(bh), free(out);
  return st.launches;
}
static uint64_t elman_run(kg_compiled *c, kg_context *ctx, int B, int I, int H) { return elman_run_on(c, ctx, KG_DEVICE_EMU, B, I, H); }

/* the fold plan: products tiled at compile time only because their sizes are symbolic (the .NET
 * fast path's duck sizes) fold into their readers at run time when every one is small */
Test(matmul_fold, symbolic_sizes_fold_at_run_time_when_small) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "rnn_elman_cell");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, "float32[B,I], float32[B,H], float32[H,I], float32[H,H], float32[H], float32[H]", &c), KG_OK, "%s",
               kg_last_error(ctx));
  cr_expect_eq(kg_compiled_n_kernels(c), 2u, "compiled: two tiled products");
  cr_expect_eq(c->n_fold_cand, 2u, "both are fold candidates");
  cr_expect_eq(elman_run(c, ctx, 4, 10, 16), 1u, "small: the fold plan, one launch");
  cr_expect_eq(elman_run(c, ctx, 1, 1, 1), 1u, "size 1: one launch");
  cr_expect_eq(elman_run(c, ctx, 3000, 200, 16), 2u, "x @ Wih^T has 9.6M multiply-adds: the tiled plan");
  cr_expect_eq(elman_run(c, ctx, 5, 300, 8), 2u, "K = 300 > 256: the tiled plan");
  cr_expect_eq(elman_run(c, ctx, 2, 3, 5), 1u, "small again: the fold plan (built once)");
}

/* The unfold plan (runtime/exec_plans.c): on the CPU device a folded product too big for a
 * serial dot per output runs as a product kernel (matmul.cpu) again; the emulator and small
 * products keep the fold. Static sizes, so the compiled program has the products folded. */
static kg_compiled *elman_static(kg_context *ctx, kg_module *m, int B, int I, int H) {
  char sig[200];
  snprintf(sig, sizeof sig, "float32[%d,%d], float32[%d,%d], float32[%d,%d], float32[%d,%d], float32[%d], float32[%d]", B, I, B, H, H, I, H, H, H, H);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, sig, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_compiled_n_kernels(c), 1u, "%s: both products folded into one kernel", sig);
  return c;
}
Test(matmul_fold, big_folded_products_unfold_on_the_cpu_device, .timeout = 300) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "rnn_elman_cell");
  kg_compiled *c = elman_static(ctx, m, 8, 64, 128); /* 8·128·64 and 8·128·128 multiply-adds */
  cr_expect_eq(elman_run_on(c, ctx, KG_DEVICE_EMU, 8, 64, 128), 1u, "the emulator keeps the fold: one launch");
  uint64_t n = elman_run_on(c, ctx, KG_DEVICE_CPU, 8, 64, 128);
  cr_expect(n >= 2, "the CPU device: the products as kernels of their own (%llu launches)", (unsigned long long)n);
  cr_expect(c->unfold_built && c->kernels_unfold, "the unfold plan was built");
  uint32_t mm = 0;
  for (uint32_t i = 0; i < c->fusion_unfold.groups.n; i++) mm += c->fusion_unfold.groups.v[i].kind == KG_GROUP_MATMUL;
  cr_expect_eq(mm, 2u, "two product groups in the unfold plan");
  cr_expect_eq(elman_run_on(c, ctx, KG_DEVICE_CPU, 8, 64, 128), n, "again: the same plan");
  kg_compiled_free(c);
  c = elman_static(ctx, m, 4, 10, 16); /* 4·16·10 + 4·16·16 multiply-adds: a dot per output is cheaper than a launch */
  cr_expect_eq(elman_run_on(c, ctx, KG_DEVICE_CPU, 4, 10, 16), 1u, "small: folded on the CPU device too");
  cr_expect(!c->unfold_built, "no unfold plan for small products");
  kg_compiled_free(c);
  /* symbolic sizes (the .NET fast path's): the fold plan where it pays — on the emulator at
   * these sizes, not on the CPU device — and on both for small ones */
  cr_assert_eq(kg_specialize(m, NULL, "float32[B,I], float32[B,H], float32[H,I], float32[H,H], float32[H], float32[H]", &c), KG_OK, "%s",
               kg_last_error(ctx));
  cr_expect_eq(elman_run_on(c, ctx, KG_DEVICE_EMU, 8, 64, 128), 1u, "the emulator: the fold plan");
  cr_expect_eq(elman_run_on(c, ctx, KG_DEVICE_CPU, 8, 64, 128), 2u, "the CPU device: the products tiled");
  cr_expect_eq(elman_run_on(c, ctx, KG_DEVICE_CPU, 4, 10, 16), 1u, "the CPU device, small: the fold plan");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* An integer addmm / baddbmm (TorchSharp passes beta and alpha as floats) whose K is a symbol:
 * K = 0 at run time with a non-empty result is PyTorch's error, as a static K = 0 is
 * (tests/bad/addmm_int_no_columns, baddbmm_int_no_columns), located at the call; an empty
 * result, and a float addmm (beta * input), run. */
static const DLDataType I32T = {kDLInt, 32, 1};

static kg_status run_addmm(kg_context *ctx, kg_compiled *c, DLDataType dt, int64_t M, int64_t K, int64_t N, void *out) {
  static int32_t cb[64], ab[64], bb[64];
  for (int i = 0; i < 64; i++) cb[i] = dt.code == kDLInt ? 3 : 0, ab[i] = bb[i] = 1;
  if (dt.code == kDLFloat)
    for (int i = 0; i < 64; i++) ((float *)cb)[i] = 3.0f, ((float *)ab)[i] = ((float *)bb)[i] = 1.0f;
  int64_t cs[2] = {M, N}, as[2] = {M, K}, bs[2] = {K, N}, os[2] = {M, N};
  DLTensor tc = view(cb, dt, 2, cs, NULL), ta = view(ab, dt, 2, as, NULL), tb = view(bb, dt, 2, bs, NULL), to = view(out, dt, 2, os, NULL);
  const DLTensor *ins[3] = {&tc, &ta, &tb};
  DLTensor *outs[1] = {&to};
  (void)ctx;
  return kg_run(c, KG_DEVICE_EMU, ins, 3, NULL, 0, outs, 1, NULL);
}

Test(matmul_exec, int_addmm_symbolic_k_zero_is_pytorchs_error) {
  kg_context *ctx = ctx_new();
  kg_module *m = load_example(ctx, "mm_addmm_int"); /* torch.addmm(c, a, b, 1.7f, 2.9f) */
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, "int32[M,N], int32[M,K], int32[K,N]", &c), KG_OK, "%s", kg_last_error(ctx));
  int32_t out[64];
  cr_expect_eq(run_addmm(ctx, c, I32T, 3, 0, 4, out), KG_ERR_INPUT);
  cr_expect(strstr(kg_last_error(ctx), "result type Float can't be cast to the desired output type Int (addmm of integer matrices") != NULL, "%s",
            kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), "mm_addmm_int.fs:") != NULL, "located at the F# call: %s", kg_last_error(ctx));
  cr_expect_eq(run_addmm(ctx, c, I32T, 0, 0, 4, out), KG_OK, "an empty result returns: %s", kg_last_error(ctx));
  cr_expect_eq(run_addmm(ctx, c, I32T, 3, 0, 0, out), KG_OK, "an empty result returns: %s", kg_last_error(ctx));
  cr_assert_eq(run_addmm(ctx, c, I32T, 3, 2, 4, out), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_eq(out[0], 3 * 1 + 2 * 2, "beta 1, alpha 2 (truncated): %d", out[0]);
  kg_compiled_free(c);
  /* the same document at float32 with K = 0: beta * input */
  kg_module_free(m);
  m = load_example(ctx, "mm_addmm_int");
  cr_assert_eq(kg_specialize(m, NULL, "float32[M,N], float32[M,K], float32[K,N]", &c), KG_OK, "%s", kg_last_error(ctx));
  float fo[64];
  cr_assert_eq(run_addmm(ctx, c, F32T, 3, 0, 4, fo), KG_OK, "%s", kg_last_error(ctx));
  cr_expect(fabsf(fo[0] - 5.1f) < 1e-5f && fabsf(fo[11] - 5.1f) < 1e-5f, "beta (1.7) * input, not truncated: %g", fo[0]);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}
