/* passes/lower_rowstats.c — a product's row statistics (kg_group.pre): the sums, means and
 * variances over A's rows that only A's prologue reads (a norm before a linear), computed by the
 * product's own kernel for the rows it multiplies, before its K loop.
 *
 * fuse.c moves such a norm's reductions out of the row kernel that would compute them before the
 * product (kg_schedule_row_stats: few rows, where a launch costs more than reading a tile's rows of
 * A once more). Each product schedule then evaluates every statistic of its rows from the
 * reduction's own DAG at A's coordinates (kg_lw_val_at: the source read through its strides,
 * pointwise producers inline), and A's prologue reads the value where it reads the reduction
 * (kg_lw_row_stat_at, asked by kg_lw_val_at):
 *
 *   the GPU tiles (SIMT, mma.sync), kg_lw_mm_row_stats_tile: after the tile frame, a warp a row
 *     barrier                                      (the last tile's readers are done)
 *     for r = warp; r < BM; r += warps:            (uniform per warp)
 *       for each statistic q, in node order:       (a later one may read an earlier one's value)
 *         acc = 0; if m0 + r < M: for j = lane; j < K; j += 32: acc += f(row m0 + r, j)
 *         v = warp sum of acc (every lane);  mean: / K;  variance: a second walk of (f - mean)²,
 *             / max(K - correction, 0), as the row kernels compute it (lower_reduce_walk.c)
 *         lane 0: table[q][r] = v rounded to the reduction's dtype (float32 words: a static
 *             __shared__ array on the SIMT tiles, dynamic shared memory past the stages on mma.sync)
 *     barrier
 *   the CPU target (lower_matmul_cpu.c), kg_lw_mm_row_stats_rows: for each row the code is about
 *     to read (a register block's MR rows, a packed row) the same walks by one thread, into vars.
 *
 * The accumulator is the reduction's compute dtype (float64 for a float32 mean, as its row kernel),
 * and every value is rounded to the reduction's dtype once, as a value read from memory would be.
 * The Hopper tier never meets one: TMA reads A as it is, and a prologue keeps it off wgmma. */
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"

struct kg_lw_rowstats {
  uint32_t npre;
  /* the GPU's table: a shared array (arr) or dynamic shared memory at byte offset base */
  bool table, dyn;
  uint32_t arr, base, BM, m0;
  /* the CPU's rows: row expression rows[i]'s statistic q in var expr vals[q][i] */
  uint32_t nrows, rows[8], vals[KG_MM_ROW_STATS][8];
  /* inside the walks of one row: its statistics computed so far */
  bool walking;
  uint32_t ncur, cur[KG_MM_ROW_STATS];
  bool missed; /* a statistic asked at a row nobody computed (an internal error) */
};

static uint32_t ix_const(lctx *L, int64_t v) { return kg_kx_const_i(L->k, L->ix, v); }
static uint32_t ix_op(lctx *L, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(L->k, op, L->ix, a, b, KG_NONE); }

static void stmt(lctx *L, kg_ks_kind kind, uint32_t a, uint32_t b, uint32_t c, uint32_t imm) {
  kg_ks s = kg_ks_make(kind);
  s.a = a, s.b = b, s.c = c, s.imm = imm;
  kg_ks_add(&L->cur, s);
}

static int pre_index(const lctx *L, uint32_t id) {
  for (uint32_t q = 0; q < L->grp->pre.n; q++)
    if (L->grp->pre.v[q] == id) return (int)q;
  return -1;
}

static struct kg_lw_rowstats *rs_get(lctx *L) {
  if (!L->rs) {
    L->rs = kg_xcalloc(1, sizeof *L->rs);
    L->rs->npre = L->grp->pre.n;
  }
  return L->rs;
}

/* Statistic q of row `row` (an index expression; KG_NONE: a static size-1 dim): walks j = lo, lo +
 * step, .. < K under `guard` (KG_NONE: none); `warp`: the lanes' sums added across the warp (every
 * lane gets the row's). The value, rounded to the reduction's dtype, in a var. */
static uint32_t stat_walk(kg_mmk *S, const uint32_t *bc, uint32_t q, uint32_t row, uint32_t lo, uint32_t step, uint32_t guard, bool warp) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  const kg_gnode *R = &L->g->nodes.v[L->grp->pre.v[q]];
  const kg_gnode *In = &L->g->nodes.v[R->in[0]];
  kg_dtype acc = (kg_dtype)R->cdtype, odt = (kg_dtype)R->dtype;
  uint32_t K = kg_lw_size(L, &In->shape.d[In->shape.rank - 1]);
  uint32_t cnt = kg_lw_cvt(L, K, acc), center = KG_NONE, res = KG_NONE;
  int passes = R->op == KG_OP_RVAR ? 2 : 1;
  for (int pass = 0; pass < passes; pass++) {
    uint32_t v = kg_kvar_new(k, "rsa", acc);
    stmt(L, KS_DECL, v, kg_lw_identity(k, KG_OP_RSUM, acc), KG_NONE, 0);
    kg_lw_scope sg, sj;
    if (guard != KG_NONE) {
      kg_ks is = kg_ks_make(KS_IF);
      is.a = guard;
      uint32_t st = kg_ks_add(&L->cur, is);
      sg = kg_lw_scope_enter(L, kg_kcursor_body(k, st, false));
    }
    uint32_t j = kg_lw_open_for(L, "rj", lo, K, step, &sj);
    uint32_t c[KG_MAX_RANK];
    kg_lw_mm_operand_coord(In, false, bc, S->nb, row, j, c);
    uint32_t x = kg_lw_cvt(L, kg_lw_val_at(L, R->in[0], c), acc);
    if (pass == 1) {
      uint32_t d = kg_lw_decl(L, "rsd", acc, kg_kx_op(k, KG_OP_SUB, acc, x, center, KG_NONE));
      x = kg_kx_op(k, KG_OP_MUL, acc, d, d, KG_NONE);
    }
    stmt(L, KS_ASSIGN, v, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, v), x, KG_NONE), KG_NONE, 0);
    kg_lw_scope_leave(L, sj);
    if (guard != KG_NONE) kg_lw_scope_leave(L, sg);
    uint32_t tot = kg_kx_var(k, v);
    if (warp) {
      tot = kg_kx_op(k, KG_OP_RSUM, acc, tot, KG_NONE, KG_NONE);
      k->exprs.v[tot].i = kg_coll_segment(32);
    }
    tot = kg_lw_decl(L, "rst", acc, tot);
    if (R->op == KG_OP_RMEAN || (R->op == KG_OP_RVAR && pass == 0)) tot = kg_lw_decl(L, "rsm", acc, kg_kx_op(k, KG_OP_DIV, acc, tot, cnt, KG_NONE));
    if (R->op == KG_OP_RVAR && pass == 0) center = tot;
    if (R->op == KG_OP_RVAR && pass == 1) { /* over max(count - correction, 0): 0/0 = NaN like PyTorch */
      uint32_t den = kg_kx_op(k, KG_OP_MAXIMUM, acc, kg_kx_op(k, KG_OP_SUB, acc, cnt, kg_kx_const_f(k, acc, R->fa[0]), KG_NONE), kg_kx_const_f(k, acc, 0), KG_NONE);
      tot = kg_kx_op(k, KG_OP_DIV, acc, tot, den, KG_NONE);
    }
    res = tot;
  }
  return kg_lw_decl(L, "rs", odt, kg_lw_cvt(L, res, odt));
}

/* every statistic of one row, in node order (a later one may read an earlier one's value) */
static void row_walks(kg_mmk *S, const uint32_t *bc, uint32_t row, uint32_t lo, uint32_t step, uint32_t guard, bool warp, uint32_t *out) {
  struct kg_lw_rowstats *rs = rs_get(S->L);
  rs->walking = true, rs->ncur = 0;
  for (uint32_t q = 0; q < rs->npre; q++) {
    out[q] = stat_walk(S, bc, q, row, lo, step, guard, warp);
    rs->cur[q] = out[q], rs->ncur = q + 1;
  }
  rs->walking = false;
}

/* the table's word (q, r) as a byte offset into the dynamic shared memory, or an element index */
static uint32_t table_at(lctx *L, const struct kg_lw_rowstats *rs, uint32_t q, uint32_t r) {
  uint32_t e = ix_op(L, KG_OP_IDX_ADD, ix_const(L, (int64_t)q * rs->BM), r);
  if (!rs->dyn) return e;
  return kg_lw_cvt(L, ix_op(L, KG_OP_IDX_ADD, ix_const(L, rs->base), ix_op(L, KG_OP_IDX_MUL, e, ix_const(L, 4))), KG_I32);
}

void kg_lw_mm_row_stats_tile(kg_mmk *S, const kg_mm_frame *F, uint32_t BM, uint32_t nthreads, uint32_t dyn_base) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  if (!L->grp->pre.n) return;
  struct kg_lw_rowstats *rs = rs_get(L);
  kg_lw_mm_memo_reset(L); /* the first values the tile evaluates */
  rs->table = true, rs->BM = BM, rs->m0 = F->m0;
  uint32_t words = BM * rs->npre;
  if (dyn_base == KG_NONE) {
    rs->arr = kg_kshared_add(k, "rs", KG_F32, words);
    k->launch.smem_static += 4 * words;
  } else {
    rs->dyn = true, rs->base = dyn_base;
    k->launch.smem_dyn = dyn_base + 4 * words;
  }
  kg_ks cm = kg_ks_make(KS_COMMENT);
  cm.text = "row statistics of the tile's rows: a warp a row";
  kg_ks_add(&L->cur, cm);
  stmt(L, KS_BARRIER, KG_NONE, KG_NONE, KG_NONE, 0);
  uint32_t tid = kg_lw_decl(L, "rtid", L->ix, kg_lw_cvt(L, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32), L->ix));
  uint32_t lane = kg_lw_decl(L, "rlane", L->ix, ix_op(L, KG_OP_IDX_MOD, tid, ix_const(L, 32)));
  uint32_t warp = kg_lw_decl(L, "rwarp", L->ix, ix_op(L, KG_OP_IDX_DIV, tid, ix_const(L, 32)));
  kg_lw_scope sr;
  uint32_t r = kg_lw_open_for(L, "rr", warp, ix_const(L, BM), ix_const(L, nthreads / 32), &sr);
  uint32_t gm = kg_lw_decl(L, "rm", L->ix, ix_op(L, KG_OP_IDX_ADD, F->m0, r));
  uint32_t guard = kg_kx_op(k, KG_OP_LT, KG_BOOL, gm, F->M, KG_NONE);
  bool one = S->mdim < 0 || S->size_p[S->mdim] == KG_NONE; /* M a static 1: the row coordinate is none */
  uint32_t val[KG_MM_ROW_STATS];
  row_walks(S, F->bc, one ? KG_NONE : gm, lane, ix_const(L, 32), guard, true, val);
  kg_ks is = kg_ks_make(KS_IF);
  is.a = kg_kx_op(k, KG_OP_EQ, KG_BOOL, lane, ix_const(L, 0), KG_NONE);
  uint32_t st = kg_ks_add(&L->cur, is);
  kg_lw_scope sl = kg_lw_scope_enter(L, kg_kcursor_body(k, st, false));
  for (uint32_t q = 0; q < rs->npre; q++) {
    if (!rs->dyn) {
      stmt(L, KS_SSTORE, rs->arr, table_at(L, rs, q, r), val[q], 0);
      continue;
    }
    uint32_t w = kg_lw_decl(L, "rw", KG_F32, kg_lw_cvt(L, val[q], KG_F32));
    stmt(L, KS_SMEM_ST, KG_NONE, table_at(L, rs, q, r), k->exprs.v[w].a, 1);
  }
  kg_lw_scope_leave(L, sl);
  kg_lw_scope_leave(L, sr);
  stmt(L, KS_BARRIER, KG_NONE, KG_NONE, KG_NONE, 0);
}

void kg_lw_mm_row_stats_rows(kg_mmk *S, const uint32_t *bc, const uint32_t *rows, uint32_t n) {
  lctx *L = S->L;
  if (!L->grp->pre.n) return;
  struct kg_lw_rowstats *rs = rs_get(L);
  KG_ASSERT(n <= 8);
  uint32_t val[KG_MM_ROW_STATS];
  rs->nrows = 0;
  for (uint32_t i = 0; i < n; i++) {
    row_walks(S, bc, rows[i], ix_const(L, 0), ix_const(L, 1), KG_NONE, false, val);
    for (uint32_t q = 0; q < rs->npre; q++) rs->vals[q][i] = val[q];
    rs->rows[i] = rows[i];
  }
  rs->nrows = n;
}

uint32_t kg_lw_row_stat_at(lctx *L, uint32_t id, uint32_t row) {
  struct kg_lw_rowstats *rs = L->rs;
  int q = pre_index(L, id);
  if (!rs || q < 0) return KG_NONE;
  if (rs->walking) {
    if ((uint32_t)q < rs->ncur) return rs->cur[q];
    rs->missed = true; /* a statistic reading a later one: fuse.c orders them */
    return kg_kx_const_f(L->k, (kg_dtype)L->g->nodes.v[id].dtype, 0);
  }
  kg_dtype odt = (kg_dtype)L->g->nodes.v[id].dtype;
  if (rs->table) {
    uint32_t r = row == KG_NONE ? ix_const(L, 0) : ix_op(L, KG_OP_SUB, row, rs->m0);
    uint32_t w = rs->dyn ? kg_kx_smem(L->k, KG_F32, table_at(L, rs, (uint32_t)q, r)) : kg_kx_sload(L->k, rs->arr, table_at(L, rs, (uint32_t)q, r));
    return kg_lw_decl(L, "rsv", odt, kg_lw_cvt(L, w, odt));
  }
  if (row == KG_NONE && rs->nrows) return rs->vals[q][0]; /* M a static 1: every row expr is row 0 */
  for (uint32_t i = 0; i < rs->nrows; i++)
    if (rs->rows[i] == row) return rs->vals[q][i];
  rs->missed = true;
  return kg_kx_const_f(L->k, odt, 0);
}

bool kg_lw_row_stats_end(lctx *L) {
  bool ok = !L->rs || !L->rs->missed;
  if (!ok) kg_diag_add(L->c->d, KG_E_INTERNAL, NULL, NULL, "a product's row statistic was read at a row its kernel did not compute");
  free(L->rs);
  L->rs = NULL;
  return ok;
}
