/* runtime/exec_plans.c — a compiled entry's alternative plans, built on the first run that wants one.
 *
 * compile.c fuses the lowering program lg once (c->fusion, plan 0). A run may want the same
 * program fused another way, which only its sizes or its device decide (exec.c choose_plan asks
 * the scheduler):
 *   1 split rows  lg fused with the reductions' rows split (few rows, each too long for a block);
 *   2 fold        lg with the products kept tiled only for their symbolic sizes folded into their
 *                 readers (MMFOLD), when every one of them is small at the run's sizes;
 *   3 unfold      the CPU device: lg with the folded products the scheduler finds too big for a
 *                 serial dot per output (kg_schedule_unfold) made products again (MATMUL), each a
 *                 kernel of its own on the CPU's register-blocked schedule (matmul.cpu); and an
 *                 entry with attention lowered again from its typed program without the fused
 *                 attention kernel (whose threads cooperate through shared memory: on the CPU
 *                 device they run on fibers, one context switch per barrier per thread) — the
 *                 math path's products (matmul.cpu) and softmax (a row kernel) instead, as
 *                 PyTorch's CPU attention computes it. The forwards with attention ran 1.7
 *                 to 3.6x slower than eager on fibers (docs/perf_cpu.md). Also without the
 *                 products of separate weights merge_products merged (a concatenated weight
 *                 is a prologue the CPU's dot schedule for few rows cannot read in place:
 *                 three products of 2 rows x 1024 x 1024 took 0.4 ms, merged 5.2 ms).
 *   4 few rows    not on the CPU device: lg with the products of one input with separate
 *                 weights merged (passes/merge_products.c, kg_schedule_merge_siblings) where the
 *                 input's rows are symbolic — compile time merges only static ones — and fused
 *                 with a norm's statistics computed by the product that reads them at symbolic
 *                 rows too (fuse.c, kg_group.pre); taken when every merged product, and every
 *                 product computing statistics, has fewer than KG_MERGE_SIBLING_ROWS rows at the
 *                 run's sizes (the .NET fast path compiles over symbolic sizes). Not in packages.
 * Each plan is built once per compiled entry (its fusion and a kernel of each group, for the
 * tensor parameters exec.c reads); its variants are lowered per run like plan 0's.
 * kg_compiled_plan gives a plan's program, fusion, kernels and facts, the one accessor the
 * runtime and the package code read them through.
 */
#include <stdlib.h>

#include "api_int.h"

kg_plan_view kg_compiled_plan(const kg_compiled *c, int plan) {
  kg_plan_view v = {&c->lg, &c->fusion, c->kernels, c->gfacts};
  if (plan == 1) v.F = &c->fusion_split, v.kernels = c->kernels_split, v.facts = c->gfacts_split;
  if (plan == 2) v.lg = &c->lg_fold, v.F = &c->fusion_fold, v.kernels = c->kernels_fold, v.facts = c->gfacts_fold;
  if (plan == 3) v.lg = &c->lg_unfold, v.F = &c->fusion_unfold, v.kernels = c->kernels_unfold, v.facts = c->gfacts_unfold;
  if (plan == 4) v.lg = &c->lg_merge, v.F = &c->fusion_merge, v.kernels = c->kernels_merge, v.facts = c->gfacts_merge;
  return v;
}

char kg_plan_letter(int plan) { return plan == 1 ? 's' : plan == 2 ? 'f' : plan == 3 ? 'u' : plan == 4 ? 'm' : 'k'; }

/* The facts and a kernel (any variant: exec.c reads their tensor parameters) of each group of
 * an alternative plan `plan` fused over lg; false (nothing kept) when a group fails to lower. */
static bool lower_plan(kg_compiled *c, const kg_graph *lg, const kg_fusion *F, uint8_t plan, kg_pass_ctx *pc, kg_kernel **kernels,
                       kg_group_facts **facts, uint32_t *count) {
  uint32_t n = F->groups.n;
  kg_kernel *ks = kg_xcalloc(n + 1, sizeof *ks);
  *facts = kg_xcalloc(n + 1, sizeof **facts);
  for (uint32_t i = 0; i < n; i++) (*facts)[i] = kg_group_facts_of(lg, F, &F->groups.v[i]);
  for (uint32_t i = 0; i < n; i++) {
    kg_variant v = {.layout = KG_LAYOUT_STRIDED, .vec = 1, .index_dtype = KG_I32, .plan = plan};
    const char *name = kg_arena_printf(&c->arena, "%s_%ck%u", kg_entry_cname(&c->arena, c->g.entry), kg_plan_letter(plan), i);
    if (!kg_lower_group(lg, F, &F->groups.v[i], &v, name, &ks[i], pc)) {
      for (uint32_t j = 0; j <= i; j++) kg_kernel_free(&ks[j]);
      free(ks);
      return false;
    }
  }
  *kernels = ks, *count = n;
  return true;
}

/* Builds the fold plan: lg with the candidates folded, its fusion, a kernel of each group. */
static bool build_fold_plan(kg_compiled *c, kg_diag *d) {
  if (c->fold_built) return c->kernels_fold != NULL;
  c->fold_built = true;
  kg_graph_init(&c->lg_fold, &c->arena, c->lg.entry);
  kg_graph_clone(&c->lg_fold, &c->lg);
  for (uint32_t i = 0; i < c->n_fold_cand; i++) c->lg_fold.nodes.v[c->fold_cand[i]].op = KG_OP_MMFOLD;
  kg_pass_ctx pc = {&c->arena, d, c->m->ctx->opts.verify_ir != 0, NULL, NULL, false, false, false, false};
  if (pc.verify && !kg_graph_verify(&c->lg_fold, d)) return false;
  kg_pass_fuse(&c->lg_fold, &c->fusion_fold, false, &pc);
  return lower_plan(c, &c->lg_fold, &c->fusion_fold, 2, &pc, &c->kernels_fold, &c->gfacts_fold, &c->n_fold);
}

/* Builds the split-rows plan and a kernel of each of its groups (once per compiled entry). */
static bool build_split_plan(kg_compiled *c, kg_diag *d) {
  if (c->split_built && !c->kernels_split && c->pkg)
    kg_diag_add(d, KG_E_UNSUPPORTED, NULL, NULL, "the package of '%s' has no split-rows plan (it is packaged where a row group can want it; a forced schedule asks for it everywhere)", c->g.entry);
  if (c->split_built) return c->kernels_split != NULL;
  c->split_built = true;
  kg_pass_ctx pc = {&c->arena, d, c->m->ctx->opts.verify_ir != 0, NULL, NULL, false, false, false, false};
  kg_pass_fuse(&c->lg, &c->fusion_split, true, &pc);
  return lower_plan(c, &c->lg, &c->fusion_split, 1, &pc, &c->kernels_split, &c->gfacts_split, &c->n_split);
}

/* A folded product's sizes (MMFOLD's sizes are static: fold_products folds only those) */
static bool unfold_node(const kg_graph *g, const kg_gnode *n) {
  if (n->op != KG_OP_MMFOLD) return false;
  const kg_gnode *a = &g->nodes.v[n->in[0]];
  int64_t numel = 1;
  for (int d = 0; d < n->shape.rank; d++) {
    if (n->shape.d[d].kind != KG_DIM_STATIC) return false;
    numel *= n->shape.d[d].v;
  }
  const kg_dim *kd = &a->shape.d[a->shape.rank - 1];
  return a->shape.rank >= 1 && kd->kind == KG_DIM_STATIC && kg_schedule_unfold(numel, kd->v);
}

static bool has_attention(const kg_graph *g) {
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i].op == KG_OP_ATTN) return true;
  return false;
}

/* a product whose weight is a concatenation: separate weights merged by merge_products (whose
 * prologue the CPU's dot schedule cannot read in place), or written so */
static bool has_concatenated_weight(const kg_graph *g) {
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    if ((n->op == KG_OP_MATMUL || n->op == KG_OP_MMFOLD) && n->n_in == 2 && g->nodes.v[n->in[1]].op == KG_OP_CAT) return true;
  }
  return false;
}

bool kg_compiled_wants_unfold(kg_compiled *c) {
  if (!c->unfold_known) {
    c->unfold_known = true;
    c->unfold_attn = has_attention(&c->lg);
    c->unfold_some = c->unfold_attn || has_concatenated_weight(&c->lg);
    for (uint32_t i = 0; i < c->lg.nodes.n && !c->unfold_some; i++) c->unfold_some = unfold_node(&c->lg, &c->lg.nodes.v[i]);
  }
  return c->unfold_some;
}

/* lg again from the typed program without the fused attention and the merged products: the
 * pipeline's lowering steps (kg_pipeline_run's, merge_products left out) with a hand-written
 * attention kept as written and
 * scaled_dot_product_attention expanded into the math path, on a copy of c->g (final already:
 * its passes change nothing). The same parameters, outputs and size symbols as lg: exec.c binds
 * a run against lg and reads the plan's program after. */
static bool lower_without_attention(kg_compiled *c, kg_pass_ctx *pc) {
  kg_graph g;
  kg_graph_init(&g, &c->arena, c->g.entry);
  kg_graph_clone(&g, &c->g);
  pc->unfused_attn = pc->no_attn = true;
  bool ok = kg_pipeline_lower(&g, &c->lg_unfold, pc);
  if (ok) {
    kg_pass_mm_transpose(&c->lg_unfold, pc);
    kg_pass_dce(&c->lg_unfold, pc);
    kg_pass_fold_products(&c->lg_unfold, pc);
  }
  kg_graph_free(&g);
  const kg_graph *a = &c->lg, *b = &c->lg_unfold;
  if (ok && (a->params.n != b->params.n || a->outputs.n != b->outputs.n || a->syms.n != b->syms.n || a->n_entry_params != b->n_entry_params)) {
    kg_diag_add(pc->d, KG_E_INTERNAL, NULL, NULL, "'%s' lowered without its fused attention has other parameters, outputs or sizes than its program", c->g.entry);
    ok = false;
  }
  return ok;
}

/* Builds the unfold plan: lg with the folded products kg_schedule_unfold names made products
 * again (fold_products is lg's last pass before fusion, so this is lg as it was before it). */
static bool build_unfold_plan(kg_compiled *c, kg_diag *d) {
  if (c->unfold_built) return c->kernels_unfold != NULL;
  c->unfold_built = true;
  kg_graph_init(&c->lg_unfold, &c->arena, c->lg.entry);
  kg_pass_ctx pc = {&c->arena, d, c->m->ctx->opts.verify_ir != 0, NULL, NULL, false, false, false, false};
  if (has_attention(&c->lg) || has_concatenated_weight(&c->lg)) {
    if (!lower_without_attention(c, &pc)) return false;
  } else {
    kg_graph_clone(&c->lg_unfold, &c->lg);
  }
  for (uint32_t i = 0; i < c->lg_unfold.nodes.n; i++)
    if (unfold_node(&c->lg_unfold, &c->lg_unfold.nodes.v[i])) c->lg_unfold.nodes.v[i].op = KG_OP_MATMUL;
  if (pc.verify && !kg_graph_verify(&c->lg_unfold, d)) return false;
  kg_pass_fuse(&c->lg_unfold, &c->fusion_unfold, false, &pc);
  return lower_plan(c, &c->lg_unfold, &c->fusion_unfold, 3, &pc, &c->kernels_unfold, &c->gfacts_unfold, &c->n_unfold);
}

bool kg_compiled_wants_merge(kg_compiled *c) {
  if (!c->merge_known) {
    c->merge_known = true;
    const kg_options *o = &c->m->ctx->opts;
    if (c->pkg || c->lg.syms.n == 0 || o->force_variant == KG_FORCE_STRIDED_I64 || o->force_variant == KG_FORCE_TILED ||
        o->force_variant == KG_FORCE_TENSOR_CORES)
      return false; /* static sizes: merged when compiled, if at all; or what compile time's no_fold keeps apart */
    kg_graph_init(&c->lg_merge, &c->arena, c->lg.entry);
    kg_graph_clone(&c->lg_merge, &c->lg);
    kg_diag tmp;
    kg_diag_init(&tmp);
    kg_pass_ctx pc = {&c->arena, &tmp, false, NULL, NULL, false, false, false, true};
    bool merged = kg_pass_merge_products(&c->lg_merge, &pc);
    /* fused now (lowered on first use): whether a norm's statistics go into a product decides
     * whether the plan is worth having, and which rows each run must check (kg_compiled_few_rows_plan) */
    kg_pass_fuse(&c->lg_merge, &c->fusion_merge, false, &pc);
    bool stats = false;
    for (uint32_t i = 0; i < c->fusion_merge.groups.n; i++) stats |= c->fusion_merge.groups.v[i].pre.n > 0;
    kg_diag_free(&tmp);
    c->merge_some = merged || stats;
    if (!c->merge_some) kg_fusion_free(&c->fusion_merge), kg_graph_free(&c->lg_merge);
  }
  return c->merge_some;
}

/* Builds the merge plan's fusion and a kernel of each group (its graph: kg_compiled_wants_merge). */
static bool build_merge_plan(kg_compiled *c, kg_diag *d) {
  if (c->merge_built) return c->kernels_merge != NULL;
  c->merge_built = true;
  if (!kg_compiled_wants_merge(c)) return false;
  kg_pass_ctx pc = {&c->arena, d, c->m->ctx->opts.verify_ir != 0, NULL, NULL, false, false, false, false};
  if (pc.verify && !kg_graph_verify(&c->lg_merge, d)) return false;
  return lower_plan(c, &c->lg_merge, &c->fusion_merge, 4, &pc, &c->kernels_merge, &c->gfacts_merge, &c->n_merge);
}

bool kg_compiled_build_plan(kg_compiled *c, int plan, kg_diag *d) {
  if (plan == 1) return build_split_plan(c, d);
  if (plan == 2) return build_fold_plan(c, d);
  if (plan == 3) return build_unfold_plan(c, d);
  if (plan == 4) return build_merge_plan(c, d);
  return true;
}

void kg_compiled_free_plans(kg_compiled *c) {
  for (uint32_t i = 0; i < c->n_split; i++) kg_kernel_free(&c->kernels_split[i]);
  free(c->kernels_split), free(c->gfacts_split);
  if (c->split_built) kg_fusion_free(&c->fusion_split);
  for (uint32_t i = 0; i < c->n_fold; i++) kg_kernel_free(&c->kernels_fold[i]);
  free(c->kernels_fold), free(c->gfacts_fold), free(c->fold_cand);
  if (c->fold_built) kg_fusion_free(&c->fusion_fold), kg_graph_free(&c->lg_fold);
  for (uint32_t i = 0; i < c->n_unfold; i++) kg_kernel_free(&c->kernels_unfold[i]);
  free(c->kernels_unfold), free(c->gfacts_unfold);
  if (c->unfold_built) kg_fusion_free(&c->fusion_unfold), kg_graph_free(&c->lg_unfold);
  for (uint32_t i = 0; i < c->n_merge; i++) kg_kernel_free(&c->kernels_merge[i]);
  free(c->kernels_merge), free(c->gfacts_merge);
  if (c->merge_some) kg_fusion_free(&c->fusion_merge), kg_graph_free(&c->lg_merge);
}

static int64_t dim_at(const int64_t *sym, const kg_dim *d) { return d->kind == KG_DIM_STATIC ? d->v : sym[d->v]; }

/* The few-rows plan (4) when c has one and the scheduler wants every product it merged at this
 * run's sizes (kg_schedule_merge_siblings: its rows, and from KG_MM_TC_MIN_ROWS rows its
 * concatenated weights' bytes where they are not all tensors cp.async copies a row at a time)
 * and every norm's statistics it moved into a product (kg_schedule_row_stats: the product's
 * rows), else the fused plan (0). Not on the CPU device, whose dot schedule reads the weights apart. */
int kg_compiled_few_rows_plan(kg_compiled *c, const int64_t *sym, const kg_target *T) {
  if (T->cpu_cores > 0 || c->pkg || !kg_compiled_wants_merge(c)) return 0;
  const kg_graph *g = &c->lg_merge;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    if (n->op != KG_OP_MATMUL || n->n_in != 2 || g->nodes.v[n->in[1]].op != KG_OP_CAT) continue;
    const kg_gnode *w = &g->nodes.v[n->in[1]];
    int64_t rows = 1, bytes = (int64_t)kg_dtype_get((kg_dtype)w->dtype)->size;
    for (int d = 0; d + 1 < n->shape.rank; d++) rows *= dim_at(sym, &n->shape.d[d]);
    for (int d = 0; d < w->shape.rank; d++)
      if (__builtin_mul_overflow(bytes, dim_at(sym, &w->shape.d[d]), &bytes)) bytes = -1;
    if (!kg_schedule_merge_siblings(rows, bytes, kg_merge_weights_by_rows(g, w->in, w->n_in))) return 0;
  }
  const kg_fusion *F = &c->fusion_merge;
  for (uint32_t gi = 0; gi < F->groups.n; gi++) { /* a norm's statistics in a product: its rows few */
    const kg_group *grp = &F->groups.v[gi];
    if (!grp->pre.n) continue;
    const kg_gnode *A = &g->nodes.v[g->nodes.v[grp->red].in[0]];
    int64_t rows = 1;
    for (int d = 0; d + 1 < A->shape.rank; d++) rows *= dim_at(sym, &A->shape.d[d]);
    if (!kg_schedule_row_stats(rows, dim_at(sym, &A->shape.d[A->shape.rank - 1]))) return 0;
  }
  return 4;
}
