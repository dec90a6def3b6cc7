/* runtime/exec_int.h — what the executor's files share (exec.c runs a program's groups;
 * exec_choose.c decides what each group runs and starts a first run's compiles). Private to
 * runtime/. */
#ifndef KG_EXEC_INT_H
#define KG_EXEC_INT_H

#include "api_int.h"

typedef kg_binding binding;

static inline int64_t kg_exec_dim(const binding *B, const kg_dim *d) { return d->kind == KG_DIM_STATIC ? d->v : B->sym[d->v]; }
/* a tensor's first element */
static inline void *kg_exec_data(const DLTensor *t) { return (char *)t->data + t->byte_offset; }

/* What the kernels of one group are launched with: the bound tensors, sizes and
 * the split reduction's chunking. */
typedef struct launch_env {
  kg_device *dev;
  int slot;
  void *stream;
  kg_diag *d;
  const DLTensor **pt;
  DLTensor *const *outputs;
  const DLTensor *tview;
  void *scratch;
  int r;
  int64_t space[KG_MAX_RANK], numel, nout, nred, chunk, nchunk;
  bool reduce, mm;
  uint32_t row_threads;     /* threads per block of the block-per-row schedules */
  int64_t mm_batch, mm_m, mm_n; /* a matrix product: batch, M, N */
  const int64_t *sym;       /* the symbols' values */
  uint64_t rng_seed, rng_offset; /* the call's random generator (KPR_RNG) */
  kg_replay_rec *rec;       /* the record this run fills (replay.c), or NULL */
  int keep_mode;            /* a CPU product's kept panels (KPR_KEPT, exec_keep.c) */
  uint64_t gy_cap;          /* a CPU convolution's row chunks launched (0: all): each thread walks several */
} launch_env;

/* What group_choice reads of a run: its program, sizes and tensors */
typedef struct run_view {
  const kg_context *ctx;
  const kg_graph *g;
  const kg_fusion *F;
  const kg_kernel *DK;
  const kg_group_facts *GF;
  const binding *B;
  const DLTensor **pt;
  DLTensor *const *outputs;
  const DLTensor *tview;
  int plan;
  const kg_target *T;
} run_view;

/* What group gi runs at this run's sizes: E's space and counts (a product's or attention's batch,
 * M and N), and the schedule the scheduler chooses from the run's facts; *skip when it launches
 * nothing (no elements). Input errors (the operands' K, a max over nothing) as PyTorch's. */
kg_status kg_exec_group_choice(const run_view *V, uint32_t gi, launch_env *E, kg_schedule *sc, bool *skip, kg_diag *d);
/* A first run: starts compiling every kernel the run loads from group `from` on (exec_choose.c) */
void kg_exec_prefetch(kg_compiled *c, const run_view *V, uint32_t from, kg_device *dev, int slot, launch_env E);

#endif
