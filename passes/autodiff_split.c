/* passes/autodiff_split.c — what the forward saves for the backward and what the backward
 * recomputes, and the two programs.
 *
 * The backward's rules read forward values (x for d(x²), the product's operands, softmax's max
 * and sum). Each such value either travels — the forward writes it, the backward reads it — or
 * the backward computes it again from values that travel. What travels is a minimum cut of bytes
 * moved (as AOTAutograd's partitioner): in a flow network over the forward values the backward
 * needs directly or through cheap recomputation,
 *   - a value costs its bytes to carry once already in memory (a parameter: the backward reads
 *     the caller's tensor; a result: the caller holds it) and twice otherwise (the forward writes
 *     it, the backward reads it);
 *   - pointwise and layout values (views, slices, random draws — the backward draws the same
 *     Philox bits again —, window reads) may be recomputed; reductions, scans and products may
 *     not (a second pass over their inputs, or a second product);
 *   - a value the backward reads must reach it; a parameter or a value that may not be recomputed
 *     starts on the forward side.
 * The cut's values are saved, everything the backward needs below them is recomputed (fused into
 * the backward's kernels: relu's mask, dropout's mask, gelu of a saved pre-activation). Sizes
 * that are symbols count at the caller's sizes (sym_hint), else 256.
 *
 * The forward is lg with the saved values as outputs between its results and its write-backs;
 * the backward takes the results' gradients, then the saved values (parameters and results
 * travel as themselves), and returns the wanted parameters' gradients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autodiff.h"

#define INF_CAP ((int64_t)1 << 60)

/* ---- max flow (Dinic) ---- */

typedef struct fedge { uint32_t to, next; int64_t cap; } fedge;
typedef struct flow {
  KG_VEC(fedge) e;
  uint32_t *head, *level, *it, n;
} flow;

static void flow_init(flow *F, uint32_t n) {
  memset(F, 0, sizeof *F);
  F->n = n;
  F->head = kg_xmalloc((n + 1) * sizeof *F->head);
  F->level = kg_xmalloc((n + 1) * sizeof *F->level);
  F->it = kg_xmalloc((n + 1) * sizeof *F->it);
  for (uint32_t i = 0; i < n; i++) F->head[i] = KG_NONE;
}

static void flow_free(flow *F) {
  KG_VEC_FREE(F->e);
  free(F->head), free(F->level), free(F->it);
}

static void flow_edge(flow *F, uint32_t a, uint32_t b, int64_t cap) {
  fedge f = {b, F->head[a], cap}, r = {a, F->head[b], 0};
  KG_VEC_PUSH(F->e, f);
  F->head[a] = F->e.n - 1;
  KG_VEC_PUSH(F->e, r);
  F->head[b] = F->e.n - 1;
}

static bool flow_bfs(flow *F, uint32_t s, uint32_t t) {
  for (uint32_t i = 0; i < F->n; i++) F->level[i] = KG_NONE;
  uint32_t *q = kg_xmalloc((F->n + 1) * sizeof *q), qh = 0, qt = 0;
  F->level[s] = 0, q[qt++] = s;
  while (qh < qt) {
    uint32_t u = q[qh++];
    for (uint32_t e = F->head[u]; e != KG_NONE; e = F->e.v[e].next)
      if (F->e.v[e].cap > 0 && F->level[F->e.v[e].to] == KG_NONE) F->level[F->e.v[e].to] = F->level[u] + 1, q[qt++] = F->e.v[e].to;
  }
  free(q);
  return F->level[t] != KG_NONE;
}

/* an augmenting path's flow by depth-first search over the level graph (iterative) */
static int64_t flow_dfs(flow *F, uint32_t s, uint32_t t) {
  uint32_t *path = kg_xmalloc((F->n + 1) * sizeof *path); /* edges taken */
  uint32_t depth = 0, u = s;
  int64_t got = 0;
  for (;;) {
    if (u == t) {
      int64_t f = INF_CAP;
      for (uint32_t i = 0; i < depth; i++) f = F->e.v[path[i]].cap < f ? F->e.v[path[i]].cap : f;
      for (uint32_t i = 0; i < depth; i++) F->e.v[path[i]].cap -= f, F->e.v[path[i] ^ 1].cap += f;
      got = f;
      break;
    }
    uint32_t e = F->it[u];
    while (e != KG_NONE && !(F->e.v[e].cap > 0 && F->level[F->e.v[e].to] == F->level[u] + 1)) e = F->e.v[e].next;
    F->it[u] = e;
    if (e == KG_NONE) { /* dead end: retreat */
      F->level[u] = KG_NONE;
      if (!depth) break;
      u = F->e.v[path[--depth] ^ 1].to;
      F->it[u] = F->e.v[F->it[u]].next;
      continue;
    }
    path[depth++] = e;
    u = F->e.v[e].to;
  }
  free(path);
  return got;
}

static void flow_run(flow *F, uint32_t s, uint32_t t) {
  while (flow_bfs(F, s, t)) {
    for (uint32_t i = 0; i < F->n; i++) F->it[i] = F->head[i];
    while (flow_dfs(F, s, t) > 0) {}
  }
}

/* ---- costs ---- */

static double value_bytes(const kg_graph *g, const kg_gnode *n, const int64_t *hint) {
  if (n->vkind == KG_V_SCALAR) return 8;
  double e = kg_dtype_get((kg_dtype)n->dtype)->size;
  for (int i = 0; i < n->shape.rank; i++) {
    const kg_dim *d = &n->shape.d[i];
    if (d->kind == KG_DIM_STATIC) e *= (double)d->v;
    else {
      int64_t h = hint && (uint64_t)d->v < g->syms.n ? hint[d->v] : -1;
      const kg_symdef *sd = kg_graph_symdef(g, (uint32_t)d->v);
      if (h < 0 && sd) { /* a product of symbols: the product of their hints */
        double p = (double)sd->coeff;
        for (int k = 0; k < sd->n; k++) p *= hint && hint[sd->f[k]] >= 0 ? (double)hint[sd->f[k]] : 256;
        e *= p;
      } else {
        e *= h >= 0 ? (double)h : 256;
      }
    }
  }
  return e;
}

/* may the backward compute it again? pointwise and layout values: yes; reductions, scans,
 * products: no */
static bool recomputable(const kg_gnode *n) {
  const kg_op_info *oi = kg_op_get((kg_op)n->op);
  if (n->op == KG_OP_INPUT || n->op == KG_OP_PLANVAL) return false;
  return !(oi->flags & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL | KG_OPF_COMPOSITE));
}

/* ---- the cut ---- */

typedef struct split {
  kg_ad *A;
  const kg_graph *lg;
  uint32_t nf;
  uint8_t *bneed;   /* per j node: the backward computes it (needed by a gradient) */
  uint8_t *fneed;   /* per forward node: the backward reads it directly */
  uint8_t *anc;     /* per forward node: below a value the backward reads (in the network) */
  uint8_t *saved;   /* per forward node: travels from the forward */
  uint8_t *recomp;  /* per forward node: the backward computes it again */
  uint8_t *is_res;  /* per forward node: 1 + the result index, 0: none */
} split;

static bool is_free(const kg_gnode *n) { return n->op == KG_OP_CONST; }

/* a parameter's INPUT node the forward updates in place (a write-back): the backward cannot read
 * the caller's tensor afterwards, so the forward saves a copy */
static bool overwritten(const kg_graph *lg, uint32_t v) {
  for (uint32_t i = 0; i < lg->params.n; i++)
    if (lg->params.v[i].node == v) return lg->params.v[i].wb != 0;
  return false;
}

static void cut(split *S, const int64_t *hint) {
  const kg_graph *j = S->A->j;
  uint32_t nf = S->nf;
  /* the network's nodes: the forward values below what the backward reads */
  for (uint32_t v = nf; v-- > 0;) {
    if (S->fneed[v]) S->anc[v] = 1;
    if (!S->anc[v]) continue;
    const kg_gnode *n = &j->nodes.v[v];
    if (!recomputable(n)) continue; /* its operands stay in the forward */
    for (int k = 0; k < n->n_in; k++) S->anc[n->in[k]] = 1;
  }
  uint32_t src = 2 * nf, snk = 2 * nf + 1;
  flow F;
  flow_init(&F, 2 * nf + 2);
  for (uint32_t v = 0; v < nf; v++) {
    const kg_gnode *n = &j->nodes.v[v];
    if (!S->anc[v] || is_free(n)) continue;
    double by = value_bytes(j, n, hint);
    bool in_memory = (n->op == KG_OP_INPUT && !overwritten(S->lg, v)) || S->is_res[v];
    int64_t cap = (int64_t)(by * (in_memory ? 1 : 2)) + 1;
    flow_edge(&F, 2 * v, 2 * v + 1, cap);
    if (!recomputable(n)) flow_edge(&F, src, 2 * v, INF_CAP);
    else
      for (int k = 0; k < n->n_in; k++)
        if (S->anc[n->in[k]] && !is_free(&j->nodes.v[n->in[k]])) flow_edge(&F, 2 * n->in[k] + 1, 2 * v, INF_CAP);
    if (S->fneed[v]) flow_edge(&F, 2 * v + 1, snk, INF_CAP);
  }
  flow_run(&F, src, snk);
  /* the source side of the residual network; a value whose in-node is on it and out-node is not
   * is cut: saved */
  uint8_t *side = kg_xcalloc(2 * nf + 3, 1);
  uint32_t *q = kg_xmalloc((2 * nf + 3) * sizeof *q), qh = 0, qt = 0;
  side[src] = 1, q[qt++] = src;
  while (qh < qt) {
    uint32_t u = q[qh++];
    for (uint32_t e = F.head[u]; e != KG_NONE; e = F.e.v[e].next)
      if (F.e.v[e].cap > 0 && !side[F.e.v[e].to]) side[F.e.v[e].to] = 1, q[qt++] = F.e.v[e].to;
  }
  for (uint32_t v = 0; v < nf; v++)
    if (S->anc[v] && !is_free(&j->nodes.v[v]) && side[2 * v] && !side[2 * v + 1]) S->saved[v] = 1;
  free(side), free(q);
  flow_free(&F);
}

/* marks what the backward computes, from the gradients down to saved values */
static void mark_backward(split *S, const uint32_t *param_grad) {
  const kg_graph *j = S->A->j;
  for (uint32_t i = 0; i < S->lg->params.n; i++)
    if (param_grad[i] != KG_NONE) S->bneed[param_grad[i]] = 1;
  for (uint32_t v = j->nodes.n; v-- > S->nf;) {
    if (!S->bneed[v]) continue;
    const kg_gnode *n = &j->nodes.v[v];
    for (int k = 0; k < n->n_in; k++) {
      if (n->in[k] >= S->nf) S->bneed[n->in[k]] = 1;
      else S->fneed[n->in[k]] = 1;
    }
  }
}

/* the forward values the backward computes again: from what it reads down to saved values */
static void mark_recompute(split *S) {
  const kg_graph *j = S->A->j;
  for (uint32_t v = S->nf; v-- > 0;) {
    if (!(S->fneed[v] || S->recomp[v]) || S->saved[v]) continue;
    S->recomp[v] = 1;
    const kg_gnode *n = &j->nodes.v[v];
    for (int k = 0; k < n->n_in; k++) S->recomp[n->in[k]] = 1;
  }
  for (uint32_t v = 0; v < S->nf; v++)
    if (S->saved[v]) S->recomp[v] = 0;
}

static const char *node_line(const kg_graph *g, uint32_t id, char *buf, size_t cap) {
  const kg_gnode *n = &g->nodes.v[id];
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b, "%%%u = %s:%s", id, kg_op_name((kg_op)n->op), kg_dtype_name((kg_dtype)n->dtype));
  if (n->vkind == KG_V_TENSOR) kg_shape_print(g, &n->shape, &b);
  if (n->srcloc) kg_sb_printf(&b, "  @ %s", n->srcloc);
  snprintf(buf, cap, "%s", kg_sb_cstr(&b));
  kg_sb_free(&b);
  return buf;
}

static kg_gnode input_node(const kg_gnode *like, uint32_t index) {
  kg_gnode in;
  memset(&in, 0, sizeof in);
  in.op = KG_OP_INPUT, in.dtype = in.cdtype = like->dtype, in.vkind = like->vkind, in.shape = like->shape;
  in.ia[0] = index, in.path = like->path, in.srcloc = like->srcloc;
  return in;
}

bool kg_ad_split(kg_ad *A, const kg_graph *lg, const uint32_t *grad_in, const uint32_t *param_grad, const int64_t *sym_hint,
                 kg_grad_programs *out, kg_pass_ctx *c) {
  (void)c;
  const kg_graph *j = A->j;
  split S;
  memset(&S, 0, sizeof S);
  S.A = A, S.lg = lg, S.nf = A->nf;
  uint32_t nj = j->nodes.n;
  S.bneed = kg_xcalloc(nj + 1, 1);
  S.fneed = kg_xcalloc(nj + 1, 1), S.anc = kg_xcalloc(nj + 1, 1), S.saved = kg_xcalloc(nj + 1, 1), S.recomp = kg_xcalloc(nj + 1, 1);
  S.is_res = kg_xcalloc(nj + 1, 1);
  uint32_t nres = kg_graph_n_results(lg);
  for (uint32_t i = nres; i-- > 0;) S.is_res[lg->outputs.v[i]] = (uint8_t)(i < 255 ? i + 1 : 0);
  mark_backward(&S, param_grad);
  cut(&S, sym_hint);
  mark_recompute(&S);
  /* ---- the forward: lg's outputs, then the saved values it computes, then the write-backs ---- */
  kg_graph *fw = &out->fwd;
  kg_graph_clone(fw, lg);
  fw->outputs.n = 0;
  for (uint32_t i = 0; i < nres; i++) KG_VEC_PUSH(fw->outputs, lg->outputs.v[i]);
  uint32_t *saved_out = kg_xmalloc((nj + 1) * sizeof *saved_out); /* per forward node: its saved output index */
  out->n_saved = 0;
  for (uint32_t v = 0; v < S.nf; v++) {
    saved_out[v] = KG_NONE;
    const kg_gnode *n = &j->nodes.v[v];
    if (!S.saved[v] || (n->op == KG_OP_INPUT && !overwritten(lg, v)) || S.is_res[v]) continue;
    saved_out[v] = out->n_saved++;
    uint32_t o = v;
    if (n->op == KG_OP_INPUT) { /* a copy of the value the forward's write-back overwrites */
      kg_gnode cp = *n;
      cp.op = KG_OP_CAST, cp.n_in = 1, cp.in[0] = v, cp.ia[0] = cp.ia[1] = 0;
      o = kg_graph_add(fw, &cp);
    }
    KG_VEC_PUSH(fw->outputs, o);
  }
  for (uint32_t i = 0; i < fw->params.n; i++)
    if (fw->params.v[i].wb) {
      uint32_t o = lg->outputs.v[fw->params.v[i].wb - 1];
      KG_VEC_PUSH(fw->outputs, o);
      fw->params.v[i].wb = fw->outputs.n;
    }
  /* ---- the backward ---- */
  kg_graph *bw = &out->bwd;
  kg_graph_copy_syms(bw, lg);
  for (uint32_t i = 0; i < lg->guards.n; i++) KG_VEC_PUSH(bw->guards, lg->guards.v[i]);
  for (uint32_t i = 0; i < lg->fns.n; i++) KG_VEC_PUSH(bw->fns, lg->fns.v[i]);
  bw->fns_borrowed = true;
  uint32_t *map = kg_xmalloc((nj + 1) * sizeof *map);
  for (uint32_t i = 0; i < nj; i++) map[i] = KG_NONE;
  out->bwd_params = kg_xcalloc(nj + nres + 1, sizeof *out->bwd_params);
  out->n_bwd_params = 0;
  uint32_t np = 0;
  const char *nm;
  for (uint32_t i = 0; i < nres; i++) { /* the results' gradients */
    uint32_t gi = grad_in[i];
    if (gi == KG_NONE || !S.bneed[gi]) continue;
    kg_gnode in = input_node(&j->nodes.v[gi], np);
    map[gi] = kg_graph_add(bw, &in);
    nm = kg_arena_printf(lg->arena, "grad_out%u", i);
    kg_gparam p = {nm, false, map[gi], NULL, 0, false};
    KG_VEC_PUSH(bw->params, p);
    out->bwd_params[np++] = (kg_bwd_param){KG_BWD_GRAD, i};
  }
  for (uint32_t v = 0; v < S.nf; v++) { /* the saved values */
    if (!S.saved[v]) continue;
    const kg_gnode *n = &j->nodes.v[v];
    kg_gnode in = input_node(n, np);
    map[v] = kg_graph_add(bw, &in);
    kg_bwd_param bp;
    if (n->op == KG_OP_INPUT && !overwritten(lg, v)) {
      uint32_t pi = 0;
      while (pi < lg->params.n && lg->params.v[pi].node != v) pi++;
      bp = (kg_bwd_param){KG_BWD_PARAM, pi};
      nm = pi < lg->params.n ? lg->params.v[pi].name : "param";
    } else if (S.is_res[v]) {
      bp = (kg_bwd_param){KG_BWD_RESULT, S.is_res[v] - 1u};
      nm = kg_arena_printf(lg->arena, "result%u", S.is_res[v] - 1u);
    } else {
      bp = (kg_bwd_param){KG_BWD_SAVED, saved_out[v]};
      nm = kg_arena_printf(lg->arena, "saved%u", saved_out[v]);
    }
    kg_gparam p = {nm, false, map[v], NULL, 0, false};
    KG_VEC_PUSH(bw->params, p);
    out->bwd_params[np++] = bp;
  }
  out->n_bwd_params = np;
  bw->n_entry_params = np;
  /* the recomputed forward values and the gradients' nodes, in j's order */
  for (uint32_t v = 0; v < nj; v++) {
    if (map[v] != KG_NONE) continue;
    const kg_gnode *n = &j->nodes.v[v];
    bool want = v < S.nf ? (S.recomp[v] || (is_free(n) && S.fneed[v])) : S.bneed[v];
    if (!want) continue;
    kg_gnode m = *n;
    bool ok = true;
    for (int k = 0; k < m.n_in; k++) {
      if (map[m.in[k]] == KG_NONE) ok = false;
      m.in[k] = map[m.in[k]];
    }
    if (!ok) { /* an operand neither saved nor computed: a bug of the cut */
      kg_diag_add(A->d, KG_E_INTERNAL, n->path, n->srcloc, "gradients: %%%u (%s) needs a value the backward neither receives nor computes", v,
                  kg_op_name((kg_op)n->op));
      free(map), free(saved_out), free(S.bneed), free(S.fneed), free(S.anc), free(S.saved), free(S.recomp), free(S.is_res);
      return false;
    }
    map[v] = kg_graph_add(bw, &m);
  }
  out->grads = kg_xcalloc(lg->params.n + 1, sizeof *out->grads);
  out->n_grads = 0;
  for (uint32_t i = 0; i < lg->params.n; i++) {
    if (param_grad[i] == KG_NONE) continue;
    KG_VEC_PUSH(bw->outputs, map[param_grad[i]]);
    out->grads[out->n_grads++] = i;
  }
  /* ---- explain: what travels and what is computed again ---- */
  kg_strbuf e;
  kg_sb_init(&e);
  double saved_bytes = 0, naive = 0;
  uint32_t n_saved = 0, n_recomp = 0;
  char line[400];
  kg_sb_puts(&e, "== gradients: saved by the forward for the backward\n");
  for (uint32_t v = 0; v < S.nf; v++) {
    if (!S.saved[v]) continue;
    const kg_gnode *n = &j->nodes.v[v];
    double by = value_bytes(j, n, sym_hint);
    bool param = n->op == KG_OP_INPUT && !overwritten(lg, v);
    saved_bytes += param || S.is_res[v] ? 0 : by;
    n_saved++;
    kg_sb_printf(&e, "  %s%s\n", node_line(j, v, line, sizeof line),
                 param ? "  (a parameter: read again)" : S.is_res[v] ? "  (a result: read again)" : "  (written by the forward)");
  }
  kg_sb_puts(&e, "== gradients: recomputed by the backward\n");
  for (uint32_t v = 0; v < S.nf; v++) {
    if (!S.recomp[v] || is_free(&j->nodes.v[v])) continue;
    n_recomp++;
    kg_sb_printf(&e, "  %s\n", node_line(j, v, line, sizeof line));
  }
  for (uint32_t v = 0; v < S.nf; v++)
    if (S.fneed[v] && !is_free(&j->nodes.v[v]) && j->nodes.v[v].op != KG_OP_INPUT && !S.is_res[v]) naive += value_bytes(j, &j->nodes.v[v], sym_hint);
  kg_sb_printf(&e, "== gradients: %u value(s) saved (%.0f bytes written by the forward), %u recomputed; saving every value the backward reads would write %.0f bytes\n",
               n_saved, saved_bytes, n_recomp, naive);
  out->explain = kg_sb_take(&e);
  free(map), free(saved_out), free(S.bneed), free(S.fneed), free(S.anc), free(S.saved), free(S.recomp), free(S.is_res);
  return true;
}
