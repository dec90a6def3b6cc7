/* cli/fuzz_gen.c — the program generator of `kgen fuzz` (issue 13): its core.
 *
 * Builds one kgen-quotation document per seed: an entry `fuzz_<seed>` that is a Lambda
 * chain over 1–4 tensor parameters, with a signature (dtypes, static sizes including 0, 1
 * and odd ones, sometimes the symbols N and M), whose body is a random DAG of tensor
 * operations of the families asked for (fuzz.h), some nodes let-bound (always those used
 * twice), the others nested at their use; loops and in-place ops are statements of the let
 * chain (fuzz_cf.c). Every node is spelled exactly as the F# serializer writes it (the JSON
 * files of examples/; builders in fuzz_json.c). Only member keys that occur in the examples
 * are used.
 *
 * The generator types every node as PyTorch would: result dtypes with PyTorch's promotion
 * (result_type: dimensioned tensors, then zero-dim tensors, then wrapped scalars, by
 * category), shapes with right-aligned broadcasting, and an upper bound on each node's
 * magnitude. It avoids what PyTorch's own test inputs avoid: no zero integer divisors
 * (divisors are |y| + 1 or non-zero constants), shift counts in [0, 8), no integer overflow
 * (the magnitude bound stays inside the dtype; uint8 wraps, which is defined), exp only
 * below 10, sqrt and log only of |x| (+ 1), no float → unsigned casts and no float → int
 * cast out of range, no mean/amax over an empty dim (NaN, error), no float16 value above
 * 3e4, and never compares or casts to an integer a float that two correct implementations
 * may round an ulp apart. Inputs are what the check kit makes: floats in [-9, 9], ints in
 * [-9, 10), uint8 in [0, 10).
 *
 * Determinism: a splitmix64 stream seeded from the seed; nothing else (no rand(), no time,
 * no addresses) reaches the output; cJSON prints numbers reproducibly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_int.h"

/* ---- PRNG: splitmix64 ---- */
uint64_t fz_next(fz_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
int fz_rnd(fz_rng *r, int n) { return n <= 1 ? 0 : (int)(fz_next(r) % (uint64_t)n); }
bool fz_chance(fz_rng *r, int percent) { return fz_rnd(r, 100) < percent; }

/* ---- dtypes and PyTorch's promotion ---- */
const char *const fz_dt_name[NDT] = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
/* the Tensor method that casts to each dtype (Tensor::bool(), …: all in examples/cast_*) */
const char *const fz_dt_method[NDT] = {"bool", "byte", "char", "short", "int", "long", "half", "bfloat16", "float", "double"};
/* largest magnitude a node of the dtype may reach */
const double fz_dt_lim[NDT] = {1, 255, 127, 32767, 2147483647.0, 9.0e18, 3.0e4, 1e25, 1e25, 1e25};

int fz_promote(int a, int b) {
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
  if (higher == BOOL || is_float(lower)) return fz_promote(higher, lower);
  return higher;
}

bool fz_mag_ok(int dt, double m) { return dt == U8 || m <= fz_dt_lim[dt]; }

int fz_result_type(const fz_prog *p, const int *ops, int n, int scalar) {
  int dimr = -1, zeror = -1, wrapr = scalar == 1 ? I64 : scalar == 2 ? F32 : -1;
  for (int i = 0; i < n; i++) {
    const fz_node *x = &p->n[ops[i]];
    int *t = x->shape.rank == 0 ? &zeror : &dimr;
    *t = *t < 0 ? x->dtype : fz_promote(*t, x->dtype);
  }
  return combine(dimr, combine(zeror, wrapr));
}

/* ---- shapes ---- */
const char *fz_sym_name(int d) { return d == -1 ? "N" : "M"; }
double fz_size_bound(int d) { return d >= 0 ? d : 64; }

double fz_numel_bound(const fz_shp *s) {
  double n = 1;
  for (int i = 0; i < s->rank; i++) n *= fz_size_bound(s->d[i]);
  return n;
}

bool fz_all_static(const fz_shp *s) {
  for (int i = 0; i < s->rank; i++)
    if (s->d[i] < 0) return false;
  return true;
}

bool fz_shape_eq(const fz_shp *a, const fz_shp *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->d[i] != b->d[i]) return false;
  return true;
}

bool fz_bcast(const fz_shp *a, const fz_shp *b, fz_shp *out) {
  fz_shp r;
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

/* ---- nodes ---- */
void fz_node_init(fz_node *x, int kind) {
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->in[0] = x->in[1] = x->in[2] = -1;
}

static int dt_prec(int d) { return d == F64 ? 3 : d == F32 ? 2 : is_float(d) ? 1 : 0; }

int fz_add_node(fz_prog *p, const fz_node *x) {
  if (p->nn >= MAXN) return -1;
  fz_node y = *x;
  int inherited = 0; /* the narrowest precision of an inexact operand */
  bool nan_in = false;
  for (int i = 0; i < y.nin; i++) nan_in |= p->n[y.in[i]].nanny;
  if (nan_in && !fz_nan_safe(p, &y)) return -1;
  y.nanny = y.kind == N_NANIN;
  for (int i = y.kind == N_IF ? 1 : 0; i < y.nin; i++) { /* an if's condition is no value of it */
    const fz_node *o = &p->n[y.in[i]];
    if (o->inexact && (!inherited || o->prec < inherited)) inherited = o->prec;
    y.nanny |= o->nanny;
  }
  if (!is_float(y.dtype)) y.nanny = false; /* comparisons (NaN compares false), argmax: exact */
  if (y.kind == N_PARAM || y.kind == N_CAPT) y.f64ok = is_float(y.dtype);
  else if (!is_float(y.dtype) || y.kind == N_RAND || (y.kind == N_CAST && y.dtype != F64)) y.f64ok = false;
  else {
    bool any = false, all = true;
    for (int i = y.kind == N_IF ? 1 : 0; i < y.nin; i++) {
      const fz_node *o = &p->n[y.in[i]];
      if (is_float(o->dtype)) any = true, all &= o->f64ok;
    }
    y.f64ok = any && all;
  }
  if (!is_float(y.dtype)) y.inexact = false, y.prec = 0; /* comparisons, casts to int: checked at creation */
  else {
    if (inherited && inherited < dt_prec(y.dtype)) return -1;
    y.inexact |= inherited != 0;
    y.prec = y.inexact ? (inherited ? inherited : dt_prec(y.dtype)) : 0;
  }
  y.discrete = !is_float(y.dtype);
  if (!y.discrete && y.nin) { /* a float made only from discrete values */
    y.discrete = true;
    for (int i = y.kind == N_IF ? 1 : 0; i < y.nin; i++) y.discrete &= p->n[y.in[i]].discrete;
  }
  for (int i = 0; i < y.nin; i++) p->n[y.in[i]].gen_used = true;
  p->n[p->nn] = y;
  return p->nn++;
}

/* An operand: mostly one of the last few nodes, so that the DAG is deep; never a node an
 * in-place op rebound (its old value is gone). */
int fz_pick(fz_prog *p) {
  for (int t = 0; t < 8; t++) {
    int k = fz_rnd(&p->r, 100), i = -1;
    if (k < 40) {
      int m = p->nn < 3 ? p->nn : 3;
      i = p->nn - 1 - fz_rnd(&p->r, m);
    } else if (k < 75) { /* a node nothing uses yet: fewer dead branches */
      int unused[MAXN], nu = 0;
      for (int j = 0; j < p->nn; j++)
        if (!p->n[j].gen_used && !p->n[j].dead) unused[nu++] = j;
      if (nu) i = unused[fz_rnd(&p->r, nu)];
    }
    if (i < 0) i = fz_rnd(&p->r, p->nn);
    if (!p->n[i].dead) return i;
  }
  for (int i = p->nn - 1; i >= 0; i--)
    if (!p->n[i].dead) return i;
  return 0;
}

double fz_fconst(fz_rng *r) {
  static const double v[] = {0.5, 2, -1.5, 0.25, 3, -0.75, 1, 0.125, 1.5, -2};
  return v[fz_rnd(r, (int)(sizeof v / sizeof v[0]))];
}

static int pick_dtype(fz_rng *r) {
  static const int w[NDT] = {8, 4, 4, 4, 10, 10, 10, 7, 35, 8}; /* BOOL … F64 */
  int t = fz_rnd(r, 100);
  for (int d = 0; d < NDT; d++) {
    if (t < w[d]) return d;
    t -= w[d];
  }
  return F32;
}

static void gen_params(fz_prog *p) {
  fz_rng *r = &p->r;
  static const int rw[] = {5, 20, 35, 25, 15}; /* base rank 0 … 4 */
  int t = fz_rnd(r, 100), R = 0;
  while (R < 4 && t >= rw[R]) t -= rw[R++];
  fz_shp base = {R, {0}};
  static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 1, 3, 5, 9, 31};
  double numel = 1;
  for (int i = 0; i < R; i++) {
    int k = fz_rnd(r, 100);
    base.d[i] = k < 12 ? -1 : k < 16 ? -2 : sizes[fz_rnd(r, (int)(sizeof sizes / sizeof sizes[0]))];
    if (numel * fz_size_bound(base.d[i]) > 8192) base.d[i] = 1;
    numel *= fz_size_bound(base.d[i]);
  }
  /* the CNN families: often an image-like base [B, C, H, W] or [B, C, L] (static channels and
   * spatial sizes, the batch sometimes the symbol N) */
  if ((p->ops & (KG_FUZZ_CONV | KG_FUZZ_POOL | KG_FUZZ_CNORM | KG_FUZZ_RESAMPLE)) && fz_chance(r, 50)) {
    static const int bs[] = {1, 2, 3, -1}, cs[] = {1, 2, 3, 4, 6, 8}, hs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11};
    R = fz_chance(r, 35) ? 3 : 4;
    base.rank = R, base.d[0] = bs[fz_rnd(r, 4)], base.d[1] = cs[fz_rnd(r, 6)];
    numel = fz_size_bound(base.d[0]) * base.d[1];
    for (int i = 2; i < R; i++) {
      base.d[i] = hs[fz_rnd(r, 10)];
      if (numel * base.d[i] > 16384) base.d[i] = 2;
      numel *= base.d[i];
    }
  }
  if (R > 0 && fz_chance(r, 10)) base.d[fz_rnd(r, R)] = 0;
  p->np = 1 + fz_rnd(r, 3);
  int dt0 = pick_dtype(r);
  bool same = fz_chance(r, 45);
  for (int i = 0; i < p->np; i++) {
    fz_node x;
    fz_node_init(&x, N_PARAM);
    x.dtype = same || i == 0 ? dt0 : pick_dtype(r);
    int rk = fz_chance(r, 70) ? R : fz_rnd(r, R + 1);
    x.shape.rank = rk;
    for (int j = 0; j < rk; j++) {
      x.shape.d[j] = base.d[R - rk + j];
      if (fz_chance(r, 20)) x.shape.d[j] = 1;
    }
    x.mag = x.dtype == BOOL ? 1 : 10;
    x.var = i, x.contig = true;
    fz_add_node(p, &x);
  }
  /* matrix products: a weight [k, n] whose k is the base's last size (x @ w, linear) */
  if ((p->ops & KG_FUZZ_MATMUL) && R > 0 && fz_chance(r, 60)) {
    static const int ns[] = {1, 2, 3, 5, 8, 16, 7};
    fz_node x;
    fz_node_init(&x, N_PARAM);
    x.dtype = is_float(dt0) || dt0 == BOOL ? (dt0 == BOOL ? F32 : dt0) : dt0;
    x.shape.rank = 2, x.shape.d[0] = base.d[R - 1], x.shape.d[1] = ns[fz_rnd(r, 7)];
    if (fz_chance(r, 15)) x.shape.d[1] = -2;
    x.mag = 10, x.var = p->np++, x.contig = true;
    fz_add_node(p, &x);
  }
}

/* A float node from `a`: itself, else a cast to float32 (the families defined on floats only). */
int fz_float_operand(fz_prog *p, int a) {
  if (is_float(p->n[a].dtype)) return a;
  if (p->nn + 2 >= MAXN) return -1;
  fz_node x;
  fz_node_init(&x, N_CAST);
  x.in[0] = a, x.nin = 1, x.dtype = F32, x.alias = fz_chance(&p->r, 50);
  x.shape = p->n[a].shape, x.mag = p->n[a].mag, x.contig = p->n[a].contig;
  return fz_add_node(p, &x);
}

int fz_int_operand(fz_prog *p, int a) {
  const fz_node *n = &p->n[a];
  if (!is_float(n->dtype)) return a;
  if (n->inexact || n->mag > 2e9 || p->nn + 2 >= MAXN) return -1;
  fz_node x;
  fz_node_init(&x, N_CAST);
  x.in[0] = a, x.nin = 1, x.dtype = fz_chance(&p->r, 50) ? I32 : I64, x.alias = fz_chance(&p->r, 50);
  x.shape = n->shape, x.mag = n->mag, x.contig = n->contig;
  return fz_add_node(p, &x);
}

int fz_mask_operand(fz_prog *p, int a, const fz_shp *into) {
  const fz_node *n = &p->n[a];
  fz_shp o;
  if (!fz_bcast(into, &n->shape, &o) || !fz_shape_eq(&o, into)) return -1;
  if (n->dtype == BOOL) return a;
  if (n->inexact || p->nn + 2 >= MAXN) return -1;
  fz_node x;
  fz_node_init(&x, N_CMPS);
  x.op = fz_rnd(&p->r, 6), x.in[0] = a, x.nin = 1, x.dtype = BOOL, x.mag = 1, x.contig = true;
  x.sc = fz_fconst(&p->r), x.shape = n->shape;
  return fz_add_node(p, &x);
}

/* ---- emission ---- */
static cJSON *expr_of(fz_em *e, int i) {
  const fz_node *x = &e->p->n[i];
  switch (x->kind) {
  case N_PARAM: return fz_var_ref(x->var, T_TENSOR);
  case N_RED: case N_REDN: case N_NORM: case N_LAYOUT: case N_MM: return fz_expr_shape(e, x);
  case N_LOOP: case N_IF: case N_INPLACE: return fz_expr_cf(e, x);
  case N_CONV: case N_POOL: case N_CNORM: case N_RESAMPLE: case N_RAND: return fz_expr_cnn(e, x);
  case N_CAPT: case N_SCALAR: case N_NANIN: case N_MAXMIN: return fz_expr_misc(e, x);
  default: return fz_expr_pw(e, x);
  }
}

cJSON *fz_ref(fz_em *e, int i) {
  const fz_node *x = &e->p->n[i];
  if (x->kind == N_INPLACE) return fz_ref(e, x->in[0]); /* the rebound variable */
  if (x->kind == N_PARAM || x->let) return fz_var_ref(x->var, T_TENSOR);
  if (x->kind == N_CAPT) return fz_capture_ref(e, x->var);
  return expr_of(e, i);
}

static void count_uses(fz_prog *p, int i, bool *seen) {
  fz_node *x = &p->n[i];
  x->uses++;
  if (seen[i]) return;
  seen[i] = true;
  for (int k = 0; k < x->nin; k++) count_uses(p, x->in[k], seen);
}

static const char *const family_names[] = {"arith", "unary", "cmp", "cast", "reduce", "intops",
                                           "act", "norm", "layout", "matmul", "cf", "inplace",
                                           "conv", "pool", "cnorm", "resample", "random", "capture", "scalar", "nan"};
#define NFAM ((int)(sizeof family_names / sizeof family_names[0]))

int kg_fuzz_parse_ops(const char *list, unsigned *mask) {
  unsigned m = 0;
  for (const char *s = list; s && *s;) {
    const char *c = strchr(s, ',');
    size_t l = c ? (size_t)(c - s) : strlen(s);
    bool ok = false;
    if (l == 3 && !strncmp(s, "all", 3)) m |= KG_FUZZ_ALL, ok = true;
    for (int i = 0; i < NFAM; i++)
      if (strlen(family_names[i]) == l && !strncmp(family_names[i], s, l)) m |= 1u << i, ok = true;
    if (!ok) return -1;
    s = c ? c + 1 : NULL;
  }
  if (!m) return -1;
  *mask = m;
  return 0;
}

const char *kg_fuzz_family_name(int i) { return i >= 0 && i < NFAM ? family_names[i] : NULL; }

static cJSON *wrap_let(int var, const char *ty, cJSON *value, cJSON *body) {
  cJSON *l = fz_knode("Let", ty);
  cJSON_AddNumberToObject(l, "var", var);
  cJSON_AddItemToObject(l, "value", value);
  cJSON_AddItemToObject(l, "body", body);
  return l;
}

static cJSON *wrap_seq(const char *ty, cJSON *first, cJSON *second) {
  cJSON *s = fz_knode("Sequential", ty);
  cJSON_AddItemToObject(s, "first", first);
  cJSON_AddItemToObject(s, "second", second);
  return s;
}

char *kg_fuzz_generate(uint64_t seed, unsigned ops, size_t *len) {
  fz_prog *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->r.s = seed * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull;
  p->ops = ops & KG_FUZZ_ALL ? ops & KG_FUZZ_ALL : KG_FUZZ_ALL;
  p->scalar_dt = -1;
  gen_params(p);
  /* families by weight */
  static const int fw[NFAM] = {27, 23, 15, 12, 18, 12, 14, 10, 22, 12, 10, 6, 11, 9, 7, 7, 5, 5, 4, 5};
  static bool (*const gen[NFAM])(fz_prog *) = {fz_gen_arith,  fz_gen_unary,  fz_gen_cmp,   fz_gen_cast,    fz_gen_reduce,
                                               fz_gen_intops, fz_gen_act,    fz_gen_norm,  fz_gen_layout,  fz_gen_matmul,
                                               fz_gen_cf,     fz_gen_inplace, fz_gen_conv, fz_gen_pool,    fz_gen_cnorm,
                                               fz_gen_resample, fz_gen_random, fz_gen_capture, fz_gen_scalar, fz_gen_nan};
  int total = 0;
  for (int f = 0; f < NFAM; f++) total += p->ops & (1u << f) ? fw[f] : 0;
  int target = 2 + fz_rnd(&p->r, 11), made = 0;
  for (int tries = 0; made < target && tries < 300 && p->nn + 6 < MAXN; tries++) {
    int t = fz_rnd(&p->r, total), f = 0;
    for (; f < NFAM; f++) {
      if (!(p->ops & (1u << f))) continue;
      if (t < fw[f]) break;
      t -= fw[f];
    }
    int nn0 = p->nn, ncap0 = p->ncap;
    bool ok = gen[f](p);
    if (!ok) p->nn = nn0, p->ncap = ncap0; /* drop what a family added before it failed (a capture) */
    made += ok;
  }
  if (p->nn == p->np) { /* nothing fitted (e.g. --ops reduce on scalars): a cast to float32 */
    fz_node x;
    fz_node_init(&x, N_CAST);
    x.in[0] = p->nn - 1, x.nin = 1, x.dtype = F32, x.shape = p->n[x.in[0]].shape, x.mag = p->n[x.in[0]].mag;
    fz_add_node(p, &x);
  }
  /* the result: the last node, sometimes a tuple with up to two nodes it does not use */
  int outs[3] = {p->nn - 1}, nout = 1;
  bool seen[MAXN] = {false}, is_out[MAXN] = {false};
  count_uses(p, outs[0], seen);
  if (fz_chance(&p->r, 35))
    for (int i = p->nn - 2; i >= p->np && nout < 3; i--)
      if (!seen[i] && !p->n[i].dead && p->n[i].kind != N_INPLACE && p->n[i].kind != N_CAPT) outs[nout++] = i, count_uses(p, i, seen);
  for (int k = 0; k < nout; k++) is_out[outs[k]] = true;

  fz_em e = {p, cJSON_CreateArray(), 0, 0, 0};
  static const char *const pnames[] = {"x", "y", "z", "w"};
  for (int i = 0; i < p->np; i++) fz_new_var(&e, pnames[i], T_TENSOR, false);
  static const char *const sc_ty[NDT] = {[F32] = T_SINGLE, [F64] = T_DOUBLE, [I32] = T_INT32, [I64] = T_INT64};
  if (p->scalar_dt >= 0) fz_new_var(&e, "s", sc_ty[p->scalar_dt], false); /* variable np */
  /* the let chain: let-bound nodes, loops (a mutable let and the loop), in-place statements */
  int chain[MAXN], nch = 0;
  for (int i = p->np; i < p->nn; i++) {
    fz_node *x = &p->n[i];
    if (!seen[i]) continue;
    bool rebound = false; /* rebound by a reachable in-place op: a let of its own */
    for (int j = i + 1; j < p->nn; j++) rebound |= seen[j] && p->n[j].kind == N_INPLACE && p->n[j].in[0] == i;
    char nm[16];
    if (x->kind == N_CAPT) continue; /* a ValueWithName at each use */
    if (x->kind == N_LOOP) {
      snprintf(nm, sizeof nm, "c%d", i - p->np);
      x->let = x->mut = true, x->var = fz_new_var(&e, nm, T_TENSOR, true), chain[nch++] = i;
    } else if (x->kind == N_INPLACE) chain[nch++] = i;
    else if (rebound || (!is_out[i] && (x->uses > 1 || fz_chance(&p->r, 30)))) {
      snprintf(nm, sizeof nm, "t%d", i - p->np);
      x->let = true, x->var = fz_new_var(&e, nm, T_TENSOR, false), chain[nch++] = i;
    }
  }
  /* the values and statements in source order (their witnesses' variables numbered so), then the result */
  cJSON *vals[MAXN], *stmts[MAXN];
  int counters[MAXN];
  for (int k = 0; k < nch; k++) {
    int i = chain[k];
    counters[k] = -1, vals[k] = stmts[k] = NULL;
    if (p->n[i].kind == N_LOOP) {
      vals[k] = fz_ref(&e, p->n[i].in[0]);
      stmts[k] = fz_stmt_cf(&e, i, &counters[k]);
    } else if (p->n[i].kind == N_INPLACE) stmts[k] = fz_stmt_cf(&e, i, &counters[k]);
    else vals[k] = expr_of(&e, i);
  }
  char ret_ty[256] = T_TENSOR;
  cJSON *body;
  if (nout == 1) body = fz_ref(&e, outs[0]);
  else {
    snprintf(ret_ty, sizeof ret_ty, "System.Tuple`%d[%s,%s%s]", nout, T_TENSOR, T_TENSOR, nout == 3 ? "," T_TENSOR : "");
    body = fz_knode("NewTuple", ret_ty);
    cJSON *items = cJSON_CreateArray();
    for (int k = 0; k < nout; k++) cJSON_AddItemToArray(items, fz_ref(&e, outs[k]));
    cJSON_AddItemToObject(body, "items", items);
  }
  for (int k = nch - 1; k >= 0; k--) {
    const fz_node *x = &p->n[chain[k]];
    if (stmts[k]) {
      body = wrap_seq(ret_ty, stmts[k], body);
      if (counters[k] >= 0) body = wrap_let(counters[k], ret_ty, fz_value_num(T_INT32, 0), body);
    }
    if (vals[k]) body = wrap_let(x->var, ret_ty, vals[k], body);
  }
  /* Lambda x -> Lambda y -> … body */
  char *tys[6];
  int nlam = p->np + (p->scalar_dt >= 0);
  tys[nlam] = strdup(ret_ty);
  for (int i = nlam - 1; i >= 0; i--) tys[i] = fz_fn_ty(i < p->np ? T_TENSOR : sc_ty[p->scalar_dt], tys[i + 1]);
  for (int i = nlam - 1; i >= 0; i--) body = fz_lambda(tys[i], i, body);
  for (int i = 0; i <= nlam; i++) free(tys[i]);

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
    const fz_node *x = &p->n[i];
    cJSON *pj = cJSON_CreateObject(), *sh = cJSON_CreateArray();
    cJSON_AddStringToObject(pj, "dtype", fz_dt_name[x->dtype]);
    for (int j = 0; j < x->shape.rank; j++)
      cJSON_AddItemToArray(sh, x->shape.d[j] >= 0 ? cJSON_CreateNumber(x->shape.d[j]) : cJSON_CreateString(fz_sym_name(x->shape.d[j])));
    cJSON_AddItemToObject(pj, "shape", sh);
    cJSON_AddItemToArray(params, pj);
  }
  if (p->scalar_dt >= 0) {
    cJSON *pj = cJSON_CreateObject();
    cJSON_AddStringToObject(pj, "scalar", fz_dt_name[p->scalar_dt]);
    cJSON_AddItemToArray(params, pj);
  }
  cJSON_AddItemToObject(sig, "params", params);
  if (e.cap_used) {
    cJSON *caps = cJSON_CreateObject();
    for (int k = 0; k < p->ncap; k++) { /* the captures the body reads */
      if (!(e.cap_used >> k & 1)) continue;
      cJSON *cj = cJSON_CreateObject(), *sh = cJSON_CreateArray();
      cJSON_AddStringToObject(cj, "dtype", fz_dt_name[p->cap_dt[k]]);
      for (int j = 0; j < p->cap_shape[k].rank; j++) cJSON_AddItemToArray(sh, cJSON_CreateNumber(p->cap_shape[k].d[j]));
      cJSON_AddItemToObject(cj, "shape", sh);
      char cn[16];
      snprintf(cn, sizeof cn, "c%d", k);
      cJSON_AddItemToObject(caps, cn, cj);
    }
    cJSON_AddItemToObject(sig, "captures", caps);
  }
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
