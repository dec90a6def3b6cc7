/* tests/test_rt_nvrtc.c — NVRTC offline compilation (runtime/nvrtc.c) and the
 * CUDA device (runtime/dev_cuda.c): its failure without a driver, and its whole
 * path against a stand-in driver library.
 * Tests that need libnvrtc skip, never fail, when it cannot be loaded. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt.h"

#define PRELUDE                                   \
  "#ifdef __CUDACC__\n"                           \
  "#define KG_KERNEL extern \"C\" __global__\n"   \
  "#define KG_DEV static __device__ __forceinline__\n" \
  "#else\n"                                       \
  "#define KG_KERNEL\n"                           \
  "#define KG_DEV static inline\n"                \
  "#endif\n"

static const char add1_cu[] = PRELUDE
    "KG_KERNEL void add1(float *__restrict__ out, const float *__restrict__ in, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = in[i] + 1.0f;\n"
    "}\n";

static kg_nvrtc *open_or_skip(kg_diag *d) {
  kg_nvrtc *n = kg_nvrtc_open(d);
  if (!n) {
    char *t = kg_diag_format(d);
    cr_log_warn("skipped: %s", t);
    free(t);
    kg_diag_free(d);
    cr_skip_test("libnvrtc cannot be loaded");
  }
  return n;
}

Test(rt_nvrtc, version) {
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *n = open_or_skip(&d);
  const char *v = kg_nvrtc_version(n);
  int maj = 0, min = -1;
  cr_assert_eq(sscanf(v, "%d.%d", &maj, &min), 2, "%s", v);
  cr_assert_geq(maj, 11);
  kg_nvrtc_close(n);
  kg_diag_free(&d);
}

Test(rt_nvrtc, add1_ptx_and_cubin) {
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *n = open_or_skip(&d);
  int archs[] = {80, 90};
  for (size_t a = 0; a < 2; a++) {
    for (int cubin = 0; cubin < 2; cubin++) {
      kg_nvrtc_out o;
      int rc = kg_nvrtc_compile(n, "add1.cu", add1_cu, archs[a], cubin, NULL, &o, &d);
      if (rc) {
        char *t = kg_diag_format(&d);
        cr_log_error("%s", t);
        free(t);
      }
      cr_assert_eq(rc, 0);
      cr_assert_not_null(o.ptx);
      cr_assert_eq(strlen(o.ptx), o.ptx_len);
      cr_assert_not_null(strstr(o.ptx, ".entry add1"), "sm_%d", archs[a]);
      char target[32];
      snprintf(target, sizeof target, ".target sm_%d", archs[a]);
      cr_assert_not_null(strstr(o.ptx, target));
      cr_assert_not_null(o.log);
      cr_assert_gt(o.compile_ms, 0.0);
      if (cubin) {
        cr_assert_not_null(o.cubin);
        cr_assert_gt(o.cubin_len, 64);
        cr_assert_eq(memcmp(o.cubin, "\177ELF", 4), 0, "a cubin is an ELF file");
        cr_assert_eq(o.n_stats, 1, "log: %s", o.log);
        cr_assert_str_eq(o.stats[0].name, "add1");
        cr_assert_gt(o.stats[0].regs, 0);
        cr_assert_eq(o.stats[0].spill_stores, 0);
        cr_assert_eq(o.stats[0].spill_loads, 0);
        cr_assert_eq(o.stats[0].smem, 0);
        cr_assert_eq(o.stats[0].stack, 0);
        cr_log_info("sm_%d cubin: %d regs, %.1f ms", archs[a], o.stats[0].regs, o.compile_ms);
      } else {
        cr_assert_null(o.cubin);
        cr_assert_eq(o.n_stats, 0);
        cr_log_info("sm_%d ptx: %.1f ms", archs[a], o.compile_ms);
      }
      kg_nvrtc_out_free(&o);
    }
  }
  cr_assert_eq(d.n, 0);
  kg_nvrtc_close(n);
  kg_diag_free(&d);
}

/* Two entries, shared memory, a barrier and a non-inlined device function with a
 * stack frame: the ptxas report is split per entry, device functions dropped. */
Test(rt_nvrtc, ptxas_stats_per_kernel) {
  static const char cu[] = PRELUDE
      "__device__ __noinline__ float helper(float x) {\n"
      "  float a[64];\n"
      "  for (int i = 0; i < 64; i++) a[i] = x * i;\n"
      "  return a[(int)x & 63];\n"
      "}\n"
      "KG_KERNEL void k_smem(float *o) {\n"
      "  __shared__ float s[256];\n"
      "  s[threadIdx.x] = threadIdx.x;\n"
      "  __syncthreads();\n"
      "  o[threadIdx.x] = helper(s[255 - threadIdx.x]);\n"
      "}\n"
      "KG_KERNEL void k_plain(float *o) { o[threadIdx.x] = 2.0f; }\n";
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *n = open_or_skip(&d);
  kg_nvrtc_out o;
  cr_assert_eq(kg_nvrtc_compile(n, "stats.cu", cu, 86, true, NULL, &o, &d), 0);
  cr_assert_eq(o.n_stats, 2, "%s", o.log);
  const kg_kstats *sm = NULL, *pl = NULL;
  for (uint32_t i = 0; i < o.n_stats; i++) {
    if (!strcmp(o.stats[i].name, "k_smem")) sm = &o.stats[i];
    if (!strcmp(o.stats[i].name, "k_plain")) pl = &o.stats[i];
  }
  cr_assert_not_null(sm);
  cr_assert_not_null(pl);
  cr_assert_eq(sm->smem, 1024);
  cr_assert_gt(sm->regs, 0);
  cr_assert_eq(pl->smem, 0);
  cr_assert_gt(pl->regs, 0);
  kg_nvrtc_out_free(&o);
  kg_nvrtc_close(n);
  kg_diag_free(&d);
}

Test(rt_nvrtc, compile_error_has_log_and_saved_source) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void bad(float *out) {\n"
      "  out[0] = undeclared_thing + 1.0f;\n"
      "}\n";
  char dir[] = "/tmp/kgen-test-nvrtc-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *n = open_or_skip(&d);
  kg_nvrtc_out o;
  cr_assert_neq(kg_nvrtc_compile(n, "bad.cu", cu, 80, true, dir, &o, &d), 0);
  cr_assert_null(o.ptx);
  cr_assert_null(o.cubin);
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_INTERNAL);
  const char *msg = d.items[0].msg;
  cr_assert_not_null(strstr(msg, "bad.cu(9): error"), "%s", msg);
  cr_assert_not_null(strstr(msg, "undeclared_thing"), "%s", msg);
  cr_assert_not_null(strstr(msg, "NVRTC_ERROR_COMPILATION"), "%s", msg);
  const char *at = strstr(msg, "source saved at ");
  cr_assert_not_null(at, "%s", msg);
  char path[512];
  cr_assert_eq(sscanf(at + strlen("source saved at "), "%511s", path), 1);
  cr_assert_eq(strncmp(path, dir, strlen(dir)), 0, "%s", path);
  size_t len = 0;
  char *saved = kg_read_file(path, &len);
  cr_assert_not_null(saved);
  cr_assert_str_eq(saved, cu);
  free(saved);
  unlink(path);
  rmdir(dir);
  kg_nvrtc_close(n);
  kg_diag_free(&d);
}

Test(rt_nvrtc, unsupported_arch_is_an_argument_error) {
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *n = open_or_skip(&d);
  kg_nvrtc_out o;
  cr_assert_neq(kg_nvrtc_compile(n, "add1.cu", add1_cu, 35, false, NULL, &o, &d), 0);
  cr_assert_eq(d.n, 1);
  cr_assert_not_null(strstr(d.items[0].msg, "sm_35"), "%s", d.items[0].msg);
  kg_nvrtc_close(n);
  kg_diag_free(&d);
}

Test(rt_nvrtc, missing_library_is_a_device_error) {
  setenv("KGEN_NVRTC_LIB", "/nonexistent/libnvrtc.so", 1);
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_null(kg_nvrtc_open(&d));
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_DEVICE);
  cr_assert_not_null(strstr(d.items[0].msg, "/nonexistent/libnvrtc.so"), "%s", d.items[0].msg);
  kg_diag_free(&d);
}

/* ---- the CUDA device without a driver ---- */
Test(rt_cuda, no_driver_fails_cleanly) {
  if (kg_dev_cuda_available()) cr_skip_test("a CUDA device is present");
  kg_diag d;
  kg_diag_init(&d);
  kg_rt_config cfg = {0};
  cr_assert_null(kg_dev_cuda_new(&cfg, NULL, &d));
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_DEVICE);
  const char *msg = d.items[0].msg;
  cr_assert(strstr(msg, "no CUDA driver") || strstr(msg, "no CUDA device"), "%s", msg);
  kg_diag_free(&d);
}

#include "fake_cuda.h"

static void show(kg_diag *d) {
  char *t = kg_diag_format(d);
  cr_log_error("%s", t);
  free(t);
}

Test(rt_cuda, stand_in_driver_full_path, .init = fake_setup, .fini = fake_teardown) {
#if defined(__SANITIZE_ADDRESS__)
  /* LeakSanitizer's exit-time tracer crashes (SIGSEGV in its ptrace thread) in a
   * process that loaded libnvrtc's cubin path together with the stand-in driver;
   * the test runs in the plain build. */
  cr_skip_test("stand-in driver test runs in the non-sanitizer build");
#endif
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *nv = kg_nvrtc_open(&d);
  if (!nv) cr_skip_test("libnvrtc cannot be loaded");
  cr_assert(kg_dev_cuda_available());
  kg_rt_config cfg = {0};
  kg_device *dv = kg_dev_cuda_new(&cfg, nv, &d);
  if (!dv) show(&d);
  cr_assert_not_null(dv);
  cr_assert_str_eq(dv->vt->name, "cuda");
  struct fake_stats *st = fake_stats();
  /* Memory, a module (NVRTC -> cubin for sm_80), a launch. */
  enum { N = 1000 };
  float h[N], *din, *dout;
  for (int i = 0; i < N; i++) h[i] = (float)i;
  cr_assert_eq(dv->vt->alloc(dv, sizeof h, (void **)&din, &d), 0);
  cr_assert_eq(dv->vt->alloc(dv, sizeof h, (void **)&dout, &d), 0);
  cr_assert_eq(dv->vt->h2d(dv, din, h, sizeof h, &d), 0);
  kg_rt_source src = {"add1", add1_cu, NULL, NULL, NULL, false};
  kg_rt_module *m = NULL;
  if (dv->vt->load(dv, &src, &m, &d)) show(&d);
  cr_assert_not_null(m);
  cr_assert_eq(st->loads, 1);
  int n = N;
  void *params[] = {&dout, &din, &n};
  uint32_t g[3] = {8, 1, 1}, b[3] = {128, 1, 1};
  cr_assert_eq(dv->vt->launch(dv, m, "add1", g, b, 0, params, NULL, &d), 0);
  cr_assert_eq(dv->vt->sync(dv, NULL, &d), 0);
  cr_assert_eq(dv->vt->d2h(dv, h, dout, sizeof h, &d), 0);
  for (int i = 0; i < N; i++) cr_assert_eq(h[i], (float)i + 1.0f);
  /* The second load of the same source comes from the cubin cache. */
  kg_rt_module *m2 = NULL;
  cr_assert_eq(dv->vt->load(dv, &src, &m2, &d), 0);
  cr_assert_eq(st->loads, 2);
  dv->vt->unload(dv, m2);
  char objdir[128];
  snprintf(objdir, sizeof objdir, "%s/cache/objects", fake_dir);
  DIR *od = opendir(objdir);
  cr_assert_not_null(od);
  int cubins = 0;
  for (struct dirent *e; (e = readdir(od));) cubins += !strncmp(e->d_name, "cubin-", 6);
  closedir(od);
  cr_assert_eq(cubins, 1);
  cr_assert_eq(d.n, 0);

  /* Limits: the kernel's own thread limit, shared memory opt-in and its cap. */
  uint32_t b1024[3] = {1024, 1, 1};
  cr_assert_neq(dv->vt->launch(dv, m, "add1", g, b1024, 0, params, NULL, &d), 0);
  cr_assert_eq(d.items[0].code, KG_E_LIMIT);
  cr_assert_not_null(strstr(d.items[0].msg, "10 registers per thread this kernel allows 512"),
                     "%s", d.items[0].msg);
  kg_diag_clear(&d);
  cr_assert_eq(dv->vt->launch(dv, m, "add1", g, b, 60000, params, NULL, &d), 0);
  cr_assert_eq(st->smem_optin, 60000);
  cr_assert_neq(dv->vt->launch(dv, m, "add1", g, b, 200000, params, NULL, &d), 0);
  cr_assert_not_null(strstr(d.items[0].msg, "166912"), "%s", d.items[0].msg);
  kg_diag_clear(&d);
  uint32_t gbad[3] = {1, 70000, 1};
  cr_assert_neq(dv->vt->launch(dv, m, "add1", gbad, b, 0, params, NULL, &d), 0);
  cr_assert_not_null(strstr(d.items[0].msg, "65535"), "%s", d.items[0].msg);
  kg_diag_clear(&d);
  /* A driver error names the call, the error and the kernel; it is not sticky. */
  cr_assert_neq(dv->vt->launch(dv, m, "nope", g, b, 0, params, NULL, &d), 0);
  cr_assert_eq(d.items[0].code, KG_E_DEVICE);
  cr_assert_not_null(strstr(d.items[0].msg, "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500)"),
                     "%s", d.items[0].msg);
  cr_assert_not_null(strstr(d.items[0].msg, "kernel nope"), "%s", d.items[0].msg);
  kg_diag_clear(&d);
  cr_assert_eq(dv->vt->launch(dv, m, "add1", g, b, 0, params, NULL, &d), 0);

  /* A sticky error (reported at the next sync) poisons the device. */
  uint32_t g13[3] = {13, 1, 1};
  int launches = st->launches;
  cr_assert_eq(dv->vt->launch(dv, m, "add1", g13, b, 0, params, NULL, &d), 0);
  cr_assert_neq(dv->vt->sync(dv, NULL, &d), 0);
  cr_assert_not_null(strstr(d.items[0].msg, "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS"),
                     "%s", d.items[0].msg);
  cr_assert_not_null(strstr(d.items[0].msg, "sticky"), "%s", d.items[0].msg);
  kg_diag_clear(&d);
  st->sync_fail = 0; /* the driver recovers; kgen must not retry anyway */
  void *p = NULL;
  cr_assert_neq(dv->vt->alloc(dv, 16, &p, &d), 0);
  cr_assert_not_null(strstr(d.items[0].msg, "poisoned"), "%s", d.items[0].msg);
  cr_assert_not_null(strstr(d.items[0].msg, "CUDA_ERROR_ILLEGAL_ADDRESS"), "%s", d.items[0].msg);
  kg_diag_clear(&d);
  cr_assert_neq(dv->vt->launch(dv, m, "add1", g, b, 0, params, NULL, &d), 0);
  cr_assert_eq(st->launches, launches + 1, "no launch reached the driver after the error");
  kg_diag_clear(&d);
  cr_assert_neq(dv->vt->load(dv, &src, &m2, &d), 0);
  dv->vt->unload(dv, m);
  dv->vt->free(dv, din);
  dv->vt->free(dv, dout);
  dv->vt->destroy(dv);
  kg_nvrtc_close(nv);
  kg_diag_free(&d);
}

Test(rt_cuda, stand_in_driver_without_devices, .init = fake_setup, .fini = fake_teardown) {
  setenv("FAKE_CUDA_INIT", "100", 1);
  cr_assert_not(kg_dev_cuda_available());
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_null(kg_dev_cuda_new(NULL, NULL, &d));
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_DEVICE);
  cr_assert_not_null(strstr(d.items[0].msg, "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE (100))"),
                     "%s", d.items[0].msg);
  kg_diag_free(&d);
}
