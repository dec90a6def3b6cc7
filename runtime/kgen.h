/* kgen.h — the public C API of kgen, a CUDA kernel generator for F# quotations.
 *
 * kgen is a library first: the `kgen` CLI, the TorchSharp binding and offline
 * packages are all thin clients of these calls. Handles are opaque; every call
 * takes its context explicitly; there are no globals, so two contexts may be used
 * from two threads. Calls on ONE context from several threads are serialized (each
 * holds the context's lock; they run one at a time, never race); kg_last_error()
 * is the context's, so a thread that shares a context reads it under its own lock.
 * Free a module after its compiled entries, a context last. Tensors are borrowed DLPack views; outputs are passed in by
 * the caller (destination passing).
 *
 *   kg_context  — options, caches, devices, the last error.
 *   kg_module   — a loaded quotation document (kgen-quotation v1).
 *   kg_compiled — one entry specialized for dtypes / ranks / layouts: its typed
 *                 program, fused kernels, CUDA C, TorchScript and eager Python, and
 *                 for control flow over tensors its host plan (kgen explain prints it).
 *
 * Every function returns a kg_status. On failure kg_last_error() describes it
 * (JSON path, F# location, message). KG_ERR_INPUT means the input was bad;
 * KG_ERR_INTERNAL means kgen or a tool it drives (NVRTC, cc) failed.
 */
#ifndef KGEN_H
#define KGEN_H

#include <stddef.h>
#include <stdint.h>

#include "dlpack.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KGEN_VERSION_STRING "0.1.0"

/* What libkgen.so exports: exactly the functions below (its other symbols are hidden). */
#if defined(__GNUC__)
#define KG_API __attribute__((visibility("default")))
#else
#define KG_API
#endif

typedef enum kg_status {
  KG_OK = 0,
  KG_ERR_INPUT = 1,    /* bad document, signature, inputs or arguments */
  KG_ERR_INTERNAL = 2, /* a bug, a tool failure, or a device failure */
} kg_status;

typedef enum kg_device_kind {
  KG_DEVICE_AUTO = 0, /* CUDA when a driver and a GPU are present, else the emulator */
  KG_DEVICE_CUDA = 1,
  KG_DEVICE_EMU = 2,
  KG_DEVICE_NULL = 3, /* launches do nothing, host memory: measures kgen's own host overhead */
  KG_DEVICE_CPU = 4,  /* host memory, the kernels compiled for this CPU (optimized, its vector
                         instructions) and run on its cores: kernels whose threads never cooperate
                         as plain loops on a thread pool, the others on fibers (docs/fastpath.md) */
} kg_device_kind;

typedef enum kg_artifact {
  KG_ART_CUDA = 0,        /* CUDA C of all kernels (one translation unit) */
  KG_ART_PTX = 1,         /* PTX for the arch */
  KG_ART_CUBIN = 2,       /* SASS for the arch (binary) */
  KG_ART_TORCHSCRIPT = 3, /* TorchScript twin (torch.jit.CompilationUnit source) */
  KG_ART_PYTHON = 4,      /* plain eager-Python twin */
  KG_ART_IR = 5,          /* typed program + kernel IR, textual */
  KG_ART_EXPLAIN = 6,     /* IR after each pass, fusion groups, launch configs */
} kg_artifact;

typedef struct kg_context kg_context;
typedef struct kg_module kg_module;
typedef struct kg_compiled kg_compiled;

/* kg_options.force_variant (tests: every schedule on every example) */
typedef enum kg_force_variant {
  KG_FORCE_NONE = 0,
  KG_FORCE_STRIDED = 1,      /* strided, no vectors, no warps, no splits */
  KG_FORCE_STRIDED_I64 = 2,  /* the same with 64-bit indices */
  KG_FORCE_NO_VECTORS = 3,   /* linear where contiguous, without vector access */
  KG_FORCE_SPLIT_ROWS = 4,   /* the split-rows plan (no row groups) at any size */
  KG_FORCE_TILED = 5,        /* every matrix product a tiled kernel of its own (no product folded
                                into its reader: passes/fold_products.c); 2 implies it too */
  KG_FORCE_TENSOR_CORES = 6, /* every product the tensor-core tier can take on it, whatever its size
                                (and tiled, as 5) */
  KG_FORCE_NO_TENSOR_CORES = 7, /* products on SIMT tiles only */
} kg_force_variant;

/* kg_options.f32_matmul: how float32 matrix products and convolutions run on GPUs with tensor
 * cores (sm_80 and later). PyTorch computes them in full float32 by default. */
typedef enum kg_f32_matmul {
  KG_F32_MATMUL_SPLIT_TF32 = 0, /* default: split-TF32 on tensor cores (each operand a TF32 high part plus
                                   a TF32 remainder, three TF32 products summed in float32) */
  KG_F32_MATMUL_TF32 = 1,       /* one TF32 product (torch.set_float32_matmul_precision("high")) */
  KG_F32_MATMUL_SIMT = 2,       /* float32 multiply-adds on the SIMT tiles */
} kg_f32_matmul;

typedef struct kg_options {
  const char *cache_dir;  /* NULL = $KGEN_CACHE_DIR or ~/.cache/kgen */
  const char *cc;         /* host C compiler for the emulator; NULL = $KGEN_CC or "cc" */
  int emu_thread_order;   /* 0 forward, 1 reverse, 2 random */
  unsigned emu_seed;
  int verify_ir;          /* run the IR verifiers after every pass (default on in tests) */
  int force_variant;      /* testing, a kg_force_variant: 0 = choose by layout; 1 = always
                             strided; 2 = strided with 64-bit indices, products tiled; 3 = linear
                             without vector access when contiguous; 4 = the split-rows plan at
                             any size; 5 = every product tiled (none folded) */
  int cuda_device;        /* the CUDA device (ordinal) this context runs on; a CUDA tensor on
                             another device is an input error */
  int f32_matmul;         /* a kg_f32_matmul */
  int emu_arch;           /* the GPU the emulator's schedules are chosen for: 0 = sm_90 (H100),
                             80 = sm_80 (A100: the mma.sync tier); on a CUDA
                             device 80 keeps the Hopper tier out (the sm_80 tier measured on sm_90) */
  int no_replay;          /* 1: no replay — every kg_run binds, plans and allocates afresh. Default (0):
                             a compiled entry records the launches of the first call with each size
                             pattern and replays them on later calls with the same sizes (on CUDA as
                             a CUDA graph), patching only pointers and scalars (docs/design.md
                             "Replay"); KGEN_REPLAY=0 in the environment turns it off too */
} kg_options;

/* ---- context ---- */
KG_API kg_context *kg_context_new(const kg_options *opts); /* opts may be NULL */
KG_API void kg_context_free(kg_context *ctx);
/* Diagnostics of the last failing call ("" if none). Valid until the next call. */
KG_API const char *kg_last_error(kg_context *ctx);

/* ---- modules ---- */
KG_API kg_status kg_module_load(kg_context *ctx, const char *json, size_t len, kg_module **out);
KG_API kg_status kg_module_load_file(kg_context *ctx, const char *path, kg_module **out);
KG_API void kg_module_free(kg_module *m);
KG_API int kg_module_n_entries(const kg_module *m);
KG_API const char *kg_module_entry_name(const kg_module *m, int i);
/* The parameters of an entry (entry NULL = the first), in the order kg_run takes them (a
 * tupled parameter counts once per item): their count (-1: no such entry), and parameter i's
 * kind: 0 a tensor, 1 a .NET number (passed as a 0-dim tensor of *scalar_dtype), -1 none. */
KG_API int kg_module_entry_n_params(kg_module *m, const char *entry);
KG_API int kg_module_entry_param(kg_module *m, const char *entry, int i, DLDataType *scalar_dtype);

/* ---- specialization ---- */
/* From a signature: `sig` is NULL (use the entry's document signature), a JSON
 * signature object, or the compact form "float32[B,1024], float32[1024], float32". */
KG_API kg_status kg_specialize(kg_module *m, const char *entry, const char *sig, kg_compiled **out);
/* From actual tensors (dtype, shape and layout are taken from them). Captures are
 * given by name; `scalars` are 0-dim tensors standing for scalar parameters. */
typedef struct kg_named_tensor {
  const char *name;
  const DLTensor *t;
} kg_named_tensor;
KG_API kg_status kg_specialize_for(kg_module *m, const char *entry, const DLTensor *const *inputs,
                            int n_inputs, const kg_named_tensor *captures, int n_captures,
                            kg_compiled **out);
/* Flags of kg_specialize_for_ex. KG_SPEC_DYNAMIC: the inputs' sizes are not baked in. Every
 * dim of an input of size 2 or more becomes a symbol, dims of equal size share one ("duck
 * sizing", as torch.compile's dynamic shapes do), sizes 0 and 1 stay static (broadcasting
 * depends on them). Captured tensors (module parameters) keep their sizes static, as
 * torch.compile keeps an nn.Parameter's (a convolution's weight, a projection split into
 * heads need them), and so does an input's dim whose size a captured tensor has (the
 * features a weight multiplies, the channels a convolution reads: torch.compile specializes
 * them at the guard the parameter raises). The compiled entry then runs on any inputs with
 * the same dtypes, ranks and size pattern (which dims are 0, 1, a capture's size, or equal to
 * which), with captures of the sizes it was specialized for. Symbol "s<k>" is the k-th
 * distinct symbolic size met in the inputs (in order, dims left to right). */
enum { KG_SPEC_DYNAMIC = 1 };
KG_API kg_status kg_specialize_for_ex(kg_module *m, const char *entry, const DLTensor *const *inputs,
                               int n_inputs, const kg_named_tensor *captures, int n_captures,
                               unsigned flags, kg_compiled **out);
KG_API void kg_compiled_free(kg_compiled *c);

/* Outputs: count, dtype (a DLDataType) and concrete shape. Shapes are concrete
 * after kg_specialize_for; after kg_specialize a symbolic dim reads as -1. */
KG_API int kg_compiled_n_outputs(const kg_compiled *c);
KG_API kg_status kg_compiled_output(const kg_compiled *c, int i, DLDataType *dtype, int *ndim,
                             int64_t shape[8]);
KG_API int kg_compiled_n_kernels(const kg_compiled *c);
/* In-place updates of the caller's tensors (x.add_(y), x.copy_(s), ... on an entry input or a
 * captured tensor, as PyTorch's in-place ops): how many parameters kg_run writes, and the i-th:
 * its index (among the inputs, in kg_run's order, or among the captures), whether it is a
 * capture, and its name. kg_run stores their final values into the caller's tensors after the
 * entry's results are computed; reads written before the in-place op saw the old values. The
 * tensors must not alias one another or an output. */
KG_API int kg_compiled_n_writebacks(const kg_compiled *c);
KG_API kg_status kg_compiled_writeback(const kg_compiled *c, int i, int *param, int *is_capture, const char **name);
/* The symbol an output dim is (its name, e.g. "s0" or a document's "N"), or NULL when the
 * dim is static or out of range: with it a caller computes output shapes from its inputs'
 * sizes without another call. */
KG_API const char *kg_compiled_output_symbol(const kg_compiled *c, int i, int d);
/* What kgen warns about in the entry it compiled (code that compiles but likely does not mean
 * what it says: TorchSharp's x.split(3L, 2L) taking split(params int64[] sizes)), as lines
 * "Model.fs:5:12: warning: ...\n  at $.json.path\n"; "" when none. Owned by c. */
KG_API const char *kg_compiled_warnings(const kg_compiled *c);

/* ---- artifacts ---- */
/* Returns malloc'd bytes (text is NUL-terminated). arch: 75, 80, 90, ... (ignored
 * for artifacts without one). */
KG_API kg_status kg_emit(kg_compiled *c, kg_artifact kind, int arch, char **data, size_t *len);
/* ptxas statistics of kernel i for arch: registers, spill bytes, shared memory. */
typedef struct kg_kernel_stats {
  char name[128];
  int regs, spill_stores, spill_loads, smem;
} kg_kernel_stats;
KG_API kg_status kg_kernel_stats_get(kg_compiled *c, int arch, int i, kg_kernel_stats *out);

/* ---- running ---- */
/* Runs a compiled entry on a device. inputs in parameter order, captures by name,
 * outputs preallocated by the caller with the shapes kg_compiled_output reports.
 * Pointers are device pointers for CUDA (DLTensor.device kDLCUDA), host pointers
 * for the emulator (kDLCPU). A scalar parameter is a 0-dim tensor in host memory
 * on either device. Any strides (in elements) are accepted; outputs may alias
 * inputs element for element (in-place pointwise updates).
 * An entry with control flow over tensors (a host plan) runs its loops, branches and
 * item() reads here on the host, launching each region's kernels; its temporaries come
 * from a pool that reuses freed buffers (no allocation per loop iteration), and a read
 * waits for the stream's work first.
 * stream: a CUstream or NULL (legacy default stream). With NULL, kg_run returns
 * after the kernels finished. With a stream it only enqueues them and returns
 * (asynchronous, like any op on that stream); temporary buffers between kernels
 * are then allocated and freed in stream order (cuMemAllocAsync), or, with a
 * driver that lacks it, the stream is synchronized before they are freed. */
KG_API kg_status kg_run(kg_compiled *c, kg_device_kind dev, const DLTensor *const *inputs, int n_inputs,
                 const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs,
                 int n_outputs, void *stream);
/* What the last kg_run of an entry did: kernel launches, device allocations (with
 * a host plan: buffers its pool had to allocate; freed buffers are reused, so loop
 * iterations after the first allocate nothing), device→host reads of scalars
 * (item() in conditions), plan steps executed and loop iterations. */
typedef struct kg_run_stats {
  uint64_t launches;
  uint64_t device_allocs;
  uint64_t reads;
  uint64_t plan_steps;
  uint64_t iterations;
  uint64_t replays;       /* programs (an entry, a plan's regions) replayed from a record (replay.c) */
  uint64_t inplace_writes; /* select_scatters a host plan wrote in place (a slice stored, not the tensor) */
  uint64_t panels_kept;   /* CPU product launches that read their weight's panels packed earlier in the call */
} kg_run_stats;
KG_API kg_status kg_run_stats_get(const kg_compiled *c, kg_run_stats *out);

/* What a context has compiled so far: entries specialized, and the kernel objects its
 * devices built (a host C compiler run for the emulator, an NVRTC compilation for CUDA) or
 * found in the kernel cache (memory or disk: a second process with the same cache folder
 * compiles nothing it has already compiled). */
typedef struct kg_context_stats {
  uint64_t specializations;
  uint64_t emu_compiles;
  uint64_t emu_cache_hits;
  uint64_t nvrtc_compiles;
  uint64_t cubin_cache_hits;
} kg_context_stats;
KG_API kg_status kg_context_stats_get(kg_context *ctx, kg_context_stats *out);

/* ---- the random generator ----
 * Entries that draw random numbers (dropout in training mode, rand / randn / rand_like /
 * randn_like, bernoulli) draw from the context's counter-based generator (Philox 4x32-10):
 * element e of random op s of a call is a function of (seed, offset + s, e) only, so a run is
 * reproducible and any kernel recomputes the same value. Each kg_run of such an entry uses the
 * current (seed, offset) and advances offset by kg_compiled_rng_streams (so two calls draw
 * different numbers). A new context has PyTorch's default seed 67280421310721 and offset 0.
 * docs/design.md "The random generator" gives the exact bit layout. */
KG_API kg_status kg_context_manual_seed(kg_context *ctx, uint64_t seed); /* seed, offset 0 */
KG_API kg_status kg_context_rng_state(kg_context *ctx, uint64_t *seed, uint64_t *offset);
KG_API kg_status kg_context_set_rng_state(kg_context *ctx, uint64_t seed, uint64_t offset);
/* Counter offsets one call of c consumes: its random ops (0 when it draws nothing). */
KG_API uint64_t kg_compiled_rng_streams(kg_compiled *c);

/* ---- gradients (training) ----
 * kg_specialize_grad compiles an entry for the gradients of the inputs and captures wants[i]
 * flags (wants[0 .. n_inputs) the inputs, then the captures; a flag on an integer or bool tensor
 * is ignored: PyTorch gives those no gradient). *out is the forward: kg_run it as any entry; its
 * outputs are the entry's results, then kg_compiled_n_saved values its backward reads (the
 * values a minimum cut of bytes moved chose to save; `kgen explain --grad` lists them and what
 * the backward recomputes instead). kg_compiled_backward is the backward, owned by the forward:
 * kg_run it with its inputs in order — each described by kg_compiled_backward_input: the
 * gradient of forward result `index` (the weights of the results: kgen computes the gradients of
 * Σ result_i · weight_i), forward input / capture `index`, forward result `index`, or saved output
 * `index` (of the forward's run whose gradients these are) — and it writes one output per
 * kg_compiled_backward_output: the gradient of input / capture `index` (a wanted parameter the
 * results do not depend on has no output). A backward that redraws random numbers (dropout's mask)
 * must run at the generator state its forward's run drew from: kg_compiled_rng_last of the
 * forward after that run, kg_compiled_rng_pin on the backward before running it.
 * KG_SPEC_DYNAMIC sizes as kg_specialize_for_ex's. An entry with control flow over tensors, a map
 * lambda on the gradients' path, or an in-place update of a parameter that wants its gradient is
 * an input error located at the F# call. */
KG_API kg_status kg_specialize_grad(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs,
                                    const kg_named_tensor *captures, int n_captures, unsigned flags, const uint8_t *wants,
                                    kg_compiled **out);
/* The same from a signature (as kg_specialize's: NULL = the document's own), for the gradients of
 * every floating tensor parameter the forward does not update in place (those are buffers, as
 * batch norm's running statistics) (`kgen explain --grad`). */
KG_API kg_status kg_specialize_grad_sig(kg_module *m, const char *entry, const char *sig, kg_compiled **out);
KG_API int kg_compiled_n_saved(const kg_compiled *c);
KG_API kg_compiled *kg_compiled_backward(kg_compiled *c); /* NULL when c was not compiled for gradients */
enum { KG_BWD_IN_GRAD = 0, KG_BWD_IN_INPUT = 1, KG_BWD_IN_CAPTURE = 2, KG_BWD_IN_RESULT = 3, KG_BWD_IN_SAVED = 4 };
KG_API int kg_compiled_backward_n_inputs(const kg_compiled *c);
KG_API kg_status kg_compiled_backward_input(const kg_compiled *c, int i, int *source, int *index);
KG_API int kg_compiled_backward_n_outputs(const kg_compiled *c);
KG_API kg_status kg_compiled_backward_output(const kg_compiled *c, int i, int *is_capture, int *index);
/* The generator state (seed, offset) the last kg_run of c drew from. */
KG_API kg_status kg_compiled_rng_last(const kg_compiled *c, uint64_t *seed, uint64_t *offset);
/* pinned != 0: kg_run of c draws at (seed, offset) and leaves the context's generator alone;
 * 0: c draws from the context again. */
KG_API kg_status kg_compiled_rng_pin(kg_compiled *c, int pinned, uint64_t seed, uint64_t offset);

/* Which device AUTO resolves to in this context. */
KG_API kg_device_kind kg_default_device(kg_context *ctx);
/* Threads the context's CPU device (KG_DEVICE_CPU) runs kernels on, the calling thread included
 * (0: the CPUs this process may run on, or $KGEN_CPU_THREADS). Before its first run on the CPU
 * device; an input error after. */
KG_API kg_status kg_context_set_cpu_threads(kg_context *ctx, int threads);

/* ---- offline kernel packages (docs/package.md) ----
 * A package (.kgpkg) holds, for each entry and signature it was made for, the launch plan and
 * every kernel variant the run-time scheduler can pick, as cubins per arch, PTX of the newest
 * arch and CUDA C, plus the TorchScript twin. kg_package_load gives a kg_module with the same
 * calls as a document's: kg_specialize (sig NULL: the entry's first packaged signature, else one
 * of them by its compact form) and kg_specialize_for (the packaged signature the tensors fit; a
 * tensor outside all of them is an error naming them) return a kg_compiled that kg_run runs —
 * on CUDA without the JSON frontend or NVRTC (the GPU arch's cubin, else the PTX through the
 * driver), on the emulator compiling the packaged CUDA C. kg_module_load_file loads a package
 * too (it reads the magic). */
typedef struct kg_package_item {
  kg_module *module;   /* a quotation document (kg_module_load*) */
  const char *entry;   /* NULL: every entry of it */
  const char *sig;     /* NULL: the entry's document signature; else as kg_specialize's */
} kg_package_item;
/* Writes one package: an entry named by several items gets one signature per item, in order.
 * archs: compute capabilities (80, 86, ...), ascending; none: a package for the emulator only.
 * The same items, archs and NVRTC give a byte-identical file. */
KG_API kg_status kg_package_write(kg_context *ctx, const kg_package_item *items, int n_items, const int *archs, int n_archs,
                                  const char *path);
KG_API kg_status kg_package_load(kg_context *ctx, const char *path, kg_module **out);
KG_API int kg_module_is_package(const kg_module *m);
/* What a package holds (entry NULL: all), per entry, signature and arch: malloc'd text. */
KG_API kg_status kg_package_describe(kg_module *m, const char *entry, char **text);

#ifdef __cplusplus
}
#endif
#endif
