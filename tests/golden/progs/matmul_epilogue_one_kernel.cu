/* kgen 0.1.0: linear_gelu_residual — 1 kernel. Generated code: edits are lost. */
#ifdef __CUDACC__
#define KG_KERNEL extern "C" __global__
#define KG_IVDEP
#define KG_DEV static __device__ __forceinline__ __attribute__((unused))
KG_DEV float kg_h2f(unsigned short h) { float f; asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h)); return f; }
KG_DEV unsigned short kg_f2h(float f) { unsigned short h; asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f)); return h; }
#else
#define KG_KERNEL static
#define KG_IVDEP _Pragma("GCC ivdep")
#define __launch_bounds__(...)
#define KG_DEV static inline __attribute__((unused))
KG_DEV float kg_h2f(unsigned short h) { return kg_emu_h2f(h); }
KG_DEV unsigned short kg_f2h(float f) { return kg_emu_f2h(f); }
#endif
#define KG_INF_F __int_as_float(0x7f800000)
#define KG_NAN_F __int_as_float(0x7fffffff)
#define KG_INF_D __longlong_as_double(0x7ff0000000000000LL)
#define KG_NAN_D __longlong_as_double(0x7fffffffffffffffLL)
KG_DEV float kg_bf2f(unsigned short h) { return __uint_as_float((unsigned int)h << 16); }
KG_DEV unsigned short kg_f2bf(float f) {
  unsigned int x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (unsigned short)(x >> 16);
}
KG_DEV float kg_rh(float x) { return kg_h2f(kg_f2h(x)); }
KG_DEV float kg_rbf(float x) { return kg_bf2f(kg_f2bf(x)); }
KG_DEV float kg_maxf(float a, float b) { return (a != a || b != b) ? KG_NAN_F : (a > b ? a : b); }
KG_DEV float kg_minf(float a, float b) { return (a != a || b != b) ? KG_NAN_F : (a < b ? a : b); }
KG_DEV double kg_maxd(double a, double b) { return (a != a || b != b) ? KG_NAN_D : (a > b ? a : b); }
KG_DEV double kg_mind(double a, double b) { return (a != a || b != b) ? KG_NAN_D : (a < b ? a : b); }
KG_DEV float kg_remf(float a, float b) { float r = fmodf(a, b); if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b; return r; }
KG_DEV double kg_remd(double a, double b) { double r = fmod(a, b); if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b; return r; }
KG_DEV float kg_signf(float a) { return a != a ? a : (float)((a > 0.0f) - (a < 0.0f)); }
KG_DEV double kg_signd(double a) { return a != a ? a : (double)((a > 0.0) - (a < 0.0)); }
KG_DEV float kg_lerpf(float a, float b, float w) { return w < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w); }
KG_DEV double kg_lerpd(double a, double b, double w) { return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1.0 - w); }
KG_DEV float kg_xlogyf(float a, float b) { return b != b ? b : (a == 0.0f ? 0.0f : a * logf(b)); }
KG_DEV double kg_xlogyd(double a, double b) { return b != b ? b : (a == 0.0 ? 0.0 : a * log(b)); }
KG_DEV int kg_isclosed(double a, double b, double rtol, double atol, int eqnan) {
  if (a == b) return 1;
  if (a != a || b != b) return eqnan && a != a && b != b;
  if (isinf(a) || isinf(b)) return 0;
  return fabs(a - b) <= atol + rtol * fabs(b);
}
KG_DEV float kg_softplusf(float a, float beta, float th) { return a * beta > th ? a : log1pf(expf(a * beta)) / beta; }
KG_DEV double kg_softplusd(double a, double beta, double th) { return a * beta > th ? a : log1p(exp(a * beta)) / beta; }
KG_DEV float kg_logsigmoidf(float a) { return (a < 0.0f ? a : 0.0f) - log1pf(expf(-fabsf(a))); }
KG_DEV double kg_logsigmoidd(double a) { return (a < 0.0 ? a : 0.0) - log1p(exp(-fabs(a))); }
KG_DEV float kg_nan2numf(float a, float n, float p, float m) { return a != a ? n : (a == KG_INF_F ? p : (a == -KG_INF_F ? m : a)); }
KG_DEV double kg_nan2numd(double a, double n, double p, double m) { return a != a ? n : (a == KG_INF_D ? p : (a == -KG_INF_D ? m : a)); }
#define KG_INT_HELPERS(S, T, U, MIN, MAX, BITS)                                            \
KG_DEV T kg_idiv_##S(T a, T b) { return b == 0 ? (T)0 : (b == -1 ? (T)(0u - (U)a) : (T)(a / b)); } \
KG_DEV T kg_imod_##S(T a, T b) { return (b == 0 || b == -1) ? (T)0 : (T)(a % b); }          \
KG_DEV T kg_fdiv_##S(T a, T b) {                                                          \
  if (b == 0) return (T)0; if (b == -1) return (T)(0u - (U)a);                             \
  T q = (T)(a / b); if ((a % b != 0) && ((a < 0) != (b < 0))) q = (T)(q - 1); return q; }  \
KG_DEV T kg_frem_##S(T a, T b) {                                                          \
  if (b == 0 || b == -1) return (T)0;                                                     \
  T r = (T)(a % b); if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b); return r; }        \
KG_DEV T kg_ipow_##S(T a, T e) {                                                          \
  if (e < 0) return a == 1 ? (T)1 : (a == -1 ? ((e & 1) ? (T)-1 : (T)1) : (T)0);         \
  U r = 1u, x = (U)a; while (e) { if (e & 1) r *= x; x *= x; e = (T)(e >> 1); } return (T)r; } \
KG_DEV T kg_f2i_##S(double f) { return f != f ? (T)0 : (f <= (double)(MIN) ? (T)(MIN) : (f >= (double)(MAX) ? (T)(MAX) : (T)f)); } \
KG_DEV T kg_shl_##S(T a, T b) { return (b < 0 || b >= BITS) ? (T)0 : (T)((U)a << b); }     \
KG_DEV T kg_shr_##S(T a, T b) { return (b < 0 || b >= BITS) ? (T)(a < 0 ? -1 : 0) : (T)(a >> b); } \
KG_DEV T kg_nshl_##S(T a, int b) { return (T)((U)a << (b & (BITS - 1))); }                \
KG_DEV T kg_nshr_##S(T a, int b) { return (T)(a >> (b & (BITS - 1))); }
KG_INT_HELPERS(i8, signed char, unsigned int, -128, 127, 8)
KG_INT_HELPERS(u8, unsigned char, unsigned int, 0, 255, 8)
KG_INT_HELPERS(i16, short, unsigned int, -32768, 32767, 16)
KG_INT_HELPERS(i32, int, unsigned int, (-2147483647 - 1), 2147483647, 32)
KG_INT_HELPERS(i64, long long, unsigned long long, (-9223372036854775807LL - 1), 9223372036854775807LL, 64)
#ifdef __CUDACC__
#define KG_SMEM_DECL extern __shared__ __align__(1024) unsigned char kg_smem[]
KG_DEV unsigned kg_saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
#define KG_MMA_(T, d0, d1, d2, d3, a0, a1, a2, a3, b0, b1) asm("mma.sync.aligned." T " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
    : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))
#define KG_MMA_F16(...) KG_MMA_("m16n8k16.row.col.f32.f16.f16.f32", __VA_ARGS__)
#define KG_MMA_BF16(...) KG_MMA_("m16n8k16.row.col.f32.bf16.bf16.f32", __VA_ARGS__)
#define KG_MMA_TF32(...) KG_MMA_("m16n8k8.row.col.f32.tf32.tf32.f32", __VA_ARGS__)
#define KG_LDSM1(d0, p) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(d0) : "r"(kg_saddr(p)))
#define KG_LDSM2(d0, d1, p) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(d0), "=r"(d1) : "r"(kg_saddr(p)))
#define KG_LDSM4(d0, d1, d2, d3, p) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" \
    : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(kg_saddr(p)))
#define KG_LDSM1T(d0, p) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(d0) : "r"(kg_saddr(p)))
#define KG_LDSM2T(d0, d1, p) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(d0), "=r"(d1) : "r"(kg_saddr(p)))
#define KG_LDSM4T(d0, d1, d2, d3, p) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" \
    : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(kg_saddr(p)))
#define KG_CP_ASYNC16(dst, src, n) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(kg_saddr(dst)), "l"(src), "r"(n))
#define KG_CP_COMMIT() asm volatile("cp.async.commit_group;")
#define KG_CP_WAIT(n) asm volatile("cp.async.wait_group %0;" :: "n"(n))
KG_DEV float kg_tf32(float x) { unsigned r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); return __uint_as_float(r); }
#ifdef __CUDACC__
typedef struct __align__(64) kg_tmap { unsigned long long v[16]; } kg_tmap;
#if __CUDA_ARCH__ >= 900
#define KG_MBAR_INIT(bar, n) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(kg_saddr(bar)), "r"(n) : "memory")
#define KG_MBAR_ARRIVE_TX(bar, tx) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(kg_saddr(bar)), "r"(tx) : "memory")
#define KG_MBAR_WAIT(bar, parity) asm volatile("{\n.reg .pred p;\nKG_MBAR_WAIT_LOOP:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra KG_MBAR_WAIT_LOOP;\n}" \
    :: "r"(kg_saddr(bar)), "r"(parity) : "memory")
#define KG_TMA_LOAD_2D(dst, map, c0, c1, c2, bar) asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" \
    :: "r"(kg_saddr(dst)), "l"((unsigned long long)(map)), "r"(c0), "r"(c1), "r"(kg_saddr(bar)) : "memory")
#define KG_TMA_LOAD_3D(dst, map, c0, c1, c2, bar) asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" \
    :: "r"(kg_saddr(dst)), "l"((unsigned long long)(map)), "r"(c0), "r"(c1), "r"(c2), "r"(kg_saddr(bar)) : "memory")
#define KG_FENCE_INIT() asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory")
#else
#define KG_MBAR_INIT(bar, n) __trap()
#define KG_MBAR_ARRIVE_TX(bar, tx) __trap()
#define KG_MBAR_WAIT(bar, parity) __trap()
#define KG_TMA_LOAD_2D(dst, map, c0, c1, c2, bar) __trap()
#define KG_TMA_LOAD_3D(dst, map, c0, c1, c2, bar) __trap()
#define KG_FENCE_INIT() __trap()
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KG_WG_FENCE() asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define KG_WG_COMMIT() asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory")
#define KG_WG_WAIT(n) asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(n) : "memory")
#define KG_SETMAXNREG_INC(n) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(n))
#define KG_SETMAXNREG_DEC(n) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(n))
#else
#define KG_SETMAXNREG_INC(n) __trap()
#define KG_SETMAXNREG_DEC(n) __trap()
#define KG_WG_FENCE() __trap()
#define KG_WG_COMMIT() __trap()
#define KG_WG_WAIT(n) __trap()
#endif
#endif
#else
#define KG_SMEM_DECL unsigned char *kg_smem = (unsigned char *)kg_emu_dyn_smem()
#define KG_MMA_(T, d0, d1, d2, d3, a0, a1, a2, a3, b0, b1) kg_emu_mma(T, &(d0), &(d1), &(d2), &(d3), (unsigned)(a0), \
    (unsigned)(a1), (unsigned)(a2), (unsigned)(a3), (unsigned)(b0), (unsigned)(b1), __LINE__)
#define KG_MMA_F16(...) KG_MMA_(0, __VA_ARGS__)
#define KG_MMA_BF16(...) KG_MMA_(1, __VA_ARGS__)
#define KG_MMA_TF32(...) KG_MMA_(2, __VA_ARGS__)
#define KG_LDSM_(n, t, d0, d1, d2, d3, p) kg_emu_ldsm(n, t, (unsigned *)(d0), (unsigned *)(d1), (unsigned *)(d2), (unsigned *)(d3), (p), __LINE__)
#define KG_LDSM1(d0, p) KG_LDSM_(1, 0, &(d0), 0, 0, 0, p)
#define KG_LDSM2(d0, d1, p) KG_LDSM_(2, 0, &(d0), &(d1), 0, 0, p)
#define KG_LDSM4(d0, d1, d2, d3, p) KG_LDSM_(4, 0, &(d0), &(d1), &(d2), &(d3), p)
#define KG_LDSM1T(d0, p) KG_LDSM_(1, 1, &(d0), 0, 0, 0, p)
#define KG_LDSM2T(d0, d1, p) KG_LDSM_(2, 1, &(d0), &(d1), 0, 0, p)
#define KG_LDSM4T(d0, d1, d2, d3, p) KG_LDSM_(4, 1, &(d0), &(d1), &(d2), &(d3), p)
#define KG_CP_ASYNC16(dst, src, n) kg_emu_cp_async((dst), (src), 16, (unsigned)(n), 1, __LINE__)
#define KG_CP_COMMIT() kg_emu_cp_async_commit()
#define KG_CP_WAIT(n) kg_emu_cp_async_wait(n)
KG_DEV float kg_tf32(float x) { return kg_emu_tf32(x); }
KG_DEV unsigned kg_saddr(const void *p) { return kg_emu_saddr(p); }
typedef kg_emu_tmap kg_tmap;
#define __grid_constant__
#define KG_MBAR_INIT(bar, n) kg_emu_mbar_init((bar), (n), __LINE__)
#define KG_MBAR_ARRIVE_TX(bar, tx) kg_emu_mbar_arrive_tx((bar), (tx), __LINE__)
#define KG_MBAR_WAIT(bar, parity) kg_emu_mbar_wait((bar), (parity), __LINE__)
#define KG_TMA_LOAD_2D(dst, map, c0, c1, c2, bar) kg_emu_tma_load((dst), (map), (c0), (c1), 0, (bar), __LINE__)
#define KG_TMA_LOAD_3D(dst, map, c0, c1, c2, bar) kg_emu_tma_load((dst), (map), (c0), (c1), (c2), (bar), __LINE__)
#define KG_FENCE_INIT() ((void)0)
#define KG_WG_FENCE() kg_emu_wgmma_sync("wgmma.fence", __LINE__)
#define KG_WG_COMMIT() kg_emu_wgmma_sync("wgmma.commit_group", __LINE__)
#define KG_WG_WAIT(n) kg_emu_wgmma_sync("wgmma.wait_group", __LINE__)
#define KG_SETMAXNREG_INC(n) kg_emu_wgmma_sync("setmaxnreg.inc", __LINE__)
#define KG_SETMAXNREG_DEC(n) kg_emu_wgmma_sync("setmaxnreg.dec", __LINE__)
#endif
KG_DEV int kg_pack_h2(float a, float b) { return (int)((unsigned)kg_f2h(a) | (unsigned)kg_f2h(b) << 16); }
KG_DEV int kg_pack_bf2(float a, float b) { return (int)((unsigned)kg_f2bf(a) | (unsigned)kg_f2bf(b) << 16); }

/* linear_gelu_residual_k0: schedule matmul.tc128n64w8.f32.3xtf32.ak.async.bk.async, index int32, block 256, 1 element per thread */
KG_KERNEL void linear_gelu_residual_k0(const float *in0, const float *in1, const float *in2, const float *in3, float *out0, int size0, int size1, int k, int so0_0, int so0_1, int os0_0, int os0_1, int os1_0, int os1_1, int os2_0, int os3_0, int os3_1) {
  KG_SMEM_DECL; /* 49152 bytes */
  int v0_tid = (int)threadIdx.x;
  int v1_lane = (v0_tid % 32);
  int v2_warp = (v0_tid / 32);
  int v3_wm = (v2_warp / 2);
  int v4_wn = (v2_warp % 2);
  int v5_nbatch = 1;
  int v6_mtiles = ((size0 + 127) / 128);
  int v7_n0 = ((int)blockIdx.x * 64);
  for (int v8_bz = (int)blockIdx.z; v8_bz < v5_nbatch; v8_bz += (int)gridDim.z) {
    for (int v9_my = (int)blockIdx.y; v9_my < v6_mtiles; v9_my += (int)gridDim.y) {
      int v10_m0 = (v9_my * 128);
      /* tensor cores: accumulators (C fragments), staging registers */
      float v11_acc = 0;
      float v12_acc = 0;
      float v13_acc = 0;
      float v14_acc = 0;
      float v15_acc = 0;
      float v16_acc = 0;
      float v17_acc = 0;
      float v18_acc = 0;
      float v19_acc = 0;
      float v20_acc = 0;
      float v21_acc = 0;
      float v22_acc = 0;
      float v23_acc = 0;
      float v24_acc = 0;
      float v25_acc = 0;
      float v26_acc = 0;
      float v27_acc = 0;
      float v28_acc = 0;
      float v29_acc = 0;
      float v30_acc = 0;
      float v31_acc = 0;
      float v32_acc = 0;
      float v33_acc = 0;
      float v34_acc = 0;
      float v35_acc = 0;
      float v36_acc = 0;
      float v37_acc = 0;
      float v38_acc = 0;
      float v39_acc = 0;
      float v40_acc = 0;
      float v41_acc = 0;
      float v42_acc = 0;
      float v43_part = 0;
      float v44_part = 0;
      float v45_part = 0;
      float v46_part = 0;
      float v47_part = 0;
      float v48_part = 0;
      float v49_part = 0;
      float v50_part = 0;
      float v51_part = 0;
      float v52_part = 0;
      float v53_part = 0;
      float v54_part = 0;
      float v55_part = 0;
      float v56_part = 0;
      float v57_part = 0;
      float v58_part = 0;
      float v59_part = 0;
      float v60_part = 0;
      float v61_part = 0;
      float v62_part = 0;
      float v63_part = 0;
      float v64_part = 0;
      float v65_part = 0;
      float v66_part = 0;
      float v67_part = 0;
      float v68_part = 0;
      float v69_part = 0;
      float v70_part = 0;
      float v71_part = 0;
      float v72_part = 0;
      float v73_part = 0;
      float v74_part = 0;
      int v75_ktiles = ((k + 15) / 16);
      /* pipeline prologue: the first stages */
      if ((0 < v75_ktiles)) {
        int v76_cr = ((v0_tid + 0) / 4);
        int v77_ck = (((v0_tid + 0) % 4) * 4);
        int v78_gr = (v10_m0 + v76_cr);
        int v79_gk = ((0 * 16) + v77_ck);
        int v80_in = ((v78_gr < size0) && (v79_gk < k));
        int v81_nb = (v80_in ? (((((int)((unsigned int)k - (unsigned int)v79_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v79_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v79_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v79_gk)) : 0) : 4) * 4) : 0);
        int v82_off = (((v80_in ? v78_gr : 0) * os0_0) + ((v80_in ? v79_gk : 0) * os0_1));
        KG_CP_ASYNC16(kg_smem + ((0 + (0 * 12288)) + ((int)(((v76_cr * 64) + (v77_ck * 4)) ^ ((int)((((v76_cr * 64) + (v77_ck * 4)) / 8) & 48))))), in0 + v82_off, v81_nb);
        int v83_cr = ((v0_tid + 256) / 4);
        int v84_ck = (((v0_tid + 256) % 4) * 4);
        int v85_gr = (v10_m0 + v83_cr);
        int v86_gk = ((0 * 16) + v84_ck);
        int v87_in = ((v85_gr < size0) && (v86_gk < k));
        int v88_nb = (v87_in ? (((((int)((unsigned int)k - (unsigned int)v86_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v86_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v86_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v86_gk)) : 0) : 4) * 4) : 0);
        int v89_off = (((v87_in ? v85_gr : 0) * os0_0) + ((v87_in ? v86_gk : 0) * os0_1));
        KG_CP_ASYNC16(kg_smem + ((0 + (0 * 12288)) + ((int)(((v83_cr * 64) + (v84_ck * 4)) ^ ((int)((((v83_cr * 64) + (v84_ck * 4)) / 8) & 48))))), in0 + v89_off, v88_nb);
        int v90_cr = ((v0_tid + 0) / 4);
        int v91_ck = (((v0_tid + 0) % 4) * 4);
        int v92_gr = (v7_n0 + v90_cr);
        int v93_gk = ((0 * 16) + v91_ck);
        int v94_in = ((v92_gr < size1) && (v93_gk < k));
        int v95_nb = (v94_in ? (((((int)((unsigned int)k - (unsigned int)v93_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v93_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v93_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v93_gk)) : 0) : 4) * 4) : 0);
        int v96_off = (((v94_in ? v92_gr : 0) * os1_0) + ((v94_in ? v93_gk : 0) * os1_1));
        KG_CP_ASYNC16(kg_smem + ((8192 + (0 * 12288)) + ((int)(((v90_cr * 64) + (v91_ck * 4)) ^ ((int)((((v90_cr * 64) + (v91_ck * 4)) / 8) & 48))))), in1 + v96_off, v95_nb);
      }
      KG_CP_COMMIT();
      if ((1 < v75_ktiles)) {
        int v97_cr = ((v0_tid + 0) / 4);
        int v98_ck = (((v0_tid + 0) % 4) * 4);
        int v99_gr = (v10_m0 + v97_cr);
        int v100_gk = ((1 * 16) + v98_ck);
        int v101_in = ((v99_gr < size0) && (v100_gk < k));
        int v102_nb = (v101_in ? (((((int)((unsigned int)k - (unsigned int)v100_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v100_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v100_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v100_gk)) : 0) : 4) * 4) : 0);
        int v103_off = (((v101_in ? v99_gr : 0) * os0_0) + ((v101_in ? v100_gk : 0) * os0_1));
        KG_CP_ASYNC16(kg_smem + ((0 + (1 * 12288)) + ((int)(((v97_cr * 64) + (v98_ck * 4)) ^ ((int)((((v97_cr * 64) + (v98_ck * 4)) / 8) & 48))))), in0 + v103_off, v102_nb);
        int v104_cr = ((v0_tid + 256) / 4);
        int v105_ck = (((v0_tid + 256) % 4) * 4);
        int v106_gr = (v10_m0 + v104_cr);
        int v107_gk = ((1 * 16) + v105_ck);
        int v108_in = ((v106_gr < size0) && (v107_gk < k));
        int v109_nb = (v108_in ? (((((int)((unsigned int)k - (unsigned int)v107_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v107_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v107_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v107_gk)) : 0) : 4) * 4) : 0);
        int v110_off = (((v108_in ? v106_gr : 0) * os0_0) + ((v108_in ? v107_gk : 0) * os0_1));
        KG_CP_ASYNC16(kg_smem + ((0 + (1 * 12288)) + ((int)(((v104_cr * 64) + (v105_ck * 4)) ^ ((int)((((v104_cr * 64) + (v105_ck * 4)) / 8) & 48))))), in0 + v110_off, v109_nb);
        int v111_cr = ((v0_tid + 0) / 4);
        int v112_ck = (((v0_tid + 0) % 4) * 4);
        int v113_gr = (v7_n0 + v111_cr);
        int v114_gk = ((1 * 16) + v112_ck);
        int v115_in = ((v113_gr < size1) && (v114_gk < k));
        int v116_nb = (v115_in ? (((((int)((unsigned int)k - (unsigned int)v114_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v114_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v114_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v114_gk)) : 0) : 4) * 4) : 0);
        int v117_off = (((v115_in ? v113_gr : 0) * os1_0) + ((v115_in ? v114_gk : 0) * os1_1));
        KG_CP_ASYNC16(kg_smem + ((8192 + (1 * 12288)) + ((int)(((v111_cr * 64) + (v112_ck * 4)) ^ ((int)((((v111_cr * 64) + (v112_ck * 4)) / 8) & 48))))), in1 + v117_off, v116_nb);
      }
      KG_CP_COMMIT();
      if ((2 < v75_ktiles)) {
        int v118_cr = ((v0_tid + 0) / 4);
        int v119_ck = (((v0_tid + 0) % 4) * 4);
        int v120_gr = (v10_m0 + v118_cr);
        int v121_gk = ((2 * 16) + v119_ck);
        int v122_in = ((v120_gr < size0) && (v121_gk < k));
        int v123_nb = (v122_in ? (((((int)((unsigned int)k - (unsigned int)v121_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v121_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v121_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v121_gk)) : 0) : 4) * 4) : 0);
        int v124_off = (((v122_in ? v120_gr : 0) * os0_0) + ((v122_in ? v121_gk : 0) * os0_1));
        KG_CP_ASYNC16(kg_smem + ((0 + (2 * 12288)) + ((int)(((v118_cr * 64) + (v119_ck * 4)) ^ ((int)((((v118_cr * 64) + (v119_ck * 4)) / 8) & 48))))), in0 + v124_off, v123_nb);
        int v125_cr = ((v0_tid + 256) / 4);
        int v126_ck = (((v0_tid + 256) % 4) * 4);
        int v127_gr = (v10_m0 + v125_cr);
        int v128_gk = ((2 * 16) + v126_ck);
        int v129_in = ((v127_gr < size0) && (v128_gk < k));
        int v130_nb = (v129_in ? (((((int)((unsigned int)k - (unsigned int)v128_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v128_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v128_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v128_gk)) : 0) : 4) * 4) : 0);
        int v131_off = (((v129_in ? v127_gr : 0) * os0_0) + ((v129_in ? v128_gk : 0) * os0_1));
        KG_CP_ASYNC16(kg_smem + ((0 + (2 * 12288)) + ((int)(((v125_cr * 64) + (v126_ck * 4)) ^ ((int)((((v125_cr * 64) + (v126_ck * 4)) / 8) & 48))))), in0 + v131_off, v130_nb);
        int v132_cr = ((v0_tid + 0) / 4);
        int v133_ck = (((v0_tid + 0) % 4) * 4);
        int v134_gr = (v7_n0 + v132_cr);
        int v135_gk = ((2 * 16) + v133_ck);
        int v136_in = ((v134_gr < size1) && (v135_gk < k));
        int v137_nb = (v136_in ? (((((int)((unsigned int)k - (unsigned int)v135_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v135_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v135_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v135_gk)) : 0) : 4) * 4) : 0);
        int v138_off = (((v136_in ? v134_gr : 0) * os1_0) + ((v136_in ? v135_gk : 0) * os1_1));
        KG_CP_ASYNC16(kg_smem + ((8192 + (2 * 12288)) + ((int)(((v132_cr * 64) + (v133_ck * 4)) ^ ((int)((((v132_cr * 64) + (v133_ck * 4)) / 8) & 48))))), in1 + v138_off, v137_nb);
      }
      KG_CP_COMMIT();
      for (int v139_kt = 0; v139_kt < v75_ktiles; v139_kt += 1) {
        KG_CP_WAIT(2);
        __syncthreads();
        int v140_knext = (v139_kt + 3);
        int v141_sw = (v140_knext % 4);
        int v142_sr = (v139_kt % 4);
        int v143_more = (v140_knext < v75_ktiles);
        if (v143_more) {
          int v144_cr = ((v0_tid + 0) / 4);
          int v145_ck = (((v0_tid + 0) % 4) * 4);
          int v146_gr = (v10_m0 + v144_cr);
          int v147_gk = ((v140_knext * 16) + v145_ck);
          int v148_in = ((v146_gr < size0) && (v147_gk < k));
          int v149_nb = (v148_in ? (((((int)((unsigned int)k - (unsigned int)v147_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v147_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v147_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v147_gk)) : 0) : 4) * 4) : 0);
          int v150_off = (((v148_in ? v146_gr : 0) * os0_0) + ((v148_in ? v147_gk : 0) * os0_1));
          KG_CP_ASYNC16(kg_smem + ((0 + (v141_sw * 12288)) + ((int)(((v144_cr * 64) + (v145_ck * 4)) ^ ((int)((((v144_cr * 64) + (v145_ck * 4)) / 8) & 48))))), in0 + v150_off, v149_nb);
          int v151_cr = ((v0_tid + 256) / 4);
          int v152_ck = (((v0_tid + 256) % 4) * 4);
          int v153_gr = (v10_m0 + v151_cr);
          int v154_gk = ((v140_knext * 16) + v152_ck);
          int v155_in = ((v153_gr < size0) && (v154_gk < k));
          int v156_nb = (v155_in ? (((((int)((unsigned int)k - (unsigned int)v154_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v154_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v154_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v154_gk)) : 0) : 4) * 4) : 0);
          int v157_off = (((v155_in ? v153_gr : 0) * os0_0) + ((v155_in ? v154_gk : 0) * os0_1));
          KG_CP_ASYNC16(kg_smem + ((0 + (v141_sw * 12288)) + ((int)(((v151_cr * 64) + (v152_ck * 4)) ^ ((int)((((v151_cr * 64) + (v152_ck * 4)) / 8) & 48))))), in0 + v157_off, v156_nb);
          int v158_cr = ((v0_tid + 0) / 4);
          int v159_ck = (((v0_tid + 0) % 4) * 4);
          int v160_gr = (v7_n0 + v158_cr);
          int v161_gk = ((v140_knext * 16) + v159_ck);
          int v162_in = ((v160_gr < size1) && (v161_gk < k));
          int v163_nb = (v162_in ? (((((int)((unsigned int)k - (unsigned int)v161_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v161_gk)) : 0) < 4 ? (((int)((unsigned int)k - (unsigned int)v161_gk)) > 0 ? ((int)((unsigned int)k - (unsigned int)v161_gk)) : 0) : 4) * 4) : 0);
          int v164_off = (((v162_in ? v160_gr : 0) * os1_0) + ((v162_in ? v161_gk : 0) * os1_1));
          KG_CP_ASYNC16(kg_smem + ((8192 + (v141_sw * 12288)) + ((int)(((v158_cr * 64) + (v159_ck * 4)) ^ ((int)((((v158_cr * 64) + (v159_ck * 4)) / 8) & 48))))), in1 + v164_off, v163_nb);
        }
        KG_CP_COMMIT();
        int v165_fa = 0;
        int v166_fa = 0;
        int v167_fa = 0;
        int v168_fa = 0;
        int v169_fa = 0;
        int v170_fa = 0;
        int v171_fa = 0;
        int v172_fa = 0;
        int v173_fb = 0;
        int v174_fb = 0;
        int v175_fb = 0;
        int v176_fb = 0;
        int v177_fb = 0;
        int v178_fb = 0;
        int v179_fb = 0;
        int v180_fb = 0;
        int v181_sa = ((0 + (v142_sr * 12288)) + ((int)(((((((v3_wm * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((0 + (((v1_lane / 8) / 2) * 4)) * 4)) ^ ((int)((((((((v3_wm * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((0 + (((v1_lane / 8) / 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v165_fa, v166_fa, v167_fa, v168_fa, kg_smem + v181_sa);
        int v182_sa = ((0 + (v142_sr * 12288)) + ((int)(((((((v3_wm * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((0 + (((v1_lane / 8) / 2) * 4)) * 4)) ^ ((int)((((((((v3_wm * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((0 + (((v1_lane / 8) / 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v169_fa, v170_fa, v171_fa, v172_fa, kg_smem + v182_sa);
        int v183_sa = ((8192 + (v142_sr * 12288)) + ((int)(((((((v4_wn * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((0 + (((v1_lane / 8) % 2) * 4)) * 4)) ^ ((int)((((((((v4_wn * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((0 + (((v1_lane / 8) % 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v173_fb, v174_fb, v175_fb, v176_fb, kg_smem + v183_sa);
        int v184_sa = ((8192 + (v142_sr * 12288)) + ((int)(((((((v4_wn * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((0 + (((v1_lane / 8) % 2) * 4)) * 4)) ^ ((int)((((((((v4_wn * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((0 + (((v1_lane / 8) % 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v177_fb, v178_fb, v179_fb, v180_fb, kg_smem + v184_sa);
        int v185_ah = 0;
        int v186_ah = 0;
        int v187_ah = 0;
        int v188_ah = 0;
        int v189_ah = 0;
        int v190_ah = 0;
        int v191_ah = 0;
        int v192_ah = 0;
        int v193_bh = 0;
        int v194_bh = 0;
        int v195_bh = 0;
        int v196_bh = 0;
        int v197_bh = 0;
        int v198_bh = 0;
        int v199_bh = 0;
        int v200_bh = 0;
        int v201_al = 0;
        int v202_al = 0;
        int v203_al = 0;
        int v204_al = 0;
        int v205_al = 0;
        int v206_al = 0;
        int v207_al = 0;
        int v208_al = 0;
        int v209_bl = 0;
        int v210_bl = 0;
        int v211_bl = 0;
        int v212_bl = 0;
        int v213_bl = 0;
        int v214_bl = 0;
        int v215_bl = 0;
        int v216_bl = 0;
        float v217_hi = kg_tf32(__int_as_float(v165_fa));
        v185_ah = __float_as_int(v217_hi);
        v201_al = __float_as_int(kg_tf32(((__int_as_float(v165_fa) - v217_hi))));
        float v218_hi = kg_tf32(__int_as_float(v166_fa));
        v186_ah = __float_as_int(v218_hi);
        v202_al = __float_as_int(kg_tf32(((__int_as_float(v166_fa) - v218_hi))));
        float v219_hi = kg_tf32(__int_as_float(v167_fa));
        v187_ah = __float_as_int(v219_hi);
        v203_al = __float_as_int(kg_tf32(((__int_as_float(v167_fa) - v219_hi))));
        float v220_hi = kg_tf32(__int_as_float(v168_fa));
        v188_ah = __float_as_int(v220_hi);
        v204_al = __float_as_int(kg_tf32(((__int_as_float(v168_fa) - v220_hi))));
        float v221_hi = kg_tf32(__int_as_float(v169_fa));
        v189_ah = __float_as_int(v221_hi);
        v205_al = __float_as_int(kg_tf32(((__int_as_float(v169_fa) - v221_hi))));
        float v222_hi = kg_tf32(__int_as_float(v170_fa));
        v190_ah = __float_as_int(v222_hi);
        v206_al = __float_as_int(kg_tf32(((__int_as_float(v170_fa) - v222_hi))));
        float v223_hi = kg_tf32(__int_as_float(v171_fa));
        v191_ah = __float_as_int(v223_hi);
        v207_al = __float_as_int(kg_tf32(((__int_as_float(v171_fa) - v223_hi))));
        float v224_hi = kg_tf32(__int_as_float(v172_fa));
        v192_ah = __float_as_int(v224_hi);
        v208_al = __float_as_int(kg_tf32(((__int_as_float(v172_fa) - v224_hi))));
        float v225_hi = kg_tf32(__int_as_float(v173_fb));
        v193_bh = __float_as_int(v225_hi);
        v209_bl = __float_as_int(kg_tf32(((__int_as_float(v173_fb) - v225_hi))));
        float v226_hi = kg_tf32(__int_as_float(v174_fb));
        v194_bh = __float_as_int(v226_hi);
        v210_bl = __float_as_int(kg_tf32(((__int_as_float(v174_fb) - v226_hi))));
        float v227_hi = kg_tf32(__int_as_float(v175_fb));
        v195_bh = __float_as_int(v227_hi);
        v211_bl = __float_as_int(kg_tf32(((__int_as_float(v175_fb) - v227_hi))));
        float v228_hi = kg_tf32(__int_as_float(v176_fb));
        v196_bh = __float_as_int(v228_hi);
        v212_bl = __float_as_int(kg_tf32(((__int_as_float(v176_fb) - v228_hi))));
        float v229_hi = kg_tf32(__int_as_float(v177_fb));
        v197_bh = __float_as_int(v229_hi);
        v213_bl = __float_as_int(kg_tf32(((__int_as_float(v177_fb) - v229_hi))));
        float v230_hi = kg_tf32(__int_as_float(v178_fb));
        v198_bh = __float_as_int(v230_hi);
        v214_bl = __float_as_int(kg_tf32(((__int_as_float(v178_fb) - v230_hi))));
        float v231_hi = kg_tf32(__int_as_float(v179_fb));
        v199_bh = __float_as_int(v231_hi);
        v215_bl = __float_as_int(kg_tf32(((__int_as_float(v179_fb) - v231_hi))));
        float v232_hi = kg_tf32(__int_as_float(v180_fb));
        v200_bh = __float_as_int(v232_hi);
        v216_bl = __float_as_int(kg_tf32(((__int_as_float(v180_fb) - v232_hi))));
        KG_MMA_TF32(v43_part, v44_part, v45_part, v46_part, v201_al, v202_al, v203_al, v204_al, v193_bh, v194_bh);
        KG_MMA_TF32(v43_part, v44_part, v45_part, v46_part, v185_ah, v186_ah, v187_ah, v188_ah, v209_bl, v210_bl);
        KG_MMA_TF32(v43_part, v44_part, v45_part, v46_part, v185_ah, v186_ah, v187_ah, v188_ah, v193_bh, v194_bh);
        KG_MMA_TF32(v47_part, v48_part, v49_part, v50_part, v201_al, v202_al, v203_al, v204_al, v195_bh, v196_bh);
        KG_MMA_TF32(v47_part, v48_part, v49_part, v50_part, v185_ah, v186_ah, v187_ah, v188_ah, v211_bl, v212_bl);
        KG_MMA_TF32(v47_part, v48_part, v49_part, v50_part, v185_ah, v186_ah, v187_ah, v188_ah, v195_bh, v196_bh);
        KG_MMA_TF32(v51_part, v52_part, v53_part, v54_part, v201_al, v202_al, v203_al, v204_al, v197_bh, v198_bh);
        KG_MMA_TF32(v51_part, v52_part, v53_part, v54_part, v185_ah, v186_ah, v187_ah, v188_ah, v213_bl, v214_bl);
        KG_MMA_TF32(v51_part, v52_part, v53_part, v54_part, v185_ah, v186_ah, v187_ah, v188_ah, v197_bh, v198_bh);
        KG_MMA_TF32(v55_part, v56_part, v57_part, v58_part, v201_al, v202_al, v203_al, v204_al, v199_bh, v200_bh);
        KG_MMA_TF32(v55_part, v56_part, v57_part, v58_part, v185_ah, v186_ah, v187_ah, v188_ah, v215_bl, v216_bl);
        KG_MMA_TF32(v55_part, v56_part, v57_part, v58_part, v185_ah, v186_ah, v187_ah, v188_ah, v199_bh, v200_bh);
        KG_MMA_TF32(v59_part, v60_part, v61_part, v62_part, v205_al, v206_al, v207_al, v208_al, v193_bh, v194_bh);
        KG_MMA_TF32(v59_part, v60_part, v61_part, v62_part, v189_ah, v190_ah, v191_ah, v192_ah, v209_bl, v210_bl);
        KG_MMA_TF32(v59_part, v60_part, v61_part, v62_part, v189_ah, v190_ah, v191_ah, v192_ah, v193_bh, v194_bh);
        KG_MMA_TF32(v63_part, v64_part, v65_part, v66_part, v205_al, v206_al, v207_al, v208_al, v195_bh, v196_bh);
        KG_MMA_TF32(v63_part, v64_part, v65_part, v66_part, v189_ah, v190_ah, v191_ah, v192_ah, v211_bl, v212_bl);
        KG_MMA_TF32(v63_part, v64_part, v65_part, v66_part, v189_ah, v190_ah, v191_ah, v192_ah, v195_bh, v196_bh);
        KG_MMA_TF32(v67_part, v68_part, v69_part, v70_part, v205_al, v206_al, v207_al, v208_al, v197_bh, v198_bh);
        KG_MMA_TF32(v67_part, v68_part, v69_part, v70_part, v189_ah, v190_ah, v191_ah, v192_ah, v213_bl, v214_bl);
        KG_MMA_TF32(v67_part, v68_part, v69_part, v70_part, v189_ah, v190_ah, v191_ah, v192_ah, v197_bh, v198_bh);
        KG_MMA_TF32(v71_part, v72_part, v73_part, v74_part, v205_al, v206_al, v207_al, v208_al, v199_bh, v200_bh);
        KG_MMA_TF32(v71_part, v72_part, v73_part, v74_part, v189_ah, v190_ah, v191_ah, v192_ah, v215_bl, v216_bl);
        KG_MMA_TF32(v71_part, v72_part, v73_part, v74_part, v189_ah, v190_ah, v191_ah, v192_ah, v199_bh, v200_bh);
        int v233_fa = 0;
        int v234_fa = 0;
        int v235_fa = 0;
        int v236_fa = 0;
        int v237_fa = 0;
        int v238_fa = 0;
        int v239_fa = 0;
        int v240_fa = 0;
        int v241_fb = 0;
        int v242_fb = 0;
        int v243_fb = 0;
        int v244_fb = 0;
        int v245_fb = 0;
        int v246_fb = 0;
        int v247_fb = 0;
        int v248_fb = 0;
        int v249_sa = ((0 + (v142_sr * 12288)) + ((int)(((((((v3_wm * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((8 + (((v1_lane / 8) / 2) * 4)) * 4)) ^ ((int)((((((((v3_wm * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((8 + (((v1_lane / 8) / 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v233_fa, v234_fa, v235_fa, v236_fa, kg_smem + v249_sa);
        int v250_sa = ((0 + (v142_sr * 12288)) + ((int)(((((((v3_wm * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((8 + (((v1_lane / 8) / 2) * 4)) * 4)) ^ ((int)((((((((v3_wm * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) % 2) * 8)) * 64) + ((8 + (((v1_lane / 8) / 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v237_fa, v238_fa, v239_fa, v240_fa, kg_smem + v250_sa);
        int v251_sa = ((8192 + (v142_sr * 12288)) + ((int)(((((((v4_wn * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((8 + (((v1_lane / 8) % 2) * 4)) * 4)) ^ ((int)((((((((v4_wn * 32) + 0) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((8 + (((v1_lane / 8) % 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v241_fb, v242_fb, v243_fb, v244_fb, kg_smem + v251_sa);
        int v252_sa = ((8192 + (v142_sr * 12288)) + ((int)(((((((v4_wn * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((8 + (((v1_lane / 8) % 2) * 4)) * 4)) ^ ((int)((((((((v4_wn * 32) + 16) + (v1_lane % 8)) + (((v1_lane / 8) / 2) * 8)) * 64) + ((8 + (((v1_lane / 8) % 2) * 4)) * 4)) / 8) & 48)))));
        KG_LDSM4(v245_fb, v246_fb, v247_fb, v248_fb, kg_smem + v252_sa);
        int v253_ah = 0;
        int v254_ah = 0;
        int v255_ah = 0;
        int v256_ah = 0;
        int v257_ah = 0;
        int v258_ah = 0;
        int v259_ah = 0;
        int v260_ah = 0;
        int v261_bh = 0;
        int v262_bh = 0;
        int v263_bh = 0;
        int v264_bh = 0;
        int v265_bh = 0;
        int v266_bh = 0;
        int v267_bh = 0;
        int v268_bh = 0;
        int v269_al = 0;
        int v270_al = 0;
        int v271_al = 0;
        int v272_al = 0;
        int v273_al = 0;
        int v274_al = 0;
        int v275_al = 0;
        int v276_al = 0;
        int v277_bl = 0;
        int v278_bl = 0;
        int v279_bl = 0;
        int v280_bl = 0;
        int v281_bl = 0;
        int v282_bl = 0;
        int v283_bl = 0;
        int v284_bl = 0;
        float v285_hi = kg_tf32(__int_as_float(v233_fa));
        v253_ah = __float_as_int(v285_hi);
        v269_al = __float_as_int(kg_tf32(((__int_as_float(v233_fa) - v285_hi))));
        float v286_hi = kg_tf32(__int_as_float(v234_fa));
        v254_ah = __float_as_int(v286_hi);
        v270_al = __float_as_int(kg_tf32(((__int_as_float(v234_fa) - v286_hi))));
        float v287_hi = kg_tf32(__int_as_float(v235_fa));
        v255_ah = __float_as_int(v287_hi);
        v271_al = __float_as_int(kg_tf32(((__int_as_float(v235_fa) - v287_hi))));
        float v288_hi = kg_tf32(__int_as_float(v236_fa));
        v256_ah = __float_as_int(v288_hi);
        v272_al = __float_as_int(kg_tf32(((__int_as_float(v236_fa) - v288_hi))));
        float v289_hi = kg_tf32(__int_as_float(v237_fa));
        v257_ah = __float_as_int(v289_hi);
        v273_al = __float_as_int(kg_tf32(((__int_as_float(v237_fa) - v289_hi))));
        float v290_hi = kg_tf32(__int_as_float(v238_fa));
        v258_ah = __float_as_int(v290_hi);
        v274_al = __float_as_int(kg_tf32(((__int_as_float(v238_fa) - v290_hi))));
        float v291_hi = kg_tf32(__int_as_float(v239_fa));
        v259_ah = __float_as_int(v291_hi);
        v275_al = __float_as_int(kg_tf32(((__int_as_float(v239_fa) - v291_hi))));
        float v292_hi = kg_tf32(__int_as_float(v240_fa));
        v260_ah = __float_as_int(v292_hi);
        v276_al = __float_as_int(kg_tf32(((__int_as_float(v240_fa) - v292_hi))));
        float v293_hi = kg_tf32(__int_as_float(v241_fb));
        v261_bh = __float_as_int(v293_hi);
        v277_bl = __float_as_int(kg_tf32(((__int_as_float(v241_fb) - v293_hi))));
        float v294_hi = kg_tf32(__int_as_float(v242_fb));
        v262_bh = __float_as_int(v294_hi);
        v278_bl = __float_as_int(kg_tf32(((__int_as_float(v242_fb) - v294_hi))));
        float v295_hi = kg_tf32(__int_as_float(v243_fb));
        v263_bh = __float_as_int(v295_hi);
        v279_bl = __float_as_int(kg_tf32(((__int_as_float(v243_fb) - v295_hi))));
        float v296_hi = kg_tf32(__int_as_float(v244_fb));
        v264_bh = __float_as_int(v296_hi);
        v280_bl = __float_as_int(kg_tf32(((__int_as_float(v244_fb) - v296_hi))));
        float v297_hi = kg_tf32(__int_as_float(v245_fb));
        v265_bh = __float_as_int(v297_hi);
        v281_bl = __float_as_int(kg_tf32(((__int_as_float(v245_fb) - v297_hi))));
        float v298_hi = kg_tf32(__int_as_float(v246_fb));
        v266_bh = __float_as_int(v298_hi);
        v282_bl = __float_as_int(kg_tf32(((__int_as_float(v246_fb) - v298_hi))));
        float v299_hi = kg_tf32(__int_as_float(v247_fb));
        v267_bh = __float_as_int(v299_hi);
        v283_bl = __float_as_int(kg_tf32(((__int_as_float(v247_fb) - v299_hi))));
        float v300_hi = kg_tf32(__int_as_float(v248_fb));
        v268_bh = __float_as_int(v300_hi);
        v284_bl = __float_as_int(kg_tf32(((__int_as_float(v248_fb) - v300_hi))));
        KG_MMA_TF32(v43_part, v44_part, v45_part, v46_part, v269_al, v270_al, v271_al, v272_al, v261_bh, v262_bh);
        KG_MMA_TF32(v43_part, v44_part, v45_part, v46_part, v253_ah, v254_ah, v255_ah, v256_ah, v277_bl, v278_bl);
        KG_MMA_TF32(v43_part, v44_part, v45_part, v46_part, v253_ah, v254_ah, v255_ah, v256_ah, v261_bh, v262_bh);
        KG_MMA_TF32(v47_part, v48_part, v49_part, v50_part, v269_al, v270_al, v271_al, v272_al, v263_bh, v264_bh);
        KG_MMA_TF32(v47_part, v48_part, v49_part, v50_part, v253_ah, v254_ah, v255_ah, v256_ah, v279_bl, v280_bl);
        KG_MMA_TF32(v47_part, v48_part, v49_part, v50_part, v253_ah, v254_ah, v255_ah, v256_ah, v263_bh, v264_bh);
        KG_MMA_TF32(v51_part, v52_part, v53_part, v54_part, v269_al, v270_al, v271_al, v272_al, v265_bh, v266_bh);
        KG_MMA_TF32(v51_part, v52_part, v53_part, v54_part, v253_ah, v254_ah, v255_ah, v256_ah, v281_bl, v282_bl);
        KG_MMA_TF32(v51_part, v52_part, v53_part, v54_part, v253_ah, v254_ah, v255_ah, v256_ah, v265_bh, v266_bh);
        KG_MMA_TF32(v55_part, v56_part, v57_part, v58_part, v269_al, v270_al, v271_al, v272_al, v267_bh, v268_bh);
        KG_MMA_TF32(v55_part, v56_part, v57_part, v58_part, v253_ah, v254_ah, v255_ah, v256_ah, v283_bl, v284_bl);
        KG_MMA_TF32(v55_part, v56_part, v57_part, v58_part, v253_ah, v254_ah, v255_ah, v256_ah, v267_bh, v268_bh);
        KG_MMA_TF32(v59_part, v60_part, v61_part, v62_part, v273_al, v274_al, v275_al, v276_al, v261_bh, v262_bh);
        KG_MMA_TF32(v59_part, v60_part, v61_part, v62_part, v257_ah, v258_ah, v259_ah, v260_ah, v277_bl, v278_bl);
        KG_MMA_TF32(v59_part, v60_part, v61_part, v62_part, v257_ah, v258_ah, v259_ah, v260_ah, v261_bh, v262_bh);
        KG_MMA_TF32(v63_part, v64_part, v65_part, v66_part, v273_al, v274_al, v275_al, v276_al, v263_bh, v264_bh);
        KG_MMA_TF32(v63_part, v64_part, v65_part, v66_part, v257_ah, v258_ah, v259_ah, v260_ah, v279_bl, v280_bl);
        KG_MMA_TF32(v63_part, v64_part, v65_part, v66_part, v257_ah, v258_ah, v259_ah, v260_ah, v263_bh, v264_bh);
        KG_MMA_TF32(v67_part, v68_part, v69_part, v70_part, v273_al, v274_al, v275_al, v276_al, v265_bh, v266_bh);
        KG_MMA_TF32(v67_part, v68_part, v69_part, v70_part, v257_ah, v258_ah, v259_ah, v260_ah, v281_bl, v282_bl);
        KG_MMA_TF32(v67_part, v68_part, v69_part, v70_part, v257_ah, v258_ah, v259_ah, v260_ah, v265_bh, v266_bh);
        KG_MMA_TF32(v71_part, v72_part, v73_part, v74_part, v273_al, v274_al, v275_al, v276_al, v267_bh, v268_bh);
        KG_MMA_TF32(v71_part, v72_part, v73_part, v74_part, v257_ah, v258_ah, v259_ah, v260_ah, v283_bl, v284_bl);
        KG_MMA_TF32(v71_part, v72_part, v73_part, v74_part, v257_ah, v258_ah, v259_ah, v260_ah, v267_bh, v268_bh);
        if (((((v139_kt + 1) % 2) == 0) || ((v139_kt + 1) == v75_ktiles))) {
          v11_acc = ((v11_acc + v43_part));
          v43_part = 0.0f;
          v12_acc = ((v12_acc + v44_part));
          v44_part = 0.0f;
          v13_acc = ((v13_acc + v45_part));
          v45_part = 0.0f;
          v14_acc = ((v14_acc + v46_part));
          v46_part = 0.0f;
          v15_acc = ((v15_acc + v47_part));
          v47_part = 0.0f;
          v16_acc = ((v16_acc + v48_part));
          v48_part = 0.0f;
          v17_acc = ((v17_acc + v49_part));
          v49_part = 0.0f;
          v18_acc = ((v18_acc + v50_part));
          v50_part = 0.0f;
          v19_acc = ((v19_acc + v51_part));
          v51_part = 0.0f;
          v20_acc = ((v20_acc + v52_part));
          v52_part = 0.0f;
          v21_acc = ((v21_acc + v53_part));
          v53_part = 0.0f;
          v22_acc = ((v22_acc + v54_part));
          v54_part = 0.0f;
          v23_acc = ((v23_acc + v55_part));
          v55_part = 0.0f;
          v24_acc = ((v24_acc + v56_part));
          v56_part = 0.0f;
          v25_acc = ((v25_acc + v57_part));
          v57_part = 0.0f;
          v26_acc = ((v26_acc + v58_part));
          v58_part = 0.0f;
          v27_acc = ((v27_acc + v59_part));
          v59_part = 0.0f;
          v28_acc = ((v28_acc + v60_part));
          v60_part = 0.0f;
          v29_acc = ((v29_acc + v61_part));
          v61_part = 0.0f;
          v30_acc = ((v30_acc + v62_part));
          v62_part = 0.0f;
          v31_acc = ((v31_acc + v63_part));
          v63_part = 0.0f;
          v32_acc = ((v32_acc + v64_part));
          v64_part = 0.0f;
          v33_acc = ((v33_acc + v65_part));
          v65_part = 0.0f;
          v34_acc = ((v34_acc + v66_part));
          v66_part = 0.0f;
          v35_acc = ((v35_acc + v67_part));
          v67_part = 0.0f;
          v36_acc = ((v36_acc + v68_part));
          v68_part = 0.0f;
          v37_acc = ((v37_acc + v69_part));
          v69_part = 0.0f;
          v38_acc = ((v38_acc + v70_part));
          v70_part = 0.0f;
          v39_acc = ((v39_acc + v71_part));
          v71_part = 0.0f;
          v40_acc = ((v40_acc + v72_part));
          v72_part = 0.0f;
          v41_acc = ((v41_acc + v73_part));
          v73_part = 0.0f;
          v42_acc = ((v42_acc + v74_part));
          v74_part = 0.0f;
        }
      }
      KG_CP_WAIT(0);
      __syncthreads();
      /* epilogue */
      int v301_g = (v1_lane / 4);
      int v302_q = (v1_lane % 4);
      int v303_wm0 = (v10_m0 + ((v3_wm * 32) + v301_g));
      int v304_wn0 = (v7_n0 + ((v4_wn * 32) + (v302_q * 2)));
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 0) < size1))) {
        float v305_mm = v11_acc;
        int v306_off = ((v304_wn0 + 0) * os2_0);
        float v307_ld = (in2[v306_off]);
        float v308_t = ((v305_mm + v307_ld));
        float v309_t = ((0.5f * v308_t * (1.0f + erff(v308_t * 0.707106781f))));
        int v310_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 0) * os3_1));
        float v311_ld = (in3[v310_off]);
        float v312_t = ((v309_t + v311_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 0) * so0_1))] = (float)v312_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 1) < size1))) {
        float v313_mm = v12_acc;
        int v314_off = ((v304_wn0 + 1) * os2_0);
        float v315_ld = (in2[v314_off]);
        float v316_t = ((v313_mm + v315_ld));
        float v317_t = ((0.5f * v316_t * (1.0f + erff(v316_t * 0.707106781f))));
        int v318_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 1) * os3_1));
        float v319_ld = (in3[v318_off]);
        float v320_t = ((v317_t + v319_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 1) * so0_1))] = (float)v320_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 0) < size1))) {
        float v321_mm = v13_acc;
        int v322_off = ((v304_wn0 + 0) * os2_0);
        float v323_ld = (in2[v322_off]);
        float v324_t = ((v321_mm + v323_ld));
        float v325_t = ((0.5f * v324_t * (1.0f + erff(v324_t * 0.707106781f))));
        int v326_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 0) * os3_1));
        float v327_ld = (in3[v326_off]);
        float v328_t = ((v325_t + v327_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 0) * so0_1))] = (float)v328_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 1) < size1))) {
        float v329_mm = v14_acc;
        int v330_off = ((v304_wn0 + 1) * os2_0);
        float v331_ld = (in2[v330_off]);
        float v332_t = ((v329_mm + v331_ld));
        float v333_t = ((0.5f * v332_t * (1.0f + erff(v332_t * 0.707106781f))));
        int v334_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 1) * os3_1));
        float v335_ld = (in3[v334_off]);
        float v336_t = ((v333_t + v335_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 1) * so0_1))] = (float)v336_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 8) < size1))) {
        float v337_mm = v15_acc;
        int v338_off = ((v304_wn0 + 8) * os2_0);
        float v339_ld = (in2[v338_off]);
        float v340_t = ((v337_mm + v339_ld));
        float v341_t = ((0.5f * v340_t * (1.0f + erff(v340_t * 0.707106781f))));
        int v342_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 8) * os3_1));
        float v343_ld = (in3[v342_off]);
        float v344_t = ((v341_t + v343_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 8) * so0_1))] = (float)v344_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 9) < size1))) {
        float v345_mm = v16_acc;
        int v346_off = ((v304_wn0 + 9) * os2_0);
        float v347_ld = (in2[v346_off]);
        float v348_t = ((v345_mm + v347_ld));
        float v349_t = ((0.5f * v348_t * (1.0f + erff(v348_t * 0.707106781f))));
        int v350_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 9) * os3_1));
        float v351_ld = (in3[v350_off]);
        float v352_t = ((v349_t + v351_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 9) * so0_1))] = (float)v352_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 8) < size1))) {
        float v353_mm = v17_acc;
        int v354_off = ((v304_wn0 + 8) * os2_0);
        float v355_ld = (in2[v354_off]);
        float v356_t = ((v353_mm + v355_ld));
        float v357_t = ((0.5f * v356_t * (1.0f + erff(v356_t * 0.707106781f))));
        int v358_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 8) * os3_1));
        float v359_ld = (in3[v358_off]);
        float v360_t = ((v357_t + v359_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 8) * so0_1))] = (float)v360_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 9) < size1))) {
        float v361_mm = v18_acc;
        int v362_off = ((v304_wn0 + 9) * os2_0);
        float v363_ld = (in2[v362_off]);
        float v364_t = ((v361_mm + v363_ld));
        float v365_t = ((0.5f * v364_t * (1.0f + erff(v364_t * 0.707106781f))));
        int v366_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 9) * os3_1));
        float v367_ld = (in3[v366_off]);
        float v368_t = ((v365_t + v367_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 9) * so0_1))] = (float)v368_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 16) < size1))) {
        float v369_mm = v19_acc;
        int v370_off = ((v304_wn0 + 16) * os2_0);
        float v371_ld = (in2[v370_off]);
        float v372_t = ((v369_mm + v371_ld));
        float v373_t = ((0.5f * v372_t * (1.0f + erff(v372_t * 0.707106781f))));
        int v374_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 16) * os3_1));
        float v375_ld = (in3[v374_off]);
        float v376_t = ((v373_t + v375_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 16) * so0_1))] = (float)v376_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 17) < size1))) {
        float v377_mm = v20_acc;
        int v378_off = ((v304_wn0 + 17) * os2_0);
        float v379_ld = (in2[v378_off]);
        float v380_t = ((v377_mm + v379_ld));
        float v381_t = ((0.5f * v380_t * (1.0f + erff(v380_t * 0.707106781f))));
        int v382_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 17) * os3_1));
        float v383_ld = (in3[v382_off]);
        float v384_t = ((v381_t + v383_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 17) * so0_1))] = (float)v384_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 16) < size1))) {
        float v385_mm = v21_acc;
        int v386_off = ((v304_wn0 + 16) * os2_0);
        float v387_ld = (in2[v386_off]);
        float v388_t = ((v385_mm + v387_ld));
        float v389_t = ((0.5f * v388_t * (1.0f + erff(v388_t * 0.707106781f))));
        int v390_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 16) * os3_1));
        float v391_ld = (in3[v390_off]);
        float v392_t = ((v389_t + v391_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 16) * so0_1))] = (float)v392_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 17) < size1))) {
        float v393_mm = v22_acc;
        int v394_off = ((v304_wn0 + 17) * os2_0);
        float v395_ld = (in2[v394_off]);
        float v396_t = ((v393_mm + v395_ld));
        float v397_t = ((0.5f * v396_t * (1.0f + erff(v396_t * 0.707106781f))));
        int v398_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 17) * os3_1));
        float v399_ld = (in3[v398_off]);
        float v400_t = ((v397_t + v399_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 17) * so0_1))] = (float)v400_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 24) < size1))) {
        float v401_mm = v23_acc;
        int v402_off = ((v304_wn0 + 24) * os2_0);
        float v403_ld = (in2[v402_off]);
        float v404_t = ((v401_mm + v403_ld));
        float v405_t = ((0.5f * v404_t * (1.0f + erff(v404_t * 0.707106781f))));
        int v406_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 24) * os3_1));
        float v407_ld = (in3[v406_off]);
        float v408_t = ((v405_t + v407_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 24) * so0_1))] = (float)v408_t;
      }
      if ((((v303_wm0 + 0) < size0) && ((v304_wn0 + 25) < size1))) {
        float v409_mm = v24_acc;
        int v410_off = ((v304_wn0 + 25) * os2_0);
        float v411_ld = (in2[v410_off]);
        float v412_t = ((v409_mm + v411_ld));
        float v413_t = ((0.5f * v412_t * (1.0f + erff(v412_t * 0.707106781f))));
        int v414_off = (((v303_wm0 + 0) * os3_0) + ((v304_wn0 + 25) * os3_1));
        float v415_ld = (in3[v414_off]);
        float v416_t = ((v413_t + v415_ld));
        out0[(((v303_wm0 + 0) * so0_0) + ((v304_wn0 + 25) * so0_1))] = (float)v416_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 24) < size1))) {
        float v417_mm = v25_acc;
        int v418_off = ((v304_wn0 + 24) * os2_0);
        float v419_ld = (in2[v418_off]);
        float v420_t = ((v417_mm + v419_ld));
        float v421_t = ((0.5f * v420_t * (1.0f + erff(v420_t * 0.707106781f))));
        int v422_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 24) * os3_1));
        float v423_ld = (in3[v422_off]);
        float v424_t = ((v421_t + v423_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 24) * so0_1))] = (float)v424_t;
      }
      if ((((v303_wm0 + 8) < size0) && ((v304_wn0 + 25) < size1))) {
        float v425_mm = v26_acc;
        int v426_off = ((v304_wn0 + 25) * os2_0);
        float v427_ld = (in2[v426_off]);
        float v428_t = ((v425_mm + v427_ld));
        float v429_t = ((0.5f * v428_t * (1.0f + erff(v428_t * 0.707106781f))));
        int v430_off = (((v303_wm0 + 8) * os3_0) + ((v304_wn0 + 25) * os3_1));
        float v431_ld = (in3[v430_off]);
        float v432_t = ((v429_t + v431_ld));
        out0[(((v303_wm0 + 8) * so0_0) + ((v304_wn0 + 25) * so0_1))] = (float)v432_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 0) < size1))) {
        float v433_mm = v27_acc;
        int v434_off = ((v304_wn0 + 0) * os2_0);
        float v435_ld = (in2[v434_off]);
        float v436_t = ((v433_mm + v435_ld));
        float v437_t = ((0.5f * v436_t * (1.0f + erff(v436_t * 0.707106781f))));
        int v438_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 0) * os3_1));
        float v439_ld = (in3[v438_off]);
        float v440_t = ((v437_t + v439_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 0) * so0_1))] = (float)v440_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 1) < size1))) {
        float v441_mm = v28_acc;
        int v442_off = ((v304_wn0 + 1) * os2_0);
        float v443_ld = (in2[v442_off]);
        float v444_t = ((v441_mm + v443_ld));
        float v445_t = ((0.5f * v444_t * (1.0f + erff(v444_t * 0.707106781f))));
        int v446_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 1) * os3_1));
        float v447_ld = (in3[v446_off]);
        float v448_t = ((v445_t + v447_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 1) * so0_1))] = (float)v448_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 0) < size1))) {
        float v449_mm = v29_acc;
        int v450_off = ((v304_wn0 + 0) * os2_0);
        float v451_ld = (in2[v450_off]);
        float v452_t = ((v449_mm + v451_ld));
        float v453_t = ((0.5f * v452_t * (1.0f + erff(v452_t * 0.707106781f))));
        int v454_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 0) * os3_1));
        float v455_ld = (in3[v454_off]);
        float v456_t = ((v453_t + v455_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 0) * so0_1))] = (float)v456_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 1) < size1))) {
        float v457_mm = v30_acc;
        int v458_off = ((v304_wn0 + 1) * os2_0);
        float v459_ld = (in2[v458_off]);
        float v460_t = ((v457_mm + v459_ld));
        float v461_t = ((0.5f * v460_t * (1.0f + erff(v460_t * 0.707106781f))));
        int v462_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 1) * os3_1));
        float v463_ld = (in3[v462_off]);
        float v464_t = ((v461_t + v463_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 1) * so0_1))] = (float)v464_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 8) < size1))) {
        float v465_mm = v31_acc;
        int v466_off = ((v304_wn0 + 8) * os2_0);
        float v467_ld = (in2[v466_off]);
        float v468_t = ((v465_mm + v467_ld));
        float v469_t = ((0.5f * v468_t * (1.0f + erff(v468_t * 0.707106781f))));
        int v470_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 8) * os3_1));
        float v471_ld = (in3[v470_off]);
        float v472_t = ((v469_t + v471_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 8) * so0_1))] = (float)v472_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 9) < size1))) {
        float v473_mm = v32_acc;
        int v474_off = ((v304_wn0 + 9) * os2_0);
        float v475_ld = (in2[v474_off]);
        float v476_t = ((v473_mm + v475_ld));
        float v477_t = ((0.5f * v476_t * (1.0f + erff(v476_t * 0.707106781f))));
        int v478_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 9) * os3_1));
        float v479_ld = (in3[v478_off]);
        float v480_t = ((v477_t + v479_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 9) * so0_1))] = (float)v480_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 8) < size1))) {
        float v481_mm = v33_acc;
        int v482_off = ((v304_wn0 + 8) * os2_0);
        float v483_ld = (in2[v482_off]);
        float v484_t = ((v481_mm + v483_ld));
        float v485_t = ((0.5f * v484_t * (1.0f + erff(v484_t * 0.707106781f))));
        int v486_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 8) * os3_1));
        float v487_ld = (in3[v486_off]);
        float v488_t = ((v485_t + v487_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 8) * so0_1))] = (float)v488_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 9) < size1))) {
        float v489_mm = v34_acc;
        int v490_off = ((v304_wn0 + 9) * os2_0);
        float v491_ld = (in2[v490_off]);
        float v492_t = ((v489_mm + v491_ld));
        float v493_t = ((0.5f * v492_t * (1.0f + erff(v492_t * 0.707106781f))));
        int v494_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 9) * os3_1));
        float v495_ld = (in3[v494_off]);
        float v496_t = ((v493_t + v495_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 9) * so0_1))] = (float)v496_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 16) < size1))) {
        float v497_mm = v35_acc;
        int v498_off = ((v304_wn0 + 16) * os2_0);
        float v499_ld = (in2[v498_off]);
        float v500_t = ((v497_mm + v499_ld));
        float v501_t = ((0.5f * v500_t * (1.0f + erff(v500_t * 0.707106781f))));
        int v502_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 16) * os3_1));
        float v503_ld = (in3[v502_off]);
        float v504_t = ((v501_t + v503_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 16) * so0_1))] = (float)v504_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 17) < size1))) {
        float v505_mm = v36_acc;
        int v506_off = ((v304_wn0 + 17) * os2_0);
        float v507_ld = (in2[v506_off]);
        float v508_t = ((v505_mm + v507_ld));
        float v509_t = ((0.5f * v508_t * (1.0f + erff(v508_t * 0.707106781f))));
        int v510_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 17) * os3_1));
        float v511_ld = (in3[v510_off]);
        float v512_t = ((v509_t + v511_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 17) * so0_1))] = (float)v512_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 16) < size1))) {
        float v513_mm = v37_acc;
        int v514_off = ((v304_wn0 + 16) * os2_0);
        float v515_ld = (in2[v514_off]);
        float v516_t = ((v513_mm + v515_ld));
        float v517_t = ((0.5f * v516_t * (1.0f + erff(v516_t * 0.707106781f))));
        int v518_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 16) * os3_1));
        float v519_ld = (in3[v518_off]);
        float v520_t = ((v517_t + v519_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 16) * so0_1))] = (float)v520_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 17) < size1))) {
        float v521_mm = v38_acc;
        int v522_off = ((v304_wn0 + 17) * os2_0);
        float v523_ld = (in2[v522_off]);
        float v524_t = ((v521_mm + v523_ld));
        float v525_t = ((0.5f * v524_t * (1.0f + erff(v524_t * 0.707106781f))));
        int v526_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 17) * os3_1));
        float v527_ld = (in3[v526_off]);
        float v528_t = ((v525_t + v527_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 17) * so0_1))] = (float)v528_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 24) < size1))) {
        float v529_mm = v39_acc;
        int v530_off = ((v304_wn0 + 24) * os2_0);
        float v531_ld = (in2[v530_off]);
        float v532_t = ((v529_mm + v531_ld));
        float v533_t = ((0.5f * v532_t * (1.0f + erff(v532_t * 0.707106781f))));
        int v534_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 24) * os3_1));
        float v535_ld = (in3[v534_off]);
        float v536_t = ((v533_t + v535_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 24) * so0_1))] = (float)v536_t;
      }
      if ((((v303_wm0 + 16) < size0) && ((v304_wn0 + 25) < size1))) {
        float v537_mm = v40_acc;
        int v538_off = ((v304_wn0 + 25) * os2_0);
        float v539_ld = (in2[v538_off]);
        float v540_t = ((v537_mm + v539_ld));
        float v541_t = ((0.5f * v540_t * (1.0f + erff(v540_t * 0.707106781f))));
        int v542_off = (((v303_wm0 + 16) * os3_0) + ((v304_wn0 + 25) * os3_1));
        float v543_ld = (in3[v542_off]);
        float v544_t = ((v541_t + v543_ld));
        out0[(((v303_wm0 + 16) * so0_0) + ((v304_wn0 + 25) * so0_1))] = (float)v544_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 24) < size1))) {
        float v545_mm = v41_acc;
        int v546_off = ((v304_wn0 + 24) * os2_0);
        float v547_ld = (in2[v546_off]);
        float v548_t = ((v545_mm + v547_ld));
        float v549_t = ((0.5f * v548_t * (1.0f + erff(v548_t * 0.707106781f))));
        int v550_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 24) * os3_1));
        float v551_ld = (in3[v550_off]);
        float v552_t = ((v549_t + v551_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 24) * so0_1))] = (float)v552_t;
      }
      if ((((v303_wm0 + 24) < size0) && ((v304_wn0 + 25) < size1))) {
        float v553_mm = v42_acc;
        int v554_off = ((v304_wn0 + 25) * os2_0);
        float v555_ld = (in2[v554_off]);
        float v556_t = ((v553_mm + v555_ld));
        float v557_t = ((0.5f * v556_t * (1.0f + erff(v556_t * 0.707106781f))));
        int v558_off = (((v303_wm0 + 24) * os3_0) + ((v304_wn0 + 25) * os3_1));
        float v559_ld = (in3[v558_off]);
        float v560_t = ((v557_t + v559_ld));
        out0[(((v303_wm0 + 24) * so0_0) + ((v304_wn0 + 25) * so0_1))] = (float)v560_t;
      }
    }
  }
}
