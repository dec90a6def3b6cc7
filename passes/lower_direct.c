/* passes/lower_direct.c — the direct convolution schedule (KG_MM_DIRECT: depthwise and other
 * convolutions with a few output channels per group over a small window, kg_conv_direct).
 *
 * GPU (and the emulator): a thread per output element walks K itself — its group's channels
 * times the window — reading both operands through kg_lw_val_at (the IM2COL's bounds checks
 * included), no tiles, no shared memory, no barrier; then the epilogue.
 *
 * CPU target (kg_variant.cpu): the CPU device runs a kernel's threads one after another, so a
 * thread per output paid the index split, the weight loads and a bounds test per tap for every
 * output, and nothing vectorized (MobileNetV2's depthwise convolutions were half of its forward
 * on one core). Here a thread owns a chunk of KG_CPU_DIRECT_CHUNK consecutive outputs and walks
 * it one segment of the innermost spatial dim (a row) at a time, as the pointwise schedule does
 * (lower_cpu.c):
 *
 *   while (i < end)
 *     the row's coordinates from i (div / mod, once a segment); its K weights into vars
 *     ok = every tap's outer spatial index (the rows) inside the input, the input's and the
 *          outputs' strides along the row 1
 *     [lo, hi) = the outputs whose taps all fall inside the row: j · stride - pad + kw · dil in
 *          [0, W) for every kw — empty unless ok
 *     for j in [start, lo):  the GPU's per-output code (bounds checks)
 *     for j in [lo, hi):     Σ_kk w_kk · x[n, c, rows.., j · stride + kw_kk · dil - pad] with the
 *                            taps unrolled, no test, unit strides as constants, iterations
 *                            independent (KS_FOR imm 1: `#pragma GCC ivdep`): GCC vectorizes it
 *     for j in [hi, end):    the per-output code
 *
 * The sum is the same as the per-output code's (the taps in the same order from 0; a padded tap
 * adds nothing either way), so both copies give the same bits. The interior loop is taken only
 * where the IM2COL reads its input directly (no transposed convolution's input dilation) and K
 * is a constant (the weight's shape static); otherwise the row is the per-output code alone.
 * ivdep is sound here: a convolution's output never shares storage with what it reads (the
 * planner's in-place writes are select_scatter slices, plan_inplace.c). */
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

typedef kg_mmk mkern;

static uint32_t cst(mkern *S, int64_t v) { return kg_kx_const_i(S->k, S->ix, v); }
static uint32_t iop(mkern *S, kg_op op, uint32_t a, uint32_t b) {
  if (a == KG_NONE) return b;
  if (b == KG_NONE) return a;
  return kg_kx_op(S->k, op, S->ix, a, b, KG_NONE);
}
static uint32_t bop(mkern *S, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(S->k, op, KG_BOOL, a, b, KG_NONE); }
static uint32_t sreg(mkern *S, int which) { return kg_lw_cvt(S->L, kg_kx_sreg(S->k, which, KG_I32), S->ix); }

static void stmt(mkern *S, kg_ks_kind kind, uint32_t a, uint32_t b, uint32_t c) {
  kg_ks s = kg_ks_make(kind);
  s.a = a, s.b = b, s.c = c;
  kg_ks_add(&S->L->cur, s);
}

/* the group coordinate and the output channel within it from the output channel c1 */
static void group_coords(mkern *S, uint32_t c0, uint32_t c1, uint32_t *bc, uint32_t *m) {
  bc[0] = c0, bc[1] = KG_NONE, *m = c1;
  if (S->G > 1 && c1 != KG_NONE) {
    bc[1] = S->Og == 1 ? c1 : kg_lw_decl(S->L, "grp", S->ix, iop(S, KG_OP_IDX_DIV, c1, cst(S, S->Og)));
    *m = S->Og == 1 ? KG_NONE : kg_lw_decl(S->L, "m", S->ix, iop(S, KG_OP_IDX_MOD, c1, cst(S, S->Og)));
  }
}

/* K a constant where A's is static (a convolution's window times its group's channels: the
 * depthwise 3 x 3's 9), else the run's K */
static bool static_k(mkern *S, int64_t *K) {
  const kg_dim *kd = &S->An->shape.d[S->An->shape.rank - 1];
  *K = kd->kind == KG_DIM_STATIC ? kd->v : -1;
  return kd->kind == KG_DIM_STATIC;
}

/* Every stored value at coordinates c with the product's value the accumulator av (a var), rounded
 * once to its dtype */
static void epilogue_at(mkern *S, const kg_group *grp, const uint32_t *c, uint32_t av) {
  lctx *L = S->L;
  kg_ks ce = kg_ks_make(KS_COMMENT);
  ce.text = "epilogue";
  kg_ks_add(&L->cur, ce);
  L->memo[grp->red] = kg_lw_decl(L, "mm", S->mdt, kg_lw_cvt(L, kg_kx_var(S->k, av), S->mdt));
  for (uint32_t q = 0; q < S->ns; q++) {
    uint32_t x = kg_lw_cvt(L, kg_lw_val_at(L, S->snode[q], c), (kg_dtype)L->g->nodes.v[S->snode[q]].dtype);
    uint32_t off = kg_lw_linear_offset(L, c, &S->ostride[q * KG_MAX_RANK], (uint32_t)S->r);
    stmt(S, KS_STORE, S->sparam[q], off == KG_NONE ? cst(S, 0) : off, x);
  }
}

/* The output at coordinates c over [N, O, S...]: the K loop reading both operands through
 * kg_lw_val_at (bounds checks in the IM2COL), then every stored value. With K a constant the
 * compiler unrolls the loop and folds the window's div / mod by constants (MobileNetV2's
 * depthwise convolutions had a loop of 9 with four divisions an iteration). */
static void output_at(mkern *S, const kg_group *grp, const uint32_t *c, const uint32_t *bc, uint32_t m) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = S->acc;
  uint32_t av = kg_kvar_new(k, "acc", acc);
  stmt(S, KS_DECL, av, kg_lw_identity(k, KG_OP_RSUM, acc), KG_NONE);
  int64_t K;
  uint32_t kn = static_k(S, &K) ? cst(S, K) : kg_kx_param(k, S->kp); /* the run checks K against the operands either way */
  kg_lw_scope sc;
  uint32_t kk = kg_lw_open_for(L, "kk", cst(S, 0), kn, cst(S, 1), &sc);
  kg_lw_mm_memo_reset(L);
  uint32_t ac[KG_MAX_RANK], bcc[KG_MAX_RANK];
  kg_lw_mm_operand_coord(S->An, false, bc, 2, m == KG_NONE ? cst(S, 0) : m, kk, ac);
  bcc[0] = bc[0], bcc[1] = bc[1], bcc[2] = kk;
  for (int d = 0; d < S->cnd; d++) bcc[3 + d] = c[2 + d];
  uint32_t a = kg_lw_cvt(L, kg_lw_val_at(L, S->mmn->in[0], ac), acc), b = kg_lw_cvt(L, kg_lw_val_at(L, S->mmn->in[1], bcc), acc);
  stmt(S, KS_ASSIGN, av, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, av), kg_kx_op(k, KG_OP_MUL, acc, a, b, KG_NONE), KG_NONE), KG_NONE);
  kg_lw_scope_leave(L, sc);
  kg_lw_mm_memo_reset(L);
  epilogue_at(S, grp, c, av);
}

/* Flat index rem split over the space's dims [0, n) into c (the last fastest, the outermost taking
 * what remains, a static 1 none): static sizes as constants, their div / mod a multiply and shift */
static void split_index(mkern *S, const kg_group *grp, uint32_t rem, int n, uint32_t *c) {
  const uint32_t *size_p = S->size_p;
  int outer = -1;
  for (int d = 0; d < n; d++) {
    c[d] = KG_NONE;
    if (outer < 0 && size_p[d] != KG_NONE) outer = d;
  }
  for (int d = n - 1; d >= 0; d--) {
    if (size_p[d] == KG_NONE) continue;
    if (d == outer) { c[d] = rem; break; }
    const kg_dim *sd = &grp->space.d[d];
    uint32_t sz = sd->kind == KG_DIM_STATIC ? cst(S, sd->v) : kg_kx_param(S->k, size_p[d]);
    c[d] = kg_lw_decl(S->L, "c", S->ix, iop(S, KG_OP_IDX_MOD, rem, sz));
    rem = kg_lw_decl(S->L, "q", S->ix, iop(S, KG_OP_IDX_DIV, rem, sz));
  }
}

/* The GPU's body: a thread per output element, its coordinates split off the flat index (static
 * sizes as constants: their div / mod a multiply and shift). */
void kg_lw_direct_body(kg_mmk *S, const kg_group *grp) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  int r = grp->space.rank;
  k->launch.per_output = KG_LAUNCH_ELEMENTS;
  k->launch.block[0] = 256, k->launch.tile_m = k->launch.tile_n = 0, k->launch.smem_static = 0;
  uint32_t np = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "numel", KPR_NUMEL, 0, 0));
  L->cur = kg_kcursor_top(k);
  uint32_t idx = kg_lw_decl(L, "idx", L->ix, iop(S, KG_OP_IDX_ADD, iop(S, KG_OP_IDX_MUL, sreg(S, KG_SREG_CTAID_X), cst(S, 256)), sreg(S, KG_SREG_TID_X)));
  kg_ks is = kg_ks_make(KS_IF);
  is.a = bop(S, KG_OP_LT, idx, kg_kx_param(k, np));
  L->cur = kg_kcursor_body(k, kg_ks_add(&L->cur, is), false);
  uint32_t c[KG_MAX_RANK];
  split_index(S, grp, idx, r, c);
  uint32_t bc[2], m;
  group_coords(S, c[0], c[1], bc, &m);
  output_at(S, grp, c, bc, m);
}

/* ---- the CPU target's rows ---- */

/* the interior loop's facts, fixed per kernel: which taps, where they read */
typedef struct taps {
  uint32_t x;                        /* the IM2COL's input */
  int nd;                            /* spatial dims */
  int64_t K, win, Cg;                /* taps (K = Cg · win), the window, channels per group */
  int64_t st[KG_CONV_MAX_DIMS], pd[KG_CONV_MAX_DIMS], dl[KG_CONV_MAX_DIMS], ks[KG_CONV_MAX_DIMS];
} taps;

/* Can the rows' interior loop be built (see the top)? */
static bool interior_taps(mkern *S, taps *T) {
  const kg_graph *g = S->L->g;
  const kg_gnode *im = &g->nodes.v[S->mmn->in[1]];
  if (im->op != KG_OP_IM2COL || !static_k(S, &T->K) || T->K < 1 || T->K > 64) return false;
  const kg_gnode *x = &g->nodes.v[im->in[0]];
  T->x = im->in[0], T->nd = x->shape.rank - 2, T->win = 1;
  if (T->nd < 1 || T->nd > KG_CONV_MAX_DIMS || T->nd != S->cnd || x->shape.d[1].kind != KG_DIM_STATIC) return false;
  if (kg_lw_dim_is_one(&x->shape.d[x->shape.rank - 1]) || S->size_p[S->r - 1] == KG_NONE) return false; /* a row of one */
  int64_t G = im->shape.d[1].v;
  T->Cg = x->shape.d[1].v / (G ? G : 1);
  for (int i = 0; i < T->nd; i++) {
    T->st[i] = kg_conv_get(im->ia[0], i), T->pd[i] = kg_conv_get(im->ia[1], i), T->dl[i] = kg_conv_get(im->ia[2], i), T->ks[i] = kg_conv_get(im->ia[3], i);
    if ((int64_t)im->fa[i] > 1 || T->st[i] < 1 || T->ks[i] < 1) return false; /* a transposed convolution's input dilation */
    T->win *= T->ks[i];
  }
  return T->win * T->Cg == T->K;
}

/* the input index of tap offset kw along spatial dim i at output index o: o · stride + kw · dil - pad */
static uint32_t tap_index(mkern *S, const taps *T, int i, uint32_t o, int64_t kw) {
  int64_t off = kw * T->dl[i] - T->pd[i];
  uint32_t j = o == KG_NONE ? cst(S, 0) : T->st[i] == 1 ? o : iop(S, KG_OP_IDX_MUL, o, cst(S, T->st[i]));
  return off ? iop(S, KG_OP_IDX_ADD, j, cst(S, off)) : j;
}

/* the interior output at c (c[r - 1] the loop's j): the taps unrolled, the weights w[] */
static void interior_at(mkern *S, const kg_group *grp, const taps *T, const uint32_t *c, const uint32_t *bc, const uint32_t *w) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = S->acc;
  const kg_gnode *x = &L->g->nodes.v[T->x];
  uint32_t av = kg_kvar_new(k, "acc", acc);
  stmt(S, KS_DECL, av, kg_lw_identity(k, KG_OP_RSUM, acc), KG_NONE);
  for (int64_t kk = 0; kk < T->K; kk++) {
    uint32_t xc[KG_MAX_RANK];
    int64_t rem = kk, kw[KG_CONV_MAX_DIMS];
    for (int i = T->nd - 1; i >= 0; i--) kw[i] = rem % T->ks[i], rem /= T->ks[i];
    xc[0] = kg_lw_dim_is_one(&x->shape.d[0]) ? KG_NONE : bc[0];
    uint32_t ch = iop(S, KG_OP_IDX_ADD, bc[1] == KG_NONE ? KG_NONE : iop(S, KG_OP_IDX_MUL, bc[1], cst(S, T->Cg)), T->Cg == 1 ? KG_NONE : cst(S, rem));
    xc[1] = kg_lw_dim_is_one(&x->shape.d[1]) ? KG_NONE : ch == KG_NONE ? cst(S, 0) : ch;
    for (int i = 0; i < T->nd; i++) xc[2 + i] = kg_lw_dim_is_one(&x->shape.d[2 + i]) ? KG_NONE : tap_index(S, T, i, c[2 + i], kw[i]);
    uint32_t v = kg_lw_cvt(L, kg_lw_val_at(L, T->x, xc), acc);
    stmt(S, KS_ASSIGN, av, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, av), kg_kx_op(k, KG_OP_MUL, acc, w[kk], v, KG_NONE), KG_NONE), KG_NONE);
  }
  epilogue_at(S, grp, c, av);
}

/* for (j = lo; j < hi; j++) at c[r - 1] = j: the per-output code, or the interior's (w != NULL) */
static void row_loop(mkern *S, const kg_group *grp, const taps *T, uint32_t *c, const uint32_t *bc, uint32_t m, uint32_t lo, uint32_t hi, const uint32_t *w) {
  lctx *L = S->L;
  kg_lw_scope sc;
  kg_lw_mm_memo_reset(L);
  c[S->r - 1] = kg_lw_open_for(L, "j", lo, hi, cst(S, 1), &sc);
  if (w) {
    S->k->stmts.v[L->cur.parent].imm = 1; /* independent iterations: the for statement's */
    interior_at(S, grp, T, c, bc, w);
  } else {
    output_at(S, grp, c, bc, m);
  }
  kg_lw_scope_leave(L, sc);
  kg_lw_mm_memo_reset(L);
}

void kg_lw_direct_rows_cpu(kg_mmk *S, const kg_group *grp) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  int r = grp->space.rank;
  const uint32_t *size_p = S->size_p;
  k->schedule = "conv.direct.rows";
  k->launch.per_output = KG_LAUNCH_ELEMENTS;
  k->launch.block[0] = 1, k->launch.elems_per_thread = KG_CPU_DIRECT_CHUNK;
  k->launch.tile_m = k->launch.tile_n = 0, k->launch.smem_static = 0;
  uint32_t np = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "numel", KPR_NUMEL, 0, 0));
  L->cur = kg_kcursor_top(k);
  uint32_t t = iop(S, KG_OP_IDX_ADD, iop(S, KG_OP_IDX_MUL, sreg(S, KG_SREG_CTAID_X), sreg(S, KG_SREG_NTID_X)), sreg(S, KG_SREG_TID_X));
  uint32_t i0 = kg_lw_decl(L, "i0", L->ix, iop(S, KG_OP_IDX_MUL, t, cst(S, KG_CPU_DIRECT_CHUNK)));
  uint32_t end = kg_lw_decl(L, "end", L->ix, iop(S, KG_OP_MINIMUM, iop(S, KG_OP_IDX_ADD, i0, cst(S, KG_CPU_DIRECT_CHUNK)), kg_kx_param(k, np)));
  /* while (i < end): one segment of the row (the innermost dim) per trip */
  uint32_t iv = kg_kvar_new(k, "i", L->ix);
  stmt(S, KS_DECL, iv, i0, KG_NONE);
  uint32_t ix = kg_kx_var(k, iv);
  kg_ks wh = kg_ks_make(KS_WHILE);
  wh.a = bop(S, KG_OP_LT, ix, end);
  kg_lw_scope seg = kg_lw_scope_enter(L, kg_kcursor_body(k, kg_ks_add(&L->cur, wh), false));
  const kg_dim *wd = &grp->space.d[r - 1];
  uint32_t c[KG_MAX_RANK], wsz = wd->kind == KG_DIM_STATIC ? cst(S, wd->v) : kg_kx_param(k, size_p[r - 1]);
  for (int d = 0; d < r; d++) c[d] = KG_NONE;
  uint32_t cin = kg_lw_decl(L, "c", L->ix, iop(S, KG_OP_IDX_MOD, ix, wsz)), rem = kg_lw_decl(L, "q", L->ix, iop(S, KG_OP_IDX_DIV, ix, wsz));
  split_index(S, grp, rem, r - 1, c); /* the row's coordinates */
  uint32_t len = kg_lw_decl(L, "len", L->ix, iop(S, KG_OP_MINIMUM, iop(S, KG_OP_SUB, wsz, cin), iop(S, KG_OP_SUB, end, ix)));
  uint32_t send = kg_lw_decl(L, "send", L->ix, iop(S, KG_OP_IDX_ADD, cin, len));
  uint32_t bc[2], m;
  group_coords(S, c[0], c[1], bc, &m);
  taps T;
  if (!interior_taps(S, &T)) {
    row_loop(S, grp, &T, c, bc, m, cin, send, NULL);
  } else {
    /* the row's weights */
    uint32_t w[64];
    kg_lw_mm_memo_reset(L);
    for (int64_t kk = 0; kk < T.K; kk++) {
      uint32_t ac[KG_MAX_RANK];
      kg_lw_mm_operand_coord(S->An, false, bc, 2, m == KG_NONE ? cst(S, 0) : m, cst(S, kk), ac);
      w[kk] = kg_lw_decl(L, "w", S->acc, kg_lw_cvt(L, kg_lw_val_at(L, S->mmn->in[0], ac), S->acc));
    }
    /* ok: the rows inside the input, unit strides along the row (read as constants inside) */
    const kg_gnode *x = &L->g->nodes.v[T.x];
    uint32_t ok = KG_NONE, *unit = kg_xmalloc((S->ns + 1) * sizeof *unit), nu = 0;
    for (int i = 0; i < T.nd - 1; i++) {
      uint32_t lo = tap_index(S, &T, i, c[2 + i], 0), hi = tap_index(S, &T, i, c[2 + i], T.ks[i] - 1);
      uint32_t in = kg_kx_op(k, KG_OP_LAND, KG_BOOL, bop(S, KG_OP_GE, lo, cst(S, 0)), bop(S, KG_OP_LT, hi, kg_lw_size(L, &x->shape.d[2 + i])), KG_NONE);
      ok = ok == KG_NONE ? in : kg_kx_op(k, KG_OP_LAND, KG_BOOL, ok, in, KG_NONE);
    }
    if (L->src_of[T.x] != KG_NONE) unit[nu++] = kg_lw_source_stride(L, T.x, x->shape.rank - 1);
    for (uint32_t q = 0; q < S->ns; q++)
      if (S->ostride[q * KG_MAX_RANK + (uint32_t)(r - 1)] != KG_NONE) unit[nu++] = S->ostride[q * KG_MAX_RANK + (uint32_t)(r - 1)];
    for (uint32_t u = 0; u < nu; u++) {
      uint32_t one = bop(S, KG_OP_EQ, kg_kx_param(k, unit[u]), cst(S, 1));
      ok = ok == KG_NONE ? one : kg_kx_op(k, KG_OP_LAND, KG_BOOL, ok, one, KG_NONE);
    }
    ok = ok == KG_NONE ? kg_kx_const_i(k, KG_BOOL, 1) : kg_lw_decl(L, "ok", KG_BOOL, ok);
    /* the interior [jl, jr): jl = ceil(pad / stride); jr = max(W - 1 + pad - (kw - 1) · dil + stride, 0) / stride */
    int li = T.nd - 1;
    uint32_t jl = cst(S, (T.pd[li] + T.st[li] - 1) / T.st[li]);
    uint32_t tw = iop(S, KG_OP_IDX_ADD, kg_lw_size(L, &x->shape.d[2 + li]), cst(S, T.pd[li] - (T.ks[li] - 1) * T.dl[li] + T.st[li] - 1));
    uint32_t jr = iop(S, KG_OP_IDX_DIV, iop(S, KG_OP_MAXIMUM, tw, cst(S, 0)), cst(S, T.st[li]));
    uint32_t lo = kg_kx_select(k, L->ix, ok, jl, send), hi = kg_kx_select(k, L->ix, ok, jr, send);
    uint32_t l1 = kg_lw_decl(L, "l1", L->ix, iop(S, KG_OP_MINIMUM, iop(S, KG_OP_MAXIMUM, lo, cin), send));
    uint32_t l2 = kg_lw_decl(L, "l2", L->ix, iop(S, KG_OP_MINIMUM, iop(S, KG_OP_MAXIMUM, hi, l1), send));
    row_loop(S, grp, &T, c, bc, m, cin, l1, NULL);
    L->unit = unit, L->n_unit = nu;
    row_loop(S, grp, &T, c, bc, m, l1, l2, w);
    L->unit = NULL, L->n_unit = 0;
    free(unit);
    row_loop(S, grp, &T, c, bc, m, l2, send, NULL);
  }
  stmt(S, KS_ASSIGN, iv, iop(S, KG_OP_IDX_ADD, ix, len), KG_NONE);
  kg_lw_scope_leave(L, seg);
}
