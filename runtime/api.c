/* runtime/api.c — the public API: contexts, modules, specialization, artifacts.
 *
 * kgen is a library first (style habits 1–2): the CLI, the TorchSharp binding
 * and offline packages all go through these calls. Each call clears the
 * context's diagnostics, and on failure formats them into kg_last_error(). Calls on one context
 * hold its lock (kg_ctx_lock): from several threads they run one at a time.
 * Specialization runs the pipeline once (compile.c: kg_compile_entry, the place to
 * start reading).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_int.h"
#include "package.h"

/* ---- context ---- */

kg_context *kg_context_new(const kg_options *opts) {
  kg_context *ctx = kg_xcalloc(1, sizeof *ctx);
  pthread_mutexattr_t la;
  pthread_mutexattr_init(&la);
  pthread_mutexattr_settype(&la, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&ctx->lock, &la);
  pthread_mutexattr_destroy(&la);
  if (opts) ctx->opts = *opts;
  else ctx->opts.verify_ir = 1;
  kg_diag_init(&ctx->diag);
  ctx->rtcfg.cache_dir = ctx->opts.cache_dir;
  ctx->rtcfg.cc = ctx->opts.cc;
  ctx->rtcfg.emu.order = ctx->opts.emu_thread_order;
  ctx->rtcfg.emu.seed = ctx->opts.emu_seed;
  ctx->rtcfg.cuda_ordinal = ctx->opts.cuda_device;
  ctx->rtcfg.counts = &ctx->counts;
  ctx->last_error = kg_xstrdup("");
  const char *rb = getenv("KGEN_REDUCE_BLOCK"), *rc = getenv("KGEN_ROW_CACHE");
  if (rb && atoi(rb) >= 32 && atoi(rb) <= 1024 && atoi(rb) % 32 == 0) ctx->reduce_block = (uint32_t)atoi(rb);
  ctx->row_cache = rc && rc[0] == '1';
  const char *rp = getenv("KGEN_REPLAY");
  ctx->no_replay = ctx->opts.no_replay != 0 || (rp && rp[0] == '0');
  ctx->rng_seed = KG_DEFAULT_SEED;
  return ctx;
}

void kg_context_free(kg_context *ctx) {
  if (!ctx) return;
  kg_ctx_lock(ctx); /* a call in flight on another thread finishes first */
  if (ctx->emu) ctx->emu->vt->destroy(ctx->emu);
  if (ctx->cuda) ctx->cuda->vt->destroy(ctx->cuda);
  if (ctx->null_dev) ctx->null_dev->vt->destroy(ctx->null_dev);
  if (ctx->cpu) ctx->cpu->vt->destroy(ctx->cpu);
  if (ctx->nvrtc) kg_nvrtc_close(ctx->nvrtc);
  kg_diag_free(&ctx->diag);
  free(ctx->last_error);
  kg_ctx_unlock(ctx);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

const char *kg_last_error(kg_context *ctx) { return ctx->last_error; }

static kg_status context_set_cpu_threads_locked(kg_context *ctx, int threads);
kg_status kg_context_set_cpu_threads(kg_context *ctx, int threads) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = context_set_cpu_threads_locked(ctx, threads);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status context_set_cpu_threads_locked(kg_context *ctx, int threads) {
  kg_call_begin(ctx);
  if (threads < 0 || threads > 1024) {
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "kg_context_set_cpu_threads: %d threads (0 = the CPUs available, at most 1024)", threads);
    return kg_fail(ctx);
  }
  if (ctx->cpu && threads != ctx->cpu_threads) { /* a new pool on next use; its loaded objects go with it */
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "kg_context_set_cpu_threads: the CPU device of this context is in use already; set its threads first");
    return kg_fail(ctx);
  }
  ctx->cpu_threads = threads;
  return KG_OK;
}

static kg_status context_stats_get_locked(kg_context *ctx, kg_context_stats *out);
kg_status kg_context_stats_get(kg_context *ctx, kg_context_stats *out) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = context_stats_get_locked(ctx, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status context_stats_get_locked(kg_context *ctx, kg_context_stats *out) {
  out->specializations = ctx->specializations;
  out->emu_compiles = ctx->counts.emu_compiles;
  out->emu_cache_hits = ctx->counts.emu_cache_hits;
  out->nvrtc_compiles = ctx->counts.nvrtc_compiles;
  out->cubin_cache_hits = ctx->counts.cubin_cache_hits;
  return KG_OK;
}

void kg_call_begin(kg_context *ctx) {
  kg_diag_clear(&ctx->diag);
  ctx->call_epoch++; /* a new call: no kept panel of an earlier one is read (exec_keep.c) */
}

void kg_ctx_lock(kg_context *ctx) { (void)pthread_mutex_lock(&ctx->lock); }
void kg_ctx_unlock(kg_context *ctx) { (void)pthread_mutex_unlock(&ctx->lock); }

kg_status kg_fail(kg_context *ctx) {
  free(ctx->last_error);
  ctx->last_error = kg_diag_format(&ctx->diag);
  bool internal = false;
  for (uint32_t i = 0; i < ctx->diag.n; i++)
    internal |= ctx->diag.items[i].code == KG_E_INTERNAL || ctx->diag.items[i].code == KG_E_DEVICE;
  return internal ? KG_ERR_INTERNAL : KG_ERR_INPUT;
}

kg_nvrtc *kg_ctx_nvrtc(kg_context *ctx) {
  if (!ctx->nvrtc_probed) {
    ctx->nvrtc_probed = true;
    ctx->nvrtc = kg_nvrtc_open(&ctx->diag);
  } else if (!ctx->nvrtc) {
    kg_diag_add(&ctx->diag, KG_E_DEVICE, NULL, NULL, "NVRTC (libnvrtc.so) could not be loaded; set KGEN_NVRTC_LIB");
  }
  return ctx->nvrtc;
}

/* ---- modules ---- */

static kg_status module_load_locked(kg_context *ctx, const char *json, size_t len, kg_module **out);
kg_status kg_module_load(kg_context *ctx, const char *json, size_t len, kg_module **out) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = module_load_locked(ctx, json, len, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status module_load_locked(kg_context *ctx, const char *json, size_t len, kg_module **out) {
  kg_call_begin(ctx);
  *out = NULL;
  kg_module *m = kg_xcalloc(1, sizeof *m);
  m->ctx = ctx;
  kg_arena_init(&m->arena);
  kg_fe_limits lim;
  kg_fe_limits_default(&lim);
  m->doc = kg_fe_read(&m->arena, json, len, &lim, &ctx->diag);
  if (!m->doc) {
    kg_module_free(m);
    return kg_fail(ctx);
  }
  *out = m;
  return KG_OK;
}

static kg_status module_load_file_locked(kg_context *ctx, const char *path, kg_module **out);
kg_status kg_module_load_file(kg_context *ctx, const char *path, kg_module **out) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = module_load_file_locked(ctx, path, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status module_load_file_locked(kg_context *ctx, const char *path, kg_module **out) {
  kg_call_begin(ctx);
  /* an offline kernel package (docs/package.md) by its magic: mapped, never read whole */
  char magic[8];
  FILE *f = fopen(path, "rb");
  bool pkg = f && fread(magic, 1, 8, f) == 8 && !memcmp(magic, KG_PKG_MAGIC, 8);
  if (f) fclose(f);
  if (pkg) return kg_package_load(ctx, path, out);
  size_t len;
  char *text = kg_read_file(path, &len);
  if (!text) {
    kg_diag_add(&ctx->diag, KG_E_IO, NULL, NULL, "cannot read %s", path);
    *out = NULL;
    return kg_fail(ctx);
  }
  kg_status s = kg_module_load(ctx, text, len, out);
  free(text);
  return s;
}

static void module_free_locked(kg_module *m);
void kg_module_free(kg_module *m) {
  if (!m) return;
  kg_context *lk = m->ctx;
  kg_ctx_lock(lk);
  module_free_locked(m);
  kg_ctx_unlock(lk);
}
static void module_free_locked(kg_module *m) {
  if (!m) return;
  kg_pkg_free(m->pkg, m->ctx);
  kg_arena_free(&m->arena);
  free(m->json);
  free(m);
}

int kg_module_n_entries(const kg_module *m) { return m->pkg ? (int)m->pkg->n_entries : (int)m->doc->n_entries; }
const char *kg_module_entry_name(const kg_module *m, int i) {
  if (m->pkg) return i >= 0 && (uint32_t)i < m->pkg->n_entries ? m->pkg->entries[i].name : NULL;
  return i >= 0 && (uint32_t)i < m->doc->n_entries ? m->doc->entries[i].name : NULL;
}

const char *kg_entry_cname(kg_arena *a, const char *entry) {
  kg_strbuf b;
  kg_sb_init(&b);
  if (!(entry[0] >= 'a' && entry[0] <= 'z') && !(entry[0] >= 'A' && entry[0] <= 'Z')) kg_sb_puts(&b, "k_");
  for (const char *p = entry; *p && b.len < 48; p++) {
    char ch = *p;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    kg_sb_putc(&b, ok ? ch : '_');
  }
  const char *r = kg_arena_strdup(a, kg_sb_cstr(&b));
  kg_sb_free(&b);
  return r;
}

/* ---- specialization ---- */

static bool find_entry(kg_module *m, const char *entry, uint32_t *idx) {
  if (!entry) { *idx = 0; return true; }
  for (uint32_t i = 0; i < m->doc->n_entries; i++)
    if (strcmp(m->doc->entries[i].name, entry) == 0) { *idx = i; return true; }
  kg_strbuf b;
  kg_sb_init(&b);
  for (uint32_t i = 0; i < m->doc->n_entries; i++) kg_sb_printf(&b, "%s%s", i ? ", " : "", m->doc->entries[i].name);
  kg_diag_add(&m->ctx->diag, KG_E_ARG, "$.entries", NULL, "no entry named '%s' (entries: %s)", entry, kg_sb_cstr(&b));
  kg_sb_free(&b);
  return false;
}

bool kg_find_entry(kg_module *m, const char *entry, uint32_t *ei) { return find_entry(m, entry, ei); }

static kg_status specialize(kg_module *m, const char *entry, const kg_sig *sig, kg_compiled **out) {
  kg_context *ctx = m->ctx;
  *out = NULL;
  uint32_t ei;
  if (!find_entry(m, entry, &ei)) return kg_fail(ctx);
  kg_compiled *c = kg_compile_entry(m, ei, sig);
  if (!c) return kg_fail(ctx);
  ctx->specializations++;
  *out = c;
  return KG_OK;
}

/* A module that is a package: the packaged signature named (or that the tensors fit), read. */
static kg_status specialize_pkg(kg_module *m, int ei, int si, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                                int n_captures, kg_compiled **out) {
  *out = NULL;
  if (ei < 0 || si < 0) return kg_fail(m->ctx);
  *out = kg_pkg_specialize(m, ei, si, inputs, n_inputs, captures, n_captures);
  if (!*out) return kg_fail(m->ctx);
  m->ctx->specializations++;
  return KG_OK;
}

static kg_status specialize_locked(kg_module *m, const char *entry, const char *sig, kg_compiled **out);
kg_status kg_specialize(kg_module *m, const char *entry, const char *sig, kg_compiled **out) {
  kg_context *lk = m->ctx;
  kg_ctx_lock(lk);
  kg_status s = specialize_locked(m, entry, sig, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status specialize_locked(kg_module *m, const char *entry, const char *sig, kg_compiled **out) {
  kg_call_begin(m->ctx);
  if (m->pkg) {
    int ei = kg_pkg_entry_index(m, entry);
    return specialize_pkg(m, ei, ei < 0 ? -1 : kg_pkg_sig_named(m, ei, sig), NULL, -1, NULL, 0, out);
  }
  kg_sig *s = NULL;
  if (sig) {
    s = kg_fe_parse_sig(&m->arena, sig, &m->ctx->diag);
    if (!s) { *out = NULL; return kg_fail(m->ctx); }
  }
  return specialize(m, entry, s, out);
}

kg_dtype kg_dtype_from_dl(DLDataType t) {
  if (t.lanes != 1) return KG_DT_NONE;
  switch (t.code) {
  case kDLBool: return t.bits == 8 ? KG_BOOL : KG_DT_NONE;
  case kDLUInt: return t.bits == 8 ? KG_U8 : (t.bits == 1 ? KG_BOOL : KG_DT_NONE);
  case kDLInt: return t.bits == 8 ? KG_I8 : t.bits == 16 ? KG_I16 : t.bits == 32 ? KG_I32 : t.bits == 64 ? KG_I64 : KG_DT_NONE;
  case kDLFloat: return t.bits == 16 ? KG_F16 : t.bits == 32 ? KG_F32 : t.bits == 64 ? KG_F64 : KG_DT_NONE;
  case kDLBfloat: return t.bits == 16 ? KG_BF16 : KG_DT_NONE;
  default: return KG_DT_NONE;
  }
}

/* The entry's parameters in order (walks the Lambda chain's var types; a tupled lambda gives
 * one per item): for each, whether it is a .NET scalar and its dtype (KG_DT_NONE for a tensor
 * or an unsupported type). Returns their count. */
static int entry_params(const kg_module *m, uint32_t ei, bool *is_scalar, kg_dtype *dtype, int max) {
  const kg_ast *b = m->doc->entries[ei].expr;
  int n = 0;
  kg_arena tmp;
  kg_arena_init(&tmp);
  while (b->k == KG_AST_Lambda) {
    const char *ty = m->doc->vars[b->var].type;
    const char *tys[16];
    int nt = 1;
    tys[0] = ty;
    if (kg_clr_is_tuple(ty)) nt = kg_clr_generic_args(&tmp, ty, tys, 16);
    for (int i = 0; i < nt; i++) {
      if (kg_clr_is_unit(tys[i])) continue;
      if (n < max) {
        is_scalar[n] = !kg_clr_is_tensor(tys[i]);
        if (dtype) dtype[n] = is_scalar[n] ? kg_dtype_from_clr(tys[i]) : KG_DT_NONE;
      }
      n++;
    }
    b = b->a;
    if (kg_fe_after_unpacking(b)) b = kg_fe_after_unpacking(b); /* fun (a, b) c -> ...: see frontend.h */
  }
  kg_arena_free(&tmp);
  return n;
}

int kg_module_entry_n_params(kg_module *m, const char *entry) {
  uint32_t ei;
  bool sc[64];
  if (m->pkg) {
    int pe = kg_pkg_entry_index(m, entry);
    return pe < 0 ? -1 : kg_pkg_entry_n_params(m, pe);
  }
  if (!find_entry(m, entry, &ei)) return -1;
  return entry_params(m, ei, sc, NULL, 64);
}

int kg_module_entry_param(kg_module *m, const char *entry, int i, DLDataType *scalar_dtype) {
  uint32_t ei;
  bool sc[64];
  kg_dtype dt[64];
  if (m->pkg) {
    int pe = kg_pkg_entry_index(m, entry);
    return pe < 0 ? -1 : kg_pkg_entry_param(m, pe, i, scalar_dtype);
  }
  if (!find_entry(m, entry, &ei)) return -1;
  int n = entry_params(m, ei, sc, dt, 64);
  if (i < 0 || i >= n || i >= 64) return -1;
  if (!sc[i]) return 0;
  if (scalar_dtype) *scalar_dtype = kg_dtype_to_dl(dt[i]);
  return 1;
}

kg_status kg_specialize_for(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs,
                            const kg_named_tensor *captures, int n_captures, kg_compiled **out) {
  return kg_specialize_for_ex(m, entry, inputs, n_inputs, captures, n_captures, 0, out);
}

/* KG_SPEC_DYNAMIC: the symbol of size `v` ("s<k>", k = its rank among the distinct sizes met
 * so far), added to `seen` on first sight */
static const char *duck_symbol(kg_arena *a, int64_t *seen, int *n_seen, int64_t v) {
  int k = 0;
  while (k < *n_seen && seen[k] != v) k++;
  if (k == *n_seen) seen[(*n_seen)++] = v;
  return kg_arena_printf(a, "s%d", k);
}

/* true when v is the size of a dim of a captured tensor */
static bool capture_size(const kg_named_tensor *captures, int n_captures, int64_t v) {
  for (int j = 0; j < n_captures; j++) {
    const DLTensor *t = captures[j].t;
    for (int d = 0; t && d < t->ndim && d < KG_MAX_RANK; d++)
      if (t->shape[d] == v) return true;
  }
  return false;
}

/* The signature of actual tensors (dtype, rank, sizes; KG_SPEC_DYNAMIC: the inputs' sizes of 2 or
 * more as duck symbols "s<k>", seen[k] the k-th distinct size, *n_seen of them — except a size a
 * captured tensor has, which stays static as the captures' sizes do); NULL with diagnostics. */
kg_sig *kg_sig_of_tensors(kg_module *m, uint32_t ei, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                          int n_captures, unsigned flags, int64_t **seen_out, int *n_seen_out) {
  kg_context *ctx = m->ctx;
  bool sc[64];
  int np = entry_params(m, ei, sc, NULL, 64);
  if (np != n_inputs) {
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "entry '%s' takes %d parameter(s), %d input(s) given", m->doc->entries[ei].name, np, n_inputs);
    return NULL;
  }
  kg_sig *s = kg_arena_alloc(&m->arena, sizeof *s);
  s->n_params = (uint32_t)n_inputs;
  s->params = kg_arena_alloc(&m->arena, ((size_t)n_inputs + 1) * sizeof *s->params);
  s->n_captures = (uint32_t)n_captures;
  s->captures = kg_arena_alloc(&m->arena, ((size_t)n_captures + 1) * sizeof *s->captures);
  s->capture_names = kg_arena_alloc(&m->arena, ((size_t)n_captures + 1) * sizeof *s->capture_names);
  int64_t *seen = kg_arena_alloc(&m->arena, ((size_t)(n_inputs + n_captures) * KG_MAX_RANK + 1) * sizeof *seen);
  int n_seen = 0;
  for (int i = 0; i < n_inputs + n_captures; i++) {
    bool cap = i >= n_inputs;
    const DLTensor *t = cap ? captures[i - n_inputs].t : inputs[i];
    kg_sig_param *p = cap ? &s->captures[i - n_inputs] : &s->params[i];
    const char *what = cap ? captures[i - n_inputs].name : NULL;
    if (!t) {
      kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "input %d is NULL", i + 1);
      return NULL;
    }
    p->dtype = kg_dtype_from_dl(t->dtype);
    if (p->dtype == KG_DT_NONE) {
      kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "%s%s%d has an unsupported dtype (code %u, %u bits, %u lanes)",
                  cap ? "capture " : "input ", cap ? what : "", cap ? 0 : i + 1, t->dtype.code, t->dtype.bits, t->dtype.lanes);
      return NULL;
    }
    if (t->ndim < 0 || t->ndim > KG_MAX_RANK) {
      kg_diag_add(&ctx->diag, KG_E_LIMIT, NULL, NULL, "input %d has rank %d; kgen supports up to %d", i + 1, t->ndim, KG_MAX_RANK);
      return NULL;
    }
    p->is_scalar = !cap && sc[i];
    if (p->is_scalar && t->ndim != 0) {
      kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "parameter %d is a scalar: pass it as a 0-dim tensor (got rank %d)", i + 1, t->ndim);
      return NULL;
    }
    p->rank = (uint8_t)t->ndim;
    for (int d = 0; d < t->ndim; d++) {
      if (t->shape[d] < 0) {
        kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "input %d has a negative size", i + 1);
        return NULL;
      }
      p->dims[d].kind = KG_DIM_STATIC, p->dims[d].size = t->shape[d];
      if ((flags & KG_SPEC_DYNAMIC) && !cap && t->shape[d] > 1 && !capture_size(captures, n_captures, t->shape[d]))
        p->dims[d].kind = KG_DIM_SYM, p->dims[d].sym = duck_symbol(&m->arena, seen, &n_seen, t->shape[d]);
    }
    if (cap) s->capture_names[i - n_inputs] = kg_arena_strdup(&m->arena, what);
  }
  if (seen_out) *seen_out = seen, *n_seen_out = n_seen;
  return s;
}

static kg_status specialize_for_ex_locked(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs,
                               const kg_named_tensor *captures, int n_captures, unsigned flags, kg_compiled **out);
kg_status kg_specialize_for_ex(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs,
                               const kg_named_tensor *captures, int n_captures, unsigned flags, kg_compiled **out) {
  kg_context *lk = m->ctx;
  kg_ctx_lock(lk);
  kg_status s = specialize_for_ex_locked(m, entry, inputs, n_inputs, captures, n_captures, flags, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status specialize_for_ex_locked(kg_module *m, const char *entry, const DLTensor *const *inputs, int n_inputs,
                               const kg_named_tensor *captures, int n_captures, unsigned flags, kg_compiled **out) {
  kg_context *ctx = m->ctx;
  kg_call_begin(ctx);
  *out = NULL;
  if (m->pkg) { /* the packaged signature these tensors fit (the flags do not matter: nothing is compiled) */
    int pe = kg_pkg_entry_index(m, entry);
    return specialize_pkg(m, pe, pe < 0 ? -1 : kg_pkg_fit(m, pe, inputs, n_inputs, captures, n_captures), inputs, n_inputs, captures, n_captures, out);
  }
  uint32_t ei;
  if (!find_entry(m, entry, &ei)) return kg_fail(ctx);
  kg_sig *s = kg_sig_of_tensors(m, ei, inputs, n_inputs, captures, n_captures, flags, NULL, NULL);
  if (!s) return kg_fail(ctx);
  return specialize(m, entry, s, out);
}

static void compiled_free_locked(kg_compiled *c);
void kg_compiled_free(kg_compiled *c) {
  if (!c) return;
  kg_context *lk = c->m->ctx;
  kg_ctx_lock(lk);
  compiled_free_locked(c);
  kg_ctx_unlock(lk);
}
static void compiled_free_locked(kg_compiled *c) {
  if (!c) return;
  kg_replay_free(c); /* its graphs first (a CUDA graph's nodes name functions of the modules unloaded below) */
  kg_pool_release(&c->wb_pool);
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    kg_kvariant *kv = c->runtime.v[i];
    kg_device *devs[4] = {c->m->ctx->emu, c->m->ctx->cuda, c->m->ctx->null_dev, c->m->ctx->cpu};
    for (int di = 0; di < 4; di++)
      if (devs[di] && kv->mod[kg_dev_slot(devs[di])] && !(kv->borrowed && di == 1)) devs[di]->vt->unload(devs[di], kv->mod[kg_dev_slot(devs[di])]);
    kg_kernel_free(&kv->k);
    free(kv->cuda), free(kv->trampolines), free(kv->cpu), free(kv->cpu_pre), free(kv);
  }
  KG_VEC_FREE(c->runtime);
  for (uint32_t i = 0; i < c->n_kernels && !c->plan; i++) kg_kernel_free(&c->kernels[i]);
  kg_pool_release(&c->pool);
  free(c->kernels), free(c->variants), free(c->gfacts), free(c->cuda), free(c->explain);
  kg_fusion_free(&c->fusion);
  kg_compiled_free_plans(c);
  for (uint32_t i = 0; i < c->n_regions; i++) kg_compiled_free(c->regions[i]);
  free(c->regions);
  for (uint32_t i = 0; c->copies && i < c->g.outputs.n; i++) kg_compiled_free(c->copies[i]);
  free(c->copies);
  kg_compiled_free(c->bwd);
  free(c->bwd_params), free(c->bwd_grads);
  if (c->plan) kg_plan_free(c->plan);
  if (c->plan_src) kg_plan_free(c->plan_src);
  kg_graph_free(&c->lg);
  kg_graph_free(&c->g);
  kg_arena_free(&c->arena);
  free(c);
}

int kg_compiled_n_outputs(const kg_compiled *c) { return (int)kg_graph_n_results(&c->g); }

int kg_compiled_n_writebacks(const kg_compiled *c) { return (int)(c->g.outputs.n - kg_graph_n_results(&c->g)); }

kg_status kg_compiled_writeback(const kg_compiled *c, int i, int *param, int *is_capture, const char **name) {
  for (uint32_t p = 0; p < c->g.params.n; p++) {
    const kg_gparam *gp = &c->g.params.v[p];
    if (!gp->wb || i-- != 0) continue;
    if (param) *param = gp->is_capture ? (int)(p - c->g.n_entry_params) : (int)p;
    if (is_capture) *is_capture = gp->is_capture;
    if (name) *name = gp->name;
    return KG_OK;
  }
  return KG_ERR_INPUT;
}
int kg_compiled_n_kernels(const kg_compiled *c) { return (int)c->n_kernels; }

DLDataType kg_dtype_to_dl(kg_dtype t) {
  DLDataType r = {kDLFloat, 32, 1};
  switch (t) {
  case KG_BOOL: r.code = kDLBool, r.bits = 8; break;
  case KG_U8: r.code = kDLUInt, r.bits = 8; break;
  case KG_I8: r.code = kDLInt, r.bits = 8; break;
  case KG_I16: r.code = kDLInt, r.bits = 16; break;
  case KG_I32: r.code = kDLInt, r.bits = 32; break;
  case KG_I64: r.code = kDLInt, r.bits = 64; break;
  case KG_F16: r.code = kDLFloat, r.bits = 16; break;
  case KG_BF16: r.code = kDLBfloat, r.bits = 16; break;
  case KG_F32: r.code = kDLFloat, r.bits = 32; break;
  case KG_F64: r.code = kDLFloat, r.bits = 64; break;
  default: break;
  }
  return r;
}

kg_status kg_compiled_output(const kg_compiled *c, int i, DLDataType *dtype, int *ndim, int64_t shape[8]) {
  if (i < 0 || (uint32_t)i >= kg_graph_n_results(&c->g)) return KG_ERR_INPUT;
  const kg_gnode *n = &c->g.nodes.v[c->g.outputs.v[i]];
  *dtype = kg_dtype_to_dl((kg_dtype)n->dtype);
  *ndim = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
  for (int d = 0; d < *ndim; d++) {
    const kg_dim *dm = &n->shape.d[d];
    shape[d] = dm->kind == KG_DIM_STATIC ? dm->v : c->pkg && c->pkg->bound && c->pkg->bound[dm->v] ? c->pkg->sym[dm->v] : -1;
  }
  return KG_OK;
}

const char *kg_compiled_warnings(const kg_compiled *c) { return c && c->g.warnings ? c->g.warnings : ""; }

const char *kg_compiled_output_symbol(const kg_compiled *c, int i, int d) {
  if (i < 0 || (uint32_t)i >= kg_graph_n_results(&c->g)) return NULL;
  const kg_gnode *n = &c->g.nodes.v[c->g.outputs.v[i]];
  if (n->vkind == KG_V_SCALAR || d < 0 || d >= n->shape.rank || n->shape.d[d].kind != KG_DIM_SYM) return NULL;
  return c->g.syms.v[n->shape.d[d].v];
}

/* ---- artifacts ---- */

/* Compiles the entry's CUDA C with NVRTC for sm_<arch> (cubin too when asked). */
static kg_status nvrtc_build(kg_compiled *c, int arch, bool cubin, kg_nvrtc_out *o) {
  kg_context *ctx = c->m->ctx;
  memset(o, 0, sizeof *o);
  if ((arch & 0xffff) < 75 || (arch & 0xffff) > 121) {
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "arch sm_%d is outside the supported range sm_75 … sm_121", arch & 0xffff);
    return kg_fail(ctx);
  }
  kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
  if (!nv) return kg_fail(ctx);
  const char *pname = kg_arena_printf(&c->arena, "%s.cu", kg_entry_cname(&c->arena, c->g.entry));
  if (kg_nvrtc_compile(nv, pname, c->cuda, arch, cubin, NULL, o, &ctx->diag) != 0) {
    kg_nvrtc_out_free(o);
    return kg_fail(ctx);
  }
  return KG_OK;
}

static char *text_ir(kg_compiled *c) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_graph_print(&c->g, &b);
  if (c->plan) {
    kg_plan_print(c->plan, &c->g, &b);
    for (uint32_t i = 0; i < c->n_regions; i++) {
      char *t = text_ir(c->regions[i]);
      kg_sb_printf(&b, "== region r%u\n%s", i, t);
      free(t);
    }
    return kg_sb_take(&b);
  }
  if (c->lg.nodes.n != c->g.nodes.n || memcmp(c->lg.nodes.v, c->g.nodes.v, c->g.nodes.n * sizeof *c->g.nodes.v) != 0) {
    kg_sb_puts(&b, "lowered as:\n");
    kg_graph_print(&c->lg, &b);
  }
  kg_fusion_print(&c->lg, &c->fusion, &b);
  for (uint32_t i = 0; i < c->n_kernels; i++) {
    const kg_kernel *k = &c->kernels[i];
    if (c->pkg) /* a package holds launch metadata, not kernel IR (the code is its CUDA C) */
      kg_sb_printf(&b, "kernel %s (%s, %u parameters; packaged: launch metadata only)\n", k->name, k->schedule ? k->schedule : "?", k->params.n);
    else kg_kernel_print(k, &b);
  }
  return kg_sb_take(&b);
}

static kg_status emit_locked(kg_compiled *c, kg_artifact kind, int arch, char **data, size_t *len);
kg_status kg_emit(kg_compiled *c, kg_artifact kind, int arch, char **data, size_t *len) {
  kg_context *lk = c->m->ctx;
  kg_ctx_lock(lk);
  kg_status s = emit_locked(c, kind, arch, data, len);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status emit_locked(kg_compiled *c, kg_artifact kind, int arch, char **data, size_t *len) {
  kg_context *ctx = c->m->ctx;
  kg_call_begin(ctx);
  *data = NULL, *len = 0;
  if (c->pkg && kind != KG_ART_IR) return kg_pkg_emit(c, kind, arch, data, len); /* what the package holds */
  switch (kind) {
  case KG_ART_CUDA: *data = kg_xstrdup(c->cuda); break;
  case KG_ART_IR: *data = text_ir(c); break;
  case KG_ART_EXPLAIN: *data = kg_xstrdup(c->explain); break;
  case KG_ART_TORCHSCRIPT:
  case KG_ART_PYTHON: {
    kg_strbuf b;
    kg_sb_init(&b);
    kg_ts_opts o = {kind == KG_ART_PYTHON, false};
    if (!kg_ts_emit_plan(&c->g, c->plan_src, &o, &b, &ctx->diag)) {
      kg_sb_free(&b);
      return kg_fail(ctx);
    }
    *data = kg_sb_take(&b);
    break;
  }
  case KG_ART_PTX:
  case KG_ART_CUBIN: {
    kg_nvrtc_out o;
    kg_status st = nvrtc_build(c, arch, kind == KG_ART_CUBIN, &o);
    if (st != KG_OK) return st;
    if (kind == KG_ART_PTX) {
      *data = o.ptx, *len = o.ptx_len;
      o.ptx = NULL;
    } else {
      *data = o.cubin, *len = o.cubin_len;
      o.cubin = NULL;
    }
    kg_nvrtc_out_free(&o);
    return KG_OK;
  }
  default:
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "unknown artifact kind %d", (int)kind);
    return kg_fail(ctx);
  }
  *len = strlen(*data);
  return KG_OK;
}

static kg_status kernel_stats_get_locked(kg_compiled *c, int arch, int i, kg_kernel_stats *out);
kg_status kg_kernel_stats_get(kg_compiled *c, int arch, int i, kg_kernel_stats *out) {
  kg_context *lk = c->m->ctx;
  kg_ctx_lock(lk);
  kg_status s = kernel_stats_get_locked(c, arch, i, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status kernel_stats_get_locked(kg_compiled *c, int arch, int i, kg_kernel_stats *out) {
  kg_context *ctx = c->m->ctx;
  kg_call_begin(ctx);
  memset(out, 0, sizeof *out);
  if (c->pkg) {
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "a packaged entry has no NVRTC statistics per kernel: `kgen explain PACKAGE` prints what ptxas reported when it was packaged");
    return kg_fail(ctx);
  }
  if (i < 0 || (uint32_t)i >= c->n_kernels) {
    kg_diag_add(&ctx->diag, KG_E_ARG, NULL, NULL, "kernel index %d out of range", i);
    return kg_fail(ctx);
  }
  kg_nvrtc_out o;
  kg_status st = nvrtc_build(c, arch, true, &o);
  if (st != KG_OK) return st;
  bool found = false;
  for (uint32_t j = 0; j < o.n_stats; j++) {
    if (strcmp(o.stats[j].name, kg_compiled_kernel(c, (uint32_t)i)->name) != 0) continue;
    snprintf(out->name, sizeof out->name, "%s", o.stats[j].name);
    out->regs = o.stats[j].regs, out->spill_stores = o.stats[j].spill_stores;
    out->spill_loads = o.stats[j].spill_loads, out->smem = o.stats[j].smem;
    found = true;
  }
  kg_nvrtc_out_free(&o);
  if (!found) {
    kg_diag_add(&ctx->diag, KG_E_INTERNAL, NULL, NULL, "ptxas reported no statistics for kernel %s", kg_compiled_kernel(c, (uint32_t)i)->name);
    return kg_fail(ctx);
  }
  return KG_OK;
}

/* ---- the random generator (docs/design.md "The random generator") ---- */

static kg_status context_manual_seed_locked(kg_context *ctx, uint64_t seed);
kg_status kg_context_manual_seed(kg_context *ctx, uint64_t seed) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = context_manual_seed_locked(ctx, seed);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status context_manual_seed_locked(kg_context *ctx, uint64_t seed) {
  ctx->rng_seed = seed, ctx->rng_offset = 0;
  return KG_OK;
}

static kg_status context_rng_state_locked(kg_context *ctx, uint64_t *seed, uint64_t *offset);
kg_status kg_context_rng_state(kg_context *ctx, uint64_t *seed, uint64_t *offset) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = context_rng_state_locked(ctx, seed, offset);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status context_rng_state_locked(kg_context *ctx, uint64_t *seed, uint64_t *offset) {
  if (seed) *seed = ctx->rng_seed;
  if (offset) *offset = ctx->rng_offset;
  return KG_OK;
}

static kg_status context_set_rng_state_locked(kg_context *ctx, uint64_t seed, uint64_t offset);
kg_status kg_context_set_rng_state(kg_context *ctx, uint64_t seed, uint64_t offset) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = context_set_rng_state_locked(ctx, seed, offset);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status context_set_rng_state_locked(kg_context *ctx, uint64_t seed, uint64_t offset) {
  ctx->rng_seed = seed, ctx->rng_offset = offset;
  return KG_OK;
}

uint64_t kg_compiled_rng_streams(kg_compiled *c) {
  if (!c->rng_counted) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->g.nodes.n; i++) {
      const kg_gnode *x = &c->g.nodes.v[i];
      if (kg_op_is_random(x->op) && (uint64_t)x->ia[0] + 1 > n) n = (uint64_t)x->ia[0] + 1;
    }
    c->rng_streams = n, c->rng_counted = true;
  }
  return c->rng_streams;
}
