/* tests/test_replay.c — replay of a compiled entry's launches (runtime/replay.c, issue 28).
 *
 * Through the null device as a recorder (kg_dev_null_config: every launch it is given, a
 * graph's included): a replayed call launches exactly what the first call with those sizes
 * launched (kernels, grids, blocks, shared memory, every parameter value), as one graph; a
 * caller's tensor at another address is patched into the graph (node updates) and nothing else
 * changes; other sizes record afresh (and the first sizes still replay); a failing call records
 * nothing; replays allocate nothing; the same through replay without graphs (launch by launch);
 * a host plan's loop (a static trip count, and a data-dependent while) replays region by region
 * and launches what a run without replay launches; kg_options.no_replay and KGEN_REPLAY=0 turn
 * it off. Through the emulator: replayed calls (new data at new addresses, a new scalar, another
 * trip count) give bit for bit what fresh calls in a context without replay give — a llama
 * decoder layer, a plan loop, a data-dependent while, dropout (the generator's offset patched
 * per call), a Hopper-tier product (its tensor maps re-encoded when an operand moves). Against the stand-in CUDA driver (fake_cuda.h): dev_cuda.c's graph
 * hook builds a chain of kernel nodes whose parameters are copies, runs them in order, updates
 * one node in the instantiated graph; and a replayed entry on the CUDA device launches one
 * graph of its kernels.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"
#include "tests/fake_cuda.h"

#define MAXP 48

/* the tensors of one call: an entry's parameters from its document signature, dim 0 of every
 * input of size `from` made `to` (another batch / step count), random values from seed */
typedef struct inst {
  kg_npy arr[MAXP];
  DLTensor view[MAXP];
  const DLTensor *ins[MAXP];
  kg_named_tensor caps[MAXP];
  char *names[MAXP];
  void *raw[MAXP + 8]; /* buffers move_like made */
  int n_in, n_cap, n_raw;
  kg_npy out[8];
  DLTensor oview[8];
  DLTensor *outs[8];
  int n_out;
} inst;

static int force_variant;         /* kg_options.force_variant of the contexts a test makes */
static const int64_t *sym_sizes;  /* the sizes of a document signature's symbols (by id), or NULL */
static kg_context *ctx_new(bool replay) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.no_replay = !replay;
  o.force_variant = force_variant;
  return kg_context_new(&o);
}

static kg_module *load(kg_context *ctx, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, name);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

static void inst_make(kg_module *m, const char *entry, int64_t from, int64_t to, uint64_t seed, inst *I) {
  memset(I, 0, sizeof *I);
  kg_compiled *c0 = NULL;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c0), KG_OK, "%s", kg_last_error(m->ctx));
  const kg_graph *g = &c0->g;
  cr_assert(g->params.n <= MAXP);
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gparam *gp = &g->params.v[p];
    const kg_gnode *n = &g->nodes.v[gp->node];
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    int64_t shape[KG_MAX_RANK];
    for (int i = 0; i < rank; i++) shape[i] = n->shape.d[i].kind == KG_DIM_STATIC ? n->shape.d[i].v : sym_sizes[n->shape.d[i].v];
    if (!gp->is_capture && rank > 0 && shape[0] == from) shape[0] = to;
    cr_assert_eq(kg_npy_random_in(&I->arr[p], n->dtype, rank, shape, seed * 7919 + p + 1, false, gp->range), 0);
    /* 64-byte aligned, as PyTorch's allocators give: a replay's key holds each tensor's address
     * alignment (the variants read it), and malloc's 16 would differ from call to call */
    void *al = aligned_alloc(64, (I->arr[p].nbytes + 64) / 64 * 64);
    cr_assert(al);
    memcpy(al, I->arr[p].data, I->arr[p].nbytes);
    free(I->arr[p].data);
    I->arr[p].data = al;
    kg_npy_dlview(&I->arr[p], &I->view[p]);
    if (!gp->is_capture) I->ins[I->n_in++] = &I->view[p];
    else I->names[I->n_cap] = kg_xstrdup(gp->name), I->caps[I->n_cap].name = I->names[I->n_cap], I->caps[I->n_cap++].t = &I->view[p];
  }
  kg_compiled_free(c0);
}

/* outputs for compiled c at I's sizes (shapes from a specialization at them) */
static void inst_outputs(kg_module *m, const char *entry, inst *I) {
  kg_compiled *cs = NULL;
  cr_assert_eq(kg_specialize_for(m, entry, I->ins, I->n_in, I->caps, I->n_cap, &cs), KG_OK, "%s", kg_last_error(m->ctx));
  I->n_out = kg_compiled_n_outputs(cs);
  cr_assert(I->n_out <= 8);
  cr_assert_eq(kg_alloc_host_outputs(cs, I->out, I->oview, I->outs), KG_OK, "%s", kg_last_error(m->ctx));
  kg_compiled_free(cs);
}

static void inst_free(inst *I) {
  for (int p = 0; p < MAXP; p++) kg_npy_free(&I->arr[p]);
  for (int o = 0; o < I->n_out; o++) kg_npy_free(&I->out[o]);
  for (int i = 0; i < I->n_cap; i++) free(I->names[i]);
  for (int i = 0; i < I->n_raw; i++) free(I->raw[i]);
}

/* the entry compiled from I's tensors, with symbolic sizes (duck sizing) when dyn */
static kg_compiled *compiled(kg_module *m, const char *entry, inst *I, bool dyn) {
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize_for_ex(m, entry, I->ins, I->n_in, I->caps, I->n_cap, dyn ? KG_SPEC_DYNAMIC : 0, &c), KG_OK, "%s", kg_last_error(m->ctx));
  return c;
}

static kg_run_stats run(kg_compiled *c, kg_device_kind dev, inst *I) {
  kg_status s = kg_run(c, dev, I->ins, I->n_in, I->caps, I->n_cap, I->outs, I->n_out, NULL);
  cr_assert_eq(s, KG_OK, "%s", kg_last_error(c->m->ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  return st;
}

/* ---- the null device as a recorder ---- */
typedef struct logcopy {
  kg_null_launch *v;
  uint32_t n;
} logcopy;

static logcopy take_log(kg_device *dv) {
  uint32_t n;
  const kg_null_launch *l = kg_dev_null_log(dv, &n);
  logcopy c = {kg_xcalloc(n + 1, sizeof *c.v), n};
  memcpy(c.v, l, n * sizeof *l);
  kg_dev_null_log_clear(dv);
  return c;
}

/* a and b launch the same kernels with the same grids, blocks and shared memory; with
 * params: the same parameter values too, except that a value equal to from[i] in a reads
 * to[i] in b (a pointer patched) */
static void same_launches(const logcopy *a, const logcopy *b, bool params, const uint64_t *from, const uint64_t *to, int n_map, const char *what) {
  cr_assert_eq(a->n, b->n, "%s: %u launches, then %u", what, a->n, b->n);
  cr_assert_gt(a->n, 0, "%s: nothing launched", what);
  for (uint32_t i = 0; i < a->n; i++) {
    const kg_null_launch *x = &a->v[i], *y = &b->v[i];
    cr_assert_str_eq(x->kernel, y->kernel, "%s: launch %u", what, i);
    cr_assert(memcmp(x->grid, y->grid, sizeof x->grid) == 0 && memcmp(x->block, y->block, sizeof x->block) == 0 && x->smem == y->smem,
              "%s: launch %u (%s) grid / block / shared memory differ", what, i, x->kernel);
    cr_assert_eq(x->n_params, y->n_params);
    for (uint32_t j = 0; params && j < x->n_params && j < 64; j++) {
      uint64_t want = x->params[j];
      for (int k = 0; k < n_map; k++)
        if (want == from[k]) want = to[k];
      cr_assert_eq(y->params[j], want, "%s: launch %u (%s) parameter %u: %#llx, expected %#llx", what, i, x->kernel, j,
                   (unsigned long long)y->params[j], (unsigned long long)want);
    }
  }
}

static uint64_t addr(const void *p) { return (uint64_t)(uintptr_t)p; }

/* t's data copied to a new buffer whose address has the alignment of `like`'s (the variant
 * choice reads alignments: another one is another pattern); *raw: what to free */
static void move_like(DLTensor *t, const DLTensor *like, size_t bytes, void **raw) {
  char *b = aligned_alloc(64, ((bytes + 64) / 64 + 2) * 64);
  uintptr_t off = (uintptr_t)like->data % 64;
  memcpy(b + 64 + off, t->data, bytes);
  t->data = b + 64 + off;
  *raw = b;
}

/* replay through the null device, with graphs or launch by launch */
static void null_replay(const char *file, const char *entry, int64_t batch, bool graphs, bool dyn) {
  kg_context *ctx = ctx_new(true);
  kg_module *m = load(ctx, file);
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = kg_ctx_device(ctx, KG_DEVICE_NULL, &d);
  kg_dev_null_config(dv, true, graphs);
  inst A, B;
  inst_make(m, entry, batch, batch, 1, &A), inst_outputs(m, entry, &A);
  kg_compiled *c = compiled(m, entry, &A, dyn);
  kg_run_stats s1 = run(c, KG_DEVICE_NULL, &A);
  logcopy l1 = take_log(dv);
  cr_expect_eq(s1.replays, 0);
  cr_expect_eq(kg_replay_records(c), 1);
  /* the same tensors: the very same launches, nothing allocated, one graph launched */
  kg_run_stats s2 = run(c, KG_DEVICE_NULL, &A);
  logcopy l2 = take_log(dv);
  cr_expect_eq(s2.replays, 1, "%s: replayed %llu", entry, (unsigned long long)s2.replays);
  cr_expect_eq(s2.device_allocs, 0, "%s: a replay allocated %llu buffers", entry, (unsigned long long)s2.device_allocs);
  cr_expect_eq(s2.launches, s1.launches);
  same_launches(&l1, &l2, true, NULL, NULL, 0, "same tensors");
  for (uint32_t i = 0; i < l2.n; i++) cr_expect_eq(l2.v[i].graph, graphs, "launch %u %s a graph", i, graphs ? "outside" : "inside");
  kg_null_counts nc;
  kg_dev_null_counts(dv, &nc);
  cr_expect_eq(nc.graphs_made, graphs ? 1 : 0);
  cr_expect_eq(nc.graph_launches, graphs ? 1 : 0);
  cr_expect_eq(nc.graph_sets, 0, "no pointer moved: no node updated");
  uint64_t s2tmaps = nc.tmaps;
  /* the first input and the first output elsewhere (same sizes): patched, nothing else */
  inst_make(m, entry, batch, batch, 2, &B), inst_outputs(m, entry, &B);
  /* B: A's tensors, except input 0 and output 0, at addresses of the same alignment */
  void *raw[2];
  move_like(&B.view[0], A.ins[0], B.arr[0].nbytes, &raw[0]);
  move_like(B.outs[0], A.outs[0], B.out[0].nbytes, &raw[1]);
  for (int i = 1; i < A.n_in; i++) B.ins[i] = A.ins[i];
  for (int i = 0; i < A.n_cap; i++) B.caps[i] = A.caps[i];
  for (int o = 1; o < A.n_out; o++) B.outs[o] = A.outs[o];
  kg_run_stats s3 = run(c, KG_DEVICE_NULL, &B);
  logcopy l3 = take_log(dv);
  cr_expect_eq(s3.replays, 1);
  uint64_t from[2] = {addr(A.ins[0]->data), addr(A.outs[0]->data)}, to[2] = {addr(B.ins[0]->data), addr(B.outs[0]->data)};
  same_launches(&l1, &l3, true, from, to, 2, "input 0 and output 0 moved");
  bool moved = false;
  for (uint32_t i = 0; i < l3.n; i++)
    for (uint32_t j = 0; j < l3.v[i].n_params && j < 64; j++) moved |= l3.v[i].params[j] == to[0];
  cr_expect(moved, "no launch reads the new input");
  kg_dev_null_counts(dv, &nc);
  if (graphs) cr_expect_gt(nc.graph_sets, 0, "the moved tensors' nodes were not updated");
  if (force_variant == KG_FORCE_TENSOR_CORES) cr_expect_gt(nc.tmaps, s2tmaps, "no tensor map re-encoded for the moved input (%llu maps made before)", (unsigned long long)s2tmaps);
  /* other sizes: recorded afresh (allocating), the first sizes still replay */
  inst D;
  inst_make(m, entry, batch, dyn ? batch + 1 : batch, 3, &D), inst_outputs(m, entry, &D);
  if (dyn) {
    kg_run_stats s4 = run(c, KG_DEVICE_NULL, &D);
    free(take_log(dv).v);
    cr_expect_eq(s4.replays, 0);
    cr_expect_eq(s4.device_allocs > 0, s1.device_allocs > 0);
  }
  kg_run_stats s5 = run(c, KG_DEVICE_NULL, &A);
  logcopy l5 = take_log(dv);
  cr_expect_eq(s5.replays, 1);
  same_launches(&l1, &l5, true, NULL, NULL, 0, "the first sizes again");
  /* a failing call (an output of the wrong shape) reports its error and records nothing */
  int64_t bad_shape[KG_MAX_RANK];
  DLTensor bad = *A.outs[0];
  memcpy(bad_shape, bad.shape, sizeof(int64_t) * (size_t)bad.ndim);
  bad_shape[bad.ndim - 1] += 1;
  bad.shape = bad_shape;
  DLTensor *bouts[8];
  memcpy(bouts, A.outs, sizeof bouts);
  bouts[0] = &bad;
  cr_expect_neq(kg_run(c, KG_DEVICE_NULL, A.ins, A.n_in, A.caps, A.n_cap, bouts, A.n_out, NULL), KG_OK);
  cr_expect_eq(kg_replay_records(c), dyn ? 2 : 1);
  /* a context without replay launches the same list as the first call (its own temporaries) */
  kg_context *ctx2 = ctx_new(false);
  kg_module *m2 = load(ctx2, file);
  kg_device *dv2 = kg_ctx_device(ctx2, KG_DEVICE_NULL, &d);
  kg_dev_null_config(dv2, true, graphs);
  kg_compiled *c2 = compiled(m2, entry, &A, dyn);
  for (int k = 0; k < 2; k++) {
    kg_run_stats sf = run(c2, KG_DEVICE_NULL, &A);
    cr_expect_eq(sf.replays, 0);
    logcopy lf = take_log(dv2);
    same_launches(&l1, &lf, false, NULL, NULL, 0, "without replay");
    free(lf.v);
  }
  free(l1.v), free(l2.v), free(l3.v), free(l5.v), free(raw[0]), free(raw[1]);
  kg_compiled_free(c2);
  kg_compiled_free(c);
  kg_dev_null_counts(dv, &nc);
  cr_expect_eq(nc.graphs_live, 0, "graphs left after the compiled entry was freed");
  cr_expect_eq(nc.graphs_stale, 0, "%llu graphs freed after a module their nodes name was unloaded", (unsigned long long)nc.graphs_stale);
  inst_free(&A), inst_free(&B), inst_free(&D);
  kg_diag_free(&d);
  kg_module_free(m2), kg_module_free(m);
  kg_context_free(ctx2), kg_context_free(ctx);
}

Test(replay, null_llama_layer_graph) { null_replay("models/llama", "llama_decoder_layer", 2, true, false); }
Test(replay, null_gpt_block_launches) { null_replay("models/modestgpt", "transformer_block", 2, false, false); }
Test(replay, null_mlp_sizes) { null_replay("models/llama", "llama_mlp", 2, true, true); }
/* the Hopper tier (16-byte aligned rows: operands by tensor maps, which the null device makes
 * too): a map over a moved tensor is re-encoded */
static const int64_t hopper_mkn[3] = {40, 24, 264};
Test(replay, null_tensor_maps) {
  force_variant = KG_FORCE_TENSOR_CORES, sym_sizes = hopper_mkn;
  null_replay("mm_tc_shapes", "mm_tc_f16", 40, true, false);
}

/* a host plan on the null device: the loop's regions replay, launching what a run without
 * replay launches, and a second call with the same sizes allocates nothing */
static void null_plan(const char *file, int64_t from, int64_t to) {
  kg_context *ctx = ctx_new(true), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, file), *m2 = load(ctx2, file);
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = kg_ctx_device(ctx, KG_DEVICE_NULL, &d), *dv2 = kg_ctx_device(ctx2, KG_DEVICE_NULL, &d);
  kg_dev_null_config(dv, true, true), kg_dev_null_config(dv2, true, true);
  inst A, B;
  inst_make(m, file, from, from, 1, &A), inst_outputs(m, file, &A);
  inst_make(m, file, from, to, 2, &B), inst_outputs(m, file, &B);
  kg_compiled *c = compiled(m, file, &A, true), *c2 = compiled(m2, file, &A, true);
  cr_assert(c->plan, "%s has no host plan", file);
  inst *calls[4] = {&A, &A, &B, &A};
  for (int k = 0; k < 4; k++) {
    kg_run_stats s = run(c, KG_DEVICE_NULL, calls[k]), s2 = run(c2, KG_DEVICE_NULL, calls[k]);
    logcopy l = take_log(dv), l2 = take_log(dv2);
    same_launches(&l2, &l, false, NULL, NULL, 0, "a plan, replay against none");
    cr_expect_eq(s.launches, s2.launches);
    if (k == 1 || k == 3) {
      cr_expect_gt(s.replays, 0, "call %d replayed no region", k);
      cr_expect_eq(s.device_allocs, 0, "call %d allocated %llu buffers", k, (unsigned long long)s.device_allocs);
    }
    free(l.v), free(l2.v);
  }
  kg_compiled_free(c), kg_compiled_free(c2);
  inst_free(&A), inst_free(&B);
  kg_diag_free(&d);
  kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}

Test(replay, null_plan_loop) { null_plan("cf_rnn_elman", 7, 11); }

/* off: kg_options.no_replay, KGEN_REPLAY=0 */
Test(replay, off) {
  for (int how = 0; how < 2; how++) {
    if (how) setenv("KGEN_REPLAY", "0", 1);
    kg_context *ctx = ctx_new(how == 1);
    kg_module *m = load(ctx, "models/llama");
    inst A;
    inst_make(m, "llama_mlp", 2, 2, 1, &A), inst_outputs(m, "llama_mlp", &A);
    kg_compiled *c = compiled(m, "llama_mlp", &A, false);
    for (int k = 0; k < 3; k++) cr_expect_eq(run(c, KG_DEVICE_NULL, &A).replays, 0, "%s: replayed", how ? "KGEN_REPLAY=0" : "no_replay");
    cr_expect_eq(kg_replay_records(c), 0);
    kg_compiled_free(c);
    inst_free(&A);
    kg_module_free(m);
    kg_context_free(ctx);
    unsetenv("KGEN_REPLAY");
  }
}

/* ---- results on the emulator: replayed calls against fresh calls in a context without replay ---- */
static void emu_same(const char *file, const char *entry, int64_t from, int64_t to, bool dyn) {
  kg_context *ctx = ctx_new(true), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, file), *m2 = load(ctx2, file);
  if (!entry) entry = file;
  inst I[4];
  /* calls: sizes A, sizes A with other data at other addresses, sizes B, sizes A again */
  inst_make(m, entry, from, from, 1, &I[0]), inst_make(m, entry, from, from, 2, &I[1]);
  inst_make(m, entry, from, dyn ? to : from, 3, &I[2]), inst_make(m, entry, from, from, 4, &I[3]);
  for (int k = 0; k < 4; k++) inst_outputs(m, entry, &I[k]);
  /* call 1: other data at other addresses of the same alignments (the same pattern) */
  for (int p = 0; p < I[0].n_in + I[0].n_cap; p++) move_like(&I[1].view[p], &I[0].view[p], I[1].arr[p].nbytes, &I[1].raw[I[1].n_raw++]);
  for (int o = 0; o < I[0].n_out; o++) move_like(I[1].outs[o], I[0].outs[o], I[1].out[o].nbytes, &I[1].raw[I[1].n_raw++]);

  kg_compiled *c = compiled(m, entry, &I[0], dyn), *c2 = compiled(m2, entry, &I[0], dyn);
  uint64_t replays = 0;
  for (int k = 0; k < 4; k++) {
    if (k == 3) { /* call 3: call 0's buffers, with new data */
      for (int p = 0; p < I[0].n_in + I[0].n_cap; p++) {
        memcpy(I[0].view[p].data, I[3].view[p].data, I[3].arr[p].nbytes);
        I[3].view[p].data = I[0].view[p].data;
      }
      for (int o = 0; o < I[0].n_out; o++) I[3].outs[o]->data = I[0].outs[o]->data;
    }
    kg_run_stats s = run(c, KG_DEVICE_EMU, &I[k]);
    replays += s.replays;
    /* the same call without replay, into copies of the outputs */
    kg_npy o2[8];
    DLTensor v2[8], *p2[8];
    for (int o = 0; o < I[k].n_out; o++) {
      o2[o] = I[k].out[o];
      o2[o].data = kg_xmalloc(I[k].out[o].nbytes + 64);
      kg_npy_dlview(&o2[o], &v2[o]);
      p2[o] = &v2[o];
    }
    cr_assert_eq(kg_run(c2, KG_DEVICE_EMU, I[k].ins, I[k].n_in, I[k].caps, I[k].n_cap, p2, I[k].n_out, NULL), KG_OK, "%s", kg_last_error(ctx2));
    for (int o = 0; o < I[k].n_out; o++) {
      cr_expect(memcmp(o2[o].data, I[k].outs[o]->data, I[k].out[o].nbytes) == 0, "%s call %d: output %d differs from a fresh run's", entry, k, o);
      free(o2[o].data);
    }
  }
  cr_expect_gt(replays, 0, "%s: nothing replayed", entry);
  for (int k = 0; k < 4; k++) inst_free(&I[k]);
  kg_compiled_free(c), kg_compiled_free(c2);
  kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}

Test(replay, emu_llama_layer, .timeout = 300) { emu_same("models/llama", "llama_decoder_layer", 2, 2, false); }
Test(replay, emu_plan_loop, .timeout = 300) { emu_same("cf_rnn_elman", NULL, 7, 4, true); }
Test(replay, emu_while_item_scalar, .timeout = 300) { emu_same("cf_while_item", NULL, 5, 3, true); }
Test(replay, emu_dropout, .timeout = 300) { emu_same("rand_dropout", "rand_dropout_module", 5, 9, true); }
Test(replay, emu_tensor_maps, .timeout = 300) {
  force_variant = KG_FORCE_TENSOR_CORES, sym_sizes = hopper_mkn;
  emu_same("mm_tc_shapes", "mm_tc_f16", 40, 40, false);
}

/* outputs a and b (n float32 elements) agree as allclose(rtol 1e-5, atol 1e-6) */
static void close_f32(const float *a, const float *b, size_t n, const char *what) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    float d = a[i] - b[i];
    if (d < 0) d = -d;
    float r = b[i] < 0 ? -b[i] : b[i];
    if (!(d <= 1e-6f + 1e-5f * r) && bad++ == 0) first = i;
  }
  cr_expect_eq(bad, 0, "%s: %zu of %zu elements differ (first at %zu: %g against %g)", what, bad, n, first, bad ? a[first] : 0., bad ? b[first] : 0.);
}

/* KG_SPEC_DYNAMIC over a model with captures (module parameters: their sizes stay static, as
 * torch.compile keeps a parameter's): one specialization runs batch `from`, batch `to` and
 * `from` again (a replay) on the emulator, nothing specialized again, each output as a static
 * specialization at those sizes gives */
static void emu_dynamic_caps(const char *file, const char *entry, int64_t from, int64_t to) {
  kg_context *ctx = ctx_new(true), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, file), *m2 = load(ctx2, file);
  inst I[3];
  inst_make(m, entry, from, from, 1, &I[0]), inst_make(m, entry, from, to, 2, &I[1]), inst_make(m, entry, from, from, 3, &I[2]);
  for (int k = 0; k < 3; k++) inst_outputs(m, entry, &I[k]);
  cr_assert_gt(I[0].n_cap, 0, "%s has no captures", entry);
  kg_compiled *c = compiled(m, entry, &I[0], true);
  DLDataType dt;
  int nd = 0;
  int64_t shape[KG_MAX_RANK];
  cr_assert_eq(kg_compiled_output(c, 0, &dt, &nd, shape), KG_OK);
  cr_expect(nd > 1 && shape[0] < 0, "%s: the batch dim of output 0 is not symbolic", entry);
  cr_expect(nd > 1 && shape[nd - 1] > 1, "%s: the feature dim of output 0 (a capture's size) is not static", entry);
  uint64_t nspec = ctx->specializations;
  for (int k = 0; k < 3; k++) {
    kg_run_stats s = run(c, KG_DEVICE_EMU, &I[k]);
    if (k == 2) cr_expect_gt(s.replays, 0, "%s: the first batch size again did not replay", entry);
    kg_compiled *cs = compiled(m2, entry, &I[k], false);
    kg_npy o2[8];
    DLTensor v2[8], *p2[8];
    cr_assert_eq(kg_alloc_host_outputs(cs, o2, v2, p2), KG_OK, "%s", kg_last_error(ctx2));
    cr_assert_eq(kg_run(cs, KG_DEVICE_EMU, I[k].ins, I[k].n_in, I[k].caps, I[k].n_cap, p2, I[k].n_out, NULL), KG_OK, "%s", kg_last_error(ctx2));
    for (int o = 0; o < I[k].n_out; o++) {
      char what[160];
      snprintf(what, sizeof what, "%s call %d (batch %lld) output %d, dynamic against static", entry, k, (long long)I[k].ins[0]->shape[0], o);
      cr_assert_eq(I[k].out[o].dtype, KG_F32);
      close_f32(I[k].outs[o]->data, v2[o].data, I[k].out[o].nbytes / 4, what);
      kg_npy_free(&o2[o]);
    }
    kg_compiled_free(cs);
  }
  cr_expect_eq(ctx->specializations, nspec, "%s: another batch size specialized again", entry);
  for (int k = 0; k < 3; k++) inst_free(&I[k]);
  kg_compiled_free(c);
  kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}

Test(replay, emu_dynamic_llama_layer, .timeout = 300) { emu_dynamic_caps("models/llama", "llama_decoder_layer", 2, 3); }
/* captured weights inside a run-time loop: x's features, the weights' size, stay static */
Test(replay, emu_dynamic_captured_loop, .timeout = 300) { emu_dynamic_caps("cf_captured_weights", "cf_captured_weights", 3, 5); }

/* ---- write-back entries (batch norm in training: running_mean / running_var updated in place) ---- */

/* on the null device: the first call allocates (its temporaries and write-back buffers), every
 * later one replays and allocates nothing — its write-back buffers from the entry's pool, at
 * the same addresses, so the very same launches; a context without replay allocates them at
 * every call */
static void null_writeback(const char *file, const char *entry) {
  kg_context *ctx = ctx_new(true), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, file), *m2 = load(ctx2, file);
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dv = kg_ctx_device(ctx, KG_DEVICE_NULL, &d);
  kg_dev_null_config(dv, true, true);
  inst A;
  inst_make(m, entry, -1, -1, 1, &A), inst_outputs(m, entry, &A);
  kg_compiled *c = compiled(m, entry, &A, false), *c2 = compiled(m2, entry, &A, false);
  cr_assert_gt(kg_compiled_n_writebacks(c), 0, "%s writes nothing back", entry);
  kg_run_stats s1 = run(c, KG_DEVICE_NULL, &A);
  logcopy l1 = take_log(dv);
  cr_expect_geq(s1.device_allocs, (uint64_t)kg_compiled_n_writebacks(c));
  for (int k = 1; k < 3; k++) {
    kg_run_stats s = run(c, KG_DEVICE_NULL, &A);
    logcopy l = take_log(dv);
    cr_expect_gt(s.replays, 0, "%s call %d: nothing replayed", entry, k);
    cr_expect_eq(s.device_allocs, 0, "%s call %d: a replayed call allocated %llu buffers", entry, k, (unsigned long long)s.device_allocs);
    cr_expect_eq(s.launches, s1.launches);
    same_launches(&l1, &l, true, NULL, NULL, 0, "a write-back entry replayed");
    free(l.v);
  }
  for (int k = 0; k < 2; k++)
    cr_expect_geq(run(c2, KG_DEVICE_NULL, &A).device_allocs, (uint64_t)kg_compiled_n_writebacks(c2), "without replay, call %d", k);
  free(l1.v);
  kg_compiled_free(c), kg_compiled_free(c2);
  inst_free(&A);
  kg_diag_free(&d);
  kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}

Test(replay, null_writeback_inputs) { null_writeback("norm_batch_train", "norm_batch_train"); }
Test(replay, null_writeback_captures) { null_writeback("norm_batch_train", "norm_batch_train_module"); }

/* on the emulator: a training loop's steps (new data in the same buffers, the running
 * statistics carried from step to step) with replay give bit for bit what a context without
 * replay gives, outputs and every written-back tensor, the replayed steps allocating nothing */
static void emu_writeback(const char *file, const char *entry, int steps) {
  kg_context *ctx = ctx_new(true), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, file), *m2 = load(ctx2, file);
  inst A, B;
  inst_make(m, entry, -1, -1, 1, &A), inst_make(m2, entry, -1, -1, 1, &B);
  inst_outputs(m, entry, &A), inst_outputs(m2, entry, &B);
  kg_compiled *c = compiled(m, entry, &A, false), *c2 = compiled(m2, entry, &B, false);
  cr_assert_gt(kg_compiled_n_writebacks(c), 0, "%s writes nothing back", entry);
  for (int k = 0; k < steps; k++) {
    if (k > 0) { /* the next batch: new inputs (captures and written-back inputs carry over) */
      inst N;
      inst_make(m, entry, -1, -1, (uint64_t)k + 1, &N);
      for (int i = 0; i < N.n_in; i++) {
        bool wb = false;
        for (int w = 0; w < kg_compiled_n_writebacks(c); w++) {
          int p = -1, cap = 0;
          kg_compiled_writeback(c, w, &p, &cap, NULL);
          wb |= !cap && p == i;
        }
        if (!wb) memcpy(A.view[i].data, N.view[i].data, N.arr[i].nbytes), memcpy(B.view[i].data, N.view[i].data, N.arr[i].nbytes);
      }
      inst_free(&N);
    }
    kg_run_stats s = run(c, KG_DEVICE_EMU, &A);
    run(c2, KG_DEVICE_EMU, &B);
    if (k > 0) {
      cr_expect_gt(s.replays, 0, "%s step %d: nothing replayed", entry, k);
      cr_expect_eq(s.device_allocs, 0, "%s step %d: a replayed step allocated %llu buffers", entry, k, (unsigned long long)s.device_allocs);
    }
    for (int o = 0; o < A.n_out; o++)
      cr_expect(memcmp(A.out[o].data, B.out[o].data, A.out[o].nbytes) == 0, "%s step %d: output %d differs from a run without replay", entry, k, o);
    for (int p = 0; p < A.n_in + A.n_cap; p++)
      cr_expect(memcmp(A.arr[p].data, B.arr[p].data, A.arr[p].nbytes) == 0, "%s step %d: parameter %d (written back?) differs from a run without replay", entry, k, p);
  }
  kg_compiled_free(c), kg_compiled_free(c2);
  inst_free(&A), inst_free(&B);
  kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}

Test(replay, emu_writeback_batch_norm, .timeout = 300) {
  emu_writeback("norm_batch_train", "norm_batch_train", 3);
  emu_writeback("norm_batch_train", "norm_batch_train_module", 3);
}
#if !defined(__SANITIZE_ADDRESS__) /* 7 s here (convolutions on the emulator); the sanitizers' pass has the two above */
Test(replay, emu_writeback_resnet_block, .timeout = 300) { emu_writeback("models/resnet", "resnet_basic_block_train", 2); }
#endif

/* ---- no stale pointers: every call's tensors in fresh buffers, the last call's freed ---- */

/* I's parameters and outputs copied into fresh 64-byte aligned buffers (one alignment: every
 * call has the same size pattern) */
static void rehome(inst *I) {
  for (int p = 0; p < I->n_in + I->n_cap; p++) {
    size_t n = I->arr[p].nbytes;
    void *b = aligned_alloc(64, (n + 64) / 64 * 64);
    memcpy(b, I->view[p].data, n);
    I->view[p].data = I->raw[I->n_raw++] = b;
  }
  for (int o = 0; o < I->n_out; o++) {
    size_t n = I->out[o].nbytes;
    I->outs[o]->data = I->raw[I->n_raw++] = aligned_alloc(64, (n + 64) / 64 * 64);
  }
}

/* A replay recomputes every pointer into a caller's memory: calls whose tensors live in fresh
 * buffers, the previous call's freed (under ASan a pointer kept from one would be a
 * heap-use-after-free), replay and give bit for bit what a context without replay gives — a
 * write-back entry (the written-back tensors carried from call to call by copy), a host plan */
static void emu_fresh_buffers(const char *file, const char *entry, bool dyn, int64_t from, int64_t to) {
  kg_context *ctx = ctx_new(true), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, file), *m2 = load(ctx2, file);
  if (!entry) entry = file;
  inst *prev = NULL, *I = kg_xcalloc(1, sizeof *I);
  inst_make(m, entry, from, from, 1, I), inst_outputs(m, entry, I), rehome(I);
  kg_compiled *c = compiled(m, entry, I, dyn), *c2 = compiled(m2, entry, I, dyn);
  uint64_t replays = 0;
  for (int k = 0; k < 5; k++) {
    if (k > 0) { /* fresh tensors (sizes from, from, to, from), then the last call's go */
      I = kg_xcalloc(1, sizeof *I);
      inst_make(m, entry, from, k == 3 && dyn ? to : from, (uint64_t)k + 1, I), inst_outputs(m, entry, I), rehome(I);
      if (prev->n_in == I->n_in) /* the written-back state carries over */
        for (int p = 0; p < I->n_in + I->n_cap; p++)
          if (I->arr[p].nbytes == prev->arr[p].nbytes && p >= I->n_in) memcpy(I->view[p].data, prev->view[p].data, I->arr[p].nbytes);
      inst_free(prev), free(prev);
    }
    /* the same call without replay: on copies of the parameters (written back in place) */
    kg_npy o2[8];
    DLTensor v2[MAXP], *p2[8], ov2[8];
    const DLTensor *i2[MAXP];
    kg_named_tensor c2s[MAXP];
    void *keep[MAXP];
    for (int p = 0; p < I->n_in + I->n_cap; p++) {
      v2[p] = I->view[p];
      v2[p].data = keep[p] = kg_xmalloc(I->arr[p].nbytes + 1);
      memcpy(v2[p].data, I->view[p].data, I->arr[p].nbytes);
    }
    for (int i = 0; i < I->n_in; i++) i2[i] = &v2[i];
    for (int j = 0; j < I->n_cap; j++) c2s[j].name = I->caps[j].name, c2s[j].t = &v2[I->n_in + j];
    for (int o = 0; o < I->n_out; o++) {
      o2[o] = I->out[o];
      o2[o].data = kg_xmalloc(I->out[o].nbytes + 64);
      kg_npy_dlview(&o2[o], &ov2[o]);
      p2[o] = &ov2[o];
    }
    kg_run_stats s = run(c, KG_DEVICE_EMU, I);
    replays += s.replays;
    cr_assert_eq(kg_run(c2, KG_DEVICE_EMU, i2, I->n_in, c2s, I->n_cap, p2, I->n_out, NULL), KG_OK, "%s", kg_last_error(ctx2));
    for (int o = 0; o < I->n_out; o++) {
      cr_expect(memcmp(o2[o].data, I->outs[o]->data, I->out[o].nbytes) == 0, "%s call %d: output %d differs from a fresh run's", entry, k, o);
      free(o2[o].data);
    }
    for (int p = 0; p < I->n_in + I->n_cap; p++) {
      cr_expect(memcmp(keep[p], I->view[p].data, I->arr[p].nbytes) == 0, "%s call %d: parameter %d differs from a fresh run's", entry, k, p);
      free(keep[p]);
    }
    prev = I;
  }
  cr_expect_gt(replays, 0, "%s: nothing replayed", entry);
  inst_free(prev), free(prev);
  kg_compiled_free(c), kg_compiled_free(c2);
  kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}

Test(replay, emu_fresh_buffers_writeback, .timeout = 300) { emu_fresh_buffers("norm_batch_train", "norm_batch_train_module", false, -1, -1); }
Test(replay, emu_fresh_buffers_plan, .timeout = 300) { emu_fresh_buffers("cf_rnn_elman", NULL, true, 7, 4); }

/* ---- the CUDA device's graph hook, against the stand-in driver ---- */
static const char add1_src[] =
    "#ifdef __CUDACC__\n#define KG_KERNEL extern \"C\" __global__\n#else\n#define KG_KERNEL\n#endif\n"
    "KG_KERNEL void add1(float *__restrict__ out, const float *__restrict__ in, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = in[i] + 1.0f;\n"
    "}\n";

/* NVRTC for the stand-in driver's cubins, or the test skipped (and under the sanitizers: test_rt_nvrtc.c says why) */
static kg_nvrtc *nvrtc_or_skip(kg_diag *d) {
#if defined(__SANITIZE_ADDRESS__)
  cr_skip_test("stand-in driver tests run in the non-sanitizer build");
#endif
  kg_diag_init(d);
  kg_nvrtc *nv = kg_nvrtc_open(d);
  if (!nv) cr_skip_test("libnvrtc cannot be loaded");
  return nv;
}

Test(replay, cuda_graph_hook, .init = fake_setup, .fini = fake_teardown) {
  kg_diag d;
  kg_nvrtc *nv = nvrtc_or_skip(&d);
  kg_rt_config cfg = {0};
  kg_device *dv = kg_dev_cuda_new(&cfg, nv, &d);
  cr_assert_not_null(dv, "%s", d.n ? d.items[0].msg : "");
  cr_assert_not_null(dv->vt->graph_new, "a driver with graphs, a device without graph hooks");
  struct fake_graph_stats *gs = fake_graph_stats();
  kg_rt_source src = {"add1", add1_src, NULL, NULL, NULL, false};
  kg_rt_module *m = NULL;
  cr_assert_eq(dv->vt->load(dv, &src, &m, &d), 0, "%s", d.n ? d.items[0].msg : "");
  enum { N = 300 };
  float h[N], *a, *b, *c, *e;
  for (int i = 0; i < N; i++) h[i] = (float)i;
  cr_assert_eq(dv->vt->alloc(dv, sizeof h, (void **)&a, &d) | dv->vt->alloc(dv, sizeof h, (void **)&b, &d) |
                   dv->vt->alloc(dv, sizeof h, (void **)&c, &d) | dv->vt->alloc(dv, sizeof h, (void **)&e, &d), 0);
  cr_assert_eq(dv->vt->h2d(dv, a, h, sizeof h, &d), 0);
  for (int i = 0; i < N; i++) h[i] = 100.0f * (float)i;
  cr_assert_eq(dv->vt->h2d(dv, e, h, sizeof h, &d), 0);
  /* b = a + 1, then c = b + 1: two nodes, the second after the first */
  float *o0 = b, *i0 = a, *o1 = c, *i1 = b;
  int n = N;
  void *p0[] = {&o0, &i0, &n}, *p1[] = {&o1, &i1, &n};
  kg_launch_desc ls[2] = {{m, "add1", {3, 1, 1}, {128, 1, 1}, 0, p0, 3, 0}, {m, "add1", {3, 1, 1}, {128, 1, 1}, 0, p1, 3, 0}};
  void *g = NULL;
  cr_assert_eq(dv->vt->graph_new(dv, ls, 2, &g, &d), 0, "%s", d.n ? d.items[0].msg : "");
  i0 = e; /* the graph holds copies of the values it was made with */
  cr_assert_eq(gs->made, 1);
  cr_assert_eq(gs->nodes, 2);
  cr_assert_eq(gs->bad_deps, 0, "the nodes are not a chain in launch order");
  cr_assert_eq(gs->instantiated, 1);
  cr_assert_eq(dv->vt->graph_launch(dv, g, NULL, &d), 0);
  cr_assert_eq(dv->vt->sync(dv, NULL, &d), 0);
  cr_assert_eq(dv->vt->d2h(dv, h, c, sizeof h, &d), 0);
  for (int i = 0; i < N; i++) cr_assert_eq(h[i], (float)i + 2.0f, "c[%d] = %g", i, (double)h[i]);
  /* the first node now reads e: updated in the instantiated graph, nothing rebuilt */
  cr_assert_eq(dv->vt->graph_set(dv, g, 0, &ls[0], &d), 0, "%s", d.n ? d.items[0].msg : "");
  cr_assert_eq(gs->sets, 1);
  cr_assert_eq(dv->vt->graph_launch(dv, g, NULL, &d), 0);
  cr_assert_eq(dv->vt->d2h(dv, h, c, sizeof h, &d), 0);
  for (int i = 0; i < N; i++) cr_assert_eq(h[i], 100.0f * (float)i + 2.0f, "c[%d] = %g", i, (double)h[i]);
  cr_assert_eq(gs->instantiated, 1);
  cr_assert_eq(gs->launches, 2);
  dv->vt->graph_free(dv, g);
  cr_assert_eq(gs->destroyed, 1);
  dv->vt->free(dv, a), dv->vt->free(dv, b), dv->vt->free(dv, c), dv->vt->free(dv, e);
  dv->vt->unload(dv, m);
  dv->vt->destroy(dv);
  kg_nvrtc_close(nv);
  kg_diag_free(&d);
}

/* an entry on the CUDA device (the stand-in runs no generated kernel, it counts them): the
 * second call launches one graph of the first call's kernels, a moved input updates nodes */
Test(replay, cuda_entry_graph, .init = fake_setup, .fini = fake_teardown) {
  kg_diag d;
  kg_nvrtc_close(nvrtc_or_skip(&d)); /* the context opens its own */
  kg_context *ctx = ctx_new(true);
  kg_module *m = load(ctx, "models/llama");
  kg_device *dv = kg_ctx_device(ctx, KG_DEVICE_CUDA, &d);
  cr_assert_not_null(dv, "%s", d.n ? d.items[0].msg : "");
  inst A;
  inst_make(m, "llama_rmsnorm", 2, 2, 1, &A), inst_outputs(m, "llama_rmsnorm", &A);
  /* "device" copies (the stand-in's memory is host memory) */
  void *mem[MAXP + 8];
  int nm = 0;
  DLTensor dvw[MAXP + 8];
  for (int p = 0; p < A.n_in + A.n_cap; p++) {
    cr_assert_eq(dv->vt->alloc(dv, A.arr[p].nbytes + 64, &mem[nm], &d), 0);
    memcpy(mem[nm], A.view[p].data, A.arr[p].nbytes);
    A.view[p].data = mem[nm++], A.view[p].device.device_type = kDLCUDA;
  }
  for (int o = 0; o < A.n_out; o++) {
    cr_assert_eq(dv->vt->alloc(dv, A.out[o].nbytes + 64, &mem[nm], &d), 0);
    dvw[o] = *A.outs[o];
    dvw[o].data = mem[nm++], dvw[o].device.device_type = kDLCUDA;
    A.outs[o] = &dvw[o];
  }
  kg_compiled *c = compiled(m, "llama_rmsnorm", &A, false);
  struct fake_stats *fs = fake_stats();
  struct fake_graph_stats *gs = fake_graph_stats();
  kg_run_stats s1 = run(c, KG_DEVICE_CUDA, &A);
  int direct = fs->launches;
  cr_assert_gt(direct, 0);
  cr_assert_eq((uint64_t)direct, s1.launches);
  cr_assert_eq(gs->made, 1, "the first call's launches were not made a graph");
  cr_assert_eq(gs->nodes, direct);
  cr_assert_eq(gs->bad_deps, 0);
  kg_run_stats s2 = run(c, KG_DEVICE_CUDA, &A);
  cr_assert_eq(s2.replays, 1);
  cr_assert_eq(gs->launches, 1);
  cr_assert_eq(fs->launches, 2 * direct, "the graph ran %d kernels, the first call %d", fs->launches - direct, direct);
  cr_assert_eq(gs->sets, 0);
  /* input 0 elsewhere (an address of the same alignment): its nodes updated */
  void *moved;
  cr_assert_eq(dv->vt->alloc(dv, A.arr[0].nbytes + 64, &moved, &d), 0);
  void *keep = A.view[0].data;
  A.view[0].data = moved;
  kg_run_stats s3 = run(c, KG_DEVICE_CUDA, &A);
  cr_assert_eq(s3.replays, 1);
  cr_assert_gt(gs->sets, 0);
  cr_assert_eq(gs->instantiated, 1);
  A.view[0].data = keep;
  kg_compiled_free(c);
  cr_assert_eq(gs->destroyed, 1);
  dv->vt->free(dv, moved);
  for (int i = 0; i < nm; i++) dv->vt->free(dv, mem[i]);
  for (int p = 0; p < A.n_in + A.n_cap; p++) A.view[p].data = NULL;
  inst_free(&A);
  kg_module_free(m);
  kg_context_free(ctx);
  kg_diag_free(&d);
}

/* The few-rows plan over duck sizes (runtime/exec_plans.c plan 4, as the .NET fast path compiles):
 * examples/norm_into_product's RMSNorm before a linear (x [2, 7, 320], every size a symbol) at
 * 14 rows takes it — the statistics computed by the product: 1 launch, the plan's kernel (`_mk`);
 * at 70 rows the fused plan, the row kernel and the product apart (2); both as a static
 * specialization at those sizes gives. (The Llama layer of examples/models at its width of 64
 * takes the fold plan at few rows: its products are small enough to fold.) */
Test(replay, few_rows_plan_norm_into_product, .timeout = 300) {
  kg_context *ctx = ctx_new(false), *ctx2 = ctx_new(false);
  kg_module *m = load(ctx, "norm_into_product"), *m2 = load(ctx2, "norm_into_product");
  const char *e = "rmsnorm_linear";
  inst I[2];
  inst_make(m, e, 2, 2, 1, &I[0]), inst_make(m, e, 2, 10, 2, &I[1]);
  for (int k = 0; k < 2; k++) inst_outputs(m, e, &I[k]);
  kg_compiled *c = compiled(m, e, &I[0], true);
  const uint64_t want[2] = {1, 2};
  for (int k = 0; k < 2; k++) {
    kg_run_stats s = run(c, KG_DEVICE_EMU, &I[k]);
    cr_expect_eq(s.launches, want[k], "x [%lld, 7, 320]: %llu launches", (long long)I[k].ins[0]->shape[0], (unsigned long long)s.launches);
    if (k == 0) {
      int mk = 0;
      for (uint32_t i = 0; i < c->runtime.n; i++) mk += strstr(c->runtime.v[i]->k.name, "_mk") != NULL;
      cr_expect_eq(mk, 1, "%d kernels of the few-rows plan", mk);
      cr_expect(c->fusion_merge.groups.n == 1 && c->fusion_merge.groups.v[0].pre.n == 1, "the plan: one product computing the statistic");
    }
    kg_compiled *cs = compiled(m2, e, &I[k], false);
    kg_npy o2[8];
    DLTensor v2[8], *p2[8];
    cr_assert_eq(kg_alloc_host_outputs(cs, o2, v2, p2), KG_OK, "%s", kg_last_error(ctx2));
    cr_assert_eq(kg_run(cs, KG_DEVICE_EMU, I[k].ins, I[k].n_in, I[k].caps, I[k].n_cap, p2, I[k].n_out, NULL), KG_OK, "%s", kg_last_error(ctx2));
    close_f32(I[k].outs[0]->data, v2[0].data, I[k].out[0].nbytes / 4, "dynamic against static");
    kg_npy_free(&o2[0]);
    kg_compiled_free(cs);
  }
  for (int k = 0; k < 2; k++) inst_free(&I[k]);
  kg_compiled_free(c), kg_module_free(m), kg_module_free(m2);
  kg_context_free(ctx), kg_context_free(ctx2);
}
