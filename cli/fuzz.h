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
  KG_FUZZ_CONV = 4096,   /* conv1d / conv2d (stride, padding, dilation, groups), conv_transpose1d / 2d */
  KG_FUZZ_POOL = 8192,   /* max / avg pooling 1d / 2d (ceil_mode, count_include_pad, divisor), adaptive pools */
  KG_FUZZ_CNORM = 16384, /* batch_norm (eval with running statistics, training), instance_norm, group_norm */
  KG_FUZZ_RESAMPLE = 32768, /* interpolate nearest / linear / bilinear (size or scale), pixel_(un)shuffle */
  KG_FUZZ_RANDOM = 65536,   /* dropout in training, rand_like, randn_like, bernoulli (kgen's Philox, the twin's) */
  KG_FUZZ_CAPTURE = 131072, /* captured tensors (ValueWithName) read by arithmetic */
  KG_FUZZ_SCALAR = 262144,  /* an F# scalar entry parameter (float32, float, int, int64) in arithmetic */
  KG_FUZZ_NAN = 524288,     /* NaN / ±inf put into float values, read by NaN-safe ops; maximum, minimum, fmax, fmin */
  KG_FUZZ_ALL = 1048575,
};

/* The name of family bit i ("arith", ...), NULL past the last. */
const char *kg_fuzz_family_name(int i);

/* Parses a comma-separated list of family names (or "all") into a mask; -1 on an unknown name. */
int kg_fuzz_parse_ops(const char *list, unsigned *mask);

/* The document of program `seed` (one entry, named fuzz_<seed>): malloc'd JSON text,
 * NUL-terminated, *len its length. The same seed and mask give the same bytes. */
char *kg_fuzz_generate(uint64_t seed, unsigned ops, size_t *len);

#endif
