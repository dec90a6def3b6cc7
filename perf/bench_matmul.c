/* perf/bench_matmul.c — what kgen's matrix-product kernels cost, per product, from the
 * compiled program alone (no GPU needed): the numbers the H100 runs (perf/gpu) are read
 * against.
 *
 *   bench_matmul [--examples DIR] [--no-nvrtc]
 *
 * First the products perf/gpu/bench.py times, at the shapes (perf/programs/tc_bench.json:
 * matmul 4096³ in three dtypes, transformer projections, attention, ResNet-50 convolutions), with
 * NVRTC's registers for sm_80 and sm_90 (sm_90a for the Hopper tier); then one row per product
 * (a MATMUL group) of every mm_* / linear_* example, symbolic sizes concretized as
 * `kgen check` does (symbol i → 13 + 4·i), every product tiled (force_variant 5: the small
 * ones would fold into their readers, passes/fold_products.c):
 *   - batch × M × N × K, the tier, tile and stages the scheduler picks for those sizes on an H100
 *     (operands assumed contiguous), shared memory per block;
 *   - FLOPs = 2·batch·M·N·K;
 *   - bytes from memory (perf_common.h: kp_mm_group, L2 serving the tile re-reads of operands
 *     that fit in half of it): ours, the minimum, and per entry eager PyTorch (kp_eager_cost:
 *     per op of the typed program, views free: a lower bound);
 *   - kernels per entry: ours vs eager (one per op);
 *   - the time both predict at H100 numbers (3.35 TB/s; ours at the tier's peak, kp_mm_peak:
 *     989 TFLOP/s half-precision wgmma, 65% of the tensor cores' rate for mma.sync — a third of
 *     TF32's for split-TF32 —, 67 / 34 TFLOP/s fp32 / fp64 SIMT; eager per kp_eager_cost: the
 *     max of the two bounds), and the TFLOP/s ours predicts.
 * A benchmark, not a test: exit 1 only when an example fails to compile. docs/perf.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_common.h"

/* NVRTC's registers and spills of kernel k of c for sm_<arch> (arch may carry KG_ARCH_FEAT),
 * "-" without NVRTC */
static void regs(kg_compiled *c, int k, int arch, char *buf, size_t n) {
  kg_kernel_stats st;
  if (kg_kernel_stats_get(c, arch, k, &st) != KG_OK) {
    snprintf(buf, n, "-");
    return;
  }
  snprintf(buf, n, st.spill_stores + st.spill_loads ? "%d (spills %d)" : "%d", st.regs, st.spill_stores + st.spill_loads);
}

/* one row per product of entry `entry` of c */
static void rows(kg_compiled *c, const char *label, bool nvrtc) {
  kp_eager e;
  kp_eager_cost(&c->g, &e);
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    if (c->fusion.groups.v[gi].kind != KG_GROUP_MATMUL) continue;
    kp_mm mm;
    kp_mm_group(c, gi, &mm);
    const kg_gnode *P = &c->lg.nodes.v[c->fusion.groups.v[gi].red];
    const kg_mm_tile_info *T = kg_mm_tile_get(mm.tile);
    double peak = kp_mm_peak(&mm);
    double sec = (double)mm.ours_b / KP_H100_BW > mm.flop / peak ? (double)mm.ours_b / KP_H100_BW : mm.flop / peak;
    char r80[32] = "-", r90[32] = "-";
    if (nvrtc) { /* the default variant's kernel: what `kgen compile` emits for these sizes */
      regs(c, (int)gi, 80, r80, sizeof r80);
      regs(c, (int)gi, T->tier == 2 ? 90 | KG_ARCH_FEAT : 90, r90, sizeof r90);
    }
    static const char *const tiers[3] = {"SIMT", "mma.sync", "wgmma+TMA"};
    static const char *const precs[3] = {"", " 3xTF32", " TF32"};
    printf("| %s | %%%u %s | %lld x %lld x %lld x %lld | %s%s | %s | %u | %u B | %s / %s | %.3f | %.2f | %.1f | %u / %u | %.4f / %.4f |\n", label,
           c->fusion.groups.v[gi].red, kg_dtype_name((kg_dtype)P->dtype), (long long)mm.batch, (long long)mm.m, (long long)mm.n, (long long)mm.k,
           tiers[T->tier], T->tier == 1 && mm.opdtype == KG_F32 ? precs[mm.prec % 3] : "", T->name, T->stages, mm.smem, r80, r90, mm.flop / 1e6,
           mm.min_b ? (double)mm.ours_b / (double)mm.min_b : 0.0, mm.flop / sec / 1e12, kg_compiled_n_kernels(c), e.kernels, sec * 1e6, e.us);
  }
}

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples", *tc = KG_SOURCE_DIR "/perf/programs/tc_bench.json";
  bool nvrtc = true;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--no-nvrtc")) nvrtc = false;
  }
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
  printf("| example | product | batch x M x N x K | tier | tile | stages | smem/block | regs sm_80 / sm_90 | MFLOP | ours / min bytes | H100 TFLOP/s | kernels ours / eager | H100 us (ours: product / eager: entry) |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  /* the shapes (perf/programs/tc_bench.json at these signatures): what perf/gpu/bench.py times */
  static const struct { const char *entry, *sig; } shapes[] = {
      {"mm_f32", "float32[4096,4096], float32[4096,4096]"},
      {"mm_f16", "float16[4096,4096], float16[4096,4096]"},
      {"mm_bf16", "bfloat16[4096,4096], bfloat16[4096,4096]"},
      {"linear_bf16", "bfloat16[8192,4096], bfloat16[4096,4096]"},
      {"linear_bf16", "bfloat16[8192,4096], bfloat16[11008,4096]"},
      {"attn_scores_f16", "float16[4,32,2048,128], float16[4,32,2048,128]"},
      {"attn_pv_f16", "float16[4,32,2048,2048], float16[4,32,2048,128]"},
      {"conv3x3_relu_f16", "float16[32,64,56,56], float16[64,64,3,3], float16[64]"},
      {"conv3x3_relu_f16", "float16[32,256,14,14], float16[256,256,3,3], float16[256]"},
      {"conv1x1_relu_f16", "float16[32,256,56,56], float16[64,256,1,1], float16[64]"},
      {"conv3x3s2_relu_f32", "float32[32,64,56,56], float32[64,64,3,3], float32[64]"},
  };
  size_t tlen;
  char *tdoc = kg_read_file(tc, &tlen);
  kg_module *tm = NULL;
  if (tdoc && kg_module_load(ctx, tdoc, tlen, &tm) == KG_OK) {
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      kg_compiled *c = NULL;
      if (kg_specialize(tm, shapes[i].entry, shapes[i].sig, &c) != KG_OK) {
        fprintf(stderr, "bench_matmul: %s %s: %s\n", shapes[i].entry, shapes[i].sig, kg_last_error(ctx));
        fails++;
        continue;
      }
      char label[256];
      snprintf(label, sizeof label, "tc_bench %s", shapes[i].entry);
      rows(c, label, nvrtc);
      kg_compiled_free(c);
    }
    kg_module_free(tm);
  } else {
    fprintf(stderr, "bench_matmul: %s: %s\n", tc, tdoc ? kg_last_error(ctx) : "cannot read");
    fails++;
  }
  free(tdoc);
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
    char label[256];
    snprintf(label, sizeof label, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
    rows(c, label, false);
    kg_compiled_free(c), kg_module_free(m);
  }
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(ctx);
  return fails ? 1 : 0;
}
