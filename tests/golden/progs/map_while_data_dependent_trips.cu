/* kgen 0.1.0: map_while_collatz — 1 kernel. Generated code: edits are lost. */
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

/* map_while_collatz_k0: schedule pointwise.linear.vec4, index int32, block 256, 4 elements per thread */
KG_KERNEL void map_while_collatz_k0(const int *in0, int *out0, int n) {
  int v0_i = (((int)blockIdx.x * (int)blockDim.x) + (int)threadIdx.x);
  int v1_base = (v0_i * 4);
  if (((v1_base + 4) <= n)) {
    int v2_v, v3_v, v4_v, v5_v;
    { const uint4 r = *(const uint4 *)(in0 + v1_base);
      v2_v = (int)r.x;
      v3_v = (int)r.y;
      v4_v = (int)r.z;
      v5_v = (int)r.w;
    }
    /* map function */
    int v6_n = ((int)((unsigned int)((int)((unsigned int)(v2_v < 0 ? (int)(0u - (unsigned int)v2_v) : v2_v) * (unsigned int)7)) + (unsigned int)1));
    int v7_steps = 0;
    while (1) {
      int v8_n = v6_n;
      int v9_if = 0;
      if ((v8_n != 1)) {
        int v10_steps = v7_steps;
        v9_if = (v10_steps < 1000);
      } else {
        v9_if = 0;
      }
      if ((!v9_if)) {
        break;
      }
      int v11_n = v6_n;
      if ((kg_imod_i32(v11_n, 2) == 0)) {
        int v12_n = v6_n;
        v6_n = kg_idiv_i32(v12_n, 2);
      } else {
        int v13_n = v6_n;
        v6_n = ((int)((unsigned int)((int)((unsigned int)3 * (unsigned int)v13_n)) + (unsigned int)1));
      }
      int v14_steps = v7_steps;
      v7_steps = ((int)((unsigned int)v14_steps + (unsigned int)1));
    }
    int v15_steps = v7_steps;
    int v16_ret = v15_steps;
    /* map function */
    int v17_n = ((int)((unsigned int)((int)((unsigned int)(v3_v < 0 ? (int)(0u - (unsigned int)v3_v) : v3_v) * (unsigned int)7)) + (unsigned int)1));
    int v18_steps = 0;
    while (1) {
      int v19_n = v17_n;
      int v20_if = 0;
      if ((v19_n != 1)) {
        int v21_steps = v18_steps;
        v20_if = (v21_steps < 1000);
      } else {
        v20_if = 0;
      }
      if ((!v20_if)) {
        break;
      }
      int v22_n = v17_n;
      if ((kg_imod_i32(v22_n, 2) == 0)) {
        int v23_n = v17_n;
        v17_n = kg_idiv_i32(v23_n, 2);
      } else {
        int v24_n = v17_n;
        v17_n = ((int)((unsigned int)((int)((unsigned int)3 * (unsigned int)v24_n)) + (unsigned int)1));
      }
      int v25_steps = v18_steps;
      v18_steps = ((int)((unsigned int)v25_steps + (unsigned int)1));
    }
    int v26_steps = v18_steps;
    int v27_ret = v26_steps;
    /* map function */
    int v28_n = ((int)((unsigned int)((int)((unsigned int)(v4_v < 0 ? (int)(0u - (unsigned int)v4_v) : v4_v) * (unsigned int)7)) + (unsigned int)1));
    int v29_steps = 0;
    while (1) {
      int v30_n = v28_n;
      int v31_if = 0;
      if ((v30_n != 1)) {
        int v32_steps = v29_steps;
        v31_if = (v32_steps < 1000);
      } else {
        v31_if = 0;
      }
      if ((!v31_if)) {
        break;
      }
      int v33_n = v28_n;
      if ((kg_imod_i32(v33_n, 2) == 0)) {
        int v34_n = v28_n;
        v28_n = kg_idiv_i32(v34_n, 2);
      } else {
        int v35_n = v28_n;
        v28_n = ((int)((unsigned int)((int)((unsigned int)3 * (unsigned int)v35_n)) + (unsigned int)1));
      }
      int v36_steps = v29_steps;
      v29_steps = ((int)((unsigned int)v36_steps + (unsigned int)1));
    }
    int v37_steps = v29_steps;
    int v38_ret = v37_steps;
    /* map function */
    int v39_n = ((int)((unsigned int)((int)((unsigned int)(v5_v < 0 ? (int)(0u - (unsigned int)v5_v) : v5_v) * (unsigned int)7)) + (unsigned int)1));
    int v40_steps = 0;
    while (1) {
      int v41_n = v39_n;
      int v42_if = 0;
      if ((v41_n != 1)) {
        int v43_steps = v40_steps;
        v42_if = (v43_steps < 1000);
      } else {
        v42_if = 0;
      }
      if ((!v42_if)) {
        break;
      }
      int v44_n = v39_n;
      if ((kg_imod_i32(v44_n, 2) == 0)) {
        int v45_n = v39_n;
        v39_n = kg_idiv_i32(v45_n, 2);
      } else {
        int v46_n = v39_n;
        v39_n = ((int)((unsigned int)((int)((unsigned int)3 * (unsigned int)v46_n)) + (unsigned int)1));
      }
      int v47_steps = v40_steps;
      v40_steps = ((int)((unsigned int)v47_steps + (unsigned int)1));
    }
    int v48_steps = v40_steps;
    int v49_ret = v48_steps;
    int v50_o = v16_ret;
    int v51_o = v27_ret;
    int v52_o = v38_ret;
    int v53_o = v49_ret;
    { uint4 r;
      r.x = ((unsigned int)v50_o << 0);
      r.y = ((unsigned int)v51_o << 0);
      r.z = ((unsigned int)v52_o << 0);
      r.w = ((unsigned int)v53_o << 0);
      *(uint4 *)(out0 + v1_base) = r; }
  } else {
    for (int v54_j = v1_base; v54_j < n; v54_j += 1) {
      int v55_ld = (in0[v54_j]);
      /* map function */
      int v56_n = ((int)((unsigned int)((int)((unsigned int)(v55_ld < 0 ? (int)(0u - (unsigned int)v55_ld) : v55_ld) * (unsigned int)7)) + (unsigned int)1));
      int v57_steps = 0;
      while (1) {
        int v58_n = v56_n;
        int v59_if = 0;
        if ((v58_n != 1)) {
          int v60_steps = v57_steps;
          v59_if = (v60_steps < 1000);
        } else {
          v59_if = 0;
        }
        if ((!v59_if)) {
          break;
        }
        int v61_n = v56_n;
        if ((kg_imod_i32(v61_n, 2) == 0)) {
          int v62_n = v56_n;
          v56_n = kg_idiv_i32(v62_n, 2);
        } else {
          int v63_n = v56_n;
          v56_n = ((int)((unsigned int)((int)((unsigned int)3 * (unsigned int)v63_n)) + (unsigned int)1));
        }
        int v64_steps = v57_steps;
        v57_steps = ((int)((unsigned int)v64_steps + (unsigned int)1));
      }
      int v65_steps = v57_steps;
      int v66_ret = v65_steps;
      out0[v54_j] = (int)v66_ret;
    }
  }
}
