/* frontend/random.c — the random members: dropout in training mode, rand_like / randn_like,
 * torch.rand / torch.randn with sizes, bernoulli. Each becomes a RAND or BERNOULLI node (ops.def):
 * a function of the element's coordinate drawn from kgen's counter-based generator (Philox
 * 4x32-10, docs/design.md "The random generator"), keyed by the seed the caller's generator
 * gives each call. Every random node of an entry gets its own stream (ia[0]), so two draws
 * of one shape differ, and CSE can never merge them.
 *
 *   F.dropout(x, 0.25, true)   → x * RAND[kind 2: 1/(1-p) where the draw keeps, else 0]
 *   x.rand_like()              → RAND[kind 0] of x's shape and dtype
 *   torch.bernoulli(p)         → BERNOULLI(p)
 *
 * PyTorch's errors are reproduced (non-float dtypes, p outside [0, 1]); a TorchSharp
 * Generator argument must be null (kgen draws from its own generator, which the caller seeds
 * through kg_context_manual_seed / Kgen.manualSeed). A random op inside a host-plan loop or
 * branch is refused: its stream is fixed when kgen compiles, so iterations would repeat it.
 */
#include <string.h>

#include "layout_int.h"

static const char *scalar_type(kg_dtype t) {
  switch (t) {
  case KG_BOOL: return "Bool";
  case KG_U8: return "Byte";
  case KG_I8: return "Char";
  case KG_I16: return "Short";
  case KG_I32: return "Int";
  case KG_I64: return "Long";
  case KG_F16: return "Half";
  case KG_BF16: return "BFloat16";
  case KG_F32: return "Float";
  case KG_F64: return "Double";
  default: return "?";
  }
}

/* the next stream: one past the largest stream of the entry's random nodes so far */
static int64_t next_stream(const lay *L) {
  const kg_graph *g = L->el->g;
  int64_t s = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (kg_op_is_random(g->nodes.v[i].op) && g->nodes.v[i].ia[0] >= s) s = g->nodes.v[i].ia[0] + 1;
  return s;
}

static kg_ev draw(lay *L, kg_op op, kg_dtype dt, const kg_shape *sh, const uint32_t *in, int nin, int kind, double f0, double f1) {
  if (L->el->plan_depth > 0)
    return fail(L, KG_E_UNSUPPORTED,
                "a random draw inside a loop or branch over run-time values: kgen fixes a random op's stream when it compiles, so "
                "every iteration would draw the same numbers; draw them before the loop (e.g. one tensor with a dim per iteration, "
                "indexed by the loop variable)");
  for (int i = 0; i < sh->rank; i++)
    if (sh->d[i].kind == KG_DIM_STATIC && sh->d[i].v < 0)
      return fail(L, KG_E_SHAPE, "Trying to create tensor with negative dimension %lld", (long long)sh->d[i].v);
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = (uint16_t)op, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.n_in = (uint8_t)nin;
  for (int i = 0; i < nin; i++) g.in[i] = in[i];
  g.shape = *sh;
  g.ia[0] = next_stream(L), g.ia[1] = kind;
  g.fa[0] = f0, g.fa[1] = f1;
  return kg_ev_node(kg_elab_add_node(L->el, L->at, &g));
}

/* the float dtype a draw makes, or PyTorch's error for another ("check_uniform_bounds" is
 * rand's CPU kernel, "normal_kernel_cpu" randn's) */
static bool float_dtype(lay *L, kg_dtype dt, bool normal) {
  if (kg_dtype_is_float(dt)) return true;
  fail(L, KG_E_TYPE, "\"%s\" not implemented for '%s'", normal ? "normal_kernel_cpu" : "check_uniform_bounds", scalar_type(dt));
  return false;
}

kg_ev kg_lay_random(lay *L, const char *nm, const kg_member_row *row, const kg_ev *av, int n, uint32_t x) {
  const char *spec = row->argspec;
  const kg_gnode *xn = x != KG_NONE ? gnode(L->el, x) : NULL;
  if (!strcmp(nm, "dropout")) {
    /* dropout(x, p, training, inplace): the identity in eval mode (and for p = 0); else
     * x * mask, mask = 1/(1-p) in x's dtype where the element's 24-bit uniform draw is below
     * 1-p, 0 elsewhere (a dropped NaN or inf stays NaN, as PyTorch's x * mask; p = 1 drops all) */
    if (av[1].kind != EV_CONST || av[2].kind != EV_CONST) return fail(L, KG_E_UNSUPPORTED, "p and training must be constants when kgen compiles");
    double p = kg_cval_as_double(av[1].c);
    if (!(p >= 0 && p <= 1)) return fail(L, KG_E_ARG, "dropout probability has to be between 0 and 1, but got %g", p);
    if (!av[2].c.i || p == 0) return kg_ev_node(x);
    kg_dtype dt = (kg_dtype)xn->dtype;
    if (!kg_dtype_is_float(dt)) return fail(L, KG_E_TYPE, "result type Float can't be cast to the desired output type %s", scalar_type(dt));
    double q = 1 - p, scale = p == 1 ? 0 : kg_cval_float(dt, 1.0 / q).f;
    kg_ev m = draw(L, KG_OP_RAND, dt, &xn->shape, NULL, 0, 2, q, scale);
    if (m.kind == EV_ERR) return m;
    uint32_t ops[2] = {x, m.id};
    return kg_elab_tensor_op(L->el, L->at, KG_OP_MUL, ops, 2, NULL, NULL, KG_DT_NONE);
  }
  if (!strcmp(nm, "bernoulli")) {
    kg_dtype dt = (kg_dtype)xn->dtype;
    if (!kg_dtype_is_float(dt)) return fail(L, KG_E_TYPE, "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'", scalar_type(dt));
    return draw(L, KG_OP_BERNOULLI, dt, &xn->shape, &x, 1, 0, 0, 0);
  }
  bool normal = !strcmp(nm, "randn") || !strcmp(nm, "randn_like");
  kg_shape sh;
  memset(&sh, 0, sizeof sh);
  kg_dtype dt = KG_F32;
  int i = 0;
  if (xn) { /* rand_like / randn_like (input, dtype, ...) */
    sh = xn->shape, dt = (kg_dtype)xn->dtype, i = 1;
  } else { /* rand / randn (sizes..., dtype, device, requires_grad, generator, names) */
    kg_dim dims[KG_MAX_RANK];
    int k = 0;
    for (; i < n && (spec[i] == 'a' || spec[i] == 'i'); i++) {
      if (spec[i] == 'a') {
        int q = sizes_arg(L, av[i], dims + k, KG_MAX_RANK - k);
        if (q < 0) return kg_ev_err();
        k += q;
      } else {
        if (k >= KG_MAX_RANK) return fail(L, KG_E_LIMIT, "rank above %d", KG_MAX_RANK);
        if (!size_arg(L, av[i], &dims[k++])) return kg_ev_err();
      }
    }
    sh.rank = (uint8_t)k;
    for (int j = 0; j < k; j++) sh.d[j] = dims[j];
  }
  if (i < n && spec[i] == 'd') {
    if (av[i].kind == EV_DTYPE) dt = av[i].dt;
    else if (av[i].kind != EV_NULL) return fail(L, KG_E_UNSUPPORTED, "the dtype must be a torch dtype written in the code");
  }
  if (!float_dtype(L, dt, normal)) return kg_ev_err();
  return draw(L, KG_OP_RAND, dt, &sh, NULL, 0, normal ? 1 : 0, 0, 0);
}

/* The dropout mask of probability p over shape sh in dtype dt: 1/(1-p) where the element's draw
 * keeps, else 0 — the RAND node F.dropout multiplies by (attention's probabilities: attention.c). */
kg_ev kg_lay_dropout_mask(lay *L, kg_dtype dt, const kg_shape *sh, double p) {
  double q = 1 - p, scale = p == 1 ? 0 : kg_cval_float(dt, 1.0 / q).f;
  return draw(L, KG_OP_RAND, dt, sh, NULL, 0, 2, q, scale);
}
