/* cli/fuzz_cnn.c — the `kgen fuzz` families of convolutional networks (issue 13):
 *   conv      torch.nn.functional.conv1d / conv2d (stride, padding, dilation, groups, bias or
 *             none) and conv_transpose1d / conv_transpose2d (output_padding too); the weight
 *             and bias are captured tensors (a module's parameters, as F# closes over them);
 *   pool      max_pool1d / 2d (dilation, ceil_mode), avg_pool1d / 2d (ceil_mode,
 *             count_include_pad, divisor_override), adaptive avg / max pooling 1d / 2d;
 *   cnorm     batch_norm in evaluation (captured running statistics, the variance as
 *             `rv.abs() + 0.5f`) and training mode (batch statistics), instance_norm,
 *             group_norm; weight and bias captured or none;
 *   resample  interpolate nearest (size or scale_factor), linear / bilinear (align_corners
 *             either way), pixel_shuffle, pixel_unshuffle;
 *   random    rand_like / randn_like (method, and torch. with a dtype), bernoulli of an exact
 *             probability, dropout in training mode (p 0, 0.25, 0.5, 1) and not: kgen's Philox
 *             draws, which the twin draws alike, so they compare exactly.
 * Shapes follow libtorch's rules (the frontend raises them as located errors, so a program
 * breaking one would be rejected, a generator bug): channels and the convolved, pooled or
 * resampled sizes static and non-empty, groups dividing the channels, an output of at least
 * one element per dim (pooling_output_shape with ceil_mode's last-window rule), padding at
 * most half the kernel, output_padding below the stride or the dilation, more than one
 * value per channel when normalizing with batch statistics. Floats only (PyTorch's CPU
 * kernels have no integer pooling; an integer operand is cast to float32 first). The
 * batch-statistics norms, like layer_norm, take only continuous values: a row of equal
 * values normalizes rounding noise by 1/sqrt(eps).
 */
#include <math.h>
#include <string.h>

#include "fuzz_int.h"

#define T_I64N "System.Nullable`1[System.Int64]"
#define T_DARR "System.Double[]"

/* a float node of rank lo..hi whose dims from `from` on are static and non-empty and whose
 * earlier dims are non-empty (a symbol is); -1 when the picks give none. `with_captures`: an
 * op whose captured weights have the operand's dtype (conv, cnorm) takes a float node that is
 * made from float parameters and captures only (fz_node.f64ok): the check's float64 rerun (its
 * rmse rule for sums that cancel) casts inputs and captures to float64, and a float32 made by a
 * cast or a promotion of integers would meet float64 weights there (seed 44: conv_transpose1d
 * of an int32 input cast to float32 cancelled to 1e-4 relative; seed 6382: of x.float().abs() + 1). */
static int image_operand(fz_prog *p, int lo, int hi, int from, bool with_captures) {
  for (int t = 0; t < 6; t++) {
    int a = fz_pick(p);
    const fz_shp *s = &p->n[a].shape;
    if (s->rank < lo || s->rank > hi || p->n[a].dtype == BOOL) continue;
    if (with_captures && !p->n[a].f64ok) continue;
    bool ok = true;
    for (int i = 0; i < s->rank; i++) ok &= s->d[i] != 0 && (i < from || s->d[i] > 0);
    if (!ok || p->n[a].nanny) continue;
    return fz_float_operand(p, a);
  }
  return -1;
}

/* ---- conv ---- */
bool fz_gen_conv(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_CONV);
  int a = image_operand(p, 3, 4, 1, true);
  if (a < 0) return false;
  const fz_node *an = &p->n[a];
  int R = an->shape.rank, dims = R - 2, C = an->shape.d[1];
  bool tr = fz_chance(r, 30);
  int gs[8], ng = 0;
  for (int g = 1; g <= C && ng < 8; g++)
    if (C % g == 0) gs[ng++] = g;
  int g = fz_chance(r, 60) ? 1 : gs[fz_rnd(r, ng)];
  int O = g * (1 + fz_rnd(r, 3));
  int s = 1 + fz_rnd(r, 3), d = fz_chance(r, 75) ? 1 : 2, op = 0;
  if (tr && fz_chance(r, 40)) op = fz_rnd(r, s > d ? s : d); /* output_padding < max(stride, dilation) */
  x.ip[0] = dims, x.ip[1] = tr, x.ip[4] = s, x.ip[6] = d, x.ip[7] = g, x.ip[8] = op, x.ip[11] = O;
  x.shape = an->shape, x.shape.d[1] = O;
  double win = 1;
  int pd = fz_rnd(r, 3);
  for (int i = 0; i < dims; i++) {
    int k = 1 + fz_rnd(r, 3), L = an->shape.d[2 + i], out;
    x.ip[2 + i] = k, win *= k;
    if (!tr) {
      if (L + 2 * pd < d * (k - 1) + 1) return false; /* the kernel past the padded input: PyTorch's error */
      out = (L + 2 * pd - d * (k - 1) - 1) / s + 1;
    } else out = (L - 1) * s - 2 * pd + d * (k - 1) + op + 1;
    if (out < 1) return false;
    x.shape.d[2 + i] = out;
  }
  x.ip[5] = pd;
  fz_shp ws = {R, {0}};
  ws.d[0] = tr ? C : O, ws.d[1] = tr ? O / g : C / g;
  for (int i = 0; i < dims; i++) ws.d[2 + i] = x.ip[2 + i];
  x.ip[9] = fz_capture(p, an->dtype, &ws);
  fz_shp bs = {1, {O}};
  x.ip[10] = fz_chance(r, 60) ? fz_capture(p, an->dtype, &bs) : -1;
  if (x.ip[9] < 0) return false;
  x.keepdim = dims == 2 && fz_chance(r, 40); /* 2-d: one-element arrays (TorchSharp repeats them) */
  x.in[0] = a, x.nin = 1, x.dtype = an->dtype, x.contig = true, x.inexact = true;
  x.mag = an->mag * 10 * (C / g) * win * (tr ? s : 1) + 10;
  if (!fz_mag_ok(x.dtype, x.mag) || fz_numel_bound(&x.shape) > 40000) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- pool ---- */
enum { P_MAX, P_AVG, P_ADAPTIVE_AVG, P_ADAPTIVE_MAX };

/* libtorch's pooling_output_shape */
static int pool_out(int L, int k, int pd, int s, int d, bool ceil_mode) {
  int num = L + 2 * pd - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  if (num < 0) return 0;
  int o = num / s + 1;
  if (ceil_mode && (o - 1) * s >= L + pd) o--;
  return o;
}

bool fz_gen_pool(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_POOL);
  int dims = fz_chance(r, 60) ? 2 : 1;
  int a = image_operand(p, dims + 1, dims + 2, 99, false); /* non-empty; the pooled dims static (below) */
  if (a < 0) return false;
  const fz_node *an = &p->n[a];
  int R = an->shape.rank;
  for (int i = R - dims; i < R; i++)
    if (an->shape.d[i] <= 0) return false;
  x.ip[0] = fz_rnd(r, 4), x.ip[1] = dims;
  x.shape = an->shape;
  int kind = x.ip[0];
  if (kind >= P_ADAPTIVE_AVG) {
    for (int i = 0; i < dims; i++) x.ip[2 + i] = x.shape.d[R - dims + i] = 1 + fz_rnd(r, an->shape.d[R - dims + i] + 2);
  } else {
    int s = fz_rnd(r, 4), d = kind == P_MAX && fz_chance(r, 25) ? 2 : 1; /* s 0: the kernel (a null stride) */
    bool ceil_mode = fz_chance(r, 35);
    int kmin = 99;
    for (int i = 0; i < dims; i++) {
      x.ip[2 + i] = 1 + fz_rnd(r, 3);
      if (x.ip[2 + i] < kmin) kmin = x.ip[2 + i];
    }
    int pd = fz_rnd(r, kmin / 2 + 1); /* at most half the kernel */
    x.ip[4] = s, x.ip[5] = pd, x.ip[6] = d, x.ip[7] = ceil_mode;
    x.ip[8] = fz_chance(r, 50);                                             /* count_include_pad */
    x.ip[9] = kind == P_AVG && dims == 2 && fz_chance(r, 20) ? 1 + fz_rnd(r, 5) : 0; /* divisor_override */
    for (int i = 0; i < dims; i++) {
      int k = x.ip[2 + i], o = pool_out(an->shape.d[R - dims + i], k, pd, s ? s : k, d, ceil_mode);
      if (o < 1) return false;
      x.shape.d[R - dims + i] = o;
    }
  }
  x.in[0] = a, x.nin = 1, x.dtype = an->dtype, x.contig = true;
  x.mag = an->mag * (x.ip[9] ? 9.0 / x.ip[9] + 1 : 1);
  x.inexact = kind == P_AVG || kind == P_ADAPTIVE_AVG;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- cnorm ---- */
enum { CN_BATCH_EVAL, CN_BATCH_TRAIN, CN_INSTANCE, CN_GROUP };

bool fz_gen_cnorm(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_CNORM);
  int kind = fz_rnd(r, 4);
  int a = image_operand(p, kind == CN_INSTANCE ? 3 : 2, 4, 1, true);
  if (a < 0) return false;
  const fz_node *an = &p->n[a];
  int C = an->shape.d[1], R = an->shape.rank;
  double per = 1, spatial = 1; /* values per channel (batch statistics), per sample and channel */
  for (int i = 0; i < R; i++)
    if (i != 1) per *= fz_size_bound(an->shape.d[i]), spatial *= i >= 2 ? fz_size_bound(an->shape.d[i]) : 1;
  if (kind != CN_BATCH_EVAL && an->discrete) return false;
  if (kind == CN_BATCH_TRAIN && per < 2) return false;     /* "Expected more than 1 value per channel when training" */
  if (kind == CN_INSTANCE && spatial < 2) return false;    /* "... more than 1 spatial element when training" */
  x.ip[0] = kind, x.ip[2] = x.ip[3] = x.ip[4] = x.ip[5] = -1;
  fz_shp cs = {1, {C}};
  if (kind == CN_GROUP) {
    int gs[8], ng = 0;
    for (int g = 1; g <= C && ng < 8; g++)
      if (C % g == 0) gs[ng++] = g;
    x.ip[1] = gs[fz_rnd(r, ng)];
    if ((double)(C / x.ip[1]) * spatial < 2) return false; /* a group of one value: variance 0 */
  }
  if (kind == CN_BATCH_EVAL) x.ip[2] = fz_capture(p, an->dtype == F64 ? F64 : F32, &cs), x.ip[3] = fz_capture(p, an->dtype == F64 ? F64 : F32, &cs);
  if (fz_chance(r, 60)) x.ip[4] = fz_capture(p, an->dtype, &cs);
  if (fz_chance(r, 60)) x.ip[5] = fz_capture(p, an->dtype, &cs);
  if (kind == CN_BATCH_EVAL && (x.ip[2] < 0 || x.ip[3] < 0)) return false;
  x.ip[6] = fz_rnd(r, 2); /* eps 1e-5 or 1e-3 */
  x.in[0] = a, x.nin = 1, x.dtype = an->dtype, x.shape = an->shape, x.contig = true, x.inexact = true;
  /* eval: |x - rm| / sqrt(0.5) ; batch statistics: sqrt(values per group) */
  double wm = x.ip[4] >= 0 ? 10 : 1, bm = x.ip[5] >= 0 ? 10 : 0;
  x.mag = (kind == CN_BATCH_EVAL ? (an->mag + 10) * 1.5 : sqrt(per * C) + 1) * wm + bm;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- resample ---- */
enum { RS_NEAREST, RS_NEAREST_SCALE, RS_LINEAR, RS_LINEAR_SCALE, RS_SHUFFLE, RS_UNSHUFFLE };
static const double scales[] = {2.0, 1.5, 0.5, 2.5, 1.7, 3.0};

bool fz_gen_resample(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_RESAMPLE);
  int kind = fz_rnd(r, 6);
  int a = image_operand(p, 3, 4, kind >= RS_SHUFFLE ? 1 : 2, false);
  if (a < 0) return false;
  const fz_node *an = &p->n[a];
  int R = an->shape.rank, dims = R - 2;
  x.ip[0] = kind, x.ip[1] = dims, x.shape = an->shape;
  if (kind >= RS_SHUFFLE) {
    int f = 2 + (fz_chance(r, 20) ? 1 : 0), C = an->shape.d[R - 3];
    x.ip[2] = f;
    bool sh_ok = C > 0 && C % (f * f) == 0, un_ok = C > 0 && an->shape.d[R - 2] % f == 0 && an->shape.d[R - 1] % f == 0;
    if (kind == RS_SHUFFLE ? !sh_ok && un_ok : !un_ok && sh_ok) x.ip[0] = kind = RS_SHUFFLE + RS_UNSHUFFLE - kind; /* the one that fits */
    if (kind == RS_SHUFFLE) {
      if (C < 0 || C % (f * f)) return false;
      x.shape.d[R - 3] = C / (f * f), x.shape.d[R - 2] *= f, x.shape.d[R - 1] *= f;
    } else {
      if (an->shape.d[R - 2] % f || an->shape.d[R - 1] % f || C < 0) return false;
      x.shape.d[R - 3] = C * f * f, x.shape.d[R - 2] /= f, x.shape.d[R - 1] /= f;
    }
    x.inexact = false;
  } else {
    bool scale = kind == RS_NEAREST_SCALE || kind == RS_LINEAR_SCALE;
    for (int i = 0; i < dims; i++) {
      int L = an->shape.d[2 + i], o;
      if (scale) {
        x.ip[2 + i] = fz_rnd(r, 6);
        o = (int)floor(L * scales[x.ip[2 + i]]);
      } else o = x.ip[2 + i] = 1 + fz_rnd(r, 2 * L + 2);
      if (o < 1) return false;
      x.shape.d[2 + i] = o;
    }
    x.ip[4] = kind >= RS_LINEAR ? fz_rnd(r, 3) : 0; /* align_corners: not given, false, true */
    x.inexact = kind >= RS_LINEAR;
  }
  x.in[0] = a, x.nin = 1, x.dtype = an->dtype, x.contig = true, x.mag = an->mag;
  if (fz_numel_bound(&x.shape) > 40000) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- random ---- */
enum { RD_RAND, RD_RAND_T, RD_RANDN, RD_RANDN_T, RD_BERN_T, RD_BERN, RD_DROPOUT, RD_DROPOUT_EVAL, RD_N };
static const double drop_p[] = {0.0, 0.25, 0.5, 1.0};

bool fz_gen_random(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_RAND);
  int kind = fz_rnd(r, RD_N), a = fz_pick(p);
  x.ip[0] = kind, x.contig = true;
  if (kind == RD_RAND_T || kind == RD_RANDN_T) { /* torch.rand_like(a, dtype = …): any a */
    static const int dts[] = {F32, F64, F16, BF16};
    x.ip[1] = fz_chance(r, 50) ? -1 : dts[fz_rnd(r, 4)];
    if (x.ip[1] < 0 && !is_float(p->n[a].dtype)) x.ip[1] = F32;
  } else {
    a = fz_float_operand(p, a);
    if (a < 0) return false;
    x.ip[1] = -1;
  }
  const fz_node *an = &p->n[a];
  x.in[0] = a, x.nin = 1, x.shape = an->shape, x.dtype = x.ip[1] >= 0 ? x.ip[1] : an->dtype;
  switch (kind) {
  case RD_RAND: case RD_RAND_T: x.mag = 1; break;
  case RD_RANDN: case RD_RANDN_T: x.mag = 6, x.inexact = true; break; /* Box-Muller: log, sqrt, cos */
  case RD_BERN: case RD_BERN_T:                                            /* of (a * 0.0625f + 0.5f).clamp(0, 1): exact */
    if (an->inexact || an->nanny) return false;
    x.mag = 1;
    break;
  default:
    x.ip[2] = fz_rnd(r, 4);
    x.mag = an->mag * (drop_p[x.ip[2]] < 1 ? 1 / (1 - drop_p[x.ip[2]]) : 1);
    x.inexact = kind == RD_DROPOUT && x.ip[2] == 1; /* scaled by 1 / 0.75 */
    if (kind == RD_DROPOUT_EVAL) x.mag = an->mag;
    break;
  }
  /* the draws only depend on the operand's shape: fz_add_node must not inherit its inexactness */
  fz_node saved = x;
  int i = fz_add_node(p, &x);
  if (i >= 0 && kind <= RD_BERN) {
    p->n[i].inexact = saved.inexact, p->n[i].prec = saved.inexact ? (x.dtype == F64 ? 3 : x.dtype == F32 ? 2 : 1) : 0;
    p->n[i].nanny = false, p->n[i].discrete = false;
  }
  return i >= 0;
}

/* ---- emission ---- */
static cJSON *i64(long long v) { return fz_value_num(T_INT64, (double)v); }

static cJSON *arr2(int a, int b, bool one) {
  int v[2] = {a, b};
  return fz_dims_array(v, one ? 1 : 2);
}

static cJSON *cap_or_null(fz_em *e, int k) { return k >= 0 ? fz_capture_ref(e, k) : fz_value_null(T_TENSOR); }

static cJSON *expr_conv(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]), *w = fz_capture_ref(e, x->ip[9]), *b = cap_or_null(e, x->ip[10]);
  int s = x->ip[4], pd = x->ip[5], d = x->ip[6], g = x->ip[7], op = x->ip[8];
  const char *name = x->ip[1] ? (x->ip[0] == 1 ? "conv_transpose1d" : "conv_transpose2d") : (x->ip[0] == 1 ? "conv1d" : "conv2d");
  if (x->ip[0] == 1) { /* Nullable<Int64> stride, padding (, output_padding), dilation */
    const char *pr[8] = {T_TENSOR, T_TENSOR, T_TENSOR, T_I64N, T_I64N, T_I64N, T_I64N, T_INT64};
    if (x->ip[1]) {
      cJSON *args[8] = {a, w, b, fz_nullable_i64_or_default(s, s != 1), fz_nullable_i64_or_default(pd, pd != 0),
                        fz_nullable_i64_or_default(op, op != 0), fz_nullable_i64_or_default(d, d != 1), i64(g)};
      return fz_static(D_FUNC, name, pr, args, 8);
    }
    const char *pc[7] = {T_TENSOR, T_TENSOR, T_TENSOR, T_I64N, T_I64N, T_I64N, T_INT64};
    cJSON *args[7] = {a, w, b, fz_nullable_i64_or_default(s, s != 1), fz_nullable_i64_or_default(pd, pd != 0),
                      fz_nullable_i64_or_default(d, d != 1), i64(g)};
    return fz_static(D_FUNC, name, pc, args, 7);
  }
  bool one = x->keepdim;
  if (x->ip[1]) {
    const char *pr[8] = {T_TENSOR, T_TENSOR, T_TENSOR, T_I64ARR, T_I64ARR, T_I64ARR, T_I64ARR, T_INT64};
    cJSON *args[8] = {a, w, b, arr2(s, s, one), arr2(pd, pd, one), arr2(op, op, one), arr2(d, d, one), i64(g)};
    return fz_static(D_FUNC, name, pr, args, 8);
  }
  const char *pc[7] = {T_TENSOR, T_TENSOR, T_TENSOR, T_I64ARR, T_I64ARR, T_I64ARR, T_INT64};
  cJSON *args[7] = {a, w, b, arr2(s, s, one), arr2(pd, pd, one), d == 1 && one ? fz_value_null(T_I64ARR) : arr2(d, d, one), i64(g)};
  return fz_static(D_FUNC, name, pc, args, 7);
}

static cJSON *expr_pool(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  int kind = x->ip[0], dims = x->ip[1], kh = x->ip[2], kw = x->ip[3], s = x->ip[4], pd = x->ip[5], d = x->ip[6];
  bool ceil_mode = x->ip[7], cip = x->ip[8];
  if (kind >= P_ADAPTIVE_AVG) {
    const char *name = kind == P_ADAPTIVE_AVG ? (dims == 1 ? "adaptive_avg_pool1d" : "adaptive_avg_pool2d")
                                              : (dims == 1 ? "adaptive_max_pool1d" : "adaptive_max_pool2d");
    const char *pr[2] = {T_TENSOR, dims == 1 ? T_INT64 : T_I64ARR};
    cJSON *args[2] = {a, dims == 1 ? i64(kh) : arr2(kh, kw, false)};
    return fz_static(D_FUNC, name, pr, args, 2);
  }
  if (dims == 1) {
    if (kind == P_MAX) {
      const char *pr[6] = {T_TENSOR, T_INT64, T_I64N, T_I64N, T_I64N, T_BOOL};
      cJSON *args[6] = {a, i64(kh), fz_nullable_i64_or_default(s, s != 0), fz_nullable_i64_or_default(pd, true),
                        fz_nullable_i64_or_default(d, d != 1), fz_value_bool(ceil_mode)};
      return fz_static(D_FUNC, "max_pool1d", pr, args, 6);
    }
    const char *pr[6] = {T_TENSOR, T_INT64, T_I64N, T_I64N, T_BOOL, T_BOOL};
    cJSON *args[6] = {a, i64(kh), fz_nullable_i64_or_default(s, s != 0), fz_nullable_i64_or_default(pd, true), fz_value_bool(ceil_mode),
                      fz_value_bool(cip)};
    return fz_static(D_FUNC, "avg_pool1d", pr, args, 6);
  }
  cJSON *st = s ? arr2(s, s, false) : fz_value_null(T_I64ARR);
  if (kind == P_MAX) {
    const char *pr[6] = {T_TENSOR, T_I64ARR, T_I64ARR, T_I64ARR, T_I64ARR, T_BOOL};
    cJSON *args[6] = {a, arr2(kh, kw, false), st, arr2(pd, pd, false), d == 1 ? fz_value_null(T_I64ARR) : arr2(d, d, false), fz_value_bool(ceil_mode)};
    return fz_static(D_FUNC, "max_pool2d", pr, args, 6);
  }
  const char *pr[7] = {T_TENSOR, T_I64ARR, T_I64ARR, T_I64ARR, T_BOOL, T_BOOL, T_I64N};
  cJSON *args[7] = {a, arr2(kh, kw, false), st, arr2(pd, pd, false), fz_value_bool(ceil_mode), fz_value_bool(cip),
                    fz_nullable_i64_or_default(x->ip[9], x->ip[9] != 0)};
  return fz_static(D_FUNC, "avg_pool2d", pr, args, 7);
}

static cJSON *expr_cnorm(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  int kind = x->ip[0];
  double eps = x->ip[6] ? 1e-3 : 1e-5;
  cJSON *w = cap_or_null(e, x->ip[4]), *b = cap_or_null(e, x->ip[5]);
  if (kind == CN_GROUP) {
    const char *pr[5] = {T_TENSOR, T_INT64, T_TENSOR, T_TENSOR, T_DOUBLE};
    cJSON *args[5] = {a, i64(x->ip[1]), w, b, fz_value_num(T_DOUBLE, eps)};
    return fz_static(D_FUNC, "group_norm", pr, args, 5);
  }
  const char *pr[8] = {T_TENSOR, T_TENSOR, T_TENSOR, T_TENSOR, T_TENSOR, T_BOOL, T_DOUBLE, T_DOUBLE};
  cJSON *rm = fz_value_null(T_TENSOR), *rv = fz_value_null(T_TENSOR);
  if (kind == CN_BATCH_EVAL) {
    cJSON_Delete(rm), cJSON_Delete(rv);
    rm = fz_capture_ref(e, x->ip[2]);
    rv = fz_op2(e, "op_Addition", T_TENSOR, T_SINGLE, fz_method("abs", fz_capture_ref(e, x->ip[3]), NULL, NULL, 0), fz_value_num(T_SINGLE, 0.5));
  }
  cJSON *args[8] = {a, rm, rv, w, b, fz_value_bool(kind != CN_BATCH_EVAL), fz_value_num(T_DOUBLE, 0.1), fz_value_num(T_DOUBLE, eps)};
  return fz_static(D_FUNC, kind == CN_INSTANCE ? "instance_norm" : "batch_norm", pr, args, 8);
}

static cJSON *expr_resample(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  int kind = x->ip[0], dims = x->ip[1];
  if (kind >= RS_SHUFFLE) {
    const char *pr[2] = {T_TENSOR, T_INT64};
    cJSON *args[2] = {a, i64(x->ip[2])};
    return fz_static(D_FUNC, kind == RS_SHUFFLE ? "pixel_shuffle" : "pixel_unshuffle", pr, args, 2);
  }
  bool scale = kind == RS_NEAREST_SCALE || kind == RS_LINEAR_SCALE;
  cJSON *size = scale ? fz_value_null(T_I64ARR) : arr2(x->ip[2], x->ip[3], dims == 1), *sf;
  if (scale) {
    sf = fz_knode("NewArray", T_DARR);
    cJSON_AddStringToObject(sf, "elemType", T_DOUBLE);
    cJSON *items = cJSON_CreateArray();
    for (int i = 0; i < dims; i++) cJSON_AddItemToArray(items, fz_value_num(T_DOUBLE, scales[x->ip[2 + i]]));
    cJSON_AddItemToObject(sf, "items", items);
  } else sf = fz_value_null(T_DARR);
  int mode = kind <= RS_NEAREST_SCALE ? 0 : dims == 1 ? 1 : 2;
  static const char *const mname[] = {"Nearest", "Linear", "Bilinear"};
  const char *nb = "System.Nullable`1[System.Boolean]";
  cJSON *ac;
  if (x->ip[4] == 0) ac = fz_default(nb);
  else {
    const char *pb[1] = {T_BOOL};
    ac = fz_knode("NewObject", nb);
    cJSON_AddItemToObject(ac, "ctor", fz_member(nb, ".ctor", false, pb, 1, nb, NULL, 0));
    cJSON *al = cJSON_CreateArray();
    cJSON_AddItemToArray(al, fz_value_bool(x->ip[4] == 2));
    cJSON_AddItemToObject(ac, "args", al);
  }
  const char *pr[7] = {T_TENSOR, T_I64ARR, T_DARR, "TorchSharp.torch+InterpolationMode", nb, T_BOOL, T_BOOL};
  cJSON *args[7] = {a, size, sf, fz_enum("TorchSharp.torch+InterpolationMode", mode, mname[mode]), ac, fz_value_bool(false), fz_value_bool(false)};
  return fz_static(D_FUNC, "interpolate", pr, args, 7);
}

static cJSON *expr_random(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  int kind = x->ip[0];
  const char *dev = "TorchSharp.torch+Device", *gen = "TorchSharp.torch+Generator";
  switch (kind) {
  case RD_RAND: case RD_RANDN: {
    const char *pr[3] = {T_NULLABLE_ST, dev, T_BOOL};
    cJSON *args[3] = {fz_default(T_NULLABLE_ST), fz_value_null(dev), fz_value_bool(false)};
    return fz_method(kind == RD_RAND ? "rand_like" : "randn_like", a, pr, args, 3);
  }
  case RD_RAND_T: case RD_RANDN_T: {
    const char *pr[4] = {T_TENSOR, T_NULLABLE_ST, dev, T_BOOL}, *pst[1] = {"TorchSharp.torch+ScalarType"};
    cJSON *dt;
    if (x->ip[1] < 0) dt = fz_default(T_NULLABLE_ST);
    else {
      dt = fz_knode("NewObject", T_NULLABLE_ST);
      cJSON_AddItemToObject(dt, "ctor", fz_member(T_NULLABLE_ST, ".ctor", false, pst, 1, T_NULLABLE_ST, NULL, 0));
      cJSON *al = cJSON_CreateArray();
      cJSON_AddItemToArray(al, fz_dtype_field(x->ip[1]));
      cJSON_AddItemToObject(dt, "args", al);
    }
    cJSON *args[4] = {a, dt, fz_value_null(dev), fz_value_bool(false)};
    return fz_static(D_TORCH, kind == RD_RAND_T ? "rand_like" : "randn_like", pr, args, 4);
  }
  case RD_BERN: case RD_BERN_T: {
    const char *ps2[2] = {T_SCALAR, T_SCALAR};
    cJSON *q = fz_op2(e, "op_Addition", T_TENSOR, T_SINGLE, fz_op2(e, "op_Multiply", T_TENSOR, T_SINGLE, a, fz_value_num(T_SINGLE, 0.0625)),
                      fz_value_num(T_SINGLE, 0.5));
    cJSON *cl[2] = {fz_to_scalar(T_SINGLE, 0), fz_to_scalar(T_SINGLE, 1)};
    q = fz_method("clamp", q, ps2, cl, 2);
    if (kind == RD_BERN) {
      const char *pr[1] = {gen};
      cJSON *g = fz_value_null(gen);
      return fz_method("bernoulli", q, pr, &g, 1);
    }
    const char *pr[2] = {T_TENSOR, gen};
    cJSON *args[2] = {q, fz_value_null(gen)};
    return fz_static(D_TORCH, "bernoulli", pr, args, 2);
  }
  default: {
    const char *pr[4] = {T_TENSOR, T_DOUBLE, T_BOOL, T_BOOL};
    cJSON *args[4] = {a, fz_value_num(T_DOUBLE, drop_p[x->ip[2]]), fz_value_bool(kind == RD_DROPOUT), fz_value_bool(false)};
    return fz_static(D_FUNC, "dropout", pr, args, 4);
  }
  }
}

cJSON *fz_expr_cnn(fz_em *e, const fz_node *x) {
  switch (x->kind) {
  case N_CONV: return expr_conv(e, x);
  case N_POOL: return expr_pool(e, x);
  case N_CNORM: return expr_cnorm(e, x);
  case N_RESAMPLE: return expr_resample(e, x);
  default: return expr_random(e, x);
  }
}
