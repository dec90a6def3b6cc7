/* tests/test_merge_products.c — passes/merge_products.c: products of one input with adjacent row
 * slices of one weight (a packed in_proj_weight), or with separate weights at few rows, run as one
 * product, their results sliced out.
 *
 * Structure: the lowering program's products per weight (examples/mm_packed_projections: three
 * adjacent slices with their bias slices merge into one, two slices with a gap are no slice of
 * one weight — at 35 rows they merge as separate weights, with the bias-less pair of adjacent
 * slices), the forced variant that keeps products apart (no merge), and the model forward the pass
 * is for (transformer_lm: 15 kernels, its attention still fused). Separate weights
 * (examples/mm_sibling_projections): q, k, v with biases and gate, up without as a concatenation
 * each, a weight cast after the first product, 64 rows kept apart, a product that is a result
 * kept apart, weights past 4 MiB kept apart; the Llama layer 10 → 7 kernels (5 with its norms in the products); the CPU device's plan without them (its dot
 * schedule reads weights in place). Numbers: the examples against PyTorch on the emulator and on
 * the CPU device; NVRTC: the merged products (a concatenated B on the mma.sync tier) spill
 * nothing on sm_80 and sm_90. */
#include <criterion/criterion.h>
#include <string.h>

#include "nvrtc_util.h"
#include "oracle_fixture.h"
#include "runtime/api_int.h"

static bool is_product(const kg_gnode *m) { return m->op == KG_OP_MATMUL || m->op == KG_OP_MMFOLD; }

/* The products (MATMUL or MMFOLD) of c's lowering program whose B is a row slice of entry
 * parameter p, or a concatenation with such a slice (*through: how many), and the rows the widest
 * slice reads. */
static int products_of(const kg_compiled *c, uint32_t p, int64_t *rows, int *through) {
  const kg_graph *g = &c->lg;
  uint32_t w = g->params.v[p].node;
  int n = 0;
  *rows = 0, *through = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *m = &g->nodes.v[i];
    if (!is_product(m)) continue;
    const kg_gnode *b = &g->nodes.v[m->in[1]];
    bool cat = b->op == KG_OP_CAT, hit = false;
    for (int j = 0; j < (cat ? b->n_in : 1); j++) {
      const kg_gnode *s = cat ? &g->nodes.v[b->in[j]] : b;
      if (s->op != KG_OP_SLICE || s->in[0] != w) continue;
      hit = true;
      if (s->shape.d[0].v > *rows) *rows = s->shape.d[0].v;
    }
    n += hit, *through += hit && cat;
  }
  return n;
}

Test(merge_products, adjacent_slices_merge) {
  for (int f = 0; f < 2; f++) {
    kg_context *ctx = ctx_forced(f ? KG_FORCE_STRIDED_I64 : 0); /* force_variant 2: products kept apart */
    kg_module *m = load(ctx, "examples/mm_packed_projections");
    kg_compiled *c;
    cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK, "%s", kg_last_error(ctx));
    int64_t rows;
    int cat;
    int n = products_of(c, 1, &rows, &cat); /* w: q, k, v with their bias slices */
    cr_expect_eq(n, f ? 3 : 1, "w: %d products (forced %d)", n, f);
    cr_expect_eq(cat, 0, "w: its slices merged as a view");
    if (!f) cr_expect_eq(rows, 24, "the merged product reads all 24 rows: %lld", (long long)rows);
    n = products_of(c, 3, &rows, &cat); /* w2: rows 0..8 and 16..24, a gap: separate weights */
    cr_expect_eq(n, f ? 2 : 1, "w2: %d products", n);
    cr_expect_eq(cat, f ? 0 : 1, "w2: %d through a concatenation", cat);
    n = products_of(c, 4, &rows, &cat); /* w3: two adjacent slices, no bias: then with w2's */
    cr_expect_eq(n, f ? 2 : 1, "w3: %d products", n);
    cr_expect_eq(cat, f ? 0 : 1, "w3: %d through a concatenation", cat);
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
  check_on("examples/mm_sibling_projections", KG_DEVICE_EMU);
  check_on("examples/mm_sibling_projections", KG_DEVICE_CPU);
  check_on("examples/models/transformer_lm", KG_DEVICE_EMU);
  check_on("examples/models/transformer_lm", KG_DEVICE_CPU);
}

/* ---- separate weights ---- */

/* The products of g whose B is a concatenation: how many, and each one's operands' entry
 * parameters (through a cast) in widths[] (-1: another node), its bias concatenated or not. */
typedef struct catprod {
  int n_in;
  int param[8];
  bool bias;
} catprod;

static int param_of(const kg_graph *g, uint32_t id) {
  while (g->nodes.v[id].op == KG_OP_CAST) id = g->nodes.v[id].in[0];
  for (uint32_t p = 0; p < g->params.n; p++)
    if (g->params.v[p].node == id) return (int)p;
  return -1;
}

static int cat_products(const kg_graph *g, catprod *out, int max) {
  int n = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *m = &g->nodes.v[i];
    if (!is_product(m) || g->nodes.v[m->in[1]].op != KG_OP_CAT) continue;
    const kg_gnode *b = &g->nodes.v[m->in[1]];
    if (n < max) {
      out[n].n_in = b->n_in;
      for (int j = 0; j < b->n_in; j++) out[n].param[j] = param_of(g, b->in[j]);
      out[n].bias = false;
      for (uint32_t k = i + 1; k < g->nodes.n; k++) {
        const kg_gnode *a = &g->nodes.v[k];
        if (a->op == KG_OP_ADD && a->in[0] == i && g->nodes.v[a->in[1]].op == KG_OP_CAT) out[n].bias = true;
      }
    }
    n++;
  }
  return n;
}

static int plain_products(const kg_graph *g) {
  int n = 0;
  for (uint32_t i = 0; i < g->nodes.n; i++) n += is_product(&g->nodes.v[i]) && g->nodes.v[g->nodes.v[i].in[1]].op != KG_OP_CAT;
  return n;
}

static kg_compiled *compile_entry(kg_context *ctx, kg_module **m, const char *entry) {
  *m = load(ctx, "examples/mm_sibling_projections");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(*m, entry, NULL, &c), KG_OK, "%s: %s", entry, kg_last_error(ctx));
  return c;
}

Test(merge_products, separate_weights) {
  for (int f = 0; f < 2; f++) {
    kg_context *ctx = ctx_forced(f ? KG_FORCE_STRIDED_I64 : 0);
    kg_module *m;
    catprod cp[4];
    /* x [2, 5, 16]: q, k, v (biases) one product, gate and up (none) another */
    kg_compiled *c = compile_entry(ctx, &m, "mm_sibling_qkv_mlp");
    int n = cat_products(&c->lg, cp, 4);
    cr_expect_eq(n, f ? 0 : 2, "qkv_mlp: %d merged products (forced %d)", n, f);
    if (!f && n == 2) {
      cr_expect(cp[0].n_in == 3 && cp[0].param[0] == 1 && cp[0].param[1] == 3 && cp[0].param[2] == 5 && cp[0].bias, "q, k, v in order with their biases");
      cr_expect(cp[1].n_in == 2 && cp[1].param[0] == 7 && cp[1].param[1] == 8 && !cp[1].bias, "gate and up (x @ wu.t()), no bias");
    }
    n = plain_products(&c->lg);
    cr_expect_eq(n, f ? 7 : 2, "the scores and h products stay (and, forced, the five projections): %d", n);
    kg_compiled_free(c), kg_module_free(m);
    /* bfloat16: the second weight cast after the first product, the cast moved before the merge */
    c = compile_entry(ctx, &m, "mm_sibling_bf16_cast");
    n = cat_products(&c->lg, cp, 4);
    cr_expect_eq(n, f ? 0 : 1, "bf16_cast: %d merged products", n);
    if (!f && n == 1) cr_expect(cp[0].n_in == 2 && cp[0].param[0] == 1 && cp[0].param[1] == 2, "wa and wb cast to bfloat16");
    kg_compiled_free(c), kg_module_free(m);
    /* 64 rows stay apart; of the three products of y (12 rows) the one returned stays apart */
    c = compile_entry(ctx, &m, "mm_sibling_rows_and_results");
    n = cat_products(&c->lg, cp, 4);
    cr_expect_eq(n, f ? 0 : 1, "rows_and_results: %d merged products", n);
    if (!f && n == 1) cr_expect(cp[0].n_in == 2 && cp[0].param[0] == 3 && cp[0].param[1] == 1, "y's products with w3 and w1 (not w4: r is a result)");
    cr_expect_eq(plain_products(&c->lg), f ? 5 : 3, "x's two products and r's");
    kg_compiled_free(c), kg_module_free(m);
    /* float32 weights of 2.6, 2.6 and 0.5 MB: all three merge, at 2 rows (below KG_MM_TC_MIN_ROWS:
     * the SIMT tiles, every weight register-staged either way) and at 24 (tensors cp.async copies
     * a row at a time, merged or apart); stored as float16 and cast, at 24 rows, all three are
     * past KG_MERGE_SIBLING_BYTES, the last two (3.1 MB) are not */
    const char *sigs[] = {NULL, "float32[24,1024], float32[640,1024], float32[640,1024], float32[128,1024]"};
    for (int s = 0; s < 2; s++) {
      m = load(ctx, "examples/mm_sibling_projections");
      cr_assert_eq(kg_specialize(m, "mm_sibling_big_weights", sigs[s], &c), KG_OK, "%s", kg_last_error(ctx));
      n = cat_products(&c->lg, cp, 4);
      cr_expect_eq(n, f ? 0 : 1, "big_weights (%s rows): %d merged products", s ? "24" : "2", n);
      if (!f && n == 1) cr_expect(cp[0].n_in == 3 && cp[0].param[0] == 1 && cp[0].param[1] == 2 && cp[0].param[2] == 3, "w1, w2 and w3");
      cr_expect_eq(plain_products(&c->lg), f ? 3 : 0, "none apart");
      kg_compiled_free(c), kg_module_free(m);
    }
    c = compile_entry(ctx, &m, "mm_sibling_cast_weights_24_rows");
    n = cat_products(&c->lg, cp, 4);
    cr_expect_eq(n, f ? 0 : 1, "cast_weights_24_rows: %d merged products", n);
    if (!f && n == 1) cr_expect(cp[0].n_in == 2 && cp[0].param[0] == 2 && cp[0].param[1] == 3, "w2 and w3");
    cr_expect_eq(plain_products(&c->lg), f ? 3 : 1, "w1's product");
    kg_compiled_free(c), kg_module_free(m);
    kg_context_free(ctx);
  }
}

/* The Llama decoder layer: q, k, v one product, gate and up one: 10 kernels before, 7 (5 with its
 * RMSNorms' statistics computed by those two products: tests/test_row_stats.c). */
Test(merge_products, llama_layer) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, "examples/models/llama");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "llama_decoder_layer", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  cr_expect_eq(kg_compiled_n_kernels(c), 5);
  catprod cp[4];
  cr_expect_eq(cat_products(&c->lg, cp, 4), 2);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* The CPU device: the unfold plan is wanted and is built without the merged products. */
Test(merge_products, cpu_plan_keeps_them_apart) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m;
  kg_compiled *c = compile_entry(ctx, &m, "mm_sibling_f16_tensor_cores");
  catprod cp[4];
  cr_expect_eq(cat_products(&c->lg, cp, 4), 1);
  cr_expect(kg_compiled_wants_unfold(c));
  kg_diag d;
  kg_diag_init(&d);
  cr_assert(kg_compiled_build_plan(c, 3, &d));
  kg_plan_view v = kg_compiled_plan(c, 3);
  cr_expect_eq(cat_products(v.lg, cp, 4), 0);
  cr_expect_eq(plain_products(v.lg), 3);
  kg_diag_free(&d);
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
}

/* NVRTC for sm_80 and sm_90: the merged products' kernels (on mma.sync float16 and float32
 * split-TF32 with the concatenated B copied by cp.async, float32 of cast weights staged through
 * registers; float32 and bfloat16 on the SIMT tiles, three weights of 5.8 MB at 2 rows) compile
 * and spill nothing. */
Test(merge_products, nvrtc_no_spills, .timeout = 300) {
  kg_context *ctx = ctx_forced(0);
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  if (!nv) {
    kg_context_free(ctx);
    cr_skip_test("libnvrtc cannot be loaded");
  }
  const char *entries[] = {"mm_sibling_qkv_mlp", "mm_sibling_bf16_cast", "mm_sibling_f16_tensor_cores", "mm_sibling_big_weights",
                           "mm_sibling_cast_weights_24_rows", "mm_sibling_big_weights"};
  for (int e = 0; e < 6; e++) {
    kg_module *m = load(ctx, "examples/mm_sibling_projections");
    kg_compiled *c;
    /* the last: float32 at 24 rows, the concatenation copied by cp.async */
    const char *sig = e == 5 ? "float32[24,1024], float32[640,1024], float32[640,1024], float32[128,1024]" : NULL;
    cr_assert_eq(kg_specialize(m, entries[e], sig, &c), KG_OK, "%s: %s", entries[e], kg_last_error(ctx));
    const kg_kernel *kps[16];
    uint32_t nk = 0;
    for (uint32_t i = 0; i < c->fusion.groups.n && nk < 16; i++) kps[nk++] = &c->kernels[i];
    cr_expect_gt(nvrtc_expect_no_spills(nv, kps, nk, entries[e]), 0);
    kg_compiled_free(c), kg_module_free(m);
  }
  kg_context_free(ctx);
}

/* The merge plan: compiled over a symbolic batch, the products stay apart in lg (their rows are
 * unknown) and are merged in the merge plan, which a run takes when its rows are few: kernels of
 * plan 4 (named _mk) at 24 rows, the fused plan's at 70; both against PyTorch; on the CPU device
 * the products apart. Big weights: the plan at 2 rows, and at 24 where they are tensors (B by
 * cp.async; a misaligned weight through registers). (An
 * entry whose small products the fold plan folds at few rows takes that plan first:
 * mm_sibling_qkv_mlp's gate and up.) */
static const char *const F16_SIG =
    "float16[B,320], float16[128,320], float16[128], float16[64,320], float16[64], float16[72,320], float16[72]";

static int runtime_with(const kg_compiled *c, const char *tag) {
  int n = 0;
  for (uint32_t i = 0; i < c->runtime.n; i++) n += strstr(c->runtime.v[i]->k.name, tag) != NULL;
  return n;
}

/* c (compiled over a symbolic first dim) run once on dev with that dim `batch`; parameter
 * `misaligned` (or none: -1) starts one element past a 64-byte boundary */
static void run_batch_at(kg_compiled *c, int64_t batch, kg_device_kind dev, int misaligned) {
  const kg_graph *g = &c->g;
  uint32_t np = g->params.n;
  cr_assert_leq(np, 8);
  kg_npy in[8];
  DLTensor v[8];
  const DLTensor *ins[8];
  int64_t shapes[8][KG_MAX_RANK];
  for (uint32_t p = 0; p < np; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    int64_t *shape = shapes[p], numel = 1;
    for (int d = 0; d < n->shape.rank; d++) shape[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : batch, numel *= shape[d];
    if ((int)p == misaligned) { /* one element more, the view past the first */
      int64_t flat = numel + 1;
      cr_assert_eq(kg_npy_random(&in[p], n->dtype, 1, &flat, 40 + p, false), 0);
      kg_npy_dlview(&in[p], &v[p]);
      v[p].ndim = n->shape.rank, v[p].shape = shape, v[p].strides = NULL, v[p].byte_offset = kg_dtype_get((kg_dtype)n->dtype)->size;
    } else {
      cr_assert_eq(kg_npy_random(&in[p], n->dtype, n->shape.rank, shape, 40 + p, false), 0);
      kg_npy_dlview(&in[p], &v[p]);
    }
    ins[p] = &v[p];
  }
  int no = kg_compiled_n_outputs(c);
  cr_assert_leq(no, 4);
  kg_npy outs[4];
  DLTensor ov[4], *op[4];
  for (int o = 0; o < no; o++) {
    DLDataType dt;
    int nd;
    int64_t shp[KG_MAX_RANK];
    cr_assert_eq(kg_compiled_output(c, o, &dt, &nd, shp), KG_OK);
    for (int d = 0; d < nd; d++)
      if (shp[d] < 0) shp[d] = batch;
    cr_assert(dt.code == kDLFloat && (dt.bits == 16 || dt.bits == 32));
    cr_assert_eq(kg_npy_random(&outs[o], dt.bits == 16 ? KG_F16 : KG_F32, nd, shp, 1, false), 0);
    kg_npy_dlview(&outs[o], &ov[o]);
    op[o] = &ov[o];
  }
  cr_assert_eq(kg_run(c, dev, ins, (int)np, NULL, 0, op, no, NULL), KG_OK, "%s", kg_last_error(c->m->ctx));
  for (int o = 0; o < no; o++) kg_npy_free(&outs[o]);
  for (uint32_t p = 0; p < np; p++) kg_npy_free(&in[p]);
}
static void run_batch(kg_compiled *c, int64_t batch, kg_device_kind dev) { run_batch_at(c, batch, dev, -1); }

Test(merge_products, merge_plan_at_symbolic_rows, .init = setup, .fini = teardown, .timeout = 300) {
  kg_context *ctx = ctx_forced(0);
  kg_module *m = load(ctx, "examples/mm_sibling_projections");
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, "mm_sibling_f16_tensor_cores", F16_SIG, &c), KG_OK, "%s", kg_last_error(ctx));
  catprod cp[4];
  cr_expect_eq(cat_products(&c->lg, cp, 4), 0, "symbolic rows: apart when compiled");
  cr_assert(kg_compiled_wants_merge(c));
  int n = cat_products(&c->lg_merge, cp, 4);
  cr_expect_eq(n, 1, "the merge plan: q, k, v merged (%d)", n);
  run_batch(c, 24, KG_DEVICE_EMU);
  cr_expect_gt(runtime_with(c, "_mk"), 0, "24 rows: the merge plan's kernels");
  int fused = runtime_with(c, "cores_k");
  run_batch(c, 70, KG_DEVICE_EMU);
  cr_expect_gt(runtime_with(c, "cores_k"), fused, "70 rows: the fused plan's kernels");
  int merged = runtime_with(c, "_mk");
  run_batch(c, 24, KG_DEVICE_CPU);
  cr_expect_eq(runtime_with(c, "_mk"), merged, "the CPU device: not the merge plan");
  kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  /* the weights at run time: 5.8 MB of weights, all three merged in the merge plan; taken at 2
   * rows (the SIMT tiles) and, for float32 tensors (cp.async copies them a row at a time), at 24;
   * for float16 weights cast to float32 (evaluated into registers) not at 24 rows (past
   * KG_MERGE_SIBLING_BYTES) */
  const char *big[][2] = {{"mm_sibling_big_weights", "float32[B,1024], float32[640,1024], float32[640,1024], float32[128,1024]"},
                          {"mm_sibling_cast_weights_24_rows", "float32[B,1024], float16[640,1024], float16[640,1024], float16[128,1024]"}};
  for (int e = 0; e < 2; e++) {
    ctx = ctx_forced(0);
    m = load(ctx, "examples/mm_sibling_projections");
    cr_assert_eq(kg_specialize(m, big[e][0], big[e][1], &c), KG_OK, "%s", kg_last_error(ctx));
    cr_assert(kg_compiled_wants_merge(c));
    n = cat_products(&c->lg_merge, cp, 4);
    cr_expect(n == 1 && cp[0].n_in == 3, "%s: the merge plan merges the three weights (%d)", big[e][0], n);
    run_batch(c, 2, KG_DEVICE_EMU);
    merged = runtime_with(c, "_mk");
    cr_expect_gt(merged, 0, "%s, 2 rows: the merge plan's kernels", big[e][0]);
    run_batch(c, 24, KG_DEVICE_EMU);
    if (e == 0) cr_expect_gt(runtime_with(c, "_mk"), merged, "%s, 24 rows: the merge plan's kernels", big[e][0]);
    else cr_expect_eq(runtime_with(c, "_mk"), merged, "%s, 24 rows: not the merge plan", big[e][0]);
    /* mma.sync's B: the concatenation K-major and copied by cp.async (_b3), or the casts in registers (_b1) */
    cr_expect_eq(runtime_with(c, "_b3") > 0, e == 0, "%s, 24 rows: B by cp.async (%d)", big[e][0], runtime_with(c, "_b3"));
    if (e == 0) { /* w2 four bytes past an alignment: its rows cannot be copied, the concatenation is staged in registers */
      int b1 = runtime_with(c, "_b1");
      run_batch_at(c, 24, KG_DEVICE_EMU, 2);
      cr_expect_gt(runtime_with(c, "_b1"), b1, "%s, 24 rows, w2 misaligned: B through registers", big[e][0]);
    }
    kg_compiled_free(c), kg_module_free(m), kg_context_free(ctx);
  }
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  /* against PyTorch: float16 at 24 rows (the merge plan, B by cp.async) and 70 (apart); float32
   * split-TF32 with the big weights' concatenation copied by cp.async at 24 rows */
  const char *names[] = {"B"};
  const long long sizes[] = {24, 70, 24};
  for (int s = 0; s < 3; s++) {
    ctx = ctx_forced(0);
    m = load(ctx, "examples/mm_sibling_projections");
    kg_check_opts co;
    memset(&co, 0, sizeof co);
    co.entry = s < 2 ? "mm_sibling_f16_tensor_cores" : big[0][0], co.sig = s < 2 ? F16_SIG : big[0][1], co.device = KG_DEVICE_EMU, co.seed = 21;
    co.size_names = names, co.size_vals = &sizes[s], co.n_sizes = 1;
    kg_check_result r;
    cr_assert_eq(kg_check_module(ctx, orc, m, &co, &r), KG_OK, "B=%lld: %s", sizes[s], kg_last_error(ctx));
    for (int k = 0; k < r.n_outputs; k++) cr_expect(r.rows[k].ok, "B=%lld out%d: %s", sizes[s], k, r.rows[k].verdict);
    kg_check_result_free(&r);
    kg_module_free(m), kg_context_free(ctx);
  }
}
