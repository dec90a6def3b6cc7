/* passes/dce.c — dead-node elimination.
 *
 * Keeps the nodes reachable from the outputs, plus every INPUT node (parameters
 * stay even when unused, so the calling convention never changes), and renumbers
 * them densely in their original order (operands still precede users).
 *   %0 = INPUT x; %1 = EXP(%0); %2 = NEG(%0); return %2   ⇒   %0 = INPUT x; %1 = NEG(%0)
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

bool kg_pass_dce(kg_graph *g, kg_pass_ctx *c) {
  (void)c;
  uint32_t n = g->nodes.n;
  uint8_t *live = kg_xcalloc(n + 1, 1);
  for (uint32_t i = 0; i < g->outputs.n; i++) live[g->outputs.v[i]] = 1;
  for (uint32_t i = n; i-- > 0;) {
    const kg_gnode *nd = &g->nodes.v[i];
    if (nd->op == KG_OP_INPUT) live[i] = 1;
    if (!live[i]) continue;
    for (int j = 0; j < nd->n_in; j++) live[nd->in[j]] = 1;
  }
  uint32_t *map = kg_xmalloc((n + 1) * sizeof *map), m = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!live[i]) { map[i] = KG_NONE; continue; }
    kg_gnode nd = g->nodes.v[i];
    for (int j = 0; j < nd.n_in; j++) nd.in[j] = map[nd.in[j]];
    map[i] = m;
    g->nodes.v[m++] = nd;
  }
  bool changed = m != n;
  g->nodes.n = m;
  for (uint32_t i = 0; i < g->outputs.n; i++) g->outputs.v[i] = map[g->outputs.v[i]];
  for (uint32_t i = 0; i < g->params.n; i++) g->params.v[i].node = map[g->params.v[i].node];
  free(map);
  free(live);
  return changed;
}

void kg_graph_replace_uses(kg_graph *g, const uint32_t *repl) {
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    kg_gnode *nd = &g->nodes.v[i];
    for (int j = 0; j < nd->n_in; j++) nd->in[j] = repl[nd->in[j]];
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) g->outputs.v[i] = repl[g->outputs.v[i]];
}
