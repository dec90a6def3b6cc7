/* codegen-cuda/prelude.h — the helper prelude every emitted translation unit
 * starts with (as text: KG_CUDA_PRELUDE). Written once, in the common subset of
 * C11 and CUDA C++, so the same text compiles under NVRTC and, after
 * kg_emu.h, under the host C compiler. Only __CUDACC__-guarded lines differ:
 * half conversions use PTX cvt on the GPU and the emulator's exact software
 * conversion on the CPU (both round to nearest even).
 *
 * Semantics the kernels rely on (ir/ir.h, ir/eval.c agree):
 *   integer ops wrap; x/0 and x%0 give 0 and MIN/-1 gives MIN (no traps);
 *   float→int conversion truncates, saturates, and maps NaN to 0;
 *   max/min/clamp propagate NaN (unlike fmaxf); shifts out of range give 0 / -1.
 *
 * On the host a kernel is static: its only caller is the loop driver or fiber trampoline
 * appended to the same text (the CPU device and the emulator look those up), so the compiler
 * builds its body once, where the driver inlines it, not a second exported copy (GoogLeNet's
 * largest CPU kernel: 36 → 20 s of GCC -O3).
 */
#ifndef KG_PRELUDE_H
#define KG_PRELUDE_H

#define KG_CUDA_PRELUDE_1 \
"#ifdef __CUDACC__\n" \
"#define KG_KERNEL extern \"C\" __global__\n" \
"#define KG_IVDEP\n" \
"#define KG_DEV static __device__ __forceinline__ __attribute__((unused))\n" \
"KG_DEV float kg_h2f(unsigned short h) { float f; asm(\"{ cvt.f32.f16 %0, %1; }\" : \"=f\"(f) : \"h\"(h)); return f; }\n" \
"KG_DEV unsigned short kg_f2h(float f) { unsigned short h; asm(\"{ cvt.rn.f16.f32 %0, %1; }\" : \"=h\"(h) : \"f\"(f)); return h; }\n" \
"#else\n" \
"#define KG_KERNEL static\n" \
"#define KG_IVDEP _Pragma(\"GCC ivdep\")\n" \
"#define __launch_bounds__(...)\n" \
"#define KG_DEV static inline __attribute__((unused))\n" \
"KG_DEV float kg_h2f(unsigned short h) { return kg_emu_h2f(h); }\n" \
"KG_DEV unsigned short kg_f2h(float f) { return kg_emu_f2h(f); }\n" \
"#endif\n" \
"#define KG_INF_F __int_as_float(0x7f800000)\n" \
"#define KG_NAN_F __int_as_float(0x7fffffff)\n" \
"#define KG_INF_D __longlong_as_double(0x7ff0000000000000LL)\n" \
"#define KG_NAN_D __longlong_as_double(0x7fffffffffffffffLL)\n" \
"KG_DEV float kg_bf2f(unsigned short h) { return __uint_as_float((unsigned int)h << 16); }\n" \
"KG_DEV unsigned short kg_f2bf(float f) {\n" \
"  unsigned int x = __float_as_uint(f);\n" \
"  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);\n" \
"  x += 0x7fffu + ((x >> 16) & 1u);\n" \
"  return (unsigned short)(x >> 16);\n" \
"}\n" \
"KG_DEV float kg_rh(float x) { return kg_h2f(kg_f2h(x)); }\n" \
"KG_DEV float kg_rbf(float x) { return kg_bf2f(kg_f2bf(x)); }\n" \
""
#define KG_CUDA_PRELUDE_2 \
"KG_DEV float kg_maxf(float a, float b) { return (a != a || b != b) ? KG_NAN_F : (a > b ? a : b); }\n" \
"KG_DEV float kg_minf(float a, float b) { return (a != a || b != b) ? KG_NAN_F : (a < b ? a : b); }\n" \
"KG_DEV double kg_maxd(double a, double b) { return (a != a || b != b) ? KG_NAN_D : (a > b ? a : b); }\n" \
"KG_DEV double kg_mind(double a, double b) { return (a != a || b != b) ? KG_NAN_D : (a < b ? a : b); }\n" \
"KG_DEV float kg_remf(float a, float b) { float r = fmodf(a, b); if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b; return r; }\n" \
"KG_DEV double kg_remd(double a, double b) { double r = fmod(a, b); if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b; return r; }\n" \
"KG_DEV float kg_signf(float a) { return a != a ? a : (float)((a > 0.0f) - (a < 0.0f)); }\n" \
"KG_DEV double kg_signd(double a) { return a != a ? a : (double)((a > 0.0) - (a < 0.0)); }\n" \
"KG_DEV float kg_lerpf(float a, float b, float w) { return w < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w); }\n" \
"KG_DEV double kg_lerpd(double a, double b, double w) { return w < 0.5 ? a + w * (b - a) : b - (b - a) * (1.0 - w); }\n" \
"KG_DEV float kg_xlogyf(float a, float b) { return b != b ? b : (a == 0.0f ? 0.0f : a * logf(b)); }\n" \
"KG_DEV double kg_xlogyd(double a, double b) { return b != b ? b : (a == 0.0 ? 0.0 : a * log(b)); }\n" \
""
#define KG_CUDA_PRELUDE_3 \
"KG_DEV int kg_isclosed(double a, double b, double rtol, double atol, int eqnan) {\n" \
"  if (a == b) return 1;\n" \
"  if (a != a || b != b) return eqnan && a != a && b != b;\n" \
"  if (isinf(a) || isinf(b)) return 0;\n" \
"  return fabs(a - b) <= atol + rtol * fabs(b);\n" \
"}\n" \
"KG_DEV float kg_softplusf(float a, float beta, float th) { return a * beta > th ? a : log1pf(expf(a * beta)) / beta; }\n" \
"KG_DEV double kg_softplusd(double a, double beta, double th) { return a * beta > th ? a : log1p(exp(a * beta)) / beta; }\n" \
"KG_DEV float kg_logsigmoidf(float a) { return (a < 0.0f ? a : 0.0f) - log1pf(expf(-fabsf(a))); }\n" \
"KG_DEV double kg_logsigmoidd(double a) { return (a < 0.0 ? a : 0.0) - log1p(exp(-fabs(a))); }\n" \
"KG_DEV float kg_nan2numf(float a, float n, float p, float m) { return a != a ? n : (a == KG_INF_F ? p : (a == -KG_INF_F ? m : a)); }\n" \
"KG_DEV double kg_nan2numd(double a, double n, double p, double m) { return a != a ? n : (a == KG_INF_D ? p : (a == -KG_INF_D ? m : a)); }\n" \
""
#define KG_CUDA_PRELUDE_4 \
"#define KG_INT_HELPERS(S, T, U, MIN, MAX, BITS)                                            \\\n" \
"KG_DEV T kg_idiv_##S(T a, T b) { return b == 0 ? (T)0 : (b == -1 ? (T)(0u - (U)a) : (T)(a / b)); } \\\n" \
"KG_DEV T kg_imod_##S(T a, T b) { return (b == 0 || b == -1) ? (T)0 : (T)(a % b); }          \\\n" \
"KG_DEV T kg_fdiv_##S(T a, T b) {                                                          \\\n" \
"  if (b == 0) return (T)0; if (b == -1) return (T)(0u - (U)a);                             \\\n" \
"  T q = (T)(a / b); if ((a % b != 0) && ((a < 0) != (b < 0))) q = (T)(q - 1); return q; }  \\\n" \
"KG_DEV T kg_frem_##S(T a, T b) {                                                          \\\n" \
"  if (b == 0 || b == -1) return (T)0;                                                     \\\n" \
"  T r = (T)(a % b); if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b); return r; }        \\\n" \
"KG_DEV T kg_ipow_##S(T a, T e) {                                                          \\\n" \
"  if (e < 0) return a == 1 ? (T)1 : (a == -1 ? ((e & 1) ? (T)-1 : (T)1) : (T)0);         \\\n" \
"  U r = 1u, x = (U)a; while (e) { if (e & 1) r *= x; x *= x; e = (T)(e >> 1); } return (T)r; } \\\n" \
"KG_DEV T kg_f2i_##S(double f) { return f != f ? (T)0 : (f <= (double)(MIN) ? (T)(MIN) : (f >= (double)(MAX) ? (T)(MAX) : (T)f)); } \\\n" \
"KG_DEV T kg_shl_##S(T a, T b) { return (b < 0 || b >= BITS) ? (T)0 : (T)((U)a << b); }     \\\n" \
"KG_DEV T kg_shr_##S(T a, T b) { return (b < 0 || b >= BITS) ? (T)(a < 0 ? -1 : 0) : (T)(a >> b); } \\\n" \
"KG_DEV T kg_nshl_##S(T a, int b) { return (T)((U)a << (b & (BITS - 1))); }                \\\n" \
"KG_DEV T kg_nshr_##S(T a, int b) { return (T)(a >> (b & (BITS - 1))); }\n" \
""
#define KG_CUDA_PRELUDE_5 \
"KG_INT_HELPERS(i8, signed char, unsigned int, -128, 127, 8)\n" \
"KG_INT_HELPERS(u8, unsigned char, unsigned int, 0, 255, 8)\n" \
"KG_INT_HELPERS(i16, short, unsigned int, -32768, 32767, 16)\n" \
"KG_INT_HELPERS(i32, int, unsigned int, (-2147483647 - 1), 2147483647, 32)\n" \
"KG_INT_HELPERS(i64, long long, unsigned long long, (-9223372036854775807LL - 1), 9223372036854775807LL, 64)\n" \
""

/* Block-wide reductions (one per accumulator type and combiner): shuffles within
 * each warp, one partial per warp through shared memory, shuffles again in warp
 * 0. The tree is fixed, so results are bit-identical run to run. Every thread of
 * the block must call it (blockDim.x a multiple of 32); thread 0 gets the result.
 * kg_ball_* broadcast the result to every thread; kg_wall_* reduce within one warp, or
 * within a segment of w lanes of it (the same shuffle tree, then the first lane's value to
 * every lane: bit-identical lanes; the mask names the segment's lanes only, so segments of
 * one warp whose rows are past the end may skip the call). */
#define KG_CUDA_PRELUDE_6 \
"KG_DEV float kg_addf(float a, float b) { return a + b; }\n" \
"KG_DEV float kg_mulf(float a, float b) { return a * b; }\n" \
"KG_DEV double kg_addd(double a, double b) { return a + b; }\n" \
"KG_DEV double kg_muld(double a, double b) { return a * b; }\n" \
"KG_DEV int kg_addi(int a, int b) { return (int)((unsigned int)a + (unsigned int)b); }\n" \
"KG_DEV int kg_muli(int a, int b) { return (int)((unsigned int)a * (unsigned int)b); }\n" \
"KG_DEV int kg_maxi(int a, int b) { return a > b ? a : b; }\n" \
"KG_DEV int kg_mini(int a, int b) { return a < b ? a : b; }\n" \
"KG_DEV long long kg_addll(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }\n" \
"KG_DEV long long kg_mulll(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }\n" \
"KG_DEV long long kg_maxll(long long a, long long b) { return a > b ? a : b; }\n" \
"KG_DEV long long kg_minll(long long a, long long b) { return a < b ? a : b; }\n" \
"#define KG_BRED(NAME, T, ID, COMB)                                                  \\\n" \
"KG_DEV T NAME(T v) {                                                                \\\n" \
"  __shared__ T kg_sm[32];                                                           \\\n" \
"  int o, lane = (int)threadIdx.x & 31, w = (int)threadIdx.x >> 5;                   \\\n" \
"  for (o = 16; o > 0; o >>= 1) v = COMB(v, __shfl_down_sync(0xffffffffu, v, o));    \\\n" \
"  if (lane == 0) kg_sm[w] = v;                                                      \\\n" \
"  __syncthreads();                                                                  \\\n" \
"  v = (int)threadIdx.x < (((int)blockDim.x + 31) >> 5) ? kg_sm[lane] : (ID);        \\\n" \
"  if (w == 0)                                                                       \\\n" \
"    for (o = 16; o > 0; o >>= 1) v = COMB(v, __shfl_down_sync(0xffffffffu, v, o));  \\\n" \
"  __syncthreads();                                                                  \\\n" \
"  return v;                                                                         \\\n" \
"}\n" \
""
#define KG_CUDA_PRELUDE_7 \
"KG_BRED(kg_bred_sum_f, float, 0.0f, kg_addf)\n" \
"KG_BRED(kg_bred_prod_f, float, 1.0f, kg_mulf)\n" \
"KG_BRED(kg_bred_max_f, float, (-KG_INF_F), kg_maxf)\n" \
"KG_BRED(kg_bred_min_f, float, KG_INF_F, kg_minf)\n" \
"KG_BRED(kg_bred_sum_d, double, 0.0, kg_addd)\n" \
"KG_BRED(kg_bred_prod_d, double, 1.0, kg_muld)\n" \
"KG_BRED(kg_bred_max_d, double, (-KG_INF_D), kg_maxd)\n" \
"KG_BRED(kg_bred_min_d, double, KG_INF_D, kg_mind)\n" \
"KG_BRED(kg_bred_sum_i, int, 0, kg_addi)\n" \
"KG_BRED(kg_bred_prod_i, int, 1, kg_muli)\n" \
"KG_BRED(kg_bred_max_i, int, (-2147483647 - 1), kg_maxi)\n" \
"KG_BRED(kg_bred_min_i, int, 2147483647, kg_mini)\n" \
"KG_BRED(kg_bred_sum_ll, long long, 0LL, kg_addll)\n" \
"KG_BRED(kg_bred_prod_ll, long long, 1LL, kg_mulll)\n" \
"KG_BRED(kg_bred_max_ll, long long, (-9223372036854775807LL - 1), kg_maxll)\n" \
"KG_BRED(kg_bred_min_ll, long long, 9223372036854775807LL, kg_minll)\n"
/* KS_DOT and KS_TPACK (ir/ir.h): the CPU products' dot lanes and transposed panels as scalar
 * loops, for NVRTC and the emulator (the CPU device defines KG_CPU_DOT16 and vector versions in
 * kg_cpu.h first); emitted only where a kernel has one */
#define KG_CUDA_PRELUDE_DOT \
"#ifndef KG_CPU_DOT16\n" \
"KG_DEV void kg_dot16_(float *P, const float *Y, long long op, const long long *xo, const long long *yo, int nj, int n) {\n" \
"  for (int t = 0; t < 2 * nj; t++)\n" \
"    for (int l = 0; l < 16; l++) {\n" \
"      float s = 0.0f;\n" \
"      for (int q = 0; q < n; q++) s += P[xo[t / nj] + 16 * q + l] * Y[yo[t % nj] + 16 * q + l];\n" \
"      P[op + 32 * t + l] = s;\n" \
"    }\n" \
"}\n" \
"KG_DEV void kg_dot16_2x2(float *P, const float *Y, long long op, long long x0, long long x1, long long y0, long long y1, int n) {\n" \
"  long long xo[2] = {x0, x1}, yo[2] = {y0, y1}; kg_dot16_(P, Y, op, xo, yo, 2, n); }\n" \
"KG_DEV void kg_dot16_2x4(float *P, const float *Y, long long op, long long x0, long long x1, long long y0, long long y1, long long y2,\n" \
"                         long long y3, int n) {\n" \
"  long long xo[2] = {x0, x1}, yo[4] = {y0, y1, y2, y3}; kg_dot16_(P, Y, op, xo, yo, 4, n); }\n" \
"KG_DEV void kg_tpack16(float *P, const float *Y, long long op, const long long *yo, int n, int ps) {\n" \
"  for (int q = 0; q < n; q++)\n" \
"    for (int j = 0; j < 16; j++) P[op + (long long)ps * q + j] = Y[yo[j] + q];\n" \
"}\n" \
"#endif\n"
#define KG_CUDA_PRELUDE_8 \
"#define KG_WALL(NAME, T, COMB)                                                      \\\n" \
"KG_DEV T NAME(T v, int w) {                                                         \\\n" \
"  unsigned m = w == 32 ? 0xffffffffu : ((1u << w) - 1u) << ((int)threadIdx.x & 31 & -w); \\\n" \
"  int o;                                                                            \\\n" \
"  for (o = w >> 1; o > 0; o >>= 1) v = COMB(v, __shfl_down_sync(m, v, o, w));       \\\n" \
"  return __shfl_sync(m, v, 0, w);                                                   \\\n" \
"}\n" \
"KG_WALL(kg_wall_sum_f, float, kg_addf) KG_WALL(kg_wall_prod_f, float, kg_mulf)\n" \
"KG_WALL(kg_wall_max_f, float, kg_maxf) KG_WALL(kg_wall_min_f, float, kg_minf)\n" \
"KG_WALL(kg_wall_sum_d, double, kg_addd) KG_WALL(kg_wall_prod_d, double, kg_muld)\n" \
"KG_WALL(kg_wall_max_d, double, kg_maxd) KG_WALL(kg_wall_min_d, double, kg_mind)\n" \
"KG_WALL(kg_wall_sum_i, int, kg_addi) KG_WALL(kg_wall_prod_i, int, kg_muli)\n" \
"KG_WALL(kg_wall_max_i, int, kg_maxi) KG_WALL(kg_wall_min_i, int, kg_mini)\n" \
"KG_WALL(kg_wall_sum_ll, long long, kg_addll) KG_WALL(kg_wall_prod_ll, long long, kg_mulll)\n" \
"KG_WALL(kg_wall_max_ll, long long, kg_maxll) KG_WALL(kg_wall_min_ll, long long, kg_minll)\n" \
"#define KG_BALL(NAME, RED, T)                                                       \\\n" \
"KG_DEV T NAME(T v) {                                                                \\\n" \
"  __shared__ T kg_b;                                                                \\\n" \
"  v = RED(v);                                                                       \\\n" \
"  if (threadIdx.x == 0) kg_b = v;                                                   \\\n" \
"  __syncthreads();                                                                  \\\n" \
"  v = kg_b;                                                                         \\\n" \
"  __syncthreads();                                                                  \\\n" \
"  return v;                                                                         \\\n" \
"}\n" \
"KG_BALL(kg_ball_sum_f, kg_bred_sum_f, float) KG_BALL(kg_ball_prod_f, kg_bred_prod_f, float)\n" \
"KG_BALL(kg_ball_max_f, kg_bred_max_f, float) KG_BALL(kg_ball_min_f, kg_bred_min_f, float)\n" \
"KG_BALL(kg_ball_sum_d, kg_bred_sum_d, double) KG_BALL(kg_ball_prod_d, kg_bred_prod_d, double)\n" \
"KG_BALL(kg_ball_max_d, kg_bred_max_d, double) KG_BALL(kg_ball_min_d, kg_bred_min_d, double)\n" \
"KG_BALL(kg_ball_sum_i, kg_bred_sum_i, int) KG_BALL(kg_ball_prod_i, kg_bred_prod_i, int)\n" \
"KG_BALL(kg_ball_max_i, kg_bred_max_i, int) KG_BALL(kg_ball_min_i, kg_bred_min_i, int)\n" \
"KG_BALL(kg_ball_sum_ll, kg_bred_sum_ll, long long) KG_BALL(kg_ball_prod_ll, kg_bred_prod_ll, long long)\n" \
"KG_BALL(kg_ball_max_ll, kg_bred_max_ll, long long) KG_BALL(kg_ball_min_ll, kg_bred_min_ll, long long)\n"

/* The random generator (docs/design.md "The random generator"), emitted only into translation
 * units that draw: Philox 4x32-10 (Salmon et al., SC'11; Random123's constants, the generator
 * PyTorch's CUDA backend uses) of the 128-bit counter (element lo, element hi, stream lo, stream
 * hi) under the 64-bit key (seed lo, seed hi), and the draws kernels make from its four words.
 * The normal draws take u1 in (0, 1) (odd multiples of 2^-24 / 2^-53: never 0) and u2 in [0, 1).
 * tools/philox_ref.py is the bit-exact reference (checked against Random123's answers). */
#define KG_CUDA_PRELUDE_RNG \
"KG_DEV unsigned int kg_mulhilo(unsigned int a, unsigned int b, unsigned int *hi) {\n" \
"  unsigned long long p = (unsigned long long)a * (unsigned long long)b;\n" \
"  *hi = (unsigned int)(p >> 32);\n" \
"  return (unsigned int)p;\n" \
"}\n" \
"KG_DEV void kg_philox(unsigned long long e, unsigned long long seed, unsigned long long ctr, unsigned int *r) {\n" \
"  unsigned int c0 = (unsigned int)e, c1 = (unsigned int)(e >> 32), c2 = (unsigned int)ctr, c3 = (unsigned int)(ctr >> 32);\n" \
"  unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32), hi0, hi1, lo0, lo1;\n" \
"  int i;\n" \
"  for (i = 0; i < 10; i++) {\n" \
"    lo0 = kg_mulhilo(0xD2511F53u, c0, &hi0);\n" \
"    lo1 = kg_mulhilo(0xCD9E8D57u, c2, &hi1);\n" \
"    c0 = hi1 ^ c1 ^ k0; c1 = lo1; c2 = hi0 ^ c3 ^ k1; c3 = lo0;\n" \
"    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;\n" \
"  }\n" \
"  r[0] = c0; r[1] = c1; r[2] = c2; r[3] = c3;\n" \
"}\n" \
"KG_DEV int kg_rand_u24(long long e, long long seed, long long ctr) {\n" \
"  unsigned int r[4]; kg_philox((unsigned long long)e, (unsigned long long)seed, (unsigned long long)ctr, r);\n" \
"  return (int)(r[0] >> 8);\n" \
"}\n" \
"KG_DEV long long kg_rand_u53(long long e, long long seed, long long ctr) {\n" \
"  unsigned int r[4]; kg_philox((unsigned long long)e, (unsigned long long)seed, (unsigned long long)ctr, r);\n" \
"  return (long long)((((unsigned long long)r[0] << 32) | r[1]) >> 11);\n" \
"}\n" \
"KG_DEV float kg_randn_f(long long e, long long seed, long long ctr) {\n" \
"  unsigned int r[4]; kg_philox((unsigned long long)e, (unsigned long long)seed, (unsigned long long)ctr, r);\n" \
"  float u1 = (float)(int)((r[0] >> 9) * 2u + 1u) * 5.96046448e-08f, u2 = (float)(int)(r[1] >> 8) * 5.96046448e-08f;\n" \
"  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318548f * u2);\n" \
"}\n" \
"KG_DEV double kg_randn_d(long long e, long long seed, long long ctr) {\n" \
"  unsigned int r[4]; kg_philox((unsigned long long)e, (unsigned long long)seed, (unsigned long long)ctr, r);\n" \
"  unsigned long long a = (((unsigned long long)r[0] << 32) | r[1]) >> 11, b = (((unsigned long long)r[2] << 32) | r[3]) >> 11;\n" \
"  double u1 = (double)(long long)((a >> 1) * 2u + 1u) * 1.1102230246251565e-16, u2 = (double)(long long)b * 1.1102230246251565e-16;\n" \
"  return sqrt(-2.0 * log(u1)) * cos(6.2831853071795865 * u2);\n" \
"}\n"

#endif
