/* perf/bench_models.c — what kgen makes of real model forwards, from the compiled programs
 * alone (no GPU needed): the numbers a GPU run (perf/gpu) is read against.
 *
 *   bench_models [--examples DIR] [--kernels] [--markdown]
 *
 * For every entry of every DIR/NAME.json (default examples/models), symbolic sizes concretized
 * as `kgen check` does (symbol i → 13 + 4·i), one row:
 *   - kernels: ours (fused groups launched) against eager PyTorch op by op (one kernel per
 *     tensor op of the typed program; views free: perf_common.h);
 *   - bytes moved: the minimum (inputs that reach an output and the outputs, once), ours
 *     (per kernel, each buffer it reads or writes once; products by their tile re-reads), eager;
 *   - FLOPs of the matrix products (2·batch·M·N·K), the largest shared memory per block of
 *     our product kernels;
 *   - the time both predict on an H100: per kernel max(bytes / 3.35 TB/s, FLOPs / peak),
 *     summed — ours on CUDA cores (67 TFLOP/s fp32, 34 fp64: no tensor-core schedule yet),
 *     eager's products on cuBLAS (tensor cores for float16/bfloat16/float64, CUDA cores for
 *     float32 as PyTorch's default) — and the launch floor a real run adds (kernels × 2 µs,
 *     what a launch costs on the host; shown apart, it is not bandwidth).
 * --kernels adds a line per kernel of ours (kind, bytes, FLOPs, µs). A benchmark, not a test:
 * exit 1 only when a forward fails to compile. docs/perf.md discusses the figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_common.h"

#define LAUNCH_US 2.0

typedef struct totals {
  int rows;
  uint32_t ours_k, eager_k;
  int64_t min_b, ours_b, eager_b;
  double ours_us, eager_us;
} totals;

static const char *kind_name(uint8_t k) {
  switch (k) {
  case KG_GROUP_POINTWISE: return "pointwise";
  case KG_GROUP_REDUCE: return "rows";
  case KG_GROUP_SCAN: return "scan";
  case KG_GROUP_MATMUL: return "product";
  default: return "?";
  }
}

static double ours_peak(uint8_t cdtype) { return cdtype == KG_F64 ? KP_H100_FP64 : KP_H100_FP32; }

/* One forward: its row (and kernel lines). */
static void bench_entry(const char *file, const char *entry, kg_compiled *c, bool kernels, bool md, totals *t) {
  kp_eager e;
  kp_eager_cost(&c->g, &e);
  if (c->plan) { /* host control flow: kernels run per trip; bytes depend on trip counts */
    printf(md ? "| %s | %s | %u / %u | host plan: bytes depend on trip counts |\n" : "%-16s %-32s %4u / %-4u host plan\n", file, entry,
           kg_compiled_n_kernels(c), e.kernels);
    return;
  }
  int64_t ours_b = 0;
  double flop = 0, ours_us = 0;
  uint32_t smem = 0;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    int64_t b;
    double f;
    kp_kernel_cost(c, gi, &b, &f);
    uint8_t cd = KG_F32;
    if (c->fusion.groups.v[gi].kind == KG_GROUP_MATMUL) {
      kp_mm mm;
      kp_mm_group(c, gi, &mm);
      cd = mm.cdtype;
      if (mm.smem > smem) smem = mm.smem;
    }
    double us = ((double)b / KP_H100_BW > f / ours_peak(cd) ? (double)b / KP_H100_BW : f / ours_peak(cd)) * 1e6;
    ours_b += b, flop += f, ours_us += us;
    if (kernels)
      printf(md ? "|  | kernel %u: %s | | | %lld B | | %.3f MFLOP | | %.3f µs |\n" : "    kernel %-3u %-10s %12lld B %10.3f MFLOP %9.3f us\n", gi,
             kind_name(c->fusion.groups.v[gi].kind), (long long)b, f / 1e6, us);
  }
  int64_t min_b = kp_min_bytes(&c->g);
  uint32_t nk = kg_compiled_n_kernels(c);
  if (md)
    printf("| %s | %s | %u / %u | %.1f / %.1f / %.1f | %.2f | %.3f | %u | %.2f / %.2f | %.0f / %.0f |\n", file, entry, nk, e.kernels,
           min_b / 1024.0, ours_b / 1024.0, e.bytes / 1024.0, min_b ? (double)ours_b / (double)min_b : 0.0, flop / 1e9, smem, ours_us,
           e.us, nk * LAUNCH_US, e.kernels * LAUNCH_US);
  else
    printf("%-16s %-32s %4u / %-4u %9.1f %9.1f %9.1f %6.2f %9.3f %6u %8.2f %8.2f %6.0f %6.0f\n", file, entry, nk, e.kernels, min_b / 1024.0,
           ours_b / 1024.0, e.bytes / 1024.0, min_b ? (double)ours_b / (double)min_b : 0.0, flop / 1e9, smem, ours_us, e.us, nk * LAUNCH_US,
           e.kernels * LAUNCH_US);
  t->rows++, t->ours_k += nk, t->eager_k += e.kernels, t->min_b += min_b, t->ours_b += ours_b, t->eager_b += e.bytes;
  t->ours_us += ours_us, t->eager_us += e.us;
}

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples/models";
  bool kernels = false, md = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--kernels")) kernels = true;
    else if (!strcmp(argv[i], "--markdown")) md = true;
    else {
      fprintf(stderr, "usage: bench_models [--examples DIR] [--kernels] [--markdown]\n");
      return 2;
    }
  }
  char **names;
  int nn = kp_list_json(dir, NULL, &names);
  if (nn < 0) { fprintf(stderr, "bench_models: cannot open %s\n", dir); return 1; }
  kg_options o;
  memset(&o, 0, sizeof o);
  kg_context *ctx = kg_context_new(&o);
  int fails = 0;
  totals t;
  memset(&t, 0, sizeof t);
  if (md)
    printf("| file | forward | kernels ours / eager | KB min / ours / eager | ours / min | GFLOP | smem/block B | H100 µs ours / eager | launch floor µs ours / eager |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
  else
    printf("%-16s %-32s %-11s %9s %9s %9s %6s %9s %6s %8s %8s %6s %6s\n", "file", "forward", "kern o/e", "min KB", "ours KB", "eager KB",
           "o/min", "GFLOP", "smem", "us ours", "us eager", "lf o", "lf e");
  for (int i = 0; i < nn; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    names[i][strlen(names[i]) - 5] = 0;
    size_t len;
    char *doc = kg_read_file(path, &len);
    kg_module *m = NULL;
    if (!doc || kg_module_load(ctx, doc, len, &m) != KG_OK) {
      fprintf(stderr, "bench_models: %s: %s\n", names[i], kg_last_error(ctx));
      fails++;
      free(doc);
      continue;
    }
    free(doc);
    for (int en = 0; en < kg_module_n_entries(m); en++) {
      const char *entry = kg_module_entry_name(m, en);
      kg_compiled *c = NULL;
      if (kg_specialize(m, entry, NULL, &c) != KG_OK) {
        fprintf(stderr, "bench_models: %s/%s: %s\n", names[i], entry, kg_last_error(ctx));
        fails++;
        continue;
      }
      bench_entry(names[i], entry, c, kernels, md, &t);
      kg_compiled_free(c);
    }
    kg_module_free(m);
  }
  printf("\n%d forwards without host plans: kernels %u ours / %u eager (%.2fx fewer); bytes ours / minimum %.2f, eager / ours %.2f; "
         "predicted H100 time ours %.1f µs / eager %.1f µs (launch floors %.0f / %.0f µs)\n",
         t.rows, t.ours_k, t.eager_k, t.ours_k ? (double)t.eager_k / t.ours_k : 0.0, t.min_b ? (double)t.ours_b / (double)t.min_b : 0.0,
         t.ours_b ? (double)t.eager_b / (double)t.ours_b : 0.0, t.ours_us, t.eager_us, t.ours_k * LAUNCH_US, t.eager_k * LAUNCH_US);
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(ctx);
  return fails ? 1 : 0;
}
