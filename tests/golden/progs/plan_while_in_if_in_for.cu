/* kgen 0.1.0: cf_nested_mixed — 4 kernels. Generated code: edits are lost. */
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
KG_DEV float kg_addf(float a, float b) { return a + b; }
KG_DEV float kg_mulf(float a, float b) { return a * b; }
KG_DEV double kg_addd(double a, double b) { return a + b; }
KG_DEV double kg_muld(double a, double b) { return a * b; }
KG_DEV int kg_addi(int a, int b) { return (int)((unsigned int)a + (unsigned int)b); }
KG_DEV int kg_muli(int a, int b) { return (int)((unsigned int)a * (unsigned int)b); }
KG_DEV int kg_maxi(int a, int b) { return a > b ? a : b; }
KG_DEV int kg_mini(int a, int b) { return a < b ? a : b; }
KG_DEV long long kg_addll(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
KG_DEV long long kg_mulll(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
KG_DEV long long kg_maxll(long long a, long long b) { return a > b ? a : b; }
KG_DEV long long kg_minll(long long a, long long b) { return a < b ? a : b; }
#define KG_BRED(NAME, T, ID, COMB)                                                  \
KG_DEV T NAME(T v) {                                                                \
  __shared__ T kg_sm[32];                                                           \
  int o, lane = (int)threadIdx.x & 31, w = (int)threadIdx.x >> 5;                   \
  for (o = 16; o > 0; o >>= 1) v = COMB(v, __shfl_down_sync(0xffffffffu, v, o));    \
  if (lane == 0) kg_sm[w] = v;                                                      \
  __syncthreads();                                                                  \
  v = (int)threadIdx.x < (((int)blockDim.x + 31) >> 5) ? kg_sm[lane] : (ID);        \
  if (w == 0)                                                                       \
    for (o = 16; o > 0; o >>= 1) v = COMB(v, __shfl_down_sync(0xffffffffu, v, o));  \
  __syncthreads();                                                                  \
  return v;                                                                         \
}
KG_BRED(kg_bred_sum_f, float, 0.0f, kg_addf)
KG_BRED(kg_bred_prod_f, float, 1.0f, kg_mulf)
KG_BRED(kg_bred_max_f, float, (-KG_INF_F), kg_maxf)
KG_BRED(kg_bred_min_f, float, KG_INF_F, kg_minf)
KG_BRED(kg_bred_sum_d, double, 0.0, kg_addd)
KG_BRED(kg_bred_prod_d, double, 1.0, kg_muld)
KG_BRED(kg_bred_max_d, double, (-KG_INF_D), kg_maxd)
KG_BRED(kg_bred_min_d, double, KG_INF_D, kg_mind)
KG_BRED(kg_bred_sum_i, int, 0, kg_addi)
KG_BRED(kg_bred_prod_i, int, 1, kg_muli)
KG_BRED(kg_bred_max_i, int, (-2147483647 - 1), kg_maxi)
KG_BRED(kg_bred_min_i, int, 2147483647, kg_mini)
KG_BRED(kg_bred_sum_ll, long long, 0LL, kg_addll)
KG_BRED(kg_bred_prod_ll, long long, 1LL, kg_mulll)
KG_BRED(kg_bred_max_ll, long long, (-9223372036854775807LL - 1), kg_maxll)
KG_BRED(kg_bred_min_ll, long long, 9223372036854775807LL, kg_minll)
#define KG_WALL(NAME, T, COMB)                                                      \
KG_DEV T NAME(T v, int w) {                                                         \
  unsigned m = w == 32 ? 0xffffffffu : ((1u << w) - 1u) << ((int)threadIdx.x & 31 & -w); \
  int o;                                                                            \
  for (o = w >> 1; o > 0; o >>= 1) v = COMB(v, __shfl_down_sync(m, v, o, w));       \
  return __shfl_sync(m, v, 0, w);                                                   \
}
KG_WALL(kg_wall_sum_f, float, kg_addf) KG_WALL(kg_wall_prod_f, float, kg_mulf)
KG_WALL(kg_wall_max_f, float, kg_maxf) KG_WALL(kg_wall_min_f, float, kg_minf)
KG_WALL(kg_wall_sum_d, double, kg_addd) KG_WALL(kg_wall_prod_d, double, kg_muld)
KG_WALL(kg_wall_max_d, double, kg_maxd) KG_WALL(kg_wall_min_d, double, kg_mind)
KG_WALL(kg_wall_sum_i, int, kg_addi) KG_WALL(kg_wall_prod_i, int, kg_muli)
KG_WALL(kg_wall_max_i, int, kg_maxi) KG_WALL(kg_wall_min_i, int, kg_mini)
KG_WALL(kg_wall_sum_ll, long long, kg_addll) KG_WALL(kg_wall_prod_ll, long long, kg_mulll)
KG_WALL(kg_wall_max_ll, long long, kg_maxll) KG_WALL(kg_wall_min_ll, long long, kg_minll)
#define KG_BALL(NAME, RED, T)                                                       \
KG_DEV T NAME(T v) {                                                                \
  __shared__ T kg_b;                                                                \
  v = RED(v);                                                                       \
  if (threadIdx.x == 0) kg_b = v;                                                   \
  __syncthreads();                                                                  \
  v = kg_b;                                                                         \
  __syncthreads();                                                                  \
  return v;                                                                         \
}
KG_BALL(kg_ball_sum_f, kg_bred_sum_f, float) KG_BALL(kg_ball_prod_f, kg_bred_prod_f, float)
KG_BALL(kg_ball_max_f, kg_bred_max_f, float) KG_BALL(kg_ball_min_f, kg_bred_min_f, float)
KG_BALL(kg_ball_sum_d, kg_bred_sum_d, double) KG_BALL(kg_ball_prod_d, kg_bred_prod_d, double)
KG_BALL(kg_ball_max_d, kg_bred_max_d, double) KG_BALL(kg_ball_min_d, kg_bred_min_d, double)
KG_BALL(kg_ball_sum_i, kg_bred_sum_i, int) KG_BALL(kg_ball_prod_i, kg_bred_prod_i, int)
KG_BALL(kg_ball_max_i, kg_bred_max_i, int) KG_BALL(kg_ball_min_i, kg_bred_min_i, int)
KG_BALL(kg_ball_sum_ll, kg_bred_sum_ll, long long) KG_BALL(kg_ball_prod_ll, kg_bred_prod_ll, long long)
KG_BALL(kg_ball_max_ll, kg_bred_max_ll, long long) KG_BALL(kg_ball_min_ll, kg_bred_min_ll, long long)

/* cf_nested_mixed_r0_k0: schedule pointwise.linear.vec4, index int32, block 256, 4 elements per thread */
KG_KERNEL void cf_nested_mixed_r0_k0(const float *in0, float *out0, int n) {
  int v0_i = (((int)blockIdx.x * (int)blockDim.x) + (int)threadIdx.x);
  int v1_base = (v0_i * 4);
  if (((v1_base + 4) <= n)) {
    float v2_v, v3_v, v4_v, v5_v;
    { const uint4 r = *(const uint4 *)(in0 + v1_base);
      v2_v = __uint_as_float(r.x);
      v3_v = __uint_as_float(r.y);
      v4_v = __uint_as_float(r.z);
      v5_v = __uint_as_float(r.w);
    }
    float v6_t = ((v2_v * 0.00999999978f));
    float v7_t = ((v3_v * 0.00999999978f));
    float v8_t = ((v4_v * 0.00999999978f));
    float v9_t = ((v5_v * 0.00999999978f));
    float v10_o = v6_t;
    float v11_o = v7_t;
    float v12_o = v8_t;
    float v13_o = v9_t;
    { uint4 r;
      r.x = (__float_as_uint(v10_o) << 0);
      r.y = (__float_as_uint(v11_o) << 0);
      r.z = (__float_as_uint(v12_o) << 0);
      r.w = (__float_as_uint(v13_o) << 0);
      *(uint4 *)(out0 + v1_base) = r; }
  } else {
    for (int v14_j = v1_base; v14_j < n; v14_j += 1) {
      float v15_ld = (in0[v14_j]);
      float v16_t = ((v15_ld * 0.00999999978f));
      out0[v14_j] = (float)v16_t;
    }
  }
}

/* cf_nested_mixed_r1_k0: schedule pointwise.linear.vec4, index int32, block 256, 4 elements per thread */
KG_KERNEL void cf_nested_mixed_r1_k0(const float *in0, float *out0, int n) {
  int v0_i = (((int)blockIdx.x * (int)blockDim.x) + (int)threadIdx.x);
  int v1_base = (v0_i * 4);
  if (((v1_base + 4) <= n)) {
    float v2_v, v3_v, v4_v, v5_v;
    { const uint4 r = *(const uint4 *)(in0 + v1_base);
      v2_v = __uint_as_float(r.x);
      v3_v = __uint_as_float(r.y);
      v4_v = __uint_as_float(r.z);
      v5_v = __uint_as_float(r.w);
    }
    float v6_t = ((v2_v * 0.5f));
    float v7_t = ((v3_v * 0.5f));
    float v8_t = ((v4_v * 0.5f));
    float v9_t = ((v5_v * 0.5f));
    float v10_o = v6_t;
    float v11_o = v7_t;
    float v12_o = v8_t;
    float v13_o = v9_t;
    { uint4 r;
      r.x = (__float_as_uint(v10_o) << 0);
      r.y = (__float_as_uint(v11_o) << 0);
      r.z = (__float_as_uint(v12_o) << 0);
      r.w = (__float_as_uint(v13_o) << 0);
      *(uint4 *)(out0 + v1_base) = r; }
  } else {
    for (int v14_j = v1_base; v14_j < n; v14_j += 1) {
      float v15_ld = (in0[v14_j]);
      float v16_t = ((v15_ld * 0.5f));
      out0[v14_j] = (float)v16_t;
    }
  }
}

/* cf_nested_mixed_r2_k0: schedule reduce.block_per_output, index int32, block 256, 1 element per thread */
KG_KERNEL void cf_nested_mixed_r2_k0(const float *in0, float *out0, int n, int rn, int size0, int size1, int st0_0, int st0_1) {
  int v0_tid = (int)threadIdx.x;
  int v1_o = (int)blockIdx.x;
  float v2_acc = (-KG_INF_F);
  for (int v3_j = v0_tid; v3_j < rn; v3_j += (int)blockDim.x) {
    int v4_rc = (v3_j % size1);
    int v5_r = (v3_j / size1);
    int v6_off = ((v5_r * st0_0) + (v4_rc * st0_1));
    float v7_ld = (in0[v6_off]);
    float v8_t = (fabsf(v7_ld));
    v2_acc = (kg_maxf(v2_acc, v8_t));
  }
  float v9_tot = kg_ball_max_f(v2_acc);
  float v10_red = v9_tot;
  if ((v0_tid == 0)) {
    out0[0] = (float)v10_red;
  }
}

/* cf_nested_mixed_r3_k0: schedule pointwise.linear.vec4, index int32, block 256, 4 elements per thread */
KG_KERNEL void cf_nested_mixed_r3_k0(const float *in0, float *out0, int n) {
  int v0_i = (((int)blockIdx.x * (int)blockDim.x) + (int)threadIdx.x);
  int v1_base = (v0_i * 4);
  if (((v1_base + 4) <= n)) {
    float v2_v, v3_v, v4_v, v5_v;
    { const uint4 r = *(const uint4 *)(in0 + v1_base);
      v2_v = __uint_as_float(r.x);
      v3_v = __uint_as_float(r.y);
      v4_v = __uint_as_float(r.z);
      v5_v = __uint_as_float(r.w);
    }
    float v6_t = ((v2_v * 2.0f));
    float v7_t = ((v6_t + 0.100000001f));
    float v8_t = ((v3_v * 2.0f));
    float v9_t = ((v8_t + 0.100000001f));
    float v10_t = ((v4_v * 2.0f));
    float v11_t = ((v10_t + 0.100000001f));
    float v12_t = ((v5_v * 2.0f));
    float v13_t = ((v12_t + 0.100000001f));
    float v14_o = v7_t;
    float v15_o = v9_t;
    float v16_o = v11_t;
    float v17_o = v13_t;
    { uint4 r;
      r.x = (__float_as_uint(v14_o) << 0);
      r.y = (__float_as_uint(v15_o) << 0);
      r.z = (__float_as_uint(v16_o) << 0);
      r.w = (__float_as_uint(v17_o) << 0);
      *(uint4 *)(out0 + v1_base) = r; }
  } else {
    for (int v18_j = v1_base; v18_j < n; v18_j += 1) {
      float v19_ld = (in0[v18_j]);
      float v20_t = ((v19_ld * 2.0f));
      float v21_t = ((v20_t + 0.100000001f));
      out0[v18_j] = (float)v21_t;
    }
  }
}
