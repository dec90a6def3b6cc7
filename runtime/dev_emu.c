/* runtime/dev_emu.c — the CPU emulator device: runs kgen's CUDA C on the host, with the GPU's
 * semantics checked.
 *
 * Main idea: the kernel text NVRTC would compile is compiled by the host C compiler instead,
 * after codegen-cuda/kg_emu.h (embedded in the library as kg_emu_header_text), into a shared
 * object (hostcc.c: compile, kernel cache, load, shared by content); the object's own
 * kg_emu_launch runs the grid — every CUDA thread on a fiber, barriers and warp operations
 * with their exact semantics, three thread orders, divergence and deadlock checks (kg_emu.h).
 * The fibers' stacks are lent by the process's pool (emu_stacks.c). "Device memory" is host
 * memory, so pointers pass straight through. This is the device the tests use for GPU
 * semantics; the CPU device (dev_cpu.c) is the one for speed. A kg_device is used by one thread
 * at a time.
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Part of every cache key: bump when the launcher / trampoline ABI changes (2: fiber stacks
 * lent by the host's pool). */
#define EMU_ABI "kgen-emu 2"
#define EMU_MAX_DYN_SMEM 232448u /* 227 KiB: the largest opt-in of sm_90 / sm_100 */

typedef int (*emu_launch_fn)(void (*)(void **), void **, const unsigned[3], const unsigned[3], size_t, int, unsigned, char *, size_t,
                             const kg_emu_host *);

typedef struct emu_dev {
  kg_device base;
  kg_hostcc *hc;
  kg_emu_opts opts;
} emu_dev;

int kg_check_launch_limits(const char *kernel, const uint32_t g[3], const uint32_t b[3], uint32_t dyn_smem, kg_diag *d) {
  unsigned long long nt = (unsigned long long)b[0] * b[1] * b[2];
  const char *why = NULL;
  if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2]) why = "a dimension is 0";
  else if (nt > 1024) why = "more than 1024 threads per block";
  else if (b[0] > 1024 || b[1] > 1024) why = "block.x and block.y are at most 1024";
  else if (b[2] > 64) why = "block.z is at most 64";
  else if (g[0] > 2147483647u) why = "grid.x is at most 2^31-1";
  else if (g[1] > 65535 || g[2] > 65535) why = "grid.y and grid.z are at most 65535";
  else if (dyn_smem > EMU_MAX_DYN_SMEM) why = "dynamic shared memory above 227 KiB";
  if (!why) return 0;
  kg_diag_add(d, KG_E_LIMIT, NULL, NULL,
              "invalid launch of kernel '%s': grid (%u,%u,%u), block (%u,%u,%u) = %llu threads, "
              "%u bytes dynamic shared memory: %s",
              kernel, g[0], g[1], g[2], b[0], b[1], b[2], nt, dyn_smem, why);
  return -1;
}

int kg_emu_run_fibers(kg_hostobj *o, const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn_smem, void **params,
                      const kg_emu_opts *opts, const char *devname, kg_diag *d) {
  void *lsym = kg_hostobj_sym(o, "kg_emu_launch");
  char sym_name[300];
  snprintf(sym_name, sizeof sym_name, "%s__kg_thread", kernel);
  void *sym = kg_hostobj_sym(o, sym_name);
  if (!lsym || !sym) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "%s: module '%s' has no %s", devname, kg_hostobj_name(o),
                !lsym ? "kg_emu_launch (kg_emu.h not included?)" : sym_name);
    return -1;
  }
  emu_launch_fn launch;
  void (*fn)(void **);
  memcpy(&launch, &lsym, sizeof launch); /* ISO C: no object -> function cast */
  memcpy(&fn, &sym, sizeof fn);
  char err[1024];
  unsigned g[3] = {grid[0], grid[1], grid[2]}, b[3] = {block[0], block[1], block[2]};
  if (launch(fn, params, g, b, dyn_smem, opts->order, opts->seed, err, sizeof err, kg_emu_stack_pool())) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "%s: kernel '%s' of '%s' (grid (%u,%u,%u), block (%u,%u,%u), %s order) failed: %s", devname,
                kernel, kg_hostobj_name(o), g[0], g[1], g[2], b[0], b[1], b[2],
                opts->order == 0 ? "forward" : opts->order == 1 ? "reverse" : "random", err[0] ? err : "(no message)");
    return -1;
  }
  return 0;
}

/* ---- the vtable (host memory: the CPU device's too) ---- */
int kg_host_dev_alloc(kg_device *dv, size_t bytes, void **ptr, kg_diag *d) {
  size_t n = (bytes + 63) & ~(size_t)63;
  if (!n || n < bytes) n = 64;
  void *p = NULL;
  if (n < bytes || posix_memalign(&p, 64, n)) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "%s: out of memory allocating %zu bytes", dv->vt->name, bytes);
    return -1;
  }
  memset(p, 0xff, n); /* like cuMemAlloc, never zeroed: 0xff bytes read as NaN / -1 */
  *ptr = p;
  return 0;
}
void kg_host_dev_free(kg_device *dv, void *ptr) { free(ptr); }
int kg_host_dev_copy(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d) {
  if (n && (!dst || !src)) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s: copy of %zu bytes with a NULL pointer", dv->vt->name, n);
    return -1;
  }
  if (n) memmove(dst, src, n);
  return 0;
}

/* The translation unit of src (#line makes compiler messages point into the CUDA text) */
static void emu_text(const kg_rt_source *src, kg_strbuf *c) {
  const char *nm = src->name ? src->name : "kernel";
  kg_sb_init(c);
  kg_sb_printf(c, "#line 1 \"%s.cu\"\n%s\n#line 1 \"%s.trampolines.c\"\n%s\n", nm, src->cuda, nm, src->trampolines ? src->trampolines : "");
}

static void emu_prefetch(kg_device *dv, const kg_rt_source *src) {
  if (!src || !src->cuda) return;
  kg_strbuf c;
  emu_text(src, &c);
  kg_hostcc_prefetch(((emu_dev *)dv)->hc, src->name ? src->name : "kernel", kg_sb_cstr(&c));
  kg_sb_free(&c);
}

static int emu_load(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d) {
  emu_dev *e = (emu_dev *)dv;
  *mod = NULL;
  if (!src || !src->cuda) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "emulator: load without CUDA source");
    return -1;
  }
  const char *nm = src->name ? src->name : "kernel";
  kg_strbuf c;
  emu_text(src, &c);
  kg_hostobj *o = kg_hostcc_load(e->hc, nm, kg_sb_cstr(&c), d);
  kg_sb_free(&c);
  if (!o) return -1;
  *mod = (kg_rt_module *)o;
  return 0;
}

static void emu_unload(kg_device *dv, kg_rt_module *mod) { kg_hostcc_release(((emu_dev *)dv)->hc, (kg_hostobj *)mod); }

static int emu_launch(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn_smem,
                      void **params, void *stream, kg_diag *d) {
  emu_dev *e = (emu_dev *)dv;
  if (!mod || !kernel) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "emulator: launch without a module or kernel name");
    return -1;
  }
  if (kg_check_launch_limits(kernel, grid, block, dyn_smem, d)) return -1;
  return kg_emu_run_fibers((kg_hostobj *)mod, kernel, grid, block, dyn_smem, params, &e->opts, "emulator", d);
}

static int emu_sync(kg_device *dv, void *stream, kg_diag *d) { return 0; }

static void emu_destroy(kg_device *dv) {
  emu_dev *e = (emu_dev *)dv;
  if (!e) return;
  kg_hostcc_free(e->hc);
  free(e);
}

/* A tensor map in the emulator's own format, by the module's kg_emu_tmap_encode (kg_emu_tc.h),
 * which checks what cuTensorMapEncodeTiled checks. */
static int emu_tmap(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *q, void *out, kg_diag *d) {
  (void)dv;
  const kg_hostobj *m = (const kg_hostobj *)mod;
  void *sym = m ? kg_hostobj_sym(m, "kg_emu_tmap_encode") : NULL;
  if (!sym) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "emulator: module '%s' has no kg_emu_tmap_encode", m ? kg_hostobj_name(m) : "?");
    return -1;
  }
  int (*enc)(void *, const void *, unsigned, unsigned, const unsigned long long *, const unsigned long long *, const unsigned *, unsigned,
             char *, size_t);
  memcpy(&enc, &sym, sizeof enc);
  unsigned long long dims[3] = {q->dims[0], q->dims[1], q->dims[2]}, strides[3] = {q->strides[0], q->strides[1], q->strides[2]};
  unsigned box[3] = {q->box[0], q->box[1], q->box[2]};
  char why[200] = "";
  if (enc(out, q->base, q->rank, q->esz, dims, strides, box, q->swizzle, why, sizeof why)) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "emulator: tensor map of a [%llu, %llu, %llu] operand (box %u x %u): %s", dims[0], dims[1],
                q->rank > 2 ? dims[2] : 1ull, box[0], box[1], why);
    return -1;
  }
  return 0;
}

static const kg_device_vt emu_vt = {
    .name = "emulator",
    .kind = KG_DEVICE_EMU,
    .prefetch = emu_prefetch,
    .alloc = kg_host_dev_alloc,
    .free = kg_host_dev_free,
    .h2d = kg_host_dev_copy,
    .d2h = kg_host_dev_copy,
    .load = emu_load,
    .unload = emu_unload,
    .launch = emu_launch,
    .sync = emu_sync,
    .destroy = emu_destroy,
    .tmap = emu_tmap,
};

/* Thread order: cfg->emu, or $KGEN_EMU_ORDER (forward|reverse|random|0|1|2) and
 * $KGEN_EMU_SEED when cfg leaves the default, so a whole suite can be rerun in
 * another order. */
static kg_emu_opts emu_opts(const kg_rt_config *cfg) {
  kg_emu_opts o = cfg ? cfg->emu : (kg_emu_opts){0, 0};
  if (o.order == 0 && o.seed == 0) {
    const char *s = getenv("KGEN_EMU_ORDER");
    if (s && (!strcmp(s, "reverse") || !strcmp(s, "1"))) o.order = 1;
    if (s && (!strcmp(s, "random") || !strcmp(s, "2"))) o.order = 2;
    const char *seed = getenv("KGEN_EMU_SEED");
    if (seed) o.seed = (unsigned)strtoul(seed, NULL, 0);
  }
  if (o.order < 0 || o.order > 2) o.order = 0;
  return o;
}

static const char *const emu_flags[] = {"-std=c11", "-O1", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math", "-fno-strict-aliasing",
                                        "-D_GNU_SOURCE", "-w",
#if defined(__x86_64__)
                                        /* kg_emu.h switches fibers with its own code, which a CET shadow stack would refuse */
                                        "-fcf-protection=none",
#endif
};
static const char *const emu_libs[] = {"-lm"};

kg_device *kg_dev_emu_new(const kg_rt_config *cfg, kg_diag *d) {
  emu_dev *e = kg_xcalloc(1, sizeof *e);
  e->base.vt = &emu_vt;
  e->opts = emu_opts(cfg);
  static const kg_hostcc_header hdrs[] = {{"kg_emu", kg_emu_header_text}};
  kg_hostcc_spec spec = {"emu", EMU_ABI, emu_flags, KG_COUNTOF(emu_flags), "KGEN_EMU_CFLAGS", emu_libs, KG_COUNTOF(emu_libs), hdrs, 1, NULL, kg_emu_runtime_text};
  e->hc = kg_hostcc_new(cfg, &spec, d);
  if (!e->hc) {
    free(e);
    return NULL;
  }
  return &e->base;
}

uint32_t kg_dev_loaded_objects(const kg_device *dv) {
  if (!dv || (dv->vt->kind != KG_DEVICE_EMU && dv->vt->kind != KG_DEVICE_CPU)) return 0;
  return kg_hostcc_n_loaded(((const emu_dev *)dv)->hc); /* the CPU device starts with the same two fields */
}
