/* cli/reduce_edits.c — the edits `kgen reduce` tries on a kgen document (reduce.h).
 *
 * Each pass enumerates, in a fixed order, every edit of its kind that applies to the document
 * (so the k-th edit is well defined and the reduction deterministic) and applies the k-th to
 * the driver's private copy. The passes, in the order of a round:
 *   entries       drop the other entries and the definitions (one at a time)
 *   tuple         a returned tuple becomes the failing item, or loses an item
 *   operand       a node becomes one of its operands of the same type (drops the node:
 *                 `(a + b).exp()` -> `a + b`, `let t = e in b` -> `b`)
 *   inline        a let whose variable is used once is inlined
 *   param         a tensor subtree (or a let variable's use) becomes a tensor parameter
 *   unused-param  a parameter no node reads is dropped (with its signature entry)
 *   sig-dtype     parameter dtypes toward float32, then int64 (all parameters, then each)
 *   sig-shape     sizes toward 1 (all at once, then the leading dim of the largest ranks
 *                 dropped, each dim dropped, each size to 1 / 2 / 3 / a smaller odd one,
 *                 each symbol to 1 / 2 / 3)
 *   cast          dtypes named in the body (torch.float16, .half()) toward float32 / int64
 *   constant      numbers toward 0, 1, 2
 * Nodes are replaced in place (their members swapped), so a parent never needs rewiring; the
 * types along the entry's spine (Lambda, Let, Sequential, NewTuple) are recomputed after each
 * edit. Witness lambdas of F# operators are never edited: they are part of the operator call.
 */
#include "reduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_TENSOR "TorchSharp.torch+Tensor"

/* ---- helpers ---- */
static cJSON *get(const cJSON *n, const char *k) { return cJSON_GetObjectItemCaseSensitive(n, k); }
static const char *str(const cJSON *n, const char *k) {
  const cJSON *s = get(n, k);
  return cJSON_IsString(s) ? s->valuestring : "";
}
static bool is_node(const cJSON *n) { return cJSON_IsObject(n) && cJSON_IsString(get(n, "k")); }
static bool kind_is(const cJSON *n, const char *k) { return is_node(n) && !strcmp(str(n, "k"), k); }
static int var_idx(const cJSON *n) {
  const cJSON *v = get(n, "var");
  return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* The k-th applicable edit: `if (take(&t)) { apply; return true; }` for each applicable one. */
typedef struct iter {
  int k, i;
} iter;
static bool take(iter *t) { return t->i++ == t->k; }

/* A node's expression children in pre-order, with the object or array holding each. */
typedef struct nref {
  cJSON *n, *holder;
} nref;
typedef struct nlist {
  nref *v;
  int n, cap;
} nlist;

static void push(nlist *l, cJSON *n, cJSON *holder) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    nref *nv = realloc(l->v, (size_t)l->cap * sizeof *nv);
    if (!nv) abort(); /* out of memory: as kg_xrealloc does */
    l->v = nv;
  }
  l->v[l->n].n = n, l->v[l->n++].holder = holder;
}

static void collect(nlist *l, cJSON *n, cJSON *holder) {
  push(l, n, holder);
  for (cJSON *c = n->child; c; c = c->next) {
    if (c->string && !strcmp(c->string, "witnesses")) continue;
    if (is_node(c)) collect(l, c, n);
    else if (cJSON_IsArray(c))
      for (cJSON *e = c->child; e; e = e->next)
        if (is_node(e)) collect(l, e, c);
  }
}

/* Direct expression children of n (a child's holder is n or an array member of n). */
static int children(cJSON *n, nref *out, int cap) {
  int m = 0;
  for (cJSON *c = n->child; c; c = c->next) {
    if (c->string && !strcmp(c->string, "witnesses")) continue;
    if (is_node(c) && m < cap) out[m].n = c, out[m++].holder = n;
    else if (cJSON_IsArray(c))
      for (cJSON *e = c->child; e; e = e->next)
        if (is_node(e) && m < cap) out[m].n = e, out[m++].holder = c;
  }
  return m;
}

/* dst takes src's members (src detached from the tree; freed). */
static void overwrite(cJSON *dst, cJSON *src) {
  cJSON *old = dst->child;
  dst->child = src->child;
  src->child = NULL;
  cJSON *h = cJSON_CreateObject();
  h->child = old;
  cJSON_Delete(h);
  cJSON_Delete(src);
}

static int uses_of(const cJSON *n, int v) {
  int c = kind_is(n, "Var") && var_idx(n) == v;
  for (const cJSON *ch = n->child; ch; ch = ch->next)
    if (cJSON_IsObject(ch) || cJSON_IsArray(ch)) c += uses_of(ch, v);
  return c;
}

static cJSON *find_use(cJSON *n, int v) {
  if (kind_is(n, "Var") && var_idx(n) == v) return n;
  for (cJSON *ch = n->child; ch; ch = ch->next)
    if (cJSON_IsObject(ch) || cJSON_IsArray(ch)) {
      cJSON *f = find_use(ch, v);
      if (f) return f;
    }
  return NULL;
}

cJSON *kg_red_entry(const cJSON *doc, const char *name) {
  cJSON *e;
  cJSON_ArrayForEach(e, get(doc, "entries")) if (!name || !strcmp(str(e, "name"), name)) return e;
  return NULL;
}

/* The entry's curried Lambda chain: its parameters and the body below them. */
typedef struct spine {
  cJSON *entry, *lam[16], *body;
  int np;
  bool tensor[16]; /* the parameter is a tensor */
} spine;

static bool get_spine(cJSON *doc, const char *entry, spine *s) {
  memset(s, 0, sizeof *s);
  s->entry = kg_red_entry(doc, entry);
  cJSON *n = s->entry ? get(s->entry, "expr") : NULL, *vars = get(doc, "vars");
  if (!is_node(n)) return false;
  while (kind_is(n, "Lambda") && s->np < 16) {
    const cJSON *v = cJSON_GetArrayItem(vars, var_idx(n));
    s->tensor[s->np] = v && !strcmp(str(v, "type"), T_TENSOR);
    s->lam[s->np++] = n;
    n = get(n, "body");
  }
  s->body = n;
  return is_node(n) && s->np > 0;
}

/* Types along the spine after an edit: Lambda, Let, Sequential and NewTuple take theirs from
 * what they hold. */
static const char *fix_types(cJSON *n, const cJSON *vars) {
  const char *k = str(n, "k");
  const char *t = NULL;
  char buf[4096];
  if (!strcmp(k, "Let")) t = fix_types(get(n, "body"), vars);
  else if (!strcmp(k, "Sequential")) t = fix_types(get(n, "second"), vars);
  else if (!strcmp(k, "Lambda")) {
    const char *b = fix_types(get(n, "body"), vars);
    const cJSON *v = cJSON_GetArrayItem(vars, var_idx(n));
    snprintf(buf, sizeof buf, "Microsoft.FSharp.Core.FSharpFunc`2[%s,%s]", v ? str(v, "type") : "?", b);
    t = buf;
  } else if (!strcmp(k, "NewTuple")) {
    int m = cJSON_GetArraySize(get(n, "items")), len = snprintf(buf, sizeof buf, "System.Tuple`%d[", m);
    const cJSON *it;
    cJSON_ArrayForEach(it, get(n, "items")) len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s", it == get(n, "items")->child ? "" : ",", str(it, "ty"));
    snprintf(buf + len, sizeof buf - (size_t)len, "]");
    t = buf;
  }
  if (t && strcmp(t, str(n, "ty")) != 0) cJSON_ReplaceItemInObjectCaseSensitive(n, "ty", cJSON_CreateString(t));
  return str(n, "ty");
}

static void fix_spine(cJSON *doc, const char *entry) {
  cJSON *e = kg_red_entry(doc, entry);
  if (e && is_node(get(e, "expr"))) fix_types(get(e, "expr"), get(doc, "vars"));
}

/* ---- entries: the other entries and the definitions ---- */
static bool p_entries(cJSON *doc, int k, kg_red_edit *e) {
  iter t = {k, 0};
  cJSON *ents = get(doc, "entries");
  int i = 0;
  for (cJSON *x = ents ? ents->child : NULL; x; x = x->next, i++)
    if (strcmp(str(x, "name"), e->entry) != 0 && take(&t)) {
      snprintf(e->what, sizeof e->what, "dropped entry %.60s", str(x, "name"));
      cJSON_DeleteItemFromArray(ents, i);
      return true;
    }
  cJSON *defs = get(doc, "definitions");
  i = 0;
  for (cJSON *x = defs ? defs->child : NULL; x; x = x->next, i++)
    if (take(&t)) {
      snprintf(e->what, sizeof e->what, "dropped definition %.60s", str(get(x, "member"), "name"));
      cJSON_DeleteItemFromArray(defs, i);
      return true;
    }
  return false;
}

/* ---- tuple: the returned tuple ---- */
static bool p_tuple(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s)) return false;
  cJSON *n = s.body;
  while (kind_is(n, "Let") || kind_is(n, "Sequential")) n = get(n, kind_is(n, "Let") ? "body" : "second");
  if (!kind_is(n, "NewTuple")) return false;
  cJSON *items = get(n, "items");
  int m = cJSON_GetArraySize(items);
  iter t = {k, 0};
  /* the tuple becomes one item: the failing one first (any one when the failure names none) */
  for (int j = 0; j < m; j++) {
    int i = e->has_out ? (j == 0 ? e->out : -1) : j;
    if (i < 0 || i >= m || !take(&t)) continue;
    snprintf(e->what, sizeof e->what, "the returned %d-tuple became its item %d", m, i);
    overwrite(n, cJSON_DetachItemFromArray(items, i));
    e->out = 0;
    return true;
  }
  for (int j = m - 1; j >= 0 && m > 2; j--) /* or loses one item */
    if ((!e->has_out || j != e->out) && take(&t)) {
      snprintf(e->what, sizeof e->what, "dropped item %d of the returned %d-tuple", j, m);
      cJSON_DeleteItemFromArray(items, j);
      if (e->has_out && j < e->out) e->out--;
      return true;
    }
  return false;
}

/* ---- operand: a node becomes one of its children of the same type ---- */
static bool p_operand(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s)) return false;
  nlist l = {0};
  collect(&l, s.body, s.lam[s.np - 1]);
  iter t = {k, 0};
  bool done = false;
  for (int i = 0; i < l.n && !done; i++) {
    cJSON *n = l.v[i].n;
    if (kind_is(n, "Lambda")) continue;
    nref ch[16];
    int m = children(n, ch, 16);
    for (int j = 0; j < m && !done; j++)
      if (!strcmp(str(ch[j].n, "ty"), str(n, "ty")) && take(&t)) {
        const cJSON *meth = get(n, "method");
        snprintf(e->what, sizeof e->what, "node %d (%s%s%.40s) became its operand %d", i, str(n, "k"), meth ? " " : "", meth ? str(meth, "name") : "", j);
        overwrite(n, cJSON_DetachItemViaPointer(ch[j].holder, ch[j].n));
        done = true;
      }
  }
  free(l.v);
  return done;
}

/* ---- inline: let v = e in b, v used once -> b[v := e] ---- */
static bool p_inline(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s)) return false;
  nlist l = {0};
  collect(&l, s.body, s.lam[s.np - 1]);
  iter t = {k, 0};
  bool done = false;
  for (int i = 0; i < l.n && !done; i++) {
    cJSON *n = l.v[i].n;
    if (!kind_is(n, "Let") || uses_of(get(n, "body"), var_idx(n)) != 1 || !take(&t)) continue;
    int v = var_idx(n);
    cJSON *val = cJSON_DetachItemFromObjectCaseSensitive(n, "value"), *body = cJSON_DetachItemFromObjectCaseSensitive(n, "body");
    overwrite(find_use(body, v), val);
    overwrite(n, body);
    const cJSON *var = cJSON_GetArrayItem(get(doc, "vars"), v);
    snprintf(e->what, sizeof e->what, "inlined let %.40s (used once)", var ? str(var, "name") : "?");
    done = true;
  }
  free(l.v);
  return done;
}

/* ---- param: a tensor subtree becomes a tensor parameter ---- */
static bool p_param(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s)) return false;
  nlist l = {0};
  collect(&l, s.body, s.lam[s.np - 1]);
  iter t = {k, 0};
  bool done = false;
  for (int i = 0; i < l.n && !done; i++) {
    cJSON *n = l.v[i].n;
    if (strcmp(str(n, "ty"), T_TENSOR) != 0 || kind_is(n, "Value") || kind_is(n, "DefaultValue") || kind_is(n, "ValueWithName")) continue;
    bool is_param = false;
    for (int p = 0; p < s.np; p++) is_param |= kind_is(n, "Var") && var_idx(n) == var_idx(s.lam[p]);
    if (is_param) continue;
    for (int p = 0; p < s.np && !done; p++)
      if (s.tensor[p] && take(&t)) {
        const cJSON *meth = get(n, "method"), *var = cJSON_GetArrayItem(get(doc, "vars"), var_idx(s.lam[p]));
        snprintf(e->what, sizeof e->what, "node %d (%s%s%.40s) became parameter %.30s", i, str(n, "k"), meth ? " " : "", meth ? str(meth, "name") : "",
                 var ? str(var, "name") : "?");
        cJSON *v = cJSON_CreateObject();
        cJSON_AddStringToObject(v, "k", "Var");
        cJSON_AddStringToObject(v, "ty", T_TENSOR);
        cJSON_AddNumberToObject(v, "var", var_idx(s.lam[p]));
        overwrite(n, v);
        done = true;
      }
  }
  free(l.v);
  return done;
}

/* ---- unused-param: a parameter no node reads ---- */
static bool p_unused_param(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s) || s.np < 2) return false;
  cJSON *params = get(get(s.entry, "signature"), "params");
  if (cJSON_GetArraySize(params) != s.np) return false;
  iter t = {k, 0};
  for (int p = s.np - 1; p >= 0; p--) {
    if (uses_of(s.body, var_idx(s.lam[p])) != 0 || !take(&t)) continue;
    const cJSON *var = cJSON_GetArrayItem(get(doc, "vars"), var_idx(s.lam[p]));
    snprintf(e->what, sizeof e->what, "dropped unused parameter %.40s", var ? str(var, "name") : "?");
    overwrite(s.lam[p], cJSON_DetachItemFromObjectCaseSensitive(s.lam[p], "body"));
    cJSON_DeleteItemFromArray(params, p);
    return true;
  }
  return false;
}

/* ---- dtypes: float32 < int64 < the rest ---- */
static int dtype_cost(const char *d) {
  if (!strcmp(d, "float32") || !strcmp(d, "float")) return 0;
  if (!strcmp(d, "int64") || !strcmp(d, "long")) return 1;
  return 2;
}

static bool p_sig_dtype(cJSON *doc, int k, kg_red_edit *e) {
  cJSON *params = get(get(kg_red_entry(doc, e->entry), "signature"), "params"), *p;
  static const char *const to[2] = {"float32", "int64"};
  iter t = {k, 0};
  for (int w = 0; w < 2; w++) { /* every tensor parameter at once */
    bool any = false;
    cJSON_ArrayForEach(p, params) any |= cJSON_IsString(get(p, "dtype")) && dtype_cost(str(p, "dtype")) > dtype_cost(to[w]);
    if (!any || !take(&t)) continue;
    cJSON_ArrayForEach(p, params) if (cJSON_IsString(get(p, "dtype")) && dtype_cost(str(p, "dtype")) > dtype_cost(to[w]))
        cJSON_ReplaceItemInObjectCaseSensitive(p, "dtype", cJSON_CreateString(to[w]));
    snprintf(e->what, sizeof e->what, "parameter dtypes became %s", to[w]);
    return true;
  }
  int i = 0;
  cJSON_ArrayForEach(p, params) {
    for (int w = 0; w < 2; w++)
      if (cJSON_IsString(get(p, "dtype")) && dtype_cost(str(p, "dtype")) > dtype_cost(to[w]) && take(&t)) {
        snprintf(e->what, sizeof e->what, "parameter %d: %s became %s", i, str(p, "dtype"), to[w]);
        cJSON_ReplaceItemInObjectCaseSensitive(p, "dtype", cJSON_CreateString(to[w]));
        return true;
      }
    i++;
  }
  return false;
}

/* ---- sig-shape ---- */
static bool big_dim(const cJSON *d) { return (cJSON_IsNumber(d) && d->valuedouble > 1) || cJSON_IsString(d) || cJSON_IsNull(d); }

static bool p_sig_shape(cJSON *doc, int k, kg_red_edit *e) {
  cJSON *params = get(get(kg_red_entry(doc, e->entry), "signature"), "params"), *p, *d;
  iter t = {k, 0};
  bool any = false; /* 1. every size above 1 becomes 1 */
  cJSON_ArrayForEach(p, params) cJSON_ArrayForEach(d, get(p, "shape")) any |= big_dim(d);
  if (any && take(&t)) {
    cJSON_ArrayForEach(p, params) {
      cJSON *sh = get(p, "shape");
      for (int j = 0; j < cJSON_GetArraySize(sh); j++)
        if (big_dim(cJSON_GetArrayItem(sh, j))) cJSON_ReplaceItemInArray(sh, j, cJSON_CreateNumber(1));
    }
    snprintf(e->what, sizeof e->what, "every size became 1");
    return true;
  }
  int maxr = 0; /* 2. the leading dim of the parameters of the largest rank goes */
  cJSON_ArrayForEach(p, params) if (cJSON_GetArraySize(get(p, "shape")) > maxr) maxr = cJSON_GetArraySize(get(p, "shape"));
  if (maxr > 0 && take(&t)) {
    cJSON_ArrayForEach(p, params) if (cJSON_GetArraySize(get(p, "shape")) == maxr) cJSON_DeleteItemFromArray(get(p, "shape"), 0);
    snprintf(e->what, sizeof e->what, "rank %d parameters lost their leading dim", maxr);
    return true;
  }
  int i = 0; /* 3. one dim of one parameter goes */
  cJSON_ArrayForEach(p, params) {
    for (int j = 0; j < cJSON_GetArraySize(get(p, "shape")); j++)
      if (take(&t)) {
        cJSON_DeleteItemFromArray(get(p, "shape"), j);
        snprintf(e->what, sizeof e->what, "parameter %d lost dim %d", i, j);
        return true;
      }
    i++;
  }
  i = 0; /* 4. one size gets smaller: 1, 2, 3, a smaller odd one; a symbol: 1, 2, 3 */
  cJSON_ArrayForEach(p, params) {
    cJSON *sh = get(p, "shape");
    for (int j = 0; j < cJSON_GetArraySize(sh); j++) {
      cJSON *x = cJSON_GetArrayItem(sh, j);
      double cur = cJSON_IsNumber(x) ? x->valuedouble : 13; /* what the check gives a symbol */
      double cand[4] = {1, 2, 3, (double)(((long long)cur / 2) | 1)};
      for (int c = 0; c < 4; c++) {
        bool dup = false;
        for (int c2 = 0; c2 < c; c2++) dup |= cand[c2] == cand[c];
        if (dup || cand[c] >= cur || (cJSON_IsString(x) && c == 3) || !take(&t)) continue;
        char was[48];
        if (cJSON_IsNumber(x)) snprintf(was, sizeof was, "%.0f", x->valuedouble);
        else snprintf(was, sizeof was, "%.40s", cJSON_IsString(x) ? x->valuestring : "?");
        snprintf(e->what, sizeof e->what, "parameter %d, dim %d: size %s became %.0f", i, j, was, cand[c]);
        cJSON_ReplaceItemInArray(sh, j, cJSON_CreateNumber(cand[c]));
        return true;
      }
    }
    i++;
  }
  return false;
}

/* ---- cast: dtypes named in the body ---- */
static const char *const dt_methods[] = {"bool", "byte", "char", "short", "int", "long", "half", "bfloat16", "float", "double"};

static bool p_cast(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s)) return false;
  nlist l = {0};
  collect(&l, s.body, s.lam[s.np - 1]);
  iter t = {k, 0};
  bool done = false;
  for (int i = 0; i < l.n && !done; i++) {
    cJSON *n = l.v[i].n, *m = NULL;
    const char *key = NULL, *to[2] = {NULL, NULL};
    if (kind_is(n, "FieldGet") && !strcmp(str(n, "ty"), "TorchSharp.torch+ScalarType") && !strcmp(str(get(n, "field"), "decl"), "TorchSharp.torch"))
      m = get(n, "field"), key = "name", to[0] = "float32", to[1] = "int64";
    else if (kind_is(n, "Call") && is_node(get(n, "obj")) && cJSON_GetArraySize(get(n, "args")) == 0 &&
             !strcmp(str(get(n, "method"), "decl"), T_TENSOR)) {
      for (size_t j = 0; j < sizeof dt_methods / sizeof *dt_methods; j++)
        if (!strcmp(str(get(n, "method"), "name"), dt_methods[j])) m = get(n, "method"), key = "name", to[0] = "float", to[1] = "long";
    }
    if (!m) continue;
    const char *cur = str(m, key);
    for (int w = 0; w < 2 && !done; w++)
      if (dtype_cost(cur) > dtype_cost(to[w]) && take(&t)) {
        snprintf(e->what, sizeof e->what, "node %d: %s became %s", i, cur, to[w]);
        cJSON_ReplaceItemInObjectCaseSensitive(m, key, cJSON_CreateString(to[w]));
        done = true;
      }
  }
  free(l.v);
  return done;
}

/* ---- constant: numbers toward 0, 1, 2 ---- */
static double const_cost(double v) { return (v == floor(v) ? 0 : 1000) + fabs(v); }

static bool p_constant(cJSON *doc, int k, kg_red_edit *e) {
  spine s;
  if (!get_spine(doc, e->entry, &s)) return false;
  nlist l = {0};
  collect(&l, s.body, s.lam[s.np - 1]);
  iter t = {k, 0};
  bool done = false;
  static const char *const numeric[] = {"System.Single", "System.Double", "System.Int32", "System.Int64", "System.Int16", "System.SByte", "System.Byte"};
  for (int i = 0; i < l.n && !done; i++) {
    cJSON *n = l.v[i].n, *v = get(n, "value");
    bool num = false;
    for (size_t j = 0; j < sizeof numeric / sizeof *numeric; j++) num |= !strcmp(str(n, "ty"), numeric[j]);
    if (!kind_is(n, "Value") || !num || !cJSON_IsNumber(v)) continue;
    for (int c = 0; c <= 2 && !done; c++)
      if (const_cost(c) < const_cost(v->valuedouble) && take(&t)) {
        snprintf(e->what, sizeof e->what, "constant %.9g became %d", v->valuedouble, c);
        cJSON_ReplaceItemInObjectCaseSensitive(n, "value", cJSON_CreateNumber(c));
        done = true;
      }
  }
  free(l.v);
  return done;
}

/* Every pass, wrapped so that the spine's types follow the edit. */
#define WRAP(f)                                                 \
  static bool f##_fixed(cJSON *doc, int k, kg_red_edit *e) {    \
    if (!f(doc, k, e)) return false;                            \
    fix_spine(doc, e->entry);                                   \
    return true;                                                \
  }
WRAP(p_entries)
WRAP(p_tuple)
WRAP(p_operand)
WRAP(p_inline)
WRAP(p_param)
WRAP(p_unused_param)
WRAP(p_sig_dtype)
WRAP(p_sig_shape)
WRAP(p_cast)
WRAP(p_constant)

const kg_red_pass kg_red_passes[] = {
    {"entries", p_entries_fixed},   {"tuple", p_tuple_fixed},         {"operand", p_operand_fixed},
    {"inline", p_inline_fixed},     {"param", p_param_fixed},         {"unused-param", p_unused_param_fixed},
    {"sig-dtype", p_sig_dtype_fixed}, {"sig-shape", p_sig_shape_fixed}, {"cast", p_cast_fixed},
    {"constant", p_constant_fixed},
};
const int kg_red_n_passes = (int)(sizeof kg_red_passes / sizeof *kg_red_passes);

/* ---- vars and nodes ---- */
static void mark_vars(const cJSON *n, bool *used, int nv) {
  for (const cJSON *c = n->child; c; c = c->next) {
    if (c->string && !strcmp(c->string, "var") && cJSON_IsNumber(c) && c->valueint >= 0 && c->valueint < nv) used[c->valueint] = true;
    if (cJSON_IsObject(c) || cJSON_IsArray(c)) mark_vars(c, used, nv);
  }
}
static void renumber(cJSON *n, const int *map, int nv) {
  for (cJSON *c = n->child; c; c = c->next) {
    if (c->string && !strcmp(c->string, "var") && cJSON_IsNumber(c) && c->valueint >= 0 && c->valueint < nv) cJSON_SetNumberValue(c, map[c->valueint]);
    if (cJSON_IsObject(c) || cJSON_IsArray(c)) renumber(c, map, nv);
  }
}

bool kg_red_compact_vars(cJSON *doc) {
  cJSON *vars = get(doc, "vars");
  int nv = cJSON_GetArraySize(vars);
  if (nv == 0) return false;
  bool *used = calloc((size_t)nv, sizeof *used);
  int *map = calloc((size_t)nv, sizeof *map);
  if (!used || !map) abort();
  for (const char *part = "entries"; part; part = !strcmp(part, "entries") ? "definitions" : NULL)
    if (get(doc, part)) mark_vars(get(doc, part), used, nv);
  int m = 0;
  for (int i = 0; i < nv; i++) map[i] = used[i] ? m++ : -1;
  bool changed = m < nv;
  if (changed) {
    for (int i = nv - 1; i >= 0; i--)
      if (!used[i]) cJSON_DeleteItemFromArray(vars, i);
    for (const char *part = "entries"; part; part = !strcmp(part, "entries") ? "definitions" : NULL)
      if (get(doc, part)) renumber(get(doc, part), map, nv);
  }
  free(used), free(map);
  return changed;
}

static int count(const cJSON *n) {
  int c = is_node(n);
  for (const cJSON *ch = n->child; ch; ch = ch->next) {
    if (ch->string && !strcmp(ch->string, "witnesses")) continue;
    if (cJSON_IsObject(ch) || cJSON_IsArray(ch)) c += count(ch);
  }
  return c;
}

int kg_red_count_nodes(const cJSON *doc) {
  int c = 0;
  const cJSON *x;
  cJSON_ArrayForEach(x, get(doc, "entries")) c += is_node(get(x, "expr")) ? count(get(x, "expr")) : 0;
  cJSON_ArrayForEach(x, get(doc, "definitions")) c += is_node(get(x, "expr")) ? count(get(x, "expr")) : 0;
  return c;
}
