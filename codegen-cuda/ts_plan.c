/* codegen-cuda/ts_plan.c — the host plan in the PyTorch twin: an entry's loops, whiles,
 * ifs, item() reads, sizes and views (ir/plan.c, as elaborated) become Python control
 * flow around the same per-op lines torchscript.c writes for the plan's NODES steps.
 *
 * Loop-carried values (phis) are plain Python variables: the initial values are assigned
 * before the loop, the yielded ones at the end of each iteration, and the loop's results
 * after it. A while loop is `while True:` with its condition block first and a break;
 * an if assigns each result in both branches. Split from torchscript.c, which it shares
 * ts_int.h with.
 *
 * Example (examples/cf_for_scalar_bound; the JSON paths left out):
 *   let mutable y = x                t4 = x
 *   for i in 1 .. n do               for t3 in range(int(1), int(t1) + 1):  # %3
 *     y <- y * 0.5f + float32 i          t6 = torch.mul(t4, 0.5)  # %6
 *                                        t7 = float(torch.full([], t3, dtype=torch.int32).to(torch.float32))  # %7
 *                                        t8 = torch.add(t6, t7)  # %8
 *                                        t4 = t8
 *   y                                t9 = t4
 */
#include "ts_int.h"

static const char *vtext(ts_ctx *c, uint32_t id) { return text(c, node_val(c, id)); }

static void name_planval(ts_ctx *c, uint32_t id) { c->name[id] = fmt(c, "t%u", id); }

static void assign_all(ts_ctx *c, const uint32_t *dst, const uint32_t *src, uint32_t n) {
  /* through temporaries when a source is also a destination (a swap of carried values) */
  const char **tmp = kg_arena_alloc(c->a, (n + 1) * sizeof *tmp);
  for (uint32_t k = 0; k < n; k++) tmp[k] = vtext(c, src[k]);
  for (uint32_t k = 0; k < n; k++) line(c, KG_NONE, "%s = %s", c->name[dst[k]], tmp[k]);
}

static void emit_pop(ts_ctx *c, const kg_plan *p, const kg_pop *o) {
  const kg_graph *g = c->g;
  switch ((kg_pop_kind)o->kind) {
  case KG_P_NODES:
    for (uint32_t i = 0; i < o->n_nodes && c->ok; i++) emit_node(c, o->nodes[i]);
    return;
  case KG_P_READ: {
    name_planval(c, o->a);
    kg_dtype dt = (kg_dtype)g->nodes.v[o->a].dtype;
    line(c, o->a, "%s = %s(%s.item())", c->name[o->a], py_conv(dt), vtext(c, o->b));
    return;
  }
  case KG_P_SIZE:
    name_planval(c, o->a);
    line(c, o->a, "%s = int(%s.shape[%d])", c->name[o->a], vtext(c, o->b), o->dim);
    return;
  case KG_P_VIEW:
    name_planval(c, o->a);
    if (o->view == KG_VIEW_UNSQUEEZE)
      line(c, o->a, "%s = torch.unsqueeze(%s, %d)", c->name[o->a], vtext(c, o->b), o->dim);
    else if (o->view == KG_VIEW_SELECT)
      line(c, o->a, "%s = torch.select(%s, %d, int(%s))", c->name[o->a], vtext(c, o->b), o->dim, vtext(c, o->c));
    else
      line(c, o->a, "%s = torch.narrow(%s, %d, int(%s), %lld)", c->name[o->a], vtext(c, o->b), o->dim, vtext(c, o->c), (long long)o->len);
    return;
  case KG_P_FOR:
  case KG_P_WHILE: {
    for (uint32_t k = 0; k < o->n_car; k++) name_planval(c, o->phi[k]);
    assign_all(c, o->phi, o->init, o->n_car);
    if (o->kind == KG_P_FOR) {
      name_planval(c, o->a);
      line(c, o->a, "for %s in range(int(%s), int(%s) + 1):", c->name[o->a], vtext(c, o->b), vtext(c, o->c));
      c->ind++;
    } else {
      line(c, KG_NONE, "while True:");
      c->ind++;
      emit_pblock(c, p, o->cond);
      line(c, KG_NONE, "if not %s:", vtext(c, o->c));
      c->ind++;
      line(c, KG_NONE, "break");
      c->ind--;
    }
    size_t at = c->body->len;
    emit_pblock(c, p, o->body);
    assign_all(c, o->phi, o->yld, o->n_car);
    if (c->body->len == at) line(c, KG_NONE, "pass");
    c->ind--;
    for (uint32_t k = 0; k < o->n_car; k++) name_planval(c, o->res[k]);
    assign_all(c, o->res, o->phi, o->n_car);
    return;
  }
  case KG_P_IF:
    for (uint32_t k = 0; k < o->n_car; k++) name_planval(c, o->res[k]);
    line(c, KG_NONE, "if %s:", vtext(c, o->c));
    c->ind++;
    size_t at = c->body->len;
    emit_pblock(c, p, o->body);
    assign_all(c, o->res, o->yld, o->n_car);
    if (c->body->len == at) line(c, KG_NONE, "pass");
    c->ind--;
    line(c, KG_NONE, "else:");
    c->ind++;
    at = c->body->len;
    emit_pblock(c, p, o->els);
    assign_all(c, o->res, o->yld2, o->n_car);
    if (c->body->len == at) line(c, KG_NONE, "pass");
    c->ind--;
    return;
  case KG_P_REGION:
  case KG_P_HOST:
    fail(c, KG_NONE, "the twin is emitted from the elaborated plan, not a partitioned one");
    return;
  }
}

void kg_twin_emit_pblock(ts_ctx *c, const kg_plan *p, uint32_t b) {
  const kg_pblock *bl = &p->blocks.v[b];
  for (uint32_t i = 0; i < bl->ops.n && c->ok; i++) emit_pop(c, p, &p->ops.v[bl->ops.v[i]]);
}
