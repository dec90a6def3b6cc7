/* codegen-cuda/prelude_tc.h — the tensor-core part of the prelude (KG_CUDA_PRELUDE_TC), emitted
 * into a translation unit only when one of its kernels uses dynamic shared memory or a
 * tensor-core instruction (kernel IR: KX_SMEM, KS_SMEM_ST, KS_TC, TC_PACK2, TF32_RNA).
 *
 * Every instruction is a macro with two bodies: the PTX (inline asm) under NVRTC, and a call of
 * the emulator's implementation (codegen-cuda/kg_emu_tc.h, which follows the PTX ISA's fragment
 * tables) under the host compiler. Fragment registers are `int` (packed f16x2 / bf16x2, tf32
 * bits) and `float` (accumulators) variables passed by name: the asm binds them as registers,
 * the emulator takes their addresses. Shared memory is the kernel's dynamic shared memory
 * `kg_smem` (1024-byte aligned: the swizzle patterns repeat every 1024 bytes), addressed by
 * byte offsets.
 *   KG_MMA_F16 / KG_MMA_BF16 (d0..d3, a0..a3, b0, b1)  mma.sync.aligned.m16n8k16.row.col.f32.X.X.f32, D += A B
 *   KG_MMA_TF32 (d0..d3, a0..a3, b0, b1)               mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
 *   KG_LDSM{1,2,4}[T] (d..., p)                       ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16
 *   KG_CP_ASYNC16 (dst, src, n)                       cp.async.cg.shared.global 16 bytes, src-size n
 *   KG_CP_COMMIT () / KG_CP_WAIT (n)                  cp.async.commit_group / cp.async.wait_group n
 *   kg_tf32 (x)                                       cvt.rna.tf32.f32
 *   kg_pack_h2 / kg_pack_bf2 (a, b)                   two floats rounded and packed, a in the low half
 *   KG_MBAR_INIT / KG_MBAR_ARRIVE_TX / KG_MBAR_WAIT (bar, ...)  mbarrier.init, arrive.expect_tx, try_wait.parity loop
 *   KG_TMA_LOAD_{2,3}D (dst, map, c0, c1, c2, bar)             cp.async.bulk.tensor tile load, complete_tx on bar
 *   KG_FENCE_INIT ()                                          fence.mbarrier_init.release.cluster
 *   KG_WG_FENCE / KG_WG_COMMIT / KG_WG_WAIT (n)                wgmma.fence / commit_group / wait_group
 *   kg_tmap                                                   a TMA tensor map parameter (__grid_constant__)
 * (wgmma.mma_async itself is printed by cuda_tc.c.) The PTX needs sm_80 (mma with bf16 / tf32,
 * ldmatrix, cp.async), sm_90 (mbarrier transactions, TMA) and sm_90a (wgmma); under older
 * targets the Hopper macros trap: the scheduler never gives those kernels to such a GPU.
 */
#ifndef KG_PRELUDE_TC_H
#define KG_PRELUDE_TC_H

#define KG_CUDA_PRELUDE_TC_1 \
"#ifdef __CUDACC__\n" \
"#define KG_SMEM_DECL extern __shared__ __align__(1024) unsigned char kg_smem[]\n" \
"KG_DEV unsigned kg_saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }\n" \
"#define KG_MMA_(T, d0, d1, d2, d3, a0, a1, a2, a3, b0, b1) asm(\"mma.sync.aligned.\" T \" {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" \\\n" \
"    : \"+f\"(d0), \"+f\"(d1), \"+f\"(d2), \"+f\"(d3) : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1))\n" \
"#define KG_MMA_F16(...) KG_MMA_(\"m16n8k16.row.col.f32.f16.f16.f32\", __VA_ARGS__)\n" \
"#define KG_MMA_BF16(...) KG_MMA_(\"m16n8k16.row.col.f32.bf16.bf16.f32\", __VA_ARGS__)\n" \
"#define KG_MMA_TF32(...) KG_MMA_(\"m16n8k8.row.col.f32.tf32.tf32.f32\", __VA_ARGS__)\n" \
"#define KG_LDSM1(d0, p) asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(d0) : \"r\"(kg_saddr(p)))\n" \
"#define KG_LDSM2(d0, d1, p) asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\" : \"=r\"(d0), \"=r\"(d1) : \"r\"(kg_saddr(p)))\n" \
"#define KG_LDSM4(d0, d1, d2, d3, p) asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\" \\\n" \
"    : \"=r\"(d0), \"=r\"(d1), \"=r\"(d2), \"=r\"(d3) : \"r\"(kg_saddr(p)))\n" \
"#define KG_LDSM1T(d0, p) asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\" : \"=r\"(d0) : \"r\"(kg_saddr(p)))\n" \
"#define KG_LDSM2T(d0, d1, p) asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\" : \"=r\"(d0), \"=r\"(d1) : \"r\"(kg_saddr(p)))\n" \
"#define KG_LDSM4T(d0, d1, d2, d3, p) asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\" \\\n" \
"    : \"=r\"(d0), \"=r\"(d1), \"=r\"(d2), \"=r\"(d3) : \"r\"(kg_saddr(p)))\n" \
"#define KG_CP_ASYNC16(dst, src, n) asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" :: \"r\"(kg_saddr(dst)), \"l\"(src), \"r\"(n))\n" \
"#define KG_CP_COMMIT() asm volatile(\"cp.async.commit_group;\")\n" \
"#define KG_CP_WAIT(n) asm volatile(\"cp.async.wait_group %0;\" :: \"n\"(n))\n" \
"KG_DEV float kg_tf32(float x) { unsigned r; asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x)); return __uint_as_float(r); }\n" \
""
#define KG_CUDA_PRELUDE_TC_HOPPER \
"#ifdef __CUDACC__\n" \
"typedef struct __align__(64) kg_tmap { unsigned long long v[16]; } kg_tmap;\n" \
"#if __CUDA_ARCH__ >= 900\n" \
"#define KG_MBAR_INIT(bar, n) asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(kg_saddr(bar)), \"r\"(n) : \"memory\")\n" \
"#define KG_MBAR_ARRIVE_TX(bar, tx) asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" :: \"r\"(kg_saddr(bar)), \"r\"(tx) : \"memory\")\n" \
"#define KG_MBAR_WAIT(bar, parity) asm volatile(\"{\\n.reg .pred p;\\nKG_MBAR_WAIT_LOOP:\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra KG_MBAR_WAIT_LOOP;\\n}\" \\\n" \
"    :: \"r\"(kg_saddr(bar)), \"r\"(parity) : \"memory\")\n" \
"#define KG_TMA_LOAD_2D(dst, map, c0, c1, c2, bar) asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\" \\\n" \
"    :: \"r\"(kg_saddr(dst)), \"l\"((unsigned long long)(map)), \"r\"(c0), \"r\"(c1), \"r\"(kg_saddr(bar)) : \"memory\")\n" \
"#define KG_TMA_LOAD_3D(dst, map, c0, c1, c2, bar) asm volatile(\"cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\" \\\n" \
"    :: \"r\"(kg_saddr(dst)), \"l\"((unsigned long long)(map)), \"r\"(c0), \"r\"(c1), \"r\"(c2), \"r\"(kg_saddr(bar)) : \"memory\")\n" \
"#define KG_FENCE_INIT() asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\")\n" \
"#else\n" \
"#define KG_MBAR_INIT(bar, n) __trap()\n" \
"#define KG_MBAR_ARRIVE_TX(bar, tx) __trap()\n" \
"#define KG_MBAR_WAIT(bar, parity) __trap()\n" \
"#define KG_TMA_LOAD_2D(dst, map, c0, c1, c2, bar) __trap()\n" \
"#define KG_TMA_LOAD_3D(dst, map, c0, c1, c2, bar) __trap()\n" \
"#define KG_FENCE_INIT() __trap()\n" \
"#endif\n" \
"#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n" \
"#define KG_WG_FENCE() asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\")\n" \
"#define KG_WG_COMMIT() asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\")\n" \
"#define KG_WG_WAIT(n) asm volatile(\"wgmma.wait_group.sync.aligned %0;\" :: \"n\"(n) : \"memory\")\n" \
"#define KG_SETMAXNREG_INC(n) asm volatile(\"setmaxnreg.inc.sync.aligned.u32 %0;\" :: \"n\"(n))\n" \
"#define KG_SETMAXNREG_DEC(n) asm volatile(\"setmaxnreg.dec.sync.aligned.u32 %0;\" :: \"n\"(n))\n" \
"#else\n" \
"#define KG_SETMAXNREG_INC(n) __trap()\n" \
"#define KG_SETMAXNREG_DEC(n) __trap()\n" \
"#define KG_WG_FENCE() __trap()\n" \
"#define KG_WG_COMMIT() __trap()\n" \
"#define KG_WG_WAIT(n) __trap()\n" \
"#endif\n" \
"#endif\n" \
""
#define KG_CUDA_PRELUDE_TC_2 \
"#else\n" \
"#define KG_SMEM_DECL unsigned char *kg_smem = (unsigned char *)kg_emu_dyn_smem()\n" \
"#define KG_MMA_(T, d0, d1, d2, d3, a0, a1, a2, a3, b0, b1) kg_emu_mma(T, &(d0), &(d1), &(d2), &(d3), (unsigned)(a0), \\\n" \
"    (unsigned)(a1), (unsigned)(a2), (unsigned)(a3), (unsigned)(b0), (unsigned)(b1), __LINE__)\n" \
"#define KG_MMA_F16(...) KG_MMA_(0, __VA_ARGS__)\n" \
"#define KG_MMA_BF16(...) KG_MMA_(1, __VA_ARGS__)\n" \
"#define KG_MMA_TF32(...) KG_MMA_(2, __VA_ARGS__)\n" \
"#define KG_LDSM_(n, t, d0, d1, d2, d3, p) kg_emu_ldsm(n, t, (unsigned *)(d0), (unsigned *)(d1), (unsigned *)(d2), (unsigned *)(d3), (p), __LINE__)\n" \
"#define KG_LDSM1(d0, p) KG_LDSM_(1, 0, &(d0), 0, 0, 0, p)\n" \
"#define KG_LDSM2(d0, d1, p) KG_LDSM_(2, 0, &(d0), &(d1), 0, 0, p)\n" \
"#define KG_LDSM4(d0, d1, d2, d3, p) KG_LDSM_(4, 0, &(d0), &(d1), &(d2), &(d3), p)\n" \
"#define KG_LDSM1T(d0, p) KG_LDSM_(1, 1, &(d0), 0, 0, 0, p)\n" \
"#define KG_LDSM2T(d0, d1, p) KG_LDSM_(2, 1, &(d0), &(d1), 0, 0, p)\n" \
"#define KG_LDSM4T(d0, d1, d2, d3, p) KG_LDSM_(4, 1, &(d0), &(d1), &(d2), &(d3), p)\n" \
"#define KG_CP_ASYNC16(dst, src, n) kg_emu_cp_async((dst), (src), 16, (unsigned)(n), 1, __LINE__)\n" \
"#define KG_CP_COMMIT() kg_emu_cp_async_commit()\n" \
"#define KG_CP_WAIT(n) kg_emu_cp_async_wait(n)\n" \
"KG_DEV float kg_tf32(float x) { return kg_emu_tf32(x); }\n" \
"KG_DEV unsigned kg_saddr(const void *p) { return kg_emu_saddr(p); }\n" \
"typedef kg_emu_tmap kg_tmap;\n" \
"#define __grid_constant__\n" \
"#define KG_MBAR_INIT(bar, n) kg_emu_mbar_init((bar), (n), __LINE__)\n" \
"#define KG_MBAR_ARRIVE_TX(bar, tx) kg_emu_mbar_arrive_tx((bar), (tx), __LINE__)\n" \
"#define KG_MBAR_WAIT(bar, parity) kg_emu_mbar_wait((bar), (parity), __LINE__)\n" \
"#define KG_TMA_LOAD_2D(dst, map, c0, c1, c2, bar) kg_emu_tma_load((dst), (map), (c0), (c1), 0, (bar), __LINE__)\n" \
"#define KG_TMA_LOAD_3D(dst, map, c0, c1, c2, bar) kg_emu_tma_load((dst), (map), (c0), (c1), (c2), (bar), __LINE__)\n" \
"#define KG_FENCE_INIT() ((void)0)\n" \
"#define KG_WG_FENCE() kg_emu_wgmma_sync(\"wgmma.fence\", __LINE__)\n" \
"#define KG_WG_COMMIT() kg_emu_wgmma_sync(\"wgmma.commit_group\", __LINE__)\n" \
"#define KG_WG_WAIT(n) kg_emu_wgmma_sync(\"wgmma.wait_group\", __LINE__)\n" \
"#define KG_SETMAXNREG_INC(n) kg_emu_wgmma_sync(\"setmaxnreg.inc\", __LINE__)\n" \
"#define KG_SETMAXNREG_DEC(n) kg_emu_wgmma_sync(\"setmaxnreg.dec\", __LINE__)\n" \
"#endif\n" \
"KG_DEV int kg_pack_h2(float a, float b) { return (int)((unsigned)kg_f2h(a) | (unsigned)kg_f2h(b) << 16); }\n" \
"KG_DEV int kg_pack_bf2(float a, float b) { return (int)((unsigned)kg_f2bf(a) | (unsigned)kg_f2bf(b) << 16); }\n" \
""

#endif
