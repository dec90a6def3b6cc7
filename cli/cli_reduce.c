/* cli/cli_reduce.c — `kgen reduce`: shrinks a failing kgen document while the same failure
 * still happens (issue 13; delta debugging in the spirit of C-Reduce and Csmith's workflow).
 *
 *   kgen reduce FILE [--entry NAME] [--seed N] [--out DIR] [--timeout S]
 *
 * The failure is what `kgen check FILE --seed N` (the same cross-check `kgen fuzz` runs)
 * observes for the entry, in a forked child with an alarm so that a crash or a hang is
 * observed, not suffered. Its identity:
 *   kind   wrong answer (an output differs from PyTorch: value, dtype or shape), internal
 *          error (kgen, the verifier, the emulator's compiler, a reference that fails in
 *          PyTorch), crash (a signal, an exit without a result, a sanitizer report) or hang
 *          (past --timeout);
 *   output the failing output's index, for a wrong answer (followed through tuple edits);
 *   class  the message with numbers, hex and paths stripped: the diagnostic code and text,
 *          the verdict ("MISMATCH", "dtype mismatch: ours int#, torch bool"), the signal and
 *          the sanitizer's or assert's line.
 * A candidate is kept only if it fails the same way; one kgen rejects (an input error) is
 * discarded, so every document on the way loads. The edits (reduce_edits.c) run round after
 * round until a round keeps nothing; the order is fixed and candidates that once failed to
 * reproduce are remembered by hash, so a run is deterministic. At the end the unused vars
 * are dropped and the minimal document is printed with its F# rendering (fs_render.c);
 * --out DIR also writes DIR/<name>.reduced.json and .fs.
 *
 * The inputs are the check's for the seed (--seed, else N of an entry named fuzz_N, else 0),
 * made for the current signature: a reduced document reproduces with `kgen check R.json
 * --seed N`. Exit status: 0 reduced (or already minimal), 1 bad input (unreadable file,
 * malformed JSON, unknown entry, a document kgen rejects), 2 the PyTorch oracle cannot
 * start, 3 the document does not fail (left unchanged).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fsrender.h"
#include "reduce.h"

#define RED_TIMEOUT_S 60  /* one candidate: load, compile (cc per new kernel), run, reference */
#define RED_MAX_TESTS 4000 /* a safety net; small programs take a few hundred */

enum { F_PASS, F_REJECT, F_MISMATCH, F_INTERNAL, F_CRASH, F_HANG };
static const char *const kind_name[] = {"passes", "rejected (input error)", "wrong answer", "internal error", "crash", "hang"};

typedef struct failure {
  int kind;
  int out;        /* F_MISMATCH: the failing output */
  char cls[192];  /* the message class */
  char line[400]; /* one line for people */
} failure;

typedef struct reducer {
  const char *file, *out_dir;
  char *entry;
  unsigned long long seed;
  unsigned timeout_s;
  kg_context *kg;
  kg_oracle *orc;
  kg_diag d;
  char work[4096]; /* the children's TMPDIR (check folders, emulator objects), removed at the end */
  cJSON *cur;      /* the smallest failing document so far */
  char *cur_text;
  failure want;
  uint64_t *memo; /* hashes of candidates that did not reproduce */
  size_t n_memo, cap_memo;
  int tests, accepted, memo_hits;
  kg_cli_variant var; /* --variant / --order / --eager / --strided: the check as the finding ran it */
} reducer;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The class of a message: its first line, digit runs and hex numbers as '#', a word with
 * a '/' in it (a path) as <path>. */
static void normalize(const char *in, char *out, size_t cap) {
  size_t o = 0;
  const char *end = in + strcspn(in, "\n");
  for (const char *p = in; p < end && o + 8 < cap;) {
    bool word_start = p == in || p[-1] == ' ' || p[-1] == '(';
    size_t wl = strcspn(p, " \n)");
    if (word_start && memchr(p, '/', wl)) {
      memcpy(out + o, "<path>", 6), o += 6;
      p += wl;
    } else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
      out[o++] = '#';
      for (p += 2; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'); p++) {}
    } else if (*p >= '0' && *p <= '9') {
      out[o++] = '#';
      while (p < end && *p >= '0' && *p <= '9') p++;
    } else out[o++] = *p++;
  }
  out[o] = 0;
}

/* A diagnostic's class: from "error[" on, the location before it left out. */
static void from_status(kg_context *ctx, kg_status s, failure *f) {
  const char *msg = kg_last_error(ctx), *e = strstr(msg, "error[");
  f->kind = s == KG_ERR_INPUT ? F_REJECT : F_INTERNAL;
  normalize(e ? e : msg, f->cls, sizeof f->cls);
  while (*msg == '\n' || *msg == ' ') msg++;
  snprintf(f->line, sizeof f->line, "%.*s", (int)strcspn(msg, "\n"), msg);
}

static void verdict_class(const char *v, char *cls, size_t cap) {
  if (!strncmp(v, "MISMATCH", 8)) snprintf(cls, cap, "MISMATCH"); /* values and index vary with the sizes */
  else if (!strncmp(v, "shape mismatch", 14)) snprintf(cls, cap, "shape mismatch");
  else normalize(v, cls, cap);
}

/* The child: load, compile, check; writes 'P' once past compilation (the oracle may be in use
 * from there on), then 'R' and the failure. */
static void child_run(reducer *R, const char *text, int fd, int want_out) {
  failure f;
  memset(&f, 0, sizeof f);
  alarm(R->timeout_s);
  kg_module *m = NULL;
  kg_status s = kg_module_load(R->kg, text, strlen(text), &m);
  if (s == KG_OK) {
    kg_compiled *c = NULL;
    s = kg_specialize(m, R->entry, NULL, &c);
    kg_compiled_free(c);
  }
  if (s != KG_OK) from_status(R->kg, s, &f);
  else {
    if (write(fd, "P", 1) != 1) _exit(9);
    kg_check_opts o;
    memset(&o, 0, sizeof o);
    o.entry = R->entry, o.seed = R->seed, o.device = KG_DEVICE_AUTO;
    kg_cli_variant_apply(&R->var, NULL, &o);
    kg_check_result r;
    s = kg_check_module(R->kg, R->orc, m, &o, &r);
    if (s != KG_OK) from_status(R->kg, s, &f);
    else if (!r.all_ok) {
      int i = 0;
      while (i < r.n_outputs && r.rows[i].ok) i++;
      if (want_out >= 0 && want_out < r.n_outputs && !r.rows[want_out].ok) i = want_out;
      f.kind = F_MISMATCH, f.out = i;
      verdict_class(r.rows[i].verdict, f.cls, sizeof f.cls);
      snprintf(f.line, sizeof f.line, "out%d %s %s %s", i, r.rows[i].dtype, r.rows[i].shape, r.rows[i].verdict);
    } else f.kind = F_PASS;
    kg_check_result_free(&r);
  }
  if (m) kg_module_free(m);
  if (write(fd, "R", 1) != 1 || write(fd, &f, sizeof f) != (ssize_t)sizeof f) _exit(9);
  _exit(0);
}

/* A sanitizer's report, an assert, in the child's stderr: the failure's line and class. */
static bool stderr_report(const char *path, char *line, size_t cap) {
  size_t len;
  char *t = kg_read_file(path, &len);
  if (!t) return false;
  static const char *const marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "ERROR: UndefinedBehaviorSanitizer",
                                      "ERROR: ThreadSanitizer", "runtime error:", "Assertion `"};
  bool found = false;
  for (size_t i = 0; i < sizeof marks / sizeof *marks && !found; i++) {
    const char *p = strstr(t, marks[i]);
    if (p) snprintf(line, cap, "%.*s", (int)strcspn(p, "\n"), p), found = true;
  }
  free(t);
  return found;
}

static void restart_oracle(reducer *R) {
  kg_oracle_stop(R->orc);
  R->orc = kg_oracle_start(&R->d);
}

static void test(reducer *R, const char *text, int want_out, failure *f) {
  memset(f, 0, sizeof *f);
  int pfd[2];
  char errpath[4200];
  snprintf(errpath, sizeof errpath, "%s/child.stderr", R->work);
  if (pipe(pfd) != 0) {
    f->kind = F_INTERNAL;
    snprintf(f->line, sizeof f->line, "kgen reduce: pipe: %s", strerror(errno));
    snprintf(f->cls, sizeof f->cls, "reducer");
    return;
  }
  fflush(stdout), fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(pfd[0]);
    int ef = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600), nf = open("/dev/null", O_WRONLY);
    if (ef >= 0) dup2(ef, 2), close(ef);
    if (nf >= 0) dup2(nf, 1), close(nf);
    child_run(R, text, pfd[1], want_out);
  }
  close(pfd[1]);
  char buf[sizeof(failure) + 8];
  size_t got = 0;
  while (pid > 0 && got < sizeof buf) {
    ssize_t n = read(pfd[0], buf + got, sizeof buf - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(pfd[0]);
  int st = 0;
  while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  R->tests++;
  bool past_codegen = got > 0 && buf[0] == 'P';
  size_t at = past_codegen ? 1 : 0;
  if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && got == at + 1 + sizeof *f && buf[at] == 'R') memcpy(f, buf + at + 1, sizeof *f);
  else if (pid > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
    f->kind = F_HANG;
    snprintf(f->cls, sizeof f->cls, "hang");
    snprintf(f->line, sizeof f->line, "no result within %u s", R->timeout_s);
  } else {
    f->kind = F_CRASH;
    if (pid < 0) snprintf(f->line, sizeof f->line, "fork: %s", strerror(errno));
    else if (WIFSIGNALED(st)) snprintf(f->line, sizeof f->line, "signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else snprintf(f->line, sizeof f->line, "exit status %d without a result", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    snprintf(f->cls, sizeof f->cls, "%.150s", f->line);
  }
  char rep[400];
  if (stderr_report(errpath, rep, sizeof rep) && (f->kind == F_CRASH || strncmp(rep, "Assertion", 9) != 0)) {
    if (f->kind != F_CRASH) snprintf(f->line, sizeof f->line, "%s", rep); /* a sanitizer report that did not stop the child */
    else snprintf(f->line + strlen(f->line), sizeof f->line - strlen(f->line), ": %s", rep);
    f->kind = F_CRASH;
    normalize(rep, f->cls, sizeof f->cls);
  }
  if (((f->kind == F_CRASH || f->kind == F_HANG) && past_codegen) || (f->kind == F_INTERNAL && strstr(f->line, "PyTorch oracle")))
    restart_oracle(R); /* the child may have died mid-job: the channel can hold half an answer */
}

static bool same(const failure *a, const failure *want, int want_out) {
  return a->kind == want->kind && !strcmp(a->cls, want->cls) && (a->kind != F_MISMATCH || a->out == want_out);
}

static bool memo_has(reducer *R, uint64_t h) {
  for (size_t i = 0; i < R->n_memo; i++)
    if (R->memo[i] == h) return true;
  return false;
}
static void memo_add(reducer *R, uint64_t h) {
  if (R->n_memo == R->cap_memo) {
    R->cap_memo = R->cap_memo ? 2 * R->cap_memo : 256;
    R->memo = kg_xrealloc(R->memo, R->cap_memo * sizeof *R->memo);
  }
  R->memo[R->n_memo++] = h;
}

/* Tries `cand` (owned); keeps it as the current document when it fails the same way. */
static bool consider(reducer *R, cJSON *cand, int out, const char *pass, const char *what) {
  char *text = cJSON_PrintUnformatted(cand);
  uint64_t h = text ? kg_hash_str(text) : 0;
  bool kept = false;
  if (!text || !strcmp(text, R->cur_text)) {
  } else if (memo_has(R, h)) R->memo_hits++;
  else {
    failure f;
    test(R, text, out, &f);
    if (same(&f, &R->want, out)) {
      int before = kg_red_count_nodes(R->cur), after = kg_red_count_nodes(cand);
      cJSON_Delete(R->cur), cJSON_free(R->cur_text);
      R->cur = cand, R->cur_text = text, R->want.out = out;
      snprintf(R->want.line, sizeof R->want.line, "%s", f.line);
      R->accepted++;
      printf("  [%4d] %-12s %s: %d -> %d nodes\n", R->tests, pass, what, before, after);
      return true;
    }
    memo_add(R, h);
  }
  cJSON_free(text);
  cJSON_Delete(cand);
  return kept;
}

/* One pass to its end: the k-th edit of the current document, k advancing past each edit
 * that does not reproduce (after one that does, the same k names the next edit). */
static bool run_pass(reducer *R, const kg_red_pass *p) {
  bool any = false;
  for (int k = 0; R->tests < RED_MAX_TESTS;) {
    cJSON *cand = cJSON_Duplicate(R->cur, 1);
    kg_red_edit e;
    memset(&e, 0, sizeof e);
    e.entry = R->entry, e.has_out = R->want.kind == F_MISMATCH, e.out = R->want.out;
    if (!cand || !p->fn(cand, k, &e)) {
      cJSON_Delete(cand);
      break;
    }
    if (consider(R, cand, e.out, p->name, e.what)) any = true;
    else k++;
  }
  return any;
}

/* Removes the work folder: files and folders (check folders, the emulator's), a few levels. */
static void rm_tree(const char *path, int depth) {
  DIR *dir = opendir(path);
  struct dirent *e;
  while (dir && (e = readdir(dir))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    struct stat st;
    if (!lstat(p, &st) && S_ISDIR(st.st_mode)) {
      if (depth > 0) rm_tree(p, depth - 1);
    } else unlink(p);
  }
  if (dir) closedir(dir);
  rmdir(path);
}

static void describe(const failure *f, char *buf, size_t cap) {
  snprintf(buf, cap, "%s: %s", kind_name[f->kind], f->line);
}

static int write_out(reducer *R, const char *json, const char *fs) {
  if (kg_mkdirs(R->out_dir) != 0) return fprintf(stderr, "kgen reduce: cannot create %s: %s\n", R->out_dir, strerror(errno)), 1;
  const char *base = strrchr(R->file, '/') ? strrchr(R->file, '/') + 1 : R->file;
  size_t bl = strlen(base);
  if (bl > 5 && !strcmp(base + bl - 5, ".json")) bl -= 5;
  char pj[4600], pf[4600];
  snprintf(pj, sizeof pj, "%s/%.*s.reduced.json", R->out_dir, (int)bl, base);
  snprintf(pf, sizeof pf, "%s/%.*s.reduced.fs", R->out_dir, (int)bl, base);
  if (kg_write_file(pj, json, strlen(json)) != 0 || kg_write_file(pf, fs, strlen(fs)) != 0)
    return fprintf(stderr, "kgen reduce: cannot write %s: %s\n", pj, strerror(errno)), 1;
  printf("wrote %s and %s\n", pj, pf);
  return 0;
}

static int reduce_main(reducer *R) {
  size_t len;
  char *text = kg_read_file(R->file, &len);
  cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  if (!doc) return fprintf(stderr, "kgen reduce: %s: the reducer cannot parse it as JSON\n", R->file), 1;
  R->cur = doc;
  R->cur_text = cJSON_PrintUnformatted(doc);
  printf("kgen reduce %s: entry %s, seed %llu\n", R->file, R->entry, R->seed);
  double t0 = now_s();
  test(R, R->cur_text, -1, &R->want);
  char line[700];
  describe(&R->want, line, sizeof line);
  if (R->want.kind == F_PASS) {
    printf("kgen reduce: %s does not fail: every output of %s matches PyTorch (seed %llu); nothing to reduce, the document is left unchanged\n",
           R->file, R->entry, R->seed);
    return 3;
  }
  if (R->want.kind == F_REJECT) {
    fprintf(stderr, "kgen reduce: kgen rejects %s, so there is no failure to keep:\n%s\n", R->file, R->want.line);
    return 1;
  }
  printf("failure: %s\n  class: %s%s", line, R->want.cls, R->want.kind == F_MISMATCH ? "" : "\n");
  if (R->want.kind == F_MISMATCH) printf(", output %d\n", R->want.out);
  int n0 = kg_red_count_nodes(R->cur), rounds = 0;
  for (bool changed = true; changed && R->tests < RED_MAX_TESTS; rounds++) {
    changed = false;
    for (int i = 0; i < kg_red_n_passes; i++) changed |= run_pass(R, &kg_red_passes[i]);
  }
  cJSON *cand = cJSON_Duplicate(R->cur, 1);
  if (kg_red_compact_vars(cand)) consider(R, cand, R->want.out, "vars", "dropped the unused vars");
  else cJSON_Delete(cand);
  if (R->tests >= RED_MAX_TESTS) printf("kgen reduce: stopped after %d tests (the limit); the result may not be minimal\n", R->tests);
  printf("reduce: %d -> %d nodes in %d round(s), %d tests (%d kept, %d repeats skipped), %.1f s\n", n0, kg_red_count_nodes(R->cur), rounds,
         R->tests, R->accepted, R->memo_hits, now_s() - t0);
  describe(&R->want, line, sizeof line);
  printf("reduced failure: %s\n", line);
  char *json = cJSON_Print(R->cur);
  char comment[1200], vs[128];
  kg_cli_variant_str(&R->var, vs, sizeof vs);
  snprintf(comment, sizeof comment, "reduced by kgen reduce from %s (seed %llu)\n%s\nreproduce: kgen check THIS.json --seed %llu%s", R->file, R->seed,
           line, R->seed, vs);
  char *fs = kg_fs_render(R->cur, "Reduced", comment);
  int rc = R->out_dir ? write_out(R, json, fs) : 0;
  printf("--- reduced document ---\n%s\n--- F# ---\n%s", json, fs);
  cJSON_free(json), free(fs);
  return rc;
}

int kg_cli_reduce(int argc, char **argv) {
  reducer R;
  memset(&R, 0, sizeof R);
  R.timeout_s = RED_TIMEOUT_S;
  const char *entry = NULL;
  bool have_seed = false;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int vr = s[0] == '-' ? kg_cli_variant_opt(argc, argv, &i, &R.var) : 0;
    if (vr < 0) return 1;
    if (vr) continue;
    if (s[0] == '-' && i + 1 >= argc) return fprintf(stderr, "kgen reduce: %s needs a value\n", s), 1;
    if (!strcmp(s, "--entry")) entry = argv[++i];
    else if (!strcmp(s, "--out")) R.out_dir = argv[++i];
    else if (!strcmp(s, "--seed")) R.seed = strtoull(argv[++i], NULL, 10), have_seed = true;
    else if (!strcmp(s, "--timeout")) {
      long t = strtol(argv[++i], NULL, 10);
      if (t <= 0 || t > 86400) return fprintf(stderr, "kgen reduce: --timeout wants seconds (1 to 86400), not '%s'\n", argv[i]), 1;
      R.timeout_s = (unsigned)t;
    } else if (s[0] == '-') return fprintf(stderr, "kgen reduce: unknown option %s\n", s), 1;
    else if (!R.file) R.file = s;
    else return fprintf(stderr, "kgen reduce: unexpected argument %s\n", s), 1;
  }
  if (!R.file) return fprintf(stderr, "kgen reduce: missing FILE\nusage: kgen reduce FILE [--entry NAME] [--seed N] [--out DIR] [--timeout S] [--variant N] [--order N] [--eager] [--strided] [--device cpu]\n"), 1;

  /* the children's temporary files live in one folder, removed at the end */
  const char *tmp = getenv("TMPDIR");
  snprintf(R.work, sizeof R.work, "%s/kgen-reduce-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(R.work)) return fprintf(stderr, "kgen reduce: cannot create %s: %s\n", R.work, strerror(errno)), 1;
  setenv("TMPDIR", R.work, 1);
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  kg_cli_variant_apply(&R.var, &o, NULL);
  R.kg = kg_context_new(&o);
  kg_diag_init(&R.d);
  int rc = 0;
  kg_module *m = NULL;
  kg_status s = kg_module_load_file(R.kg, R.file, &m); /* malformed JSON, a missing file: a located error */
  if (s != KG_OK) rc = kg_cli_status(R.kg, s);
  else {
    int ne = kg_module_n_entries(m), found = -1;
    for (int i = 0; i < ne; i++)
      if (!entry || !strcmp(entry, kg_module_entry_name(m, i))) found = found < 0 ? i : found;
    if (found < 0) {
      fprintf(stderr, "kgen reduce: %s has no entry %s%s\n", R.file, entry ? entry : "", ne ? "" : "(it has no entries)");
      rc = 1;
    } else {
      R.entry = kg_xstrdup(kg_module_entry_name(m, found));
      unsigned long long n;
      char tail;
      if (!have_seed && sscanf(R.entry, "fuzz_%llu%c", &n, &tail) == 1) R.seed = n;
    }
    kg_module_free(m);
  }
  if (!rc) {
    R.orc = kg_oracle_start(&R.d);
    if (!R.orc) {
      char *t = kg_diag_format(&R.d);
      fputs(t, stderr);
      free(t);
      rc = 2;
    }
  }
  if (!rc) rc = reduce_main(&R);
  if (R.orc) kg_oracle_stop(R.orc);
  kg_context_free(R.kg);
  rm_tree(R.work, 3);
  kg_diag_free(&R.d);
  cJSON_Delete(R.cur);
  cJSON_free(R.cur_text);
  free(R.memo), free(R.entry);
  return rc;
}
