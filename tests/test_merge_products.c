/* tests/test_merge_products.c — passes/merge_products.c: products of one input with adjacent row
 * slices of one weight (a packed in_proj_weight) run as one product, their results sliced out.
 *
 * Structure: the lowering program's products per weight (examples/mm_packed_projections: three
 * adjacent slices with their bias slices merge into one, two slices with a gap stay two, two
 * adjacent bias-less slices merge), the forced variant that keeps products apart (no merge),
 * and the model forward the pass is for (transformer_lm: 15 kernels, its attention still fused).
 * Numbers: both examples against PyTorch on the emulator and on the CPU device. */
#include <criterion/criterion.h>
#include <string.h>

#include "oracle_fixture.h"
#include "runtime/api_int.h"

/* The products (MATMUL or MMFOLD) of c's lowering program whose B is a row slice of entry
 * parameter p, and the rows the widest of them reads. */
static int products_of(const kg_compiled *c, uint32_t p, int64_t *rows) {
  const kg_graph *g = &c->lg;
  uint32_t w = g->params.v[p].node;
  int n = 0;
  *rows = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *m = &g->nodes.v[i];
    if (m->op != KG_OP_MATMUL && m->op != KG_OP_MMFOLD) continue;
    const kg_gnode *b = &g->nodes.v[m->in[1]];
    if (b->op != KG_OP_SLICE || b->in[0] != w) continue;
    n++;
    if (b->shape.d[0].v > *rows) *rows = b->shape.d[0].v;
  }
  return n;
}

static kg_context *ctx_forced(int force) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.force_variant = force;
  return kg_context_new(&o);
}

Test(merge_products, adjacent_slices_merge) {
  for (int f = 0; f < 2; f++) {
    kg_context *ctx = ctx_forced(f ? KG_FORCE_STRIDED_I64 : 0); /* force_variant 2: products kept apart */
    kg_module *m = load(ctx, "examples/mm_packed_projections");
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
    int64_t rows;
    int n = products_of(c, 1, &rows); /* w: q, k, v with their bias slices */
    cr_expect_eq(n, f ? 3 : 1, "w: %d products (forced %d)", n, f);
    if (!f) cr_expect_eq(rows, 24, "the merged product reads all 24 rows: %lld", (long long)rows);
    n = products_of(c, 3, &rows); /* w2: rows 0..8 and 16..24, a gap */
    cr_expect_eq(n, 2, "w2: %d products", n);
    n = products_of(c, 4, &rows); /* w3: two adjacent slices, no bias */
    cr_expect_eq(n, f ? 2 : 1, "w3: %d products", n);
    if (!f) cr_expect_eq(rows, 32);
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
}

/* nn.TransformerEncoder's layers: each packed in_proj one product (19 kernels before), each
 * attention still one fused kernel. */
Test(merge_products, transformer_layers) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, "examples/models/transformer_lm");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_eq(kg_compiled_n_kernels(c), 15);
  int attn = 0;
  for (uint32_t i = 0; i < c->fusion.groups.n; i++) attn += c->fusion.groups.v[i].kind == KG_GROUP_ATTN;
  cr_expect_eq(attn, 2, "two fused attentions: %d", attn);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

static void check_on(const char *doc, kg_device_kind dev) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, doc);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.device = dev, co.seed = 13;
  kg_check_result r;
  cr_assert_eq(kg_check_module(ctx, orc, m, &co, &r), KG_OK, "%s: %s", doc, kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s (device %d): out%d %s %s: %s", doc, (int)dev, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m), kg_context_free(ctx);
}

Test(merge_products, match_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  check_on("examples/mm_packed_projections", KG_DEVICE_EMU);
  check_on("examples/mm_packed_projections", KG_DEVICE_CPU);
  check_on("examples/models/transformer_lm", KG_DEVICE_EMU);
  check_on("examples/models/transformer_lm", KG_DEVICE_CPU);
}
