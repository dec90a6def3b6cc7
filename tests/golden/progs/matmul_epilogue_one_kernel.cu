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
      for (int v25_k1 = 0; v25_k1 < k; v25_k1 += 128) {
        float v26_part = 0.0f;
        float v27_part = 0.0f;
        float v28_part = 0.0f;
        float v29_part = 0.0f;
        float v30_part = 0.0f;
        float v31_part = 0.0f;
        float v32_part = 0.0f;
        float v33_part = 0.0f;
        float v34_part = 0.0f;
        float v35_part = 0.0f;
        float v36_part = 0.0f;
        float v37_part = 0.0f;
        float v38_part = 0.0f;
        float v39_part = 0.0f;
        float v40_part = 0.0f;
        float v41_part = 0.0f;
        for (int v42_k0 = v25_k1; v42_k0 < ((v25_k1 + 128) < k ? (v25_k1 + 128) : k); v42_k0 += 16) {
          /* prologue: the A tile */
          int v43_te = (v0_tid / 16);
          int v44_tf = (v0_tid % 16);
          int v45_g = (v8_m0 + v43_te);
          int v46_gk = (v42_k0 + v44_tf);
          float v47_a = 0.0f;
          if (((v45_g < size0) && (v46_gk < k))) {
            int v48_off = ((v45_g * os0_0) + (v46_gk * os0_1));
            float v49_ld = (in0[v48_off]);
            v47_a = v49_ld;
          }
          sh0_a[((v44_tf * 65) + v43_te)] = v47_a;
          int v50_e = (v0_tid + 256);
          int v51_te = (v50_e / 16);
          int v52_tf = (v50_e % 16);
          int v53_g = (v8_m0 + v51_te);
          int v54_gk = (v42_k0 + v52_tf);
          float v55_a = 0.0f;
          if (((v53_g < size0) && (v54_gk < k))) {
            int v56_off = ((v53_g * os0_0) + (v54_gk * os0_1));
            float v57_ld = (in0[v56_off]);
            v55_a = v57_ld;
          }
          sh0_a[((v52_tf * 65) + v51_te)] = v55_a;
          int v58_e = (v0_tid + 512);
          int v59_te = (v58_e / 16);
          int v60_tf = (v58_e % 16);
          int v61_g = (v8_m0 + v59_te);
          int v62_gk = (v42_k0 + v60_tf);
          float v63_a = 0.0f;
          if (((v61_g < size0) && (v62_gk < k))) {
            int v64_off = ((v61_g * os0_0) + (v62_gk * os0_1));
            float v65_ld = (in0[v64_off]);
            v63_a = v65_ld;
          }
          sh0_a[((v60_tf * 65) + v59_te)] = v63_a;
          int v66_e = (v0_tid + 768);
          int v67_te = (v66_e / 16);
          int v68_tf = (v66_e % 16);
          int v69_g = (v8_m0 + v67_te);
          int v70_gk = (v42_k0 + v68_tf);
          float v71_a = 0.0f;
          if (((v69_g < size0) && (v70_gk < k))) {
            int v72_off = ((v69_g * os0_0) + (v70_gk * os0_1));
            float v73_ld = (in0[v72_off]);
            v71_a = v73_ld;
          }
          sh0_a[((v68_tf * 65) + v67_te)] = v71_a;
          /* prologue: the B tile */
          int v74_te = (v0_tid / 16);
          int v75_tf = (v0_tid % 16);
          int v76_g = (v5_n0 + v74_te);
          int v77_gk = (v42_k0 + v75_tf);
          float v78_a = 0.0f;
          if (((v76_g < size1) && (v77_gk < k))) {
            int v79_off = ((v76_g * os1_0) + (v77_gk * os1_1));
            float v80_ld = (in1[v79_off]);
            v78_a = v80_ld;
          }
          sh1_b[((v75_tf * 65) + v74_te)] = v78_a;
          int v81_e = (v0_tid + 256);
          int v82_te = (v81_e / 16);
          int v83_tf = (v81_e % 16);
          int v84_g = (v5_n0 + v82_te);
          int v85_gk = (v42_k0 + v83_tf);
          float v86_a = 0.0f;
          if (((v84_g < size1) && (v85_gk < k))) {
            int v87_off = ((v84_g * os1_0) + (v85_gk * os1_1));
            float v88_ld = (in1[v87_off]);
            v86_a = v88_ld;
          }
          sh1_b[((v83_tf * 65) + v82_te)] = v86_a;
          int v89_e = (v0_tid + 512);
          int v90_te = (v89_e / 16);
          int v91_tf = (v89_e % 16);
          int v92_g = (v5_n0 + v90_te);
          int v93_gk = (v42_k0 + v91_tf);
          float v94_a = 0.0f;
          if (((v92_g < size1) && (v93_gk < k))) {
            int v95_off = ((v92_g * os1_0) + (v93_gk * os1_1));
            float v96_ld = (in1[v95_off]);
            v94_a = v96_ld;
          }
          sh1_b[((v91_tf * 65) + v90_te)] = v94_a;
          int v97_e = (v0_tid + 768);
          int v98_te = (v97_e / 16);
          int v99_tf = (v97_e % 16);
          int v100_g = (v5_n0 + v98_te);
          int v101_gk = (v42_k0 + v99_tf);
          float v102_a = 0.0f;
          if (((v100_g < size1) && (v101_gk < k))) {
            int v103_off = ((v100_g * os1_0) + (v101_gk * os1_1));
            float v104_ld = (in1[v103_off]);
            v102_a = v104_ld;
          }
          sh1_b[((v99_tf * 65) + v98_te)] = v102_a;
          __syncthreads();
          for (int v105_kk = 0; v105_kk < 16; v105_kk += 1) {
            float v106_x = sh0_a[((v105_kk * 65) + (v2_ty + 0))];
            float v107_x = sh0_a[((v105_kk * 65) + (v2_ty + 16))];
            float v108_x = sh0_a[((v105_kk * 65) + (v2_ty + 32))];
            float v109_x = sh0_a[((v105_kk * 65) + (v2_ty + 48))];
            float v110_y = sh1_b[((v105_kk * 65) + (v1_tx + 0))];
            float v111_y = sh1_b[((v105_kk * 65) + (v1_tx + 16))];
            float v112_y = sh1_b[((v105_kk * 65) + (v1_tx + 32))];
            float v113_y = sh1_b[((v105_kk * 65) + (v1_tx + 48))];
            v26_part = ((v26_part + ((v106_x * v110_y))));
            v27_part = ((v27_part + ((v106_x * v111_y))));
            v28_part = ((v28_part + ((v106_x * v112_y))));
            v29_part = ((v29_part + ((v106_x * v113_y))));
            v30_part = ((v30_part + ((v107_x * v110_y))));
            v31_part = ((v31_part + ((v107_x * v111_y))));
            v32_part = ((v32_part + ((v107_x * v112_y))));
            v33_part = ((v33_part + ((v107_x * v113_y))));
            v34_part = ((v34_part + ((v108_x * v110_y))));
            v35_part = ((v35_part + ((v108_x * v111_y))));
            v36_part = ((v36_part + ((v108_x * v112_y))));
            v37_part = ((v37_part + ((v108_x * v113_y))));
            v38_part = ((v38_part + ((v109_x * v110_y))));
            v39_part = ((v39_part + ((v109_x * v111_y))));
            v40_part = ((v40_part + ((v109_x * v112_y))));
            v41_part = ((v41_part + ((v109_x * v113_y))));
          }
          __syncthreads();
        }
        v9_acc = ((v9_acc + v26_part));
        v10_acc = ((v10_acc + v27_part));
        v11_acc = ((v11_acc + v28_part));
        v12_acc = ((v12_acc + v29_part));
        v13_acc = ((v13_acc + v30_part));
        v14_acc = ((v14_acc + v31_part));
        v15_acc = ((v15_acc + v32_part));
        v16_acc = ((v16_acc + v33_part));
        v17_acc = ((v17_acc + v34_part));
        v18_acc = ((v18_acc + v35_part));
        v19_acc = ((v19_acc + v36_part));
        v20_acc = ((v20_acc + v37_part));
        v21_acc = ((v21_acc + v38_part));
        v22_acc = ((v22_acc + v39_part));
        v23_acc = ((v23_acc + v40_part));
        v24_acc = ((v24_acc + v41_part));
      }
      /* epilogue */
      int v114_m = (v8_m0 + (v2_ty + 0));
      int v115_n = (v5_n0 + (v1_tx + 0));
      if (((v114_m < size0) && (v115_n < size1))) {
        float v116_mm = v9_acc;
        int v117_off = (v115_n * os2_0);
        float v118_ld = (in2[v117_off]);
        float v119_t = ((v116_mm + v118_ld));
        float v120_t = ((0.5f * v119_t * (1.0f + erff(v119_t * 0.707106781f))));
        int v121_off = ((v114_m * os3_0) + (v115_n * os3_1));
        float v122_ld = (in3[v121_off]);
        float v123_t = ((v120_t + v122_ld));
        out0[((v114_m * so0_0) + (v115_n * so0_1))] = (float)v123_t;
      }
      int v124_m = (v8_m0 + (v2_ty + 0));
      int v125_n = (v5_n0 + (v1_tx + 16));
      if (((v124_m < size0) && (v125_n < size1))) {
        float v126_mm = v10_acc;
        int v127_off = (v125_n * os2_0);
        float v128_ld = (in2[v127_off]);
        float v129_t = ((v126_mm + v128_ld));
        float v130_t = ((0.5f * v129_t * (1.0f + erff(v129_t * 0.707106781f))));
        int v131_off = ((v124_m * os3_0) + (v125_n * os3_1));
        float v132_ld = (in3[v131_off]);
        float v133_t = ((v130_t + v132_ld));
        out0[((v124_m * so0_0) + (v125_n * so0_1))] = (float)v133_t;
      }
      int v134_m = (v8_m0 + (v2_ty + 0));
      int v135_n = (v5_n0 + (v1_tx + 32));
      if (((v134_m < size0) && (v135_n < size1))) {
        float v136_mm = v11_acc;
        int v137_off = (v135_n * os2_0);
        float v138_ld = (in2[v137_off]);
        float v139_t = ((v136_mm + v138_ld));
        float v140_t = ((0.5f * v139_t * (1.0f + erff(v139_t * 0.707106781f))));
        int v141_off = ((v134_m * os3_0) + (v135_n * os3_1));
        float v142_ld = (in3[v141_off]);
        float v143_t = ((v140_t + v142_ld));
        out0[((v134_m * so0_0) + (v135_n * so0_1))] = (float)v143_t;
      }
      int v144_m = (v8_m0 + (v2_ty + 0));
      int v145_n = (v5_n0 + (v1_tx + 48));
      if (((v144_m < size0) && (v145_n < size1))) {
        float v146_mm = v12_acc;
        int v147_off = (v145_n * os2_0);
        float v148_ld = (in2[v147_off]);
        float v149_t = ((v146_mm + v148_ld));
        float v150_t = ((0.5f * v149_t * (1.0f + erff(v149_t * 0.707106781f))));
        int v151_off = ((v144_m * os3_0) + (v145_n * os3_1));
        float v152_ld = (in3[v151_off]);
        float v153_t = ((v150_t + v152_ld));
        out0[((v144_m * so0_0) + (v145_n * so0_1))] = (float)v153_t;
      }
      int v154_m = (v8_m0 + (v2_ty + 16));
      int v155_n = (v5_n0 + (v1_tx + 0));
      if (((v154_m < size0) && (v155_n < size1))) {
        float v156_mm = v13_acc;
        int v157_off = (v155_n * os2_0);
        float v158_ld = (in2[v157_off]);
        float v159_t = ((v156_mm + v158_ld));
        float v160_t = ((0.5f * v159_t * (1.0f + erff(v159_t * 0.707106781f))));
        int v161_off = ((v154_m * os3_0) + (v155_n * os3_1));
        float v162_ld = (in3[v161_off]);
        float v163_t = ((v160_t + v162_ld));
        out0[((v154_m * so0_0) + (v155_n * so0_1))] = (float)v163_t;
      }
      int v164_m = (v8_m0 + (v2_ty + 16));
      int v165_n = (v5_n0 + (v1_tx + 16));
      if (((v164_m < size0) && (v165_n < size1))) {
        float v166_mm = v14_acc;
        int v167_off = (v165_n * os2_0);
        float v168_ld = (in2[v167_off]);
        float v169_t = ((v166_mm + v168_ld));
        float v170_t = ((0.5f * v169_t * (1.0f + erff(v169_t * 0.707106781f))));
        int v171_off = ((v164_m * os3_0) + (v165_n * os3_1));
        float v172_ld = (in3[v171_off]);
        float v173_t = ((v170_t + v172_ld));
        out0[((v164_m * so0_0) + (v165_n * so0_1))] = (float)v173_t;
      }
      int v174_m = (v8_m0 + (v2_ty + 16));
      int v175_n = (v5_n0 + (v1_tx + 32));
      if (((v174_m < size0) && (v175_n < size1))) {
        float v176_mm = v15_acc;
        int v177_off = (v175_n * os2_0);
        float v178_ld = (in2[v177_off]);
        float v179_t = ((v176_mm + v178_ld));
        float v180_t = ((0.5f * v179_t * (1.0f + erff(v179_t * 0.707106781f))));
        int v181_off = ((v174_m * os3_0) + (v175_n * os3_1));
        float v182_ld = (in3[v181_off]);
        float v183_t = ((v180_t + v182_ld));
        out0[((v174_m * so0_0) + (v175_n * so0_1))] = (float)v183_t;
      }
      int v184_m = (v8_m0 + (v2_ty + 16));
      int v185_n = (v5_n0 + (v1_tx + 48));
      if (((v184_m < size0) && (v185_n < size1))) {
        float v186_mm = v16_acc;
        int v187_off = (v185_n * os2_0);
        float v188_ld = (in2[v187_off]);
        float v189_t = ((v186_mm + v188_ld));
        float v190_t = ((0.5f * v189_t * (1.0f + erff(v189_t * 0.707106781f))));
        int v191_off = ((v184_m * os3_0) + (v185_n * os3_1));
        float v192_ld = (in3[v191_off]);
        float v193_t = ((v190_t + v192_ld));
        out0[((v184_m * so0_0) + (v185_n * so0_1))] = (float)v193_t;
      }
      int v194_m = (v8_m0 + (v2_ty + 32));
      int v195_n = (v5_n0 + (v1_tx + 0));
      if (((v194_m < size0) && (v195_n < size1))) {
        float v196_mm = v17_acc;
        int v197_off = (v195_n * os2_0);
        float v198_ld = (in2[v197_off]);
        float v199_t = ((v196_mm + v198_ld));
        float v200_t = ((0.5f * v199_t * (1.0f + erff(v199_t * 0.707106781f))));
        int v201_off = ((v194_m * os3_0) + (v195_n * os3_1));
        float v202_ld = (in3[v201_off]);
        float v203_t = ((v200_t + v202_ld));
        out0[((v194_m * so0_0) + (v195_n * so0_1))] = (float)v203_t;
      }
      int v204_m = (v8_m0 + (v2_ty + 32));
      int v205_n = (v5_n0 + (v1_tx + 16));
      if (((v204_m < size0) && (v205_n < size1))) {
        float v206_mm = v18_acc;
        int v207_off = (v205_n * os2_0);
        float v208_ld = (in2[v207_off]);
        float v209_t = ((v206_mm + v208_ld));
        float v210_t = ((0.5f * v209_t * (1.0f + erff(v209_t * 0.707106781f))));
        int v211_off = ((v204_m * os3_0) + (v205_n * os3_1));
        float v212_ld = (in3[v211_off]);
        float v213_t = ((v210_t + v212_ld));
        out0[((v204_m * so0_0) + (v205_n * so0_1))] = (float)v213_t;
      }
      int v214_m = (v8_m0 + (v2_ty + 32));
      int v215_n = (v5_n0 + (v1_tx + 32));
      if (((v214_m < size0) && (v215_n < size1))) {
        float v216_mm = v19_acc;
        int v217_off = (v215_n * os2_0);
        float v218_ld = (in2[v217_off]);
        float v219_t = ((v216_mm + v218_ld));
        float v220_t = ((0.5f * v219_t * (1.0f + erff(v219_t * 0.707106781f))));
        int v221_off = ((v214_m * os3_0) + (v215_n * os3_1));
        float v222_ld = (in3[v221_off]);
        float v223_t = ((v220_t + v222_ld));
        out0[((v214_m * so0_0) + (v215_n * so0_1))] = (float)v223_t;
      }
      int v224_m = (v8_m0 + (v2_ty + 32));
      int v225_n = (v5_n0 + (v1_tx + 48));
      if (((v224_m < size0) && (v225_n < size1))) {
        float v226_mm = v20_acc;
        int v227_off = (v225_n * os2_0);
        float v228_ld = (in2[v227_off]);
        float v229_t = ((v226_mm + v228_ld));
        float v230_t = ((0.5f * v229_t * (1.0f + erff(v229_t * 0.707106781f))));
        int v231_off = ((v224_m * os3_0) + (v225_n * os3_1));
        float v232_ld = (in3[v231_off]);
        float v233_t = ((v230_t + v232_ld));
        out0[((v224_m * so0_0) + (v225_n * so0_1))] = (float)v233_t;
      }
      int v234_m = (v8_m0 + (v2_ty + 48));
      int v235_n = (v5_n0 + (v1_tx + 0));
      if (((v234_m < size0) && (v235_n < size1))) {
        float v236_mm = v21_acc;
        int v237_off = (v235_n * os2_0);
        float v238_ld = (in2[v237_off]);
        float v239_t = ((v236_mm + v238_ld));
        float v240_t = ((0.5f * v239_t * (1.0f + erff(v239_t * 0.707106781f))));
        int v241_off = ((v234_m * os3_0) + (v235_n * os3_1));
        float v242_ld = (in3[v241_off]);
        float v243_t = ((v240_t + v242_ld));
        out0[((v234_m * so0_0) + (v235_n * so0_1))] = (float)v243_t;
      }
      int v244_m = (v8_m0 + (v2_ty + 48));
      int v245_n = (v5_n0 + (v1_tx + 16));
      if (((v244_m < size0) && (v245_n < size1))) {
        float v246_mm = v22_acc;
        int v247_off = (v245_n * os2_0);
        float v248_ld = (in2[v247_off]);
        float v249_t = ((v246_mm + v248_ld));
        float v250_t = ((0.5f * v249_t * (1.0f + erff(v249_t * 0.707106781f))));
        int v251_off = ((v244_m * os3_0) + (v245_n * os3_1));
        float v252_ld = (in3[v251_off]);
        float v253_t = ((v250_t + v252_ld));
        out0[((v244_m * so0_0) + (v245_n * so0_1))] = (float)v253_t;
      }
      int v254_m = (v8_m0 + (v2_ty + 48));
      int v255_n = (v5_n0 + (v1_tx + 32));
      if (((v254_m < size0) && (v255_n < size1))) {
        float v256_mm = v23_acc;
        int v257_off = (v255_n * os2_0);
        float v258_ld = (in2[v257_off]);
        float v259_t = ((v256_mm + v258_ld));
        float v260_t = ((0.5f * v259_t * (1.0f + erff(v259_t * 0.707106781f))));
        int v261_off = ((v254_m * os3_0) + (v255_n * os3_1));
        float v262_ld = (in3[v261_off]);
        float v263_t = ((v260_t + v262_ld));
        out0[((v254_m * so0_0) + (v255_n * so0_1))] = (float)v263_t;
      }
      int v264_m = (v8_m0 + (v2_ty + 48));
      int v265_n = (v5_n0 + (v1_tx + 48));
      if (((v264_m < size0) && (v265_n < size1))) {
        float v266_mm = v24_acc;
        int v267_off = (v265_n * os2_0);
        float v268_ld = (in2[v267_off]);
        float v269_t = ((v266_mm + v268_ld));
        float v270_t = ((0.5f * v269_t * (1.0f + erff(v269_t * 0.707106781f))));
        int v271_off = ((v264_m * os3_0) + (v265_n * os3_1));
        float v272_ld = (in3[v271_off]);
        float v273_t = ((v270_t + v272_ld));
        out0[((v264_m * so0_0) + (v265_n * so0_1))] = (float)v273_t;
      }
    }
  }
}
