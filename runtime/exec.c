/* runtime/exec.c — running a compiled entry on a device.
 *
 * For each fusion group: bind the program's symbolic sizes to the actual
 * tensors (checking every static size, symbol and broadcast: exec_bind.c), choose the
 * kernel variant the actual layout allows —
 *   LINEAR + vector width: every operand C-contiguous with the iteration
 *     space's shape and aligned to the vector access (16 bytes for the widest
 *     dtype); narrower vectors are tried when alignment is smaller;
 *   STRIDED otherwise (broadcast, transposed or sliced operands: strides are
 *     kernel arguments, 0 on broadcast dims);
 *   int32 indices when the element count and every reachable offset fit, else int64 —
 * build it on first use (kernel IR → CUDA C → device module, cached), marshal
 * the parameters as cuLaunchKernel expects, and launch with
 * grid.x = ceil(numel / (block.x · elements per thread)). Size-0 spaces launch
 * nothing. Reductions choose their schedule from the actual sizes: a block per
 * row, a thread per output (columns), or, for few outputs over long rows, a
 * split into chunks of the reduced dim (kg_reduce_split_chunks): a partial
 * kernel writes each chunk's accumulator to a scratch buffer, a finish kernel
 * folds them in chunk order — two launches, no atomics, bit-identical reruns.
 * Matrix products launch a grid of output tiles (N tiles, M tiles, batch; y and z capped at
 * 65535, the kernel strides over the rest), their tile chosen from M, N and the batch, after
 * checking that the two operands' K agree (a symbol on one side is known only now).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_int.h"
#include "package.h"

kg_device *kg_ctx_device(kg_context *ctx, kg_device_kind kind, kg_diag *d) {
  if (kind == KG_DEVICE_AUTO) kind = kg_default_device(ctx);
  if (kind == KG_DEVICE_NULL) {
    if (!ctx->null_dev) ctx->null_dev = kg_dev_null_new();
    return ctx->null_dev;
  }
  if (kind == KG_DEVICE_EMU) {
    if (!ctx->emu) ctx->emu = kg_dev_emu_new(&ctx->rtcfg, d);
    return ctx->emu;
  }
  if (kind == KG_DEVICE_CPU) {
    if (!ctx->cpu && (ctx->cpu = kg_dev_cpu_new(&ctx->rtcfg, ctx->cpu_threads, d))) {
      ctx->cpu_threads = kg_dev_cpu_threads(ctx->cpu), ctx->cpu_target = kg_target_cpu(ctx->cpu_threads);
      const char *vr = getenv("KGEN_CPU_VREGS"); /* the register blocks another CPU would get (docs/cpu.md) */
      if (vr && (!strcmp(vr, "16") || !strcmp(vr, "32"))) ctx->cpu_target.cpu_vregs = atoi(vr);
    }
    return ctx->cpu;
  }
  if (!ctx->cuda) { /* without NVRTC the device still runs packaged kernels (a source load says NVRTC is missing) */
    uint32_t mark = ctx->diag.n;
    kg_nvrtc *nv = kg_ctx_nvrtc(ctx);
    kg_diag_truncate(&ctx->diag, mark);
    ctx->cuda = kg_dev_cuda_new(&ctx->rtcfg, nv, d);
  }
  return ctx->cuda;
}

kg_device_kind kg_default_device(kg_context *ctx) {
  if (!ctx->cuda_probed) {
    ctx->cuda_probed = true;
    ctx->cuda_ok = kg_dev_cuda_available();
  }
  return ctx->cuda_ok ? KG_DEVICE_CUDA : KG_DEVICE_EMU;
}

kg_kvariant *kg_compiled_variant(kg_compiled *c, uint32_t group, const kg_variant *v, kg_diag *d) {
  if (c->pkg) return kg_pkg_variant_get(c, group, v, d); /* a package: looked up, never compiled */
  for (uint32_t i = 0; i < c->runtime.n; i++) {
    kg_kvariant *kv = c->runtime.v[i];
    if (kv->group == group && memcmp(&kv->v, v, sizeof *v) == 0) return kv;
  }
  kg_kvariant *kv = kg_xcalloc(1, sizeof *kv);
  kv->group = group;
  kv->v = *v;
  kg_plan_view pv = kg_compiled_plan(c, v->plan);
  const kg_fusion *F = pv.F;
  const kg_graph *LG = pv.lg;
  KG_ASSERT(group < F->groups.n);
  bool mm = F->groups.v[group].kind == KG_GROUP_MATMUL, attn = F->groups.v[group].kind == KG_GROUP_ATTN;
  const kg_mm_tile_info *mt = mm ? kg_mm_tile_get((kg_mm_tile)v->mm_tile) : NULL;
  const char *tc = mt && mt->tier ? kg_arena_printf(&c->arena, "_p%u_a%u_b%u", v->mm_prec, v->mm_a, v->mm_b) : "";
  /* every field that changes the kernel is in its name: a package compiles all of an entry's
   * variants in one translation unit (the two-walk softmax of no_online beside the online one
   * collided there, lstm_tagger for sm_80 / sm_90) */
  _Static_assert(sizeof(kg_variant) == 15, "kg_variant changed: put the new field into the kernel name below (and runtime/package_ir.c)");
  const char *name = kg_arena_printf(&c->arena, "%s_%sk%u_%s%u%s%s%s%s%s%s%s%s%s%s", kg_entry_cname(&c->arena, c->g.entry), v->plan == 1 ? "s" : v->plan == 2 ? "f" : v->plan == 3 ? "u" : v->plan == 4 ? "m" : "", group,
                                     v->layout == KG_LAYOUT_LINEAR ? "lin" : "str", v->vec, v->index_dtype == KG_I64 ? "_i64" : "",
                                     v->warp ? v->seg ? kg_arena_printf(&c->arena, "_warp%u", 32u >> v->seg) : "_warp" : "", v->cache ? "_cache" : "", v->split == KG_SPLIT_PARTIAL ? "_part" : v->split == KG_SPLIT_FINISH ? "_fin" : "",
                                     v->no_online ? "_twowalk" : "", mm || attn ? "_" : "", mt ? mt->name : attn ? kg_attn_tile_get((kg_attn_tile)v->mm_tile)->name : "", tc,
                                     v->mm_fold ? "_fold" : "", v->cpu ? "_cpu" : "");
  kg_pass_ctx pc = {&c->arena, d, c->m->ctx->opts.verify_ir != 0, NULL, NULL, false, false, false, false};
  if (!kg_lower_group(LG, F, &F->groups.v[group], v, name, &kv->k, &pc)) {
    kg_kernel_free(&kv->k);
    free(kv);
    return NULL;
  }
  const kg_kernel *kp = &kv->k;
  kg_strbuf b;
  kg_sb_init(&b);
  kg_cuda_emit(&kp, 1, c->g.entry, &b);
  kv->cuda = kg_sb_take(&b);
  kg_cuda_emit_trampolines(&kp, 1, &b);
  kv->trampolines = kg_sb_take(&b);
  kv->cpu = kg_cuda_emit_cpu_glue(&kp, 1, &b) ? kg_sb_take(&b) : NULL; /* NULL: tensor cores, which the CPU device refuses */
  kg_sb_free(&b);
  kg_sb_init(&b);
  kg_cuda_emit_cpu_prologue(&kp, 1, &b);
  kv->cpu_pre = kg_sb_take(&b);
  KG_VEC_PUSH(c->runtime, kv);
  return kv;
}

typedef kg_bwhat bwhat;

int64_t kg_dl_stride(const DLTensor *t, int i) {
  if (t->strides) return t->strides[i];
  int64_t s = 1;
  for (int j = t->ndim - 1; j > i; j--) s *= t->shape[j];
  return s;
}

/* a scalar parameter's value, read from a host 0-dim tensor, in the kernel's value type */
typedef union pval { int8_t i8; uint8_t u8; int16_t i16; int32_t i32; int64_t i64; float f32; double f64; void *p; } pval;

static double read_scalar(const DLTensor *t, kg_dtype dt, int64_t *iv) {
  const void *p = kg_exec_data(t);
  double f = 0;
  int64_t i = 0;
  switch (dt) {
  case KG_BOOL: case KG_U8: i = *(const uint8_t *)p; break;
  case KG_I8: i = *(const int8_t *)p; break;
  case KG_I16: i = *(const int16_t *)p; break;
  case KG_I32: i = *(const int32_t *)p; break;
  case KG_I64: i = *(const int64_t *)p; break;
  case KG_F16: f = kg_f16_to_f32(*(const uint16_t *)p); break;
  case KG_BF16: f = kg_bf16_to_f32(*(const uint16_t *)p); break;
  case KG_F32: f = *(const float *)p; break;
  case KG_F64: f = *(const double *)p; break;
  default: break;
  }
  if (!kg_dtype_is_float(dt)) f = (double)i;
  *iv = kg_dtype_is_float(dt) ? (int64_t)f : i;
  return f;
}

/* a launch parameter's value in the kernel's value type, written in place (returning the
 * union by value after a narrow store stalls store forwarding: measured 15 % of a host
 * plan's time per launch) */
static void scalar_pval(pval *v, kg_dtype dt, double f, int64_t i) {
  switch (dt) {
  case KG_BOOL: case KG_U8: v->u8 = (uint8_t)i; break;
  case KG_I8: v->i8 = (int8_t)i; break;
  case KG_I16: v->i16 = (int16_t)i; break;
  case KG_I32: v->i32 = (int32_t)i; break;
  case KG_I64: v->i64 = i; break;
  case KG_F64: v->f64 = f; break;
  default: v->f32 = (float)f; break;
  }
}

void kg_scalar_param(const DLTensor *t, kg_dtype dt, uint64_t *out) {
  pval v;
  memset(&v, 0, sizeof v);
  int64_t iv;
  double f = read_scalar(t, dt, &iv);
  scalar_pval(&v, dt, f, iv);
  memcpy(out, &v, sizeof *out);
}

_Static_assert(KG_FORCE_STRIDED == (int)KG_SCHED_STRIDED && KG_FORCE_STRIDED_I64 == (int)KG_SCHED_STRIDED_I64 &&
                   KG_FORCE_NO_VECTORS == (int)KG_SCHED_NO_VECTORS && KG_FORCE_SPLIT_ROWS == (int)KG_SCHED_SPLIT_ROWS,
               "kg_force_variant (kgen.h) passes through as kg_sched_force (passes.h)");

/* What the scheduler plans for on device dev: the CPU device's cores, a CUDA device's GPU, else
 * (the emulator) an H100 or, with kg_options.emu_arch = 80, an A100 (on a CUDA device emu_arch 80
 * only keeps the Hopper tier out). */
static kg_target run_target(const kg_context *ctx, const kg_device *dev) {
  if (dev && dev->vt->kind == KG_DEVICE_CPU) return ctx->cpu_target;
  kg_target t = ctx->opts.emu_arch == 80 ? kg_target_a100 : kg_target_h100;
  if (dev && dev->vt->kind == KG_DEVICE_CUDA) kg_dev_cuda_target(dev, &t);
  if (!dev || !dev->vt->tmap) t.wgmma = false; /* no tensor maps on this device */
  if (ctx->opts.emu_arch == 80) t.wgmma = false; /* sm_80's tiers asked for: on a GPU too (to measure them on sm_90) */
  return t;
}

/* Every fused attention of c at this run's sizes small enough for the math path's score matrix
 * on the CPU device (kg_schedule_unfuse_attention) */
static bool attention_unfuses(const kg_compiled *c, const binding *B) {
  for (uint32_t i = 0; c->unfold_attn && i < c->lg.nodes.n; i++) {
    const kg_gnode *n = &c->lg.nodes.v[i], *k = NULL;
    if (n->op != KG_OP_ATTN) continue;
    k = &c->lg.nodes.v[n->in[1]];
    int64_t scores = kg_exec_dim(B, &k->shape.d[k->shape.rank - ((n->ia[0] & 32) ? 1 : 2)]);
    for (int d = 0; d < n->shape.rank - 1; d++)
      if (__builtin_mul_overflow(scores, kg_exec_dim(B, &n->shape.d[d]), &scores)) return false;
    if (!kg_schedule_unfuse_attention(scores)) return false;
  }
  return true;
}

/* The plan of this run (runtime/exec_plans.c): the split-rows plan (c->fusion_split, 1) when the
 * scheduler wants it for a group of the fused plan (few rows too long for a block each;
 * force_variant 4 always takes it); else, on the CPU device, the unfold plan (3) when a folded
 * product is too big for a serial dot per output or the entry has a fused attention; else the fold plan (2) when every product
 * kept tiled only for its symbolic sizes is small at this run's sizes (and, on the CPU device,
 * none too big for a serial dot); else the merge plan (4) when the products it merged have few rows
 * at this run's sizes; else the fused plan (0). */
static int choose_plan(kg_compiled *c, const binding *B, const kg_target *T) {
  const kg_context *ctx = c->m->ctx;
  if (ctx->opts.force_variant == KG_FORCE_SPLIT_ROWS) return 1;
  for (uint32_t gi = 0; gi < c->fusion.groups.n; gi++) {
    const kg_group *grp = &c->fusion.groups.v[gi];
    int64_t space[KG_MAX_RANK];
    for (int i = 0; i < grp->space.rank; i++) space[i] = kg_exec_dim(B, &grp->space.d[i]);
    if (kg_schedule_split_rows(&c->gfacts[gi], space, (kg_sched_force)ctx->opts.force_variant, T)) return 1;
  }
  if (T->cpu_cores > 0 && !c->pkg && kg_compiled_wants_unfold(c) && attention_unfuses(c, B)) return 3;
  if (!c->n_fold_cand) return kg_compiled_few_rows_plan(c, B->sym, T);
  for (uint32_t i = 0; i < c->n_fold_cand; i++) {
    const kg_gnode *P = &c->lg.nodes.v[c->fold_cand[i]], *A = &c->lg.nodes.v[P->in[0]];
    int64_t numel = 1;
    for (int d = 0; d < P->shape.rank; d++) numel *= kg_exec_dim(B, &P->shape.d[d]);
    int64_t k = kg_exec_dim(B, &A->shape.d[A->shape.rank - 1]);
    if (!kg_fold_small(k, numel)) return kg_compiled_few_rows_plan(c, B->sym, T);
    if (T->cpu_cores > 0 && kg_schedule_unfold(numel, k)) return 0; /* the CPU device: better as a product kernel */
    if (P->ia[2] && k == 0 && numel) return kg_compiled_few_rows_plan(c, B->sym, T); /* an integer addmm's K = 0: the fused plan raises PyTorch's error */
  }
  return 2;
}


bool kg_run_bytes(const int64_t *shape, int rank, kg_dtype dt, size_t *bytes) {
  size_t n = kg_dtype_get(dt)->size;
  for (int i = 0; i < rank; i++)
    if (shape[i] < 0 || __builtin_mul_overflow(n, (size_t)shape[i], &n)) return false;
  *bytes = n;
  return true;
}

kg_status kg_run_too_large(kg_diag *d, uint32_t mark, const kg_gnode *n, const int64_t *shape, int rank, const char *what) {
  kg_diag_truncate(d, mark);
  kg_strbuf b;
  kg_sb_init(&b);
  for (int i = 0; i < rank; i++) kg_sb_printf(&b, "%s%lld", i ? ", " : "", (long long)shape[i]);
  kg_diag_add(d, KG_E_LIMIT, n->path, n->srcloc, "%s of %s, shape [%s] (%s), is too large to allocate on the device: the sizes of this run are too large",
              what, kg_op_get((kg_op)n->op)->name, kg_sb_cstr(&b), kg_dtype_name((kg_dtype)n->dtype));
  kg_sb_free(&b);
  return KG_ERR_INPUT;
}

/* Buffers of one run: from the host plan's pool when the run is a step of a plan,
 * else stream-ordered on a caller's stream where the device can. */
static int dev_alloc(kg_context *ctx, kg_device *dev, kg_pool *pool, size_t bytes, void *stream, void **p, kg_diag *d) {
  if (pool) return kg_pool_get(pool, bytes, p, d);
  ctx->stats.device_allocs++;
  return stream && dev->vt->alloc_async ? dev->vt->alloc_async(dev, bytes, stream, p, d) : dev->vt->alloc(dev, bytes, p, d);
}
static void dev_free(kg_device *dev, kg_pool *pool, void *p, void *stream) {
  if (pool) kg_pool_put(pool, p);
  else if (stream && dev->vt->free_async) dev->vt->free_async(dev, p, stream);
  else dev->vt->free(dev, p);
}

/* Builds (on first use) and loads variant v of group gi (kv when the caller looked it up
 * already), marshals its parameters as cuLaunchKernel expects and launches it. */
static kg_status launch_variant(kg_compiled *c, const launch_env *E, uint32_t gi, const kg_variant *v, kg_kvariant *kv) {
  kg_diag *d = E->d;
  kg_device *dev = E->dev;
  int slot = E->slot, r = E->r;
  if (!kv) kv = kg_compiled_variant(c, gi, v, d);
  if (!kv) return KG_ERR_INTERNAL;
  if (!kv->mod[slot]) {
    kg_rt_source src = {c->g.entry, kv->cuda, kv->trampolines, kv->cpu, kv->cpu_pre, kv->k.sm90a};
    if ((c->pkg ? kg_pkg_variant_load(c, kv, dev, d) : dev->vt->load(dev, &src, &kv->mod[slot], d)) != 0) return KG_ERR_INTERNAL;
  }
#define TENSOR_OF(r0, r1) ((r0) == KG_BUF_TEMP ? (const DLTensor *)&E->tview[r1] : (r0) == KG_BUF_OUTPUT ? (const DLTensor *)E->outputs[r1] : E->pt[r1])
  const kg_kernel *k = &kv->k;
  pval vbuf[64];
  void *pbuf[64];
  bool heap = k->params.n > 64;
  pval *vals = heap ? kg_xcalloc(k->params.n + 1, sizeof *vals) : vbuf;
  if (!heap) memset(vbuf, 0, k->params.n * sizeof *vbuf); /* whole 8-byte values: a replay compares them */
  void **params = heap ? kg_xcalloc(k->params.n + 1, sizeof *params) : pbuf;
  kg_dtype ix = (kg_dtype)k->index_dtype;
  _Alignas(64) unsigned char tmbuf[4][128]; /* tensor maps (KP_TMAP, by value) */
  uint32_t ntm = 0;
  /* the column schedules: blocks (per chunk), a thread taking elems_per_thread neighbouring outputs */
  uint64_t nb = kg_launch_column_blocks(&k->launch, (uint64_t)E->nout);
  for (uint32_t j = 0; j < k->params.n; j++) {
    const kg_kparam *kp = &k->params.v[j];
    switch (kp->role) {
    case KPR_TENSOR:
      if (kp->r0 == KG_BUF_SCRATCH && !E->scratch) { /* a split kernel launched outside its split (a package's plan can say so) */
        kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "kernel %s reads a scratch buffer its launch did not allocate", k->name);
        if (heap) free(vals), free(params);
        return KG_ERR_INTERNAL;
      }
      vals[j].p = kp->r0 == KG_BUF_SCRATCH ? E->scratch : kg_exec_data(TENSOR_OF(kp->r0, kp->r1));
      break;
    case KPR_NUMEL: scalar_pval(&vals[j], ix, 0, E->reduce ? E->nout : E->numel); break;
    case KPR_RED_N: scalar_pval(&vals[j], ix, 0, E->nred); break;
    case KPR_SPLIT_LEN: scalar_pval(&vals[j], ix, 0, E->chunk); break;
    case KPR_SPLIT_N: scalar_pval(&vals[j], ix, 0, E->nchunk); break;
    case KPR_SPLIT_NB: scalar_pval(&vals[j], ix, 0, (int64_t)nb); break;
    case KPR_SIZE: scalar_pval(&vals[j], ix, 0, E->space[kp->r1]); break;
    case KPR_SYM: scalar_pval(&vals[j], ix, 0, E->sym[kp->r0]); break;
    case KPR_RNG: scalar_pval(&vals[j], KG_I64, 0, (int64_t)(kp->r0 ? E->rng_offset : E->rng_seed)); break;
    case KPR_KEPT: scalar_pval(&vals[j], KG_I32, 0, E->keep_mode); break;
    case KPR_TMAP: {
      const kg_ktmap *tm = &k->tmaps.v[kp->r0];
      kg_tmap_req req;
      if (ntm >= 4 || !dev->vt->tmap || !kg_tmap_request(tm, TENSOR_OF(tm->owner, tm->index), &req, d) ||
          dev->vt->tmap(dev, kv->mod[slot], &req, tmbuf[ntm], d) != 0) {
        if (!dev->vt->tmap) kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "the %s device makes no tensor maps (kernel %s)", dev->vt->name, k->name);
        if (heap) free(vals), free(params);
        return KG_ERR_INTERNAL;
      }
      params[j] = tmbuf[ntm++];
      continue;
    }
    case KPR_STRIDE: {
      /* r0: bit 31 an output, bit 30 a temporary, else an entry parameter;
       * bit 29: r1 is the tensor's own dim (else a dim of the space, right-aligned) */
      uint32_t idx = kp->r0 & 0x1fffffffu;
      const DLTensor *t = (kp->r0 & 0x80000000u) ? E->outputs[idx] : (kp->r0 & 0x40000000u) ? &E->tview[idx] : E->pt[idx];
      int64_t s = 0;
      if (kp->r0 & 0x20000000u) {
        /* a size-1 dim is either indexed at 0 only or broadcast: stride 0 is right for both */
        if ((int)kp->r1 < t->ndim && t->shape[kp->r1] != 1) s = kg_dl_stride(t, (int)kp->r1);
      } else {
        int jd = (int)kp->r1 - (r - t->ndim);
        if (jd >= 0 && !(t->shape[jd] == 1 && E->space[kp->r1] != 1)) s = kg_dl_stride(t, jd);
      }
      scalar_pval(&vals[j], ix, 0, s);
      break;
    }
    case KPR_SCALAR: {
      int64_t iv;
      double f = read_scalar(E->pt[kp->r1], (kg_dtype)kp->dtype, &iv);
      scalar_pval(&vals[j], (kg_dtype)kp->dtype, f, iv);
      break;
    }
    }
    params[j] = &vals[j];
  }
#undef TENSOR_OF
  uint64_t gx = kg_launch_blocks_x(&k->launch, (uint64_t)E->nout, (uint64_t)E->numel, (uint64_t)E->mm_n);
  uint64_t gy = 1, gz = 1;
  if (k->launch.per_output == KG_LAUNCH_TILES) { /* the kernel strides over row tiles and batches past 65535 */
    gy = ((uint64_t)E->mm_m + k->launch.tile_m - 1) / k->launch.tile_m, gz = (uint64_t)E->mm_batch;
    if (E->gy_cap && gy > E->gy_cap) gy = E->gy_cap;
    if (gy > 65535) gy = 65535;
    if (gz > 65535) gz = 65535;
  }
  if (v->split == KG_SPLIT_PARTIAL) gx *= (uint64_t)E->nchunk;
  kg_status st = KG_OK;
  if (gx > 0x7fffffffu) {
    kg_diag_add(d, KG_E_LIMIT, NULL, NULL, "%lld elements need %llu blocks, above the grid limit", (long long)E->numel, (unsigned long long)gx);
    st = KG_ERR_INPUT;
  } else {
    uint32_t grid[3] = {(uint32_t)gx, (uint32_t)gy, (uint32_t)gz}, block[3] = {k->launch.block[0], k->launch.block[1], k->launch.block[2]};
    if (k->launch.per_output == KG_LAUNCH_BLOCK_PER_OUTPUT) block[0] = E->row_threads; /* the kernels read blockDim */
    c->m->ctx->stats.launches++;
    /* the launch's work, for the CPU device's workers: elements, reduced elements, or the
     * multiply-adds — a sixteenth of them for the tiled products (16-wide FMAs from registers
     * against a pointwise element's loads, op and store): a 16 x 64 x 172 product (an MLP's at
     * batch 2 x 8) is a few microseconds on one core, less than waking a worker costs beside
     * libtorch's threads in a .NET process; the direct convolutions' taps are loads each */
    uint64_t macs = E->mm ? (uint64_t)E->mm_batch * (uint64_t)E->mm_m * (uint64_t)E->mm_n * (uint64_t)(E->nred > 0 ? E->nred : 1) : 0;
    dev->work = E->mm ? (v->mm_tile == KG_MM_DIRECT ? macs : macs / 16)
                : E->reduce ? (uint64_t)E->nout * (uint64_t)(E->nred > 0 ? E->nred : 1)
                            : (uint64_t)E->numel;
    dev->n_params = k->params.n;
    if (E->rec) kg_replay_add(E->rec, k, kv->mod[slot], grid, block, k->launch.smem_dyn, dev->work, params, E->pt, E->outputs);
    if (dev->vt->launch(dev, kv->mod[slot], k->name, grid, block, k->launch.smem_dyn, params, E->stream, d) != 0) st = KG_ERR_INTERNAL;
  }
  if (heap) free(vals), free(params);
  return st;
}

static kg_status run_entry(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                           const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream) {
  return c->plan ? kg_plan_run(c, devk, inputs, n_inputs, captures, n_captures, outputs, n_outputs, stream)
                 : kg_run_program(c, devk, inputs, n_inputs, captures, n_captures, outputs, n_outputs, stream, NULL);
}

/* An entry that updates inputs or captures in place (kg_gparam.wb): its write-back values are
 * computed into buffers of their own (C-contiguous, the parameter's shape and dtype) as extra
 * outputs, then copied into the caller's tensors (any strides) by the copy programs once every
 * kernel that reads the old values has run. In stream order on a caller's stream. With replay
 * on, the buffers come from a pool the entry keeps (c->wb_pool) while calls stay on one device
 * and stream, as a plan's: a repeated call (a training step) allocates nothing, and a replay
 * finds them at the same addresses. */
static kg_status run_writebacks(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                                const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs,
                                void *stream) {
  kg_context *ctx = c->m->ctx;
  kg_diag *d = &ctx->diag;
  const kg_graph *g = &c->g;
  uint32_t nres = kg_graph_n_results(g), nall = g->outputs.n;
  if ((uint32_t)n_outputs != nres) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "entry '%s' has %u output(s), %d given", g->entry, nres, n_outputs);
    return KG_ERR_INPUT;
  }
  if ((uint32_t)n_inputs != g->n_entry_params) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "entry '%s' takes %u input(s), %d given", g->entry, g->n_entry_params, n_inputs);
    return KG_ERR_INPUT;
  }
  kg_device *dev = kg_ctx_device(ctx, devk, d);
  if (!dev) return KG_ERR_INTERNAL;
  bool host = kg_dev_host_memory(dev);
  kg_pool *wpool = NULL;
  if (!ctx->no_replay) { /* released on another device or stream, or once it holds buffers of many sizes */
    kg_pool *wp = &c->wb_pool;
    if (wp->dev && (wp->dev != dev || wp->stream != stream || wp->bufs.n > 2 * (nall - nres))) kg_pool_release(wp);
    wp->ctx = ctx, wp->dev = dev, wp->stream = stream;
    wpool = wp;
  }
  DLTensor **all = kg_xcalloc(nall + 1, sizeof *all);
  DLTensor *tmp = kg_xcalloc(nall + 1, sizeof *tmp);
  DLTensor **dst = kg_xcalloc(nall + 1, sizeof *dst);
  void **buf = kg_xcalloc(nall + 1, sizeof *buf);
  for (uint32_t o = 0; o < nres; o++) all[o] = outputs[o];
  kg_status st = KG_OK;
  for (uint32_t p = 0; p < g->params.n && st == KG_OK; p++) {
    const kg_gparam *gp = &g->params.v[p];
    if (!gp->wb) continue;
    uint32_t o = gp->wb - 1;
    const DLTensor *t = NULL;
    if (!gp->is_capture) t = inputs[p];
    else
      for (int j = 0; j < n_captures; j++)
        if (captures[j].name && !strcmp(captures[j].name, gp->name)) t = captures[j].t;
    if (!t) { /* kg_run_program names what is missing */
      all[o] = &tmp[o];
      continue;
    }
    size_t cnt = 1, es = ((size_t)t->dtype.bits * t->dtype.lanes + 7) / 8;
    for (int i = 0; i < t->ndim; i++) cnt *= t->shape[i] > 0 ? (size_t)t->shape[i] : 0;
    if (dev_alloc(ctx, dev, wpool, cnt * es > 0 ? cnt * es : 1, stream, &buf[o], d) != 0) { st = KG_ERR_INTERNAL; break; }
    tmp[o] = *t;
    tmp[o].data = buf[o], tmp[o].byte_offset = 0, tmp[o].strides = NULL;
    tmp[o].device.device_type = host ? kDLCPU : kDLCUDA;
    all[o] = &tmp[o];
    dst[o] = (DLTensor *)(uintptr_t)t; /* the caller's tensor: kg_run writes it, as PyTorch's in-place op does */
  }
  if (st == KG_OK) st = run_entry(c, devk, inputs, n_inputs, captures, n_captures, all, (int)nall, stream);
  for (uint32_t o = nres; o < nall && st == KG_OK; o++) {
    if (!dst[o]) continue;
    const DLTensor *src[1] = {&tmp[o]};
    st = kg_run_program(c->copies[o], devk, src, 1, NULL, 0, &dst[o], 1, stream, NULL);
  }
  if (stream && !dev->vt->free_async && dev->vt->sync && dev->vt->sync(dev, stream, d) != 0 && st == KG_OK) st = KG_ERR_INTERNAL;
  for (uint32_t o = nres; o < nall; o++)
    if (buf[o]) dev_free(dev, wpool, buf[o], stream);
  free(all), free(tmp), free(dst), free(buf);
  return st;
}

static kg_status run_locked(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                 const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream);
kg_status kg_run(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                 const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream) {
  kg_context *lk = c->m->ctx;
  kg_ctx_lock(lk);
  kg_status s = run_locked(c, devk, inputs, n_inputs, captures, n_captures, outputs, n_outputs, stream);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status run_locked(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                 const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream) {
  kg_context *ctx = c->m->ctx;
  kg_call_begin(ctx);
  memset(&ctx->stats, 0, sizeof ctx->stats);
  /* the generator: this call draws at (seed, offset + stream); the next call at later offsets (a
   * pinned entry — a backward redrawing its forward's dropout masks — at its own state) */
  if (c->rng_pinned) {
    ctx->rng_call_seed = c->rng_pin_seed, ctx->rng_call_offset = c->rng_pin_offset;
  } else {
    ctx->rng_call_seed = ctx->rng_seed, ctx->rng_call_offset = ctx->rng_offset;
    ctx->rng_offset += (uint64_t)kg_compiled_rng_streams(c);
  }
  c->rng_last_seed = ctx->rng_call_seed, c->rng_last_offset = ctx->rng_call_offset;
  kg_status st = kg_graph_n_results(&c->g) < c->g.outputs.n
                     ? run_writebacks(c, devk, inputs, n_inputs, captures, n_captures, outputs, n_outputs, stream)
                     : run_entry(c, devk, inputs, n_inputs, captures, n_captures, outputs, n_outputs, stream);
  c->stats = ctx->stats;
  if (st != KG_OK || ctx->diag.n) return kg_fail(ctx);
  return KG_OK;
}

static kg_status run_stats_get_locked(const kg_compiled *c, kg_run_stats *out);
kg_status kg_run_stats_get(const kg_compiled *c, kg_run_stats *out) {
  kg_context *lk = c->m->ctx;
  kg_ctx_lock(lk);
  kg_status s = run_stats_get_locked(c, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status run_stats_get_locked(const kg_compiled *c, kg_run_stats *out) {
  *out = c->stats;
  return KG_OK;
}

/* n zeroed elements of `size` bytes from the stack block, else from the heap (at most 8
 * heap blocks per run; they are freed at its end) */
static void *scratch(unsigned char *mem, size_t cap, size_t *used, void **heap, int *nheap, size_t n, size_t size) {
  size_t bytes = (n * size + 15) & ~(size_t)15;
  if (*used + bytes <= cap) {
    void *p = mem + *used;
    *used += bytes;
    memset(p, 0, bytes);
    return p;
  }
  KG_ASSERT(*nheap < 8);
  return heap[(*nheap)++] = kg_xcalloc(n, size);
}

/* Placement: the emulator reads host memory; CUDA reads device memory, except scalar
 * parameters, whose value is read on the host at launch. */
static bool check_placement(kg_context *ctx, const kg_graph *g, const DLTensor **pt, DLTensor *const *outputs, bool host) {
  kg_diag *d = &ctx->diag;
  for (uint32_t p = 0; p < g->params.n + g->outputs.n; p++) {
    bool is_out = p >= g->params.n;
    const DLTensor *t = is_out ? outputs[p - g->params.n] : pt[p];
    bool scalar = !is_out && g->nodes.v[g->params.v[p].node].vkind == KG_V_SCALAR;
    int dt = t->device.device_type;
    bool on_gpu = dt == kDLCUDA || dt == kDLCUDAManaged;
    const char *nm = is_out ? "an output" : g->params.v[p].name;
    const char *q = is_out ? "" : "'";
    if (scalar && dt == kDLCUDA) {
      kg_diag_add(d, KG_E_ARG, NULL, NULL, "scalar parameter '%s' must be a 0-dim tensor in host memory (it is read at launch)", nm);
      return false;
    } else if (!scalar && host && dt == kDLCUDA) {
      kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s%s%s is in CUDA memory, but this run is on the CPU emulator", q, nm, q);
      return false;
    } else if (!scalar && !host && dt == kDLCUDA && t->device.device_id != ctx->opts.cuda_device) {
      kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s%s%s is on CUDA device %d, but this context runs on device %d (kg_options.cuda_device)", q,
                  nm, q, t->device.device_id, ctx->opts.cuda_device);
      return false;
    } else if (!scalar && !host && !on_gpu && dt != kDLCUDAHost) {
      kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s%s%s is in host memory, but this run is on the CUDA device (pass device pointers)", q, nm, q);
      return false;
    }
  }
  return true;
}

kg_status kg_run_program(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                         const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream,
                         kg_pool *pool) {
  kg_context *ctx = c->m->ctx;
  kg_diag *d = &ctx->diag;
  const kg_graph *g = &c->lg; /* the lowering program: same parameters and outputs as c->g */
  if ((uint32_t)n_inputs != g->n_entry_params) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "entry '%s' takes %u input(s), %d given", g->entry, g->n_entry_params, n_inputs);
    return KG_ERR_INPUT;
  }
  if ((uint32_t)n_outputs != g->outputs.n) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "entry '%s' has %u output(s), %d given", g->entry, g->outputs.n, n_outputs);
    return KG_ERR_INPUT;
  }
  /* a run of a size pattern recorded before replays its launches (replay.c); else this run
   * records them, its temporaries from the record's pool (kept for the replays) */
  kg_replay_rec *rec = NULL;
  kg_status rst;
  if (kg_replay_run(c, devk, inputs, captures, n_captures, outputs, stream, pool != NULL, &rst, &rec)) return rst;
  kg_pool *tpool = rec ? kg_replay_pool(rec) : pool;
  /* the run's small tables come from one stack block when they fit (a host plan runs
   * programs many times per run: no malloc per step) */
  _Alignas(16) unsigned char stackmem[4096];
  size_t used = 0;
  void *heap[8];
  int nheap = 0;
#define SCRATCH(n, size) scratch(stackmem, sizeof stackmem, &used, heap, &nheap, (size_t)(n), (size_t)(size))
  binding B;
  B.sym = SCRATCH(g->syms.n + 1, sizeof *B.sym);
  B.bound = SCRATCH(g->syms.n + 1, 1);
  const DLTensor **pt = SCRATCH(g->params.n + 1, sizeof *pt);
  kg_status st = KG_OK;
  for (uint32_t p = 0; p < g->params.n && st == KG_OK; p++) {
    const kg_gparam *gp = &g->params.v[p];
    bwhat wh = {gp->is_capture ? 1 : 0, p, gp->name};
    if (!gp->is_capture) {
      pt[p] = inputs[p];
    } else {
      for (int j = 0; j < n_captures; j++)
        if (captures[j].name && strcmp(captures[j].name, gp->name) == 0) pt[p] = captures[j].t;
    }
    if (!kg_bind_tensor(ctx, g, &B, &g->nodes.v[gp->node], pt[p], &wh)) st = KG_ERR_INPUT;
  }
  if (st == KG_OK && !kg_check_guards(ctx, g, &B)) st = KG_ERR_INPUT;
  for (uint32_t o = 0; o < g->outputs.n && st == KG_OK; o++) {
    bwhat wh = {2, o, NULL};
    if (!kg_bind_tensor(ctx, g, &B, &g->nodes.v[g->outputs.v[o]], outputs[o], &wh)) st = KG_ERR_INPUT;
  }
  if (st == KG_OK && g->symdefs.n && !kg_bind_derived(ctx, g, &B)) st = KG_ERR_INPUT; /* sizes only an output carries */
  kg_device *dev = NULL;
  if (st == KG_OK) {
    dev = kg_ctx_device(ctx, devk, d);
    if (!dev) st = KG_ERR_INTERNAL;
  }
  int slot = dev ? kg_dev_slot(dev) : 0;
  bool host = !dev || kg_dev_host_memory(dev);
  if (st == KG_OK && dev && !check_placement(ctx, g, pt, outputs, host)) st = KG_ERR_INPUT;
  if (st == KG_OK && c->pkg && dev->vt->kind == KG_DEVICE_CPU) { /* a package holds GPU schedules only */
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "entry '%s' comes from a kernel package, whose kernels are scheduled for a GPU: run it on CUDA or the emulator (device emu), or load the document for the CPU device", g->entry);
    st = KG_ERR_INPUT;
  }
  /* the plan: the fused one, unless one of its row groups has rows too few and too long
   * for a block each, which only the split-rows plan spreads over the whole GPU */
  kg_target tgt = run_target(ctx, dev);
  const kg_target *T = &tgt;
  int plan = st == KG_OK ? choose_plan(c, &B, T) : 0;
  if (plan && !kg_compiled_build_plan(c, plan, d)) st = KG_ERR_INTERNAL;
  if (st != KG_OK) plan = 0;
  kg_plan_view pv = kg_compiled_plan(c, plan);
  g = pv.lg; /* the plan's program from here (the unfold plan's may be lowered again: exec_plans.c) */
  const kg_fusion *F = pv.F;
  const kg_kernel *DK = pv.kernels;
  const kg_group_facts *GF = pv.facts;
  /* temporaries: reductions later kernels read, C-contiguous, allocated per run */
  uint32_t nt = F->temps.n;
  void **tbuf = SCRATCH(nt + 1, sizeof *tbuf);
  DLTensor *tview = SCRATCH(nt + 1, sizeof *tview);
  int64_t *tshape = SCRATCH(((size_t)nt + 1) * KG_MAX_RANK, sizeof *tshape);
  for (uint32_t t = 0; t < nt && st == KG_OK; t++) {
    const kg_gnode *n = &g->nodes.v[F->temps.v[t]];
    for (int i = 0; i < n->shape.rank; i++) tshape[t * KG_MAX_RANK + i] = kg_exec_dim(&B, &n->shape.d[i]);
    size_t bytes = 0;
    uint32_t mark = d->n;
    if (!kg_run_bytes(&tshape[t * KG_MAX_RANK], n->shape.rank, (kg_dtype)n->dtype, &bytes) ||
        dev_alloc(ctx, dev, tpool, bytes ? bytes : 1, stream, &tbuf[t], d) != 0) {
      tbuf[t] = NULL;
      st = kg_run_too_large(d, mark, n, &tshape[t * KG_MAX_RANK], n->shape.rank, "the value");
      break;
    }
    tview[t].data = tbuf[t];
    tview[t].device.device_type = host ? kDLCPU : kDLCUDA;
    tview[t].ndim = n->shape.rank;
    tview[t].shape = &tshape[t * KG_MAX_RANK];
    tview[t].dtype = kg_dtype_to_dl((kg_dtype)n->dtype);
  }
#define TENSOR_OF(r0, r1) ((r0) == KG_BUF_TEMP ? (const DLTensor *)&tview[r1] : (r0) == KG_BUF_OUTPUT ? (const DLTensor *)outputs[r1] : pt[r1])
  void **sbuf = SCRATCH(F->groups.n + 1, sizeof *sbuf); /* split reductions' scratch */
  launch_env E;
  memset(&E, 0, sizeof E);
  E.dev = dev, E.slot = slot, E.stream = stream, E.d = d, E.pt = pt, E.outputs = outputs, E.tview = tview;
  E.sym = B.sym;
  E.rng_seed = ctx->rng_call_seed, E.rng_offset = ctx->rng_call_offset;
  E.rec = rec;
  uint32_t n_scratch = 0;
  run_view RV = {ctx, g, F, DK, GF, &B, pt, outputs, tview, plan, T};
  bool prefetched = !dev || !dev->vt->prefetch || c->pkg;
  for (uint32_t gi = 0; gi < F->groups.n && st == KG_OK; gi++) {
    const kg_group *grp = &F->groups.v[gi];
    E.scratch = NULL; /* this group's, if it splits */
    kg_schedule sc;
    bool skip;
    st = kg_exec_group_choice(&RV, gi, &E, &sc, &skip, d);
    if (st != KG_OK) break;
    if (skip) continue;
    bool mm = E.mm;
    int64_t numel = E.numel, nout = E.nout, nred = E.nred;
    kg_variant v = sc.v;
    E.row_threads = sc.row_threads, E.gy_cap = 0;
    if (v.split) E.nchunk = sc.nchunk, E.chunk = sc.chunk;
    kg_kvariant *kv0 = NULL; /* v's kernel, when looked up here */
    if (!prefetched) { /* the first launch that would compile: start every compile of the run */
      kv0 = kg_compiled_variant(c, gi, &v, d);
      if (!kv0) { st = KG_ERR_INTERNAL; break; }
      if (!kv0->mod[slot]) kg_exec_prefetch(c, &RV, gi, dev, slot, E), prefetched = true;
    }
    if (mm && kg_mm_tile_cpu(v.mm_tile)) { /* the CPU schedule: a panel and a tile per thread (passes/lower_matmul_cpu.c) */
      bool conv = (g->nodes.v[grp->red].ia[0] & 8) != 0;
      if (v.mm_fold && conv) E.mm_n *= E.mm_batch, E.mm_batch = 1; /* a convolution's images folded into the columns */
      else if (v.mm_fold) E.mm_m *= E.mm_batch, E.mm_batch = 1;    /* the batch folded into the rows */
      kg_dtype acc = (kg_dtype)g->nodes.v[grp->red].cdtype;
      uint64_t NR = kg_mm_cpu_nr(v.mm_tile, acc), MC = kg_mm_tile_get((kg_mm_tile)v.mm_tile)->bm, MR = kg_mm_cpu_tile_rows(v.mm_tile);
      uint64_t NC = kg_mm_cpu_cols(v.mm_tile, acc), gx = ((uint64_t)E.mm_n + NC - 1) / NC, gy = ((uint64_t)E.mm_m + MC - 1) / MC;
      uint64_t gz = (uint64_t)E.mm_batch, threads, per, bytes;
      /* a convolution's panel is an im2col gather, packed once per thread: with few column tiles,
       * the fewest row chunks that give every core the same number of threads (each thread walks
       * several chunks: the kernel strides over them), not a thread per 64 rows packing the same
       * panel (ResNet-18's layer 4: 8 copies) */
      uint64_t cores = (uint64_t)(T->cpu_cores > 0 ? T->cpu_cores : 1), tiles; /* column tiles × batches: at least 1 here (numel > 0) */
      if (conv && !__builtin_mul_overflow(gx, gz, &tiles) && tiles > 0 && tiles < cores * 4) {
        uint64_t want = (cores + tiles - 1) / tiles;
        while (want < gy && tiles * want % cores) want++;
        if (gy > want) gy = E.gy_cap = want;
      }
      if (gy > 65535) gy = 65535;
      if (gz > 65535) gz = 65535;
      bool over = __builtin_mul_overflow(gx, gy, &threads) || __builtin_mul_overflow(threads, gz, &threads) ||
                  __builtin_mul_overflow((uint64_t)nred + MR, NR * kg_dtype_get(acc)->size, &per) || __builtin_mul_overflow(threads, per, &bytes);
      /* B's kept panels before the threads' regions (exec_keep.c): gx panels of K × NR */
      kg_kvariant *kv = kv0 ? kv0 : kg_compiled_variant(c, gi, &v, d);
      if (!kv) { st = KG_ERR_INTERNAL; break; }
      int32_t kj = kg_keep_param(&kv->k);
      uint64_t kept = 0;
      over = over || (kj >= 0 && (__builtin_mul_overflow(gx * NR, (uint64_t)nred * kg_dtype_get(acc)->size, &kept) || __builtin_add_overflow(bytes, kept, &bytes)));
      uint32_t mark = d->n;
      E.keep_mode = 0;
      if (over || (kj >= 0 ? kg_keep_scratch(ctx, dev, tpool, bytes ? bytes : 1, stream, pt[kv->k.params.v[kj].r1], &sbuf[gi], &E.keep_mode, d)
                           : dev_alloc(ctx, dev, tpool, bytes ? bytes : 1, stream, &sbuf[gi], d)) != 0) {
        int64_t sh[3] = {(int64_t)threads, nred + (int64_t)MR, (int64_t)NR};
        st = kg_run_too_large(d, mark, &g->nodes.v[grp->red], sh, 3, "the CPU schedule's panels");
        break;
      }
      E.scratch = sbuf[gi];
      n_scratch++;
      st = launch_variant(c, &E, gi, &v, kv);
    } else if (v.split) { /* two kernels over a scratch of chunk accumulators */
      int64_t S = E.nchunk;
      /* a split-K product: float32 partial products of every output element, per chunk */
      size_t bytes = mm ? (size_t)S * (size_t)numel * sizeof(float)
                        : (size_t)S * kg_split_slots(g, grp) * (size_t)nout * kg_dtype_get(kg_split_dtype(g, grp))->size;
      if (dev_alloc(ctx, dev, tpool, bytes, stream, &sbuf[gi], d) != 0) { st = KG_ERR_INTERNAL; break; }
      E.scratch = sbuf[gi];
      n_scratch++;
      kg_variant fin = v;
      fin.split = KG_SPLIT_FINISH, fin.layout = KG_LAYOUT_LINEAR;
      st = launch_variant(c, &E, gi, &v, kv0);
      if (st == KG_OK) st = launch_variant(c, &E, gi, &fin, NULL);
    } else {
      st = launch_variant(c, &E, gi, &v, kv0);
    }
  }
  /* Synchronous on the legacy stream (NULL). On a caller's stream the launches are
   * only enqueued, as an op on a TorchSharp stream would be (errors of the kernels
   * then surface at the caller's next synchronization); temporaries and scratch are
   * then allocated and freed in stream order, or, on a device without stream-ordered
   * allocation, the stream is synchronized before they are freed. */
  bool ordered = (stream && dev && dev->vt->alloc_async) || tpool; /* a pool (a plan's, a record's) is reused in stream order */
  if (st == KG_OK && dev && dev->vt->sync && ((!stream && !pool) || (!ordered && (nt > 0 || n_scratch > 0))) && dev->vt->sync(dev, stream, d) != 0)
    st = KG_ERR_INTERNAL;
#undef TENSOR_OF
  for (uint32_t t = 0; t < nt; t++)
    if (tbuf[t]) dev_free(dev, tpool, tbuf[t], stream);
  for (uint32_t gi = 0; gi < F->groups.n; gi++)
    if (sbuf[gi]) dev_free(dev, tpool, sbuf[gi], stream);
  for (int i = 0; i < nheap; i++) free(heap[i]);
#undef SCRATCH
  if (st == KG_OK && d->n) st = KG_ERR_INTERNAL;
  if (rec) kg_replay_end(c, rec, st == KG_OK);
  return st;
}
