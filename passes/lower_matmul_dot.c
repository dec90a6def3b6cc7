/* passes/lower_matmul_dot.c — the CPU target's few-rows product schedule (KG_MM_CPU_DOT, KG_MM_CPU_DOT8):
 * B a float32 tensor [.., N, K] read as it is (a linear's weight): under a guard that its last
 * stride is 1 (b_rows), C(m, n) = Σ_k A(m, k) · B(n, k) reads each weight row straight, with no
 * panel. A thread owns KG_MM_CPU_DOT_N columns and up to KG_MM_CPU_DOT_M rows; it packs A's rows
 * once into its scratch (16 consecutive elements a step: one vector copy where A is a tensor with
 * contiguous rows, A's values where it is not — a pool before the classifier), then, for each
 * DR x DJ block of outputs (2 x 4 on AVX-512, 2 x 2 with 16 vector registers):
 *   lane[i][j][l] = Σ_q A'[i][k1 + 16 q + l] · B(n_j, k1 + 16 q + l)     l < 16   one KS_DOT
 *   the lanes halved 8, 4, 2 wide in the scratch, added to C(i, j); K's last K % 16 terms
 *   the epilogue at each output of the block
 * KS_DOT is a prelude call: on the CPU device its lanes live in vector registers (kg_cpu.h), one
 * FMA per output per 16 elements of K with the weight as a memory operand; written as scalar C,
 * GCC's basic-block SLP vectorized the same lanes in some contexts only (scalar lanes, gathers and
 * spills in others, measured in MNIST's and an LSTM cell's kernels). float32 lanes restart every
 * KG_MM_KBLOCK steps (16 · 32 elements of K), their sums added, as the panel schedule's block
 * sums. Outside the guard (a B whose K is not contiguous) a scalar loop per output.
 * The scheduler takes it for at most KG_MM_CPU_DOT_ROWS rows: there the panel's register blocks
 * are mostly padding and its copy of the weight dominates (MNIST's fc1, 2 x 9216 x 128: 5x
 * faster); from 8 rows on the panel is as fast or faster (docs/perf_cpu.md). */
#include "lower_matmul_cpu.h"

static const char *dot_name(uint32_t q) { return q == 0 ? "op" : q <= 2 ? "ox" : "oy"; } /* P, 2 rows of A (DOT_DR), B's rows */

/* A's rows [mlo, mhi) of the chunk into the scratch: A'[m - mlo][k] at pbase + (m - mlo) · K + k,
 * 16 consecutive elements a step (A's rows as one offset plus k under a_rows's guard) */
static void pack_a(ckern *S, const rowsx *R, uint32_t mlo, uint32_t mhi, const afast *F) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_lw_scope s_m, s_k, s_t;
  uint32_t m = kg_lw_open_for(L, "am", mlo, mhi, cst(S, 1), &s_m);
  uint32_t ab = kg_lw_decl(L, "ab", KG_I64, b64(S, KG_OP_IDX_ADD, R->pbase, b64(S, KG_OP_IDX_MUL, kg_lw_cvt(L, isub(S, m, mlo), KG_I64), kg_lw_cvt(L, R->K, KG_I64))));
  uint32_t ra = F ? kg_lw_decl(L, "ra", L->ix, bin(S, KG_OP_IDX_MUL, m, kg_kx_param(k, F->rstride))) : KG_NONE;
  if (!F) kg_lw_mm_row_stats_rows(S, R->bc, &m, 1); /* a norm's statistics of the row (kg_group.pre) */
  uint32_t full = kg_lw_decl(L, "kf", L->ix, bin(S, KG_OP_IDX_MUL, bin(S, KG_OP_IDX_DIV, R->K, cst(S, 16)), cst(S, 16)));
  for (int tail = 0; tail < 2; tail++) {
    uint32_t k0 = tail ? kg_lw_open_for(L, "ak", full, R->K, cst(S, 1), &s_t) : kg_lw_open_for(L, "ak", cst(S, 0), full, cst(S, 16), &s_k);
    for (uint32_t l = 0; l < (tail ? 1u : 16u); l++) {
      uint32_t kk = l ? bin(S, KG_OP_IDX_ADD, k0, cst(S, l)) : k0, x;
      if (F) x = kg_lw_decl(L, "ld", F->dt, kg_kx_load(k, F->param, bin(S, KG_OP_IDX_ADD, ra, kk)));
      else {
        uint32_t ac[KG_MAX_RANK];
        kg_lw_mm_operand_coord(S->An, S->a1, R->bc, S->nb, S->a1 ? kk : m, kk, ac);
        x = kg_lw_val_at(L, S->mmn->in[0], ac);
      }
      stmt(S, KS_STORE, R->scr, b64(S, KG_OP_IDX_ADD, ab, kg_lw_cvt(L, kk, KG_I64)), kg_lw_cvt(L, x, S->acc));
    }
    kg_lw_scope_leave(L, tail ? s_t : s_k);
  }
  kg_lw_scope_leave(L, s_m);
}

enum { DOT_DR = 2, DOT_LN = 16, DOT_LS = 2 * DOT_LN };

/* lane l of output t's partial sums in the scratch: KS_DOT's layout, groups DOT_LS (32) apart
 * (kg_mm_cpu_tile_rows gives the dot tiles 2 tm rows of 16 past the panel for them) */
static uint32_t lane_at(ckern *S, const rowsx *R, uint32_t t, uint32_t l) { return b64(S, KG_OP_IDX_ADD, R->cbase, c64(S, t * DOT_LS + l)); }

/* C(i, j) of the block (rows ar[i]: A' offsets, columns col[j]) into the scratch at cbase + i · DJ + j */
static void dot_lanes(ckern *S, const rowsx *R, const bfast *F, uint32_t DJ, const uint32_t *ar, const uint32_t *col) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = S->acc;
  uint32_t K = R->K, zero = kg_lw_identity(k, KG_OP_RSUM, acc), nt = DOT_DR * DJ;
  uint32_t bb[4], tot[DOT_DR * 4], x[DOT_DR], w[4];
  for (uint32_t j = 0; j < DJ; j++) bb[j] = kg_mmc_b_row(S, R->bc, col[j]);
  for (uint32_t t = 0; t < nt; t++) {
    tot[t] = kg_kvar_new(k, "tot", acc);
    stmt(S, KS_DECL, tot[t], zero, KG_NONE);
  }
  bool blocked = acc == KG_F32;
  kg_lw_scope s_k1, s_kt;
  uint32_t k1 = blocked ? kg_lw_open_for(L, "k1", cst(S, 0), K, cst(S, DOT_LN * KG_MM_KBLOCK), &s_k1) : cst(S, 0);
  uint32_t kend = blocked ? kg_lw_decl(L, "kend", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(S, KG_OP_IDX_ADD, k1, cst(S, DOT_LN * KG_MM_KBLOCK)), K, KG_NONE)) : K;
  /* the chunk's whole 16-element steps: one KS_DOT (its lanes in vector registers on the CPU) */
  uint32_t off[1 + DOT_DR + 4]; /* P's, then the rows' offsets */
  off[0] = R->cbase;
  for (uint32_t i = 0; i < DOT_DR; i++) off[1 + i] = b64(S, KG_OP_IDX_ADD, ar[i], kg_lw_cvt(L, k1, KG_I64));
  for (uint32_t j = 0; j < DJ; j++) off[1 + DOT_DR + j] = kg_lw_cvt(L, bin(S, KG_OP_IDX_ADD, bb[j], k1), KG_I64);
  uint32_t first = kg_mmc_decl_run(S, off, 1 + DOT_DR + DJ, dot_name);
  kg_ks ds = kg_ks_make(KS_DOT);
  ds.a = R->scr, ds.b = F->param, ds.c = first, ds.imm = DOT_DR | DJ << 8;
  ds.d = kg_lw_cvt(L, bin(S, KG_OP_IDX_DIV, isub(S, kend, k1), cst(S, DOT_LN)), KG_I32);
  kg_ks_add(&L->cur, ds);
  /* the lanes' sums halved in place, 8, 4, then 2 wide (runs of consecutive stores: vector adds),
   * then added to the totals: a quarter of the instructions of 16 scalar adds per output */
  for (uint32_t wd = DOT_LN / 2; wd >= 2; wd /= 2) {
    uint32_t half[DOT_DR * 4 * DOT_LN / 2];
    for (uint32_t t = 0; t < nt; t++)
      for (uint32_t l = 0; l < wd; l++) {
        uint32_t lo = kg_kx_load(k, R->scr, lane_at(S, R, t, l)), hi = kg_kx_load(k, R->scr, lane_at(S, R, t, l + wd));
        half[t * wd + l] = kg_lw_decl(L, "hs", acc, kg_kx_op(k, KG_OP_ADD, acc, lo, hi, KG_NONE));
      }
    for (uint32_t t = 0; t < nt; t++)
      for (uint32_t l = 0; l < wd; l++) stmt(S, KS_STORE, R->scr, lane_at(S, R, t, l), half[t * wd + l]);
  }
  for (uint32_t t = 0; t < nt; t++) {
    uint32_t a0 = kg_kx_load(k, R->scr, lane_at(S, R, t, 0)), a1 = kg_kx_load(k, R->scr, lane_at(S, R, t, 1));
    stmt(S, KS_ASSIGN, tot[t], kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, tot[t]), kg_kx_op(k, KG_OP_ADD, acc, a0, a1, KG_NONE), KG_NONE), KG_NONE);
  }
  if (blocked) kg_lw_scope_leave(L, s_k1);
  /* K's last K % 16 elements */
  uint32_t kt = kg_lw_open_for(L, "kt", bin(S, KG_OP_IDX_MUL, bin(S, KG_OP_IDX_DIV, K, cst(S, DOT_LN)), cst(S, DOT_LN)), K, cst(S, 1), &s_kt);
  uint32_t kt64 = kg_lw_cvt(L, kt, KG_I64);
  for (uint32_t i = 0; i < DOT_DR; i++) x[i] = kg_lw_decl(L, "x", acc, kg_kx_load(k, R->scr, b64(S, KG_OP_IDX_ADD, ar[i], kt64)));
  for (uint32_t j = 0; j < DJ; j++) w[j] = kg_lw_decl(L, "w", acc, kg_lw_cvt(L, kg_kx_load(k, F->param, bin(S, KG_OP_IDX_ADD, bb[j], kt)), acc));
  for (uint32_t i = 0; i < DOT_DR; i++)
    for (uint32_t j = 0; j < DJ; j++) {
      uint32_t a = tot[i * DJ + j];
      stmt(S, KS_ASSIGN, a, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, a), kg_kx_op(k, KG_OP_MUL, acc, x[i], w[j], KG_NONE), KG_NONE), KG_NONE);
    }
  kg_lw_scope_leave(L, s_kt);
  for (uint32_t t = 0; t < nt; t++) stmt(S, KS_STORE, R->scr, b64(S, KG_OP_IDX_ADD, R->cbase, c64(S, t)), kg_kx_var(k, tot[t]));
}

/* The same outputs one at a time, B at its coordinates (a B whose K is not contiguous) */
static void dot_scalar(ckern *S, const rowsx *R, uint32_t DJ, uint32_t m0, uint32_t mhi, uint32_t mlo, uint32_t j0) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  kg_dtype acc = S->acc;
  bool blocked = acc == KG_F32;
  uint32_t zero = kg_lw_identity(k, KG_OP_RSUM, acc);
  kg_lw_scope s_i, s_j, s_k1, s_k;
  uint32_t iv = kg_lw_open_for(L, "i", cst(S, 0), cst(S, DOT_DR), cst(S, 1), &s_i);
  uint32_t row = kg_lw_decl(L, "row", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(S, KG_OP_IDX_ADD, m0, iv), isub(S, mhi, cst(S, 1)), KG_NONE));
  uint32_t ab = kg_lw_decl(L, "ab", KG_I64, b64(S, KG_OP_IDX_ADD, R->pbase, b64(S, KG_OP_IDX_MUL, kg_lw_cvt(L, isub(S, row, mlo), KG_I64), kg_lw_cvt(L, R->K, KG_I64))));
  uint32_t jv = kg_lw_open_for(L, "j", cst(S, 0), cst(S, DJ), cst(S, 1), &s_j);
  uint32_t col = kg_lw_decl(L, "col", L->ix,
                            bin(S, KG_OP_IDX_ADD, R->n0, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(S, KG_OP_IDX_ADD, j0, jv), isub(S, R->ncols, cst(S, 1)), KG_NONE)));
  uint32_t tot = kg_kvar_new(k, "tot", acc);
  stmt(S, KS_DECL, tot, zero, KG_NONE);
  uint32_t k1 = blocked ? kg_lw_open_for(L, "k1", cst(S, 0), R->K, cst(S, KG_MM_KBLOCK), &s_k1) : cst(S, 0);
  uint32_t part = tot;
  if (blocked) {
    part = kg_kvar_new(k, "part", acc);
    stmt(S, KS_DECL, part, zero, KG_NONE);
  }
  uint32_t until = blocked ? kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(S, KG_OP_IDX_ADD, k1, cst(S, KG_MM_KBLOCK)), R->K, KG_NONE) : R->K;
  uint32_t kk = kg_lw_open_for(L, "kk", k1, until, cst(S, 1), &s_k);
  uint32_t c[KG_MAX_RANK];
  kg_lw_mm_operand_coord(S->Bn, false, R->bc, S->nb, col, kk, c);
  uint32_t a = kg_kx_load(k, R->scr, b64(S, KG_OP_IDX_ADD, ab, kg_lw_cvt(L, kk, KG_I64)));
  uint32_t b = kg_lw_cvt(L, kg_lw_val_at(L, S->mmn->in[1], c), acc);
  stmt(S, KS_ASSIGN, part, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, part), kg_kx_op(k, KG_OP_MUL, acc, a, b, KG_NONE), KG_NONE), KG_NONE);
  kg_lw_scope_leave(L, s_k);
  if (blocked) {
    stmt(S, KS_ASSIGN, tot, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, tot), kg_kx_var(k, part), KG_NONE), KG_NONE);
    kg_lw_scope_leave(L, s_k1);
  }
  stmt(S, KS_STORE, R->scr, b64(S, KG_OP_IDX_ADD, R->cbase, kg_lw_cvt(L, bin(S, KG_OP_IDX_ADD, bin(S, KG_OP_IDX_MUL, iv, cst(S, DJ)), jv), KG_I64)),
       kg_kx_var(k, tot));
  kg_lw_scope_leave(L, s_j);
  kg_lw_scope_leave(L, s_i);
}

/* The dot schedule's rows: chunks of MC (grid.y), A's packed, DR x DJ blocks */
void kg_mmc_dot_rows(ckern *P, const rowsx *R) {
  ckern S = *P;
  lctx *L = S.L;
  kg_kernel *k = S.k;
  const uint32_t DJ = R->MR / DOT_DR, MC = R->MC;
  kg_lw_scope s_my, s_m0, s_j0, s_i, s_jj;
  uint32_t my = kg_lw_open_for(L, "my", sreg(&S, KG_SREG_CTAID_Y), R->mtiles, sreg(&S, KG_SREG_NCTAID_Y), &s_my);
  uint32_t mlo = kg_lw_decl(L, "mlo", L->ix, bin(&S, KG_OP_IDX_MUL, my, cst(&S, MC)));
  uint32_t mhi = kg_lw_decl(L, "mhi", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(&S, KG_OP_IDX_ADD, mlo, cst(&S, MC)), R->M, KG_NONE));
  kg_ks cm = kg_ks_make(KS_COMMENT);
  cm.text = "A's rows of the chunk, packed";
  kg_ks_add(&L->cur, cm);
  afast FA;
  uint32_t ga = kg_mmc_a_rows(&S, &FA);
  if (ga == KG_NONE) pack_a(&S, R, mlo, mhi, NULL);
  else {
    kg_ks is = kg_ks_make(KS_IF);
    is.a = ga;
    uint32_t ist = kg_ks_add(&L->cur, is);
    kg_lw_scope s_f = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, false));
    pack_a(&S, R, mlo, mhi, &FA);
    kg_lw_scope_leave(L, s_f);
    s_f = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, true));
    pack_a(&S, R, mlo, mhi, NULL);
    kg_lw_scope_leave(L, s_f);
  }
  bfast FB;
  uint32_t gb = kg_mmc_b_rows(&S, &FB);
  uint32_t j0 = kg_lw_open_for(L, "j0", cst(&S, 0), R->ncols, cst(&S, DJ), &s_j0);
  uint32_t ar[DOT_DR], col[4];
  for (uint32_t j = 0; j < DJ; j++)
    col[j] = kg_lw_decl(L, "col", L->ix,
                        bin(&S, KG_OP_IDX_ADD, R->n0, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(&S, KG_OP_IDX_ADD, j0, cst(&S, j)), isub(&S, R->ncols, cst(&S, 1)), KG_NONE)));
  uint32_t m0 = kg_lw_open_for(L, "m0", mlo, mhi, cst(&S, DOT_DR), &s_m0);
  for (uint32_t i = 0; i < DOT_DR; i++) {
    uint32_t row = kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(&S, KG_OP_IDX_ADD, m0, cst(&S, i)), isub(&S, mhi, cst(&S, 1)), KG_NONE);
    ar[i] = kg_lw_decl(L, "ar", KG_I64, b64(&S, KG_OP_IDX_ADD, R->pbase, b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, isub(&S, row, mlo), KG_I64), kg_lw_cvt(L, R->K, KG_I64))));
  }
  if (gb == KG_NONE) dot_scalar(&S, R, DJ, m0, mhi, mlo, j0);
  else {
    kg_ks is = kg_ks_make(KS_IF);
    is.a = gb;
    uint32_t ist = kg_ks_add(&L->cur, is);
    kg_lw_scope s_f = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, false));
    dot_lanes(&S, R, &FB, DJ, ar, col);
    kg_lw_scope_leave(L, s_f);
    s_f = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, true));
    dot_scalar(&S, R, DJ, m0, mhi, mlo, j0);
    kg_lw_scope_leave(L, s_f);
  }
  kg_ks ce = kg_ks_make(KS_COMMENT);
  ce.text = "epilogue";
  kg_ks_add(&L->cur, ce);
  uint32_t iv = kg_lw_open_for(L, "i", cst(&S, 0), kg_kx_op(k, KG_OP_MINIMUM, L->ix, cst(&S, DOT_DR), isub(&S, mhi, m0), KG_NONE), cst(&S, 1), &s_i);
  uint32_t jj = kg_lw_open_for(L, "jj", cst(&S, 0), kg_kx_op(k, KG_OP_MINIMUM, L->ix, cst(&S, DJ), isub(&S, R->ncols, j0), KG_NONE), cst(&S, 1), &s_jj);
  uint32_t coff = b64(&S, KG_OP_IDX_ADD, R->cbase, kg_lw_cvt(L, bin(&S, KG_OP_IDX_ADD, bin(&S, KG_OP_IDX_MUL, iv, cst(&S, DJ)), jj), KG_I64));
  kg_mmc_epilogue(&S, R->bc, bin(&S, KG_OP_IDX_ADD, m0, iv), bin(&S, KG_OP_IDX_ADD, R->n0, bin(&S, KG_OP_IDX_ADD, j0, jj)), NULL, kg_kx_load(k, R->scr, coff));
  kg_lw_scope_leave(L, s_jj);
  kg_lw_scope_leave(L, s_i);
  kg_lw_scope_leave(L, s_m0);
  kg_lw_scope_leave(L, s_j0);
  kg_lw_scope_leave(L, s_my);
}

