/* runtime/package_write.c — kg_package_write: offline kernel packages (docs/package.md).
 *
 * For each (document, entry, signature) asked for: specialize it as kg_specialize does, then
 * build every kernel variant the run-time scheduler can pick for it, because a package is
 * run with no compiler:
 *   - the plans: the fused plan always; the split-rows plan when a row group could want it
 *     (a persistent row group with a splittable reduction — at its static sizes, when it has
 *     them, the scheduler is asked); the fold plan when products were left tiled only for
 *     their symbolic sizes;
 *   - per group of each plan, the variants: the scheduler itself (kg_schedule_choose) asked over
 *     a grid of what only run time tells it — the group's symbolic sizes (values around every
 *     power of two its thresholds sit at), the GPU (its target: H100, A100, small and large
 *     sm_86 / sm_89 / sm_90 parts, as the device reports arch, SMs and shared memory), and the
 *     tensors' facts (contiguity, alignment 1…64 bytes, the widest element, offsets past 2^31,
 *     row sources' strides; a product's operands K-major or not and cp.async-readable or not);
 *     where a size is symbolic, also every variant the scheduler's rules allow for a pointwise,
 *     scan or reduction group (both index widths, the vector widths its dtypes allow, columns,
 *     splits and warps where it has them); a split's finish kernel with its partial;
 *   - per variant, its kernel (launch metadata) and CUDA C (the emulator compiles it as it
 *     compiles any kernel; the variants of one program share their prelude in the package);
 *   - per arch, one NVRTC compilation of all the signature's variants into a cubin, and the
 *     newest arch's PTX (the driver JITs it on GPUs newer than every cubin);
 *   - the TorchScript and eager-Python twins (and their half-precision reference forms).
 * Everything is written in a fixed order with exact numbers, so the same inputs (and the same
 * NVRTC) give a byte-identical file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

typedef struct pw_sec {
  char name[96];
  unsigned char *data;
  size_t len;
} pw_sec;

typedef struct pw {
  kg_context *ctx;
  kg_diag *d;
  KG_VEC(pw_sec) secs;
  kg_nvrtc *nv;
  const int *archs;
  int n_archs;
  uint32_t skipped;    /* candidate variants the lowering refused (over-approximations) */
} pw;

static int32_t add_sec(pw *W, const char *name, const void *data, size_t len) {
  pw_sec s;
  snprintf(s.name, sizeof s.name, "%s", name);
  s.data = kg_xmalloc(len + 1);
  if (len) memcpy(s.data, data, len);
  s.len = len;
  KG_VEC_PUSH(W->secs, s);
  return (int32_t)W->secs.n - 1;
}

/* ---- which variants ---- */

typedef KG_VEC(kg_variant) vlist;

static void vadd(vlist *L, kg_variant v) {
  for (uint32_t i = 0; i < L->n; i++)
    if (!memcmp(&L->v[i], &v, sizeof v)) return;
  KG_VEC_PUSH(*L, v);
  if (v.split == KG_SPLIT_PARTIAL) { /* exec.c launches the finish kernel after it */
    v.split = KG_SPLIT_FINISH, v.layout = KG_LAYOUT_LINEAR;
    vadd(L, v);
  }
}

static bool space_static(const kg_group *G) {
  for (int d = 0; d < G->space.rank; d++)
    if (G->space.d[d].kind != KG_DIM_STATIC) return false;
  return true;
}

/* the element sizes of the tensors a group's kernel reads (its default kernel's parameters) */
static uint32_t elem_sizes(const kg_kernel *dk, uint32_t out[4]) {
  uint32_t n = 0;
  for (uint32_t j = 0; j < dk->params.n; j++) {
    const kg_kparam *p = &dk->params.v[j];
    if (p->role != KPR_TENSOR || p->r0 == KG_BUF_OUTPUT) continue;
    uint32_t s = kg_dtype_get((kg_dtype)p->dtype)->size, k = 0;
    while (k < n && out[k] != s) k++;
    if (k == n && n < 4) out[n++] = s;
  }
  if (!n) out[n++] = 4;
  return n;
}

/* The GPUs the run-time scheduler may be asked for (its target is the device's own: arch, SM
 * count, shared memory per block), besides the emulator's H100 and A100: a small and a large
 * sm_86 / sm_89-like part, so that choices that depend on the SM count or shared memory (splits,
 * tiles, tensor-core tiers) are enumerated for GPUs of every size. */
static const kg_target *const grid_targets[] = {
    &kg_target_h100, &kg_target_a100,
    &(const kg_target){"sm_86, 28 SMs", 86, 28, 1536, 8, 100 * 1024, 99 * 1024, false, 0, 0},
    &(const kg_target){"sm_89, 128 SMs", 89, 128, 1536, 8, 100 * 1024, 99 * 1024, false, 0, 0},
    &(const kg_target){"sm_90, 16 SMs", 90, 16, 2048, 8, 228 * 1024, 227 * 1024, true, 0, 0},
};

/* sizes tried for a symbolic dim: around every power of two the scheduler's thresholds sit at,
 * fewer of them the more symbols a space has (about 3000 size points at most) */
static const int64_t rep_sizes[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65, 100, 128, 129, 256, 257, 1000, 1024, 1025, 4096, 8192, 65536, 1048576};

/* The scheduler (kg_schedule_choose) asked over a grid of what run time can tell it: the
 * group's symbolic sizes (rep_sizes), the target GPU (grid_targets), and the facts only tensors
 * give — contiguity, alignment, the widest element, offsets past 2^31, row sources' strides;
 * for a product, each operand's K-major-ness and whether cp.async can read it. */
static void grid_variants(const kg_group *G, const kg_group_facts *gf, const kg_kernel *dk, uint8_t plan, const kg_context *ctx, vlist *L) {
  uint32_t es[4], ne = elem_sizes(dk, es);
  int syms[KG_MAX_RANK], ns = 0;
  for (int d = 0; d < G->space.rank; d++) {
    if (G->space.d[d].kind == KG_DIM_STATIC) continue;
    int k = 0;
    while (k < ns && syms[k] != (int)G->space.d[d].v) k++;
    if (k == ns) syms[ns++] = (int)G->space.d[d].v;
  }
  int nr = (int)KG_COUNTOF(rep_sizes), per = nr;
  while (ns > 1 && per > 2) { /* per^ns <= ~3000 */
    int64_t tot = 1;
    for (int i = 0; i < ns; i++) tot *= per;
    if (tot <= 3000) break;
    per--;
  }
  int64_t points = 1;
  for (int i = 0; i < ns; i++) points *= per;
  bool mm = gf->kind == KG_GROUP_MATMUL;
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  x.runtime = true, x.plan = plan, x.row_cache = ctx->row_cache, x.reduce_block = ctx->reduce_block;
  x.force = (kg_sched_force)ctx->opts.force_variant, x.f32_matmul = (uint8_t)ctx->opts.f32_matmul;
  for (int64_t pt = 0; pt < points; pt++) {
    int64_t q = pt, val[KG_MAX_RANK];
    for (int i = 0; i < ns; i++) val[i] = rep_sizes[(q % per) * (nr - 1) / (per > 1 ? per - 1 : 1)], q /= per;
    int64_t numel = 1;
    for (int d = 0; d < G->space.rank; d++) {
      int k = 0;
      if (G->space.d[d].kind != KG_DIM_STATIC)
        while (syms[k] != (int)G->space.d[d].v) k++;
      x.space[d] = G->space.d[d].kind == KG_DIM_STATIC ? G->space.d[d].v : val[k];
      numel *= x.space[d];
    }
    for (size_t ti = 0; ti < KG_COUNTOF(grid_targets); ti++)
      for (int big = 0; big < 2; big++) {
        x.max_offset = big ? ((int64_t)1 << 32) : numel;
        if (mm) { /* operand facts: K-major or not (or unknown), cp.async or not */
          x.contiguous = true, x.align = 64, x.max_elem = es[0], x.row = NULL, x.n_row = 0;
          /* a symbolic K: short, or long enough for split-K (kg_mm_split_k) */
          for (int kl = 0; kl < (gf->mm_k < 0 ? 2 : 1); kl++) {
            x.mm_k = kl ? ((int64_t)1 << 20) : 0;
            for (int f = 0; f < 36 * 4; f++) { /* and whether TMA can bring each (the Hopper tier) */
              x.mm_kmajor[0] = (int8_t)(f % 3 - 1), x.mm_kmajor[1] = (int8_t)(f / 3 % 3 - 1), x.mm_async[0] = f / 9 % 2, x.mm_async[1] = f / 18 % 2;
              x.mm_tma[0] = f / 36 % 2, x.mm_tma[1] = f / 72;
              vadd(L, kg_schedule_choose(gf, &x, grid_targets[ti]).v);
            }
          }
          x.mm_k = 0;
          continue;
        }
        x.mm_kmajor[0] = x.mm_kmajor[1] = -1, x.mm_async[0] = x.mm_async[1] = false;
        for (int contig = 0; contig < 2; contig++)
          for (uint64_t al = 1; al <= 64; al *= 2)
            for (uint32_t e = 0; e < ne; e++)
              for (int rows = 0; rows < 3; rows++) {
                kg_row_operand ro = {es[e], rows > 0, rows == 2 ? 2 : 1, al, 64};
                x.contiguous = contig, x.max_elem = es[e], x.align = al;
                x.row = rows ? &ro : NULL, x.n_row = rows ? 1 : 0;
                vadd(L, kg_schedule_choose(gf, &x, grid_targets[ti]).v);
              }
      }
  }
}

/* a symbolic size: every variant the scheduler's rules allow for this group */
static void rule_variants(const kg_group_facts *gf, const kg_kernel *dk, uint8_t plan, bool row_cache, vlist *L) {
  uint32_t es[4], ne = elem_sizes(dk, es), minel = 8;
  for (uint32_t e = 0; e < ne; e++) minel = es[e] < minel ? es[e] : minel;
  for (int ix = 0; ix < 2; ix++) {
    kg_variant v;
    memset(&v, 0, sizeof v);
    v.index_dtype = ix ? KG_I64 : KG_I32, v.plan = plan, v.vec = 1, v.layout = KG_LAYOUT_STRIDED;
    switch ((kg_group_kind)gf->kind) {
    case KG_GROUP_POINTWISE:
      vadd(L, v);
      for (uint32_t vec = gf->max_vec; vec >= 1 && !gf->coords; vec /= 2) {
        kg_variant w = v;
        w.layout = KG_LAYOUT_LINEAR, w.vec = (uint8_t)vec;
        vadd(L, w);
      }
      break;
    case KG_GROUP_SCAN: vadd(L, v); break;
    case KG_GROUP_MATMUL: break; /* the grid asks the scheduler (tiers, tiles, operand modes) */
    case KG_GROUP_ATTN: break;   /* likewise (the attention tile from the sizes) */
    case KG_GROUP_REDUCE: {
      bool kept = gf->rank > 0 && !((gf->red_mask >> (gf->rank - 1)) & 1);
      bool persistent = gf->n_reds > 1 || gf->n_outs > 0;
      bool rowvec = !gf->coords && gf->rank > 0 && gf->red_mask == ((int64_t)1 << (gf->rank - 1));
      kg_variant w = v;
      /* the column schedule, and a split's partial kernel over columns: with vectors of
       * neighbouring outputs where the group allows them (col_vec) */
      uint32_t cvmax = kept && gf->col_vec && !gf->coords ? (16 / minel > 8 ? 8 : 16 / minel) : 1;
      for (uint32_t vec = 1; kept && vec <= cvmax; vec *= 2) w = v, w.layout = KG_LAYOUT_LINEAR, w.vec = (uint8_t)vec, vadd(L, w);
      if (gf->splittable) {
        w = v, w.split = KG_SPLIT_PARTIAL, w.layout = kept ? KG_LAYOUT_LINEAR : KG_LAYOUT_STRIDED;
        vadd(L, w);
        for (uint32_t vec = 2; kept && vec <= cvmax; vec *= 2) w.vec = (uint8_t)vec, vadd(L, w);
      }
      /* a block per row; a warp per row, and segments of one for short rows (the scheduler
       * picks the segment from the row's length and the vector: every vector width with every
       * segment) */
      for (int seg = -1; seg <= 5; seg++) {
        w = v, w.warp = seg >= 0, w.seg = (uint8_t)(seg > 0 ? seg : 0);
        vadd(L, w);
        for (uint32_t vec = 16 / minel > 8 ? 8 : 16 / minel; vec >= 2 && rowvec; vec /= 2) w.vec = (uint8_t)vec, vadd(L, w);
      }
      if (row_cache && persistent && !gf->coords) w = v, w.cache = 1, vadd(L, w);
      /* the forced-strided variants walk a max's sum of exp apart (kg_variant.no_online) */
      if (gf->n_reds > 1) w = v, w.no_online = 1, vadd(L, w);
      break;
    }
    }
  }
}

/* The split-rows plan is packaged when a group of the fused plan could want it. */
static bool want_split(const kg_compiled *c) {
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    const kg_group_facts *gf = &c->gfacts[gi];
    const kg_group *G = &c->fusion.groups.v[gi];
    if (gf->kind != KG_GROUP_REDUCE || (gf->n_reds < 2 && gf->n_outs == 0) || !gf->any_splittable) continue;
    if (!space_static(G)) return true;
    int64_t space[KG_MAX_RANK];
    for (int d = 0; d < G->space.rank; d++) space[d] = G->space.d[d].v;
    if (kg_schedule_split_rows(gf, space, KG_SCHED_FREE, &kg_target_h100)) return true;
  }
  return false;
}

static bool build_variants(pw *W, kg_compiled *c) {
  if (c->plan) {
    for (uint32_t i = 0; i < c->n_regions; i++)
      if (!build_variants(W, c->regions[i])) return false;
  } else {
    bool split = want_split(c);
    if (split && !kg_compiled_build_plan(c, 1, W->d)) return false;
    if (c->n_fold_cand && !kg_compiled_build_plan(c, 2, W->d)) return false;
    for (uint8_t plan = 0; plan < 3; plan++) {
      if ((plan == 1 && !split) || (plan == 2 && !c->n_fold_cand)) continue;
      kg_plan_view pv = kg_compiled_plan(c, plan);
      const kg_fusion *F = pv.F;
      const kg_kernel *DK = pv.kernels;
      const kg_group_facts *GF = pv.facts;
      for (uint32_t gi = 0; gi < F->groups.n; gi++) {
        vlist L = {0};
        grid_variants(&F->groups.v[gi], &GF[gi], &DK[gi], plan, W->ctx, &L);
        if (!space_static(&F->groups.v[gi])) rule_variants(&GF[gi], &DK[gi], plan, W->ctx->row_cache, &L); /* sizes the grid missed */
        for (uint32_t i = 0; i < L.n; i++) {
          uint32_t mark = W->d->n;
          if (!kg_compiled_variant(c, gi, &L.v[i], W->d)) { /* a candidate the lowering refuses is not reachable */
            kg_diag_truncate(W->d, mark);
            W->skipped++;
          }
        }
        KG_VEC_FREE(L);
      }
    }
  }
  for (uint32_t i = 0; c->copies && i < c->g.outputs.n; i++)
    if (c->copies[i] && !build_variants(W, c->copies[i])) return false;
  return true;
}

/* ---- writing a program ---- */

typedef struct pw_sig {
  kg_strbuf plan, code, kmeta;
  KG_VEC(const kg_kernel *) kernels; /* every variant's kernel: the NVRTC translation unit */
  uint32_t n_variants;
} pw_sig;

static size_t common_prefix(const kg_compiled *c) {
  if (!c->runtime.n) return 0;
  const char *a = c->runtime.v[0]->cuda;
  size_t n = strlen(a);
  for (uint32_t i = 1; i < c->runtime.n; i++) {
    const char *b = c->runtime.v[i]->cuda;
    size_t k = 0;
    while (k < n && a[k] == b[k]) k++;
    n = k;
  }
  while (n && a[n - 1] != '\n') n--; /* whole lines */
  return n;
}

static void write_prog(pw_sig *S, const kg_compiled *c);

static void write_kernels(kg_strbuf *b, const kg_kernel *ks, uint32_t n) {
  kg_sb_puts(b, "[");
  for (uint32_t i = 0; i < n; i++) kg_sb_puts(b, i ? ",\n" : "\n"), kg_pkw_kernel(b, &ks[i]);
  kg_sb_puts(b, "]");
}

static void write_prog(pw_sig *S, const kg_compiled *c) {
  kg_strbuf *b = &S->plan;
  kg_sb_puts(b, "{\"g\":"), kg_pkw_graph(b, &c->g);
  bool same = c->lg.nodes.n == c->g.nodes.n && !memcmp(c->lg.nodes.v, c->g.nodes.v, c->g.nodes.n * sizeof *c->g.nodes.v) &&
              c->lg.syms.n == c->g.syms.n && c->lg.symdefs.n == c->g.symdefs.n && c->lg.guards.n == c->g.guards.n;
  if (c->plan) {
  } else if (same) kg_sb_puts(b, ",\n\"lg\":\"g\"");
  else kg_sb_puts(b, ",\n\"lg\":"), kg_pkw_graph(b, &c->lg);
  if (c->plan) {
    kg_sb_puts(b, ",\n\"plan\":"), kg_pkw_plan(b, c->plan);
    kg_sb_puts(b, ",\n\"regions\":[");
    for (uint32_t i = 0; i < c->n_regions; i++) kg_sb_puts(b, i ? ",\n" : "\n"), write_prog(S, c->regions[i]);
    kg_sb_puts(b, "]");
  } else {
    kg_sb_puts(b, ",\n\"fusion\":"), kg_pkw_fusion(b, &c->fusion);
    kg_sb_puts(b, ",\n\"kernels\":"), write_kernels(b, c->kernels, c->n_kernels);
    if (c->n_fold_cand) {
      kg_sb_puts(b, ",\n\"fold_cand\":[");
      for (uint32_t i = 0; i < c->n_fold_cand; i++) kg_sb_printf(b, "%s%u", i ? "," : "", c->fold_cand[i]);
      kg_sb_puts(b, "],\n\"fold\":{\"lg\":"), kg_pkw_graph(b, &c->lg_fold);
      kg_sb_puts(b, ",\"fusion\":"), kg_pkw_fusion(b, &c->fusion_fold);
      kg_sb_puts(b, ",\"kernels\":"), write_kernels(b, c->kernels_fold, c->n_fold), kg_sb_puts(b, "}");
    }
    if (c->kernels_split) {
      kg_sb_puts(b, ",\n\"split\":{\"fusion\":"), kg_pkw_fusion(b, &c->fusion_split);
      kg_sb_puts(b, ",\"kernels\":"), write_kernels(b, c->kernels_split, c->n_split), kg_sb_puts(b, "}");
    }
    /* the variants: a shared prefix (the prelude) once, then each one's own text */
    size_t pre = common_prefix(c), pre_off = S->code.len;
    if (c->runtime.n) kg_sb_putn(&S->code, c->runtime.v[0]->cuda, pre);
    kg_sb_puts(b, ",\n\"variants\":[");
    for (uint32_t i = 0; i < c->runtime.n; i++) {
      const kg_kvariant *kv = c->runtime.v[i];
      size_t off = S->code.len, len = strlen(kv->cuda) - pre;
      kg_sb_putn(&S->code, kv->cuda + pre, len);
      size_t toff = S->code.len, tlen = strlen(kv->trampolines);
      kg_sb_putn(&S->code, kv->trampolines, tlen);
      kg_sb_printf(b, "%s\n{\"group\":%u,\"v\":", i ? "," : "", kv->group);
      kg_pkw_variant(b, &kv->v);
      /* its launch metadata in the kmeta section, named by offset and length: a run parses
       * only the variants its scheduler picks (docs/package.md) */
      size_t koff = S->kmeta.len;
      kg_pkw_kernel(&S->kmeta, &kv->k);
      kg_sb_printf(b, ",\"k\":[%zu,%zu]", koff, S->kmeta.len - koff);
      kg_sb_printf(b, ",\"code\":[%zu,%zu,%zu,%zu],\"tramp\":[%zu,%zu]}", pre_off, pre, off, len, toff, tlen);
      KG_VEC_PUSH(S->kernels, &kv->k);
      S->n_variants++;
    }
    kg_sb_puts(b, "]");
  }
  if (c->copies) {
    kg_sb_puts(b, ",\n\"copies\":[");
    for (uint32_t i = 0; i < c->g.outputs.n; i++) {
      kg_sb_puts(b, i ? "," : "");
      if (c->copies[i]) write_prog(S, c->copies[i]);
      else kg_sb_puts(b, "null");
    }
    kg_sb_puts(b, "]");
  }
  kg_sb_puts(b, "}");
}

/* ---- the manifest's view of a signature ---- */

static void sig_text(const kg_graph *g, kg_strbuf *b) {
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gparam *gp = &g->params.v[p];
    const kg_gnode *n = &g->nodes.v[gp->node];
    kg_sb_puts(b, p ? ", " : "");
    if (gp->is_capture) kg_sb_printf(b, "%s=", gp->name);
    kg_sb_puts(b, kg_dtype_name((kg_dtype)n->dtype));
    if (n->vkind == KG_V_SCALAR) continue;
    kg_sb_putc(b, '[');
    for (int d = 0; d < n->shape.rank; d++) {
      kg_sb_puts(b, d ? "," : "");
      if (n->shape.d[d].kind == KG_DIM_STATIC) kg_sb_printf(b, "%lld", (long long)n->shape.d[d].v);
      else kg_sb_puts(b, g->syms.v[n->shape.d[d].v]);
    }
    kg_sb_putc(b, ']');
  }
}

static void sig_params(const kg_graph *g, kg_strbuf *b) {
  kg_sb_puts(b, "[");
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gparam *gp = &g->params.v[p];
    const kg_gnode *n = &g->nodes.v[gp->node];
    kg_sb_puts(b, p ? ",{\"name\":" : "{\"name\":"), kg_pkw_str(b, gp->name);
    kg_sb_printf(b, ",\"dtype\":\"%s\"", kg_dtype_name((kg_dtype)n->dtype));
    if (n->vkind == KG_V_SCALAR) kg_sb_puts(b, ",\"scalar\":1");
    if (gp->is_capture) kg_sb_puts(b, ",\"capture\":"), kg_pkw_str(b, gp->name);
    kg_sb_puts(b, ",\"dims\":[");
    for (int d = 0; n->vkind == KG_V_TENSOR && d < n->shape.rank; d++) {
      kg_sb_puts(b, d ? "," : "");
      if (n->shape.d[d].kind == KG_DIM_STATIC) kg_sb_printf(b, "%lld", (long long)n->shape.d[d].v);
      else kg_pkw_str(b, g->syms.v[n->shape.d[d].v]);
    }
    kg_sb_puts(b, "]}");
  }
  kg_sb_puts(b, "]");
}

static bool has_half(const kg_graph *g) {
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i].dtype == KG_F16 || g->nodes.v[i].dtype == KG_BF16) return true;
  return false;
}

/* One signature: its sections, and its manifest object appended to man. */
static bool write_sig(pw *W, kg_compiled *c, int ei, int si, kg_strbuf *man) {
  if (!build_variants(W, c)) return false;
  pw_sig S;
  memset(&S, 0, sizeof S);
  kg_sb_init(&S.plan), kg_sb_init(&S.code), kg_sb_init(&S.kmeta);
  write_prog(&S, c);
  char nm[96];
  bool ok = true;
  snprintf(nm, sizeof nm, "e%d.s%d.plan", ei, si);
  int32_t plan = add_sec(W, nm, S.plan.s, S.plan.len);
  snprintf(nm, sizeof nm, "e%d.s%d.code", ei, si);
  int32_t code = add_sec(W, nm, S.code.s ? S.code.s : "", S.code.len);
  snprintf(nm, sizeof nm, "e%d.s%d.kmeta", ei, si);
  int32_t kmeta = add_sec(W, nm, S.kmeta.s ? S.kmeta.s : "", S.kmeta.len);
  kg_strbuf tu;
  kg_sb_init(&tu);
  kg_cuda_emit(S.kernels.v, S.kernels.n, c->g.entry, &tu);
  snprintf(nm, sizeof nm, "e%d.s%d.cuda", ei, si);
  int32_t cuda = add_sec(W, nm, tu.s, tu.len);
  int32_t twin[4] = {-1, -1, -1, -1};
  bool half = has_half(&c->g);
  for (int i = 0; i < (half ? 4 : 2) && ok; i++) {
    kg_strbuf t;
    kg_sb_init(&t);
    kg_ts_opts o = {(i & 1) != 0, i >= 2};
    ok = kg_ts_emit_plan(&c->g, c->plan_src, &o, &t, W->d);
    snprintf(nm, sizeof nm, "e%d.s%d.%s%s", ei, si, i & 1 ? "eager.py" : "ts.py", i >= 2 ? ".half" : "");
    if (ok) twin[i] = add_sec(W, nm, t.s ? t.s : "", t.len);
    kg_sb_free(&t);
  }
  /* NVRTC: all variants of the signature, once per arch */
  int32_t cubin[KG_PKG_MAX_ARCH], ptx = -1;
  kg_strbuf stats;
  kg_sb_init(&stats);
  const char *pname = kg_arena_printf(&c->arena, "%s.cu", kg_entry_cname(&c->arena, c->g.entry));
  bool sm90a = false;
  for (uint32_t k = 0; k < S.kernels.n; k++) sm90a |= S.kernels.v[k]->sm90a;
  for (int a = 0; a < W->n_archs && ok; a++) {
    kg_nvrtc_out o;
    /* sm_90a kernels (wgmma, TMA) exist for sm_90 only: another arch's cubin leaves them out (its
     * scheduler never picks them), sm_90's is compiled for sm_90a */
    kg_strbuf atu;
    kg_sb_init(&atu);
    if (sm90a && W->archs[a] != 90) {
      KG_VEC(const kg_kernel *) ks = {0};
      for (uint32_t k = 0; k < S.kernels.n; k++)
        if (!S.kernels.v[k]->sm90a) KG_VEC_PUSH(ks, S.kernels.v[k]);
      kg_cuda_emit(ks.v, ks.n, c->g.entry, &atu);
      KG_VEC_FREE(ks);
    }
    ok = kg_nvrtc_compile(W->nv, pname, atu.len ? atu.s : tu.s, W->archs[a] | (sm90a && W->archs[a] == 90 ? KG_ARCH_FEAT : 0), true, NULL, &o, W->d) == 0;
    kg_sb_free(&atu);
    if (!ok) break;
    snprintf(nm, sizeof nm, "e%d.s%d.sm_%d.cubin", ei, si, W->archs[a]);
    cubin[a] = add_sec(W, nm, o.cubin, o.cubin_len);
    if (a == W->n_archs - 1) {
      snprintf(nm, sizeof nm, "e%d.s%d.sm_%d.ptx", ei, si, W->archs[a]);
      ptx = add_sec(W, nm, o.ptx, o.ptx_len + 1); /* with its NUL: the driver's JIT reads a C string */
    }
    int maxr = 0, maxs = 0, spills = 0;
    kg_strbuf sp;
    kg_sb_init(&sp);
    for (uint32_t k = 0; k < o.n_stats; k++) {
      maxr = o.stats[k].regs > maxr ? o.stats[k].regs : maxr, maxs = o.stats[k].smem > maxs ? o.stats[k].smem : maxs;
      if (o.stats[k].spill_stores || o.stats[k].spill_loads) {
        spills++;
        kg_sb_printf(&sp, "      spills: %s %d bytes stored, %d loaded\n", o.stats[k].name, o.stats[k].spill_stores, o.stats[k].spill_loads);
      }
    }
    kg_sb_printf(&stats, "    sm_%d: %u kernels, at most %d registers and %d bytes of shared memory per kernel, %d kernel(s) spilling\n%s", W->archs[a],
                 o.n_stats, maxr, maxs, spills, kg_sb_cstr(&sp));
    kg_sb_free(&sp);
    kg_nvrtc_out_free(&o);
  }
  if (ok) {
    kg_sb_printf(man, "{\"sig\":");
    kg_strbuf st;
    kg_sb_init(&st);
    sig_text(&c->g, &st);
    kg_pkw_str(man, kg_sb_cstr(&st));
    kg_sb_free(&st);
    kg_sb_puts(man, ",\"params\":"), sig_params(&c->g, man);
    kg_sb_printf(man, ",\"n_inputs\":%u,\"guards\":[", c->g.n_entry_params);
    for (uint32_t q = 0; q < c->g.guards.n; q++) {
      kg_sb_puts(man, q ? ",[" : "["), kg_pkw_str(man, c->g.syms.v[c->g.guards.v[q].a]);
      kg_sb_putc(man, ','), kg_pkw_str(man, c->g.syms.v[c->g.guards.v[q].b]), kg_sb_putc(man, ']');
    }
    kg_sb_printf(man, "],\"plan\":%d,\"code\":%d,\"kmeta\":%d,\"cuda\":%d,\"twins\":[%d,%d", plan, code, kmeta, cuda, twin[0], twin[1]);
    for (int i = 2; i < 4; i++) twin[i] < 0 ? kg_sb_puts(man, ",null") : kg_sb_printf(man, ",%d", twin[i]);
    kg_sb_puts(man, "],\"cubins\":[");
    for (int a = 0; a < W->n_archs; a++) kg_sb_printf(man, "%s{\"arch\":%d,\"section\":%d}", a ? "," : "", W->archs[a], cubin[a]);
    kg_sb_puts(man, "],\"ptx\":");
    if (ptx >= 0) kg_sb_printf(man, "{\"arch\":%d,\"section\":%d}", W->archs[W->n_archs - 1], ptx);
    else kg_sb_puts(man, "null");
    kg_sb_printf(man, ",\"kernels\":%u,\"variants\":%u,\"stats\":", c->n_kernels, S.n_variants);
    kg_pkw_str(man, kg_sb_cstr(&stats));
    kg_sb_puts(man, "}");
  }
  kg_sb_free(&stats), kg_sb_free(&tu), kg_sb_free(&S.plan), kg_sb_free(&S.code), kg_sb_free(&S.kmeta);
  KG_VEC_FREE(S.kernels);
  return ok;
}

static void put_le(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static kg_status package_write_locked(kg_context *ctx, const kg_package_item *items, int n_items, const int *archs, int n_archs, const char *path);
kg_status kg_package_write(kg_context *ctx, const kg_package_item *items, int n_items, const int *archs, int n_archs, const char *path) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = package_write_locked(ctx, items, n_items, archs, n_archs, path);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status package_write_locked(kg_context *ctx, const kg_package_item *items, int n_items, const int *archs, int n_archs, const char *path) {
  kg_call_begin(ctx);
  pw W;
  memset(&W, 0, sizeof W);
  W.ctx = ctx, W.d = &ctx->diag, W.archs = archs, W.n_archs = n_archs;
  bool ok = n_items > 0 && n_archs >= 0 && n_archs <= KG_PKG_MAX_ARCH;
  if (!ok) kg_diag_add(W.d, KG_E_ARG, NULL, NULL, "kg_package_write: no items, or more than %d archs", KG_PKG_MAX_ARCH);
  for (int a = 0; a < n_archs && ok; a++)
    if (archs[a] < 75 || archs[a] > 121 || (a && archs[a] <= archs[a - 1]))
      ok = false, kg_diag_add(W.d, KG_E_ARG, NULL, NULL, "archs must be sm_75 … sm_121, ascending, each once (sm_%d)", archs[a]);
  if (ok && n_archs && !(W.nv = kg_ctx_nvrtc(ctx))) ok = false;
  /* the entries, in order of first appearance, each with its signatures */
  typedef struct { const char *name; kg_strbuf sigs; int n; kg_module *m; } went;
  KG_VEC(went) ents = {0};
  for (int i = 0; i < n_items && ok; i++) {
    kg_module *m = items[i].module;
    int first = 0, last = kg_module_n_entries(m) - 1;
    if (items[i].entry) {
      first = -1;
      for (int e = 0; e <= last && first < 0; e++)
        if (!strcmp(kg_module_entry_name(m, e), items[i].entry)) first = e;
      if (first < 0) {
        ok = false;
        kg_diag_add(W.d, KG_E_ARG, "$.entries", NULL, "no entry named '%s' in the document of item %d", items[i].entry, i + 1);
        break;
      }
      last = first;
    }
    if (m->pkg) {
      ok = false;
      kg_diag_add(W.d, KG_E_ARG, NULL, NULL, "item %d is a package: packages are made from quotation documents", i + 1);
    }
    for (int e = first; e <= last && ok; e++) {
      const char *name = kg_module_entry_name(m, e);
      uint32_t k = 0;
      while (k < ents.n && strcmp(ents.v[k].name, name)) k++;
      if (k == ents.n) {
        went w = {name, {0}, 0, m};
        kg_sb_init(&w.sigs);
        KG_VEC_PUSH(ents, w);
      } else if (ents.v[k].m != m) {
        ok = false;
        kg_diag_add(W.d, KG_E_ARG, NULL, NULL, "two documents have an entry named '%s': a package's entries have distinct names", name);
        break;
      }
      kg_compiled *c = NULL;
      kg_status st = kg_specialize(m, name, items[i].sig, &c);
      kg_call_begin(ctx); /* kg_specialize formatted its error; keep the diagnostics going */
      if (st != KG_OK) {
        kg_diag_add(W.d, st == KG_ERR_INPUT ? KG_E_ARG : KG_E_INTERNAL, NULL, NULL, "%s", kg_last_error(ctx));
        ok = false;
        break;
      }
      went *we = &ents.v[k];
      kg_sb_puts(&we->sigs, we->n ? ",\n" : "\n");
      ok = write_sig(&W, c, (int)k, we->n, &we->sigs);
      we->n++;
      kg_compiled_free(c);
    }
  }
  kg_strbuf man;
  kg_sb_init(&man);
  if (ok) {
    char abi[17];
    kg_pkg_abi(abi);
    kg_sb_printf(&man, "{\"format\":\"kgen-package\",\"format_version\":%d,\"kgen_version\":\"%s\",\"abi\":\"%s\",\"created_by\":", KG_PKG_FORMAT,
                 KGEN_VERSION_STRING, abi);
    char by[128];
    snprintf(by, sizeof by, "kgen %s%s%s", KGEN_VERSION_STRING, W.nv ? ", NVRTC " : "", W.nv ? kg_nvrtc_version(W.nv) : "");
    kg_pkw_str(&man, by);
    kg_sb_puts(&man, ",\n\"entries\":[");
    for (uint32_t k = 0; k < ents.n; k++) {
      kg_sb_puts(&man, k ? ",\n{\"name\":" : "\n{\"name\":"), kg_pkw_str(&man, ents.v[k].name);
      kg_sb_printf(&man, ",\"signatures\":[%s]}", kg_sb_cstr(&ents.v[k].sigs));
    }
    kg_sb_puts(&man, "],\n\"sections\":[");
    uint64_t off = 0;
    for (uint32_t s = 0; s < W.secs.n; s++) {
      char h[65];
      kg_sha256_hex(W.secs.v[s].data, W.secs.v[s].len, h);
      kg_sb_puts(&man, s ? ",\n{\"name\":" : "\n{\"name\":"), kg_pkw_str(&man, W.secs.v[s].name);
      kg_sb_printf(&man, ",\"offset\":%llu,\"length\":%zu,\"sha256\":\"%s\"}", (unsigned long long)off, W.secs.v[s].len, h);
      off = (off + W.secs.v[s].len + 15) & ~(uint64_t)15;
    }
    kg_sb_puts(&man, "]}\n");
    /* the file: header, manifest, sections at 16-byte boundaries */
    uint64_t data_off = (KG_PKG_HEADER + man.len + 15) & ~(uint64_t)15;
    size_t total = (size_t)(data_off + off);
    unsigned char *f = kg_xcalloc(total + 1, 1);
    memcpy(f, KG_PKG_MAGIC, 8);
    put_le(f + 8, KG_PKG_FORMAT, 4), put_le(f + 12, KG_PKG_HEADER, 4), put_le(f + 16, KG_PKG_HEADER, 8), put_le(f + 24, man.len, 8);
    kg_sha256(man.s, man.len, f + 32);
    memcpy(f + KG_PKG_HEADER, man.s, man.len);
    uint64_t o = 0;
    for (uint32_t s = 0; s < W.secs.n; s++) {
      memcpy(f + data_off + o, W.secs.v[s].data, W.secs.v[s].len);
      o = (o + W.secs.v[s].len + 15) & ~(uint64_t)15;
    }
    if (kg_write_file(path, f, total) != 0) {
      kg_diag_add(W.d, KG_E_IO, NULL, NULL, "cannot write %s", path);
      ok = false;
    }
    free(f);
  }
  kg_sb_free(&man);
  for (uint32_t k = 0; k < ents.n; k++) kg_sb_free(&ents.v[k].sigs);
  KG_VEC_FREE(ents);
  for (uint32_t s = 0; s < W.secs.n; s++) free(W.secs.v[s].data);
  KG_VEC_FREE(W.secs);
  if (!ok || ctx->diag.n) return kg_fail(ctx);
  return KG_OK;
}
