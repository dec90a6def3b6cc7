/* perf/perf_common.h — what the perf/ benchmarks count the same way: sizes of values with
 * symbolic dims concretized as `kgen check` does, the bytes a kernel moves, the cost model of
 * eager PyTorch (one kernel per op of the typed program, views free), a matrix-product
 * group's dims, tile and bytes, and the H100 numbers every prediction uses. One definition of
 * each so that bench_pipeline, bench_matmul and bench_models cannot drift apart. */
#ifndef KG_PERF_COMMON_H
#define KG_PERF_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/api_int.h"

/* H100 SXM: HBM3 bandwidth; CUDA-core and tensor-core peaks (dense). */
#define KP_H100_BW 3.35e12
#define KP_H100_L2 (50LL << 20) /* bytes */
#define KP_H100_FP32 67e12      /* CUDA cores, fp32 FMA (also what float16 products accumulate in) */
#define KP_H100_FP64 34e12
#define KP_H100_TC_FP64 67e12   /* fp64 tensor cores (cuBLAS DGEMM) */
#define KP_H100_TC_HALF 989e12  /* fp16 / bf16 tensor cores (cuBLAS) */
#define KP_H100_TC_TF32 494e12  /* tf32 tensor cores */
#define KP_MMA_SYNC_SHARE 0.65  /* of the tensor cores' rate that warp-level mma.sync reaches on an H100
                                   (wgmma's asynchronous warpgroup issue is what reaches the rest) */

/* A symbolic dim takes the value `kgen check` gives it: 13 + 4 · symbol id. */
int64_t kp_dim(const kg_dim *d);
int64_t kp_numel(const kg_shape *s);
int64_t kp_node_bytes(const kg_gnode *n); /* 0 for scalars */
bool kp_space_empty(const kg_shape *s);

/* Bytes of the buffer behind kernel parameter kp (an input, output, temporary or scratch). */
int64_t kp_param_bytes(const kg_compiled *c, const kg_kparam *kp);
/* Whether kernel k uses values loaded from buffer parameter `param` (a vector load none of
 * whose lanes is read is dead: NVVM drops it, so it moves no bytes). */
bool kp_kernel_reads(const kg_kernel *k, uint32_t param);

/* A matrix-product group (kind KG_GROUP_MATMUL) of c->fusion: its dims, the tile the scheduler
 * picks at H100 for them, and bytes from memory — ours (each source of A's prologue read once
 * per column of tiles, of B's once per row of tiles, unless it fits in half the L2, which then
 * serves the re-reads — on the tensor-core tiers, A once and B once per wave of resident blocks
 * when a wave's panels fit in the L2; the sources of a norm's statistics it computes, kg_group.pre,
 * once more as A's; the epilogue's sources and every stored value once)
 * and the minimum (every source and stored value once). */
typedef struct kp_mm {
  int64_t batch, m, n, k;
  kg_mm_tile tile;
  uint32_t smem;   /* shared memory per block, bytes */
  double flop;     /* 2 · batch · M · N · K */
  int64_t ours_b, min_b;
  uint8_t cdtype;  /* accumulator */
  uint8_t opdtype; /* the operands' dtype */
  uint8_t prec;    /* tensor cores: a kg_mm_prec */
} kp_mm;
void kp_mm_group(const kg_compiled *c, uint32_t gi, kp_mm *out);
/* The arithmetic peak an H100 gives the product's tier: wgmma's half-precision rate; mma.sync
 * at KP_MMA_SYNC_SHARE of the tensor cores' rate (a third of it for split-TF32's three
 * products); the CUDA cores' float32 / float64 for the SIMT tiles. */
double kp_mm_peak(const kp_mm *mm);

/* Marks in `mark` the sources a product group reads for node `id`: inputs, values earlier
 * kernels stored, plan values — stopping at them; the group's product and the values it
 * stores itself (grp->mats) are computed in the kernel, so their own sources are marked
 * instead (counting a stored value as read once and its bias / normalization operands not at
 * all was the mistake this replaced). */
void kp_sources(const kg_graph *g, const kg_fusion *f, const kg_group *grp, uint32_t id, uint8_t *mark, uint8_t *visit);

/* Bytes a kernel of c moves (per buffer it reads or writes, once; matrix-product groups by
 * kp_mm's tile model) and its FLOPs (products only: its tiled product and the products folded
 * into it). 0 bytes for a kernel not launched. */
void kp_kernel_cost(const kg_compiled *c, uint32_t gi, int64_t *bytes, double *flop);
/* FLOPs of the small products folded into kernel gi (MMFOLD, passes/fold_products.c) */
double kp_folded_flop(const kg_compiled *c, uint32_t gi);

/* Eager PyTorch over the typed program c->g: one kernel per tensor op; views (permute,
 * expand, slices, selects, reshapes of contiguous values) are metadata and free; a reshape or
 * contiguous() of a strided view copies. Each op reads its tensor operands and writes its
 * result once; products count 2·numel(out)·K FLOPs. The time predicted sums per op
 * max(bytes / bandwidth, FLOPs / peak), cuBLAS on tensor cores for float16 / bfloat16 and
 * float64, CUDA cores for float32 (PyTorch's default: TF32 off for matmul). */
typedef struct kp_eager {
  uint32_t kernels;
  int64_t bytes;
  double flop;
  double us;
} kp_eager;
void kp_eager_cost(const kg_graph *g, kp_eager *out);

/* Minimum bytes: every input whose values reach an output once, every output once. */
int64_t kp_min_bytes(const kg_graph *g);

/* The *.json files of dir whose names start with one of the prefixes (NULL: all), sorted.
 * Returns the count; *names is malloc'd (free each and the array). */
int kp_list_json(const char *dir, const char *const *prefixes, char ***names);

#endif
