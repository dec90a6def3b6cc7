/* tests/mma_util.h — what the product tests share (tests/test_mma.c: the tensor-core tiers;
 * tests/test_mma_cpu.c: the CPU device's product schedules): a scheduler's group and run facts,
 * half-precision conversions, host operands with their float64 values (mat: any layout, an
 * offset), contexts forcing the tensor-core tier on an emulated arch, and examples/mm_tc_shapes.
 * static inline: each test file takes what it uses. */
#ifndef KG_TESTS_MMA_UTIL_H
#define KG_TESTS_MMA_UTIL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api_int.h"

static inline kg_group_facts mm_facts(kg_dtype dt, int64_t flags, int64_t k, bool srcs) {
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = KG_GROUP_MATMUL, gf.rank = 2, gf.mm_flags = flags, gf.mm_k = k, gf.mm_dtype = dt;
  gf.mm_a_src = gf.mm_b_src = srcs;
  gf.mm_rows16[0] = gf.mm_rows16[1] = srcs;
  return gf;
}
static inline kg_sched_facts run_facts(int64_t m, int64_t n) {
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  x.runtime = true, x.space[0] = m, x.space[1] = n, x.contiguous = true, x.align = 64, x.max_elem = 4;
  x.mm_kmajor[0] = 1, x.mm_kmajor[1] = 0, x.mm_async[0] = x.mm_async[1] = true;
  return x;
}

static inline uint16_t f2h(float f) { /* round to nearest even */
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xff, m = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
  int ne = (int)e - 127 + 15;
  if (ne >= 31) return (uint16_t)(sign | 0x7c00u);
  if (ne <= 0) {
    if (ne < -10) return (uint16_t)sign;
    m |= 0x800000u;
    uint32_t sh = (uint32_t)(14 - ne), r = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = m >> 13, rem = m & 0x1fffu;
  uint32_t h = sign | ((uint32_t)ne << 10) | r;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) h++;
  return (uint16_t)h;
}
static inline float h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  float f;
  if (e == 0) f = ldexpf((float)m, -24);
  else if (e == 31) f = m ? NAN : INFINITY;
  else f = ldexpf((float)(m | 0x400u), (int)e - 25);
  uint32_t x;
  memcpy(&x, &f, 4);
  x |= sign;
  memcpy(&f, &x, 4);
  return f;
}
static inline uint16_t f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}
static inline float bf2f(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static inline kg_context *ctx_tc(int emu_arch, int f32) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1, o.emu_thread_order = 2, o.emu_seed = 3;
  o.force_variant = KG_FORCE_TENSOR_CORES, o.emu_arch = emu_arch, o.f32_matmul = f32;
  return kg_context_new(&o);
}
static inline kg_module *load_tc(kg_context *ctx) {
  kg_module *m;
  cr_assert_eq(kg_module_load_file(ctx, KG_SOURCE_DIR "/examples/mm_tc_shapes.json", &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

typedef struct mat { /* a host operand: values as the kernel reads them, and its storage */
  kg_dtype dt;
  int64_t rows, cols, rs, cs, off; /* element (i, j) at off + i·rs + j·cs */
  size_t cap;
  void *buf;
  double *val;
} mat;

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static inline double rnd(void) {
  seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
  return (double)(int)(seed % 2001 - 1000) / 500.0;
}
static inline mat mat_new(kg_dtype dt, int64_t rows, int64_t cols, bool trans, int64_t off) {
  mat a = {dt, rows, cols, trans ? 1 : cols, trans ? rows : 1, off, 0, NULL, NULL};
  a.cap = (size_t)(rows * cols + off + 1);
  size_t es = kg_dtype_get(dt)->size;
  a.buf = calloc(a.cap, es);
  a.val = calloc((size_t)(rows * cols + 1), sizeof(double));
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      float f = (float)rnd();
      int64_t at = off + i * a.rs + j * a.cs;
      if (dt == KG_F32) ((float *)a.buf)[at] = f, a.val[i * cols + j] = f;
      else if (dt == KG_F16) ((uint16_t *)a.buf)[at] = f2h(f), a.val[i * cols + j] = h2f(f2h(f));
      else ((uint16_t *)a.buf)[at] = f2bf(f), a.val[i * cols + j] = bf2f(f2bf(f));
    }
  return a;
}
static inline DLTensor mat_dl(const mat *a, int64_t *shape, int64_t *strides) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  size_t es = kg_dtype_get(a->dt)->size;
  t.data = (char *)a->buf + a->off * (int64_t)es;
  t.dtype = kg_dtype_to_dl(a->dt);
  t.ndim = 2, t.shape = shape, t.strides = strides;
  shape[0] = a->rows, shape[1] = a->cols, strides[0] = a->rs, strides[1] = a->cs;
  t.device.device_type = kDLCPU;
  return t;
}
static inline void mat_free(mat *a) { free(a->buf), free(a->val); }
static inline double out_at(kg_dtype dt, const void *o, int64_t i) {
  return dt == KG_F32 ? ((const float *)o)[i] : dt == KG_F16 ? h2f(((const uint16_t *)o)[i]) : bf2f(((const uint16_t *)o)[i]);
}


/* skips the calling test where libnvrtc cannot be loaded */
static inline void mma_require_nvrtc(void) {
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *nv = kg_nvrtc_open(&d);
  kg_diag_free(&d);
  if (!nv) cr_skip_test("NVRTC not installed");
  kg_nvrtc_close(nv);
}

#endif
