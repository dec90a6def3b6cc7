/* tests/test_package_json.c — the package reader's fast paths (docs/package.md "Reading fast"):
 *
 *   - runtime/package_json.c's parser gives the tree cJSON gives (types, member names, strings,
 *     numbers, valueint, the prev links) for hand-made texts — escapes, surrogate pairs, numbers
 *     of every form — and for every JSON section of real packages (the manifest, a host plan
 *     with regions, every variant's launch metadata in kmeta);
 *   - what is not JSON is an error naming the byte where it goes wrong; every prefix of a real
 *     plan is refused without a crash (ASan checks the reads);
 *   - SHA-256 on the SHA instructions equals the portable rounds for every length 0 … 1100 at
 *     unaligned starts, and both give the FIPS 180-4 vectors.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "runtime/kgen.h"
#include "runtime/package.h"
#include <cjson/cJSON.h>

static char dir[64];
static void mkdir_tmp(void) {
  strcpy(dir, "/tmp/kgen-test-pkj-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
}
static void rm_tmp(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) cr_log_warn("could not remove %s", dir);
}

/* a and b (ours, cJSON's) hold the same tree; where names the place for the message */
static void same_tree(const cJSON *a, const cJSON *b, const char *where) {
  cr_assert_not_null(a, "%s: ours has no value", where);
  cr_assert_not_null(b, "%s: cJSON has no value", where);
  cr_assert_eq(a->type & 0xFF, b->type & 0xFF, "%s: type %d, cJSON %d", where, a->type, b->type);
  cr_assert_eq(!a->string, !b->string, "%s: member name", where);
  if (a->string) cr_assert_str_eq(a->string, b->string, "%s", where);
  if (cJSON_IsString(a)) cr_assert_str_eq(a->valuestring, b->valuestring, "%s", where);
  if (cJSON_IsNumber(a)) {
    cr_assert(!memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)), "%s: %.17g, cJSON %.17g (bit for bit: -0 is not 0)", where, a->valuedouble,
              b->valuedouble);
    cr_assert_eq(a->valueint, b->valueint, "%s: valueint", where);
  }
  const cJSON *x = a->child, *y = b->child;
  int i = 0;
  for (; x && y; x = x->next, y = y->next, i++) same_tree(x, y, where);
  cr_assert(!x && !y, "%s: member %d: the counts differ", where, i);
  if (a->child) cr_assert_eq(a->child->prev, cJSON_GetArrayItem(a, cJSON_GetArraySize(a) - 1), "%s: the first member's prev is the last", where);
}

static void same_as_cjson(const char *text, size_t n, const char *where) {
  kg_arena a;
  kg_arena_init(&a);
  char why[128];
  const cJSON *ours = kg_pkj_parse(&a, text, n, why, sizeof why);
  cr_assert_not_null(ours, "%s: %s", where, why);
  cJSON *theirs = cJSON_ParseWithLength(text, n);
  same_tree(ours, theirs, where);
  cJSON_Delete(theirs);
  kg_arena_free(&a);
}

Test(package_json, same_tree_as_cjson) {
  static const char *const texts[] = {
      "{}", "[]", " [ ] ", "0", "-0", "7", "-12", "true", "false", "null", "\"\"",
      "{\"a\":1,\"b\":[1,2,3],\"c\":{\"d\":null,\"e\":true,\"f\":false},\"a\":2}",
      "[0, 1, -1, 2147483647, 2147483648, -2147483648, -2147483649, 9007199254740993, 123456789012345678901234567890]",
      "[1.5, -0.25, 1e3, 1E-3, 2.5e+10, -3.75E2, 0.1, 6.02214076e23, 1e308, 4.9e-324]",
      "[\"plain\", \"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t\", \"\\u00e9\\u4e2d\\ud83d\\ude00\", \"a\\u0041b\", \"\\u07ff\\u0800\\uffff\"]",
      "{\"op\":\"RSQRT\",\"dt\":\"float32\",\"in\":[99],\"shape\":[96,1,1],\"path\":\"$.entries[0].expr.body\",\"loc\":\"googlenet.fs:67:22\"}",
      "[[[[[[[[[[[]]]]]]]]]]]", "\t\r\n{ \"k\" : [ 1 , { } , [ ] , \"x\" ] }\n",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) same_as_cjson(texts[i], strlen(texts[i]), texts[i]);
}

/* every JSON section of real packages: what a specialization and a variant's first use read */
static void sections_as_cjson(kg_context *ctx, const char *example, const char *name) {
  char doc[512], path[256];
  snprintf(doc, sizeof doc, "%s/examples/%s.json", KG_SOURCE_DIR, example);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  kg_module *m;
  cr_assert_eq(kg_module_load_file(ctx, doc, &m), KG_OK, "%s", kg_last_error(ctx));
  kg_package_item it = {m, NULL, NULL};
  cr_assert_eq(kg_package_write(ctx, &it, 1, NULL, 0, path), KG_OK, "%s", kg_last_error(ctx));
  kg_module_free(m);
  size_t len;
  unsigned char *bytes = (unsigned char *)kg_read_file(path, &len);
  cr_assert_not_null(bytes);
  uint64_t mlen = 0;
  for (int i = 7; i >= 0; i--) mlen = mlen << 8 | bytes[24 + i];
  same_as_cjson((const char *)bytes + 64, (size_t)mlen, "the manifest");
  kg_diag d;
  kg_diag_init(&d);
  kg_package *pk = kg_pkg_parse(bytes, len, path, 0, &d);
  cr_assert_not_null(pk);
  int n_plan = 0, n_kmeta = 0;
  for (uint32_t s = 0; s < pk->n_secs; s++) {
    const char *sn = pk->secs[s].name;
    size_t sl = strlen(sn), n;
    bool plan = sl > 5 && !strcmp(sn + sl - 5, ".plan"), kmeta = sl > 6 && !strcmp(sn + sl - 6, ".kmeta");
    if (!plan && !kmeta) continue;
    const char *t = (const char *)kg_pkg_section_bytes(pk, (int32_t)s, &n, &d);
    cr_assert_not_null(t);
    if (plan) {
      same_as_cjson(t, n, sn), n_plan++;
      /* every prefix (sampled) is refused, never a crash */
      kg_arena a;
      kg_arena_init(&a);
      char why[128];
      for (size_t cut = 0; cut < n; cut += 1 + cut / 7) {
        cr_assert_null(kg_pkj_parse(&a, t, cut, why, sizeof why), "%s cut at %zu parsed", sn, cut);
        cr_assert_not_null(strstr(why, " at byte "), "%s", why);
      }
      kg_arena_free(&a);
      continue;
    }
    /* kmeta: concatenated objects, each parsed alone as its variant's first use does */
    size_t at = 0;
    while (at < n) {
      while (at < n && (t[at] == ' ' || t[at] == '\n')) at++;
      if (at == n) break;
      size_t depth = 0, e = at;
      bool in_str = false;
      for (; e < n; e++) {
        char c = t[e];
        if (in_str) {
          if (c == '\\') e++;
          else if (c == '"') in_str = false;
        } else if (c == '"') {
          in_str = true;
        } else if (c == '{') {
          depth++;
        } else if (c == '}' && --depth == 0) {
          break;
        }
      }
      cr_assert_lt(e, n, "%s: an unterminated object at %zu", sn, at);
      same_as_cjson(t + at, e + 1 - at, sn), n_kmeta++;
      at = e + 1;
    }
  }
  cr_assert(n_plan >= 1 && n_kmeta >= 1, "%s: %d plans, %d launch metadata objects", example, n_plan, n_kmeta);
  kg_pkg_free(pk, ctx);
  kg_diag_free(&d);
}

Test(package_json, real_sections_as_cjson, .init = mkdir_tmp, .fini = rm_tmp, .timeout = 120) {
  kg_context *ctx = kg_context_new(NULL);
  sections_as_cjson(ctx, "cf_rnn_elman", "rnn.kgpkg");           /* a host plan: regions, copies */
  sections_as_cjson(ctx, "norm_layer_norm_affine", "ln.kgpkg"); /* reductions: many variants */
  kg_context_free(ctx);
}

Test(package_json, bad_text_is_located) {
  static const struct {
    const char *text, *why;
  } bad[] = {
      {"", "expected a value at byte 0"},
      {"[1,]", "at byte 3"},
      {"[1 2]", "expected ',' or ']' at byte 3"},
      {"{\"a\" 1}", "expected ':' at byte 5"},
      {"{1:2}", "expected a member name at byte 1"},
      {"{\"a\":1", "unterminated object at byte 0"},
      {"[1] x", "bytes after the value at byte 4"},
      {"\"abc", "unterminated string at byte 0"},
      {"\"a\\qb\"", "a bad escape in a string at byte 2"},
      {"\"a\\u12g4\"", "a bad \\u escape at byte 2"},
      {"\"\\u0000\"", "\\u0000 in a string at byte 1"},
      {"\"\\ud800x\"", "an unpaired surrogate"},
      {"\"\\udc00\"", "an unpaired surrogate"},
      {"\"a\nb\"", "a control character in a string at byte 2"},
      {"01", "a bad number at byte 0"},
      {"-", "a bad number at byte 0"},
      {"1.", "a bad number at byte 0"},
      {"1e+", "a bad number at byte 0"},
      {"tru", "a bad literal at byte 0"},
      {"nul", "a bad literal at byte 0"},
      {"+1", "a bad number at byte 0"},
  };
  kg_arena a;
  kg_arena_init(&a);
  char why[128];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_null(kg_pkj_parse(&a, bad[i].text, strlen(bad[i].text), why, sizeof why), "'%s' parsed", bad[i].text);
    cr_assert_not_null(strstr(why, bad[i].why), "'%s': '%s', wanted '%s'", bad[i].text, why, bad[i].why);
  }
  /* nesting: 256 levels parse, 257 are refused (the parser recurses: no stack overflow) */
  char deep[2 * 300 + 1];
  for (int lv = 256; lv <= 257; lv++) {
    memset(deep, '[', (size_t)lv), memset(deep + lv, ']', (size_t)lv);
    const cJSON *v = kg_pkj_parse(&a, deep, 2 * (size_t)lv, why, sizeof why);
    if (lv == 256) cr_assert_not_null(v, "%s", why);
    else cr_assert(!v && strstr(why, "nesting too deep at byte 256"), "%s", why);
  }
  kg_arena_free(&a);
}

Test(package_json, sha256_instructions_match_the_rounds) {
  static const struct {
    const char *in, *hex;
  } fips[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  static const char hx[] = "0123456789abcdef";
  for (int plain = 0; plain < 2; plain++)
    for (size_t i = 0; i < sizeof fips / sizeof *fips; i++) {
      unsigned char h[32];
      char s[65];
      kg_sha256_impl(fips[i].in, strlen(fips[i].in), h, plain);
      for (int j = 0; j < 32; j++) s[2 * j] = hx[h[j] >> 4], s[2 * j + 1] = hx[h[j] & 15];
      s[64] = 0;
      cr_assert_str_eq(s, fips[i].hex, "'%s' (plain %d)", fips[i].in, plain);
    }
  unsigned char *buf = malloc(1200);
  uint32_t x = 12345;
  for (int i = 0; i < 1200; i++) x = x * 1103515245u + 12345u, buf[i] = (unsigned char)(x >> 16);
  for (size_t n = 0; n <= 1100; n++) {
    unsigned char a[32], b[32];
    size_t off = n % 7; /* unaligned starts */
    kg_sha256_impl(buf + off, n, a, 0), kg_sha256_impl(buf + off, n, b, 1);
    cr_assert(!memcmp(a, b, 32), "length %zu at offset %zu: the SHA instructions differ from the rounds", n, off);
  }
  free(buf);
}
