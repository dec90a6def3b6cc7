/* tests/test_plan.c — control flow over tensors: the host plan (issue 4).
 *
 * Structure (what the plan is: regions, hoisting, selects without reads), the
 * run statistics (kernel launches per iteration, no allocation per iteration,
 * device→host reads only where a condition needs one), trip counts 0 / 1 / many
 * against plain C references, data-dependent whiles, views checked at run time,
 * the null device, and errors that name the F# source. Numeric agreement with
 * PyTorch for every cf_* example is covered by tests/test_examples.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api_int.h"

static kg_context *ctx_new(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

static kg_compiled *load(kg_context *ctx, const char *name, const char *sig, kg_module **mo) {
  char path[512];
  snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, name);
  kg_module *m;
  cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c = NULL;
  cr_assert_eq(kg_specialize(m, NULL, sig, &c), KG_OK, "%s", kg_last_error(ctx));
  *mo = m;
  return c;
}

/* host tensors */
typedef struct ht {
  DLTensor t;
  int64_t shape[8];
  void *data;
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

static void ht_scalar(ht *h, DLDataType dt, const void *v, size_t size) {
  memset(h, 0, sizeof *h);
  h->data = calloc(1, 8);
  memcpy(h->data, v, size);
  h->t.data = h->data;
  h->t.device.device_type = kDLCPU;
  h->t.dtype = dt;
}

static int count_ops(const kg_plan *p, kg_pop_kind k) {
  int n = 0;
  for (uint32_t b = 0; b < p->blocks.n; b++)
    for (uint32_t i = 0; i < p->blocks.v[b].ops.n; i++) n += p->ops.v[p->blocks.v[b].ops.v[i]].kind == k;
  return n;
}

/* y = x; for i in 1 .. n do y <- y * 0.5f + float32 i */
static kg_run_stats run_for_scalar(kg_context *ctx, kg_compiled *c, int32_t n, kg_device_kind dev) {
  int64_t sh[2] = {4, 33};
  float xs[4 * 33];
  for (int i = 0; i < 4 * 33; i++) xs[i] = (float)(i % 17) - 8.0f;
  ht x, s, y;
  ht_f32(&x, 2, sh, xs);
  ht_scalar(&s, (DLDataType){kDLInt, 32, 1}, &n, 4);
  ht_f32(&y, 2, sh, NULL);
  const DLTensor *ins[2] = {&x.t, &s.t};
  DLTensor *outs[1] = {&y.t};
  cr_assert_eq(kg_run(c, dev, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  if (dev == KG_DEVICE_EMU)
    for (int i = 0; i < 4 * 33; i++) {
      float r = xs[i];
      for (int k = 1; k <= n; k++) r = r * 0.5f + (float)k;
      cr_assert_eq(((float *)y.data)[i], r, "n=%d element %d: %g vs %g", n, i, ((float *)y.data)[i], r);
    }
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  free(x.data), free(s.data), free(y.data);
  return st;
}

Test(plan, for_trip_counts_launches_and_no_allocation_per_iteration) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_for_scalar_bound", NULL, &m);
  cr_assert_not_null(c->plan, "a loop with a run-time bound is a plan loop");
  cr_assert_eq(count_ops(c->plan, KG_P_FOR), 1);
  cr_assert_eq(c->n_regions, 1);
  cr_assert_eq(c->regions[0]->n_kernels, 1, "a body pointwise in its carried tensor is one kernel");
  int32_t trips[] = {-3, 0, 1, 2, 37};
  kg_run_stats st[5];
  for (int i = 0; i < 5; i++) {
    st[i] = run_for_scalar(ctx, c, trips[i], KG_DEVICE_EMU);
    int32_t t = trips[i] < 0 ? 0 : trips[i];
    cr_expect_eq(st[i].iterations, (uint64_t)t, "n=%d: %llu iterations", trips[i], (unsigned long long)st[i].iterations);
    cr_expect_eq(st[i].launches, (uint64_t)t + 1, "n=%d: one kernel per iteration + the output copy (a loop result), got %llu", trips[i],
                 (unsigned long long)st[i].launches);
    cr_expect_eq(st[i].reads, 0u);
  }
  /* buffers: carried values alternate between two pool buffers, kept by the compiled entry
   * between runs: iterations after the second allocate nothing, nor does a later run */
  cr_expect_leq(st[3].device_allocs, 2u, "2 trips: %llu allocations", (unsigned long long)st[3].device_allocs);
  cr_expect_eq(st[4].device_allocs, 0u, "37 trips after a run of 2: %llu allocations", (unsigned long long)st[4].device_allocs);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, rnn_one_region_per_step_and_views) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_rnn_elman", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_expect_eq(count_ops(c->plan, KG_P_FOR), 1);
  cr_expect_eq(count_ops(c->plan, KG_P_VIEW), 1, "x.[t] is a host view (its index is the loop's); the unsqueezes are graph ops, in the kernels");
  cr_expect_eq(count_ops(c->plan, KG_P_READ), 0);
  cr_expect_eq(c->n_regions, 1, "the views move up: the step's tensor work is one region");
  /* run it: 7 steps, each the region's kernels, then one output copy */
  int64_t sx[3] = {7, 3, 5}, swx[2] = {5, 6}, swh[2] = {6, 6}, sb[1] = {6}, sh0[2] = {3, 6};
  float xv[105], wxv[30], whv[36], bv[6], h0v[18];
  for (int i = 0; i < 105; i++) xv[i] = sinf((float)i);
  for (int i = 0; i < 30; i++) wxv[i] = cosf((float)i) * 0.5f;
  for (int i = 0; i < 36; i++) whv[i] = sinf((float)i * 0.7f) * 0.4f;
  for (int i = 0; i < 6; i++) bv[i] = 0.1f * (float)i;
  for (int i = 0; i < 18; i++) h0v[i] = 0.05f * (float)(i % 5);
  ht x, wx, wh, b, h0, out;
  ht_f32(&x, 3, sx, xv), ht_f32(&wx, 2, swx, wxv), ht_f32(&wh, 2, swh, whv), ht_f32(&b, 1, sb, bv), ht_f32(&h0, 2, sh0, h0v);
  ht_f32(&out, 2, sh0, NULL);
  const DLTensor *ins[5] = {&x.t, &wx.t, &wh.t, &b.t, &h0.t};
  DLTensor *outs[1] = {&out.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 5, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.launches, 7 * (uint64_t)c->regions[0]->n_kernels + 1, "%llu launches", (unsigned long long)st.launches);
  /* reference: h <- tanh(x[t] @ wx + h @ wh + b) in double */
  double h[18];
  for (int i = 0; i < 18; i++) h[i] = h0v[i];
  for (int t = 0; t < 7; t++) {
    double hn[18];
    for (int bb = 0; bb < 3; bb++)
      for (int k = 0; k < 6; k++) {
        double a = bv[k];
        for (int i = 0; i < 5; i++) a += (double)xv[t * 15 + bb * 5 + i] * wxv[i * 6 + k];
        for (int j = 0; j < 6; j++) a += h[bb * 6 + j] * whv[j * 6 + k];
        hn[bb * 6 + k] = tanh(a);
      }
    memcpy(h, hn, sizeof h);
  }
  for (int i = 0; i < 18; i++) cr_expect(fabs(((float *)out.data)[i] - h[i]) < 1e-5, "h[%d] = %g, expected %g", i, ((float *)out.data)[i], h[i]);
  free(x.data), free(wx.data), free(wh.data), free(b.data), free(h0.data), free(out.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* cf_rnn_matmul: h <- tanh(x.[t] @ wx + h @ wh + b) with K = 150 and 24: both products are
 * folded into the step's pointwise kernel (passes/fold_products.c), so a step is ONE launch;
 * force_variant 5 keeps them tiled (two kernels per step). Both against a double reference. */
static void rnn_matmul_case(int force_variant, uint32_t want_kernels) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.force_variant = force_variant;
  kg_context *ctx = kg_context_new(&o);
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_rnn_matmul", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_assert_eq(c->n_regions, 1);
  cr_expect_eq(c->regions[0]->n_kernels, want_kernels, "variant %d: %u kernels per step", force_variant, c->regions[0]->n_kernels);
  enum { T = 5, B = 3, I = 150, H = 24 };
  int64_t sx[3] = {T, B, I}, swx[2] = {I, H}, swh[2] = {H, H}, sb[1] = {H}, sh0[2] = {B, H};
  static float xv[T * B * I], wxv[I * H], whv[H * H], bv[H], h0v[B * H];
  for (int i = 0; i < T * B * I; i++) xv[i] = sinf((float)i * 0.37f);
  for (int i = 0; i < I * H; i++) wxv[i] = cosf((float)i * 0.11f) * 0.08f;
  for (int i = 0; i < H * H; i++) whv[i] = sinf((float)i * 0.7f) * 0.2f;
  for (int i = 0; i < H; i++) bv[i] = 0.05f * (float)(i % 7) - 0.1f;
  for (int i = 0; i < B * H; i++) h0v[i] = 0.03f * (float)(i % 5);
  ht x, wx, wh, b, h0, out;
  ht_f32(&x, 3, sx, xv), ht_f32(&wx, 2, swx, wxv), ht_f32(&wh, 2, swh, whv), ht_f32(&b, 1, sb, bv), ht_f32(&h0, 2, sh0, h0v);
  ht_f32(&out, 2, sh0, NULL);
  const DLTensor *ins[5] = {&x.t, &wx.t, &wh.t, &b.t, &h0.t};
  DLTensor *outs[1] = {&out.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 5, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.launches, T * (uint64_t)want_kernels + 1, "variant %d: %llu launches for %d steps", force_variant, (unsigned long long)st.launches, T);
  double h[B * H];
  for (int i = 0; i < B * H; i++) h[i] = h0v[i];
  for (int t = 0; t < T; t++) {
    double hn[B * H];
    for (int bb = 0; bb < B; bb++)
      for (int k = 0; k < H; k++) {
        double a = bv[k];
        for (int i = 0; i < I; i++) a += (double)xv[(t * B + bb) * I + i] * wxv[i * H + k];
        for (int j = 0; j < H; j++) a += h[bb * H + j] * whv[j * H + k];
        hn[bb * H + k] = tanh(a);
      }
    memcpy(h, hn, sizeof h);
  }
  for (int i = 0; i < B * H; i++) cr_expect(fabs(((float *)out.data)[i] - h[i]) < 2e-5, "h[%d] = %g, expected %g", i, ((float *)out.data)[i], h[i]);
  free(x.data), free(wx.data), free(wh.data), free(b.data), free(h0.data), free(out.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, rnn_step_with_small_products_is_one_launch) { rnn_matmul_case(0, 1); }
Test(plan, rnn_step_tiled_products_two_launches) { rnn_matmul_case(KG_FORCE_TILED, 2); }

/* while y.abs().max().item() > |limit| + 0.5 do y <- y * 0.5 */
static void while_case(kg_context *ctx, kg_compiled *c, float xmax, float limit, int want_trips) {
  int64_t sh[2] = {5, 7};
  float xs[35];
  for (int i = 0; i < 35; i++) xs[i] = xmax * (float)(i % 7) / 6.0f * (i % 2 ? -1.0f : 1.0f);
  xs[6] = xmax;
  ht x, l, y;
  ht_f32(&x, 2, sh, xs);
  ht_scalar(&l, (DLDataType){kDLFloat, 32, 1}, &limit, 4);
  ht_f32(&y, 2, sh, NULL);
  const DLTensor *ins[2] = {&x.t, &l.t};
  DLTensor *outs[1] = {&y.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.iterations, (uint64_t)want_trips, "max %g limit %g: %llu trips, expected %d", xmax, limit, (unsigned long long)st.iterations,
               want_trips);
  cr_expect_eq(st.reads, (uint64_t)want_trips + 1, "one read per condition evaluated");
  float scale = ldexpf(1.0f, -want_trips);
  for (int i = 0; i < 35; i++) cr_expect_eq(((float *)y.data)[i], xs[i] * scale);
  free(x.data), free(l.data), free(y.data);
}

Test(plan, while_on_device_values_zero_one_many_trips) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_while_item", NULL, &m);
  cr_assert_eq(count_ops(c->plan, KG_P_WHILE), 1);
  cr_assert_eq(count_ops(c->plan, KG_P_READ), 1);
  while_case(ctx, c, 0.25f, 3.0f, 0);  /* 0.25 <= 3.5: no trip */
  while_case(ctx, c, 0.75f, 0.0f, 1);  /* 0.75 > 0.5, 0.375 <= 0.5 */
  while_case(ctx, c, 96.0f, -1.5f, 6); /* 96 / 2^6 = 1.5 <= 2 */
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, pure_branch_on_item_is_a_select_without_read) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_if_item_select", NULL, &m);
  cr_expect(!c->plan || (count_ops(c->plan, KG_P_READ) == 0 && count_ops(c->plan, KG_P_IF) == 0),
            "the condition is computed on the device: no READ, no IF");
  kg_compiled_free(c);
  kg_module_free(m);
  c = load(ctx, "cf_if_item_assign", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_expect_eq(count_ops(c->plan, KG_P_IF), 1, "branches that assign are a plan IF");
  cr_expect_eq(count_ops(c->plan, KG_P_READ), 1);
  int64_t sh[2] = {3, 17};
  float xs[51];
  for (int sign = -1; sign <= 1; sign += 2) {
    for (int i = 0; i < 51; i++) xs[i] = (float)sign * (0.5f + (float)(i % 5)) - (i == 7 ? (float)sign * 6.0f : 0.0f);
    ht x, y;
    ht_f32(&x, 2, sh, xs);
    ht_f32(&y, 2, sh, NULL);
    const DLTensor *ins[1] = {&x.t};
    DLTensor *outs[1] = {&y.t};
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
    kg_run_stats st;
    kg_run_stats_get(c, &st);
    cr_expect_eq(st.reads, 1u);
    double sum = 0;
    for (int i = 0; i < 51; i++) sum += xs[i];
    for (int i = 0; i < 51; i++) {
      float want = sum > 0 ? (xs[i] > 0 ? xs[i] : 0.0f) * 2.0f : tanhf(xs[i]);
      cr_expect(fabsf(((float *)y.data)[i] - want) <= 1e-6f * (1 + fabsf(want)), "sign %d [%d]: %g vs %g", sign, i, ((float *)y.data)[i], want);
    }
    free(x.data), free(y.data);
  }
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, loop_invariant_work_is_hoisted) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_hoist_invariant", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_assert_eq(c->n_regions, 2);
  uint32_t outside = 0, inside = 0;
  for (uint32_t r = 0; r < c->plan->regions.n; r++) {
    if (c->plan->regions.v[r].depth == 0) outside = r;
    else inside = r;
  }
  cr_expect_eq(c->plan->regions.v[outside].depth, 0, "softmax(w) runs before the loop");
  cr_expect_eq(c->plan->regions.v[inside].depth, 1);
  cr_expect_eq(c->regions[inside]->n_kernels, 1, "the loop body is one pointwise kernel");
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, view_index_checked_at_run_time) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  /* cf_narrow_window with a symbolic leading size: the loop bound and the window come from the
   * actual tensor */
  kg_compiled *c = load(ctx, "cf_narrow_window", "float32[T,4]", &m);
  cr_assert_not_null(c->plan);
  cr_expect_geq(count_ops(c->plan, KG_P_SIZE), 1, "x.shape.[0] of a symbolic size is a SIZE step");
  for (int64_t T = 2; T <= 6; T++) {
    int64_t sh[2] = {T, 4}, osh[2] = {3, 4};
    float xs[24];
    for (int i = 0; i < 24; i++) xs[i] = (float)i;
    ht x, y;
    ht_f32(&x, 2, sh, xs);
    ht_f32(&y, 2, osh, NULL);
    const DLTensor *ins[1] = {&x.t};
    DLTensor *outs[1] = {&y.t};
    kg_status s = kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL);
    if (T < 3) {
      /* zeros_like(x.narrow(0, 0, 3)) needs 3 rows */
      cr_expect_eq(s, KG_ERR_INPUT, "T=%lld", (long long)T);
      cr_expect(strstr(kg_last_error(ctx), "narrow") != NULL && strstr(kg_last_error(ctx), "cf_narrow_window.fs") != NULL, "%s",
                kg_last_error(ctx));
    } else {
      cr_assert_eq(s, KG_OK, "%s", kg_last_error(ctx));
      for (int i = 0; i < 12; i++) {
        float want = 0;
        for (int t = 0; t <= T - 3; t++) want += xs[t * 4 + i];
        cr_expect_eq(((float *)y.data)[i], want);
      }
    }
    free(x.data), free(y.data);
  }
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, null_device_runs_the_plan_without_kernels) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_for_scalar_bound", NULL, &m);
  kg_run_stats st = run_for_scalar(ctx, c, 50, KG_DEVICE_NULL);
  cr_expect_eq(st.iterations, 50u);
  cr_expect_eq(st.launches, 51u, "launches are counted (and do nothing)");
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(plan, explain_and_twin_show_the_control_flow) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_lstm", NULL, &m);
  char *ex, *ts;
  size_t n;
  cr_assert_eq(kg_emit(c, KG_ART_EXPLAIN, 0, &ex, &n), KG_OK);
  cr_expect(strstr(ex, "== host plan") && strstr(ex, "FOR %") && strstr(ex, "carried(") && strstr(ex, "select("), "%s", ex);
  cr_assert_eq(kg_emit(c, KG_ART_TORCHSCRIPT, 0, &ts, &n), KG_OK);
  cr_expect(strstr(ts, "for t") && strstr(ts, "in range(") && strstr(ts, "torch.select(") && strstr(ts, ".reshape("), "%s", ts);
  free(ex), free(ts);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* the plan over empty, single-element and strided (column-major) inputs */
Test(plan, empty_single_and_strided_inputs) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  const char *sigs[2] = {"float32[0,33], int32", "float32[1,1], int32"};
  int64_t shapes[2][2] = {{0, 33}, {1, 1}};
  for (int k = 0; k < 2; k++) {
    kg_compiled *c = load(ctx, "cf_for_scalar_bound", sigs[k], &m);
    float xs[1] = {3.0f};
    ht x, s, y;
    int32_t n = 3;
    ht_f32(&x, 2, shapes[k], xs);
    ht_scalar(&s, (DLDataType){kDLInt, 32, 1}, &n, 4);
    ht_f32(&y, 2, shapes[k], NULL);
    const DLTensor *ins[2] = {&x.t, &s.t};
    DLTensor *outs[1] = {&y.t};
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
    if (k == 1) cr_expect_eq(((float *)y.data)[0], ((3.0f * 0.5f + 1.0f) * 0.5f + 2.0f) * 0.5f + 3.0f);
    free(x.data), free(s.data), free(y.data);
    kg_compiled_free(c);
    kg_module_free(m);
  }
  /* x[i][j] at buf[i + 4 j] */
  kg_compiled *c = load(ctx, "cf_for_scalar_bound", NULL, &m);
  int64_t sh[2] = {4, 33}, st[2] = {1, 4};
  float buf[132];
  for (int i = 0; i < 132; i++) buf[i] = (float)(i % 11) - 5.0f;
  ht x, s, y;
  int32_t n = 4;
  ht_f32(&x, 2, sh, buf);
  x.t.strides = st;
  ht_scalar(&s, (DLDataType){kDLInt, 32, 1}, &n, 4);
  ht_f32(&y, 2, sh, NULL);
  const DLTensor *ins[2] = {&x.t, &s.t};
  DLTensor *outs[1] = {&y.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 33; j++) {
      float r = buf[i + 4 * j];
      for (int q = 1; q <= n; q++) r = r * 0.5f + (float)q;
      cr_expect_eq(((float *)y.data)[i * 33 + j], r, "[%d,%d]", i, j);
    }
  free(x.data), free(s.data), free(y.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* the four gates are selects of one product at constant indices: graph ops read inside the
 * gate kernel, so a step is one region; x.[t] (the loop's index) is the one host view */
Test(plan, lstm_gates_after_views_are_one_region) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_lstm", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_assert_eq(c->n_regions, 1, "%u regions", c->n_regions);
  cr_expect_eq(count_ops(c->plan, KG_P_VIEW), 1);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* a loop that only moves a view of an input and counts on the host launches nothing */
Test(plan, loop_of_views_and_host_arithmetic_launches_nothing) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_carry_views", NULL, &m);
  int64_t sh[2] = {6, 4}, osh[1] = {4};
  float xs[24];
  for (int i = 0; i < 24; i++) xs[i] = (float)i;
  ht x, y;
  ht_f32(&x, 2, sh, xs);
  ht_f32(&y, 1, osh, NULL);
  const DLTensor *ins[1] = {&x.t};
  DLTensor *outs[1] = {&y.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.iterations, 6u);
  cr_expect_eq(st.launches, 1u, "only the multiply after the loop, straight into the output: %llu", (unsigned long long)st.launches);
  for (int i = 0; i < 4; i++) cr_expect_eq(((float *)y.data)[i], xs[20 + i] * 15.0f);
  /* the output aliasing the input's first row: written by a copy at the end instead */
  y.t.data = x.data;
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 1, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.launches, 2u, "the multiply, then the copy into the aliased output: %llu", (unsigned long long)st.launches);
  for (int i = 0; i < 4; i++) cr_expect_eq(((float *)x.data)[i], xs[20 + i] * 15.0f);
  for (int i = 4; i < 24; i++) cr_expect_eq(((float *)x.data)[i], xs[i], "the rest of x is untouched");
  free(x.data), free(y.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* host evaluation of the plan's numbers: the kernels' semantics, plus libm transcendentals
 * at the value's precision and clamp */
Test(plan, host_number_evaluation) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_EXP, n.dtype = n.cdtype = KG_F32, n.vkind = KG_V_SCALAR, n.n_in = 1;
  kg_cval a[3] = {kg_cval_float(KG_F32, 1.0)}, r;
  cr_expect_not(kg_eval_node(&n, a, &r), "folding never evaluates a transcendental");
  cr_assert(kg_eval_node_host(&n, a, &r));
  cr_expect_eq(r.f, (double)expf(1.0f), "float32 exp is expf: %.17g", r.f);
  n.dtype = n.cdtype = KG_F64;
  a[0] = kg_cval_float(KG_F64, 1.0);
  cr_assert(kg_eval_node_host(&n, a, &r));
  cr_expect_eq(r.f, exp(1.0));
  n.op = KG_OP_POW, n.n_in = 2, n.dtype = n.cdtype = KG_F32;
  a[0] = kg_cval_float(KG_F32, 2.0), a[1] = kg_cval_float(KG_F32, 0.5);
  cr_assert(kg_eval_node_host(&n, a, &r));
  cr_expect_eq(r.f, (double)powf(2.0f, 0.5f));
  n.op = KG_OP_CLAMP, n.n_in = 3, n.dtype = n.cdtype = KG_I32;
  a[0] = kg_cval_int(KG_I32, 17), a[1] = kg_cval_int(KG_I32, -3), a[2] = kg_cval_int(KG_I32, 5);
  cr_assert(kg_eval_node_host(&n, a, &r));
  cr_expect_eq(r.i, 5);
  n.dtype = n.cdtype = KG_F32;
  a[0] = kg_cval_float(KG_F32, NAN), a[1] = kg_cval_float(KG_F32, 0), a[2] = kg_cval_float(KG_F32, 1);
  cr_assert(kg_eval_node_host(&n, a, &r));
  cr_expect(isnan(r.f), "clamp propagates NaN as the kernels do");
  n.op = KG_OP_MAP, n.n_in = 1;
  cr_expect_not(kg_eval_node_host(&n, a, &r));
}

/* a read of a value that does not change in the loop moves before it: one sync, not one
 * per iteration */
Test(plan, invariant_read_is_hoisted) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_while_invariant_read", NULL, &m);
  cr_assert_not_null(c->plan);
  const kg_pblock *b0 = &c->plan->blocks.v[0];
  int reads_before = 0;
  uint32_t w = KG_NONE;
  for (uint32_t i = 0; i < b0->ops.n; i++) {
    const kg_pop *o = &c->plan->ops.v[b0->ops.v[i]];
    if (o->kind == KG_P_READ && w == KG_NONE) reads_before++;
    if (o->kind == KG_P_WHILE) w = b0->ops.v[i];
  }
  cr_assert_neq(w, KG_NONE);
  cr_expect_eq(reads_before, 1, "max|x| is read once, before the loop");
  int reads_in_cond = 0;
  const kg_pblock *cb = &c->plan->blocks.v[c->plan->ops.v[w].cond];
  for (uint32_t i = 0; i < cb->ops.n; i++) reads_in_cond += c->plan->ops.v[cb->ops.v[i]].kind == KG_P_READ;
  cr_expect_eq(reads_in_cond, 1, "only max|y| is read per iteration");
  int64_t sx[2] = {6, 5}, sy[2] = {4, 4};
  float xs[30], ys[16];
  for (int i = 0; i < 30; i++) xs[i] = (float)(i % 5) - 2.0f; /* max |x| = 2: the limit is 0.5 */
  for (int i = 0; i < 16; i++) ys[i] = (float)i;              /* 15 -> 7.5 -> ... -> 0.46875: 5 trips */
  ht x, y, out;
  ht_f32(&x, 2, sx, xs), ht_f32(&y, 2, sy, ys), ht_f32(&out, 2, sy, NULL);
  const DLTensor *ins[2] = {&x.t, &y.t};
  DLTensor *outs[1] = {&out.t};
  cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  kg_run_stats_get(c, &st);
  cr_expect_eq(st.iterations, 5u);
  cr_expect_eq(st.reads, 1u + 6u, "one read of x, one of y per condition (6): %llu", (unsigned long long)st.reads);
  for (int i = 0; i < 16; i++) cr_expect_eq(((float *)out.data)[i], ys[i] / 32.0f);
  free(x.data), free(y.data), free(out.data);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* ---- the partition pass on a hand-built plan ---- */

static uint32_t pnode(kg_graph *g, kg_op op, kg_dtype dt, bool scalar, uint32_t a, uint32_t b) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = scalar ? KG_V_SCALAR : KG_V_TENSOR;
  if (!scalar) n.shape.rank = 1, n.shape.d[0] = (kg_dim){KG_DIM_STATIC, 4};
  if (a != KG_NONE) n.in[n.n_in++] = a;
  if (b != KG_NONE) n.in[n.n_in++] = b;
  return kg_graph_add(g, &n);
}

static uint32_t *ids(kg_arena *a, int n, ...) {
  va_list ap;
  va_start(ap, n);
  uint32_t *v = kg_arena_alloc(a, (size_t)(n + 1) * sizeof *v);
  for (int i = 0; i < n; i++) v[i] = va_arg(ap, uint32_t);
  va_end(ap);
  return v;
}

/* if k > 2 then (x * (k + k)) else -x, where the then-branch mixes a host number (k + k) with
 * tensor work: scheduling it splits that step, appending to the plan's op array. The scheduler
 * held a pointer to the IF step across that and then read the else-branch through it (a
 * heap-use-after-free when the append reallocated). `pad` empty steps before the IF sweep the
 * op count so that for some pad the split is the append that reallocates (the AddressSanitizer
 * pass of tools/test.sh trips on the old code; a KGEN_VEC_MOVE build for every pad). */
Test(plan, partition_survives_op_array_growth_while_splitting) {
  for (int pad = 0; pad < 40; pad++) {
    kg_arena arena;
    kg_arena_init(&arena);
    kg_graph g;
    kg_graph_init(&g, &arena, "f");
    uint32_t x = pnode(&g, KG_OP_INPUT, KG_F32, false, KG_NONE, KG_NONE);
    uint32_t k = pnode(&g, KG_OP_INPUT, KG_I64, true, KG_NONE, KG_NONE);
    g.nodes.v[k].ia[0] = 1;
    uint32_t two = pnode(&g, KG_OP_CONST, KG_I64, true, KG_NONE, KG_NONE);
    g.nodes.v[two].ia[0] = 2;
    uint32_t cond = pnode(&g, KG_OP_GT, KG_BOOL, true, k, two);
    uint32_t kk = pnode(&g, KG_OP_ADD, KG_I64, true, k, k);
    uint32_t prod = pnode(&g, KG_OP_MUL, KG_F32, false, x, kk);
    uint32_t neg = pnode(&g, KG_OP_NEG, KG_F32, false, x, KG_NONE);
    uint32_t res = pnode(&g, KG_OP_PLANVAL, KG_F32, false, KG_NONE, KG_NONE);
    KG_VEC_PUSH(g.outputs, res);
    kg_plan p;
    kg_plan_init(&p, &arena);
    uint32_t bthen = kg_plan_block(&p), belse = kg_plan_block(&p);
    kg_pop o;
    memset(&o, 0, sizeof o);
    o.a = o.b = o.c = o.body = o.els = o.cond = o.region = KG_NONE;
    o.kind = KG_P_NODES;
    o.nodes = ids(&arena, 0), o.n_nodes = 0;
    for (int i = 0; i < pad; i++) kg_plan_op(&p, 0, o); /* empty steps */
    o.nodes = ids(&arena, 1, cond), o.n_nodes = 1;
    kg_plan_op(&p, 0, o);
    o.nodes = ids(&arena, 2, kk, prod), o.n_nodes = 2;
    kg_plan_op(&p, bthen, o);
    o.nodes = ids(&arena, 1, neg), o.n_nodes = 1;
    kg_plan_op(&p, belse, o);
    kg_pop f = o;
    f.kind = KG_P_IF, f.nodes = NULL, f.n_nodes = 0;
    f.c = cond, f.body = bthen, f.els = belse, f.n_car = 1;
    f.yld = ids(&arena, 1, prod), f.yld2 = ids(&arena, 1, neg), f.res = ids(&arena, 1, res);
    kg_plan_op(&p, 0, f);
    kg_diag d;
    kg_diag_init(&d);
    kg_pass_ctx pc = {&arena, &d, false, NULL, NULL, false, false, false, false};
    cr_assert(kg_plan_partition(&p, &g, &pc), "pad %d", pad);
    /* the else branch was scheduled and partitioned too: its negation is a region of its own */
    bool neg_region = false;
    for (uint32_t r = 0; r < p.regions.n; r++)
      neg_region |= p.regions.v[r].block == belse && p.regions.v[r].nodes.n == 1 && p.regions.v[r].nodes.v[0] == neg;
    cr_expect(neg_region, "pad %d: the else branch's region", pad);
    kg_diag_free(&d);
    kg_plan_free(&p);
    kg_graph_free(&g);
    kg_arena_free(&arena);
  }
}

/* ---- F#'s loops over int64 and stepped ranges, arrays, lists, Seq.iter (frontend/seqloop.c) ---- */

/* examples/cf_int64_ranges: `for t in 0L .. n - 1L`, `0L .. 2L .. n - 1L`, `n - 1L .. -1L .. 0L`
 * over a run-time T are three plan FORs; each runs its F# trip count (the stepped ones over their
 * iteration count) and computes what the F# loops compute */
Test(plan, int64_and_stepped_ranges_are_plan_loops) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "cf_int64_ranges", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_expect_eq(count_ops(c->plan, KG_P_FOR), 3, "three loops over a run-time size");
  const int64_t Ts[] = {1, 2, 3, 7};
  for (int ti = 0; ti < 4; ti++) {
    int64_t T = Ts[ti], sh[2] = {T, 16}, wsh[1] = {16};
    float xs[7 * 16], ws[16];
    for (int i = 0; i < T * 16; i++) xs[i] = (float)((i * 7) % 19 - 9) * 0.25f;
    for (int i = 0; i < 16; i++) ws[i] = (float)(i % 5) * 0.2f - 0.4f;
    ht x, w, o[3];
    ht_f32(&x, 2, sh, xs);
    ht_f32(&w, 1, wsh, ws);
    for (int k = 0; k < 3; k++) ht_f32(&o[k], 1, wsh, NULL);
    const DLTensor *ins[2] = {&x.t, &w.t};
    DLTensor *outs[3] = {&o[0].t, &o[1].t, &o[2].t};
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 2, NULL, 0, outs, 3, NULL), KG_OK, "T=%lld: %s", (long long)T, kg_last_error(ctx));
    kg_run_stats st;
    kg_run_stats_get(c, &st);
    cr_expect_eq(st.iterations, (uint64_t)(T + (T + 1) / 2 + T), "T=%lld: %llu iterations", (long long)T, (unsigned long long)st.iterations);
    for (int j = 0; j < 16; j++) {
      float h = 0, even = 0, back = 0;
      for (int64_t t = 0; t < T; t++) h = tanhf(xs[t * 16 + j] + h * ws[j]);
      for (int64_t t = 0; t <= T - 1; t += 2) even += xs[t * 16 + j];
      for (int64_t t = T - 1; t >= 0; t--) back = tanhf(xs[t * 16 + j] + back * ws[j]);
      float got[3] = {((float *)o[0].data)[j], ((float *)o[1].data)[j], ((float *)o[2].data)[j]}, want[3] = {h, even, back};
      for (int k = 0; k < 3; k++) cr_expect(fabsf(got[k] - want[k]) <= 1e-5f, "T=%lld out%d[%d]: %g vs %g", (long long)T, k, j, got[k], want[k]);
    }
    free(x.data), free(w.data);
    for (int k = 0; k < 3; k++) free(o[k].data);
  }
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* examples/fs_seq_loops: the loops over arrays and a list are unrolled (the items are tensors of
 * their own), Seq.iter / List.iter over run-time ranges are the plan's two FORs (List.iter's
 * [1L .. 3L .. N - 1L] is empty for N = 1), and the int64 ranges in the map lambda (reversed,
 * stepped) are element-level loops */
Test(plan, loops_over_arrays_lists_and_iter) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "fs_seq_loops", NULL, &m);
  cr_assert_not_null(c->plan);
  cr_expect_eq(count_ops(c->plan, KG_P_FOR), 2, "Seq.iter and List.iter over run-time ranges; the arrays and the list unrolled");
  const int64_t Ns[] = {1, 2, 5, 8};
  for (int ni = 0; ni < 4; ni++) {
    int64_t N = Ns[ni], sh[2] = {N, 8}, vsh[1] = {8};
    float xs[8 * 8], as[8], bs[8];
    for (int i = 0; i < N * 8; i++) xs[i] = (float)((i * 5) % 17 - 8) * 0.3f;
    for (int i = 0; i < 8; i++) as[i] = (float)(i - 4) * 0.25f, bs[i] = (float)(3 - i) * 0.5f;
    ht x, a, b, acc, rows, poly;
    ht_f32(&x, 2, sh, xs);
    ht_f32(&a, 1, vsh, as);
    ht_f32(&b, 1, vsh, bs);
    ht_f32(&acc, 2, sh, NULL);
    ht_f32(&rows, 1, vsh, NULL);
    ht_f32(&poly, 2, sh, NULL);
    const DLTensor *ins[3] = {&x.t, &a.t, &b.t};
    DLTensor *outs[3] = {&acc.t, &rows.t, &poly.t};
    cr_assert_eq(kg_run(c, KG_DEVICE_EMU, ins, 3, NULL, 0, outs, 3, NULL), KG_OK, "N=%lld: %s", (long long)N, kg_last_error(ctx));
    kg_run_stats st;
    kg_run_stats_get(c, &st);
    int64_t listed = N > 1 ? (N - 2) / 3 + 1 : 0; /* [1L .. 3L .. N - 1L] */
    cr_expect_eq(st.iterations, (uint64_t)(N + listed), "N=%lld: %llu iterations", (long long)N, (unsigned long long)st.iterations);
    const float ss[5] = {0.5f, 0.25f, 2.0f, 1.5f, 0.75f};
    for (int j = 0; j < 8; j++) {
      float r = 0;
      for (int64_t t = 0; t < N; t++) r += xs[t * 8 + j];
      for (int64_t t = 1; t <= N - 1; t += 3) r = r * 0.5f + xs[t * 8 + j];
      cr_expect(fabsf(((float *)rows.data)[j] - r) <= 1e-5f * (1 + fabsf(r)), "N=%lld rows[%d]: %g vs %g", (long long)N, j, ((float *)rows.data)[j], r);
      float ab = as[j] * bs[j];
      for (int64_t t = 0; t < N; t++) {
        float v = xs[t * 8 + j], s = 0;
        s = s + v * as[j], s = s + v * bs[j], s = s + v * ab;
        for (int k = 0; k < 5; k++) s = tanhf(s * ss[k]);
        s = s - 1.0f / (1.0f + expf(-as[j]));
        s = s - (bs[j] > 0 ? bs[j] : 0);
        float p = 0;
        for (int64_t k = 4; k >= 0; k--) p = p * 0.5f * v + (float)k;
        for (int64_t k = 0; k <= 5; k += 2) p = p - 0.01f * (float)k * v;
        float ga = ((float *)acc.data)[t * 8 + j], gp = ((float *)poly.data)[t * 8 + j];
        cr_expect(fabsf(ga - s) <= 1e-5f, "N=%lld acc[%lld,%d]: %g vs %g", (long long)N, (long long)t, j, ga, s);
        cr_expect(fabsf(gp - p) <= 1e-5f * (1 + fabsf(p)), "N=%lld poly[%lld,%d]: %g vs %g", (long long)N, (long long)t, j, gp, p);
      }
    }
    free(x.data), free(a.data), free(b.data), free(acc.data), free(rows.data), free(poly.data);
  }
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
}

/* examples/fs_split_overloads: x.split(3L, 2L) binds to split(params int64[] sizes); kgen warns
 * (located at the call), the explicit spellings x.split(3L, 2) and x.split([| 1L; 4L |]) do not */
Test(plan, split_with_two_int64_arguments_warns) {
  kg_context *ctx = ctx_new();
  kg_module *m;
  kg_compiled *c = load(ctx, "fs_split_overloads", NULL, &m);
  const char *w = kg_compiled_warnings(c);
  cr_expect_not_null(strstr(w, "fs_split_overloads.fs:11:20: warning: x.split(3L, 2L) is TorchSharp's split(params int64[] sizes): pieces of 3 and 2 along dim 0; "
                               "for pieces of 3 along dim 2 write x.split(3L, 2)"),
                     "%s", w);
  const char *first = strstr(w, "warning");
  cr_expect(first && !strstr(first + 1, "warning"), "one warning only: %s", w);
  kg_compiled_free(c);
  kg_module_free(m); /* (sizes that do not sum to dim 0: tests/bad/split_sizes_params) */
  kg_context_free(ctx);
}
