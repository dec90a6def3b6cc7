/* runtime/api_int.h — the structures behind the public handles (kgen.h), shared
 * by api.c (contexts, modules, specialization, artifacts) and exec.c (running:
 * layout classification, kernel variants, parameter marshalling, launches).
 * The few internals the PyTorch check kit (check/) uses are declared in check_access.h
 * (included here): kg_ctx_device, kg_dtype_from_dl / kg_dtype_to_dl, kg_entry_cname. */
#ifndef KG_API_INT_H
#define KG_API_INT_H

#include <pthread.h>

#include "../codegen-cuda/codegen.h"
#include "../frontend/frontend.h"
#include "../passes/passes.h"
#include "check_access.h"
#include "kgen.h"
#include "rt.h"

struct kg_context {
  /* held by every public call that reads or changes the context or its modules and compiled
   * entries (kg_ctx_lock): calls on one context from several threads run one at a time instead
   * of racing (recursive: a call may make others; kg_package_write specializes) */
  pthread_mutex_t lock;
  kg_options opts;
  kg_diag diag;          /* diagnostics of the current / last call */
  char *last_error;      /* formatted diag of the last failing call */
  kg_rt_config rtcfg;
  kg_device *emu;        /* created on first use */
  kg_device *cuda;       /* created on first use */
  kg_device *null_dev;   /* KG_DEVICE_NULL, created on first use */
  kg_device *cpu;        /* KG_DEVICE_CPU, created on first use */
  int cpu_threads;       /* its threads (kg_context_set_cpu_threads; 0: the CPUs available) */
  kg_target cpu_target;  /* what the scheduler plans for on the CPU device (kg_target_cpu) */
  bool cuda_probed;
  bool cuda_ok;          /* the probe found a driver and a GPU */
  kg_nvrtc *nvrtc;       /* loaded on first use */
  bool nvrtc_probed;
  /* schedule experiments (perf/gpu, docs/gpu.md), read from the environment when the
   * context is made: KGEN_REDUCE_BLOCK = threads per block of the block-per-row
   * kernels (a multiple of 32 up to 1024; 0 = chosen from the row length),
   * KGEN_ROW_CACHE=1 = keep rows in registers where they fit */
  uint32_t reduce_block;
  bool row_cache;
  kg_run_stats stats;    /* of the run in progress (kg_run copies it to the compiled entry) */
  kg_rt_counts counts;   /* compilations by the devices (rtcfg.counts points here) */
  uint64_t specializations;
  /* the random generator (docs/design.md "The random generator"): its seed and the next
   * counter offset; a call of an entry that draws takes (seed, offset) for its kernels
   * (rng_call_*) and advances the offset by the entry's streams */
  uint64_t rng_seed, rng_offset;
  uint64_t rng_call_seed, rng_call_offset;
  bool no_replay;        /* kg_options.no_replay or KGEN_REPLAY=0: every run binds and plans afresh (replay.c) */
  uint64_t call_epoch;   /* advanced by every public call (kg_call_begin): kept panels are valid within one (exec_keep.c) */
};

typedef struct kg_package kg_package;   /* runtime/package.h */
typedef struct kg_pkg_prog kg_pkg_prog;

struct kg_module {
  kg_context *ctx;
  kg_arena arena;
  kg_doc *doc;
  char *json;            /* the document text (the AST points into the arena, not here) */
  kg_package *pkg;       /* an offline kernel package instead of a document (doc NULL) */
};

/* One kernel variant built on demand for a run: the group it computes, the
 * variant, its kernel IR, source text and the module loaded on each device. */
typedef struct kg_kvariant {
  uint32_t group;
  kg_variant v;
  kg_kernel k;
  char *cuda;            /* the CUDA C translation unit (this kernel alone) */
  char *trampolines;
  char *cpu;             /* the CPU device's glue (loop drivers, fiber trampolines) */
  char *cpu_pre;         /* and what precedes the kernel in its translation unit */
  kg_rt_module *mod[KG_DEV_SLOTS]; /* by kg_dev_slot: [0] emu, [1] cuda, [2] null, [3] cpu */
  bool borrowed;         /* mod[1] is a package's module (unloaded with the package, not here) */
} kg_kvariant;

/* A plan's buffer pool (plan.c): freed buffers are reused by size. */
typedef struct kg_pool_buf {
  void *p;
  size_t bytes;
  bool used;
  int refs;
  uint64_t keep_b;      /* a CPU product's scratch holding B's kept panels (exec_keep.c): B's tensor (a hash
                           of its address, dtype, shape and strides; 0: none), */
  uint64_t keep_epoch;  /* and the call that packed them (kg_context.call_epoch) */
} kg_pool_buf;
typedef struct kg_pool {
  kg_context *ctx;
  kg_device *dev;
  void *stream;
  KG_VEC(kg_pool_buf) bufs;
  uint32_t last;         /* the entry the last kg_pool_get handed out */
} kg_pool;

struct kg_compiled {
  kg_module *m;
  uint32_t entry;
  kg_arena arena;
  kg_graph g;            /* the typed program (the TorchScript twin's source) */
  kg_graph lg;           /* the lowering program: g with composite ops expanded */
  kg_fusion fusion;      /* over lg */
  char *explain;         /* pass log (kgen explain) */
  kg_kernel *kernels;    /* one per group: the default variant (what `compile` emits) */
  kg_variant *variants;
  kg_group_facts *gfacts; /* per group: the scheduler's static facts (asked again at every run) */
  uint32_t n_kernels;
  char *cuda;            /* all default kernels as one translation unit */
  KG_VEC(kg_kvariant *) runtime; /* variants built for runs */
  /* the split-rows plan (passes/fuse.c), built on the first run that needs it: its
   * groups, and a kernel of each (any variant: exec.c reads their tensor parameters) */
  bool split_built;
  kg_fusion fusion_split;
  kg_kernel *kernels_split;
  kg_group_facts *gfacts_split;
  uint32_t n_split;
  /* the fold plan (passes/fold_products.c): products the structural rules fold but whose sizes
   * are symbolic (fold_cand) are folded into their readers when every one of them is small at
   * the run's sizes — lg_fold is lg with them MMFOLD; built on the first run that wants it */
  uint32_t *fold_cand;
  uint32_t n_fold_cand;
  bool fold_built;
  kg_graph lg_fold;
  kg_fusion fusion_fold;
  kg_kernel *kernels_fold;
  kg_group_facts *gfacts_fold;
  uint32_t n_fold;
  /* the unfold plan (runtime/exec_plans.c): on the CPU device, folded products too big for a
   * serial dot per output made products again (kg_schedule_unfold); built on first want */
  bool unfold_known, unfold_some; /* asked once: does lg have such a product, or an attention? */
  bool unfold_attn;               /* the attention part of that answer (exec.c sizes it per run) */
  bool unfold_built;
  kg_graph lg_unfold;
  kg_fusion fusion_unfold;
  kg_kernel *kernels_unfold;
  kg_group_facts *gfacts_unfold;
  uint32_t n_unfold;
  /* the merge plan (runtime/exec_plans.c): lg with the products of one input with separate weights
   * merged where the input's rows are symbolic (passes/merge_products.c merges static ones in lg
   * itself), taken by a run whose rows are few; the graph made on first want, its kernels on first use */
  bool merge_known, merge_some, merge_built;
  kg_graph lg_merge;
  kg_fusion fusion_merge;
  kg_kernel *kernels_merge;
  kg_group_facts *gfacts_merge;
  uint32_t n_merge;
  /* entries with host control flow (ir/plan.c): the plan over g, and each region
   * compiled as a program of its own (kernels counted across them in n_kernels) */
  kg_plan *plan;
  kg_plan *plan_src;     /* the plan as elaborated (the TorchScript twin's structure) */
  kg_compiled **regions;
  uint32_t n_regions;
  kg_compiled **copies;  /* per output: a program copying a value into the caller's output (built on first need) */
  kg_run_stats stats;    /* what the last kg_run did */
  kg_pool pool;          /* a plan's buffers, kept between runs on one device and stream (plan.c) */
  kg_pool wb_pool;       /* with replay on: the write-back buffers, kept likewise (exec.c run_writebacks) */
  uint64_t rng_streams;  /* counters a call consumes (one per random stream of g), once rng_counted */
  bool rng_counted;
  uint64_t rng_last_seed, rng_last_offset; /* the generator state the last kg_run drew from */
  bool rng_pinned;       /* kg_run draws at (rng_pin_seed, rng_pin_offset), the context's state untouched */
  uint64_t rng_pin_seed, rng_pin_offset;
  /* gradients (runtime/grad.c): a forward compiled for gradients (kg_specialize_grad) owns its
   * backward; its outputs are the entry's results, then n_saved values the backward reads */
  struct kg_compiled *bwd;
  uint32_t n_saved;
  kg_bwd_param *bwd_params;   /* per backward input: where its value comes from */
  uint32_t n_bwd_params;
  uint32_t *bwd_grads;        /* per backward output: the parameter (g.params index) it is the gradient of */
  uint32_t n_bwd_grads;
  kg_pkg_prog *pkg;      /* read from an offline kernel package: its variants (package_load.c) */
  struct kg_replay *replay; /* its recorded runs by size pattern (replay.c), made on first run */
};

/* A plan run's buffers: freed ones are kept and handed out again to a request of
 * the same size, so the second iteration of a loop allocates nothing. */
int kg_pool_get(kg_pool *pl, size_t bytes, void **p, kg_diag *d);
/* Bytes of a run-time tensor of `rank` sizes `shape` and dtype dt; false when the count
 * overflows (sizes too large for any memory). */
bool kg_run_bytes(const int64_t *shape, int rank, kg_dtype dt, size_t *bytes);
/* An intermediate of node n (shape, rank) could not be allocated (its byte count overflows
 * or the device has no room): the run's sizes are too large, an input error located at the
 * op (KG_E_LIMIT, replacing the device's own message recorded after item `mark`). */
kg_status kg_run_too_large(kg_diag *d, uint32_t mark, const kg_gnode *n, const int64_t *shape, int rank, const char *what);
void kg_pool_put(kg_pool *pl, void *p);
void kg_pool_release(kg_pool *pl); /* frees every buffer (in stream order where it can) */

/* exec_keep.c: the CPU products' kept panels (KPR_KEPT, passes/lower_matmul_cpu.c) */
int32_t kg_keep_param(const kg_kernel *k); /* its KPR_KEPT parameter, or -1 */
/* A launch's scratch when its kernel keeps B's panels (B's data b): from the pool the free buffer
 * of these bytes that holds them, packed in this call (*mode 1), else another (*mode 2: they are
 * packed now, and the buffer remembers it); without a pool a fresh one (*mode 0: not kept). */
int kg_keep_scratch(kg_context *ctx, kg_device *dev, kg_pool *pool, size_t bytes, void *stream, const DLTensor *b, void **p, int *mode, kg_diag *d);
/* A replayed launch's mode: does its scratch (a buffer of the record's pool) hold b's panels of this call? */
int kg_keep_replay_mode(kg_context *ctx, kg_pool *pool, const void *scratch, const DLTensor *b);

/* api.c */
kg_status kg_fail(kg_context *ctx);
/* PyTorch's default seed (default_rng_seed_val): a fresh context draws reproducibly */
#define KG_DEFAULT_SEED 67280421310721ull
/* A compiled program named `name` (empty graphs), and its graph c->g → kernels + CUDA C. */
kg_compiled *kg_compiled_new(kg_module *m, uint32_t entry, const char *name);
bool kg_compile_program(kg_compiled *c, kg_pass_ctx *pc);
/* compile.c: the pipeline (an entry + a signature → kernels and plan; NULL + diagnostics) */
kg_compiled *kg_compile_entry(kg_module *m, uint32_t entry, const kg_sig *sig);
bool kg_compile_plan(kg_compiled *c, kg_pass_ctx *pc);
/* the programs copying write-back values (and a plan's outputs) into the caller's tensors */
bool kg_compile_copies(kg_compiled *c, kg_pass_ctx *pc);            /* formats ctx->diag into last_error; returns status */
void kg_call_begin(kg_context *ctx);
void kg_ctx_lock(kg_context *ctx);
void kg_ctx_unlock(kg_context *ctx);
kg_nvrtc *kg_ctx_nvrtc(kg_context *ctx);       /* NULL (+diag) when NVRTC is missing */

/* api.c: the signature of actual tensors (kg_specialize_for_ex; seen: the duck symbols' sizes) */
kg_sig *kg_sig_of_tensors(kg_module *m, uint32_t ei, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                          int n_captures, unsigned flags, int64_t **seen, int *n_seen);
bool kg_find_entry(kg_module *m, const char *entry, uint32_t *ei);
/* grad.c: an entry compiled for the gradients of the parameters wants[] flags (NULL: every
 * floating tensor) — NULL + diagnostics when it cannot be;
 * sym_hint: per signature symbol name "s<k>", the caller's size seen[k] (n_seen of them) */
kg_compiled *kg_compile_grad(kg_module *m, uint32_t entry, const kg_sig *sig, const uint8_t *wants, const int64_t *seen, int n_seen);

/* exec.c */
/* Binding a tensor to a program value: rank, dtype, static sizes, symbols (bound on first
 * sight, checked after). Diagnostics name it as an input (kind 0), capture (1) or output (2). */
typedef struct kg_binding { int64_t *sym; uint8_t *bound; } kg_binding;
typedef struct kg_bwhat { int kind; uint32_t index; const char *name; } kg_bwhat;
/* After the parameters are bound: the symbols broadcasting assumed equal are (a shape error
 * at the op otherwise). */
/* Kernel i of a compiled entry, 0 <= i < n_kernels, plan or not (a plan's kernels are its
 * regions' in order): the one way to enumerate an entry's kernels. NULL past the end. */
const kg_kernel *kg_compiled_kernel(const kg_compiled *c, uint32_t i);
/* binds the derived symbols (products of sizes) from their factors (or a factor from a bound
 * product), then checks the guards */
bool kg_check_guards(kg_context *ctx, const kg_graph *g, kg_binding *B);
bool kg_bind_derived(kg_context *ctx, const kg_graph *g, kg_binding *B); /* again after outputs */
bool kg_bind_tensor(kg_context *ctx, const kg_graph *g, kg_binding *B, const kg_gnode *n, const DLTensor *t, const kg_bwhat *wh);
/* element stride of t at dim i (DLPack: NULL strides = C-contiguous) */
int64_t kg_dl_stride(const DLTensor *t, int i);
/* kg_run of a program without a plan (a straight-line entry or one region of a
 * plan): no kg_call_begin; with a pool, temporaries come from it and nothing is
 * synchronized (the plan does). */
kg_status kg_run_program(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                         const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream,
                         kg_pool *pool);
/* plan.c: kg_run of an entry with a plan */
kg_status kg_plan_run(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                      const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream);
/* Builds the split-rows (plan 1) or fold (plan 2) plan now (run time builds it on first need;
 * the package writer needs it ahead). */
/* exec_plans.c: the alternative plans (kg_variant.plan: 1 split rows, 2 fold, 3 unfold), each
 * built once; a plan's program, fusion, kernels (one per group) and facts */
bool kg_compiled_build_plan(kg_compiled *c, int plan, kg_diag *d);
typedef struct kg_plan_view {
  const kg_graph *lg;
  const kg_fusion *F;
  const kg_kernel *kernels;
  const kg_group_facts *facts;
} kg_plan_view;
kg_plan_view kg_compiled_plan(const kg_compiled *c, int plan);
char kg_plan_letter(int plan); /* in kernel names: 's', 'f', 'u' ('k' for plan 0) */
bool kg_compiled_wants_unfold(kg_compiled *c);
/* Does c have a few-rows plan (products of separate weights merged, a norm's statistics in the
 * product, at symbolic rows)? Made once. */
bool kg_compiled_wants_merge(kg_compiled *c);
/* 4 (the few-rows plan) when c has one and the scheduler wants it at these sizes (sym: the run's
 * symbol values), else 0 (the fused plan); never on the CPU device or for a package */
int kg_compiled_few_rows_plan(kg_compiled *c, const int64_t *sym, const kg_target *target);
void kg_compiled_free_plans(kg_compiled *c);
/* The kernel for `group` in variant `v`, built (and loaded on dev slot) on demand. */
kg_kvariant *kg_compiled_variant(kg_compiled *c, uint32_t group, const kg_variant *v, kg_diag *d);

/* replay.c: a program's runs recorded by size pattern and replayed (see its top comment).
 * kg_replay_run: at the start of kg_run_program — true when a record of this pattern was
 * replayed (*st its status); false when the run must run afresh, with *rec the record it fills
 * (NULL: none, replay off or the arguments incomplete): its temporaries and scratch from
 * kg_replay_pool(rec), each launch passed to kg_replay_add before it is launched, and
 * kg_replay_end(ok) once it is done (a failed run's record is dropped). */
typedef struct kg_replay kg_replay;
typedef struct kg_replay_rec kg_replay_rec;
bool kg_replay_run(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, const kg_named_tensor *captures, int n_captures,
                   DLTensor *const *outputs, void *stream, bool in_plan, kg_status *st, kg_replay_rec **rec);
kg_pool *kg_replay_pool(kg_replay_rec *r);
void kg_replay_add(kg_replay_rec *r, const kg_kernel *k, kg_rt_module *mod, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                   uint64_t work, void **params, const DLTensor **pt, DLTensor *const *outputs);
void kg_replay_end(kg_compiled *c, kg_replay_rec *r, bool ok);
void kg_replay_free(kg_compiled *c);
uint32_t kg_replay_records(const kg_compiled *c); /* patterns recorded now (tests) */
/* exec.c: scalar parameter t's value as a kernel of dtype dt takes it, into *out (8 bytes, zeroed first) */
void kg_scalar_param(const DLTensor *t, kg_dtype dt, uint64_t *out);

/* runtime/tmap.c: the tensor map a kernel's KPR_TMAP parameter wants, from its operand's tensor */
bool kg_tmap_request(const kg_ktmap *tm, const DLTensor *t, kg_tmap_req *req, kg_diag *d);

/* exec_mm.c: a product's operand as a tensor read as it is (else NULL), and its facts for the
 * scheduler (mm_kmajor, mm_async, mm_tma of x) */
const DLTensor *kg_mm_operand(const kg_graph *g, const kg_fusion *F, const kg_group *grp, int which, const DLTensor **pt,
                              DLTensor *const *outputs, const DLTensor *tview);
void kg_mm_operand_facts(const DLTensor *t, int which, int64_t flags, const int64_t *space, int rank, kg_sched_facts *x);
/* B's facts when it is a concatenation of tensors (kg_mm_cat_of_sources): K-major and cp.async
 * when every one of its tensors is; no TMA. Leaves x alone for any other B. */
void kg_mm_concat_facts(const kg_graph *g, const kg_fusion *F, const kg_group *grp, const DLTensor **pt, DLTensor *const *outputs,
                        const DLTensor *tview, const int64_t *space, int rank, kg_sched_facts *x);

#endif
