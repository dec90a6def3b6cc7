/* passes/lower_int.h — what lower.c (the pointwise and scan schedules, and the
 * machinery that evaluates a group's DAG inline at a coordinate) shares with
 * lower_reduce.c (the reduction schedules). Internal to passes/. */
#ifndef KG_LOWER_INT_H
#define KG_LOWER_INT_H

#include "passes.h"

typedef struct lctx {
  const kg_graph *g;
  const kg_fusion *f;
  const kg_group *grp;
  const kg_variant *v;
  kg_kernel *k;
  kg_pass_ctx *c;
  kg_dtype ix;          /* index dtype */
  uint8_t *needed;      /* per node */
  uint32_t *src_of;     /* per node: source slot (values read from memory), or KG_NONE */
  uint8_t *local;       /* per node: a reduction this kernel computes (never loaded) */
  uint32_t nsrc;        /* source slots: graph params, then materialized nodes */
  uint32_t *memo;       /* per node: expr id for the current lane, or KG_NONE */
  uint32_t *pparam;     /* per source: kernel param, or KG_NONE */
  uint32_t *poff;       /* per source: offset expr (current element) */
  uint32_t *plane;      /* per source: first VLOAD var (vector lanes) */
  uint32_t *oparam;     /* per group output j: kernel buffer param */
  uint32_t *ooff;       /* per group output j: offset expr */
  int lane;             /* current vector lane, -1 when scalar */
  kg_kcursor cur;
  /* the row cache (v->cache): per source, the first of KG_ROW_CACHE vars holding its
   * values at this thread's slots, and whether an earlier pass filled them */
  int slot;             /* current cache slot, -1 outside a cached row walk */
  uint32_t *cvar;
  uint8_t *cfilled, *cfilling;
  /* 128-bit row loads (v->vec > 1 on a row schedule): which sources vary along the row
   * (vector-loaded into plane vars), NULL elsewhere (pointwise: every source) */
  uint8_t *vecd;
  uint32_t rvec;        /* elements per vector access of the row walks, 1 = none */
} lctx;

/* kernel-IR building with the group's context */
uint32_t kg_lw_cvt(lctx *L, uint32_t e, kg_dtype t);                        /* cast unless already t */
uint32_t kg_lw_decl(lctx *L, const char *name, kg_dtype t, uint32_t init);  /* a local initialised to init */
uint32_t kg_lw_val(lctx *L, uint32_t id);                                   /* node id's value at the current element */
/* Σ coord[d] · stride[d] over the dims that have both (KG_NONE when none: offset 0) */
uint32_t kg_lw_linear_offset(lctx *L, const uint32_t *coord, const uint32_t *stride, uint32_t rank);
bool kg_lw_dim_is_one(const kg_dim *d);
kg_kparam kg_lw_mkparam(kg_kparam_kind kind, kg_dtype dt, bool out, const char *name, uint8_t role, uint32_t r0, uint32_t r1);
void kg_lw_add_source_params(lctx *L, kg_arena *A);                         /* a buffer or scalar param per source */
void kg_lw_add_source_strides(lctx *L, kg_arena *A, uint32_t *in_stride);   /* their strides over the space */
/* their strides against a row group's squeezed result shape (epilogues without keepdim) */
void kg_lw_add_source_strides_squeezed(lctx *L, kg_arena *A, int64_t mask, uint32_t *sq_stride);
/* idx split over the dims of the space that are (reduced) or are not (!reduced) in mask */
void kg_lw_decompose(lctx *L, uint32_t idx, const uint32_t *size_p, int64_t mask, bool reduced, uint32_t *coord);
void kg_lw_source_offsets(lctx *L, const uint32_t *in_stride, const uint32_t *coord); /* L->poff at coord */
uint32_t kg_lw_identity(kg_kernel *k, kg_op red, kg_dtype acc);             /* a reduction's identity in acc */

/* lower_reduce.c: the reduction schedules */
bool kg_lw_reduce(lctx *L, const char *name);

#endif
