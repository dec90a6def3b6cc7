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
        float v88_part = 0.0f;
        float v89_part = 0.0f;
        float v90_part = 0.0f;
        float v91_part = 0.0f;
        float v92_part = 0.0f;
        float v93_part = 0.0f;
        float v94_part = 0.0f;
        float v95_part = 0.0f;
        float v96_part = 0.0f;
        float v97_part = 0.0f;
        float v98_part = 0.0f;
        float v99_part = 0.0f;
        float v100_part = 0.0f;
        float v101_part = 0.0f;
        float v102_part = 0.0f;
        float v103_part = 0.0f;
        for (int v104_kk = 0; v104_kk < 16; v104_kk += 1) {
          float v105_x = sh0_a[((v104_kk * 65) + (v2_ty + 0))];
          float v106_x = sh0_a[((v104_kk * 65) + (v2_ty + 16))];
          float v107_x = sh0_a[((v104_kk * 65) + (v2_ty + 32))];
          float v108_x = sh0_a[((v104_kk * 65) + (v2_ty + 48))];
          float v109_y = sh1_b[((v104_kk * 65) + (v1_tx + 0))];
          float v110_y = sh1_b[((v104_kk * 65) + (v1_tx + 16))];
          float v111_y = sh1_b[((v104_kk * 65) + (v1_tx + 32))];
          float v112_y = sh1_b[((v104_kk * 65) + (v1_tx + 48))];
          v88_part = ((v88_part + ((v105_x * v109_y))));
          v89_part = ((v89_part + ((v105_x * v110_y))));
          v90_part = ((v90_part + ((v105_x * v111_y))));
          v91_part = ((v91_part + ((v105_x * v112_y))));
          v92_part = ((v92_part + ((v106_x * v109_y))));
          v93_part = ((v93_part + ((v106_x * v110_y))));
          v94_part = ((v94_part + ((v106_x * v111_y))));
          v95_part = ((v95_part + ((v106_x * v112_y))));
          v96_part = ((v96_part + ((v107_x * v109_y))));
          v97_part = ((v97_part + ((v107_x * v110_y))));
          v98_part = ((v98_part + ((v107_x * v111_y))));
          v99_part = ((v99_part + ((v107_x * v112_y))));
          v100_part = ((v100_part + ((v108_x * v109_y))));
          v101_part = ((v101_part + ((v108_x * v110_y))));
          v102_part = ((v102_part + ((v108_x * v111_y))));
          v103_part = ((v103_part + ((v108_x * v112_y))));
        }
        v9_acc = ((v9_acc + v88_part));
        v10_acc = ((v10_acc + v89_part));
        v11_acc = ((v11_acc + v90_part));
        v12_acc = ((v12_acc + v91_part));
        v13_acc = ((v13_acc + v92_part));
        v14_acc = ((v14_acc + v93_part));
        v15_acc = ((v15_acc + v94_part));
        v16_acc = ((v16_acc + v95_part));
        v17_acc = ((v17_acc + v96_part));
        v18_acc = ((v18_acc + v97_part));
        v19_acc = ((v19_acc + v98_part));
        v20_acc = ((v20_acc + v99_part));
        v21_acc = ((v21_acc + v100_part));
        v22_acc = ((v22_acc + v101_part));
        v23_acc = ((v23_acc + v102_part));
        v24_acc = ((v24_acc + v103_part));
        __syncthreads();
      }
      /* epilogue */
      int v113_m = (v8_m0 + (v2_ty + 0));
      int v114_n = (v5_n0 + (v1_tx + 0));
      if (((v113_m < size0) && (v114_n < size1))) {
        float v115_mm = v9_acc;
        int v116_off = (v114_n * os2_0);
        float v117_ld = (in2[v116_off]);
        float v118_t = ((v115_mm + v117_ld));
        float v119_t = ((0.5f * v118_t * (1.0f + erff(v118_t * 0.707106781f))));
        int v120_off = ((v113_m * os3_0) + (v114_n * os3_1));
        float v121_ld = (in3[v120_off]);
        float v122_t = ((v119_t + v121_ld));
        out0[((v113_m * so0_0) + (v114_n * so0_1))] = (float)v122_t;
      }
      int v123_m = (v8_m0 + (v2_ty + 0));
      int v124_n = (v5_n0 + (v1_tx + 16));
      if (((v123_m < size0) && (v124_n < size1))) {
        float v125_mm = v10_acc;
        int v126_off = (v124_n * os2_0);
        float v127_ld = (in2[v126_off]);
        float v128_t = ((v125_mm + v127_ld));
        float v129_t = ((0.5f * v128_t * (1.0f + erff(v128_t * 0.707106781f))));
        int v130_off = ((v123_m * os3_0) + (v124_n * os3_1));
        float v131_ld = (in3[v130_off]);
        float v132_t = ((v129_t + v131_ld));
        out0[((v123_m * so0_0) + (v124_n * so0_1))] = (float)v132_t;
      }
      int v133_m = (v8_m0 + (v2_ty + 0));
      int v134_n = (v5_n0 + (v1_tx + 32));
      if (((v133_m < size0) && (v134_n < size1))) {
        float v135_mm = v11_acc;
        int v136_off = (v134_n * os2_0);
        float v137_ld = (in2[v136_off]);
        float v138_t = ((v135_mm + v137_ld));
        float v139_t = ((0.5f * v138_t * (1.0f + erff(v138_t * 0.707106781f))));
        int v140_off = ((v133_m * os3_0) + (v134_n * os3_1));
        float v141_ld = (in3[v140_off]);
        float v142_t = ((v139_t + v141_ld));
        out0[((v133_m * so0_0) + (v134_n * so0_1))] = (float)v142_t;
      }
      int v143_m = (v8_m0 + (v2_ty + 0));
      int v144_n = (v5_n0 + (v1_tx + 48));
      if (((v143_m < size0) && (v144_n < size1))) {
        float v145_mm = v12_acc;
        int v146_off = (v144_n * os2_0);
        float v147_ld = (in2[v146_off]);
        float v148_t = ((v145_mm + v147_ld));
        float v149_t = ((0.5f * v148_t * (1.0f + erff(v148_t * 0.707106781f))));
        int v150_off = ((v143_m * os3_0) + (v144_n * os3_1));
        float v151_ld = (in3[v150_off]);
        float v152_t = ((v149_t + v151_ld));
        out0[((v143_m * so0_0) + (v144_n * so0_1))] = (float)v152_t;
      }
      int v153_m = (v8_m0 + (v2_ty + 16));
      int v154_n = (v5_n0 + (v1_tx + 0));
      if (((v153_m < size0) && (v154_n < size1))) {
        float v155_mm = v13_acc;
        int v156_off = (v154_n * os2_0);
        float v157_ld = (in2[v156_off]);
        float v158_t = ((v155_mm + v157_ld));
        float v159_t = ((0.5f * v158_t * (1.0f + erff(v158_t * 0.707106781f))));
        int v160_off = ((v153_m * os3_0) + (v154_n * os3_1));
        float v161_ld = (in3[v160_off]);
        float v162_t = ((v159_t + v161_ld));
        out0[((v153_m * so0_0) + (v154_n * so0_1))] = (float)v162_t;
      }
      int v163_m = (v8_m0 + (v2_ty + 16));
      int v164_n = (v5_n0 + (v1_tx + 16));
      if (((v163_m < size0) && (v164_n < size1))) {
        float v165_mm = v14_acc;
        int v166_off = (v164_n * os2_0);
        float v167_ld = (in2[v166_off]);
        float v168_t = ((v165_mm + v167_ld));
        float v169_t = ((0.5f * v168_t * (1.0f + erff(v168_t * 0.707106781f))));
        int v170_off = ((v163_m * os3_0) + (v164_n * os3_1));
        float v171_ld = (in3[v170_off]);
        float v172_t = ((v169_t + v171_ld));
        out0[((v163_m * so0_0) + (v164_n * so0_1))] = (float)v172_t;
      }
      int v173_m = (v8_m0 + (v2_ty + 16));
      int v174_n = (v5_n0 + (v1_tx + 32));
      if (((v173_m < size0) && (v174_n < size1))) {
        float v175_mm = v15_acc;
        int v176_off = (v174_n * os2_0);
        float v177_ld = (in2[v176_off]);
        float v178_t = ((v175_mm + v177_ld));
        float v179_t = ((0.5f * v178_t * (1.0f + erff(v178_t * 0.707106781f))));
        int v180_off = ((v173_m * os3_0) + (v174_n * os3_1));
        float v181_ld = (in3[v180_off]);
        float v182_t = ((v179_t + v181_ld));
        out0[((v173_m * so0_0) + (v174_n * so0_1))] = (float)v182_t;
      }
      int v183_m = (v8_m0 + (v2_ty + 16));
      int v184_n = (v5_n0 + (v1_tx + 48));
      if (((v183_m < size0) && (v184_n < size1))) {
        float v185_mm = v16_acc;
        int v186_off = (v184_n * os2_0);
        float v187_ld = (in2[v186_off]);
        float v188_t = ((v185_mm + v187_ld));
        float v189_t = ((0.5f * v188_t * (1.0f + erff(v188_t * 0.707106781f))));
        int v190_off = ((v183_m * os3_0) + (v184_n * os3_1));
        float v191_ld = (in3[v190_off]);
        float v192_t = ((v189_t + v191_ld));
        out0[((v183_m * so0_0) + (v184_n * so0_1))] = (float)v192_t;
      }
      int v193_m = (v8_m0 + (v2_ty + 32));
      int v194_n = (v5_n0 + (v1_tx + 0));
      if (((v193_m < size0) && (v194_n < size1))) {
        float v195_mm = v17_acc;
        int v196_off = (v194_n * os2_0);
        float v197_ld = (in2[v196_off]);
        float v198_t = ((v195_mm + v197_ld));
        float v199_t = ((0.5f * v198_t * (1.0f + erff(v198_t * 0.707106781f))));
        int v200_off = ((v193_m * os3_0) + (v194_n * os3_1));
        float v201_ld = (in3[v200_off]);
        float v202_t = ((v199_t + v201_ld));
        out0[((v193_m * so0_0) + (v194_n * so0_1))] = (float)v202_t;
      }
      int v203_m = (v8_m0 + (v2_ty + 32));
      int v204_n = (v5_n0 + (v1_tx + 16));
      if (((v203_m < size0) && (v204_n < size1))) {
        float v205_mm = v18_acc;
        int v206_off = (v204_n * os2_0);
        float v207_ld = (in2[v206_off]);
        float v208_t = ((v205_mm + v207_ld));
        float v209_t = ((0.5f * v208_t * (1.0f + erff(v208_t * 0.707106781f))));
        int v210_off = ((v203_m * os3_0) + (v204_n * os3_1));
        float v211_ld = (in3[v210_off]);
        float v212_t = ((v209_t + v211_ld));
        out0[((v203_m * so0_0) + (v204_n * so0_1))] = (float)v212_t;
      }
      int v213_m = (v8_m0 + (v2_ty + 32));
      int v214_n = (v5_n0 + (v1_tx + 32));
      if (((v213_m < size0) && (v214_n < size1))) {
        float v215_mm = v19_acc;
        int v216_off = (v214_n * os2_0);
        float v217_ld = (in2[v216_off]);
        float v218_t = ((v215_mm + v217_ld));
        float v219_t = ((0.5f * v218_t * (1.0f + erff(v218_t * 0.707106781f))));
        int v220_off = ((v213_m * os3_0) + (v214_n * os3_1));
        float v221_ld = (in3[v220_off]);
        float v222_t = ((v219_t + v221_ld));
        out0[((v213_m * so0_0) + (v214_n * so0_1))] = (float)v222_t;
      }
      int v223_m = (v8_m0 + (v2_ty + 32));
      int v224_n = (v5_n0 + (v1_tx + 48));
      if (((v223_m < size0) && (v224_n < size1))) {
        float v225_mm = v20_acc;
        int v226_off = (v224_n * os2_0);
        float v227_ld = (in2[v226_off]);
        float v228_t = ((v225_mm + v227_ld));
        float v229_t = ((0.5f * v228_t * (1.0f + erff(v228_t * 0.707106781f))));
        int v230_off = ((v223_m * os3_0) + (v224_n * os3_1));
        float v231_ld = (in3[v230_off]);
        float v232_t = ((v229_t + v231_ld));
        out0[((v223_m * so0_0) + (v224_n * so0_1))] = (float)v232_t;
      }
      int v233_m = (v8_m0 + (v2_ty + 48));
      int v234_n = (v5_n0 + (v1_tx + 0));
      if (((v233_m < size0) && (v234_n < size1))) {
        float v235_mm = v21_acc;
        int v236_off = (v234_n * os2_0);
        float v237_ld = (in2[v236_off]);
        float v238_t = ((v235_mm + v237_ld));
        float v239_t = ((0.5f * v238_t * (1.0f + erff(v238_t * 0.707106781f))));
        int v240_off = ((v233_m * os3_0) + (v234_n * os3_1));
        float v241_ld = (in3[v240_off]);
        float v242_t = ((v239_t + v241_ld));
        out0[((v233_m * so0_0) + (v234_n * so0_1))] = (float)v242_t;
      }
      int v243_m = (v8_m0 + (v2_ty + 48));
      int v244_n = (v5_n0 + (v1_tx + 16));
      if (((v243_m < size0) && (v244_n < size1))) {
        float v245_mm = v22_acc;
        int v246_off = (v244_n * os2_0);
        float v247_ld = (in2[v246_off]);
        float v248_t = ((v245_mm + v247_ld));
        float v249_t = ((0.5f * v248_t * (1.0f + erff(v248_t * 0.707106781f))));
        int v250_off = ((v243_m * os3_0) + (v244_n * os3_1));
        float v251_ld = (in3[v250_off]);
        float v252_t = ((v249_t + v251_ld));
        out0[((v243_m * so0_0) + (v244_n * so0_1))] = (float)v252_t;
      }
      int v253_m = (v8_m0 + (v2_ty + 48));
      int v254_n = (v5_n0 + (v1_tx + 32));
      if (((v253_m < size0) && (v254_n < size1))) {
        float v255_mm = v23_acc;
        int v256_off = (v254_n * os2_0);
        float v257_ld = (in2[v256_off]);
        float v258_t = ((v255_mm + v257_ld));
        float v259_t = ((0.5f * v258_t * (1.0f + erff(v258_t * 0.707106781f))));
        int v260_off = ((v253_m * os3_0) + (v254_n * os3_1));
        float v261_ld = (in3[v260_off]);
        float v262_t = ((v259_t + v261_ld));
        out0[((v253_m * so0_0) + (v254_n * so0_1))] = (float)v262_t;
      }
      int v263_m = (v8_m0 + (v2_ty + 48));
      int v264_n = (v5_n0 + (v1_tx + 48));
      if (((v263_m < size0) && (v264_n < size1))) {
        float v265_mm = v24_acc;
        int v266_off = (v264_n * os2_0);
        float v267_ld = (in2[v266_off]);
        float v268_t = ((v265_mm + v267_ld));
        float v269_t = ((0.5f * v268_t * (1.0f + erff(v268_t * 0.707106781f))));
        int v270_off = ((v263_m * os3_0) + (v264_n * os3_1));
        float v271_ld = (in3[v270_off]);
        float v272_t = ((v269_t + v271_ld));
        out0[((v263_m * so0_0) + (v264_n * so0_1))] = (float)v272_t;
      }
    }
  }
}
