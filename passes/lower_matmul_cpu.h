/* passes/lower_matmul_cpu.h — what the CPU target's product schedules share (lower_matmul_cpu.c:
 * the packed panel and its register blocks; lower_matmul_dot.c: few rows as dot products along K):
 * the product being built, expression helpers, the rows' context, the operands read as rows of a
 * source, and the epilogue. Private to those two files. */
#ifndef KG_LOWER_MATMUL_CPU_H
#define KG_LOWER_MATMUL_CPU_H

#include <string.h>

#include "lower_int.h"

typedef kg_mmk ckern; /* the product being built (lower_int.h): kg_lw_matmul set up its parameters */

static inline uint32_t cst(ckern *S, int64_t v) { return kg_kx_const_i(S->k, S->ix, v); }
static inline uint32_t c64(ckern *S, int64_t v) { return kg_kx_const_i(S->k, KG_I64, v); }
static inline uint32_t bin(ckern *S, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(S->k, op, S->ix, a, b, KG_NONE); }
static inline uint32_t b64(ckern *S, kg_op op, uint32_t a, uint32_t b) { return kg_kx_op(S->k, op, KG_I64, a, b, KG_NONE); }
static inline uint32_t isub(ckern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_SUB, S->ix, a, b, KG_NONE); }
static inline uint32_t lt(ckern *S, uint32_t a, uint32_t b) { return kg_kx_op(S->k, KG_OP_LT, KG_BOOL, a, b, KG_NONE); }
static inline uint32_t sreg(ckern *S, int which) { return kg_lw_cvt(S->L, kg_kx_sreg(S->k, which, KG_I32), S->ix); }

static inline void stmt(ckern *S, kg_ks_kind kind, uint32_t a, uint32_t b, uint32_t c) {
  kg_ks s = kg_ks_make(kind);
  s.a = a, s.b = b, s.c = c;
  kg_ks_add(&S->L->cur, s);
}

static inline void if_open(ckern *S, uint32_t cond) {
  kg_ks is = kg_ks_make(KS_IF);
  is.a = cond;
  uint32_t st = kg_ks_add(&S->L->cur, is);
  S->L->cur = kg_kcursor_body(S->k, st, false);
}

/* What the rows' loop (emitted once, or twice under a_rows's guard) takes from the body. */
typedef struct rowsx {
  uint32_t M, K, mtiles, pbase, cbase, n0, ncols, scr; /* exprs; scr the scratch param */
  uint32_t MR, NR, MC;
  uint32_t bc[KG_MAX_RANK];
  bool fold;     /* kg_variant.mm_fold: M is batch · M rows (Mrow each batch's) and bc is unused */
  uint32_t Mrow; /* with fold: the product's own M (an expr) */
  uint32_t Pcol; /* a convolution's mm_fold: its images folded into the columns, Pcol (an expr) each
                    image's; KG_NONE otherwise */
} rowsx;

/* A read as rows of a source (kg_mmc_a_rows, lower_matmul_cpu.c) and B a weight [.., N, K] whose K
 * is contiguous (kg_mmc_b_rows): the guard under which they are, or KG_NONE */
typedef struct afast { uint32_t id, param, rstride, bstride[KG_MAX_RANK]; kg_dtype dt; } afast;
typedef struct bfast { uint32_t param; kg_dtype dt; } bfast;
uint32_t kg_mmc_a_rows(ckern *S, afast *F);
uint32_t kg_mmc_b_rows(ckern *S, bfast *F);
/* B's element (bc, col, k = 0) of a source [.., N, K]: its offset (KG_NONE → 0) */
uint32_t kg_mmc_b_row(ckern *S, const uint32_t *bc, uint32_t col);
/* n int64 vars declared with init[0 ..), consecutive ids (KS_DOT / KS_TPACK read them as a run) */
uint32_t kg_mmc_decl_run(ckern *S, const uint32_t *init, uint32_t n, const char *(*name)(uint32_t q));
/* the epilogue at output (gm, gn) of batch bc with the product's value val: every stored value */
void kg_mmc_epilogue(ckern *S, const uint32_t *bc, uint32_t gm, uint32_t gn, const uint32_t *sp, uint32_t val);
/* lower_matmul_dot.c: the dot schedule's rows (KG_MM_CPU_DOT, KG_MM_CPU_DOT8) */
void kg_mmc_dot_rows(ckern *P, const rowsx *R);

#endif
