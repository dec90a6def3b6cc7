/* tests/test_fuzz.c — `kgen fuzz` (issue 13): its generator is deterministic per seed,
 * every program it makes is one kgen accepts (loads and specializes from the document's
 * signature), every family alone included, and a short run of the command against
 * PyTorch (schedule variants and two jobs included) finds nothing. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/check.h"
#include "cli/fuzz.h"

Test(fuzz, same_seed_same_bytes_other_seed_other_program) {
  for (uint64_t seed = 0; seed < 20; seed++) {
    size_t l1, l2, l3;
    char *a = kg_fuzz_generate(seed, KG_FUZZ_ALL, &l1), *b = kg_fuzz_generate(seed, KG_FUZZ_ALL, &l2);
    char *c = kg_fuzz_generate(seed + 1, KG_FUZZ_ALL, &l3);
    cr_assert(a && b && c);
    cr_expect(l1 == l2 && memcmp(a, b, l1) == 0, "seed %llu: two different documents", (unsigned long long)seed);
    cr_expect(l1 != l3 || memcmp(a, c, l1) != 0, "seeds %llu and %llu: the same document", (unsigned long long)seed,
              (unsigned long long)seed + 1);
    cr_expect(strlen(a) == l1);
    free(a), free(b), free(c);
  }
}

Test(fuzz, ops_list) {
  unsigned m = 0;
  cr_expect_eq(kg_fuzz_parse_ops("arith,reduce", &m), 0);
  cr_expect_eq(m, (unsigned)(KG_FUZZ_ARITH | KG_FUZZ_REDUCE));
  cr_expect_eq(kg_fuzz_parse_ops("all", &m), 0);
  cr_expect_eq(m, (unsigned)KG_FUZZ_ALL);
  cr_expect_eq(kg_fuzz_parse_ops("arith,matmul,cf", &m), 0);
  cr_expect_eq(m, (unsigned)(KG_FUZZ_ARITH | KG_FUZZ_MATMUL | KG_FUZZ_CF));
  cr_expect_eq(kg_fuzz_parse_ops("arith,conv2d", &m), -1);
  cr_expect_eq(kg_fuzz_parse_ops("", &m), -1);
  /* a family alone still makes valid programs (a cast to float32 when nothing fits) */
  kg_context *ctx = kg_context_new(NULL);
  for (int f = 0; kg_fuzz_family_name(f); f++)
    for (uint64_t seed = 0; seed < 10; seed++) {
      size_t len;
      unsigned one = 1u << f;
      cr_assert_eq(kg_fuzz_parse_ops(kg_fuzz_family_name(f), &m), 0);
      cr_assert_eq(m, one);
      char *doc = kg_fuzz_generate(seed, one, &len);
      kg_module *m2;
      kg_status s = kg_module_load(ctx, doc, len, &m2);
      cr_expect_eq(s, KG_OK, "ops %s seed %llu: %s", kg_fuzz_family_name(f), (unsigned long long)seed, kg_last_error(ctx));
      if (s == KG_OK) kg_module_free(m2);
      free(doc);
    }
  kg_context_free(ctx);
}

/* each family alone makes its ops: a member (or node) of it in some of the first 40 programs */
Test(fuzz, families_make_their_ops) {
  static const struct {
    const char *family, *needles[4];
  } want[] = {
      {"conv", {"\"conv1d\"", "\"conv2d\"", "\"conv_transpose1d\"", "\"conv_transpose2d\""}},
      {"pool", {"\"max_pool2d\"", "\"avg_pool1d\"", "\"adaptive_avg_pool2d\"", "\"adaptive_max_pool1d\""}},
      {"cnorm", {"\"batch_norm\"", "\"group_norm\"", "\"instance_norm\"", NULL}},
      {"resample", {"\"interpolate\"", "\"pixel_shuffle\"", "\"pixel_unshuffle\"", NULL}},
      {"random", {"\"rand_like\"", "\"randn_like\"", "\"bernoulli\"", "\"dropout\""}},
      {"capture", {"\"ValueWithName\"", "\"captures\"", NULL, NULL}},
      {"scalar", {"\"scalar\"", NULL, NULL, NULL}},
      {"nan", {"\"NaN\"", "\"Infinity\"", "\"maximum\"", "\"fmin\""}},
  };
  for (size_t f = 0; f < sizeof want / sizeof want[0]; f++) {
    unsigned m;
    cr_assert_eq(kg_fuzz_parse_ops(want[f].family, &m), 0);
    bool found[4] = {false};
    for (uint64_t seed = 0; seed < 40; seed++) {
      size_t len;
      char *doc = kg_fuzz_generate(seed, m, &len);
      for (int k = 0; k < 4; k++) found[k] |= want[f].needles[k] && strstr(doc, want[f].needles[k]) != NULL;
      free(doc);
    }
    for (int k = 0; k < 4; k++)
      if (want[f].needles[k]) cr_expect(found[k], "--ops %s: no %s in seeds 0..39", want[f].family, want[f].needles[k]);
  }
}

Test(fuzz, every_program_loads_and_specializes, .timeout = 120) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  kg_context *ctx = kg_context_new(&o);
  for (uint64_t seed = 0; seed < 50; seed++) {
    size_t len;
    char *doc = kg_fuzz_generate(seed, KG_FUZZ_ALL, &len);
    cr_assert_not_null(doc);
    kg_module *m;
    kg_status s = kg_module_load(ctx, doc, len, &m);
    cr_expect_eq(s, KG_OK, "seed %llu does not load: %s\n%s", (unsigned long long)seed, kg_last_error(ctx), doc);
    if (s == KG_OK) {
      kg_compiled *c = NULL;
      s = kg_specialize(m, NULL, NULL, &c);
      cr_expect_eq(s, KG_OK, "seed %llu does not specialize: %s\n%s", (unsigned long long)seed, kg_last_error(ctx), doc);
      kg_compiled_free(c);
      kg_module_free(m);
    }
    free(doc);
  }
  kg_context_free(ctx);
}

/* The command: 30 programs against PyTorch (every third also under its schedule variant —
 * seeds 0 .. 23 on the CPU device, the rest on the emulator: cli_fuzz.c variant_of), two at a
 * time, no finding, no rejection (skipped without the oracle). The kernel cache makes reruns
 * fast; a cold run compiles ~150 kernels. */
Test(fuzz, cli_run_finds_nothing, .timeout = 300) {
  char dir[] = "/tmp/kgen-fuzz-test-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' fuzz --seed 0 --count 30 --jobs 2 --variant-every 3 --out '%s/out' > '%s/log' 2>&1", KG_CLI_PATH, dir, dir);
  int st = system(cmd);
  char lp[512];
  snprintf(lp, sizeof lp, "%s/log", dir);
  size_t len;
  char *out = kg_read_file(lp, &len);
  if (!out) out = strdup("");
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (strstr(out, "PyTorch oracle unavailable")) {
    free(out);
    if (system(cmd)) cr_log_warn("could not remove %s", dir);
    cr_skip_test("PyTorch oracle unavailable");
  }
  cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
  cr_expect(strstr(out, "fuzz: 30 programs, 30 passed (10 under a schedule variant too), 0 findings, 0 rejected (seed 0..29") != NULL, "%s", out);
  free(out);
  if (system(cmd)) cr_log_warn("could not remove %s", dir);
}
