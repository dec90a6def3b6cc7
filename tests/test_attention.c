/* tests/test_attention.c — the fused attention kernel class (passes/lower_attn.c): its fusion
 * claims (scaled_dot_product_attention and the hand-written attention of real forwards are one
 * kernel; force_variant 5 keeps the three unfused ones), the scheduler's tile choice, and runs on
 * the emulator at the edges the example checks against PyTorch do not reach (no keys at all: 0;
 * a row every key of which is masked: NaN, as softmax over -inf; tiles crossing the sizes),
 * against a plain C reference in double precision. The examples themselves (examples/attn_*)
 * are checked against PyTorch by tests/test_examples.c. The tensor-core tile (lower_attn_mma.c):
 * when the scheduler takes it, and runs across its tiles on sm_80 and sm_90 and with a masked row. */
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

static kg_module *load(kg_context *ctx, const char *path_rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", KG_SOURCE_DIR, path_rel);
  size_t len;
  char *doc = kg_read_file(path, &len);
  cr_assert_not_null(doc, "cannot read %s", path);
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, len, &m), KG_OK, "%s: %s", path_rel, kg_last_error(ctx));
  free(doc);
  return m;
}

/* kernels and attention groups of an entry (its own signature) */
static uint32_t kernels(const char *file, const char *entry, int force_variant, uint32_t *n_attn) {
  kg_context *ctx = ctx_forced(force_variant);
  kg_module *m = load(ctx, file);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c), KG_OK, "%s: %s", entry, kg_last_error(ctx));
  uint32_t n = kg_compiled_n_kernels(c);
  *n_attn = 0;
  for (uint32_t i = 0; i < c->fusion.groups.n; i++) *n_attn += c->fusion.groups.v[i].kind == KG_GROUP_ATTN;
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  return n;
}

Test(attention_fusion, sdpa_is_one_kernel_and_three_unfused) {
  static const char *const entries[] = {"attn_sdpa_causal", "attn_sdpa_cross_mask", "attn_sdpa_bool_mask", "attn_sdpa_f64"};
  for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
    uint32_t na, n = kernels("examples/attn_sdpa.json", entries[i], 0, &na);
    cr_expect_eq(n, 1, "%s: %u kernels", entries[i], n); /* the bool mask's residual rides in the epilogue */
    cr_expect_eq(na, 1);
    n = kernels("examples/attn_sdpa.json", entries[i], KG_FORCE_TILED, &na);
    cr_expect_eq(n, 3, "%s unfused: %u kernels", entries[i], n);
    cr_expect_eq(na, 0);
  }
  uint32_t na, n = kernels("examples/attn_sdpa_train.json", "attn_sdpa_dropout", 0, &na);
  cr_expect_eq(n, 1, "dropout: %u kernels", n);
}

Test(attention_fusion, handwritten_attention_is_recognized) {
  uint32_t na, n = kernels("examples/attn_sdpa_train.json", "attn_handwritten", 0, &na);
  cr_expect_eq(n, 1, "masked_fill + softmax + dropout @ v: %u kernels", n);
  cr_expect_eq(na, 1);
  n = kernels("examples/attn_sdpa_train.json", "attn_handwritten", KG_FORCE_TILED, &na);
  cr_expect_eq(na, 0, "force_variant 5 keeps the user's three kernels");
  /* real forwards (examples/models): ModestGpt's causal mask sliced from a buffer, Llama's
   * grouped-query attention with an additive mask; NasBert returns the attention weights too,
   * so its probabilities are stored and nothing is rewritten */
  n = kernels("examples/models/modestgpt.json", "causal_self_attention", 0, &na);
  cr_expect_eq(na, 1);
  cr_expect_eq(n, 3, "ModestGpt attention: %u kernels", n);
  n = kernels("examples/models/llama.json", "llama_attention", 0, &na);
  cr_expect_eq(na, 1);
  cr_expect_eq(n, 3, "Llama attention: %u kernels", n); /* q, k, v one product (passes/merge_products.c) */
  n = kernels("examples/models/phi3.json", "phi3_attention", 0, &na);
  cr_expect_eq(na, 1);
  kernels("examples/models/nasbert.json", "nasbert_multihead_attention", 0, &na);
  cr_expect_eq(na, 0);
}

Test(attention_schedule, tile_from_the_head_dims_and_sizes) {
  const kg_target *t = &kg_target_h100;
  cr_expect_eq(kg_attn_choose_tile(t, 32, 4096, 64, 64, 4), KG_ATTN_Q64);
  cr_expect_eq(kg_attn_choose_tile(t, 32, 4096, 128, 128, 4), KG_ATTN_Q32);
  cr_expect_eq(kg_attn_choose_tile(t, 32, 4096, 256, 256, 4), KG_ATTN_Q8);  /* Q16's tiles pass 48 KB */
  cr_expect_eq(kg_attn_choose_tile(t, 32, 4096, 128, 128, 8), KG_ATTN_Q8);  /* float64 */
  cr_expect_eq(kg_attn_choose_tile(t, 1, 64, 64, 64, 4), KG_ATTN_Q8);       /* one block would leave SMs idle */
  cr_expect_eq(kg_attn_choose_tile(t, -1, -1, 64, 64, 4), KG_ATTN_Q64);     /* compile time, sizes unknown */
  /* whatever it picks fits: accumulators and shared memory */
  for (int64_t d = 1; d <= 256; d += 17)
    for (uint32_t esz = 4; esz <= 8; esz += 4) {
      if (esz == 8 && d > 128) continue;
      kg_attn_tile a = kg_attn_choose_tile(t, 64, 1024, d, d, esz);
      const kg_attn_tile_info *T = kg_attn_tile_get(a);
      uint32_t tpr = T->threads / T->bq;
      cr_expect_leq((d + tpr - 1) / tpr, KG_ATTN_ACC_MAX, "d %lld", (long long)d);
      cr_expect_leq(kg_attn_smem(a, d, d, esz), KG_ATTN_SMEM_MAX, "d %lld esz %u", (long long)d, esz);
    }
}

/* ---- runs against a C reference ---- */

static DLTensor t4(float *data, int64_t *shape) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.device.device_type = kDLCPU, t.ndim = 4, t.dtype = (DLDataType){kDLFloat, 32, 1}, t.shape = shape;
  return t;
}

static float frand(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* softmax(q kᵀ / sqrt(d)) v of one [L, d] × [S, d] head, in double */
static void reference(const float *q, const float *k, const float *v, int64_t L, int64_t S, int64_t d, double *o) {
  double *s = malloc((size_t)(S ? S : 1) * sizeof *s);
  for (int64_t i = 0; i < L; i++) {
    double m = -INFINITY, sum = 0;
    for (int64_t j = 0; j < S; j++) {
      double a = 0;
      for (int64_t e = 0; e < d; e++) a += (double)q[i * d + e] * (double)k[j * d + e];
      s[j] = a / sqrt((double)d);
      if (s[j] > m) m = s[j];
    }
    for (int64_t j = 0; j < S; j++) sum += s[j] = exp(s[j] - m);
    for (int64_t e = 0; e < d; e++) {
      double a = 0;
      for (int64_t j = 0; j < S; j++) a += s[j] / sum * (double)v[j * d + e];
      o[i * d + e] = S ? a : 0;
    }
  }
  free(s);
}

static void run_plain_on(kg_device_kind dev, int64_t L, int64_t S) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, "examples/attn_sdpa_train.json");
  char sig[256];
  snprintf(sig, sizeof sig, "float32[1,2,%lld,64], float32[1,2,%lld,64], float32[1,2,%lld,64]", (long long)L, (long long)S, (long long)S);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "attn_sdpa_plain", sig, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t sq[4] = {1, 2, L, 64}, sk[4] = {1, 2, S, 64};
  size_t nq = (size_t)(2 * L * 64), nk = (size_t)(2 * S * 64);
  float *q = malloc((nq + 1) * 4), *k = malloc((nk + 1) * 4), *v = malloc((nk + 1) * 4), *o = malloc((nq + 1) * 4);
  uint32_t seed = 5;
  for (size_t i = 0; i < nq; i++) q[i] = frand(&seed);
  for (size_t i = 0; i < nk; i++) k[i] = frand(&seed), v[i] = frand(&seed);
  DLTensor tq = t4(q, sq), tk = t4(k, sk), tv = t4(v, sk), to = t4(o, sq);
  const DLTensor *in[3] = {&tq, &tk, &tv};
  DLTensor *out[1] = {&to};
  cr_assert_eq(kg_run(c, dev, in, 3, NULL, 0, out, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  if (dev == KG_DEVICE_CPU) { /* the math path's kernels (runtime/exec_plans.c): no attention kernel, no fibers */
    cr_expect(c->unfold_built && c->kernels_unfold, "the CPU device: the unfold plan");
    uint32_t attn = 0, red = 0;
    for (uint32_t i = 0; i < c->fusion_unfold.groups.n; i++)
      attn += c->fusion_unfold.groups.v[i].kind == KG_GROUP_ATTN, red += c->fusion_unfold.groups.v[i].kind == KG_GROUP_REDUCE;
    cr_expect_eq(attn, 0u);
    cr_expect_eq(red, 1u, "the softmax's row kernel (the products: kernels of their own, or folded into its loads when small)");
    for (uint32_t i = 0; i < c->runtime.n; i++) cr_expect(!kg_kernel_cooperates(&c->runtime.v[i]->k), "%s runs on fibers", c->runtime.v[i]->k.name);
  }
  double *ref = malloc((nq + 1) * sizeof *ref);
  for (int h = 0; h < 2; h++) reference(q + h * L * 64, k + h * S * 64, v + h * S * 64, L, S, 64, ref + h * L * 64);
  for (size_t i = 0; i < nq; i++) cr_assert(fabs((double)o[i] - ref[i]) <= 1e-5 + 1e-4 * fabs(ref[i]), "L %lld S %lld [%zu]: %g vs %g", (long long)L, (long long)S, i, (double)o[i], ref[i]);
  free(q), free(k), free(v), free(o), free(ref);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

static void run_plain(int64_t L, int64_t S) { run_plain_on(KG_DEVICE_EMU, L, S); }

Test(attention_exec, sizes_across_tiles_and_no_keys) {
  run_plain(70, 45); /* a partial query tile and a partial key block */
  run_plain(1, 1);
  run_plain(5, 0);   /* no keys: the math path's empty product, 0 */
}

/* On the CPU device an attention whose score matrix fits (kg_schedule_unfuse_attention) runs as
 * the math path's kernels (q kᵀ, softmax, p v: matmul.cpu and a row kernel) instead of the fused
 * kernel, whose threads cooperate (fibers there) */
Test(attention_exec, cpu_device_runs_the_math_path, .timeout = 300) {
  run_plain_on(KG_DEVICE_CPU, 70, 45);
  run_plain_on(KG_DEVICE_CPU, 1, 1);
  run_plain_on(KG_DEVICE_CPU, 5, 0);
  cr_expect(kg_schedule_unfuse_attention(KG_CPU_UNFUSED_ATTN_SCORES));
  cr_expect_not(kg_schedule_unfuse_attention(KG_CPU_UNFUSED_ATTN_SCORES + 1), "past 256 MB of scores: the fused kernel");
  cr_expect_not(kg_schedule_unfuse_attention(-1));
}

/* the fused kernel (the emulator) and the math path (the CPU device) alike */
static void masked_row_on(kg_device_kind dev);
Test(attention_exec, fully_masked_row_is_nan, .timeout = 300) {
  masked_row_on(KG_DEVICE_EMU);
  masked_row_on(KG_DEVICE_CPU);
}
static void masked_row_on(kg_device_kind dev) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, "examples/attn_sdpa.json");
  kg_compiled *c;
  /* q, k, v [2,4,33,16], mask m [2,1,33,33]: the kernel attends where m > -6 */
  cr_assert_eq(kg_specialize(m, "attn_sdpa_bool_mask", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t sq[4] = {2, 4, 33, 16}, sm[4] = {2, 1, 33, 33};
  size_t n = 2 * 4 * 33 * 16, nm = 2 * 33 * 33;
  float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4), *mk = malloc(nm * 4), *o = malloc(n * 4);
  uint32_t seed = 9;
  for (size_t i = 0; i < n; i++) q[i] = frand(&seed), k[i] = frand(&seed), v[i] = frand(&seed);
  for (size_t i = 0; i < nm; i++) mk[i] = 0;
  for (int j = 0; j < 33; j++) mk[5 * 33 + j] = -7; /* batch 0, query 5: every key masked */
  DLTensor tq = t4(q, sq), tk = t4(k, sq), tv = t4(v, sq), tm = t4(mk, sm), to = t4(o, sq);
  const DLTensor *in[4] = {&tq, &tk, &tv, &tm};
  DLTensor *out[1] = {&to};
  cr_assert_eq(kg_run(c, dev, in, 4, NULL, 0, out, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int h = 0; h < 4; h++)
    for (int i = 0; i < 33; i++) {
      float x = o[((size_t)h * 33 + (size_t)i) * 16]; /* batch 0 (the residual q is added: NaN stays) */
      if (i == 5) cr_expect(isnan(x), "head %d row 5: %g, not NaN", h, (double)x);
      else cr_expect(!isnan(x), "head %d row %d: NaN", h, i);
    }
  free(q), free(k), free(v), free(mk), free(o);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* ---- the tensor-core tile (passes/lower_attn_mma.c) ---- */

Test(attention_schedule, tensor_core_tile_when_it_applies) {
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = KG_GROUP_ATTN, gf.rank = 4, gf.attn_esz = 4, gf.mm_dtype = KG_F16, gf.mm_k = 64;
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  const kg_target *h = &kg_target_h100, *a = &kg_target_a100;
  kg_target old = kg_target_a100;
  old.arch = 75;
  cr_expect(kg_attn_tensor_cores(&gf, &x, h, 4096, 64));
  cr_expect(kg_attn_tensor_cores(&gf, &x, a, -1, 64), "sizes unknown");
  cr_expect(kg_attn_tensor_cores(&gf, &x, h, 4096, 128));
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, &old, 4096, 64), "no mma.sync before sm_80");
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, h, 4096, 160), "value head dim past 128");
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, h, 5, 64), "5 queries: the SIMT tiles");
  x.force = KG_SCHED_TENSOR_CORES;
  cr_expect(kg_attn_tensor_cores(&gf, &x, h, 5, 64), "forced");
  x.force = KG_SCHED_NO_TENSOR_CORES;
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, h, 4096, 64), "forced off");
  x.force = 0;
  gf.mm_dtype = KG_BF16;
  cr_expect(kg_attn_tensor_cores(&gf, &x, h, 4096, 64));
  gf.mm_dtype = KG_F32;
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, h, 4096, 64), "float32: the SIMT tiles");
  gf.mm_dtype = KG_DT_NONE;
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, h, 4096, 64), "q, k, v of different dtypes");
  gf.mm_dtype = KG_F16, gf.mm_k = 200;
  cr_expect_not(kg_attn_tensor_cores(&gf, &x, h, 4096, 64), "head dim past 128");
  /* the tiles of the largest head dims fit a block's shared memory on both targets */
  cr_expect_leq(kg_attn_mma_smem(128, 128), (uint32_t)a->smem_per_block);
  cr_expect_eq(kg_attn_mma_bk(64, 64), 64);
  cr_expect_eq(kg_attn_mma_bk(128, 64), 32);
}

/* causal float16 attention (examples/attn_tc.json, attn_tc_causal: [2, 3, T, 64]) on the
 * tensor-core tile at sizes across its query tiles and key blocks, on sm_80 and sm_90, against
 * the double-precision reference of the rounded inputs */
static void run_tc_causal(int arch, int64_t T) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1, o.emu_arch = arch;
  kg_context *ctx = kg_context_new(&o);
  kg_module *m = load(ctx, "examples/attn_tc.json");
  int64_t sh[4] = {2, 3, T, 64};
  size_t n = (size_t)(6 * T * 64), heads = 6;
  uint16_t *q = malloc((n + 1) * 2), *k = malloc((n + 1) * 2), *v = malloc((n + 1) * 2), *out = calloc(n + 1, 2);
  float *qf = malloc((n + 1) * 4), *kf = malloc((n + 1) * 4), *vf = malloc((n + 1) * 4);
  uint32_t seed = 11;
  for (size_t i = 0; i < n; i++) {
    q[i] = kg_f32_to_f16(2 * frand(&seed)), k[i] = kg_f32_to_f16(2 * frand(&seed)), v[i] = kg_f32_to_f16(frand(&seed));
    qf[i] = kg_f16_to_f32(q[i]), kf[i] = kg_f16_to_f32(k[i]), vf[i] = kg_f16_to_f32(v[i]);
  }
  DLTensor t[4];
  uint16_t *bufs[4] = {q, k, v, out};
  for (int i = 0; i < 4; i++) {
    memset(&t[i], 0, sizeof t[i]);
    t[i].data = bufs[i], t[i].device.device_type = kDLCPU, t[i].ndim = 4, t[i].dtype = (DLDataType){kDLFloat, 16, 1}, t[i].shape = sh;
  }
  const DLTensor *in[3] = {&t[0], &t[1], &t[2]};
  DLTensor *outs[1] = {&t[3]};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, "attn_tc_causal", in, 3, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, in, 3, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  bool tc = false;
  for (uint32_t i = 0; i < c->runtime.n; i++) tc |= strcmp(c->runtime.v[i]->k.schedule, "attention.tc64") == 0;
  cr_expect(tc || T < 16, "T %lld: the tensor-core tile ran", (long long)T);
  /* the reference: causal softmax(q kᵀ / 8) v per head, in double */
  double *s = malloc((size_t)(T + 1) * sizeof *s);
  int bad = 0;
  for (size_t hd = 0; hd < heads; hd++)
    for (int64_t i = 0; i < T; i++) {
      const float *qi = qf + (hd * (size_t)T + (size_t)i) * 64;
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j <= i; j++) {
        const float *kj = kf + (hd * (size_t)T + (size_t)j) * 64;
        double a = 0;
        for (int e = 0; e < 64; e++) a += (double)qi[e] * kj[e];
        s[j] = a / 8;
        if (s[j] > mx) mx = s[j];
      }
      for (int64_t j = 0; j <= i; j++) sum += s[j] = exp(s[j] - mx);
      for (int d = 0; d < 64; d++) {
        double a = 0;
        for (int64_t j = 0; j <= i; j++) a += s[j] / sum * vf[(hd * (size_t)T + (size_t)j) * 64 + (size_t)d];
        double got = kg_f16_to_f32(out[(hd * (size_t)T + (size_t)i) * 64 + (size_t)d]);
        if (!(fabs(got - a) <= 1e-3 + 2e-3 * fabs(a)) && bad++ < 5)
          cr_log_error("sm_%d T %lld head %zu [%lld, %d]: %g vs %g", arch, (long long)T, hd, (long long)i, d, got, a);
      }
    }
  cr_expect_eq(bad, 0, "sm_%d T %lld: %d outputs off", arch, (long long)T, bad);
  free(s), free(q), free(k), free(v), free(out), free(qf), free(kf), free(vf);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

Test(attention_exec, tensor_core_tile_across_tiles, .timeout = 600) {
  run_tc_causal(90, 130); /* three query tiles, the last of 2 rows; three key blocks */
  run_tc_causal(80, 64);  /* exactly one tile */
  run_tc_causal(80, 17);
  run_tc_causal(90, 1);   /* one query, one key: the forced-off size (SIMT tiles) */
}

/* a row whose every key is masked is NaN on the tensor-core tile too (0 / 0), the others finite */
Test(attention_exec, tensor_core_fully_masked_row_is_nan, .timeout = 300) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, "examples/attn_tc.json");
  kg_compiled *c;
  /* q [2,3,70,40], k [2,3,133,40], v [2,3,133,24], additive mask [70,133], bfloat16 */
  cr_assert_eq(kg_specialize(m, "attn_tc_cross_mask", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t sq[4] = {2, 3, 70, 40}, sk[4] = {2, 3, 133, 40}, sv[4] = {2, 3, 133, 24}, sm[2] = {70, 133}, so[4] = {2, 3, 70, 24};
  size_t nq = 2 * 3 * 70 * 40, nk = 2 * 3 * 133 * 40, nv = 2 * 3 * 133 * 24, nm = 70 * 133, no = 2 * 3 * 70 * 24;
  uint16_t *q = malloc(nq * 2), *k = malloc(nk * 2), *v = malloc(nv * 2), *mk = malloc(nm * 2), *o = malloc(no * 2);
  uint32_t seed = 3;
  for (size_t i = 0; i < nq; i++) q[i] = kg_f32_to_bf16(frand(&seed));
  for (size_t i = 0; i < nk; i++) k[i] = kg_f32_to_bf16(frand(&seed));
  for (size_t i = 0; i < nv; i++) v[i] = kg_f32_to_bf16(frand(&seed));
  for (size_t i = 0; i < nm; i++) mk[i] = kg_f32_to_bf16(0.0f);
  for (int j = 0; j < 133; j++) mk[66 * 133 + j] = kg_f32_to_bf16(-INFINITY); /* query 66 (the second tile) */
  uint16_t *bufs[5] = {q, k, v, mk, o};
  int64_t *shapes[5] = {sq, sk, sv, sm, so};
  DLTensor t[5];
  for (int i = 0; i < 5; i++) {
    memset(&t[i], 0, sizeof t[i]);
    t[i].data = bufs[i], t[i].device.device_type = kDLCPU, t[i].ndim = i == 3 ? 2 : 4, t[i].dtype = (DLDataType){kDLBfloat, 16, 1}, t[i].shape = shapes[i];
  }
  const DLTensor *in[4] = {&t[0], &t[1], &t[2], &t[3]};
  DLTensor *out[1] = {&t[4]};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, in, 4, NULL, 0, out, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int b = 0; b < 6; b++)
    for (int i = 0; i < 70; i++) {
      float x = kg_bf16_to_f32(o[((size_t)b * 70 + (size_t)i) * 24 + 5]);
      if (i == 66) cr_expect(isnan(x), "head %d row 66: %g, not NaN", b, (double)x);
      else cr_expect(!isnan(x), "head %d row %d: NaN", b, i);
    }
  free(q), free(k), free(v), free(mk), free(o);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}
