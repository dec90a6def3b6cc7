/* runtime/exec_choose.c — what each group of a run runs, decided before its launch (exec.c
 * launches it), and a first run's compiles started at once.
 *
 * A group's choice: its iteration space at the run's sizes (symbols bound by exec_bind.c), the
 * checks only a run can make (the operands' K of a product, a maximum over nothing), the facts
 * of its tensors (contiguity, alignment, largest offset, row operands, a product's operand
 * layouts) and the scheduler's answer for them (passes/schedule.c).
 *
 * Compiles: the host devices build each kernel with the host C compiler, seconds for a CPU
 * product kernel. A first run would compile its kernels one after another as it reaches them;
 * instead, at the first launch whose kernel is not loaded, the choices of every later group are
 * made ahead and their compiles started together (kg_device.prefetch, a compiler per core:
 * runtime/hostcc.c), each launch then waiting for its own. GoogLeNet's first call on the CPU
 * device: its 62 kernels compiled two at a time on this 2-core machine.
 */
#include <string.h>

#include "exec_int.h"

/* t is C-contiguous with shape space */
static bool contiguous_as(const DLTensor *t, const int64_t *space, int r) {
  if (t->ndim != r) return false;
  for (int i = 0; i < r; i++)
    if (t->shape[i] != space[i]) return false;
  int64_t s = 1;
  for (int i = r - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && kg_dl_stride(t, i) != s) return false;
    s *= t->shape[i];
  }
  return true;
}

/* the largest element offset t's strides reach */
static int64_t max_offset(const DLTensor *t) {
  int64_t m = 0;
  for (int i = 0; i < t->ndim; i++) {
    int64_t s = kg_dl_stride(t, i);
    if (t->shape[i] > 0) m += (t->shape[i] - 1) * (s < 0 ? -s : s);
  }
  return m;
}

/* The facts the scheduler needs about one group in this run, from the tensors its default
 * kernel reads and writes (dk's parameters, by owner):
 * contiguity over the space, the largest offset, the widest element, the smallest address
 * alignment, and for each source of a row reduction its row stride, alignment and outer
 * strides (rowv: room for dk->params.n). */
static void run_facts(const kg_context *ctx, const kg_kernel *dk, const int64_t *space, int r, int64_t numel, const DLTensor **pt,
                      DLTensor *const *outputs, const DLTensor *tview, uint8_t plan, kg_row_operand *rowv, kg_sched_facts *x) {
  memset(x, 0, sizeof *x);
  x->runtime = true, x->contiguous = true, x->max_offset = numel, x->max_elem = 1, x->align = 64;
  memcpy(x->space, space, sizeof x->space);
  x->plan = plan, x->force = (kg_sched_force)ctx->opts.force_variant;
  x->reduce_block = ctx->reduce_block, x->row_cache = ctx->row_cache;
  x->f32_matmul = (uint8_t)ctx->opts.f32_matmul;
  x->mm_kmajor[0] = x->mm_kmajor[1] = -1;
  for (uint32_t j = 0; j < dk->params.n; j++) {
    const kg_kparam *kp = &dk->params.v[j];
    if (kp->role != KPR_TENSOR) continue;
    const DLTensor *t = kp->r0 == KG_BUF_TEMP ? &tview[kp->r1] : kp->r0 == KG_BUF_OUTPUT ? outputs[kp->r1] : pt[kp->r1];
    uint32_t sz = kg_dtype_get((kg_dtype)kp->dtype)->size;
    uintptr_t a = (uintptr_t)kg_exec_data(t);
    uint64_t al = a ? (a & (~a + 1)) : 64;
    if (al > 64) al = 64;
    if (!contiguous_as(t, space, r)) x->contiguous = false;
    int64_t mo = max_offset(t);
    if (mo > x->max_offset) x->max_offset = mo;
    if (sz > x->max_elem) x->max_elem = sz;
    if (al < x->align) x->align = al;
    if (kp->r0 == KG_BUF_OUTPUT) continue; /* outputs are not row sources */
    kg_row_operand *o = &rowv[x->n_row++];
    o->elem = sz, o->align = al;
    o->varies = r > 0 && t->ndim > 0 && t->shape[t->ndim - 1] == space[r - 1];
    o->inner_stride = t->ndim > 0 ? kg_dl_stride(t, t->ndim - 1) : 1;
    o->outer_stride_pow2 = 64;
    for (int dd = 0; dd + 1 < t->ndim; dd++) {
      int64_t sd = kg_dl_stride(t, dd);
      if (t->shape[dd] <= 1) continue;
      while (o->outer_stride_pow2 > 1 && sd % (int64_t)o->outer_stride_pow2 != 0) o->outer_stride_pow2 /= 2;
    }
  }
  x->row = rowv;
}

static kg_status skip_group(bool *skip) {
  *skip = true;
  return KG_OK;
}

kg_status kg_exec_group_choice(const run_view *V, uint32_t gi, launch_env *E, kg_schedule *sc, bool *skip, kg_diag *d) {
  const kg_graph *g = V->g;
  const kg_fusion *F = V->F;
  const DLTensor **pt = V->pt;
  DLTensor *const *outputs = V->outputs;
  const DLTensor *tview = V->tview;
  int plan = V->plan;
  const kg_group *grp = &F->groups.v[gi];
  kg_status st = KG_OK;
  *skip = false;
  bool mm = grp->kind == KG_GROUP_MATMUL, attn = grp->kind == KG_GROUP_ATTN;
  bool reduce = grp->kind != KG_GROUP_POINTWISE && !mm && !attn; /* reductions and scans */
  int r = grp->space.rank;
  int64_t space[KG_MAX_RANK], numel = 1, nout = 1, nred = 1;
  for (int i = 0; i < r; i++) {
    space[i] = kg_exec_dim(V->B, &grp->space.d[i]), numel *= space[i];
    if (reduce && ((g->nodes.v[grp->red].ia[0] >> i) & 1)) nred *= space[i];
    else nout *= space[i];
  }
  if (mm) {
    /* K of both operands (a symbol on one side is known only now), then M, N and the batch */
    const kg_gnode *P = &g->nodes.v[grp->red], *a = &g->nodes.v[P->in[0]], *b = &g->nodes.v[P->in[1]];
    int64_t ka = kg_exec_dim(V->B, &a->shape.d[a->shape.rank - 1]);
    int64_t kb = kg_exec_dim(V->B, &b->shape.d[(P->ia[0] & 8) ? 2 : (P->ia[0] & 2) ? 0 : (P->ia[0] & 4) ? b->shape.rank - 1 : b->shape.rank - 2]);
    if (ka != kb) {
      kg_diag_add(d, KG_E_SHAPE, P->path, P->srcloc, "mat1 and mat2 shapes cannot be multiplied: the first operand's inner size is %lld, the second's %lld",
                  (long long)ka, (long long)kb);
      return KG_ERR_INPUT;
    }
    if (ka == 0 && numel > 0 && P->ia[2]) { /* an integer addmm / baddbmm without columns: PyTorch's error */
      char msg[200];
      kg_addmm_k0_message((kg_dtype)P->dtype, P->ia[2] == 2, msg, sizeof msg);
      kg_diag_add(d, KG_E_TYPE, P->path, P->srcloc, "%s", msg);
      return KG_ERR_INPUT;
    }
    nred = ka;
    kg_mm_dims(r, space, P->ia[0], &E->mm_batch, &E->mm_m, &E->mm_n);
    if (numel == 0) return skip_group(skip);
  } else if (attn) {
    /* attention (passes/lower_attn.c): the keys S of key and value (a symbol on one side is
     * known only now); blocks over (query tiles, batch) as a product's tiles, Ev in one tile */
    const kg_gnode *P = &g->nodes.v[grp->red], *kk = &g->nodes.v[P->in[1]], *vv = &g->nodes.v[P->in[2]];
    /* k is [.., S, E], or kᵀ [.., E, S] for a recognized attention that reads it transposed (ia[0] & 32) */
    int64_t sk = kg_exec_dim(V->B, &kk->shape.d[kk->shape.rank - ((P->ia[0] & 32) ? 1 : 2)]), sv = kg_exec_dim(V->B, &vv->shape.d[vv->shape.rank - 2]);
    if (sk != sv) {
      kg_diag_add(d, KG_E_SHAPE, P->path, P->srcloc, "scaled_dot_product_attention(): key and value must have the same number of keys (dim -2), got %lld and %lld",
                  (long long)sk, (long long)sv);
      return KG_ERR_INPUT;
    }
    nred = sk;
    E->mm_batch = 1;
    for (int i = 0; i < r - 2; i++) E->mm_batch *= space[i];
    E->mm_m = space[r - 2], E->mm_n = space[r - 1];
    if (numel == 0) return skip_group(skip);
  } else if (reduce) {
    if (nout == 0) return skip_group(skip);
    /* the user's max / min / arg over nothing: PyTorch's error (a decomposed op's own max,
     * ia[2], has its identity; softmax of an empty dim is empty, found by kgen fuzz) */
    for (uint32_t j = 0; j < grp->reds.n && nred == 0 && st == KG_OK; j++) {
      const kg_gnode *R = &g->nodes.v[grp->reds.v[j]];
      kg_op rop = (kg_op)R->op;
      if ((rop == KG_OP_RAMAX || rop == KG_OP_RAMIN || rop == KG_OP_RARGMAX || rop == KG_OP_RARGMIN) && !R->ia[2]) {
        kg_diag_add(d, KG_E_SHAPE, R->path, R->srcloc, "%s(): Expected reduction dims to have non-zero size (the input has %lld elements)",
                    rop == KG_OP_RAMAX ? "amax" : rop == KG_OP_RAMIN ? "amin" : rop == KG_OP_RARGMAX ? "argmax" : "argmin", (long long)numel);
        st = KG_ERR_INPUT;
      }
    }
    if (st != KG_OK) return st;
  } else if (numel == 0) {
    return skip_group(skip);
  }
  /* ask the scheduler with the facts of this run */
  const kg_kernel *dk = &V->DK[gi];
  kg_row_operand rowbuf[32], *rowv = dk->params.n <= 32 ? rowbuf : kg_xcalloc(dk->params.n, sizeof *rowv);
  kg_sched_facts x;
  run_facts(V->ctx, dk, space, r, numel, pt, outputs, tview, (uint8_t)plan, rowv, &x);
  if (mm) {
    for (int w = 0; w < 2; w++) kg_mm_operand_facts(kg_mm_operand(g, F, grp, w, pt, outputs, tview), w, g->nodes.v[grp->red].ia[0], space, r, &x);
    kg_mm_concat_facts(g, F, grp, pt, outputs, tview, space, r, &x);
    x.mm_k = nred;
  }
  *sc = kg_schedule_choose(&V->GF[gi], &x, V->T);
  if (rowv != rowbuf) free(rowv);
  E->r = r, E->numel = numel, E->nout = nout, E->nred = nred, E->reduce = reduce, E->mm = mm;
  memcpy(E->space, space, sizeof space);
  return KG_OK;
}

/* A first run (the variant group `from` launches is not loaded yet): every kernel the run loads
 * from there on starts compiling now, a compiler per core (kg_device.prefetch), and each load
 * below waits for its own compile instead of running them one after another — GoogLeNet's 62
 * kernels on the CPU device. What it cannot choose or lower it leaves to the launch, which
 * reports it. */
void kg_exec_prefetch(kg_compiled *c, const run_view *R, uint32_t from, kg_device *dev, int slot, launch_env E) {
  kg_diag pd;
  kg_diag_init(&pd);
  for (uint32_t gi = from; gi < R->F->groups.n; gi++) {
    kg_schedule sc;
    bool skip = false;
    if (kg_exec_group_choice(R, gi, &E, &sc, &skip, &pd) != KG_OK) break;
    if (skip) continue;
    kg_variant vs[2] = {sc.v, sc.v};
    int nv = 1;
    if (sc.v.split) vs[1].split = KG_SPLIT_FINISH, vs[1].layout = KG_LAYOUT_LINEAR, nv = 2;
    for (int i = 0; i < nv; i++) {
      kg_kvariant *kv = kg_compiled_variant(c, gi, &vs[i], &pd);
      if (!kv || kv->mod[slot]) continue;
      kg_rt_source src = {c->g.entry, kv->cuda, kv->trampolines, kv->cpu, kv->cpu_pre, kv->k.sm90a};
      dev->vt->prefetch(dev, &src);
    }
  }
  kg_diag_free(&pd);
}

