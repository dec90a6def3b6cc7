/* tests/test_ts_emit.c — the TorchScript / eager-Python twin (codegen-cuda/torchscript.c).
 *
 * Programs are built by hand with the graph and kernel-IR builders. Each case
 * checks the emitted text against a golden file (tests/golden/ts/<case>.ts or
 * .py; KG_UPDATE_GOLDEN=1 rewrites them) and, where PyTorch is importable from
 * /usr/bin/python3, runs both twins on small inputs: TorchScript and eager
 * must agree, have the output dtypes kgen inferred, and give the values a
 * plain Python reference computes (skipped, never passed, without torch). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen-cuda/codegen.h"
#include "ir/ir.h"

#define NO KG_NONE

/* ---- program builders ---- */

typedef struct tprog {
  kg_arena arena;
  kg_graph g;
} tprog;

static void tp_init(tprog *t, const char *entry) {
  kg_arena_init(&t->arena);
  kg_graph_init(&t->g, &t->arena, entry);
}
static void tp_free(tprog *t) {
  kg_graph_free(&t->g);
  kg_arena_free(&t->arena);
}

/* "N,3" → [N, 3]; names are symbols; "" → rank 0 */
static kg_shape sh(kg_graph *g, const char *spec) {
  kg_shape s;
  memset(&s, 0, sizeof s);
  const char *p = spec;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    kg_dim *d = &s.d[s.rank++];
    if (*p >= '0' && *p <= '9') {
      d->kind = KG_DIM_STATIC, d->v = strtoll(p, NULL, 10);
    } else {
      char *name = kg_arena_strndup(g->arena, p, n);
      uint32_t k = 0;
      while (k < g->syms.n && strcmp(g->syms.v[k], name)) k++;
      if (k == g->syms.n) KG_VEC_PUSH(g->syms, name);
      d->kind = KG_DIM_SYM, d->v = k;
    }
    p += n;
    if (*p == ',') p++;
  }
  return s;
}

static uint32_t input(kg_graph *g, const char *name, kg_dtype dt, const char *shape, bool scalar, bool capture) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_INPUT, n.dtype = (uint8_t)dt, n.vkind = scalar ? KG_V_SCALAR : KG_V_TENSOR;
  n.shape = sh(g, scalar ? "" : shape);
  uint32_t idx = 0;
  for (uint32_t i = 0; i < g->params.n; i++) idx += g->params.v[i].is_capture == capture;
  n.ia[0] = idx, n.ia[1] = capture;
  uint32_t id = kg_graph_add(g, &n);
  kg_gparam p = {name, capture, id, NULL, 0, false};
  KG_VEC_PUSH(g->params, p);
  if (!capture) g->n_entry_params++;
  return id;
}

static uint32_t nd(kg_graph *g, kg_op op, kg_dtype dt, const char *shape, uint32_t a, uint32_t b, uint32_t c) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op, n.dtype = (uint8_t)dt, n.vkind = KG_V_TENSOR, n.shape = sh(g, shape);
  uint32_t ins[3] = {a, b, c};
  for (int i = 0; i < 3; i++)
    if (ins[i] != NO) n.in[n.n_in++] = ins[i];
  return kg_graph_add(g, &n);
}

/* a .NET scalar computed by op */
static uint32_t sc(kg_graph *g, kg_op op, kg_dtype dt, uint32_t a, uint32_t b) {
  uint32_t id = nd(g, op, dt, "", a, b, NO);
  g->nodes.v[id].vkind = KG_V_SCALAR;
  return id;
}

static uint32_t cf(kg_graph *g, kg_dtype dt, double v) {
  uint32_t id = sc(g, KG_OP_CONST, dt, NO, NO);
  g->nodes.v[id].fa[0] = v;
  return id;
}
static uint32_t ci(kg_graph *g, kg_dtype dt, int64_t v) {
  uint32_t id = sc(g, KG_OP_CONST, dt, NO, NO);
  g->nodes.v[id].ia[0] = v;
  return id;
}

static kg_gnode *at(kg_graph *g, uint32_t id) { return &g->nodes.v[id]; }
static void out(kg_graph *g, uint32_t id) { KG_VEC_PUSH(g->outputs, id); }

static void check_valid(kg_graph *g) {
  kg_diag d;
  kg_diag_init(&d);
  bool ok = kg_graph_verify(g, &d);
  char *msg = kg_diag_format(&d);
  cr_assert(ok, "test program does not verify: %s", msg);
  free(msg);
  kg_diag_free(&d);
}

/* ---- scalar-function builders ---- */

static kg_sfunc *sfunc(kg_graph *g, const char *name, int n_args, const kg_dtype *args, kg_dtype ret) {
  kg_sfunc *f = kg_arena_alloc(g->arena, sizeof *f);
  kg_kernel_init(&f->body, name);
  static const char *const an[] = {"a", "b", "c"};
  for (int i = 0; i < n_args; i++) {
    kg_kparam p;
    memset(&p, 0, sizeof p);
    p.kind = KP_SCALAR, p.dtype = (uint8_t)args[i], p.name = an[i];
    kg_kparam_add(&f->body, p);
    f->arg_dtypes[i] = (uint8_t)args[i];
  }
  f->n_args = (uint32_t)n_args;
  f->ret_dtype = (uint8_t)ret;
  KG_VEC_PUSH(g->fns, f);
  return f;
}

static uint32_t map_node(kg_graph *g, uint32_t fn, kg_dtype dt, const char *shape, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t id = nd(g, KG_OP_MAP, dt, shape, a, b, c);
  g->nodes.v[id].fn = fn;
  return id;
}

static uint32_t st_set(kg_kcursor *cur, kg_ks_kind kind, uint32_t var, uint32_t e) {
  kg_ks s = kg_ks_make(kind);
  s.a = var, s.b = e;
  return kg_ks_add(cur, s);
}

static uint32_t kop(kg_kernel *k, kg_op op, kg_dtype t, uint32_t a, uint32_t b) { return kg_kx_op(k, op, t, a, b, NO); }
static uint32_t kvar(kg_kernel *k, uint32_t v) { return kg_kx_var(k, v); }
static uint32_t k32(kg_kernel *k, int64_t v) { return kg_kx_const_i(k, KG_I32, v); }

/* ---- emission and golden files ---- */

static char *emit(const kg_graph *g, bool eager, bool upcast) {
  kg_ts_opts o = {eager, upcast};
  kg_strbuf b;
  kg_sb_init(&b);
  kg_diag d;
  kg_diag_init(&d);
  bool ok = kg_ts_emit(g, &o, &b, &d);
  char *msg = kg_diag_format(&d);
  cr_assert(ok, "kg_ts_emit failed: %s", msg);
  free(msg);
  kg_diag_free(&d);
  return kg_sb_take(&b);
}

static void golden(const char *name, const char *text) {
  char dir[1024], path[1100];
  snprintf(dir, sizeof dir, "%s/tests/golden/ts", KG_SOURCE_DIR);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  const char *up = getenv("KG_UPDATE_GOLDEN");
  if (up && !strcmp(up, "1")) {
    cr_assert_eq(kg_mkdirs(dir), 0);
    cr_assert_eq(kg_write_file(path, text, strlen(text)), 0, "cannot write %s", path);
    return;
  }
  size_t len = 0;
  char *want = kg_read_file(path, &len);
  cr_assert_not_null(want, "missing golden file %s (run with KG_UPDATE_GOLDEN=1)", path);
  cr_assert_str_eq(text, want, "%s differs from the emitted text:\n%s", path, text);
  free(want);
}

/* ---- running the twins with PyTorch ---- */

static const char driver_prelude[] =
  "import sys\n"
  "try:\n"
  "    import torch\n"
  "except Exception:\n"
  "    sys.exit(77)\n"
  "torch.manual_seed(0)\n"
  "cu = torch.jit.CompilationUnit(open(sys.argv[1]).read())\n"
  "ns = {}\n"
  "exec(compile(open(sys.argv[2]).read(), sys.argv[2], 'exec'), ns)\n"
  "f_ts = getattr(cu, sys.argv[3])\n"
  "f_py = ns[sys.argv[3]]\n"
  "def as_list(r):\n"
  "    return list(r) if isinstance(r, tuple) else [r]\n"
  "def close(a, b, rtol=0.0, atol=0.0):\n"
  "    if a.dtype != b.dtype or a.shape != b.shape:\n"
  "        return False\n"
  "    if a.is_floating_point():\n"
  "        return torch.allclose(a.double(), b.double(), rtol=rtol, atol=atol, equal_nan=True)\n"
  "    return torch.equal(a, b)\n"
  "def run(*args):\n"
  "    r1 = as_list(f_ts(*args))\n"
  "    r2 = as_list(f_py(*args))\n"
  "    assert len(r1) == len(r2) == len(DTYPES), (len(r1), len(r2), len(DTYPES))\n"
  "    for i in range(len(r1)):\n"
  "        assert close(r1[i], r2[i]), 'output %d: TorchScript %s != eager %s' % (i, r1[i], r2[i])\n"
  "        assert str(r1[i].dtype) == 'torch.' + DTYPES[i], 'output %d: dtype %s, kgen says %s' % (i, r1[i].dtype, DTYPES[i])\n"
  "    return r1\n"
  "def expect(got, want, rtol=0.0, atol=0.0, what=''):\n"
  "    want = torch.as_tensor(want, dtype=got.dtype) if not isinstance(want, torch.Tensor) else want\n"
  "    assert close(got, want.to(got.dtype), rtol, atol), '%s: got %s, want %s' % (what, got, want)\n";

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* Emits both twins of g, then runs `body` (Python using run / expect) in a
 * driver that has compiled them. Skips the test when torch is unavailable. */
static void run_torch(const kg_graph *g, bool upcast, const char *body) {
  if (access("/usr/bin/python3", X_OK) != 0) cr_skip_test("no /usr/bin/python3");
  char *ts = emit(g, false, upcast), *py = emit(g, true, upcast);
  char dir[] = "/tmp/kg_ts_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char p_ts[64], p_py[64], p_drv[64], cmd[512];
  snprintf(p_ts, sizeof p_ts, "%s/twin_ts.py", dir);
  snprintf(p_py, sizeof p_py, "%s/twin_eager.py", dir);
  snprintf(p_drv, sizeof p_drv, "%s/driver.py", dir);
  kg_strbuf drv;
  kg_sb_init(&drv);
  kg_sb_puts(&drv, driver_prelude);
  kg_sb_puts(&drv, "DTYPES = [");
  for (uint32_t i = 0; i < g->outputs.n; i++)
    kg_sb_printf(&drv, "%s'%s'", i ? ", " : "", kg_dtype_name((kg_dtype)g->nodes.v[g->outputs.v[i]].dtype));
  kg_sb_puts(&drv, "]\n");
  kg_sb_puts(&drv, body);
  kg_sb_puts(&drv, "\nprint('OK')\n");
  write_text(p_ts, ts);
  write_text(p_py, py);
  write_text(p_drv, kg_sb_cstr(&drv));
  /* the entry is the last def (helpers come first); its name is sanitized */
  char entry[128];
  const char *def = strstr(ts, "\ndef "), *nx;
  while (def && (nx = strstr(def + 1, "\ndef "))) def = nx;
  cr_assert_not_null(def);
  snprintf(entry, sizeof entry, "%.*s", (int)strcspn(def + 5, "("), def + 5);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s %s %s 2>&1", p_drv, p_ts, p_py, entry);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  kg_strbuf o;
  kg_sb_init(&o);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) kg_sb_putn(&o, buf, n);
  int st = pclose(p);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  unlink(p_ts), unlink(p_py), unlink(p_drv), rmdir(dir);
  if (rc == 77) cr_skip_test("PyTorch is not importable from /usr/bin/python3");
  cr_assert(rc == 0 && strstr(kg_sb_cstr(&o), "OK"), "python driver failed (rc %d):\n%s\n--- TorchScript ---\n%s",
            rc, kg_sb_cstr(&o), ts);
  kg_sb_free(&o);
  kg_sb_free(&drv);
  free(ts);
  free(py);
}

/* ---- cases ---- */

/* tanh(x + b) * s * 0.5 with a broadcast bias and a .NET float32 scalar */
static void build_chain(tprog *t) {
  tp_init(t, "bias_tanh");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_F32, "N,8", false, false);
  uint32_t b = input(g, "b", KG_F32, "8", false, false);
  uint32_t s = input(g, "s", KG_F32, "", true, false);
  uint32_t add = nd(g, KG_OP_ADD, KG_F32, "N,8", x, b, NO);
  at(g, add)->path = "$.entries[0].expr.body.body.body.args[0].args[0]";
  uint32_t th = nd(g, KG_OP_TANH, KG_F32, "N,8", add, NO, NO);
  at(g, th)->path = "$.entries[0].expr.body.body.body.args[0]";
  uint32_t m = nd(g, KG_OP_MUL, KG_F32, "N,8", th, s, NO);
  uint32_t h = cf(g, KG_F32, 0.5);
  uint32_t r = nd(g, KG_OP_MUL, KG_F32, "N,8", m, h, NO);
  at(g, r)->path = "$.entries[0].expr.body.body.body";
  out(g, r);
  check_valid(g);
}

Test(ts_emit, chain_golden) {
  tprog t;
  build_chain(&t);
  char *ts = emit(&t.g, false, false), *py = emit(&t.g, true, false);
  golden("chain.ts", ts);
  golden("chain.py", py);
  cr_assert(strncmp(py, "import math\nimport torch\n", 25) == 0, "eager twin starts with the imports");
  cr_assert_not_null(strstr(ts, "t3 = torch.add(x, b)  # %3 $.entries[0].expr.body.body.body.args[0].args[0]\n"));
  cr_assert_not_null(strstr(ts, "t2 = float(s)"));
  cr_assert_not_null(strstr(ts, "torch.mul(t5, 0.5)"));
  free(ts);
  free(py);
  tp_free(&t);
}

Test(ts_emit, chain_runs) {
  tprog t;
  build_chain(&t);
  run_torch(&t.g, false,
            "x = torch.randn(5, 8)\n"
            "b = torch.randn(8)\n"
            "s = torch.tensor(1.25)\n"
            "r = run(x, b, s)\n"
            "expect(r[0], torch.tanh(x + b) * 1.25 * 0.5, what='chain')\n");
  tp_free(&t);
}

/* every op with attributes or a special spelling, one output each */
static void build_attrs(tprog *t) {
  tp_init(t, "attrs");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_F32, "6", false, false);
  uint32_t y = input(g, "y", KG_F32, "6", false, false);
  uint32_t s = input(g, "s", KG_F32, "", true, false);
#define U(OP) nd(g, KG_OP_##OP, KG_F32, "6", x, NO, NO)
#define B(OP, A, B_) nd(g, KG_OP_##OP, KG_F32, "6", A, B_, NO)
  uint32_t n;
  n = U(GELU), at(g, n)->ia[0] = 1, out(g, n);
  out(g, U(GELU));
  n = U(SOFTPLUS), at(g, n)->fa[0] = 2, at(g, n)->fa[1] = 10, out(g, n);
  n = U(LEAKY_RELU), at(g, n)->fa[0] = 0.1, out(g, n);
  n = U(ELU), at(g, n)->fa[0] = 1, out(g, n);
  n = U(ELU), at(g, n)->fa[0] = 1.5, at(g, n)->fa[1] = 2, at(g, n)->fa[2] = 0.5, out(g, n);
  n = U(CELU), at(g, n)->fa[0] = 2, out(g, n);
  out(g, U(SELU));
  n = U(HARDTANH), at(g, n)->fa[0] = -2, at(g, n)->fa[1] = 2, out(g, n);
  out(g, U(RELU6));
  out(g, U(HARDSIGMOID));
  out(g, U(HARDSWISH));
  out(g, U(MISH));
  out(g, U(LOGSIGMOID));
  out(g, U(SILU));
  out(g, U(RELU));
  n = U(ROUND), at(g, n)->ia[0] = 2, out(g, n);
  out(g, U(ROUND));
  n = U(LOGIT), at(g, n)->ia[0] = 1, at(g, n)->fa[0] = 0.1, out(g, n);
  out(g, U(LOGIT));
  n = U(NAN_TO_NUM), at(g, n)->ia[0] = 1, at(g, n)->fa[0] = -1, at(g, n)->fa[1] = 100, out(g, n);
  n = U(NAN_TO_NUM), at(g, n)->ia[0] = 3, at(g, n)->fa[1] = 100, at(g, n)->fa[2] = -100, out(g, n);
  out(g, B(TRUNCDIV, x, y));
  out(g, B(FLOORDIV, x, y));
  out(g, B(DIV, x, y));
  out(g, B(REM, x, y));
  out(g, B(FMOD, x, y));
  out(g, nd(g, KG_OP_CLAMP, KG_F32, "6", x, cf(g, KG_F32, -0.5), cf(g, KG_F32, 0.5)));
  out(g, nd(g, KG_OP_CLAMP, KG_F32, "6", x, y, nd(g, KG_OP_ADD, KG_F32, "6", y, cf(g, KG_F32, 1), NO)));
  out(g, nd(g, KG_OP_CLAMP, KG_F32, "6", x, y, cf(g, KG_F32, 1))); /* mixed bounds */
  out(g, B(CLAMP_MIN, x, cf(g, KG_F32, 0.25)));
  out(g, B(CLAMP_MAX, x, y));
  uint32_t gt = nd(g, KG_OP_GT, KG_BOOL, "6", x, y, NO);
  out(g, nd(g, KG_OP_WHERE, KG_F32, "6", gt, x, y));
  out(g, nd(g, KG_OP_WHERE, KG_F32, "6", gt, x, cf(g, KG_F32, 0)));
  out(g, nd(g, KG_OP_LERP, KG_F32, "6", x, y, cf(g, KG_F32, 0.25)));
  out(g, B(POW, x, cf(g, KG_F32, 2)));
  out(g, nd(g, KG_OP_FLOAT_POW, KG_F64, "6", x, cf(g, KG_F32, 2), NO));
  out(g, B(XLOGY, x, y));
  out(g, B(HYPOT, x, y));
  out(g, B(ATAN2, x, y));
  out(g, B(MAXIMUM, x, y));
  out(g, B(MINIMUM, x, cf(g, KG_F32, 0))); /* a scalar where torch wants a tensor */
  out(g, B(FMAX, x, y));
  out(g, B(FMIN, x, y));
  out(g, B(SUB, cf(g, KG_F32, 2), x));     /* scalar first */
  out(g, B(MUL, s, x));
  out(g, nd(g, KG_OP_EQ, KG_BOOL, "6", cf(g, KG_F32, 1), x, NO)); /* mirrored */
  out(g, nd(g, KG_OP_LT, KG_BOOL, "6", cf(g, KG_F32, 0), x, NO));  /* mirrored: gt */
  out(g, gt);
  uint32_t le = nd(g, KG_OP_LE, KG_BOOL, "6", x, cf(g, KG_F32, 0), NO);
  out(g, nd(g, KG_OP_LAND, KG_BOOL, "6", gt, le, NO));
  out(g, nd(g, KG_OP_LXOR, KG_BOOL, "6", gt, le, NO));
  out(g, nd(g, KG_OP_LNOT, KG_BOOL, "6", gt, NO, NO));
  out(g, nd(g, KG_OP_ISNAN, KG_BOOL, "6", x, NO, NO));
  out(g, nd(g, KG_OP_ISINF, KG_BOOL, "6", x, NO, NO));
  out(g, nd(g, KG_OP_ISFINITE, KG_BOOL, "6", x, NO, NO));
  out(g, U(SQUARE));
  out(g, U(RECIP));
  out(g, U(SIGN));
  out(g, U(CBRT));
  out(g, U(FRAC));
  out(g, U(EXP2));
  out(g, U(NEG));
  out(g, U(ABS));
#undef U
#undef B
  check_valid(g);
}

Test(ts_emit, attrs_golden) {
  tprog t;
  build_attrs(&t);
  char *ts = emit(&t.g, false, false);
  golden("attrs.ts", ts);
  static const char *const want[] = {
    "torch.nn.functional.gelu(x, approximate='tanh')", "torch.nn.functional.softplus(x, beta=2.0, threshold=10.0)",
    "torch.nn.functional.leaky_relu(x, negative_slope=0.1)", "torch.nn.functional.elu(x, alpha=1.0)",
    "torch.ops.aten.elu(x, 1.5, 2.0, 0.5)", "torch.celu(x, alpha=2.0)",
    "torch.nn.functional.hardtanh(x, min_val=-2.0, max_val=2.0)", "torch.round(x, decimals=2)",
    "torch.logit(x, eps=0.1)", "torch.nan_to_num(x, nan=-1.0, posinf=100.0)",
    "torch.nan_to_num(x, nan=0.0, posinf=100.0, neginf=-100.0)", "torch.div(x, y, rounding_mode='trunc')",
    "torch.div(x, y, rounding_mode='floor')", "torch.remainder(x, y)", "torch.fmod(x, y)",
    "torch.clamp(x, min=-0.5, max=0.5)", "torch.clamp(x, min=y, max=torch.full([], 1.0, dtype=torch.float32))",
    "torch.minimum(x, torch.full([], 0.0, dtype=torch.float32))", "torch.sub(2.0, x)", "torch.eq(x, 1.0)",
    "torch.gt(x, 0.0)", "torch.where(", "torch.lerp(x, y, 0.25)", "torch.float_power(x, 2.0)", "_kg_cbrt(x)",
  };
  for (size_t i = 0; i < KG_COUNTOF(want); i++) cr_assert_not_null(strstr(ts, want[i]), "missing %s", want[i]);
  free(ts);
  tp_free(&t);
}

Test(ts_emit, attrs_run) {
  tprog t;
  build_attrs(&t);
  run_torch(&t.g, false,
            "x = torch.tensor([-3.0, -0.5, 0.0, 0.3, 1.5, 4.0])\n"
            "y = torch.tensor([2.0, -1.5, 0.5, 0.7, -2.0, 3.0])\n"
            "r = run(x, y, torch.tensor(2.0))\n"
            "F = torch.nn.functional\n"
            "expect(r[0], F.gelu(x, approximate='tanh'), what='gelu tanh')\n"
            "expect(r[5], torch.where(x > 0, 2.0 * x, 2.0 * 1.5 * (torch.exp(x * 0.5) - 1)), 1e-6, 1e-6, what='elu scaled')\n"
            "expect(r[8], x.clamp(-2, 2), what='hardtanh')\n"
            "expect(r[27], x.clamp(-0.5, 0.5), what='clamp')\n"
            "expect(r[29], torch.minimum(torch.maximum(x, y), torch.tensor(1.0)), what='clamp mixed')\n"
            "expect(r[44], 2.0 - x, what='rsub')\n"
            "expect(r[46], x == 1.0, what='eq')\n"
            "expect(r[47], 0.0 < x, what='lt mirrored')\n"
            "expect(r[58], torch.sign(x) * x.abs() ** (1 / 3), 1e-6, 1e-6, what='cbrt')\n");
  tp_free(&t);
}

/* casts and tensor creation; literals that must round-trip */
static void build_create(tprog *t) {
  tp_init(t, "create");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_F32, "4", false, false);
  uint32_t s = input(g, "s", KG_I64, "", true, false);
  out(g, nd(g, KG_OP_CAST, KG_I32, "4", x, NO, NO));
  out(g, nd(g, KG_OP_CAST, KG_F64, "4", nd(g, KG_OP_CAST, KG_F16, "4", x, NO, NO), NO, NO));
  uint32_t f = nd(g, KG_OP_FULL, KG_F32, "4", cf(g, KG_F32, 0.1f), x, NO);
  out(g, f);
  uint32_t z = nd(g, KG_OP_FULL, KG_I32, "4", ci(g, KG_I32, 0), x, NO);
  at(g, z)->ia[0] = 1, out(g, z);
  uint32_t o = nd(g, KG_OP_FULL, KG_BOOL, "4", ci(g, KG_BOOL, 1), x, NO);
  at(g, o)->ia[0] = 2, out(g, o);
  uint32_t e = nd(g, KG_OP_FULL, KG_F64, "4", cf(g, KG_F64, 0), x, NO);
  at(g, e)->ia[0] = 3, out(g, e);
  out(g, nd(g, KG_OP_TENSOR, KG_I64, "", s, NO, NO));
  out(g, nd(g, KG_OP_TENSOR, KG_F64, "", cf(g, KG_F64, 1e-300), NO, NO));
  out(g, nd(g, KG_OP_TENSOR, KG_F64, "", cf(g, KG_F64, 1.2345678901234567e-300), NO, NO));
  out(g, nd(g, KG_OP_ADD, KG_F32, "4", x, cf(g, KG_F64, NAN), NO));
  out(g, nd(g, KG_OP_MUL, KG_F32, "4", x, cf(g, KG_F64, -INFINITY), NO));
  out(g, nd(g, KG_OP_ADD, KG_F32, "4", x, cf(g, KG_F64, -0.0), NO));
  out(g, nd(g, KG_OP_TENSOR, KG_I64, "", ci(g, KG_I64, INT64_MIN), NO, NO));
  out(g, nd(g, KG_OP_MUL, KG_F32, "4", x, ci(g, KG_BOOL, 1), NO));
  out(g, nd(g, KG_OP_ADD, KG_F32, "4", x, s, NO)); /* a .NET int64 next to a float tensor */
  check_valid(g);
}

Test(ts_emit, create_golden) {
  tprog t;
  build_create(&t);
  char *ts = emit(&t.g, false, false);
  golden("create.ts", ts);
  static const char *const want[] = {
    "x.to(torch.int32)", "torch.full_like(x, 0.10000000149011612, dtype=torch.float32)",
    "torch.zeros_like(x, dtype=torch.int32)", "torch.ones_like(x, dtype=torch.bool)",
    "torch.zeros_like(x, dtype=torch.float64)", "torch.full([], t1, dtype=torch.int64)", "1e-300",
    "float('nan')", "float('-inf')", "-0.0", "1.2345678901234568e-300", "(-9223372036854775807 - 1)", "torch.mul(x, torch.full([], 1, dtype=torch.float32))",
  };
  for (size_t i = 0; i < KG_COUNTOF(want); i++) cr_assert_not_null(strstr(ts, want[i]), "missing %s", want[i]);
  free(ts);
  tp_free(&t);
}

Test(ts_emit, create_run) {
  tprog t;
  build_create(&t);
  run_torch(&t.g, false,
            "x = torch.tensor([-2.7, 0.1, 3.5, 65519.0])\n"
            "r = run(x, torch.tensor(-5))\n"
            "expect(r[0], [-2, 0, 3, 65519], what='cast')\n"
            "expect(r[1], x.half().double(), what='via half')\n"
            "expect(r[6], -5, what='tensor of scalar')\n"
            "expect(r[8], 1.2345678901234567e-300, what='17 digits')\n"
            "expect(r[12], -2**63, what='int64 min')\n"
            "expect(r[14], x - 5, what='scalar int64 + float tensor')\n");
  tp_free(&t);
}

/* .NET scalar arithmetic: truncating division, truncated remainder, wrap,
 * masked shift counts, saturating float -> int, IEEE division by zero */
static void build_scalar(tprog *t) {
  tp_init(t, "net_scalars");
  kg_graph *g = &t->g;
  uint32_t a = input(g, "a", KG_I32, "", true, false);
  uint32_t b = input(g, "b", KG_I32, "", true, false);
  uint32_t f = input(g, "f", KG_F32, "", true, false);
  uint32_t x = input(g, "x", KG_F32, "3", false, false);
  uint32_t q = sc(g, KG_OP_IDIV, KG_I32, a, b);
  at(g, q)->path = "$.entries[0].expr.body.value";
  uint32_t r = sc(g, KG_OP_FMOD, KG_I32, a, b);
  uint32_t w = sc(g, KG_OP_ADD, KG_I32, a, ci(g, KG_I32, 2147483647));
  uint32_t sl = sc(g, KG_OP_NET_SHL, KG_I32, a, ci(g, KG_I32, 33));
  uint32_t ff = sc(g, KG_OP_MUL, KG_F32, f, cf(g, KG_F32, 1e30));
  uint32_t fi = sc(g, KG_OP_CAST, KG_I32, ff, NO);
  uint32_t dz = sc(g, KG_OP_DIV, KG_F32, f, cf(g, KG_F32, 0));
  uint32_t sq = sc(g, KG_OP_SQRT, KG_F32, f, NO);
  uint32_t lt = sc(g, KG_OP_LT, KG_BOOL, a, b);
  uint32_t f3 = sc(g, KG_OP_DIV, KG_F32, cf(g, KG_F32, 1), cf(g, KG_F32, 3)); /* float32, not double */
  uint32_t ids[] = {q, r, w, sl, fi, dz, sq, lt, f3};
  for (size_t i = 0; i < KG_COUNTOF(ids); i++)
    out(g, nd(g, KG_OP_TENSOR, (kg_dtype)g->nodes.v[ids[i]].dtype, "", ids[i], NO, NO));
  out(g, nd(g, KG_OP_MUL, KG_F32, "3", x, q, NO));
  check_valid(g);
}

Test(ts_emit, scalar_golden) {
  tprog t;
  build_scalar(&t);
  char *ts = emit(&t.g, false, false);
  golden("net_scalars.ts", ts);
  cr_assert_not_null(strstr(ts, "_kg_idiv(torch.full([], t0, dtype=torch.int32), torch.full([], t1, dtype=torch.int32), True)"));
  cr_assert_not_null(strstr(ts, "_kg_sat_int32("));
  cr_assert_not_null(strstr(ts, "t4 = int(_kg_idiv("), "scalars are Python numbers");
  free(ts);
  tp_free(&t);
}

Test(ts_emit, scalar_run) {
  tprog t;
  build_scalar(&t);
  run_torch(&t.g, false,
            "I = lambda v: torch.tensor(v, dtype=torch.int32)\n"
            "F = lambda v: torch.tensor(v, dtype=torch.float32)\n"
            "x = torch.tensor([1.0, 2.0, 3.0])\n"
            "r = run(I(-7), I(2), F(-2.5), x)\n"
            "expect(r[0], -3, what='idiv truncates')\n"
            "expect(r[1], -1, what='fmod truncated')\n"
            "expect(r[2], 2147483640, what='add')\n"
            "expect(r[3], -14, what='shl count masked')\n"
            "expect(r[4], -2147483648, what='saturating cast')\n"
            "expect(r[5], float('-inf'), what='x / 0.0')\n"
            "assert torch.isnan(r[6]), 'sqrt(-2.5)'\n"
            "expect(r[7], True, what='lt')\n"
            "expect(r[8], torch.tensor(1.0, dtype=torch.float32) / 3, what='float32 division')\n"
            "expect(r[9], x * -3, what='scalar times tensor')\n"
            "r = run(I(-2**31), I(-1), F(float('nan')), x)\n"
            "expect(r[0], -2**31, what='MIN / -1')\n"
            "expect(r[1], 0, what='MIN % -1')\n"
            "expect(r[2], 2147483647 - 2**31, what='wraps')\n"
            "expect(r[4], 0, what='NaN -> 0')\n"
            "r = run(I(5), I(0), F(1.0), x)\n"
            "expect(r[0], 0, what='x / 0')\n"
            "expect(r[1], 0, what='x % 0')\n"
            "expect(r[2], -2147483644, what='int32 overflow wraps')\n"
            "expect(r[4], 2147483647, what='saturates')\n");
  tp_free(&t);
}

/* names: keywords, duplicates, odd characters, captures */
Test(ts_emit, param_names) {
  tprog t;
  tp_init(&t, "class");
  kg_graph *g = &t.g;
  const char *names[] = {"x", "in", "x", "t0", "my var", "_kg_idiv", "1abc", "torch", "x_1"};
  uint32_t ids[KG_COUNTOF(names)];
  for (size_t i = 0; i < KG_COUNTOF(names); i++) ids[i] = input(g, names[i], KG_F32, "2", false, false);
  uint32_t w = input(g, "w", KG_F32, "2", false, true);
  uint32_t acc = nd(g, KG_OP_ADD, KG_F32, "2", ids[0], w, NO);
  for (size_t i = 1; i < KG_COUNTOF(names); i++) acc = nd(g, KG_OP_ADD, KG_F32, "2", acc, ids[i], NO);
  out(g, acc);
  out(g, ids[2]);
  check_valid(g);
  static const char *const want[] = {"x", "in_", "x_1", "t0_", "my_var", "_kg_idiv_", "p1abc", "torch_", "x_1_1", "w"};
  for (uint32_t i = 0; i < g->params.n; i++) cr_assert_str_eq(kg_ts_param_name(g, i, &t.arena), want[i]);
  char *ts = emit(g, false, false);
  golden("names.ts", ts);
  cr_assert_not_null(strstr(ts, "def class_(x: torch.Tensor, in_: torch.Tensor, x_1: torch.Tensor"));
  cr_assert_not_null(strstr(ts, "return t"));
  free(ts);
  run_torch(g, false,
            "a = [torch.full((2,), float(i)) for i in range(10)]\n"
            "r = run(*a)\n"
            "expect(r[0], torch.full((2,), 45.0), what='sum of params and capture')\n"
            "expect(r[1], a[2], what='a parameter as an output')\n");
  tp_free(&t);
}

/* CPU reference mode: half values carried in float32, rounded after each op */
static void build_half(tprog *t) {
  tp_init(t, "half_chain");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_F16, "N", false, false);
  uint32_t y = input(g, "y", KG_BF16, "N", false, false);
  uint32_t z = input(g, "z", KG_F32, "", false, false); /* a 0-dim float32 tensor */
  uint32_t th = nd(g, KG_OP_TANH, KG_F16, "N", x, NO, NO);
  uint32_t m = nd(g, KG_OP_MUL, KG_F16, "N", th, cf(g, KG_F32, 0.1), NO);
  uint32_t a = nd(g, KG_OP_ADD, KG_F16, "N", m, z, NO); /* z rounds to half first */
  uint32_t e = nd(g, KG_OP_EXP, KG_BF16, "N", y, NO, NO);
  uint32_t p = nd(g, KG_OP_ADD, KG_F32, "N", a, e, NO); /* float16 + bfloat16 → float32 */
  uint32_t c = nd(g, KG_OP_CAST, KG_F16, "N", p, NO, NO);
  uint32_t nn = nd(g, KG_OP_NAN_TO_NUM, KG_F16, "N", nd(g, KG_OP_MUL, KG_F16, "N", x, cf(g, KG_F32, INFINITY), NO), NO, NO);
  uint32_t full = nd(g, KG_OP_FULL, KG_F16, "N", cf(g, KG_F64, 0.1), x, NO);
  /* a comparison computes in its operands' common dtype: z and 0.1 are rounded to half
   * first, as in PyTorch (kgen fuzz, seed 1803: t0.sum(0).eq(t0.half())) */
  uint32_t q = nd(g, KG_OP_EQ, KG_BOOL, "N", x, z, NO), ql = nd(g, KG_OP_EQ, KG_BOOL, "N", full, cf(g, KG_F32, 0.1), NO);
  g->nodes.v[q].cdtype = KG_F16, g->nodes.v[ql].cdtype = KG_F16;
  out(g, a);
  out(g, e);
  out(g, p);
  out(g, c);
  out(g, nn);
  out(g, full);
  out(g, q);
  out(g, ql);
  check_valid(g);
}

Test(ts_emit, half_golden) {
  tprog t;
  build_half(&t);
  char *up = emit(&t.g, false, true), *plain = emit(&t.g, false, false);
  golden("half_upcast.ts", up);
  golden("half_plain.ts", plain);
  cr_assert_not_null(strstr(up, "t0 = x.float()"));
  cr_assert_not_null(strstr(up, "torch.tanh(t0).to(torch.float16).float()"));
  cr_assert_not_null(strstr(up, "z.to(torch.float16).float()"));
  cr_assert_not_null(strstr(up, "posinf=65504.0, neginf=-65504.0"));
  cr_assert_not_null(strstr(up, "torch.full_like(t0, 0.1, dtype=torch.float16).float()"));
  cr_assert_not_null(strstr(up, "torch.mul(t3, 0.0999755859375)"), "a literal rounded to half as PyTorch converts it");
  cr_assert_not_null(strstr(up, "torch.eq(t0, z.to(torch.float16).float())"), "a comparison in float16 rounds its float32 operand");
  cr_assert_not_null(strstr(up, "torch.eq(t14, 0.0999755859375)"));
  cr_assert_null(strstr(plain, ".float()"), "no upcast without upcast_half");
  free(up);
  free(plain);
  tp_free(&t);
}

Test(ts_emit, half_run) {
  tprog t;
  build_half(&t);
  run_torch(&t.g, true,
            "x = (torch.randn(9) * 2).half()\n"
            "x[0] = 1.0\n"
            "y = torch.randn(9).bfloat16()\n"
            "z = torch.tensor(1.0001)\n"
            "r = run(x, y, z)\n"
            "H = lambda v: v.half().float()\n"
            "a = H(H(H(torch.tanh(x.float())) * H(torch.tensor(0.1))) + H(z))\n"
            "e = torch.exp(y.float()).bfloat16().float()\n"
            "expect(r[0], a.half(), what='half chain')\n"
            "expect(r[1], e.bfloat16(), what='bf16 exp')\n"
            "expect(r[2], a + e, what='promoted to float32')\n"
            "expect(r[3], (a + e).half(), what='cast')\n"
            "assert r[4].float().abs().max().item() == 65504.0, r[4]\n"
            "expect(r[5], torch.full((9,), 0.1).half(), what='full')\n"
            "expect(r[6], torch.eq(x, z), what='float16 == 0-dim float32, in float16')\n"
            "assert bool(r[6][0]), r[6]\n"
            "expect(r[7], torch.full((9,), 0.1).half().eq(0.1), what='float16 == 0.1, in float16')\n"
            "assert bool(r[7].all()), r[7]\n");
  tp_free(&t);
}

/* bool tensor times 1, plus 0: PyTorch promotes to int64; TorchScript's optimizing executor
 * drops the op as a no-op and returns bool unless the int goes in as a 0-dim int64 tensor
 * (kgen fuzz, seed 1544) */
static void build_bool_noop(tprog *t) {
  tp_init(t, "bool_noop");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_F32, "N", false, false);
  uint32_t b = nd(g, KG_OP_CAST, KG_BOOL, "N", nd(g, KG_OP_EXP, KG_F32, "N", x, NO, NO), NO, NO);
  out(g, nd(g, KG_OP_MUL, KG_I64, "N", b, ci(g, KG_I32, 1), NO));
  out(g, nd(g, KG_OP_MUL, KG_I64, "N", ci(g, KG_I32, 1), b, NO));
  out(g, nd(g, KG_OP_ADD, KG_I64, "N", b, ci(g, KG_I32, 0), NO));
  out(g, nd(g, KG_OP_MUL, KG_I64, "N", b, ci(g, KG_I32, 2), NO)); /* not a no-op: a number as written */
  check_valid(g);
}

Test(ts_emit, bool_times_one) {
  tprog t;
  build_bool_noop(&t);
  char *ts = emit(&t.g, false, false);
  cr_expect_not_null(strstr(ts, "torch.mul(t2, torch.full([], 1, dtype=torch.int64))"), "%s", ts);
  cr_expect_not_null(strstr(ts, "torch.add(t2, torch.full([], 0, dtype=torch.int64))"), "%s", ts);
  cr_expect_not_null(strstr(ts, "torch.mul(t2, 2)"), "%s", ts);
  free(ts);
  /* three calls: the profiling executor optimizes from the second on */
  run_torch(&t.g, false,
            "x = torch.tensor([-1.0, 0.0, 2.0])\n"
            "for _ in range(3):\n"
            "    r = run(x)\n"
            "    expect(r[0], torch.ones(3, dtype=torch.int64), what='b * 1')\n"
            "    expect(r[2], torch.ones(3, dtype=torch.int64), what='b + 0')\n");
  tp_free(&t);
}

/* map: Collatz steps per element (while loop with an if/else) */
static void build_collatz(tprog *t) {
  tp_init(t, "collatz");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_I64, "N", false, false);
  kg_dtype args[] = {KG_I32};
  kg_sfunc *f = sfunc(g, "collatz", 1, args, KG_I32);
  kg_kernel *k = &f->body;
  uint32_t vn = kg_kvar_new(k, "n", KG_I32), vs = kg_kvar_new(k, "steps", KG_I32);
  kg_kcursor top = kg_kcursor_top(k);
  st_set(&top, KS_DECL, vn, kg_kx_param(k, 0));
  st_set(&top, KS_DECL, vs, NO);
  kg_ks w = kg_ks_make(KS_WHILE);
  w.a = kop(k, KG_OP_GT, KG_BOOL, kvar(k, vn), k32(k, 1));
  uint32_t wid = kg_ks_add(&top, w);
  kg_kcursor body = kg_kcursor_body(k, wid, false);
  kg_ks s = kg_ks_make(KS_IF);
  s.a = kop(k, KG_OP_EQ, KG_BOOL, kop(k, KG_OP_FMOD, KG_I32, kvar(k, vn), k32(k, 2)), k32(k, 0));
  uint32_t ifid = kg_ks_add(&body, s);
  kg_kcursor th = kg_kcursor_body(k, ifid, false), el = kg_kcursor_body(k, ifid, true);
  st_set(&th, KS_ASSIGN, vn, kop(k, KG_OP_IDIV, KG_I32, kvar(k, vn), k32(k, 2)));
  st_set(&el, KS_ASSIGN, vn, kop(k, KG_OP_ADD, KG_I32, kop(k, KG_OP_MUL, KG_I32, k32(k, 3), kvar(k, vn)), k32(k, 1)));
  st_set(&body, KS_ASSIGN, vs, kop(k, KG_OP_ADD, KG_I32, kvar(k, vs), k32(k, 1)));
  f->result = kvar(k, vs);
  uint32_t m = map_node(g, 0, KG_I32, "N", x, NO, NO);
  at(g, m)->path = "$.entries[0].expr.body";
  out(g, m);
  check_valid(g);
}

Test(ts_emit, map_collatz) {
  tprog t;
  build_collatz(&t);
  char *ts = emit(&t.g, false, false), *py = emit(&t.g, true, false);
  golden("map_collatz.ts", ts);
  golden("map_collatz.py", py);
  free(ts);
  free(py);
  run_torch(&t.g, false,
            "def steps(n):\n"
            "    s = 0\n"
            "    while n > 1:\n"
            "        n = n // 2 if n % 2 == 0 else 3 * n + 1\n"
            "        s += 1\n"
            "    return s\n"
            "x = torch.randint(1, 200, (4, 7), dtype=torch.int64)\n"
            "x[0, 0] = 27\n"
            "x[0, 1] = -5\n"
            "r = run(x)\n"
            "expect(r[0], [[steps(int(v)) for v in row] for row in x], what='collatz')\n");
  tp_free(&t);
}

/* map2: for loop (inclusive bound per element) with a break in nested ifs and
 * statements after it, over an int32 tensor and a broadcast float32 tensor */
static void build_for_break(tprog *t) {
  tp_init(t, "for_break");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_I32, "N,1", false, false);
  uint32_t y = input(g, "y", KG_F32, "3", false, false);
  kg_dtype args[] = {KG_I32, KG_F32};
  kg_sfunc *f = sfunc(g, "acc", 2, args, KG_F32);
  kg_kernel *k = &f->body;
  uint32_t va = kg_kvar_new(k, "acc", KG_F32), vi = kg_kvar_new(k, "i", KG_I32);
  kg_kcursor top = kg_kcursor_top(k);
  st_set(&top, KS_DECL, va, NO);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.incl = true, fr.a = vi, fr.b = k32(k, 0), fr.c = kg_kx_param(k, 0), fr.d = k32(k, 1);
  uint32_t fid = kg_ks_add(&top, fr);
  kg_kcursor body = kg_kcursor_body(k, fid, false);
  kg_ks c1 = kg_ks_make(KS_IF);
  c1.a = kop(k, KG_OP_EQ, KG_BOOL, kvar(k, vi), k32(k, 5));
  uint32_t i1 = kg_ks_add(&body, c1);
  kg_kcursor b1 = kg_kcursor_body(k, i1, false);
  kg_ks c2 = kg_ks_make(KS_IF);
  c2.a = kop(k, KG_OP_GT, KG_BOOL, kg_kx_param(k, 1), kg_kx_const_f(k, KG_F32, 0));
  uint32_t i2 = kg_ks_add(&b1, c2);
  kg_kcursor b2 = kg_kcursor_body(k, i2, false);
  kg_ks cm = kg_ks_make(KS_COMMENT);
  cm.text = "Model.fs:7 break";
  kg_ks_add(&b2, cm);
  kg_ks_add(&b2, kg_ks_make(KS_BREAK));
  uint32_t prod = kop(k, KG_OP_MUL, KG_F32, kg_kx_param(k, 1), kg_kx_cast(k, KG_F32, kvar(k, vi)));
  st_set(&body, KS_ASSIGN, va, kop(k, KG_OP_ADD, KG_F32, kvar(k, va), prod));
  f->result = kvar(k, va);
  out(g, map_node(g, 0, KG_F32, "N,3", x, y, NO));
  check_valid(g);
}

Test(ts_emit, map_for_break) {
  tprog t;
  build_for_break(&t);
  char *ts = emit(&t.g, false, false);
  golden("map_for_break.ts", ts);
  cr_assert_not_null(strstr(ts, "torch.broadcast_tensors(x, y)"));
  free(ts);
  run_torch(&t.g, false,
            "def ref(n, y):\n"
            "    acc = torch.tensor(0.0)\n"
            "    i = 0\n"
            "    while i <= n:\n"
            "        if i == 5 and y > 0:\n"
            "            break\n"
            "        acc = acc + torch.tensor(y) * torch.tensor(float(i))\n"
            "        i += 1\n"
            "    return float(acc)\n"
            "x = torch.tensor([[-1], [0], [3], [5], [9]], dtype=torch.int32)\n"
            "y = torch.tensor([0.5, -1.25, 0.0])\n"
            "r = run(x, y)\n"
            "expect(r[0], [[ref(int(n), float(v)) for v in y] for n in x[:, 0]], what='for/break')\n");
  tp_free(&t);
}

/* map2 over float32 and int32 with kernel semantics: saturating cast, select,
 * masked shift, guarded division and remainder, integer pow, a scalar input */
static void build_semantics(tprog *t) {
  tp_init(t, "semantics");
  kg_graph *g = &t->g;
  uint32_t a = input(g, "a", KG_F64, "6", false, false);
  uint32_t b = input(g, "b", KG_I32, "6", false, false);
  uint32_t s = input(g, "s", KG_I32, "", true, false);
  kg_dtype args[] = {KG_F32, KG_I32, KG_I32};
  kg_sfunc *f = sfunc(g, "sem", 3, args, KG_I64);
  kg_kernel *k = &f->body;
  uint32_t vv = kg_kvar_new(k, "v", KG_I32), vw = kg_kvar_new(k, "w", KG_I32), vr = kg_kvar_new(k, "r", KG_I32);
  kg_kcursor top = kg_kcursor_top(k);
  uint32_t pa = kg_kx_param(k, 0), pb = kg_kx_param(k, 1), ps = kg_kx_param(k, 2);
  st_set(&top, KS_DECL, vv, kg_kx_cast(k, KG_I32, pa));
  uint32_t shl = kop(k, KG_OP_NET_SHL, KG_I32, pb, k32(k, 35));
  st_set(&top, KS_DECL, vw,
         kg_kx_select(k, KG_I32, kop(k, KG_OP_GT, KG_BOOL, pb, k32(k, 0)), shl, kop(k, KG_OP_NEG, KG_I32, pb, NO)));
  uint32_t q = kop(k, KG_OP_IDIV, KG_I32, kvar(k, vv), pb);
  uint32_t r = kop(k, KG_OP_FMOD, KG_I32, kvar(k, vv), pb);
  uint32_t p = kop(k, KG_OP_POW, KG_I32, ps, pb);
  uint32_t sum = kop(k, KG_OP_ADD, KG_I32, q, kop(k, KG_OP_MUL, KG_I32, r, k32(k, 7)));
  st_set(&top, KS_DECL, vr, kop(k, KG_OP_ADD, KG_I32, kop(k, KG_OP_ADD, KG_I32, sum, kvar(k, vw)), p));
  f->result = kg_kx_cast(k, KG_I64, kvar(k, vr));
  out(g, map_node(g, 0, KG_I64, "6", a, b, s));
  check_valid(g);
}

Test(ts_emit, map_semantics) {
  tprog t;
  build_semantics(&t);
  char *ts = emit(&t.g, false, false);
  golden("map_semantics.ts", ts);
  cr_assert_not_null(strstr(ts, "torch.full([], t2, dtype=torch.int32, device=a.device)"));
  cr_assert_not_null(strstr(ts, "torch.bitwise_left_shift(t3_a1, 3)"));
  free(ts);
  run_torch(&t.g, false,
            "def wrap(v):\n"
            "    return (v + 2**31) % 2**32 - 2**31\n"
            "def sat(f):\n"
            "    f = float(torch.tensor(f, dtype=torch.float32))\n"
            "    if f != f:\n"
            "        return 0\n"
            "    return int(max(-2**31, min(2**31 - 1, f)))\n"
            "def idiv(a, b):\n"
            "    if b == 0: return 0\n"
            "    q = abs(a) // abs(b)\n"
            "    return wrap(q if (a < 0) == (b < 0) else -q)\n"
            "def fmod(a, b):\n"
            "    if b == 0 or b == -1: return 0\n"
            "    return a - int(a / b) * b if abs(a) < 2**52 else a - idiv(a, b) * b\n"
            "def ipow(a, b):\n"
            "    if b < 0: return 1 if a == 1 else ((-1 if b % 2 else 1) if a == -1 else 0)\n"
            "    return wrap(a ** b)\n"
            "def ref(a, b, s):\n"
            "    v = sat(a)\n"
            "    w = wrap(b << 3) if b > 0 else wrap(-b)\n"
            "    return wrap(idiv(v, b) + wrap(fmod(v, b) * 7) + w + ipow(s, b))\n"
            "a = torch.tensor([7.9, -7.9, float('nan'), 3e10, -3e10, 100.0], dtype=torch.float64)\n"
            "b = torch.tensor([2, -2, 3, 0, -1, -3], dtype=torch.int32)\n"
            "for s in (2, -1, 1):\n"
            "    r = run(a, b, torch.tensor(s, dtype=torch.int32))\n"
            "    expect(r[0], [ref(float(a[i]), int(b[i]), s) for i in range(6)], what='semantics s=%d' % s)\n");
  tp_free(&t);
}

/* a map with a float16 argument in upcast mode and a constant result */
static void build_map_half(tprog *t) {
  tp_init(t, "map_half");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_F16, "5", false, false);
  kg_dtype args[] = {KG_F16};
  kg_sfunc *f = sfunc(g, "sq1", 1, args, KG_F16);
  kg_kernel *k = &f->body;
  uint32_t pa = kg_kx_param(k, 0);
  f->result = kop(k, KG_OP_ADD, KG_F16, kop(k, KG_OP_MUL, KG_F16, pa, pa), kg_kx_const_f(k, KG_F16, 1));
  kg_sfunc *f2 = sfunc(g, "one", 1, args, KG_I32);
  f2->result = kg_kx_const_i(&f2->body, KG_I32, 1);
  out(g, map_node(g, 0, KG_F16, "5", x, NO, NO));
  out(g, map_node(g, 1, KG_I32, "5", x, NO, NO));
  check_valid(g);
}

Test(ts_emit, map_half_upcast) {
  tprog t;
  build_map_half(&t);
  char *ts = emit(&t.g, false, true);
  golden("map_half_upcast.ts", ts);
  free(ts);
  run_torch(&t.g, true,
            "x = torch.tensor([0.1, 3.3, -250.0, 1000.0, 65504.0]).half()\n"
            "r = run(x)\n"
            "H = lambda v: v.half().float()\n"
            "expect(r[0], H(H(x.float() * x.float()) + 1).half(), what='half map')\n"
            "expect(r[1], [1] * 5, what='constant map')\n");
  tp_free(&t);
}

/* a map whose function is one op over its two arguments */
static uint32_t op_map(kg_graph *g, kg_op op, kg_dtype ta, kg_dtype tb, kg_dtype ret, uint32_t a, uint32_t b) {
  kg_dtype args[] = {ta, tb};
  kg_sfunc *f = sfunc(g, kg_op_name(op), 2, args, ret);
  f->result = kop(&f->body, op, ret, kg_kx_param(&f->body, 0), kg_kx_param(&f->body, 1));
  return map_node(g, g->fns.n - 1, ret, "8", a, b, NO);
}

/* integer and bit ops: PyTorch's at tensor level, guarded kernel ones in maps */
static void build_bits(tprog *t) {
  tp_init(t, "bits");
  kg_graph *g = &t->g;
  uint32_t a = input(g, "a", KG_I32, "8", false, false);
  uint32_t b = input(g, "b", KG_I32, "8", false, false);
  uint32_t u = input(g, "u", KG_U8, "8", false, false);
  uint32_t c = input(g, "c", KG_U8, "8", false, false);
  out(g, nd(g, KG_OP_BAND, KG_I32, "8", a, b, NO));
  out(g, nd(g, KG_OP_BOR, KG_I32, "8", a, ci(g, KG_I32, 3), NO));
  out(g, nd(g, KG_OP_BXOR, KG_I32, "8", a, b, NO));
  out(g, nd(g, KG_OP_BNOT, KG_I32, "8", a, NO, NO));
  out(g, nd(g, KG_OP_SHL, KG_I32, "8", a, ci(g, KG_I32, 2), NO));
  out(g, nd(g, KG_OP_NET_SHL, KG_I32, "8", a, b, NO));
  out(g, nd(g, KG_OP_NET_SHR, KG_U8, "8", u, ci(g, KG_I32, 9), NO));
  out(g, nd(g, KG_OP_IDIV, KG_I32, "8", a, b, NO));
  out(g, op_map(g, KG_OP_SHL, KG_I32, KG_I32, KG_I32, a, b));
  out(g, op_map(g, KG_OP_SHR, KG_I32, KG_I32, KG_I32, a, b));
  out(g, op_map(g, KG_OP_FLOORDIV, KG_I32, KG_I32, KG_I32, a, b));
  out(g, op_map(g, KG_OP_REM, KG_I32, KG_I32, KG_I32, a, b));
  out(g, op_map(g, KG_OP_TRUNCDIV, KG_I32, KG_I32, KG_I32, a, b));
  out(g, op_map(g, KG_OP_SHR, KG_U8, KG_U8, KG_U8, u, c));
  out(g, op_map(g, KG_OP_IDIV, KG_U8, KG_U8, KG_U8, u, c));
  out(g, op_map(g, KG_OP_NET_SHR, KG_I32, KG_I32, KG_I32, a, b));
  check_valid(g);
}

Test(ts_emit, bits) {
  tprog t;
  build_bits(&t);
  char *ts = emit(&t.g, false, false);
  golden("bits.ts", ts);
  cr_assert_not_null(strstr(ts, "torch.bitwise_left_shift(a, torch.bitwise_and(b, 31))"));
  cr_assert_not_null(strstr(ts, "torch.bitwise_right_shift(u, 1)"));
  cr_assert_not_null(strstr(ts, "_kg_shr(t"));
  cr_assert_not_null(strstr(ts, ", 8, False)"), "uint8 shifts are logical");
  free(ts);
  run_torch(&t.g, false,
            "def wrap(v):\n"
            "    return (v + 2**31) % 2**32 - 2**31\n"
            "def idiv(a, b):\n"
            "    if b == 0: return 0\n"
            "    q = abs(a) // abs(b)\n"
            "    return wrap(q if (a < 0) == (b < 0) else -q)\n"
            "A = [-2**31, -7, 7, 100, -100, 5, 1, -1]\n"
            "B = [-1, 2, -2, 33, 31, 0, 5, 40]\n"
            "U = [255, 128, 7, 0, 1, 200, 9, 64]\n"
            "C = [0, 7, 8, 1, 3, 9, 200, 2]\n"
            "I = lambda v: torch.tensor(v, dtype=torch.int32)\n"
            "U8 = lambda v: torch.tensor(v, dtype=torch.uint8)\n"
            "r = run(I(A), I(B), U8(U), U8(C))\n"
            "z = list(zip(A, B))\n"
            "expect(r[0], [x & y for x, y in z], what='and')\n"
            "expect(r[1], [x | 3 for x in A], what='or')\n"
            "expect(r[3], [~x for x in A], what='not')\n"
            "expect(r[5], [wrap(x << (y & 31)) for x, y in z], what='.NET <<<')\n"
            "expect(r[6], [x >> 1 for x in U], what='.NET >>> on uint8 masks 9 to 1')\n"
            "expect(r[7], [idiv(x, y) for x, y in z], what='tensor .NET /')\n"
            "expect(r[8], [0 if y < 0 or y >= 32 else wrap(x << y) for x, y in z], what='kernel <<')\n"
            "expect(r[9], [(-1 if x < 0 else 0) if y < 0 or y >= 32 else x >> y for x, y in z], what='kernel >>')\n"
            "expect(r[10], [0 if y == 0 else wrap(x // y) for x, y in z], what='floor division')\n"
            "expect(r[11], [0 if y in (0, -1) else x % y for x, y in z], what='remainder')\n"
            "expect(r[12], [idiv(x, y) for x, y in z], what='trunc division')\n"
            "expect(r[13], [0 if y >= 8 else x >> y for x, y in zip(U, C)], what='uint8 >>')\n"
            "expect(r[14], [0 if y == 0 else x // y for x, y in zip(U, C)], what='uint8 / (255 is no -1)')\n"
            "expect(r[15], [x >> (y & 31) for x, y in z], what='.NET >>>')\n");
  tp_free(&t);
}

/* nested loops: a `while true` with breaks inside a for loop that a bool local
 * breaks out of; the inner breaks must not leave the outer loop */
static void build_loops(tprog *t) {
  tp_init(t, "loops");
  kg_graph *g = &t->g;
  uint32_t x = input(g, "x", KG_I32, "N", false, false);
  kg_dtype args[] = {KG_I32};
  kg_sfunc *f = sfunc(g, "nested", 1, args, KG_I32);
  kg_kernel *k = &f->body;
  uint32_t vt = kg_kvar_new(k, "total", KG_I32), vi = kg_kvar_new(k, "i", KG_I32);
  uint32_t vj = kg_kvar_new(k, "j", KG_I32), vf = kg_kvar_new(k, "flag", KG_BOOL);
  kg_kcursor top = kg_kcursor_top(k);
  st_set(&top, KS_DECL, vt, NO);
  kg_ks fr = kg_ks_make(KS_FOR);
  fr.a = vi, fr.b = k32(k, 0), fr.c = kg_kx_param(k, 0), fr.d = k32(k, 1);
  uint32_t fid = kg_ks_add(&top, fr);
  kg_kcursor fb = kg_kcursor_body(k, fid, false);
  st_set(&fb, KS_DECL, vj, k32(k, 0));
  kg_ks w = kg_ks_make(KS_WHILE);
  w.a = kg_kx_const_i(k, KG_BOOL, 1);
  uint32_t wid = kg_ks_add(&fb, w);
  kg_kcursor wb = kg_kcursor_body(k, wid, false);
  kg_ks i1 = kg_ks_make(KS_IF);
  i1.a = kop(k, KG_OP_GE, KG_BOOL, kvar(k, vj), kvar(k, vi));
  uint32_t i1id = kg_ks_add(&wb, i1);
  kg_kcursor i1b = kg_kcursor_body(k, i1id, false);
  kg_ks_add(&i1b, kg_ks_make(KS_BREAK));
  kg_ks i2 = kg_ks_make(KS_IF);
  uint32_t sum = kop(k, KG_OP_ADD, KG_I32, kvar(k, vi), kvar(k, vj));
  i2.a = kop(k, KG_OP_EQ, KG_BOOL, kop(k, KG_OP_FMOD, KG_I32, sum, k32(k, 3)), k32(k, 0));
  uint32_t i2id = kg_ks_add(&wb, i2);
  kg_kcursor i2b = kg_kcursor_body(k, i2id, false);
  kg_ks_add(&i2b, kg_ks_make(KS_BREAK));
  st_set(&wb, KS_ASSIGN, vt, kop(k, KG_OP_ADD, KG_I32, kvar(k, vt), k32(k, 1)));
  st_set(&wb, KS_ASSIGN, vj, kop(k, KG_OP_ADD, KG_I32, kvar(k, vj), k32(k, 1)));
  st_set(&fb, KS_DECL, vf, kop(k, KG_OP_GT, KG_BOOL, kvar(k, vt), k32(k, 10)));
  kg_ks i3 = kg_ks_make(KS_IF);
  i3.a = kvar(k, vf);
  uint32_t i3id = kg_ks_add(&fb, i3);
  kg_kcursor i3b = kg_kcursor_body(k, i3id, false);
  kg_ks_add(&i3b, kg_ks_make(KS_BREAK));
  f->result = kvar(k, vt);
  out(g, map_node(g, 0, KG_I32, "N", x, NO, NO));
  check_valid(g);
}

Test(ts_emit, map_nested_loops) {
  tprog t;
  build_loops(&t);
  char *ts = emit(&t.g, false, false);
  golden("map_nested_loops.ts", ts);
  free(ts);
  run_torch(&t.g, false,
            "def ref(n):\n"
            "    total = 0\n"
            "    for i in range(0, n):\n"
            "        j = 0\n"
            "        while True:\n"
            "            if j >= i: break\n"
            "            if (i + j) % 3 == 0: break\n"
            "            total += 1\n"
            "            j += 1\n"
            "        if total > 10: break\n"
            "    return total\n"
            "x = torch.tensor([-3, 0, 1, 2, 4, 7, 12, 40], dtype=torch.int32)\n"
            "r = run(x)\n"
            "expect(r[0], [ref(int(n)) for n in x], what='nested loops')\n");
  tp_free(&t);
}

/* what the twin cannot express is reported with the node's JSON path */
Test(ts_emit, errors) {
  tprog t;
  tp_init(&t, "bad");
  kg_graph *g = &t.g;
  uint32_t x = input(g, "x", KG_F32, "3", false, false);
  uint32_t s = sc(g, KG_OP_EXP, KG_F32, x, NO); /* a .NET scalar computed from a tensor */
  at(g, s)->path = "$.entries[0].expr.body";
  out(g, s);
  kg_strbuf b;
  kg_sb_init(&b);
  kg_diag d;
  kg_diag_init(&d);
  kg_ts_opts o = {false, false};
  cr_assert_not(kg_ts_emit(g, &o, &b, &d));
  cr_assert_eq(b.len, 0, "nothing is emitted on failure");
  char *msg = kg_diag_format(&d);
  cr_assert_not_null(strstr(msg, "TorchScript twin"), "%s", msg);
  cr_assert_not_null(strstr(msg, "$.entries[0].expr.body"), "%s", msg);
  free(msg);
  kg_diag_free(&d);
  kg_sb_free(&b);
  tp_free(&t);
}

/* deterministic: the same program twice gives the same text */
Test(ts_emit, deterministic) {
  tprog t;
  build_semantics(&t);
  char *a = emit(&t.g, true, true), *b = emit(&t.g, true, true);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
  tp_free(&t);
}
