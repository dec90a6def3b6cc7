/* perf/bench_cpu.c — model forwards on CPU tensors: kgen's CPU device beside eager PyTorch and
 * kgen's emulator (issue 25).
 *
 *   bench_cpu [--examples DIR] [--entry NAME] [--sym N] [--reps N] [--threads N] [--python PATH]
 *             [--no-emu] [--no-eager] [--markdown]
 *
 * For every entry of every DIR/NAME.json (default examples/models), symbolic sizes concretized as
 * `kgen check` does (symbol i → 13 + 4·i; every one N with --sym N), inputs random in the
 * signature's ranges (token ids in the vocabulary):
 *   - kgen CPU: kg_run on KG_DEVICE_CPU, after one warm-up run (which compiles, or finds the
 *     objects in the kernel cache); the median of --reps runs (default 15), wall time and the
 *     process's CPU time (every thread: robust to other processes on a shared machine);
 *   - eager: perf/cpu_eager.py runs the eager-Python twin kgen emits (one torch call per op of
 *     the F# forward: what eager TorchSharp calls through libtorch) on the same inputs, with as
 *     many intra-op threads as the CPU device has (--threads, default the CPUs available), the
 *     median of as many runs. This is Debian's PyTorch (python3-torch): its CPU kernels, oneDNN
 *     for convolutions, its BLAS for products; perf/dotnet measures TorchSharp's own libtorch;
 *   - the emulator: one run after a warm-up (--no-emu skips it: it is 10-60x slower);
 *   - the kernels of the CPU run: plain loops (no fibers) and fiber kernels (threads cooperate).
 * Ratios: eager ÷ kgen CPU (> 1: kgen faster), kgen CPU ÷ eager (the target: ≤ 1.5 for
 * every forward). The machine's load average is printed before and after (the cores are shared).
 * A benchmark, not a test: exit 0 whatever the numbers, 1 when a forward fails to compile or run.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "runtime/api_int.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (every thread), seconds */
static double cpu_now(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static int cmp_s(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct opts {
  const char *dir, *entry, *python;
  int reps, threads;
  bool emu, eager, md;
  int64_t sym; /* every symbolic size (--sym N), 0: symbol i is 13 + 4·i */
} opts;

typedef struct totals {
  int rows, within, faster, within_cpu;
  double log_ratio, log_ratio_cpu;
} totals;

/* Kernels of c run on the CPU device: plain loops and fiber kernels (a plan's regions counted). */
static void count_kernels(const kg_compiled *c, int *loops, int *fibers) {
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    if (!kv->mod[3]) continue;
    if (kg_kernel_cooperates(&kv->k)) (*fibers)++;
    else (*loops)++;
  }
  for (uint32_t r = 0; r < c->n_regions; r++) count_kernels(c->regions[r], loops, fibers);
  for (uint32_t o = 0; c->copies && o < c->g.outputs.n; o++)
    if (c->copies[o]) count_kernels(c->copies[o], loops, fibers);
}

/* The eager twin's median wall seconds per call (cpu_eager.py), or -1; *cpu its median CPU seconds. */
static double eager_time(const opts *O, const char *script, const char *fn, const char **in_paths, int n_in, const char **cap_names,
                         const char **cap_paths, int n_cap, int threads, double *cpu) {
  kg_strbuf cmd;
  kg_sb_init(&cmd);
  kg_sb_printf(&cmd, "'%s' '%s/perf/cpu_eager.py' '%s' '%s' %d %d", O->python, KG_SOURCE_DIR, script, fn, threads, O->reps);
  for (int i = 0; i < n_in; i++) kg_sb_printf(&cmd, " '%s'", in_paths[i]);
  for (int i = 0; i < n_cap; i++) kg_sb_printf(&cmd, " '--capture=%s=%s'", cap_names[i], cap_paths[i]);
  kg_sb_puts(&cmd, " 2>/dev/null");
  FILE *p = popen(kg_sb_cstr(&cmd), "r");
  kg_sb_free(&cmd);
  double med = -1;
  *cpu = -1;
  if (p) {
    if (fscanf(p, "%lf %lf", &med, cpu) != 2) med = -1;
    pclose(p);
  }
  return med;
}

/* One forward: its row. Returns false when it fails to compile or run. */
static bool bench_entry(kg_context *ctx, kg_module *m, const char *file, const char *entry, const opts *O, const char *tmp, totals *T) {
  kg_compiled *c0 = NULL, *c = NULL;
  if (kg_specialize(m, entry, NULL, &c0) != KG_OK) {
    fprintf(stderr, "%s [%s]: %s\n", file, entry, kg_last_error(ctx));
    return false;
  }
  const kg_graph *g = kg_compiled_graph(c0);
  uint32_t np = g->params.n;
  kg_npy *arr = kg_xcalloc(np + 1, sizeof *arr);
  DLTensor *views = kg_xcalloc(np + 1, sizeof *views);
  const DLTensor **ins = kg_xcalloc(np + 1, sizeof *ins);
  kg_named_tensor *caps = kg_xcalloc(np + 1, sizeof *caps);
  const char **in_paths = kg_xcalloc(np + 1, sizeof *in_paths), **cap_paths = kg_xcalloc(np + 1, sizeof *cap_paths);
  const char **cap_names = kg_xcalloc(np + 1, sizeof *cap_names);
  int n_in = 0, n_cap = 0;
  bool ok = true;
  kg_arena A;
  kg_arena_init(&A);
  kg_diag d;
  kg_diag_init(&d);
  for (uint32_t p = 0; p < np && ok; p++) {
    const kg_gparam *gp = &g->params.v[p];
    const kg_gnode *n = &g->nodes.v[gp->node];
    int64_t shape[KG_MAX_RANK];
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    for (int i = 0; i < rank; i++) shape[i] = n->shape.d[i].kind == KG_DIM_STATIC ? n->shape.d[i].v : O->sym ? O->sym : 13 + 4 * n->shape.d[i].v;
    ok = kg_npy_random_in(&arr[p], n->dtype, rank, shape, p + 1, true, gp->range) == 0;
    kg_npy_dlview(&arr[p], &views[p]);
    const char *path = kg_arena_printf(&A, "%s/%s%u.npy", tmp, gp->is_capture ? "cap" : "in", p);
    ok = ok && kg_npy_write(path, &arr[p], &d) == 0;
    if (!gp->is_capture) ins[n_in] = &views[p], in_paths[n_in++] = path;
    else caps[n_cap].name = gp->name, caps[n_cap].t = &views[p], cap_paths[n_cap] = path, cap_names[n_cap++] = gp->name;
  }
  if (ok && kg_specialize_for(m, entry, ins, n_in, caps, n_cap, &c) != KG_OK) ok = false;
  int nres = c ? kg_compiled_n_outputs(c) : 0;
  kg_npy *outs = kg_xcalloc((size_t)nres + 1, sizeof *outs);
  DLTensor *ov = kg_xcalloc((size_t)nres + 1, sizeof *ov);
  DLTensor **op = kg_xcalloc((size_t)nres + 1, sizeof *op);
  if (ok && kg_alloc_host_outputs(c, outs, ov, op) != KG_OK) ok = false;
  /* kgen CPU: a warm-up (compiles or finds the objects), then the median */
  double cpu_s = -1, cpu_cpu = -1, emu_s = -1, eager_s = -1, eager_cpu = -1;
  if (ok && kg_run(c, KG_DEVICE_CPU, ins, n_in, caps, n_cap, op, nres, NULL) != KG_OK) ok = false;
  int loops = 0, fibers = 0;
  if (ok) {
    double *t = kg_xcalloc((size_t)O->reps + 1, sizeof *t), *u = kg_xcalloc((size_t)O->reps + 1, sizeof *u);
    for (int r = 0; r < O->reps && ok; r++) {
      double t0 = now(), u0 = cpu_now();
      ok = kg_run(c, KG_DEVICE_CPU, ins, n_in, caps, n_cap, op, nres, NULL) == KG_OK;
      t[r] = now() - t0, u[r] = cpu_now() - u0;
    }
    cpu_s = median(t, O->reps), cpu_cpu = median(u, O->reps);
    free(t), free(u);
    count_kernels(c, &loops, &fibers);
  }
  if (ok && O->emu && kg_run(c, KG_DEVICE_EMU, ins, n_in, caps, n_cap, op, nres, NULL) == KG_OK) {
    double t0 = now();
    if (kg_run(c, KG_DEVICE_EMU, ins, n_in, caps, n_cap, op, nres, NULL) == KG_OK) emu_s = now() - t0;
  }
  if (!ok) fprintf(stderr, "%s [%s]: %s\n", file, entry, kg_last_error(ctx));
  if (ok && O->eager) {
    const char *script = kg_arena_printf(&A, "%s/%s.py", tmp, kg_entry_cname(&A, entry));
    kg_strbuf ts;
    kg_sb_init(&ts);
    bool half = false;
    for (uint32_t i = 0; i < g->nodes.n; i++) half |= g->nodes.v[i].dtype == KG_F16 || g->nodes.v[i].dtype == KG_BF16;
    kg_ts_opts to = {true, half};
    if (kg_compiled_twin(c, &to, &ts, &d) && kg_write_file(script, ts.s ? ts.s : "", ts.len) == 0)
      eager_s = eager_time(O, script, kg_ts_entry_name(kg_compiled_graph(c), &A), in_paths, n_in, cap_names, cap_paths, n_cap,
                           kg_dev_cpu_threads(ctx->cpu), &eager_cpu);
    kg_sb_free(&ts);
  }
  if (ok) {
    char eg[48] = "—", ratio[48] = "—", emu[32] = "—";
    if (eager_s > 0) {
      double q = cpu_s / eager_s, qc = cpu_cpu / eager_cpu;
      snprintf(eg, sizeof eg, "%.3f (%.3f)", eager_s * 1e3, eager_cpu * 1e3);
      snprintf(ratio, sizeof ratio, "%.2f× (%.2f×)", q, qc);
      T->rows++, T->within += q <= 1.5, T->faster += q < 1, T->log_ratio += __builtin_log(q);
      T->within_cpu += qc <= 1.5, T->log_ratio_cpu += __builtin_log(qc);
    }
    if (emu_s > 0) snprintf(emu, sizeof emu, "%.1f", emu_s * 1e3);
    printf(O->md ? "| %s | %s | %d / %d | %.3f (%.3f) | %s | %s | %s |\n" : "%-14s %-30s %3d / %-3d %9.3f (%8.3f) %21s %17s %10s\n", file, entry, loops,
           fibers, cpu_s * 1e3, cpu_cpu * 1e3, eg, ratio, emu);
    fflush(stdout);
  }
  for (int i = 0; i < nres; i++) kg_npy_free(&outs[i]);
  for (uint32_t p = 0; p < np; p++) kg_npy_free(&arr[p]);
  free(outs), free(ov), free(op), free(arr), free(views), free(ins), free(caps), free(in_paths), free(cap_paths), free(cap_names);
  kg_compiled_free(c), kg_compiled_free(c0);
  kg_diag_free(&d);
  kg_arena_free(&A);
  return ok;
}

int main(int argc, char **argv) {
  opts O = {KG_SOURCE_DIR "/examples/models", NULL, "/usr/bin/python3", 15, 0, true, true, false, 0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) O.dir = argv[++i];
    else if (!strcmp(argv[i], "--entry") && i + 1 < argc) O.entry = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) O.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) O.threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--python") && i + 1 < argc) O.python = argv[++i];
    else if (!strcmp(argv[i], "--sym") && i + 1 < argc) O.sym = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--no-emu")) O.emu = false;
    else if (!strcmp(argv[i], "--no-eager")) O.eager = false;
    else if (!strcmp(argv[i], "--markdown")) O.md = true;
    else {
      fprintf(stderr, "usage: bench_cpu [--examples DIR] [--entry NAME] [--sym N] [--reps N] [--threads N] [--python PATH] [--no-emu] [--no-eager] [--markdown]\n");
      return 2;
    }
  }
  if (O.reps < 1) O.reps = 1;
  kg_options ko;
  memset(&ko, 0, sizeof ko);
  kg_context *ctx = kg_context_new(&ko);
  if (kg_context_set_cpu_threads(ctx, O.threads) != KG_OK) {
    fprintf(stderr, "%s\n", kg_last_error(ctx));
    return 2;
  }
  kg_diag d;
  kg_diag_init(&d);
  if (!kg_ctx_device(ctx, KG_DEVICE_CPU, &d)) {
    char *t = kg_diag_format(&d);
    fprintf(stderr, "no CPU device: %s\n", t);
    return 1;
  }
  char tmp[] = "/tmp/kgen-bench-cpu-XXXXXX";
  if (!mkdtemp(tmp)) return 1;
  double la[3] = {0};
  if (getloadavg(la, 3) < 0) la[0] = -1;
  printf("kgen CPU device: %d threads; eager: %s (perf/cpu_eager.py, as many threads); median of %d runs; load average before: %.2f\n",
         kg_dev_cpu_threads(ctx->cpu), O.python, O.reps, la[0]);
  printf(O.md ? "| model | entry | kernels: loops / fibers | kgen CPU ms (CPU time) | eager ms (CPU time) | kgen ÷ eager (CPU time) | emulator ms |\n"
                 "|---|---|---|---|---|---|---|\n"
              : "%-14s %-30s %-9s %20s %21s %17s %10s\n",
         "model", "entry", "loop/fib", "kgen ms (cpu ms)", "eager ms (cpu ms)", "kgen/eager (cpu)", "emu ms");
  DIR *dir = opendir(O.dir);
  if (!dir) {
    fprintf(stderr, "cannot open %s\n", O.dir);
    return 1;
  }
  char *files[256];
  int nf = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && nf < 256) {
    size_t l = strlen(e->d_name);
    if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) files[nf++] = kg_xstrdup(e->d_name);
  }
  closedir(dir);
  qsort(files, (size_t)nf, sizeof *files, cmp_s);
  totals T = {0, 0, 0, 0, 0, 0};
  int failed = 0;
  for (int f = 0; f < nf; f++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", O.dir, files[f]);
    kg_module *m;
    if (kg_module_load_file(ctx, path, &m) != KG_OK) {
      fprintf(stderr, "%s: %s\n", path, kg_last_error(ctx));
      failed++;
      continue;
    }
    files[f][strlen(files[f]) - 5] = 0;
    for (int i = 0; i < kg_module_n_entries(m); i++) {
      const char *en = kg_module_entry_name(m, i);
      if (O.entry && strcmp(O.entry, en)) continue;
      failed += !bench_entry(ctx, m, files[f], en, &O, tmp, &T);
    }
    kg_module_free(m);
  }
  if (getloadavg(la, 3) < 0) la[0] = -1;
  if (T.rows)
    printf("%d forwards: %d within 1.5x of eager (wall), %d faster; geometric mean kgen CPU / eager %.2f (wall), %.2f (CPU time; %d within 1.5x); "
           "load average after: %.2f\n",
           T.rows, T.within, T.faster, __builtin_exp(T.log_ratio / T.rows), __builtin_exp(T.log_ratio_cpu / T.rows), T.within_cpu, la[0]);
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
  if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", tmp);
  for (int f = 0; f < nf; f++) free(files[f]);
  kg_diag_free(&d);
  kg_context_free(ctx);
  return failed ? 1 : 0;
}
