/* codegen-cuda/ts_attn.c — scaled_dot_product_attention (ATTN) in the PyTorch twin, written as
 * PyTorch's math path (aten's _scaled_dot_product_attention_math): the twin must run on the
 * oracle's torch 1.13, which has no scaled_dot_product_attention, and spelling the math out
 * makes the check compare kgen's one fused kernel (online softmax over key blocks) against the
 * plain three-step definition rather than against another fused kernel.
 *
 *   %5 = ATTN:float32[B,H,L,Ev](q, k, v, mask) causal, scale s
 *     → t5 = torch.matmul(torch.softmax((torch.matmul(q, k.transpose(-2, -1)) * s)
 *            .masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), -inf), -1), v)
 *
 * A boolean mask says where to attend (True) and fills the rest with -inf; a float mask is added
 * to the scaled scores; the dropout mask (a RAND of kind 2: the draw's 1/(1-p) or 0, the same
 * bits kgen's kernel reads) multiplies the probabilities. Half precision is computed in float32
 * and rounded once (below). */
#include <math.h>
#include <string.h>

#include "ts_int.h"

const char *kg_twin_attention(ts_ctx *c, const kg_gnode *n, const vval *a) {
  int64_t fl = n->ia[0];
  const char *q = text(c, a[0]), *k = text(c, a[1]), *v = text(c, a[2]);
  /* float16 / bfloat16: PyTorch's attention (the fused CPU and GPU kernels alike) computes in
   * float32 and rounds once, as kgen's kernel does; the math path op by op in half precision
   * is ~10x further from float64 (the .NET three-way check against libtorch 2.10 says so) */
  bool half = n->dtype == KG_F16 || n->dtype == KG_BF16;
  if (half) q = fmt(c, "(%s).float()", q), k = fmt(c, "(%s).float()", k), v = fmt(c, "(%s).float()", v);
  const char *scale = fmt(c, "%.17g", n->fa[0]);
  if (!strpbrk(scale, ".eni")) scale = fmt(c, "%s.0", scale);
  const char *s = fmt(c, "(torch.matmul(%s, (%s).transpose(-2, -1)) * %s)", q, k, scale);
  int j = 3;
  if (fl & 2) {
    const char *m = text(c, a[j++]);
    if (fl & 4) s = fmt(c, "%s.masked_fill((%s).logical_not(), float('-inf'))", s, m);
    else s = fmt(c, "(%s + %s)", s, m);
  }
  if (fl & 1)
    s = fmt(c, "%s.masked_fill(torch.ones((%s).size(-2), (%s).size(-2), dtype=torch.bool).tril().logical_not(), float('-inf'))", s, q, k);
  const char *p = fmt(c, "torch.softmax(%s, -1)", s);
  if (fl & 8) p = fmt(c, "(%s * %s)", p, text(c, a[j++]));
  const char *o = fmt(c, "torch.matmul(%s, %s)", p, v);
  return half ? fmt(c, "%s.to(%s)", o, n->dtype == KG_F16 ? "torch.float16" : "torch.bfloat16") : o;
}
