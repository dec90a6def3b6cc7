/* tests/oracle_fixture.h — what a suite checking documents against PyTorch needs in every file:
 * the oracle started once per test (.init = setup, .fini = teardown; orc NULL when there is no
 * /usr/bin/python3 with torch), a context that verifies the IR after every pass, and a document
 * loaded by its path below the source tree without ".json" (a failure is the test's assertion).
 * Header-only: each test file gets its own static copies. */
#ifndef KG_TESTS_ORACLE_FIXTURE_H
#define KG_TESTS_ORACLE_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "check/check.h"

static kg_oracle *orc;

static inline void setup(void) {
  kg_diag d;
  kg_diag_init(&d);
  orc = kg_oracle_start(&d);
  kg_diag_free(&d);
}

static inline void teardown(void) {
  if (orc) kg_oracle_stop(orc);
  orc = NULL;
}

static inline kg_context *ctx_new(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

/* the same, with a forced schedule (kg_options.force_variant, kgen.h) */
static inline kg_context *ctx_forced(int force) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.force_variant = force;
  return kg_context_new(&o);
}

/* the same, with the emulator's thread order (0 forward, 1 reverse, 2 random from seed) */
static inline kg_context *ctx_in_order(int order, uint64_t seed) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.emu_thread_order = order;
  o.emu_seed = seed;
  return kg_context_new(&o);
}

static inline kg_module *load(kg_context *ctx, const char *path) {
  char full[1024];
  snprintf(full, sizeof full, "%s/%s.json", KG_SOURCE_DIR, path);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, full, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

/* entry co->entry of document path checked against PyTorch in ctx (co: device, seed, signature or
 * sizes): every output must match; `what` names the case in a failure */
static inline void expect_matches(kg_context *ctx, const char *path, const kg_check_opts *co, const char *what) {
  kg_module *m = load(ctx, path);
  kg_check_result r;
  cr_assert_eq(kg_check_module(ctx, orc, m, co, &r), KG_OK, "%s: %s", what, kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s: out%d %s %s: %s", what, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
}

#endif
