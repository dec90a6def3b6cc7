/* passes/lower_mma.c — the tensor-core tier of the MATMUL kernel class: warp-level mma.sync
 * (sm_80 and later) over a cp.async pipeline of swizzled shared-memory tiles, the prologue and
 * the epilogue fused as in the SIMT tiles (passes/lower_matmul.c builds the parameters, the tile
 * frame and the epilogue; this file the body between them).
 *
 * The schedule (kg_variant: mm_tile, mm_prec, mm_a, mm_b; chosen by passes/schedule.c):
 *   a block of WM × WN warps owns a BM × BN output tile; warp (wm, wn) a (BM/WM) × (BN/WN) warp
 *   tile of m16n8 instruction tiles, each thread holding 4 float32 accumulators of each (the
 *   PTX ISA's C fragment: rows g, g + 8, columns 2t, 2t + 1 with g = lane / 4, t = lane % 4);
 *   K walks in chunks of 64 bytes of each operand (BK = 32 float16 / bfloat16, 16 float32)
 *   through a ring of ST stages in the dynamic shared memory:
 *
 *     prologue: tiles 0 .. ST-2 into stages 0 .. ST-2, one cp.async group each
 *     for kt in 0 .. KT-1:
 *       cp.async.wait_group ST-2; __syncthreads()      tile kt landed; stage (kt-1) % ST is free
 *       tile kt+ST-1 → stage (kt+ST-1) % ST: cp.async (commit, even empty)
 *                     and the register-staged operands' global loads
 *       for each instruction step of the chunk: fragments (ldmatrix, .trans for an operand whose
 *         contiguous dim is M or N; 32-bit shared loads for such a float32 operand), mma.sync
 *       the register-staged operands' values → their stage (16-byte shared stores)
 *     epilogue at each accumulator: kg_lw_mm_store (bias, activation, residual, casts, ...)
 *
 * Operands. An operand read as it is from a tensor whose rows start 16-byte aligned (mm_a / mm_b
 * & KG_MM_ASYNC) is copied by cp.async, 16 bytes a thread, the src-size zero-filling what lies
 * past K, M or N; so is linear's B when it concatenates such tensors along its rows (separate
 * weights merged by passes/merge_products.c): K-major, each chunk lies in one row, copied from the
 * tensor that holds it (cat_async: a branch per tensor on the row). Any other operand — pointwise
 * producers (the prologue), views, a transposed operand read through strides, a convolution's
 * IM2COL window — is evaluated by kg_lw_val_at into registers, 16 bytes of its contiguous dim a
 * thread (0 outside the matrix), rounded to the operand type and stored. The shared tile of an operand keeps its global layout: [rows][BK]
 * when K is contiguous (KG_MM_KMAJOR), else [BK][rows] cut into blocks of at most 128 bytes;
 * every row of a block is XOR-swizzled by 16-byte chunks with the TMA / wgmma patterns
 * (Swizzle<log2(W/16), 4, 3> on byte offsets: chunk ^= (offset / 128) % (W / 16) for a block W
 * bytes wide), so ldmatrix's eight 16-byte rows and the 16-byte stores fall in distinct banks.
 *
 * float32 (mm_prec): split-TF32 (KG_MM_PREC_3XTF32) rounds each fragment value to TF32 (hi) and
 * its remainder to TF32 (lo) and accumulates lo·hi + hi·lo + hi·hi (three m16n8k8 products;
 * lo·lo is below float32's resolution); KG_MM_PREC_TF32 one hi·hi product. float32 products sum
 * K in blocks of KG_MM_KBLOCK into partial accumulators added to the accumulators after each
 * block, as the SIMT tiles do.
 *
 * Edges: sizes that are not tile multiples are zero-filled in shared memory and the epilogue
 * stores only inside C; K = 0 leaves the accumulators at 0. */
#include <string.h>

#include "lower_int.h"

typedef struct tcop {
  bool is_b;
  uint32_t id;           /* the operand node */
  uint32_t rows;         /* BM or BN */
  bool kmajor, async;
  bool cat;              /* async B that is a concatenation of tensors (kg_mm_cat_of_sources): a row from its own */
  bool direct;           /* a 1 × 1 convolution's B: id is the IM2COL's input [N, C, S...] */
  uint32_t base;         /* byte offset of its tile in stage 0 */
  uint32_t sw;           /* swizzle block width, bytes (kmajor: 64) */
  uint32_t chunks;       /* 16-byte chunks a thread brings per stage */
  uint32_t reg0;         /* register-staged: the first of chunks × 4 staging vars */
} tcop;

typedef struct tck {
  kg_mmk *S;
  lctx *L;
  kg_kernel *k;
  uint32_t BM, BN, BK, WM, WN, ST, NT, MT, NT8, KSTEP, esz, stage_bytes;
  kg_dtype opdt;         /* F16, BF16 or F32 */
  int prec;              /* kg_mm_prec */
  tcop A, B;
  kg_mm_frame F;
  uint32_t tid, lane, wm, wn; /* int32 exprs */
  uint32_t acc0;         /* MT × NT8 × 4 float32 accumulators, consecutive vars */
  uint32_t part0;        /* float32 operands: as many partial sums (KG_NONE: none) */
  uint32_t kblock;       /* float32 operands: k-tiles summed into part0 before acc0 (blocked summation) */
} tck;

/* ---- expression helpers: int32 (shared offsets, lanes) and the index type (global) ---- */
static uint32_t c32(tck *T, int64_t v) { return kg_kx_const_i(T->k, KG_I32, v); }
static uint32_t op32(tck *T, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(T->k, op, KG_I32, a, b, KG_NONE); }
static uint32_t add32(tck *T, uint32_t a, uint32_t b) { return op32(T, KG_OP_IDX_ADD, a, b); }
static uint32_t mul32(tck *T, uint32_t a, int64_t b) { return op32(T, KG_OP_IDX_MUL, a, c32(T, b)); }
static uint32_t div32(tck *T, uint32_t a, int64_t b) { return op32(T, KG_OP_IDX_DIV, a, c32(T, b)); }
static uint32_t mod32(tck *T, uint32_t a, int64_t b) { return op32(T, KG_OP_IDX_MOD, a, c32(T, b)); }
static uint32_t cix(tck *T, int64_t v) { return kg_kx_const_i(T->k, T->L->ix, v); }
static uint32_t addix(tck *T, uint32_t a, uint32_t b) { return kg_kx_op(T->k, KG_OP_IDX_ADD, T->L->ix, a, b, KG_NONE); }
static uint32_t ix_of(tck *T, uint32_t e32) { return kg_lw_cvt(T->L, e32, T->L->ix); }
static uint32_t lt(tck *T, uint32_t a, uint32_t b) { return kg_kx_op(T->k, KG_OP_LT, KG_BOOL, a, b, KG_NONE); }
static uint32_t land(tck *T, uint32_t a, uint32_t b) { return kg_kx_op(T->k, KG_OP_LAND, KG_BOOL, a, b, KG_NONE); }

static void add_stmt(tck *T, kg_ks s) { kg_ks_add(&T->L->cur, s); }
static void tc_stmt(tck *T, kg_tc_op op, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t imm) {
  kg_ks s = kg_ks_make(KS_TC);
  s.sub = (uint16_t)op, s.a = a, s.b = b, s.c = c, s.d = d, s.imm = imm;
  add_stmt(T, s);
}
static void barrier(tck *T) { add_stmt(T, kg_ks_make(KS_BARRIER)); }
static void comment(tck *T, const char *text) {
  kg_ks s = kg_ks_make(KS_COMMENT);
  s.text = text;
  add_stmt(T, s);
}
static kg_kcursor refresh(kg_kcursor c) { return c.parent == KG_NONE ? kg_kcursor_top(c.k) : kg_kcursor_body(c.k, c.parent, c.els); }
static kg_kcursor if_body(tck *T, uint32_t cond) {
  kg_ks s = kg_ks_make(KS_IF);
  s.a = cond;
  uint32_t st = kg_ks_add(&T->L->cur, s);
  return kg_kcursor_body(T->k, st, false);
}
static uint32_t var(tck *T, const char *name, kg_dtype t, uint32_t init) { return kg_lw_decl(T->L, name, t, init); }
/* n consecutive vars of dtype t, declared (zero) here */
static uint32_t vars(tck *T, const char *name, kg_dtype t, uint32_t n) {
  uint32_t first = T->k->vars.n;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = kg_kvar_new(T->k, name, t);
    kg_ks s = kg_ks_make(KS_DECL);
    s.a = v, s.b = KG_NONE;
    add_stmt(T, s);
  }
  return first;
}
static void assign(tck *T, uint32_t v, uint32_t e) {
  kg_ks s = kg_ks_make(KS_ASSIGN);
  s.a = v, s.b = e;
  add_stmt(T, s);
}

/* ---- shared-memory layout ---- */

/* Swizzle<log2(sw/16), 4, 3> of a byte offset inside a block sw bytes wide */
static uint32_t swz(tck *T, uint32_t o, uint32_t sw) {
  if (sw <= 16) return o;
  uint32_t mask = c32(T, (int64_t)(sw / 16 - 1) << 4);
  return op32(T, KG_OP_BXOR, o, op32(T, KG_OP_BAND, div32(T, o, 8), mask));
}

/* byte offset of element (row, kel) of operand o's tile in stage `stage` (an int32 expr); kel
 * (and, mn-major, row) at 16-byte boundaries for chunk addresses */
static uint32_t tile_off(tck *T, const tcop *o, uint32_t stage, uint32_t row, uint32_t kel) {
  uint32_t off;
  if (o->kmajor) {
    off = swz(T, add32(T, mul32(T, row, KG_MM_TC_KBYTES), mul32(T, kel, T->esz)), KG_MM_TC_KBYTES);
  } else {
    uint32_t mb = mul32(T, row, T->esz);
    uint32_t blk = div32(T, mb, o->sw), lin = add32(T, mul32(T, kel, o->sw), mod32(T, mb, o->sw));
    off = add32(T, mul32(T, blk, (int64_t)T->BK * o->sw), swz(T, lin, o->sw));
  }
  return add32(T, add32(T, c32(T, o->base), mul32(T, stage, T->stage_bytes)), off);
}

/* ---- global → shared ---- */


/* chunk j of this thread: its (row, kel) in the tile, and how many elements it spans along the
 * operand's contiguous dim (16 bytes) */
static void chunk_pos(tck *T, const tcop *o, uint32_t j, uint32_t *row, uint32_t *kel) {
  uint32_t c = add32(T, T->tid, c32(T, (int64_t)j * T->NT)), per = 16 / T->esz;
  if (o->kmajor) { /* four chunks a row: neighbouring threads read along K */
    *row = var(T, "cr", KG_I32, div32(T, c, KG_MM_TC_KBYTES / 16));
    *kel = var(T, "ck", KG_I32, mul32(T, mod32(T, c, KG_MM_TC_KBYTES / 16), per));
  } else { /* a k-row of the tile is rows × esz / 16 chunks: neighbouring threads read along M (N) */
    uint32_t cpr = o->rows * T->esz / 16;
    *kel = var(T, "ck", KG_I32, div32(T, c, cpr));
    *row = var(T, "cr", KG_I32, mul32(T, mod32(T, c, cpr), per));
  }
}

/* the operand's coordinate at (global row, global k) */
static void op_coord(tck *T, const tcop *o, uint32_t grow, uint32_t gk, uint32_t *c) {
  if (o->is_b) kg_lw_mm_b_coord(T->S, &T->F, gk, grow, c);
  else kg_lw_mm_a_coord(T->S, &T->F, grow, gk, c);
  if (o->direct) { /* IM2COL's [n, g, c, s...] is the input's [n, g·C/G + c, s...] */
    uint32_t g = c[1], ch = c[2];
    if (g != KG_NONE) {
      int64_t cg = T->L->g->nodes.v[T->S->mmn->in[1]].shape.d[2].v; /* C/G: static (the weight's) */
      ch = addix(T, kg_kx_op(T->k, KG_OP_IDX_MUL, T->L->ix, g, cix(T, cg), KG_NONE), ch);
    }
    c[1] = ch;
    int rank = T->L->g->nodes.v[T->S->mmn->in[1]].shape.rank;
    for (int d = 3; d < rank; d++) c[d - 1] = c[d];
  }
}

/* The cp.async of one chunk of a concatenation at its coordinate c ([row, k]; row 0 when nothing
 * is read): from the tensor whose rows hold c's row, at its own row (c's less the rows before) —
 * a chain of branches on the row, one copy in each, so the chunk is written once. */
static void cat_async(tck *T, const tcop *o, const uint32_t *c, uint32_t dst, uint32_t bytes) {
  lctx *L = T->L;
  const kg_gnode *cat = &L->g->nodes.v[o->id];
  kg_kcursor here = L->cur;
  uint32_t row = var(T, "crow", L->ix, c[0] == KG_NONE ? cix(T, 0) : c[0]);
  int64_t start = 0;
  for (int j = 0; j < cat->n_in; j++) {
    uint32_t seg = cat->in[j];
    int64_t n = L->g->nodes.v[seg].shape.d[0].v;
    uint32_t st = KG_NONE;
    if (j + 1 < cat->n_in) { /* rows start .. start + n: this tensor; else the next branch */
      kg_ks s = kg_ks_make(KS_IF);
      s.a = lt(T, row, cix(T, start + n));
      st = kg_ks_add(&L->cur, s);
      L->cur = kg_kcursor_body(T->k, st, false);
    }
    uint32_t sc[KG_MAX_RANK], param;
    memcpy(sc, c, sizeof sc);
    sc[0] = start ? kg_kx_op(T->k, KG_OP_SUB, L->ix, row, cix(T, start), KG_NONE) : row;
    kg_lw_mm_memo_reset(L);
    uint32_t off = kg_lw_source_offset(L, seg, sc, &param);
    tc_stmt(T, KG_TC_CPASYNC, param, off == KG_NONE ? cix(T, 0) : off, dst, bytes, 0);
    kg_lw_mm_memo_reset(L);
    if (st != KG_NONE) L->cur = kg_kcursor_body(T->k, st, true);
    start += n;
  }
  L->cur = refresh(here);
}

/* cp.async of this thread's chunks of tile kt (index expr) into stage `stage` */
static void load_async(tck *T, const tcop *o, uint32_t kt, uint32_t stage) {
  lctx *L = T->L;
  kg_kcursor outer = L->cur;
  uint32_t extent = o->is_b ? T->F.N : T->F.M, origin = o->is_b ? T->F.n0 : T->F.m0;
  for (uint32_t j = 0; j < o->chunks; j++) {
    L->cur = refresh(outer);
    uint32_t row, kel;
    chunk_pos(T, o, j, &row, &kel);
    uint32_t gr = var(T, "gr", L->ix, addix(T, origin, ix_of(T, row)));
    uint32_t gk = var(T, "gk", L->ix, addix(T, kg_kx_op(T->k, KG_OP_IDX_MUL, L->ix, kt, cix(T, T->BK), KG_NONE), ix_of(T, kel)));
    /* bytes inside the matrix: along the contiguous dim up to its extent, 0 past the other */
    uint32_t lim = o->kmajor ? T->F.K : extent, at = o->kmajor ? gk : gr, other = o->kmajor ? gr : gk, oext = o->kmajor ? extent : T->F.K;
    uint32_t left = kg_kx_op(T->k, KG_OP_SUB, L->ix, lim, at, KG_NONE);
    uint32_t el = kg_kx_op(T->k, KG_OP_MINIMUM, L->ix, kg_kx_op(T->k, KG_OP_MAXIMUM, L->ix, left, cix(T, 0), KG_NONE), cix(T, 16 / T->esz), KG_NONE);
    uint32_t in = var(T, "in", KG_BOOL, land(T, lt(T, other, oext), lt(T, at, lim)));
    uint32_t bytes = var(T, "nb", KG_I32, kg_kx_select(T->k, KG_I32, in, mul32(T, kg_lw_cvt(L, el, KG_I32), T->esz), c32(T, 0)));
    /* the first element's offset (the tensor's base when nothing is read) */
    kg_lw_mm_memo_reset(L);
    uint32_t c[KG_MAX_RANK], param;
    op_coord(T, o, kg_kx_select(T->k, L->ix, in, gr, cix(T, 0)), kg_kx_select(T->k, L->ix, in, gk, cix(T, 0)), c);
    if (o->cat) {
      cat_async(T, o, c, var(T, "dst", KG_I32, tile_off(T, o, stage, row, kel)), bytes);
      continue;
    }
    uint32_t off = kg_lw_source_offset(L, o->id, c, &param);
    tc_stmt(T, KG_TC_CPASYNC, param, off == KG_NONE ? cix(T, 0) : off, tile_off(T, o, stage, row, kel), bytes, 0);
  }
  L->cur = refresh(outer);
}

/* register-staged: this thread's chunks of tile kt evaluated into its staging vars */
static void load_regs(tck *T, const tcop *o, uint32_t kt) {
  lctx *L = T->L;
  kg_kernel *k = T->k;
  kg_kcursor outer = L->cur;
  uint32_t extent = o->is_b ? T->F.N : T->F.M, origin = o->is_b ? T->F.n0 : T->F.m0, per = 16 / T->esz;
  for (uint32_t j = 0; j < o->chunks; j++) {
    L->cur = refresh(outer);
    uint32_t row, kel;
    chunk_pos(T, o, j, &row, &kel);
    uint32_t vals[8];
    for (uint32_t e = 0; e < per; e++) {
      uint32_t r = o->kmajor ? row : add32(T, row, c32(T, e)), kk = o->kmajor ? add32(T, kel, c32(T, e)) : kel;
      uint32_t gr = var(T, "gr", L->ix, addix(T, origin, ix_of(T, r)));
      uint32_t gk = var(T, "gk", L->ix, addix(T, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, kt, cix(T, T->BK), KG_NONE), ix_of(T, kk)));
      uint32_t v = kg_kvar_new(k, "x", KG_F32);
      kg_ks d = kg_ks_make(KS_DECL);
      d.a = v, d.b = kg_kx_const_f(k, KG_F32, 0.0);
      add_stmt(T, d);
      kg_kcursor here = L->cur;
      L->cur = if_body(T, land(T, lt(T, gr, extent), lt(T, gk, T->F.K)));
      kg_lw_mm_memo_reset(L);
      uint32_t c[KG_MAX_RANK];
      op_coord(T, o, gr, gk, c);
      assign(T, v, kg_lw_cvt(L, kg_lw_val_at(L, o->id, c), KG_F32));
      L->cur = refresh(here);
      vals[e] = kg_kx_var(k, v);
    }
    for (uint32_t w = 0; w < 4; w++) { /* four 32-bit words: half pairs packed, or float32 values */
      uint32_t x = T->esz == 2 ? kg_kx_op(k, KG_OP_TC_PACK2, KG_I32, vals[2 * w], vals[2 * w + 1], KG_NONE) : vals[w];
      if (T->esz == 2) k->exprs.v[x].i = T->opdt == KG_BF16;
      assign(T, o->reg0 + 4 * j + w, x);
    }
  }
  L->cur = refresh(outer);
}

/* the staging vars → stage `stage` (one 16-byte store a chunk) */
static void store_regs(tck *T, const tcop *o, uint32_t stage) {
  lctx *L = T->L;
  kg_kcursor outer = L->cur;
  for (uint32_t j = 0; j < o->chunks; j++) {
    L->cur = refresh(outer);
    uint32_t row, kel;
    chunk_pos(T, o, j, &row, &kel);
    kg_ks s = kg_ks_make(KS_SMEM_ST);
    s.b = tile_off(T, o, stage, row, kel), s.c = o->reg0 + 4 * j, s.imm = 4;
    add_stmt(T, s);
  }
  L->cur = refresh(outer);
}

/* tile kt (index expr) → stage: cp.async for the async operands, global loads into the staging
 * vars for the others (stored by store_regs) */
static void issue_tile(tck *T, uint32_t kt, uint32_t stage, bool regs) {
  const tcop *ops[2] = {&T->A, &T->B};
  for (int i = 0; i < 2; i++) {
    if (ops[i]->async) load_async(T, ops[i], kt, stage);
    else if (regs) load_regs(T, ops[i], kt);
  }
}
static void store_tile(tck *T, uint32_t stage) {
  if (!T->A.async) store_regs(T, &T->A, stage);
  if (!T->B.async) store_regs(T, &T->B, stage);
}

/* ---- fragments and products ---- */

/* float32 bits → the TF32 hi part, and (split) the TF32 remainder, as int32 fragment vars */
static void tf32_split(tck *T, uint32_t bits, uint32_t hi, uint32_t lo) {
  kg_kernel *k = T->k;
  uint32_t f = kg_kx_op(k, KG_OP_BITCAST, KG_F32, bits, KG_NONE, KG_NONE);
  uint32_t h = var(T, "hi", KG_F32, kg_kx_op(k, KG_OP_TF32_RNA, KG_F32, f, KG_NONE, KG_NONE));
  assign(T, hi, kg_kx_op(k, KG_OP_BITCAST, KG_I32, h, KG_NONE, KG_NONE));
  if (lo == KG_NONE) return;
  uint32_t rest = kg_kx_op(k, KG_OP_SUB, KG_F32, f, h, KG_NONE);
  assign(T, lo, kg_kx_op(k, KG_OP_BITCAST, KG_I32, kg_kx_op(k, KG_OP_TF32_RNA, KG_F32, rest, KG_NONE, KG_NONE), KG_NONE, KG_NONE));
}

/* operand o's fragment registers for instruction step ks of stage `stage`: A of m-tile `t`
 * (4 regs), or B of n-tiles t and t+1 (2 regs each: b0, b1 of t, then of t+1) */
static void load_frag(tck *T, const tcop *o, uint32_t stage, uint32_t ks, uint32_t t, uint32_t dst) {
  uint32_t lane = T->lane, l8 = mod32(T, lane, 8), j = div32(T, lane, 8);
  uint32_t k0 = ks * T->KSTEP;
  uint32_t r0 = o->is_b ? add32(T, mul32(T, T->wn, T->BN / T->WN), c32(T, (int64_t)t * 8))
                        : add32(T, mul32(T, T->wm, T->BM / T->WM), c32(T, (int64_t)t * 16));
  bool lds = T->esz == 2 || o->kmajor; /* ldmatrix; else 32-bit shared loads (float32 along M / N) */
  if (lds) {
    uint32_t row, kel;
    uint32_t khalf = T->esz == 2 ? 8 : 4; /* k elements of one 8 x 16-byte matrix */
    /* matrix j of the x4 (lanes 8j..8j+7 give its rows): A: j & 1 the row half, j >> 1 the k
     * half; B: j & 1 the k half, j >> 1 the n tile. K-major rows are the operand's rows; M / N
     * major rows are k (.trans). */
    uint32_t jlo = mod32(T, j, 2), jhi = div32(T, j, 2);
    uint32_t rsel = o->is_b ? jhi : jlo, ksel = o->is_b ? jlo : jhi;
    if (o->kmajor) {
      row = add32(T, add32(T, r0, l8), mul32(T, rsel, 8));
      kel = add32(T, c32(T, k0), mul32(T, ksel, khalf));
    } else {
      kel = add32(T, add32(T, c32(T, k0), l8), mul32(T, ksel, 8));
      row = add32(T, r0, mul32(T, rsel, 8));
    }
    uint32_t at = var(T, "sa", KG_I32, tile_off(T, o, stage, row, kel));
    tc_stmt(T, KG_TC_LDSM, dst, at, KG_NONE, KG_NONE, 4 | (o->kmajor ? 0 : 8));
    return;
  }
  /* float32, contiguous along M / N: a0 (g, t) a1 (g+8, t) a2 (g, t+4) a3 (g+8, t+4); b0 (k t, n g)
   * b1 (k t+4, n g), for n-tiles t and t+1 */
  uint32_t g = div32(T, lane, 4), q = mod32(T, lane, 4);
  for (uint32_t i = 0; i < 4; i++) {
    uint32_t row, kel;
    if (o->is_b) row = add32(T, add32(T, r0, g), c32(T, (int64_t)(i >> 1) * 8)), kel = add32(T, q, c32(T, k0 + 4 * (i & 1)));
    else row = add32(T, add32(T, r0, g), c32(T, (int64_t)(i & 1) * 8)), kel = add32(T, q, c32(T, k0 + 4 * (i >> 1)));
    assign(T, dst + i, kg_kx_smem(T->k, KG_I32, tile_off(T, o, stage, row, kel)));
  }
}

/* one K chunk of stage `stage`: every instruction step's fragments and products */
static void compute_stage(tck *T, uint32_t stage) {
  kg_kernel *k = T->k;
  bool tf = T->esz == 4, split = T->prec == KG_MM_PREC_3XTF32;
  kg_tc_op mma = tf ? KG_TC_MMA_TF32 : T->opdt == KG_BF16 ? KG_TC_MMA_BF16 : KG_TC_MMA_F16;
  for (uint32_t ks = 0; ks < T->BK / T->KSTEP; ks++) {
    /* raw fragments */
    uint32_t a = vars(T, "fa", KG_I32, 4 * T->MT), b = vars(T, "fb", KG_I32, 2 * T->NT8);
    for (uint32_t mt = 0; mt < T->MT; mt++) load_frag(T, &T->A, stage, ks, mt, a + 4 * mt);
    for (uint32_t nt = 0; nt < T->NT8; nt += 2) load_frag(T, &T->B, stage, ks, nt, b + 2 * nt);
    uint32_t ah = a, bh = b, al = KG_NONE, bl = KG_NONE;
    if (tf) { /* TF32 parts */
      ah = vars(T, "ah", KG_I32, 4 * T->MT), bh = vars(T, "bh", KG_I32, 2 * T->NT8);
      if (split) al = vars(T, "al", KG_I32, 4 * T->MT), bl = vars(T, "bl", KG_I32, 2 * T->NT8);
      for (uint32_t i = 0; i < 4 * T->MT; i++) tf32_split(T, kg_kx_var(k, a + i), ah + i, split ? al + i : KG_NONE);
      for (uint32_t i = 0; i < 2 * T->NT8; i++) tf32_split(T, kg_kx_var(k, b + i), bh + i, split ? bl + i : KG_NONE);
    }
    for (uint32_t mt = 0; mt < T->MT; mt++)
      for (uint32_t nt = 0; nt < T->NT8; nt++) {
        uint32_t acc = (T->part0 != KG_NONE ? T->part0 : T->acc0) + 4 * (mt * T->NT8 + nt);
        if (split) { /* the small terms first */
          tc_stmt(T, mma, acc, al + 4 * mt, bh + 2 * nt, KG_NONE, 0);
          tc_stmt(T, mma, acc, ah + 4 * mt, bl + 2 * nt, KG_NONE, 0);
        }
        tc_stmt(T, mma, acc, ah + 4 * mt, bh + 2 * nt, KG_NONE, 0);
      }
  }
}

/* ---- the operands' staging ---- */

static void op_init(tck *T, tcop *o, bool is_b, uint8_t mode, uint32_t base) {
  o->is_b = is_b;
  o->id = T->S->mmn->in[is_b ? 1 : 0];
  o->rows = is_b ? T->BN : T->BM;
  o->kmajor = (mode & KG_MM_KMAJOR) != 0;
  o->direct = false;
  const kg_gnode *n = &T->L->g->nodes.v[o->id];
  if (is_b && T->S->conv && (mode & KG_MM_ASYNC) && n->op == KG_OP_IM2COL && kg_im2col_identity(n->ia, n->fa, n->shape.rank) &&
      T->L->src_of[n->in[0]] != KG_NONE)
    o->id = n->in[0], o->direct = true; /* a 1 × 1 convolution: its input copied as it is */
  o->async = (mode & KG_MM_ASYNC) != 0 && T->L->src_of[o->id] != KG_NONE;
  /* a concatenation of tensors along linear's rows (separate weights merged by merge_products;
   * the scheduler's mm_b_cat): K-major, a 16-byte chunk lies in one row, so in one tensor */
  o->cat = !o->async && is_b && !T->S->conv && (mode & KG_MM_ASYNC) && o->kmajor && kg_mm_cat_of_sources(T->L->g, T->L->f, T->S->mmn, o->id);
  o->async = o->async || o->cat;
  o->base = base;
  uint32_t wbytes = o->rows * T->esz;
  o->sw = o->kmajor ? KG_MM_TC_KBYTES : (wbytes < 128 ? wbytes : 128);
  o->chunks = o->rows * (KG_MM_TC_KBYTES / 16) / T->NT;
  o->reg0 = KG_NONE;
}

void kg_lw_mma_body(kg_mmk *S) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  const kg_mm_tile_info *I = kg_mm_tile_get((kg_mm_tile)L->v->mm_tile);
  tck T;
  memset(&T, 0, sizeof T);
  T.S = S, T.L = L, T.k = k;
  T.opdt = (kg_dtype)S->An->dtype;
  T.prec = L->v->mm_prec;
  T.esz = T.opdt == KG_F32 ? 4 : 2;
  T.BM = I->bm, T.BN = I->bn, T.WM = I->wm, T.WN = I->wn, T.ST = I->stages;
  T.NT = 32 * T.WM * T.WN;
  T.BK = KG_MM_TC_KBYTES / T.esz;
  T.KSTEP = T.esz == 4 ? 8 : 16;
  T.MT = T.BM / T.WM / 16, T.NT8 = T.BN / T.WN / 8;
  T.stage_bytes = (T.BM + T.BN) * KG_MM_TC_KBYTES;
  op_init(&T, &T.A, false, L->v->mm_a, 0);
  op_init(&T, &T.B, true, L->v->mm_b, T.BM * KG_MM_TC_KBYTES);
  k->launch.smem_dyn = T.ST * T.stage_bytes;
  k->schedule = kg_arena_printf(L->c->arena, "%s.%s%s%s.a%s%s.b%s%s", k->schedule, T.opdt == KG_F32 ? "f32" : T.opdt == KG_BF16 ? "bf16" : "f16",
                                T.opdt != KG_F32 ? "" : T.prec == KG_MM_PREC_TF32 ? ".tf32" : ".3xtf32", "", T.A.kmajor ? "k" : "m",
                                T.A.async ? ".async" : "", T.B.kmajor ? "k" : "n", T.B.async ? ".async" : "");

  L->cur = kg_kcursor_top(k);
  T.tid = var(&T, "tid", KG_I32, kg_kx_sreg(k, KG_SREG_TID_X, KG_I32));
  T.lane = var(&T, "lane", KG_I32, mod32(&T, T.tid, 32));
  uint32_t warp = var(&T, "warp", KG_I32, div32(&T, T.tid, 32));
  T.wm = var(&T, "wm", KG_I32, div32(&T, warp, T.WN)), T.wn = var(&T, "wn", KG_I32, mod32(&T, warp, T.WN));
  kg_lw_mm_frame(S, T.BM, T.BN, &T.F);
  kg_lw_mm_row_stats_tile(S, &T.F, T.BM, T.NT, T.ST * T.stage_bytes); /* a norm's statistics of the tile's rows (kg_group.pre) */

  /* one output tile */
  comment(&T, "tensor cores: accumulators (C fragments), staging registers");
  T.acc0 = vars(&T, "acc", KG_F32, 4 * T.MT * T.NT8);
  /* float32: K in blocks of KG_MM_KBLOCK, each block's products summed from 0 and then added to
   * the accumulators (blocked summation, as the SIMT tiles and BLAS libraries sum: one float32
   * chain over K = 2304 was further from float64 than PyTorch's result, tests/test_matmul.c) */
  T.part0 = KG_NONE;
  if (T.esz == 4) T.part0 = vars(&T, "part", KG_F32, 4 * T.MT * T.NT8), T.kblock = KG_MM_KBLOCK / T.BK;
  if (!T.A.async) T.A.reg0 = vars(&T, "sta", T.esz == 2 ? KG_I32 : KG_F32, 4 * T.A.chunks);
  if (!T.B.async) T.B.reg0 = vars(&T, "stb", T.esz == 2 ? KG_I32 : KG_F32, 4 * T.B.chunks);
  uint32_t KT = var(&T, "ktiles", L->ix,
                    kg_kx_op(k, KG_OP_IDX_DIV, L->ix, addix(&T, T.F.K, cix(&T, T.BK - 1)), cix(&T, T.BK), KG_NONE));
  /* the k-tiles [kbeg, kend) of this block: all of K, or split-K's chunk [chunk · len,
   * min(KT, (chunk + 1) · len)); the ring's stage of k-tile kt is kt % ST wherever it starts */
  uint32_t kbeg = cix(&T, 0), kend = KT, prol = c32(&T, 0);
  if (T.F.chunk != KG_NONE) {
    uint32_t len = kg_kx_param(k, kg_kparam_add(k, kg_lw_mkparam(KP_SCALAR, L->ix, false, "chunk_len", KPR_SPLIT_LEN, 0, 0)));
    kbeg = var(&T, "kbeg", L->ix, kg_kx_op(k, KG_OP_IDX_MUL, L->ix, T.F.chunk, len, KG_NONE));
    kend = var(&T, "kend", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, KT, addix(&T, kbeg, len), KG_NONE));
    prol = var(&T, "sbeg", KG_I32, mod32(&T, kg_lw_cvt(L, kbeg, KG_I32), T.ST));
  }
  kg_kcursor tile = L->cur;
  comment(&T, "pipeline prologue: the first stages");
  for (uint32_t s = 0; s + 1 < T.ST; s++) {
    L->cur = refresh(tile);
    kg_kcursor here = L->cur;
    uint32_t ks = T.F.chunk != KG_NONE ? addix(&T, kbeg, cix(&T, s)) : cix(&T, s);
    uint32_t st = T.F.chunk != KG_NONE ? mod32(&T, add32(&T, prol, c32(&T, s)), T.ST) : c32(&T, s);
    L->cur = if_body(&T, lt(&T, ks, kend));
    issue_tile(&T, ks, st, true);
    store_tile(&T, st);
    L->cur = refresh(here);
    tc_stmt(&T, KG_TC_COMMIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  }
  L->cur = refresh(tile);
  uint32_t kv = kg_kvar_new(k, "kt", L->ix);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.a = kv, fr.b = kbeg, fr.c = kend, fr.d = cix(&T, 1);
  uint32_t fst = kg_ks_add(&L->cur, fr);
  L->cur = kg_kcursor_body(k, fst, false);
  uint32_t kt = kg_kx_var(k, kv);
  tc_stmt(&T, KG_TC_WAIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, T.ST - 2);
  barrier(&T);
  uint32_t nt = var(&T, "knext", L->ix, addix(&T, kt, cix(&T, T.ST - 1)));
  uint32_t sw = var(&T, "sw", KG_I32, mod32(&T, kg_lw_cvt(L, nt, KG_I32), T.ST));
  uint32_t sr = var(&T, "sr", KG_I32, mod32(&T, kg_lw_cvt(L, kt, KG_I32), T.ST));
  uint32_t more = var(&T, "more", KG_BOOL, lt(&T, nt, kend));
  kg_kcursor body = L->cur;
  L->cur = if_body(&T, more);
  issue_tile(&T, nt, sw, true);
  L->cur = refresh(body);
  tc_stmt(&T, KG_TC_COMMIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  compute_stage(&T, sr);
  if (!T.A.async || !T.B.async) {
    L->cur = refresh(body);
    L->cur = if_body(&T, more);
    store_tile(&T, sw);
  }
  if (T.part0 != KG_NONE) { /* the end of a K block: acc += part, part = 0 */
    L->cur = refresh(body);
    uint32_t k1 = addix(&T, kt, cix(&T, 1));
    uint32_t edge = kg_kx_op(k, KG_OP_LOR, KG_BOOL, kg_kx_op(k, KG_OP_EQ, KG_BOOL, kg_kx_op(k, KG_OP_IDX_MOD, L->ix, k1, cix(&T, T.kblock), KG_NONE), cix(&T, 0), KG_NONE),
                             kg_kx_op(k, KG_OP_EQ, KG_BOOL, k1, kend, KG_NONE), KG_NONE);
    L->cur = if_body(&T, edge);
    for (uint32_t i = 0; i < 4 * T.MT * T.NT8; i++) {
      assign(&T, T.acc0 + i, kg_kx_op(k, KG_OP_ADD, KG_F32, kg_kx_var(k, T.acc0 + i), kg_kx_var(k, T.part0 + i), KG_NONE));
      assign(&T, T.part0 + i, kg_kx_const_f(k, KG_F32, 0.0));
    }
  }
  /* drained before the next output tile reuses the stages */
  L->cur = refresh(tile);
  tc_stmt(&T, KG_TC_WAIT, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0);
  barrier(&T);
  comment(&T, "epilogue");
  uint32_t g = var(&T, "g", KG_I32, div32(&T, T.lane, 4)), q = var(&T, "q", KG_I32, mod32(&T, T.lane, 4));
  uint32_t wm0 = var(&T, "wm0", L->ix, addix(&T, T.F.m0, ix_of(&T, add32(&T, mul32(&T, T.wm, T.BM / T.WM), g))));
  uint32_t wn0 = var(&T, "wn0", L->ix, addix(&T, T.F.n0, ix_of(&T, add32(&T, mul32(&T, T.wn, T.BN / T.WN), mul32(&T, q, 2)))));
  for (uint32_t mt = 0; mt < T.MT; mt++)
    for (uint32_t n8 = 0; n8 < T.NT8; n8++)
      for (uint32_t i = 0; i < 4; i++) {
        L->cur = refresh(tile);
        uint32_t gm = addix(&T, wm0, cix(&T, mt * 16 + 8 * (i >> 1))), gn = addix(&T, wn0, cix(&T, n8 * 8 + (i & 1)));
        uint32_t acc = kg_kx_var(k, T.acc0 + 4 * (mt * T.NT8 + n8) + i);
        if (T.F.chunk != KG_NONE) kg_lw_mm_store_partial(S, &T.F, gm, gn, acc);
        else kg_lw_mm_store(S, &T.F, gm, gn, acc);
      }
}
