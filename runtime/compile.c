/* runtime/compile.c — THE PIPELINE: an entry of a kgen document and a signature in, its
 * kernels (and, with control flow over tensors, a host plan) out. A newcomer reads
 * kg_compile_entry first; every stage it calls lives in a folder of its own:
 *
 *   kg_module_load           frontend/json.c       JSON → AST (once per document, api.c)
 *   1. elaborate             frontend/elab.c       AST + signature → typed program c->g (PyTorch
 *                                                   promotion and broadcasting, every if / for /
 *                                                   while), and the host plan when control flow
 *                                                   runs over tensors (frontend/hostflow.c)
 *   2. plan (if any)         passes/plan_regions.c  dead steps, hoisting, regions: each region
 *                                                   and each output copy is a program of step 3
 *   3. a program             passes/pipeline.c     graph passes to a fixed point (fold, cse,
 *                                                   dce), composites decomposed (the lowering
 *                                                   program c->lg), passes again, fusion into
 *                                                   groups (passes/fuse.c, asking the scheduler)
 *      per group             passes/schedule.c     the default variant, from shapes alone
 *                            passes/lower*.c       its kernel IR
 *                            codegen-cuda/cuda.c   CUDA C of every kernel, one translation unit
 *
 * The TorchScript and eager-Python twins are emitted from c->g on demand (kg_emit). Running
 * (exec.c, plan.c) is: bind the sizes, ask the scheduler again with the actual tensors, launch
 * the variant it names (built on first use: kg_compiled_variant lowers and emits it). */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

/* A compiled entry for `entry` of a document, or NULL with the reasons in the context's
 * diagnostics. */
/* The programs that copy a value into a caller's tensor at the end of a run, one per output
 * that needs it: with a host plan every tensor output (a loop's or branch's result; outputs a
 * top-level region computes are written in place), and every write-back output (an in-place
 * update of an input or capture, kg_gparam.wb: computed into a buffer of its own, then copied
 * into the caller's tensor once nothing reads the old value). */
bool kg_compile_copies(kg_compiled *c, kg_pass_ctx *pc) {
  kg_strbuf *log = pc->log;
  uint32_t nres = kg_graph_n_results(&c->g);
  if (!c->plan && nres == c->g.outputs.n) return true;
  c->copies = kg_xcalloc(c->g.outputs.n + 1, sizeof *c->copies);
  for (uint32_t i = 0; i < c->g.outputs.n; i++) {
    const kg_gnode *on = &c->g.nodes.v[c->g.outputs.v[i]];
    if (on->vkind != KG_V_TENSOR || (!c->plan && i < nres)) continue;
    kg_compiled *p = kg_compiled_new(c->m, c->entry, kg_arena_printf(&c->arena, "%s_out%u", c->g.entry, i));
    c->copies[i] = p;
    kg_graph_copy_syms(&p->g, &c->g);
    kg_gnode in;
    memset(&in, 0, sizeof in);
    in.op = KG_OP_INPUT, in.dtype = in.cdtype = on->dtype, in.vkind = KG_V_TENSOR, in.shape = on->shape;
    uint32_t x = kg_graph_add(&p->g, &in);
    kg_gparam gp = {"x", false, x, NULL, 0, false};
    KG_VEC_PUSH(p->g.params, gp);
    p->g.n_entry_params = 1;
    kg_gnode cp = in;
    cp.op = KG_OP_CAST, cp.n_in = 1, cp.in[0] = x;
    uint32_t y = kg_graph_add(&p->g, &cp);
    KG_VEC_PUSH(p->g.outputs, y);
    kg_sb_printf(log, "== output copy %u\n", i);
    if (!kg_compile_program(p, pc)) return false;
  }
  return true;
}

kg_compiled *kg_compile_entry(kg_module *m, uint32_t ei, const kg_sig *sig) {
  kg_context *ctx = m->ctx;
  kg_compiled *c = kg_compiled_new(m, ei, m->doc->entries[ei].name);
  /* 1. elaborate: the typed program, and the plan its control flow over tensors needs */
  kg_plan *plan = kg_arena_alloc(&c->arena, sizeof *plan);
  kg_plan_init(plan, &c->arena);
  if (!kg_elaborate_plan(&c->arena, m->doc, ei, sig, &c->g, plan, &ctx->diag)) {
    kg_plan_free(plan);
    kg_compiled_free(c);
    return NULL;
  }
  if (kg_plan_trivial(plan)) kg_plan_free(plan); /* straight-line code: one program */
  else c->plan = plan;
  /* 2–3. the plan's regions, or the one program: kernels and their CUDA C */
  kg_strbuf log;
  kg_sb_init(&log);
  kg_pass_ctx pc = {&c->arena, &ctx->diag, ctx->opts.verify_ir != 0, &log, getenv("KG_DUMP"),
                    ctx->opts.force_variant == KG_FORCE_STRIDED_I64 || ctx->opts.force_variant == KG_FORCE_TILED ||
                        ctx->opts.force_variant == KG_FORCE_TENSOR_CORES,
                    /* the attention unfused: the checks of the math path's kernels (variant 6 keeps
                     * the fused kernel, on its tensor-core tile) */
                    ctx->opts.force_variant == KG_FORCE_STRIDED_I64 || ctx->opts.force_variant == KG_FORCE_TILED, false, false};
  bool ok = c->plan ? kg_compile_plan(c, &pc) : kg_compile_program(c, &pc);
  if (ok) ok = kg_compile_copies(c, &pc);
  if (!ok) {
    kg_sb_free(&log);
    kg_compiled_free(c);
    return NULL;
  }
  c->explain = kg_sb_take(&log);
  return c;
}

/* The default variant of a group (what `kgen compile` emits): the scheduler asked at
 * compile time, from shapes alone (run time asks again with the actual tensors). */
/* The facts compile time has: static sizes (-1 unknown), operands assumed contiguous. */
static kg_sched_facts compile_facts(const kg_context *ctx, const kg_group *grp, const kg_group_facts *gf) {
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  for (int d = 0; d < grp->space.rank; d++) x.space[d] = grp->space.d[d].kind == KG_DIM_STATIC ? grp->space.d[d].v : -1;
  x.contiguous = gf->operands_match_space;
  x.mm_kmajor[0] = x.mm_kmajor[1] = -1;
  x.f32_matmul = (uint8_t)ctx->opts.f32_matmul;
  if (ctx->opts.force_variant == KG_FORCE_TENSOR_CORES || ctx->opts.force_variant == KG_FORCE_NO_TENSOR_CORES)
    x.force = (kg_sched_force)ctx->opts.force_variant;
  return x;
}
/* The GPU compile time schedules for (run time asks the device): an H100, or an A100 for
 * kg_options.emu_arch 80 */
static const kg_target *compile_target(const kg_context *ctx) { return ctx->opts.emu_arch == 80 ? &kg_target_a100 : &kg_target_h100; }

static kg_variant default_variant(const kg_context *ctx, const kg_group *grp, const kg_group_facts *gf) {
  kg_sched_facts x = compile_facts(ctx, grp, gf);
  return kg_schedule_choose(gf, &x, compile_target(ctx)).v;
}

/* 3. A typed program c->g → fused kernels and their CUDA C (c->explain gets the log). */
bool kg_compile_program(kg_compiled *c, kg_pass_ctx *pc) {
  kg_strbuf *log = pc->log;
  /* graph passes, decomposition, fusion */
  if (!kg_pipeline_run(&c->g, &c->lg, &c->fusion, pc)) return false;
  /* products only symbolic sizes keep tiled: folded at run time where they are small */
  if (!pc->no_fold) c->n_fold_cand = kg_fold_candidates(&c->lg, &c->fold_cand);
  if (c->n_fold_cand) kg_sb_printf(log, "== fold plan: %u product(s) with symbolic sizes folded into their readers when small at run time\n", c->n_fold_cand);
  /* per group: the scheduler's default variant, its kernel IR */
  c->n_kernels = c->fusion.groups.n;
  c->kernels = kg_xcalloc(c->n_kernels + 1, sizeof *c->kernels);
  c->variants = kg_xcalloc(c->n_kernels + 1, sizeof *c->variants);
  c->gfacts = kg_xcalloc(c->n_kernels + 1, sizeof *c->gfacts);
  const char *base = kg_entry_cname(&c->arena, c->g.entry);
  const kg_kernel **kp = kg_xcalloc(c->n_kernels + 1, sizeof *kp);
  for (uint32_t i = 0; i < c->n_kernels; i++) {
    c->gfacts[i] = kg_group_facts_of(&c->lg, &c->fusion, &c->fusion.groups.v[i]);
    c->variants[i] = default_variant(c->m->ctx, &c->fusion.groups.v[i], &c->gfacts[i]);
    const char *kn = kg_arena_printf(&c->arena, "%s_k%u", base, i);
    if (!kg_lower_group(&c->lg, &c->fusion, &c->fusion.groups.v[i], &c->variants[i], kn, &c->kernels[i], pc)) {
      free(kp);
      return false;
    }
    kp[i] = &c->kernels[i];
    kg_sb_printf(log, "== kernel %u (group %u)\n", i, i);
    kg_kernel_print(&c->kernels[i], log);
    if (c->kernels[i].launch.per_output == KG_LAUNCH_BLOCK_PER_OUTPUT)
      kg_sb_printf(log, "launch: block (%u,1,1), grid (output elements,1,1): one block per output element\n", c->kernels[i].launch.block[0]);
    else if (c->kernels[i].launch.per_output == KG_LAUNCH_WARP_PER_OUTPUT)
      kg_sb_printf(log, "launch: block (%u,1,1), grid (ceil(output elements / %u),1,1): %u lanes per output element\n", c->kernels[i].launch.block[0],
                   c->kernels[i].launch.tile_m, c->kernels[i].launch.block[0] / c->kernels[i].launch.tile_m);
    else if (c->kernels[i].launch.per_output == KG_LAUNCH_TILES) {
      kg_sb_printf(log, "launch: block (%u,1,1), grid (ceil(N / %u), ceil(M / %u), batch): one %ux%u output tile per block, %u bytes of shared memory\n",
                   c->kernels[i].launch.block[0], c->kernels[i].launch.tile_n, c->kernels[i].launch.tile_m, c->kernels[i].launch.tile_m,
                   c->kernels[i].launch.tile_n, c->kernels[i].launch.smem_static + c->kernels[i].launch.smem_dyn);
      char why[256];
      kg_sched_facts x = compile_facts(c->m->ctx, &c->fusion.groups.v[i], &c->gfacts[i]);
      kg_sb_printf(log, "tier: %s (%s; run time asks again with the tensors)\n",
                   kg_mm_tier_reason(&c->gfacts[i], &x, compile_target(c->m->ctx), &c->variants[i], why, sizeof why),
                   compile_target(c->m->ctx)->name);
    }
    else if (c->kernels[i].launch.per_output == KG_LAUNCH_THREAD_PER_OUTPUT)
      kg_sb_printf(log, "launch: block (%u,1,1), grid (ceil(output elements / %u),1,1): %u output element(s) per thread\n",
                   c->kernels[i].launch.block[0], c->kernels[i].launch.block[0] * c->kernels[i].launch.elems_per_thread,
                   c->kernels[i].launch.elems_per_thread);
    else
      kg_sb_printf(log, "launch: block (%u,1,1), grid (ceil(numel / %u),1,1)\n", c->kernels[i].launch.block[0],
                   c->kernels[i].launch.block[0] * c->kernels[i].launch.elems_per_thread);
  }
  /* CUDA C of every kernel */
  kg_strbuf cu;
  kg_sb_init(&cu);
  kg_cuda_emit(kp, c->n_kernels, c->g.entry, &cu);
  c->cuda = kg_sb_take(&cu);
  free(kp);
  return true;
}

kg_compiled *kg_compiled_new(kg_module *m, uint32_t ei, const char *name) {
  kg_compiled *c = kg_xcalloc(1, sizeof *c);
  c->m = m, c->entry = ei;
  kg_arena_init(&c->arena);
  const char *nm = kg_arena_strdup(&c->arena, name);
  kg_graph_init(&c->g, &c->arena, nm);
  kg_graph_init(&c->lg, &c->arena, nm);
  return c;
}

/* 2. An entry with host control flow: partition the plan, compile every region as a
 * program of its own (kernels named <entry>_r<region>_k<i>), all kernels in one
 * translation unit. */
bool kg_compile_plan(kg_compiled *c, kg_pass_ctx *pc) {
  kg_strbuf *log = pc->log;
  kg_sb_puts(log, "== typed program (all blocks)\n");
  kg_graph_print(&c->g, log);
  c->plan_src = kg_arena_alloc(&c->arena, sizeof *c->plan_src);
  kg_plan_clone(c->plan, c->plan_src);
  if (!kg_plan_partition(c->plan, &c->g, pc)) return false;
  kg_sb_puts(log, "== host plan\n");
  kg_plan_print(c->plan, &c->g, log);
  c->n_regions = c->plan->regions.n;
  c->regions = kg_xcalloc(c->n_regions + 1, sizeof *c->regions);
  uint32_t total = 0;
  for (uint32_t i = 0; i < c->n_regions; i++) {
    const char *nm = kg_arena_printf(&c->arena, "%s_r%u", c->g.entry, i);
    kg_compiled *r = kg_compiled_new(c->m, c->entry, nm);
    c->regions[i] = r;
    kg_plan_region_graph(c->plan, &c->g, i, &r->g);
    kg_sb_printf(log, "== region r%u\n", i);
    if (!kg_compile_program(r, pc)) return false;
    total += r->n_kernels;
  }
  c->n_kernels = total;
  const kg_kernel **kp = kg_xcalloc(total + 1, sizeof *kp);
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->n_regions; i++)
    for (uint32_t j = 0; j < c->regions[i]->n_kernels; j++) kp[k++] = &c->regions[i]->kernels[j];
  kg_strbuf cu;
  kg_sb_init(&cu);
  kg_cuda_emit(kp, total, c->g.entry, &cu);
  c->cuda = kg_sb_take(&cu);
  free(kp);
  return true;
}

const kg_kernel *kg_compiled_kernel(const kg_compiled *c, uint32_t i) {
  if (!c->plan) return i < c->n_kernels ? &c->kernels[i] : NULL;
  for (uint32_t r = 0; r < c->n_regions; r++) {
    if (i < c->regions[r]->n_kernels) return &c->regions[r]->kernels[i];
    i -= c->regions[r]->n_kernels;
  }
  return NULL;
}

