/* runtime/dev_cuda.c — the CUDA device through the Driver API, loaded with dlopen.
 *
 * Main idea: kgen links against nothing from CUDA. libcuda.so.1 ($KGEN_CUDA_LIB
 * overrides, e.g. for a stand-in driver in tests) is opened when a device is
 * created; kernels are compiled by NVRTC (nvrtc.c) into a cubin for the device's
 * own compute capability, cached in the kg_cache (cache.c) under a key of
 * (source, NVRTC version, arch, options), and loaded with cuModuleLoadDataEx.
 * Every CUresult goes through one checker (CU_TRY) that records the call, the
 * error name and the kernel. Sticky errors (illegal address, launch timeout or
 * failure, assert, misaligned address, hardware stack error, illegal
 * instruction …) poison the device: the first is kept, every later call fails
 * fast with it, nothing is retried in-process. Launch configurations are checked
 * against the device's limits before cuLaunchKernel so that a bad one gets a
 * message instead of CUDA_ERROR_INVALID_VALUE. The primary context is retained
 * and made current before each call, so any thread may drive the device (one at
 * a time).
 *
 * Graphs (kg_device_vt.graph_*, for runtime/replay.c): a recorded run's launches become one
 * CUDA graph built directly — a kernel node per launch, each depending on the one before
 * (cuGraphCreate, cuGraphAddKernelNode, cuGraphInstantiateWithFlags) — launched with
 * cuGraphLaunch; a replay whose pointers or scalars moved updates those nodes in the
 * instantiated graph (cuGraphExecKernelNodeSetParams), never re-instantiating. Built directly
 * rather than by stream capture, which the legacy stream (a C caller's "no stream") forbids.
 * The graph entry points are optional: a driver without them replays launch by launch.
 */
#include "rt.h"
#include "../passes/passes.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few Driver API types used, as declared by cuda.h (stable ABI). */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef int CUjit_option;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
/* CUDA_KERNEL_NODE_PARAMS_v1: what the unversioned cuGraphAddKernelNode and
 * cuGraphExecKernelNodeSetParams take (cuda.h maps the plain names to the _v2 calls and struct,
 * which append a CUkernel and a CUcontext; the v1 symbols stay in every driver since 10.0). */
typedef struct CUkernel_node_params_v1 {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void **kernelParams;
  void **extra;
} CUkernel_node_params_v1;

enum {
  CU_OK = 0,
  CU_ERROR_NO_DEVICE = 100,
  CU_DEV_MAX_THREADS_PER_BLOCK = 1,
  CU_DEV_MAX_BLOCK_DIM_X = 2, /* Y = 3, Z = 4 */
  CU_DEV_MAX_GRID_DIM_X = 5,  /* Y = 6, Z = 7 */
  CU_DEV_MAX_SHARED_PER_BLOCK = 8,
  CU_DEV_CC_MAJOR = 75,
  CU_DEV_CC_MINOR = 76,
  CU_DEV_MAX_SHARED_PER_BLOCK_OPTIN = 97,
  CU_DEV_SM_COUNT = 16,
  CU_DEV_MAX_THREADS_PER_SM = 39,
  CU_DEV_MAX_SHARED_PER_SM = 81,
  CU_FUNC_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_SHARED_SIZE_BYTES = 1,
  CU_FUNC_NUM_REGS = 4,
  CU_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
#define CU_CACHE_ABI "kgen-cuda 1" /* part of every cubin cache key */

typedef struct cuda_dev {
  kg_device base;
  kg_device_vt vt;    /* cuda_vt plus what this driver offers (stream-ordered allocation) */
  kg_rt_counts *counts; /* compilations and cache hits (the context's statistics), or NULL */
  void *lib;
  /* Driver entry points (dlsym'd by their versioned names where cuda.h maps them). */
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream); /* optional (CUDA 11.2+) */
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
  /* optional (CUDA 12+): TMA tensor maps. (map, dtype, rank, address, dims, strides, box,
   * element strides, interleave, swizzle, L2 promotion, out-of-bounds fill) */
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const unsigned long long *, const unsigned long long *,
                                     const unsigned *, const unsigned *, int, int, int, int);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  /* optional: graphs (replay.c); all or none */
  CUresult (*cuGraphCreate)(CUgraph *, unsigned);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t, const CUkernel_node_params_v1 *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const CUkernel_node_params_v1 *);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  int ordinal;
  CUdevice dev;
  CUcontext ctx;      /* the retained primary context (NULL until retained) */
  int arch;           /* compute capability, major * 10 + minor */
  char name[128];     /* "NVIDIA H100 80GB HBM3" */
  int max_threads;    /* per block */
  int max_block[3], max_grid[3];
  int smem_default;   /* shared memory per block without opt-in, bytes */
  int smem_optin;     /* with opt-in */
  int sm_count, threads_per_sm, smem_per_sm;
  kg_nvrtc *nvrtc;
  int own_nvrtc;      /* opened here, closed at destroy */
  kg_cache *cache;
  int poisoned;       /* a sticky error happened: fail fast */
  char *poison;       /* its message */
} cuda_dev;

typedef struct cuda_module {
  CUmodule mod;
  char *name;
  /* the kernel launched last from this module, with its attributes (a run-time variant's
   * module holds one kernel: repeated runs skip cuModuleGetFunction / cuFuncGetAttribute) */
  char fn_name[128];
  CUfunction fn;
  int fn_max_threads, fn_smem, fn_regs;
} cuda_module;

/* ---- error checking ---- */
static int is_sticky(CUresult r) {
  switch (r) {
  case 700: /* ILLEGAL_ADDRESS */
  case 702: /* LAUNCH_TIMEOUT */
  case 710: /* ASSERT */
  case 714: /* HARDWARE_STACK_ERROR */
  case 715: /* ILLEGAL_INSTRUCTION */
  case 716: /* MISALIGNED_ADDRESS */
  case 717: /* INVALID_ADDRESS_SPACE */
  case 718: /* INVALID_PC */
  case 719: /* LAUNCH_FAILED */
    return 1;
  default:
    return 0;
  }
}
static const char *cu_name(cuda_dev *c, CUresult r) {
  const char *s = NULL;
  if (c->cuGetErrorName && c->cuGetErrorName(r, &s) != CU_OK) s = NULL;
  return s ? s : "CUDA_ERROR_UNKNOWN_CODE";
}
/* Records a failed call; `extra` (may be NULL) is appended (e.g. a JIT log). */
static int cu_fail(cuda_dev *c, kg_diag *d, const char *call, const char *kernel, CUresult r,
                   const char *extra) {
  const char *desc = NULL;
  if (c->cuGetErrorString && c->cuGetErrorString(r, &desc) != CU_OK) desc = NULL;
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b, "CUDA %s failed: %s (%d)", call, cu_name(c, r), (int)r);
  if (desc) kg_sb_printf(&b, ": %s", desc);
  kg_sb_printf(&b, " [device %d", c->ordinal);
  if (kernel) kg_sb_printf(&b, ", kernel %s", kernel);
  kg_sb_puts(&b, "]");
  if (extra && *extra) kg_sb_printf(&b, "\n%s", extra);
  if (is_sticky(r)) {
    kg_sb_puts(&b, "\n  this error is sticky: the device is unusable until the process restarts");
    if (!c->poisoned) {
      c->poisoned = 1;
      c->poison = kg_xstrdup(b.s);
    }
  }
  kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "%s", b.s);
  kg_sb_free(&b);
  return -1;
}
static int cu_poisoned(cuda_dev *c, kg_diag *d, const char *call) {
  kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "CUDA %s not attempted: an earlier error poisoned the device:\n%s",
              call, c->poison);
  return -1;
}
/* The one way every Driver API call is made: fail fast on a poisoned device,
 * record any error with the call, its name and the kernel. */
#define CU_TRY(c, d, kernel, fn, args)                                                   \
  ((c)->poisoned ? cu_poisoned((c), (d), #fn)                                             \
                 : cu_result((c), (d), #fn, (kernel), (c)->fn args))
static int cu_result(cuda_dev *c, kg_diag *d, const char *call, const char *kernel, CUresult r) {
  return r == CU_OK ? 0 : cu_fail(c, d, call, kernel, r, NULL);
}
static int make_current(cuda_dev *c, kg_diag *d) {
  return CU_TRY(c, d, NULL, cuCtxSetCurrent, (c->ctx));
}

/* ---- memory ---- */
static int cuda_alloc(kg_device *dv, size_t bytes, void **ptr, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  CUdeviceptr p = 0;
  *ptr = NULL;
  if (make_current(c, d) || CU_TRY(c, d, NULL, cuMemAlloc, (&p, bytes ? bytes : 1))) return -1;
  *ptr = (void *)(uintptr_t)p;
  return 0;
}
static int cuda_alloc_async(kg_device *dv, size_t bytes, void *stream, void **ptr, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  CUdeviceptr p = 0;
  *ptr = NULL;
  if (make_current(c, d) || CU_TRY(c, d, NULL, cuMemAllocAsync, (&p, bytes ? bytes : 1, (CUstream)stream))) return -1;
  *ptr = (void *)(uintptr_t)p;
  return 0;
}
static void cuda_free_async(kg_device *dv, void *ptr, void *stream) {
  cuda_dev *c = (cuda_dev *)dv;
  if (!ptr || c->poisoned) return;
  if (c->cuCtxSetCurrent(c->ctx) == CU_OK) (void)c->cuMemFreeAsync((CUdeviceptr)(uintptr_t)ptr, (CUstream)stream);
}
static void cuda_free(kg_device *dv, void *ptr) {
  cuda_dev *c = (cuda_dev *)dv;
  if (!ptr || c->poisoned) return; /* a poisoned context frees everything at exit */
  if (c->cuCtxSetCurrent(c->ctx) == CU_OK) (void)c->cuMemFree((CUdeviceptr)(uintptr_t)ptr);
}
static int cuda_h2d(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  if (!n) return 0;
  return make_current(c, d) ||
                 CU_TRY(c, d, NULL, cuMemcpyHtoD, ((CUdeviceptr)(uintptr_t)dst, src, n))
             ? -1
             : 0;
}
static int cuda_d2h(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  if (!n) return 0;
  return make_current(c, d) ||
                 CU_TRY(c, d, NULL, cuMemcpyDtoH, (dst, (CUdeviceptr)(uintptr_t)src, n))
             ? -1
             : 0;
}

/* ---- modules ---- */
static int cuda_load(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  *mod = NULL;
  if (!src || !src->cuda) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "cuda: load without CUDA source");
    return -1;
  }
  if (!c->nvrtc) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "NVRTC (libnvrtc.so) could not be loaded, so kernels cannot be compiled for this GPU; set "
                "KGEN_NVRTC_LIB, or run from an offline kernel package (kgen package)");
    return -1;
  }
  const char *name = src->name && *src->name ? src->name : "kernel";
  if (c->poisoned) return cu_poisoned(c, d, "module load");
  kg_strbuf prog, key;
  kg_sb_init(&prog);
  kg_sb_init(&key);
  kg_sb_printf(&prog, "%s.cu", name);
  /* a kernel with sm_90a features (wgmma) compiles for sm_90a on an sm_90 GPU */
  int arch = c->arch | (src->sm90a && c->arch == 90 ? KG_ARCH_FEAT : 0);
  kg_sb_printf(&key, "%s\nnvrtc %s\nsm_%d%s --fmad=true -default-device\n%s\n", CU_CACHE_ABI,
               kg_nvrtc_version(c->nvrtc), c->arch, (arch & KG_ARCH_FEAT) ? "a" : "", prog.s);
  kg_sb_puts(&key, src->cuda);
  size_t n = 0;
  void *cubin = kg_cache_get(c->cache, "cubin", key.s, key.len, &n);
  int rc = 0;
  if (cubin && c->counts) c->counts->cubin_cache_hits++;
  if (!cubin) {
    kg_nvrtc_out out;
    rc = kg_nvrtc_compile(c->nvrtc, prog.s, src->cuda, arch, true, NULL, &out, d);
    if (!rc && c->counts) c->counts->nvrtc_compiles++;
    if (!rc) {
      cubin = out.cubin, n = out.cubin_len;
      out.cubin = NULL;
      kg_cache_put(c->cache, "cubin", key.s, key.len, cubin, n);
      kg_nvrtc_out_free(&out);
    }
  }
  CUmodule m = NULL;
  if (!rc) {
    char log[8192] = "";
    CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[2] = {log, (void *)(uintptr_t)sizeof log};
    rc = make_current(c, d);
    if (!rc) {
      CUresult r = c->cuModuleLoadDataEx(&m, cubin, 2, opt, val);
      if (r != CU_OK) rc = cu_fail(c, d, "cuModuleLoadDataEx", prog.s, r, log);
    }
  }
  free(cubin);
  kg_sb_free(&key);
  if (rc) {
    kg_sb_free(&prog);
    return -1;
  }
  cuda_module *cm = kg_xcalloc(1, sizeof *cm);
  cm->mod = m;
  cm->name = kg_sb_take(&prog);
  *mod = (kg_rt_module *)cm;
  return 0;
}
static void cuda_unload(kg_device *dv, kg_rt_module *mod) {
  cuda_dev *c = (cuda_dev *)dv;
  cuda_module *m = (cuda_module *)mod;
  if (!m) return;
  if (!c->poisoned && c->cuCtxSetCurrent(c->ctx) == CU_OK) (void)c->cuModuleUnload(m->mod);
  free(m->name);
  free(m);
}

/* ---- launching ---- */
static int limit(kg_diag *d, const char *kernel, const uint32_t g[3], const uint32_t b[3],
                 uint32_t smem, const char *fmt, ...) KG_PRINTF(6, 7);
static int limit(kg_diag *d, const char *kernel, const uint32_t g[3], const uint32_t b[3],
                 uint32_t smem, const char *fmt, ...) {
  char why[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  kg_diag_add(d, KG_E_LIMIT, NULL, NULL,
              "invalid launch of kernel '%s': grid (%u,%u,%u), block (%u,%u,%u), %u bytes "
              "dynamic shared memory: %s",
              kernel, g[0], g[1], g[2], b[0], b[1], b[2], smem, why);
  return -1;
}
static int cuda_launch(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t g[3],
                       const uint32_t b[3], uint32_t smem, void **params, void *stream,
                       kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  cuda_module *m = (cuda_module *)mod;
  if (!m || !kernel) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "cuda: launch without a module or kernel name");
    return -1;
  }
  if (c->poisoned) return cu_poisoned(c, d, "cuLaunchKernel");
  long long nt = (long long)b[0] * b[1] * b[2];
  for (int i = 0; i < 3; i++) {
    if (!g[i] || !b[i]) return limit(d, kernel, g, b, smem, "a dimension is 0");
    if (b[i] > (uint32_t)c->max_block[i])
      return limit(d, kernel, g, b, smem, "block dimension %u exceeds the device's %d", b[i],
                   c->max_block[i]);
    if (g[i] > (uint32_t)c->max_grid[i])
      return limit(d, kernel, g, b, smem, "grid dimension %u exceeds the device's %d", g[i],
                   c->max_grid[i]);
  }
  if (nt > c->max_threads)
    return limit(d, kernel, g, b, smem, "%lld threads per block; the device allows %d", nt,
                 c->max_threads);
  CUfunction f = NULL;
  int fmax = 0, fsmem = 0, fregs = 0;
  if (make_current(c, d)) return -1;
  if (m->fn && strcmp(m->fn_name, kernel) == 0) {
    f = m->fn, fmax = m->fn_max_threads, fsmem = m->fn_smem, fregs = m->fn_regs;
  } else {
    if (CU_TRY(c, d, kernel, cuModuleGetFunction, (&f, m->mod, kernel)) ||
        CU_TRY(c, d, kernel, cuFuncGetAttribute, (&fmax, CU_FUNC_MAX_THREADS_PER_BLOCK, f)) ||
        CU_TRY(c, d, kernel, cuFuncGetAttribute, (&fsmem, CU_FUNC_SHARED_SIZE_BYTES, f)) ||
        CU_TRY(c, d, kernel, cuFuncGetAttribute, (&fregs, CU_FUNC_NUM_REGS, f)))
      return -1;
    if (strlen(kernel) < sizeof m->fn_name) {
      memcpy(m->fn_name, kernel, strlen(kernel) + 1);
      m->fn = f, m->fn_max_threads = fmax, m->fn_smem = fsmem, m->fn_regs = fregs;
    }
  }
  if (nt > fmax)
    return limit(d, kernel, g, b, smem,
                 "%lld threads per block; with its %d registers per thread this kernel allows %d",
                 nt, fregs, fmax);
  if ((long long)fsmem + smem > c->smem_optin)
    return limit(d, kernel, g, b, smem,
                 "%lld bytes of shared memory in all; the device allows %d per block",
                 (long long)fsmem + smem, c->smem_optin);
  /* Above the default (48 KiB) dynamic shared memory needs the opt-in attribute. */
  if ((long long)fsmem + smem > c->smem_default &&
      CU_TRY(c, d, kernel, cuFuncSetAttribute, (f, CU_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem)))
    return -1;
  return CU_TRY(c, d, kernel, cuLaunchKernel,
                (f, g[0], g[1], g[2], b[0], b[1], b[2], smem, (CUstream)stream, params, NULL));
}
static int cuda_sync(kg_device *dv, void *stream, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  if (make_current(c, d)) return -1;
  return stream ? CU_TRY(c, d, NULL, cuStreamSynchronize, ((CUstream)stream))
                : CU_TRY(c, d, NULL, cuCtxSynchronize, ());
}

static void cuda_destroy(kg_device *dv) {
  cuda_dev *c = (cuda_dev *)dv;
  if (!c) return;
  if (c->ctx && c->cuDevicePrimaryCtxRelease) (void)c->cuDevicePrimaryCtxRelease(c->dev);
  if (c->own_nvrtc) kg_nvrtc_close(c->nvrtc);
  kg_cache_close(c->cache);
  free(c->poison);
  /* libcuda stays loaded: unloading the driver library after cuInit is not
   * supported by it (its threads and atexit handlers outlive dlclose). */
  free(c);
}

/* ---- graphs ---- */
typedef struct cuda_graph {
  CUgraph g;
  CUgraphExec exec;
  CUgraphNode *nodes;
  uint32_t n;
} cuda_graph;

/* a launch as a kernel node (its function looked up as cuda_launch does; the first, direct run
 * of these launches checked their limits and set their shared memory opt-in) */
static int node_params(cuda_dev *c, const kg_launch_desc *l, CUkernel_node_params_v1 *p, kg_diag *d) {
  cuda_module *m = (cuda_module *)l->mod;
  CUfunction f = m->fn && strcmp(m->fn_name, l->kernel) == 0 ? m->fn : NULL;
  if (!f && CU_TRY(c, d, l->kernel, cuModuleGetFunction, (&f, m->mod, l->kernel))) return -1;
  memset(p, 0, sizeof *p);
  p->func = f;
  p->gridDimX = l->grid[0], p->gridDimY = l->grid[1], p->gridDimZ = l->grid[2];
  p->blockDimX = l->block[0], p->blockDimY = l->block[1], p->blockDimZ = l->block[2];
  p->sharedMemBytes = l->smem;
  p->kernelParams = l->params; /* the values are copied into the node */
  return 0;
}
static void cuda_graph_free(kg_device *dv, void *graph) {
  cuda_dev *c = (cuda_dev *)dv;
  cuda_graph *g = graph;
  if (!g) return;
  if (c->ctx) (void)c->cuCtxSetCurrent(c->ctx);
  if (g->exec) (void)c->cuGraphExecDestroy(g->exec);
  if (g->g) (void)c->cuGraphDestroy(g->g);
  free(g->nodes);
  free(g);
}
static int cuda_graph_new(kg_device *dv, const kg_launch_desc *ls, uint32_t n, void **graph, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  *graph = NULL;
  if (make_current(c, d)) return -1;
  cuda_graph *g = kg_xcalloc(1, sizeof *g);
  g->nodes = kg_xcalloc(n + 1, sizeof *g->nodes);
  g->n = n;
  int rc = CU_TRY(c, d, NULL, cuGraphCreate, (&g->g, 0));
  for (uint32_t i = 0; i < n && rc == 0; i++) { /* a chain: each kernel after the one before */
    CUkernel_node_params_v1 p;
    rc = node_params(c, &ls[i], &p, d);
    if (rc == 0) rc = CU_TRY(c, d, ls[i].kernel, cuGraphAddKernelNode, (&g->nodes[i], g->g, i ? &g->nodes[i - 1] : NULL, i ? 1u : 0u, &p));
  }
  if (rc == 0) rc = CU_TRY(c, d, NULL, cuGraphInstantiateWithFlags, (&g->exec, g->g, 0ull));
  if (rc != 0) {
    cuda_graph_free(dv, g);
    return -1;
  }
  *graph = g;
  return 0;
}
static int cuda_graph_set(kg_device *dv, void *graph, uint32_t i, const kg_launch_desc *l, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  cuda_graph *g = graph;
  CUkernel_node_params_v1 p;
  if (i >= g->n || make_current(c, d) || node_params(c, l, &p, d)) return -1;
  return CU_TRY(c, d, l->kernel, cuGraphExecKernelNodeSetParams, (g->exec, g->nodes[i], &p));
}
static int cuda_graph_launch(kg_device *dv, void *graph, void *stream, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  if (make_current(c, d)) return -1;
  return CU_TRY(c, d, NULL, cuGraphLaunch, (((cuda_graph *)graph)->exec, (CUstream)stream));
}

static int cuda_tmap(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *q, void *out, kg_diag *d);
static const kg_device_vt cuda_vt = {
    .name = "cuda",
    .kind = KG_DEVICE_CUDA,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .h2d = cuda_h2d,
    .d2h = cuda_d2h,
    .load = cuda_load,
    .unload = cuda_unload,
    .launch = cuda_launch,
    .sync = cuda_sync,
    .destroy = cuda_destroy,
    .tmap = cuda_tmap,
};
/* ---- opening ---- */
/* $name is "0": a switch turned off (KGEN_CUDA_GRAPHS=0: replays launch by launch, to measure graphs against) */
static bool getenv_off(const char *name) {
  const char *e = getenv(name);
  return e && e[0] == '0';
}
static const char *driver_path(void) {
  const char *e = getenv("KGEN_CUDA_LIB");
  return e && *e ? e : "libcuda.so.1";
}
/* Resolves every entry point; returns the first missing name or NULL. */
static const char *resolve(cuda_dev *c) {
  static const struct {
    const char *sym;
    size_t off;
  } tab[] = {
#define CU_SYM(field, symbol) {symbol, offsetof(cuda_dev, field)}
      CU_SYM(cuInit, "cuInit"),
      CU_SYM(cuDriverGetVersion, "cuDriverGetVersion"),
      CU_SYM(cuDeviceGetCount, "cuDeviceGetCount"),
      CU_SYM(cuDeviceGet, "cuDeviceGet"),
      CU_SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute"),
      CU_SYM(cuDeviceGetName, "cuDeviceGetName"),
      CU_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
      CU_SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
      CU_SYM(cuCtxSetCurrent, "cuCtxSetCurrent"),
      CU_SYM(cuCtxSynchronize, "cuCtxSynchronize"),
      CU_SYM(cuStreamSynchronize, "cuStreamSynchronize"),
      CU_SYM(cuModuleLoadDataEx, "cuModuleLoadDataEx"),
      CU_SYM(cuModuleUnload, "cuModuleUnload"),
      CU_SYM(cuModuleGetFunction, "cuModuleGetFunction"),
      CU_SYM(cuFuncGetAttribute, "cuFuncGetAttribute"),
      CU_SYM(cuFuncSetAttribute, "cuFuncSetAttribute"),
      CU_SYM(cuLaunchKernel, "cuLaunchKernel"),
      CU_SYM(cuMemAlloc, "cuMemAlloc_v2"),
      CU_SYM(cuMemFree, "cuMemFree_v2"),
      CU_SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
      CU_SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
      CU_SYM(cuGetErrorName, "cuGetErrorName"),
      CU_SYM(cuGetErrorString, "cuGetErrorString"),
#undef CU_SYM
  };
  for (size_t i = 0; i < KG_COUNTOF(tab); i++) {
    void *s = dlsym(c->lib, tab[i].sym);
    if (!s) return tab[i].sym;
    /* Function pointers all have one size and representation here (POSIX dlsym). */
    memcpy((char *)c + tab[i].off, &s, sizeof s);
  }
  /* optional: stream-ordered allocation (both or neither) */
  void *aa = dlsym(c->lib, "cuMemAllocAsync"), *fa = dlsym(c->lib, "cuMemFreeAsync");
  if (aa && fa) memcpy(&c->cuMemAllocAsync, &aa, sizeof aa), memcpy(&c->cuMemFreeAsync, &fa, sizeof fa);
  /* optional: graphs (all or none) */
  static const struct {
    const char *sym;
    size_t off;
  } gtab[] = {
      {"cuGraphCreate", offsetof(cuda_dev, cuGraphCreate)},
      {"cuGraphAddKernelNode", offsetof(cuda_dev, cuGraphAddKernelNode)},
      {"cuGraphInstantiateWithFlags", offsetof(cuda_dev, cuGraphInstantiateWithFlags)},
      {"cuGraphLaunch", offsetof(cuda_dev, cuGraphLaunch)},
      {"cuGraphExecKernelNodeSetParams", offsetof(cuda_dev, cuGraphExecKernelNodeSetParams)},
      {"cuGraphExecDestroy", offsetof(cuda_dev, cuGraphExecDestroy)},
      {"cuGraphDestroy", offsetof(cuda_dev, cuGraphDestroy)},
  };
  void *gs[KG_COUNTOF(gtab)];
  size_t ng = 0;
  while (ng < KG_COUNTOF(gtab) && (gs[ng] = dlsym(c->lib, gtab[ng].sym)) != NULL) ng++;
  for (size_t i = 0; ng == KG_COUNTOF(gtab) && i < ng; i++) memcpy((char *)c + gtab[i].off, &gs[i], sizeof gs[i]);
  void *tm = dlsym(c->lib, "cuTensorMapEncodeTiled");
  if (tm) memcpy(&c->cuTensorMapEncodeTiled, &tm, sizeof tm);
  return NULL;
}

/* A TMA tensor map (kg_tmap_req) through cuTensorMapEncodeTiled: 2- and 4-byte elements as
 * UINT16 / UINT32 (a copy moves bits), no interleave, zero fill, 128-byte L2 promotion. */
static int cuda_tmap(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *q, void *out, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  (void)mod;
  if (!c->cuTensorMapEncodeTiled) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "this CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or later is needed for TMA)");
    return -1;
  }
  int dtype = q->esz == 2 ? 1 : q->esz == 4 ? 2 : q->esz == 1 ? 0 : 4; /* CU_TENSOR_MAP_DATA_TYPE_UINT16 / UINT32 / UINT8 / UINT64 */
  int swz = q->swizzle == 128 ? 3 : q->swizzle == 64 ? 2 : q->swizzle == 32 ? 1 : 0;
  unsigned long long dims[3], strides[2];
  unsigned box[3], estr[3] = {1, 1, 1};
  for (uint32_t i = 0; i < q->rank; i++) dims[i] = q->dims[i], box[i] = q->box[i];
  for (uint32_t i = 1; i < q->rank; i++) strides[i - 1] = q->strides[i];
  return CU_TRY(c, d, NULL, cuTensorMapEncodeTiled,
                (out, dtype, q->rank, (void *)(uintptr_t)q->base, dims, strides, box, estr, 0, swz, 2 /* L2 128B */, 0))
             ? -1
             : 0;
}

kg_device *kg_dev_cuda_new(const kg_rt_config *cfg, kg_nvrtc *nvrtc, kg_diag *d) {
  const char *path = driver_path();
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "no CUDA driver (%s not found: %s)", path, dlerror());
    return NULL;
  }
  cuda_dev *c = kg_xcalloc(1, sizeof *c);
  c->base.vt = &cuda_vt;
  c->lib = lib;
  c->ordinal = cfg ? cfg->cuda_ordinal : 0;
  c->counts = cfg ? cfg->counts : NULL;
  const char *missing = resolve(c);
  if (c->cuMemAllocAsync || c->cuGraphCreate) { /* what this driver has beyond the base: the instance's own table offers it */
    c->vt = cuda_vt;
    if (c->cuMemAllocAsync) c->vt.alloc_async = cuda_alloc_async, c->vt.free_async = cuda_free_async;
    if (c->cuGraphCreate && !getenv_off("KGEN_CUDA_GRAPHS"))
      c->vt.graph_new = cuda_graph_new, c->vt.graph_set = cuda_graph_set, c->vt.graph_launch = cuda_graph_launch, c->vt.graph_free = cuda_graph_free;
    c->base.vt = &c->vt;
  }
  if (missing) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "CUDA driver %s lacks %s (too old a driver?)", path,
                missing);
    cuda_destroy(&c->base);
    return NULL;
  }
  CUresult r = c->cuInit(0);
  if (r != CU_OK) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "%s (cuInit: %s (%d))",
                r == CU_ERROR_NO_DEVICE ? "no CUDA device" : "the CUDA driver failed to start",
                cu_name(c, r), (int)r);
    cuda_destroy(&c->base);
    return NULL;
  }
  int count = 0;
  if (CU_TRY(c, d, NULL, cuDeviceGetCount, (&count))) goto fail;
  if (count <= 0) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "no CUDA device (the driver reports none)");
    goto fail;
  }
  if (c->ordinal < 0 || c->ordinal >= count) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "no CUDA device %d (there are %d)", c->ordinal, count);
    goto fail;
  }
  int major = 0, minor = 0;
  if (CU_TRY(c, d, NULL, cuDeviceGet, (&c->dev, c->ordinal)) ||
      CU_TRY(c, d, NULL, cuDeviceGetName, (c->name, (int)sizeof c->name, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&major, CU_DEV_CC_MAJOR, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&minor, CU_DEV_CC_MINOR, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->max_threads, CU_DEV_MAX_THREADS_PER_BLOCK, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->smem_default, CU_DEV_MAX_SHARED_PER_BLOCK, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->smem_optin, CU_DEV_MAX_SHARED_PER_BLOCK_OPTIN, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->sm_count, CU_DEV_SM_COUNT, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->threads_per_sm, CU_DEV_MAX_THREADS_PER_SM, c->dev)) ||
      CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->smem_per_sm, CU_DEV_MAX_SHARED_PER_SM, c->dev)))
    goto fail;
  for (int i = 0; i < 3; i++)
    if (CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->max_block[i], CU_DEV_MAX_BLOCK_DIM_X + i, c->dev)) ||
        CU_TRY(c, d, NULL, cuDeviceGetAttribute, (&c->max_grid[i], CU_DEV_MAX_GRID_DIM_X + i, c->dev)))
      goto fail;
  c->name[sizeof c->name - 1] = 0;
  c->arch = major * 10 + minor;
  if (c->smem_optin < c->smem_default) c->smem_optin = c->smem_default;
  if (CU_TRY(c, d, NULL, cuDevicePrimaryCtxRetain, (&c->ctx, c->dev))) goto fail;
  if (make_current(c, d)) goto fail;
  c->nvrtc = nvrtc;
  if (!c->nvrtc) { /* without NVRTC the device still loads images (offline packages) */
    uint32_t mark = d->n;
    c->nvrtc = kg_nvrtc_open(d);
    kg_diag_truncate(d, mark);
    c->own_nvrtc = c->nvrtc != NULL;
  }
  c->cache = kg_cache_open(cfg ? cfg->cache_dir : NULL);
  return &c->base;
fail:
  cuda_destroy(&c->base);
  return NULL;
}

void kg_dev_cuda_target(const kg_device *dv, kg_target *t) {
  const cuda_dev *c = (const cuda_dev *)dv;
  *t = kg_target_h100;
  t->name = c->name;
  t->arch = c->arch;
  if (c->sm_count > 0) t->sm_count = c->sm_count;
  if (c->threads_per_sm > 0) t->threads_per_sm = c->threads_per_sm;
  if (c->smem_per_sm > 0) t->smem_per_sm = c->smem_per_sm;
  t->smem_per_block = c->smem_optin;
  /* sm_90a's wgmma and TMA: an sm_90 GPU (sm_100 has no wgmma), a driver with tensor maps and an
   * NVRTC of CUDA 12 or later (the first to compile sm_90a) */
  t->wgmma = c->arch == 90 && c->cuTensorMapEncodeTiled && atoi(kg_nvrtc_version(c->nvrtc)) >= 12;
}

int kg_dev_cuda_arch(kg_device *dv) { return dv->vt->kind == KG_DEVICE_CUDA ? ((cuda_dev *)dv)->arch : 0; }

int kg_dev_cuda_load_image(kg_device *dv, const char *name, const void *image, size_t len, kg_rt_module **mod, kg_diag *d) {
  cuda_dev *c = (cuda_dev *)dv;
  *mod = NULL;
  (void)len;
  if (c->poisoned) return cu_poisoned(c, d, "module load");
  char log[8192] = "";
  CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *val[2] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule m = NULL;
  if (make_current(c, d)) return -1;
  CUresult r = c->cuModuleLoadDataEx(&m, image, 2, opt, val);
  if (r != CU_OK) return cu_fail(c, d, "cuModuleLoadDataEx", name, r, log);
  cuda_module *cm = kg_xcalloc(1, sizeof *cm);
  cm->mod = m;
  cm->name = kg_xstrdup(name ? name : "package");
  *mod = (kg_rt_module *)cm;
  return 0;
}

bool kg_dev_cuda_available(void) {
  void *lib = dlopen(driver_path(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return false;
  CUresult (*init)(unsigned) = NULL;
  CUresult (*count)(int *) = NULL;
  void *s1 = dlsym(lib, "cuInit"), *s2 = dlsym(lib, "cuDeviceGetCount");
  memcpy(&init, &s1, sizeof s1);
  memcpy(&count, &s2, sizeof s2);
  int n = 0;
  bool ok = init && count && init(0) == CU_OK && count(&n) == CU_OK && n > 0;
  /* Left loaded once initialised (see cuda_destroy); closed when it never was. */
  if (!init) dlclose(lib);
  return ok;
}
