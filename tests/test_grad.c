/* tests/test_grad.c — gradients (issue 24): reverse-mode differentiation compiled into kernels.
 *  - structure: the backward's kernels (softmax / log_softmax / layer_norm backwards are row
 *    kernels; pointwise chains fuse; products' gradients are products), what the forward saves
 *    (dropout's mask and relu's input recomputed from the parameters, nothing written);
 *  - refusals located at the F# call: host control flow, a map lambda, an in-place update of a
 *    parameter that wants its gradient;
 *  - numbers: tests/grad/grad_structure.fs's entries against PyTorch's autograd of the twin and
 *    float64 finite differences, at their signatures and at other sizes;
 *  - every example: each entry of examples/ with a floating tensor parameter has its gradients
 *    checked against the twin's autograd (in four parts, run in parallel by the suite); an entry
 *    kgen refuses to differentiate must be refused for a documented reason. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"
#include "tests/oracle_fixture.h"


static const char *const GS = "tests/grad/grad_structure";

/* the entry compiled for the gradients of every floating parameter at sig (NULL: its own) */
static kg_compiled *grad_of(kg_context *ctx, kg_module *m, const char *entry, const char *sig) {
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize_grad_sig(m, entry, sig, &c), KG_OK, "%s: %s", entry, kg_last_error(ctx));
  cr_assert_not_null(kg_compiled_backward(c));
  return c;
}

/* groups of kind `kind` in a compiled program */
static uint32_t groups(const kg_compiled *c, int kind) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->fusion.groups.n; i++) n += c->fusion.groups.v[i].kind == kind;
  return n;
}

Test(grad_structure, backwards_fuse_into_row_kernels_and_products) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, GS);
  /* softmax / log_softmax: the backward is one row kernel (sum over the row, then the row output) */
  const char *rows[] = {"softmax_rows", "log_softmax_rows"};
  for (int i = 0; i < 2; i++) {
    kg_compiled *c = grad_of(ctx, m, rows[i], NULL);
    cr_expect_eq(kg_compiled_n_kernels(c->bwd), 1, "%s: the backward is one kernel, got %d", rows[i], kg_compiled_n_kernels(c->bwd));
    cr_expect_eq(groups(c->bwd, KG_GROUP_REDUCE), 1u, "%s: a row kernel", rows[i]);
    kg_compiled_free(c);
  }
  /* layer_norm: the input's gradient one row kernel over the normalized dim; the weight's and
   * bias's column sums */
  kg_compiled *c = grad_of(ctx, m, "layer_norm_affine", NULL);
  uint32_t row = 0;
  for (uint32_t i = 0; i < c->bwd->fusion.groups.n; i++) {
    const kg_group *gp = &c->bwd->fusion.groups.v[i];
    if (gp->kind == KG_GROUP_REDUCE && c->bwd->lg.nodes.v[gp->red].ia[0] == 2) row++;
  }
  cr_expect_eq(row, 1u, "layer_norm: one row kernel for the input's gradient");
  cr_expect_leq(kg_compiled_n_kernels(c->bwd), 3, "layer_norm's backward: %d kernels", kg_compiled_n_kernels(c->bwd));
  kg_compiled_free(c);
  /* linear + relu over [4, 8, 32]: two products (dx = g·W, dW = gᵀ·x over the folded batch), the
   * bias's gradient a sum; relu's mask in the products' prologues */
  c = grad_of(ctx, m, "linear_relu", NULL);
  uint32_t prods = 0;
  bool dw_2d = false;
  for (uint32_t i = 0; i < c->bwd->lg.nodes.n; i++) { /* tiled, or folded into their readers (small: passes/fold_products.c) */
    const kg_gnode *n = &c->bwd->lg.nodes.v[i];
    if (n->op != KG_OP_MATMUL && n->op != KG_OP_MMFOLD) continue;
    prods++;
    if (n->shape.rank == 2 && n->shape.d[0].v == 48 && n->shape.d[1].v == 32) dw_2d = true;
  }
  cr_expect_eq(prods, 2u, "linear: two products in the backward, got %u", prods);
  cr_expect(dw_2d, "the weight's gradient is one [48, 32] product (the batch folded into its K)");
  cr_expect_leq(kg_compiled_n_kernels(c->bwd), 3, "linear's backward: %d kernels", kg_compiled_n_kernels(c->bwd));
  kg_compiled_free(c);
  /* dropout and relu: the forward saves nothing; the backward draws the same mask again */
  c = grad_of(ctx, m, "bias_relu_dropout", NULL);
  cr_expect_eq(kg_compiled_n_saved(c), 0, "dropout: the mask is drawn again, not saved (%d saved)", kg_compiled_n_saved(c));
  cr_expect_eq(kg_compiled_n_kernels(c), 1, "the forward is one kernel");
  cr_expect_gt(kg_compiled_rng_streams(c->bwd), 0u, "the backward draws");
  kg_compiled_free(c);
  /* cross_entropy: the backward is one pointwise kernel over [N, 10] (softmax - onehot) */
  c = grad_of(ctx, m, "ce_loss", NULL);
  cr_expect_eq(kg_compiled_n_kernels(c->bwd), 1, "cross_entropy's backward: %d kernels", kg_compiled_n_kernels(c->bwd));
  kg_compiled_free(c);
  /* convolution: its input's gradient a transposed convolution and its weight's a product: two
   * products; the pool's gradient read in place by them */
  c = grad_of(ctx, m, "conv_relu_pool", NULL);
  prods = 0;
  for (uint32_t i = 0; i < c->bwd->lg.nodes.n; i++) prods += c->bwd->lg.nodes.v[i].op == KG_OP_MATMUL || c->bwd->lg.nodes.v[i].op == KG_OP_MMFOLD;
  cr_expect_eq(prods, 2u, "conv: two products in the backward, got %u", prods);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(grad_structure, explain_says_what_is_saved_and_recomputed) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, GS);
  kg_compiled *c = grad_of(ctx, m, "linear_relu", NULL);
  char *t;
  size_t len;
  cr_assert_eq(kg_emit(c, KG_ART_EXPLAIN, 0, &t, &len), KG_OK);
  cr_expect(strstr(t, "== gradients: saved by the forward for the backward") != NULL);
  cr_expect(strstr(t, "== gradients: recomputed by the backward") != NULL);
  cr_expect(strstr(t, "== gradients: the backward") != NULL);
  free(t);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

static void expect_refused(kg_module *m, kg_context *ctx, const char *entry, const uint8_t *wants, int n_in, const char *want) {
  /* tensors of the entry's own signature: specialize plainly, make host tensors */
  kg_compiled *c0 = NULL;
  cr_assert_eq(kg_specialize(m, entry, NULL, &c0), KG_OK, "%s", kg_last_error(ctx));
  kg_npy a[4];
  DLTensor v[4];
  const DLTensor *ins[4];
  memset(a, 0, sizeof a);
  const kg_graph *g = kg_compiled_graph(c0);
  for (int i = 0; i < n_in; i++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[i].node];
    int64_t sh[KG_MAX_RANK];
    int r = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    for (int d = 0; d < r; d++) sh[d] = n->shape.d[d].v;
    cr_assert_eq(kg_npy_random(&a[i], n->dtype, r, sh, 1 + (uint64_t)i, false), 0);
    kg_npy_dlview(&a[i], &v[i]);
    ins[i] = &v[i];
  }
  kg_compiled *c = NULL;
  kg_status s = kg_specialize_grad(m, entry, ins, n_in, NULL, 0, 0, wants, &c);
  cr_expect_eq(s, KG_ERR_INPUT, "%s: gradients compiled", entry);
  cr_expect(strstr(kg_last_error(ctx), want) != NULL, "%s: wanted '%s' in:\n%s", entry, want, kg_last_error(ctx));
  cr_expect(strstr(kg_last_error(ctx), ".fs:") != NULL, "located at the F# source:\n%s", kg_last_error(ctx));
  if (c) kg_compiled_free(c);
  for (int i = 0; i < n_in; i++) kg_npy_free(&a[i]);
  kg_compiled_free(c0);
}

Test(grad_errors, refusals_are_located) {
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, GS);
  const uint8_t all[4] = {1, 1, 1, 1}, second[4] = {0, 1, 0, 0};
  expect_refused(m, ctx, "map_lambda", all, 1, "map lambda (Kgen.Ops.map)");
  expect_refused(m, ctx, "host_loop", all, 2, "control flow over tensors");
  expect_refused(m, ctx, "inplace_param", all, 2, "'x' requires grad and is updated in place");
  /* x updated in place but only y wanted: fine, as PyTorch's y.grad with x a buffer */
  kg_compiled *c0 = NULL;
  cr_assert_eq(kg_specialize(m, "inplace_param", NULL, &c0), KG_OK);
  kg_compiled_free(c0);
  (void)second;
  kg_module_free(m);
  kg_context_free(ctx);
}

/* entry of document `path` at sig against PyTorch: the results, and the gradients against the
 * twin's autograd and finite differences */
static void grad_check(const char *path, const char *entry, const char *sig) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, path);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_EMU, co.seed = 11, co.grad = true, co.fd = true;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s [%s] at %s: %s", path, entry, sig ? sig : "its signature", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++) cr_expect(r.rows[k].ok, "%s [%s]: out%d: %s", path, entry, k, r.rows[k].verdict);
  for (int k = 0; k < r.n_grads; k++)
    cr_expect(r.grad_rows[k].ok && r.grad_rows[k].fd_ok, "%s [%s] at %s: %s %s %s: %s %s", path, entry, sig ? sig : "its signature", r.grad_names[k],
              r.grad_rows[k].dtype, r.grad_rows[k].shape, r.grad_rows[k].verdict, r.grad_rows[k].fd_verdict);
  cr_expect_gt(r.n_grads, 0, "%s [%s]: no gradient checked", path, entry);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(grad_numbers, structure_entries_match_autograd, .init = setup, .fini = teardown, .timeout = 600) {
  static const char *const e[] = {"softmax_rows", "log_softmax_rows", "layer_norm_affine", "linear_relu", "bias_relu_dropout", "ce_loss",
                                  "conv_relu_pool", "embedding_rows"};
  for (size_t i = 0; i < sizeof e / sizeof *e; i++) grad_check(GS, e[i], NULL);
  /* other sizes: one row, odd rows, a symbolic batch */
  grad_check(GS, "softmax_rows", "float32[1,64]");
  grad_check(GS, "layer_norm_affine", "float64[7,64], float64[64], float64[64]");
  grad_check(GS, "ce_loss", "float32[B,10], int64[B] in [0, 10)");
  grad_check(GS, "linear_relu", "float32[3,48], float32[5,48], float32[5]");
  grad_check(GS, "conv_relu_pool", "float32[1,2,7,9], float32[3,2,2,3], float32[3]");
}

/* ---- every example ---- */

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* a refusal the issue allows: host control flow, a map lambda, or PyTorch's own autograd failing */
static bool documented_refusal(const char *msg) {
  return strstr(msg, "control flow over tensors") || strstr(msg, "map lambda (Kgen.Ops.map)") || strstr(msg, "PyTorch does not differentiate") ||
         strstr(msg, "PyTorch's autograd of");
}

/* Under the sanitizers (tools/test.sh's second pass) every third example of a part: the kernels
 * are plain host code there and the plain pass has checked every example's gradients; what the
 * sanitizers watch — autodiff, the backward's lowering, the oracle's protocol — runs on a third
 * of each family (as tests/test_examples.c samples its numeric checks). */
#if defined(__SANITIZE_ADDRESS__)
#define KG_GRAD_STRIDE 3
#else
#define KG_GRAD_STRIDE 1
#endif

static void every_example(int part, int parts) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  DIR *dir = opendir(KG_SOURCE_DIR "/examples");
  cr_assert_not_null(dir);
  char **names = NULL;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l < 6 || strcmp(de->d_name + l - 5, ".json")) continue;
    names = realloc(names, (size_t)(n + 1) * sizeof *names);
    names[n] = malloc(l + 1);
    memcpy(names[n], de->d_name, l - 5);
    names[n++][l - 5] = 0;
  }
  closedir(dir);
  qsort(names, (size_t)n, sizeof *names, cmp);
  int checked = 0, refused = 0, failed = 0, skipped = 0;
  for (int i = part; i < n; i += parts * KG_GRAD_STRIDE) {
    char path[512];
    snprintf(path, sizeof path, "examples/%s", names[i]);
    kg_context *ctx = ctx_new();
    kg_module *m = load(ctx, path);
    for (int e = 0; e < kg_module_n_entries(m); e++) {
      const char *en = kg_module_entry_name(m, e);
      kg_check_opts co;
      memset(&co, 0, sizeof co);
      co.entry = en, co.device = KG_DEVICE_EMU, co.seed = 5, co.grad = true;
      kg_check_result r;
      kg_status s = kg_check_module(ctx, orc, m, &co, &r);
      if (s == KG_ERR_INPUT && documented_refusal(kg_last_error(ctx))) refused++;
      else if (s != KG_OK) {
        cr_log_error("%s [%s]: %s", names[i], en, kg_last_error(ctx));
        failed++;
      } else if (r.n_grads == 0) {
        skipped++; /* no floating tensor parameter */
      } else {
        checked++;
        for (int k = 0; k < r.n_grads; k++)
          if (!r.grad_rows[k].ok) {
            cr_log_error("%s [%s]: %s %s %s: %s", names[i], en, r.grad_names[k], r.grad_rows[k].dtype, r.grad_rows[k].shape, r.grad_rows[k].verdict);
            failed++;
          }
        for (int k = 0; k < r.n_outputs; k++)
          if (!r.rows[k].ok) cr_log_error("%s [%s]: out%d: %s", names[i], en, k, r.rows[k].verdict), failed++;
      }
      kg_check_result_free(&r);
    }
    kg_module_free(m);
    kg_context_free(ctx);
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  cr_log_info("gradients, part %d of %d: %d entries checked, %d refused (host control flow, map lambdas, PyTorch's own), %d without floating parameters",
              part, parts, checked, refused, skipped);
  cr_expect_eq(failed, 0, "%d gradient check(s) failed (part %d of %d)", failed, part, parts);
  cr_expect_gt(checked, 20 / KG_GRAD_STRIDE, "part %d: only %d entries' gradients checked", part, checked);
}

Test(grad_examples, part0, .init = setup, .fini = teardown, .timeout = 3600) { every_example(0, 4); }
Test(grad_examples, part1, .init = setup, .fini = teardown, .timeout = 3600) { every_example(1, 4); }
Test(grad_examples, part2, .init = setup, .fini = teardown, .timeout = 3600) { every_example(2, 4); }
Test(grad_examples, part3, .init = setup, .fini = teardown, .timeout = 3600) { every_example(3, 4); }
