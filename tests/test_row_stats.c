/* tests/test_row_stats.c — a norm's row statistics computed by the product that alone reads them
 * (passes/fuse.c row_stats, passes/lower_rowstats.c, kg_schedule_row_stats).
 *
 * Structure (examples/norm_into_product): RMSNorm before a linear, layer_norm before a float16
 * linear (mean and variance), a variance written by hand (two statistics, the second reading the
 * first), a batched product, two projections of one normalized input (merged, one product with the
 * statistic) — each one kernel where it was two; at 64 rows, at a symbolic batch and where the
 * normalized value is also a result the row kernel stays. The model layers the fusion is for: the
 * Llama decoder layer 7 → 5 kernels, ModestGpt's block likewise. Schedules: the statistics on the
 * SIMT tiles (a static shared table), on mma.sync (dynamic shared memory past the stages, forced
 * and by default for float16 at 24 rows), and on the CPU target (per row, by the thread). Numbers:
 * every entry against PyTorch on the emulator in two thread orders, forced onto tensor cores and
 * off them, and on the CPU device; NVRTC: the kernels spill nothing on sm_80 and sm_90. */
#include <criterion/criterion.h>
#include <string.h>

#include "nvrtc_util.h"
#include "oracle_fixture.h"
#include "runtime/api_int.h"

#define DOC "examples/norm_into_product"

static const struct {
  const char *entry;
  uint32_t kernels, pre; /* kernels; row statistics in the product's kernel */
} cases[] = {
    {"rmsnorm_linear", 1, 1},           {"layernorm_linear_f16", 1, 2},  {"handwritten_variance_bf16", 1, 2},
    {"batched_norm_matmul", 1, 1},      {"rmsnorm_two_projections", 2, 1}, {"rmsnorm_linear_64_rows", 2, 0},
    {"norm_also_a_result", 2, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static uint32_t pre_of(const kg_compiled *c) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->fusion.groups.n; i++) {
    const kg_group *g = &c->fusion.groups.v[i];
    if (g->pre.n) cr_expect_eq(g->kind, KG_GROUP_MATMUL, "row statistics in a group that is not a product");
    n += g->pre.n;
  }
  return n;
}

Test(row_stats, fusion) {
  kg_context *ctx = ctx_forced(0);
  for (int e = 0; e < NCASES; e++) {
    kg_module *m = load(ctx, DOC);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, cases[e].entry, NULL, &c), KG_OK, "%s: %s", cases[e].entry, kg_last_error(ctx));
    cr_expect_eq(kg_compiled_n_kernels(c), cases[e].kernels, "%s: %u kernels", cases[e].entry, kg_compiled_n_kernels(c));
    cr_expect_eq(pre_of(c), cases[e].pre, "%s: %u row statistics in products", cases[e].entry, pre_of(c));
    kg_compiled_free(c), kg_module_free(m);
  }
  /* rows unknown at compile time: the row kernel stays */
  kg_module *m = load(ctx, DOC);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "layernorm_linear_f16", "float16[B,320], float16[320], float16[320], float16[128,320], float16[128]", &c), KG_OK, "%s",
               kg_last_error(ctx));
  cr_expect_eq(kg_compiled_n_kernels(c), 2);
  cr_expect_eq(pre_of(c), 0);
  kg_compiled_free(c), kg_module_free(m);
  kg_context_free(ctx);
}

/* The transformer layers: each norm's statistics in the next product (q, k, v merged; gate and up
 * merged on Llama's; the MLP's first linear on ModestGpt's). */
Test(row_stats, model_layers) {
  kg_context *ctx = ctx_forced(0);
  const char *docs[] = {"examples/models/llama", "examples/models/modestgpt"};
  const char *entries[] = {"llama_decoder_layer", "transformer_block"};
  const uint32_t pre[] = {2, 4}; /* Llama: two RMSNorm means; ModestGpt: two LayerNorms' means and variances */
  for (int d = 0; d < 2; d++) {
    kg_module *m = load(ctx, docs[d]);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, entries[d], NULL, &c), KG_OK, "%s", kg_last_error(ctx));
    cr_expect_eq(kg_compiled_n_kernels(c), 5, "%s: %u kernels", entries[d], kg_compiled_n_kernels(c));
    cr_expect_eq(pre_of(c), pre[d], "%s: %u row statistics", entries[d], pre_of(c));
    uint32_t red = 0;
    for (uint32_t i = 0; i < c->fusion.groups.n; i++) red += c->fusion.groups.v[i].kind == KG_GROUP_REDUCE;
    cr_expect_eq(red, 0, "%s: no row kernel left", entries[d]);
    kg_compiled_free(c), kg_module_free(m);
  }
  kg_context_free(ctx);
}

/* every entry against PyTorch: the emulator in thread orders 0 and 1 (default schedules), forced
 * onto tensor cores (6) and off them (7), and the CPU device */
static void check_sig(const char *entry, const char *sig, kg_device_kind dev, int order, int force, unsigned seed) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1, o.force_variant = force, o.emu_thread_order = order, o.emu_seed = 7;
  kg_context *ctx = kg_context_new(&o);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.device = dev, co.seed = seed, co.entry = entry, co.sig = sig;
  char what[200];
  snprintf(what, sizeof what, "%s (device %d, order %d, forced %d)", entry, (int)dev, order, force);
  expect_matches(ctx, DOC, &co, what);
  kg_context_free(ctx);
}

static void check_entry(const char *entry, kg_device_kind dev, int order, int force, unsigned seed) { check_sig(entry, NULL, dev, order, force, seed); }

Test(row_stats, match_pytorch, .init = setup, .fini = teardown, .timeout = 900) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  for (int e = 0; e < NCASES; e++) {
    if (!cases[e].pre) continue;
    check_entry(cases[e].entry, KG_DEVICE_EMU, 0, 0, 3);
    check_entry(cases[e].entry, KG_DEVICE_EMU, 1, 0, 4);
    check_entry(cases[e].entry, KG_DEVICE_EMU, 0, KG_FORCE_TENSOR_CORES, 5);
    check_entry(cases[e].entry, KG_DEVICE_EMU, 2, KG_FORCE_NO_TENSOR_CORES, 6);
    check_entry(cases[e].entry, KG_DEVICE_CPU, 0, 0, 3); /* the emulator's first inputs */
  }
  /* one row (a decode step at batch 1: M a static 1, the row coordinate none), and a batch of
   * single rows: the tiles and the CPU's register blocks read row 0's statistics */
  const char *one[] = {"float32[1,1,320], float32[320], float32[384,320]", "float32[3,1,320], float32[320], float32[384,320]"};
  for (int i = 0; i < 2; i++) {
    check_sig("rmsnorm_linear", one[i], KG_DEVICE_EMU, 0, 0, 8);
    check_sig("rmsnorm_linear", one[i], KG_DEVICE_EMU, 1, KG_FORCE_TENSOR_CORES, 9);
    check_sig("rmsnorm_linear", one[i], KG_DEVICE_CPU, 0, 0, 10);
  }
}

/* which tiers computed the statistics: the float16 layer_norm on mma.sync by default (24 rows),
 * the float32 RMSNorm on the SIMT tiles by default (14 rows) and on mma.sync when forced */
static const kg_kernel *product_kernel(const kg_compiled *c) {
  for (uint32_t i = 0; i < c->fusion.groups.n; i++)
    if (c->fusion.groups.v[i].pre.n) return &c->kernels[i];
  return NULL;
}

Test(row_stats, tiers) {
  struct { const char *entry; int force; const char *sched; bool dyn; } t[] = {
      {"layernorm_linear_f16", 0, "matmul.tc", true},
      {"rmsnorm_linear", 0, "matmul.t", false},
      {"rmsnorm_linear", KG_FORCE_TENSOR_CORES, "matmul.tc", true},
      {"handwritten_variance_bf16", KG_FORCE_TENSOR_CORES, "matmul.tc", true},
  };
  for (int i = 0; i < 4; i++) {
    kg_context *ctx = ctx_forced(t[i].force);
    kg_module *m = load(ctx, DOC);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, t[i].entry, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
    const kg_kernel *k = product_kernel(c);
    cr_assert_not_null(k, "%s: no product with row statistics", t[i].entry);
    cr_expect(strncmp(k->schedule, t[i].sched, strlen(t[i].sched)) == 0, "%s: schedule %s", t[i].entry, k->schedule);
    bool table = false;
    for (uint32_t s = 0; s < k->shared.n; s++) table |= strcmp(k->shared.v[s].name, "rs") == 0;
    cr_expect_eq(table, !t[i].dyn, "%s: the statistics' table %s", t[i].entry, t[i].dyn ? "in dynamic shared memory" : "a shared array");
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* NVRTC for sm_80 and sm_90: every entry's kernels, by default and forced onto tensor cores */
Test(row_stats, nvrtc_no_spills, .timeout = 300) {
  for (int f = 0; f < 2; f++) {
    kg_context *ctx = ctx_forced(f ? KG_FORCE_TENSOR_CORES : 0);
    kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
    if (!nv) {
      kg_context_free(ctx);
      cr_skip_test("libnvrtc cannot be loaded");
    }
    for (int e = 0; e < NCASES; e++) {
      if (!cases[e].pre) continue;
      kg_module *m = load(ctx, DOC);
      kg_compiled *c;
      cr_assert_eq(kg_specialize(m, cases[e].entry, NULL, &c), KG_OK, "%s: %s", cases[e].entry, kg_last_error(ctx));
      const kg_kernel *kps[16];
      uint32_t nk = 0;
      for (uint32_t i = 0; i < c->fusion.groups.n && nk < 16; i++) kps[nk++] = &c->kernels[i];
      cr_expect_gt(nvrtc_expect_no_spills(nv, kps, nk, cases[e].entry), 0);
      kg_compiled_free(c), kg_module_free(m);
    }
    kg_context_free(ctx);
  }
}
