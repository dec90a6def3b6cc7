/* frontend/hostflow.c — entry-level control flow over tensors: the host plan.
 *
 * A quotation holds every path through an entry. Conditions and loop bounds known at
 * compile time are folded (short loops unrolled, so they fuse); the rest becomes the
 * host plan (ir/plan.c) while the typed program still gets every op:
 *
 *   let mutable h = h0                      FOR %9 = 0 .. %4  carried(%10 <- %2)
 *   for t in 0 .. x.shape.[0] - 1 do          VIEW %11 = select(%0, dim 0, index %9)
 *       h <- torch.tanh(x.[t] + h * w)        NODES %12 %13 %14      (tanh(%11 + %10 * %1))
 *   h                                         yield(%14)
 *                                           results(%15)          return %15
 *
 * Loop-carried variables are the mutable locals a loop body assigns (found by scanning
 * the body for VarSet): each becomes a phi (a PLANVAL) bound while the body is
 * evaluated once, symbolically; what the variable holds at the end of the body is
 * the yielded value. A tuple-valued variable carries each of its items. An `if` on a
 * run-time condition whose branches assign variables (or give unlike values) becomes
 * a plan IF with one result per assigned variable; `x.item<T>()` is a READ (device to
 * host), `select` / `narrow` / `unsqueeze` / `x.[i]` are VIEWs (no copy) and sizes known only at
 * run time are SIZE steps. A pure `if` between like values stays a select in the
 * kernels (elab.c); when its condition was computed from item() reads, the
 * condition is recomputed on the device (kg_hf_device_cond), so no read is needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

/* Entry-level loops with at most this many iterations known at compile time are
 * unrolled into the program (their iterations fuse); others are plan loops. */
#define KG_UNROLL_MAX 4
#define MAX_CARRIED 64
#define MAX_NEST 32 /* run-time loops and branches inside each other */

typedef KG_VEC(uint32_t) idvec;

static kg_pop pop_make(kg_pop_kind k, const kg_elab *el, const kg_ast *at) {
  kg_pop o;
  memset(&o, 0, sizeof o);
  o.kind = (uint8_t)k;
  o.a = o.b = o.c = o.body = o.els = o.cond = o.region = KG_NONE;
  o.path = at ? at->path : NULL;
  o.srcloc = at ? kg_fe_srcloc(el->arena, el->doc, at) : NULL;
  return o;
}

void kg_hf_flush(kg_elab *el) {
  uint32_t n = el->g->nodes.n;
  if (!el->plan || n <= el->mark) {
    el->mark = n;
    return;
  }
  kg_pop o = pop_make(KG_P_NODES, el, NULL);
  o.n_nodes = n - el->mark;
  o.nodes = kg_arena_alloc(el->arena, o.n_nodes * sizeof *o.nodes);
  for (uint32_t i = 0; i < o.n_nodes; i++) o.nodes[i] = el->mark + i;
  kg_plan_op(el->plan, el->blk, o);
  el->mark = n;
}

static uint32_t planval(kg_elab *el, const kg_ast *at, kg_dtype dt, kg_vkind vk, const kg_shape *sh) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_PLANVAL;
  g.dtype = g.cdtype = (uint8_t)dt;
  g.vkind = (uint8_t)vk;
  if (vk == KG_V_TENSOR && sh) g.shape = *sh;
  return kg_elab_add_node(el, at, &g);
}

static uint32_t planval_like(kg_elab *el, const kg_ast *at, uint32_t id) {
  const kg_gnode *n = &el->g->nodes.v[id];
  kg_shape sh = n->shape;
  return planval(el, at, (kg_dtype)n->dtype, (kg_vkind)n->vkind, &sh);
}

static uint32_t *arr(kg_elab *el, const idvec *v) {
  uint32_t *a = kg_arena_alloc(el->arena, (v->n + 1) * sizeof *a);
  if (v->n) memcpy(a, v->v, v->n * sizeof *a);
  return a;
}

/* ---- values as leaves (tuples flattened) ---- */

static bool flatten(kg_elab *el, const kg_ast *at, kg_ev v, idvec *out, const char *what) {
  switch (v.kind) {
  case EV_ERR: return false;
  case EV_UNIT: return true;
  case EV_NODE:
  case EV_CONST: {
    uint32_t id;
    if (!kg_elab_as_node(el, at, v, &id)) return false;
    KG_VEC_PUSH(*out, id);
    return true;
  }
  case EV_TUPLE:
    for (uint32_t i = 0; i < v.n; i++)
      if (!flatten(el, at, v.items[i], out, what)) return false;
    return true;
  default:
    kg_elab_error(el, at, KG_E_UNSUPPORTED, "%s must be tensors, numbers or tuples of them (a run-time branch or loop cannot carry this value)", what);
    return false;
  }
}

/* v with its leaves replaced by ids[*k ..] (same structure). */
static kg_ev rebuild(kg_elab *el, kg_ev v, const uint32_t *ids, uint32_t *k) {
  switch (v.kind) {
  case EV_NODE:
  case EV_CONST: return kg_ev_node(ids[(*k)++]);
  case EV_TUPLE: {
    kg_ev t = v;
    t.items = kg_arena_alloc(el->arena, (v.n + 1) * sizeof *t.items);
    for (uint32_t i = 0; i < v.n; i++) t.items[i] = rebuild(el, v.items[i], ids, k);
    return t;
  }
  default: return v;
  }
}

static const char *type_str(kg_elab *el, uint32_t id) {
  const kg_gnode *n = &el->g->nodes.v[id];
  if (n->vkind == KG_V_SCALAR) return kg_arena_printf(el->arena, "a %s number", kg_dtype_name((kg_dtype)n->dtype));
  return kg_arena_printf(el->arena, "%s%s", kg_dtype_name((kg_dtype)n->dtype), kg_elab_shape_str(el, &n->shape));
}

static bool same_type(const kg_elab *el, uint32_t a, uint32_t b) {
  const kg_gnode *x = &el->g->nodes.v[a], *y = &el->g->nodes.v[b];
  return x->dtype == y->dtype && x->vkind == y->vkind && (x->vkind == KG_V_SCALAR || kg_shape_equal(&x->shape, &y->shape));
}

/* Mutable locals bound outside n that n assigns (VarSet), in first-assignment order. */
static void scan_sets(const kg_elab *el, const kg_ast *n, idvec *vars) {
  if (!n) return;
  if (n->k == KG_AST_VarSet && el->bound[n->var]) {
    bool have = false;
    for (uint32_t i = 0; i < vars->n && !have; i++) have = vars->v[i] == n->var;
    if (!have) KG_VEC_PUSH(*vars, n->var);
  }
  scan_sets(el, n->a, vars), scan_sets(el, n->b, vars), scan_sets(el, n->c, vars);
  for (uint32_t i = 0; i < n->n_kids; i++) scan_sets(el, n->kids[i], vars);
}

static const char *var_name(const kg_elab *el, uint32_t v) { return el->doc->vars[v].name; }

/* The leaves of every carried variable; vstart[i] = first leaf of variable i. */
static bool carried_leaves(kg_elab *el, const kg_ast *at, const idvec *vars, idvec *leaves, uint32_t *vstart) {
  for (uint32_t i = 0; i < vars->n; i++) {
    vstart[i] = leaves->n;
    const char *what = kg_arena_printf(el->arena, "variables assigned in a run-time loop or branch ('%s')", var_name(el, vars->v[i]));
    if (!flatten(el, at, el->env[vars->v[i]], leaves, what)) return false;
  }
  vstart[vars->n] = leaves->n;
  return true;
}

/* Checks that the leaves `now` of the carried variables match `before` (count, dtype,
 * shape); names the variable that changed. */
static bool check_carried(kg_elab *el, const kg_ast *at, const idvec *vars, const uint32_t *vstart, const idvec *before,
                          const idvec *now, const uint32_t *nstart, const char *where) {
  for (uint32_t i = 0; i < vars->n; i++) {
    uint32_t nb = vstart[i + 1] - vstart[i], nn = nstart[i + 1] - nstart[i];
    if (nb != nn) {
      kg_elab_error(el, at, KG_E_TYPE, "'%s' holds %u value(s) before %s and %u after it", var_name(el, vars->v[i]), nb, where, nn);
      return false;
    }
    for (uint32_t j = 0; j < nb; j++) {
      uint32_t a = before->v[vstart[i] + j], b = now->v[nstart[i] + j];
      if (!same_type(el, a, b)) {
        kg_elab_error(el, at, KG_E_SHAPE,
                      "'%s' is %s before %s and %s after it: a value carried by run-time control flow must keep its dtype and shape",
                      var_name(el, vars->v[i]), type_str(el, a), where, type_str(el, b));
        return false;
      }
    }
  }
  return true;
}

static bool host_scalar(kg_elab *el, const kg_ast *at, kg_ev v, uint32_t *id, const char *what) {
  if (v.kind == EV_ERR) return false;
  if ((v.kind != EV_CONST && v.kind != EV_NODE) || (v.kind == EV_NODE && el->g->nodes.v[v.id].vkind != KG_V_SCALAR)) {
    kg_elab_error(el, at, KG_E_TYPE, "%s must be a number", what);
    return false;
  }
  return kg_elab_as_node(el, at, v, id);
}

/* ---- for ---- */

/* Runs `body` (FOR body / WHILE cond+body) of the loop op `opid` with the carried
 * variables bound to phis; fills phi / init / yld / res. */
typedef struct loopctx {
  idvec vars, init, phi;
  uint32_t vstart[MAX_CARRIED + 1];
  kg_ev tmpl[MAX_CARRIED];
} loopctx;

static bool loop_begin(kg_elab *el, const kg_ast *at, loopctx *L) {
  if (L->vars.n > MAX_CARRIED) {
    kg_elab_error(el, at, KG_E_LIMIT, "a loop carries more than %d variables", MAX_CARRIED);
    return false;
  }
  if (!carried_leaves(el, at, &L->vars, &L->init, L->vstart)) return false;
  for (uint32_t i = 0; i < L->vars.n; i++) L->tmpl[i] = el->env[L->vars.v[i]];
  return true;
}

/* after kg_hf_flush: phis for every leaf, variables rebound to them */
static void bind_phis(kg_elab *el, const kg_ast *at, loopctx *L) {
  for (uint32_t i = 0; i < L->init.n; i++) {
    uint32_t p = planval_like(el, at, L->init.v[i]);
    KG_VEC_PUSH(L->phi, p);
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < L->vars.n; i++) el->env[L->vars.v[i]] = rebuild(el, L->tmpl[i], L->phi.v, &k);
}

/* the yields (the variables now), checked; after the body's flush: results */
static bool loop_end(kg_elab *el, const kg_ast *at, loopctx *L, uint32_t opid, const char *where) {
  idvec yld = {0};
  uint32_t ystart[MAX_CARRIED + 1];
  bool ok = carried_leaves(el, at, &L->vars, &yld, ystart) &&
            check_carried(el, at, &L->vars, L->vstart, &L->init, &yld, ystart, where);
  kg_hf_flush(el); /* yields that were constants are nodes of the body now */
  if (ok) {
    idvec res = {0};
    for (uint32_t i = 0; i < L->phi.n; i++) {
      uint32_t r = planval_like(el, at, L->phi.v[i]);
      KG_VEC_PUSH(res, r);
    }
    el->mark = el->g->nodes.n;
    kg_pop *o = &el->plan->ops.v[opid];
    o->n_car = L->phi.n;
    o->init = arr(el, &L->init), o->phi = arr(el, &L->phi), o->yld = arr(el, &yld), o->res = arr(el, &res);
    uint32_t k = 0;
    for (uint32_t i = 0; i < L->vars.n; i++) el->env[L->vars.v[i]] = rebuild(el, L->tmpl[i], o->res, &k);
    KG_VEC_FREE(res);
  }
  KG_VEC_FREE(yld);
  return ok;
}

static void loop_free(loopctx *L) {
  KG_VEC_FREE(L->vars);
  KG_VEC_FREE(L->init);
  KG_VEC_FREE(L->phi);
}

/* The start of every run-time loop or branch: the nesting limit, then the variables the
 * parts a and b (either may be NULL) assign, and their values now. */
static bool carried_begin(kg_elab *el, const kg_ast *n, const kg_ast *a, const kg_ast *b, loopctx *L) {
  memset(L, 0, sizeof *L);
  if (el->plan_depth >= MAX_NEST) {
    kg_elab_error(el, n, KG_E_LIMIT, "more than %d run-time loops and branches inside each other", MAX_NEST);
    return false;
  }
  scan_sets(el, a, &L->vars);
  scan_sets(el, b, &L->vars);
  if (loop_begin(el, n, L)) return true;
  loop_free(L);
  return false;
}

/* An integer loop at entry level (seqloop.c describes it): constant bounds with few
 * iterations are unrolled, the rest is a plan FOR. A step other than 1 loops over the
 * iteration count: FOR k = 0 .. floor((end - start) / step), the variable start + k * step
 * (host scalar steps), so the plan's FOR stays the one F#'s int loops need. */
kg_ev kg_hf_loop(kg_elab *el, const kg_iloop *L) {
  const kg_ast *n = L->at;
  uint64_t trips;
  if (kg_iloop_const_trips(L, &trips)) {
    if (trips == 0) return kg_ev_make(EV_UNIT); /* no iteration */
    if (trips <= KG_UNROLL_MAX || !el->plan) {
      if (trips > 4096)
        return kg_elab_error(el, n, KG_E_LIMIT, "a for loop over tensors is unrolled at compile time; %llu iterations exceed the limit of 4096",
                             (unsigned long long)trips);
      return kg_elab_loop_unrolled(el, L, trips);
    }
  }
  uint32_t sid, eid;
  kg_ev first = L->start; /* the value of the first iteration (step 1: the loop variable itself) */
  if (L->step != 1) {
    kg_ev s64 = kg_elab_scast(el, L->start_at, L->start, KG_I64), e64 = kg_elab_scast(el, L->end_at, L->end, KG_I64);
    if (s64.kind == EV_ERR || e64.kind == EV_ERR) return kg_ev_err();
    kg_ev k = kg_ev_const(kg_cval_int(KG_I64, L->step));
    kg_ev d[2] = {e64, s64};
    d[0] = kg_elab_sop(el, L->end_at, KG_OP_SUB, KG_I64, d, 2);
    d[1] = k;
    kg_ev last = kg_elab_sop(el, L->end_at, KG_OP_FLOORDIV, KG_I64, d, 2);
    if (!host_scalar(el, L->start_at, kg_ev_const(kg_cval_int(KG_I64, 0)), &sid, "a for loop's start") ||
        !host_scalar(el, L->end_at, last, &eid, "a for loop's end"))
      return kg_ev_err();
    first = s64;
  } else if (!host_scalar(el, L->start_at, L->start, &sid, "a for loop's start") || !host_scalar(el, L->end_at, L->end, &eid, "a for loop's end")) {
    return kg_ev_err();
  }
  loopctx C;
  if (!carried_begin(el, n, kg_iloop_scan(L), NULL, &C)) return kg_ev_err();
  kg_hf_flush(el);
  uint32_t iv = planval(el, n, (kg_dtype)el->g->nodes.v[sid].dtype, KG_V_SCALAR, NULL);
  bind_phis(el, n, &C);
  el->mark = el->g->nodes.n;
  kg_pop o = pop_make(KG_P_FOR, el, n);
  o.a = iv, o.b = sid, o.c = eid;
  o.body = kg_plan_block(el->plan);
  uint32_t opid = kg_plan_op(el->plan, el->blk, o);
  uint32_t outer = el->blk;
  el->blk = o.body;
  el->plan_depth++;
  kg_ev v = kg_ev_node(iv);
  if (L->step != 1) { /* start + k * step */
    kg_ev m[2] = {v, kg_ev_const(kg_cval_int(KG_I64, L->step))};
    m[1] = kg_elab_sop(el, n, KG_OP_MUL, KG_I64, m, 2);
    m[0] = first;
    v = kg_elab_scast(el, n, kg_elab_sop(el, n, KG_OP_ADD, KG_I64, m, 2), L->vt);
  }
  kg_ev r = v.kind == EV_ERR ? v : kg_elab_loop_body(el, L, v);
  el->plan_depth--;
  bool ok = r.kind != EV_ERR && loop_end(el, n, &C, opid, "an iteration of this for loop");
  el->blk = outer;
  loop_free(&C);
  return ok ? kg_ev_make(EV_UNIT) : kg_ev_err();
}

/* ---- while ---- */

kg_ev kg_hf_while(kg_elab *el, const kg_ast *n) {
  loopctx L;
  if (!carried_begin(el, n, n->a, n->b, &L)) return kg_ev_err();
  kg_hf_flush(el);
  bind_phis(el, n, &L);
  el->mark = el->g->nodes.n;
  kg_pop o = pop_make(KG_P_WHILE, el, n);
  o.cond = kg_plan_block(el->plan);
  o.body = kg_plan_block(el->plan);
  uint32_t opid = kg_plan_op(el->plan, el->blk, o);
  uint32_t outer = el->blk;
  el->blk = o.cond;
  el->plan_depth++;
  kg_ev c = kg_elab_eval(el, n->a);
  bool ok = c.kind != EV_ERR;
  uint32_t cid = KG_NONE;
  if (ok && c.kind == EV_CONST && kg_cval_truthy(c.c)) {
    kg_elab_error(el, n, KG_E_UNSUPPORTED, "this while loop's condition is always true: the loop would never end");
    ok = false;
  }
  if (ok) ok = host_scalar(el, n->a, c, &cid, "a while loop's condition");
  if (ok && el->g->nodes.v[cid].dtype != KG_BOOL) {
    kg_elab_error(el, n->a, KG_E_TYPE, "a while loop's condition must be a bool");
    ok = false;
  }
  kg_hf_flush(el);
  if (ok) {
    el->plan->ops.v[opid].c = cid;
    el->blk = o.body;
    kg_ev r = kg_elab_eval(el, n->b);
    ok = r.kind != EV_ERR && loop_end(el, n, &L, opid, "an iteration of this while loop");
  }
  el->plan_depth--;
  el->blk = outer;
  loop_free(&L);
  return ok ? kg_ev_make(EV_UNIT) : kg_ev_err();
}

/* ---- if ---- */

kg_ev kg_hf_if(kg_elab *el, const kg_ast *n, kg_ev cond) {
  uint32_t cid;
  if (!host_scalar(el, n->a, cond, &cid, "an if condition")) return kg_ev_err();
  loopctx L;
  if (!carried_begin(el, n, n->b, n->c, &L)) return kg_ev_err();
  kg_hf_flush(el);
  kg_pop o = pop_make(KG_P_IF, el, n);
  o.c = cid;
  o.body = kg_plan_block(el->plan);
  o.els = kg_plan_block(el->plan);
  uint32_t opid = kg_plan_op(el->plan, el->blk, o);
  uint32_t outer = el->blk;
  idvec y[2] = {{0}, {0}};
  uint32_t ys[2][MAX_CARRIED + 1];
  kg_ev rv[2];
  bool ok = true;
  for (int br = 0; br < 2 && ok; br++) {
    for (uint32_t i = 0; i < L.vars.n; i++) el->env[L.vars.v[i]] = L.tmpl[i];
    el->blk = br ? o.els : o.body;
    el->plan_depth++;
    rv[br] = kg_elab_eval(el, br ? n->c : n->b);
    el->plan_depth--;
    ok = rv[br].kind != EV_ERR && carried_leaves(el, n, &L.vars, &y[br], ys[br]) &&
         check_carried(el, n, &L.vars, L.vstart, &L.init, &y[br], ys[br], br ? "the else branch" : "the then branch");
    if (ok) ok = flatten(el, br ? n->c : n->b, rv[br], &y[br], "the values of an if on a run-time condition");
    kg_hf_flush(el);
  }
  el->blk = outer;
  for (uint32_t i = 0; i < L.vars.n; i++) el->env[L.vars.v[i]] = L.tmpl[i];
  if (ok && y[0].n != y[1].n) {
    kg_elab_error(el, n, KG_E_TYPE, "the branches of this if give different kinds of values");
    ok = false;
  }
  for (uint32_t i = L.init.n; ok && i < y[0].n; i++)
    if (!same_type(el, y[0].v[i], y[1].v[i])) {
      kg_elab_error(el, n, KG_E_SHAPE,
                    "the branches of this if give %s and %s: a value chosen at run time needs one dtype and shape",
                    type_str(el, y[0].v[i]), type_str(el, y[1].v[i]));
      ok = false;
    }
  kg_ev result = kg_ev_make(EV_UNIT);
  if (ok) {
    idvec res = {0};
    for (uint32_t i = 0; i < y[0].n; i++) {
      uint32_t r = y[0].v[i] == y[1].v[i] ? y[0].v[i] : planval_like(el, n, y[0].v[i]);
      KG_VEC_PUSH(res, r);
    }
    el->mark = el->g->nodes.n;
    kg_pop *op = &el->plan->ops.v[opid];
    /* only the values that differ between the branches are results */
    idvec a = {0}, b = {0}, r = {0};
    for (uint32_t i = 0; i < y[0].n; i++)
      if (y[0].v[i] != y[1].v[i]) {
        KG_VEC_PUSH(a, y[0].v[i]);
        KG_VEC_PUSH(b, y[1].v[i]);
        KG_VEC_PUSH(r, res.v[i]);
      }
    op->n_car = r.n;
    op->yld = arr(el, &a), op->yld2 = arr(el, &b), op->res = arr(el, &r);
    KG_VEC_FREE(a);
    KG_VEC_FREE(b);
    KG_VEC_FREE(r);
    uint32_t k = 0;
    for (uint32_t i = 0; i < L.vars.n; i++) el->env[L.vars.v[i]] = rebuild(el, L.tmpl[i], res.v, &k);
    result = rebuild(el, rv[0], res.v, &k);
    KG_VEC_FREE(res);
  }
  KG_VEC_FREE(y[0]);
  KG_VEC_FREE(y[1]);
  loop_free(&L);
  return ok ? result : kg_ev_err();
}

/* ---- host values: item(), sizes, views ---- */

static const kg_pop *defining_read(const kg_elab *el, uint32_t id) {
  if (!el->plan || el->g->nodes.v[id].op != KG_OP_PLANVAL) return NULL;
  for (uint32_t i = el->plan->ops.n; i-- > 0;)
    if (el->plan->ops.v[i].kind == KG_P_READ && el->plan->ops.v[i].a == id) return &el->plan->ops.v[i];
  return NULL;
}

/* memo per node: 0 unknown, 1 no, 2 yes (depends_on_read); the tensor form (tensorize) */
typedef struct tmemo { uint8_t *dep; uint32_t *tens; } tmemo;

static bool depends_on_read(const kg_elab *el, uint32_t id, tmemo *M) {
  if (M->dep[id]) return M->dep[id] == 2;
  const kg_gnode *n = &el->g->nodes.v[id];
  bool r = false;
  if (n->vkind != KG_V_SCALAR) r = false;
  else if (n->op == KG_OP_PLANVAL) r = defining_read(el, id) != NULL;
  else
    for (int j = 0; j < n->n_in && !r; j++) r = depends_on_read(el, n->in[j], M);
  M->dep[id] = r ? 2 : 1;
  return r;
}

/* the scalar expression c as a 0-dim tensor expression (same ops, dtypes and
 * compute dtypes, so the same values), reads replaced by their sources; shared
 * subexpressions are converted once */
static uint32_t tensorize(kg_elab *el, const kg_ast *at, uint32_t c, tmemo *M) {
  if (M->tens[c] != KG_NONE) return M->tens[c];
  const kg_gnode *n = &el->g->nodes.v[c];
  uint32_t r = c;
  if (n->op == KG_OP_PLANVAL) {
    const kg_pop *rd = defining_read(el, c);
    r = rd ? rd->b : c;
  } else if (depends_on_read(el, c, M)) {
    kg_gnode t = *n; /* n dangles once a recursive call adds a node: read the copy */
    for (int j = 0; j < t.n_in; j++) t.in[j] = tensorize(el, at, t.in[j], M);
    t.vkind = KG_V_TENSOR;
    memset(&t.shape, 0, sizeof t.shape);
    r = kg_elab_add_node(el, at, &t);
  }
  M->tens[c] = r;
  return r;
}

uint32_t kg_hf_device_cond(kg_elab *el, const kg_ast *at, uint32_t c) {
  uint32_t n = el->g->nodes.n;
  tmemo M = {kg_xcalloc(n + 1, 1), kg_xcalloc(n + 1, sizeof(uint32_t))};
  for (uint32_t i = 0; i < n; i++) M.tens[i] = KG_NONE;
  uint32_t r = depends_on_read(el, c, &M) ? tensorize(el, at, c, &M) : KG_NONE;
  free(M.dep);
  free(M.tens);
  return r;
}

static bool static_numel(const kg_shape *s, int64_t *n) {
  *n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->d[i].kind != KG_DIM_STATIC) return false;
    *n *= s->d[i].v;
  }
  return true;
}

static kg_ev item(kg_elab *el, const kg_ast *at, uint32_t t) {
  const kg_gnode *tn = &el->g->nodes.v[t];
  kg_dtype want = at->member && at->member->n_generic_args == 1 ? kg_dtype_from_clr(at->member->generic_args[0]) : KG_DT_NONE;
  if (want == KG_DT_NONE)
    return kg_elab_error(el, at, KG_E_UNSUPPORTED, "item<T>() needs its type argument T (genericArgs) to be a .NET number type kgen knows");
  if (tn->vkind != KG_V_TENSOR) return kg_elab_error(el, at, KG_E_TYPE, "item() of something that is not a tensor");
  int64_t numel;
  if (!static_numel(&tn->shape, &numel) || numel != 1)
    return kg_elab_error(el, at, KG_E_SHAPE, "item() needs a tensor of exactly one element; this one is %s%s",
                         kg_dtype_name((kg_dtype)tn->dtype), kg_elab_shape_str(el, &tn->shape));
  if (want != tn->dtype)
    return kg_elab_error(el, at, KG_E_TYPE, "item<%s>() of a %s tensor: TorchSharp requires the tensor's own type (convert it first with .to(...))",
                         kg_dtype_get(want)->clr, kg_dtype_name((kg_dtype)tn->dtype));
  kg_hf_flush(el);
  uint32_t v = planval(el, at, want, KG_V_SCALAR, NULL);
  el->mark = el->g->nodes.n;
  kg_pop o = pop_make(KG_P_READ, el, at);
  o.a = v, o.b = t;
  kg_plan_op(el->plan, el->blk, o);
  return kg_ev_node(v);
}

static kg_ev size_of(kg_elab *el, const kg_ast *at, uint32_t t, int d) {
  const kg_gnode *tn = &el->g->nodes.v[t];
  if (tn->shape.d[d].kind == KG_DIM_STATIC) {
    kg_ev c = kg_ev_make(EV_CONST);
    c.c = kg_cval_int(KG_I64, tn->shape.d[d].v);
    return c;
  }
  kg_hf_flush(el);
  uint32_t v = planval(el, at, KG_I64, KG_V_SCALAR, NULL);
  el->mark = el->g->nodes.n;
  kg_pop o = pop_make(KG_P_SIZE, el, at);
  o.a = v, o.b = t, o.dim = d;
  kg_plan_op(el->plan, el->blk, o);
  return kg_ev_node(v);
}

static bool const_int(const kg_ev *v, int64_t *out) {
  if (v->kind != EV_CONST || kg_dtype_is_float(v->c.dt)) return false;
  *out = v->c.i;
  return true;
}

static bool norm_dim(kg_elab *el, const kg_ast *at, kg_ev dv, int rank, int *d, const char *what) {
  int64_t v;
  if (!const_int(&dv, &v)) {
    kg_elab_error(el, at, KG_E_UNSUPPORTED, "%s(): the dimension must be a constant", what);
    return false;
  }
  if (v < -rank || v >= rank || rank == 0) {
    kg_elab_error(el, at, KG_E_SHAPE, "%s(): Dimension out of range (expected to be in range of [%d, %d], but got %lld)", what,
                  rank ? -rank : -1, rank ? rank - 1 : 0, (long long)v);
    return false;
  }
  *d = (int)(v < 0 ? v + rank : v);
  return true;
}

/* select (len < 0) or narrow (len >= 0) of t along dim d at index / start iv */
static kg_ev view(kg_elab *el, const kg_ast *at, uint32_t t, int d, kg_ev iv, int64_t len, const char *what) {
  /* a copy: host_scalar may add a node and move the array (found by kgen fuzz under ASan, seed 984) */
  const kg_gnode tcopy = el->g->nodes.v[t], *tn = &tcopy;
  uint32_t ii;
  if (!host_scalar(el, at, iv, &ii, len < 0 ? "an index" : "narrow()'s start")) return kg_ev_err();
  if (kg_dtype_is_float((kg_dtype)el->g->nodes.v[ii].dtype) || el->g->nodes.v[ii].dtype == KG_BOOL)
    return kg_elab_error(el, at, KG_E_TYPE, "%s: an index must be an integer", what);
  int64_t size = tn->shape.d[d].kind == KG_DIM_STATIC ? tn->shape.d[d].v : -1, ci;
  if (size >= 0 && len > size)
    return kg_elab_error(el, at, KG_E_SHAPE, "narrow(): length %lld exceeds dimension %d of size %lld", (long long)len, d, (long long)size);
  if (size >= 0 && const_int(&iv, &ci)) {
    if (len < 0 && (ci < -size || ci >= size))
      return kg_elab_error(el, at, KG_E_SHAPE, "%s: index %lld is out of bounds for dimension %d with size %lld", what, (long long)ci, d, (long long)size);
    if (len >= 0 && (ci < -size || ci > size || (ci < 0 ? ci + size : ci) + len > size))
      return kg_elab_error(el, at, KG_E_SHAPE, "narrow(): start %lld + length %lld exceeds dimension %d of size %lld", (long long)ci, (long long)len, d,
                           (long long)size);
  }
  kg_shape sh = tn->shape;
  if (len < 0) {
    for (int i = d; i + 1 < sh.rank; i++) sh.d[i] = sh.d[i + 1];
    sh.rank--;
  } else {
    sh.d[d] = (kg_dim){KG_DIM_STATIC, len};
  }
  kg_hf_flush(el);
  uint32_t v = planval(el, at, (kg_dtype)tn->dtype, KG_V_TENSOR, &sh);
  el->mark = el->g->nodes.n;
  kg_pop o = pop_make(KG_P_VIEW, el, at);
  o.a = v, o.b = t, o.c = ii, o.dim = d, o.view = len < 0 ? KG_VIEW_SELECT : KG_VIEW_NARROW, o.len = len < 0 ? 0 : len;
  kg_plan_op(el->plan, el->blk, o);
  return kg_ev_node(v);
}

static bool is_tensor_member(const kg_member *m) { return m && strcmp(m->decl, "TorchSharp.torch+Tensor") == 0; }

kg_ev kg_hf_call(kg_elab *el, const kg_ast *at, const kg_ev *av, int n, bool *handled) {
  const kg_member *m = at->member;
  *handled = false;
  if (!m) return kg_ev_err();
  const char *nm = m->name;
  if (!strncmp(nm, "get_", 4)) nm += 4; /* a property's getter (the key's spelling) */
  bool tm = is_tensor_member(m), torch_static = m->is_static && strcmp(m->decl, "TorchSharp.torch") == 0;
  if (strcmp(m->decl, "Microsoft.FSharp.Core.LanguagePrimitives+IntrinsicFunctions") == 0 && strcmp(nm, "GetArray") == 0) {
    *handled = true;
    int64_t i;
    if (n != 2) return kg_elab_error(el, at, KG_E_FORMAT, "GetArray takes an array and an index");
    if (av[0].kind == EV_RANGE) return kg_elab_range_item(el, at, av[0], av[1]); /* [| a .. b |].[i] */
    if (av[0].kind != EV_ARRAY) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "indexing an array kgen does not know at compile time");
    if (!const_int(&av[1], &i)) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "an array index (such as x.shape.[i]) must be a constant");
    if (i < 0 || (uint64_t)i >= av[0].n)
      return kg_elab_error(el, at, KG_E_SHAPE, "index %lld is outside the array of %u element(s)", (long long)i, av[0].n);
    return av[0].items[i];
  }
  if (!tm && !(torch_static && (!strcmp(nm, "select") || !strcmp(nm, "narrow") || !strcmp(nm, "unsqueeze")))) return kg_ev_err();
  bool known = !strcmp(nm, "item") || !strcmp(nm, "shape") || !strcmp(nm, "size") || !strcmp(nm, "dim") ||
               !strcmp(nm, "ndim") || !strcmp(nm, "Dimensions") || !strcmp(nm, "numel") || !strcmp(nm, "select") ||
               !strcmp(nm, "narrow") || !strcmp(nm, "TensorItems") || !strcmp(nm, "unsqueeze");
  if (!known) return kg_ev_err();
  /* unsqueeze, and select / narrow at a constant index, are graph ops (frontend/layout.c):
   * index arithmetic inside the kernels; a host plan VIEW only where the index is known at run time */
  if (!strcmp(nm, "unsqueeze")) return kg_ev_err();
  /* x.[TensorIndex...] and x.[tensor]: layout.c's indexing */
  if (!strcmp(nm, "TensorItems"))
    for (int i = 1; i < n; i++)
      if (av[i].kind == EV_TINDEX || kg_ev_is_tensor(el, av[i]) ||
          (av[i].kind == EV_ARRAY && av[i].n && (av[i].items[0].kind == EV_TINDEX || kg_ev_is_tensor(el, av[i].items[0]))))
        return kg_ev_err();
  if ((!strcmp(nm, "select") || !strcmp(nm, "narrow")) && n >= 3 && av[2].kind == EV_CONST && av[1].kind == EV_CONST &&
      kg_ev_is_tensor(el, av[0])) {
    const kg_gnode *vn = &el->g->nodes.v[av[0].id];
    int64_t dv = av[1].c.i < 0 ? av[1].c.i + vn->shape.rank : av[1].c.i;
    /* a static size: the bounds are checked now; a symbolic one is checked by the VIEW step at run time */
    if (dv < 0 || dv >= vn->shape.rank || vn->shape.d[dv].kind == KG_DIM_STATIC) return kg_ev_err();
  }
  *handled = true;
  if (n < 1 || !kg_ev_is_tensor(el, av[0])) return kg_elab_error(el, at, KG_E_TYPE, "%s needs a tensor", m->key);
  if (el->fn) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "%s inside a map lambda", m->key);
  uint32_t t = av[0].id;
  const kg_gnode *tn = &el->g->nodes.v[t];
  int rank = tn->shape.rank;
  if (!strcmp(nm, "item")) {
    if (n != 1) return kg_elab_error(el, at, KG_E_FORMAT, "item() takes no arguments");
    return item(el, at, t);
  }
  if (!strcmp(nm, "dim") || !strcmp(nm, "ndim") || !strcmp(nm, "Dimensions")) {
    kg_ev c = kg_ev_make(EV_CONST);
    c.c = kg_cval_int(KG_I64, rank);
    return c;
  }
  if (!strcmp(nm, "shape") || (!strcmp(nm, "size") && n == 1)) {
    kg_ev a = kg_ev_make(EV_ARRAY);
    a.n = (uint32_t)rank;
    a.items = kg_arena_alloc(el->arena, ((size_t)rank + 1) * sizeof *a.items);
    for (int d = 0; d < rank; d++) a.items[d] = size_of(el, at, t, d);
    return a;
  }
  if (!strcmp(nm, "size")) {
    int d;
    if (n != 2 || !norm_dim(el, at, av[1], rank, &d, "size")) return kg_ev_err();
    return size_of(el, at, t, d);
  }
  if (!strcmp(nm, "numel")) {
    kg_ev acc = kg_ev_make(EV_CONST);
    acc.c = kg_cval_int(KG_I64, 1);
    for (int d = 0; d < rank; d++) {
      kg_ev q[2] = {acc, size_of(el, at, t, d)};
      acc = kg_elab_sop(el, at, KG_OP_MUL, KG_I64, q, 2);
      if (acc.kind == EV_ERR) return acc;
    }
    return acc;
  }
  if (!strcmp(nm, "select")) {
    int d;
    if (n != 3 || !norm_dim(el, at, av[1], rank, &d, "select")) return n != 3 ? kg_elab_error(el, at, KG_E_FORMAT, "select(dim, index)") : kg_ev_err();
    return view(el, at, t, d, av[2], -1, "select()");
  }
  if (!strcmp(nm, "unsqueeze")) {
    int d;
    if (n != 2) return kg_elab_error(el, at, KG_E_FORMAT, "unsqueeze(dim)");
    if (rank >= KG_MAX_RANK) return kg_elab_error(el, at, KG_E_LIMIT, "unsqueeze() of a tensor of rank %d: kgen supports rank %d", rank, KG_MAX_RANK);
    if (!norm_dim(el, at, av[1], rank + 1, &d, "unsqueeze")) return kg_ev_err();
    kg_shape sh = tn->shape;
    for (int i = rank; i > d; i--) sh.d[i] = sh.d[i - 1];
    sh.d[d] = (kg_dim){KG_DIM_STATIC, 1};
    sh.rank++;
    kg_hf_flush(el);
    uint32_t v = planval(el, at, (kg_dtype)tn->dtype, KG_V_TENSOR, &sh);
    el->mark = el->g->nodes.n;
    kg_pop o = pop_make(KG_P_VIEW, el, at);
    o.a = v, o.b = t, o.dim = d, o.view = KG_VIEW_UNSQUEEZE;
    kg_plan_op(el->plan, el->blk, o);
    return kg_ev_node(v);
  }
  if (!strcmp(nm, "narrow")) {
    int d;
    int64_t len;
    if (n != 4) return kg_elab_error(el, at, KG_E_FORMAT, "narrow(dim, start, length)");
    if (!norm_dim(el, at, av[1], rank, &d, "narrow")) return kg_ev_err();
    if (!const_int(&av[3], &len) || len < 0)
      return kg_elab_error(el, at, KG_E_UNSUPPORTED, "narrow(): the length must be a constant >= 0 (the result's shape is fixed when kgen compiles)");
    return view(el, at, t, d, av[2], len, "narrow()");
  }
  /* x.[i], x.[i, j], x.[| i; j |]: select along dim 0 for each index */
  kg_ev idx[KG_MAX_RANK + 1];
  int ni = 0;
  for (int i = 1; i < n; i++) {
    if (av[i].kind == EV_ARRAY) {
      for (uint32_t j = 0; j < av[i].n && ni <= KG_MAX_RANK; j++) idx[ni++] = av[i].items[j];
    } else if (ni <= KG_MAX_RANK) {
      idx[ni++] = av[i];
    }
  }
  for (int i = 1; i < n; i++)
    if (av[i].kind != EV_ARRAY && av[i].kind != EV_CONST && av[i].kind != EV_NODE)
      return kg_elab_error(el, at, KG_E_UNSUPPORTED, "indexing with %s is not supported (integer indices are; slices and tensor indices are not)",
                           m->key);
  if (ni > rank) return kg_elab_error(el, at, KG_E_SHAPE, "too many indices (%d) for a tensor of rank %d", ni, rank);
  kg_ev cur = av[0];
  for (int i = 0; i < ni && cur.kind != EV_ERR; i++) cur = view(el, at, cur.id, 0, idx[i], -1, "indexing");
  return cur;
}

static const char *const member_doc[] = {
  "TorchSharp.torch+Tensor::item()", "item<T>() of a one-element tensor: a device-to-host READ step (T must be the tensor's own type)",
  "TorchSharp.torch+Tensor::get_shape()", "the sizes: constants where the signature fixes them, else SIZE steps",
  "TorchSharp.torch+Tensor::size()", "the sizes, as shape",
  "TorchSharp.torch+Tensor::size(System.Int32)", "one size (constant dim)",
  "TorchSharp.torch+Tensor::dim()", "the rank (a constant); also get_ndim() and get_Dimensions()",
  "TorchSharp.torch+Tensor::numel()", "the element count (host arithmetic on the sizes)",
  "Microsoft.FSharp.Core.LanguagePrimitives+IntrinsicFunctions::GetArray(System.Int64[],System.Int32)", "x.shape.[i] with a constant i",
  "TorchSharp.torch+Tensor::get_TensorItems(System.Int64)", "x.[i]: select(0, i), a view (also (Int64, Int64) ... and Int64[]); a negative i counts from the end",
  "TorchSharp.torch+Tensor::select(System.Int64,System.Int64)", "a view without the dim (also torch.select); index checked at run time",
  "TorchSharp.torch+Tensor::narrow(System.Int64,System.Int64,System.Int64)", "a view of `length` (a constant) elements from `start` (also torch.narrow)",
  "TorchSharp.torch+Tensor::unsqueeze(System.Int64)", "a view with a size-1 dim inserted (also torch.unsqueeze)",
};

const char *const *kg_hf_member_doc(uint32_t *n) {
  *n = (uint32_t)KG_COUNTOF(member_doc);
  return member_doc;
}
