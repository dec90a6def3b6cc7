/* tests/test_drop_casts.c — passes/drop_casts.c: what reads a cast to the dtype its operand
 * already has reads the operand.
 *
 * Structure (examples/cast_identity): the linear's three operands, each behind such a cast, are
 * the entry's parameters themselves in the lowering program, so the scheduler sees a tensor read
 * as it is (mm_a_src, mm_b_src) and the CPU device takes the dot schedule for its 2 rows × 640; a
 * cast that is a result stays that result; a chain of two collapses, a cast that changes the dtype
 * stays; the typed program (the twins' source) keeps every cast; the Llama layer's weights reach
 * their (merged) products as the captured tensors. Numbers: both entries against PyTorch on the
 * emulator and on the CPU device (gradients too: the pass runs before autodiff). */
#include <criterion/criterion.h>
#include <string.h>

#include "example_run.h"

static int count_op(const kg_graph *g, kg_op op) {
  int n = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) n += g->nodes.v[i].op == op;
  return n;
}

/* the node of entry parameter p */
static uint32_t param_node(const kg_graph *g, uint32_t p) { return g->params.v[p].node; }

Test(drop_casts, products_read_the_tensors) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/cast_identity");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "cast_identity_linear", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  const kg_graph *lg = &c->lg;
  uint32_t mm = KG_NONE, add = KG_NONE;
  for (uint32_t i = 0; i < lg->nodes.n; i++) {
    if (lg->nodes.v[i].op == KG_OP_MATMUL) mm = i;
    if (lg->nodes.v[i].op == KG_OP_ADD) add = i;
  }
  cr_assert_neq(mm, KG_NONE);
  cr_expect_eq(lg->nodes.v[mm].in[0], param_node(lg, 0), "x itself");
  cr_expect_eq(lg->nodes.v[mm].in[1], param_node(lg, 1), "w itself");
  cr_assert_neq(add, KG_NONE);
  cr_expect_eq(lg->nodes.v[add].in[1], param_node(lg, 2), "b itself (type_as)");
  /* the second result, x.to_type(float32), stays a cast of x: a buffer of its own */
  const kg_gnode *o1 = &lg->nodes.v[lg->outputs.v[1]];
  cr_expect(o1->op == KG_OP_CAST && o1->in[0] == param_node(lg, 0), "the cast that is a result");
  /* the scheduler's facts: both operands tensors read as they are */
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    if (c->fusion.groups.v[gi].kind != KG_GROUP_MATMUL) continue;
    kg_group_facts gf = kg_group_facts_of(lg, &c->fusion, &c->fusion.groups.v[gi]);
    cr_expect(gf.mm_a_src && gf.mm_b_src, "a %d b %d", gf.mm_a_src, gf.mm_b_src);
  }
  /* the typed program keeps its casts: x's two (one value: cse), w's and b's */
  cr_expect_eq(count_op(&c->g, KG_OP_CAST), 3, "typed program: %d casts", count_op(&c->g, KG_OP_CAST));
  kg_compiled_free(c);
  /* float16: the chain h = x.half().half() is x; h.float() (a widening) stays */
  cr_assert_eq(kg_specialize(m, "cast_identity_chain", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  int widen = 0, same = 0;
  for (uint32_t i = 0; i < c->lg.nodes.n; i++) {
    const kg_gnode *n = &c->lg.nodes.v[i];
    if (n->op != KG_OP_CAST) continue;
    if (n->dtype == c->lg.nodes.v[n->in[0]].dtype) same++;
    else widen += n->dtype == KG_F32;
  }
  cr_expect_eq(same, 0, "no identity cast left: %d", same);
  cr_expect_eq(widen, 1);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* On the CPU device the linear of 2 rows × 640 takes the dot schedule (its weight read in place),
 * which a weight behind a cast did not get. */
Test(drop_casts, cpu_dot_schedule) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = run_example(ctx, "examples/cast_identity", KG_DEVICE_CPU, 3, &m);
  int dot = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    cr_log_info("kernel %u: %s", i, c->runtime.v[i]->k.schedule);
    dot += strstr(c->runtime.v[i]->k.schedule, "cpu_dot") != NULL;
  }
  cr_expect_eq(dot, 1, "the product on the dot schedule");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* The Llama decoder layer: no cast between a weight and its product. */
Test(drop_casts, llama_weights) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, "examples/models/llama");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "llama_decoder_layer", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  int bad = 0;
  for (uint32_t i = 0; i < c->lg.nodes.n; i++) {
    const kg_gnode *n = &c->lg.nodes.v[i];
    if (n->op == KG_OP_CAST && n->dtype == c->lg.nodes.v[n->in[0]].dtype) bad++;
  }
  cr_expect_eq(bad, 0, "%d identity casts left", bad);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

Test(drop_casts, match_pytorch, .init = setup, .fini = teardown, .timeout = 300) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  const char *entries[] = {"cast_identity_linear", "cast_identity_chain"};
  kg_device_kind devs[] = {KG_DEVICE_EMU, KG_DEVICE_CPU};
  for (int e = 0; e < 2; e++)
    for (int d = 0; d < 2; d++) {
      kg_context *ctx = ctx_new();
      kg_module *m = load(ctx, "examples/cast_identity");
      kg_check_opts co;
      memset(&co, 0, sizeof co);
      co.entry = entries[e], co.device = devs[d], co.seed = 5, co.grad = e == 0 && d == 0;
      kg_check_result r;
      cr_assert_eq(kg_check_module(ctx, orc, m, &co, &r), KG_OK, "%s: %s", entries[e], kg_last_error(ctx));
      for (int k = 0; k < r.n_outputs; k++)
        cr_expect(r.rows[k].ok, "%s (device %d): out%d %s: %s", entries[e], (int)devs[d], k, r.rows[k].shape, r.rows[k].verdict);
      kg_check_result_free(&r);
      kg_module_free(m), kg_context_free(ctx);
    }
}
