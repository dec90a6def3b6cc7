/* tests/test_reduce_online.c — issue 26's reduction schedules. Online softmax: a max's sum of
 * exp rides along in the max's walk of the row kernel (passes/lower_reduce_walk.c), so softmax,
 * log_softmax, logsumexp and cross_entropy read the row twice, not three times; the
 * forced-strided variants keep the two walks (kg_variant.no_online) and stay right too. Split
 * variances: var / std over few long rows (or columns, or everything) split like sums, each
 * chunk's Welford partial (count, mean, M2) merged in chunk order by Chan's formula.
 *
 * Structure: the walks over the row (the kernel IR's top-level loops and kg_reduce_passes),
 * the variant the scheduler names. Numbers: against PyTorch (the oracle) at the edges — rows
 * of 0, 1, 2, 3, odd and vector-loaded lengths, rows holding -inf, whole rows of -inf
 * (softmax NaN, logsumexp -inf), +inf (NaN rows) and NaN — in every float dtype, on the
 * emulator's GPU schedules (every thread order), the CPU device's column schedule and under
 * the forced-strided variant. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_util.h"
#include "oracle_fixture.h"
#include "qjson.h"
#include "runtime/api_int.h"

static kg_context *ctx_with(int force, int order) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.force_variant = force;
  o.emu_thread_order = order;
  o.emu_seed = 5;
  return kg_context_new(&o);
}

/* top-level loops of a kernel: its walks over the row (one loop each without vectors) */
static int walks(const kg_kernel *k) {
  int loops = 0;
  for (uint32_t st = k->body; st != KG_NONE; st = k->stmts.v[st].next) loops += k->stmts.v[st].kind == KS_FOR;
  return loops;
}

/* The compiled kernel of each program walks its rows twice (max and sum of exp online, then
 * the write); kg_reduce_passes says so, and says 3 under the variant that walks them apart. */
Test(reduce_online, softmax_family_walks_the_row_twice) {
  struct { const char *doc, *entry, *sig; int walks, apart; } cases[] = {
      /* x.softmax(-1) and x.softmax(1, float64) in one row kernel: the first max's sum online,
       * the float64 max rides along as a sibling and walks its sum apart */
      {"norm_softmax_method", NULL, NULL, 3, 4},
      {"norm_log_softmax_method", NULL, NULL, 2, 3},
      {"norm_prim_softmax", NULL, NULL, 2, 3},     /* written from primitives: exp(x - amax) / sum */
      {"norm_prim_logsumexp", NULL, NULL, 1, 2},   /* m' + log(sum(exp(x - m'))), m' = isinf(m) ? 0 : m: no row output */
      /* three inputs' softmaxes and logsumexps in one row kernel: the first max's sum (logsumexp's)
       * online, the other maxes siblings in its walk, their sums walked apart — where the online
       * sum would have walked, the others ride along as siblings: 5 walks either way */
      {"norm_softmax_edges", NULL, NULL, 5, 5},
      {"loss_cross_entropy", "loss_ce_mean", NULL, 1, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kg_context *ctx = ctx_with(0, 0);
    char path[256];
    snprintf(path, sizeof path, "examples/%s", cases[i].doc);
    kg_module *m = load(ctx, path);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, cases[i].entry, cases[i].sig, &c), KG_OK, "%s: %s", cases[i].doc, kg_last_error(ctx));
    const kg_group *grp = &c->fusion.groups.v[0];
    cr_assert_eq(grp->kind, KG_GROUP_REDUCE, "%s", cases[i].doc);
    int want = cases[i].walks, apart = cases[i].apart;
    cr_expect_eq(walks(&c->kernels[0]), want, "%s: %d walks over the row, want %d", cases[i].doc, walks(&c->kernels[0]), want);
    cr_expect_eq(kg_reduce_passes(&c->lg, grp), want, "%s", cases[i].doc);
    kg_variant v = c->variants[0];
    cr_expect_eq(v.no_online, 0, "%s: the scheduler's default is online", cases[i].doc);
    v.no_online = 1;
    cr_expect_eq(kg_reduce_passes_variant(&c->lg, grp, &v), apart, "%s: %d walks apart", cases[i].doc, kg_reduce_passes_variant(&c->lg, grp, &v));
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* The forced-strided variant (the fuzzer's variants 1 and 2) runs the two-walk scheme: its
 * run-time kernel walks the row three times, the default two (128-bit loads: a vector loop
 * and a tail per walk); both write the same softmax, within a few ulps. */
Test(reduce_online, forced_strided_keeps_the_two_walks) {
  int64_t R = 9, D = 300;
  float *x = malloc(R * D * sizeof *x), *out[2];
  for (int64_t i = 0; i < R * D; i++) x[i] = (float)((i * 7919) % 2003) / 100.0f - 10.0f;
  int64_t shape[2] = {R, D};
  for (int f = 0; f < 2; f++) {
    kg_context *ctx = ctx_with(f ? KG_FORCE_STRIDED : 0, 2);
    kg_module *m = load(ctx, "examples/norm_prim_softmax");
    out[f] = calloc((size_t)(R * D), sizeof(float));
    DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0}, to = {out[f], {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    const DLTensor *ins[1] = {&tx};
    DLTensor *outs[1] = {&to};
    kg_compiled *c;
    cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
    cr_assert_eq(c->runtime.n, 1u);
    const kg_kvariant *kv = c->runtime.v[0];
    cr_expect_eq(kv->v.no_online, f, "variant %d", f);
    cr_expect_str_eq(kv->k.schedule, f ? "reduce.rows_persistent" : "reduce.rows_persistent.vec4");
    cr_expect_eq(walks(&kv->k), f ? 3 : 2 * 2, "variant %d: %d loops", f, walks(&kv->k));
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
  for (int64_t i = 0; i < R * D; i++)
    if (!(fabsf(out[0][i] - out[1][i]) <= 4e-7f * out[1][i] + 1e-12f)) {
      cr_expect(false, "[%lld]: online %g, two walks %g", (long long)i, out[0][i], out[1][i]);
      break;
    }
  free(x), free(out[0]), free(out[1]);
}

/* examples/norm_softmax_edges against PyTorch at signature sig, on device dev, forced variant force. */
static void edges_at(const char *sig, kg_device_kind dev, int force, int order) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_with(force, order);
  kg_module *m = load(ctx, "examples/norm_softmax_edges");
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.sig = sig, co.device = dev, co.seed = 7;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s: %s", sig, kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s (device %d, variant %d): out%d %s %s: %s", sig, (int)dev, force, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m), kg_context_free(ctx);
}

/* -inf, whole -inf rows, +inf, NaN: rows of 1, 2 and 3 (many whole -inf rows), 0 (softmax
 * empty, logsumexp -inf), odd and vector-loaded rows, every float dtype. */
Test(reduce_online, edges_match_pytorch, .init = setup, .fini = teardown, .timeout = 400) {
  const char *sigs[] = {"float32[64,3]", "float32[64,1]", "float32[40,2]", "float32[5,0]", "float32[7,301] in [-0.2, 3)",
                        "float16[64,3]", "bfloat16[40,2]", "float64[64,3]", "float64[6,1031] in [-0.1, 4)"};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) edges_at(sigs[i], KG_DEVICE_EMU, 0, (int)i % 3);
  edges_at("float32[40,2]", KG_DEVICE_CPU, 0, 0);          /* the CPU device's column schedule */
  edges_at("float32[64,3]", KG_DEVICE_EMU, KG_FORCE_STRIDED, 0); /* the two walks */
  edges_at("float16[9,301] in [-0.2, 3)", KG_DEVICE_EMU, KG_FORCE_STRIDED, 1);
}

/* The split partial kernels the last run of c launched (each in the split-rows plan): how many,
 * and how many of them split a pair that `is_pair` recognizes (one walk for two statistics). */
static int split_pairs(const kg_compiled *c, bool (*is_pair)(const kg_graph *, const kg_group *), int *partials) {
  int pairs = 0;
  *partials = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    if (kv->v.split != KG_SPLIT_PARTIAL) continue;
    cr_expect_eq(kv->v.plan, 1, "the split-rows plan");
    (*partials)++;
    pairs += is_pair(&c->lg, &c->fusion_split.groups.v[kv->group]);
  }
  return pairs;
}

/* The same at few long rows: the split-rows plan, where each max splits with its sum of exp as
 * one pair (a chunk's max and its sum relative to it, merged by the finish kernel): -inf, +inf
 * and NaN elements spread over the chunks, whole rows of -inf (x < 0), float16 and float64. */
Test(reduce_online, split_edges_match_pytorch, .init = setup, .fini = teardown, .timeout = 400) {
  const char *sigs[] = {"float32[2,70001] in [-1, 1)", "float32[3,50001] in [-1, 0)", "float16[2,40001] in [-0.2, 3)", "float64[2,40001] in [-1, 1)"};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) edges_at(sigs[i], KG_DEVICE_EMU, 0, (int)i % 3);
}

/* softmax, log_softmax and logsumexp of log(relu(x)) over rows of 70001 whose first chunks are
 * all -inf (x <= 0) and whose later elements grow (each chunk's max above the last: the finish
 * kernel rescales its running sum at every chunk), a row of one finite element among -inf and
 * a row of -inf; in the split-rows plan (3 kernels) against float64. */
Test(reduce_online, split_pairs_rescale_across_chunks, .timeout = 300) {
  kg_context *ctx = ctx_with(0, 1);
  kg_module *m = load(ctx, "examples/norm_softmax_edges");
  int64_t R = 4, D = 70001, shape[2] = {R, D};
  float *x = malloc((size_t)(R * D) * sizeof *x), *o[7];
  for (int64_t j = 0; j < D; j++) {
    x[j] = j < 40000 ? -1.0f : (float)(j - 40000) / 3000.0f + 0.01f; /* -inf, then growing */
    x[D + j] = (float)((j * 7919) % 2003) / 2003.0f + 0.5f;           /* finite everywhere */
    x[2 * D + j] = j == 65000 ? 2.0f : -0.5f;                          /* one finite element */
    x[3 * D + j] = -0.25f;                                             /* all -inf */
  }
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0}, to[7];
  const DLTensor *ins[1] = {&tx};
  DLTensor *outs[7];
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  int64_t osh[7][2];
  for (int k = 0; k < 7; k++) {
    DLDataType dt;
    int nd;
    kg_compiled_output(c, k, &dt, &nd, osh[k]);
    int64_t e = 1;
    for (int d = 0; d < nd; d++) e *= osh[k][d];
    o[k] = calloc((size_t)e, sizeof(float));
    to[k] = (DLTensor){o[k], {kDLCPU, 0}, nd, {kDLFloat, 32, 1}, osh[k], NULL, 0}, outs[k] = &to[k];
  }
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 7, NULL), KG_OK, "%s", kg_last_error(ctx));
  int partials, pairs = split_pairs(c, kg_group_online_pair, &partials);
  /* each of the three inputs' max splits with its first sum of exp (the others' sums, relative to
   * another shift, split alone and read the max) */
  cr_expect_eq(pairs, 3, "%d of %d partial kernels are a max with its sum of exp", pairs, partials);
  /* out0 logsumexp(ninf), out1 softmax(ninf), out2 log_softmax(ninf) */
  for (int64_t r = 0; r < R; r++) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < D; j++) mx = fmax(mx, log(fmax(x[r * D + j], 0.0)));
    for (int64_t j = 0; j < D; j++) sum += isinf(mx) ? 0 : exp(log(fmax(x[r * D + j], 0.0)) - mx);
    double lse = isinf(mx) ? mx : mx + log(sum);
    cr_expect(isinf(lse) ? o[0][r] == (float)lse : fabs(o[0][r] - lse) <= 1e-6 * fabs(lse) + 1e-6, "row %lld logsumexp %.9g vs %.9g", (long long)r, o[0][r], lse);
    for (int64_t j = 0; j < D; j++) {
      double lx = log(fmax(x[r * D + j], 0.0)), sm = isinf(mx) ? NAN : exp(lx - mx) / sum, ls = isinf(mx) ? NAN : lx - mx - log(sum);
      float g1 = o[1][r * D + j], g2 = o[2][r * D + j];
      bool ok1 = isnan(sm) ? isnan(g1) : fabs(g1 - sm) <= 1e-6 * sm + 1e-12;
      bool ok2 = isnan(ls) ? isnan(g2) : isinf(ls) ? g2 == (float)ls : fabs(g2 - ls) <= 1e-6 * fabs(ls) + 1e-5;
      if (!ok1 || !ok2) {
        cr_expect(false, "row %lld [%lld]: softmax %.9g vs %.9g, log_softmax %.9g vs %.9g", (long long)r, (long long)j, g1, sm, g2, ls);
        break;
      }
    }
  }
  for (int k = 0; k < 7; k++) free(o[k]);
  free(x);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* x.var / x.std (examples/norm_var_std_dim, eleven of them over dims 0 and 1) at R × D: the
 * variances over the long dim split (a partial and a finish kernel each, in the split-rows
 * plan: the fused group holds several); the same values as a float64 two-pass reference. */
static void split_var_at(int64_t R, int64_t D, int order) {
  kg_context *ctx = ctx_with(0, order);
  kg_module *m = load(ctx, "examples/norm_var_std_dim");
  int64_t n = R * D, shape[2] = {R, D};
  float *x = malloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++) x[i] = 1000.0f + (float)((i * 7919) % 2003) / 100.0f; /* a large mean: cancellation shows */
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  int nout = kg_compiled_n_outputs(c);
  float *outs_mem[16];
  DLTensor to[16];
  DLTensor *outs[16];
  int64_t oshape[16][2];
  for (int k = 0; k < nout; k++) {
    DLDataType dt;
    int nd;
    kg_compiled_output(c, k, &dt, &nd, oshape[k]);
    int64_t e = 1;
    for (int d = 0; d < nd; d++) e *= oshape[k][d];
    outs_mem[k] = calloc((size_t)e + 1, sizeof(float));
    to[k] = (DLTensor){outs_mem[k], {kDLCPU, 0}, nd, {kDLFloat, 32, 1}, oshape[k], NULL, 0};
    outs[k] = &to[k];
  }
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, nout, NULL), KG_OK, "%s", kg_last_error(ctx));
  /* the variances along the long dim: partial and finish kernels of a variance group */
  int split_var = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    if (kv->v.split != KG_SPLIT_PARTIAL) continue;
    const kg_fusion *f = kv->v.plan == 1 ? &c->fusion_split : &c->fusion;
    split_var += c->lg.nodes.v[f->groups.v[kv->group].reds.v[0]].op == KG_OP_RVAR;
  }
  cr_expect_gt(split_var, 0, "%lldx%lld: no split variance among %u kernels", (long long)R, (long long)D, c->runtime.n);
  /* out0 x.var(-1), out3 x.var(0, unbiased = false, keepdim), out6 x.std(-1) */
  int check[3] = {0, 3, 6}, dim[3] = {1, 0, 1};
  bool unb[3] = {true, false, true}, sq[3] = {false, false, true};
  for (int q = 0; q < 3; q++) {
    int64_t no = dim[q] ? R : D, len = dim[q] ? D : R;
    for (int64_t o = 0; o < no; o++) {
      double mu = 0, m2 = 0;
      for (int64_t j = 0; j < len; j++) mu += x[dim[q] ? o * D + j : j * D + o];
      mu /= (double)len;
      for (int64_t j = 0; j < len; j++) {
        double dv = x[dim[q] ? o * D + j : j * D + o] - mu;
        m2 += dv * dv;
      }
      double want = m2 / (double)(len - (unb[q] ? 1 : 0));
      if (sq[q]) want = sqrt(want);
      float got = outs_mem[check[q]][o];
      if (!(fabs(got - want) <= 2e-5 * fabs(want) + 1e-6)) {
        cr_expect(false, "%lldx%lld out%d[%lld]: %.9g vs %.9g", (long long)R, (long long)D, check[q], (long long)o, got, want);
        break;
      }
    }
  }
  for (int k = 0; k < nout; k++) free(outs_mem[k]);
  free(x);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

Test(reduce_split_var, welford_partials_over_rows_and_columns, .timeout = 300) {
  split_var_at(3, 70001, 0); /* rows: split partial over rows, an odd last chunk */
  split_var_at(5003, 2, 2);  /* columns: the column partial */
}

/* the same programs against PyTorch, in float64 and float16 too */
Test(reduce_split_var, match_pytorch, .init = setup, .fini = teardown, .timeout = 300) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  struct { const char *doc, *sig; } cases[] = {
      {"norm_var_std_dim", "float32[2,70001]"},
      {"norm_var_std_dim", "float64[40000,3]"},
      {"norm_var_std_all", "float16[457,67], float32[3,40960]"}, /* all-reduce variances: one output, split */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kg_context *ctx = ctx_with(0, (int)i % 3);
    char path[256];
    snprintf(path, sizeof path, "examples/%s", cases[i].doc);
    kg_module *m = load(ctx, path);
    kg_check_opts co;
    memset(&co, 0, sizeof co);
    co.sig = cases[i].sig, co.device = KG_DEVICE_EMU, co.seed = 11;
    kg_check_result r;
    cr_assert_eq(kg_check_module(ctx, orc, m, &co, &r), KG_OK, "%s at %s: %s", cases[i].doc, cases[i].sig, kg_last_error(ctx));
    for (int k = 0; k < r.n_outputs; k++)
      cr_expect(r.rows[k].ok, "%s at %s: out%d %s %s: %s", cases[i].doc, cases[i].sig, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
    kg_check_result_free(&r);
    kg_module_free(m), kg_context_free(ctx);
  }
}

/* Zero register spills under NVRTC (sm_80 and sm_90) for the kernels these runs built: the
 * online row kernels (with 128-bit loads: float32 and float16 rows of 300, the forced-strided
 * two walks) and the split variances' partial and finish kernels (rows, columns), a max and
 * its sum of exp split together, a mean and its variance split together. Skips without
 * libnvrtc. */
static void run_and_collect(const char *doc, int force, const char *sig_dt, int64_t R, int64_t D, const kg_kernel **kps, uint32_t *nk,
                            kg_compiled **keep, int *nkeep, kg_module **mkeep, kg_context **ckeep) {
  kg_context *ctx = ctx_with(force, 0);
  kg_module *m = load(ctx, doc);
  bool half = !strcmp(sig_dt, "float16");
  int64_t n = R * D, shape[2] = {R, D};
  void *x = malloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) {
    float v = (float)((i * 7919) % 2003) / 300.0f;
    if (half) ((uint16_t *)x)[i] = 0x3c00; /* 1.0 */
    else ((float *)x)[i] = v;
  }
  DLTensor tx = {x, {kDLCPU, 0}, 2, {half ? kDLFloat : kDLFloat, half ? 16 : 32, 1}, shape, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s: %s", doc, kg_last_error(ctx));
  int nout = kg_compiled_n_outputs(c);
  DLTensor to[16];
  DLTensor *outs[16];
  int64_t os[16][4];
  void *mem[16];
  for (int k = 0; k < nout; k++) {
    DLDataType dt;
    int nd;
    kg_compiled_output(c, k, &dt, &nd, os[k]);
    int64_t e = 1;
    for (int d = 0; d < nd; d++) e *= os[k][d];
    mem[k] = calloc((size_t)e + 1, 8);
    to[k] = (DLTensor){mem[k], {kDLCPU, 0}, nd, dt, os[k], NULL, 0};
    outs[k] = &to[k];
  }
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, nout, NULL), KG_OK, "%s: %s", doc, kg_last_error(ctx));
  for (uint32_t i = 0; i < c->runtime.n && *nk < 64; i++) kps[(*nk)++] = &c->runtime.v[i]->k;
  for (int k = 0; k < nout; k++) free(mem[k]);
  free(x);
  keep[*nkeep] = c, mkeep[*nkeep] = m, ckeep[*nkeep] = ctx, (*nkeep)++;
}

Test(reduce_online, nvrtc_no_spills, .timeout = 300) {
  const kg_kernel *kps[64];
  uint32_t nk = 0;
  kg_compiled *cs[8];
  kg_module *ms[8];
  kg_context *xs[8];
  int nc = 0;
  run_and_collect("examples/norm_prim_softmax", 0, "float32", 9, 300, kps, &nk, cs, &nc, ms, xs);
  run_and_collect("examples/norm_prim_softmax", KG_FORCE_STRIDED, "float32", 9, 300, kps, &nk, cs, &nc, ms, xs);
  run_and_collect("examples/norm_softmax_edges", 0, "float16", 9, 304, kps, &nk, cs, &nc, ms, xs);
  run_and_collect("examples/norm_var_std_dim", 0, "float32", 3, 70001, kps, &nk, cs, &nc, ms, xs);
  run_and_collect("examples/norm_var_std_dim", 0, "float32", 5003, 2, kps, &nk, cs, &nc, ms, xs);
  run_and_collect("examples/norm_prim_softmax", 0, "float32", 2, 70001, kps, &nk, cs, &nc, ms, xs); /* a max and its sum split together */
  run_and_collect("examples/norm_var_mean_rows", 0, "float32", 3, 70001, kps, &nk, cs, &nc, ms, xs); /* a mean and its variance */
  kg_nvrtc *nv = kg_ctx_nvrtc(xs[0]);
  if (!nv) {
    for (int i = 0; i < nc; i++) kg_compiled_free(cs[i]), kg_module_free(ms[i]), kg_context_free(xs[i]);
    cr_skip_test("libnvrtc cannot be loaded");
  }
  int checked = nvrtc_expect_no_spills(nv, kps, nk, "online");
  cr_expect_geq(checked, 2 * 10, "%d kernels checked", checked);
  for (int i = 0; i < nc; i++) kg_compiled_free(cs[i]), kg_module_free(ms[i]), kg_context_free(xs[i]);
}

/* layer_norm over 2 rows of 8192: the split-rows plan, whose mean and variance split together
 * (the variance's Welford partials hold the mean); against a float64 reference. */
Test(reduce_split_var, layer_norm_few_long_rows, .timeout = 300) {
  char *shape = qj_fmt("{\"k\":\"NewArray\",\"ty\":\"System.Int64[]\",\"elemType\":\"System.Int64\",\"items\":[{\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":8192}]}");
  char *doc = qj_doc(TVAR("x"), "layer_norm", qj_lambda(0, FN(T, T), qj_call(NULL, "TorchSharp.torch+nn+functional", "layer_norm", 1,
      "\"" T "\",\"System.Int64[]\",\"" T "\",\"" T "\",\"" F64 "\"", T, NULL,
      qj_list(5, qj_var(0, T), shape, qj_val(T, "null"), qj_val(T, "null"), qj_val(F64, "1e-05")))), NULL);
  kg_context *ctx = ctx_with(0, 1);
  kg_module *m;
  cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK, "%s", kg_last_error(ctx));
  int64_t R = 2, D = 8192, sh[2] = {R, D};
  float *x = malloc((size_t)(R * D) * sizeof *x), *out = calloc((size_t)(R * D), sizeof *out);
  for (int64_t i = 0; i < R * D; i++) x[i] = 500.0f + (float)((i * 7919) % 2003) / 150.0f;
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sh, NULL, 0}, to = {out, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sh, NULL, 0};
  const DLTensor *ins[1] = {&tx};
  DLTensor *outs[1] = {&to};
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  /* one partial kernel for the mean and the variance (Welford's pair kept in one group): the
   * row is read once for both, then once to write (3 kernels: partial, finish, output) */
  int split_pair = 0, partials = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    const kg_kvariant *kv = c->runtime.v[i];
    cr_expect_eq(kv->v.plan, 1, "the split-rows plan");
    if (kv->v.split != KG_SPLIT_PARTIAL || kv->v.plan != 1) continue;
    partials++;
    split_pair += kg_group_welford_pair(&c->lg, &c->fusion_split.groups.v[kv->group]);
  }
  cr_expect_eq(partials, 1, "one partial kernel (%u kernels)", c->runtime.n);
  cr_expect_eq(split_pair, 1, "the mean and the variance split together");
  cr_expect_eq(c->runtime.n, 3u, "partial, finish, output: %u kernels", c->runtime.n);
  for (int64_t r = 0; r < R; r++) {
    double mu = 0, m2 = 0;
    for (int64_t j = 0; j < D; j++) mu += x[r * D + j];
    mu /= (double)D;
    for (int64_t j = 0; j < D; j++) m2 += (x[r * D + j] - mu) * (x[r * D + j] - mu);
    double inv = 1.0 / sqrt(m2 / (double)D + 1e-5);
    for (int64_t j = 0; j < D; j++) {
      double want = (x[r * D + j] - mu) * inv;
      if (!(fabs(out[r * D + j] - want) <= 1e-4 * fabs(want) + 1e-4)) {
        cr_expect(false, "[%lld,%lld]: %g vs %g", (long long)r, (long long)j, out[r * D + j], want);
        r = R;
        break;
      }
    }
  }
  free(x), free(out), free(doc);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* examples/norm_var_mean_rows at 3 x 70001, in three thread orders: means and variances of the
 * same rows split in pairs (one partial kernel each: {mean, var}, {keepdim mean, biased var}),
 * a second variance and a mean of another input alone — 4 partial kernels where each reduction
 * alone made 6; every output against a float64 reference. */
Test(reduce_split_var, mean_and_variance_split_together, .timeout = 300) {
  for (int order = 0; order < 3; order++) {
    kg_context *ctx = ctx_with(0, order);
    kg_module *m = load(ctx, "examples/norm_var_mean_rows");
    int64_t R = 3, D = 70001, shape[2] = {R, D};
    float *x = malloc((size_t)(R * D) * sizeof *x), *o[5];
    for (int64_t i = 0; i < R * D; i++) x[i] = 700.0f + (float)((i * 7919) % 2003) / 100.0f - (float)(i / D) * 300.0f;
    DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0}, to[5];
    const DLTensor *ins[1] = {&tx};
    DLTensor *outs[5];
    int64_t sh1[1] = {R}, sh2[2] = {R, 1};
    for (int k = 0; k < 5; k++) {
      o[k] = calloc((size_t)R, sizeof(float));
      to[k] = (DLTensor){o[k], {kDLCPU, 0}, k >= 3 ? 2 : 1, {kDLFloat, 32, 1}, k >= 3 ? sh2 : sh1, NULL, 0}, outs[k] = &to[k];
    }
    kg_compiled *c;
    cr_assert_eq(kg_specialize_for(m, NULL, ins, 1, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 5, NULL), KG_OK, "%s", kg_last_error(ctx));
    int partials, pairs = split_pairs(c, kg_group_welford_pair, &partials);
    cr_expect_eq(partials, 4, "order %d: %d partial kernels", order, partials);
    cr_expect_eq(pairs, 2, "order %d: %d of them a mean with its variance", order, pairs);
    for (int64_t r = 0; r < R; r++) {
      double mu = 0, m2 = 0;
      for (int64_t j = 0; j < D; j++) mu += x[r * D + j];
      mu /= (double)D;
      for (int64_t j = 0; j < D; j++) m2 += (x[r * D + j] - mu) * (x[r * D + j] - mu);
      double want[5] = {mu, m2 / (double)(D - 1), m2 / (double)D, 2 * mu, mu - m2 / (double)D};
      for (int k = 0; k < 5; k++)
        cr_expect(fabs(o[k][r] - want[k]) <= 2e-6 * fabs(want[k]) + 1e-4, "order %d out%d[%lld]: %.9g vs %.9g", order, k, (long long)r, o[k][r],
                  want[k]);
    }
    for (int k = 0; k < 5; k++) free(o[k]);
    free(x);
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* Every variant field is in the kernel's name: the online kernel and the two-walk one
 * (no_online, the forced-strided variants) of one group are two kernels of one translation unit
 * in a package — with the same name, NVRTC refused lstm_tagger's package for sm_80 / sm_90
 * ("function ... has already been defined"). */
Test(reduce_online, two_walk_variant_has_its_own_name, .timeout = 300) {
  kg_context *ctx = ctx_with(0, 0);
  kg_module *m = load(ctx, "examples/norm_prim_softmax");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  kg_variant v = c->variants[0];
  v.layout = KG_LAYOUT_STRIDED, v.vec = 1;
  kg_diag d;
  kg_diag_init(&d);
  kg_kvariant *a = kg_compiled_variant(c, 0, &v, &d);
  v.no_online = 1;
  kg_kvariant *b = kg_compiled_variant(c, 0, &v, &d);
  cr_assert(a && b);
  cr_expect_str_neq(a->k.name, b->k.name, "online and two-walk kernels share the name %s", a->k.name);
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  if (nv) {
    const kg_kernel *ks[2] = {&a->k, &b->k};
    kg_strbuf tu;
    kg_sb_init(&tu);
    kg_cuda_emit(ks, 2, "twowalk", &tu);
    kg_nvrtc_out o;
    int rc = kg_nvrtc_compile(nv, "twowalk.cu", kg_sb_cstr(&tu), 80, true, NULL, &o, &d);
    char *t = rc ? kg_diag_format(&d) : NULL;
    cr_expect_eq(rc, 0, "both in one translation unit: %s", t ? t : "");
    free(t);
    if (!rc) kg_nvrtc_out_free(&o);
    kg_sb_free(&tu);
  }
  kg_diag_free(&d);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}
