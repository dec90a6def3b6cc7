/* runtime/exec_mm.c — what a run tells the scheduler about a matrix product's operands: which
 * tensor each is (an input or a stored value read as it is), whether K is its contiguous dim,
 * and whether cp.async or TMA can bring its rows (alignment, strides, collapsible batches; a
 * 1 × 1 convolution's input in NCHW or channels last). Split from exec.c, which runs the groups;
 * these facts are the tensor-core tiers' alone. */
#include <stdint.h>

#include "exec_int.h"

/* A matrix product's operand `which` (0 A, 1 B) as a tensor when the kernel reads it from memory
 * as it is (an input, or a value an earlier kernel stored), else NULL. */
static const DLTensor *tensor_of(const kg_graph *g, const kg_fusion *F, uint32_t id, const DLTensor **pt, DLTensor *const *outputs,
                                  const DLTensor *tview) {
  if (g->nodes.v[id].op == KG_OP_INPUT) {
    for (uint32_t p = 0; p < g->params.n; p++)
      if (g->params.v[p].node == id) return pt[p];
    return NULL;
  }
  uint32_t mi = kg_fusion_mat_index(F, id);
  if (mi == KG_NONE) return NULL;
  kg_bufref b = F->mat_buf.v[mi];
  return b.kind == KG_BUF_TEMP ? &tview[b.index] : b.kind == KG_BUF_OUTPUT ? outputs[b.index] : NULL;
}

const DLTensor *kg_mm_operand(const kg_graph *g, const kg_fusion *F, const kg_group *grp, int which, const DLTensor **pt,
                                  DLTensor *const *outputs, const DLTensor *tview) {
  uint32_t id = g->nodes.v[grp->red].in[which];
  if (g->nodes.v[id].op == KG_OP_IM2COL) id = g->nodes.v[id].in[0]; /* a 1 × 1 convolution's input (mm_b_direct) */
  return tensor_of(g, F, id, pt, outputs, tview);
}

void kg_mm_concat_facts(const kg_graph *g, const kg_fusion *F, const kg_group *grp, const DLTensor **pt, DLTensor *const *outputs,
                        const DLTensor *tview, const int64_t *space, int rank, kg_sched_facts *x) {
  const kg_gnode *mm = &g->nodes.v[grp->red];
  if (!kg_mm_cat_of_sources(g, F, mm, mm->in[1])) return;
  const kg_gnode *cat = &g->nodes.v[mm->in[1]];
  int8_t km = -2; /* the tensors' agreed K-majority (-1: they differ or it is not known) */
  bool async = true;
  for (int j = 0; j < cat->n_in; j++) {
    const DLTensor *t = tensor_of(g, F, cat->in[j], pt, outputs, tview);
    if (!t) return;
    kg_sched_facts one = *x;
    kg_mm_operand_facts(t, 1, mm->ia[0], space, rank, &one);
    km = km == -2 || km == one.mm_kmajor[1] ? one.mm_kmajor[1] : -1;
    async = async && one.mm_async[1];
  }
  /* cp.async only K-major: a 16-byte chunk then lies in one row, so in one tensor */
  x->mm_kmajor[1] = km < 0 ? -1 : km, x->mm_async[1] = async && km == 1, x->mm_tma[1] = false;
}

/* The tensor-core tier's facts about a product's operands: is K their contiguous dim, and may
 * cp.async copy their rows (16-byte chunks along the contiguous dim: a 16-byte aligned base,
 * every other stride a multiple of 16 bytes). flags: the MATMUL's ia[0]. */
void kg_mm_operand_facts(const DLTensor *t, int which, int64_t flags, const int64_t *space, int rank, kg_sched_facts *x) {
  x->mm_kmajor[which] = -1, x->mm_async[which] = false, x->mm_tma[which] = false;
  if (t && which == 1 && (flags & 8) && t->ndim >= 3) {
    /* a 1 × 1 convolution's input [N, C, S...] as B (K = C, N = the spatial positions): either
     * each channel's spatial plane is contiguous (its dims collapse into one; NCHW), B's rows
     * along N, or the channels are (channels last, NHWC: the spatial dims collapse over C), B's
     * rows along K; cp.async when every row starts 16-byte aligned */
    size_t es = (size_t)((t->dtype.bits + 7) / 8);
    int64_t C = t->shape[1], plane = 1, cl = C;
    bool nchw = true, nhwc = C == 1 || kg_dl_stride(t, 1) == 1;
    for (int d = t->ndim - 1; d >= 2; d--) {
      if (t->shape[d] != 1 && kg_dl_stride(t, d) != plane) nchw = false;
      if (t->shape[d] != 1 && kg_dl_stride(t, d) != cl) nhwc = false;
      plane *= t->shape[d], cl *= t->shape[d];
    }
    bool km = !nchw && nhwc;
    bool ok = (nchw || nhwc) && (uintptr_t)kg_exec_data(t) % 16 == 0;
    if (km) ok = ok && ((size_t)C * es) % 16 == 0 && (t->shape[0] <= 1 || ((size_t)kg_dl_stride(t, 0) * es) % 16 == 0);
    else
      for (int d = 0; d < 2 && ok; d++)
        if (t->shape[d] > 1) ok = ((size_t)kg_dl_stride(t, d) * es) % 16 == 0;
    x->mm_kmajor[which] = km ? 1 : 0, x->mm_async[which] = ok;
    return;
  }
  if (!t || t->ndim < 2 || (flags & 8)) return;
  int kd = which == 0 || (flags & 4) ? t->ndim - 1 : t->ndim - 2, md = kd == t->ndim - 1 ? t->ndim - 2 : t->ndim - 1;
  int64_t sk = kg_dl_stride(t, kd), sm = kg_dl_stride(t, md);
  bool km = sk == 1 || t->shape[kd] == 1, mm = sm == 1 || t->shape[md] == 1;
  if (!km && !mm) return;
  x->mm_kmajor[which] = km ? 1 : 0;
  size_t es = (size_t)((t->dtype.bits + 7) / 8);
  uintptr_t a = (uintptr_t)kg_exec_data(t);
  bool ok = a % 16 == 0;
  for (int d = 0; d < t->ndim && ok; d++)
    if (d != (km ? kd : md) && t->shape[d] > 1) ok = ((size_t)kg_dl_stride(t, d) * es) % 16 == 0;
  x->mm_async[which] = ok;
  /* TMA: a matrix, or a batch of them whose dims are the product's and collapse into one */
  int nb = rank - 2, tb = t->ndim - 2;
  bool tma = ok && (tb == 0 || tb == nb);
  for (int d = 0; d < tb && tma; d++) {
    tma = t->shape[d] == space[d] && (d + 1 == tb || kg_dl_stride(t, d) == kg_dl_stride(t, d + 1) * t->shape[d + 1]);
    if (t->shape[d] > 1 && kg_dl_stride(t, d) == 0) tma = false;
  }
  for (int d = 0; d < t->ndim && tma; d++) tma = (uint64_t)t->shape[d] < (1ull << 32) && (uint64_t)kg_dl_stride(t, d) * es < (1ull << 40);
  x->mm_tma[which] = tma;
}

