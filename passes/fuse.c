/* passes/fuse.c — fusion of a pointwise program into kernels.
 *
 * Every op of this language is pointwise, so an output element depends only on
 * the input elements at the same (broadcast) coordinates. One kernel per
 * distinct output iteration space therefore computes everything: each group
 * holds the outputs of one shape, and lower.c evaluates every producer of
 * those outputs inline, per element. Intermediates are never stored, and a
 * broadcast intermediate (e.g. f(bias) added to every row) is recomputed per
 * element rather than materialized — the standard trade for bandwidth-bound
 * pointwise code (one extra ALU op per element against a full extra pass over
 * memory). Reductions (a later issue) will add group boundaries here, each
 * merge validated by asking the scheduler whether it can schedule the result.
 *
 *   outputs y:[N,768], z:[N,768], w:[768]   ⇒   group0 {y, z} over [N,768]; group1 {w} over [768]
 */
#include <string.h>

#include "passes.h"

void kg_pass_fuse(const kg_graph *g, kg_fusion *f, kg_pass_ctx *c) {
  (void)c;
  memset(f, 0, sizeof *f);
  for (uint32_t o = 0; o < g->outputs.n; o++) {
    const kg_gnode *n = &g->nodes.v[g->outputs.v[o]];
    kg_shape s = n->shape;
    if (n->vkind == KG_V_SCALAR) s.rank = 0;
    uint32_t gi = KG_NONE;
    for (uint32_t i = 0; i < f->groups.n; i++)
      if (kg_shape_equal(&f->groups.v[i].space, &s)) { gi = i; break; }
    if (gi == KG_NONE) {
      kg_group grp;
      memset(&grp, 0, sizeof grp);
      grp.space = s;
      KG_VEC_PUSH(f->groups, grp);
      gi = f->groups.n - 1;
    }
    KG_VEC_PUSH(f->groups.v[gi].outs, o);
  }
}

void kg_fusion_free(kg_fusion *f) {
  for (uint32_t i = 0; i < f->groups.n; i++) KG_VEC_FREE(f->groups.v[i].outs);
  KG_VEC_FREE(f->groups);
}

void kg_fusion_print(const kg_graph *g, const kg_fusion *f, kg_strbuf *o) {
  for (uint32_t i = 0; i < f->groups.n; i++) {
    const kg_group *grp = &f->groups.v[i];
    kg_sb_printf(o, "group %u: pointwise over ", i);
    kg_shape_print(g, &grp->space, o);
    kg_sb_puts(o, " -> outputs");
    for (uint32_t j = 0; j < grp->outs.n; j++)
      kg_sb_printf(o, " out%u=%%%u", grp->outs.v[j], g->outputs.v[grp->outs.v[j]]);
    kg_sb_putc(o, '\n');
  }
}
