/* perf/bench_reduce.c — reductions and normalizations: how many kernels kgen
 * launches and how many bytes they move, next to the minimum and to eager PyTorch,
 * and what that predicts at H100 bandwidth.
 *
 *   bench_reduce [--programs DIR] [--arch 90] [--bw 3.35] [--sms 132] [--markdown]
 *                [--no-nvrtc]
 *
 * Programs (perf/programs/NAME.json, float32, signature ["R", "D"]; weights ["D"]):
 * softmax, layer_norm, rmsnorm (from primitives), row_sum (x.sum(-1L)), outer_sum
 * (x.sum(0L)). Each is specialized, with R and D substituted into the document's
 * signature (compact form "float32[4096,4096], float32[4096]"), at 4096 × 4096,
 * 32768 × 1024, 16 × 1,048,576, and the short rows 262144 × 64 and 1048576 × 16. An entry named NAME_<D> is used when the
 * document has one (layer_norm: normalized_shape is a constant of the quotation),
 * else the first entry. One row per program and size:
 *   - kernels: ours (kg_compiled_n_kernels) / eager PyTorch's, counted on the typed
 *     program c->g: one kernel per tensor op (not INPUT / CONST); a composite op
 *     (softmax, layer_norm) is PyTorch's own fused kernel: one.
 *   - passes: per kernel, how many times it walks the rows: REDUCE groups
 *     kg_reduce_passes_variant (one per reduction; argmax and a variance without a mean 2;
 *     a variance beside a mean (Welford), a max's sum of exp (online softmax) and simple
 *     siblings riding along 0; + 1 for row outputs); POINTWISE 1.
 *     Checked against the kernel IR (its top-level loops).
 *   - regs, smem B: ptxas (NVRTC, sm_<arch>, cubin) per kernel, registers per thread
 *     and static shared memory per block.
 *   - blocks: CUDA blocks launched (REDUCE: one per output element; POINTWISE:
 *     numel / (256 · elements per thread)), and row: elements each REDUCE block walks.
 *   - bytes: minimum (each input whose values reach an output read once, each output
 *     written once); ours (per kernel, each source buffer — entry input or temporary —
 *     its bytes × the passes whose loop loads it, from the kernel IR; each output or
 *     stored reduction written once); eager (per tensor op of c->g: each distinct
 *     tensor operand read once, the result written once; softmax / layer_norm as one
 *     op). A broadcast operand (a [D] weight) counts its own bytes: every row re-reads
 *     it, but from L2.
 *   - predicted µs: bytes / bandwidth (--bw TB/s, default 3.35: H100 SXM HBM3), for
 *     the minimum, ours and eager; eager/ours is the predicted speedup.
 * Then the run-time plan: the same entry run at the case's sizes on the null device, which
 * plans for an H100 as a GPU run does (exec.c: split reductions, the split-rows plan, a warp
 * per row, threads per block, 128-bit loads) and records each launch; per launch its schedule,
 * passes (from the launched variant's kernel IR, checked against kg_reduce_passes_variant),
 * threads × blocks as launched and the bytes its walks load — the second table, what the GPU
 * runs (measure_runtime below).
 * A model, not a measurement: no GPU is needed. It exits 0 whatever the numbers, 1
 * when a program fails to load, specialize or compile. See docs/perf.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/api_int.h"

#define SELF_PATH "perf/bench_reduce.c"
#define MAX_KERNELS 8

static const char *const PROGRAMS[] = {"softmax", "layer_norm", "rmsnorm", "row_sum", "outer_sum"};
#define N_PROGRAMS ((int)(sizeof PROGRAMS / sizeof *PROGRAMS))

typedef struct size_case {
  int64_t r, d;
  const char *label;
} size_case;

static const size_case SIZES[] = {
    {4096, 4096, "4096 × 4096"},
    {32768, 1024, "32768 × 1024"},
    {16, 1048576, "16 × 1048576"},
    {262144, 64, "262144 × 64"},   /* short rows: segments of a warp (8 lanes a row with 128-bit loads) */
    {1048576, 16, "1048576 × 16"}, /* 2 lanes a row */
};
#define N_SIZES ((int)(sizeof SIZES / sizeof *SIZES))

typedef struct bench_opts {
  char dir[4096]; /* programs directory */
  int arch;       /* sm_<arch> for NVRTC */
  double bw;      /* TB/s */
  int sms;        /* streaming multiprocessors (to flag small grids) */
  bool markdown;
  bool nvrtc;
} bench_opts;

typedef struct bench_row {
  const char *prog;
  const size_case *sz;
  char entry[160];
  bool ok;
  uint32_t n_kernels, eager_kernels;
  int passes[MAX_KERNELS];      /* per kernel */
  int regs[MAX_KERNELS], smem[MAX_KERNELS], spill; /* regs < 0: not measured */
  int64_t blocks, row_len;      /* blocks summed over kernels; elements per REDUCE block (max) */
  int64_t min_b, ours_b, eager_b;
  bool pass_mismatch;           /* the formula and the kernel IR disagree */
  /* the run-time plan: what a run on an H100 launches (the null device's log, below) */
  bool rt_ok;
  uint32_t rt_launches;
  char rt_sched[256];           /* each launch's schedule, "/"-joined */
  int rt_passes[MAX_KERNELS], rt_threads[MAX_KERNELS];
  int64_t rt_blocks[MAX_KERNELS], rt_b;
} bench_row;

/* ---- sizes and bytes ---- */

/* Every dim is static after specialization; -1 otherwise (the row fails). */
static int64_t node_numel(const kg_graph *g, uint32_t id) {
  const kg_gnode *n = &g->nodes.v[id];
  int64_t e = 1;
  if (n->vkind != KG_V_TENSOR) return 1;
  for (int i = 0; i < n->shape.rank; i++) {
    if (n->shape.d[i].kind != KG_DIM_STATIC) return -1;
    e *= n->shape.d[i].v;
  }
  return e;
}

static int64_t node_bytes(const kg_graph *g, uint32_t id) {
  return node_numel(g, id) * kg_dtype_get((kg_dtype)g->nodes.v[id].dtype)->size;
}

static int64_t shape_numel(const kg_shape *s) {
  int64_t e = 1;
  for (int i = 0; i < s->rank; i++) e *= s->d[i].kind == KG_DIM_STATIC ? s->d[i].v : -1;
  return e < 0 ? -1 : e;
}

/* Whether op n reads the values of operand j (full_like & co. take only its shape). */
static bool reads_value(const kg_gnode *n, int j) { return !(n->op == KG_OP_FULL && j == 1); }

/* minimum: the inputs whose values reach an output, once; each output, once */
static int64_t min_bytes(const kg_graph *g) {
  uint8_t *live = kg_xcalloc(g->nodes.n + 1, 1);
  int64_t b = 0;
  for (uint32_t o = 0; o < g->outputs.n; o++) {
    bool dup = false;
    for (uint32_t q = 0; q < o; q++) dup |= g->outputs.v[q] == g->outputs.v[o];
    if (!dup) live[g->outputs.v[o]] = 1, b += node_bytes(g, g->outputs.v[o]);
  }
  for (uint32_t i = g->nodes.n; i-- > 0;) {
    if (!live[i]) continue;
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < n->n_in; j++)
      if (reads_value(n, j)) live[n->in[j]] = 1;
  }
  for (uint32_t p = 0; p < g->params.n; p++) {
    uint32_t id = g->params.v[p].node;
    if (live[id] && g->nodes.v[id].vkind == KG_V_TENSOR) b += node_bytes(g, id);
  }
  free(live);
  return b;
}

/* eager PyTorch op by op: every tensor op is one kernel (softmax and layer_norm
 * are PyTorch's own single fused kernels) that reads each distinct tensor operand
 * once (x * x reads x once) and writes its result once. */
static void eager_cost(const kg_graph *g, uint32_t *kernels, int64_t *bytes) {
  *kernels = 0, *bytes = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    if (n->op == KG_OP_INPUT || n->op == KG_OP_CONST || n->vkind != KG_V_TENSOR) continue;
    (*kernels)++;
    *bytes += node_bytes(g, i);
    for (int j = 0; j < n->n_in; j++) {
      bool seen = false;
      for (int q = 0; q < j; q++) seen |= n->in[q] == n->in[j] && reads_value(n, q);
      if (!seen && reads_value(n, j) && g->nodes.v[n->in[j]].vkind == KG_V_TENSOR) *bytes += node_bytes(g, n->in[j]);
    }
  }
}

/* ---- which buffers each pass of a kernel loads (from the kernel IR) ---- */

typedef struct ir_walk {
  const kg_kernel *k;
  uint8_t *var_used;  /* per var: some expr reads it */
  uint32_t *seen;     /* per expr: stamp of the last walk that visited it */
  uint32_t stamp;
  uint8_t *loads;     /* per param: loaded in this walk */
} ir_walk;

static void walk_expr(ir_walk *w, uint32_t e) {
  if (e == KG_NONE || e >= w->k->exprs.n || w->seen[e] == w->stamp) return;
  w->seen[e] = w->stamp;
  const kg_kx *x = &w->k->exprs.v[e];
  switch (x->kind) {
  case KX_LOAD: w->loads[x->a] = 1, walk_expr(w, x->b); break;
  case KX_OP:
  case KX_SELECT: walk_expr(w, x->a), walk_expr(w, x->b), walk_expr(w, x->c); break;
  case KX_CAST: walk_expr(w, x->a); break;
  default: break;
  }
}

static void walk_block(ir_walk *w, uint32_t s);

/* The loads statement s (and its nested blocks) makes. */
static void walk_stmt(ir_walk *w, uint32_t s) {
  const kg_kernel *k = w->k;
  const kg_ks *st = &k->stmts.v[s];
  switch (st->kind) {
  case KS_DECL:
    if (w->var_used[st->a]) walk_expr(w, st->b); /* a load into a dead local moves nothing (NVVM drops it) */
    break;
  case KS_ASSIGN: walk_expr(w, st->b); break;
  case KS_STORE: walk_expr(w, st->b), walk_expr(w, st->c); break;
  case KS_IF: walk_expr(w, st->a), walk_block(w, st->body), walk_block(w, st->els); break;
  case KS_FOR: walk_expr(w, st->b), walk_expr(w, st->c), walk_expr(w, st->d), walk_block(w, st->body); break;
  case KS_WHILE: walk_expr(w, st->a), walk_block(w, st->body); break;
  case KS_VLOAD:
    for (uint32_t l = 0; l < (k->vec ? k->vec : 1); l++)
      if (w->var_used[st->c + l]) { w->loads[st->a] = 1, walk_expr(w, st->b); break; }
    break;
  case KS_VSTORE: walk_expr(w, st->b); break;
  default: break;
  }
}

static void walk_block(ir_walk *w, uint32_t s) {
  for (; s != KG_NONE; s = w->k->stmts.v[s].next) walk_stmt(w, s);
}

/* does statement s (or a block nested in it) contain a statement of kind kind? */
static bool has_stmt(const kg_kernel *k, uint32_t s, kg_ks_kind kind) {
  const kg_ks *st = &k->stmts.v[s];
  if (st->kind == kind) return true;
  if (st->kind != KS_IF && st->kind != KS_FOR && st->kind != KS_WHILE) return false;
  for (uint32_t b = st->body; b != KG_NONE; b = k->stmts.v[b].next)
    if (has_stmt(k, b, kind)) return true;
  for (uint32_t b = st->kind == KS_IF ? st->els : KG_NONE; b != KG_NONE; b = k->stmts.v[b].next)
    if (has_stmt(k, b, kind)) return true;
  return false;
}

/* reads[p]: how many passes of kernel k load buffer parameter p. A REDUCE kernel's
 * passes are its top-level loops — inside the `if` that guards a thread's output (the column
 * schedule's `if (o < n)`, a warp per row's) when that is the only statement with loops — and
 * a loop of 128-bit loads and the scalar loop over the row's last elements after it are one
 * walk (the run-time vec variants); loads outside them (thread 0's epilogue) read one element
 * per block and are counted in *other (per block). A POINTWISE kernel is one pass. Returns the
 * number of passes. */
static int kernel_passes(const kg_kernel *k, bool reduce, int *reads, int *other) {
  ir_walk w = {k, kg_xcalloc(k->vars.n + 1, 1), kg_xcalloc(k->exprs.n + 1, sizeof(uint32_t)), 0,
               kg_xcalloc(k->params.n + 1, 1)};
  for (uint32_t i = 0; i < k->exprs.n; i++)
    if (k->exprs.v[i].kind == KX_VAR && k->exprs.v[i].a < k->vars.n) w.var_used[k->exprs.v[i].a] = 1;
  for (uint32_t p = 0; p < k->params.n; p++) reads[p] = 0, other[p] = 0;
  int passes = 0;
  if (!reduce) {
    w.stamp = 1;
    walk_block(&w, k->body);
    for (uint32_t p = 0; p < k->params.n; p++) reads[p] = w.loads[p];
    passes = 1;
  } else {
    uint32_t top = k->body;
    for (;;) { /* into the guarding if */
      uint32_t only = KG_NONE, n_loops = 0;
      for (uint32_t s = top; s != KG_NONE; s = k->stmts.v[s].next)
        if (has_stmt(k, s, KS_FOR)) only = s, n_loops++;
      if (n_loops != 1 || k->stmts.v[only].kind != KS_IF || k->stmts.v[only].els != KG_NONE) break;
      top = k->stmts.v[only].body;
    }
    for (uint32_t s = top; s != KG_NONE; s = k->stmts.v[s].next) {
      memset(w.loads, 0, k->params.n + 1);
      w.stamp++;
      walk_stmt(&w, s);
      bool loop = k->stmts.v[s].kind == KS_FOR; /* a pass over the rows */
      uint32_t nx = k->stmts.v[s].next;
      if (loop && nx != KG_NONE && k->stmts.v[nx].kind == KS_FOR && has_stmt(k, s, KS_VLOAD) && !has_stmt(k, nx, KS_VLOAD))
        walk_stmt(&w, nx), s = nx; /* the vector walk's scalar tail */
      passes += loop;
      for (uint32_t p = 0; p < k->params.n; p++)
        if (w.loads[p]) (loop ? reads : other)[p]++;
    }
  }
  free(w.var_used), free(w.seen), free(w.loads);
  return passes;
}

/* The passes the schedule promises (kg_reduce_passes, lower_reduce.c). */
static int formula_passes(const kg_compiled *c, uint32_t ki) { return kg_reduce_passes_variant(&c->lg, &c->fusion.groups.v[ki], &c->variants[ki]); }

/* The node behind a kernel tensor parameter, in program lg fused as F (a plan's, kg_compiled_plan). */
static uint32_t plan_param_node(const kg_graph *lg, const kg_fusion *F, const kg_kparam *kp) {
  if (kp->r0 == KG_BUF_PARAM) return lg->params.v[kp->r1].node;
  if (kp->r0 == KG_BUF_OUTPUT) return lg->outputs.v[kp->r1];
  return F->temps.v[kp->r1];
}
static uint32_t param_node(const kg_compiled *c, const kg_kparam *kp) { return plan_param_node(&c->lg, &c->fusion, kp); }

/* ours: per launched kernel, each source × the passes that load it, each written
 * buffer once. 0 on success. */
static int measure_ours(const kg_compiled *c, bench_row *r) {
  const kg_graph *lg = &c->lg;
  r->ours_b = 0, r->blocks = 0, r->row_len = 0;
  for (uint32_t ki = 0; ki < c->n_kernels && ki < MAX_KERNELS; ki++) {
    const kg_kernel *k = kg_compiled_kernel(c, ki);
    const kg_group *grp = &c->fusion.groups.v[ki];
    bool reduce = grp->kind == KG_GROUP_REDUCE;
    int64_t space = shape_numel(&grp->space);
    if (space < 0) return -1;
    if (space == 0) { r->passes[ki] = 0; continue; } /* not launched (exec.c) */
    int *reads = kg_xcalloc(k->params.n + 1, sizeof *reads), *other = kg_xcalloc(k->params.n + 1, sizeof *other);
    int passes = kernel_passes(k, reduce, reads, other);
    r->passes[ki] = passes;
    if (passes != formula_passes(c, ki)) r->pass_mismatch = true;
    int64_t blocks;
    if (reduce) {
      int64_t outs = node_numel(lg, grp->red); /* a block per element of the result, or a thread (column schedule) */
      blocks = (int64_t)kg_launch_blocks_x(&k->launch, (uint64_t)outs, 0, 0);
      if (k->launch.per_output == KG_LAUNCH_BLOCK_PER_OUTPUT && outs > 0 && space / outs > r->row_len) r->row_len = space / outs;
    } else {
      blocks = (int64_t)kg_launch_blocks_x(&k->launch, 0, (uint64_t)space, 0);
    }
    r->blocks += blocks;
    for (uint32_t j = 0; j < k->params.n; j++) {
      const kg_kparam *kp = &k->params.v[j];
      if (kp->kind != KP_BUFFER || kp->role != KPR_TENSOR) continue;
      uint32_t node = param_node(c, kp);
      int64_t nb = node_bytes(lg, node);
      if (nb < 0) { free(reads), free(other); return -1; }
      if (kp->is_output) r->ours_b += nb;
      else r->ours_b += nb * reads[j] + (int64_t)other[j] * blocks * kg_dtype_get((kg_dtype)kp->dtype)->size;
    }
    free(reads), free(other);
  }
  return 0;
}

/* ---- the run-time plan (issue 26) ----
 * The table above models the fused plan's default kernels, as compiled. A run decides more from
 * its sizes and its device (runtime/exec.c, the scheduler's run-time facts): a split reduction
 * (a partial kernel over chunks of the rows and a finish kernel), the split-rows plan (softmax,
 * RMSNorm, layer_norm over few long rows), a warp per row, threads per block, 128-bit loads. The
 * null device plans for an H100 (runtime/exec.c run_target) and records every launch it is
 * given: the entry runs there with buffers of the case's sizes (zeros: the null device launches
 * nothing), and each launch is measured from the kernel variant it names — its passes and the
 * bytes its loops load (kernel_passes, as above), its grid and block as launched. A split's
 * scratch (each chunk's partial accumulators: kilobytes) is not counted. */
static void *zbuf(size_t bytes) {
  size_t n = (bytes + 255) / 256 * 256;
  void *p = aligned_alloc(256, n ? n : 256);
  if (p) memset(p, 0, n ? n : 256);
  return p;
}

static int dl_of(const kg_gnode *n, int64_t *shape, DLTensor *t, void **buf) {
  memset(t, 0, sizeof *t);
  int rank = n->vkind == KG_V_TENSOR ? n->shape.rank : 0;
  int64_t e = 1;
  for (int i = 0; i < rank; i++) {
    if (n->shape.d[i].kind != KG_DIM_STATIC) return -1;
    shape[i] = n->shape.d[i].v, e *= shape[i];
  }
  *buf = zbuf((size_t)e * kg_dtype_get((kg_dtype)n->dtype)->size);
  if (!*buf) return -1;
  t->data = *buf, t->device.device_type = kDLCPU, t->ndim = rank, t->shape = shape;
  t->dtype = kg_dtype_to_dl((kg_dtype)n->dtype);
  return 0;
}

static int measure_runtime(kg_compiled *c, kg_device *dv, bench_row *r) {
  const kg_graph *g = &c->g;
  uint32_t np = g->params.n, no = (uint32_t)kg_compiled_n_outputs(c);
  DLTensor *pt = kg_xcalloc(np + no + 1, sizeof *pt);
  int64_t *shp = kg_xcalloc((size_t)(np + no + 1) * KG_MAX_RANK, sizeof *shp);
  void **bufs = kg_xcalloc(np + no + 1, sizeof *bufs);
  const DLTensor **ins = kg_xcalloc(np + 1, sizeof *ins);
  kg_named_tensor *caps = kg_xcalloc(np + 1, sizeof *caps);
  DLTensor **outs = kg_xcalloc(no + 1, sizeof *outs);
  int nin = 0, ncap = 0, rc = 0;
  for (uint32_t p = 0; p < np && rc == 0; p++) {
    rc = dl_of(&g->nodes.v[g->params.v[p].node], &shp[p * KG_MAX_RANK], &pt[p], &bufs[p]);
    if (g->params.v[p].is_capture) caps[ncap].name = g->params.v[p].name, caps[ncap++].t = &pt[p];
    else ins[nin++] = &pt[p];
  }
  for (uint32_t o = 0; o < no && rc == 0; o++) { /* the results (write-backs are not kg_run's outputs) */
    kg_gnode n = c->lg.nodes.v[c->lg.outputs.v[o]];
    DLDataType dt;
    int nd;
    int64_t sh[8];
    if (kg_compiled_output(c, (int)o, &dt, &nd, sh) != KG_OK || nd > KG_MAX_RANK) { rc = -1; break; }
    n.shape.rank = (uint8_t)nd, n.vkind = nd ? KG_V_TENSOR : n.vkind;
    for (int i = 0; i < nd; i++) n.shape.d[i].kind = KG_DIM_STATIC, n.shape.d[i].v = sh[i];
    rc = dl_of(&n, &shp[(np + o) * KG_MAX_RANK], &pt[np + o], &bufs[np + o]);
    outs[o] = &pt[np + o];
  }
  kg_dev_null_config(dv, true, false);
  kg_dev_null_log_clear(dv);
  if (rc == 0 && kg_run(c, KG_DEVICE_NULL, ins, nin, caps, ncap, outs, (int)no, NULL) != KG_OK) {
    fprintf(stderr, "bench_reduce: %s: the run on the null device failed:\n%s", r->entry, kg_last_error(c->m->ctx));
    rc = -1;
  }
  uint32_t nl = 0;
  const kg_null_launch *log = rc == 0 ? kg_dev_null_log(dv, &nl) : NULL;
  r->rt_launches = nl, r->rt_b = 0, r->rt_sched[0] = 0;
  size_t at = 0;
  for (uint32_t i = 0; i < nl && rc == 0; i++) {
    const kg_kvariant *kv = NULL;
    for (uint32_t j = 0; j < c->runtime.n && !kv; j++)
      if (!strcmp(c->runtime.v[j]->k.name, log[i].kernel)) kv = c->runtime.v[j];
    if (!kv) {
      fprintf(stderr, "bench_reduce: %s: launch %u names kernel %s, which the entry does not have\n", r->entry, i, log[i].kernel);
      rc = -1;
      break;
    }
    kg_plan_view pv = kg_compiled_plan(c, kv->v.plan);
    const kg_kernel *k = &kv->k;
    bool reduce = pv.F->groups.v[kv->group].kind == KG_GROUP_REDUCE;
    int *reads = kg_xcalloc(k->params.n + 1, sizeof *reads), *other = kg_xcalloc(k->params.n + 1, sizeof *other);
    int passes = kernel_passes(k, reduce, reads, other);
    if (reduce && passes != kg_reduce_passes_variant(pv.lg, &pv.F->groups.v[kv->group], &kv->v)) {
      fprintf(stderr, "bench_reduce: %s: launch %u (%s): the kernel IR's passes (%d) differ from the schedule's formula (%d)\n", r->entry, i,
              k->name, passes, kg_reduce_passes_variant(pv.lg, &pv.F->groups.v[kv->group], &kv->v));
      r->pass_mismatch = true;
    }
    int64_t blocks = (int64_t)log[i].grid[0] * log[i].grid[1] * log[i].grid[2];
    if (i < MAX_KERNELS)
      r->rt_passes[i] = passes, r->rt_blocks[i] = blocks, r->rt_threads[i] = (int)(log[i].block[0] * log[i].block[1] * log[i].block[2]);
    at += (size_t)snprintf(r->rt_sched + at, at < sizeof r->rt_sched ? sizeof r->rt_sched - at : 0, "%s%s", i ? " / " : "", k->schedule ? k->schedule : "?");
    if (at >= sizeof r->rt_sched) at = sizeof r->rt_sched - 1;
    for (uint32_t j = 0; j < k->params.n; j++) {
      const kg_kparam *kp = &k->params.v[j];
      if (kp->kind != KP_BUFFER || kp->role != KPR_TENSOR || kp->r0 == KG_BUF_SCRATCH) continue;
      int64_t nb = node_bytes(pv.lg, plan_param_node(pv.lg, pv.F, kp));
      if (nb < 0) { rc = -1; break; }
      if (kp->is_output) r->rt_b += nb;
      else r->rt_b += nb * reads[j] + (int64_t)other[j] * blocks * kg_dtype_get((kg_dtype)kp->dtype)->size;
    }
    free(reads), free(other);
  }
  kg_dev_null_log_clear(dv);
  kg_dev_null_config(dv, false, true);
  for (uint32_t p = 0; p < np + no; p++) free(bufs[p]);
  free(pt), free(shp), free(bufs), free(ins), free(caps), free(outs);
  r->rt_ok = rc == 0;
  return rc;
}

/* ---- one program at one size ---- */

/* The entry's signature with R and D substituted, in the compact form. */
static int build_sig(const kg_sig *s, const size_case *sz, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < s->n_params; i++) {
    const kg_sig_param *p = &s->params[i];
    at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", kg_dtype_name(p->dtype));
    if (p->is_scalar) continue;
    at += (size_t)snprintf(buf + at, n - at, "[");
    for (int d = 0; d < p->rank; d++) {
      const kg_sig_dim *dm = &p->dims[d];
      int64_t v;
      if (dm->kind == KG_DIM_STATIC) v = dm->size;
      else if (dm->kind == KG_DIM_SYM && !strcmp(dm->sym, "R")) v = sz->r;
      else if (dm->kind == KG_DIM_SYM && !strcmp(dm->sym, "D")) v = sz->d;
      else return -1;
      at += (size_t)snprintf(buf + at, n - at, "%s%lld", d ? "," : "", (long long)v);
    }
    at += (size_t)snprintf(buf + at, n - at, "]");
    if (at >= n) return -1;
  }
  return 0;
}

static int measure_nvrtc(kg_nvrtc *nv, const kg_compiled *c, int arch, bench_row *r, kg_diag *d) {
  kg_nvrtc_out o;
  memset(&o, 0, sizeof o);
  char prog[176];
  snprintf(prog, sizeof prog, "%s.cu", r->entry);
  if (kg_nvrtc_compile(nv, prog, c->cuda, arch, true, NULL, &o, d) != 0) {
    kg_nvrtc_out_free(&o);
    return -1;
  }
  r->spill = 0;
  for (uint32_t ki = 0; ki < c->n_kernels && ki < MAX_KERNELS; ki++)
    for (uint32_t s = 0; s < o.n_stats; s++)
      if (!strcmp(o.stats[s].name, kg_compiled_kernel(c, ki)->name)) {
        r->regs[ki] = o.stats[s].regs, r->smem[ki] = o.stats[s].smem;
        r->spill += o.stats[s].spill_stores + o.stats[s].spill_loads;
      }
  kg_nvrtc_out_free(&o);
  return 0;
}

static bool has_entry(const kg_module *m, const char *name) {
  for (int i = 0; i < kg_module_n_entries(m); i++)
    if (!strcmp(kg_module_entry_name(m, i), name)) return true;
  return false;
}

/* 0 on success; on failure prints why. */
static int run_case(kg_module *m, kg_nvrtc *nv, kg_device *dv, const bench_opts *o, bench_row *r, kg_diag *d) {
  char want[128];
  snprintf(want, sizeof want, "%s_%lld", r->prog, (long long)r->sz->d);
  const char *entry = has_entry(m, want) ? want : kg_module_entry_name(m, 0);
  snprintf(r->entry, sizeof r->entry, "%s", entry);
  uint32_t ei = 0;
  while (strcmp(m->doc->entries[ei].name, entry)) ei++;
  const kg_sig *s = m->doc->entries[ei].sig;
  char sig[512];
  if (!s || build_sig(s, r->sz, sig, sizeof sig) != 0) {
    fprintf(stderr, "bench_reduce: %s: entry %s needs a signature over the symbols R and D\n", r->prog, entry);
    return -1;
  }
  kg_compiled *c = NULL;
  if (kg_specialize(m, entry, sig, &c) != KG_OK) {
    fprintf(stderr, "bench_reduce: %s [%s] failed to specialize:\n%s", r->prog, sig, kg_last_error(m->ctx));
    return -1;
  }
  for (int i = 0; i < MAX_KERNELS; i++) r->regs[i] = -1, r->smem[i] = -1;
  r->spill = -1;
  r->n_kernels = (uint32_t)kg_compiled_n_kernels(c);
  if (r->n_kernels > MAX_KERNELS)
    fprintf(stderr, "bench_reduce: %s has %u kernels; %d are measured\n", r->prog, r->n_kernels, MAX_KERNELS);
  r->min_b = min_bytes(&c->g);
  eager_cost(&c->g, &r->eager_kernels, &r->eager_b);
  int rc = measure_ours(c, r);
  if (rc != 0 || r->min_b < 0 || r->eager_b < 0) fprintf(stderr, "bench_reduce: %s [%s]: a size is not static\n", r->prog, sig);
  if (rc == 0 && dv) measure_runtime(c, dv, r); /* its own column: a failure there is reported, the case stays */
  if (rc == 0 && r->pass_mismatch)
    fprintf(stderr, "bench_reduce: %s [%s]: the kernel IR's passes differ from the schedule's formula\n", r->prog, sig);
  if (rc == 0 && nv && o->nvrtc && measure_nvrtc(nv, c, o->arch, r, d) != 0) {
    char *msg = kg_diag_format(d);
    fprintf(stderr, "bench_reduce: NVRTC failed on %s [%s]:\n%s", r->prog, sig, msg);
    free(msg);
    kg_diag_clear(d);
    rc = -1;
  }
  kg_compiled_free(c);
  return rc;
}

/* ---- printing ---- */

static double us_at(const bench_opts *o, int64_t bytes) { return (double)bytes / (o->bw * 1e6); } /* TB/s = 1e6 B/µs */
static double mb(int64_t b) { return (double)b / 1e6; }

/* "a/b/…" over the row's kernels, "-" when not measured */
static void join_ints(char *buf, size_t n, const int *v, uint32_t k) {
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < k && i < MAX_KERNELS && at < n; i++) {
    if (v[i] < 0) { snprintf(buf, n, "-"); return; }
    at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? "/" : "", v[i]);
  }
  if (!buf[0]) snprintf(buf, n, "-");
}

static void print_table(const bench_opts *o, const bench_row *rows, int n) {
  if (o->markdown) {
    printf("| program | R × D | kernels ours / eager | passes | regs | smem B | blocks | row | min MB | ours MB | eager MB "
           "| ours/min | min µs | ours µs | eager µs | eager/ours |\n");
    printf("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  } else {
    printf("%-11s %-13s %7s %6s %5s %6s %8s %8s %9s %9s %9s %8s %8s %8s %8s %10s\n", "program", "R x D", "k/eager", "passes",
           "regs", "smem", "blocks", "row", "min_MB", "ours_MB", "eager_MB", "ours/min", "min_us", "ours_us", "eager_us",
           "eager/ours");
  }
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    if (!r->ok) {
      if (o->markdown) printf("| %s | %s | FAILED ||||||||||||||\n", r->prog, r->sz->label);
      else printf("%-11s %-13s FAILED\n", r->prog, r->sz->label);
      continue;
    }
    char kk[32], ps[48], rg[48], sm[48], rl[32];
    snprintf(kk, sizeof kk, "%u / %u", r->n_kernels, r->eager_kernels);
    join_ints(ps, sizeof ps, r->passes, r->n_kernels);
    join_ints(rg, sizeof rg, r->regs, r->n_kernels);
    join_ints(sm, sizeof sm, r->smem, r->n_kernels);
    if (r->row_len > 0) snprintf(rl, sizeof rl, "%lld", (long long)r->row_len);
    else snprintf(rl, sizeof rl, "-");
    double tm = us_at(o, r->min_b), to = us_at(o, r->ours_b), te = us_at(o, r->eager_b);
    double fm = r->min_b ? (double)r->ours_b / (double)r->min_b : 0, eo = r->ours_b ? (double)r->eager_b / (double)r->ours_b : 0;
    if (o->markdown)
      printf("| %s | %s | %s | %s | %s | %s | %lld | %s | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.2fx |\n", r->prog,
             r->sz->label, kk, ps, rg, sm, (long long)r->blocks, rl, mb(r->min_b), mb(r->ours_b), mb(r->eager_b), fm, tm, to,
             te, eo);
    else
      printf("%-11s %-13s %7s %6s %5s %6s %8lld %8s %9.1f %9.1f %9.1f %8.2f %8.1f %8.1f %8.1f %9.2fx\n", r->prog, r->sz->label,
             kk, ps, rg, sm, (long long)r->blocks, rl, mb(r->min_b), mb(r->ours_b), mb(r->eager_b), fm, tm, to, te, eo);
  }
}

/* the run-time plan's table: what a run at the case's sizes launches on an H100 */
static void print_runtime_table(const bench_opts *o, const bench_row *rows, int n) {
  printf(o->markdown ? "\n**The run-time plan** (what a run at these sizes launches on an H100: the null device's log)\n\n"
                     : "\nrun-time plan (what a run at these sizes launches on an H100: the null device's log)\n");
  if (o->markdown) {
    printf("| program | R × D | launches | schedules | passes | threads × blocks | ours MB | ours/min | ours µs | eager/ours |\n");
    printf("|---|---|--:|---|--:|---|--:|--:|--:|--:|\n");
  } else {
    printf("%-11s %-13s %8s %6s %9s %9s %8s %10s  %s\n", "program", "R x D", "launches", "passes", "ours_MB", "ours/min", "ours_us",
           "eager/ours", "schedules; threads x blocks");
  }
  int n_rt = 0, n_split = 0;
  double log_sum = 0;
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    if (!r->ok || !r->rt_ok) {
      if (o->markdown) printf("| %s | %s | not run ||||||||\n", r->prog, r->sz->label);
      else printf("%-11s %-13s not run\n", r->prog, r->sz->label);
      continue;
    }
    char ps[64], tb[256];
    int pv[MAX_KERNELS];
    uint32_t nk = r->rt_launches < MAX_KERNELS ? r->rt_launches : MAX_KERNELS;
    for (uint32_t k = 0; k < nk; k++) pv[k] = r->rt_passes[k];
    join_ints(ps, sizeof ps, pv, nk);
    size_t at = 0;
    tb[0] = 0;
    for (uint32_t k = 0; k < nk && at < sizeof tb; k++)
      at += (size_t)snprintf(tb + at, sizeof tb - at, "%s%d × %lld", k ? " / " : "", r->rt_threads[k], (long long)r->rt_blocks[k]);
    double fm = r->min_b ? (double)r->rt_b / (double)r->min_b : 0, eo = r->rt_b ? (double)r->eager_b / (double)r->rt_b : 0;
    n_rt++, n_split += r->rt_launches > r->n_kernels, log_sum += eo > 0 ? log(eo) : 0;
    if (o->markdown)
      printf("| %s | %s | %u | %s | %s | %s | %.1f | %.2f | %.1f | %.2fx |\n", r->prog, r->sz->label, r->rt_launches, r->rt_sched, ps, tb,
             mb(r->rt_b), fm, us_at(o, r->rt_b), eo);
    else
      printf("%-11s %-13s %8u %6s %9.1f %9.2f %8.1f %9.2fx  %s; %s\n", r->prog, r->sz->label, r->rt_launches, ps, mb(r->rt_b), fm,
             us_at(o, r->rt_b), eo, r->rt_sched, tb);
  }
  printf("%s%d cases run; %d launch more kernels than the compiled plan (a split); eager / ours bytes, geometric mean %.2fx\n",
         o->markdown ? "\n- " : "\n  ", n_rt, n_split, n_rt ? exp(log_sum / n_rt) : 0);
}

static void print_summary(const bench_opts *o, const bench_row *rows, int n, const char *nvrtc_note) {
  const char *b = o->markdown ? "- " : "  ";
  printf(o->markdown ? "\n**Summary**\n\n" : "\nsummary\n");
  int n_ok = 0;
  for (int i = 0; i < n; i++) n_ok += rows[i].ok;
  printf("%scases: %d (%d failed); predicted time = bytes / %.2f TB/s (no launch overhead, no L2 reuse)\n", b, n_ok, n - n_ok,
         o->bw);
  /* ours / min per program (the same at every size when the weights are small) */
  printf("%sours / min:", b);
  const char *sep = "";
  for (int p = 0; p < N_PROGRAMS; p++) {
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
      if (!rows[i].ok || strcmp(rows[i].prog, PROGRAMS[p]) || !rows[i].min_b) continue;
      double f = (double)rows[i].ours_b / (double)rows[i].min_b;
      lo = f < lo ? f : lo, hi = f > hi ? f : hi;
    }
    if (hi == 0) continue;
    if (hi - lo < 0.005) printf("%s %s %.2f", sep, PROGRAMS[p], lo);
    else printf("%s %s %.2f–%.2f", sep, PROGRAMS[p], lo, hi);
    sep = ",";
  }
  printf("\n%seager / ours bytes (the predicted speedup):", b);
  double log_sum = 0;
  int n_geo = 0;
  sep = "";
  for (int p = 0; p < N_PROGRAMS; p++) {
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
      if (!rows[i].ok || strcmp(rows[i].prog, PROGRAMS[p]) || !rows[i].ours_b) continue;
      double f = (double)rows[i].eager_b / (double)rows[i].ours_b;
      lo = f < lo ? f : lo, hi = f > hi ? f : hi;
      log_sum += log(f), n_geo++;
    }
    if (hi == 0) continue;
    if (hi - lo < 0.005) printf("%s %s %.2fx", sep, PROGRAMS[p], lo);
    else printf("%s %s %.2f–%.2fx", sep, PROGRAMS[p], lo, hi);
    sep = ",";
  }
  printf("; geometric mean %.2fx over %d cases\n", n_geo ? exp(log_sum / n_geo) : 0, n_geo);
  printf("%sin the compiled plan (the run-time plan below splits few long rows and gives short rows a warp or a\n  segment of one), grids smaller than the %d SMs:", b, o->sms);
  sep = " ";
  for (int i = 0; i < n; i++)
    if (rows[i].ok && rows[i].blocks < o->sms)
      printf("%s%s %s (%lld blocks)", sep, rows[i].prog, rows[i].sz->label, (long long)rows[i].blocks), sep = ", ";
  if (!strcmp(sep, " ")) printf(" none");
  printf("\n%sin the compiled plan, blocks of 256 threads walking rows shorter than 256 elements:", b);
  sep = " ";
  for (int i = 0; i < n; i++)
    if (rows[i].ok && rows[i].row_len > 0 && rows[i].row_len < 256)
      printf("%s%s %s (%lld elements per block)", sep, rows[i].prog, rows[i].sz->label, (long long)rows[i].row_len), sep = ", ";
  if (!strcmp(sep, " ")) printf(" none");
  printf("\n");
  if (!nvrtc_note) {
    int spill = 0;
    for (int i = 0; i < n; i++) spill += rows[i].ok && rows[i].spill > 0 ? rows[i].spill : 0;
    printf("%sregisters / shared memory: ptxas for sm_%d (cubin); spill bytes over all cases: %d\n", b, o->arch, spill);
  } else {
    printf("%sregisters / shared memory: %s\n", b, nvrtc_note);
  }
  printf("%seager kernels: one per tensor op of the typed program; torch.softmax = 1 kernel, "
         "nn.functional.layer_norm = 1, each sum / mean = 1, each pointwise op = 1\n", b);
}

/* ---- main ---- */

static void usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s [--programs DIR] [--arch 90] [--bw 3.35] [--sms 132] [--markdown] [--no-nvrtc]\n"
          "  kernels, registers and bytes moved by kgen's reductions and normalizations against eager PyTorch\n",
          argv0);
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static bool parse_args(int argc, char **argv, bench_opts *o) {
  const char *f = __FILE__;
  size_t fl = strlen(f), sl = strlen(SELF_PATH);
  int pre = fl >= sl && strcmp(f + fl - sl, SELF_PATH) == 0 ? (int)(fl - sl) : 0;
  snprintf(o->dir, sizeof o->dir, "%.*sperf/programs", pre, f);
  o->arch = 90, o->bw = 3.35, o->sms = 132, o->markdown = false, o->nvrtc = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "--programs") && has) snprintf(o->dir, sizeof o->dir, "%s", argv[++i]);
    else if (!strcmp(a, "--arch") && has) { if (!parse_int(argv[++i], 75, 121, &o->arch)) return false; }
    else if (!strcmp(a, "--sms") && has) { if (!parse_int(argv[++i], 1, 100000, &o->sms)) return false; }
    else if (!strcmp(a, "--bw") && has) {
      char *end;
      o->bw = strtod(argv[++i], &end);
      if (*end || !(o->bw > 0) || o->bw > 1000) return false;
    }
    else if (!strcmp(a, "--markdown")) o->markdown = true;
    else if (!strcmp(a, "--no-nvrtc")) o->nvrtc = false;
    else return false;
  }
  return true;
}

int main(int argc, char **argv) {
  bench_opts o;
  if (!parse_args(argc, argv, &o)) {
    usage(argv[0]);
    return 2;
  }
  kg_context *ctx = kg_context_new(NULL);
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *nv = NULL;
  char nvrtc_note[256] = "not measured (--no-nvrtc)";
  if (o.nvrtc) {
    nv = kg_nvrtc_open(&d);
    if (!nv) snprintf(nvrtc_note, sizeof nvrtc_note, "unavailable (libnvrtc.so not found; set KGEN_NVRTC_LIB)");
    kg_diag_clear(&d);
  }
  kg_device *dv = kg_ctx_device(ctx, KG_DEVICE_NULL, &d); /* the run-time plan's recorder */
  if (!dv) kg_diag_clear(&d);
  int n = N_PROGRAMS * N_SIZES, failed = 0;
  bench_row *rows = kg_xcalloc((size_t)n, sizeof *rows);
  bool tty = isatty(2);
  for (int p = 0; p < N_PROGRAMS; p++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.json", o.dir, PROGRAMS[p]);
    kg_module *m = NULL;
    kg_status s = kg_module_load_file(ctx, path, &m);
    if (s != KG_OK) fprintf(stderr, "%sbench_reduce: cannot load %s:\n%s", tty ? "\n" : "", path, kg_last_error(ctx));
    for (int z = 0; z < N_SIZES; z++) {
      bench_row *r = &rows[p * N_SIZES + z];
      r->prog = PROGRAMS[p], r->sz = &SIZES[z];
      if (tty) fprintf(stderr, "\r[%d/%d] %-12s %-14s", p * N_SIZES + z + 1, n, r->prog, r->sz->label);
      r->ok = s == KG_OK && run_case(m, nv, dv, &o, r, &d) == 0;
      failed += !r->ok;
    }
    kg_module_free(m);
  }
  if (tty) fprintf(stderr, "\r%-60s\r", "");
  if (o.markdown)
    printf("Programs: %s; float32; NVRTC %s, sm_%d; bandwidth %.2f TB/s\n\n", o.dir, nv ? kg_nvrtc_version(nv) : "-",
           o.arch, o.bw);
  else
    printf("programs: %s   NVRTC: %s   arch: sm_%d   bandwidth: %.2f TB/s\n\n", o.dir, nv ? kg_nvrtc_version(nv) : nvrtc_note,
           o.arch, o.bw);
  print_table(&o, rows, n);
  print_summary(&o, rows, n, nv && o.nvrtc ? NULL : nvrtc_note);
  if (dv) print_runtime_table(&o, rows, n);
  else printf("\nrun-time plan: not measured (no null device)\n");
  if (failed) fprintf(stderr, "bench_reduce: %d case(s) failed\n", failed);
  free(rows);
  if (nv) kg_nvrtc_close(nv);
  kg_diag_free(&d);
  kg_context_free(ctx);
  return failed ? 1 : 0;
}
