/* tests/test_einsum.c — einsum, outer and linspace (issue 11): the contraction claims (attention
 * scores written with einsum are one product kernel with its scale, reading k transposed in
 * place), '...' (result shapes and PyTorch's errors for bad equations, located), and the
 * examples (examples/einsum_contract, einsum_ellipsis, linspace_gen) re-specialized at other
 * signatures — sizes 0 and 1, odd and symbolic sizes, other dtypes — against PyTorch. The
 * examples' own signatures run in tests/test_examples.c; their three-way check against
 * TorchSharp's own einsum runs in the .NET suite. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"

static kg_oracle *orc;
static void setup(void) {
  kg_diag d;
  kg_diag_init(&d);
  orc = kg_oracle_start(&d);
  kg_diag_free(&d);
}
static void teardown(void) {
  if (orc) kg_oracle_stop(orc);
  orc = NULL;
}

static kg_context *ctx_new(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

static kg_module *load(kg_context *ctx, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, name);
  kg_module *m = NULL;
  cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  return m;
}

static void check_at(const char *name, const char *entry, const char *sig) {
  if (!orc) cr_skip_test("no PyTorch oracle (/usr/bin/python3 with torch)");
  kg_context *ctx = ctx_new();
  kg_module *m = load(ctx, name);
  kg_check_opts co;
  memset(&co, 0, sizeof co);
  co.entry = entry, co.sig = sig, co.device = KG_DEVICE_EMU, co.seed = 11;
  kg_check_result r;
  kg_status s = kg_check_module(ctx, orc, m, &co, &r);
  cr_assert_eq(s, KG_OK, "%s [%s] at %s: %s", name, entry, sig ? sig : "its signature", kg_last_error(ctx));
  for (int k = 0; k < r.n_outputs; k++)
    cr_expect(r.rows[k].ok, "%s [%s] at %s: out%d %s %s: %s", name, entry, sig ? sig : "its signature", k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict);
  kg_check_result_free(&r);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(einsum, attention_scores_are_one_product) {
  /* the tiled plan (its small p @ v would otherwise fold into a pointwise kernel) */
  kg_options o;
  memset(&o, 0, sizeof o);
  o.force_variant = KG_FORCE_TILED;
  kg_context *ctx = kg_context_new(&o);
  kg_module *m = load(ctx, "einsum_contract");
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, "einsum_attention", NULL, &c), KG_OK, "%s", kg_last_error(ctx));
  /* scores (product + scale), softmax, probabilities @ v: the three kernels of attention */
  cr_expect_eq(c->fusion.groups.n, 3u, "einsum attention: %u kernels", c->fusion.groups.n);
  uint32_t mm = 0, copies = 0;
  for (uint32_t i = 0; i < c->lg.nodes.n; i++) mm += c->lg.nodes.v[i].op == KG_OP_MATMUL;
  for (uint32_t i = 0; i < c->fusion.groups.n; i++) copies += c->fusion.groups.v[i].kind == KG_GROUP_POINTWISE;
  cr_expect_eq(mm, 2u, "two contractions, two products");
  cr_expect_eq(copies, 0u, "no pointwise copy of a permuted operand");
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(einsum, edge_sizes_against_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  check_at("einsum_contract", "einsum_attention", "float32[1,1,1,1], float32[1,1,1,1], float32[1,1,1,1]");
  check_at("einsum_contract", "einsum_attention", "float32[2,1,0,5], float32[2,1,3,5], float32[2,1,3,5]");
  check_at("einsum_contract", "einsum_attention", "float32[B,2,3,4], float32[B,2,5,4], float32[B,2,5,4]");
  check_at("einsum_contract", "einsum_attention", "float64[1,2,3,4], float64[1,2,5,4], float64[1,2,5,4]");
  check_at("einsum_contract", "einsum_forms", "float32[1,1,1], float32[1,1,2], float32[2,2]");
  check_at("einsum_contract", "einsum_forms", "float32[0,3,2], float32[0,2,2], float32[5,5]");
  check_at("einsum_contract", "einsum_forms", "int64[2,3,4], int64[2,4,2], int64[3,3]");
  /* symbolic kept letters merged into one dim (bi of bik,kl->bil): the derived size B*I */
  check_at("einsum_contract", "einsum_forms", "float32[B,I,5], float32[B,5,2], float32[4,4]");
  check_at("einsum_contract", "einsum_outer", "float32[0], float32[1], int32[1], int32[3]");
  check_at("einsum_contract", "einsum_outer", "float64[N], float64[M], uint8[2], uint8[2]");
  check_at("linspace_gen", "linspace_gen", "float32[1,7]");
  check_at("linspace_gen", "linspace_gen", "float32[0,7]");
  check_at("linspace_gen", "linspace_gen", "float32[2,7]");
}

/* examples/einsum_ellipsis at other signatures: '...' covering no dims, size-1 dims broadcast
 * against larger ones, operands whose '...' cover different numbers of dims, empty and symbolic sizes */
Test(einsum, ellipsis_against_pytorch, .init = setup, .fini = teardown, .timeout = 600) {
  check_at("einsum_ellipsis", "ellipsis_attention", "float32[5,4], float32[6,4]");
  check_at("einsum_ellipsis", "ellipsis_attention", "float32[2,1,5,4], float32[3,6,4]");
  check_at("einsum_ellipsis", "ellipsis_attention", "float32[B,1,0,4], float32[B,2,3,4]");
  check_at("einsum_ellipsis", "ellipsis_forms", "float32[1,3,4], float32[4,2], float32[2,0], float32[2,1,0], float32[3,3]");
  check_at("einsum_ellipsis", "ellipsis_forms", "float32[3,4], float32[2,1,4,1], float32[1,3], float32[1,2,1], float32[1,1]");
}

/* A document with one entry f(x0, x1, ...) = torch.einsum(eq, x0, x1, ...) at the float32 shapes
 * given as JSON arrays ("[2,3]"); the operands are `body` (x0 when NULL) and the other params. */
static char *einsum_doc(const char *eq, int n, const char *const *shapes, const char *body) {
  char vars[2048] = "", sig[2048] = "", items[2048] = "", ty[1200] = "TorchSharp.torch+Tensor";
  for (int i = 0; i < n; i++) {
    char b[256];
    snprintf(b, sizeof b, "%s{\"name\":\"x%d\",\"type\":\"TorchSharp.torch+Tensor\",\"mutable\":false}", i ? "," : "", i);
    strcat(vars, b);
    snprintf(b, sizeof b, "%s{\"dtype\":\"float32\",\"shape\":%s}", i ? "," : "", shapes[i]);
    strcat(sig, b);
    if (i) strcat(items, ",");
    if (i == 0 && body) strcat(items, body);
    else snprintf(items + strlen(items), sizeof items - strlen(items), "{\"k\":\"Var\",\"ty\":\"TorchSharp.torch+Tensor\",\"var\":%d}", i);
  }
  /* curried lambda types, innermost first */
  char *expr = malloc(strlen(items) + 4096);
  sprintf(expr,
          "{\"k\":\"Call\",\"ty\":\"TorchSharp.torch+Tensor\",\"obj\":null,\"method\":{\"decl\":\"TorchSharp.torch\",\"name\":\"einsum\",\"static\":true,"
          "\"params\":[\"System.String\",\"TorchSharp.torch+Tensor[]\"],\"ret\":\"TorchSharp.torch+Tensor\",\"genericArgs\":[]},"
          "\"args\":[{\"k\":\"Value\",\"ty\":\"System.String\",\"value\":\"%s\"},{\"k\":\"NewArray\",\"ty\":\"TorchSharp.torch+Tensor[]\","
          "\"elemType\":\"TorchSharp.torch+Tensor\",\"items\":[%s]}]}",
          eq, items);
  for (int i = n - 1; i >= 0; i--) {
    char nty[sizeof ty + 64];
    if (strlen(ty) > 1000) break; /* (n is at most 2 here) */
    snprintf(nty, sizeof nty, "Microsoft.FSharp.Core.FSharpFunc`2[TorchSharp.torch+Tensor,%s]", ty);
    char *e = malloc(strlen(expr) + 2048);
    sprintf(e, "{\"k\":\"Lambda\",\"ty\":\"%s\",\"var\":%d,\"body\":%s}", nty, i, expr);
    free(expr);
    expr = e;
    size_t len = strlen(nty);
    if (len >= sizeof ty) break;
    memcpy(ty, nty, len + 1);
  }
  char *doc = malloc(strlen(expr) + 8192);
  sprintf(doc, "{\"format\":\"kgen-quotation\",\"version\":1,\"vars\":[%s],\"entries\":[{\"name\":\"f\",\"signature\":{\"params\":[%s]},\"expr\":%s}]}",
          vars, sig, expr);
  free(expr);
  return doc;
}

/* einsum(eq) at shapes: KG_OK and the result's shape printed into got, or the error into got */
static kg_status einsum_try(kg_context *ctx, const char *eq, int n, const char *const *shapes, char *got, size_t cap) {
  char *doc = einsum_doc(eq, n, shapes, NULL);
  kg_module *m = NULL;
  kg_status s = kg_module_load(ctx, doc, strlen(doc), &m);
  free(doc);
  cr_assert_eq(s, KG_OK, "%s: %s", eq, kg_last_error(ctx));
  kg_compiled *c = NULL;
  s = kg_specialize(m, "f", NULL, &c);
  if (s != KG_OK) {
    snprintf(got, cap, "%s", kg_last_error(ctx));
  } else {
    const kg_gnode *o = &c->g.nodes.v[c->g.outputs.v[0]];
    size_t k = (size_t)snprintf(got, cap, "(");
    for (int i = 0; i < o->shape.rank; i++) k += (size_t)snprintf(got + k, cap - k, "%s%lld", i ? ", " : "", (long long)o->shape.d[i].v);
    snprintf(got + k, cap - k, "%s)", o->shape.rank == 1 ? "," : "");
    kg_compiled_free(c);
  }
  kg_module_free(m);
  return s;
}

/* '...': result shapes and PyTorch's errors for bad equations (the shapes and messages are
 * torch.einsum's, PyTorch 1.13: its message lacks a space before "has size", kgen's has it) */
Test(einsum, ellipsis_shapes_and_errors) {
  static const struct {
    const char *eq;
    int n;
    const char *shapes[2];
    const char *want; /* a shape "(2, 3)", or a substring of the error */
  } cases[] = {
    {"...ij,...jk", 2, {"[2,3,4]", "[4,5]"}, "(2, 3, 5)"},
    {"...ij,...ij->...", 2, {"[2,1,3,4]", "[5,3,4]"}, "(2, 5)"},
    {"b...,b...->b", 2, {"[2,3]", "[2,1,3]"}, "(2,)"},
    {"...qd,...kd->...qk", 2, {"[2,3,5,4]", "[1,3,6,4]"}, "(2, 3, 5, 6)"},
    {"ij...->...", 1, {"[2,3,4]"}, "(4,)"},
    {"ij->...", 1, {"[2,3]"}, "()"},
    {"...ij->ij", 1, {"[5,2,3]"}, "(2, 3)"},
    {"...->...", 1, {"[]"}, "()"},
    {"...", 1, {"[2,3]"}, "(2, 3)"},
    {"i...,j->...ij", 2, {"[2,3]", "[4]"}, "(3, 2, 4)"},
    {"i...j", 1, {"[2,3]"}, "(2, 3)"},
    {"...ii->...i", 1, {"[2,3,3]"}, "(2, 3)"},
    {"ji...", 1, {"[2,3,4]"}, "(4, 3, 2)"},
    {"....ij", 1, {"[2,3,4]"}, "found '.' for operand 0 for which an ellipsis was already found"},
    {"..ij", 1, {"[2,3,4]"}, "found '.' for operand 0 that is not part of any ellipsis"},
    {"...i...j", 1, {"[2,3,4]"}, "found '.' for operand 0 for which an ellipsis was already found"},
    {"i.j", 1, {"[2,3,4]"}, "found '.' for operand 0 that is not part of any ellipsis"},
    {"ij,ij..->", 2, {"[2,3]", "[2,3]"}, "found '.' for operand 1 that is not part of any ellipsis"},
    {"ij...", 1, {"[2]"}, "the number of subscripts in the equation (2) is more than the number of dimensions (1) for operand 0"},
    {"i...->...i...", 1, {"[2,3,4]"}, "found '.' for output but an ellipsis (...) was already found"},
    {"a->.a", 1, {"[2]"}, "found '.' for output that is not part of any ellipsis (...)"},
    {"...ij,...ij->...", 2, {"[2,3,4]", "[5,3,4]"},
     "dimension 0 covered by ellipsis in operand 1 has size 5 which does not broadcast with previously seen ellipsis with size 2"},
    {"...ij,...ij", 2, {"[6,4,5]", "[2,3,4,5]"},
     "dimension 1 covered by ellipsis in operand 1 has size 3 which does not broadcast with previously seen ellipsis with size 6"},
  };
  kg_context *ctx = ctx_new();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char got[1024];
    kg_status s = einsum_try(ctx, cases[i].eq, cases[i].n, cases[i].shapes, got, sizeof got);
    if (cases[i].want[0] == '(') {
      cr_expect_eq(s, KG_OK, "%s: %s", cases[i].eq, got);
      cr_expect_str_eq(got, cases[i].want, "%s", cases[i].eq);
    } else {
      cr_expect_neq(s, KG_OK, "%s: accepted (%s)", cases[i].eq, got);
      cr_expect(strstr(got, cases[i].want) != NULL, "%s: got \"%s\", want \"%s\"", cases[i].eq, got, cases[i].want);
      cr_expect(strstr(got, "$.entries[0]") != NULL, "%s: the error is located: %s", cases[i].eq, got);
    }
  }
  kg_context_free(ctx);
}

/* A diagonal whose pair of dims must be moved last (a permute) read the operand's size through
 * a pointer into the node array after the permute's node was added: a heap-use-after-free when
 * that add reallocates the array. The chain of k neg() before the einsum sweeps the node count
 * so that for some k the permute's add is the one that reallocates (the AddressSanitizer pass of
 * tools/test.sh then trips on the old code; a KGEN_VEC_MOVE build trips for every k). */
Test(einsum, diagonal_after_node_array_growth) {
  kg_context *ctx = ctx_new();
  for (int k = 0; k < 40; k++) {
    size_t cap = 4096;
    char *x = malloc(cap);
    snprintf(x, cap, "{\"k\":\"Var\",\"ty\":\"TorchSharp.torch+Tensor\",\"var\":0}");
    for (int i = 0; i < k; i++) {
      char *y = malloc(strlen(x) + 512);
      sprintf(y, "{\"k\":\"Call\",\"ty\":\"TorchSharp.torch+Tensor\",\"obj\":%s,\"method\":{\"decl\":\"TorchSharp.torch+Tensor\","
                 "\"name\":\"neg\",\"static\":false,\"params\":[],\"ret\":\"TorchSharp.torch+Tensor\",\"genericArgs\":[]},\"args\":[]}", x);
      free(x);
      x = y;
    }
    char *doc = malloc(strlen(x) + 2048);
    sprintf(doc,
            "{\"format\":\"kgen-quotation\",\"version\":1,\"vars\":[{\"name\":\"x\",\"type\":\"TorchSharp.torch+Tensor\",\"mutable\":false}],"
            "\"entries\":[{\"name\":\"f\",\"signature\":{\"params\":[{\"dtype\":\"float32\",\"shape\":[3,2,3]}]},\"expr\":"
            "{\"k\":\"Lambda\",\"ty\":\"Microsoft.FSharp.Core.FSharpFunc`2[TorchSharp.torch+Tensor,TorchSharp.torch+Tensor]\",\"var\":0,\"body\":"
            "{\"k\":\"Call\",\"ty\":\"TorchSharp.torch+Tensor\",\"obj\":null,\"method\":{\"decl\":\"TorchSharp.torch\",\"name\":\"einsum\",\"static\":true,"
            "\"params\":[\"System.String\",\"TorchSharp.torch+Tensor[]\"],\"ret\":\"TorchSharp.torch+Tensor\",\"genericArgs\":[]},"
            "\"args\":[{\"k\":\"Value\",\"ty\":\"System.String\",\"value\":\"iji->j\"},{\"k\":\"NewArray\",\"ty\":\"TorchSharp.torch+Tensor[]\","
            "\"elemType\":\"TorchSharp.torch+Tensor\",\"items\":[%s]}]}}}]}",
            x);
    free(x);
    kg_module *m = NULL;
    cr_assert_eq(kg_module_load(ctx, doc, strlen(doc), &m), KG_OK, "%s", kg_last_error(ctx));
    kg_compiled *c = NULL;
    cr_assert_eq(kg_specialize(m, "f", NULL, &c), KG_OK, "k = %d: %s", k, kg_last_error(ctx));
    cr_expect_eq(c->g.outputs.n, 1u);
    const kg_gnode *o = &c->g.nodes.v[c->g.outputs.v[0]];
    cr_expect(o->shape.rank == 1 && o->shape.d[0].v == 2, "k = %d: iji->j of [3,2,3] is [2]", k);
    kg_compiled_free(c);
    kg_module_free(m);
    free(doc);
  }
  kg_context_free(ctx);
}
