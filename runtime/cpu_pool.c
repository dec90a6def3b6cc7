/* runtime/cpu_pool.c — the CPU device's worker threads: a parallel for over the blocks of a grid.
 *
 * kg_cpu_pool_for(p, n, grain, fn, arg) calls fn(arg, b0, b1) over [0, n) in ranges of `grain`
 * blocks, on the pool's workers and on the calling thread, and returns when every range is
 * done. Ranges are taken from one atomic counter, so a worker slowed down by another process
 * (this machine's cores are shared) takes fewer. After a job a worker watches the generation
 * number for SPIN_NS (50 µs) before it sleeps on a condition variable: a forward's launches
 * come back to back, and on the 2-vCPU development VM waking a sleeping worker often took longer
 * than a launch, so the caller ran every range itself (2 threads: ResNet-18 6.9–9.1 → 5.8–6.2 ms,
 * MobileNetV2 7.2 → 5.0 ms; docs/perf_cpu.md). The spin is bounded, not OpenMP's 200 ms: an idle
 * worker sleeps (a spinning one would steal the core the caller, or another process, needs). The
 * job is published under the mutex with a generation number.
 *
 * Threads are made on the first job that wants them and joined by kg_cpu_pool_free. One pool
 * per CPU device (per context); one job at a time (the context's thread).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "rt.h"

struct kg_cpu_pool {
  int threads;                /* workers + the caller */
  int started;                /* workers running */
  pthread_t *tids;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  _Atomic uint64_t gen;       /* bumped per job (under the mutex; read without it while spinning) */
  bool quit;
  /* the job */
  void (*fn)(void *arg, uint64_t b0, uint64_t b1);
  void *arg;
  uint64_t n, grain;
  _Atomic uint64_t next;      /* the first block not yet taken */
  int busy;                   /* workers still in this job */
};

/* Takes and runs ranges until none is left. */
static void drain(kg_cpu_pool *p) {
  for (;;) {
    uint64_t b0 = atomic_fetch_add_explicit(&p->next, p->grain, memory_order_relaxed);
    if (b0 >= p->n) return;
    uint64_t b1 = b0 + p->grain < p->n ? b0 + p->grain : p->n;
    p->fn(p->arg, b0, b1);
  }
}

/* After a job, a worker watches for the next one for up to SPIN_NS before it sleeps: a forward's
 * launches come back to back, and waking a sleeping thread took longer than a launch on the
 * development VM (the caller then ran every range itself). */
#define SPIN_NS 50000
static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
static void spin_for_job(kg_cpu_pool *p, uint64_t seen) {
  uint64_t t0 = now_ns();
  for (int i = 0;; i++) {
    if (atomic_load_explicit(&p->gen, memory_order_acquire) != seen) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if ((i & 63) == 63 && now_ns() - t0 > SPIN_NS) return;
  }
}

static void *worker(void *arg) {
  kg_cpu_pool *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    if (!p->quit && p->gen == seen) {
      pthread_mutex_unlock(&p->mu);
      spin_for_job(p, seen);
      pthread_mutex_lock(&p->mu);
    }
    while (!p->quit && p->gen == seen) pthread_cond_wait(&p->wake, &p->mu);
    if (p->quit) break;
    seen = p->gen;
    pthread_mutex_unlock(&p->mu);
    drain(p);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

kg_cpu_pool *kg_cpu_pool_new(int threads) {
  kg_cpu_pool *p = kg_xcalloc(1, sizeof *p);
  p->threads = threads < 1 ? 1 : threads;
  p->tids = kg_xcalloc((size_t)p->threads, sizeof *p->tids);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  return p;
}

int kg_cpu_pool_threads(const kg_cpu_pool *p) { return p->threads; }

void kg_cpu_pool_for(kg_cpu_pool *p, uint64_t n, uint64_t grain, void (*fn)(void *arg, uint64_t b0, uint64_t b1), void *arg) {
  if (!grain) grain = 1;
  if (p->threads == 1 || n <= grain) {
    if (n) fn(arg, 0, n);
    return;
  }
  pthread_mutex_lock(&p->mu);
  while (p->started < p->threads - 1) { /* the workers, on first need */
    if (pthread_create(&p->tids[p->started], NULL, worker, p) != 0) break;
    p->started++;
  }
  int workers = p->started;
  if (!workers) {
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0, n);
    return;
  }
  p->fn = fn, p->arg = arg, p->n = n, p->grain = grain;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  p->busy = workers;
  p->gen++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  drain(p);
  pthread_mutex_lock(&p->mu);
  while (p->busy) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void kg_cpu_pool_free(kg_cpu_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->quit = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->started; i++) pthread_join(p->tids[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  free(p->tids);
  free(p);
}
