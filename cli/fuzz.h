/* cli/fuzz.h — `kgen fuzz`: random well-typed programs as kgen documents (issue 13).
 *
 * fuzz_gen.c builds the documents (deterministic per seed, its own splitmix64 PRNG);
 * cli_fuzz.c runs them through the PyTorch cross-check (check/check.h). The generator
 * lives in cli/ because the command is its only user besides the tests, which compile
 * fuzz_gen.c into their binary (tests/CMakeLists.txt); it depends on nothing but cJSON
 * and libc, so it could move to a library of its own when another client appears.
 */
#ifndef KG_FUZZ_H
#define KG_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Op families (--ops): a bit mask. */
enum {
  KG_FUZZ_ARITH = 1,   /* + - * / over tensors and F# scalar constants */
  KG_FUZZ_UNARY = 2,   /* exp, tanh, sigmoid, sin, cos, sqrt(abs), log(abs + 1), abs, neg, relu */
  KG_FUZZ_CMP = 4,     /* gt lt ge le eq ne, and torch.where */
  KG_FUZZ_CAST = 8,    /* to_type and the dtype methods (float(), long(), …) */
  KG_FUZZ_REDUCE = 16, /* sum, mean, amax over one dim, keepdim or not */
  KG_FUZZ_ALL = 31,
};

/* Parses "arith,unary,cmp,cast,reduce" (or "all") into a mask; -1 on an unknown name. */
int kg_fuzz_parse_ops(const char *list, unsigned *mask);

/* The document of program `seed` (one entry, named fuzz_<seed>): malloc'd JSON text,
 * NUL-terminated, *len its length. The same seed and mask give the same bytes. */
char *kg_fuzz_generate(uint64_t seed, unsigned ops, size_t *len);

#endif
