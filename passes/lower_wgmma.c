/* passes/lower_wgmma.c — the Hopper tier of the MATMUL kernel class (sm_90a): wgmma.mma_async on
 * operands that TMA brings into shared memory, a warp-specialized producer / consumer pipeline on
 * mbarriers. passes/lower_matmul.c builds the parameters, the tile frame and the epilogue; this
 * file the body between them.
 *
 * The schedule (kg_variant mm_tile WG128 / WG256, mm_a / mm_b's KG_MM_KMAJOR; passes/schedule.c
 * takes it when both operands are tensors TMA can read: 16-byte aligned, a matrix or a batch of
 * them): a block of three warpgroups owns a BM × BN = 128 × BN output tile.
 *
 *   warpgroup 0, thread 0 (the producer), for each K chunk of 64 (a stage s of ST, phase ph):
 *       wait empty[s] (parity ph ^ 1: a fresh barrier passes); arrive.expect_tx full[s] with the
 *       stage's bytes; TMA the A and B boxes of the chunk into stage s, completing on full[s]
 *   warpgroups 1 and 2 (the consumers, rows 64 c .. 64 c + 63 of the tile):
 *       wait full[s] (parity ph); wgmma.fence; four wgmma m64nBNk16 (K 16 each) from the stage's
 *       descriptors; commit; wait_group 0; one thread arrives on empty[s] (count 2: both consumers)
 *   then each consumer's accumulators go through the epilogue (kg_lw_mm_store), while the
 *   producer already loads the next tile's stages.
 *
 * Shared memory: stage s holds A's box then B's, 128-byte rows (64 float16 / bfloat16 of K, or
 * for an operand contiguous along M / N, 64 of M / N per row of K, in blocks of 64) written by
 * TMA with the 128-byte swizzle — exactly wgmma's canonical SW128 layouts: K-major rows of 128
 * bytes, 8-row groups 1024 bytes apart (the descriptor's SBO); MN-major blocks 8 KB apart (LBO).
 * Out-of-bounds elements arrive as zeros (TMA), so ragged M, N and K need no predicate; the
 * epilogue stores inside C only. The barriers follow the last stage. */
#include <string.h>

#include "lower_int.h"

enum { WG_BK = 64, WG_ROW = 128 /* bytes of a stage row */, WG_SBO = 1024, WG_BLOCK = 64 * 128 /* an MN-major block */ };

typedef struct wgk {
  kg_mmk *S;
  lctx *L;
  kg_kernel *k;
  uint32_t BM, BN, ST, NC; /* tile, stages, consumer warpgroups */
  uint32_t stage_bytes, a_bytes, bar0;
  bool akm, bkm;           /* A / B K-major */
  bool bf;
  uint32_t tmA, tmB;       /* tensor-map parameters */
  kg_mm_frame F;
} wgk;

static uint32_t c32(wgk *W, int64_t v) { return kg_kx_const_i(W->k, KG_I32, v); }
static uint32_t op32(wgk *W, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(W->k, op, KG_I32, a, b, KG_NONE); }
static uint32_t add32(wgk *W, uint32_t a, uint32_t b) { return op32(W, KG_OP_IDX_ADD, a, b); }
static uint32_t mul32(wgk *W, uint32_t a, int64_t b) { return op32(W, KG_OP_IDX_MUL, a, c32(W, b)); }
static uint32_t var(wgk *W, const char *name, kg_dtype t, uint32_t init) { return kg_lw_decl(W->L, name, t, init); }
static void add_stmt(wgk *W, kg_ks s) { kg_ks_add(&W->L->cur, s); }
static void tc(wgk *W, kg_tc_op op, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t imm) {
  kg_ks s = kg_ks_make(KS_TC);
  s.sub = (uint16_t)op, s.a = a, s.b = b, s.c = c, s.d = d, s.imm = imm;
  add_stmt(W, s);
}
static kg_kcursor refresh(kg_kcursor c) { return c.parent == KG_NONE ? kg_kcursor_top(c.k) : kg_kcursor_body(c.k, c.parent, c.els); }
static uint32_t if_stmt(wgk *W, uint32_t cond) {
  kg_ks s = kg_ks_make(KS_IF);
  s.a = cond;
  return kg_ks_add(&W->L->cur, s);
}
static void assign(wgk *W, uint32_t v, uint32_t e) {
  kg_ks s = kg_ks_make(KS_ASSIGN);
  s.a = v, s.b = e;
  add_stmt(W, s);
}
static void comment(wgk *W, const char *text) {
  kg_ks s = kg_ks_make(KS_COMMENT);
  s.text = text;
  add_stmt(W, s);
}
/* for (v = 0; v < n; v++): its var id; L->cur is the body */
static uint32_t open_for(wgk *W, const char *name, uint32_t n) {
  lctx *L = W->L;
  uint32_t v = kg_kvar_new(W->k, name, L->ix);
  kg_ks f = kg_ks_make(KS_FOR);
  f.a = v, f.b = kg_kx_const_i(W->k, L->ix, 0), f.c = n, f.d = kg_kx_const_i(W->k, L->ix, 1);
  uint32_t st = kg_ks_add(&L->cur, f);
  L->cur = kg_kcursor_body(W->k, st, false);
  return v;
}

/* a tensor map of operand `which` (the parameter) for its box */
static uint32_t tmap_param(wgk *W, int which) {
  lctx *L = W->L;
  kg_mmk *S = W->S;
  uint32_t id = S->mmn->in[which], s = L->src_of[id], owner, index, sr0;
  kg_lw_source_role(L, s, &owner, &index, &sr0);
  bool km = which ? W->bkm : W->akm;
  int8_t kdim = which == 0 || S->bt ? -1 : -2, rdim = kdim == -1 ? -2 : -1;
  kg_ktmap tm;
  memset(&tm, 0, sizeof tm);
  tm.owner = owner, tm.index = index;
  tm.inner = km ? kdim : rdim, tm.outer = km ? rdim : kdim;
  tm.batched = L->g->nodes.v[id].shape.rank > 2;
  tm.box[0] = 64, tm.box[1] = km ? (which ? W->BN : W->BM) : WG_BK;
  tm.swizzle = 128;
  KG_VEC_PUSH(W->k->tmaps, tm);
  kg_kparam p = kg_lw_mkparam(KP_TMAP, (kg_dtype)L->g->nodes.v[id].dtype, false, which ? "tmb" : "tma", KPR_TMAP, W->k->tmaps.n - 1, 0);
  return kg_kparam_add(W->k, p);
}

/* the producer's loads of K chunk kt into stage s (int32 exprs), completing on full[s] */
static void load_stage(wgk *W, uint32_t kt, uint32_t s, uint32_t bz) {
  lctx *L = W->L;
  uint32_t k0 = var(W, "k0", KG_I32, mul32(W, kg_lw_cvt(L, kt, KG_I32), WG_BK));
  uint32_t full = add32(W, c32(W, W->bar0), mul32(W, s, 8));
  uint32_t stage = mul32(W, s, W->stage_bytes);
  tc(W, KG_TC_MBAR_ARRIVE, KG_NONE, full, c32(W, W->stage_bytes), KG_NONE, 0);
  for (int which = 0; which < 2; which++) {
    bool km = which ? W->bkm : W->akm;
    uint32_t rows = which ? W->BN : W->BM, base = which ? W->a_bytes : 0;
    uint32_t row0 = kg_lw_cvt(L, which ? W->F.n0 : W->F.m0, KG_I32);
    bool batched = W->k->tmaps.v[W->k->params.v[which ? W->tmB : W->tmA].r0].batched;
    uint32_t nbox = km ? 1 : rows / 64;
    for (uint32_t h = 0; h < nbox; h++) {
      uint32_t c = kg_kvar_new(W->k, "tc", KG_I32);
      kg_kvar_new(W->k, "tc", KG_I32), kg_kvar_new(W->k, "tc", KG_I32);
      uint32_t inner = km ? k0 : add32(W, row0, c32(W, 64 * h)), outer = km ? row0 : k0;
      uint32_t coords[3] = {inner, outer, kg_lw_cvt(L, bz, KG_I32)};
      for (uint32_t i = 0; i < 3; i++) {
        kg_ks d = kg_ks_make(KS_DECL);
        d.a = c + i, d.b = coords[i];
        add_stmt(W, d);
      }
      uint32_t dst = add32(W, add32(W, stage, c32(W, base)), c32(W, (int64_t)h * WG_BLOCK));
      tc(W, KG_TC_TMA, which ? W->tmB : W->tmA, dst, c, full, batched ? 3 : 2);
    }
  }
}

/* K chunks of this tile's product */
static uint32_t ktiles(wgk *W) {
  kg_kernel *k = W->k;
  lctx *L = W->L;
  return var(W, "ktiles", L->ix, kg_kx_op(k, KG_OP_IDX_DIV, L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, W->F.K, kg_kx_const_i(k, L->ix, WG_BK - 1), KG_NONE),
                                          kg_kx_const_i(k, L->ix, WG_BK), KG_NONE));
}

/* a matrix descriptor (int64) of a 128-byte-swizzled operand at shared offset `off` (int32 expr) */
static uint32_t desc(wgk *W, uint32_t off, bool km) {
  kg_kernel *k = W->k;
  uint32_t a = kg_lw_cvt(W->L, add32(W, kg_kx_sreg(k, KG_SREG_SMEM, KG_I32), off), KG_I64);
  uint32_t field = kg_kx_op(k, KG_OP_IDX_MOD, KG_I64, kg_kx_op(k, KG_OP_IDX_DIV, KG_I64, a, kg_kx_const_i(k, KG_I64, 16), KG_NONE),
                            kg_kx_const_i(k, KG_I64, 16384), KG_NONE);
  int64_t lbo = km ? 16 : WG_BLOCK; /* K-major swizzled: unused ("assumed 1") */
  int64_t hi = ((int64_t)(lbo >> 4) << 16) | ((int64_t)(WG_SBO >> 4) << 32) | ((int64_t)1 << 62);
  return kg_kx_op(k, KG_OP_IDX_ADD, KG_I64, field, kg_kx_const_i(k, KG_I64, hi), KG_NONE);
}

void kg_lw_wgmma_body(kg_mmk *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  const kg_mm_tile_info *I = kg_mm_tile_get((kg_mm_tile)L->v->mm_tile);
  wgk W;
  memset(&W, 0, sizeof W);
  W.S = S, W.L = L, W.k = k;
  W.BM = I->bm, W.BN = I->bn, W.ST = I->stages, W.NC = I->wm;
  W.akm = (L->v->mm_a & KG_MM_KMAJOR) != 0, W.bkm = (L->v->mm_b & KG_MM_KMAJOR) != 0;
  W.bf = S->An->dtype == KG_BF16;
  W.a_bytes = W.BM * WG_ROW, W.stage_bytes = (W.BM + W.BN) * WG_ROW;
  W.bar0 = W.ST * W.stage_bytes;
  k->launch.smem_dyn = W.bar0 + 16 * W.ST;
  k->sm90a = true;
  k->max_threads = 128 * (W.NC + 1);
  k->schedule = kg_arena_printf(L->c->arena, "%s.%s.a%s.b%s", k->schedule, W.bf ? "bf16" : "f16", W.akm ? "k" : "m", W.bkm ? "k" : "n");
  W.tmA = tmap_param(&W, 0), W.tmB = tmap_param(&W, 1);

  L->cur = kg_kcursor_top(k);
  uint32_t tid = var(&W, "tid", KG_I32, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32));
  uint32_t wg = var(&W, "wg", KG_I32, op32(&W, KG_OP_IDX_DIV, tid, c32(&W, 128)));
  uint32_t it = kg_kvar_new(k, "it", KG_I32); /* K chunks so far, over every tile: the ring's position */
  kg_ks d0 = kg_ks_make(KS_DECL);
  d0.a = it, d0.b = c32(&W, 0);
  add_stmt(&W, d0);
  comment(&W, "the stages' barriers: full (the producer's arrival and TMA's bytes), empty (one arrival per consumer)");
  kg_kcursor top = L->cur;
  L->cur = kg_kcursor_body(k, if_stmt(&W, kg_kx_op(k, KG_OP_EQ, KG_BOOL, tid, c32(&W, 0), KG_NONE)), false);
  for (uint32_t s = 0; s < W.ST; s++) {
    tc(&W, KG_TC_MBAR_INIT, KG_NONE, c32(&W, W.bar0 + 8 * s), KG_NONE, KG_NONE, 1);
    tc(&W, KG_TC_MBAR_INIT, KG_NONE, c32(&W, W.bar0 + 8 * (W.ST + s)), KG_NONE, KG_NONE, W.NC);
  }
  tc(&W, KG_TC_FENCE_INIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  L->cur = refresh(top);
  add_stmt(&W, kg_ks_make(KS_BARRIER));
  uint32_t prod = if_stmt(&W, kg_kx_op(k, KG_OP_EQ, KG_BOOL, wg, c32(&W, 0), KG_NONE));

  /* the producer: its warpgroup gives registers away (setmaxnreg), thread 0 loads */
  L->cur = kg_kcursor_body(k, prod, false);
  comment(&W, "producer: thread 0 of warpgroup 0 brings every K chunk by TMA");
  tc(&W, KG_TC_SETMAXNREG, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 40);
  L->cur = kg_kcursor_body(k, if_stmt(&W, kg_kx_op(k, KG_OP_EQ, KG_BOOL, tid, c32(&W, 0), KG_NONE)), false);
  kg_lw_mm_frame(S, W.BM, W.BN, &W.F);
  uint32_t KT = ktiles(&W);
  uint32_t ktv = open_for(&W, "kt", KT);
  uint32_t s = var(&W, "s", KG_I32, op32(&W, KG_OP_IDX_MOD, kg_kx_var(k, it), c32(&W, W.ST)));
  uint32_t ph = var(&W, "ph", KG_I32, op32(&W, KG_OP_IDX_MOD, op32(&W, KG_OP_IDX_DIV, kg_kx_var(k, it), c32(&W, W.ST)), c32(&W, 2)));
  tc(&W, KG_TC_MBAR_WAIT, KG_NONE, add32(&W, c32(&W, W.bar0 + 8 * W.ST), mul32(&W, s, 8)), op32(&W, KG_OP_BXOR, ph, c32(&W, 1)), KG_NONE, 0);
  load_stage(&W, kg_kx_var(k, ktv), s, W.F.bz);
  assign(&W, it, add32(&W, kg_kx_var(k, it), c32(&W, 1)));

  /* the consumers: more registers (the accumulators), then every tile's K chunks and epilogue */
  L->cur = kg_kcursor_body(k, prod, true);
  comment(&W, "consumers: warpgroups 1 and 2, rows 64 (wg - 1) .. of each tile");
  tc(&W, KG_TC_SETMAXNREG, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0x1000 | 232);
  uint32_t cw = var(&W, "cw", KG_I32, add32(&W, wg, c32(&W, -1)));
  kg_lw_mm_frame(S, W.BM, W.BN, &W.F);
  kg_kcursor tile = L->cur;
  KT = ktiles(&W);
  uint32_t nacc = W.BN / 2, acc0 = k->vars.n;
  for (uint32_t i = 0; i < nacc; i++) {
    uint32_t v = kg_kvar_new(k, "acc", KG_F32);
    kg_ks dd = kg_ks_make(KS_DECL);
    dd.a = v, dd.b = KG_NONE;
    add_stmt(&W, dd);
  }
  kg_kcursor cons = L->cur;
  open_for(&W, "kt", KT);
  s = var(&W, "s", KG_I32, op32(&W, KG_OP_IDX_MOD, kg_kx_var(k, it), c32(&W, W.ST)));
  ph = var(&W, "ph", KG_I32, op32(&W, KG_OP_IDX_MOD, op32(&W, KG_OP_IDX_DIV, kg_kx_var(k, it), c32(&W, W.ST)), c32(&W, 2)));
  tc(&W, KG_TC_MBAR_WAIT, KG_NONE, add32(&W, c32(&W, W.bar0), mul32(&W, s, 8)), ph, KG_NONE, 0);
  tc(&W, KG_TC_WG_FENCE, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  uint32_t stage = var(&W, "st", KG_I32, mul32(&W, s, W.stage_bytes));
  uint32_t a0 = var(&W, "a0", KG_I32, add32(&W, stage, mul32(&W, cw, W.akm ? 64 * WG_ROW : WG_BLOCK)));
  uint32_t b0 = var(&W, "b0", KG_I32, add32(&W, stage, c32(&W, W.a_bytes)));
  for (uint32_t kk = 0; kk < WG_BK / 16; kk++) {
    /* K 16 further: 32 bytes along a K-major row, 16 rows of K down an MN-major block */
    uint32_t da = desc(&W, add32(&W, a0, c32(&W, W.akm ? 32 * kk : 16 * WG_ROW * kk)), W.akm);
    uint32_t db = desc(&W, add32(&W, b0, c32(&W, W.bkm ? 32 * kk : 16 * WG_ROW * kk)), W.bkm);
    tc(&W, KG_TC_WGMMA, acc0, da, db, KG_NONE, W.BN | (W.bf ? 0x200 : 0) | (W.akm ? 0 : 0x400) | (W.bkm ? 0 : 0x800));
  }
  tc(&W, KG_TC_WG_COMMIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  tc(&W, KG_TC_WG_WAIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  kg_kcursor kb = L->cur;
  L->cur = kg_kcursor_body(k, if_stmt(&W, kg_kx_op(k, KG_OP_EQ, KG_BOOL, op32(&W, KG_OP_IDX_MOD, tid, c32(&W, 128)), c32(&W, 0), KG_NONE)), false);
  tc(&W, KG_TC_MBAR_ARRIVE, KG_NONE, add32(&W, c32(&W, W.bar0 + 8 * W.ST), mul32(&W, s, 8)), KG_NONE, KG_NONE, 0);
  L->cur = refresh(kb);
  assign(&W, it, add32(&W, kg_kx_var(k, it), c32(&W, 1)));

  /* the epilogue: register i of thread t of the consumer holds row 16 (t / 32) + g + 8 ((i >> 1) & 1),
   * column 8 (i >> 2) + 2 q + (i & 1) of its 64 x BN tile */
  L->cur = refresh(cons);
  comment(&W, "epilogue");
  uint32_t lt = var(&W, "lt", KG_I32, op32(&W, KG_OP_IDX_MOD, tid, c32(&W, 128)));
  uint32_t lane = op32(&W, KG_OP_IDX_MOD, lt, c32(&W, 32));
  uint32_t r0 = var(&W, "r0", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, W.F.m0,
                                            kg_lw_cvt(L, add32(&W, add32(&W, mul32(&W, cw, 64), mul32(&W, op32(&W, KG_OP_IDX_DIV, lt, c32(&W, 32)), 16)),
                                                             op32(&W, KG_OP_IDX_DIV, lane, c32(&W, 4))), L->ix), KG_NONE));
  uint32_t c0 = var(&W, "c0", L->ix, kg_kx_op(k, KG_OP_IDX_ADD, L->ix, W.F.n0, kg_lw_cvt(L, mul32(&W, op32(&W, KG_OP_IDX_MOD, lane, c32(&W, 4)), 2), L->ix), KG_NONE));
  for (uint32_t i = 0; i < nacc; i++) {
    L->cur = refresh(cons);
    uint32_t gm = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, r0, kg_kx_const_i(k, L->ix, 8 * ((i >> 1) & 1)), KG_NONE);
    uint32_t gn = kg_kx_op(k, KG_OP_IDX_ADD, L->ix, c0, kg_kx_const_i(k, L->ix, 8 * (i >> 2) + (i & 1)), KG_NONE);
    kg_lw_mm_store(S, &W.F, gm, gn, kg_kx_var(k, acc0 + i));
  }
  L->cur = refresh(tile);
}
