/* runtime/rt.h — internal runtime interfaces: NVRTC, devices, the emulator and
 * the kernel cache. (.npy I/O and the PyTorch oracle are the check kit's: check/check.h.)
 *
 * Sections, one per source file:
 *   nvrtc.c     — dlopen("libnvrtc.so"): compile CUDA C → PTX / cubin for any arch
 *                 (sm_75 … sm_121), NVRTC log, ptxas register / spill / smem report.
 *   dev_emu.c   — the CPU emulator device: the same CUDA C text + codegen-cuda/kg_emu.h
 *                 compiled by the host C compiler into a shared object, dlopen'd, and
 *                 run over the whole grid (kg_emu_launch inside the object).
 *   dev_cpu.c   — the CPU device: the same text compiled with optimization and the host's
 *                 vector instructions; kernels whose threads never cooperate run as plain
 *                 loops over their threads on a pool of worker threads (cpu_pool.c), the
 *                 others on fibers.
 *   hostcc.c    — the objects both build with the host C compiler: compile, cache, load,
 *                 shared by content within a device.
 *   emu_stacks.c — the process's pool of fiber stacks, lent to every fiber launch.
 *   cpu_pool.c  — the CPU device's worker threads.
 *   dev_cuda.c  — the CUDA device through the Driver API, loaded with
 *                 dlopen("libcuda.so.1"); fails with a clear message when absent.
 *   dev_null.c  — launches that do nothing, host memory: measures kgen's host cost.
 *   cache.c     — compiled-artifact cache: memory + disk, content-addressed, entries
 *                 with header (magic, version, length, digest), atomic writes.
 *
 * Kernel source conventions (produced by codegen-cuda/, consumed here):
 *   - The CUDA text is self-contained for NVRTC (no #include). When compiled by the
 *     host C compiler, "kg_emu.h" is included first; it defines the CUDA builtins the
 *     text uses (see the list at the top of kg_emu.h).
 *   - Each kernel `K` is `extern "C"` under NVRTC. For the emulator, codegen emits a
 *     separate trampoline text with `void K__kg_thread(void **p)` calling K with the
 *     arguments unpacked from a cuLaunchKernel-style params array.
 */
#ifndef KG_RT_H
#define KG_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../support/support.h"
#include "kgen.h"

/* ---- nvrtc.c ---- */
typedef struct kg_nvrtc kg_nvrtc;

typedef struct kg_kstats {
  char name[128];    /* kernel (mangled = C name, kernels are extern "C") */
  int regs;          /* registers per thread */
  int spill_stores;  /* bytes */
  int spill_loads;   /* bytes */
  int smem;          /* static shared memory bytes */
  int stack;         /* stack frame bytes */
} kg_kstats;

typedef struct kg_nvrtc_out {
  char *ptx;          /* malloc'd, NUL-terminated */
  size_t ptx_len;
  void *cubin;        /* malloc'd or NULL when not requested */
  size_t cubin_len;
  char *log;          /* malloc'd NVRTC program log ("" when empty) */
  kg_kstats *stats;   /* malloc'd, one per kernel, parsed from ptxas -v (cubin only) */
  uint32_t n_stats;
  double compile_ms;  /* wall time of nvrtcCompileProgram */
} kg_nvrtc_out;

/* Loads libnvrtc with dlopen (KGEN_NVRTC_LIB overrides the path). Returns NULL and
 * records KG_E_DEVICE when it cannot be found. */
kg_nvrtc *kg_nvrtc_open(kg_diag *d);
void kg_nvrtc_close(kg_nvrtc *n);
/* "13.0" */
const char *kg_nvrtc_version(kg_nvrtc *n);
/* With an arch: its arch-specific variant (sm_90a: wgmma, setmaxnreg). */
#define KG_ARCH_FEAT 0x10000
/* Compiles `src` named `prog_name` ("entry.cu") for compute capability `arch`
 * (e.g. 80 for sm_80; 90 | KG_ARCH_FEAT for sm_90a). want_cubin: also produce SASS for sm_<arch> with ptxas -v
 * statistics. On a compile error records KG_E_INTERNAL with the log and where the
 * source was saved (`dump_dir`, may be NULL = $TMPDIR). */
int kg_nvrtc_compile(kg_nvrtc *n, const char *prog_name, const char *src, int arch,
                     bool want_cubin, const char *dump_dir, kg_nvrtc_out *out, kg_diag *d);
void kg_nvrtc_out_free(kg_nvrtc_out *o);

/* ---- devices (dev_emu.c, dev_cuda.c) ---- */
typedef struct kg_device kg_device;
typedef struct kg_rt_module kg_rt_module;
typedef struct kg_hostobj kg_hostobj; /* a host-compiled kernel object (hostcc.c) */

typedef struct kg_rt_source {
  const char *name;        /* program name, e.g. "gelu" (used for file names and logs) */
  const char *cuda;        /* the CUDA C text (exactly what NVRTC compiles) */
  const char *trampolines; /* emulator-only glue (codegen), appended after the text */
  const char *cpu;         /* the CPU device's glue (codegen-cuda/cpu.c): a loop driver per kernel
                              whose threads never cooperate, a fiber trampoline per other kernel */
  const char *cpu_pre;     /* the CPU device's text before the kernels (pragmas), or NULL */
  bool sm90a;              /* a kernel uses sm_90a features (wgmma): compiled for sm_90a on an sm_90 GPU */
} kg_rt_source;

/* A TMA tensor map (cuTensorMapEncodeTiled with what kgen uses: tiled, no interleave, zero fill
 * out of bounds, 128-byte L2 promotion). */
typedef struct kg_tmap_req {
  const void *base;
  uint32_t rank, esz;      /* 1..3 dims; element bytes */
  uint64_t dims[3];        /* innermost first */
  uint64_t strides[3];     /* bytes; [0] unused (the innermost dim is contiguous) */
  uint32_t box[3];
  uint32_t swizzle;        /* 0, 32, 64 or 128 bytes */
} kg_tmap_req;

typedef struct kg_emu_opts {
  int order;     /* thread order between barriers: 0 forward, 1 reverse, 2 random */
  unsigned seed; /* for order 2 */
} kg_emu_opts;

struct kg_launch_desc;
typedef struct kg_device_vt {
  const char *name;     /* "emu", "cuda", "cpu" or "null" (messages) */
  kg_device_kind kind;  /* KG_DEVICE_EMU, KG_DEVICE_CUDA, KG_DEVICE_CPU or KG_DEVICE_NULL: what it is */
  int (*alloc)(kg_device *dv, size_t bytes, void **ptr, kg_diag *d);
  void (*free)(kg_device *dv, void *ptr);
  int (*h2d)(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d);
  int (*d2h)(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d);
  /* Compiles (through the cache) and loads a module. */
  int (*load)(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d);
  /* Starts compiling a module a later load will take (NULL where compiles cannot overlap: the
   * executor calls it for the kernels a first run will load, kg_hostcc_prefetch). */
  void (*prefetch)(kg_device *dv, const kg_rt_source *src);
  void (*unload)(kg_device *dv, kg_rt_module *mod);
  /* Launches kernel `kernel` of `mod`; params as for cuLaunchKernel. */
  int (*launch)(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t grid[3],
                const uint32_t block[3], uint32_t dyn_smem, void **params, void *stream,
                kg_diag *d);
  int (*sync)(kg_device *dv, void *stream, kg_diag *d);
  void (*destroy)(kg_device *dv);
  /* Stream-ordered allocation (NULL where the device has none: then a run that needs
   * temporaries synchronizes before freeing them). */
  int (*alloc_async)(kg_device *dv, size_t bytes, void *stream, void **ptr, kg_diag *d);
  void (*free_async)(kg_device *dv, void *ptr, void *stream);
  /* A tensor map for kernels of `mod` into out (128 bytes, 64-byte aligned); NULL where the
   * device has none (then no kernel that needs one is chosen for it). */
  int (*tmap)(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *req, void *out, kg_diag *d);
  /* Graphs (replay.c): a recorded run's launches as one object the device replays in order on a
   * stream — on CUDA an instantiated CUDA graph. NULL where the device has none (replay.c then
   * launches the recorded list one by one). graph_new copies what it needs of ls (the parameter
   * values included); graph_set replaces launch i's parameter values (same kernel, grid, block);
   * graph_launch enqueues the whole graph on stream. */
  int (*graph_new)(kg_device *dv, const struct kg_launch_desc *ls, uint32_t n, void **graph, kg_diag *d);
  int (*graph_set)(kg_device *dv, void *graph, uint32_t i, const struct kg_launch_desc *l, kg_diag *d);
  int (*graph_launch)(kg_device *dv, void *graph, void *stream, kg_diag *d);
  void (*graph_free)(kg_device *dv, void *graph);
} kg_device_vt;

/* One kernel launch as a graph records it: what vt->launch takes, plus the parameter count
 * (each parameter is an 8-byte value, or a 128-byte tensor map where is_tmap says so). */
typedef struct kg_launch_desc {
  kg_rt_module *mod;
  const char *kernel;
  uint32_t grid[3], block[3], smem;
  void **params;
  uint32_t n_params;
  uint64_t work;
} kg_launch_desc;

struct kg_device {
  const kg_device_vt *vt;
  uint64_t work; /* set by the executor before a launch: its inner iterations (elements, reduced
                    elements, multiply-adds; 0 unknown). The CPU device spreads a launch over its
                    workers by it; the others ignore it. */
  uint32_t n_params; /* set with work: the launch's parameter count (the null device's log) */
};
/* The one place a device's identity is mapped: the slot of its loaded module in a kernel
 * variant (kg_kvariant.mod[]: emulator 0, CUDA 1, null 2, CPU 3), and whether its buffers are host
 * memory (the emulator's, the CPU device's and the null device's) or CUDA device memory. */
#define KG_DEV_SLOTS 4
static inline int kg_dev_slot(const kg_device *d) {
  switch (d->vt->kind) {
  case KG_DEVICE_EMU: return 0;
  case KG_DEVICE_CUDA: return 1;
  case KG_DEVICE_CPU: return 3;
  default: return 2;
  }
}
static inline bool kg_dev_host_memory(const kg_device *d) { return d->vt->kind != KG_DEVICE_CUDA; }

/* Compilations a device made or found in the cache (the context's kg_context_stats). */
typedef struct kg_rt_counts {
  uint64_t emu_compiles, emu_cache_hits, nvrtc_compiles, cubin_cache_hits;
} kg_rt_counts;

typedef struct kg_rt_config {
  const char *cache_dir; /* NULL: $KGEN_CACHE_DIR, else $XDG_CACHE_HOME/kgen, else ~/.cache/kgen */
  const char *cc;        /* host C compiler for the emulator; NULL: $KGEN_CC, else "cc" */
  kg_emu_opts emu;
  int cuda_ordinal;      /* CUDA device index */
  kg_rt_counts *counts;  /* where the devices count their compilations (may be NULL) */
} kg_rt_config;

/* The emulator device. Never fails for lack of a GPU. */
kg_device *kg_dev_emu_new(const kg_rt_config *cfg, kg_diag *d);
/* The CPU device (dev_cpu.c): threads = worker threads including the caller (0: the CPUs this
 * process may run on, or $KGEN_CPU_THREADS). */
kg_device *kg_dev_cpu_new(const kg_rt_config *cfg, int threads, kg_diag *d);
/* Objects the host-compiler devices (emulator, CPU) hold loaded: for tests of bounded memory. */
uint32_t kg_dev_loaded_objects(const kg_device *dv);
/* Worker threads of a CPU device (the caller included); 0 for other devices. */
int kg_dev_cpu_threads(const kg_device *dv);
/* dev_emu.c: host memory (the emulator's and the CPU device's buffers): 64-byte aligned, filled
 * with 0xff bytes as cuMemAlloc leaves garbage; copies are memmove. */
int kg_host_dev_alloc(kg_device *dv, size_t bytes, void **ptr, kg_diag *d);
void kg_host_dev_free(kg_device *dv, void *ptr);
int kg_host_dev_copy(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d);
/* CUDA's launch limits, checked as a GPU would (a diagnostic naming the kernel); 0 when within. */
int kg_check_launch_limits(const char *kernel, const uint32_t g[3], const uint32_t b[3], uint32_t dyn_smem, kg_diag *d);
/* Runs `kernel` of a host object on the emulator's fibers (kg_emu_launch, stacks from the
 * process's pool) in opts' thread order; devname names the device in messages. */
int kg_emu_run_fibers(kg_hostobj *o, const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn_smem, void **params,
                      const kg_emu_opts *opts, const char *devname, kg_diag *d);

/* ---- cpu_pool.c: the CPU device's worker threads ---- */
typedef struct kg_cpu_pool kg_cpu_pool;
kg_cpu_pool *kg_cpu_pool_new(int threads); /* threads - 1 workers, made on first need */
void kg_cpu_pool_free(kg_cpu_pool *p);
int kg_cpu_pool_threads(const kg_cpu_pool *p);
/* fn(arg, b0, b1) over [0, n) in ranges of `grain`, on the workers and the caller; returns when
 * all are done. */
void kg_cpu_pool_for(kg_cpu_pool *p, uint64_t n, uint64_t grain, void (*fn)(void *arg, uint64_t b0, uint64_t b1), void *arg);
/* The CUDA device via the Driver API (dlopen libcuda.so.1, primary context).
 * Returns NULL with a KG_E_DEVICE diagnostic when no driver / no GPU. nvrtc NULL: it opens
 * NVRTC itself; without one it still runs kernels from images (offline packages), and a load
 * from source fails saying NVRTC is missing. */
kg_device *kg_dev_cuda_new(const kg_rt_config *cfg, kg_nvrtc *nvrtc, kg_diag *d);
/* dev_null.c: a device whose launches do nothing (host-overhead benchmarks). */
kg_device *kg_dev_null_new(void);
/* The null device as a recorder (tests of replay.c): with log on it keeps every launch it is
 * given (kernel, grid, block, shared memory, the parameters' first 8 bytes) in order, a graph's
 * launches included (graph set when they came from graph_launch); graphs off removes its graph
 * hooks (replay then launches one by one, as on the emulator). Counts graphs made, parameter
 * updates and graph launches. */
typedef struct kg_null_launch {
  const char *kernel;
  uint32_t grid[3], block[3], smem, n_params;
  uint64_t params[64];
  bool graph;
} kg_null_launch;
/* graphs_stale: graphs freed after a module one of their nodes names was unloaded (on CUDA, a
 * destroyed function in a live graph) */
typedef struct kg_null_counts { uint64_t launches, graphs_made, graph_sets, graph_launches, graphs_live, tmaps, graphs_stale; } kg_null_counts;
void kg_dev_null_config(kg_device *dv, bool log, bool graphs);
const kg_null_launch *kg_dev_null_log(const kg_device *dv, uint32_t *n);
void kg_dev_null_log_clear(kg_device *dv);
void kg_dev_null_counts(const kg_device *dv, kg_null_counts *out);
/* The GPU of a CUDA device as the scheduler sees it (arch, SMs, shared memory). */
struct kg_target;
void kg_dev_cuda_target(const kg_device *dv, struct kg_target *t);
/* Offline kernel packages (package_load.c): the CUDA device's compute capability (major * 10 +
 * minor), and a module from a cubin or NUL-terminated PTX image (the driver JITs PTX): no NVRTC. */
int kg_dev_cuda_arch(kg_device *dv);
int kg_dev_cuda_load_image(kg_device *dv, const char *name, const void *image, size_t len, kg_rt_module **mod, kg_diag *d);
/* True when a CUDA driver with at least one device can be opened (cheap probe). */
bool kg_dev_cuda_available(void);
/* Where the emulator header text lives: embedded at build time (kg_emu_header.c), and the CPU
 * device's loop drivers (codegen-cuda/kg_cpu.h, kg_cpu_header.c). */
extern const char kg_emu_header_text[];
/* The emulator's runtime (kg_emu_rt.c + kg_emu_tc.c), embedded the same way (kg_emu_runtime.c). */
extern const char kg_emu_runtime_text[];
extern const char kg_cpu_header_text[];

/* ---- hostcc.c: kernel objects built by the host C compiler ---- */
typedef struct kg_hostcc kg_hostcc;
typedef struct kg_hostcc_header {
  const char *prefix; /* file name "<prefix>_<hash of text>.h" */
  const char *text;
} kg_hostcc_header;
/* What one device builds. The pointers must outlive the kg_hostcc. */
typedef struct kg_hostcc_spec {
  const char *kind;                  /* "emu", "cpu": messages, cache kind "<kind>-so", temp folder */
  const char *abi;                   /* part of every key: bump when the launcher / driver ABI changes */
  const char *const *flags;          /* fixed compiler flags after the compiler's words */
  size_t n_flags;
  const char *env_flags;             /* the variable whose words are appended ("KGEN_EMU_CFLAGS") */
  const char *const *libs;           /* link flags after the source ("-lm") */
  size_t n_libs;
  const kg_hostcc_header *headers;   /* included first, in order */
  size_t n_headers;
  const char *extra_key;             /* more key text (the host CPU's identity), or NULL */
  const char *runtime;               /* the runtime object's text (after "#define KG_EMU_RT 1" and the
                                        headers), compiled once and linked into every object; or NULL */
} kg_hostcc_spec;
kg_hostcc *kg_hostcc_new(const kg_rt_config *cfg, const kg_hostcc_spec *spec, kg_diag *d);
void kg_hostcc_free(kg_hostcc *h);
/* The object of translation unit `text` (appended to the headers' #include lines), compiled or
 * found in the kernel cache; a load of a text this device has loaded already shares that object
 * (one more reference). NULL with a diagnostic when it cannot be built or loaded. */
kg_hostobj *kg_hostcc_load(kg_hostcc *h, const char *name, const char *text, kg_diag *d);
/* Starts compiling `text` in the background (a compiler process; at most one per core run at
 * once, the oldest waited for first) unless this device has it loaded, started or cached: the
 * kg_hostcc_load of the same text then waits for that compiler instead of running its own. A
 * failure is silent here (that load compiles again and reports it). */
void kg_hostcc_prefetch(kg_hostcc *h, const char *name, const char *text);
/* Drops one reference; the last one unloads the object. */
void kg_hostcc_release(kg_hostcc *h, kg_hostobj *o);
void *kg_hostobj_sym(const kg_hostobj *o, const char *sym);
const char *kg_hostobj_name(const kg_hostobj *o);
uint32_t kg_hostcc_n_loaded(const kg_hostcc *h);

/* ---- emu_stacks.c: the process's fiber stacks ----
 * The host's copy of kg_emu.h's two structures (same layout: part of the objects' ABI). */
typedef struct kg_emu_stacks {
  char *base;        /* n slots, `slot` bytes apart: a guard page, then the stack */
  size_t slot;
  size_t stack_size; /* usable bytes per stack */
  unsigned n;
  void *handle;
} kg_emu_stacks;
typedef struct kg_emu_host {
  int (*stacks_get)(void *ctx, unsigned n, size_t stack_size, kg_emu_stacks *out);
  void (*stacks_put)(void *ctx, kg_emu_stacks *s);
  void *ctx;
} kg_emu_host;
/* The pool every fiber launch of the process borrows its stacks from. */
const kg_emu_host *kg_emu_stack_pool(void);
typedef struct kg_stack_pool_stats {
  unsigned sets, peak_sets, lent; /* stack sets mapped now, at most so far, lent now */
  size_t slots, bytes;            /* their slots (stacks) and bytes of address space */
  unsigned largest_block;         /* the largest block a launch asked for */
} kg_stack_pool_stats;
void kg_emu_stack_pool_stats(kg_stack_pool_stats *out);

/* ---- cache.c ---- */
typedef struct kg_cache kg_cache;
/* dir NULL → default location; a directory that cannot be created degrades to a
 * memory-only cache with one warning on stderr. */
kg_cache *kg_cache_open(const char *dir);
void kg_cache_close(kg_cache *c);
const char *kg_cache_dir(kg_cache *c); /* NULL when memory-only */
/* Looks up `key` (any bytes; hashed). Returns a malloc'd copy of the value or NULL. */
void *kg_cache_get(kg_cache *c, const char *kind, const void *key, size_t key_len, size_t *len);
/* Stores a value; failures are silent (the cache is an optimisation). */
void kg_cache_put(kg_cache *c, const char *kind, const void *key, size_t key_len, const void *val,
                  size_t len);

#endif
