/* passes/lower.c — one fusion group → one kernel: the pointwise schedule (below)
 * and the scan schedule (lower_scan), and the machinery that evaluates a group's DAG
 * inline at a coordinate (kg_lw_val, sources, offsets), which the reduction
 * schedules (lower_reduce.c) share through lower_int.h.
 *
 * The pointwise schedule:
 *
 * Each thread owns a flattened index of the group's iteration space (int32 when
 * every extent and offset fits, else int64). For every output it evaluates the
 * producer DAG inline: loads of inputs, one local per node (in node order, so
 * shared subexpressions are computed once), then stores. Two layouts:
 *
 *   LINEAR  every operand is contiguous with the space's shape, so its offset is
 *           the index itself. With vec > 1 a thread owns vec consecutive
 *           elements and moves them with one aligned vector access per operand
 *           (16 bytes for the widest dtype: float4-class loads on the GPU); the
 *           ragged end of the array falls back to a scalar loop.
 *   STRIDED the index is split into coordinates (div/mod by the sizes) and each
 *           operand's offset is Σ coord·stride; a broadcast dim has stride 0 —
 *           statically omitted when the shapes say so, else passed by the host.
 *
 * Map functions are inlined (their statements copied with fresh locals).
 *
 *   y = tanh(x + b), x:[N,768], b:[768] (STRIDED):
 *     i = ctaid.x*ntid.x + tid.x; if (i < n) { c1 = i % size1; c0 = i / size1;
 *       t0 = x[c0*s_x0 + c1*s_x1]; t1 = b[c1*s_b1]; t2 = ADD(t0, t1); t3 = TANH(t2);
 *       out0[c0*s_o0 + c1*s_o1] = t3 }
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

#define KG_OUTER (KG_NONE - 1) /* size_p marker: the outermost non-1 dim */


uint32_t kg_lw_cvt(lctx *L, uint32_t e, kg_dtype t) {
  if (e == KG_NONE) return e;
  if (L->k->exprs.v[e].dtype == t) return e;
  return kg_kx_cast(L->k, t, e);
}

uint32_t kg_lw_decl(lctx *L, const char *name, kg_dtype t, uint32_t init) {
  uint32_t var = kg_kvar_new(L->k, name, t);
  kg_ks s = kg_ks_make(KS_DECL);
  s.a = var, s.b = init;
  kg_ks_add(&L->cur, s);
  return kg_kx_var(L->k, var);
}

/* Σ coord[d] · stride[d] over the dims that have both (KG_NONE when none: offset 0). */
uint32_t kg_lw_stride(lctx *L, uint32_t p) {
  for (uint32_t i = 0; i < L->n_unit; i++)
    if (L->unit[i] == p) return kg_kx_const_i(L->k, L->ix, 1);
  return kg_kx_param(L->k, p);
}

uint32_t kg_lw_linear_offset(lctx *L, const uint32_t *coord, const uint32_t *stride, uint32_t rank) {
  kg_kernel *k = L->k;
  uint32_t off = KG_NONE;
  for (uint32_t d = 0; d < rank; d++) {
    if (stride[d] == KG_NONE || coord[d] == KG_NONE) continue;
    uint32_t t = kg_kx_op(k, KG_OP_IDX_MUL, L->ix, coord[d], kg_lw_stride(L, stride[d]), KG_NONE);
    off = off == KG_NONE ? t : kg_kx_op(k, KG_OP_IDX_ADD, L->ix, off, t, KG_NONE);
  }
  return off;
}

/* ---- map function inlining ---- */

typedef struct fcopy {
  lctx *L;
  const kg_kernel *src;
  const uint32_t *args; /* per function param: argument expr (already of the param dtype) */
  uint32_t *vmap;       /* src var → new var */
  uint32_t *xmap;       /* src expr → new expr */
} fcopy;

static uint32_t copy_x(fcopy *F, uint32_t e) {
  if (e == KG_NONE) return KG_NONE;
  if (F->xmap[e] != KG_NONE) return F->xmap[e];
  const kg_kx *x = &F->src->exprs.v[e];
  kg_kernel *k = F->L->k;
  uint32_t r;
  switch ((kg_kx_kind)x->kind) {
  case KX_CONST: {
    kg_kx c = *x;
    KG_VEC_PUSH(k->exprs, c);
    r = k->exprs.n - 1;
    break;
  }
  case KX_VAR: r = kg_kx_var(k, F->vmap[x->a]); break;
  case KX_PARAM: r = F->args[x->a]; break;
  case KX_OP: {
    uint32_t a = copy_x(F, x->a), b = copy_x(F, x->b), c = copy_x(F, x->c);
    r = kg_kx_op(k, (kg_op)x->op, (kg_dtype)x->dtype, a, b, c);
    k->exprs.v[r].i = x->i, k->exprs.v[r].f = x->f, k->exprs.v[r].f2 = x->f2, k->exprs.v[r].f3 = x->f3;
    break;
  }
  case KX_CAST: r = kg_kx_cast(k, (kg_dtype)x->dtype, copy_x(F, x->a)); break;
  case KX_SELECT: {
    uint32_t c = copy_x(F, x->a), a = copy_x(F, x->b), b = copy_x(F, x->c);
    r = kg_kx_select(k, (kg_dtype)x->dtype, c, a, b);
    break;
  }
  default: KG_UNREACHABLE();
  }
  F->xmap[e] = r;
  return r;
}

static void copy_block(fcopy *F, uint32_t s, kg_kcursor *cur) {
  kg_kernel *k = F->L->k;
  for (; s != KG_NONE; s = F->src->stmts.v[s].next) {
    const kg_ks *st = &F->src->stmts.v[s];
    kg_ks n = kg_ks_make((kg_ks_kind)st->kind);
    n.incl = st->incl;
    n.text = st->text;
    switch ((kg_ks_kind)st->kind) {
    case KS_DECL: n.a = F->vmap[st->a], n.b = copy_x(F, st->b); break;
    case KS_ASSIGN: n.a = F->vmap[st->a], n.b = copy_x(F, st->b); break;
    case KS_IF:
    case KS_WHILE: n.a = copy_x(F, st->a); break;
    case KS_FOR: n.a = F->vmap[st->a], n.b = copy_x(F, st->b), n.c = copy_x(F, st->c), n.d = copy_x(F, st->d); break;
    case KS_BREAK:
    case KS_COMMENT: break;
    default: KG_UNREACHABLE(); /* map functions have no memory access or barriers */
    }
    uint32_t id = kg_ks_add(cur, n);
    if (st->body != KG_NONE) {
      kg_kcursor bc = kg_kcursor_body(k, id, false);
      copy_block(F, st->body, &bc);
    }
    if (st->els != KG_NONE) {
      kg_kcursor ec = kg_kcursor_body(k, id, true);
      copy_block(F, st->els, &ec);
    }
  }
}

static uint32_t inline_fn(lctx *L, const kg_sfunc *fn, const uint32_t *args) {
  const kg_kernel *src = &fn->body;
  fcopy F = {L, src, args, kg_xmalloc((src->vars.n + 1) * sizeof(uint32_t)),
             kg_xmalloc((src->exprs.n + 1) * sizeof(uint32_t))};
  for (uint32_t i = 0; i < src->vars.n; i++) F.vmap[i] = kg_kvar_new(L->k, src->vars.v[i].name, (kg_dtype)src->vars.v[i].dtype);
  for (uint32_t i = 0; i < src->exprs.n; i++) F.xmap[i] = KG_NONE;
  kg_ks c = kg_ks_make(KS_COMMENT);
  c.text = "map function";
  kg_ks_add(&L->cur, c);
  copy_block(&F, src->body, &L->cur);
  uint32_t r = copy_x(&F, fn->result);
  free(F.vmap);
  free(F.xmap);
  return r;
}

/* ---- node values ---- */



static uint32_t input_val(lctx *L, uint32_t id) {
  const kg_gnode *n = &L->g->nodes.v[id];
  uint32_t p = L->src_of[id];
  uint32_t kp = L->pparam[p];
  if (n->vkind == KG_V_SCALAR) return kg_kx_param(L->k, kp);
  if (L->lane >= 0 && (!L->vecd || L->vecd[p])) return kg_kx_var(L->k, L->plane[p] + (uint32_t)L->lane);
  if (L->slot >= 0 && L->cvar && L->cvar[p] != KG_NONE) {
    uint32_t cv = L->cvar[p] + (uint32_t)L->slot;
    if (L->cfilled[p]) return kg_kx_var(L->k, cv); /* a later pass: on chip */
    uint32_t r = kg_lw_decl(L, "ld", (kg_dtype)n->dtype, kg_kx_load(L->k, kp, L->poff[p]));
    kg_ks as = kg_ks_make(KS_ASSIGN); /* the first pass that loads it keeps it */
    as.a = cv, as.b = r;
    kg_ks_add(&L->cur, as);
    L->cfilling[p] = 1;
    return r;
  }
  return kg_lw_decl(L, "ld", (kg_dtype)n->dtype, kg_kx_load(L->k, kp, L->poff[p]));
}

uint32_t kg_lw_build(lctx *L, uint32_t id, const uint32_t *xv) {
  const kg_gnode *n = &L->g->nodes.v[id];
  kg_kernel *k = L->k;
  kg_dtype dt = (kg_dtype)n->dtype, cdt = n->cdtype < KG_DT__COUNT ? (kg_dtype)n->cdtype : dt;
  const kg_op_info *oi = kg_op_get((kg_op)n->op);
  switch (n->op) {
  case KG_OP_CONST: return kg_dtype_is_float(dt) ? kg_kx_const_f(k, dt, n->fa[0]) : kg_kx_const_i(k, dt, n->ia[0]);
  case KG_OP_CAST:
  case KG_OP_FULL:
  case KG_OP_TENSOR: return kg_lw_decl(L, "t", dt, kg_lw_cvt(L, xv[0], dt));
  case KG_OP_MAP: {
    const kg_sfunc *fn = L->g->fns.v[n->fn];
    uint32_t args[8];
    for (int i = 0; i < n->n_in && i < 8; i++) args[i] = kg_lw_cvt(L, xv[i], (kg_dtype)fn->arg_dtypes[i]);
    return kg_lw_cvt(L, inline_fn(L, fn, args), dt);
  }
  case KG_OP_WHERE: {
    uint32_t c = kg_lw_cvt(L, xv[0], KG_BOOL), a = kg_lw_cvt(L, xv[1], dt), b = kg_lw_cvt(L, xv[2], dt);
    return kg_lw_decl(L, "t", dt, kg_kx_select(k, dt, c, a, b));
  }
  default: {
    uint32_t x[3] = {KG_NONE, KG_NONE, KG_NONE};
    for (int i = 0; i < n->n_in && i < 3; i++) {
      kg_dtype want = cdt;
      if (oi->flags & KG_OPF_LOGIC) want = KG_BOOL;
      /* a predicate (isinf, isnan, isfinite) tests its operand as it is: decompose.c's
       * logsumexp builds isinf(m) with the bool cdtype, which cast m to bool (always finite) */
      if (oi->flags & KG_OPF_PRED) want = (kg_dtype)L->g->nodes.v[n->in[i]].dtype;
      if ((n->op == KG_OP_NET_SHL || n->op == KG_OP_NET_SHR) && i == 1) want = KG_I32;
      x[i] = kg_lw_cvt(L, xv[i], want);
    }
    uint32_t e = kg_kx_op(k, (kg_op)n->op, dt, x[0], x[1], x[2]);
    k->exprs.v[e].i = n->ia[0];
    k->exprs.v[e].f = n->fa[0], k->exprs.v[e].f2 = n->fa[1], k->exprs.v[e].f3 = n->fa[2];
    return kg_lw_decl(L, "t", dt, e);
  }
  }
}

uint32_t kg_lw_val(lctx *L, uint32_t id) {
  if (L->memo[id] != KG_NONE) return L->memo[id];
  const kg_gnode *n = &L->g->nodes.v[id];
  uint32_t r;
  if ((L->src_of[id] != KG_NONE && !L->local[id]) || n->op == KG_OP_INPUT) {
    r = input_val(L, id); /* an input, or a value an earlier kernel materialized */
  } else if (kg_op_get((kg_op)n->op)->flags & KG_OPF_LAYOUT) {
    r = kg_lw_layout_val(L, id);
  } else {
    uint32_t xv[8];
    int nin = n->op == KG_OP_FULL ? 1 : n->n_in; /* FULL's second operand only gives the shape */
    for (int i = 0; i < nin && i < 8; i++) xv[i] = kg_lw_val(L, n->in[i]);
    r = kg_lw_build(L, id, xv);
  }
  kg_lw_memo_set(L, id, r);
  return r;
}

static void mark_needed(lctx *L) {
  for (uint32_t j = 0; j < L->grp->reds.n; j++) L->needed[L->grp->reds.v[j]] = 1;
  for (uint32_t j = 0; j < L->grp->epi.n; j++) L->needed[L->g->outputs.v[L->grp->epi.v[j]]] = 1;
  for (uint32_t j = 0; j < L->grp->outs.n; j++) L->needed[L->g->outputs.v[L->grp->outs.v[j]]] = 1;
  for (uint32_t i = L->g->nodes.n; i-- > 0;) {
    if (!L->needed[i]) continue;
    if (L->src_of[i] != KG_NONE && !L->local[i]) continue; /* read from memory: its producers are not needed */
    const kg_gnode *n = &L->g->nodes.v[i];
    /* FULL's second operand only gives the shape: its values are never read */
    int nin = n->op == KG_OP_FULL ? 1 : n->n_in;
    for (int j = 0; j < nin; j++) L->needed[n->in[j]] = 1;
  }
  kg_lw_mark_direct(L);
}

bool kg_lw_dim_is_one(const kg_dim *d) { return d->kind == KG_DIM_STATIC && d->v == 1; }

/* Emits the computation and stores of every output for the current element. */
void kg_lw_emit_element(lctx *L, uint32_t nnodes) {
  for (uint32_t i = 0; i < nnodes; i++) L->memo[i] = KG_NONE;
  kg_lw_at_reset(L);
  for (uint32_t j = 0; j < L->nout; j++) {
    uint32_t node = L->onode[j];
    uint32_t x = kg_lw_cvt(L, kg_lw_val(L, node), (kg_dtype)L->g->nodes.v[node].dtype);
    kg_ks s = kg_ks_make(KS_STORE);
    s.a = L->oparam[j], s.b = L->ooff[j], s.c = x;
    kg_ks_add(&L->cur, s);
  }
}

kg_kparam kg_lw_mkparam(kg_kparam_kind kind, kg_dtype dt, bool out, const char *name, uint8_t role, uint32_t r0, uint32_t r1) {
  kg_kparam p;
  memset(&p, 0, sizeof p);
  p.kind = kind, p.dtype = (uint8_t)dt, p.is_output = out, p.name = name, p.role = role, p.r0 = r0, p.r1 = r1;
  return p;
}

/* Encodings of a source slot in parameter roles (passes.h). */
void kg_lw_source_role(const lctx *L, uint32_t s, uint32_t *tensor_r0, uint32_t *tensor_r1, uint32_t *stride_r0) {
  uint32_t ngp = L->g->params.n;
  if (s < ngp) {
    *tensor_r0 = KG_BUF_PARAM, *tensor_r1 = s, *stride_r0 = s;
    return;
  }
  kg_bufref b = L->f->mat_buf.v[s - ngp];
  *tensor_r0 = b.kind, *tensor_r1 = b.index;
  *stride_r0 = (b.kind == KG_BUF_OUTPUT ? 0x80000000u : 0x40000000u) | b.index;
}

void kg_lw_add_source_params(lctx *L, kg_arena *A) {
  kg_kernel *k = L->k;
  for (uint32_t s = 0; s < L->nsrc; s++) {
    L->pparam[s] = KG_NONE;
    uint32_t node = s < L->g->params.n ? L->g->params.v[s].node : L->f->mat.v[s - L->g->params.n];
    if (!L->needed[node] || L->local[node]) continue;
    bool own = false; /* a value this kernel computes and stores (grp->mats) is not read */
    for (uint32_t j = 0; j < L->grp->mats.n && !own; j++) own = L->grp->mats.v[j] == node;
    if (own) continue;
    const kg_gnode *n = &L->g->nodes.v[node];
    bool sc = n->vkind == KG_V_SCALAR;
    uint32_t r0, r1, sr0;
    kg_lw_source_role(L, s, &r0, &r1, &sr0);
    const char *nm = sc ? kg_arena_printf(A, "s%u", s) : r0 == KG_BUF_TEMP ? kg_arena_printf(A, "tmp%u", r1) : kg_arena_printf(A, "in%u", s);
    L->pparam[s] = kg_kparam_add(k, kg_lw_mkparam(sc ? KP_SCALAR : KP_BUFFER, (kg_dtype)n->dtype, false, nm, sc ? KPR_SCALAR : KPR_TENSOR, r0, r1));
  }
}

void kg_lw_add_source_strides(lctx *L, kg_arena *A, uint32_t *in_stride) {
  kg_kernel *k = L->k;
  uint32_t r = L->grp->space.rank;
  for (uint32_t s = 0; s < L->nsrc; s++) {
    if (L->pparam[s] == KG_NONE || k->params.v[L->pparam[s]].kind != KP_BUFFER) continue;
    uint32_t node = s < L->g->params.n ? L->g->params.v[s].node : L->f->mat.v[s - L->g->params.n];
    if (!L->direct[node]) continue; /* read only through layout ops: by its own dims */
    const kg_gnode *n = &L->g->nodes.v[node];
    uint32_t r0, r1, sr0;
    kg_lw_source_role(L, s, &r0, &r1, &sr0);
    for (uint32_t d = 0; d < r; d++) {
      int j = (int)d - (int)(r - n->shape.rank);
      if (j < 0 || kg_lw_dim_is_one(&L->grp->space.d[d]) || kg_lw_dim_is_one(&n->shape.d[j])) continue;
      in_stride[s * KG_MAX_RANK + d] =
          kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "st%u_%u", s, d), KPR_STRIDE, sr0, d));
    }
  }
}

/* The same for values shaped like a row group's squeezed result (the kept dims of the space,
 * in order): a source is right-aligned against those dims, so its own dim j lies on row dim
 * kept[rs - q + j] (rank q, rs kept dims); strides by the source's own dim (bit 29).
 * Statically broadcast dims get none (stride 0). */
void kg_lw_add_source_strides_squeezed(lctx *L, kg_arena *A, int64_t mask, uint32_t *sq_stride) {
  kg_kernel *k = L->k;
  uint32_t r = L->grp->space.rank, kept[KG_MAX_RANK], rs = 0;
  for (uint32_t d = 0; d < r; d++)
    if (!((mask >> d) & 1)) kept[rs++] = d;
  for (uint32_t s = 0; s < L->nsrc; s++) {
    if (L->pparam[s] == KG_NONE || k->params.v[L->pparam[s]].kind != KP_BUFFER) continue;
    uint32_t node = s < L->g->params.n ? L->g->params.v[s].node : L->f->mat.v[s - L->g->params.n];
    if (!L->direct[node]) continue;
    const kg_gnode *n = &L->g->nodes.v[node];
    uint32_t r0, r1, sr0;
    kg_lw_source_role(L, s, &r0, &r1, &sr0);
    for (int j = 0; j < n->shape.rank; j++) {
      int m = (int)rs - n->shape.rank + j;
      if (m < 0) continue;
      uint32_t d = kept[m];
      if (kg_lw_dim_is_one(&L->grp->space.d[d]) || kg_lw_dim_is_one(&n->shape.d[j])) continue;
      sq_stride[s * KG_MAX_RANK + d] =
          kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "sq%u_%d", s, j), KPR_STRIDE, sr0 | 0x20000000u, (uint32_t)j));
    }
  }
}

static bool lower_scan(lctx *L, const char *name);

bool kg_lower_group(const kg_graph *g, const kg_fusion *f, const kg_group *grp, const kg_variant *v, const char *name,
                    kg_kernel *k, kg_pass_ctx *c) {
  kg_kernel_init(k, name);
  kg_arena *A = c->arena;
  lctx L;
  memset(&L, 0, sizeof L);
  L.g = g, L.f = f, L.grp = grp, L.v = v, L.k = k, L.c = c, L.lane = -1;
  L.ix = v->index_dtype == KG_I64 ? KG_I64 : KG_I32;
  k->index_dtype = (uint8_t)L.ix;
  /* what a pointwise kernel stores: its outputs, then the values it materializes for later
   * kernels (a stored window, fuse.c) */
  uint32_t nn = g->nodes.n, np = g->params.n + f->mat.n, no = grp->outs.n + (grp->kind == KG_GROUP_POINTWISE ? grp->mats.n : 0), r = grp->space.rank;
  uint32_t ngp = g->params.n;
  L.needed = kg_xcalloc(nn + 1, 1);
  L.memo = kg_xmalloc((nn + 1) * sizeof *L.memo);
  L.pparam = kg_xmalloc((np + 1) * sizeof *L.pparam);
  L.poff = kg_xmalloc((np + 1) * sizeof *L.poff);
  L.plane = kg_xmalloc((np + 1) * sizeof *L.plane);
  L.oparam = kg_xmalloc((no + 1) * sizeof *L.oparam);
  L.ooff = kg_xmalloc((no + 1) * sizeof *L.ooff);
  L.nsrc = np;
  L.local = kg_xcalloc(nn + 1, 1);
  for (uint32_t j = 0; j < grp->reds.n; j++) L.local[grp->reds.v[j]] = 1;
  for (uint32_t j = 0; j < grp->pre.n; j++) L.local[grp->pre.v[j]] = 1; /* a product's row statistics */
  L.src_of = kg_xmalloc((nn + 1) * sizeof *L.src_of);
  for (uint32_t i = 0; i < nn; i++) L.src_of[i] = KG_NONE;
  for (uint32_t p = 0; p < ngp; p++) L.src_of[g->params.v[p].node] = p;
  for (uint32_t i = 0; i < f->mat.n; i++) L.src_of[f->mat.v[i]] = ngp + i;
  for (uint32_t j = 0; j < grp->mats.n; j++) L.src_of[grp->mats.v[j]] = KG_NONE, L.needed[grp->mats.v[j]] = 1; /* the group computes and stores them */
  mark_needed(&L);
  if (grp->kind == KG_GROUP_REDUCE) return kg_lw_reduce(&L, name);
  if (grp->kind == KG_GROUP_MATMUL) return kg_lw_matmul(&L, name);
  if (grp->kind == KG_GROUP_ATTN) return kg_lw_attention(&L, name);
  if (grp->kind == KG_GROUP_SCAN) return lower_scan(&L, name);
  bool linear = v->layout == KG_LAYOUT_LINEAR;
  uint32_t vec = linear && v->vec > 1 && !v->cpu ? v->vec : 1;
  k->vec = vec;
  k->launch.elems_per_thread = vec;
  k->schedule = linear ? (vec > 1 ? kg_arena_printf(A, "pointwise.linear.vec%u", vec) : "pointwise.linear") : "pointwise.strided";

  /* parameters: inputs (not the values stored here), outputs and stored values, numel, sizes, strides */
  L.onode = kg_xmalloc((no + 1) * sizeof *L.onode);
  L.nout = no;
  uint32_t *oenc = kg_xmalloc((no + 1) * sizeof *oenc); /* per stored value: its stride parameters' r0 */
  kg_lw_add_source_params(&L, A);
  for (uint32_t j = 0; j < no; j++) {
    kg_bufref b = {KG_BUF_OUTPUT, j < grp->outs.n ? grp->outs.v[j] : 0};
    if (j < grp->outs.n) L.onode[j] = g->outputs.v[b.index];
    else L.onode[j] = grp->mats.v[j - grp->outs.n], b = f->mat_buf.v[kg_fusion_mat_index(f, L.onode[j])];
    oenc[j] = (b.kind == KG_BUF_OUTPUT ? 0x80000000u : 0x40000000u) | b.index;
    L.oparam[j] = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)g->nodes.v[L.onode[j]].dtype, true,
                                           kg_arena_printf(A, b.kind == KG_BUF_OUTPUT ? "out%u" : "tmp%u", b.index), KPR_TENSOR, b.kind, b.index));
  }
  uint32_t numel = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L.ix, false, "n", KPR_NUMEL, 0, 0));
  uint32_t size_p[KG_MAX_RANK];
  uint32_t *in_stride = kg_xmalloc(((size_t)np * KG_MAX_RANK + 1) * sizeof *in_stride);
  uint32_t *out_stride = kg_xmalloc(((size_t)no * KG_MAX_RANK + 1) * sizeof *out_stride);
  for (size_t i = 0; i < (size_t)np * KG_MAX_RANK; i++) in_stride[i] = KG_NONE;
  for (size_t i = 0; i < (size_t)no * KG_MAX_RANK; i++) out_stride[i] = KG_NONE;
  if (!linear) {
    /* the outermost dim needs no size: its coordinate is what remains of the index */
    bool outer = true;
    for (uint32_t d = 0; d < r; d++) {
      size_p[d] = KG_NONE;
      if (kg_lw_dim_is_one(&grp->space.d[d])) continue;
      if (outer) { outer = false; size_p[d] = KG_OUTER; continue; }
      size_p[d] = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L.ix, false, kg_arena_printf(A, "size%u", d), KPR_SIZE, 0, d));
    }
    kg_lw_add_source_strides(&L, A, in_stride);
    for (uint32_t j = 0; j < no; j++)
      for (uint32_t d = 0; d < r; d++)
        if (!kg_lw_dim_is_one(&grp->space.d[d]))
          out_stride[j * KG_MAX_RANK + d] = kg_kparam_add(
              k, kg_lw_mkparam(KP_SCALAR, L.ix, false, kg_arena_printf(A, oenc[j] >> 31 ? "so%u_%u" : "st%u_%u", oenc[j] & 0x3fffffffu, d), KPR_STRIDE, oenc[j], d));
  }

  /* body */
  if (v->cpu) { /* the CPU target's loops over chunks (lower_cpu.c) */
    uint32_t din = KG_NONE;
    for (uint32_t d = 0; d < r && !linear; d++)
      if (size_p[d] != KG_NONE) din = d;
    kg_lw_pointwise_cpu(&L, linear, din, din != KG_NONE && size_p[din] != KG_OUTER ? size_p[din] : KG_NONE, size_p, KG_OUTER, in_stride,
                        out_stride, numel);
  } else {
    L.cur = kg_kcursor_top(k);
    uint32_t bid = kg_lw_cvt(&L, kg_kx_sreg(k, KG_SREG_CTAID_X, KG_I32), L.ix);
    uint32_t bdim = kg_lw_cvt(&L, kg_kx_sreg(k, KG_SREG_NTID_X, KG_I32), L.ix);
    uint32_t tid = kg_lw_cvt(&L, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32), L.ix);
    uint32_t gidx = kg_lw_decl(&L, "i", L.ix, kg_kx_op(k, KG_OP_IDX_ADD, L.ix, kg_kx_op(k, KG_OP_IDX_MUL, L.ix, bid, bdim, KG_NONE), tid, KG_NONE));
    uint32_t n_x = kg_kx_param(k, numel);
    if (linear && vec > 1) {
      uint32_t base = kg_lw_decl(&L, "base", L.ix, kg_kx_op(k, KG_OP_IDX_MUL, L.ix, gidx, kg_kx_const_i(k, L.ix, vec), KG_NONE));
      kg_ks ifs = kg_ks_make(KS_IF);
      ifs.a = kg_kx_op(k, KG_OP_LE, KG_BOOL, kg_kx_op(k, KG_OP_IDX_ADD, L.ix, base, kg_kx_const_i(k, L.ix, vec), KG_NONE), n_x, KG_NONE);
      uint32_t st = kg_ks_add(&L.cur, ifs);
      kg_kcursor outer = L.cur;
      /* full vector */
      L.cur = kg_kcursor_body(k, st, false);
      for (uint32_t p = 0; p < np; p++) {
        if (L.pparam[p] == KG_NONE || k->params.v[L.pparam[p]].kind != KP_BUFFER) continue;
        kg_dtype dt = (kg_dtype)k->params.v[L.pparam[p]].dtype;
        L.plane[p] = k->vars.n;
        for (uint32_t j = 0; j < vec; j++) kg_kvar_new(k, "v", dt);
        kg_ks vl = kg_ks_make(KS_VLOAD);
        vl.a = L.pparam[p], vl.b = base, vl.c = L.plane[p];
        kg_ks_add(&L.cur, vl);
      }
      uint32_t *lane_out = kg_xmalloc((size_t)(no + 1) * vec * sizeof *lane_out);
      for (uint32_t lane = 0; lane < vec; lane++) {
        L.lane = (int)lane;
        for (uint32_t i = 0; i < nn; i++) L.memo[i] = KG_NONE;
        kg_lw_at_reset(&L);
        for (uint32_t j = 0; j < no; j++) {
          uint32_t node = L.onode[j];
          lane_out[j * vec + lane] = kg_lw_cvt(&L, kg_lw_val(&L, node), (kg_dtype)g->nodes.v[node].dtype);
        }
      }
      L.lane = -1;
      for (uint32_t j = 0; j < no; j++) {
        kg_dtype dt = (kg_dtype)k->params.v[L.oparam[j]].dtype;
        uint32_t first = k->vars.n;
        for (uint32_t lane = 0; lane < vec; lane++) kg_kvar_new(k, "o", dt);
        for (uint32_t lane = 0; lane < vec; lane++) {
          kg_ks s = kg_ks_make(KS_DECL);
          s.a = first + lane, s.b = lane_out[j * vec + lane];
          kg_ks_add(&L.cur, s);
        }
        kg_ks vs = kg_ks_make(KS_VSTORE);
        vs.a = L.oparam[j], vs.b = base, vs.c = first;
        kg_ks_add(&L.cur, vs);
      }
      free(lane_out);
      /* ragged end: scalar loop */
      L.cur = kg_kcursor_body(k, st, true);
      uint32_t jv = kg_kvar_new(k, "j", L.ix);
      kg_ks fr = kg_ks_make(KS_FOR);
      fr.a = jv, fr.b = base, fr.c = n_x, fr.d = kg_kx_const_i(k, L.ix, 1);
      uint32_t fs = kg_ks_add(&L.cur, fr);
      L.cur = kg_kcursor_body(k, fs, false);
      uint32_t jx = kg_kx_var(k, jv);
      for (uint32_t p = 0; p < np; p++) L.poff[p] = jx;
      for (uint32_t j = 0; j < no; j++) L.ooff[j] = jx;
      kg_lw_emit_element(&L, nn);
      L.cur = outer;
    } else {
      kg_ks ifs = kg_ks_make(KS_IF);
      ifs.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, gidx, n_x, KG_NONE);
      uint32_t st = kg_ks_add(&L.cur, ifs);
      L.cur = kg_kcursor_body(k, st, false);
      if (linear) {
        for (uint32_t p = 0; p < np; p++) L.poff[p] = gidx;
        for (uint32_t j = 0; j < no; j++) L.ooff[j] = gidx;
      } else {
        /* coordinates, innermost first */
        uint32_t coord[KG_MAX_RANK];
        uint32_t rem = gidx;
        for (uint32_t d = 0; d < r; d++) coord[d] = KG_NONE;
        for (uint32_t dd = r; dd-- > 0;) {
          if (size_p[dd] == KG_NONE) continue;
          if (size_p[dd] == KG_OUTER) { coord[dd] = rem; break; }
          uint32_t sz = kg_kx_param(k, size_p[dd]);
          coord[dd] = kg_lw_decl(&L, "c", L.ix, kg_kx_op(k, KG_OP_IDX_MOD, L.ix, rem, sz, KG_NONE));
          rem = kg_lw_decl(&L, "r", L.ix, kg_kx_op(k, KG_OP_IDX_DIV, L.ix, rem, sz, KG_NONE));
        }
        memcpy(L.gcoord, coord, sizeof coord);
        L.has_gcoord = true;
        for (uint32_t p = 0; p < np + no; p++) {
          bool is_out = p >= np;
          uint32_t *strides = is_out ? &out_stride[(p - np) * KG_MAX_RANK] : &in_stride[p * KG_MAX_RANK];
          if (!is_out && (L.pparam[p] == KG_NONE || k->params.v[L.pparam[p]].kind != KP_BUFFER)) continue;
          if (!is_out && !L.direct[p < ngp ? g->params.v[p].node : f->mat.v[p - ngp]]) continue;
          uint32_t off = kg_lw_linear_offset(&L, coord, strides, r);
          off = off == KG_NONE ? kg_kx_const_i(k, L.ix, 0) : kg_lw_decl(&L, "off", L.ix, off);
          if (is_out) L.ooff[p - np] = off;
          else L.poff[p] = off;
        }
      }
      kg_lw_emit_element(&L, nn);
    }
    k->launch.block[0] = 256;
  }
  free(in_stride);
  free(out_stride);
  free(oenc), free(L.onode);
  kg_lw_view_free(&L);
  free(L.needed), free(L.local), free(L.src_of), free(L.memo), free(L.pparam), free(L.poff), free(L.plane), free(L.oparam), free(L.ooff);
  if (c->verify && !kg_kernel_verify(k, c->d)) return false;
  return true;
}

/* ---- helpers shared with the reduction schedules (lower_reduce.c) ---- */

uint32_t kg_lw_identity(kg_kernel *k, kg_op red, kg_dtype acc) {
  bool fl = kg_dtype_is_float(acc);
  switch (red) {
  case KG_OP_RPROD: return fl ? kg_kx_const_f(k, acc, 1) : kg_kx_const_i(k, acc, 1);
  case KG_OP_RAMAX: return fl ? kg_kx_const_f(k, acc, -INFINITY) : kg_kx_const_i(k, acc, acc == KG_I64 ? INT64_MIN : INT32_MIN);
  case KG_OP_RAMIN: return fl ? kg_kx_const_f(k, acc, INFINITY) : kg_kx_const_i(k, acc, acc == KG_I64 ? INT64_MAX : INT32_MAX);
  default: return fl ? kg_kx_const_f(k, acc, 0) : kg_kx_const_i(k, acc, 0);
  }
}

/* Decomposes `idx` over the dims of `space` selected by `want(d)` (innermost
 * first); the outermost selected dim takes the remaining quotient. */
void kg_lw_decompose(lctx *L, uint32_t idx, const uint32_t *size_p, int64_t mask, bool reduced, uint32_t *coord) {
  kg_kernel *k = L->k;
  uint32_t r = L->grp->space.rank, rem = idx;
  int outer = -1;
  for (uint32_t d = 0; d < r && outer < 0; d++)
    if (((mask >> d) & 1) == reduced && size_p[d] != KG_NONE) outer = (int)d;
  for (uint32_t dd = r; dd-- > 0;) {
    if (((mask >> dd) & 1) != reduced || size_p[dd] == KG_NONE) continue;
    if ((int)dd == outer) { coord[dd] = rem; break; }
    uint32_t sz = kg_kx_param(k, size_p[dd]);
    coord[dd] = kg_lw_decl(L, reduced ? "rc" : "c", L->ix, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, rem, sz, KG_NONE));
    rem = kg_lw_decl(L, "r", L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, rem, sz, KG_NONE));
  }
}

/* offsets of every needed buffer source for the current coordinates (over the space) */
void kg_lw_source_offsets(lctx *L, const uint32_t *in_stride, const uint32_t *coord) {
  kg_kernel *k = L->k;
  uint32_t r = L->grp->space.rank;
  memcpy(L->gcoord, coord, r * sizeof *coord);
  L->has_gcoord = true;
  L->gframe = NULL;
  for (uint32_t s = 0; s < L->nsrc; s++) {
    if (L->pparam[s] == KG_NONE || k->params.v[L->pparam[s]].kind != KP_BUFFER) continue;
    uint32_t node = s < L->g->params.n ? L->g->params.v[s].node : L->f->mat.v[s - L->g->params.n];
    if (!L->direct[node]) { L->poff[s] = KG_NONE; continue; }
    uint32_t off = kg_lw_linear_offset(L, coord, &in_stride[s * KG_MAX_RANK], r);
    L->poff[s] = off == KG_NONE ? kg_kx_const_i(k, L->ix, 0) : kg_lw_decl(L, "off", L->ix, off);
  }
}

/* ---- the scan schedule ----
 * One thread per row walks the scanned dim in order, accumulating (float64 for floats,
 * int64 for integers) and storing every prefix: a sequential, deterministic inclusive
 * scan. Rows along a dim other than the innermost are read coalesced across threads. */
static bool lower_scan(lctx *L, const char *name) {
  (void)name;
  kg_kernel *k = L->k;
  const kg_graph *g = L->g;
  const kg_group *grp = L->grp;
  kg_arena *A = L->c->arena;
  const kg_gnode *R = &g->nodes.v[grp->red];
  uint32_t r = grp->space.rank;
  int64_t mask = R->ia[0];
  kg_dtype acc = (kg_dtype)R->cdtype, odt = (kg_dtype)R->dtype;
  k->schedule = "scan.thread_per_row";
  k->launch.per_output = 2;
  k->launch.block[0] = 256;
  k->launch.elems_per_thread = 1;
  k->vec = 1;
  kg_lw_add_source_params(L, A);
  uint32_t mi = kg_fusion_mat_index(L->f, grp->red);
  KG_ASSERT(mi != KG_NONE);
  kg_bufref ob = L->f->mat_buf.v[mi];
  uint32_t enc = (ob.kind == KG_BUF_OUTPUT ? 0x80000000u : 0x40000000u) | ob.index;
  uint32_t outp = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, odt, true, ob.kind == KG_BUF_OUTPUT ? kg_arena_printf(A, "out%u", ob.index) : kg_arena_printf(A, "tmp%u", ob.index),
                                           KPR_TENSOR, ob.kind, ob.index));
  uint32_t numel_p = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "n", KPR_NUMEL, 0, 0));
  uint32_t rn = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "rn", KPR_RED_N, 0, 0));
  uint32_t size_p[KG_MAX_RANK], ostride[KG_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) {
    bool one = kg_lw_dim_is_one(&grp->space.d[d]);
    size_p[d] = one ? KG_NONE : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "size%u", d), KPR_SIZE, 0, d));
    ostride[d] = one ? KG_NONE : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "so_%u", d), KPR_STRIDE, enc, d));
  }
  uint32_t *in_stride = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *in_stride);
  for (size_t i = 0; i < (size_t)L->nsrc * KG_MAX_RANK; i++) in_stride[i] = KG_NONE;
  kg_lw_add_source_strides(L, A, in_stride);
  L->cur = kg_kcursor_top(k);
  uint32_t bid = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_CTAID_X, KG_I32), L->ix), nt = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_NTID_X, KG_I32), L->ix);
  uint32_t tid = kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32), L->ix);
  uint32_t o = kg_lw_decl(L, "o", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, bid, nt, KG_NONE), tid, KG_NONE));
  kg_ks in = kg_ks_make(KS_IF);
  in.a = kg_kx_op(k, KG_OP_LT, KG_BOOL, o, kg_kx_param(k, numel_p), KG_NONE);
  uint32_t is = kg_ks_add(&L->cur, in);
  L->cur = kg_kcursor_body(k, is, false);
  uint32_t coord[KG_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) coord[d] = KG_NONE;
  kg_lw_decompose(L, o, size_p, mask, false, coord);
  uint32_t accv = kg_kvar_new(k, "acc", acc);
  kg_ks dcl = kg_ks_make(KS_DECL);
  dcl.a = accv, dcl.b = kg_lw_identity(k, KG_OP_RSUM, acc);
  kg_ks_add(&L->cur, dcl);
  uint32_t jv = kg_kvar_new(k, "j", L->ix);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.a = jv, fr.b = kg_kx_const_i(k, L->ix, 0), fr.c = kg_kx_param(k, rn), fr.d = kg_kx_const_i(k, L->ix, 1);
  uint32_t fs = kg_ks_add(&L->cur, fr);
  L->cur = kg_kcursor_body(k, fs, false);
  uint32_t rc[KG_MAX_RANK];
  memcpy(rc, coord, sizeof rc);
  kg_lw_decompose(L, kg_kx_var(k, jv), size_p, mask, true, rc);
  kg_lw_source_offsets(L, in_stride, rc);
  for (uint32_t i = 0; i < g->nodes.n; i++) L->memo[i] = KG_NONE;
  kg_lw_at_reset(L);
  uint32_t v = kg_lw_cvt(L, kg_lw_val(L, R->in[0]), acc);
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = accv, as.b = kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, accv), v, KG_NONE);
  kg_ks_add(&L->cur, as);
  uint32_t off = kg_lw_linear_offset(L, rc, ostride, r);
  kg_ks st = kg_ks_make(KS_STORE);
  st.a = outp, st.b = off == KG_NONE ? kg_kx_const_i(k, L->ix, 0) : off, st.c = kg_lw_cvt(L, kg_kx_var(k, accv), odt);
  kg_ks_add(&L->cur, st);
  free(in_stride);
  kg_lw_view_free(L);
  free(L->needed), free(L->local), free(L->src_of), free(L->memo), free(L->pparam), free(L->poff), free(L->plane), free(L->oparam), free(L->ooff);
  if (L->c->verify && !kg_kernel_verify(k, L->c->d)) return false;
  return true;
}
