/* passes/gbuild.h — a small builder of typed-program nodes for the passes that write programs
 * (decompose_loss.c: the loss functions' expansions; autodiff*.c: the backward program).
 *
 * Every node gets the builder's location (path, srcloc: the op being expanded or differentiated,
 * so errors and `kgen explain` point at the F# call). Shapes follow PyTorch broadcasting
 * (kg_shape_broadcast: elaboration checked the operands already); a pointwise node computes in
 * its result dtype (cdtype = dtype), a comparison in its operands' dtype `dt` with a bool result.
 * Operands that are scalars (vkind KG_V_SCALAR: CONST nodes, .NET numbers) take the tensor
 * operands' shape. */
#ifndef KG_GBUILD_H
#define KG_GBUILD_H

#include "passes.h"

typedef struct kg_gb {
  kg_graph *g;
  const char *path, *srcloc; /* stamped on every new node */
} kg_gb;

static inline const kg_gnode *kg_gb_n(const kg_gb *b, uint32_t id) { return &b->g->nodes.v[id]; }
uint32_t kg_gb_add(kg_gb *b, const kg_gnode *n);
/* a scalar constant of dtype dt (a float in fa[0], an integer or bool in ia[0]) */
uint32_t kg_gb_const(kg_gb *b, kg_dtype dt, double v);
/* pointwise op over 1-3 operands computing and yielding dt (comparisons and predicates: bool,
 * computed in dt); ia0 / fa: the op's attributes (may be 0 / NULL) */
uint32_t kg_gb_op(kg_gb *b, kg_op op, kg_dtype dt, uint32_t a, uint32_t c, uint32_t d);
uint32_t kg_gb_opa(kg_gb *b, kg_op op, kg_dtype dt, uint32_t a, uint32_t c, int64_t ia0, const double *fa);
static inline uint32_t kg_gb_1(kg_gb *b, kg_op op, kg_dtype dt, uint32_t a) { return kg_gb_op(b, op, dt, a, KG_NONE, KG_NONE); }
static inline uint32_t kg_gb_2(kg_gb *b, kg_op op, kg_dtype dt, uint32_t a, uint32_t c) { return kg_gb_op(b, op, dt, a, c, KG_NONE); }
uint32_t kg_gb_where(kg_gb *b, kg_dtype dt, uint32_t cond, uint32_t x, uint32_t y);
/* x converted to t (x itself when it has dtype t) */
uint32_t kg_gb_cast(kg_gb *b, uint32_t x, kg_dtype t);
/* x converted to t through which no gradient flows (a CAST with ia[1] = 1, even to x's own dtype:
 * PyTorch's non-differentiable arguments) */
uint32_t kg_gb_detach(kg_gb *b, uint32_t x, kg_dtype t);
/* a reduction of x over the dims in mask, keepdim or not, accumulating in acc; fa0 = RVAR's
 * correction */
uint32_t kg_gb_reduce(kg_gb *b, kg_op op, kg_dtype dt, kg_dtype acc, uint32_t x, int64_t mask, bool keep, double fa0);
/* a layout node over x (operand 2: in1, or KG_NONE) of shape sh and x's dtype */
uint32_t kg_gb_layout(kg_gb *b, kg_op op, uint32_t x, uint32_t in1, const kg_shape *sh, const int64_t *ia, const double *fa);
/* x viewed as sh (x itself when the shapes are equal) */
uint32_t kg_gb_reshape(kg_gb *b, uint32_t x, const kg_shape *sh);
/* x broadcast to sh (EXPAND; x itself when equal) */
uint32_t kg_gb_expand(kg_gb *b, uint32_t x, const kg_shape *sh);
/* arange(n) of dtype dt as a 1-D [n] node (n a static size or a symbol) */
uint32_t kg_gb_arange(kg_gb *b, kg_dtype dt, kg_dim n);
/* zeros of shape sh and dtype dt (FILL of a constant 0) */
uint32_t kg_gb_zeros(kg_gb *b, kg_dtype dt, const kg_shape *sh);
/* the compute dtype of values of dtype t: float32 for float16 / bfloat16 */
static inline kg_dtype kg_gb_ct(kg_dtype t) { return t == KG_F16 || t == KG_BF16 ? KG_F32 : t; }
static inline kg_shape kg_gb_shape0(void) {
  kg_shape s;
  s.rank = 0;
  return s;
}

#endif
