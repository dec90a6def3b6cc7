/* runtime/package_plan.c — a host plan (ir/plan.c: steps, blocks, regions) ⇄ JSON, for offline
 * kernel packages (runtime/package_ir.c holds the programs, fusions and kernels; docs/package.md
 * "The format").
 *
 * Every field of a step is written; the reader checks every index a step follows (nodes,
 * regions, blocks), that a step carries only the blocks its kind has (the printer and the
 * passes would follow any other), that no step is in two places, and then runs
 * kg_plan_verify (blocks form a tree, values defined before they are read, carried values
 * agree), so a corrupt or hostile plan is an error at its JSON path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

static const char *const pop_names[] = {"nodes", "region", "host", "read", "view", "size", "for", "while", "if"};

/* ---- writing ---- */

static void w_arr(kg_strbuf *b, const char *key, const uint32_t *v, uint32_t n) {
  if (!v) return;
  kg_sb_printf(b, ",\"%s\":", key);
  kg_pkw_u32s(b, v, n);
}

void kg_pkw_plan(kg_strbuf *b, const kg_plan *p) {
  kg_sb_puts(b, "{\"ops\":[");
  for (uint32_t i = 0; i < p->ops.n; i++) {
    const kg_pop *o = &p->ops.v[i];
    kg_sb_printf(b, "%s\n{\"kind\":\"%s\",\"view\":%u,\"dim\":%d,\"len\":", i ? "," : "", pop_names[o->kind], o->view, o->dim);
    kg_pkw_i64(b, o->len);
    kg_sb_printf(b, ",\"a\":%u,\"b\":%u,\"c\":%u,\"region\":%u,\"body\":%u,\"els\":%u,\"cond\":%u,\"n_car\":%u", o->a, o->b, o->c, o->region, o->body, o->els,
                 o->cond, o->n_car);
    w_arr(b, "nodes", o->nodes, o->n_nodes);
    w_arr(b, "init", o->init, o->n_car), w_arr(b, "phi", o->phi, o->n_car), w_arr(b, "yld", o->yld, o->n_car);
    w_arr(b, "yld2", o->yld2, o->n_car), w_arr(b, "res", o->res, o->n_car), w_arr(b, "kill", o->kill, o->n_kill);
    kg_sb_puts(b, ",\"path\":"), kg_pkw_str(b, o->path), kg_sb_puts(b, ",\"loc\":"), kg_pkw_str(b, o->srcloc), kg_sb_putc(b, '}');
  }
  kg_sb_puts(b, "],\"blocks\":[");
  for (uint32_t i = 0; i < p->blocks.n; i++) {
    kg_sb_puts(b, i ? ",{\"ops\":" : "{\"ops\":"), kg_pkw_u32s(b, p->blocks.v[i].ops.v, p->blocks.v[i].ops.n);
    kg_sb_puts(b, ",\"kill\":"), kg_pkw_u32s(b, p->blocks.v[i].kill, p->blocks.v[i].kill ? p->blocks.v[i].n_kill : 0), kg_sb_putc(b, '}');
  }
  kg_sb_puts(b, "],\"regions\":[");
  for (uint32_t i = 0; i < p->regions.n; i++) {
    const kg_region *r = &p->regions.v[i];
    kg_sb_puts(b, i ? ",{\"nodes\":" : "{\"nodes\":"), kg_pkw_u32s(b, r->nodes.v, r->nodes.n);
    kg_sb_puts(b, ",\"ins\":"), kg_pkw_u32s(b, r->ins.v, r->ins.n), kg_sb_puts(b, ",\"outs\":"), kg_pkw_u32s(b, r->outs.v, r->outs.n);
    kg_sb_printf(b, ",\"block\":%u,\"depth\":%u}", r->block, r->depth);
  }
  kg_sb_printf(b, "],\"partitioned\":%d}", p->partitioned ? 1 : 0);
}

/* ---- reading ---- */

static bool r_opt_arr(kg_pkr *R, const cJSON *o, const char *key, uint32_t n_expect, uint32_t hi, uint32_t **out, bool required) {
  const cJSON *a = kg_pkr_get(o, key);
  *out = NULL;
  if (!a) return !required || kg_pkr_fail(R, "%s: missing", key);
  uint32_t n;
  if (!kg_pkr_u32s(R, a, key, hi, out, &n)) return false;
  if (n_expect != KG_NONE && n != n_expect) return kg_pkr_fail(R, "%s: %u values, expected %u", key, n, n_expect);
  return true;
}

bool kg_pkr_plan(kg_pkr *R, const cJSON *j, const kg_graph *g, kg_plan *p) {
  static const char *const keys[] = {"ops", "blocks", "regions", "partitioned"};
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  const cJSON *ops = kg_pkr_get(j, "ops"), *blocks = kg_pkr_get(j, "blocks"), *regions = kg_pkr_get(j, "regions");
  if (!cJSON_IsArray(ops) || !cJSON_IsArray(blocks) || !cJSON_IsArray(regions) || !cJSON_GetArraySize(blocks))
    return kg_pkr_fail(R, "a plan needs ops, blocks (at least one) and regions");
  uint32_t nn = g->nodes.n, nb = (uint32_t)cJSON_GetArraySize(blocks), nr = (uint32_t)cJSON_GetArraySize(regions), no = (uint32_t)cJSON_GetArraySize(ops);
  int i = 0;
  for (const cJSON *x = regions->child; x; x = x->next, i++) {
    kg_region r;
    memset(&r, 0, sizeof r);
    int64_t blk, dep;
    kg_pkr_push(R, "regions", i);
    bool ok = kg_pkr_int(R, kg_pkr_get(x, "block"), "block", 0, nb - 1, &blk) && kg_pkr_int(R, kg_pkr_get(x, "depth"), "depth", 0, 1 << 20, &dep);
    r.block = (uint32_t)blk, r.depth = (uint32_t)dep;
    KG_VEC_PUSH(p->regions, r);
    kg_region *rp = &p->regions.v[p->regions.n - 1];
    if (ok) {
      R_VEC(R, x, "nodes", nn, rp->nodes);
      R_VEC(R, x, "ins", nn, rp->ins);
      R_VEC(R, x, "outs", nn, rp->outs);
    }
    kg_pkr_pop(R);
    if (!ok) return false;
  }
  i = 0;
  for (const cJSON *x = ops->child; x; x = x->next, i++) {
    static const char *const okeys[] = {"kind", "view", "dim", "len", "a", "b", "c", "region", "body", "els", "cond", "n_car",
                                        "nodes", "init", "phi", "yld", "yld2", "res", "kill", "path", "loc"};
    kg_pop o;
    memset(&o, 0, sizeof o);
    kg_pkr_push(R, "ops", i);
    const char *kind = kg_pkr_keys(R, x, okeys, (int)KG_COUNTOF(okeys)) ? kg_pkr_strv(R, kg_pkr_get(x, "kind"), "kind", false) : NULL;
    uint32_t k = 0;
    while (kind && k < KG_COUNTOF(pop_names) && strcmp(pop_names[k], kind)) k++;
    bool ok = kind != NULL;
    if (ok && k == KG_COUNTOF(pop_names)) ok = kg_pkr_fail(R, "plan step kind '%s' is not known to this kgen", kind);
    int64_t v[11];
    const char *const nk[] = {"view", "dim", "len", "a", "b", "c", "region", "body", "els", "cond", "n_car"};
    /* block fields hold KG_NONE when absent; node fields are checked where the step uses them */
    const int64_t hi[] = {KG_VIEW_UNSQUEEZE, KG_MAX_RANK - 1, INT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, nn};
    for (int q = 0; q < 11 && ok; q++) ok = kg_pkr_int(R, kg_pkr_get(x, nk[q]), nk[q], q == 2 ? 0 : q == 1 ? 0 : 0, hi[q], &v[q]);
    if (ok) {
      o.kind = (uint8_t)k, o.view = (uint8_t)v[0], o.dim = (int32_t)v[1], o.len = v[2], o.a = (uint32_t)v[3], o.b = (uint32_t)v[4], o.c = (uint32_t)v[5];
      o.region = (uint32_t)v[6], o.body = (uint32_t)v[7], o.els = (uint32_t)v[8], o.cond = (uint32_t)v[9], o.n_car = (uint32_t)v[10];
      bool loop = k == KG_P_FOR || k == KG_P_WHILE, iff = k == KG_P_IF;
      uint32_t nc = o.n_car;
      ok = (loop || iff || nc == 0 || kg_pkr_fail(R, "n_car on a step that carries nothing")) &&
           r_opt_arr(R, x, "init", nc, nn, &o.init, loop) && r_opt_arr(R, x, "phi", nc, nn, &o.phi, loop) &&
           r_opt_arr(R, x, "yld", nc, nn, &o.yld, loop || iff) && r_opt_arr(R, x, "yld2", nc, nn, &o.yld2, iff) &&
           r_opt_arr(R, x, "res", nc, nn, &o.res, loop || iff);
      if (ok && kg_pkr_get(x, "kill")) ok = kg_pkr_u32s(R, kg_pkr_get(x, "kill"), "kill", nn, &o.kill, &o.n_kill);
      if (ok && kg_pkr_get(x, "nodes")) ok = kg_pkr_u32s(R, kg_pkr_get(x, "nodes"), "nodes", nn, &o.nodes, &o.n_nodes);
      o.path = kg_pkr_strv(R, kg_pkr_get(x, "path"), "path", true), o.srcloc = kg_pkr_strv(R, kg_pkr_get(x, "loc"), "loc", true);
      /* the nodes each kind defines or reads directly (kg_plan_verify checks the rest) */
      if (ok && k == KG_P_REGION && o.region >= nr) ok = kg_pkr_fail(R, "region: no such region");
      if (ok && (k == KG_P_HOST || k == KG_P_READ || k == KG_P_VIEW || k == KG_P_SIZE || k == KG_P_FOR) && o.a >= nn) ok = kg_pkr_fail(R, "a: no such node");
      if (ok && (k == KG_P_READ || k == KG_P_VIEW || k == KG_P_SIZE || k == KG_P_FOR) && o.b >= nn) ok = kg_pkr_fail(R, "b: no such node");
      if (ok && ((k == KG_P_VIEW && o.view != KG_VIEW_UNSQUEEZE) || k == KG_P_FOR || k == KG_P_WHILE || k == KG_P_IF) && o.c >= nn)
        ok = kg_pkr_fail(R, "c: no such node");
      if (ok && (k == KG_P_FOR || k == KG_P_WHILE || k == KG_P_IF) && o.body >= nb) ok = kg_pkr_fail(R, "body: no such block");
      if (ok && k == KG_P_IF && o.els >= nb) ok = kg_pkr_fail(R, "els: no such block");
      if (ok && k == KG_P_WHILE && o.cond >= nb) ok = kg_pkr_fail(R, "cond: no such block");
      /* a block field the step's kind does not have stays absent (the printer and the passes
       * would follow it) */
      if (ok && ((!loop && !iff && o.body != KG_NONE) || (!iff && o.els != KG_NONE) || (k != KG_P_WHILE && o.cond != KG_NONE)))
        ok = kg_pkr_fail(R, "a %s step has no %s block", kind, !loop && !iff && o.body != KG_NONE ? "body" : !iff && o.els != KG_NONE ? "else" : "condition");
      if (ok && k == KG_P_HOST && g->nodes.v[o.a].n_in > 3) ok = kg_pkr_fail(R, "a host step of more than 3 operands");
      if (ok && k == KG_P_VIEW) {
        int rb = g->nodes.v[o.b].shape.rank, ra = g->nodes.v[o.a].shape.rank;
        bool fits = o.view == KG_VIEW_UNSQUEEZE ? o.dim <= rb && ra == rb + 1 : o.dim < rb && ra == (o.view == KG_VIEW_SELECT ? rb - 1 : rb);
        if (!fits || g->nodes.v[o.b].vkind != KG_V_TENSOR) ok = kg_pkr_fail(R, "a view whose dims do not fit its source");
        if (ok && o.view == KG_VIEW_NARROW && o.len < 0) ok = kg_pkr_fail(R, "a narrow of negative length");
      }
      if (ok && k == KG_P_SIZE && (g->nodes.v[o.b].vkind != KG_V_TENSOR || o.dim >= g->nodes.v[o.b].shape.rank)) ok = kg_pkr_fail(R, "a size of a dim the value lacks");
    }
    kg_pkr_pop(R);
    KG_VEC_PUSH(p->ops, o);
    if (!ok) return false;
  }
  for (uint32_t b = 0; b < p->blocks.n; b++) KG_VEC_FREE(p->blocks.v[b].ops); /* kg_plan_init's empty block 0 */
  p->blocks.n = 0;
  i = 0;
  for (const cJSON *x = blocks->child; x; x = x->next, i++) {
    kg_pblock bl;
    memset(&bl, 0, sizeof bl);
    kg_pkr_push(R, "blocks", i);
    uint32_t *v, n;
    bool ok = kg_pkr_u32s(R, kg_pkr_get(x, "ops"), "ops", no, &v, &n);
    for (uint32_t q = 0; ok && q < n; q++) KG_VEC_PUSH(bl.ops, v[q]);
    if (ok) ok = kg_pkr_u32s(R, kg_pkr_get(x, "kill"), "kill", nn, &bl.kill, &bl.n_kill);
    kg_pkr_pop(R);
    KG_VEC_PUSH(p->blocks, bl);
    if (!ok) return false;
  }
  p->partitioned = true;
  /* an op in two blocks (or twice in one) would run twice and let the verifier loop */
  uint8_t *seen = kg_xcalloc(no + 1, 1);
  bool ok = true;
  for (uint32_t b = 0; b < p->blocks.n && ok; b++)
    for (uint32_t q = 0; q < p->blocks.v[b].ops.n && ok; q++)
      if (seen[p->blocks.v[b].ops.v[q]]++) ok = kg_pkr_fail(R, "step %u is in more than one place", p->blocks.v[b].ops.v[q]);
  free(seen);
  if (!ok) return false;
  /* blocks form a tree, every value is defined before it is read, carried values agree */
  uint32_t mark = R->d->n;
  if (!kg_plan_verify(p, g, R->d)) {
    char why[256];
    snprintf(why, sizeof why, "%s", R->d->n > mark ? R->d->items[mark].msg : "?");
    kg_diag_truncate(R->d, mark);
    return kg_pkr_fail(R, "the host plan is not well formed (%s)", why);
  }
  return true;
}
