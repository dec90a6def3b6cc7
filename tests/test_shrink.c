/* tests/test_shrink.c — `kgen reduce` (issue 13), tested end to end on planted faults.
 *
 * The faults are planted in the CUDA C printer through KGEN_PLANT_FAULT (test only,
 * codegen-cuda/cuda.c): mul-as-sub prints an int32 multiplication as a subtraction (a wrong
 * answer), crash-rank3 aborts on a kernel over a rank >= 3 space (a crash). The documents of
 * tests/shrink/ are programs `kgen fuzz --ops arith,cast` generated that fail under them; the
 * reducer must bring each to a few nodes that still fail the same way under the fault and pass
 * without it. Also: the reduction is deterministic, a document that does not fail is left
 * alone (exit 3), bad input is a located error with exit 1, and the F# rendering and the
 * edits' bookkeeping (node count, unused vars) work on their own.
 * The tests that run the command skip without the PyTorch oracle. (tests/test_reduce.c is
 * about reduction *ops*; this file is about shrinking documents.)
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/check.h"
#include "cli/fsrender.h"
#include "cli/reduce.h"

#define SHRINK KG_SOURCE_DIR "/tests/shrink/"

typedef struct run {
  int status; /* system()'s */
  char *out;  /* stdout and stderr */
} run;

/* Runs `ENV kgen ARGS` in a shell, output captured, temporary files (a failed check's
 * folder) under `dir`. */
static run sh(const char *dir, const char *env, const char *args) {
  char cmd[4096], log[1024];
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(cmd, sizeof cmd, "TMPDIR='%s' %s '%s' %s > '%s' 2>&1", dir, env ? env : "", KG_CLI_PATH, args, log);
  run r;
  r.status = system(cmd);
  size_t len;
  r.out = kg_read_file(log, &len);
  if (!r.out) r.out = strdup("");
  return r;
}
static int exit_code(const run *r) { return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1; }
static bool aborted(const run *r) {
  return (WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGABRT) || (WIFEXITED(r->status) && WEXITSTATUS(r->status) == 128 + SIGABRT);
}

static char *tmpdir(void) {
  char *d = strdup("/tmp/kgen-shrink-test-XXXXXX");
  cr_assert_not_null(mkdtemp(d));
  return d;
}
static void rmdir_all(char *d) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
  if (system(cmd)) cr_log_warn("could not remove %s", d);
  free(d);
}

static cJSON *load_json(const char *path) {
  size_t len;
  char *t = kg_read_file(path, &len);
  cJSON *j = t ? cJSON_Parse(t) : NULL;
  free(t);
  return j;
}

/* Reduces tests/shrink/NAME.json under FAULT; checks the result is small, fails the same way
 * under the fault and passes without it. Returns false (test skipped) without the oracle. */
static bool reduce_planted(const char *name, const char *fault, int max_nodes, bool crash) {
  char *dir = tmpdir(), args[2048], env[128], red[1024];
  snprintf(env, sizeof env, "KGEN_PLANT_FAULT=%s", fault);
  snprintf(args, sizeof args, "reduce '" SHRINK "%s.json' --out '%s/out'", name, dir);
  run r = sh(dir, env, args);
  if (strstr(r.out, "PyTorch oracle unavailable")) {
    free(r.out), rmdir_all(dir);
    return false;
  }
  cr_assert_eq(exit_code(&r), 0, "%s", r.out);
  cr_expect(strstr(r.out, crash ? "failure: crash: signal 6" : "failure: wrong answer") != NULL, "%s", r.out);
  cr_expect(strstr(r.out, "--- F# ---") && strstr(r.out, "[<Kgen.Entry(\""), "%s", r.out);
  snprintf(red, sizeof red, "%s/out/%s.reduced.json", dir, name);
  char src[1024];
  snprintf(src, sizeof src, SHRINK "%s.json", name);
  cJSON *orig = load_json(src), *doc = load_json(red);
  cr_assert_not_null(doc, "no %s:\n%s", red, r.out);
  int n = kg_red_count_nodes(doc);
  cr_expect(n <= max_nodes, "%s reduced to %d nodes (want <= %d):\n%s", name, n, max_nodes, r.out);
  cr_expect(n < kg_red_count_nodes(orig));
  char fsp[1024];
  snprintf(fsp, sizeof fsp, "%s/out/%s.reduced.fs", dir, name);
  cr_expect(access(fsp, R_OK) == 0, "no %s", fsp);
  free(r.out);
  /* the fault still reproduces; without it the reduced document passes */
  snprintf(args, sizeof args, "check '%s' --seed %s", red, name + 5);
  r = sh(dir, env, args);
  if (crash) cr_expect(aborted(&r), "the reduced document does not crash under %s (status %d):\n%s", fault, r.status, r.out);
  else cr_expect(exit_code(&r) == 2 && strstr(r.out, "MISMATCH"), "the reduced document does not fail under %s:\n%s", fault, r.out);
  free(r.out);
  r = sh(dir, NULL, args);
  cr_expect_eq(exit_code(&r), 0, "the reduced document fails without the fault:\n%s", r.out);
  free(r.out);
  cJSON_Delete(doc), cJSON_Delete(orig);
  rmdir_all(dir);
  return true;
}

Test(shrink, wrong_answer_reduced_to_a_few_nodes, .timeout = 300) {
  /* 25 nodes, a 2-tuple, 4-d int32 signature: (y * 2).double() * x - t3 goes wrong in out1 */
  if (!reduce_planted("fuzz_222", "mul-as-sub", 6, false)) cr_skip_test("PyTorch oracle unavailable");
}

Test(shrink, wrong_answer_in_a_tuple_item, .timeout = 300) {
  /* 32 nodes, 3 parameters, a 3-tuple whose last item is wrong */
  if (!reduce_planted("fuzz_148", "mul-as-sub", 6, false)) cr_skip_test("PyTorch oracle unavailable");
}

Test(shrink, crash_reduced_to_a_few_nodes, .timeout = 300) {
  /* 16 nodes over float32[N,5,1] and [1,5,4]: aborts in the CUDA printer */
  if (!reduce_planted("fuzz_15", "crash-rank3", 6, true)) cr_skip_test("PyTorch oracle unavailable");
}

Test(shrink, deterministic, .timeout = 300) {
  char *dir = tmpdir(), args[2048], a[1024], b[1024];
  for (int i = 0; i < 2; i++) {
    snprintf(args, sizeof args, "reduce '" SHRINK "fuzz_148.json' --out '%s/%d'", dir, i);
    run r = sh(dir, "KGEN_PLANT_FAULT=mul-as-sub", args);
    if (strstr(r.out, "PyTorch oracle unavailable")) {
      free(r.out), rmdir_all(dir);
      cr_skip_test("PyTorch oracle unavailable");
    }
    cr_assert_eq(exit_code(&r), 0, "%s", r.out);
    free(r.out);
  }
  size_t la, lb;
  snprintf(a, sizeof a, "%s/0/fuzz_148.reduced.json", dir);
  snprintf(b, sizeof b, "%s/1/fuzz_148.reduced.json", dir);
  char *ta = kg_read_file(a, &la), *tb = kg_read_file(b, &lb);
  cr_assert(ta && tb);
  cr_expect(la == lb && memcmp(ta, tb, la) == 0, "two runs, two documents:\n%s\n---\n%s", ta, tb);
  free(ta), free(tb);
  snprintf(a, sizeof a, "%s/0/fuzz_148.reduced.fs", dir);
  snprintf(b, sizeof b, "%s/1/fuzz_148.reduced.fs", dir);
  ta = kg_read_file(a, &la), tb = kg_read_file(b, &lb);
  cr_assert(ta && tb);
  cr_expect(la == lb && memcmp(ta, tb, la) == 0);
  free(ta), free(tb);
  rmdir_all(dir);
}

Test(shrink, no_failure_left_unchanged, .timeout = 120) {
  char *dir = tmpdir(), args[2048], p[1024];
  snprintf(args, sizeof args, "reduce '" SHRINK "fuzz_222.json' --out '%s/out'", dir); /* no fault: it passes */
  run r = sh(dir, NULL, args);
  if (strstr(r.out, "PyTorch oracle unavailable")) {
    free(r.out), rmdir_all(dir);
    cr_skip_test("PyTorch oracle unavailable");
  }
  cr_expect_eq(exit_code(&r), 3, "%s", r.out);
  cr_expect(strstr(r.out, "does not fail") && strstr(r.out, "left unchanged"), "%s", r.out);
  snprintf(p, sizeof p, "%s/out/fuzz_222.reduced.json", dir);
  cr_expect(access(p, F_OK) != 0, "a document that does not fail was written out");
  free(r.out);
  rmdir_all(dir);
}

Test(shrink, bad_input_is_a_located_error, .timeout = 120) {
  char *dir = tmpdir(), args[2048], p[1024];
  /* a missing file */
  snprintf(args, sizeof args, "reduce '%s/missing.json'", dir);
  run r = sh(dir, NULL, args);
  cr_expect(exit_code(&r) == 1 && strstr(r.out, "error[io]") && strstr(r.out, "missing.json"), "%s", r.out);
  free(r.out);
  /* malformed JSON: byte, line and column */
  snprintf(p, sizeof p, "%s/bad.json", dir);
  cr_assert_eq(kg_write_file(p, "{\"format\": \"kgen-quotation\",\n  \"version\": 1,\n  \"entries\": [", 57), 0);
  snprintf(args, sizeof args, "reduce '%s'", p);
  r = sh(dir, NULL, args);
  cr_expect(exit_code(&r) == 1 && strstr(r.out, "error[json]") && strstr(r.out, "line 3"), "%s", r.out);
  free(r.out);
  /* an entry the document lacks */
  snprintf(args, sizeof args, "reduce '" SHRINK "fuzz_15.json' --entry nope");
  r = sh(dir, NULL, args);
  cr_expect(exit_code(&r) == 1 && strstr(r.out, "no entry nope"), "%s", r.out);
  free(r.out);
  /* a document kgen rejects: the diagnostic, with its F# location (needs the oracle to get there) */
  snprintf(args, sizeof args, "reduce '" KG_SOURCE_DIR "/tests/bad/bcast_shape_mismatch.json'");
  r = sh(dir, NULL, args);
  if (!strstr(r.out, "PyTorch oracle unavailable"))
    cr_expect(exit_code(&r) == 1 && strstr(r.out, "kgen rejects") && strstr(r.out, "bcast_shape_mismatch.fs:8:50: error[shape]"), "%s", r.out);
  free(r.out);
  /* options */
  r = sh(dir, NULL, "reduce");
  cr_expect(exit_code(&r) == 1 && strstr(r.out, "missing FILE"), "%s", r.out);
  free(r.out);
  r = sh(dir, NULL, "reduce x.json --timeout 0");
  cr_expect(exit_code(&r) == 1 && strstr(r.out, "--timeout"), "%s", r.out);
  free(r.out);
  rmdir_all(dir);
}

/* No oracle needed: the F# rendering of a fuzz document and the edits' bookkeeping. */
Test(shrink, fs_rendering_and_bookkeeping) {
  cJSON *doc = load_json(SHRINK "fuzz_148.json");
  cr_assert_not_null(doc);
  char *fs = kg_fs_render(doc, "Reduced", "a comment\nover two lines");
  cr_expect(strstr(fs, "// a comment\n// over two lines\nmodule Reduced\n\nopen TorchSharp\n") == fs, "%s", fs);
  cr_expect(strstr(fs, "[<Kgen.Entry(\"int32[1,7,1], int32[1,7,1], int32[1,1,1]\")>]\nlet fuzz_148 =\n") != NULL, "%s", fs);
  cr_expect(strstr(fs, "<@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) ->\n") != NULL, "%s", fs);
  cr_expect(strstr(fs, "        let t2 = z.to_type(torch.bfloat16)\n") != NULL, "%s", fs);
  cr_expect(strstr(fs, "        (t2 - t2 - -1, z + 3.0f, (y - z.char()) * t3) @>\n") != NULL, "%s", fs);
  free(fs);
  int n = kg_red_count_nodes(doc), nv = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "vars"));
  cr_expect_eq(n, 32);
  /* every pass enumerates edits; the first tuple edit keeps the failing item, which becomes output 0 */
  const kg_red_pass *tuple = NULL;
  for (int i = 0; i < kg_red_n_passes; i++)
    if (!strcmp(kg_red_passes[i].name, "tuple")) tuple = &kg_red_passes[i];
  cr_assert_not_null(tuple);
  cJSON *c = cJSON_Duplicate(doc, 1);
  kg_red_edit e = {"fuzz_148", true, 2, ""};
  cr_assert(tuple->fn(c, 0, &e));
  cr_expect_eq(e.out, 0);
  cr_expect(kg_red_count_nodes(c) < n);
  const cJSON *lam = cJSON_GetObjectItem(kg_red_entry(c, NULL), "expr");
  cr_expect(strstr(cJSON_GetObjectItem(lam, "ty")->valuestring, "System.Tuple") == NULL, "the spine's types follow: %s",
            cJSON_GetObjectItem(lam, "ty")->valuestring);
  cr_expect(kg_red_compact_vars(c)); /* the dropped items' witnesses held vars */
  cr_expect_lt(cJSON_GetArraySize(cJSON_GetObjectItem(c, "vars")), nv);
  cr_expect(!kg_red_compact_vars(c));
  cJSON_Delete(c);
  /* the k-th edit is well defined: past the last, nothing */
  for (int i = 0; i < kg_red_n_passes; i++) {
    int k = 0;
    for (;; k++) {
      cJSON *d = cJSON_Duplicate(doc, 1);
      kg_red_edit e2 = {"fuzz_148", true, 2, ""};
      bool applied = kg_red_passes[i].fn(d, k, &e2);
      cJSON_Delete(d);
      if (!applied) break;
      cr_expect(e2.what[0], "pass %s edit %d has no description", kg_red_passes[i].name, k);
    }
    cr_expect(k < 400, "pass %s: %d edits", kg_red_passes[i].name, k);
  }
  cJSON_Delete(doc);
}
