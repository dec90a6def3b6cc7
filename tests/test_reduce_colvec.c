/* tests/test_reduce_colvec.c — issue 26's 128-bit loads in the column schedules: a lone
 * single-pass reduction over columns (the innermost dim kept) gives a thread 2, 4 or 8
 * neighbouring outputs, each row's elements one vector load per source varying along them
 * (passes/lower_reduce_walk.c kg_lw_reduce_columns), in the column schedule and in a split's
 * partial kernel over columns.
 *
 * Structure: the scheduler's choice (the innermost size a multiple of the vector, aligned and
 * contiguous sources, a lone simple reduction), the run-time kernels of
 * examples/red_columns_vec (schedule names, vector loads in the CUDA C, outputs a thread, the
 * grid the null device is given). Numbers: the example against PyTorch on the emulator in every
 * thread order. NVRTC: the kernels compile for sm_80 and sm_90 without spills. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_util.h"
#include "example_run.h"
#include "runtime/api_int.h"

/* The scheduler: columns of float32 aligned to 16 bytes take 4 a thread where the innermost
 * size allows; 6 columns 2; 5 none; not for a group of two reductions, nor with coordinates. */
Test(reduce_colvec, the_scheduler_picks_the_vector) {
  struct { int64_t r, d; uint32_t n_reds; bool col_vec, coords; uint64_t align; int vec; const char *why; } cases[] = {
      {40, 8200, 1, true, false, 64, 4, "8200 columns, 16-byte aligned rows: 4 a thread"},
      {30, 6, 1, true, false, 64, 2, "6 columns: 2 (rows 24 bytes apart)"},
      {10, 5, 1, true, false, 64, 1, "5 columns: none"},
      {40, 8200, 1, true, false, 8, 2, "8-byte aligned: 2"},
      {40, 8200, 2, false, false, 64, 1, "two reductions in the group: none"},
      {40, 8200, 1, true, true, 64, 1, "coordinates: none"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kg_group_facts gf;
    memset(&gf, 0, sizeof gf);
    gf.kind = KG_GROUP_REDUCE, gf.rank = 2, gf.red_mask = 1, gf.n_reds = cases[i].n_reds, gf.max_vec = 4;
    gf.splittable = gf.any_splittable = cases[i].n_reds == 1, gf.col_vec = cases[i].col_vec, gf.coords = cases[i].coords;
    kg_sched_facts x;
    memset(&x, 0, sizeof x);
    x.runtime = true, x.space[0] = cases[i].r, x.space[1] = cases[i].d, x.contiguous = true, x.align = cases[i].align, x.max_elem = 4;
    uint64_t osp = 1;
    while (osp < 64 && cases[i].d % (int64_t)(osp * 2) == 0) osp *= 2;
    kg_row_operand op = {4, true, 1, cases[i].align, osp};
    x.row = &op, x.n_row = 1;
    kg_schedule s = kg_schedule_choose(&gf, &x, &kg_target_h100);
    cr_expect_eq(s.v.layout, KG_LAYOUT_LINEAR, "%s: the column schedule", cases[i].why);
    cr_expect_eq(s.v.vec, cases[i].vec, "%s: vec %u", cases[i].why, s.v.vec);
  }
}

static kg_compiled *run_columns(kg_context *ctx, kg_device_kind dev, kg_module **mo) {
  return run_example(ctx, "examples/red_columns_vec", dev, 57, mo);
}

/* The run-time kernels: which take vectors, how many outputs a thread, and vector loads in their CUDA C. */
Test(reduce_colvec, kernels_take_vectors, .timeout = 300) {
  kg_context *ctx = ctx_in_order(0, 3);
  kg_module *m;
  kg_compiled *c = run_columns(ctx, KG_DEVICE_EMU, &m);
  static const struct { const char *sched; uint32_t per_thread; } want[] = {
      {"reduce.thread_per_output.vec4", 4},            /* the sum over 8200 columns; the max with its weight and epilogue; int32 */
      {"reduce.thread_per_output.vec8", 8},            /* float16 over 16 columns */
      {"reduce.split_partial.columns.vec4", 4},        /* 5003 rows of 8 columns: the split's partial */
      {"reduce.split_finish", 1},
      {"reduce.thread_per_output.vec2", 2},            /* the product over 6 columns */
      {"reduce.thread_per_output", 1},                 /* the mean over 5 columns */
  };
  bool seen[sizeof want / sizeof want[0]] = {false};
  uint32_t vec4 = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    cr_log_info("kernel %u: %s, %u outputs a thread", i, kv->k.schedule, kv->k.launch.elems_per_thread);
    bool known = false;
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
      if (!strcmp(kv->k.schedule, want[w].sched)) {
        seen[w] = known = true;
        cr_expect_eq(kv->k.launch.elems_per_thread, want[w].per_thread, "%s", kv->k.schedule);
      }
    cr_expect(known, "kernel %u: schedule %s not expected", i, kv->k.schedule);
    vec4 += !strcmp(kv->k.schedule, "reduce.thread_per_output.vec4");
    if (kv->k.launch.elems_per_thread > 1) { /* its CUDA C loads vectors */
      kg_strbuf tu;
      kg_sb_init(&tu);
      const kg_kernel *kp = &kv->k;
      kg_cuda_emit(&kp, 1, "colvec", &tu);
      const char *vt = kv->k.launch.elems_per_thread * 4 == 16 || (kv->k.launch.elems_per_thread == 8) ? "uint4" : "uint2";
      cr_expect(strstr(kg_sb_cstr(&tu), vt) != NULL, "%s: no %s loads", kv->k.schedule, vt);
      kg_sb_free(&tu);
    }
  }
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) cr_expect(seen[w], "no kernel %s", want[w].sched);
  cr_expect_eq(vec4, 3u, "the sum, the max with its epilogue and the int32 sum: 4 a thread");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* The grid: a thread per vec outputs — the null device records what each launch is given. */
Test(reduce_colvec, grid_counts_a_thread_per_vector, .timeout = 300) {
  kg_context *ctx = ctx_in_order(0, 3);
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = kg_ctx_device(ctx, KG_DEVICE_NULL, &d);
  cr_assert(dv != NULL);
  kg_dev_null_config(dv, true, false);
  kg_dev_null_log_clear(dv);
  kg_module *m;
  kg_compiled *c = run_columns(ctx, KG_DEVICE_NULL, &m);
  uint32_t nl = 0, checked = 0;
  const kg_null_launch *log = kg_dev_null_log(dv, &nl);
  for (uint32_t i = 0; i < nl; i++) {
    const kg_kvariant *kv = NULL;
    for (uint32_t j = 0; j < c->runtime.n && !kv; j++)
      if (!strcmp(c->runtime.v[j]->k.name, log[i].kernel)) kv = c->runtime.v[j];
    cr_assert(kv != NULL, "launch %u: kernel %s", i, log[i].kernel);
    if (kv->k.launch.per_output != KG_LAUNCH_THREAD_PER_OUTPUT) continue;
    /* the outputs: the group's kept elements (the space's numel over the reduced extent) */
    kg_plan_view pv = kg_compiled_plan(c, kv->v.plan);
    const kg_group *G = &pv.F->groups.v[kv->group];
    int64_t outs = 1;
    for (int dd = 0; dd < G->space.rank; dd++)
      if (!((pv.lg->nodes.v[G->red].ia[0] >> dd) & 1)) outs *= G->space.d[dd].v;
    uint64_t per = (uint64_t)log[i].block[0] * kv->k.launch.elems_per_thread, want = ((uint64_t)outs + per - 1) / per;
    if (kv->v.split == KG_SPLIT_PARTIAL) /* chunks × blocks a chunk */
      cr_expect(log[i].grid[0] > want && log[i].grid[0] % want == 0, "%s: grid %u, blocks a chunk %llu", kv->k.schedule, log[i].grid[0],
                (unsigned long long)want);
    else
      cr_expect_eq(log[i].grid[0], want, "%s: grid %u over %lld outputs, %u a thread", kv->k.schedule, log[i].grid[0], (long long)outs,
                   kv->k.launch.elems_per_thread);
    checked += kv->k.launch.elems_per_thread > 1;
  }
  cr_expect_geq(checked, 5u, "%u vector launches checked", checked);
  kg_dev_null_log_clear(dv);
  kg_dev_null_config(dv, false, true);
  kg_diag_free(&d);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* Against PyTorch in every thread order of the emulator. */
Test(reduce_colvec, match_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  check_every_order("examples/red_columns_vec", 19, 5);
}

/* NVRTC for sm_80 and sm_90: the vector kernels compile and spill nothing. */
Test(reduce_colvec, nvrtc_no_spills, .timeout = 300) {
  kg_context *ctx = ctx_in_order(0, 3);
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  if (!nv) {
    kg_context_free(ctx);
    cr_skip_test("libnvrtc cannot be loaded");
  }
  kg_module *m;
  kg_compiled *c = run_columns(ctx, KG_DEVICE_EMU, &m);
  const kg_kernel *kps[32];
  uint32_t nk = 0;
  for (uint32_t i = 0; i < c->runtime.n && nk < 32; i++) kps[nk++] = &c->runtime.v[i]->k;
  int checked = nvrtc_expect_no_spills(nv, kps, nk, "colvec");
  cr_expect_geq(checked, 2 * (int)nk, "%d kernels checked", checked);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}
