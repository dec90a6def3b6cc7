/* cli/fuzz_gen.c — the program generator of `kgen fuzz` (issue 13).
 *
 * Builds one kgen-quotation document per seed: an entry `fuzz_<seed>` that is a
 * Lambda chain over 1–3 tensor parameters, with a signature (dtypes, static sizes
 * including 0, 1 and odd ones, sometimes the symbols N and M), whose body is a
 * random DAG of tensor operations, some nodes let-bound (always those used twice),
 * the others nested at their use. Every node is spelled exactly as the F# serializer
 * writes it (the JSON files of examples/): F# operators as Microsoft.FSharp.Core.Operators calls
 * with their witness lambdas, methods and static functions of TorchSharp with the
 * optional arguments filled in (DefaultValue, Value null), dtypes as FieldGet of
 * torch.float32 & co. Only member keys that occur in the examples are used.
 *
 * The generator types every node as PyTorch would: result dtypes with PyTorch's
 * promotion (result_type: dimensioned tensors, then zero-dim tensors, then wrapped
 * scalars, by category), shapes with right-aligned broadcasting, and an upper bound
 * on each node's magnitude. It avoids what PyTorch's own test inputs avoid: no
 * integer division (a tensor divisor is |y| + 1, floats only come out), no integer
 * overflow (the magnitude bound stays inside the dtype; uint8 wraps, which is
 * defined), exp only below 10, sqrt and log only of |x| (+ 1), no float → unsigned
 * casts and no float → int cast out of range, no mean/amax over an empty dim (NaN,
 * error), no float16 value above 3e4. Inputs are what the check kit makes: floats in
 * [-9, 9], ints in [-9, 10), uint8 in [0, 10).
 *
 * Determinism: a splitmix64 stream seeded from the seed; nothing else (no rand(),
 * no time, no addresses) reaches the output; cJSON prints numbers reproducibly.
 */
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG: splitmix64 ---- */
typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rnext(rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int rnd(rng *r, int n) { return n <= 1 ? 0 : (int)(rnext(r) % (uint64_t)n); }
static bool chance(rng *r, int percent) { return rnd(r, 100) < percent; }

/* ---- dtypes and PyTorch's promotion ---- */
enum { BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64, NDT };
static const char *const dt_name[NDT] = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
/* the Tensor method that casts to each dtype (Tensor::bool(), …: all in examples/cast_*) */
static const char *const dt_method[NDT] = {"bool", "byte", "char", "short", "int", "long", "half", "bfloat16", "float", "double"};
/* largest magnitude a node of the dtype may reach */
static const double dt_lim[NDT] = {1, 255, 127, 32767, 2147483647.0, 9.0e18, 3.0e4, 1e25, 1e25, 1e25};

static bool is_float(int d) { return d >= F16; }
static bool is_int(int d) { return d >= U8 && d <= I64; }

static int promote(int a, int b) {
  if (a == b) return a;
  if (a == BOOL) return b;
  if (b == BOOL) return a;
  if (is_float(a) && is_float(b)) {
    if ((a == F16 && b == BF16) || (a == BF16 && b == F16)) return F32;
    return a > b ? a : b;
  }
  if (is_float(a)) return a;
  if (is_float(b)) return b;
  if (a == U8 || b == U8) {
    int o = a == U8 ? b : a;
    return o == I8 ? I16 : o;
  }
  return a > b ? a : b;
}

/* c10's combine_categories (TypeProperties.cpp): -1 is "undefined". */
static int combine(int higher, int lower) {
  if (higher < 0) return lower;
  if (lower < 0) return higher;
  if (is_float(higher)) return higher;
  if (higher == BOOL || is_float(lower)) return promote(higher, lower);
  return higher;
}

/* ---- shapes: a size is >= 0, or a symbol (-1 "N", -2 "M") ---- */
#define MAXR 4
typedef struct shp {
  int rank;
  int d[MAXR];
} shp;

static const char *sym_name(int d) { return d == -1 ? "N" : "M"; }
/* an upper bound of a size at check time (the check kit gives symbols 13, 17, …) */
static double size_bound(int d) { return d >= 0 ? d : 64; }

static bool bcast(const shp *a, const shp *b, shp *out) {
  shp r;
  r.rank = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r.rank; i++) {
    int ia = i - (r.rank - a->rank), ib = i - (r.rank - b->rank);
    int da = ia < 0 ? 1 : a->d[ia], db = ib < 0 ? 1 : b->d[ib];
    if (da == db) r.d[i] = da;
    else if (da == 1) r.d[i] = db;
    else if (db == 1) r.d[i] = da;
    else return false;
  }
  *out = r;
  return true;
}

/* ---- the program: nodes in topological order ---- */
enum { N_PARAM, N_BIN, N_BINS, N_DIV, N_UN, N_CMP, N_CMPS, N_WHERE, N_CAST, N_RED };
enum { A_ADD, A_SUB, A_MUL, A_DIV };
static const char *const arith_name[] = {"op_Addition", "op_Subtraction", "op_Multiply", "op_Division"};
enum { U_EXP, U_TANH, U_TANH_T, U_SIGMOID, U_SIGMOID_T, U_SIN_T, U_COS, U_SQRTABS, U_LOGABS1, U_ABS, U_NEG, U_NEGOP, U_RELU, U_N };
static const char *const cmp_name[] = {"gt", "lt", "ge", "le", "eq", "ne"};
enum { R_SUM, R_MEAN, R_AMAX };

#define MAXN 40

typedef struct node {
  int kind, op;
  int a, b, c;       /* operands (node indices) */
  int dtype;
  shp shape;
  double mag;        /* upper bound of |value| */
  double sc;         /* scalar constant (N_BINS, N_CMPS) */
  bool sc_int;       /* System.Int32 (else System.Single) */
  bool sc_left;      /* scalar on the left of the operator */
  int dim;           /* N_RED: as written (may be negative) */
  bool keepdim;
  bool alias;        /* N_CAST: the dtype method rather than to_type */
  int uses;          /* reachable uses from the outputs */
  bool gen_used;     /* an operand of some node (generation) */
  bool inexact;      /* a float that may differ by an ulp between correct implementations
                        (transcendentals, division, mean, float sums): never compared or
                        cast to an integer, where an ulp becomes a different answer */
  bool let;
  int var;           /* param / let variable */
} node;

typedef struct prog {
  rng r;
  unsigned ops;
  node n[MAXN];
  int nn, np;
} prog;

static int operands(const node *x, int *ops) {
  ops[0] = x->a, ops[1] = x->b, ops[2] = x->c;
  return x->kind == N_PARAM ? 0 : x->kind == N_WHERE ? 3 : (x->kind == N_BIN || x->kind == N_DIV || x->kind == N_CMP) ? 2 : 1;
}

static int add_node(prog *p, const node *x) {
  p->n[p->nn] = *x;
  int ops[3], k = operands(x, ops);
  for (int i = 0; i < k; i++) p->n[ops[i]].gen_used = true;
  node *y = &p->n[p->nn];
  if (!is_float(y->dtype)) y->inexact = false; /* comparisons, casts to int: checked at creation */
  else {
    for (int i = 0; i < k; i++) y->inexact |= p->n[ops[i]].inexact;
    y->inexact |= y->kind == N_DIV || (y->kind == N_BINS && y->op == A_DIV) || (y->kind == N_UN && y->op <= U_LOGABS1) ||
                  (y->kind == N_RED && y->op != R_AMAX);
  }
  return p->nn++;
}

static bool mag_ok(int dt, double m) { return dt == U8 || m <= dt_lim[dt]; }

/* PyTorch's result dtype of operands (node indices, n of them) and an optional
 * wrapped scalar (0 none, 1 int, 2 float). */
static int result_type(const prog *p, const int *ops, int n, int scalar) {
  int dimr = -1, zeror = -1, wrapr = scalar == 1 ? I64 : scalar == 2 ? F32 : -1;
  for (int i = 0; i < n; i++) {
    const node *x = &p->n[ops[i]];
    int *t = x->shape.rank == 0 ? &zeror : &dimr;
    *t = *t < 0 ? x->dtype : promote(*t, x->dtype);
  }
  return combine(dimr, combine(zeror, wrapr));
}

/* An operand: mostly one of the last few nodes, so that the DAG is deep. */
static int pick(prog *p) {
  int k = rnd(&p->r, 100);
  if (k < 40) {
    int m = p->nn < 3 ? p->nn : 3;
    return p->nn - 1 - rnd(&p->r, m);
  }
  if (k < 75) { /* a node nothing uses yet: fewer dead branches */
    int unused[MAXN], nu = 0;
    for (int i = 0; i < p->nn; i++)
      if (!p->n[i].gen_used) unused[nu++] = i;
    if (nu) return unused[rnd(&p->r, nu)];
  }
  return rnd(&p->r, p->nn);
}

static double fconst(rng *r) {
  static const double v[] = {0.5, 2, -1.5, 0.25, 3, -0.75, 1, 0.125, 1.5, -2};
  return v[rnd(r, (int)(sizeof v / sizeof v[0]))];
}

static bool gen_arith(prog *p) {
  rng *r = &p->r;
  node x;
  memset(&x, 0, sizeof x);
  int k = rnd(r, 100);
  if (k < 55) { /* tensor op tensor */
    x.kind = N_BIN, x.op = rnd(r, 3), x.a = pick(p), x.b = pick(p);
    const node *a = &p->n[x.a], *b = &p->n[x.b];
    if (!bcast(&a->shape, &b->shape, &x.shape)) return false;
    if (x.op == A_SUB && (a->dtype == BOOL || b->dtype == BOOL)) return false;
    int ab[2] = {x.a, x.b};
    x.dtype = result_type(p, ab, 2, 0);
    if (x.dtype == BOOL) return false;
    x.mag = x.op == A_MUL ? a->mag * b->mag : a->mag + b->mag;
  } else if (k < 85) { /* tensor op scalar, scalar op tensor */
    x.kind = N_BINS, x.op = rnd(r, 4), x.a = pick(p);
    const node *a = &p->n[x.a];
    x.shape = a->shape;
    x.sc_int = chance(r, 40);
    if (x.sc_int) {
      static const int iv[] = {1, 2, 3, -2, 5, -1};
      x.sc = iv[rnd(r, 6)];
      if (a->dtype == U8 && x.sc < 0) x.sc = -x.sc;
    } else x.sc = fconst(r);
    x.sc_left = x.op != A_DIV && chance(r, 30);
    if (x.op == A_SUB && a->dtype == BOOL) return false;
    if (x.op == A_DIV) x.dtype = is_float(a->dtype) ? a->dtype : F32; /* true division */
    else x.dtype = result_type(p, &x.a, 1, x.sc_int ? 1 : 2);
    double s = fabs(x.sc);
    x.mag = x.op == A_MUL ? a->mag * s : x.op == A_DIV ? a->mag / s : a->mag + s;
  } else { /* x / (|y| + 1): never a zero divisor */
    x.kind = N_DIV, x.a = pick(p), x.b = pick(p);
    const node *a = &p->n[x.a], *b = &p->n[x.b];
    if (b->dtype == BOOL) return false; /* abs of bool is an error in PyTorch */
    if (!bcast(&a->shape, &b->shape, &x.shape)) return false;
    /* the divisor |y| + 1f: a float stays itself, an int becomes float32 */
    node dv = *b;
    dv.dtype = is_float(b->dtype) ? b->dtype : F32;
    prog *q = p; /* result_type over (a, divisor): use a temporary node slot */
    if (q->nn + 1 >= MAXN) return false;
    q->n[q->nn] = dv;
    int ab[2] = {x.a, q->nn};
    x.dtype = result_type(q, ab, 2, 0);
    if (!is_float(x.dtype)) x.dtype = F32;
    x.mag = a->mag;
  }
  if (x.dtype == U8 && x.op == A_SUB) x.mag = 255;
  if (x.dtype == U8 && x.mag > 255) x.mag = 255;
  if (!mag_ok(x.dtype, x.mag)) return false;
  add_node(p, &x);
  return true;
}

static bool gen_unary(prog *p) {
  rng *r = &p->r;
  node x;
  memset(&x, 0, sizeof x);
  x.kind = N_UN, x.a = pick(p);
  const node *a = &p->n[x.a];
  if (a->mag > 1e3 && is_float(a->dtype)) {
    static const int squash[] = {U_TANH, U_TANH_T, U_SIGMOID, U_SIGMOID_T, U_SIN_T, U_COS};
    x.op = squash[rnd(r, 6)];
  } else x.op = rnd(r, U_N);
  x.shape = a->shape;
  bool float_only = x.op <= U_LOGABS1;
  if (a->dtype == BOOL && x.op >= U_SQRTABS) return false; /* abs / neg of bool: errors */
  if (a->dtype == U8 && (x.op == U_NEG || x.op == U_NEGOP)) return false;
  if (x.op == U_EXP && a->mag > 10) return false;
  x.dtype = float_only && !is_float(a->dtype) ? F32 : a->dtype;
  switch (x.op) {
  case U_EXP: x.mag = exp(a->mag); break;
  case U_SQRTABS: x.mag = sqrt(a->mag); break;
  case U_LOGABS1: x.mag = log(a->mag + 1); break;
  case U_ABS: case U_NEG: case U_NEGOP: case U_RELU: x.mag = a->mag; break;
  default: x.mag = 1; break;
  }
  if (!mag_ok(x.dtype, x.mag)) return false;
  add_node(p, &x);
  return true;
}

static bool gen_cmp_into(prog *p, node *x) {
  rng *r = &p->r;
  memset(x, 0, sizeof *x);
  x->op = rnd(r, 6), x->a = pick(p), x->dtype = BOOL, x->mag = 1;
  const node *a = &p->n[x->a];
  if (a->inexact) return false;
  if (chance(r, 25)) {
    x->kind = N_CMPS, x->sc = fconst(r), x->shape = a->shape;
    return true;
  }
  x->kind = N_CMP, x->b = pick(p);
  if (p->n[x->b].inexact) return false;
  return bcast(&a->shape, &p->n[x->b].shape, &x->shape);
}

static bool gen_cmp(prog *p) {
  rng *r = &p->r;
  node x;
  if (chance(r, 55)) {
    if (!gen_cmp_into(p, &x)) return false;
    add_node(p, &x);
    return true;
  }
  /* torch.where(cond, a, b): a bool node as the condition, else a new comparison */
  int cond = -1;
  for (int t = 0; t < 6 && cond < 0; t++) {
    int c = pick(p);
    if (p->n[c].dtype == BOOL) cond = c;
  }
  if (cond < 0) {
    if (p->nn + 2 >= MAXN || !gen_cmp_into(p, &x)) return false;
    cond = add_node(p, &x);
  }
  memset(&x, 0, sizeof x);
  x.kind = N_WHERE, x.a = cond, x.b = pick(p), x.c = pick(p);
  shp s1;
  if (!bcast(&p->n[x.a].shape, &p->n[x.b].shape, &s1) || !bcast(&s1, &p->n[x.c].shape, &x.shape)) return false;
  int bc[2] = {x.b, x.c};
  x.dtype = result_type(p, bc, 2, 0);
  x.mag = fmax(p->n[x.b].mag, p->n[x.c].mag);
  if (!mag_ok(x.dtype, x.mag)) return false;
  add_node(p, &x);
  return true;
}

static bool gen_cast(prog *p) {
  rng *r = &p->r;
  node x;
  memset(&x, 0, sizeof x);
  x.kind = N_CAST, x.a = pick(p), x.dtype = rnd(r, NDT), x.alias = chance(r, 50);
  const node *a = &p->n[x.a];
  x.shape = a->shape, x.mag = a->mag;
  if (a->inexact && !is_float(x.dtype)) return false;
  if (x.dtype == BOOL) x.mag = 1;
  else if (x.dtype == U8) {
    if (is_float(a->dtype)) return false; /* float → uint8 of a negative value: undefined */
    if (x.mag > 255) x.mag = 255;          /* int → uint8 wraps: defined */
  } else if (is_int(x.dtype) && x.mag > dt_lim[x.dtype]) return false;
  if (!mag_ok(x.dtype, x.mag)) return false;
  add_node(p, &x);
  return true;
}

static bool gen_reduce(prog *p) {
  rng *r = &p->r;
  node x;
  memset(&x, 0, sizeof x);
  x.kind = N_RED, x.op = rnd(r, 3), x.a = pick(p), x.keepdim = chance(r, 70);
  const node *a = &p->n[x.a];
  if (a->shape.rank == 0) return false;
  int dim = rnd(r, a->shape.rank), size = a->shape.d[dim];
  x.dim = chance(r, 40) ? dim - a->shape.rank : dim;
  if (x.op == R_MEAN && (!is_float(a->dtype) || size == 0)) return false; /* mean of ints: error; of nothing: NaN */
  if (x.op == R_AMAX && (a->dtype == BOOL || size == 0)) return false;   /* amax over an empty dim: error */
  x.dtype = x.op == R_SUM && !is_float(a->dtype) ? I64 : a->dtype;
  x.mag = x.op == R_SUM ? a->mag * size_bound(size) : a->mag;
  if (!mag_ok(x.dtype, x.mag)) return false;
  x.shape = a->shape;
  if (x.keepdim) x.shape.d[dim] = 1;
  else {
    for (int i = dim; i + 1 < x.shape.rank; i++) x.shape.d[i] = x.shape.d[i + 1];
    x.shape.rank--;
  }
  add_node(p, &x);
  return true;
}

static int pick_dtype(rng *r) {
  static const int w[NDT] = {8, 4, 4, 4, 10, 10, 10, 7, 35, 8}; /* BOOL … F64 */
  int t = rnd(r, 100);
  for (int d = 0; d < NDT; d++) {
    if (t < w[d]) return d;
    t -= w[d];
  }
  return F32;
}

static void gen_params(prog *p) {
  rng *r = &p->r;
  static const int rw[] = {5, 20, 35, 25, 15}; /* base rank 0 … 4 */
  int t = rnd(r, 100), R = 0;
  while (R < 4 && t >= rw[R]) t -= rw[R++];
  shp base = {R, {0}};
  static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 1, 3, 5, 9, 31};
  double numel = 1;
  for (int i = 0; i < R; i++) {
    int k = rnd(r, 100);
    base.d[i] = k < 12 ? -1 : k < 16 ? -2 : sizes[rnd(r, (int)(sizeof sizes / sizeof sizes[0]))];
    if (numel * size_bound(base.d[i]) > 8192) base.d[i] = 1;
    numel *= size_bound(base.d[i]);
  }
  if (R > 0 && chance(r, 10)) base.d[rnd(r, R)] = 0;
  p->np = 1 + rnd(r, 3);
  int dt0 = pick_dtype(r);
  bool same = chance(r, 45);
  for (int i = 0; i < p->np; i++) {
    node x;
    memset(&x, 0, sizeof x);
    x.kind = N_PARAM;
    x.dtype = same || i == 0 ? dt0 : pick_dtype(r);
    int rk = chance(r, 70) ? R : rnd(r, R + 1);
    x.shape.rank = rk;
    for (int j = 0; j < rk; j++) {
      x.shape.d[j] = base.d[R - rk + j];
      if (chance(r, 20)) x.shape.d[j] = 1;
    }
    x.mag = x.dtype == BOOL ? 1 : 10;
    x.var = i;
    add_node(p, &x);
  }
}

/* ---- emission (cJSON) ---- */
#define T_TENSOR "TorchSharp.torch+Tensor"
#define T_SINGLE "System.Single"
#define T_INT32 "System.Int32"
#define T_INT64 "System.Int64"
#define T_BOOL "System.Boolean"
#define T_NULLABLE_ST "System.Nullable`1[TorchSharp.torch+ScalarType]"
#define T_SCALAR "TorchSharp.Scalar"
#define OPERATORS "Microsoft.FSharp.Core.Operators"

typedef struct em {
  prog *p;
  cJSON *vars;
  int nvars, nwit;
} em;

static int new_var(em *e, const char *name, const char *ty) {
  cJSON *v = cJSON_CreateObject();
  cJSON_AddStringToObject(v, "name", name);
  cJSON_AddStringToObject(v, "type", ty);
  cJSON_AddBoolToObject(v, "mutable", false);
  cJSON_AddItemToArray(e->vars, v);
  return e->nvars++;
}

static char *fn_ty(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 64;
  char *s = malloc(n);
  snprintf(s, n, "Microsoft.FSharp.Core.FSharpFunc`2[%s,%s]", a, b);
  return s;
}

static cJSON *strings(const char *const *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
  return a;
}

static cJSON *member(const char *decl, const char *name, bool st, const char *const *params, int np, const char *ret,
                     const char *const *gargs, int ng) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "decl", decl);
  cJSON_AddStringToObject(m, "name", name);
  cJSON_AddBoolToObject(m, "static", st);
  cJSON_AddItemToObject(m, "params", strings(params, np));
  cJSON_AddStringToObject(m, "ret", ret);
  cJSON_AddItemToObject(m, "genericArgs", strings(gargs, ng));
  return m;
}

static cJSON *knode(const char *k, const char *ty) {
  cJSON *n = cJSON_CreateObject();
  cJSON_AddStringToObject(n, "k", k);
  cJSON_AddStringToObject(n, "ty", ty);
  return n;
}

static cJSON *call(const char *ty, cJSON *obj, cJSON *method, cJSON **args, int na) {
  cJSON *n = knode("Call", ty);
  cJSON_AddItemToObject(n, "obj", obj ? obj : cJSON_CreateNull());
  cJSON_AddItemToObject(n, "method", method);
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < na; i++) cJSON_AddItemToArray(a, args[i]);
  cJSON_AddItemToObject(n, "args", a);
  return n;
}

static cJSON *var_ref(int v, const char *ty) {
  cJSON *n = knode("Var", ty);
  cJSON_AddNumberToObject(n, "var", v);
  return n;
}

static cJSON *value_num(const char *ty, double v) {
  cJSON *n = knode("Value", ty);
  cJSON_AddNumberToObject(n, "value", v);
  return n;
}

static cJSON *value_bool(bool v) {
  cJSON *n = knode("Value", T_BOOL);
  cJSON_AddBoolToObject(n, "value", v);
  return n;
}

static cJSON *lambda(const char *ty, int var, cJSON *body) {
  cJSON *n = knode("Lambda", ty);
  cJSON_AddNumberToObject(n, "var", var);
  cJSON_AddItemToObject(n, "body", body);
  return n;
}

/* Tensor method call: x.name(args) */
static cJSON *method_call(const char *name, cJSON *obj, const char *const *params, cJSON **args, int na) {
  return call(T_TENSOR, obj, member(T_TENSOR, name, false, params, na, T_TENSOR, NULL, 0), args, na);
}

/* torch.name(args) */
static cJSON *torch_call(const char *name, cJSON **args, int na) {
  const char *params[3] = {T_TENSOR, T_TENSOR, T_TENSOR};
  return call(T_TENSOR, NULL, member("TorchSharp.torch", name, true, params, na, T_TENSOR, NULL, 0), args, na);
}

/* An F# operator on (ta, tb) with its witness: fun (a: ta) (b: tb) -> Tensor.op(a, b). */
static cJSON *op2(em *e, const char *op, const char *ta, const char *tb, cJSON *a, cJSON *b) {
  const char *params[2] = {ta, tb}, *gargs[3] = {ta, tb, T_TENSOR};
  char wn[32];
  snprintf(wn, sizeof wn, "arg0_%d", e->nwit);
  int va = new_var(e, wn, ta);
  snprintf(wn, sizeof wn, "arg1_%d", e->nwit++);
  int vb = new_var(e, wn, tb);
  cJSON *wargs[2] = {var_ref(va, ta), var_ref(vb, tb)};
  cJSON *inner = call(T_TENSOR, NULL, member(T_TENSOR, op, true, params, 2, T_TENSOR, NULL, 0), wargs, 2);
  char *f_bt = fn_ty(tb, T_TENSOR), *f_abt = fn_ty(ta, f_bt);
  cJSON *wit = lambda(f_abt, va, lambda(f_bt, vb, inner));
  free(f_bt), free(f_abt);
  cJSON *args[2] = {a, b};
  cJSON *n = call(T_TENSOR, NULL, member(OPERATORS, op, true, params, 2, T_TENSOR, gargs, 3), args, 2);
  cJSON *w = cJSON_CreateArray();
  cJSON_AddItemToArray(w, wit);
  cJSON_AddItemToObject(n, "witnesses", w);
  return n;
}

static cJSON *neg_op(em *e, cJSON *a) {
  const char *params[1] = {T_TENSOR}, *gargs[1] = {T_TENSOR};
  char wn[32];
  snprintf(wn, sizeof wn, "arg0_%d", e->nwit++);
  int va = new_var(e, wn, T_TENSOR);
  cJSON *wargs[1] = {var_ref(va, T_TENSOR)};
  cJSON *inner = call(T_TENSOR, NULL, member(T_TENSOR, "op_UnaryNegation", true, params, 1, T_TENSOR, NULL, 0), wargs, 1);
  char *f = fn_ty(T_TENSOR, T_TENSOR);
  cJSON *wit = lambda(f, va, inner);
  free(f);
  cJSON *args[1] = {a};
  cJSON *n = call(T_TENSOR, NULL, member(OPERATORS, "op_UnaryNegation", true, params, 1, T_TENSOR, gargs, 1), args, 1);
  cJSON *w = cJSON_CreateArray();
  cJSON_AddItemToArray(w, wit);
  cJSON_AddItemToObject(n, "witnesses", w);
  return n;
}

static cJSON *scalar_value(double v, bool is_int) { return value_num(is_int ? T_INT32 : T_SINGLE, v); }

static cJSON *ref(em *e, int i);

static cJSON *dtype_field(int dt) {
  cJSON *n = knode("FieldGet", "TorchSharp.torch+ScalarType");
  cJSON_AddItemToObject(n, "obj", cJSON_CreateNull());
  cJSON_AddItemToObject(n, "field", member("TorchSharp.torch", dt_name[dt], true, NULL, 0, "TorchSharp.torch+ScalarType", NULL, 0));
  return n;
}

static cJSON *dims_array(int dim) {
  cJSON *n = knode("NewArray", "System.Int64[]");
  cJSON_AddStringToObject(n, "elemType", T_INT64);
  cJSON *items = cJSON_CreateArray();
  cJSON_AddItemToArray(items, value_num(T_INT64, dim));
  cJSON_AddItemToObject(n, "items", items);
  return n;
}

static cJSON *expr_of(em *e, int i) {
  const node *x = &e->p->n[i];
  switch (x->kind) {
  case N_BIN: {
    cJSON *a = ref(e, x->a);
    return op2(e, arith_name[x->op], T_TENSOR, T_TENSOR, a, ref(e, x->b));
  }
  case N_BINS: {
    const char *st = x->sc_int ? T_INT32 : T_SINGLE;
    cJSON *a = ref(e, x->a);
    if (x->sc_left) return op2(e, arith_name[x->op], st, T_TENSOR, scalar_value(x->sc, x->sc_int), a);
    return op2(e, arith_name[x->op], T_TENSOR, st, a, scalar_value(x->sc, x->sc_int));
  }
  case N_DIV: {
    cJSON *a = ref(e, x->a);
    cJSON *absb = method_call("abs", ref(e, x->b), NULL, NULL, 0);
    cJSON *den = op2(e, "op_Addition", T_TENSOR, T_SINGLE, absb, value_num(T_SINGLE, 1));
    return op2(e, "op_Division", T_TENSOR, T_TENSOR, a, den);
  }
  case N_UN: {
    cJSON *a = ref(e, x->a);
    switch (x->op) {
    case U_EXP: return method_call("exp", a, NULL, NULL, 0);
    case U_TANH: return method_call("tanh", a, NULL, NULL, 0);
    case U_TANH_T: return torch_call("tanh", &a, 1);
    case U_SIGMOID: return method_call("sigmoid", a, NULL, NULL, 0);
    case U_SIGMOID_T: return torch_call("sigmoid", &a, 1);
    case U_SIN_T: return torch_call("sin", &a, 1);
    case U_COS: return method_call("cos", a, NULL, NULL, 0);
    case U_SQRTABS: return method_call("sqrt", method_call("abs", a, NULL, NULL, 0), NULL, NULL, 0);
    case U_LOGABS1:
      return method_call("log", op2(e, "op_Addition", T_TENSOR, T_SINGLE, method_call("abs", a, NULL, NULL, 0), value_num(T_SINGLE, 1)), NULL, NULL, 0);
    case U_ABS: return method_call("abs", a, NULL, NULL, 0);
    case U_NEG: return method_call("neg", a, NULL, NULL, 0);
    case U_NEGOP: return neg_op(e, a);
    default: return method_call("relu", a, NULL, NULL, 0);
    }
  }
  case N_CMP: {
    const char *params[1] = {T_TENSOR};
    cJSON *args[1];
    cJSON *a = ref(e, x->a);
    args[0] = ref(e, x->b);
    return method_call(cmp_name[x->op], a, params, args, 1);
  }
  case N_CMPS: {
    const char *params[1] = {T_SCALAR}, *sp[1] = {T_SINGLE};
    cJSON *v = value_num(T_SINGLE, x->sc);
    cJSON *args[1] = {call(T_SCALAR, NULL, member("TorchSharp.ScalarExtensionMethods", "ToScalar", true, sp, 1, T_SCALAR, NULL, 0), &v, 1)};
    return method_call(cmp_name[x->op], ref(e, x->a), params, args, 1);
  }
  case N_WHERE: {
    cJSON *args[3];
    args[0] = ref(e, x->a), args[1] = ref(e, x->b), args[2] = ref(e, x->c);
    return torch_call("where", args, 3);
  }
  case N_CAST: {
    cJSON *a = ref(e, x->a);
    if (x->alias) return method_call(dt_method[x->dtype], a, NULL, NULL, 0);
    const char *params[4] = {"TorchSharp.torch+ScalarType", T_BOOL, T_BOOL, T_BOOL};
    cJSON *args[4] = {dtype_field(x->dtype), value_bool(false), value_bool(false), value_bool(false)};
    return method_call("to_type", a, params, args, 4);
  }
  case N_RED: {
    cJSON *a = ref(e, x->a);
    if (x->op == R_SUM) {
      const char *params[3] = {T_INT64, T_BOOL, T_NULLABLE_ST};
      cJSON *args[3] = {value_num(T_INT64, x->dim), value_bool(x->keepdim), knode("DefaultValue", T_NULLABLE_ST)};
      return method_call("sum", a, params, args, 3);
    }
    if (x->op == R_MEAN) {
      const char *params[3] = {"System.Int64[]", T_BOOL, T_NULLABLE_ST};
      cJSON *args[3] = {dims_array(x->dim), value_bool(x->keepdim), knode("DefaultValue", T_NULLABLE_ST)};
      return method_call("mean", a, params, args, 3);
    }
    const char *params[3] = {"System.Int64[]", T_BOOL, T_TENSOR};
    cJSON *nul = knode("Value", T_TENSOR);
    cJSON_AddNullToObject(nul, "value");
    cJSON *args[3] = {dims_array(x->dim), value_bool(x->keepdim), nul};
    return method_call("amax", a, params, args, 3);
  }
  default: return var_ref(x->var, T_TENSOR);
  }
}

static cJSON *ref(em *e, int i) {
  const node *x = &e->p->n[i];
  if (x->kind == N_PARAM || x->let) return var_ref(x->var, T_TENSOR);
  return expr_of(e, i);
}

static void count_uses(prog *p, int i, bool *seen) {
  node *x = &p->n[i];
  x->uses++;
  if (seen[i]) return;
  seen[i] = true;
  int ops[3], nops = operands(x, ops);
  for (int k = 0; k < nops; k++) count_uses(p, ops[k], seen);
}

int kg_fuzz_parse_ops(const char *list, unsigned *mask) {
  static const char *const names[] = {"arith", "unary", "cmp", "cast", "reduce"};
  unsigned m = 0;
  for (const char *s = list; s && *s;) {
    const char *c = strchr(s, ',');
    size_t l = c ? (size_t)(c - s) : strlen(s);
    bool ok = false;
    if (l == 3 && !strncmp(s, "all", 3)) m |= KG_FUZZ_ALL, ok = true;
    for (int i = 0; i < 5; i++)
      if (strlen(names[i]) == l && !strncmp(names[i], s, l)) m |= 1u << i, ok = true;
    if (!ok) return -1;
    s = c ? c + 1 : NULL;
  }
  if (!m) return -1;
  *mask = m;
  return 0;
}

char *kg_fuzz_generate(uint64_t seed, unsigned ops, size_t *len) {
  prog *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->r.s = seed * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull;
  p->ops = ops & KG_FUZZ_ALL ? ops & KG_FUZZ_ALL : KG_FUZZ_ALL;
  gen_params(p);
  /* families by weight: arith 30, unary 25, cmp 15, cast 12, reduce 18 */
  static const int fw[5] = {30, 25, 15, 12, 18};
  int total = 0;
  for (int f = 0; f < 5; f++) total += p->ops & (1u << f) ? fw[f] : 0;
  int target = 2 + rnd(&p->r, 9), made = 0;
  for (int tries = 0; made < target && tries < 300 && p->nn + 3 < MAXN; tries++) {
    int t = rnd(&p->r, total), f = 0;
    for (; f < 5; f++) {
      if (!(p->ops & (1u << f))) continue;
      if (t < fw[f]) break;
      t -= fw[f];
    }
    bool ok = f == 0 ? gen_arith(p) : f == 1 ? gen_unary(p) : f == 2 ? gen_cmp(p) : f == 3 ? gen_cast(p) : gen_reduce(p);
    made += ok;
  }
  if (p->nn == p->np) { /* nothing fitted (e.g. --ops reduce on scalars): a cast to float32 */
    node x;
    memset(&x, 0, sizeof x);
    x.kind = N_CAST, x.a = p->nn - 1, x.dtype = F32, x.shape = p->n[x.a].shape, x.mag = p->n[x.a].mag;
    add_node(p, &x);
  }
  /* the result: the last node, sometimes a tuple with up to two nodes it does not use */
  int outs[3] = {p->nn - 1}, nout = 1;
  bool seen[MAXN] = {false}, is_out[MAXN] = {false};
  count_uses(p, outs[0], seen);
  if (chance(&p->r, 35))
    for (int i = p->nn - 2; i >= p->np && nout < 3; i--)
      if (!seen[i]) outs[nout++] = i, count_uses(p, i, seen);
  for (int k = 0; k < nout; k++) is_out[outs[k]] = true;

  em e = {p, cJSON_CreateArray(), 0, 0};
  static const char *const pnames[] = {"x", "y", "z"};
  for (int i = 0; i < p->np; i++) new_var(&e, pnames[i], T_TENSOR);
  int lets[MAXN], nlet = 0;
  for (int i = p->np; i < p->nn; i++) {
    node *x = &p->n[i];
    if (!seen[i] || is_out[i]) continue;
    if (x->uses > 1 || chance(&p->r, 30)) {
      char nm[16];
      snprintf(nm, sizeof nm, "t%d", i - p->np);
      x->let = true, x->var = new_var(&e, nm, T_TENSOR), lets[nlet++] = i;
    }
  }
  /* the let values in order (their witnesses' variables numbered in source order), then the result */
  cJSON *vals[MAXN];
  for (int k = 0; k < nlet; k++) vals[k] = expr_of(&e, lets[k]);
  char ret_ty[256] = T_TENSOR;
  cJSON *body;
  if (nout == 1) body = expr_of(&e, outs[0]);
  else {
    snprintf(ret_ty, sizeof ret_ty, "System.Tuple`%d[%s,%s%s]", nout, T_TENSOR, T_TENSOR, nout == 3 ? "," T_TENSOR : "");
    body = knode("NewTuple", ret_ty);
    cJSON *items = cJSON_CreateArray();
    for (int k = 0; k < nout; k++) cJSON_AddItemToArray(items, expr_of(&e, outs[k]));
    cJSON_AddItemToObject(body, "items", items);
  }
  for (int k = nlet - 1; k >= 0; k--) {
    cJSON *l = knode("Let", ret_ty);
    cJSON_AddNumberToObject(l, "var", p->n[lets[k]].var);
    cJSON_AddItemToObject(l, "value", vals[k]);
    cJSON_AddItemToObject(l, "body", body);
    body = l;
  }
  /* Lambda x -> Lambda y -> … body */
  char *tys[4];
  tys[p->np] = strdup(ret_ty);
  for (int i = p->np - 1; i >= 0; i--) tys[i] = fn_ty(T_TENSOR, tys[i + 1]);
  for (int i = p->np - 1; i >= 0; i--) body = lambda(tys[i], i, body);
  for (int i = 0; i <= p->np; i++) free(tys[i]);

  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "format", "kgen-quotation");
  cJSON_AddNumberToObject(doc, "version", 1);
  cJSON_AddItemToObject(doc, "vars", e.vars);
  cJSON *entries = cJSON_CreateArray(), *ent = cJSON_CreateObject();
  char name[48];
  snprintf(name, sizeof name, "fuzz_%llu", (unsigned long long)seed);
  cJSON_AddStringToObject(ent, "name", name);
  cJSON *sig = cJSON_CreateObject(), *params = cJSON_CreateArray();
  for (int i = 0; i < p->np; i++) {
    const node *x = &p->n[i];
    cJSON *pj = cJSON_CreateObject(), *sh = cJSON_CreateArray();
    cJSON_AddStringToObject(pj, "dtype", dt_name[x->dtype]);
    for (int j = 0; j < x->shape.rank; j++)
      cJSON_AddItemToArray(sh, x->shape.d[j] >= 0 ? cJSON_CreateNumber(x->shape.d[j]) : cJSON_CreateString(sym_name(x->shape.d[j])));
    cJSON_AddItemToObject(pj, "shape", sh);
    cJSON_AddItemToArray(params, pj);
  }
  cJSON_AddItemToObject(sig, "params", params);
  cJSON_AddItemToObject(ent, "signature", sig);
  cJSON_AddItemToObject(ent, "expr", body);
  cJSON_AddItemToArray(entries, ent);
  cJSON_AddItemToObject(doc, "entries", entries);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  free(p);
  if (text && len) *len = strlen(text);
  return text;
}
