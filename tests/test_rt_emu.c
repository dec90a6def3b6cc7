/* tests/test_rt_emu.c — the CPU emulator device (runtime/dev_emu.c + kg_emu.h):
 * hand-written kernels compiled by the host C compiler and run over whole grids,
 * in every thread order; index setup; compile errors; launch limits; the object
 * cache; fp16 / bf16 conversions against the host's _Float16. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
static const char add1_tramp[] =
    "void add1__kg_thread(void **p);\n"
    "void add1__kg_thread(void **p) { add1(*(float **)p[0], *(const float **)p[1], *(int *)p[2]); }\n";

/* ---- fixtures: a private cache folder per test (Criterion forks per test) ---- */
static char tdir[64];

static void rm_rf(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char p[512];
      snprintf(p, sizeof p, "%s/%s", path, e->d_name);
      struct stat st;
      if (!lstat(p, &st) && S_ISDIR(st.st_mode)) rm_rf(p);
      else unlink(p);
    }
    closedir(d);
  }
  rmdir(path);
}
static void setup(void) {
  strcpy(tdir, "/tmp/kgen-test-emu-XXXXXX");
  cr_assert_not_null(mkdtemp(tdir));
  char c[128];
  snprintf(c, sizeof c, "%s/cache", tdir);
  setenv("KGEN_CACHE_DIR", c, 1);
  unsetenv("KGEN_EMU_ORDER");
  unsetenv("KGEN_EMU_SEED");
}
static void teardown(void) { rm_rf(tdir); }

static kg_device *new_emu(int order, unsigned seed, const char *cc, kg_diag *d) {
  kg_rt_config cfg = {0};
  cfg.emu.order = order;
  cfg.emu.seed = seed;
  cfg.cc = cc;
  kg_device *dv = kg_dev_emu_new(&cfg, d);
  if (!dv) {
    char *t = kg_diag_format(d);
    cr_log_error("%s", t);
    free(t);
  }
  cr_assert_not_null(dv);
  return dv;
}
static kg_rt_module *load_ok(kg_device *dv, const char *name, const char *cu, const char *tr,
                             kg_diag *d) {
  kg_rt_source src = {name, cu, tr, NULL, NULL, false};
  kg_rt_module *m = NULL;
  int rc = dv->vt->load(dv, &src, &m, d);
  if (rc) {
    char *t = kg_diag_format(d);
    cr_log_error("%s", t);
    free(t);
  }
  cr_assert_eq(rc, 0);
  cr_assert_not_null(m);
  return m;
}
static void expect_ok(int rc, kg_diag *d) {
  if (rc) {
    char *t = kg_diag_format(d);
    cr_log_error("%s", t);
    free(t);
  }
  cr_assert_eq(rc, 0);
}

/* Runs add1 over n elements in the given order; checks every element. */
static void run_add1(int order, unsigned seed, int n, unsigned block) {
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = new_emu(order, seed, NULL, &d);
  kg_rt_module *m = load_ok(dv, "add1", add1_cu, add1_tramp, &d);
  float *in, *out;
  cr_assert_eq(dv->vt->alloc(dv, (size_t)n * 4, (void **)&in, &d), 0);
  cr_assert_eq(dv->vt->alloc(dv, (size_t)n * 4, (void **)&out, &d), 0);
  float *h = malloc((size_t)n * 4);
  for (int i = 0; i < n; i++) h[i] = (float)i * 0.5f - 3.0f;
  cr_assert_eq(dv->vt->h2d(dv, in, h, (size_t)n * 4, &d), 0);
  void *params[] = {&out, &in, &n};
  uint32_t grid[3] = {(uint32_t)(n + (int)block - 1) / block, 1, 1}, blk[3] = {block, 1, 1};
  expect_ok(dv->vt->launch(dv, m, "add1", grid, blk, 0, params, NULL, &d), &d);
  cr_assert_eq(dv->vt->sync(dv, NULL, &d), 0);
  cr_assert_eq(dv->vt->d2h(dv, h, out, (size_t)n * 4, &d), 0);
  for (int i = 0; i < n; i++) cr_assert_eq(h[i], (float)i * 0.5f - 3.0f + 1.0f, "element %d", i);
  free(h);
  dv->vt->free(dv, in);
  dv->vt->free(dv, out);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  cr_assert_eq(d.n, 0);
  kg_diag_free(&d);
}

TestSuite(rt_emu, .init = setup, .fini = teardown);

Test(rt_emu, add1_forward) { run_add1(0, 0, 1000, 128); }
Test(rt_emu, add1_reverse) { run_add1(1, 0, 1000, 128); }
Test(rt_emu, add1_random) { run_add1(2, 12345, 777, 96); }
Test(rt_emu, add1_env_order) {
  setenv("KGEN_EMU_ORDER", "random", 1);
  setenv("KGEN_EMU_SEED", "7", 1);
  run_add1(0, 0, 300, 64);
}

/* Every thread writes its indices: checks blockIdx / threadIdx / blockDim / gridDim
 * over a 2-D grid of 3-D blocks. */
Test(rt_emu, indices_2d_grid_3d_block) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void idx(unsigned *out) {\n"
      "  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n"
      "  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
      "  unsigned *o = out + 12 * (b * blockDim.x * blockDim.y * blockDim.z + t);\n"
      "  o[0] = blockIdx.x; o[1] = blockIdx.y; o[2] = blockIdx.z;\n"
      "  o[3] = threadIdx.x; o[4] = threadIdx.y; o[5] = threadIdx.z;\n"
      "  o[6] = blockDim.x; o[7] = blockDim.y; o[8] = blockDim.z;\n"
      "  o[9] = gridDim.x; o[10] = gridDim.y; o[11] = gridDim.z;\n"
      "}\n";
  static const char tr[] = "void idx__kg_thread(void **p) { idx(*(unsigned **)p[0]); }\n";
  for (int order = 0; order < 3; order++) {
    kg_diag d;
    kg_diag_init(&d);
    kg_device *dv = new_emu(order, 99, NULL, &d);
    kg_rt_module *m = load_ok(dv, "idx", cu, tr, &d);
    uint32_t grid[3] = {3, 2, 1}, blk[3] = {4, 3, 2};
    size_t nthreads = 3 * 2 * 4 * 3 * 2, bytes = nthreads * 12 * sizeof(unsigned);
    unsigned *out;
    cr_assert_eq(dv->vt->alloc(dv, bytes, (void **)&out, &d), 0);
    void *params[] = {&out};
    expect_ok(dv->vt->launch(dv, m, "idx", grid, blk, 0, params, NULL, &d), &d);
    unsigned *h = malloc(bytes);
    cr_assert_eq(dv->vt->d2h(dv, h, out, bytes, &d), 0);
    size_t k = 0;
    for (unsigned bz = 0; bz < 1; bz++)
      for (unsigned by = 0; by < 2; by++)
        for (unsigned bx = 0; bx < 3; bx++)
          for (unsigned tz = 0; tz < 2; tz++)
            for (unsigned ty = 0; ty < 3; ty++)
              for (unsigned tx = 0; tx < 4; tx++, k++) {
                unsigned want[12] = {bx, by, bz, tx, ty, tz, 4, 3, 2, 3, 2, 1};
                for (int f = 0; f < 12; f++)
                  cr_assert_eq(h[k * 12 + f], want[f], "order %d thread %zu field %d", order, k, f);
              }
    free(h);
    dv->vt->free(dv, out);
    dv->vt->unload(dv, m);
    dv->vt->destroy(dv);
    kg_diag_free(&d);
  }
}

Test(rt_emu, compile_error_reports_compiler_message) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void bad(float *out) {\n"
      "  out[0] = undeclared_thing + 1.0f;\n"
      "}\n";
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = new_emu(0, 0, NULL, &d);
  kg_rt_source src = {"bad", cu, "void bad__kg_thread(void **p) { bad(*(float **)p[0]); }\n", NULL, NULL, false};
  kg_rt_module *m = NULL;
  cr_assert_neq(dv->vt->load(dv, &src, &m, &d), 0);
  cr_assert_null(m);
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_INTERNAL);
  const char *msg = d.items[0].msg;
  cr_assert_not_null(strstr(msg, "undeclared_thing"), "%s", msg);
  cr_assert_not_null(strstr(msg, "bad.cu:9"), "line of the CUDA text: %s", msg);
  const char *at = strstr(msg, "source saved at ");
  cr_assert_not_null(at, "%s", msg);
  char path[512];
  cr_assert_eq(sscanf(at + strlen("source saved at "), "%511s", path), 1);
  cr_assert_eq(access(path, R_OK), 0, "saved source %s", path);
  dv->vt->destroy(dv);
  kg_diag_free(&d);
}

Test(rt_emu, invalid_launch_rejected) {
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = new_emu(0, 0, NULL, &d);
  kg_rt_module *m = load_ok(dv, "add1", add1_cu, add1_tramp, &d);
  float *p = NULL;
  int n = 0;
  void *params[] = {&p, &p, &n};
  struct {
    uint32_t g[3], b[3], smem;
    const char *why;
  } bad[] = {
      {{1, 1, 1}, {2048, 1, 1}, 0, "1024 threads"},
      {{1, 1, 1}, {1, 1, 128}, 0, "block.z"},
      {{1, 70000, 1}, {32, 1, 1}, 0, "65535"},
      {{0, 1, 1}, {32, 1, 1}, 0, "is 0"},
      {{1, 1, 1}, {32, 1, 1}, 300000, "227 KiB"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    kg_diag_clear(&d);
    cr_assert_neq(dv->vt->launch(dv, m, "add1", bad[i].g, bad[i].b, bad[i].smem, params, NULL, &d), 0);
    cr_assert_eq(d.n, 1);
    cr_assert_eq(d.items[0].code, KG_E_LIMIT);
    cr_assert_not_null(strstr(d.items[0].msg, bad[i].why), "%s", d.items[0].msg);
    cr_assert_not_null(strstr(d.items[0].msg, "add1"), "%s", d.items[0].msg);
  }
  kg_diag_clear(&d);
  uint32_t g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
  cr_assert_neq(dv->vt->launch(dv, m, "nope", g, b, 0, params, NULL, &d), 0);
  cr_assert_not_null(strstr(d.items[0].msg, "nope__kg_thread"), "%s", d.items[0].msg);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&d);
}

/* A compiler wrapper that counts its runs shows whether a load compiled. */
static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}
static char *make_counting_cc(void) {
  static char wrap[256];
  snprintf(wrap, sizeof wrap, "%s/cc-count.sh", tdir);
  FILE *f = fopen(wrap, "w");
  cr_assert_not_null(f);
  fprintf(f, "#!/bin/sh\necho run >> '%s/cc-count'\nexec cc \"$@\"\n", tdir);
  fclose(f);
  chmod(wrap, 0755);
  return wrap;
}

Test(rt_emu, second_load_hits_cache) {
  char *cc = make_counting_cc();
  char count[256];
  snprintf(count, sizeof count, "%s/cc-count", tdir);
  kg_diag d;
  kg_diag_init(&d);
  /* First device: two compiles (the runtime object, once, and the kernel's), then a memory hit. */
  kg_device *dv = new_emu(0, 0, cc, &d);
  kg_rt_module *m1 = load_ok(dv, "add1", add1_cu, add1_tramp, &d);
  cr_assert_eq(count_lines(count), 2);
  kg_rt_module *m2 = load_ok(dv, "add1", add1_cu, add1_tramp, &d);
  cr_assert_eq(count_lines(count), 2);
  /* Both modules are independent and work. */
  float in[3] = {1, 2, 3}, out[3] = {0};
  float *pi = in, *po = out;
  int n = 3;
  void *params[] = {&po, &pi, &n};
  uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
  dv->vt->unload(dv, m1);
  expect_ok(dv->vt->launch(dv, m2, "add1", g, b, 0, params, NULL, &d), &d);
  cr_assert_eq(out[2], 4.0f);
  dv->vt->unload(dv, m2);
  dv->vt->destroy(dv);
  /* Second device (as a new process would): disk hits, the runtime's and the kernel's. */
  dv = new_emu(0, 0, cc, &d);
  kg_rt_module *m3 = load_ok(dv, "add1", add1_cu, add1_tramp, &d);
  cr_assert_eq(count_lines(count), 2);
  dv->vt->unload(dv, m3);
  /* A different source compiles again (the runtime does not). */
  kg_rt_module *m4 = load_ok(dv, "add1b", add1_cu, add1_tramp, &d);
  cr_assert_eq(count_lines(count), 3);
  dv->vt->unload(dv, m4);
  dv->vt->destroy(dv);
  /* A corrupted entry is detected, recompiled and replaced: the kernels' and the runtime's. */
  char objdir[256];
  snprintf(objdir, sizeof objdir, "%s/cache/objects", tdir);
  DIR *od = opendir(objdir);
  cr_assert_not_null(od);
  struct dirent *e;
  int flipped = 0;
  while ((e = readdir(od))) {
    if (strncmp(e->d_name, "emu-so-", 7) && strncmp(e->d_name, "emu-rt-", 7)) continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", objdir, e->d_name);
    FILE *f = fopen(p, "r+b");
    cr_assert_not_null(f);
    fseek(f, -100, SEEK_END);
    int c = fgetc(f);
    fseek(f, -100, SEEK_END);
    fputc(c ^ 0x10, f);
    fclose(f);
    flipped++;
  }
  closedir(od);
  cr_assert_eq(flipped, 3);
  dv = new_emu(0, 0, cc, &d);
  kg_rt_module *m5 = load_ok(dv, "add1", add1_cu, add1_tramp, &d);
  cr_assert_eq(count_lines(count), 5);
  dv->vt->unload(dv, m5);
  dv->vt->destroy(dv);
  cr_assert_eq(d.n, 0);
  kg_diag_free(&d);
}

/* fp16 / bf16 conversions of kg_emu.h, run inside an emulated kernel. */
static const char conv_cu[] = PRELUDE
    "KG_KERNEL void conv(unsigned short *h, unsigned short *bf, const float *in,\n"
    "                    float *h2f, float *bf2f, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "#ifndef __CUDACC__\n"
    "  if (i < n) { h[i] = kg_emu_f2h(in[i]); bf[i] = kg_emu_f2bf(in[i]); }\n"
    "  if (i < 65536) { h2f[i] = kg_emu_h2f((unsigned short)i); bf2f[i] = kg_emu_bf2f((unsigned short)i); }\n"
    "#endif\n"
    "}\n";
static const char conv_tr[] =
    "void conv__kg_thread(void **p) { conv(*(unsigned short **)p[0], *(unsigned short **)p[1],\n"
    "  *(const float **)p[2], *(float **)p[3], *(float **)p[4], *(int *)p[5]); }\n";

#ifdef __FLT16_MAX__
__extension__ typedef _Float16 host_f16; /* the host's own IEEE half, the reference */
#endif
static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

Test(rt_emu, half_and_bfloat16_conversions) {
  /* Hand-picked cases: ties, subnormals, overflow, inf, NaN, signed zero. */
  struct { float f; unsigned short h; } cases[] = {
      {0.0f, 0x0000}, {-0.0f, 0x8000}, {1.0f, 0x3c00}, {-2.0f, 0xc000},
      {1.0f + 0x1p-11f, 0x3c00},        /* tie -> even (down) */
      {1.0f + 3 * 0x1p-11f, 0x3c02},    /* tie -> even (up) */
      {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01}, /* just above the tie */
      {65504.0f, 0x7bff}, {65519.0f, 0x7bff}, {65520.0f, 0x7c00}, {1e6f, 0x7c00},
      {0x1p-14f, 0x0400},               /* smallest normal */
      {0x1p-24f, 0x0001},               /* smallest subnormal */
      {0x1p-25f, 0x0000},               /* tie between 0 and 2^-24 -> 0 */
      {0x1.8p-24f, 0x0002},             /* tie 1.5 ulp -> 2 */
      {0x1.4p-23f, 0x0002},             /* 2.5 ulp -> 2 */
      {0x1.000002p-25f, 0x0001},        /* just above half an ulp */
      {0x1.ffcp-15f, 0x0400},           /* rounds up into the normals */
      {INFINITY, 0x7c00}, {-INFINITY, 0xfc00},
  };
  enum { NC = sizeof cases / sizeof cases[0], NR = 200000, N = NC + NR + 4 };
  float *in = malloc(N * sizeof(float));
  for (int i = 0; i < NC; i++) in[i] = cases[i].f;
  uint64_t s = 42;
  for (int i = NC; i < NC + NR; i++) { /* random bit patterns, weighted to fp16 range */
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t u = (uint32_t)(s >> 32);
    if (i & 1) u = (u & 0x80000000u) | (0x30000000u + (u & 0x17ffffffu));
    in[i] = f_of(u);
  }
  in[NC + NR] = NAN, in[NC + NR + 1] = -NAN;
  in[NC + NR + 2] = f_of(0x7f800001u), in[NC + NR + 3] = f_of(0xff812345u);

  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = new_emu(0, 0, NULL, &d);
  kg_rt_module *m = load_ok(dv, "conv", conv_cu, conv_tr, &d);
  unsigned short *h = malloc(N * 2), *bf = malloc(N * 2);
  float *h2f = malloc(65536 * 4), *bf2f = malloc(65536 * 4);
  int n = N;
  void *params[] = {&h, &bf, &in, &h2f, &bf2f, &n};
  uint32_t g[3] = {(N + 255) / 256, 1, 1}, b[3] = {256, 1, 1};
  expect_ok(dv->vt->launch(dv, m, "conv", g, b, 0, params, NULL, &d), &d);

  for (int i = 0; i < NC; i++) cr_assert_eq(h[i], cases[i].h, "case %d: %a -> %#x", i, cases[i].f, h[i]);
  for (int i = NC + NR; i < N; i++) {
    cr_assert_eq(h[i] & 0x7c00, 0x7c00, "NaN keeps exponent");
    cr_assert_neq(h[i] & 0x3ff, 0, "NaN stays NaN");
    cr_assert_eq(h[i] >> 15, u_of(in[i]) >> 31, "NaN keeps sign");
  }
  /* Every half decodes exactly (NaNs stay NaNs); the round trip half -> float
   * -> half is checked by feeding the decoded values back through the kernel. */
  for (uint32_t i = 0; i < 65536; i++) {
    float f = h2f[i];
    int nan = (i & 0x7c00) == 0x7c00 && (i & 0x3ff);
    cr_assert_eq(isnan(f) != 0, nan, "half %#x -> %a", i, f);
    if (nan) continue;
#ifdef __FLT16_MAX__
    host_f16 x;
    uint16_t hb = (uint16_t)i;
    memcpy(&x, &hb, 2);
    cr_assert_eq(u_of((float)x), u_of(f), "half %#x: %a vs host %a", i, f, (float)x);
#endif
  }
#ifdef __FLT16_MAX__
  for (int i = 0; i < NC + NR; i++) { /* RNE against the host's conversion */
    host_f16 x = (host_f16)in[i];
    uint16_t hb;
    memcpy(&hb, &x, 2);
    cr_assert_eq(h[i], hb, "float %a (%#x): ours %#x host %#x", in[i], u_of(in[i]), h[i], hb);
  }
#else
  cr_log_warn("no _Float16 on this host: random cases checked by round trip only");
#endif
  /* bfloat16: exact decode; RNE encode checked against integer arithmetic. */
  for (uint32_t i = 0; i < 65536; i++) {
    uint32_t u = u_of(bf2f[i]);
    cr_assert_eq(u, i << 16);
  }
  for (int i = 0; i < NC + NR; i++) {
    uint32_t u = u_of(in[i]);
    if ((u & 0x7fffffffu) > 0x7f800000u) continue;
    uint32_t lo = u & 0xffffu, q = u >> 16;
    if (lo > 0x8000u || (lo == 0x8000u && (q & 1))) q++;
    cr_assert_eq(bf[i], (unsigned short)q, "bf16 of %a", in[i]);
  }
  for (int i = NC + NR; i < N; i++) cr_assert(isnan(f_of((uint32_t)bf[i] << 16)), "bf16 NaN");
  /* Round trip: every non-NaN half, decoded, encodes back to itself. */
  float *rt_in = malloc(65536 * 4);
  memcpy(rt_in, h2f, 65536 * 4);
  n = 65536;
  void *params2[] = {&h, &bf, &rt_in, &h2f, &bf2f, &n};
  uint32_t g2[3] = {256, 1, 1};
  expect_ok(dv->vt->launch(dv, m, "conv", g2, b, 0, params2, NULL, &d), &d);
  for (uint32_t i = 0; i < 65536; i++)
    if (!((i & 0x7c00) == 0x7c00 && (i & 0x3ff))) cr_assert_eq(h[i], i, "half %#x round trip", i);
  free(rt_in);
  free(in), free(h), free(bf), free(h2f), free(bf2f);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&d);
}

/* ---- fibers: barriers, shared memory, warp operations ---- */

/* Loads `cu` (kernel `k`, trampoline text `tr`), launches it with one
 * configuration in `order`; returns the launch's result code (diagnostics in d). */
static int run_kernel(int order, const char *name, const char *cu, const char *tr, uint32_t gx,
                      uint32_t bx, void **params, kg_diag *d) {
  kg_device *dv = new_emu(order, 4242u + (unsigned)order, NULL, d);
  kg_rt_module *m = load_ok(dv, name, cu, tr, d);
  uint32_t g[3] = {gx, 1, 1}, b[3] = {bx, 1, 1};
  int rc = dv->vt->launch(dv, m, name, g, b, 0, params, NULL, d);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  return rc;
}

static const char rev_cu[] = PRELUDE
    "KG_KERNEL void rev(float *out, const float *in, float *probe) {\n"
    "  __shared__ float s[256];\n"
    "  __shared__ float first[1];\n"
    "  unsigned t = threadIdx.x, base = blockIdx.x * 256;\n"
    "  if (t == 0) probe[blockIdx.x] = first[0]; /* poisoned at every block start */\n"
    "  s[t] = in[base + t];\n"
    "  __syncthreads();\n"
    "  if (t == 0) first[0] = 1.0f;\n"
    "  out[base + t] = s[255 - t];\n"
    "}\n";
static const char rev_tr[] =
    "void rev__kg_thread(void **p) { rev(*(float **)p[0], *(const float **)p[1], *(float **)p[2]); }\n";

Test(rt_emu, shared_memory_and_barrier_in_every_order) {
  enum { NB = 3, N = NB * 256 };
  for (int order = 0; order < 3; order++) {
    float in[N], out[N], probe[NB];
    for (int i = 0; i < N; i++) in[i] = (float)i;
    float *pi = in, *po = out, *pp = probe;
    void *params[] = {&po, &pi, &pp};
    kg_diag d;
    kg_diag_init(&d);
    expect_ok(run_kernel(order, "rev", rev_cu, rev_tr, NB, 256, params, &d), &d);
    for (int b = 0; b < NB; b++) {
      cr_assert(isnan(probe[b]), "order %d block %d: shared memory not poisoned", order, b);
      for (int t = 0; t < 256; t++) cr_assert_eq(out[b * 256 + t], (float)(b * 256 + 255 - t));
    }
    kg_diag_free(&d);
  }
}

/* Without the barrier the same kernel reads poison: the thread orders expose it. */
Test(rt_emu, missing_barrier_is_exposed) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void nobar(float *out, const float *in) {\n"
      "  __shared__ float s[64];\n"
      "  unsigned t = threadIdx.x;\n"
      "  s[t] = in[t];\n"
      "  out[t] = s[63 - t];\n"
      "}\n";
  static const char tr[] =
      "void nobar__kg_thread(void **p) { nobar(*(float **)p[0], *(const float **)p[1]); }\n";
  for (int order = 0; order < 3; order++) {
    float in[64], out[64];
    for (int i = 0; i < 64; i++) in[i] = (float)i;
    float *pi = in, *po = out;
    void *params[] = {&po, &pi};
    kg_diag d;
    kg_diag_init(&d);
    expect_ok(run_kernel(order, "nobar", cu, tr, 1, 64, params, &d), &d);
    int bad = 0;
    for (int t = 0; t < 64; t++) bad += out[t] != (float)(63 - t);
    cr_assert_gt(bad, 0, "order %d hides the missing barrier", order);
    kg_diag_free(&d);
  }
}

static void expect_launch_error(const char *name, const char *cu, const char *tr, uint32_t bx,
                                void **params, const char *what) {
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_neq(run_kernel(0, name, cu, tr, 1, bx, params, &d), 0);
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_INTERNAL);
  cr_assert_not_null(strstr(d.items[0].msg, what), "%s", d.items[0].msg);
  cr_assert_not_null(strstr(d.items[0].msg, name), "%s", d.items[0].msg);
  kg_diag_free(&d);
}

Test(rt_emu, divergent_barrier_sites) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void div1(float *out) {\n"
      "  if (threadIdx.x < 16) {\n"
      "    __syncthreads();\n"
      "  } else {\n"
      "    __syncthreads();\n"
      "  }\n"
      "  out[threadIdx.x] = 1.0f;\n"
      "}\n";
  float out[64];
  float *po = out;
  void *params[] = {&po};
  expect_launch_error("div1", cu, "void div1__kg_thread(void **p) { div1(*(float **)p[0]); }\n",
                      64, params, "at line 10, thread (16,0,0) at line 12");
}

Test(rt_emu, barrier_after_exit) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void div2(float *out) {\n"
      "  if (threadIdx.x == 5) return;\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = 1.0f;\n"
      "}\n";
  float out[64];
  float *po = out;
  void *params[] = {&po};
  expect_launch_error("div2", cu, "void div2__kg_thread(void **p) { div2(*(float **)p[0]); }\n",
                      64, params, "thread (5,0,0) has exited");
}

Test(rt_emu, trap_fails_the_launch) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void trapper(float *out) {\n"
      "  if (threadIdx.x == 7) __trap();\n"
      "  out[threadIdx.x] = 1.0f;\n"
      "}\n";
  float out[32];
  float *po = out;
  void *params[] = {&po};
  expect_launch_error("trapper", cu,
                      "void trapper__kg_thread(void **p) { trapper(*(float **)p[0]); }\n", 32,
                      params, "thread (7,0,0) called __trap() at line 9");
}

Test(rt_emu, syncthreads_count_and_or) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void votes(int *out) {\n"
      "  unsigned t = threadIdx.x;\n"
      "  out[0 * 96 + t] = __syncthreads_count(t % 3 == 0);\n"
      "  out[1 * 96 + t] = __syncthreads_and(t < 96);\n"
      "  out[2 * 96 + t] = __syncthreads_and(t != 40);\n"
      "  out[3 * 96 + t] = __syncthreads_or(t == 95);\n"
      "  out[4 * 96 + t] = __syncthreads_or(0);\n"
      "}\n";
  static const char tr[] = "void votes__kg_thread(void **p) { votes(*(int **)p[0]); }\n";
  for (int order = 0; order < 3; order++) {
    int out[5 * 96];
    int *po = out;
    void *params[] = {&po};
    kg_diag d;
    kg_diag_init(&d);
    expect_ok(run_kernel(order, "votes", cu, tr, 1, 96, params, &d), &d);
    for (int t = 0; t < 96; t++) {
      cr_assert_eq(out[t], 32);
      cr_assert_eq(out[96 + t], 1);
      cr_assert_eq(out[192 + t], 0);
      cr_assert_eq(out[288 + t], 1);
      cr_assert_eq(out[384 + t], 0);
    }
    kg_diag_free(&d);
  }
}

/* Shuffles against a host model written from the CUDA programming guide:
 * width-segments, out-of-segment sources give the caller's own value, an idx
 * source lane is taken modulo width. Two warps per block; float, int and double. */
static const char shfl_cu[] = PRELUDE
    "KG_KERNEL void shfl(float *of, int *oi, double *od, const int *args, int nargs) {\n"
    "  unsigned t = threadIdx.x;\n"
    "  float vf = 100.0f + (float)t;\n"
    "  int vi = -1000 - (int)t;\n"
    "  double vd = 0.5 + (double)t * 1e10;\n"
    "  for (int k = 0; k < nargs; k++) {\n"
    "    int op = args[3 * k], b = args[3 * k + 1], w = args[3 * k + 2];\n"
    "    float rf; int ri; double rd;\n"
    "    if (op == 0) { rf = __shfl_sync(0xffffffffu, vf, b, w); ri = __shfl_sync(0xffffffffu, vi, b, w); rd = __shfl_sync(0xffffffffu, vd, b, w); }\n"
    "    else if (op == 1) { rf = __shfl_up_sync(0xffffffffu, vf, (unsigned)b, w); ri = __shfl_up_sync(0xffffffffu, vi, (unsigned)b, w); rd = __shfl_up_sync(0xffffffffu, vd, (unsigned)b, w); }\n"
    "    else if (op == 2) { rf = __shfl_down_sync(0xffffffffu, vf, (unsigned)b, w); ri = __shfl_down_sync(0xffffffffu, vi, (unsigned)b, w); rd = __shfl_down_sync(0xffffffffu, vd, (unsigned)b, w); }\n"
    "    else { rf = __shfl_xor_sync(0xffffffffu, vf, b, w); ri = __shfl_xor_sync(0xffffffffu, vi, b, w); rd = __shfl_xor_sync(0xffffffffu, vd, b, w); }\n"
    "    of[k * 64 + t] = rf; oi[k * 64 + t] = ri; od[k * 64 + t] = rd;\n"
    "  }\n"
    "  /* the default width */\n"
    "  of[nargs * 64 + t] = __shfl_down_sync(0xffffffffu, vf, 1);\n"
    "}\n";
static const char shfl_tr[] =
    "void shfl__kg_thread(void **p) { shfl(*(float **)p[0], *(int **)p[1], *(double **)p[2],\n"
    "  *(const int **)p[3], *(int *)p[4]); }\n";

static int shfl_model(int op, int lane, int b, int w) { /* the source lane (within a warp) */
  int seg = lane / w * w, li = lane % w;
  switch (op) {
  case 0: return seg + (((b % w) + w) % w);
  case 1: return li >= b ? lane - b : lane;
  case 2: return li + b < w ? lane + b : lane;
  default: {
    int j = lane ^ b;
    return j < seg + w ? j : lane; /* later segments: own value; earlier ones are readable */
  }
  }
}

Test(rt_emu, shuffles_exact_semantics) {
  int args[][3] = {
      {0, 0, 32},  {0, 5, 32},  {0, 37, 32}, {0, -1, 32}, {0, 3, 8},   {0, 9, 8},  {0, 1, 1},
      {1, 1, 32},  {1, 3, 32},  {1, 0, 32},  {1, 2, 8},   {1, 7, 8},   {1, 31, 32}, {1, 1, 2},
      {2, 1, 32},  {2, 16, 32}, {2, 3, 16},  {2, 5, 4},   {2, 31, 32}, {2, 0, 16},
      {3, 1, 32},  {3, 16, 32}, {3, 31, 32}, {3, 4, 8},   {3, 8, 8},   {3, 16, 8}, {3, 12, 4},
  };
  enum { NA = sizeof args / sizeof args[0] };
  float *of = malloc((NA + 1) * 64 * sizeof(float));
  int *oi = malloc(NA * 64 * sizeof(int));
  double *od = malloc(NA * 64 * sizeof(double));
  int nargs = NA;
  int *pa = &args[0][0];
  void *params[] = {&of, &oi, &od, &pa, &nargs};
  for (int order = 0; order < 3; order++) {
    kg_diag d;
    kg_diag_init(&d);
    expect_ok(run_kernel(order, "shfl", shfl_cu, shfl_tr, 1, 64, params, &d), &d);
    for (int k = 0; k < NA; k++)
      for (int t = 0; t < 64; t++) {
        int warp = t / 32 * 32, src = warp + shfl_model(args[k][0], t % 32, args[k][1], args[k][2]);
        cr_assert_eq(of[k * 64 + t], 100.0f + (float)src, "order %d op %d b %d w %d thread %d",
                     order, args[k][0], args[k][1], args[k][2], t);
        cr_assert_eq(oi[k * 64 + t], -1000 - src);
        cr_assert_eq(od[k * 64 + t], 0.5 + (double)src * 1e10);
      }
    for (int t = 0; t < 64; t++)
      cr_assert_eq(of[NA * 64 + t], 100.0f + (float)(t % 32 == 31 ? t : t + 1));
    kg_diag_free(&d);
  }
  free(of), free(oi), free(od);
}

/* A warp reduction in a block of 8 warps, and the votes. */
Test(rt_emu, warp_reduce_and_votes) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void wred(float *sum, unsigned *bal, int *anyall, const float *in) {\n"
      "  unsigned t = threadIdx.x, lane = t & 31, w = t >> 5;\n"
      "  float v = in[t];\n"
      "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
      "  if (lane == 0) sum[w] = v;\n"
      "  unsigned b = __ballot_sync(0xffffffffu, (t % 5) == 0);\n"
      "  if (lane == 0) bal[w] = b;\n"
      "  __syncwarp();\n"
      "  int a1 = __any_sync(0xffffffffu, t == 70), a2 = __all_sync(0xffffffffu, t != 70);\n"
      "  if (lane == 0) { anyall[2 * w] = a1; anyall[2 * w + 1] = a2; }\n"
      "  if (lane < 16) { unsigned h = __ballot_sync(0x0000ffffu, 1); if (lane == 0) bal[8 + w] = h; }\n"
      "  if (!(__activemask() >> lane & 1u)) sum[0] = -1.0f; /* only its own lane is certain */\n"
      "}\n";
  static const char tr[] =
      "void wred__kg_thread(void **p) { wred(*(float **)p[0], *(unsigned **)p[1], *(int **)p[2],\n"
      "  *(const float **)p[3]); }\n";
  float in[256], sum[8];
  unsigned bal[16];
  int anyall[16];
  for (int i = 0; i < 256; i++) in[i] = (float)(i % 7);
  float *pi = in, *ps = sum;
  unsigned *pb = bal;
  int *pa = anyall;
  void *params[] = {&ps, &pb, &pa, &pi};
  for (int order = 0; order < 3; order++) {
    kg_diag d;
    kg_diag_init(&d);
    expect_ok(run_kernel(order, "wred", cu, tr, 1, 256, params, &d), &d);
    for (int w = 0; w < 8; w++) {
      float want = 0;
      unsigned wb = 0;
      for (int l = 0; l < 32; l++) {
        want += (float)((w * 32 + l) % 7);
        if ((w * 32 + l) % 5 == 0) wb |= 1u << l;
      }
      cr_assert_eq(sum[w], want, "warp %d: %g vs %g", w, sum[w], want);
      cr_assert_eq(bal[w], wb, "warp %d", w);
      cr_assert_eq(bal[8 + w], 0xffffu);
      cr_assert_eq(anyall[2 * w], w == 2);
      cr_assert_eq(anyall[2 * w + 1], w != 2);
    }
    kg_diag_free(&d);
  }
}

/* Lanes that have exited do not block a shuffle; reading one gives poison. */
Test(rt_emu, shuffle_with_exited_lanes) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void half_warp(float *out) {\n"
      "  unsigned t = threadIdx.x;\n"
      "  if (t >= 16) return;\n"
      "  out[t] = __shfl_down_sync(0xffffffffu, (float)t, 1);\n"
      "}\n";
  static const char tr[] = "void half_warp__kg_thread(void **p) { half_warp(*(float **)p[0]); }\n";
  for (int order = 0; order < 3; order++) {
    float out[16];
    float *po = out;
    void *params[] = {&po};
    kg_diag d;
    kg_diag_init(&d);
    expect_ok(run_kernel(order, "half_warp", cu, tr, 1, 32, params, &d), &d);
    for (int t = 0; t < 15; t++) cr_assert_eq(out[t], (float)(t + 1));
    cr_assert(isnan(out[15]), "lane 16 exited: undefined, poisoned");
    kg_diag_free(&d);
  }
}

Test(rt_emu, shuffle_lane_not_in_mask) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void badmask(float *out) {\n"
      "  out[threadIdx.x] = __shfl_xor_sync(0x0000fffeu, 1.0f, 1);\n"
      "}\n";
  float out[32];
  float *po = out;
  void *params[] = {&po};
  expect_launch_error("badmask", cu,
                      "void badmask__kg_thread(void **p) { badmask(*(float **)p[0]); }\n", 32,
                      params, "lane 0) calls __shfl_xor_sync at line 9 with mask 0xfffe");
}

Test(rt_emu, shuffle_against_barrier_deadlock) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void dead(float *out) {\n"
      "  float v = 1.0f;\n"
      "  if (threadIdx.x == 0) v = __shfl_xor_sync(0xffffffffu, v, 1);\n"
      "  else __syncthreads();\n"
      "  out[threadIdx.x] = v;\n"
      "}\n";
  float out[32];
  float *po = out;
  void *params[] = {&po};
  expect_launch_error("dead", cu, "void dead__kg_thread(void **p) { dead(*(float **)p[0]); }\n", 32,
                      params, "waits at __syncthreads() at line 11");
}

Test(rt_emu, shuffle_bad_width) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void badw(float *out) {\n"
      "  out[threadIdx.x] = __shfl_sync(0xffffffffu, 1.0f, 0, 12);\n"
      "}\n";
  float out[32];
  float *po = out;
  void *params[] = {&po};
  expect_launch_error("badw", cu, "void badw__kg_thread(void **p) { badw(*(float **)p[0]); }\n", 32,
                      params, "width 12");
}

#if !defined(__SANITIZE_ADDRESS__)
/* A thread that overruns its fiber stack hits the guard page (not another
 * stack): the process dies of SIGSEGV. Run in a child so this one cleans up. */
Test(rt_emu, stack_overflow_hits_guard_page) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void deep(float *out, int n) {\n"
      "  volatile float big[65536];\n"
      "  for (int i = 0; i < n; i++) big[i] = (float)i;\n"
      "  out[threadIdx.x] = big[n - 1];\n"
      "}\n";
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = new_emu(0, 0, NULL, &d);
  kg_rt_module *m = load_ok(dv, "deep", cu,
                            "void deep__kg_thread(void **p) { deep(*(float **)p[0], *(int *)p[1]); }\n",
                            &d);
  pid_t kid = fork();
  cr_assert_neq(kid, -1);
  if (!kid) {
    float out[2];
    float *po = out;
    int n = 65536;
    void *params[] = {&po, &n};
    uint32_t g[3] = {1, 1, 1}, b[3] = {2, 1, 1};
    dv->vt->launch(dv, m, "deep", g, b, 0, params, NULL, &d);
    _exit(0);
  }
  int st = 0;
  cr_assert_eq(waitpid(kid, &st, 0), kid);
  cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status %#x", st);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&d);
}
#endif

/* Dynamic shared memory: per block, the launch's size, poisoned at block start. */
Test(rt_emu, dynamic_shared_memory) {
  static const char cu[] = PRELUDE
      "KG_KERNEL void dyn(float *out, float *probe, int n) {\n"
      "#ifdef __CUDACC__\n"
      "  extern __shared__ float s[];\n"
      "#else\n"
      "  float *s = (float *)kg_emu_dyn_smem();\n"
      "#endif\n"
      "  unsigned t = threadIdx.x;\n"
      "  if (t == 0) probe[blockIdx.x] = s[n - 1];\n"
      "  __syncthreads();\n"
      "  for (int i = (int)t; i < n; i += (int)blockDim.x) s[i] = (float)(i + 1000 * (int)blockIdx.x);\n"
      "  __syncthreads();\n"
      "  for (int i = (int)t; i < n; i += (int)blockDim.x) out[blockIdx.x * n + i] = s[n - 1 - i];\n"
      "}\n";
  static const char tr[] =
      "void dyn__kg_thread(void **p) { dyn(*(float **)p[0], *(float **)p[1], *(int *)p[2]); }\n";
  enum { N = 3000, NB = 3 };
  float *out = malloc(NB * N * sizeof(float)), probe[NB];
  int n = N;
  void *params[] = {&out, &probe, &n};
  float *pp = probe;
  params[1] = &pp;
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = new_emu(2, 5, NULL, &d);
  kg_rt_module *m = load_ok(dv, "dyn", cu, tr, &d);
  uint32_t g[3] = {NB, 1, 1}, b[3] = {128, 1, 1};
  expect_ok(dv->vt->launch(dv, m, "dyn", g, b, N * sizeof(float), params, NULL, &d), &d);
  for (int blk = 0; blk < NB; blk++) {
    cr_assert(isnan(probe[blk]), "block %d: dynamic shared memory not poisoned", blk);
    for (int i = 0; i < N; i++) cr_assert_eq(out[blk * N + i], (float)(N - 1 - i + 1000 * blk));
  }
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  free(out);
  kg_diag_free(&d);
}
