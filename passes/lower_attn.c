/* passes/lower_attn.c — an ATTN group → ONE kernel: scaled dot-product attention in the flash
 * scheme (Dao et al. 2022): a tile of queries stays on chip, the keys and values stream through
 * shared memory in blocks, the softmax is computed online (a running max and sum per query), so
 * no L × S matrix is ever in memory and the bytes moved grow as O(T · d), not O(T²).
 *
 *   for each batch (grid.z, strided) and query tile q0 (grid.y, strided):
 *     Qs[i][e] = q(b, q0 + i, e)                  the prologue: q's producers inline (kg_lw_val_at)
 *     m_i = -inf, l_i = 0, o_i[d] = 0              per query row (threads / bq threads per row)
 *     for k0 in 0, bk, … < S (causal: < q0 + bq; the blocks above the diagonal are skipped):
 *       KVs[j][e] = k(b, k0 + j, e)                                    barrier
 *       s_ij = Qs[i]·KVs[j] · scale (+ mask | bool mask, causal, keys past S: -inf)
 *                                                  attn_qk: the first product, over shared tiles
 *       Ps[i][j] = s_ij                                                barrier
 *       m' = max(m_i, max_j Ps[i][j])                                  barrier
 *       p_ij = exp(s_ij - m'); Ps[i][j] = p_ij · dropout(b, i, j); Ls[i][t] = Σ own p_ij
 *       KVs[j][d] = v(b, k0 + j, d)                                    barrier
 *       α = exp(m_i - m'); l_i = l_i·α + Σ_t Ls[i][t]; o_i = o_i·α + Σ_j Ps[i][j]·KVs[j]
 *                                                  attn_pv: the second product, over shared tiles
 *       m_i = m'                                                       barrier
 *     out(b, q0 + i, d) = o_i[d] / l_i — the epilogue: every output of the group (a residual, a
 *       cast, a scale over the attention) at (b, i, d), as a product's epilogue
 *
 * The two products (attn_qk: S = Q·Kᵀ of a block; attn_pv: O += P·V) are separate functions over
 * the shared-memory tiles Qs, KVs and Ps. The tensor-core tile (KG_ATTN_TC64, float16 / bfloat16)
 * has its own body (lower_attn_mma.c: fragments in registers, the same frame, score function,
 * dropout and epilogue from this file). Everything is computed in the accumulator dtype (float32 for float16 / bfloat16, float64
 * for float64) and rounded once at the store. A row every key of which is masked is NaN (softmax
 * over -inf, as PyTorch's math path); with no keys at all (S = 0) the output is 0, as the math
 * path's empty product. The m' = -inf case exponentiates against 0 (no NaN from -inf - -inf while
 * a row has seen only masked keys). The schedule (tile sizes) is the scheduler's
 * (kg_attn_choose_tile, passes/schedule.c).
 *
 * An attention recognized from hand-written code (passes/attention.c, ia[0] & 16) brings its own
 * score function: in[3] is the user's scores expression x (scale, masks, ...) over in[4], an
 * ATTN_SCORES placeholder standing for q·kᵀ; each score is x evaluated at (b, qi, kj) with the
 * placeholder's value set to the dot product just computed (ia[0] & 32: k arrives as kᵀ and its
 * tile is read transposed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn_int.h"

#define cst kg_attn_cst
#define fcst kg_attn_fcst
#define iop kg_attn_iop
#define fop kg_attn_fop
#define bop kg_attn_bop
#define newvar kg_attn_newvar
#define stmt kg_attn_stmt
#define open_if kg_attn_if
#define forget kg_attn_forget
#define operand_at kg_attn_operand

uint32_t kg_attn_cst(akern *A, int64_t v) { return kg_kx_const_i(A->k, A->ix, v); }
uint32_t kg_attn_fcst(akern *A, double v) { return kg_kx_const_f(A->k, A->acc, v); }
uint32_t kg_attn_iop(akern *A, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(A->k, op, A->ix, a, b, KG_NONE); }
uint32_t kg_attn_fop(akern *A, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(A->k, op, A->acc, a, b, KG_NONE); }
uint32_t kg_attn_bop(akern *A, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(A->k, op, KG_BOOL, a, b, KG_NONE); }
static uint32_t var(akern *A, uint32_t v) { return kg_kx_var(A->k, v); }

void kg_attn_stmt(akern *A, kg_ks_kind kind, uint32_t a, uint32_t b, uint32_t c) {
  kg_ks s = kg_ks_make(kind);
  s.a = a, s.b = b, s.c = c;
  kg_ks_add(&A->L->cur, s);
}

uint32_t kg_attn_newvar(akern *A, const char *name, kg_dtype t, uint32_t init) {
  uint32_t v = kg_kvar_new(A->k, name, t);
  stmt(A, KS_DECL, v, init, KG_NONE);
  return v;
}

static void barrier(akern *A) { stmt(A, KS_BARRIER, KG_NONE, KG_NONE, KG_NONE); }

/* if (cond) { … }: L->cur is the body, in a scope (values computed there are forgotten) */
kg_lw_scope kg_attn_if(akern *A, uint32_t cond) {
  kg_ks is = kg_ks_make(KS_IF);
  is.a = cond;
  uint32_t st = kg_ks_add(&A->L->cur, is);
  return kg_lw_scope_enter(A->L, kg_kcursor_body(A->k, st, false));
}

/* forget per-element values: the next evaluation has other coordinates */
void kg_attn_forget(lctx *L) {
  for (uint32_t i = 0; i < L->g->nodes.n; i++) L->memo[i] = KG_NONE;
  kg_lw_at_reset(L);
}

/* operand `id` (of the ATTN node) at (batch, x, y) in the accumulator dtype */
uint32_t kg_attn_operand(akern *A, uint32_t id, uint32_t x, uint32_t y) {
  uint32_t c[KG_MAX_RANK];
  kg_lw_mm_operand_coord(&A->L->g->nodes.v[id], false, A->bc, A->nb, x, y, c);
  return kg_lw_cvt(A->L, kg_lw_val_at(A->L, id, c), A->acc);
}

/* A [rows × cols] tile of operand `id` into shared array `arr` (row pitch `pitch`): rows row0 …
 * of the operand (0 past `extent`), its last dim 0 … cols; every thread loads every nt-th
 * element (consecutive threads: consecutive elements of a row, coalesced when it is contiguous). */
static void load_tile(akern *A, uint32_t arr, uint32_t pitch, uint32_t rows, uint32_t cols, uint32_t row0, uint32_t extent, uint32_t id, bool trans) {
  lctx *L = A->L;
  kg_lw_scope sc;
  uint32_t t = kg_lw_open_for(L, "t", A->tid, cst(A, (int64_t)rows * cols), cst(A, A->nt), &sc);
  uint32_t i = kg_lw_decl(L, "ti", A->ix, iop(A, KG_OP_IDX_DIV, t, cst(A, cols)));
  uint32_t e = kg_lw_decl(L, "te", A->ix, iop(A, KG_OP_IDX_MOD, t, cst(A, cols)));
  uint32_t gi = kg_lw_decl(L, "tg", A->ix, iop(A, KG_OP_IDX_ADD, row0, i));
  uint32_t v = newvar(A, "tv", A->acc, fcst(A, 0));
  kg_lw_scope si = open_if(A, bop(A, KG_OP_LT, gi, extent));
  forget(L);
  stmt(A, KS_ASSIGN, v, trans ? operand_at(A, id, e, gi) : operand_at(A, id, gi, e), KG_NONE);
  kg_lw_scope_leave(L, si);
  stmt(A, KS_SSTORE, arr, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, i, cst(A, pitch)), e), var(A, v));
  kg_lw_scope_leave(L, sc);
}

/* The first product: s[cc] = Σ_e Qs[row][e] · KVs[lane + cc·tpr][e] for this thread's ncol key
 * columns of the block (over the shared tiles: the tensor-core tier replaces this function). */
static void attn_qk(akern *A, uint32_t *s) {
  lctx *L = A->L;
  for (uint32_t cc = 0; cc < A->ncol; cc++) s[cc] = newvar(A, "s", A->acc, fcst(A, 0));
  kg_lw_scope sc;
  uint32_t e = kg_lw_open_for(L, "e", cst(A, 0), cst(A, A->E), cst(A, 1), &sc);
  uint32_t qv = kg_lw_decl(L, "qe", A->acc, kg_kx_sload(A->k, A->Qs, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->qpitch)), e)));
  for (uint32_t cc = 0; cc < A->ncol; cc++) {
    uint32_t col = iop(A, KG_OP_IDX_ADD, A->lane, cst(A, (int64_t)cc * A->tpr));
    uint32_t kv = kg_kx_sload(A->k, A->KVs, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, col, cst(A, A->kvpitch)), e));
    stmt(A, KS_ASSIGN, s[cc], fop(A, KG_OP_ADD, var(A, s[cc]), fop(A, KG_OP_MUL, qv, kv)), KG_NONE);
  }
  kg_lw_scope_leave(L, sc);
}

/* The second product: o[j] += Σ_c Ps[row][c] · KVs[c][lane + j·tpr] over the block's bk keys
 * (over the shared tiles: the tensor-core tier replaces this function). */
static void attn_pv(akern *A, const uint32_t *o) {
  lctx *L = A->L;
  kg_lw_scope sc;
  uint32_t c = kg_lw_open_for(L, "c", cst(A, 0), cst(A, A->bk), cst(A, 1), &sc);
  uint32_t p = kg_lw_decl(L, "pc", A->acc, kg_kx_sload(A->k, A->Ps, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->ppitch)), c)));
  uint32_t base = kg_lw_decl(L, "vb", A->ix, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, c, cst(A, A->kvpitch)), A->lane));
  for (uint32_t j = 0; j < A->nacc; j++) {
    uint32_t vv = kg_kx_sload(A->k, A->KVs, iop(A, KG_OP_IDX_ADD, base, cst(A, (int64_t)j * A->tpr)));
    stmt(A, KS_ASSIGN, o[j], fop(A, KG_OP_ADD, var(A, o[j]), fop(A, KG_OP_MUL, p, vv)), KG_NONE);
  }
  kg_lw_scope_leave(L, sc);
}

static void store_params(akern *A, const uint32_t *size_p, astore *st) {
  lctx *L = A->L;
  const kg_group *grp = L->grp;
  const kg_graph *g = L->g;
  kg_arena *AR = L->c->arena;
  int r = grp->space.rank;
  uint32_t cap = grp->outs.n + grp->mats.n + 1, *enc = kg_xmalloc(cap * sizeof *enc);
  st->param = kg_xmalloc(cap * sizeof *st->param), st->node = kg_xmalloc(cap * sizeof *st->node), st->n = 0;
  for (uint32_t j = 0; j < grp->outs.n + grp->mats.n; j++) {
    bool out = j < grp->outs.n;
    uint32_t node = out ? g->outputs.v[grp->outs.v[j]] : grp->mats.v[j - grp->outs.n];
    kg_bufref b = {KG_BUF_OUTPUT, out ? grp->outs.v[j] : 0};
    if (!out) {
      b = L->f->mat_buf.v[kg_fusion_mat_index(L->f, node)];
      bool dup = false; /* an output of this kernel already: stored once */
      for (uint32_t i = 0; i < grp->outs.n; i++) dup |= b.kind == KG_BUF_OUTPUT && grp->outs.v[i] == b.index;
      if (dup) continue;
    }
    const char *nm = b.kind == KG_BUF_OUTPUT ? kg_arena_printf(AR, "out%u", b.index) : kg_arena_printf(AR, "tmp%u", b.index);
    st->node[st->n] = node, enc[st->n] = (b.kind == KG_BUF_OUTPUT ? 0x80000000u : 0x40000000u) | b.index;
    st->param[st->n++] = kg_kparam_add(A->k, kg_lw_mkparam(KP_BUFFER, (kg_dtype)g->nodes.v[node].dtype, true, nm, KPR_TENSOR, b.kind, b.index));
  }
  st->stride = kg_xmalloc(((size_t)st->n * KG_MAX_RANK + 1) * sizeof *st->stride);
  for (uint32_t j = 0; j < st->n; j++)
    for (int d = 0; d < r; d++)
      st->stride[j * KG_MAX_RANK + (uint32_t)d] =
          size_p[d] == KG_NONE ? KG_NONE
                               : kg_kparam_add(A->k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(AR, "so%u_%d", j, d), KPR_STRIDE, enc[j], (uint32_t)d));
  free(enc);
}

uint32_t kg_attn_score(akern *A, uint32_t qi, uint32_t kj, uint32_t dot, uint32_t scale) {
  lctx *L = A->L;
  const kg_gnode *at = A->at;
  int64_t fl = at->ia[0];
  uint32_t ninf = fcst(A, -INFINITY);
  uint32_t valid = bop(A, KG_OP_LAND, bop(A, KG_OP_LT, kj, A->S), bop(A, KG_OP_LT, qi, A->Lq));
  if (fl & 1) valid = bop(A, KG_OP_LAND, valid, bop(A, KG_OP_LE, kj, qi));
  uint32_t sv = newvar(A, "sc", A->acc, ninf);
  kg_lw_scope si = open_if(A, valid);
  if (fl & 16) { /* the user's score function of the dot product, at (b, qi, kj) */
    forget(L);
    uint32_t ph = at->in[4], xc[KG_MAX_RANK];
    kg_lw_memo_set(L, ph, kg_lw_cvt(L, var(A, dot), (kg_dtype)L->g->nodes.v[ph].dtype));
    kg_lw_mm_operand_coord(&L->g->nodes.v[at->in[3]], false, A->bc, A->nb, qi, kj, xc);
    stmt(A, KS_ASSIGN, sv, kg_lw_cvt(L, kg_lw_val_at(L, at->in[3], xc), A->acc), KG_NONE);
  } else {
    stmt(A, KS_ASSIGN, sv, fop(A, KG_OP_MUL, var(A, dot), scale), KG_NONE);
  }
  if (fl & 2) {
    forget(L);
    uint32_t mc[KG_MAX_RANK];
    kg_lw_mm_operand_coord(&L->g->nodes.v[at->in[3]], false, A->bc, A->nb, qi, kj, mc);
    uint32_t m = kg_lw_val_at(L, at->in[3], mc);
    if (fl & 4) stmt(A, KS_ASSIGN, sv, kg_kx_select(A->k, A->acc, bop(A, KG_OP_NE, m, kg_kx_const_i(A->k, KG_BOOL, 0)), var(A, sv), ninf), KG_NONE);
    else stmt(A, KS_ASSIGN, sv, fop(A, KG_OP_ADD, var(A, sv), kg_lw_cvt(L, m, A->acc)), KG_NONE);
  }
  kg_lw_scope_leave(L, si);
  return sv;
}

uint32_t kg_attn_dropped(akern *A, uint32_t qi, uint32_t kj, uint32_t p) {
  lctx *L = A->L;
  const kg_gnode *at = A->at;
  if (!(at->ia[0] & 8)) return p;
  uint32_t dv = newvar(A, "dp", A->acc, fcst(A, 0));
  kg_lw_scope si = open_if(A, bop(A, KG_OP_LAND, bop(A, KG_OP_LT, kj, A->S), bop(A, KG_OP_LT, qi, A->Lq)));
  forget(L);
  uint32_t dc[KG_MAX_RANK];
  uint32_t dm = at->in[at->n_in - 1]; /* the dropout mask: the last operand */
  kg_lw_mm_operand_coord(&L->g->nodes.v[dm], false, A->bc, A->nb, qi, kj, dc);
  stmt(A, KS_ASSIGN, dv, fop(A, KG_OP_MUL, p, kg_lw_cvt(L, kg_lw_val_at(L, dm, dc), A->acc)), KG_NONE);
  kg_lw_scope_leave(L, si);
  return var(A, dv);
}

void kg_attn_store(akern *A, uint32_t qi, uint32_t dcol, uint32_t val) {
  lctx *L = A->L;
  const kg_graph *g = L->g;
  int r = A->r;
  kg_lw_scope si = open_if(A, bop(A, KG_OP_LAND, bop(A, KG_OP_LT, qi, A->Lq), bop(A, KG_OP_LT, dcol, cst(A, A->Ev))));
  forget(L);
  kg_dtype mdt = (kg_dtype)A->at->dtype;
  L->memo[L->grp->red] = kg_lw_decl(L, "at", mdt, kg_lw_cvt(L, val, mdt));
  uint32_t c[KG_MAX_RANK];
  for (int d = 0; d < A->nb; d++) c[d] = A->bc[d];
  c[r - 2] = A->size_p[r - 2] == KG_NONE ? KG_NONE : qi;
  c[r - 1] = A->size_p[r - 1] == KG_NONE ? KG_NONE : dcol;
  for (uint32_t q = 0; q < A->st.n; q++) {
    uint32_t x = kg_lw_cvt(L, kg_lw_val_at(L, A->st.node[q], c), (kg_dtype)g->nodes.v[A->st.node[q]].dtype);
    uint32_t off = kg_lw_linear_offset(L, c, &A->st.stride[q * KG_MAX_RANK], (uint32_t)r);
    stmt(A, KS_STORE, A->st.param[q], off == KG_NONE ? cst(A, 0) : off, x);
  }
  kg_lw_scope_leave(L, si);
}

/* the per-block work over one key block k0 (the loop body of the kernel) */
static void key_block(akern *A, uint32_t k0, uint32_t q0, uint32_t mvar, uint32_t lvar, const uint32_t *o, uint32_t scale) {
  lctx *L = A->L;
  const kg_gnode *at = A->at;
  int64_t fl = at->ia[0];
  uint32_t qi = kg_lw_decl(L, "qi", A->ix, iop(A, KG_OP_IDX_ADD, q0, A->row));
  kg_kcursor body = L->cur;
  /* the key tile */
  load_tile(A, A->KVs, A->kvpitch, A->bk, A->E, k0, A->S, at->in[1], (fl & 32) != 0);
  L->cur = kg_kcursor_body(A->k, body.parent, body.els);
  barrier(A);
  /* scores of this thread's columns, masked, into Ps */
  uint32_t s[32];
  attn_qk(A, s);
  uint32_t ninf = fcst(A, -INFINITY);
  for (uint32_t cc = 0; cc < A->ncol; cc++) {
    uint32_t col = kg_lw_decl(L, "kc", A->ix, iop(A, KG_OP_IDX_ADD, A->lane, cst(A, (int64_t)cc * A->tpr)));
    uint32_t kj = kg_lw_decl(L, "kj", A->ix, iop(A, KG_OP_IDX_ADD, k0, col));
    uint32_t sv = kg_attn_score(A, qi, kj, s[cc], scale);
    s[cc] = sv;
    stmt(A, KS_SSTORE, A->Ps, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->ppitch)), col), var(A, sv));
  }
  barrier(A);
  /* the row's new max (every thread of the row reads the row: identical values) */
  uint32_t mb = newvar(A, "mb", A->acc, ninf);
  {
    kg_lw_scope sc;
    uint32_t c = kg_lw_open_for(L, "c", cst(A, 0), cst(A, A->bk), cst(A, 1), &sc);
    uint32_t x = kg_kx_sload(A->k, A->Ps, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->ppitch)), c));
    stmt(A, KS_ASSIGN, mb, fop(A, KG_OP_MAXIMUM, var(A, mb), x), KG_NONE);
    kg_lw_scope_leave(L, sc);
  }
  uint32_t mnew = kg_lw_decl(L, "mn", A->acc, fop(A, KG_OP_MAXIMUM, var(A, mvar), var(A, mb)));
  uint32_t muse = kg_lw_decl(L, "mu", A->acc, kg_kx_select(A->k, A->acc, bop(A, KG_OP_EQ, mnew, ninf), fcst(A, 0), mnew));
  uint32_t alpha = kg_lw_decl(L, "al", A->acc, kg_kx_op(A->k, KG_OP_EXP, A->acc, fop(A, KG_OP_SUB, var(A, mvar), muse), KG_NONE, KG_NONE));
  barrier(A);
  /* probabilities of this thread's columns (dropped after the sum, as the math path drops the
   * softmax's output), their partial sum; the value tile */
  uint32_t psum = newvar(A, "ps", A->acc, fcst(A, 0));
  for (uint32_t cc = 0; cc < A->ncol; cc++) {
    uint32_t col = iop(A, KG_OP_IDX_ADD, A->lane, cst(A, (int64_t)cc * A->tpr));
    uint32_t p = kg_lw_decl(L, "p", A->acc, kg_kx_op(A->k, KG_OP_EXP, A->acc, fop(A, KG_OP_SUB, var(A, s[cc]), muse), KG_NONE, KG_NONE));
    stmt(A, KS_ASSIGN, psum, fop(A, KG_OP_ADD, var(A, psum), p), KG_NONE);
    uint32_t pv = kg_attn_dropped(A, qi, iop(A, KG_OP_IDX_ADD, k0, col), p);
    stmt(A, KS_SSTORE, A->Ps, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->ppitch)), col), pv);
  }
  stmt(A, KS_SSTORE, A->Ls, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->tpr)), A->lane), var(A, psum));
  body = L->cur;
  load_tile(A, A->KVs, A->kvpitch, A->bk, A->Ev, k0, A->S, at->in[2], false);
  L->cur = kg_kcursor_body(A->k, body.parent, body.els);
  barrier(A);
  /* the running sum and the rescaled accumulators, then P·V */
  uint32_t ls = newvar(A, "ls", A->acc, fcst(A, 0));
  for (uint32_t t = 0; t < A->tpr; t++)
    stmt(A, KS_ASSIGN, ls, fop(A, KG_OP_ADD, var(A, ls), kg_kx_sload(A->k, A->Ls, iop(A, KG_OP_IDX_ADD, iop(A, KG_OP_IDX_MUL, A->row, cst(A, A->tpr)), cst(A, t)))), KG_NONE);
  stmt(A, KS_ASSIGN, lvar, fop(A, KG_OP_ADD, fop(A, KG_OP_MUL, var(A, lvar), alpha), var(A, ls)), KG_NONE);
  stmt(A, KS_ASSIGN, mvar, mnew, KG_NONE);
  for (uint32_t j = 0; j < A->nacc; j++) stmt(A, KS_ASSIGN, o[j], fop(A, KG_OP_MUL, var(A, o[j]), alpha), KG_NONE);
  attn_pv(A, o);
  barrier(A);
}

bool kg_lw_attention(lctx *L, const char *name) {
  (void)name;
  kg_kernel *k = L->k;
  const kg_graph *g = L->g;
  const kg_group *grp = L->grp;
  kg_arena *AR = L->c->arena;
  akern AS, *A = &AS;
  memset(A, 0, sizeof *A);
  A->L = L, A->k = k, A->ix = L->ix;
  A->at = &g->nodes.v[grp->red];
  const kg_gnode *qn = &g->nodes.v[A->at->in[0]];
  if (A->at->ia[0] & 16) L->local[A->at->in[4]] = 1; /* the scores placeholder: the dot product computed here */
  A->acc = (kg_dtype)A->at->cdtype;
  const kg_attn_tile_info *T = kg_attn_tile_get((kg_attn_tile)L->v->mm_tile);
  bool tc = T->tensor_cores;
  int r = grp->space.rank;
  A->r = r, A->nb = r - 2;
  A->bq = T->bq, A->bk = T->bk, A->nt = T->threads, A->tpr = T->threads / T->bq;
  A->E = (uint32_t)qn->shape.d[qn->shape.rank - 1].v, A->Ev = (uint32_t)grp->space.d[r - 1].v;
  A->nacc = (A->Ev + A->tpr - 1) / A->tpr, A->ncol = A->bk / A->tpr;
  uint32_t evpad = A->nacc * A->tpr;
  A->qpitch = A->E + 1, A->kvpitch = (A->E > evpad ? A->E : evpad) + 1, A->ppitch = A->bk + 1;
  k->schedule = kg_arena_printf(AR, "attention.%s", T->name);
  k->vec = 1;
  k->launch.per_output = KG_LAUNCH_TILES; /* grid (1, query tiles, batch): exec.c sets M = L, N = Ev */
  k->launch.block[0] = A->nt;
  k->launch.elems_per_thread = 1;
  k->launch.tile_m = A->bq, k->launch.tile_n = A->Ev;
  if (tc) k->launch.smem_dyn = kg_attn_mma_smem(A->E, A->Ev);
  else k->launch.smem_static = kg_attn_smem((kg_attn_tile)L->v->mm_tile, A->E, A->Ev, kg_dtype_get(A->acc)->size);

  /* parameters: sources, stored values, sizes, S, output strides */
  kg_lw_add_source_params(L, AR);
  uint32_t *size_p = A->size_p;
  for (int d = 0; d < r; d++)
    size_p[d] = kg_lw_dim_is_one(&grp->space.d[d]) ? KG_NONE
                                                   : kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, kg_arena_printf(AR, "size%d", d), KPR_SIZE, 0, (uint32_t)d));
  uint32_t sp = kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "nkeys", KPR_RED_N, 0, 0));
  store_params(A, size_p, &A->st);
  if (!tc) {
    A->Qs = kg_kshared_add(k, "q", A->acc, A->bq * A->qpitch);
    A->KVs = kg_kshared_add(k, "kv", A->acc, A->bk * A->kvpitch);
    A->Ps = kg_kshared_add(k, "p", A->acc, A->bq * A->ppitch);
    A->Ls = kg_kshared_add(k, "l", A->acc, A->bq * A->tpr);
  }

  /* body */
  L->cur = kg_kcursor_top(k);
  A->tid = kg_lw_decl(L, "tid", L->ix, kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32), L->ix));
  if (!tc) {
    A->row = kg_lw_decl(L, "row", L->ix, iop(A, KG_OP_IDX_DIV, A->tid, cst(A, A->tpr)));
    A->lane = kg_lw_decl(L, "lane", L->ix, iop(A, KG_OP_IDX_MOD, A->tid, cst(A, A->tpr)));
  }
  A->Lq = size_p[r - 2] == KG_NONE ? cst(A, 1) : kg_kx_param(k, size_p[r - 2]);
  A->S = kg_lw_decl(L, "nk", L->ix, kg_kx_param(k, sp));
  uint32_t qtiles = kg_lw_decl(L, "qtiles", L->ix, iop(A, KG_OP_IDX_DIV, iop(A, KG_OP_IDX_ADD, A->Lq, cst(A, A->bq - 1)), cst(A, A->bq)));
  uint32_t nbatch = cst(A, 1);
  for (int d = 0; d < A->nb; d++)
    if (size_p[d] != KG_NONE) nbatch = iop(A, KG_OP_IDX_MUL, nbatch, kg_kx_param(k, size_p[d]));
  nbatch = kg_lw_decl(L, "nbatch", L->ix, nbatch);
  uint32_t scale = fcst(A, A->at->fa[0]);
  kg_lw_scope s_bz, s_my;
  uint32_t bz = kg_lw_open_for(L, "bz", kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_CTAID_Z, KG_I32), L->ix), nbatch,
                               kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_NCTAID_Z, KG_I32), L->ix), &s_bz);
  uint32_t my = kg_lw_open_for(L, "my", kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_CTAID_Y, KG_I32), L->ix), qtiles,
                               kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_NCTAID_Y, KG_I32), L->ix), &s_my);
  uint32_t q0 = kg_lw_decl(L, "q0", L->ix, iop(A, KG_OP_IDX_MUL, my, cst(A, A->bq)));
  /* the batch coordinates, innermost first; the outermost takes what remains */
  uint32_t rem = bz;
  int outer = -1;
  for (int d = 0; d < A->nb; d++) {
    A->bc[d] = KG_NONE;
    if (outer < 0 && size_p[d] != KG_NONE) outer = d;
  }
  for (int d = A->nb - 1; d >= 0; d--) {
    if (size_p[d] == KG_NONE) continue;
    if (d == outer) { A->bc[d] = rem; break; }
    uint32_t sz = kg_kx_param(k, size_p[d]);
    A->bc[d] = kg_lw_decl(L, "bc", L->ix, iop(A, KG_OP_IDX_MOD, rem, sz));
    rem = kg_lw_decl(L, "br", L->ix, iop(A, KG_OP_IDX_DIV, rem, sz));
  }
  if (tc) {
    kg_lw_attn_mma_tile(A, q0, scale);
  } else {
    kg_kcursor tile = L->cur;
    kg_ks cm = kg_ks_make(KS_COMMENT);
    cm.text = "prologue: the query tile";
    kg_ks_add(&L->cur, cm);
    load_tile(A, A->Qs, A->qpitch, A->bq, A->E, q0, A->Lq, A->at->in[0], false);
    L->cur = kg_kcursor_body(k, tile.parent, tile.els);
    uint32_t mvar = newvar(A, "m", A->acc, fcst(A, -INFINITY)), lvar = newvar(A, "l", A->acc, fcst(A, 0));
    uint32_t o[KG_ATTN_ACC_MAX];
    for (uint32_t j = 0; j < A->nacc; j++) o[j] = newvar(A, "o", A->acc, fcst(A, 0));
    /* key blocks; causal: none past the tile's last query */
    uint32_t kend = A->S;
    if (A->at->ia[0] & 1) kend = kg_lw_decl(L, "kend", L->ix, iop(A, KG_OP_MINIMUM, A->S, iop(A, KG_OP_IDX_ADD, q0, cst(A, A->bq))));
    kg_lw_scope s_k;
    uint32_t k0 = kg_lw_open_for(L, "k0", cst(A, 0), kend, cst(A, A->bk), &s_k);
    key_block(A, k0, q0, mvar, lvar, o, scale);
    kg_lw_scope_leave(L, s_k);
    /* the epilogue: o / l (0 without keys) at each of the thread's outputs inside the output */
    cm.text = "epilogue";
    kg_ks_add(&L->cur, cm);
    uint32_t qi = kg_lw_decl(L, "qi", L->ix, iop(A, KG_OP_IDX_ADD, q0, A->row));
    uint32_t nokeys = bop(A, KG_OP_EQ, A->S, cst(A, 0));
    for (uint32_t j = 0; j < A->nacc; j++) {
      uint32_t dcol = kg_lw_decl(L, "d", L->ix, iop(A, KG_OP_IDX_ADD, A->lane, cst(A, (int64_t)j * A->tpr)));
      kg_attn_store(A, qi, dcol, kg_kx_select(k, A->acc, nokeys, fcst(A, 0), fop(A, KG_OP_DIV, var(A, o[j]), var(A, lvar))));
    }
  }
  kg_lw_scope_leave(L, s_my);
  kg_lw_scope_leave(L, s_bz);
  free(A->st.param), free(A->st.node), free(A->st.stride);
  kg_lw_view_free(L);
  free(L->needed), free(L->local), free(L->src_of), free(L->memo), free(L->pparam), free(L->poff), free(L->plane), free(L->oparam), free(L->ooff);
  return !(L->c->verify && !kg_kernel_verify(k, L->c->d));
}
