/* frontend/loss.c — the H_LOSS member handler: TorchSharp 0.107's loss functions
 * (torch.nn.functional.cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss, huber_loss,
 * binary_cross_entropy, binary_cross_entropy_with_logits, kl_div) bound as its C# code binds
 * them (LibTorchSharp calls libtorch's C++ torch::nn::functional with these options), each one
 * composite node of ops.def's loss block that the twin calls by name and passes/decompose_loss.c
 * expands. PyTorch's rules and messages, located at the F# call:
 *
 *   - cross_entropy / nll_loss: class dim 1 (0 for a 1-D input); a target shaped like the input
 *     holds class probabilities (floating, no ignore_index), else int64 class indices shaped like
 *     the input without its class dim ("Expected input batch_size (3) to match target batch_size
 *     (2).", "expected scalar type Long but found Int"); weight [C] of the input's dtype;
 *     label_smoothing in [0, 1];
 *   - the pointwise losses broadcast input and target (kgen's broadcast message);
 *     binary_cross_entropy wants them of one size and dtype, binary_cross_entropy_with_logits of
 *     one size; huber_loss keeps the input's dtype, the others promote;
 *   - every loss takes floating inputs ("\"mse_cpu\" not implemented for 'Long'").
 *
 * TorchSharp's defaults: Reduction.Mean, ignore_index -100, label_smoothing 0, kl_div's
 * log_target = true (unlike Python's False), smooth_l1's beta and huber's delta 1.
 *
 *   torch.nn.functional.cross_entropy(x, t) with x: float32[N, 10], t: int64[N]
 *     → %2 = CROSS_ENTROPY:float32[](%0, %1) ia=[1, 0, -100]
 */
#include <stdio.h>
#include <string.h>

#include "layout_int.h"

typedef struct lctx {
  kg_elab *el;
  const kg_ast *at;
  const char *nm; /* "cross_entropy" */
} lctx;

#define LERR(C, code, ...) kg_elab_error((C)->el, (C)->at, code, __VA_ARGS__)

static const char *scalar_name(kg_dtype t) {
  static const char *const n[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
  return t < KG_DT__COUNT ? n[t] : "?";
}

static const char *shape_s(lctx *C, const kg_shape *s) {
  lay L = {C->el, C->at, C->nm};
  char buf[200];
  kg_lay_shape_text(&L, s, buf, sizeof buf);
  return kg_arena_strdup(C->el->arena, buf);
}

static const kg_gnode *node(lctx *C, uint32_t id) { return kg_elab_gnode(C->el, id); }

static bool dims_equal(const kg_dim *a, const kg_dim *b) { return a->kind == b->kind && a->v == b->v; }

static bool shapes_equal(const kg_shape *a, const kg_shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (!dims_equal(&a->d[i], &b->d[i])) return false;
  return true;
}

/* the loss of a floating input: PyTorch's "not implemented" for another dtype, in the name of the
 * kernel the loss reaches first */
static bool floating(lctx *C, uint32_t x, const char *kernel) {
  kg_dtype t = (kg_dtype)node(C, x)->dtype;
  if (kg_dtype_is_float(t)) return true;
  LERR(C, KG_E_TYPE, "\"%s\" not implemented for '%s' (%s takes floating tensors)", kernel, scalar_name(t), C->nm);
  return false;
}

static uint32_t mk(lctx *C, kg_op op, kg_dtype dt, const uint32_t *in, int n, const kg_shape *sh, int64_t ia0, int64_t ia1, int64_t ia2, double fa0) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.dtype = g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)n;
  for (int i = 0; i < n; i++) g.in[i] = in[i];
  g.shape = *sh;
  g.ia[0] = ia0, g.ia[1] = ia1, g.ia[2] = ia2;
  g.fa[0] = fa0;
  return kg_elab_add_node(C->el, C->at, &g);
}

/* the result shape of reduction r over values of shape s: s itself for none, else 0-dim */
static kg_shape reduced(const kg_shape *s, int64_t r) {
  kg_shape o;
  memset(&o, 0, sizeof o);
  if (r == 0) o = *s;
  return o;
}

/* ---- cross_entropy and nll_loss ---- */

/* the class-index target's shape rules (nll_loss_nd, nll_loss / nll_loss2d forward) */
static bool index_target(lctx *C, const kg_gnode *x, const kg_gnode *t) {
  int r = x->shape.rank;
  if (t->dtype != KG_I64) {
    LERR(C, KG_E_TYPE, "expected scalar type Long but found %s (the target of %s holds int64 class indices)", scalar_name((kg_dtype)t->dtype), C->nm);
    return false;
  }
  if (r != 1 && t->shape.rank >= 1 && !dims_equal(&x->shape.d[0], &t->shape.d[0]) &&
      !(x->shape.d[0].kind == KG_DIM_SYM && t->shape.d[0].kind == KG_DIM_SYM)) {
    char a[64], b[64];
    lay L = {C->el, C->at, C->nm};
    kg_shape s1 = {1, {x->shape.d[0]}}, s2 = {1, {t->shape.d[0]}};
    kg_lay_shape_text(&L, &s1, a, sizeof a), kg_lay_shape_text(&L, &s2, b, sizeof b);
    a[strlen(a) - 1] = 0, b[strlen(b) - 1] = 0;
    LERR(C, KG_E_SHAPE, "Expected input batch_size (%s) to match target batch_size (%s).", a + 1, b + 1);
    return false;
  }
  if (r == 1 && t->shape.rank != 0) {
    LERR(C, KG_E_SHAPE, "size mismatch (got input: %s, target: %s)", shape_s(C, &x->shape), shape_s(C, &t->shape));
    return false;
  }
  if (r == 2 && t->shape.rank != 1) {
    LERR(C, KG_E_SHAPE, "0D or 1D target tensor expected, multi-target not supported");
    return false;
  }
  if (r == 4 && t->shape.rank != 3) {
    LERR(C, KG_E_SHAPE, "only batches of spatial targets supported (3D tensors) but got targets of dimension: %d", t->shape.rank);
    return false;
  }
  if (r >= 3) {
    kg_shape want;
    memset(&want, 0, sizeof want);
    want.d[want.rank++] = x->shape.d[0];
    for (int i = 2; i < r; i++) want.d[want.rank++] = x->shape.d[i];
    bool ok = want.rank == t->shape.rank;
    for (int i = 0; ok && i < want.rank; i++) {
      const kg_dim *a = &want.d[i], *b = &t->shape.d[i];
      ok = dims_equal(a, b) || (a->kind == KG_DIM_SYM && b->kind == KG_DIM_SYM);
    }
    if (!ok) {
      LERR(C, KG_E_SHAPE, "Expected target size %s, got %s", shape_s(C, &want), shape_s(C, &t->shape));
      return false;
    }
    /* two different symbols in the same place: equal at run time (a guard) */
    for (int i = 0; i < want.rank; i++) {
      kg_shape a = {1, {want.d[i]}}, b = {1, {t->shape.d[i]}}, o;
      if (!kg_elab_broadcast(C->el, C->at, &a, &b, &o)) return false;
    }
  } else if (r == 2) {
    kg_shape a = {1, {x->shape.d[0]}}, b = {1, {t->shape.d[0]}}, o;
    if (!kg_elab_broadcast(C->el, C->at, &a, &b, &o)) return false;
  }
  return true;
}

/* weight [C] of the input's dtype */
static bool class_weight(lctx *C, const kg_gnode *x, uint32_t w) {
  const kg_gnode *wn = node(C, w);
  int cd = x->shape.rank == 1 ? 0 : 1;
  const kg_dim *cdim = &x->shape.d[cd];
  bool ok = wn->shape.rank == 1 && (dims_equal(&wn->shape.d[0], cdim) || (wn->shape.d[0].kind == KG_DIM_SYM && cdim->kind == KG_DIM_SYM));
  if (!ok) {
    char c[64];
    if (cdim->kind == KG_DIM_STATIC) snprintf(c, sizeof c, "%lld", (long long)cdim->v);
    else snprintf(c, sizeof c, "%s", C->el->g->syms.v[cdim->v]);
    LERR(C, KG_E_SHAPE, "weight tensor should be defined either for all %s classes or no classes but got weight tensor of shape: %s", c, shape_s(C, &wn->shape));
    return false;
  }
  kg_shape a = {1, {wn->shape.d[0]}}, b = {1, {*cdim}}, o;
  if (!kg_elab_broadcast(C->el, C->at, &a, &b, &o)) return false;
  if (wn->dtype != x->dtype) {
    LERR(C, KG_E_TYPE, "expected scalar type %s but found %s (%s's weight must have the input's dtype)", scalar_name((kg_dtype)x->dtype),
         scalar_name((kg_dtype)wn->dtype), C->nm);
    return false;
  }
  return true;
}

static kg_ev class_loss(lctx *C, kg_op op, uint32_t x, uint32_t t, uint32_t w, int64_t ignore, int64_t red, double smoothing) {
  const kg_gnode *xn = node(C, x), *tn = node(C, t);
  int r = xn->shape.rank;
  if (r < 1) return LERR(C, KG_E_SHAPE, "Expected 1 or more dimensions (got 0)");
  if (!floating(C, x, op == KG_OP_CROSS_ENTROPY ? "log_softmax_lastdim_kernel_impl" : "nll_loss_out_frame")) return kg_ev_err();
  bool probs = op == KG_OP_CROSS_ENTROPY && shapes_equal(&xn->shape, &tn->shape);
  if (probs) {
    if (!kg_dtype_is_float((kg_dtype)tn->dtype))
      return LERR(C, KG_E_TYPE, "Expected floating point type for target with class probabilities, got %s", scalar_name((kg_dtype)tn->dtype));
    if (ignore >= 0) return LERR(C, KG_E_ARG, "ignore_index is not supported for floating point target");
    if (tn->dtype != xn->dtype)
      return LERR(C, KG_E_TYPE, "expected scalar type %s but found %s (class probabilities must have the input's dtype)", scalar_name((kg_dtype)xn->dtype),
                  scalar_name((kg_dtype)tn->dtype));
  } else if (!index_target(C, xn, tn)) {
    return kg_ev_err();
  }
  if (w != KG_NONE && !class_weight(C, xn, w)) return kg_ev_err();
  if (smoothing < 0 || smoothing > 1) return LERR(C, KG_E_ARG, "label_smoothing must be between 0.0 and 1.0. Got: %g", smoothing);
  if (red < 0 || red > 2) return LERR(C, KG_E_ARG, "%s: unknown Reduction %lld", C->nm, (long long)red);
  kg_shape each;
  memset(&each, 0, sizeof each);
  if (probs) {
    for (int i = 0; i < r; i++)
      if (i != (r == 1 ? 0 : 1)) each.d[each.rank++] = xn->shape.d[i];
  } else {
    each = tn->shape;
  }
  kg_shape out = reduced(&each, red);
  uint32_t in[3] = {x, t, w};
  int64_t flags = (w != KG_NONE ? 1 : 0) | (probs ? 2 : 0);
  return kg_ev_node(mk(C, op, (kg_dtype)xn->dtype, in, w != KG_NONE ? 3 : 2, &out, red, flags, ignore, smoothing));
}

/* ---- the pointwise losses ---- */

static kg_ev pointwise_loss(lctx *C, kg_op op, uint32_t x, uint32_t t, uint32_t w, uint32_t pw, int64_t red, double attr) {
  const kg_gnode *xn = node(C, x), *tn = node(C, t);
  static const char *const kernel[] = {"mse_cpu", "abs_cpu", "smooth_l1_cpu", "huber_cpu", "binary_cross_entropy", "log_sigmoid_forward", "kl_div"};
  int k = op == KG_OP_MSE_LOSS ? 0 : op == KG_OP_L1_LOSS ? 1 : op == KG_OP_SMOOTH_L1_LOSS ? 2 : op == KG_OP_HUBER_LOSS ? 3 : op == KG_OP_BCE_LOSS ? 4
        : op == KG_OP_BCE_LOGITS_LOSS ? 5 : 6;
  if (!floating(C, x, kernel[k]) || !floating(C, t, kernel[k])) return kg_ev_err();
  if (red < 0 || red > 2) return LERR(C, KG_E_ARG, "%s: unknown Reduction %lld", C->nm, (long long)red);
  if (op == KG_OP_SMOOTH_L1_LOSS && attr < 0) return LERR(C, KG_E_ARG, "smooth_l1_loss does not support negative values for beta.");
  if (op == KG_OP_HUBER_LOSS && attr <= 0) return LERR(C, KG_E_ARG, "huber_loss does not support non-positive values for delta.");
  kg_shape sh;
  if (op == KG_OP_BCE_LOSS || op == KG_OP_BCE_LOGITS_LOSS) {
    if (!shapes_equal(&xn->shape, &tn->shape)) {
      if (op == KG_OP_BCE_LOSS)
        return LERR(C, KG_E_SHAPE, "Using a target size (%s) that is different to the input size (%s) is deprecated. Please ensure they have the same size.",
                    shape_s(C, &tn->shape), shape_s(C, &xn->shape));
      return LERR(C, KG_E_SHAPE, "Target size (%s) must be the same as input size (%s)", shape_s(C, &tn->shape), shape_s(C, &xn->shape));
    }
    if (op == KG_OP_BCE_LOSS && tn->dtype != xn->dtype)
      return LERR(C, KG_E_TYPE, "Found dtype %s but expected %s", scalar_name((kg_dtype)tn->dtype), scalar_name((kg_dtype)xn->dtype));
    sh = xn->shape;
  } else if (!kg_elab_broadcast(C->el, C->at, &xn->shape, &tn->shape, &sh)) {
    return kg_ev_err();
  }
  kg_dtype dt = op == KG_OP_HUBER_LOSS ? (kg_dtype)xn->dtype : kg_dtype_promote((kg_dtype)xn->dtype, (kg_dtype)tn->dtype);
  uint32_t in[4] = {x, t};
  int n = 2;
  int64_t flags = 0;
  const uint32_t extra[2] = {w, pw};
  for (int j = 0; j < 2; j++) {
    if (extra[j] == KG_NONE) continue;
    const kg_gnode *en = node(C, extra[j]);
    const char *what = j ? "pos_weight" : "weight";
    if (!kg_dtype_is_float((kg_dtype)en->dtype)) return LERR(C, KG_E_TYPE, "%s(): %s must be a floating tensor, got %s", C->nm, what, kg_dtype_name((kg_dtype)en->dtype));
    kg_shape o;
    if (!kg_elab_broadcast(C->el, C->at, &sh, &en->shape, &o)) return kg_ev_err();
    if (!shapes_equal(&o, &sh))
      return LERR(C, KG_E_SHAPE, "%s(): the %s of shape %s does not broadcast to the input's %s", C->nm, what, shape_s(C, &en->shape), shape_s(C, &sh));
    if (op == KG_OP_BCE_LOSS && en->dtype != xn->dtype)
      return LERR(C, KG_E_TYPE, "Found dtype %s but expected %s", scalar_name((kg_dtype)en->dtype), scalar_name((kg_dtype)xn->dtype));
    if (op != KG_OP_BCE_LOSS) dt = kg_dtype_promote(dt, (kg_dtype)en->dtype);
    in[n++] = extra[j];
    flags |= j ? 2 : 1;
  }
  kg_shape out = reduced(&sh, red);
  if (op == KG_OP_KL_DIV) flags = attr != 0;
  return kg_ev_node(mk(C, op, dt, in, n, &out, red, flags, 0, op == KG_OP_KL_DIV ? 0 : attr));
}

/* ---- binding TorchSharp's arguments ---- */

static bool loss_tensor(lctx *C, kg_ev v, uint32_t *id, bool optional, const char *what) {
  *id = KG_NONE;
  if (optional && (v.kind == EV_NULL || v.kind == EV_UNIT)) return true;
  if (!kg_ev_is_tensor(C->el, v)) {
    LERR(C, KG_E_TYPE, "%s(): %s must be a tensor", C->nm, what);
    return false;
  }
  *id = v.id;
  return true;
}

static bool const_arg(lctx *C, kg_ev v, double *out, const char *what) {
  if (v.kind == EV_ENUM || (v.kind == EV_CONST && !kg_dtype_is_float(v.c.dt))) {
    *out = (double)v.c.i;
    return true;
  }
  if (v.kind == EV_CONST) {
    *out = v.c.f;
    return true;
  }
  LERR(C, KG_E_UNSUPPORTED, "%s(): %s must be a constant when kgen compiles", C->nm, what);
  return false;
}

kg_ev kg_elab_loss(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  lctx C = {el, at, at->member ? at->member->name : kg_op_get(row->op)->torch};
  const char *spec = row->argspec;
  if ((int)strlen(spec) != n) return LERR(&C, KG_E_INTERNAL, "member table row '%s' expects %zu operands, the call has %d", row->key, strlen(spec), n);
  /* operands in argspec order: t tensor, o optional tensor, e Reduction, i integer, f double, b bool */
  uint32_t ts[4] = {KG_NONE, KG_NONE, KG_NONE, KG_NONE};
  double cs[3] = {0, 0, 0};
  int nt = 0, nc = 0;
  int64_t red = 1;
  static const char *const tnames[] = {"input", "target", "weight", "pos_weights"};
  for (int i = 0; i < n; i++) {
    char k = spec[i];
    if (av[i].kind == EV_ERR) return av[i];
    if (k == 't' || k == 'o') {
      if (nt >= 4 || !loss_tensor(&C, av[i], &ts[nt], k == 'o', tnames[nt])) return kg_ev_err();
      nt++;
    } else if (k == 'e') {
      double v;
      if (!const_arg(&C, av[i], &v, "reduction")) return kg_ev_err();
      red = (int64_t)v;
    } else if (nc < 3) {
      if (!const_arg(&C, av[i], &cs[nc], k == 'i' ? "ignore_index" : k == 'b' ? "log_target" : "a float argument")) return kg_ev_err();
      nc++;
    }
  }
  switch (row->op) {
  case KG_OP_CROSS_ENTROPY: return class_loss(&C, row->op, ts[0], ts[1], ts[2], (int64_t)cs[0], red, cs[1]);
  case KG_OP_NLL_LOSS: return class_loss(&C, row->op, ts[0], ts[1], ts[2], -100, red, 0);
  case KG_OP_MSE_LOSS:
  case KG_OP_L1_LOSS: return pointwise_loss(&C, row->op, ts[0], ts[1], KG_NONE, KG_NONE, red, 0);
  case KG_OP_SMOOTH_L1_LOSS:
  case KG_OP_HUBER_LOSS:
  case KG_OP_KL_DIV: return pointwise_loss(&C, row->op, ts[0], ts[1], KG_NONE, KG_NONE, red, cs[0]);
  case KG_OP_BCE_LOSS:
  case KG_OP_BCE_LOGITS_LOSS: return pointwise_loss(&C, row->op, ts[0], ts[1], ts[2], ts[3], red, 0);
  default: return LERR(&C, KG_E_INTERNAL, "%s is not a loss function", row->key);
  }
}
