/* tests/test_reduce_cpu.c — the CPU target's reductions (passes/lower_reduce_walk.c). A thread
 * per output walks its row alone there, one element after another, so two things differ from the
 * GPU schedules: a mean's paired variances (a training batch norm's biased and unbiased ones)
 * take one walk of squared deviations after the mean's (centred_pair) instead of riding along as
 * Welford's update, a division in a serial chain per element; and a row of several reduced dims
 * (a batch norm's [N, ·, H, W]) is walked nested, the outer dims split once per run of the
 * innermost one instead of a div and a mod per element per dim (row_walk_nested).
 *
 * Structure: the CPU device's run-time row kernel of examples/norm_batch_train holds no Welford
 * state and walks its rows as many times as kg_reduce_passes_variant counts, each walk nested,
 * and compiles under NVRTC for sm_80 and sm_90 without spills;
 * the emulator's (GPU schedules) keeps Welford. Numbers: against PyTorch on the CPU device —
 * rows of 2, odd sizes, long inner runs, float16 inputs, strided inputs, the module with its
 * running statistics written back, and var / std over several dims. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "example_run.h"
#include "nvrtc_util.h"
#include "runtime/api_int.h"

static unsigned count(const char *text, const char *what) {
  unsigned n = 0;
  for (const char *q = text; (q = strstr(q, what)) != NULL; q++) n++;
  return n;
}

/* The row kernel norm_batch_train ran on dev: its text and the walks its group needs. */
static const kg_kvariant *row_kernel(const kg_compiled *c, int *passes) {
  const kg_kvariant *row = NULL;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    if (kv->v.plan != 0 || c->fusion.groups.v[kv->group].kind != KG_GROUP_REDUCE) continue;
    cr_expect(row == NULL, "one row kernel");
    row = kv;
    *passes = kg_reduce_passes_variant(&c->lg, &c->fusion.groups.v[kv->group], &kv->v);
  }
  cr_assert(row != NULL, "no row kernel ran");
  return row;
}

Test(reduce_cpu, batch_norm_statistics_centred_and_nested, .timeout = 300) {
  kg_context *ctx = ctx_in_order(0, 3);
  kg_module *m;
  kg_compiled *c = run_example(ctx, "examples/norm_batch_train", KG_DEVICE_CPU, 3, &m);
  int passes = 0;
  const kg_kvariant *kv = row_kernel(c, &passes);
  cr_expect(kv->v.cpu, "the CPU target's variant");
  /* the mean's walk, the squared deviations' walk, the row outputs' walk */
  cr_expect_eq(passes, 3, "%d walks counted", passes);
  cr_expect_eq(count(kv->cuda, "wmean"), 0, "no Welford state on the CPU target:\n%s", kv->cuda);
  cr_expect_eq(count(kv->cuda, "_m2 = "), 1, "the paired variances share one sum of squared deviations");
  /* [4, 3, 5, 2] reduced over dims 0, 2, 3: each walk an outer loop over N · H, an inner one over W */
  cr_expect_eq(count(kv->cuda, "_nq = "), (unsigned)passes, "each walk nested:\n%s", kv->cuda);
  /* its text is CUDA too: NVRTC compiles it for sm_80 and sm_90, no spills */
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  const kg_kernel *kp = &kv->k;
  if (nv) cr_expect_eq(nvrtc_expect_no_spills(nv, &kp, 1, "bn_cpu_rows"), 2);
  else cr_log_warn("libnvrtc cannot be loaded: the CPU row kernel's CUDA compile not checked");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);

  ctx = ctx_in_order(0, 3); /* the emulator runs the GPU schedules: Welford rides along there */
  c = run_example(ctx, "examples/norm_batch_train", KG_DEVICE_EMU, 3, &m);
  kv = row_kernel(c, &passes);
  cr_expect(!kv->v.cpu);
  cr_expect_gt(count(kv->cuda, "wmean"), 0, "Welford on the GPU schedules");
  cr_expect_eq(count(kv->cuda, "_nq = "), 0);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

static void check_cpu(const char *doc, const char *entry, const char *sig, bool strided) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_in_order(0, 5);
  kg_module *m = load(ctx, doc);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_CPU, co.seed = 11, co.strided_inputs = strided;
  kg_check_result r;
  cr_assert_eq(kg_check_module(ctx, orc, m, &co, &r), KG_OK, "%s %s: %s", entry ? entry : doc, sig ? sig : "", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s %s%s: out%d %s %s: %s", entry ? entry : doc, sig ? sig : "", strided ? " (strided)" : "", k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m), kg_context_free(ctx);
}

Test(reduce_cpu, match_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  static const char *const sigs[] = {
      "float32[2,3,1,1], float32[3], float32[3] in [0.5, 2), float32[3], float32[3]",     /* rows of 2 */
      "float32[3,5,7,9], float32[5], float32[5] in [0.5, 2), float32[5], float32[5]",     /* odd sizes */
      "float32[2,4,3,300], float32[4], float32[4] in [0.5, 2), float32[4], float32[4]",   /* long inner runs */
      "float32[5,2,1,13] in [90, 110), float32[2], float32[2] in [0.5, 2), float32[2], float32[2]", /* a large mean */
  };
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) check_cpu("examples/norm_batch_train", "norm_batch_train", sigs[i], i == 1);
  check_cpu("examples/norm_batch_train", "norm_batch_train_half", NULL, false);
  check_cpu("examples/norm_batch_train", "norm_batch_train_module", NULL, true);
  check_cpu("examples/norm_batch_group", "norm_batch_group", NULL, false);
  check_cpu("examples/norm_welford_offset", NULL, NULL, false); /* rows far from zero: (x + 10000) */
  check_cpu("examples/norm_var_std_dims_array", NULL, NULL, false); /* var / std over two and three dims */
  check_cpu("examples/norm_var_mean_rows", NULL, NULL, true);
}
