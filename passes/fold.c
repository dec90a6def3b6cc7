/* passes/fold.c — constant folding with run-time semantics.
 *
 * A scalar op whose operands are all CONST nodes is replaced by a CONST holding
 * kg_eval_op's result — the same rules the emitted kernels implement (integer
 * wrap, guarded division, saturating float→int, float16 rounding, single-
 * precision float32), so folding never changes a result. Transcendental ops are
 * left to run time (device libm may differ from the host's by an ulp).
 * Tensor ops are not folded (they have shapes); their CONST operands are
 * loaded as kernel constants anyway.
 *   %1 = CONST 2:int32; %2 = CONST 3:int32; %3 = MUL:int32 scalar(%1, %2)  ⇒  %3 = CONST 6:int32
 */
#include <string.h>

#include "passes.h"

static kg_cval cval_of(const kg_gnode *n) {
  kg_cval c = {(kg_dtype)n->dtype, n->ia[0], n->fa[0]};
  return c;
}

bool kg_pass_fold(kg_graph *g, kg_pass_ctx *c) {
  (void)c;
  bool changed = false;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    kg_gnode *n = &g->nodes.v[i];
    if (n->vkind != KG_V_SCALAR || n->op == KG_OP_CONST || n->op == KG_OP_INPUT || n->n_in == 0 || n->n_in > 3) continue;
    kg_cval a[3];
    bool all = true;
    for (int j = 0; j < n->n_in && all; j++) {
      const kg_gnode *o = &g->nodes.v[n->in[j]];
      all = o->op == KG_OP_CONST;
      if (all) a[j] = cval_of(o);
    }
    if (!all) continue;
    kg_cval r;
    if (!kg_eval_node(n, a, &r)) continue;
    const char *path = n->path, *src = n->srcloc;
    memset(n, 0, sizeof *n);
    n->op = KG_OP_CONST;
    n->dtype = n->cdtype = (uint8_t)r.dt;
    n->vkind = KG_V_SCALAR;
    if (kg_dtype_is_float(r.dt)) n->fa[0] = r.f;
    else n->ia[0] = r.i;
    n->path = path, n->srcloc = src;
    changed = true;
  }
  return changed;
}
