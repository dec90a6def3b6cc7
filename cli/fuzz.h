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
  KG_FUZZ_REDUCE = 16, /* sum, mean, amax, amin, prod, argmax over one or more dims or all, keepdim or not */
  KG_FUZZ_INTOPS = 32, /* integer division and remainder (non-zero divisors), shifts (counts in [0, 8)), bitwise */
  KG_FUZZ_ACT = 64,    /* activations: gelu, silu, softplus, elu, hardtanh, leaky_relu, mish, ..., clamp, pow */
  KG_FUZZ_NORM = 128,  /* softmax, log_softmax, layer_norm, logsumexp, var, std */
  KG_FUZZ_LAYOUT = 256, /* views and layout ops: transpose, permute, reshape/view, narrow, select, slice,
                           cat, stack, expand, repeat, flip, roll, index_select, gather, masked_fill, tril */
  KG_FUZZ_MATMUL = 512, /* matmul, mm, bmm, linear, addmm (prologues and epilogues around them) */
  KG_FUZZ_CF = 1024,    /* host control flow: for / while loops carrying a tensor, if on .item() or a size */
  KG_FUZZ_INPLACE = 2048, /* in-place ops on intermediates: add_, mul_, relu_, masked_fill_ */
  KG_FUZZ_ALL = 4095,
};

/* The name of family bit i ("arith", ...), NULL past the last. */
const char *kg_fuzz_family_name(int i);

/* Parses a comma-separated list of family names (or "all") into a mask; -1 on an unknown name. */
int kg_fuzz_parse_ops(const char *list, unsigned *mask);

/* The document of program `seed` (one entry, named fuzz_<seed>): malloc'd JSON text,
 * NUL-terminated, *len its length. The same seed and mask give the same bytes. */
char *kg_fuzz_generate(uint64_t seed, unsigned ops, size_t *len);

#endif
