/* tests/test_batch_rows.c — a batch folded into a product's rows on the CPU target
 * (kg_variant.mm_fold: passes/schedule.c cpu_choose, passes/lower_matmul_cpu.c).
 *
 * A product whose every batch multiplies the same B (B without batch dims of its own: a linear
 * over a sequence [T, N, K], a matmul of a batch by a 2-D weight) runs on the CPU's panel
 * schedules as batch · M rows under one packed panel per column tile, each row's batch
 * coordinates from its index, instead of a panel packed per batch of M rows (an LSTM's input
 * projection packed its weight T times). Facts (examples/batch_into_rows): B shared or not;
 * the scheduler's rule (the panel schedules only, not the dot schedule, not the GPU's tiles);
 * the kernels the CPU device ran (named _fold, or not) and their epilogues' full tiles unrolled
 * (epilogue_row); every entry against PyTorch on the CPU device at odd sizes, one row a batch, one
 * batch, A read through strides (a permuted input, the general path), B stored [K, N], two results,
 * a result stored transposed (its stride along N is not 1: the column-by-column copy runs). */
#include <criterion/criterion.h>
#include <string.h>

#include "oracle_fixture.h"
#include "runtime/api_int.h"

#define DOC "examples/batch_into_rows"

static const struct {
  const char *entry, *sig; /* sig: sizes for the runs (NULL: the entry's own, static; K > 256: no product folds) */
  bool shared;             /* B shared by the batch: folded on the CPU device */
} cases[] = {
    {"linear_over_sequence", "float32[37,8,64], float32[96,64], float32[96]", true},
    {"one_row_per_batch", "float32[11,1,48], float32[40,48]", true},
    {"two_batch_dims_residual", NULL, true},
    {"permuted_sequence", "float32[6,19,33], float32[20,33]", true},
    {"matmul_weight_k_by_n", NULL, true},
    {"batched_weight_not_folded", NULL, false},
    {"linear_two_results", NULL, true},
    {"linear_result_transposed", NULL, true},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static uint32_t product_group(const kg_compiled *c) {
  for (uint32_t i = 0; i < c->fusion.groups.n; i++)
    if (c->fusion.groups.v[i].kind == KG_GROUP_MATMUL) return i;
  cr_assert_fail("no product group");
  return 0;
}

Test(batch_rows, facts_and_schedule) {
  kg_context *ctx = ctx_new();
  kg_target cpu = kg_target_cpu(2);
  for (int e = 0; e < NCASES; e++) {
    kg_module *m = load(ctx, DOC);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, cases[e].entry, NULL, &c), KG_OK, "%s: %s", cases[e].entry, kg_last_error(ctx));
    const kg_group_facts *gf = &c->gfacts[product_group(c)];
    cr_expect_eq(gf->mm_b_shared, cases[e].shared, "%s: B shared by the batch", cases[e].entry);
    kg_compiled_free(c), kg_module_free(m);
  }
  /* the rule: the CPU target's panel schedules, a batch other than 1 (or unknown) */
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = KG_GROUP_MATMUL, gf.rank = 3, gf.mm_flags = 4, gf.mm_k = 64, gf.mm_dtype = KG_F32, gf.mm_b_src = true, gf.mm_b_shared = true;
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  x.runtime = true, x.mm_kmajor[1] = 1;
  struct { int64_t t, m, k; bool shared; int fold; } r[] = {
      {512, 8, 64, true, 1}, {-1, 8, 64, true, 1}, {1, 8, 64, true, 0}, {512, 8, 64, false, 0},
      {3, 1, 1024, true, 0}, /* three single rows times a long weight: the dot schedule keeps its batch in grid.z */
  };
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
    int64_t sp[3] = {r[i].t, r[i].m, 96};
    memcpy(x.space, sp, sizeof sp);
    gf.mm_k = r[i].k, x.mm_k = r[i].k, gf.mm_b_shared = r[i].shared;
    kg_variant v = kg_schedule_choose(&gf, &x, &cpu).v;
    cr_expect_eq(v.mm_fold, r[i].fold, "case %zu: mm_fold %u (tile %u)", i, v.mm_fold, v.mm_tile);
    cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.mm_fold, 0, "case %zu: never on a GPU", i);
  }
  kg_context_free(ctx);
}

/* the CPU device ran the folded kernel (its name says _fold) where B is shared, and only there */
Test(batch_rows, cpu_device_runs_the_folded_kernel, .timeout = 300) {
  kg_context *ctx = ctx_new();
  for (int e = 0; e < NCASES; e++) {
    kg_module *m = load(ctx, DOC);
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, cases[e].entry, cases[e].sig, &c), KG_OK, "%s: %s", cases[e].entry, kg_last_error(ctx));
    uint32_t np = c->g.params.n;
    kg_npy in[8];
    DLTensor tv[8];
    const DLTensor *ins[8];
    cr_assert(np <= 8);
    for (uint32_t p = 0; p < np; p++) {
      const kg_gnode *n = &c->g.nodes.v[c->g.params.v[p].node];
      int64_t sh[KG_MAX_RANK];
      for (int d = 0; d < n->shape.rank; d++) sh[d] = n->shape.d[d].v;
      cr_assert_eq(kg_npy_random(&in[p], n->dtype, n->shape.rank, sh, 5 + p, false), 0);
      kg_npy_dlview(&in[p], &tv[p]);
      ins[p] = &tv[p];
    }
    kg_npy outs[4];
    DLTensor ov[4], *op[4];
    cr_assert_eq(kg_alloc_host_outputs(c, outs, ov, op), KG_OK, "%s", kg_last_error(ctx));
    int no = (int)c->g.outputs.n;
    cr_assert(no <= 4);
    cr_assert_eq(kg_run_host(c, KG_DEVICE_CPU, ins, (int)np, NULL, 0, op, no), KG_OK, "%s: %s", cases[e].entry, kg_last_error(ctx));
    uint32_t mm = 0, fold = 0;
    for (uint32_t i = 0; i < c->runtime.n; i++) {
      const kg_kernel *k = &c->runtime.v[i]->k;
      if (strncmp(k->schedule, "matmul.cpu", 10)) continue;
      mm++;
      fold += strstr(k->name, "_fold_cpu") != NULL;
    }
    cr_expect_eq(mm, 1, "%s: one CPU product kernel", cases[e].entry);
    /* a small epilogue's full tiles: rows unrolled under a unit-stride guard (lower_matmul_cpu.c
     * epilogue_row: its values `ev`, its 64-bit offsets `eo`) */
    bool rows = false;
    for (uint32_t i = 0; i < c->runtime.n; i++) rows |= strstr(c->runtime.v[i]->cuda, "_eo = ") != NULL;
    cr_expect(rows, "%s: the epilogue's unrolled rows", cases[e].entry);
    cr_expect_eq(fold, cases[e].shared ? 1u : 0u, "%s: the batch %s the rows", cases[e].entry, cases[e].shared ? "folded into" : "kept out of");
    for (uint32_t p = 0; p < np; p++) kg_npy_free(&in[p]);
    for (int o = 0; o < no; o++) kg_npy_free(&outs[o]);
    kg_compiled_free(c), kg_module_free(m);
  }
  kg_context_free(ctx);
}

/* every entry against PyTorch on the CPU device: the symbolic ones at several sizes (one step,
 * a batch of one, odd lengths), and on the emulator once (the GPU's schedules, unchanged) */
static void check_sig(const char *entry, const char *sig, kg_device_kind dev, unsigned seed) {
  kg_context *ctx = ctx_new();
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.device = dev, co.seed = seed, co.entry = entry, co.sig = sig;
  char what[300];
  snprintf(what, sizeof what, "%s [%s] (device %d)", entry, sig ? sig : "its signature", (int)dev);
  expect_matches(ctx, DOC, &co, what);
  kg_context_free(ctx);
}

Test(batch_rows, match_pytorch, .init = setup, .fini = teardown, .timeout = 900) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  for (int e = 0; e < NCASES; e++) {
    check_sig(cases[e].entry, cases[e].sig, KG_DEVICE_CPU, 3);
    check_sig(cases[e].entry, NULL, KG_DEVICE_EMU, 4);
  }
  const struct { const char *entry, *sig; } more[] = {
      {"linear_over_sequence", "float32[1,8,64], float32[96,64], float32[96]"},
      {"linear_over_sequence", "float32[5,8,64], float32[96,64], float32[96]"},
      {"one_row_per_batch", "float32[1,1,48], float32[40,48]"},
      {"one_row_per_batch", "float32[3,1,48], float32[40,48]"},
      {"permuted_sequence", "float32[6,1,33], float32[20,33]"},
  };
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) check_sig(more[i].entry, more[i].sig, KG_DEVICE_CPU, 7 + (unsigned)i);
}
