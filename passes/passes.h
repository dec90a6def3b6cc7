/* passes/passes.h — IR → IR transformations, one per file, run by pipeline.c.
 *
 * Graph passes (typed tensor program, in place):
 *   fold.c  — constant folding of scalar ops with run-time semantics (ir/eval.c)
 *   cse.c   — common subexpression elimination (hash-consing of pure nodes)
 *   dce.c   — dead-node elimination and renumbering
 *   decompose.c — composite ops (softmax, var/std, layer_norm, …) expanded into
 *             reductions and pointwise ops, on a copy: the lowering program
 * Kernel formation:
 *   fuse.c  — fusion: groups the entry's outputs by iteration space; each group is
 *             one kernel that computes every pointwise producer inline (recomputing
 *             broadcast intermediates), so intermediates never touch memory
 *   lower.c — builds the kernel IR of one group for a layout variant (the pointwise
 *             schedule: flattened index, 32/64-bit index math, stride-0 broadcasting,
 *             128-bit vector access), inlining map functions; the scan schedule
 *   lower_matmul.c — the matrix-product schedules (tiles staged in shared memory, prologue
 *             in the loads, epilogue in the store)
 *   lower_reduce.c — the reduction schedules (block / warp / thread per row, split
 *             reductions): one mapping function per schedule, the shared phases;
 *             lower_reduce_walk.c — the walks over a row and each reduction's passes
 *             (Welford, siblings, row outputs)
 *   schedule.c — the scheduler: which variant a group runs as (one pure function asked by
 *             the fuser, at compile time and at run time), the target description
 *   pipeline.c — the pass list, verification after every pass, per-pass log/timing.
 * Host plan (entries with control flow over tensors):
 *   plan_regions.c — dead steps, loop-invariant hoisting, regions (each a small typed
 *             program the pipeline above compiles), buffer lifetimes (kill lists)
 *   plan_inplace.c — select_scatter into a buffer that dies there: src stored straight into
 *             the slice (the region's REGION step lists it; a fallback region composes it)
 */
#ifndef KG_PASSES_H
#define KG_PASSES_H

#include "../ir/ir.h"
#include "../support/support.h"

typedef struct kg_pass_ctx {
  kg_arena *arena;
  kg_diag *d;
  bool verify;     /* run the verifier after every pass */
  kg_strbuf *log;  /* when non-NULL: IR after each pass (kgen explain) */
  const char *dump;/* comma-separated pass names to dump to stderr ($KG_DUMP), or NULL */
  bool no_fold;    /* keep every matrix product tiled (fold_products.c: force_variant 2 and 5) */
  bool unfused_attn; /* ATTN expanded into PyTorch's math path by decompose.c (force_variant 2
                      * and 5; the gradients' lowering: autodiff differentiates its products and
                      * softmax); no_fold alone keeps a hand-written attention as written */
  bool no_attn;    /* keep a hand-written attention as written, folds allowed (the CPU device's
                      unfold plan, runtime/exec_plans.c, with unfused_attn) */
  bool merge_symbolic; /* the few-rows plan (runtime/exec_plans.c, plan 4: taken when a run's rows
                          are few): merge_products merges products of separate weights at symbolic
                          rows too, and fuse.c moves a norm's statistics into the product at
                          symbolic rows too (kg_group.pre) */
} kg_pass_ctx;

/* ---- graph passes: return true when the graph changed ---- */
bool kg_pass_fold(kg_graph *g, kg_pass_ctx *c);
bool kg_pass_cse(kg_graph *g, kg_pass_ctx *c);
bool kg_pass_dce(kg_graph *g, kg_pass_ctx *c);
/* Builds `out` (initialised by the caller) from g with every composite op expanded.
 * out borrows g's map functions. Returns true when something was expanded. */
bool kg_pass_decompose(const kg_graph *g, kg_graph *out, kg_pass_ctx *c);
/* decompose_loss.c: a loss function node n (operands already mapped to in[]) expanded into
 * out; returns the node holding its value */
uint32_t kg_decompose_loss(kg_graph *out, const kg_gnode *n, const uint32_t *in);
/* drop_casts.c: what reads a cast to the dtype its operand already has reads the operand (an
 * entry output stays the cast); on the lowering program right after decompose */
bool kg_pass_drop_casts(kg_graph *g, kg_pass_ctx *c);
/* attention.c: softmax(f(q @ kᵀ), -1) [* dropout] @ v written by hand becomes one ATTN (the fused
 * attention kernel) with f evaluated inline; runs on the lowering program, after decompose */
bool kg_pass_attention(kg_graph *g, kg_pass_ctx *c);
/* fold_products.c: small static products (K <= KG_FOLD_K_MAX, batch·M·N·K <= KG_FOLD_MACS_MAX)
 * whose every reader computes each element once become MMFOLD: a loop over K in the kernel
 * that reads them (passes/lower_dot.c). Runs on the lowered program, after decompose. */
#define KG_FOLD_K_MAX 256
#define KG_FOLD_MACS_MAX ((int64_t)1 << 22)
/* mm_transpose.c: MATMUL(a, PERMUTE(b) swapping its last two dims) → MATMUL(a, b) reading b as [.., N, K] */
bool kg_pass_mm_transpose(kg_graph *g, kg_pass_ctx *c);
/* merge_products.c: products of one input with adjacent row slices of one weight (a packed
 * in_proj_weight) as one product, its results sliced back out */
bool kg_pass_merge_products(kg_graph *g, kg_pass_ctx *c);
bool kg_pass_fold_products(kg_graph *g, kg_pass_ctx *c);
/* Products left tiled only because a size is symbolic, which the structural rules would fold:
 * the fold plan's candidates (runtime/exec.c folds them all when every one is small at the
 * run's sizes). Returns their count; *out (malloc'd, or NULL) their node ids. */
uint32_t kg_fold_candidates(const kg_graph *g, uint32_t **out);
/* Small enough to fold at these sizes: K <= KG_FOLD_K_MAX, numel · K <= KG_FOLD_MACS_MAX */
bool kg_fold_small(int64_t k, int64_t numel);
/* Rewrites every use of node i to repl[i] (repl[i] <= i). */
void kg_graph_replace_uses(kg_graph *g, const uint32_t *repl);

/* ---- autodiff*.c: reverse-mode differentiation (issue 24; passes/autodiff.h) ----
 * The lowering program lg (composites decomposed, products not yet folded) differentiated with
 * respect to the parameters wants[] flags (index into lg->params), as two programs that go
 * through the same pipeline: the forward (lg with the values the backward needs as more
 * outputs) and the backward (the gradients of the results in, the parameters' gradients out). */
typedef enum kg_bwd_kind {
  KG_BWD_GRAD = 0,   /* the gradient of forward result `index` (the caller's weights of the results) */
  KG_BWD_PARAM = 1,  /* forward parameter `index` (lg->params: inputs, then captures) */
  KG_BWD_RESULT = 2, /* forward result `index` */
  KG_BWD_SAVED = 3,  /* the forward's saved output `index` (after its results) */
} kg_bwd_kind;
typedef struct kg_bwd_param {
  uint8_t kind;      /* kg_bwd_kind */
  uint32_t index;
} kg_bwd_param;
typedef struct kg_grad_programs {
  kg_graph fwd;            /* outputs: the results, the saved values, the write-backs */
  kg_graph bwd;            /* parameters: bwd_params[]; outputs: the gradients of grads[] */
  uint32_t n_saved;
  kg_bwd_param *bwd_params; /* malloc'd */
  uint32_t n_bwd_params;
  uint32_t *grads;         /* per backward output: the forward parameter (index into lg->params); malloc'd */
  uint32_t n_grads;
  char *explain;           /* what is saved and what is recomputed (kgen explain); malloc'd */
} kg_grad_programs;
/* sym_hint: per symbol of lg its size at the caller's tensors (or -1), for the cost of saving a
 * value. out->fwd and out->bwd initialised by the caller. False with diagnostics (located at the
 * op) when a value the gradients need cannot be differentiated. */
bool kg_pass_autodiff(const kg_graph *lg, const uint8_t *wants, const int64_t *sym_hint, kg_grad_programs *out, kg_pass_ctx *c);
void kg_grad_programs_free(kg_grad_programs *p);

/* ---- fuse.c ---- */
typedef enum kg_group_kind {
  KG_GROUP_POINTWISE = 0, /* outputs of one shape, every producer inline */
  KG_GROUP_REDUCE = 1,    /* reductions over the same rows (prologues inline), row outputs, epilogues */
  KG_GROUP_SCAN = 2,      /* one prefix scan (its prologue inline): a thread per row walks it in order */
  KG_GROUP_MATMUL = 3,    /* one matrix product (red): its operands' pointwise producers inline in the tile
                             loads (prologue), the pointwise outputs of its shape over it in the store
                             (epilogue: outs), and the values other kernels read from it (mats) */
  KG_GROUP_ATTN = 4,      /* one attention (red, an ATTN node): the fused flash kernel (lower_attn.c), its
                             operands' producers inline in its loads, its epilogue and mats as a product's */
} kg_group_kind;

typedef struct kg_group {
  uint8_t kind;            /* kg_group_kind */
  kg_shape space;          /* POINTWISE: the outputs' shape; REDUCE: the rows' shape (the reductions' input) */
  KG_VEC(uint32_t) outs;   /* indices into g->outputs: POINTWISE outputs, or REDUCE row outputs (shape = space) */
  uint32_t red;            /* REDUCE: the first reduction node */
  KG_VEC(uint32_t) reds;   /* REDUCE: every reduction of the group (same rows, same reduced dims), in node order */
  KG_VEC(uint32_t) epi;    /* REDUCE: epilogue outputs (indices into g->outputs) shaped like a reduction's result */
  KG_VEC(uint32_t) mats;   /* MATMUL: materialized nodes its epilogue computes and stores (the product, or
                              the largest pointwise value over it, that later kernels read) */
  KG_VEC(uint32_t) pre;    /* MATMUL: row statistics — reductions over the rows of A's shape that only
                              A's prologue reads (a norm's mean, variance, mean of squares) — which the
                              product's kernel computes for its tile's rows before its K loop
                              (fuse.c's row_stats; kg_mm_row_stat_ok), in node order */
} kg_group;

/* Where a materialized value lives: an entry output or a temporary buffer. */
typedef struct kg_bufref {
  uint8_t kind;   /* KG_BUF_OUTPUT or KG_BUF_TEMP (ir.h) */
  uint32_t index; /* output index or temporary index */
} kg_bufref;

typedef struct kg_fusion {
  KG_VEC(kg_group) groups;     /* in execution order */
  KG_VEC(uint32_t) mat;        /* materialized nodes (reductions), in node order */
  KG_VEC(kg_bufref) mat_buf;   /* their buffers, parallel to mat */
  KG_VEC(uint32_t) temps;      /* nodes held in temporary buffers (index = temporary index) */
} kg_fusion;

/* Index into f->mat of a materialized node, or KG_NONE. */
uint32_t kg_fusion_mat_index(const kg_fusion *f, uint32_t node);

/* split_rows = false: the fused plan (row groups: reductions over the same rows share a
 * kernel with their row outputs and epilogues). true: the split-rows plan for few, very
 * long rows: every reduction a group of its own (so that each can split across the GPU,
 * see kg_reduce_split_chunks), row outputs in pointwise kernels reading the reductions
 * from temporaries. The runtime chooses between them from the actual sizes. */
void kg_pass_fuse(const kg_graph *g, kg_fusion *f, bool split_rows, kg_pass_ctx *c);
void kg_fusion_free(kg_fusion *f);

/* How many times the row schedule walks a REDUCE group's rows (1 for other groups): one
 * pass per reduction, two for argmax/argmin and a variance without a mean beside it,
 * none for a variance paired with a mean (Welford), a max's sum of exp (online softmax) or a
 * simple sibling riding along in an earlier reduction's pass; one more for row outputs. perf/bench_reduce checks it
 * (lower_reduce.c). */
int kg_reduce_passes(const kg_graph *g, const kg_group *grp);
/* the same under variant v (v->no_online: a softmax's sum of exp walks apart from its max) */
struct kg_variant;
int kg_reduce_passes_variant(const kg_graph *g, const kg_group *grp, const struct kg_variant *v);
void kg_fusion_print(const kg_graph *g, const kg_fusion *f, kg_strbuf *out);

/* ---- lower.c ---- */
typedef enum kg_layout {
  KG_LAYOUT_LINEAR = 0, /* every operand contiguous with the iteration space's shape: offset = index */
  KG_LAYOUT_STRIDED = 1 /* general: per-operand strides (0 = broadcast), coordinates from the index */
} kg_layout;

typedef enum kg_split_part { KG_SPLIT_NONE = 0, KG_SPLIT_PARTIAL = 1, KG_SPLIT_FINISH = 2 } kg_split_part;

typedef struct kg_variant {
  uint8_t layout;      /* kg_layout */
  uint8_t vec;         /* LINEAR: elements per vector access (1, 2, 4, 8); REDUCE: along the row (128-bit
                          row loads), or in the column schedules (LINEAR) vec neighbouring outputs a
                          thread, each row's vec elements one load */
  uint8_t index_dtype; /* KG_I32 or KG_I64 */
  uint8_t split;       /* REDUCE, a kg_split_part: whole rows; the partial kernel of a split
                          reduction (grid = chunks × outputs, accumulators to scratch); its
                          finish kernel (a thread per output folds the chunks in order) */
  uint8_t warp;        /* REDUCE over rows: a warp per row, 8 rows per 256-thread block
                          (warp shuffles only, no barrier); for rows of ≤ 1024 elements
                          (≤ KG_WARP_PERSISTENT_MAX when the row is walked more than once) */
  uint8_t seg;         /* with warp: 2^seg rows a warp, each on a segment of 32 >> seg lanes
                          (shuffles within the segment; 8 << seg rows a block): short rows */
  uint8_t plan;        /* whose group: 0 the fused plan (c->fusion), 1 the split-rows plan, 2 the
                          fold plan (c->fusion_fold: products with symbolic sizes folded), 3 the
                          unfold plan (the CPU device: big folded products as products again) */
  uint8_t cache;       /* REDUCE, a block per row: the row cached in registers — every pass
                          walks KG_ROW_CACHE slots per thread (j = tid + s · blockDim), the
                          first pass keeps what it loads, later passes read it from there;
                          valid only when the row has ≤ blockDim · KG_ROW_CACHE elements */
  uint8_t mm_tile;     /* MATMUL: the tile schedule, a kg_mm_tile */
  uint8_t mm_prec;     /* MATMUL on tensor cores: a kg_mm_prec (how float32 operands are multiplied) */
  uint8_t mm_a, mm_b;  /* MATMUL on tensor cores, per operand: KG_MM_KMAJOR (K is its contiguous dim:
                          the shared tile is [rows][k], else [k][rows]) | KG_MM_ASYNC (read
                          straight from its tensor by cp.async: no prologue, 16-byte aligned rows) */
  uint8_t cpu;         /* the CPU target's schedules (kg_target_cpu): pointwise kernels walk chunks of
                          KG_CPU_CHUNK elements in plain loops (lower_cpu.c); reductions are a thread
                          per output (the column schedule, always) */
  uint8_t no_online;   /* REDUCE over rows: 1 = a max's sum of exp (softmax, log_softmax, logsumexp,
                          cross_entropy) walks the row after the max, as its own pass (the
                          forced-strided variants: the fuzzer keeps this scheme tested); 0 = online,
                          in the max's walk (a running sum rescaled as the max grows) */
  uint8_t mm_fold;     /* MATMUL on the CPU target's panel schedules: the batch folded into the rows (B has
                          no batch dims: a linear over [T, N, K]): batch · M rows in chunks of MC, each
                          row's batch coordinates from its index, one panel per column tile for all of
                          them (grid.z 1) instead of one per batch (lower_matmul_cpu.c) */
} kg_variant;
/* Elements a thread of the CPU pointwise schedule owns (a chunk of the flattened space). */
#define KG_CPU_CHUNK 2048
/* the CPU target's direct convolutions (lower_direct.c): outputs per thread, walked a row at a time */
#define KG_CPU_DIRECT_CHUNK 512

/* How the tensor-core tier multiplies float32 operands (kg_variant.mm_prec). */
typedef enum kg_mm_prec {
  KG_MM_PREC_NATIVE = 0,    /* float16 / bfloat16 operands as they are */
  KG_MM_PREC_3XTF32 = 1,    /* split-TF32: a = hi + lo (each TF32), a·b ≈ lo·hi + hi·lo + hi·hi in float32 */
  KG_MM_PREC_TF32 = 2,      /* one TF32 product (PyTorch's allow_tf32 / precision "high") */
} kg_mm_prec;
#define KG_MM_KMAJOR 1
#define KG_MM_ASYNC 2

/* The matrix-product tile schedules. SIMT (tier 0, passes/lower_matmul.c): a block of 256 threads
 * computes a bm × bn output tile, tm × tn outputs per thread, K in chunks of KG_MM_BK staged in
 * shared memory. Tensor cores (tier 1: mma.sync, sm_80 and later, passes/lower_mma.c): wm × wn
 * warps of (bm / wm) × (bn / wn), K in chunks of 64 bytes of each operand (32 float16 / bfloat16,
 * 16 float32) through a `stages`-deep ring of swizzled shared-memory tiles. */
typedef enum kg_mm_tile {
  KG_MM_T64 = 0, /* 64 × 64, 4 × 4 per thread: large products */
  KG_MM_T32 = 1, /* 32 × 32, 2 × 2 per thread */
  KG_MM_T16 = 2, /* 16 × 16, 1 per thread: small products (more blocks) */
  KG_MM_ROW = 3, /* 4 × 64: M ≤ 4 (a vector times a matrix) */
  KG_MM_COL = 4, /* 64 × 4: N ≤ 4 (a matrix times a vector) */
  KG_MM_DIRECT = 5, /* convolutions with few output channels per group over a short K (depthwise): a
                       thread per output walks the window itself, no tiles (kg_conv_direct); on the
                       CPU target a thread walks rows of outputs (passes/lower_direct.c) */
  KG_MM_TC128 = 6,    /* tensor cores: 128 × 128, 8 warps of 64 × 32, 4 stages */
  KG_MM_TC128N64 = 7, /* 128 × 64, 4 warps of 64 × 32, 4 stages */
  KG_MM_TC64 = 8,     /* 64 × 64, 4 warps of 32 × 32, 3 stages */
  KG_MM_TC32 = 9,     /* 32 × 32, 4 warps of 16 × 16, 3 stages: small products, more blocks */
  KG_MM_TC128N64W8 = 10, /* 128 × 64, 8 warps of 32 × 32, 4 stages: float32's largest (its partial
                            sums and split-TF32 fragments double a thread's registers) */
  KG_MM_WG128 = 11,   /* Hopper (sm_90a): 128 × 128 × 64 stages by TMA, 4 stages; a producer warpgroup
                         and 2 consumer warpgroups of wgmma m64n128k16 */
  KG_MM_WG256 = 12,   /* Hopper: 128 × 256 × 64, 3 stages; consumers of m64n256k16 (128 accumulators a thread) */
  KG_MM_CPU = 13,    /* the CPU target (lower_matmul_cpu.c): a thread packs NR columns of B for every k
                       into its scratch and runs MR × NR register blocks over KG_MM_CPU_MC rows */
  KG_MM_CPU_ALL = 14, /* the same over every row (up to KG_MM_CPU_MC_ALL): one panel per column tile,
                        when the column tiles alone keep every core busy */
  KG_MM_CPU8 = 15,     /* KG_MM_CPU and KG_MM_CPU_ALL with register blocks of 8 rows: a CPU with 32 */
  KG_MM_CPU8_ALL = 16, /* vector registers (AVX-512) holds 8 x 16 accumulators and their block sums */
  KG_MM_CPU_DOT = 17,  /* the CPU target, few rows times a weight stored [N, K] (a linear's, an LSTM's):
                          dot products along K, 16 lanes, register blocks of 2 rows x 2 columns, no panel */
  KG_MM_CPU_DOT8 = 18, /* the same with 2 rows x 4 columns where there are 32 vector registers */
  KG_MM_CPU8W = 19,     /* KG_MM_CPU8 and _ALL with panels twice as wide (32 columns of a float32 */
  KG_MM_CPU8W_ALL = 20, /* product): 8 x 32 register blocks, two panel vectors per k for 8 broadcasts */
  KG_MM__COUNT
} kg_mm_tile;
#define KG_MM_BK 16
#define KG_MM_KBLOCK 32 /* float32 products: K summed in blocks this long (passes/lower_matmul.c) */
typedef struct kg_mm_tile_info {
  uint32_t bm, bn, tm, tn; /* the block's tile; SIMT: outputs per thread */
  const char *name;
  uint8_t tier;            /* 0 SIMT, 1 tensor cores (mma.sync), 2 Hopper (wgmma + TMA) */
  uint8_t wm, wn, stages;  /* tensor cores: warps (tier 2: consumer warpgroups) along M and N; shared-memory stages */
} kg_mm_tile_info;
#define KG_MM_TC_KBYTES 64 /* tensor-core tiles: bytes of K per row of a stage (a 64-byte swizzle) */
#define KG_MM_CPU_MR 4   /* the CPU schedule: rows of a register block (KG_MM_CPU8*: 8) */
#define KG_MM_CPU_MC 64  /* the CPU schedule: rows a thread owns (a multiple of MR) */
#define KG_MM_CPU_MC_ALL 65536 /* KG_MM_CPU_ALL: rows a thread owns */
#define KG_MM_CPU_DOT_M 16 /* KG_MM_CPU_DOT*: rows a thread owns (A's packed: at most NR rows of K) */
#define KG_MM_CPU_DOT_ROWS 4 /* the scheduler's KG_MM_CPU_DOT*: products of at most this many rows */
#define KG_MM_CPU_DOT_K 512  /* ... and at least this long a K */
#define KG_MM_CPU_DOT_N 64 /* KG_MM_CPU_DOT*: columns a thread owns (A's rows packed once for them) */
/* the CPU schedule's panel width (NR) of tile t: 16 columns for 4-byte accumulators (two AVX2
 * vectors), 8 for 8-byte; twice that for the wide tiles (KG_MM_CPU8W*) */
uint32_t kg_mm_cpu_nr(int t, kg_dtype acc);
#define KG_MM_CPU_NR_MAX 32 /* the widest panel (the lowering's arrays) */
/* the columns a thread of CPU tile t owns: NR, the dot tiles' KG_MM_CPU_DOT_N */
uint32_t kg_mm_cpu_cols(int t, kg_dtype acc);
/* a thread's scratch past its panel, in rows of NR: the tile (tm), the dot tiles' lanes with a gap (2 tm) */
uint32_t kg_mm_cpu_tile_rows(int t);
/* is t one of the CPU schedule's tiles (KG_MM_CPU, _ALL, KG_MM_CPU8, _ALL, KG_MM_CPU8W, _ALL,
 * KG_MM_CPU_DOT, 8)? Its tm is the register block's rows (MR; the dot tiles: rows x columns), bm
 * the rows a thread owns. kg_mm_tile_cpu_panel: one of the packed-panel tiles (not dot) */
bool kg_mm_tile_cpu(int t);
bool kg_mm_tile_cpu_panel(int t);
const kg_mm_tile_info *kg_mm_tile_get(kg_mm_tile t);
/* The attention schedules (passes/lower_attn.c, the flash scheme): a block of `threads` threads
 * keeps a tile of bq queries on chip (the queries in shared memory, each row's output accumulators
 * in registers: threads / bq threads per row, Ev / that many accumulators each) and streams the
 * keys and values in blocks of bk through one shared tile; the scheduler (kg_attn_choose_tile)
 * picks the largest tile whose registers and shared memory fit and that still gives every SM a
 * block. The tensor-core tile (passes/lower_attn_mma.c, FlashAttention-2's layout on mma.sync)
 * takes float16 / bfloat16 attention with head dims to 128 on sm_80 and later
 * (kg_attn_tensor_cores). */
typedef enum kg_attn_tile {
  KG_ATTN_Q64 = 0, /* 64 queries, keys in blocks of 32: short head dims (Ev <= 64) */
  KG_ATTN_Q32 = 1, /* 32 queries, keys in blocks of 32 */
  KG_ATTN_Q16 = 2, /* 16 queries, keys in blocks of 32 */
  KG_ATTN_Q8 = 3,  /* 8 queries, keys in blocks of 16: head dims to 256, float64 */
  KG_ATTN_SIMT_COUNT = 4,
  KG_ATTN_TC64 = 4,/* tensor cores: 4 warps of 16 queries each, keys in blocks of 64 (32 past d = 64) */
  KG_ATTN__COUNT
} kg_attn_tile;
typedef struct kg_attn_tile_info { uint32_t bq, bk, threads; const char *name; bool tensor_cores; } kg_attn_tile_info;
const kg_attn_tile_info *kg_attn_tile_get(kg_attn_tile t);
#define KG_ATTN_ACC_MAX 32      /* output accumulators per thread at most (registers: no spills) */
#define KG_ATTN_SMEM_MAX 49152  /* static shared memory per block */
/* Shared memory of tile t for head dims e, ev with accumulator elements of esz bytes: the query
 * tile, one key / value tile, the probabilities. */
uint32_t kg_attn_smem(kg_attn_tile t, int64_t e, int64_t ev, uint32_t esz);
/* The tensor-core tile's dynamic shared memory for head dims e, ev (float16 / bfloat16 tiles of
 * the queries, one key block and one value block, rows padded by 16 bytes) */
uint32_t kg_attn_mma_smem(int64_t e, int64_t ev);
int64_t kg_attn_mma_pitch(int64_t d); /* bytes of a row of head dim d in those tiles */
uint32_t kg_attn_mma_bk(int64_t e, int64_t ev); /* keys a block of the tensor-core tile */
#define KG_ATTN_TC_DIM_MAX 128  /* head dims the tensor-core tile takes (registers: no spills) */
/* A MATMUL group's product dims from its space's sizes (-1 unknown) and the node's ia[0] flags:
 * batch (the product of the batch dims), M, N. A convolution's (flags & 8, groups G = flags >> 8)
 * space is [N, O, S...]: batch N·G, M = O / G, N = ΠS. */
void kg_mm_dims(int rank, const int64_t *space, int64_t flags, int64_t *batch, int64_t *m, int64_t *n);
/* At most this many epilogue outputs and stored values per product kernel (each is evaluated
 * for every one of a thread's tm × tn outputs). */
#define KG_MM_OUTPUTS_MAX 8
#define KG_ROW_CACHE 8
/* Rows this short get a warp each instead of a block (a lone reduction; a persistent row
 * kernel — several reductions or row outputs, the row walked more than once — up to
 * KG_WARP_PERSISTENT_MAX). */
#define KG_WARP_ROW_MAX 1024
#define KG_WARP_PERSISTENT_MAX 256

/* Builds the kernel for group `grp` in variant `v` (REDUCE groups ignore the layout:
 * their operands are always addressed by strides). Kernel parameter roles:
 *   KPR_TENSOR r0 = a kg_buf_owner: entry parameter r1 | output r1 | temporary r1 | scratch
 *   KPR_STRIDE r0 = parameter p | 0x80000000 | output o | 0x40000000 | temporary t, r1 = dim
 *   KPR_NUMEL (pointwise: elements; reduce: output elements), KPR_RED_N (elements reduced
 *   per output), KPR_SIZE r1 = dim of the group's space. */
bool kg_lower_group(const kg_graph *g, const kg_fusion *f, const kg_group *grp, const kg_variant *v,
                    const char *name, kg_kernel *k, kg_pass_ctx *c);

/* ---- schedule.c: the scheduler ---- */
/* What the GPU offers that schedules depend on. */
typedef struct kg_target {
  const char *name;
  int arch;               /* compute capability, e.g. 90 */
  int sm_count;           /* streaming multiprocessors */
  int threads_per_sm;     /* resident threads per SM */
  int blocks_per_sm;      /* resident blocks per SM the split aims for */
  int smem_per_sm;        /* shared memory per SM, bytes */
  int smem_per_block;     /* shared memory a block may use (with the opt-in), bytes */
  bool wgmma;             /* sm_90a's wgmma and TMA (an sm_90 GPU and an NVRTC that compiles sm_90a) */
  int cpu_cores;          /* > 0: a CPU (the CPU device) with this many threads: the scheduler picks
                             schedules whose threads never cooperate (plain loops there) */
  int cpu_vregs;          /* the CPU's vector registers (32 with AVX-512, else 16): the products'
                             register blocks (KG_MM_CPU8 where there are 32) */
} kg_target;
extern const kg_target kg_target_h100; /* the target until the device is asked (and the emulator's) */
extern const kg_target kg_target_a100; /* sm_80: the mma.sync tier (kg_options.emu_arch = 80) */
/* The CPU device's target: `cores` worker threads (the caller's included); no tensor cores. */
kg_target kg_target_cpu(int cores);

/* Can a schedule take group `grp` as it stands? fuse.c asks before every merge (a
 * reduction joining a row group, an output joining a row group or a pointwise group)
 * and keeps the merge only if the answer is yes. Limits: a row kernel writes at most
 * KG_ROW_OUTPUTS_MAX row outputs; a kernel's parameters (pointers, scalars, sizes and
 * strides, 8 bytes each) fit CUDA's 4 KB parameter space. */
#define KG_ROW_OUTPUTS_MAX 8
#define KG_PARAM_BYTES_MAX 4096
bool kg_schedule_accepts(const kg_graph *g, const kg_group *grp);

/* A group's static facts, read from the graph once (kg_group_facts_of). */
typedef struct kg_group_facts {
  uint8_t kind;               /* kg_group_kind */
  int rank;                   /* of the iteration space */
  int64_t red_mask;           /* REDUCE / SCAN: the reduced dims of the space */
  uint32_t n_reds, n_outs;    /* reductions; row outputs (REDUCE) or outputs (POINTWISE) */
  bool splittable;            /* one combinable reduction (or a float variance), no row outputs (kg_group_splittable) */
  bool any_splittable;        /* some reduction of it could split (the split-rows plan helps) */
  uint32_t max_vec;           /* widest vector: 16 bytes over its widest operand, at most 8 */
  bool operands_match_space;  /* every tensor it reads has the space's shape (compile time) */
  int64_t mm_flags;           /* MATMUL: the product's ia[0] (1-D operands, transposed B; a convolution) */
  int64_t mm_k;               /* MATMUL: K when static (-1: known at run time) */
  uint32_t attn_esz;          /* ATTN: the accumulator's size, bytes (mm_k holds the head dim E) */
  uint8_t mm_dtype;           /* MATMUL: its operands' dtype (KG_DT_NONE when they differ); ATTN: q, k and v's */
  bool mm_a_src, mm_b_src;    /* MATMUL: A / B is read from memory as it is (an input or a stored
                                 value, no prologue, no view): cp.async can bring it */
  bool mm_rows16[2];          /* MATMUL: A / B is such a source whose innermost dim is static and
                                 16-byte multiple long (compile time assumes contiguous tensors) */
  int8_t mm_rank[2];          /* MATMUL: A's / B's rank (a batch for TMA when above 2) */
  bool mm_b_direct;           /* MATMUL: a convolution's B is the identity IM2COL (1 × 1, stride 1)
                                 of a source: its input read as it is (mm_b_src, mm_rows16 of it) */
  bool mm_b_cat;              /* MATMUL: linear's B is a concatenation along its rows of sources
                                 (kg_mm_cat_of_sources: separate weights merged by merge_products):
                                 cp.async can bring each row from its own tensor (mm_rows16[1] when
                                 every one's rows are a 16-byte multiple long) */
  bool mm_b_shared;           /* MATMUL: every batch multiplies the same B (B has no batch dims of its
                                 own; two matrix operands, not a convolution) and no row statistics:
                                 the CPU schedules may fold the batch into the rows (kg_variant.mm_fold) */
  bool coords;                /* it computes a layout op (a view, cat, an index…): the kernel needs each
                                 element's coordinates, so it is strided, without vectors or the row cache */
  bool col_vec;               /* REDUCE: one single-pass reduction (sum, nansum, mean, prod, amax, amin), no
                                 row outputs: the column schedules can give a thread vec neighbouring outputs */
} kg_group_facts;
kg_group_facts kg_group_facts_of(const kg_graph *g, const kg_fusion *f, const kg_group *grp);
/* Is B (node b) of product mm a concatenation cp.async can read, a row from one of its inputs:
 * linear's weight (ia[0] = 4, nothing else) of rank 2 concatenated along its rows (dim 0), of at
 * most 8 inputs each a tensor read as it is (an input, or a value f stores) with static rows? */
bool kg_mm_cat_of_sources(const kg_graph *g, const kg_fusion *f, const kg_gnode *mm, uint32_t b);
/* One single-pass reduction (sum, nansum, mean, prod, amax, amin), no row outputs: the column
 * schedules can give a thread several neighbouring outputs (kg_group_facts.col_vec) */
bool kg_group_col_vec(const kg_graph *g, const kg_group *grp);
bool kg_group_has_layout(const kg_graph *g, const kg_fusion *f, const kg_group *grp);

/* A source of a row reduction, for 128-bit row loads (run time). */
typedef struct kg_row_operand {
  uint32_t elem;              /* element size, bytes */
  bool varies;                /* its innermost dim has the row's extent (else broadcast along it) */
  int64_t inner_stride;       /* stride of its innermost dim, elements */
  uint64_t align;             /* address alignment, bytes (a power of two, at most 64) */
  uint64_t outer_stride_pow2; /* largest power of two (at most 64) dividing its other strides */
} kg_row_operand;

/* What a test may force on every group (kg_options.force_variant passes it through: the public
 * kg_force_variant of kgen.h has the same values). */
typedef enum kg_sched_force {
  KG_SCHED_FREE = 0,
  KG_SCHED_STRIDED = 1,     /* strided, no vectors, no warps, no splits */
  KG_SCHED_STRIDED_I64 = 2, /* the same with 64-bit indices */
  KG_SCHED_NO_VECTORS = 3,  /* linear where contiguous, without vector access */
  KG_SCHED_SPLIT_ROWS = 4,  /* the split-rows plan at any size */
  KG_SCHED_TILED = 5,       /* every product tiled (fold_products.c reads it) */
  KG_SCHED_TENSOR_CORES = 6,/* every product the tensor-core tier can take takes it, whatever its size */
  KG_SCHED_NO_TENSOR_CORES = 7, /* products on SIMT tiles only */
} kg_sched_force;

/* How float32 products run (kg_options.f32_matmul; the public kg_f32_matmul has the same values). */
typedef enum kg_sched_f32 {
  KG_SCHED_F32_SPLIT_TF32 = 0, /* tensor cores, split-TF32 (3 TF32 products): float32-class accuracy */
  KG_SCHED_F32_TF32 = 1,       /* tensor cores, one TF32 product (PyTorch's precision "high") */
  KG_SCHED_F32_SIMT = 2,       /* SIMT float32 fused multiply-adds (no tensor cores) */
} kg_sched_f32;

/* The facts of one moment. Compile time (runtime false): sizes may be unknown (-1), and
 * `contiguous` says the operands have the space's shape. Run time: actual sizes, and the
 * tensors' layout, alignment and extent. */
typedef struct kg_sched_facts {
  bool runtime;
  int64_t space[KG_MAX_RANK]; /* sizes of the iteration space, -1 unknown */
  bool contiguous;            /* every operand C-contiguous over the space */
  int64_t max_offset;         /* the largest element offset any operand is addressed at */
  uint32_t max_elem;          /* the widest element of any operand, bytes */
  uint64_t align;             /* the smallest address alignment of any operand, bytes (≤ 64) */
  const kg_row_operand *row;  /* the sources a row reduction reads */
  uint32_t n_row;
  uint8_t plan;               /* whose group: as kg_variant.plan */
  kg_sched_force force;       /* tests */
  uint32_t reduce_block;      /* threads per block override (0: chosen) */
  bool row_cache;             /* the row cache is allowed */
  /* MATMUL operands A and B: is K their contiguous dim (-1 unknown), and may cp.async read
   * them (a source, contiguous along one matrix dim, 16-byte aligned base and strides) */
  int8_t mm_kmajor[2];
  bool mm_async[2];
  bool mm_tma[2];             /* ... and TMA can bring it: 16-byte aligned, a matrix or a batch of them
                                 (its batch dims the product's, collapsible into one) */
  uint8_t f32_matmul;         /* a kg_sched_f32 (kg_options.f32_matmul): how float32 products run */
  int64_t mm_k;               /* MATMUL: this run's K (0: not known here; the group's static K then) */
} kg_sched_facts;

/* The scheduler's answer: the kernel variant and how it is launched. */
typedef struct kg_schedule {
  kg_variant v;
  uint32_t row_threads;       /* threads per block of the block-per-row schedules */
  int64_t nchunk, chunk;      /* a split reduction: chunks of the reduced dim, and their length;
                                 a split-K product: chunks of K, and their length in k-tiles */
} kg_schedule;

/* THE scheduling function: a group's facts, the moment's facts and the target in; the
 * variant out. Pure (no allocation, no graph). */
kg_schedule kg_schedule_choose(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t);
/* schedule_cpu.c: kg_schedule_choose's answer on the CPU target at run time (s: what it chose so
 * far; numel, nout, nred: the space's elements, outputs and reduced elements; big: the int32 limit) */
kg_schedule kg_schedule_cpu_choose(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, kg_schedule s, int64_t numel, int64_t nout,
                                   int64_t nred, int64_t big);
/* At run time: does this group of the fused plan want the split-rows plan (few rows too
 * long for a block each; KG_SCHED_SPLIT_ROWS always, KG_SCHED_STRIDED(_I64) never)? */
bool kg_schedule_split_rows(const kg_group_facts *gf, const int64_t *space, kg_sched_force force, const kg_target *t);
/* On the CPU device: is a folded product (MMFOLD: numel outputs, each a K-long dot product) better
 * run as a product kernel of its own (matmul.cpu, the unfold plan of runtime/exec_plans.c)? A
 * folded dot per output is one serial chain of multiply-adds (its order is the tiled kernel's,
 * so it cannot be split); the register blocks of matmul.cpu run 16 chains at once, vectorized.
 * Yes from KG_CPU_UNFOLD_MACS multiply-adds with K >= KG_CPU_UNFOLD_K. */
#define KG_CPU_UNFOLD_MACS ((int64_t)1 << 14)
#define KG_CPU_UNFOLD_K 16
bool kg_schedule_unfold(int64_t numel, int64_t k);
/* On the CPU device: an attention of `scores` query-key pairs (batch × queries × keys) as the math
 * path's kernels (the unfold plan: a product, a softmax row kernel, a product) rather than the
 * fused kernel on fibers? Yes while the score matrix it then stores (float32) stays within
 * KG_CPU_UNFUSED_ATTN_SCORES (256 MB): past it the fused kernel's O(T·d) memory wins. */
#define KG_CPU_UNFUSED_ATTN_SCORES ((int64_t)1 << 26)
bool kg_schedule_unfuse_attention(int64_t scores);
/* passes/merge_products.c: products of one input with separate weights (attention's q, k and v
 * projections, an MLP's gate and up) as one product over the weights' concatenation, when the
 * input has `rows` rows and the weights `bytes` bytes together; `by_rows`: every weight is a
 * tensor (an entry input) whose rows are a 16-byte multiple long, so that mma.sync's cp.async
 * copies the concatenation a row from its own weight (passes/lower_mma.c) as it would copy the
 * weights apart. Only where the products are bound by their launches rather than by how the
 * weights are read: fewer than KG_MERGE_SIBLING_ROWS rows (one block row of output tiles, every
 * weight element read once either way, and below the Hopper tier's 64 rows, kg_mm_hopper, whose
 * TMA reads a tensor, not a concatenation). Below KG_MM_TC_MIN_ROWS rows the products run on the
 * SIMT tiles, whose B prologue loads a weight of its own element by element too, and from there
 * by_rows weights are copied as they would be apart: weights of any size merge (a decode step's
 * q, k, v of a 4096-wide model). Other weights (a cast, a view) the merged product evaluates into
 * registers element by element, where apart each could have been copied (a mix with tensors):
 * at most KG_MERGE_SIBLING_BYTES of them (read in about a microsecond at 3-5 TB/s: less than a
 * launch). One launch instead of two or three, and the input read once. Not on the CPU device
 * (runtime/exec_plans.c: its schedule for few rows reads a weight's rows in place: the dot
 * schedule, KG_MM_CPU_DOT). Unmeasured on a GPU (docs/gpu.md). */
#define KG_MERGE_SIBLING_ROWS 64
#define KG_MERGE_SIBLING_BYTES ((int64_t)4 << 20)
/* rows below which no product takes the tensor-core tier (a 16-row mma.sync instruction tile
 * would be mostly padding: kg_mm_tensor_cores) */
#define KG_MM_TC_MIN_ROWS 16
bool kg_schedule_merge_siblings(int64_t rows, int64_t bytes, bool by_rows);
/* fuse.c: a norm's row statistics computed by the product that alone reads them (kg_group.pre),
 * instead of by a row kernel of their own before it, for A of `rows` rows (static; -1 unknown) of
 * `k` elements. Each block of the product reads its tile's rows of A once more before its K loop,
 * once per column tile: where rows are few (one row of output tiles, below KG_MERGE_SIBLING_ROWS)
 * the product is bound by its weights and its launch, so the extra read of A (rows x k, from L2)
 * costs less than the launch and the row kernel's own read it saves (a Llama or GPT layer's two
 * norms: 7 kernels become 5). At most KG_MM_ROW_STATS reductions, over rows of at most
 * KG_MM_ROW_STATS_K elements (a warp's walk of a row, one at a time per warp, before the tile's
 * first product). Unmeasured on a GPU (docs/gpu.md). */
#define KG_MM_ROW_STATS 4
#define KG_MM_ROW_STATS_K ((int64_t)1 << 16)
bool kg_schedule_row_stats(int64_t rows, int64_t k);
/* Can reduction r be a row statistic of product mm (kg_group.pre)? A sum, mean or variance of a
 * float16, bfloat16 or float32 result over the last dim only, keepdim, of a tensor shaped as the
 * product's A (2-D or more; not a convolution's, not a 1-D A) */
bool kg_mm_row_stat_ok(const kg_graph *g, const kg_gnode *mm, uint32_t r);
/* by_rows of kg_schedule_merge_siblings for weights w[0..n): each an entry's tensor [n_j, K]
 * whose rows (K static) are a 16-byte multiple long */
bool kg_merge_weights_by_rows(const kg_graph *g, const uint32_t *w, int n);

/* The policies kg_schedule_choose applies, for tests and benchmarks. */
uint32_t kg_reduce_row_threads(int64_t n_red);                     /* persistent row kernels: ~8 elements per thread, 128..1024 */
uint32_t kg_reduce_row_seg(int64_t n_red, uint32_t vec);          /* rows a warp takes, log2 (0..5), rows of n_red */
kg_mm_tile kg_mm_choose_tile(const kg_target *t, int64_t batch, int64_t m, int64_t n); /* sizes -1: unknown */
kg_mm_tile kg_mm_choose_tc_tile(const kg_target *t, int64_t batch, int64_t m, int64_t n);
/* Split-K for the mma.sync tier: into how many chunks of K (1: none) a product of `tiles` output
 * tiles over `ktiles` k-tiles splits, each `*chunk` k-tiles long (a multiple of `kblock`). */
int64_t kg_mm_split_k(const kg_target *t, int64_t tiles, int64_t ktiles, int64_t kblock, int64_t *chunk);
/* Does the Hopper tier take this product (both operands by TMA, 16-bit types, big enough)? */
bool kg_mm_hopper(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, int64_t m, int64_t n);
/* The tier variant v of a product runs on, and why (kgen explain): "tensor cores (mma.sync): ..." */
const char *kg_mm_tier_reason(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, const kg_variant *v, char *buf, size_t n);
bool kg_mm_tensor_cores(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, int64_t m, int64_t n);
/* A convolution's product runs the direct schedule (a thread per output over its window) when it
 * has at most 4 output channels per group and K (its window times input channels per group) is at
 * most 64: depthwise convolutions, where a tile would be mostly empty. */
bool kg_conv_direct(int64_t m, int64_t k);
/* The attention tile for batch (the product of the batch dims), l queries (-1: unknown), head dims
 * e, ev (static) and an accumulator of esz bytes. */
kg_attn_tile kg_attn_choose_tile(const kg_target *t, int64_t batch, int64_t l, int64_t e, int64_t ev, uint32_t esz);
/* Does the attention of group facts gf over l queries and value head dim ev take the
 * tensor-core tile (KG_ATTN_TC64)? float16 / bfloat16 q, k, v, head dims to
 * KG_ATTN_TC_DIM_MAX, sm_80 or later, not forced off; at least 16 queries unless forced on. */
struct kg_sched_facts;
bool kg_attn_tensor_cores(const struct kg_group_facts *gf, const struct kg_sched_facts *x, const kg_target *t, int64_t l, int64_t ev);
bool kg_reduce_use_columns(bool inner_kept, int64_t n_out, int64_t n_red); /* a thread per output */
int64_t kg_reduce_split_chunks(const kg_target *t, bool columns, int64_t n_out, int64_t n_red); /* 1 = no split */
bool kg_group_splittable(const kg_graph *g, const kg_group *grp);
bool kg_red_op_splittable(kg_op op); /* sum, nansum, mean, prod, amax, amin */
/* accumulators a split group's partial kernel stores per chunk and output: 3 for a variance
 * (Welford's count, mean and M2; a mean paired with it takes its mean from them), 2 for a max
 * and its online sum of exp (the chunk's max, and its sum relative to it), else 1 (its scratch
 * is chunks × slots × outputs of kg_split_dtype) */
uint32_t kg_split_slots(const kg_graph *g, const kg_group *grp);
kg_dtype kg_split_dtype(const kg_graph *g, const kg_group *grp); /* the scratch's: the widest accumulator of the group */
/* Is group grp a max and the sum of exp(x − shift(max)) online softmax takes along in its walk
 * (kg_lw_online_sum: softmax, log_softmax, logsumexp, cross_entropy), and nothing else? The
 * split-rows plan keeps them in one group, so that a split reads the row once for both
 * (lower_reduce.c). */
bool kg_group_online_pair(const kg_graph *g, const kg_group *grp);
/* Is group grp a mean and the variance of the same input Welford's pairing takes along
 * (kg_lw_welford_next), and nothing else? The split-rows plan keeps them in one group, so
 * that a split reads the row once for both (fuse.c; lower_reduce.c). */
bool kg_group_welford_pair(const kg_graph *g, const kg_group *grp);
uint32_t kg_group_max_vec(const kg_graph *g, const kg_fusion *f, const kg_group *grp);

/* ---- plan_regions.c ---- */
/* Partitions an elaborated plan over program g (see the file comment). */
bool kg_plan_partition(kg_plan *p, kg_graph *g, kg_pass_ctx *c);
/* plan_inplace.c: called by kg_plan_partition between forming regions and their inputs /
 * outputs; region_of maps a node to its region (updated). */
void kg_plan_inplace(kg_plan *p, const kg_graph *g, uint32_t *region_of);
/* Region ri as a typed program (out initialised by the caller): parameter i is
 * region input i, output k region output k. */
void kg_plan_region_graph(const kg_plan *p, const kg_graph *g, uint32_t ri, kg_graph *out);

/* ---- pipeline.c ---- */
/* Runs the graph passes on g to a fixed point (g is then the program the
 * TorchScript twin is emitted from), decomposes it into the lowering program lg
 * (initialised by the caller), runs the passes on lg, and fuses lg. */
bool kg_pipeline_run(kg_graph *g, kg_graph *lg, kg_fusion *f, kg_pass_ctx *c);
/* Its first half: g's passes, lg decomposed from g and lg's passes (no folding of products, no
 * fusion): the program reverse-mode differentiation works on (runtime/grad.c). */
bool kg_pipeline_lower(kg_graph *g, kg_graph *lg, kg_pass_ctx *c);

#endif
