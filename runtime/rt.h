/* runtime/rt.h — internal runtime interfaces: NVRTC, devices, the emulator,
 * the kernel cache, .npy I/O and the oracle bridge.
 *
 * Sections, one per source file:
 *   nvrtc.c     — dlopen("libnvrtc.so"): compile CUDA C → PTX / cubin for any arch
 *                 (sm_75 … sm_121), NVRTC log, ptxas register / spill / smem report.
 *   dev_emu.c   — the CPU emulator device: the same CUDA C text + codegen-cuda/kg_emu.h
 *                 compiled by the host C compiler into a shared object, dlopen'd, and
 *                 run over the whole grid (kg_emu_launch inside the object).
 *   dev_cuda.c  — the CUDA device through the Driver API, loaded with
 *                 dlopen("libcuda.so.1"); fails with a clear message when absent.
 *   dev_null.c  — launches that do nothing, host memory: measures kgen's host cost.
 *   cache.c     — compiled-artifact cache: memory + disk, content-addressed, entries
 *                 with header (magic, version, length, digest), atomic writes.
 *   npy.c       — NumPy .npy read / write (v1.0/2.0, little endian, C order) and
 *                 random test inputs in PyTorch make_tensor ranges.
 *   oracle.c    — the PyTorch cross-check: one long-lived /usr/bin/python3 process
 *                 running runtime/oracle.py (embedded), fed jobs over a pipe.
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
/* Compiles `src` named `prog_name` ("entry.cu") for compute capability `arch`
 * (e.g. 80 for sm_80). want_cubin: also produce SASS for sm_<arch> with ptxas -v
 * statistics. On a compile error records KG_E_INTERNAL with the log and where the
 * source was saved (`dump_dir`, may be NULL = $TMPDIR). */
int kg_nvrtc_compile(kg_nvrtc *n, const char *prog_name, const char *src, int arch,
                     bool want_cubin, const char *dump_dir, kg_nvrtc_out *out, kg_diag *d);
void kg_nvrtc_out_free(kg_nvrtc_out *o);

/* ---- devices (dev_emu.c, dev_cuda.c) ---- */
typedef struct kg_device kg_device;
typedef struct kg_rt_module kg_rt_module;

typedef struct kg_rt_source {
  const char *name;        /* program name, e.g. "gelu" (used for file names and logs) */
  const char *cuda;        /* the CUDA C text (exactly what NVRTC compiles) */
  const char *trampolines; /* emulator-only glue (codegen), appended after the text */
} kg_rt_source;

typedef struct kg_emu_opts {
  int order;     /* thread order between barriers: 0 forward, 1 reverse, 2 random */
  unsigned seed; /* for order 2 */
} kg_emu_opts;

typedef struct kg_device_vt {
  const char *name; /* "emu" or "cuda" */
  int (*alloc)(kg_device *dv, size_t bytes, void **ptr, kg_diag *d);
  void (*free)(kg_device *dv, void *ptr);
  int (*h2d)(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d);
  int (*d2h)(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d);
  /* Compiles (through the cache) and loads a module. */
  int (*load)(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d);
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
} kg_device_vt;

struct kg_device {
  const kg_device_vt *vt;
};

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
/* The CUDA device via the Driver API (dlopen libcuda.so.1, primary context).
 * Returns NULL with a KG_E_DEVICE diagnostic when no driver / no GPU. */
kg_device *kg_dev_cuda_new(const kg_rt_config *cfg, kg_nvrtc *nvrtc, kg_diag *d);
/* dev_null.c: a device whose launches do nothing (host-overhead benchmarks). */
kg_device *kg_dev_null_new(void);
/* True when a CUDA driver with at least one device can be opened (cheap probe). */
bool kg_dev_cuda_available(void);
/* Where the emulator header text lives: embedded at build time (kg_emu_header.c). */
extern const char kg_emu_header_text[];

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

/* ---- npy.c ---- */
typedef struct kg_npy {
  int dtype;        /* kg_dtype (ir.h) */
  int rank;
  int64_t shape[8];
  void *data;       /* malloc'd, C-contiguous */
  size_t nbytes;
} kg_npy;

int kg_npy_read(const char *path, kg_npy *out, kg_diag *d);
int kg_npy_write(const char *path, const kg_npy *a, kg_diag *d);
void kg_npy_free(kg_npy *a);

/* Bytes of a tensor of `rank` dims `shape` and elements of `elsize` bytes; false when the
 * product overflows (sizes given by a user: --size, a document, a .npy header). */
bool kg_tensor_bytes(const int64_t *shape, int rank, size_t elsize, size_t *bytes);
/* Fills `a` (allocating data) with deterministic random values of `dtype` in
 * PyTorch make_tensor ranges: floats in [-9, 9], signed ints in [-9, 10), unsigned
 * in [0, 10), bool {0, 1}. nonzero: never 0 (integer divisors). Returns -1 (a->data NULL)
 * when the tensor is too large to allocate. */
int kg_npy_random(kg_npy *a, int dtype, int rank, const int64_t *shape, uint64_t seed,
                   bool nonzero);

/* ---- oracle.c ---- */
typedef struct kg_oracle kg_oracle;

typedef struct kg_oracle_job {
  const char *script;        /* path of the TorchScript (or eager Python) source */
  const char *fn;            /* function to call in it */
  bool torchscript;          /* compile with torch.jit.CompilationUnit (else exec as Python) */
  const char **inputs;       /* .npy paths, parameter order */
  int n_inputs;
  const char **capture_names;/* keyword arguments, same order as captures */
  const char **captures;     /* .npy paths */
  int n_captures;
  const char **ours;         /* our outputs, .npy paths, output order */
  int n_outputs;
  const char **expect_dtypes;/* torch dtype names the outputs must have */
  double tol_scale;          /* multiplies rtol and atol (1 = reliability.md defaults) */
} kg_oracle_job;

typedef struct kg_oracle_row {
  char dtype[16];     /* our output dtype */
  char shape[96];     /* "[4, 7]" */
  double max_abs;     /* max |ours - ref| over finite elements */
  double max_rel;     /* max |ours - ref| / |ref| */
  char verdict[96];   /* "ok (allclose)", "ok (rmse vs fp64)", "MISMATCH ...", "dtype ..." */
  bool ok;
} kg_oracle_row;

/* Starts the oracle ($KGEN_PYTHON, else /usr/bin/python3). Records KG_E_DEVICE when
 * Python or torch is missing. */
kg_oracle *kg_oracle_start(kg_diag *d);
void kg_oracle_stop(kg_oracle *o);
/* Runs one job; rows[n_outputs] receive the verdicts. Returns 0 when the job ran
 * (whatever the verdicts), -1 when the reference itself failed (diagnostic has the
 * Python error). */
int kg_oracle_check(kg_oracle *o, const kg_oracle_job *job, kg_oracle_row *rows, kg_diag *d);
extern const char kg_oracle_py_text[];

#endif
