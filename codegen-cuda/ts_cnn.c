/* codegen-cuda/ts_cnn.c — pooling, normalization over channels, resampling and pixel shuffle in
 * the PyTorch twin: each PyTorch's own aten op with every argument spelled out, as TorchSharp
 * 0.107 calls it through libtorch (so the twin means what the F# code means, defaults
 * included). Ops without a `torch.X` Python binding are written `torch.ops.aten.X`, which
 * TorchScript resolves in Python and the .NET check's C++ compiler maps to `torch.X`.
 *
 *   %1 = POOL:float32[N,8,5,5](%0) (max 3x3 / 2, pad 1)
 *     → t1 = torch.max_pool2d(x, [3, 3], [2, 2], [1, 1], [1, 1], False)
 *   %2 = BATCH_NORM(%0, rm, rv, w, b) eval
 *     → t2 = torch.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-05, False)
 */
#include <string.h>

#include "ts_int.h"

static const char *ints(ts_ctx *c, const int64_t *v, int n) {
  const char *s = "[";
  for (int i = 0; i < n; i++) s = fmt(c, "%s%s%lld", s, i ? ", " : "", (long long)v[i]);
  return fmt(c, "%s]", s);
}

/* a Python float literal (TorchScript tells 2 from 2.0) */
static const char *flt(ts_ctx *c, double v) {
  const char *s = fmt(c, "%.17g", v);
  return strpbrk(s, ".eni") ? s : fmt(c, "%s.0", s);
}

static const char *opt_f(ts_ctx *c, bool given, double v) { return given ? flt(c, v) : "None"; }

const char *kg_twin_cnn(ts_ctx *c, uint32_t id, const vval *a) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_dtype dt = (kg_dtype)n->dtype;
  bool rnd = c->up && (dt == KG_F16 || dt == KG_BF16);
  const char *x = text(c, a[0]), *s = NULL;
  int r = n->shape.rank;
  switch (n->op) {
  case KG_OP_POOL: {
    int nd = (int)(n->ia[2] & 3), kind = (int)((n->ia[2] >> 2) & 3);
    bool cip = (n->ia[2] >> 4) & 1, ceil = (n->ia[2] >> 5) & 1;
    int64_t k[2], st[2], p[2], d[2], o[2];
    for (int i = 0; i < nd; i++) {
      int64_t w = n->ia[i];
      k[i] = w & 0xffff, st[i] = (w >> 16) & 0xffff, p[i] = (w >> 32) & 0xffff, d[i] = (w >> 48) & 0xffff;
      o[i] = n->shape.d[r - nd + i].v;
    }
    const char *cm = ceil ? "True" : "False";
    if (kind == 0) {
      s = fmt(c, "torch.max_pool%dd(%s, %s, %s, %s, %s, %s)", nd, x, ints(c, k, nd), ints(c, st, nd), ints(c, p, nd), ints(c, d, nd), cm);
    } else if (kind == 1) {
      if (nd == 1) s = fmt(c, "torch.avg_pool1d(%s, %s, %s, %s, %s, %s)", x, ints(c, k, 1), ints(c, st, 1), ints(c, p, 1), cm, cip ? "True" : "False");
      else
        s = fmt(c, "torch.ops.aten.avg_pool2d(%s, %s, %s, %s, %s, %s, %s)", x, ints(c, k, 2), ints(c, st, 2), ints(c, p, 2), cm, cip ? "True" : "False",
                n->ia[3] ? fmt(c, "%lld", (long long)n->ia[3]) : "None");
    } else if (kind == 2) {
      s = nd == 1 ? fmt(c, "torch.adaptive_avg_pool1d(%s, %s)", x, ints(c, o, 1)) : fmt(c, "torch.ops.aten.adaptive_avg_pool2d(%s, %s)", x, ints(c, o, 2));
    } else {
      s = nd == 1 ? fmt(c, "torch.adaptive_max_pool1d(%s, %s)[0]", x, ints(c, o, 1)) : fmt(c, "torch.ops.aten.adaptive_max_pool2d(%s, %s)[0]", x, ints(c, o, 2));
    }
    break;
  }
  case KG_OP_UPSAMPLE: {
    int nd = (int)(n->ia[2] & 3);
    bool linear = (n->ia[2] >> 2) & 1, align = (n->ia[2] >> 4) & 1, scales = (n->ia[2] >> 5) & 1;
    int64_t o[2];
    for (int i = 0; i < nd; i++) o[i] = n->shape.d[r - nd + i].v;
    const char *sc = nd == 1 ? opt_f(c, scales, n->fa[0]) : fmt(c, "%s, %s", opt_f(c, scales, n->fa[0]), opt_f(c, scales, n->fa[1]));
    if (!linear) s = fmt(c, "torch.ops.aten.upsample_nearest%dd(%s, %s, %s)", nd, x, ints(c, o, nd), sc);
    else
      s = fmt(c, "torch.ops.aten.upsample_%s(%s, %s, %s, %s)", nd == 1 ? "linear1d" : "bilinear2d", x, ints(c, o, nd), align ? "True" : "False", sc);
    break;
  }
  case KG_OP_PIXEL_SHUFFLE:
    s = fmt(c, "torch.pixel_%s(%s, %lld)", n->ia[1] ? "unshuffle" : "shuffle", x, (long long)n->ia[0]);
    break;
  case KG_OP_BATCH_NORM: {
    const char *rm = "None", *rv = "None", *w = "None", *b = "None";
    int j = 1;
    if (n->ia[1] & 4) rm = text(c, a[j++]), rv = text(c, a[j++]);
    if (n->ia[1] & 1) w = text(c, a[j++]);
    if (n->ia[1] & 2) b = text(c, a[j++]);
    s = fmt(c, "torch.%s(%s, %s, %s, %s, %s, %s, %s, %s, False)", n->ia[2] ? "instance_norm" : "batch_norm", x, w, b, rm, rv,
            n->ia[0] ? "True" : "False", flt(c, n->fa[1]), flt(c, n->fa[0]));
    break;
  }
  case KG_OP_GROUP_NORM: {
    const char *w = "None", *b = "None";
    int j = 1;
    if (n->ia[1] & 1) w = text(c, a[j++]);
    if (n->ia[1] & 2) b = text(c, a[j++]);
    s = fmt(c, "torch.group_norm(%s, %lld, %s, %s, %s, False)", x, (long long)n->ia[0], w, b, flt(c, n->fa[0]));
    break;
  }
  default: fail(c, id, "not a pooling / normalization / resampling op"); return NULL;
  }
  if (rnd) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  return s;
}
