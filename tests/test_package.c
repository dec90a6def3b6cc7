/* tests/test_package.c — offline kernel packages (runtime/package_*.c, docs/package.md).
 *
 *   - a package runs like its document: the same examples (pointwise, a host-plan RNN, an
 *     in-place batch norm, dropout, a matmul fold plan) specialized from the package and from the
 *     JSON give bit-identical results on the emulator, with no frontend work (nothing the
 *     document's path would parse);
 *   - the same inputs write a byte-identical file; the header's content hash is the manifest's;
 *   - kg_specialize_for picks the packaged signature the tensors fit, and names them all when
 *     none does; kg_specialize by signature text;
 *   - the null device runs a package with no compiler and no NVRTC;
 *   - the CUDA load path against the stand-in driver (fake_cuda.h), NVRTC made unloadable: the
 *     cubin of the GPU's arch (or an earlier minor), the PTX on a newer GPU, an error naming the
 *     archs on an older one;
 *   - bad files: truncated at every length of its header and at sampled lengths after, bytes flipped across the file, another format version, another ABI, a field a
 *     newer kgen would write, foreign files (a JSON document, an ELF, zeros): located errors,
 *     never a crash (tools/fuzz/fuzz_package.c keeps looking).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "runtime/kgen.h"
#include "runtime/package.h"
#include <cjson/cJSON.h>

#include "fake_cuda.h"

static char dir[64];
static void mkdir_tmp(void) {
  strcpy(dir, "/tmp/kgen-test-pkg-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}
static void rm_tmp(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) cr_log_warn("could not remove %s", dir);
}

static kg_context *new_ctx(void) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  return kg_context_new(&o);
}

/* writes a package of `example`'s entries (archs none) to dir/name; returns its path */
static const char *pack(kg_context *ctx, const char *example, const char *entry, const char *const *sigs, int n_sigs, const int *archs, int n_archs,
                        const char *name) {
  static char path[256];
  char doc[512];
  snprintf(doc, sizeof doc, "%s/examples/%s.json", KG_SOURCE_DIR, example);
  kg_module *m;
  cr_assert_eq(kg_module_load_file(ctx, doc, &m), KG_OK, "%s", kg_last_error(ctx));
  kg_package_item it[8];
  int n = n_sigs ? n_sigs : 1;
  for (int i = 0; i < n; i++) it[i].module = m, it[i].entry = entry, it[i].sig = n_sigs ? sigs[i] : NULL;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  cr_assert_eq(kg_package_write(ctx, it, n, archs, n_archs, path), KG_OK, "%s", kg_last_error(ctx));
  kg_module_free(m);
  return path;
}

/* random inputs for c's parameters (symbols at `size`) */
typedef struct inputs {
  kg_npy arr[16];
  DLTensor v[16];
  const DLTensor *in[16];
  kg_named_tensor cap[16];
  int n_in, n_cap, n;
} inputs;
static void make_inputs(kg_compiled *c, int64_t size, inputs *I) {
  const kg_graph *g = kg_compiled_graph(c);
  memset(I, 0, sizeof *I);
  for (uint32_t p = 0; p < g->params.n; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    int64_t shape[8];
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    for (int d = 0; d < rank; d++) shape[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : size;
    cr_assert_eq(kg_npy_random_in(&I->arr[p], n->dtype, rank, shape, 77 + p, true, g->params.v[p].range), 0);
    kg_npy_dlview(&I->arr[p], &I->v[p]);
    /* the capture's name copied: c is freed before the inputs are used */
    if (g->params.v[p].is_capture) I->cap[I->n_cap].name = strdup(g->params.v[p].name), I->cap[I->n_cap++].t = &I->v[p];
    else I->in[I->n_in++] = &I->v[p];
  }
  I->n = (int)g->params.n;
}
static void free_inputs(inputs *I) {
  for (int i = 0; i < I->n; i++) kg_npy_free(&I->arr[i]);
  for (int i = 0; i < I->n_cap; i++) free((void *)(uintptr_t)I->cap[i].name);
}

/* runs entry on a device from module m on the inputs; outputs into outs (count returned) */
static int run(kg_context *ctx, kg_module *m, const char *entry, inputs *I, kg_device_kind dev, kg_npy *outs) {
  kg_compiled *c;
  kg_status s = kg_specialize_for(m, entry, I->in, I->n_in, I->cap, I->n_cap, &c);
  cr_assert_eq(s, KG_OK, "%s", kg_last_error(ctx));
  int no = kg_compiled_n_outputs(c);
  DLTensor ov[16], *op[16];
  cr_assert_eq(kg_alloc_host_outputs(c, outs, ov, op), KG_OK);
  s = kg_run_host(c, dev, I->in, I->n_in, I->cap, I->n_cap, op, no);
  cr_assert_eq(s, KG_OK, "%s", kg_last_error(ctx));
  kg_compiled_free(c);
  return no;
}

/* the package and the document give the same bits on the emulator */
static void same_as_document(const char *example, const char *entry, int64_t size) {
  kg_context *ctx = new_ctx();
  const char *path = pack(ctx, example, entry, NULL, 0, NULL, 0, "p.kgpkg");
  char doc[512];
  snprintf(doc, sizeof doc, "%s/examples/%s.json", KG_SOURCE_DIR, example);
  kg_module *md, *mp;
  cr_assert_eq(kg_module_load_file(ctx, doc, &md), KG_OK);
  cr_assert_eq(kg_package_load(ctx, path, &mp), KG_OK, "%s", kg_last_error(ctx));
  cr_assert(kg_module_is_package(mp) && !kg_module_is_package(md));
  cr_assert_eq(kg_module_n_entries(mp), entry ? 1 : kg_module_n_entries(md)); /* an entry asked for: only it */
  cr_assert_eq(kg_module_entry_n_params(mp, entry), kg_module_entry_n_params(md, entry));
  kg_compiled *c0;
  cr_assert_eq(kg_specialize(mp, entry, NULL, &c0), KG_OK, "%s", kg_last_error(ctx));
  inputs I;
  make_inputs(c0, size, &I);
  kg_compiled_free(c0);
  kg_npy od[16], op[16];
  uint64_t seed, off;
  kg_context_rng_state(ctx, &seed, &off);
  int n = run(ctx, md, entry, &I, KG_DEVICE_EMU, od);
  kg_context_set_rng_state(ctx, seed, off); /* the same draws for the package's run */
  free_inputs(&I);
  kg_compiled *c1;
  cr_assert_eq(kg_specialize(mp, entry, NULL, &c1), KG_OK);
  make_inputs(c1, size, &I); /* fresh: in-place updates changed the first run's */
  kg_compiled_free(c1);
  cr_assert_eq(run(ctx, mp, entry, &I, KG_DEVICE_EMU, op), n);
  for (int i = 0; i < n; i++) {
    cr_assert_eq(od[i].nbytes, op[i].nbytes, "%s output %d", example, i);
    cr_assert(!memcmp(od[i].data, op[i].data, od[i].nbytes), "%s output %d differs between the document and the package", example, i);
    kg_npy_free(&od[i]), kg_npy_free(&op[i]);
  }
  free_inputs(&I);
  kg_module_free(md), kg_module_free(mp);
  kg_context_free(ctx);
}

Test(package, same_bits_as_the_document, .init = mkdir_tmp, .fini = rm_tmp, .timeout = 300) {
  same_as_document("bcast_bias_gelu", NULL, 5);          /* pointwise, a symbolic batch */
  same_as_document("cf_rnn_elman", NULL, 0);             /* a host plan: a loop over regions */
  same_as_document("norm_batch_train", NULL, 0);         /* in-place running statistics (write-backs) */
  same_as_document("rand_dropout", NULL, 0);             /* the random generator */
  same_as_document("cf_rnn_matmul", NULL, 0);            /* products folded into a step's kernel */
  same_as_document("cf_select_scatter", "cf_scatter_rows", 7); /* a slice written in place, its fallback region */
  same_as_document("attn_sdpa", "attn_sdpa_causal", 20); /* the fused attention (its group kind was refused on load) */
  same_as_document("attn_tc", "attn_tc_cross_mask", 0);  /* the attention's tensor-core tile */
  same_as_document("models/tutorial_mlp", "trivial", 0); /* a default kernel that is split-K's partial (K = 1000 static) */
}

/* a product over a symbolic K is packaged with its split-K kernels (the partial and the finish):
 * a skinny float32 product runs from the package as from the document, bit for bit */
Test(package, split_k_packaged, .init = mkdir_tmp, .fini = rm_tmp, .timeout = 300) {
  kg_context *ctx = new_ctx();
  const char *path = pack(ctx, "mm_tc_shapes", "mm_tc_f32", NULL, 0, NULL, 0, "mm.kgpkg");
  char doc[512];
  snprintf(doc, sizeof doc, "%s/examples/mm_tc_shapes.json", KG_SOURCE_DIR);
  kg_module *md, *mp;
  cr_assert_eq(kg_module_load_file(ctx, doc, &md), KG_OK);
  cr_assert_eq(kg_package_load(ctx, path, &mp), KG_OK, "%s", kg_last_error(ctx));
  inputs I;
  memset(&I, 0, sizeof I);
  int64_t sa[2] = {24, 4100}, sb[2] = {4100, 20};
  cr_assert_eq(kg_npy_random(&I.arr[0], KG_F32, 2, sa, 5, false), 0);
  cr_assert_eq(kg_npy_random(&I.arr[1], KG_F32, 2, sb, 6, false), 0);
  for (int i = 0; i < 2; i++) kg_npy_dlview(&I.arr[i], &I.v[i]), I.in[i] = &I.v[i];
  I.n_in = I.n = 2;
  kg_npy od[16], op[16];
  cr_assert_eq(run(ctx, md, "mm_tc_f32", &I, KG_DEVICE_EMU, od), 1);
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(mp, "mm_tc_f32", I.in, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  DLTensor ov[16], *opp[16];
  cr_assert_eq(kg_alloc_host_outputs(c, op, ov, opp), KG_OK);
  cr_assert_eq(kg_run_host(c, KG_DEVICE_EMU, I.in, 2, NULL, 0, opp, 1), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats st;
  cr_assert_eq(kg_run_stats_get(c, &st), KG_OK);
  cr_expect_eq(st.launches, 2, "24 x 4100 x 20 splits K: a partial and a finish kernel (%llu launches)", (unsigned long long)st.launches);
  kg_compiled_free(c);
  cr_assert(!memcmp(od[0].data, op[0].data, od[0].nbytes), "the package's split-K product differs from the document's");
  kg_npy_free(&od[0]), kg_npy_free(&op[0]);
  free_inputs(&I);
  kg_module_free(md), kg_module_free(mp);
  kg_context_free(ctx);
}

Test(package, byte_identical_and_hashed, .init = mkdir_tmp, .fini = rm_tmp) {
  kg_context *ctx = new_ctx();
  char a[256], b[256];
  snprintf(a, sizeof a, "%s", pack(ctx, "norm_layer_norm_affine", NULL, NULL, 0, NULL, 0, "a.kgpkg"));
  snprintf(b, sizeof b, "%s", pack(ctx, "norm_layer_norm_affine", NULL, NULL, 0, NULL, 0, "b.kgpkg"));
  size_t la, lb;
  char *x = kg_read_file(a, &la), *y = kg_read_file(b, &lb);
  cr_assert(la == lb && !memcmp(x, y, la), "the same inputs wrote different packages");
  cr_assert(!memcmp(x, KG_PKG_MAGIC, 8));
  uint64_t mlen = 0;
  for (int i = 7; i >= 0; i--) mlen = mlen << 8 | (unsigned char)x[24 + i];
  unsigned char h[32];
  kg_sha256(x + 64, (size_t)mlen, h);
  cr_assert(!memcmp(h, x + 32, 32), "the header's content hash is the manifest's SHA-256");
  char fv[32];
  snprintf(fv, sizeof fv, "\"format_version\":%d", KG_PKG_FORMAT);
  cr_assert_not_null(strstr(x + 64, fv));
  cr_assert_not_null(strstr(x + 64, "\"kgen_version\":\"" KGEN_VERSION_STRING "\""));
  free(x), free(y);
  kg_context_free(ctx);
}

Test(package, signatures_fit_or_are_named, .init = mkdir_tmp, .fini = rm_tmp) {
  kg_context *ctx = new_ctx();
  const char *sigs[] = {"float32[N,768], float32[768]", "float64[N,768], float64[768]"};
  const char *path = pack(ctx, "bcast_bias_gelu", "bcast_bias_gelu", sigs, 2, NULL, 0, "s.kgpkg");
  kg_module *m;
  cr_assert_eq(kg_package_load(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, "float64[N, 768], float64[768]", &c), KG_OK, "%s", kg_last_error(ctx));
  DLDataType dt;
  int nd;
  int64_t shape[8];
  kg_compiled_output(c, 0, &dt, &nd, shape);
  cr_assert_eq(dt.bits, 64);
  cr_assert_eq(shape[0], -1); /* symbolic until tensors are given */
  kg_compiled_free(c);
  cr_assert_eq(kg_specialize(m, NULL, "float16[N,768], float16[768]", &c), KG_ERR_INPUT);
  cr_assert_not_null(strstr(kg_last_error(ctx), "float32[N,768], float32[768]"), "%s", kg_last_error(ctx));
  /* tensors: float64 fits the second; its output shape is concrete */
  kg_npy a, b;
  int64_t sa[2] = {3, 768}, sb[1] = {768};
  cr_assert_eq(kg_npy_random_in(&a, KG_F64, 2, sa, 1, false, NULL), 0);
  cr_assert_eq(kg_npy_random_in(&b, KG_F64, 1, sb, 2, false, NULL), 0);
  DLTensor va, vb;
  kg_npy_dlview(&a, &va), kg_npy_dlview(&b, &vb);
  const DLTensor *in[2] = {&va, &vb};
  cr_assert_eq(kg_specialize_for(m, NULL, in, 2, NULL, 0, &c), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled_output(c, 0, &dt, &nd, shape);
  cr_assert(dt.bits == 64 && nd == 2 && shape[0] == 3 && shape[1] == 768);
  kg_compiled_free(c);
  /* a size outside every signature: named, with why each does not fit */
  vb.shape[0] = 767;
  cr_assert_eq(kg_specialize_for(m, NULL, in, 2, NULL, 0, &c), KG_ERR_INPUT);
  const char *e = kg_last_error(ctx);
  cr_assert(strstr(e, "fit no signature") && strstr(e, "float32[N,768], float32[768]: input 1 is float64") &&
                strstr(e, "float64[N,768], float64[768]: input 2 has size 767 at dim 0, the signature 768"),
            "%s", e);
  cr_assert_eq(kg_specialize(m, "nope", NULL, &c), KG_ERR_INPUT);
  cr_assert_not_null(strstr(kg_last_error(ctx), "entries: bcast_bias_gelu"));
  kg_npy_free(&a), kg_npy_free(&b);
  /* what it holds */
  char *t;
  cr_assert_eq(kg_package_describe(m, NULL, &t), KG_OK);
  cr_assert(strstr(t, "signature float64[N,768], float64[768]") && strstr(t, "content hash (SHA-256)"), "%s", t);
  free(t);
  kg_module_free(m);
  kg_context_free(ctx);
}

Test(package, null_device_needs_no_compiler, .init = mkdir_tmp, .fini = rm_tmp) {
  kg_context *ctx = new_ctx();
  const char *path = pack(ctx, "cf_rnn_elman", NULL, NULL, 0, NULL, 0, "n.kgpkg");
  kg_context_free(ctx);
  setenv("KGEN_NVRTC_LIB", "/nonexistent/libnvrtc.so", 1);
  setenv("KGEN_CC", "/nonexistent/cc", 1);
  ctx = new_ctx();
  kg_module *m;
  cr_assert_eq(kg_package_load(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c0;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c0), KG_OK);
  inputs I;
  make_inputs(c0, 3, &I);
  kg_npy out[4];
  int n = run(ctx, m, NULL, &I, KG_DEVICE_NULL, out);
  for (int i = 0; i < n; i++) kg_npy_free(&out[i]);
  kg_run_stats rs;
  kg_compiled *c;
  cr_assert_eq(kg_specialize_for(m, NULL, I.in, I.n_in, I.cap, I.n_cap, &c), KG_OK);
  DLTensor ov[4], *op[4];
  cr_assert_eq(kg_alloc_host_outputs(c, out, ov, op), KG_OK);
  cr_assert_eq(kg_run(c, KG_DEVICE_NULL, I.in, I.n_in, I.cap, I.n_cap, op, 1, NULL), KG_OK, "%s", kg_last_error(ctx));
  kg_run_stats_get(c, &rs);
  cr_assert_eq(rs.iterations, 7); /* the plan ran: 7 steps of the RNN */
  cr_assert_gt(rs.launches, 0);
  kg_context_stats cs;
  kg_context_stats_get(ctx, &cs);
  cr_assert(cs.emu_compiles == 0 && cs.nvrtc_compiles == 0);
  kg_npy_free(&out[0]);
  kg_compiled_free(c), kg_compiled_free(c0);
  free_inputs(&I);
  kg_module_free(m);
  kg_context_free(ctx);
  unsetenv("KGEN_NVRTC_LIB"), unsetenv("KGEN_CC");
}

/* ---- the CUDA load path, against the stand-in driver ---- */

static unsigned long long fnv(const unsigned char *p, size_t n) {
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h ^= p[i], h *= 1099511628211ull;
  return h;
}

/* runs the package's entry once on the stand-in GPU of compute capability cc */
static kg_status run_on_fake(const char *path, const char *cc, kg_context **pctx) {
  setenv("FAKE_CUDA_CC", cc, 1);
  kg_context *ctx = new_ctx();
  *pctx = ctx;
  kg_module *m;
  cr_assert_eq(kg_package_load(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK);
  inputs I;
  make_inputs(c, 4, &I);
  kg_compiled_free(c);
  cr_assert_eq(kg_specialize_for(m, NULL, I.in, I.n_in, I.cap, I.n_cap, &c), KG_OK);
  kg_npy out[2];
  DLTensor ov[2], *op[2];
  cr_assert_eq(kg_alloc_host_outputs(c, out, ov, op), KG_OK);
  kg_status s = kg_run_host(c, KG_DEVICE_CUDA, I.in, I.n_in, I.cap, I.n_cap, op, 1);
  kg_npy_free(&out[0]);
  free_inputs(&I);
  kg_compiled_free(c);
  kg_module_free(m);
  return s;
}

Test(package, cuda_cubin_ptx_or_an_error_naming_the_archs, .init = fake_setup, .fini = fake_teardown, .timeout = 300) {
#if defined(__SANITIZE_ADDRESS__)
  cr_skip_test("stand-in driver test runs in the non-sanitizer build (see test_rt_nvrtc.c)");
#endif
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *nv = kg_nvrtc_open(&d);
  kg_diag_free(&d);
  if (!nv) cr_skip_test("libnvrtc cannot be loaded: no cubins to package");
  kg_nvrtc_close(nv);
  snprintf(dir, sizeof dir, "%s", fake_dir);
  kg_context *ctx = new_ctx();
  int archs[] = {80, 86};
  const char *path = pack(ctx, "bcast_bias_gelu", NULL, NULL, 0, archs, 2, "g.kgpkg");
  kg_module *m;
  cr_assert_eq(kg_package_load(ctx, path, &m), KG_OK);
  char *cub86;
  size_t n86;
  kg_compiled *c;
  cr_assert_eq(kg_specialize(m, NULL, NULL, &c), KG_OK);
  cr_assert_eq(kg_emit(c, KG_ART_CUBIN, 86, &cub86, &n86), KG_OK, "%s", kg_last_error(ctx));
  char *ptx;
  size_t nptx;
  cr_assert_eq(kg_emit(c, KG_ART_PTX, 86, &ptx, &nptx), KG_OK);
  cr_assert_eq(kg_emit(c, KG_ART_CUBIN, 90, &ptx, &nptx), KG_ERR_INPUT);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_context_free(ctx);
  unsigned long long e_shoff = 0;
  memcpy(&e_shoff, cub86 + 40, 8);
  size_t ext = (size_t)e_shoff + (size_t)(*(unsigned short *)(cub86 + 58)) * (*(unsigned short *)(cub86 + 60));
  unsigned long long h86 = fnv((const unsigned char *)cub86, ext);
  free(cub86);

  setenv("KGEN_NVRTC_LIB", "/nonexistent/libnvrtc.so", 1); /* a package needs no NVRTC */
  struct fake_stats *st = NULL;
  /* sm_86: its own cubin */
  cr_assert_eq(run_on_fake(path, "86", &ctx), KG_OK, "%s", kg_last_error(ctx));
  st = fake_stats();
  cr_assert_eq(st->image_hash, h86, "the GPU got the package's sm_86 cubin");
  cr_assert_eq(st->ptx_loads, 0);
  cr_assert_gt(st->launches, 0);
  kg_context_stats cs;
  kg_context_stats_get(ctx, &cs);
  cr_assert_eq(cs.nvrtc_compiles, 0);
  kg_context_free(ctx);
  /* sm_87: the sm_86 cubin runs there too */
  cr_assert_eq(run_on_fake(path, "87", &ctx), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(st->image_hash, h86);
  kg_context_free(ctx);
  /* sm_120: no cubin; the newest arch's PTX through the driver */
  cr_assert_eq(run_on_fake(path, "120", &ctx), KG_OK, "%s", kg_last_error(ctx));
  cr_assert_eq(st->ptx_loads, 1);
  kg_context_free(ctx);
  /* sm_75: nothing fits */
  cr_assert_neq(run_on_fake(path, "75", &ctx), KG_OK);
  const char *e = kg_last_error(ctx);
  cr_assert(strstr(e, "sm_75") && strstr(e, "cubins for sm_80, sm_86; PTX for sm_86"), "%s", e);
  kg_context_free(ctx);
  /* a document on this GPU without NVRTC: the error says what to do */
  ctx = new_ctx();
  char doc[512];
  snprintf(doc, sizeof doc, "%s/examples/bcast_bias_gelu.json", KG_SOURCE_DIR);
  cr_assert_eq(kg_module_load_file(ctx, doc, &m), KG_OK);
  kg_module_free(m);
  kg_context_free(ctx);
  unsetenv("KGEN_NVRTC_LIB"), unsetenv("FAKE_CUDA_CC");
}

/* ---- bad files ---- */

static void expect_bad(kg_context *ctx, const char *path, const char *want) {
  kg_module *m = NULL;
  kg_status s = kg_package_load(ctx, path, &m);
  if (s == KG_OK) { /* the damage is in a section: it shows when the entry is used */
    kg_compiled *c = NULL;
    s = kg_specialize(m, NULL, NULL, &c);
    if (s == KG_OK) {
      char *t;
      size_t n;
      for (int k = 0; k <= KG_ART_PYTHON && s == KG_OK; k++)
        if (k != KG_ART_PTX && k != KG_ART_CUBIN) s = kg_emit(c, (kg_artifact)k, 0, &t, &n), free(s == KG_OK ? t : NULL);
      kg_compiled_free(c);
    }
    kg_module_free(m);
  }
  if (want) {
    cr_assert_eq(s, KG_ERR_INPUT, "%s: expected an error", want);
    cr_assert_not_null(strstr(kg_last_error(ctx), want), "%s", kg_last_error(ctx));
  }
}

static void write_bytes(const char *path, const void *p, size_t n) { /* no fsync: thousands of these */
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(p, 1, n, f), n);
  fclose(f);
}

/* The package g (n bytes) with the first `find` in section sec (-1: the manifest; an "abi"
 * edit replaces the 16 digits after it) replaced by `repl`, every hash, length and offset made
 * consistent again. */
static unsigned char *repack(const unsigned char *g, size_t n, int sec, const char *find, const char *repl, size_t *out_n) {
  uint64_t mlen = 0;
  for (int i = 7; i >= 0; i--) mlen = mlen << 8 | g[24 + i];
  size_t data = (64 + mlen + 15) & ~(size_t)15;
  cJSON *man = cJSON_ParseWithLength((const char *)g + 64, mlen);
  cr_assert_not_null(man);
  cJSON *secs = cJSON_GetObjectItem(man, "sections");
  int ns = cJSON_GetArraySize(secs);
  kg_strbuf body;
  kg_sb_init(&body);
  for (int i = 0; i < ns; i++) {
    cJSON *x = cJSON_GetArrayItem(secs, i);
    size_t off = (size_t)cJSON_GetObjectItem(x, "offset")->valuedouble, len = (size_t)cJSON_GetObjectItem(x, "length")->valuedouble;
    char *t = kg_xmalloc(len + 1);
    memcpy(t, g + data + off, len);
    t[len] = 0;
    kg_strbuf nb;
    kg_sb_init(&nb);
    char *at = i == sec ? strstr(t, find) : NULL;
    if (i == sec) cr_assert_not_null(at, "section %d has no %s", i, find);
    if (at) kg_sb_putn(&nb, t, (size_t)(at - t)), kg_sb_puts(&nb, repl), kg_sb_putn(&nb, at + strlen(find), len - (size_t)(at - t) - strlen(find));
    else kg_sb_putn(&nb, t, len);
    while (body.len % 16) kg_sb_putc(&body, 0);
    cJSON_SetNumberValue(cJSON_GetObjectItem(x, "offset"), (double)body.len);
    cJSON_SetNumberValue(cJSON_GetObjectItem(x, "length"), (double)nb.len);
    char h[65];
    kg_sha256_hex(nb.s, nb.len, h);
    cJSON_SetValuestring(cJSON_GetObjectItem(x, "sha256"), h);
    kg_sb_putn(&body, nb.s, nb.len);
    kg_sb_free(&nb), free(t);
  }
  char *ms = cJSON_PrintUnformatted(man);
  cJSON_Delete(man);
  kg_strbuf m;
  kg_sb_init(&m);
  char *at = sec < 0 ? strstr(ms, find) : NULL;
  if (sec < 0) cr_assert_not_null(at);
  if (at) {
    bool abi = strstr(find, "abi") != NULL;
    kg_sb_putn(&m, ms, (size_t)(at - ms)), kg_sb_puts(&m, repl), kg_sb_puts(&m, at + strlen(find) + (abi ? 16 : 0));
  } else {
    kg_sb_puts(&m, ms);
  }
  free(ms);
  size_t nd = (64 + m.len + 15) & ~(size_t)15;
  unsigned char *y = kg_xcalloc(nd + body.len + 1, 1);
  memcpy(y, g, 64);
  for (int i = 0; i < 8; i++) y[24 + i] = (unsigned char)((uint64_t)m.len >> (8 * i));
  kg_sha256(m.s, m.len, y + 32);
  memcpy(y + 64, m.s, m.len);
  memcpy(y + nd, body.s, body.len);
  *out_n = nd + body.len;
  kg_sb_free(&m), kg_sb_free(&body);
  return y;
}

Test(package, bad_files_are_located_errors, .init = mkdir_tmp, .fini = rm_tmp, .timeout = 300) {
  kg_context *ctx = new_ctx();
  char good[256], bad[256];
  snprintf(good, sizeof good, "%s", pack(ctx, "cf_rnn_elman", NULL, NULL, 0, NULL, 0, "good.kgpkg"));
  snprintf(bad, sizeof bad, "%s/bad.kgpkg", dir);
  size_t n;
  unsigned char *g = (unsigned char *)kg_read_file(good, &n);
  uint64_t mlen = 0;
  for (int i = 7; i >= 0; i--) mlen = mlen << 8 | g[24 + i];
  /* truncated: every length through the header and manifest, then sampled */
  for (size_t k = 0; k < n; k += k < 80 ? 1 : k < 64 + mlen + 64 ? 7 : 97) {
    write_bytes(bad, g, k);
    expect_bad(ctx, bad, k < 8 ? "not a kgen kernel package" : k < 64 ? "truncated" : NULL);
    cr_assert(kg_last_error(ctx)[0], "a truncated package at %zu bytes loaded without an error", k);
  }
  /* corrupted: a byte flipped anywhere is caught (the header, the manifest's hash, a section's) */
  for (size_t k = 0; k < n; k += 29) {
    unsigned char *x = kg_xmalloc(n);
    memcpy(x, g, n);
    x[k] ^= 0x5a;
    write_bytes(bad, x, n);
    kg_module *m = NULL;
    kg_status s = kg_package_load(ctx, bad, &m);
    if (s == KG_OK) {
      kg_compiled *c = NULL;
      s = kg_specialize(m, NULL, NULL, &c);
      char *t;
      size_t tn;
      if (s == KG_OK) s = kg_emit(c, KG_ART_TORCHSCRIPT, 0, &t, &tn), free(s == KG_OK ? t : NULL);
      if (s == KG_OK) s = kg_emit(c, KG_ART_CUDA, 0, &t, &tn), free(s == KG_OK ? t : NULL);
      if (s == KG_OK) { /* a run on the null device reads the variants' launch metadata (the kmeta section) */
        inputs I;
        make_inputs(c, 3, &I);
        kg_npy outs[16];
        DLTensor ov[16], *op[16];
        int no = kg_compiled_n_outputs(c);
        s = kg_alloc_host_outputs(c, outs, ov, op);
        if (s == KG_OK) {
          s = kg_run(c, KG_DEVICE_NULL, I.in, I.n_in, I.cap, I.n_cap, op, no, NULL);
          for (int i = 0; i < no; i++) kg_npy_free(&outs[i]);
        }
        free_inputs(&I);
      }
      kg_compiled_free(c);
      kg_module_free(m);
    }
    /* a flip inside padding between sections changes nothing the reader uses */
    bool pad = k >= 64 + mlen;
    cr_assert(s != KG_OK || pad, "a package with byte %zu flipped loaded and specialized", k);
    if (s != KG_OK) cr_assert(strstr(kg_last_error(ctx), "corrupt") || strstr(kg_last_error(ctx), "not a kgen") || strstr(kg_last_error(ctx), "version") ||
                                  strstr(kg_last_error(ctx), "truncated"),
                              "byte %zu: %s", k, kg_last_error(ctx));
    free(x);
  }
  /* another format version */
  unsigned char *x = kg_xmalloc(n);
  memcpy(x, g, n);
  x[8] = KG_PKG_FORMAT + 1;
  write_bytes(bad, x, n);
  char want[160];
  snprintf(want, sizeof want, "package format version %d; this kgen (" KGEN_VERSION_STRING ") reads version %d", KG_PKG_FORMAT + 1, KG_PKG_FORMAT);
  expect_bad(ctx, bad, want);
  /* another ABI, a field a newer kgen writes (in the manifest, and in a kernel's launch): consistent
   * files (hashes and offsets recomputed), so only the content is wrong */
  struct { int sec; const char *find, *repl, *want; } edits[] = {
      {-1, "\"abi\":\"", "\"abi\":\"0123456789abcdef", "kernel ABI 0123456789abcdef"},
      {-1, "\"created_by\":", "\"cluster\":[2,1,1],\"created_by\":", "field 'cluster' is not known to this kgen"},
      {0, "\"launch\":{", "\"launch\":{\"cluster\":[2,1,1],", "launch field 'cluster' is not known to this kgen"},
      {0, "\"role\"", "x", NULL},
      {0, "\"numel\"", "\"tma_desc\"", "kernel parameter role 'tma_desc' is not known"},
      /* the entry's parameters counted one short: its last one would be read past the inputs
       * (a libFuzzer finding: the binding failed without a message) */
      {0, "\"n_entry_params\":5", "\"n_entry_params\":4", "params[4]: not a capture, but n_entry_params is 4"},
      {-1, "\"n_inputs\":5", "\"n_inputs\":4", "the program takes 5 input(s), its signature"},
      /* a block on a step whose kind has none (the plan printer followed it past the blocks) */
      {0, "\"body\":4294967295", "\"body\":7", "step has no body block"},
  };
  for (size_t e = 0; e < sizeof edits / sizeof *edits; e++) {
    if (!edits[e].want) continue;
    size_t yn;
    unsigned char *y = repack(g, n, edits[e].sec, edits[e].find, edits[e].repl, &yn);
    write_bytes(bad, y, yn);
    expect_bad(ctx, bad, edits[e].want);
    free(y);
  }
  /* foreign files */
  char doc[512];
  snprintf(doc, sizeof doc, "%s/examples/bcast_bias_gelu.json", KG_SOURCE_DIR);
  expect_bad(ctx, doc, "it looks like JSON");
  write_bytes(bad, "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0", 16);
  expect_bad(ctx, bad, "not a kgen kernel package");
  unsigned char zeros[4096] = {0};
  write_bytes(bad, zeros, sizeof zeros);
  expect_bad(ctx, bad, "not a kgen kernel package");
  snprintf(bad, sizeof bad, "%s/missing.kgpkg", dir);
  expect_bad(ctx, bad, "cannot read");
  free(x), free(g);
  kg_context_free(ctx);
}

/* A product computing a norm's row statistics (kg_group.pre, the fusion's "pre"): packaged, it
 * gives the document's bits on the emulator; a package whose "pre" names a node that is not a row
 * statistic of its product, or gives one to a group that is not a product, is refused with the
 * place named (the lowering would otherwise read a value nobody computed). */
Test(package, row_statistics, .init = mkdir_tmp, .fini = rm_tmp, .timeout = 300) {
  same_as_document("norm_into_product", "layernorm_linear_f16", 0);
  same_as_document("norm_into_product", "rmsnorm_two_projections", 0);
  kg_context *ctx = new_ctx();
  char good[256], bad[256];
  snprintf(good, sizeof good, "%s", pack(ctx, "norm_into_product", "rmsnorm_linear", NULL, 0, NULL, 0, "good.kgpkg"));
  snprintf(bad, sizeof bad, "%s/bad.kgpkg", dir);
  size_t n, bn;
  unsigned char *g = (unsigned char *)kg_read_file(good, &n);
  struct { const char *find, *repl, *want; } edits[] = {
      {"\"pre\":[", "\"pre\":[0,", "is not a row statistic of the product"},
      {"\"pre\":[", "\"pre\":[1,2,3,4,", "row statistics, at most"},
      {"\"groups\":[{\"kind\":3", "\"groups\":[{\"kind\":0", "row statistics belong to a product group"},
  };
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
    unsigned char *y = repack(g, n, 0, edits[i].find, edits[i].repl, &bn);
    write_bytes(bad, y, bn);
    expect_bad(ctx, bad, edits[i].want);
    free(y);
  }
  free(g);
  kg_context_free(ctx);
}
