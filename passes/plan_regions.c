/* passes/plan_regions.c — the host plan's passes: dead steps, loop-invariant
 * hoisting, regions, and buffer lifetimes.
 *
 * Input: the plan as elaboration left it (NODES steps in program order). Output: a
 * plan whose device work is REGION steps (each region a small typed program that
 * the ordinary pipeline fuses into kernels), scalar work on the host is HOST steps,
 * and every step lists the values whose last use it is (kill lists), so the
 * executor returns their buffers to its pool there:
 *
 *   1. needed: values reachable from the outputs and from control flow (bounds,
 *      conditions, carried values); the rest (e.g. the branches of a select that
 *      became an IF) is dropped, and READs nobody needs disappear with it;
 *   2. hoisting: a node, read, view or size in a loop body whose operands are all defined
 *      outside the loop is computed once before the loop (innermost loops first, so work
 *      can leave several levels; a read of an invariant value syncs once); views and sizes move up to where their source is
 *      ready, so the tensor work between them merges into one region;
 *   3. regions: each NODES step becomes its host steps (scalar ops on host values,
 *      evaluated with kg_eval_node_host: the kernels' semantics, transcendentals with
 *      the host's libm) followed by one REGION of its tensor nodes; scalar ops the host
 *      does not evaluate are recomputed inside every region that needs them; a region's inputs are the values it reads from
 *      outside, its outputs the values read outside it (before that, plan_inplace.c moves
 *      each select_scatter that can write its slice in place into a fallback region of its own);
 *   4. kill lists: per value, the step of its own block that contains its last use.
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

enum { NK_LEAF, NK_HOST, NK_REMAT, NK_DEVICE, NK_DEAD };

typedef KG_VEC(uint32_t) u32vec;

typedef struct pctx {
  kg_plan *p;
  kg_graph *g;
  kg_diag *d;
  uint8_t *need;   /* per node */
  uint8_t *kind;   /* per node: NK_* */
  uint32_t *defop; /* per node: the step defining it (KG_NONE: leaves, phis, loop variables) */
  uint32_t *defblk;
  uint32_t *region;/* per node: its region (device nodes) */
  uint32_t *last;  /* per node: position of the last use in its own block (UINT32_MAX - 1 = block end) */
} pctx;

#define POS_END (UINT32_MAX - 1)

static bool host_evaluable(const kg_graph *g, const kg_gnode *n) {
  if (n->vkind != KG_V_SCALAR || n->op == KG_OP_INPUT || n->op == KG_OP_CONST || n->op == KG_OP_PLANVAL || n->op == KG_OP_MAP)
    return false;
  kg_cval a[3];
  for (int j = 0; j < n->n_in; j++) {
    const kg_gnode *o = &g->nodes.v[n->in[j]];
    if (o->vkind != KG_V_SCALAR) return false;
    a[j] = kg_dtype_is_float((kg_dtype)o->dtype) ? kg_cval_float((kg_dtype)o->dtype, 1.0) : kg_cval_int((kg_dtype)o->dtype, 1);
  }
  kg_cval r;
  return kg_eval_node_host(n, a, &r);
}

static bool pure_scalar(const kg_graph *g, const kg_gnode *n) {
  if (n->vkind != KG_V_SCALAR || n->op == KG_OP_MAP) return false;
  for (int j = 0; j < n->n_in; j++)
    if (g->nodes.v[n->in[j]].vkind != KG_V_SCALAR) return false;
  return true;
}

/* ---- 1. needed values ---- */

static void mark(pctx *P, uint32_t id) {
  if (id != KG_NONE && id < P->g->nodes.n) P->need[id] = 1;
}

static void needed(pctx *P) {
  kg_plan *p = P->p;
  kg_graph *g = P->g;
  for (uint32_t i = 0; i < g->outputs.n; i++) mark(P, g->outputs.v[i]);
  uint32_t *src = kg_xcalloc(g->nodes.n + 1, 2 * sizeof *src); /* PLANVAL → what its step reads */
  for (uint32_t i = 0; i < 2 * g->nodes.n; i++) src[i] = KG_NONE;
  for (uint32_t i = 0; i < p->ops.n; i++) {
    const kg_pop *o = &p->ops.v[i];
    switch ((kg_pop_kind)o->kind) {
    case KG_P_READ: case KG_P_SIZE: case KG_P_VIEW:
      src[2 * o->a] = o->b, src[2 * o->a + 1] = o->c;
      break;
    case KG_P_FOR: case KG_P_WHILE: case KG_P_IF:
      mark(P, o->b), mark(P, o->c);
      for (uint32_t k = 0; k < o->n_car; k++) {
        if (o->init) mark(P, o->init[k]);
        if (o->yld) mark(P, o->yld[k]);
        if (o->yld2) mark(P, o->yld2[k]);
      }
      break;
    default: break;
    }
  }
  for (uint32_t i = g->nodes.n; i-- > 0;) {
    if (!P->need[i]) continue;
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < n->n_in; j++) mark(P, n->in[j]);
    if (n->op == KG_OP_PLANVAL) mark(P, src[2 * i]), mark(P, src[2 * i + 1]);
  }
  free(src);
}

/* ---- 2. hoisting loop-invariant nodes ---- */

static void collect_defs(pctx *P, uint32_t b, uint8_t *inside);

static void collect_op_defs(pctx *P, const kg_pop *o, uint8_t *inside) {
  switch ((kg_pop_kind)o->kind) {
  case KG_P_NODES: /* constants and parameters are available everywhere */
    for (uint32_t i = 0; i < o->n_nodes; i++) {
      kg_op op = (kg_op)P->g->nodes.v[o->nodes[i]].op;
      if (op != KG_OP_CONST && op != KG_OP_INPUT) inside[o->nodes[i]] = 1;
    }
    break;
  case KG_P_HOST: case KG_P_READ: case KG_P_VIEW: case KG_P_SIZE: inside[o->a] = 1; break;
  case KG_P_FOR: case KG_P_WHILE: case KG_P_IF:
    if (o->kind == KG_P_FOR) inside[o->a] = 1;
    for (uint32_t k = 0; k < o->n_car; k++) {
      if (o->phi) inside[o->phi[k]] = 1;
      inside[o->res[k]] = 1;
    }
    if (o->cond != KG_NONE) collect_defs(P, o->cond, inside);
    if (o->body != KG_NONE) collect_defs(P, o->body, inside);
    if (o->els != KG_NONE) collect_defs(P, o->els, inside);
    break;
  default: break;
  }
}

static void collect_defs(pctx *P, uint32_t b, uint8_t *inside) {
  const kg_pblock *bl = &P->p->blocks.v[b];
  for (uint32_t i = 0; i < bl->ops.n; i++) collect_op_defs(P, &P->p->ops.v[bl->ops.v[i]], inside);
}

static void hoist_block(pctx *P, uint32_t b);

/* A NODES step of the nodes in `moved` (emptied), appended to `out`. */
static void emit_moved(kg_plan *p, u32vec *moved, u32vec *out) {
  if (!moved->n) return;
  kg_pop np;
  memset(&np, 0, sizeof np);
  np.kind = KG_P_NODES;
  np.a = np.b = np.c = np.body = np.els = np.cond = np.region = KG_NONE;
  np.n_nodes = moved->n;
  np.nodes = kg_arena_alloc(p->arena, moved->n * sizeof *np.nodes);
  memcpy(np.nodes, moved->v, moved->n * sizeof *np.nodes);
  moved->n = 0;
  KG_VEC_PUSH(p->ops, np);
  uint32_t nid = p->ops.n - 1;
  KG_VEC_PUSH(*out, nid);
}

/* Moves what loop `opid` computes the same way in every iteration out of it: nodes of
 * its top-level NODES steps (body, and a while's condition) and its top-level READ / VIEW /
 * SIZE steps whose operands are all defined outside the loop — a read of an invariant
 * value then syncs once, not per iteration. Sweeps until nothing moves (a node may wait
 * for a read that moves later). Appends the moved steps, in a valid order, to `out`. */
static void hoist_loop(pctx *P, uint32_t opid, u32vec *out) {
  kg_plan *p = P->p;
  kg_graph *g = P->g;
  uint8_t *inside = kg_xcalloc(g->nodes.n + 1, 1);
  collect_op_defs(P, &p->ops.v[opid], inside);
  u32vec moved = {0}; /* nodes of the NODES step being built */
  uint32_t blocks[2] = {p->ops.v[opid].cond, p->ops.v[opid].body};
  for (bool changed = true; changed;) {
    changed = false;
    for (int bi = 0; bi < 2; bi++) {
      if (blocks[bi] == KG_NONE) continue;
      kg_pblock *bl = &p->blocks.v[blocks[bi]];
      uint32_t keep_op = 0;
      for (uint32_t i = 0; i < bl->ops.n; i++) {
        uint32_t oid = bl->ops.v[i];
        kg_pop *o = &p->ops.v[oid];
        if (o->kind == KG_P_NODES) {
          uint32_t keep = 0;
          for (uint32_t k = 0; k < o->n_nodes; k++) {
            uint32_t id = o->nodes[k];
            const kg_gnode *n = &g->nodes.v[id];
            bool inv = n->op != KG_OP_INPUT && n->op != KG_OP_CONST && n->op != KG_OP_PLANVAL && P->need[id];
            for (int j = 0; j < n->n_in && inv; j++) inv = !inside[n->in[j]];
            if (inv) {
              inside[id] = 0; /* now defined outside: its users may move too */
              KG_VEC_PUSH(moved, id);
              changed = true;
            } else {
              o->nodes[keep++] = id;
            }
          }
          o->n_nodes = keep;
        } else if ((o->kind == KG_P_READ || o->kind == KG_P_VIEW || o->kind == KG_P_SIZE) && !inside[o->b] &&
                   (o->c == KG_NONE || !inside[o->c])) {
          emit_moved(p, &moved, out); /* the nodes moved so far come first */
          bl = &p->blocks.v[blocks[bi]];
          inside[p->ops.v[oid].a] = 0;
          KG_VEC_PUSH(*out, oid);
          changed = true;
          continue; /* the step leaves the block */
        }
        bl->ops.v[keep_op++] = oid;
      }
      bl->ops.n = keep_op;
    }
  }
  emit_moved(p, &moved, out);
  KG_VEC_FREE(moved);
  free(inside);
}

static void hoist_block(pctx *P, uint32_t b) {
  kg_plan *p = P->p;
  u32vec ops = {0};
  for (uint32_t i = 0; i < p->blocks.v[b].ops.n; i++) {
    uint32_t oid = p->blocks.v[b].ops.v[i];
    kg_pop o = p->ops.v[oid];
    if (o.cond != KG_NONE) hoist_block(P, o.cond);
    if (o.body != KG_NONE) hoist_block(P, o.body);
    if (o.els != KG_NONE) hoist_block(P, o.els);
    if (o.kind == KG_P_FOR || o.kind == KG_P_WHILE) hoist_loop(P, oid, &ops);
    KG_VEC_PUSH(ops, oid);
  }
  KG_VEC_FREE(p->blocks.v[b].ops);
  p->blocks.v[b].ops.v = ops.v, p->blocks.v[b].ops.n = ops.n, p->blocks.v[b].ops.cap = ops.cap;
}

/* ---- 2b. fewer, larger regions ----
 * A view or size step only waits for its source: it moves up past NODES steps that do
 * not define what it reads (and past other views), and NODES steps that become adjacent
 * are merged, so the tensor work around views (x.[t] and h.unsqueeze(-1) in an RNN step,
 * the gates an LSTM selects from one product) is as few regions as the data allow. */

static bool defines(const kg_pop *nodes_op, uint32_t id) {
  for (uint32_t i = 0; i < nodes_op->n_nodes; i++)
    if (nodes_op->nodes[i] == id) return true;
  return false;
}

/* A NODES step that mixes host numbers with tensor work splits in two, the host numbers
 * first (they read only leaves and other host numbers, never the step's tensors): a view
 * whose index is one of them (x.[int64 t]) then moves up past the tensor work, which joins
 * the tensor work after the view in one region. */
static void split_host_numbers(pctx *P, uint32_t b) {
  kg_plan *p = P->p;
  for (uint32_t i = 0; i < p->blocks.v[b].ops.n; i++) {
    uint32_t oid = p->blocks.v[b].ops.v[i];
    kg_pop *o = &p->ops.v[oid];
    if (o->kind != KG_P_NODES) continue;
    uint32_t nh = 0;
    for (uint32_t k = 0; k < o->n_nodes; k++) nh += P->kind[o->nodes[k]] == NK_HOST;
    if (nh == 0 || nh == o->n_nodes) continue;
    uint32_t *host = kg_arena_alloc(p->arena, (nh + 1) * sizeof *host), *rest = kg_arena_alloc(p->arena, (o->n_nodes - nh + 1) * sizeof *rest);
    uint32_t a = 0, r = 0;
    for (uint32_t k = 0; k < o->n_nodes; k++) {
      if (P->kind[o->nodes[k]] == NK_HOST) host[a++] = o->nodes[k];
      else rest[r++] = o->nodes[k];
    }
    kg_pop h = *o;
    h.nodes = host, h.n_nodes = nh;
    o->nodes = rest, o->n_nodes = r;
    KG_VEC_PUSH(p->ops, h); /* may move p->ops.v: o is not used after this */
    uint32_t hid = p->ops.n - 1;
    kg_pblock *bl = &p->blocks.v[b];
    KG_VEC_PUSH(bl->ops, 0);
    memmove(&bl->ops.v[i + 1], &bl->ops.v[i], (bl->ops.n - 1 - i) * sizeof *bl->ops.v);
    bl->ops.v[i] = hid;
    i++;
  }
}

static void schedule_block(pctx *P, uint32_t b) {
  kg_plan *p = P->p;
  kg_pblock *bl = &p->blocks.v[b];
  for (uint32_t i = 0; i < bl->ops.n; i++) {
    /* the blocks by value: scheduling one splits steps (split_host_numbers), which appends to
     * p->ops and may move it, so a pointer to this op would be stale for the next block */
    const kg_pop *o = &p->ops.v[bl->ops.v[i]];
    uint32_t sub[3] = {o->cond, o->body, o->els};
    for (int k = 0; k < 3; k++)
      if (sub[k] != KG_NONE) schedule_block(P, sub[k]);
  }
  split_host_numbers(P, b);
  bl = &p->blocks.v[b];
  for (uint32_t i = 1; i < bl->ops.n; i++) {
    uint32_t j = i;
    while (j > 0) {
      const kg_pop *o = &p->ops.v[bl->ops.v[j]], *prev = &p->ops.v[bl->ops.v[j - 1]];
      if (o->kind != KG_P_VIEW && o->kind != KG_P_SIZE) break;
      if (prev->kind == KG_P_NODES) {
        /* constants are leaves, available anywhere (a constant index lands in the NODES
         * step before its view) */
        bool cin = o->c != KG_NONE && P->g->nodes.v[o->c].op != KG_OP_CONST && defines(prev, o->c);
        if (defines(prev, o->b) || cin) break;
      } else if (prev->kind == KG_P_VIEW || prev->kind == KG_P_SIZE) {
        if (prev->a == o->b || prev->a == o->c) break; /* a view of a view stays after it */
      } else {
        break;
      }
      uint32_t t = bl->ops.v[j];
      bl->ops.v[j] = bl->ops.v[j - 1], bl->ops.v[j - 1] = t;
      j--;
    }
  }
  uint32_t w = 0;
  for (uint32_t i = 0; i < bl->ops.n; i++) {
    kg_pop *o = &p->ops.v[bl->ops.v[i]];
    if (w > 0 && o->kind == KG_P_NODES && p->ops.v[bl->ops.v[w - 1]].kind == KG_P_NODES) {
      kg_pop *q = &p->ops.v[bl->ops.v[w - 1]];
      uint32_t *m = kg_arena_alloc(p->arena, (q->n_nodes + o->n_nodes + 1) * sizeof *m);
      memcpy(m, q->nodes, q->n_nodes * sizeof *m);
      memcpy(m + q->n_nodes, o->nodes, o->n_nodes * sizeof *m);
      q->nodes = m, q->n_nodes += o->n_nodes;
      continue;
    }
    bl->ops.v[w++] = bl->ops.v[i];
  }
  bl->ops.n = w;
}

/* ---- 3. regions ---- */

static kg_pop blank(kg_pop_kind k) {
  kg_pop o;
  memset(&o, 0, sizeof o);
  o.kind = (uint8_t)k;
  o.a = o.b = o.c = o.body = o.els = o.cond = o.region = KG_NONE;
  return o;
}

static void add_in(kg_region *r, uint32_t id) {
  for (uint32_t i = 0; i < r->ins.n; i++)
    if (r->ins.v[i] == id) return;
  KG_VEC_PUSH(r->ins, id);
}

/* the inputs of region ri through operand `id` (recomputed scalars are followed) */
static void region_input(pctx *P, uint32_t ri, uint32_t id, int depth) {
  const kg_gnode *n = &P->g->nodes.v[id];
  if (n->op == KG_OP_CONST || P->region[id] == ri) return;
  if (P->kind[id] == NK_REMAT && depth < 200) {
    for (int j = 0; j < n->n_in; j++) region_input(P, ri, n->in[j], depth + 1);
    return;
  }
  add_in(&P->p->regions.v[ri], id);
}

static void partition_block(pctx *P, uint32_t b, uint32_t depth) {
  kg_plan *p = P->p;
  kg_graph *g = P->g;
  KG_VEC(uint32_t) ops = {0};
  for (uint32_t i = 0; i < p->blocks.v[b].ops.n; i++) {
    uint32_t oid = p->blocks.v[b].ops.v[i];
    kg_pop o = p->ops.v[oid];
    if (o.kind != KG_P_NODES) {
      if (o.cond != KG_NONE) partition_block(P, o.cond, depth + 1);
      if (o.body != KG_NONE) partition_block(P, o.body, depth + 1);
      if (o.els != KG_NONE) partition_block(P, o.els, depth + 1);
      if ((o.kind == KG_P_READ || o.kind == KG_P_VIEW || o.kind == KG_P_SIZE) && !P->need[o.a]) continue;
      KG_VEC_PUSH(ops, oid);
      continue;
    }
    kg_region r;
    memset(&r, 0, sizeof r);
    r.block = b, r.depth = depth;
    for (uint32_t k = 0; k < o.n_nodes; k++) {
      uint32_t id = o.nodes[k];
      if (P->kind[id] == NK_HOST) {
        kg_pop h = blank(KG_P_HOST);
        h.a = id;
        h.path = g->nodes.v[id].path, h.srcloc = g->nodes.v[id].srcloc;
        KG_VEC_PUSH(p->ops, h);
        uint32_t hid = p->ops.n - 1;
        KG_VEC_PUSH(ops, hid);
      } else if (P->kind[id] == NK_DEVICE) {
        KG_VEC_PUSH(r.nodes, id);
      }
    }
    if (r.nodes.n) {
      KG_VEC_PUSH(p->regions, r);
      uint32_t ri = p->regions.n - 1;
      for (uint32_t k = 0; k < r.nodes.n; k++) P->region[r.nodes.v[k]] = ri;
      kg_pop ro = blank(KG_P_REGION);
      ro.region = ri;
      KG_VEC_PUSH(p->ops, ro);
      uint32_t rid = p->ops.n - 1;
      KG_VEC_PUSH(ops, rid);
    }
  }
  KG_VEC_FREE(p->blocks.v[b].ops);
  p->blocks.v[b].ops.v = ops.v, p->blocks.v[b].ops.n = ops.n, p->blocks.v[b].ops.cap = ops.cap;
}

static void add_out(kg_region *r, uint32_t id) {
  for (uint32_t i = 0; i < r->outs.n; i++)
    if (r->outs.v[i] == id) return;
  KG_VEC_PUSH(r->outs, id);
}

/* a use of `id` outside its region (if it has one) makes it an output */
static void use_outside(uint32_t id, void *ud) {
  pctx *P = ud;
  if (id < P->g->nodes.n && P->region[id] != KG_NONE) add_out(&P->p->regions.v[P->region[id]], id);
}

static void region_io(pctx *P) {
  kg_plan *p = P->p;
  kg_graph *g = P->g;
  for (uint32_t ri = 0; ri < p->regions.n; ri++) {
    kg_region *r = &p->regions.v[ri];
    for (uint32_t k = 0; k < r->nodes.n; k++) {
      const kg_gnode *n = &g->nodes.v[r->nodes.v[k]];
      for (int j = 0; j < n->n_in; j++) {
        uint32_t o = n->in[j];
        region_input(P, ri, o, 0);
        if (P->region[o] != KG_NONE && P->region[o] != ri) use_outside(o, P);
      }
    }
  }
  /* remat scalars read device values? never (their operands are scalars); host ops,
   * plan steps, carried values and outputs read region values */
  for (uint32_t i = 0; i < p->ops.n; i++) {
    const kg_pop *o = &p->ops.v[i];
    if (o->kind == KG_P_NODES || o->kind == KG_P_REGION) continue;
    kg_pop_uses(p, g, o, use_outside, P);
    if (o->kind == KG_P_WHILE) use_outside(o->c, P);
    for (uint32_t k = 0; k < o->n_car; k++) {
      if (o->yld) use_outside(o->yld[k], P);
      if (o->yld2) use_outside(o->yld2[k], P);
    }
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) use_outside(g->outputs.v[i], P);
  /* a region value another region reads was made an output above; order outputs by id */
  for (uint32_t ri = 0; ri < p->regions.n; ri++) {
    kg_region *r = &p->regions.v[ri];
    for (uint32_t a = 1; a < r->outs.n; a++)
      for (uint32_t b = a; b > 0 && r->outs.v[b - 1] > r->outs.v[b]; b--) {
        uint32_t t = r->outs.v[b];
        r->outs.v[b] = r->outs.v[b - 1], r->outs.v[b - 1] = t;
      }
  }
}

/* ---- 4. lifetimes ---- */

typedef struct frame { uint32_t block, pos; } frame;
typedef struct lwalk { pctx *P; frame st[64]; int n; } lwalk;

static void note_use(lwalk *W, uint32_t id, bool at_end) {
  pctx *P = W->P;
  if (id >= P->g->nodes.n || P->defblk[id] == KG_NONE) return;
  for (int i = W->n - 1; i >= 0; i--) {
    if (W->st[i].block != P->defblk[id]) continue;
    P->last[id] = (at_end && i == W->n - 1) ? POS_END : W->st[i].pos;
    return;
  }
}

static void use_cb(uint32_t id, void *ud) { note_use(ud, id, false); }

static void walk_block(lwalk *W, uint32_t b, const uint32_t *term, uint32_t nterm, uint32_t term_extra);

static void walk_op(lwalk *W, const kg_pop *o) {
  pctx *P = W->P;
  kg_pop_uses(P->p, P->g, o, use_cb, W);
  if (W->n >= 63) return;
  switch ((kg_pop_kind)o->kind) {
  case KG_P_FOR: walk_block(W, o->body, o->yld, o->n_car, KG_NONE); break;
  case KG_P_WHILE:
    walk_block(W, o->cond, NULL, 0, o->c);
    walk_block(W, o->body, o->yld, o->n_car, KG_NONE);
    break;
  case KG_P_IF:
    walk_block(W, o->body, o->yld, o->n_car, KG_NONE);
    walk_block(W, o->els, o->yld2, o->n_car, KG_NONE);
    break;
  default: break;
  }
}

static void walk_block(lwalk *W, uint32_t b, const uint32_t *term, uint32_t nterm, uint32_t term_extra) {
  const kg_pblock *bl = &W->P->p->blocks.v[b];
  W->st[W->n].block = b;
  W->n++;
  for (uint32_t i = 0; i < bl->ops.n; i++) {
    W->st[W->n - 1].pos = i;
    walk_op(W, &W->P->p->ops.v[bl->ops.v[i]]);
  }
  W->st[W->n - 1].pos = POS_END;
  for (uint32_t i = 0; i < nterm; i++) note_use(W, term[i], true);
  if (term_extra != KG_NONE) note_use(W, term_extra, true);
  W->n--;
}

static void set_def(pctx *P, uint32_t id, uint32_t op, uint32_t blk) {
  if (id == KG_NONE || id >= P->g->nodes.n) return;
  P->defop[id] = op, P->defblk[id] = blk;
}

static void lifetimes(pctx *P) {
  kg_plan *p = P->p;
  kg_graph *g = P->g;
  for (uint32_t b = 0; b < p->blocks.n; b++)
    for (uint32_t i = 0; i < p->blocks.v[b].ops.n; i++) {
      uint32_t oid = p->blocks.v[b].ops.v[i];
      const kg_pop *o = &p->ops.v[oid];
      switch ((kg_pop_kind)o->kind) {
      case KG_P_REGION: {
        const kg_region *r = &p->regions.v[o->region];
        for (uint32_t k = 0; k < r->outs.n; k++) set_def(P, r->outs.v[k], i, b);
        break;
      }
      case KG_P_HOST: case KG_P_READ: case KG_P_VIEW: case KG_P_SIZE: set_def(P, o->a, i, b); break;
      case KG_P_FOR: case KG_P_WHILE: case KG_P_IF:
        for (uint32_t k = 0; k < o->n_car; k++) set_def(P, o->res[k], i, b);
        /* a FOR's phi lives in its body: released at its last use there unless it is yielded as
         * it is (an in-place select_scatter needs its buffer to die: plan_inplace.c) */
        for (uint32_t k = 0; o->kind == KG_P_FOR && k < o->n_car; k++)
          if (o->phi[k] < g->nodes.n && P->defblk[o->phi[k]] == KG_NONE) P->defblk[o->phi[k]] = o->body, P->defop[o->phi[k]] = KG_NONE;
        break;
      default: break;
      }
    }
  lwalk W;
  memset(&W, 0, sizeof W);
  W.P = P;
  walk_block(&W, 0, g->outputs.v, g->outputs.n, KG_NONE);
  /* kill lists */
  KG_VEC(uint32_t) *kl = kg_xcalloc(p->ops.n + 1, sizeof *kl);
  KG_VEC(uint32_t) *bk = kg_xcalloc(p->blocks.n + 1, sizeof *bk);
  for (uint32_t id = 0; id < g->nodes.n; id++) {
    if (P->defblk[id] == KG_NONE) continue;
    uint32_t b = P->defblk[id];
    uint32_t pos = P->last[id] == KG_NONE ? P->defop[id] : P->last[id];
    if (pos == KG_NONE || (pos == POS_END && P->defop[id] == KG_NONE)) continue; /* a phi unused, or yielded */
    if (pos == POS_END) {
      KG_VEC_PUSH(bk[b], id);
    } else {
      uint32_t oid = p->blocks.v[b].ops.v[pos];
      KG_VEC_PUSH(kl[oid], id);
    }
  }
  for (uint32_t i = 0; i < p->ops.n; i++) {
    p->ops.v[i].n_kill = kl[i].n;
    p->ops.v[i].kill = kg_arena_alloc(p->arena, (kl[i].n + 1) * sizeof(uint32_t));
    if (kl[i].n) memcpy(p->ops.v[i].kill, kl[i].v, kl[i].n * sizeof(uint32_t));
    KG_VEC_FREE(kl[i]);
  }
  for (uint32_t b = 0; b < p->blocks.n; b++) {
    p->blocks.v[b].n_kill = bk[b].n;
    p->blocks.v[b].kill = kg_arena_alloc(p->arena, (bk[b].n + 1) * sizeof(uint32_t));
    if (bk[b].n) memcpy(p->blocks.v[b].kill, bk[b].v, bk[b].n * sizeof(uint32_t));
    KG_VEC_FREE(bk[b]);
  }
  free(kl);
  free(bk);
}

/* the op that makes a recomputed scalar one: the first operand chain down to an op the
 * host does not evaluate (for the message) */
static uint32_t remat_culprit(const pctx *P, uint32_t id) {
  for (int depth = 0; depth < 256; depth++) {
    const kg_gnode *n = &P->g->nodes.v[id];
    uint32_t next = KG_NONE;
    for (int j = 0; j < n->n_in && next == KG_NONE; j++)
      if (P->kind[n->in[j]] == NK_REMAT) next = n->in[j];
    if (next == KG_NONE) return id;
    id = next;
  }
  return id;
}

/* ---- the pass ---- */

bool kg_plan_partition(kg_plan *p, kg_graph *g, kg_pass_ctx *c) {
  pctx P;
  memset(&P, 0, sizeof P);
  P.p = p, P.g = g, P.d = c->d;
  uint32_t n = g->nodes.n;
  P.need = kg_xcalloc(n + 1, 1);
  P.kind = kg_xcalloc(n + 1, 1);
  P.defop = kg_xcalloc(n + 1, sizeof *P.defop);
  P.defblk = kg_xcalloc(n + 1, sizeof *P.defblk);
  P.region = kg_xcalloc(n + 1, sizeof *P.region);
  P.last = kg_xcalloc(n + 1, sizeof *P.last);
  for (uint32_t i = 0; i < n; i++) P.defop[i] = P.defblk[i] = P.region[i] = P.last[i] = KG_NONE;
  needed(&P);
  for (uint32_t i = 0; i < n; i++) {
    const kg_gnode *nd = &g->nodes.v[i];
    if (nd->op == KG_OP_INPUT || nd->op == KG_OP_CONST || nd->op == KG_OP_PLANVAL) P.kind[i] = NK_LEAF;
    else if (!P.need[i]) P.kind[i] = NK_DEAD;
    else if (pure_scalar(g, nd)) {
      /* on the host when the host evaluates the op and has every operand */
      bool host = host_evaluable(g, nd);
      for (int j = 0; j < nd->n_in && host; j++) host = P.kind[nd->in[j]] == NK_LEAF || P.kind[nd->in[j]] == NK_HOST;
      P.kind[i] = host ? NK_HOST : NK_REMAT;
    } else {
      P.kind[i] = NK_DEVICE;
    }
  }
  hoist_block(&P, 0);
  schedule_block(&P, 0);
  partition_block(&P, 0, 0);
  kg_plan_inplace(p, g, P.region); /* select_scatter into a dying buffer: plan_inplace.c */
  region_io(&P);
  lifetimes(&P);
  p->partitioned = true;
  bool ok = true;
  /* the plan itself needs every host value it reads to be computable on the host */
  for (uint32_t i = 0; i < p->ops.n && ok; i++) {
    const kg_pop *o = &p->ops.v[i];
    /* bounds, conditions, indices, and scalars carried by loops and branches */
    KG_VEC(uint32_t) ctl = {0};
    if (o->kind == KG_P_FOR) KG_VEC_PUSH(ctl, o->b);
    if (o->kind != KG_P_REGION && o->kind != KG_P_NODES && o->c != KG_NONE) KG_VEC_PUSH(ctl, o->c);
    for (uint32_t k = 0; k < o->n_car; k++) {
      if (o->init) KG_VEC_PUSH(ctl, o->init[k]);
      if (o->yld) KG_VEC_PUSH(ctl, o->yld[k]);
      if (o->yld2) KG_VEC_PUSH(ctl, o->yld2[k]);
    }
    for (uint32_t k = 0; k < ctl.n && ok; k++)
      if (P.kind[ctl.v[k]] == NK_REMAT) {
        const kg_gnode *nd = &g->nodes.v[remat_culprit(&P, ctl.v[k])];
        kg_diag_add(c->d, KG_E_UNSUPPORTED, nd->path, nd->srcloc,
                    "%s on numbers is computed in kernels only: a loop bound, condition, index or carried number cannot use it",
                    kg_op_name((kg_op)nd->op));
        ok = false;
      }
    KG_VEC_FREE(ctl);
  }
  for (uint32_t i = 0; i < g->outputs.n && ok; i++)
    if (P.kind[g->outputs.v[i]] == NK_REMAT) {
      const kg_gnode *nd = &g->nodes.v[remat_culprit(&P, g->outputs.v[i])];
      kg_diag_add(c->d, KG_E_UNSUPPORTED, nd->path, nd->srcloc,
                  "a number computed with %s is returned from an entry with host control flow: return it as a tensor (torch.tensor(x))",
                  kg_op_name((kg_op)nd->op));
      ok = false;
    }
  if (ok && c->verify) ok = kg_plan_verify(p, g, c->d);
  free(P.need), free(P.kind), free(P.defop), free(P.defblk), free(P.region), free(P.last);
  return ok;
}

/* ---- a region as a typed program of its own ---- */

static uint32_t copy_node(const kg_graph *g, kg_graph *out, uint32_t id, uint32_t *map, const kg_region *r) {
  if (map[id] != KG_NONE) return map[id];
  kg_gnode n = g->nodes.v[id];
  for (int j = 0; j < n.n_in; j++) n.in[j] = copy_node(g, out, n.in[j], map, r);
  map[id] = kg_graph_add(out, &n);
  return map[id];
}

void kg_plan_region_graph(const kg_plan *p, const kg_graph *g, uint32_t ri, kg_graph *out) {
  const kg_region *r = &p->regions.v[ri];
  uint32_t *map = kg_xcalloc(g->nodes.n + 1, sizeof *map);
  for (uint32_t i = 0; i < g->nodes.n; i++) map[i] = KG_NONE;
  kg_graph_copy_syms(out, g);
  for (uint32_t i = 0; i < g->fns.n; i++) KG_VEC_PUSH(out->fns, g->fns.v[i]);
  out->fns_borrowed = true;
  for (uint32_t i = 0; i < r->ins.n; i++) {
    const kg_gnode *src = &g->nodes.v[r->ins.v[i]];
    kg_gnode n;
    memset(&n, 0, sizeof n);
    n.op = KG_OP_INPUT;
    n.dtype = n.cdtype = src->dtype;
    n.vkind = src->vkind;
    n.shape = src->shape;
    n.ia[0] = i;
    n.path = src->path, n.srcloc = src->srcloc;
    map[r->ins.v[i]] = kg_graph_add(out, &n);
    /* an entry input or capture read inside a loop: the same tensor, unwritten (write-backs
     * follow every kernel), at every iteration of one call */
    bool inv = src->op == KG_OP_INPUT && src->vkind == KG_V_TENSOR && r->depth > 0;
    kg_gparam gp = {kg_arena_printf(out->arena, "v%u", r->ins.v[i]), false, map[r->ins.v[i]], NULL, 0, inv};
    KG_VEC_PUSH(out->params, gp);
  }
  out->n_entry_params = r->ins.n;
  for (uint32_t k = 0; k < r->nodes.n; k++) copy_node(g, out, r->nodes.v[k], map, r);
  for (uint32_t k = 0; k < r->outs.n; k++) KG_VEC_PUSH(out->outputs, map[r->outs.v[k]]);
  free(map);
}
