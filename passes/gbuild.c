/* passes/gbuild.c — the typed-program node builder of gbuild.h (the loss expansions and the
 * backward program write their nodes through it). */
#include <string.h>

#include "gbuild.h"

static kg_gnode blank(const kg_gb *b) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.vkind = KG_V_TENSOR;
  n.path = b->path, n.srcloc = b->srcloc;
  return n;
}

uint32_t kg_gb_add(kg_gb *b, const kg_gnode *n) {
  kg_gnode c = *n;
  if (!c.path) c.path = b->path;
  if (!c.srcloc) c.srcloc = b->srcloc;
  return kg_graph_add(b->g, &c);
}

uint32_t kg_gb_const(kg_gb *b, kg_dtype dt, double v) {
  kg_gnode n = blank(b);
  n.op = KG_OP_CONST, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = KG_V_SCALAR;
  if (kg_dtype_is_float(dt)) n.fa[0] = v;
  else n.ia[0] = dt == KG_BOOL ? v != 0 : (int64_t)v;
  return kg_graph_add(b->g, &n);
}

/* the broadcast shape of the tensor operands (scalars take no part) */
static void operands_shape(const kg_gb *b, const uint32_t *in, int k, kg_gnode *n) {
  bool any = false;
  for (int j = 0; j < k; j++) {
    const kg_gnode *o = kg_gb_n(b, in[j]);
    if (o->vkind != KG_V_TENSOR) continue;
    if (!any) n->shape = o->shape, any = true;
    else {
      kg_shape s;
      if (kg_shape_broadcast(&n->shape, &o->shape, &s, NULL, NULL, NULL)) n->shape = s;
    }
  }
  if (!any) n->vkind = KG_V_SCALAR, n->shape.rank = 0;
}

uint32_t kg_gb_opa(kg_gb *b, kg_op op, kg_dtype dt, uint32_t a, uint32_t c, int64_t ia0, const double *fa) {
  kg_gnode n = blank(b);
  uint32_t in[2] = {a, c};
  int k = c == KG_NONE ? 1 : 2;
  n.op = (uint16_t)op, n.n_in = (uint8_t)k, n.in[0] = a, n.in[1] = c;
  n.dtype = n.cdtype = (uint8_t)dt;
  unsigned fl = kg_op_get(op)->flags;
  if (fl & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED)) n.dtype = KG_BOOL;
  n.ia[0] = ia0;
  if (fa) memcpy(n.fa, fa, sizeof n.fa);
  operands_shape(b, in, k, &n);
  return kg_graph_add(b->g, &n);
}

uint32_t kg_gb_op(kg_gb *b, kg_op op, kg_dtype dt, uint32_t a, uint32_t c, uint32_t d) {
  if (d == KG_NONE) return kg_gb_opa(b, op, dt, a, c, 0, NULL);
  kg_gnode n = blank(b);
  uint32_t in[3] = {a, c, d};
  n.op = (uint16_t)op, n.n_in = 3, n.in[0] = a, n.in[1] = c, n.in[2] = d;
  n.dtype = n.cdtype = (uint8_t)dt;
  operands_shape(b, in, 3, &n);
  return kg_graph_add(b->g, &n);
}

uint32_t kg_gb_where(kg_gb *b, kg_dtype dt, uint32_t cond, uint32_t x, uint32_t y) {
  return kg_gb_op(b, KG_OP_WHERE, dt, cond, x, y);
}

uint32_t kg_gb_cast(kg_gb *b, uint32_t x, kg_dtype t) {
  const kg_gnode *xn = kg_gb_n(b, x);
  if (xn->dtype == t) return x;
  if (xn->op == KG_OP_CONST) return kg_gb_const(b, t, kg_dtype_is_float((kg_dtype)xn->dtype) ? xn->fa[0] : (double)xn->ia[0]);
  kg_gnode n = blank(b);
  n.op = KG_OP_CAST, n.n_in = 1, n.in[0] = x, n.dtype = n.cdtype = (uint8_t)t;
  n.vkind = xn->vkind, n.shape = xn->shape;
  return kg_graph_add(b->g, &n);
}

uint32_t kg_gb_detach(kg_gb *b, uint32_t x, kg_dtype t) {
  const kg_gnode *xn = kg_gb_n(b, x);
  kg_gnode n = blank(b);
  n.op = KG_OP_CAST, n.n_in = 1, n.in[0] = x, n.dtype = n.cdtype = (uint8_t)t, n.ia[1] = 1;
  n.vkind = xn->vkind, n.shape = xn->shape;
  return kg_graph_add(b->g, &n);
}

uint32_t kg_gb_reduce(kg_gb *b, kg_op op, kg_dtype dt, kg_dtype acc, uint32_t x, int64_t mask, bool keep, double fa0) {
  const kg_shape xs = kg_gb_n(b, x)->shape;
  kg_gnode n = blank(b);
  n.op = (uint16_t)op, n.dtype = (uint8_t)dt, n.cdtype = (uint8_t)acc, n.n_in = 1, n.in[0] = x;
  n.ia[0] = mask, n.ia[1] = keep, n.fa[0] = fa0;
  for (int d = 0; d < xs.rank; d++) {
    if (!((mask >> d) & 1)) n.shape.d[n.shape.rank++] = xs.d[d];
    else if (keep) n.shape.d[n.shape.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  }
  return kg_graph_add(b->g, &n);
}

uint32_t kg_gb_layout(kg_gb *b, kg_op op, uint32_t x, uint32_t in1, const kg_shape *sh, const int64_t *ia, const double *fa) {
  kg_gnode n = blank(b);
  n.op = (uint16_t)op, n.n_in = in1 == KG_NONE ? 1 : 2, n.in[0] = x, n.in[1] = in1;
  n.dtype = n.cdtype = kg_gb_n(b, x)->dtype;
  n.shape = *sh;
  if (ia) memcpy(n.ia, ia, sizeof n.ia);
  if (fa) memcpy(n.fa, fa, sizeof n.fa);
  return kg_graph_add(b->g, &n);
}

uint32_t kg_gb_reshape(kg_gb *b, uint32_t x, const kg_shape *sh) {
  if (kg_shape_equal(&kg_gb_n(b, x)->shape, sh)) return x;
  return kg_gb_layout(b, KG_OP_RESHAPE, x, KG_NONE, sh, NULL, NULL);
}

uint32_t kg_gb_expand(kg_gb *b, uint32_t x, const kg_shape *sh) {
  const kg_gnode *xn = kg_gb_n(b, x);
  if (xn->vkind == KG_V_SCALAR) { /* a number everywhere: FILL */
    kg_gnode n = blank(b);
    n.op = KG_OP_FILL, n.n_in = 1, n.in[0] = x, n.dtype = n.cdtype = xn->dtype, n.shape = *sh;
    return kg_graph_add(b->g, &n);
  }
  if (kg_shape_equal(&xn->shape, sh)) return x;
  return kg_gb_layout(b, KG_OP_EXPAND, x, KG_NONE, sh, NULL, NULL);
}

uint32_t kg_gb_arange(kg_gb *b, kg_dtype dt, kg_dim n) {
  kg_gnode g = blank(b);
  g.op = KG_OP_ARANGE, g.dtype = g.cdtype = (uint8_t)dt;
  g.shape.rank = 1, g.shape.d[0] = n;
  g.fa[0] = 0, g.fa[1] = 1;
  return kg_graph_add(b->g, &g);
}

uint32_t kg_gb_zeros(kg_gb *b, kg_dtype dt, const kg_shape *sh) { return kg_gb_expand(b, kg_gb_const(b, dt, 0), sh); }
