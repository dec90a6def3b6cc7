/* passes/merge_products.c — products of one input with adjacent row slices of one weight, or with
 * separate small weights at few rows, become one product, its results sliced back out.
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
 * runs check the separate products. The TorchScript twin keeps the three.
 *
 * Then separate weights: q, k, v projections written with three weights (Llama, NasBert), an
 * MLP's gate and up — products of one input with weights [n_j, K] of one dtype, all with a bias
 * vector or all without, none a result — become one product over CAT(W_1 .. W_n) (along dim 0;
 * the biases likewise), each result a slice of it, where the scheduler wants it
 * (kg_schedule_merge_siblings: few static rows; from KG_MM_TC_MIN_ROWS rows, weights that are
 * tensors (cp.async copies the concatenation a row from its own weight) or few bytes of others;
 * with merge_symbolic, rows unknown too: the merge plan of runtime/exec_plans.c, which a run takes
 * only where the scheduler wants the merge at its rows). A weight or
 * bias defined after the first product (a cast of a captured weight) moves before the merged one
 * (kg_graph_insert; only inputs, constants, casts and views move: `movable`).
 *
 *   before: %m_j = MATMUL(x, W_j) ia=[4]  [.., n_j]    (%a_j = ADD(%m_j, b_j): each or none)
 *   after:  %M = MATMUL(x, CAT(W_1 .. W_n)) [.., Σn_j]; %A = ADD(%M, CAT(b_1 .. b_n))
 *           %a_j → SLICE(%A) ia=[last, Σ_{i<j} n_i, 1] */
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

#define NEW(a) KG_GRAPH_NEW(a)

/* A layout node of one operand (CAT along dim 0, SLICE of the last dim) */
static kg_gnode layout_node(kg_op op, kg_dtype dt, const kg_shape *sh, const kg_gnode *at) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = KG_V_TENSOR, n.shape = *sh;
  n.path = at->path, n.srcloc = at->srcloc;
  return n;
}

/* Appends to add[0 .. na) each member's slice of the merged result `res` (of its bias sum, or of
 * its product: the last dim from its start − base) and rebuilds g with add inserted before node
 * pos, whatever read a member reading its slice (add has room for the slices). */
static void insert_merged(kg_graph *g, uint32_t pos, kg_gnode *add, uint32_t na, uint32_t res, const member *mem, int nm, bool with_bias,
                          int r, int64_t base) {
  uint32_t *repl = kg_xmalloc((g->nodes.n + 1) * sizeof *repl);
  for (uint32_t k = 0; k < g->nodes.n; k++) repl[k] = KG_NONE;
  for (int k = 0; k < nm; k++) {
    uint32_t old = with_bias ? mem[k].a : mem[k].m;
    const kg_gnode *o = &g->nodes.v[old];
    kg_gnode s = layout_node(KG_OP_SLICE, (kg_dtype)o->dtype, &o->shape, o);
    s.n_in = 1, s.in[0] = res, s.ia[0] = r - 1, s.ia[1] = mem[k].start - base, s.ia[2] = 1;
    repl[old] = na;
    add[na++] = s;
  }
  kg_graph_insert(g, pos, add, na, repl);
  free(repl);
}

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
  uint32_t after = x > W ? x : W;
  if (with_bias && bias > after) after = bias;
  insert_merged(g, after + 1, add, na, res, mem, nm, with_bias, r, mem[0].start);
  return true;
}

/* ---- separate weights: one product over their concatenation ---- */

/* Can node id move before node pos (kg_graph_insert)? Already before it, or an input, a constant,
 * or a cast or layout view of such (a captured weight cast to the product's dtype), at most 8
 * deep: moving those earlier changes no value. */
static bool movable(const kg_graph *g, uint32_t id, uint32_t pos, int depth) {
  if (id < pos) return true;
  const kg_gnode *n = &g->nodes.v[id];
  if (n->op == KG_OP_INPUT || n->op == KG_OP_CONST) return true;
  if (depth >= 8 || !(kg_op_get((kg_op)n->op)->flags & (KG_OPF_CAST | KG_OPF_LAYOUT))) return false;
  for (int j = 0; j < n->n_in; j++)
    if (!movable(g, n->in[j], pos, depth + 1)) return false;
  return true;
}

/* The bias sum ADD(m, b) that is m's only reader, b a vector as long as m's last dim, or KG_NONE */
static uint32_t vector_bias_of(const kg_graph *g, const uint32_t *uses, uint32_t m, uint32_t *bias) {
  if (uses[m] != 1) return KG_NONE;
  const kg_gnode *mn = &g->nodes.v[m];
  for (uint32_t i = m + 1; i < g->nodes.n; i++) {
    const kg_gnode *a = &g->nodes.v[i];
    if (a->op != KG_OP_ADD || a->n_in != 2 || a->in[0] != m) continue;
    const kg_gnode *b = &g->nodes.v[a->in[1]];
    if (!kg_shape_equal(&a->shape, &mn->shape) || b->shape.rank != 1 || b->vkind != KG_V_TENSOR || !kg_shape_equal(&b->shape, &(kg_shape){.rank = 1, .d = {mn->shape.d[mn->shape.rank - 1]}}))
      return KG_NONE;
    *bias = a->in[1];
    return i;
  }
  return KG_NONE;
}


/* Merges the products of x with separate weights [n_j, K] (and their bias sums) found from
 * product i, when the scheduler wants them merged at x's rows and the weights' size
 * (kg_schedule_merge_siblings). */
static bool try_siblings(kg_graph *g, uint32_t i, bool symbolic) {
  const kg_gnode *m0 = &g->nodes.v[i];
  int r = m0->shape.rank;
  if (m0->op != KG_OP_MATMUL || m0->ia[0] != 4 || m0->vkind != KG_V_TENSOR || m0->n_in != 2 || r < 2) return false;
  int64_t rows = 1;
  bool sym = false;
  for (int d = 0; d < r - 1; d++) {
    if (m0->shape.d[d].kind != KG_DIM_STATIC) sym = true;
    else rows *= m0->shape.d[d].v;
  }
  if (sym && !symbolic) return false;
  if (sym) rows = 1; /* the merge plan: a run takes it only where its rows (and weights) allow (exec.c) */
  if (!kg_schedule_merge_siblings(rows, 0, true)) return false; /* the weights: checked once they are known */
  uint32_t x = m0->in[0];
  kg_dtype wdt = (kg_dtype)g->nodes.v[m0->in[1]].dtype, bdt = KG_DT_NONE;
  uint32_t *uses = kg_graph_use_counts(g);
  member mem[8];
  uint32_t bias[8];
  int nm = 0;
  bool with_bias = false;
  for (uint32_t j = i; j < g->nodes.n && nm < 8; j++) {
    const kg_gnode *m = &g->nodes.v[j], *w = &g->nodes.v[m->in[1]];
    if (m->op != KG_OP_MATMUL || m->ia[0] != 4 || m->n_in != 2 || m->in[0] != x || m->vkind != KG_V_TENSOR || m->dtype != m0->dtype ||
        m->cdtype != m0->cdtype || m->ia[1] != m0->ia[1] || m->ia[2] != m0->ia[2] || m->shape.rank != r)
      continue;
    if (w->shape.rank != 2 || w->shape.d[0].kind != KG_DIM_STATIC || w->dtype != wdt || is_output(g, j) || !movable(g, m->in[1], i, 0)) continue;
    uint32_t b = KG_NONE, a = vector_bias_of(g, uses, j, &b);
    if (a != KG_NONE && (is_output(g, a) || !movable(g, b, i, 0))) a = KG_NONE;
    if (nm == 0) with_bias = a != KG_NONE, bdt = a != KG_NONE ? (kg_dtype)g->nodes.v[b].dtype : KG_DT_NONE;
    if ((a != KG_NONE) != with_bias || (with_bias && g->nodes.v[b].dtype != bdt)) continue;
    bias[nm] = b;
    mem[nm++] = (member){j, a, 0, w->shape.d[0].v};
  }
  free(uses);
  if (nm < 2) return false;
  int64_t total = 0;
  for (int k = 0; k < nm; k++) mem[k].start = total, total += mem[k].n;
  const kg_dim *kd = &g->nodes.v[m0->in[1]].shape.d[1];
  if (kd->kind != KG_DIM_STATIC) return false;
  uint32_t ws[8];
  for (int k = 0; k < nm; k++) ws[k] = g->nodes.v[mem[k].m].in[1];
  if (!kg_schedule_merge_siblings(rows, total * kd->v * (int64_t)kg_dtype_get(wdt)->size, kg_merge_weights_by_rows(g, ws, nm))) return false;
  /* the merged nodes: CAT(weights), MATMUL, [CAT(biases), ADD], then each member's slice of the result */
  kg_gnode add[4 + 8];
  uint32_t na = 0;
  kg_shape sh = g->nodes.v[m0->in[1]].shape;
  sh.d[0].v = total;
  kg_gnode cw = layout_node(KG_OP_CAT, wdt, &sh, m0);
  cw.n_in = (uint8_t)nm;
  for (int k = 0; k < nm; k++) cw.in[k] = g->nodes.v[mem[k].m].in[1];
  add[na++] = cw;
  kg_gnode mm = *m0;
  mm.in[1] = NEW(0), mm.shape.d[r - 1] = (kg_dim){KG_DIM_STATIC, total};
  add[na++] = mm;
  uint32_t res = NEW(1);
  if (with_bias) {
    kg_gnode cb = layout_node(KG_OP_CAT, bdt, &(kg_shape){.rank = 1, .d = {{KG_DIM_STATIC, total}}}, m0);
    cb.n_in = (uint8_t)nm;
    for (int k = 0; k < nm; k++) cb.in[k] = bias[k];
    add[na++] = cb;
    kg_gnode ad = g->nodes.v[mem[0].a];
    ad.in[0] = NEW(1), ad.in[1] = NEW(2), ad.shape = mm.shape;
    add[na++] = ad;
    res = NEW(3);
  }
  insert_merged(g, i, add, na, res, mem, nm, with_bias, r, 0);
  return true;
}

bool kg_pass_merge_products(kg_graph *g, kg_pass_ctx *c) {
  if (c->no_fold) return false;
  bool changed = false;
  /* slices of one weight first (a view, no prologue), then separate weights (which may take
   * such a merged product as one of theirs) */
  for (int phase = 0; phase < 2; phase++)
    for (uint32_t i = 0; i < g->nodes.n; i++)
      if (phase ? try_siblings(g, i, c->merge_symbolic) : try_merge(g, i)) { /* the merged nodes sit at or before i now; the replaced ones are dead */
        changed = true;
        kg_pass_dce(g, c);
        i = 0;
      }
  return changed;
}
