/* tests/test_docs.c — docs that must agree with the code:
 *  - docs/ops.md is exactly the table generated from the op and member tables;
 *  - every exact member key kgen resolves appears verbatim in the spec
 *    (shared/spec/torchsharp-members.md, beside the checkout; skipped without it) or in its
 *    extension, docs/members-extra.md (keys read from TorchSharp 0.107 by reflection). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

Test(docs, ops_table_is_generated_from_the_op_table) {
  kg_strbuf b;
  kg_sb_init(&b);
  kg_member_doc(&b);
  const char *path = KG_SOURCE_DIR "/docs/ops.md";
  const char *upd = getenv("KG_UPDATE_GOLDEN");
  if (upd && *upd == '1') kg_write_file(path, b.s, b.len);
  size_t len;
  char *have = kg_read_file(path, &len);
  cr_assert_not_null(have, "docs/ops.md is missing (KG_UPDATE_GOLDEN=1 regenerates it)");
  cr_expect_str_eq(have, kg_sb_cstr(&b), "docs/ops.md is stale: regenerate with `kgen ops > docs/ops.md`");
  free(have);
  kg_sb_free(&b);
}

Test(docs, member_keys_are_exact_spec_keys) {
  size_t len;
  char *spec = kg_read_file(KG_SOURCE_DIR "/../shared/spec/torchsharp-members.md", &len);
  if (!spec) cr_skip_test("shared/spec is not beside the checkout");
  char *extra = kg_read_file(KG_SOURCE_DIR "/docs/members-extra.md", &len);
  cr_assert_not_null(extra, "docs/members-extra.md is missing");
  uint32_t n;
  const kg_member_row *rows = kg_member_rows(&n);
  cr_assert(n > 300, "member table has %u rows", n);
  int missing = 0;
  for (uint32_t i = 0; i < n; i++) {
    char pat[1024];
    snprintf(pat, sizeof pat, "`%s`", rows[i].key);
    char pat2[1024];
    snprintf(pat2, sizeof pat2, "`` %s ``", rows[i].key);
    if (!strstr(spec, pat) && !strstr(spec, pat2) && !(extra && (strstr(extra, pat) || strstr(extra, pat2)))) {
      cr_log_error("member key not in the spec: %s", rows[i].key);
      missing++;
    }
  }
  free(spec), free(extra);
  cr_expect_eq(missing, 0);
}
