/* passes/lower_dot.c — a folded matrix product (MMFOLD, passes/fold_products.c) evaluated at a
 * coordinate of its own shape by the kernel that reads it: one loop over K.
 *
 * The value at (batch..., m, n) is Σ_k A(batch..., m, k) · B(batch..., k, n) (B read at
 * (batch..., n, k) when stored transposed — linear's weight; a 1-D operand loses its matrix
 * dim), both operands evaluated inline with kg_lw_val_at (their pointwise producers, views and
 * broadcasts are index arithmetic, as in the tiled kernel's loads), accumulated in the
 * product's cdtype and rounded once to its dtype. The order of the sum is the tiled kernel's:
 * one chain over k, and for float32 blocks of KG_MM_KBLOCK summed apart and added to the
 * accumulator — so a folded product has the tiled kernel's bits, and the schedule choice never
 * changes a result.
 *
 *   y = tanh(x @ w + b), x [4, 8], w [8, 16] (a pointwise kernel over [4, 16]; c0, c1 its element):
 *     float dot = 0;
 *     for (k = 0; k < 8; k++) dot = dot + in0[c0 * 8 + k] * in1[k * 16 + c1];
 *     out0[...] = tanhf(dot + in2[c1]);
 */
#include "lower_int.h"

static uint32_t ic(lctx *L, int64_t v) { return kg_kx_const_i(L->k, L->ix, v); }

static void assign(lctx *L, uint32_t var, uint32_t e) {
  kg_ks as = kg_ks_make(KS_ASSIGN);
  as.a = var, as.b = e;
  kg_ks_add(&L->cur, as);
}

/* acc += A(.., m, k) · B(.., k, n) for k in [lo, hi) */
static void dot_loop(lctx *L, const kg_gnode *n, const uint32_t *bc, int nb, uint32_t m, uint32_t col, uint32_t lo, uint32_t hi, uint32_t accv) {
  const kg_graph *g = L->g;
  kg_kernel *k = L->k;
  kg_dtype acc = (kg_dtype)n->cdtype;
  bool a1 = n->ia[0] & 1, b1 = n->ia[0] & 2, bt = n->ia[0] & 4;
  kg_lw_scope sc;
  uint32_t kv = kg_lw_open_for(L, "k", lo, hi, ic(L, 1), &sc);
  uint32_t ac[KG_MAX_RANK], bcd[KG_MAX_RANK];
  kg_lw_mm_operand_coord(&g->nodes.v[n->in[0]], a1, bc, nb, a1 ? kv : m, kv, ac);
  if (b1) kg_lw_mm_operand_coord(&g->nodes.v[n->in[1]], true, bc, nb, kv, kv, bcd);
  else if (bt) kg_lw_mm_operand_coord(&g->nodes.v[n->in[1]], false, bc, nb, col, kv, bcd);
  else kg_lw_mm_operand_coord(&g->nodes.v[n->in[1]], false, bc, nb, kv, col, bcd);
  uint32_t x = kg_lw_cvt(L, kg_lw_val_at(L, n->in[0], ac), acc);
  uint32_t y = kg_lw_cvt(L, kg_lw_val_at(L, n->in[1], bcd), acc);
  uint32_t cur = kg_kx_var(k, accv);
  assign(L, accv, kg_kx_op(k, KG_OP_ADD, acc, cur, kg_kx_op(k, KG_OP_MUL, acc, x, y, KG_NONE), KG_NONE));
  kg_lw_scope_leave(L, sc);
}

uint32_t kg_lw_dot_at(lctx *L, uint32_t id, const uint32_t *c) {
  const kg_graph *g = L->g;
  const kg_gnode *n = &g->nodes.v[id];
  const kg_gnode *a = &g->nodes.v[n->in[0]];
  kg_kernel *k = L->k;
  kg_dtype acc = (kg_dtype)n->cdtype, dt = (kg_dtype)n->dtype;
  bool a1 = n->ia[0] & 1, b1 = n->ia[0] & 2;
  int r = n->shape.rank, nb = r - (a1 ? 0 : 1) - (b1 ? 0 : 1);
  uint32_t m = a1 ? KG_NONE : c[nb], col = b1 ? KG_NONE : c[r - 1];
  const kg_dim *kd = &a->shape.d[a->shape.rank - 1]; /* static, or symbolic in the fold plan */
  uint32_t K = kg_lw_size(L, kd);
  bool blocked = acc == KG_F32 && (kd->kind != KG_DIM_STATIC || kd->v > KG_MM_KBLOCK);
  uint32_t accv = kg_kvar_new(k, "dot", acc);
  kg_ks dc = kg_ks_make(KS_DECL);
  dc.a = accv, dc.b = kg_lw_identity(k, KG_OP_RSUM, acc);
  kg_ks_add(&L->cur, dc);
  if (blocked) {
    /* blocks of KG_MM_KBLOCK, each summed from 0 and added (the tiled kernel's order) */
    kg_lw_scope sc;
    uint32_t k1 = kg_lw_open_for(L, "k1", ic(L, 0), K, ic(L, KG_MM_KBLOCK), &sc);
    uint32_t part = kg_kvar_new(k, "part", acc);
    kg_ks pd = kg_ks_make(KS_DECL);
    pd.a = part, pd.b = kg_lw_identity(k, KG_OP_RSUM, acc);
    kg_ks_add(&L->cur, pd);
    uint32_t hi = kg_kx_op(k, KG_OP_MINIMUM, L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, k1, ic(L, KG_MM_KBLOCK), KG_NONE), K, KG_NONE);
    dot_loop(L, n, c, nb, m, col, k1, hi, part);
    assign(L, accv, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, accv), kg_kx_var(k, part), KG_NONE));
    kg_lw_scope_leave(L, sc);
  } else {
    dot_loop(L, n, c, nb, m, col, ic(L, 0), K, accv);
  }
  return kg_lw_decl(L, "mm", dt, kg_lw_cvt(L, kg_kx_var(k, accv), dt));
}
