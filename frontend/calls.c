/* frontend/calls.c — member calls: a call resolved to a row of the member table
 * (members.c) becomes graph nodes, scalar code or a static value.
 *
 * kg_elab_call_row binds the call's arguments to the row's argspec (operands, constant
 * attributes, dims, keepdim, dtype, enums: bind_args) and runs the row's handler:
 * tensor ops with PyTorch's promotion and broadcasting (through elab.c's tensor_op),
 * reductions with their dims, keepdim and result dtypes, F# generic operators resolved
 * by operand type, System.Math on scalars, casts, *_like, clamp, where, map lambdas.
 * Split from elab.c (the evaluator: environment, inlining, control flow), whose second
 * idea this was; elab.c's eval_call looks the member up and calls in here.
 *
 * Example:  x.sum(1L, true) with x: float32[N, 8]
 *   the row of TorchSharp.torch+Tensor::sum(System.Int64,System.Boolean,System.Nullable`1[...]),
 *   argspec "tDkd" (tensor, dims, keepdim, dtype), handler H_REDUCE:
 *   %1 = RSUM:float32[N,1](%0) ia=[2,1]        (ia: the reduced-dims mask, keepdim)
 */
#include <string.h>

#include "frontend.h"

/* elab.c's helpers under the short names elab.c uses (frontend.h declares them) */
#define ev_make kg_ev_make
#define ev_node kg_ev_node
#define ev_const kg_ev_const
#define ev_is_tensor kg_ev_is_tensor
#define gnode kg_elab_gnode
#define add_node kg_elab_add_node
#define as_node kg_elab_as_node
#define tensor_op kg_elab_tensor_op
#define tensor_op_ev kg_elab_tensor_op_ev
#define call_row kg_elab_call_row

static const char *dtn(kg_dtype t) { return kg_dtype_name(t); }

typedef struct margs {
  kg_ev ops[8];   /* tensor / scalar operands in order (t, o, s, p chars) */
  bool present[8];
  int n_ops;
  double fattr[4];
  bool fpresent[4];
  int n_f;
  kg_dtype dtype; /* d */
  int64_t rmode;  /* r */
  int64_t gelu;   /* g */
  bool flag;      /* b */
  int64_t dims[KG_MAX_RANK + 1]; /* D: reduction dims as written */
  int n_dims;
  bool has_dims;
  bool keepdim;   /* k */
  bool unbiased;  /* u */
  int64_t nshape[KG_MAX_RANK + 1]; /* S: layer_norm's normalized_shape */
  int n_nshape;
  bool has_nshape;
} margs;

static bool bind_args(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n, margs *m) {
  memset(m, 0, sizeof *m);
  m->dtype = KG_DT_NONE;
  const char *spec = row->argspec;
  if ((int)strlen(spec) != n) {
    kg_elab_error(el, at, KG_E_INTERNAL, "member table row '%s' expects %zu operands, the call has %d", row->key, strlen(spec), n);
    return false;
  }
  for (int i = 0; i < n; i++) {
    kg_ev v = av[i];
    if (v.kind == EV_ERR) return false;
    const kg_ast *an = at;
    switch (spec[i]) {
    case 't':
    case 's':
    case 'o':
    case 'p':
      if (v.kind == EV_NULL || v.kind == EV_UNIT) {
        if (spec[i] == 't' || spec[i] == 's') {
          kg_elab_error(el, an, KG_E_TYPE, "argument %d of %s is null", i + 1, row->key);
          return false;
        }
        m->present[m->n_ops] = false;
      } else if (v.kind == EV_NODE || v.kind == EV_CONST) {
        m->present[m->n_ops] = true;
      } else {
        kg_elab_error(el, an, KG_E_TYPE, "argument %d of %s must be a tensor or a number", i + 1, row->key);
        return false;
      }
      m->ops[m->n_ops++] = v;
      break;
    case 'f':
    case 'F':
      if (v.kind == EV_NULL && spec[i] == 'F') { m->n_f++; break; }
      if (v.kind != EV_CONST) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "argument %d of %s must be a compile-time constant", i + 1, row->key);
        return false;
      }
      m->fpresent[m->n_f] = true;
      m->fattr[m->n_f++] = kg_cval_as_double(v.c);
      break;
    case 'b':
      if (v.kind != EV_CONST) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "argument %d of %s must be a constant bool", i + 1, row->key);
        return false;
      }
      m->flag = kg_cval_truthy(v.c);
      break;
    case 'd':
      if (v.kind == EV_NULL) break;
      if (v.kind != EV_DTYPE) {
        kg_elab_error(el, an, KG_E_TYPE, "argument %d of %s must be a dtype (torch.float32 or ScalarType.Float32)", i + 1, row->key);
        return false;
      }
      m->dtype = v.dt;
      break;
    case 'r':
    case 'g':
      if (v.kind != EV_ENUM) {
        kg_elab_error(el, an, KG_E_TYPE, "argument %d of %s must be an enum constant", i + 1, row->key);
        return false;
      }
      if (spec[i] == 'r') m->rmode = v.c.i;
      else m->gelu = v.c.i;
      break;
    case 'X':
      if (v.kind == EV_NODE) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "argument %d of %s must be null: writing into an existing tensor (out=) is not supported", i + 1, row->key);
        return false;
      }
      if (v.kind == EV_CONST && kg_cval_truthy(v.c)) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "argument %d of %s must be false: in-place updates and autograd are not supported", i + 1, row->key);
        return false;
      }
      break;
    case 'D':
      m->has_dims = true;
      if (v.kind == EV_CONST && !kg_dtype_is_float(v.c.dt) && v.c.dt != KG_BOOL) {
        if (m->n_dims > KG_MAX_RANK) { kg_elab_error(el, an, KG_E_ARG, "too many reduction dims"); return false; }
        m->dims[m->n_dims++] = v.c.i;
      } else if (v.kind == EV_ARRAY) {
        for (uint32_t j = 0; j < v.n; j++) {
          if (v.items[j].kind != EV_CONST || kg_dtype_is_float(v.items[j].c.dt)) {
            kg_elab_error(el, an, KG_E_UNSUPPORTED, "reduction dims must be integer constants");
            return false;
          }
          if (m->n_dims > KG_MAX_RANK) { kg_elab_error(el, an, KG_E_ARG, "too many reduction dims"); return false; }
          m->dims[m->n_dims++] = v.items[j].c.i;
        }
      } else {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "argument %d of %s (a reduction dim) must be a compile-time integer constant", i + 1, row->key);
        return false;
      }
      break;
    case 'u':
      if (v.kind != EV_CONST) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "unbiased (argument %d of %s) must be a constant bool", i + 1, row->key);
        return false;
      }
      m->unbiased = kg_cval_truthy(v.c);
      break;
    case 'S':
      if (v.kind != EV_ARRAY) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "normalized_shape (argument %d of %s) must be a constant array", i + 1, row->key);
        return false;
      }
      m->has_nshape = true;
      for (uint32_t q = 0; q < v.n; q++) {
        if (v.items[q].kind != EV_CONST || kg_dtype_is_float(v.items[q].c.dt) || m->n_nshape > KG_MAX_RANK) {
          kg_elab_error(el, an, KG_E_UNSUPPORTED, "normalized_shape must hold integer constants (at most %d)", KG_MAX_RANK);
          return false;
        }
        m->nshape[m->n_nshape++] = v.items[q].c.i;
      }
      break;
    case 'k':
      if (v.kind != EV_CONST) {
        kg_elab_error(el, an, KG_E_UNSUPPORTED, "keepdim (argument %d of %s) must be a constant bool", i + 1, row->key);
        return false;
      }
      m->keepdim = kg_cval_truthy(v.c);
      break;
    case 'x': break;
    default: KG_UNREACHABLE();
    }
  }
  return true;
}

static kg_ev scalar_tensor(kg_elab *el, const kg_ast *at, kg_ev v, kg_dtype t) {
  uint32_t id;
  if (!as_node(el, at, v, &id)) return kg_ev_err();
  return tensor_op(el, at, KG_OP_TENSOR, &id, 1, NULL, NULL, t);
}

static kg_ev cast_tensor(kg_elab *el, const kg_ast *at, kg_ev v, kg_dtype t) {
  return tensor_op_ev(el, at, KG_OP_CAST, &v, 1, NULL, NULL, t);
}

/* Attributes of activation-like ops from their float arguments (with PyTorch defaults). */
static void op_attrs(kg_op op, const margs *m, int64_t ia[2], double fa[4]) {
  memset(fa, 0, 4 * sizeof *fa);
  ia[0] = ia[1] = 0;
  switch (op) {
  case KG_OP_GELU: ia[0] = m->gelu; break;
  case KG_OP_SOFTPLUS: fa[0] = m->n_f > 0 ? m->fattr[0] : 1, fa[1] = m->n_f > 1 ? m->fattr[1] : 20; break;
  case KG_OP_LEAKY_RELU: fa[0] = m->n_f > 0 ? m->fattr[0] : 0.01; break;
  case KG_OP_ELU:
    fa[0] = m->n_f > 0 ? m->fattr[0] : 1, fa[1] = m->n_f > 1 ? m->fattr[1] : 1, fa[2] = m->n_f > 2 ? m->fattr[2] : 1;
    break;
  case KG_OP_CELU: fa[0] = m->n_f > 0 ? m->fattr[0] : 1; break;
  case KG_OP_HARDTANH: fa[0] = m->n_f > 0 ? m->fattr[0] : -1, fa[1] = m->n_f > 1 ? m->fattr[1] : 1; break;
  case KG_OP_ROUND: ia[0] = m->n_f > 0 ? (int64_t)m->fattr[0] : 0; break;
  case KG_OP_LOGIT: ia[0] = m->fpresent[0], fa[0] = m->fattr[0]; break;
  case KG_OP_NAN_TO_NUM:
    fa[0] = m->n_f > 0 ? m->fattr[0] : 0;
    fa[1] = m->fattr[1], fa[2] = m->fattr[2];
    ia[0] = (m->fpresent[1] ? 1 : 0) | (m->fpresent[2] ? 2 : 0);
    break;
  case KG_OP_ISCLOSE:
    fa[0] = m->n_f > 0 ? m->fattr[0] : 1e-5, fa[1] = m->n_f > 1 ? m->fattr[1] : 1e-8;
    ia[0] = m->flag;
    break;
  default: break;
  }
}

/* Reductions: dims (negative counted from the end; none or an empty array = all),
 * keepdim, and PyTorch's result dtypes — integer and bool sums and products give
 * int64, mean needs a floating dtype, amax/amin keep the input's. A dtype
 * argument converts the input first (as PyTorch does). */
static kg_ev reduce_op(kg_elab *el, const kg_ast *at, kg_op op, const margs *m) {
  kg_ev x = m->ops[0];
  if (!ev_is_tensor(el, x)) return kg_elab_error(el, at, KG_E_TYPE, "%s needs a tensor", kg_op_get(op)->torch);
  const kg_gnode *xn = gnode(el, x.id);
  int r = xn->shape.rank;
  int64_t mask = 0;
  const char *what = at->member && (!strcmp(at->member->name, "max") || !strcmp(at->member->name, "min")) ? at->member->name
                                                                                                      : kg_op_get(op)->torch + 6; /* "sum", "amax", ... */
  for (int i = 0; i < m->n_dims; i++) {
    int64_t d = m->dims[i];
    int lo = r ? -r : -1, hi = r ? r - 1 : 0;
    if (d < lo || d > hi)
      return kg_elab_error(el, at, KG_E_ARG, "%s: dimension out of range (expected to be in range of [%d, %d], but got %lld)", what, lo, hi, (long long)d);
    if (d < 0) d += r ? r : 1;
    if (r == 0) continue;
    if (mask & ((int64_t)1 << d)) return kg_elab_error(el, at, KG_E_ARG, "%s: dim %lld appears multiple times in the list of dims", what, (long long)d);
    mask |= (int64_t)1 << d;
  }
  if (m->n_dims == 0) mask = r ? (((int64_t)1 << r) - 1) : 0;
  kg_dtype in = (kg_dtype)xn->dtype, out;
  if (op == KG_OP_RMEAN && m->dtype != KG_DT_NONE && !kg_dtype_is_float(m->dtype))
    return kg_elab_error(el, at, KG_E_TYPE, "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: %s", dtn(m->dtype));
  /* TorchSharp 0.107's var/std never pass their dtype argument on: the input's dtype is kept */
  if (m->dtype != KG_DT_NONE && m->dtype != in && op != KG_OP_RVAR && op != KG_OP_RSTD) {
    x = cast_tensor(el, at, x, m->dtype);
    if (x.kind == EV_ERR) return x;
    xn = gnode(el, x.id);
    in = m->dtype;
  }
  if (op == KG_OP_RLOGSUMEXP && !kg_dtype_is_float(in)) { /* PyTorch: integer inputs promote to the default float dtype */
    x = cast_tensor(el, at, x, KG_F32);
    if (x.kind == EV_ERR) return x;
    xn = gnode(el, x.id);
    in = KG_F32;
  }
  if ((kg_op_get(op)->flags & KG_OPF_COMPOSITE) || op == KG_OP_RVAR) {
    if (!kg_dtype_is_float(in))
      return kg_elab_error(el, at, KG_E_TYPE, "%s(): expected a floating point input, got %s", what, dtn(in));
    if ((op == KG_OP_SOFTMAX || op == KG_OP_LOG_SOFTMAX) && m->n_dims != 1)
      return kg_elab_error(el, at, KG_E_ARG, "%s(): needs exactly one dim", what);
  }
  if (op == KG_OP_RCUMSUM) {
    if (m->n_dims != 1) return kg_elab_error(el, at, KG_E_ARG, "cumsum(): needs exactly one dim");
    kg_gnode g;
    memset(&g, 0, sizeof g);
    g.op = (uint16_t)op, g.vkind = KG_V_TENSOR, g.n_in = 1;
    g.dtype = (uint8_t)(m->dtype != KG_DT_NONE ? m->dtype : kg_dtype_is_float(in) ? in : KG_I64);
    g.cdtype = (uint8_t)(kg_dtype_is_float(in) ? KG_F64 : KG_I64);
    g.in[0] = x.id;
    g.ia[0] = r ? mask : 0;
    g.shape = xn->shape;
    return ev_node(add_node(el, at, &g));
  }
  switch (op) {
  case KG_OP_RARGMAX:
  case KG_OP_RARGMIN: out = KG_I64; break;
  case KG_OP_RSUM:
  case KG_OP_RNANSUM:
  case KG_OP_RPROD: out = kg_dtype_is_float(in) ? in : KG_I64; break;
  case KG_OP_RMEAN:
    if (!kg_dtype_is_float(in))
      return kg_elab_error(el, at, KG_E_TYPE, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", dtn(in));
    out = in;
    break;
  default: out = in; break;
  }
  /* an explicit dtype is the result's dtype too (sum(int32, dtype=int32) stays int32; found by
   * the .NET three-way check: TorchSharp's eager result differed from kgen and its twin) */
  if (m->dtype != KG_DT_NONE && (op == KG_OP_RSUM || op == KG_OP_RNANSUM || op == KG_OP_RPROD)) out = m->dtype;
  if (op == KG_OP_RNANSUM && !kg_dtype_is_float(in)) op = KG_OP_RSUM;
  /* accumulators: float sums and means in float64 (a float32 running sum over thousands
   * of elements per thread loses digits PyTorch's cascade summation keeps; the kernel is
   * memory-bound, so the wider add costs nothing measurable), other float reductions in
   * float32 (float64 for float64), integers in int64 (int32 for max/min of narrow types) */
  bool sumlike = op == KG_OP_RSUM || op == KG_OP_RNANSUM || op == KG_OP_RMEAN;
  kg_dtype acc = kg_dtype_is_float(out) ? ((out == KG_F64 || sumlike) ? KG_F64 : KG_F32) : (out == KG_I64 || sumlike || op == KG_OP_RPROD ? KG_I64 : KG_I32);
  if (op == KG_OP_RVAR || op == KG_OP_RSTD || op == KG_OP_RLOGSUMEXP || op == KG_OP_RNORM) acc = KG_F64;
  if (op == KG_OP_RARGMAX || op == KG_OP_RARGMIN) /* the extremum's dtype (pass 0); indices are int64 */
    acc = kg_dtype_is_float(in) ? (in == KG_F64 ? KG_F64 : KG_F32) : (in == KG_I64 ? KG_I64 : KG_I32);
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.dtype = (uint8_t)out, g.cdtype = (uint8_t)acc, g.vkind = KG_V_TENSOR, g.n_in = 1;
  g.in[0] = x.id;
  g.ia[0] = mask, g.ia[1] = m->keepdim;
  if (op == KG_OP_RVAR || op == KG_OP_RSTD) g.fa[0] = m->unbiased ? 1 : 0;
  if (op == KG_OP_RNORM) g.fa[0] = m->n_f > 0 && m->fpresent[0] ? m->fattr[0] : 2.0;
  if (op == KG_OP_SOFTMAX || op == KG_OP_LOG_SOFTMAX || op == KG_OP_LAYER_NORM) {
    g.shape = xn->shape;
    g.ia[1] = 0;
    if (op == KG_OP_LAYER_NORM) {
      int k = m->n_nshape;
      if (k == 0 || k > r)
        return kg_elab_error(el, at, KG_E_SHAPE, "layer_norm(): normalized_shape %s does not fit an input of rank %d", k ? "is longer than the input" : "is empty", r);
      for (int i = 0; i < k; i++) {
        const kg_dim *dm = &xn->shape.d[r - k + i];
        if (dm->kind == KG_DIM_STATIC && dm->v != m->nshape[i])
          return kg_elab_error(el, at, KG_E_SHAPE, "layer_norm(): normalized_shape[%d] = %lld, but the input's dim %d is %lld (it must match the last %d dims)",
                               i, (long long)m->nshape[i], r - k + i, (long long)dm->v, k);
      }
      g.ia[0] = ((((int64_t)1 << k) - 1) << (r - k));
      g.fa[0] = m->n_f > 0 ? m->fattr[0] : 1e-5;
      for (int j = 1; j <= 2; j++) {
        if (!m->present[j]) continue;
        uint32_t id;
        if (!as_node(el, at, m->ops[j], &id)) return kg_ev_err();
        if (gnode(el, id)->vkind != KG_V_TENSOR) return kg_elab_error(el, at, KG_E_TYPE, "layer_norm(): weight and bias must be tensors");
        g.in[g.n_in++] = id;
        g.ia[1] |= j;
      }
    }
    return ev_node(add_node(el, at, &g));
  }
  for (int d = 0; d < r; d++) {
    if (!(mask & ((int64_t)1 << d))) g.shape.d[g.shape.rank++] = xn->shape.d[d];
    else if (m->keepdim) g.shape.d[g.shape.rank++] = (kg_dim){KG_DIM_STATIC, 1};
    if ((mask & ((int64_t)1 << d)) && (op == KG_OP_RAMAX || op == KG_OP_RAMIN || op == KG_OP_RARGMAX || op == KG_OP_RARGMIN) &&
        xn->shape.d[d].kind == KG_DIM_STATIC && xn->shape.d[d].v == 0)
      return kg_elab_error(el, at, KG_E_SHAPE, "%s(): Expected reduction dim %d to have non-zero size.", what, d);
  }
  return ev_node(add_node(el, at, &g));
}

const kg_member_row *kg_member_tensor_row(const char *name, size_t len, const kg_member *m, kg_strbuf *key) {
  kg_sb_init(key);
  kg_sb_printf(key, "TorchSharp.torch+Tensor::%.*s(", (int)len, name);
  for (uint32_t i = 0; i < m->n_params; i++) /* a Parameter operand is a Tensor */
    kg_sb_printf(key, "%s%s", i ? "," : "", kg_clr_is_tensor(m->params[i]) ? "TorchSharp.torch+Tensor" : m->params[i]);
  kg_sb_putc(key, ')');
  return kg_member_lookup_key(kg_sb_cstr(key));
}

/* F# generic operators: tensors go to the exact Tensor::op_* row of the operand
 * types; scalars get .NET semantics. */
static kg_ev call_fsharp(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  bool tensor = false;
  for (int i = 0; i < n; i++) tensor |= ev_is_tensor(el, av[i]);
  const kg_member *m = at->member;
  if (tensor) {
    kg_strbuf k;
    const kg_member_row *tr = kg_member_tensor_row(m->name, strlen(m->name), m, &k);
    kg_ev r;
    if (!tr) r = kg_elab_error(el, at, KG_E_UNSUPPORTED, "no TorchSharp operator %s for these operand types (F# %s)", kg_sb_cstr(&k), m->key);
    else r = call_row(el, at, tr, av, n);
    kg_sb_free(&k);
    return r;
  }
  /* `x.dtype = torch.float32`, `mode <> RoundingMode.trunc`: static facts, folded here so an
   * `if` on them keeps one branch (docs/fsharp.md) */
  if ((row->op == KG_OP_EQ || row->op == KG_OP_NE) && n == 2 &&
      ((av[0].kind == EV_DTYPE && av[1].kind == EV_DTYPE) || (av[0].kind == EV_ENUM && av[1].kind == EV_ENUM))) {
    bool eq = av[0].kind == EV_DTYPE ? av[0].dt == av[1].dt : av[0].c.i == av[1].c.i;
    return ev_const(kg_cval_int(KG_BOOL, (row->op == KG_OP_EQ) == eq));
  }
  kg_dtype out = row->dtype != KG_DT_NONE ? row->dtype : kg_dtype_from_clr(at->ty);
  if (out == KG_DT_NONE) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "F# operator %s on type %s is not supported", m->name, at->ty);
  kg_op op = row->op;
  kg_dtype opnd = n > 0 ? kg_ev_dtype(el, av[0]) : out;
  if (op == KG_OP_IDIV && kg_dtype_is_float(opnd)) op = KG_OP_DIV;
  return kg_elab_sop(el, at, op, out, av, n);
}

kg_ev kg_elab_call_row(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  if (row->handler == H_FSHARP) return call_fsharp(el, at, row, av, n);
  if (row->handler == H_SMATH || row->handler == H_SCONV) {
    kg_dtype out = row->dtype != KG_DT_NONE ? row->dtype : kg_dtype_from_clr(at->ty);
    if (out == KG_DT_NONE) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "%s returning %s is not supported", at->member->key, at->ty);
    for (int i = 0; i < n; i++)
      if (ev_is_tensor(el, av[i]))
        return kg_elab_error(el, at, KG_E_UNSUPPORTED, "%s on a tensor is not supported (it reads a value back to the host: host control flow is a later issue)", at->member->key);
    if (row->handler == H_SCONV) {
      if (n != 1) return kg_elab_error(el, at, KG_E_FORMAT, "%s takes one argument", at->member->key);
      return kg_elab_scast(el, at, av[0], out);
    }
    if (row->op == KG_OP_LOG && n == 2) { /* Math.Log(a, newBase) = log a / log b */
      kg_ev la = kg_elab_sop(el, at, KG_OP_LOG, out, &av[0], 1), lb = kg_elab_sop(el, at, KG_OP_LOG, out, &av[1], 1);
      kg_ev q[2] = {la, lb};
      return kg_elab_sop(el, at, KG_OP_DIV, out, q, 2);
    }
    if (row->extra == 1 && n == 3) { /* FusedMultiplyAdd */
      kg_ev p = kg_elab_sop(el, at, KG_OP_MUL, out, av, 2);
      kg_ev q[2] = {p, av[2]};
      return kg_elab_sop(el, at, KG_OP_ADD, out, q, 2);
    }
    if (row->op == KG_OP_SIGN) {
      kg_dtype src = kg_ev_dtype(el, av[0]);
      kg_ev s = kg_elab_sop(el, at, KG_OP_SIGN, src, av, 1);
      return kg_elab_scast(el, at, s, KG_I32);
    }
    if (row->op == KG_OP_POW && n == 2 && !kg_dtype_is_float(out)) {
      kg_ev q[2] = {av[0], kg_elab_scast(el, at, av[1], out)};
      return kg_elab_sop(el, at, KG_OP_POW, out, q, 2);
    }
    return kg_elab_sop(el, at, row->op, out, av, n);
  }
  if (row->handler == H_DTYPE) {
    if (row->dtype == KG_DT_NONE)
      return kg_elab_error(el, at, KG_E_UNSUPPORTED, "dtype %s is not supported (kgen supports bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)", at->member->name);
    kg_ev e = ev_make(EV_DTYPE);
    e.dt = row->dtype;
    return e;
  }
  if (el->fn)
    return kg_elab_error(el, at, KG_E_UNSUPPORTED, "tensor operation %s inside a map lambda (lambdas are scalar code)", row->key);
  if (row->handler == H_MAP) {
    const kg_member *m = at->member;
    int k = row->extra;
    if (n != k + 1) return kg_elab_error(el, at, KG_E_FORMAT, "%s takes a function and %d tensor(s)", m->name, k);
    /* argument types from FSharpFunc`2[A,FSharpFunc`2[B,...]] */
    kg_dtype args[3];
    const char *fty = m->n_params ? m->params[0] : NULL;
    kg_dtype ret = KG_DT_NONE;
    for (int i = 0; i < k; i++) {
      const char *ga[2];
      if (kg_clr_generic_args(el->arena, fty, ga, 2) != 2)
        return kg_elab_error(el, at, KG_E_FORMAT, "%s's first parameter must be an F# function type, got %s", m->name, fty ? fty : "nothing");
      args[i] = kg_dtype_from_clr(ga[0]);
      if (args[i] == KG_DT_NONE)
        return kg_elab_error(el, at, KG_E_UNSUPPORTED, "map lambda parameter type %s is not supported", ga[0]);
      fty = ga[1];
    }
    ret = kg_dtype_from_clr(fty);
    if (ret == KG_DT_NONE) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "map lambda result type %s is not supported", fty);
    for (int i = 1; i <= k; i++)
      if (!ev_is_tensor(el, av[i])) return kg_elab_error(el, at, KG_E_TYPE, "argument %d of %s must be a tensor", i + 1, m->name);
    uint32_t fi;
    if (!kg_elab_map_fn(el, at, av[0], k, args, ret, &fi)) return kg_ev_err();
    uint32_t in[8];
    for (int i = 0; i < k; i++) in[i] = av[i + 1].id;
    const kg_sfunc *fn = el->g->fns.v[fi];
    int nin = k;
    for (uint32_t i = 0; i < fn->n_args - fn->n_lambda_args; i++) in[nin++] = fn->cap_nodes[i];
    kg_ev r = tensor_op(el, at, KG_OP_MAP, in, nin, NULL, NULL, ret);
    if (r.kind == EV_NODE) el->g->nodes.v[r.id].fn = fi;
    return r;
  }
  if (row->handler == H_LAYOUT) return kg_elab_layout(el, at, row, av, n);
  if (row->handler == H_CNN) return kg_elab_cnn(el, at, row, av, n);
  if (row->handler == H_ATTN) return kg_elab_attention(el, at, row, av, n);
  if (row->handler == H_CONV) return kg_elab_conv(el, at, row, av, n);
  if (row->handler == H_LOSS) return kg_elab_loss(el, at, row, av, n);
  margs m;
  if (!bind_args(el, at, row, av, n, &m)) return kg_ev_err();
  int64_t ia[2];
  double fa[4];
  switch (row->handler) {
  case H_PASS: return m.ops[0];
  case H_ID: return m.ops[0];
  case H_GETDTYPE: {
    kg_ev e = ev_make(EV_DTYPE);
    e.dt = kg_ev_dtype(el, m.ops[0]);
    return e;
  }
  case H_TENSOR: {
    kg_dtype t = m.dtype != KG_DT_NONE ? m.dtype : row->dtype;
    return scalar_tensor(el, at, m.ops[0], t);
  }
  case H_CAST: {
    kg_dtype t = row->dtype != KG_DT_NONE ? row->dtype : m.dtype;
    if (t == KG_DT_NONE && m.n_ops == 2) t = kg_ev_dtype(el, m.ops[1]); /* type_as / to(other) */
    if (t == KG_DT_NONE) return kg_elab_error(el, at, KG_E_TYPE, "%s: no target dtype", row->key);
    return cast_tensor(el, at, m.ops[0], t);
  }
  case H_LIKE: {
    kg_dtype t = m.dtype != KG_DT_NONE ? m.dtype : kg_ev_dtype(el, m.ops[0]);
    kg_ev fill = row->extra == 0 ? m.ops[1] : ev_const(kg_cval_int(KG_I64, row->extra == 2 ? 1 : 0));
    kg_ev ops2[2] = {fill, m.ops[0]};
    int64_t lia[2] = {row->extra, 0};
    return tensor_op_ev(el, at, KG_OP_FULL, ops2, 2, lia, NULL, t);
  }
  case H_ALPHA: {
    if (m.n_ops == 3) { /* x + alpha * y */
      kg_ev p[2] = {m.ops[1], m.ops[2]};
      kg_ev my = tensor_op_ev(el, at, KG_OP_MUL, p, 2, NULL, NULL, KG_DT_NONE);
      kg_ev q[2] = {m.ops[0], my};
      return tensor_op_ev(el, at, KG_OP_ADD, q, 2, NULL, NULL, KG_DT_NONE);
    }
    return tensor_op_ev(el, at, KG_OP_ADD, m.ops, 2, NULL, NULL, KG_DT_NONE);
  }
  case H_DIVMODE: {
    kg_op op = m.rmode == 1 ? KG_OP_TRUNCDIV : m.rmode == 2 ? KG_OP_FLOORDIV : KG_OP_DIV;
    if (m.rmode < 0 || m.rmode > 2) return kg_elab_error(el, at, KG_E_ARG, "unknown RoundingMode %lld", (long long)m.rmode);
    return tensor_op_ev(el, at, op, m.ops, 2, NULL, NULL, KG_DT_NONE);
  }
  case H_ATAN:
    return tensor_op_ev(el, at, m.n_ops == 2 ? KG_OP_ATAN2 : KG_OP_ATAN, m.ops, m.n_ops, NULL, NULL, KG_DT_NONE);
  case H_CLAMP: {
    bool lo = m.present[1], hi = m.present[2];
    if (lo && hi) return tensor_op_ev(el, at, KG_OP_CLAMP, m.ops, 3, NULL, NULL, KG_DT_NONE);
    if (!lo && !hi) return kg_elab_error(el, at, KG_E_ARG, "clamp needs at least one of min and max (PyTorch rejects clamp with neither)");
    kg_ev q[2] = {m.ops[0], lo ? m.ops[1] : m.ops[2]};
    return tensor_op_ev(el, at, lo ? KG_OP_CLAMP_MIN : KG_OP_CLAMP_MAX, q, 2, NULL, NULL, KG_DT_NONE);
  }
  case H_WHERE: {
    /* torch.where(c, x, y) is static; x.where(c, y) has the receiver x first */
    kg_ev q[3];
    if (at->member->is_static) q[0] = m.ops[0], q[1] = m.ops[1], q[2] = m.ops[2];
    else q[0] = m.ops[1], q[1] = m.ops[0], q[2] = m.ops[2];
    return tensor_op_ev(el, at, KG_OP_WHERE, q, 3, NULL, NULL, KG_DT_NONE);
  }
  case H_REDUCE: {
    if (row->extra != 1) return reduce_op(el, at, row->op, &m);
    /* max(dim, keepdim) / min(dim, keepdim): a struct tuple (values, indices) */
    kg_ev t = ev_make(EV_TUPLE);
    t.n = 2;
    t.items = kg_arena_alloc(el->arena, 2 * sizeof *t.items);
    t.items[0] = reduce_op(el, at, row->op, &m);
    if (t.items[0].kind == EV_ERR) return t.items[0];
    t.items[1] = reduce_op(el, at, row->op == KG_OP_RAMAX ? KG_OP_RARGMAX : KG_OP_RARGMIN, &m);
    if (t.items[1].kind == EV_ERR) return t.items[1];
    return t;
  }
  case H_MATMUL: return kg_elab_product(el, at, row->op, row->extra, m.ops, m.present, m.n_ops, m.fattr, m.n_f);
  case H_OP:
    op_attrs(row->op, &m, ia, fa);
    if (kg_op_get(row->op)->arity >= 0 && m.n_ops != kg_op_get(row->op)->arity)
      return kg_elab_error(el, at, KG_E_INTERNAL, "%s: %d operands for %s", row->key, m.n_ops, kg_op_name(row->op));
    if (m.n_ops >= 1 && !ev_is_tensor(el, m.ops[0]) && !ev_is_tensor(el, m.ops[m.n_ops - 1]))
      return kg_elab_error(el, at, KG_E_TYPE, "%s needs a tensor operand", row->key);
    if ((row->op == KG_OP_SUB || row->op == KG_OP_DIV) && m.n_ops == 2 && !ev_is_tensor(el, m.ops[0]) && ev_is_tensor(el, m.ops[1])) {
      /* a number on the left: TorchSharp's operators compute s - x as x.negative().add(s) and
       * s / x as x.reciprocal().mul(s) (Tensor.Operators.cs), so the negation wraps in x's
       * integer dtype before the float scalar promotes it (1.5f - uint8 9 is 248.5, not -7.5;
       * TorchScript's torch.sub(1.5, x) is neg + add too: kgen fuzz seed 3378,
       * examples/fs_fuzz_scalar_minus_uint8) */
      kg_ev t = tensor_op_ev(el, at, row->op == KG_OP_SUB ? KG_OP_NEG : KG_OP_RECIP, &m.ops[1], 1, NULL, NULL, KG_DT_NONE);
      if (t.kind == EV_ERR) return t;
      kg_ev q[2] = {t, m.ops[0]};
      return tensor_op_ev(el, at, row->op == KG_OP_SUB ? KG_OP_ADD : KG_OP_MUL, q, 2, NULL, NULL, KG_DT_NONE);
    }
    return tensor_op_ev(el, at, row->op, m.ops, m.n_ops, ia, fa, KG_DT_NONE);
  default: break;
  }
  return kg_elab_error(el, at, KG_E_INTERNAL, "unhandled member handler for %s", row->key);
}
