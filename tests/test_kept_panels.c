/* tests/test_kept_panels.c — CPU products keep their weight's packed panels across a host plan's
 * loop (KPR_KEPT: passes/lower_matmul_cpu.c, runtime/exec_keep.c; kg_gparam.invariant).
 *
 * examples/loop_weight_panels: an Elman RNN written as linears over explicit weights, nn.LSTM over
 * a sequence (its weights captures), and a weight the loop rescales at every step. Facts: which
 * region parameters are invariant (entry inputs and captures read inside the loop, not carried
 * values); on the CPU device the products pack their panels at the first step of a call and read
 * them at every later one (kg_run_stats.panels_kept), with replay and without it, again in the
 * next call; a weight changed in place between two calls (the same buffer, new values) gives the
 * new result, not the old panels' (a fresh context's bits); a weight the loop itself rewrites is
 * never kept. Numbers: every entry against PyTorch on the CPU device at 1, 2 and 9 steps. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_fixture.h"
#include "runtime/api_int.h"

#define DOC "examples/loop_weight_panels"

/* inputs for entry e at T steps: random, in the signature's ranges (kg_npy_random_in) */
typedef struct runin {
  kg_npy in[8];
  DLTensor tv[8];
  const DLTensor *ins[8];
  uint32_t n;
} runin;

static void make_inputs(const kg_compiled *c, int64_t T, runin *R) {
  R->n = c->g.params.n;
  cr_assert(R->n <= 8);
  for (uint32_t p = 0; p < R->n; p++) {
    const kg_gparam *gp = &c->g.params.v[p];
    const kg_gnode *n = &c->g.nodes.v[gp->node];
    int64_t sh[KG_MAX_RANK];
    for (int d = 0; d < n->shape.rank; d++) sh[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : T;
    cr_assert_eq(kg_npy_random_in(&R->in[p], n->dtype, n->shape.rank, sh, 11 + p, false, gp->range), 0);
    kg_npy_dlview(&R->in[p], &R->tv[p]);
    R->ins[p] = &R->tv[p];
  }
}
static void free_inputs(runin *R) {
  for (uint32_t p = 0; p < R->n; p++) kg_npy_free(&R->in[p]);
}

/* one run on the CPU device: its output (malloc'd copy) and stats */
static float *run_cpu(kg_compiled *c, runin *R, kg_run_stats *st, size_t *nout) {
  kg_npy outs[4];
  DLTensor ov[4], *op[4];
  cr_assert_eq(kg_alloc_host_outputs(c, outs, ov, op), KG_OK, "%s", kg_last_error(c->m->ctx));
  cr_assert_eq(kg_run_host(c, KG_DEVICE_CPU, R->ins, (int)R->n, NULL, 0, op, 1), KG_OK, "%s", kg_last_error(c->m->ctx));
  kg_run_stats_get(c, st);
  float *o = malloc(outs[0].nbytes);
  memcpy(o, outs[0].data, outs[0].nbytes);
  *nout = outs[0].nbytes / sizeof(float);
  kg_npy_free(&outs[0]);
  return o;
}

static kg_context *ctx_replay(bool replay) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1, o.no_replay = !replay;
  return kg_context_new(&o);
}

/* entry e of the document, compiled in ctx over its own (symbolic) signature */
static kg_compiled *entry_in(kg_context *ctx, kg_module **m, const char *e) {
  *m = load(ctx, DOC);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(*m, e, NULL, &c), KG_OK, "%s: %s", e, kg_last_error(ctx));
  return c;
}

Test(kept_panels, invariant_region_parameters) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = entry_in(ctx, &m, "elman_linear_loop");
  cr_assert(c->plan && c->n_regions > 0);
  uint32_t inv = 0, loop_ins = 0;
  for (uint32_t r = 0; r < c->n_regions; r++) {
    const kg_region *rg = &c->plan->regions.v[r];
    for (uint32_t i = 0; i < rg->ins.n; i++) {
      const kg_gnode *src = &c->g.nodes.v[rg->ins.v[i]];
      bool entry_input = src->op == KG_OP_INPUT && src->vkind == KG_V_TENSOR;
      bool want = entry_input && rg->depth > 0;
      cr_expect_eq(c->regions[r]->g.params.v[i].invariant, want, "region %u input %u (node %u)", r, i, rg->ins.v[i]);
      inv += want, loop_ins += rg->depth > 0;
    }
  }
  cr_expect_geq(inv, 3, "x, wih, whh (and b) read inside the loop are invariant");
  cr_expect_gt(loop_ins, inv, "h, carried by the loop, is not");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* the panels are packed at the first step of each call and read at every later one: with the
 * replay of the loop's region and without it */
Test(kept_panels, kept_across_the_loop, .timeout = 300) {
  for (int rp = 0; rp < 2; rp++) {
    kg_context *ctx = ctx_replay(rp == 1);
    kg_module *m = load(ctx, DOC);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, "elman_linear_loop", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
    const int64_t T = 9;
    runin R;
    make_inputs(c, T, &R);
    kg_run_stats st;
    size_t n;
    float *a = run_cpu(c, &R, &st, &n);
    /* two products a step (x[t] wihᵀ, h whhᵀ), each packing at step 0 and reading after; with
     * replay, step 0 (h0, the caller's tensor) and the later steps (h, the plan's buffer) may be
     * two records of the region (the replay key), each with its own scratch: packed at step 1 too */
    uint64_t all = 2 * (uint64_t)(T - 1), least = rp ? all - 2 : all;
    cr_expect(st.panels_kept >= least && st.panels_kept <= all, "replay %d: %llu launches read kept panels", rp, (unsigned long long)st.panels_kept);
    float *b = run_cpu(c, &R, &st, &n);
    cr_expect(st.panels_kept >= least && st.panels_kept <= all, "replay %d, the second call: packed again at its first step (%llu)", rp,
              (unsigned long long)st.panels_kept);
    cr_expect(memcmp(a, b, n * sizeof *a) == 0, "replay %d: the same bits", rp);
    free(a), free(b), free_inputs(&R);
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* the caller changes the weights in place between two calls (the same buffers): the second call
 * computes with the new values — the bits of a fresh context's run on them */
Test(kept_panels, weights_changed_between_calls, .timeout = 300) {
  kg_context *ctx = ctx_replay(true);
  kg_module *m;
  kg_compiled *c = entry_in(ctx, &m, "elman_linear_loop");
  runin R;
  make_inputs(c, 6, &R);
  kg_run_stats st;
  size_t n;
  free(run_cpu(c, &R, &st, &n));
  for (int w = 2; w <= 3; w++) { /* wih and whh scaled in place */
    float *v = R.in[w].data;
    for (size_t i = 0; i < R.in[w].nbytes / sizeof *v; i++) v[i] *= -0.75f;
  }
  float *got = run_cpu(c, &R, &st, &n);
  kg_context *ctx2 = ctx_replay(true);
  kg_module *m2;
  kg_compiled *c2 = entry_in(ctx2, &m2, "elman_linear_loop");
  float *want = run_cpu(c2, &R, &st, &n);
  cr_expect(memcmp(got, want, n * sizeof *got) == 0, "the second call used the new weights");
  free(got), free(want), free_inputs(&R);
  kg_compiled_free(c2), kg_module_free(m2), kg_context_free(ctx2);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* a weight the loop rewrites (a carried value) is packed afresh at every step */
Test(kept_panels, carried_weight_is_not_kept, .timeout = 300) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = entry_in(ctx, &m, "weight_rescaled_in_loop");
  runin R;
  make_inputs(c, 7, &R);
  kg_run_stats st;
  size_t n;
  free(run_cpu(c, &R, &st, &n));
  cr_expect_eq(st.panels_kept, 0, "%llu launches read kept panels", (unsigned long long)st.panels_kept);
  uint32_t mm = 0;
  for (uint32_t r = 0; r < c->n_regions; r++)
    for (uint32_t i = 0; i < c->regions[r]->runtime.n; i++) {
      const kg_kernel *k = &c->regions[r]->runtime.v[i]->k;
      mm += strncmp(k->schedule, "matmul.cpu", 10) == 0;
      cr_expect_lt(kg_keep_param(k), 0, "%s: no kept panels", k->name);
    }
  cr_expect_geq(mm, 1, "the product ran as a CPU product kernel");
  free_inputs(&R);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

static void check_steps(const char *entry, long long T, kg_device_kind dev, unsigned seed) {
  kg_context *ctx = ctx_new();
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  const char *names[1] = {"T"};
  co.device = dev, co.seed = seed, co.entry = entry, co.size_names = names, co.size_vals = &T, co.n_sizes = 1;
  char what[200];
  snprintf(what, sizeof what, "%s at T = %lld (device %d)", entry, T, (int)dev);
  expect_matches(ctx, DOC, &co, what);
  kg_context_free(ctx);
}

Test(kept_panels, match_pytorch, .init = setup, .fini = teardown, .timeout = 900) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  const char *entries[] = {"elman_linear_loop", "lstm_module_sequence", "weight_rescaled_in_loop"};
  const long long steps[] = {1, 2, 9};
  for (int e = 0; e < 3; e++)
    for (int t = 0; t < 3; t++) check_steps(entries[e], steps[t], KG_DEVICE_CPU, 3 + (unsigned)t);
  check_steps("elman_linear_loop", 9, KG_DEVICE_EMU, 5); /* the GPU's schedules: nothing kept */
}

/* The kernel text is CUDA too (the CPU schedules' text is what NVRTC would compile): the products
 * keeping their panels (elman_linear_loop's two) and a batch folded into the rows
 * (examples/batch_into_rows) compile for sm_80 and sm_90. They never run on a GPU (the CPU target
 * only), so their register blocks' spills as GPU code are not counted, as for the other CPU
 * product schedules (tests/test_mma_cpu.c). */
Test(kept_panels, kernel_text_is_cuda, .timeout = 300) {
  kg_context *ctx = ctx_new();
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  if (!nv) {
    kg_context_free(ctx);
    cr_skip_test("libnvrtc cannot be loaded");
  }
  kg_module *m;
  kg_compiled *c = entry_in(ctx, &m, "elman_linear_loop");
  runin R;
  make_inputs(c, 3, &R);
  kg_run_stats st;
  size_t n;
  free(run_cpu(c, &R, &st, &n));
  free_inputs(&R);
  kg_module *mb = load(ctx, "examples/batch_into_rows");
  kg_compiled *cb;
  cr_assert_eq(kg_specialize(mb, "two_batch_dims_residual", NULL, &cb), KG_OK, "%s", kg_last_error(ctx));
  make_inputs(cb, 1, &R);
  free(run_cpu(cb, &R, &st, &n));
  free_inputs(&R);
  const kg_kernel *ks[8];
  uint32_t nk = 0, keep = 0, fold = 0;
  for (uint32_t r = 0; r < c->n_regions; r++)
    for (uint32_t i = 0; i < c->regions[r]->runtime.n && nk < 8; i++)
      if (kg_keep_param(&c->regions[r]->runtime.v[i]->k) >= 0) ks[nk++] = &c->regions[r]->runtime.v[i]->k, keep++;
  for (uint32_t i = 0; i < cb->runtime.n && nk < 8; i++)
    if (strstr(cb->runtime.v[i]->k.name, "_fold_cpu")) ks[nk++] = &cb->runtime.v[i]->k, fold++;
  cr_assert(keep == 2 && fold == 1, "%u kernels keeping panels, %u folded", keep, fold);
  kg_strbuf tu;
  kg_sb_init(&tu);
  kg_cuda_emit(ks, nk, "kept", &tu);
  for (int a = 80; a <= 90; a += 10) {
    kg_nvrtc_out o;
    memset(&o, 0, sizeof o);
    kg_diag d;
    kg_diag_init(&d);
    int rc = kg_nvrtc_compile(nv, "kept.cu", kg_sb_cstr(&tu), a, true, NULL, &o, &d);
    char *t = rc ? kg_diag_format(&d) : NULL;
    cr_expect_eq(rc, 0, "sm_%d: %s", a, t ? t : "");
    cr_expect_eq(rc ? 0u : o.n_stats, nk, "sm_%d: a cubin entry per kernel", a);
    for (uint32_t q = 0; !rc && q < o.n_stats; q++)
      cr_log_info("sm_%d %s: %d registers, %d / %d bytes spilled (GPU code it never runs)", a, o.stats[q].name, o.stats[q].regs, o.stats[q].spill_stores,
                  o.stats[q].spill_loads);
    free(t);
    if (!rc) kg_nvrtc_out_free(&o);
    kg_diag_free(&d);
  }
  kg_sb_free(&tu);
  kg_compiled_free(cb), kg_module_free(mb);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}
