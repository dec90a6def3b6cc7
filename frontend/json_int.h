/* frontend/json_int.h — the frontend's internal interface between json.c (the
 * document reader), json_value.c (constants), jsonscan.c (text → cJSON with limits
 * and exact byte positions) and sig.c (signatures); frontend.h holds only the public API. */
#ifndef KG_FE_JSON_INT_H
#define KG_FE_JSON_INT_H

#include <cjson/cJSON.h>

#include "frontend.h"

enum {
  KG_JSON_DEPTH_CAP = 1000, /* cJSON's CJSON_NESTING_LIMIT: never ask for more */
  KG_QUOTE_MAX = 60,        /* bytes of a user string quoted in a message */
};

cJSON *kg_fe_json_parse(const char *text, size_t len, const kg_fe_limits *lim, kg_diag *d);
kg_sig *kg_fe_sig_from_json(kg_arena *arena, const cJSON *j, const char *path, uint32_t max_rank,
                            kg_diag *d);
const char *kg_fe_quote(kg_arena *arena, const char *s);
void kg_fe_limits_resolve(const kg_fe_limits *lim, kg_fe_limits *out);

/* message helpers (json.c) */
void kg_sb_quoted(kg_strbuf *b, const char *s, size_t max); /* \ ' and control bytes escaped, cut at max */
void kg_sb_path_key(kg_strbuf *b, const char *key);         /* ".key" or "['key']" */
void kg_linecol(const char *s, size_t off, size_t *line, size_t *col); /* 1-based line and column of a byte */

/* ---- the reader (json.c), shared with json_value.c ---- */
#define KG_TWO_53 9007199254740992.0

typedef struct kg_rd {
  kg_arena *arena;
  kg_diag *d;
  kg_fe_limits lim;
  kg_doc *doc;
  uint32_t n_errors; /* errors this read found (kg_diag may keep fewer) */
  bool stop;         /* a limit was hit: read no further nodes */
  size_t path_bytes; /* total bytes of paths made, against KG_PATH_BUDGET */
} kg_rd;

/* `at`: the nearest node with "loc" (or NULL): its F# location goes with the error. */
void kg_rd_err(kg_rd *r, kg_diag_code code, const char *path, const kg_ast *at,
               const char *fmt, ...) KG_PRINTF(5, 6);
/* base + ".key" (when key) + "[idx]" (when idx >= 0), in the arena. */
const char *kg_rd_path(kg_rd *r, const char *base, const char *key, long idx);
/* How a found value reads in a message: the number itself, the string quoted, or its JSON type. */
const char *kg_rd_found(kg_rd *r, const cJSON *j);
/* A number or string value as written, for "does not fit" messages. */
const char *kg_rd_valtext(kg_rd *r, const cJSON *j);
/* "field 'key' must be <want>, found ..." at path.key */
void kg_bad_field(kg_rd *r, const cJSON *f, const char *key, const char *want,
                  const char *path, const kg_ast *at);
/* Required string field key of j (a copy in the arena); NULL with an error when missing or
 * not a (non-empty, when asked) string. */
const char *kg_req_str(kg_rd *r, const cJSON *j, const char *key, const char *what,
                       const char *path, const kg_ast *at, bool nonempty);

/* ---- json_value.c ---- */
/* A Value node's "value" f, decoded by its type ty into out (spec "Values"); errors are
 * recorded at path (out is then partly set). */
void kg_rd_value(kg_rd *r, const cJSON *f, const char *ty, const char *path,
                 const kg_ast *at, kg_value *out);

#endif
