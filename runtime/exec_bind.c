/* runtime/exec_bind.c — the run's sizes from its tensors: each symbolic size bound where an
 * input first gives it and checked everywhere else (what_str names the tensor and dim of a
 * mismatch), derived sizes computed from the bound ones (kg_bind_derived, again after the
 * outputs), the broadcast guards between symbols (kg_check_guards). Split from exec.c, which
 * runs the entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

typedef kg_binding binding;


static const char *dtn(kg_dtype t) { return kg_dtype_name(t); }

typedef kg_bwhat bwhat;

static const char *what_str(const bwhat *w, char *buf, size_t n) {
  if (w->kind == 0) snprintf(buf, n, "input %u ('%s')", w->index + 1, w->name);
  else if (w->kind == 1) snprintf(buf, n, "capture '%s'", w->name);
  else snprintf(buf, n, "output %u", w->index);
  return buf;
}

bool kg_bind_tensor(kg_context *ctx, const kg_graph *g, kg_binding *B, const kg_gnode *n, const DLTensor *t,
                    const kg_bwhat *wh) {
  kg_diag *d = &ctx->diag;
  char wbuf[200];
#define what what_str(wh, wbuf, sizeof wbuf)
  if (!t) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s is missing", what);
    return false;
  }
  int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
  if (t->ndim != rank) {
    kg_diag_add(d, KG_E_SHAPE, NULL, NULL, "%s has rank %d; the compiled program expects rank %d", what, t->ndim, rank);
    return false;
  }
  kg_dtype dt = kg_dtype_from_dl(t->dtype);
  if (dt != n->dtype) {
    kg_diag_add(d, KG_E_TYPE, NULL, NULL, "%s has dtype %s; the compiled program expects %s", what,
                dt == KG_DT_NONE ? "(unsupported)" : dtn(dt), dtn((kg_dtype)n->dtype));
    return false;
  }
  /* sizes a tensor can have: none negative, and an element count a 64-bit index reaches (the
   * widest index type of the kernels) */
  if (rank && !t->shape) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s has rank %d but no shape array", what, rank);
    return false;
  }
  int64_t count = 1;
  bool over = false, empty = false;
  for (int i = 0; i < rank; i++) {
    empty |= t->shape[i] == 0;
    if (t->shape[i] < 0) {
      kg_diag_add(d, KG_E_SHAPE, NULL, NULL, "%s has a negative size %lld at dim %d", what, (long long)t->shape[i], i);
      return false;
    }
    over |= __builtin_mul_overflow(count, t->shape[i], &count);
  }
  if (over && !empty) {
    kg_strbuf b;
    kg_sb_init(&b);
    for (int i = 0; i < rank; i++) kg_sb_printf(&b, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    kg_diag_add(d, KG_E_LIMIT, NULL, NULL, "%s has shape [%s]: more elements than a 64-bit index addresses", what, kg_sb_cstr(&b));
    kg_sb_free(&b);
    return false;
  }
  for (int i = 0; i < rank; i++) {
    const kg_dim *dm = &n->shape.d[i];
    int64_t s = t->shape[i];
    if (dm->kind == KG_DIM_STATIC) {
      if (s != dm->v) {
        kg_diag_add(d, KG_E_SHAPE, NULL, NULL, "%s has size %lld at dim %d; the compiled program expects %lld", what, (long long)s, i, (long long)dm->v);
        return false;
      }
    } else if (B->bound[dm->v] && B->sym[dm->v] != s) {
      kg_diag_add(d, KG_E_SHAPE, NULL, NULL, "%s has size %lld at dim %d, but symbol %s is already %lld", what, (long long)s, i,
                  g->syms.v[dm->v], (long long)B->sym[dm->v]);
      return false;
    } else {
      B->sym[dm->v] = s, B->bound[dm->v] = 1;
    }
  }
  return true;
}
#undef what

/* derived symbols (a view to a product of sizes, ir.h kg_symdef): coeff · Π their factors once
 * those are bound; one bound from a tensor (a region's input or output) must agree, and when it
 * is bound and one factor is not, that factor is solved from it (a region that gets [N*3, 4] and
 * computes [N, 3, 4]) */
bool kg_bind_derived(kg_context *ctx, const kg_graph *g, kg_binding *B) {
  for (bool again = true; again;) {
    again = false;
    for (uint32_t i = 0; i < g->symdefs.n; i++) {
      const kg_symdef *sd = &g->symdefs.v[i];
      int64_t v = sd->coeff;
      int unknown = -1, n_unknown = 0;
      bool ovf = false;
      for (int j = 0; j < sd->n; j++) {
        if (!B->bound[sd->f[j]]) {
          n_unknown += unknown < 0 || sd->f[unknown] != sd->f[j] ? 1 : 2; /* a repeated unknown is a square: not solved */
          unknown = j;
          continue;
        }
        ovf |= __builtin_mul_overflow(v, B->sym[sd->f[j]], &v);
      }
      if (ovf) {
        kg_diag_add(&ctx->diag, KG_E_LIMIT, NULL, NULL, "the size %s overflows 64 bits at these sizes", g->syms.v[sd->sym]);
        return false;
      }
      if (n_unknown == 1 && B->bound[sd->sym] && v != 0 && B->sym[sd->sym] % v == 0) {
        B->sym[sd->f[unknown]] = B->sym[sd->sym] / v, B->bound[sd->f[unknown]] = 1, again = true;
        continue;
      }
      if (n_unknown) continue;
      if (B->bound[sd->sym] && B->sym[sd->sym] != v) {
        kg_diag_add(&ctx->diag, KG_E_SHAPE, NULL, NULL, "a tensor has size %lld where %s is %lld", (long long)B->sym[sd->sym], g->syms.v[sd->sym],
                    (long long)v);
        return false;
      }
      if (!B->bound[sd->sym]) B->sym[sd->sym] = v, B->bound[sd->sym] = 1, again = true;
    }
  }
  return true;
}

bool kg_check_guards(kg_context *ctx, const kg_graph *g, kg_binding *B) {
  if (!kg_bind_derived(ctx, g, B)) return false;
  for (uint32_t i = 0; i < g->guards.n; i++) {
    const kg_sym_guard *q = &g->guards.v[i];
    if (B->bound[q->a] && B->bound[q->b] && B->sym[q->a] != B->sym[q->b]) {
      kg_diag_add(&ctx->diag, KG_E_SHAPE, q->path, q->srcloc, "shapes cannot be broadcast: %s is %lld but %s is %lld (neither is 1)",
                  g->syms.v[q->a], (long long)B->sym[q->a], g->syms.v[q->b], (long long)B->sym[q->b]);
      return false;
    }
  }
  return true;
}
