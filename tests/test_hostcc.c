/* tests/test_hostcc.c — the host devices' compiles started ahead: kg_hostcc_prefetch
 * (runtime/hostcc.c) and a first run's prefetch of every kernel it will load (runtime/
 * exec_choose.c, kg_exec_prefetch).
 *
 * The compiler is a wrapper script around cc that records whether another compile ran while it
 * did (a file per running compile; "overlap" when one saw two — each waits up to 4 s for a
 * second one, or for that mark), so "the compiles ran at once" is a fact the test reads, not a
 * time it measures. Checked: prefetched texts load as the objects
 * they compiled, each compiled once (kg_rt_counts), a second prefetch or load of a loaded or
 * cached text compiles nothing, a prefetched compile that fails is reported by its load with the
 * compiler's message, a hostcc freed with compiles still running waits for them; and a first run
 * on the CPU device compiles each of its kernels once, at the same time, none it does not run.
 * Skipped on a one-core machine (nothing is prefetched there). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/api_int.h"

typedef struct wdir {
  char root[64], wrapper[128], cc[192];
} wdir;

/* a fresh folder with the wrapper compiler in it */
static void wdir_make(wdir *w) {
  snprintf(w->root, sizeof w->root, "/tmp/kgen-pft-XXXXXX");
  cr_assert_not_null(mkdtemp(w->root));
  snprintf(w->wrapper, sizeof w->wrapper, "%s/cc.sh", w->root);
  char runs[96];
  snprintf(runs, sizeof runs, "%s/runs", w->root);
  cr_assert_eq(mkdir(runs, 0755), 0);
  FILE *f = fopen(w->wrapper, "w");
  cr_assert_not_null(f);
  fprintf(f,
          "#!/bin/sh\n"
          "d='%s'\n"
          "touch \"$d/start.$$\"\n"
          "i=0\n"
          "while [ $i -lt 40 ]; do\n"
          "  if [ -e \"$d/../overlap\" ]; then break; fi\n"
          "  if [ \"$(ls \"$d\" | grep -c '^start\\.')\" -ge 2 ]; then touch \"$d/../overlap\"; break; fi\n"
          "  sleep 0.1; i=$((i + 1))\n"
          "done\n"
          "\"$@\"; rc=$?\n"
          "rm -f \"$d/start.$$\"\n"
          "exit $rc\n",
          runs);
  fclose(f);
  snprintf(w->cc, sizeof w->cc, "sh %s cc", w->wrapper);
}
static bool wdir_overlap(const wdir *w) {
  char p[96];
  snprintf(p, sizeof p, "%s/overlap", w->root);
  return access(p, F_OK) == 0;
}
static void wdir_free(const wdir *w) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", w->root);
  cr_expect_eq(system(cmd), 0);
}

static const char *const test_flags[] = {"-std=c11", "-O0", "-fPIC", "-shared", "-w"};
static const kg_hostcc_spec test_spec = {"pft", "prefetch test 1", test_flags, 5, NULL, NULL, 0, NULL, 0, NULL, NULL};

static kg_hostcc *hc_new(const wdir *w, kg_rt_counts *counts) {
  kg_rt_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.cache_dir = w->root, cfg.cc = w->cc, cfg.counts = counts;
  kg_diag d;
  kg_diag_init(&d);
  kg_hostcc *h = kg_hostcc_new(&cfg, &test_spec, &d);
  cr_assert_not_null(h, "%s", d.n ? d.items[0].msg : "");
  kg_diag_free(&d);
  return h;
}

static int call_int(kg_hostobj *o, const char *sym) {
  void *p = kg_hostobj_sym(o, sym);
  cr_assert_not_null(p, "%s", sym);
  int (*fn)(void);
  memcpy(&fn, &p, sizeof fn);
  return fn();
}

static bool one_core(void) { return sysconf(_SC_NPROCESSORS_ONLN) < 2; }

Test(hostcc_prefetch, compiles_at_once_and_loads_once) {
  if (one_core()) cr_skip_test("one core: nothing is prefetched");
  wdir w;
  wdir_make(&w);
  kg_rt_counts counts = {0, 0, 0, 0};
  kg_hostcc *h = hc_new(&w, &counts);
  const char *t1 = "int f1(void) { return 41; }\n", *t2 = "int f2(void) { return 42; }\n";
  kg_hostcc_prefetch(h, "f1", t1);
  kg_hostcc_prefetch(h, "f2", t2);
  kg_hostcc_prefetch(h, "f1", t1); /* started already: nothing more */
  kg_diag d;
  kg_diag_init(&d);
  kg_hostobj *o1 = kg_hostcc_load(h, "f1", t1, &d), *o2 = kg_hostcc_load(h, "f2", t2, &d);
  cr_assert(o1 && o2, "%s", d.n ? d.items[0].msg : "");
  cr_expect_eq(call_int(o1, "f1"), 41);
  cr_expect_eq(call_int(o2, "f2"), 42);
  cr_expect_eq(counts.emu_compiles, 2u, "each text compiled once: %llu", (unsigned long long)counts.emu_compiles);
  cr_expect(wdir_overlap(&w), "the two compiles ran at the same time");
  kg_hostcc_prefetch(h, "f1", t1); /* loaded: nothing */
  kg_hostobj *o3 = kg_hostcc_load(h, "f1", t1, &d);
  cr_expect_eq(o3, o1, "a second load shares the loaded object");
  cr_expect_eq(counts.emu_compiles, 2u);
  kg_hostcc_release(h, o3), kg_hostcc_release(h, o1), kg_hostcc_release(h, o2);
  kg_hostcc_free(h);
  /* another device over the same cache: found there, compiled by nobody */
  kg_rt_counts c2 = {0, 0, 0, 0};
  h = hc_new(&w, &c2);
  kg_hostcc_prefetch(h, "f2", t2);
  o2 = kg_hostcc_load(h, "f2", t2, &d);
  cr_assert_not_null(o2);
  cr_expect_eq(call_int(o2, "f2"), 42);
  cr_expect(c2.emu_compiles == 0 && c2.emu_cache_hits == 1, "compiles %llu, hits %llu", (unsigned long long)c2.emu_compiles,
            (unsigned long long)c2.emu_cache_hits);
  kg_hostcc_release(h, o2);
  kg_hostcc_free(h);
  kg_diag_free(&d);
  wdir_free(&w);
}

Test(hostcc_prefetch, failure_is_reported_by_the_load) {
  if (one_core()) cr_skip_test("one core: nothing is prefetched");
  wdir w;
  wdir_make(&w);
  kg_rt_counts counts = {0, 0, 0, 0};
  kg_hostcc *h = hc_new(&w, &counts);
  const char *bad = "int g(void) { return undefined_name_here; }\n", *never = "int n(void) { return 7; }\n";
  kg_hostcc_prefetch(h, "bad", bad);
  kg_hostcc_prefetch(h, "never", never); /* never loaded: the free waits for its compiler */
  kg_diag d;
  kg_diag_init(&d);
  cr_expect_null(kg_hostcc_load(h, "bad", bad, &d));
  cr_assert_gt(d.n, 0u);
  cr_expect(strstr(d.items[0].msg, "the C compiler failed on 'bad'") && strstr(d.items[0].msg, "undefined_name_here"), "%s", d.items[0].msg);
  kg_diag_free(&d);
  kg_hostcc_free(h);
  wdir_free(&w);
}

/* A first run on the CPU device: examples/conv_blocks inception_pools, 5 kernels, from an empty
 * cache — every kernel compiled once, compiles overlapping, none it does not launch; a second
 * context over the same cache compiles nothing. */
static uint64_t run_inception(const wdir *w, bool *ok) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.cache_dir = w->root, o.cc = w->cc;
  kg_context *ctx = kg_context_new(&o);
  char path[512];
  snprintf(path, sizeof path, "%s/examples/conv_blocks.json", KG_SOURCE_DIR);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  static const int64_t shapes[6][4] = {{2, 6, 13, 11}, {5, 6, 1, 1}, {5}, {4, 6, 1, 1}, {7, 6, 1, 1}, {7}};
  static const int ranks[6] = {4, 4, 1, 4, 4, 1};
  float *buf[6];
  DLTensor t[6];
  const DLTensor *ins[6];
  for (int i = 0; i < 6; i++) {
    size_t e = 1;
    for (int k = 0; k < ranks[i]; k++) e *= (size_t)shapes[i][k];
    buf[i] = malloc((e + 1) * sizeof(float));
    for (size_t j = 0; j < e; j++) buf[i][j] = (float)((j * 7 + (size_t)i) % 11) - 5.0f;
    memset(&t[i], 0, sizeof t[i]);
    t[i].data = buf[i], t[i].ndim = ranks[i], t[i].shape = (int64_t *)(uintptr_t)shapes[i];
    t[i].dtype = (DLDataType){kDLFloat, 32, 1}, t[i].device.device_type = kDLCPU;
    ins[i] = &t[i];
  }
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize_for(m, "inception_pools", ins, 6, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  static float out[2 * 16 * 6 * 5];
  int64_t os[4] = {2, 16, 6, 5};
  DLTensor to;
  memset(&to, 0, sizeof to);
  to.data = out, to.ndim = 4, to.shape = os, to.dtype = (DLDataType){kDLFloat, 32, 1}, to.device.device_type = kDLCPU;
  DLTensor *outs[1] = {&to};
  *ok = kg_run(c, KG_DEVICE_CPU, ins, 6, NULL, 0, outs, 1, NULL) == KG_OK;
  cr_expect(*ok, "%s", kg_last_error(ctx));
  cr_expect_eq(kg_compiled_n_kernels(c), 5u);
  kg_context_stats st;
  cr_assert_eq(kg_context_stats_get(ctx, &st), KG_OK);
  for (int i = 0; i < 6; i++) free(buf[i]);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  return st.emu_compiles * 1000 + st.emu_cache_hits;
}

Test(hostcc_prefetch, first_run_compiles_its_kernels_at_once, .timeout = 600) {
  if (one_core()) cr_skip_test("one core: nothing is prefetched");
  wdir w;
  wdir_make(&w);
  bool ok = false;
  uint64_t first = run_inception(&w, &ok);
  cr_expect_eq(first / 1000, 5u, "the 5 kernels compiled once each, nothing else: %llu compiles", (unsigned long long)(first / 1000));
  cr_expect(wdir_overlap(&w), "the kernels' compiles ran at the same time");
  uint64_t second = run_inception(&w, &ok);
  cr_expect(second / 1000 == 0 && second % 1000 == 5, "a second context: %llu compiles, %llu cache hits", (unsigned long long)(second / 1000),
            (unsigned long long)(second % 1000));
  wdir_free(&w);
}
