/* perf/bench_package.c — time to the first result: an offline kernel package against the JSON
 * document it was made from (docs/package.md, docs/perf.md "Offline kernel packages").
 *
 *   bench_package [--examples DIR] [--emu N] [--nvrtc ARCH] [--markdown]
 *
 * For every entry of every DIR/NAME.json (default examples/models: the 27 model forwards), in a
 * fresh context each time, symbolic sizes as `kgen check` sets them (symbol i → 13 + 4·i):
 *   - json: kg_module_load of the document, kg_specialize_for, kg_run — the frontend, the passes,
 *     lowering and CUDA C of every kernel the run launches (the cold start a process pays);
 *   - pkg: kg_package_load of one package holding all the forwards (written once, first, with
 *     --arch none: its cubins would not change these numbers), kg_specialize_for, kg_run;
 *   - pkg load+spec: the package's part before the run (the target: ≤ 5 ms an entry).
 * Both on the null device (launches return at once: kgen's own host time, what the package
 * removes) — and, for the first N entries with --emu N (default 3), on the emulator with an
 * empty kernel cache (cold: cc compiles every kernel either way) and again with the cache warm.
 * With --nvrtc ARCH (and NVRTC loadable), the time NVRTC takes to compile each entry's default
 * kernels for sm_ARCH: what a cold start on a GPU adds to `json`, and a package never pays.
 * Best of 3 runs for the null device. A benchmark, not a test: exit 0 whatever the numbers.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/package.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct ent {
  char doc[512];
  char entry[128];
} ent;

typedef struct bufs {
  DLTensor t[512];
  int64_t shape[512][8];
  void *mem[512];
  const DLTensor *in[512];
  kg_named_tensor cap[512];
  int n_in, n_cap, n;
  DLTensor o[32];
  int64_t oshape[32][8];
  DLTensor *op[32];
  void *omem[32];
  int no;
} bufs;

/* host inputs for c's parameters, filled with ones (values do not change what is timed) */
static bool make_inputs(kg_compiled *c, bufs *B) {
  memset(B, 0, sizeof *B);
  const kg_graph *g = &c->g;
  if (g->params.n > 512) return false;
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    DLTensor *t = &B->t[p];
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    size_t cnt = 1, es = kg_dtype_get((kg_dtype)n->dtype)->size;
    for (int d = 0; d < rank; d++) {
      B->shape[p][d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : 13 + 4 * n->shape.d[d].v;
      cnt *= (size_t)B->shape[p][d];
    }
    B->mem[p] = calloc(cnt ? cnt : 1, es);
    for (size_t i = 0; i < cnt && kg_dtype_is_float((kg_dtype)n->dtype) && es == 4; i++) ((float *)B->mem[p])[i] = 1.0f;
    t->data = B->mem[p], t->device.device_type = kDLCPU, t->ndim = rank, t->dtype = kg_dtype_to_dl((kg_dtype)n->dtype), t->shape = B->shape[p];
    if (g->params.v[p].is_capture) B->cap[B->n_cap].name = kg_xstrdup(g->params.v[p].name), B->cap[B->n_cap++].t = t;
    else B->in[B->n_in++] = t;
  }
  B->n = (int)g->params.n;
  return true;
}

static bool make_outputs(kg_compiled *c, bufs *B) {
  B->no = kg_compiled_n_outputs(c);
  if (B->no > 32) return false;
  for (int i = 0; i < B->no; i++) {
    DLDataType dt;
    int nd;
    kg_compiled_output(c, i, &dt, &nd, B->oshape[i]);
    size_t cnt = 1;
    for (int d = 0; d < nd; d++) cnt *= B->oshape[i][d] > 0 ? (size_t)B->oshape[i][d] : 0;
    B->omem[i] = calloc(cnt ? cnt : 1, (size_t)(dt.bits / 8));
    B->o[i].data = B->omem[i], B->o[i].device.device_type = kDLCPU, B->o[i].ndim = nd, B->o[i].dtype = dt, B->o[i].shape = B->oshape[i];
    B->op[i] = &B->o[i];
  }
  return true;
}

static void free_bufs(bufs *B) {
  for (int i = 0; i < B->n; i++) free(B->mem[i]);
  for (int i = 0; i < B->no; i++) free(B->omem[i]);
  for (int i = 0; i < B->n_cap; i++) free((void *)(uintptr_t)B->cap[i].name);
}

/* one cold start: load (document or package), specialize for the inputs, run once; seconds,
 * or -1 on failure. spec_s: the part before the run. */
static double first_result(const char *file, bool pkg, const char *entry, kg_device_kind dev, const char *cache, double *spec_s) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.cache_dir = cache;
  bufs B;
  /* the inputs come from a specialization made beforehand, outside the timed part */
  kg_context *prep = kg_context_new(&o);
  kg_module *pm;
  kg_compiled *pc;
  if ((pkg ? kg_package_load(prep, file, &pm) : kg_module_load_file(prep, file, &pm)) != KG_OK ||
      kg_specialize(pm, entry, NULL, &pc) != KG_OK) {
    fprintf(stderr, "bench_package: %s %s: %s\n", file, entry, kg_last_error(prep));
    return -1;
  }
  if (!make_inputs(pc, &B)) return fprintf(stderr, "bench_package: %s %s: more than 512 parameters\n", file, entry), -1;
  kg_compiled_free(pc), kg_module_free(pm), kg_context_free(prep);
  kg_context *ctx = kg_context_new(&o);
  double t0 = now();
  kg_module *m;
  kg_compiled *c = NULL;
  bool ok = (pkg ? kg_package_load(ctx, file, &m) : kg_module_load_file(ctx, file, &m)) == KG_OK;
  ok = ok && kg_specialize_for(m, entry, B.in, B.n_in, B.cap, B.n_cap, &c) == KG_OK;
  double t1 = now();
  ok = ok && make_outputs(c, &B) && kg_run(c, dev, B.in, B.n_in, B.cap, B.n_cap, B.op, B.no, NULL) == KG_OK;
  double t2 = now();
  if (!ok) fprintf(stderr, "bench_package: %s %s: %s\n", file, entry, kg_last_error(ctx));
  kg_compiled_free(c);
  if (ok || m) kg_module_free(m);
  kg_context_free(ctx);
  free_bufs(&B);
  *spec_s = t1 - t0;
  return ok ? t2 - t0 : -1;
}

static int cmp_ent(const void *a, const void *b) { return strcmp(((const ent *)a)->doc, ((const ent *)b)->doc); }

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples/models";
  int n_emu = 3, nvrtc_arch = 0;
  bool md = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--emu") && i + 1 < argc) n_emu = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nvrtc") && i + 1 < argc) nvrtc_arch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--markdown")) md = true;
    else return fprintf(stderr, "usage: bench_package [--examples DIR] [--emu N] [--nvrtc ARCH] [--markdown]\n"), 2;
  }
  /* the entries */
  ent *E = calloc(256, sizeof *E);
  int ne = 0;
  DIR *d = opendir(dir);
  if (!d) return fprintf(stderr, "bench_package: cannot open %s\n", dir), 1;
  kg_context *ctx = kg_context_new(NULL);
  kg_module *docs[64];
  int nd = 0;
  for (struct dirent *e; (e = readdir(d)) && ne < 256 && nd < 64;) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json")) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    kg_module *m;
    if (kg_module_load_file(ctx, path, &m) != KG_OK) continue;
    for (int k = 0; k < kg_module_n_entries(m) && ne < 256; k++) {
      snprintf(E[ne].doc, sizeof E[ne].doc, "%s", path);
      snprintf(E[ne++].entry, sizeof E[ne].entry, "%s", kg_module_entry_name(m, k));
    }
    kg_module_free(m);
  }
  closedir(d);
  qsort(E, (size_t)ne, sizeof *E, cmp_ent);
  /* one package of them all */
  char tmp[] = "/tmp/kgen-bench-package-XXXXXX";
  if (!mkdtemp(tmp)) return 1;
  char pkg[600];
  snprintf(pkg, sizeof pkg, "%s/models.kgpkg", tmp);
  kg_package_item *items = calloc((size_t)ne + 1, sizeof *items);
  for (int i = 0; i < ne; i++) {
    kg_module_load_file(ctx, E[i].doc, &docs[nd]);
    items[i].module = docs[nd++], items[i].entry = E[i].entry;
  }
  double tp = now();
  if (kg_package_write(ctx, items, ne, NULL, 0, pkg) != KG_OK) return fprintf(stderr, "bench_package: %s\n", kg_last_error(ctx)), 1;
  tp = now() - tp;
  FILE *pf = fopen(pkg, "rb");
  fseek(pf, 0, SEEK_END);
  long psize = ftell(pf);
  fclose(pf);
  for (int i = 0; i < nd; i++) kg_module_free(docs[i]);
  free(items);
  kg_context_free(ctx);
  printf("bench_package: %d entries of %s; one package of them all (emulator code, no cubins): %.1f MB, written in %.1f s\n\n", ne, dir,
         (double)psize / 1e6, tp);
  kg_nvrtc *nv = NULL;
  if (nvrtc_arch) {
    kg_diag dg;
    kg_diag_init(&dg);
    nv = kg_nvrtc_open(&dg);
    kg_diag_free(&dg);
    if (!nv) printf("(NVRTC not loadable: no NVRTC column)\n");
  }
  printf(md ? "| entry | json ms | pkg ms | ratio | pkg load+spec ms |%s\n|---|---:|---:|---:|---:|%s\n" : "%-44s %9s %9s %7s %9s%s\n",
         md ? (nv ? " NVRTC ms |" : "") : "entry", md ? (nv ? "---:|" : "") : "json ms", "pkg ms", "ratio", "spec ms", nv ? "  nvrtc ms" : "");
  double sj = 0, sp = 0, ss = 0, worst_spec = 0, sn = 0;
  int rows = 0;
  for (int i = 0; i < ne; i++) {
    double bj = 1e9, bp = 1e9, bs = 1e9, s;
    for (int r = 0; r < 3; r++) {
      double j = first_result(E[i].doc, false, E[i].entry, KG_DEVICE_NULL, tmp, &s);
      double p = first_result(pkg, true, E[i].entry, KG_DEVICE_NULL, tmp, &s);
      if (j < 0 || p < 0) { bj = -1; break; }
      bj = j < bj ? j : bj, bp = p < bp ? p : bp, bs = s < bs ? s : bs;
    }
    if (bj < 0) { printf("%s: failed\n", E[i].entry); continue; }
    double nvms = 0;
    if (nv) { /* NVRTC for the entry's default kernels (a cold GPU start compiles at least these) */
      kg_context *c2 = kg_context_new(NULL);
      kg_module *m;
      kg_compiled *c;
      if (kg_module_load_file(c2, E[i].doc, &m) == KG_OK && kg_specialize(m, E[i].entry, NULL, &c) == KG_OK) {
        kg_nvrtc_out o;
        kg_diag dg;
        kg_diag_init(&dg);
        double t0 = now();
        if (kg_nvrtc_compile(nv, "bench.cu", c->cuda, nvrtc_arch, true, NULL, &o, &dg) == 0) nvms = (now() - t0) * 1e3, kg_nvrtc_out_free(&o);
        kg_diag_free(&dg);
        kg_compiled_free(c), kg_module_free(m);
      }
      kg_context_free(c2);
    }
    sj += bj, sp += bp, ss += bs, sn += nvms, rows++;
    if (bs > worst_spec) worst_spec = bs;
    if (md) printf("| %s | %.2f | %.3f | %.0f× | %.3f |", E[i].entry, bj * 1e3, bp * 1e3, bj / bp, bs * 1e3);
    else printf("%-44s %9.2f %9.3f %6.0fx %9.3f", E[i].entry, bj * 1e3, bp * 1e3, bj / bp, bs * 1e3);
    if (nv) printf(md ? " %.0f |" : " %9.0f", nvms);
    printf("\n");
  }
  printf("\nnull device, %d entries: json %.1f ms in all, package %.2f ms in all (%.0f× less); package load + specialize %.3f ms an entry on "
         "average, %.3f ms at most%s",
         rows, sj * 1e3, sp * 1e3, sj / sp, ss * 1e3 / rows, worst_spec * 1e3, nv ? "" : "\n");
  if (nv) printf("; NVRTC for sm_%d would add %.0f ms in all to the json cold start (%.0f× the package's time)\n", nvrtc_arch, sn, (sj * 1e3 + sn) / (sp * 1e3));
  /* the emulator: an empty cache, then warm */
  if (n_emu > 0) printf(md ? "\n| entry (emulator) | json cold s | pkg cold s | json warm ms | pkg warm ms |\n|---|---:|---:|---:|---:|\n"
                           : "\n%-44s %11s %11s %12s %12s\n",
                        "entry (emulator)", "json cold s", "pkg cold s", "json warm ms", "pkg warm ms");
  for (int i = 0; i < ne && i < n_emu; i++) {
    char cj[700], cp[700], cmd[1500];
    snprintf(cj, sizeof cj, "%s/cache-json-%d", tmp, i), snprintf(cp, sizeof cp, "%s/cache-pkg-%d", tmp, i);
    double s, jc = first_result(E[i].doc, false, E[i].entry, KG_DEVICE_EMU, cj, &s);
    double pc = first_result(pkg, true, E[i].entry, KG_DEVICE_EMU, cp, &s);
    double jw = first_result(E[i].doc, false, E[i].entry, KG_DEVICE_EMU, cj, &s);
    double pw = first_result(pkg, true, E[i].entry, KG_DEVICE_EMU, cp, &s);
    printf(md ? "| %s | %.2f | %.2f | %.1f | %.1f |\n" : "%-44s %11.2f %11.2f %12.1f %12.1f\n", E[i].entry, jc, pc, jw * 1e3, pw * 1e3);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", cj, cp);
    if (system(cmd)) {}
  }
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd)) {}
  if (nv) kg_nvrtc_close(nv);
  free(E);
  return 0;
}
