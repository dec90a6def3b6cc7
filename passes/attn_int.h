/* passes/attn_int.h — what the attention kernel's two bodies share: lower_attn.c (the frame:
 * parameters, the batch and query-tile loops, the SIMT body over shared float tiles, the score
 * function, dropout and the epilogue) and lower_attn_mma.c (the tensor-core body: mma.sync
 * m16n8k16 in FlashAttention-2's layout). Internal to passes/. */
#ifndef KG_ATTN_INT_H
#define KG_ATTN_INT_H

#include "lower_int.h"

/* The values this kernel stores: the group's outputs (its epilogue) and the values later kernels
 * read (grp->mats), each with its buffer parameter and strides over the space. */
typedef struct astore {
  uint32_t n, *param, *node, *stride;
} astore;

typedef struct akern {
  lctx *L;
  kg_kernel *k;
  const kg_gnode *at;        /* the ATTN node */
  kg_dtype ix, acc;
  uint32_t bq, bk, nt, tpr;  /* the tile: queries, keys per block, threads, threads per query row */
  uint32_t E, Ev, nacc, ncol;/* head dims; output accumulators and scores per thread (SIMT) */
  uint32_t qpitch, kvpitch, ppitch;
  uint32_t Qs, KVs, Ps, Ls;  /* shared arrays (SIMT) */
  uint32_t tid, row, lane;   /* thread, its query row in the tile, its place in the row (SIMT) */
  uint32_t Lq, S;            /* sizes: queries, keys */
  uint32_t bc[KG_MAX_RANK];  /* batch coordinates */
  int nb, r;                 /* batch dims, the space's rank */
  uint32_t size_p[KG_MAX_RANK];
  astore st;
} akern;

/* small kernel-IR builders over the attention's index and accumulator dtypes */
uint32_t kg_attn_cst(akern *A, int64_t v);
uint32_t kg_attn_fcst(akern *A, double v);
uint32_t kg_attn_iop(akern *A, kg_op op, uint32_t a, uint32_t b);
uint32_t kg_attn_fop(akern *A, kg_op op, uint32_t a, uint32_t b);
uint32_t kg_attn_bop(akern *A, kg_op op, uint32_t a, uint32_t b);
uint32_t kg_attn_newvar(akern *A, const char *name, kg_dtype t, uint32_t init);
void kg_attn_stmt(akern *A, kg_ks_kind kind, uint32_t a, uint32_t b, uint32_t c);
kg_lw_scope kg_attn_if(akern *A, uint32_t cond);
void kg_attn_forget(lctx *L);
/* operand `id` (of the ATTN node) at (batch, x, y) in the accumulator dtype */
uint32_t kg_attn_operand(akern *A, uint32_t id, uint32_t x, uint32_t y);
/* the score of query qi and key kj from the dot product `dot` (a var of the accumulator
 * dtype): the user's score function or dot · scale, the masks; -inf outside the matrix and
 * above a causal diagonal. Returns the var holding it. */
uint32_t kg_attn_score(akern *A, uint32_t qi, uint32_t kj, uint32_t dot, uint32_t scale);
/* probability p (an expr) of (qi, kj) as the product with V reads it: times the dropout mask's
 * value inside the matrix (0 outside), or p itself without dropout */
uint32_t kg_attn_dropped(akern *A, uint32_t qi, uint32_t kj, uint32_t p);
/* the epilogue at output (qi, dcol): every stored value of the group there, the attention's
 * own value `val` (accumulator dtype), inside the output only */
void kg_attn_store(akern *A, uint32_t qi, uint32_t dcol, uint32_t val);

/* lower_attn_mma.c: the tensor-core body of one query tile q0, its epilogue included (the
 * tile KG_ATTN_TC64; its shared memory: kg_attn_mma_smem) */
void kg_lw_attn_mma_tile(akern *A, uint32_t q0, uint32_t scale);

#endif
