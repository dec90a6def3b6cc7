/* check/host.c — host tensors for the check kit and the `kgen run` command: .npy arrays
 * as DLTensor views, host buffers for an entry's outputs, and runs with host tensors on
 * any device (the emulator and the null device use them in place; CUDA stages them through
 * device memory, scalar parameters staying on the host).
 *
 * Moved out of the library (runtime/exec.c, runtime/check.c): a program linking libkgen
 * brings its own tensors in the memory of the device it runs on; only the kit and the CLI
 * start from files. The context's device and error come through runtime/check_access.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/check_access.h"
#include "check.h"

/* ---- host tensors (.npy arrays) as DLTensor views ---- */

void kg_npy_dlview(kg_npy *a, DLTensor *t) {
  memset(t, 0, sizeof *t);
  t->data = a->data;
  t->device.device_type = kDLCPU;
  t->ndim = a->rank;
  t->shape = a->shape;
  t->dtype = kg_dtype_to_dl((kg_dtype)a->dtype);
}

/* Allocates host outputs with the shapes the compiled entry reports. */
kg_status kg_alloc_host_outputs(kg_compiled *c, kg_npy *outs, DLTensor *views, DLTensor **ptrs) {
  int n = kg_compiled_n_outputs(c);
  for (int i = 0; i < n; i++) memset(&outs[i], 0, sizeof outs[i]);
  for (int i = 0; i < n; i++) {
    DLDataType dt;
    int nd;
    int64_t shape[8];
    kg_compiled_output(c, i, &dt, &nd, shape);
    memset(&outs[i], 0, sizeof outs[i]);
    outs[i].dtype = kg_dtype_from_dl(dt);
    outs[i].rank = nd;
    for (int d = 0; d < nd; d++) outs[i].shape[d] = shape[d];
    if (!kg_tensor_bytes(shape, nd, kg_dtype_get((kg_dtype)outs[i].dtype)->size, &outs[i].nbytes) ||
        !(outs[i].data = calloc(outs[i].nbytes + 64, 1))) {
      kg_diag dg;
      kg_diag_init(&dg);
      kg_strbuf b;
      kg_sb_init(&b);
      for (int d = 0; d < nd; d++) kg_sb_printf(&b, "%s%lld", d ? ", " : "", (long long)shape[d]);
      kg_diag_add(&dg, KG_E_LIMIT, NULL, NULL, "output %d of shape [%s] is too large to allocate in host memory", i, kg_sb_cstr(&b));
      kg_sb_free(&b);
      for (int j = 0; j < i; j++) kg_npy_free(&outs[j]);
      kg_status s = kg_ctx_report(kg_compiled_context(c), &dg);
      kg_diag_free(&dg);
      return s;
    }
    kg_npy_dlview(&outs[i], &views[i]);
    ptrs[i] = &views[i];
  }
  return KG_OK;
}

/* ---- CUDA staging ---- */

static kg_status run_cuda(kg_context *ctx, kg_compiled *c, const DLTensor **ins, int n_in, const kg_named_tensor *caps,
                          int n_cap, DLTensor **outs, int n_out) {
  kg_diag d;
  kg_diag_init(&d);
  kg_device *dev = kg_ctx_device(ctx, KG_DEVICE_CUDA, &d);
  if (!dev) {
    kg_status s = kg_ctx_report(ctx, &d);
    kg_diag_free(&d);
    return s;
  }
  int n = n_in + n_cap + n_out;
  DLTensor *dt = kg_xcalloc((size_t)n + 1, sizeof *dt);
  void **bufs = kg_xcalloc((size_t)n + 1, sizeof *bufs);
  const DLTensor **di = kg_xcalloc((size_t)n_in + 1, sizeof *di);
  kg_named_tensor *dc = kg_xcalloc((size_t)n_cap + 1, sizeof *dc);
  DLTensor **dout = kg_xcalloc((size_t)n_out + 1, sizeof *dout);
  const kg_graph *g = kg_compiled_graph(c);
  kg_status st = KG_OK;
  for (int i = 0; i < n && st == KG_OK; i++) {
    const DLTensor *h = i < n_in ? ins[i] : i < n_in + n_cap ? caps[i - n_in].t : outs[i - n_in - n_cap];
    size_t numel = 1;
    for (int k = 0; k < h->ndim; k++) numel *= (size_t)h->shape[k];
    if (h->strides && numel) { /* a strided input: the span it reaches, copied as it lies */
      size_t span = 1;
      for (int k = 0; k < h->ndim; k++) span += (size_t)(h->shape[k] - 1) * (size_t)h->strides[k];
      numel = span;
    }
    size_t bytes = numel * h->dtype.bits / 8;
    dt[i] = *h;
    bool scalar_param = i < n_in && h->ndim == 0 && g->nodes.v[g->params.v[i].node].vkind == KG_V_SCALAR;
    if (scalar_param) continue; /* scalar parameters are read on the host */
    dt[i].device.device_type = kDLCUDA;
    if (dev->vt->alloc(dev, bytes ? bytes : 1, &bufs[i], &d) != 0) { st = KG_ERR_INTERNAL; break; }
    dt[i].data = bufs[i];
    dt[i].byte_offset = 0;
    if (i < n_in + n_cap && bytes && dev->vt->h2d(dev, bufs[i], (const char *)h->data + h->byte_offset, bytes, &d) != 0)
      st = KG_ERR_INTERNAL;
  }
  for (int i = 0; i < n_in; i++) di[i] = &dt[i];
  for (int i = 0; i < n_cap; i++) dc[i].name = caps[i].name, dc[i].t = &dt[n_in + i];
  for (int i = 0; i < n_out; i++) dout[i] = &dt[n_in + n_cap + i];
  if (st == KG_OK) st = kg_run(c, KG_DEVICE_CUDA, di, n_in, dc, n_cap, dout, n_out, NULL);
  for (int w = 0; w < kg_compiled_n_writebacks(c) && st == KG_OK; w++) { /* inputs the run changed in place */
    int pi, cap;
    const char *nm;
    kg_compiled_writeback(c, w, &pi, &cap, &nm);
    int i = pi;
    if (cap)
      for (int j = 0; j < n_cap; j++)
        if (caps[j].name && !strcmp(caps[j].name, nm)) i = n_in + j;
    const DLTensor *h = i < n_in ? ins[i] : caps[i - n_in].t;
    size_t numel = 1;
    for (int k = 0; k < h->ndim; k++) numel *= (size_t)h->shape[k];
    size_t bytes = numel * h->dtype.bits / 8;
    if (bytes && dev->vt->d2h(dev, (char *)h->data + h->byte_offset, bufs[i], bytes, &d) != 0) st = KG_ERR_INTERNAL;
  }
  for (int i = 0; i < n_out && st == KG_OK; i++) {
    size_t numel = 1;
    for (int k = 0; k < outs[i]->ndim; k++) numel *= (size_t)outs[i]->shape[k];
    size_t bytes = numel * outs[i]->dtype.bits / 8;
    if (bytes && dev->vt->d2h(dev, outs[i]->data, bufs[n_in + n_cap + i], bytes, &d) != 0) st = KG_ERR_INTERNAL;
  }
  for (int i = 0; i < n; i++)
    if (bufs[i]) dev->vt->free(dev, bufs[i]);
  free(dt), free(bufs), free(di), free(dc), free(dout);
  if (st != KG_OK && d.n) st = kg_ctx_report(ctx, &d);
  kg_diag_free(&d);
  return st;
}

kg_status kg_run_host(kg_compiled *c, kg_device_kind dev, const DLTensor **ins, int n_in, const kg_named_tensor *caps, int n_cap,
                      DLTensor **outs, int n_out) {
  kg_context *ctx = kg_compiled_context(c);
  if (dev == KG_DEVICE_AUTO) dev = kg_default_device(ctx);
  if (dev == KG_DEVICE_EMU || dev == KG_DEVICE_CPU || dev == KG_DEVICE_NULL) return kg_run(c, dev, ins, n_in, caps, n_cap, outs, n_out, NULL); /* host memory */
  return run_cuda(ctx, c, ins, n_in, caps, n_cap, outs, n_out);
}
