/* perf/bench_pipeline.c — what kgen's compiler costs next to NVRTC, and how many
 * bytes its fused kernels move next to the minimum and to eager PyTorch.
 *
 *   bench_pipeline [--examples DIR] [--arch 80] [--reps N] [--markdown]
 *                  [--no-verify] [--no-nvrtc]
 *
 * For every examples/NAME.json (sorted by name), one row:
 *   - pipeline: JSON text → kg_module_load → kg_specialize(NULL sig) → kg_emit(CUDA),
 *     median of N timed repetitions (CLOCK_MONOTONIC) after one warm-up; the file
 *     is read once, before timing; frees are not timed. The context has the
 *     library's default options (IR verifiers on) unless --no-verify.
 *   - NVRTC: the same CUDA text → cubin for sm_<arch> (median of 3 compile_ms),
 *     registers per thread (max over the entry's kernels) and spill bytes (stores
 *     + loads, summed over kernels) from ptxas. The ratio pipeline / NVRTC is the
 *     number that matters (target ≤ 2%): both are measured in the same run.
 *   - bytes moved, with symbolic sizes concretized as `kgen check` does (symbol i
 *     → 13 + 4·i): minimum (each input whose values reach an output read once,
 *     each output written once), fused (per launched kernel: every buffer whose
 *     loaded values it uses, once, and every output it stores), eager (perf_common's
 *     kp_eager_cost, the model every benchmark shares: per op of the optimized graph
 *     every tensor operand read, the result written; views free, a reshape of a strided
 *     view a copy; a MAP counts as one op, so this is a lower bound for eager PyTorch).
 * It is a benchmark, not a test: it exits 0 whatever the numbers, 1 only when an
 * example fails to compile (load, specialize, emit or NVRTC). See docs/perf.md.
 */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf/perf_common.h"

#define SELF_PATH "perf/bench_pipeline.c"
#define NVRTC_REPS 3
#define TARGET_PCT 2.0

typedef struct bench_opts {
  char dir[4096];  /* examples directory */
  int arch;        /* sm_<arch> for NVRTC */
  int reps;        /* timed pipeline repetitions */
  bool markdown;   /* Markdown table instead of fixed width */
  bool verify;     /* IR verifiers after every pass (the library default) */
  bool nvrtc;      /* measure NVRTC (off: --no-nvrtc, or the library is missing) */
} bench_opts;

typedef struct bench_row {
  char name[128];     /* file name without .json */
  bool ok;            /* compiled (pipeline, and NVRTC when measured) */
  uint32_t n_kernels;
  double pipe_us;     /* median of load + specialize + emit */
  double load_us, spec_us, emit_us; /* medians of each phase */
  double nvrtc_ms;    /* median compile_ms; < 0 when not measured */
  int regs, spill;    /* max registers per thread; spill bytes (stores + loads) */
  int64_t min_b, fused_b, eager_b;
  bool plan;          /* host control flow: bytes depend on trip counts, not counted */
  int unread_params;  /* buffer parameters some kernel takes but whose values it never uses */
  size_t json_len;    /* bytes of the document */
  size_t cuda_len;    /* bytes of the emitted CUDA C */
} bench_row;

/* ---- timing ---- */

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v). */
static double median(double *v, int n) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- examples ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The sorted *.json file names in dir (malloc'd); -1 when dir cannot be opened. */
static int list_examples(const char *dir, char ***out) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  KG_VEC(char *) v = {0};
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) KG_VEC_PUSH(v, kg_xstrdup(e->d_name));
  }
  closedir(d);
  if (v.n) qsort(v.v, v.n, sizeof *v.v, cmp_str);
  *out = v.v;
  return (int)v.n;
}

/* ---- bytes moved (the counting rules: perf_common.h) ---- */

static void measure_bytes(const kg_compiled *c, bench_row *r) {
  const kg_graph *g = &c->g;
  if (c->plan) { /* kernels inside loops: what a run moves depends on its trip counts */
    r->plan = true;
    r->min_b = r->fused_b = r->eager_b = 0;
    return;
  }
  /* minimum: the inputs whose values reach an output, once; each output, once */
  r->min_b = kp_min_bytes(g);
  /* fused: per kernel, each buffer it reads from or writes to, once; a kernel
   * over an empty space is not launched (exec.c) */
  r->fused_b = 0, r->unread_params = 0;
  for (uint32_t ki = 0; ki < c->n_kernels; ki++) {
    const kg_kernel *k = kg_compiled_kernel(c, ki);
    if (kp_space_empty(&c->fusion.groups.v[ki].space)) continue;
    for (uint32_t j = 0; j < k->params.n; j++) {
      const kg_kparam *kp = &k->params.v[j];
      if (kp->kind != KP_BUFFER || kp->role != KPR_TENSOR) continue;
      if (kp->is_output || kp_kernel_reads(k, j)) r->fused_b += kp_param_bytes(c, kp);
      else r->unread_params++;
    }
  }
  /* eager: the one model every benchmark shares (perf_common.c kp_eager_cost): each tensor op
   * of the (folded, CSE'd) graph reads its operands and writes its result; views are free */
  kp_eager e;
  kp_eager_cost(g, &e);
  r->eager_b = e.bytes;
}

/* ---- one example ---- */

/* Times the pipeline; leaves the warm-up's compilation in *keep. 0 on success. */
static int time_pipeline(kg_context *ctx, const char *text, size_t len, int reps, bench_row *r, kg_compiled **keep,
                         kg_module **keep_m) {
  double *tot = kg_xcalloc((size_t)reps + 1, sizeof *tot), *ld = kg_xcalloc((size_t)reps + 1, sizeof *ld);
  double *sp = kg_xcalloc((size_t)reps + 1, sizeof *sp), *em = kg_xcalloc((size_t)reps + 1, sizeof *em);
  int rc = 0;
  for (int i = -1; i < reps && rc == 0; i++) { /* i = -1: the warm-up, kept */
    kg_module *m = NULL;
    kg_compiled *c = NULL;
    char *cu = NULL;
    size_t cu_len = 0;
    double t0 = now_us();
    kg_status s = kg_module_load(ctx, text, len, &m);
    double t1 = now_us();
    if (s == KG_OK) s = kg_specialize(m, NULL, NULL, &c);
    double t2 = now_us();
    if (s == KG_OK) s = kg_emit(c, KG_ART_CUDA, 0, &cu, &cu_len);
    double t3 = now_us();
    free(cu);
    if (i < 0) r->cuda_len = cu_len;
    if (s != KG_OK) {
      rc = -1;
    } else if (i >= 0) {
      tot[i] = t3 - t0, ld[i] = t1 - t0, sp[i] = t2 - t1, em[i] = t3 - t2;
    }
    if (i < 0 && s == KG_OK) {
      *keep = c, *keep_m = m;
    } else {
      kg_compiled_free(c);
      kg_module_free(m);
    }
  }
  if (rc == 0) {
    r->pipe_us = median(tot, reps), r->load_us = median(ld, reps);
    r->spec_us = median(sp, reps), r->emit_us = median(em, reps);
  }
  free(tot), free(ld), free(sp), free(em);
  return rc;
}

static int measure_nvrtc(kg_nvrtc *nv, const kg_compiled *c, const char *name, int arch, bench_row *r, kg_diag *d) {
  double ms[NVRTC_REPS];
  char prog[160];
  snprintf(prog, sizeof prog, "%s.cu", name);
  for (int i = 0; i < NVRTC_REPS; i++) {
    kg_nvrtc_out o;
    memset(&o, 0, sizeof o);
    if (kg_nvrtc_compile(nv, prog, c->cuda, arch, true, NULL, &o, d) != 0) {
      kg_nvrtc_out_free(&o);
      return -1;
    }
    ms[i] = o.compile_ms;
    if (i == 0) {
      r->regs = 0, r->spill = 0;
      for (uint32_t k = 0; k < o.n_stats; k++) {
        if (o.stats[k].regs > r->regs) r->regs = o.stats[k].regs;
        r->spill += o.stats[k].spill_stores + o.stats[k].spill_loads;
      }
    }
    kg_nvrtc_out_free(&o);
  }
  r->nvrtc_ms = median(ms, NVRTC_REPS);
  return 0;
}

/* ---- printing ---- */

static double pct(const bench_row *r) { return r->nvrtc_ms > 0 ? 100.0 * (r->pipe_us / 1e3) / r->nvrtc_ms : -1; }

static void fmt_ratio(char *buf, size_t n, int64_t a, int64_t b, const char *suffix) {
  if (b > 0) snprintf(buf, n, "%.2f%s", (double)a / (double)b, suffix);
  else snprintf(buf, n, "-");
}

static void print_table(const bench_opts *o, const bench_row *rows, int n) {
  if (o->markdown) {
    printf("| program | kernels | pipeline µs | NVRTC ms | pipeline/NVRTC | regs | spill B | min B | fused B | eager B "
           "| fused/min | eager/fused |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  } else {
    printf("%-34s %2s %9s %9s %7s %5s %6s %11s %11s %11s %9s %11s\n", "program", "k", "pipe_us", "nvrtc_ms", "pipe%",
           "regs", "spill", "min_B", "fused_B", "eager_B", "fused/min", "eager/fused");
  }
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    char nv[32] = "-", pc[32] = "-", rg[32] = "-", sp[32] = "-", fm[32], ef[32];
    if (!r->ok) {
      if (o->markdown) printf("| %s | FAILED |||||||||||\n", r->name);
      else printf("%-34s FAILED\n", r->name);
      continue;
    }
    if (r->nvrtc_ms >= 0) {
      snprintf(nv, sizeof nv, "%.1f", r->nvrtc_ms);
      snprintf(pc, sizeof pc, "%.2f%%", pct(r));
      snprintf(rg, sizeof rg, "%d", r->regs);
      snprintf(sp, sizeof sp, "%d", r->spill);
    }
    fmt_ratio(fm, sizeof fm, r->fused_b, r->min_b, "");
    fmt_ratio(ef, sizeof ef, r->eager_b, r->fused_b, "x");
    if (r->plan) snprintf(fm, sizeof fm, "plan"), snprintf(ef, sizeof ef, "plan");
    if (o->markdown)
      printf("| %s | %u | %.0f | %s | %s | %s | %s | %lld | %lld | %lld | %s | %s |\n", r->name, r->n_kernels, r->pipe_us,
             nv, pc, rg, sp, (long long)r->min_b, (long long)r->fused_b, (long long)r->eager_b, fm, ef);
    else
      printf("%-34s %2u %9.0f %9s %7s %5s %6s %11lld %11lld %11lld %9s %11s\n", r->name, r->n_kernels, r->pipe_us, nv, pc,
             rg, sp, (long long)r->min_b, (long long)r->fused_b, (long long)r->eager_b, fm, ef);
  }
}

static void print_summary(const bench_opts *o, const bench_row *rows, int n, const char *nvrtc_note) {
  const char *b = o->markdown ? "- " : "  ";
  double *p = kg_xcalloc((size_t)n + 1, sizeof *p), *pu = kg_xcalloc((size_t)n + 1, sizeof *pu);
  double *nm = kg_xcalloc((size_t)n + 1, sizeof *nm);
  int n_ok = 0, n_pct = 0, n_meet = 0, n_min = 0, n_geo = 0, n_unread = 0, n_plan = 0, imax = -1;
  double log_sum = 0, ld = 0, sp = 0, em = 0;
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    if (!r->ok) continue;
    pu[n_ok++] = r->pipe_us;
    ld += r->load_us, sp += r->spec_us, em += r->emit_us;
    if (r->nvrtc_ms > 0) {
      nm[n_pct] = r->nvrtc_ms;
      p[n_pct++] = pct(r);
      n_meet += pct(r) <= TARGET_PCT;
      if (imax < 0 || pct(r) > pct(&rows[imax])) imax = i;
    }
    n_plan += r->plan;
    n_min += !r->plan && r->fused_b == r->min_b;
    n_unread += r->unread_params > 0;
    if (r->fused_b > 0 && r->eager_b > 0) log_sum += log((double)r->eager_b / (double)r->fused_b), n_geo++;
  }
  printf(o->markdown ? "\n**Summary**\n\n" : "\nsummary\n");
  printf("%sprograms: %d (%d failed); pipeline reps: %d, IR verifiers %s\n", b, n_ok, n - n_ok, o->reps,
         o->verify ? "on (library default)" : "off (--no-verify)");
  double tsum = ld + sp + em;
  printf("%spipeline µs: median %.0f; time split (sum of per-phase medians) load %.0f%% / specialize %.0f%% / emit "
         "%.0f%%\n", b, median(pu, n_ok), tsum > 0 ? 100 * ld / tsum : 0, tsum > 0 ? 100 * sp / tsum : 0,
         tsum > 0 ? 100 * em / tsum : 0);
  printf("%sslowest pipelines:", b);
  bool *shown = kg_xcalloc((size_t)n + 1, sizeof *shown);
  for (int t = 0; t < 3; t++) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (rows[i].ok && !shown[i] && (best < 0 || rows[i].pipe_us > rows[best].pipe_us)) best = i;
    if (best < 0) break;
    shown[best] = true;
    const bench_row *r = &rows[best];
    printf("%s %s %.0f µs (load %.0f, specialize %.0f; %.1f KB of JSON → %.1f KB of CUDA)", t ? "," : "", r->name,
           r->pipe_us, r->load_us, r->spec_us, (double)r->json_len / 1024, (double)r->cuda_len / 1024);
  }
  printf("\n");
  free(shown);
  if (n_pct) {
    printf("%sNVRTC ms (sm_%d, cubin): median %.1f\n", b, o->arch, median(nm, n_pct));
    printf("%spipeline / NVRTC: median %.2f%%, max %.2f%% (%s); %d/%d meet the %.0f%% target\n", b, median(p, n_pct),
           pct(&rows[imax]), rows[imax].name, n_meet, n_pct, TARGET_PCT);
  } else {
    printf("%sNVRTC: %s\n", b, nvrtc_note);
  }
  printf("%sfused == minimum bytes: %d/%d (entries with a host plan, whose bytes depend on trip counts, not counted: %d)", b, n_min,
         n_ok - n_plan, n_plan);
  const char *sep = "; not at the minimum: ";
  for (int i = 0; i < n; i++) {
    if (!rows[i].ok || rows[i].plan || rows[i].fused_b == rows[i].min_b) continue;
    char fm[32];
    fmt_ratio(fm, sizeof fm, rows[i].fused_b, rows[i].min_b, "");
    printf("%s%s (%u kernels, %s)", sep, rows[i].name, rows[i].n_kernels, fm);
    sep = ", ";
  }
  printf("\n%seager / fused bytes: geometric mean %.2fx over %d programs with data\n", b,
         n_geo ? exp(log_sum / n_geo) : 0, n_geo);
  if (n_unread) {
    printf("%sprograms whose kernels take a buffer whose values they never use (unused parameter or dead load): %d", b, n_unread);
    sep = " (";
    for (int i = 0; i < n; i++)
      if (rows[i].ok && rows[i].unread_params > 0) printf("%s%s", sep, rows[i].name), sep = ", ";
    printf(")\n");
  }
  free(p), free(pu), free(nm);
}

/* ---- main ---- */

static void usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s [--examples DIR] [--arch 80] [--reps N] [--markdown] [--no-verify] [--no-nvrtc]\n"
          "  pipeline time (JSON -> CUDA C) against NVRTC (CUDA C -> cubin) and bytes moved per example\n",
          argv0);
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static bool parse_args(int argc, char **argv, bench_opts *o) {
  const char *f = __FILE__;
  size_t fl = strlen(f), sl = strlen(SELF_PATH);
  int pre = fl >= sl && strcmp(f + fl - sl, SELF_PATH) == 0 ? (int)(fl - sl) : 0;
  snprintf(o->dir, sizeof o->dir, "%.*sexamples", pre, f);
  o->arch = 80, o->reps = 20, o->markdown = false, o->verify = true, o->nvrtc = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "--examples") && has) snprintf(o->dir, sizeof o->dir, "%s", argv[++i]);
    else if (!strcmp(a, "--arch") && has) { if (!parse_int(argv[++i], 75, 121, &o->arch)) return false; }
    else if (!strcmp(a, "--reps") && has) { if (!parse_int(argv[++i], 1, 100000, &o->reps)) return false; }
    else if (!strcmp(a, "--markdown")) o->markdown = true;
    else if (!strcmp(a, "--no-verify")) o->verify = false;
    else if (!strcmp(a, "--no-nvrtc")) o->nvrtc = false;
    else return false;
  }
  return true;
}

int main(int argc, char **argv) {
  bench_opts o;
  if (!parse_args(argc, argv, &o)) {
    usage(argv[0]);
    return 2;
  }
  char **files = NULL;
  int n = list_examples(o.dir, &files);
  if (n < 0) {
    fprintf(stderr, "bench_pipeline: cannot open %s\n", o.dir);
    return 2;
  }
  kg_options ko;
  memset(&ko, 0, sizeof ko);
  ko.verify_ir = o.verify;
  kg_context *ctx = kg_context_new(&ko);
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *nv = NULL;
  char nvrtc_note[256] = "not measured (--no-nvrtc)";
  if (o.nvrtc) {
    nv = kg_nvrtc_open(&d);
    if (!nv) snprintf(nvrtc_note, sizeof nvrtc_note, "unavailable (libnvrtc.so not found; set KGEN_NVRTC_LIB)");
    kg_diag_clear(&d);
  }
  bench_row *rows = kg_xcalloc((size_t)n + 1, sizeof *rows);
  bool tty = isatty(2);
  int failed = 0;
  for (int i = 0; i < n; i++) {
    bench_row *r = &rows[i];
    snprintf(r->name, sizeof r->name, "%.*s", (int)(strlen(files[i]) - 5), files[i]);
    r->nvrtc_ms = -1;
    if (tty) fprintf(stderr, "\r[%d/%d] %-48s", i + 1, n, r->name);
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", o.dir, files[i]);
    size_t len;
    char *text = kg_read_file(path, &len);
    if (!text) {
      fprintf(stderr, "%sbench_pipeline: cannot read %s\n", tty ? "\n" : "", path);
      failed++;
      continue;
    }
    r->json_len = len;
    kg_compiled *c = NULL;
    kg_module *m = NULL;
    if (time_pipeline(ctx, text, len, o.reps, r, &c, &m) != 0) {
      fprintf(stderr, "%sbench_pipeline: %s failed to compile:\n%s", tty ? "\n" : "", r->name, kg_last_error(ctx));
      failed++;
      kg_compiled_free(c);
      kg_module_free(m);
      free(text);
      continue;
    }
    if (kg_module_n_entries(m) > 1)
      fprintf(stderr, "%sbench_pipeline: %s has %d entries; only the first is measured\n", tty ? "\n" : "", r->name,
              kg_module_n_entries(m));
    r->n_kernels = c->n_kernels;
    measure_bytes(c, r);
    r->ok = true;
    if (nv && measure_nvrtc(nv, c, r->name, o.arch, r, &d) != 0) {
      char *msg = kg_diag_format(&d);
      fprintf(stderr, "%sbench_pipeline: NVRTC failed on %s:\n%s", tty ? "\n" : "", r->name, msg);
      free(msg);
      kg_diag_clear(&d);
      r->ok = false;
      failed++;
    }
    kg_compiled_free(c);
    kg_module_free(m);
    free(text);
  }
  if (tty) fprintf(stderr, "\r%-60s\r", "");
  if (o.markdown) printf("Examples: %s; NVRTC %s%s, sm_%d\n\n", o.dir, nv ? kg_nvrtc_version(nv) : "-",
                         nv ? "" : " (unavailable)", o.arch);
  else printf("examples: %s   NVRTC: %s   arch: sm_%d\n\n", o.dir, nv ? kg_nvrtc_version(nv) : nvrtc_note, o.arch);
  print_table(&o, rows, n);
  print_summary(&o, rows, n, nvrtc_note);
  if (failed) {
    fprintf(stderr, "bench_pipeline: %d example(s) failed to compile:", failed);
    for (int i = 0; i < n; i++)
      if (!rows[i].ok) fprintf(stderr, " %s", rows[i].name);
    fprintf(stderr, "\n");
  }
  for (int i = 0; i < n; i++) free(files[i]);
  free(files), free(rows);
  if (nv) kg_nvrtc_close(nv);
  kg_diag_free(&d);
  kg_context_free(ctx);
  return failed ? 1 : 0;
}
