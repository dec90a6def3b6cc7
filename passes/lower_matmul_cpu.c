/* passes/lower_matmul_cpu.c — the CPU target's product schedules (matmul.cpu / conv.cpu): a
 * packed panel and a register-blocked micro-kernel, or for few rows times a weight stored [N, K]
 * dot products along K (matmul.cpu_dot, lower_matmul_dot.c); no shared memory, no barrier. A body of
 * kg_lw_matmul (lower_matmul.c), which makes the parameters every product schedule shares.
 *
 * The GPU's tile schedules (lower_matmul.c) stage operand tiles in shared memory between
 * barriers: on the CPU device their threads must run on fibers, one context switch per barrier,
 * scalar code. Under the CPU target (kg_target_cpu) a product is instead computed by threads
 * that never cooperate, so the CPU device runs them as plain loops (codegen-cuda/cpu.c) on its
 * worker threads, compiled with the host's vector instructions. A thread owns NR output columns
 * (16 for 4-byte accumulators, 8 for 8-byte ones; twice that in the wide tiles KG_MM_CPU8W*, the
 * scheduler's choice for 8-row blocks of N ≥ 32) of a chunk of KG_MM_CPU_MC output rows of one
 * batch (with mm_fold: of every batch, the batch folded into the rows; a convolution's images
 * folded into the columns instead), and a private region of the kernel's scratch buffer
 * (runtime/exec.c sizes it):
 *
 *   P[k][j] = B(batch, k, n0 + j)   for every k < K, j < NR   (not written past N) the panel
 *     B's value is evaluated at its coordinates (kg_lw_val_at: a source through its strides,
 *     pointwise producers inline, a transposed or sliced operand in place, a convolution's
 *     IM2COL with its padding), once per thread; what the micro-kernel then reads is dense.
 *   for m0 in its rows, step MR (the tile's tm: 4, or 8 on a CPU with 32 vector registers):
 *     acc[i][j] = Σ_k A(batch, min(m0 + i, M - 1), k) · P[k][j]                    the micro-kernel
 *       (float32: K in blocks of KG_MM_KBLOCK summed apart, as the GPU kernels; A's rows
 *       clamped inside the matrix: the extra rows are never stored; A at row · stride + k
 *       under a guard that its rows are contiguous, a_rows)
 *     C[i][j] = acc[i][j]                                                           to the scratch
 *     for i, j inside the output: the epilogue (bias, activation, residual, casts) at
 *       (batch, m0 + i, n0 + j) with the product's value C[i][j], stored
 *
 * The micro-kernel's body is MR · NR independent multiply-adds over NR consecutive panel
 * elements at constant offsets: the compiler's SLP vectorizer makes it MR · NR / 8 vector FMAs
 * per k on AVX2, MR · NR / 16 on AVX-512 (with A's element broadcast once per row; the CPU
 * device contracts a · b + c), with the panel in L1/L2. Packing costs K · NR loads per thread
 * against MC · K · NR multiply-adds. The epilogue is a loop over the tile's columns (unit-stride
 * outputs vectorize). Measured on ResNet-18 (docs/perf_cpu.md): A's index split by div / mod per k,
 * a panel copied a cache line per store and zeroed past N, and 4-row blocks had it at 4.1x
 * eager's time on one core; without them, and with its stem pool stored once (fuse.c), 1.3x. */
#include <stdlib.h>
#include <string.h>

#include "lower_matmul_cpu.h"

/* the batch folded into the rows (mm_fold of a product); a convolution's mm_fold folds its images
 * into the columns instead (conv_column) */
static bool rows_folded(const ckern *S) { return S->L->v->mm_fold && !S->conv; }

/* A convolution's column gn: its image into bc (bc0 as it is unless the images are folded into
 * the columns: column = image · P + spatial position, P the spatial size Pcol) and its spatial
 * coordinates into sp */
static void conv_column(ckern *S, const uint32_t *bc0, uint32_t Pcol, uint32_t gn, uint32_t *bc, uint32_t *sp) {
  lctx *L = S->L;
  bc[0] = bc0[0], bc[1] = bc0[1];
  if (Pcol == KG_NONE) {
    kg_lw_mm_conv_spatial(S, gn, sp);
    return;
  }
  bc[0] = kg_lw_decl(L, "img", L->ix, bin(S, KG_OP_IDX_DIV, gn, Pcol));
  kg_lw_mm_conv_spatial(S, kg_lw_decl(L, "pos", L->ix, bin(S, KG_OP_IDX_MOD, gn, Pcol)), sp);
}

/* Whether B's element, evaluated inline in the panel, runs a window (a pool or a resampling read
 * in the loads: GoogLeNet's branch pool before its 1 x 1 convolution, nine loads of a four-way
 * concatenation per element). The full panel's columns are unrolled (each with its coordinates
 * once); unrolled over such an element they made kernels GCC took 14 s each to compile (a third of
 * the forward's first call) for nothing: the window's loads dominate the copy, and the rolled
 * column-outer copy computes the coordinates once per column as well. */
static bool window_inline(const lctx *L, uint32_t id, uint8_t *seen) {
  if (seen[id]) return false;
  seen[id] = 1;
  const kg_gnode *n = &L->g->nodes.v[id];
  if (L->src_of[id] != KG_NONE || L->local[id] || n->vkind == KG_V_SCALAR || n->op == KG_OP_CONST) return false;
  if (n->op == KG_OP_POOL || n->op == KG_OP_UPSAMPLE) return true;
  int nin = n->op == KG_OP_FULL ? 1 : n->n_in;
  for (int j = 0; j < nin; j++)
    if (window_inline(L, n->in[j], seen)) return true;
  return false;
}
/* The arithmetic B's element computes inline (a training batch norm's (x − mean) · rsqrt(var + eps)
 * · w + b and ReLU before a convolution): its non-layout nodes up to the sources, at most cap. */
static int inline_arith(const lctx *L, uint32_t id, uint8_t *seen, int cap) {
  if (seen[id] || cap <= 0) return 0;
  seen[id] = 1;
  const kg_gnode *n = &L->g->nodes.v[id];
  if (L->src_of[id] != KG_NONE || L->local[id] || n->vkind == KG_V_SCALAR || n->op == KG_OP_CONST) return 0;
  unsigned fl = kg_op_get((kg_op)n->op)->flags;
  int c = (fl & (KG_OPF_LAYOUT | KG_OPF_CAST)) ? 0 : 1, nin = n->op == KG_OP_FULL ? 1 : n->n_in;
  for (int j = 0; j < nin && c < cap; j++) c += inline_arith(L, n->in[j], seen, cap - c);
  return c;
}

static bool panel_window(ckern *S, uint32_t b) {
  uint8_t *seen = kg_xcalloc(S->L->g->nodes.n + 1, 1);
  bool w = window_inline(S->L, b, seen);
  free(seen);
  return w;
}

uint32_t kg_mm_cpu_nr(int t, kg_dtype acc) { return (kg_dtype_get(acc)->size >= 8 ? 8 : 16) * (t == KG_MM_CPU8W || t == KG_MM_CPU8W_ALL ? 2 : 1); }


/* The epilogue at output (gm, gn) of batch bc (inside C), the product's value val (acc): bias,
 * activation, residual, casts — every value the group stores, at its coordinates. A convolution's
 * spatial coordinates of column gn: sp when given (computed once per column), else from gn. */
/* A new evaluation point of the epilogue: the product's value val there, and the output coordinates
 * oc of (batch bc, row gm, column gn); a convolution's spatial ones from sp when given */
static void epi_point(ckern *S, const uint32_t *bc, uint32_t gm, uint32_t gn, const uint32_t *sp, uint32_t val, uint32_t *oc) {
  lctx *L = S->L;
  kg_lw_mm_memo_reset(L);
  L->memo[L->grp->red] = kg_lw_decl(L, "mm", S->mdt, kg_lw_cvt(L, val, S->mdt));
  for (int d = 0; d < S->nb; d++) oc[d] = bc[d];
  if (S->mdim >= 0) oc[S->mdim] = S->size_p[S->mdim] == KG_NONE ? KG_NONE : gm;
  if (S->ndim >= 0) oc[S->ndim] = S->size_p[S->ndim] == KG_NONE ? KG_NONE : gn;
  if (S->conv) {
    oc[0] = bc[0];
    oc[1] = bc[1] == KG_NONE ? gm : bin(S, KG_OP_IDX_ADD, bin(S, KG_OP_IDX_MUL, bc[1], cst(S, S->Og)), gm);
    if (sp) memcpy(oc + 2, sp, (size_t)S->cnd * sizeof *sp);
    else kg_lw_mm_conv_spatial(S, gn, oc + 2);
  }
}

void kg_mmc_epilogue(ckern *S, const uint32_t *bc, uint32_t gm, uint32_t gn, const uint32_t *sp, uint32_t val) {
  lctx *L = S->L;
  const kg_graph *g = L->g;
  uint32_t oc[KG_MAX_RANK];
  epi_point(S, bc, gm, gn, sp, val, oc);
  for (uint32_t q = 0; q < S->ns; q++) {
    uint32_t x = kg_lw_cvt(L, kg_lw_val_at(L, S->snode[q], oc), (kg_dtype)g->nodes.v[S->snode[q]].dtype);
    uint32_t off = kg_lw_linear_offset(L, oc, &S->ostride[q * KG_MAX_RANK], (uint32_t)S->r);
    stmt(S, KS_STORE, S->sparam[q], off == KG_NONE ? cst(S, 0) : off, x);
  }
}


/* The batch coordinates of batch index bz over the product's batch dims, innermost first (the
 * outermost takes what remains; a static 1 has none) */
static void batch_coords(ckern *S, uint32_t bz, uint32_t *bc) {
  lctx *L = S->L;
  uint32_t rem = bz;
  int outer = -1;
  for (int d = 0; d < S->nb; d++) {
    bc[d] = KG_NONE;
    if (outer < 0 && S->size_p[d] != KG_NONE) outer = d;
  }
  for (int d = S->nb - 1; d >= 0; d--) {
    if (S->size_p[d] == KG_NONE) continue;
    if (d == outer) { bc[d] = rem; break; }
    const kg_dim *dd = &L->grp->space.d[d];
    uint32_t sz = dd->kind == KG_DIM_STATIC ? cst(S, dd->v) : kg_kx_param(S->k, S->size_p[d]); /* a constant divides by a multiply */
    bc[d] = kg_lw_decl(L, "bc", L->ix, bin(S, KG_OP_IDX_MOD, rem, sz));
    rem = kg_lw_decl(L, "br", L->ix, bin(S, KG_OP_IDX_DIV, rem, sz));
  }
}

/* A folded row (mm_fold): its batch coordinates into bc and its row of the product's M */
static uint32_t unfold_row(ckern *S, const rowsx *R, uint32_t row, uint32_t *bc) {
  lctx *L = S->L;
  if (S->size_p[S->mdim] == KG_NONE) { /* M a static 1: a row per batch */
    batch_coords(S, row, bc);
    return cst(S, 0);
  }
  uint32_t m = kg_lw_decl(L, "fm", L->ix, bin(S, KG_OP_IDX_MOD, row, R->Mrow));
  batch_coords(S, kg_lw_decl(L, "fb", L->ix, bin(S, KG_OP_IDX_DIV, row, R->Mrow)), bc);
  return m;
}

/* The epilogue of a register block (not a convolution's), column by column: rows outer, the
 * tile's ncols columns inner */
static void rows_tail(ckern *S, const rowsx *R, const uint32_t *bc, uint32_t m0, uint32_t rows_n) {
  lctx *L = S->L;
  kg_lw_scope s_i, s_jj;
  uint32_t iv = kg_lw_open_for(L, "i", cst(S, 0), rows_n, cst(S, 1), &s_i);
  uint32_t ebc[KG_MAX_RANK], gm = kg_lw_decl(L, "m", L->ix, bin(S, KG_OP_IDX_ADD, m0, iv));
  if (R->fold) gm = unfold_row(S, R, gm, ebc); /* the row's batch and row of M */
  else memcpy(ebc, bc, sizeof ebc);
  uint32_t jj = kg_lw_open_for(L, "jj", cst(S, 0), R->ncols, cst(S, 1), &s_jj);
  uint32_t gn = kg_lw_decl(L, "n", L->ix, bin(S, KG_OP_IDX_ADD, R->n0, jj));
  uint32_t coff = b64(S, KG_OP_IDX_ADD, R->cbase, kg_lw_cvt(L, bin(S, KG_OP_IDX_ADD, bin(S, KG_OP_IDX_MUL, iv, cst(S, R->NR)), jj), KG_I64));
  kg_mmc_epilogue(S, ebc, gm, gn, NULL, kg_kx_load(S->k, R->scr, coff));
  kg_lw_scope_leave(L, s_jj);
  kg_lw_scope_leave(L, s_i);
}

/* Nodes of the epilogue DAG from id back to the product and the kernel's sources (at most cap + 1) */
static uint32_t epi_size(const lctx *L, uint32_t id, uint32_t cap) {
  const kg_gnode *n = &L->g->nodes.v[id];
  if (id == L->grp->red || L->src_of[id] != KG_NONE || n->op == KG_OP_CONST) return 0;
  uint32_t c = 1;
  for (int j = 0; j < n->n_in && c <= cap; j++) c += epi_size(L, n->in[j], cap - c + 1);
  return c;
}

/* A full row of a small epilogue with its NR columns unrolled for the compiler's SLP (product
 * kernels have its loop vectorizer off, codegen-cuda/cpu.c): every column's values first (loads
 * and arithmetic, no store between them: output and input pointers may alias, so loads cannot move
 * above stores), then each stored value's NR stores. The strides along N are read as the constant
 * 1 (L->unit, under the guard that they are) and the offsets are 64-bit from 64-bit row and column
 * coordinates, so the addresses are visibly consecutive: vector loads and stores (GCC 12's SLP did
 * not see them through 32-bit offsets converted to addresses). S is a copy whose ix is int64. */
/* a convolution's row epilogue may be longer (a batch norm and ReLU6 are 10 nodes): it is a loop
 * (conv_row_loop), not NR unrolled copies */
enum { EPI_ROW_VALUES = 4, EPI_ROW_NODES = 8, EPI_ROW_CONV_NODES = 12, EPI_ROW_UNITS = 16 };
static void epilogue_row(ckern *S, const rowsx *R, const uint32_t *bc, uint32_t gm, uint32_t iv) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  const kg_graph *g = L->g;
  uint32_t xs[KG_MM_CPU_NR_MAX][EPI_ROW_VALUES], offs[KG_MM_CPU_NR_MAX][EPI_ROW_VALUES];
  uint32_t n0 = kg_lw_decl(L, "n", KG_I64, kg_lw_cvt(L, R->n0, KG_I64)), bc64[KG_MAX_RANK];
  for (int d = 0; d < S->nb; d++) bc64[d] = bc[d] == KG_NONE ? KG_NONE : kg_lw_decl(L, "bc", KG_I64, kg_lw_cvt(L, bc[d], KG_I64));
  for (uint32_t j = 0; j < R->NR; j++) {
    uint32_t gn = kg_lw_decl(L, "n", KG_I64, bin(S, KG_OP_IDX_ADD, n0, cst(S, (int64_t)j)));
    uint32_t val = kg_kx_load(k, R->scr, b64(S, KG_OP_IDX_ADD, R->cbase, b64(S, KG_OP_IDX_ADD, b64(S, KG_OP_IDX_MUL, kg_lw_cvt(L, iv, KG_I64), c64(S, R->NR)), c64(S, (int64_t)j))));
    uint32_t oc[KG_MAX_RANK];
    epi_point(S, bc64, gm, gn, NULL, val, oc);
    for (uint32_t q = 0; q < S->ns; q++) {
      kg_dtype dt = (kg_dtype)g->nodes.v[S->snode[q]].dtype;
      xs[j][q] = kg_lw_decl(L, "ev", dt, kg_lw_cvt(L, kg_lw_val_at(L, S->snode[q], oc), dt));
      uint32_t off = kg_lw_linear_offset(L, oc, &S->ostride[q * KG_MAX_RANK], (uint32_t)S->r);
      offs[j][q] = kg_lw_decl(L, "eo", KG_I64, off == KG_NONE ? c64(S, 0) : off);
    }
  }
  for (uint32_t q = 0; q < S->ns; q++)
    for (uint32_t j = 0; j < R->NR; j++) stmt(S, KS_STORE, S->sparam[q], offs[j][q], xs[j][q]);
}

/* A convolution's full tile inside one row of its output (a row's NR columns at the first one's
 * last spatial coordinate + j, its other coordinates shared): rows outer, each row's columns one
 * loop marked independent (KS_FOR imm 1) — the compiler's loop vectorizer (its cheapest cost
 * model in product kernels, codegen-cuda/cpu.c) if-converts the epilogue's selects (ReLU6's
 * NaN-propagating clamps), which basic-block SLP cannot. Under the guard that the strides along
 * the row are 1 (L->unit); S is a copy whose ix is int64. */
static void conv_row_loop(ckern *S, const rowsx *R, const uint32_t *bc, const uint32_t *sp0, uint32_t gm, uint32_t iv) {
  lctx *L = S->L;
  kg_kernel *k = S->k;
  uint32_t bc64[KG_MAX_RANK], sp[KG_CONV_MAX_DIMS];
  for (int d = 0; d < S->nb; d++) bc64[d] = bc[d] == KG_NONE ? KG_NONE : kg_lw_decl(L, "bc", KG_I64, kg_lw_cvt(L, bc[d], KG_I64));
  for (int d = 0; d < S->cnd; d++) sp[d] = sp0[d] == KG_NONE ? KG_NONE : kg_lw_decl(L, "sp", KG_I64, kg_lw_cvt(L, sp0[d], KG_I64));
  uint32_t w0 = sp[S->cnd - 1], rbase = kg_lw_decl(L, "rb", KG_I64, b64(S, KG_OP_IDX_ADD, R->cbase, b64(S, KG_OP_IDX_MUL, kg_lw_cvt(L, iv, KG_I64), c64(S, R->NR))));
  kg_lw_scope sc;
  uint32_t j = kg_lw_open_for(L, "j", c64(S, 0), c64(S, R->NR), c64(S, 1), &sc);
  k->stmts.v[L->cur.parent].imm = 1;
  sp[S->cnd - 1] = kg_lw_decl(L, "sp", KG_I64, b64(S, KG_OP_IDX_ADD, w0, j));
  kg_mmc_epilogue(S, bc64, gm, KG_NONE, sp, kg_kx_load(k, R->scr, b64(S, KG_OP_IDX_ADD, rbase, j)));
  kg_lw_scope_leave(L, sc);
}

/* The stride params along N that the epilogue (just lowered: L->ostride was `before` until then)
 * uses: the stored values' N dim, each source's innermost dim the epilogue made; 0 when more than
 * EPI_ROW_UNITS */
static uint32_t n_strides(ckern *S, const uint32_t *before, uint32_t *u) {
  lctx *L = S->L;
  uint32_t n = 0;
  for (uint32_t q = 0; q < S->ns; q++) {
    uint32_t sp = S->ostride[q * KG_MAX_RANK + (uint32_t)S->ndim];
    if (sp == KG_NONE) continue;
    if (n == EPI_ROW_UNITS) return 0;
    u[n++] = sp;
  }
  for (uint32_t s = 0; s < L->nsrc; s++)
    for (int d = KG_MAX_RANK; d-- > 0;) {
      uint32_t sp = L->ostride[s * KG_MAX_RANK + (uint32_t)d];
      if (sp == KG_NONE) continue;
      if (before[s * KG_MAX_RANK + (uint32_t)d] == KG_NONE) {
        if (n == EPI_ROW_UNITS) return 0;
        u[n++] = sp;
      }
      break;
    }
  return n;
}

/* A read as rows of a source: A (through RESHAPEs, which keep the row-major order) is a source
 * [1.., M, d1 .. dn] with d1 · .. · dn = K. When its trailing dims are contiguous (the guard
 * a_rows returns: the last stride 1, each other the next one's times its size), A(m, k) is at
 * m · stride_M + k: one offset per row, plus k. Otherwise A's value comes from kg_lw_val_at,
 * which splits k over the source's dims (a convolution's weight [O, C, kh, kw] viewed [O, K]:
 * a div and a mod per dim per k, per row — most of the micro-kernel's instructions, measured on
 * ResNet-18's 3 x 3 convolutions, docs/perf_cpu.md). With the batch folded into the rows
 * (mm_fold) A is a source [b1 .. bB, M, d1 .. dn] whose batch dims are the product's: A(row, k)
 * at Σ b_d · stride_d + m · stride_M + k, the row's coordinates from its index (unfold_row). */

static bool same_dim(const kg_dim *a, const kg_dim *b) { return a->kind == b->kind && a->v == b->v; }

uint32_t kg_mmc_a_rows(ckern *S, afast *F) {
  lctx *L = S->L;
  const kg_graph *g = L->g;
  kg_kernel *k = S->k;
  if (S->a1) return KG_NONE;
  const kg_gnode *A = S->An;
  int ra = A->shape.rank;
  bool fold = rows_folded(S);
  int lead = fold ? ra - 2 : 0; /* A's batch dims, read through their strides when folded */
  for (int d = 0; d < ra - 2 && !fold; d++)
    if (!kg_lw_dim_is_one(&A->shape.d[d])) return KG_NONE; /* batched A (or groups): the general path */
  const kg_dim *Md = &A->shape.d[ra - 2], *Kd = &A->shape.d[ra - 1];
  bool mone = kg_lw_dim_is_one(Md);
  if ((mone && !fold) || kg_lw_dim_is_one(Kd)) return KG_NONE;
  uint32_t id = S->mmn->in[0];
  while (L->src_of[id] == KG_NONE && g->nodes.v[id].op == KG_OP_RESHAPE) id = g->nodes.v[id].in[0];
  if (L->src_of[id] == KG_NONE) return KG_NONE;
  const kg_gnode *n = &g->nodes.v[id];
  uint32_t pp = L->pparam[L->src_of[id]];
  if (n->vkind != KG_V_TENSOR || pp == KG_NONE || k->params.v[pp].kind != KP_BUFFER) return KG_NONE;
  int rs = n->shape.rank, m = -1, nt = 0, trail[KG_MAX_RANK];
  if (rs < lead) return KG_NONE;
  for (int d = 0; d < KG_MAX_RANK; d++) F->bstride[d] = KG_NONE;
  for (int d = 0; d < lead; d++) {
    if (!same_dim(&n->shape.d[d], &A->shape.d[d])) return KG_NONE;
    if (!kg_lw_dim_is_one(&A->shape.d[d])) F->bstride[d] = kg_lw_source_stride(L, id, d);
  }
  if (fold) {
    if (!mone) {
      if (rs <= lead || !same_dim(&n->shape.d[lead], Md)) return KG_NONE;
      m = lead;
    }
  } else {
    for (int d = 0; d < rs && m < 0; d++)
      if (!kg_lw_dim_is_one(&n->shape.d[d])) m = d;
    if (m < 0 || !same_dim(&n->shape.d[m], Md)) return KG_NONE;
  }
  int64_t prod = 1;
  bool stat = true;
  for (int d = m >= 0 ? m + 1 : lead; d < rs; d++) {
    if (kg_lw_dim_is_one(&n->shape.d[d])) continue;
    trail[nt++] = d;
    if (n->shape.d[d].kind == KG_DIM_STATIC) prod *= n->shape.d[d].v;
    else stat = false;
  }
  if (nt == 0) return KG_NONE;
  if (nt == 1 ? !same_dim(&n->shape.d[trail[0]], Kd) : !stat || Kd->kind != KG_DIM_STATIC || Kd->v != prod) return KG_NONE;
  uint32_t guard = KG_NONE;
  for (int t = nt; t-- > 0;) {
    uint32_t st = kg_kx_param(k, kg_lw_source_stride(L, id, trail[t]));
    uint32_t want = t == nt - 1 ? cst(S, 1)
                                : bin(S, KG_OP_IDX_MUL, kg_kx_param(k, kg_lw_source_stride(L, id, trail[t + 1])), cst(S, n->shape.d[trail[t + 1]].v));
    uint32_t eq = kg_kx_op(k, KG_OP_EQ, KG_BOOL, st, want, KG_NONE);
    guard = guard == KG_NONE ? eq : kg_kx_op(k, KG_OP_LAND, KG_BOOL, guard, eq, KG_NONE);
  }
  F->id = id, F->param = pp, F->rstride = m >= 0 ? kg_lw_source_stride(L, id, m) : KG_NONE, F->dt = (kg_dtype)n->dtype;
  return guard;
}

/* A's row (batch coordinates bc when folded, row m) as an offset in F's source, k = 0 */
static uint32_t a_row_offset(ckern *S, const afast *F, const uint32_t *bc, uint32_t m) {
  uint32_t off = F->rstride == KG_NONE ? KG_NONE : bin(S, KG_OP_IDX_MUL, m, kg_kx_param(S->k, F->rstride));
  for (int d = 0; d < S->nb && rows_folded(S); d++) {
    if (F->bstride[d] == KG_NONE || bc[d] == KG_NONE) continue;
    uint32_t t = bin(S, KG_OP_IDX_MUL, bc[d], kg_kx_param(S->k, F->bstride[d]));
    off = off == KG_NONE ? t : bin(S, KG_OP_IDX_ADD, off, t);
  }
  return off == KG_NONE ? cst(S, 0) : off;
}

/* The rows: chunks of MC, MR at a time; A through F when given (a_rows), else kg_lw_val_at. */
static void rows(ckern *P, const rowsx *R, const afast *F) {
  ckern S = *P;
  lctx *L = S.L;
  kg_kernel *k = S.k;
  const kg_gnode *mmn = S.mmn, *An = S.An;
  const uint32_t MR = R->MR, NR = R->NR, MC = R->MC;
  const uint32_t M = R->M, K = R->K, mtiles = R->mtiles, pbase = R->pbase, cbase = R->cbase, n0 = R->n0, ncols = R->ncols, scr = R->scr;
  const uint32_t *bc = R->bc;
  kg_dtype acc = S.acc;
  int nb = S.nb;
  bool a1 = S.a1;
  /* the rows: chunks of MC, MR at a time */
  kg_lw_scope s_my;
  uint32_t my = kg_lw_open_for(L, "my", sreg(&S, KG_SREG_CTAID_Y), mtiles, sreg(&S, KG_SREG_NCTAID_Y), &s_my);
  uint32_t mlo = kg_lw_decl(L, "mlo", L->ix, bin(&S, KG_OP_IDX_MUL, my, cst(&S, MC)));
  uint32_t mhi = kg_lw_decl(L, "mhi", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(&S, KG_OP_IDX_ADD, mlo, cst(&S, MC)), M, KG_NONE));
  kg_lw_scope s_m0;
  uint32_t m0 = kg_lw_open_for(L, "m0", mlo, mhi, cst(&S, MR), &s_m0);
  uint32_t mlast = kg_kx_op(k, KG_OP_SUB, L->ix, M, cst(&S, 1), KG_NONE);
  uint32_t row[8];
  for (uint32_t i = 0; i < MR; i++)
    row[i] = kg_lw_decl(L, "mr", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(&S, KG_OP_IDX_ADD, m0, cst(&S, (int64_t)i)), mlast, KG_NONE));
  /* the batch folded into the rows (mm_fold): each row's batch coordinates and row of M */
  uint32_t fbc[8][KG_MAX_RANK], fm[8];
  for (uint32_t i = 0; i < MR; i++) {
    if (R->fold) fm[i] = unfold_row(&S, R, row[i], fbc[i]);
    else fm[i] = row[i], memcpy(fbc[i], bc, sizeof fbc[i]);
  }
  if (!F) kg_lw_mm_row_stats_rows(&S, bc, row, MR); /* a norm's statistics of these rows (kg_group.pre; never folded) */
  uint32_t rb[8]; /* under a_rows's guard: each row's offset in A's source */
  for (uint32_t i = 0; F && i < MR; i++) rb[i] = kg_lw_decl(L, "ra", L->ix, a_row_offset(&S, F, fbc[i], fm[i]));
  /* the register block acc[i][j] = Σ_k A[i][k] · P[k][j]: MR · NR independent sums over NR
   * consecutive panel elements, which the compiler's basic-block SLP makes MR broadcasts and MR ·
   * NR / 8 vector FMAs per k (the CPU glue turns GCC's loop vectorizer off for product kernels,
   * codegen-cuda/cpu.c: it took the k loop for in-order reductions, 5-20x slower). float32 sums K
   * in blocks of KG_MM_KBLOCK apart (part[i][j]) added to acc after each, as the GPU kernels do
   * (accuracy); then the block to the scratch, for the epilogue's loop. */
  uint32_t zero_acc = kg_lw_identity(k, KG_OP_RSUM, acc), accv[8 * KG_MM_CPU_NR_MAX], partv[8 * KG_MM_CPU_NR_MAX];
  for (uint32_t t = 0; t < MR * NR; t++) {
    accv[t] = kg_kvar_new(k, "acc", acc);
    stmt(&S, KS_DECL, accv[t], zero_acc, KG_NONE);
  }
  bool blocked = acc == KG_F32;
  kg_lw_scope s_k1, s_kk;
  uint32_t k1 = blocked ? kg_lw_open_for(L, "k1", cst(&S, 0), K, cst(&S, KG_MM_KBLOCK), &s_k1) : cst(&S, 0);
  for (uint32_t t = 0; t < MR * NR; t++) {
    partv[t] = accv[t];
    if (!blocked) continue;
    partv[t] = kg_kvar_new(k, "part", acc);
    stmt(&S, KS_DECL, partv[t], zero_acc, KG_NONE);
  }
  uint32_t until = blocked ? kg_kx_op(k, KG_OP_MINIMUM, L->ix, bin(&S, KG_OP_IDX_ADD, k1, cst(&S, KG_MM_KBLOCK)), K, KG_NONE) : K;
  uint32_t kk = kg_lw_open_for(L, "kk", k1, until, cst(&S, 1), &s_kk);
  uint32_t pk = kg_lw_decl(L, "pk", KG_I64, b64(&S, KG_OP_IDX_ADD, pbase, kg_lw_cvt(L, bin(&S, KG_OP_IDX_MUL, kk, cst(&S, NR)), KG_I64)));
  uint32_t av[8], bv[KG_MM_CPU_NR_MAX];
  for (uint32_t i = 0; i < MR; i++) {
    if (F) {
      uint32_t ld = kg_lw_decl(L, "ld", F->dt, kg_kx_load(k, F->param, bin(&S, KG_OP_IDX_ADD, rb[i], kk)));
      av[i] = kg_lw_decl(L, "x", acc, kg_lw_cvt(L, ld, acc));
      continue;
    }
    uint32_t ac[KG_MAX_RANK];
    if (S.conv) kg_lw_mm_operand_coord(An, false, bc, 2, row[i], kk, ac);
    else kg_lw_mm_operand_coord(An, a1, fbc[i], nb, a1 ? kk : fm[i], kk, ac);
    av[i] = kg_lw_decl(L, "x", acc, kg_lw_cvt(L, kg_lw_val_at(L, mmn->in[0], ac), acc));
  }
  for (uint32_t j = 0; j < NR; j++) bv[j] = kg_lw_decl(L, "y", acc, kg_kx_load(k, scr, j ? b64(&S, KG_OP_IDX_ADD, pk, c64(&S, (int64_t)j)) : pk));
  for (uint32_t i = 0; i < MR; i++)
    for (uint32_t j = 0; j < NR; j++) {
      uint32_t a = partv[i * NR + j];
      stmt(&S, KS_ASSIGN, a, kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, a), kg_kx_op(k, KG_OP_MUL, acc, av[i], bv[j], KG_NONE), KG_NONE), KG_NONE);
    }
  kg_lw_scope_leave(L, s_kk);
  if (blocked) {
    for (uint32_t t = 0; t < MR * NR; t++)
      stmt(&S, KS_ASSIGN, accv[t], kg_kx_op(k, KG_OP_ADD, acc, kg_kx_var(k, accv[t]), kg_kx_var(k, partv[t]), KG_NONE), KG_NONE);
    kg_lw_scope_leave(L, s_k1);
  }
  for (uint32_t t = 0; t < MR * NR; t++) stmt(&S, KS_STORE, scr, b64(&S, KG_OP_IDX_ADD, cbase, c64(&S, (int64_t)t)), kg_kx_var(k, accv[t]));
  kg_ks ce = kg_ks_make(KS_COMMENT);
  ce.text = "epilogue";
  kg_ks_add(&L->cur, ce);
  /* rows outer, the columns inner (unit-stride outputs); a convolution's columns outer instead,
   * their spatial coordinates (a div and a mod by the output's sizes per dim) once per column:
   * per output they were 16 % of MNIST's second convolution */
  kg_lw_scope s_i, s_jj;
  uint32_t rows_n = kg_kx_op(k, KG_OP_MINIMUM, L->ix, cst(&S, MR), kg_kx_op(k, KG_OP_SUB, L->ix, M, m0, KG_NONE), KG_NONE), iv, jj, gn;
  uint32_t sp[KG_CONV_MAX_DIMS], gm;
  if (S.conv) {
    /* a full tile inside one row of the output (the row's static size a multiple of NR; the guard
     * also tests the first column's last spatial coordinate + NR against it) of a small epilogue
     * whose strides along that dim are 1: rows outer, each row's columns one loop (conv_row_loop);
     * else columns outer */
    uint32_t nodes = 0, ist = KG_NONE, bc0[KG_MAX_RANK], sp0[KG_CONV_MAX_DIMS];
    for (uint32_t q = 0; q < S.ns; q++) nodes += epi_size(L, S.snode[q], EPI_ROW_CONV_NODES);
    uint32_t *before = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *before);
    memcpy(before, L->ostride, (size_t)L->nsrc * KG_MAX_RANK * sizeof *before);
    const kg_dim *wd = S.cnd >= 1 ? &L->grp->space.d[S.r - 1] : NULL; /* the row: static, a multiple of NR (no panel crosses it) */
    bool staged = (NR == 16 || NR == 32) && wd && wd->kind == KG_DIM_STATIC && wd->v % NR == 0 && S.ns <= EPI_ROW_VALUES && nodes <= EPI_ROW_CONV_NODES;
    kg_lw_scope s_gen;
    if (staged) {
      memcpy(bc0, bc, sizeof bc0);
      conv_column(&S, bc, R->Pcol, n0, bc0, sp0);
      kg_ks is = kg_ks_make(KS_IF);
      is.a = kg_kx_op(k, KG_OP_LAND, KG_BOOL, kg_kx_op(k, KG_OP_EQ, KG_BOOL, ncols, cst(&S, NR), KG_NONE),
                      kg_kx_op(k, KG_OP_LE, KG_BOOL, bin(&S, KG_OP_IDX_ADD, sp0[S.cnd - 1], cst(&S, NR)), S.ssz[S.cnd - 1], KG_NONE), KG_NONE);
      ist = kg_ks_add(&L->cur, is);
      s_gen = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, true)); /* the general copy first: it makes the stride params */
    }
    jj = kg_lw_open_for(L, "jj", cst(&S, 0), ncols, cst(&S, 1), &s_jj);
    gn = kg_lw_decl(L, "n", L->ix, bin(&S, KG_OP_IDX_ADD, n0, jj));
    uint32_t cbc[KG_MAX_RANK];
    memcpy(cbc, bc, sizeof cbc);
    conv_column(&S, bc, R->Pcol, gn, cbc, sp);
    iv = kg_lw_open_for(L, "i", cst(&S, 0), rows_n, cst(&S, 1), &s_i);
    gm = kg_lw_decl(L, "m", L->ix, bin(&S, KG_OP_IDX_ADD, m0, iv));
    uint32_t coff = b64(&S, KG_OP_IDX_ADD, cbase, kg_lw_cvt(L, bin(&S, KG_OP_IDX_ADD, bin(&S, KG_OP_IDX_MUL, iv, cst(&S, NR)), jj), KG_I64));
    kg_mmc_epilogue(&S, cbc, gm, gn, sp, kg_kx_load(k, scr, coff));
    kg_lw_scope_leave(L, s_i), kg_lw_scope_leave(L, s_jj);
    if (staged) {
      kg_lw_scope_leave(L, s_gen);
      uint32_t u[EPI_ROW_UNITS], nu = n_strides(&S, before, u);
      for (uint32_t i = 0; i < nu; i++)
        k->stmts.v[ist].a = kg_kx_op(k, KG_OP_LAND, KG_BOOL, k->stmts.v[ist].a, kg_kx_op(k, KG_OP_EQ, KG_BOOL, kg_kx_param(k, u[i]), cst(&S, 1), KG_NONE), KG_NONE);
      if (nu == 0) k->stmts.v[ist].a = kg_kx_const_i(k, KG_BOOL, 0);
      kg_lw_scope s_row = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, false));
      iv = kg_lw_open_for(L, "i", cst(&S, 0), rows_n, cst(&S, 1), &s_i);
      gm = kg_lw_decl(L, "m", L->ix, bin(&S, KG_OP_IDX_ADD, m0, iv));
      kg_dtype ix0 = L->ix;
      ckern S64 = S;
      S64.ix = L->ix = KG_I64;
      L->unit = u, L->n_unit = nu;
      conv_row_loop(&S64, R, bc0, sp0, kg_lw_decl(L, "m", KG_I64, kg_lw_cvt(L, gm, KG_I64)), iv);
      L->unit = NULL, L->n_unit = 0, L->ix = ix0;
      kg_lw_scope_leave(L, s_i);
      kg_lw_scope_leave(L, s_row);
    }
    free(before);
  } else {
    /* a full tile (16 or 32 columns) of a small epilogue (a bias, a residual, a few ops) whose strides along
     * N are 1: its rows unrolled (epilogue_row) under that guard; else column by column */
    uint32_t nodes = 0;
    for (uint32_t q = 0; q < S.ns; q++) nodes += epi_size(L, S.snode[q], EPI_ROW_NODES);
    uint32_t *before = kg_xmalloc(((size_t)L->nsrc * KG_MAX_RANK + 1) * sizeof *before);
    memcpy(before, L->ostride, (size_t)L->nsrc * KG_MAX_RANK * sizeof *before);
    bool staged = (NR == 16 || NR == 32) && S.ndim >= 0 && S.mdim >= 0 && S.ns <= EPI_ROW_VALUES && nodes <= EPI_ROW_NODES;
    uint32_t ist = KG_NONE;
    if (staged) {
      kg_ks is = kg_ks_make(KS_IF);
      is.a = kg_kx_op(k, KG_OP_EQ, KG_BOOL, ncols, cst(&S, NR), KG_NONE);
      ist = kg_ks_add(&L->cur, is);
    }
    kg_lw_scope s_gen;
    if (staged) s_gen = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, true)); /* the general copy first: it makes the stride params */
    rows_tail(&S, R, bc, m0, rows_n);
    if (staged) {
      kg_lw_scope_leave(L, s_gen);
      uint32_t u[EPI_ROW_UNITS], nu = n_strides(&S, before, u);
      for (uint32_t i = 0; i < nu; i++)
        k->stmts.v[ist].a = kg_kx_op(k, KG_OP_LAND, KG_BOOL, k->stmts.v[ist].a, kg_kx_op(k, KG_OP_EQ, KG_BOOL, kg_kx_param(k, u[i]), cst(&S, 1), KG_NONE), KG_NONE);
      if (nu == 0) k->stmts.v[ist].a = kg_kx_const_i(k, KG_BOOL, 0); /* nothing to guard, or too much: the general copy */
      kg_lw_scope s_row = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, false));
      iv = kg_lw_open_for(L, "i", cst(&S, 0), rows_n, cst(&S, 1), &s_i);
      gm = kg_lw_decl(L, "m", L->ix, bin(&S, KG_OP_IDX_ADD, m0, iv));
      uint32_t ebc[KG_MAX_RANK];
      if (R->fold) gm = unfold_row(&S, R, gm, ebc);
      else memcpy(ebc, bc, sizeof ebc);
      kg_dtype ix0 = L->ix;
      ckern S64 = S;
      S64.ix = L->ix = KG_I64;
      L->unit = u, L->n_unit = nu;
      epilogue_row(&S64, R, ebc, kg_lw_decl(L, "m", KG_I64, kg_lw_cvt(L, gm, KG_I64)), iv);
      L->unit = NULL, L->n_unit = 0, L->ix = ix0;
      kg_lw_scope_leave(L, s_i);
      kg_lw_scope_leave(L, s_row);
    }
    free(before);
  }
  kg_lw_scope_leave(L, s_m0);
  kg_lw_scope_leave(L, s_my);
}

/* B's element (bc, col, k = 0) of a source [.., N, K]: its offset (KG_NONE → 0) */
uint32_t kg_mmc_b_row(ckern *S, const uint32_t *bc, uint32_t col) {
  uint32_t c[KG_MAX_RANK], pp;
  kg_lw_mm_operand_coord(S->Bn, false, bc, S->nb, col, KG_NONE, c);
  uint32_t off = kg_lw_source_offset(S->L, S->mmn->in[1], c, &pp);
  return off == KG_NONE ? cst(S, 0) : off;
}

/* n int64 vars declared with init[0 ..), consecutive ids (KS_DOT / KS_TPACK read them as a run) */
uint32_t kg_mmc_decl_run(ckern *S, const uint32_t *init, uint32_t n, const char *(*name)(uint32_t q)) {
  uint32_t first = KG_NONE;
  for (uint32_t q = 0; q < n; q++) {
    uint32_t var = kg_kvar_new(S->k, name(q), KG_I64);
    if (q == 0) first = var;
    KG_ASSERT(var == first + q);
    stmt(S, KS_DECL, var, init[q], KG_NONE);
  }
  return first;
}
static const char *tpack_name(uint32_t q) { return q ? "ty" : "tp"; }

uint32_t kg_mmc_b_rows(ckern *S, bfast *F) {
  lctx *L = S->L;
  if (!S->bt || S->b1 || S->conv) return KG_NONE;
  uint32_t id = S->mmn->in[1];
  if (L->src_of[id] == KG_NONE) return KG_NONE;
  const kg_gnode *n = &L->g->nodes.v[id];
  uint32_t pp = L->pparam[L->src_of[id]];
  if (n->vkind != KG_V_TENSOR || pp == KG_NONE || S->k->params.v[pp].kind != KP_BUFFER || n->shape.rank < 2) return KG_NONE;
  if (kg_lw_dim_is_one(&n->shape.d[n->shape.rank - 1]) || n->dtype != KG_F32 || S->acc != KG_F32) return KG_NONE; /* KS_DOT's float32 */
  F->param = pp, F->dt = (kg_dtype)n->dtype;
  return kg_kx_op(S->k, KG_OP_EQ, KG_BOOL, kg_kx_param(S->k, kg_lw_source_stride(L, id, n->shape.rank - 1)), cst(S, 1), KG_NONE);
}

/* Kept panels (KPR_KEPT; runtime/exec_keep.c says when). B a float32 entry input or capture that a
 * host plan's loop reads at every iteration (kg_gparam.invariant: one tensor, never written, for
 * every launch of one call), read as it is and the same for every batch: its panels are packed
 * once per call into the scratch's first nctaid.x · K · NR elements, panel ctaid.x in slot
 * ctaid.x, by the thread of row chunk 0 and batch 0 (mode 2), which reads them there at every
 * later launch of the call (mode 1) instead of packing them again: an LSTM step's hidden product
 * (8 × 128 × 512) spent half its time copying W_hh (docs/perf_cpu.md). The other threads (row
 * chunks past the first) pack their own panels as before. The mode parameter, or KG_NONE. */
static uint32_t keep_param(ckern *S) {
  lctx *L = S->L;
  const kg_graph *g = L->g;
  uint32_t id = S->mmn->in[1];
  const kg_gnode *b = &g->nodes.v[id];
  if (S->conv || S->b1 || S->acc != KG_F32 || b->dtype != KG_F32 || b->op != KG_OP_INPUT || L->src_of[id] == KG_NONE) return KG_NONE;
  for (int d = 0; d < b->shape.rank - 2; d++)
    if (!kg_lw_dim_is_one(&b->shape.d[d])) return KG_NONE; /* a batch of B: a panel per batch */
  for (uint32_t p = 0; p < g->params.n; p++)
    if (g->params.v[p].node == id)
      return g->params.v[p].invariant ? kg_kparam_add(S->k, kg_lw_mkparam(KP_SCALAR, KG_I32, false, "keep", KPR_KEPT, 0, p)) : KG_NONE;
  return KG_NONE;
}

void kg_lw_mm_cpu_body(kg_mmk *P) {
  lctx *L = P->L;
  kg_kernel *k = P->k;
  ckern S = *P;
  const kg_gnode *mmn = P->mmn, *Bn = P->Bn;
  bool b1 = P->b1, bt = P->bt;
  kg_dtype acc = P->acc;
  const kg_mm_tile_info *tile = kg_mm_tile_get((kg_mm_tile)L->v->mm_tile);
  const uint32_t MR = tile->tm, NR = kg_mm_cpu_nr(L->v->mm_tile, acc), MC = tile->bm; /* MR ≤ 8, NR ≤ KG_MM_CPU_NR_MAX: the arrays below */
  int nb = P->nb;
  int64_t G = P->G, Og = P->Og;
  k->schedule = S.conv ? "conv.cpu" : "matmul.cpu";
  k->launch.block[0] = 1;
  const uint32_t NC = kg_mm_cpu_cols(L->v->mm_tile, acc); /* columns a thread owns: NR, or the dot tiles' */
  k->launch.tile_m = MC, k->launch.tile_n = NC, k->launch.smem_static = 0;

  /* the parameters kg_lw_matmul made (sources, stored values, sizes, K, strides), and the scratch */
  const uint32_t *size_p = P->size_p;
  uint32_t kp = P->kp;
  uint32_t scr = kg_kparam_add(k, kg_lw_mkparam(KP_BUFFER, acc, true, "scratch", KPR_TENSOR, KG_BUF_SCRATCH, 0));

  /* sizes */
  L->cur = kg_kcursor_top(k);
  kg_lw_mm_memo_reset(L); /* nothing evaluated yet */
  int mdim = P->mdim, ndim = P->ndim;
  uint32_t M = mdim < 0 || size_p[mdim] == KG_NONE ? cst(&S, 1) : kg_kx_param(k, size_p[mdim]);
  uint32_t N = ndim < 0 || size_p[ndim] == KG_NONE ? cst(&S, 1) : kg_kx_param(k, size_p[ndim]);
  if (S.conv) {
    uint32_t n = KG_NONE;
    for (int d = 0; d < S.cnd; d++)
      if (S.ssz[d] != KG_NONE) n = n == KG_NONE ? S.ssz[d] : bin(&S, KG_OP_IDX_MUL, n, S.ssz[d]);
    M = cst(&S, Og), N = kg_lw_decl(L, "ncol", L->ix, n == KG_NONE ? cst(&S, 1) : n);
  }
  uint32_t K = kg_kx_param(k, kp);
  uint32_t nbatch = cst(&S, 1);
  for (int d = 0; d < nb && !S.conv; d++)
    if (size_p[d] != KG_NONE) nbatch = bin(&S, KG_OP_IDX_MUL, nbatch, kg_kx_param(k, size_p[d]));
  if (S.conv) nbatch = bin(&S, KG_OP_IDX_MUL, size_p[0] == KG_NONE ? cst(&S, 1) : kg_kx_param(k, size_p[0]), cst(&S, G));
  nbatch = kg_lw_decl(L, "nbatch", L->ix, nbatch);
  /* the batch folded into the rows (the scheduler's mm_fold: B has no batch dims, no row
   * statistics): batch · M rows, one batch loop trip; each row's batch from its index. A
   * convolution's (one group: every image shares the weight) folds its images into the columns
   * instead: images · P columns, each column's image from its index (conv_column) */
  bool fold = rows_folded(&S);
  uint32_t Mrow = M, Pcol = KG_NONE;
  if (L->v->mm_fold && S.conv) {
    Pcol = kg_lw_decl(L, "pcols", L->ix, N);
    N = kg_lw_decl(L, "ncols_all", L->ix, bin(&S, KG_OP_IDX_MUL, nbatch, N)), nbatch = cst(&S, 1);
  }
  if (fold) {
    const kg_dim *md = &L->grp->space.d[mdim]; /* a static M as a constant: a row's batch is row / M */
    if (md->kind == KG_DIM_STATIC) Mrow = cst(&S, md->v);
    M = kg_lw_decl(L, "mrows", L->ix, bin(&S, KG_OP_IDX_MUL, nbatch, Mrow)), nbatch = cst(&S, 1);
  }
  uint32_t mtiles = kg_lw_decl(L, "mtiles", L->ix, bin(&S, KG_OP_IDX_DIV, bin(&S, KG_OP_IDX_ADD, M, cst(&S, MC - 1)), cst(&S, MC)));
  uint32_t n0 = kg_lw_decl(L, "n0", L->ix, bin(&S, KG_OP_IDX_MUL, sreg(&S, KG_SREG_CTAID_X), cst(&S, NC)));
  uint32_t ncols = kg_lw_decl(L, "ncols", L->ix, kg_kx_op(k, KG_OP_MINIMUM, L->ix, cst(&S, NC), kg_kx_op(k, KG_OP_SUB, L->ix, N, n0, KG_NONE), KG_NONE));
  /* this thread's scratch region: the panel (K × NR), then the tile (MR × NR) */
  uint32_t tlin = b64(&S, KG_OP_IDX_ADD,
                      b64(&S, KG_OP_IDX_MUL,
                          b64(&S, KG_OP_IDX_ADD, b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, sreg(&S, KG_SREG_CTAID_Z), KG_I64), kg_lw_cvt(L, sreg(&S, KG_SREG_NCTAID_Y), KG_I64)),
                              kg_lw_cvt(L, sreg(&S, KG_SREG_CTAID_Y), KG_I64)),
                          kg_lw_cvt(L, sreg(&S, KG_SREG_NCTAID_X), KG_I64)),
                      kg_lw_cvt(L, sreg(&S, KG_SREG_CTAID_X), KG_I64));
  bool dot = L->v->mm_tile == KG_MM_CPU_DOT || L->v->mm_tile == KG_MM_CPU_DOT8;
  uint32_t keep = dot ? KG_NONE : keep_param(&S), own = KG_NONE;
  uint32_t kwords = keep == KG_NONE ? KG_NONE /* the kept panels before the threads' regions */
                                    : b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, sreg(&S, KG_SREG_NCTAID_X), KG_I64), b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, K, KG_I64), c64(&S, NR)));
  uint32_t priv = b64(&S, KG_OP_IDX_MUL, tlin, b64(&S, KG_OP_IDX_MUL, b64(&S, KG_OP_IDX_ADD, kg_lw_cvt(L, K, KG_I64), c64(&S, kg_mm_cpu_tile_rows(L->v->mm_tile))), c64(&S, NR)));
  if (keep != KG_NONE) priv = b64(&S, KG_OP_IDX_ADD, kwords, priv);
  uint32_t pbase = kg_lw_decl(L, keep == KG_NONE ? "pbase" : "ppriv", KG_I64, priv);
  uint32_t cbase = kg_lw_decl(L, "cbase", KG_I64, b64(&S, KG_OP_IDX_ADD, pbase, b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, K, KG_I64), c64(&S, NR))));
  if (keep != KG_NONE) { /* the kept slot for the thread of row chunk 0 and batch 0, else its own */
    own = kg_lw_decl(L, "own", KG_BOOL, kg_kx_op(k, KG_OP_LAND, KG_BOOL, kg_kx_op(k, KG_OP_EQ, KG_BOOL, sreg(&S, KG_SREG_CTAID_Y), cst(&S, 0), KG_NONE),
                                                  kg_kx_op(k, KG_OP_EQ, KG_BOOL, sreg(&S, KG_SREG_CTAID_Z), cst(&S, 0), KG_NONE), KG_NONE));
    uint32_t kept = kg_kx_op(k, KG_OP_LAND, KG_BOOL, own, kg_kx_op(k, KG_OP_NE, KG_BOOL, kg_kx_param(k, keep), kg_kx_const_i(k, KG_I32, 0), KG_NONE), KG_NONE);
    uint32_t slot = b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, sreg(&S, KG_SREG_CTAID_X), KG_I64), b64(&S, KG_OP_IDX_MUL, kg_lw_cvt(L, K, KG_I64), c64(&S, NR)));
    uint32_t pv = kg_kvar_new(k, "pbase", KG_I64);
    stmt(&S, KS_DECL, pv, pbase, KG_NONE);
    kg_ks is = kg_ks_make(KS_IF);
    is.a = kept;
    kg_lw_scope s_kept = kg_lw_scope_enter(L, kg_kcursor_body(k, kg_ks_add(&L->cur, is), false));
    stmt(&S, KS_ASSIGN, pv, slot, KG_NONE);
    kg_lw_scope_leave(L, s_kept);
    pbase = kg_kx_var(k, pv);
  }
  if_open(&S, lt(&S, n0, N));
  kg_lw_scope s_bz;
  uint32_t bz = kg_lw_open_for(L, "bz", sreg(&S, KG_SREG_CTAID_Z), nbatch, sreg(&S, KG_SREG_NCTAID_Z), &s_bz);
  /* the batch coordinates, innermost first; the outermost takes what remains */
  uint32_t bc[KG_MAX_RANK], rem = bz;
  int outer = -1;
  for (int d = 0; d < nb; d++) {
    bc[d] = KG_NONE;
    if (outer < 0 && size_p[d] != KG_NONE) outer = d;
  }
  if (S.conv) {
    bool n_one = size_p[0] == KG_NONE;
    if (G == 1) bc[0] = n_one ? KG_NONE : bz, bc[1] = KG_NONE;
    else {
      bc[1] = n_one ? bz : kg_lw_decl(L, "grp", L->ix, bin(&S, KG_OP_IDX_MOD, bz, cst(&S, G)));
      bc[0] = n_one ? KG_NONE : kg_lw_decl(L, "img", L->ix, bin(&S, KG_OP_IDX_DIV, bz, cst(&S, G)));
    }
  }
  for (int d = nb - 1; d >= 0 && !S.conv; d--) {
    if (size_p[d] == KG_NONE) continue;
    if (d == outer) { bc[d] = rem; break; }
    uint32_t sz = kg_kx_param(k, size_p[d]);
    bc[d] = kg_lw_decl(L, "bc", L->ix, bin(&S, KG_OP_IDX_MOD, rem, sz));
    rem = kg_lw_decl(L, "br", L->ix, bin(&S, KG_OP_IDX_DIV, rem, sz));
  }

  rowsx R = {M, K, mtiles, pbase, cbase, n0, ncols, scr, MR, NR, MC, {0}, fold, Mrow, Pcol};
  memcpy(R.bc, bc, sizeof R.bc);
  if (dot) {
    k->schedule = "matmul.cpu_dot";
    kg_mmc_dot_rows(&S, &R);
    kg_lw_scope_leave(L, s_bz);
    return;
  }

  /* the panel: P[k][j] = B(k, n0 + j). Column by column where B's elements of a column are the
   * ones near each other (a transposed B, linear's weight; a convolution's window: its spatial
   * coordinates once per column), else row by row (B [K, N]: NR neighbours). A full panel of a
   * transposed B or a convolution is copied k outer instead (below). Columns past N are not
   * written: their accumulators are never stored (the epilogue's columns stop at N), and zeroing
   * them cost ResNet-18's last convolutions (4 columns of 16) a sixth of their time. */
  kg_lw_scope s_pack; /* kept panels: packed unless the kept slot holds them (mode 1) */
  if (keep != KG_NONE) {
    kg_ks is = kg_ks_make(KS_IF);
    is.a = kg_kx_op(k, KG_OP_LNOT, KG_BOOL, kg_kx_op(k, KG_OP_LAND, KG_BOOL, own, kg_kx_op(k, KG_OP_EQ, KG_BOOL, kg_kx_param(k, keep), kg_kx_const_i(k, KG_I32, 1), KG_NONE), KG_NONE), KG_NONE, KG_NONE);
    s_pack = kg_lw_scope_enter(L, kg_kcursor_body(k, kg_ks_add(&L->cur, is), false));
  }
  kg_ks cm = kg_ks_make(KS_COMMENT);
  cm.text = "the panel: B's columns n0 .. n0 + NR at every k";
  kg_ks_add(&L->cur, cm);
  uint32_t c[KG_MAX_RANK];
  kg_lw_scope s_j, s_k;
  kg_lw_scope s_full;
  uint32_t ifull = KG_NONE;
  if ((bt || (S.conv && !panel_window(&S, mmn->in[1]))) && !b1) {
    /* a full panel of a transposed B (linear's weight) or of a convolution's window: k outer, the
     * NR columns inner, so each k's NR values are one contiguous run of stores instead of NR
     * stores a panel row (a cache line) apart — the copy loop was ~60 % of an LSTM step's hidden
     * product at a batch of 8 rows and of ResNet-18's 3 x 3 convolutions (docs/perf_cpu.md). A
     * transposed B's columns are a loop of constant trip count the compiler unrolls. A
     * convolution's, where its input's spatial sizes are constants, are one loop marked
     * independent, the column's coordinates computed in it (divisions by constants) and the
     * window read at clamped coordinates with its padding selected after (no branch): GCC
     * vectorizes it, the loads as gathers — the copy was scalar code a column at a time, ~3x the
     * FMAs of a 3 x 3 convolution over 128 channels at 8 x 8 (a training ResNet block's, its
     * batch norm's prologue in the copy), 1.22 -> 0.85 ms for the block (docs/perf_cpu.md). With
     * symbolic sizes they are unrolled here, each column's coordinates computed once before the
     * k loop (k's split over channels and window, the same for every column, the compiler
     * computes once per k). The columns-outer copy below stays for a partial panel, and for
     * every panel whose element runs a window inline (panel_window). */
    kg_ks is = kg_ks_make(KS_IF);
    is.a = kg_kx_op(k, KG_OP_EQ, KG_BOOL, ncols, cst(&S, NR), KG_NONE);
    ifull = kg_ks_add(&L->cur, is);
    s_full = kg_lw_scope_enter(L, kg_kcursor_body(k, ifull, false));
    /* a convolution's window read at clamped coordinates (lower_view.c), the columns one loop: only
     * where every spatial size of its input is a constant of at least 1, so that a clamped index is
     * an element */
    bool clamp = S.conv && mmn->in[1] < L->g->nodes.n && L->g->nodes.v[mmn->in[1]].op == KG_OP_IM2COL;
    if (clamp) {
      const kg_gnode *w = &L->g->nodes.v[mmn->in[1]], *x = &L->g->nodes.v[w->in[0]];
      int64_t taps = 1;
      for (int d = 2; d < x->shape.rank; d++) clamp &= x->shape.d[d].kind == KG_DIM_STATIC && x->shape.d[d].v >= 1;
      for (int d = 0; d < x->shape.rank - 2 && d < KG_CONV_MAX_DIMS; d++) taps *= kg_conv_get(w->ia[3], d);
      /* where it pays: arithmetic computed per element (a training batch norm's prologue: two ops or
       * more), or a 2-D window of several taps over a tensor read as it is; a 1 x 1 or 1-D window,
       * or one read through a layout (TextCNN's embedding lookup: a gather of a gather) keeps the
       * unrolled columns, whose hoisted scalar loads cost less than the loop's coordinates and
       * gathers (measured on MobileNetV2's 1 x 1, M5's 1-D and TextCNN's convolutions) */
      uint8_t *seen = kg_xcalloc(L->g->nodes.n + 1, 1);
      int arith = inline_arith(L, w->in[0], seen, 2);
      free(seen);
      clamp &= arith >= 2 || (L->src_of[w->in[0]] != KG_NONE && x->shape.rank >= 4 && taps > 1);
    }
    uint32_t spj[KG_MM_CPU_NR_MAX][KG_CONV_MAX_DIMS], bcj[KG_MM_CPU_NR_MAX][2];
    for (uint32_t j = 0; S.conv && !clamp && j < NR; j++) conv_column(&S, bc, Pcol, bin(&S, KG_OP_IDX_ADD, n0, cst(&S, (int64_t)j)), bcj[j], spj[j]);
    /* a float32 weight [.., N, K] whose K is contiguous (b_rows's guard): one KS_TPACK, 16 x 16
     * blocks transposed in registers on the CPU device; else the loop below */
    bfast TB;
    uint32_t tpack = S.conv || (NR != 16 && NR != 32) ? KG_NONE : kg_mmc_b_rows(&S, &TB);
    kg_lw_scope s_tp;
    if (tpack != KG_NONE) {
      kg_ks ts = kg_ks_make(KS_IF);
      ts.a = tpack;
      uint32_t itp = kg_ks_add(&L->cur, ts);
      s_tp = kg_lw_scope_enter(L, kg_kcursor_body(k, itp, false));
      for (uint32_t h = 0; h < NR / 16; h++) { /* 16 columns a KS_TPACK; a wide panel's two halves */
        uint32_t off[17];
        off[0] = h ? b64(&S, KG_OP_IDX_ADD, pbase, c64(&S, 16 * (int64_t)h)) : pbase;
        for (uint32_t j = 0; j < 16; j++)
          off[1 + j] = kg_lw_cvt(L, kg_mmc_b_row(&S, bc, bin(&S, KG_OP_IDX_ADD, n0, cst(&S, (int64_t)(16 * h + j)))), KG_I64);
        uint32_t first = kg_mmc_decl_run(&S, off, 17, tpack_name);
        kg_ks tk = kg_ks_make(KS_TPACK);
        tk.a = scr, tk.b = TB.param, tk.c = first, tk.d = kg_lw_cvt(L, K, KG_I32), tk.imm = NR; /* the panel's row stride */
        kg_ks_add(&L->cur, tk);
      }
      kg_lw_scope_leave(L, s_tp);
      s_tp = kg_lw_scope_enter(L, kg_kcursor_body(k, itp, true));
    }
    uint32_t kv = kg_lw_open_for(L, "kk", cst(&S, 0), K, cst(&S, 1), &s_k);
    uint32_t prow = kg_lw_decl(L, "prow", KG_I64, b64(&S, KG_OP_IDX_ADD, pbase, kg_lw_cvt(L, bin(&S, KG_OP_IDX_MUL, kv, cst(&S, NR)), KG_I64)));
    if (S.conv && !clamp) { /* symbolic sizes: the columns unrolled, each one's coordinates before the k loop */
      for (uint32_t j = 0; j < NR; j++) {
        c[0] = bcj[j][0], c[1] = bcj[j][1], c[2] = kv;
        for (int d = 0; d < S.cnd; d++) c[3 + d] = spj[j][d];
        stmt(&S, KS_STORE, scr, j ? b64(&S, KG_OP_IDX_ADD, prow, c64(&S, (int64_t)j)) : prow, kg_lw_cvt(L, kg_lw_val_at(L, mmn->in[1], c), acc));
      }
    } else if (S.conv) { /* the columns one independent loop, the window read at clamped coordinates */
      uint32_t jv = kg_lw_open_for(L, "j", cst(&S, 0), cst(&S, NR), cst(&S, 1), &s_j);
      k->stmts.v[L->cur.parent].imm = 1;
      uint32_t sp[KG_CONV_MAX_DIMS], cbc[2];
      conv_column(&S, bc, Pcol, bin(&S, KG_OP_IDX_ADD, n0, jv), cbc, sp);
      c[0] = cbc[0], c[1] = cbc[1], c[2] = kv;
      for (int d = 0; d < S.cnd; d++) c[3 + d] = sp[d];
      L->clamp_window = true;
      stmt(&S, KS_STORE, scr, b64(&S, KG_OP_IDX_ADD, prow, kg_lw_cvt(L, jv, KG_I64)), kg_lw_cvt(L, kg_lw_val_at(L, mmn->in[1], c), acc));
      L->clamp_window = false;
      kg_lw_scope_leave(L, s_j);
    } else {
      uint32_t jv = kg_lw_open_for(L, "j", cst(&S, 0), cst(&S, NR), cst(&S, 1), &s_j);
      kg_lw_mm_operand_coord(Bn, false, bc, nb, bin(&S, KG_OP_IDX_ADD, n0, jv), kv, c);
      stmt(&S, KS_STORE, scr, b64(&S, KG_OP_IDX_ADD, prow, kg_lw_cvt(L, jv, KG_I64)), kg_lw_cvt(L, kg_lw_val_at(L, mmn->in[1], c), acc));
      kg_lw_scope_leave(L, s_j);
    }
    kg_lw_scope_leave(L, s_k);
    if (tpack != KG_NONE) kg_lw_scope_leave(L, s_tp);
    kg_lw_scope_leave(L, s_full);
    s_full = kg_lw_scope_enter(L, kg_kcursor_body(k, ifull, true));
  }
  if (bt || S.conv || b1) {
    uint32_t jv = kg_lw_open_for(L, "j", cst(&S, 0), cst(&S, NR), cst(&S, 1), &s_j);
    uint32_t col = kg_lw_decl(L, "col", L->ix, bin(&S, KG_OP_IDX_ADD, n0, jv));
    kg_ks is = kg_ks_make(KS_IF);
    is.a = lt(&S, col, N);
    uint32_t ist = kg_ks_add(&L->cur, is);
    kg_lw_scope s_in = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, false));
    uint32_t sp[KG_CONV_MAX_DIMS], cbc[2] = {bc[0], bc[1]};
    if (S.conv) conv_column(&S, bc, Pcol, col, cbc, sp);
    uint32_t kv = kg_lw_open_for(L, "kk", cst(&S, 0), K, cst(&S, 1), &s_k);
    if (b1) kg_lw_mm_operand_coord(Bn, true, bc, nb, kv, kv, c);
    else if (S.conv) {
      c[0] = cbc[0], c[1] = cbc[1], c[2] = kv;
      for (int d = 0; d < S.cnd; d++) c[3 + d] = sp[d];
    } else kg_lw_mm_operand_coord(Bn, false, bc, nb, col, kv, c);
    uint32_t poff = b64(&S, KG_OP_IDX_ADD, pbase, kg_lw_cvt(L, bin(&S, KG_OP_IDX_ADD, bin(&S, KG_OP_IDX_MUL, kv, cst(&S, NR)), jv), KG_I64));
    stmt(&S, KS_STORE, scr, poff, kg_lw_cvt(L, kg_lw_val_at(L, mmn->in[1], c), acc));
    kg_lw_scope_leave(L, s_k);
    kg_lw_scope_leave(L, s_in);
    kg_lw_scope_leave(L, s_j);
    if (ifull != KG_NONE) kg_lw_scope_leave(L, s_full);
  } else {
    uint32_t kv = kg_lw_open_for(L, "kk", cst(&S, 0), K, cst(&S, 1), &s_k);
    uint32_t prow = kg_lw_decl(L, "prow", KG_I64, b64(&S, KG_OP_IDX_ADD, pbase, kg_lw_cvt(L, bin(&S, KG_OP_IDX_MUL, kv, cst(&S, NR)), KG_I64)));
    uint32_t jv = kg_lw_open_for(L, "j", cst(&S, 0), ncols, cst(&S, 1), &s_j);
    uint32_t col = kg_lw_decl(L, "col", L->ix, bin(&S, KG_OP_IDX_ADD, n0, jv));
    kg_lw_mm_operand_coord(Bn, false, bc, nb, kv, col, c);
    stmt(&S, KS_STORE, scr, b64(&S, KG_OP_IDX_ADD, prow, kg_lw_cvt(L, jv, KG_I64)), kg_lw_cvt(L, kg_lw_val_at(L, mmn->in[1], c), acc));
    kg_lw_scope_leave(L, s_j);
    kg_lw_scope_leave(L, s_k);
  }

  if (keep != KG_NONE) kg_lw_scope_leave(L, s_pack);
  /* the rows, twice when A's rows may be contiguous: under the guard A's loads are one offset per
   * row plus k (see a_rows) */
  afast F;
  uint32_t guard = kg_mmc_a_rows(&S, &F);
  if (guard == KG_NONE) rows(&S, &R, NULL);
  else {
    kg_ks is = kg_ks_make(KS_IF);
    is.a = guard;
    uint32_t ist = kg_ks_add(&L->cur, is);
    kg_lw_scope s_fast = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, false));
    rows(&S, &R, &F);
    kg_lw_scope_leave(L, s_fast);
    kg_lw_scope s_gen = kg_lw_scope_enter(L, kg_kcursor_body(k, ist, true));
    rows(&S, &R, NULL);
    kg_lw_scope_leave(L, s_gen);
  }
  kg_lw_scope_leave(L, s_bz);
}
