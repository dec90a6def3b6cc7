/* perf/bench_plan.c — the host plan's overhead per launch, beside eager PyTorch.
 *
 *   bench_plan [--steps N] [--reps N] [--python PATH] [--markdown]
 *
 * Three loops from examples/ (cf_rnn_elman, cf_lstm, cf_for_scalar_bound) are specialized
 * with a symbolic number of steps T and run for N steps (default 2000) on the null device
 * (runtime/dev_null.c): every plan step, every region's binding, variant choice and
 * parameter marshalling, the buffer pool — all of kgen's host work — happens; the kernel
 * launches return at once. So the time per run is kgen's host overhead.
 *
 * The baseline, measured in the same run: perf/plan_eager.py runs the same loop op by op
 * with eager PyTorch on the CPU at the same tiny sizes (so its time is PyTorch's per-op
 * dispatch overhead, which is what compiling the loop removes). Columns:
 *   - launches / step, plan steps / step: what one iteration costs kgen (from kg_run_stats);
 *   - ours µs / launch, ns / F# op: the run's time divided by the launches, and by the
 *     tensor ops the F# loop body makes per step × steps (the eager op count);
 *   - eager ns / op: PyTorch's time per op;
 *   - ratio: eager ns / op ÷ ours ns / op (the target: ≥ 10), and eager per op
 *     ÷ ours per launch (each launch replacing one eager op at worst).
 * Best of --reps runs (default 5) each. Exits 0 whatever the numbers. See docs/perf.md.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/api_int.h"

typedef struct prog {
  const char *name;
  const char *sig;      /* %s = the step count's symbol */
  bool steps_scalar;    /* the step count is the scalar parameter (else dim 0 of input 0) */
} prog;

static const prog progs[] = {
  {"cf_rnn_elman", "float32[T,3,5], float32[5,6], float32[6,6], float32[6], float32[3,6]", false},
  {"cf_lstm", "float32[T,2,4], float32[4,4,5], float32[5,4,5], float32[4,5], float32[2,5], float32[2,5]", false},
  {"cf_for_scalar_bound", "float32[4,33], int32", true},
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct hbuf {
  DLTensor t;
  int64_t shape[8];
} hbuf;

int main(int argc, char **argv) {
  int steps = 2000, reps = 5;
  bool md = false;
  const char *py = "/usr/bin/python3";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--python") && i + 1 < argc) py = argv[++i];
    else if (!strcmp(argv[i], "--markdown")) md = true;
    else {
      fprintf(stderr, "usage: bench_plan [--steps N] [--reps N] [--python PATH] [--markdown]\n");
      return 2;
    }
  }
  kg_context *ctx = kg_context_new(NULL);
  int rc = 0;
  if (md) {
    printf("| loop | steps | launches / step | plan steps / step | ours µs / run | ours ns / launch | ours ns / F# op | eager ns / op | eager op ÷ ours op | eager op ÷ ours launch |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
  } else {
    printf("%-20s %6s %8s %8s %10s %10s %10s %10s %8s %8s\n", "loop", "steps", "launch/s", "steps/s", "ours us", "ns/launch", "ns/op",
           "eager ns/op", "op ratio", "vs launch");
  }
  for (size_t p = 0; p < sizeof progs / sizeof *progs; p++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, progs[p].name);
    kg_module *m;
    kg_compiled *c;
    if (kg_module_load_file(ctx, path, &m) != KG_OK || kg_specialize(m, NULL, progs[p].sig, &c) != KG_OK) {
      fprintf(stderr, "%s: %s\n", progs[p].name, kg_last_error(ctx));
      rc = 1;
      continue;
    }
    /* inputs: zeros on the host (the null device reads host memory) */
    const kg_graph *g = &c->g;
    uint32_t np = g->n_entry_params;
    hbuf *in = calloc(np + 1, sizeof *in);
    const DLTensor **ins = calloc(np + 1, sizeof *ins);
    void **mem = calloc(np + 8, sizeof *mem);
    for (uint32_t i = 0; i < np; i++) {
      const kg_gnode *n = &g->nodes.v[g->params.v[i].node];
      size_t cnt = 1;
      int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
      for (int d = 0; d < rank; d++) {
        in[i].shape[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : steps;
        cnt *= (size_t)in[i].shape[d];
      }
      mem[i] = calloc(cnt + 1, 8);
      if (n->vkind == KG_V_SCALAR && progs[p].steps_scalar) *(int32_t *)mem[i] = steps;
      in[i].t.data = mem[i];
      in[i].t.device.device_type = kDLCPU;
      in[i].t.ndim = rank;
      in[i].t.shape = in[i].shape;
      in[i].t.dtype = kg_dtype_to_dl((kg_dtype)n->dtype);
      ins[i] = &in[i].t;
    }
    int no = kg_compiled_n_outputs(c);
    hbuf *out = calloc((size_t)no + 1, sizeof *out);
    DLTensor **outs = calloc((size_t)no + 1, sizeof *outs);
    for (int o = 0; o < no; o++) {
      DLDataType dt;
      int nd;
      kg_compiled_output(c, o, &dt, &nd, out[o].shape);
      size_t cnt = 1;
      for (int d = 0; d < nd; d++) cnt *= (size_t)out[o].shape[d];
      mem[np + (uint32_t)o] = calloc(cnt + 1, 8);
      out[o].t.data = mem[np + (uint32_t)o];
      out[o].t.device.device_type = kDLCPU;
      out[o].t.ndim = nd;
      out[o].t.shape = out[o].shape;
      out[o].t.dtype = dt;
      outs[o] = &out[o].t;
    }
    double best = 1e30;
    kg_run_stats st;
    memset(&st, 0, sizeof st);
    bool ok = true;
    for (int r = 0; r <= reps && ok; r++) { /* run 0 warms up (module loads, the pool) */
      double t0 = now();
      ok = kg_run(c, KG_DEVICE_NULL, ins, (int)np, NULL, 0, outs, no, NULL) == KG_OK;
      double t = now() - t0;
      if (r > 0 && t < best) best = t;
    }
    if (!ok) {
      fprintf(stderr, "%s: %s\n", progs[p].name, kg_last_error(ctx));
      rc = 1;
    }
    kg_run_stats_get(c, &st);
    /* the eager baseline */
    double eager = 0;
    int ops = 0;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s/perf/plan_eager.py %s %d %d 2>/dev/null", py, KG_SOURCE_DIR, progs[p].name, steps, reps);
    FILE *f = popen(cmd, "r");
    if (!f || fscanf(f, "%lf %d", &eager, &ops) != 2) eager = 0, ops = 0;
    if (f) pclose(f);
    double launches = (double)st.launches, per_launch = launches > 0 ? best / launches * 1e9 : 0;
    double ours_op = ops ? best / ((double)steps * ops) * 1e9 : 0, eager_op = ops ? eager / ((double)steps * ops) * 1e9 : 0;
    double ratio = ours_op > 0 && eager_op > 0 ? eager_op / ours_op : 0, lratio = per_launch > 0 && eager_op > 0 ? eager_op / per_launch : 0;
    if (md)
      printf("| %s | %d | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.1f× | %.1f× |\n", progs[p].name, steps, launches / steps,
             (double)st.plan_steps / steps, best * 1e6, per_launch, ours_op, eager_op, ratio, lratio);
    else
      printf("%-20s %6d %8.2f %8.2f %10.0f %10.0f %10.0f %10.0f %8.1f %8.1f\n", progs[p].name, steps, launches / steps,
             (double)st.plan_steps / steps, best * 1e6, per_launch, ours_op, eager_op, ratio, lratio);
    if (!ops) printf("  (no eager baseline: %s could not run perf/plan_eager.py with torch)\n", py);
    for (uint32_t i = 0; i < np + (uint32_t)no; i++) free(mem[i]);
    free(mem), free(in), free(ins), free(out), free(outs);
    kg_compiled_free(c);
    kg_module_free(m);
  }
  kg_context_free(ctx);
  return rc;
}
