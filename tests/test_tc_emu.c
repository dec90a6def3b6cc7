/* tests/test_tc_emu.c — the tensor-core instructions of the emulator (codegen-cuda/kg_emu_tc.h)
 * through the prelude's macros (codegen-cuda/prelude_tc.h), one test per instruction, against
 * fragments computed here from the PTX ISA's tables; and the same kernels through NVRTC for
 * sm_80 and sm_90 (the asm is valid PTX there).
 *
 * The test side places fragments by the ISA's formulas written out again here
 * (groupID = lane >> 2, threadID_in_group = lane % 4), plus spot entries copied from the ISA's
 * figures, so the emulator's placement and this one must agree for the products to come out. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen-cuda/prelude.h"
#include "codegen-cuda/prelude_tc.h"
#include "runtime/rt.h"

static char *src_of(const char *kernels) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_puts(&b, KG_CUDA_PRELUDE_1);
  kg_sb_puts(&b, KG_CUDA_PRELUDE_TC_1);
  kg_sb_puts(&b, KG_CUDA_PRELUDE_TC_HOPPER);
  kg_sb_puts(&b, KG_CUDA_PRELUDE_TC_2);
  kg_sb_puts(&b, kernels);
  return kg_sb_take(&b);
}

static void fail_diag(kg_diag *d) {
  char *t = kg_diag_format(d);
  cr_log_error("%s", t);
  free(t);
}

static kg_device *emu(kg_diag *d) {
  kg_rt_config cfg = {0};
  cfg.emu.order = 2, cfg.emu.seed = 7;
  kg_device *dv = kg_dev_emu_new(&cfg, d);
  if (!dv) fail_diag(d);
  cr_assert_not_null(dv);
  return dv;
}
static kg_rt_module *load(kg_device *dv, const char *name, const char *cu, const char *tr, kg_diag *d) {
  char *src = src_of(cu);
  kg_rt_source s = {name, src, tr, NULL, NULL, false};
  kg_rt_module *m = NULL;
  if (dv->vt->load(dv, &s, &m, d)) fail_diag(d);
  free(src);
  cr_assert_not_null(m);
  return m;
}
static int launch(kg_device *dv, kg_rt_module *m, const char *fn, unsigned nthreads, unsigned smem, void **params, kg_diag *d) {
  uint32_t g[3] = {1, 1, 1}, b[3] = {nthreads, 1, 1};
  return dv->vt->launch(dv, m, fn, g, b, smem, params, NULL, d);
}

static uint32_t u_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float f_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)rng;
}
/* small values whose products and sums are exact in float32: k/8 with |k| < 64 */
static float small(void) { return (float)((int)(rnd() % 127) - 63) / 8.0f; }

/* ---- mma.sync ---- */
static const char mma_cu[] =
    "KG_KERNEL void mma(int type, float *d, const int *a, const int *b, const float *c) {\n"
    "  int l = (int)threadIdx.x;\n"
    "  int a0 = a[4 * l], a1 = a[4 * l + 1], a2 = a[4 * l + 2], a3 = a[4 * l + 3], b0 = b[2 * l], b1 = b[2 * l + 1];\n"
    "  float d0 = c[4 * l], d1 = c[4 * l + 1], d2 = c[4 * l + 2], d3 = c[4 * l + 3];\n"
    "  if (type == 0) KG_MMA_F16(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1);\n"
    "  else if (type == 1) KG_MMA_BF16(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1);\n"
    "  else KG_MMA_TF32(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1);\n"
    "  d[4 * l] = d0, d[4 * l + 1] = d1, d[4 * l + 2] = d2, d[4 * l + 3] = d3;\n"
    "}\n";
static const char mma_tr[] =
    "void mma__kg_thread(void **p);\n"
    "void mma__kg_thread(void **p) { mma(*(int *)p[0], *(float **)p[1], *(const int **)p[2], *(const int **)p[3], *(const float **)p[4]); }\n";

static uint16_t h_bits(float f, int bf) { /* exact for the small values used */
  if (bf) return (uint16_t)(u_of(f) >> 16);
  uint32_t u = u_of(f);
  if (f == 0.0f) return (uint16_t)(u >> 16);
  int e = (int)((u >> 23) & 0xff) - 127 + 15;
  return (uint16_t)((u >> 16 & 0x8000) | (uint32_t)e << 10 | ((u >> 13) & 0x3ff));
}

/* A [16][16] (k16) or [16][8] (tf32, k8), B [k][8], C [16][8] packed per the ISA */
static void pack_mma(int type, float A[16][16], float B[16][8], float C[16][8], int32_t a[128], int32_t b[64], float c[128]) {
  for (int lane = 0; lane < 32; lane++) {
    int g = lane >> 2, t = lane % 4;
    if (type == 2) { /* m16n8k8 .tf32: a0 (g,t) a1 (g+8,t) a2 (g,t+4) a3 (g+8,t+4); b0 (t,g) b1 (t+4,g) */
      a[4 * lane + 0] = (int32_t)u_of(A[g][t]);
      a[4 * lane + 1] = (int32_t)u_of(A[g + 8][t]);
      a[4 * lane + 2] = (int32_t)u_of(A[g][t + 4]);
      a[4 * lane + 3] = (int32_t)u_of(A[g + 8][t + 4]);
      b[2 * lane + 0] = (int32_t)u_of(B[t][g]);
      b[2 * lane + 1] = (int32_t)u_of(B[t + 4][g]);
    } else { /* m16n8k16: row g for a0,a1,a4,a5 else g+8; col 2t+(i&1) (+8 for i>=4) */
      for (int r = 0; r < 4; r++) {
        int row = g + ((r & 1) ? 8 : 0), col = 2 * t + ((r & 2) ? 8 : 0);
        a[4 * lane + r] = (int32_t)(h_bits(A[row][col], type) | (uint32_t)h_bits(A[row][col + 1], type) << 16);
      }
      for (int r = 0; r < 2; r++) { /* b: row 2t+(i&1) (+8 for i>=2), col g */
        int row = 2 * t + (r ? 8 : 0);
        b[2 * lane + r] = (int32_t)(h_bits(B[row][g], type) | (uint32_t)h_bits(B[row + 1][g], type) << 16);
      }
    }
    for (int r = 0; r < 4; r++) c[4 * lane + r] = C[g + (r >= 2 ? 8 : 0)][2 * t + (r & 1)];
  }
}

static void run_mma(int type) {
  float A[16][16], B[16][8], C[16][8];
  int K = type == 2 ? 8 : 16;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) A[i][j] = small();
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) B[i][j] = small(), C[i][j] = small();
  int32_t a[128], b[64];
  float c[128], d[128];
  pack_mma(type, A, B, C, a, b, c);
  /* spot entries from the ISA's figures: lane 5 (groupID 1, threadID_in_group 1) */
  if (type == 1) {
    cr_assert_eq((uint32_t)a[4 * 5 + 0], (uint32_t)h_bits(A[1][2], 1) | (uint32_t)h_bits(A[1][3], 1) << 16, "a0,a1 of lane 5 are A[1][2], A[1][3]");
    cr_assert_eq((uint32_t)a[4 * 5 + 3], (uint32_t)h_bits(A[9][10], 1) | (uint32_t)h_bits(A[9][11], 1) << 16, "a6,a7 of lane 5 are A[9][10], A[9][11]");
    cr_assert_eq((uint32_t)b[2 * 5 + 1], (uint32_t)h_bits(B[10][1], 1) | (uint32_t)h_bits(B[11][1], 1) << 16, "b2,b3 of lane 5 are B[10][1], B[11][1]");
  }
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "mma", mma_cu, mma_tr, &dg);
  int32_t *ap = a, *bp = b;
  float *cp = c, *dp = d;
  void *params[] = {&type, &dp, &ap, &bp, &cp};
  if (launch(dv, m, "mma", 32, 0, params, &dg)) fail_diag(&dg);
  cr_assert_eq(dg.n, 0);
  for (int lane = 0; lane < 32; lane++)
    for (int r = 0; r < 4; r++) {
      int row = (lane >> 2) + (r >= 2 ? 8 : 0), col = 2 * (lane % 4) + (r & 1);
      double s = C[row][col];
      for (int k = 0; k < K; k++) s += (double)A[row][k] * B[k][col];
      cr_assert_eq(d[4 * lane + r], (float)s, "type %d lane %d c%d (D[%d][%d]): %g vs %g", type, lane, r, row, col, d[4 * lane + r], s);
    }
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

Test(tc_emu, mma_m16n8k16_f16) { run_mma(0); }
Test(tc_emu, mma_m16n8k16_bf16) { run_mma(1); }
Test(tc_emu, mma_m16n8k8_tf32) { run_mma(2); }

/* tf32 operands: the low 13 bits are ignored (not rounded) by the instruction */
Test(tc_emu, mma_tf32_ignores_low_bits) {
  float A[16][16] = {{0}}, B[16][8] = {{0}}, C[16][8] = {{0}};
  A[0][0] = f_of(0x3f801fffu); /* 1 + (2^13 - 1) * 2^-23: reads as 1.0 */
  B[0][0] = 1.0f;
  int32_t a[128], b[64];
  float c[128], d[128];
  pack_mma(2, A, B, C, a, b, c);
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "mma", mma_cu, mma_tr, &dg);
  int type = 2;
  int32_t *ap = a, *bp = b;
  float *cp = c, *dp = d;
  void *params[] = {&type, &dp, &ap, &bp, &cp};
  cr_assert_eq(launch(dv, m, "mma", 32, 0, params, &dg), 0);
  cr_assert_eq(d[0], 1.0f, "D[0][0] = %a", d[0]);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

/* a lane that exits before the warp-collective mma fails the launch, naming it */
Test(tc_emu, mma_with_an_exited_lane_fails) {
  static const char cu[] =
      "KG_KERNEL void bad(float *d) {\n"
      "  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;\n"
      "  int z = 0;\n"
      "  if (threadIdx.x == 3) return;\n"
      "  KG_MMA_BF16(d0, d1, d2, d3, z, z, z, z, z, z);\n"
      "  d[threadIdx.x] = d0;\n"
      "}\n";
  static const char tr[] = "void bad__kg_thread(void **p);\nvoid bad__kg_thread(void **p) { bad(*(float **)p[0]); }\n";
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "bad", cu, tr, &dg);
  float out[32];
  float *op = out;
  void *params[] = {&op};
  cr_assert_neq(launch(dv, m, "bad", 32, 0, params, &dg), 0);
  char *t = kg_diag_format(&dg);
  cr_assert_not_null(strstr(t, "mma.sync.m16n8k16.bf16"), "%s", t);
  cr_assert(strstr(t, "exited") || strstr(t, "waits"), "%s", t);
  free(t);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

/* ---- ldmatrix ---- */
static const char ldsm_cu[] =
    "KG_KERNEL void ldsm(int num, int trans, const unsigned short *mats, int *out) {\n"
    "  KG_SMEM_DECL;\n"
    "  int l = (int)threadIdx.x, i;\n"
    "  /* matrix j, row r at byte 16 * (8 * j + r) * 3 (rows 48 bytes apart: the addresses matter) */\n"
    "  for (i = l; i < 4 * 64; i += 32) *(unsigned short *)(kg_smem + 48 * (i / 8) + 2 * (i % 8)) = mats[i];\n"
    "  __syncthreads();\n"
    "  int d0 = -1, d1 = -1, d2 = -1, d3 = -1;\n"
    "  unsigned char *row = kg_smem + 48 * l;\n"
    "  if (!trans) {\n"
    "    if (num == 1) KG_LDSM1(d0, row); else if (num == 2) KG_LDSM2(d0, d1, row); else KG_LDSM4(d0, d1, d2, d3, row);\n"
    "  } else {\n"
    "    if (num == 1) KG_LDSM1T(d0, row); else if (num == 2) KG_LDSM2T(d0, d1, row); else KG_LDSM4T(d0, d1, d2, d3, row);\n"
    "  }\n"
    "  out[4 * l] = d0, out[4 * l + 1] = d1, out[4 * l + 2] = d2, out[4 * l + 3] = d3;\n"
    "}\n";
static const char ldsm_tr[] =
    "void ldsm__kg_thread(void **p);\n"
    "void ldsm__kg_thread(void **p) { ldsm(*(int *)p[0], *(int *)p[1], *(const unsigned short **)p[2], *(int **)p[3]); }\n";

static void run_ldsm(int num, int trans) {
  uint16_t mats[256]; /* matrix j, row r, col c: element 64 j + 8 r + c */
  for (int i = 0; i < 256; i++) mats[i] = (uint16_t)(0x1000 + i);
  int32_t out[128];
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "ldsm", ldsm_cu, ldsm_tr, &dg);
  uint16_t *mp = mats;
  int32_t *op = out;
  void *params[] = {&num, &trans, &mp, &op};
  if (launch(dv, m, "ldsm", 32, 48 * 32, params, &dg)) fail_diag(&dg);
  cr_assert_eq(dg.n, 0);
  for (int lane = 0; lane < 32; lane++)
    for (int j = 0; j < 4; j++) {
      uint32_t got = (uint32_t)out[4 * lane + j], want;
      if (j >= num) want = 0xffffffffu; /* untouched */
      else if (!trans) /* row lane/4, elements 2(lane%4), +1 */
        want = mats[64 * j + 8 * (lane / 4) + 2 * (lane % 4)] | (uint32_t)mats[64 * j + 8 * (lane / 4) + 2 * (lane % 4) + 1] << 16;
      else /* .trans: rows 2(lane%4), +1 of column lane/4 */
        want = mats[64 * j + 8 * (2 * (lane % 4)) + lane / 4] | (uint32_t)mats[64 * j + 8 * (2 * (lane % 4) + 1) + lane / 4] << 16;
      cr_assert_eq(got, want, "x%d%s lane %d d%d: %#x vs %#x", num, trans ? ".trans" : "", lane, j, got, want);
    }
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}
Test(tc_emu, ldmatrix_x1_x2_x4) { run_ldsm(1, 0), run_ldsm(2, 0), run_ldsm(4, 0); }
Test(tc_emu, ldmatrix_trans) { run_ldsm(1, 1), run_ldsm(2, 1), run_ldsm(4, 1); }

Test(tc_emu, ldmatrix_misaligned_row_fails) {
  static const char cu[] =
      "KG_KERNEL void bad(int *out) {\n"
      "  KG_SMEM_DECL;\n"
      "  int d0 = 0;\n"
      "  KG_LDSM1(d0, kg_smem + 16 * threadIdx.x + (threadIdx.x == 2 ? 8 : 0));\n"
      "  out[threadIdx.x] = d0;\n"
      "}\n";
  static const char tr[] = "void bad__kg_thread(void **p);\nvoid bad__kg_thread(void **p) { bad(*(int **)p[0]); }\n";
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "bad", cu, tr, &dg);
  int32_t out[32];
  int32_t *op = out;
  void *params[] = {&op};
  cr_assert_neq(launch(dv, m, "bad", 32, 1024, params, &dg), 0);
  char *t = kg_diag_format(&dg);
  cr_assert_not_null(strstr(t, "not 16-byte aligned"), "%s", t);
  cr_assert_not_null(strstr(t, "(2,0,0)"), "%s", t);
  free(t);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

/* ---- cp.async ---- */
static const char cp_cu[] =
    "KG_KERNEL void cp(const float *src, float *out, int n0, int n1) {\n"
    "  KG_SMEM_DECL;\n"
    "  int l = (int)threadIdx.x, i;\n"
    "  float *s = (float *)kg_smem;\n"
    "  KG_CP_ASYNC16(kg_smem + 16 * l, src + 4 * l, l == 1 ? n0 : 16);         /* group 1 */\n"
    "  KG_CP_COMMIT();\n"
    "  KG_CP_ASYNC16(kg_smem + 512 + 16 * l, src + 128 + 4 * l, l == 1 ? n1 : 16); /* group 2 */\n"
    "  KG_CP_COMMIT();\n"
    "  KG_CP_WAIT(1);\n"
    "  __syncthreads();\n"
    "  for (i = 0; i < 4; i++) out[4 * l + i] = s[4 * l + i], out[128 + 4 * l + i] = s[128 + 4 * l + i];\n"
    "  __syncthreads();\n"
    "  KG_CP_WAIT(0);\n"
    "  __syncthreads();\n"
    "  for (i = 0; i < 4; i++) out[256 + 4 * l + i] = s[128 + 4 * l + i];\n"
    "}\n";
static const char cp_tr[] =
    "void cp__kg_thread(void **p);\n"
    "void cp__kg_thread(void **p) { cp(*(const float **)p[0], *(float **)p[1], *(int *)p[2], *(int *)p[3]); }\n";

Test(tc_emu, cp_async_groups_and_zero_fill) {
  float src[256], out[384];
  for (int i = 0; i < 256; i++) src[i] = (float)i + 0.5f;
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "cp", cp_cu, cp_tr, &dg);
  float *sp = src, *op = out;
  int n0 = 8, n1 = 0; /* lane 1: 2 floats then zeros; 0 bytes: all zeros */
  void *params[] = {&sp, &op, &n0, &n1};
  if (launch(dv, m, "cp", 32, 1024, params, &dg)) fail_diag(&dg);
  cr_assert_eq(dg.n, 0);
  for (int l = 0; l < 32; l++)
    for (int i = 0; i < 4; i++) {
      float w1 = l == 1 && i >= 2 ? 0.0f : src[4 * l + i];
      cr_assert_eq(out[4 * l + i], w1, "group 1 landed after wait_group 1 (lane %d, %d)", l, i);
      cr_assert(isnan(out[128 + 4 * l + i]), "group 2 still in flight after wait_group 1 (lane %d): %g", l, out[128 + 4 * l + i]);
      float w2 = l == 1 ? 0.0f : src[128 + 4 * l + i];
      cr_assert_eq(out[256 + 4 * l + i], w2, "group 2 landed after wait_group 0 (lane %d, %d)", l, i);
    }
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

Test(tc_emu, cp_async_bad_operands_fail) {
  static const char cu[] =
      "KG_KERNEL void bad(const float *src, int n) {\n"
      "  KG_SMEM_DECL;\n"
      "  KG_CP_ASYNC16(kg_smem + 16 * threadIdx.x + (threadIdx.x == 5 ? 4 : 0), src, n);\n"
      "  KG_CP_WAIT(0);\n"
      "}\n";
  static const char tr[] = "void bad__kg_thread(void **p);\nvoid bad__kg_thread(void **p) { bad(*(const float **)p[0], *(int *)p[1]); }\n";
  float src[4] = {0};
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "bad", cu, tr, &dg);
  const float *sp = src;
  int n = 16;
  void *params[] = {&sp, &n};
  cr_assert_neq(launch(dv, m, "bad", 32, 1024, params, &dg), 0);
  char *t = kg_diag_format(&dg);
  cr_assert_not_null(strstr(t, "not aligned to cp-size"), "%s", t);
  free(t);
  kg_diag_free(&dg);
  kg_diag_init(&dg);
  n = 20; /* src-size above cp-size */
  cr_assert_neq(launch(dv, m, "bad", 32, 1024, params, &dg), 0);
  t = kg_diag_format(&dg);
  cr_assert_not_null(strstr(t, "src-size exceeds cp-size"), "%s", t);
  free(t);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

/* ---- cvt.rna.tf32.f32 ---- */
Test(tc_emu, tf32_round_to_nearest_ties_away) {
  static const char cu[] =
      "KG_KERNEL void tf(const float *in, float *out, int n) {\n"
      "  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);\n"
      "  if (i < n) out[i] = kg_tf32(in[i]);\n"
      "}\n";
  static const char tr[] = "void tf__kg_thread(void **p);\nvoid tf__kg_thread(void **p) { tf(*(const float **)p[0], *(float **)p[1], *(int *)p[2]); }\n";
  struct { uint32_t in, out; } cases[] = {
      {0x3f800000u, 0x3f800000u}, /* 1 */
      {0x3f800fffu, 0x3f800000u}, /* below half an ulp (bit 12): down */
      {0x3f801000u, 0x3f802000u}, /* exactly half: away from zero */
      {0xbf801000u, 0xbf802000u}, /* negative: away from zero too */
      {0x3f803000u, 0x3f804000u}, /* half above an odd last bit: away (not to even) */
      {0x3f801001u, 0x3f802000u}, /* above half */
      {0x7f7fffffu, 0x7f800000u}, /* the largest float rounds to infinity */
      {0x7f800000u, 0x7f800000u}, {0xff800000u, 0xff800000u}, /* infinities stay */
      {0x00000fffu, 0x00000000u}, {0x00001000u, 0x00002000u}, /* subnormals round the same way */
      {0x80000000u, 0x80000000u}, /* -0 */
  };
  enum { N = sizeof cases / sizeof cases[0] };
  float in[N + 1], out[N + 1];
  for (int i = 0; i < N; i++) in[i] = f_of(cases[i].in);
  in[N] = NAN;
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "tf", cu, tr, &dg);
  float *ip = in, *op = out;
  int n = N + 1;
  void *params[] = {&ip, &op, &n};
  cr_assert_eq(launch(dv, m, "tf", 32, 0, params, &dg), 0);
  for (int i = 0; i < N; i++) cr_assert_eq(u_of(out[i]), cases[i].out, "case %d: %#x -> %#x, want %#x", i, cases[i].in, u_of(out[i]), cases[i].out);
  cr_assert(isnan(out[N]));
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}

/* ---- the same kernels are valid PTX for sm_80 and sm_90 ---- */
Test(tc_emu, nvrtc_compiles_the_instructions) {
  kg_diag dg;
  kg_diag_init(&dg);
  kg_nvrtc *nv = kg_nvrtc_open(&dg);
  if (!nv) {
    kg_diag_free(&dg);
    cr_skip_test("NVRTC not installed");
  }
  kg_strbuf k;
  kg_sb_init(&k);
  kg_sb_puts(&k, mma_cu), kg_sb_puts(&k, ldsm_cu), kg_sb_puts(&k, cp_cu);
  char *src = src_of(kg_sb_cstr(&k));
  int archs[2] = {80, 90};
  for (int a = 0; a < 2; a++) {
    kg_nvrtc_out o;
    if (kg_nvrtc_compile(nv, "tc.cu", src, archs[a], true, NULL, &o, &dg)) fail_diag(&dg);
    cr_assert_eq(dg.n, 0);
    cr_assert_not_null(strstr(o.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    cr_assert_not_null(strstr(o.ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
    cr_assert_not_null(strstr(o.ptx, "cp.async.cg.shared.global"));
    for (uint32_t i = 0; i < o.n_stats; i++) cr_assert_eq(o.stats[i].spill_stores + o.stats[i].spill_loads, 0);
    kg_nvrtc_out_free(&o);
  }
  free(src);
  kg_sb_free(&k);
  kg_nvrtc_close(nv);
  kg_diag_free(&dg);
}

/* ---- Hopper: wgmma through matrix descriptors, TMA with the 128-byte swizzle, mbarriers ---- */

/* Swizzle<3,4,3> (the 128-byte mode) of a shared byte offset, as the ISA's figures draw it: the
 * 16-byte chunk of a 128-byte row XORed with the row's index modulo 8 */
static uint32_t sw128(uint32_t o) { return o ^ (((o >> 7) & 7u) << 4); }

static const char wg_cu[] =
    "KG_KERNEL void wg(int tr, int n, unsigned long long da, unsigned long long db, const unsigned short *img, int bytes, float *out) {\n"
    "  KG_SMEM_DECL;\n"
    "  int t = (int)threadIdx.x, i;\n"
    "  for (i = t; i < bytes / 2; i += 128) ((unsigned short *)kg_smem)[i] = img[i];\n"
    "  __syncthreads();\n"
    "  float d[64];\n"
    "  for (i = 0; i < 64; i++) d[i] = 0.5f;\n"
    "  {\n"
    "    float *p[64];\n"
    "    for (i = 0; i < 64; i++) p[i] = &d[i];\n"
    "    if (tr) kg_emu_wgmma(0, n, da, db, 1, 1, 1, p, __LINE__); else kg_emu_wgmma(0, n, da, db, 1, 0, 0, p, __LINE__);\n"
    "  }\n"
    "  for (i = 0; i < n / 2; i++) out[t * (n / 2) + i] = d[i];\n"
    "}\n";
static const char wg_tr[] =
    "void wg__kg_thread(void **p);\n"
    "void wg__kg_thread(void **p) { wg(*(int *)p[0], *(int *)p[1], *(unsigned long long *)p[2], *(unsigned long long *)p[3], "
    "*(const unsigned short **)p[4], *(int *)p[5], *(float **)p[6]); }\n";

static uint64_t desc_of(uint32_t start, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((start >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 | (uint64_t)((sbo >> 4) & 0x3fff) << 32 | 1ull << 62;
}

/* A 64 x 16 and B n x 16 (float16 values k/8) placed in shared memory by the canonical SW128
 * layouts written out here, D = A B^T + 0.5 checked at the accumulator layout's places */
static void run_wgmma(int mn_major, int n) {
  enum { BYTES = 40960 };
  uint16_t *img = calloc(BYTES / 2, 2);
  float A[64][16], B[128][16];
  uint32_t abase = 0, bbase = 16384;
  for (int r = 0; r < 64; r++)
    for (int k = 0; k < 16; k++) {
      A[r][k] = (float)((r * 3 + k * 5) % 17 - 8) / 8.0f;
      /* K-major: rows of 128 bytes, K at byte 32 + 2k (the second 32-byte slice: the start address
       * moves by 32 for the next 16 of K); MN-major: rows of K, 64 of M per 128 bytes */
      uint32_t o = mn_major ? abase + (uint32_t)r * 2 + (uint32_t)(k % 8) * 128 + (uint32_t)(k / 8) * 1024
                            : abase + (uint32_t)r * 128 + 32 + (uint32_t)k * 2;
      img[sw128(o) / 2] = h_bits(A[r][k], 0);
    }
  for (int r = 0; r < n; r++)
    for (int k = 0; k < 16; k++) {
      B[r][k] = (float)((r * 7 + k * 3) % 13 - 6) / 8.0f;
      uint32_t o = mn_major ? bbase + (uint32_t)(r % 64) * 2 + (uint32_t)(r / 64) * 8192 + (uint32_t)(k % 8) * 128 + (uint32_t)(k / 8) * 1024
                            : bbase + (uint32_t)r * 128 + 32 + (uint32_t)k * 2;
      img[sw128(o) / 2] = h_bits(B[r][k], 0);
    }
  uint64_t da = mn_major ? desc_of(abase, 8192, 1024) : desc_of(abase + 32, 16, 1024);
  uint64_t db = mn_major ? desc_of(bbase, 8192, 1024) : desc_of(bbase + 32, 16, 1024);
  float *out = calloc(128 * 64, sizeof(float));
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "wg", wg_cu, wg_tr, &dg);
  int bytes = BYTES;
  uint16_t *ip = img;
  float *op = out;
  void *params[] = {&mn_major, &n, &da, &db, &ip, &bytes, &op};
  if (launch(dv, m, "wg", 128, BYTES, params, &dg)) fail_diag(&dg);
  cr_assert_eq(dg.n, 0);
  for (int t = 0; t < 128; t++)
    for (int i = 0; i < n / 2; i++) {
      int lane = t % 32, row = 16 * (t / 32) + lane / 4 + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
      double s = 0.5;
      for (int k = 0; k < 16; k++) s += (double)A[row][k] * B[col][k];
      cr_assert_eq(out[t * (n / 2) + i], (float)s, "%s n%d thread %d d%d (D[%d][%d])", mn_major ? "MN-major" : "K-major", n, t, i, row, col);
    }
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
  free(img), free(out);
}
Test(tc_emu, wgmma_k_major_sw128) { run_wgmma(0, 64); }
Test(tc_emu, wgmma_mn_major_sw128) { run_wgmma(1, 128); }

static const char tma_cu[] =
    "KG_KERNEL void tm(const kg_tmap map, int c0, int c1, unsigned short *out, int *phase) {\n"
    "  KG_SMEM_DECL;\n"
    "  unsigned char *bar = kg_smem + 2048;\n"
    "  int t = (int)threadIdx.x, i;\n"
    "  if (t == 0) KG_MBAR_INIT(bar, 1);\n"
    "  __syncthreads();\n"
    "  if (t == 0) { KG_MBAR_ARRIVE_TX(bar, 1024); KG_TMA_LOAD_2D(kg_smem, &map, c0, c1, 0, bar); }\n"
    "  KG_MBAR_WAIT(bar, 0);\n"
    "  for (i = t; i < 512; i += 32) out[i] = ((unsigned short *)kg_smem)[i];\n"
    "  KG_MBAR_WAIT(bar, 0); /* phase 0 has completed: returns at once */\n"
    "  if (t == 0) *phase = (int)(*(unsigned *)bar >> 31);\n"
    "}\n";
static const char tma_tr[] =
    "void tm__kg_thread(void **p);\n"
    "void tm__kg_thread(void **p) { tm(*(const kg_tmap *)p[0], *(int *)p[1], *(int *)p[2], *(unsigned short **)p[3], *(int **)p[4]); }\n";

/* a box of 64 x 8 (float16) from a 10 x 100 tensor at (40, 4): rows 10 and 11 and columns 100 to
 * 103 are outside (zeros); 128-byte rows placed by the swizzle; the mbarrier's phase completes */
Test(tc_emu, tma_box_swizzle_and_mbarrier) {
  uint16_t g[10 * 100], out[512];
  for (int i = 0; i < 1000; i++) g[i] = (uint16_t)(i + 1);
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "tm", tma_cu, tma_tr, &dg);
  kg_tmap_req q;
  memset(&q, 0, sizeof q);
  q.base = g, q.rank = 2, q.esz = 2, q.dims[0] = 100, q.dims[1] = 10, q.strides[1] = 200;
  q.box[0] = 64, q.box[1] = 8, q.swizzle = 128;
  _Alignas(64) unsigned char map[128];
  cr_assert_eq(dv->vt->tmap(dv, m, &q, map, &dg), -1, "a row stride of 200 bytes is not a multiple of 16");
  kg_diag_free(&dg);
  kg_diag_init(&dg);
  uint16_t *g2 = aligned_alloc(64, (10 * 104 * 2 + 63) / 64 * 64); /* C11: a size that is a multiple of the alignment */
  cr_assert_not_null(g2);
  for (int r = 0; r < 10; r++)
    for (int c = 0; c < 104; c++) g2[r * 104 + c] = c < 100 ? g[r * 100 + c] : 0xdead;
  q.base = g2, q.strides[1] = 208;
  cr_assert_eq(dv->vt->tmap(dv, m, &q, map, &dg), 0);
  int c0 = 40, c1 = 4, phase = -1;
  uint16_t *op = out;
  int *pp = &phase;
  void *mp = map;
  void *params[] = {mp, &c0, &c1, &op, &pp};
  if (launch(dv, m, "tm", 32, 4096, params, &dg)) fail_diag(&dg);
  cr_assert_eq(dg.n, 0);
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 64; c++) {
      int gr = 4 + r, gc = 40 + c;
      uint16_t want = gr < 10 && gc < 100 ? g[gr * 100 + gc] : 0;
      cr_assert_eq(out[sw128((uint32_t)(r * 128 + c * 2)) / 2], want, "box (%d, %d)", r, c);
    }
  cr_assert_eq(phase, 1, "the phase of parity 0 completed: the barrier is in phase 1");
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
  free(g2);
}

Test(tc_emu, mbarrier_wait_with_no_arrival_fails) {
  static const char cu[] =
      "KG_KERNEL void stuck(int n) {\n"
      "  KG_SMEM_DECL;\n"
      "  if (threadIdx.x == 0) KG_MBAR_INIT(kg_smem, 2);\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) KG_MBAR_ARRIVE_TX(kg_smem, 0); /* one of the two arrivals */\n"
      "  KG_MBAR_WAIT(kg_smem, 0);\n"
      "}\n";
  static const char tr[] = "void stuck__kg_thread(void **p);\nvoid stuck__kg_thread(void **p) { stuck(*(int *)p[0]); }\n";
  kg_diag dg;
  kg_diag_init(&dg);
  kg_device *dv = emu(&dg);
  kg_rt_module *m = load(dv, "stuck", cu, tr, &dg);
  int n = 0;
  void *params[] = {&n};
  cr_assert_neq(launch(dv, m, "stuck", 64, 64, params, &dg), 0);
  char *t = kg_diag_format(&dg);
  cr_assert_not_null(strstr(t, "waits forever on the mbarrier"), "%s", t);
  free(t);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_diag_free(&dg);
}
