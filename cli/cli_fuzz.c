/* cli/cli_fuzz.c — `kgen fuzz`: random programs (fuzz_gen.c) through the PyTorch
 * cross-check (check/check.c), issue 13.
 *
 *   kgen fuzz [--seed N] [--count N] [--time S] [--ops LIST] [--out DIR] [--keep] [--variant-every K]
 *             [--grad-every K] [--jobs J]
 *
 * Program i is generated from seed N+i and checked like `kgen check FILE --seed N+i`
 * (emulator or CUDA against the TorchScript twin); when that passes, every K-th program
 * (default every one, 0 none) is checked again under its schedule variant (variant_of: a
 * forced kg_force_variant, another thread order, the eager-Python twin, strided inputs), and
 * every K-th of --grad-every K (default none) has its gradients checked too (check --grad --fd:
 * kgen's backward against the twin's autograd and float64 finite differences; a program kgen or
 * PyTorch does not differentiate counts as passed, "not differentiable").
 * --jobs J checks J programs at a time, each job with an oracle of its own. Each check runs in a forked child
 * with an alarm, so that a crash, a sanitizer abort or a hang of kgen is a finding
 * rather than the end of the run; the parent keeps the document. Outcomes:
 *   passed    every output matches PyTorch;
 *   rejected  kgen refused the program with an input error: the generator's bug (its
 *             programs are meant to be valid); counted apart, saved as
 *             fuzz_<seed>.rejected.json, does not fail the run;
 *   finding   a mismatch, an internal error (a failing reference included), a crash or
 *             a hang: saved as fuzz_<seed>.json (with fuzz_<seed>.check/: inputs, our
 *             outputs and the twin, for a mismatch) and its F# rendering fuzz_<seed>.fs
 *             (fs_render.c), one line printed; exit status 1. `kgen reduce` shrinks it.
 * --keep also writes the documents that passed. Exit status 2 when the oracle
 * (Python + torch) cannot start.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fsrender.h"
#include "fuzz.h"

#define FUZZ_HANG_S 120 /* one program: generation, compile (cc per new kernel), run, reference */
#define FUZZ_MAX_JOBS 16

enum { R_PASS = 0, R_REJECT = 3, R_MISMATCH = 4, R_INTERNAL = 5, R_MISMATCH_V = 6, R_INTERNAL_V = 7, R_MISMATCH_G = 8, R_INTERNAL_G = 9,
       R_PASS_NOGRAD = 10 /* passed; its gradients were not checked (refused: host control flow, a map lambda; PyTorch's own autograd failed) */ };

/* The schedule variant program `seed` also runs under (after its default check passes):
 * every kernel forced to one of six variants of kg_force_variant (strided, strided with 64-bit
 * indices, no vectors, split rows, the tensor-core tiers wherever they apply, none), the emulator's
 * threads in reverse or random order, the eager-Python twin instead of TorchScript, and on
 * odd seeds non-contiguous inputs, on two seeds in three the symbols N and M at other sizes; on
 * one seed in three the CPU device instead of the emulator (its own schedules: chunked loops,
 * packed panels, rows, nested reductions — the .NET fast path's for CPU tensors). */
static kg_cli_variant variant_of(unsigned long long seed) {
  static const int forces[6] = {1, 2, 3, 4, KG_FORCE_TENSOR_CORES, KG_FORCE_NO_TENSOR_CORES};
  kg_cli_variant v = {forces[seed % 6], (int)(1 + (seed / 6) % 2), true, seed % 2 == 1, {"N", "M"}, {0, 0}, 0, 0, 0, false, false};
  /* the symbols at other sizes (the generator's programs want them >= 13): equal (one size for
   * both, as duck sizing would give them), or larger and odd */
  static const long long sizes[][2] = {{13, 17}, {16, 16}, {33, 21}};
  int k = (int)((seed / 8) % 3);
  if (k) v.size_val[0] = sizes[k][0], v.size_val[1] = sizes[k][1], v.n_size = 2;
  v.cpu = (seed / 24) % 3 == 0;
  return v;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first line of a diagnostic, for a one-line report. */
static void first_line(const char *s, char *buf, size_t cap) {
  while (*s == '\n' || *s == ' ') s++;
  size_t n = strcspn(s, "\n");
  if (n >= cap) n = cap - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
}

/* The gradients of program `seed` (its default check passed): kgen's backward against the twin's
 * autograd and finite differences (check_grad.c). */
static int run_grad(kg_context *ctx, kg_oracle *orc, const char *text, size_t len, unsigned long long seed, const char *out) {
  char line[512];
  kg_module *m;
  if (kg_module_load(ctx, text, len, &m)) return R_INTERNAL_G;
  kg_check_opts o;
  memset(&o, 0, sizeof o);
  o.seed = seed, o.device = KG_DEVICE_AUTO, o.grad = true, o.fd = true;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &o, &r);
  int rc = R_PASS;
  char dst[4200];
  snprintf(dst, sizeof dst, "%s/fuzz_%llu.check", out, seed);
  if (s == KG_ERR_INPUT) {
    rc = R_PASS_NOGRAD;
  } else if (s) {
    if (r.dir[0]) rename(r.dir, dst);
    first_line(kg_last_error(ctx), line, sizeof line);
    printf("  FINDING seed %llu (gradients): internal error: %s\n", seed, line), rc = R_INTERNAL_G;
  } else if (!r.all_ok) {
    const char *kept = r.dir[0] && rename(r.dir, dst) == 0 ? dst : r.dir;
    for (int i = 0; i < r.n_grads; i++)
      if (!r.grad_rows[i].ok || !r.grad_rows[i].fd_ok)
        printf("  FINDING seed %llu (gradients): mismatch: %s %s %s max_abs %.3g max_rel %.3g %s %s (inputs in %s)\n", seed, r.grad_names[i],
               r.grad_rows[i].dtype, r.grad_rows[i].shape, r.grad_rows[i].max_abs, r.grad_rows[i].max_rel, r.grad_rows[i].verdict,
               r.grad_rows[i].fd_verdict, kept);
    rc = R_MISMATCH_G;
  }
  kg_check_result_free(&r);
  kg_module_free(m);
  return rc;
}

/* The child: load, check, report one line (rejections and findings), exit with R_*. */
static int run_one(kg_context *ctx, kg_oracle *orc, const char *text, size_t len, unsigned long long seed, const char *out, bool variant, bool grad) {
  char line[512];
  kg_module *m;
  kg_status s = kg_module_load(ctx, text, len, &m);
  if (s) {
    first_line(kg_last_error(ctx), line, sizeof line);
    printf("  rejected seed %llu (load): %s\n", seed, line);
    return s == KG_ERR_INPUT ? R_REJECT : R_INTERNAL;
  }
  setenv("TMPDIR", out, 1); /* the check's folder (kept on a mismatch) beside the documents */
  kg_check_opts o;
  memset(&o, 0, sizeof o);
  o.seed = seed, o.device = KG_DEVICE_AUTO;
  kg_check_result r;
  s = kg_check_module(ctx, orc, m, &o, &r);
  int rc = R_PASS;
  if (s) {
    char dst[4200];
    snprintf(dst, sizeof dst, "%s/fuzz_%llu.check", out, seed);
    if (r.dir[0]) rename(r.dir, dst); /* inputs of the failed check, if it got that far */
    first_line(kg_last_error(ctx), line, sizeof line);
    if (s == KG_ERR_INPUT) printf("  rejected seed %llu: %s\n", seed, line), rc = R_REJECT;
    else printf("  FINDING seed %llu: internal error: %s\n", seed, line), rc = R_INTERNAL;
  } else if (!r.all_ok) {
    char dst[4200];
    snprintf(dst, sizeof dst, "%s/fuzz_%llu.check", out, seed);
    const char *kept = r.dir[0] && rename(r.dir, dst) == 0 ? dst : r.dir;
    for (int i = 0; i < r.n_outputs; i++)
      if (!r.rows[i].ok)
        printf("  FINDING seed %llu: mismatch: out%d %s %s max_abs %.3g max_rel %.3g %s (inputs in %s)\n", seed, i, r.rows[i].dtype,
               r.rows[i].shape, r.rows[i].max_abs, r.rows[i].max_rel, r.rows[i].verdict, kept);
    rc = R_MISMATCH;
  }
  kg_check_result_free(&r);
  kg_module_free(m);
  if (rc == R_PASS && grad) rc = run_grad(ctx, orc, text, len, seed, out);
  if ((rc == R_PASS || rc == R_PASS_NOGRAD) && variant) { /* the same program and inputs under the seed's schedule variant */
    int before = rc;
    kg_cli_variant v = variant_of(seed);
    kg_options ko;
    memset(&ko, 0, sizeof ko);
    ko.verify_ir = 1;
    kg_cli_variant_apply(&v, &ko, &o);
    o.sizes_if_present = true; /* the variant's sizes bind only the symbols this program has */
    ko.emu_seed = (unsigned)seed;
    kg_context *vc = kg_context_new(&ko);
    s = kg_module_load(vc, text, len, &m);
    if (s == KG_OK) {
      s = kg_check_module(vc, orc, m, &o, &r);
      kg_module_free(m);
    }
    /* the finding's variant names only the sizes the program has (kgen check refuses others) */
    int ns = 0;
    for (int i = 0; i < v.n_size; i++)
      if (!(r.sizes_absent >> i & 1u)) v.size_name[ns] = v.size_name[i], v.size_val[ns++] = v.size_val[i];
    v.n_size = ns;
    char vs[128];
    kg_cli_variant_str(&v, vs, sizeof vs);
    if (s) {
      char dst[4200];
      snprintf(dst, sizeof dst, "%s/fuzz_%llu.check", out, seed);
      if (r.dir[0]) rename(r.dir, dst);
      first_line(kg_last_error(vc), line, sizeof line);
      printf("  FINDING seed %llu (variant%s): %s error: %s\n", seed, vs, s == KG_ERR_INPUT ? "input" : "internal", line), rc = R_INTERNAL_V;
    } else if (!r.all_ok) {
      char dst[4200];
      snprintf(dst, sizeof dst, "%s/fuzz_%llu.check", out, seed);
      const char *kept = r.dir[0] && rename(r.dir, dst) == 0 ? dst : r.dir;
      for (int i = 0; i < r.n_outputs; i++)
        if (!r.rows[i].ok)
          printf("  FINDING seed %llu (variant%s): mismatch: out%d %s %s max_abs %.3g max_rel %.3g %s (inputs in %s)\n", seed, vs, i, r.rows[i].dtype,
                 r.rows[i].shape, r.rows[i].max_abs, r.rows[i].max_rel, r.rows[i].verdict, kept);
      rc = R_MISMATCH_V;
    }
    kg_check_result_free(&r);
    kg_context_free(vc);
    if (rc == R_PASS) rc = before;
  }
  return rc;
}

static int save(const char *out, unsigned long long seed, const char *suffix, const char *text, size_t len, char *path, size_t cap) {
  snprintf(path, cap, "%s/fuzz_%llu%s.json", out, seed, suffix);
  if (kg_write_file(path, text, len) != 0) {
    fprintf(stderr, "kgen fuzz: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* A finding's F# rendering beside its document: fuzz_<seed>.fs. */
static void save_fs(const char *out, unsigned long long seed, const char *text, size_t len, const char *how, const char *vs) {
  cJSON *doc = cJSON_ParseWithLength(text, len);
  if (!doc) return;
  char comment[512], path[4200];
  snprintf(comment, sizeof comment, "kgen fuzz, seed %llu: %s\nreproduce: kgen check fuzz_%llu.json --seed %llu%s; shrink: kgen reduce fuzz_%llu.json%s", seed,
           how, seed, seed, vs, seed, vs);
  char *fs = kg_fs_render(doc, "Fuzz", comment);
  snprintf(path, sizeof path, "%s/fuzz_%llu.fs", out, seed);
  if (kg_write_file(path, fs, strlen(fs)) != 0) fprintf(stderr, "kgen fuzz: cannot write %s: %s\n", path, strerror(errno));
  free(fs);
  cJSON_Delete(doc);
}

/* A job slot: its oracle and the program its child checks. */
typedef struct slot {
  kg_oracle *orc;
  pid_t pid;                 /* 0: free */
  unsigned long long seed;
  bool variant, grad;
  char *text;
  size_t len;
} slot;

int kg_cli_fuzz(int argc, char **argv) {
  unsigned long long seed = 0, count = 100, every = 1, grad_every = 0;
  int jobs = 1;
  double time_limit = 0;
  bool have_count = false, keep = false;
  unsigned ops = KG_FUZZ_ALL;
  const char *out = NULL;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    bool has_val = i + 1 < argc;
    if (!strcmp(s, "--keep")) keep = true;
    else if (!has_val && s[0] == '-') return fprintf(stderr, "kgen fuzz: %s needs a value\n", s), 1;
    else if (!strcmp(s, "--seed")) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(s, "--count")) count = strtoull(argv[++i], NULL, 10), have_count = true;
    else if (!strcmp(s, "--time")) time_limit = strtod(argv[++i], NULL);
    else if (!strcmp(s, "--out")) out = argv[++i];
    else if (!strcmp(s, "--variant-every")) every = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(s, "--grad-every")) grad_every = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(s, "--jobs")) {
      jobs = atoi(argv[++i]);
      if (jobs < 1 || jobs > FUZZ_MAX_JOBS) return fprintf(stderr, "kgen fuzz: --jobs wants 1 to %d, not '%s'\n", FUZZ_MAX_JOBS, argv[i]), 1;
    }
    else if (!strcmp(s, "--ops")) {
      if (kg_fuzz_parse_ops(argv[++i], &ops) != 0)
        return fprintf(stderr, "kgen fuzz: bad --ops '%s' (comma-separated of arith, unary, cmp, cast, reduce, intops, act, norm, layout, matmul, cf, inplace, conv, pool, cnorm, resample, random, capture, scalar, nan, all)\n", argv[i]), 1;
    } else return fprintf(stderr, "kgen fuzz: unexpected argument %s\n", s), 1;
  }
  if (time_limit > 0 && !have_count) count = ~0ull;
  char tmp[4096];
  if (!out) {
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/kgen-fuzz-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp)) return fprintf(stderr, "kgen fuzz: cannot create %s: %s\n", tmp, strerror(errno)), 1;
    out = tmp;
  } else if (kg_mkdirs(out) != 0) return fprintf(stderr, "kgen fuzz: cannot create %s: %s\n", out, strerror(errno)), 1;

  kg_diag d;
  kg_diag_init(&d);
  slot sl[FUZZ_MAX_JOBS];
  memset(sl, 0, sizeof sl);
  for (int j = 0; j < jobs; j++) /* one oracle per job: a check talks to its oracle alone */
    if (!(sl[j].orc = kg_oracle_start(&d))) {
      char *t = kg_diag_format(&d);
      fputs(t, stderr);
      free(t);
      kg_diag_free(&d);
      for (int k = 0; k < j; k++) kg_oracle_stop(sl[k].orc);
      return 2;
    }
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  kg_context *ctx = kg_context_new(&o);
  printf("kgen fuzz: seed %llu, %s%llu program(s), %d job(s), documents in %s\n", seed, have_count || time_limit <= 0 ? "" : "up to ",
         count == ~0ull ? 0 : count, jobs, out);
  double t0 = now_s();
  unsigned long long n = 0, passed = 0, findings = 0, rejected = 0, varied = 0, graded = 0, nograd = 0;
  bool stop = false, oracle_lost = false;
  int running = 0;
  for (;;) {
    /* fill the free slots */
    for (int j = 0; j < jobs && !stop; j++) {
      if (sl[j].pid || !sl[j].orc) continue;
      if (n >= count || (time_limit > 0 && now_s() - t0 >= time_limit)) {
        stop = true;
        break;
      }
      slot *S = &sl[j];
      S->seed = seed + n, S->variant = every && n % every == 0, S->grad = grad_every && n % grad_every == 0;
      S->text = kg_fuzz_generate(S->seed, ops, &S->len);
      if (!S->text) {
        fprintf(stderr, "kgen fuzz: out of memory\n");
        stop = true;
        break;
      }
      fflush(stdout), fflush(stderr);
      pid_t pid = fork();
      if (pid < 0) {
        fprintf(stderr, "kgen fuzz: fork: %s\n", strerror(errno));
        free(S->text), S->text = NULL;
        stop = true;
        break;
      }
      if (pid == 0) {
        alarm(FUZZ_HANG_S);
        int rc = run_one(ctx, S->orc, S->text, S->len, S->seed, out, S->variant, S->grad);
        kg_context_free(ctx); /* the emulator's private folder ($TMPDIR/kgen-emu-*) goes with it */
        fflush(stdout), fflush(stderr);
        _exit(rc);
      }
      S->pid = pid, running++, n++;
    }
    if (!running) break;
    int st = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &st, 0)) < 0 && errno == EINTR) {}
    if (pid < 0) break;
    slot *S = NULL;
    for (int j = 0; j < jobs; j++)
      if (sl[j].pid == pid) S = &sl[j];
    if (!S) continue;
    S->pid = 0, running--;
    unsigned long long sd = S->seed;
    const char *text = S->text;
    size_t len = S->len;
    char path[4200];
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (code == R_PASS || code == R_PASS_NOGRAD) {
      passed++;
      varied += S->variant;
      graded += S->grad && code == R_PASS, nograd += S->grad && code == R_PASS_NOGRAD;
      if (keep) save(out, sd, "", text, len, path, sizeof path);
    } else if (code == R_REJECT) {
      rejected++;
      save(out, sd, ".rejected", text, len, path, sizeof path);
    } else {
      findings++;
      save(out, sd, "", text, len, path, sizeof path);
      char vs[128] = "";
      if (code == R_MISMATCH_V || code == R_INTERNAL_V) {
        kg_cli_variant v = variant_of(sd);
        kg_cli_variant_str(&v, vs, sizeof vs);
      }
      if (code == R_MISMATCH_G || code == R_INTERNAL_G) snprintf(vs, sizeof vs, " --grad --fd");
      if (code >= R_MISMATCH && code <= R_INTERNAL_G) {
        save_fs(out, sd, text, len,
                code == R_MISMATCH || code == R_MISMATCH_V ? "an output differs from PyTorch"
                : code == R_MISMATCH_G                     ? "a gradient differs from PyTorch's autograd"
                                                           : "internal error",
                vs);
        printf("  saved %s (reproduce: kgen check %s --seed %llu%s)\n", path, path, sd, vs);
      } else {
        char how[96];
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) snprintf(how, sizeof how, "hang (over %d s)", FUZZ_HANG_S);
        else if (WIFSIGNALED(st)) snprintf(how, sizeof how, "crash (signal %d, %s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
        else snprintf(how, sizeof how, "crash (exit status %d)", code);
        if (S->variant) { /* the default check or the variant's */
          kg_cli_variant v = variant_of(sd);
          kg_cli_variant_str(&v, vs, sizeof vs);
        }
        printf("  FINDING seed %llu: %s; saved %s (reproduce: kgen check %s --seed %llu%s%s%s)\n", sd, how, path, path, sd, *vs ? ", or with" : "", vs,
               *vs ? " after the default check passed" : "");
        save_fs(out, sd, text, len, how, "");
        /* the child may have died mid-job: the oracle's channel can hold half an answer */
        kg_oracle_stop(S->orc);
        if (!(S->orc = kg_oracle_start(&d))) {
          fprintf(stderr, "kgen fuzz: the PyTorch oracle did not restart\n");
          oracle_lost = stop = true;
        }
      }
    }
    free(S->text), S->text = NULL;
  }
  double dt = now_s() - t0;
  /* the gradients' counts only when --grad-every asked for them (docs/fuzz.md's summary line) */
  char gpart[128] = "";
  if (grad_every) snprintf(gpart, sizeof gpart, ", %llu with their gradients checked, %llu not differentiable", graded, nograd);
  printf("fuzz: %llu programs, %llu passed (%llu under a schedule variant too%s), %llu findings, "
         "%llu rejected (seed %llu..%llu, %.1f s)\n",
         n, passed, varied, gpart, findings, rejected, seed, n ? seed + n - 1 : seed, dt);
  for (int j = 0; j < jobs; j++)
    if (sl[j].orc) kg_oracle_stop(sl[j].orc);
  kg_context_free(ctx);
  kg_diag_free(&d);
  if (out == tmp && findings == 0 && rejected == 0 && !keep) rmdir(tmp); /* an empty temporary folder */
  return findings ? 1 : oracle_lost ? 2 : 0;
}
