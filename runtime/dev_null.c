/* runtime/dev_null.c — a device whose kernel launches do nothing.
 *
 * For measuring what kgen itself costs on the host per launch (perf/bench_plan):
 * everything a real run does — binding shapes, choosing variants, marshalling
 * parameters, the host plan's steps, its buffer pool — happens, only the launch
 * returns at once and no kernel is ever compiled. Memory is host memory (malloc),
 * so reads (item()) see whatever the buffers hold: zeros, since allocations are
 * zeroed — results are meaningless by design.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

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
  (void)dv, (void)src, (void)d;
  static int token;
  *mod = (kg_rt_module *)&token;
  return 0;
}
static void null_unload(kg_device *dv, kg_rt_module *mod) { (void)dv, (void)mod; }
static int null_launch(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t grid[3], const uint32_t block[3],
                       uint32_t dyn_smem, void **params, void *stream, kg_diag *d) {
  (void)dv, (void)mod, (void)kernel, (void)grid, (void)block, (void)dyn_smem, (void)params, (void)stream, (void)d;
  return 0;
}
static int null_sync(kg_device *dv, void *stream, kg_diag *d) {
  (void)dv, (void)stream, (void)d;
  return 0;
}
static void null_destroy(kg_device *dv) { free(dv); }
static int null_tmap(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *req, void *out, kg_diag *d) {
  (void)dv, (void)mod, (void)req, (void)d;
  memset(out, 0, 128);
  return 0;
}

static const kg_device_vt null_vt = {
  .name = "null", .kind = KG_DEVICE_NULL, .alloc = null_alloc, .free = null_free, .h2d = null_copy, .d2h = null_copy, .load = null_load,
  .unload = null_unload, .launch = null_launch, .sync = null_sync, .destroy = null_destroy, .tmap = null_tmap,
};

kg_device *kg_dev_null_new(void) {
  kg_device *dv = kg_xcalloc(1, sizeof *dv);
  dv->vt = &null_vt;
  return dv;
}
