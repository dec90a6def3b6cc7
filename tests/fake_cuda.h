/* tests/fake_cuda.h — a stand-in CUDA driver for tests without a GPU (test_rt_nvrtc.c,
 * test_package.c): its source, built with the host C compiler into a libcuda look-alike that
 * $KGEN_CUDA_LIB selects, and the helpers that set it up and read its counters.
 * $FAKE_CUDA_CC is the compute capability it reports (default 80); it accepts cubins (ELF) and
 * PTX (text the driver would JIT), remembers the last image's hash and length, runs add1
 * itself and counts other launches without running them. Graphs (cuGraph*, for replay.c's
 * CUDA hook): nodes keep copies of their parameters (add1's values), must form a chain in the
 * order added, and run in order at cuGraphLaunch; fake_graph_stats counts them. */
#ifndef KG_FAKE_CUDA_H
#define KG_FAKE_CUDA_H

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the CUDA device against a stand-in driver ----
 * A tiny libcuda look-alike (compiled here with the host C compiler, selected
 * with $KGEN_CUDA_LIB) that keeps "device" memory on the host, checks that it
 * is handed real cubins, runs add1 itself and can fail on demand. It exercises
 * dev_cuda.c's own logic: error checking, sticky-error poisoning, launch
 * validation, the opt-in for large dynamic shared memory and the cubin cache. */
static const char fake_driver[] =
    "#define _DEFAULT_SOURCE\n#include <stdlib.h>\n#include <string.h>\n#include <sys/mman.h>\n"
    "typedef int R;\n"
    "struct fake_stats { int loads, launches, smem_optin, sync_fail, ptx_loads; unsigned long long image_hash, image_len; } fake_stats;\n"
    "static int cc(int minor) { const char *e = getenv(\"FAKE_CUDA_CC\"); int v = e ? atoi(e) : 80; return minor ? v % 10 : v / 10; }\n"
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
    "  case 75: *v = cc(0); break; case 76: *v = cc(1); break; case 1: case 2: case 3: *v = 1024; break;\n"
    "  case 4: *v = 64; break; case 5: *v = 2147483647; break; case 6: case 7: *v = 65535; break;\n"
    "  case 8: *v = 49152; break; case 97: *v = 166912; break; case 16: *v = 132; break; case 39: *v = 2048; break;\n"
    "  case 81: *v = 233472; break; default: return 1; } return 0; }\n"
    "R cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)16; return 0; }\n"
    "R cuDevicePrimaryCtxRelease_v2(int d) { return 0; }\n"
    "R cuCtxSetCurrent(void *c) { return c == (void *)16 ? 0 : 201; }\n"
    "R cuCtxSynchronize(void) { if (fake_stats.sync_fail) return 700; return 0; }\n"
    "R cuStreamSynchronize(void *s) { return cuCtxSynchronize(); }\n"
    ;
/* (two strings: C99 compilers need only 4095 characters of one) */
static const char fake_driver2[] =
    "R cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) {\n"
    "  int ptx = !memcmp(img, \"//\", 2); size_t len = ptx ? strlen(img) + 1 : 0;\n"
    "  if (!ptx && memcmp(img, \"\\177ELF\", 4)) { for (unsigned i = 0; i < n; i++) if (o[i] == 5) strcpy(v[i], \"not a cubin\"); return 200; }\n"
    "  if (!ptx) { const unsigned char *e = img; len = *(const unsigned long long *)(e + 40) + (size_t)*(const unsigned short *)(e + 58) * *(const unsigned short *)(e + 60); }\n"
    "  unsigned long long h = 1469598103934665603ull; for (size_t i = 0; i < len; i++) { h ^= ((const unsigned char *)img)[i]; h *= 1099511628211ull; }\n"
    "  fake_stats.image_hash = h, fake_stats.image_len = len;\n"
    "  fake_stats.loads++; fake_stats.ptx_loads += ptx; *m = (void *)32; return 0; }\n"
    "R cuModuleUnload(void *m) { return 0; }\n"
    "R cuModuleGetFunction(void **f, void *m, const char *k) { if (!strcmp(k, \"add1\")) { *f = (void *)48; return 0; }\n"
    "  if (!strstr(k, \"_k\")) return 500; *f = (void *)64; return 0; }\n"
    "R cuFuncGetAttribute(int *v, int a, void *f) { *v = a == 0 ? 512 : a == 1 ? 0 : a == 4 ? 10 : 0; return 0; }\n"
    "R cuFuncSetAttribute(void *f, int a, int v) { if (a == 8) fake_stats.smem_optin = v; return 0; }\n"
    "R cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,\n"
    "                 unsigned smem, void *st, void **p, void **x) {\n"
    "  fake_stats.launches++; if (f != (void *)48) return 0; if (gx == 13) { fake_stats.sync_fail = 1; return 0; }\n"
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
static const char fake_driver3[] =
    "typedef struct { void *func; unsigned gx, gy, gz, bx, by, bz, smem; void **kp; void **extra; } KP;\n"
    "struct fnode { void *f; unsigned gx, bx; float *out; const float *in; int n; void *key; };\n"
    "struct fgraph { struct fnode **v; int n; };\n"
    "struct fake_graph_stats { int made, nodes, bad_deps, instantiated, sets, launches, destroyed; } fake_graph_stats;\n"
    "static void fill(struct fnode *x, const KP *p) { x->f = p->func; x->gx = p->gx; x->bx = p->bx;\n"
    "  if (p->func == (void *)48) { x->out = *(float **)p->kp[0]; x->in = *(const float **)p->kp[1]; x->n = *(int *)p->kp[2]; } }\n"
    "static void push(struct fgraph *g, struct fnode *x) { g->v = realloc(g->v, sizeof *g->v * (size_t)(g->n + 1)); g->v[g->n++] = x; }\n"
    "R cuGraphCreate(void **g, unsigned f) { *g = calloc(1, sizeof(struct fgraph)); fake_graph_stats.made++; return 0; }\n"
    "R cuGraphAddKernelNode(void **node, void *g, void *const *deps, size_t nd, const KP *p) { struct fgraph *G = g;\n"
    "  struct fnode *x = calloc(1, sizeof *x); fill(x, p); x->key = x;\n"
    "  if (G->n ? nd != 1 || deps[0] != G->v[G->n - 1] : nd != 0) fake_graph_stats.bad_deps++;\n"
    "  push(G, x); *node = x; fake_graph_stats.nodes++; return 0; }\n"
    "R cuGraphInstantiateWithFlags(void **e, void *g, unsigned long long fl) { struct fgraph *G = g, *E = calloc(1, sizeof *E);\n"
    "  for (int i = 0; i < G->n; i++) { struct fnode *x = malloc(sizeof *x); *x = *G->v[i]; push(E, x); }\n"
    "  *e = E; fake_graph_stats.instantiated++; return 0; }\n"
    "R cuGraphExecKernelNodeSetParams(void *e, void *node, const KP *p) { struct fgraph *E = e;\n"
    "  for (int i = 0; i < E->n; i++) if (E->v[i]->key == node) { if (p->func != E->v[i]->f) return 1; fill(E->v[i], p); fake_graph_stats.sets++; return 0; }\n"
    "  return 400; }\n"
    "R cuGraphLaunch(void *e, void *s) { struct fgraph *E = e; fake_graph_stats.launches++;\n"
    "  for (int i = 0; i < E->n; i++) { struct fnode *x = E->v[i]; fake_stats.launches++;\n"
    "    if (x->f == (void *)48) for (long k = 0; k < (long)x->gx * x->bx && k < x->n; k++) x->out[k] = x->in[k] + 1.0f; }\n"
    "  return 0; }\n"
    "static void drop(struct fgraph *g) { for (int i = 0; i < g->n; i++) free(g->v[i]); free(g->v); free(g); }\n"
    "R cuGraphExecDestroy(void *e) { drop(e); fake_graph_stats.destroyed++; return 0; }\n"
    "R cuGraphDestroy(void *g) { drop(g); return 0; }\n";

struct fake_stats {
  int loads, launches, smem_optin, sync_fail, ptx_loads;
  unsigned long long image_hash, image_len; /* the last image loaded: FNV-1a of its bytes (a cubin: its ELF extent) */
};
struct fake_graph_stats { int made, nodes, bad_deps, instantiated, sets, launches, destroyed; };
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
  fputs(fake_driver2, f);
  fputs(fake_driver3, f);
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
static inline struct fake_graph_stats *fake_graph_stats(void) {
  void *h = dlopen(getenv("KGEN_CUDA_LIB"), RTLD_NOW | RTLD_NOLOAD);
  cr_assert_not_null(h);
  struct fake_graph_stats *s = dlsym(h, "fake_graph_stats");
  cr_assert_not_null(s);
  dlclose(h);
  return s;
}
#endif
