/* runtime/replay.c — replaying a compiled program's launches (docs/design.md "Replay").
 *
 * A program run (kg_run_program: a straight-line entry, one region of a host plan, a copy)
 * spends its host time binding sizes, choosing a plan and variants, asking the scheduler,
 * marshalling parameters and allocating temporaries; everything but the data pointers, the
 * scalar parameters and the random generator's state is a function of the run's "size
 * pattern": every tensor's dtype, device, shape, strides and address alignment (the variant
 * choice reads the alignment, never the address), the device, the stream and the options.
 *
 * So the first run of a pattern is recorded: its launches (module, kernel, grid, block,
 * shared memory, parameter values) into a record owned by the compiled program, its
 * temporaries and scratch from a pool the record owns and keeps (kg_pool). A later run with
 * the same pattern skips all of it: it recomputes only the dynamic parameters (the caller's
 * tensors' data pointers, scalar values read at launch, the generator's seed and offset, a
 * tensor map over a caller's tensor) and launches the list — on a device with graphs
 * (kg_device_vt.graph_*: a CUDA graph on the CUDA device) as one graph launch, updating only
 * the nodes whose parameters changed; elsewhere launch by launch. A host plan's regions are
 * programs of their own, so a plan replays region by region between its host steps.
 *
 * A compiled program keeps up to KG_REPLAY_SLOTS patterns (the least recently used goes,
 * with its graph and temporaries). Off with kg_options.no_replay or KGEN_REPLAY=0.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

/* patterns kept per program: a loop's region over views x[t] meets up to 7 address alignments
 * (1 .. 64 bytes) for each trip count it is called with */
#define KG_REPLAY_SLOTS 16

/* one recorded launch: what the device was given, and which parameters a replay recomputes */
typedef struct rlaunch {
  kg_launch_desc L;        /* L.params points at vals (or at a tensor map in tm) */
  uint64_t *vals;          /* 8 bytes per parameter */
  unsigned char (*tm)[128];/* tensor maps (KPR_TMAP), by value */
  const void **tm_base;    /* the base each was encoded for */
  const kg_kernel *k;
  kg_rt_module *mod;
  uint32_t *dyn, n_dyn;    /* parameters that depend on more than the size pattern */
} rlaunch;

struct kg_replay_rec {
  unsigned char *key;
  size_t key_len;
  uint64_t used;           /* the replay tick it last ran at (LRU) */
  kg_device *dev;
  void *stream;
  bool in_plan;            /* a plan's region: its caller synchronizes */
  KG_VEC(rlaunch) launches;
  kg_pool pool;            /* its temporaries and scratch, kept */
  void *graph;             /* the device's graph of the launches, or NULL */
  bool graph_failed;
};

struct kg_replay {
  kg_replay_rec *slot[KG_REPLAY_SLOTS];
  uint64_t tick;
  unsigned char *key;     /* the key of the run being looked up (reused) */
  size_t key_len, key_cap;
  uint32_t *cap_at;       /* per parameter: where in the caller's captures it was found last */
};

static void *data_ptr(const DLTensor *t) { return (char *)t->data + t->byte_offset; }

static void key_put(kg_replay *R, const void *p, size_t n) {
  if (R->key_len + n > R->key_cap) {
    R->key_cap = (R->key_len + n) * 2;
    R->key = kg_xrealloc(R->key, R->key_cap);
  }
  memcpy(R->key + R->key_len, p, n);
  R->key_len += n;
}

static void key_tensor(kg_replay *R, const DLTensor *t) {
  int32_t h[5] = {t->device.device_type, t->device.device_id, t->dtype.code | t->dtype.bits << 8 | t->dtype.lanes << 16, t->ndim, 0};
  uintptr_t a = (uintptr_t)data_ptr(t);
  uint64_t al = a ? (a & (~a + 1)) : 64;
  h[4] = (int32_t)(al > 64 ? 64 : al);
  key_put(R, h, sizeof h);
  for (int i = 0; i < t->ndim; i++) {
    int64_t s[2] = {t->shape[i], kg_dl_stride(t, i)};
    key_put(R, s, sizeof s);
  }
}

static bool same_name(const char *a, const char *b) { return a == b || (a && strcmp(a, b) == 0); }

/* the run's parameters (inputs, then captures found by name) into pt; false when one is
 * missing (the run reports it). A caller passes its captures in the same order call after
 * call: each is looked for where it was found last first (a model's hundreds of weights would
 * otherwise cost a quadratic number of name comparisons per call). */
static bool resolve(kg_replay *R, const kg_graph *g, const DLTensor *const *inputs, const kg_named_tensor *captures, int n_captures,
                    const DLTensor **pt) {
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gparam *gp = &g->params.v[p];
    pt[p] = NULL;
    if (!gp->is_capture) {
      pt[p] = inputs[p];
    } else {
      int32_t j = (int32_t)R->cap_at[p];
      if (j >= n_captures || !same_name(captures[j].name, gp->name))
        for (j = n_captures - 1; j >= 0 && !same_name(captures[j].name, gp->name); j--) {} /* the last of a name, as kg_run_program takes */
      if (j >= 0) pt[p] = captures[j].t, R->cap_at[p] = (uint32_t)j;
    }
    if (!pt[p]) return false;
  }
  return true;
}

static void rec_free(kg_context *ctx, kg_replay_rec *r) {
  if (!r) return;
  /* no graph destroyed, and no temporary freed, while a replay on the record's stream may still
   * run (its temporaries go in stream order where the device can) */
  if ((r->graph || (r->stream && r->pool.bufs.n && !r->dev->vt->free_async)) && r->dev->vt->sync) {
    kg_diag tmp;
    kg_diag_init(&tmp);
    (void)r->dev->vt->sync(r->dev, r->stream, &tmp);
    kg_diag_free(&tmp);
  }
  if (r->graph) r->dev->vt->graph_free(r->dev, r->graph);
  kg_pool_release(&r->pool);
  for (uint32_t i = 0; i < r->launches.n; i++) {
    rlaunch *l = &r->launches.v[i];
    free(l->vals), free(l->tm), free(l->tm_base), free(l->dyn), free(l->L.params);
  }
  KG_VEC_FREE(r->launches);
  free(r->key);
  free(r);
  (void)ctx;
}

void kg_replay_free(kg_compiled *c) {
  kg_replay *R = c->replay;
  if (!R) return;
  for (int i = 0; i < KG_REPLAY_SLOTS; i++) rec_free(c->m->ctx, R->slot[i]);
  free(R->key);
  free(R->cap_at);
  free(R);
  c->replay = NULL;
}

/* The current value of dynamic parameter j of launch l into *v (8 bytes); the tensor map of a
 * KPR_TMAP parameter is re-encoded into l->tm when its base moved. */
static int dyn_value(kg_context *ctx, kg_device *dev, kg_pool *pool, rlaunch *l, uint32_t j, const DLTensor **pt, DLTensor *const *outputs, uint64_t *v,
                     bool *changed, kg_diag *d) {
  const kg_kparam *kp = &l->k->params.v[j];
  *v = 0;
  switch (kp->role) {
  case KPR_TENSOR: {
    void *p = data_ptr(kp->r0 == KG_BUF_OUTPUT ? outputs[kp->r1] : pt[kp->r1]);
    memcpy(v, &p, sizeof p);
    break;
  }
  case KPR_SCALAR: kg_scalar_param(pt[kp->r1], (kg_dtype)kp->dtype, v); break;
  case KPR_RNG: *v = kp->r0 ? ctx->rng_call_offset : ctx->rng_call_seed; break;
  case KPR_KEPT: { /* B's panels in the recorded scratch: of this call, or packed now (exec_keep.c) */
    const void *scratch = NULL;
    for (uint32_t q = 0; q < l->k->params.n && !scratch; q++)
      if (l->k->params.v[q].role == KPR_TENSOR && l->k->params.v[q].r0 == KG_BUF_SCRATCH) memcpy(&scratch, &l->vals[q], sizeof scratch);
    int32_t m = kg_keep_replay_mode(ctx, pool, scratch, pt[kp->r1]);
    memcpy(v, &m, sizeof m); /* an int32 in the low bytes of the 8-byte slot, as exec.c's pval */
    break;
  }
  case KPR_TMAP: {
    uint32_t ti = 0; /* which of the launch's tensor maps: parameters in order */
    for (uint32_t q = 0; q < j; q++) ti += l->k->params.v[q].role == KPR_TMAP;
    const kg_ktmap *tm = &l->k->tmaps.v[kp->r0];
    kg_tmap_req req;
    if (!kg_tmap_request(tm, tm->owner == KG_BUF_OUTPUT ? outputs[tm->index] : pt[tm->index], &req, d)) return -1;
    if (req.base != l->tm_base[ti]) {
      if (dev->vt->tmap(dev, l->mod, &req, l->tm[ti], d) != 0) return -1;
      l->tm_base[ti] = req.base;
      *changed = true;
    }
    return 1; /* no 8-byte value */
  }
  default: break;
  }
  return 0;
}

static bool is_dynamic(const kg_kparam *kp) {
  switch (kp->role) {
  case KPR_TENSOR: return kp->r0 == KG_BUF_PARAM || kp->r0 == KG_BUF_OUTPUT;
  case KPR_TMAP: return true; /* decided by its owner below */
  case KPR_SCALAR: case KPR_RNG: case KPR_KEPT: return true;
  default: return false;
  }
}

void kg_replay_add(kg_replay_rec *r, const kg_kernel *k, kg_rt_module *mod, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                   uint64_t work, void **params, const DLTensor **pt, DLTensor *const *outputs) {
  rlaunch l;
  memset(&l, 0, sizeof l);
  uint32_t n = k->params.n, ntm = 0;
  for (uint32_t j = 0; j < n; j++) ntm += k->params.v[j].role == KPR_TMAP;
  l.k = k, l.mod = mod;
  l.vals = kg_xcalloc(n + 1, sizeof *l.vals);
  if (ntm) { /* tensor maps are 64-byte aligned (cuTensorMapEncodeTiled) */
    l.tm = aligned_alloc(64, ntm * sizeof *l.tm);
    if (!l.tm) kg_panic(__FILE__, __LINE__, "out of memory (%u tensor maps)", ntm);
  }
  l.tm_base = ntm ? kg_xcalloc(ntm, sizeof *l.tm_base) : NULL;
  l.dyn = kg_xcalloc(n + 1, sizeof *l.dyn);
  l.L.params = kg_xcalloc(n + 1, sizeof *l.L.params);
  l.L.mod = mod, l.L.kernel = k->name, l.L.smem = smem, l.L.n_params = n, l.L.work = work;
  memcpy(l.L.grid, grid, sizeof l.L.grid), memcpy(l.L.block, block, sizeof l.L.block);
  uint32_t ti = 0;
  for (uint32_t j = 0; j < n; j++) {
    const kg_kparam *kp = &k->params.v[j];
    if (kp->role == KPR_TMAP) {
      const kg_ktmap *tm = &k->tmaps.v[kp->r0];
      memcpy(l.tm[ti], params[j], 128);
      l.L.params[j] = l.tm[ti];
      if (tm->owner == KG_BUF_PARAM || tm->owner == KG_BUF_OUTPUT) {
        kg_tmap_req req;
        kg_diag tmp;
        kg_diag_init(&tmp);
        if (kg_tmap_request(tm, tm->owner == KG_BUF_OUTPUT ? outputs[tm->index] : pt[tm->index], &req, &tmp)) l.tm_base[ti] = req.base;
        kg_diag_free(&tmp);
        l.dyn[l.n_dyn++] = j;
      }
      ti++;
      continue;
    }
    /* every other parameter is an 8-byte slot (exec.c's pval, zeroed before it is written) */
    memcpy(&l.vals[j], params[j], sizeof l.vals[j]);
    l.L.params[j] = &l.vals[j];
    if (is_dynamic(kp)) l.dyn[l.n_dyn++] = j;
  }
  KG_VEC_PUSH(r->launches, l);
}

kg_pool *kg_replay_pool(kg_replay_rec *r) { return &r->pool; }

bool kg_replay_run(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, const kg_named_tensor *captures, int n_captures,
                   DLTensor *const *outputs, void *stream, bool in_plan, kg_status *st, kg_replay_rec **rec) {
  kg_context *ctx = c->m->ctx;
  kg_diag *d = &ctx->diag;
  const kg_graph *g = &c->lg;
  *rec = NULL;
  if (ctx->no_replay) return false;
  kg_device *dev = kg_ctx_device(ctx, devk, d);
  if (!dev) return false; /* the run reports it */
  if (!c->replay) {
    c->replay = kg_xcalloc(1, sizeof *c->replay);
    c->replay->cap_at = kg_xcalloc(g->params.n + 1, sizeof *c->replay->cap_at);
  }
  kg_replay *R = c->replay;
  const DLTensor *ptbuf[64], **pt = g->params.n <= 64 ? ptbuf : kg_xcalloc(g->params.n, sizeof *pt);
  bool ok = resolve(R, g, inputs, captures, n_captures, pt);
  for (uint32_t o = 0; o < g->outputs.n && ok; o++) ok = outputs[o] != NULL;
  kg_replay_rec *hit = NULL;
  if (ok) {
    R->key_len = 0;
    int64_t head[10] = {(int64_t)dev->vt->kind, (int64_t)(uintptr_t)stream, in_plan, ctx->opts.force_variant, ctx->opts.emu_arch,
                        ctx->opts.f32_matmul, ctx->opts.cuda_device, ctx->reduce_block, ctx->row_cache, (int64_t)ctx->cpu_threads};
    key_put(R, head, sizeof head);
    for (uint32_t p = 0; p < g->params.n; p++) key_tensor(R, pt[p]);
    for (uint32_t o = 0; o < g->outputs.n; o++) key_tensor(R, outputs[o]);
    int free_slot = -1, lru = 0;
    for (int i = 0; i < KG_REPLAY_SLOTS; i++) {
      kg_replay_rec *r = R->slot[i];
      if (!r) {
        if (free_slot < 0) free_slot = i;
        continue;
      }
      if (r->key_len == R->key_len && memcmp(r->key, R->key, r->key_len) == 0) {
        hit = r;
        break;
      }
      if (R->slot[lru] && r->used < R->slot[lru]->used) lru = i;
    }
    if (!hit) { /* a new record in a free slot, or in place of the least recently used */
      int s = free_slot >= 0 ? free_slot : lru;
      rec_free(ctx, R->slot[s]);
      kg_replay_rec *r = R->slot[s] = kg_xcalloc(1, sizeof *r);
      r->key = kg_xmalloc(R->key_len + 1), r->key_len = R->key_len;
      memcpy(r->key, R->key, r->key_len);
      r->dev = dev, r->stream = stream, r->in_plan = in_plan;
      r->pool.ctx = ctx, r->pool.dev = dev, r->pool.stream = stream;
      r->used = ++R->tick;
      *rec = r;
    }
  }
  if (!hit) {
    if (pt != ptbuf) free(pt);
    return false;
  }
  hit->used = ++R->tick;
  /* recompute the dynamic parameters; on a graph, update the nodes that changed */
  kg_status s = KG_OK;
  for (uint32_t i = 0; i < hit->launches.n && s == KG_OK; i++) {
    rlaunch *l = &hit->launches.v[i];
    bool changed = false;
    for (uint32_t q = 0; q < l->n_dyn && s == KG_OK; q++) {
      uint32_t j = l->dyn[q];
      uint64_t v;
      int rc = dyn_value(ctx, dev, &hit->pool, l, j, pt, outputs, &v, &changed, d);
      if (rc < 0) s = KG_ERR_INTERNAL;
      else if (rc == 0 && v != l->vals[j]) l->vals[j] = v, changed = true;
    }
    if (s == KG_OK && changed && hit->graph && dev->vt->graph_set(dev, hit->graph, i, &l->L, d) != 0) s = KG_ERR_INTERNAL;
  }
  if (s == KG_OK && hit->graph) {
    if (dev->vt->graph_launch(dev, hit->graph, stream, d) != 0) s = KG_ERR_INTERNAL;
  } else {
    for (uint32_t i = 0; i < hit->launches.n && s == KG_OK; i++) {
      rlaunch *l = &hit->launches.v[i];
      dev->work = l->L.work, dev->n_params = l->L.n_params;
      if (dev->vt->launch(dev, l->mod, l->L.kernel, l->L.grid, l->L.block, l->L.smem, l->L.params, stream, d) != 0) s = KG_ERR_INTERNAL;
    }
  }
  ctx->stats.launches += hit->launches.n;
  ctx->stats.replays++;
  /* synchronous on the legacy stream, as a recorded run (a plan's region: the plan syncs) */
  if (s == KG_OK && !stream && !in_plan && dev->vt->sync && dev->vt->sync(dev, stream, d) != 0) s = KG_ERR_INTERNAL;
  if (s == KG_OK && d->n) s = KG_ERR_INTERNAL;
  if (pt != ptbuf) free(pt);
  *st = s;
  return true;
}

void kg_replay_end(kg_compiled *c, kg_replay_rec *r, bool ok) {
  kg_replay *R = c->replay;
  int s = 0;
  while (s < KG_REPLAY_SLOTS && R->slot[s] != r) s++;
  KG_ASSERT(s < KG_REPLAY_SLOTS);
  if (!ok) { /* a failed run is not replayed: the next one runs (and reports) afresh */
    rec_free(c->m->ctx, r);
    R->slot[s] = NULL;
    return;
  }
  kg_device *dev = r->dev;
  if (dev->vt->graph_new && r->launches.n > 0) {
    kg_launch_desc *ls = kg_xcalloc(r->launches.n, sizeof *ls);
    for (uint32_t i = 0; i < r->launches.n; i++) ls[i] = r->launches.v[i].L;
    kg_diag tmp; /* a graph the device cannot make: the launches replay one by one */
    kg_diag_init(&tmp);
    if (dev->vt->graph_new(dev, ls, r->launches.n, &r->graph, &tmp) != 0) r->graph = NULL, r->graph_failed = true;
    kg_diag_free(&tmp);
    free(ls);
  }
}

uint32_t kg_replay_records(const kg_compiled *c) {
  uint32_t n = 0;
  for (int i = 0; c->replay && i < KG_REPLAY_SLOTS; i++) n += c->replay->slot[i] != NULL;
  return n;
}
