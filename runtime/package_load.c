/* runtime/package_load.c — a packaged signature becomes a kg_compiled: the same structures
 * kg_compile_entry builds (typed programs, fusion, default kernels' launch metadata, the
 * split-rows and fold plans, a host plan with its regions and output copies), read from the
 * signature's plan section instead of being computed, so exec.c and plan.c run it unchanged.
 * Two hooks differ from a compiled document (exec.c calls them when c->pkg is set):
 *   kg_pkg_variant_get   the variant the scheduler names is looked up among the packaged ones
 *                        (its launch metadata, its CUDA C for the emulator); one it lacks is an
 *                        error naming it, never a compilation;
 *   kg_pkg_variant_load  on CUDA, the signature's module: the cubin for the GPU's arch (or a
 *                        lower minor of the same major), else the PTX through the driver's JIT,
 *                        else an error naming the package's archs — NVRTC is never loaded; on
 *                        the emulator, the variant's CUDA C compiled as any kernel (kernel cache
 *                        included); on the null device, nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

/* ---- checking what exec.c will follow ---- */

/* a kernel's parameters against the program it runs in (lg, F) and its group's space */
static bool check_kernel(kg_pkr *R, const kg_kernel *k, const kg_graph *lg, const kg_fusion *F, const kg_group *G, bool dflt) {
  for (uint32_t i = 0; i < k->params.n; i++) {
    const kg_kparam *p = &k->params.v[i];
    uint32_t r0 = p->r0, r1 = p->r1;
    bool ok = true;
    switch (p->role) {
    case KPR_TENSOR:
      ok = p->kind == KP_BUFFER &&
           (r0 == KG_BUF_PARAM ? r1 < lg->params.n && lg->nodes.v[lg->params.v[r1].node].vkind == KG_V_TENSOR
            : r0 == KG_BUF_OUTPUT ? r1 < lg->outputs.n
            : r0 == KG_BUF_TEMP   ? r1 < F->temps.n
                                  : r0 == KG_BUF_SCRATCH && (!dflt || G->kind == KG_GROUP_MATMUL));
      /* a product's default kernel is split-K's partial when the scheduler splits its static K */
      break;
    case KPR_STRIDE: {
      uint32_t idx = r0 & 0x1fffffffu;
      ok = (r0 & 0x80000000u) ? idx < lg->outputs.n : (r0 & 0x40000000u) ? idx < F->temps.n : idx < lg->params.n;
      ok = ok && ((r0 & 0x20000000u) ? r1 < KG_MAX_RANK : r1 < G->space.rank) && !((r0 & 0x80000000u) && (r0 & 0x40000000u));
      break;
    }
    case KPR_SIZE: ok = r1 < G->space.rank; break;
    case KPR_SYM: ok = r0 < lg->syms.n; break;
    case KPR_SCALAR: ok = r1 < lg->params.n && lg->nodes.v[lg->params.v[r1].node].vkind == KG_V_SCALAR; break;
    case KPR_RNG: ok = r0 <= 1; break;
    case KPR_TMAP: {
      const kg_ktmap *t = r0 < k->tmaps.n ? &k->tmaps.v[r0] : NULL;
      ok = p->kind == KP_TMAP && t &&
           (t->owner == KG_BUF_PARAM ? t->index < lg->params.n : t->owner == KG_BUF_OUTPUT ? t->index < lg->outputs.n
            : t->owner == KG_BUF_TEMP ? t->index < F->temps.n : false);
      break;
    }
    default: break;
    }
    if (!ok) {
      kg_pkr_push(R, "params", (int)i);
      kg_pkr_fail(R, "parameter '%s' names a buffer, dim or value its program does not have", p->name);
      kg_pkr_pop(R);
      return false;
    }
  }
  return true;
}

/* kernels[i] of groups[i]: the launch metadata a plan's groups run with */
static bool read_kernels(kg_pkr *R, const cJSON *arr, const kg_graph *lg, const kg_fusion *F, kg_kernel **out) {
  uint32_t n = F->groups.n;
  if (!cJSON_IsArray(arr) || (uint32_t)cJSON_GetArraySize(arr) != n) return kg_pkr_fail(R, "kernels: expected one per group (%u)", n);
  kg_kernel *ks = kg_xcalloc(n + 1, sizeof *ks);
  int i = 0;
  for (const cJSON *x = arr->child; x; x = x->next, i++) {
    kg_pkr_push(R, "kernels", i);
    bool ok = kg_pkr_kernel(R, x, &ks[i]) && check_kernel(R, &ks[i], lg, F, &F->groups.v[i], true);
    kg_pkr_pop(R);
    if (!ok) {
      for (int j = 0; j <= i; j++) kg_kernel_free(&ks[j]);
      free(ks);
      return false;
    }
  }
  *out = ks;
  return true;
}

static kg_group_facts *facts_of(const kg_graph *lg, const kg_fusion *F) {
  kg_group_facts *gf = kg_xcalloc(F->groups.n + 1, sizeof *gf);
  for (uint32_t i = 0; i < F->groups.n; i++) gf[i] = kg_group_facts_of(lg, F, &F->groups.v[i]);
  return gf;
}

static bool read_graph(kg_pkr *R, const cJSON *j, const char *key, kg_graph *g) {
  kg_pkr_push(R, key, -1);
  bool ok = kg_pkr_graph(R, j, g);
  kg_pkr_pop(R);
  return ok;
}

static bool read_fusion(kg_pkr *R, const cJSON *j, const kg_graph *g, kg_fusion *f) {
  kg_pkr_push(R, "fusion", -1);
  bool ok = kg_pkr_fusion(R, j, g, f);
  kg_pkr_pop(R);
  return ok;
}

static bool read_variants(kg_pkr *R, const cJSON *arr, kg_compiled *c, kg_pkg_prog *pp, uint64_t code_len, uint64_t kmeta_len) {
  if (!arr) return true;
  if (!cJSON_IsArray(arr)) return kg_pkr_fail(R, "variants: expected an array");
  pp->n_vars = (uint32_t)cJSON_GetArraySize(arr);
  pp->vars = kg_arena_alloc(&c->arena, (pp->n_vars + 1) * sizeof *pp->vars);
  int i = 0;
  for (const cJSON *x = arr->child; x; x = x->next, i++) {
    static const char *const keys[] = {"group", "v", "k", "code", "tramp"};
    kg_pkg_variant *V = &pp->vars[i];
    int64_t grp, o[6] = {0, 0, 0, 0, 0, 0};
    kg_pkr_push(R, "variants", i);
    bool ok = kg_pkr_keys(R, x, keys, (int)KG_COUNTOF(keys)) && kg_pkr_int(R, kg_pkr_get(x, "group"), "group", 0, UINT32_MAX, &grp);
    kg_pkr_push(R, "v", -1);
    ok = ok && kg_pkr_variant(R, kg_pkr_get(x, "v"), &V->v);
    kg_pkr_pop(R);
    const cJSON *cd = kg_pkr_get(x, "code"), *tr = kg_pkr_get(x, "tramp");
    if (ok && (cJSON_GetArraySize(cd) != 4 || cJSON_GetArraySize(tr) != 2)) ok = kg_pkr_fail(R, "code: expected [offset, length] twice, tramp once");
    const cJSON *e = ok ? cd->child : NULL;
    for (int q = 0; q < 6 && ok; q += 2) {
      const char *key = q < 4 ? "code" : "tramp";
      if (q == 4) e = tr->child;
      ok = kg_pkr_int(R, e, key, 0, (int64_t)code_len, &o[q]) && kg_pkr_int(R, e->next, key, 0, (int64_t)code_len - o[q], &o[q + 1]);
      e = e ? e->next->next : NULL;
    }
    uint32_t ng = kg_compiled_plan(c, V->v.plan).F->groups.n;
    if (ok && (uint64_t)grp >= ng) ok = kg_pkr_fail(R, "group %lld: its plan has %u groups", (long long)grp, ng);
    /* k: [offset, length] of its launch metadata in the kmeta section */
    const cJSON *k = kg_pkr_get(x, "k");
    int64_t ko = 0, kl = 0;
    if (ok && cJSON_GetArraySize(k) != 2) ok = kg_pkr_fail(R, "k: expected [offset, length] of the kernel's launch metadata");
    ok = ok && kg_pkr_int(R, k->child, "k", 0, (int64_t)kmeta_len, &ko) && kg_pkr_int(R, k->child->next, "k", 1, (int64_t)kmeta_len - ko, &kl);
    kg_pkr_pop(R);
    if (!ok) return false;
    V->group = (uint32_t)grp, V->k_off = (uint64_t)ko, V->k_len = (uint64_t)kl;
    V->pre_off = (uint64_t)o[0], V->pre_len = (uint64_t)o[1], V->code_off = (uint64_t)o[2], V->code_len = (uint64_t)o[3];
    V->tramp_off = (uint64_t)o[4], V->tramp_len = (uint64_t)o[5];
  }
  return true;
}

typedef struct load_ctx {
  kg_pkr *R;
  kg_module *m;
  uint32_t ei;
  kg_package *pk;
  kg_pkg_sig *sig;
  uint64_t code_len;
  int depth;
} load_ctx;

static kg_compiled *load_prog(load_ctx *L, const cJSON *j);

static bool load_prog_into(load_ctx *L, const cJSON *j, kg_compiled *c) {
  static const char *const keys[] = {"g", "lg", "fusion", "kernels", "fold_cand", "split", "fold", "plan", "regions", "copies", "variants"};
  kg_pkr *R = L->R;
  R->arena = &c->arena;
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys)) || !read_graph(R, kg_pkr_get(j, "g"), "g", &c->g)) return false;
  const cJSON *lg = kg_pkr_get(j, "lg"), *plan = kg_pkr_get(j, "plan");
  if (cJSON_IsString(lg) && !strcmp(lg->valuestring, "g")) kg_graph_clone(&c->lg, &c->g);
  else if (lg && !read_graph(R, lg, "lg", &c->lg)) return false;
  c->lg.entry = c->g.entry;
  if (!plan && (c->lg.params.n != c->g.params.n || c->lg.outputs.n != c->g.outputs.n || c->lg.n_entry_params != c->g.n_entry_params))
    return kg_pkr_fail(R, "lg: its parameters or outputs differ from g's");
  c->split_built = c->fold_built = true;
  kg_graph_init(&c->lg_fold, &c->arena, c->g.entry);
  kg_pkg_prog *pp = kg_arena_alloc(&c->arena, sizeof *pp);
  pp->pk = L->pk, pp->sig = L->sig;
  c->pkg = pp;
  if (plan) {
    if (++L->depth > 1) return kg_pkr_fail(R, "a region with a plan of its own");
    c->plan = kg_arena_alloc(&c->arena, sizeof *c->plan);
    kg_plan_init(c->plan, &c->arena);
    kg_pkr_push(R, "plan", -1);
    bool ok = kg_pkr_plan(R, plan, &c->g, c->plan);
    kg_pkr_pop(R);
    if (!ok) return false;
    const cJSON *regs = kg_pkr_get(j, "regions");
    if (!cJSON_IsArray(regs) || (uint32_t)cJSON_GetArraySize(regs) != c->plan->regions.n) return kg_pkr_fail(R, "regions: expected one program per plan region");
    c->n_regions = c->plan->regions.n;
    c->regions = kg_xcalloc(c->n_regions + 1, sizeof *c->regions);
    int i = 0;
    for (const cJSON *x = regs->child; x; x = x->next, i++) {
      kg_pkr_push(R, "regions", i);
      c->regions[i] = load_prog(L, x);
      R->arena = &c->arena;
      kg_pkr_pop(R);
      if (!c->regions[i]) return false;
      const kg_region *rg = &c->plan->regions.v[i];
      if (c->regions[i]->g.n_entry_params != rg->ins.n || c->regions[i]->g.params.n != rg->ins.n || c->regions[i]->g.outputs.n != rg->outs.n)
        return kg_pkr_fail(R, "region %d's program does not take the region's inputs and outputs", i);
      c->n_kernels += c->regions[i]->n_kernels;
    }
    L->depth--;
  } else {
    if (!read_fusion(R, kg_pkr_get(j, "fusion"), &c->lg, &c->fusion) || !read_kernels(R, kg_pkr_get(j, "kernels"), &c->lg, &c->fusion, &c->kernels))
      return false;
    c->n_kernels = c->fusion.groups.n;
    c->variants = kg_xcalloc(c->n_kernels + 1, sizeof *c->variants);
    c->gfacts = facts_of(&c->lg, &c->fusion);
    const cJSON *fc = kg_pkr_get(j, "fold_cand");
    if (fc) {
      uint32_t *v, n;
      if (!kg_pkr_u32s(R, fc, "fold_cand", c->lg.nodes.n, &v, &n)) return false;
      c->fold_cand = kg_xcalloc(n + 1, sizeof *c->fold_cand);
      memcpy(c->fold_cand, v, n * sizeof *v);
      c->n_fold_cand = n;
      for (uint32_t i = 0; i < n; i++) {
        const kg_gnode *P = &c->lg.nodes.v[v[i]];
        if (P->op != KG_OP_MATMUL || P->n_in < 2 || c->lg.nodes.v[P->in[0]].shape.rank < 1) return kg_pkr_fail(R, "fold_cand: not a product");
      }
    }
    const cJSON *sp = kg_pkr_get(j, "split");
    if (sp) {
      kg_pkr_push(R, "split", -1);
      bool ok = read_fusion(R, kg_pkr_get(sp, "fusion"), &c->lg, &c->fusion_split) &&
                read_kernels(R, kg_pkr_get(sp, "kernels"), &c->lg, &c->fusion_split, &c->kernels_split);
      kg_pkr_pop(R);
      if (!ok) return false;
      c->n_split = c->fusion_split.groups.n;
      c->gfacts_split = facts_of(&c->lg, &c->fusion_split);
    }
    const cJSON *fo = kg_pkr_get(j, "fold");
    if (c->n_fold_cand && !fo) return kg_pkr_fail(R, "fold: products to fold but no fold plan");
    if (fo) {
      kg_pkr_push(R, "fold", -1);
      bool ok = read_graph(R, kg_pkr_get(fo, "lg"), "lg", &c->lg_fold) && read_fusion(R, kg_pkr_get(fo, "fusion"), &c->lg_fold, &c->fusion_fold) &&
                read_kernels(R, kg_pkr_get(fo, "kernels"), &c->lg_fold, &c->fusion_fold, &c->kernels_fold);
      kg_pkr_pop(R);
      if (!ok) return false;
      if (c->lg_fold.params.n != c->lg.params.n || c->lg_fold.outputs.n != c->lg.outputs.n) return kg_pkr_fail(R, "fold: its program differs from lg");
      c->n_fold = c->fusion_fold.groups.n;
      c->gfacts_fold = facts_of(&c->lg_fold, &c->fusion_fold);
    }
    if (!read_variants(R, kg_pkr_get(j, "variants"), c, pp, L->code_len, L->pk->secs[L->sig->kmeta].len)) return false;
  }
  /* the output copies: every tensor output of a plan, every write-back */
  const cJSON *cps = kg_pkr_get(j, "copies");
  uint32_t nres = kg_graph_n_results(&c->g);
  if (cps && (!cJSON_IsArray(cps) || (uint32_t)cJSON_GetArraySize(cps) != c->g.outputs.n)) return kg_pkr_fail(R, "copies: expected one per output");
  if (cps || c->plan || nres < c->g.outputs.n) {
    c->copies = kg_xcalloc(c->g.outputs.n + 1, sizeof *c->copies);
    int i = 0;
    for (const cJSON *x = cps ? cps->child : NULL; x; x = x->next, i++) {
      if (cJSON_IsNull(x)) continue;
      kg_pkr_push(R, "copies", i);
      c->copies[i] = load_prog(L, x);
      R->arena = &c->arena;
      kg_pkr_pop(R);
      if (!c->copies[i]) return false;
      if (c->copies[i]->g.n_entry_params != 1 || c->copies[i]->g.outputs.n != 1 || c->copies[i]->plan) return kg_pkr_fail(R, "copies[%d]: not a copy", i);
    }
    for (uint32_t o = 0; o < c->g.outputs.n; o++)
      if (!c->copies[o] && c->g.nodes.v[c->g.outputs.v[o]].vkind == KG_V_TENSOR && (c->plan || o >= nres))
        return kg_pkr_fail(R, "copies: output %u has no copy program", o);
  }
  return true;
}

static kg_compiled *load_prog(load_ctx *L, const cJSON *j) {
  kg_compiled *c = kg_compiled_new(L->m, L->ei, "");
  if (!load_prog_into(L, j, c)) {
    kg_compiled_free(c);
    return NULL;
  }
  return c;
}

kg_compiled *kg_pkg_specialize(kg_module *m, int ei, int si, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                               int n_captures) {
  kg_package *pk = m->pkg;
  kg_pkg_sig *sig = &pk->entries[ei].sigs[si];
  kg_diag *d = &m->ctx->diag;
  size_t plen, clen;
  const unsigned char *plan = kg_pkg_section_bytes(pk, sig->plan, &plen, d);
  if (!plan) return NULL;
  clen = (size_t)pk->secs[sig->code].len; /* checked when the emulator first needs its code */
  kg_arena ja; /* the plan's parse tree, freed once the structures are built */
  kg_arena_init(&ja);
  char why[128];
  const cJSON *j = kg_pkj_parse(&ja, (const char *)plan, plen, why, sizeof why);
  if (!j) {
    kg_diag_add(d, KG_E_FORMAT, NULL, NULL, "%s: section %s is not JSON (%s)", pk->path, pk->secs[sig->plan].name, why);
    kg_arena_free(&ja);
    return NULL;
  }
  kg_pkr R = {.d = d, .where = pk->secs[sig->plan].name, .file = pk->path};
  load_ctx L = {&R, m, (uint32_t)ei, pk, sig, clen, 0};
  kg_compiled *c = load_prog(&L, j);
  if (c && strcmp(c->g.entry, pk->entries[ei].name)) {
    kg_pkr_fail(&R, "the program is of entry '%s', the manifest says '%s'", c->g.entry, pk->entries[ei].name);
    kg_compiled_free(c);
    c = NULL;
  } else if (c && c->g.n_entry_params != sig->n_inputs) {
    kg_pkr_fail(&R, "the program takes %u input(s), its signature %s in the manifest %u", c->g.n_entry_params, sig->text, sig->n_inputs);
    kg_compiled_free(c);
    c = NULL;
  }
  kg_arena_free(&ja); /* the variants' kernels are read from the kmeta section on first use */
  if (!c) return NULL;
  if (inputs || n_inputs == 0) { /* bind the sizes the tensors give (kg_pkg_fit said they fit) */
    const kg_graph *g = &c->g;
    kg_binding B = {kg_arena_alloc(&c->arena, (g->syms.n + 1) * sizeof(int64_t)), kg_arena_alloc(&c->arena, g->syms.n + 1)};
    bool ok = (uint32_t)n_inputs == g->n_entry_params;
    for (uint32_t p = 0; p < g->params.n && ok; p++) {
      const kg_gparam *gp = &g->params.v[p];
      const DLTensor *t = NULL;
      if (!gp->is_capture) t = inputs[p];
      for (int k = 0; gp->is_capture && k < n_captures; k++)
        if (captures[k].name && !strcmp(captures[k].name, gp->name)) t = captures[k].t;
      kg_bwhat wh = {gp->is_capture ? 1 : 0, p, gp->name};
      ok = kg_bind_tensor(m->ctx, g, &B, &g->nodes.v[gp->node], t, &wh);
    }
    if (ok) ok = kg_check_guards(m->ctx, g, &B);
    if (!ok) {
      kg_compiled_free(c);
      return NULL;
    }
    c->pkg->sym = B.sym, c->pkg->bound = B.bound;
  }
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b, "entry '%s' from package %s (content hash %.16s…, kgen %s)\n", c->g.entry, pk->path, pk->hash, pk->kgen_version);
  kg_pkg_describe_sig(pk, sig, &b);
  c->explain = kg_sb_take(&b);
  return c;
}

/* ---- exec.c's hooks ---- */

kg_kvariant *kg_pkg_variant_get(kg_compiled *c, uint32_t group, const kg_variant *v, kg_diag *d) {
  for (uint32_t i = 0; i < c->runtime.n; i++)
    if (c->runtime.v[i]->group == group && !memcmp(&c->runtime.v[i]->v, v, sizeof *v)) return c->runtime.v[i];
  kg_pkg_prog *pp = c->pkg;
  const kg_pkg_variant *V = NULL;
  for (uint32_t i = 0; i < pp->n_vars && !V; i++)
    if (pp->vars[i].group == group && !memcmp(&pp->vars[i].v, v, sizeof *v)) V = &pp->vars[i];
  if (!V) {
    kg_strbuf b;
    kg_sb_init(&b);
    kg_pkw_variant(&b, v);
    kg_diag_add(d, KG_E_UNSUPPORTED, NULL, NULL,
                "package %s (signature %s) has no kernel for group %u of '%s' in the variant the scheduler chose for these tensors %s "
                "(a forced schedule, KGEN_ROW_CACHE, or a package of a kgen whose scheduler differs): package the model again with this kgen",
                pp->pk->path, pp->sig->text, group, c->g.entry, kg_sb_cstr(&b));
    kg_sb_free(&b);
    return NULL;
  }
  kg_plan_view pv = kg_compiled_plan(c, v->plan);
  const kg_fusion *F = pv.F;
  const kg_graph *LG = pv.lg;
  kg_kvariant *kv = kg_xcalloc(1, sizeof *kv);
  kv->group = group, kv->v = *v;
  kg_pkr R = {.arena = &c->arena, .d = d, .where = pp->pk->secs[pp->sig->plan].name, .file = pp->pk->path};
  kg_pkr_push(&R, "variants", (int)(V - pp->vars));
  kg_pkr_push(&R, "k", -1);
  /* its slice of the kmeta section (whose hash is checked once, on the first variant's use) */
  size_t kn;
  const unsigned char *kt = kg_pkg_section_bytes(pp->pk, pp->sig->kmeta, &kn, d);
  const cJSON *kj = NULL;
  kg_arena ja;
  kg_arena_init(&ja);
  char why[128];
  if (kt && !(kj = kg_pkj_parse(&ja, (const char *)kt + V->k_off, (size_t)V->k_len, why, sizeof why)))
    kg_pkr_fail(&R, "the launch metadata in section '%s' is not JSON (%s)", pp->pk->secs[pp->sig->kmeta].name, why);
  bool kok = kj && kg_pkr_kernel(&R, kj, &kv->k) && check_kernel(&R, &kv->k, LG, F, &F->groups.v[group], false);
  kg_arena_free(&ja);
  if (!kok) {
    kg_kernel_free(&kv->k);
    free(kv);
    return NULL;
  }
  KG_VEC_PUSH(c->runtime, kv); /* its CUDA C is read when the emulator loads it (kg_pkg_variant_load) */
  return kv;
}

int kg_pkg_pick_arch(const kg_pkg_sig *s, int dev) {
  /* a cubin runs on its own arch and on later minors of the same major (sm_80 on sm_86) */
  for (int i = s->n_arch - 1; i >= 0; i--)
    if (s->arch[i] / 10 == dev / 10 && s->arch[i] <= dev) return s->arch[i];
  if (s->ptx >= 0 && s->ptx_arch <= dev) return -s->ptx_arch;
  return 0;
}

int kg_pkg_variant_load(kg_compiled *c, kg_kvariant *kv, kg_device *dev, kg_diag *d) {
  int slot = kg_dev_slot(dev);
  if (dev->vt->kind == KG_DEVICE_EMU && !kv->cuda) { /* the variant's CUDA C: its program's prefix, then its own */
    kg_pkg_prog *pp = c->pkg;
    const kg_pkg_variant *V = NULL;
    for (uint32_t i = 0; i < pp->n_vars && !V; i++)
      if (pp->vars[i].group == kv->group && !memcmp(&pp->vars[i].v, &kv->v, sizeof kv->v)) V = &pp->vars[i];
    size_t clen;
    const unsigned char *code = V ? kg_pkg_section_bytes(pp->pk, pp->sig->code, &clen, d) : NULL;
    if (!code) return -1;
    kg_strbuf b;
    kg_sb_init(&b);
    kg_sb_putn(&b, (const char *)code + V->pre_off, (size_t)V->pre_len);
    kg_sb_putn(&b, (const char *)code + V->code_off, (size_t)V->code_len);
    kv->cuda = kg_sb_take(&b);
    kg_sb_putn(&b, (const char *)code + V->tramp_off, (size_t)V->tramp_len);
    kv->trampolines = kg_sb_take(&b);
  }
  if (dev->vt->kind != KG_DEVICE_CUDA) {
    kg_rt_source src = {c->g.entry, kv->cuda ? kv->cuda : "", kv->trampolines ? kv->trampolines : "", NULL, NULL, kv->k.sm90a};
    return dev->vt->load(dev, &src, &kv->mod[slot], d);
  }
  kg_pkg_sig *s = c->pkg->sig;
  kg_package *pk = c->pkg->pk;
  if (!s->cuda_mod) {
    int arch = kg_dev_cuda_arch(dev), pick = kg_pkg_pick_arch(s, arch);
    if (!pick) {
      kg_strbuf b;
      kg_sb_init(&b);
      for (int i = 0; i < s->n_arch; i++) kg_sb_printf(&b, "%ssm_%d", i ? ", " : "", s->arch[i]);
      if (!s->n_arch) kg_sb_puts(&b, "none");
      if (s->ptx >= 0) kg_sb_printf(&b, "; PTX for sm_%d", s->ptx_arch);
      kg_diag_add(d, KG_E_DEVICE, NULL, NULL,
                  "package %s has no kernels this GPU (sm_%d) can load for '%s' (signature %s): cubins for %s; package it with --arch sm_%d", pk->path,
                  arch, c->g.entry, s->text, kg_sb_cstr(&b), arch);
      kg_sb_free(&b);
      return -1;
    }
    size_t len;
    int32_t sec = s->ptx;
    for (int k = 0; k < s->n_arch && pick > 0; k++)
      if (s->arch[k] == pick) sec = s->cubin[k];
    const unsigned char *img = kg_pkg_section_bytes(pk, sec, &len, d);
    if (!img) return -1;
    if (pick < 0 && (!len || img[len - 1] != 0)) {
      kg_diag_add(d, KG_E_FORMAT, NULL, NULL, "%s: the PTX of %s is not NUL-terminated", pk->path, s->text);
      return -1;
    }
    if (kg_dev_cuda_load_image(dev, c->g.entry, img, len, &s->cuda_mod, d) != 0) return -1;
    s->cuda_mod_arch = pick;
  }
  kv->mod[slot] = s->cuda_mod;
  kv->borrowed = true; /* the package's module: unloaded with the package */
  return 0;
}

/* ---- artifacts ---- */

bool kg_pkg_twin(const kg_compiled *c, const kg_ts_opts *o, kg_strbuf *out, kg_diag *d) {
  const kg_pkg_sig *s = c->pkg->sig;
  int i = (o->eager_python ? 1 : 0) + (o->upcast_half ? 2 : 0);
  if (s->twin[i] < 0) i &= 1; /* no half values: the reference mode changes nothing */
  size_t len;
  const unsigned char *t = kg_pkg_section_bytes(c->pkg->pk, s->twin[i], &len, d);
  if (!t) return false;
  kg_sb_putn(out, (const char *)t, len);
  return true;
}

kg_status kg_pkg_emit(kg_compiled *c, kg_artifact kind, int arch, char **data, size_t *len) {
  kg_context *ctx = c->m->ctx;
  kg_diag *d = &ctx->diag;
  const kg_pkg_sig *s = c->pkg->sig;
  kg_package *pk = c->pkg->pk;
  int32_t sec = -1;
  switch (kind) {
  case KG_ART_CUDA: sec = s->cuda; break;
  case KG_ART_TORCHSCRIPT:
  case KG_ART_PYTHON: sec = s->twin[kind == KG_ART_PYTHON]; break;
  case KG_ART_EXPLAIN: *data = kg_xstrdup(c->explain), *len = strlen(*data); return KG_OK;
  case KG_ART_PTX:
    if (s->ptx >= 0 && s->ptx_arch == arch) sec = s->ptx;
    break;
  case KG_ART_CUBIN:
    for (int i = 0; i < s->n_arch; i++)
      if (s->arch[i] == arch) sec = s->cubin[i];
    break;
  default: kg_diag_add(d, KG_E_ARG, NULL, NULL, "unknown artifact kind %d", (int)kind); return kg_fail(ctx);
  }
  if (sec < 0) {
    kg_strbuf b;
    kg_sb_init(&b);
    for (int i = 0; i < s->n_arch; i++) kg_sb_printf(&b, "%ssm_%d", i ? ", " : "", s->arch[i]);
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "package %s has no %s for sm_%d (signature %s): cubins for %s; PTX for %s", pk->path,
                kind == KG_ART_PTX ? "PTX" : "cubin", arch, s->text, s->n_arch ? kg_sb_cstr(&b) : "none",
                s->ptx >= 0 ? kg_arena_printf(&c->arena, "sm_%d", s->ptx_arch) : "none");
    kg_sb_free(&b);
    return kg_fail(ctx);
  }
  size_t n;
  const unsigned char *p = kg_pkg_section_bytes(pk, sec, &n, d);
  if (!p) return kg_fail(ctx);
  if (kind == KG_ART_PTX && n && !p[n - 1]) n--; /* stored with its NUL (the driver's JIT wants one) */
  *data = kg_xmalloc(n + 1);
  memcpy(*data, p, n);
  (*data)[n] = 0;
  *len = n;
  return KG_OK;
}

