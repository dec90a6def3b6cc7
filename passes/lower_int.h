/* passes/lower_int.h — what lower.c (the pointwise and scan schedules, and the
 * machinery that evaluates a group's DAG inline at a coordinate) shares with
 * lower_reduce.c and lower_reduce_walk.c (the reduction schedules), and what those two
 * share with each other (a REDUCE kernel's state, rkern). Internal to passes/. */
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
  uint32_t *onode;      /* per group output j: its node (a pointwise group's outputs, then its grp->mats) */
  uint32_t nout;        /* a pointwise group's outputs and stored values */
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
  uint32_t vtid, vbase; /* the vector walks: this thread's index among the row's, and the first
                           element (a split partial's chunk start, a multiple of rvec; KG_NONE: 0) */
  /* coordinates (lower_view.c): the current element's coordinates over the space, set with
   * the sources' offsets (KG_NONE for a dim of static size 1); which nodes are read at
   * them (direct: reached from the group's values without crossing a layout op); values
   * at other coordinates, memoized per (node, coordinate) and scoped to the branch of a
   * predicated read (cat) that computed them */
  uint32_t gcoord[KG_MAX_RANK];
  bool has_gcoord;
  const kg_shape *gframe; /* the shape gcoord is over when not the space (a squeezed epilogue: the
                             kept dims), or NULL */
  uint8_t *direct;      /* per node */
  uint32_t *ostride;    /* per source × KG_MAX_RANK: stride param along its own dim, lazily */
  const uint32_t *unit; /* stride params read as the constant 1 in offsets (a copy of code under a guard
                           that they are 1: lower_matmul_cpu.c's epilogue rows), n_unit of them */
  uint32_t n_unit;
  bool clamp_window;    /* a convolution's window read at clamped coordinates, then selected against its
                           padding (no branch: lower_matmul_cpu.c's vectorized panel copy) */
  uint32_t *symp;       /* per symbol: size param, lazily */
  struct kg_lw_at *at;  /* memo of values at coordinates */
  uint32_t n_at, cap_at;
  uint32_t *log;        /* nodes whose ctx-0 memo was set inside a predicated branch */
  uint32_t n_log, cap_log;
  int scoped;           /* > 0 inside a predicated branch */
  uint32_t rngp[2];     /* the KPR_RNG parameters (seed, offset) + 1, lazily (0: not yet) */
  struct kg_lw_rowstats *rs; /* a product's row statistics (lower_rowstats.c), NULL elsewhere */
} lctx;

/* kernel-IR building with the group's context */
uint32_t kg_lw_cvt(lctx *L, uint32_t e, kg_dtype t);                        /* cast unless already t */
uint32_t kg_lw_decl(lctx *L, const char *name, kg_dtype t, uint32_t init);  /* a local initialised to init */
uint32_t kg_lw_val(lctx *L, uint32_t id);                                   /* node id's value at the current element */
/* lower_view.c: node id's value at coordinate coord[0 .. rank of id) of its own shape (index
 * expressions of type L->ix; KG_NONE for a dim of static size 1): pointwise producers
 * evaluate their operands at the broadcast coordinates, sources load through the strides
 * of their own dims, layout ops map the coordinate; memoized per (node, coordinate). */
uint32_t kg_lw_val_at(lctx *L, uint32_t id, const uint32_t *coord);
/* a source's (a tensor read from memory: L->src_of[id]) element offset at coordinate coord of its
 * own shape (KG_NONE: offset 0) and its buffer parameter */
uint32_t kg_lw_source_offset(lctx *L, uint32_t id, const uint32_t *coord, uint32_t *param);
/* the stride parameter of a source's dim j (made the first time it is asked for) */
uint32_t kg_lw_source_stride(lctx *L, uint32_t id, int j);
/* a branch or loop body of the kernel being built: values memoized inside it (they may depend on
 * its locals) are forgotten when it ends; L->cur is the body until then */
typedef struct kg_lw_scope { uint32_t n_at, n_log; kg_kcursor cur; } kg_lw_scope;
kg_lw_scope kg_lw_scope_enter(lctx *L, kg_kcursor body);
void kg_lw_scope_leave(lctx *L, kg_lw_scope s);
/* for (v = lo; v < hi; v += step) { ... }: the loop variable; L->cur is its body, in a scope
 * (leave it with kg_lw_scope_leave) */
uint32_t kg_lw_open_for(lctx *L, const char *name, uint32_t lo, uint32_t hi, uint32_t step, kg_lw_scope *sc);
/* lower_window.c: POOL (a loop over the window), UPSAMPLE (nearest: an index; linear: the
 * neighbours lerped) and PIXEL_SHUFFLE at coordinate c of their own shape */
uint32_t kg_lw_window_at(lctx *L, uint32_t id, const uint32_t *c);
/* lower_window.c: UPSAMPLE's source index of output o along a dim (nearest), and its two
 * neighbours and their weights (linear), as the forward computes them */
uint32_t kg_lw_nearest_src(lctx *L, uint32_t o, int64_t in, int64_t out, bool has_scale, double sf);
void kg_lw_linear_src(lctx *L, kg_dtype ct, uint32_t o, int64_t in, int64_t out, bool align, bool has_scale, double sf, uint32_t *i0,
                      uint32_t *i1, uint32_t *l0, uint32_t *l1);
/* lower_adjoint.c: UNSLICE, POOL_GRAD, UPSAMPLE_GRAD (the backward program's layout ops) at c */
uint32_t kg_lw_adjoint_at(lctx *L, uint32_t id, const uint32_t *c);
/* a layout op's value at the current element (kg_lw_val calls it) */
uint32_t kg_lw_layout_val(lctx *L, uint32_t id);
/* an op node from its operands' values (shared by kg_lw_val and kg_lw_val_at) */
uint32_t kg_lw_build(lctx *L, uint32_t id, const uint32_t *x);
/* which needed nodes are read at the element's own coordinates (L->direct) */
void kg_lw_mark_direct(lctx *L);
void kg_lw_memo_set(lctx *L, uint32_t id, uint32_t e); /* L->memo[id] = e (logged inside a branch) */
void kg_lw_at_reset(lctx *L);                           /* forget values at other coordinates */
void kg_lw_view_free(lctx *L);
/* Σ coord[d] · stride[d] over the dims that have both (KG_NONE when none: offset 0) */
uint32_t kg_lw_linear_offset(lctx *L, const uint32_t *coord, const uint32_t *stride, uint32_t rank);
/* stride param p as an expr: the constant 1 where L->unit says so, else the param */
uint32_t kg_lw_stride(lctx *L, uint32_t p);
bool kg_lw_dim_is_one(const kg_dim *d);
kg_kparam kg_lw_mkparam(kg_kparam_kind kind, kg_dtype dt, bool out, const char *name, uint8_t role, uint32_t r0, uint32_t r1);
void kg_lw_add_source_params(lctx *L, kg_arena *A); /* not for the group's own stored values (grp->mats) */
/* a source slot's parameter roles: its buffer (owner, index) and its KPR_STRIDE r0 */
void kg_lw_source_role(const lctx *L, uint32_t s, uint32_t *tensor_r0, uint32_t *tensor_r1, uint32_t *stride_r0);                         /* a buffer or scalar param per source */
void kg_lw_add_source_strides(lctx *L, kg_arena *A, uint32_t *in_stride);   /* their strides over the space */
/* their strides against a row group's squeezed result shape (epilogues without keepdim) */
void kg_lw_add_source_strides_squeezed(lctx *L, kg_arena *A, int64_t mask, uint32_t *sq_stride);
/* idx split over the dims of the space that are (reduced) or are not (!reduced) in mask */
void kg_lw_decompose(lctx *L, uint32_t idx, const uint32_t *size_p, int64_t mask, bool reduced, uint32_t *coord);
void kg_lw_source_offsets(lctx *L, const uint32_t *in_stride, const uint32_t *coord); /* L->poff at coord */
uint32_t kg_lw_identity(kg_kernel *k, kg_op red, kg_dtype acc);             /* a reduction's identity in acc */

/* lower.c: the computation and stores of every output of a pointwise group at the current
 * element (L->poff, L->ooff, L->gcoord set) */
void kg_lw_emit_element(lctx *L, uint32_t nnodes);
/* ---- the CPU target's pointwise schedule: lower_cpu.c ----
 * A thread owns a chunk of KG_CPU_CHUNK elements and walks it in plain loops (linear: one loop;
 * strided: one loop per segment of the innermost dim `din`, whose size parameter is din_size,
 * KG_NONE when din is the only dim, the coordinates of the others computed once per segment).
 * size_p: the space's size parameters (KG_NONE static 1, `outer` the outermost dim's marker). */
void kg_lw_pointwise_cpu(lctx *L, bool linear, uint32_t din, uint32_t din_size, const uint32_t *size_p, uint32_t outer, const uint32_t *in_stride,
                         const uint32_t *out_stride, uint32_t numel_param);

/* ---- the matrix-product schedules: lower_matmul.c (parameters, the tile frame and the
 * epilogue every product schedule shares; the SIMT tiles), lower_direct.c (the direct convolution) and
 * lower_mma.c (the tensor-core tier) ---- */
bool kg_lw_matmul(lctx *L, const char *name);

/* One product kernel being built: the node, its operands and the parameters kg_lw_matmul set
 * up for whichever body the schedule names. Sizes are kernel-IR parameter ids (KG_NONE: a dim
 * of static size 1). */
typedef struct kg_mmk {
  lctx *L;
  kg_kernel *k;
  kg_dtype ix;                     /* index dtype */
  const kg_gnode *mmn, *An, *Bn;   /* the MATMUL and its operands */
  bool a1, b1, bt;                 /* A / B 1-D; B stored [.., N, K] (linear's weight) */
  kg_dtype acc, mdt;               /* accumulator (cdtype), the product's dtype */
  int r, nb;                       /* rank of the space, batch dims of the product */
  int mdim, ndim;                  /* the space's M and N dims (-1: a 1-D operand's) */
  /* a convolution (ia[0] & 8): space [N, O, S...], batch (n, g), M = O / G, N = ΠS, B = IM2COL */
  bool conv;
  int cnd;                         /* spatial dims */
  int64_t G, Og;                   /* groups, output channels per group */
  uint32_t ssz[KG_CONV_MAX_DIMS];  /* spatial size exprs (KG_NONE: static 1) */
  uint32_t size_p[KG_MAX_RANK], kp;/* the space's size params; K's */
  uint32_t ns, *sparam, *snode, *ostride; /* stored values: buffer param, node, strides (ns × KG_MAX_RANK) */
  uint32_t scratch_p;              /* split-K: the float32 scratch of partial products (KG_NONE: none) */
} kg_mmk;

/* The frame of an output tile: batch and row tiles strided over grid.z / grid.y, the column
 * tile grid.x (KG_LAUNCH_TILES). tile_body is the loop body of one bm × bn tile. */
typedef struct kg_mm_frame {
  uint32_t M, N, K;                /* exprs */
  uint32_t m0, n0;                 /* the tile's first row and column */
  uint32_t bc[KG_MAX_RANK];        /* the batch coordinates (conv: image, group) */
  uint32_t bz;                     /* the batch index over all batch dims */
  uint32_t nbatch;                 /* the number of batches (an expr) */
  uint32_t chunk;                  /* split-K's partial kernel: this block's chunk of K (else KG_NONE) */
  kg_kcursor tile_body;
} kg_mm_frame;
void kg_lw_mm_frame(kg_mmk *S, uint32_t bm, uint32_t bn, kg_mm_frame *F);
/* operand A at (m, k) and B at (k, n): their coordinates in their own shapes */
void kg_lw_mm_a_coord(kg_mmk *S, const kg_mm_frame *F, uint32_t m, uint32_t k, uint32_t *c);
void kg_lw_mm_b_coord(kg_mmk *S, const kg_mm_frame *F, uint32_t k, uint32_t n, uint32_t *c);
/* the epilogue at output (gm, gn) of the tile (inside C only): every stored value with the
 * product's value = acc rounded once to its dtype; appends at L->cur */
void kg_lw_mm_store(kg_mmk *S, const kg_mm_frame *F, uint32_t gm, uint32_t gn, uint32_t acc);
/* split-K's partial kernel instead of the epilogue: acc (float32) at output (gm, gn) into the
 * scratch, chunk-major: scratch[chunk][bz][gm][gn] (inside C only) */
void kg_lw_mm_store_partial(kg_mmk *S, const kg_mm_frame *F, uint32_t gm, uint32_t gn, uint32_t acc);
/* forget every memoized value (a new evaluation point) */
void kg_lw_mm_memo_reset(lctx *L);
/* a convolution's spatial coordinates oc[0 .. cnd) of output column n (the last dim fastest) */
void kg_lw_mm_conv_spatial(kg_mmk *S, uint32_t n, uint32_t *oc);
/* lower_direct.c: the direct convolution (KG_MM_DIRECT). The GPU's body: a thread per output
 * walks its window; the CPU target's: a thread walks a chunk of outputs a row at a time, the
 * row's interior (every tap inside the input) as one vectorizable loop. */
void kg_lw_direct_body(kg_mmk *S, const kg_group *grp);
void kg_lw_direct_rows_cpu(kg_mmk *S, const kg_group *grp);
/* lower_rowstats.c: a product's row statistics (kg_group.pre). The GPU tiles: after the tile
 * frame, every statistic of the tile's BM rows into a table (a warp a row, `nthreads` threads; a
 * static shared array, or dynamic shared memory from byte dyn_base, 16-aligned, when not KG_NONE:
 * the launch's smem grows by 4 · BM · statistics), between two barriers. The CPU target: every
 * statistic of rows[0 .. n) (index exprs, n <= 8) by this thread, into vars, for the code that
 * follows. kg_lw_row_stat_at: statistic `id`'s value at row `row` (what kg_lw_val_at returns for
 * it), KG_NONE when id is not one; kg_lw_row_stats_end: frees them, false (an internal error in
 * the diagnostics) when one was read at a row not computed. */
void kg_lw_mm_row_stats_tile(kg_mmk *S, const kg_mm_frame *F, uint32_t BM, uint32_t nthreads, uint32_t dyn_base);
void kg_lw_mm_row_stats_rows(kg_mmk *S, const uint32_t *bc, const uint32_t *rows, uint32_t n);
uint32_t kg_lw_row_stat_at(lctx *L, uint32_t id, uint32_t row);
bool kg_lw_row_stats_end(lctx *L);
/* lower_mma.c: the tensor-core body (mma.sync tiles, cp.async pipeline) */
void kg_lw_mma_body(kg_mmk *S);
/* lower_wgmma.c: the Hopper body (TMA producer warpgroup, wgmma consumer warpgroups, mbarriers) */
void kg_lw_wgmma_body(kg_mmk *S);
/* lower_matmul_cpu.c: the CPU target's body (kg_mm_tile_cpu: a packed panel, register blocks) */
void kg_lw_mm_cpu_body(kg_mmk *S);
/* an operand's coordinate: batch dims right-aligned against the product's (bc[0 .. nb)), then
 * its two matrix dims (x, y), or just x for a 1-D operand (vec); KG_NONE on static-1 dims */
void kg_lw_mm_operand_coord(const kg_gnode *o, bool vec, const uint32_t *bc, int nb, uint32_t x, uint32_t y, uint32_t *c);
/* ---- the attention schedule: lower_attn.c (the flash scheme, one kernel per ATTN group) ---- */
bool kg_lw_attention(lctx *L, const char *name);
/* lower_view.c: a dim's size as an index expression (a constant, or a KPR_SYM parameter) */
uint32_t kg_lw_size(lctx *L, const kg_dim *d);
/* lower_dot.c: a folded product (MMFOLD) at coordinate c of its own shape: a loop over K */
uint32_t kg_lw_dot_at(lctx *L, uint32_t id, const uint32_t *c);

/* ---- the reduction schedules: lower_reduce.c (the schedules, parameters, epilogue,
 * the driver) and lower_reduce_walk.c (the walks over the row) ---- */
bool kg_lw_reduce(lctx *L, const char *name);

/* How a row's threads combine their partials: the .i of the reduction expression that
 * codegen-cuda prints as a collective. */
enum {
  KG_COLL_NONE = -1,        /* a thread per output: its accumulator is the row's value */
  KG_COLL_BLOCK_LEADER = 0, /* block-wide, the value in thread 0 only (kg_bred) */
  KG_COLL_BLOCK_ALL = 1,    /* block-wide, every thread gets it (kg_ball) */
  KG_COLL_WARP_ALL = 2,     /* warp- or segment-wide, every lane gets it (kg_wall; the lanes: KG_COLL_LANES) */
};

/* What the phases of one REDUCE kernel share (kg_lw_reduce). Expressions, vars and
 * parameters are kernel-IR ids; KG_NONE where there is none. */
typedef struct rkern {
  lctx *L;
  kg_kernel *k;
  const kg_graph *g;
  const kg_group *grp;
  uint32_t r;          /* rank of the iteration space (the rows' shape) */
  int64_t mask;        /* the space's reduced dims */
  /* the schedule, from the variant */
  kg_split_part split; /* whole rows, a split's partial kernel, or its finish kernel */
  bool col;            /* a thread per output (the column schedule, and the finish kernel) */
  bool warp;           /* a warp per row */
  uint32_t seg;        /* with warp: 2^seg rows a warp, on segments of 32 >> seg lanes */
  uint32_t cvec;       /* the column schedules: neighbouring outputs a thread (1, or v->vec: vector loads) */
  bool persistent;     /* several reductions or row outputs: the row is walked more than once */
  bool cache;          /* the row cache (a block per row only) */
  bool online;         /* a max's sum of exp rides along in the max's walk (!v->no_online; a split: its online pair) */
  uint32_t slots;      /* a split's accumulators per chunk and output (kg_split_slots; 1 unsplit) */
  /* parameters */
  uint32_t *rparam;    /* per reduction: its buffer when stored (read elsewhere) */
  uint32_t *rstride;   /* per reduction: KG_MAX_RANK strides, by dim of the space */
  uint32_t *eparam, *estride; /* per epilogue output: its buffer, strides */
  uint32_t numel_p, rn;       /* output elements (rows), elements per row */
  uint32_t part, chunk_p, nchunk_p, nb_p; /* split: scratch, chunk length, chunks, blocks per chunk (columns) */
  uint32_t size_p[KG_MAX_RANK];           /* the space's sizes (KG_NONE: static 1) */
  uint32_t *in_stride;        /* per source: KG_MAX_RANK strides over the space */
  uint32_t *sq_stride;        /* the same against squeezed epilogues' shape, or NULL */
  uint32_t out_stride[KG_MAX_RANK * KG_ROW_OUTPUTS_MAX + 1]; /* per row output */
  /* the row, as the schedule maps it */
  uint32_t bid, tid, nt;  /* block index (within its chunk for a split partial), thread index, block size */
  uint32_t ch, lo, hi;    /* a split partial: its chunk, the chunk's first and end element */
  uint32_t o;             /* the output element (row) */
  uint32_t leader;        /* the thread's index within the row: 0 stores the row's values */
  uint32_t first, step, bound; /* the walks: j = first; j < bound; j += step */
  int coll;               /* KG_COLL_*: the collective */
  uint32_t coord[KG_MAX_RANK]; /* the row's kept coordinates */
  bool nest;                   /* inside the CPU target's nested walk: the element's coordinates are nest_rc */
  uint32_t nest_rc[KG_MAX_RANK];
  uint32_t zero;
  /* per node */
  uint32_t *rowval;  /* a finished reduction's value, in its dtype */
  uint32_t *rowacc;  /* a mean in accumulator precision (a later variance centres on it) */
  uint32_t *preset;  /* a reduction computed in an earlier walk (Welford, or as a sibling) */
  uint8_t *rvisit;   /* scratch of the sibling search */
} rkern;

/* lower_reduce.c: which reductions share a walk (kg_reduce_passes counts the walks the
 * same way), and what the walks share with the epilogue */
/* the later reductions riding along in reduction ri's walk (indices into grp->reds, at most 16) */
uint32_t kg_lw_pick_siblings(const kg_graph *g, const kg_group *grp, uint32_t ri, const uint32_t *taken, uint32_t *fol, uint8_t *visit);
uint32_t kg_lw_welford_var_of(const kg_graph *g, const kg_group *grp, uint32_t ri); /* the variance riding along in mean ri's walk, or KG_NONE */
/* the sum of exp(x − shift(m)) riding along in max ri's walk (online softmax; an index into grp->reds), or KG_NONE */
uint32_t kg_lw_online_sum(const kg_graph *g, const kg_group *grp, uint32_t ri, uint32_t *shift);
uint32_t kg_lw_welford_next(const kg_graph *g, const kg_group *grp, uint32_t ri, uint32_t from); /* index of the next variance after `from` sharing its M2 */
void kg_lw_row_memo_reset(rkern *S);            /* forget per-element values; the row's reductions stay */
void kg_lw_row_store(rkern *S, kg_kcursor *c, uint32_t param, uint32_t off, uint32_t x); /* param[off] = x */
kg_kcursor kg_lw_row_leader_only(rkern *S);     /* if (leader == 0) { … }: its body */
/* The column schedules with vectors (S->cvec > 1: a lone single-pass reduction): the thread's
 * cvec outputs walk their rows together — each row's elements one vector load per source
 * varying along the outputs, an accumulator per output — then each output's value, its store,
 * and per_output (the epilogue) at that output. True when the kernel is done (a split partial). */
bool kg_lw_reduce_columns(rkern *S, void (*per_output)(rkern *S));
/* lower_reduce_walk.c: the walks over the row */
bool kg_lw_reduce_one(rkern *S, uint32_t ri);   /* reduction ri's passes; true: a split partial is done */
void kg_lw_row_outputs(rkern *S);               /* the row-output pass */

#endif
