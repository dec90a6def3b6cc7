/* tools/fuzz/fuzz_json.c — libFuzzer target for the quotation reader and the
 * signature parser (frontend/jsonscan.c, json.c, sig.c).
 *
 * Each input is read as a document (kg_fe_read) with small limits, so deep and
 * big inputs reach the limit paths quickly; the same bytes, as a NUL-terminated
 * string, go through kg_fe_parse_sig (both the JSON and the compact form). The
 * invariant checked besides "no crash, no leak, no UB": a read returns a
 * document exactly when it recorded no diagnostic. Build and run: README.md.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kg_fe_limits lim;
  kg_fe_limits_default(&lim);
  lim.max_bytes = 1 << 20;
  lim.max_depth = 64;
  lim.max_nodes = 5000;

  kg_arena a;
  kg_diag d;
  kg_arena_init(&a);
  kg_diag_init(&d);
  kg_doc *doc = kg_fe_read(&a, (const char *)data, size, &lim, &d);
  if ((doc != NULL) == (d.n > 0)) abort();
  for (uint32_t i = 0; doc && i < doc->n_entries; i++)
    if (!doc->entries[i].expr || !doc->entries[i].path) abort();
  free(kg_diag_format(&d));
  kg_diag_clear(&d);

  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  kg_sig *sig = kg_fe_parse_sig(&a, text, &d);
  if ((sig != NULL) == (d.n > 0)) abort();
  free(kg_diag_format(&d));
  free(text);

  kg_diag_free(&d);
  kg_arena_free(&a);
  return 0;
}
