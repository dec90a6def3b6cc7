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

/* ---- the CUDA device against a stand-in driver ----
 * A tiny libcuda look-alike (compiled here with the host C compiler, selected
 * with $KGEN_CUDA_LIB) that keeps "device" memory on the host, checks that it
 * is handed real cubins, runs add1 itself and can fail on demand. It exercises
 * dev_cuda.c's own logic: error checking, sticky-error poisoning, launch
 * validation, the opt-in for large dynamic shared memory and the cubin cache. */
static const char fake_driver[] =
    "#define _DEFAULT_SOURCE\n#include <stdlib.h>\n#include <string.h>\n#include <sys/mman.h>\n"
    "typedef int R;\n"
    "struct fake_stats { int loads, launches, smem_optin, sync_fail; } fake_stats;\n"
    "static const char *name(R r) { switch (r) { case 0: return \"CUDA_SUCCESS\";\n"
    "  case 100: return \"CUDA_ERROR_NO_DEVICE\"; case 200: return \"CUDA_ERROR_INVALID_IMAGE\";\n"
    "  case 500: return \"CUDA_ERROR_NOT_FOUND\"; case 700: return \"CUDA_ERROR_ILLEGAL_ADDRESS\";\n"
    "  default: return 0; } }\n"
    "R cuGetErrorName(R r, const char **s) { *s = name(r); return *s ? 0 : 1; }\n"
    "R cuGetErrorString(R r, const char **s) { *s = r == 700 ? \"an illegal memory access was encountered\" : name(r); return *s ? 0 : 1; }\n"
    "R cuInit(unsigned f) { const char *e = getenv(\"FAKE_CUDA_INIT\"); return e ? atoi(e) : 0; }\n"
    "R cuDriverGetVersion(int *v) { *v = 13000; return 0; }\n"
    "R cuDeviceGetCount(int *n) { *n = 1; return 0; }\n"
    "R cuDeviceGet(int *d, int i) { *d = i; return 0; }\n"
    "R cuDeviceGetName(char *s, int n, int d) { strncpy(s, \"Fake GPU\", (size_t)n); return 0; }\n"
    "R cuDeviceGetAttribute(int *v, int a, int d) { switch (a) {\n"
    "  case 75: *v = 8; break; case 76: *v = 0; break; case 1: case 2: case 3: *v = 1024; break;\n"
    "  case 4: *v = 64; break; case 5: *v = 2147483647; break; case 6: case 7: *v = 65535; break;\n"
    "  case 8: *v = 49152; break; case 97: *v = 166912; break; default: return 1; } return 0; }\n"
    "R cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)16; return 0; }\n"
    "R cuDevicePrimaryCtxRelease_v2(int d) { return 0; }\n"
    "R cuCtxSetCurrent(void *c) { return c == (void *)16 ? 0 : 201; }\n"
    "R cuCtxSynchronize(void) { if (fake_stats.sync_fail) return 700; return 0; }\n"
    "R cuStreamSynchronize(void *s) { return cuCtxSynchronize(); }\n"
    "R cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) {\n"
    "  if (memcmp(img, \"\\177ELF\", 4)) { for (unsigned i = 0; i < n; i++) if (o[i] == 5) strcpy(v[i], \"not a cubin\"); return 200; }\n"
    "  fake_stats.loads++; *m = (void *)32; return 0; }\n"
    "R cuModuleUnload(void *m) { return 0; }\n"
    "R cuModuleGetFunction(void **f, void *m, const char *k) { if (strcmp(k, \"add1\")) return 500; *f = (void *)48; return 0; }\n"
    "R cuFuncGetAttribute(int *v, int a, void *f) { *v = a == 0 ? 512 : a == 1 ? 0 : a == 4 ? 10 : 0; return 0; }\n"
    "R cuFuncSetAttribute(void *f, int a, int v) { if (a == 8) fake_stats.smem_optin = v; return 0; }\n"
    "R cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,\n"
    "                 unsigned smem, void *st, void **p, void **x) {\n"
    "  fake_stats.launches++; if (gx == 13) { fake_stats.sync_fail = 1; return 0; }\n"
    "  float *out = *(float **)p[0]; const float *in = *(const float **)p[1]; int n = *(int *)p[2];\n"
    "  for (long i = 0; i < (long)gx * bx && i < n; i++) out[i] = in[i] + 1.0f; return 0; }\n"
    "/* device memory: mmap, not the host heap (a poisoned device never frees it) */\n"
    "R cuMemAlloc_v2(unsigned long long *p, size_t n) {\n"
    "  char *m = mmap(0, n + 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
    "  if (m == MAP_FAILED) return 2; memcpy(m, &n, sizeof n); *p = (unsigned long long)(size_t)(m + 64); return 0; }\n"
    "R cuMemFree_v2(unsigned long long p) { char *m = (char *)(size_t)p - 64; size_t n; memcpy(&n, m, sizeof n);\n"
    "  munmap(m, n + 64); return 0; }\n"
    "R cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { memcpy((void *)(size_t)d, s, n); return 0; }\n"
    "R cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { memcpy(d, (void *)(size_t)s, n); return 0; }\n";

struct fake_stats {
  int loads, launches, smem_optin, sync_fail;
};
static char fake_dir[64];

static void fake_setup(void) {
  strcpy(fake_dir, "/tmp/kgen-test-cuda-XXXXXX");
  cr_assert_not_null(mkdtemp(fake_dir));
  char src[128], lib[128], cmd[512], cache[128];
  snprintf(src, sizeof src, "%s/fake_cuda.c", fake_dir);
  snprintf(lib, sizeof lib, "%s/libcuda_fake.so", fake_dir);
  snprintf(cache, sizeof cache, "%s/cache", fake_dir);
  FILE *f = fopen(src, "w");
  cr_assert_not_null(f);
  fputs(fake_driver, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -std=c11 -shared -fPIC -w -o %s %s", lib, src);
  if (system(cmd) != 0) cr_skip_test("no host C compiler to build the stand-in driver");
  setenv("KGEN_CUDA_LIB", lib, 1);
  setenv("KGEN_CACHE_DIR", cache, 1);
}
static void fake_teardown(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fake_dir);
  if (system(cmd)) cr_log_warn("could not remove %s", fake_dir);
}
static struct fake_stats *fake_stats(void) {
  void *h = dlopen(getenv("KGEN_CUDA_LIB"), RTLD_NOW | RTLD_NOLOAD);
  cr_assert_not_null(h);
  struct fake_stats *s = dlsym(h, "fake_stats");
  cr_assert_not_null(s);
  dlclose(h);
  return s;
}
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
  kg_rt_source src = {"add1", add1_cu, NULL, NULL, NULL};
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
