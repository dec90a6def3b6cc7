/* frontend/attention.c — the H_ATTN member handler: torch.nn.functional.
 * scaled_dot_product_attention(query, key, value, attn_mask, p, is_casual) (TorchSharp 0.107's
 * one overload: no `scale` argument, so the scale is PyTorch's default 1/sqrt(E)) becomes ONE
 * ATTN node (ops.def), which passes/lower_attn.c compiles to one fused kernel and the twin spells
 * as PyTorch's math path (codegen-cuda/ts_attn.c).
 *
 * PyTorch's input rules (aten validate_sdpa_input, the math path) and messages, located at the
 * F# call: query, key and value of one dtype, at least 2-D; the mask bool, float or the query's
 * dtype and broadcastable to [batch..., L, S]; key and value with the same number of keys; the
 * batch dims broadcast. Dropout p > 0 (PyTorch's functional drops whatever the module's mode)
 * draws a mask from kgen's Philox generator over [batch..., L, S] (a RAND node: recomputed in the
 * kernel, never stored), applied to the probabilities as the math path applies its dropout.
 *
 *   torch.nn.functional.scaled_dot_product_attention(q, k, v, is_casual = true)
 *     with q, k, v: float32[B,4,T,16]  →  %3 = ATTN:float32[B,4,T,16](%0, %1, %2) ia[0] = 1, fa[0] = 0.25
 *
 * kgen's fused kernel needs the head dims (E, Ev) known when it compiles and at most 256 (what
 * one tile of queries keeps on chip); the batch dims and sequence lengths may be symbols. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layout_int.h"

#define KG_ATTN_HEAD_MAX 256

/* caffe2::TypeMeta's names, as PyTorch's messages print dtypes */
static const char *meta_name(kg_dtype t) {
  switch (t) {
  case KG_BOOL: return "bool";
  case KG_U8: return "unsigned char";
  case KG_I8: return "signed char";
  case KG_I16: return "short int";
  case KG_I32: return "int";
  case KG_I64: return "long int";
  case KG_F16: return "c10::Half";
  case KG_BF16: return "c10::BFloat16";
  case KG_F32: return "float";
  case KG_F64: return "double";
  default: return "?";
  }
}

kg_ev kg_elab_attention(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  lay Ls = {el, at, "scaled_dot_product_attention()"}, *L = &Ls;
  if (n != 6) return kg_elab_error(el, at, KG_E_FORMAT, "%s takes 6 arguments, got %d", row->key, n);
  for (int i = 0; i < n; i++)
    if (av[i].kind == EV_ERR) return av[i];
  uint32_t in[5];
  const char *names[3] = {"query", "key", "value"};
  for (int i = 0; i < 3; i++)
    if (!kg_ev_is_tensor(el, av[i])) return kg_elab_error(el, at, KG_E_TYPE, "scaled_dot_product_attention(): %s must be a tensor", names[i]);
  for (int i = 0; i < 3; i++) in[i] = av[i].id;
  const kg_gnode *q = kg_elab_gnode(el, in[0]), *k = kg_elab_gnode(el, in[1]), *v = kg_elab_gnode(el, in[2]);
  kg_dtype dt = (kg_dtype)q->dtype;
  if (k->dtype != dt || v->dtype != dt)
    return kg_elab_error(el, at, KG_E_TYPE,
                         "Expected query, key, and value to have the same dtype, but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                         meta_name(dt), meta_name((kg_dtype)k->dtype), meta_name((kg_dtype)v->dtype));
  if (q->shape.rank < 2 || k->shape.rank < 2 || v->shape.rank < 2)
    return kg_elab_error(el, at, KG_E_SHAPE,
                         "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: %d key.dim: %d and value.dim: %d instead.",
                         q->shape.rank, k->shape.rank, v->shape.rank);
  if (!kg_dtype_is_float(dt)) /* the math path's softmax: PyTorch's CPU kernel has no integer softmax */
    return kg_elab_error(el, at, KG_E_TYPE, "\"softmax_lastdim_kernel_impl\" not implemented for '%s'", meta_name(dt));
  /* the mask and the flags */
  int64_t flags = 0;
  int nin = 3;
  if (av[3].kind != EV_NULL) {
    if (!kg_ev_is_tensor(el, av[3])) return kg_elab_error(el, at, KG_E_TYPE, "scaled_dot_product_attention(): attn_mask must be a tensor or null");
    const kg_gnode *m = kg_elab_gnode(el, av[3].id);
    kg_dtype mt = (kg_dtype)m->dtype;
    if (mt != KG_BOOL && mt != KG_F32 && mt != dt)
      return kg_elab_error(el, at, KG_E_TYPE,
                           "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: %s and  query.dtype: %s instead.",
                           meta_name(mt), meta_name(dt));
    flags |= 2 | (mt == KG_BOOL ? 4 : 0);
    in[nin++] = av[3].id;
  }
  if (av[4].kind != EV_CONST || av[5].kind != EV_CONST)
    return kg_elab_error(el, at, KG_E_UNSUPPORTED, "scaled_dot_product_attention(): p and is_casual must be constants when kgen compiles");
  double p = kg_cval_as_double(av[4].c);
  if (av[5].c.i) flags |= 1;
  if (!(p >= 0 && p <= 1)) return kg_elab_error(el, at, KG_E_ARG, "dropout probability has to be between 0 and 1, but got %g", p);
  /* shapes: q [b.., L, E], k [b.., S, E], v [b.., S, Ev] */
  const kg_shape *sq = &q->shape, *sk = &k->shape, *sv = &v->shape;
  const kg_dim *E = &sq->d[sq->rank - 1], *Ek = &sk->d[sk->rank - 1], *S = &sk->d[sk->rank - 2], *Sv = &sv->d[sv->rank - 2], *Ev = &sv->d[sv->rank - 1];
  char x[64], y[64];
  kg_shape bq = *sq, bk = *sk, bv = *sv, b1, b2;
  bq.rank -= 2, bk.rank -= 2, bv.rank -= 2;
  if (E->kind == KG_DIM_STATIC && Ek->kind == KG_DIM_STATIC && E->v != Ek->v) {
    snprintf(x, sizeof x, "%lld", (long long)E->v), snprintf(y, sizeof y, "%lld", (long long)Ek->v);
    return kg_elab_error(el, at, KG_E_SHAPE, "scaled_dot_product_attention(): query's last dim (%s) and key's last dim (%s) must be equal: the scores are query @ key.transpose(-2, -1)", x, y);
  }
  if (S->kind == KG_DIM_STATIC && Sv->kind == KG_DIM_STATIC && S->v != Sv->v) {
    snprintf(x, sizeof x, "%lld", (long long)S->v), snprintf(y, sizeof y, "%lld", (long long)Sv->v);
    return kg_elab_error(el, at, KG_E_SHAPE, "scaled_dot_product_attention(): key and value must have the same number of keys (dim -2), got %s and %s", x, y);
  }
  if (!kg_elab_broadcast(el, at, &bq, &bk, &b1) || !kg_elab_broadcast(el, at, &b1, &bv, &b2)) return kg_ev_err();
  if (E->kind != KG_DIM_STATIC || Ev->kind != KG_DIM_STATIC || E->v > KG_ATTN_HEAD_MAX || Ev->v > KG_ATTN_HEAD_MAX || E->v < 1 || Ev->v < 1)
    return kg_elab_error(el, at, KG_E_UNSUPPORTED,
                         "scaled_dot_product_attention(): kgen's fused attention needs the head dims (query's and value's last dims) known when it compiles, "
                         "from 1 to %d",
                         KG_ATTN_HEAD_MAX);
  if (dt == KG_F64 && (E->v > 128 || Ev->v > 128)) /* the smallest tile's shared memory (passes/schedule.c: kg_attn_smem) */
    return kg_elab_error(el, at, KG_E_UNSUPPORTED, "scaled_dot_product_attention(): kgen's fused attention in float64 takes head dims up to 128");
  kg_shape scores = b2, out = b2;
  scores.d[scores.rank++] = sq->d[sq->rank - 2], scores.d[scores.rank++] = *S;
  out.d[out.rank++] = sq->d[sq->rank - 2], out.d[out.rank++] = *Ev;
  if (flags & 2) { /* the mask broadcasts to the scores (it may not widen them) */
    kg_shape ms;
    const kg_gnode *m = kg_elab_gnode(el, in[3]);
    if (!kg_elab_broadcast(el, at, &scores, &m->shape, &ms)) return kg_ev_err();
    if (ms.rank != scores.rank) {
      char a[160], b[160];
      kg_lay_shape_text(L, &m->shape, a, sizeof a), kg_lay_shape_text(L, &scores, b, sizeof b);
      return kg_elab_error(el, at, KG_E_SHAPE, "scaled_dot_product_attention(): attn_mask of shape %s does not broadcast to the attention weights' shape %s", a, b);
    }
  }
  if (p > 0) {
    kg_ev dm = kg_lay_dropout_mask(L, dt, &scores, p);
    if (dm.kind == EV_ERR) return dm;
    flags |= 8;
    in[nin++] = dm.id;
  }
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_ATTN, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)kg_dtype_opmath(dt), g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)nin;
  for (int i = 0; i < nin; i++) g.in[i] = in[i];
  g.shape = out;
  g.ia[0] = flags;
  g.fa[0] = kg_cval_float(kg_dtype_opmath(dt), 1.0 / sqrt((double)E->v)).f; /* PyTorch's default scale, in the compute dtype */
  return kg_ev_node(kg_elab_add_node(el, at, &g));
}
