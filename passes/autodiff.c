/* passes/autodiff.c — reverse-mode differentiation of the typed tensor program (issue 24): the
 * driver. autodiff.h maps the rules' files.
 *
 * Input: the lowering program lg (passes/decompose.c has expanded every composite: softmax,
 * layer_norm, batch_norm, linear, conv, the losses are reductions, products and pointwise ops)
 * and the parameters whose gradients are wanted. Then:
 *   1. which forward values need gradients: a float value that depends on a wanted parameter
 *      through differentiable ops. Integer and bool values have none (PyTorch: no grad_fn), nor
 *      have comparisons, argmax, casts to integers, random draws, factories, nor the max a
 *      decomposition subtracts for stability (softmax, log_softmax, logsumexp, cross_entropy:
 *      their result does not depend on it, so its gradient is exactly 0: a stop-gradient);
 *   2. the results' gradients (the caller's, one INPUT each) are propagated in reverse node order:
 *      each value's rule adds its operands' contributions, summed over the dims the operand was
 *      broadcast along and converted to its dtype (kg_ad_acc);
 *   3. autodiff_split.c cuts the joint program into the forward (which saves what the backward
 *      reads) and the backward.
 * Gradients are computed in float32 for float16 / bfloat16 values and rounded once per rule, as
 * PyTorch's backward kernels round each op's result. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "autodiff.h"

void kg_ad_fail(kg_ad *A, uint32_t v, const char *fmt, ...) {
  if (A->ok) {
    const kg_gnode *n = v < A->j->nodes.n ? kg_ad_n(A, v) : NULL;
    kg_strbuf b;
    kg_sb_init(&b);
    kg_sb_puts(&b, "gradients: ");
    va_list ap;
    va_start(ap, fmt);
    kg_sb_vprintf(&b, fmt, ap);
    va_end(ap);
    kg_diag_add(A->d, KG_E_UNSUPPORTED, n ? n->path : NULL, n ? n->srcloc : NULL, "%s", kg_sb_cstr(&b));
    kg_sb_free(&b);
  }
  A->ok = false;
}

uint32_t kg_ad_sum_to(kg_ad *A, uint32_t x, const kg_shape *to) {
  const kg_shape xs = kg_ad_n(A, x)->shape;
  int lead = xs.rank - to->rank;
  int64_t mask = 0;
  for (int i = 0; i < xs.rank; i++) {
    if (i < lead) mask |= (int64_t)1 << i;
    else {
      const kg_dim *t = &to->d[i - lead], *d = &xs.d[i];
      if (t->kind == KG_DIM_STATIC && t->v == 1 && !(d->kind == KG_DIM_STATIC && d->v == 1)) mask |= (int64_t)1 << i;
    }
  }
  if (!mask) return kg_gb_reshape(&A->b, x, to);
  kg_dtype dt = (kg_dtype)kg_ad_n(A, x)->dtype;
  uint32_t r = kg_gb_reduce(&A->b, KG_OP_RSUM, dt, kg_dtype_is_float(dt) ? KG_F64 : KG_I64, x, mask, true, 0);
  return kg_gb_reshape(&A->b, r, to);
}

uint32_t kg_ad_count(kg_ad *A, const kg_shape *s, int64_t mask, kg_dtype ct) {
  double n = 1;
  bool sym = false;
  for (int i = 0; i < s->rank; i++)
    if ((mask >> i) & 1) {
      if (s->d[i].kind == KG_DIM_STATIC) n *= (double)s->d[i].v;
      else sym = true;
    }
  if (!sym) return kg_gb_const(&A->b, ct, n);
  uint32_t one = kg_gb_expand(&A->b, kg_gb_const(&A->b, ct, 1), s);
  return kg_gb_reduce(&A->b, KG_OP_RSUM, ct, KG_F64, one, mask, true, 0);
}

void kg_ad_acc(kg_ad *A, uint32_t u, uint32_t contrib) {
  if (u >= A->nf || !A->rg[u] || contrib == KG_NONE) return;
  const kg_gnode un = *kg_ad_n(A, u);
  uint32_t c = contrib;
  if (kg_ad_n(A, c)->vkind == KG_V_SCALAR) c = kg_gb_expand(&A->b, c, &un.shape);
  else if (!kg_shape_equal(&kg_ad_n(A, c)->shape, &un.shape)) {
    kg_shape s;
    bool bc = kg_shape_broadcast(&kg_ad_n(A, c)->shape, &un.shape, &s, NULL, NULL, NULL);
    /* a contribution that only broadcasts to u's shape (a sum's gradient [N, 1] of a value
     * [N, 64]) stays as it is: the pointwise ops that read the gradient broadcast it, so a row
     * kernel's output reads the row's value (an EXPAND view of a reduction would take it out of
     * the row kernel); kg_ad_grad expands it where a rule needs the full shape */
    if (!(bc && kg_shape_equal(&s, &un.shape))) {
      if (bc && !kg_shape_equal(&s, &kg_ad_n(A, c)->shape)) c = kg_gb_expand(&A->b, c, &s);
      c = kg_ad_sum_to(A, c, &un.shape);
    }
  }
  kg_dtype od = A->op_dtype;
  if (od != KG_DT_NONE && kg_dtype_is_float(od) && kg_dtype_is_float((kg_dtype)un.dtype) &&
      kg_dtype_get(od)->size < kg_dtype_get((kg_dtype)un.dtype)->size)
    c = kg_gb_cast(&A->b, c, od);
  /* a half-precision value's gradient is carried in float32 (its contributions summed there):
   * rounding each to half would cancel (softmax's g / s - Σ g e / s²); the parameter's gradient
   * is rounded once at the end */
  kg_dtype at = kg_gb_ct((kg_dtype)un.dtype);
  c = kg_gb_cast(&A->b, c, at);
  if (A->adj[u] == KG_NONE) A->adj[u] = c;
  else A->adj[u] = kg_gb_2(&A->b, KG_OP_ADD, at, A->adj[u], c);
}

void kg_ad_zero(kg_ad *A, uint32_t u) {
  if (u >= A->nf || !A->rg[u]) return;
  const kg_gnode un = *kg_ad_n(A, u);
  kg_ad_acc(A, u, kg_gb_zeros(&A->b, (kg_dtype)un.dtype, &un.shape));
}

/* Does op carry a gradient from its float operands to its (float) value? (step 1) */
static bool differentiable(const kg_gnode *n) {
  const kg_op_info *oi = kg_op_get((kg_op)n->op);
  if (oi->flags & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED | KG_OPF_BITS | KG_OPF_CREATE)) return false;
  switch (n->op) {
  case KG_OP_CONST:
  case KG_OP_PLANVAL:
  case KG_OP_RARGMAX:
  case KG_OP_RARGMIN:
  case KG_OP_RAND:
  case KG_OP_ARANGE:
  case KG_OP_EYE:
  case KG_OP_LINSPACE:
  case KG_OP_FILL:
  case KG_OP_IDIV:
    return false;
  case KG_OP_RAMAX:
  case KG_OP_RAMIN: return n->ia[2] != 1; /* a decomposition's own max: a stop-gradient */
  case KG_OP_CAST: return n->ia[1] != 1;  /* a detached value (a loss's class weights) */
  default: return true;
  }
}

static void mark_needs(kg_ad *A, const kg_graph *lg, const uint8_t *wants) {
  for (uint32_t i = 0; i < lg->params.n; i++) {
    const kg_gnode *n = &lg->nodes.v[lg->params.v[i].node];
    if (wants[i] && n->vkind == KG_V_TENSOR && kg_dtype_is_float((kg_dtype)n->dtype)) A->rg[lg->params.v[i].node] = 1;
  }
  for (uint32_t v = 0; v < A->nf; v++) {
    const kg_gnode *n = &lg->nodes.v[v];
    if (n->op == KG_OP_INPUT || !kg_dtype_is_float((kg_dtype)n->dtype) || !differentiable(n)) continue;
    for (int j = 0; j < n->n_in; j++)
      if (A->rg[n->in[j]]) A->rg[v] = 1;
  }
}

uint32_t kg_ad_grad(kg_ad *A, uint32_t v) {
  uint32_t g = A->adj[v];
  if (g == KG_NONE) return g;
  const kg_shape vs = kg_ad_n(A, v)->shape;
  if (!kg_shape_equal(&kg_ad_n(A, g)->shape, &vs)) A->adj[v] = g = kg_gb_expand(&A->b, g, &vs);
  return g;
}

/* the reverse sweep over forward node v */
static void sweep(kg_ad *A, uint32_t v) {
  const kg_gnode *n = kg_ad_n(A, v);
  A->b.path = n->path, A->b.srcloc = n->srcloc;
  A->op_dtype = (kg_dtype)n->dtype;
  /* pointwise rules read the gradient broadcast as it is when every operand that wants a
   * gradient has v's shape; the others (and a broadcast operand, whose gradient sums v's
   * broadcast dims: an unexpanded gradient would lose them) want it in v's shape */
  bool pointwise = !(kg_op_get((kg_op)n->op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_LAYOUT | KG_OPF_MATMUL | KG_OPF_COMPOSITE | KG_OPF_MAP));
  for (int j = 0; pointwise && j < n->n_in; j++) {
    const kg_gnode *u = kg_ad_n(A, n->in[j]);
    if (A->rg[n->in[j]] && (u->vkind != n->vkind || !kg_shape_equal(&u->shape, &n->shape))) pointwise = false;
  }
  uint32_t g = pointwise ? A->adj[v] : kg_ad_grad(A, v);
  n = kg_ad_n(A, v);
  if (kg_ad_rule_pointwise(A, v, g) || kg_ad_rule_reduce(A, v, g) || kg_ad_rule_product(A, v, g) || kg_ad_rule_layout(A, v, g)) return;
  if (n->op == KG_OP_MAP)
    kg_ad_fail(A, v, "a map lambda (Kgen.Ops.map) is scalar F# code kgen does not differentiate; write it with tensor ops");
  else
    kg_ad_fail(A, v, "%s is not differentiable by kgen", kg_op_name((kg_op)n->op));
}

void kg_grad_programs_free(kg_grad_programs *p) {
  kg_graph_free(&p->fwd);
  kg_graph_free(&p->bwd);
  free(p->bwd_params);
  free(p->grads);
  free(p->explain);
  p->bwd_params = NULL, p->grads = NULL, p->explain = NULL;
}

bool kg_pass_autodiff(const kg_graph *lg, const uint8_t *wants, const int64_t *sym_hint, kg_grad_programs *out, kg_pass_ctx *c) {
  kg_graph j;
  kg_graph_init(&j, lg->arena, lg->entry);
  kg_graph_clone(&j, lg);
  kg_ad A;
  memset(&A, 0, sizeof A);
  A.j = &j, A.nf = lg->nodes.n, A.d = c->d, A.ok = true, A.op_dtype = KG_DT_NONE;
  A.b.g = &j;
  A.rg = kg_xcalloc(A.nf + 1, 1);
  A.adj = kg_xmalloc((A.nf + 1) * sizeof *A.adj);
  for (uint32_t i = 0; i < A.nf; i++) A.adj[i] = KG_NONE;
  mark_needs(&A, lg, wants);
  /* the results' gradients: one parameter each for a float result that needs one */
  uint32_t nres = kg_graph_n_results(lg);
  uint32_t *grad_in = kg_xmalloc((nres + 1) * sizeof *grad_in);
  for (uint32_t i = 0; i < nres; i++) {
    uint32_t o = lg->outputs.v[i];
    const kg_gnode on = lg->nodes.v[o];
    grad_in[i] = KG_NONE;
    if (!A.rg[o] || on.vkind != KG_V_TENSOR) continue;
    kg_gnode in;
    memset(&in, 0, sizeof in);
    in.op = KG_OP_INPUT, in.dtype = in.cdtype = on.dtype, in.vkind = KG_V_TENSOR, in.shape = on.shape;
    in.ia[0] = i, in.path = on.path, in.srcloc = on.srcloc;
    grad_in[i] = kg_graph_add(&j, &in);
    kg_ad_acc(&A, o, grad_in[i]);
  }
  for (uint32_t v = A.nf; v-- > 0 && A.ok;)
    if (A.adj[v] != KG_NONE && A.rg[v] && j.nodes.v[v].op != KG_OP_INPUT) sweep(&A, v);
  uint32_t *param_grad = kg_xmalloc((lg->params.n + 1) * sizeof *param_grad);
  for (uint32_t i = 0; i < lg->params.n; i++) {
    uint32_t node = lg->params.v[i].node;
    param_grad[i] = A.rg[node] && A.ok ? kg_ad_grad(&A, node) : KG_NONE;
    if (param_grad[i] != KG_NONE) param_grad[i] = kg_gb_cast(&A.b, param_grad[i], (kg_dtype)j.nodes.v[node].dtype);
    /* an in-place update of a parameter that wants its gradient: PyTorch refuses it on a leaf */
    if (A.ok && wants[i] && lg->params.v[i].wb && A.rg[node])
      kg_ad_fail(&A, lg->outputs.v[lg->params.v[i].wb - 1], "'%s' requires grad and is updated in place (PyTorch: a leaf Variable that requires grad is being used in an in-place operation)",
                 lg->params.v[i].name);
  }
  bool ok = A.ok && kg_ad_split(&A, lg, grad_in, param_grad, sym_hint, out, c);
  free(grad_in), free(param_grad), free(A.rg), free(A.adj);
  kg_graph_free(&j);
  return ok;
}
