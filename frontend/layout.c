/* frontend/layout.c — the layout, joining, indexing and factory members (H_LAYOUT rows):
 * view / reshape / flatten / squeeze / unsqueeze, transpose / permute / t / mT, expand,
 * repeat, flip, roll, narrow / slice / chunk / split / tensor_split, select / unbind, cat /
 * stack / hstack / vstack, index_select / gather / take_along_dim, masked_fill, tril / triu,
 * arange / zeros / ones / full / empty / eye, dropout.
 *
 * Each becomes one of ops.def's layout ops (or a few), with PyTorch's shape rules and error
 * messages, located at the F# call. Their arguments must be known when kgen compiles
 * (constants, or sizes the signature fixes); a size read from a symbolic dim (x.shape.[0]
 * with x: float32[N, 8]) stands for its symbol. Nothing here copies: passes/lower_view.c
 * computes these ops as index arithmetic inside the consuming kernel.
 *
 *   x.view(-1L, 2L, 4L) with x: float32[N, 8]   → %1 = RESHAPE:float32[N,2,4](%0)
 *   x.transpose(0L, 1L)                          → %2 = PERMUTE:float32[8,N](%0) ia=[1]
 *   torch.cat([| a; b |], 1L)                    → %3 = CAT:float32[4,7](%a, %b) ia=[1]
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#define gnode kg_elab_gnode
#define err kg_elab_error

typedef struct lay {
  kg_elab *el;
  const kg_ast *at;
  const char *what; /* "view()", for messages */
} lay;

static bool is_one(const kg_dim *d) { return d->kind == KG_DIM_STATIC && d->v == 1; }
static bool dim_eq(const kg_dim *a, const kg_dim *b) { return a->kind == b->kind && a->v == b->v; }

static kg_ev fail(lay *L, kg_diag_code code, const char *fmt, ...) KG_PRINTF(3, 4);
static kg_ev fail(lay *L, kg_diag_code code, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return err(L->el, L->at, code, "%s: %s", L->what, buf);
}

static bool const_i(kg_ev v, int64_t *out) {
  if (v.kind != EV_CONST || kg_dtype_is_float(v.c.dt)) return false;
  *out = v.c.i;
  return true;
}

static bool int_arg(lay *L, kg_ev v, int64_t *out, const char *name) {
  if (const_i(v, out)) return true;
  fail(L, KG_E_UNSUPPORTED, "%s must be a constant integer when kgen compiles", name);
  return false;
}

/* a size argument: a constant, or a size read from a symbolic dim (its symbol) */
static bool size_arg(lay *L, kg_ev v, kg_dim *out) {
  int64_t c;
  if (const_i(v, &c)) {
    *out = (kg_dim){KG_DIM_STATIC, c};
    return true;
  }
  if (v.kind == EV_NODE) {
    const kg_plan *p = L->el->plan;
    for (uint32_t i = 0; p && i < p->ops.n; i++) {
      const kg_pop *o = &p->ops.v[i];
      if (o->kind == KG_P_SIZE && o->a == v.id) {
        *out = gnode(L->el, o->b)->shape.d[o->dim];
        return true;
      }
    }
  }
  fail(L, KG_E_UNSUPPORTED, "a size must be a constant, or a tensor's size, when kgen compiles (the result's shape is fixed then)");
  return false;
}

/* an Int64[] (or Size) argument, or a single integer */
static int sizes_arg(lay *L, kg_ev v, kg_dim *out, int max) {
  if (v.kind != EV_ARRAY) {
    if (!size_arg(L, v, &out[0])) return -1;
    return 1;
  }
  if ((int)v.n > max) {
    fail(L, KG_E_LIMIT, "%u sizes: kgen supports rank %d", v.n, KG_MAX_RANK);
    return -1;
  }
  for (uint32_t i = 0; i < v.n; i++)
    if (!size_arg(L, v.items[i], &out[i])) return -1;
  return (int)v.n;
}

static bool norm_dim(lay *L, int64_t d, int rank, int *out) {
  int r = rank ? rank : 1;
  if (d < -r || d >= r) {
    fail(L, KG_E_SHAPE, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -r, r - 1, (long long)d);
    return false;
  }
  *out = (int)(d < 0 ? d + r : d);
  return true;
}

static bool tensor_arg(lay *L, kg_ev v, uint32_t *id) {
  if (!kg_ev_is_tensor(L->el, v)) {
    fail(L, KG_E_TYPE, "needs a tensor");
    return false;
  }
  *id = v.id;
  return true;
}

static uint32_t add(lay *L, kg_op op, kg_dtype dt, const uint32_t *in, int n, const kg_shape *sh, int64_t a0, int64_t a1, int64_t a2) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)n;
  for (int i = 0; i < n; i++) g.in[i] = in[i];
  g.shape = *sh;
  g.ia[0] = a0, g.ia[1] = a1, g.ia[2] = a2;
  return kg_elab_add_node(L->el, L->at, &g);
}

static void shape_text(lay *L, const kg_shape *s, char *buf, size_t cap) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, cap - k, "[");
  for (int i = 0; i < s->rank && k < cap; i++) {
    if (s->d[i].kind == KG_DIM_STATIC) k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)s->d[i].v);
    else k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", L->el->g->syms.v[s->d[i].v]);
  }
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* ---- reshape family ---- */

/* numel as a static product and a multiset of symbols (counts per symbol id) */
typedef struct nelems { int64_t stat; uint32_t *sym; } nelems;

static void numel_of(lay *L, const kg_dim *d, int n, nelems *m) {
  m->stat = 1;
  m->sym = kg_arena_alloc(L->el->arena, (L->el->g->syms.n + 1) * sizeof *m->sym);
  memset(m->sym, 0, (L->el->g->syms.n + 1) * sizeof *m->sym);
  for (int i = 0; i < n; i++) {
    if (d[i].kind == KG_DIM_STATIC) m->stat *= d[i].v;
    else m->sym[d[i].v]++;
  }
}

/* PyTorch's computeStride: the strides a view of shape `ns` of a tensor (os, ost) has, or
 * false when no view can have them (static sizes only) */
static bool view_strides(const int64_t *os, const int64_t *ost, int ro, const int64_t *ns, int rn, int64_t *nst) {
  int64_t cnt = 1;
  for (int i = 0; i < ro; i++) cnt *= os[i];
  if (cnt == 0 || ro == 0) {
    int64_t s = 1;
    for (int i = rn; i-- > 0;) nst[i] = s, s *= ns[i] ? ns[i] : 1;
    return true;
  }
  int vd = rn - 1;
  int64_t base = ost[ro - 1], tn = 1, vn = 1;
  for (int td = ro - 1; td >= 0; td--) {
    tn *= os[td];
    if (td == 0 || (os[td - 1] != 1 && ost[td - 1] != tn * base)) {
      while (vd >= 0 && (vn < tn || ns[vd] == 1)) nst[vd] = vn * base, vn *= ns[vd], vd--;
      if (vn != tn) return false;
      if (td > 0) base = ost[td - 1], tn = 1, vn = 1;
    }
  }
  return vd == -1;
}

/* The strides PyTorch's node `id` has when it is a chain of views of a contiguous value
 * (static sizes only); false when unknown. */
static bool strides_of(lay *L, uint32_t id, int64_t *st) {
  const kg_gnode *n = gnode(L->el, id);
  int r = n->shape.rank;
  int64_t sz[KG_MAX_RANK];
  for (int i = 0; i < r; i++) {
    if (n->shape.d[i].kind != KG_DIM_STATIC) return false;
    sz[i] = n->shape.d[i].v;
  }
  int64_t os[KG_MAX_RANK], ost[KG_MAX_RANK];
  const kg_gnode *o = n->n_in ? gnode(L->el, n->in[0]) : NULL;
  switch (n->op) {
  case KG_OP_PERMUTE:
    if (!strides_of(L, n->in[0], ost)) return false;
    for (int i = 0; i < r; i++) st[i] = ost[(n->ia[0] >> (4 * i)) & 15];
    return true;
  case KG_OP_EXPAND:
    if (!strides_of(L, n->in[0], ost)) return false;
    for (int i = 0; i < r; i++) {
      int j = i - (r - o->shape.rank);
      st[i] = j < 0 || (is_one(&o->shape.d[j]) && sz[i] != 1) ? 0 : ost[j];
    }
    return true;
  case KG_OP_SLICE:
    if (!strides_of(L, n->in[0], st)) return false;
    st[n->ia[0]] *= n->ia[2];
    return true;
  case KG_OP_SELECT:
    if (!strides_of(L, n->in[0], ost)) return false;
    for (int i = 0, j = 0; j < o->shape.rank; j++)
      if (j != n->ia[0]) st[i++] = ost[j];
    return true;
  case KG_OP_RESHAPE:
    if (n->ia[0] == 2) goto dense; /* contiguous() */
    if (!strides_of(L, n->in[0], ost)) return false;
    for (int i = 0; i < o->shape.rank; i++) os[i] = o->shape.d[i].v;
    return view_strides(os, ost, o->shape.rank, sz, r, st);
  default:
  dense: {
    int64_t s = 1;
    for (int i = r; i-- > 0;) st[i] = s, s *= sz[i] ? sz[i] : 1;
    return true;
  }
  }
}

/* RESHAPE of x to dims (one may be -1: inferred); viewing: PyTorch's view() error when the
 * input's layout cannot be viewed so */
static kg_ev reshape_to(lay *L, uint32_t x, const kg_dim *want, int n, bool viewing) {
  const kg_gnode *xn = gnode(L->el, x);
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.rank = (uint8_t)n;
  int infer = -1;
  for (int i = 0; i < n; i++) {
    sh.d[i] = want[i];
    if (want[i].kind == KG_DIM_STATIC && want[i].v == -1) {
      if (infer >= 0) return fail(L, KG_E_SHAPE, "only one dimension can be inferred");
      infer = i;
    } else if (want[i].kind == KG_DIM_STATIC && want[i].v < 0) {
      return fail(L, KG_E_SHAPE, "invalid shape dimension %lld", (long long)want[i].v);
    }
  }
  nelems in, out;
  numel_of(L, xn->shape.d, xn->shape.rank, &in);
  kg_dim known[KG_MAX_RANK + 1];
  memset(known, 0, sizeof known);
  int nk = 0;
  for (int i = 0; i < n; i++)
    if (i != infer) known[nk++] = want[i];
  numel_of(L, known, nk, &out);
  char a[160], b[160];
  bool syms_fit = true, rest_sym = false;
  uint32_t rest = 0;
  for (uint32_t s = 0; s < L->el->g->syms.n; s++) {
    if (out.sym[s] > in.sym[s]) syms_fit = false;
    else if (in.sym[s] - out.sym[s] == 1 && !rest_sym) rest_sym = true, rest = s;
    else if (in.sym[s] != out.sym[s]) syms_fit = false;
  }
  if (infer >= 0) {
    if (out.stat == 0) {
      shape_text(L, &sh, a, sizeof a);
      return fail(L, KG_E_SHAPE, "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", a);
    }
    if (syms_fit && !rest_sym && in.stat % out.stat == 0) sh.d[infer] = (kg_dim){KG_DIM_STATIC, in.stat / out.stat};
    else if (syms_fit && rest_sym && in.stat == out.stat) sh.d[infer] = (kg_dim){KG_DIM_SYM, rest};
    else {
      shape_text(L, &sh, a, sizeof a), shape_text(L, &xn->shape, b, sizeof b);
      return fail(L, KG_E_SHAPE, "shape %s is invalid for input of shape %s%s", a, b,
                  syms_fit ? "" : " (kgen infers -1 only when the sizes left over are a constant or one symbol)");
    }
  } else if (!syms_fit || rest_sym || in.stat != out.stat) {
    shape_text(L, &sh, a, sizeof a), shape_text(L, &xn->shape, b, sizeof b);
    return fail(L, KG_E_SHAPE, "shape %s is invalid for input of shape %s", a, b);
  }
  if (kg_shape_equal(&sh, &xn->shape)) return kg_ev_node(x);
  if (viewing) {
    int64_t ost[KG_MAX_RANK], ns[KG_MAX_RANK], nst[KG_MAX_RANK], os[KG_MAX_RANK];
    bool stat = true;
    for (int i = 0; i < n; i++) stat &= sh.d[i].kind == KG_DIM_STATIC, ns[i] = sh.d[i].v;
    if (stat && strides_of(L, x, ost)) {
      for (int i = 0; i < xn->shape.rank; i++) os[i] = xn->shape.d[i].v;
      if (!view_strides(os, ost, xn->shape.rank, ns, n, nst))
        return fail(L, KG_E_SHAPE, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    }
  }
  return kg_ev_node(add(L, KG_OP_RESHAPE, (kg_dtype)xn->dtype, &x, 1, &sh, viewing, 0, 0));
}

/* ---- permute family ---- */

static kg_ev permute(lay *L, uint32_t x, const int *perm) {
  const kg_gnode *xn = gnode(L->el, x);
  kg_shape sh = xn->shape;
  int64_t code = 0;
  bool ident = true;
  for (int i = 0; i < xn->shape.rank; i++) {
    sh.d[i] = xn->shape.d[perm[i]];
    code |= (int64_t)perm[i] << (4 * i);
    ident &= perm[i] == i;
  }
  if (ident) return kg_ev_node(x);
  return kg_ev_node(add(L, KG_OP_PERMUTE, (kg_dtype)xn->dtype, &x, 1, &sh, code, 0, 0));
}

static kg_ev transpose(lay *L, uint32_t x, int64_t d0, int64_t d1) {
  int r = gnode(L->el, x)->shape.rank, a, b, perm[KG_MAX_RANK];
  if (r == 0 && (d0 == 0 || d0 == -1) && (d1 == 0 || d1 == -1)) return kg_ev_node(x);
  if (!norm_dim(L, d0, r, &a) || !norm_dim(L, d1, r, &b)) return kg_ev_err();
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[a] = b, perm[b] = a;
  return permute(L, x, perm);
}

/* ---- slices ---- */

static kg_ev slice(lay *L, uint32_t x, int d, int64_t start, int64_t len, int64_t step) {
  const kg_gnode *xn = gnode(L->el, x);
  kg_shape sh = xn->shape;
  sh.d[d] = (kg_dim){KG_DIM_STATIC, len};
  if (start == 0 && step == 1 && dim_eq(&sh.d[d], &xn->shape.d[d])) return kg_ev_node(x);
  return kg_ev_node(add(L, KG_OP_SLICE, (kg_dtype)xn->dtype, &x, 1, &sh, d, start, step));
}

static kg_ev select_at(lay *L, uint32_t x, int d, int64_t i) {
  const kg_gnode *xn = gnode(L->el, x);
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  for (int j = 0; j < xn->shape.rank; j++)
    if (j != d) sh.d[sh.rank++] = xn->shape.d[j];
  return kg_ev_node(add(L, KG_OP_SELECT, (kg_dtype)xn->dtype, &x, 1, &sh, d, i, 0));
}

static int64_t static_size(lay *L, uint32_t x, int d, const char *why) {
  const kg_dim *dm = &gnode(L->el, x)->shape.d[d];
  if (dm->kind == KG_DIM_STATIC) return dm->v;
  fail(L, KG_E_UNSUPPORTED, "dim %d has a symbolic size; %s needs it fixed when kgen compiles", d, why);
  return -1;
}

static kg_ev array_of(lay *L, const kg_ev *items, int n) {
  kg_ev a = kg_ev_make(EV_ARRAY);
  a.n = (uint32_t)n;
  a.items = kg_arena_alloc(L->el->arena, ((size_t)n + 1) * sizeof *a.items);
  memcpy(a.items, items, (size_t)n * sizeof *items);
  return a;
}

/* pieces of dim d at the given boundaries (PyTorch clamps them into [0, size]) */
static kg_ev split_at(lay *L, uint32_t x, int d, const int64_t *len, int n) {
  kg_ev *items = kg_arena_alloc(L->el->arena, ((size_t)n + 1) * sizeof *items);
  int64_t start = 0;
  for (int i = 0; i < n; i++) {
    items[i] = slice(L, x, d, start, len[i], 1);
    if (items[i].kind == EV_ERR) return items[i];
    start += len[i];
  }
  return array_of(L, items, n);
}

/* ---- cat ---- */

static kg_ev cat(lay *L, const uint32_t *in, int n, int64_t dim) {
  if (n == 0) return fail(L, KG_E_ARG, "expected a non-empty list of Tensors");
  /* PyTorch skips 1-D empty tensors (legacy); ranks must agree otherwise */
  const kg_gnode *f = gnode(L->el, in[0]);
  int r = f->shape.rank, d;
  if (r == 0) return fail(L, KG_E_SHAPE, "zero-dimensional tensor (at position 0) cannot be concatenated");
  if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
  kg_shape sh = f->shape;
  kg_dtype dt = (kg_dtype)f->dtype;
  int64_t total = 0;
  bool stat = true;
  for (int i = 0; i < n; i++) {
    const kg_gnode *o = gnode(L->el, in[i]);
    if (o->shape.rank != r)
      return fail(L, KG_E_SHAPE, "Tensors must have same number of dimensions: got %d and %d", r, o->shape.rank);
    for (int j = 0; j < r; j++)
      if (j != d && !dim_eq(&o->shape.d[j], &sh.d[j]))
        return fail(L, KG_E_SHAPE, "Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %d in the list.", d,
                    (long long)sh.d[j].v, (long long)o->shape.d[j].v, i);
    if (o->shape.d[d].kind != KG_DIM_STATIC) stat = false;
    else total += o->shape.d[d].v;
    dt = i ? kg_dtype_promote(dt, (kg_dtype)o->dtype) : dt;
  }
  if (n == 1) return kg_ev_node(in[0]);
  if (!stat) return fail(L, KG_E_UNSUPPORTED, "concatenating along a dim of symbolic size: kgen needs the result's size there when it compiles");
  sh.d[d] = (kg_dim){KG_DIM_STATIC, total};
  /* at most 8 operands a node: longer lists nest */
  if (n > 8) {
    kg_ev head = cat(L, in, 8, d);
    if (head.kind == EV_ERR) return head;
    uint32_t rest[KG_MAX_RANK * 8 + 1];
    rest[0] = head.id;
    int m = 1;
    for (int i = 8; i < n; i++) rest[m++] = in[i];
    return cat(L, rest, m, d);
  }
  return kg_ev_node(add(L, KG_OP_CAT, dt, in, n, &sh, d, 0, 0));
}

static int tensor_list(lay *L, kg_ev v, uint32_t *out, int max) {
  if (v.kind != EV_ARRAY) {
    fail(L, KG_E_UNSUPPORTED, "the tensors must be an F# array or list written in the code");
    return -1;
  }
  if ((int)v.n > max) {
    fail(L, KG_E_LIMIT, "%u tensors: kgen joins at most %d at once", v.n, max);
    return -1;
  }
  for (uint32_t i = 0; i < v.n; i++)
    if (!tensor_arg(L, v.items[i], &out[i])) return -1;
  return (int)v.n;
}

static kg_ev unsqueeze(lay *L, uint32_t x, int64_t dim) {
  const kg_gnode *xn = gnode(L->el, x);
  int r = xn->shape.rank, d;
  if (r >= KG_MAX_RANK) return fail(L, KG_E_LIMIT, "a tensor of rank %d: kgen supports rank %d", r, KG_MAX_RANK);
  if (!norm_dim(L, dim, r + 1, &d)) return kg_ev_err();
  kg_dim nd[KG_MAX_RANK];
  for (int i = 0, j = 0; i <= r; i++) nd[i] = i == d ? (kg_dim){KG_DIM_STATIC, 1} : xn->shape.d[j++];
  return reshape_to(L, x, nd, r + 1, false);
}

/* ---- factories ---- */

static kg_ev fill(lay *L, const kg_dim *sz, int n, kg_ev value, kg_dtype dt) {
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.rank = (uint8_t)n;
  for (int i = 0; i < n; i++) {
    if (sz[i].kind == KG_DIM_STATIC && sz[i].v < 0) return fail(L, KG_E_SHAPE, "Trying to create tensor with negative dimension %lld", (long long)sz[i].v);
    sh.d[i] = sz[i];
  }
  uint32_t v;
  if (!kg_elab_as_node(L->el, L->at, value, &v)) return kg_ev_err();
  return kg_ev_node(add(L, KG_OP_FILL, dt, &v, 1, &sh, 0, 0, 0));
}

/* ---- indexing: x.[TensorIndex...] ---- */

enum { KG_TI_SINGLE, KG_TI_SLICE, KG_TI_TENSOR, KG_TI_ELLIPSIS, KG_TI_NONE, KG_TI_COLON, KG_TI_BOOL };

static kg_ev tindex(lay *L, int kind, const kg_ev *ops, int n) {
  kg_ev v = kg_ev_make(EV_TINDEX);
  v.c.i = kind;
  v.n = (uint32_t)n;
  v.items = kg_arena_alloc(L->el->arena, ((size_t)n + 1) * sizeof *v.items);
  if (n) memcpy(v.items, ops, (size_t)n * sizeof *ops);
  return v;
}

/* PyTorch's __getitem__ with basic indices (integers, slices, None, ..., :) and at most one
 * integer tensor (advanced indexing: its dims replace the indexed dim) */
static kg_ev getitem(lay *L, uint32_t x, const kg_ev *ix, int ni) {
  const kg_gnode *xn = gnode(L->el, x);
  int consuming = 0, ell = -1, tensors = 0;
  for (int i = 0; i < ni; i++) {
    int k = ix[i].kind == EV_TINDEX ? (int)ix[i].c.i : kg_ev_is_tensor(L->el, ix[i]) ? KG_TI_TENSOR : KG_TI_SINGLE;
    if (k == KG_TI_ELLIPSIS) {
      if (ell >= 0) return fail(L, KG_E_ARG, "an index can only have a single ellipsis ('...')");
      ell = i;
    } else if (k != KG_TI_NONE) {
      consuming++;
    }
    tensors += k == KG_TI_TENSOR;
    if (k == KG_TI_BOOL) return fail(L, KG_E_UNSUPPORTED, "a bool TensorIndex is not supported");
  }
  if (tensors > 1) return fail(L, KG_E_UNSUPPORTED, "indexing with more than one tensor (broadcast advanced indexing) is not supported yet");
  if (consuming > xn->shape.rank) return fail(L, KG_E_SHAPE, "too many indices for tensor of dimension %d", xn->shape.rank);
  uint32_t cur = x;
  int pos = 0;
  for (int i = 0; i < ni; i++) {
    const kg_gnode *cn = gnode(L->el, cur);
    kg_ev v = ix[i];
    int k = v.kind == EV_TINDEX ? (int)v.c.i : kg_ev_is_tensor(L->el, v) ? KG_TI_TENSOR : KG_TI_SINGLE;
    kg_ev r = kg_ev_node(cur);
    switch (k) {
    case KG_TI_ELLIPSIS: pos += xn->shape.rank - consuming; continue;
    case KG_TI_COLON: pos++; continue;
    case KG_TI_NONE: r = unsqueeze(L, cur, pos), pos++; break;
    case KG_TI_SINGLE: {
      int64_t a;
      kg_ev iv = v.kind == EV_TINDEX ? v.items[0] : v;
      if (!int_arg(L, iv, &a, "an index")) return kg_ev_err();
      int64_t size = static_size(L, cur, pos, "indexing");
      if (size < 0) return kg_ev_err();
      if (a < -size || a >= size) return fail(L, KG_E_SHAPE, "index %lld is out of bounds for dimension %d with size %lld", (long long)a, pos, (long long)size);
      r = select_at(L, cur, pos, a < 0 ? a + size : a);
      break;
    }
    case KG_TI_SLICE: {
      int64_t se[3] = {0, INT64_MAX, 1};
      for (int j = 0; j < 3; j++)
        if (v.items[j].kind != EV_NULL && !int_arg(L, v.items[j], &se[j], j == 0 ? "a slice's start" : j == 1 ? "a slice's stop" : "a slice's step")) return kg_ev_err();
      if (se[2] <= 0) return fail(L, KG_E_ARG, "slice step must be positive");
      int64_t size = static_size(L, cur, pos, "slicing");
      if (size < 0) return kg_ev_err();
      int64_t s = se[0] < 0 ? se[0] + size : se[0], e = se[1] == INT64_MAX ? size : se[1] < 0 ? se[1] + size : se[1];
      s = s < 0 ? 0 : s > size ? size : s, e = e < s ? s : e > size ? size : e;
      r = slice(L, cur, pos, s, (e - s + se[2] - 1) / se[2], se[2]);
      pos++;
      break;
    }
    case KG_TI_TENSOR: {
      uint32_t idx = v.kind == EV_TINDEX ? v.items[0].id : v.id;
      const kg_gnode *in = gnode(L->el, idx);
      if (in->dtype == KG_BOOL || in->dtype == KG_U8) return fail(L, KG_E_UNSUPPORTED, "indexing with a mask (a data-dependent shape) is not supported");
      if (kg_dtype_is_float((kg_dtype)in->dtype)) return fail(L, KG_E_TYPE, "tensors used as indices must be long, int, byte or bool tensors");
      if (cn->shape.rank - 1 + in->shape.rank > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "the result's rank exceeds kgen's %d", KG_MAX_RANK);
      kg_shape sh;
      memset(&sh, 0, sizeof sh);
      for (int j = 0; j < pos; j++) sh.d[sh.rank++] = cn->shape.d[j];
      for (int j = 0; j < in->shape.rank; j++) sh.d[sh.rank++] = in->shape.d[j];
      for (int j = pos + 1; j < cn->shape.rank; j++) sh.d[sh.rank++] = cn->shape.d[j];
      uint32_t ops[2] = {cur, idx};
      r = kg_ev_node(add(L, KG_OP_INDEX, (kg_dtype)cn->dtype, ops, 2, &sh, pos, 1, 0));
      pos += in->shape.rank;
      break;
    }
    default: return fail(L, KG_E_INTERNAL, "unknown TensorIndex kind %d", k);
    }
    if (r.kind == EV_ERR) return r;
    cur = r.id;
  }
  return kg_ev_node(cur);
}

/* ---- the handler ---- */

kg_ev kg_elab_layout(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  const kg_member *m = at->member;
  /* the row's member name (an in-place call, effects.c, arrives here with its out-of-place row) */
  char nbuf[64];
  const char *k0 = strstr(row->key, "::");
  size_t nl = k0 ? strcspn(k0 + 2, "(") : 0;
  snprintf(nbuf, sizeof nbuf, "%.*s", (int)(nl < sizeof nbuf ? nl : sizeof nbuf - 1), k0 ? k0 + 2 : m->name);
  const char *nm = nbuf;
  if (!strncmp(nm, "get_", 4)) nm += 4;
  char what[80];
  snprintf(what, sizeof what, "%s()", nm);
  lay Ls = {el, at, what}, *L = &Ls;
  const char *spec = row->argspec;
  if ((int)strlen(spec) != n) return err(el, at, KG_E_FORMAT, "%s takes %d arguments, got %d", row->key, (int)strlen(spec), n);
  for (int i = 0; i < n; i++) {
    if (av[i].kind == EV_ERR) return av[i];
    if (spec[i] == 'X' && !(av[i].kind == EV_CONST && !av[i].c.i)) return fail(L, KG_E_UNSUPPORTED, "argument %d must be false", i + 1);
  }
  if (!strncmp(row->key, "TorchSharp.torch+TensorIndex::", 30)) {
    if (!strcmp(nm, "Slice")) return tindex(L, KG_TI_SLICE, av, 3);
    if (!strcmp(nm, "Single") || !strcmp(nm, "op_Implicit")) {
      if (av[0].kind == EV_NULL) return fail(L, KG_E_ARG, "TensorIndex.Single(null)");
      return tindex(L, KG_TI_SINGLE, av, 1);
    }
    if (!strcmp(nm, "Tensor")) {
      uint32_t t;
      if (!tensor_arg(L, av[0], &t)) return kg_ev_err();
      return tindex(L, KG_TI_TENSOR, av, 1);
    }
    if (!strcmp(nm, "Bool")) return tindex(L, KG_TI_BOOL, av, 1);
    if (!strcmp(nm, "Ellipsis")) return tindex(L, KG_TI_ELLIPSIS, NULL, 0);
    if (!strcmp(nm, "None") || !strcmp(nm, "Null")) return tindex(L, KG_TI_NONE, NULL, 0);
    if (!strcmp(nm, "Colon")) return tindex(L, KG_TI_COLON, NULL, 0);
    return err(el, at, KG_E_INTERNAL, "unhandled TensorIndex member %s", row->key);
  }
  uint32_t x = KG_NONE;
  if (n > 0 && spec[0] == 't' && !tensor_arg(L, av[0], &x)) return kg_ev_err();
  if (row->op == KG_OP_INDEX && (!strcmp(nm, "index") || !strcmp(nm, "TensorItems"))) {
    snprintf(what, sizeof what, "indexing");
    if (n == 2 && av[1].kind == EV_ARRAY) return getitem(L, x, av[1].items, (int)av[1].n);
    return getitem(L, x, av + 1, n - 1);
  }
  const kg_gnode *xn = x != KG_NONE ? gnode(el, x) : NULL;
  int r = xn ? xn->shape.rank : 0;
  kg_dim dims[KG_MAX_RANK + 1];
  int64_t a = 0, b = 0, c = 0;
  int d, d2;
  switch (row->op) {
  case KG_OP_RESHAPE: {
    if (!strcmp(nm, "contiguous")) {
      /* the values themselves; a node only where a view chain ends, so that a view() after it
       * sees a contiguous tensor as PyTorch does */
      if (!(kg_op_get((kg_op)xn->op)->flags & KG_OPF_LAYOUT)) return kg_ev_node(x);
      return kg_ev_node(add(L, KG_OP_RESHAPE, (kg_dtype)xn->dtype, &x, 1, &xn->shape, 2, 0, 0));
    }
    if (!strcmp(nm, "view") || !strcmp(nm, "reshape")) {
      int k = sizes_arg(L, av[1], dims, KG_MAX_RANK);
      if (k < 0) return kg_ev_err();
      return reshape_to(L, x, dims, k, !strcmp(nm, "view"));
    }
    if (!strcmp(nm, "view_as") || !strcmp(nm, "reshape_as")) {
      uint32_t y;
      if (!tensor_arg(L, av[1], &y)) return kg_ev_err();
      const kg_gnode *yn = gnode(el, y);
      return reshape_to(L, x, yn->shape.d, yn->shape.rank, !strcmp(nm, "view_as"));
    }
    if (!strcmp(nm, "unsqueeze")) return int_arg(L, av[1], &a, "the dim") ? unsqueeze(L, x, a) : kg_ev_err();
    if (!strcmp(nm, "squeeze")) {
      int k = 0;
      bool all = av[1].kind == EV_NULL;
      if (!all && !int_arg(L, av[1], &a, "the dim")) return kg_ev_err();
      if (!all && r == 0 && (a == 0 || a == -1)) return kg_ev_node(x);
      if (!all && !norm_dim(L, a, r, &d)) return kg_ev_err();
      for (int i = 0; i < r; i++)
        if (!(is_one(&xn->shape.d[i]) && (all || i == d))) dims[k++] = xn->shape.d[i];
      return reshape_to(L, x, dims, k, false);
    }
    if (!strcmp(nm, "flatten")) {
      if (!int_arg(L, av[1], &a, "start_dim") || !int_arg(L, av[2], &b, "end_dim")) return kg_ev_err();
      if (r == 0) return reshape_to(L, x, (kg_dim[]){{KG_DIM_STATIC, 1}}, 1, false);
      if (!norm_dim(L, a, r, &d) || !norm_dim(L, b, r, &d2)) return kg_ev_err();
      if (d > d2) return fail(L, KG_E_ARG, "flatten() has invalid args: start_dim cannot come after end_dim");
      int k = 0;
      for (int i = 0; i < d; i++) dims[k++] = xn->shape.d[i];
      /* the flattened size: the product when static (0 elements included), the one symbol
       * among size-1 dims, else inferred */
      kg_dim fl = {KG_DIM_STATIC, 1};
      int nsym = 0;
      for (int i = d; i <= d2; i++) {
        if (xn->shape.d[i].kind == KG_DIM_STATIC) fl.v *= xn->shape.d[i].v;
        else nsym++;
      }
      if (nsym == 1 && fl.v == 1)
        for (int i = d; i <= d2; i++)
          if (xn->shape.d[i].kind != KG_DIM_STATIC) fl = xn->shape.d[i];
      if (nsym && !(nsym == 1 && fl.kind == KG_DIM_SYM)) fl = (kg_dim){KG_DIM_STATIC, -1};
      dims[k++] = fl;
      for (int i = d2 + 1; i < r; i++) dims[k++] = xn->shape.d[i];
      if (d == d2) return kg_ev_node(x);
      return reshape_to(L, x, dims, k, false);
    }
    if (!strcmp(nm, "unflatten")) {
      kg_dim parts[KG_MAX_RANK];
      if (!int_arg(L, av[1], &a, "the dim") || !norm_dim(L, a, r, &d)) return kg_ev_err();
      int np = sizes_arg(L, av[2], parts, KG_MAX_RANK);
      if (np < 0) return kg_ev_err();
      if (r - 1 + np > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "the result's rank %d exceeds kgen's %d", r - 1 + np, KG_MAX_RANK);
      int k = 0;
      for (int i = 0; i < d; i++) dims[k++] = xn->shape.d[i];
      for (int i = 0; i < np; i++) dims[k++] = parts[i];
      for (int i = d + 1; i < r; i++) dims[k++] = xn->shape.d[i];
      return reshape_to(L, x, dims, k, true);
    }
    break;
  }
  case KG_OP_PERMUTE: {
    if (!strcmp(nm, "transpose") || !strcmp(nm, "swapaxes") || !strcmp(nm, "swapdims")) {
      if (!int_arg(L, av[1], &a, "dim0") || !int_arg(L, av[2], &b, "dim1")) return kg_ev_err();
      return transpose(L, x, a, b);
    }
    if (!strcmp(nm, "t")) {
      if (r > 2) return fail(L, KG_E_SHAPE, "t() expects a tensor with <= 2 dimensions, but self is %dD", r);
      return r < 2 ? kg_ev_node(x) : transpose(L, x, 0, 1);
    }
    if (!strcmp(nm, "T")) {
      int perm[KG_MAX_RANK];
      for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
      return permute(L, x, perm);
    }
    if (!strcmp(nm, "mT")) {
      if (r < 2) return fail(L, KG_E_SHAPE, "tensor.mT is only supported on matrices or batches of matrices. Got %dD tensor.", r);
      return transpose(L, x, -2, -1);
    }
    if (!strcmp(nm, "permute") || !strcmp(nm, "movedim")) {
      int perm[KG_MAX_RANK], seen[KG_MAX_RANK] = {0};
      if (!strcmp(nm, "permute")) {
        if (av[1].kind != EV_ARRAY || (int)av[1].n != r)
          return fail(L, KG_E_SHAPE, "number of dims don't match in permute (the input has %d)", r);
        for (int i = 0; i < r; i++) {
          if (!int_arg(L, av[1].items[i], &a, "a dim") || !norm_dim(L, a, r, &perm[i])) return kg_ev_err();
          if (seen[perm[i]]++) return fail(L, KG_E_SHAPE, "repeated dim in permute");
        }
        return permute(L, x, perm);
      }
      /* movedim(src, dst): the moved dims at their destinations, the rest in order */
      int64_t src[KG_MAX_RANK], dst[KG_MAX_RANK];
      int ns = 0;
      if (av[1].kind == EV_ARRAY) {
        if (av[2].kind != EV_ARRAY || av[1].n != av[2].n || (int)av[1].n > r) return fail(L, KG_E_SHAPE, "Invalid source or destination dims");
        ns = (int)av[1].n;
        for (int i = 0; i < ns; i++)
          if (!int_arg(L, av[1].items[i], &src[i], "a dim") || !int_arg(L, av[2].items[i], &dst[i], "a dim")) return kg_ev_err();
      } else {
        ns = 1;
        if (!int_arg(L, av[1], &src[0], "source") || !int_arg(L, av[2], &dst[0], "destination")) return kg_ev_err();
      }
      int at_dst[KG_MAX_RANK], used[KG_MAX_RANK] = {0};
      for (int i = 0; i < r; i++) at_dst[i] = -1;
      for (int i = 0; i < ns; i++) {
        int s, t;
        if (!norm_dim(L, src[i], r, &s) || !norm_dim(L, dst[i], r, &t)) return kg_ev_err();
        if (at_dst[t] >= 0 || used[s]) return fail(L, KG_E_SHAPE, "repeated dim in movedim");
        at_dst[t] = s, used[s] = 1;
      }
      for (int i = 0, j = 0; i < r; i++) {
        if (at_dst[i] >= 0) { perm[i] = at_dst[i]; continue; }
        while (used[j]) j++;
        perm[i] = j++;
      }
      return permute(L, x, perm);
    }
    break;
  }
  case KG_OP_EXPAND: {
    if (!strcmp(nm, "dropout")) {
      /* dropout(x, p, training, inplace): the identity in eval mode */
      if (av[1].kind != EV_CONST || av[2].kind != EV_CONST)
        return fail(L, KG_E_UNSUPPORTED, "p and training must be constants when kgen compiles");
      double p = kg_cval_as_double(av[1].c);
      if (p < 0 || p > 1) return fail(L, KG_E_ARG, "dropout probability has to be between 0 and 1, but got %g", p);
      if (!av[2].c.i || p == 0) return kg_ev_node(x);
      return fail(L, KG_E_UNSUPPORTED, "dropout in training mode (p = %g) needs kgen's random generator, which is not there yet: compile the model in eval mode (model.eval())", p);
    }
    kg_shape sh;
    memset(&sh, 0, sizeof sh);
    int k;
    if (!strcmp(nm, "expand_as")) {
      uint32_t y;
      if (!tensor_arg(L, av[1], &y)) return kg_ev_err();
      sh = gnode(el, y)->shape;
      k = sh.rank;
    } else {
      k = sizes_arg(L, av[1], dims, KG_MAX_RANK);
      if (k < 0) return kg_ev_err();
      sh.rank = (uint8_t)k;
      for (int i = 0; i < k; i++) sh.d[i] = dims[i];
    }
    if (k < r) return fail(L, KG_E_SHAPE, "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", k, r);
    for (int i = 0; i < k; i++) {
      int j = i - (k - r);
      bool neg = sh.d[i].kind == KG_DIM_STATIC && sh.d[i].v == -1;
      if (neg && j < 0) return fail(L, KG_E_SHAPE, "-1 is not allowed in a leading, non-existing dimension %d", i);
      if (neg) { sh.d[i] = xn->shape.d[j]; continue; }
      if (j >= 0 && !is_one(&xn->shape.d[j]) && !dim_eq(&xn->shape.d[j], &sh.d[i]))
        return fail(L, KG_E_SHAPE, "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d", (long long)sh.d[i].v,
                    (long long)xn->shape.d[j].v, i);
    }
    if (kg_shape_equal(&sh, &xn->shape)) return kg_ev_node(x);
    return kg_ev_node(add(L, KG_OP_EXPAND, (kg_dtype)xn->dtype, &x, 1, &sh, 0, 0, 0));
  }
  case KG_OP_REPEAT: {
    int k = sizes_arg(L, av[1], dims, KG_MAX_RANK);
    if (k < 0) return kg_ev_err();
    if (k < r) return fail(L, KG_E_SHAPE, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    kg_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.rank = (uint8_t)k;
    for (int i = 0; i < k; i++) {
      int j = i - (k - r);
      if (dims[i].kind != KG_DIM_STATIC || dims[i].v < 0) return fail(L, KG_E_ARG, "repeats must be non-negative constants");
      kg_dim s = j >= 0 ? xn->shape.d[j] : (kg_dim){KG_DIM_STATIC, 1};
      if (dims[i].v == 1) sh.d[i] = s;
      else if (s.kind == KG_DIM_STATIC) sh.d[i] = (kg_dim){KG_DIM_STATIC, s.v * dims[i].v};
      else return fail(L, KG_E_UNSUPPORTED, "repeating a dim of symbolic size");
    }
    if (kg_shape_equal(&sh, &xn->shape)) return kg_ev_node(x);
    return kg_ev_node(add(L, KG_OP_REPEAT, (kg_dtype)xn->dtype, &x, 1, &sh, 0, 0, 0));
  }
  case KG_OP_FLIP: {
    int64_t mask = 0;
    int k = av[1].kind == EV_ARRAY ? (int)av[1].n : 1;
    for (int i = 0; i < k; i++) {
      if (!int_arg(L, av[1].kind == EV_ARRAY ? av[1].items[i] : av[1], &a, "a dim") || !norm_dim(L, a, r, &d)) return kg_ev_err();
      if ((mask >> d) & 1) return fail(L, KG_E_SHAPE, "dim %d appears multiple times in the list of dims", d);
      mask |= (int64_t)1 << d;
    }
    if (r == 0 || !mask) return kg_ev_node(x);
    return kg_ev_node(add(L, KG_OP_FLIP, (kg_dtype)xn->dtype, &x, 1, &xn->shape, mask, 0, 0));
  }
  case KG_OP_ROLL: {
    /* roll(shift, dims = null): the flattened tensor when dims is null; roll(shifts[]): dim 0;
     * roll(shifts[], dims[]) */
    int64_t sh[KG_MAX_RANK], dm[KG_MAX_RANK];
    int k = av[1].kind == EV_ARRAY ? (int)av[1].n : 1, kd = k;
    if (k > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "more than %d shifts", KG_MAX_RANK);
    for (int i = 0; i < k; i++)
      if (!int_arg(L, av[1].kind == EV_ARRAY ? av[1].items[i] : av[1], &sh[i], "a shift")) return kg_ev_err();
    bool flat = n == 3 && av[2].kind == EV_NULL;
    if (n == 2) kd = 1, dm[0] = 0;
    else if (!flat) {
      kd = av[2].kind == EV_ARRAY ? (int)av[2].n : 1;
      for (int i = 0; i < kd && i < KG_MAX_RANK; i++)
        if (!int_arg(L, av[2].kind == EV_ARRAY ? av[2].items[i] : av[2], &dm[i], "a dim")) return kg_ev_err();
    }
    if (!flat && kd != k) return fail(L, KG_E_SHAPE, "shifts and dimensions must align. shifts: %d, dims:%d", k, kd);
    uint32_t cur = x;
    if (flat) {
      kg_dim all = {KG_DIM_STATIC, -1};
      kg_ev f = reshape_to(L, x, &all, 1, false);
      if (f.kind == EV_ERR) return f;
      cur = f.id, dm[0] = 0;
    }
    for (int i = 0; i < k; i++) {
      int rr = gnode(el, cur)->shape.rank;
      if (!norm_dim(L, dm[i], rr, &d)) return kg_ev_err();
      int64_t size = static_size(L, cur, d, what);
      if (size < 0) return kg_ev_err();
      int64_t s = size ? ((sh[i] % size) + size) % size : 0;
      if (s) cur = add(L, KG_OP_ROLL, (kg_dtype)xn->dtype, &cur, 1, &gnode(el, cur)->shape, d, s, 0);
    }
    return flat ? reshape_to(L, cur, xn->shape.d, r, false) : kg_ev_node(cur);
  }
  case KG_OP_SLICE: {
    if (!strcmp(nm, "narrow") || !strcmp(nm, "slice")) {
      bool sl = !strcmp(nm, "slice");
      if (!int_arg(L, av[1], &a, "the dim") || !norm_dim(L, a, r, &d)) return kg_ev_err();
      if (!int_arg(L, av[2], &b, "start") || !int_arg(L, av[3], &c, sl ? "end" : "length")) return kg_ev_err();
      int64_t step = 1;
      if (sl && !int_arg(L, av[4], &step, "step")) return kg_ev_err();
      int64_t size = static_size(L, x, d, what);
      if (size < 0) return kg_ev_err();
      if (sl) { /* Python slice semantics: clamped */
        if (step <= 0) return fail(L, KG_E_ARG, "slice step must be positive");
        int64_t s = b < 0 ? b + size : b, e = c < 0 ? c + size : c;
        s = s < 0 ? 0 : s > size ? size : s, e = e < s ? s : e > size ? size : e;
        return slice(L, x, d, s, (e - s + step - 1) / step, step);
      }
      if (b < -size || b > size) return fail(L, KG_E_SHAPE, "start out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-size, (long long)size, (long long)b);
      int64_t s = b < 0 ? b + size : b;
      if (c < 0 || s + c > size) return fail(L, KG_E_SHAPE, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)s, (long long)c, (long long)size);
      return slice(L, x, d, s, c, 1);
    }
    /* chunk(chunks, dim), split(size | sizes, dim), tensor_split(sections | indices, dim) */
    int64_t len[64];
    int k = 0;
    int64_t dim = 0;
    if (n >= 3 && !int_arg(L, av[2], &dim, "the dim")) return kg_ev_err();
    if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
    int64_t size = static_size(L, x, d, what);
    if (size < 0) return kg_ev_err();
    if (!strcmp(nm, "chunk")) {
      if (!int_arg(L, av[1], &a, "chunks")) return kg_ev_err();
      if (a <= 0) return fail(L, KG_E_ARG, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)a);
      int64_t each = (size + a - 1) / a;
      if (each == 0) each = 1, size = size ? size : 0;
      for (int64_t s = 0; s < size && k < 64; s += each) len[k++] = s + each > size ? size - s : each;
      if (size == 0) len[k++] = 0;
    } else if (!strcmp(nm, "split")) {
      if (av[1].kind == EV_ARRAY) {
        int64_t sum = 0;
        for (uint32_t i = 0; i < av[1].n && k < 64; i++) {
          if (!int_arg(L, av[1].items[i], &len[k], "a split size")) return kg_ev_err();
          sum += len[k++];
        }
        if (sum != size) return fail(L, KG_E_SHAPE, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got split_sizes with sum %lld", (long long)size, d, (long long)sum);
      } else {
        if (!int_arg(L, av[1], &a, "split_size")) return kg_ev_err();
        if (a <= 0) return fail(L, KG_E_ARG, "split expects split_size be non-negative, but got split_size=%lld", (long long)a);
        for (int64_t s = 0; s < size && k < 64; s += a) len[k++] = s + a > size ? size - s : a;
        if (size == 0) len[k++] = 0;
      }
    } else { /* tensor_split */
      if (av[1].kind == EV_ARRAY) {
        int64_t prev = 0;
        for (uint32_t i = 0; i <= av[1].n && k < 64; i++) {
          int64_t idx = size;
          if (i < av[1].n && !int_arg(L, av[1].items[i], &idx, "an index")) return kg_ev_err();
          if (idx < 0) idx += size;
          idx = idx < prev ? prev : idx > size ? size : idx;
          len[k++] = idx - prev, prev = idx;
        }
      } else {
        if (!int_arg(L, av[1], &a, "sections")) return kg_ev_err();
        if (a <= 0) return fail(L, KG_E_ARG, "number of sections must be larger than 0, got %lld", (long long)a);
        for (int64_t i = 0; i < a && k < 64; i++) len[k++] = size / a + (i < size % a ? 1 : 0);
      }
    }
    if (k >= 64) return fail(L, KG_E_LIMIT, "more than 64 pieces");
    return split_at(L, x, d, len, k);
  }
  case KG_OP_SELECT: {
    int64_t dim = 0;
    if (!strcmp(nm, "unbind")) {
      if (n >= 2 && !int_arg(L, av[1], &dim, "the dim")) return kg_ev_err();
      if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
      int64_t size = static_size(L, x, d, what);
      if (size < 0) return kg_ev_err();
      if (size > 64) return fail(L, KG_E_LIMIT, "unbind() into %lld tensors: kgen unbinds at most 64", (long long)size);
      kg_ev items[64];
      for (int64_t i = 0; i < size; i++) items[i] = select_at(L, x, d, i);
      return array_of(L, items, (int)size);
    }
    if (!int_arg(L, av[1], &dim, "the dim") || !norm_dim(L, dim, r, &d)) return kg_ev_err();
    if (!int_arg(L, av[2], &a, "the index")) return kg_ev_err();
    int64_t size = static_size(L, x, d, what);
    if (size < 0) return kg_ev_err();
    if (a < -size || a >= size) {
      char sz[160];
      shape_text(L, &xn->shape, sz, sizeof sz);
      return fail(L, KG_E_SHAPE, "index %lld out of range for tensor of size %s at dimension %d", (long long)a, sz, d);
    }
    return select_at(L, x, d, a < 0 ? a + size : a);
  }
  case KG_OP_CAT: {
    uint32_t in[64];
    int k = tensor_list(L, av[0], in, 64);
    if (k < 0) return kg_ev_err();
    int64_t dim = 0;
    if (n >= 2 && !int_arg(L, av[1], &dim, "the dim")) return kg_ev_err();
    if (!strcmp(nm, "stack")) {
      if (k == 0) return fail(L, KG_E_ARG, "stack expects a non-empty TensorList");
      kg_shape first = gnode(el, in[0])->shape;
      int dd;
      if (!norm_dim(L, dim, first.rank + 1, &dd)) return kg_ev_err();
      for (int i = 0; i < k; i++) {
        if (!kg_shape_equal(&gnode(el, in[i])->shape, &first))
          return fail(L, KG_E_SHAPE, "stack expects each tensor to be equal size (tensor %d differs from tensor 0)", i);
        kg_ev u = unsqueeze(L, in[i], dd);
        if (u.kind == EV_ERR) return u;
        in[i] = u.id;
      }
      return cat(L, in, k, dd);
    }
    if (!strcmp(nm, "hstack") || !strcmp(nm, "vstack")) {
      bool h = !strcmp(nm, "hstack");
      for (int i = 0; i < k; i++) { /* vstack: atleast_2d; hstack: 1-D tensors join along 0 */
        const kg_gnode *o = gnode(el, in[i]);
        if (!h && o->shape.rank < 2) {
          kg_dim nd[2] = {{KG_DIM_STATIC, 1}, o->shape.rank ? o->shape.d[0] : (kg_dim){KG_DIM_STATIC, 1}};
          kg_ev u = reshape_to(L, in[i], nd, 2, false);
          if (u.kind == EV_ERR) return u;
          in[i] = u.id;
        } else if (h && o->shape.rank == 0) {
          kg_ev u = unsqueeze(L, in[i], 0);
          if (u.kind == EV_ERR) return u;
          in[i] = u.id;
        }
      }
      return cat(L, in, k, h && gnode(el, in[0])->shape.rank == 1 ? 0 : h ? 1 : 0);
    }
    return cat(L, in, k, dim);
  }
  case KG_OP_INDEX: {
    uint32_t idx;
    if (!int_arg(L, av[1], &a, "the dim") || !norm_dim(L, a, r, &d) || !tensor_arg(L, av[2], &idx)) return kg_ev_err();
    const kg_gnode *in = gnode(el, idx);
    if (kg_dtype_is_float((kg_dtype)in->dtype) || in->dtype == KG_BOOL)
      return fail(L, KG_E_TYPE, "index_select(): Expected dtype int32/int64 for index, got %s", kg_dtype_name((kg_dtype)in->dtype));
    if (in->shape.rank > 1) return fail(L, KG_E_SHAPE, "Index is supposed to be a vector");
    kg_shape sh = xn->shape;
    if (r == 0) return fail(L, KG_E_SHAPE, "index_select() of a 0-dim tensor is not supported");
    sh.d[d] = in->shape.rank ? in->shape.d[0] : (kg_dim){KG_DIM_STATIC, 1};
    uint32_t ops[2] = {x, idx};
    return kg_ev_node(add(L, KG_OP_INDEX, (kg_dtype)xn->dtype, ops, 2, &sh, d, 0, 0));
  }
  case KG_OP_GATHER: {
    uint32_t idx;
    int64_t dim = 0;
    if (!strcmp(nm, "gather")) {
      if (!int_arg(L, av[1], &dim, "the dim") || !tensor_arg(L, av[2], &idx)) return kg_ev_err();
    } else {
      if (!tensor_arg(L, av[1], &idx)) return kg_ev_err();
      if (n < 3) return fail(L, KG_E_UNSUPPORTED, "take_along_dim without a dim (over the flattened input) is not supported yet");
      if (!int_arg(L, av[2], &dim, "the dim")) return kg_ev_err();
    }
    if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
    const kg_gnode *in = gnode(el, idx);
    if (in->dtype != KG_I64) return fail(L, KG_E_TYPE, "gather(): Expected dtype int64 for index, got %s", kg_dtype_name((kg_dtype)in->dtype));
    if (in->shape.rank != r) return fail(L, KG_E_SHAPE, "Index tensor must have the same number of dimensions as input tensor");
    kg_shape sh = in->shape;
    if (!strcmp(nm, "take_along_dim")) { /* broadcast the other dims */
      for (int j = 0; j < r; j++)
        if (j != d && is_one(&sh.d[j])) sh.d[j] = xn->shape.d[j];
    }
    for (int j = 0; j < r; j++)
      if (j != d && sh.d[j].kind == KG_DIM_STATIC && xn->shape.d[j].kind == KG_DIM_STATIC && sh.d[j].v > xn->shape.d[j].v)
        return fail(L, KG_E_SHAPE, "Size does not match at dimension %d expected index %s to be smaller than self apart from dimension %d", j, "shape", d);
    uint32_t ops[2] = {x, idx};
    if (!kg_shape_equal(&sh, &in->shape)) {
      ops[1] = add(L, KG_OP_EXPAND, KG_I64, &idx, 1, &sh, 0, 0, 0);
      kg_shape xs = xn->shape;
      for (int j = 0; j < r; j++)
        if (j != d && is_one(&xs.d[j])) xs.d[j] = sh.d[j];
      if (!kg_shape_equal(&xs, &xn->shape)) ops[0] = add(L, KG_OP_EXPAND, (kg_dtype)xn->dtype, &x, 1, &xs, 0, 0, 0);
    }
    return kg_ev_node(add(L, KG_OP_GATHER, (kg_dtype)xn->dtype, ops, 2, &sh, d, 0, 0));
  }
  case KG_OP_WHERE: { /* masked_fill(mask, value) = where(mask, value, x), in x's dtype */
    uint32_t mk;
    if (!tensor_arg(L, av[1], &mk)) return kg_ev_err();
    if (gnode(el, mk)->dtype != KG_BOOL) return fail(L, KG_E_TYPE, "masked_fill_ only supports boolean masks, but got mask with dtype %s", kg_dtype_name((kg_dtype)gnode(el, mk)->dtype));
    kg_ev v = kg_elab_tensor_op_ev(el, at, KG_OP_CAST, &av[2], 1, NULL, NULL, (kg_dtype)xn->dtype);
    if (v.kind == EV_ERR) return v;
    kg_ev q[3] = {kg_ev_node(mk), kg_ev_node(v.id), kg_ev_node(x)};
    kg_ev w = kg_elab_tensor_op_ev(el, at, KG_OP_WHERE, q, 3, NULL, NULL, KG_DT_NONE);
    if (w.kind == EV_ERR) return w;
    if (!kg_shape_equal(&gnode(el, w.id)->shape, &xn->shape))
      return fail(L, KG_E_SHAPE, "the mask must broadcast to the input's shape (masked_fill does not change the shape)");
    return w;
  }
  case KG_OP_TRIL: {
    if (r < 2) return fail(L, KG_E_SHAPE, "input tensor must have at least 2 dimensions");
    a = 0;
    if (n >= 2 && !int_arg(L, av[1], &a, "diagonal")) return kg_ev_err();
    return kg_ev_node(add(L, KG_OP_TRIL, (kg_dtype)xn->dtype, &x, 1, &xn->shape, a, !strcmp(nm, "triu"), 0));
  }
  case KG_OP_FILL: {
    /* zeros / ones / empty (sizes..., dtype, device, requires_grad, names), full (sizes..., value, ...) */
    int k = 0, i = 0;
    for (; i < n && (spec[i] == 'a' || spec[i] == 'i'); i++) {
      if (spec[i] == 'a') {
        int q = sizes_arg(L, av[i], dims + k, KG_MAX_RANK - k);
        if (q < 0) return kg_ev_err();
        k += q;
      } else {
        if (k >= KG_MAX_RANK) return fail(L, KG_E_LIMIT, "rank above %d", KG_MAX_RANK);
        if (!size_arg(L, av[i], &dims[k++])) return kg_ev_err();
      }
    }
    bool full = !strcmp(nm, "full");
    kg_ev value = full ? av[i++] : kg_ev_const(kg_cval_int(KG_I64, !strcmp(nm, "ones")));
    kg_dtype dt = KG_F32;
    if (full) { /* PyTorch: the value's kind gives the dtype (bool, int64, float32) */
      kg_dtype vt = kg_ev_dtype(el, value);
      dt = vt == KG_BOOL ? KG_BOOL : kg_dtype_is_float(vt) ? KG_F32 : KG_I64;
    }
    if (i < n && av[i].kind == EV_DTYPE) dt = av[i].dt;
    else if (i < n && av[i].kind != EV_NULL) return fail(L, KG_E_UNSUPPORTED, "the dtype must be a torch dtype written in the code");
    return fill(L, dims, k, value, dt);
  }
  case KG_OP_EYE: {
    if (!size_arg(L, av[0], &dims[0]) || !size_arg(L, av[1], &dims[1])) return kg_ev_err();
    if (dims[1].kind == KG_DIM_STATIC && dims[1].v == -1) dims[1] = dims[0];
    kg_dtype dt = av[2].kind == EV_DTYPE ? av[2].dt : KG_F32;
    kg_shape sh = {2, {dims[0], dims[1]}};
    return kg_ev_node(add(L, KG_OP_EYE, dt, NULL, 0, &sh, 0, 0, 0));
  }
  case KG_OP_ARANGE: {
    /* arange(stop) / arange(start, stop) / arange(start, stop, step), then dtype */
    int ns = 0;
    while (ns < n && spec[ns] == 's') ns++;
    double v[3] = {0, 0, 1};
    bool fl = false;
    for (int j = 0; j < ns; j++) {
      if (av[j].kind != EV_CONST) return fail(L, KG_E_UNSUPPORTED, "start, end and step must be constants when kgen compiles");
      fl |= kg_dtype_is_float(av[j].c.dt);
      v[ns == 1 ? 1 : j] = kg_cval_as_double(av[j].c);
    }
    if (v[2] == 0) return fail(L, KG_E_ARG, "step must be nonzero");
    if ((v[2] > 0 && v[1] < v[0]) || (v[2] < 0 && v[1] > v[0])) return fail(L, KG_E_ARG, "upper bound and larger bound inconsistent with step sign");
    kg_dtype dt = fl ? KG_F32 : KG_I64;
    if (ns < n && av[ns].kind == EV_DTYPE) dt = av[ns].dt;
    double cnt = (v[1] - v[0]) / v[2];
    int64_t len = (int64_t)cnt;
    if ((double)len < cnt) len++;
    kg_shape sh = {1, {{KG_DIM_STATIC, len}}};
    kg_gnode g;
    memset(&g, 0, sizeof g);
    g.op = KG_OP_ARANGE, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.shape = sh;
    g.fa[0] = v[0], g.fa[1] = v[2], g.fa[2] = v[1];
    return kg_ev_node(kg_elab_add_node(el, at, &g));
  }
  default: break;
  }
  return err(el, at, KG_E_INTERNAL, "unhandled layout member %s", row->key);
}
