/* passes/pipeline.c — the pass pipeline in one function (QBE's func()).
 *
 * fold → cse → dce, repeated until nothing changes (at most 8 rounds), the
 * verifier after every pass; decompose (the lowered copy), drop_casts (casts to the dtype a value
 * already has), and the same rounds on it;
 * attention (a hand-written attention as the fused kernel); mm_transpose (a product's
 * transposed operand read as it is: x @ w.t() becomes linear's layout, which merge_products
 * looks for); merge_products (products of one input with slices of one weight, or with
 * separate weights at few rows, as one); fold_products (small matrix
 * products into their readers); then fusion. With a log (kgen explain) the program
 * is printed after each pass, or "(unchanged)"; KG_DUMP=fold,cse prints the
 * named passes to stderr. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "passes.h"

typedef bool (*graph_pass)(kg_graph *g, kg_pass_ctx *c);

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static bool wants_dump(const char *list, const char *name) {
  if (!list) return false;
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
  return strcmp(list, "all") == 0;
}

static bool run_one(kg_graph *g, kg_pass_ctx *c, const char *name, graph_pass fn, bool *changed) {
  double t0 = now_us();
  bool ch = fn(g, c);
  double t1 = now_us();
  *changed |= ch;
  if (c->log) {
    kg_sb_printf(c->log, "== after %s (%.1f us)%s\n", name, t1 - t0, ch ? "" : " (unchanged)");
    if (ch) kg_graph_print(g, c->log);
  }
  if (wants_dump(c->dump, name)) {
    kg_strbuf b;
    kg_sb_init(&b);
    kg_graph_print(g, &b);
    fprintf(stderr, "== after %s\n%s", name, kg_sb_cstr(&b));
    kg_sb_free(&b);
  }
  if (c->verify && !kg_graph_verify(g, c->d)) {
    kg_diag_add(c->d, KG_E_INTERNAL, NULL, NULL, "the program verifier failed after pass '%s'", name);
    return false;
  }
  return true;
}

static bool passes_to_fixpoint(kg_graph *g, kg_pass_ctx *c) {
  static const struct { const char *name; graph_pass fn; } passes[] = {
      {"fold", kg_pass_fold}, {"cse", kg_pass_cse}, {"dce", kg_pass_dce}};
  for (int round = 0; round < 8; round++) {
    bool changed = false;
    for (size_t i = 0; i < KG_COUNTOF(passes); i++)
      if (!run_one(g, c, passes[i].name, passes[i].fn, &changed)) return false;
    if (!changed) break;
  }
  return true;
}

bool kg_pipeline_lower(kg_graph *g, kg_graph *lg, kg_pass_ctx *c) {
  if (c->log) {
    kg_sb_puts(c->log, "== elaborated program\n");
    kg_graph_print(g, c->log);
  }
  if (c->verify && !kg_graph_verify(g, c->d)) return false;
  if (!passes_to_fixpoint(g, c)) return false;
  /* the twin's program is final; lower a copy with composite ops expanded */
  bool expanded = kg_pass_decompose(g, lg, c);
  if (c->log) {
    kg_sb_printf(c->log, "== after decompose%s\n", expanded ? "" : " (unchanged)");
    if (expanded) kg_graph_print(lg, c->log);
  }
  if (c->verify && !kg_graph_verify(lg, c->d)) {
    kg_diag_add(c->d, KG_E_INTERNAL, NULL, NULL, "the program verifier failed after pass 'decompose'");
    return false;
  }
  bool dropped = false;
  if (!run_one(lg, c, "drop_casts", kg_pass_drop_casts, &dropped)) return false;
  return !(expanded || dropped) || passes_to_fixpoint(lg, c);
}

bool kg_pipeline_run(kg_graph *g, kg_graph *lg, kg_fusion *f, kg_pass_ctx *c) {
  if (!kg_pipeline_lower(g, lg, c)) return false;
  bool ch = false;
  if (!run_one(lg, c, "attention", kg_pass_attention, &ch)) return false;
  if (ch && !passes_to_fixpoint(lg, c)) return false;
  if (!run_one(lg, c, "mm_transpose", kg_pass_mm_transpose, &ch)) return false;
  if (ch && !run_one(lg, c, "dce", kg_pass_dce, &ch)) return false;
  if (!run_one(lg, c, "merge_products", kg_pass_merge_products, &ch)) return false;
  if (!run_one(lg, c, "fold_products", kg_pass_fold_products, &ch)) return false;
  kg_pass_fuse(lg, f, false, c);
  if (c->log) {
    kg_sb_puts(c->log, "== fusion groups\n");
    kg_fusion_print(lg, f, c->log);
  }
  return true;
}
