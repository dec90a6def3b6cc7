/* passes/passes.h — IR → IR transformations, one per file, run by pipeline.c.
 *
 * Graph passes (typed tensor program, in place):
 *   fold.c  — constant folding of scalar ops with run-time semantics (ir/eval.c)
 *   cse.c   — common subexpression elimination (hash-consing of pure nodes)
 *   dce.c   — dead-node elimination and renumbering
 * Kernel formation:
 *   fuse.c  — fusion: groups the entry's outputs by iteration space; each group is
 *             one kernel that computes every pointwise producer inline (recomputing
 *             broadcast intermediates), so intermediates never touch memory
 *   lower.c — builds the kernel IR of one group for a layout variant (the pointwise
 *             schedule: flattened index, 32/64-bit index math, stride-0 broadcasting,
 *             128-bit vector access), inlining map functions
 *   pipeline.c — the pass list, verification after every pass, per-pass log/timing.
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
} kg_pass_ctx;

/* ---- graph passes: return true when the graph changed ---- */
bool kg_pass_fold(kg_graph *g, kg_pass_ctx *c);
bool kg_pass_cse(kg_graph *g, kg_pass_ctx *c);
bool kg_pass_dce(kg_graph *g, kg_pass_ctx *c);
/* Rewrites every use of node i to repl[i] (repl[i] <= i). */
void kg_graph_replace_uses(kg_graph *g, const uint32_t *repl);

/* ---- fuse.c ---- */
typedef struct kg_group {
  kg_shape space;          /* iteration space (the outputs' common shape) */
  KG_VEC(uint32_t) outs;   /* indices into g->outputs */
} kg_group;

typedef struct kg_fusion {
  KG_VEC(kg_group) groups;
} kg_fusion;

void kg_pass_fuse(const kg_graph *g, kg_fusion *f, kg_pass_ctx *c);
void kg_fusion_free(kg_fusion *f);
void kg_fusion_print(const kg_graph *g, const kg_fusion *f, kg_strbuf *out);

/* ---- lower.c ---- */
typedef enum kg_layout {
  KG_LAYOUT_LINEAR = 0, /* every operand contiguous with the iteration space's shape: offset = index */
  KG_LAYOUT_STRIDED = 1 /* general: per-operand strides (0 = broadcast), coordinates from the index */
} kg_layout;

typedef struct kg_variant {
  uint8_t layout;      /* kg_layout */
  uint8_t vec;         /* LINEAR: elements per vector access (1, 2, 4, 8) */
  uint8_t index_dtype; /* KG_I32 or KG_I64 */
} kg_variant;

/* The widest vector (elements) for a group: 16 bytes over its widest operand, at most 8. */
uint32_t kg_group_max_vec(const kg_graph *g, const kg_group *grp);
/* Builds the kernel for group `grp` in variant `v`. */
bool kg_lower_group(const kg_graph *g, const kg_group *grp, const kg_variant *v, const char *name,
                    kg_kernel *k, kg_pass_ctx *c);

/* ---- pipeline.c ---- */
/* Runs the graph passes to a fixed point, then fusion. */
bool kg_pipeline_run(kg_graph *g, kg_fusion *f, kg_pass_ctx *c);

#endif
