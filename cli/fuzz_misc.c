/* cli/fuzz_misc.c — the `kgen fuzz` families that are about where values come from (issue 13):
 *   capture  a captured tensor (`ValueWithName`, as the F# serializer writes a tensor the
 *            quotation closes over; the signature's "captures") of a static shape that
 *            broadcasts into a node's, combined with it by + - *; the CNN families take their
 *            weights, biases and running statistics as captures too (fz_capture);
 *   scalar   an F# scalar entry parameter `(s: float32)` (or float, int, int64: one per
 *            program, the last lambda, the signature's {"scalar": …}) in `x op s` / `s op x`;
 *   nan      NaN, +infinity or -infinity put into a float value where a mask of an exact value
 *            holds (`x.masked_fill(m, nan.ToScalar())`, F#'s nan / infinity properties; the
 *            check's inputs are finite), and the NaN-aware binary ops `torch.maximum`,
 *            `x.minimum`, `torch.fmax`, `x.fmin`. A value that may hold NaN or ±inf is
 *            `nanny`; fz_add_node lets only the ops fz_nan_safe names read it: those whose
 *            result on NaN / ±inf PyTorch defines and two IEEE implementations agree on
 *            (arithmetic, comparisons, where, max / min and their reductions, sums, abs /
 *            neg / relu, clamp, float casts, layout) — never a cast to an integer, an index,
 *            a matrix product, a norm or an activation with branches on the value.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_int.h"

/* ---- captures ---- */
int fz_capture(fz_prog *p, int dtype, const fz_shp *shape) {
  if (!fz_all_static(shape) || p->ncap >= MAXCAP) return -1;
  p->cap_dt[p->ncap] = dtype, p->cap_shape[p->ncap] = *shape;
  return p->ncap++;
}

cJSON *fz_capture_ref(fz_em *e, int k) {
  e->cap_used |= 1u << k;
  cJSON *n = fz_knode("ValueWithName", T_TENSOR), *v = cJSON_CreateObject();
  cJSON_AddBoolToObject(v, "opaque", true);
  cJSON_AddItemToObject(n, "value", v);
  char nm[16];
  snprintf(nm, sizeof nm, "c%d", k);
  cJSON_AddStringToObject(n, "name", nm);
  return n;
}

cJSON *fz_nullable_i64_or_default(long long v, bool given) {
  return given ? fz_nullable_i64(v) : fz_default("System.Nullable`1[System.Int64]");
}

enum { A_ADD, A_SUB, A_MUL };
static const char *const arith_name[] = {"op_Addition", "op_Subtraction", "op_Multiply"};

/* a + c, a - c, a * c with c a capture of a's shape with some sizes 1 (symbols always 1) */
bool fz_gen_capture(fz_prog *p) {
  fz_rng *r = &p->r;
  int a = fz_pick(p);
  const fz_node *an = &p->n[a];
  fz_shp cs = {0, {0}};
  int k = an->shape.rank ? fz_rnd(r, an->shape.rank + 1) : 0; /* a suffix of a's dims */
  cs.rank = k;
  for (int i = 0; i < k; i++) {
    int d = an->shape.d[an->shape.rank - k + i];
    cs.d[i] = d < 0 || fz_chance(r, 25) ? 1 : d;
  }
  int dt = fz_chance(r, 70) ? an->dtype : (fz_chance(r, 60) ? F32 : I32);
  if (dt == BOOL) dt = F32;
  int k2 = fz_capture(p, dt, &cs);
  if (k2 < 0 || p->nn + 2 >= MAXN) return false;
  fz_node cx;
  fz_node_init(&cx, N_CAPT);
  cx.dtype = dt, cx.shape = cs, cx.mag = 10, cx.contig = true, cx.var = k2;
  int c = fz_add_node(p, &cx);
  if (c < 0) return false;
  fz_node x;
  fz_node_init(&x, N_BIN);
  x.op = fz_rnd(r, 3), x.nin = 2;
  bool left = fz_chance(r, 30);
  x.in[0] = left ? c : a, x.in[1] = left ? a : c;
  if (x.op == A_SUB && p->n[a].dtype == BOOL) return false;
  if (!fz_bcast(&p->n[a].shape, &cs, &x.shape)) return false;
  x.dtype = fz_result_type(p, x.in, 2, 0);
  if (x.dtype == BOOL) return false;
  x.mag = x.op == A_MUL ? p->n[a].mag * 10 : p->n[a].mag + 10;
  if (x.dtype == U8) x.mag = 255;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  x.contig = true;
  return fz_add_node(p, &x) >= 0;
}

/* ---- the scalar parameter ---- */
static const char *scalar_ty(int dt) { return dt == F32 ? T_SINGLE : dt == F64 ? T_DOUBLE : dt == I32 ? T_INT32 : T_INT64; }

bool fz_gen_scalar(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_SCALAR);
  x.op = fz_rnd(r, 3), x.in[0] = fz_pick(p), x.nin = 1, x.sc_left = fz_chance(r, 30);
  const fz_node *a = &p->n[x.in[0]];
  if (p->scalar_dt < 0) {
    int t = fz_rnd(r, 100);
    p->scalar_dt = t < 55 ? F32 : t < 70 ? F64 : t < 88 ? I32 : I64;
  }
  bool si = !is_float(p->scalar_dt);
  if (a->dtype == U8 && si) return false;             /* a negative int Scalar wraps to uint8 first */
  if (x.op == A_SUB && a->dtype == BOOL) return false; /* bool - s: PyTorch's error */
  x.dtype = fz_result_type(p, x.in, 1, si ? 1 : 2);
  if (x.dtype == BOOL) return false;
  x.shape = a->shape, x.contig = true;
  x.mag = x.op == A_MUL ? a->mag * 10 : a->mag + 10; /* the check's scalar inputs: [-9, 10) */
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- NaN and infinity ---- */
enum { MM_MAXIMUM, MM_MINIMUM, MM_FMAX, MM_FMIN };

bool fz_gen_nan(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  if (fz_chance(r, 45)) { /* maximum / minimum / fmax / fmin of two nodes */
    fz_node_init(&x, N_MAXMIN);
    x.op = fz_rnd(r, 4), x.in[0] = fz_pick(p), x.in[1] = fz_pick(p), x.nin = 2;
    const fz_node *a = &p->n[x.in[0]], *b = &p->n[x.in[1]];
    if (!fz_bcast(&a->shape, &b->shape, &x.shape)) return false;
    x.dtype = fz_result_type(p, x.in, 2, 0);
    if (x.op >= MM_FMAX && !is_float(x.dtype)) return false; /* fmax / fmin: floats */
    if (x.dtype == BOOL) return false;
    x.mag = fmax(a->mag, b->mag), x.contig = true;
    if (x.dtype == U8 && (a->dtype != U8 || b->dtype != U8)) x.mag = 255;
    if (!fz_mag_ok(x.dtype, x.mag)) return false;
    return fz_add_node(p, &x) >= 0;
  }
  /* a.masked_fill(m, nan | infinity | -infinity) on a float node a */
  fz_node_init(&x, N_NANIN);
  int a = fz_float_operand(p, fz_pick(p));
  if (a < 0) return false;
  int m = -1;
  for (int t = 0; t < 8 && m < 0; t++) m = fz_mask_operand(p, t == 7 ? a : fz_pick(p), &p->n[a].shape);
  if (m < 0) return false;
  const fz_node *an = &p->n[a];
  x.in[0] = a, x.in[1] = m, x.nin = 2, x.op = fz_rnd(r, 3); /* NaN, +inf, -inf */
  x.dtype = an->dtype, x.shape = an->shape, x.mag = an->mag, x.contig = true;
  return fz_add_node(p, &x) >= 0;
}

bool fz_nan_safe(const fz_prog *p, const fz_node *x) {
  switch (x->kind) {
  case N_BIN: case N_BINS: case N_DIV: case N_UN: case N_CMP: case N_CMPS: case N_WHERE: case N_MAXMIN: case N_NANIN:
  case N_SCALAR: case N_IF: case N_INPLACE: case N_LOOP: case N_RED:
    return true;
  case N_CAST: return is_float(x->dtype) || x->dtype == BOOL;
  case N_ACT: return fz_act_nan_safe(x->op);
  case N_POOL: return x->ip[0] == 0 || x->ip[0] == 3; /* max pooling, adaptive max: NaN propagates */
  case N_LAYOUT: return !fz_layout_reads_index(x->op) || !p->n[x->in[1]].nanny; /* an index is j.long() */
  default: return false;
  }
}

/* ---- emission ---- */
static cJSON *special(int op) { /* nan, infinity, -infinity (F#'s Operators properties, Double) */
  cJSON *pg = fz_knode("PropertyGet", T_DOUBLE);
  cJSON_AddItemToObject(pg, "obj", cJSON_CreateNull());
  cJSON_AddItemToObject(pg, "property", fz_member(OPERATORS, op == 0 ? "NaN" : "Infinity", true, NULL, 0, T_DOUBLE, NULL, 0));
  cJSON_AddItemToObject(pg, "args", cJSON_CreateArray());
  if (op == 2) {
    const char *pr[1] = {T_DOUBLE}, *g[1] = {T_DOUBLE};
    pg = fz_call(T_DOUBLE, NULL, fz_member(OPERATORS, "op_UnaryNegation", true, pr, 1, T_DOUBLE, g, 1), &pg, 1);
  }
  const char *sp[1] = {T_DOUBLE};
  return fz_call(T_SCALAR, NULL, fz_member("TorchSharp.ScalarExtensionMethods", "ToScalar", true, sp, 1, T_SCALAR, NULL, 0), &pg, 1);
}

cJSON *fz_expr_misc(fz_em *e, const fz_node *x) {
  switch (x->kind) {
  case N_CAPT: return fz_capture_ref(e, x->var);
  case N_SCALAR: {
    const char *st = scalar_ty(e->p->scalar_dt);
    cJSON *a = fz_ref(e, x->in[0]), *s = fz_var_ref(e->p->np, st);
    if (x->sc_left) return fz_op2(e, arith_name[x->op], st, T_TENSOR, s, a);
    return fz_op2(e, arith_name[x->op], T_TENSOR, st, a, s);
  }
  case N_NANIN: {
    const char *pr[2] = {T_TENSOR, T_SCALAR};
    cJSON *a = fz_ref(e, x->in[0]);
    cJSON *args[2] = {fz_ref(e, x->in[1]), special(x->op)};
    return fz_method("masked_fill", a, pr, args, 2);
  }
  default: { /* N_MAXMIN: the spellings of examples/bin_max_min_nan */
    cJSON *a = fz_ref(e, x->in[0]), *b = fz_ref(e, x->in[1]);
    const char *pT[1] = {T_TENSOR};
    if (x->op == MM_MAXIMUM || x->op == MM_FMAX) {
      cJSON *args[2] = {a, b};
      return fz_torch(x->op == MM_MAXIMUM ? "maximum" : "fmax", args, 2);
    }
    return fz_method(x->op == MM_MINIMUM ? "minimum" : "fmin", a, pT, &b, 1);
  }
  }
}
