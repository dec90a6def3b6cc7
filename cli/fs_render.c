/* cli/fs_render.c — a kgen document as F# source (fsrender.h says why).
 *
 * One pass over the JSON tree. Expressions print with F#'s operator precedence (a child
 * is parenthesized only when it binds less tightly than its place needs); statement
 * positions (the body of an entry, of a let, of a loop) print lets, sequences, loops and
 * branches as indented lines. Spelling, by node:
 *   Call of Microsoft.FSharp.Core.Operators  infix / prefix operators (witnesses dropped),
 *                                            named functions (Tanh -> tanh, ToSingle -> float32)
 *   Call of an F# module (Kgen.Ops, a [<ReflectedDefinition>] function)  curried: f a b
 *   Call of a .NET method                    obj.name(args) / torch.name(args), trailing
 *                                            DefaultValue / null arguments (and to_type's
 *                                            false flags) left out, Scalar conversions shown
 *                                            as written (ToScalar) or dropped (op_Implicit)
 *   PropertyGet TensorItems                  obj.[i, j]
 *   Value                                    an F# literal: 1.5f, 2L, 3uy, true, torch.ScalarType.Float32
 * Anything else prints as (* Kind *): the rendering is for reading, the JSON stays the truth.
 */
#include "fsrender.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/support.h"

typedef struct fsr {
  const cJSON *vars;  /* the document's vars */
  const cJSON *defs;  /* its definitions (their calls print as F# function applications) */
  kg_strbuf *o;
  int ind;            /* indent of the statement being printed (a lambda's block body goes below it) */
} fsr;

enum { P_LOW = 0, P_TUPLE_ITEM = 1, P_CMP = 2, P_XOR = 3, P_ADD = 4, P_MUL = 5, P_POW = 6, P_PREFIX = 7, P_APP = 8, P_ATOM = 9 };

static const cJSON *get(const cJSON *n, const char *k) { return cJSON_GetObjectItemCaseSensitive(n, k); }
static const char *str(const cJSON *n, const char *k) {
  const cJSON *s = get(n, k);
  return cJSON_IsString(s) ? s->valuestring : "";
}
static bool is_node(const cJSON *n) { return cJSON_IsObject(n) && cJSON_IsString(get(n, "k")); }
static bool kind_is(const cJSON *n, const char *k) { return is_node(n) && !strcmp(str(n, "k"), k); }

static const char *const keywords[] = {"abstract", "and", "as", "assert", "base", "begin", "class", "default", "delegate", "do", "done",
                                       "downcast", "downto", "elif", "else", "end", "exception", "extern", "false", "finally", "for",
                                       "fun", "function", "global", "if", "in", "inherit", "inline", "interface", "internal", "lazy",
                                       "let", "match", "member", "module", "mutable", "namespace", "new", "null", "of", "open", "or",
                                       "override", "private", "public", "rec", "return", "static", "struct", "then", "to", "true",
                                       "try", "type", "upcast", "use", "val", "void", "when", "while", "with", "yield"};

static void ident(kg_strbuf *o, const char *s) {
  bool plain = *s && !(*s >= '0' && *s <= '9');
  for (const char *p = s; *p && plain; p++)
    plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '\'';
  for (size_t i = 0; i < sizeof keywords / sizeof *keywords && plain; i++) plain = strcmp(s, keywords[i]) != 0;
  if (plain) kg_sb_puts(o, s);
  else kg_sb_printf(o, "``%s``", s);
}

static const cJSON *var_of(const fsr *R, const cJSON *n) {
  const cJSON *v = get(n, "var");
  return cJSON_IsNumber(v) ? cJSON_GetArrayItem(R->vars, v->valueint) : NULL;
}
static void var_name(const fsr *R, const cJSON *n) {
  const cJSON *v = var_of(R, n);
  ident(R->o, v ? str(v, "name") : "v?");
}

/* ---- CLR type strings -> F# types ---- */
static void fs_type(kg_strbuf *o, const char *t, size_t n);

/* the top-level comma-separated arguments of "Name`k[a,b]" */
static void type_args(kg_strbuf *o, const char *a, size_t n, const char *sep) {
  int depth = 0;
  size_t start = 0;
  bool first = true;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && a[i] == '[') depth++;
    else if (i < n && a[i] == ']') depth--;
    else if (i == n || (a[i] == ',' && depth == 0)) {
      if (!first) kg_sb_puts(o, sep);
      fs_type(o, a + start, i - start);
      first = false, start = i + 1;
    }
  }
}

static void fs_type(kg_strbuf *o, const char *t, size_t n) {
  static const char *const simple[][2] = {{"TorchSharp.torch+Tensor", "torch.Tensor"}, {"System.Single", "float32"},
                                          {"System.Double", "float"},                 {"System.Int32", "int"},
                                          {"System.Int64", "int64"},                  {"System.Int16", "int16"},
                                          {"System.SByte", "sbyte"},                  {"System.Byte", "byte"},
                                          {"System.Boolean", "bool"},                 {"Microsoft.FSharp.Core.Unit", "unit"},
                                          {"TorchSharp.torch+ScalarType", "torch.ScalarType"}, {"TorchSharp.Scalar", "Scalar"}};
  for (size_t i = 0; i < sizeof simple / sizeof *simple; i++)
    if (strlen(simple[i][0]) == n && !strncmp(t, simple[i][0], n)) {
      kg_sb_puts(o, simple[i][1]);
      return;
    }
  if (n > 2 && !strncmp(t + n - 2, "[]", 2)) {
    fs_type(o, t, n - 2);
    kg_sb_puts(o, "[]");
    return;
  }
  const char *br = memchr(t, '[', n);
  if (br && t[n - 1] == ']') {
    size_t head = (size_t)(br - t);
    const char *a = br + 1;
    size_t an = n - head - 2;
    if (head >= 12 && !strncmp(t + head - 12, "FSharpFunc`2", 12)) {
      kg_sb_putc(o, '(');
      type_args(o, a, an, " -> ");
      kg_sb_putc(o, ')');
      return;
    }
    if (!strncmp(t, "System.Tuple`", 13) || !strncmp(t, "System.ValueTuple`", 18)) {
      kg_sb_putc(o, '(');
      type_args(o, a, an, " * ");
      kg_sb_putc(o, ')');
      return;
    }
    const char *tick = memchr(t, '`', head);
    size_t base = tick ? (size_t)(tick - t) : head;
    const char *dot = NULL;
    for (const char *p = t; p < t + base; p++)
      if (*p == '.' || *p == '+') dot = p;
    const char *nm = dot ? dot + 1 : t;
    kg_sb_putn(o, nm, (size_t)(t + base - nm));
    kg_sb_putc(o, '<');
    type_args(o, a, an, ", ");
    kg_sb_putc(o, '>');
    return;
  }
  /* a declaring-type path: TorchSharp.torch+nn -> torch.nn */
  const char *s = t;
  size_t m = n;
  if (m > 11 && !strncmp(s, "TorchSharp.", 11)) s += 11, m -= 11;
  for (size_t i = 0; i < m; i++) kg_sb_putc(o, s[i] == '+' ? '.' : s[i]);
}
static void fs_type_s(kg_strbuf *o, const char *t) { fs_type(o, t, strlen(t)); }

/* ---- literals ---- */
static bool is_negative_value(const cJSON *n) {
  const cJSON *v = get(n, "value");
  return kind_is(n, "Value") && ((cJSON_IsNumber(v) && (v->valuedouble < 0 || (v->valuedouble == 0 && signbit(v->valuedouble)))) ||
                                 (cJSON_IsString(v) && v->valuestring[0] == '-'));
}

static void float_text(kg_strbuf *o, double v, bool single) {
  char buf[48];
  for (int prec = 1; prec <= 17; prec++) { /* the shortest text that reads back the same */
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    double back = strtod(buf, NULL);
    if (single ? (float)back == (float)v : back == v) break;
  }
  kg_sb_puts(o, buf);
  if (!strpbrk(buf, ".eEni")) kg_sb_puts(o, ".0");
  if (single) kg_sb_putc(o, 'f');
}

static void literal(const fsr *R, const cJSON *n) {
  kg_strbuf *o = R->o;
  const char *ty = str(n, "ty");
  const cJSON *v = get(n, "value");
  bool single = !strcmp(ty, "System.Single");
  if (cJSON_IsObject(v) && cJSON_IsString(get(v, "name"))) { /* an enum */
    fs_type_s(o, ty);
    kg_sb_printf(o, ".%s", str(v, "name"));
  } else if (cJSON_IsObject(v) && cJSON_IsArray(get(v, "array"))) {
    kg_sb_puts(o, "[| ");
    const cJSON *it;
    bool first = true;
    cJSON_ArrayForEach(it, get(v, "array")) {
      if (!first) kg_sb_puts(o, "; ");
      first = false;
      if (cJSON_IsNumber(it)) kg_sb_printf(o, "%.17g", it->valuedouble);
      else kg_sb_puts(o, cJSON_IsTrue(it) ? "true" : "false");
    }
    kg_sb_puts(o, " |]");
  } else if (cJSON_IsBool(v)) kg_sb_puts(o, cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNull(v)) kg_sb_puts(o, !strcmp(ty, "Microsoft.FSharp.Core.Unit") ? "()" : "null");
  else if (cJSON_IsString(v) && (single || !strcmp(ty, "System.Double"))) {
    const char *s = v->valuestring, *p = single ? "System.Single." : "System.Double.";
    kg_sb_printf(o, "%s%s", p, !strcmp(s, "NaN") ? "NaN" : s[0] == '-' ? "NegativeInfinity" : "PositiveInfinity");
  } else if (cJSON_IsNumber(v) || cJSON_IsString(v)) {
    if (single || !strcmp(ty, "System.Double")) float_text(o, v->valuedouble, single);
    else {
      if (cJSON_IsString(v)) kg_sb_puts(o, v->valuestring);
      else kg_sb_printf(o, "%.0f", v->valuedouble);
      static const char *const sfx[][2] = {{"System.Int64", "L"},  {"System.Int16", "s"}, {"System.SByte", "y"},
                                           {"System.Byte", "uy"},  {"System.UInt64", "UL"}, {"System.UInt32", "u"},
                                           {"System.UInt16", "us"}};
      for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++)
        if (!strcmp(ty, sfx[i][0])) kg_sb_puts(o, sfx[i][1]);
    }
  } else if (cJSON_IsString(v)) kg_sb_printf(o, "\"%s\"", v->valuestring);
  else kg_sb_puts(o, "(* Value *)");
}

/* ---- expressions ---- */
static void expr(const fsr *R, const cJSON *n, int need);
static void block(const fsr *R, const cJSON *n, int ind);
static bool is_block(const cJSON *n);

typedef struct opinfo { const char *name, *text; int prec; bool right; } opinfo;
static const opinfo binops[] = {
    {"op_Addition", "+", P_ADD, false},          {"op_Subtraction", "-", P_ADD, false},    {"op_Multiply", "*", P_MUL, false},
    {"op_Division", "/", P_MUL, false},          {"op_Modulus", "%", P_MUL, false},        {"op_Exponentiation", "**", P_POW, true},
    {"op_Equality", "=", P_CMP, false},          {"op_Inequality", "<>", P_CMP, false},    {"op_LessThan", "<", P_CMP, false},
    {"op_GreaterThan", ">", P_CMP, false},       {"op_LessThanOrEqual", "<=", P_CMP, false}, {"op_GreaterThanOrEqual", ">=", P_CMP, false},
    {"op_BitwiseAnd", "&&&", P_CMP, false},      {"op_BitwiseOr", "|||", P_CMP, false},    {"op_ExclusiveOr", "^^^", P_XOR, true},
    {"op_LeftShift", "<<<", P_CMP, false},       {"op_RightShift", ">>>", P_CMP, false},
};
static const char *const fnames[][2] = {{"ToSingle", "float32"}, {"ToDouble", "float"},  {"ToInt32", "int"},      {"ToInt64", "int64"},
                                        {"ToInt16", "int16"},    {"ToInt", "int"},       {"ToSByte", "sbyte"},   {"ToByte", "byte"},      {"Ceiling", "ceil"},
                                        {"PowInteger", "pown"},  {"Not", "not"},         {"Pow", "( ** )"}};

static bool is_fs_module(const fsr *R, const char *decl) {
  if (!strncmp(decl, "Microsoft.FSharp.", 17) || !strncmp(decl, "Kgen.", 5)) return true;
  const cJSON *d;
  cJSON_ArrayForEach(d, R->defs) if (!strcmp(str(get(d, "member"), "decl"), decl)) return true;
  return false;
}

static void open_paren(const fsr *R, int prec, int need) { if (prec < need) kg_sb_putc(R->o, '('); }
static void close_paren(const fsr *R, int prec, int need) { if (prec < need) kg_sb_putc(R->o, ')'); }

/* Arguments F# fills in that the user did not write: trailing DefaultValue / null, and
 * to_type's copy / disposeAfter / non_blocking flags when false. */
static int written_args(const cJSON *n, const char *name) {
  const cJSON *args = get(n, "args");
  int na = cJSON_GetArraySize(args);
  while (na > 0) {
    const cJSON *a = cJSON_GetArrayItem(args, na - 1);
    bool filled = kind_is(a, "DefaultValue") || (kind_is(a, "Value") && cJSON_IsNull(get(a, "value")) &&
                                                 strcmp(str(a, "ty"), "Microsoft.FSharp.Core.Unit") != 0);
    if (!filled && !strcmp(name, "to_type") && na > 1 && kind_is(a, "Value") && cJSON_IsFalse(get(a, "value"))) filled = true;
    if (!filled) break;
    na--;
  }
  return na;
}

static void arg_list(const fsr *R, const cJSON *args, int na) {
  kg_sb_putc(R->o, '(');
  for (int i = 0; i < na; i++) {
    if (i) kg_sb_puts(R->o, ", ");
    expr(R, cJSON_GetArrayItem(args, i), P_CMP);
  }
  kg_sb_putc(R->o, ')');
}

static int call_prec(const fsr *R, const cJSON *n) {
  const cJSON *m = get(n, "method");
  const char *decl = str(m, "decl"), *name = str(m, "name");
  int na = cJSON_GetArraySize(get(n, "args"));
  if (!strcmp(decl, "Microsoft.FSharp.Core.Operators")) {
    for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
      if (na == 2 && !strcmp(name, binops[i].name)) return binops[i].prec;
    if (na == 1 && (!strcmp(name, "op_UnaryNegation") || !strcmp(name, "op_UnaryPlus") || !strcmp(name, "op_LogicalNot"))) return P_PREFIX;
  }
  if (!strcmp(decl, "TorchSharp.Scalar") && !strcmp(name, "op_Implicit") && na == 1) return -1; /* its argument's */
  if (!strcmp(name, "GetArray") && na == 2) return P_ATOM;
  if (is_fs_module(R, decl) && na > 0) return P_APP;
  return P_ATOM;
}

/* `a && b` arrives as if a then b else false, `a || b` as if a then true else b: "&&", "||" or NULL */
static const char *and_or(const cJSON *n) {
  const cJSON *t = get(n, "then"), *e = get(n, "else");
  if (kind_is(e, "Value") && cJSON_IsFalse(get(e, "value"))) return "&&";
  if (kind_is(t, "Value") && cJSON_IsTrue(get(t, "value"))) return "||";
  return NULL;
}

static int prec_of(const fsr *R, const cJSON *n) {
  const char *k = str(n, "k");
  if (!strcmp(k, "Value")) return is_negative_value(n) ? P_PREFIX : P_ATOM;
  if (!strcmp(k, "Call")) {
    int p = call_prec(R, n);
    return p >= 0 ? p : prec_of(R, cJSON_GetArrayItem(get(n, "args"), 0));
  }
  if (!strcmp(k, "Coerce")) return prec_of(R, get(n, "expr"));
  if (!strcmp(k, "Application")) return P_APP;
  if (!strcmp(k, "TupleGet")) return P_APP;
  if (!strcmp(k, "NewTuple")) return P_ATOM;
  if (!strcmp(k, "IfThenElse") && and_or(n)) return P_TUPLE_ITEM;
  if (!strcmp(k, "Lambda") || !strcmp(k, "IfThenElse") || !strcmp(k, "Let") || !strcmp(k, "Sequential") || !strcmp(k, "VarSet"))
    return P_LOW;
  return P_ATOM;
}

static void call(const fsr *R, const cJSON *n, int need) {
  kg_strbuf *o = R->o;
  const cJSON *m = get(n, "method"), *args = get(n, "args"), *obj = get(n, "obj");
  const char *decl = str(m, "decl"), *name = str(m, "name");
  int na = cJSON_GetArraySize(args), prec = call_prec(R, n);
  if (prec < 0) { /* Scalar.op_Implicit: F# inserts it */
    expr(R, cJSON_GetArrayItem(args, 0), need);
    return;
  }
  open_paren(R, prec, need);
  if (!strcmp(decl, "Microsoft.FSharp.Core.Operators") && prec != P_ATOM && prec != P_APP) {
    if (na == 2) {
      const opinfo *op = NULL;
      for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
        if (!strcmp(name, binops[i].name)) op = &binops[i];
      expr(R, cJSON_GetArrayItem(args, 0), op->right ? op->prec + 1 : op->prec);
      kg_sb_printf(o, " %s ", op->text);
      expr(R, cJSON_GetArrayItem(args, 1), op->right ? op->prec : op->prec + 1);
    } else {
      kg_sb_puts(o, !strcmp(name, "op_UnaryNegation") ? "-" : !strcmp(name, "op_UnaryPlus") ? "+" : "~~~");
      expr(R, cJSON_GetArrayItem(args, 0), P_APP);
    }
  } else if (!strcmp(name, "GetArray") && na == 2) { /* a.[i] */
    expr(R, cJSON_GetArrayItem(args, 0), P_ATOM);
    kg_sb_puts(o, ".[");
    expr(R, cJSON_GetArrayItem(args, 1), P_CMP);
    kg_sb_putc(o, ']');
  } else if (!strcmp(decl, "Microsoft.FSharp.Core.Operators") && !strcmp(name, "op_PipeRight") && na == 2) { /* x |> f (a statement) */
    const cJSON *f = cJSON_GetArrayItem(args, 1), *fb = get(f, "body");
    expr(R, cJSON_GetArrayItem(args, 0), P_CMP);
    kg_sb_puts(o, " |> ");
    if (!strcmp(str(f, "k"), "Lambda") && !strcmp(str(fb, "k"), "Call") && !strcmp(str(get(fb, "method"), "name"), "Ignore")) kg_sb_puts(o, "ignore");
    else expr(R, f, P_ATOM);
  } else if (is_fs_module(R, decl)) { /* curried application of a module function */
    const char *fn = NULL;
    if (!strcmp(decl, "Microsoft.FSharp.Core.Operators"))
      for (size_t i = 0; i < sizeof fnames / sizeof *fnames; i++)
        if (!strcmp(name, fnames[i][0])) fn = fnames[i][1];
    if (fn) kg_sb_puts(o, fn);
    else if (!strncmp(decl, "Microsoft.FSharp.", 17)) kg_sb_printf(o, "%c%s", (char)(name[0] >= 'A' && name[0] <= 'Z' ? name[0] + 32 : name[0]), name[0] ? name + 1 : "");
    else if (!strcmp(decl, "Kgen.Ops")) kg_sb_printf(o, "Ops.%s", name);
    else ident(o, name);
    for (int i = 0; i < na; i++) kg_sb_putc(o, ' '), expr(R, cJSON_GetArrayItem(args, i), P_ATOM);
  } else if (is_node(obj)) { /* instance method */
    expr(R, obj, P_ATOM);
    kg_sb_printf(o, ".%s", name);
    arg_list(R, args, written_args(n, name));
  } else if (strstr(decl, "ExtensionMethods") && na >= 1) { /* x.ToScalar() */
    expr(R, cJSON_GetArrayItem(args, 0), P_ATOM);
    kg_sb_printf(o, ".%s(", name);
    for (int i = 1; i < na; i++) {
      if (i > 1) kg_sb_puts(o, ", ");
      expr(R, cJSON_GetArrayItem(args, i), P_CMP);
    }
    kg_sb_putc(o, ')');
  } else {
    fs_type_s(o, decl);
    kg_sb_printf(o, ".%s", name);
    arg_list(R, args, written_args(n, name));
  }
  close_paren(R, prec, need);
}

static void lambda_params(const fsr *R, const cJSON **n) {
  while (kind_is(*n, "Lambda")) {
    const cJSON *v = var_of(R, *n);
    kg_sb_puts(R->o, " (");
    ident(R->o, v ? str(v, "name") : "v?");
    kg_sb_puts(R->o, ": ");
    fs_type_s(R->o, v ? str(v, "type") : "?");
    kg_sb_putc(R->o, ')');
    *n = get(*n, "body");
  }
}

static void expr(const fsr *R, const cJSON *n, int need) {
  kg_strbuf *o = R->o;
  if (!is_node(n)) {
    kg_sb_puts(o, "(* ? *)");
    return;
  }
  const char *k = str(n, "k");
  int prec = prec_of(R, n);
  if (!strcmp(k, "Call")) {
    call(R, n, need);
    return;
  }
  open_paren(R, prec, need);
  if (!strcmp(k, "Var")) var_name(R, n);
  else if (!strcmp(k, "Value")) literal(R, n);
  else if (!strcmp(k, "ValueWithName")) ident(o, str(n, "name"));
  else if (!strcmp(k, "Coerce")) expr(R, get(n, "expr"), need);
  else if (!strcmp(k, "FieldGet") || !strcmp(k, "PropertyGet")) {
    const cJSON *m = get(n, !strcmp(k, "FieldGet") ? "field" : "property"), *obj = get(n, "obj");
    if (is_node(obj)) expr(R, obj, P_ATOM);
    else fs_type_s(o, str(m, "decl"));
    if (!strcmp(str(m, "name"), "TensorItems")) {
      const cJSON *a;
      bool first = true;
      kg_sb_puts(o, ".[");
      cJSON_ArrayForEach(a, get(n, "args")) {
        if (!first) kg_sb_puts(o, ", ");
        first = false;
        expr(R, a, P_CMP);
      }
      kg_sb_putc(o, ']');
    } else {
      kg_sb_printf(o, ".%s", str(m, "name"));
      if (cJSON_GetArraySize(get(n, "args")) > 0) arg_list(R, get(n, "args"), cJSON_GetArraySize(get(n, "args")));
    }
  } else if (!strcmp(k, "NewTuple") || !strcmp(k, "NewStructTuple") || !strcmp(k, "NewArray")) {
    bool arr = !strcmp(k, "NewArray");
    kg_sb_puts(o, arr ? "[| " : !strcmp(k, "NewStructTuple") ? "struct (" : "(");
    const cJSON *a;
    bool first = true;
    cJSON_ArrayForEach(a, get(n, "items")) {
      if (!first) kg_sb_puts(o, arr ? "; " : ", ");
      first = false;
      expr(R, a, P_CMP);
    }
    kg_sb_puts(o, arr ? " |]" : ")");
  } else if (!strcmp(k, "TupleGet")) {
    const cJSON *t = get(n, "tuple");
    int idx = cJSON_GetObjectItemCaseSensitive(n, "index") ? get(n, "index")->valueint : 0;
    kg_sb_puts(o, idx == 0 ? "fst " : "snd ");
    expr(R, t, P_ATOM);
    if (idx > 1) kg_sb_printf(o, " (* item %d *)", idx);
  } else if (!strcmp(k, "NewObject")) {
    fs_type_s(o, str(get(n, "ctor"), "decl"));
    arg_list(R, get(n, "args"), cJSON_GetArraySize(get(n, "args")));
  } else if (!strcmp(k, "DefaultValue")) {
    kg_sb_puts(o, "Unchecked.defaultof<");
    fs_type_s(o, str(n, "ty"));
    kg_sb_putc(o, '>');
  } else if (!strcmp(k, "Lambda")) {
    kg_sb_puts(o, "fun");
    const cJSON *b = n;
    lambda_params(R, &b);
    kg_sb_puts(o, " ->");
    if (is_block(b)) block(R, b, R->ind + 1); /* lines below the statement holding the lambda */
    else kg_sb_putc(o, ' '), expr(R, b, P_LOW);
  } else if (!strcmp(k, "Application")) {
    expr(R, get(n, "func"), P_APP);
    kg_sb_putc(o, ' ');
    expr(R, get(n, "arg"), P_ATOM);
  } else if (!strcmp(k, "IfThenElse") && and_or(n)) {
    bool and = and_or(n)[0] == '&';
    expr(R, get(n, "cond"), P_CMP);
    kg_sb_printf(o, " %s ", and ? "&&" : "||");
    expr(R, get(n, and ? "then" : "else"), P_CMP);
  } else if (!strcmp(k, "IfThenElse")) {
    kg_sb_puts(o, "if ");
    expr(R, get(n, "cond"), P_LOW);
    kg_sb_puts(o, " then ");
    expr(R, get(n, "then"), P_LOW);
    const cJSON *e = get(n, "else");
    if (!(kind_is(e, "Value") && !strcmp(str(e, "ty"), "Microsoft.FSharp.Core.Unit"))) {
      kg_sb_puts(o, " else ");
      expr(R, e, P_LOW);
    }
  } else if (!strcmp(k, "Let")) {
    const cJSON *v = var_of(R, n);
    kg_sb_puts(o, v && cJSON_IsTrue(get(v, "mutable")) ? "let mutable " : "let ");
    var_name(R, n);
    kg_sb_puts(o, " = ");
    expr(R, get(n, "value"), P_LOW);
    kg_sb_puts(o, " in ");
    expr(R, get(n, "body"), P_LOW);
  } else if (!strcmp(k, "Sequential")) {
    expr(R, get(n, "first"), P_LOW);
    kg_sb_puts(o, "; ");
    expr(R, get(n, "second"), P_LOW);
  } else if (!strcmp(k, "VarSet")) {
    var_name(R, n);
    kg_sb_puts(o, " <- ");
    expr(R, get(n, "value"), P_LOW);
  } else kg_sb_printf(o, "(* %s *)", k);
  close_paren(R, prec, need);
}

/* ---- statements ---- */
static bool is_block(const cJSON *n) {
  return kind_is(n, "Let") || kind_is(n, "Sequential") || kind_is(n, "ForIntegerRangeLoop") || kind_is(n, "WhileLoop") ||
         (kind_is(n, "IfThenElse") && (is_block(get(n, "then")) || is_block(get(n, "else"))));
}

static void line(const fsr *R, int ind) {
  if (R->o->len && R->o->s[R->o->len - 1] != '\n') kg_sb_putc(R->o, '\n');
  for (int i = 0; i < ind; i++) kg_sb_puts(R->o, "    ");
}

static void block(const fsr *R0, const cJSON *n, int ind) {
  fsr L = *R0;
  L.ind = ind;
  const fsr *R = &L;
  kg_strbuf *o = R->o;
  if (kind_is(n, "Let")) {
    const cJSON *v = var_of(R, n), *val = get(n, "value");
    line(R, ind);
    kg_sb_puts(o, v && cJSON_IsTrue(get(v, "mutable")) ? "let mutable " : "let ");
    var_name(R, n);
    kg_sb_puts(o, " =");
    if (is_block(val)) block(R, val, ind + 1);
    else kg_sb_putc(o, ' '), expr(R, val, P_LOW);
    block(R, get(n, "body"), ind);
  } else if (kind_is(n, "Sequential")) {
    block(R, get(n, "first"), ind);
    block(R, get(n, "second"), ind);
  } else if (kind_is(n, "ForIntegerRangeLoop")) {
    line(R, ind);
    kg_sb_puts(o, "for ");
    var_name(R, n);
    kg_sb_puts(o, " in ");
    expr(R, get(n, "start"), P_ADD);
    kg_sb_puts(o, " .. ");
    expr(R, get(n, "end"), P_ADD);
    kg_sb_puts(o, " do");
    block(R, get(n, "body"), ind + 1);
  } else if (kind_is(n, "WhileLoop")) {
    line(R, ind);
    kg_sb_puts(o, "while ");
    expr(R, get(n, "cond"), P_LOW);
    kg_sb_puts(o, " do");
    block(R, get(n, "body"), ind + 1);
  } else if (kind_is(n, "IfThenElse") && is_block(n)) {
    line(R, ind);
    kg_sb_puts(o, "if ");
    expr(R, get(n, "cond"), P_LOW);
    kg_sb_puts(o, " then");
    block(R, get(n, "then"), ind + 1);
    const cJSON *e = get(n, "else");
    if (!(kind_is(e, "Value") && !strcmp(str(e, "ty"), "Microsoft.FSharp.Core.Unit"))) {
      line(R, ind);
      kg_sb_puts(o, "else");
      block(R, e, ind + 1);
    }
  } else {
    line(R, ind);
    expr(R, n, P_LOW);
  }
}

/* ---- entries ---- */
static void signature(kg_strbuf *o, const cJSON *sig) {
  const cJSON *p;
  bool first = true;
  cJSON_ArrayForEach(p, get(sig, "params")) {
    if (!first) kg_sb_puts(o, ", ");
    first = false;
    if (cJSON_IsString(get(p, "scalar"))) {
      kg_sb_puts(o, str(p, "scalar"));
      continue;
    }
    kg_sb_printf(o, "%s[", str(p, "dtype"));
    const cJSON *d;
    bool f2 = true;
    cJSON_ArrayForEach(d, get(p, "shape")) {
      if (!f2) kg_sb_putc(o, ',');
      f2 = false;
      if (cJSON_IsNumber(d)) kg_sb_printf(o, "%.0f", d->valuedouble);
      else if (cJSON_IsString(d)) kg_sb_puts(o, d->valuestring);
      else kg_sb_putc(o, '?');
    }
    kg_sb_putc(o, ']');
  }
}

/* `fun (a: T) (b: U) -> body` as the entry's quotation (statement body indented). */
static void quotation(const fsr *R, const cJSON *e, int ind) {
  kg_strbuf *o = R->o, body;
  kg_sb_init(&body);
  fsr B = {R->vars, R->defs, &body, ind + 1};
  const cJSON *b = e;
  kg_strbuf head;
  kg_sb_init(&head);
  fsr H = {R->vars, R->defs, &head, ind};
  kg_sb_puts(&head, "<@ fun");
  lambda_params(&H, &b);
  kg_sb_puts(&head, " ->");
  block(&B, b, ind + 1);
  const char *bt = kg_sb_cstr(&body);
  const char *first_nl = strchr(bt + 1, '\n');
  size_t lead = strspn(bt, "\n ");
  if (!first_nl && strlen(bt) - lead + head.len + (size_t)ind * 4 < 100) { /* one line */
    line(R, ind);
    kg_sb_printf(o, "%s %s @>", kg_sb_cstr(&head), bt + lead);
  } else {
    line(R, ind);
    kg_sb_printf(o, "%s\n%s @>", kg_sb_cstr(&head), bt);
  }
  kg_sb_free(&body);
  kg_sb_free(&head);
}

char *kg_fs_render(const cJSON *doc, const char *module, const char *comment) {
  kg_strbuf o;
  kg_sb_init(&o);
  fsr R = {get(doc, "vars"), get(doc, "definitions"), &o, 0};
  if (comment && *comment) {
    for (const char *p = comment; *p;) { /* every line of the comment as a // line */
      size_t l = strcspn(p, "\n");
      kg_sb_puts(&o, "// ");
      kg_sb_putn(&o, p, l);
      kg_sb_putc(&o, '\n');
      p += l + (p[l] == '\n');
    }
  }
  kg_sb_printf(&o, "module %s\n\nopen TorchSharp\n", module && *module ? module : "Reduced");
  bool uses_ops = false;
  char *text = cJSON_PrintUnformatted(doc);
  if (text && strstr(text, "\"Kgen.Ops\"")) uses_ops = true;
  cJSON_free(text);
  if (uses_ops) kg_sb_puts(&o, "open Kgen\n");
  const cJSON *d;
  cJSON_ArrayForEach(d, R.defs) {
    kg_sb_puts(&o, "\n[<ReflectedDefinition>]\nlet ");
    ident(&o, str(get(d, "member"), "name"));
    const cJSON *b = get(d, "expr");
    lambda_params(&R, &b);
    kg_sb_puts(&o, " =");
    block(&R, b, 1);
    kg_sb_putc(&o, '\n');
  }
  const cJSON *e;
  cJSON_ArrayForEach(e, get(doc, "entries")) {
    kg_sb_puts(&o, "\n[<Kgen.Entry(\"");
    signature(&o, get(e, "signature"));
    kg_sb_puts(&o, "\")>]\nlet ");
    ident(&o, str(e, "name"));
    kg_sb_puts(&o, " =");
    quotation(&R, get(e, "expr"), 1);
    kg_sb_putc(&o, '\n');
  }
  return kg_sb_take(&o);
}
