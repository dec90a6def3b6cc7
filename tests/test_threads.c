/* tests/test_threads.c — no hidden global state: two contexts compile and run on
 * two threads at once (style habit 2), each result checked element by element. */
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
