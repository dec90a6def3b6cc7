/* tests/test_cli.c — the `kgen` command's contract: artifact file names (with the
 * arch in .ptx/.cubin names), run with inputs, captures and scalar parameters
 * (.npy in, out0.npy … out), explain, ops, and exit statuses (0 success, 1 bad
 * input with diagnostics on stderr, 2 internal error). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/check.h"
#include "runtime/api_int.h"

static char tmp[256];

static void mk_tmp(void) {
  strcpy(tmp, "/tmp/kgen-cli-test-XXXXXX");
  cr_assert_not_null(mkdtemp(tmp));
}
static void rm_tmp(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd)) cr_log_warn("could not remove %s", tmp);
}

/* Runs kgen with args; returns its exit status; stdout+stderr into *out (malloc'd). */
static int kgen(char **out, const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s > '%s/log' 2>&1", KG_SOURCE_DIR, KG_CLI_PATH, args, tmp);
  int st = system(cmd);
  char lp[512];
  snprintf(lp, sizeof lp, "%s/log", tmp);
  size_t len;
  *out = kg_read_file(lp, &len);
  if (!*out) *out = strdup("");
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(const char *dir, const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  struct stat s;
  return stat(p, &s) == 0 && s.st_size > 0;
}

Test(cli, compile_writes_every_artifact, .init = mk_tmp, .fini = rm_tmp) {
  char *out;
  int rc = kgen(&out, "compile examples/bcast_bias_gelu.json --arch sm_80,sm_90 --emit cuda,ptx,cubin,torchscript,python,ir -o %s/art", tmp);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/art", tmp);
  bool nvrtc = strstr(out, "NVRTC") == NULL;
  cr_assert_eq(rc, nvrtc ? 0 : 2, "%s", out);
  cr_expect(exists(dir, "bcast_bias_gelu.cu"));
  cr_expect(exists(dir, "bcast_bias_gelu.ts.py"));
  cr_expect(exists(dir, "bcast_bias_gelu.eager.py"));
  cr_expect(exists(dir, "bcast_bias_gelu.ir"));
  if (nvrtc) {
    cr_expect(exists(dir, "bcast_bias_gelu.sm_80.ptx"));
    cr_expect(exists(dir, "bcast_bias_gelu.sm_90.ptx"));
    cr_expect(exists(dir, "bcast_bias_gelu.sm_80.cubin"));
    cr_expect(exists(dir, "bcast_bias_gelu.sm_90.cubin"));
    cr_expect(strstr(out, "registers") != NULL, "%s", out);
    cr_expect(strstr(out, "0 bytes spill stores") != NULL, "%s", out);
  }
  free(out);
}

static void write_npy_f32(const char *path, int rank, const int64_t *shape, float base) {
  kg_npy a;
  memset(&a, 0, sizeof a);
  a.dtype = KG_F32, a.rank = rank;
  size_t n = 1;
  for (int i = 0; i < rank; i++) a.shape[i] = shape[i], n *= (size_t)shape[i];
  a.nbytes = n * 4;
  a.data = calloc(n + 1, 4);
  for (size_t i = 0; i < n; i++) ((float *)a.data)[i] = base + (float)i;
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_eq(kg_npy_write(path, &a, &d), 0);
  kg_diag_free(&d);
  kg_npy_free(&a);
}

Test(cli, run_with_inputs_captures_and_outputs, .init = mk_tmp, .fini = rm_tmp) {
  /* capture_weight_mul: fun x -> x * w (w captured) */
  char x[512], w[512], o[512];
  snprintf(x, sizeof x, "%s/x.npy", tmp), snprintf(w, sizeof w, "%s/w.npy", tmp), snprintf(o, sizeof o, "%s/out", tmp);
  /* the shapes come from the example's signature */
  kg_context *ctx = kg_context_new(NULL);
  kg_module *m;
  cr_assert_eq(kg_module_load_file(ctx, KG_SOURCE_DIR "/examples/capture_weight_mul.json", &m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(c->g.n_entry_params, 1);
  cr_assert_eq(c->g.params.n, 2);
  const kg_gnode *nx = &c->g.nodes.v[c->g.params.v[0].node], *nw = &c->g.nodes.v[c->g.params.v[1].node];
  int64_t sx[8], sw[8];
  for (int i = 0; i < nx->shape.rank; i++) sx[i] = nx->shape.d[i].kind == KG_DIM_STATIC ? nx->shape.d[i].v : 5;
  for (int i = 0; i < nw->shape.rank; i++) sw[i] = nw->shape.d[i].kind == KG_DIM_STATIC ? nw->shape.d[i].v : 5;
  cr_assert_eq(nx->dtype, KG_F32);
  cr_assert_eq(nw->dtype, KG_F32);
  write_npy_f32(x, nx->shape.rank, sx, 1);
  write_npy_f32(w, nw->shape.rank, sw, 0.5f);
  char *out;
  int rc = kgen(&out, "run examples/capture_weight_mul.json --in %s --capture %s=%s --out %s --device emu", x, c->g.params.v[1].name, w, o);
  cr_assert_eq(rc, 0, "%s", out);
  free(out);
  char op[600];
  snprintf(op, sizeof op, "%s/out0.npy", o);
  kg_npy r;
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_eq(kg_npy_read(op, &r, &d), 0);
  cr_expect_eq(r.dtype, KG_F32);
  kg_npy_free(&r);
  /* wrong number of inputs: bad input */
  rc = kgen(&out, "run examples/capture_weight_mul.json --out %s --device emu", o);
  cr_expect_eq(rc, 1, "%s", out);
  cr_expect(strstr(out, "error") != NULL, "%s", out);
  free(out);
  kg_diag_free(&d);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* run --stats on an entry with a host plan: what the run did; the null device runs the plan
 * without kernels */
Test(cli, run_stats_of_a_plan, .init = mk_tmp, .fini = rm_tmp) {
  char x[512], n[512], o[512];
  snprintf(x, sizeof x, "%s/x.npy", tmp), snprintf(n, sizeof n, "%s/n.npy", tmp), snprintf(o, sizeof o, "%s/out", tmp);
  int64_t sx[2] = {4, 33};
  write_npy_f32(x, 2, sx, 1);
  kg_npy a;
  memset(&a, 0, sizeof a);
  a.dtype = KG_I32, a.rank = 0, a.nbytes = 4, a.data = calloc(1, 4);
  *(int32_t *)a.data = 7;
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_eq(kg_npy_write(n, &a, &d), 0);
  kg_npy_free(&a);
  char *out;
  int rc = kgen(&out, "run examples/cf_for_scalar_bound.json --in %s --in %s --out %s --device emu --stats", x, n, o);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "run: 8 kernel launch(es)") && strstr(out, "7 loop iteration(s)") && strstr(out, "0 device-to-host read(s)"), "%s", out);
  free(out);
  rc = kgen(&out, "run examples/cf_for_scalar_bound.json --in %s --in %s --out %s --device null --stats", x, n, o);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "run: 8 kernel launch(es)") != NULL, "%s", out);
  free(out);
  kg_diag_free(&d);
}

Test(cli, explain_ops_and_exit_statuses, .init = mk_tmp, .fini = rm_tmp) {
  char *out;
  cr_expect_eq(kgen(&out, "explain examples/multi_out_3tuple_shapes.json"), 0);
  cr_expect(strstr(out, "== after fold") != NULL, "%s", out);
  cr_expect(strstr(out, "== fusion groups") != NULL);
  cr_expect(strstr(out, "launch: block (256,1,1)") != NULL);
  free(out);
  cr_expect_eq(kgen(&out, "ops"), 0);
  cr_expect(strstr(out, "| GELU |") != NULL);
  free(out);
  cr_expect_eq(kgen(&out, "compile tests/bad/bcast_shape_mismatch.json -o %s/x", tmp), 1);
  cr_expect(strstr(out, "error[shape]") != NULL && strstr(out, "$.entries[0]") != NULL, "%s", out);
  free(out);
  cr_expect_eq(kgen(&out, "check /nonexistent.json"), 1);
  cr_expect(strstr(out, "cannot read") != NULL, "%s", out);
  free(out);
  cr_expect_eq(kgen(&out, "frobnicate x.json"), 1);
  free(out);
  cr_expect_eq(kgen(&out, "compile examples/bcast_bias_gelu.json --arch sm_70 -o %s/y", tmp), 1);
  free(out);
  /* sizes too large to allocate are a located error with exit 1, not an abort (exit 134) */
  cr_expect_eq(kgen(&out, "check examples/bcast_bias_gelu.json --size N=3000000000"), 1, "%s", out);
  cr_expect(strstr(out, "error[limit]: input 'x' of shape [3000000000, 768]") != NULL, "%s", out);
  free(out);
  cr_expect_eq(kgen(&out, "check examples/bcast_bias_gelu.json --size N=9223372036854775807"), 1, "%s", out);
  free(out);
  /* every --size is checked before anything runs (issue 25): negative, not a number, past 64
   * bits, a symbol the entry does not have — exit 1 with the option named, never an assertion */
  const char *bad_sizes[][2] = {
      {"N=-5", "--size N=-5: a size is 0 or more"},
      {"N=abc", "'abc' is not a whole number"},
      {"N=", "'' is not a whole number"},
      {"=4", "--size wants SYMBOL=N"},
      {"N=99999999999999999999", "does not fit 64 bits"},
      {"M=3", "error[arg]: entry 'bcast_bias_gelu' has no size 'M' (its sizes: N)\n  at --size M=3"},
  };
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    cr_expect_eq(kgen(&out, "check examples/bcast_bias_gelu.json --size '%s'", bad_sizes[i][0]), 1, "%s: %s", bad_sizes[i][0], out);
    cr_expect(strstr(out, bad_sizes[i][1]) != NULL, "%s: %s", bad_sizes[i][0], out);
    free(out);
  }
  cr_expect_eq(kgen(&out, "check examples/act_relu.json --size N=4"), 1, "%s", out);
  cr_expect(strstr(out, "has no size 'N' (its sizes are all static)") != NULL, "%s", out);
  free(out);
  /* and so is an intermediate too large for the device (its byte count overflows size_t),
   * located at the op that makes it */
  cr_expect_eq(kgen(&out, "check examples/fs_oversize_intermediate.json --size N=3000000000"), 1, "%s", out);
  cr_expect(strstr(out, "fs_oversize_intermediate.fs:7:32: error[limit]: the value of MATMUL, shape [3000000000, 3000000000] (float32), is too large") != NULL,
            "%s", out);
  free(out);
  /* an explicit signature overrides the document's */
  cr_expect_eq(kgen(&out, "explain examples/bcast_bias_gelu.json --sig 'float16[B,64], float16[64]'"), 0, "%s", out);
  cr_expect(strstr(out, "float16[B,64]") != NULL, "%s", out);
  free(out);
}

Test(cli, check_passes_and_reports_rows, .init = mk_tmp, .fini = rm_tmp, .timeout = 120) {
  char *out;
  int rc = kgen(&out, "check examples/chain_swiglu.json --seed 3 --device emu");
  if (strstr(out, "PyTorch oracle unavailable")) {
    free(out);
    cr_skip_test("PyTorch oracle unavailable");
  }
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "out0") != NULL && strstr(out, "match PyTorch") != NULL, "%s", out);
  free(out);
  /* a schedule variant (kgen fuzz's): every kernel strided with 64-bit indices, threads in
   * reverse, the eager-Python twin, non-contiguous inputs (x, w, r stored transposed and padded) */
  rc = kgen(&out, "check examples/linear_gelu_residual.json --variant 2 --order 1 --eager --strided");
  cr_expect_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "device emu, --variant 2 --order 1 --eager --strided") != NULL && strstr(out, "match PyTorch") != NULL, "%s", out);
  free(out);
  cr_expect_eq(kgen(&out, "check examples/chain_swiglu.json --variant 8"), 1, "%s", out);
  cr_expect(strstr(out, "--variant wants 0-7, not '8'") != NULL, "%s", out);
  free(out);
}
