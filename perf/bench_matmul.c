/* perf/bench_matmul.c — what kgen's matrix-product kernels cost, per product, from the
 * compiled program alone (no GPU needed): the numbers the H100 runs (perf/gpu) are read
 * against.
 *
 *   bench_matmul [--examples DIR]      (the examples named mm_* and linear_*)
 *
 * One row per product (a MATMUL group) of every example, symbolic sizes concretized as
 * `kgen check` does (symbol i → 13 + 4·i):
 *   - batch × M × N × K, the tile the scheduler picks for those sizes, shared memory per block;
 *   - FLOPs = 2·batch·M·N·K;
 *   - bytes: ours (each source the prologue of A reads, once per column of tiles; of B, once
 *     per row of tiles; the epilogue's sources once; every stored value once), the minimum
 *     (every source once, every stored value once), and per entry eager PyTorch (per op of the
 *     typed program: every tensor operand read, the result written: a lower bound);
 *   - kernels per entry: ours vs eager (one per op);
 *   - the time both predict at H100 numbers (3.35 TB/s, 67 TFLOP/s fp32 / 34 fp64 without
 *     tensor cores: the max of the two bounds).
 * A benchmark, not a test: exit 1 only when an example fails to compile. docs/perf.md.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api_int.h"

static int64_t dsz(const kg_dim *d) { return d->kind == KG_DIM_STATIC ? d->v : 13 + 4 * d->v; }

static int64_t node_bytes(const kg_gnode *n) {
  int64_t e = 1;
  if (n->vkind != KG_V_TENSOR) return 0;
  for (int i = 0; i < n->shape.rank; i++) e *= dsz(&n->shape.d[i]);
  return e * kg_dtype_get((kg_dtype)n->dtype)->size;
}

/* marks the sources (inputs, materialized values) node `id` reads, stopping at them */
static void sources(const kg_graph *g, const kg_fusion *f, uint32_t id, uint32_t own, uint8_t *mark, uint8_t *visit) {
  if (visit[id]) return;
  visit[id] = 1;
  const kg_gnode *n = &g->nodes.v[id];
  if (id != own && (n->op == KG_OP_INPUT || kg_fusion_mat_index(f, id) != KG_NONE || n->op == KG_OP_PLANVAL)) {
    mark[id] = 1;
    return;
  }
  if (n->op == KG_OP_MATMUL && id == own) return;
  for (int j = 0; j < (n->op == KG_OP_FULL ? 1 : n->n_in); j++) sources(g, f, n->in[j], own, mark, visit);
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples";
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
  DIR *d = opendir(dir);
  if (!d) { fprintf(stderr, "bench_matmul: cannot open %s\n", dir); return 1; }
  char **names = NULL;
  int nn = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") || (strncmp(e->d_name, "mm_", 3) && strncmp(e->d_name, "linear_", 7))) continue;
    names = realloc(names, sizeof *names * (size_t)(nn + 1));
    names[nn++] = strdup(e->d_name);
  }
  closedir(d);
  if (nn) qsort(names, (size_t)nn, sizeof *names, cmp);
  kg_options o;
  memset(&o, 0, sizeof o);
  kg_context *ctx = kg_context_new(&o);
  int fails = 0;
  printf("| example | product | batch x M x N x K | tile | smem/block | MFLOP | ours KB | min KB | ours / min | kernels ours / eager | eager KB (entry) | H100 us (ours: product / eager: entry) |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nn; i++) {
    char path[1024];
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
    /* eager: one kernel per tensor op of the typed program, its operands read and result written */
    int64_t eager = 0;
    uint32_t eager_k = 0;
    double eager_flop = 0;
    for (uint32_t j = 0; j < c->g.nodes.n; j++) {
      const kg_gnode *n = &c->g.nodes.v[j];
      if (n->vkind != KG_V_TENSOR || (kg_op_get((kg_op)n->op)->flags & KG_OPF_LEAF)) continue;
      eager_k++;
      eager += node_bytes(n);
      for (int q = 0; q < n->n_in; q++) eager += node_bytes(&c->g.nodes.v[n->in[q]]);
    }
    const kg_graph *g = &c->lg;
    double ours_us = 0;
    for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
      const kg_group *grp = &c->fusion.groups.v[gi];
      if (grp->kind != KG_GROUP_MATMUL) continue;
      const kg_gnode *P = &g->nodes.v[grp->red];
      int64_t space[KG_MAX_RANK], batch, M, N;
      for (int q = 0; q < grp->space.rank; q++) space[q] = dsz(&grp->space.d[q]);
      kg_mm_dims(grp->space.rank, space, P->ia[0], &batch, &M, &N);
      const kg_gnode *A = &g->nodes.v[P->in[0]];
      int64_t K = dsz(&A->shape.d[A->shape.rank - 1]);
      kg_mm_tile tile = kg_mm_choose_tile(&kg_target_h100, batch, M, N);
      const kg_mm_tile_info *T = kg_mm_tile_get(tile);
      int64_t ntile = (N + T->bn - 1) / T->bn, mtile = (M + T->bm - 1) / T->bm;
      uint8_t *ma = calloc(g->nodes.n + 1, 1), *mb = calloc(g->nodes.n + 1, 1), *me = calloc(g->nodes.n + 1, 1), *v = calloc(g->nodes.n + 1, 1);
      sources(g, &c->fusion, P->in[0], grp->red, ma, v);
      memset(v, 0, g->nodes.n + 1);
      sources(g, &c->fusion, P->in[1], grp->red, mb, v);
      memset(v, 0, g->nodes.n + 1);
      for (uint32_t q = 0; q < grp->outs.n; q++) sources(g, &c->fusion, g->outputs.v[grp->outs.v[q]], grp->red, me, v);
      for (uint32_t q = 0; q < grp->mats.n; q++) sources(g, &c->fusion, grp->mats.v[q], grp->red, me, v);
      int64_t ours = 0, minb = 0;
      for (uint32_t q = 0; q < g->nodes.n; q++) {
        int64_t b = node_bytes(&g->nodes.v[q]);
        if (ma[q] || mb[q] || me[q]) minb += b;
        ours += (ma[q] ? b * ntile : 0) + (mb[q] ? b * mtile : 0) + (me[q] && !ma[q] && !mb[q] ? b : 0);
      }
      for (uint32_t q = 0; q < grp->outs.n; q++) ours += node_bytes(&g->nodes.v[g->outputs.v[grp->outs.v[q]]]), minb += node_bytes(&g->nodes.v[g->outputs.v[grp->outs.v[q]]]);
      for (uint32_t q = 0; q < grp->mats.n; q++) ours += node_bytes(&g->nodes.v[grp->mats.v[q]]), minb += node_bytes(&g->nodes.v[grp->mats.v[q]]);
      free(ma), free(mb), free(me), free(v);
      double flop = 2.0 * (double)batch * (double)M * (double)N * (double)K;
      double peak = P->cdtype == KG_F64 ? 34e12 : 67e12;
      double us = (ours / 3.35e12 > flop / peak ? ours / 3.35e12 : flop / peak) * 1e6;
      ours_us += us;
      eager_flop += flop;
      printf("| %.*s | %%%u %s | %lld x %lld x %lld x %lld | %s | %u B | %.3f | %.1f | %.1f | %.2f | %u / %u | %.1f | %.4f / %.4f |\n", (int)(strlen(names[i]) - 5), names[i],
             grp->red, kg_dtype_name((kg_dtype)P->dtype), (long long)batch, (long long)M, (long long)N, (long long)K, T->name,
             (unsigned)(KG_MM_BK * (T->bm + 1 + T->bn + 1) * (P->cdtype == KG_F64 || P->cdtype == KG_I64 ? 8 : 4)), flop / 1e6, ours / 1024.0, minb / 1024.0, minb ? (double)ours / (double)minb : 0.0,
             kg_compiled_n_kernels(c), eager_k, eager / 1024.0, us, ((double)eager / 3.35e12 > eager_flop / 67e12 ? (double)eager / 3.35e12 : eager_flop / 67e12) * 1e6);
    }
    (void)ours_us;
    kg_compiled_free(c), kg_module_free(m);
  }
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(ctx);
  return fails ? 1 : 0;
}
