/* ir/plan.c — the host plan: builder, printer, verifier (semantics in ir.h).
 *
 * The plan is the compiled form of an entry's host-level control flow: blocks of
 * steps (graph nodes / regions of kernels, host scalar ops, device→host reads,
 * views, loops and branches). Everything a step names is a node of the entry's
 * typed program, so the printer shows plan and program side by side:
 *
 *   FOR %9 = %5 .. %6   carried %10 <- %2 yield %17   results %18
 *     REGION r1 in(%10, %1, %9) out(%17)   [2 kernels]
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void kg_plan_init(kg_plan *p, kg_arena *arena) {
  memset(p, 0, sizeof *p);
  p->arena = arena;
  kg_plan_block(p);
}

void kg_plan_free(kg_plan *p) {
  for (uint32_t i = 0; i < p->blocks.n; i++) KG_VEC_FREE(p->blocks.v[i].ops);
  for (uint32_t i = 0; i < p->regions.n; i++) {
    KG_VEC_FREE(p->regions.v[i].nodes);
    KG_VEC_FREE(p->regions.v[i].ins);
    KG_VEC_FREE(p->regions.v[i].outs);
  }
  KG_VEC_FREE(p->ops);
  KG_VEC_FREE(p->blocks);
  KG_VEC_FREE(p->regions);
}

uint32_t kg_plan_block(kg_plan *p) {
  kg_pblock b;
  memset(&b, 0, sizeof b);
  KG_VEC_PUSH(p->blocks, b);
  return p->blocks.n - 1;
}

uint32_t kg_plan_op(kg_plan *p, uint32_t block, kg_pop op) {
  KG_ASSERT(block < p->blocks.n);
  KG_VEC_PUSH(p->ops, op);
  uint32_t id = p->ops.n - 1;
  KG_VEC_PUSH(p->blocks.v[block].ops, id);
  return id;
}

void kg_plan_clone(const kg_plan *src, kg_plan *dst) {
  kg_plan_init(dst, src->arena);
  KG_VEC_FREE(dst->blocks);
  for (uint32_t i = 0; i < src->ops.n; i++) {
    kg_pop o = src->ops.v[i];
    if (o.n_nodes) {
      uint32_t *v = kg_arena_alloc(src->arena, o.n_nodes * sizeof *v);
      memcpy(v, o.nodes, o.n_nodes * sizeof *v);
      o.nodes = v;
    }
    KG_VEC_PUSH(dst->ops, o);
  }
  for (uint32_t b = 0; b < src->blocks.n; b++) {
    kg_pblock nb;
    memset(&nb, 0, sizeof nb);
    for (uint32_t i = 0; i < src->blocks.v[b].ops.n; i++) KG_VEC_PUSH(nb.ops, src->blocks.v[b].ops.v[i]);
    KG_VEC_PUSH(dst->blocks, nb);
  }
}

bool kg_plan_trivial(const kg_plan *p) {
  const kg_pblock *b = &p->blocks.v[0];
  for (uint32_t i = 0; i < b->ops.n; i++)
    if (p->ops.v[b->ops.v[i]].kind != KG_P_NODES) return false;
  return true;
}

void kg_pop_uses(const kg_plan *p, const kg_graph *g, const kg_pop *o, void (*fn)(uint32_t, void *), void *ud) {
  switch ((kg_pop_kind)o->kind) {
  case KG_P_NODES:
    for (uint32_t i = 0; i < o->n_nodes; i++) {
      const kg_gnode *n = &g->nodes.v[o->nodes[i]];
      for (int j = 0; j < n->n_in; j++) fn(n->in[j], ud);
    }
    break;
  case KG_P_REGION: {
    const kg_region *r = &p->regions.v[o->region];
    for (uint32_t i = 0; i < r->ins.n; i++) fn(r->ins.v[i], ud);
    break;
  }
  case KG_P_HOST: {
    const kg_gnode *n = &g->nodes.v[o->a];
    for (int j = 0; j < n->n_in; j++) fn(n->in[j], ud);
    break;
  }
  case KG_P_READ: case KG_P_SIZE: fn(o->b, ud); break;
  case KG_P_VIEW: fn(o->b, ud); if (o->c != KG_NONE) fn(o->c, ud); break;
  case KG_P_FOR:
    fn(o->b, ud), fn(o->c, ud);
    for (uint32_t i = 0; i < o->n_car; i++) fn(o->init[i], ud);
    break;
  case KG_P_WHILE:
    for (uint32_t i = 0; i < o->n_car; i++) fn(o->init[i], ud);
    break;
  case KG_P_IF: fn(o->c, ud); break;
  }
}

/* ---- printer ---- */

static void pnode(const kg_graph *g, uint32_t id, kg_strbuf *o) {
  if (id == KG_NONE) { kg_sb_puts(o, "-"); return; }
  const kg_gnode *n = &g->nodes.v[id];
  if (n->op == KG_OP_CONST) {
    if (kg_dtype_is_float((kg_dtype)n->dtype)) kg_sb_printf(o, "%.9g", n->fa[0]);
    else kg_sb_printf(o, "%lld", (long long)n->ia[0]);
    return;
  }
  kg_sb_printf(o, "%%%u", id);
}

static void pty(const kg_graph *g, uint32_t id, kg_strbuf *o) {
  const kg_gnode *n = &g->nodes.v[id];
  kg_sb_printf(o, ":%s", kg_dtype_name((kg_dtype)n->dtype));
  if (n->vkind == KG_V_TENSOR) kg_shape_print(g, &n->shape, o);
}

static void plist(const kg_graph *g, const char *what, const uint32_t *v, uint32_t n, kg_strbuf *o) {
  kg_sb_printf(o, " %s(", what);
  for (uint32_t i = 0; i < n; i++) {
    if (i) kg_sb_puts(o, ", ");
    pnode(g, v[i], o);
  }
  kg_sb_putc(o, ')');
}

static void print_block(const kg_plan *p, const kg_graph *g, uint32_t b, int ind, kg_strbuf *o);

static void print_op(const kg_plan *p, const kg_graph *g, const kg_pop *op, int ind, kg_strbuf *o) {
  kg_sb_printf(o, "%*s", ind * 2, "");
  switch ((kg_pop_kind)op->kind) {
  case KG_P_NODES:
    kg_sb_puts(o, "NODES");
    for (uint32_t i = 0; i < op->n_nodes; i++) kg_sb_printf(o, " %%%u", op->nodes[i]);
    break;
  case KG_P_REGION: {
    const kg_region *r = &p->regions.v[op->region];
    kg_sb_printf(o, "REGION r%u", op->region);
    plist(g, "in", r->ins.v, r->ins.n, o);
    plist(g, "out", r->outs.v, r->outs.n, o);
    kg_sb_printf(o, " computes %u node(s)", r->nodes.n);
    if (op->n_nodes) plist(g, "in place", op->nodes, op->n_nodes, o);
    if (op->a != KG_NONE) kg_sb_printf(o, " (only when %%%u was not written in place)", op->a);
    break;
  }
  case KG_P_HOST: {
    const kg_gnode *n = &g->nodes.v[op->a];
    kg_sb_printf(o, "HOST %%%u", op->a);
    pty(g, op->a, o);
    kg_sb_printf(o, " = %s", kg_op_name((kg_op)n->op));
    plist(g, "", n->in, n->n_in, o);
    break;
  }
  case KG_P_READ:
    kg_sb_printf(o, "READ %%%u", op->a), pty(g, op->a, o), kg_sb_puts(o, " = item("), pnode(g, op->b, o), kg_sb_puts(o, ")  (device -> host)");
    break;
  case KG_P_SIZE:
    kg_sb_printf(o, "SIZE %%%u = ", op->a), pnode(g, op->b, o), kg_sb_printf(o, ".shape[%d]", op->dim);
    break;
  case KG_P_VIEW:
    kg_sb_printf(o, "VIEW %%%u", op->a), pty(g, op->a, o);
    kg_sb_puts(o, op->view == KG_VIEW_SELECT ? " = select(" : op->view == KG_VIEW_NARROW ? " = narrow(" : " = unsqueeze(");
    pnode(g, op->b, o), kg_sb_printf(o, ", dim %d", op->dim);
    if (op->view != KG_VIEW_UNSQUEEZE) kg_sb_printf(o, ", %s ", op->view == KG_VIEW_SELECT ? "index" : "start"), pnode(g, op->c, o);
    if (op->view == KG_VIEW_NARROW) kg_sb_printf(o, ", length %lld", (long long)op->len);
    kg_sb_puts(o, ")  (no copy)");
    break;
  case KG_P_FOR:
  case KG_P_WHILE:
  case KG_P_IF:
    if (op->kind == KG_P_FOR) {
      kg_sb_printf(o, "FOR %%%u = ", op->a), pnode(g, op->b, o), kg_sb_puts(o, " .. "), pnode(g, op->c, o);
    } else if (op->kind == KG_P_WHILE) {
      kg_sb_puts(o, "WHILE");
    } else {
      kg_sb_puts(o, "IF "), pnode(g, op->c, o);
    }
    if (op->kind != KG_P_IF && op->n_car) {
      kg_sb_puts(o, " carried(");
      for (uint32_t i = 0; i < op->n_car; i++) {
        if (i) kg_sb_puts(o, ", ");
        pnode(g, op->phi[i], o), pty(g, op->phi[i], o), kg_sb_puts(o, " <- "), pnode(g, op->init[i], o);
      }
      kg_sb_putc(o, ')');
    }
    if (op->n_car) plist(g, "results", op->res, op->n_car, o);
    break;
  }
  if (op->n_kill) plist(g, " free", op->kill, op->n_kill, o);
  kg_sb_putc(o, '\n');
  if (op->kind == KG_P_WHILE) {
    kg_sb_printf(o, "%*scond:\n", ind * 2 + 2, "");
    print_block(p, g, op->cond, ind + 2, o);
    kg_sb_printf(o, "%*sbreak unless ", ind * 2 + 4, ""), pnode(g, op->c, o), kg_sb_putc(o, '\n');
    kg_sb_printf(o, "%*sbody:\n", ind * 2 + 2, "");
    print_block(p, g, op->body, ind + 2, o);
    if (op->n_car) kg_sb_printf(o, "%*s", ind * 2 + 4, ""), plist(g, "yield", op->yld, op->n_car, o), kg_sb_putc(o, '\n');
  } else if (op->kind == KG_P_FOR) {
    print_block(p, g, op->body, ind + 1, o);
    if (op->n_car) kg_sb_printf(o, "%*s", ind * 2 + 2, ""), plist(g, "yield", op->yld, op->n_car, o), kg_sb_putc(o, '\n');
  } else if (op->kind == KG_P_IF) {
    kg_sb_printf(o, "%*sthen:\n", ind * 2 + 2, "");
    print_block(p, g, op->body, ind + 2, o);
    if (op->n_car) kg_sb_printf(o, "%*s", ind * 2 + 4, ""), plist(g, "yield", op->yld, op->n_car, o), kg_sb_putc(o, '\n');
    kg_sb_printf(o, "%*selse:\n", ind * 2 + 2, "");
    print_block(p, g, op->els, ind + 2, o);
    if (op->n_car) kg_sb_printf(o, "%*s", ind * 2 + 4, ""), plist(g, "yield", op->yld2, op->n_car, o), kg_sb_putc(o, '\n');
  }
}

static void print_block(const kg_plan *p, const kg_graph *g, uint32_t b, int ind, kg_strbuf *o) {
  const kg_pblock *bl = &p->blocks.v[b];
  for (uint32_t i = 0; i < bl->ops.n; i++) print_op(p, g, &p->ops.v[bl->ops.v[i]], ind, o);
  if (bl->n_kill) kg_sb_printf(o, "%*s", ind * 2, ""), plist(g, "free at block end", bl->kill, bl->n_kill, o), kg_sb_putc(o, '\n');
}

/* the steps a plan runs: those in its blocks (passes leave replaced steps behind in ops) */
static uint32_t count_steps(const kg_plan *p, uint32_t b) {
  if (b >= p->blocks.n) return 0;
  const kg_pblock *bl = &p->blocks.v[b];
  uint32_t n = bl->ops.n;
  for (uint32_t i = 0; i < bl->ops.n; i++) {
    const kg_pop *op = &p->ops.v[bl->ops.v[i]];
    bool loop = op->kind == KG_P_FOR || op->kind == KG_P_WHILE, iff = op->kind == KG_P_IF;
    n += (op->kind == KG_P_WHILE ? count_steps(p, op->cond) : 0) + (loop || iff ? count_steps(p, op->body) : 0) + (iff ? count_steps(p, op->els) : 0);
  }
  return n;
}

void kg_plan_print(const kg_plan *p, const kg_graph *g, kg_strbuf *out) {
  kg_sb_printf(out, "plan of '%s': %u step(s), %u region(s)\n", g->entry ? g->entry : "?", count_steps(p, 0), p->regions.n);
  print_block(p, g, 0, 1, out);
  kg_sb_puts(out, " ");
  plist(g, "return", g->outputs.v, g->outputs.n, out);
  kg_sb_putc(out, '\n');
}

/* ---- verifier ---- */

typedef struct vctx {
  const kg_plan *p;
  const kg_graph *g;
  kg_diag *d;
  uint8_t *def;     /* per node: defined (visible) */
  uint8_t *bseen;   /* per block: visited */
  bool ok;
} vctx;

#define VFAIL(...)                                                   \
  do {                                                               \
    kg_diag_add(V->d, KG_E_INTERNAL, NULL, NULL, "plan: " __VA_ARGS__); \
    V->ok = false;                                                   \
    return;                                                          \
  } while (0)

static void vuse(uint32_t id, void *ud) {
  vctx *V = ud;
  if (!V->ok) return;
  if (id >= V->g->nodes.n) VFAIL("a step reads node %u, which does not exist", id);
  const kg_gnode *n = &V->g->nodes.v[id];
  if (n->op == KG_OP_CONST || n->op == KG_OP_INPUT) return;
  if (!V->def[id]) VFAIL("%%%u is read before the plan defines it", id);
}

static void vdef(vctx *V, uint32_t id) {
  if (!V->ok) return;
  if (id >= V->g->nodes.n) VFAIL("a step defines node %u, which does not exist", id);
  V->def[id] = 1;
}

static bool same_type(const kg_graph *g, uint32_t a, uint32_t b) {
  const kg_gnode *x = &g->nodes.v[a], *y = &g->nodes.v[b];
  return x->dtype == y->dtype && x->vkind == y->vkind && (x->vkind == KG_V_SCALAR || kg_shape_equal(&x->shape, &y->shape));
}

static void vblock(vctx *V, uint32_t b);

static void vcar(vctx *V, const kg_pop *o, const uint32_t *v, const char *what) {
  for (uint32_t i = 0; i < o->n_car && V->ok; i++) {
    vuse(v[i], V);
    if (V->ok && !same_type(V->g, v[i], o->res[i])) VFAIL("%s %u (%%%u) differs in dtype or shape from result %%%u", what, i, v[i], o->res[i]);
  }
}

static void vop(vctx *V, const kg_pop *o) {
  kg_pop_uses(V->p, V->g, o, vuse, V);
  if (!V->ok) return;
  switch ((kg_pop_kind)o->kind) {
  case KG_P_NODES:
    for (uint32_t i = 0; i < o->n_nodes; i++) vdef(V, o->nodes[i]);
    break;
  case KG_P_REGION: {
    const kg_region *r = &V->p->regions.v[o->region];
    for (uint32_t i = 0; i < r->nodes.n; i++) vdef(V, r->nodes.v[i]);
    /* in-place select_scatters (passes/plan_inplace.c): listed by the region computing their
     * src; a fallback region computes just its one */
    for (uint32_t i = 0; i < o->n_nodes; i++) {
      const kg_gnode *n = o->nodes[i] < V->g->nodes.n ? &V->g->nodes.v[o->nodes[i]] : NULL;
      if (!n || n->op != KG_OP_SELECT_SCATTER || n->n_in != 3 || n->ia[0] < 0 || n->ia[0] >= n->shape.rank)
        VFAIL("a region lists %%%u as an in-place select_scatter", o->nodes[i]);
      bool here = false;
      for (uint32_t k = 0; k < r->nodes.n; k++) here |= r->nodes.v[k] == n->in[1];
      if (!here) VFAIL("a region writes %%%u in place but does not compute its src", o->nodes[i]);
    }
    if (o->a != KG_NONE && (o->a >= V->g->nodes.n || V->g->nodes.v[o->a].op != KG_OP_SELECT_SCATTER || r->nodes.n != 1 || r->nodes.v[0] != o->a))
      VFAIL("a select_scatter's fallback region computes something else");
    break;
  }
  case KG_P_HOST: case KG_P_READ: case KG_P_VIEW: case KG_P_SIZE:
    if (V->g->nodes.v[o->a].op != KG_OP_PLANVAL && o->kind != KG_P_HOST) VFAIL("step defines %%%u, which is not a PLANVAL", o->a);
    vdef(V, o->a);
    break;
  case KG_P_FOR:
  case KG_P_WHILE:
    for (uint32_t i = 0; i < o->n_car; i++) vdef(V, o->phi[i]);
    if (o->kind == KG_P_FOR) vdef(V, o->a);
    if (o->kind == KG_P_WHILE) {
      vblock(V, o->cond);
      vuse(o->c, V);
    }
    vblock(V, o->body);
    vcar(V, o, o->init, "initial value");
    vcar(V, o, o->yld, "yielded value");
    for (uint32_t i = 0; i < o->n_car; i++) vdef(V, o->res[i]);
    break;
  case KG_P_IF:
    vblock(V, o->body);
    vcar(V, o, o->yld, "then value");
    vblock(V, o->els);
    vcar(V, o, o->yld2, "else value");
    for (uint32_t i = 0; i < o->n_car; i++) vdef(V, o->res[i]);
    break;
  }
}

static void vblock(vctx *V, uint32_t b) {
  if (!V->ok) return;
  if (b >= V->p->blocks.n) VFAIL("block %u does not exist", b);
  if (V->bseen[b]) VFAIL("block %u is entered from two places", b);
  V->bseen[b] = 1;
  const kg_pblock *bl = &V->p->blocks.v[b];
  for (uint32_t i = 0; i < bl->ops.n && V->ok; i++) {
    if (bl->ops.v[i] >= V->p->ops.n) VFAIL("block %u names step %u, which does not exist", b, bl->ops.v[i]);
    vop(V, &V->p->ops.v[bl->ops.v[i]]);
  }
}

bool kg_plan_verify(const kg_plan *p, const kg_graph *g, kg_diag *d) {
  vctx V = {p, g, d, kg_xcalloc(g->nodes.n + 1, 1), kg_xcalloc(p->blocks.n + 1, 1), true};
  vblock(&V, 0);
  for (uint32_t i = 0; i < g->outputs.n && V.ok; i++) vuse(g->outputs.v[i], &V);
  free(V.def);
  free(V.bseen);
  return V.ok;
}
