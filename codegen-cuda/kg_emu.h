/* codegen-cuda/kg_emu.h — lets the host C compiler build the CUDA C that kgen emits.
 *
 * The emulator device (runtime/dev_emu.c) compiles one translation unit
 *     #include "kg_emu.h"   <- this file
 *     <the kernel text, exactly what NVRTC compiles>
 *     <emulator trampolines: void K__kg_thread(void **params)>
 * with `cc -std=c11 -O1 -fPIC -shared -D_GNU_SOURCE` into a shared object, dlopens
 * it, and calls kg_emu_launch (defined below) to run a grid.
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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

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
/* Per OS thread: launches on different OS threads do not interfere. */
static _Thread_local kg_emu_idx kg_emu__idx;
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

/* ---- running threads: one fiber per CUDA thread ---- */
#if defined(__SANITIZE_ADDRESS__)
#define KG_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KG_EMU_ASAN 1
#endif
#endif
#if defined(KG_EMU_ASAN) && !defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

/* The context switch. x86-64: a hand-written swap of the callee-saved registers,
 * MXCSR and the x87 control word (~10 ns; swapcontext makes a sigprocmask
 * system call each way, ~215 ns a switch measured here, which made a barrier
 * cost ~2 us per thread). Elsewhere, or with -DKG_EMU_UCONTEXT: ucontext. */
#if defined(__x86_64__) && !defined(KG_EMU_UCONTEXT)
#define KG_EMU_ASM_SWITCH 1
/* kg_emu__swap(&save_sp, to_sp): saves the caller's context on its stack and
 * its stack pointer in *save_sp, then resumes the context saved at to_sp.
 * (A hidden symbol: include this header in one translation unit per object.) */
void kg_emu__swap(void **save_sp, void *to_sp) __attribute__((visibility("hidden")));
__asm__(".pushsection .text\n"
        ".globl kg_emu__swap\n"
        ".hidden kg_emu__swap\n"
        ".type kg_emu__swap, @function\n"
        ".p2align 4\n"
        "kg_emu__swap:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size kg_emu__swap, .-kg_emu__swap\n"
        ".popsection\n");
#endif

enum { /* fiber states */
  KG_EMU_READY, /* runnable */
  KG_EMU_BAR,   /* waiting at a __syncthreads barrier */
  KG_EMU_WARP,  /* waiting in a warp operation for the other lanes of its mask */
  KG_EMU_DONE,  /* returned from the kernel */
  KG_EMU_COLL,  /* waiting in a warp- or warpgroup-collective instruction (kg_emu_tc.h) */
  KG_EMU_MBAR,  /* waiting on an mbarrier's phase (kg_emu_tc.h: coll_arg the barrier, b the parity) */
};
enum { /* warp operations; the shfl modes are PTX's */
  KG_EMU_SHFL_IDX, KG_EMU_SHFL_UP, KG_EMU_SHFL_DOWN, KG_EMU_SHFL_XOR,
  KG_EMU_BALLOT, KG_EMU_ANY, KG_EMU_ALL, KG_EMU_SYNCWARP,
  KG_EMU_COLLOP, /* a collective instruction of kg_emu_tc.h (its name in coll_name) */
};
enum { KG_EMU_STACK_KB = 64 }; /* per fiber, plus a guard page ($KGEN_EMU_STACK_KB) */

typedef struct kg_emu_fiber {
#ifdef KG_EMU_ASM_SWITCH
  void *sp;        /* saved stack pointer while switched out */
#else
  ucontext_t ctx;
#endif
  char *stack;     /* lowest usable byte; the guard page lies just below */
  unsigned tid;    /* linear thread index in the block (x fastest) */
  uint3 idx;       /* the same as threadIdx */
  int state;       /* KG_EMU_READY ... */
  int line;        /* source line of the barrier / warp operation it waits in */
  int op;          /* barrier kind (0 plain, 1 count, 2 and, 3 or) or warp operation */
  unsigned mask;   /* warp operation member mask */
  int b, width;    /* shfl: source lane / delta / lane mask, and segment width */
  uint64_t val;    /* contributed: shfl value bits, or vote / barrier predicate */
  uint64_t res;    /* result, set when the operation completes */
  void *fake;      /* ASan fake-stack handle while switched out */
  /* KG_EMU_COLL (kg_emu_tc.h): the instruction (its group's action once every lane has
   * arrived), this lane's operands, the instruction's name for messages */
  void (*coll)(struct kg_emu_fiber *group, unsigned size);
  void *coll_arg;
  const char *coll_name;
} kg_emu_fiber;

/* Fiber stacks come from the host (runtime/emu_stacks.c): one pool per process, its stack sets
 * sized by the largest block in use, each slot a guard page and a stack, so that the stacks
 * (and their memory maps: two per fiber) are bounded by the launches running at once, not by
 * the objects loaded (one spare mapping per object made a process that compiled many entries
 * run out of memory maps: issue 25). Mapping them afresh each launch (an mmap, an mprotect per
 * guard page, a munmap, the pages faulted in again) cost about a millisecond. Without a host,
 * and under AddressSanitizer (a fiber's frames stay poisoned on its stack), a launch maps its
 * own and unmaps them at its end. The layout is part of the object's ABI (runtime/rt.h has the
 * host's copy of these two structures). */
typedef struct kg_emu_stacks {
  char *base;        /* n slots, `slot` bytes apart: a guard page (PROT_NONE), then the stack */
  size_t slot;       /* guard page + stack bytes */
  size_t stack_size; /* usable bytes per stack (a multiple of the page size) */
  unsigned n;        /* slots (at least the block's threads) */
  void *handle;      /* the host's */
} kg_emu_stacks;
typedef struct kg_emu_host {
  /* n stacks of stack_size bytes for one launch: 0 and *out filled, or -1 (then the launch maps
   * its own); handed back with stacks_put when the launch ends */
  int (*stacks_get)(void *ctx, unsigned n, size_t stack_size, kg_emu_stacks *out);
  void (*stacks_put)(void *ctx, kg_emu_stacks *s);
  void *ctx;
} kg_emu_host;

typedef struct kg_emu_run {
  void (*fn)(void **);
  void **params;
  unsigned n;          /* threads per block */
  int order;           /* 0 forward, 1 reverse, 2 random */
  uint64_t rng;        /* state for order 2 */
  unsigned *perm;      /* n entries: the order of the current phase */
  kg_emu_fiber *fibers;
  char *stacks;        /* n slots of (guard page + stack): lent by the host, or our own mapping */
  size_t slot;         /* bytes from one slot to the next */
  const kg_emu_host *host; /* the lender of the stacks (NULL: our own mapping) */
  kg_emu_stacks lent;      /* what it lent */
  char *dyn;           /* dynamic shared memory of the block (NULL when none) */
  size_t dyn_len;
  size_t stacks_len, stack_size;
#ifdef KG_EMU_ASM_SWITCH
  void *sched_sp;      /* the block scheduler (kg_emu_launch's stack) */
#else
  ucontext_t sched;
#endif
  kg_emu_fiber *cur;   /* running fiber, NULL in the scheduler */
  void *sched_fake;
  const void *sched_bottom;
  size_t sched_size;
  char *err;
  size_t errlen;
  int failed;
  void *tc;            /* tensor-core state (kg_emu_tc.h: cp.async queues), NULL until used */
} kg_emu_run;

static _Thread_local kg_emu_run *kg_emu__run;

static inline uint64_t kg_emu__rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static void kg_emu__fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void kg_emu__fail(const char *fmt, ...) {
  kg_emu_run *r = kg_emu__run;
  if (r->failed) return; /* keep the first error */
  r->failed = 1;
  if (r->errlen) {
    int n = snprintf(r->err, r->errlen, "block (%u,%u,%u): ", blockIdx.x, blockIdx.y, blockIdx.z);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen) vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
}
/* "(x,y,z)" of linear thread index t, for messages. */
static const char *kg_emu__tname(unsigned t, char buf[40]) {
  snprintf(buf, 40, "(%u,%u,%u)", t % blockDim.x, (t / blockDim.x) % blockDim.y,
           t / (blockDim.x * blockDim.y));
  return buf;
}
static const char *kg_emu__opname(int op) {
  switch (op) {
  case KG_EMU_SHFL_IDX: return "__shfl_sync";
  case KG_EMU_SHFL_UP: return "__shfl_up_sync";
  case KG_EMU_SHFL_DOWN: return "__shfl_down_sync";
  case KG_EMU_SHFL_XOR: return "__shfl_xor_sync";
  case KG_EMU_BALLOT: return "__ballot_sync";
  case KG_EMU_ANY: return "__any_sync";
  case KG_EMU_ALL: return "__all_sync";
  case KG_EMU_COLLOP: return "a collective instruction";
  default: return "__syncwarp";
  }
}
/* The order the block's threads run in, for one phase (between two barriers). */
static void kg_emu__order(kg_emu_run *r) {
  unsigned n = r->n;
  for (unsigned i = 0; i < n; i++) r->perm[i] = r->order == 1 ? n - 1 - i : i;
  if (r->order == 2)
    for (unsigned i = n; i > 1; i--) {
      unsigned j = (unsigned)(kg_emu__rand(&r->rng) % i), t = r->perm[i - 1];
      r->perm[i - 1] = r->perm[j], r->perm[j] = t;
    }
}

/* -- context switches: the only places that swap stacks -- */
/* Scheduler -> fiber f; returns when f waits, finishes or fails. */
static void kg_emu__enter(kg_emu_run *r, kg_emu_fiber *f) {
  r->cur = f;
  threadIdx = f->idx;
#ifdef KG_EMU_ASAN
  __sanitizer_start_switch_fiber(&r->sched_fake, f->stack, r->stack_size);
#endif
#ifdef KG_EMU_ASM_SWITCH
  kg_emu__swap(&r->sched_sp, f->sp);
#else
  swapcontext(&r->sched, &f->ctx);
#endif
#ifdef KG_EMU_ASAN
  __sanitizer_finish_switch_fiber(r->sched_fake, NULL, NULL);
#endif
  r->cur = NULL;
}
/* Fiber f -> scheduler; returns when the scheduler resumes f (never when `last`). */
static void kg_emu__leave(kg_emu_run *r, kg_emu_fiber *f, int last) {
#ifdef KG_EMU_ASAN
  __sanitizer_start_switch_fiber(last ? NULL : &f->fake, r->sched_bottom, r->sched_size);
#else
  (void)last;
#endif
#ifdef KG_EMU_ASM_SWITCH
  kg_emu__swap(&f->sp, r->sched_sp);
#else
  swapcontext(&f->ctx, &r->sched);
#endif
#ifdef KG_EMU_ASAN
  __sanitizer_finish_switch_fiber(f->fake, &r->sched_bottom, &r->sched_size);
#endif
}
static void kg_emu__entry(void) {
  kg_emu_run *r = kg_emu__run;
  kg_emu_fiber *f = r->cur;
#ifdef KG_EMU_ASAN
  __sanitizer_finish_switch_fiber(NULL, &r->sched_bottom, &r->sched_size);
#endif
  r->fn(r->params);
  f->state = KG_EMU_DONE;
  kg_emu__leave(r, f, 1);
  abort(); /* a finished fiber is never resumed */
}
/* Ends the calling fiber after a failure: the launch stops. */
static void kg_emu__abandon(void) __attribute__((noreturn, unused));
static void kg_emu__abandon(void) {
  kg_emu_run *r = kg_emu__run;
  kg_emu__leave(r, r->cur, 1);
  abort();
}

/* Makes f start at kg_emu__entry on its own stack when next entered. */
static void kg_emu__prepare(kg_emu_run *r, kg_emu_fiber *f) {
#ifdef KG_EMU_ASM_SWITCH
  /* The frame kg_emu__swap pops: control words, r15..r12, rbx, rbp, then the
   * "return address" kg_emu__entry, entered with rsp = 8 mod 16 as after a call. */
  uintptr_t top = ((uintptr_t)f->stack + r->stack_size) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)(top - 72);
  uint32_t csr[2];
  __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(csr[0]), "=m"(csr[1]));
  memcpy(&sp[0], csr, 8);
  for (int i = 1; i <= 6; i++) sp[i] = 0;            /* r15 r14 r13 r12 rbx rbp */
  sp[7] = (uint64_t)(uintptr_t)&kg_emu__entry;       /* at top - 16 */
  sp[8] = 0;                                         /* a null return address ends backtraces */
  f->sp = sp;
#else
  makecontext(&f->ctx, kg_emu__entry, 0);
#endif
}

/* -- barriers -- */
/* kind: 0 __syncthreads, 1 _count, 2 _and, 3 _or; returns how many threads had pred != 0. */
static int kg_emu__barrier(int line, int kind, int pred) __attribute__((unused));
static int kg_emu__barrier(int line, int kind, int pred) {
  kg_emu_run *r = kg_emu__run;
  kg_emu_fiber *f = r->cur;
  f->state = KG_EMU_BAR, f->line = line, f->op = kind, f->val = pred != 0;
  kg_emu__leave(r, f, 0);
  return (int)f->res;
}
#define __syncthreads() ((void)kg_emu__barrier(__LINE__, 0, 0))
#define __syncthreads_count(p) kg_emu__barrier(__LINE__, 1, (p))
#define __syncthreads_and(p) (kg_emu__barrier(__LINE__, 2, (p)) == (int)kg_emu__run->n)
#define __syncthreads_or(p) (kg_emu__barrier(__LINE__, 3, (p)) != 0)

/* -- warp operations -- */
/* Completes the warp operation f waits in when every lane of its mask that has
 * not exited waits in the same operation with the same mask; 1 when done. */
static int kg_emu__warp_try(kg_emu_run *r, kg_emu_fiber *f) {
  unsigned base = f->tid & ~31u, nl = r->n - base < 32 ? r->n - base : 32, part = 0;
  kg_emu_fiber *w = r->fibers + base;
  for (unsigned l = 0; l < nl; l++) {
    if (!(f->mask >> l & 1u) || w[l].state == KG_EMU_DONE) continue; /* exited: not needed */
    if (w[l].state != KG_EMU_WARP || w[l].op != f->op || w[l].mask != f->mask) return 0;
    part |= 1u << l;
  }
  uint64_t ballot = 0;
  for (unsigned l = 0; l < nl; l++)
    if ((part >> l & 1u) && w[l].val) ballot |= 1ull << l;
  for (unsigned l = 0; l < nl; l++) {
    if (!(part >> l & 1u)) continue;
    kg_emu_fiber *g = &w[l];
    if (g->op <= KG_EMU_SHFL_XOR) { /* PTX shfl.sync: c = ((32 - width) << 8) | (up ? 0 : 31) */
      int seg = (32 - g->width) & 31, bv = g->b & 31, L = (int)l;
      int minl = L & seg, maxl = minl | ((g->op == KG_EMU_SHFL_UP ? 0 : 31) & ~seg), j = L, ok = 0;
      switch (g->op) {
      case KG_EMU_SHFL_UP: j = L - bv, ok = j >= maxl; break;
      case KG_EMU_SHFL_DOWN: j = L + bv, ok = j <= maxl; break;
      case KG_EMU_SHFL_XOR: j = L ^ bv, ok = j <= maxl; break;
      default: j = minl | (bv & ~seg), ok = j <= maxl; break;
      }
      if (!ok) j = L; /* out of the segment: the caller's own value */
      /* A source lane that does not take part gives an undefined value: poison. */
      g->res = (part >> j & 1u) ? w[j].val : ~0ull;
    } else if (g->op == KG_EMU_BALLOT) {
      g->res = ballot;
    } else if (g->op == KG_EMU_ANY) {
      g->res = ballot != 0;
    } else if (g->op == KG_EMU_ALL) {
      g->res = ballot == part;
    }
  }
  for (unsigned l = 0; l < nl; l++)
    if (part >> l & 1u) w[l].state = KG_EMU_READY;
  return 1;
}
static uint64_t kg_emu__warp(int op, unsigned mask, uint64_t val, int b, int width, int line)
    __attribute__((unused));
static uint64_t kg_emu__warp(int op, unsigned mask, uint64_t val, int b, int width, int line) {
  kg_emu_run *r = kg_emu__run;
  kg_emu_fiber *f = r->cur;
  char tn[40];
  if (!(mask >> (f->tid & 31u) & 1u)) {
    kg_emu__fail("thread %s (lane %u) calls %s at line %d with mask %#x, which leaves it out",
                 kg_emu__tname(f->tid, tn), f->tid & 31u, kg_emu__opname(op), line, mask);
    kg_emu__abandon();
  }
  if (op <= KG_EMU_SHFL_XOR && (width < 1 || width > 32 || (width & (width - 1)))) {
    kg_emu__fail("thread %s calls %s at line %d with width %d (a power of 2 in 1..32)",
                 kg_emu__tname(f->tid, tn), kg_emu__opname(op), line, width);
    kg_emu__abandon();
  }
  f->state = KG_EMU_WARP, f->op = op, f->mask = mask, f->val = val, f->b = b;
  f->width = width, f->line = line;
  if (!kg_emu__warp_try(r, f)) kg_emu__leave(r, f, 0);
  return f->res;
}
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
static inline unsigned __activemask(void) {
  kg_emu_run *r = kg_emu__run;
  unsigned base = r->cur->tid & ~31u, m = 0;
  for (unsigned l = 0; l < 32 && base + l < r->n; l++)
    if (r->fibers[base + l].state != KG_EMU_DONE) m |= 1u << l;
  return m;
}

/* The block's dynamic shared memory (the launch's dyn_smem bytes). */
static inline void *kg_emu_dyn_smem(void) { return kg_emu__run ? kg_emu__run->dyn : NULL; }

#define __trap() kg_emu__trap(__LINE__)
static void kg_emu__trap(int line) __attribute__((noreturn, unused));
static void kg_emu__trap(int line) {
  char tn[40];
  kg_emu__fail("thread %s called __trap() at line %d", kg_emu__tname(kg_emu__run->cur->tid, tn),
               line);
  kg_emu__abandon();
}

/* -- the block scheduler -- */
/* Nothing is runnable: explains why the block cannot go on. */
static void kg_emu__stuck(kg_emu_run *r) {
  char t1[40], t2[40];
  kg_emu_fiber *w = NULL, *b = NULL, *d = NULL, *c = NULL, *m = NULL;
  for (unsigned t = 0; t < r->n; t++) {
    kg_emu_fiber *f = &r->fibers[t];
    if (f->state == KG_EMU_MBAR && !m) m = f;
    if (f->state == KG_EMU_COLL && !c) c = f;
    if (f->state == KG_EMU_WARP && !w) w = f;
    if (f->state == KG_EMU_BAR && !b) b = f;
    if (f->state == KG_EMU_DONE && !d) d = f;
  }
  if (m && !c && !w) { /* every thread waits: no arrival can complete the phase */
    kg_emu__fail("thread %s waits forever on the mbarrier at %p (phase parity %d) at line %d: no "
                 "running thread is left to arrive on it%s",
                 kg_emu__tname(m->tid, t1), m->coll_arg, m->b, m->line,
                 b ? " (some wait at __syncthreads())" : "");
    return;
  }
  if (c) { /* a collective instruction: name a lane of its group that is elsewhere */
    unsigned size = (unsigned)c->width, base = c->tid & ~(size - 1);
    for (unsigned l = 0; l < size && base + l < r->n; l++) {
      kg_emu_fiber *g = &r->fibers[base + l];
      if (g->state == KG_EMU_COLL) continue;
      if (g->state == KG_EMU_DONE)
        kg_emu__fail("thread %s waits in %s at line %d for the %u threads of its %s, but thread %s "
                     "has exited",
                     kg_emu__tname(c->tid, t1), c->coll_name, c->line, size,
                     size == 32 ? "warp" : "warpgroup", kg_emu__tname(g->tid, t2));
      else
        kg_emu__fail("thread %s waits in %s at line %d for the %u threads of its %s, but thread %s "
                     "%s at line %d",
                     kg_emu__tname(c->tid, t1), c->coll_name, c->line, size,
                     size == 32 ? "warp" : "warpgroup", kg_emu__tname(g->tid, t2),
                     g->state == KG_EMU_BAR ? "waits at __syncthreads()" : "waits elsewhere", g->line);
      return;
    }
  }
  if (w) { /* name a lane of its mask that is elsewhere */
    unsigned base = w->tid & ~31u;
    for (unsigned l = 0; l < 32 && base + l < r->n; l++) {
      kg_emu_fiber *g = &r->fibers[base + l];
      if (!(w->mask >> l & 1u) || g->state == KG_EMU_DONE) continue;
      if (g->state == KG_EMU_BAR) {
        kg_emu__fail("thread %s waits in %s at line %d (mask %#x) while thread %s of its mask "
                     "waits at __syncthreads() at line %d",
                     kg_emu__tname(w->tid, t1), kg_emu__opname(w->op), w->line, w->mask,
                     kg_emu__tname(g->tid, t2), g->line);
        return;
      }
      if (g->op != w->op || g->mask != w->mask) {
        kg_emu__fail("threads of one warp disagree: thread %s is in %s at line %d with mask %#x, "
                     "thread %s in %s at line %d with mask %#x",
                     kg_emu__tname(w->tid, t1), kg_emu__opname(w->op), w->line, w->mask,
                     kg_emu__tname(g->tid, t2), kg_emu__opname(g->op), g->line, g->mask);
        return;
      }
    }
    kg_emu__fail("thread %s waits forever in %s at line %d (mask %#x)", kg_emu__tname(w->tid, t1),
                 kg_emu__opname(w->op), w->line, w->mask);
  } else if (b && d) {
    kg_emu__fail("divergent __syncthreads(): thread %s waits at line %d but thread %s has exited",
                 kg_emu__tname(b->tid, t1), b->line, kg_emu__tname(d->tid, t2));
  }
}
static void kg_emu__tc_block_start(kg_emu_run *r); /* kg_emu_tc.h */
static void kg_emu__tc_free(kg_emu_run *r);
/* Runs every thread of the current block (blockIdx set); 0 on success. */
static int kg_emu__run_block(kg_emu_run *r) {
  kg_emu__tc_block_start(r);
  for (unsigned t = 0; t < r->n; t++) {
    kg_emu_fiber *f = &r->fibers[t];
    f->state = KG_EMU_READY, f->res = 0;
    kg_emu__prepare(r, f);
  }
  kg_emu__order(r);
  for (;;) {
    int ran = 0;
    for (unsigned i = 0; i < r->n && !r->failed; i++) {
      kg_emu_fiber *f = &r->fibers[r->perm[i]];
      if (f->state == KG_EMU_READY) kg_emu__enter(r, f), ran = 1;
    }
    if (r->failed) return -1;
    if (ran) continue;
    /* Nothing runnable. Warp operations whose missing lanes have exited complete. */
    for (unsigned t = 0; t < r->n; t++)
      if (r->fibers[t].state == KG_EMU_WARP) ran |= kg_emu__warp_try(r, &r->fibers[t]);
    if (ran) continue;
    unsigned done = 0, bar = 0, count = 0;
    kg_emu_fiber *first = NULL;
    for (unsigned t = 0; t < r->n; t++) {
      kg_emu_fiber *f = &r->fibers[t];
      done += f->state == KG_EMU_DONE;
      if (f->state != KG_EMU_BAR) continue;
      bar++, count += f->val != 0;
      if (!first) first = f;
      if (f->line != first->line || f->op != first->op) {
        char t1[40], t2[40];
        kg_emu__fail("divergent __syncthreads(): thread %s waits at line %d, thread %s at line %d",
                     kg_emu__tname(first->tid, t1), first->line, kg_emu__tname(f->tid, t2), f->line);
        return -1;
      }
    }
    if (done == r->n) return 0;
    if (bar != r->n) {
      kg_emu__stuck(r);
      return -1;
    }
    /* Every thread waits at the same barrier: release it; a new phase, a new order. */
    for (unsigned t = 0; t < r->n; t++)
      r->fibers[t].state = KG_EMU_READY, r->fibers[t].res = count;
    kg_emu__order(r);
  }
}

#ifndef KG_EMU_ASM_SWITCH
/* getcontext "returns twice" (-Wclobbered): alone in a function of its own. The
 * context is only ever resumed after makecontext, so it never does return twice. */
static __attribute__((noinline)) int kg_emu__getcontext(ucontext_t *c) { return getcontext(c); }
#endif
/* Fiber stacks: from the host's pool, else one mapping of our own, a guard page below each stack. */
static int kg_emu__fibers_init(kg_emu_run *r, const unsigned block[3], const kg_emu_host *host) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), kb = KG_EMU_STACK_KB;
#ifdef KG_EMU_ASAN
  kb *= 4; /* instrumented frames are larger */
  host = (const kg_emu_host *)0;
#endif
  const char *env = getenv("KGEN_EMU_STACK_KB");
  if (env && atoi(env) > 0) kb = (size_t)atoi(env);
  r->stack_size = (kb * 1024 + page - 1) / page * page;
  r->slot = r->stack_size + page;
  r->perm = (unsigned *)malloc(r->n * sizeof(unsigned));
  r->fibers = (kg_emu_fiber *)calloc(r->n, sizeof(kg_emu_fiber));
  if (host && host->stacks_get && host->stacks_get(host->ctx, r->n, r->stack_size, &r->lent) == 0) {
    r->host = host, r->stacks = r->lent.base, r->slot = r->lent.slot;
  } else {
    r->stacks_len = r->slot * r->n;
    void *map = mmap(NULL, r->stacks_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) return -1;
    r->stacks = (char *)map;
    for (unsigned t = 0; t < r->n; t++)
      if (mprotect(r->stacks + (size_t)t * r->slot, page, PROT_NONE)) return -1;
  }
  if (!r->perm || !r->fibers) return -1;
  for (unsigned t = 0; t < r->n; t++) {
    kg_emu_fiber *f = &r->fibers[t];
    f->stack = r->stacks + (size_t)t * r->slot + page;
    f->tid = t;
    f->idx = make_uint3(t % block[0], t / block[0] % block[1], t / (block[0] * block[1]));
#ifndef KG_EMU_ASM_SWITCH
    if (kg_emu__getcontext(&f->ctx)) return -1;
    f->ctx.uc_stack.ss_sp = f->stack;
    f->ctx.uc_stack.ss_size = r->stack_size;
    f->ctx.uc_link = NULL;
#endif
  }
  return 0;
}
static void kg_emu__fibers_free(kg_emu_run *r) {
  if (r->host) r->host->stacks_put(r->host->ctx, &r->lent);
  else if (r->stacks) munmap(r->stacks, r->stacks_len);
  kg_emu__tc_free(r);
  free(r->dyn);
  free(r->fibers);
  free(r->perm);
}

/* Poisons __shared__ storage (the kg_emu_shared section) at each block start. */
extern char __start_kg_emu_shared[] __attribute__((weak, visibility("hidden")));
extern char __stop_kg_emu_shared[] __attribute__((weak, visibility("hidden")));

/* Runs thread_fn(params) once per thread of the grid, block by block, on fiber stacks the host
 * lends (host may be NULL). Returns 0, or -1 with a message in err. Not reentrant from inside
 * a kernel. */
__attribute__((visibility("default"))) int kg_emu_launch(void (*thread_fn)(void **),
                                                         void **params, const unsigned grid[3],
                                                         const unsigned block[3], size_t dyn_smem,
                                                         int order, unsigned seed, char *err,
                                                         size_t errlen, const kg_emu_host *host);
__attribute__((visibility("default"))) int kg_emu_launch(void (*thread_fn)(void **),
                                                         void **params, const unsigned grid[3],
                                                         const unsigned block[3], size_t dyn_smem,
                                                         int order, unsigned seed, char *err,
                                                         size_t errlen, const kg_emu_host *host) {
  if (errlen) err[0] = 0;
  unsigned long long nt = (unsigned long long)block[0] * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || !nt || nt > 1024 || order < 0 || order > 2) {
    if (errlen)
      snprintf(err, errlen, "bad launch: grid (%u,%u,%u) block (%u,%u,%u) order %d", grid[0],
               grid[1], grid[2], block[0], block[1], block[2], order);
    return -1;
  }
  if (kg_emu__run) {
    if (errlen) snprintf(err, errlen, "kg_emu_launch called from inside a kernel");
    return -1;
  }
  kg_emu_run run;
  memset(&run, 0, sizeof run);
  run.fn = thread_fn, run.params = params, run.n = (unsigned)nt;
  run.order = order, run.rng = seed, run.err = err, run.errlen = errlen;
  int rc = kg_emu__fibers_init(&run, block, host);
  if (!rc && dyn_smem) {
    run.dyn_len = (dyn_smem + 1023) / 1024 * 1024; /* 1024-aligned: swizzle atoms (kg_emu_tc.h) */
    run.dyn = (char *)aligned_alloc(1024, run.dyn_len);
    rc = run.dyn ? 0 : -1;
  }
  if (rc && errlen) snprintf(err, errlen, "cannot set up %llu fibers (out of memory?)", nt);
  kg_emu_idx saved_idx = kg_emu__idx;
  kg_emu__run = &run;
  blockDim = make_uint3(block[0], block[1], block[2]);
  gridDim = make_uint3(grid[0], grid[1], grid[2]);
  char *sh0 = __start_kg_emu_shared, *sh1 = __stop_kg_emu_shared;
  for (unsigned z = 0; z < grid[2] && !rc; z++)
    for (unsigned y = 0; y < grid[1] && !rc; y++)
      for (unsigned x = 0; x < grid[0] && !rc; x++) {
        blockIdx = make_uint3(x, y, z);
        if (sh0 && sh1 > sh0) memset(sh0, 0xff, (size_t)(sh1 - sh0)); /* NaN / -1 */
        if (run.dyn) memset(run.dyn, 0xff, run.dyn_len);
        rc = kg_emu__run_block(&run);
      }
  kg_emu__run = NULL;
  kg_emu__idx = saved_idx;
  kg_emu__fibers_free(&run);
  return rc;
}

#endif
