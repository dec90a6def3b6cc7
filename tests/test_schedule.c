/* tests/test_schedule.c — the scheduler from a table: a group's facts and the facts of one
 * moment in, the variant out (passes/schedule.c: kg_schedule_choose). No graph, no JSON, no
 * emulator: the policy alone. Each row says why its answer is right. */
#include <criterion/criterion.h>
#include <string.h>

#include "passes/passes.h"

enum { PW = KG_GROUP_POINTWISE, RED = KG_GROUP_REDUCE, SCAN = KG_GROUP_SCAN };
enum { LIN = KG_LAYOUT_LINEAR, STR = KG_LAYOUT_STRIDED };

typedef struct row {
  const char *why;
  /* the group */
  int kind, rank;
  int64_t red_mask;
  uint32_t n_reds, n_outs;
  bool splittable;
  uint32_t max_vec;
  /* the moment */
  bool runtime;
  int64_t space[3];
  bool contiguous;
  uint64_t align;
  uint32_t max_elem;
  int force;
  /* the answer */
  int layout, vec, i64, lanes, split, row_threads; /* lanes: a row's lanes with a warp per row (0: a block) */
} row;

static const row rows[] = {
    /* pointwise */
    {"contiguous float32, 16-byte aligned: linear, 4 lanes", PW, 2, 0, 0, 1, false, 4, true, {64, 256, 0}, true, 64, 4, 0, LIN, 4, 0, 0, 0, 256},
    {"a misaligned operand (4 bytes) halves the vector to 1", PW, 2, 0, 0, 1, false, 4, true, {64, 256, 0}, true, 4, 4, 0, LIN, 1, 0, 0, 0, 256},
    {"8-byte alignment: 2 lanes of float32", PW, 1, 0, 0, 1, false, 4, true, {1000, 0, 0}, true, 8, 4, 0, LIN, 2, 0, 0, 0, 256},
    {"a strided operand: strided, no vectors", PW, 2, 0, 0, 1, false, 4, true, {64, 256, 0}, false, 64, 4, 0, STR, 1, 0, 0, 0, 256},
    {"2^31 elements need 64-bit indices", PW, 2, 0, 0, 1, false, 4, true, {65536, 32768, 0}, true, 64, 4, 0, LIN, 4, 1, 0, 0, 256},
    {"force_variant 2: strided with 64-bit indices", PW, 1, 0, 0, 1, false, 4, true, {100, 0, 0}, true, 64, 4, 2, STR, 1, 1, 0, 0, 256},
    {"force_variant 3: linear without vectors", PW, 1, 0, 0, 1, false, 4, true, {100, 0, 0}, true, 64, 4, 3, LIN, 1, 0, 0, 0, 256},
    {"compile time, shapes match: linear at the widest vector", PW, 2, 0, 0, 1, false, 8, false, {-1, 768, 0}, true, 0, 0, 0, LIN, 8, 0, 0, 0, 256},
    {"compile time, a broadcast operand: strided", PW, 2, 0, 0, 1, false, 4, false, {-1, 768, 0}, false, 0, 0, 0, STR, 1, 0, 0, 0, 256},
    {"compile time, static 2^31 elements: 64-bit indices", PW, 2, 0, 0, 1, false, 4, false, {65536, 32768, 0}, true, 0, 0, 0, LIN, 4, 1, 0, 0, 256},
    /* reductions over the last dim (mask 2 of rank 2) */
    {"a lone row sum of short rows: a warp per row", RED, 2, 2, 1, 0, true, 4, true, {32768, 1024, 0}, true, 64, 4, 0, STR, 1, 0, 32, 0, 256},
    {"row sums of 16: segments of 8 lanes (two steps a lane), 4 rows a warp", RED, 2, 2, 1, 0, true, 4, true, {1000, 16, 0}, true, 64, 4, 0, STR, 1, 0, 8, 0, 256},
    {"row sums of 1: a lane a row", RED, 2, 2, 1, 0, true, 4, true, {1000, 1, 0}, true, 64, 4, 0, STR, 1, 0, 1, 0, 256},
    {"softmax rows of 200 (persistent, at most 256): a warp per row", RED, 2, 2, 2, 1, false, 4, true, {32768, 200, 0}, true, 64, 4, 0, STR, 1, 0, 32, 0, 128},
    {"softmax rows of 300: a block per row", RED, 2, 2, 2, 1, false, 4, true, {32768, 300, 0}, true, 64, 4, 0, STR, 1, 0, 0, 0, 128},
    {"layer_norm rows of 3: segments of 2 lanes, 16 rows a warp", RED, 2, 2, 2, 1, false, 4, true, {1001, 3, 0}, true, 64, 4, 0, STR, 1, 0, 2, 0, 128},
    {"a lone row sum of long rows: a block per row, 256 threads", RED, 2, 2, 1, 0, true, 4, true, {32768, 4096, 0}, true, 64, 4, 0, STR, 1, 0, 0, 0, 256},
    {"softmax rows of 1024 (persistent): a block of 128", RED, 2, 2, 2, 1, false, 4, true, {32768, 1024, 0}, true, 64, 4, 0, STR, 1, 0, 0, 0, 128},
    {"softmax rows of 4096: a block of 512", RED, 2, 2, 2, 1, false, 4, true, {4096, 4096, 0}, true, 64, 4, 0, STR, 1, 0, 0, 0, 512},
    {"a few very long rows: split into chunks across the GPU", RED, 2, 2, 1, 0, true, 4, true, {4, 1000000, 0}, true, 64, 4, 0, STR, 1, 0, 0, 1, 256},
    {"the same, not splittable (argmax): a block per row, 1024 threads", RED, 2, 2, 1, 0, false, 4, true, {4, 1000000, 0}, true, 64, 4, 0, STR, 1, 0, 0, 0, 1024},
    {"force_variant 1: no warp, no split", RED, 2, 2, 1, 0, true, 4, true, {4, 1000000, 0}, true, 64, 4, 1, STR, 1, 0, 0, 0, 1024},
    /* reductions over the first dim (mask 1): the innermost dim is kept */
    {"column sums of short columns: a thread per output (coalesced)", RED, 2, 1, 1, 0, true, 4, true, {32, 16384, 0}, true, 64, 4, 0, LIN, 1, 0, 0, 0, 256},
    {"few columns over many rows: a split over columns", RED, 2, 1, 1, 0, true, 4, true, {100000, 3, 0}, true, 64, 4, 0, LIN, 1, 0, 0, 1, 256},
    {"compile time, static column sums: the column schedule (its vectors: run time)", RED, 2, 1, 1, 0, true, 4, false, {512, 16384, 0}, true, 0, 0, 0, LIN, 1, 0, 0, 0, 256},
    {"compile time, symbolic rows: a block per row", RED, 2, 1, 1, 0, true, 4, false, {-1, 16384, 0}, true, 0, 0, 0, STR, 1, 0, 0, 0, 256},
    /* a scan */
    {"a scan is strided, a thread per row", SCAN, 2, 2, 1, 0, false, 4, true, {64, 256, 0}, true, 64, 4, 0, STR, 1, 0, 0, 0, 256},
};

Test(schedule, the_table) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const row *w = &rows[i];
    kg_group_facts gf;
    memset(&gf, 0, sizeof gf);
    gf.kind = (uint8_t)w->kind, gf.rank = w->rank, gf.red_mask = w->red_mask, gf.n_reds = w->n_reds, gf.n_outs = w->n_outs;
    gf.splittable = gf.any_splittable = w->splittable, gf.max_vec = w->max_vec, gf.operands_match_space = w->contiguous;
    kg_sched_facts x;
    memset(&x, 0, sizeof x);
    x.runtime = w->runtime;
    for (int d = 0; d < w->rank; d++) x.space[d] = w->space[d];
    x.contiguous = w->contiguous, x.align = w->align, x.max_elem = w->max_elem, x.force = (kg_sched_force)w->force;
    x.max_offset = 0;
    kg_schedule s = kg_schedule_choose(&gf, &x, &kg_target_h100);
    cr_expect_eq(s.v.layout, w->layout, "%s: layout %u", w->why, s.v.layout);
    cr_expect_eq(s.v.vec, w->vec, "%s: vec %u", w->why, s.v.vec);
    cr_expect_eq(s.v.index_dtype == KG_I64, w->i64, "%s: 64-bit indices %d", w->why, s.v.index_dtype == KG_I64);
    int lanes = s.v.warp ? 32 >> s.v.seg : 0;
    cr_expect_eq(lanes, w->lanes, "%s: lanes a row %d", w->why, lanes);
    cr_expect(s.v.warp || !s.v.seg, "%s: segments without a warp", w->why);
    cr_expect_eq(s.v.split, w->split, "%s: split %u", w->why, s.v.split);
    cr_expect_eq(s.row_threads, (uint32_t)w->row_threads, "%s: row threads %u", w->why, s.row_threads);
    if (s.v.split) {
      cr_expect(s.nchunk > 1 && s.chunk * s.nchunk >= (w->red_mask == 2 ? w->space[1] : w->space[0]), "%s: chunks %lld x %lld", w->why,
                (long long)s.nchunk, (long long)s.chunk);
      cr_expect(s.chunk * (s.nchunk - 1) < (w->red_mask == 2 ? w->space[1] : w->space[0]), "%s: no empty chunk", w->why);
    }
  }
}

/* 128-bit row loads: every source varying along the row must be contiguous there and its
 * rows aligned; a source broadcast along the row does not matter. */
Test(schedule, row_vectors) {
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = KG_GROUP_REDUCE, gf.rank = 2, gf.red_mask = 2, gf.n_reds = 2, gf.n_outs = 1, gf.max_vec = 4;
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  x.runtime = true, x.space[0] = 64, x.space[1] = 4096, x.contiguous = true, x.align = 64, x.max_elem = 4;
  kg_row_operand ops[2] = {{4, true, 1, 64, 64}, {4, false, 0, 4, 1}};
  x.row = ops, x.n_row = 2;
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.vec, 4, "float32 rows, 16-byte aligned: 4 lanes");
  ops[0].outer_stride_pow2 = 2; /* rows 2 elements apart modulo 4: only pairs stay aligned */
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.vec, 2);
  ops[0].inner_stride = 3; /* not contiguous along the row */
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.vec, 1);
  ops[0] = (kg_row_operand){2, true, 1, 16, 64}; /* float16: 8 lanes of 2 bytes */
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.vec, 8);
  x.row_cache = true; /* the row cache (rows fit in registers) replaces vector loads */
  kg_schedule s = kg_schedule_choose(&gf, &x, &kg_target_h100);
  cr_expect(s.v.cache && s.v.vec == 1, "cache %u vec %u", s.v.cache, s.v.vec);
}

/* Online softmax (a max's sum of exp in the max's walk) everywhere but the forced-strided
 * variants, which keep the two walks so that the fuzzer tests them; the CPU target alike. */
Test(schedule, online_softmax_unless_forced_strided) {
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = KG_GROUP_REDUCE, gf.rank = 2, gf.red_mask = 2, gf.n_reds = 2, gf.n_outs = 1, gf.max_vec = 4;
  kg_sched_facts x;
  memset(&x, 0, sizeof x);
  x.space[0] = 64, x.space[1] = 4096, x.contiguous = true, x.align = 64, x.max_elem = 4;
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.no_online, 0, "compile time");
  x.runtime = true;
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.no_online, 0, "run time");
  kg_target cpu = kg_target_cpu(4);
  cr_expect_eq(kg_schedule_choose(&gf, &x, &cpu).v.no_online, 0, "the CPU target");
  x.force = KG_SCHED_STRIDED;
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.no_online, 1, "forced strided");
  cr_expect_eq(kg_schedule_choose(&gf, &x, &cpu).v.no_online, 1, "forced strided, the CPU target");
  x.force = KG_SCHED_STRIDED_I64;
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.no_online, 1, "forced strided, 64-bit indices");
  x.force = KG_SCHED_NO_VECTORS;
  cr_expect_eq(kg_schedule_choose(&gf, &x, &kg_target_h100).v.no_online, 0, "no vectors");
}

/* The split-rows plan: a persistent group whose rows are few and long. */
Test(schedule, split_rows_plan) {
  kg_group_facts gf;
  memset(&gf, 0, sizeof gf);
  gf.kind = KG_GROUP_REDUCE, gf.rank = 2, gf.red_mask = 2, gf.n_reds = 2, gf.n_outs = 1, gf.any_splittable = true;
  int64_t few_long[2] = {8, 1 << 20}, many[2] = {32768, 1024};
  cr_expect(kg_schedule_split_rows(&gf, few_long, KG_SCHED_FREE, &kg_target_h100));
  cr_expect(!kg_schedule_split_rows(&gf, many, KG_SCHED_FREE, &kg_target_h100));
  cr_expect(!kg_schedule_split_rows(&gf, few_long, KG_SCHED_STRIDED, &kg_target_h100), "forced strided never splits");
  cr_expect(kg_schedule_split_rows(&gf, many, KG_SCHED_SPLIT_ROWS, &kg_target_h100), "forced split rows always");
  gf.any_splittable = false; /* var + argmax: nothing to split */
  cr_expect(!kg_schedule_split_rows(&gf, few_long, KG_SCHED_FREE, &kg_target_h100));
  /* a smaller GPU wants splits sooner: 16 SMs fill with fewer chunks */
  kg_target small = kg_target_h100;
  small.sm_count = 16;
  cr_expect_lt(kg_reduce_split_chunks(&small, false, 4, 1 << 20), kg_reduce_split_chunks(&kg_target_h100, false, 4, 1 << 20));
}

/* the CPU device's unfold plan: big folded products run as product kernels again */
Test(schedule, unfold_on_the_cpu) {
  cr_expect(kg_schedule_unfold(8 * 512, 128), "an LSTM step's hidden product at batch 8, hidden 128");
  cr_expect(kg_schedule_unfold(8 * 384, 128), "a GRU's");
  cr_expect(!kg_schedule_unfold(3 * 80, 20), "examples/rnn_lstm_cell: 4 800 multiply-adds stay folded");
  cr_expect(!kg_schedule_unfold(4096, 3), "K below 16: a short dot is cheap");
  cr_expect(!kg_schedule_unfold(0, 256), "empty");
  cr_expect(kg_schedule_unfold(KG_CPU_UNFOLD_MACS / 16, 16) && !kg_schedule_unfold(KG_CPU_UNFOLD_MACS / 16 - 1, 16), "the threshold");
}

/* Segments of a warp for short rows (kg_reduce_row_seg): the fewest lanes (a power of two, 1
 * to 32) that give each lane at most two of the walk's steps of vec elements — so one lane
 * fewer would give some lane three or more, unless the row is already on one lane or on 32. */
Test(schedule, row_segments) {
  for (uint32_t vec = 1; vec <= 8; vec *= 2)
    for (int64_t n = 0; n <= 2100; n++) {
      uint32_t seg = kg_reduce_row_seg(n, vec), lanes = 32u >> seg;
      cr_assert_leq(seg, 5u);
      cr_expect(lanes == 32 || (int64_t)lanes * 2 * vec >= n, "rows of %lld, vec %u: %u lanes take more than two steps", (long long)n, vec, lanes);
      cr_expect(lanes == 1 || (int64_t)(lanes / 2) * 2 * vec < n, "rows of %lld, vec %u: %u lanes, half would do", (long long)n, vec, lanes);
    }
  cr_expect_eq(32u >> kg_reduce_row_seg(64, 4), 8u);  /* 64 float32, 128-bit loads: 8 lanes, 4 rows a warp */
  cr_expect_eq(32u >> kg_reduce_row_seg(24, 8), 2u);  /* 24 float16, 8 a load: 2 lanes */
  cr_expect_eq(32u >> kg_reduce_row_seg(3, 1), 2u);
  cr_expect_eq(32u >> kg_reduce_row_seg(1024, 4), 32u);
}
