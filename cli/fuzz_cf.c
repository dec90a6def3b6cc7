/* cli/fuzz_cf.c — host control flow and in-place ops in `kgen fuzz` programs (issue 13).
 *
 *   cf       a tensor carried through a loop, as the F# serializer writes `let mutable c =
 *            init` followed by the loop: `for i in 0 .. K - 1 do`, `for i in 0 .. int
 *            x.shape.[d] - 1 do` (a size-dependent trip count), `while n < K do` with a
 *            mutable counter, or `while n < K && c.sum().item<int64>() < T do` (a condition on
 *            the carried values: integers only, exact in every implementation); the step
 *            keeps the carried dtype and shape and its magnitude bounded: `c * 0.5f + o (+
 *            float32 i)` on floats, `(c * k + o (+ i)) % m` on integers, `(c + o).tanh()`.
 *            A for loop over a float tensor may instead write one row per trip, as a sequence
 *            loop fills its output: `c.select_scatter(o.expand_as(c).select(0L, 0L) * s +
 *            float32 i, 0L, int64 (i % c.shape[0]))` (written in place by the host plan:
 *            passes/plan_inplace.c).
 *            And `if c.sum().item<_>() > 0 then a else b` or `if x.shape.[d] > k then a else b`
 *            (a and b of one shape and dtype) as an expression.
 *   inplace  `t.add_(b)`, `t.mul_(s)`, `t.relu_()`, `t.masked_fill_(m, s)` on a let-bound
 *            intermediate that nothing else reads (PyTorch's meaning of a rebinding: dtype and
 *            shape kept), a statement of the let chain; the node stands for t afterwards.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_int.h"

enum { LP_FOR, LP_FOR_SHAPE, LP_WHILE, LP_WHILE_ITEM };
enum { ST_AFFINE, ST_INTMOD, ST_TANH, ST_SCATTER };

static bool gen_loop(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_LOOP);
  x.in[0] = fz_pick(p), x.in[1] = fz_pick(p), x.nin = 2;
  const fz_node *y = &p->n[x.in[0]], *o = &p->n[x.in[1]];
  if (y->dtype == BOOL) return false;
  fz_shp bs;
  if (!fz_bcast(&y->shape, &o->shape, &bs) || !fz_shape_eq(&bs, &y->shape)) return false;
  if (fz_result_type(p, x.in, 2, 0) != y->dtype) return false; /* the carried dtype is kept */
  x.ip[0] = fz_rnd(r, 4);
  int trips = 0;
  if (x.ip[0] == LP_FOR_SHAPE) { /* a parameter's size: static up to 16, or a symbol (13, 17) */
    int cand[8], nc = 0;
    for (int i = 0; i < p->np; i++)
      for (int d = 0; d < p->n[i].shape.rank && nc < 8; d++)
        if (p->n[i].shape.d[d] <= 16) cand[nc++] = i * 8 + d;
    if (!nc) x.ip[0] = LP_FOR;
    else {
      int c = cand[fz_rnd(r, nc)];
      x.ip[2] = c / 8, x.ip[1] = c % 8;
      int sz = p->n[x.ip[2]].shape.d[x.ip[1]];
      trips = sz < 0 ? 64 : sz;
    }
  }
  if (x.ip[0] != LP_FOR_SHAPE) x.ip[1] = trips = fz_rnd(r, 4);
  x.ip[4] = fz_chance(r, 40); /* the loop index in the step */
  double imax = x.ip[4] ? trips : 0;
  if (is_float(y->dtype)) {
    if (x.ip[0] == LP_WHILE_ITEM) x.ip[0] = LP_WHILE;
    x.ip[3] = fz_chance(r, 75) ? ST_AFFINE : ST_TANH;
    x.sc = fz_chance(r, 50) ? 0.5 : -0.5;
    x.mag = x.ip[3] == ST_TANH ? fmax(y->mag, 1) : fmax(y->mag, 2 * (o->mag + imax));
    if ((x.ip[0] == LP_FOR || x.ip[0] == LP_FOR_SHAPE) && y->shape.rank >= 1 && y->shape.d[0] > 0 && fz_chance(r, 30)) {
      x.ip[3] = ST_SCATTER, x.ip[4] = 1;
      x.mag = fmax(y->mag, 0.5 * o->mag + trips);
    }
    x.inexact = true;
  } else {
    x.ip[3] = ST_INTMOD;
    x.ip[5] = fz_chance(r, 50) ? 3 : 1;
    static const int mods[] = {1000, 100, 50, 7};
    x.ip[6] = 0;
    for (int k = 0; k < 4 && !x.ip[6]; k++) {
      int m = mods[k];
      if (x.ip[5] * fmax(y->mag, m) + o->mag + imax <= fz_dt_lim[y->dtype] && (y->dtype != U8 || x.ip[5] * fmax(y->mag, m) + o->mag + imax <= 255))
        x.ip[6] = m;
    }
    if (!x.ip[6]) return false;
    x.mag = fmax(y->mag, x.ip[6]);
    x.ip[7] = fz_rnd(r, 60); /* while-item: the threshold of the sum */
  }
  x.dtype = y->dtype, x.shape = y->shape, x.contig = true;
  return fz_add_node(p, &x) >= 0;
}

static bool item_ok(const fz_node *c) { return !c->inexact && fz_numel_bound(&c->shape) * c->mag < 1e15; }

static bool gen_if(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_IF);
  x.in[1] = fz_pick(p), x.nin = 3;
  const fz_node *a = &p->n[x.in[1]];
  for (int t = 0; t < 10 && x.in[2] < 0; t++) {
    int b = fz_pick(p);
    if (b != x.in[1] && p->n[b].dtype == a->dtype && fz_shape_eq(&p->n[b].shape, &a->shape)) x.in[2] = b;
  }
  if (x.in[2] < 0) return false;
  x.ip[0] = fz_rnd(r, 2);
  if (x.ip[0] == 1) { /* x.shape.[d] > k */
    int cand[8], nc = 0;
    for (int i = 0; i < p->np; i++)
      for (int d = 0; d < p->n[i].shape.rank && nc < 8; d++) cand[nc++] = i * 8 + d;
    if (!nc) x.ip[0] = 0;
    else {
      int c = cand[fz_rnd(r, nc)], sz;
      x.ip[1] = c / 8, x.ip[2] = c % 8, sz = p->n[x.ip[1]].shape.d[x.ip[2]];
      x.ip[3] = sz < 0 ? 12 + 3 * fz_rnd(r, 3) : sz - fz_rnd(r, 2); /* symbols are 13 or 17 */
    }
  }
  if (x.ip[0] == 0) { /* c.sum().item<_>() > 0 */
    int c = fz_pick(p);
    if (!item_ok(&p->n[c])) return false;
    x.in[0] = c;
  } else x.in[0] = x.ip[1]; /* the parameter (read for its shape) */
  x.dtype = a->dtype, x.shape = a->shape, x.contig = true;
  x.mag = fmax(a->mag, p->n[x.in[2]].mag);
  return fz_add_node(p, &x) >= 0; /* inexact as its branches (fz_add_node) */
}

bool fz_gen_cf(fz_prog *p) { return fz_chance(&p->r, 60) ? gen_loop(p) : gen_if(p); }

enum { IP_ADD, IP_MUL, IP_RELU, IP_MASKED };

bool fz_gen_inplace(fz_prog *p) {
  fz_rng *r = &p->r;
  int t = -1;
  for (int k = 0; k < 8 && t < 0; k++) { /* an intermediate that owns its storage and that nothing reads yet */
    int c = fz_pick(p);
    const fz_node *cn = &p->n[c];
    bool owns = cn->kind != N_PARAM && cn->kind != N_LAYOUT && cn->kind != N_LOOP && cn->kind != N_IF && cn->kind != N_INPLACE &&
                !(cn->kind == N_CAST && cn->dtype == p->n[cn->in[0]].dtype);
    if (owns && !cn->gen_used && !cn->dead && cn->dtype != BOOL) t = c;
  }
  if (t < 0) return false;
  fz_node x;
  fz_node_init(&x, N_INPLACE);
  x.op = fz_rnd(r, 4), x.in[0] = t, x.nin = 1;
  const fz_node *a = &p->n[t];
  x.dtype = a->dtype, x.shape = a->shape, x.contig = true, x.mag = a->mag;
  switch (x.op) {
  case IP_ADD: {
    int b = fz_pick(p);
    fz_shp o;
    int ab[2] = {t, b};
    if (b == t || !fz_bcast(&a->shape, &p->n[b].shape, &o) || !fz_shape_eq(&o, &a->shape) || fz_result_type(p, ab, 2, 0) != a->dtype) return false;
    x.in[1] = b, x.nin = 2, x.mag = a->mag + p->n[b].mag;
    break;
  }
  case IP_MUL:
    x.sc_int = !is_float(a->dtype);
    x.sc = x.sc_int ? (fz_chance(r, 50) ? 2 : 3) : fz_fconst(r);
    if (a->dtype != U8 && x.sc_int && fz_chance(r, 30)) x.sc = -1;
    x.mag = a->mag * fabs(x.sc);
    break;
  case IP_RELU: break;
  default: {
    int m = -1;
    for (int k = 0; k < 8 && m < 0; k++) {
      int c = fz_pick(p);
      if (c != t) m = fz_mask_operand(p, c, &p->n[t].shape);
    }
    if (m < 0) return false;
    a = &p->n[t];
    x.in[1] = m, x.nin = 2;
    x.sc_int = !is_float(a->dtype), x.sc = x.sc_int ? 4 : -0.5;
    x.mag = fmax(a->mag, fabs(x.sc));
    break;
  }
  }
  if (x.dtype == U8 && x.mag > 255) x.mag = 255;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  if (fz_add_node(p, &x) < 0) return false;
  p->n[t].dead = true;
  return true;
}

/* ---- emission ---- */
static cJSON *var_set(int var, cJSON *value) {
  cJSON *n = fz_knode("VarSet", T_UNIT);
  cJSON_AddNumberToObject(n, "var", var);
  cJSON_AddItemToObject(n, "value", value);
  return n;
}

static cJSON *to_single(cJSON *i) {
  const char *pr[1] = {T_INT32}, *g[1] = {T_INT32};
  return fz_call(T_SINGLE, NULL, fz_member(OPERATORS, "ToSingle", true, pr, 1, T_SINGLE, g, 1), &i, 1);
}

static cJSON *to_int64(cJSON *i) {
  const char *pr[1] = {T_INT32}, *g[1] = {T_INT32};
  return fz_call(T_INT64, NULL, fz_member(OPERATORS, "ToInt64", true, pr, 1, T_INT64, g, 1), &i, 1);
}

static cJSON *to_int(cJSON *l) {
  const char *pr[1] = {T_INT64}, *g[1] = {T_INT64};
  return fz_call(T_INT32, NULL, fz_member(OPERATORS, "ToInt", true, pr, 1, T_INT32, g, 1), &l, 1);
}

/* c.sum().item<T>() (a float16 / bfloat16 c through float()) and the type of T */
static cJSON *sum_item(cJSON *c, int dtype, const char **ty) {
  if (dtype == F16 || dtype == BF16) c = fz_method("float", c, NULL, NULL, 0), dtype = F32;
  const char *pr[1] = {T_NULLABLE_ST};
  cJSON *d = fz_default(T_NULLABLE_ST);
  cJSON *s = fz_method("sum", c, pr, &d, 1);
  *ty = dtype == F32 ? T_SINGLE : dtype == F64 ? T_DOUBLE : T_INT64;
  const char *g[1] = {*ty};
  return fz_call(*ty, s, fz_member(T_TENSOR, "item", false, NULL, 0, *ty, g, 1), NULL, 0);
}

static cJSON *and_also(cJSON *a, cJSON *b) {
  cJSON *n = fz_knode("IfThenElse", T_BOOL);
  cJSON_AddItemToObject(n, "cond", a);
  cJSON_AddItemToObject(n, "then", b);
  cJSON_AddItemToObject(n, "else", fz_value_bool(false));
  return n;
}

cJSON *fz_stmt_cf(fz_em *e, int i, int *counter) {
  const fz_node *x = &e->p->n[i];
  *counter = -1;
  if (x->kind == N_INPLACE) {
    cJSON *t = fz_ref(e, x->in[0]);
    cJSON *call;
    const char *pT[1] = {T_TENSOR}, *pS[1] = {T_SCALAR}, *pTS[2] = {T_TENSOR, T_SCALAR};
    const char *sty = x->sc_int ? T_INT32 : T_SINGLE;
    switch (x->op) {
    case IP_ADD: {
      cJSON *b = fz_ref(e, x->in[1]);
      call = fz_method("add_", t, pT, &b, 1);
      break;
    }
    case IP_MUL: {
      cJSON *s = fz_implicit_scalar(sty, x->sc);
      call = fz_method("mul_", t, pS, &s, 1);
      break;
    }
    case IP_RELU: call = fz_method("relu_", t, NULL, NULL, 0); break;
    default: {
      cJSON *args[2] = {fz_ref(e, x->in[1]), fz_implicit_scalar(sty, x->sc)};
      call = fz_method("masked_fill_", t, pTS, args, 2);
      break;
    }
    }
    return fz_ignore_pipe(e, call);
  }
  /* a loop carrying x->var */
  char nm[16];
  snprintf(nm, sizeof nm, "i%d", i - e->p->np);
  int iv = -1;
  bool is_for = x->ip[0] == LP_FOR || x->ip[0] == LP_FOR_SHAPE;
  if (is_for) iv = fz_new_var(e, nm, T_INT32, false);
  else {
    snprintf(nm, sizeof nm, "n%d", i - e->p->np);
    iv = *counter = fz_new_var(e, nm, T_INT32, true);
  }
  cJSON *y = fz_var_ref(x->var, T_TENSOR), *step;
  if (x->ip[3] == ST_SCATTER) { /* row i % rows of c := o's first row (broadcast to c) * s + i */
    const char *pT[1] = {T_TENSOR}, *pII[2] = {T_INT64, T_INT64}, *pTII[3] = {T_TENSOR, T_INT64, T_INT64};
    cJSON *shape_of = fz_var_ref(x->var, T_TENSOR);
    cJSON *full = fz_method("expand_as", fz_ref(e, x->in[1]), pT, &shape_of, 1);
    cJSON *sel[2] = {fz_value_num(T_INT64, 0), fz_value_num(T_INT64, 0)};
    cJSON *row = fz_op2(e, "op_Multiply", T_TENSOR, T_SINGLE, fz_method("select", full, pII, sel, 2), fz_value_num(T_SINGLE, x->sc));
    row = fz_op2(e, "op_Addition", T_TENSOR, T_SINGLE, row, to_single(fz_var_ref(iv, T_INT32)));
    cJSON *idx = to_int64(fz_prim_op2("op_Modulus", T_INT32, T_INT32, fz_var_ref(iv, T_INT32), fz_value_num(T_INT32, e->p->n[x->in[0]].shape.d[0])));
    cJSON *args[3] = {row, fz_value_num(T_INT64, 0), idx};
    step = fz_method("select_scatter", y, pTII, args, 3);
  } else if (x->ip[3] == ST_TANH) {
    cJSON *s = fz_op2(e, "op_Addition", T_TENSOR, T_TENSOR, y, fz_ref(e, x->in[1]));
    step = fz_method("tanh", s, NULL, NULL, 0);
  } else if (x->ip[3] == ST_AFFINE) {
    step = fz_op2(e, "op_Addition", T_TENSOR, T_TENSOR, fz_op2(e, "op_Multiply", T_TENSOR, T_SINGLE, y, fz_value_num(T_SINGLE, x->sc)),
                  fz_ref(e, x->in[1]));
    if (x->ip[4]) step = fz_op2(e, "op_Addition", T_TENSOR, T_SINGLE, step, to_single(fz_var_ref(iv, T_INT32)));
  } else {
    cJSON *m = x->ip[5] == 1 ? y : fz_op2(e, "op_Multiply", T_TENSOR, T_INT32, y, fz_value_num(T_INT32, x->ip[5]));
    step = fz_op2(e, "op_Addition", T_TENSOR, T_TENSOR, m, fz_ref(e, x->in[1]));
    if (x->ip[4]) step = fz_op2(e, "op_Addition", T_TENSOR, T_INT32, step, fz_var_ref(iv, T_INT32));
    step = fz_op2(e, "op_Modulus", T_TENSOR, T_INT32, step, fz_value_num(T_INT32, x->ip[6]));
  }
  cJSON *body = var_set(x->var, step);
  if (is_for) {
    cJSON *end;
    if (x->ip[0] == LP_FOR) end = fz_value_num(T_INT32, x->ip[1] - 1);
    else end = fz_prim_op2("op_Subtraction", T_INT32, T_INT32, to_int(fz_shape_of(fz_var_ref(x->ip[2], T_TENSOR), x->ip[1])), fz_value_num(T_INT32, 1));
    cJSON *n = fz_knode("ForIntegerRangeLoop", T_UNIT);
    cJSON_AddNumberToObject(n, "var", iv);
    cJSON_AddItemToObject(n, "start", fz_value_num(T_INT32, 0));
    cJSON_AddItemToObject(n, "end", end);
    cJSON_AddItemToObject(n, "body", body);
    return n;
  }
  cJSON *inc = var_set(iv, fz_prim_op2("op_Addition", T_INT32, T_INT32, fz_var_ref(iv, T_INT32), fz_value_num(T_INT32, 1)));
  cJSON *seq = fz_knode("Sequential", T_UNIT);
  cJSON_AddItemToObject(seq, "first", body);
  cJSON_AddItemToObject(seq, "second", inc);
  cJSON *cond = fz_prim_op2("op_LessThan", T_INT32, T_BOOL, fz_var_ref(iv, T_INT32), fz_value_num(T_INT32, x->ip[1]));
  if (x->ip[0] == LP_WHILE_ITEM) {
    const char *ty;
    cJSON *it = sum_item(fz_var_ref(x->var, T_TENSOR), x->dtype, &ty);
    cond = and_also(cond, fz_prim_op2("op_LessThan", ty, T_BOOL, it, fz_value_num(ty, x->ip[7])));
  }
  cJSON *n = fz_knode("WhileLoop", T_UNIT);
  cJSON_AddItemToObject(n, "cond", cond);
  cJSON_AddItemToObject(n, "body", seq);
  return n;
}

cJSON *fz_expr_cf(fz_em *e, const fz_node *x) {
  if (x->kind == N_LOOP || x->kind == N_INPLACE) return fz_ref(e, (int)(x - e->p->n)); /* statements: their variable */
  cJSON *cond;
  if (x->ip[0] == 0) {
    const char *ty;
    cJSON *it = sum_item(fz_ref(e, x->in[0]), e->p->n[x->in[0]].dtype, &ty);
    cond = fz_prim_op2("op_GreaterThan", ty, T_BOOL, it, fz_value_num(ty, 0));
  } else
    cond = fz_prim_op2("op_GreaterThan", T_INT64, T_BOOL, fz_shape_of(fz_var_ref(x->ip[1], T_TENSOR), x->ip[2]), fz_value_num(T_INT64, x->ip[3]));
  cJSON *n = fz_knode("IfThenElse", T_TENSOR);
  cJSON_AddItemToObject(n, "cond", cond);
  cJSON_AddItemToObject(n, "then", fz_ref(e, x->in[1]));
  cJSON_AddItemToObject(n, "else", fz_ref(e, x->in[2]));
  return n;
}
