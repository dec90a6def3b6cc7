/* tests/test_mma_cpu.c — the CPU device's product schedules (passes/lower_matmul_cpu.c, issue 25):
 * its target never takes a tensor-core tier, forced or not, and its codegen and device refuse a
 * tensor-core kernel; the packed panel's register blocks from the CPU's vector registers, the dot
 * schedule for few rows times a weight stored [N, K] and the transposed panel (KS_DOT, KS_TPACK)
 * against float64 products; the text of those kernels through NVRTC (sm_80 and sm_90, no spills
 * in the dot kernels). Moved out of tests/test_mma.c, which keeps the tensor-core tiers. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mma_util.h"

/* ---- the CPU device has no tensor cores (issue 25) ----
 * Its target (kg_target_cpu) never gets a tensor-core tier, not even when a test forces the
 * tier; its codegen refuses a tensor-core kernel handed to it, and the device says so. */
Test(mma_cpu, cpu_target_never_picks_tensor_cores) {
  kg_target cpu = kg_target_cpu(4);
  cr_expect_eq(cpu.arch, 0);
  cr_expect_not(cpu.wgmma);
  kg_group_facts gf = mm_facts(KG_F16, 0, 4096, true);
  kg_sched_facts x = run_facts(4096, 4096);
  x.mm_tma[0] = x.mm_tma[1] = true;
  for (int f = 0; f < 2; f++) {
    x.force = f ? KG_SCHED_TENSOR_CORES : 0;
    kg_variant v = kg_schedule_choose(&gf, &x, &cpu).v;
    cr_expect_eq(kg_mm_tile_get((kg_mm_tile)v.mm_tile)->tier, 0, "force %d: a CPU tile", x.force);
    cr_expect(kg_mm_tile_cpu(v.mm_tile), "force %d: the packed CPU schedule, not %u", x.force, v.mm_tile);
    cr_expect_eq(v.cpu, 1);
  }
  x.runtime = false; /* compile-time facts: the GPU's rules, but a target without mma.sync */
  cr_expect_eq(kg_mm_tile_get((kg_mm_tile)kg_schedule_choose(&gf, &x, &cpu).v.mm_tile)->tier, 0);
  gf.mm_dtype = KG_F32;
  x.runtime = true, x.force = KG_SCHED_TENSOR_CORES;
  cr_expect_eq(kg_mm_tile_get((kg_mm_tile)kg_schedule_choose(&gf, &x, &cpu).v.mm_tile)->tier, 0, "float32, forced");
}

/* The CPU schedule's register blocks follow the CPU's vector registers: 8 rows of 16 where there
 * are 32 (AVX-512: 8 accumulators, their block sums, the panel's row), 4 where there are 16 or
 * the product has fewer than 8 rows; every row per thread when the column tiles keep the cores
 * busy. Then both blocks against a plain sum on the CPU device (KGEN_CPU_VREGS picks them). */
static void cpu_mm_check(int64_t M, int64_t K, int64_t N, bool ta);
Test(mma_cpu, register_blocks_from_the_vector_registers, .timeout = 300) {
  kg_target cpu = kg_target_cpu(2);
  kg_group_facts gf = mm_facts(KG_F32, 0, 256, true);
  struct { int vregs; int64_t m, n; int tile, mr; } cs[] = {
      {32, 512, 512, KG_MM_CPU8W_ALL, 8}, {32, 512, 16, KG_MM_CPU8, 8}, {32, 4, 512, KG_MM_CPU_ALL, 4},
      {16, 512, 512, KG_MM_CPU_ALL, 4},   {16, 512, 16, KG_MM_CPU, 4},  {32, -1, -1, KG_MM_CPU8, 8},
      {32, 512, 32, KG_MM_CPU8W, 8},      {32, 512, 31, KG_MM_CPU8, 8}, {32, 8, 4096, KG_MM_CPU8W_ALL, 8}, /* wide panels from N = 32 */
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    cpu.cpu_vregs = cs[i].vregs;
    kg_sched_facts x = run_facts(cs[i].m, cs[i].n);
    kg_variant v = kg_schedule_choose(&gf, &x, &cpu).v;
    cr_expect_eq(v.mm_tile, cs[i].tile, "case %zu: tile %u", i, v.mm_tile);
    cr_expect_eq(kg_mm_tile_get((kg_mm_tile)v.mm_tile)->tm, (uint32_t)cs[i].mr, "case %zu", i);
    bool wide = v.mm_tile == KG_MM_CPU8W || v.mm_tile == KG_MM_CPU8W_ALL;
    cr_expect_eq(kg_mm_cpu_nr(v.mm_tile, KG_F32), wide ? 32u : 16u, "case %zu: the panel's width", i);
    cr_expect_eq(kg_mm_cpu_cols(v.mm_tile, KG_F32), wide ? 32u : 16u, "case %zu: a thread's columns", i);
  }
  /* float64 keeps the narrow panel (8 columns); the wide tile's width doubles whatever the dtype */
  kg_group_facts g64 = mm_facts(KG_F64, 0, 256, true);
  cpu.cpu_vregs = 32;
  kg_sched_facts x64 = run_facts(512, 512);
  cr_expect_eq(kg_schedule_choose(&g64, &x64, &cpu).v.mm_tile, KG_MM_CPU8_ALL, "float64: narrow panels");
  cr_expect_eq(kg_mm_cpu_nr(KG_MM_CPU8_ALL, KG_F64), 8u);
  cr_expect_eq(kg_mm_cpu_nr(KG_MM_CPU8W, KG_F64), 16u);
  cr_expect(kg_target_cpu(1).cpu_vregs == 16 || kg_target_cpu(1).cpu_vregs == 32);
  for (int r = 0; r < 2; r++) {
    setenv("KGEN_CPU_VREGS", r ? "32" : "16", 1);
    cpu_mm_check(37, 45, 29, false); /* rows past a block, a partial panel, K not a multiple of anything */
    cpu_mm_check(8, 300, 48, false);  /* K past a float32 block of 128 */
    cpu_mm_check(21, 70, 17, true);   /* A stored transposed: its rows are not contiguous (lower_matmul_cpu.c's a_rows) */
    cpu_mm_check(19, 70, 77, false);  /* wide panels (with 32 registers): two full, one of 13 columns */
    cpu_mm_check(9, 33, 64, true);    /* wide panels, A transposed, K past one block by one */
  }
  unsetenv("KGEN_CPU_VREGS");
}

/* Few rows times a weight stored [N, K] (a linear's): the dot schedule (KG_MM_CPU_DOT*), which
 * reads the weight's rows along K instead of packing a panel of them — when B is a tensor, K its
 * contiguous dim (or not known), the product has at most KG_MM_CPU_DOT_ROWS rows, K at least
 * KG_MM_CPU_DOT_K, and it is float32; else the panel, whose full panels of such a weight are one
 * KS_TPACK (16 x 16 transposes). Then on the CPU device against a float64 sum: rows past a 2-row block, K
 * below one 16-lane step and past one float32 lane block (16 x 128), columns past a thread's 64,
 * A transposed (packed through its strides), a weight whose K stride is 2 (the kernel's scalar
 * path: the scheduler cannot tell); bfloat16 keeps the panel. */
static void cpu_dot_check(const char *e, kg_dtype dt, int64_t M, int64_t K, int64_t N, bool ta, int64_t wstep, bool want_dot);
Test(mma_cpu, few_rows_read_the_weight_along_k, .timeout = 300) {
  kg_target cpu = kg_target_cpu(2);
  struct { int vregs; int64_t flags, k; kg_dtype dt; int64_t m; int8_t kmajor; int tile; } cs[] = {
      {32, 4, 9216, KG_F32, 2, 1, KG_MM_CPU_DOT8},  {16, 4, 9216, KG_F32, 2, 1, KG_MM_CPU_DOT},
      {32, 4, 1024, KG_F32, 4, -1, KG_MM_CPU_DOT8},  {32, 5, 512, KG_F32, 1, 1, KG_MM_CPU_DOT8}, /* a vector times the weight */
      {32, 4, 1024, KG_F32, 5, 1, KG_MM_CPU_ALL},    {32, 4, 1024, KG_BF16, 2, 1, KG_MM_CPU_ALL},
      {32, 4, 1024, KG_F32, 17, 1, KG_MM_CPU8W_ALL},  {32, 4, 1024, KG_F32, 2, 0, KG_MM_CPU_ALL}, /* the weight stored N-major */
      {32, 4, 256, KG_F32, 2, 1, KG_MM_CPU_ALL},     {32, 4, 1024, KG_F64, 2, 1, KG_MM_CPU_ALL}, /* K short: the panel */
      {32, 0, 1024, KG_F32, 2, 1, KG_MM_CPU_ALL},    {32, 12 | 256, 1024, KG_F32, 2, 1, -1}, /* B [K, N]; a convolution (not dot) */
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    cpu.cpu_vregs = cs[i].vregs;
    kg_group_facts gf = mm_facts(cs[i].dt, cs[i].flags, cs[i].k, true);
    kg_sched_facts x = run_facts(cs[i].m, 512);
    x.mm_kmajor[1] = cs[i].kmajor;
    kg_variant v = kg_schedule_choose(&gf, &x, &cpu).v;
    if (cs[i].tile >= 0) cr_expect_eq(v.mm_tile, cs[i].tile, "case %zu: tile %u", i, v.mm_tile);
    else cr_expect(v.mm_tile != KG_MM_CPU_DOT && v.mm_tile != KG_MM_CPU_DOT8, "case %zu: tile %u", i, v.mm_tile);
  }
  kg_group_facts gf = mm_facts(KG_F32, 4, 1024, false); /* B computed, not read as it is */
  kg_sched_facts x = run_facts(2, 512);
  cr_expect(kg_schedule_choose(&gf, &x, &cpu).v.mm_tile != KG_MM_CPU_DOT8, "a computed B keeps the panel");
  for (int r = 0; r < 2; r++) {
    setenv("KGEN_CPU_VREGS", r ? "32" : "16", 1);
    cpu_dot_check("mm_f32_linear", KG_F32, 2, 9216, 130, false, 1, true); /* MNIST's fc1, columns past two threads */
    cpu_dot_check("mm_f32_linear", KG_F32, 3, 529, 7, false, 1, true);    /* a ragged row block, a 1-element K tail */
    cpu_dot_check("mm_f32_linear", KG_F32, 4, 2100, 65, true, 1, true);   /* A transposed; past a lane block */
    cpu_dot_check("mm_f32_linear", KG_F32, 1, 600, 1, false, 1, true);
    cpu_dot_check("mm_f32_linear", KG_F32, 8, 300, 48, false, 1, false);  /* the panel: full ones transposed by KS_TPACK */
  }
  unsetenv("KGEN_CPU_VREGS");
  cpu_dot_check("mm_f32_linear", KG_F32, 4, 600, 19, false, 2, true);     /* K stride 2: the scalar path */
  cpu_dot_check("mm_f32_linear", KG_F32, 8, 40, 32, false, 2, false);     /* K stride 2: the panel's loop, not KS_TPACK */
  cpu_dot_check("mm_f32_linear", KG_F32, 40, 64, 24, false, 1, false);    /* a full panel and a partial one */
  cpu_dot_check("mm_f32_linear", KG_F32, 2, 100, 24, false, 1, false);    /* K short: the panel */
  cpu_dot_check("mm_tc_bf16_linear", KG_BF16, 4, 96, 72, false, 1, false); /* bfloat16, gelu: the panel */
}

/* The kernel text is what NVRTC compiles, a CPU schedule's too: the dot schedule's KS_DOT and the
 * panel's KS_TPACK call the prelude's scalar kg_dot16_* / kg_tpack16 there (kg_cpu.h's vector ones
 * on the CPU device); sm_80 and sm_90 cubins, the dot kernels without spills. */
Test(mma_nvrtc, cpu_dot_kernel_text_is_cuda, .timeout = 300) {
  mma_require_nvrtc();
  kg_context *ctx = ctx_tc(0, 0);
  kg_module *m = load_tc(ctx);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "mm_f32_linear", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  const kg_kernel *ks[3];
  uint32_t nk = 0;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    if (c->fusion.groups.v[gi].kind != KG_GROUP_MATMUL) continue;
    static const int tiles[3] = {KG_MM_CPU_DOT, KG_MM_CPU_DOT8, KG_MM_CPU8_ALL};
    static const char *const calls[3] = {"kg_dot16_2x2(", "kg_dot16_2x4(", "kg_tpack16("};
    for (int t = 0; t < 3; t++) {
      kg_variant v = c->variants[gi];
      v.cpu = 1, v.layout = KG_LAYOUT_STRIDED, v.mm_tile = (uint8_t)tiles[t], v.mm_prec = 0, v.mm_a = v.mm_b = 0, v.split = 0;
      kg_kvariant *kv = kg_compiled_variant(c, gi, &v, &ctx->diag);
      cr_assert_not_null(kv, "%s", kg_last_error(ctx));
      cr_expect(strstr(kv->cuda, calls[t]) != NULL, "%s: %s", kv->k.schedule, calls[t]);
      ks[nk++] = &kv->k;
    }
  }
  cr_assert_eq(nk, 3u);
  kg_strbuf tu;
  kg_sb_init(&tu);
  kg_cuda_emit(ks, nk, "cpu_dot", &tu);
  static const int archs[2] = {80, 90};
  for (int ai = 0; ai < 2; ai++) {
    kg_nvrtc_out o;
    kg_diag vd;
    kg_diag_init(&vd);
    int rc = kg_nvrtc_compile(kg_ctx_nvrtc(ctx), "cpu_dot.cu", kg_sb_cstr(&tu), archs[ai], true, NULL, &o, &vd);
    if (rc) {
      char *t = kg_diag_format(&vd);
      cr_log_error("%s", t);
      free(t);
    } else {
      for (uint32_t q = 0; q < o.n_stats; q++) /* the packed one's 8 x 16 block sums spill as GPU code: it never runs there */
        if (strstr(o.stats[q].name, "_dot"))
          cr_expect_eq(o.stats[q].spill_stores + o.stats[q].spill_loads, 0, "sm_%d %s spills", archs[ai], o.stats[q].name);
      kg_nvrtc_out_free(&o);
    }
    cr_expect_eq(rc, 0, "sm_%d", archs[ai]);
    kg_diag_free(&vd);
  }
  kg_sb_free(&tu);
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
}

Test(mma_cpu, cpu_codegen_and_device_refuse_tensor_core_kernels, .timeout = 300) {
  kg_context *ctx = ctx_tc(80, 0);
  kg_module *m = load_tc(ctx);
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "mm_tc_f16", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  kg_kvariant *kv = NULL;
  for (uint32_t gi = 0; gi < c->fusion.groups.n && !kv; gi++) {
    if (c->fusion.groups.v[gi].kind != KG_GROUP_MATMUL) continue;
    kg_variant v = c->variants[gi];
    v.mm_tile = KG_MM_TC64, v.mm_prec = 0, v.mm_a = KG_MM_KMAJOR, v.mm_b = 0;
    kv = kg_compiled_variant(c, gi, &v, &ctx->diag);
  }
  cr_assert_not_null(kv);
  cr_expect(kg_kernel_tensor_cores(&kv->k));
  cr_expect_null(kv->cpu, "no CPU glue for a tensor-core kernel");
  const kg_kernel *kp = &kv->k;
  kg_strbuf b;
  kg_sb_init(&b);
  cr_expect_not(kg_cuda_emit_cpu_glue(&kp, 1, &b));
  cr_expect_eq(b.len, 0, "nothing emitted");
  kg_sb_free(&b);
  kg_device *dev = kg_ctx_device(ctx, KG_DEVICE_CPU, &ctx->diag);
  cr_assert_not_null(dev);
  kg_rt_source src = {"tc", kv->cuda, kv->trampolines, kv->cpu, kv->cpu_pre, false};
  kg_rt_module *mod = NULL;
  kg_diag d;
  kg_diag_init(&d);
  cr_expect_neq(dev->vt->load(dev, &src, &mod, &d), 0);
  cr_expect_null(mod);
  char *t = kg_diag_format(&d);
  cr_expect(strstr(t, "tensor-core") != NULL, "%s", t);
  free(t);
  kg_diag_free(&d);
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
}

/* forced onto the tensor-core tier, a product on the CPU device runs the CPU schedule, right */
Test(mma_cpu, forced_tensor_cores_run_the_cpu_schedule, .timeout = 300) {
  kg_context *ctx = ctx_tc(90, 0);
  kg_module *m = load_tc(ctx);
  const int64_t M = 37, K = 45, N = 29;
  mat a = mat_new(KG_F16, M, K, false, 0), b = mat_new(KG_F16, K, N, true, 0);
  int64_t as[2], ast[2], bs[2], bst[2], os[2] = {M, N};
  DLTensor tA = mat_dl(&a, as, ast), tB = mat_dl(&b, bs, bst), tO;
  uint16_t *out = calloc((size_t)(M * N), 2);
  memset(&tO, 0, sizeof tO);
  tO.data = out, tO.dtype = kg_dtype_to_dl(KG_F16), tO.ndim = 2, tO.shape = os, tO.device.device_type = kDLCPU;
  const DLTensor *ins[2] = {&tA, &tB};
  DLTensor *outs[1] = {&tO};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, "mm_tc_f16", ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_CPU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  int bad = 0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++) s += a.val[i * K + k] * b.val[k * N + j];
      double got = h2f(out[i * N + j]);
      if (!(fabs(got - s) <= 1e-3 * fabs(s) + 1e-2) && bad++ < 5) cr_log_error("[%lld,%lld]: %g vs %g", (long long)i, (long long)j, got, s);
    }
  cr_expect_eq(bad, 0);
  uint32_t cpu_mm = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    cr_expect_not(kg_kernel_tensor_cores(&kv->k), "%s", kv->k.name);
    cpu_mm += strcmp(kv->k.schedule, "matmul.cpu") == 0;
  }
  cr_expect_eq(cpu_mm, 1, "the CPU product schedule ran");
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
  mat_free(&a), mat_free(&b);
  free(out);
}

/* a float32 product of mm_tc_f32 on the CPU device against a plain double sum */
static void cpu_mm_check(int64_t M, int64_t K, int64_t N, bool ta) {
  kg_context *ctx = ctx_tc(90, 0);
  kg_module *m = load_tc(ctx);
  mat a = mat_new(KG_F32, M, K, ta, 0), b = mat_new(KG_F32, K, N, false, 0);
  int64_t as[2], ast[2], bs[2], bst[2], os[2] = {M, N};
  DLTensor tA = mat_dl(&a, as, ast), tB = mat_dl(&b, bs, bst), tO;
  float *out = calloc((size_t)(M * N), 4);
  memset(&tO, 0, sizeof tO);
  tO.data = out, tO.dtype = kg_dtype_to_dl(KG_F32), tO.ndim = 2, tO.shape = os, tO.device.device_type = kDLCPU;
  const DLTensor *ins[2] = {&tA, &tB};
  DLTensor *outs[1] = {&tO};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, "mm_tc_f32", ins, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_CPU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  int bad = 0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++) s += a.val[i * K + k] * b.val[k * N + j];
      if (!(fabs(out[i * N + j] - s) <= 1e-5 * fabs(s) + 1e-5) && bad++ < 5) cr_log_error("[%lld,%lld]: %g vs %g", (long long)i, (long long)j, out[i * N + j], s);
    }
  cr_expect_eq(bad, 0, "%lld x %lld x %lld", (long long)M, (long long)K, (long long)N);
  uint32_t cpu_mm = 0;
  const char *vr = getenv("KGEN_CPU_VREGS");
  bool r8 = vr && !strcmp(vr, "32") && M >= 8;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kernel *k = &c->runtime.v[i]->k;
    if (strcmp(k->schedule, "matmul.cpu")) continue;
    cpu_mm++;
    cr_expect_eq(strstr(k->name, "packed8") != NULL, r8, "%s: %s register blocks", k->name, r8 ? "8-row" : "4-row");
    cr_expect_eq(strstr(k->name, "packed8w") != NULL, r8 && N >= 32, "%s: %s panels", k->name, r8 && N >= 32 ? "32-column" : "16-column");
  }
  cr_expect_eq(cpu_mm, 1, "the CPU product schedule ran");
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
  mat_free(&a), mat_free(&b);
  free(out);
}

/* entry e (linear: x [M, K], w [N, K] every wstep-th element of its rows, b [N]; relu or gelu) on
 * the CPU device against a float64 sum, and whether its product took the dot schedule */
static void cpu_dot_check(const char *e, kg_dtype dt, int64_t M, int64_t K, int64_t N, bool ta, int64_t wstep, bool want_dot) {
  kg_context *ctx = ctx_tc(90, 0);
  kg_module *m = load_tc(ctx);
  mat a = mat_new(dt, M, K, ta, 0), w = mat_new(dt, N, K * wstep, false, 0), bias = mat_new(dt, 1, N, false, 0);
  int64_t as[2], ast[2], ws[2], wst[2], os[2] = {M, N}, cs[2], cst[2];
  DLTensor tA = mat_dl(&a, as, ast), tW = mat_dl(&w, ws, wst), tb = mat_dl(&bias, cs, cst), tO;
  ws[1] = K, wst[1] = wstep; /* [N, K] over every wstep-th element */
  tb.ndim = 1, tb.shape = cs + 1, tb.strides = NULL;
  size_t es = kg_dtype_get(dt)->size;
  void *out = calloc((size_t)(M * N + 1), es);
  memset(&tO, 0, sizeof tO);
  tO.data = out, tO.dtype = kg_dtype_to_dl(dt), tO.ndim = 2, tO.shape = os, tO.device.device_type = kDLCPU;
  const DLTensor *ins[3] = {&tA, &tW, &tb};
  DLTensor *outs[1] = {&tO};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, e, ins, 3, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_CPU, ins, 3, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  int bad = 0;
  bool half = dt != KG_F32;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0, sa = 0;
      for (int64_t k = 0; k < K; k++) {
        double p = a.val[i * K + k] * w.val[j * K * wstep + k * wstep];
        s += p, sa += fabs(p);
      }
      s += bias.val[j];
      if (half) { /* linear rounds to bfloat16, then gelu of it (PyTorch's ops) */
        s = bf2f(f2bf((float)s));
        s = 0.5 * s * (1.0 + erf(s / sqrt(2.0)));
      } else s = s > 0 ? s : 0;
      double got = out_at(dt, out, i * N + j), lim = (half ? 2.0 / 128 * fabs(s) + 1e-3 * sa : 1e-6 * sa) + 1e-6;
      if (!(fabs(got - s) <= lim) && bad++ < 5) cr_log_error("%s %lldx%lldx%lld [%lld,%lld]: %.9g vs %.9g", e, (long long)M, (long long)K, (long long)N, (long long)i, (long long)j, got, s);
    }
  cr_expect_eq(bad, 0, "%s %lld x %lld x %lld", e, (long long)M, (long long)K, (long long)N);
  uint32_t dot = 0, mm = 0, tpack = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const char *sc = c->runtime.v[i]->k.schedule;
    dot += strcmp(sc, "matmul.cpu_dot") == 0, mm += strncmp(sc, "matmul.cpu", 10) == 0;
    tpack += strstr(c->runtime.v[i]->cuda, "kg_tpack16(") != NULL;
  }
  if (!want_dot) cr_expect_eq(tpack, dt == KG_F32 ? 1u : 0u, "%s: the float32 panel transposed by KS_TPACK (under its guard)", e);
  cr_expect_eq(mm, 1, "%s: one CPU product kernel", e);
  cr_expect_eq(dot, want_dot ? 1u : 0u, "%s %lld x %lld x %lld: the dot schedule %s", e, (long long)M, (long long)K, (long long)N, want_dot ? "expected" : "not expected");
  kg_compiled_free(c);
  kg_module_free(m), kg_context_free(ctx);
  mat_free(&a), mat_free(&w), mat_free(&bias);
  free(out);
}
