/* frontend/json_int.h — the frontend's internal interface between json.c (the
 * document reader), jsonscan.c (text → cJSON with limits and exact byte
 * positions) and sig.c (signatures); frontend.h holds only the public API. */
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

#endif
