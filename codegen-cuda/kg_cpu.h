/* codegen-cuda/kg_cpu.h — the CPU device's loop driver (runtime/dev_cpu.c).
 *
 * The CPU device compiles one translation unit per kernel
 *     #include "kg_emu.h"   <- the CUDA builtins on the host, and the fibers
 *     #include "kg_cpu.h"   <- this file
 *     <the kernel text, exactly what NVRTC compiles>
 *     <the CPU glue (codegen-cuda/cpu.c): per kernel, a loop driver or a fiber trampoline>
 * with optimization and the host's vector instructions (-O3 -march=native; runtime/dev_cpu.c
 * has the flags). A kernel whose threads never cooperate (ir/kernel_coop.c) gets a loop driver,
 *     void K__kg_cpu(void **params, const kg_cpu_range *r)
 * which unpacks the cuLaunchKernel-style parameters once and runs every thread of blocks
 * [r->b0, r->b1) to completion, one after another, by calling the kernel in the loop of
 * KG_CPU_LOOP; `flatten` inlines the kernel there, so threadIdx (the emulator's thread-local
 * index) is a loop variable to the compiler and the kernel's own loops vectorize. The device
 * hands ranges of blocks to its worker threads, each with its own threadIdx / blockIdx. A
 * kernel whose threads cooperate gets the emulator's trampoline (K__kg_thread) and runs on
 * fibers, blocks one after another on the calling thread, in forward order.
 *
 * Vector math: with -DKG_CPU_MVEC (the device found glibc's libmvec) the libm functions the
 * kernels call are declared with vector variants, so loops over expf, tanhf, erff, ... call
 * the 8-wide versions (libmvec: at most 4 ulp; CUDA's own are 1-2 ulp, the emulator's libm
 * less than 1). Like NVRTC, the device contracts a * b + c into FMAs.
 */
#ifndef KG_CPU_H
#define KG_CPU_H

#if defined(KG_CPU_MVEC) && defined(__x86_64__)
#define KG_CPU__SIMD __attribute__((__simd__("notinbranch")))
float expf(float) KG_CPU__SIMD;
float exp2f(float) KG_CPU__SIMD;
float expm1f(float) KG_CPU__SIMD;
float logf(float) KG_CPU__SIMD;
float log2f(float) KG_CPU__SIMD;
float log10f(float) KG_CPU__SIMD;
float log1pf(float) KG_CPU__SIMD;
float sinf(float) KG_CPU__SIMD;
float cosf(float) KG_CPU__SIMD;
float tanf(float) KG_CPU__SIMD;
float asinf(float) KG_CPU__SIMD;
float acosf(float) KG_CPU__SIMD;
float atanf(float) KG_CPU__SIMD;
float sinhf(float) KG_CPU__SIMD;
float coshf(float) KG_CPU__SIMD;
float tanhf(float) KG_CPU__SIMD;
float asinhf(float) KG_CPU__SIMD;
float acoshf(float) KG_CPU__SIMD;
float atanhf(float) KG_CPU__SIMD;
float erff(float) KG_CPU__SIMD;
float erfcf(float) KG_CPU__SIMD;
float cbrtf(float) KG_CPU__SIMD;
float powf(float, float) KG_CPU__SIMD;
float atan2f(float, float) KG_CPU__SIMD;
double exp(double) KG_CPU__SIMD;
double exp2(double) KG_CPU__SIMD;
double expm1(double) KG_CPU__SIMD;
double log(double) KG_CPU__SIMD;
double log2(double) KG_CPU__SIMD;
double log10(double) KG_CPU__SIMD;
double log1p(double) KG_CPU__SIMD;
double sin(double) KG_CPU__SIMD;
double cos(double) KG_CPU__SIMD;
double tan(double) KG_CPU__SIMD;
double asin(double) KG_CPU__SIMD;
double acos(double) KG_CPU__SIMD;
double atan(double) KG_CPU__SIMD;
double sinh(double) KG_CPU__SIMD;
double cosh(double) KG_CPU__SIMD;
double tanh(double) KG_CPU__SIMD;
double asinh(double) KG_CPU__SIMD;
double acosh(double) KG_CPU__SIMD;
double atanh(double) KG_CPU__SIMD;
double erf(double) KG_CPU__SIMD;
double erfc(double) KG_CPU__SIMD;
double cbrt(double) KG_CPU__SIMD;
double pow(double, double) KG_CPU__SIMD;
double atan2(double, double) KG_CPU__SIMD;
#endif

/* The dot schedule's lanes (ir/ir.h KS_DOT; prelude.h has the scalar loops NVRTC and the
 * emulator compile): the 2 x nj blocks' 16-lane partial sums held in vector registers across the
 * steps (GCC's vector extension: 16 floats, one AVX-512 register, two AVX2 ones; unaligned), then
 * stored. Written out as scalar C, GCC's basic-block SLP vectorized such blocks only in some
 * contexts: scalar lanes, gathers and spills in others (docs/perf_cpu.md). */
#define KG_CPU_DOT16 1
typedef float kg_cpu_v16 __attribute__((vector_size(64), aligned(4), may_alias));
#define KG_CPU_V16(p) (*(const kg_cpu_v16 *)(const void *)(p))
#define KG_CPU_V16_ST(p, v) (*(kg_cpu_v16 *)(void *)(p) = (v))
static inline __attribute__((always_inline, unused)) void kg_dot16_2x2(float *P, const float *Y, long long op, long long x0, long long x1,
                                                                       long long y0, long long y1, int n) {
  kg_cpu_v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
  const float *u0 = P + x0, *u1 = P + x1, *w0 = Y + y0, *w1 = Y + y1;
  for (int q = 0; q < n; q++, u0 += 16, u1 += 16, w0 += 16, w1 += 16) {
    kg_cpu_v16 p0 = KG_CPU_V16(u0), p1 = KG_CPU_V16(u1), v0 = KG_CPU_V16(w0), v1 = KG_CPU_V16(w1);
    a0 += p0 * v0, a1 += p0 * v1, a2 += p1 * v0, a3 += p1 * v1;
  }
  KG_CPU_V16_ST(P + op, a0), KG_CPU_V16_ST(P + op + 32, a1), KG_CPU_V16_ST(P + op + 64, a2), KG_CPU_V16_ST(P + op + 96, a3);
}
static inline __attribute__((always_inline, unused)) void kg_dot16_2x4(float *P, const float *Y, long long op, long long x0, long long x1,
                                                                       long long y0, long long y1, long long y2, long long y3, int n) {
  kg_cpu_v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
  const float *u0 = P + x0, *u1 = P + x1, *w0 = Y + y0, *w1 = Y + y1, *w2 = Y + y2, *w3 = Y + y3;
  for (int q = 0; q < n; q++, u0 += 16, u1 += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
    kg_cpu_v16 p0 = KG_CPU_V16(u0), p1 = KG_CPU_V16(u1), v0 = KG_CPU_V16(w0), v1 = KG_CPU_V16(w1), v2 = KG_CPU_V16(w2), v3 = KG_CPU_V16(w3);
    a0 += p0 * v0, a1 += p0 * v1, a2 += p0 * v2, a3 += p0 * v3;
    a4 += p1 * v0, a5 += p1 * v1, a6 += p1 * v2, a7 += p1 * v3;
  }
  KG_CPU_V16_ST(P + op, a0), KG_CPU_V16_ST(P + op + 32, a1), KG_CPU_V16_ST(P + op + 64, a2), KG_CPU_V16_ST(P + op + 96, a3);
  KG_CPU_V16_ST(P + op + 128, a4), KG_CPU_V16_ST(P + op + 160, a5), KG_CPU_V16_ST(P + op + 192, a6), KG_CPU_V16_ST(P + op + 224, a7);
}

/* A transposed panel (KS_TPACK): P[op + ps q + j] = Y[yo[j] + q] (ps the panel's row stride: 16,
 * or 32 for each half of a wide panel), 16 rows of the weight read 16
 * elements at a time and transposed in registers (4 stages, each exchanging one bit of the row
 * index with one of the element index: two-source shuffles), 16 stores a block; the last n % 16
 * elements scalar. In scalar C the copy was 16 loads from 16 rows and 16 stores per k (65 % of an
 * LSTM step's hidden product, docs/perf_cpu.md). Not inlined: inlined into the product kernel,
 * its 64 shuffles pushed the kernel's own register block out of GCC's SLP (scalar FMAs, 5x
 * slower). */
typedef int kg_cpu_v16i __attribute__((vector_size(64)));
#if defined(__clang__)
#define KG_CPU_SHUF16(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define KG_CPU_SHUF16(a, b, ...) __builtin_shuffle(a, b, (kg_cpu_v16i){__VA_ARGS__})
#endif
#define KG_CPU_UNPAREN(...) __VA_ARGS__
#define KG_CPU_T16_STAGE(r, B, LO, HI) /* LO, HI: parenthesized index lists */                       \
  for (int kg_i_ = 0; kg_i_ < 16; kg_i_++)                                                            \
    if (!(kg_i_ & (B))) {                                                                             \
      kg_cpu_v16 kg_x_ = r[kg_i_], kg_y_ = r[kg_i_ | (B)];                                            \
      r[kg_i_] = KG_CPU_SHUF16(kg_x_, kg_y_, KG_CPU_UNPAREN LO);                                      \
      r[kg_i_ | (B)] = KG_CPU_SHUF16(kg_x_, kg_y_, KG_CPU_UNPAREN HI);                                \
    }
static __attribute__((noinline, unused)) void kg_tpack16(float *P, const float *Y, long long op, const long long *yo, int n, int ps) {
  int q = 0;
  for (; q + 16 <= n; q += 16) {
    kg_cpu_v16 r[16];
    for (int i = 0; i < 16; i++) r[i] = KG_CPU_V16(Y + yo[i] + q);
    KG_CPU_T16_STAGE(r, 1, (0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30), (1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31))
    KG_CPU_T16_STAGE(r, 2, (0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29), (2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31))
    KG_CPU_T16_STAGE(r, 4, (0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27), (4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31))
    KG_CPU_T16_STAGE(r, 8, (0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23), (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31))
    for (int i = 0; i < 16; i++) KG_CPU_V16_ST(P + op + (long long)ps * (q + i), r[i]);
  }
  for (; q < n; q++)
    for (int j = 0; j < 16; j++) P[op + (long long)ps * q + j] = Y[yo[j] + q];
}

/* A range of blocks of one launch, linear block index b = x + gx * (y + gy * z). The layout is
 * part of the object's ABI (runtime/dev_cpu.c has the host's copy). */
typedef struct kg_cpu_range {
  unsigned grid[3], block[3];
  unsigned long long b0, b1;
} kg_cpu_range;

/* Runs CALL (the kernel with its unpacked parameters) once per thread of blocks [b0, b1), x
 * fastest, each thread to completion before the next starts. */
#define KG_CPU_LOOP(R, CALL)                                                                          \
  do {                                                                                                \
    const kg_cpu_range *kg_r_ = (R);                                                                  \
    unsigned kg_gx_ = kg_r_->grid[0], kg_gy_ = kg_r_->grid[1];                                        \
    unsigned kg_tx_ = kg_r_->block[0], kg_ty_ = kg_r_->block[1], kg_tz_ = kg_r_->block[2];            \
    blockDim = make_uint3(kg_tx_, kg_ty_, kg_tz_);                                                    \
    gridDim = make_uint3(kg_r_->grid[0], kg_r_->grid[1], kg_r_->grid[2]);                             \
    for (unsigned long long kg_b_ = kg_r_->b0; kg_b_ < kg_r_->b1; kg_b_++) {                         \
      blockIdx = make_uint3((unsigned)(kg_b_ % kg_gx_), (unsigned)(kg_b_ / kg_gx_ % kg_gy_),          \
                            (unsigned)(kg_b_ / ((unsigned long long)kg_gx_ * kg_gy_)));               \
      for (unsigned kg_z_ = 0; kg_z_ < kg_tz_; kg_z_++)                                               \
        for (unsigned kg_y_ = 0; kg_y_ < kg_ty_; kg_y_++)                                             \
          for (unsigned kg_x_ = 0; kg_x_ < kg_tx_; kg_x_++) {                                         \
            threadIdx = make_uint3(kg_x_, kg_y_, kg_z_);                                              \
            CALL;                                                                                     \
          }                                                                                           \
    }                                                                                                 \
  } while (0)

#endif
