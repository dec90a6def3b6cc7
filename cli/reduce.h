/* cli/reduce.h — `kgen reduce`: the driver (cli_reduce.c) and its edits (reduce_edits.c).
 *
 * The driver owns the failure test (a child process per candidate) and the fixpoint loop;
 * the edits know the document format. A pass is a deterministic enumeration of the edits of
 * one kind on a document: kg_red_pass_fn(doc, k, e) applies the k-th applicable edit to `doc`
 * (a private copy) and returns true, or returns false when there are k or fewer. Every edit
 * strictly decreases a measure (nodes; uses of let-bound variables; signature sizes and
 * ranks; dtype cost; constant cost), so the loop ends. Edits may produce documents that kgen
 * rejects: the driver tests and discards them.
 */
#ifndef KG_REDUCE_H
#define KG_REDUCE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct kg_red_edit {
  const char *entry; /* the entry being reduced */
  bool has_out;      /* the failure names an output (a wrong answer) */
  int out;           /* in: the failing output's index; out: its index after the edit */
  char what[192];    /* out: what the edit did, for the log */
} kg_red_edit;

typedef bool (*kg_red_pass_fn)(cJSON *doc, int k, kg_red_edit *e);

typedef struct kg_red_pass {
  const char *name;
  kg_red_pass_fn fn;
} kg_red_pass;

/* In the order the driver runs them each round. */
extern const kg_red_pass kg_red_passes[];
extern const int kg_red_n_passes;

/* Removes the vars no node refers to and renumbers the rest (cosmetic; the driver checks the
 * failure survives it). False when nothing was unused. */
bool kg_red_compact_vars(cJSON *doc);
/* Expression nodes of the entries and definitions, witnesses (operator boilerplate) left out. */
int kg_red_count_nodes(const cJSON *doc);
/* The entry named `name` (NULL: the first). */
cJSON *kg_red_entry(const cJSON *doc, const char *name);

#endif
