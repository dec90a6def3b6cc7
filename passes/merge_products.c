/* passes/merge_products.c — products of one input with adjacent row slices of one weight become
 * one product over the slices' union, its results sliced back out.
 *
 * Why: nn.MultiheadAttention keeps its query, key and value projections in one packed
 * in_proj_weight [3E, E] (and in_proj_bias [3E]); its expansion (dotnet/Kgen/Modules.fs, as
 * PyTorch's own F.multi_head_attention_forward for self-attention) computes the three
 * projections of the same input with the weight's three row slices — three product kernels. The
 * slices are adjacent rows of one tensor, so their union is itself a view of it: one product
 * reads the input once and the packed weight as it is (no copy), one kernel instead of three
 * (PyTorch runs one linear there too). The bias slices merge the same way, so the bias stays in
 * the product's epilogue; what reads each projection (the scale, the head split, the fused
 * attention's prologue) reads a slice view of the merged result instead.
 *
 *   before: %s_i = SLICE(W) ia=[0, o_i, 1]    [n_i, K]      (o_{i+1} = o_i + n_i)
 *           %m_i = MATMUL(x, %s_i) ia=[4]      [.., n_i]     (x · s_iᵀ: linear's layout)
 *           %a_i = ADD(%m_i, SLICE(b) ia=[0, o_i, 1])        (each or none)
 *   after:  %M = MATMUL(x, SLICE(W) ia=[0, o_0, 1] [Σn_i, K]) [.., Σn_i]; %A = ADD(%M, SLICE(b) [Σn_i])
 *           %a_i → SLICE(%A) ia=[last, o_i − o_0, 1]           (%m_i when there is no bias)
 *
 * Only where every merged product's result (or its bias sum) is read by nothing but ops (no
 * entry output), the products are linear's (ia[0] = 4: B read transposed, nothing else), of one
 * dtype, the slices static, along dim 0 with step 1, and the intermediate products used once
 * when their bias sums are merged. Runs on the lowering program after the attention pass (which
 * sees the projections as written); `no_fold` (force_variant 2 and 5) turns it off, so those
 * runs check the separate products. The TorchScript twin keeps the three. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct member {
  uint32_t m, a;     /* the product, its bias sum (KG_NONE: none) */
  int64_t start, n;  /* its weight rows */
} member;

static int by_start(const void *x, const void *y) {
  const member *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* SLICE of `of` along dim 0 from `start`, step 1, static length `n`? */
static bool row_slice(const kg_graph *g, uint32_t s, uint32_t *of, int64_t *start, int64_t *n) {
  const kg_gnode *sn = &g->nodes.v[s];
  if (sn->op != KG_OP_SLICE || sn->ia[0] != 0 || sn->ia[2] != 1 || sn->shape.rank < 1 || sn->shape.d[0].kind != KG_DIM_STATIC) return false;
  *of = sn->in[0], *start = sn->ia[1], *n = sn->shape.d[0].v;
  return true;
}

/* The bias sum ADD(m, SLICE(b, rows of m)) that is m's only reader, or KG_NONE. */
static uint32_t bias_of(const kg_graph *g, const uint32_t *uses, uint32_t m, int64_t start, int64_t n, uint32_t *bias, uint32_t last) {
  if (uses[m] != 1) return KG_NONE;
  for (uint32_t i = m + 1; i <= last && i < g->nodes.n; i++) {
    const kg_gnode *a = &g->nodes.v[i];
    if (a->op != KG_OP_ADD || a->n_in != 2 || a->in[0] != m || !kg_shape_equal(&a->shape, &g->nodes.v[m].shape)) continue;
    uint32_t b;
    int64_t s2, n2;
    if (!row_slice(g, a->in[1], &b, &s2, &n2) || s2 != start || n2 != n || g->nodes.v[a->in[1]].shape.rank != 1) return KG_NONE;
    *bias = b;
    return i;
  }
  return KG_NONE;
}

static bool is_output(const kg_graph *g, uint32_t id) {
  for (uint32_t i = 0; i < g->outputs.n; i++)
    if (g->outputs.v[i] == id) return true;
  return false;
}

/* Rebuilds g with `add` (nodes whose inputs are below `after` or earlier in `add`, numbered
 * from `after` + 1 on) inserted right after node `after`; every use of old node id k with
 * repl[k] != KG_NONE reads the new node add index repl[k] instead. */
static void insert_after(kg_graph *g, uint32_t after, const kg_gnode *add, uint32_t nadd, const uint32_t *repl) {
  uint32_t n = g->nodes.n;
  kg_gnode *old = kg_xmalloc((n + 1) * sizeof *old);
  memcpy(old, g->nodes.v, n * sizeof *old);
  uint32_t *map = kg_xmalloc((n + 1) * sizeof *map);
  g->nodes.n = 0;
  for (uint32_t i = 0; i < n; i++) {
    kg_gnode nd = old[i];
    for (int j = 0; j < nd.n_in; j++) nd.in[j] = map[nd.in[j]];
    uint32_t id = kg_graph_add(g, &nd);
    if (repl[i] == KG_NONE) map[i] = id; /* a replaced node stays (dead) but is read by nobody */
    if (i == after) {
      uint32_t base = g->nodes.n;
      for (uint32_t a = 0; a < nadd; a++) {
        kg_gnode x = add[a];
        for (int j = 0; j < x.n_in; j++) x.in[j] = x.in[j] >= 0x80000000u ? base + (x.in[j] - 0x80000000u) : map[x.in[j]];
        kg_graph_add(g, &x);
      }
      for (uint32_t k = 0; k < n; k++)
        if (repl[k] != KG_NONE) map[k] = base + repl[k]; /* (all after `after`: not yet copied) */
    }
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) g->outputs.v[i] = map[g->outputs.v[i]];
  for (uint32_t i = 0; i < g->params.n; i++) g->params.v[i].node = map[g->params.v[i].node];
  free(map), free(old);
}

/* An index into the inserted nodes, as insert_after reads it */
#define NEW(a) (0x80000000u + (a))

/* Merges the products of x with row slices of W (and their bias sums) found from product i. */
static bool try_merge(kg_graph *g, uint32_t i) {
  const kg_gnode *m0 = &g->nodes.v[i];
  if (m0->op != KG_OP_MATMUL || m0->ia[0] != 4 || m0->vkind != KG_V_TENSOR || m0->n_in != 2) return false;
  uint32_t x = m0->in[0], W;
  int64_t st, n;
  if (!row_slice(g, m0->in[1], &W, &st, &n)) return false;
  uint32_t *uses = kg_graph_use_counts(g);
  member mem[16];
  int nm = 0;
  uint32_t bias = KG_NONE;
  bool with_bias = true, ok = true;
  int r = m0->shape.rank;
  for (uint32_t j = i; j < g->nodes.n && nm < 16 && ok; j++) {
    const kg_gnode *m = &g->nodes.v[j];
    uint32_t Wj;
    int64_t sj, nj;
    if (m->op != KG_OP_MATMUL || m->ia[0] != 4 || m->n_in != 2 || m->in[0] != x || m->dtype != m0->dtype || m->cdtype != m0->cdtype ||
        m->ia[1] != m0->ia[1] || m->ia[2] != m0->ia[2] || m->shape.rank != r || !row_slice(g, m->in[1], &Wj, &sj, &nj) || Wj != W)
      continue;
    uint32_t b = KG_NONE, a = bias_of(g, uses, j, sj, nj, &b, g->nodes.n - 1);
    if (nm == 0) with_bias = a != KG_NONE, bias = b;
    if ((a != KG_NONE) != with_bias || (with_bias && b != bias)) { ok = false; break; }
    if (is_output(g, j) || (a != KG_NONE && is_output(g, a))) { ok = false; break; }
    mem[nm++] = (member){j, a, sj, nj};
  }
  free(uses);
  if (!ok || nm < 2) return false;
  qsort(mem, (size_t)nm, sizeof *mem, by_start);
  for (int k = 1; k < nm; k++)
    if (mem[k].start != mem[k - 1].start + mem[k - 1].n) return false; /* a gap or an overlap */
  int64_t total = mem[nm - 1].start + mem[nm - 1].n - mem[0].start;
  /* the merged nodes: SLICE(W), MATMUL, [SLICE(b), ADD], then each member's slice of the result */
  kg_gnode add[4 + 16];
  uint32_t na = 0;
  kg_gnode sw = g->nodes.v[m0->in[1]];
  sw.ia[1] = mem[0].start, sw.shape.d[0].v = total, sw.in[0] = W;
  add[na++] = sw;
  kg_gnode mm = *m0;
  mm.in[0] = x, mm.in[1] = NEW(0), mm.shape.d[r - 1] = (kg_dim){KG_DIM_STATIC, total};
  add[na++] = mm;
  uint32_t res = NEW(1);
  if (with_bias) {
    const kg_gnode *a0 = &g->nodes.v[mem[0].a];
    kg_gnode sb = g->nodes.v[a0->in[1]];
    sb.in[0] = bias, sb.ia[1] = mem[0].start, sb.shape.d[0].v = total;
    add[na++] = sb;
    kg_gnode ad = *a0;
    ad.in[0] = NEW(1), ad.in[1] = NEW(2), ad.shape = mm.shape;
    add[na++] = ad;
    res = NEW(3);
  }
  uint32_t *repl = kg_xmalloc((g->nodes.n + 1) * sizeof *repl);
  for (uint32_t k = 0; k < g->nodes.n; k++) repl[k] = KG_NONE;
  for (int k = 0; k < nm; k++) {
    uint32_t old = with_bias ? mem[k].a : mem[k].m;
    kg_gnode s = sw; /* a SLICE like the weight's, of the result's dtype */
    s.dtype = g->nodes.v[old].dtype, s.cdtype = sw.cdtype == sw.dtype ? s.dtype : sw.cdtype, s.in[0] = res;
    s.shape = g->nodes.v[old].shape;
    s.ia[0] = r - 1, s.ia[1] = mem[k].start - mem[0].start, s.ia[2] = 1;
    s.path = g->nodes.v[old].path, s.srcloc = g->nodes.v[old].srcloc;
    repl[old] = na;
    add[na++] = s;
  }
  uint32_t after = x > W ? x : W;
  if (with_bias && bias > after) after = bias;
  insert_after(g, after, add, na, repl);
  free(repl);
  return true;
}

bool kg_pass_merge_products(kg_graph *g, kg_pass_ctx *c) {
  if (c->no_fold) return false;
  bool changed = false;
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (try_merge(g, i)) { /* the merged nodes sit before i now; the replaced ones are dead */
      changed = true;
      kg_pass_dce(g, c);
      i = 0;
    }
  return changed;
}
