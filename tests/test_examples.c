/* tests/test_examples.c — every program in examples/ run end to end.
 *
 *  numeric:    specialize from the document's signature, random inputs, run our
 *              kernels on the CPU emulator, compare with PyTorch running the
 *              emitted TorchScript (and, in a second pass, the eager-Python twin)
 *              — one long-lived oracle per test process.
 *  structure:  a pointwise program is one kernel per distinct output shape.
 *  nvrtc:      every kernel compiles with NVRTC for sm_80 and sm_90 with zero
 *              spills (skipped when NVRTC is not installed).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "runtime/api_int.h"

typedef struct names {
  char **v;
  int n;
} names;

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static names list_examples(void) {
  names r = {NULL, 0};
  DIR *d = opendir(KG_SOURCE_DIR "/examples");
  if (!d) return r;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
    r.v = realloc(r.v, (size_t)(r.n + 1) * sizeof *r.v);
    r.v[r.n] = malloc(strlen(KG_SOURCE_DIR) + l + 16);
    sprintf(r.v[r.n++], "%s/examples/%s", KG_SOURCE_DIR, e->d_name);
  }
  closedir(d);
  qsort(r.v, (size_t)r.n, sizeof *r.v, cmp);
  return r;
}

static void free_names(names *n) {
  for (int i = 0; i < n->n; i++) free(n->v[i]);
  free(n->v);
}

/* Does entry e of m have a group that `want` accepts (in any region of a host plan)? */
static bool has_group(kg_module *m, int e, bool (*want)(const kg_group *)) {
  kg_compiled *c = NULL;
  bool any = false;
  if (kg_specialize(m, kg_module_entry_name(m, e), NULL, &c) != KG_OK) return false;
  uint32_t np = c->plan ? c->n_regions : 1;
  for (uint32_t p = 0; p < np && !any; p++) {
    const kg_compiled *pc = c->plan ? c->regions[p] : c;
    for (uint32_t gi = 0; gi < pc->fusion.groups.n && !any; gi++) any = want(&pc->fusion.groups.v[gi]);
  }
  kg_compiled_free(c);
  return any;
}
static bool persistent_rows(const kg_group *gr) { return gr->kind == KG_GROUP_REDUCE && (gr->reds.n > 1 || gr->outs.n > 0); }
static bool a_product(const kg_group *gr) { return gr->kind == KG_GROUP_MATMUL || gr->kind == KG_GROUP_ATTN; }

enum { ALL = 0, REDUCTIONS = 1, PRODUCTS = 2 };
/* Under the sanitizers (the second pass of tools/test.sh) the numeric checks take every third
 * example of their share: the emulated kernels are plain host code there (not instrumented) and
 * the plain pass has just checked every example; what the sanitizers watch — kgen's parsing,
 * lowering, scheduling, emission and the oracle's protocol — runs on a third of every family
 * (every third in name order samples each family of examples). */
#if defined(__SANITIZE_ADDRESS__)
#define KG_NUMERIC_STRIDE 3
#else
#define KG_NUMERIC_STRIDE 1
#endif
/* A picked example (numeric_pick): its file's base name, and whether its gradients are checked too */
typedef struct pick {
  const char *name;
  bool grad;
} pick;
static const pick *find_pick(const pick *picks, const char *base) {
  for (int i = 0; picks && picks[i].name; i++)
    if (!strncmp(base, picks[i].name, strlen(picks[i].name)) && !strcmp(base + strlen(picks[i].name), ".json")) return &picks[i];
  return NULL;
}
/* Runs the numeric check over the examples with index % parts == part (every
 * KG_NUMERIC_STRIDE-th of them; with picks, only those it names: a list ended by {NULL}). */
static void numeric_pick(kg_device_kind dev, int part, int parts, bool eager, int order, int force_variant, int only, int emu_arch,
                         const pick *picks) {
  bool reductions_only = only == REDUCTIONS;
  names ex = list_examples();
  cr_assert(ex.n >= 60, "expected at least 60 example programs, found %d", ex.n);
  kg_diag d;
  kg_diag_init(&d);
  kg_oracle *orc = kg_oracle_start(&d);
  if (!orc) {
    kg_diag_free(&d);
    free_names(&ex);
    cr_skip_test("PyTorch oracle unavailable");
  }
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.emu_thread_order = order;
  o.emu_seed = 7;
  o.force_variant = force_variant;
  o.emu_arch = emu_arch;
  int failed = 0, ran = 0;
  for (int i = part; i < ex.n; i += parts * (picks ? 1 : KG_NUMERIC_STRIDE)) {
    const char *base = strrchr(ex.v[i], '/') ? strrchr(ex.v[i], '/') + 1 : ex.v[i];
    if (reductions_only && strncmp(base, "red_", 4) != 0 && strncmp(base, "norm_", 5) != 0) continue;
    const pick *pk = find_pick(picks, base);
    if (picks && !pk) continue;
    kg_context *ctx = kg_context_new(&o);
    kg_module *m;
    kg_status s = kg_module_load_file(ctx, ex.v[i], &m);
    if (s != KG_OK) {
      cr_log_error("%s: does not load:\n%s", ex.v[i], kg_last_error(ctx));
      failed++;
      kg_context_free(ctx);
      continue;
    }
    for (int e = 0; e < kg_module_n_entries(m); e++) {
      /* only entries with a persistent row group (elsewhere the plans agree), or with a product */
      if (reductions_only && !has_group(m, e, persistent_rows)) continue;
      if (only == PRODUCTS && !has_group(m, e, a_product)) continue;
      kg_check_opts co;
      memset(&co, 0, sizeof co);
      co.entry = kg_module_entry_name(m, e);
      co.device = dev;
      co.eager_python = eager;
      co.seed = 1;
      co.grad = pk && pk->grad;
      kg_check_result r;
      s = kg_check_module(ctx, orc, m, &co, &r);
      ran++;
      if (s != KG_OK) {
        cr_log_error("%s [%s]: check failed:\n%s", ex.v[i], co.entry, kg_last_error(ctx));
        failed++;
      } else if (!r.all_ok) {
        for (int k = 0; k < r.n_outputs; k++)
          if (!r.rows[k].ok) cr_log_error("%s [%s] out%d %s %s: %s (files in %s)", ex.v[i], co.entry, k, r.rows[k].dtype, r.rows[k].shape, r.rows[k].verdict, r.dir);
        for (int k = 0; k < r.n_grads; k++)
          if (!r.grad_rows[k].ok) cr_log_error("%s [%s] grad %s %s %s: %s", ex.v[i], co.entry, r.grad_names[k], r.grad_rows[k].dtype, r.grad_rows[k].shape, r.grad_rows[k].verdict);
        failed++;
      }
      kg_check_result_free(&r);
    }
    kg_module_free(m);
    kg_context_free(ctx);
  }
  kg_oracle_stop(orc);
  kg_diag_free(&d);
  free_names(&ex);
  cr_log_info("%d entries checked against PyTorch (%s, %s), %d failed", ran, eager ? "eager Python" : "TorchScript", dev == KG_DEVICE_CPU ? "CPU device" : "emulator", failed);
  cr_assert_eq(failed, 0, "%d of %d example entries do not match PyTorch (see the log above)", failed, ran);
  if (picks) cr_assert(ran > 0, "none of the picked examples found");
}
static void numeric_on(kg_device_kind dev, int part, int parts, bool eager, int order, int force_variant, int only, int emu_arch) {
  numeric_pick(dev, part, parts, eager, order, force_variant, only, emu_arch, NULL);
}
static void numeric(int part, int parts, bool eager, int order, int force_variant, bool reductions_only) {
  numeric_on(KG_DEVICE_EMU, part, parts, eager, order, force_variant, reductions_only ? REDUCTIONS : ALL, 0);
}

/* layouts chosen by the data (vectorized where possible), forward and reverse thread order */
Test(examples, numeric_torchscript_part0, .timeout = 1200) { numeric(0, 2, false, 0, 0, false); }
Test(examples, numeric_torchscript_part1, .timeout = 1200) { numeric(1, 2, false, 1, 0, false); }
/* the eager twin, with every kernel forced to the strided layout and 64-bit indices, in random
 * thread order, on every other example (the parts above run them all; every example was 1181 s
 * of a loaded CI machine in one test — a fifth of the suite; the fuzzer's variants force the
 * same schedules on random programs) */
Test(examples, numeric_eager_python_strided_i64, .timeout = 1200) { numeric(0, 2, true, 2, 2, false); }
/* the split-rows plan (every reduction alone, row outputs in pointwise kernels: what few,
 * very long rows run) on every other reduction / normalization example with a persistent
 * row group, random thread order (the size matrix runs it on the red_matrix programs at
 * their long-row sizes; all of them would cost CI ~85 s of emulator compiles) */
Test(examples, numeric_split_rows_plan, .timeout = 1200) { numeric(0, 2, false, 2, 4, true); }
/* every entry with a product or an attention on the tensor-core tiers wherever they apply,
 * whatever the size (force_variant 6; float16 / bfloat16 attention on its mma.sync tile): sm_80's mma.sync tier in random order; sm_90's (wgmma where the operands are
 * TMA-readable, else mma.sync) in reverse order on every other one */
Test(examples, numeric_tensor_cores_sm80, .timeout = 1200) { numeric_on(KG_DEVICE_EMU, 0, 1, false, 2, KG_FORCE_TENSOR_CORES, PRODUCTS, 80); }
Test(examples, numeric_tensor_cores_sm90, .timeout = 1200) { numeric_on(KG_DEVICE_EMU, 1, 2, false, 1, KG_FORCE_TENSOR_CORES, PRODUCTS, 90); }

/* the CPU device (issue 25): the CPU schedules (chunk loops, a thread per output, split rows over
 * the cores, packed products, direct convolutions) as plain loops on its worker threads, fibers
 * for the rest, against PyTorch. Every kernel there is an -O3 compile for this CPU (about a
 * second each), so the suite runs a sample: a few examples per family and every dtype once —
 * pointwise over broadcasts (bool, float16), control flow (float16, bfloat16, int32), scans,
 * softmax rows, every reduction of the integer and bool dtypes, integer products (int8, uint8,
 * int16, int64), a float32 linear with its epilogue, convolutions (float64, float16, bfloat16,
 * int32) — and the gradients' backward kernels of a linear and a convolution. Under the
 * sanitizers (the host-compiled kernels are not instrumented; the runtime is) one small product
 * with its gradients. KGEN_TEST_CPU_DEVICE=all runs every example instead (docs/cpu.md: about
 * 375 files, an hour or more here); tests/test_mma.c checks the products' CPU schedule under a
 * forced tensor-core tier; `kgen check --device cpu` runs any single one. */
static const pick cpu_sample[] = {
#if !defined(__SANITIZE_ADDRESS__)
    {"bcast_where_3way", false},          {"cf_dtypes_loop", false}, {"red_cumsum_axes_float32", false}, {"norm_softmax_sym", false},
    {"red_max_min_all_ints_bool", false}, {"mm_int_dtypes", false},  {"conv_dtypes", false},             {"conv2d_relu_bias", true},
#endif
    {"linear_gelu_residual", true},       {NULL, false}};
Test(examples, numeric_cpu_device_sample, .timeout = 1200) {
  const char *all = getenv("KGEN_TEST_CPU_DEVICE");
  if (all && !strcmp(all, "all")) numeric_on(KG_DEVICE_CPU, 0, 1, false, 0, 0, ALL, 0);
  else numeric_pick(KG_DEVICE_CPU, 0, 1, false, 0, 0, ALL, 0, cpu_sample);
}

Test(examples, structure_kernels_per_fusion_rules) {
  names ex = list_examples();
  int bad = 0;
  for (int i = 0; i < ex.n; i++) {
    kg_context *ctx = kg_context_new(NULL);
    kg_module *m;
    if (kg_module_load_file(ctx, ex.v[i], &m) != KG_OK) {
      cr_log_error("%s: %s", ex.v[i], kg_last_error(ctx));
      bad++;
      kg_context_free(ctx);
      continue;
    }
    for (int e = 0; e < kg_module_n_entries(m); e++) {
      kg_compiled *c;
      if (kg_specialize(m, kg_module_entry_name(m, e), NULL, &c) != KG_OK) {
        cr_log_error("%s: %s", ex.v[i], kg_last_error(ctx));
        bad++;
        continue;
      }
      /* pointwise programs: one kernel per distinct output shape (reductions and scans: tests/test_reduce.c;
       * matrix products: tests/test_matmul.c; entries with a host plan: tests/test_plan.c) */
      if (c->plan) {
        kg_compiled_free(c);
        continue;
      }
      bool has_reduce = false;
      for (uint32_t q = 0; q < c->lg.nodes.n; q++) has_reduce |= (kg_op_get((kg_op)c->lg.nodes.v[q].op)->flags & (KG_OPF_REDUCE | KG_OPF_SCAN | KG_OPF_MATMUL)) != 0;
      if (has_reduce) {
        kg_compiled_free(c);
        continue;
      }
      int shapes = 0;
      for (uint32_t a = 0; a < c->g.outputs.n; a++) {
        const kg_gnode *na = &c->g.nodes.v[c->g.outputs.v[a]];
        bool seen = false;
        for (uint32_t b = 0; b < a && !seen; b++) {
          const kg_gnode *nb = &c->g.nodes.v[c->g.outputs.v[b]];
          kg_shape sa = na->shape, sb = nb->shape;
          if (na->vkind == KG_V_SCALAR) sa.rank = 0;
          if (nb->vkind == KG_V_SCALAR) sb.rank = 0;
          seen = kg_shape_equal(&sa, &sb);
        }
        shapes += !seen;
      }
      if (kg_compiled_n_kernels(c) != shapes) {
        cr_log_error("%s [%s]: %d kernels for %d distinct output shapes", ex.v[i], kg_module_entry_name(m, e), kg_compiled_n_kernels(c), shapes);
        bad++;
      }
      kg_compiled_free(c);
    }
    kg_module_free(m);
    kg_context_free(ctx);
  }
  free_names(&ex);
  cr_assert_eq(bad, 0, "%d example entries are not fused as expected", bad);
}

/* Under the sanitizers (the second pass of tools/test.sh) NVRTC — not instrumented, and
 * already run on every example by the plain pass — compiles every 8th example only;
 * every variant of every example is still lowered and emitted there. */
#if defined(__SANITIZE_ADDRESS__)
#define KG_NVRTC_EVERY 8
#else
#define KG_NVRTC_EVERY 1
#endif
/* Every example in one of KG_NVRTC_PARTS tests (i % parts == part): about 9 minutes of NVRTC
 * on one core in all, run in parallel by the suite's jobs. */
#define KG_NVRTC_PARTS 3
static void nvrtc_no_spills(int part) {
  kg_diag d;
  kg_diag_init(&d);
  kg_nvrtc *nv = kg_nvrtc_open(&d);
  kg_diag_free(&d);
  if (!nv) cr_skip_test("NVRTC not installed");
  kg_nvrtc_close(nv);
  names ex = list_examples();
  int bad = 0, kernels = 0;
  for (int i = part; i < ex.n; i += KG_NVRTC_PARTS) {
    kg_context *ctx = kg_context_new(NULL);
    kg_module *m;
    if (kg_module_load_file(ctx, ex.v[i], &m) != KG_OK) {
      bad++;
      kg_context_free(ctx);
      continue;
    }
    kg_compiled *c;
    if (kg_specialize(m, NULL, NULL, &c) != KG_OK) {
      cr_log_error("%s: %s", ex.v[i], kg_last_error(ctx));
      bad++;
    } else {
      /* the run-time variants compile too — strided with 64-bit indices, linear scalar, a warp
       * per row, the row cached in registers, 128-bit row loads, and a split reduction's
       * kernels (partial over rows, over columns, finish) — all of an entry in one translation
       * unit, to a cubin for sm_80: none may spill */
      kg_variant vs[8] = {{.layout = KG_LAYOUT_STRIDED, .vec = 1, .index_dtype = KG_I64},
                          {.layout = KG_LAYOUT_LINEAR, .vec = 1, .index_dtype = KG_I32},
                          {.layout = KG_LAYOUT_STRIDED, .vec = 1, .index_dtype = KG_I32, .warp = 1},
                          {.layout = KG_LAYOUT_STRIDED, .vec = 1, .index_dtype = KG_I32, .cache = 1},
                          {.layout = KG_LAYOUT_STRIDED, .vec = 4, .index_dtype = KG_I32},
                          {.layout = KG_LAYOUT_STRIDED, .vec = 1, .index_dtype = KG_I32, .split = 1},
                          {.layout = KG_LAYOUT_LINEAR, .vec = 1, .index_dtype = KG_I32, .split = 1},
                          {.layout = KG_LAYOUT_LINEAR, .vec = 1, .index_dtype = KG_I64, .split = 2}};
      const kg_kernel *kps[256];
      int nk = 0;
      /* an entry with a host plan: every region's program (their kernel names differ) */
      uint32_t nprog = c->plan ? c->n_regions : 1;
      for (uint32_t pi = 0; pi < nprog; pi++) {
       kg_compiled *pc = c->plan ? c->regions[pi] : c;
       for (uint32_t gi = 0; gi < pc->fusion.groups.n; gi++) {
        const kg_group *gr = &pc->fusion.groups.v[gi];
        int nvar = kg_group_splittable(&pc->lg, gr) ? 8 : gr->kind == KG_GROUP_REDUCE ? 5 : 2;
        /* a pointwise group that evaluates layout ops runs strided: the scheduler never
         * gives it the linear variant (kg_schedule_choose), so neither does this test */
        kg_group_facts gf = kg_group_facts_of(&pc->lg, &pc->fusion, gr);
        for (int vi = 0; vi < nvar; vi++) {
          if (vs[vi].layout == KG_LAYOUT_LINEAR && gf.coords && gr->kind == KG_GROUP_POINTWISE) continue;
          kg_diag vd;
          kg_diag_init(&vd);
          kg_kvariant *kv = kg_compiled_variant(pc, gi, &vs[vi], &vd);
          if (!kv) {
            char *t = kg_diag_format(&vd);
            cr_log_error("%s: variant %d of group %u does not lower:\n%s", ex.v[i], vi, gi, t);
            free(t);
            bad++;
          } else if (nk < 256) {
            kps[nk++] = &kv->k;
          }
          kg_diag_free(&vd);
        }
       }
      }
      kg_strbuf tu;
      kg_sb_init(&tu);
      kg_cuda_emit(kps, nk, c->g.entry, &tu);
      bool compile = (i / KG_NVRTC_PARTS) % KG_NVRTC_EVERY == 0;
      /* the run-time variants' translation unit (several times the default kernels' text)
       * through NVRTC on every other example; the default kernels below on every one */
      bool compile_variants = compile && (i / KG_NVRTC_PARTS / KG_NVRTC_EVERY) % 2 == 0;
      kg_diag vd;
      kg_diag_init(&vd);
      kg_nvrtc *nv2 = kg_ctx_nvrtc(ctx);
      kg_nvrtc_out no;
      memset(&no, 0, sizeof no);
      if (!compile_variants) {
        /* lowered and emitted above; NVRTC skipped (see KG_NVRTC_EVERY, compile_variants) */
      } else if (!nv2 || kg_nvrtc_compile(nv2, "variants.cu", kg_sb_cstr(&tu), 80, true, NULL, &no, &vd) != 0) {
        char *t = kg_diag_format(&vd);
        cr_log_error("%s: the run-time variants do not compile:\n%s", ex.v[i], t);
        free(t);
        bad++;
      } else {
        for (uint32_t q = 0; q < no.n_stats; q++)
          if (no.stats[q].spill_stores || no.stats[q].spill_loads) {
            cr_log_error("%s: run-time variant %s spills %d/%d bytes at sm_80", ex.v[i], no.stats[q].name, no.stats[q].spill_stores,
                         no.stats[q].spill_loads);
            bad++;
          }
      }
      kg_nvrtc_out_free(&no);
      kg_diag_free(&vd);
      kg_sb_free(&tu);
      int archs[2] = {80, 90};
      for (int a = 0; a < 2 && compile; a++)
        for (int k = 0; k < kg_compiled_n_kernels(c); k++) {
          kg_kernel_stats st;
          if (kg_kernel_stats_get(c, archs[a], k, &st) != KG_OK) {
            cr_log_error("%s sm_%d: %s", ex.v[i], archs[a], kg_last_error(ctx));
            bad++;
            continue;
          }
          kernels++;
          if (st.spill_stores || st.spill_loads) {
            cr_log_error("%s sm_%d %s: %d/%d bytes spilled", ex.v[i], archs[a], st.name, st.spill_stores, st.spill_loads);
            bad++;
          }
        }
      kg_compiled_free(c);
    }
    kg_module_free(m);
    kg_context_free(ctx);
  }
  free_names(&ex);
  cr_log_info("%d kernel compilations checked", kernels);
  cr_assert_eq(bad, 0, "%d NVRTC problems", bad);
}
Test(examples, nvrtc_sm80_sm90_no_spills_part0, .timeout = 2400) { nvrtc_no_spills(0); }
Test(examples, nvrtc_sm80_sm90_no_spills_part1, .timeout = 2400) { nvrtc_no_spills(1); }
Test(examples, nvrtc_sm80_sm90_no_spills_part2, .timeout = 2400) { nvrtc_no_spills(2); }

/* The reduction size matrix: the red_matrix_* examples (every reduction op, both
 * axes, every dtype family, symbolic [R, C]) re-run over sizes that reach every
 * schedule and edge: single elements, rows of 1, odd sizes, rows past one block
 * (1025, 8193, 65537), many short rows (column schedule), few long rows (split
 * reductions and the split-rows plan), and empty dims; the
 * middle dim of [A, R, C] (strided rows) too. Where
 * PyTorch rejects the input (amax / argmax / max(dim) over an empty dim) the
 * program must be rejected with PyTorch's message. */
static void size_matrix(int part, int parts) {
  static const struct {
    const char *name;
    bool empty_rows_err, empty_cols_err; /* R = 0 / C = 0 is an input error */
  } progs[] = {
      {"red_matrix_rows_f32", false, true}, {"red_matrix_cols_f32", true, false}, {"red_matrix_int32", true, true},
      {"red_matrix_half_f64", true, true},  {"red_matrix_empty_ok", false, false}, {"red_matrix_mid_f32", true, false},
  };
  /* every reduced size of the issue ({1, 7, 67, 457, 1024, 4097}) along both axes, with 1 to
   * thousands of rows, plus the schedules' edges: rows past one block, many short rows (a
   * warp each, or the column schedule), few long rows (split), empty dims */
  static const long long sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 33}, {5, 1025}, {2, 8193},
                                       {70, 9}, {9000, 3}, {0, 5}, {5, 0}, {1, 65537},
                                       {67, 457}, {457, 67}, {1024, 3}, {3, 1024}, {4097, 5}, {5, 4097}, {2000, 67}};
  kg_diag d;
  kg_diag_init(&d);
  kg_oracle *orc = kg_oracle_start(&d);
  if (!orc) {
    kg_diag_free(&d);
    cr_skip_test("PyTorch oracle unavailable");
  }
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.emu_thread_order = 2;
  o.emu_seed = 5;
  int failed = 0, ran = 0, k = 0;
  for (size_t p = 0; p < sizeof progs / sizeof *progs; p++)
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
      /* under the sanitizers a third of the matrix, shifted by one size per program so that
       * every size (the empty dims' errors included) still runs for some program */
      if ((k++ + (KG_NUMERIC_STRIDE > 1 ? (int)p : 0)) % (parts * KG_NUMERIC_STRIDE) != part) continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/examples/%s.json", KG_SOURCE_DIR, progs[p].name);
      kg_context *ctx = kg_context_new(&o);
      kg_module *m;
      cr_assert_eq(kg_module_load_file(ctx, path, &m), KG_OK, "%s", kg_last_error(ctx));
      const char *syms[3] = {"R", "C", "A"}; /* A: the outer dim of red_matrix_mid_f32 ([A, R, C], reduced over R) */
      long long vals[3] = {sizes[z][0], sizes[z][1], 3};
      kg_check_opts co;
      memset(&co, 0, sizeof co);
      co.entry = progs[p].name;
      co.device = KG_DEVICE_EMU;
      co.seed = 3 + z;
      co.size_names = syms;
      co.size_vals = vals;
      co.n_sizes = strcmp(progs[p].name, "red_matrix_mid_f32") ? 2 : 3; /* a --size the entry lacks is an error */
      bool want_err = (sizes[z][0] == 0 && progs[p].empty_rows_err) || (sizes[z][1] == 0 && progs[p].empty_cols_err);
      kg_check_result r;
      kg_status s = kg_check_module(ctx, orc, m, &co, &r);
      ran++;
      if (want_err) {
        if (s == KG_OK || !strstr(kg_last_error(ctx), "to have non-zero size")) {
          cr_log_error("%s R=%lld C=%lld: expected PyTorch's empty-reduction error, got %s", progs[p].name, sizes[z][0], sizes[z][1],
                       s == KG_OK ? "success" : kg_last_error(ctx));
          failed++;
        }
      } else if (s != KG_OK) {
        cr_log_error("%s R=%lld C=%lld: check failed:\n%s", progs[p].name, sizes[z][0], sizes[z][1], kg_last_error(ctx));
        failed++;
      } else if (!r.all_ok) {
        for (int q = 0; q < r.n_outputs; q++)
          if (!r.rows[q].ok)
            cr_log_error("%s R=%lld C=%lld out%d %s %s: %s (files in %s)", progs[p].name, sizes[z][0], sizes[z][1], q, r.rows[q].dtype,
                         r.rows[q].shape, r.rows[q].verdict, r.dir);
        failed++;
      }
      if (s == KG_OK) kg_check_result_free(&r);
      kg_module_free(m);
      kg_context_free(ctx);
    }
  kg_oracle_stop(orc);
  kg_diag_free(&d);
  cr_assert_eq(failed, 0, "%d of %d (program, size) pairs do not match PyTorch", failed, ran);
}

Test(examples, reduce_size_matrix_part0, .timeout = 1200) { size_matrix(0, 2); }
Test(examples, reduce_size_matrix_part1, .timeout = 1200) { size_matrix(1, 2); }
