/* tests/test_scatter.c — select_scatter written in place by the host plan (passes/plan_inplace.c,
 * runtime/plan.c try_inplace): the sequence loops of issue 23's nn.LSTM / GRU / RNN.
 *
 * Structure: the step's region lists the select_scatter, a fallback region composes it; a step
 * is one launch (the product folded, h stored straight into row t), the first step composes the
 * whole tensor once (the loop's initial zeros still hold its buffer), every later one writes in
 * place (kg_run_stats.inplace_writes = T - 1); no region of a loop body but the fallback writes a
 * T-sized value (bytes per step O(N·H)); lstm_tagger's four layer loops are one kernel per step.
 * Numerics against a double reference: T = 1, 2 and odd, forward and backward; the cases that
 * must not be done in place (the old buffer read again, a strided slice along dim 1) fall back
 * and still match; an index out of range is PyTorch's error. PyTorch itself checks the same
 * entries through tests/test_examples.c (examples/cf_select_scatter, rnn_seq_modules, lstm_tagger). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api_int.h"

static kg_compiled *load(kg_context **ctx, const char *doc, const char *entry, kg_module **mo) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  *ctx = kg_context_new(&o);
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, doc);
  cr_assert_eq(kg_module_load_file(*ctx, path, mo), KG_OK, "%s", kg_last_error(*ctx));
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(*mo, entry, NULL, &c), KG_OK, "%s", kg_last_error(*ctx));
  cr_assert_not_null(c->plan);
  return c;
}

typedef struct ht {
  DLTensor t;
  int64_t shape[4];
  float *data;
} ht;

static void ht_f32(ht *h, int rank, const int64_t *shape, const float *vals) {
  memset(h, 0, sizeof *h);
  size_t n = 1;
  for (int i = 0; i < rank; i++) h->shape[i] = shape[i], n *= (size_t)shape[i];
  h->data = calloc(n + 1, sizeof(float));
  if (vals) memcpy(h->data, vals, n * sizeof(float));
  h->t.data = h->data;
  h->t.device.device_type = kDLCPU;
  h->t.ndim = rank;
  h->t.shape = h->shape;
  h->t.dtype = (DLDataType){kDLFloat, 32, 1};
}

/* the in-place and fallback REGION steps of the plan */
static void count_steps(const kg_plan *p, int *inplace, int *fallback) {
  *inplace = *fallback = 0;
  for (uint32_t i = 0; i < p->ops.n; i++) {
    const kg_pop *o = &p->ops.v[i];
    if (o->kind != KG_P_REGION) continue;
    *inplace += (int)o->n_nodes;
    *fallback += o->a != KG_NONE;
  }
}

enum { B = 3, I = 5, H = 6, TMAX = 9 };

/* cf_scatter_rows (rev 0: out, h) / cf_scatter_rows_reverse (rev 1: out): h <- tanh(x[t] wx + h wh),
 * out[t] = h, t walking up or down */
static void rows_case(const char *entry, int rev, int T) {
  kg_context *ctx;
  kg_module *m;
  kg_compiled *c = load(&ctx, "cf_select_scatter", entry, &m);
  int ip, fb;
  count_steps(c->plan, &ip, &fb);
  cr_expect_eq(ip, 1, "the step's region writes the select_scatter in place");
  cr_expect_eq(fb, 1, "with a fallback region composing it");
  float xv[TMAX * B * I], wxv[I * H], whv[H * H], h0v[B * H];
  for (int i = 0; i < TMAX * B * I; i++) xv[i] = sinf((float)i * 0.37f);
  for (int i = 0; i < I * H; i++) wxv[i] = cosf((float)i * 0.11f) * 0.4f;
  for (int i = 0; i < H * H; i++) whv[i] = sinf((float)i * 0.7f) * 0.3f;
  for (int i = 0; i < B * H; i++) h0v[i] = 0.03f * (float)(i % 5);
  int64_t sx[3] = {T, B, I}, swx[2] = {I, H}, swh[2] = {H, H}, sh[2] = {B, H}, so[3] = {T, B, H};
  ht x, wx, wh, h0, out, hl;
  ht_f32(&x, 3, sx, xv), ht_f32(&wx, 2, swx, wxv), ht_f32(&wh, 2, swh, whv), ht_f32(&h0, 2, sh, h0v);
  ht_f32(&out, 3, so, NULL), ht_f32(&hl, 2, sh, NULL);
  const DLTensor *ins[4] = {&x.t, &wx.t, &wh.t, &h0.t};
  DLTensor *outs[2] = {&out.t, &hl.t};
  int nout = rev ? 1 : 2;
  for (int run = 0; run < 2; run++) {
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 4, NULL, 0, outs, nout, NULL), KG_OK, "%s", kg_last_error(ctx));
    kg_run_stats st;
    kg_run_stats_get(c, &st);
    /* the zeros, one kernel per step, the first step's composed write, the outputs' copies */
    cr_expect_eq(st.launches, 1 + (uint64_t)T + 1 + (uint64_t)nout, "%s T=%d: %llu launches", entry, T, (unsigned long long)st.launches);
    cr_expect_eq(st.inplace_writes, (uint64_t)T - 1, "%s T=%d: %llu rows written in place", entry, T, (unsigned long long)st.inplace_writes);
    if (run == 1) cr_expect_eq(st.device_allocs, 0u, "a second run allocates nothing");
  }
  double h[B * H], ref[TMAX * B * H];
  for (int i = 0; i < B * H; i++) h[i] = h0v[i];
  for (int k = 0; k < T; k++) {
    int t = rev ? T - 1 - k : k;
    double hn[B * H];
    for (int b = 0; b < B; b++)
      for (int j = 0; j < H; j++) {
        double a = 0;
        for (int i = 0; i < I; i++) a += (double)xv[(t * B + b) * I + i] * wxv[i * H + j];
        for (int q = 0; q < H; q++) a += h[b * H + q] * whv[q * H + j];
        hn[b * H + j] = tanh(a);
      }
    memcpy(h, hn, sizeof h);
    memcpy(ref + t * B * H, h, sizeof h);
  }
  for (int i = 0; i < T * B * H; i++) cr_expect(fabs(out.data[i] - ref[i]) < 2e-5, "%s T=%d out[%d] = %g, expected %g", entry, T, i, out.data[i], ref[i]);
  if (!rev)
    for (int i = 0; i < B * H; i++) cr_expect(fabs(hl.data[i] - h[i]) < 2e-5, "h[%d] = %g, expected %g", i, hl.data[i], h[i]);
  free(x.data), free(wx.data), free(wh.data), free(h0.data), free(out.data), free(hl.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(scatter, rows_written_in_place_one_launch_per_step) {
  rows_case("cf_scatter_rows", 0, 9);
  rows_case("cf_scatter_rows", 0, 2);
  rows_case("cf_scatter_rows", 0, 1);
}

Test(scatter, rows_written_backward) { rows_case("cf_scatter_rows_reverse", 1, 7); }

/* the old buffer read again after the write (cf_scatter_reread), and a slice along dim 1 of
 * [3, T, 6] (cf_scatter_dim1: strided): never in place, the composed kernel every step */
Test(scatter, reread_and_strided_slices_fall_back) {
  kg_context *ctx;
  kg_module *m;
  enum { T = 5 };
  float xv[T * B * I], wxv[I * H], h0v[B * H];
  for (int i = 0; i < T * B * I; i++) xv[i] = cosf((float)i * 0.29f);
  for (int i = 0; i < I * H; i++) wxv[i] = sinf((float)i * 0.13f) * 0.4f;
  for (int i = 0; i < B * H; i++) h0v[i] = 0.02f * (float)(i % 7);
  int64_t sx[3] = {T, B, I}, swx[2] = {I, H}, sh[2] = {B, H}, so[3] = {T, B, H};
  ht x, wx, h0, out, acc;
  ht_f32(&x, 3, sx, xv), ht_f32(&wx, 2, swx, wxv), ht_f32(&h0, 2, sh, h0v), ht_f32(&out, 3, so, NULL), ht_f32(&acc, 2, sh, NULL);
  kg_compiled *c = load(&ctx, "cf_select_scatter", "cf_scatter_reread", &m);
  const DLTensor *ins[3] = {&x.t, &wx.t, &h0.t};
  DLTensor *outs[2] = {&out.t, &acc.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 3, NULL, 0, outs, 2, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.inplace_writes, 0u, "the old buffer is read after the write: not in place");
  double h[B * H], seq[T * B * H], ac[B * H];
  memset(seq, 0, sizeof seq), memset(ac, 0, sizeof ac);
  for (int i = 0; i < B * H; i++) h[i] = h0v[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < B * H; i++) /* acc += old.sum(0) */
      for (int r = 0; r < T; r++) ac[i] += seq[r * B * H + i];
    for (int b = 0; b < B; b++)
      for (int j = 0; j < H; j++) {
        double a = h[b * H + j];
        for (int i = 0; i < I; i++) a += (double)xv[(t * B + b) * I + i] * wxv[i * H + j];
        seq[t * B * H + b * H + j] = tanh(a);
      }
    memcpy(h, seq + t * B * H, sizeof h);
  }
  for (int i = 0; i < T * B * H; i++) cr_expect(fabs(out.data[i] - seq[i]) < 2e-5, "out[%d] = %g, expected %g", i, out.data[i], seq[i]);
  for (int i = 0; i < B * H; i++) cr_expect(fabs(acc.data[i] - ac[i]) < 1e-4, "acc[%d] = %g, expected %g", i, acc.data[i], ac[i]);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
  /* dim 1 */
  int64_t sx1[3] = {B, T, I}, so1[3] = {B, T, H};
  ht x1, out1;
  ht_f32(&x1, 3, sx1, xv), ht_f32(&out1, 3, so1, NULL);
  c = load(&ctx, "cf_select_scatter", "cf_scatter_dim1", &m);
  const DLTensor *ins1[2] = {&x1.t, &wx.t};
  DLTensor *outs1[1] = {&out1.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins1, 2, NULL, 0, outs1, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.inplace_writes, 0u, "a slice along dim 1 is strided: composed");
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int j = 0; j < H; j++) {
        double a = 0;
        for (int i = 0; i < I; i++) a += (double)xv[(b * T + t) * I + i] * wxv[i * H + j];
        double r = a > 0 ? a : 0, got = out1.data[(b * T + t) * H + j];
        cr_expect(fabs(got - r) < 2e-5, "out[%d,%d,%d] = %g, expected %g", b, t, j, got, r);
      }
  free(x.data), free(wx.data), free(h0.data), free(out.data), free(acc.data), free(x1.data), free(out1.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* issue 23's tagger: every layer and direction's loop body is one kernel (the hidden product
 * folded, the cell, h stored into row t) plus the fallback; no other body region writes a
 * value of the sequence's length */
Test(scatter, lstm_tagger_step_is_one_kernel_without_sequence_writes) {
  kg_context *ctx;
  kg_module *m;
  kg_compiled *c = load(&ctx, "models/lstm_tagger", NULL, &m);
  const kg_plan *p = c->plan;
  int loops = 0;
  for (uint32_t i = 0; i < p->ops.n; i++) {
    const kg_pop *f = &p->ops.v[i];
    if (f->kind != KG_P_FOR) continue;
    loops++;
    int steps = 0, fallbacks = 0;
    const kg_pblock *bl = &p->blocks.v[f->body];
    for (uint32_t k = 0; k < bl->ops.n; k++) {
      const kg_pop *o = &p->ops.v[bl->ops.v[k]];
      if (o->kind != KG_P_REGION) continue;
      if (o->a != KG_NONE) {
        fallbacks++;
        continue;
      }
      steps++;
      cr_expect_eq(o->n_nodes, 1, "the step writes its h in place");
      cr_expect_eq(c->regions[o->region]->n_kernels, 1, "a step is one kernel, got %u", c->regions[o->region]->n_kernels);
      const kg_region *r = &p->regions.v[o->region];
      for (uint32_t q = 0; q < r->outs.n; q++) {
        const kg_gnode *n = &c->g.nodes.v[r->outs.v[q]];
        for (int d = 0; d < n->shape.rank; d++)
          cr_expect_eq(n->shape.d[d].kind, KG_DIM_STATIC, "the step writes %%%u, a value of the sequence's length", r->outs.v[q]);
      }
    }
    cr_expect_eq(steps, 1);
    cr_expect_eq(fallbacks, 1);
  }
  cr_expect_eq(loops, 4, "2 layers x 2 directions");
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* cf_scatter_offset: out[start + k] = v * k for k <= T - 1 - start; start < -T puts the first
 * index out of range: PyTorch's error at the F# call (from the step's in-place check); start = -1
 * a negative index known only at run time, which the first step's composed kernel refuses */
static kg_status offset_case(kg_compiled *c, int64_t T, int64_t start, float *res) {
  int64_t sx[2] = {T, 3}, sv[1] = {3};
  float xv[12], vv[3] = {1.0f, -2.0f, 0.5f};
  for (int i = 0; i < 12; i++) xv[i] = (float)i;
  ht x, v, out;
  ht_f32(&x, 2, sx, xv), ht_f32(&v, 1, sv, vv), ht_f32(&out, 2, sx, NULL);
  DLTensor s;
  memset(&s, 0, sizeof s);
  s.data = &start, s.device.device_type = kDLCPU, s.dtype = (DLDataType){kDLInt, 64, 1};
  const DLTensor *ins[3] = {&x.t, &v.t, &s};
  DLTensor *outs[1] = {&out.t};
  kg_status st = kg_run(c, KG_DEVICE_EMU, ins, 3, NULL, 0, outs, 1, NULL);
  if (res) memcpy(res, out.data, (size_t)T * 3 * sizeof(float));
  free(x.data), free(v.data), free(out.data);
  return st;
}

Test(scatter, index_out_of_range_is_pytorchs_error) {
  kg_context *ctx;
  kg_module *m;
  kg_compiled *c = load(&ctx, "cf_select_scatter", "cf_scatter_offset", &m);
  float r[12];
  cr_assert_eq(offset_case(c, 4, 1, r), KG_OK, "%s", kg_last_error(ctx));
  for (int t = 0; t < 4; t++)
    for (int j = 0; j < 3; j++) {
      float want = t == 0 ? (float)(t * 3 + j) * 2.0f : (float)(t - 1) * (j == 0 ? 1.0f : j == 1 ? -2.0f : 0.5f);
      cr_expect_eq(r[t * 3 + j], want, "out[%d,%d] = %g, expected %g", t, j, r[t * 3 + j], want);
    }
  for (int T = 1; T <= 4; T += 3) {
    cr_expect_eq(offset_case(c, T, -T - 1, NULL), KG_ERR_INPUT, "T=%d, start %d", T, -T - 1);
    const char *e = kg_last_error(ctx);
    cr_expect(strstr(e, "select_scatter(): index") && strstr(e, "out of range") && strstr(e, "cf_select_scatter.fs:"), "T=%d: %s", T, e);
  }
  cr_expect_eq(offset_case(c, 4, -1, NULL), KG_ERR_INPUT);
  const char *e = kg_last_error(ctx);
  cr_expect(strstr(e, "negative index known only at run time") && strstr(e, "cf_select_scatter.fs:"), "%s", e);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}
