/* codegen-cuda/kg_emu.h — lets the host C compiler build the CUDA C that kgen emits.
 *
 * The emulator device (runtime/dev_emu.c) compiles one translation unit
 *     #include "kg_emu.h"   <- this file
 *     <the kernel text, exactly what NVRTC compiles>
 *     <emulator trampolines: void K__kg_thread(void **params)>
 * with `cc -std=c11 -O1 -fPIC -shared -D_GNU_SOURCE` into a shared object, dlopens
 * it, and calls kg_emu_launch (defined below) to run a grid.
 *
 * This file is what the kernel text sees: the CUDA builtins, and declarations of what the
 * emulator's runtime does for a kernel (fibers, barriers, warp operations, the tensor-core
 * instructions). The runtime itself (kg_emu_rt.c, kg_emu_tc.c) is compiled once per compiler
 * and flags into a shared object of its own, which every kernel object names as a dependency
 * (runtime/hostcc.c): compiling it into every kernel object was more than half of each object's
 * compile time (0.3 of 0.5 s), which the test suite paid thousands of times.
 *
 * Main idea: every CUDA thread runs on its own fiber (64 KiB stack, or
 * $KGEN_EMU_STACK_KB, with a guard page below it, lent by the host's per-process
 * pool when it passes one to kg_emu_launch; switched by a few lines of
 * x86-64 assembly, by ucontext elsewhere). A block's fibers run one at a time in
 * forward, reverse or seeded-random order, reshuffled at every barrier.
 * __syncthreads() parks its fiber; the block scheduler releases the barrier only
 * when every thread of the block waits at the same call site (source line), and
 * fails the launch, with a message in `err`, when threads wait at different
 * barriers or some wait while others have exited. Warp operations (shuffles with
 * PTX's exact semantics, votes, __syncwarp) complete when every lane of the mask
 * that has not exited has arrived with the same mask, never through a block-wide
 * barrier; mismatches and deadlocks fail the launch. Blocks run one after another
 * on the calling OS thread, so atomics are plain read-modify-writes and `static`
 * storage is a correct stand-in for __shared__ (poisoned with 0xFF bytes, which
 * read as NaN or -1, at every block start).
 *
 * What the kernel text may use (the "common subset" of C99 and CUDA C++):
 *   qualifiers  __global__ __device__ __host__ __forceinline__ __noinline__
 *               __restrict__ __shared__ __constant__
 *   indices     threadIdx blockIdx blockDim gridDim (.x .y .z, unsigned int), warpSize
 *   vectors     uint2 uint3 uint4 int2 int4 float2 float4 double2 ushort2 ushort4 dim3
 *               and make_<type>(...)
 *   bit casts   __float_as_uint __uint_as_float __float_as_int __int_as_float
 *               __double_as_longlong __longlong_as_double
 *   math        <math.h>, rsqrtf rsqrt __fdividef __saturatef __fmaf_rn
 *   integer     __popc __popcll __clz __clzll __ffs __ffsll __brev __umulhi __mulhi
 *               __umul64hi __mul64hi
 *   sync        __syncthreads __syncthreads_count/_and/_or __syncwarp
 *               __threadfence __threadfence_block
 *   warp        __shfl_sync __shfl_xor_sync __shfl_down_sync __shfl_up_sync
 *               (optional width), __ballot_sync __any_sync __all_sync __activemask
 *   atomics     atomicAdd atomicSub atomicMax atomicMin atomicExch atomicCAS
 *   memory      __ldg
 *   fp16/bf16   kg_emu_f2h kg_emu_h2f kg_emu_f2bf kg_emu_bf2f (round to nearest even)
 *   misc        __trap (fails the launch), printf
 *   dynamic shared memory: C cannot say `extern __shared__ T s[];`, so kernel text
 *               writes `#ifdef __CUDACC__ extern __shared__ T s[]; #else T *s =
 *               (T *)kg_emu_dyn_smem(); #endif` (the launch's dyn_smem bytes,
 *               1024-byte aligned, poisoned at every block start like __shared__).
 *   tensor cores  mma.sync, ldmatrix, cp.async, wgmma, TMA, mbarrier: kg_emu_tc.h, which the
 *               build appends to this header (warp- and warpgroup-collective, as the PTX ISA).
 *
 * Limits of the emulation: float arithmetic follows the host (no FMA
 * contraction, no flush-to-zero, libm transcendentals), so results match
 * NVRTC's only to within tolerances; __activemask() reports the lanes that have
 * not exited (threads run one at a time, so "converged" has no meaning here).
 */
#ifndef KG_EMU_H
#define KG_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- qualifiers ---- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline, unused))
#define __noinline__ __attribute__((noinline))
#define __restrict__ restrict
/* __shared__ arrays become statics in their own section: blocks run one after
 * another, and kg_emu_launch poisons the whole section at each block start. */
#define __shared__ static __attribute__((section("kg_emu_shared")))
#define __constant__ static const
#define warpSize 32

/* ---- vector types (CUDA's sizes and alignments) ---- */
typedef struct uint3 { unsigned int x, y, z; } uint3;
typedef uint3 dim3;
typedef struct __attribute__((aligned(8))) uint2 { unsigned int x, y; } uint2;
typedef struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; } uint4;
typedef struct __attribute__((aligned(8))) int2 { int x, y; } int2;
typedef struct __attribute__((aligned(16))) int4 { int x, y, z, w; } int4;
typedef struct __attribute__((aligned(8))) float2 { float x, y; } float2;
typedef struct __attribute__((aligned(16))) float4 { float x, y, z, w; } float4;
typedef struct __attribute__((aligned(16))) double2 { double x, y; } double2;
typedef struct __attribute__((aligned(4))) ushort2 { unsigned short x, y; } ushort2;
typedef struct __attribute__((aligned(8))) ushort4 { unsigned short x, y, z, w; } ushort4;

static inline uint2 make_uint2(unsigned int x, unsigned int y) { uint2 r = {x, y}; return r; }
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  uint3 r = {x, y, z};
  return r;
}
static inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
  uint4 r = {x, y, z, w};
  return r;
}
static inline int2 make_int2(int x, int y) { int2 r = {x, y}; return r; }
static inline int4 make_int4(int x, int y, int z, int w) { int4 r = {x, y, z, w}; return r; }
static inline float2 make_float2(float x, float y) { float2 r = {x, y}; return r; }
static inline float4 make_float4(float x, float y, float z, float w) {
  float4 r = {x, y, z, w};
  return r;
}
static inline double2 make_double2(double x, double y) { double2 r = {x, y}; return r; }
static inline ushort2 make_ushort2(unsigned short x, unsigned short y) {
  ushort2 r = {x, y};
  return r;
}
static inline ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z,
                                   unsigned short w) {
  ushort4 r = {x, y, z, w};
  return r;
}

/* ---- bit casts and math ---- */
static inline unsigned int __float_as_uint(float f) { unsigned int u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned int u) { float f; memcpy(&f, &u, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, 8); return x; }
/* C23 libms may declare rsqrt/rsqrtf: ours go by other names. */
static inline float kg_emu__rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double kg_emu__rsqrt(double x) { return 1.0 / sqrt(x); }
#define rsqrtf kg_emu__rsqrtf
#define rsqrt kg_emu__rsqrt
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __saturatef(float x) { return x > 1.0f ? 1.0f : (x >= 0.0f ? x : 0.0f); }

static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned int)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; i++, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
static inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__extension__ typedef unsigned __int128 kg_emu_u128;
__extension__ typedef __int128 kg_emu_i128;
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((kg_emu_u128)a * b) >> 64);
}
static inline long long __mul64hi(long long a, long long b) {
  return (long long)(((kg_emu_i128)a * b) >> 64);
}
#define __ldg(p) (*(p))

/* ---- IEEE half and bfloat16 (bit patterns in unsigned short) ---- */
/* float -> half, round to nearest even; overflow -> inf; NaN stays a quiet NaN. */
static inline unsigned short kg_emu_f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) /* inf or NaN */
    return (unsigned short)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0u));
  if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u); /* >= 65520 rounds to inf */
  if (ax < 0x38800000u) { /* below 2^-14: half subnormal (units of 2^-24) or zero */
    if (ax <= 0x33000000u) return (unsigned short)sign; /* <= 2^-25 (the tie goes to 0) */
    uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, sh = 126u - e; /* sh in 14..24 */
    uint32_t q = m >> sh, rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (unsigned short)(sign | q);
  }
  uint32_t r = ax - 0x38000000u; /* rebias 127 -> 15 */
  uint32_t q = r >> 13, rem = r & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++; /* a carry bumps the exponent */
  return (unsigned short)(sign | q);
}
/* half -> float, exact. */
static inline float kg_emu_h2f(unsigned short h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
  if (e == 0) {
    float f = (float)m * 0x1p-24f; /* zero or subnormal, exact */
    memcpy(&x, &f, 4);
    x |= sign;
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}
/* float -> bfloat16, round to nearest even; NaN stays a quiet NaN. */
static inline unsigned short kg_emu_f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (unsigned short)(x >> 16);
}
static inline float kg_emu_bf2f(unsigned short b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* ---- the emulated thread's context ---- */
typedef struct kg_emu_idx {
  uint3 tid, bid, bdim, gdim;
} kg_emu_idx;
#ifndef KG_EMU_RT
/* Per OS thread: launches on different OS threads do not interfere. The kernel object's own
 * (a fast thread-local access for the CPU device's loops); the runtime writes it through the
 * pointer each launch passes. */
static _Thread_local kg_emu_idx kg_emu__idx;
#else
static _Thread_local kg_emu_idx *kg_emu__idxp; /* the launching object's kg_emu__idx */
#define kg_emu__idx (*kg_emu__idxp)
#endif
#define threadIdx (kg_emu__idx.tid)
#define blockIdx (kg_emu__idx.bid)
#define blockDim (kg_emu__idx.bdim)
#define gridDim (kg_emu__idx.gdim)

/* ---- atomics: blocks and threads never run concurrently, so plain RMW ---- */
/* U: the type the arithmetic is done in (unsigned for integers: CUDA wraps). */
#define KG_EMU_ATOMIC_FNS(T, U, SUF)                                                    \
  static inline T kg_emu__atomic_add_##SUF(T *p, T v) { T o = *p; *p = (T)((U)o + (U)v); return o; } \
  static inline T kg_emu__atomic_sub_##SUF(T *p, T v) { T o = *p; *p = (T)((U)o - (U)v); return o; } \
  static inline T kg_emu__atomic_max_##SUF(T *p, T v) { T o = *p; if (v > o) *p = v; return o; } \
  static inline T kg_emu__atomic_min_##SUF(T *p, T v) { T o = *p; if (v < o) *p = v; return o; } \
  static inline T kg_emu__atomic_exch_##SUF(T *p, T v) { T o = *p; *p = v; return o; }  \
  static inline T kg_emu__atomic_cas_##SUF(T *p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
KG_EMU_ATOMIC_FNS(int, unsigned int, i)
KG_EMU_ATOMIC_FNS(unsigned int, unsigned int, u)
KG_EMU_ATOMIC_FNS(long long, unsigned long long, ll)
KG_EMU_ATOMIC_FNS(unsigned long long, unsigned long long, ull)
KG_EMU_ATOMIC_FNS(float, float, f)
KG_EMU_ATOMIC_FNS(double, double, d)
#define KG_EMU__ATOMIC_SEL(op, p)                                               \
  _Generic((p), int *: kg_emu__atomic_##op##_i, unsigned int *: kg_emu__atomic_##op##_u, \
           long long *: kg_emu__atomic_##op##_ll,                               \
           unsigned long long *: kg_emu__atomic_##op##_ull,                     \
           float *: kg_emu__atomic_##op##_f, double *: kg_emu__atomic_##op##_d)
#define atomicAdd(p, v) KG_EMU__ATOMIC_SEL(add, p)((p), (v))
#define atomicSub(p, v) KG_EMU__ATOMIC_SEL(sub, p)((p), (v))
#define atomicMax(p, v) KG_EMU__ATOMIC_SEL(max, p)((p), (v))
#define atomicMin(p, v) KG_EMU__ATOMIC_SEL(min, p)((p), (v))
#define atomicExch(p, v) KG_EMU__ATOMIC_SEL(exch, p)((p), (v))
#define atomicCAS(p, c, v) KG_EMU__ATOMIC_SEL(cas, p)((p), (c), (v))
#define __threadfence() ((void)0)
#define __threadfence_block() ((void)0)

/* ---- what the runtime (kg_emu_rt.c) does for the kernel ---- */
/* __syncthreads and its variants: kind 0 plain, 1 count, 2 and, 3 or; the count, or the
 * predicate's and / or. */
int kg_emu__barrier(int line, int kind, int pred);
#define __syncthreads() ((void)kg_emu__barrier(__LINE__, 0, 0))
#define __syncthreads_count(p) kg_emu__barrier(__LINE__, 1, (p))
#define __syncthreads_and(p) kg_emu__barrier(__LINE__, 2, (p))
#define __syncthreads_or(p) kg_emu__barrier(__LINE__, 3, (p))

enum { /* warp operations; the shfl modes are PTX's */
  KG_EMU_SHFL_IDX, KG_EMU_SHFL_UP, KG_EMU_SHFL_DOWN, KG_EMU_SHFL_XOR,
  KG_EMU_BALLOT, KG_EMU_ANY, KG_EMU_ALL, KG_EMU_SYNCWARP,
  KG_EMU_COLLOP, /* a collective instruction of kg_emu_tc.h (its name in coll_name) */
};
/* One lane's part of warp operation op; the lane's result once every lane of the mask that
 * has not exited has arrived. */
uint64_t kg_emu__warp(int op, unsigned mask, uint64_t val, int b, int width, int line);
#define KG_EMU__SHFL_FN(T, SUF)                                                           \
  static inline T kg_emu__shfl_##SUF(int op, unsigned m, T v, int b, int w, int line) {  \
    uint64_t u = 0, o;                                                                    \
    T t;                                                                                  \
    memcpy(&u, &v, sizeof v);                                                             \
    o = kg_emu__warp(op, m, u, b, w, line);                                               \
    memcpy(&t, &o, sizeof t);                                                             \
    return t;                                                                             \
  }
KG_EMU__SHFL_FN(int, i)
KG_EMU__SHFL_FN(unsigned int, u)
KG_EMU__SHFL_FN(long, l)
KG_EMU__SHFL_FN(unsigned long, ul)
KG_EMU__SHFL_FN(long long, ll)
KG_EMU__SHFL_FN(unsigned long long, ull)
KG_EMU__SHFL_FN(float, f)
KG_EMU__SHFL_FN(double, d)
/* An optional trailing width (default warpSize), as in CUDA. */
#define KG_EMU__SHFL(op, m, v, b, w, ...)                                              \
  _Generic((v), unsigned int: kg_emu__shfl_u, long: kg_emu__shfl_l,                     \
           unsigned long: kg_emu__shfl_ul, long long: kg_emu__shfl_ll,                  \
           unsigned long long: kg_emu__shfl_ull, float: kg_emu__shfl_f,                 \
           double: kg_emu__shfl_d, default: kg_emu__shfl_i)((op), (m), (v), (b), (w), __LINE__)
#define __shfl_sync(m, v, ...) KG_EMU__SHFL(KG_EMU_SHFL_IDX, m, v, __VA_ARGS__, 32, 0)
#define __shfl_up_sync(m, v, ...) KG_EMU__SHFL(KG_EMU_SHFL_UP, m, v, __VA_ARGS__, 32, 0)
#define __shfl_down_sync(m, v, ...) KG_EMU__SHFL(KG_EMU_SHFL_DOWN, m, v, __VA_ARGS__, 32, 0)
#define __shfl_xor_sync(m, v, ...) KG_EMU__SHFL(KG_EMU_SHFL_XOR, m, v, __VA_ARGS__, 32, 0)
#define __ballot_sync(m, p) ((unsigned)kg_emu__warp(KG_EMU_BALLOT, (m), (p) != 0, 0, 32, __LINE__))
#define __any_sync(m, p) ((int)kg_emu__warp(KG_EMU_ANY, (m), (p) != 0, 0, 32, __LINE__))
#define __all_sync(m, p) ((int)kg_emu__warp(KG_EMU_ALL, (m), (p) != 0, 0, 32, __LINE__))
/* __syncwarp() or __syncwarp(mask); a mask of 0 means the whole warp. */
#define __syncwarp(...) kg_emu__syncwarp((unsigned)(__VA_ARGS__ + 0), __LINE__)
static inline void kg_emu__syncwarp(unsigned m, int line) {
  (void)kg_emu__warp(KG_EMU_SYNCWARP, m ? m : 0xffffffffu, 0, 0, 32, line);
}
/* The lanes of the caller's warp that have not exited. */
unsigned __activemask(void);
/* The block's dynamic shared memory (the launch's dyn_smem bytes). */
void *kg_emu_dyn_smem(void);
#define __trap() kg_emu__trap(__LINE__)
void kg_emu__trap(int line) __attribute__((noreturn));

/* The host's lender of fiber stacks (kg_emu_rt.c; runtime/rt.h has the host's copy). */
struct kg_emu_host;
/* Runs thread_fn(params) once per thread of the grid (kg_emu_rt.c); idx is the calling kernel
 * object's thread context, [sh0, sh1) its __shared__ storage. */
int kg_emu__launch(void (*thread_fn)(void **), void **params, const unsigned grid[3], const unsigned block[3],
                   size_t dyn_smem, int order, unsigned seed, char *err, size_t errlen,
                   const struct kg_emu_host *host, kg_emu_idx *idx, char *sh0, char *sh1);
#ifndef KG_EMU_RT
/* The kernel object's __shared__ storage: the kg_emu_shared section. */
extern char __start_kg_emu_shared[] __attribute__((weak, visibility("hidden")));
extern char __stop_kg_emu_shared[] __attribute__((weak, visibility("hidden")));
/* The object's entry point (runtime/dev_emu.c): runs thread_fn(params) once per thread of the
 * grid, block by block, on fiber stacks the host lends (host may be NULL). Returns 0, or -1 with
 * a message in err. Not reentrant from inside a kernel. */
__attribute__((visibility("default"))) int kg_emu_launch(void (*thread_fn)(void **), void **params,
                                                         const unsigned grid[3], const unsigned block[3],
                                                         size_t dyn_smem, int order, unsigned seed, char *err,
                                                         size_t errlen, const struct kg_emu_host *host);
__attribute__((visibility("default"))) int kg_emu_launch(void (*thread_fn)(void **), void **params,
                                                         const unsigned grid[3], const unsigned block[3],
                                                         size_t dyn_smem, int order, unsigned seed, char *err,
                                                         size_t errlen, const struct kg_emu_host *host) {
  return kg_emu__launch(thread_fn, params, grid, block, dyn_smem, order, seed, err, errlen, host, &kg_emu__idx,
                        __start_kg_emu_shared, __stop_kg_emu_shared);
}
#endif

#endif
