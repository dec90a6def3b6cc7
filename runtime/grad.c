/* runtime/grad.c — an entry compiled for gradients (issue 24): kg_compile_entry's pipeline with
 * reverse-mode differentiation between lowering and fusion.
 *
 *   1. elaborate            frontend/elab.c      the typed program (an entry with control flow
 *                                                 over tensors is refused: its backward would need
 *                                                 the plan run in reverse)
 *   2. lower                passes/pipeline.c    passes, composites decomposed (kg_pipeline_lower)
 *   3. differentiate        passes/autodiff*.c   the forward (with the values the backward reads as
 *                                                 more outputs) and the backward, cut where the
 *                                                 fewest bytes travel
 *   4. each program         kg_compile_program   fusion, schedules, kernels, CUDA C — the same
 *                                                 pipeline as any entry's
 * The forward is the returned kg_compiled (its g is the differentiated lowering program, so its
 * twin spells primitives: `kgen check --grad` checks the forward against the entry's ordinary twin
 * and the gradients against the twin's autograd); the backward hangs off it (c->bwd). */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

/* the first plan step that is not tensor work, for the error's location */
static const kg_pop *first_host_step(const kg_plan *p) {
  for (uint32_t i = 0; i < p->ops.n; i++)
    if (p->ops.v[i].kind != KG_P_NODES) return &p->ops.v[i];
  return NULL;
}

kg_compiled *kg_compile_grad(kg_module *m, uint32_t ei, const kg_sig *sig, const uint8_t *wants, const int64_t *seen, int n_seen) {
  kg_context *ctx = m->ctx;
  kg_compiled *c = kg_compiled_new(m, ei, m->doc->entries[ei].name);
  kg_plan *plan = kg_arena_alloc(&c->arena, sizeof *plan);
  kg_plan_init(plan, &c->arena);
  kg_graph g;
  kg_graph_init(&g, &c->arena, c->g.entry);
  bool ok = kg_elaborate_plan(&c->arena, m->doc, ei, sig, &g, plan, &ctx->diag);
  if (ok && !kg_plan_trivial(plan)) {
    const kg_pop *h = first_host_step(plan);
    kg_diag_add(&ctx->diag, KG_E_UNSUPPORTED, h ? h->path : m->doc->entries[ei].path, h ? h->srcloc : NULL,
                "gradients of an entry with control flow over tensors (a loop, a branch or an item() read kgen runs on the host) are not supported yet: "
                "differentiate a function without it (loops of at most 4 trips known when kgen compiles are unrolled and fine)");
    ok = false;
  }
  kg_plan_free(plan);
  kg_strbuf log;
  kg_sb_init(&log);
  kg_pass_ctx pc = {&c->arena, &ctx->diag, ctx->opts.verify_ir != 0, &log, getenv("KG_DUMP"),
                    ctx->opts.force_variant == KG_FORCE_STRIDED_I64 || ctx->opts.force_variant == KG_FORCE_TILED ||
                        ctx->opts.force_variant == KG_FORCE_TENSOR_CORES,
                    true, false, false};
  kg_graph lg;
  kg_graph_init(&lg, &c->arena, c->g.entry);
  if (ok) ok = kg_pipeline_lower(&g, &lg, &pc);
  kg_grad_programs P;
  memset(&P, 0, sizeof P);
  kg_graph_init(&P.fwd, &c->arena, c->g.entry);
  kg_graph_init(&P.bwd, &c->arena, kg_arena_printf(&c->arena, "%s_bwd", c->g.entry));
  if (ok) {
    uint8_t *w = kg_xcalloc(lg.params.n + 1, 1);
    /* NULL: every floating tensor but those the forward updates in place (buffers, as batch
     * norm's running statistics: PyTorch's buffers do not require grad) */
    for (uint32_t i = 0; i < lg.params.n; i++) w[i] = wants ? wants[i] : !lg.params.v[i].wb;
    int64_t *hint = kg_xmalloc((lg.syms.n + 1) * sizeof *hint);
    for (uint32_t i = 0; i < lg.syms.n; i++) {
      const char *s = lg.syms.v[i];
      hint[i] = -1;
      if (s[0] == 's' && s[1] >= '0' && s[1] <= '9') {
        int k = atoi(s + 1);
        if (k < n_seen) hint[i] = seen[k];
      }
    }
    ok = kg_pass_autodiff(&lg, w, hint, &P, &pc);
    free(w), free(hint);
  }
  /* the map functions: elaborated into g, borrowed by lg and both programs; the forward owns them */
  g.fns_borrowed = ok;
  kg_graph_free(&g);
  kg_graph_free(&lg);
  if (ok) {
    kg_sb_puts(&log, P.explain);
    kg_graph_free(&c->g);
    c->g = P.fwd;
    c->g.fns_borrowed = false;
    memset(&P.fwd, 0, sizeof P.fwd);
    kg_sb_puts(&log, "== gradients: the forward\n");
    ok = kg_compile_program(c, &pc) && kg_compile_copies(c, &pc);
  }
  if (ok) {
    kg_compiled *b = kg_compiled_new(m, ei, P.bwd.entry);
    kg_graph_free(&b->g);
    b->g = P.bwd;
    memset(&P.bwd, 0, sizeof P.bwd);
    c->bwd = b;
    kg_sb_puts(&log, "== gradients: the backward\n");
    ok = kg_compile_program(b, &pc);
    c->n_saved = P.n_saved;
    c->bwd_params = P.bwd_params, c->n_bwd_params = P.n_bwd_params;
    c->bwd_grads = P.grads, c->n_bwd_grads = P.n_grads;
    P.bwd_params = NULL, P.grads = NULL;
  }
  kg_grad_programs_free(&P);
  if (!ok) {
    kg_sb_free(&log);
    kg_compiled_free(c);
    return NULL;
  }
  c->explain = kg_sb_take(&log);
  return c;
}

/* a kernel package holds compiled kernels, not the program autodiff differentiates */
static bool no_package(kg_module *m) {
  if (!m->pkg) return true;
  kg_diag_add(&m->ctx->diag, KG_E_UNSUPPORTED, NULL, NULL,
              "gradients: a kernel package (.kgpkg) holds compiled forwards only; compile for gradients from the document (.json)");
  return false;
}

static kg_status specialize_grad_locked(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                             int n_captures, unsigned flags, const uint8_t *wants, kg_compiled **out);
kg_status kg_specialize_grad(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                             int n_captures, unsigned flags, const uint8_t *wants, kg_compiled **out) {
  kg_context *lk = m->ctx;
  kg_ctx_lock(lk);
  kg_status s = specialize_grad_locked(m, entry, inputs, n_inputs, captures, n_captures, flags, wants, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status specialize_grad_locked(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                             int n_captures, unsigned flags, const uint8_t *wants, kg_compiled **out) {
  kg_context *ctx = m->ctx;
  kg_call_begin(ctx);
  *out = NULL;
  uint32_t ei;
  if (!no_package(m) || !kg_find_entry(m, entry, &ei)) return kg_fail(ctx);
  int64_t *seen = NULL;
  int n_seen = 0;
  kg_sig *s = kg_sig_of_tensors(m, ei, inputs, n_inputs, captures, n_captures, flags, &seen, &n_seen);
  if (!s) return kg_fail(ctx);
  if (!wants) {
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "kg_specialize_grad: wants is NULL (one flag per input, then per capture)");
    return kg_fail(ctx);
  }
  kg_compiled *c = kg_compile_grad(m, ei, s, wants, seen, n_seen);
  if (!c) return kg_fail(ctx);
  ctx->specializations++;
  *out = c;
  return KG_OK;
}

static kg_status specialize_grad_sig_locked(kg_module *m, const char *entry, const char *sig, kg_compiled **out);
kg_status kg_specialize_grad_sig(kg_module *m, const char *entry, const char *sig, kg_compiled **out) {
  kg_context *lk = m->ctx;
  kg_ctx_lock(lk);
  kg_status s = specialize_grad_sig_locked(m, entry, sig, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status specialize_grad_sig_locked(kg_module *m, const char *entry, const char *sig, kg_compiled **out) {
  kg_context *ctx = m->ctx;
  kg_call_begin(ctx);
  *out = NULL;
  uint32_t ei;
  if (!no_package(m) || !kg_find_entry(m, entry, &ei)) return kg_fail(ctx);
  kg_sig *s = NULL;
  if (sig && !(s = kg_fe_parse_sig(&m->arena, sig, &ctx->diag))) return kg_fail(ctx);
  kg_compiled *c = kg_compile_grad(m, ei, s, NULL, NULL, 0);
  if (!c) return kg_fail(ctx);
  ctx->specializations++;
  *out = c;
  return KG_OK;
}

int kg_compiled_n_saved(const kg_compiled *c) { return c ? (int)c->n_saved : 0; }

kg_compiled *kg_compiled_backward(kg_compiled *c) { return c ? c->bwd : NULL; }

int kg_compiled_backward_n_inputs(const kg_compiled *c) { return c && c->bwd ? (int)c->n_bwd_params : 0; }

kg_status kg_compiled_backward_input(const kg_compiled *c, int i, int *source, int *index) {
  if (!c || !c->bwd || i < 0 || (uint32_t)i >= c->n_bwd_params) return KG_ERR_INPUT;
  const kg_bwd_param *p = &c->bwd_params[i];
  int src = 0, idx = (int)p->index;
  switch ((kg_bwd_kind)p->kind) {
  case KG_BWD_GRAD: src = KG_BWD_IN_GRAD; break;
  case KG_BWD_PARAM:
    if (p->index < c->g.n_entry_params) src = KG_BWD_IN_INPUT;
    else src = KG_BWD_IN_CAPTURE, idx = (int)(p->index - c->g.n_entry_params);
    break;
  case KG_BWD_RESULT: src = KG_BWD_IN_RESULT; break;
  case KG_BWD_SAVED: src = KG_BWD_IN_SAVED; break;
  }
  if (source) *source = src;
  if (index) *index = idx;
  return KG_OK;
}

int kg_compiled_backward_n_outputs(const kg_compiled *c) { return c && c->bwd ? (int)c->n_bwd_grads : 0; }

kg_status kg_compiled_backward_output(const kg_compiled *c, int i, int *is_capture, int *index) {
  if (!c || !c->bwd || i < 0 || (uint32_t)i >= c->n_bwd_grads) return KG_ERR_INPUT;
  uint32_t p = c->bwd_grads[i];
  bool cap = p >= c->g.n_entry_params;
  if (is_capture) *is_capture = cap;
  if (index) *index = (int)(cap ? p - c->g.n_entry_params : p);
  return KG_OK;
}

kg_status kg_compiled_rng_last(const kg_compiled *c, uint64_t *seed, uint64_t *offset) {
  if (!c) return KG_ERR_INPUT;
  if (seed) *seed = c->rng_last_seed;
  if (offset) *offset = c->rng_last_offset;
  return KG_OK;
}

kg_status kg_compiled_rng_pin(kg_compiled *c, int pinned, uint64_t seed, uint64_t offset) {
  if (!c) return KG_ERR_INPUT;
  c->rng_pinned = pinned != 0, c->rng_pin_seed = seed, c->rng_pin_offset = offset;
  return KG_OK;
}
