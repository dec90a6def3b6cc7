/* perf/bench_attention.c — what scaled_dot_product_attention costs as kgen's one fused kernel
 * (passes/lower_attn.c, the flash scheme) against the three kernels it replaces (the scores
 * product, the softmax row kernel, the probabilities' product: the same entries compiled with
 * force_variant 5, which keeps products tiled and turns the attention rewrite off for the
 * recognized form), from the compiled program alone (no GPU needed):
 *
 *   bench_attention [--run]
 *
 * Attention over batch × heads = 2 × 16 = 32, head dims 64 and 128, T = 512 … 8192 queries and
 * keys, causal and not (examples/attn_sdpa.json's attn_sdpa_causal, examples/attn_sdpa_train.json's
 * attn_sdpa_plain, each specialized to the sizes). Per row:
 *   - kernels, fused / unfused;
 *   - bytes: kgen's byte counter (perf_common.h kp_kernel_cost: every buffer a kernel touches,
 *     once) for the fused kernel — q, k, v and the output: 4·B·T·d·4 bytes, O(T·d) — and for
 *     the unfused kernels, whose T × T scores and probabilities go through memory (O(T²));
 *   - the fused kernel's tile traffic: k and v re-read once per query tile (the scheduler's tile
 *     at those sizes), the query tiles of a causal attention reading only the blocks at or below
 *     the diagonal: what the GPU's L2 has to serve;
 *   - FLOPs (4·B·T²·d; half of it causal, as the kernel skips the masked blocks) and the time
 *     both predict at H100 numbers (3.35 TB/s; 67 TFLOP/s fp32 without tensor cores).
 * --run also times both on the CPU emulator at T = 128 (what the emulator's time is worth:
 * fibers running CUDA threads, not a GPU).
 * A benchmark, not a test: exit 1 only when an entry fails to compile. docs/perf.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/perf_common.h"

static kg_module *load(kg_context *ctx, const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/examples/%s", KG_SOURCE_DIR, file);
  size_t len;
  char *doc = kg_read_file(path, &len);
  kg_module *m = NULL;
  if (!doc || kg_module_load(ctx, doc, len, &m) != KG_OK) m = NULL;
  free(doc);
  return m;
}

typedef struct cost {
  uint32_t kernels;
  int64_t bytes;
  double flop;
} cost;

static bool measure(kg_context *ctx, kg_module *m, const char *entry, const char *sig, cost *out, kg_compiled **keep) {
  kg_compiled *c = NULL;
  if (kg_specialize(m, entry, sig, &c) != KG_OK) {
    fprintf(stderr, "bench_attention: %s %s: %s\n", entry, sig, kg_last_error(ctx));
    return false;
  }
  memset(out, 0, sizeof *out);
  out->kernels = c->fusion.groups.n;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    int64_t b;
    double f;
    kp_kernel_cost(c, gi, &b, &f);
    out->bytes += b;
    out->flop += f;
  }
  if (keep) *keep = c;
  else kg_compiled_free(c);
  return true;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* emulator time of one run of entry at T = 128, head dim 64 (random inputs) */
static double emu_time(kg_module *m, const char *entry, const char *sig) {
  kg_compiled *c = NULL;
  if (kg_specialize(m, entry, sig, &c) != KG_OK) return -1;
  int64_t shape[4] = {2, 16, 128, 64}, n = 2 * 16 * 128 * 64;
  float *buf[4];
  DLTensor t[4];
  for (int i = 0; i < 4; i++) {
    buf[i] = malloc((size_t)n * sizeof(float));
    for (int64_t j = 0; j < n; j++) buf[i][j] = (float)((j * 2654435761u + (uint64_t)i) % 1000) / 500.0f - 1.0f;
    memset(&t[i], 0, sizeof t[i]);
    t[i].data = buf[i], t[i].device.device_type = kDLCPU, t[i].ndim = 4, t[i].dtype = (DLDataType){kDLFloat, 32, 1}, t[i].shape = shape;
  }
  const DLTensor *in[3] = {&t[0], &t[1], &t[2]};
  DLTensor *out[1] = {&t[3]};
  double best = -1;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now_s();
    if (kg_run(c, KG_DEVICE_EMU, in, 3, NULL, 0, out, 1, NULL) != KG_OK) { best = -1; break; }
    double dt = now_s() - t0;
    if (best < 0 || dt < best) best = dt;
  }
  for (int i = 0; i < 4; i++) free(buf[i]);
  kg_compiled_free(c);
  return best;
}

int main(int argc, char **argv) {
  bool run = argc > 1 && !strcmp(argv[1], "--run");
  kg_options o;
  memset(&o, 0, sizeof o);
  kg_context *fused = kg_context_new(&o);
  o.force_variant = KG_FORCE_TILED;
  kg_context *tiled = kg_context_new(&o);
  kg_module *mc = load(fused, "attn_sdpa.json"), *mp = load(fused, "attn_sdpa_train.json");
  kg_module *tc = load(tiled, "attn_sdpa.json"), *tp = load(tiled, "attn_sdpa_train.json");
  if (!mc || !mp || !tc || !tp) {
    fprintf(stderr, "bench_attention: cannot load examples/attn_sdpa*.json\n");
    return 1;
  }
  int fails = 0;
  printf("| causal | d | T | kernels fused / unfused | fused MB (byte counter) | unfused MB | unfused / fused | fused tile traffic MB | GFLOP | H100 us fused / unfused |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  static const int64_t Ts[] = {512, 1024, 2048, 4096, 8192};
  for (int causal = 0; causal < 2; causal++)
    for (int64_t d = 64; d <= 128; d += 64)
      for (size_t ti = 0; ti < KG_COUNTOF(Ts); ti++) {
        int64_t T = Ts[ti], BH = 32;
        char sig[256];
        snprintf(sig, sizeof sig, "float32[2,16,%lld,%lld], float32[2,16,%lld,%lld], float32[2,16,%lld,%lld]", (long long)T, (long long)d,
                 (long long)T, (long long)d, (long long)T, (long long)d);
        const char *entry = causal ? "attn_sdpa_causal" : "attn_sdpa_plain";
        cost f, u;
        kg_compiled *c = NULL;
        if (!measure(fused, causal ? mc : mp, entry, sig, &f, &c) || !measure(tiled, causal ? tc : tp, entry, sig, &u, NULL)) {
          fails++;
          continue;
        }
        /* the fused kernel's flop and tile traffic (its tile at these sizes, as run time picks it) */
        const kg_attn_tile_info *T_ = kg_attn_tile_get(kg_attn_choose_tile(&kg_target_h100, BH, T, d, d, 4));
        int64_t qt = (T + T_->bq - 1) / T_->bq, kv_blocks = 0;
        for (int64_t q = 0; q < qt; q++) {
          int64_t kend = causal ? ((q + 1) * T_->bq < T ? (q + 1) * T_->bq : T) : T;
          kv_blocks += (kend + T_->bk - 1) / T_->bk;
        }
        double flop = 4.0 * (double)BH * (double)T * (double)T * (double)d * (causal ? 0.5 : 1.0);
        double tile_b = 4.0 * (double)BH * (2.0 * (double)T * (double)d + 2.0 * (double)kv_blocks * (double)T_->bk * (double)d);
        double fused_us = 1e6 * (flop / KP_H100_FP32 > (double)f.bytes / KP_H100_BW ? flop / KP_H100_FP32 : (double)f.bytes / KP_H100_BW);
        double uflop = 4.0 * (double)BH * (double)T * (double)T * (double)d;
        double unf_us = 1e6 * (uflop / KP_H100_FP32 > (double)u.bytes / KP_H100_BW ? uflop / KP_H100_FP32 : (double)u.bytes / KP_H100_BW);
        printf("| %s | %lld | %lld | %u / %u | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f / %.0f |\n", causal ? "yes" : "no", (long long)d, (long long)T,
               f.kernels, u.kernels, (double)f.bytes / 1e6, (double)u.bytes / 1e6, (double)u.bytes / (double)f.bytes, tile_b / 1e6, flop / 1e9,
               fused_us, unf_us);
        kg_compiled_free(c);
      }
  if (run) {
    const char *sig = "float32[2,16,128,64], float32[2,16,128,64], float32[2,16,128,64]";
    double tf = emu_time(mp, "attn_sdpa_plain", sig), tu = emu_time(tp, "attn_sdpa_plain", sig);
    printf("\nCPU emulator, T = 128, d = 64, batch x heads = 32, best of 3: fused %.3f s, unfused %.3f s (%.2fx)\n", tf, tu, tf > 0 ? tu / tf : 0);
  }
  kg_module_free(mc), kg_module_free(mp), kg_module_free(tc), kg_module_free(tp);
  kg_context_free(fused), kg_context_free(tiled);
  return fails ? 1 : 0;
}
