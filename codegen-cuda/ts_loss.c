/* codegen-cuda/ts_loss.c — the loss functions in the PyTorch twin: each PyTorch's own
 * torch.nn.functional call with every option spelled out (reduction as its string, weights,
 * ignore_index, label_smoothing, beta / delta, log_target), so the twin means what TorchSharp's
 * call means and passes/decompose_loss.c's expansion is checked against PyTorch's own loss.
 *
 *   %2 = CROSS_ENTROPY:float32[](%0, %1) ia=[1, 0, -100]
 *     → t2 = torch.nn.functional.cross_entropy(x, t, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)
 */
#include <string.h>

#include "ts_int.h"

static const char *flt(ts_ctx *c, double v) {
  const char *s = fmt(c, "%.17g", v);
  return strpbrk(s, ".eni") ? s : fmt(c, "%s.0", s);
}

const char *kg_twin_loss(ts_ctx *c, uint32_t id, const vval *a) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_dtype dt = (kg_dtype)n->dtype;
  static const char *const red[] = {"'none'", "'mean'", "'sum'"};
  const char *r = n->ia[0] >= 0 && n->ia[0] <= 2 ? red[n->ia[0]] : "'mean'";
  const char *x = text(c, a[0]), *t = text(c, a[1]), *s;
  const char *w = n->n_in > 2 && (n->ia[1] & 1) ? text(c, a[2]) : "None";
  switch (n->op) {
  case KG_OP_CROSS_ENTROPY:
    s = fmt(c, "torch.nn.functional.cross_entropy(%s, %s, weight=%s, ignore_index=%lld, reduction=%s, label_smoothing=%s)", x, t, w,
            (long long)n->ia[2], r, flt(c, n->fa[0]));
    break;
  case KG_OP_NLL_LOSS:
    s = fmt(c, "torch.nn.functional.nll_loss(%s, %s, weight=%s, ignore_index=%lld, reduction=%s)", x, t, w, (long long)n->ia[2], r);
    break;
  case KG_OP_MSE_LOSS: s = fmt(c, "torch.nn.functional.mse_loss(%s, %s, reduction=%s)", x, t, r); break;
  case KG_OP_L1_LOSS: s = fmt(c, "torch.nn.functional.l1_loss(%s, %s, reduction=%s)", x, t, r); break;
  case KG_OP_SMOOTH_L1_LOSS: s = fmt(c, "torch.nn.functional.smooth_l1_loss(%s, %s, reduction=%s, beta=%s)", x, t, r, flt(c, n->fa[0])); break;
  case KG_OP_HUBER_LOSS: s = fmt(c, "torch.nn.functional.huber_loss(%s, %s, reduction=%s, delta=%s)", x, t, r, flt(c, n->fa[0])); break;
  case KG_OP_BCE_LOSS: s = fmt(c, "torch.nn.functional.binary_cross_entropy(%s, %s, weight=%s, reduction=%s)", x, t, w, r); break;
  case KG_OP_BCE_LOGITS_LOSS: {
    int j = 2 + ((n->ia[1] & 1) ? 1 : 0);
    const char *pw = (n->ia[1] & 2) ? text(c, a[j]) : "None";
    s = fmt(c, "torch.nn.functional.binary_cross_entropy_with_logits(%s, %s, weight=%s, reduction=%s, pos_weight=%s)", x, t, w, r, pw);
    break;
  }
  case KG_OP_KL_DIV: s = fmt(c, "torch.nn.functional.kl_div(%s, %s, reduction=%s, log_target=%s)", x, t, r, n->ia[1] ? "True" : "False"); break;
  default: fail(c, id, "not a loss function"); return NULL;
  }
  if (c->up && (dt == KG_F16 || dt == KG_BF16)) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  return s;
}
