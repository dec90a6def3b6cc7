/* kgen 0.1.0: linear_gelu_residual — 1 kernel. Generated code: edits are lost. */
#ifdef __CUDACC__
#define KG_KERNEL extern "C" __global__
#define KG_DEV static __device__ __forceinline__ __attribute__((unused))
KG_DEV float kg_h2f(unsigned short h) { float f; asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h)); return f; }
KG_DEV unsigned short kg_f2h(float f) { unsigned short h; asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f)); return h; }
#else
#define KG_KERNEL
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

/* linear_gelu_residual_k0: schedule matmul.t64, index int32, block 256, 1 element per thread */
KG_KERNEL void linear_gelu_residual_k0(const float *in0, const float *in1, const float *in2, const float *in3, float *out0, int size0, int size1, int k, int so0_0, int so0_1, int os0_0, int os0_1, int os1_0, int os1_1, int os2_0, int os3_0, int os3_1) {
  __shared__ float sh0_a[1040];
  __shared__ float sh1_b[1040];
  int v0_tid = (int)threadIdx.x;
  int v1_tx = (v0_tid % 16);
  int v2_ty = (v0_tid / 16);
  int v3_mtiles = ((size0 + 63) / 64);
  int v4_nbatch = 1;
  int v5_n0 = ((int)blockIdx.x * 64);
  for (int v6_bz = (int)blockIdx.z; v6_bz < v4_nbatch; v6_bz += (int)gridDim.z) {
    for (int v7_my = (int)blockIdx.y; v7_my < v3_mtiles; v7_my += (int)gridDim.y) {
      int v8_m0 = (v7_my * 64);
      float v9_acc = 0.0f;
      float v10_acc = 0.0f;
      float v11_acc = 0.0f;
      float v12_acc = 0.0f;
      float v13_acc = 0.0f;
      float v14_acc = 0.0f;
      float v15_acc = 0.0f;
      float v16_acc = 0.0f;
      float v17_acc = 0.0f;
      float v18_acc = 0.0f;
      float v19_acc = 0.0f;
      float v20_acc = 0.0f;
      float v21_acc = 0.0f;
      float v22_acc = 0.0f;
      float v23_acc = 0.0f;
      float v24_acc = 0.0f;
      for (int v25_k0 = 0; v25_k0 < k; v25_k0 += 16) {
        /* prologue: the A tile */
        int v26_te = (v0_tid / 16);
        int v27_tf = (v0_tid % 16);
        int v28_g = (v8_m0 + v26_te);
        int v29_gk = (v25_k0 + v27_tf);
        float v30_a = 0.0f;
        if (((v28_g < size0) && (v29_gk < k))) {
          float v31_ld = (in0[((v28_g * os0_0) + (v29_gk * os0_1))]);
          v30_a = v31_ld;
        }
        sh0_a[((v27_tf * 65) + v26_te)] = v30_a;
        int v32_e = (v0_tid + 256);
        int v33_te = (v32_e / 16);
        int v34_tf = (v32_e % 16);
        int v35_g = (v8_m0 + v33_te);
        int v36_gk = (v25_k0 + v34_tf);
        float v37_a = 0.0f;
        if (((v35_g < size0) && (v36_gk < k))) {
          float v38_ld = (in0[((v35_g * os0_0) + (v36_gk * os0_1))]);
          v37_a = v38_ld;
        }
        sh0_a[((v34_tf * 65) + v33_te)] = v37_a;
        int v39_e = (v0_tid + 512);
        int v40_te = (v39_e / 16);
        int v41_tf = (v39_e % 16);
        int v42_g = (v8_m0 + v40_te);
        int v43_gk = (v25_k0 + v41_tf);
        float v44_a = 0.0f;
        if (((v42_g < size0) && (v43_gk < k))) {
          float v45_ld = (in0[((v42_g * os0_0) + (v43_gk * os0_1))]);
          v44_a = v45_ld;
        }
        sh0_a[((v41_tf * 65) + v40_te)] = v44_a;
        int v46_e = (v0_tid + 768);
        int v47_te = (v46_e / 16);
        int v48_tf = (v46_e % 16);
        int v49_g = (v8_m0 + v47_te);
        int v50_gk = (v25_k0 + v48_tf);
        float v51_a = 0.0f;
        if (((v49_g < size0) && (v50_gk < k))) {
          float v52_ld = (in0[((v49_g * os0_0) + (v50_gk * os0_1))]);
          v51_a = v52_ld;
        }
        sh0_a[((v48_tf * 65) + v47_te)] = v51_a;
        /* prologue: the B tile */
        int v53_te = (v0_tid / 16);
        int v54_tf = (v0_tid % 16);
        int v55_g = (v5_n0 + v53_te);
        int v56_gk = (v25_k0 + v54_tf);
        float v57_a = 0.0f;
        if (((v55_g < size1) && (v56_gk < k))) {
          float v58_ld = (in1[((v55_g * os1_0) + (v56_gk * os1_1))]);
          v57_a = v58_ld;
        }
        sh1_b[((v54_tf * 65) + v53_te)] = v57_a;
        int v59_e = (v0_tid + 256);
        int v60_te = (v59_e / 16);
        int v61_tf = (v59_e % 16);
        int v62_g = (v5_n0 + v60_te);
        int v63_gk = (v25_k0 + v61_tf);
        float v64_a = 0.0f;
        if (((v62_g < size1) && (v63_gk < k))) {
          float v65_ld = (in1[((v62_g * os1_0) + (v63_gk * os1_1))]);
          v64_a = v65_ld;
        }
        sh1_b[((v61_tf * 65) + v60_te)] = v64_a;
        int v66_e = (v0_tid + 512);
        int v67_te = (v66_e / 16);
        int v68_tf = (v66_e % 16);
        int v69_g = (v5_n0 + v67_te);
        int v70_gk = (v25_k0 + v68_tf);
        float v71_a = 0.0f;
        if (((v69_g < size1) && (v70_gk < k))) {
          float v72_ld = (in1[((v69_g * os1_0) + (v70_gk * os1_1))]);
          v71_a = v72_ld;
        }
        sh1_b[((v68_tf * 65) + v67_te)] = v71_a;
        int v73_e = (v0_tid + 768);
        int v74_te = (v73_e / 16);
        int v75_tf = (v73_e % 16);
        int v76_g = (v5_n0 + v74_te);
        int v77_gk = (v25_k0 + v75_tf);
        float v78_a = 0.0f;
        if (((v76_g < size1) && (v77_gk < k))) {
          float v79_ld = (in1[((v76_g * os1_0) + (v77_gk * os1_1))]);
          v78_a = v79_ld;
        }
        sh1_b[((v75_tf * 65) + v74_te)] = v78_a;
        __syncthreads();
        for (int v80_kk = 0; v80_kk < 16; v80_kk += 1) {
          float v81_x = sh0_a[((v80_kk * 65) + (v2_ty + 0))];
          float v82_x = sh0_a[((v80_kk * 65) + (v2_ty + 16))];
          float v83_x = sh0_a[((v80_kk * 65) + (v2_ty + 32))];
          float v84_x = sh0_a[((v80_kk * 65) + (v2_ty + 48))];
          float v85_y = sh1_b[((v80_kk * 65) + (v1_tx + 0))];
          float v86_y = sh1_b[((v80_kk * 65) + (v1_tx + 16))];
          float v87_y = sh1_b[((v80_kk * 65) + (v1_tx + 32))];
          float v88_y = sh1_b[((v80_kk * 65) + (v1_tx + 48))];
          v9_acc = ((v9_acc + ((v81_x * v85_y))));
          v10_acc = ((v10_acc + ((v81_x * v86_y))));
          v11_acc = ((v11_acc + ((v81_x * v87_y))));
          v12_acc = ((v12_acc + ((v81_x * v88_y))));
          v13_acc = ((v13_acc + ((v82_x * v85_y))));
          v14_acc = ((v14_acc + ((v82_x * v86_y))));
          v15_acc = ((v15_acc + ((v82_x * v87_y))));
          v16_acc = ((v16_acc + ((v82_x * v88_y))));
          v17_acc = ((v17_acc + ((v83_x * v85_y))));
          v18_acc = ((v18_acc + ((v83_x * v86_y))));
          v19_acc = ((v19_acc + ((v83_x * v87_y))));
          v20_acc = ((v20_acc + ((v83_x * v88_y))));
          v21_acc = ((v21_acc + ((v84_x * v85_y))));
          v22_acc = ((v22_acc + ((v84_x * v86_y))));
          v23_acc = ((v23_acc + ((v84_x * v87_y))));
          v24_acc = ((v24_acc + ((v84_x * v88_y))));
        }
        __syncthreads();
      }
      /* epilogue */
      int v89_m = (v8_m0 + (v2_ty + 0));
      int v90_n = (v5_n0 + (v1_tx + 0));
      if (((v89_m < size0) && (v90_n < size1))) {
        float v91_mm = v9_acc;
        float v92_ld = (in2[(v90_n * os2_0)]);
        float v93_t = ((v91_mm + v92_ld));
        float v94_t = ((0.5f * v93_t * (1.0f + erff(v93_t * 0.707106781f))));
        float v95_ld = (in3[((v89_m * os3_0) + (v90_n * os3_1))]);
        float v96_t = ((v94_t + v95_ld));
        out0[((v89_m * so0_0) + (v90_n * so0_1))] = (float)v96_t;
      }
      int v97_m = (v8_m0 + (v2_ty + 0));
      int v98_n = (v5_n0 + (v1_tx + 16));
      if (((v97_m < size0) && (v98_n < size1))) {
        float v99_mm = v10_acc;
        float v100_ld = (in2[(v98_n * os2_0)]);
        float v101_t = ((v99_mm + v100_ld));
        float v102_t = ((0.5f * v101_t * (1.0f + erff(v101_t * 0.707106781f))));
        float v103_ld = (in3[((v97_m * os3_0) + (v98_n * os3_1))]);
        float v104_t = ((v102_t + v103_ld));
        out0[((v97_m * so0_0) + (v98_n * so0_1))] = (float)v104_t;
      }
      int v105_m = (v8_m0 + (v2_ty + 0));
      int v106_n = (v5_n0 + (v1_tx + 32));
      if (((v105_m < size0) && (v106_n < size1))) {
        float v107_mm = v11_acc;
        float v108_ld = (in2[(v106_n * os2_0)]);
        float v109_t = ((v107_mm + v108_ld));
        float v110_t = ((0.5f * v109_t * (1.0f + erff(v109_t * 0.707106781f))));
        float v111_ld = (in3[((v105_m * os3_0) + (v106_n * os3_1))]);
        float v112_t = ((v110_t + v111_ld));
        out0[((v105_m * so0_0) + (v106_n * so0_1))] = (float)v112_t;
      }
      int v113_m = (v8_m0 + (v2_ty + 0));
      int v114_n = (v5_n0 + (v1_tx + 48));
      if (((v113_m < size0) && (v114_n < size1))) {
        float v115_mm = v12_acc;
        float v116_ld = (in2[(v114_n * os2_0)]);
        float v117_t = ((v115_mm + v116_ld));
        float v118_t = ((0.5f * v117_t * (1.0f + erff(v117_t * 0.707106781f))));
        float v119_ld = (in3[((v113_m * os3_0) + (v114_n * os3_1))]);
        float v120_t = ((v118_t + v119_ld));
        out0[((v113_m * so0_0) + (v114_n * so0_1))] = (float)v120_t;
      }
      int v121_m = (v8_m0 + (v2_ty + 16));
      int v122_n = (v5_n0 + (v1_tx + 0));
      if (((v121_m < size0) && (v122_n < size1))) {
        float v123_mm = v13_acc;
        float v124_ld = (in2[(v122_n * os2_0)]);
        float v125_t = ((v123_mm + v124_ld));
        float v126_t = ((0.5f * v125_t * (1.0f + erff(v125_t * 0.707106781f))));
        float v127_ld = (in3[((v121_m * os3_0) + (v122_n * os3_1))]);
        float v128_t = ((v126_t + v127_ld));
        out0[((v121_m * so0_0) + (v122_n * so0_1))] = (float)v128_t;
      }
      int v129_m = (v8_m0 + (v2_ty + 16));
      int v130_n = (v5_n0 + (v1_tx + 16));
      if (((v129_m < size0) && (v130_n < size1))) {
        float v131_mm = v14_acc;
        float v132_ld = (in2[(v130_n * os2_0)]);
        float v133_t = ((v131_mm + v132_ld));
        float v134_t = ((0.5f * v133_t * (1.0f + erff(v133_t * 0.707106781f))));
        float v135_ld = (in3[((v129_m * os3_0) + (v130_n * os3_1))]);
        float v136_t = ((v134_t + v135_ld));
        out0[((v129_m * so0_0) + (v130_n * so0_1))] = (float)v136_t;
      }
      int v137_m = (v8_m0 + (v2_ty + 16));
      int v138_n = (v5_n0 + (v1_tx + 32));
      if (((v137_m < size0) && (v138_n < size1))) {
        float v139_mm = v15_acc;
        float v140_ld = (in2[(v138_n * os2_0)]);
        float v141_t = ((v139_mm + v140_ld));
        float v142_t = ((0.5f * v141_t * (1.0f + erff(v141_t * 0.707106781f))));
        float v143_ld = (in3[((v137_m * os3_0) + (v138_n * os3_1))]);
        float v144_t = ((v142_t + v143_ld));
        out0[((v137_m * so0_0) + (v138_n * so0_1))] = (float)v144_t;
      }
      int v145_m = (v8_m0 + (v2_ty + 16));
      int v146_n = (v5_n0 + (v1_tx + 48));
      if (((v145_m < size0) && (v146_n < size1))) {
        float v147_mm = v16_acc;
        float v148_ld = (in2[(v146_n * os2_0)]);
        float v149_t = ((v147_mm + v148_ld));
        float v150_t = ((0.5f * v149_t * (1.0f + erff(v149_t * 0.707106781f))));
        float v151_ld = (in3[((v145_m * os3_0) + (v146_n * os3_1))]);
        float v152_t = ((v150_t + v151_ld));
        out0[((v145_m * so0_0) + (v146_n * so0_1))] = (float)v152_t;
      }
      int v153_m = (v8_m0 + (v2_ty + 32));
      int v154_n = (v5_n0 + (v1_tx + 0));
      if (((v153_m < size0) && (v154_n < size1))) {
        float v155_mm = v17_acc;
        float v156_ld = (in2[(v154_n * os2_0)]);
        float v157_t = ((v155_mm + v156_ld));
        float v158_t = ((0.5f * v157_t * (1.0f + erff(v157_t * 0.707106781f))));
        float v159_ld = (in3[((v153_m * os3_0) + (v154_n * os3_1))]);
        float v160_t = ((v158_t + v159_ld));
        out0[((v153_m * so0_0) + (v154_n * so0_1))] = (float)v160_t;
      }
      int v161_m = (v8_m0 + (v2_ty + 32));
      int v162_n = (v5_n0 + (v1_tx + 16));
      if (((v161_m < size0) && (v162_n < size1))) {
        float v163_mm = v18_acc;
        float v164_ld = (in2[(v162_n * os2_0)]);
        float v165_t = ((v163_mm + v164_ld));
        float v166_t = ((0.5f * v165_t * (1.0f + erff(v165_t * 0.707106781f))));
        float v167_ld = (in3[((v161_m * os3_0) + (v162_n * os3_1))]);
        float v168_t = ((v166_t + v167_ld));
        out0[((v161_m * so0_0) + (v162_n * so0_1))] = (float)v168_t;
      }
      int v169_m = (v8_m0 + (v2_ty + 32));
      int v170_n = (v5_n0 + (v1_tx + 32));
      if (((v169_m < size0) && (v170_n < size1))) {
        float v171_mm = v19_acc;
        float v172_ld = (in2[(v170_n * os2_0)]);
        float v173_t = ((v171_mm + v172_ld));
        float v174_t = ((0.5f * v173_t * (1.0f + erff(v173_t * 0.707106781f))));
        float v175_ld = (in3[((v169_m * os3_0) + (v170_n * os3_1))]);
        float v176_t = ((v174_t + v175_ld));
        out0[((v169_m * so0_0) + (v170_n * so0_1))] = (float)v176_t;
      }
      int v177_m = (v8_m0 + (v2_ty + 32));
      int v178_n = (v5_n0 + (v1_tx + 48));
      if (((v177_m < size0) && (v178_n < size1))) {
        float v179_mm = v20_acc;
        float v180_ld = (in2[(v178_n * os2_0)]);
        float v181_t = ((v179_mm + v180_ld));
        float v182_t = ((0.5f * v181_t * (1.0f + erff(v181_t * 0.707106781f))));
        float v183_ld = (in3[((v177_m * os3_0) + (v178_n * os3_1))]);
        float v184_t = ((v182_t + v183_ld));
        out0[((v177_m * so0_0) + (v178_n * so0_1))] = (float)v184_t;
      }
      int v185_m = (v8_m0 + (v2_ty + 48));
      int v186_n = (v5_n0 + (v1_tx + 0));
      if (((v185_m < size0) && (v186_n < size1))) {
        float v187_mm = v21_acc;
        float v188_ld = (in2[(v186_n * os2_0)]);
        float v189_t = ((v187_mm + v188_ld));
        float v190_t = ((0.5f * v189_t * (1.0f + erff(v189_t * 0.707106781f))));
        float v191_ld = (in3[((v185_m * os3_0) + (v186_n * os3_1))]);
        float v192_t = ((v190_t + v191_ld));
        out0[((v185_m * so0_0) + (v186_n * so0_1))] = (float)v192_t;
      }
      int v193_m = (v8_m0 + (v2_ty + 48));
      int v194_n = (v5_n0 + (v1_tx + 16));
      if (((v193_m < size0) && (v194_n < size1))) {
        float v195_mm = v22_acc;
        float v196_ld = (in2[(v194_n * os2_0)]);
        float v197_t = ((v195_mm + v196_ld));
        float v198_t = ((0.5f * v197_t * (1.0f + erff(v197_t * 0.707106781f))));
        float v199_ld = (in3[((v193_m * os3_0) + (v194_n * os3_1))]);
        float v200_t = ((v198_t + v199_ld));
        out0[((v193_m * so0_0) + (v194_n * so0_1))] = (float)v200_t;
      }
      int v201_m = (v8_m0 + (v2_ty + 48));
      int v202_n = (v5_n0 + (v1_tx + 32));
      if (((v201_m < size0) && (v202_n < size1))) {
        float v203_mm = v23_acc;
        float v204_ld = (in2[(v202_n * os2_0)]);
        float v205_t = ((v203_mm + v204_ld));
        float v206_t = ((0.5f * v205_t * (1.0f + erff(v205_t * 0.707106781f))));
        float v207_ld = (in3[((v201_m * os3_0) + (v202_n * os3_1))]);
        float v208_t = ((v206_t + v207_ld));
        out0[((v201_m * so0_0) + (v202_n * so0_1))] = (float)v208_t;
      }
      int v209_m = (v8_m0 + (v2_ty + 48));
      int v210_n = (v5_n0 + (v1_tx + 48));
      if (((v209_m < size0) && (v210_n < size1))) {
        float v211_mm = v24_acc;
        float v212_ld = (in2[(v210_n * os2_0)]);
        float v213_t = ((v211_mm + v212_ld));
        float v214_t = ((0.5f * v213_t * (1.0f + erff(v213_t * 0.707106781f))));
        float v215_ld = (in3[((v209_m * os3_0) + (v210_n * os3_1))]);
        float v216_t = ((v214_t + v215_ld));
        out0[((v209_m * so0_0) + (v210_n * so0_1))] = (float)v216_t;
      }
    }
  }
}
