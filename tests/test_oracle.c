/* tests/test_oracle.c — the PyTorch oracle (check/oracle.c + oracle.py): verdicts
 * for good and planted-bad outputs, dtype / shape checks, NaN and inf rules, exact
 * integers, 0-dim, empty and tuple outputs, float16 / bfloat16 inputs, the rmse-vs-fp64
 * rule (and its gradient reference for half-precision programs), errors in the reference,
 * a dying or hanging process, no zombies.
 * Every test skips (never fails) when /usr/bin/python3 cannot import torch. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir/ir.h"
#include "check/check.h"

/* ---- helpers ---- */

typedef struct ctx {
  char dir[64];
  kg_oracle *o;
  kg_diag d;
} ctx;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Starts an oracle in a fresh temp dir; skips the test when torch is missing. */
static void ctx_open(ctx *c) {
  kg_diag_init(&c->d);
  c->o = kg_oracle_start(&c->d);
  if (!c->o) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", c->d.n ? c->d.items[0].msg : "oracle unavailable");
    cr_assert_eq(c->d.items[0].code, KG_E_DEVICE);
    cr_skip_test("%s", msg);
  }
  snprintf(c->dir, sizeof c->dir, "/tmp/kgen_oracle_XXXXXX");
  cr_assert_not_null(mkdtemp(c->dir));
}

static void ctx_close(ctx *c) {
  kg_oracle_stop(c->o);
  kg_diag_free(&c->d);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
  cr_assert_eq(system(cmd), 0);
  /* kg_oracle_stop reaped the child: this test process has no children left. */
  errno = 0;
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a child process is left over");
  cr_assert_eq(errno, ECHILD);
}

static const char *path(ctx *c, const char *name) {
  static char buf[64][160]; /* a ring: every test uses fewer than 64 paths */
  static int next;
  KG_ASSERT(next < 64);
  char *p = buf[next++];
  snprintf(p, 160, "%s/%s", c->dir, name);
  return p;
}

static const char *write_text(ctx *c, const char *name, const char *text) {
  const char *p = path(c, name);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return p;
}

static char *save(ctx *c, const char *name, int dtype, int rank, const int64_t *shape,
                  const void *data, size_t nbytes) {
  kg_npy a = {.dtype = dtype, .rank = rank, .data = (void *)(uintptr_t)data, .nbytes = nbytes};
  for (int k = 0; k < rank; k++) a.shape[k] = shape[k];
  char *p = strdup(path(c, name));
  cr_assert_eq(kg_npy_write(p, &a, &c->d), 0);
  return p;
}

static char *save_f32(ctx *c, const char *name, int rank, const int64_t *shape, const float *v) {
  size_t n = 1;
  for (int k = 0; k < rank; k++) n *= (size_t)shape[k];
  return save(c, name, KG_F32, rank, shape, v, n * 4);
}

/* Runs a job with up to 4 inputs and 4 outputs. */
static int run(ctx *c, const char *script, const char *fn, bool ts, const char **inputs,
               int n_in, const char **ours, const char **dtypes, int n_out, kg_oracle_row *rows) {
  kg_oracle_job j = {.script = script, .fn = fn, .torchscript = ts, .inputs = inputs,
                     .n_inputs = n_in, .ours = ours, .n_outputs = n_out,
                     .expect_dtypes = dtypes, .tol_scale = 1.0};
  return kg_oracle_check(c->o, &j, rows, &c->d);
}

/* The last diagnostic, for assertion messages. */
static const char *last_msg(const ctx *c) { return c->d.n ? c->d.items[c->d.n - 1].msg : ""; }

static bool diag_mentions(const kg_diag *d, const char *s) {
  for (uint32_t i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, s)) return true;
  return false;
}

/* ---- tests ---- */

Test(oracle, verdicts_ok_mismatch_dtype_shape) {
  ctx c;
  double t0 = now_ms();
  ctx_open(&c);
  double t_start = now_ms() - t0;
  const char *ts = write_text(&c, "f.ts",
                              "def f(x: torch.Tensor, y: torch.Tensor):\n"
                              "    return torch.tanh(x + y) * 0.5\n");
  int64_t shape[] = {6, 7};
  kg_npy x, y;
  kg_npy_random(&x, KG_F32, 2, shape, 1, false);
  kg_npy_random(&y, KG_F32, 2, shape, 2, false);
  char *xp = save_f32(&c, "x.npy", 2, shape, x.data), *yp = save_f32(&c, "y.npy", 2, shape, y.data);
  float out[42];
  double out64[42];
  for (int i = 0; i < 42; i++) {
    out[i] = tanhf(((float *)x.data)[i] + ((float *)y.data)[i]) * 0.5f;
    out64[i] = out[i];
  }
  char *good = save_f32(&c, "good.npy", 2, shape, out);
  out[1 * 7 + 2] += 0.01f;
  char *bad = save_f32(&c, "bad.npy", 2, shape, out);
  char *dbl = save(&c, "dbl.npy", KG_F64, 2, shape, out64, sizeof out64);
  int64_t tshape[] = {7, 6};
  char *tr = save_f32(&c, "tr.npy", 2, tshape, out);
  const char *in[] = {xp, yp};
  const char *f32[] = {"float32"}, *f64[] = {"float64"};
  kg_oracle_row r;

  double t1 = now_ms();
  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){good}, f32, 1, &r), 0, "%s", last_msg(&c));
  double t_first = now_ms() - t1;
  cr_assert(r.ok, "%s", r.verdict);
  cr_assert_str_eq(r.verdict, "ok (allclose)");
  cr_assert_str_eq(r.dtype, "float32");
  cr_assert_str_eq(r.shape, "[6, 7]");
  cr_assert_lt(r.max_abs, 1e-5);

  double t2 = now_ms();
  const int reps = 20;
  for (int i = 0; i < reps; i++)
    cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){good}, f32, 1, &r), 0, "%s", last_msg(&c));
  double t_job = (now_ms() - t2) / reps;
  cr_log_info("oracle timings: start %.0f ms, first job %.1f ms (TorchScript compile), "
              "later jobs %.2f ms each",
              t_start, t_first, t_job);

  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){bad}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok);
  cr_assert(!strncmp(r.verdict, "MISMATCH at [1, 2]: ours ", 25), "%s", r.verdict);
  cr_assert(r.max_abs > 0.009 && r.max_abs < 0.011, "%g", r.max_abs);
  cr_assert_gt(r.max_rel, 0);

  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){dbl}, f64, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok);
  cr_assert_str_eq(r.verdict, "dtype mismatch: ours float64, torch float32");
  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){good}, f64, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok);
  cr_assert_str_eq(r.verdict, "dtype mismatch: ours float32, expected float64");
  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){tr}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok);
  cr_assert_str_eq(r.verdict, "shape mismatch: ours [7, 6], torch [6, 7]");
  /* two outputs claimed, one returned */
  kg_oracle_row r2[2];
  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){good, good}, (const char *[]){"float32", "float32"}, 2, r2), 0, "%s", last_msg(&c));
  cr_assert_not(r2[0].ok);
  cr_assert_str_eq(r2[1].verdict, "output count mismatch: ours 2, torch 1");
  /* the same function as eager Python */
  const char *py = write_text(&c, "f.py", "def f(x, y):\n    return torch.tanh(x + y) * 0.5\n");
  cr_assert_eq(run(&c, py, "f", false, in, 2, (const char *[]){good}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "ok (allclose)");
  cr_assert_eq(c.d.n, 0);
  kg_npy_free(&x), kg_npy_free(&y);
  free(xp), free(yp), free(good), free(bad), free(dbl), free(tr);
  ctx_close(&c);
}

Test(oracle, nan_inf_and_signed_zero) {
  ctx c;
  ctx_open(&c);
  const char *ts = write_text(&c, "id.ts", "def f(x: torch.Tensor):\n    return x * 1.0\n");
  int64_t shape[] = {5};
  float x[] = {NAN, INFINITY, -INFINITY, -0.0f, 1.5f};
  char *xp = save_f32(&c, "x.npy", 1, shape, x);
  float same[] = {NAN, INFINITY, -INFINITY, 0.0f, 1.5f}; /* -0 vs +0: equal */
  float sign[] = {NAN, -INFINITY, -INFINITY, 0.0f, 1.5f};
  float nan_lost[] = {0.0f, INFINITY, -INFINITY, 0.0f, 1.5f};
  float nan_extra[] = {NAN, INFINITY, -INFINITY, 0.0f, NAN};
  float inf_finite[] = {NAN, 3e38f, -INFINITY, 0.0f, 1.5f};
  const char *f32[] = {"float32"};
  kg_oracle_row r;
  const char *in[] = {xp};
  char *p = save_f32(&c, "same.npy", 1, shape, same);
  cr_assert_eq(run(&c, ts, "f", true, in, 1, (const char *[]){p}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "ok (allclose)");
  cr_assert_eq(r.max_abs, 0);
  free(p);
  p = save_f32(&c, "sign.npy", 1, shape, sign);
  cr_assert_eq(run(&c, ts, "f", true, in, 1, (const char *[]){p}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "MISMATCH at [1]: ours -inf, torch inf");
  free(p);
  p = save_f32(&c, "nan_lost.npy", 1, shape, nan_lost);
  cr_assert_eq(run(&c, ts, "f", true, in, 1, (const char *[]){p}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "MISMATCH at [0]: ours 0, torch nan");
  free(p);
  p = save_f32(&c, "nan_extra.npy", 1, shape, nan_extra);
  cr_assert_eq(run(&c, ts, "f", true, in, 1, (const char *[]){p}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "MISMATCH at [4]: ours nan, torch 1.5");
  free(p);
  p = save_f32(&c, "inf_finite.npy", 1, shape, inf_finite);
  cr_assert_eq(run(&c, ts, "f", true, in, 1, (const char *[]){p}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert(!strncmp(r.verdict, "MISMATCH at [1]: ours 3", 23), "%s", r.verdict);
  free(p), free(xp);
  ctx_close(&c);
}

Test(oracle, integers_and_bool_exact) {
  ctx c;
  ctx_open(&c);
  const char *ts = write_text(&c, "i.ts",
                              "def add(a: torch.Tensor, b: torch.Tensor):\n"
                              "    return a + b, a > b\n"
                              "def total(a: torch.Tensor):\n"
                              "    return torch.sum(a)\n"
                              "def div(a: torch.Tensor, b: torch.Tensor):\n"
                              "    return torch.div(a, b, rounding_mode='floor')\n");
  int64_t shape[] = {3, 4};
  kg_npy a, b;
  kg_npy_random(&a, KG_I32, 2, shape, 5, false);
  kg_npy_random(&b, KG_I32, 2, shape, 6, true);
  char *ap = save(&c, "a.npy", KG_I32, 2, shape, a.data, a.nbytes);
  char *bp = save(&c, "b.npy", KG_I32, 2, shape, b.data, b.nbytes);
  int32_t sum[12], quo[12];
  unsigned char gt[12];
  int64_t total = 0;
  const int32_t *av = a.data, *bv = b.data;
  for (int i = 0; i < 12; i++) {
    sum[i] = av[i] + bv[i];
    gt[i] = av[i] > bv[i];
    quo[i] = av[i] / bv[i] - ((av[i] % bv[i] != 0) && ((av[i] < 0) != (bv[i] < 0)));
    total += av[i];
  }
  char *sp = save(&c, "sum.npy", KG_I32, 2, shape, sum, sizeof sum);
  char *gp = save(&c, "gt.npy", KG_BOOL, 2, shape, gt, sizeof gt);
  char *qp = save(&c, "quo.npy", KG_I32, 2, shape, quo, sizeof quo);
  const char *in[] = {ap, bp};
  kg_oracle_row r[2];
  cr_assert_eq(run(&c, ts, "add", true, in, 2, (const char *[]){sp, gp}, (const char *[]){"int32", "bool"}, 2, r), 0, "%s", last_msg(&c));
  cr_assert(r[0].ok && r[1].ok, "%s / %s", r[0].verdict, r[1].verdict);
  cr_assert_str_eq(r[0].verdict, "ok (exact)");
  cr_assert_str_eq(r[1].dtype, "bool");
  cr_assert_eq(run(&c, ts, "div", true, in, 2, (const char *[]){qp}, (const char *[]){"int32"}, 1, r), 0, "%s", last_msg(&c));
  cr_assert(r[0].ok, "%s", r[0].verdict);
  /* off by one is a mismatch for integers, whatever the tolerance */
  sum[11] += 1;
  gt[0] = !gt[0];
  free(sp), free(gp);
  sp = save(&c, "sum2.npy", KG_I32, 2, shape, sum, sizeof sum);
  gp = save(&c, "gt2.npy", KG_BOOL, 2, shape, gt, sizeof gt);
  kg_oracle_job j = {.script = ts, .fn = "add", .torchscript = true, .inputs = in, .n_inputs = 2,
                     .ours = (const char *[]){sp, gp}, .n_outputs = 2,
                     .expect_dtypes = (const char *[]){"int32", "bool"}, .tol_scale = 1000};
  cr_assert_eq(kg_oracle_check(c.o, &j, r, &c.d), 0, "%s", last_msg(&c));
  char want[96];
  snprintf(want, sizeof want, "MISMATCH at [2, 3]: ours %d, torch %d", sum[11], sum[11] - 1);
  cr_assert_str_eq(r[0].verdict, want);
  cr_assert_eq(r[0].max_abs, 1);
  cr_assert(!strncmp(r[1].verdict, "MISMATCH at [0, 0]", 18), "%s", r[1].verdict);
  /* int32 sum is int64 in torch */
  int32_t t32 = (int32_t)total;
  char *tp = save(&c, "t32.npy", KG_I32, 0, NULL, &t32, 4);
  cr_assert_eq(run(&c, ts, "total", true, in, 1, (const char *[]){tp}, (const char *[]){"int32"}, 1, r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r[0].verdict, "dtype mismatch: ours int32, torch int64");
  free(tp);
  tp = save(&c, "t64.npy", KG_I64, 0, NULL, &total, 8);
  cr_assert_eq(run(&c, ts, "total", true, in, 1, (const char *[]){tp}, (const char *[]){"int64"}, 1, r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r[0].verdict, "ok (exact)");
  cr_assert_str_eq(r[0].shape, "[]");
  kg_npy_free(&a), kg_npy_free(&b);
  free(ap), free(bp), free(sp), free(gp), free(qp), free(tp);
  ctx_close(&c);
}

Test(oracle, zero_dim_scalars_empty_and_tuples) {
  ctx c;
  ctx_open(&c);
  /* s is a scalar parameter: a 0-dim float64 tensor; float32 * 0-dim float64 stays
   * float32 (a 0-dim tensor of the same category does not promote). */
  const char *ts = write_text(&c, "s.ts",
                              "def f(x: torch.Tensor, s: torch.Tensor, k: torch.Tensor):\n"
                              "    y = x * s + k\n"
                              "    return (y, (y.sum(), y.amax(0)))\n");
  const char *py = write_text(&c, "s.py",
                              "def g(x, s, k):\n"
                              "    print('reference output goes to stderr, not the protocol')\n"
                              "    return (x * s).sum().item(), int(k)\n");
  int64_t shape[] = {3, 2};
  float x[] = {1, 2, 3, 4, 5, 6};
  double s = 0.5;
  float y[6], ysum = 0, ymax[2] = {-INFINITY, -INFINITY};
  for (int i = 0; i < 6; i++) {
    y[i] = x[i] * 0.5f + 3.0f;
    ysum += y[i];
    ymax[i % 2] = fmaxf(ymax[i % 2], y[i]);
  }
  int64_t k = 3;
  char *xp = save_f32(&c, "x.npy", 2, shape, x);
  char *sp = save(&c, "s.npy", KG_F64, 0, NULL, &s, 8);
  char *kp = save(&c, "k.npy", KG_I64, 0, NULL, &k, 8);
  char *yp = save_f32(&c, "y.npy", 2, shape, y);
  char *ysp = save_f32(&c, "ysum.npy", 0, NULL, &ysum);
  int64_t two[] = {2};
  char *ymp = save_f32(&c, "ymax.npy", 1, two, ymax);
  const char *in[] = {xp, sp, kp};
  kg_oracle_row r[3];
  cr_assert_eq(run(&c, ts, "f", true, in, 3, (const char *[]){yp, ysp, ymp},
                   (const char *[]){"float32", "float32", "float32"}, 3, r), 0, "%s", last_msg(&c));
  for (int i = 0; i < 3; i++) cr_assert(r[i].ok, "%d: %s", i, r[i].verdict);
  cr_assert_str_eq(r[1].shape, "[]");
  cr_assert_str_eq(r[2].shape, "[2]");
  /* Python scalars: float → 0-dim float64, int → 0-dim int64 */
  double g0 = 10.5;
  char *g0p = save(&c, "g0.npy", KG_F64, 0, NULL, &g0, 8);
  char *g1p = save(&c, "g1.npy", KG_I64, 0, NULL, &k, 8);
  cr_assert_eq(run(&c, py, "g", false, in, 3, (const char *[]){g0p, g1p}, (const char *[]){"float64", "int64"}, 2, r), 0, "%s", last_msg(&c));
  cr_assert(r[0].ok && r[1].ok, "%s / %s", r[0].verdict, r[1].verdict);
  /* captures are keyword arguments */
  kg_oracle_job j = {.script = ts, .fn = "f", .torchscript = true, .inputs = in, .n_inputs = 1,
                     .capture_names = (const char *[]){"k", "s"},
                     .captures = (const char *[]){kp, sp}, .n_captures = 2,
                     .ours = (const char *[]){yp, ysp, ymp}, .n_outputs = 3,
                     .expect_dtypes = (const char *[]){"float32", "float32", "float32"}};
  cr_assert_eq(kg_oracle_check(c.o, &j, r, &c.d), 0, "%s", last_msg(&c)); /* tol_scale 0 means 1 */
  for (int i = 0; i < 3; i++) cr_assert(r[i].ok, "%d: %s", i, r[i].verdict);
  /* empty tensors pass on shape and dtype */
  int64_t eshape[] = {0, 2};
  char *ep = save_f32(&c, "e.npy", 2, eshape, NULL);
  char *eyp = save_f32(&c, "ey.npy", 2, eshape, NULL);
  float zero = 0;
  char *ezp = save_f32(&c, "ez.npy", 0, NULL, &zero);
  const char *ein[] = {ep, sp, kp};
  const char *esum = write_text(&c, "e.ts",
                                "def f(x: torch.Tensor, s: torch.Tensor, k: torch.Tensor):\n"
                                "    y = x * s + k\n"
                                "    return y, y.sum()\n");
  cr_assert_eq(run(&c, esum, "f", true, ein, 3, (const char *[]){eyp, ezp}, (const char *[]){"float32", "float32"}, 2, r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r[0].verdict, "ok (empty)");
  cr_assert_str_eq(r[0].shape, "[0, 2]");
  cr_assert_str_eq(r[1].verdict, "ok (allclose)");
  free(xp), free(sp), free(kp), free(yp), free(ysp), free(ymp), free(g0p), free(g1p);
  free(ep), free(eyp), free(ezp);
  ctx_close(&c);
}

Test(oracle, half_and_bfloat16) {
  ctx c;
  ctx_open(&c);
  /* PyTorch 1.13's CPU lacks many Half kernels: the reference upcasts itself. */
  const char *ts = write_text(&c, "h.ts",
                              "def f(x: torch.Tensor):\n"
                              "    return (x.float() * 2).to(x.dtype)\n");
  int64_t shape[] = {64};
  for (int w = 0; w < 2; w++) {
    int dt = w ? KG_BF16 : KG_F16;
    const char *name = w ? "bfloat16" : "float16";
    const int mbits = w ? 7 : 10;
    kg_npy x;
    kg_npy_random(&x, dt, 1, shape, 3, false);
    char *xp = save(&c, "hx.npy", dt, 1, shape, x.data, x.nbytes);
    /* Doubling is exact: one more in the exponent field for normal numbers; for
     * subnormals the magnitude bits double (and carry into the exponent). */
    uint16_t out[64];
    for (int i = 0; i < 64; i++) {
      uint16_t h = ((uint16_t *)x.data)[i], mag = h & 0x7fff, sign = h & 0x8000;
      out[i] = (uint16_t)(sign | ((mag >> mbits) ? mag + (1u << mbits) : (unsigned)mag << 1));
    }
    char *op = save(&c, "ho.npy", dt, 1, shape, out, sizeof out);
    kg_oracle_row r;
    cr_assert_eq(run(&c, ts, "f", true, (const char *[]){xp}, 1, (const char *[]){op}, (const char *[]){name}, 1, &r), 0, "%s", last_msg(&c));
    cr_assert(r.ok, "%s: %s", name, r.verdict);
    cr_assert_str_eq(r.dtype, name);
    out[5] ^= 0x0040; /* a wrong mantissa bit, well above the tolerance */
    free(op);
    op = save(&c, "ho2.npy", dt, 1, shape, out, sizeof out);
    cr_assert_eq(run(&c, ts, "f", true, (const char *[]){xp}, 1, (const char *[]){op}, (const char *[]){name}, 1, &r), 0, "%s", last_msg(&c));
    cr_assert(!strncmp(r.verdict, "MISMATCH at [5]", 15), "%s: %s", name, r.verdict);
    kg_npy_free(&x);
    free(xp), free(op);
  }
  ctx_close(&c);
}

/* (x + y) - y in float32 with |y| ≫ |x| loses x's low bits; ours, computed exactly,
 * is far from torch in allclose terms but closer to the fp64 truth: the rmse rule. */
Test(oracle, rmse_rule_rescues_more_accurate_results) {
  ctx c;
  ctx_open(&c);
  const char *ts = write_text(&c, "c.ts",
                              "def f(x: torch.Tensor, y: torch.Tensor):\n"
                              "    return (x + y) - y\n");
  const char *py32 = write_text(&c, "c32.py",
                                "def f(x, y):\n"
                                "    assert x.element_size() == 4, 'float32 only'\n"
                                "    return (x + y) - y\n");
  enum { N = 256 };
  float x[N], y[N], ours[N];
  uint64_t s = 99;
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((double)(s >> 11) * 0x1.0p-53 * 2e-3 - 1e-3);
    y[i] = 1e4f + (float)i;
    ours[i] = x[i]; /* exact */
  }
  int64_t shape[] = {N};
  char *xp = save_f32(&c, "x.npy", 1, shape, x), *yp = save_f32(&c, "y.npy", 1, shape, y);
  char *op = save_f32(&c, "o.npy", 1, shape, ours);
  const char *in[] = {xp, yp};
  kg_oracle_row r;
  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){op}, (const char *[]){"float32"}, 1, &r), 0, "%s", last_msg(&c));
  cr_assert(r.ok, "%s", r.verdict);
  cr_assert_str_eq(r.verdict, "ok (rmse vs fp64)");
  cr_assert_gt(r.max_abs, 1e-4);
  /* A reference that cannot run in float64: the rule is unavailable. */
  cr_assert_eq(run(&c, py32, "f", false, in, 2, (const char *[]){op}, (const char *[]){"float32"}, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok);
  cr_assert(!strncmp(r.verdict, "MISMATCH at [", 13), "%s", r.verdict);
  /* Worse than torch: ours off by 1e-3 everywhere fails both rules. */
  for (int i = 0; i < N; i++) ours[i] = x[i] + 1e-3f;
  free(op);
  op = save_f32(&c, "o2.npy", 1, shape, ours);
  cr_assert_eq(run(&c, ts, "f", true, in, 2, (const char *[]){op}, (const char *[]){"float32"}, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok, "%s", r.verdict);
  cr_assert(!strncmp(r.verdict, "MISMATCH at [", 13), "%s", r.verdict);
  /* tol_scale loosens allclose: */
  kg_oracle_job j = {.script = ts, .fn = "f", .torchscript = true, .inputs = in, .n_inputs = 2,
                     .ours = (const char *[]){op}, .n_outputs = 1,
                     .expect_dtypes = (const char *[]){"float32"}, .tol_scale = 1000};
  cr_assert_eq(kg_oracle_check(c.o, &j, &r, &c.d), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "ok (allclose)");
  free(xp), free(yp), free(op);
  ctx_close(&c);
}

/* a float rounded to bfloat16 (kgen's own conversion, round to nearest even) */
static float to_bf16(float v) { return kg_bf16_to_f32(kg_f32_to_bf16(v)); }

/* The rmse rule for a gradient of a half-precision program (oracle op "grad"): the float64
 * reference rounds the twin's values where the twin does but not the gradient flowing back
 * through those roundings (straight-through). Before, autograd's cast backward rounded it to
 * bfloat16 at every op, which made the "float64" reference PyTorch's own bfloat16 backward again:
 * the gradient below, exact for the rounded forward (then rounded once), was 3.7x "worse" than
 * eager's bfloat16 backward (norm_prim_softmax_half). The twin is the reference-mode softmax by
 * hand (amax, exp, sum, divide over rows of 67, each op rounded to bfloat16). */
Test(oracle, grad_rmse_reference_rounds_values_not_gradients) {
  ctx c;
  ctx_open(&c);
  const char *ts = write_text(&c, "sm.ts",
                              "def f(g: torch.Tensor):\n"
                              "    t1 = g.float()\n"
                              "    t7 = torch.amax(t1, dim=[1], keepdim=True).to(torch.bfloat16).float()\n"
                              "    t8 = torch.sub(t1, t7).to(torch.bfloat16).float()\n"
                              "    t9 = torch.exp(t8).to(torch.bfloat16).float()\n"
                              "    t10 = torch.sum(t9, dim=[1], keepdim=True).to(torch.bfloat16).float()\n"
                              "    t11 = torch.div(t9, t10).to(torch.bfloat16).float()\n"
                              "    return t11.to(torch.bfloat16)\n");
  enum { R = 96, C = 67 };
  static uint16_t xb[R * C], wb[R * C], gb[R * C], bad[R * C];
  uint64_t s = 7;
  float x[R * C], w[R * C];
  for (int i = 0; i < R * C; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = to_bf16((float)((double)(s >> 11) * 0x1.0p-53 * 6.0 - 3.0));
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    w[i] = to_bf16((float)((double)(s >> 11) * 0x1.0p-53 * 2.0 - 1.0));
    xb[i] = kg_f32_to_bf16(x[i]), wb[i] = kg_f32_to_bf16(w[i]);
  }
  /* d(Σ W·y)/dx for the rounded forward, in double, each rounding passing the gradient as is:
   * y = e/s, e = exp(d) (its derivative is the unrounded exp, as autograd's), d = x - m, and m's
   * gradient -Σ ∂d shared evenly by the row's maxima (amax's backward) */
  for (int r = 0; r < R; r++) {
    const float *xr = x + r * C, *wr = w + r * C;
    float m = xr[0];
    for (int j = 1; j < C; j++) m = fmaxf(m, xr[j]);
    double e[C], ex[C], sum = 0, we = 0, gd[C], gm = 0;
    for (int j = 0; j < C; j++) {
      float d = to_bf16(xr[j] - m);
      ex[j] = exp((double)d);
      e[j] = to_bf16((float)ex[j]);
      sum += e[j];
    }
    double sb = to_bf16((float)sum);
    for (int j = 0; j < C; j++) we += wr[j] * e[j];
    int ties = 0;
    for (int j = 0; j < C; j++) {
      gd[j] = (wr[j] / sb - we / (sb * sb)) * ex[j];
      gm -= gd[j];
      ties += xr[j] == m;
    }
    for (int j = 0; j < C; j++) {
      double g = gd[j] + (xr[j] == m ? gm / ties : 0);
      gb[r * C + j] = kg_f32_to_bf16((float)g);
      bad[r * C + j] = kg_f32_to_bf16((float)(g * 1.25 + (j % 2 ? 1e-3 : -1e-3)));
    }
  }
  int64_t shape[] = {R, C};
  char *xp = save(&c, "x.npy", KG_BF16, 2, shape, xb, sizeof xb), *wp = save(&c, "w.npy", KG_BF16, 2, shape, wb, sizeof wb);
  char *gp = save(&c, "g.npy", KG_BF16, 2, shape, gb, sizeof gb), *bp = save(&c, "bad.npy", KG_BF16, 2, shape, bad, sizeof bad);
  const char *in[] = {xp}, *weights[] = {wp};
  const int gi[] = {0};
  kg_oracle_job j = {.script = ts, .fn = "f", .torchscript = true, .inputs = in, .n_inputs = 1,
                     .ours = (const char *[]){gp}, .n_outputs = 1, .expect_dtypes = (const char *[]){"bfloat16"},
                     .tol_scale = 1.0, .grad = true, .weights = weights, .n_weights = 1, .grad_input = gi};
  kg_oracle_row r;
  cr_assert_eq(kg_oracle_check(c.o, &j, &r, &c.d), 0, "%s", last_msg(&c));
  /* not allclose to eager's bfloat16 backward, closer than it to the float64 gradient */
  cr_assert_str_eq(r.verdict, "ok (rmse vs fp64)");
  cr_assert(r.ok);
  /* a gradient a quarter off (and biased) fails both rules */
  j.ours = (const char *[]){bp};
  cr_assert_eq(kg_oracle_check(c.o, &j, &r, &c.d), 0, "%s", last_msg(&c));
  cr_assert_not(r.ok, "%s", r.verdict);
  cr_assert(!strncmp(r.verdict, "MISMATCH at [", 13), "%s", r.verdict);
  free(xp), free(wp), free(gp), free(bp);
  ctx_close(&c);
}

Test(oracle, reference_errors_keep_the_process) {
  ctx c;
  ctx_open(&c);
  const char *good = write_text(&c, "ok.ts", "def f(x: torch.Tensor):\n    return x + 1\n");
  const char *raises = write_text(&c, "raise.py",
                                  "def helper(x):\n"
                                  "    raise ValueError('planted failure %d' % x.numel())\n"
                                  "def f(x):\n"
                                  "    return helper(x)\n");
  const char *bad_ts = write_text(&c, "bad.ts", "def f(x: torch.Tensor):\n    return x + undefined_name\n");
  const char *syntax = write_text(&c, "syntax.py", "def f(x):\n    return x +\n");
  int64_t shape[] = {4};
  float x[] = {1, 2, 3, 4}, o[] = {2, 3, 4, 5};
  char *xp = save_f32(&c, "x.npy", 1, shape, x), *op = save_f32(&c, "o.npy", 1, shape, o);
  const char *in[] = {xp};
  const char *f32[] = {"float32"};
  kg_oracle_row r;
  struct { const char *script; bool ts; const char *fn; const char *msg; kg_diag_code code; } cases[] = {
      {raises, false, "f", "ValueError: planted failure 4", KG_E_INTERNAL},
      {bad_ts, true, "f", "undefined_name", KG_E_INTERNAL},
      {syntax, false, "f", "SyntaxError", KG_E_INTERNAL},
      {good, true, "nope", "defines no function 'nope'", KG_E_INTERNAL},
      {"/nonexistent/f.ts", true, "f", "cannot read the reference script", KG_E_IO},
      {xp, false, "f", "cannot read the reference script", KG_E_IO}, /* binary, not UTF-8 */
  };
  for (size_t i = 0; i < KG_COUNTOF(cases); i++) {
    kg_diag_clear(&c.d);
    cr_assert_eq(run(&c, cases[i].script, cases[i].fn, cases[i].ts, in, 1, (const char *[]){op}, f32, 1, &r), -1);
    cr_assert_eq(c.d.n, 1);
    cr_assert_eq(c.d.items[0].code, cases[i].code);
    cr_assert(strstr(c.d.items[0].msg, cases[i].msg), "case %zu: %s", i, c.d.items[0].msg);
    cr_assert_str_eq(r.verdict, "not checked");
  }
  /* the traceback names the user's frames */
  kg_diag_clear(&c.d);
  cr_assert_eq(run(&c, raises, "f", false, in, 1, (const char *[]){op}, f32, 1, &r), -1);
  cr_assert(strstr(c.d.items[0].msg, "in helper"), "%s", c.d.items[0].msg);
  /* missing input file */
  kg_diag_clear(&c.d);
  const char *missing = path(&c, "missing.npy");
  cr_assert_eq(run(&c, good, "f", true, (const char *[]){missing}, 1, (const char *[]){op}, f32, 1, &r), -1);
  cr_assert_eq(c.d.items[0].code, KG_E_IO);
  cr_assert(strstr(c.d.items[0].msg, "missing.npy"));
  /* bad request */
  kg_diag_clear(&c.d);
  cr_assert_eq(run(&c, good, "f", true, in, 1, (const char *[]){op}, (const char *[]){"float99"}, 1, &r), -1);
  cr_assert(diag_mentions(&c.d, "unknown expected dtype"));
  kg_diag_clear(&c.d);
  cr_assert_eq(run(&c, NULL, "f", true, in, 1, (const char *[]){op}, f32, 1, &r), -1);
  cr_assert_eq(c.d.items[0].code, KG_E_ARG);
  /* still alive and well */
  kg_diag_clear(&c.d);
  cr_assert_eq(run(&c, good, "f", true, in, 1, (const char *[]){op}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert_str_eq(r.verdict, "ok (allclose)");
  free(xp), free(op);
  ctx_close(&c);
}

Test(oracle, dead_or_hanging_process_is_reported_and_restarted) {
  setenv("KGEN_ORACLE_TIMEOUT", "2", 1);
  ctx c;
  ctx_open(&c);
  const char *good = write_text(&c, "ok.ts", "def f(x: torch.Tensor):\n    return x + 1\n");
  const char *die = write_text(&c, "die.py", "import os\ndef f(x):\n    os._exit(3)\n");
  const char *kill9 = write_text(&c, "kill.py", "import os, signal\ndef f(x):\n    os.kill(os.getpid(), signal.SIGKILL)\n");
  const char *hang = write_text(&c, "hang.py", "import time\ndef f(x):\n    time.sleep(30)\n");
  int64_t shape[] = {4};
  float x[] = {1, 2, 3, 4}, o[] = {2, 3, 4, 5};
  char *xp = save_f32(&c, "x.npy", 1, shape, x), *op = save_f32(&c, "o.npy", 1, shape, o);
  const char *in[] = {xp};
  const char *f32[] = {"float32"};
  kg_oracle_row r;
  cr_assert_eq(run(&c, die, "f", false, in, 1, (const char *[]){op}, f32, 1, &r), -1);
  cr_assert(diag_mentions(&c.d, "exited with status 3"), "%s", c.d.items[0].msg);
  cr_assert(diag_mentions(&c.d, "restarted"));
  kg_diag_clear(&c.d);
  cr_assert_eq(run(&c, good, "f", true, in, 1, (const char *[]){op}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert(r.ok);
  cr_assert_eq(run(&c, kill9, "f", false, in, 1, (const char *[]){op}, f32, 1, &r), -1);
  cr_assert(diag_mentions(&c.d, "killed by signal 9"), "%s", c.d.items[0].msg);
  kg_diag_clear(&c.d);
  double t0 = now_ms();
  cr_assert_eq(run(&c, hang, "f", false, in, 1, (const char *[]){op}, f32, 1, &r), -1);
  cr_assert_lt(now_ms() - t0, 30000); /* the 2 s timeout and a restart, with room for a loaded machine */
  cr_assert(diag_mentions(&c.d, "no answer within 2 s"), "%s", c.d.items[0].msg);
  kg_diag_clear(&c.d);
  cr_assert_eq(run(&c, good, "f", true, in, 1, (const char *[]){op}, f32, 1, &r), 0, "%s", last_msg(&c));
  cr_assert(r.ok);
  free(xp), free(op);
  ctx_close(&c);
}

Test(oracle, missing_python_or_torch_is_a_device_error) {
  kg_diag d;
  kg_diag_init(&d);
  setenv("KGEN_PYTHON", "/nonexistent/python3", 1);
  cr_assert_null(kg_oracle_start(&d));
  cr_assert_eq(d.n, 1);
  cr_assert_eq(d.items[0].code, KG_E_DEVICE);
  cr_assert(strstr(d.items[0].msg, "PyTorch oracle unavailable: cannot run /nonexistent/python3"),
            "%s", d.items[0].msg);
  kg_diag_clear(&d);
  setenv("KGEN_PYTHON", "/bin/false", 1);
  cr_assert_null(kg_oracle_start(&d));
  cr_assert(strstr(d.items[0].msg, "/bin/false exited with status 1 before it was ready"),
            "%s", d.items[0].msg);
  kg_diag_clear(&d);
  /* An interpreter whose torch import fails: shadow torch with a broken module. */
  if (access("/usr/bin/python3", X_OK)) {
    kg_diag_free(&d);
    return;
  }
  char dir[] = "/tmp/kgen_notorch_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char p[128];
  snprintf(p, sizeof p, "%s/torch.py", dir);
  FILE *f = fopen(p, "w");
  fputs("raise ImportError('torch is broken here')\n", f);
  fclose(f);
  setenv("PYTHONPATH", dir, 1);
  unsetenv("KGEN_PYTHON");
  cr_assert_null(kg_oracle_start(&d));
  cr_assert(strstr(d.items[0].msg, "PyTorch oracle unavailable: /usr/bin/python3 cannot import torch: "),
            "%s", d.items[0].msg);
  if (system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0) /* numpy comes first */
    cr_assert(strstr(d.items[0].msg, "ImportError: torch is broken here"), "%s", d.items[0].msg);
  unlink(p);
  rmdir(dir);
  kg_diag_free(&d);
  errno = 0;
  cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
  cr_assert_eq(errno, ECHILD);
}
