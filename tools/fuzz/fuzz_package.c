/* tools/fuzz/fuzz_package.c — libFuzzer target for the offline kernel package reader
 * (runtime/package_read.c, package_ir.c, package_plan.c, package_load.c).
 *
 * Each input is read as a package twice: as it is (header, content hashes, manifest), and with
 * the hashes and the ABI check skipped (KG_PKG_NO_HASH | KG_PKG_ANY_ABI), so that a mutation of
 * the manifest or of a plan section reaches the JSON readers and the checks behind them rather
 * than stopping at a hash. When a package reads, every entry and signature is specialized (the
 * plan section becomes a kg_compiled), its artifacts emitted (the twins, the CUDA C, the IR),
 * and it is run on the null device with small random inputs — binding, the scheduler, every
 * packaged variant's launch metadata and the host plan — so a corrupt index is found where the
 * runtime would follow it. Invariants besides "no crash, no leak, no UB": a call returns KG_OK
 * exactly when it produced its result, and a failing call leaves a non-empty kg_last_error().
 * Seeds: tools/fuzz/corpus_package/ (small packages of the examples, `kgen package --arch none`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "runtime/package.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void invariant(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz_package: invariant broken: %s\n", what);
    abort();
  }
}

/* runs c on the null device with random inputs when they are small */
static void run_null(kg_context *ctx, kg_module *m, kg_compiled *c, const char *entry) {
  const kg_graph *g = kg_compiled_graph(c);
  if (g->params.n > 16) return;
  kg_npy arr[16];
  DLTensor v[16];
  const DLTensor *in[16];
  kg_named_tensor cap[16];
  int n_in = 0, n_cap = 0, made = 0;
  bool ok = true;
  for (uint32_t p = 0; p < g->params.n && ok; p++) {
    const kg_gnode *n = &g->nodes.v[g->params.v[p].node];
    int64_t shape[8], numel = 1;
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    for (int d = 0; d < rank; d++) {
      shape[d] = n->shape.d[d].kind == KG_DIM_STATIC ? n->shape.d[d].v : 3;
      if (shape[d] > 4096 || (numel *= shape[d]) > 65536) ok = false;
    }
    if (!ok || kg_npy_random_in(&arr[p], n->dtype, rank, shape, p, true, NULL) != 0) {
      ok = false;
      break;
    }
    made++;
    kg_npy_dlview(&arr[p], &v[p]);
    if (g->params.v[p].is_capture) cap[n_cap].name = g->params.v[p].name, cap[n_cap++].t = &v[p];
    else in[n_in++] = &v[p];
  }
  kg_compiled *r = NULL;
  if (ok) {
    kg_status s = kg_specialize_for(m, entry, in, n_in, cap, n_cap, &r);
    invariant((s == KG_OK) == (r != NULL), "kg_specialize_for: status and result agree");
    invariant(s == KG_OK || kg_last_error(ctx)[0], "kg_specialize_for: a failure has a message");
  }
  if (r) {
    int no = kg_compiled_n_outputs(r);
    if (no <= 16) {
      kg_npy outs[16];
      DLTensor ov[16], *op[16];
      if (kg_alloc_host_outputs(r, outs, ov, op) == KG_OK) {
        kg_status s = kg_run(r, KG_DEVICE_NULL, in, n_in, cap, n_cap, op, no, NULL);
        invariant(s == KG_OK || kg_last_error(ctx)[0], "kg_run: a failure has a message");
        for (int i = 0; i < no; i++) kg_npy_free(&outs[i]);
      }
    }
    kg_compiled_free(r);
  }
  for (int i = 0; i < made; i++) kg_npy_free(&arr[i]);
}

static void one(const uint8_t *data, size_t size, unsigned flags) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  kg_context *ctx = kg_context_new(&o);
  unsigned char *bytes = malloc(size ? size : 1);
  if (size) memcpy(bytes, data, size);
  kg_diag d;
  kg_diag_init(&d);
  kg_package *pk = kg_pkg_parse(bytes, size, "fuzz.kgpkg", flags, &d);
  invariant((pk != NULL) == (d.n == 0), "kg_pkg_parse: a package exactly when no diagnostic");
  kg_diag_free(&d);
  if (pk) {
    kg_module *m = calloc(1, sizeof *m);
    m->ctx = ctx, m->pkg = pk;
    kg_arena_init(&m->arena);
    for (int e = 0; e < kg_module_n_entries(m); e++) {
      const char *name = kg_module_entry_name(m, e);
      invariant(name != NULL, "an entry has a name");
      (void)kg_module_entry_n_params(m, name);
      for (uint32_t s = 0; s < pk->entries[e].n_sigs; s++) {
        kg_compiled *c = NULL;
        kg_status st = kg_specialize(m, name, pk->entries[e].sigs[s].text, &c);
        invariant((st == KG_OK) == (c != NULL), "kg_specialize: status and result agree");
        invariant(st == KG_OK || kg_last_error(ctx)[0], "kg_specialize: a failure has a message");
        if (!c) continue;
        for (int k = 0; k <= KG_ART_EXPLAIN; k++) {
          char *t = NULL;
          size_t n = 0;
          kg_status es = kg_emit(c, (kg_artifact)k, 80, &t, &n);
          invariant((es == KG_OK) == (t != NULL), "kg_emit: status and result agree");
          free(t);
        }
        run_null(ctx, m, c, name);
        kg_compiled_free(c);
      }
    }
    char *t = NULL;
    if (kg_package_describe(m, NULL, &t) == KG_OK) free(t);
    kg_module_free(m);
  } /* (a package that does not read has freed its bytes) */
  kg_context_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size, 0);
  one(data, size, KG_PKG_NO_HASH | KG_PKG_ANY_ABI);
  return 0;
}
