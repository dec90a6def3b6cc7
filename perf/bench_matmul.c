/* perf/bench_matmul.c — what kgen's matrix-product kernels cost, per product, from the
 * compiled program alone (no GPU needed): the numbers the H100 runs (perf/gpu) are read
 * against.
 *
 *   bench_matmul [--examples DIR]      (the examples named mm_* and linear_*)
 *
 * One row per product (a MATMUL group) of every example, symbolic sizes concretized as
 * `kgen check` does (symbol i → 13 + 4·i), every product tiled (force_variant 5: the small
 * ones would fold into their readers, passes/fold_products.c):
 *   - batch × M × N × K, the tile the scheduler picks for those sizes, shared memory per block;
 *   - FLOPs = 2·batch·M·N·K;
 *   - bytes from memory (perf_common.h: kp_mm_group, L2 serving the tile re-reads of operands
 *     that fit in half of it): ours, the minimum, and per entry eager PyTorch (kp_eager_cost:
 *     per op of the typed program, views free: a lower bound);
 *   - kernels per entry: ours vs eager (one per op);
 *   - the time both predict at H100 numbers (3.35 TB/s; ours 67 TFLOP/s fp32 / 34 fp64
 *     without tensor cores, eager per kp_eager_cost: the max of the two bounds).
 * A benchmark, not a test: exit 1 only when an example fails to compile. docs/perf.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_common.h"

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples";
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
  static const char *const prefixes[] = {"mm_", "linear_", NULL};
  char **names;
  int nn = kp_list_json(dir, prefixes, &names);
  if (nn < 0) { fprintf(stderr, "bench_matmul: cannot open %s\n", dir); return 1; }
  kg_options o;
  memset(&o, 0, sizeof o);
  o.force_variant = KG_FORCE_TILED; /* the tiled kernel class: the small examples' products would
                                       otherwise fold into their readers (docs/perf.md) */
  kg_context *ctx = kg_context_new(&o);
  int fails = 0;
  printf("| example | product | batch x M x N x K | tile | smem/block | MFLOP | ours KB | min KB | ours / min | kernels ours / eager | eager KB (entry) | H100 us (ours: product / eager: entry) |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nn; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t len;
    char *doc = kg_read_file(path, &len);
    kg_module *m = NULL;
    kg_compiled *c = NULL;
    if (!doc || kg_module_load(ctx, doc, len, &m) != KG_OK || kg_specialize(m, NULL, NULL, &c) != KG_OK) {
      fprintf(stderr, "bench_matmul: %s: %s\n", names[i], kg_last_error(ctx));
      fails++;
      free(doc);
      if (m) kg_module_free(m);
      continue;
    }
    free(doc);
    if (c->plan) { kg_compiled_free(c), kg_module_free(m); continue; }
    kp_eager e;
    kp_eager_cost(&c->g, &e);
    for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
      if (c->fusion.groups.v[gi].kind != KG_GROUP_MATMUL) continue;
      kp_mm mm;
      kp_mm_group(c, gi, &mm);
      const kg_gnode *P = &c->lg.nodes.v[c->fusion.groups.v[gi].red];
      double peak = mm.cdtype == KG_F64 ? KP_H100_FP64 : KP_H100_FP32;
      double us = ((double)mm.ours_b / KP_H100_BW > mm.flop / peak ? (double)mm.ours_b / KP_H100_BW : mm.flop / peak) * 1e6;
      printf("| %.*s | %%%u %s | %lld x %lld x %lld x %lld | %s | %u B | %.3f | %.1f | %.1f | %.2f | %u / %u | %.1f | %.4f / %.4f |\n", (int)(strlen(names[i]) - 5), names[i],
             c->fusion.groups.v[gi].red, kg_dtype_name((kg_dtype)P->dtype), (long long)mm.batch, (long long)mm.m, (long long)mm.n, (long long)mm.k,
             kg_mm_tile_get(mm.tile)->name, mm.smem, mm.flop / 1e6, mm.ours_b / 1024.0, mm.min_b / 1024.0,
             mm.min_b ? (double)mm.ours_b / (double)mm.min_b : 0.0, kg_compiled_n_kernels(c), e.kernels, e.bytes / 1024.0, us, e.us);
    }
    kg_compiled_free(c), kg_module_free(m);
  }
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(ctx);
  return fails ? 1 : 0;
}
