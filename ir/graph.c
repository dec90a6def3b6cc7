/* ir/graph.c — the typed tensor program: builder, printer, verifier.
 *
 * A kg_graph is a list of SSA nodes in definition order (operands always have
 * smaller ids), the entry's parameters and captures (INPUT nodes), and its
 * outputs. The printer is deterministic: one line per node,
 *   %3 = MUL:float32[N,768](%1, %2)   @ $.entries[0].expr.body
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void kg_graph_init(kg_graph *g, kg_arena *arena, const char *entry) {
  memset(g, 0, sizeof *g);
  g->arena = arena;
  g->entry = entry;
}

void kg_graph_free(kg_graph *g) {
  for (uint32_t i = 0; i < g->fns.n && !g->fns_borrowed; i++) kg_kernel_free(&g->fns.v[i]->body);
  KG_VEC_FREE(g->nodes);
  KG_VEC_FREE(g->params);
  KG_VEC_FREE(g->outputs);
  KG_VEC_FREE(g->syms);
  KG_VEC_FREE(g->guards);
  KG_VEC_FREE(g->symdefs);
  KG_VEC_FREE(g->fns);
}

void kg_graph_clone(kg_graph *out, const kg_graph *g) {
  for (uint32_t i = 0; i < g->nodes.n; i++) KG_VEC_PUSH(out->nodes, g->nodes.v[i]);
  for (uint32_t i = 0; i < g->params.n; i++) KG_VEC_PUSH(out->params, g->params.v[i]);
  for (uint32_t i = 0; i < g->outputs.n; i++) KG_VEC_PUSH(out->outputs, g->outputs.v[i]);
  for (uint32_t i = 0; i < g->guards.n; i++) KG_VEC_PUSH(out->guards, g->guards.v[i]);
  for (uint32_t i = 0; i < g->fns.n; i++) KG_VEC_PUSH(out->fns, g->fns.v[i]);
  kg_graph_copy_syms(out, g);
  out->fns_borrowed = true;
  out->n_entry_params = g->n_entry_params;
}

void kg_graph_copy_syms(kg_graph *out, const kg_graph *g) {
  for (uint32_t i = 0; i < g->syms.n; i++) KG_VEC_PUSH(out->syms, g->syms.v[i]);
  for (uint32_t i = 0; i < g->symdefs.n; i++) KG_VEC_PUSH(out->symdefs, g->symdefs.v[i]);
}

const kg_symdef *kg_graph_symdef(const kg_graph *g, uint32_t sym) {
  for (uint32_t i = 0; i < g->symdefs.n; i++)
    if (g->symdefs.v[i].sym == sym) return &g->symdefs.v[i];
  return NULL;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

kg_dim kg_graph_sym_product(kg_graph *g, int64_t coeff, const uint32_t *f, int n) {
  kg_symdef d;
  memset(&d, 0, sizeof d);
  d.coeff = coeff;
  for (int i = 0; i < n; i++) {
    const kg_symdef *e = kg_graph_symdef(g, f[i]);
    if (!e) {
      if (d.n < KG_MAX_RANK) d.f[d.n++] = f[i];
      continue;
    }
    d.coeff *= e->coeff;
    for (int j = 0; j < e->n && d.n < KG_MAX_RANK; j++) d.f[d.n++] = e->f[j];
  }
  if (d.n == 0 || d.coeff == 0) return (kg_dim){KG_DIM_STATIC, d.coeff};
  if (d.n == 1 && d.coeff == 1) return (kg_dim){KG_DIM_SYM, d.f[0]};
  qsort(d.f, d.n, sizeof *d.f, cmp_u32);
  for (uint32_t i = 0; i < g->symdefs.n; i++) {
    const kg_symdef *e = &g->symdefs.v[i];
    if (e->coeff == d.coeff && e->n == d.n && !memcmp(e->f, d.f, d.n * sizeof *d.f)) return (kg_dim){KG_DIM_SYM, e->sym};
  }
  kg_strbuf b;
  kg_sb_init(&b);
  for (int i = 0; i < d.n; i++) kg_sb_printf(&b, "%s%s", i ? "*" : "", g->syms.v[d.f[i]]);
  if (d.coeff != 1) kg_sb_printf(&b, "*%lld", (long long)d.coeff);
  KG_ASSERT(g->arena);
  const char *name = kg_arena_strdup(g->arena, kg_sb_cstr(&b));
  kg_sb_free(&b);
  d.sym = g->syms.n;
  KG_VEC_PUSH(g->syms, name);
  KG_VEC_PUSH(g->symdefs, d);
  return (kg_dim){KG_DIM_SYM, d.sym};
}

uint32_t kg_graph_add(kg_graph *g, const kg_gnode *n) {
  kg_gnode c = *n; /* before the push: n may point into g->nodes, which the push may move */
  KG_VEC_PUSH(g->nodes, c);
  return g->nodes.n - 1;
}

bool kg_shape_broadcast(const kg_shape *a, const kg_shape *b, kg_shape *out, int *bad_dim, uint32_t (*assumed)[2], int *n_assumed) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  kg_shape o;
  memset(&o, 0, sizeof o);
  o.rank = (uint8_t)r;
  if (n_assumed) *n_assumed = 0;
  for (int i = 0; i < r; i++) {
    int ia = a->rank - r + i, ib = b->rank - r + i;
    kg_dim da = {KG_DIM_STATIC, 1}, db = {KG_DIM_STATIC, 1};
    if (ia >= 0) da = a->d[ia];
    if (ib >= 0) db = b->d[ib];
    bool a1 = da.kind == KG_DIM_STATIC && da.v == 1, b1 = db.kind == KG_DIM_STATIC && db.v == 1;
    if (a1) o.d[i] = db;
    else if (b1) o.d[i] = da;
    else if (da.kind == KG_DIM_STATIC && db.kind == KG_DIM_STATIC) {
      if (da.v != db.v) {
        if (bad_dim) *bad_dim = i;
        return false;
      }
      o.d[i] = da;
    } else if (da.kind == KG_DIM_STATIC) o.d[i] = da;
    else if (db.kind == KG_DIM_STATIC) o.d[i] = db;
    else {
      o.d[i] = da;
      if (da.v != db.v && assumed) {
        assumed[*n_assumed][0] = (uint32_t)da.v, assumed[*n_assumed][1] = (uint32_t)db.v;
        (*n_assumed)++;
      }
    }
  }
  *out = o;
  return true;
}

bool kg_shape_equal(const kg_shape *a, const kg_shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->d[i].kind != b->d[i].kind || a->d[i].v != b->d[i].v) return false;
  return true;
}

void kg_shape_print(const kg_graph *g, const kg_shape *s, kg_strbuf *o) {
  kg_sb_putc(o, '[');
  for (int i = 0; i < s->rank; i++) {
    if (i) kg_sb_putc(o, ',');
    if (s->d[i].kind == KG_DIM_STATIC) kg_sb_printf(o, "%lld", (long long)s->d[i].v);
    else if (g && (uint64_t)s->d[i].v < g->syms.n) kg_sb_puts(o, g->syms.v[s->d[i].v]);
    else kg_sb_printf(o, "?%lld", (long long)s->d[i].v);
  }
  kg_sb_putc(o, ']');
}

static void print_node(const kg_graph *g, uint32_t id, kg_strbuf *o) {
  const kg_gnode *n = &g->nodes.v[id];
  const kg_op_info *oi = kg_op_get((kg_op)n->op);
  kg_sb_printf(o, "  %%%u = %s:%s", id, oi->name, kg_dtype_name((kg_dtype)n->dtype));
  if (n->vkind == KG_V_SCALAR) kg_sb_puts(o, " scalar");
  else kg_shape_print(g, &n->shape, o);
  kg_sb_putc(o, '(');
  for (int i = 0; i < n->n_in; i++) kg_sb_printf(o, "%s%%%u", i ? ", " : "", n->in[i]);
  kg_sb_putc(o, ')');
  if (n->op == KG_OP_CONST) {
    if (kg_dtype_is_float((kg_dtype)n->dtype)) kg_sb_printf(o, " %.17g", n->fa[0]);
    else kg_sb_printf(o, " %lld", (long long)n->ia[0]);
  } else if (n->op == KG_OP_INPUT) {
    kg_sb_printf(o, " %s%lld", n->ia[1] ? "capture " : "param ", (long long)n->ia[0]);
  } else {
    if (n->ia[2] || n->ia[3])
      kg_sb_printf(o, " ia=[%lld,%lld,%lld,%lld]", (long long)n->ia[0], (long long)n->ia[1], (long long)n->ia[2], (long long)n->ia[3]);
    else if (n->ia[0] || n->ia[1]) kg_sb_printf(o, " ia=[%lld,%lld]", (long long)n->ia[0], (long long)n->ia[1]);
    if (n->fa[0] != 0 || n->fa[1] != 0 || n->fa[2] != 0 || n->fa[3] != 0)
      kg_sb_printf(o, " fa=[%.9g,%.9g,%.9g,%.9g]", n->fa[0], n->fa[1], n->fa[2], n->fa[3]);
    if (n->op == KG_OP_MAP) kg_sb_printf(o, " fn=%u", n->fn);
  }
  kg_sb_putc(o, '\n');
}

void kg_graph_print(const kg_graph *g, kg_strbuf *o) {
  kg_sb_printf(o, "program %s(", g->entry ? g->entry : "?");
  for (uint32_t i = 0; i < g->params.n; i++)
    kg_sb_printf(o, "%s%s%s=%%%u", i ? ", " : "", g->params.v[i].is_capture ? "capture " : "",
                 g->params.v[i].name, g->params.v[i].node);
  kg_sb_puts(o, ") {\n");
  for (uint32_t i = 0; i < g->nodes.n; i++) print_node(g, i, o);
  kg_sb_puts(o, "  return");
  for (uint32_t i = 0; i < g->outputs.n; i++) kg_sb_printf(o, "%s %%%u", i ? "," : "", g->outputs.v[i]);
  kg_sb_puts(o, "\n}\n");
  for (uint32_t f = 0; f < g->fns.n; f++) {
    kg_sb_printf(o, "fn%u ", f);
    kg_kernel_print(&g->fns.v[f]->body, o);
  }
}

uint32_t kg_graph_n_results(const kg_graph *g) {
  uint32_t n = g->outputs.n;
  for (uint32_t i = 0; i < g->params.n; i++)
    if (g->params.v[i].wb) n--;
  return n;
}

uint32_t *kg_graph_use_counts(const kg_graph *g) {
  uint32_t *u = kg_xcalloc(g->nodes.n + 1, sizeof *u);
  for (uint32_t i = 0; i < g->nodes.n; i++)
    for (int j = 0; j < g->nodes.v[i].n_in; j++) u[g->nodes.v[i].in[j]]++;
  for (uint32_t i = 0; i < g->outputs.n; i++) u[g->outputs.v[i]]++;
  return u;
}

/* Copies old node i (and first, recursively, the operands not copied yet: nodes that move before
 * the insertion point) into g, its operands through map. */
static void insert_copy(kg_graph *g, const kg_gnode *old, uint32_t i, uint32_t *map, uint8_t *done, const uint32_t *repl) {
  if (done[i]) return;
  kg_gnode nd = old[i];
  for (int j = 0; j < nd.n_in; j++) insert_copy(g, old, nd.in[j], map, done, repl);
  for (int j = 0; j < nd.n_in; j++) nd.in[j] = map[nd.in[j]];
  uint32_t id = kg_graph_add(g, &nd);
  done[i] = 1;
  if (repl[i] == KG_NONE) map[i] = id; /* a replaced node stays (dead) but is read by nobody */
}

void kg_graph_insert(kg_graph *g, uint32_t pos, const kg_gnode *add, uint32_t nadd, const uint32_t *repl) {
  uint32_t n = g->nodes.n;
  kg_gnode *old = kg_xmalloc((n + 1) * sizeof *old);
  memcpy(old, g->nodes.v, n * sizeof *old);
  uint32_t *map = kg_xmalloc((n + 1) * sizeof *map);
  uint8_t *done = kg_xcalloc(n + 1, 1);
  g->nodes.n = 0;
  for (uint32_t i = 0; i <= n; i++) {
    if (i == pos) {
      for (uint32_t a = 0; a < nadd; a++) /* what the new nodes read moves before them */
        for (int j = 0; j < add[a].n_in; j++)
          if (add[a].in[j] < KG_GRAPH_NEW(0)) insert_copy(g, old, add[a].in[j], map, done, repl);
      uint32_t base = g->nodes.n;
      for (uint32_t a = 0; a < nadd; a++) {
        kg_gnode x = add[a];
        for (int j = 0; j < x.n_in; j++) x.in[j] = x.in[j] >= KG_GRAPH_NEW(0) ? base + (x.in[j] - KG_GRAPH_NEW(0)) : map[x.in[j]];
        kg_graph_add(g, &x);
      }
      for (uint32_t k = 0; k < n; k++)
        if (repl[k] != KG_NONE) map[k] = base + repl[k];
    }
    if (i < n) insert_copy(g, old, i, map, done, repl);
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) g->outputs.v[i] = map[g->outputs.v[i]];
  for (uint32_t i = 0; i < g->params.n; i++) g->params.v[i].node = map[g->params.v[i].node];
  free(done), free(map), free(old);
}

bool kg_graph_verify(const kg_graph *g, kg_diag *d) {
#define GFAIL(...) do { kg_diag_add(d, KG_E_INTERNAL, n ? n->path : NULL, NULL, "program verifier: " __VA_ARGS__); return false; } while (0)
  const kg_gnode *n = NULL;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    n = &g->nodes.v[i];
    if (n->op >= KG_OP__COUNT) GFAIL("node %%%u has a bad op", i);
    const kg_op_info *oi = kg_op_get((kg_op)n->op);
    if (n->dtype >= KG_DT__COUNT) GFAIL("node %%%u has a bad dtype", i);
    if (oi->arity >= 0 && n->n_in != oi->arity) GFAIL("node %%%u (%s) has %d operands, wants %d", i, oi->name, n->n_in, oi->arity);
    if (n->n_in > 8) GFAIL("node %%%u has too many operands", i);
    for (int j = 0; j < n->n_in; j++)
      if (n->in[j] >= i) GFAIL("node %%%u uses %%%u, which is not defined before it", i, n->in[j]);
    if (n->shape.rank > KG_MAX_RANK) GFAIL("node %%%u has rank %d", i, n->shape.rank);
    if (n->vkind == KG_V_SCALAR && n->shape.rank) GFAIL("scalar node %%%u has a shape", i);
    for (int j = 0; j < n->shape.rank; j++) {
      const kg_dim *dm = &n->shape.d[j];
      if (dm->kind == KG_DIM_STATIC && dm->v < 0) GFAIL("node %%%u has a negative size", i);
      if (dm->kind == KG_DIM_SYM && (uint64_t)dm->v >= g->syms.n) GFAIL("node %%%u has an unknown symbol", i);
    }
    if (n->op == KG_OP_MAP && n->fn >= g->fns.n) GFAIL("map node %%%u names a missing function", i);
    if ((oi->flags & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED)) && n->dtype != KG_BOOL)
      GFAIL("node %%%u (%s) must be bool", i, oi->name);
  }
  n = NULL;
  for (uint32_t i = 0; i < g->outputs.n; i++)
    if (g->outputs.v[i] >= g->nodes.n) GFAIL("output %u is out of range", i);
  for (uint32_t i = 0; i < g->params.n; i++)
    if (g->params.v[i].node >= g->nodes.n || g->nodes.v[g->params.v[i].node].op != KG_OP_INPUT)
      GFAIL("parameter %u is not an INPUT node", i);
  uint32_t nres = kg_graph_n_results(g);
  for (uint32_t i = 0; i < g->params.n; i++) {
    const kg_gparam *p = &g->params.v[i];
    if (!p->wb) continue;
    if (p->wb - 1 < nres || p->wb > g->outputs.n) GFAIL("parameter %u's write-back output %u is not after the results", i, p->wb - 1);
    const kg_gnode *o = &g->nodes.v[g->outputs.v[p->wb - 1]], *x = &g->nodes.v[p->node];
    if (o->dtype != x->dtype || !kg_shape_equal(&o->shape, &x->shape) || x->vkind != KG_V_TENSOR)
      GFAIL("parameter %u's write-back value differs from it in dtype or shape", i);
  }
  for (uint32_t f = 0; f < g->fns.n; f++)
    if (!kg_kernel_verify(&g->fns.v[f]->body, d)) return false;
  return true;
#undef GFAIL
}
