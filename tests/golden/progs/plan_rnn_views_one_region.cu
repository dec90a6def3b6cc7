/* kgen 0.1.0: cf_rnn_elman — 2 kernels. Generated code: edits are lost. */
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

/* cf_rnn_elman_r0_k0: schedule reduce.thread_per_output, index int32, block 256, 1 element per thread */
KG_KERNEL void cf_rnn_elman_r0_k0(const float *in0, const float *in1, float *tmp0, int sr0_0, int sr0_1, int n, int rn, int size0, int size1, int size2, int st1_1, int st1_2, int os0_0, int os0_1) {
  int v0_tid = (int)threadIdx.x;
  int v1_o = (((int)blockIdx.x * (int)blockDim.x) + v0_tid);
  if ((v1_o < n)) {
    int v2_c = (v1_o % size2);
    int v3_r = (v1_o / size2);
    double v4_acc = 0.0;
    for (int v5_j = 0; v5_j < rn; v5_j += 1) {
      int v6_off = ((v5_j * st1_1) + (v2_c * st1_2));
      int v7_off = ((v3_r * os0_0) + (v5_j * os0_1));
      float v8_ld = (in0[v7_off]);
      float v9_ld = (in1[v6_off]);
      float v10_t = ((v8_ld * v9_ld));
      v4_acc = ((v4_acc + ((double)v10_t)));
    }
    double v11_tot = v4_acc;
    float v12_red = ((float)v11_tot);
    if (1) {
      tmp0[((v3_r * sr0_0) + (v2_c * sr0_1))] = (float)v12_red;
    }
  }
}

/* cf_rnn_elman_r0_k1: schedule reduce.thread_per_output, index int32, block 256, 1 element per thread */
KG_KERNEL void cf_rnn_elman_r0_k1(const float *in2, const float *in3, const float *in4, const float *tmp0, float *out0, int se0_0, int se0_1, int n, int rn, int size0, int size1, int size2, int st3_1, int st3_2, int st4_2, int st5_1, int st5_2, int sq3_0, int sq3_1, int sq4_0, int sq5_0, int sq5_1, int os2_0, int os2_1) {
  int v0_tid = (int)threadIdx.x;
  int v1_o = (((int)blockIdx.x * (int)blockDim.x) + v0_tid);
  if ((v1_o < n)) {
    int v2_c = (v1_o % size2);
    int v3_r = (v1_o / size2);
    double v4_acc = 0.0;
    for (int v5_j = 0; v5_j < rn; v5_j += 1) {
      int v6_off = ((v5_j * st3_1) + (v2_c * st3_2));
      int v7_off = (v2_c * st4_2);
      int v8_off = ((v5_j * st5_1) + (v2_c * st5_2));
      int v9_off = ((v3_r * os2_0) + (v5_j * os2_1));
      float v10_ld = (in2[v9_off]);
      float v11_ld = (in3[v6_off]);
      float v12_t = ((v10_ld * v11_ld));
      v4_acc = ((v4_acc + ((double)v12_t)));
    }
    double v13_tot = v4_acc;
    float v14_red = ((float)v13_tot);
    if (1) {
      int v15_off = ((v3_r * sq3_0) + (v2_c * sq3_1));
      int v16_off = (v2_c * sq4_0);
      int v17_off = ((v3_r * sq5_0) + (v2_c * sq5_1));
      float v18_ld = (tmp0[v17_off]);
      float v19_t = ((v18_ld + v14_red));
      float v20_ld = (in4[v16_off]);
      float v21_t = ((v19_t + v20_ld));
      float v22_t = (tanhf(v21_t));
      out0[((v3_r * se0_0) + (v2_c * se0_1))] = (float)v22_t;
    }
  }
}
