/* passes/drop_casts.c — a cast to the dtype its operand already has reads the operand instead.
 *
 * Why: F# forwards cast to the dtype a tensor already has all the time (`x.to_type(dtype)` with
 * the model's own dtype, `type_as`, `.to(float32)` on float32): Llama's weights reach their
 * products as CAST(W) float32 → float32. The value is the operand's, but a product whose operand
 * sits behind a cast reads it through a prologue, not as a tensor read as it is — so no cp.async,
 * no TMA (the Hopper tier), no CPU dot schedule (the schedulers' mm_a_src / mm_b_src,
 * passes/schedule.c), and a kernel parameter more for pointwise code.
 *
 *   before: %1 = INPUT:float32[64,64]; %2 = CAST:float32[64,64](%1); %3 = MATMUL(%0, %2) ia=[4]
 *   after:  %3 = MATMUL(%0, %1) ia=[4]          (%2 dead)
 *
 * On the lowering program right after decompose (kg_pipeline_lower); the typed program, and the
 * TorchScript and eager twins emitted from it, keep every cast. A cast that is an entry output
 * stays the output (a buffer of its own), but what else reads it reads its operand. */
#include <stdlib.h>

#include "passes.h"

bool kg_pass_drop_casts(kg_graph *g, kg_pass_ctx *c) {
  (void)c;
  uint32_t n = g->nodes.n;
  uint32_t *repl = kg_xmalloc((n + 1) * sizeof *repl);
  bool changed = false;
  for (uint32_t i = 0; i < n; i++) {
    kg_gnode *nd = &g->nodes.v[i];
    for (int j = 0; j < nd->n_in; j++) {
      changed |= repl[nd->in[j]] != nd->in[j];
      nd->in[j] = repl[nd->in[j]];
    }
    repl[i] = i;
    if (nd->op != KG_OP_CAST || nd->n_in != 1) continue;
    const kg_gnode *x = &g->nodes.v[nd->in[0]];
    if (x->dtype == nd->dtype && x->vkind == nd->vkind && kg_shape_equal(&x->shape, &nd->shape)) repl[i] = nd->in[0];
  }
  free(repl); /* the outputs keep their nodes: a cast that is an output stays, read by nobody else */
  return changed;
}
