/* frontend/seqloop.c — F#'s loops over ranges, arrays and lists, compiled as the integer
 * loops they mean (docs/fsharp.md "Loops over ranges, arrays and lists").
 *
 * F# quotes `for i in a .. b do` over int32 as ForIntegerRangeLoop, but any other range —
 * int64 (`for t in 0L .. x.shape.[0] - 1L`), a stepped one (`0L .. 2L .. n - 1L`), a list —
 * as a loop over the sequence's enumerator, exactly as the compiler expands it:
 *
 *   Let(s, op_Range(a, b) | op_RangeStep(a, k, b) | [x; y] | ...,
 *     Let(e, s.GetEnumerator(),
 *       TryFinally(WhileLoop(e.MoveNext(), Let(t, e.Current, body)), <dispose e>)))
 *
 * an array `for x in arr` as ForIntegerRangeLoop(i, 0, Array.length arr - 1, Let(x, arr.[i],
 * body)), and `Seq.iter f r` / `List.iter f r` / `Array.iter f r` as calls. The document keeps
 * what F# wrote (the spec's "nothing desugared"); this file reads those shapes:
 *
 *   - a range is a value (EV_RANGE: start, end, a constant step), so it can be let-bound,
 *     piped (`[0L .. n] |> List.iter f`), turned into a seq / list / array, indexed and
 *     measured (Array.length) like an array, and enumerated;
 *   - enumerating a range is an integer loop (kg_iloop): unrolled when short and known, else a
 *     host-plan FOR at entry level (hostflow.c) or a FOR in a map lambda (scalar.c); a step
 *     other than 1 counts iterations (k = 0 .. floor((b - a) / k)), so empty ranges, negative
 *     steps and the last value are F#'s; a step of 0 is F#'s own error;
 *   - enumerating an array or list kgen knows when it compiles (tensors, numbers, tuples) runs
 *     the body once per item, so an item can be a tensor of its own shape.
 */
#include <string.h>

#include "frontend.h"

#define MAX_UNROLL_ITEMS 4096

static bool is_name(const kg_member *m, const char *name) { return m && m->name && strcmp(m->name, name) == 0; }
static bool is_decl(const kg_member *m, const char *decl) { return m && m->decl && strcmp(m->decl, decl) == 0; }

static const kg_ast *strip(const kg_ast *n) {
  while (n && n->k == KG_AST_Coerce) n = n->a;
  return n;
}
static bool is_var(const kg_ast *n, uint32_t v) {
  n = strip(n);
  return n && n->k == KG_AST_Var && n->var == v;
}

static bool for_bounds_ok(kg_elab *el, const kg_ast *n, kg_ev start, kg_ev end) {
  const char *vty = el->doc->vars[n->var].type;
  kg_dtype vt = kg_dtype_from_clr(vty);
  if (!kg_dtype_is_int(vt)) {
    kg_elab_error(el, n, KG_E_TYPE, "a for loop's variable '%s' has type %s; it must be an integer", el->doc->vars[n->var].name, vty);
    return false;
  }
  kg_dtype st = kg_ev_dtype(el, start), et = kg_ev_dtype(el, end);
  if (!kg_dtype_is_int(st) || !kg_dtype_is_int(et)) {
    kg_elab_error(el, kg_dtype_is_int(st) ? n->b : n->a, KG_E_TYPE, "for-loop bounds must be integers (the %s is %s)",
                  kg_dtype_is_int(st) ? "end" : "start", kg_dtype_name(kg_dtype_is_int(st) ? et : st));
    return false;
  }
  return true;
}

/* ---- iteration counts and bodies ---- */

bool kg_iloop_const_trips(const kg_iloop *L, uint64_t *trips) {
  if (L->start.kind != EV_CONST || L->end.kind != EV_CONST) return false;
  int64_t s = L->start.c.i, e = L->end.c.i, k = L->step;
  /* in uint64: exact for any int64 bounds */
  if (k > 0) *trips = e < s ? 0 : ((uint64_t)e - (uint64_t)s) / (uint64_t)k + 1;
  else *trips = e > s ? 0 : ((uint64_t)s - (uint64_t)e) / ((uint64_t)0 - (uint64_t)k) + 1;
  return true;
}

const kg_ast *kg_iloop_scan(const kg_iloop *L) { return L->body ? L->body : L->fn.lam ? L->fn.lam->a : NULL; }

kg_ev kg_elab_loop_body(kg_elab *el, const kg_iloop *L, kg_ev v) {
  if (!L->body) return kg_elab_apply(el, L->at, L->fn, v);
  kg_ev old = el->env[L->var];
  uint8_t ob = el->bound[L->var];
  el->env[L->var] = v, el->bound[L->var] = 1;
  kg_ev r = kg_elab_eval(el, L->body);
  el->env[L->var] = old, el->bound[L->var] = ob;
  return r;
}

kg_ev kg_elab_loop_unrolled(kg_elab *el, const kg_iloop *L, uint64_t trips) {
  uint64_t s = (uint64_t)L->start.c.i;
  for (uint64_t i = 0; i < trips; i++) {
    kg_cval c = kg_cval_cast(kg_cval_int(KG_I64, (int64_t)(s + i * (uint64_t)L->step)), L->vt);
    kg_ev r = kg_elab_loop_body(el, L, kg_ev_const(c));
    if (r.kind == EV_ERR) return r;
  }
  return kg_ev_make(EV_UNIT);
}

/* An array or list kgen holds when it compiles: the body once per item. */
static kg_ev items_unrolled(kg_elab *el, const kg_ast *at, kg_ev arr, uint32_t var, const kg_ast *body, kg_ev fn) {
  if (arr.n > MAX_UNROLL_ITEMS)
    return kg_elab_error(el, at, KG_E_LIMIT, "a loop over an array is unrolled when kgen compiles; %u items exceed the limit of %d", arr.n,
                         MAX_UNROLL_ITEMS);
  kg_iloop L;
  memset(&L, 0, sizeof L);
  L.at = at, L.var = var, L.body = body, L.fn = fn;
  for (uint32_t i = 0; i < arr.n; i++) {
    kg_ev r = kg_elab_loop_body(el, &L, arr.items[i]);
    if (r.kind == EV_ERR) return r;
  }
  return kg_ev_make(EV_UNIT);
}

static kg_ev run_loop(kg_elab *el, const kg_iloop *L) {
  uint64_t trips;
  if (L->unroll && kg_iloop_const_trips(L, &trips)) {
    if (trips > MAX_UNROLL_ITEMS)
      return kg_elab_error(el, L->at, KG_E_LIMIT, "a loop over an array is unrolled when kgen compiles; %llu items exceed the limit of %d",
                           (unsigned long long)trips, MAX_UNROLL_ITEMS);
    return kg_elab_loop_unrolled(el, L, trips);
  }
  return el->fn ? kg_elab_scalar_loop(el, L) : kg_hf_loop(el, L);
}

/* A range enumerated: the body (var bound) or fn applied, per value. */
static kg_ev range_loop(kg_elab *el, const kg_ast *at, kg_ev r, uint32_t var, const kg_ast *body, kg_ev fn) {
  kg_iloop L;
  memset(&L, 0, sizeof L);
  L.at = at, L.start_at = at, L.end_at = at;
  L.start = r.items[0], L.end = r.items[1], L.step = r.c.i, L.vt = r.dt;
  L.var = var, L.body = body, L.fn = fn;
  return run_loop(el, &L);
}

/* Does body index an array kgen holds (not a range) by the loop variable (F#'s `for x in arr`)? */
static bool indexes_known_array(const kg_elab *el, const kg_ast *n, uint32_t var) {
  if (!n) return false;
  if (n->k == KG_AST_Call && is_name(n->member, "GetArray") && n->n_kids == 2 && is_var(n->kids[1], var)) {
    const kg_ast *a = strip(n->kids[0]);
    if (a->k == KG_AST_Var && el->bound[a->var] && el->env[a->var].kind == EV_ARRAY) return true;
    if (a->k == KG_AST_NewArray) return true;
  }
  if (indexes_known_array(el, n->a, var) || indexes_known_array(el, n->b, var) || indexes_known_array(el, n->c, var)) return true;
  for (uint32_t i = 0; i < n->n_kids; i++)
    if (indexes_known_array(el, n->kids[i], var)) return true;
  return false;
}

kg_ev kg_elab_for(kg_elab *el, const kg_ast *n) {
  kg_ev s = kg_elab_eval(el, n->a);
  if (s.kind == EV_ERR) return s;
  kg_ev e = kg_elab_eval(el, n->b);
  if (e.kind == EV_ERR) return e;
  if (!for_bounds_ok(el, n, s, e)) return kg_ev_err();
  kg_iloop L;
  memset(&L, 0, sizeof L);
  L.at = n, L.start_at = n->a, L.end_at = n->b;
  L.start = s, L.end = e, L.step = 1, L.vt = kg_dtype_from_clr(el->doc->vars[n->var].type);
  L.var = n->var, L.body = n->c;
  L.unroll = indexes_known_array(el, n->c, n->var);
  return run_loop(el, &L);
}

/* ---- ranges as values ---- */

static bool scalar_int(kg_elab *el, kg_ev v) {
  if (v.kind != EV_CONST && v.kind != EV_SX && v.kind != EV_MVAR &&
      !(v.kind == EV_NODE && el->g->nodes.v[v.id].vkind == KG_V_SCALAR))
    return false;
  return kg_dtype_is_int(kg_ev_dtype(el, v));
}

/* op_Range(a, b) / op_RangeStep(a, k, b) of dtype dt */
static kg_ev make_range(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na) {
  kg_dtype dt = m->n_params ? kg_dtype_from_clr(m->params[0]) : KG_DT_NONE;
  if (!kg_dtype_is_int(dt) || dt == KG_BOOL)
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "a range of %s: kgen compiles ranges of integers (int, int64, ...)",
                         m->n_params ? m->params[0] : "?");
  const kg_ev *a = &av[0], *b = &av[na - 1];
  int64_t step = 1;
  if (na == 3) {
    if (av[1].kind != EV_CONST || !kg_dtype_is_int(av[1].c.dt))
      return kg_elab_error(el, n->kids[1], KG_E_UNSUPPORTED,
                           "a range's step must be a number known when kgen compiles (a literal, or computed from static sizes): F# raises an error for a step of 0, which compiled kernels cannot");
    step = kg_cval_cast(av[1].c, dt).i;
    if (step == 0) return kg_elab_error(el, n->kids[1], KG_E_ARG, "The step of a range cannot be zero. (Parameter 'step') (F#'s own error)");
  }
  if (!scalar_int(el, *a) || !scalar_int(el, *b))
    return kg_elab_error(el, n, KG_E_TYPE, "a range's bounds must be integers");
  kg_ev r = kg_ev_make(EV_RANGE);
  r.dt = dt;
  r.n = 2;
  r.items = kg_arena_alloc(el->arena, 2 * sizeof *r.items);
  r.items[0] = kg_elab_scast(el, n->kids[0], *a, dt); /* snapshots a mutable local's value */
  r.items[1] = kg_elab_scast(el, n->kids[na - 1], *b, dt);
  if (r.items[0].kind == EV_ERR || r.items[1].kind == EV_ERR) return kg_ev_err();
  r.c = kg_cval_int(KG_I64, step);
  return r;
}

/* Array.length of a range: max(0, floor((b - a) / k) + 1), an int32 as .NET's */
static kg_ev range_count(kg_elab *el, const kg_ast *at, kg_ev r) {
  kg_iloop L;
  memset(&L, 0, sizeof L);
  L.start = r.items[0], L.end = r.items[1], L.step = r.c.i;
  uint64_t trips;
  if (kg_iloop_const_trips(&L, &trips)) {
    if (trips > INT32_MAX) return kg_elab_error(el, at, KG_E_LIMIT, "a range of %llu values is longer than an array can be", (unsigned long long)trips);
    return kg_ev_const(kg_cval_int(KG_I32, (int64_t)trips));
  }
  kg_ev d[2] = {kg_elab_scast(el, at, r.items[1], KG_I64), kg_elab_scast(el, at, r.items[0], KG_I64)};
  d[0] = kg_elab_sop(el, at, KG_OP_SUB, KG_I64, d, 2);
  d[1] = kg_ev_const(kg_cval_int(KG_I64, r.c.i));
  d[0] = kg_elab_sop(el, at, KG_OP_FLOORDIV, KG_I64, d, 2);
  d[1] = kg_ev_const(kg_cval_int(KG_I64, 1));
  d[0] = kg_elab_sop(el, at, KG_OP_ADD, KG_I64, d, 2);
  d[1] = kg_ev_const(kg_cval_int(KG_I64, 0));
  d[0] = kg_elab_sop(el, at, KG_OP_MAXIMUM, KG_I64, d, 2);
  return kg_elab_scast(el, at, d[0], KG_I32);
}

kg_ev kg_elab_range_item(kg_elab *el, const kg_ast *at, kg_ev r, kg_ev i) {
  if (!scalar_int(el, i)) return kg_elab_error(el, at, KG_E_TYPE, "an array index must be an integer");
  kg_ev cnt = range_count(el, at, r);
  if (cnt.kind == EV_ERR) return cnt;
  if (i.kind == EV_CONST && cnt.kind == EV_CONST && (i.c.i < 0 || i.c.i >= cnt.c.i))
    return kg_elab_error(el, at, KG_E_SHAPE, "index %lld is outside the array of %lld element(s)", (long long)i.c.i, (long long)cnt.c.i);
  kg_ev m[2] = {kg_elab_scast(el, at, i, KG_I64), kg_ev_const(kg_cval_int(KG_I64, r.c.i))};
  m[1] = kg_elab_sop(el, at, KG_OP_MUL, KG_I64, m, 2);
  m[0] = kg_elab_scast(el, at, r.items[0], KG_I64);
  return kg_elab_scast(el, at, kg_elab_sop(el, at, KG_OP_ADD, KG_I64, m, 2), r.dt);
}

/* F#'s list literal [a; b] is Cons(a, Cons(b, Empty)): an array of its items */
kg_ev kg_elab_list_case(kg_elab *el, const kg_ast *n) {
  if (!n->ty || strncmp(n->ty, "Microsoft.FSharp.Collections.FSharpList`1[", 42) != 0 || (n->n_kids != 0 && n->n_kids != 2))
    return kg_elab_error(el, n, KG_E_UNSUPPORTED, "F# construct 'NewUnionCase' is not supported (list literals are)");
  kg_ev r = kg_ev_make(EV_ARRAY);
  if (n->n_kids == 0) {
    r.items = kg_arena_alloc(el->arena, sizeof *r.items);
    return r;
  }
  kg_ev head = kg_elab_eval(el, n->kids[0]);
  if (head.kind == EV_ERR) return head;
  kg_ev tail = kg_elab_eval(el, n->kids[1]);
  if (tail.kind == EV_ERR) return tail;
  if (tail.kind != EV_ARRAY) return kg_elab_error(el, n->kids[1], KG_E_UNSUPPORTED, "a list whose tail kgen does not know when it compiles");
  r.n = tail.n + 1;
  r.items = kg_arena_alloc(el->arena, r.n * sizeof *r.items);
  r.items[0] = head;
  memcpy(r.items + 1, tail.items, tail.n * sizeof *r.items);
  return r;
}

/* ---- members over ranges and known arrays ---- */

bool kg_elab_seq_call(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out) {
  bool ops = is_decl(m, "Microsoft.FSharp.Core.Operators");
  if (ops && ((is_name(m, "op_Range") && na == 2) || (is_name(m, "op_RangeStep") && na == 3))) {
    *out = make_range(el, n, m, av, na);
    return true;
  }
  bool seqm = is_decl(m, "Microsoft.FSharp.Collections.SeqModule"), listm = is_decl(m, "Microsoft.FSharp.Collections.ListModule"),
       arrm = is_decl(m, "Microsoft.FSharp.Collections.ArrayModule");
  /* seq { a .. b }, [a .. b], [| a .. b |], List.ofSeq, ...: the range itself */
  if (na == 1 && av[0].kind == EV_RANGE &&
      ((ops && is_name(m, "CreateSequence")) || (is_decl(m, "Microsoft.FSharp.Core.ExtraTopLevelOperators") && is_name(m, "CreateSequence")) ||
       ((seqm || listm || arrm) && (is_name(m, "ToList") || is_name(m, "ToArray") || is_name(m, "OfSeq") || is_name(m, "OfList") ||
                                    is_name(m, "OfArray") || is_name(m, "ToSeq"))))) {
    *out = av[0];
    return true;
  }
  /* Array.length, List.length, Seq.length, arr.Length */
  if (na == 1 && (av[0].kind == EV_RANGE || av[0].kind == EV_ARRAY) &&
      (((seqm || listm || arrm) && is_name(m, "Length")) ||
       ((is_decl(m, "System.Array") || (m->decl && strncmp(m->decl, "Microsoft.FSharp.Collections.FSharpList`1", 41) == 0)) &&
        (is_name(m, "get_Length") || is_name(m, "Length"))))) {
    *out = av[0].kind == EV_RANGE ? range_count(el, n, av[0]) : kg_ev_const(kg_cval_int(KG_I32, av[0].n));
    return true;
  }
  /* Seq.iter f xs, List.iter f xs, Array.iter f xs */
  if ((seqm || listm || arrm) && is_name(m, "Iterate") && na == 2 && (av[1].kind == EV_RANGE || av[1].kind == EV_ARRAY)) {
    if (av[0].kind != EV_FUNC) {
      *out = kg_elab_error(el, n->kids[0], KG_E_TYPE, "%s.iter needs a function", seqm ? "Seq" : listm ? "List" : "Array");
      return true;
    }
    *out = av[1].kind == EV_RANGE ? range_loop(el, n, av[1], 0, NULL, av[0]) : items_unrolled(el, n, av[1], 0, NULL, av[0]);
    return true;
  }
  return false;
}

/* ---- `for x in xs` over an enumerator ---- */

bool kg_elab_seq_let(kg_elab *el, const kg_ast *n, kg_ev *out) {
  /* Let(s, SEQ, Let(e, s.GetEnumerator(), TryFinally(WhileLoop(e.MoveNext(), Let(x, e.Current, BODY)), FIN))) */
  const kg_ast *l2 = n->b;
  if (!l2 || l2->k != KG_AST_Let) return false;
  const kg_ast *ge = strip(l2->a);
  if (!ge || ge->k != KG_AST_Call || !is_name(ge->member, "GetEnumerator") || ge->n_kids != 0 || !is_var(ge->a, n->var)) return false;
  const kg_ast *tf = l2->b;
  if (!tf || tf->k != KG_AST_TryFinally || !tf->a || tf->a->k != KG_AST_WhileLoop || !kg_elab_dispose_only(tf->b)) return false;
  const kg_ast *w = tf->a, *mn = strip(w->a), *l3 = w->b;
  if (!mn || mn->k != KG_AST_Call || !is_name(mn->member, "MoveNext") || !is_var(mn->a, l2->var)) return false;
  if (!l3 || l3->k != KG_AST_Let) return false;
  const kg_ast *cur = strip(l3->a);
  if (!cur || cur->k != KG_AST_PropertyGet || !(is_name(cur->member, "Current") || is_name(cur->member, "get_Current")) ||
      !is_var(cur->a, l2->var))
    return false;
  kg_ev s = kg_elab_eval(el, n->a);
  if (s.kind == EV_ERR) {
    *out = s;
    return true;
  }
  kg_ev none = kg_ev_make(EV_UNIT);
  if (s.kind == EV_RANGE)
    *out = range_loop(el, n, s, l3->var, l3->b, none);
  else if (s.kind == EV_ARRAY)
    *out = items_unrolled(el, n, s, l3->var, l3->b, none);
  else
    *out = kg_elab_error(el, n->a, KG_E_UNSUPPORTED,
                         "a for loop over a sequence kgen cannot enumerate when it compiles (it compiles loops over integer ranges — a .. b, a .. step .. b — "
                         "and over arrays and lists it knows)");
  return true;
}
