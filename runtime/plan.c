/* runtime/plan.c — executes an entry's host plan (ir/plan.c) on a device.
 *
 * Every plan value lives in `env`, indexed by program node: a host scalar (kg_cval)
 * or a tensor (a DLTensor over a buffer). Buffers are reference counted: views and
 * loop-carried values share their source's buffer, and a buffer goes back to the
 * run's pool when its last value is released — which the kill lists of the
 * partitioned plan say (passes/plan_regions.c). The pool hands a freed buffer out
 * again for a request of the same size, so after a loop's first iteration no step
 * allocates: carried values alternate between two buffers (double buffering, without
 * a copy: a yielded value just becomes the phi's value).
 *
 *   REGION  → kg_run_program on the region's own compiled program (its kernels; grid
 *             sizes from the actual shapes), temporaries from the pool, no sync
 *   HOST    → kg_eval_node_host (the kernels' semantics; transcendentals with host libm)
 *   READ    → one device→host copy of a 0-dim tensor (after the stream's work)
 *   VIEW    → a DLTensor with a byte offset and strides into the same buffer
 *   FOR / WHILE / IF → C control flow over the blocks
 *
 * Entry outputs a top-level region computes are written by it into the caller's tensors;
 * the others at the end: scalars by a host→device copy, tensors by the entry's copy
 * programs (one kernel each, built with the plan in runtime/api.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

/* ---- the pool ---- */

int kg_pool_get(kg_pool *pl, size_t bytes, void **p, kg_diag *d) {
  if (bytes == 0) bytes = 1;
  for (uint32_t i = 0; i < pl->bufs.n; i++)
    if (!pl->bufs.v[i].used && pl->bufs.v[i].bytes == bytes) {
      pl->bufs.v[i].used = true;
      pl->bufs.v[i].refs = 0;
      pl->bufs.v[i].keep_b = 0; /* whatever it held is overwritten now */
      pl->last = i;
      *p = pl->bufs.v[i].p;
      return 0;
    }
  kg_device *dev = pl->dev;
  int rc = pl->stream && dev->vt->alloc_async ? dev->vt->alloc_async(dev, bytes, pl->stream, p, d) : dev->vt->alloc(dev, bytes, p, d);
  if (rc != 0) return rc;
  pl->ctx->stats.device_allocs++;
  kg_pool_buf b = {*p, bytes, true, 0, 0, 0};
  KG_VEC_PUSH(pl->bufs, b);
  pl->last = pl->bufs.n - 1;
  return 0;
}

void kg_pool_put(kg_pool *pl, void *p) {
  for (uint32_t i = 0; i < pl->bufs.n; i++)
    if (pl->bufs.v[i].p == p) {
      pl->bufs.v[i].used = false;
      return;
    }
}

void kg_pool_release(kg_pool *pl) {
  kg_device *dev = pl->dev;
  if (!dev) return;
  for (uint32_t i = 0; i < pl->bufs.n; i++) {
    if (pl->stream && dev->vt->free_async) dev->vt->free_async(dev, pl->bufs.v[i].p, pl->stream);
    else dev->vt->free(dev, pl->bufs.v[i].p);
  }
  KG_VEC_FREE(pl->bufs);
  pl->dev = NULL;
}

/* ---- values ---- */

typedef union sraw { uint8_t u8; int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint16_t h; float f32; double f64; } sraw;

typedef struct pval {
  bool set;
  kg_cval s;            /* scalars */
  sraw raw;             /* the scalar in its storage type (a region's 0-dim host parameter) */
  DLTensor t;           /* tensors */
  int64_t shape[KG_MAX_RANK], strides[KG_MAX_RANK];
  uint32_t buf;         /* 1 + the pool buffer holding it; 0: the caller's memory */
} pval;

typedef struct pexec {
  kg_compiled *c;
  kg_context *ctx;
  const kg_graph *g;
  const kg_plan *p;
  kg_device *dev;
  kg_device_kind devk;
  bool host;            /* the device's buffers are host memory (emulator, null device) */
  void *stream;
  kg_diag *d;
  kg_pool pool;
  pval *env;
  int64_t *sym;
  uint8_t *sym_bound;
  DLTensor *const *outputs;
  int32_t *direct;      /* per node: the entry output its region writes in place, or -1 */
  uint8_t *written;     /* per entry output: written in place already */
  const kg_pop **fallback; /* per SELECT_SCATTER node a region may write in place: its fallback step */
  uint8_t *rowdone;     /* per such node: written in place this trip (its fallback is skipped) */
  kg_status too_large;  /* an intermediate did not fit (kg_run_too_large): the status to return */
} pexec;

static kg_cval load_scalar(const void *src, kg_dtype dt) {
  switch (dt) {
  case KG_BOOL: case KG_U8: return kg_cval_int(dt, *(const uint8_t *)src);
  case KG_I8: return kg_cval_int(dt, *(const int8_t *)src);
  case KG_I16: return kg_cval_int(dt, *(const int16_t *)src);
  case KG_I32: return kg_cval_int(dt, *(const int32_t *)src);
  case KG_I64: return kg_cval_int(dt, *(const int64_t *)src);
  case KG_F16: return kg_cval_float(dt, kg_f16_to_f32(*(const uint16_t *)src));
  case KG_BF16: return kg_cval_float(dt, kg_bf16_to_f32(*(const uint16_t *)src));
  case KG_F32: return kg_cval_float(dt, *(const float *)src);
  default: return kg_cval_float(KG_F64, *(const double *)src);
  }
}

static void store_scalar(kg_cval v, kg_dtype dt, sraw *r) {
  v = kg_cval_cast(v, dt);
  memset(r, 0, sizeof *r);
  switch (dt) {
  case KG_BOOL: case KG_U8: r->u8 = (uint8_t)v.i; break;
  case KG_I8: r->i8 = (int8_t)v.i; break;
  case KG_I16: r->i16 = (int16_t)v.i; break;
  case KG_I32: r->i32 = (int32_t)v.i; break;
  case KG_I64: r->i64 = v.i; break;
  case KG_F16: r->h = kg_f32_to_f16((float)v.f); break;
  case KG_BF16: r->h = kg_f32_to_bf16((float)v.f); break;
  case KG_F32: r->f32 = (float)v.f; break;
  default: r->f64 = v.f; break;
  }
}

static void release(pexec *E, uint32_t id) {
  pval *v = &E->env[id];
  if (!v->set) return;
  if (v->buf && --E->pool.bufs.v[v->buf - 1].refs == 0) E->pool.bufs.v[v->buf - 1].used = false;
  v->set = false;
  v->buf = 0;
}

static void retain(pexec *E, const pval *v) {
  if (v->buf) E->pool.bufs.v[v->buf - 1].refs++;
}

/* env[dst] = the value of src (sharing its buffer) */
static void alias(pexec *E, uint32_t dst, const pval *src) {
  pval v = *src;
  retain(E, &v);
  release(E, dst);
  E->env[dst] = v;
  E->env[dst].t.shape = E->env[dst].shape;
  E->env[dst].t.strides = E->env[dst].strides;
}

static int64_t dim_size(const pexec *E, const kg_dim *d) { return d->kind == KG_DIM_STATIC ? d->v : E->sym[d->v]; }

/* the value of node id (constants and parameters are read from where they are) */
static const pval *value(pexec *E, uint32_t id) {
  const kg_gnode *n = &E->g->nodes.v[id];
  pval *v = &E->env[id];
  if (n->op == KG_OP_CONST && !v->set) {
    v->set = true;
    v->s = kg_dtype_is_float((kg_dtype)n->dtype) ? kg_cval_float((kg_dtype)n->dtype, n->fa[0]) : kg_cval_int((kg_dtype)n->dtype, n->ia[0]);
  }
  return v;
}

static bool need(pexec *E, uint32_t id, const kg_pop *at) {
  if (value(E, id)->set) return true;
  kg_diag_add(E->d, KG_E_INTERNAL, at ? at->path : NULL, at ? at->srcloc : NULL, "plan: %%%u has no value here", id);
  return false;
}

/* a fresh C-contiguous tensor value for node id, its buffer from the pool */
static bool new_tensor(pexec *E, uint32_t id) {
  const kg_gnode *n = &E->g->nodes.v[id];
  release(E, id);
  pval *v = &E->env[id];
  memset(v, 0, sizeof *v);
  size_t cnt = 1;
  for (int i = n->shape.rank - 1; i >= 0; i--) {
    v->shape[i] = dim_size(E, &n->shape.d[i]);
    v->strides[i] = (int64_t)cnt;
    cnt *= (size_t)v->shape[i];
  }
  void *p;
  size_t bytes = 0;
  uint32_t mark = E->d->n;
  if (!kg_run_bytes(v->shape, n->shape.rank, (kg_dtype)n->dtype, &bytes) || kg_pool_get(&E->pool, bytes, &p, E->d) != 0) {
    E->too_large = kg_run_too_large(E->d, mark, n, v->shape, n->shape.rank, "the value");
    return false;
  }
  v->buf = E->pool.last + 1;
  E->pool.bufs.v[E->pool.last].refs = 1;
  v->set = true;
  v->t.data = p;
  v->t.device.device_type = E->host ? kDLCPU : kDLCUDA;
  v->t.device.device_id = 0;
  v->t.ndim = n->shape.rank;
  v->t.dtype = kg_dtype_to_dl((kg_dtype)n->dtype);
  v->t.shape = v->shape;
  v->t.strides = v->strides;
  return true;
}

/* a host scalar as the 0-dim host tensor a program's scalar parameter is */
static void scalar_view(pval *v, kg_dtype dt, DLTensor *t) {
  store_scalar(v->s, dt, &v->raw);
  memset(t, 0, sizeof *t);
  t->data = &v->raw;
  t->device.device_type = kDLCPU;
  t->ndim = 0;
  t->dtype = kg_dtype_to_dl(dt);
}

static kg_status fail_at(pexec *E, const kg_pop *o, kg_diag_code code, const char *fmt, ...) KG_PRINTF(4, 5);
static kg_status fail_at(pexec *E, const kg_pop *o, kg_diag_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_diag_vadd(E->d, code, o->path, o->srcloc, fmt, ap);
  va_end(ap);
  return code == KG_E_INTERNAL ? KG_ERR_INTERNAL : KG_ERR_INPUT;
}

/* ---- steps ---- */

static kg_status exec_block(pexec *E, uint32_t b);
static bool overlaps(const DLTensor *x, const DLTensor *y);

static int64_t as_i64(kg_cval v) { return kg_dtype_is_float(v.dt) ? (int64_t)v.f : v.i; }

/* an error located at the select_scatter's F# call */
static kg_status scatter_error(pexec *E, const kg_gnode *n, kg_diag_code code, const char *fmt, ...) KG_PRINTF(4, 5);
static kg_status scatter_error(pexec *E, const kg_gnode *n, kg_diag_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_diag_vadd(E->d, code, n->path, n->srcloc, fmt, ap);
  va_end(ap);
  return KG_ERR_INPUT;
}

static bool in_list(const uint32_t *v, uint32_t n, uint32_t id) {
  for (uint32_t i = 0; i < n; i++)
    if (v[i] == id) return true;
  return false;
}

/* select_scatter s (buf, src, index; dim ia[0]) in place (passes/plan_inplace.c): when buf's
 * buffer is the run's own, dense row-major, dies at s's fallback step, and no other live value
 * overlaps the slice, s takes buf's buffer and src's value becomes the slice, which the region
 * about to run stores into (rowdone[s]); otherwise nothing changes and the fallback composes s.
 * An index out of range is PyTorch's error, located. */
static kg_status try_inplace(pexec *E, const kg_pop *o, uint32_t s) {
  const kg_gnode *n = &E->g->nodes.v[s];
  uint32_t buf = n->in[0], src = n->in[1];
  int d = (int)n->ia[0];
  const kg_pop *fb = E->fallback ? E->fallback[s] : NULL;
  const pval *bv = value(E, buf), *iv = value(E, n->in[2]);
  if (!fb || !bv->set || !iv->set || !bv->buf || !in_list(fb->kill, fb->n_kill, buf) || (E->direct && E->direct[src] >= 0)) return KG_OK;
  int64_t size = bv->shape[d], idx = as_i64(iv->s), outer = 1, want = 1;
  if (idx < -size || idx >= size)
    return scatter_error(E, n, KG_E_SHAPE, "select_scatter(): index %lld out of range for a tensor of size %lld at dimension %d", (long long)idx, (long long)size, d);
  if (idx < 0) idx += size;
  for (int i = bv->t.ndim - 1; i >= 0; i--) { /* dense row-major (size-1 dims' strides do not matter) */
    if (bv->shape[i] != 1 && bv->strides[i] != want) return KG_OK;
    want *= bv->shape[i];
  }
  for (int i = 0; i < d; i++) outer *= bv->shape[i];
  if (outer != 1) return KG_OK; /* the slice would be strided */
  pval row = *bv;
  int64_t es = kg_dtype_get((kg_dtype)n->dtype)->size;
  row.t.byte_offset += (uint64_t)(idx * bv->strides[d] * es);
  for (int i = d; i + 1 < bv->t.ndim; i++) row.shape[i] = bv->shape[i + 1], row.strides[i] = bv->strides[i + 1];
  row.t.ndim = bv->t.ndim - 1;
  row.t.shape = row.shape, row.t.strides = row.strides;
  for (uint32_t id = 0; id < E->g->nodes.n; id++) { /* values still read later keep their bytes */
    const pval *v = &E->env[id];
    if (id != buf && id != s && id != src && v->set && v->buf == bv->buf && overlaps(&v->t, &row.t)) return KG_OK;
  }
  alias(E, s, bv);
  alias(E, src, &row);
  E->rowdone[s] = 1;
  return KG_OK;
}

/* a select_scatter's fallback (the composed kernel, which cannot raise): its index checked as
 * PyTorch checks it; a negative one known only now is refused (the kernel compares coordinates) */
static kg_status check_scatter_index(pexec *E, const kg_pop *o) {
  const kg_gnode *n = &E->g->nodes.v[o->a];
  const pval *bv = value(E, n->in[0]), *iv = value(E, n->in[2]);
  if (!bv->set || !iv->set || n->ia[0] >= bv->t.ndim) return KG_OK; /* an index the region computes itself */
  int64_t size = bv->shape[n->ia[0]], idx = as_i64(iv->s);
  if (idx < -size || idx >= size)
    return scatter_error(E, n, KG_E_SHAPE, "select_scatter(): index %lld out of range for a tensor of size %lld at dimension %d", (long long)idx,
                         (long long)size, (int)n->ia[0]);
  if (idx < 0)
    return scatter_error(E, n, KG_E_UNSUPPORTED, "select_scatter(): a negative index known only at run time (%lld) is not supported here: pass index + size",
                         (long long)idx);
  return KG_OK;
}

static kg_status run_region(pexec *E, const kg_pop *o) {
  const kg_region *r = &E->p->regions.v[o->region];
  kg_compiled *rc = E->c->regions[o->region];
  const DLTensor *ins_s[32];
  DLTensor sv_s[32], *outs_s[32];
  bool small = r->ins.n <= 32 && r->outs.n <= 32;
  const DLTensor **ins = small ? ins_s : kg_xcalloc(r->ins.n + 1, sizeof *ins);
  DLTensor *sv = small ? sv_s : kg_xcalloc(r->ins.n + 1, sizeof *sv);
  DLTensor **outs = small ? outs_s : kg_xcalloc(r->outs.n + 1, sizeof *outs);
  kg_status st = KG_OK;
  for (uint32_t i = 0; i < r->ins.n && st == KG_OK; i++) {
    uint32_t id = r->ins.v[i];
    if (!need(E, id, o)) st = KG_ERR_INTERNAL;
    else if (E->g->nodes.v[id].vkind == KG_V_SCALAR) {
      scalar_view(&E->env[id], (kg_dtype)E->g->nodes.v[id].dtype, &sv[i]);
      ins[i] = &sv[i];
    } else {
      ins[i] = &E->env[id].t;
    }
  }
  for (uint32_t q = 0; q < o->n_nodes && st == KG_OK; q++) st = try_inplace(E, o, o->nodes[q]);
  for (uint32_t k = 0; k < r->outs.n && st == KG_OK; k++) {
    uint32_t id = r->outs.v[k];
    int32_t oi = E->direct ? E->direct[id] : -1;
    bool row = false;
    for (uint32_t q = 0; q < o->n_nodes && !row; q++) row = E->rowdone && E->rowdone[o->nodes[q]] && E->g->nodes.v[o->nodes[q]].in[1] == id;
    if (row) { /* stored straight into a slice of a select_scatter's buffer (try_inplace) */
      outs[k] = &E->env[id].t;
    } else if (oi >= 0) { /* an entry output computed once, at top level: straight into the caller's tensor */
      release(E, id);
      pval *v = &E->env[id];
      const DLTensor *t = E->outputs[oi];
      v->set = true, v->buf = 0, v->t = *t;
      for (int d = 0; d < t->ndim; d++) v->shape[d] = t->shape[d], v->strides[d] = kg_dl_stride(t, d);
      v->t.shape = v->shape, v->t.strides = v->strides;
      E->written[oi] = 1;
      outs[k] = &v->t;
    } else if (!new_tensor(E, id)) {
      st = E->too_large ? E->too_large : KG_ERR_INTERNAL;
    } else {
      outs[k] = &E->env[id].t;
    }
  }
  if (st == KG_OK)
    st = kg_run_program(rc, E->devk, ins, (int)r->ins.n, NULL, 0, outs, (int)r->outs.n, E->stream, &E->pool);
  if (!small) free(ins), free(sv), free(outs);
  return st;
}

static kg_status exec_read(pexec *E, const kg_pop *o) {
  if (!need(E, o->b, o)) return KG_ERR_INTERNAL;
  const pval *src = &E->env[o->b];
  kg_dtype dt = (kg_dtype)E->g->nodes.v[o->a].dtype;
  sraw raw;
  memset(&raw, 0, sizeof raw);
  const void *p = (const char *)src->t.data + src->t.byte_offset;
  if (!E->host && E->stream && E->dev->vt->sync && E->dev->vt->sync(E->dev, E->stream, E->d) != 0) return KG_ERR_INTERNAL;
  if (E->dev->vt->d2h(E->dev, &raw, p, kg_dtype_get(dt)->size, E->d) != 0) return KG_ERR_INTERNAL;
  E->ctx->stats.reads++;
  release(E, o->a);
  E->env[o->a].set = true;
  E->env[o->a].s = load_scalar(&raw, dt);
  return KG_OK;
}

static kg_status exec_view(pexec *E, const kg_pop *o) {
  if (!need(E, o->b, o) || (o->view != KG_VIEW_UNSQUEEZE && !need(E, o->c, o))) return KG_ERR_INTERNAL;
  const pval *src = &E->env[o->b];
  if (o->view == KG_VIEW_UNSQUEEZE) {
    pval v = *src;
    for (int i = src->t.ndim; i > o->dim; i--) v.shape[i] = src->shape[i - 1], v.strides[i] = src->strides[i - 1];
    v.shape[o->dim] = 1;
    v.strides[o->dim] = 1; /* a size-1 dim: its stride is never used */
    v.t.ndim = src->t.ndim + 1;
    alias(E, o->a, &v);
    return KG_OK;
  }
  int64_t idx = as_i64(E->env[o->c].s), size = src->shape[o->dim];
  if (o->view == KG_VIEW_SELECT) {
    if (idx < -size || idx >= size)
      return fail_at(E, o, KG_E_SHAPE, "index %lld is out of bounds for dimension %d with size %lld", (long long)idx, o->dim, (long long)size);
  } else if (idx < -size || idx > size || (idx < 0 ? idx + size : idx) + o->len > size) {
    return fail_at(E, o, KG_E_SHAPE, "narrow(): start %lld + length %lld exceeds dimension of size %lld", (long long)idx, (long long)o->len,
                   (long long)size);
  }
  if (idx < 0) idx += size;
  pval v = *src;
  int64_t es = kg_dtype_get((kg_dtype)E->g->nodes.v[o->a].dtype)->size;
  int64_t stride = src->strides[o->dim];
  v.t.byte_offset += (uint64_t)(idx * stride * es);
  if (o->view == KG_VIEW_SELECT) {
    for (int i = o->dim; i + 1 < src->t.ndim; i++) v.shape[i] = src->shape[i + 1], v.strides[i] = src->strides[i + 1];
    v.t.ndim = src->t.ndim - 1;
  } else {
    v.shape[o->dim] = o->len;
  }
  alias(E, o->a, &v);
  return KG_OK;
}

/* the carried values: phi[k] = vals[k] */
static void set_carried(pexec *E, const kg_pop *o, const uint32_t *vals, const uint32_t *dst) {
  pval small[8];
  pval *tmp = o->n_car <= 8 ? small : kg_xcalloc(o->n_car + 1, sizeof *tmp);
  for (uint32_t k = 0; k < o->n_car; k++) {
    tmp[k] = *value(E, vals[k]);
    retain(E, &tmp[k]);
  }
  for (uint32_t k = 0; k < o->n_car; k++) {
    release(E, dst[k]);
    E->env[dst[k]] = tmp[k];
    E->env[dst[k]].t.shape = E->env[dst[k]].shape;
    E->env[dst[k]].t.strides = E->env[dst[k]].strides;
  }
  if (tmp != small) free(tmp);
}

static void kill_block_end(pexec *E, uint32_t b) {
  const kg_pblock *bl = &E->p->blocks.v[b];
  for (uint32_t i = 0; i < bl->n_kill; i++) release(E, bl->kill[i]);
}

static kg_status check_all(pexec *E, const kg_pop *o, const uint32_t *v, uint32_t n) {
  for (uint32_t k = 0; k < n; k++)
    if (!need(E, v[k], o)) return KG_ERR_INTERNAL;
  return KG_OK;
}

static kg_status exec_op(pexec *E, const kg_pop *o) {
  E->ctx->stats.plan_steps++;
  kg_status st = KG_OK;
  switch ((kg_pop_kind)o->kind) {
  case KG_P_NODES: return fail_at(E, o, KG_E_INTERNAL, "plan: a NODES step was not partitioned");
  case KG_P_REGION:
    if (o->a != KG_NONE && E->rowdone && E->rowdone[o->a]) { /* done in place by the region before */
      E->rowdone[o->a] = 0;
      E->ctx->stats.inplace_writes++;
      return KG_OK;
    }
    if (o->a != KG_NONE && (st = check_scatter_index(E, o)) != KG_OK) return st;
    return run_region(E, o);
  case KG_P_HOST: {
    const kg_gnode *n = &E->g->nodes.v[o->a];
    kg_cval a[3];
    for (int j = 0; j < n->n_in && j < 3; j++) {
      if (!need(E, n->in[j], o)) return KG_ERR_INTERNAL;
      a[j] = E->env[n->in[j]].s;
    }
    kg_cval r;
    if (!kg_eval_node_host(n, a, &r)) return fail_at(E, o, KG_E_INTERNAL, "plan: op %s is not evaluated on the host", kg_op_name((kg_op)n->op));
    release(E, o->a);
    E->env[o->a].set = true;
    E->env[o->a].s = r;
    return KG_OK;
  }
  case KG_P_READ: return exec_read(E, o);
  case KG_P_SIZE: {
    if (!need(E, o->b, o)) return KG_ERR_INTERNAL;
    int64_t s = E->env[o->b].shape[o->dim];
    release(E, o->a);
    E->env[o->a].set = true;
    E->env[o->a].s = kg_cval_int(KG_I64, s);
    return KG_OK;
  }
  case KG_P_VIEW: return exec_view(E, o);
  case KG_P_FOR: {
    if (!need(E, o->b, o) || !need(E, o->c, o) || check_all(E, o, o->init, o->n_car) != KG_OK) return KG_ERR_INTERNAL;
    kg_dtype idt = (kg_dtype)E->g->nodes.v[o->a].dtype;
    int64_t lo = as_i64(E->env[o->b].s), hi = as_i64(E->env[o->c].s);
    set_carried(E, o, o->init, o->phi);
    for (int64_t i = lo; i <= hi && st == KG_OK; i++) {
      E->env[o->a].set = true;
      E->env[o->a].s = kg_cval_int(idt, i);
      st = exec_block(E, o->body);
      if (st == KG_OK) st = check_all(E, o, o->yld, o->n_car);
      if (st == KG_OK) set_carried(E, o, o->yld, o->phi);
      kill_block_end(E, o->body);
      E->ctx->stats.iterations++;
    }
    break;
  }
  case KG_P_WHILE: {
    if (check_all(E, o, o->init, o->n_car) != KG_OK) return KG_ERR_INTERNAL;
    set_carried(E, o, o->init, o->phi);
    for (;;) {
      st = exec_block(E, o->cond);
      if (st == KG_OK && !need(E, o->c, o)) st = KG_ERR_INTERNAL;
      bool go = st == KG_OK && kg_cval_truthy(E->env[o->c].s);
      kill_block_end(E, o->cond);
      if (!go) break;
      st = exec_block(E, o->body);
      if (st == KG_OK) st = check_all(E, o, o->yld, o->n_car);
      if (st == KG_OK) set_carried(E, o, o->yld, o->phi);
      kill_block_end(E, o->body);
      E->ctx->stats.iterations++;
      if (st != KG_OK) break;
    }
    break;
  }
  case KG_P_IF: {
    if (!need(E, o->c, o)) return KG_ERR_INTERNAL;
    bool c = kg_cval_truthy(E->env[o->c].s);
    uint32_t b = c ? o->body : o->els;
    st = exec_block(E, b);
    if (st == KG_OK) st = check_all(E, o, c ? o->yld : o->yld2, o->n_car);
    if (st == KG_OK) set_carried(E, o, c ? o->yld : o->yld2, o->res);
    kill_block_end(E, b);
    return st;
  }
  }
  if (st == KG_OK && (o->kind == KG_P_FOR || o->kind == KG_P_WHILE)) {
    set_carried(E, o, o->phi, o->res);
    for (uint32_t k = 0; k < o->n_car; k++) release(E, o->phi[k]);
    if (o->kind == KG_P_FOR) release(E, o->a);
  }
  return st;
}

static kg_status exec_block(pexec *E, uint32_t b) {
  const kg_pblock *bl = &E->p->blocks.v[b];
  for (uint32_t i = 0; i < bl->ops.n; i++) {
    const kg_pop *o = &E->p->ops.v[bl->ops.v[i]];
    kg_status st = exec_op(E, o);
    if (st != KG_OK) return st;
    for (uint32_t k = 0; k < o->n_kill; k++) release(E, o->kill[k]);
  }
  return KG_OK;
}

/* ---- outputs ---- */

static kg_status write_output(pexec *E, uint32_t i, DLTensor *out) {
  if (E->written[i]) return KG_OK;
  uint32_t id = E->g->outputs.v[i];
  const kg_gnode *n = &E->g->nodes.v[id];
  if (!need(E, id, NULL)) return KG_ERR_INTERNAL;
  pval *v = &E->env[id];
  if (n->vkind == KG_V_SCALAR) {
    if (out->ndim != 0 || kg_dtype_from_dl(out->dtype) != n->dtype) {
      kg_diag_add(E->d, KG_E_ARG, NULL, NULL, "output %u must be a 0-dim %s tensor", i, kg_dtype_name((kg_dtype)n->dtype));
      return KG_ERR_INPUT;
    }
    sraw raw;
    store_scalar(v->s, (kg_dtype)n->dtype, &raw);
    void *dst = (char *)out->data + out->byte_offset;
    if (E->host) {
      memcpy(dst, &raw, kg_dtype_get((kg_dtype)n->dtype)->size);
      return KG_OK;
    }
    return E->dev->vt->h2d(E->dev, dst, &raw, kg_dtype_get((kg_dtype)n->dtype)->size, E->d) == 0 ? KG_OK : KG_ERR_INTERNAL;
  }
  kg_compiled *cp = E->c->copies[i]; /* built with the plan (runtime/api.c) */
  const DLTensor *ins[1] = {&v->t};
  DLTensor *outs[1] = {out};
  return kg_run_program(cp, E->devk, ins, 1, NULL, 0, outs, 1, E->stream, &E->pool);
}

/* ---- the run ---- */

static void mem_range(const DLTensor *t, uintptr_t *lo, uintptr_t *hi) {
  int64_t a = 0, b = 0, es = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  bool empty = false;
  for (int d = 0; d < t->ndim; d++) {
    int64_t st = kg_dl_stride(t, d);
    if (t->shape[d] == 0) empty = true;
    else if (st < 0) a += (t->shape[d] - 1) * st;
    else b += (t->shape[d] - 1) * st;
  }
  uintptr_t base = (uintptr_t)t->data + t->byte_offset;
  *lo = base + (uintptr_t)(a * es);
  *hi = empty ? *lo : base + (uintptr_t)((b + 1) * es);
}

static bool overlaps(const DLTensor *x, const DLTensor *y) {
  uintptr_t a0, a1, b0, b1;
  mem_range(x, &a0, &a1);
  mem_range(y, &b0, &b1);
  return a0 < b1 && b0 < a1;
}

/* Entry outputs a top-level region computes (once per run) are written by it straight
 * into the caller's tensors instead of a pool buffer and a copy at the end — unless the
 * caller's tensor overlaps an input (outputs may alias inputs: later steps still read
 * them) or another output, or the value is also returned as another output. */
static void plan_direct_outputs(pexec *E, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *caps, int n_caps) {
  const kg_graph *g = E->g;
  const kg_pblock *b0 = &E->p->blocks.v[0];
  for (uint32_t i = 0; i < g->outputs.n; i++) {
    uint32_t id = g->outputs.v[i];
    const DLTensor *t = E->outputs[i];
    if (g->nodes.v[id].vkind != KG_V_TENSOR || !t) continue;
    bool top = false;
    for (uint32_t k = 0; k < b0->ops.n && !top; k++) {
      const kg_pop *o = &E->p->ops.v[b0->ops.v[k]];
      if (o->kind != KG_P_REGION) continue;
      const kg_region *r = &E->p->regions.v[o->region];
      for (uint32_t q = 0; q < r->outs.n && !top; q++) top = r->outs.v[q] == id;
    }
    bool ok = top;
    for (uint32_t j = 0; j < g->outputs.n && ok; j++)
      if (j != i) ok = g->outputs.v[j] != id && !(E->outputs[j] && overlaps(t, E->outputs[j]));
    for (int j = 0; j < n_inputs && ok; j++)
      if (inputs[j] && inputs[j]->ndim > 0) ok = !overlaps(t, inputs[j]);
    for (int j = 0; j < n_caps && ok; j++)
      if (caps[j].t) ok = !overlaps(t, caps[j].t);
    if (!ok) continue;
    if (!E->direct) {
      E->direct = kg_xcalloc(g->nodes.n + 1, sizeof *E->direct);
      for (uint32_t n = 0; n < g->nodes.n; n++) E->direct[n] = -1;
    }
    E->direct[id] = (int32_t)i;
  }
}

kg_status kg_plan_run(kg_compiled *c, kg_device_kind devk, const DLTensor *const *inputs, int n_inputs,
                      const kg_named_tensor *captures, int n_captures, DLTensor *const *outputs, int n_outputs, void *stream) {
  kg_context *ctx = c->m->ctx;
  pexec E;
  memset(&E, 0, sizeof E);
  E.c = c, E.ctx = ctx, E.g = &c->g, E.p = c->plan, E.d = &ctx->diag, E.stream = stream;
  const kg_graph *g = &c->g;
  if ((uint32_t)n_inputs != g->n_entry_params || (uint32_t)n_outputs != g->outputs.n) {
    kg_diag_add(E.d, KG_E_ARG, NULL, NULL, "entry '%s' takes %u input(s) and %u output(s), %d and %d given", g->entry, g->n_entry_params,
                g->outputs.n, n_inputs, n_outputs);
    return KG_ERR_INPUT;
  }
  E.dev = kg_ctx_device(ctx, devk, E.d);
  if (!E.dev) return KG_ERR_INTERNAL;
  E.host = kg_dev_host_memory(E.dev);
  E.devk = E.dev->vt->kind; /* the programs of its regions run on the same device */
  /* the last run's buffers are reused when this run is on the same device and stream
   * (stream order keeps that safe): a repeated call allocates nothing; else they go first */
  if (c->pool.dev && (c->pool.dev != E.dev || c->pool.stream != stream)) kg_pool_release(&c->pool);
  E.pool = c->pool;
  memset(&c->pool, 0, sizeof c->pool);
  E.pool.ctx = ctx, E.pool.dev = E.dev, E.pool.stream = stream;
  for (uint32_t i = 0; i < E.pool.bufs.n; i++) E.pool.bufs.v[i].used = false, E.pool.bufs.v[i].refs = 0;
  E.env = kg_xcalloc(g->nodes.n + 1, sizeof *E.env);
  E.sym = kg_xcalloc(g->syms.n + 1, sizeof *E.sym);
  E.sym_bound = kg_xcalloc(g->syms.n + 1, 1);
  kg_status st = KG_OK;
  kg_binding B = {E.sym, E.sym_bound};
  for (uint32_t i = 0; i < g->params.n && st == KG_OK; i++) {
    const kg_gparam *gp = &g->params.v[i];
    const DLTensor *t = NULL;
    kg_bwhat wh = {gp->is_capture ? 1 : 0, i, gp->name};
    if (!gp->is_capture) {
      t = inputs[i];
    } else {
      for (int j = 0; j < n_captures; j++)
        if (captures[j].name && strcmp(captures[j].name, gp->name) == 0) t = captures[j].t;
    }
    const kg_gnode *n = &g->nodes.v[gp->node];
    if (!kg_bind_tensor(ctx, g, &B, n, t, &wh)) {
      st = KG_ERR_INPUT;
      break;
    }
    pval *v = &E.env[gp->node];
    v->set = true;
    if (n->vkind == KG_V_SCALAR) {
      if (t->device.device_type == kDLCUDA) {
        kg_diag_add(E.d, KG_E_ARG, NULL, NULL, "scalar parameter '%s' must be a 0-dim tensor in host memory", gp->name);
        st = KG_ERR_INPUT;
        break;
      }
      v->s = load_scalar((const char *)t->data + t->byte_offset, (kg_dtype)n->dtype);
    } else {
      v->t = *t;
      for (int d = 0; d < t->ndim; d++) v->shape[d] = t->shape[d], v->strides[d] = kg_dl_stride(t, d);
      v->t.shape = v->shape, v->t.strides = v->strides;
    }
  }
  if (st == KG_OK && !kg_check_guards(ctx, g, &B)) st = KG_ERR_INPUT;
  for (uint32_t i = 0; i < g->outputs.n && st == KG_OK; i++) {
    kg_bwhat wh = {2, i, NULL};
    if (!kg_bind_tensor(ctx, g, &B, &g->nodes.v[g->outputs.v[i]], outputs[i], &wh)) st = KG_ERR_INPUT;
  }
  if (st == KG_OK && g->symdefs.n && !kg_bind_derived(ctx, g, &B)) st = KG_ERR_INPUT;
  E.outputs = outputs;
  E.written = kg_xcalloc(g->outputs.n + 1, 1);
  if (st == KG_OK) plan_direct_outputs(&E, inputs, n_inputs, captures, n_captures);
  for (uint32_t i = 0; i < E.p->ops.n; i++) { /* the fallbacks of in-place select_scatters */
    const kg_pop *o = &E.p->ops.v[i];
    if (o->kind != KG_P_REGION || o->a == KG_NONE || o->a >= g->nodes.n) continue;
    if (!E.fallback) E.fallback = kg_xcalloc(g->nodes.n + 1, sizeof *E.fallback), E.rowdone = kg_xcalloc(g->nodes.n + 1, 1);
    E.fallback[o->a] = o;
  }
  if (st == KG_OK) st = exec_block(&E, 0);
  for (uint32_t i = 0; i < g->outputs.n && st == KG_OK; i++) st = write_output(&E, i, outputs[i]);
  /* outputs are written; finish the stream's work before the buffers go (stream-ordered
   * frees need no wait) */
  bool ordered = stream && E.dev->vt->free_async;
  if (E.dev->vt->sync && (!stream || !ordered) && E.dev->vt->sync(E.dev, stream, E.d) != 0 && st == KG_OK) st = KG_ERR_INTERNAL;
  for (uint32_t i = 0; i < g->nodes.n; i++) release(&E, i);
  c->pool = E.pool; /* kept for the next run */
  free(E.env), free(E.sym), free(E.sym_bound), free(E.direct), free(E.written), free(E.fallback), free(E.rowdone);
  return st;
}
