/* perf/perf_common.c — the counting rules the perf/ benchmarks share (perf_common.h). */
#include "perf/perf_common.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

int64_t kp_dim(const kg_dim *d) { return d->kind == KG_DIM_STATIC ? d->v : 13 + 4 * d->v; }

int64_t kp_numel(const kg_shape *s) {
  int64_t e = 1;
  for (int i = 0; i < s->rank; i++) e *= kp_dim(&s->d[i]);
  return e;
}

int64_t kp_node_bytes(const kg_gnode *n) {
  if (n->vkind != KG_V_TENSOR) return 0;
  return kp_numel(&n->shape) * kg_dtype_get((kg_dtype)n->dtype)->size;
}

bool kp_space_empty(const kg_shape *s) {
  for (int i = 0; i < s->rank; i++)
    if (kp_dim(&s->d[i]) == 0) return true;
  return false;
}

int64_t kp_param_bytes(const kg_compiled *c, const kg_kparam *kp) {
  switch (kp->r0) {
  case KG_BUF_PARAM: return kp_node_bytes(&c->g.nodes.v[c->g.params.v[kp->r1].node]);
  case KG_BUF_OUTPUT: return kp_node_bytes(&c->lg.nodes.v[c->lg.outputs.v[kp->r1]]);
  case KG_BUF_TEMP: return kp_node_bytes(&c->lg.nodes.v[c->fusion.temps.v[kp->r1]]);
  default: return 0; /* a split reduction's partials: small, and not known without the run's split */
  }
}

static bool var_used(const kg_kernel *k, uint32_t var) {
  for (uint32_t i = 0; i < k->exprs.n; i++)
    if (k->exprs.v[i].kind == KX_VAR && k->exprs.v[i].a == var) return true;
  return false;
}

bool kp_kernel_reads(const kg_kernel *k, uint32_t param) {
  for (uint32_t i = 0; i < k->exprs.n; i++)
    if (k->exprs.v[i].kind == KX_LOAD && k->exprs.v[i].a == param) return true;
  for (uint32_t i = 0; i < k->stmts.n; i++) {
    const kg_ks *s = &k->stmts.v[i];
    if (s->kind != KS_VLOAD || s->a != param) continue;
    for (uint32_t l = 0; l < (k->vec ? k->vec : 1); l++)
      if (var_used(k, s->c + l)) return true;
  }
  return false;
}

/* ---- matrix-product groups ---- */

static bool stored_by(const kg_group *grp, uint32_t id) {
  for (uint32_t q = 0; q < grp->mats.n; q++)
    if (grp->mats.v[q] == id) return true;
  return false;
}

void kp_sources(const kg_graph *g, const kg_fusion *f, const kg_group *grp, uint32_t id, uint8_t *mark, uint8_t *visit) {
  if (visit[id]) return;
  visit[id] = 1;
  const kg_gnode *n = &g->nodes.v[id];
  if (id == grp->red && n->op == KG_OP_MATMUL) return;
  /* a value this group stores (grp->mats) is computed here, not read: its own sources are */
  if (id != grp->red && !stored_by(grp, id) &&
      (n->op == KG_OP_INPUT || kg_fusion_mat_index(f, id) != KG_NONE || n->op == KG_OP_PLANVAL)) {
    mark[id] = 1;
    return;
  }
  for (int j = 0; j < (n->op == KG_OP_FULL ? 1 : n->n_in); j++) kp_sources(g, f, grp, n->in[j], mark, visit);
}

void kp_mm_group(const kg_compiled *c, uint32_t gi, kp_mm *o) {
  const kg_graph *g = &c->lg;
  const kg_group *grp = &c->fusion.groups.v[gi];
  const kg_gnode *P = &g->nodes.v[grp->red];
  int64_t space[KG_MAX_RANK];
  for (int q = 0; q < grp->space.rank; q++) space[q] = kp_dim(&grp->space.d[q]);
  kg_mm_dims(grp->space.rank, space, P->ia[0], &o->batch, &o->m, &o->n);
  const kg_gnode *A = &g->nodes.v[P->in[0]];
  o->k = kp_dim(&A->shape.d[A->shape.rank - 1]);
  /* a convolution (implicit GEMM over [N, O, S...]): the scheduler's direct schedule for few
   * output channels per group over a short K (depthwise), no tiles and no shared memory */
  bool conv = (P->ia[0] & 8) != 0, direct = conv && kg_conv_direct(o->m, o->k);
  /* the scheduler's variant at these sizes on an H100, the operands assumed contiguous (cp.async
   * and TMA read a source whose rows are 16-byte multiples) */
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  x.runtime = true, x.contiguous = true, x.align = 64, x.max_elem = 4;
  memcpy(x.space, space, sizeof x.space);
  x.mm_kmajor[0] = x.mm_kmajor[1] = -1;
  for (int w = 0; w < 2; w++) {
    const kg_gnode *op = &g->nodes.v[P->in[w]];
    int64_t inner = op->shape.rank ? kp_dim(&op->shape.d[op->shape.rank - 1]) : 1;
    bool src = (op->op == KG_OP_INPUT && op->vkind == KG_V_TENSOR) || kg_fusion_mat_index(&c->fusion, P->in[w]) != KG_NONE;
    x.mm_async[w] = x.mm_tma[w] = src && inner * kg_dtype_get((kg_dtype)op->dtype)->size % 16 == 0;
  }
  kg_variant var = kg_schedule_choose(&c->gfacts[gi], &x, &kg_target_h100).v;
  o->tile = direct ? KG_MM_DIRECT : (kg_mm_tile)var.mm_tile;
  o->prec = var.mm_prec;
  const kg_mm_tile_info *T = kg_mm_tile_get(o->tile);
  o->cdtype = P->cdtype;
  o->opdtype = (uint8_t)c->gfacts[gi].mm_dtype;
  uint32_t esz = P->cdtype == KG_F64 || P->cdtype == KG_I64 ? 8 : 4;
  o->smem = direct ? 0
            : T->tier == 2 ? T->stages * (T->bm + T->bn) * 128u + 16u * T->stages
            : T->tier == 1 ? T->stages * (T->bm + T->bn) * (uint32_t)KG_MM_TC_KBYTES
                           : (uint32_t)(KG_MM_BK * (T->bm + 1 + T->bn + 1) * esz);
  o->flop = 2.0 * (double)o->batch * (double)o->m * (double)o->n * (double)o->k;
  int64_t ntile = (o->n + T->bn - 1) / T->bn, mtile = (o->m + T->bm - 1) / T->bm;
  /* a convolution's operands: the weights (A) are re-read per column of tiles of each image's
   * blocks (its batch is images × groups, a group's weights read by its own blocks only); the
   * input (B, read through IM2COL) by every tap of the window per row of tiles; the direct
   * schedule reads K of each per output. An operand that fits in half the L2 is read once. */
  double taps = 1, out_elems = (double)o->batch * (double)o->m * (double)o->n;
  int64_t nimg = 1;
  if (conv) {
    const kg_gnode *B = &g->nodes.v[P->in[1]];
    if (B->op == KG_OP_IM2COL) {
      int64_t bx = kp_node_bytes(&g->nodes.v[B->in[0]]);
      taps = bx ? (double)kp_node_bytes(B) / (double)bx : 1;
    }
    nimg = kp_dim(&grp->space.d[0]);
    if (nimg < 1) nimg = 1;
  }
  size_t nn = g->nodes.n + 1;
  uint8_t *ma = kg_xcalloc(nn, 1), *mb = kg_xcalloc(nn, 1), *me = kg_xcalloc(nn, 1), *ms = kg_xcalloc(nn, 1), *v = kg_xcalloc(nn, 1);
  /* a norm's statistics computed by the product (kg_group.pre): each block walks its rows of
   * their sources once more before its K loop, as A's prologue reads them per column of tiles */
  for (uint32_t q = 0; q < grp->pre.n; q++) kp_sources(g, &c->fusion, grp, g->nodes.v[grp->pre.v[q]].in[0], ms, v);
  memset(v, 0, nn);
  kp_sources(g, &c->fusion, grp, P->in[0], ma, v);
  memset(v, 0, nn);
  kp_sources(g, &c->fusion, grp, P->in[1], mb, v);
  memset(v, 0, nn);
  for (uint32_t q = 0; q < grp->outs.n; q++) kp_sources(g, &c->fusion, grp, g->outputs.v[grp->outs.v[q]], me, v);
  for (uint32_t q = 0; q < grp->mats.n; q++) kp_sources(g, &c->fusion, grp, grp->mats.v[q], me, v);
  o->ours_b = o->min_b = 0;
  for (uint32_t q = 0; q < g->nodes.n; q++) {
    int64_t b = kp_node_bytes(&g->nodes.v[q]);
    if (ma[q] || mb[q] || me[q] || ms[q]) o->min_b += b;
    /* an operand that fits in half the L2 is re-read from there, not from memory; on the
     * tensor-core tiers (few, large tiles a wave) B is re-read once per wave of resident blocks
     * and A once in all, when a wave's panels (its rows of A tiles, all of B) fit in the L2 */
    bool fits = 2 * b <= KP_H100_L2;
    int64_t rn = fits ? 1 : ntile * nimg, rm = fits ? 1 : mtile;
    if (!fits && T->tier && !direct) {
      int64_t per_sm = (int64_t)(kg_target_h100.smem_per_sm / (o->smem ? o->smem : 1)), wave = kg_target_h100.sm_count * (per_sm < 1 ? 1 : per_sm);
      int64_t rows = (wave + ntile - 1) / ntile, waves = (o->batch * mtile * ntile + wave - 1) / wave;
      int64_t bsz = kp_node_bytes(&g->nodes.v[P->in[1]]) / (o->batch ? o->batch : 1), asz = kp_node_bytes(&g->nodes.v[P->in[0]]);
      int64_t apanel = mtile ? asz / (o->batch ? o->batch : 1) / mtile * rows : asz;
      if (apanel + bsz <= KP_H100_L2) rn = 1, rm = waves < mtile ? waves : mtile;
    }
    int64_t ra = b * rn, rb = fits ? b : (int64_t)((double)b * taps) * rm;
    if (direct && !fits) /* every output reads K of each operand */
      ra = rb = (int64_t)(out_elems * (double)o->k * kg_dtype_get((kg_dtype)g->nodes.v[q].dtype)->size);
    o->ours_b += (ma[q] ? ra : 0) + (mb[q] ? rb : 0) + (me[q] && !ma[q] && !mb[q] ? b : 0);
    if (ms[q] && !direct) o->ours_b += ma[q] && fits ? 0 : b * rn; /* the statistics' walk: from the L2 where A's reads are */
  }
  for (uint32_t q = 0; q < grp->outs.n; q++) {
    int64_t b = kp_node_bytes(&g->nodes.v[g->outputs.v[grp->outs.v[q]]]);
    o->ours_b += b, o->min_b += b;
  }
  for (uint32_t q = 0; q < grp->mats.n; q++) {
    int64_t b = kp_node_bytes(&g->nodes.v[grp->mats.v[q]]);
    o->ours_b += b, o->min_b += b;
  }
  free(ma), free(mb), free(me), free(ms), free(v);
}

double kp_mm_peak(const kp_mm *mm) {
  const kg_mm_tile_info *T = kg_mm_tile_get(mm->tile);
  bool half = mm->opdtype == KG_F16 || mm->opdtype == KG_BF16;
  if (T->tier == 2) return KP_H100_TC_HALF;
  if (T->tier == 1) {
    double peak = half ? KP_H100_TC_HALF : KP_H100_TC_TF32;
    return peak * KP_MMA_SYNC_SHARE / (mm->prec == KG_MM_PREC_3XTF32 ? 3.0 : 1.0);
  }
  return mm->cdtype == KG_F64 ? KP_H100_FP64 : KP_H100_FP32;
}

/* FLOPs of the products folded into a kernel (MMFOLD: passes/fold_products.c): those reached
 * from what the kernel computes without crossing a value another kernel stores, 2·numel·K each */
static double folded_walk(const kg_compiled *c, const kg_group *grp, uint32_t id, uint8_t *visit) {
  if (visit[id]) return 0;
  visit[id] = 1;
  const kg_graph *g = &c->lg;
  const kg_gnode *n = &g->nodes.v[id];
  if (n->op == KG_OP_INPUT || n->op == KG_OP_PLANVAL) return 0;
  if (kg_fusion_mat_index(&c->fusion, id) != KG_NONE && !stored_by(grp, id)) {
    bool own = false; /* a reduction of this group is computed here even when stored */
    for (uint32_t q = 0; q < grp->reds.n; q++) own |= grp->reds.v[q] == id;
    if (!own) return 0;
  }
  double f = 0;
  if (n->op == KG_OP_MMFOLD) {
    const kg_gnode *a = &g->nodes.v[n->in[0]];
    f = 2.0 * (double)kp_numel(&n->shape) * (double)kp_dim(&a->shape.d[a->shape.rank - 1]);
  }
  for (int j = 0; j < (n->op == KG_OP_FULL ? 1 : n->n_in); j++) f += folded_walk(c, grp, n->in[j], visit);
  return f;
}

double kp_folded_flop(const kg_compiled *c, uint32_t gi) {
  const kg_group *grp = &c->fusion.groups.v[gi];
  uint8_t *visit = kg_xcalloc(c->lg.nodes.n + 1, 1);
  double f = 0;
  for (uint32_t q = 0; q < grp->outs.n; q++) f += folded_walk(c, grp, c->lg.outputs.v[grp->outs.v[q]], visit);
  for (uint32_t q = 0; q < grp->epi.n; q++) f += folded_walk(c, grp, c->lg.outputs.v[grp->epi.v[q]], visit);
  for (uint32_t q = 0; q < grp->reds.n; q++) f += folded_walk(c, grp, grp->reds.v[q], visit);
  for (uint32_t q = 0; q < grp->mats.n; q++) f += folded_walk(c, grp, grp->mats.v[q], visit);
  free(visit);
  return f;
}

void kp_kernel_cost(const kg_compiled *c, uint32_t gi, int64_t *bytes, double *flop) {
  const kg_group *grp = &c->fusion.groups.v[gi];
  *bytes = 0, *flop = 0;
  if (grp->kind == KG_GROUP_MATMUL) {
    kp_mm mm;
    kp_mm_group(c, gi, &mm);
    *bytes = mm.ours_b, *flop = mm.flop + kp_folded_flop(c, gi);
    return;
  }
  *flop = kp_space_empty(&grp->space) ? 0 : kp_folded_flop(c, gi);
  if (kp_space_empty(&grp->space)) return;
  const kg_kernel *k = kg_compiled_kernel(c, gi);
  for (uint32_t j = 0; j < k->params.n; j++) {
    const kg_kparam *kp = &k->params.v[j];
    if (kp->kind != KP_BUFFER || kp->role != KPR_TENSOR) continue;
    if (kp->is_output || kp_kernel_reads(k, j)) *bytes += kp_param_bytes(c, kp);
  }
}

/* ---- eager PyTorch ---- */

/* Whether eager PyTorch computes node n as a view of its operand (no kernel): permute,
 * expand, slices and selects always; a reshape when its operand is contiguous. */
static bool eager_view(const kg_graph *g, uint32_t id, const uint8_t *strided) {
  const kg_gnode *n = &g->nodes.v[id];
  switch (n->op) {
  case KG_OP_PERMUTE: case KG_OP_EXPAND: case KG_OP_SLICE: case KG_OP_SELECT: return true;
  case KG_OP_RESHAPE: return !strided[n->in[0]];
  default: return false;
  }
}

/* Whether a view leaves its result non-contiguous (for a later reshape's copy). */
static bool view_strided(const kg_graph *g, uint32_t id, const uint8_t *strided) {
  const kg_gnode *n = &g->nodes.v[id];
  const kg_gnode *a = &g->nodes.v[n->in[0]];
  switch (n->op) {
  case KG_OP_PERMUTE: case KG_OP_EXPAND: return true;
  case KG_OP_SLICE: { /* a step-1 slice of the outermost non-1 dim stays contiguous */
    if (n->ia[2] != 1) return true;
    for (int d = 0; d < (int)n->ia[0]; d++)
      if (kp_dim(&a->shape.d[d]) != 1) return true;
    return strided[n->in[0]];
  }
  case KG_OP_SELECT: {
    for (int d = 0; d < (int)n->ia[0]; d++)
      if (kp_dim(&a->shape.d[d]) != 1) return true;
    return strided[n->in[0]];
  }
  default: return false;
  }
}

static double eager_flop(const kg_graph *g, const kg_gnode *n) {
  uint32_t a;
  switch (n->op) {
  case KG_OP_MATMUL: case KG_OP_LINEAR: a = n->in[0]; break;
  case KG_OP_ADDMM: a = n->in[1]; break;
  case KG_OP_CONV: { /* cuDNN's convolution: 2 FLOPs per multiply-add of the window */
    const kg_gnode *w = &g->nodes.v[n->in[1]];
    int64_t wn = kp_numel(&w->shape), w0 = kp_dim(&w->shape.d[0]);
    if (w0 <= 0) return 0;
    /* out[n, o, s] sums C/G·ΠK products; conv_transpose (w [C, O/G, K...]) scatters each input
     * element over O/G·ΠK outputs */
    if (kg_conv_transposed(n->ia[3])) return 2.0 * (double)kp_numel(&g->nodes.v[n->in[0]].shape) * (double)(wn / w0);
    return 2.0 * (double)kp_numel(&n->shape) * (double)(wn / w0);
  }
  default: return 0;
  }
  const kg_gnode *A = &g->nodes.v[a];
  int64_t k = A->shape.rank ? kp_dim(&A->shape.d[A->shape.rank - 1]) : 1;
  return 2.0 * (double)kp_numel(&n->shape) * (double)k;
}

void kp_eager_cost(const kg_graph *g, kp_eager *o) {
  memset(o, 0, sizeof *o);
  uint8_t *strided = kg_xcalloc(g->nodes.n + 1, 1);
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    if (n->vkind != KG_V_TENSOR || (kg_op_get((kg_op)n->op)->flags & KG_OPF_LEAF)) continue;
    if (eager_view(g, i, strided)) { strided[i] = view_strided(g, i, strided); continue; }
    int64_t b = kp_node_bytes(n);
    for (int q = 0; q < n->n_in; q++)
      if (!(n->op == KG_OP_FULL && q == 1)) b += kp_node_bytes(&g->nodes.v[n->in[q]]);
    double f = eager_flop(g, n);
    double peak = n->dtype == KG_F16 || n->dtype == KG_BF16 ? KP_H100_TC_HALF : n->dtype == KG_F64 ? KP_H100_TC_FP64 : KP_H100_FP32;
    double t = (double)b / KP_H100_BW, tf = f / peak;
    o->kernels++, o->bytes += b, o->flop += f, o->us += (t > tf ? t : tf) * 1e6;
  }
  free(strided);
}

int64_t kp_min_bytes(const kg_graph *g) {
  uint8_t *live = kg_xcalloc(g->nodes.n + 1, 1);
  int64_t b = 0;
  for (uint32_t o = 0; o < g->outputs.n; o++) {
    uint32_t id = g->outputs.v[o];
    live[id] = 1;
    b += kp_node_bytes(&g->nodes.v[id]);
  }
  for (uint32_t i = g->nodes.n; i-- > 0;) {
    if (!live[i]) continue;
    const kg_gnode *n = &g->nodes.v[i];
    for (int j = 0; j < n->n_in; j++)
      if (!(n->op == KG_OP_FULL && j == 1)) live[n->in[j]] = 1;
  }
  for (uint32_t p = 0; p < g->params.n; p++) {
    uint32_t id = g->params.v[p].node;
    if (live[id] && g->nodes.v[id].vkind == KG_V_TENSOR) b += kp_node_bytes(&g->nodes.v[id]);
  }
  free(live);
  return b;
}

/* ---- example directories ---- */

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int kp_list_json(const char *dir, const char *const *prefixes, char ***names) {
  *names = NULL;
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json")) continue;
    bool ok = prefixes == NULL;
    for (int p = 0; prefixes && prefixes[p] && !ok; p++) ok = !strncmp(e->d_name, prefixes[p], strlen(prefixes[p]));
    if (!ok) continue;
    *names = kg_xrealloc(*names, sizeof **names * (size_t)(n + 1));
    (*names)[n++] = kg_xstrdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(*names, (size_t)n, sizeof **names, cmp_name);
  return n;
}
