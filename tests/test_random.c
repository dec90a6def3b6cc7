/* tests/test_random.c — kgen's random generator (docs/design.md "The random generator"):
 *  - the kernels' bits against tools/philox_ref.py, a Philox 4x32-10 written from the paper and
 *    checked against Random123's known answers (exact: a float32 uniform is k·2^-24, a float64
 *    one k·2^-53, so k is read back from the output);
 *  - statistics over 64K draws that a wrong generator fails: uniform mean and variance, normal
 *    mean, variance and tail mass, Bernoulli frequency against Σp, dropout's keep fraction,
 *    its scale 1/(1-p) exactly where kept and 0 exactly where dropped, p = 0 the identity,
 *    p = 1 all zeros; no correlation between neighbouring elements nor between two streams;
 *  - the generator's contract: the same (seed, offset) draws the same bits, the next call and
 *    another seed draw others, each call advances the offset by the entry's streams;
 *  - the examples against PyTorch at other sizes (0, 1, odd, symbolic), and PyTorch's errors.
 * The examples' own signatures run in tests/test_examples.c like every example. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"

static kg_oracle *orc;
static void setup(void) {
  kg_diag d;
  kg_diag_init(&d);
  orc = kg_oracle_start(&d);
  kg_diag_free(&d);
}
static void teardown(void) {
  if (orc) kg_oracle_stop(orc);
  orc = NULL;
}

static kg_context *ctx_new(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

static kg_module *load(kg_context *ctx, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, name);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

/* one specialized entry with its host inputs (random, seeded) and outputs */
typedef struct run {
  kg_context *ctx;
  kg_module *m;
  kg_compiled *c;
  int n_in, n_out;
  kg_npy in[8], out[16];
  DLTensor iv[8], ov[16];
  const DLTensor *ip[8];
  DLTensor *op[16];
} run;

static void run_open(run *R, const char *doc, const char *entry, const char *sig) {
  memset(R, 0, sizeof *R);
  R->ctx = ctx_new();
  R->m = load(R->ctx, doc);
  kg_compiled *c0;
  cr_assert_eq(kg_specialize(R->m, entry, sig, &c0), KG_OK, "%s", kg_last_error(R->ctx));
  const kg_graph *g = kg_compiled_graph(c0);
  R->n_in = (int)g->params.n;
  for (int p = 0; p < R->n_in; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    int64_t shape[KG_MAX_RANK];
    for (int i = 0; i < n->shape.rank; i++) shape[i] = n->shape.d[i].v;
    cr_assert_eq(kg_npy_random(&R->in[p], n->dtype, n->shape.rank, shape, 77 + (uint64_t)p, false), 0);
    kg_npy_dlview(&R->in[p], &R->iv[p]);
    R->ip[p] = &R->iv[p];
  }
  kg_compiled_free(c0);
  cr_assert_eq(kg_specialize_for(R->m, entry, R->ip, R->n_in, NULL, 0, &R->c), KG_OK, "%s", kg_last_error(R->ctx));
  R->n_out = kg_compiled_n_outputs(R->c);
  cr_assert_eq(kg_alloc_host_outputs(R->c, R->out, R->ov, R->op), KG_OK);
}

static void run_go(run *R) {
  cr_assert_eq(kg_run(R->c, KG_DEVICE_EMU, R->ip, R->n_in, NULL, 0, R->op, R->n_out, NULL), KG_OK, "%s", kg_last_error(R->ctx));
}

static void run_close(run *R) {
  for (int i = 0; i < R->n_in; i++) kg_npy_free(&R->in[i]);
  for (int i = 0; i < R->n_out; i++) kg_npy_free(&R->out[i]);
  kg_compiled_free(R->c);
  kg_module_free(R->m);
  kg_context_free(R->ctx);
}

static size_t numel(const kg_npy *a) {
  size_t n = 1;
  for (int i = 0; i < a->rank; i++) n *= (size_t)a->shape[i];
  return n;
}
static const float *F(const run *R, int i) { return (const float *)R->out[i].data; }

/* ---- bits against the Python reference ---- */

/* tools/philox_ref.py's draws: n values of `mode` (u24 / u53) */
static void reference(uint64_t seed, uint64_t offset, int stream, int n, const char *mode, uint64_t *out) {
  char cmd[1024];
  const char *py = getenv("KGEN_PYTHON") ? getenv("KGEN_PYTHON") : "/usr/bin/python3";
  snprintf(cmd, sizeof cmd, "%s %s/tools/philox_ref.py %llu %llu %d %d %s", py, KG_SOURCE_DIR, (unsigned long long)seed,
           (unsigned long long)offset, stream, n, mode);
  FILE *f = popen(cmd, "r");
  cr_assert(f, "cannot run %s", cmd);
  for (int i = 0; i < n; i++) cr_assert_eq(fscanf(f, "%llu", (unsigned long long *)&out[i]), 1, "reading %s", cmd);
  cr_assert_eq(pclose(f), 0, "%s failed", cmd);
}

Test(random, reference_known_answers) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s/tools/philox_ref.py --selftest > /dev/null", getenv("KGEN_PYTHON") ? getenv("KGEN_PYTHON") : "/usr/bin/python3", KG_SOURCE_DIR);
  cr_assert_eq(system(cmd), 0, "tools/philox_ref.py --selftest: Random123's known answers");
}

Test(random, kernel_bits_match_the_reference) {
  /* rand_draws_like: out0 = x.rand_like() (stream 0, float32), out1 = rand_like(float64)
   * (stream 1); a seed with both halves set and an offset past 2^32 exercise every word */
  run R;
  run_open(&R, "rand_draws", "rand_draws_like", "float32[7,9], float32[7,9]");
  const uint64_t seed = 0x9e3779b97f4a7c15ull, offset = 0x100000005ull;
  kg_context_set_rng_state(R.ctx, seed, offset);
  run_go(&R);
  uint64_t ref[63];
  reference(seed, offset, 0, 63, "u24", ref);
  for (int e = 0; e < 63; e++) cr_expect_eq((uint64_t)((double)F(&R, 0)[e] * 16777216.0), ref[e], "rand_like float32 element %d", e);
  reference(seed, offset, 1, 63, "u53", ref);
  const double *d = (const double *)R.out[1].data;
  for (int e = 0; e < 63; e++) cr_expect_eq((uint64_t)(d[e] * 9007199254740992.0), ref[e], "rand_like float64 element %d", e);
  run_close(&R);
}

/* ---- statistics ---- */

Test(random, uniform_normal_bernoulli_statistics) {
  run R;
  run_open(&R, "rand_draws", "rand_draws_like", "float32[256,256], float32[256,256]");
  run_go(&R);
  size_t n = numel(&R.out[0]);
  /* uniform float32: in [0, 1), mean 1/2 and variance 1/12 within 6 sigma */
  double s = 0, s2 = 0, c1 = 0, cs = 0;
  const float *u = F(&R, 0), *u2 = F(&R, 2);
  for (size_t i = 0; i < n; i++) {
    cr_assert(u[i] >= 0 && u[i] < 1, "uniform %g out of [0, 1)", u[i]);
    s += u[i], s2 += (u[i] - 0.5) * (u[i] - 0.5);
    if (i + 1 < n) c1 += (u[i] - 0.5) * (u[i + 1] - 0.5);
  }
  double mean = s / (double)n, var = s2 / (double)n;
  cr_expect(fabs(mean - 0.5) < 6 * sqrt(1.0 / 12 / (double)n), "uniform mean %g", mean);
  cr_expect(fabs(var - 1.0 / 12) < 6 * sqrt(1.0 / 180 / (double)n), "uniform variance %g", var);
  /* neighbours uncorrelated: the lag-1 correlation of i.i.d. draws is ~N(0, 1/n) */
  cr_expect(fabs(c1 / (double)n / (1.0 / 12)) < 6 / sqrt((double)n), "lag-1 correlation %g", c1 / (double)n * 12);
  /* normal float32 (out2): mean 0, variance 1, P(|z| > 2) = 0.0455; and independent of stream 0 */
  double m = 0, v = 0, tail = 0;
  for (size_t i = 0; i < n; i++) {
    cr_assert(isfinite(u2[i]), "normal draw %g", u2[i]);
    m += u2[i], v += (double)u2[i] * u2[i], tail += fabs(u2[i]) > 2, cs += (u[i] - 0.5) * u2[i];
  }
  m /= (double)n, v = v / (double)n - m * m, tail /= (double)n;
  cr_expect(fabs(m) < 6 / sqrt((double)n), "normal mean %g", m);
  cr_expect(fabs(v - 1) < 6 * sqrt(2.0 / (double)n), "normal variance %g", v);
  cr_expect(fabs(tail - 0.0455) < 6 * sqrt(0.0455 * 0.9545 / (double)n), "normal P(|z| > 2) = %g", tail);
  cr_expect(fabs(cs / (double)n / sqrt(1.0 / 12)) < 6 / sqrt((double)n), "streams 0 and 2 correlated: %g", cs / (double)n / sqrt(1.0 / 12));
  /* normal float16 (out3) and float64 uniform (out1): ranges */
  const double *d = (const double *)R.out[1].data;
  double dm = 0;
  for (size_t i = 0; i < n; i++) {
    cr_assert(d[i] >= 0 && d[i] < 1);
    dm += d[i];
  }
  cr_expect(fabs(dm / (double)n - 0.5) < 6 * sqrt(1.0 / 12 / (double)n), "float64 uniform mean %g", dm / (double)n);
  /* bernoulli(sigmoid(p)) (out4): 0 or 1, its sum Σp within 6 sigma */
  const float *p = (const float *)R.in[1].data, *b = F(&R, 4);
  double ones = 0, ep = 0, vp = 0;
  for (size_t i = 0; i < n; i++) {
    double q = 1 / (1 + exp(-(double)p[i]));
    cr_assert(b[i] == 0 || b[i] == 1, "bernoulli drew %g", b[i]);
    ones += b[i], ep += q, vp += q * (1 - q);
  }
  cr_expect(fabs(ones - ep) < 6 * sqrt(vp), "bernoulli: %g ones, expected %g ± %g", ones, ep, sqrt(vp));
  run_close(&R);
}

Test(random, dropout_mask_scale_and_keep_fraction) {
  /* rand_dropout_functional: out0 = dropout(relu(x + b), 0.3) * 2, out1 = dropout(x, 1),
   * out2 = dropout(x, 0), out3 = dropout(x, 0.3, training = false) */
  run R;
  run_open(&R, "rand_dropout", "rand_dropout_functional", "float32[2048,33], float32[33]");
  run_go(&R);
  const float *x = (const float *)R.in[0].data, *b = (const float *)R.in[1].data;
  size_t n = numel(&R.out[0]);
  const float scale = (float)(1.0 / 0.7);
  double kept = 0, pos = 0;
  for (size_t i = 0; i < n; i++) {
    float r = x[i] + b[i % 33];
    r = r > 0 ? r : 0;
    float y = F(&R, 0)[i];
    if (r > 0) {
      pos++;
      cr_assert(y == 0 || y == r * scale * 2.0f, "element %zu: %.9g is neither 0 nor relu * 1/(1-p) * 2 = %.9g", i, y, r * scale * 2.0f);
      kept += y != 0;
    } else {
      cr_assert(y == 0, "element %zu: relu 0 gave %g", i, y);
    }
    cr_assert(F(&R, 1)[i] == 0, "p = 1 keeps element %zu", i);
    cr_assert(F(&R, 2)[i] == x[i] && F(&R, 3)[i] == x[i], "p = 0 / eval is not the identity at %zu", i);
  }
  cr_expect(fabs(kept / pos - 0.7) < 6 * sqrt(0.21 / pos), "keep fraction %g of %g (p = 0.3)", kept / pos, pos);
  run_close(&R);
}

Test(random, reproducible_per_state_and_fresh_per_call) {
  run R;
  run_open(&R, "rand_draws", "rand_draws_like", "float32[5,9], float32[5,9]");
  cr_expect_eq(kg_compiled_rng_streams(R.c), 6u, "six draws, six streams");
  uint64_t s0, o0, s1, o1;
  kg_context_rng_state(R.ctx, &s0, &o0);
  cr_expect_eq(s0, 67280421310721ull, "a new context has PyTorch's default seed");
  cr_expect_eq(o0, 0u);
  run_go(&R);
  kg_context_rng_state(R.ctx, &s1, &o1);
  cr_expect_eq(s1, s0);
  cr_expect_eq(o1, 6u, "a call advances the offset by the entry's streams");
  float first[45];
  memcpy(first, F(&R, 0), sizeof first);
  run_go(&R); /* the next call: other numbers */
  cr_expect(memcmp(first, F(&R, 0), sizeof first) != 0, "two calls drew the same numbers");
  kg_context_set_rng_state(R.ctx, s0, o0); /* replay */
  run_go(&R);
  cr_expect(memcmp(first, F(&R, 0), sizeof first) == 0, "the same (seed, offset) drew other numbers");
  kg_context_manual_seed(R.ctx, 1234);
  run_go(&R);
  cr_expect(memcmp(first, F(&R, 0), sizeof first) != 0, "another seed drew the same numbers");
  float again[45];
  memcpy(again, F(&R, 0), sizeof again);
  kg_context_manual_seed(R.ctx, 1234);
  run_go(&R);
  cr_expect(memcmp(again, F(&R, 0), sizeof again) == 0, "manual_seed does not reproduce");
  /* a context of its own draws the same for the same seed (no hidden state elsewhere) */
  run R2;
  run_open(&R2, "rand_draws", "rand_draws_like", "float32[5,9], float32[5,9]");
  kg_context_manual_seed(R2.ctx, 1234);
  run_go(&R2);
  cr_expect(memcmp(again, F(&R2, 0), sizeof again) == 0, "two contexts with one seed differ");
  run_close(&R2);
  run_close(&R);
}

/* ---- against PyTorch at other sizes, and the errors ---- */

static void check_at(const char *name, const char *entry, const char *sig) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, name);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_EMU, co.seed = 5;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s [%s] at %s: %s", name, entry, sig ? sig : "its signature", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s [%s] at %s: out%d %s %s: %s", name, entry, sig ? sig : "its signature", k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(random, edge_sizes_against_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  check_at("rand_dropout", "rand_dropout_functional", "float32[0,33], float32[33]");
  check_at("rand_dropout", "rand_dropout_functional", "float32[1,1], float32[1]");
  check_at("rand_dropout", "rand_dropout_functional", "float32[N,5], float32[5]");
  check_at("rand_dropout", "rand_dropout_attention", "float32[1,1,3], float32[1,5,3], float32[1,5,2]");
  check_at("rand_dropout", "rand_dropout_dtypes", "float16[0], bfloat16[1], float64[3,1,5]");
  check_at("rand_draws", "rand_draws_like", "float32[0,3], float32[0,3]");
  check_at("rand_draws", "rand_draws_like", "float64[1], float16[1]");
  check_at("rand_draws", "rand_draws_sized", "float32[1,3]");
}

static void expect_error(const char *name, const char *entry, const char *sig, const char *want) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, name);
  kg_compiled *c = NULL;
  kg_status s = kg_specialize(m, entry, sig, &c);
  cr_expect_neq(s, KG_OK, "%s [%s] at %s compiled", name, entry, sig);
  cr_expect(strstr(kg_last_error(ctx), want) != NULL, "%s [%s] at %s: wanted '%s' in:\n%s", name, entry, sig, want, kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), ".fs:") != NULL, "the error is located at the F# source:\n%s", kg_last_error(ctx));
  if (c) kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(random, pytorch_errors_located) {
  expect_error("rand_dropout", "rand_dropout_dtypes", "int64[2], bfloat16[2], float64[2]", "result type Float can't be cast to the desired output type Long");
  expect_error("rand_draws", "rand_draws_like", "int32[2], float32[2]", "\"check_uniform_bounds\" not implemented for 'Int'");
}
