/* support/support.h — the small shared toolkit every stage uses.
 *
 * Sections, one per source file:
 *   arena.c   — bump allocator; one per compilation, freed in one call (habit 5).
 *   strbuf.c  — growable string buffer; the only way emitters build text.
 *   diag.c    — user diagnostics as data (habit 6): a list of errors, each with
 *               a code, a JSON path, an optional F# source location and a message.
 *   hash.c    — FNV-1a / 64-bit hashing for caches and interning.
 *   sha256.c  — SHA-256: content hashes of offline kernel packages.
 *
 * Nothing here has mutable file-scope state.
 */
#ifndef KG_SUPPORT_H
#define KG_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define KG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define KG_NORETURN __attribute__((noreturn))
#else
#define KG_PRINTF(f, a)
#define KG_NORETURN
#endif

/* ---- internal errors are loud (habit 7) ---- */
KG_NORETURN void kg_panic(const char *file, int line, const char *fmt, ...) KG_PRINTF(3, 4);
#define KG_ASSERT(c) ((c) ? (void)0 : kg_panic(__FILE__, __LINE__, "assertion failed: %s", #c))
#define KG_UNREACHABLE() kg_panic(__FILE__, __LINE__, "unreachable")
#define KG_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* malloc wrappers that panic on exhaustion (out of memory is not a user error). */
void *kg_xmalloc(size_t n);
void *kg_xcalloc(size_t n, size_t m);
void *kg_xrealloc(void *p, size_t n);
char *kg_xstrdup(const char *s);

/* ---- arena.c ---- */
typedef struct kg_arena_block kg_arena_block;
typedef struct kg_arena {
  kg_arena_block *head; /* newest block first */
  size_t total;         /* bytes handed out, for statistics */
} kg_arena;

void kg_arena_init(kg_arena *a);
void kg_arena_free(kg_arena *a);            /* frees every allocation at once */
void *kg_arena_alloc(kg_arena *a, size_t n); /* zeroed, 16-byte aligned */
void *kg_arena_alloc_raw(kg_arena *a, size_t n); /* the same, not zeroed (a buffer about to be filled) */
char *kg_arena_strdup(kg_arena *a, const char *s);
char *kg_arena_strndup(kg_arena *a, const char *s, size_t n);
char *kg_arena_printf(kg_arena *a, const char *fmt, ...) KG_PRINTF(2, 3);

/* Growable array of fixed-size items, arena-independent (realloc).
 * A push may move the array: a pointer to an element (&g->nodes.v[i]) must not be read after
 * anything that may push to the same vector (re-read by index instead). The build option
 * KGEN_VEC_MOVE (cmake -DKGEN_VEC_MOVE=ON, with KGEN_SANITIZE) makes pushes move the array
 * (every push while it is small, every 64th after), the old block poisoned and freed, so
 * AddressSanitizer reports every such stale read deterministically, not only when a push
 * happens to reallocate (tools/vecptr_audit.py finds candidates statically). */
#ifdef KGEN_VEC_MOVE
void *kg_vec_move(void *v, size_t used, size_t cap); /* support/arena.c */
#define KG_VEC_MOVES_(vec) ((vec).n < 1024 || (vec).n % 64 == 0)
#define KG_VEC_REALLOC_(vec, used) kg_vec_move((vec).v, (used), (size_t)(vec).cap * sizeof(*(vec).v))
#else
#define KG_VEC_MOVES_(vec) 0
#define KG_VEC_REALLOC_(vec, used) kg_xrealloc((vec).v, (size_t)(vec).cap * sizeof(*(vec).v))
#endif
#define KG_VEC(T) struct { T *v; uint32_t n, cap; }
#define KG_VEC_PUSH(vec, item)                                                   \
  do {                                                                           \
    if ((vec).n == (vec).cap || KG_VEC_MOVES_(vec)) {                            \
      if ((vec).n == (vec).cap) (vec).cap = (vec).cap ? (vec).cap * 2 : 16;      \
      (vec).v = KG_VEC_REALLOC_(vec, (size_t)(vec).n * sizeof(*(vec).v));        \
    }                                                                            \
    (vec).v[(vec).n++] = (item);                                                 \
  } while (0)
#define KG_VEC_FREE(vec) (free((vec).v), (vec).v = NULL, (vec).n = (vec).cap = 0)

/* ---- strbuf.c ---- */
typedef struct kg_strbuf {
  char *s;    /* always NUL-terminated once anything was added */
  size_t len; /* bytes before the NUL */
  size_t cap;
} kg_strbuf;

void kg_sb_init(kg_strbuf *b);
void kg_sb_free(kg_strbuf *b);
void kg_sb_putc(kg_strbuf *b, char c);
void kg_sb_puts(kg_strbuf *b, const char *s);
void kg_sb_putn(kg_strbuf *b, const char *s, size_t n);
void kg_sb_printf(kg_strbuf *b, const char *fmt, ...) KG_PRINTF(2, 3);
void kg_sb_vprintf(kg_strbuf *b, const char *fmt, va_list ap);
void kg_sb_indent(kg_strbuf *b, int level); /* two spaces per level */
char *kg_sb_take(kg_strbuf *b);             /* returns the malloc'd string, resets b */
const char *kg_sb_cstr(kg_strbuf *b);       /* "" when empty */

/* Reads a whole file; returns malloc'd bytes (NUL-terminated) or NULL (errno set). */
char *kg_read_file(const char *path, size_t *len);
/* Writes a whole file atomically (temp file + fsync + rename). 0 on success. */
int kg_write_file(const char *path, const void *data, size_t len);
/* mkdir -p; 0 on success. */
int kg_mkdirs(const char *path);

/* ---- diag.c ---- */
typedef enum kg_diag_code {
  KG_E_OK = 0,
  KG_E_JSON,        /* malformed JSON */
  KG_E_LIMIT,       /* a resource limit was exceeded */
  KG_E_FORMAT,      /* document does not follow the quotation format */
  KG_E_UNSUPPORTED, /* a valid construct this version does not compile */
  KG_E_TYPE,        /* type / dtype error */
  KG_E_SHAPE,       /* shape / broadcast error */
  KG_E_ARG,         /* bad user argument (CLI, API, inputs) */
  KG_E_IO,          /* file could not be read/written */
  KG_E_INTERNAL,    /* a bug in kgen or a tool failure (NVRTC, cc) */
  KG_E_DEVICE,      /* no device / driver failure */
} kg_diag_code;

typedef struct kg_diag_item {
  kg_diag_code code;
  char *path;    /* JSON path ("$.entries[0].expr.body") or NULL */
  char *srcloc;  /* "Model.fs:12:5" or NULL */
  char *msg;
} kg_diag_item;

typedef struct kg_diag {
  kg_diag_item *items;
  uint32_t n, cap;
  uint32_t max_errors; /* stop recording after this many (0 = 20) */
} kg_diag;

void kg_diag_init(kg_diag *d);
void kg_diag_free(kg_diag *d);
void kg_diag_clear(kg_diag *d);
/* Drops the items recorded after the first n (a lower layer's message a caller replaces). */
void kg_diag_truncate(kg_diag *d, uint32_t n);
void kg_diag_add(kg_diag *d, kg_diag_code code, const char *path, const char *srcloc,
                 const char *fmt, ...) KG_PRINTF(5, 6);
void kg_diag_vadd(kg_diag *d, kg_diag_code code, const char *path, const char *srcloc,
                  const char *fmt, va_list ap);
int kg_diag_has_errors(const kg_diag *d);
int kg_diag_has_internal(const kg_diag *d);
/* Formats all items as "srcloc: error[code]: msg\n  at path\n"; returns malloc'd text. */
char *kg_diag_format(const kg_diag *d);
const char *kg_diag_code_name(kg_diag_code c);

/* ---- hash.c ---- */
uint64_t kg_hash64(const void *data, size_t n, uint64_t seed);
uint64_t kg_hash_str(const char *s);
void kg_hash_hex(uint64_t h, char out[17]);

/* ---- sha256.c ---- */
void kg_sha256(const void *data, size_t n, unsigned char out[32]);
/* the same with force_plain: the portable C rounds even where the CPU has SHA instructions (tests) */
void kg_sha256_impl(const void *data, size_t n, unsigned char out[32], int force_plain);
void kg_sha256_hex(const void *data, size_t n, char out[65]); /* lower-case hex, NUL-terminated */

#endif
