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
          int v31_off = ((v28_g * os0_0) + (v29_gk * os0_1));
          float v32_ld = (in0[v31_off]);
          v30_a = v32_ld;
        }
        sh0_a[((v27_tf * 65) + v26_te)] = v30_a;
        int v33_e = (v0_tid + 256);
        int v34_te = (v33_e / 16);
        int v35_tf = (v33_e % 16);
        int v36_g = (v8_m0 + v34_te);
        int v37_gk = (v25_k0 + v35_tf);
        float v38_a = 0.0f;
        if (((v36_g < size0) && (v37_gk < k))) {
          int v39_off = ((v36_g * os0_0) + (v37_gk * os0_1));
          float v40_ld = (in0[v39_off]);
          v38_a = v40_ld;
        }
        sh0_a[((v35_tf * 65) + v34_te)] = v38_a;
        int v41_e = (v0_tid + 512);
        int v42_te = (v41_e / 16);
        int v43_tf = (v41_e % 16);
        int v44_g = (v8_m0 + v42_te);
        int v45_gk = (v25_k0 + v43_tf);
        float v46_a = 0.0f;
        if (((v44_g < size0) && (v45_gk < k))) {
          int v47_off = ((v44_g * os0_0) + (v45_gk * os0_1));
          float v48_ld = (in0[v47_off]);
          v46_a = v48_ld;
        }
        sh0_a[((v43_tf * 65) + v42_te)] = v46_a;
        int v49_e = (v0_tid + 768);
        int v50_te = (v49_e / 16);
        int v51_tf = (v49_e % 16);
        int v52_g = (v8_m0 + v50_te);
        int v53_gk = (v25_k0 + v51_tf);
        float v54_a = 0.0f;
        if (((v52_g < size0) && (v53_gk < k))) {
          int v55_off = ((v52_g * os0_0) + (v53_gk * os0_1));
          float v56_ld = (in0[v55_off]);
          v54_a = v56_ld;
        }
        sh0_a[((v51_tf * 65) + v50_te)] = v54_a;
        /* prologue: the B tile */
        int v57_te = (v0_tid / 16);
        int v58_tf = (v0_tid % 16);
        int v59_g = (v5_n0 + v57_te);
        int v60_gk = (v25_k0 + v58_tf);
        float v61_a = 0.0f;
        if (((v59_g < size1) && (v60_gk < k))) {
          int v62_off = ((v59_g * os1_0) + (v60_gk * os1_1));
          float v63_ld = (in1[v62_off]);
          v61_a = v63_ld;
        }
        sh1_b[((v58_tf * 65) + v57_te)] = v61_a;
        int v64_e = (v0_tid + 256);
        int v65_te = (v64_e / 16);
        int v66_tf = (v64_e % 16);
        int v67_g = (v5_n0 + v65_te);
        int v68_gk = (v25_k0 + v66_tf);
        float v69_a = 0.0f;
        if (((v67_g < size1) && (v68_gk < k))) {
          int v70_off = ((v67_g * os1_0) + (v68_gk * os1_1));
          float v71_ld = (in1[v70_off]);
          v69_a = v71_ld;
        }
        sh1_b[((v66_tf * 65) + v65_te)] = v69_a;
        int v72_e = (v0_tid + 512);
        int v73_te = (v72_e / 16);
        int v74_tf = (v72_e % 16);
        int v75_g = (v5_n0 + v73_te);
        int v76_gk = (v25_k0 + v74_tf);
        float v77_a = 0.0f;
        if (((v75_g < size1) && (v76_gk < k))) {
          int v78_off = ((v75_g * os1_0) + (v76_gk * os1_1));
          float v79_ld = (in1[v78_off]);
          v77_a = v79_ld;
        }
        sh1_b[((v74_tf * 65) + v73_te)] = v77_a;
        int v80_e = (v0_tid + 768);
        int v81_te = (v80_e / 16);
        int v82_tf = (v80_e % 16);
        int v83_g = (v5_n0 + v81_te);
        int v84_gk = (v25_k0 + v82_tf);
        float v85_a = 0.0f;
        if (((v83_g < size1) && (v84_gk < k))) {
          int v86_off = ((v83_g * os1_0) + (v84_gk * os1_1));
          float v87_ld = (in1[v86_off]);
          v85_a = v87_ld;
        }
        sh1_b[((v82_tf * 65) + v81_te)] = v85_a;
        __syncthreads();
        for (int v88_kk = 0; v88_kk < 16; v88_kk += 1) {
          float v89_x = sh0_a[((v88_kk * 65) + (v2_ty + 0))];
          float v90_x = sh0_a[((v88_kk * 65) + (v2_ty + 16))];
          float v91_x = sh0_a[((v88_kk * 65) + (v2_ty + 32))];
          float v92_x = sh0_a[((v88_kk * 65) + (v2_ty + 48))];
          float v93_y = sh1_b[((v88_kk * 65) + (v1_tx + 0))];
          float v94_y = sh1_b[((v88_kk * 65) + (v1_tx + 16))];
          float v95_y = sh1_b[((v88_kk * 65) + (v1_tx + 32))];
          float v96_y = sh1_b[((v88_kk * 65) + (v1_tx + 48))];
          v9_acc = ((v9_acc + ((v89_x * v93_y))));
          v10_acc = ((v10_acc + ((v89_x * v94_y))));
          v11_acc = ((v11_acc + ((v89_x * v95_y))));
          v12_acc = ((v12_acc + ((v89_x * v96_y))));
          v13_acc = ((v13_acc + ((v90_x * v93_y))));
          v14_acc = ((v14_acc + ((v90_x * v94_y))));
          v15_acc = ((v15_acc + ((v90_x * v95_y))));
          v16_acc = ((v16_acc + ((v90_x * v96_y))));
          v17_acc = ((v17_acc + ((v91_x * v93_y))));
          v18_acc = ((v18_acc + ((v91_x * v94_y))));
          v19_acc = ((v19_acc + ((v91_x * v95_y))));
          v20_acc = ((v20_acc + ((v91_x * v96_y))));
          v21_acc = ((v21_acc + ((v92_x * v93_y))));
          v22_acc = ((v22_acc + ((v92_x * v94_y))));
          v23_acc = ((v23_acc + ((v92_x * v95_y))));
          v24_acc = ((v24_acc + ((v92_x * v96_y))));
        }
        __syncthreads();
      }
      /* epilogue */
      int v97_m = (v8_m0 + (v2_ty + 0));
      int v98_n = (v5_n0 + (v1_tx + 0));
      if (((v97_m < size0) && (v98_n < size1))) {
        float v99_mm = v9_acc;
        int v100_off = (v98_n * os2_0);
        float v101_ld = (in2[v100_off]);
        float v102_t = ((v99_mm + v101_ld));
        float v103_t = ((0.5f * v102_t * (1.0f + erff(v102_t * 0.707106781f))));
        int v104_off = ((v97_m * os3_0) + (v98_n * os3_1));
        float v105_ld = (in3[v104_off]);
        float v106_t = ((v103_t + v105_ld));
        out0[((v97_m * so0_0) + (v98_n * so0_1))] = (float)v106_t;
      }
      int v107_m = (v8_m0 + (v2_ty + 0));
      int v108_n = (v5_n0 + (v1_tx + 16));
      if (((v107_m < size0) && (v108_n < size1))) {
        float v109_mm = v10_acc;
        int v110_off = (v108_n * os2_0);
        float v111_ld = (in2[v110_off]);
        float v112_t = ((v109_mm + v111_ld));
        float v113_t = ((0.5f * v112_t * (1.0f + erff(v112_t * 0.707106781f))));
        int v114_off = ((v107_m * os3_0) + (v108_n * os3_1));
        float v115_ld = (in3[v114_off]);
        float v116_t = ((v113_t + v115_ld));
        out0[((v107_m * so0_0) + (v108_n * so0_1))] = (float)v116_t;
      }
      int v117_m = (v8_m0 + (v2_ty + 0));
      int v118_n = (v5_n0 + (v1_tx + 32));
      if (((v117_m < size0) && (v118_n < size1))) {
        float v119_mm = v11_acc;
        int v120_off = (v118_n * os2_0);
        float v121_ld = (in2[v120_off]);
        float v122_t = ((v119_mm + v121_ld));
        float v123_t = ((0.5f * v122_t * (1.0f + erff(v122_t * 0.707106781f))));
        int v124_off = ((v117_m * os3_0) + (v118_n * os3_1));
        float v125_ld = (in3[v124_off]);
        float v126_t = ((v123_t + v125_ld));
        out0[((v117_m * so0_0) + (v118_n * so0_1))] = (float)v126_t;
      }
      int v127_m = (v8_m0 + (v2_ty + 0));
      int v128_n = (v5_n0 + (v1_tx + 48));
      if (((v127_m < size0) && (v128_n < size1))) {
        float v129_mm = v12_acc;
        int v130_off = (v128_n * os2_0);
        float v131_ld = (in2[v130_off]);
        float v132_t = ((v129_mm + v131_ld));
        float v133_t = ((0.5f * v132_t * (1.0f + erff(v132_t * 0.707106781f))));
        int v134_off = ((v127_m * os3_0) + (v128_n * os3_1));
        float v135_ld = (in3[v134_off]);
        float v136_t = ((v133_t + v135_ld));
        out0[((v127_m * so0_0) + (v128_n * so0_1))] = (float)v136_t;
      }
      int v137_m = (v8_m0 + (v2_ty + 16));
      int v138_n = (v5_n0 + (v1_tx + 0));
      if (((v137_m < size0) && (v138_n < size1))) {
        float v139_mm = v13_acc;
        int v140_off = (v138_n * os2_0);
        float v141_ld = (in2[v140_off]);
        float v142_t = ((v139_mm + v141_ld));
        float v143_t = ((0.5f * v142_t * (1.0f + erff(v142_t * 0.707106781f))));
        int v144_off = ((v137_m * os3_0) + (v138_n * os3_1));
        float v145_ld = (in3[v144_off]);
        float v146_t = ((v143_t + v145_ld));
        out0[((v137_m * so0_0) + (v138_n * so0_1))] = (float)v146_t;
      }
      int v147_m = (v8_m0 + (v2_ty + 16));
      int v148_n = (v5_n0 + (v1_tx + 16));
      if (((v147_m < size0) && (v148_n < size1))) {
        float v149_mm = v14_acc;
        int v150_off = (v148_n * os2_0);
        float v151_ld = (in2[v150_off]);
        float v152_t = ((v149_mm + v151_ld));
        float v153_t = ((0.5f * v152_t * (1.0f + erff(v152_t * 0.707106781f))));
        int v154_off = ((v147_m * os3_0) + (v148_n * os3_1));
        float v155_ld = (in3[v154_off]);
        float v156_t = ((v153_t + v155_ld));
        out0[((v147_m * so0_0) + (v148_n * so0_1))] = (float)v156_t;
      }
      int v157_m = (v8_m0 + (v2_ty + 16));
      int v158_n = (v5_n0 + (v1_tx + 32));
      if (((v157_m < size0) && (v158_n < size1))) {
        float v159_mm = v15_acc;
        int v160_off = (v158_n * os2_0);
        float v161_ld = (in2[v160_off]);
        float v162_t = ((v159_mm + v161_ld));
        float v163_t = ((0.5f * v162_t * (1.0f + erff(v162_t * 0.707106781f))));
        int v164_off = ((v157_m * os3_0) + (v158_n * os3_1));
        float v165_ld = (in3[v164_off]);
        float v166_t = ((v163_t + v165_ld));
        out0[((v157_m * so0_0) + (v158_n * so0_1))] = (float)v166_t;
      }
      int v167_m = (v8_m0 + (v2_ty + 16));
      int v168_n = (v5_n0 + (v1_tx + 48));
      if (((v167_m < size0) && (v168_n < size1))) {
        float v169_mm = v16_acc;
        int v170_off = (v168_n * os2_0);
        float v171_ld = (in2[v170_off]);
        float v172_t = ((v169_mm + v171_ld));
        float v173_t = ((0.5f * v172_t * (1.0f + erff(v172_t * 0.707106781f))));
        int v174_off = ((v167_m * os3_0) + (v168_n * os3_1));
        float v175_ld = (in3[v174_off]);
        float v176_t = ((v173_t + v175_ld));
        out0[((v167_m * so0_0) + (v168_n * so0_1))] = (float)v176_t;
      }
      int v177_m = (v8_m0 + (v2_ty + 32));
      int v178_n = (v5_n0 + (v1_tx + 0));
      if (((v177_m < size0) && (v178_n < size1))) {
        float v179_mm = v17_acc;
        int v180_off = (v178_n * os2_0);
        float v181_ld = (in2[v180_off]);
        float v182_t = ((v179_mm + v181_ld));
        float v183_t = ((0.5f * v182_t * (1.0f + erff(v182_t * 0.707106781f))));
        int v184_off = ((v177_m * os3_0) + (v178_n * os3_1));
        float v185_ld = (in3[v184_off]);
        float v186_t = ((v183_t + v185_ld));
        out0[((v177_m * so0_0) + (v178_n * so0_1))] = (float)v186_t;
      }
      int v187_m = (v8_m0 + (v2_ty + 32));
      int v188_n = (v5_n0 + (v1_tx + 16));
      if (((v187_m < size0) && (v188_n < size1))) {
        float v189_mm = v18_acc;
        int v190_off = (v188_n * os2_0);
        float v191_ld = (in2[v190_off]);
        float v192_t = ((v189_mm + v191_ld));
        float v193_t = ((0.5f * v192_t * (1.0f + erff(v192_t * 0.707106781f))));
        int v194_off = ((v187_m * os3_0) + (v188_n * os3_1));
        float v195_ld = (in3[v194_off]);
        float v196_t = ((v193_t + v195_ld));
        out0[((v187_m * so0_0) + (v188_n * so0_1))] = (float)v196_t;
      }
      int v197_m = (v8_m0 + (v2_ty + 32));
      int v198_n = (v5_n0 + (v1_tx + 32));
      if (((v197_m < size0) && (v198_n < size1))) {
        float v199_mm = v19_acc;
        int v200_off = (v198_n * os2_0);
        float v201_ld = (in2[v200_off]);
        float v202_t = ((v199_mm + v201_ld));
        float v203_t = ((0.5f * v202_t * (1.0f + erff(v202_t * 0.707106781f))));
        int v204_off = ((v197_m * os3_0) + (v198_n * os3_1));
        float v205_ld = (in3[v204_off]);
        float v206_t = ((v203_t + v205_ld));
        out0[((v197_m * so0_0) + (v198_n * so0_1))] = (float)v206_t;
      }
      int v207_m = (v8_m0 + (v2_ty + 32));
      int v208_n = (v5_n0 + (v1_tx + 48));
      if (((v207_m < size0) && (v208_n < size1))) {
        float v209_mm = v20_acc;
        int v210_off = (v208_n * os2_0);
        float v211_ld = (in2[v210_off]);
        float v212_t = ((v209_mm + v211_ld));
        float v213_t = ((0.5f * v212_t * (1.0f + erff(v212_t * 0.707106781f))));
        int v214_off = ((v207_m * os3_0) + (v208_n * os3_1));
        float v215_ld = (in3[v214_off]);
        float v216_t = ((v213_t + v215_ld));
        out0[((v207_m * so0_0) + (v208_n * so0_1))] = (float)v216_t;
      }
      int v217_m = (v8_m0 + (v2_ty + 48));
      int v218_n = (v5_n0 + (v1_tx + 0));
      if (((v217_m < size0) && (v218_n < size1))) {
        float v219_mm = v21_acc;
        int v220_off = (v218_n * os2_0);
        float v221_ld = (in2[v220_off]);
        float v222_t = ((v219_mm + v221_ld));
        float v223_t = ((0.5f * v222_t * (1.0f + erff(v222_t * 0.707106781f))));
        int v224_off = ((v217_m * os3_0) + (v218_n * os3_1));
        float v225_ld = (in3[v224_off]);
        float v226_t = ((v223_t + v225_ld));
        out0[((v217_m * so0_0) + (v218_n * so0_1))] = (float)v226_t;
      }
      int v227_m = (v8_m0 + (v2_ty + 48));
      int v228_n = (v5_n0 + (v1_tx + 16));
      if (((v227_m < size0) && (v228_n < size1))) {
        float v229_mm = v22_acc;
        int v230_off = (v228_n * os2_0);
        float v231_ld = (in2[v230_off]);
        float v232_t = ((v229_mm + v231_ld));
        float v233_t = ((0.5f * v232_t * (1.0f + erff(v232_t * 0.707106781f))));
        int v234_off = ((v227_m * os3_0) + (v228_n * os3_1));
        float v235_ld = (in3[v234_off]);
        float v236_t = ((v233_t + v235_ld));
        out0[((v227_m * so0_0) + (v228_n * so0_1))] = (float)v236_t;
      }
      int v237_m = (v8_m0 + (v2_ty + 48));
      int v238_n = (v5_n0 + (v1_tx + 32));
      if (((v237_m < size0) && (v238_n < size1))) {
        float v239_mm = v23_acc;
        int v240_off = (v238_n * os2_0);
        float v241_ld = (in2[v240_off]);
        float v242_t = ((v239_mm + v241_ld));
        float v243_t = ((0.5f * v242_t * (1.0f + erff(v242_t * 0.707106781f))));
        int v244_off = ((v237_m * os3_0) + (v238_n * os3_1));
        float v245_ld = (in3[v244_off]);
        float v246_t = ((v243_t + v245_ld));
        out0[((v237_m * so0_0) + (v238_n * so0_1))] = (float)v246_t;
      }
      int v247_m = (v8_m0 + (v2_ty + 48));
      int v248_n = (v5_n0 + (v1_tx + 48));
      if (((v247_m < size0) && (v248_n < size1))) {
        float v249_mm = v24_acc;
        int v250_off = (v248_n * os2_0);
        float v251_ld = (in2[v250_off]);
        float v252_t = ((v249_mm + v251_ld));
        float v253_t = ((0.5f * v252_t * (1.0f + erff(v252_t * 0.707106781f))));
        int v254_off = ((v247_m * os3_0) + (v248_n * os3_1));
        float v255_ld = (in3[v254_off]);
        float v256_t = ((v253_t + v255_ld));
        out0[((v247_m * so0_0) + (v248_n * so0_1))] = (float)v256_t;
      }
    }
  }
}
