/* passes/mm_transpose.c — a product whose second operand is its own tensor transposed in the last
 * two dims reads that tensor as it is, stored [.., N, K] (MATMUL ia[0] bit 4: linear's weight
 * layout, which every product schedule reads K-major).
 *
 * Why: attention's scores q @ kᵀ (and x @ w.t(), einsum's "bhqd,bhkd->bhqk") put a PERMUTE view
 * between the product and the tensor k. Every schedule reads a view in place through strides, but
 * the tensor-core tiers bring an operand by cp.async or TMA only when it is a tensor read as it is
 * (passes/schedule.c: mm_a_src / mm_b_src); without the view, kᵀ is such an operand, K-major.
 *
 *   before: %2 = PERMUTE(%1) ia=[swap the last two]; %3 = MATMUL(%0, %2) ia=[0]
 *   after:  %3 = MATMUL(%0, %1) ia=[4]          (%2 dead unless something else reads it)
 *
 * The TorchScript twin is emitted from the typed program before the lowering copy this pass
 * rewrites: it keeps the transpose. Convolutions, 1-D operands and products already reading B
 * transposed are left alone. */
#include "passes.h"

/* does PERMUTE node p swap the last two dims and keep the others in place? */
static bool swaps_last_two(const kg_gnode *p) {
  int r = p->shape.rank;
  if (r < 2) return false;
  for (int i = 0; i < r; i++) {
    int from = (int)((p->ia[0] >> (4 * i)) & 15);
    int want = i == r - 2 ? r - 1 : i == r - 1 ? r - 2 : i;
    if (from != want) return false;
  }
  return true;
}

bool kg_pass_mm_transpose(kg_graph *g, kg_pass_ctx *c) {
  (void)c;
  bool changed = false;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    kg_gnode *n = &g->nodes.v[i];
    if (n->op != KG_OP_MATMUL || (n->ia[0] & (2 | 4 | 8))) continue;
    const kg_gnode *b = &g->nodes.v[n->in[1]];
    if (b->op != KG_OP_PERMUTE || !swaps_last_two(b)) continue;
    n->in[1] = b->in[0];
    n->ia[0] |= 4;
    changed = true;
  }
  return changed;
}
