/* passes/autodiff.h — reverse-mode differentiation of the typed tensor program, internal to the
 * autodiff passes (the interface is kg_pass_autodiff in passes.h):
 *
 *   autodiff.c         the driver: which values need gradients, the reverse sweep over the
 *                      lowering program (composites already decomposed), gradients accumulated
 *                      and summed back over broadcast dims
 *   autodiff_pw.c      the pointwise ops' derivatives (PyTorch's derivatives.yaml formulas and its
 *                      choices at non-differentiable points)
 *   autodiff_red.c     reductions, scans, matrix products (products' gradients are products, the
 *                      transposed operand read in place) and convolutions (the input's gradient a
 *                      transposed convolution, the weight's a product over images and positions)
 *   autodiff_layout.c  views, slices, joins, indexing, windows: each layout op's adjoint
 *   autodiff_split.c   what the forward saves and what the backward recomputes (a minimum cut
 *                      of bytes moved), the forward and backward programs, the explain text
 *
 * The reverse sweep writes the backward's nodes into a joint program j: a copy of the forward
 * (its nodes keep their ids 0 .. nf - 1), then the gradients' nodes; autodiff_split.c cuts it in
 * two. */
#ifndef KG_AUTODIFF_H
#define KG_AUTODIFF_H

#include "gbuild.h"

typedef struct kg_ad {
  kg_gb b;           /* builds into j; path / srcloc of the op being differentiated */
  kg_graph *j;       /* the joint program */
  uint32_t nf;       /* forward nodes: j's nodes 0 .. nf - 1 */
  uint8_t *rg;       /* per forward node: depends on a wanted parameter through differentiable ops */
  uint32_t *adj;     /* per forward node: its gradient's node in j (KG_NONE: none) */
  kg_diag *d;
  bool ok;
  kg_dtype op_dtype; /* the dtype of the op being differentiated (sweep sets it) */
} kg_ad;

static inline const kg_gnode *kg_ad_n(const kg_ad *A, uint32_t id) { return &A->j->nodes.v[id]; }
/* Records a located error at forward node v ("gradients: ...") and marks the sweep failed. */
void kg_ad_fail(kg_ad *A, uint32_t v, const char *fmt, ...) KG_PRINTF(3, 4);
/* Adds `contrib` (a value broadcastable to operand u's shape) to u's gradient: summed over the
 * dims u was broadcast along, converted to u's dtype; nothing when u needs no gradient. A
 * contribution to an operand of a wider float dtype than the op's (a float64 0-dim added to a
 * float16 tensor) is rounded to the op's dtype first: PyTorch's formula yields the op's dtype and
 * its engine converts it to the operand's. */
void kg_ad_acc(kg_ad *A, uint32_t u, uint32_t contrib);
/* x summed over its dims that `to` broadcasts (leading extra dims, static 1s), viewed as `to` */
uint32_t kg_ad_sum_to(kg_ad *A, uint32_t x, const kg_shape *to);
/* the number of elements of dims `mask` of shape s as a value of dtype ct (a constant, or a sum
 * of ones when a size is symbolic) */
uint32_t kg_ad_count(kg_ad *A, const kg_shape *s, int64_t mask, kg_dtype ct);
/* v's gradient in v's shape (expanded when it was accumulated only broadcastable to it) */
uint32_t kg_ad_grad(kg_ad *A, uint32_t v);
/* the zeros a derivative that is 0 everywhere gives operand u (PyTorch: zeros_like) */
void kg_ad_zero(kg_ad *A, uint32_t u);

/* The rules: forward node v's operands' gradients, given v's gradient g. Each returns false when
 * v is not one of its ops. */
bool kg_ad_rule_pointwise(kg_ad *A, uint32_t v, uint32_t g);
bool kg_ad_rule_reduce(kg_ad *A, uint32_t v, uint32_t g);
bool kg_ad_rule_product(kg_ad *A, uint32_t v, uint32_t g);
bool kg_ad_rule_layout(kg_ad *A, uint32_t v, uint32_t g);

/* autodiff_split.c: the forward and backward programs from the joint one (out->fwd / bwd
 * initialised by the caller) */
bool kg_ad_split(kg_ad *A, const kg_graph *lg, const uint32_t *grad_in, const uint32_t *param_grad, const int64_t *sym_hint,
                 kg_grad_programs *out, kg_pass_ctx *c);

#endif
