/* tests/test_support.c — arena, strbuf, diag, hash. */
#include <criterion/criterion.h>
#include <string.h>

#include "support/support.h"

Test(support, arena_and_strbuf) {
  kg_arena a;
  kg_arena_init(&a);
  char *s = kg_arena_printf(&a, "%s-%d", "x", 42);
  cr_assert_str_eq(s, "x-42");
  for (int i = 0; i < 10000; i++) cr_assert_not_null(kg_arena_alloc(&a, 100));
  kg_arena_free(&a);
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b, "%d", 7);
  kg_sb_puts(&b, "ab");
  cr_assert_str_eq(kg_sb_cstr(&b), "7ab");
  kg_sb_free(&b);
}

Test(support, diag_format) {
  kg_diag d;
  kg_diag_init(&d);
  kg_diag_add(&d, KG_E_TYPE, "$.entries[0]", "M.fs:1:2", "bad %s", "thing");
  char *t = kg_diag_format(&d);
  cr_assert_str_eq(t, "M.fs:1:2: error[type]: bad thing\n  at $.entries[0]\n");
  free(t);
  kg_diag_free(&d);
}
