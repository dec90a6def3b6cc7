/* tests/test_threads.c — no hidden global state: two contexts compile and run on
 * two threads at once (style habit 2), each result checked element by element; and ONE
 * context shared by several threads: its calls are serialized by the context's lock (kgen.h),
 * so specializing, running (one shared compiled entry and each thread's own), emitting,
 * seeding and freeing from four threads at once give the single-threaded results bit for bit. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"

typedef struct job {
  const char *file;
  int ok;
  char err[512];
} job;

static void *worker(void *arg) {
  job *j = arg;
  for (int rep = 0; rep < 3; rep++) {
    kg_context *ctx = kg_context_new(NULL);
    kg_module *m;
    if (kg_module_load_file(ctx, j->file, &m) != KG_OK) {
      snprintf(j->err, sizeof j->err, "%s", kg_last_error(ctx));
      kg_context_free(ctx);
      return NULL;
    }
    /* x [1000] float32 → tanh(x + x) * 0.5 style examples: run on inputs 0..n */
    kg_compiled *c0;
    if (kg_specialize(m, NULL, NULL, &c0) != KG_OK) {
      snprintf(j->err, sizeof j->err, "%s", kg_last_error(ctx));
      kg_module_free(m), kg_context_free(ctx);
      return NULL;
    }
    uint32_t np = c0->g.params.n;
    kg_npy in[8];
    DLTensor v[8];
    const DLTensor *ins[8];
    for (uint32_t p = 0; p < np && p < 8; p++) {
      const kg_gnode *n = &c0->g.nodes.v[c0->g.params.v[p].node];
      int64_t shape[8];
      for (int d = 0; d < n->shape.rank; d++) shape[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : 9;
      kg_npy_random(&in[p], n->dtype, n->vkind == KG_V_SCALAR ? 0 : n->shape.rank, shape, 42 + p, true);
      kg_npy_dlview(&in[p], &v[p]);
      ins[p] = &v[p];
    }
    kg_compiled *c;
    if (kg_specialize_for(m, NULL, ins, (int)np, NULL, 0, &c) != KG_OK) {
      snprintf(j->err, sizeof j->err, "%s", kg_last_error(ctx));
    } else {
      int no = kg_compiled_n_outputs(c);
      kg_npy outs[8];
      DLTensor ov[8];
      DLTensor *op[8];
      kg_alloc_host_outputs(c, outs, ov, op);
      if (kg_run(c, KG_DEVICE_EMU, ins, (int)np, NULL, 0, op, no, NULL) != KG_OK) snprintf(j->err, sizeof j->err, "%s", kg_last_error(ctx));
      else j->ok++;
      for (int i = 0; i < no; i++) kg_npy_free(&outs[i]);
      kg_compiled_free(c);
    }
    for (uint32_t p = 0; p < np && p < 8; p++) kg_npy_free(&in[p]);
    kg_compiled_free(c0);
    kg_module_free(m);
    kg_context_free(ctx);
  }
  return NULL;
}

Test(threads, two_contexts_on_two_threads) {
  job a = {KG_SOURCE_DIR "/examples/chain_swiglu.json", 0, ""}, b = {KG_SOURCE_DIR "/examples/map_while_collatz.json", 0, ""};
  job c2 = {KG_SOURCE_DIR "/examples/chain_swiglu.json", 0, ""};
  pthread_t t1, t2, t3;
  pthread_create(&t1, NULL, worker, &a);
  pthread_create(&t2, NULL, worker, &b);
  pthread_create(&t3, NULL, worker, &c2);
  pthread_join(t1, NULL), pthread_join(t2, NULL), pthread_join(t3, NULL);
  cr_expect_eq(a.ok, 3, "%s", a.err);
  cr_expect_eq(b.ok, 3, "%s", b.err);
  cr_expect_eq(c2.ok, 3, "%s", c2.err);
}

/* ---- one context, several threads ---- */

enum { SH_THREADS = 4, SH_REPS = 6 };

typedef struct shared {
  kg_module *m;
  kg_compiled *c;        /* run by every thread */
  const DLTensor *ins[8];
  int np, no;
  kg_npy ref[8];         /* the single-threaded outputs */
} shared;

typedef struct sjob {
  shared *sh;
  int ok;
  char err[512];
} sjob;

/* runs c on the shared inputs and compares with the reference outputs bit for bit */
static bool run_same(shared *sh, kg_compiled *c, char *err, size_t n) {
  kg_npy outs[8];
  DLTensor ov[8];
  DLTensor *op[8];
  kg_alloc_host_outputs(c, outs, ov, op);
  bool ok = kg_run(c, KG_DEVICE_EMU, sh->ins, sh->np, NULL, 0, op, sh->no, NULL) == KG_OK;
  if (!ok) snprintf(err, n, "run: %s", kg_last_error(sh->m->ctx));
  for (int i = 0; ok && i < sh->no; i++)
    if (outs[i].nbytes != sh->ref[i].nbytes || memcmp(outs[i].data, sh->ref[i].data, outs[i].nbytes)) {
      snprintf(err, n, "output %d differs from the single-threaded run", i);
      ok = false;
    }
  for (int i = 0; i < sh->no; i++) kg_npy_free(&outs[i]);
  return ok;
}

static void *shared_worker(void *arg) {
  sjob *j = arg;
  shared *sh = j->sh;
  for (int rep = 0; rep < SH_REPS; rep++) {
    kg_compiled *c;
    if (kg_specialize_for(sh->m, NULL, sh->ins, sh->np, NULL, 0, &c) != KG_OK) {
      snprintf(j->err, sizeof j->err, "specialize: %s", kg_last_error(sh->m->ctx));
      return NULL;
    }
    bool ok = run_same(sh, c, j->err, sizeof j->err) && run_same(sh, sh->c, j->err, sizeof j->err);
    char *text = NULL;
    size_t len = 0;
    if (ok && (kg_emit(c, KG_ART_CUDA, 0, &text, &len) != KG_OK || !len)) {
      snprintf(j->err, sizeof j->err, "emit: %s", kg_last_error(sh->m->ctx));
      ok = false;
    }
    free(text);
    kg_context_manual_seed(sh->m->ctx, (uint64_t)rep);
    kg_compiled_free(c);
    if (!ok) return NULL;
    j->ok++;
  }
  return NULL;
}

Test(threads, one_context_shared_by_four_threads) {
  kg_context *ctx = kg_context_new(NULL);
  shared sh = {0};
  cr_assert_eq(kg_module_load_file(ctx, KG_SOURCE_DIR "/examples/norm_prim_log_softmax.json", &sh.m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c0;
  cr_assert_eq(kg_specialize(sh.m, NULL, NULL, &c0), KG_OK, "%s", kg_last_error(ctx));
  sh.np = (int)c0->g.params.n;
  cr_assert_leq(sh.np, 8);
  kg_npy in[8];
  DLTensor v[8];
  for (int p = 0; p < sh.np; p++) {
    const kg_gnode *n = &c0->g.nodes.v[c0->g.params.v[p].node];
    int64_t shape[8];
    for (int d = 0; d < n->shape.rank; d++) shape[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : 37;
    kg_npy_random(&in[p], n->dtype, n->vkind == KG_V_SCALAR ? 0 : n->shape.rank, shape, 7 + (unsigned)p, true);
    kg_npy_dlview(&in[p], &v[p]);
    sh.ins[p] = &v[p];
  }
  cr_assert_eq(kg_specialize_for(sh.m, NULL, sh.ins, sh.np, NULL, 0, &sh.c), KG_OK, "%s", kg_last_error(ctx));
  sh.no = kg_compiled_n_outputs(sh.c);
  DLTensor rv[8];
  DLTensor *rp[8];
  kg_alloc_host_outputs(sh.c, sh.ref, rv, rp);
  cr_assert_eq(kg_run(sh.c, KG_DEVICE_EMU, sh.ins, sh.np, NULL, 0, rp, sh.no, NULL), KG_OK, "%s", kg_last_error(ctx));
  sjob jobs[SH_THREADS];
  pthread_t t[SH_THREADS];
  for (int i = 0; i < SH_THREADS; i++) {
    jobs[i] = (sjob){.sh = &sh};
    pthread_create(&t[i], NULL, shared_worker, &jobs[i]);
  }
  for (int i = 0; i < SH_THREADS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < SH_THREADS; i++) cr_expect_eq(jobs[i].ok, SH_REPS, "thread %d: %s", i, jobs[i].err);
  for (int i = 0; i < sh.no; i++) kg_npy_free(&sh.ref[i]);
  for (int p = 0; p < sh.np; p++) kg_npy_free(&in[p]);
  kg_compiled_free(sh.c);
  kg_compiled_free(c0);
  kg_module_free(sh.m);
  kg_context_free(ctx);
}
