/* frontend/elab.c — elaboration: AST + signature → typed tensor program.
 *
 * The quotation is *evaluated* symbolically: every AST node yields a kg_ev (a
 * constant, a graph node, a dtype, a function value, a tuple, …). Lambdas are
 * function values; Application, Let-bound lambdas and calls to reflected
 * definitions are inlined by binding variables and evaluating bodies. Member
 * calls are resolved through the member table (members.c) and build graph
 * nodes whose dtype follows PyTorch's type promotion and whose shape follows
 * broadcasting (the handlers of the member table's rows are in calls.c).
 * Conditions and loops whose values are known at compile time are folded /
 * unrolled; a run-time branch over tensors is host control flow (hostflow.c).
 * Inside Kgen.Ops.map lambdas the evaluation switches to
 * scalar mode (scalar.c), which builds kernel-IR statements instead of nodes.
 *
 * Example:  fun x b -> torch.tanh(x + b) * 0.5f
 *   %0 = INPUT x, %1 = INPUT b, %2 = ADD(%0, %1), %3 = TANH(%2),
 *   %4 = CONST 0.5:float32 scalar, %5 = MUL(%3, %4)        return %5
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#define MAX_INLINE_DEPTH 64

kg_ev kg_ev_err(void) {
  kg_ev v;
  memset(&v, 0, sizeof v);
  v.kind = EV_ERR;
  return v;
}
kg_ev kg_ev_make(kg_ev_kind k) {
  kg_ev v;
  memset(&v, 0, sizeof v);
  v.kind = k;
  v.dt = KG_DT_NONE;
  return v;
}
#define ev_make kg_ev_make
kg_ev kg_ev_node(uint32_t id) {
  kg_ev v = ev_make(EV_NODE);
  v.id = id;
  return v;
}
kg_ev kg_ev_const(kg_cval c) {
  kg_ev v = ev_make(EV_CONST);
  v.c = c;
  return v;
}
#define ev_const kg_ev_const

kg_ev kg_elab_error(kg_elab *el, const kg_ast *n, kg_diag_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_diag_vadd(el->d, code, n ? n->path : NULL, n ? kg_fe_srcloc(el->arena, el->doc, n) : NULL, fmt, ap);
  va_end(ap);
  return kg_ev_err();
}

void kg_elab_warn(kg_elab *el, const kg_ast *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *loc = n ? kg_fe_srcloc(el->arena, el->doc, n) : NULL;
  el->g->warnings = kg_arena_printf(el->arena, "%s%s%swarning: %s\n%s%s%s", el->g->warnings ? el->g->warnings : "", loc ? loc : "",
                                    loc ? ": " : "", msg, n ? "  at " : "", n ? n->path : "", n ? "\n" : "");
}

const kg_gnode *kg_elab_gnode(const kg_elab *el, uint32_t id) { return &el->g->nodes.v[id]; }
#define gnode kg_elab_gnode

kg_dtype kg_ev_dtype(const kg_elab *el, kg_ev v) {
  switch (v.kind) {
  case EV_CONST: return v.c.dt;
  case EV_NODE: return (kg_dtype)gnode(el, v.id)->dtype;
  case EV_SX: return (kg_dtype)el->fn->body.exprs.v[v.id].dtype;
  case EV_MVAR: return (kg_dtype)el->fn->body.vars.v[v.id].dtype;
  default: return KG_DT_NONE;
  }
}

bool kg_ev_is_tensor(const kg_elab *el, kg_ev v) {
  return v.kind == EV_NODE && gnode(el, v.id)->vkind == KG_V_TENSOR;
}

#define ev_is_tensor kg_ev_is_tensor

/* graph node construction: elab_nodes.c */
#define ev_node kg_ev_node
#define add_node kg_elab_add_node
#define as_node kg_elab_as_node
#define shape_str kg_elab_shape_str
#define tensor_op kg_elab_tensor_op
#define tensor_op_ev kg_elab_tensor_op_ev

/* ---- signature → parameters ---- */

static uint32_t sym_id(kg_elab *el, const char *name) {
  for (uint32_t i = 0; i < el->g->syms.n; i++)
    if (strcmp(el->g->syms.v[i], name) == 0) return i;
  const char *s = kg_arena_strdup(el->arena, name);
  KG_VEC_PUSH(el->g->syms, s);
  return el->g->syms.n - 1;
}

static uint32_t input_node(kg_elab *el, const kg_ast *at, const kg_sig_param *p, const char *name,
                           bool capture, uint32_t index) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_INPUT;
  g.dtype = (uint8_t)p->dtype;
  g.cdtype = (uint8_t)p->dtype;
  g.vkind = p->is_scalar ? KG_V_SCALAR : KG_V_TENSOR;
  g.ia[0] = index;
  g.ia[1] = capture;
  g.shape.rank = p->is_scalar ? 0 : p->rank;
  for (int i = 0; i < g.shape.rank; i++) {
    const kg_sig_dim *sd = &p->dims[i];
    if (sd->kind == KG_DIM_STATIC) g.shape.d[i] = (kg_dim){KG_DIM_STATIC, sd->size};
    else if (sd->kind == KG_DIM_SYM) g.shape.d[i] = (kg_dim){KG_DIM_SYM, sym_id(el, sd->sym)};
    else {
      char buf[160];
      snprintf(buf, sizeof buf, "%s.size%d", name, i);
      g.shape.d[i] = (kg_dim){KG_DIM_SYM, sym_id(el, buf)};
    }
  }
  uint32_t id = add_node(el, at, &g);
  kg_gparam gp = {kg_arena_strdup(el->arena, name), capture, id, NULL, 0, false};
  if (p->has_range) {
    double *r = kg_arena_alloc(el->arena, 2 * sizeof *r);
    r[0] = p->lo, r[1] = p->hi;
    gp.range = r;
  }
  KG_VEC_PUSH(el->g->params, gp);
  return id;
}

static kg_ev capture(kg_elab *el, const kg_ast *n) {
  const kg_sig *s = el->sig;
  for (uint32_t i = 0; s && i < s->n_captures; i++) {
    if (strcmp(s->capture_names[i], n->name) != 0) continue;
    if (el->capture_node[i] == KG_NONE)
      el->capture_node[i] = input_node(el, n, &s->captures[i], n->name, true, i);
    return ev_node(el->capture_node[i]);
  }
  return kg_elab_error(el, n, KG_E_ARG,
                       "captured tensor '%s' has no entry in the signature's \"captures\" (its dtype and shape are needed)",
                       n->name);
}

/* ---- values ---- */

static kg_ev value_ev(kg_elab *el, const kg_ast *n, const kg_value *v, const char *ty) {
  kg_dtype t = kg_dtype_from_clr(ty);
  switch (v->kind) {
  case KG_VAL_NULL: return ev_make(kg_clr_is_unit(ty) ? EV_UNIT : EV_NULL);
  case KG_VAL_BOOL: return ev_const(kg_cval_int(KG_BOOL, v->b));
  case KG_VAL_INT:
    if (t == KG_DT_NONE || kg_dtype_is_float(t))
      return kg_elab_error(el, n, KG_E_UNSUPPORTED, "integer constant of type %s is not supported", ty);
    if (v->is_unsigned) return kg_elab_error(el, n, KG_E_UNSUPPORTED, "UInt64 constants above 2^63 are not supported");
    return ev_const(kg_cval_int(t, v->i));
  case KG_VAL_FLOAT:
    if (t != KG_F32 && t != KG_F64 && t != KG_F16)
      return kg_elab_error(el, n, KG_E_UNSUPPORTED, "floating constant of type %s is not supported", ty);
    return ev_const(kg_cval_float(t, v->f));
  case KG_VAL_ENUM: {
    if (ty && strcmp(ty, "TorchSharp.torch+ScalarType") == 0) {
      kg_dtype dt = kg_dtype_from_scalartype(v->i);
      if (dt == KG_DT_NONE)
        return kg_elab_error(el, n, KG_E_UNSUPPORTED, "dtype ScalarType.%s is not supported (kgen supports %s)",
                             v->s ? v->s : "?", "bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64");
      kg_ev e = ev_make(EV_DTYPE);
      e.dt = dt;
      return e;
    }
    kg_ev e = ev_make(EV_ENUM);
    e.c = kg_cval_int(KG_I64, v->i);
    e.ety = ty;
    return e;
  }
  case KG_VAL_ARRAY: {
    kg_ev e = ev_make(EV_ARRAY);
    e.n = v->n_items;
    e.items = kg_arena_alloc(el->arena, (v->n_items + 1) * sizeof *e.items);
    const char *elem[1] = {NULL};
    char et[128] = "";
    size_t tl = ty ? strlen(ty) : 0;
    if (tl > 2 && tl < sizeof et && strcmp(ty + tl - 2, "[]") == 0) memcpy(et, ty, tl - 2), et[tl - 2] = 0;
    elem[0] = et;
    for (uint32_t i = 0; i < v->n_items; i++) e.items[i] = value_ev(el, n, &v->items[i], elem[0]);
    return e;
  }
  case KG_VAL_STRING: {
    if (!v->s) return ev_make(EV_NULL);
    kg_ev e = ev_make(EV_STR);
    e.s = v->s;
    return e;
  }
  case KG_VAL_OPAQUE:
    return kg_elab_error(el, n, KG_E_FORMAT, "an opaque value must be a ValueWithName (a captured tensor with a name)");
  }
  return kg_ev_err();
}

/* ---- environment ---- */

typedef struct saved { uint32_t var; kg_ev v; uint8_t bound; } saved;

static saved bind(kg_elab *el, uint32_t var, kg_ev v) {
  saved s = {var, el->env[var], el->bound[var]};
  el->env[var] = v;
  el->bound[var] = 1;
  return s;
}
static void unbind(kg_elab *el, saved s) {
  el->env[s.var] = s.v;
  el->bound[s.var] = s.bound;
}

/* Binds a function's parameter var to an argument. */
kg_ev kg_elab_apply(kg_elab *el, const kg_ast *at, kg_ev f, kg_ev arg) {
  if (f.kind == EV_ERR || arg.kind == EV_ERR) return kg_ev_err();
  if (f.kind != EV_FUNC) return kg_elab_error(el, at, KG_E_TYPE, "applying something that is not a function");
  if (++el->inline_depth > MAX_INLINE_DEPTH) {
    el->inline_depth--;
    return kg_elab_error(el, at, KG_E_LIMIT, "inlining deeper than %d levels (recursive function?)", MAX_INLINE_DEPTH);
  }
  saved *cs = NULL;
  uint32_t nc = f.clo ? f.clo->n : 0;
  if (nc) {
    cs = kg_xmalloc(nc * sizeof *cs);
    /* a mutable local still in scope is shared with the lambda, not copied (a quotation may
     * assign it inside a lambda: Seq.iter (fun i -> acc <- acc + x.[i]) r) */
    for (uint32_t i = 0; i < nc; i++) {
      uint32_t v = f.clo->vars[i];
      if (el->doc->vars[v].is_mutable && el->bound[v]) cs[i].var = KG_NONE;
      else cs[i] = bind(el, v, f.clo->vals[i]);
    }
  }
  saved s = bind(el, f.lam->var, arg);
  kg_ev r = kg_elab_eval(el, f.lam->a);
  unbind(el, s);
  for (uint32_t i = nc; i-- > 0;)
    if (cs[i].var != KG_NONE) unbind(el, cs[i]);
  free(cs);
  el->inline_depth--;
  return r;
}

/* The free variables of lambda `lam` bound now, with their values (NULL when none). */
static void free_vars(const kg_ast *n, uint8_t *mark) {
  if (!n) return;
  if (n->k == KG_AST_Var) mark[n->var] = 1;
  free_vars(n->a, mark), free_vars(n->b, mark), free_vars(n->c, mark);
  for (uint32_t i = 0; i < n->n_kids; i++) free_vars(n->kids[i], mark);
}

static const kg_closure *closure_of(kg_elab *el, const kg_ast *lam) {
  uint32_t nv = el->doc->n_vars;
  uint8_t *mark = kg_xcalloc(nv + 1, 1);
  free_vars(lam->a, mark);
  uint32_t n = 0;
  for (uint32_t v = 0; v < nv; v++) n += mark[v] && el->bound[v] && v != lam->var;
  kg_closure *c = NULL;
  if (n) {
    c = kg_arena_alloc(el->arena, sizeof *c);
    c->vars = kg_arena_alloc(el->arena, n * sizeof *c->vars);
    c->vals = kg_arena_alloc(el->arena, n * sizeof *c->vals);
    c->n = 0;
    for (uint32_t v = 0; v < nv; v++)
      if (mark[v] && el->bound[v] && v != lam->var) c->vars[c->n] = v, c->vals[c->n++] = el->env[v];
  }
  free(mark);
  return c;
}

static const kg_doc_def *find_def(const kg_elab *el, const kg_member *m) {
  for (uint32_t i = 0; i < el->doc->n_defs; i++) {
    const kg_member *dm = el->doc->defs[i].member;
    if (dm && dm->key && m->key && strcmp(dm->key, m->key) == 0) return &el->doc->defs[i];
  }
  return NULL;
}

/* Inlines a reflected definition: its expr is a Lambda chain over the method's
 * parameters (curried), or one Lambda over a tuple of them. */
static kg_ev inline_def(kg_elab *el, const kg_ast *at, const kg_doc_def *def, const kg_ev *av, int n) {
  kg_ev f = ev_make(EV_FUNC);
  const kg_ast *e = def->expr;
  if (n == 0) {
    if (e->k != KG_AST_Lambda) return kg_elab_eval(el, e);
    f.lam = e;
    return kg_elab_apply(el, at, f, ev_make(EV_UNIT));
  }
  if (e->k == KG_AST_Lambda && n > 1 && kg_clr_is_tuple(el->doc->vars[e->var].type)) {
    kg_ev t = ev_make(EV_TUPLE);
    t.n = (uint32_t)n;
    t.items = kg_arena_alloc(el->arena, (size_t)n * sizeof *t.items);
    memcpy(t.items, av, (size_t)n * sizeof *av);
    f.lam = e;
    return kg_elab_apply(el, at, f, t);
  }
  /* curried: bind one argument per Lambda, nesting bindings */
  if (e->k != KG_AST_Lambda) return kg_elab_error(el, def->expr, KG_E_FORMAT, "reflected definition %s is not a function", def->member->key);
  if (++el->inline_depth > MAX_INLINE_DEPTH) {
    el->inline_depth--;
    return kg_elab_error(el, at, KG_E_LIMIT, "inlining deeper than %d levels (recursive function?)", MAX_INLINE_DEPTH);
  }
  saved sv[16];
  int nb = 0;
  const kg_ast *body = e;
  for (int i = 0; i < n; i++) {
    if (body->k != KG_AST_Lambda || nb == 16) {
      for (int j = nb - 1; j >= 0; j--) unbind(el, sv[j]);
      el->inline_depth--;
      return kg_elab_error(el, at, KG_E_FORMAT, "call to %s passes %d arguments, its definition takes fewer", def->member->key, n);
    }
    /* `let map f (a, b, c)` compiles to map(f, a, b, c) over Lambda(f, Lambda(tuple, ...)): a
     * tuple-typed lambda after the first takes the next k arguments as its tuple */
    const char *ga[8];
    int k = i > 0 && kg_clr_is_tuple(el->doc->vars[body->var].type) && av[i].kind != EV_TUPLE
                ? kg_clr_generic_args(el->arena, el->doc->vars[body->var].type, ga, 8) : 0;
    if (k > 1 && i + k <= n) {
      kg_ev t = ev_make(EV_TUPLE);
      t.n = (uint32_t)k;
      t.items = kg_arena_alloc(el->arena, (size_t)k * sizeof *t.items);
      memcpy(t.items, av + i, (size_t)k * sizeof *av);
      sv[nb++] = bind(el, body->var, t);
      i += k - 1;
    } else {
      sv[nb++] = bind(el, body->var, av[i]);
    }
    body = body->a;
  }
  kg_ev r = kg_elab_eval(el, body);
  for (int j = nb - 1; j >= 0; j--) unbind(el, sv[j]);
  el->inline_depth--;
  return r;
}

static kg_ev eval_call(kg_elab *el, const kg_ast *n) {
  kg_ev av[16];
  int na = 0;
  if (n->a) av[na++] = kg_elab_eval(el, n->a);
  for (uint32_t i = 0; i < n->n_kids; i++) {
    if (na == 16) return kg_elab_error(el, n, KG_E_LIMIT, "more than 15 arguments in one call");
    av[na++] = kg_elab_eval(el, n->kids[i]);
  }
  for (int i = 0; i < na; i++)
    if (av[i].kind == EV_ERR) return kg_ev_err();
  bool host;
  kg_ev hv = kg_hf_call(el, n, av, na, &host); /* item(), sizes, views */
  if (host) return hv;
  const kg_member *m = n->member;
  if (n->k == KG_AST_Call && m->n_params != n->n_kids)
    return kg_elab_error(el, n, KG_E_FORMAT, "call passes %u argument(s), but %s has %u parameter(s)", n->n_kids, m->key, m->n_params);
  /* (a void method's node is typed unit in a quotation: F# writes Microsoft.FSharp.Core.Unit) */
  if (n->k == KG_AST_Call && m->ret && n->ty && strcmp(m->ret, n->ty) != 0 && !(kg_clr_is_unit(m->ret) && kg_clr_is_unit(n->ty)))
    return kg_elab_error(el, n, KG_E_FORMAT, "node type %s differs from the return type %s of %s", n->ty, m->ret, m->key);
  const kg_doc_def *def = find_def(el, m);
  if (def) return inline_def(el, n, def, av, na);
  /* F#'s pipes, as model code chains functions: x |> f is f x, f <| x too, (a, b) ||> f is
   * f a b, (a, b, c) |||> f is f a b c (docs/fsharp.md) */
  if (n->k == KG_AST_Call && strcmp(m->decl, "Microsoft.FSharp.Core.Operators") == 0) {
    if (strcmp(m->name, "op_PipeRight") == 0 && na == 2) return kg_elab_apply(el, n, av[1], av[0]);
    if (strcmp(m->name, "op_PipeLeft") == 0 && na == 2) return kg_elab_apply(el, n, av[0], av[1]);
    if ((strcmp(m->name, "op_PipeRight2") == 0 && na == 3) || (strcmp(m->name, "op_PipeRight3") == 0 && na == 4)) {
      kg_ev f = av[na - 1];
      for (int i = 0; i < na - 1 && f.kind != EV_ERR; i++) f = kg_elab_apply(el, n, f, av[i]);
      return f;
    }
  }
  kg_ev rv;
  if (kg_elab_seq_call(el, n, m, av, na, &rv)) return rv; /* ranges, Seq.iter (seqloop.c) */
  if (kg_elab_effect_member(el, n, m, av, na, &rv)) return rv;
  const kg_member_row *row = kg_member_lookup(m);
  if (!row && kg_elab_in_place(el, n, m, av, na, &rv)) return rv;
  if (!row) {
    /* members whose result's shape depends on the data: no compiled kernel can have it */
    static const char *const data_shaped[] = {"masked_select", "nonzero", "argwhere", "unique", "unique_consecutive", "nonzero_as_list"};
    for (size_t i = 0; strncmp(m->decl, "TorchSharp", 10) == 0 && i < sizeof data_shaped / sizeof *data_shaped; i++)
      if (!strcmp(m->name, data_shaped[i]))
        return kg_elab_error(el, n, KG_E_UNSUPPORTED,
                             "%s's result has a data-dependent shape (as many elements as the data selects), which kgen's compiled kernels "
                             "cannot have: their output shapes follow from the input shapes; keep the shape with torch.where(mask, x, other) or "
                             "x.masked_fill(...), or run this part outside kgen",
                             m->name);
    if (strncmp(m->decl, "TorchSharp", 10) == 0)
      return kg_elab_error(el, n, KG_E_UNSUPPORTED, "TorchSharp member %s is not supported by kgen (yet); see docs/ops.md for what is", m->key);
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "unknown member %s (not a TorchSharp, F# core or System.Math member kgen knows, and not in \"definitions\")", m->key);
  }
  return kg_elab_call_row(el, n, row, av, na);
}

/* ---- control flow at entry level ---- */

static bool const_cond(kg_elab *el, const kg_ast *at, kg_ev c, bool *val, const char *what) {
  if (c.kind == EV_ERR) return false;
  if (c.kind == EV_CONST) {
    *val = kg_cval_truthy(c.c);
    return true;
  }
  kg_elab_error(el, at, KG_E_TYPE, "%s needs a bool condition", what);
  return false;
}

/* Does evaluating n assign variables or loop? (Such branches cannot be selects.) */
static bool has_effects(const kg_ast *n) {
  if (!n) return false;
  if (n->k == KG_AST_VarSet || n->k == KG_AST_WhileLoop || n->k == KG_AST_ForIntegerRangeLoop) return true;
  if (has_effects(n->a) || has_effects(n->b) || has_effects(n->c)) return true;
  for (uint32_t i = 0; i < n->n_kids; i++)
    if (has_effects(n->kids[i])) return true;
  return false;
}

/* `if c then a else b` on a run-time bool at entry level, with pure branches of
 * one dtype and shape: both branches are computed and selected element-wise
 * (no read back to the host). Other run-time branches are host control flow. */
static kg_ev runtime_select(kg_elab *el, const kg_ast *n, kg_ev cond) {
  if (has_effects(n->b) || has_effects(n->c)) return kg_hf_if(el, n, cond);
  kg_ev a = kg_elab_eval(el, n->b);
  if (a.kind == EV_ERR) return a;
  kg_ev b = kg_elab_eval(el, n->c);
  if (b.kind == EV_ERR) return b;
  if (a.kind == EV_UNIT && b.kind == EV_UNIT) return a;
  uint32_t ia, ib;
  if ((a.kind != EV_NODE && a.kind != EV_CONST) || (b.kind != EV_NODE && b.kind != EV_CONST)) return kg_hf_if(el, n, cond);
  if (!as_node(el, n->b, a, &ia) || !as_node(el, n->c, b, &ib)) return kg_ev_err();
  const kg_gnode *na = gnode(el, ia), *nb = gnode(el, ib);
  /* unlike values: a branch of the plan (the nodes just built are dead and dropped) */
  if (na->dtype != nb->dtype || na->vkind != nb->vkind || !kg_shape_equal(&na->shape, &nb->shape)) return kg_hf_if(el, n, cond);
  uint32_t in[3] = {cond.id, ia, ib};
  if (na->vkind == KG_V_TENSOR) {
    /* a condition computed from item() reads is computed again on the device: no read */
    uint32_t dc = kg_hf_device_cond(el, n->a, cond.id);
    if (dc != KG_NONE) in[0] = dc;
    return tensor_op(el, n, KG_OP_WHERE, in, 3, NULL, NULL, KG_DT_NONE);
  }
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_WHERE, g.dtype = g.cdtype = na->dtype, g.vkind = KG_V_SCALAR, g.n_in = 3;
  memcpy(g.in, in, sizeof in);
  return ev_node(add_node(el, n, &g));
}

/* ---- the evaluator ---- */

/* `use x = e in body` arrives as Let(x, e, TryFinally(body, fin)) where fin only disposes x:
 * IfThenElse(TypeTest(IDisposable, Coerce(x)), UnboxGeneric(x).Dispose(), ()) for a type the
 * compiler cannot prove disposable, or a direct x.Dispose() (docs/fsharp.md). kgen's values
 * are not resources, so such a try/finally is its body. Any other finally is rejected. */
bool kg_elab_dispose_only(const kg_ast *n) {
  switch (n->k) {
  case KG_AST_Call:
    return n->member && strcmp(n->member->name, "Dispose") == 0 && n->n_kids == 0 && n->a;
  case KG_AST_IfThenElse:
    return n->a->k == KG_AST_TypeTest && kg_elab_dispose_only(n->b) && kg_elab_dispose_only(n->c);
  case KG_AST_Sequential: return kg_elab_dispose_only(n->a) && kg_elab_dispose_only(n->b);
  case KG_AST_Value: return n->value.kind == KG_VAL_NULL;
  default: return false;
  }
}

kg_ev kg_elab_eval(kg_elab *el, const kg_ast *n) {
  switch (n->k) {
  case KG_AST_Var:
    if (!el->bound[n->var])
      return kg_elab_error(el, n, KG_E_FORMAT, "variable '%s' (#%u) is used outside its scope", el->doc->vars[n->var].name, n->var);
    return el->env[n->var];
  case KG_AST_Value: return value_ev(el, n, &n->value, n->ty);
  case KG_AST_ValueWithName:
    if (n->value.kind == KG_VAL_OPAQUE) {
      if (!kg_clr_is_tensor(n->ty)) return kg_elab_error(el, n, KG_E_UNSUPPORTED, "captured value '%s' of type %s is not supported (captured tensors are)", n->name, n->ty);
      if (el->fn) return kg_elab_error(el, n, KG_E_UNSUPPORTED, "captured tensor '%s' used inside a map lambda", n->name);
      return capture(el, n);
    }
    return value_ev(el, n, &n->value, n->ty);
  case KG_AST_Lambda: {
    kg_ev f = ev_make(EV_FUNC);
    f.lam = n;
    if (!el->fn) f.clo = closure_of(el, n); /* map lambdas are scalar code built where they are written */
    return f;
  }
  case KG_AST_Application: {
    kg_ev f = kg_elab_eval(el, n->a);
    if (f.kind == EV_ERR) return f;
    kg_ev arg = kg_elab_eval(el, n->b);
    return kg_elab_apply(el, n, f, arg);
  }
  case KG_AST_Let: {
    kg_ev lr;
    if (kg_elab_seq_let(el, n, &lr)) return lr; /* `for x in xs` (seqloop.c) */
    if (el->doc->vars[n->var].is_mutable && el->fn) return kg_elab_scalar_let_mutable(el, n);
    kg_ev v = kg_elab_eval(el, n->a);
    if (v.kind == EV_ERR) return v;
    if (el->fn && (v.kind == EV_SX || v.kind == EV_MVAR)) {
      /* snapshot: later assignments to mutable locals must not change this value */
      kg_dtype vt = kg_ev_dtype(el, v);
      uint32_t var = kg_kvar_new(&el->fn->body, el->doc->vars[n->var].name, vt);
      kg_ks s = kg_ks_make(KS_DECL);
      s.a = var, s.b = kg_elab_sx(el, v, vt);
      kg_ks_add(&el->cur, s);
      v = ev_make(EV_SX);
      v.id = kg_kx_var(&el->fn->body, var);
    }
    saved sv = bind(el, n->var, v);
    kg_ev r = kg_elab_eval(el, n->b);
    unbind(el, sv);
    return r;
  }
  case KG_AST_VarSet:
    if (el->fn) return kg_elab_scalar_varset(el, n);
    if (!el->doc->vars[n->var].is_mutable)
      return kg_elab_error(el, n, KG_E_FORMAT, "assignment to immutable variable '%s'", el->doc->vars[n->var].name);
    if (!el->bound[n->var]) return kg_elab_error(el, n, KG_E_FORMAT, "assignment to '%s' outside its scope", el->doc->vars[n->var].name);
    {
      kg_ev v = kg_elab_eval(el, n->a);
      if (v.kind == EV_ERR) return v;
      el->env[n->var] = v; /* straight-line code: rebinding is exact */
      return ev_make(EV_UNIT);
    }
  case KG_AST_Sequential: {
    kg_ev a = kg_elab_eval(el, n->a);
    if (a.kind == EV_ERR) return a;
    return kg_elab_eval(el, n->b);
  }
  case KG_AST_IfThenElse: {
    if (el->fn) return kg_elab_scalar_if(el, n);
    kg_ev cv = kg_elab_eval(el, n->a);
    if (cv.kind == EV_NODE && gnode(el, cv.id)->vkind == KG_V_SCALAR && gnode(el, cv.id)->dtype == KG_BOOL)
      return runtime_select(el, n, cv);
    bool c;
    if (!const_cond(el, n->a, cv, &c, "if/then/else")) return kg_ev_err();
    return kg_elab_eval(el, c ? n->b : n->c);
  }
  case KG_AST_ForIntegerRangeLoop: return kg_elab_for(el, n);
  case KG_AST_WhileLoop: return el->fn ? kg_elab_scalar_while(el, n) : kg_hf_while(el, n);
  case KG_AST_Call:
  case KG_AST_NewObject:
    if (n->k == KG_AST_NewObject) {
      if (n->member && strncmp(n->member->decl, "System.Nullable`1", 17) == 0 && n->n_kids == 1) return kg_elab_eval(el, n->kids[0]);
      return kg_elab_error(el, n, KG_E_UNSUPPORTED, "constructing %s is not supported", n->member ? n->member->decl : n->ty);
    }
    return eval_call(el, n);
  case KG_AST_PropertyGet: {
    /* F#'s nan / infinity / nanf / infinityf are properties of Operators, not constants */
    if (!n->a && n->n_kids == 0 && n->member && strcmp(n->member->decl, "Microsoft.FSharp.Core.Operators") == 0) {
      const char *p = n->member->name;
      bool single = strcmp(p, "NaNSingle") == 0 || strcmp(p, "InfinitySingle") == 0;
      if (strncmp(p, "NaN", 3) == 0 || strncmp(p, "Infinity", 8) == 0)
        return ev_const(kg_cval_float(single ? KG_F32 : KG_F64, strncmp(p, "NaN", 3) == 0 ? NAN : INFINITY));
    }
    return eval_call(el, n);
  }
  case KG_AST_FieldGet: {
    const kg_member_row *row = n->member ? kg_member_lookup(n->member) : NULL;
    if (row && (row->handler == H_DTYPE || row->handler == H_LAYOUT)) return kg_elab_call_row(el, n, row, NULL, 0);
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "field %s is not supported", n->member ? n->member->key : "?");
  }
  case KG_AST_NewTuple:
  case KG_AST_NewStructTuple:
  case KG_AST_NewArray: {
    kg_ev t = ev_make(n->k == KG_AST_NewArray ? EV_ARRAY : EV_TUPLE);
    t.n = n->n_kids;
    t.items = kg_arena_alloc(el->arena, (n->n_kids + 1) * sizeof *t.items);
    for (uint32_t i = 0; i < n->n_kids; i++) {
      t.items[i] = kg_elab_eval(el, n->kids[i]);
      if (t.items[i].kind == EV_ERR) return t.items[i];
    }
    return t;
  }
  case KG_AST_TupleGet: {
    kg_ev t = kg_elab_eval(el, n->a);
    if (t.kind == EV_ERR) return t;
    if (t.kind != EV_TUPLE || n->index < 0 || (uint32_t)n->index >= t.n)
      return kg_elab_error(el, n, KG_E_TYPE, "TupleGet %d of something that is not a tuple of that size", n->index);
    return t.items[n->index];
  }
  case KG_AST_Coerce: return kg_elab_eval(el, n->a);
  case KG_AST_DefaultValue: {
    kg_dtype t = kg_dtype_from_clr(n->ty);
    if (t != KG_DT_NONE) return ev_const(kg_cval_int(t, 0));
    return ev_make(EV_NULL);
  }
  case KG_AST_TryFinally:
    if (!kg_elab_dispose_only(n->b))
      return kg_elab_error(el, n, KG_E_UNSUPPORTED, "F# construct 'try/finally' is not supported (only the one `use` writes, whose finally disposes its value)");
    return kg_elab_eval(el, n->a);
  case KG_AST_NewUnionCase: return kg_elab_list_case(el, n);
  case KG_AST_LetRecursive:
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "F# construct 'let rec' (LetRecursive) is not supported: kernels cannot recurse");
  case KG_AST_PropertySet:
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "F# construct 'PropertySet' (in-place assignment such as t.[i] <- v) is not supported");
  default:
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "F# construct '%s' is not supported", kg_ast_kind_name(n->k));
  }
}

/* ---- entry ---- */

static bool flatten_outputs(kg_elab *el, const kg_ast *at, kg_ev v) {
  switch (v.kind) {
  case EV_ERR: return false;
  case EV_TUPLE:
    for (uint32_t i = 0; i < v.n; i++)
      if (!flatten_outputs(el, at, v.items[i])) return false;
    return true;
  case EV_NODE:
  case EV_CONST: {
    uint32_t id;
    if (!as_node(el, at, v, &id)) return false;
    KG_VEC_PUSH(el->g->outputs, id);
    return true;
  }
  default:
    kg_elab_error(el, at, KG_E_TYPE, "an entry must return tensors, numbers or tuples of them");
    return false;
  }
}

const kg_ast *kg_fe_after_unpacking(const kg_ast *e) {
  if (e->k != KG_AST_Let) return NULL;
  for (; e->k == KG_AST_Let; e = e->b)
    if (e->a->k != KG_AST_TupleGet || e->a->a->k != KG_AST_Var) return NULL;
  return e->k == KG_AST_Lambda ? e : NULL;
}

bool kg_elaborate_plan(kg_arena *arena, const kg_doc *doc, uint32_t entry, const kg_sig *sig, kg_graph *g, kg_plan *plan,
                       kg_diag *d) {
  KG_ASSERT(entry < doc->n_entries);
  const kg_doc_entry *en = &doc->entries[entry];
  kg_elab el;
  memset(&el, 0, sizeof el);
  el.arena = arena, el.doc = doc, el.d = d, el.g = g;
  el.plan = plan, el.blk = 0, el.mark = 0;
  el.sig = sig ? sig : en->sig;
  el.env = kg_arena_alloc(arena, (doc->n_vars + 1) * sizeof *el.env);
  el.bound = kg_arena_alloc(arena, doc->n_vars + 1);
  uint32_t nc = el.sig ? el.sig->n_captures : 0;
  el.capture_node = kg_arena_alloc(arena, (nc + 1) * sizeof *el.capture_node);
  for (uint32_t i = 0; i < nc; i++) el.capture_node[i] = KG_NONE;
  uint32_t before = d->n;

  /* Parameters: the Lambda chain (a tupled lambda is one Lambda over a tuple var). */
  const kg_ast *body = en->expr;
  uint32_t np = 0;
  const char *sig_path = kg_arena_printf(arena, "%s.signature", en->path);
  while (body->k == KG_AST_Lambda) {
    const kg_doc_var *v = &doc->vars[body->var];
    const char *tys[16];
    int nt = 1;
    tys[0] = v->type;
    bool tuple = kg_clr_is_tuple(v->type);
    if (tuple) nt = kg_clr_generic_args(arena, v->type, tys, 16);
    kg_ev items[16];
    for (int t = 0; t < nt; t++) {
      if (kg_clr_is_unit(tys[t])) { items[t] = ev_make(EV_UNIT); continue; }
      bool is_tensor = kg_clr_is_tensor(tys[t]);
      kg_dtype sdt = kg_dtype_from_clr(tys[t]);
      if (!is_tensor && sdt == KG_DT_NONE) {
        kg_diag_add(d, KG_E_UNSUPPORTED, body->path, kg_fe_srcloc(arena, doc, body),
                    "entry parameter '%s' has type %s; parameters must be tensors or numbers", v->name, tys[t]);
        return false;
      }
      if (!el.sig || np >= el.sig->n_params) {
        if (!is_tensor) { /* a scalar parameter's dtype is its CLR type */
          kg_sig_param sp;
          memset(&sp, 0, sizeof sp);
          sp.is_scalar = true, sp.dtype = sdt;
          const char *nm = tuple ? kg_arena_printf(arena, "%s_%d", v->name, t) : v->name;
          items[t] = ev_node(input_node(&el, body, &sp, nm, false, np++));
          continue;
        }
        kg_diag_add(d, KG_E_ARG, el.sig ? sig_path : en->path, NULL,
                    "entry '%s' has more parameters than its signature describes (parameter %u '%s' is a tensor: its dtype and shape are needed; give a signature in the document or with --sig)",
                    en->name, np + 1, v->name);
        return false;
      }
      const kg_sig_param *sp = &el.sig->params[np];
      if (is_tensor == sp->is_scalar) {
        kg_diag_add(d, KG_E_ARG, kg_arena_printf(arena, "%s.params[%u]", sig_path, np), NULL,
                    "signature parameter %u is a %s but entry parameter '%s' is %s", np + 1,
                    sp->is_scalar ? "scalar" : "tensor", v->name, is_tensor ? "a tensor" : tys[t]);
        return false;
      }
      const char *nm = tuple ? kg_arena_printf(arena, "%s_%d", v->name, t) : v->name;
      kg_sig_param spc = *sp;
      if (!is_tensor && spc.dtype != sdt) spc.dtype = sdt; /* .NET type decides a scalar's dtype */
      items[t] = ev_node(input_node(&el, body, &spc, nm, false, np++));
    }
    if (tuple) {
      kg_ev tv = ev_make(EV_TUPLE);
      tv.n = (uint32_t)nt;
      tv.items = kg_arena_alloc(arena, (size_t)nt * sizeof *tv.items);
      memcpy(tv.items, items, (size_t)nt * sizeof *items);
      bind(&el, body->var, tv);
    } else {
      bind(&el, body->var, items[0]);
    }
    body = body->a;
    if (tuple && kg_fe_after_unpacking(body)) { /* the tuple's unpacking, then more parameters */
      for (; body->k == KG_AST_Let; body = body->b) {
        kg_ev uv = kg_elab_eval(&el, body->a);
        if (uv.kind == EV_ERR) return false;
        bind(&el, body->var, uv);
      }
    }
  }
  g->n_entry_params = g->params.n;
  if (el.sig && np < el.sig->n_params) {
    kg_diag_add(d, KG_E_ARG, sig_path, NULL, "signature describes %u parameters but entry '%s' takes %u", el.sig->n_params, en->name, np);
    return false;
  }
  kg_ev r = kg_elab_eval(&el, body);
  if (r.kind == EV_ERR || d->n > before) {
    if (g->warnings && d->n > before) { /* what kgen warned about may be why it failed: its lines, without their paths */
      kg_diag_item *it = &d->items[d->n - 1];
      kg_strbuf b;
      kg_sb_init(&b);
      kg_sb_puts(&b, it->msg);
      for (const char *l = g->warnings; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (strncmp(l, "  at ", 5) != 0) kg_sb_printf(&b, "\nnote: earlier, %.*s", (int)len, l);
        l += len + (e != NULL);
      }
      free(it->msg);
      it->msg = kg_sb_take(&b);
    }
    return false;
  }
  if (!flatten_outputs(&el, body, r)) return false;
  kg_elab_writebacks(&el);
  kg_hf_flush(&el);
  if (g->outputs.n == 0) {
    kg_diag_add(d, KG_E_TYPE, en->path, NULL, "entry '%s' returns nothing", en->name);
    return false;
  }
  return d->n == before;
}
