/* tools/fuzz/fuzz_compile.c — libFuzzer target for the whole compile path, through the
 * public API only (runtime/kgen.h): load → specialize → emit.
 *
 * Each input is a kgen document: kg_context_new (verify_ir on) → kg_module_load → for each
 * entry its parameters (kg_module_entry_n_params / _param) and kg_specialize(m, entry, NULL)
 * (the document's own signature) → the outputs (kg_compiled_output, _output_symbol) and
 * kg_emit of the CUDA C and the TorchScript twin → everything freed. Nothing is compiled
 * or run (no cc, no NVRTC). The invariants checked besides "no crash, no leak, no UB"
 * (ASan, LSan, UBSan): a call returns KG_OK exactly when it produced its result, a failing
 * call leaves a non-empty kg_last_error, and an emitted text is NUL-terminated with the
 * length reported. kg_module_load uses the frontend's default limits (64 MiB, depth 200,
 * 1M nodes); -max_len (tools/fuzz/run.sh: 4096) keeps inputs far below them, so each
 * execution stays in the milliseconds. Build and run: README.md, run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *entry) {
  fprintf(stderr, "fuzz_compile: invariant broken: %s (entry %s)\n", what, entry ? entry : "-");
  abort();
}

/* A failing call must say why. */
static void check_error(kg_context *ctx, kg_status s, const char *call, const char *entry) {
  if (s != KG_ERR_INPUT && s != KG_ERR_INTERNAL) fail(call, entry);
  const char *e = kg_last_error(ctx);
  if (!e || !e[0]) {
    fprintf(stderr, "fuzz_compile: %s failed (status %d) with an empty kg_last_error\n", call, (int)s);
    fail("empty kg_last_error", entry);
  }
}

static void emit(kg_context *ctx, kg_compiled *c, kg_artifact kind, const char *entry) {
  char *text = NULL;
  size_t len = 0;
  kg_status s = kg_emit(c, kind, 80, &text, &len);
  if (s == KG_OK) {
    if (!text || strlen(text) != len) fail("kg_emit: text and length disagree", entry);
  } else {
    if (text) fail("kg_emit failed but returned text", entry);
    check_error(ctx, s, "kg_emit", entry);
  }
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  o.cache_dir = "/nonexistent/kgen-fuzz-cache"; /* never used: nothing is compiled or run */
  kg_context *ctx = kg_context_new(&o);

  kg_module *m = NULL;
  kg_status s = kg_module_load(ctx, (const char *)data, size, &m);
  if (s != KG_OK) {
    if (m) fail("kg_module_load failed but returned a module", NULL);
    check_error(ctx, s, "kg_module_load", NULL);
    kg_context_free(ctx);
    return 0;
  }
  if (!m) fail("kg_module_load returned KG_OK and no module", NULL);

  int n = kg_module_n_entries(m);
  if (n < 0) fail("negative entry count", NULL);
  if (kg_module_entry_name(m, n) != NULL || kg_module_entry_name(m, -1) != NULL)
    fail("kg_module_entry_name out of range is not NULL", NULL);
  for (int i = 0; i < n; i++) {
    const char *name = kg_module_entry_name(m, i);
    if (!name) fail("entry without a name", NULL);

    int np = kg_module_entry_n_params(m, name);
    for (int p = 0; p < np && p < 64; p++) {
      DLDataType dt;
      int kind = kg_module_entry_param(m, name, p, &dt);
      if (kind < -1 || kind > 1) fail("kg_module_entry_param: kind out of range", name);
    }

    kg_compiled *c = NULL;
    s = kg_specialize(m, name, NULL, &c);
    if (s != KG_OK) {
      if (c) fail("kg_specialize failed but returned an entry", name);
      check_error(ctx, s, "kg_specialize", name);
      continue;
    }
    if (!c) fail("kg_specialize returned KG_OK and no entry", name);

    int no = kg_compiled_n_outputs(c);
    if (no < 0 || kg_compiled_n_kernels(c) < 0) fail("negative output or kernel count", name);
    for (int k = 0; k < no; k++) {
      DLDataType dt;
      int ndim = -1;
      int64_t shape[8];
      s = kg_compiled_output(c, k, &dt, &ndim, shape);
      if (s != KG_OK) {
        check_error(ctx, s, "kg_compiled_output", name);
        continue;
      }
      if (ndim < 0 || ndim > 8) fail("kg_compiled_output: rank out of range", name);
      for (int d = 0; d < ndim; d++) {
        const char *sym = kg_compiled_output_symbol(c, k, d);
        if (shape[d] < -1) fail("kg_compiled_output: negative size", name);
        if (sym && !sym[0]) fail("kg_compiled_output_symbol: empty symbol", name);
      }
    }
    emit(ctx, c, KG_ART_CUDA, name);
    emit(ctx, c, KG_ART_TORCHSCRIPT, name);
    kg_compiled_free(c);
  }
  kg_module_free(m);
  kg_context_free(ctx);
  return 0;
}
