/* tests/test_golden.c — golden files for the printers and for error messages.
 *
 *   tests/golden/progs/NAME.json → NAME.ir (typed program, fusion, kernel IR),
 *                                  NAME.cu (CUDA C), NAME.ts (TorchScript twin)
 *   tests/bad/NAME.json          → NAME.err (the diagnostics kgen prints)
 *
 * Set KG_UPDATE_GOLDEN=1 to rewrite the expected files; review the diff like code.
 * Case names say which rule they test.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api_int.h"

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_json(const char *dir, char ***out) {
  DIR *d = opendir(dir);
  int n = 0;
  char **v = NULL;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      size_t l = strlen(e->d_name);
      if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
      v = realloc(v, (size_t)(n + 1) * sizeof *v);
      v[n] = malloc(strlen(dir) + l + 2);
      sprintf(v[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
  }
  if (n) qsort(v, (size_t)n, sizeof *v, cmp);
  *out = v;
  return n;
}

/* Compares text with the golden file path (or rewrites it). Returns 1 on mismatch. */
static int golden(const char *path, const char *text) {
  const char *upd = getenv("KG_UPDATE_GOLDEN");
  if (upd && *upd == '1') {
    kg_write_file(path, text, strlen(text));
    return 0;
  }
  size_t len;
  char *want = kg_read_file(path, &len);
  if (!want) {
    cr_log_error("missing golden file %s (run with KG_UPDATE_GOLDEN=1)", path);
    return 1;
  }
  int bad = strcmp(want, text) != 0;
  if (bad) cr_log_error("%s differs from the output:\n--- expected\n%s\n--- got\n%s", path, want, text);
  free(want);
  return bad;
}

static char *with_ext(const char *json, const char *ext) {
  size_t l = strlen(json);
  char *p = malloc(l + strlen(ext) + 1);
  memcpy(p, json, l - 5);
  strcpy(p + l - 5, ext);
  return p;
}

/* Paths in messages are made relative to the source tree. */
static char *relativize(const char *text) {
  kg_strbuf b;
  kg_sb_init(&b);
  const char *root = KG_SOURCE_DIR "/";
  size_t rl = strlen(root);
  for (const char *p = text; *p;) {
    if (strncmp(p, root, rl) == 0) p += rl;
    else kg_sb_putc(&b, *p++);
  }
  return kg_sb_take(&b);
}

Test(golden, printers) {
  char **files;
  int n = list_json(KG_SOURCE_DIR "/tests/golden/progs", &files), bad = 0;
  cr_assert(n > 0, "no golden programs");
  for (int i = 0; i < n; i++) {
    kg_context *ctx = kg_context_new(NULL);
    kg_module *m;
    kg_compiled *c = NULL;
    if (kg_module_load_file(ctx, files[i], &m) != KG_OK || kg_specialize(m, NULL, NULL, &c) != KG_OK) {
      cr_log_error("%s: %s", files[i], kg_last_error(ctx));
      bad++;
    } else {
      static const struct { kg_artifact k; const char *ext; } arts[] = {
          {KG_ART_IR, ".ir"}, {KG_ART_CUDA, ".cu"}, {KG_ART_TORCHSCRIPT, ".ts"}};
      for (size_t a = 0; a < sizeof arts / sizeof arts[0]; a++) {
        char *text;
        size_t len;
        if (kg_emit(c, arts[a].k, 0, &text, &len) != KG_OK) {
          cr_log_error("%s: %s", files[i], kg_last_error(ctx));
          bad++;
          continue;
        }
        char *p = with_ext(files[i], arts[a].ext);
        bad += golden(p, text);
        free(p);
        free(text);
      }
      kg_compiled_free(c);
      kg_module_free(m);
    }
    kg_context_free(ctx);
    free(files[i]);
  }
  free(files);
  cr_assert_eq(bad, 0, "%d golden mismatches", bad);
}

Test(golden, error_messages) {
  char **files;
  int n = list_json(KG_SOURCE_DIR "/tests/bad", &files), bad = 0;
  cr_assert(n >= 15, "expected at least 15 bad-input cases, found %d", n);
  for (int i = 0; i < n; i++) {
    kg_context *ctx = kg_context_new(NULL);
    kg_module *m = NULL;
    kg_compiled *c = NULL;
    kg_status s = kg_module_load_file(ctx, files[i], &m);
    if (s == KG_OK) {
      for (int e = 0; e < kg_module_n_entries(m) && s == KG_OK; e++) {
        s = kg_specialize(m, kg_module_entry_name(m, e), NULL, &c);
        if (s == KG_OK) kg_compiled_free(c);
      }
    }
    if (s == KG_OK) {
      cr_log_error("%s: accepted, but it is a bad-input case", files[i]);
      bad++;
    } else if (s != KG_ERR_INPUT) {
      cr_log_error("%s: internal error instead of a bad-input diagnostic:\n%s", files[i], kg_last_error(ctx));
      bad++;
    } else {
      char *p = with_ext(files[i], ".err");
      char *t = relativize(kg_last_error(ctx));
      bad += golden(p, t);
      if (!strstr(t, "$.")) {
        cr_log_error("%s: diagnostic has no JSON path:\n%s", files[i], t);
        bad++;
      }
      free(t);
      free(p);
    }
    kg_module_free(m);
    kg_context_free(ctx);
    free(files[i]);
  }
  free(files);
  cr_assert_eq(bad, 0, "%d bad-input cases misbehave", bad);
}
