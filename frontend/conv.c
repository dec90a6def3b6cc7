/* frontend/conv.c — the H_CONV member handler: torch.nn.functional.conv1d / conv2d (numbers or
 * the Padding enum: 'valid' / 'same'), conv_transpose1d / conv_transpose2d, and pad (constant,
 * reflect, replicate, circular) — TorchSharp's arguments bound, PyTorch's shape rules and errors
 * (read off torch 1.13's _convolution / check_shape_forward and _pad_enum, the path LibTorchSharp
 * calls), located at the F# call.
 *
 * A convolution is ONE typed-program node, CONV (ops.def), so the TorchScript twin calls
 * PyTorch's own conv; passes/decompose.c expands it into the implicit GEMM. An unbatched input
 * [C, S...] is convolved as [1, C, S...] and the result viewed back (PyTorch's batchify). A pad
 * is a PAD layout node (index arithmetic in the reading kernel, so conv2d(pad(x, reflect)) reads
 * x in place).
 *
 *   torch.nn.functional.conv2d(x, w, b, strides = [|2L|], padding = [|1L|])  on x: [N,3,32,32], w: [8,3,3,3]
 *     %3 = CONV:float32[N,8,16,16](%0, %1, %2) stride (2,2) pad (1,1) dil (1,1) groups 1
 *   torch.nn.functional.pad(x, [|1L; 2L|], PaddingModes.Reflect)  → %4 = PAD:float32[..., W+3](%0)
 */
#include <stdio.h>
#include <string.h>

#include "layout_int.h"

/* PyTorch's legacy tensor type names (messages of _convolution's type checks) */
static const char *tensor_type(kg_dtype t) {
  switch (t) {
  case KG_BOOL: return "torch.BoolTensor";
  case KG_U8: return "torch.ByteTensor";
  case KG_I8: return "torch.CharTensor";
  case KG_I16: return "torch.ShortTensor";
  case KG_I32: return "torch.IntTensor";
  case KG_I64: return "torch.LongTensor";
  case KG_F16: return "torch.HalfTensor";
  case KG_BF16: return "torch.BFloat16Tensor";
  case KG_F32: return "torch.FloatTensor";
  case KG_F64: return "torch.DoubleTensor";
  default: return "?";
  }
}

/* "[2, 3, 5, 5]" */
static const char *sizes_s(lay *L, const kg_shape *s) {
  char buf[200];
  shape_text(L, s, buf, sizeof buf);
  return kg_arena_strdup(L->el->arena, buf);
}

#define E(code, ...) (err(L->el, L->at, code, __VA_ARGS__), kg_ev_err())

/* "(5 x 5)" of nd values */
static const char *tuple_x(lay *L, const int64_t *v, int nd) {
  char b[160];
  size_t k = (size_t)snprintf(b, sizeof b, "(");
  for (int i = 0; i < nd; i++) k += (size_t)snprintf(b + k, sizeof b - k, "%s%lld", i ? " x " : "", (long long)v[i]);
  snprintf(b + k, sizeof b - k, ")");
  return kg_arena_strdup(L->el->arena, b);
}

/* A per-dim parameter: null (TorchSharp's default `new long[] { d }`), one number (a Nullable or
 * a one-element array: every dim), or an array of nd. PyTorch's expand_param_if_needed error
 * otherwise. */
static bool param_arg(lay *L, kg_ev v, const char *name, int nd, int64_t dflt, int64_t *out) {
  int64_t c;
  if (v.kind == EV_NULL) {
    for (int i = 0; i < nd; i++) out[i] = dflt;
    return true;
  }
  if (v.kind != EV_ARRAY) {
    if (!int_arg(L, v, &c, name)) return false;
    for (int i = 0; i < nd; i++) out[i] = c;
    return true;
  }
  int64_t vals[KG_MAX_RANK];
  int n = (int)v.n;
  for (int i = 0; i < n && i < KG_MAX_RANK; i++)
    if (!int_arg(L, v.items[i], &vals[i], name)) return false;
  if (n != 1 && n != nd) {
    char b[200];
    size_t k = 0;
    b[0] = 0;
    for (int i = 0; i < n && i < KG_MAX_RANK && k < sizeof b - 24; i++) k += (size_t)snprintf(b + k, sizeof b - k, "%s%lld", i ? ", " : "", (long long)vals[i]);
    err(L->el, L->at, KG_E_SHAPE, "expected %s to be a single integer value or a list of %d values to match the convolution dimensions, but got %s=[%s]", name, nd,
        name, b);
    return false;
  }
  for (int i = 0; i < nd; i++) out[i] = vals[n == 1 ? 0 : i];
  return true;
}

static int64_t sdim(const kg_dim *d) { return d->kind == KG_DIM_STATIC ? d->v : -1; }

/* conv / conv_transpose: av = input, weight, bias, then the per-dim parameters by member */
static kg_ev conv(lay *L, const char *nm, const kg_ev *av, int n) {
  kg_elab *el = L->el;
  bool transposed = !strncmp(nm, "conv_transpose", 14);
  bool spelled = strstr(nm, "_padding") != NULL; /* conv2d_padding: the Padding enum */
  int fnd = nm[transposed ? 14 : 4] - '0'; /* the function's spatial dims: conv1d / conv2d */
  char fname[32]; /* conv2d_padding is conv2d in PyTorch's messages */
  snprintf(fname, sizeof fname, "%.*s", (int)(spelled ? strstr(nm, "_padding") - nm : (long)strlen(nm)), nm);
  nm = fname;
  uint32_t x, w, b = KG_NONE;
  if (!tensor_arg(L, av[0], &x) || !tensor_arg(L, av[1], &w)) return kg_ev_err();
  if (av[2].kind != EV_NULL && !tensor_arg(L, av[2], &b)) return kg_ev_err();
  const kg_gnode *xn = gnode(el, x), *wn = gnode(el, w), *bn = b != KG_NONE ? gnode(el, b) : NULL;
  int rx = xn->shape.rank, rw = wn->shape.rank;
  /* batchify: conv{N}d takes [C, S...] or [N, C, S...] */
  if (rx != fnd + 1 && rx != fnd + 2)
    return E(KG_E_SHAPE, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s", fnd + 1, fnd + 2, nm, sizes_s(L, &xn->shape));
  bool unbatched = rx == fnd + 1;
  kg_shape xs = xn->shape;
  if (unbatched) {
    memmove(&xs.d[1], &xs.d[0], sizeof(kg_dim) * (size_t)rx);
    xs.d[0] = (kg_dim){KG_DIM_STATIC, 1};
    xs.rank++;
  }
  if (rw < 3) return E(KG_E_SHAPE, "weight should have at least three dimensions");
  int nd = rw - 2;
  if (nd > KG_CONV_MAX_DIMS) return E(KG_E_LIMIT, "%dD convolutions: kgen supports up to %dD", nd, KG_CONV_MAX_DIMS);
  int64_t stride[KG_MAX_RANK], pad[KG_MAX_RANK], dil[KG_MAX_RANK], opad[KG_MAX_RANK] = {0}, groups = 1;
  int spelling = 0;
  int ai = 3;
  if (!param_arg(L, av[ai++], "stride", nd, 1, stride)) return kg_ev_err();
  if (spelled) {
    if (av[ai].kind != EV_ENUM && av[ai].kind != EV_CONST) return E(KG_E_UNSUPPORTED, "%s: the padding must be Padding.Valid or Padding.Same written in the code", nm);
    spelling = av[ai].c.i == 1 ? 2 : 1;
    if (av[ai].c.i != 0 && av[ai].c.i != 1) return E(KG_E_ARG, "Invalid padding string specified");
    ai++;
    for (int i = 0; i < nd; i++) pad[i] = 0;
  } else if (!param_arg(L, av[ai++], "padding", nd, 0, pad)) {
    return kg_ev_err();
  }
  if (transposed && !param_arg(L, av[ai++], "output_padding", nd, 0, opad)) return kg_ev_err();
  if (!param_arg(L, av[ai++], "dilation", nd, 1, dil)) return kg_ev_err();
  if (ai < n && !int_arg(L, av[ai], &groups, "groups")) return kg_ev_err();
  /* check_shape_forward */
  for (int i = 0; i < nd; i++) {
    if (stride[i] <= 0) return E(KG_E_ARG, "non-positive stride is not supported");
    if (pad[i] < 0) return E(KG_E_ARG, "negative padding is not supported");
    if (dil[i] <= 0) return E(KG_E_ARG, "non-positive dilation is not supported");
    if (opad[i] < 0) return E(KG_E_ARG, "negative output_padding is not supported");
    if (stride[i] > KG_CONV_FIELD_MAX || pad[i] > KG_CONV_FIELD_MAX || dil[i] > KG_CONV_FIELD_MAX)
      return E(KG_E_LIMIT, "%s: a stride, padding or dilation above %d", nm, KG_CONV_FIELD_MAX);
  }
  if (groups <= 0) return E(KG_E_ARG, "non-positive groups is not supported");
  if (xs.rank != rw)
    return E(KG_E_SHAPE, "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead", rw, rw,
             sizes_s(L, &wn->shape), xs.rank, sizes_s(L, &xs));
  for (int i = 0; i < rw; i++)
    if (wn->shape.d[i].kind != KG_DIM_STATIC) return E(KG_E_UNSUPPORTED, "%s: the weight's sizes must be static", nm);
  int64_t w0 = wn->shape.d[0].v, w1 = wn->shape.d[1].v;
  if (w0 < groups)
    return E(KG_E_SHAPE, "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got weight of size %s instead", (long long)groups,
             (long long)groups, sizes_s(L, &wn->shape));
  if (w0 % groups)
    return E(KG_E_SHAPE, "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got weight of size [%s] instead", (long long)groups,
             (long long)groups, sizes_s(L, &wn->shape));
  int64_t cin = sdim(&xs.d[1]);
  if (cin < 0) return E(KG_E_UNSUPPORTED, "%s: the input's channel dim must be static (it is %s)", nm, el->g->syms.v[xs.d[1].v]);
  int64_t want_c = transposed ? w0 : w1 * groups, cout = transposed ? w1 * groups : w0;
  if (cin != want_c) {
    if (transposed)
      return E(KG_E_SHAPE, "Given transposed=1, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead", sizes_s(L, &wn->shape),
               sizes_s(L, &xs), (long long)want_c, (long long)cin);
    return E(KG_E_SHAPE, "Given groups=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld channels instead", (long long)groups,
             sizes_s(L, &wn->shape), sizes_s(L, &xs), (long long)want_c, (long long)cin);
  }
  if (bn && (bn->shape.rank != 1 || (bn->shape.d[0].kind == KG_DIM_STATIC && bn->shape.d[0].v != cout)))
    return E(KG_E_SHAPE, "Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got bias of size %s instead", sizes_s(L, &wn->shape),
             (long long)cout, sizes_s(L, &bn->shape));
  /* spatial sizes: padded input against the dilated kernel (or the transposed output) */
  int64_t ks[KG_MAX_RANK], in_s[KG_MAX_RANK], padded[KG_MAX_RANK], dk[KG_MAX_RANK];
  bool sym = false;
  for (int i = 0; i < nd; i++) {
    ks[i] = wn->shape.d[2 + i].v, in_s[i] = sdim(&xs.d[2 + i]);
    sym |= in_s[i] < 0;
    dk[i] = dil[i] * (ks[i] - 1) + 1;
    if (spelling == 2) { /* 'same': PyTorch pads d(k-1) in total, the smaller half on the left */
      if (stride[i] != 1) return E(KG_E_ARG, "padding='same' is not supported for strided convolutions");
      pad[i] = dil[i] * (ks[i] - 1) / 2;
    }
  }
  kg_shape xs1 = xs; /* PyTorch runs 1-D convolutions as 2-D of height 1 */
  if (nd == 1) xs1.rank = 4, xs1.d[3] = xs.d[2], xs1.d[2] = (kg_dim){KG_DIM_STATIC, 1};
  for (int i = 0; i < nd; i++)
    if (in_s[i] == 0 && (sdim(&xs.d[0]) != 0 && cin != 0))
      return E(KG_E_SHAPE, "Only zero batch or zero channel inputs are supported, but got input shape: %s", sizes_s(L, nd == 1 ? &xs1 : &xs));
  kg_shape out;
  memset(&out, 0, sizeof out);
  out.rank = (uint8_t)(2 + nd);
  out.d[0] = xs.d[0], out.d[1] = (kg_dim){KG_DIM_STATIC, cout};
  if (transposed) {
    for (int i = 0; i < nd; i++)
      if (opad[i] >= stride[i] && opad[i] >= dil[i]) {
        /* PyTorch checks as 2-D: a 1-D transposed convolution as height 1 */
        int64_t o2[2] = {nd == 1 ? 0 : opad[0], opad[nd - 1]}, s2[2] = {nd == 1 ? 1 : stride[0], stride[nd - 1]}, d2[2] = {nd == 1 ? 1 : dil[0], dil[nd - 1]};
        return E(KG_E_ARG,
                 "output padding must be smaller than either stride or dilation, but got output_padding_height: %lld output_padding_width: %lld stride_height: %lld "
                 "stride_width: %lld dilation_height: %lld dilation_width: %lld",
                 (long long)o2[0], (long long)o2[1], (long long)s2[0], (long long)s2[1], (long long)d2[0], (long long)d2[1]);
      }
    if (sym) return E(KG_E_UNSUPPORTED, "%s over a symbolic spatial size: kgen needs the input's spatial sizes static", nm);
    int64_t os[KG_MAX_RANK];
    bool small = false;
    for (int i = 0; i < nd; i++) {
      os[i] = (in_s[i] - 1) * stride[i] - 2 * pad[i] + dk[i] + opad[i];
      small |= os[i] <= 0;
      out.d[2 + i] = (kg_dim){KG_DIM_STATIC, os[i]};
    }
    if (small) {
      int64_t a1[2] = {1, in_s[0]}, b1[2] = {1, os[0]};
      return E(KG_E_SHAPE, "Given input size per channel: %s. Calculated output size per channel: %s. Output size is too small", nd == 1 ? tuple_x(L, a1, 2) : tuple_x(L, in_s, nd),
               nd == 1 ? tuple_x(L, b1, 2) : tuple_x(L, os, nd));
    }
    for (int i = 0; i < nd; i++)
      if (opad[i] > 63) return E(KG_E_LIMIT, "%s: output_padding above 63", nm);
  } else {
    bool big = false;
    for (int i = 0; i < nd; i++) {
      int64_t right = spelling == 2 ? dil[i] * (ks[i] - 1) - pad[i] : pad[i];
      padded[i] = in_s[i] + pad[i] + right;
      big |= in_s[i] >= 0 && padded[i] < dk[i];
      if (in_s[i] < 0) {
        /* a symbolic size stays a symbol only where the convolution keeps it */
        if (stride[i] != 1 || pad[i] + right != dk[i] - 1)
          return E(KG_E_UNSUPPORTED, "%s over the symbolic size %s: kgen needs it static unless the convolution keeps the size (stride 1, padding 'same')", nm,
                   el->g->syms.v[xs.d[2 + i].v]);
        out.d[2 + i] = xs.d[2 + i];
      } else {
        out.d[2 + i] = (kg_dim){KG_DIM_STATIC, (padded[i] - dk[i]) / stride[i] + 1};
      }
    }
    if (big) return E(KG_E_SHAPE, "Calculated padded input size per channel: %s. Kernel size: %s. Kernel size can't be greater than actual input size", tuple_x(L, padded, nd),
                      tuple_x(L, dk, nd));
  }
  /* dtypes: one for input, weight and bias */
  kg_dtype dt = (kg_dtype)xn->dtype;
  if (wn->dtype != dt)
    return E(KG_E_TYPE, "Input type (%s) and weight type (%s) should be the same or input should be a MKLDNN tensor and weight is a dense tensor", tensor_type(dt),
             tensor_type((kg_dtype)wn->dtype));
  if (bn && bn->dtype != dt)
    return E(KG_E_TYPE, "Input type (%s) and bias type (%s) should be the same or input should be a MKLDNN tensor and bias is a dense tensor", tensor_type(dt),
             tensor_type((kg_dtype)bn->dtype));
  if (dt == KG_BOOL) return E(KG_E_TYPE, "\"%s\" not implemented for 'Bool'", transposed ? "slow_conv_transpose2d_cpu" : "slow_conv2d_cpu");
  /* the node (over the batchified input) */
  uint32_t xin = x;
  if (unbatched) {
    kg_ev u = unsqueeze(L, x, 0);
    if (u.kind == EV_ERR) return u;
    xin = u.id;
  }
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_CONV, g.vkind = KG_V_TENSOR, g.dtype = (uint8_t)dt;
  g.cdtype = (uint8_t)(dt == KG_F16 || dt == KG_BF16 ? KG_F32 : kg_dtype_is_int(dt) ? (dt == KG_I64 ? KG_I64 : KG_I32) : dt);
  g.in[0] = xin, g.in[1] = w, g.n_in = 2;
  if (b != KG_NONE) g.in[2] = b, g.n_in = 3;
  g.shape = out;
  g.ia[0] = kg_conv_pack(stride, nd), g.ia[1] = kg_conv_pack(pad, nd), g.ia[2] = kg_conv_pack(dil, nd);
  g.ia[3] = kg_conv_ia3(groups, nd, spelling, transposed, opad);
  uint32_t id = kg_elab_add_node(el, L->at, &g);
  if (!unbatched) return kg_ev_node(id);
  kg_shape o = out;
  memmove(&o.d[0], &o.d[1], sizeof(kg_dim) * (size_t)(o.rank - 1));
  o.rank--;
  return reshape_to(L, id, o.d, o.rank, false);
}

/* pad(input, pad (Int64[] or one number for every edge), mode, value) */
static kg_ev pad(lay *L, const kg_ev *av, int n) {
  kg_elab *el = L->el;
  uint32_t x;
  if (!tensor_arg(L, av[0], &x)) return kg_ev_err();
  const kg_gnode *xn = gnode(el, x);
  int r = xn->shape.rank;
  int64_t p[2 * KG_MAX_RANK + 2];
  int np;
  if (av[1].kind == EV_ARRAY) {
    np = (int)av[1].n;
    if (np > 2 * KG_MAX_RANK + 2) return E(KG_E_SHAPE, "Padding length too large");
    for (int i = 0; i < np; i++)
      if (!int_arg(L, av[1].items[i], &p[i], "a padding size")) return kg_ev_err();
  } else { /* TorchSharp's pad(input, long pad): that size on both sides of every dim */
    int64_t v;
    if (!int_arg(L, av[1], &v, "the padding size")) return kg_ev_err();
    np = 2 * r;
    for (int i = 0; i < np; i++) p[i] = v;
  }
  int64_t mode = 4;
  if (n > 2) {
    if (av[2].kind != EV_ENUM && av[2].kind != EV_CONST) return E(KG_E_UNSUPPORTED, "pad: the mode must be a PaddingModes value written in the code");
    mode = av[2].c.i;
  }
  double value = 0;
  if (n > 3) {
    if (av[3].kind != EV_CONST) return E(KG_E_UNSUPPORTED, "pad: the value must be a constant when kgen compiles");
    value = kg_cval_as_double(av[3].c);
  }
  /* TorchSharp's PaddingModes: Zeros 0 and Constant 4 pad with the value, Reflect 1, Replicate 2, Circular 3 */
  int kind = mode == 1 ? 1 : mode == 2 ? 2 : mode == 3 ? 3 : 0;
  if (np % 2) return E(KG_E_SHAPE, "Padding length must be divisible by 2");
  if (np / 2 > r) return E(KG_E_SHAPE, "Padding length too large");
  int nd = np / 2;
  if (kind != 0 && !((np == 2 && (r == 2 || r == 3)) || (np == 4 && (r == 3 || r == 4)) || (np == 6 && (r == 4 || r == 5))))
    return E(KG_E_SHAPE, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  if (kind == 3 && np != 2 * (r - 2)) /* circular pads batched inputs only (torch 1.13's _pad_circular) */
    return E(KG_E_SHAPE, "Invalid padding size, expected %d but got %d", 2 * (r - 2), np);
  kg_dtype xt = (kg_dtype)xn->dtype;
  if ((kind == 1 || kind == 2) && !kg_dtype_is_float(xt)) { /* PyTorch's CPU kernels: floating types only */
    static const char *const names[] = {"Bool", "Byte", "Char", "Short", "Int", "Long"};
    return E(KG_E_TYPE, "\"%s_pad%dd%s\" not implemented for '%s'", kind == 1 ? "reflection" : "replication", np / 2, kind == 2 ? "_cpu" : "", names[xt]);
  }
  kg_shape out = xn->shape;
  int64_t ia[4] = {kind, 0, 0, nd};
  for (int j = 0; j < nd; j++) {
    int d = r - 1 - j; /* pairs from the last dim backwards */
    int64_t lo = p[2 * j], hi = p[2 * j + 1];
    if (lo < -32768 || lo > 32767 || hi < -32768 || hi > 32767) return E(KG_E_LIMIT, "pad: a padding size beyond ±32767");
    const kg_dim *sd = &xn->shape.d[d];
    if (sd->kind != KG_DIM_STATIC) {
      if (lo || hi) return E(KG_E_UNSUPPORTED, "pad: padding the symbolic size %s (kgen needs it static)", el->g->syms.v[sd->v]);
      continue;
    }
    int64_t s = sd->v;
    if (kind == 1 && (lo >= s || hi >= s)) {
      if (s == 0) {
        char t[160];
        shape_text(L, &xn->shape, t, sizeof t);
        return E(KG_E_SHAPE, "%dD or %dD (batch mode) tensor expected for input, but got: [ %s{%.*s} ]", nd + 1, nd + 2, tensor_type((kg_dtype)xn->dtype), (int)strlen(t) - 2, t + 1);
      }
      return E(KG_E_SHAPE, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) at dimension %d of input %s",
               (long long)lo, (long long)hi, d, sizes_s(L, &xn->shape));
    }
    if (kind == 2 && s == 0)
      return E(KG_E_SHAPE, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %s", nd + 1, nd + 2,
               sizes_s(L, &xn->shape));
    if (kind == 3 && (lo > s || hi > s)) return E(KG_E_SHAPE, "Padding value causes wrapping around more than once.");
    int64_t o = s + lo + hi;
    if (o < 0)
      return E(KG_E_SHAPE, "The input size %lld, plus negative padding %lld and %lld resulted in a negative output size, which is invalid. Check dimension %d of your input.",
               (long long)s, (long long)lo, (long long)hi, d);
    out.d[d] = (kg_dim){KG_DIM_STATIC, o};
    kg_pad_set_left(ia, d, lo);
  }
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_PAD, g.vkind = KG_V_TENSOR, g.dtype = g.cdtype = xn->dtype;
  g.in[0] = x, g.n_in = 1;
  g.shape = out;
  memcpy(g.ia, ia, sizeof ia);
  g.fa[0] = value;
  return kg_ev_node(kg_elab_add_node(el, L->at, &g));
}

kg_ev kg_elab_conv(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  char nm[64];
  const char *k0 = strstr(row->key, "::");
  size_t nl = k0 ? strcspn(k0 + 2, "(") : 0;
  snprintf(nm, sizeof nm, "%.*s", (int)(nl < sizeof nm ? nl : sizeof nm - 1), k0 ? k0 + 2 : "?");
  char what[80];
  snprintf(what, sizeof what, "%s()", nm);
  lay Ls = {el, at, what}, *L = &Ls;
  if ((int)strlen(row->argspec) != n) return err(el, at, KG_E_FORMAT, "%s takes %d arguments, got %d", row->key, (int)strlen(row->argspec), n);
  for (int i = 0; i < n; i++)
    if (av[i].kind == EV_ERR) return av[i];
  if (!strcmp(nm, "pad")) return pad(L, av, n);
  if (n < 4) return err(el, at, KG_E_INTERNAL, "unhandled convolution member %s", row->key);
  return conv(L, nm, av, n);
}
