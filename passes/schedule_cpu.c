/* passes/schedule_cpu.c — the scheduler's choices for the CPU target (kg_target_cpu): the CPU
 * device's schedules, whose threads never cooperate, and when it takes its own plans (the unfold
 * plan, attention as PyTorch's math path). Moved out of schedule.c, which asks
 * kg_schedule_cpu_choose for every group on the CPU target at run time; the policy is tested
 * from tables as the GPU's (tests/test_schedule.c, tests/test_mma_cpu.c, tests/test_batch_rows.c). */
#include <string.h>

#include "passes.h"

kg_target kg_target_cpu(int cores) {
  kg_target t;
  memset(&t, 0, sizeof t); /* arch 0, no wgmma, no shared memory: no tensor-core tier can be chosen */
  t.name = "CPU";
  t.sm_count = cores < 1 ? 1 : cores, t.threads_per_sm = 1, t.blocks_per_sm = 1;
  t.cpu_cores = t.sm_count;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  t.cpu_vregs = __builtin_cpu_supports("avx512f") ? 32 : 16;
#elif defined(__aarch64__)
  t.cpu_vregs = 32;
#else
  t.cpu_vregs = 16;
#endif
  return t;
}

/* The CPU target (kg_target_cpu): schedules whose threads never cooperate, so that the CPU
 * device runs them as plain loops (ir/kernel_coop.c, codegen-cuda/cpu.c). Pointwise kernels walk
 * chunks of the space in loops (lower_cpu.c), linear where every operand is contiguous, strided
 * otherwise; every reduction is a thread per output walking its row (the column schedule), split
 * into chunks over the cores when the outputs are fewer than the cores and the rows long; scans
 * are a thread per row already. Products pack a panel of B per thread and run register blocks
 * over it (lower_matmul_cpu.c); depthwise convolutions keep the direct schedule (a thread per
 * output, no cooperation either). */
kg_schedule kg_schedule_cpu_choose(const kg_group_facts *gf, const kg_sched_facts *x, const kg_target *t, kg_schedule s, int64_t numel, int64_t nout,
                                   int64_t nred, int64_t big) {
  kg_variant *v = &s.v;
  v->cpu = 1;
  if (numel > big || (x->runtime && x->max_offset > big)) v->index_dtype = KG_I64;
  if (x->force == KG_SCHED_STRIDED_I64) v->index_dtype = KG_I64;
  bool forced = x->force == KG_SCHED_STRIDED || x->force == KG_SCHED_STRIDED_I64;
  switch ((kg_group_kind)gf->kind) {
  case KG_GROUP_POINTWISE:
    v->layout = x->contiguous && !gf->coords && !forced ? KG_LAYOUT_LINEAR : KG_LAYOUT_STRIDED;
    return s;
  case KG_GROUP_SCAN:
    v->layout = KG_LAYOUT_STRIDED;
    return s;
  case KG_GROUP_REDUCE: {
    v->layout = KG_LAYOUT_LINEAR; /* the column schedule: a thread per output */
    v->no_online = forced; /* softmax's max and sum of exp in one walk, unless forced to the plain schemes */
    int64_t S = gf->splittable && !forced ? kg_reduce_split_chunks(t, true, nout, nred) : 1;
    if (S > 1) {
      v->split = KG_SPLIT_PARTIAL;
      s.chunk = (nred + S - 1) / S;
      s.nchunk = (nred + s.chunk - 1) / s.chunk;
    }
    return s;
  }
  case KG_GROUP_MATMUL: break;
  default: KG_UNREACHABLE();
  }
  int64_t batch, m, n;
  kg_mm_dims(gf->rank, x->space, gf->mm_flags, &batch, &m, &n);
  v->layout = KG_LAYOUT_STRIDED;
  /* a B every batch shares (a linear over [T, N, K]: a sequence's input projection): the batch
   * folds into the rows, batch · M of them under one panel per column tile, where a thread per
   * (column tile, batch) packed the same panel for M rows each — an LSTM's input projection at
   * T = 512, N = 8 copied its weight 512 times (docs/perf_cpu.md) */
  if (gf->mm_b_shared && batch != 1) {
    v->mm_fold = 1;
    m = m < 0 || batch < 0 ? -1 : m * batch, batch = 1;
  }
  /* a convolution of one group: its images fold into the columns (every image shares the weight,
   * the rows), images · P of them under the panels — a thread per (column tile, image) read the
   * whole weight once per image, and a small image's P columns filled a fraction of a panel
   * (ResNet-18's last stage at 64 x 64 inputs: 2 x 2 outputs, 4 of 16 columns) */
  if ((gf->mm_flags & 8) && (gf->mm_flags >> 8) == 1 && batch != 1) {
    v->mm_fold = 1;
    n = n < 0 || batch < 0 ? -1 : n * batch, batch = 1;
  }
  /* 8-row register blocks where 32 vector registers hold them (8 x 16 accumulators, their block
   * sums, the panel's row and a broadcast) and the product has 8 rows to fill them; there, panels
   * of 32 columns (a float32, float16 or bfloat16 product: float32 sums; N at least 32): two panel vectors per k under the same 8
   * broadcasts, A's rows read once per 32 columns instead of 16 — 1.2x the multiply-adds a cycle
   * from L1 and 1.45x on an LSTM's input projection, whose 1 MB of rows come from L2 at every
   * column tile (docs/perf_cpu.md). The 16 block sums then live in memory: added once a block. */
  bool r8 = t->cpu_vregs >= 32 && (m < 0 || m >= 8);
  bool wide = r8 && n >= 32 && (gf->mm_dtype == KG_F32 || gf->mm_dtype == KG_F16 || gf->mm_dtype == KG_BF16);
  int64_t nr = wide ? 32 : 16;
  /* every row per thread (one panel per column tile) when the column tiles keep the cores busy;
   * else rows in chunks of KG_MM_CPU_MC for more threads */
  int64_t col_tiles = n < 0 || batch < 0 ? -1 : (n + nr - 1) / nr * batch;
  bool all = col_tiles >= 4 * (int64_t)t->cpu_cores && m <= KG_MM_CPU_MC_ALL;
  v->mm_tile = wide ? (all ? KG_MM_CPU8W_ALL : KG_MM_CPU8W) : r8 ? (all ? KG_MM_CPU8_ALL : KG_MM_CPU8) : all ? KG_MM_CPU_ALL : KG_MM_CPU;
  if ((gf->mm_flags & 8) && kg_conv_direct(m, gf->mm_k)) v->mm_tile = KG_MM_DIRECT;
  /* few rows times a weight read as it is with K contiguous (a linear's [N, K], an LSTM step's):
   * dot products along K read both operands straight (passes/lower_matmul_cpu.c), where the panel
   * would copy every weight element once per product for a few multiply-adds each (MNIST's fc1,
   * 2 rows x 9216: 85 % of its time in the copy; 2-5x faster). Up to 4 rows and from K = 512: with
   * more rows or a shorter K the panel (its copy a 16 x 16 transpose, KS_TPACK) is as fast or
   * faster (docs/perf_cpu.md). float32 (the vector lanes of KS_DOT); not
   * knowing B's strides, a transposed B is taken as K-contiguous (the kernel checks). */
  int64_t kl = x->runtime && x->mm_k > 0 ? x->mm_k : gf->mm_k;
  if ((gf->mm_flags & 14) == 4 && gf->mm_b_src && gf->mm_dtype == KG_F32 && m >= 1 && m <= KG_MM_CPU_DOT_ROWS && kl >= KG_MM_CPU_DOT_K &&
      (!x->runtime || x->mm_kmajor[1] != 0))
    v->mm_tile = t->cpu_vregs >= 32 ? KG_MM_CPU_DOT8 : KG_MM_CPU_DOT;
  if (!kg_mm_tile_cpu_panel(v->mm_tile)) v->mm_fold = 0; /* the dot and direct schedules keep the batch in grid.z */
  return s;
}

bool kg_schedule_unfold(int64_t numel, int64_t k) {
  return k >= KG_CPU_UNFOLD_K && numel > 0 && numel >= KG_CPU_UNFOLD_MACS / k;
}

bool kg_schedule_unfuse_attention(int64_t scores) { return scores >= 0 && scores <= KG_CPU_UNFUSED_ATTN_SCORES; }

