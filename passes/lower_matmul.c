/* passes/lower_matmul.c — a MATMUL group → one kernel: the tiled shared-memory schedules of a
 * matrix product, with its prologue and epilogue fused.
 *
 * The product C[batch…, m, n] = Σ_k A[batch…, m, k] · B[batch…, k, n] (1-D operands lose their
 * dim; B may be stored [.., n, k], linear's weight). A block of 256 threads owns a bm × bn
 * tile of C (kg_mm_tile: 64 × 64 with 4 × 4 outputs per thread, 32 × 32, 16 × 16, and skinny
 * 4 × 64 / 64 × 4 for vector operands) and walks K in chunks of KG_MM_BK = 16:
 *
 *   for each batch (grid.z, strided), each row of tiles (grid.y, strided), column tile grid.x:
 *     acc[tm][tn] = 0                                     (float32 for half precision)
 *     for k0 in 0, 16, … < K:
 *       As[kk][row] = A(b, m0 + row, k0 + kk)  — the prologue: A's pointwise producers
 *       Bs[kk][col] = B(b, k0 + kk, n0 + col)    evaluated inline at that coordinate
 *                                                 (kg_lw_val_at), 0 outside the matrix
 *       barrier
 *       for kk < 16: acc[i][j] += As[kk][ty + i·TY] · Bs[kk][tx + j·TX]
 *       barrier
 *     (float32: the k0 loop runs in blocks of KG_MM_KBLOCK = 32, summed into part[i][j] from 0
 *     and added to acc after each block: blocked summation, bit-identical for K <= 32)
 *     for each (i, j) inside C: the epilogue — every output of the group (bias, activation,
 *       residual, scale, cast over the product) evaluated at (b, m, n) with the product's
 *       value = acc rounded once to its dtype, stored; so are the values later kernels read
 *
 * Thread (tx, ty) owns rows ty + i·TY and columns tx + j·TX: neighbouring threads read
 * neighbouring shared words and store neighbouring outputs (coalesced). The shared tiles are
 * padded by one element per row (no bank conflicts on the transposing stores). Sizes and
 * strides are parameters (any layout, broadcast batch dims at stride 0); K = 0 leaves the
 * accumulators at 0 and runs the epilogue; empty outputs launch nothing (runtime/exec.c).
 *
 * Operand and epilogue values come from kg_lw_val_at (lower_view.c: any node at any coordinate
 * of its own shape — sources through their own-dim strides, pointwise producers with
 * broadcasting, views and other layout ops as index arithmetic), so a transposed or sliced
 * operand is read in place. The values this kernel stores for later kernels (grp->mats) are
 * computed here, not loaded (lower.c clears their source slots). */
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"


typedef kg_mmk mkern;

static uint32_t cst(mkern *S, int64_t v) { return kg_kx_const_i(S->k, S->ix, v); }
static uint32_t iadd(mkern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_IDX_ADD, S->ix, a, b, KG_NONE); }
static uint32_t imul(mkern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_IDX_MUL, S->ix, a, b, KG_NONE); }
static uint32_t idiv(mkern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_IDX_DIV, S->ix, a, b, KG_NONE); }
static uint32_t imod(mkern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_IDX_MOD, S->ix, a, b, KG_NONE); }
static uint32_t lt(mkern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_LT, KG_BOOL, a, b, KG_NONE); }
static uint32_t land(mkern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_LAND, KG_BOOL, a, b, KG_NONE); }
static uint32_t sreg(mkern *S, int which) { return kg_lw_cvt(S->L, kg_kx_sreg(S->k, which, KG_I32), S->ix); }

/* for (var = from; var < until; var += step) { ... }: the body's cursor, the var's expression */
static kg_kcursor loop(mkern *S, const char *name, uint32_t from, uint32_t until, uint32_t step, uint32_t *var) {
  uint32_t v = kg_kvar_new(S->k, name, S->ix);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.a = v, fr.b = from, fr.c = until, fr.d = step;
  uint32_t st = kg_ks_add(&S->L->cur, fr);
  *var = kg_kx_var(S->k, v);
  return kg_kcursor_body(S->k, st, false);
}

static kg_kcursor if_body(mkern *S, uint32_t cond) {
  kg_ks is = kg_ks_make(KS_IF);
  is.a = cond;
  uint32_t st = kg_ks_add(&S->L->cur, is);
  return kg_kcursor_body(S->k, st, false);
}

static void stmt(mkern *S, kg_ks_kind kind, uint32_t a, uint32_t b, uint32_t c) {
  kg_ks s = kg_ks_make(kind);
  s.a = a, s.b = b, s.c = c;
  kg_ks_add(&S->L->cur, s);
}

/* a saved cursor again, at the current end of its block (appending through another cursor of
 * the same block leaves a saved one's `last` behind) */
static kg_kcursor refresh(kg_kcursor c) { return c.parent == KG_NONE ? kg_kcursor_top(c.k) : kg_kcursor_body(c.k, c.parent, c.els); }

void kg_lw_mm_memo_reset(lctx *L) {
  for (uint32_t i = 0; i < L->g->nodes.n; i++) L->memo[i] = KG_NONE;
  kg_lw_at_reset(L);
}

/* an operand's coordinate (lower_int.h) */
void kg_lw_mm_operand_coord(const kg_gnode *o, bool vec, const uint32_t *bc, int nb, uint32_t x, uint32_t y, uint32_t *c) {
  int r = o->shape.rank;
  if (vec) {
    c[0] = kg_lw_dim_is_one(&o->shape.d[0]) ? KG_NONE : x;
    return;
  }
  for (int j = 0; j < r - 2; j++) c[j] = kg_lw_dim_is_one(&o->shape.d[j]) ? KG_NONE : bc[nb - (r - 2) + j];
  c[r - 2] = kg_lw_dim_is_one(&o->shape.d[r - 2]) ? KG_NONE : x;
  c[r - 1] = kg_lw_dim_is_one(&o->shape.d[r - 1]) ? KG_NONE : y;
}

/* a convolution's spatial coordinates from the flattened output column n (the last dim fastest) */
void kg_lw_mm_conv_spatial(kg_mmk *S, uint32_t n, uint32_t *oc) {
  int outer = -1;
  for (int d = 0; d < S->cnd && outer < 0; d++)
    if (S->ssz[d] != KG_NONE) outer = d;
  uint32_t rem = n;
  for (int d = S->cnd - 1; d >= 0; d--) {
    oc[d] = KG_NONE;
    if (S->ssz[d] == KG_NONE) continue;
    if (d == outer) { oc[d] = rem; continue; }
    oc[d] = kg_lw_decl(S->L, "sc", S->ix, imod(S, rem, S->ssz[d]));
    rem = kg_lw_decl(S->L, "sq", S->ix, idiv(S, rem, S->ssz[d]));
  }
}

void kg_lw_mm_a_coord(kg_mmk *S, const kg_mm_frame *F, uint32_t m, uint32_t k, uint32_t *c) {
  if (S->a1) kg_lw_mm_operand_coord(S->An, true, F->bc, S->nb, k, k, c); /* a 1-D operand: [k] */
  else kg_lw_mm_operand_coord(S->An, false, F->bc, S->nb, m, k, c);
}
void kg_lw_mm_b_coord(kg_mmk *S, const kg_mm_frame *F, uint32_t k, uint32_t n, uint32_t *c) {
  if (S->b1) kg_lw_mm_operand_coord(S->Bn, true, F->bc, S->nb, k, k, c);
  else if (S->conv) { /* IM2COL's coordinate [n, g, k, s...] */
    c[0] = F->bc[0], c[1] = F->bc[1], c[2] = k;
    kg_lw_mm_conv_spatial(S, n, c + 3);
  } else if (S->bt) kg_lw_mm_operand_coord(S->Bn, false, F->bc, S->nb, n, k, c);
  else kg_lw_mm_operand_coord(S->Bn, false, F->bc, S->nb, k, n, c);
}

/* One operand tile of the SIMT schedules: `count` = rows × 16 elements, element e of the tile
 * at (e / minor, e % minor); kmajor: k varies fastest (A, and a transposed B), else the matrix
 * dim does. */
static void load_tile(mkern *S, const kg_mm_frame *F, bool is_b, uint32_t arr, uint32_t pitch, uint32_t rows, bool kmajor, uint32_t tid,
                      uint32_t nthreads, uint32_t k0, uint32_t base, uint32_t extent) {
  lctx *L = S->L;
  uint32_t count = rows * KG_MM_BK, iters = (count + nthreads - 1) / nthreads;
  kg_kcursor outer = L->cur;
  for (uint32_t it = 0; it < iters; it++) {
    L->cur = refresh(outer);
    uint32_t e = it ? kg_lw_decl(L, "e", S->ix, iadd(S, tid, cst(S, (int64_t)it * nthreads))) : tid;
    if (count % nthreads) L->cur = if_body(S, lt(S, e, cst(S, count)));
    uint32_t minor = kmajor ? KG_MM_BK : rows;
    uint32_t hi = kg_lw_decl(L, "te", S->ix, idiv(S, e, cst(S, minor))), lo = kg_lw_decl(L, "tf", S->ix, imod(S, e, cst(S, minor)));
    uint32_t row = kmajor ? hi : lo, kk = kmajor ? lo : hi;
    uint32_t gr = kg_lw_decl(L, "g", S->ix, iadd(S, base, row)), gk = kg_lw_decl(L, "gk", S->ix, iadd(S, k0, kk));
    uint32_t v = kg_lw_decl(L, "a", S->acc, kg_lw_identity(S->k, KG_OP_RSUM, S->acc));
    kg_kcursor here = L->cur;
    L->cur = if_body(S, land(S, lt(S, gr, extent), lt(S, gk, F->K)));
    kg_lw_mm_memo_reset(L);
    uint32_t c[KG_MAX_RANK];
    if (is_b) kg_lw_mm_b_coord(S, F, gk, gr, c);
    else kg_lw_mm_a_coord(S, F, gr, gk, c);
    uint32_t x = kg_lw_val_at(L, is_b ? S->mmn->in[1] : S->mmn->in[0], c);
    stmt(S, KS_ASSIGN, S->k->exprs.v[v].a, kg_lw_cvt(L, x, S->acc), KG_NONE);
    L->cur = refresh(here);
    stmt(S, KS_SSTORE, arr, iadd(S, imul(S, kk, cst(S, pitch)), row), v);
  }
  L->cur = refresh(outer);
}

static uint32_t out_param(lctx *L, kg_arena *A, kg_bufref b, kg_dtype dt) {
  const char *nm = b.kind == KG_BUF_OUTPUT ? kg_arena_printf(A, "out%u", b.index) : kg_arena_printf(A, "tmp%u", b.index);
  return kg_kparam_add(L->k, kg_lw_mkparam(KP_BUFFER, dt, true, nm, KPR_TENSOR, b.kind, b.index));
}

/* ---- convolution geometry ---- */

/* output columns: the product of the spatial sizes */
static uint32_t conv_columns(mkern *S) {
  uint32_t n = KG_NONE;
  for (int d = 0; d < S->cnd; d++)
    if (S->ssz[d] != KG_NONE) n = n == KG_NONE ? S->ssz[d] : imul(S, n, S->ssz[d]);
  return n == KG_NONE ? cst(S, 1) : n;
}

/* the batch index bz as (image, group) */
static void conv_batch(mkern *S, uint32_t bz, bool n_is_one, uint32_t *bc) {
  if (S->G == 1) {
    bc[0] = n_is_one ? KG_NONE : bz, bc[1] = KG_NONE;
    return;
  }
  bc[1] = n_is_one ? bz : kg_lw_decl(S->L, "grp", S->ix, imod(S, bz, cst(S, S->G)));
  bc[0] = n_is_one ? KG_NONE : kg_lw_decl(S->L, "img", S->ix, idiv(S, bz, cst(S, S->G)));
}

/* the output's coordinate [n, g·Og + m, s...] */
static void conv_out_coord(mkern *S, const uint32_t *bc, uint32_t m, uint32_t col, uint32_t *c) {
  c[0] = bc[0];
  c[1] = bc[1] == KG_NONE ? m : iadd(S, imul(S, bc[1], cst(S, S->Og)), m);
  kg_lw_mm_conv_spatial(S, col, c + 2);
}

static void batch_coords(kg_mmk *S, kg_mm_frame *F, uint32_t bz);

/* the product's M, N (a convolution: output channels per group, output columns) and number of
 * batches (a convolution: images × groups) */
static void mm_dims(kg_mmk *S, kg_mm_frame *F) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  const uint32_t *size_p = S->size_p;
  F->M = S->mdim < 0 || size_p[S->mdim] == KG_NONE ? cst(S, 1) : kg_kx_param(k, size_p[S->mdim]);
  F->N = S->ndim < 0 || size_p[S->ndim] == KG_NONE ? cst(S, 1) : kg_kx_param(k, size_p[S->ndim]);
  if (S->conv) F->M = cst(S, S->Og), F->N = kg_lw_decl(L, "ncol", L->ix, conv_columns(S));
  uint32_t nbatch = cst(S, 1);
  for (int d = 0; d < S->nb && !S->conv; d++)
    if (size_p[d] != KG_NONE) nbatch = imul(S, nbatch, kg_kx_param(k, size_p[d]));
  if (S->conv) nbatch = imul(S, size_p[0] == KG_NONE ? cst(S, 1) : kg_kx_param(k, size_p[0]), cst(S, S->G));
  F->nbatch = kg_lw_decl(L, "nbatch", L->ix, nbatch);
}

void kg_lw_mm_frame(kg_mmk *S, uint32_t BM, uint32_t BN, kg_mm_frame *F) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  mm_dims(S, F);
  F->K = kg_kx_param(k, S->kp);
  uint32_t mtiles = kg_lw_decl(L, "mtiles", L->ix, idiv(S, iadd(S, F->M, cst(S, BM - 1)), cst(S, BM)));
  uint32_t nbatch = F->nbatch;
  F->chunk = KG_NONE;
  if (L->v->split == KG_SPLIT_PARTIAL) { /* split-K: grid.x = column tiles × chunks of K */
    uint32_t ntn = kg_lw_decl(L, "ntiles", L->ix, idiv(S, iadd(S, F->N, cst(S, BN - 1)), cst(S, BN)));
    uint32_t cx = kg_lw_decl(L, "cx", L->ix, sreg(S, KG_SREG_CTAID_X));
    F->n0 = kg_lw_decl(L, "n0", L->ix, imul(S, imod(S, cx, ntn), cst(S, BN)));
    F->chunk = kg_lw_decl(L, "chunk", L->ix, idiv(S, cx, ntn));
  } else {
    F->n0 = kg_lw_decl(L, "n0", L->ix, imul(S, sreg(S, KG_SREG_CTAID_X), cst(S, BN)));
  }
  uint32_t bz, my;
  L->cur = loop(S, "bz", sreg(S, KG_SREG_CTAID_Z), nbatch, sreg(S, KG_SREG_NCTAID_Z), &bz);
  L->cur = loop(S, "my", sreg(S, KG_SREG_CTAID_Y), mtiles, sreg(S, KG_SREG_NCTAID_Y), &my);
  F->tile_body = L->cur;
  F->bz = bz;
  F->m0 = kg_lw_decl(L, "m0", L->ix, imul(S, my, cst(S, BM)));
  batch_coords(S, F, bz);
}

/* the batch coordinates of batch index bz, innermost first; the outermost takes what remains */
static void batch_coords(kg_mmk *S, kg_mm_frame *F, uint32_t bz) {
  kg_kernel *k = S->k;
  lctx *L = S->L;
  const uint32_t *size_p = S->size_p;
  uint32_t rem = bz;
  int outer = -1;
  for (int d = 0; d < S->nb; d++) {
    F->bc[d] = KG_NONE;
    if (outer < 0 && size_p[d] != KG_NONE) outer = d;
  }
  if (S->conv) conv_batch(S, bz, size_p[0] == KG_NONE, F->bc);
  for (int d = S->nb - 1; d >= 0 && !S->conv; d--) {
    if (size_p[d] == KG_NONE) continue;
    if (d == outer) { F->bc[d] = rem; break; }
    uint32_t sz = kg_kx_param(k, size_p[d]);
    F->bc[d] = kg_lw_decl(L, "bc", L->ix, imod(S, rem, sz));
    rem = kg_lw_decl(L, "br", L->ix, idiv(S, rem, sz));
  }
}

void kg_lw_mm_store(kg_mmk *S, const kg_mm_frame *F, uint32_t gm, uint32_t gn, uint32_t acc) {
  lctx *L = S->L;
  const kg_graph *g = L->g;
  kg_kcursor here = L->cur;
  L->cur = if_body(S, land(S, lt(S, gm, F->M), lt(S, gn, F->N)));
  kg_lw_mm_memo_reset(L);
  L->memo[L->grp->red] = kg_lw_decl(L, "mm", S->mdt, kg_lw_cvt(L, acc, S->mdt));
  uint32_t c[KG_MAX_RANK];
  for (int d = 0; d < S->nb; d++) c[d] = F->bc[d];
  if (S->mdim >= 0) c[S->mdim] = S->size_p[S->mdim] == KG_NONE ? KG_NONE : gm;
  if (S->ndim >= 0) c[S->ndim] = S->size_p[S->ndim] == KG_NONE ? KG_NONE : gn;
  if (S->conv) conv_out_coord(S, F->bc, gm, gn, c);
  for (uint32_t q = 0; q < S->ns; q++) {
    uint32_t x = kg_lw_cvt(L, kg_lw_val_at(L, S->snode[q], c), (kg_dtype)g->nodes.v[S->snode[q]].dtype);
    uint32_t off = kg_lw_linear_offset(L, c, &S->ostride[q * KG_MAX_RANK], (uint32_t)S->r);
    stmt(S, KS_STORE, S->sparam[q], off == KG_NONE ? cst(S, 0) : off, x);
  }
  L->cur = refresh(here);
}

/* ---- split-K (kg_mm_split_k): a partial kernel per (tile, chunk of K) into a float32 scratch,
 * then a finish kernel summing the chunks in order and running the epilogue ---- */

static uint32_t op64(mkern *S, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(S->k, op, KG_I64, a, b, KG_NONE); }
static uint32_t to64(mkern *S, uint32_t x) { return kg_lw_cvt(S->L, x, KG_I64); }

static uint32_t scratch_param(mkern *S, bool out) {
  if (S->scratch_p == KG_NONE)
    S->scratch_p = kg_kparam_add(S->k, kg_lw_mkparam(KP_BUFFER, KG_F32, out, "part", KPR_TENSOR, KG_BUF_SCRATCH, 0));
  return S->scratch_p;
}

void kg_lw_mm_store_partial(kg_mmk *S, const kg_mm_frame *F, uint32_t gm, uint32_t gn, uint32_t acc) {
  lctx *L = S->L;
  kg_kcursor here = L->cur;
  L->cur = if_body(S, land(S, lt(S, gm, F->M), lt(S, gn, F->N)));
  /* chunk · P + (bz · M + gm) · N + gn with P = nbatch · M · N: the output's own index in the
   * kernel's index type (the outputs fit it), the chunk's start in 64 bits (chunks × outputs may
   * pass 2^31) */
  uint32_t local = iadd(S, imul(S, iadd(S, imul(S, F->bz, F->M), gm), F->N), gn);
  uint32_t P = op64(S, KG_OP_IDX_MUL, op64(S, KG_OP_IDX_MUL, to64(S, F->nbatch), to64(S, F->M)), to64(S, F->N));
  uint32_t off = kg_lw_decl(L, "poff", KG_I64, op64(S, KG_OP_IDX_ADD, op64(S, KG_OP_IDX_MUL, to64(S, F->chunk), P), to64(S, local)));
  stmt(S, KS_STORE, scratch_param(S, true), off, kg_lw_cvt(L, acc, KG_F32));
  L->cur = refresh(here);
}

/* The finish kernel: a thread per output element i of the product (i = (bz · M + m) · N + n),
 * the chunks' partial products summed in chunk order, then the epilogue at (bz, m, n) as the
 * tiles run it (bias, activation, residual, casts, every stored value). */
static void finish_body(mkern *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_mm_frame F;
  memset(&F, 0, sizeof F);
  L->cur = kg_kcursor_top(k);
  mm_dims(S, &F);
  uint32_t nchunk = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "nchunk", KPR_SPLIT_N, 0, 0));
  uint32_t total = kg_lw_decl(L, "total", KG_I64, op64(S, KG_OP_IDX_MUL, op64(S, KG_OP_IDX_MUL, to64(S, F.nbatch), to64(S, F.M)), to64(S, F.N)));
  uint32_t i = kg_lw_decl(L, "i", KG_I64, op64(S, KG_OP_IDX_ADD, op64(S, KG_OP_IDX_MUL, to64(S, sreg(S, KG_SREG_CTAID_X)), kg_kx_const_i(k, KG_I64, k->launch.block[0])),
                                              to64(S, sreg(S, KG_SREG_TID_X))));
  L->cur = if_body(S, kg_kx_op(k, KG_OP_LT, KG_BOOL, i, total, KG_NONE));
  uint32_t sum = kg_kvar_new(k, "sum", KG_F32);
  stmt(S, KS_DECL, sum, kg_kx_const_f(k, KG_F32, 0.0), KG_NONE);
  kg_kcursor body = L->cur;
  uint32_t c;
  L->cur = loop(S, "c", cst(S, 0), kg_kx_param(k, nchunk), cst(S, 1), &c);
  uint32_t at = op64(S, KG_OP_IDX_ADD, op64(S, KG_OP_IDX_MUL, to64(S, c), total), i);
  stmt(S, KS_ASSIGN, sum, kg_kx_op(k, KG_OP_ADD, KG_F32, kg_kx_var(k, sum), kg_kx_load(k, scratch_param(S, false), at), KG_NONE), KG_NONE);
  L->cur = refresh(body);
  uint32_t gn = kg_lw_decl(L, "n", L->ix, kg_lw_cvt(L, op64(S, KG_OP_IDX_MOD, i, to64(S, F.N)), L->ix));
  uint32_t t = kg_lw_decl(L, "t", KG_I64, op64(S, KG_OP_IDX_DIV, i, to64(S, F.N)));
  uint32_t gm = kg_lw_decl(L, "m", L->ix, kg_lw_cvt(L, op64(S, KG_OP_IDX_MOD, t, to64(S, F.M)), L->ix));
  F.bz = kg_lw_decl(L, "bz", L->ix, kg_lw_cvt(L, op64(S, KG_OP_IDX_DIV, t, to64(S, F.M)), L->ix));
  batch_coords(S, &F, F.bz);
  kg_lw_mm_store(S, &F, gm, gn, kg_kx_var(k, sum));
}

/* The SIMT tiles: a block of 256 threads, (tx, ty) owning rows ty + i·TY and columns tx + j·TX
 * of a bm × bn tile, K in chunks of KG_MM_BK through two padded __shared__ tiles. */
static void simt_body(mkern *S, const kg_mm_tile_info *T) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = S->acc;
  uint32_t BM = T->bm, BN = T->bn, TX = T->bn / T->tn, TY = T->bm / T->tm, NT = TX * TY;
  uint32_t As = kg_kshared_add(k, "a", acc, KG_MM_BK * (BM + 1)), Bs = kg_kshared_add(k, "b", acc, KG_MM_BK * (BN + 1));
  L->cur = kg_kcursor_top(k);
  uint32_t tid = kg_lw_decl(L, "tid", L->ix, sreg(S, KG_SREG_TID_X));
  uint32_t tx = kg_lw_decl(L, "tx", L->ix, imod(S, tid, cst(S, TX))), ty = kg_lw_decl(L, "ty", L->ix, idiv(S, tid, cst(S, TX)));
  kg_mm_frame F;
  kg_lw_mm_frame(S, BM, BN, &F);
  kg_lw_mm_row_stats_tile(S, &F, BM, NT, KG_NONE);
  uint32_t k0, kk, K = F.K;
  uint32_t accv[16];
  for (uint32_t i = 0; i < T->tm * T->tn; i++) {
    accv[i] = kg_kvar_new(k, "acc", acc);
    stmt(S, KS_DECL, accv[i], kg_lw_identity(k, KG_OP_RSUM, acc), KG_NONE);
  }
  /* float32: K in blocks of KG_MM_KBLOCK, each block's products summed apart, then added to the
   * accumulator (blocked summation, as BLAS and oneDNN accumulate): a K = 2304 product
   * (ResNet's 3x3 convolutions over 256 channels) was ~3.6x further from the float64 result
   * than PyTorch's in one chain of K additions. For K <= KG_MM_KBLOCK the one block's sum is
   * added to 0: the same bits as one chain (small products keep PyTorch's order). Blocks of 32,
   * not 128: the chain within a block is the error's main part, and PyTorch's CPU products on
   * 16-wide vectors (MKL on AVX-512) sum a K = 288 product in 16 chains of 18 — 2.1-2.7x closer
   * to float64 than blocks of 128 were (examples/mm_sibling_projections' rows_and_results failed
   * the three-way check on such a machine); blocks of 32 are on par (docs/models.md). */
  bool blocked = acc == KG_F32;
  uint32_t partv[16];
  kg_kcursor kblock = L->cur;
  if (blocked) {
    uint32_t k1;
    L->cur = loop(S, "k1", cst(S, 0), K, cst(S, KG_MM_KBLOCK), &k1);
    kblock = L->cur;
    for (uint32_t i = 0; i < T->tm * T->tn; i++) {
      partv[i] = kg_kvar_new(k, "part", acc);
      stmt(S, KS_DECL, partv[i], kg_lw_identity(k, KG_OP_RSUM, acc), KG_NONE);
    }
    uint32_t until = kg_kx_op(k, KG_OP_MINIMUM, S->ix, iadd(S, k1, cst(S, KG_MM_KBLOCK)), K, KG_NONE);
    L->cur = loop(S, "k0", k1, until, cst(S, KG_MM_BK), &k0);
  } else {
    L->cur = loop(S, "k0", cst(S, 0), K, cst(S, KG_MM_BK), &k0);
  }
  /* K in chunks: the two tiles (prologue inline), then the products from shared memory */
  kg_kcursor kbody = L->cur;
  kg_ks cm = kg_ks_make(KS_COMMENT);
  cm.text = "prologue: the A tile";
  kg_ks_add(&L->cur, cm);
  load_tile(S, &F, false, As, BM + 1, BM, true, tid, NT, k0, F.m0, F.M);
  cm.text = "prologue: the B tile";
  L->cur = refresh(kbody);
  kg_ks_add(&L->cur, cm);
  load_tile(S, &F, true, Bs, BN + 1, BN, S->bt, tid, NT, k0, F.n0, F.N);
  L->cur = refresh(kbody);
  stmt(S, KS_BARRIER, KG_NONE, KG_NONE, KG_NONE);
  L->cur = loop(S, "kk", cst(S, 0), cst(S, KG_MM_BK), cst(S, 1), &kk);
  uint32_t av[4], bv[4];
  for (uint32_t i = 0; i < T->tm; i++)
    av[i] = kg_lw_decl(L, "x", acc, kg_kx_sload(k, As, iadd(S, imul(S, kk, cst(S, BM + 1)), iadd(S, ty, cst(S, (int64_t)i * TY)))));
  for (uint32_t j = 0; j < T->tn; j++)
    bv[j] = kg_lw_decl(L, "y", acc, kg_kx_sload(k, Bs, iadd(S, imul(S, kk, cst(S, BN + 1)), iadd(S, tx, cst(S, (int64_t)j * TX)))));
  for (uint32_t i = 0; i < T->tm; i++)
    for (uint32_t j = 0; j < T->tn; j++) {
      uint32_t a = blocked ? partv[i * T->tn + j] : accv[i * T->tn + j];
      stmt(S, KS_ASSIGN, a, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, a), kg_kx_op(k, KG_OP_MUL, acc, av[i], bv[j], KG_NONE), KG_NONE), KG_NONE);
    }
  L->cur = refresh(kbody);
  stmt(S, KS_BARRIER, KG_NONE, KG_NONE, KG_NONE);
  if (blocked) {
    L->cur = refresh(kblock);
    for (uint32_t i = 0; i < T->tm * T->tn; i++)
      stmt(S, KS_ASSIGN, accv[i], kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, accv[i]), kg_kx_var(k, partv[i]), KG_NONE), KG_NONE);
  }
  /* the epilogue: every stored value at each of the thread's outputs inside C */
  L->cur = refresh(F.tile_body);
  kg_ks ce = kg_ks_make(KS_COMMENT);
  ce.text = "epilogue";
  kg_ks_add(&L->cur, ce);
  for (uint32_t i = 0; i < T->tm; i++)
    for (uint32_t j = 0; j < T->tn; j++) {
      L->cur = refresh(F.tile_body);
      uint32_t gm = kg_lw_decl(L, "m", L->ix, iadd(S, F.m0, iadd(S, ty, cst(S, (int64_t)i * TY))));
      uint32_t gn = kg_lw_decl(L, "n", L->ix, iadd(S, F.n0, iadd(S, tx, cst(S, (int64_t)j * TX))));
      kg_lw_mm_store(S, &F, gm, gn, kg_kx_var(k, accv[i * T->tn + j]));
    }
}

bool kg_lw_matmul(lctx *L, const char *name) {
  (void)name;
  kg_kernel *k = L->k;
  const kg_graph *g = L->g;
  const kg_group *grp = L->grp;
  kg_arena *A = L->c->arena;
  mkern S;
  memset(&S, 0, sizeof S);
  S.L = L, S.k = k, S.ix = L->ix;
  S.mmn = &g->nodes.v[grp->red];
  S.An = &g->nodes.v[S.mmn->in[0]], S.Bn = &g->nodes.v[S.mmn->in[1]];
  S.a1 = S.mmn->ia[0] & 1, S.b1 = (S.mmn->ia[0] & 2) != 0, S.bt = (S.mmn->ia[0] & 4) != 0;
  S.acc = (kg_dtype)S.mmn->cdtype, S.mdt = (kg_dtype)S.mmn->dtype;
  const kg_mm_tile_info *T = kg_mm_tile_get((kg_mm_tile)L->v->mm_tile);
  int r = grp->space.rank;
  S.r = r, S.nb = r - (S.a1 ? 0 : 1) - (S.b1 ? 0 : 1);
  S.conv = (S.mmn->ia[0] & 8) != 0;
  S.G = S.conv ? S.mmn->ia[0] >> 8 : 1;
  S.Og = S.conv && S.mmn->shape.d[1].kind == KG_DIM_STATIC ? S.mmn->shape.d[1].v / S.G : 1;
  if (S.conv) S.nb = 2, S.cnd = r - 2;
  S.mdim = S.a1 ? -1 : (S.b1 ? r - 1 : r - 2), S.ndim = S.b1 ? -1 : r - 1;
  for (int d = 0; d < KG_CONV_MAX_DIMS; d++) S.ssz[d] = KG_NONE;
  bool direct = L->v->mm_tile == KG_MM_DIRECT, finish = L->v->split == KG_SPLIT_FINISH;
  S.scratch_p = KG_NONE;
  k->schedule = S.conv ? kg_arena_printf(A, "conv.%s%s", T->name, finish ? ".splitk_finish" : L->v->split ? ".splitk" : "")
                       : kg_arena_printf(A, "matmul.%s%s", T->name, finish ? ".splitk_finish" : L->v->split ? ".splitk" : "");
  k->vec = 1;
  k->launch.per_output = finish ? KG_LAUNCH_ELEMENTS : KG_LAUNCH_TILES;
  k->launch.block[0] = finish ? 256u : T->tier == 2 ? 128u * (T->wm + 1u) : T->tier ? 32u * T->wm * T->wn : (T->bn / T->tn) * (T->bm / T->tm);
  k->launch.elems_per_thread = 1;
  k->launch.tile_m = T->bm, k->launch.tile_n = T->bn;
  uint32_t esz = S.acc == KG_F64 || S.acc == KG_I64 ? 8 : 4;
  k->launch.smem_static = T->tier || finish ? 0 : KG_MM_BK * (T->bm + 1 + T->bn + 1) * esz;

  /* parameters: sources (not the values stored here), outputs and stored values, sizes, K,
   * strides; the sources' own-dim strides come as kg_lw_val_at needs them */
  kg_lw_add_source_params(L, A);
  uint32_t nst = grp->outs.n + grp->mats.n, *senc = kg_xmalloc((nst + 1) * sizeof *senc);
  S.sparam = kg_xmalloc((nst + 1) * sizeof *S.sparam), S.snode = kg_xmalloc((nst + 1) * sizeof *S.snode);
  uint32_t ns = 0;
  for (uint32_t j = 0; j < grp->outs.n; j++) {
    uint32_t o = grp->outs.v[j];
    kg_bufref b = {KG_BUF_OUTPUT, o};
    S.snode[ns] = g->outputs.v[o], senc[ns] = 0x80000000u | o;
    S.sparam[ns++] = out_param(L, A, b, (kg_dtype)g->nodes.v[g->outputs.v[o]].dtype);
  }
  for (uint32_t j = 0; j < grp->mats.n; j++) {
    uint32_t q = grp->mats.v[j], mi = kg_fusion_mat_index(L->f, q);
    kg_bufref b = L->f->mat_buf.v[mi];
    bool dup = false; /* an output of this kernel already: stored once */
    for (uint32_t i = 0; i < grp->outs.n; i++) dup |= b.kind == KG_BUF_OUTPUT && grp->outs.v[i] == b.index;
    if (dup) continue;
    S.snode[ns] = q, senc[ns] = (b.kind == KG_BUF_OUTPUT ? 0x80000000u : 0x40000000u) | b.index;
    S.sparam[ns++] = out_param(L, A, b, (kg_dtype)g->nodes.v[q].dtype);
  }
  S.ns = ns;
  for (int d = 0; d < r; d++)
    S.size_p[d] = kg_lw_dim_is_one(&grp->space.d[d]) ? KG_NONE
                                                     : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "size%d", d), KPR_SIZE, 0, (uint32_t)d));
  S.kp = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "k", KPR_RED_N, 0, 0));
  S.ostride = kg_xmalloc(((size_t)ns * KG_MAX_RANK + 1) * sizeof *S.ostride);
  for (uint32_t j = 0; j < ns; j++)
    for (int d = 0; d < r; d++)
      S.ostride[j * KG_MAX_RANK + (uint32_t)d] =
          S.size_p[d] == KG_NONE ? KG_NONE
                                 : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(A, "so%u_%d", j, d), KPR_STRIDE, senc[j], (uint32_t)d));
  /* a convolution's spatial sizes: on the CPU target a static one is a constant (a column's
   * coordinates, computed per panel column and per epilogue column, divide by multiplies) */
  for (int d = 0; d < S.cnd; d++) {
    const kg_dim *sd = &grp->space.d[2 + d];
    S.ssz[d] = S.size_p[2 + d] == KG_NONE ? KG_NONE : L->v->cpu && sd->kind == KG_DIM_STATIC ? kg_kx_const_i(k, S.ix, sd->v) : kg_kx_param(k, S.size_p[2 + d]);
  }
  bool stats_ok = true; /* row statistics (lower_rowstats.c): the SIMT and mma.sync tiles and the CPU's compute them */
  for (uint32_t j = 0; j < grp->pre.n; j++) stats_ok &= kg_mm_row_stat_ok(g, S.mmn, grp->pre.v[j]);
  bool lowered = false; /* refused (an internal error) when the schedule cannot build this product */
  if (grp->pre.n && (!stats_ok || grp->pre.n > KG_MM_ROW_STATS || direct || T->tier == 2))
    kg_diag_add(L->c->d, KG_E_INTERNAL, NULL, NULL, "a product's row statistics that the %s schedule cannot compute", T->name);
  else if (L->v->split == KG_SPLIT_PARTIAL && T->tier != 1) /* split-K is the mma.sync tier's (kg_mm_split_k) */
    kg_diag_add(L->c->d, KG_E_INTERNAL, NULL, NULL, "split-K asked of the %s tiles, which do not split K", T->name);
  else if (L->v->mm_fold && (!kg_mm_tile_cpu_panel(L->v->mm_tile) || (S.conv && S.G != 1) || S.a1 || S.b1 || grp->pre.n))
    kg_diag_add(L->c->d, KG_E_INTERNAL, NULL, NULL, "a batch folded into the rows (a convolution's images into the columns) of a product the %s schedule cannot fold (groups, a 1-D operand, row statistics)", T->name);
  else lowered = true;
  if (lowered) {
    if (finish) finish_body(&S);
    else if (direct && L->v->cpu) kg_lw_direct_rows_cpu(&S, grp);
    else if (direct) kg_lw_direct_body(&S, grp);
    else if (kg_mm_tile_cpu(L->v->mm_tile)) kg_lw_mm_cpu_body(&S);
    else if (T->tier == 2) kg_lw_wgmma_body(&S);
    else if (T->tier) kg_lw_mma_body(&S);
    else simt_body(&S, T);
  }
  bool stats_read = kg_lw_row_stats_end(L);
  free(S.sparam), free(S.snode), free(senc), free(S.ostride);
  kg_lw_view_free(L);
  free(L->needed), free(L->local), free(L->src_of), free(L->memo), free(L->pparam), free(L->poff), free(L->plane), free(L->oparam), free(L->ooff);
  if (!lowered || !stats_read || (L->c->verify && !kg_kernel_verify(k, L->c->d))) return false;
  return true;
}
