/* runtime/dev_null.c — a device whose kernel launches do nothing.
 *
 * For measuring what kgen itself costs on the host per launch (perf/bench_plan):
 * everything a real run does — binding shapes, choosing variants, marshalling
 * parameters, the host plan's steps, its buffer pool — happens, only the launch
 * returns at once and no kernel is ever compiled. Memory is host memory (malloc),
 * so reads (item()) see whatever the buffers hold: zeros, since allocations are
 * zeroed — results are meaningless by design.
 *
 * It is also the recorder the replay tests read (kg_dev_null_config): a log of every launch
 * it is given, and graph hooks (kg_device_vt.graph_*) that keep a copy of a recorded launch
 * list, patch its parameters and "launch" it into the same log, as a CUDA graph would run
 * its nodes: what a replay launches can be compared launch by launch with a fresh call.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

typedef struct null_dev {
  kg_device base;
  bool log;
  KG_VEC(kg_null_launch) launches;
  kg_null_counts counts;
  uintptr_t next_mod;          /* a module is a handle (an id, never dereferenced) */
  KG_VEC(uintptr_t) live_mods; /* the modules loaded and not unloaded */
} null_dev;

/* a graph: its launches with their parameter values (as graph_new / graph_set gave them) and
 * the modules their kernels are in */
typedef struct null_graph {
  uint32_t n;
  kg_null_launch *ls;
  kg_rt_module **mods;
} null_graph;

static void describe(const kg_launch_desc *l, void **params, kg_null_launch *o) {
  memset(o, 0, sizeof *o);
  o->kernel = l->kernel;
  memcpy(o->grid, l->grid, sizeof o->grid), memcpy(o->block, l->block, sizeof o->block);
  o->smem = l->smem, o->n_params = l->n_params;
  for (uint32_t j = 0; j < l->n_params && j < 64; j++) memcpy(&o->params[j], params[j], sizeof o->params[j]);
}

static int null_alloc(kg_device *dv, size_t bytes, void **ptr, kg_diag *d) {
  (void)dv;
  *ptr = calloc(1, bytes ? bytes : 1);
  if (!*ptr) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "out of host memory (%zu bytes)", bytes);
    return -1;
  }
  return 0;
}
static void null_free(kg_device *dv, void *ptr) { (void)dv, free(ptr); }
static int null_copy(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d) {
  (void)dv, (void)d;
  memmove(dst, src, n);
  return 0;
}
static int null_load(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d) {
  (void)src, (void)d;
  null_dev *n = (null_dev *)dv;
  uintptr_t id = ++n->next_mod;
  KG_VEC_PUSH(n->live_mods, id);
  *mod = (kg_rt_module *)id;
  return 0;
}
static bool mod_live(const null_dev *n, kg_rt_module *mod) {
  for (uint32_t i = 0; i < n->live_mods.n; i++)
    if (n->live_mods.v[i] == (uintptr_t)mod) return true;
  return false;
}
static void null_unload(kg_device *dv, kg_rt_module *mod) {
  null_dev *n = (null_dev *)dv;
  for (uint32_t i = 0; i < n->live_mods.n; i++)
    if (n->live_mods.v[i] == (uintptr_t)mod) {
      n->live_mods.v[i] = n->live_mods.v[--n->live_mods.n];
      return;
    }
}
static int null_launch(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t grid[3], const uint32_t block[3],
                       uint32_t dyn_smem, void **params, void *stream, kg_diag *d) {
  (void)mod, (void)stream, (void)d;
  null_dev *n = (null_dev *)dv;
  n->counts.launches++;
  if (n->log) {
    kg_launch_desc l = {NULL, kernel, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, dyn_smem, params, dv->n_params, 0};
    kg_null_launch o;
    describe(&l, params, &o);
    KG_VEC_PUSH(n->launches, o);
  }
  return 0;
}
static int null_graph_new(kg_device *dv, const kg_launch_desc *ls, uint32_t n, void **graph, kg_diag *d) {
  (void)d;
  null_graph *g = kg_xcalloc(1, sizeof *g);
  g->n = n;
  g->ls = kg_xcalloc(n + 1, sizeof *g->ls);
  g->mods = kg_xcalloc(n + 1, sizeof *g->mods);
  for (uint32_t i = 0; i < n; i++) describe(&ls[i], ls[i].params, &g->ls[i]), g->mods[i] = ls[i].mod;
  ((null_dev *)dv)->counts.graphs_made++, ((null_dev *)dv)->counts.graphs_live++;
  *graph = g;
  return 0;
}
static int null_graph_set(kg_device *dv, void *graph, uint32_t i, const kg_launch_desc *l, kg_diag *d) {
  null_graph *g = graph;
  if (i >= g->n || strcmp(g->ls[i].kernel, l->kernel) != 0 || memcmp(g->ls[i].grid, l->grid, sizeof l->grid) != 0) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "null graph: node %u updated with another kernel or grid", i);
    return -1;
  }
  describe(l, l->params, &g->ls[i]);
  ((null_dev *)dv)->counts.graph_sets++;
  return 0;
}
static int null_graph_launch(kg_device *dv, void *graph, void *stream, kg_diag *d) {
  (void)stream, (void)d;
  null_dev *n = (null_dev *)dv;
  null_graph *g = graph;
  n->counts.graph_launches++;
  for (uint32_t i = 0; i < g->n && n->log; i++) {
    kg_null_launch o = g->ls[i];
    o.graph = true;
    KG_VEC_PUSH(n->launches, o);
  }
  return 0;
}
static void null_graph_free(kg_device *dv, void *graph) {
  null_dev *n = (null_dev *)dv;
  null_graph *g = graph;
  n->counts.graphs_live--;
  bool stale = false;
  for (uint32_t i = 0; i < g->n && !stale; i++) stale = !mod_live(n, g->mods[i]);
  n->counts.graphs_stale += stale;
  free(g->ls), free(g->mods);
  free(g);
}
static int null_sync(kg_device *dv, void *stream, kg_diag *d) {
  (void)dv, (void)stream, (void)d;
  return 0;
}
static void null_destroy(kg_device *dv) {
  KG_VEC_FREE(((null_dev *)dv)->launches);
  KG_VEC_FREE(((null_dev *)dv)->live_mods);
  free(dv);
}
static int null_tmap(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *req, void *out, kg_diag *d) {
  (void)mod, (void)d;
  ((null_dev *)dv)->counts.tmaps++;
  memset(out, 0, 128);
  memcpy(out, &req->base, sizeof req->base); /* the map's address, so a log shows which tensor it reads */
  return 0;
}

static const kg_device_vt null_vt = {
  .name = "null", .kind = KG_DEVICE_NULL, .alloc = null_alloc, .free = null_free, .h2d = null_copy, .d2h = null_copy, .load = null_load,
  .unload = null_unload, .launch = null_launch, .sync = null_sync, .destroy = null_destroy, .tmap = null_tmap,
  .graph_new = null_graph_new, .graph_set = null_graph_set, .graph_launch = null_graph_launch, .graph_free = null_graph_free,
};
/* the same without graphs (kg_dev_null_config) */
static const kg_device_vt null_vt_plain = {
  .name = "null", .kind = KG_DEVICE_NULL, .alloc = null_alloc, .free = null_free, .h2d = null_copy, .d2h = null_copy, .load = null_load,
  .unload = null_unload, .launch = null_launch, .sync = null_sync, .destroy = null_destroy, .tmap = null_tmap,
};

kg_device *kg_dev_null_new(void) {
  null_dev *n = kg_xcalloc(1, sizeof *n);
  n->base.vt = &null_vt;
  return &n->base;
}

void kg_dev_null_config(kg_device *dv, bool log, bool graphs) {
  ((null_dev *)dv)->log = log;
  dv->vt = graphs ? &null_vt : &null_vt_plain;
}
const kg_null_launch *kg_dev_null_log(const kg_device *dv, uint32_t *n) {
  const null_dev *nd = (const null_dev *)dv;
  *n = nd->launches.n;
  return nd->launches.v;
}
void kg_dev_null_log_clear(kg_device *dv) { ((null_dev *)dv)->launches.n = 0; }
void kg_dev_null_counts(const kg_device *dv, kg_null_counts *out) { *out = ((const null_dev *)dv)->counts; }
