/* passes/plan_inplace.c — the host plan's in-place slice writes: `select_scatter(buf, src, d, i)`
 * whose src a region computes (and nothing else in that region reads buf or the result) is done by storing src straight into slice i of buf's own buffer
 * when buf dies there, instead of a kernel rewriting the whole tensor.
 *
 * The case it is for: a sequence loop that fills its output row by row (issue 23's nn.LSTM /
 * GRU / RNN, dotnet/Kgen/Recurrent.fs):
 *
 *   let mutable out = zeros [T, N, H]                FOR %t ... carried(%out <- %z)
 *   for k in 0L .. T - 1L do                           REGION r1 in(%h, ..) out(%hy) [in place: %s]
 *       let hy = cell h ...                            REGION r2 in(%out, %hy, %t) out(%s)  (fallback)
 *       out <- out.select_scatter(hy, 0L, t)           yield(%s)
 *
 * Composed as a kernel, select_scatter rewrites all T rows every step (O(T²·N·H) bytes over the
 * sequence, and a kernel of its own that broadcasts hy). Here, after regions are formed (before
 * their inputs and outputs are computed, plan_regions.c step 3), each SELECT_SCATTER node s of
 * a region R whose src R computes and whose buf R reads nowhere else is moved out of R into a
 * region F of its own (just s: the composed kernel), placed right after R, and R's REGION step
 * lists s in its `nodes`. F's REGION step names s in `a`: it is R's fallback.
 *
 * At run time (runtime/plan.c) R decides per step: when buf's buffer is the run's own, dense
 * row-major, dies at F (F's kill list), no other live value overlaps slice i, the slice is
 * contiguous and i is in range, s becomes buf's buffer (donated) and R's kernels store src
 * straight into slice i (src's value is that slice: no copy, no kernel of its own); F is skipped.
 * Otherwise F runs the composed kernel (the first trip of a loop, whose buffer the loop's
 * initial value still holds; a buf read again later). Either way s has select_scatter's value,
 * and the twin (which prints torch.select_scatter) is unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static bool reads(const kg_gnode *n, uint32_t id) {
  for (int j = 0; j < n->n_in; j++)
    if (n->in[j] == id) return true;
  return false;
}

/* may s (a node of region ri) be written in place by ri? */
static bool candidate(const kg_plan *p, const kg_graph *g, const uint32_t *region_of, uint32_t ri, uint32_t s) {
  const kg_gnode *n = &g->nodes.v[s];
  if (n->op != KG_OP_SELECT_SCATTER || n->n_in != 3) return false;
  uint32_t buf = n->in[0], src = n->in[1];
  if (region_of[src] != ri || region_of[buf] == ri || g->nodes.v[src].vkind != KG_V_TENSOR) return false;
  if (g->nodes.v[src].dtype != n->dtype || g->nodes.v[buf].dtype != n->dtype) return false;
  const kg_region *r = &p->regions.v[ri];
  for (uint32_t k = 0; k < r->nodes.n; k++)
    if (r->nodes.v[k] != s && (reads(&g->nodes.v[r->nodes.v[k]], buf) || reads(&g->nodes.v[r->nodes.v[k]], s))) return false;
  /* an output of the entry is never a slice of another value */
  for (uint32_t i = 0; i < g->outputs.n; i++)
    if (g->outputs.v[i] == src) return false;
  return true;
}

void kg_plan_inplace(kg_plan *p, const kg_graph *g, uint32_t *region_of) {
  for (uint32_t b = 0; b < p->blocks.n; b++) {
    for (uint32_t i = 0; i < p->blocks.v[b].ops.n; i++) {
      uint32_t oid = p->blocks.v[b].ops.v[i];
      if (p->ops.v[oid].kind != KG_P_REGION || p->ops.v[oid].a != KG_NONE) continue;
      uint32_t ri = p->ops.v[oid].region;
      KG_VEC(uint32_t) found = {0};
      for (uint32_t k = 0; k < p->regions.v[ri].nodes.n; k++) {
        uint32_t s = p->regions.v[ri].nodes.v[k];
        if (candidate(p, g, region_of, ri, s)) KG_VEC_PUSH(found, s);
      }
      for (uint32_t q = 0; q < found.n; q++) {
        uint32_t s = found.v[q];
        kg_region *r = &p->regions.v[ri];
        uint32_t w = 0;
        for (uint32_t k = 0; k < r->nodes.n; k++)
          if (r->nodes.v[k] != s) r->nodes.v[w++] = r->nodes.v[k];
        r->nodes.n = w;
        kg_region f;
        memset(&f, 0, sizeof f);
        f.block = r->block, f.depth = r->depth;
        KG_VEC_PUSH(f.nodes, s);
        KG_VEC_PUSH(p->regions, f); /* r is stale from here */
        uint32_t fi = p->regions.n - 1;
        region_of[s] = fi;
        kg_pop fo;
        memset(&fo, 0, sizeof fo);
        fo.kind = KG_P_REGION;
        fo.b = fo.c = fo.body = fo.els = fo.cond = KG_NONE;
        fo.region = fi, fo.a = s;
        fo.path = g->nodes.v[s].path, fo.srcloc = g->nodes.v[s].srcloc;
        KG_VEC_PUSH(p->ops, fo);
        uint32_t fid = p->ops.n - 1;
        /* F right after R (and after the fallbacks of R's earlier candidates) */
        kg_pblock *bl = &p->blocks.v[b];
        KG_VEC_PUSH(bl->ops, 0);
        uint32_t at = i + 1 + q;
        memmove(&bl->ops.v[at + 1], &bl->ops.v[at], (bl->ops.n - 1 - at) * sizeof *bl->ops.v);
        bl->ops.v[at] = fid;
      }
      if (found.n) {
        kg_pop *ro = &p->ops.v[oid];
        ro->n_nodes = found.n;
        ro->nodes = kg_arena_alloc(p->arena, found.n * sizeof *ro->nodes);
        memcpy(ro->nodes, found.v, found.n * sizeof *ro->nodes);
        i += found.n;
      }
      KG_VEC_FREE(found);
    }
  }
}
