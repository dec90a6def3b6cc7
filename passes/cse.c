/* passes/cse.c — common subexpression elimination.
 *
 * Two nodes with the same op, dtypes, operands, attributes and map function
 * compute the same value (every op is pure), so later uses of the second are
 * redirected to the first. Nodes are visited in order, so operands are already
 * canonical when a node is hashed.
 *   %2 = EXP(%0); %3 = EXP(%0); %4 = ADD(%2, %3)   ⇒   %4 = ADD(%2, %2)
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct key {
  uint16_t op;
  uint8_t dtype, cdtype, vkind, n_in;
  uint32_t in[8];
  int64_t ia[4];
  double fa[4];
  uint32_t fn;
} key;

static key key_of(const kg_gnode *n) {
  key k;
  memset(&k, 0, sizeof k);
  k.op = n->op, k.dtype = n->dtype, k.cdtype = n->cdtype, k.vkind = n->vkind, k.n_in = n->n_in;
  memcpy(k.in, n->in, sizeof k.in);
  for (int j = n->n_in; j < 8; j++) k.in[j] = 0;
  k.ia[0] = n->ia[0], k.ia[1] = n->ia[1], k.ia[2] = n->ia[2], k.ia[3] = n->ia[3];
  memcpy(k.fa, n->fa, sizeof k.fa);
  k.fn = n->op == KG_OP_MAP ? n->fn : 0;
  return k;
}

bool kg_pass_cse(kg_graph *g, kg_pass_ctx *c) {
  (void)c;
  uint32_t n = g->nodes.n, cap = 16;
  while (cap < 2 * n) cap *= 2;
  uint32_t *table = kg_xmalloc(cap * sizeof *table);
  for (uint32_t i = 0; i < cap; i++) table[i] = KG_NONE;
  uint32_t *repl = kg_xmalloc((n + 1) * sizeof *repl);
  bool changed = false;
  for (uint32_t i = 0; i < n; i++) {
    kg_gnode *nd = &g->nodes.v[i];
    for (int j = 0; j < nd->n_in; j++) nd->in[j] = repl[nd->in[j]];
    repl[i] = i;
    if (nd->op == KG_OP_INPUT) continue;
    key k = key_of(nd);
    uint64_t h = kg_hash64(&k, sizeof k, 0);
    for (uint32_t s = (uint32_t)h & (cap - 1);; s = (s + 1) & (cap - 1)) {
      if (table[s] == KG_NONE) { table[s] = i; break; }
      key o = key_of(&g->nodes.v[table[s]]);
      if (memcmp(&o, &k, sizeof k) == 0 && kg_shape_equal(&g->nodes.v[table[s]].shape, &nd->shape)) {
        repl[i] = table[s];
        changed = true;
        break;
      }
    }
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) g->outputs.v[i] = repl[g->outputs.v[i]];
  free(repl);
  free(table);
  return changed;
}
