/* passes/lower_attn_mma.c — the tensor-core body of the attention kernel (tile KG_ATTN_TC64):
 * FlashAttention-2's work split (Dao 2023) on warp-level mma.sync m16n8k16, for float16 /
 * bfloat16 q, k, v with head dims up to KG_ATTN_TC_DIM_MAX. lower_attn.c builds the frame
 * (parameters, the batch and query-tile loops, the score function, dropout, the epilogue); this
 * file one query tile q0 between them:
 *
 *   a block of 4 warps owns 64 queries, warp w the 16 rows q0 + 16w …; each thread holds rows
 *   g = lane / 4 and g + 8 of them (the PTX ISA's C fragment: columns 2t, 2t + 1 of each n8 tile,
 *   t = lane % 4) and, per row, the running max m, its share of the running sum l and the output
 *   accumulators O (Ev / 8 n8 tiles × 4 float32);
 *
 *   Qs ← the query tile (rows × E, 0 past L and E); Q's A fragments ← ldmatrix, kept in registers
 *       (E ≤ 64; longer heads load them from Qs each block)
 *   for k0 in 0, bk, … < S (causal: < q0 + 64; bk = 64, 32 for head dims past 64):
 *     Ks, Vs ← keys and values k0 … k0 + bk − 1 (0 past S)                          barrier
 *     S = Q · Kᵀ: m16n8k16 over E, K's B fragments by ldmatrix (Ks rows are keys: K-major)
 *     s ← the score function at (qi, kj) of each fragment element (kg_attn_score: scale, masks,
 *         causal, -inf past S)
 *     m' = max(m, the row's max) — the quad's four lanes by two xor shuffles; α = exp(m − m')
 *     p = exp(s − m'); l = l·α + Σ own p; O = O·α
 *     O += P · V: P's C fragments ARE the A fragments of the next product (two n8 tiles of S side
 *         by side are one m16k16 A tile), as a rounded part and its rest; V's B fragments by
 *         ldmatrix.trans (Vs rows are keys: N-major)                           barrier
 *   l ← the quad's sum of its shares; out(qi, d) = O / l (0 without keys) — kg_attn_store
 *
 * The tiles are loaded through kg_lw_val_at into registers (16 bytes a thread a step: any
 * producer, view or transposed key operand works as in the SIMT body), rounded to the operand
 * type and stored with 16-byte shared stores; rows are padded by 16 bytes so ldmatrix's eight row
 * addresses fall in distinct banks. The scores, the softmax statistics and the accumulators are
 * float32; P enters the second product as two operand-type parts (its rounding and the rounding
 * of the rest: ~22 bits for float16, 16 for bfloat16, where FlashAttention rounds P once), so the
 * result is as close to float64 as PyTorch's float32 softmax rounded once; l sums the float32 p.
 *
 * Attention written by hand (ia[0] & 16: softmax(f(q @ kᵀ)) @ v in float16 / bfloat16) rounds the
 * softmax's values to the operand type before the product, as the written program does: two
 * passes over the keys, the first for each row's max and sum (S = Q · Kᵀ only), the second for
 * p = exp(s − m) / l rounded, dropped as written, times V in one product (the same tensor-core
 * work as the split product: three products a block). A row with every key masked is NaN
 * (0 / 0), as the math path's softmax. */
#include <math.h>
#include <string.h>

#include "attn_int.h"

typedef struct tca {
  akern *A;
  kg_kernel *k;
  kg_dtype opdt;           /* F16 or BF16 */
  uint32_t Ep, Evp;        /* head dims padded to 16 */
  uint32_t qpitch, vpitch; /* bytes a row: the query and key tiles (E), the value tile (Ev) */
  uint32_t Qb, Kb, Vb;     /* byte offsets of the tiles in the dynamic shared memory */
  uint32_t tid, lane, warp, g, t4; /* int32 */
  uint32_t stage;          /* 4 int32 staging vars (one 16-byte store) */
} tca;

static uint32_t c32(tca *T, int64_t v) { return kg_kx_const_i(T->k, KG_I32, v); }
static uint32_t op32(tca *T, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(T->k, op, KG_I32, a, b, KG_NONE); }
static uint32_t add32(tca *T, uint32_t a, uint32_t b) { return op32(T, KG_OP_IDX_ADD, a, b); }
static uint32_t mul32(tca *T, uint32_t a, int64_t b) { return op32(T, KG_OP_IDX_MUL, a, c32(T, b)); }
static uint32_t vx(tca *T, uint32_t v) { return kg_kx_var(T->k, v); }
static uint32_t ixof(tca *T, uint32_t e32) { return kg_lw_cvt(T->A->L, e32, T->A->ix); }
static void assign(tca *T, uint32_t v, uint32_t e) { kg_attn_stmt(T->A, KS_ASSIGN, v, e, KG_NONE); }
static void barrier(tca *T) { kg_attn_stmt(T->A, KS_BARRIER, KG_NONE, KG_NONE, KG_NONE); }
static kg_kcursor refresh(kg_kcursor c) { return c.parent == KG_NONE ? kg_kcursor_top(c.k) : kg_kcursor_body(c.k, c.parent, c.els); }

static void tc_stmt(tca *T, kg_tc_op op, uint32_t a, uint32_t b, uint32_t c, uint32_t imm) {
  kg_ks s = kg_ks_make(KS_TC);
  s.sub = (uint16_t)op, s.a = a, s.b = b, s.c = c, s.d = KG_NONE, s.imm = imm;
  kg_ks_add(&T->A->L->cur, s);
}

/* n consecutive vars of dtype t, declared (zero) here */
static uint32_t vars(tca *T, const char *name, kg_dtype t, uint32_t n) {
  uint32_t first = T->k->vars.n;
  for (uint32_t i = 0; i < n; i++) kg_attn_stmt(T->A, KS_DECL, kg_kvar_new(T->k, name, t), KG_NONE, KG_NONE);
  return first;
}

/* a float32 value of the warp lane `lane ^ mask` */
static uint32_t shfl(tca *T, uint32_t x, int mask) { return kg_kx_op(T->k, KG_OP_SHFL_XOR, KG_F32, x, c32(T, mask), KG_NONE); }

/* Rows row0 … row0 + rows − 1 of operand `id` (0 past `extent` and past its head dim `d`; `trans`: the
 * operand is stored transposed, [d][rows]) into the tile at byte `base`, `pitch` bytes a row of
 * dpad elements: every thread takes every 128th 16-byte chunk, evaluates its 8 elements, rounds
 * them to the operand type, packs them in pairs and stores the four words at once. */
static void stage_tile(tca *T, uint32_t rows, uint32_t base, uint32_t pitch, uint32_t dpad, uint32_t d, uint32_t row0, uint32_t extent, uint32_t id, bool trans) {
  akern *A = T->A;
  lctx *L = A->L;
  kg_kernel *k = T->k;
  uint32_t cpr = dpad / 8;
  kg_lw_scope sc;
  uint32_t c = kg_lw_open_for(L, "ch", ixof(T, T->tid), kg_attn_cst(A, (int64_t)rows * cpr), kg_attn_cst(A, A->nt), &sc);
  uint32_t c_32 = kg_lw_decl(L, "c32", KG_I32, kg_lw_cvt(L, c, KG_I32));
  uint32_t rr = kg_lw_decl(L, "rr", KG_I32, op32(T, KG_OP_IDX_DIV, c_32, c32(T, cpr)));
  uint32_t cc = kg_lw_decl(L, "cc", KG_I32, op32(T, KG_OP_IDX_MOD, c_32, c32(T, cpr)));
  uint32_t grow = kg_lw_decl(L, "gr", A->ix, kg_attn_iop(A, KG_OP_IDX_ADD, row0, ixof(T, rr)));
  uint32_t rin = kg_lw_decl(L, "rin", KG_BOOL, kg_attn_bop(A, KG_OP_LT, grow, extent));
  uint32_t vals[8];
  for (uint32_t e = 0; e < 8; e++) {
    uint32_t col = kg_lw_decl(L, "dc", A->ix, ixof(T, add32(T, mul32(T, cc, 8), c32(T, e))));
    uint32_t v = kg_attn_newvar(A, "x", KG_F32, kg_kx_const_f(k, KG_F32, 0.0));
    kg_lw_scope si = kg_attn_if(A, kg_attn_bop(A, KG_OP_LAND, rin, kg_attn_bop(A, KG_OP_LT, col, kg_attn_cst(A, d))));
    kg_attn_forget(L);
    assign(T, v, kg_lw_cvt(L, trans ? kg_attn_operand(A, id, col, grow) : kg_attn_operand(A, id, grow, col), KG_F32));
    kg_lw_scope_leave(L, si);
    vals[e] = vx(T, v);
  }
  for (uint32_t w = 0; w < 4; w++) {
    uint32_t x = kg_kx_op(k, KG_OP_TC_PACK2, KG_I32, vals[2 * w], vals[2 * w + 1], KG_NONE);
    k->exprs.v[x].i = T->opdt == KG_BF16;
    assign(T, T->stage + w, x);
  }
  kg_ks s = kg_ks_make(KS_SMEM_ST);
  s.b = add32(T, c32(T, base), add32(T, mul32(T, rr, pitch), mul32(T, cc, 16)));
  s.c = T->stage, s.imm = 4;
  kg_ks_add(&L->cur, s);
  kg_lw_scope_leave(L, sc);
}

/* ldmatrix.x4 of the 16 × 16 block at (row r0, element k0) of a tile (`pitch` bytes a row) into
 * dst … dst + 3: lanes 8j … 8j + 7 address matrix j's rows; `asel` the A order (j & 1 the row
 * half, j >> 1 the column half), else the B order of two n8 tiles (j & 1 the k half, j >> 1 the
 * n tile); `trans` for a tile whose rows are k (V) */
static void ldsm(tca *T, uint32_t dst, uint32_t base, uint32_t pitch, uint32_t r0, uint32_t k0, bool asel, bool trans) {
  uint32_t l8 = op32(T, KG_OP_IDX_MOD, T->lane, c32(T, 8)), j = op32(T, KG_OP_IDX_DIV, T->lane, c32(T, 8));
  uint32_t jlo = op32(T, KG_OP_IDX_MOD, j, c32(T, 2)), jhi = op32(T, KG_OP_IDX_DIV, j, c32(T, 2));
  uint32_t row, el;
  if (!trans) { /* rows: the tile's rows (A: queries; B: keys, K-major) */
    uint32_t rsel = asel ? jlo : jhi, ksel = asel ? jhi : jlo;
    row = add32(T, add32(T, r0, l8), mul32(T, rsel, 8));
    el = add32(T, c32(T, k0), mul32(T, ksel, 8));
  } else { /* V: memory rows are k (keys), 16 bytes along n */
    row = add32(T, add32(T, c32(T, k0), l8), mul32(T, jlo, 8));
    el = add32(T, r0, mul32(T, jhi, 8));
  }
  uint32_t at = kg_lw_decl(T->A->L, "sa", KG_I32, add32(T, c32(T, base), add32(T, mul32(T, row, pitch), mul32(T, el, 2))));
  tc_stmt(T, KG_TC_LDSM, dst, at, KG_NONE, 4 | (trans ? 8 : 0));
}

/* what the key-block passes share */
typedef struct tcrows {
  uint32_t qf;       /* Q's A fragments: 4 × Ep / 16 int32 vars (KG_NONE: ldmatrix'd again each block) */
  uint32_t wrow;     /* the warp's first row in the tile (int32 expr) */
  uint32_t qrow[2];  /* this thread's two query rows (index exprs) */
  uint32_t m[2], l[2];   /* running max and this thread's share of the sum (vars) */
  uint32_t kc;       /* the block's first key of this thread's columns (expr, set per block) */
  uint32_t sv[64];   /* the block's scores (vars; fragment order: n8 tile × 4) */
} tcrows;

/* the keys (and values) of block k0 into their tiles, S = Q · Kᵀ over them, the scores */
static void block_scores(tca *T, tcrows *R, uint32_t k0, bool with_v, uint32_t scale) {
  akern *A = T->A;
  lctx *L = A->L;
  int64_t fl = A->at->ia[0];
  uint32_t KT = T->Ep / 16, NS = A->bk / 8;
  kg_tc_op mma = T->opdt == KG_BF16 ? KG_TC_MMA_BF16 : KG_TC_MMA_F16;
  kg_kcursor body = L->cur;
  stage_tile(T, A->bk, T->Kb, T->qpitch, T->Ep, A->E, k0, A->S, A->at->in[1], (fl & 32) != 0);
  L->cur = refresh(body);
  if (with_v) {
    stage_tile(T, A->bk, T->Vb, T->vpitch, T->Evp, A->Ev, k0, A->S, A->at->in[2], false);
    L->cur = refresh(body);
  }
  barrier(T);
  uint32_t s = vars(T, "s", KG_F32, 4 * NS);
  for (uint32_t kt = 0; kt < KT; kt++) {
    uint32_t qa = R->qf + 4 * kt;
    if (R->qf == KG_NONE) ldsm(T, qa = vars(T, "qa", KG_I32, 4), T->Qb, T->qpitch, R->wrow, kt * 16, true, false);
    for (uint32_t np = 0; np < NS / 2; np++) {
      uint32_t kf = vars(T, "kf", KG_I32, 4);
      ldsm(T, kf, T->Kb, T->qpitch, c32(T, np * 16), kt * 16, false, false);
      tc_stmt(T, mma, s + 4 * (2 * np), qa, kf, 0);
      tc_stmt(T, mma, s + 4 * (2 * np + 1), qa, kf + 2, 0);
    }
  }
  R->kc = kg_lw_decl(L, "kc", A->ix, kg_attn_iop(A, KG_OP_IDX_ADD, k0, ixof(T, mul32(T, T->t4, 2))));
  for (uint32_t nt = 0; nt < NS; nt++)
    for (uint32_t i = 0; i < 4; i++) {
      uint32_t kj = kg_lw_decl(L, "kj", A->ix, kg_attn_iop(A, KG_OP_IDX_ADD, R->kc, kg_attn_cst(A, nt * 8 + (i & 1))));
      R->sv[4 * nt + i] = kg_attn_score(A, R->qrow[i >> 1], kj, s + 4 * nt + i, scale);
    }
}

/* the block's row maxima into m (this thread's, then the quad's by two xor shuffles); the
 * exponent's base mu of each row (0 while it has seen only masked keys: no -inf - -inf), the
 * factor alpha = exp(m_old - mu) of what was summed so far */
static void block_max(tca *T, tcrows *R, uint32_t *mu, uint32_t *alpha) {
  akern *A = T->A;
  lctx *L = A->L;
  uint32_t NS = A->bk / 8, mx[2];
  for (int h = 0; h < 2; h++) mx[h] = kg_attn_newvar(A, "mx", KG_F32, kg_attn_fcst(A, -INFINITY));
  for (uint32_t i = 0; i < 4 * NS; i++) assign(T, mx[(i & 3) >> 1], kg_attn_fop(A, KG_OP_MAXIMUM, vx(T, mx[(i & 3) >> 1]), vx(T, R->sv[i])));
  for (int h = 0; h < 2; h++) {
    for (int sh = 1; sh <= 2; sh <<= 1) assign(T, mx[h], kg_attn_fop(A, KG_OP_MAXIMUM, vx(T, mx[h]), shfl(T, vx(T, mx[h]), sh)));
    uint32_t mn = kg_lw_decl(L, "mn", KG_F32, kg_attn_fop(A, KG_OP_MAXIMUM, vx(T, R->m[h]), vx(T, mx[h])));
    mu[h] = kg_lw_decl(L, "mu", KG_F32, kg_kx_select(T->k, KG_F32, kg_attn_bop(A, KG_OP_EQ, mn, kg_attn_fcst(A, -INFINITY)), kg_attn_fcst(A, 0), mn));
    alpha[h] = kg_lw_decl(L, "al", KG_F32, kg_kx_op(T->k, KG_OP_EXP, KG_F32, kg_attn_fop(A, KG_OP_SUB, vx(T, R->m[h]), mu[h]), KG_NONE, KG_NONE));
    assign(T, R->m[h], mn);
  }
}

/* The probabilities of the block and O += P · V, 16 keys a step (the p of a step computed just
 * before its products: 32 registers fewer than all of the block's at once): n8 tiles 2kk and
 * 2kk + 1 of P are the A fragment (rows g | g + 8, keys 2t | 2t + 8). p = exp(s − mu) summed
 * into ps (float32), or with `faithful` exp(s − mu) / l rounded to the operand type as a written
 * softmax rounds it; dropped (dropout) as the program does; then, unless faithful, P as its
 * rounding to the operand type and the rounding of the rest, two products (the small terms
 * first: an f16 P alone was 3-10x further from float64 than PyTorch's float32 softmax rounded
 * once, examples/attn_sdpa.json attn_sdpa_half). */
static void block_pv(tca *T, const tcrows *R, const uint32_t *mu, const uint32_t *ps, uint32_t o, bool faithful) {
  akern *A = T->A;
  lctx *L = A->L;
  kg_kernel *k = T->k;
  uint32_t NS = A->bk / 8, NV = T->Evp / 8;
  bool split = !faithful;
  kg_tc_op mma = T->opdt == KG_BF16 ? KG_TC_MMA_BF16 : KG_TC_MMA_F16;
  for (uint32_t kk = 0; kk < NS / 2; kk++) {
    uint32_t pa = vars(T, "pa", KG_I32, 4), pl = split ? vars(T, "pl", KG_I32, 4) : KG_NONE;
    for (uint32_t r = 0; r < 4; r++) {
      uint32_t nt = 2 * kk + (r >> 1), h = r & 1, hi[2], lo[2];
      for (uint32_t e = 0; e < 2; e++) {
        uint32_t i = 2 * h + e;
        uint32_t x = kg_kx_op(k, KG_OP_EXP, KG_F32, kg_attn_fop(A, KG_OP_SUB, vx(T, R->sv[4 * nt + i]), mu[h]), KG_NONE, KG_NONE);
        if (faithful) x = kg_lw_cvt(L, kg_lw_cvt(L, kg_attn_fop(A, KG_OP_DIV, x, vx(T, R->l[h])), T->opdt), KG_F32);
        x = kg_lw_decl(L, "p", KG_F32, x);
        if (!faithful) assign(T, ps[h], kg_attn_fop(A, KG_OP_ADD, vx(T, ps[h]), x));
        if (A->at->ia[0] & 8) x = kg_attn_dropped(A, R->qrow[h], kg_attn_iop(A, KG_OP_IDX_ADD, R->kc, kg_attn_cst(A, nt * 8 + e)), x);
        hi[e] = split ? kg_lw_decl(L, "ph", KG_F32, kg_lw_cvt(L, kg_lw_cvt(L, x, T->opdt), KG_F32)) : x;
        lo[e] = split ? kg_attn_fop(A, KG_OP_SUB, x, hi[e]) : KG_NONE;
      }
      uint32_t xh = kg_kx_op(k, KG_OP_TC_PACK2, KG_I32, hi[0], hi[1], KG_NONE);
      k->exprs.v[xh].i = T->opdt == KG_BF16;
      assign(T, pa + r, xh);
      if (split) {
        uint32_t xl = kg_kx_op(k, KG_OP_TC_PACK2, KG_I32, lo[0], lo[1], KG_NONE);
        k->exprs.v[xl].i = T->opdt == KG_BF16;
        assign(T, pl + r, xl);
      }
    }
    for (uint32_t np = 0; np < NV / 2; np++) {
      uint32_t vf = vars(T, "vf", KG_I32, 4);
      ldsm(T, vf, T->Vb, T->vpitch, c32(T, np * 16), kk * 16, false, true);
      for (uint32_t half = 0; half < 2; half++) {
        if (split) tc_stmt(T, mma, o + 4 * (2 * np + half), pl, vf + 2 * half, 0);
        tc_stmt(T, mma, o + 4 * (2 * np + half), pa, vf + 2 * half, 0);
      }
    }
  }
}

/* each of v[0], v[1] summed over the quad (the four lanes holding a row) */
static void quad_sum(tca *T, const uint32_t *v) {
  for (int h = 0; h < 2; h++)
    for (int sh = 1; sh <= 2; sh <<= 1) assign(T, v[h], kg_attn_fop(T->A, KG_OP_ADD, vx(T, v[h]), shfl(T, vx(T, v[h]), sh)));
}

void kg_lw_attn_mma_tile(akern *A, uint32_t q0, uint32_t scale) {
  lctx *L = A->L;
  kg_kernel *k = A->k;
  tca TS, *T = &TS;
  memset(T, 0, sizeof *T);
  T->A = A, T->k = k;
  A->bk = kg_attn_mma_bk(A->E, A->Ev);
  T->opdt = (kg_dtype)L->g->nodes.v[A->at->in[0]].dtype;
  T->Ep = (A->E + 15) / 16 * 16, T->Evp = (A->Ev + 15) / 16 * 16;
  T->qpitch = (uint32_t)kg_attn_mma_pitch(A->E), T->vpitch = (uint32_t)kg_attn_mma_pitch(A->Ev);
  T->Qb = 0, T->Kb = A->bq * T->qpitch, T->Vb = T->Kb + A->bk * T->qpitch;
  int64_t fl = A->at->ia[0];
  bool faithful = (fl & 16) != 0; /* attention written by hand: its softmax rounds p */
  uint32_t KT = T->Ep / 16, NV = T->Evp / 8, NS = A->bk / 8;

  T->tid = kg_lw_decl(L, "tid32", KG_I32, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32));
  T->lane = kg_lw_decl(L, "lane", KG_I32, op32(T, KG_OP_IDX_MOD, T->tid, c32(T, 32)));
  T->warp = kg_lw_decl(L, "warp", KG_I32, op32(T, KG_OP_IDX_DIV, T->tid, c32(T, 32)));
  T->g = kg_lw_decl(L, "g", KG_I32, op32(T, KG_OP_IDX_DIV, T->lane, c32(T, 4)));
  T->t4 = kg_lw_decl(L, "t4", KG_I32, op32(T, KG_OP_IDX_MOD, T->lane, c32(T, 4)));
  T->stage = vars(T, "stg", KG_I32, 4);
  kg_kcursor tile = L->cur;

  /* the query tile and its A fragments (kept for every key block) */
  kg_ks cm = kg_ks_make(KS_COMMENT);
  cm.text = "tensor cores: the query tile, its A fragments";
  kg_ks_add(&L->cur, cm);
  stage_tile(T, A->bq, T->Qb, T->qpitch, T->Ep, A->E, q0, A->Lq, A->at->in[0], false);
  L->cur = refresh(tile);
  barrier(T);
  tcrows RS, *R = &RS;
  memset(R, 0, sizeof *R);
  uint32_t wrow = R->wrow = kg_lw_decl(L, "wrow", KG_I32, mul32(T, T->warp, 16));
  /* head dims past 64: Q's fragments from the tile each block (32 registers fewer: the
   * d = 128 kernel spilled at 255 registers with them, NVRTC 12.4) */
  R->qf = KG_NONE;
  if (T->Ep <= 64) {
    R->qf = vars(T, "qf", KG_I32, 4 * KT);
    for (uint32_t kt = 0; kt < KT; kt++) ldsm(T, R->qf + 4 * kt, T->Qb, T->qpitch, wrow, kt * 16, true, false);
  }
  /* this thread's rows: qi of row half h = q0 + 16 w + g + 8 h */
  for (int h = 0; h < 2; h++)
    R->qrow[h] = kg_lw_decl(L, "qr", A->ix, kg_attn_iop(A, KG_OP_IDX_ADD, q0, ixof(T, add32(T, add32(T, wrow, T->g), c32(T, 8 * h)))));
  for (int h = 0; h < 2; h++) R->m[h] = kg_attn_newvar(A, "m", KG_F32, kg_attn_fcst(A, -INFINITY)), R->l[h] = kg_attn_newvar(A, "l", KG_F32, kg_attn_fcst(A, 0));
  uint32_t o = vars(T, "o", KG_F32, 4 * NV);
  /* key blocks; causal: none past the tile's last query */
  uint32_t kend = A->S;
  if (fl & 1) kend = kg_lw_decl(L, "kend", L->ix, kg_attn_iop(A, KG_OP_MINIMUM, A->S, kg_attn_iop(A, KG_OP_IDX_ADD, q0, kg_attn_cst(A, A->bq))));
  uint32_t mu[2], alpha[2];
  kg_lw_scope s_k;
  if (faithful) {
    /* pass 1: each row's max and sum over every key */
    uint32_t k0 = kg_lw_open_for(L, "k0", kg_attn_cst(A, 0), kend, kg_attn_cst(A, A->bk), &s_k);
    block_scores(T, R, k0, false, scale);
    block_max(T, R, mu, alpha);
    uint32_t ps[2];
    for (int h = 0; h < 2; h++) ps[h] = kg_attn_newvar(A, "ps", KG_F32, kg_attn_fcst(A, 0));
    for (uint32_t i = 0; i < 4 * NS; i++) {
      uint32_t h = (i & 3) >> 1;
      assign(T, ps[h], kg_attn_fop(A, KG_OP_ADD, vx(T, ps[h]), kg_kx_op(k, KG_OP_EXP, KG_F32, kg_attn_fop(A, KG_OP_SUB, vx(T, R->sv[i]), mu[h]), KG_NONE, KG_NONE)));
    }
    for (int h = 0; h < 2; h++) assign(T, R->l[h], kg_attn_fop(A, KG_OP_ADD, kg_attn_fop(A, KG_OP_MUL, vx(T, R->l[h]), alpha[h]), vx(T, ps[h])));
    barrier(T); /* the key tile is read: the next block may overwrite it */
    kg_lw_scope_leave(L, s_k);
    quad_sum(T, R->l);
    /* pass 2: the softmax's own values p = exp(s - m) / l, rounded to the operand type as the
     * written softmax rounds them (then dropped as written), times V */
    for (int h = 0; h < 2; h++)
      mu[h] = kg_lw_decl(L, "mf", KG_F32, kg_kx_select(k, KG_F32, kg_attn_bop(A, KG_OP_EQ, vx(T, R->m[h]), kg_attn_fcst(A, -INFINITY)), kg_attn_fcst(A, 0), vx(T, R->m[h])));
    k0 = kg_lw_open_for(L, "k0", kg_attn_cst(A, 0), kend, kg_attn_cst(A, A->bk), &s_k);
    block_scores(T, R, k0, true, scale);
    block_pv(T, R, mu, NULL, o, true);
    barrier(T);
    kg_lw_scope_leave(L, s_k);
  } else {
    uint32_t k0 = kg_lw_open_for(L, "k0", kg_attn_cst(A, 0), kend, kg_attn_cst(A, A->bk), &s_k);
    block_scores(T, R, k0, true, scale);
    block_max(T, R, mu, alpha);
    uint32_t ps[2];
    for (int h = 0; h < 2; h++) ps[h] = kg_attn_newvar(A, "ps", KG_F32, kg_attn_fcst(A, 0));
    for (uint32_t i = 0; i < 4 * NV; i++) assign(T, o + i, kg_attn_fop(A, KG_OP_MUL, vx(T, o + i), alpha[(i & 3) >> 1]));
    block_pv(T, R, mu, ps, o, false);
    for (int h = 0; h < 2; h++) assign(T, R->l[h], kg_attn_fop(A, KG_OP_ADD, kg_attn_fop(A, KG_OP_MUL, vx(T, R->l[h]), alpha[h]), vx(T, ps[h])));
    barrier(T); /* the tiles are read: the next block may overwrite them */
    kg_lw_scope_leave(L, s_k);
    quad_sum(T, R->l);
  }
  /* the epilogue: out = O / l (O itself when P was normalized), 0 without keys */
  kg_ks cm2 = kg_ks_make(KS_COMMENT);
  cm2.text = "epilogue";
  kg_ks_add(&L->cur, cm2);
  uint32_t nokeys = kg_attn_bop(A, KG_OP_EQ, A->S, kg_attn_cst(A, 0));
  uint32_t dc = kg_lw_decl(L, "dcol", A->ix, ixof(T, mul32(T, T->t4, 2)));
  kg_kcursor epi = L->cur;
  for (uint32_t nt = 0; nt < NV; nt++)
    for (uint32_t i = 0; i < 4; i++) {
      L->cur = refresh(epi);
      if (nt * 8 >= A->Ev) continue;
      uint32_t h = i >> 1, d = kg_attn_iop(A, KG_OP_IDX_ADD, dc, kg_attn_cst(A, nt * 8 + (i & 1)));
      uint32_t val = faithful ? vx(T, o + 4 * nt + i) : kg_attn_fop(A, KG_OP_DIV, vx(T, o + 4 * nt + i), vx(T, R->l[h]));
      kg_attn_store(A, R->qrow[h], d, kg_kx_select(k, KG_F32, nokeys, kg_attn_fcst(A, 0), val));
    }
  L->cur = refresh(epi);
}
