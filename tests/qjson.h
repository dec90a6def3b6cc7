/* tests/qjson.h — tiny builders for quotation JSON in unit tests.
 *
 * Tests write F# expressions as nested builder calls; each returns a malloc'd
 * JSON string and frees its arguments, so expressions compose without leaks:
 *   char *e = CALLS("TorchSharp.torch", "tanh", T, ARGS1(VAR(0, T)), T);
 * Member keys follow the spec exactly (decl::name(params)). */
#ifndef KG_TEST_QJSON_H
#define KG_TEST_QJSON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T "TorchSharp.torch+Tensor"
#define F32 "System.Single"
#define F64 "System.Double"
#define I32 "System.Int32"
#define I64 "System.Int64"
#define BOOLT "System.Boolean"

static inline char *qj_fmt(const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, aq);
  va_end(aq);
  return s;
}

static inline char *qj_var(int v, const char *ty) { return qj_fmt("{\"k\":\"Var\",\"ty\":\"%s\",\"var\":%d}", ty, v); }
static inline char *qj_val(const char *ty, const char *v) { return qj_fmt("{\"k\":\"Value\",\"ty\":\"%s\",\"value\":%s}", ty, v); }

/* a comma-separated list of n node strings (consumed) */
static inline char *qj_list(int n, ...) {
  va_list ap;
  va_start(ap, n);
  size_t cap = 2;
  char *out = calloc(1, cap);
  for (int i = 0; i < n; i++) {
    char *s = va_arg(ap, char *);
    cap += strlen(s) + 2;
    out = realloc(out, cap);
    if (i) strcat(out, ",");
    strcat(out, s);
    free(s);
  }
  va_end(ap);
  return out;
}

/* params: comma-separated quoted CLR types, e.g. "\"" T "\",\"" F32 "\"" */
static inline char *qj_call(const char *obj, const char *decl, const char *name, int is_static, const char *params,
                            const char *ret, const char *generic, char *args) {
  char *s = qj_fmt("{\"k\":\"Call\",\"ty\":\"%s\",\"obj\":%s,\"method\":{\"decl\":\"%s\",\"name\":\"%s\",\"static\":%s,"
                   "\"params\":[%s],\"ret\":\"%s\",\"genericArgs\":[%s]},\"args\":[%s]}",
                   ret, obj ? obj : "null", decl, name, is_static ? "true" : "false", params, ret, generic ? generic : "", args);
  free(args);
  return s;
}

static inline char *qj_lambda(int var, const char *ty, char *body) {
  char *s = qj_fmt("{\"k\":\"Lambda\",\"ty\":\"%s\",\"var\":%d,\"body\":%s}", ty, var, body);
  free(body);
  return s;
}

/* A document: vars is a JSON array body, expr consumed, sig a JSON object or NULL. */
static inline char *qj_doc(const char *vars, const char *name, char *expr, const char *sig) {
  char *s = qj_fmt("{\"format\":\"kgen-quotation\",\"version\":1,\"vars\":[%s],\"entries\":[{\"name\":\"%s\",%s%s%s\"expr\":%s}]}",
                   vars, name, sig ? "\"signature\":" : "", sig ? sig : "", sig ? "," : "", expr);
  free(expr);
  return s;
}

#define TVAR(name) "{\"name\":\"" name "\",\"type\":\"" T "\",\"mutable\":false}"
#define SVAR(name, ty) "{\"name\":\"" name "\",\"type\":\"" ty "\",\"mutable\":false}"
#define MVAR(name, ty) "{\"name\":\"" name "\",\"type\":\"" ty "\",\"mutable\":true}"
#define FN(a, b) "Microsoft.FSharp.Core.FSharpFunc`2[" a "," b "]"

/* F# generic binary operator over (A, B) returning R */
static inline char *qj_fsop(const char *op, const char *a, const char *b, const char *r, char *x, char *y) {
  char *params = qj_fmt("\"%s\",\"%s\"", a, b), *gen = qj_fmt("\"%s\",\"%s\",\"%s\"", a, b, r);
  char *s = qj_call(NULL, "Microsoft.FSharp.Core.Operators", op, 1, params, r, gen, qj_list(2, x, y));
  free(params), free(gen);
  return s;
}

/* torch.NAME(tensor) static unary */
static inline char *qj_torch1(const char *name, char *x) {
  return qj_call(NULL, "TorchSharp.torch", name, 1, "\"" T "\"", T, NULL, qj_list(1, x));
}

#endif
