/* codegen-cuda/kg_emu_tc.h — the tensor-core instructions on the CPU emulator (appended to
 * kg_emu.h by the build: one embedded header text). This file declares them for the kernel
 * text; kg_emu_tc.c, part of the emulator's runtime object (kg_emu_rt.c), implements them.
 *
 * The CUDA C that kgen emits names each tensor-core instruction through a macro of its
 * prelude (codegen-cuda/prelude_tc.h) with two bodies: the PTX for NVRTC, and a call of a
 * function below for the host compiler. The functions follow the PTX ISA (v8.x, "Warp Level
 * Matrix Multiply-Accumulate Instructions" and "Data Movement and Conversion Instructions"):
 *
 *   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32   kg_emu_mma(0 / 1, ...)
 *   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32                  kg_emu_mma(2, ...)
 *       warp-collective: every lane gives its A, B and C fragments; the product is formed once
 *       all 32 lanes have arrived, from the fragments placed by the ISA's tables
 *       (groupID = lane >> 2, threadID_in_group = lane % 4):
 *         m16n8k16 A (4 x .b32, a0..a7 low to high): row g for a0,a1,a4,a5, g+8 for the others;
 *                  col 2t + (i & 1), + 8 for i >= 4
 *                B (2 x .b32, b0..b3): row (k) 2t + (i & 1), + 8 for i >= 2; col g
 *         m16n8k8  A (4 x .b32, tf32): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
 *                B (2 x .b32): b0 (k = t, n = g), b1 (k = t+4, n = g)
 *         C / D   (4 x .f32): row g for c0,c1, g+8 for c2,c3; col 2t + (i & 1)
 *       Arithmetic model (the ISA leaves the order of the sum open): products exact (true
 *       for these types: at most 11 x 11 significand bits), summed in double in k order onto
 *       C, rounded once to float32. A tf32 operand's low 13 bits are ignored, as the hardware
 *       ignores them.
 *   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16            kg_emu_ldsm
 *       warp-collective: lanes 8j..8j+7 give the 16-byte-aligned shared addresses of the eight
 *       rows of matrix j; lane l receives in register j the elements (l / 4, 2(l % 4) + {0,1})
 *       of matrix j, or with .trans the elements (2(l % 4) + {0,1}, l / 4).
 *   cp.async.{ca,cg}.shared.global [dst], [src], cp-size, src-size     kg_emu_cp_async
 *   cp.async.commit_group / cp.async.wait_group N / cp.async.wait_all
 *       per thread and deferred: a copy lands only when a wait covers its group (or never, if
 *       the thread never waits), so a read of shared memory before the wait sees the block-start
 *       poison (NaN / -1) here, as it would race on a GPU. Bytes past src-size are zero-filled.
 *   cvt.rna.tf32.f32                                                     kg_emu_tf32
 *       to nearest, ties away from zero, keeping 10 explicit significand bits.
 * Misuse the hardware leaves undefined fails the launch with a message naming the thread and
 * the line: a lane that exited or waits elsewhere, lanes at different instructions, a shared
 * address out of shared memory or misaligned, cp-size / src-size out of range.
 */
#ifndef KG_EMU_TC_H
#define KG_EMU_TC_H

/* A tensor map in the emulator's own format (kg_emu_tmap_encode in kg_emu_tc.c fills it). */
typedef struct __attribute__((aligned(64))) kg_emu_tmap {
  unsigned magic;                  /* KG_EMU_TMAP_MAGIC */
  unsigned rank, esz, swizzle;     /* dims (1..3), element bytes, swizzle span in bytes (0, 32, 64, 128) */
  const char *base;
  unsigned long long dims[3];      /* innermost first */
  unsigned long long strides[3];   /* bytes; [0] unused (the innermost dim is contiguous) */
  unsigned box[3];
} kg_emu_tmap;
#define KG_EMU_TMAP_MAGIC 0x4b47544du
typedef char kg_emu_tmap_fits[sizeof(kg_emu_tmap) <= 128 ? 1 : -1];

/* The instructions (kg_emu_tc.c); `line` is the caller's source line, for messages. */
void kg_emu_mma(int type, float *d0, float *d1, float *d2, float *d3, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1, int line);
void kg_emu_ldsm(int num, int trans, unsigned *d0, unsigned *d1, unsigned *d2, unsigned *d3, const void *row, int line);
void kg_emu_cp_async(void *dst, const void *src, unsigned cp_size, unsigned src_size, int cg, int line);
void kg_emu_cp_async_commit(void);
void kg_emu_cp_async_wait(int n);
float kg_emu_tf32(float f);
unsigned kg_emu_saddr(const void *p);
void kg_emu_mbar_init(void *bar, unsigned count, int line);
void kg_emu_mbar_arrive_tx(void *bar, unsigned bytes, int line);
void kg_emu_mbar_wait(void *bar, unsigned parity, int line);
void kg_emu_tma_load(void *dst, const void *map, int c0, int c1, int c2, void *bar, int line);
void kg_emu_wgmma(int type, int n, unsigned long long da, unsigned long long db, int scale_d, int ta, int tb, float **d, int line);
void kg_emu_wgmma_sync(const char *what, int line);

#endif
