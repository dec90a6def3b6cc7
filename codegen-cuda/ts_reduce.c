/* codegen-cuda/ts_reduce.c — reductions, scans and normalizations in the PyTorch twin:
 * each PyTorch's own call (torch.sum(x, dim=[...], keepdim=K), torch.softmax, layer_norm,
 * var / std with their correction, argmax, cumsum, logsumexp, norm), with the result dtype
 * PyTorch would not give by default passed on. Split from torchscript.c (one torch call per op),
 * whose emit_tensor_op asks here for these op classes.
 *
 *   %1 = RSUM:float32[N,1](%0) ia=[2,1]   →   t1 = torch.sum(x, dim=[1], keepdim=True)
 */
#include <math.h>
#include <string.h>

#include "ts_int.h"

const char *kg_twin_reduce(ts_ctx *c, uint32_t id, const vval *a) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_op op = (kg_op)n->op;
  const kg_op_info *oi = kg_op_get(op);
  kg_dtype dt = (kg_dtype)n->dtype;
  bool rnd = c->up && (dt == KG_F16 || dt == KG_BF16);
  const char *s;
  /* reductions: torch.<op>(x, dim=[...], keepdim=K); all dims without keepdim: torch.<op>(x) */
  const kg_gnode *xn = &c->g->nodes.v[n->in[0]];
  int r = xn->shape.rank;
  int64_t mask = n->ia[0];
  bool all = r == 0 || mask == (((int64_t)1 << r) - 1);
  const char *fn = op == KG_OP_RAMAX ? "amax" : op == KG_OP_RAMIN ? "amin" : oi->torch + 6;
  if (a[0].num) {
    fail(c, id, "reduction of a number");
    return NULL;
  }
  kg_strbuf dl;
  kg_sb_init(&dl);
  int first_dim = -1, nd = 0;
  for (int d = 0; d < r; d++)
    if (mask & ((int64_t)1 << d)) kg_sb_printf(&dl, "%s%d", dl.len ? ", " : "", d), first_dim = first_dim < 0 ? d : first_dim, nd++;
  const char *kd = n->ia[1] ? "True" : "False";
  const char *dims = fmt(c, "%s", kg_sb_cstr(&dl));
  kg_sb_free(&dl);
  if (op == KG_OP_SOFTMAX || op == KG_OP_LOG_SOFTMAX) {
    s = fmt(c, "torch.%s(%s, dim=%d)", op == KG_OP_SOFTMAX ? "softmax" : "log_softmax", text(c, a[0]), first_dim < 0 ? 0 : first_dim);
  } else if (op == KG_OP_LAYER_NORM) {
    const char *w = "None", *b = "None";
    int j = 1;
    if (n->ia[1] & 1) w = text(c, a[j++]);
    if (n->ia[1] & 2) b = text(c, a[j++]);
    s = fmt(c, "torch.nn.functional.layer_norm(%s, %s.shape[%d:], %s, %s, %.17g)", text(c, a[0]), text(c, a[0]), r - nd, w, b, n->fa[0]);
  } else if (op == KG_OP_RVAR || op == KG_OP_RSTD) {
    const char *nm = op == KG_OP_RVAR ? "var" : "std", *ub = n->fa[0] != 0 ? "True" : "False";
    if (all && !n->ia[1]) s = fmt(c, "torch.%s(%s, unbiased=%s)", nm, text(c, a[0]), ub);
    else s = fmt(c, "torch.%s(%s, dim=[%s], unbiased=%s, keepdim=%s)", nm, text(c, a[0]), dims, ub, kd);
  } else if (op == KG_OP_RCUMSUM) {
    s = fmt(c, "torch.cumsum(%s, dim=%d)", text(c, a[0]), first_dim < 0 ? 0 : first_dim);
  } else if (op == KG_OP_RARGMAX || op == KG_OP_RARGMIN) {
    const char *nm = op == KG_OP_RARGMAX ? "argmax" : "argmin";
    if (all && !n->ia[1]) s = fmt(c, "torch.%s(%s)", nm, text(c, a[0]));
    else s = fmt(c, "torch.%s(%s, dim=%d, keepdim=%s)", nm, text(c, a[0]), first_dim < 0 ? 0 : first_dim, kd);
  } else if (op == KG_OP_RLOGSUMEXP) {
    s = fmt(c, "torch.logsumexp(%s, dim=[%s], keepdim=%s)", text(c, a[0]), dims, kd);
  } else if (op == KG_OP_RNORM) {
    const char *pv = isinf(n->fa[0]) ? "float('inf')" : fmt(c, "%.17g", n->fa[0]);
    if (all && !n->ia[1]) s = fmt(c, "torch.norm(%s, p=%s)", text(c, a[0]), pv);
    else s = fmt(c, "torch.norm(%s, p=%s, dim=[%s], keepdim=%s)", text(c, a[0]), pv, dims, kd);
  } else if (all && !n->ia[1]) {
    if (op == KG_OP_RAMAX || op == KG_OP_RAMIN) s = fmt(c, "torch.%s(%s)", op == KG_OP_RAMAX ? "max" : "min", text(c, a[0]));
    else s = fmt(c, "torch.%s(%s)", fn, text(c, a[0]));
  } else if (op == KG_OP_RPROD) {
    int d = 0;
    while (d < r && !(mask & ((int64_t)1 << d))) d++;
    s = fmt(c, "torch.prod(%s, dim=%d, keepdim=%s)", text(c, a[0]), d, n->ia[1] ? "True" : "False");
  } else {
    s = fmt(c, "torch.%s(%s, dim=[%s], keepdim=%s)", fn, text(c, a[0]), dims, kd);
  }
  /* sum / nansum / prod / cumsum given a dtype other than PyTorch's default for the input
   * (floats keep theirs, integers and bool give int64) pass it on */
  if ((op == KG_OP_RSUM || op == KG_OP_RNANSUM || op == KG_OP_RPROD || op == KG_OP_RCUMSUM) &&
      (kg_dtype)n->dtype != (kg_dtype_is_float((kg_dtype)xn->dtype) ? (kg_dtype)xn->dtype : KG_I64))
    s = fmt(c, "%.*s, dtype=%s)", (int)strlen(s) - 1, s, tdt(c, dt));
  if (rnd) s = fmt(c, "%s.to(%s).float()", s, tdt(c, dt));
  return s;
}
