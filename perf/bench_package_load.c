/* perf/bench_package_load.c — loading a package and specializing its entries (the issue's
 * "≤ 5 ms per entry"), this kgen against a baseline kgen in the same run (docs/perf.md
 * "Offline kernel packages", docs/package.md "Reading fast").
 *
 *   bench_package_load PKG [--runs N] [--lib NEW.so] [--baseline OLD.so] [--wall] [--markdown]
 *
 * For every entry of PKG, in a fresh context each time: kg_package_load, then kg_specialize
 * (the entry's first signature); best of N (default 5) of the load alone and of both, in the
 * thread's CPU time (the work is single-threaded and reads a mapped file: on a quiet machine
 * that is the wall time; on a loaded one the wall time mostly measures the run queue — --wall
 * gives it anyway). The
 * libraries are dlopen'd (RTLD_LOCAL: each calls its own code), by default this build's
 * libkgen.so; with --baseline another build's (e.g. main's, before a change), the two
 * alternating entry by entry so that both see the same machine. A package both can read is
 * needed (the same package format). A benchmark, not a test: exit 0 whatever the numbers.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/kgen.h"

static clockid_t clk = CLOCK_THREAD_CPUTIME_ID;
static double now(void) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct lib {
  void *h;
  kg_context *(*ctx_new)(const kg_options *);
  void (*ctx_free)(kg_context *);
  kg_status (*load)(kg_context *, const char *, kg_module **);
  void (*mod_free)(kg_module *);
  int (*n_entries)(kg_module *);
  const char *(*entry_name)(kg_module *, int);
  kg_status (*spec)(kg_module *, const char *, const char *, kg_compiled **);
  void (*comp_free)(kg_compiled *);
  const char *(*last_error)(kg_context *);
} lib;

static bool open_lib(const char *path, lib *L) {
  memset(L, 0, sizeof *L);
  L->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!L->h) return fprintf(stderr, "bench_package_load: %s\n", dlerror()), false;
#define SYM(f, n) (*(void **)&L->f = dlsym(L->h, n)) != NULL
  bool ok = SYM(ctx_new, "kg_context_new") && SYM(ctx_free, "kg_context_free") && SYM(load, "kg_package_load") && SYM(mod_free, "kg_module_free") &&
            SYM(n_entries, "kg_module_n_entries") && SYM(entry_name, "kg_module_entry_name") && SYM(spec, "kg_specialize") &&
            SYM(comp_free, "kg_compiled_free") && SYM(last_error, "kg_last_error");
#undef SYM
  if (!ok) fprintf(stderr, "bench_package_load: %s lacks a kgen call\n", path);
  return ok;
}

/* best of runs: the load alone and load + specialize of entry, ms; false on an error */
static bool time_entry(const lib *L, const char *pkg, const char *entry, int runs, double *load_ms, double *both_ms) {
  *load_ms = *both_ms = 1e30;
  for (int r = 0; r < runs; r++) {
    kg_context *ctx = L->ctx_new(NULL);
    kg_module *m = NULL;
    kg_compiled *c = NULL;
    double t0 = now();
    bool ok = L->load(ctx, pkg, &m) == KG_OK;
    double t1 = now();
    ok = ok && L->spec(m, entry, NULL, &c) == KG_OK;
    double t2 = now();
    if (!ok) fprintf(stderr, "bench_package_load: %s: %s\n", entry, L->last_error(ctx));
    if (c) L->comp_free(c);
    if (m) L->mod_free(m);
    L->ctx_free(ctx);
    if (!ok) return false;
    if (t1 - t0 < *load_ms) *load_ms = t1 - t0;
    if (t2 - t0 < *both_ms) *both_ms = t2 - t0;
  }
  *load_ms *= 1e3, *both_ms *= 1e3;
  return true;
}

int main(int argc, char **argv) {
  const char *pkg = NULL, *newlib = KG_LIBKGEN, *base = NULL;
  int runs = 5;
  bool md = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lib") && i + 1 < argc) newlib = argv[++i];
    else if (!strcmp(argv[i], "--baseline") && i + 1 < argc) base = argv[++i];
    else if (!strcmp(argv[i], "--markdown")) md = true;
    else if (!strcmp(argv[i], "--wall")) clk = CLOCK_MONOTONIC;
    else if (argv[i][0] != '-' && !pkg) pkg = argv[i];
    else pkg = NULL, i = argc;
  }
  if (!pkg || runs < 1)
    return fprintf(stderr, "usage: bench_package_load PKG [--runs N] [--lib NEW.so] [--baseline OLD.so] [--wall] [--markdown]\n"), 2;
  lib N, B;
  if (!open_lib(newlib, &N) || (base && !open_lib(base, &B))) return 1;
  kg_context *ctx = N.ctx_new(NULL);
  kg_module *m;
  if (N.load(ctx, pkg, &m) != KG_OK) return fprintf(stderr, "bench_package_load: %s\n", N.last_error(ctx)), 1;
  int ne = N.n_entries(m);
  printf("bench_package_load: %s, %d entries, best of %d (%s), fresh context each; this kgen: %s%s%s\n\n", pkg, ne, runs,
         clk == CLOCK_MONOTONIC ? "wall time" : "thread CPU time", newlib, base ? "; baseline: " : "", base ? base : "");
  if (md) printf(base ? "| entry | baseline load+spec ms | load+spec ms | ratio | baseline load ms | load ms |\n|---|---:|---:|---:|---:|---:|\n"
                      : "| entry | load+spec ms | load ms |\n|---|---:|---:|\n");
  else printf(base ? "%-32s %12s %10s %7s %10s %8s\n" : "%-32s %10s %8s\n", "entry", base ? "base ms" : "spec ms", base ? "spec ms" : "load ms", "ratio",
              "base load", "load");
  double sum_n = 0, sum_b = 0, max_n = 0, max_b = 0;
  int under = 0, under_b = 0, done = 0;
  for (int e = 0; e < ne; e++) {
    const char *name = N.entry_name(m, e);
    double nl, nb, bl = 0, bb = 0;
    if (base && !time_entry(&B, pkg, name, runs, &bl, &bb)) continue;
    if (!time_entry(&N, pkg, name, runs, &nl, &nb)) continue;
    done++, sum_n += nb, sum_b += bb, under += nb <= 5.0, under_b += bb <= 5.0;
    if (nb > max_n) max_n = nb;
    if (bb > max_b) max_b = bb;
    if (base) printf(md ? "| %s | %.2f | %.2f | %.1f× | %.2f | %.2f |\n" : "%-32s %12.2f %10.2f %6.1fx %10.2f %8.2f\n", name, bb, nb, bb / nb, bl, nl);
    else printf(md ? "| %s | %.2f | %.2f |\n" : "%-32s %10.2f %8.2f\n", name, nb, nl);
  }
  printf("\n%d entries: load + specialize %.2f ms an entry on average, %.2f ms at most, %d of %d within 5 ms", done, sum_n / (done ? done : 1), max_n,
         under, done);
  if (base)
    printf("; the baseline %.2f ms on average, %.2f ms at most, %d within 5 ms (%.1f× less time in all)", sum_b / (done ? done : 1), max_b, under_b,
           sum_b / (sum_n > 0 ? sum_n : 1));
  printf("\n");
  N.mod_free(m);
  N.ctx_free(ctx);
  return 0;
}
