/* codegen-cuda/ts_map.c — map lambdas (MAP nodes) in the PyTorch twin: the scalar
 * function of Kgen.Ops.map vectorized over the broadcast inputs.
 *
 * The function's body is kernel IR (statements over scalar locals). Every local becomes
 * a full-shape tensor and each statement runs under a bool mask: an assignment is a
 * torch.where on the current mask, an if makes two masks, a while / for becomes a Python
 * loop that runs while any lane is active, and a break clears its lanes from every mask
 * up to the loop's. Expressions go through torchscript.c's kernel-semantics emitter (vop,
 * vcast: the kernels' guards for division, shifts, pow and casts).
 * Split from torchscript.c, whose second idea this was; the context and helpers they
 * share are in ts_int.h.
 *
 * Example (examples/map_if_stmt_unit_else, the copies elaboration makes left out):
 *   Ops.map (fun (v: float32) -> let mutable r = v
 *                                if r < 0.0f then r <- -r
 *                                r) x
 *   # map fn0 over (%0)  # %1 $.entries[0].expr.body
 *   t1_a0 = x
 *   t1_m0 = torch.ones_like(t1_a0, dtype=torch.bool)
 *   t1_v0 = torch.zeros_like(t1_m0, dtype=torch.float32)  # r: float32
 *   t1_v0 = t1_a0
 *   t1_c0 = torch.lt(t1_v0, 0.0)
 *   t1_m1 = torch.logical_and(t1_m0, t1_c0)
 *   t1_v0 = torch.where(t1_m1, torch.neg(t1_v0), t1_v0)
 *   t1 = t1_v0  # %1 $.entries[0].expr.body
 */
#include "ts_int.h"

/* ---- expressions of the map function ---- */

/* Kernel-IR expression e of the map function as a value over all lanes. */
static vval vx(ts_ctx *c, uint32_t e) {
  const kg_kernel *k = &c->fn->body;
  if (e >= k->exprs.n) {
    fail(c, c->node, "map function: expression #%u out of range", e);
    return vlit(KG_I32, 0, 0);
  }
  const kg_kx *x = &k->exprs.v[e];
  switch ((kg_kx_kind)x->kind) {
  case KX_CONST: return vlit((kg_dtype)x->dtype, x->i, x->f);
  case KX_VAR: return vtens(fmt(c, "t%u_v%u", c->node, x->a), (kg_dtype)k->vars.v[x->a].dtype, true);
  case KX_PARAM: return vtens(fmt(c, "t%u_a%u", c->node, x->a), (kg_dtype)k->params.v[x->a].dtype, true);
  case KX_OP: {
    const kg_op_info *oi = kg_op_get((kg_op)x->op);
    int n = oi->arity;
    if (n < 0 || n > 3 || (oi->flags & (KG_OPF_LEAF | KG_OPF_CREATE | KG_OPF_MAP))) {
      fail(c, c->node, "map function: op %s cannot appear in scalar code", oi->name);
      return vlit((kg_dtype)x->dtype, 0, 0);
    }
    uint32_t ops[3] = {x->a, x->b, x->c};
    vval in[3];
    for (int i = 0; i < n; i++) in[i] = vx(c, ops[i]);
    double fa[3] = {x->f, x->f2, x->f3};
    if (x->op == KG_OP_CAST) return vcast(c, in[0], (kg_dtype)x->dtype);
    return vop(c, c->node, (kg_op)x->op, x->i, fa, in, n, (kg_dtype)x->dtype);
  }
  case KX_CAST: return vcast(c, vx(c, x->a), (kg_dtype)x->dtype);
  case KX_SELECT: {
    vval in[3] = {vx(c, x->a), vx(c, x->b), vx(c, x->c)};
    double fa[3] = {0, 0, 0};
    return vop(c, c->node, KG_OP_WHERE, 0, fa, in, 3, (kg_dtype)x->dtype);
  }
  default:
    fail(c, c->node, "map function: loads and thread registers cannot appear in scalar code");
    return vlit((kg_dtype)x->dtype, 0, 0);
  }
}

/* ---- statements under masks ---- */

static const char *cur_mask(ts_ctx *c) { return c->mask[c->n_stack - 1]; }

static bool push_mask(ts_ctx *c, const char *m, bool loop) {
  if (c->n_stack == TS_MAX_NEST) {
    fail(c, c->node, "map function nests blocks deeper than %d", TS_MAX_NEST);
    return false;
  }
  c->mask[c->n_stack] = m, c->mloop[c->n_stack] = loop, c->n_stack++;
  return true;
}

/* var = value on the lanes of the current mask */
static void masked_assign(ts_ctx *c, uint32_t var, vval v) {
  kg_dtype dt = (kg_dtype)c->fn->body.vars.v[var].dtype;
  v = vcast(c, v, dt);
  if (v.num && dt == KG_BOOL) v = vtensor(c, v); /* TorchScript: a bool is no Scalar */
  const char *name = fmt(c, "t%u_v%u", c->node, var);
  if (c->n_stack == 1 && v.full) line(c, KG_NONE, "%s = %s", name, text(c, v));
  else line(c, KG_NONE, "%s = torch.where(%s, %s, %s)", name, cur_mask(c), text(c, v), name);
}

/* A bool tensor for a condition (literals become tensors). */
static const char *cond_text(ts_ctx *c, uint32_t e) {
  vval v = vx(c, e);
  if (v.dt != KG_BOOL) v = vcast(c, v, KG_BOOL);
  return text(c, vtensor(c, v));
}

static void emit_block(ts_ctx *c, uint32_t s);


/* BREAK: the lanes of the current mask leave the innermost loop, so they are
 * cleared from every mask between that loop's body and here. */
static void emit_break(ts_ctx *c) {
  int l = c->n_stack - 1;
  while (l >= 0 && !c->mloop[l]) l--;
  if (l < 0) {
    fail(c, c->node, "map function: break outside a loop");
    return;
  }
  const char *cur = cur_mask(c);
  for (int j = l; j < c->n_stack - 1; j++)
    line(c, KG_NONE, "%s = torch.logical_and(%s, torch.logical_not(%s))", c->mask[j], c->mask[j], cur);
  line(c, KG_NONE, "%s = torch.zeros_like(%s)", cur, cur);
}

/* WHILE and FOR: a Python loop that runs while any lane is active.
 *   l = mask                       lanes still in the loop
 *   while True:
 *       m = l & cond               lanes running this iteration
 *       if not bool(m.any()): break
 *       <body under m>             (break clears lanes from m)
 *       [for: var += step under m]
 *       l = m
 * The FOR bound and step are evaluated every iteration, as in the kernel's C loop. */
static void emit_loop(ts_ctx *c, const kg_ks *st) {
  const kg_kernel *k = &c->fn->body;
  double fa0[3] = {0, 0, 0};
  vval var = vlit(KG_I32, 0, 0);
  const char *vname = NULL;
  if (st->kind == KS_FOR) {
    if (st->a >= k->vars.n) {
      fail(c, c->node, "map function: for loop over an unknown variable");
      return;
    }
    vname = fmt(c, "t%u_v%u", c->node, st->a);
    var = vtens(vname, (kg_dtype)k->vars.v[st->a].dtype, true);
    masked_assign(c, st->a, vx(c, st->b));
  }
  const char *l = fmt(c, "t%u_l%u", c->node, c->n_loop++);
  const char *m = fmt(c, "t%u_m%u", c->node, c->n_mask++);
  line(c, KG_NONE, "%s = %s", l, cur_mask(c));
  line(c, KG_NONE, "while True:");
  c->ind++;
  const char *cnd;
  if (st->kind == KS_WHILE) {
    cnd = cond_text(c, st->a);
  } else {
    vval in[2] = {var, vx(c, st->c)};
    cnd = text(c, vtensor(c, vop(c, c->node, st->incl ? KG_OP_LE : KG_OP_LT, 0, fa0, in, 2, KG_BOOL)));
  }
  line(c, KG_NONE, "%s = torch.logical_and(%s, %s)", m, l, cnd);
  line(c, KG_NONE, "if not bool(%s.any()):", m);
  c->ind++;
  line(c, KG_NONE, "break");
  c->ind--;
  if (push_mask(c, m, true)) {
    emit_block(c, st->body);
    c->n_stack--;
  }
  if (st->kind == KS_FOR) {
    vval in[2] = {var, vx(c, st->d)};
    vval nx = vop(c, c->node, KG_OP_ADD, 0, fa0, in, 2, (kg_dtype)var.dt);
    line(c, KG_NONE, "%s = torch.where(%s, %s, %s)", vname, m, text(c, nx), vname);
  }
  line(c, KG_NONE, "%s = %s", l, m);
  c->ind--;
}

static const char *new_mask(ts_ctx *c) { return fmt(c, "t%u_m%u", c->node, c->n_mask++); }

static void emit_block(ts_ctx *c, uint32_t s) {
  const kg_kernel *k = &c->fn->body;
  uint32_t steps = 0;
  for (; s != KG_NONE && c->ok; s = k->stmts.v[s].next) {
    if (s >= k->stmts.n || ++steps > k->stmts.n) {
      fail(c, c->node, "map function: malformed statement list");
      return;
    }
    const kg_ks *st = &k->stmts.v[s];
    switch ((kg_ks_kind)st->kind) {
    case KS_DECL:
    case KS_ASSIGN:
      if (st->a >= k->vars.n) {
        fail(c, c->node, "map function: assignment to an unknown variable");
        return;
      }
      if (st->b == KG_NONE) masked_assign(c, st->a, vlit((kg_dtype)k->vars.v[st->a].dtype, 0, 0));
      else masked_assign(c, st->a, vx(c, st->b));
      break;
    case KS_IF: {
      const char *cv = fmt(c, "t%u_c%u", c->node, c->n_cond++);
      line(c, KG_NONE, "%s = %s", cv, cond_text(c, st->a));
      const char *mt = NULL, *me = NULL;
      if (st->body != KG_NONE) {
        mt = new_mask(c);
        line(c, KG_NONE, "%s = torch.logical_and(%s, %s)", mt, cur_mask(c), cv);
      }
      if (st->els != KG_NONE) {
        me = new_mask(c);
        line(c, KG_NONE, "%s = torch.logical_and(%s, torch.logical_not(%s))", me, cur_mask(c), cv);
      }
      if (mt && push_mask(c, mt, false)) {
        emit_block(c, st->body);
        c->n_stack--;
      }
      if (me && push_mask(c, me, false)) {
        emit_block(c, st->els);
        c->n_stack--;
      }
      break;
    }
    case KS_WHILE:
    case KS_FOR: emit_loop(c, st); break;
    case KS_BREAK: emit_break(c); break;
    case KS_COMMENT: {
      pad(c);
      kg_sb_puts(c->body, "# ");
      for (const char *p = st->text ? st->text : ""; *p; p++) kg_sb_putc(c->body, *p == '\n' || *p == '\r' ? ' ' : *p);
      kg_sb_putc(c->body, '\n');
      break;
    }
    default: fail(c, c->node, "map function: stores and barriers cannot appear in scalar code"); return;
    }
  }
}

/* ---- the MAP node ---- */

void kg_twin_emit_map(ts_ctx *c, uint32_t id) {
  const kg_gnode *n = &c->g->nodes.v[id];
  if (n->fn >= c->g->fns.n) {
    fail(c, id, "map names a missing function");
    return;
  }
  const kg_sfunc *fn = c->g->fns.v[n->fn];
  if (n->n_in == 0 || n->n_in > 8 || n->n_in != fn->n_args) {
    fail(c, id, "map over %d inputs of a function of %u arguments", n->n_in, fn->n_args);
    return;
  }
  c->node = id, c->fn = fn;
  c->n_mask = 1, c->n_loop = 0, c->n_cond = 0, c->n_stack = 0;
  c->up = c->o->upcast_half;
  c->like = NULL;
  /* a comment naming the function and its inputs */
  pad(c);
  kg_sb_printf(c->body, "# map fn%u over (", n->fn);
  for (int j = 0; j < n->n_in; j++) kg_sb_printf(c->body, "%s%%%u", j ? ", " : "", n->in[j]);
  kg_sb_puts(c->body, ")");
  node_comment(c, id);
  kg_sb_putc(c->body, '\n');
  /* inputs, converted to the argument dtypes, broadcast */
  const char *dev = NULL;
  for (int j = 0; j < n->n_in && !dev; j++)
    if (!node_val(c, n->in[j]).num) dev = c->name[n->in[j]];
  const char *args[8];
  for (int j = 0; j < n->n_in; j++) {
    vval v = node_val(c, n->in[j]);
    if (v.num) {
      kg_dtype vt = (kg_dtype)v.dt;
      v = vtens(zero_dim(c, scalar_arg(c, v), carry(c, vt), dev), vt, false);
    }
    args[j] = text(c, vcast(c, v, (kg_dtype)fn->arg_dtypes[j]));
  }
  pad(c);
  for (int j = 0; j < n->n_in; j++) kg_sb_printf(c->body, "%st%u_a%d", j ? ", " : "", id, j);
  if (n->n_in == 1) {
    kg_sb_printf(c->body, " = %s\n", args[0]);
  } else {
    kg_sb_puts(c->body, " = torch.broadcast_tensors(");
    for (int j = 0; j < n->n_in; j++) kg_sb_printf(c->body, "%s%s", j ? ", " : "", args[j]);
    kg_sb_puts(c->body, ")\n");
  }
  const char *m0 = fmt(c, "t%u_m0", id);
  line(c, KG_NONE, "%s = torch.ones_like(t%u_a0, dtype=torch.bool)", m0, id);
  c->like = m0;
  const kg_kernel *k = &fn->body;
  for (uint32_t v = 0; v < k->vars.n; v++) {
    pad(c);
    kg_sb_printf(c->body, "t%u_v%u = torch.zeros_like(%s, dtype=%s)  # ", id, v, m0,
                 tdt(c, carry(c, (kg_dtype)k->vars.v[v].dtype)));
    for (const char *p = k->vars.v[v].name ? k->vars.v[v].name : ""; *p; p++)
      kg_sb_putc(c->body, (unsigned char)*p < ' ' ? ' ' : *p);
    kg_sb_printf(c->body, ": %s\n", kg_dtype_name((kg_dtype)k->vars.v[v].dtype));
  }
  push_mask(c, m0, false);
  emit_block(c, k->body);
  if (c->ok) {
    vval r = vcast(c, vx(c, fn->result), (kg_dtype)fn->ret_dtype);
    r = vtensor(c, r);
    const char *s = r.full ? text(c, r) : fmt(c, "%s.expand_as(%s)", text(c, r), m0);
    line(c, id, "%s = %s", c->name[id], s);
  }
  c->n_stack = 0;
  c->like = NULL;
  c->fn = NULL;
}
