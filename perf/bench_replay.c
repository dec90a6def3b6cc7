/* perf/bench_replay.c — kgen's host time per call of a model forward, replay on against off
 * (runtime/replay.c, issue 28).
 *
 *   bench_replay [--examples DIR] [--ms N] [--markdown]
 *
 * Every entry of every DIR/NAME.json (default examples/models) at its document signature runs
 * on the null device (runtime/dev_null.c: everything kgen does on the host happens, the
 * launches return at once; buffers are host memory holding zeros) in two contexts of the same
 * process: one without replay (kg_options.no_replay: every call binds sizes, chooses the plan
 * and variants, asks the scheduler, marshals parameters, allocates and frees temporaries) and
 * one with it (the first call records; later calls recompute pointers and scalars and launch the
 * recorded list — on the null device as one graph, its graph launch a loop over the nodes). Each
 * is timed for about --ms milliseconds (default 200) after a warm-up call; the best of three
 * such rounds. Columns: launches per call, µs per call off and on, the ratio (off ÷ on), ns
 * per launch on, device allocations per call off and on (an entry that updates a parameter in
 * place still allocates its write-back buffers per call). The null device's allocation is a
 * calloc: a forward with megabytes of temporaries (the CNNs) pays for zeroing them without
 * replay, which makes its "off" figure larger than a GPU's stream-ordered allocation would. The null device's launch is a function call, so the figures are kgen's own
 * cost; on a GPU the driver's launch cost comes on top of "off", a graph launch on top of "on"
 * (docs/gpu.md says what to measure there). Exits 0 whatever the numbers; 1 when a forward fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/perf_common.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct hbuf {
  DLTensor t;
  int64_t shape[KG_MAX_RANK];
} hbuf;

/* zeroed host tensors for c's parameters (inputs, captures by name) and outputs */
typedef struct call {
  uint32_t np, n_in, n_cap;
  int no;
  hbuf *b;
  const DLTensor **ins;
  kg_named_tensor *caps;
  DLTensor **outs;
  void **mem;
} call;

static void call_make(kg_compiled *c, call *k) {
  const kg_graph *g = &c->g;
  memset(k, 0, sizeof *k);
  k->np = g->params.n, k->no = kg_compiled_n_outputs(c);
  k->b = calloc(k->np + (size_t)k->no + 1, sizeof *k->b);
  k->ins = calloc(k->np + 1, sizeof *k->ins);
  k->caps = calloc(k->np + 1, sizeof *k->caps);
  k->outs = calloc((size_t)k->no + 1, sizeof *k->outs);
  k->mem = calloc(k->np + (size_t)k->no + 1, sizeof *k->mem);
  for (uint32_t p = 0; p < k->np; p++) {
    const kg_gparam *gp = &g->params.v[p];
    const kg_gnode *n = &g->nodes.v[gp->node];
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    size_t cnt = 1;
    for (int d = 0; d < rank; d++) k->b[p].shape[d] = kp_dim(&n->shape.d[d]), cnt *= (size_t)k->b[p].shape[d];
    k->mem[p] = calloc(cnt + 1, 8);
    hbuf *h = &k->b[p];
    h->t.data = k->mem[p], h->t.device.device_type = kDLCPU, h->t.ndim = rank, h->t.shape = h->shape;
    h->t.dtype = kg_dtype_to_dl((kg_dtype)n->dtype);
    if (gp->is_capture) k->caps[k->n_cap].name = gp->name, k->caps[k->n_cap++].t = &h->t;
    else k->ins[k->n_in++] = &h->t;
  }
  for (int o = 0; o < k->no; o++) {
    hbuf *h = &k->b[k->np + (uint32_t)o];
    DLDataType dt;
    int nd;
    kg_compiled_output(c, o, &dt, &nd, h->shape);
    size_t cnt = 1;
    for (int d = 0; d < nd; d++) cnt *= (size_t)h->shape[d];
    k->mem[k->np + (uint32_t)o] = calloc(cnt + 1, 8);
    h->t.data = k->mem[k->np + (uint32_t)o], h->t.device.device_type = kDLCPU, h->t.ndim = nd, h->t.shape = h->shape, h->t.dtype = dt;
    k->outs[o] = &h->t;
  }
}

static void call_free(call *k) {
  for (uint32_t i = 0; i < k->np + (uint32_t)k->no; i++) free(k->mem[i]);
  free(k->b), free(k->ins), free(k->caps), free(k->outs), free(k->mem);
}

/* µs per call (best of 3 rounds of about ms milliseconds); -1 when a call fails */
static double per_call(kg_compiled *c, call *k, double ms, kg_run_stats *st) {
  if (kg_run(c, KG_DEVICE_NULL, k->ins, (int)k->n_in, k->caps, (int)k->n_cap, k->outs, k->no, NULL) != KG_OK) return -1;
  double best = 1e30;
  for (int r = 0; r < 3; r++) {
    long n = 0;
    double t0 = now(), t;
    do {
      if (kg_run(c, KG_DEVICE_NULL, k->ins, (int)k->n_in, k->caps, (int)k->n_cap, k->outs, k->no, NULL) != KG_OK) return -1;
      n++;
    } while ((t = now() - t0) < ms * 1e-3);
    if (t / (double)n < best) best = t / (double)n;
  }
  kg_run_stats_get(c, st);
  return best * 1e6;
}

int main(int argc, char **argv) {
  const char *dir = KG_SOURCE_DIR "/examples/models";
  double ms = 200;
  bool md = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--examples") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--ms") && i + 1 < argc) ms = atof(argv[++i]);
    else if (!strcmp(argv[i], "--markdown")) md = true;
    else {
      fprintf(stderr, "usage: bench_replay [--examples DIR] [--ms N] [--markdown]\n");
      return 2;
    }
  }
  char **names;
  int nn = kp_list_json(dir, NULL, &names);
  if (nn < 0) {
    fprintf(stderr, "bench_replay: cannot open %s\n", dir);
    return 1;
  }
  kg_options o;
  memset(&o, 0, sizeof o);
  kg_context *on = kg_context_new(&o);
  o.no_replay = 1;
  kg_context *off = kg_context_new(&o);
  int fails = 0, rows = 0;
  double sum_off = 0, sum_on = 0, geo = 0;
  if (md)
    printf("| file | forward | launches / call | µs / call, replay off | µs / call, replay on | off ÷ on | ns / launch on | allocations / call off / on |\n|---|---|--:|--:|--:|--:|--:|--:|\n");
  else
    printf("%-16s %-32s %8s %10s %10s %8s %10s %7s\n", "file", "forward", "launches", "us off", "us on", "off/on", "ns/launch", "allocs off/on");
  for (int i = 0; i < nn; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    names[i][strlen(names[i]) - 5] = 0;
    kg_module *mon = NULL, *moff = NULL;
    if (kg_module_load_file(on, path, &mon) != KG_OK || kg_module_load_file(off, path, &moff) != KG_OK) {
      fprintf(stderr, "bench_replay: %s: %s\n", names[i], mon ? kg_last_error(off) : kg_last_error(on));
      fails++;
      if (mon) kg_module_free(mon);
      continue;
    }
    for (int en = 0; en < kg_module_n_entries(mon); en++) {
      const char *entry = kg_module_entry_name(mon, en);
      kg_compiled *con = NULL, *coff = NULL;
      if (kg_specialize(mon, entry, NULL, &con) != KG_OK || kg_specialize(moff, entry, NULL, &coff) != KG_OK) {
        fprintf(stderr, "bench_replay: %s/%s: %s\n", names[i], entry, con ? kg_last_error(off) : kg_last_error(on));
        fails++;
        kg_compiled_free(con);
        continue;
      }
      call k;
      call_make(con, &k);
      kg_run_stats s_off, s_on;
      double t_off = per_call(coff, &k, ms, &s_off), t_on = per_call(con, &k, ms, &s_on);
      if (t_off < 0 || t_on < 0) {
        fprintf(stderr, "bench_replay: %s/%s: %s\n", names[i], entry, t_off < 0 ? kg_last_error(off) : kg_last_error(on));
        fails++;
      } else {
        double nl = (double)s_on.launches;
        rows++, sum_off += t_off, sum_on += t_on, geo += log2(t_off / t_on);
        if (md)
          printf("| %s | %s | %.0f | %.2f | %.2f | %.1f× | %.0f | %llu / %llu |\n", names[i], entry, nl, t_off, t_on, t_off / t_on, nl > 0 ? t_on * 1e3 / nl : 0,
                 (unsigned long long)s_off.device_allocs, (unsigned long long)s_on.device_allocs);
        else
          printf("%-16s %-32s %8.0f %10.2f %10.2f %8.1f %10.0f %4llu/%llu\n", names[i], entry, nl, t_off, t_on, t_off / t_on, nl > 0 ? t_on * 1e3 / nl : 0,
                 (unsigned long long)s_off.device_allocs, (unsigned long long)s_on.device_allocs);
      }
      call_free(&k);
      kg_compiled_free(con), kg_compiled_free(coff);
    }
    kg_module_free(mon), kg_module_free(moff);
  }
  if (rows)
    printf("\n%d forwards: %.1f µs per call without replay, %.1f µs with it in all (%.1f× less); geometric mean of the ratios %.1f×\n", rows, sum_off,
           sum_on, sum_off / sum_on, exp2(geo / rows));
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  kg_context_free(on), kg_context_free(off);
  return fails ? 1 : 0;
}
