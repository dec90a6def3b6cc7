/* frontend/cnn.c — the H_CNN member handler: pooling (max_pool1d/2d, avg_pool1d/2d,
 * adaptive_avg_pool1d/2d, adaptive_max_pool1d/2d), normalization over channels (batch_norm,
 * instance_norm, group_norm), resampling (interpolate, upsample, upsample_bilinear,
 * upsample_nearest) and pixel_shuffle / pixel_unshuffle, with TorchSharp 0.107's arguments
 * bound as its C# code binds them and PyTorch's shape rules and errors, located at the F# call.
 *
 * Output sizes are PyTorch's: pooling_output_shape (floor division, ceil_mode rounding up with
 * the last window required to start inside the input or its left padding), adaptive windows
 * [floor(o·I/O), ceil((o+1)·I/O)), interpolate's floor(I · scale_factor). The pooled and
 * resampled dims must have static sizes (the output's shape is fixed when kgen compiles); the
 * batch and channel dims may be symbolic. Messages are libtorch's as TorchSharp 0.107 raises
 * them (probed with TorchSharp; torch 1.13's where TorchSharp agrees).
 *
 *   torch.nn.functional.max_pool2d(x, [|3L; 3L|], [|2L; 2L|], [|1L; 1L|]) on [N,8,9,9]
 *     → %1 = POOL:float32[N,8,5,5](%0) ia=[3|2<<16|1<<32|1<<48, (same), 2 dims max, 0]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layout_int.h"

typedef struct cnn {
  kg_elab *el;
  const kg_ast *at;
  const char *nm; /* the member's name: "max_pool2d" */
} cnn;

#define PERR(C, code, ...) kg_elab_error((C)->el, (C)->at, code, __VA_ARGS__)

static bool cint(kg_ev v, int64_t *out) {
  if (v.kind != EV_CONST || kg_dtype_is_float(v.c.dt)) return false;
  *out = v.kind == EV_CONST && v.c.dt == KG_BOOL ? (v.c.i != 0) : v.c.i;
  return true;
}

static bool cbool(kg_ev v, bool *out) {
  if (v.kind != EV_CONST) return false;
  *out = kg_dtype_is_float(v.c.dt) ? v.c.f != 0 : v.c.i != 0;
  return true;
}

static bool cdouble(kg_ev v, double *out) {
  if (v.kind != EV_CONST) return false;
  *out = kg_cval_as_double(v.c);
  return true;
}

/* an Int64[] argument, a (long, long) ValueTuple (C#'s `(1, 1)`, F#'s `struct (1L, 1L)`: the
 * overloads TorchVision's forwards call) or a single Int64: n values, -1 on a non-constant; 0
 * for null */
static int ints(cnn *C, kg_ev v, int64_t *out, int max, const char *what) {
  if (v.kind == EV_NULL) return 0;
  if (v.kind != EV_ARRAY && v.kind != EV_TUPLE) {
    if (!cint(v, &out[0])) goto bad;
    return 1;
  }
  if ((int)v.n > max) return (int)v.n; /* the caller's length message */
  for (uint32_t i = 0; i < v.n; i++)
    if (!cint(v.items[i], &out[i])) goto bad;
  return (int)v.n;
bad:
  PERR(C, KG_E_UNSUPPORTED, "%s(): %s must be constant integers when kgen compiles", C->nm, what);
  return -1;
}

static int doubles(cnn *C, kg_ev v, double *out, int max, const char *what) {
  if (v.kind == EV_NULL) return 0;
  if (v.kind != EV_ARRAY) {
    if (!cdouble(v, &out[0])) goto bad;
    return 1;
  }
  if ((int)v.n > max) return (int)v.n;
  for (uint32_t i = 0; i < v.n; i++)
    if (!cdouble(v.items[i], &out[i])) goto bad;
  return (int)v.n;
bad:
  PERR(C, KG_E_UNSUPPORTED, "%s(): %s must be constants when kgen compiles", C->nm, what);
  return -1;
}

static bool tensor(cnn *C, kg_ev v, uint32_t *id, const char *what) {
  if (!kg_ev_is_tensor(C->el, v)) {
    PERR(C, KG_E_TYPE, "%s(): %s must be a tensor", C->nm, what);
    return false;
  }
  *id = v.id;
  return true;
}

/* an optional tensor: KG_NONE for null */
static bool opt_tensor(cnn *C, kg_ev v, uint32_t *id, const char *what) {
  *id = KG_NONE;
  if (v.kind == EV_NULL) return true;
  return tensor(C, v, id, what);
}

static const kg_gnode *node(cnn *C, uint32_t id) { return kg_elab_gnode(C->el, id); }

static void shape_s(cnn *C, const kg_shape *s, char *buf, size_t cap) {
  lay L = {C->el, C->at, C->nm};
  kg_lay_shape_text(&L, s, buf, cap);
}

static uint32_t mknode(cnn *C, kg_op op, kg_dtype dt, const uint32_t *in, int n, const kg_shape *sh, const int64_t *ia, const double *fa) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)n;
  for (int i = 0; i < n; i++) g.in[i] = in[i];
  g.shape = *sh;
  if (ia) memcpy(g.ia, ia, sizeof g.ia);
  if (fa) memcpy(g.fa, fa, sizeof g.fa);
  return kg_elab_add_node(C->el, C->at, &g);
}

static const char *scalar_name(kg_dtype t) {
  switch (t) {
  case KG_BOOL: return "Bool";
  case KG_U8: return "Byte";
  case KG_I8: return "Char";
  case KG_I16: return "Short";
  case KG_I32: return "Int";
  case KG_I64: return "Long";
  case KG_F16: return "Half";
  case KG_BF16: return "BFloat16";
  case KG_F32: return "Float";
  case KG_F64: return "Double";
  default: return "?";
  }
}

/* the pooled / resampled dims' static sizes (the last nd), else a located error */
static bool spatial_sizes(cnn *C, const kg_gnode *xn, int nd, int64_t *sz) {
  int r = xn->shape.rank;
  for (int i = 0; i < nd; i++) {
    const kg_dim *d = &xn->shape.d[r - nd + i];
    if (d->kind != KG_DIM_STATIC) {
      PERR(C, KG_E_UNSUPPORTED, "%s(): dim %d has a symbolic size; kgen needs the pooled and resampled dims' sizes when it compiles (the output's shape depends on them)", C->nm, r - nd + i);
      return false;
    }
    sz[i] = d->v;
  }
  return true;
}

static bool floating(cnn *C, const kg_gnode *xn, const char *kernel) {
  if (kg_dtype_is_float((kg_dtype)xn->dtype)) return true;
  PERR(C, KG_E_TYPE, "\"%s\" not implemented for '%s'%s", kernel, scalar_name((kg_dtype)xn->dtype),
       xn->dtype != KG_BOOL ? " (kgen pools, normalizes and resamples floating tensors; PyTorch 1.13's CPU kernels, which check kgen, have no integer versions)" : "");
  return false;
}

/* ---- pooling ---- */

enum { POOL_MAX = 0, POOL_AVG = 1, POOL_AAVG = 2, POOL_AMAX = 3 };

/* PyTorch's pooling_output_shape: floor division (of a possibly negative numerator), ceil_mode
 * rounding up as long as the last window starts inside the input or its left padding */
static int64_t pool_out(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  int64_t q = num / s;
  if ((num % s != 0) && ((num < 0) != (s < 0))) q--;
  int64_t o = q + 1;
  if (ceil && (o - 1) * s >= in + p) o--;
  return o;
}

static kg_shape with_spatial(const kg_shape *x, int nd, const int64_t *o) {
  kg_shape s = *x;
  for (int i = 0; i < nd; i++) s.d[x->rank - nd + i] = (kg_dim){KG_DIM_STATIC, o[i]};
  return s;
}

/* Windowed pooling: kind POOL_MAX / POOL_AVG with per-dim kernel k, stride s, padding p, dilation
 * d (all of length nd, already expanded) */
static kg_ev window_pool(cnn *C, uint32_t x, int nd, int kind, const int64_t *k, const int64_t *s, const int64_t *p,
                         const int64_t *d, bool ceil, bool cip, int64_t divisor) {
  const kg_gnode *xn = node(C, x);
  int r = xn->shape.rank;
  char sb[160];
  shape_s(C, &xn->shape, sb, sizeof sb);
  bool one = nd == 1;
  const char *fn = kind == POOL_MAX ? (one ? "max_pool1d" : "max_pool2d") : (one ? "avg_pool1d" : "avg_pool2d");
  /* the input's rank and the non-batch dims' emptiness */
  if (one && kind == POOL_MAX && r != 2 && r != 3)
    return PERR(C, KG_E_SHAPE, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:%s", sb);
  if (one && kind == POOL_AVG && r != 2 && r != 3)
    return PERR(C, KG_E_SHAPE, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)", r);
  if (!one && r != 3 && r != 4)
    return PERR(C, KG_E_SHAPE, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%s", sb);
  for (int i = r - nd - 1; i < r; i++) {
    const kg_dim *dm = &xn->shape.d[i];
    if (dm->kind == KG_DIM_STATIC && dm->v == 0 && (i > 0 || r == nd + 1)) {
      if (one && kind == POOL_MAX)
        return PERR(C, KG_E_SHAPE, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:%s", sb);
      return PERR(C, KG_E_SHAPE, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%s", sb);
    }
  }
  for (int i = 0; i < nd; i++) {
    if (k[i] <= 0) {
      if (one && kind == POOL_MAX) return PERR(C, KG_E_ARG, "max_pool1d() kernel_size must be greater than zero, but got %lld", (long long)k[i]);
      return PERR(C, KG_E_ARG, "kernel size should be greater than zero, but got kH: %lld kW: %lld", (long long)(one ? 1 : k[0]), (long long)k[nd - 1]);
    }
    if (s[i] <= 0) {
      if (one && kind == POOL_MAX) return PERR(C, KG_E_ARG, "max_pool1d() stride must be greater than zero, but got %lld", (long long)s[i]);
      return PERR(C, KG_E_ARG, "stride should not be zero");
    }
    if (p[i] < 0) {
      if (one && kind == POOL_MAX) return PERR(C, KG_E_ARG, "max_pool1d() padding must be non-negative, but got %lld", (long long)p[i]);
      return PERR(C, KG_E_ARG, "pad must be non-negative, but got pad: %lld", (long long)p[i]);
    }
    if (d[i] <= 0) {
      if (one) return PERR(C, KG_E_ARG, "max_pool1d() dilation must be greater than zero, but got %lld", (long long)d[i]);
      return PERR(C, KG_E_ARG, "dilation should be greater than zero, but got dilationH: %lld dilationW: %lld", (long long)d[0], (long long)d[nd - 1]);
    }
    /* libtorch's max_pool2d allows half the effective (dilated) kernel; max_pool1d and avg half the kernel */
    int64_t half = kind == POOL_MAX && !one ? ((k[i] - 1) * d[i] + 1) / 2 : k[i] / 2;
    if (p[i] > half) {
      if (one && kind == POOL_MAX)
        return PERR(C, KG_E_ARG, "max_pool1d() padding should be at most half of kernel size, but got padding=%lld and kernel_size=%lld", (long long)p[i], (long long)k[i]);
      if (kind == POOL_MAX)
        return PERR(C, KG_E_ARG, "pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld and dilation=%lld", (long long)p[i], (long long)k[i], (long long)d[i]);
      return PERR(C, KG_E_ARG, "pad should be at most half of kernel size, but got pad=%lld and kernel_size=%lld", (long long)p[i], (long long)k[i]);
    }
  }
  int64_t in[2], o[2];
  if (!spatial_sizes(C, xn, nd, in)) return kg_ev_err();
  for (int i = 0; i < nd; i++) o[i] = pool_out(in[i], k[i], p[i], s[i], d[i], ceil);
  bool small = false;
  for (int i = 0; i < nd; i++) small |= o[i] < 1;
  if (small) {
    if (one && kind == POOL_MAX) return PERR(C, KG_E_SHAPE, "max_pool1d() Invalid computed output size: %lld", (long long)o[0]);
    const kg_dim *cd = &xn->shape.d[r - nd - 1];
    char cs[64];
    if (cd->kind == KG_DIM_STATIC) snprintf(cs, sizeof cs, "%lld", (long long)cd->v);
    else snprintf(cs, sizeof cs, "%s", C->el->g->syms.v[cd->v]);
    return PERR(C, KG_E_SHAPE, "Given input size: (%sx%lldx%lld). Calculated output size: (%sx%lldx%lld). Output size is too small", cs,
                (long long)(one ? 1 : in[0]), (long long)in[nd - 1], cs, (long long)(one ? 1 : o[0]), (long long)o[nd - 1]);
  }
  if (!floating(C, xn, fn)) return kg_ev_err();
  int64_t ia[4] = {0, 0, nd | (kind << 2) | (cip ? 16 : 0) | (ceil ? 32 : 0), divisor};
  for (int i = 0; i < nd; i++) {
    if (k[i] > 0xffff || s[i] > 0xffff || p[i] > 0xffff || d[i] > 0xffff)
      return PERR(C, KG_E_LIMIT, "%s(): kgen supports kernel sizes, strides, paddings and dilations up to 65535", fn);
    ia[i] = k[i] | s[i] << 16 | p[i] << 32 | d[i] << 48;
  }
  kg_shape sh = with_spatial(&xn->shape, nd, o);
  return kg_ev_node(mknode(C, KG_OP_POOL, (kg_dtype)xn->dtype, &x, 1, &sh, ia, NULL));
}

/* one per-dim list (kernel, stride, padding, dilation) expanded to nd values: a single value
 * repeats; `dflt` when null (NULL: the kernel's). Returns false after an error. */
static bool pool_list(cnn *C, kg_ev v, int nd, int64_t *out, const int64_t *dflt, int64_t fill, const char *what, const char *lenmsg) {
  int64_t t[8];
  int n = ints(C, v, t, 8, what);
  if (n < 0) return false;
  if (n == 0) {
    for (int i = 0; i < nd; i++) out[i] = dflt ? dflt[i] : fill;
    return true;
  }
  if (n != 1 && n != nd) {
    PERR(C, KG_E_ARG, "%s", lenmsg);
    return false;
  }
  for (int i = 0; i < nd; i++) out[i] = t[n == 1 ? 0 : i];
  return true;
}

static kg_ev pool_member(cnn *C, const kg_ev *av, int n) {
  bool two = strstr(C->nm, "2d") != NULL;
  int nd = two ? 2 : 1;
  bool mx = !strncmp(C->nm, "max", 3);
  uint32_t x;
  if (!tensor(C, av[0], &x, "input")) return kg_ev_err();
  int64_t k[2], s[2], p[2], d[2] = {1, 1};
  bool ceil = false, cip = true;
  int64_t divisor = 0;
  const char *fn = mx ? (two ? "max_pool2d" : "max_pool1d") : (two ? "avg_pool2d" : "avg_pool1d");
  char km[128], sm[128], pm[128], dm[128];
  snprintf(km, sizeof km, "%s: kernel_size must either be a single int, or a tuple of two ints", fn);
  snprintf(sm, sizeof sm, "%s: stride must either be omitted, a single int, or a tuple of two ints", fn);
  snprintf(pm, sizeof pm, "%s: padding must either be a single int, or a tuple of two ints", fn);
  snprintf(dm, sizeof dm, "%s: dilation must be either a single int, or a tuple of two ints", fn);
  if (n < 3) return PERR(C, KG_E_INTERNAL, "%s(): %d arguments", C->nm, n);
  if (av[1].kind == EV_NULL) return PERR(C, KG_E_ARG, "%s(): kernel_size is null", fn);
  if (!pool_list(C, av[1], nd, k, NULL, 0, "kernel_size", km)) return kg_ev_err();
  if (!pool_list(C, av[2], nd, s, k, 0, "stride", sm)) return kg_ev_err();
  if (!pool_list(C, av[3], nd, p, NULL, 0, "padding", pm)) return kg_ev_err();
  int j = 4;
  if (mx) {
    if (!pool_list(C, av[j++], nd, d, NULL, 1, "dilation", dm)) return kg_ev_err();
    if (!cbool(av[j++], &ceil)) return PERR(C, KG_E_UNSUPPORTED, "%s(): ceil_mode must be a constant", fn);
  } else {
    if (!cbool(av[j++], &ceil) || !cbool(av[j++], &cip)) return PERR(C, KG_E_UNSUPPORTED, "%s(): ceil_mode and count_include_pad must be constants", fn);
    /* divisor_override: TorchSharp passes null as 0, which libtorch reads as none */
    if (j < n && av[j].kind != EV_NULL && !cint(av[j], &divisor)) return PERR(C, KG_E_UNSUPPORTED, "%s(): divisor_override must be a constant", fn);
  }
  return window_pool(C, x, nd, mx ? POOL_MAX : POOL_AVG, k, s, p, d, ceil, cip, divisor);
}

static kg_ev adaptive_member(cnn *C, const kg_ev *av, int n) {
  (void)n;
  bool two = strstr(C->nm, "2d") != NULL, mx = strstr(C->nm, "max") != NULL;
  int nd = two ? 2 : 1;
  uint32_t x;
  if (!tensor(C, av[0], &x, "input")) return kg_ev_err();
  const kg_gnode *xn = node(C, x);
  int r = xn->shape.rank;
  char sb[160];
  shape_s(C, &xn->shape, sb, sizeof sb);
  int64_t o[8];
  int no = ints(C, av[1], o, 8, "output_size");
  if (no < 0) return kg_ev_err();
  if (!two) {
    if (no != 1) return PERR(C, KG_E_ARG, "%s() argument 'output_size' should contain one int (got %d)", C->nm, no);
    if (r != 2 && r != 3) return PERR(C, KG_E_SHAPE, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for %s)", r, C->nm);
  } else {
    if (mx && no != 2) return PERR(C, KG_E_ARG, "adaptive_max_pool2d(): internal error: output_size.size() must be 2");
    if (!mx && no == 1) o[1] = o[0], no = 2; /* adaptive_avg_pool2d(input, long): a square */
    if (no != 2) return PERR(C, KG_E_ARG, "adaptive_avg_pool2d: output_size must be 2");
    if (r != 3 && r != 4)
      return mx ? PERR(C, KG_E_SHAPE, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: %s", sb)
                : PERR(C, KG_E_SHAPE, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s", sb);
  }
  for (int i = 0; i < nd; i++)
    if (o[i] < 0) {
      if (two) return PERR(C, KG_E_ARG, "%s: elements of output_size must be greater than or equal to 0 but received {%lld, %lld}", C->nm, (long long)o[0], (long long)o[1]);
      return PERR(C, KG_E_ARG, "%s: elements of output_size must be greater than or equal to 0 but received {%lld}", C->nm, (long long)o[0]);
    }
  for (int i = r - nd; i < r; i++) {
    const kg_dim *dm = &xn->shape.d[i];
    if (dm->kind == KG_DIM_STATIC && dm->v == 0)
      return PERR(C, KG_E_SHAPE, "%s(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with dimension %d being empty", two ? C->nm : (mx ? "adaptive_max_pool2d" : "adaptive_avg_pool2d"), sb, i);
  }
  int64_t in[2];
  if (!spatial_sizes(C, xn, nd, in)) return kg_ev_err();
  if (!floating(C, xn, mx ? "adaptive_max_pool2d" : "adaptive_avg_pool2d")) return kg_ev_err();
  int64_t ia[4] = {0, 0, nd | ((mx ? POOL_AMAX : POOL_AAVG) << 2), 0};
  kg_shape sh = with_spatial(&xn->shape, nd, o);
  return kg_ev_node(mknode(C, KG_OP_POOL, (kg_dtype)xn->dtype, &x, 1, &sh, ia, NULL));
}

/* ---- normalization over channels ---- */

/* a per-channel vector of `c` elements (running stats, weight, bias): PyTorch's message when not */
static bool per_channel(cnn *C, uint32_t t, const kg_dim *c, const char *what) {
  if (t == KG_NONE) return true;
  const kg_gnode *tn = node(C, t);
  int64_t numel = 1;
  bool stat = true;
  for (int i = 0; i < tn->shape.rank; i++) {
    if (tn->shape.d[i].kind == KG_DIM_STATIC) numel *= tn->shape.d[i].v;
    else stat = false;
  }
  bool ok = tn->shape.rank == 1 && (!stat || c->kind != KG_DIM_STATIC || numel == c->v);
  if (tn->shape.rank == 1 && c->kind == KG_DIM_SYM && tn->shape.d[0].kind == KG_DIM_SYM && tn->shape.d[0].v != c->v)
    ok = true; /* two symbols: assumed equal (checked when bound) */
  if (!ok) {
    PERR(C, KG_E_SHAPE, "%s should contain %lld elements not %lld", what, (long long)(c->kind == KG_DIM_STATIC ? c->v : -1), (long long)(stat ? numel : -1));
    return false;
  }
  if (!kg_dtype_is_float((kg_dtype)tn->dtype)) {
    PERR(C, KG_E_TYPE, "%s(): %s must be a floating tensor", C->nm, what);
    return false;
  }
  return true;
}

/* libtorch's CPU normalizations take parameters of the input's dtype, or float32 ones for a
 * float16 / bfloat16 input ("mixed dtype") */
static bool same_dtype(cnn *C, uint32_t x, uint32_t t, const char *what) {
  if (t == KG_NONE) return true;
  kg_dtype xd = (kg_dtype)node(C, x)->dtype, td = (kg_dtype)node(C, t)->dtype;
  if (td == xd || ((xd == KG_F16 || xd == KG_BF16) && td == KG_F32)) return true;
  PERR(C, KG_E_TYPE, "mixed dtype (CPU): all inputs must share same datatype. (%s(): the input is %s, %s is %s; only float16 / bfloat16 input takes float32 parameters)",
       C->nm, scalar_name(xd), what, scalar_name(td));
  return false;
}

/* batch_norm in training mode with running statistics updates them in place, as PyTorch does
 * (ATen's batch_norm_cpu_update_stats): running_mean = (1 - momentum) * running_mean + momentum *
 * mean, running_var = (1 - momentum) * running_var + momentum * unbiased variance, the statistics
 * over every dim but the channels' (in float32 for float16 / bfloat16 input). The new values
 * become the tensors' values (kg_elab_write_in_place: an input's or a capture's caller tensor is
 * written back). The row reductions fuse with the output's own statistics. */
static bool running_update(cnn *C, uint32_t x, uint32_t rm, uint32_t rv, double momentum) {
  const kg_gnode *xn = node(C, x); /* read before any node is added (the node array may move) */
  kg_dtype dt = (kg_dtype)xn->dtype, ct = dt == KG_F16 || dt == KG_BF16 ? KG_F32 : dt;
  int r = xn->shape.rank;
  kg_dim chan = xn->shape.d[1];
  int64_t mask = (((int64_t)1 << r) - 1) & ~(int64_t)2;
  uint32_t xc = x;
  if (ct != dt) {
    kg_ev e = kg_elab_tensor_op(C->el, C->at, KG_OP_CAST, &x, 1, NULL, NULL, ct);
    if (e.kind == EV_ERR) return false;
    xc = e.id;
  }
  kg_shape cs;
  memset(&cs, 0, sizeof cs);
  cs.rank = 1, cs.d[0] = chan;
  uint32_t st[2];
  for (int i = 0; i < 2; i++) { /* mean, unbiased variance */
    kg_gnode g;
    memset(&g, 0, sizeof g);
    g.op = (uint16_t)(i ? KG_OP_RVAR : KG_OP_RMEAN), g.dtype = (uint8_t)ct, g.cdtype = (uint8_t)(ct == KG_F64 ? KG_F64 : KG_F32);
    g.vkind = KG_V_TENSOR, g.n_in = 1, g.in[0] = xc, g.shape = cs;
    g.ia[0] = mask, g.fa[0] = i ? 1.0 : 0.0;
    st[i] = kg_elab_add_node(C->el, C->at, &g);
  }
  const uint32_t targets[2] = {rm, rv};
  static const char *const what[2] = {"batch_norm()'s running_mean", "batch_norm()'s running_var"};
  for (int i = 0; i < 2; i++) {
    kg_ev a[2] = {kg_ev_node(targets[i]), kg_ev_const(kg_cval_float(KG_F64, 1.0 - momentum))};
    kg_ev old = kg_elab_tensor_op_ev(C->el, C->at, KG_OP_MUL, a, 2, NULL, NULL, KG_DT_NONE);
    kg_ev b[2] = {kg_ev_node(st[i]), kg_ev_const(kg_cval_float(KG_F64, momentum))};
    kg_ev fresh = kg_elab_tensor_op_ev(C->el, C->at, KG_OP_MUL, b, 2, NULL, NULL, KG_DT_NONE);
    if (old.kind == EV_ERR || fresh.kind == EV_ERR) return false;
    kg_ev sum[2] = {old, fresh};
    kg_ev nv = kg_elab_tensor_op_ev(C->el, C->at, KG_OP_ADD, sum, 2, NULL, NULL, KG_DT_NONE);
    if (nv.kind == EV_ERR) return false;
    const kg_ast *arg = C->at->n_kids > (uint32_t)(1 + i) ? C->at->kids[1 + i] : NULL;
    if (kg_elab_write_in_place(C->el, C->at, arg, targets[i], nv, what[i]).kind == EV_ERR) return false;
  }
  return true;
}

static kg_ev batch_norm_member(cnn *C, const kg_ev *av, int n, bool instance) {
  if (n != 8) return PERR(C, KG_E_INTERNAL, "%s(): %d arguments", C->nm, n);
  uint32_t x, rm, rv, w, b;
  if (!tensor(C, av[0], &x, "input") || !opt_tensor(C, av[1], &rm, "running_mean") || !opt_tensor(C, av[2], &rv, "running_var") ||
      !opt_tensor(C, av[3], &w, "weight") || !opt_tensor(C, av[4], &b, "bias"))
    return kg_ev_err();
  bool training;
  double momentum, eps;
  if (!cbool(av[5], &training) || !cdouble(av[6], &momentum) || !cdouble(av[7], &eps))
    return PERR(C, KG_E_UNSUPPORTED, "%s(): %s, momentum and eps must be constants when kgen compiles", C->nm, instance ? "use_input_stats" : "training");
  const kg_gnode *xn = node(C, x);
  int r = xn->shape.rank;
  char sb[160];
  shape_s(C, &xn->shape, sb, sizeof sb);
  if (instance && r < 2)
    return PERR(C, KG_E_SHAPE, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  if (!instance && r < 2) {
    kg_dim zero = {KG_DIM_STATIC, 0};
    if (rm != KG_NONE && !per_channel(C, rm, &zero, "running_mean")) return kg_ev_err();
    return PERR(C, KG_E_SHAPE, "batch_norm(): the input must have a channel dim (dim 1), but its shape is %s", sb);
  }
  const kg_dim *c = &xn->shape.d[1];
  if (!training && !instance && (rm == KG_NONE || rv == KG_NONE))
    return PERR(C, KG_E_ARG, "running_%s must be defined in evaluation mode", rm == KG_NONE ? "mean" : "var");
  if (instance && !training && (rm == KG_NONE || rv == KG_NONE))
    return PERR(C, KG_E_ARG, "Expected running_mean and running_var to be defined when use_input_stats is false");
  if (!per_channel(C, rm, c, "running_mean") ||
      !per_channel(C, rv, c, "running_var") ||
      !per_channel(C, w, c, "weight") ||
      !per_channel(C, b, c, "bias") || !same_dtype(C, x, rm, "running_mean") || !same_dtype(C, x, rv, "running_var") ||
      !same_dtype(C, x, w, "weight") || !same_dtype(C, x, b, "bias"))
    return kg_ev_err();
  if (training && instance && (rm != KG_NONE || rv != KG_NONE))
    return PERR(C, KG_E_UNSUPPORTED,
                "%s() with use_input_stats=true and running statistics: PyTorch updates running_mean and running_var in place "
                "with the batch-averaged instance statistics, which kgen does not do yet; call it with use_input_stats=false or without running statistics",
                C->nm);
  if (training && !instance) {
    /* PyTorch's "Expected more than 1 value per channel when training" is Python's check only;
     * libtorch (TorchSharp) normalizes a single value to the bias */
  }
  if (!floating(C, xn, "batch_norm")) return kg_ev_err();
  uint32_t in[5] = {x};
  int k = 1;
  int64_t flags = 0;
  bool update = training && rm != KG_NONE; /* the output reads the batch statistics only */
  if (rm != KG_NONE && !update) in[k++] = rm, in[k++] = rv, flags |= 4;
  if (w != KG_NONE) in[k++] = w, flags |= 1;
  if (b != KG_NONE) in[k++] = b, flags |= 2;
  int64_t ia[4] = {training, flags, instance, 0};
  double fa[4] = {eps, momentum, 0, 0};
  kg_shape xs = xn->shape;
  kg_ev y = kg_ev_node(mknode(C, KG_OP_BATCH_NORM, (kg_dtype)xn->dtype, in, k, &xs, ia, fa));
  if (update && !running_update(C, x, rm, rv, momentum)) return kg_ev_err();
  return y;
}

static kg_ev group_norm_member(cnn *C, const kg_ev *av, int n) {
  if (n != 5) return PERR(C, KG_E_INTERNAL, "%s(): %d arguments", C->nm, n);
  uint32_t x, w, b;
  int64_t g;
  double eps;
  if (!tensor(C, av[0], &x, "input") || !opt_tensor(C, av[2], &w, "weight") || !opt_tensor(C, av[3], &b, "bias")) return kg_ev_err();
  if (!cint(av[1], &g) || !cdouble(av[4], &eps)) return PERR(C, KG_E_UNSUPPORTED, "group_norm(): num_groups and eps must be constants when kgen compiles");
  const kg_gnode *xn = node(C, x);
  int r = xn->shape.rank;
  char sb[160], wb[160];
  shape_s(C, &xn->shape, sb, sizeof sb);
  if (r < 2) return PERR(C, KG_E_SHAPE, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  const kg_dim *c = &xn->shape.d[1];
  if (c->kind != KG_DIM_STATIC) return PERR(C, KG_E_UNSUPPORTED, "group_norm(): the channel dim has a symbolic size; kgen needs it when it compiles");
  if (g <= 0 || c->v % g != 0)
    return PERR(C, KG_E_SHAPE, "Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%lld", sb, (long long)g);
  uint32_t t[2] = {w, b};
  for (int i = 0; i < 2; i++) {
    if (t[i] == KG_NONE) continue;
    const kg_gnode *tn = node(C, t[i]);
    shape_s(C, &tn->shape, wb, sizeof wb);
    if (tn->shape.rank != 1 || (tn->shape.d[0].kind == KG_DIM_STATIC && tn->shape.d[0].v != c->v))
      return PERR(C, KG_E_SHAPE, "Expected %s to be a vector of size equal to the number of channels in input, but got %s of shape %s and input of shape %s",
                  i ? "bias" : "weight", i ? "bias" : "weight", wb, sb);
    if (!kg_dtype_is_float((kg_dtype)tn->dtype)) return PERR(C, KG_E_TYPE, "group_norm(): %s must be a floating tensor", i ? "bias" : "weight");
    if (!same_dtype(C, x, t[i], i ? "bias" : "weight")) return kg_ev_err();
  }
  if (!floating(C, xn, "GroupNormKernelImpl")) return kg_ev_err();
  uint32_t in[3] = {x};
  int k = 1;
  int64_t flags = 0;
  if (w != KG_NONE) in[k++] = w, flags |= 1;
  if (b != KG_NONE) in[k++] = b, flags |= 2;
  int64_t ia[4] = {g, flags, 0, 0};
  double fa[4] = {eps, 0, 0, 0};
  return kg_ev_node(mknode(C, KG_OP_GROUP_NORM, (kg_dtype)xn->dtype, in, k, &xn->shape, ia, fa));
}

/* ---- resampling ---- */

enum { MODE_NEAREST = 0, MODE_LINEAR = 1, MODE_BILINEAR = 2 };
static const char *const mode_names[] = {"kNearest", "kLinear", "kBilinear", "kBicubic", "kTrilinear", "kArea", "kNearestExact"};

/* libtorch's torch::nn::functional::interpolate, as TorchSharp 0.107 calls it (THSNN_interpolate):
 * align = -1 not given */
static kg_ev interpolate(cnn *C, uint32_t x, kg_ev size, kg_ev scale, int64_t mode, int align, bool recompute, bool antialias) {
  const kg_gnode *xn = node(C, x);
  int r = xn->shape.rank;
  if (mode < 0 || mode > 6) return PERR(C, KG_E_ARG, "interpolate(): unknown mode %lld", (long long)mode);
  if (mode == 0 || mode == 5 || mode == 6) {
    if (align >= 0) return PERR(C, KG_E_ARG, "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear");
  } else if (align < 0) {
    align = 0;
  }
  if (r < 3 || r > 5)
    return PERR(C, KG_E_SHAPE, "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: nearest | linear | bilinear | bicubic | trilinear (got %s)", r, mode_names[mode]);
  int nd = r - 2;
  int64_t sz[8];
  double sf[8];
  int nsz = ints(C, size, sz, 8, "size"), nsf = doubles(C, scale, sf, 8, "scale_factor");
  if (nsz < 0 || nsf < 0) return kg_ev_err();
  bool has_sz = size.kind != EV_NULL, has_sf = scale.kind != EV_NULL;
  if (!has_sz && !has_sf) return PERR(C, KG_E_ARG, "either size or scale_factor should be defined");
  if (has_sz && has_sf) return PERR(C, KG_E_ARG, "only one of size or scale_factor should be defined");
  if (has_sf && nsf != nd) {
    char b[256];
    size_t k = (size_t)snprintf(b, sizeof b, "[");
    for (int i = 0; i < nsf && i < 8 && k < sizeof b; i++) k += (size_t)snprintf(b + k, sizeof b - k, "%s%g", i ? ", " : "", sf[i]);
    if (k < sizeof b) snprintf(b + k, sizeof b - k, "]");
    return PERR(C, KG_E_SHAPE, "scale_factor shape must match input shape. Input is %dD, scale_factor size is %s", nd, b);
  }
  if (mode == 1 && r != 3) return PERR(C, KG_E_SHAPE, "Got %dD input, but linear mode needs 3D input", r);
  if (mode == 2 && r != 4) return PERR(C, KG_E_SHAPE, "Got %dD input, but bilinear mode needs 4D input", r);
  if (mode > 2 || r == 5)
    return PERR(C, KG_E_UNSUPPORTED, "interpolate(): kgen resamples with modes nearest (1-d and 2-d), linear (1-d) and bilinear (2-d); not %s over %dD input", mode_names[mode], r);
  if (antialias) return PERR(C, KG_E_UNSUPPORTED, "interpolate(): antialias is not supported by kgen");
  int64_t in[2], o[2];
  if (!spatial_sizes(C, xn, nd, in)) return kg_ev_err();
  if (has_sz) {
    if (nsz != nd) return PERR(C, KG_E_SHAPE, "It is expected output_size equals to %d, but got size %d", nd, nsz);
    for (int i = 0; i < nd; i++) o[i] = sz[i];
  } else {
    for (int i = 0; i < nd; i++) {
      double v = floor((double)in[i] * sf[i]);
      if (!(v > -1e15 && v < 1e15)) return PERR(C, KG_E_ARG, "interpolate(): scale_factor %g gives no output size", sf[i]);
      o[i] = (int64_t)v;
    }
  }
  bool bad = false;
  for (int i = 0; i < nd; i++) bad |= o[i] <= 0 || in[i] <= 0;
  if (bad) {
    if (nd == 1) return PERR(C, KG_E_SHAPE, "Input and output sizes should be greater than 0, but got input (W: %lld) and output (W: %lld)", (long long)in[0], (long long)o[0]);
    return PERR(C, KG_E_SHAPE, "Input and output sizes should be greater than 0, but got input (H: %lld, W: %lld) output (H: %lld, W: %lld)",
                (long long)in[0], (long long)in[1], (long long)o[0], (long long)o[1]);
  }
  if (!floating(C, xn, mode == 0 ? "compute_indices_weights_nearest" : "compute_indices_weights_linear")) return kg_ev_err();
  bool scales = has_sf && !recompute;
  int64_t ia[4] = {0, 0, nd | ((mode == 0 ? 0 : 1) << 2) | (align > 0 ? 16 : 0) | (scales ? 32 : 0) | (align >= 0 ? 64 : 0), 0};
  double fa[4] = {0, 0, 0, 0};
  for (int i = 0; scales && i < nd; i++) fa[i] = sf[i];
  kg_shape sh = with_spatial(&xn->shape, nd, o);
  return kg_ev_node(mknode(C, KG_OP_UPSAMPLE, (kg_dtype)xn->dtype, &x, 1, &sh, ia, fa));
}

static kg_ev interpolate_member(cnn *C, const kg_ev *av, int n) {
  uint32_t x;
  if (!tensor(C, av[0], &x, "input")) return kg_ev_err();
  int64_t mode = 0;
  int align = -1;
  bool b, recompute = false, antialias = false;
  if (!strcmp(C->nm, "interpolate")) {
    if (n != 7) return PERR(C, KG_E_INTERNAL, "interpolate(): %d arguments", n);
    if (av[3].kind != EV_ENUM) return PERR(C, KG_E_UNSUPPORTED, "interpolate(): mode must be a constant");
    mode = av[3].c.i;
    if (av[4].kind != EV_NULL) {
      if (!cbool(av[4], &b)) return PERR(C, KG_E_UNSUPPORTED, "interpolate(): align_corners must be a constant");
      align = b;
    }
    if (!cbool(av[5], &recompute) || !cbool(av[6], &antialias)) return PERR(C, KG_E_UNSUPPORTED, "interpolate(): recompute_scale_factor and antialias must be constants");
    return interpolate(C, x, av[1], av[2], mode, align, recompute, antialias);
  }
  /* upsample(input, size, scale_factor, mode, align_corners: bool) and upsample_nearest /
   * upsample_bilinear(x, size, scale_factor, align_corners: bool) pass align_corners on as a
   * bool? that always has a value (so nearest modes always raise libtorch's error) */
  if (!strcmp(C->nm, "upsample")) {
    if (n != 5 || av[3].kind != EV_ENUM) return PERR(C, KG_E_UNSUPPORTED, "upsample(): mode must be a constant");
    mode = av[3].c.i;
    if (!cbool(av[4], &b)) return PERR(C, KG_E_UNSUPPORTED, "upsample(): align_corners must be a constant");
  } else {
    if (n != 4) return PERR(C, KG_E_INTERNAL, "%s(): %d arguments", C->nm, n);
    mode = !strcmp(C->nm, "upsample_bilinear") ? MODE_BILINEAR : MODE_NEAREST;
    if (!cbool(av[3], &b)) return PERR(C, KG_E_UNSUPPORTED, "%s(): align_corners must be a constant", C->nm);
  }
  align = b;
  return interpolate(C, x, av[1], av[2], mode, align, false, false);
}

/* ---- pixel_shuffle / pixel_unshuffle ---- */

static kg_ev shuffle_member(cnn *C, const kg_ev *av, int n) {
  (void)n;
  bool un = !strcmp(C->nm, "pixel_unshuffle");
  const char *fn = un ? "pixel_unshuffle" : "pixel_shuffle";
  uint32_t x;
  int64_t f;
  if (!tensor(C, av[0], &x, "input")) return kg_ev_err();
  if (!cint(av[1], &f)) return PERR(C, KG_E_UNSUPPORTED, "%s(): the factor must be a constant", fn);
  const kg_gnode *xn = node(C, x);
  int r = xn->shape.rank;
  if (r < 3) return PERR(C, KG_E_SHAPE, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)", fn, r);
  if (f <= 0) return PERR(C, KG_E_ARG, "%s expects a positive %s, but got %lld", fn, un ? "downscale_factor" : "upscale_factor", (long long)f);
  int64_t chw[3];
  for (int i = 0; i < 3; i++) {
    const kg_dim *d = &xn->shape.d[r - 3 + i];
    if (d->kind != KG_DIM_STATIC)
      return PERR(C, KG_E_UNSUPPORTED, "%s(): dim %d has a symbolic size; kgen needs the last three dims' sizes when it compiles", fn, r - 3 + i);
    chw[i] = d->v;
  }
  kg_shape sh = xn->shape;
  if (!un) {
    if (chw[0] % (f * f))
      return PERR(C, KG_E_SHAPE, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%lld is not divisible by %lld",
                  (long long)chw[0], (long long)(f * f));
    sh.d[r - 3].v = chw[0] / (f * f), sh.d[r - 2].v = chw[1] * f, sh.d[r - 1].v = chw[2] * f;
  } else {
    if (chw[1] % f) return PERR(C, KG_E_SHAPE, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%lld is not divisible by %lld", (long long)chw[1], (long long)f);
    if (chw[2] % f) return PERR(C, KG_E_SHAPE, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%lld is not divisible by %lld", (long long)chw[2], (long long)f);
    sh.d[r - 3].v = chw[0] * f * f, sh.d[r - 2].v = chw[1] / f, sh.d[r - 1].v = chw[2] / f;
  }
  if (f == 1) return kg_ev_node(x);
  int64_t ia[4] = {f, un, 0, 0};
  return kg_ev_node(mknode(C, KG_OP_PIXEL_SHUFFLE, (kg_dtype)xn->dtype, &x, 1, &sh, ia, NULL));
}

/* ---- the handler ---- */

kg_ev kg_elab_cnn(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  char nbuf[64];
  const char *k0 = strstr(row->key, "::");
  size_t nl = k0 ? strcspn(k0 + 2, "(") : 0;
  snprintf(nbuf, sizeof nbuf, "%.*s", (int)(nl < sizeof nbuf ? nl : sizeof nbuf - 1), k0 ? k0 + 2 : "?");
  cnn Cs = {el, at, nbuf}, *C = &Cs;
  if ((int)strlen(row->argspec) != n) return PERR(C, KG_E_FORMAT, "%s takes %d arguments, got %d", row->key, (int)strlen(row->argspec), n);
  for (int i = 0; i < n; i++)
    if (av[i].kind == EV_ERR) return av[i];
  switch (row->op) {
  case KG_OP_POOL:
    if (!strncmp(nbuf, "adaptive", 8)) return adaptive_member(C, av, n);
    return pool_member(C, av, n);
  case KG_OP_BATCH_NORM: return batch_norm_member(C, av, n, !strcmp(nbuf, "instance_norm"));
  case KG_OP_GROUP_NORM: return group_norm_member(C, av, n);
  case KG_OP_UPSAMPLE: return interpolate_member(C, av, n);
  case KG_OP_PIXEL_SHUFFLE: return shuffle_member(C, av, n);
  default: break;
  }
  return PERR(C, KG_E_INTERNAL, "unhandled member %s", row->key);
}
