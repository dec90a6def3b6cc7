/* frontend/layout.c — the layout ops' shape rules, shared by the member handler
 * (layout_members.c): reshape with -1 and symbols, and view()'s stride check (PyTorch's
 * computeStride over the chain of views that made the operand); permute / transpose; slices,
 * selects and splits; cat; unsqueeze; fill; PyTorch's __getitem__ over TensorIndex values.
 *
 * Each builds one of ops.def's layout ops (or a few), with PyTorch's shape rules and error
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

#include "layout_int.h"

kg_ev fail(lay *L, kg_diag_code code, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return err(L->el, L->at, code, "%s: %s", L->what, buf);
}

bool const_i(kg_ev v, int64_t *out) {
  if (v.kind != EV_CONST || kg_dtype_is_float(v.c.dt)) return false;
  *out = v.c.i;
  return true;
}

bool int_arg(lay *L, kg_ev v, int64_t *out, const char *name) {
  if (const_i(v, out)) return true;
  fail(L, KG_E_UNSUPPORTED, "%s must be a constant integer when kgen compiles", name);
  return false;
}

/* a scalar node as a product of sizes: coeff · Π symbols (a tensor's size read with
 * x.shape.[d], integer constants, products and integer casts of them) */
static bool size_product(lay *L, uint32_t id, int64_t *coeff, uint32_t *f, int *n, int depth) {
  const kg_plan *p = L->el->plan;
  for (uint32_t i = 0; p && i < p->ops.n; i++) {
    const kg_pop *o = &p->ops.v[i];
    if (o->kind != KG_P_SIZE || o->a != id) continue;
    kg_dim d = gnode(L->el, o->b)->shape.d[o->dim];
    if (d.kind == KG_DIM_STATIC) {
      *coeff *= d.v;
      return true;
    }
    if (*n >= KG_MAX_RANK) return false;
    f[(*n)++] = (uint32_t)d.v;
    return true;
  }
  const kg_gnode *g = gnode(L->el, id);
  if (depth > 16 || g->vkind != KG_V_SCALAR || kg_dtype_is_float((kg_dtype)g->dtype)) return false;
  switch (g->op) {
  case KG_OP_CONST: *coeff *= g->ia[0]; return true;
  case KG_OP_CAST: return size_product(L, g->in[0], coeff, f, n, depth + 1);
  case KG_OP_MUL: {
    uint32_t a = g->in[0], b = g->in[1]; /* read before recursing: nothing is added, but keep the habit */
    return size_product(L, a, coeff, f, n, depth + 1) && size_product(L, b, coeff, f, n, depth + 1);
  }
  default: return false;
  }
}

/* a size argument: a constant, a size read from a symbolic dim (its symbol), or a product of
 * them (x.view(b * t, c): a derived symbol, ir.h kg_symdef) */
bool size_arg(lay *L, kg_ev v, kg_dim *out) {
  int64_t c;
  if (const_i(v, &c)) {
    *out = (kg_dim){KG_DIM_STATIC, c};
    return true;
  }
  if (v.kind == EV_NODE) {
    int64_t coeff = 1;
    uint32_t f[KG_MAX_RANK];
    int n = 0;
    if (size_product(L, v.id, &coeff, f, &n, 0)) {
      *out = kg_graph_sym_product(L->el->g, coeff, f, n);
      return true;
    }
  }
  fail(L, KG_E_UNSUPPORTED, "a size must be a constant, a tensor's size or a product of them when kgen compiles (the result's shape is fixed then)");
  return false;
}

/* an Int64[] (or Size) argument, or a single integer */
int sizes_arg(lay *L, kg_ev v, kg_dim *out, int max) {
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

bool norm_dim(lay *L, int64_t d, int rank, int *out) {
  int r = rank ? rank : 1;
  if (d < -r || d >= r) {
    fail(L, KG_E_SHAPE, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -r, r - 1, (long long)d);
    return false;
  }
  *out = (int)(d < 0 ? d + r : d);
  return true;
}

bool tensor_arg(lay *L, kg_ev v, uint32_t *id) {
  if (!kg_ev_is_tensor(L->el, v)) {
    fail(L, KG_E_TYPE, "needs a tensor");
    return false;
  }
  *id = v.id;
  return true;
}

uint32_t add(lay *L, kg_op op, kg_dtype dt, const uint32_t *in, int n, const kg_shape *sh, int64_t a0, int64_t a1, int64_t a2) {
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)n;
  for (int i = 0; i < n; i++) g.in[i] = in[i];
  g.shape = *sh;
  g.ia[0] = a0, g.ia[1] = a1, g.ia[2] = a2;
  return kg_elab_add_node(L->el, L->at, &g);
}

void shape_text(lay *L, const kg_shape *s, char *buf, size_t cap) {
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
    if (d[i].kind == KG_DIM_STATIC) {
      m->stat *= d[i].v;
      continue;
    }
    const kg_symdef *sd = kg_graph_symdef(L->el->g, (uint32_t)d[i].v); /* a product: its base factors */
    if (!sd) {
      m->sym[d[i].v]++;
      continue;
    }
    m->stat *= sd->coeff;
    for (int j = 0; j < sd->n; j++) m->sym[sd->f[j]]++;
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
kg_ev reshape_to(lay *L, uint32_t x, const kg_dim *want, int n, bool viewing) {
  const kg_gnode xcopy = *gnode(L->el, x), *xn = &xcopy; /* a copy: adding nodes moves the array */
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
  /* the sizes left over: the input's symbols (as base factors) not in the known dims */
  bool syms_fit = true, same = true;
  uint32_t rest[KG_MAX_RANK];
  int nrest = 0;
  for (uint32_t s = 0; s < L->el->g->syms.n; s++) {
    if (out.sym[s] > in.sym[s]) syms_fit = false;
    if (out.sym[s] != in.sym[s]) same = false;
    for (uint32_t k = out.sym[s]; k < in.sym[s] && nrest < KG_MAX_RANK; k++) rest[nrest++] = s;
  }
  if (infer >= 0) {
    if (out.stat == 0) {
      shape_text(L, &sh, a, sizeof a);
      return fail(L, KG_E_SHAPE, "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", a);
    }
    if (syms_fit && in.stat % out.stat == 0) {
      /* a constant, one symbol, or a product of sizes (x.view(-1, 4) of [N, 3, 4]: N*3) */
      sh.d[infer] = kg_graph_sym_product(L->el->g, in.stat / out.stat, rest, nrest);
    } else {
      shape_text(L, &sh, a, sizeof a), shape_text(L, &xn->shape, b, sizeof b);
      return fail(L, KG_E_SHAPE, "shape %s is invalid for input of shape %s%s", a, b,
                  syms_fit ? "" : " (the sizes the other dims leave over must be a whole product of the input's sizes)");
    }
  } else if (!same || in.stat != out.stat) {
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

kg_ev permute(lay *L, uint32_t x, const int *perm) {
  const kg_gnode xcopy = *gnode(L->el, x), *xn = &xcopy; /* a copy: adding nodes moves the array */
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

kg_ev transpose(lay *L, uint32_t x, int64_t d0, int64_t d1) {
  int r = gnode(L->el, x)->shape.rank, a, b, perm[KG_MAX_RANK];
  if (r == 0 && (d0 == 0 || d0 == -1) && (d1 == 0 || d1 == -1)) return kg_ev_node(x);
  if (!norm_dim(L, d0, r, &a) || !norm_dim(L, d1, r, &b)) return kg_ev_err();
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[a] = b, perm[b] = a;
  return permute(L, x, perm);
}

/* ---- slices ---- */

kg_ev slice(lay *L, uint32_t x, int d, int64_t start, int64_t len, int64_t step) {
  const kg_gnode xcopy = *gnode(L->el, x), *xn = &xcopy; /* a copy: adding nodes moves the array */
  kg_shape sh = xn->shape;
  sh.d[d] = (kg_dim){KG_DIM_STATIC, len};
  if (start == 0 && step == 1 && dim_eq(&sh.d[d], &xn->shape.d[d])) return kg_ev_node(x);
  return kg_ev_node(add(L, KG_OP_SLICE, (kg_dtype)xn->dtype, &x, 1, &sh, d, start, step));
}

kg_ev select_at(lay *L, uint32_t x, int d, int64_t i) {
  const kg_gnode xcopy = *gnode(L->el, x), *xn = &xcopy; /* a copy: adding nodes moves the array */
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  for (int j = 0; j < xn->shape.rank; j++)
    if (j != d) sh.d[sh.rank++] = xn->shape.d[j];
  return kg_ev_node(add(L, KG_OP_SELECT, (kg_dtype)xn->dtype, &x, 1, &sh, d, i, 0));
}

int64_t static_size(lay *L, uint32_t x, int d, const char *why) {
  const kg_dim *dm = &gnode(L->el, x)->shape.d[d];
  if (dm->kind == KG_DIM_STATIC) return dm->v;
  fail(L, KG_E_UNSUPPORTED, "dim %d has a symbolic size; %s needs it fixed when kgen compiles", d, why);
  return -1;
}

kg_ev array_of(lay *L, const kg_ev *items, int n) {
  kg_ev a = kg_ev_make(EV_ARRAY);
  a.n = (uint32_t)n;
  a.items = kg_arena_alloc(L->el->arena, ((size_t)n + 1) * sizeof *a.items);
  memcpy(a.items, items, (size_t)n * sizeof *items);
  return a;
}

/* pieces of dim d at the given boundaries (PyTorch clamps them into [0, size]) */
kg_ev split_at(lay *L, uint32_t x, int d, const int64_t *len, int n) {
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

kg_ev cat(lay *L, const uint32_t *in, int n, int64_t dim) {
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

int tensor_list(lay *L, kg_ev v, uint32_t *out, int max) {
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

kg_ev unsqueeze(lay *L, uint32_t x, int64_t dim) {
  const kg_gnode xcopy = *gnode(L->el, x), *xn = &xcopy; /* a copy: adding nodes moves the array */
  int r = xn->shape.rank, d;
  if (r >= KG_MAX_RANK) return fail(L, KG_E_LIMIT, "a tensor of rank %d: kgen supports rank %d", r, KG_MAX_RANK);
  if (!norm_dim(L, dim, r + 1, &d)) return kg_ev_err();
  kg_dim nd[KG_MAX_RANK];
  for (int i = 0, j = 0; i <= r; i++) nd[i] = i == d ? (kg_dim){KG_DIM_STATIC, 1} : xn->shape.d[j++];
  return reshape_to(L, x, nd, r + 1, false);
}

/* ---- factories ---- */

kg_ev fill(lay *L, const kg_dim *sz, int n, kg_ev value, kg_dtype dt) {
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


kg_ev tindex(lay *L, int kind, const kg_ev *ops, int n) {
  kg_ev v = kg_ev_make(EV_TINDEX);
  v.c.i = kind;
  v.n = (uint32_t)n;
  v.items = kg_arena_alloc(L->el->arena, ((size_t)n + 1) * sizeof *v.items);
  if (n) memcpy(v.items, ops, (size_t)n * sizeof *ops);
  return v;
}

/* x[..., t1, ..., t2, ...] with several integer tensors, once the basic indices are applied
 * (PyTorch: applySlicing, then index): the tensors broadcast to B; the indexed dims (pos[],
 * static sizes) move together — where they are when they are adjacent, else to the front, as
 * PyTorch places B — and merge into one dim read at the linear index Σ (t_i mod S_i)·Π_{j>i} S_j
 * (mod: a negative index counts from the end), an INDEX over the merged dim. So x[t1, t2] is one
 * gather, index arithmetic in the consumer's kernel like x[t]. */
static kg_ev gather_many(lay *L, uint32_t x, const int *pos, const uint32_t *idx, int nt) {
  const kg_gnode *xn = gnode(L->el, x);
  int r = xn->shape.rank;
  bool adjacent = true;
  for (int i = 1; i < nt; i++) adjacent &= pos[i] == pos[i - 1] + 1;
  int q = adjacent ? pos[0] : 0, perm[KG_MAX_RANK], np = 0;
  uint8_t taken[KG_MAX_RANK] = {0};
  for (int i = 0; i < nt; i++) taken[pos[i]] = 1;
  for (int d = 0; d < q; d++) perm[np++] = d;
  for (int i = 0; i < nt; i++) perm[np++] = pos[i];
  for (int d = q; d < r; d++)
    if (!taken[d]) perm[np++] = d;
  int64_t S[KG_MAX_RANK], total = 1;
  for (int i = 0; i < nt; i++) {
    S[i] = static_size(L, x, pos[i], "indexing with several tensors");
    if (S[i] < 0) return kg_ev_err();
    total *= S[i];
  }
  /* the linear index, int64, broadcast over the index tensors */
  kg_ev lin = kg_ev_err();
  for (int i = 0; i < nt; i++) {
    kg_ev t = kg_ev_node(idx[i]);
    if (gnode(L->el, idx[i])->dtype != KG_I64) t = kg_elab_tensor_op(L->el, L->at, KG_OP_CAST, &idx[i], 1, NULL, NULL, KG_I64);
    kg_ev m[2] = {t, kg_ev_const(kg_cval_int(KG_I64, S[i] ? S[i] : 1))};
    t = kg_elab_tensor_op_ev(L->el, L->at, KG_OP_REM, m, 2, NULL, NULL, KG_DT_NONE);
    if (t.kind == EV_ERR) return t;
    if (i == 0) lin = t;
    else {
      kg_ev a[2] = {lin, kg_ev_const(kg_cval_int(KG_I64, S[i]))};
      kg_ev sc = kg_elab_tensor_op_ev(L->el, L->at, KG_OP_MUL, a, 2, NULL, NULL, KG_DT_NONE);
      kg_ev b[2] = {sc, t};
      lin = sc.kind == EV_ERR ? sc : kg_elab_tensor_op_ev(L->el, L->at, KG_OP_ADD, b, 2, NULL, NULL, KG_DT_NONE);
    }
    if (lin.kind == EV_ERR) return lin; /* shapes that do not broadcast: PyTorch's message */
  }
  kg_ev p = permute(L, x, perm);
  if (p.kind == EV_ERR) return p;
  const kg_gnode *pn = gnode(L->el, p.id);
  kg_dim want[KG_MAX_RANK];
  int nw = 0;
  for (int d = 0; d < q; d++) want[nw++] = pn->shape.d[d];
  want[nw++] = (kg_dim){KG_DIM_STATIC, total};
  for (int d = q + nt; d < r; d++) want[nw++] = pn->shape.d[d];
  kg_ev f = reshape_to(L, p.id, want, nw, false);
  if (f.kind == EV_ERR) return f;
  const kg_gnode *fn = gnode(L->el, f.id), *ln = gnode(L->el, lin.id);
  if (fn->shape.rank - 1 + ln->shape.rank > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "the result's rank exceeds kgen's %d", KG_MAX_RANK);
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  for (int j = 0; j < q; j++) sh.d[sh.rank++] = fn->shape.d[j];
  for (int j = 0; j < ln->shape.rank; j++) sh.d[sh.rank++] = ln->shape.d[j];
  for (int j = q + 1; j < fn->shape.rank; j++) sh.d[sh.rank++] = fn->shape.d[j];
  uint32_t ops[2] = {f.id, lin.id};
  return kg_ev_node(add(L, KG_OP_INDEX, (kg_dtype)fn->dtype, ops, 2, &sh, q, 1, 0));
}

/* PyTorch's __getitem__ with basic indices (integers, slices, None, ..., :) and integer tensors
 * (advanced indexing: one tensor's dims replace the indexed dim; several: gather_many) */
kg_ev getitem(lay *L, uint32_t x, const kg_ev *ix, int ni) {
  const kg_gnode xcopy = *gnode(L->el, x), *xn = &xcopy; /* a copy: adding nodes moves the array */
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
    if (k == KG_TI_BOOL)
      return fail(L, KG_E_UNSUPPORTED, "a bool TensorIndex (TensorIndex.Bool: x.[true] adds a dim of 1 or 0 elements, a data-dependent shape when not constant) is not supported; use unsqueeze");
  }
  if (consuming > xn->shape.rank) return fail(L, KG_E_SHAPE, "too many indices for tensor of dimension %d", xn->shape.rank);
  uint32_t cur = x;
  int pos = 0;
  int tpos[KG_MAX_RANK], nt = 0; /* several tensors: their dims, gathered at the end */
  uint32_t tidx[KG_MAX_RANK];
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
      if (tensors > 1 && !(in->dtype == KG_BOOL || in->dtype == KG_U8 || kg_dtype_is_float((kg_dtype)in->dtype))) {
        /* PyTorch's advanced indexing with several tensors, after the basic indices (a mask or a
         * float index gets the one-tensor messages below) */
        if (pos >= cn->shape.rank) return fail(L, KG_E_SHAPE, "too many indices for tensor of dimension %d", xn->shape.rank);
        tpos[nt] = pos, tidx[nt++] = idx;
        pos++;
        continue;
      }
      if (in->dtype == KG_BOOL || in->dtype == KG_U8)
        return fail(L, KG_E_UNSUPPORTED,
                    "indexing with a mask selects as many elements as the mask has true values, a data-dependent shape kgen's compiled kernels "
                    "cannot have; keep the shape with torch.where(mask, x, other) or x.masked_fill(...)");
      if (kg_dtype_is_float((kg_dtype)in->dtype)) return fail(L, KG_E_TYPE, "tensors used as indices must be long, int, byte or bool tensors");
      if (cn->shape.rank - 1 + in->shape.rank > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "the result's rank exceeds kgen's %d", KG_MAX_RANK);
      kg_shape sh;
      memset(&sh, 0, sizeof sh);
      for (int j = 0; j < pos; j++) sh.d[sh.rank++] = cn->shape.d[j];
      for (int j = 0; j < in->shape.rank; j++) sh.d[sh.rank++] = in->shape.d[j];
      for (int j = pos + 1; j < cn->shape.rank; j++) sh.d[sh.rank++] = cn->shape.d[j];
      uint32_t ops[2] = {cur, idx};
      int irank = in->shape.rank; /* read before the node is added (the array may move) */
      r = kg_ev_node(add(L, KG_OP_INDEX, (kg_dtype)cn->dtype, ops, 2, &sh, pos, 1, 0));
      pos += irank;
      break;
    }
    default: return fail(L, KG_E_INTERNAL, "unknown TensorIndex kind %d", k);
    }
    if (r.kind == EV_ERR) return r;
    cur = r.id;
  }
  return nt ? gather_many(L, cur, tpos, tidx, nt) : kg_ev_node(cur);
}

