/* tests/test_reduce_online.c — online softmax (issue 26): a max's sum of exp rides along in
 * the max's walk of the row kernel (passes/lower_reduce_walk.c), so softmax, log_softmax,
 * logsumexp and cross_entropy read the row twice, not three times; the forced-strided
 * variants keep the two walks (kg_variant.no_online) and stay right too.
 *
 * Structure: the walks over the row (the kernel IR's top-level loops and kg_reduce_passes),
 * the variant the scheduler names. Numbers: against PyTorch (the oracle) at the edges — rows
 * of 0, 1, 2, 3, odd and vector-loaded lengths, rows holding -inf, whole rows of -inf
 * (softmax NaN, logsumexp -inf), +inf (NaN rows) and NaN — in every float dtype, on the
 * emulator's GPU schedules (every thread order), the CPU device's column schedule and under
 * the forced-strided variant. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_fixture.h"
#include "runtime/api_int.h"

static kg_context *ctx_with(int force, int order) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.force_variant = force;
  o.emu_thread_order = order;
  o.emu_seed = 5;
  return kg_context_new(&o);
}

/* top-level loops of a kernel: its walks over the row (one loop each without vectors) */
static int walks(const kg_kernel *k) {
  int loops = 0;
  for (uint32_t st = k->body; st != KG_NONE; st = k->stmts.v[st].next) loops += k->stmts.v[st].kind == KS_FOR;
  return loops;
}

/* The compiled kernel of each program walks its rows twice (max and sum of exp online, then
 * the write); kg_reduce_passes says so, and says 3 under the variant that walks them apart. */
Test(reduce_online, softmax_family_walks_the_row_twice) {
  struct { const char *doc, *entry, *sig; int walks, apart; } cases[] = {
      {"norm_softmax_method", NULL, "float32[67,4097], float32[2000,7], float64[457,67]", 2, 3},
      {"norm_log_softmax_method", NULL, NULL, 2, 3},
      {"norm_prim_softmax", NULL, NULL, 2, 3},     /* written from primitives: exp(x - amax) / sum */
      {"norm_prim_logsumexp", NULL, NULL, 1, 2},   /* m' + log(sum(exp(x - m'))), m' = isinf(m) ? 0 : m: no row output */
      {"norm_softmax_edges", NULL, NULL, 2, 3},    /* several softmaxes of different inputs in one row kernel */
      {"loss_cross_entropy", "loss_ce_mean", NULL, 1, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kg_context *ctx = ctx_with(0, 0);
    char path[256];
    snprintf(path, sizeof path, "examples/%s", cases[i].doc);
    kg_module *m = load(ctx, path);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, cases[i].entry, cases[i].sig, &c), KG_OK, "%s: %s", cases[i].doc, kg_last_error(ctx));
    const kg_group *grp = &c->fusion.groups.v[0];
    cr_assert_eq(grp->kind, KG_GROUP_REDUCE, "%s", cases[i].doc);
    /* the first kernel is the row kernel; a group of several softmaxes walks once per max */
    int n_max = 0;
    for (uint32_t r = 0; r < grp->reds.n; r++) n_max += c->lg.nodes.v[grp->reds.v[r]].op == KG_OP_RAMAX;
    int want = cases[i].walks + (n_max - 1), apart = cases[i].apart + 2 * (n_max - 1);
    cr_expect_eq(walks(&c->kernels[0]), want, "%s: %d walks over the row, want %d", cases[i].doc, walks(&c->kernels[0]), want);
    cr_expect_eq(kg_reduce_passes(&c->lg, grp), want, "%s", cases[i].doc);
    kg_variant v = c->variants[0];
    cr_expect_eq(v.no_online, 0, "%s: the scheduler's default is online", cases[i].doc);
    v.no_online = 1;
    cr_expect_eq(kg_reduce_passes_variant(&c->lg, grp, &v), apart, "%s: %d walks apart", cases[i].doc, kg_reduce_passes_variant(&c->lg, grp, &v));
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* The forced-strided variant (the fuzzer's variants 1 and 2) runs the two-walk scheme: its
 * run-time kernel walks the row three times, the default two (128-bit loads: a vector loop
 * and a tail per walk); both write the same softmax, within a few ulps. */
Test(reduce_online, forced_strided_keeps_the_two_walks) {
  int64_t R = 9, D = 300;
  float *x = malloc(R * D * sizeof *x), *out[2];
  for (int64_t i = 0; i < R * D; i++) x[i] = (float)((i * 7919) % 2003) / 100.0f - 10.0f;
  int64_t shape[2] = {R, D};
  for (int f = 0; f < 2; f++) {
    kg_context *ctx = ctx_with(f ? KG_FORCE_STRIDED : 0, 2);
    kg_module *m = load(ctx, "examples/norm_prim_softmax");
    out[f] = calloc((size_t)(R * D), sizeof(float));
    DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0}, to = {out[f], {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    const DLTensor *ins[1] = {&tx};
    DLTensor *outs[1] = {&to};
    kg_compiled *c;
    cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
    cr_assert_eq(c->runtime.n, 1u);
    const kg_kvariant *kv = c->runtime.v[0];
    cr_expect_eq(kv->v.no_online, f, "variant %d", f);
    cr_expect_str_eq(kv->k.schedule, f ? "reduce.rows_persistent" : "reduce.rows_persistent.vec4");
    cr_expect_eq(walks(&kv->k), f ? 3 : 2 * 2, "variant %d: %d loops", f, walks(&kv->k));
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
  for (int64_t i = 0; i < R * D; i++)
    if (!(fabsf(out[0][i] - out[1][i]) <= 4e-7f * out[1][i] + 1e-12f)) {
      cr_expect(false, "[%lld]: online %g, two walks %g", (long long)i, out[0][i], out[1][i]);
      break;
    }
  free(x), free(out[0]), free(out[1]);
}

/* examples/norm_softmax_edges against PyTorch at signature sig, on device dev, forced variant force. */
static void edges_at(const char *sig, kg_device_kind dev, int force, int order) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_with(force, order);
  kg_module *m = load(ctx, "examples/norm_softmax_edges");
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.sig = sig, co.device = dev, co.seed = 7;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s: %s", sig, kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s (device %d, variant %d): out%d %s %s: %s", sig, (int)dev, force, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m), kg_context_free(ctx);
}

/* -inf, whole -inf rows, +inf, NaN: rows of 1, 2 and 3 (many whole -inf rows), 0 (softmax
 * empty, logsumexp -inf), odd and vector-loaded rows, every float dtype. */
Test(reduce_online, edges_match_pytorch, .init = setup, .fini = teardown, .timeout = 400) {
  const char *sigs[] = {"float32[64,3]", "float32[64,1]", "float32[40,2]", "float32[5,0]", "float32[7,301] in [-0.2, 3)",
                        "float16[64,3]", "bfloat16[40,2]", "float64[64,3]", "float64[6,1031] in [-0.1, 4)"};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) edges_at(sigs[i], KG_DEVICE_EMU, 0, (int)i % 3);
  edges_at("float32[40,2]", KG_DEVICE_CPU, 0, 0);          /* the CPU device's column schedule */
  edges_at("float32[64,3]", KG_DEVICE_EMU, KG_FORCE_STRIDED, 0); /* the two walks */
  edges_at("float16[9,301] in [-0.2, 3)", KG_DEVICE_EMU, KG_FORCE_STRIDED, 1);
}
