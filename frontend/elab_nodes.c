/* frontend/elab_nodes.c — elaboration's graph node construction: a node added with its JSON path
 * and F# position, constants as nodes, broadcasting of two shapes (a located error naming both),
 * and a tensor op's node — its dtype by PyTorch's type promotion, its shape by broadcasting or the
 * op's own rule, its operand classes checked. elab.c evaluates the quotation and calls these; so
 * do the member handlers (calls.c and the files beside it). Split from elab.c unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#define ev_is_tensor kg_ev_is_tensor
#define gnode kg_elab_gnode

#define ev_node kg_ev_node
uint32_t kg_elab_add_node(kg_elab *el, const kg_ast *at, kg_gnode *n) {
  n->path = at ? at->path : NULL;
  n->srcloc = at ? kg_fe_srcloc(el->arena, el->doc, at) : NULL;
  return kg_graph_add(el->g, n);
}
#define add_node kg_elab_add_node

static uint32_t const_node(kg_elab *el, const kg_ast *at, kg_cval c) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_CONST;
  n.dtype = (uint8_t)c.dt;
  n.cdtype = (uint8_t)c.dt;
  n.vkind = KG_V_SCALAR;
  if (kg_dtype_is_float(c.dt)) n.fa[0] = c.f;
  else n.ia[0] = c.i;
  return add_node(el, at, &n);
}

/* Any scalar or tensor value as a graph node id (constants become CONST nodes). */
bool kg_elab_as_node(kg_elab *el, const kg_ast *at, kg_ev v, uint32_t *id) {
  if (v.kind == EV_NODE) { *id = v.id; return true; }
  if (v.kind == EV_CONST) { *id = const_node(el, at, v.c); return true; }
  if (v.kind != EV_ERR) kg_elab_error(el, at, KG_E_TYPE, "expected a tensor or a number here");
  return false;
}
#define as_node kg_elab_as_node

static void dim_print(const kg_elab *el, const kg_dim *d, char *buf, size_t n) {
  if (d->kind == KG_DIM_STATIC) snprintf(buf, n, "%lld", (long long)d->v);
  else snprintf(buf, n, "%s", el->g->syms.v[d->v]);
}

const char *kg_elab_shape_str(kg_elab *el, const kg_shape *s) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_shape_print(el->g, s, &b);
  const char *r = kg_arena_strdup(el->arena, kg_sb_cstr(&b));
  kg_sb_free(&b);
  return r;
}

#define shape_str kg_elab_shape_str

/* PyTorch broadcasting of two shapes (ir/graph.c: kg_shape_broadcast, the one rule): a
 * located error when static sizes differ; two different symbols it takes to be equal become
 * a guard that every run checks on the sizes it binds (exec.c: kg_check_guards). */
static bool broadcast(kg_elab *el, const kg_ast *at, const kg_shape *a, const kg_shape *b, kg_shape *out) {
  int bad = 0, n_assumed = 0;
  uint32_t assumed[KG_MAX_RANK][2];
  if (!kg_shape_broadcast(a, b, out, &bad, assumed, &n_assumed)) {
    int r = a->rank > b->rank ? a->rank : b->rank;
    kg_dim da = a->d[a->rank - r + bad], db = b->d[b->rank - r + bad]; /* both exist: neither is a padded 1 */
    char x[64], y[64];
    dim_print(el, &da, x, sizeof x), dim_print(el, &db, y, sizeof y);
    kg_elab_error(el, at, KG_E_SHAPE, "shapes %s and %s cannot be broadcast (dim %d: %s vs %s)", shape_str(el, a), shape_str(el, b),
                  bad - r, x, y);
    return false;
  }
  for (int i = 0; i < n_assumed; i++) {
    bool known = false;
    for (uint32_t k = 0; k < el->g->guards.n && !known; k++) {
      const kg_sym_guard *q = &el->g->guards.v[k];
      known = (q->a == assumed[i][0] && q->b == assumed[i][1]) || (q->a == assumed[i][1] && q->b == assumed[i][0]);
    }
    if (!known) {
      kg_sym_guard q = {assumed[i][0], assumed[i][1], at ? at->path : NULL, at ? kg_fe_srcloc(el->arena, el->doc, at) : NULL};
      KG_VEC_PUSH(el->g->guards, q);
    }
  }
  return true;
}

bool kg_elab_broadcast(kg_elab *el, const kg_ast *at, const kg_shape *a, const kg_shape *b, kg_shape *out) {
  return broadcast(el, at, a, b, out);
}

static kg_operand_class op_class(const kg_elab *el, uint32_t id) {
  const kg_gnode *n = gnode(el, id);
  if (n->vkind == KG_V_SCALAR) return KG_CLS_SCALAR;
  return n->shape.rank ? KG_CLS_DIM : KG_CLS_ZERODIM;
}

static const char *dtn(kg_dtype t) { return kg_dtype_name(t); }

/* Builds a tensor op over operand nodes: result dtype by the op's typing class
 * (ops.def flags + PyTorch promotion), shape by broadcasting the tensor operands. */
kg_ev kg_elab_tensor_op(kg_elab *el, const kg_ast *at, kg_op op, const uint32_t *in, int n,
                        const int64_t ia[2], const double fa[4], kg_dtype fixed) {
  const kg_op_info *oi = kg_op_get(op);
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op;
  g.n_in = (uint8_t)n;
  g.vkind = KG_V_TENSOR;
  kg_dtype dts[4];
  kg_operand_class cls[4];
  int first_val = (oi->flags & KG_OPF_SELECT) ? 1 : 0; /* where: the condition does not promote */
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  bool any_tensor = false;
  for (int i = 0; i < n; i++) {
    g.in[i] = in[i];
    const kg_gnode *o = gnode(el, in[i]);
    dts[i] = (kg_dtype)o->dtype;
    cls[i] = op_class(el, in[i]);
    if (o->vkind == KG_V_TENSOR) {
      if (!any_tensor) sh = o->shape;
      else if (!broadcast(el, at, &sh, &o->shape, &sh)) return kg_ev_err();
      any_tensor = true;
    }
  }
  g.shape = sh;
  kg_dtype rt = n > first_val ? kg_result_type(dts + first_val, cls + first_val, n - first_val) : fixed;
  kg_dtype out = rt, cdt = rt;
  unsigned f = oi->flags;
  if (f & (KG_OPF_FLOAT | KG_OPF_FLOATRES)) {
    if (!kg_dtype_is_float(rt)) out = cdt = KG_F32;
  } else if (f & KG_OPF_F64RES) {
    out = cdt = KG_F64;
  } else if (f & KG_OPF_CMP) {
    out = KG_BOOL;
  } else if (f & (KG_OPF_LOGIC | KG_OPF_PRED)) {
    out = KG_BOOL;
  } else if (f & KG_OPF_BITS) {
    if (kg_dtype_is_float(rt))
      return kg_elab_error(el, at, KG_E_TYPE, "%s needs integer or bool operands, got %s", oi->torch[0] ? oi->torch : oi->name, dtn(rt));
  } else if (f & (KG_OPF_CAST | KG_OPF_CREATE | KG_OPF_MAP)) {
    out = cdt = fixed;
  }
  if (f & KG_OPF_SELECT) {
    if (dts[0] != KG_BOOL)
      return kg_elab_error(el, at, KG_E_TYPE, "where() needs a bool condition, got %s", dtn(dts[0]));
  }
  if ((op == KG_OP_SUB || op == KG_OP_NEG) && rt == KG_BOOL)
    return kg_elab_error(el, at, KG_E_TYPE, "%s on bool tensors is not supported (PyTorch rejects it; use logical_xor / logical_not)",
                         op == KG_OP_SUB ? "subtraction" : "negation");
  if (op == KG_OP_LERP && (dts[0] != dts[1] || !kg_dtype_is_float(dts[0])))
    return kg_elab_error(el, at, KG_E_TYPE, "lerp needs floating tensors of one dtype, got %s and %s", dtn(dts[0]), dtn(dts[1]));
  if ((op == KG_OP_SHL || op == KG_OP_SHR) && rt == KG_BOOL)
    return kg_elab_error(el, at, KG_E_TYPE, "shifts need integer operands, got bool");
  g.dtype = (uint8_t)out;
  g.cdtype = (uint8_t)cdt;
  if (ia) g.ia[0] = ia[0], g.ia[1] = ia[1];
  if (fa) memcpy(g.fa, fa, sizeof g.fa);
  return ev_node(add_node(el, at, &g));
}
#define tensor_op kg_elab_tensor_op

kg_ev kg_elab_tensor_op_ev(kg_elab *el, const kg_ast *at, kg_op op, const kg_ev *a, int n,
                           const int64_t ia[2], const double fa[4], kg_dtype fixed) {
  uint32_t in[4];
  for (int i = 0; i < n; i++) {
    if (a[i].kind == EV_ERR) return a[i];
    if (!as_node(el, at, a[i], &in[i])) return kg_ev_err();
  }
  return tensor_op(el, at, op, in, n, ia, fa, fixed);
}
#define tensor_op_ev kg_elab_tensor_op_ev
