/* support/arena.c — bump allocator and malloc wrappers.
 * One arena per compilation: every IR node, string and table of a compile is
 * allocated here and freed with one kg_arena_free (style habit 5). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kg_arena_block {
  kg_arena_block *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void kg_panic(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "kgen: internal error at %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

void *kg_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) kg_panic(__FILE__, __LINE__, "out of memory (%zu bytes)", n);
  return p;
}
void *kg_xcalloc(size_t n, size_t m) {
  void *p = calloc(n ? n : 1, m ? m : 1);
  if (!p) kg_panic(__FILE__, __LINE__, "out of memory");
  return p;
}
void *kg_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) kg_panic(__FILE__, __LINE__, "out of memory (%zu bytes)", n);
  return q;
}
#ifdef KGEN_VEC_MOVE
/* KG_VEC_PUSH under KGEN_VEC_MOVE: a new block of cap bytes holding the used bytes of v; v
 * poisoned and freed (a stale pointer into it reads garbage, or trips AddressSanitizer) */
void *kg_vec_move(void *v, size_t used, size_t cap) {
  void *q = kg_xmalloc(cap);
  if (used) memcpy(q, v, used);
  if (v && used) memset(v, 0xA5, used);
  free(v);
  return q;
}
#endif

char *kg_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = kg_xmalloc(n);
  memcpy(p, s, n);
  return p;
}

void kg_arena_init(kg_arena *a) { a->head = NULL, a->total = 0; }

void kg_arena_free(kg_arena *a) {
  kg_arena_block *b = a->head;
  while (b) {
    kg_arena_block *n = b->next;
    free(b);
    b = n;
  }
  a->head = NULL, a->total = 0;
}

void *kg_arena_alloc(kg_arena *a, size_t n) {
  void *p = kg_arena_alloc_raw(a, n);
  memset(p, 0, n);
  return p;
}

void *kg_arena_alloc_raw(kg_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  kg_arena_block *b = a->head;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    b = kg_xmalloc(sizeof *b + cap);
    b->next = a->head, b->used = 0, b->cap = cap;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  a->total += n;
  return p;
}

char *kg_arena_strndup(kg_arena *a, const char *s, size_t n) {
  char *p = kg_arena_alloc_raw(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}
char *kg_arena_strdup(kg_arena *a, const char *s) { return kg_arena_strndup(a, s, strlen(s)); }

char *kg_arena_printf(kg_arena *a, const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = kg_arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, aq);
  va_end(aq);
  return p;
}
