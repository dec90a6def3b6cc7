/* perf/bench_grad.c — training: forward + backward of the model forwards against eager
 * autograd, from the compiled programs (no GPU needed), and kgen's host time on the null device.
 *
 *   bench_grad [--examples DIR] [--reps N] [--markdown]
 *
 * For every entry of every DIR/NAME.json (default examples/models) without host control flow,
 * compiled for the gradients of every floating parameter (its input and the captured weights:
 * kg_specialize_grad_sig), one row:
 *   - kernels: ours (the forward's, then the backward's) against eager PyTorch's forward (one
 *     kernel per tensor op, perf_common.h) and eager autograd's backward (the model below);
 *   - bytes moved by forward + backward: ours (kp_kernel_cost per kernel of both programs),
 *     eager's (the model below), and what our forward writes for the backward (saved values);
 *   - kgen's host time of a forward + backward on the null device (every binding, schedule
 *     choice and parameter marshalling, launches that return at once: kgen's own overhead),
 *     best of --reps (default 20), and the launch floor eager autograd pays (its kernels × 2 µs).
 * Eager autograd's backward, modelled per differentiable op of the typed program (what PyTorch
 * runs: one backward node per op): a kernel per operand that needs a gradient, reading the
 * output's gradient and the saved operands the formula uses (the op's other operands; unary ops
 * their input) and writing the operand's gradient; a broadcast operand one more kernel (the sum
 * back); products two products (2× the forward FLOPs); views free, expand a sum; a value with k
 * differentiable readers k − 1 accumulating adds. A benchmark, not a test: exits 1 only when an
 * entry fails to compile. docs/perf.md discusses the figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/perf_common.h"

#define LAUNCH_US 2.0

static bool is_view(const kg_gnode *n) {
  switch (n->op) {
  case KG_OP_RESHAPE: case KG_OP_PERMUTE: case KG_OP_SLICE: case KG_OP_SELECT: return true;
  default: return false;
  }
}

/* eager autograd's backward over g (model above): kernels and bytes */
static void eager_backward(const kg_graph *g, uint32_t *kernels, int64_t *bytes) {
  uint8_t *rg = kg_xcalloc(g->nodes.n + 1, 1);
  uint32_t *uses = kg_xcalloc(g->nodes.n + 1, sizeof *uses);
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    if (n->vkind == KG_V_TENSOR && kg_dtype_is_float((kg_dtype)n->dtype)) rg[g->params.v[p].node] = 1;
  }
  *kernels = 0, *bytes = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    unsigned fl = kg_op_get((kg_op)n->op)->flags;
    if (n->op == KG_OP_INPUT || n->vkind != KG_V_TENSOR || !kg_dtype_is_float((kg_dtype)n->dtype)) continue;
    if (fl & (KG_OPF_CMP | KG_OPF_LOGIC | KG_OPF_PRED | KG_OPF_BITS | KG_OPF_CREATE)) continue;
    bool any = false;
    for (int j = 0; j < n->n_in; j++) any |= rg[n->in[j]];
    if (!any) continue;
    rg[i] = 1;
    int64_t gb = kp_node_bytes(n);
    if (is_view(n)) continue;
    for (int j = 0; j < n->n_in; j++) {
      uint32_t u = n->in[j];
      if (!rg[u]) continue;
      uses[u]++;
      const kg_gnode *un = &g->nodes.v[u];
      int64_t ub = kp_node_bytes(un), saved = 0;
      for (int q = 0; q < n->n_in; q++)
        if (q != j || n->n_in == 1) saved += kp_node_bytes(&g->nodes.v[n->in[q]]);
      if (n->op == KG_OP_EXPAND) saved = 0;
      (*kernels)++, *bytes += gb + saved + ub;
      if (!kg_shape_equal(&un->shape, &n->shape) && !(fl & (KG_OPF_MATMUL | KG_OPF_REDUCE | KG_OPF_LAYOUT | KG_OPF_COMPOSITE)))
        (*kernels)++, *bytes += gb + ub; /* the sum back over broadcast dims */
    }
  }
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (uses[i] > 1) *kernels += uses[i] - 1, *bytes += (int64_t)(uses[i] - 1) * 3 * kp_node_bytes(&g->nodes.v[i]);
  free(rg), free(uses);
}

static void costs(const kg_compiled *c, uint32_t *k, int64_t *b) {
  *k = (uint32_t)kg_compiled_n_kernels(c), *b = 0;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    int64_t by;
    double f;
    kp_kernel_cost(c, gi, &by, &f);
    *b += by;
  }
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* a host tensor of node n's shape (kp_dim sizes), zeroed */
static void host_tensor(const kg_gnode *n, DLTensor *t, int64_t *shape, void **buf) {
  memset(t, 0, sizeof *t);
  int r = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
  size_t el = kg_dtype_get((kg_dtype)n->dtype)->size, cnt = 1;
  for (int i = 0; i < r; i++) shape[i] = kp_dim(&n->shape.d[i]), cnt *= (size_t)shape[i];
  *buf = kg_xcalloc(cnt ? cnt : 1, el);
  t->data = *buf, t->device.device_type = kDLCPU, t->ndim = r, t->dtype = kg_dtype_to_dl((kg_dtype)n->dtype), t->shape = shape;
}

/* kgen's host µs of a forward + backward on the null device (best of reps); -1 when a run fails */
static double host_time(kg_compiled *c, int reps) {
  const kg_graph *g = &c->g;
  kg_compiled *b = kg_compiled_backward(c);
  int np = (int)g->params.n, no = kg_compiled_n_outputs(c), nb = kg_compiled_backward_n_inputs(c), ng = kg_compiled_backward_n_outputs(c);
  int nres = no - kg_compiled_n_saved(c);
  DLTensor *pt = kg_xcalloc((size_t)(np + no + ng + 1), sizeof *pt);
  int64_t *sh = kg_xcalloc((size_t)(np + no + ng + 1) * KG_MAX_RANK, sizeof *sh);
  void **bufs = kg_xcalloc((size_t)(np + no + ng + 1), sizeof *bufs);
  const DLTensor **ins = kg_xcalloc((size_t)np + 1, sizeof *ins);
  kg_named_tensor *caps = kg_xcalloc((size_t)np + 1, sizeof *caps);
  DLTensor **outs = kg_xcalloc((size_t)no + 1, sizeof *outs), **gouts = kg_xcalloc((size_t)ng + 1, sizeof *gouts);
  const DLTensor **bins = kg_xcalloc((size_t)nb + 1, sizeof *bins);
  int ni = 0, nc = 0;
  for (int i = 0; i < np; i++) {
    host_tensor(&g->nodes.v[g->params.v[i].node], &pt[i], sh + KG_MAX_RANK * i, &bufs[i]);
    if (g->params.v[i].is_capture) caps[nc].name = g->params.v[i].name, caps[nc++].t = &pt[i];
    else ins[ni++] = &pt[i];
  }
  for (int o = 0; o < no; o++) {
    host_tensor(&g->nodes.v[g->outputs.v[o]], &pt[np + o], sh + KG_MAX_RANK * (np + o), &bufs[np + o]);
    outs[o] = &pt[np + o];
  }
  for (int o = 0; o < ng; o++) {
    int cap, idx;
    kg_compiled_backward_output(c, o, &cap, &idx);
    uint32_t p = cap ? g->n_entry_params + (uint32_t)idx : (uint32_t)idx;
    host_tensor(&g->nodes.v[g->params.v[p].node], &pt[np + no + o], sh + KG_MAX_RANK * (np + no + o), &bufs[np + no + o]);
    gouts[o] = &pt[np + no + o];
  }
  for (int i = 0; i < nb; i++) {
    int src, idx;
    kg_compiled_backward_input(c, i, &src, &idx);
    bins[i] = src == KG_BWD_IN_GRAD || src == KG_BWD_IN_RESULT ? outs[idx] : src == KG_BWD_IN_INPUT ? ins[idx] : src == KG_BWD_IN_CAPTURE ? caps[idx].t
                                                                                                                       : outs[nres + idx];
  }
  double best = -1;
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    if (kg_run(c, KG_DEVICE_NULL, ins, ni, caps, nc, outs, no, NULL) != KG_OK || kg_run(b, KG_DEVICE_NULL, bins, nb, NULL, 0, gouts, ng, NULL) != KG_OK) {
      best = -1;
      break;
    }
    double t = now_us() - t0;
    if (best < 0 || t < best) best = t;
  }
  for (int i = 0; i < np + no + ng; i++) free(bufs[i]);
  free(pt), free(sh), free(bufs), free(ins), free(caps), free(outs), free(gouts), free(bins);
  return best;
}

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples/models";
  bool md = false;
  int reps = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--markdown")) md = true;
    else {
      fprintf(stderr, "usage: bench_grad [--examples DIR] [--reps N] [--markdown]\n");
      return 2;
    }
  }
  char **names;
  int nn = kp_list_json(dir, NULL, &names);
  if (nn < 0) {
    fprintf(stderr, "bench_grad: cannot open %s\n", dir);
    return 1;
  }
  kg_options o;
  memset(&o, 0, sizeof o);
  kg_context *ctx = kg_context_new(&o);
  int fails = 0, rows = 0;
  uint32_t tk = 0, te = 0;
  int64_t tb = 0, teb = 0;
  double th = 0;
  if (md)
    printf("| file | forward | kernels ours fwd + bwd / eager fwd + bwd | MB ours / eager (fwd + bwd) | saved KB | host µs ours (null device) | eager launch floor µs |\n"
           "|---|---|---|---|---|---|---|\n");
  else
    printf("%-14s %-28s %-22s %-20s %9s %10s %10s\n", "file", "forward", "kernels o(f+b)/e(f+b)", "MB ours/eager", "saved KB", "host us", "eager lf");
  for (int i = 0; i < nn; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    names[i][strlen(names[i]) - 5] = 0;
    size_t len;
    char *doc = kg_read_file(path, &len);
    kg_module *m = NULL;
    if (!doc || kg_module_load(ctx, doc, len, &m) != KG_OK) {
      fprintf(stderr, "bench_grad: %s: %s\n", names[i], kg_last_error(ctx));
      fails++;
      free(doc);
      continue;
    }
    free(doc);
    for (int en = 0; en < kg_module_n_entries(m); en++) {
      const char *entry = kg_module_entry_name(m, en);
      kg_compiled *plain = NULL, *c = NULL;
      if (kg_specialize(m, entry, NULL, &plain) != KG_OK) {
        fprintf(stderr, "bench_grad: %s/%s: %s\n", names[i], entry, kg_last_error(ctx));
        fails++;
        continue;
      }
      if (plain->plan) { /* host control flow: kgen does not differentiate it */
        kg_compiled_free(plain);
        continue;
      }
      if (kg_specialize_grad_sig(m, entry, NULL, &c) != KG_OK) {
        fprintf(stderr, "bench_grad: %s/%s: %s\n", names[i], entry, kg_last_error(ctx));
        fails++;
        kg_compiled_free(plain);
        continue;
      }
      kp_eager ef;
      kp_eager_cost(&plain->g, &ef);
      uint32_t ebk;
      int64_t ebb;
      eager_backward(&plain->g, &ebk, &ebb);
      uint32_t fk, bk;
      int64_t fb, bb;
      costs(c, &fk, &fb), costs(c->bwd, &bk, &bb);
      int64_t saved = 0;
      uint32_t nres = kg_graph_n_results(&c->g) - c->n_saved;
      for (uint32_t s = 0; s < c->n_saved; s++) saved += kp_node_bytes(&c->g.nodes.v[c->g.outputs.v[nres + s]]);
      double h = host_time(c, reps);
      uint32_t ek = ef.kernels + ebk;
      if (md)
        printf("| %s | %s | %u + %u / %u + %u | %.2f / %.2f | %.1f | %.1f | %.0f |\n", names[i], entry, fk, bk, ef.kernels, ebk, (fb + bb) / 1048576.0,
               (ef.bytes + ebb) / 1048576.0, saved / 1024.0, h, ek * LAUNCH_US);
      else
        printf("%-14s %-28s %3u + %-3u / %4u + %-5u %8.2f / %-9.2f %9.1f %10.1f %10.0f\n", names[i], entry, fk, bk, ef.kernels, ebk, (fb + bb) / 1048576.0,
               (ef.bytes + ebb) / 1048576.0, saved / 1024.0, h, ek * LAUNCH_US);
      rows++, tk += fk + bk, te += ek, tb += fb + bb, teb += ef.bytes + ebb, th += h > 0 ? h : 0;
      kg_compiled_free(c);
      kg_compiled_free(plain);
    }
    kg_module_free(m);
  }
  printf("\n%d forwards with their backwards: kernels %u ours / %u eager autograd (%.2fx fewer); bytes eager / ours %.2f; kgen host time %.0f µs in all "
         "on the null device against an eager launch floor of %.0f µs\n",
         rows, tk, te, tk ? (double)te / tk : 0.0, tb ? (double)teb / (double)tb : 0.0, th, te * LAUNCH_US);
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(ctx);
  return fails ? 1 : 0;
}
