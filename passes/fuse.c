/* passes/fuse.c — fusion: which kernels an entry needs and what each computes.
 *
 * Pointwise ops fuse freely: an output element depends only on the input
 * elements at the same (broadcast) coordinates, so one kernel per distinct
 * output shape computes every pointwise producer inline, per element;
 * intermediates are never stored, and a broadcast intermediate is recomputed
 * per element rather than materialized (bandwidth, not ALU, bounds pointwise code).
 *
 * A reduction is materialized: it gets a kernel of its own (its pointwise
 * prologue inline — `(x * 2 + b).sum(-1)` reads x and b once), and its result
 * goes to the output it is, or to a temporary buffer that later kernels read
 * like an input (with broadcasting strides). Kernels run in node order, so a
 * reduction runs before everything that reads it. Fusing epilogues and
 * normalizations (a persistent row kernel) is the next step; every such merge
 * will be validated here by asking the scheduler whether it accepts the group.
 *
 *   y = x.sum(-1, keepdim) ; z = x - y      ⇒  group0 REDUCE y → temp0 ; group1 POINTWISE z (reads x, temp0)
 *   outputs y:[N,768], z:[N,768], w:[768]   ⇒  group0 {y, z} over [N,768] ; group1 {w} over [768]
 */
#include <string.h>

#include "passes.h"

uint32_t kg_fusion_mat_index(const kg_fusion *f, uint32_t node) {
  for (uint32_t i = 0; i < f->mat.n; i++)
    if (f->mat.v[i] == node) return i;
  return KG_NONE;
}

void kg_pass_fuse(const kg_graph *g, kg_fusion *f, kg_pass_ctx *c) {
  (void)c;
  memset(f, 0, sizeof *f);
  /* materialized reductions and their buffers */
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    if (!(kg_op_get((kg_op)g->nodes.v[i].op)->flags & KG_OPF_REDUCE)) continue;
    kg_bufref b = {2, 0};
    for (uint32_t o = 0; o < g->outputs.n; o++)
      if (g->outputs.v[o] == i) { b.kind = 1, b.index = o; break; }
    if (b.kind == 2) {
      b.index = f->temps.n;
      KG_VEC_PUSH(f->temps, i);
    }
    KG_VEC_PUSH(f->mat, i);
    KG_VEC_PUSH(f->mat_buf, b);
    kg_group grp;
    memset(&grp, 0, sizeof grp);
    grp.kind = KG_GROUP_REDUCE;
    grp.red = i;
    grp.space = g->nodes.v[g->nodes.v[i].in[0]].shape;
    KG_VEC_PUSH(f->groups, grp);
  }
  /* pointwise outputs, grouped by shape (an output that is a reduction is written by its own kernel) */
  for (uint32_t o = 0; o < g->outputs.n; o++) {
    uint32_t node = g->outputs.v[o];
    uint32_t mi = kg_fusion_mat_index(f, node);
    if (mi != KG_NONE && f->mat_buf.v[mi].kind == 1 && f->mat_buf.v[mi].index == o) continue;
    const kg_gnode *n = &g->nodes.v[node];
    kg_shape s = n->shape;
    if (n->vkind == KG_V_SCALAR) s.rank = 0;
    uint32_t gi = KG_NONE;
    for (uint32_t i = 0; i < f->groups.n; i++)
      if (f->groups.v[i].kind == KG_GROUP_POINTWISE && kg_shape_equal(&f->groups.v[i].space, &s)) { gi = i; break; }
    if (gi == KG_NONE) {
      kg_group grp;
      memset(&grp, 0, sizeof grp);
      grp.kind = KG_GROUP_POINTWISE;
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
  KG_VEC_FREE(f->mat);
  KG_VEC_FREE(f->mat_buf);
  KG_VEC_FREE(f->temps);
}

void kg_fusion_print(const kg_graph *g, const kg_fusion *f, kg_strbuf *o) {
  for (uint32_t i = 0; i < f->groups.n; i++) {
    const kg_group *grp = &f->groups.v[i];
    if (grp->kind == KG_GROUP_REDUCE) {
      uint32_t mi = kg_fusion_mat_index(f, grp->red);
      kg_sb_printf(o, "group %u: reduce %%%u (%s) over ", i, grp->red, kg_op_name((kg_op)g->nodes.v[grp->red].op));
      kg_shape_print(g, &grp->space, o);
      kg_sb_printf(o, " -> %s%u\n", f->mat_buf.v[mi].kind == 1 ? "out" : "temp", f->mat_buf.v[mi].index);
      continue;
    }
    kg_sb_printf(o, "group %u: pointwise over ", i);
    kg_shape_print(g, &grp->space, o);
    kg_sb_puts(o, " -> outputs");
    for (uint32_t j = 0; j < grp->outs.n; j++)
      kg_sb_printf(o, " out%u=%%%u", grp->outs.v[j], g->outputs.v[grp->outs.v[j]]);
    kg_sb_putc(o, '\n');
  }
}
