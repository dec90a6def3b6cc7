/* runtime/emu_stacks.c — the fiber stacks of every emulated launch in the process: one pool.
 *
 * A launch on fibers (the emulator's, and the CPU device's for kernels whose threads cooperate)
 * needs a stack per thread of a block, each with a guard page below it, so that a fiber that
 * overflows faults instead of writing into its neighbour. Mapping them per launch costs about
 * a millisecond (mmap, an mprotect per guard page, the pages faulted in again); keeping a spare
 * mapping per loaded object, as kg_emu.h once did, made the memory maps grow with the objects
 * a process loads — two per fiber, 1,000 to 2,000 per compiled entry — until the kernel's limit
 * of 65,530 maps failed every later compile and launch (issue 25).
 *
 * So the stacks are lent by this pool, the same for every object, device and context: a stack
 * set (one mapping of n slots of guard page + stack) is taken by a launch and given back when it
 * ends. Sets are sized by the largest block asked for so far (a set never shrinks below it, so
 * alternating block sizes do not remap), a launch takes any idle set large enough, at most
 * POOL_IDLE_MAX idle sets stay mapped, and sets that are too small are unmapped once idle.
 * Memory maps are therefore at most (launches running at once + POOL_IDLE_MAX) × (2 × the
 * largest block + 1), whatever the number of compiled entries; the stacks' resident memory is
 * what their fibers touched. Past POOL_SETS_MAX concurrent launches, a launch maps its own.
 *
 * This is process-wide state, on purpose (a pool per context would grow with the contexts the
 * .NET fast path makes, one per compiled function), behind one mutex; it holds nothing but
 * address space.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt.h"

#define POOL_SETS_MAX 64 /* stack sets lent at once (launches on that many OS threads) */
#define POOL_IDLE_MAX 2  /* idle sets kept mapped */

typedef struct pset {
  char *base;        /* the mapping; NULL when the entry is free */
  size_t len, slot, stack_size;
  unsigned n;        /* slots */
  bool lent;
} pset;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pset pool_sets[POOL_SETS_MAX];
static unsigned pool_largest; /* the largest block a launch has asked for */
static kg_stack_pool_stats pool_stats;

static void set_unmap(pset *s) {
  munmap(s->base, s->len);
  pool_stats.sets--, pool_stats.slots -= s->n, pool_stats.bytes -= s->len;
  memset(s, 0, sizeof *s);
}

static int set_map(pset *s, unsigned n, size_t stack_size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), slot = stack_size + page, len = slot * n;
  void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return -1;
  for (unsigned t = 0; t < n; t++)
    if (mprotect((char *)map + (size_t)t * slot, page, PROT_NONE)) {
      munmap(map, len);
      return -1;
    }
  s->base = map, s->len = len, s->slot = slot, s->stack_size = stack_size, s->n = n, s->lent = false;
  pool_stats.sets++, pool_stats.slots += n, pool_stats.bytes += len;
  if (pool_stats.sets > pool_stats.peak_sets) pool_stats.peak_sets = pool_stats.sets;
  return 0;
}

static int pool_get(void *ctx, unsigned n, size_t stack_size, kg_emu_stacks *out) {
  (void)ctx;
  if (!n || !stack_size) return -1;
  pthread_mutex_lock(&pool_lock);
  if (n > pool_largest) pool_largest = n;
  pset *pick = NULL, *hole = NULL;
  for (unsigned i = 0; i < POOL_SETS_MAX; i++) {
    pset *s = &pool_sets[i];
    if (!s->base) {
      if (!hole) hole = s;
      continue;
    }
    if (s->lent) continue;
    if (s->stack_size == stack_size && s->n >= n) {
      if (!pick || s->n < pick->n) pick = s;
    } else if (s->stack_size != stack_size || s->n < pool_largest) {
      set_unmap(s); /* idle and superseded: a larger block or another stack size is in use */
      if (!hole) hole = s;
    }
  }
  if (!pick && hole && set_map(hole, pool_largest, stack_size) == 0) pick = hole;
  if (pick) {
    pick->lent = true;
    pool_stats.lent++;
    out->base = pick->base, out->slot = pick->slot, out->stack_size = pick->stack_size, out->n = pick->n, out->handle = pick;
  }
  pthread_mutex_unlock(&pool_lock);
  return pick ? 0 : -1;
}

static void pool_put(void *ctx, kg_emu_stacks *st) {
  (void)ctx;
  pthread_mutex_lock(&pool_lock);
  pset *s = st->handle;
  s->lent = false;
  pool_stats.lent--;
  unsigned idle = 0;
  for (unsigned i = 0; i < POOL_SETS_MAX; i++) idle += pool_sets[i].base && !pool_sets[i].lent;
  if (idle > POOL_IDLE_MAX || s->n < pool_largest) set_unmap(s);
  pthread_mutex_unlock(&pool_lock);
}

static const kg_emu_host pool_host = {pool_get, pool_put, NULL};

const kg_emu_host *kg_emu_stack_pool(void) { return &pool_host; }

void kg_emu_stack_pool_stats(kg_stack_pool_stats *out) {
  pthread_mutex_lock(&pool_lock);
  *out = pool_stats;
  out->largest_block = pool_largest;
  pthread_mutex_unlock(&pool_lock);
}
