/* runtime/check_access.c — the accessors of check_access.h: what the PyTorch check kit
 * (check/) reads of compiled entries and contexts beyond kgen.h, as functions, so that the
 * kit never sees the structures of api_int.h. Why each exists: check_access.h.
 */
#include "check_access.h"

#include "api_int.h"
#include "package.h"

const kg_graph *kg_compiled_graph(const kg_compiled *c) { return &c->g; }

kg_context *kg_compiled_context(const kg_compiled *c) { return c->m->ctx; }

bool kg_compiled_twin(const kg_compiled *c, const kg_ts_opts *o, kg_strbuf *out, kg_diag *d) {
  if (c->pkg) return kg_pkg_twin(c, o, out, d); /* a package carries its twins as text */
  return kg_ts_emit_plan(&c->g, c->plan_src, o, out, d);
}

kg_status kg_ctx_report(kg_context *ctx, const kg_diag *d) {
  kg_call_begin(ctx);
  for (uint32_t i = 0; i < d->n; i++) kg_diag_add(&ctx->diag, d->items[i].code, d->items[i].path, d->items[i].srcloc, "%s", d->items[i].msg);
  return kg_fail(ctx);
}
