/* tests/test_fe_json.c — the quotation JSON reader (frontend/json.c) and signatures
 * (frontend/sig.c).
 *
 *   golden   tests/golden/json/NAME.json → the formatted diagnostics must equal
 *            NAME.err (KG_UPDATE_GOLDEN=1 rewrites the .err files instead);
 *            each case is named after the rule it breaks.
 *   unit     the spec's Example, values, members, unsupported kinds, limits, signatures.
 *   random   thousands of byte mutations and truncations of a valid document
 *            (fixed seed): no crash, and either a document or diagnostics.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

#define GOLDEN_DIR KG_SOURCE_DIR "/tests/golden/json"

/* The spec's Example, plus "files", a "loc" and a second entry with a few values. */
static const char kg_example[] =
    "{\"format\": \"kgen-quotation\", \"version\": 1,\n"
    " \"files\": [\"Model.fs\"],\n"
    " \"vars\": [ {\"name\": \"x\", \"type\": \"TorchSharp.torch+Tensor\", \"mutable\": false},\n"
    "           {\"name\": \"b\", \"type\": \"TorchSharp.torch+Tensor\", \"mutable\": false} ],\n"
    " \"entries\": [ {\"name\": \"bias_tanh_half\",\n"
    "   \"signature\": {\"params\": [ {\"dtype\": \"float32\", \"shape\": [\"N\", 768]},\n"
    "                             {\"dtype\": \"float32\", \"shape\": [768]} ]},\n"
    "   \"expr\":\n"
    "   {\"k\": \"Lambda\", \"ty\": "
    "\"Microsoft.FSharp.Core.FSharpFunc`2[TorchSharp.torch+Tensor,Microsoft.FSharp.Core.FSharpFunc`"
    "2[TorchSharp.torch+Tensor,TorchSharp.torch+Tensor]]\", \"var\": 0, \"body\":\n"
    "    {\"k\": \"Lambda\", \"ty\": "
    "\"Microsoft.FSharp.Core.FSharpFunc`2[TorchSharp.torch+Tensor,TorchSharp.torch+Tensor]\", "
    "\"var\": 1, \"body\":\n"
    "     {\"k\": \"Call\", \"ty\": \"TorchSharp.torch+Tensor\", \"obj\": null, \"loc\": [0, 3, 5, "
    "3, 40],\n"
    "      \"method\": {\"decl\": \"Microsoft.FSharp.Core.Operators\", \"name\": \"op_Multiply\", "
    "\"static\": true,\n"
    "                 \"params\": [\"TorchSharp.torch+Tensor\", \"System.Single\"], \"ret\": "
    "\"TorchSharp.torch+Tensor\",\n"
    "                 \"genericArgs\": [\"TorchSharp.torch+Tensor\", \"System.Single\", "
    "\"TorchSharp.torch+Tensor\"]},\n"
    "      \"args\": [\n"
    "       {\"k\": \"Call\", \"ty\": \"TorchSharp.torch+Tensor\", \"obj\": null,\n"
    "        \"method\": {\"decl\": \"TorchSharp.torch\", \"name\": \"tanh\", \"static\": true,\n"
    "                   \"params\": [\"TorchSharp.torch+Tensor\"], \"ret\": "
    "\"TorchSharp.torch+Tensor\", \"genericArgs\": []},\n"
    "        \"args\": [\n"
    "         {\"k\": \"Call\", \"ty\": \"TorchSharp.torch+Tensor\", \"obj\": null,\n"
    "          \"method\": {\"decl\": \"Microsoft.FSharp.Core.Operators\", \"name\": "
    "\"op_Addition\", \"static\": true,\n"
    "                     \"params\": [\"TorchSharp.torch+Tensor\", \"TorchSharp.torch+Tensor\"], "
    "\"ret\": \"TorchSharp.torch+Tensor\",\n"
    "                     \"genericArgs\": [\"TorchSharp.torch+Tensor\", "
    "\"TorchSharp.torch+Tensor\", \"TorchSharp.torch+Tensor\"]},\n"
    "          \"args\": [ {\"k\": \"Var\", \"ty\": \"TorchSharp.torch+Tensor\", \"var\": 0},\n"
    "                    {\"k\": \"Var\", \"ty\": \"TorchSharp.torch+Tensor\", \"var\": 1} ]} ]},\n"
    "       {\"k\": \"Value\", \"ty\": \"System.Single\", \"value\": 0.5} ]}}}},\n"
    "   {\"name\": \"values\", \"expr\": {\"k\": \"NewTuple\", \"ty\": \"T\", \"items\": [\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Single\", \"value\": 0.1},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Double\", \"value\": 0.1},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Int64\", \"value\": \"-9223372036854775808\"},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.UInt64\", \"value\": \"18446744073709551615\"},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Single\", \"value\": \"-Infinity\"},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Double\", \"value\": \"NaN\"},\n"
    "     {\"k\": \"Value\", \"ty\": \"TorchSharp.torch+ScalarType\", \"value\": {\"enum\": 6, "
    "\"name\": \"Float32\"}},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Int64[]\", \"value\": {\"array\": [1, "
    "\"9007199254740993\"]}},\n"
    "     {\"k\": \"ValueWithName\", \"ty\": \"TorchSharp.torch+Tensor\", \"value\": {\"opaque\": "
    "true}, \"name\": \"w\"},\n"
    "     {\"k\": \"Value\", \"ty\": \"Microsoft.FSharp.Core.Unit\", \"value\": null},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Boolean\", \"value\": true},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.String\", \"value\": \"hi\"},\n"
    "     {\"k\": \"Value\", \"ty\": \"System.Byte\", \"value\": 255},\n"
    "     {\"k\": \"PropertyGet\", \"ty\": \"System.Int64[]\", \"obj\": {\"k\": \"Var\", \"ty\": "
    "\"TorchSharp.torch+Tensor\", \"var\": 0},\n"
    "      \"property\": {\"decl\": \"TorchSharp.torch+Tensor\", \"name\": \"shape\", \"static\": "
    "false, \"params\": [], \"ret\": \"System.Int64[]\", \"genericArgs\": []},\n"
    "      \"args\": []},\n"
    "     {\"k\": \"FieldGet\", \"ty\": \"TorchSharp.torch+ScalarType\", \"obj\": null,\n"
    "      \"field\": {\"decl\": \"TorchSharp.torch\", \"name\": \"float32\", \"static\": true}} "
    "]}} ],\n"
    " \"definitions\": [ {\"member\": {\"decl\": \"M\", \"name\": \"f\", \"static\": true, "
    "\"params\": [\"System.Single\", \"System.Int32\"], \"ret\": \"System.Single\"},\n"
    "                    \"expr\": {\"k\": \"DefaultValue\", \"ty\": \"System.Single\"}} ]}\n";

static kg_doc *read_doc(kg_arena *a, kg_diag *d, const char *text, const kg_fe_limits *lim) {
  return kg_fe_read(a, text, strlen(text), lim, d);
}

/* Reads `text`; returns the formatted diagnostics (malloc'd, "" when it parsed). */
static char *read_errors(const char *text, size_t len, const kg_fe_limits *lim) {
  kg_arena a;
  kg_diag d;
  kg_arena_init(&a);
  kg_diag_init(&d);
  kg_doc *doc = kg_fe_read(&a, text, len, lim, &d);
  char *out = kg_diag_format(&d);
  cr_assert((doc == NULL) == (d.n > 0), "NULL iff diagnostics: doc %p, %u diagnostics", (void *)doc,
            d.n);
  kg_diag_free(&d);
  kg_arena_free(&a);
  return out;
}

Test(fe_json, example_document) {
  kg_arena a;
  kg_diag d;
  kg_arena_init(&a);
  kg_diag_init(&d);
  kg_doc *doc = read_doc(&a, &d, kg_example, NULL);
  char *errs = kg_diag_format(&d);
  cr_assert_not_null(doc, "%s", errs);
  free(errs);
  cr_assert_eq(doc->n_vars, 2);
  cr_assert_str_eq(doc->vars[1].name, "b");
  cr_assert_eq(doc->n_entries, 2);
  cr_assert_eq(doc->n_files, 1);
  const kg_doc_entry *e = &doc->entries[0];
  cr_assert_str_eq(e->name, "bias_tanh_half");
  cr_assert_str_eq(e->path, "$.entries[0]");

  /* signature */
  cr_assert_not_null(e->sig);
  cr_assert_eq(e->sig->n_params, 2);
  cr_assert_eq(e->sig->params[0].dtype, KG_F32);
  cr_assert_eq(e->sig->params[0].rank, 2);
  cr_assert_eq(e->sig->params[0].dims[0].kind, KG_DIM_SYM);
  cr_assert_str_eq(e->sig->params[0].dims[0].sym, "N");
  cr_assert_eq(e->sig->params[0].dims[1].kind, KG_DIM_STATIC);
  cr_assert_eq(e->sig->params[0].dims[1].size, 768);

  /* Lambda x -> Lambda b -> op_Multiply(tanh(x + b), 0.5f) */
  const kg_ast *l0 = e->expr;
  cr_assert_eq(l0->k, KG_AST_Lambda);
  cr_assert_eq(l0->var, 0);
  cr_assert_str_eq(l0->path, "$.entries[0].expr");
  const kg_ast *l1 = l0->a;
  cr_assert_eq(l1->k, KG_AST_Lambda);
  cr_assert_eq(l1->var, 1);
  const kg_ast *mul = l1->a;
  cr_assert_eq(mul->k, KG_AST_Call);
  cr_assert_null(mul->a);
  cr_assert_str_eq(mul->path, "$.entries[0].expr.body.body");
  cr_assert_str_eq(
      mul->member->key,
      "Microsoft.FSharp.Core.Operators::op_Multiply(TorchSharp.torch+Tensor,System.Single)");
  cr_assert_eq(mul->member->n_generic_args, 3);
  cr_assert(mul->member->is_static);
  cr_assert_str_eq(mul->member->ret, "TorchSharp.torch+Tensor");
  cr_assert_eq(mul->n_kids, 2);
  cr_assert(mul->has_loc);
  cr_assert_str_eq(kg_fe_srcloc(&a, doc, mul), "Model.fs:3:5");
  cr_assert_null(kg_fe_srcloc(&a, doc, l1));
  const kg_ast *tanh_ = mul->kids[0];
  cr_assert_str_eq(tanh_->member->key, "TorchSharp.torch::tanh(TorchSharp.torch+Tensor)");
  cr_assert_eq(tanh_->member->n_generic_args, 0);
  const kg_ast *add = tanh_->kids[0];
  cr_assert_str_eq(add->member->key, "Microsoft.FSharp.Core.Operators::op_Addition(TorchSharp."
                                     "torch+Tensor,TorchSharp.torch+Tensor)");
  cr_assert_str_eq(add->kids[1]->path, "$.entries[0].expr.body.body.args[0].args[0].args[1]");
  cr_assert_eq(add->kids[1]->k, KG_AST_Var);
  cr_assert_eq(add->kids[1]->var, 1);
  const kg_ast *half = mul->kids[1];
  cr_assert_eq(half->k, KG_AST_Value);
  cr_assert_str_eq(half->ty, "System.Single");
  cr_assert_eq(half->value.kind, KG_VAL_FLOAT);
  cr_assert_eq(half->value.f, 0.5);

  /* definitions use the Call key form */
  cr_assert_eq(doc->n_defs, 1);
  cr_assert_str_eq(doc->defs[0].member->key, "M::f(System.Single,System.Int32)");
  cr_assert_eq(doc->defs[0].expr->k, KG_AST_DefaultValue);
  cr_assert_str_eq(doc->defs[0].path, "$.definitions[0]");
  cr_assert_eq(doc->n_nodes, 26);
  kg_diag_free(&d);
  kg_arena_free(&a);
}

Test(fe_json, values) {
  kg_arena a;
  kg_diag d;
  kg_arena_init(&a);
  kg_diag_init(&d);
  kg_doc *doc = read_doc(&a, &d, kg_example, NULL);
  cr_assert_not_null(doc);
  const kg_ast *t = doc->entries[1].expr;
  cr_assert_eq(t->k, KG_AST_NewTuple);
  cr_assert_eq(t->n_kids, 15);
  const kg_ast *const *v = (const kg_ast *const *)t->kids;
  cr_assert_eq(v[0]->value.f, (double)0.1f, "Single 0.1 is rounded to float");
  cr_assert_neq(v[0]->value.f, 0.1);
  cr_assert_eq(v[1]->value.f, 0.1);
  cr_assert_eq(v[2]->value.kind, KG_VAL_INT);
  cr_assert_eq(v[2]->value.i, INT64_MIN);
  cr_assert(!v[2]->value.is_unsigned);
  cr_assert(v[3]->value.is_unsigned);
  cr_assert_eq(v[3]->value.u, UINT64_MAX);
  cr_assert_eq(v[4]->value.f, -INFINITY);
  cr_assert(isnan(v[5]->value.f));
  cr_assert_eq(v[6]->value.kind, KG_VAL_ENUM);
  cr_assert_eq(v[6]->value.i, 6);
  cr_assert_str_eq(v[6]->value.s, "Float32");
  cr_assert_eq(v[7]->value.kind, KG_VAL_ARRAY);
  cr_assert_eq(v[7]->value.n_items, 2);
  cr_assert_eq(v[7]->value.items[1].i, 9007199254740993LL, "digit strings are exact");
  cr_assert_eq(v[8]->k, KG_AST_ValueWithName);
  cr_assert_eq(v[8]->value.kind, KG_VAL_OPAQUE);
  cr_assert_str_eq(v[8]->name, "w");
  cr_assert_eq(v[9]->value.kind, KG_VAL_NULL);
  cr_assert_eq(v[10]->value.kind, KG_VAL_BOOL);
  cr_assert(v[10]->value.b);
  cr_assert_str_eq(v[11]->value.s, "hi");
  cr_assert_eq(v[12]->value.i, 255);
  cr_assert_str_eq(v[13]->member->key, "TorchSharp.torch+Tensor::get_shape()");
  cr_assert_eq(v[13]->a->k, KG_AST_Var);
  cr_assert_str_eq(v[13]->a->path, "$.entries[1].expr.items[13].obj");
  cr_assert_str_eq(v[14]->member->key, "TorchSharp.torch::float32");
  kg_diag_free(&d);
  kg_arena_free(&a);
}

/* One node in a one-entry document over one Single var (no "files"). */
static char *one_node(const char *node) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b,
               "{\"format\": \"kgen-quotation\", \"version\": 1, "
               "\"vars\": [{\"name\": \"x\", \"type\": \"System.Single\", \"mutable\": true}], "
               "\"entries\": [{\"name\": \"e\", \"expr\": %s}]}",
               node);
  return kg_sb_take(&b);
}

Test(fe_json, every_supported_kind) {
  static const char *nodes[] = {
      "{\"k\":\"Application\",\"ty\":\"S\",\"func\":{\"k\":\"Var\",\"ty\":\"F\",\"var\":0},\"arg\":"
      "{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"Let\",\"ty\":\"S\",\"var\":0,\"value\":{\"k\":\"DefaultValue\",\"ty\":\"S\"},"
      "\"body\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"LetRecursive\",\"ty\":\"S\",\"bindings\":[{\"var\":0,\"value\":{\"k\":"
      "\"DefaultValue\",\"ty\":\"S\"}}],\"body\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"IfThenElse\",\"ty\":\"S\",\"cond\":{\"k\":\"Value\",\"ty\":\"System.Boolean\","
      "\"value\":false},\"then\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0},\"else\":{\"k\":\"Var\","
      "\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"ForIntegerRangeLoop\",\"ty\":\"U\",\"var\":0,\"start\":{\"k\":\"Value\",\"ty\":"
      "\"System.Int32\",\"value\":0},\"end\":{\"k\":\"Value\",\"ty\":\"System.Int32\",\"value\":9},"
      "\"body\":{\"k\":\"DefaultValue\",\"ty\":\"U\"}}",
      "{\"k\":\"WhileLoop\",\"ty\":\"U\",\"cond\":{\"k\":\"Value\",\"ty\":\"System.Boolean\","
      "\"value\":false},\"body\":{\"k\":\"DefaultValue\",\"ty\":\"U\"}}",
      "{\"k\":\"Sequential\",\"ty\":\"S\",\"first\":{\"k\":\"VarSet\",\"ty\":\"U\",\"var\":0,"
      "\"value\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}},\"second\":{\"k\":\"Var\",\"ty\":\"S\","
      "\"var\":0}}",
      "{\"k\":\"PropertySet\",\"ty\":\"U\",\"obj\":{\"k\":\"Var\",\"ty\":\"T\",\"var\":0},"
      "\"property\":{\"decl\":\"T\",\"name\":\"TensorItems\",\"static\":false,\"params\":[\"System."
      "Int64\"]},\"args\":[{\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":0}],\"value\":{\"k\":"
      "\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"NewStructTuple\",\"ty\":\"S\",\"items\":[]}",
      "{\"k\":\"TupleGet\",\"ty\":\"S\",\"tuple\":{\"k\":\"Var\",\"ty\":\"T\",\"var\":0},\"index\":"
      "1}",
      "{\"k\":\"NewArray\",\"ty\":\"System.Int64[]\",\"elemType\":\"System.Int64\",\"items\":[{"
      "\"k\":\"Value\",\"ty\":\"System.Int64\",\"value\":1}]}",
      "{\"k\":\"NewObject\",\"ty\":\"N\",\"ctor\":{\"decl\":\"N\",\"name\":\".ctor\",\"static\":"
      "false,\"params\":[\"A\"]},\"args\":[{\"k\":\"DefaultValue\",\"ty\":\"A\"}]}",
      "{\"k\":\"Coerce\",\"ty\":\"System.Object\",\"expr\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"Call\",\"ty\":\"S\",\"obj\":{\"k\":\"Var\",\"ty\":\"T\",\"var\":0},\"method\":{"
      "\"decl\":\"T\",\"name\":\"m\",\"static\":false,\"params\":[]},\"args\":[],\"witnesses\":[{"
      "\"k\":\"DefaultValue\",\"ty\":\"W\"}]}",
  };
  static const kg_ast_kind kinds[] = {KG_AST_Application,
                                      KG_AST_Let,
                                      KG_AST_LetRecursive,
                                      KG_AST_IfThenElse,
                                      KG_AST_ForIntegerRangeLoop,
                                      KG_AST_WhileLoop,
                                      KG_AST_Sequential,
                                      KG_AST_PropertySet,
                                      KG_AST_NewStructTuple,
                                      KG_AST_TupleGet,
                                      KG_AST_NewArray,
                                      KG_AST_NewObject,
                                      KG_AST_Coerce,
                                      KG_AST_Call};
  for (size_t i = 0; i < KG_COUNTOF(nodes); i++) {
    kg_arena a;
    kg_diag d;
    kg_arena_init(&a);
    kg_diag_init(&d);
    char *text = one_node(nodes[i]);
    kg_doc *doc = read_doc(&a, &d, text, NULL);
    char *errs = kg_diag_format(&d);
    cr_assert_not_null(doc, "case %zu: %s", i, errs);
    const kg_ast *n = doc->entries[0].expr;
    cr_assert_eq(n->k, kinds[i]);
    switch (n->k) {
    case KG_AST_LetRecursive: cr_assert(n->n_kids == 1 && n->bind_vars[0] == 0 && n->a); break;
    case KG_AST_IfThenElse:
    case KG_AST_ForIntegerRangeLoop: cr_assert(n->a && n->b && n->c); break;
    case KG_AST_PropertySet:
      cr_assert_str_eq(n->member->key, "T::set_TensorItems(System.Int64)");
      cr_assert(n->a && n->b && n->n_kids == 1);
      break;
    case KG_AST_TupleGet: cr_assert_eq(n->index, 1); break;
    case KG_AST_NewArray: cr_assert_str_eq(n->elem_type, "System.Int64"); break;
    case KG_AST_NewObject: cr_assert_str_eq(n->member->key, "N::.ctor(A)"); break;
    case KG_AST_Call:
      cr_assert(n->a && n->n_wits == 1 && n->wits[0]->k == KG_AST_DefaultValue);
      break;
    default: break;
    }
    free(errs);
    free(text);
    kg_diag_free(&d);
    kg_arena_free(&a);
  }
}

Test(fe_json, unsupported_kinds_are_parsed) {
  static const char *nodes[] = {
      "{\"k\":\"TryFinally\",\"ty\":\"S\",\"body\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0},"
      "\"finally\":{\"k\":\"DefaultValue\",\"ty\":\"U\"}}",
      "{\"k\":\"Quote\",\"ty\":\"Q\",\"expr\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"WithValue\",\"ty\":\"System.Single\",\"value\":1.5,\"expr\":{\"k\":\"Var\",\"ty\":"
      "\"S\",\"var\":0}}",
      "{\"k\":\"NewRecord\",\"ty\":\"R\",\"args\":[{\"k\":\"Var\",\"ty\":\"S\",\"var\":0},{\"k\":"
      "\"DefaultValue\",\"ty\":\"U\"}]}",
      "{\"k\":\"TryWith\",\"ty\":\"S\",\"body\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0},"
      "\"filterVar\":0,\"filter\":{\"k\":\"DefaultValue\",\"ty\":\"B\"},\"catchVar\":0,\"catch\":{"
      "\"k\":\"DefaultValue\",\"ty\":\"S\"}}",
      "{\"k\":\"NewUnionCase\",\"ty\":\"U\",\"case\":{\"name\":\"Some\"},\"args\":[]}",
      "{\"k\":\"UnionCaseTest\",\"ty\":\"B\",\"expr\":{\"k\":\"DefaultValue\",\"ty\":\"U\"},"
      "\"case\":{\"name\":\"Some\"}}",
      "{\"k\":\"TypeTest\",\"ty\":\"B\",\"expr\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0},\"type\":"
      "\"System.String\"}",
      "{\"k\":\"AddressOf\",\"ty\":\"S&\",\"expr\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"AddressSet\",\"ty\":\"U\",\"target\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0},"
      "\"value\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"FieldSet\",\"ty\":\"U\",\"obj\":null,\"field\":{\"decl\":\"T\",\"name\":\"f\","
      "\"static\":true},\"value\":{\"k\":\"Var\",\"ty\":\"S\",\"var\":0}}",
      "{\"k\":\"NewDelegate\",\"ty\":\"D\",\"vars\":[0],\"body\":{\"k\":\"Var\",\"ty\":\"S\","
      "\"var\":0}}",
  };
  static const uint32_t n_kids[] = {0, 0, 0, 2, 3, 0, 0, 0, 0, 2, 1, 1};
  for (size_t i = 0; i < KG_COUNTOF(nodes); i++) {
    kg_arena a;
    kg_diag d;
    kg_arena_init(&a);
    kg_diag_init(&d);
    char *text = one_node(nodes[i]);
    kg_doc *doc = read_doc(&a, &d, text, NULL);
    char *errs = kg_diag_format(&d);
    cr_assert_not_null(doc, "case %zu: %s", i, errs);
    const kg_ast *n = doc->entries[0].expr;
    cr_assert_eq(n->n_kids, n_kids[i], "case %zu (%s): %u kids", i, kg_ast_kind_name(n->k),
                 n->n_kids);
    if (n->k == KG_AST_Quote || n->k == KG_AST_WithValue || n->k == KG_AST_UnionCaseTest ||
        n->k == KG_AST_TypeTest || n->k == KG_AST_AddressOf)
      cr_assert_not_null(n->a, "case %zu: expr in a", i);
    if (n->k == KG_AST_WithValue) cr_assert_eq(n->value.f, 1.5);
    if (n->k == KG_AST_TryWith) cr_assert_str_eq(n->kids[2]->path, "$.entries[0].expr.catch");
    if (n->k == KG_AST_TryFinally) /* read by name: how `use` arrives (docs/fsharp.md) */
      cr_assert(n->a && n->b && n->a->k == KG_AST_Var && n->b->k == KG_AST_DefaultValue);
    free(errs);
    free(text);
    kg_diag_free(&d);
    kg_arena_free(&a);
  }
}

Test(fe_json, kind_names_follow_the_spec_table) {
  cr_assert_str_eq(kg_ast_kind_name(KG_AST_Var), "Var");
  cr_assert_str_eq(kg_ast_kind_name(KG_AST_WithValue), "WithValue");
  cr_assert_str_eq(kg_ast_kind_name(KG_AST__COUNT), "?");
  cr_assert_eq(KG_AST__COUNT, 35);
}

Test(fe_json, limits) {
  kg_fe_limits def;
  kg_fe_limits_default(&def);
  cr_assert_eq(def.max_bytes, (size_t)64 << 20);
  cr_assert_eq(def.max_depth, 200);
  cr_assert_eq(def.max_nodes, 1000000);
  cr_assert_eq(def.max_rank, KG_MAX_RANK);

  kg_fe_limits l = def;
  l.max_nodes = 10;
  char *e = read_errors(kg_example, strlen(kg_example), &l);
  cr_assert(strstr(e, "error[limit]: too many nodes: more than the limit of 10 (max_nodes)"), "%s",
            e);
  free(e);

  l = def, l.max_bytes = 100;
  e = read_errors(kg_example, strlen(kg_example), &l);
  cr_assert(strstr(e, "error[limit]: document too large:"), "%s", e);
  cr_assert(strstr(e, "above the limit of 100 bytes (max_bytes)"), "%s", e);
  free(e);

  l = def, l.max_depth = 5;
  e = read_errors(kg_example, strlen(kg_example), &l);
  cr_assert(strstr(e, "error[limit]: JSON nesting deeper than the limit of 5 (max_depth) at byte"),
            "%s", e);
  free(e);

  l = def, l.max_rank = 1;
  e = read_errors(kg_example, strlen(kg_example), &l);
  cr_assert(strstr(e, "error[limit]: tensor rank 2 is above the limit of 1 (max_rank)\n"
                      "  at $.entries[0].signature.params[0].shape\n"),
            "%s", e);
  free(e);

  /* A document deeper than cJSON's own limit is refused by the scan, not by recursion. */
  size_t n = 100000;
  char *deep = malloc(2 * n + 1);
  memset(deep, '[', n), memset(deep + n, ']', n), deep[2 * n] = 0;
  e = read_errors(deep, 2 * n, NULL);
  cr_assert(strstr(e, "limit of 200 (max_depth) at byte 200 (line 1, column 201)"), "%s", e);
  free(e);
  free(deep);
}

Test(fe_json, null_and_empty_input) {
  char *e = read_errors(NULL, 0, NULL);
  cr_assert_str_eq(e, "error[json]: malformed JSON at byte 0 (line 1, column 1): empty document\n");
  free(e);
  e = read_errors("  \n", 3, NULL);
  cr_assert(strstr(e, "empty document"), "%s", e);
  free(e);
}

Test(fe_json, embedded_nul_is_an_error) {
  static const char text[] = "{\"format\": \"kgen-quotation\"}\0garbage";
  char *e = read_errors(text, sizeof text - 1, NULL);
  cr_assert(
      strstr(e,
             "malformed JSON at byte 28 (line 1, column 29): unexpected byte 0x00 after the end"),
      "%s", e);
  free(e);
}

Test(fe_json, errors_accumulate) {
  /* Three independent errors in one document are all reported. */
  char *text = one_node("{\"k\":\"NewTuple\",\"ty\":\"T\",\"items\":["
                        "{\"k\":\"Var\",\"ty\":\"S\",\"var\":5},"
                        "{\"k\":\"Value\",\"ty\":\"System.Byte\",\"value\":-1},"
                        "{\"k\":\"Nope\",\"ty\":\"S\"}]}");
  char *e = read_errors(text, strlen(text), NULL);
  cr_assert_str_eq(e, "error[format]: variable index 5 is out of range (\"vars\" has 1 entry)\n"
                      "  at $.entries[0].expr.items[0].var\n"
                      "error[format]: value -1 does not fit System.Byte (0 to 255)\n"
                      "  at $.entries[0].expr.items[1].value\n"
                      "error[format]: unknown node kind 'Nope'\n"
                      "  at $.entries[0].expr.items[2].k\n");
  free(e);
  free(text);
}

/* ---- golden error files ---- */

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(fe_json, golden_errors) {
  DIR *dir = opendir(GOLDEN_DIR);
  cr_assert_not_null(dir, "cannot open %s", GOLDEN_DIR);
  char *names[512];
  size_t n = 0;
  for (struct dirent *de; (de = readdir(dir)) && n < KG_COUNTOF(names);) {
    size_t len = strlen(de->d_name);
    if (len > 5 && strcmp(de->d_name + len - 5, ".json") == 0) names[n++] = kg_xstrdup(de->d_name);
  }
  closedir(dir);
  qsort(names, n, sizeof *names, cmp_names);
  cr_assert_geq(n, 20, "expected at least 20 golden cases, found %zu", n);
  bool update = getenv("KG_UPDATE_GOLDEN") && strcmp(getenv("KG_UPDATE_GOLDEN"), "1") == 0;
  int failures = 0;
  for (size_t i = 0; i < n; i++) {
    char path[1024], errpath[1024];
    snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, names[i]);
    snprintf(errpath, sizeof errpath, "%s/%.*s.err", GOLDEN_DIR, (int)(strlen(names[i]) - 5),
             names[i]);
    size_t len = 0;
    char *text = kg_read_file(path, &len);
    cr_assert_not_null(text, "cannot read %s", path);
    char *got = read_errors(text, len, NULL);
    if (update) {
      cr_assert_eq(kg_write_file(errpath, got, strlen(got)), 0, "cannot write %s", errpath);
    } else {
      char *want = kg_read_file(errpath, &len);
      if (!want || strcmp(want, got) != 0) {
        cr_log_error("golden mismatch for %s\n--- want (%s)\n%s--- got\n%s", names[i], errpath,
                     want ? want : "(missing)\n", got);
        failures++;
      }
      free(want);
    }
    cr_expect(got[0] != 0, "%s: a golden error case must produce diagnostics", names[i]);
    free(got);
    free(text);
    free(names[i]);
  }
  cr_assert_eq(failures, 0, "%d golden files differ (KG_UPDATE_GOLDEN=1 rewrites them)", failures);
}

/* ---- signatures ---- */

static kg_sig *sig_ok(kg_arena *a, const char *text) {
  kg_diag d;
  kg_diag_init(&d);
  kg_sig *s = kg_fe_parse_sig(a, text, &d);
  char *e = kg_diag_format(&d);
  cr_assert_not_null(s, "%s: %s", text, e);
  free(e);
  kg_diag_free(&d);
  return s;
}

static char *sig_errors(const char *text) {
  kg_arena a;
  kg_diag d;
  kg_arena_init(&a);
  kg_diag_init(&d);
  kg_sig *s = kg_fe_parse_sig(&a, text, &d);
  char *e = kg_diag_format(&d);
  cr_assert((s == NULL) == (d.n > 0), "%s", text);
  kg_diag_free(&d);
  kg_arena_free(&a);
  return e;
}

Test(fe_json, sig_compact) {
  kg_arena a;
  kg_arena_init(&a);
  kg_sig *s = sig_ok(&a, " float32[B, 1024,?] ,float16[], int64, w=bfloat16[1024], u = bool ");
  cr_assert_eq(s->n_params, 3);
  cr_assert_eq(s->params[0].dtype, KG_F32);
  cr_assert_eq(s->params[0].rank, 3);
  cr_assert_eq(s->params[0].dims[0].kind, KG_DIM_SYM);
  cr_assert_str_eq(s->params[0].dims[0].sym, "B");
  cr_assert_eq(s->params[0].dims[1].size, 1024);
  cr_assert_eq(s->params[0].dims[2].kind, KG_DIM_ANY);
  cr_assert(!s->params[1].is_scalar);
  cr_assert_eq(s->params[1].rank, 0);
  cr_assert(s->params[2].is_scalar);
  cr_assert_eq(s->params[2].dtype, KG_I64);
  cr_assert_eq(s->n_captures, 2);
  cr_assert_str_eq(s->capture_names[0], "w");
  cr_assert_eq(s->captures[0].dtype, KG_BF16);
  cr_assert_str_eq(s->capture_names[1], "u");
  cr_assert(s->captures[1].is_scalar);
  kg_arena_free(&a);
}

Test(fe_json, sig_ranges) {
  kg_arena a;
  kg_arena_init(&a);
  kg_sig *s = sig_ok(&a, "int64[2,8] in [0, 100), float32 in [-1.5,2.5), w=float32[4] in [-0.1, 0.1), float16[3]");
  cr_assert_eq(s->n_params, 3);
  cr_assert(s->params[0].has_range && s->params[0].lo == 0 && s->params[0].hi == 100);
  cr_assert_eq(s->params[0].rank, 2);
  cr_assert(s->params[1].is_scalar && s->params[1].has_range && s->params[1].lo == -1.5 && s->params[1].hi == 2.5);
  cr_assert(!s->params[2].has_range);
  cr_assert(s->captures[0].has_range && s->captures[0].lo == -0.1 && s->captures[0].hi == 0.1);
  s = sig_ok(&a, "{\"params\": [{\"dtype\": \"int32\", \"shape\": [4], \"range\": [1, 7]}]}");
  cr_assert(s->params[0].has_range && s->params[0].lo == 1 && s->params[0].hi == 7);
  kg_arena_free(&a);
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"int64[2] in [5, 1)", "error[arg]: a range [lo, hi) needs finite lo <= hi, found [5, 1)\n  at --sig item 1\n"},
      {"bool[2] in [0, 1)", "error[arg]: a bool parameter takes no range (its test values are 0 and 1)\n  at --sig item 1\n"},
      {"int64[2] in [0, 1]", "error[format]: expected ')' closing a range 'in [lo, hi)' (hi is excluded), found ']'\n  at --sig item 1\n"},
      {"int64[2] in [a, 1)", "error[format]: expected a number in a range 'in [lo, hi)', found 'a'\n  at --sig item 1\n"},
      {"{\"params\": [{\"dtype\": \"int32\", \"shape\": [4], \"range\": [1]}]}",
       "error[format]: field 'range' must be [lo, hi] (two numbers), found an array\n  at $.params[0].range\n"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *e = sig_errors(bad[i].text);
    cr_expect_str_eq(e, bad[i].want, "%s", bad[i].text);
    free(e);
  }
}

Test(fe_json, sig_json) {
  kg_arena a;
  kg_arena_init(&a);
  kg_sig *s = sig_ok(&a, "{\"params\": [ {\"dtype\": \"float32\", \"shape\": [\"B\", 1024, null]}, "
                         "{\"scalar\": \"float32\"} ],"
                         " \"captures\": {\"w\": {\"dtype\": \"float16\", \"shape\": [1024]}}}");
  cr_assert_eq(s->n_params, 2);
  cr_assert_eq(s->params[0].dims[2].kind, KG_DIM_ANY);
  cr_assert(s->params[1].is_scalar);
  cr_assert_eq(s->n_captures, 1);
  cr_assert_str_eq(s->capture_names[0], "w");
  cr_assert_eq(s->captures[0].dtype, KG_F16);
  cr_assert_eq(s->captures[0].dims[0].size, 1024);
  kg_arena_free(&a);
}

Test(fe_json, sig_errors) {
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"float32[B], float33",
       "error[type]: unknown dtype 'float33' (expected one of bool, uint8, int8, int16, int32, "
       "int64, float16, bfloat16, float32, float64)\n  at --sig item 2\n"},
      {"float32[-1]", "error[shape]: negative size '-1'\n  at --sig item 1\n"},
      {"float32[1,2,3,4,5,6,7,8,9]",
       "error[limit]: tensor rank 9 is above the limit of 8 (max_rank)\n  at --sig item 1\n"},
      {"float32[1 2]",
       "error[format]: expected ',' or ']' in a shape, found '2'\n  at --sig item 1\n"},
      {"float32[B,102666666666666666666666666666]",
       "error[shape]: size '102666666666666666666666666666' is too large\n"
       "  at --sig item 1\n"},
      {"float32[1x]", "error[format]: bad size '1x' (expected an integer, an identifier or '?')\n  "
                      "at --sig item 1\n"},
      {"float32[1],",
       "error[format]: expected a dtype, found the end of the signature\n  at --sig item 2\n"},
      {"float32 float32",
       "error[format]: expected ',' between items, found 'float32'\n  at --sig item 1\n"},
      {"w=float32, w=int8", "error[format]: capture 'w' is given twice\n  at --sig item 2\n"},
      {"",
       "error[format]: empty signature (expected e.g. \"float32[B,1024], float32\")\n  at --sig\n"},
      {"float32[", "error[format]: expected a size (an integer, an identifier or '?'), found the "
                   "end of the signature\n"
                   "  at --sig item 1\n"},
      {"{\"params\": [{\"dtype\": \"float32\", \"shape\": [1, -2]}]}",
       "error[shape]: negative size -2\n  at $.params[0].shape[1]\n"},
      {"{\"params\": [{\"dtype\": \"float32\"}]}",
       "error[format]: a tensor parameter is missing required field 'shape' ([] for 0-dim)\n  at "
       "$.params[0]\n"},
      {"{\"params\": [{\"scalar\": \"float32\", \"shape\": []}]}",
       "error[format]: a parameter has either \"scalar\" or \"dtype\" and \"shape\", not both\n  "
       "at $.params[0]\n"},
      {"{\"params\": [{\"dtype\": \"float32\", \"shape\": [1.5]}]}",
       "error[format]: a size must be an integer from 0 to 2^53, an identifier or null, found "
       "1.5\n  at $.params[0].shape[0]\n"},
      {"{\"params\": 3}",
       "error[format]: field 'params' must be an array, found 3\n  at $.params\n"},
      {"{\"params\": [], \"params\": []}",
       "error[json]: duplicate key 'params' in object\n  at $\n"},
      {"{\"params\": [}",
       "error[json]: malformed JSON at byte 12 (line 1, column 13): expected a value or ']', "
       "found '}'\n"},
  };
  for (size_t i = 0; i < KG_COUNTOF(cases); i++) {
    char *e = sig_errors(cases[i].text);
    cr_expect_str_eq(e, cases[i].want, "sig %s", cases[i].text);
    free(e);
  }
}

/* ---- random mutations ---- */

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Test(fe_json, random_mutations_never_crash) {
  static const char interesting[] = "{}[]\",:0123456789-.eE\\u tnfl\x01\x80\xff";
  size_t base_len = strlen(kg_example);
  char *buf = malloc(base_len + 64);
  uint64_t seed = 12345;
  int parsed = 0, failed = 0;
  for (int iter = 0; iter < 4000; iter++) {
    memcpy(buf, kg_example, base_len);
    size_t len = base_len;
    int n_mut = 1 + (int)(rng_next(&seed) % 4);
    for (int m = 0; m < n_mut; m++) {
      uint64_t r = rng_next(&seed);
      size_t pos = (size_t)(rng_next(&seed) % (len ? len : 1));
      switch (r % 5) {
      case 0: buf[pos] = (char)(rng_next(&seed) & 0xff); break;
      case 1: buf[pos] = interesting[rng_next(&seed) % (sizeof interesting - 1)]; break;
      case 2: len = pos; break; /* truncate */
      case 3:                   /* delete one byte */
        if (len) memmove(buf + pos, buf + pos + 1, len - pos - 1), len--;
        break;
      default: /* duplicate one byte */
        if (len && len < base_len + 63) memmove(buf + pos + 1, buf + pos, len - pos), len++;
        break;
      }
    }
    kg_arena a;
    kg_diag d;
    kg_arena_init(&a);
    kg_diag_init(&d);
    kg_doc *doc = kg_fe_read(&a, buf, len, NULL, &d);
    cr_assert((doc != NULL) != (d.n > 0), "iteration %d: doc %p with %u diagnostics", iter,
              (void *)doc, d.n);
    if (doc)
      parsed++;
    else
      failed++;
    char *t = kg_diag_format(&d);
    free(t);
    kg_diag_free(&d);
    kg_arena_free(&a);
  }
  free(buf);
  cr_assert_gt(failed, 0);
  cr_log_info("random mutations: %d parsed, %d rejected", parsed, failed);
}
