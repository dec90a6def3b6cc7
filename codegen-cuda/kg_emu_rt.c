/* codegen-cuda/kg_emu_rt.c — the CPU emulator's runtime: fibers, the block scheduler,
 * barriers, warp operations and the launch (kg_emu.h's top comment says how a kernel runs).
 *
 * Why a file of its own: the runtime is the same for every kernel, so it is compiled once per
 * compiler and flags (runtime/hostcc.c: the text "#define KG_EMU_RT 1", the headers, this file
 * and kg_emu_tc.c) into a shared object that every kernel object names as a dependency, instead
 * of into every kernel object (it was over half of each object's compile time). With KG_EMU_RT
 * defined, kg_emu.h's threadIdx and friends name the launching object's thread context through
 * a pointer (kg_emu__idxp) that kg_emu__launch sets.
 */
#ifndef KG_EMU_RT
#error "kg_emu_rt.c is compiled by runtime/hostcc.c after #define KG_EMU_RT and kg_emu.h"
#endif
#include <stdarg.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

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
  void *tc;            /* tensor-core state (kg_emu_tc.c: cp.async queues), NULL until used */
  char *sh0, *sh1;     /* the kernel object's __shared__ storage (the kg_emu_shared section) */
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
int kg_emu__barrier(int line, int kind, int pred) {
  kg_emu_run *r = kg_emu__run;
  kg_emu_fiber *f = r->cur;
  f->state = KG_EMU_BAR, f->line = line, f->op = kind, f->val = pred != 0;
  kg_emu__leave(r, f, 0);
  return kind == 2 ? f->res == r->n : kind == 3 ? f->res != 0 : (int)f->res;
}

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
uint64_t kg_emu__warp(int op, unsigned mask, uint64_t val, int b, int width, int line) {
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
/* The lanes of the caller's warp that have not exited. */
unsigned __activemask(void) {
  kg_emu_run *r = kg_emu__run;
  unsigned base = r->cur->tid & ~31u, m = 0;
  for (unsigned l = 0; l < 32 && base + l < r->n; l++)
    if (r->fibers[base + l].state != KG_EMU_DONE) m |= 1u << l;
  return m;
}

void *kg_emu_dyn_smem(void) { return kg_emu__run ? kg_emu__run->dyn : NULL; }

void kg_emu__trap(int line) {
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
static void kg_emu__tc_block_start(kg_emu_run *r); /* kg_emu_tc.c */
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

/* Runs thread_fn(params) once per thread of the grid, block by block, on fiber stacks the host
 * lends (host may be NULL): kg_emu_launch of the kernel object (kg_emu.h) passes its thread
 * context and its __shared__ storage [sh0, sh1), poisoned at each block start. Returns 0, or -1
 * with a message in err. Not reentrant from inside a kernel. */
int kg_emu__launch(void (*thread_fn)(void **), void **params, const unsigned grid[3], const unsigned block[3],
                   size_t dyn_smem, int order, unsigned seed, char *err, size_t errlen,
                   const struct kg_emu_host *host, kg_emu_idx *idx, char *sh0, char *sh1) {
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
  kg_emu_idx *saved_idxp = kg_emu__idxp;
  kg_emu__idxp = idx;
  kg_emu_run run;
  memset(&run, 0, sizeof run);
  run.fn = thread_fn, run.params = params, run.n = (unsigned)nt;
  run.order = order, run.rng = seed, run.err = err, run.errlen = errlen;
  run.sh0 = sh0, run.sh1 = sh1;
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
  kg_emu__idxp = saved_idxp;
  kg_emu__fibers_free(&run);
  return rc;
}
