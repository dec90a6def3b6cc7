/* runtime/exec_keep.c — when a CPU product reads its weight's panels packed earlier in the call.
 *
 * A product of the CPU target packs, per thread, a panel of B (K × 16) before its register
 * blocks (passes/lower_matmul_cpu.c). In a host plan's loop — an LSTM's or GRU's step, h @ W_hhᵀ
 * at a batch of 8 rows — B is the same weight at every iteration and its copy was half of the
 * step's product. Where B is an entry input or capture the loop reads (kg_gparam.invariant: one
 * tensor, unwritten while the call runs — write-backs follow every kernel), the kernel takes a
 * mode parameter (KPR_KEPT) and keeps B's panels at the start of its scratch:
 *   0  not kept (no pool to keep the scratch in: each thread packs its own panel, as always);
 *   2  pack them into the kept slots now (the first launch of the call, or the scratch moved);
 *   1  the scratch holds them: read, not packed.
 * Mode 1 needs the very buffer mode 2 filled, in the same call, for the same B. The scratch comes
 * from a pool (a plan's, or a replay record's, which keeps it from launch to launch); the pool's
 * entry remembers B — its address, dtype, shape and strides (two views of one buffer are two
 * weights) — and the call (kg_context.call_epoch, advanced by every public call: the caller may
 * change the weight between calls); any other use of the buffer (kg_pool_get) forgets it. A replayed launch asks the same of its recorded scratch (kg_keep_replay_mode). */
#include "api_int.h"

int32_t kg_keep_param(const kg_kernel *k) {
  for (uint32_t j = 0; j < k->params.n; j++)
    if (k->params.v[j].role == KPR_KEPT) return (int32_t)j;
  return -1;
}

static kg_pool_buf *buf_of(kg_pool *pl, const void *p) {
  for (uint32_t i = 0; i < pl->bufs.n; i++)
    if (pl->bufs.v[i].p == p) return &pl->bufs.v[i];
  return NULL;
}

/* B as the pool remembers it: a hash of what its panels are made from (never 0) */
static uint64_t tensor_key(const DLTensor *t) {
  const char *at = (const char *)t->data + t->byte_offset; /* where its elements start, however the view says it */
  uint64_t h = kg_hash64(&at, sizeof at, 0x6b657074u);
  h = kg_hash64(&t->dtype, sizeof t->dtype, h);
  for (int d = 0; d < t->ndim; d++) {
    int64_t e[2] = {t->shape[d], kg_dl_stride(t, d)};
    h = kg_hash64(e, sizeof e, h);
  }
  return h ? h : 1;
}

/* the buffer now holds b's panels of this call: 1 if it held them already, else 2 (and it does from now) */
static int mark(kg_context *ctx, kg_pool_buf *pb, uint64_t b) {
  if (pb->keep_b == b && pb->keep_epoch == ctx->call_epoch) {
    ctx->stats.panels_kept++;
    return 1;
  }
  pb->keep_b = b, pb->keep_epoch = ctx->call_epoch;
  return 2;
}

int kg_keep_scratch(kg_context *ctx, kg_device *dev, kg_pool *pool, size_t bytes, void *stream, const DLTensor *bt, void **p, int *mode, kg_diag *d) {
  if (!pool) {
    *mode = 0;
    ctx->stats.device_allocs++;
    return stream && dev->vt->alloc_async ? dev->vt->alloc_async(dev, bytes, stream, p, d) : dev->vt->alloc(dev, bytes, p, d);
  }
  uint64_t b = tensor_key(bt);
  for (uint32_t i = 0; i < pool->bufs.n; i++) {
    kg_pool_buf *pb = &pool->bufs.v[i];
    if (!pb->used && pb->bytes == bytes && pb->keep_b == b && pb->keep_epoch == ctx->call_epoch) {
      pb->used = true, pb->refs = 0, pool->last = i;
      *p = pb->p;
      *mode = mark(ctx, pb, b);
      return 0;
    }
  }
  int rc = kg_pool_get(pool, bytes, p, d);
  if (rc != 0) return rc;
  *mode = mark(ctx, buf_of(pool, *p), b);
  return 0;
}

int kg_keep_replay_mode(kg_context *ctx, kg_pool *pool, const void *scratch, const DLTensor *b) {
  kg_pool_buf *pb = buf_of(pool, scratch);
  return pb ? mark(ctx, pb, tensor_key(b)) : 0; /* not the record's (cannot happen): pack as if not kept */
}
