/* frontend/scalar.c — scalar F# code: .NET-semantics scalar ops and the
 * statements of Kgen.Ops.map lambdas.
 *
 * Scalar values are compile-time constants (folded here with ir/eval.c, whose
 * rules match the kernels), run-time scalars at entry level (graph nodes with
 * vkind SCALAR), or — inside a map lambda — expressions of the map function
 * being built (a kg_sfunc, i.e. kernel-IR statements). In the lambda, `let
 * mutable` becomes a local variable, `<-` an assignment, if/then/else an IF
 * statement (a value-producing if assigns a result variable), `for` a FOR with
 * an inclusive end evaluated once, and `while` a WHILE (its condition is
 * re-evaluated each iteration, inside the loop when it needs statements).
 *
 *   fun v -> let mutable n = 0 in (while v > 1.0f do v' ...; n <- n + 1); n
 *   ⇒ var n: int32 = 0; while (...) { ...; n = ADD(n, 1) }; result n
 */
#include <string.h>

#include "frontend.h"

static kg_ev ev_sx(uint32_t id) {
  kg_ev v;
  memset(&v, 0, sizeof v);
  v.kind = EV_SX;
  v.id = id;
  v.dt = KG_DT_NONE;
  return v;
}

static kg_ev ev_unit(void) {
  kg_ev v;
  memset(&v, 0, sizeof v);
  v.kind = EV_UNIT;
  v.dt = KG_DT_NONE;
  return v;
}

/* Reading a mutable local snapshots it, so a later assignment cannot change a
 * value already read (F# evaluates eagerly). */
static uint32_t read_mvar(kg_elab *el, uint32_t var) {
  kg_kernel *k = &el->fn->body;
  uint32_t t = kg_kvar_new(k, k->vars.v[var].name, (kg_dtype)k->vars.v[var].dtype);
  kg_ks s = kg_ks_make(KS_DECL);
  s.a = t, s.b = kg_kx_var(k, var);
  kg_ks_add(&el->cur, s);
  return kg_kx_var(k, t);
}

uint32_t kg_elab_sx(kg_elab *el, kg_ev v, kg_dtype t) {
  kg_kernel *k = &el->fn->body;
  uint32_t x;
  switch (v.kind) {
  case EV_CONST: {
    kg_cval c = kg_cval_cast(v.c, t);
    return kg_dtype_is_float(t) ? kg_kx_const_f(k, t, c.f) : kg_kx_const_i(k, t, c.i);
  }
  case EV_SX: x = v.id; break;
  case EV_MVAR: x = read_mvar(el, v.id); break;
  case EV_NODE: { /* an entry-level scalar captured by the lambda: an extra argument */
    const kg_gnode *gn = &el->g->nodes.v[v.id];
    if (gn->vkind != KG_V_SCALAR) return KG_NONE;
    kg_sfunc *fn = el->fn;
    uint32_t ci = KG_NONE;
    for (uint32_t i = 0; i < fn->n_args - fn->n_lambda_args; i++)
      if (fn->cap_nodes[i] == v.id) ci = i;
    if (ci == KG_NONE) {
      if (fn->n_args >= 8) return KG_NONE;
      ci = fn->n_args - fn->n_lambda_args;
      fn->cap_nodes[ci] = v.id;
      fn->arg_dtypes[fn->n_args] = gn->dtype;
      kg_kparam p;
      memset(&p, 0, sizeof p);
      p.kind = KP_SCALAR;
      p.dtype = gn->dtype;
      p.name = kg_arena_printf(el->arena, "cap%u", ci);
      kg_kparam_add(k, p);
      fn->n_args++;
    }
    x = kg_kx_param(k, fn->n_lambda_args + ci);
    break;
  }
  default: return KG_NONE;
  }
  if (k->exprs.v[x].dtype != t) x = kg_kx_cast(k, t, x);
  return x;
}

static bool scalar_ok(kg_elab *el, const kg_ast *at, kg_ev v) {
  if (v.kind == EV_ERR) return false;
  if (v.kind == EV_CONST || v.kind == EV_SX || v.kind == EV_MVAR) return true;
  if (v.kind == EV_NODE && el->g->nodes.v[v.id].vkind == KG_V_SCALAR) return true; /* captured in maps */
  kg_elab_error(el, at, KG_E_TYPE, "expected a number here");
  return false;
}

static uint32_t scalar_node(kg_elab *el, const kg_ast *at, kg_op op, kg_dtype out, kg_dtype cdt,
                            const uint32_t *in, int n) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op;
  g.dtype = (uint8_t)out;
  g.cdtype = (uint8_t)cdt;
  g.vkind = KG_V_SCALAR;
  g.n_in = (uint8_t)n;
  for (int i = 0; i < n; i++) g.in[i] = in[i];
  g.path = at ? at->path : NULL;
  g.srcloc = at ? kg_fe_srcloc(el->arena, el->doc, at) : NULL;
  return kg_graph_add(el->g, &g);
}

static uint32_t node_of(kg_elab *el, const kg_ast *at, kg_ev v) {
  if (v.kind == EV_NODE) return v.id;
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_CONST;
  g.dtype = g.cdtype = (uint8_t)v.c.dt;
  g.vkind = KG_V_SCALAR;
  if (kg_dtype_is_float(v.c.dt)) g.fa[0] = v.c.f;
  else g.ia[0] = v.c.i;
  g.path = at ? at->path : NULL;
  return kg_graph_add(el->g, &g);
}

kg_ev kg_elab_scast(kg_elab *el, const kg_ast *at, kg_ev v, kg_dtype t) {
  if (!scalar_ok(el, at, v)) return kg_ev_err();
  if (v.kind == EV_CONST) {
    kg_ev r = v;
    r.c = kg_cval_cast(v.c, t);
    return r;
  }
  if (el->fn) return ev_sx(kg_elab_sx(el, v, t));
  uint32_t in = node_of(el, at, v);
  if (el->g->nodes.v[in].dtype == t) return v;
  kg_ev r;
  memset(&r, 0, sizeof r);
  r.kind = EV_NODE;
  r.id = scalar_node(el, at, KG_OP_CAST, t, (kg_dtype)el->g->nodes.v[in].dtype, &in, 1);
  return r;
}

kg_ev kg_elab_sop(kg_elab *el, const kg_ast *at, kg_op op, kg_dtype out, const kg_ev *a, int n) {
  for (int i = 0; i < n; i++)
    if (!scalar_ok(el, at, a[i])) return kg_ev_err();
  const kg_op_info *oi = kg_op_get(op);
  if (oi->arity >= 0 && oi->arity != n)
    return kg_elab_error(el, at, KG_E_FORMAT, "%s takes %d operand(s), got %d", oi->name, oi->arity, n);
  /* compute dtype: comparisons compare in their operands' (promoted) dtype */
  kg_dtype cdt = out;
  if (oi->flags & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED)) {
    cdt = kg_ev_dtype(el, a[0]);
    for (int i = 1; i < n; i++) cdt = kg_dtype_promote(cdt, kg_ev_dtype(el, a[i]));
    if (oi->flags & KG_OPF_LOGIC) cdt = KG_BOOL;
    out = KG_BOOL;
  }
  if (oi->flags & KG_OPF_FLOAT && !kg_dtype_is_float(cdt))
    return kg_elab_error(el, at, KG_E_TYPE, "%s needs a floating-point operand, got %s", oi->name, kg_dtype_name(cdt));
  bool all_const = true;
  for (int i = 0; i < n; i++) all_const &= a[i].kind == EV_CONST;
  if (all_const) {
    kg_cval cv[3], r;
    for (int i = 0; i < n; i++) cv[i] = kg_cval_cast(a[i].c, (op == KG_OP_NET_SHL || op == KG_OP_NET_SHR) && i == 1 ? KG_I32 : cdt);
    int64_t ia[2] = {0, 0};
    double fa[4] = {0, 0, 0, 0};
    if (kg_eval_op(op, out, cdt, cv, n, ia, fa, &r)) {
      kg_ev e;
      memset(&e, 0, sizeof e);
      e.kind = EV_CONST;
      e.c = r;
      return e;
    }
  }
  if (el->fn) {
    uint32_t x[3] = {KG_NONE, KG_NONE, KG_NONE};
    for (int i = 0; i < n; i++) x[i] = kg_elab_sx(el, a[i], (op == KG_OP_NET_SHL || op == KG_OP_NET_SHR) && i == 1 ? KG_I32 : cdt);
    if (op == KG_OP_POS) return ev_sx(x[0]);
    uint32_t e = kg_kx_op(&el->fn->body, op, out, x[0], x[1], x[2]);
    return ev_sx(e);
  }
  uint32_t in[3];
  for (int i = 0; i < n; i++) {
    kg_ev c = kg_elab_scast(el, at, a[i], (op == KG_OP_NET_SHL || op == KG_OP_NET_SHR) && i == 1 ? KG_I32 : cdt);
    if (c.kind == EV_ERR) return c;
    in[i] = node_of(el, at, c);
  }
  kg_ev r;
  memset(&r, 0, sizeof r);
  r.kind = EV_NODE;
  r.id = scalar_node(el, at, op, out, cdt, in, n);
  return r;
}

/* ---- statements of map lambdas ---- */

static kg_dtype value_type(kg_elab *el, const kg_ast *n, bool *unit) {
  *unit = kg_clr_is_unit(n->ty);
  if (*unit) return KG_DT_NONE;
  kg_dtype t = kg_dtype_from_clr(n->ty);
  if (t == KG_DT_NONE) kg_elab_error(el, n, KG_E_UNSUPPORTED, "a value of type %s inside a map lambda is not supported (numbers and bool are)", n->ty);
  return t;
}

/* Evaluates n into the block of statement `st` (els: its else block); if `res`
 * is a variable, assigns the value to it. */
static bool eval_into(kg_elab *el, uint32_t st, bool els, const kg_ast *n, uint32_t res, kg_dtype rdt) {
  kg_kcursor saved = el->cur;
  el->cur = kg_kcursor_body(&el->fn->body, st, els);
  kg_ev v = kg_elab_eval(el, n);
  bool ok = v.kind != EV_ERR;
  if (ok && res != KG_NONE) {
    uint32_t x = kg_elab_sx(el, v, rdt);
    if (x == KG_NONE) {
      kg_elab_error(el, n, KG_E_TYPE, "a branch of a map lambda's if/then/else must be a number");
      ok = false;
    } else {
      kg_ks s = kg_ks_make(KS_ASSIGN);
      s.a = res, s.b = x;
      kg_ks_add(&el->cur, s);
    }
  }
  el->cur = saved;
  return ok;
}

kg_ev kg_elab_scalar_if(kg_elab *el, const kg_ast *n) {
  kg_ev c = kg_elab_eval(el, n->a);
  if (c.kind == EV_ERR) return c;
  if (c.kind == EV_CONST) return kg_elab_eval(el, kg_cval_truthy(c.c) ? n->b : n->c);
  uint32_t cx = kg_elab_sx(el, c, KG_BOOL);
  if (cx == KG_NONE) return kg_elab_error(el, n->a, KG_E_TYPE, "an if condition must be a bool");
  bool unit;
  kg_dtype rdt = value_type(el, n, &unit);
  if (!unit && rdt == KG_DT_NONE) return kg_ev_err();
  kg_kernel *k = &el->fn->body;
  uint32_t res = KG_NONE;
  if (!unit) {
    res = kg_kvar_new(k, "if", rdt);
    kg_ks d = kg_ks_make(KS_DECL);
    d.a = res;
    kg_ks_add(&el->cur, d);
  }
  kg_ks s = kg_ks_make(KS_IF);
  s.a = cx;
  uint32_t st = kg_ks_add(&el->cur, s);
  if (!eval_into(el, st, false, n->b, res, rdt)) return kg_ev_err();
  if (!eval_into(el, st, true, n->c, res, rdt)) return kg_ev_err();
  if (unit) return ev_unit();
  return ev_sx(kg_kx_var(k, res));
}

kg_ev kg_elab_scalar_let_mutable(kg_elab *el, const kg_ast *n) {
  kg_ev v = kg_elab_eval(el, n->a);
  if (v.kind == EV_ERR) return v;
  kg_dtype t = kg_dtype_from_clr(el->doc->vars[n->var].type);
  if (t == KG_DT_NONE)
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "mutable variable '%s' of type %s is not supported in a map lambda",
                         el->doc->vars[n->var].name, el->doc->vars[n->var].type);
  kg_kernel *k = &el->fn->body;
  uint32_t var = kg_kvar_new(k, el->doc->vars[n->var].name, t);
  uint32_t x = kg_elab_sx(el, v, t);
  if (x == KG_NONE) return kg_elab_error(el, n->a, KG_E_TYPE, "a mutable variable must hold a number");
  kg_ks s = kg_ks_make(KS_DECL);
  s.a = var, s.b = x;
  kg_ks_add(&el->cur, s);
  kg_ev mv;
  memset(&mv, 0, sizeof mv);
  mv.kind = EV_MVAR;
  mv.id = var;
  kg_ev old = el->env[n->var];
  uint8_t ob = el->bound[n->var];
  el->env[n->var] = mv;
  el->bound[n->var] = 1;
  kg_ev r = kg_elab_eval(el, n->b);
  el->env[n->var] = old;
  el->bound[n->var] = ob;
  return r;
}

kg_ev kg_elab_scalar_varset(kg_elab *el, const kg_ast *n) {
  if (!el->bound[n->var] || el->env[n->var].kind != EV_MVAR)
    return kg_elab_error(el, n, KG_E_FORMAT, "assignment to '%s', which is not a mutable local of this lambda", el->doc->vars[n->var].name);
  kg_ev v = kg_elab_eval(el, n->a);
  if (v.kind == EV_ERR) return v;
  uint32_t var = el->env[n->var].id;
  uint32_t x = kg_elab_sx(el, v, (kg_dtype)el->fn->body.vars.v[var].dtype);
  if (x == KG_NONE) return kg_elab_error(el, n->a, KG_E_TYPE, "assigned value must be a number");
  kg_ks s = kg_ks_make(KS_ASSIGN);
  s.a = var, s.b = x;
  kg_ks_add(&el->cur, s);
  return ev_unit();
}

/* An integer loop in a map lambda (seqloop.c describes it): a FOR with an inclusive end
 * evaluated once. A step other than 1 loops over the iteration count, k = 0 ..
 * floor((end - start) / step), the variable start + k * step (the FOR of the kernel IR
 * steps up to an inclusive end, and an index past the end must not be computed). */
kg_ev kg_elab_scalar_loop(kg_elab *el, const kg_iloop *L) {
  kg_dtype vt = L->vt;
  if (vt != KG_I32 && vt != KG_I64) vt = KG_I32;
  kg_kernel *k = &el->fn->body;
  const char *vname = L->body ? el->doc->vars[L->var].name : "it";
  uint32_t sx, ex, start = KG_NONE;
  kg_dtype ct = vt; /* the counter's dtype */
  if (L->step == 1) {
    sx = kg_elab_sx(el, L->start, vt);
    ex = kg_elab_sx(el, L->end, vt);
  } else {
    ct = KG_I64;
    kg_ev s64 = kg_elab_scast(el, L->start_at, L->start, KG_I64), e64 = kg_elab_scast(el, L->end_at, L->end, KG_I64);
    if (s64.kind == EV_ERR || e64.kind == EV_ERR) return kg_ev_err();
    kg_ev d[2] = {e64, s64};
    d[0] = kg_elab_sop(el, L->end_at, KG_OP_SUB, KG_I64, d, 2);
    d[1] = kg_ev_const(kg_cval_int(KG_I64, L->step));
    kg_ev last = kg_elab_sop(el, L->end_at, KG_OP_FLOORDIV, KG_I64, d, 2);
    if (last.kind == EV_ERR) return last;
    start = kg_kvar_new(k, "start", KG_I64);
    kg_ks d0 = kg_ks_make(KS_DECL);
    d0.a = start, d0.b = kg_elab_sx(el, s64, KG_I64);
    kg_ks_add(&el->cur, d0);
    sx = kg_kx_const_i(k, KG_I64, 0);
    ex = kg_elab_sx(el, last, KG_I64);
  }
  if (sx == KG_NONE || ex == KG_NONE) return kg_elab_error(el, L->at, KG_E_TYPE, "for-loop bounds must be integers");
  /* the end is evaluated once, before the loop */
  uint32_t end = kg_kvar_new(k, "end", ct);
  kg_ks d = kg_ks_make(KS_DECL);
  d.a = end, d.b = ex;
  kg_ks_add(&el->cur, d);
  uint32_t var = kg_kvar_new(k, L->step == 1 ? vname : "k", ct);
  kg_ks f = kg_ks_make(KS_FOR);
  f.a = var, f.b = sx, f.c = kg_kx_var(k, end), f.d = kg_kx_const_i(k, ct, 1), f.incl = true;
  uint32_t st = kg_ks_add(&el->cur, f);
  kg_kcursor saved = el->cur;
  el->cur = kg_kcursor_body(k, st, false);
  el->loop_depth++;
  kg_ev lv = ev_sx(kg_kx_var(k, var));
  if (L->step != 1) { /* start + k * step, as the user's variable */
    uint32_t x = kg_kx_op(k, KG_OP_ADD, KG_I64, kg_kx_var(k, start),
                          kg_kx_op(k, KG_OP_MUL, KG_I64, kg_kx_var(k, var), kg_kx_const_i(k, KG_I64, L->step), KG_NONE), KG_NONE);
    uint32_t uv = kg_kvar_new(k, vname, vt);
    kg_ks dv = kg_ks_make(KS_DECL);
    dv.a = uv, dv.b = vt == KG_I64 ? x : kg_kx_cast(k, vt, x);
    kg_ks_add(&el->cur, dv);
    lv = ev_sx(kg_kx_var(k, uv));
  }
  kg_ev r = kg_elab_loop_body(el, L, lv);
  el->loop_depth--;
  el->cur = saved;
  return r.kind == EV_ERR ? r : ev_unit();
}

kg_ev kg_elab_scalar_while(kg_elab *el, const kg_ast *n) {
  kg_kernel *k = &el->fn->body;
  kg_ks w = kg_ks_make(KS_WHILE);
  uint32_t st = kg_ks_add(&el->cur, w);
  kg_kcursor saved = el->cur;
  el->cur = kg_kcursor_body(k, st, false);
  el->loop_depth++;
  kg_ev c = kg_elab_eval(el, n->a);
  kg_ev r = c;
  if (c.kind != EV_ERR) {
    uint32_t cx = kg_elab_sx(el, c, KG_BOOL);
    if (cx == KG_NONE) {
      r = kg_elab_error(el, n->a, KG_E_TYPE, "a while condition must be a bool");
    } else if (k->stmts.v[st].body == KG_NONE) {
      k->stmts.v[st].a = cx;
    } else {
      /* the condition needed statements: while (true) { cond; if (!c) break; body } */
      k->stmts.v[st].a = kg_kx_const_i(k, KG_BOOL, 1);
      kg_ks i = kg_ks_make(KS_IF);
      i.a = kg_kx_op(k, KG_OP_LNOT, KG_BOOL, cx, KG_NONE, KG_NONE);
      uint32_t is = kg_ks_add(&el->cur, i);
      kg_kcursor bc = kg_kcursor_body(k, is, false);
      kg_ks_add(&bc, kg_ks_make(KS_BREAK));
    }
    if (r.kind != EV_ERR) r = kg_elab_eval(el, n->b);
  }
  el->loop_depth--;
  el->cur = saved;
  return r.kind == EV_ERR ? r : ev_unit();
}

bool kg_elab_map_fn(kg_elab *el, const kg_ast *at, kg_ev fnv, int nargs, const kg_dtype *args, kg_dtype ret,
                    uint32_t *fn_index) {
  if (fnv.kind != EV_FUNC) {
    kg_elab_error(el, at, KG_E_TYPE, "the first argument of a map must be a lambda");
    return false;
  }
  kg_sfunc *fn = kg_arena_alloc(el->arena, sizeof *fn);
  kg_kernel_init(&fn->body, kg_arena_printf(el->arena, "fn%u", el->g->fns.n));
  fn->n_args = fn->n_lambda_args = (uint32_t)nargs;
  fn->ret_dtype = (uint8_t)ret;
  KG_VEC_PUSH(el->g->fns, fn); /* owned by the graph from here on (freed with it) */
  uint32_t index = el->g->fns.n - 1;
  for (int i = 0; i < nargs; i++) {
    fn->arg_dtypes[i] = (uint8_t)args[i];
    kg_kparam p;
    memset(&p, 0, sizeof p);
    p.kind = KP_SCALAR;
    p.dtype = (uint8_t)args[i];
    p.name = kg_arena_printf(el->arena, "a%d", i);
    kg_kparam_add(&fn->body, p);
  }
  kg_sfunc *saved_fn = el->fn;
  kg_kcursor saved_cur = el->cur;
  int saved_loop = el->loop_depth;
  el->fn = fn;
  el->cur = kg_kcursor_top(&fn->body);
  el->loop_depth = 0;
  const kg_ast *lam = fnv.lam;
  uint32_t vars[3];
  kg_ev olds[3];
  uint8_t obs[3];
  int nb = 0;
  bool ok = true;
  for (int i = 0; i < nargs; i++) {
    if (lam->k != KG_AST_Lambda) {
      kg_elab_error(el, lam, KG_E_FORMAT, "a map%s lambda must take %d argument(s)", nargs > 1 ? "N" : "", nargs);
      ok = false;
      break;
    }
    vars[nb] = lam->var, olds[nb] = el->env[lam->var], obs[nb] = el->bound[lam->var];
    nb++;
    el->env[lam->var] = ev_sx(kg_kx_param(&fn->body, (uint32_t)i));
    el->bound[lam->var] = 1;
    lam = lam->a;
  }
  if (ok) {
    kg_ev r = kg_elab_eval(el, lam);
    if (r.kind == EV_ERR) ok = false;
    else {
      uint32_t x = kg_elab_sx(el, r, ret);
      if (x == KG_NONE) {
        kg_elab_error(el, lam, KG_E_TYPE, "a map lambda must return a number");
        ok = false;
      } else {
        uint32_t rv = kg_kvar_new(&fn->body, "ret", ret);
        kg_ks d = kg_ks_make(KS_DECL);
        d.a = rv, d.b = x;
        kg_ks_add(&el->cur, d);
        fn->result = kg_kx_var(&fn->body, rv);
      }
    }
  }
  for (int i = nb - 1; i >= 0; i--) el->env[vars[i]] = olds[i], el->bound[vars[i]] = obs[i];
  el->fn = saved_fn;
  el->cur = saved_cur;
  el->loop_depth = saved_loop;
  *fn_index = index;
  return ok;
}
