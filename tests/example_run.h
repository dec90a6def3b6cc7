/* tests/example_run.h — running an example the way the schedule tests need it: once with random
 * inputs of its static signature on a device, keeping the compiled program (its run-time
 * kernels: c->runtime); and its check against PyTorch on the emulator in every thread order.
 * Header-only (static inline); with oracle_fixture.h's oracle, contexts and load(). */
#ifndef KG_TESTS_EXAMPLE_RUN_H
#define KG_TESTS_EXAMPLE_RUN_H

#include "oracle_fixture.h"
#include "runtime/api_int.h"
/* Loads the document at path (as load), specializes its first entry for random inputs of its
 * static signature (seed .. seed + params − 1) and runs it on dev; the compiled program (its
 * run-time kernels: c->runtime) is returned and its module left in *mo. Static signatures of at
 * most 8 parameters, at most 16 outputs. */
static inline kg_compiled *run_example(kg_context *ctx, const char *path, kg_device_kind dev, unsigned seed, kg_module **mo) {
  kg_module *m = load(ctx, path);
  kg_compiled *c0;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c0), KG_OK, "%s", kg_last_error(ctx));
  int np = (int)c0->g.params.n;
  cr_assert_leq(np, 8);
  kg_npy in[8];
  DLTensor v[8];
  const DLTensor *ins[8];
  for (int p = 0; p < np; p++) {
    const kg_gnode *n = &c0->g.nodes.v[c0->g.params.v[p].node];
    int64_t shape[8];
    for (int d = 0; d < n->shape.rank; d++) shape[d] = n->shape.d[d].v;
    cr_assert_eq(kg_npy_random(&in[p], n->dtype, n->shape.rank, shape, seed + (unsigned)p, true), 0);
    kg_npy_dlview(&in[p], &v[p]);
    ins[p] = &v[p];
  }
  kg_compiled_free(c0);
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, np, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  int no = kg_compiled_n_outputs(c);
  cr_assert_leq(no, 16);
  kg_npy outs[16];
  DLTensor ov[16], *op[16];
  cr_assert_eq(kg_alloc_host_outputs(c, outs, ov, op), KG_OK);
  cr_assert_eq(kg_run(c, dev, ins, np, NULL, 0, op, no, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int i = 0; i < no; i++) kg_npy_free(&outs[i]);
  for (int p = 0; p < np; p++) kg_npy_free(&in[p]);
  *mo = m;
  return c;
}


/* The document at path against PyTorch on the emulator in thread orders 0, 1 and 2 (contexts
 * seeded `ctx_seed`, check seeds seed, seed + 1, seed + 2); every output must match. */
static inline void check_every_order(const char *path, uint64_t ctx_seed, unsigned seed) {
  for (int order = 0; order < 3; order++) {
    kg_context *ctx = ctx_in_order(order, ctx_seed);
    kg_module *m = load(ctx, path);
    kg_check_opts co;
    memset(&co, 0, sizeof co);
    co.device = KG_DEVICE_EMU, co.seed = seed + (unsigned)order;
    kg_check_result r;
    cr_assert_eq(kg_check_module(ctx, orc, m, &co, &r), KG_OK, "%s order %d: %s", path, order, kg_last_error(ctx));
    for (int k = 0; k < r.n_outputs; k++)
      cr_expect(r.rows[k].ok, "%s order %d: out%d %s %s: %s", path, order, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
    kg_check_result_free(&r);
    kg_module_free(m), kg_context_free(ctx);
  }
}

#endif
