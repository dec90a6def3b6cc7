/* support/diag.c — diagnostics as data (style habit 6).
 * Library code never prints or exits on a user error: it records an item
 * (code, JSON path, F# source location, message) and returns failure. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kg_diag_init(kg_diag *d) { memset(d, 0, sizeof *d); }

void kg_diag_clear(kg_diag *d) {
  for (uint32_t i = 0; i < d->n; i++) {
    free(d->items[i].path), free(d->items[i].srcloc), free(d->items[i].msg);
  }
  d->n = 0;
}
void kg_diag_truncate(kg_diag *d, uint32_t n) {
  for (uint32_t i = n; i < d->n; i++) free(d->items[i].path), free(d->items[i].srcloc), free(d->items[i].msg);
  if (n < d->n) d->n = n;
}
void kg_diag_free(kg_diag *d) {
  kg_diag_clear(d);
  free(d->items);
  d->items = NULL, d->cap = 0;
}

void kg_diag_vadd(kg_diag *d, kg_diag_code code, const char *path, const char *srcloc,
                  const char *fmt, va_list ap) {
  uint32_t max = d->max_errors ? d->max_errors : 20;
  if (d->n >= max) return;
  if (d->n == d->cap) {
    d->cap = d->cap ? d->cap * 2 : 8;
    d->items = kg_xrealloc(d->items, d->cap * sizeof *d->items);
  }
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_vprintf(&b, fmt, ap);
  kg_diag_item *it = &d->items[d->n++];
  it->code = code;
  it->path = path ? kg_xstrdup(path) : NULL;
  it->srcloc = srcloc ? kg_xstrdup(srcloc) : NULL;
  it->msg = kg_sb_take(&b);
}

void kg_diag_add(kg_diag *d, kg_diag_code code, const char *path, const char *srcloc,
                 const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_diag_vadd(d, code, path, srcloc, fmt, ap);
  va_end(ap);
}

int kg_diag_has_errors(const kg_diag *d) { return d->n > 0; }
int kg_diag_has_internal(const kg_diag *d) {
  for (uint32_t i = 0; i < d->n; i++)
    if (d->items[i].code == KG_E_INTERNAL) return 1;
  return 0;
}

const char *kg_diag_code_name(kg_diag_code c) {
  static const char *names[] = {"ok",   "json",  "limit", "format", "unsupported", "type",
                                "shape", "arg",  "io",    "internal", "device"};
  return (unsigned)c < KG_COUNTOF(names) ? names[c] : "?";
}

char *kg_diag_format(const kg_diag *d) {
  kg_strbuf b;
  kg_sb_init(&b);
  for (uint32_t i = 0; i < d->n; i++) {
    const kg_diag_item *it = &d->items[i];
    if (it->srcloc) kg_sb_printf(&b, "%s: ", it->srcloc);
    kg_sb_printf(&b, "error[%s]: %s\n", kg_diag_code_name(it->code), it->msg);
    if (it->path) kg_sb_printf(&b, "  at %s\n", it->path);
  }
  return kg_sb_take(&b);
}
