/* codegen-cuda/ts_layout.c — layout ops in the PyTorch twin: each is PyTorch's own call
 * (reshape, permute, expand, slicing, select, flip, roll, repeat, cat, tril / triu,
 * index_select, gather, arange, eye, full), so the cross-check compares kgen's index
 * arithmetic (passes/lower_view.c) against PyTorch's views and copies. Sizes known only at
 * run time are read off an entry parameter that has the symbol (x.size(d)).
 *
 *   %2 = PERMUTE:float32[8,N](%1) ia=[1]   →   t2 = t1.permute([1, 0])
 *   %3 = SLICE:float32[N,3](%2) ia=[1,2,2] →   t3 = t2[:, 2:8:2]
 */
#include <math.h>
#include <string.h>

#include "ts_int.h"

/* a dim's size as Python: a number, the size of a parameter that has the symbol, or a derived
 * symbol's product of those ((x.size(0) * x.size(1) * 3)) */
static const char *dim_text(ts_ctx *c, const kg_dim *d) {
  if (d->kind == KG_DIM_STATIC) return fmt(c, "%lld", (long long)d->v);
  const kg_graph *g = c->g;
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    for (int j = 0; j < n->shape.rank; j++)
      if (n->shape.d[j].kind == KG_DIM_SYM && n->shape.d[j].v == d->v && c->name[g->params.v[p].node])
        return fmt(c, "%s.size(%d)", c->name[g->params.v[p].node], j);
  }
  const kg_symdef *sd = kg_graph_symdef(g, (uint32_t)d->v);
  if (!sd) return NULL;
  const char *r = fmt(c, "%lld", (long long)sd->coeff);
  for (int i = 0; i < sd->n; i++) {
    kg_dim f = {KG_DIM_SYM, sd->f[i]};
    const char *t = dim_text(c, &f);
    if (!t) return NULL;
    r = fmt(c, "%s * %s", r, t);
  }
  return fmt(c, "(%s)", r);
}

static const char *sizes_text(ts_ctx *c, uint32_t id, const kg_shape *s) {
  const char *r = "";
  for (int i = 0; i < s->rank; i++) {
    const char *t = dim_text(c, &s->d[i]);
    if (!t) {
      fail(c, id, "no parameter carries symbol %s", c->g->syms.v[s->d[i].v]);
      return "";
    }
    r = fmt(c, "%s%s%s", r, i ? ", " : "", t);
  }
  return fmt(c, "[%s]", r);
}

/* the device of the first tensor parameter (factories are made beside the inputs) */
static const char *device_arg(ts_ctx *c) {
  const kg_graph *g = c->g;
  for (uint32_t p = 0; p < g->params.n; p++) {
    uint32_t nd = g->params.v[p].node;
    if (g->nodes.v[nd].vkind == KG_V_TENSOR && c->name[nd]) return fmt(c, ", device=%s.device", c->name[nd]);
  }
  return "";
}

/* a tensor operand in dtype dt (cat promotes) */
static const char *as_dtype(ts_ctx *c, vval v, kg_dtype dt) {
  const char *s = text(c, v);
  if (v.dt == dt) return s;
  s = fmt(c, "%s.to(%s)", s, tdt(c, dt));
  if (c->up && (dt == KG_F16 || dt == KG_BF16)) s = fmt(c, "%s.float()", s);
  return s;
}

/* an op that creates values: rounded to half precision and carried as float32 in upcast mode */
static const char *made(ts_ctx *c, const char *s, kg_dtype dt) {
  return c->up && (dt == KG_F16 || dt == KG_BF16) ? fmt(c, "%s.float()", s) : s;
}

/* ---- random draws: the kernels' generator (codegen-cuda/prelude.h, KG_CUDA_PRELUDE_RNG) in int64
 * tensor arithmetic, so the twin draws the very bits kgen's kernels draw and `kgen check` compares
 * everything downstream exactly (docs/design.md "The random generator"). A 32x32-bit product is
 * split at 16 bits (int64 cannot hold it). ---- */
const char kg_twin_rand_src[] =
    "def _kg_mulhilo(a: int, b: torch.Tensor) -> List[torch.Tensor]:\n"
    "    # (hi, lo) 32-bit words of a * b for a, b < 2^32 held in int64\n"
    "    p1 = (b & 65535) * a\n"
    "    p2 = (b >> 16) * a\n"
    "    t = p1 + ((p2 & 65535) << 16)\n"
    "    return [(p2 >> 16) + (t >> 32), t & 4294967295]\n"
    "\n"
    "def _kg_philox(e: torch.Tensor, seed: int, ctr: int) -> List[torch.Tensor]:\n"
    "    # Philox 4x32-10 of counter (e lo, e hi, ctr lo, ctr hi) under key (seed lo, seed hi);\n"
    "    # constants in decimal (TorchScript reads a hex literal with an E in it as a float)\n"
    "    c0 = e & 4294967295\n"
    "    c1 = e >> 32\n"
    "    c2 = torch.full_like(e, ctr & 4294967295)\n"
    "    c3 = torch.full_like(e, (ctr >> 32) & 4294967295)\n"
    "    k0 = seed & 4294967295\n"
    "    k1 = (seed >> 32) & 4294967295\n"
    "    for i in range(10):\n"
    "        m0 = _kg_mulhilo(3528531795, c0)\n"
    "        m1 = _kg_mulhilo(3449720151, c2)\n"
    "        n0 = m1[0] ^ c1 ^ k0\n"
    "        n2 = m0[0] ^ c3 ^ k1\n"
    "        c0, c1, c2, c3 = n0, m1[1], n2, m0[1]\n"
    "        k0 = (k0 + 2654435769) & 4294967295\n"
    "        k1 = (k1 + 3144134277) & 4294967295\n"
    "    return [c0, c1, c2, c3]\n"
    "\n"
    "def _kg_draw(sizes: List[int], seed: int, ctr: int, mode: int, like: torch.Tensor) -> torch.Tensor:\n"
    "    # element e (row-major) of a draw: 0 the 24-bit uniform, 1 the 53-bit one, 2 / 3 a normal\n"
    "    # float32 / float64 (Box-Muller), as the kernels' kg_rand_u24 / _u53 / kg_randn_f / _d;\n"
    "    # made on like's device (a tensor parameter: libtorch's C++ resolver has no torch.device type)\n"
    "    n = 1\n"
    "    for s in sizes:\n"
    "        n = n * s\n"
    "    r = _kg_philox(torch.arange(n, dtype=torch.int64, device=like.device).reshape(sizes), seed, ctr)\n"
    "    if mode == 0:\n"
    "        return r[0] >> 8\n"
    "    if mode == 1:\n"
    "        return (r[0] << 21) | (r[1] >> 11)\n"
    "    if mode == 2:\n"
    "        u1 = ((r[0] >> 9) * 2 + 1).to(torch.float32) * 5.9604644775390625e-08\n"
    "        u2 = (r[1] >> 8).to(torch.float32) * 5.9604644775390625e-08\n"
    "        return torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(6.2831854820251465 * u2)\n"
    "    a = (r[0] << 21) | (r[1] >> 11)\n"
    "    b = (r[2] << 21) | (r[3] >> 11)\n"
    "    u1 = ((a >> 1) * 2 + 1).to(torch.float64) * 1.1102230246251565e-16\n"
    "    u2 = b.to(torch.float64) * 1.1102230246251565e-16\n"
    "    return torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(6.2831853071795865 * u2)\n"
    "\n"
    "def _kg_unit(u: torch.Tensor, dt: int) -> torch.Tensor:\n"
    "    # a uniform rounded to half precision: 1 (rounded up) is 0, as the kernels flip it\n"
    "    h = u.to(dt)\n"
    "    return torch.where(h == 1, torch.zeros_like(h), h)\n";

/* a tensor on the device draws are made on: the first tensor parameter (else kg_rng) */
static const char *device_of(ts_ctx *c) {
  const kg_graph *g = c->g;
  for (uint32_t p = 0; p < g->params.n; p++) {
    uint32_t nd = g->params.v[p].node;
    if (g->nodes.v[nd].vkind == KG_V_TENSOR && c->name[nd]) return c->name[nd];
  }
  return "kg_rng";
}

static const char *random_twin(ts_ctx *c, uint32_t id, const vval *a) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_dtype dt = (kg_dtype)n->dtype;
  bool f64 = dt == KG_F64;
  c->helper[H_RAND] = true;
  const char *S = sizes_text(c, id, &n->shape), *D = device_of(c);
  const char *ctr = fmt(c, "rng_off + %lld", (long long)n->ia[0]);
#define DRAW(mode) fmt(c, "_kg_draw(%s, rng_seed, %s, %d, %s)", S, ctr, mode, D)
  const char *u = f64 ? fmt(c, "(%s.to(torch.float64) * 1.1102230246251565e-16)", DRAW(1))
                      : fmt(c, "(%s.to(torch.float32) * 5.9604644775390625e-08)", DRAW(0));
  if (n->op == KG_OP_BERNOULLI) {
    if (a[0].num) return fail(c, id, "bernoulli of a number"), "None";
    return made(c, fmt(c, "(%s < %s.to(%s)).to(%s)", u, text(c, a[0]), f64 ? "torch.float64" : "torch.float32", tdt(c, dt)), dt);
  }
  switch (n->ia[1]) {
  case 0:
    if (dt == KG_F16 || dt == KG_BF16) return made(c, fmt(c, "_kg_unit(%s, %s)", u, tdt(c, dt)), dt);
    return u;
  case 1: return made(c, fmt(c, "%s.to(%s)", DRAW(f64 ? 3 : 2), tdt(c, dt)), dt);
  default:
    return made(c, fmt(c, "((%s < %lld).to(%s) * %.17g)", DRAW(0), (long long)ceil(n->fa[0] * 16777216.0), tdt(c, dt), n->fa[1]), dt);
  }
#undef DRAW
}

const char *kg_twin_layout(ts_ctx *c, uint32_t id, const vval *a) {
  const kg_gnode *n = &c->g->nodes.v[id];
  kg_dtype dt = (kg_dtype)n->dtype;
  const char *x = n->n_in ? text(c, a[0]) : NULL;
  const kg_gnode *o = n->n_in ? &c->g->nodes.v[n->in[0]] : NULL;
  for (int j = 0; j < n->n_in && n->op != KG_OP_FILL; j++)
    if (a[j].num) {
      fail(c, id, "%s of a number", kg_op_name((kg_op)n->op));
      return "None";
    }
  switch (n->op) {
  case KG_OP_RESHAPE:
    if (n->ia[0] == 2) return fmt(c, "%s.contiguous()", x);
    return fmt(c, "%s.reshape(%s)", x, sizes_text(c, id, &n->shape)); /* view() too: the check passes strided inputs */
  case KG_OP_PERMUTE: {
    const char *p = "";
    for (int i = 0; i < n->shape.rank; i++) p = fmt(c, "%s%s%lld", p, i ? ", " : "", (long long)((n->ia[0] >> (4 * i)) & 15));
    return fmt(c, "%s.permute([%s])", x, p);
  }
  case KG_OP_EXPAND: return fmt(c, "%s.expand(%s)", x, sizes_text(c, id, &n->shape));
  case KG_OP_SLICE: {
    const char *idx = "";
    for (int i = 0; i < n->ia[0]; i++) idx = fmt(c, "%s:, ", idx);
    long long s = (long long)n->ia[1], st = (long long)n->ia[2], len = (long long)n->shape.d[n->ia[0]].v;
    return fmt(c, "%s[%s%lld:%lld:%lld]", x, idx, s, s + len * st, st);
  }
  case KG_OP_SELECT: return fmt(c, "%s.select(%lld, %lld)", x, (long long)n->ia[0], (long long)n->ia[1]);
  case KG_OP_FLIP: {
    const char *d = "";
    for (int i = 0; i < n->shape.rank; i++)
      if ((n->ia[0] >> i) & 1) d = fmt(c, "%s%s%d", d, *d ? ", " : "", i);
    return fmt(c, "torch.flip(%s, [%s])", x, d);
  }
  case KG_OP_ROLL: return fmt(c, "torch.roll(%s, [%lld], [%lld])", x, (long long)n->ia[1], (long long)n->ia[0]);
  case KG_OP_REPEAT: {
    const char *r = "";
    for (int i = 0; i < n->shape.rank; i++) {
      int j = i - (n->shape.rank - o->shape.rank);
      int64_t in = j < 0 ? 1 : o->shape.d[j].v, out = n->shape.d[i].v;
      long long rep = n->shape.d[i].kind == KG_DIM_SYM || in == 0 ? 1 : out / in;
      r = fmt(c, "%s%s%lld", r, i ? ", " : "", rep);
    }
    return fmt(c, "%s.repeat([%s])", x, r);
  }
  case KG_OP_CAT: {
    const char *l = "";
    for (int j = 0; j < n->n_in; j++) l = fmt(c, "%s%s%s", l, j ? ", " : "", as_dtype(c, a[j], dt));
    return fmt(c, "torch.cat([%s], dim=%lld)", l, (long long)n->ia[0]);
  }
  case KG_OP_TRIL: return fmt(c, "torch.%s(%s, %lld)", n->ia[1] ? "triu" : "tril", x, (long long)n->ia[0]);
  case KG_OP_INDEX: {
    if (!n->ia[1]) return fmt(c, "torch.index_select(%s, %lld, %s)", x, (long long)n->ia[0], text(c, a[1]));
    const char *idx = ""; /* advanced indexing: x[:, :, idx] */
    for (int i = 0; i < n->ia[0]; i++) idx = fmt(c, "%s:, ", idx);
    return fmt(c, "%s[%s%s]", x, idx, text(c, a[1]));
  }
  case KG_OP_GATHER: return fmt(c, "torch.gather(%s, %lld, %s)", x, (long long)n->ia[0], text(c, a[1]));
  case KG_OP_ARANGE:
    if (kg_dtype_is_float(dt))
      return made(c, fmt(c, "torch.arange(%.17g, %.17g, %.17g, dtype=%s%s)", n->fa[0], n->fa[2], n->fa[1], tdt(c, dt), device_arg(c)), dt);
    return made(c, fmt(c, "torch.arange(%lld, %lld, %lld, dtype=%s%s)", (long long)n->fa[0], (long long)n->fa[2], (long long)n->fa[1], tdt(c, dt), device_arg(c)), dt);
  case KG_OP_LINSPACE:
    return made(c, fmt(c, "torch.linspace(%.17g, %.17g, %s, dtype=%s%s)", n->fa[0], n->fa[1], dim_text(c, &n->shape.d[0]), tdt(c, dt), device_arg(c)), dt);
  case KG_OP_EYE:
    return made(c, fmt(c, "torch.eye(%s, %s, dtype=%s%s)", dim_text(c, &n->shape.d[0]), dim_text(c, &n->shape.d[1]), tdt(c, dt), device_arg(c)), dt);
  case KG_OP_FILL: {
    vval v = a[0];
    const char *val = v.num ? scalar_arg(c, v) : fmt(c, "%s(%s)", v.dt == KG_BOOL ? "int" : py_conv((kg_dtype)v.dt), text(c, v));
    return made(c, fmt(c, "torch.full(%s, %s, dtype=%s%s)", sizes_text(c, id, &n->shape), val, tdt(c, dt), device_arg(c)), dt);
  }
  case KG_OP_RAND:
  case KG_OP_BERNOULLI: return random_twin(c, id, a);
  case KG_OP_PAD: { /* the pad list from the left pads and the sizes (last dim first) */
    const char *l = "";
    static const char *const modes[] = {"constant", "reflect", "replicate", "circular"};
    for (int j = 0; j < n->ia[3]; j++) {
      int d = n->shape.rank - 1 - j;
      long long lo = (long long)kg_pad_left(n->ia, d), hi = (long long)(n->shape.d[d].v - o->shape.d[d].v) - lo;
      if (n->shape.d[d].kind != KG_DIM_STATIC) lo = hi = 0;
      l = fmt(c, "%s%s%lld, %lld", l, j ? ", " : "", lo, hi);
    }
    double v = n->fa[0];
    const char *val = v != v ? "float('nan')" : v > 1e308 ? "float('inf')" : v < -1e308 ? "float('-inf')" : fmt(c, "%.17g", v);
    if (!strpbrk(val, ".en")) val = fmt(c, "%s.0", val); /* a float for TorchScript */
    if (n->ia[0]) return fmt(c, "torch.nn.functional.pad(%s, [%s], mode='%s')", x, l, modes[n->ia[0] & 3]);
    return fmt(c, "torch.nn.functional.pad(%s, [%s], mode='constant', value=%s)", x, l, val);
  }
  default: fail(c, id, "layout op %s has no twin", kg_op_name((kg_op)n->op)); return "None";
  }
}
