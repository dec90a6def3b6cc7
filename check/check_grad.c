/* check/check_grad.c — the gradients' cross-check (kgen check --grad, the suite): kgen's backward
 * kernels against PyTorch's autograd of the TorchScript twin.
 *
 * With the inputs kg_check_module made (read again from their .npy files: the forward check may
 * have updated some in place), the entry is compiled for the gradients of every floating tensor
 * input and capture (kg_specialize_grad), its forward run (results and the values it saves), a
 * random weight tensor drawn per floating result — the gradients are those of Σ result · weight —
 * and the backward run on the weights and the saved values, at the generator state of the
 * forward's run (dropout's masks drawn again). The oracle (op "grad") computes
 * torch.autograd.grad of the same weighted sum through the twin and compares every gradient with
 * the tolerance rules of the forward check (a float64 rerun for the rmse rule); with fd, float64
 * central differences of the twin too, at most 256 wanted elements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/check_access.h"
#include "check.h"

kg_status kg_check_grad(kg_context *ctx, kg_oracle *orc, kg_module *m, const kg_check_opts *o, const kg_grad_check_in *in, kg_check_result *r,
                        kg_diag *d) {
  kg_arena *A = in->A;
  int n_all = in->n_in + in->n_cap;
  kg_npy *arr = kg_xcalloc((size_t)n_all + 1, sizeof *arr);
  DLTensor *views = kg_xcalloc((size_t)n_all + 1, sizeof *views);
  const DLTensor **ins = kg_xcalloc((size_t)in->n_in + 1, sizeof *ins);
  kg_named_tensor *caps = kg_xcalloc((size_t)in->n_cap + 1, sizeof *caps);
  uint8_t *wants = kg_xcalloc((size_t)n_all + 1, 1);
  kg_status st = KG_OK;
  for (int i = 0; i < n_all && st == KG_OK; i++) {
    const char *path = i < in->n_in ? in->in_paths[i] : in->cap_paths[i - in->n_in];
    if (kg_npy_read(path, &arr[i], d) != 0) {
      st = KG_ERR_INTERNAL;
      break;
    }
    kg_npy_dlview(&arr[i], &views[i]);
    bool scalar = i < in->n_in && kg_module_entry_param(m, in->entry, i, NULL) == 1;
    wants[i] = !scalar && kg_dtype_is_float((kg_dtype)arr[i].dtype) && !in->mutated[i]; /* a buffer updated in place: no grad */
    if (i < in->n_in) ins[i] = &views[i];
    else caps[i - in->n_in].name = in->cap_names[i - in->n_in], caps[i - in->n_in].t = &views[i];
  }
  kg_compiled *fwd = NULL;
  if (st == KG_OK) {
    st = kg_specialize_grad(m, in->entry, ins, in->n_in, caps, in->n_cap, 0, wants, &fwd);
    if (st != KG_OK) { /* not differentiable here: the caller reports the context's error */
      for (int i = 0; i < n_all; i++) kg_npy_free(&arr[i]);
      free(arr), free(views), free(ins), free(caps), free(wants);
      return st;
    }
  }
  kg_compiled *bwd = fwd ? kg_compiled_backward(fwd) : NULL;
  int nout = fwd ? kg_compiled_n_outputs(fwd) : 0, nsaved = fwd ? kg_compiled_n_saved(fwd) : 0, nres = nout - nsaved;
  int nb = bwd ? kg_compiled_backward_n_inputs(fwd) : 0, ng = bwd ? kg_compiled_backward_n_outputs(fwd) : 0;
  kg_npy *outs = kg_xcalloc((size_t)nout + 1, sizeof *outs), *gouts = kg_xcalloc((size_t)ng + 1, sizeof *gouts);
  kg_npy *wts = kg_xcalloc((size_t)nres + 1, sizeof *wts);
  DLTensor *ov = kg_xcalloc((size_t)nout + 1, sizeof *ov), *gv = kg_xcalloc((size_t)ng + 1, sizeof *gv), *wv = kg_xcalloc((size_t)nres + 1, sizeof *wv);
  DLTensor **op = kg_xcalloc((size_t)nout + 1, sizeof *op), **gp = kg_xcalloc((size_t)ng + 1, sizeof *gp);
  const DLTensor **bins = kg_xcalloc((size_t)nb + 1, sizeof *bins);
  const char **wpaths = kg_xcalloc((size_t)nres + 1, sizeof *wpaths);
  const char **gpaths = kg_xcalloc((size_t)ng + 1, sizeof *gpaths), **gdt = kg_xcalloc((size_t)ng + 1, sizeof *gdt);
  int *ginput = kg_xcalloc((size_t)ng + 1, sizeof *ginput);
  const char **gcap = kg_xcalloc((size_t)ng + 1, sizeof *gcap);
  if (st == KG_OK) st = kg_alloc_host_outputs(fwd, outs, ov, op);
  if (st == KG_OK) st = kg_run_host(fwd, o->device, ins, in->n_in, caps, in->n_cap, op, nout);
  uint64_t seed = 0, off = 0;
  if (st == KG_OK) kg_compiled_rng_last(fwd, &seed, &off);
  /* the backward's inputs: weights (one random tensor per result with a gradient), parameters,
   * results and saved values of the forward's run */
  for (int i = 0; i < nb && st == KG_OK; i++) {
    int src = 0, idx = 0;
    kg_compiled_backward_input(fwd, i, &src, &idx);
    switch (src) {
    case KG_BWD_IN_GRAD:
      if (!wts[idx].data) {
        const kg_npy *res = &outs[idx];
        if (kg_npy_random_in(&wts[idx], res->dtype, res->rank, res->shape, o->seed * 7919u + (uint64_t)idx + 101, false, (const double[2]){-1, 1}) != 0) {
          st = KG_ERR_INPUT;
          break;
        }
        kg_npy_dlview(&wts[idx], &wv[idx]);
        wpaths[idx] = kg_arena_printf(A, "%s/weight%d.npy", in->dir, idx);
        if (kg_npy_write(wpaths[idx], &wts[idx], d) != 0) st = KG_ERR_INTERNAL;
      }
      bins[i] = &wv[idx];
      break;
    case KG_BWD_IN_INPUT: bins[i] = &views[idx]; break;
    case KG_BWD_IN_CAPTURE: bins[i] = &views[in->n_in + idx]; break;
    case KG_BWD_IN_RESULT: bins[i] = &ov[idx]; break;
    default: bins[i] = &ov[nres + idx]; break;
    }
  }
  if (st == KG_OK && bwd) {
    kg_compiled_rng_pin(bwd, 1, seed, off);
    st = kg_alloc_host_outputs(bwd, gouts, gv, gp);
    if (st == KG_OK) st = kg_run_host(bwd, o->device, bins, nb, NULL, 0, gp, ng);
  }
  /* one row per wanted parameter, in parameter order: kgen's gradient, or none (the oracle then
   * wants PyTorch to have none either) */
  const kg_graph *g = fwd ? kg_compiled_graph(fwd) : NULL;
  int nw = 0;
  for (int i = 0; i < n_all; i++) nw += wants[i];
  r->n_grads = nw;
  r->grad_names = kg_xcalloc((size_t)nw + 1, sizeof *r->grad_names);
  gpaths = realloc(gpaths, ((size_t)nw + 1) * sizeof *gpaths), gdt = realloc(gdt, ((size_t)nw + 1) * sizeof *gdt);
  ginput = realloc(ginput, ((size_t)nw + 1) * sizeof *ginput), gcap = realloc(gcap, ((size_t)nw + 1) * sizeof *gcap);
  for (int i = 0, j = 0; i < n_all && st == KG_OK; i++) {
    if (!wants[i]) continue;
    bool cap = i >= in->n_in;
    int idx = cap ? i - in->n_in : i, out = -1;
    for (int k = 0; k < ng; k++) {
      int kc = 0, ki = 0;
      kg_compiled_backward_output(fwd, k, &kc, &ki);
      if ((kc != 0) == cap && ki == idx) out = k;
    }
    ginput[j] = cap ? -1 : idx, gcap[j] = cap ? in->cap_names[idx] : NULL;
    const char *pname = g->params.v[(uint32_t)i].name;
    r->grad_names[j] = kg_xstrdup(kg_arena_printf(A, "grad %s%s", pname, cap ? " (capture)" : ""));
    gdt[j] = kg_dtype_name((kg_dtype)arr[i].dtype);
    gpaths[j] = NULL;
    if (out >= 0) {
      gpaths[j] = kg_arena_printf(A, "%s/grad%d.npy", in->dir, j);
      if (kg_npy_write(gpaths[j], &gouts[out], d) != 0) st = KG_ERR_INTERNAL;
    }
    j++;
  }
  r->n_kernels_fwd = fwd ? kg_compiled_n_kernels(fwd) : 0;
  r->n_kernels_bwd = bwd ? kg_compiled_n_kernels(bwd) : 0;
  r->n_saved = nsaved;
  /* the twin draws from the forward's generator state (kg_rng, the last keyword argument) */
  const char **cn = kg_xcalloc((size_t)in->n_cap + 2, sizeof *cn), **cp = kg_xcalloc((size_t)in->n_cap + 2, sizeof *cp);
  int ncj = in->n_cap;
  for (int i = 0; i < in->n_cap; i++) cn[i] = in->cap_names[i], cp[i] = in->cap_paths[i];
  kg_npy rng;
  memset(&rng, 0, sizeof rng);
  if (st == KG_OK && fwd && kg_compiled_rng_streams(fwd) > 0) {
    uint64_t sv[2] = {seed, off};
    rng.dtype = KG_I64, rng.rank = 1, rng.shape[0] = 2, rng.nbytes = sizeof sv;
    rng.data = kg_xmalloc(sizeof sv);
    memcpy(rng.data, sv, sizeof sv);
    cn[ncj] = "kg_rng", cp[ncj] = kg_arena_printf(A, "%s/rng_grad.npy", in->dir);
    if (kg_npy_write(cp[ncj], &rng, d) != 0) st = KG_ERR_INTERNAL;
    ncj++;
  }
  r->grad_rows = kg_xcalloc((size_t)nw + 1, sizeof *r->grad_rows);
  if (st == KG_OK && nw > 0) {
    kg_oracle_job job;
    memset(&job, 0, sizeof job);
    job.script = in->script, job.fn = in->fn, job.torchscript = !o->eager_python;
    job.inputs = in->in_paths, job.n_inputs = in->n_in;
    job.capture_names = cn, job.captures = cp, job.n_captures = ncj;
    job.ours = gpaths, job.n_outputs = nw, job.expect_dtypes = gdt;
    job.tol_scale = o->tol_scale > 0 ? o->tol_scale : 1;
    job.grad = true, job.fd = o->fd;
    job.weights = wpaths, job.n_weights = nres;
    job.grad_input = ginput, job.grad_capture = gcap;
    if (kg_oracle_check(orc, &job, r->grad_rows, d) != 0)
      st = d->n && d->items[d->n - 1].code == KG_E_UNSUPPORTED ? KG_ERR_INPUT : KG_ERR_INTERNAL; /* PyTorch's autograd cannot */
    for (int j = 0; j < nw && st == KG_OK; j++) r->all_ok &= r->grad_rows[j].ok && r->grad_rows[j].fd_ok;
  }
  if (st == KG_OK && r->all_ok && !o->keep_dir) {
    for (int j = 0; j < nw; j++)
      if (gpaths[j]) remove(gpaths[j]);
    for (int j = 0; j < nres; j++)
      if (wpaths[j]) remove(wpaths[j]);
    if (ncj > in->n_cap) remove(cp[ncj - 1]);
  }
  for (int i = 0; i < n_all; i++) kg_npy_free(&arr[i]);
  for (int i = 0; i < nout; i++) kg_npy_free(&outs[i]);
  for (int i = 0; i < ng; i++) kg_npy_free(&gouts[i]);
  for (int i = 0; i < nres; i++) kg_npy_free(&wts[i]);
  kg_npy_free(&rng);
  free(arr), free(views), free(ins), free(caps), free(wants), free(outs), free(gouts), free(wts), free(ov), free(gv), free(wv), free(op), free(gp);
  free(bins), free(wpaths), free(gpaths), free(gdt), free(ginput), free(gcap), free(cn), free(cp);
  kg_compiled_free(fwd);
  (void)ctx;
  return st;
}
