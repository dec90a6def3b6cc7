/* perf/bench_conv.c — what kgen's convolution kernels cost, per convolution, from the compiled
 * program alone (no GPU needed): the numbers an H100 run is read against.
 *
 *   bench_conv [--examples DIR]
 *
 * One row per convolution (a MATMUL group in convolution geometry) of every conv_* / conv2d_*
 * example at its own signature, then of a few at the sizes of real CNN layers (ResNet's 3x3 at
 * 56x56, a MobileNet depthwise 3x3 at 112x112 and the pointwise after it, a strided stem):
 *   - the convolution: batch N × in channels → out channels, output size, window, groups;
 *   - the schedule the scheduler picks (a tile, or direct) and shared memory per block;
 *   - FLOPs = 2 · N · O · ΠS_out · K (K = C/groups · Πwindow; padded taps included);
 *   - bytes: ours — loads issued to global memory: a tile schedule loads the weight once per
 *     column of tiles and per image, and the input through IM2COL once per window tap per row
 *     of tiles (no cache reuse assumed: an upper bound of traffic, what shared-memory staging of
 *     the input halo would cut); the direct schedule K weights and K inputs per output; the
 *     epilogue's sources and the stored values once — against the minimum (every input, weight
 *     and epilogue source once, every output once);
 *   - kernels per entry: ours vs eager (perf_common's kp_eager_cost: one per tensor op of the
 *     typed program, views free — the model every benchmark shares);
 *   - the time the max of the two bounds predicts at H100 numbers (3.35 TB/s; 67 TFLOP/s fp32,
 *     34 fp64, without tensor cores), ours (for the loads issued, and for the minimum: what
 *     on-chip reuse can reach) and eager's (its bytes, one op at a time).
 * A benchmark, not a test: exit 1 only when an example fails to compile. docs/perf.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_common.h"
#include "runtime/api_int.h"


static double h100_us(double bytes, double flop, bool f64) { return (bytes / 3.35e12 > flop / (f64 ? 34e12 : 67e12) ? bytes / 3.35e12 : flop / (f64 ? 34e12 : 67e12)) * 1e6; }

/* one row per convolution of the entry */
static int bench(kg_context *ctx, const char *dir, const char *file, const char *entry, const char *sig) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t len;
  char *doc = kg_read_file(path, &len);
  kg_module *m = NULL;
  kg_compiled *c = NULL;
  if (!doc || kg_module_load(ctx, doc, len, &m) != KG_OK) {
    fprintf(stderr, "bench_conv: %s: %s\n", file, kg_last_error(ctx));
    free(doc);
    return 1;
  }
  free(doc);
  int fails = 0;
  for (int e = 0; e < kg_module_n_entries(m); e++) {
    const char *en = kg_module_entry_name(m, e);
    if (entry && strcmp(en, entry)) continue;
    if (kg_specialize(m, en, sig, &c) != KG_OK) {
      fprintf(stderr, "bench_conv: %s [%s]: %s\n", file, en, kg_last_error(ctx));
      fails++;
      continue;
    }
    if (c->plan) { kg_compiled_free(c); continue; }
    /* eager: perf_common's model, shared by every benchmark (views free) */
    kp_eager ec;
    kp_eager_cost(&c->g, &ec);
    int64_t eager = ec.bytes;
    uint32_t eager_k = ec.kernels;
    double eager_flop = 0;
    const kg_graph *g = &c->lg;
    for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
      const kg_group *grp = &c->fusion.groups.v[gi];
      if (grp->kind != KG_GROUP_MATMUL) continue;
      const kg_gnode *P = &g->nodes.v[grp->red];
      if (!(P->ia[0] & 8)) continue;
      int64_t space[KG_MAX_RANK], batch, M, N, G = P->ia[0] >> 8;
      for (int q = 0; q < grp->space.rank; q++) space[q] = kp_dim(&grp->space.d[q]);
      kg_mm_dims(grp->space.rank, space, P->ia[0], &batch, &M, &N);
      const kg_gnode *A = &g->nodes.v[P->in[0]], *B = &g->nodes.v[P->in[1]], *X = &g->nodes.v[B->in[0]];
      int64_t K = kp_dim(&A->shape.d[A->shape.rank - 1]);
      bool direct = kg_conv_direct(M, K);
      kg_mm_tile tile = direct ? KG_MM_DIRECT : kg_mm_choose_tile(&kg_target_h100, batch, M, N);
      const kg_mm_tile_info *T = kg_mm_tile_get(tile);
      int64_t ntile = (N + T->bn - 1) / T->bn, mtile = (M + T->bm - 1) / T->bm, nimg = space[0];
      uint8_t *ma = calloc(g->nodes.n + 1, 1), *mb = calloc(g->nodes.n + 1, 1), *me = calloc(g->nodes.n + 1, 1), *v = calloc(g->nodes.n + 1, 1);
      kp_sources(g, &c->fusion, grp, P->in[0], ma, v);
      memset(v, 0, g->nodes.n + 1);
      kp_sources(g, &c->fusion, grp, P->in[1], mb, v);
      memset(v, 0, g->nodes.n + 1);
      for (uint32_t q = 0; q < grp->outs.n; q++) kp_sources(g, &c->fusion, grp, g->outputs.v[grp->outs.v[q]], me, v);
      for (uint32_t q = 0; q < grp->mats.n; q++) kp_sources(g, &c->fusion, grp, grp->mats.v[q], me, v);
      /* the input read through IM2COL: its bytes × taps per element (the IM2COL node's size) */
      double im2col = (double)kp_node_bytes(B) / (double)(kp_node_bytes(X) ? kp_node_bytes(X) : 1);
      double ours = 0, minb = 0, out_elems = (double)batch * (double)M * (double)N;
      for (uint32_t q = 0; q < g->nodes.n; q++) {
        double b = (double)kp_node_bytes(&g->nodes.v[q]);
        if (ma[q] || mb[q] || me[q]) minb += b;
        if (direct) {
          double esz = kg_dtype_get((kg_dtype)g->nodes.v[q].dtype)->size;
          ours += (ma[q] || mb[q] ? out_elems * (double)K * esz : 0) + (me[q] && !ma[q] && !mb[q] ? b : 0);
        } else {
          ours += (ma[q] ? b * (double)ntile * (double)nimg : 0) + (mb[q] ? b * im2col * (double)mtile : 0) + (me[q] && !ma[q] && !mb[q] ? b : 0);
        }
      }
      for (uint32_t q = 0; q < grp->outs.n; q++) ours += (double)kp_node_bytes(&g->nodes.v[g->outputs.v[grp->outs.v[q]]]), minb += (double)kp_node_bytes(&g->nodes.v[g->outputs.v[grp->outs.v[q]]]);
      for (uint32_t q = 0; q < grp->mats.n; q++) ours += (double)kp_node_bytes(&g->nodes.v[grp->mats.v[q]]), minb += (double)kp_node_bytes(&g->nodes.v[grp->mats.v[q]]);
      free(ma), free(mb), free(me), free(v);
      double flop = 2.0 * out_elems * (double)K;
      bool f64 = P->cdtype == KG_F64;
      char osz[64] = "";
      for (int q = 2; q < grp->space.rank; q++) snprintf(osz + strlen(osz), sizeof osz - strlen(osz), "%s%lld", q > 2 ? "x" : "", (long long)space[q]);
      unsigned smem = direct ? 0 : (unsigned)(KG_MM_BK * (T->bm + 1 + T->bn + 1) * (P->cdtype == KG_F64 || P->cdtype == KG_I64 ? 8 : 4));
      printf("| %s [%s]%s%s | %s | %lld x %lld -> %lld, %s, K %lld, groups %lld | %s | %u B | %.2f | %.1f | %.1f | %.2f | %u / %u | %.3f / %.3f / %.3f |\n", file, en,
             sig ? " at " : "", sig ? sig : "", kg_dtype_name((kg_dtype)X->dtype), (long long)nimg, (long long)kp_dim(&X->shape.d[1]), (long long)space[1], osz,
             (long long)K, (long long)G, T->name, smem, flop / 1e6, ours / 1024.0, minb / 1024.0, minb > 0 ? ours / minb : 0.0, kg_compiled_n_kernels(c), eager_k,
             h100_us(ours, flop, f64), h100_us(minb, flop, f64), h100_us((double)eager, flop, f64));
      eager_flop += flop;
    }
    (void)eager_flop;
    kg_compiled_free(c);
    c = NULL;
  }
  kg_module_free(m);
  return fails;
}

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples";
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
  static const char *const prefixes[] = {"conv", NULL};
  char **names;
  int nn = kp_list_json(dir, prefixes, &names);
  if (nn < 0) { fprintf(stderr, "bench_conv: cannot open %s\n", dir); return 1; }
  kg_options o;
  memset(&o, 0, sizeof o);
  kg_context *ctx = kg_context_new(&o);
  int fails = 0;
  printf("| example [entry] | dtype | N x C -> O, output, K, groups | schedule | smem/block | MFLOP | ours KB | min KB | ours / min | kernels ours / eager | H100 us: ours / at min bytes / eager |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nn; i++) fails += bench(ctx, dir, names[i], NULL, NULL);
  /* real layer sizes (the examples' own parameters: stride, padding, groups as written) */
  static const char *const real[][3] = {
    {"conv2d_relu_bias.json", "conv2d_relu_bias", "float32[32,64,56,56], float32[64,64,3,3], float32[64]"},
    {"conv_edge.json", "conv_scale_shift", "float32[32,64,56,56], float32[64,64,3,3], float32[64], float32[64,1,1], float32[64,1,1]"},
    {"conv_edge.json", "conv_depthwise", "float32[32,8,112,112], float32[8,1,3,3], float32[8]"},
    {"conv_blocks.json", "mobilenet_dw_pw", "float32[32,6,112,112], float32[6,1,3,3], float32[6], float32[96,6,1,1], float32[96]"},
    {"conv_blocks.json", "resnet_basic_block", "float32[32,8,56,56], float32[8,8,3,3], float32[8,1,1], float32[8,1,1], float32[8,8,3,3], float32[8,1,1], float32[8,1,1]"},
    {"conv_dtypes.json", "conv_half", "float16[32,3,224,224], float16[64,3,3,3], float16[64], bfloat16[32,64,56,56], bfloat16[64,32,3,3], bfloat16[64]"},
  };
  for (size_t i = 0; i < sizeof real / sizeof *real; i++) fails += bench(ctx, dir, real[i][0], real[i][1], real[i][2]);
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(ctx);
  return fails ? 1 : 0;
}
