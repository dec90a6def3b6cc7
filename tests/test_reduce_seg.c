/* tests/test_reduce_seg.c — issue 26's segments: rows much shorter than a warp share one
 * (passes/lower_reduce.c map_warp with kg_variant.seg: 32 >> seg lanes a row, 8 << seg rows a
 * block, the collective kg_wall over the segment's lanes only — its width and its mask), and
 * the persistent row kernels (softmax, layer_norm) take a warp per row up to
 * KG_WARP_PERSISTENT_MAX.
 *
 * Structure: the run-time kernels of examples/norm_short_rows (schedule names, lanes, rows a
 * block, the grid the launch gets). Numbers: the same example against PyTorch on the emulator
 * in every thread order (the emulator checks every shuffle's mask and width, and that each lane
 * the mask names arrives: the rows past the end of the last block skip the collective), and
 * the softmax edges (-inf rows, NaN) at lengths that take segments. NVRTC: the segment kernels
 * compile for sm_80 and sm_90 without spills. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_util.h"
#include "example_run.h"
#include "runtime/api_int.h"

static kg_context *ctx_order(int order) { return ctx_in_order(order, 11); }

static kg_compiled *run_short_rows(kg_context *ctx, kg_module **mo) { return run_example(ctx, "examples/norm_short_rows", KG_DEVICE_EMU, 31, mo); }

/* The run-time kernels name their segments, and each one's launch takes 256 / lanes rows a block. */
Test(reduce_seg, short_rows_take_segments, .timeout = 300) {
  kg_context *ctx = ctx_order(0);
  kg_module *m;
  kg_compiled *c = run_short_rows(ctx, &m);
  /* by the scheduler's rule (kg_reduce_row_seg: at most two steps a lane) */
  static const char *const want[] = {
      "reduce.rows_persistent.warp.seg2",      /* softmax and layer_norm of rows of 3 (no vectors under 8) */
      "reduce.rows_persistent.warp.seg2.vec4", /* log_softmax, logsumexp and sum of rows of 16 */
      "reduce.rows_persistent.warp.seg2.vec8", /* float16 softmax, rows of 24 */
      "reduce.rows_persistent.warp",           /* layer_norm and var of rows of 64 (a group reading coordinates: no vectors) */
      "reduce.rows_persistent.warp.vec4",      /* softmax of rows of 200: a whole warp */
      "reduce.rows_persistent.warp.seg4",      /* the transposed view's rows of 7 (strided: no vectors) */
      "reduce.warp_per_output",                /* amax over two dims: rows of 84 */
      "reduce.warp_per_output.seg2.vec4",      /* the mean of rows of 12 */
      "reduce.rows_persistent.warp.seg4.vec2", /* int32 argmax and sum of rows of 10 (40-byte rows: pairs) */
  };
  bool seen[sizeof want / sizeof want[0]] = {false};
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    cr_log_info("kernel %u: %s, block %u, %u rows a block", i, kv->k.schedule, kv->k.launch.block[0], kv->k.launch.tile_m);
    bool known = false;
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
      if (!strcmp(kv->k.schedule, want[w])) seen[w] = known = true;
    cr_expect(known, "kernel %u: schedule %s not expected", i, kv->k.schedule);
    cr_expect_eq(kv->k.launch.per_output, KG_LAUNCH_WARP_PER_OUTPUT, "%s", kv->k.schedule);
    cr_expect(kv->v.warp, "%s", kv->k.schedule);
    cr_expect_eq(kv->k.launch.tile_m, kv->k.launch.block[0] / (32u >> kv->v.seg), "%s: rows a block", kv->k.schedule);
  }
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) cr_expect(seen[w], "no kernel %s", want[w]);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* The example against PyTorch in every thread order of the emulator. */
Test(reduce_seg, short_rows_match_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  check_every_order("examples/norm_short_rows", 11, 3);
}

/* The segment kernels through NVRTC for sm_80 and sm_90: they compile (kg_wall's width and
 * mask) and spill nothing. */
Test(reduce_seg, nvrtc_no_spills, .timeout = 300) {
  kg_context *ctx = ctx_order(0);
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  if (!nv) {
    kg_context_free(ctx);
    cr_skip_test("libnvrtc cannot be loaded");
  }
  kg_module *m;
  kg_compiled *c = run_short_rows(ctx, &m);
  const kg_kernel *kps[32];
  uint32_t nk = 0;
  for (uint32_t i = 0; i < c->runtime.n && nk < 32; i++) kps[nk++] = &c->runtime.v[i]->k;
  int checked = nvrtc_expect_no_spills(nv, kps, nk, "seg");
  cr_expect_geq(checked, 2 * (int)nk, "%d kernels checked", checked);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}
