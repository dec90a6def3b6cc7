/* codegen-cuda/ts_layout.c — layout ops in the PyTorch twin: each is PyTorch's own call
 * (reshape, permute, expand, slicing, select, flip, roll, repeat, cat, tril / triu,
 * index_select, gather, arange, eye, full), so the cross-check compares kgen's index
 * arithmetic (passes/lower_view.c) against PyTorch's views and copies. Sizes known only at
 * run time are read off an entry parameter that has the symbol (x.size(d)).
 *
 *   %2 = PERMUTE:float32[8,N](%1) ia=[1]   →   t2 = t1.permute([1, 0])
 *   %3 = SLICE:float32[N,3](%2) ia=[1,2,2] →   t3 = t2[:, 2:8:2]
 */
#include <string.h>

#include "ts_int.h"

/* a dim's size as Python: a number, or the size of a parameter that has the symbol */
static const char *dim_text(ts_ctx *c, const kg_dim *d) {
  if (d->kind == KG_DIM_STATIC) return fmt(c, "%lld", (long long)d->v);
  const kg_graph *g = c->g;
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    for (int j = 0; j < n->shape.rank; j++)
      if (n->shape.d[j].kind == KG_DIM_SYM && n->shape.d[j].v == d->v && c->name[g->params.v[p].node])
        return fmt(c, "%s.size(%d)", c->name[g->params.v[p].node], j);
  }
  return NULL;
}

static const char *sizes_text(ts_ctx *c, uint32_t id, const kg_shape *s) {
  const char *r = "";
  for (int i = 0; i < s->rank; i++) {
    const char *t = dim_text(c, &s->d[i]);
    if (!t) {
      fail(c, id, "no parameter carries symbol %s", c->g->syms.v[s->d[i].v]);
      return "";
    }
    r = fmt(c, "%s%s%s", r, i ? ", " : "", t);
  }
  return fmt(c, "[%s]", r);
}

/* the device of the first tensor parameter (factories are made beside the inputs) */
static const char *device_arg(ts_ctx *c) {
  const kg_graph *g = c->g;
  for (uint32_t p = 0; p < g->params.n; p++) {
    uint32_t nd = g->params.v[p].node;
    if (g->nodes.v[nd].vkind == KG_V_TENSOR && c->name[nd]) return fmt(c, ", device=%s.device", c->name[nd]);
  }
  return "";
}

/* a tensor operand in dtype dt (cat promotes) */
static const char *as_dtype(ts_ctx *c, vval v, kg_dtype dt) {
  const char *s = text(c, v);
  if (v.dt == dt) return s;
  s = fmt(c, "%s.to(%s)", s, tdt(c, dt));
  if (c->up && (dt == KG_F16 || dt == KG_BF16)) s = fmt(c, "%s.float()", s);
  return s;
}

/* an op that creates values: rounded to half precision and carried as float32 in upcast mode */
static const char *made(ts_ctx *c, const char *s, kg_dtype dt) {
  return c->up && (dt == KG_F16 || dt == KG_BF16) ? fmt(c, "%s.float()", s) : s;
}

const char *kg_twin_layout(ts_ctx *c, uint32_t id, const vval *a) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_dtype dt = (kg_dtype)n->dtype;
  const char *x = n->n_in ? text(c, a[0]) : NULL;
  const kg_gnode *o = n->n_in ? &c->g->nodes.v[n->in[0]] : NULL;
  for (int j = 0; j < n->n_in && n->op != KG_OP_FILL; j++)
    if (a[j].num) {
      fail(c, id, "%s of a number", kg_op_name((kg_op)n->op));
      return "None";
    }
  switch (n->op) {
  case KG_OP_RESHAPE:
    if (n->ia[0] == 2) return fmt(c, "%s.contiguous()", x);
    return fmt(c, "%s.reshape(%s)", x, sizes_text(c, id, &n->shape)); /* view() too: the check passes strided inputs */
  case KG_OP_PERMUTE: {
    const char *p = "";
    for (int i = 0; i < n->shape.rank; i++) p = fmt(c, "%s%s%lld", p, i ? ", " : "", (long long)((n->ia[0] >> (4 * i)) & 15));
    return fmt(c, "%s.permute([%s])", x, p);
  }
  case KG_OP_EXPAND: return fmt(c, "%s.expand(%s)", x, sizes_text(c, id, &n->shape));
  case KG_OP_SLICE: {
    const char *idx = "";
    for (int i = 0; i < n->ia[0]; i++) idx = fmt(c, "%s:, ", idx);
    long long s = (long long)n->ia[1], st = (long long)n->ia[2], len = (long long)n->shape.d[n->ia[0]].v;
    return fmt(c, "%s[%s%lld:%lld:%lld]", x, idx, s, s + len * st, st);
  }
  case KG_OP_SELECT: return fmt(c, "%s.select(%lld, %lld)", x, (long long)n->ia[0], (long long)n->ia[1]);
  case KG_OP_FLIP: {
    const char *d = "";
    for (int i = 0; i < n->shape.rank; i++)
      if ((n->ia[0] >> i) & 1) d = fmt(c, "%s%s%d", d, *d ? ", " : "", i);
    return fmt(c, "torch.flip(%s, [%s])", x, d);
  }
  case KG_OP_ROLL: return fmt(c, "torch.roll(%s, [%lld], [%lld])", x, (long long)n->ia[1], (long long)n->ia[0]);
  case KG_OP_REPEAT: {
    const char *r = "";
    for (int i = 0; i < n->shape.rank; i++) {
      int j = i - (n->shape.rank - o->shape.rank);
      int64_t in = j < 0 ? 1 : o->shape.d[j].v, out = n->shape.d[i].v;
      long long rep = n->shape.d[i].kind == KG_DIM_SYM || in == 0 ? 1 : out / in;
      r = fmt(c, "%s%s%lld", r, i ? ", " : "", rep);
    }
    return fmt(c, "%s.repeat([%s])", x, r);
  }
  case KG_OP_CAT: {
    const char *l = "";
    for (int j = 0; j < n->n_in; j++) l = fmt(c, "%s%s%s", l, j ? ", " : "", as_dtype(c, a[j], dt));
    return fmt(c, "torch.cat([%s], dim=%lld)", l, (long long)n->ia[0]);
  }
  case KG_OP_TRIL: return fmt(c, "torch.%s(%s, %lld)", n->ia[1] ? "triu" : "tril", x, (long long)n->ia[0]);
  case KG_OP_INDEX: {
    if (!n->ia[1]) return fmt(c, "torch.index_select(%s, %lld, %s)", x, (long long)n->ia[0], text(c, a[1]));
    const char *idx = ""; /* advanced indexing: x[:, :, idx] */
    for (int i = 0; i < n->ia[0]; i++) idx = fmt(c, "%s:, ", idx);
    return fmt(c, "%s[%s%s]", x, idx, text(c, a[1]));
  }
  case KG_OP_GATHER: return fmt(c, "torch.gather(%s, %lld, %s)", x, (long long)n->ia[0], text(c, a[1]));
  case KG_OP_ARANGE:
    if (kg_dtype_is_float(dt))
      return made(c, fmt(c, "torch.arange(%.17g, %.17g, %.17g, dtype=%s%s)", n->fa[0], n->fa[2], n->fa[1], tdt(c, dt), device_arg(c)), dt);
    return made(c, fmt(c, "torch.arange(%lld, %lld, %lld, dtype=%s%s)", (long long)n->fa[0], (long long)n->fa[2], (long long)n->fa[1], tdt(c, dt), device_arg(c)), dt);
  case KG_OP_EYE:
    return made(c, fmt(c, "torch.eye(%s, %s, dtype=%s%s)", dim_text(c, &n->shape.d[0]), dim_text(c, &n->shape.d[1]), tdt(c, dt), device_arg(c)), dt);
  case KG_OP_FILL: {
    vval v = a[0];
    const char *val = v.num ? scalar_arg(c, v) : fmt(c, "%s(%s)", v.dt == KG_BOOL ? "int" : py_conv((kg_dtype)v.dt), text(c, v));
    return made(c, fmt(c, "torch.full(%s, %s, dtype=%s%s)", sizes_text(c, id, &n->shape), val, tdt(c, dt), device_arg(c)), dt);
  }
  case KG_OP_PAD: { /* the pad list from the left pads and the sizes (last dim first) */
    const char *l = "";
    static const char *const modes[] = {"constant", "reflect", "replicate", "circular"};
    for (int j = 0; j < n->ia[3]; j++) {
      int d = n->shape.rank - 1 - j;
      long long lo = (long long)kg_pad_left(n->ia, d), hi = (long long)(n->shape.d[d].v - o->shape.d[d].v) - lo;
      if (n->shape.d[d].kind != KG_DIM_STATIC) lo = hi = 0;
      l = fmt(c, "%s%s%lld, %lld", l, j ? ", " : "", lo, hi);
    }
    double v = n->fa[0];
    const char *val = v != v ? "float('nan')" : v > 1e308 ? "float('inf')" : v < -1e308 ? "float('-inf')" : fmt(c, "%.17g", v);
    if (!strpbrk(val, ".en")) val = fmt(c, "%s.0", val); /* a float for TorchScript */
    if (n->ia[0]) return fmt(c, "torch.nn.functional.pad(%s, [%s], mode='%s')", x, l, modes[n->ia[0] & 3]);
    return fmt(c, "torch.nn.functional.pad(%s, [%s], mode='constant', value=%s)", x, l, val);
  }
  default: fail(c, id, "layout op %s has no twin", kg_op_name((kg_op)n->op)); return "None";
  }
}
