/* ir/ir.h — kgen's two IRs, their op table, printers and verifiers.
 *
 * Semantics (read this first):
 *
 *  Typed tensor program (kg_graph). SSA values, each a tensor (rank 0..KG_MAX_RANK)
 *  or a .NET scalar ("wrapped number": it takes part in PyTorch type promotion
 *  only by category). Every node names an op of ops.def, a result dtype and a
 *  shape whose dims are static sizes or symbols. Operands of different dtypes
 *  are allowed: the op computes in its compute dtype (the promoted dtype of its
 *  operands, PyTorch rules) and yields `dtype`. Nothing is fused or lowered
 *  here; this is what the TorchScript twin is emitted from.
 *
 *  Kernel IR (kg_kernel). One CUDA kernel: parameters (buffers, scalars), local
 *  variables, statements (decl / assign / store / if / for / while / break) and
 *  expression trees. Loads and stores name a buffer parameter and an element
 *  index of the kernel's index type (int32 when every extent and offset fits,
 *  else int64). Values of dtype float16 / bfloat16 live in float registers and
 *  are rounded to their dtype after every op that yields them (so fused kernels
 *  match op-by-op PyTorch). Integer arithmetic wraps (two's complement); integer
 *  division and shifts are guarded (no traps). Evaluation is in statement order;
 *  SELECT evaluates both arms, IF statements are lazy.
 *
 * Sections, one per source file:
 *   dtype.c   — the dtype table and PyTorch type promotion
 *   graph.c   — typed tensor program: builder, printer, verifier
 *   kernel.c  — kernel IR: builder, printer, verifier
 *   ops.c     — op table accessors
 */
#ifndef KG_IR_H
#define KG_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "../support/support.h"

#define KG_MAX_RANK 8
#define KG_NONE UINT32_MAX

/* ---- dtype.c ---- */

/* X(ENUM, torch name, C storage type, CLR type, size, category, signed)
 * category: 0 bool, 1 integer, 2 floating. Order = PyTorch's promotion lattice
 * within a category is handled by kg_dtype_promote, not by this order. */
#define KG_DTYPES(X)                                                              \
  X(BOOL, "bool", "unsigned char", "System.Boolean", 1, 0, 0)                    \
  X(U8, "uint8", "unsigned char", "System.Byte", 1, 1, 0)                        \
  X(I8, "int8", "signed char", "System.SByte", 1, 1, 1)                          \
  X(I16, "int16", "short", "System.Int16", 2, 1, 1)                              \
  X(I32, "int32", "int", "System.Int32", 4, 1, 1)                                \
  X(I64, "int64", "long long", "System.Int64", 8, 1, 1)                          \
  X(F16, "float16", "unsigned short", "System.Half", 2, 2, 1)                    \
  X(BF16, "bfloat16", "unsigned short", "TorchSharp.BFloat16", 2, 2, 1)          \
  X(F32, "float32", "float", "System.Single", 4, 2, 1)                           \
  X(F64, "float64", "double", "System.Double", 8, 2, 1)

typedef enum kg_dtype {
#define X(e, ...) KG_##e,
  KG_DTYPES(X)
#undef X
  KG_DT__COUNT,
  KG_DT_NONE = 255
} kg_dtype;

typedef struct kg_dtype_info {
  const char *name;  /* PyTorch name: "float32" */
  const char *ctype; /* C storage type in kernels */
  const char *clr;   /* .NET type */
  uint8_t size;      /* bytes */
  uint8_t category;  /* 0 bool, 1 int, 2 float */
  bool is_signed;
} kg_dtype_info;

const kg_dtype_info *kg_dtype_get(kg_dtype t);
const char *kg_dtype_name(kg_dtype t);
kg_dtype kg_dtype_from_name(const char *name);      /* "float32" → KG_F32, else KG_DT_NONE */
kg_dtype kg_dtype_from_clr(const char *clr);        /* "System.Single" → KG_F32 */
kg_dtype kg_dtype_from_scalartype(int64_t code);    /* TorchSharp ScalarType enum value */
static inline bool kg_dtype_is_float(kg_dtype t) { return t == KG_F16 || t == KG_BF16 || t == KG_F32 || t == KG_F64; }
static inline bool kg_dtype_is_int(kg_dtype t) { return t >= KG_U8 && t <= KG_I64; }
/* Compute ("opmath") type in kernels: float16/bfloat16 compute in float32. */
kg_dtype kg_dtype_opmath(kg_dtype t);
/* PyTorch promote_types(a, b) for two dtypes of tensors that both participate. */
kg_dtype kg_dtype_promote(kg_dtype a, kg_dtype b);

/* PyTorch result_type over a list of operands. Each operand is a dtype plus its
 * participation class: dimensioned tensor, 0-dim tensor, or wrapped scalar. */
typedef enum kg_operand_class { KG_CLS_DIM = 0, KG_CLS_ZERODIM = 1, KG_CLS_SCALAR = 2 } kg_operand_class;
kg_dtype kg_result_type(const kg_dtype *dt, const kg_operand_class *cls, int n);

/* ---- signatures (what the caller will pass) ---- */
typedef enum kg_dim_kind { KG_DIM_STATIC = 0, KG_DIM_SYM = 1, KG_DIM_ANY = 2 } kg_dim_kind;

typedef struct kg_sig_dim {
  kg_dim_kind kind;
  int64_t size;    /* KG_DIM_STATIC */
  const char *sym; /* KG_DIM_SYM: the symbol's name */
} kg_sig_dim;

typedef struct kg_sig_param {
  bool is_scalar; /* {"scalar": "float32"}: a .NET scalar parameter */
  kg_dtype dtype;
  uint8_t rank;
  kg_sig_dim dims[KG_MAX_RANK];
  /* "range": [lo, hi] (compact: `int64[B,T] in [0, 100)`): the values test inputs are drawn
   * from (kgen check, the .NET check, the fuzzer): floats uniform in [lo, hi), integers in
   * [lo, hi); lo == hi gives every element lo. A fact about the data (token ids below the
   * vocabulary size, weights at their real scale), not checked on real inputs. */
  bool has_range;
  double lo, hi;
} kg_sig_param;

typedef struct kg_sig {
  kg_sig_param *params;
  uint32_t n_params;
  const char **capture_names;
  kg_sig_param *captures;
  uint32_t n_captures;
} kg_sig;

/* ---- ops.c: the op table (ops.def) ---- */
enum {
  KG_OPF_LEAF = 1 << 0,     /* no operands */
  KG_OPF_ARITH = 1 << 1,    /* result = promoted operand dtype */
  KG_OPF_FLOAT = 1 << 2,    /* result = promoted dtype, integers/bool promote to default float */
  KG_OPF_FLOATRES = 1 << 3, /* like FLOAT (binary true-division family) */
  KG_OPF_F64RES = 1 << 4,   /* result float64 */
  KG_OPF_CMP = 1 << 5,      /* compares in promoted dtype, result bool */
  KG_OPF_LOGIC = 1 << 6,    /* result bool, operands any dtype (truthiness) */
  KG_OPF_PRED = 1 << 7,     /* unary predicate, result bool */
  KG_OPF_BITS = 1 << 8,     /* integers and bool only, result promoted */
  KG_OPF_ROUND = 1 << 9,    /* like ARITH; identity on integers */
  KG_OPF_SELECT = 1 << 10,  /* where(c, a, b): result promoted(a, b) */
  KG_OPF_CAST = 1 << 11,    /* result = node dtype */
  KG_OPF_CREATE = 1 << 12,  /* creates a tensor from a scalar */
  KG_OPF_MAP = 1 << 13,     /* applies a scalar function */
  KG_OPF_REDUCE = 1 << 14,  /* reduction over the dims in ia[0] (block collective in kernels) */
  KG_OPF_COMPOSITE = 1 << 15, /* expanded into other ops before fusion (passes/decompose.c) */
  KG_OPF_SCAN = 1 << 16,    /* prefix scan along the dim in ia[0]: a kernel of its own, materialized */
  KG_OPF_LAYOUT = 1 << 17,  /* layout, indexing and coordinate ops: the value at a coordinate is an operand's
                               value at another coordinate (or a function of the coordinate) */
  KG_OPF_MATMUL = 1 << 18,  /* a matrix product: a kernel of its own (tiles), prologue and epilogue fused */
};

typedef enum kg_op {
#define KG_OP(name, ar, fl, ts, sem) KG_OP_##name,
#include "ops.def"
#undef KG_OP
  KG_OP__COUNT
} kg_op;

typedef struct kg_op_info {
  const char *name;  /* "ADD" */
  int arity;         /* -1 = variable */
  unsigned flags;    /* KG_OPF_* */
  const char *torch; /* TorchScript spelling or "" */
  const char *sem;   /* one-line semantics */
} kg_op_info;

const kg_op_info *kg_op_get(kg_op op);
/* RAND and BERNOULLI: values drawn from the caller's generator (ia[0] = the stream) */
static inline bool kg_op_is_random(int op) { return op == KG_OP_RAND || op == KG_OP_BERNOULLI; }
const char *kg_op_name(kg_op op);
/* the loss functions of ops.def's training block (composites: passes/decompose_loss.c) */
static inline bool kg_op_is_loss(int op) { return op >= KG_OP_CROSS_ENTROPY && op <= KG_OP_KL_DIV; }

/* ---- convolution attributes (ops.def: CONV, IM2COL, PAD) ----
 * Per-dim values (stride, padding, dilation, kernel sizes) of up to 3 spatial dims are packed
 * into one int64 attribute, 21 signed bits each. CONV's ia[3]: groups in bits 0-31, the number
 * of spatial dims in 32-33, the padding spelling in 34-35 (0 numbers, 1 'valid', 2 'same'), 36 =
 * transposed, output_padding in 37-54 (6 bits per dim). PAD's left pads: 16 signed bits per dim,
 * dims 0-3 in ia[1], 4-7 in ia[2]. */
#define KG_CONV_MAX_DIMS 3
static inline int64_t kg_conv_pack(const int64_t *v, int n) {
  uint64_t r = 0;
  for (int i = 0; i < n && i < KG_CONV_MAX_DIMS; i++) r |= ((uint64_t)v[i] & 0x1fffffu) << (21 * i);
  return (int64_t)r;
}
static inline int64_t kg_conv_get(int64_t packed, int i) {
  int64_t f = (int64_t)(((uint64_t)packed >> (21 * i)) & 0x1fffffu);
  return f >= 0x100000 ? f - 0x200000 : f;
}
#define KG_CONV_FIELD_MAX 0xfffff /* the largest value a packed field holds */
/* Is an IM2COL node (ia, fa, its rank) the identity view of its input — a 1 × 1 window, stride 1,
 * no padding, no dilation, an undilated input — so that element (n, g, c, s...) is the input's
 * (n, g·C/G + c, s...)? A 1 × 1 convolution is then a plain product over its input as it is. */
static inline bool kg_im2col_identity(const int64_t *ia, const double *fa, int rank) {
  for (int i = 0; i < rank - 3; i++)
    if (kg_conv_get(ia[0], i) != 1 || kg_conv_get(ia[1], i) != 0 || kg_conv_get(ia[2], i) != 1 || kg_conv_get(ia[3], i) != 1 ||
        (i < 3 && fa[i] != 1))
      return false;
  return rank >= 3;
}
static inline int64_t kg_conv_groups(int64_t ia3) { return ia3 & 0xffffffff; }
static inline int kg_conv_dims(int64_t ia3) { return (int)((ia3 >> 32) & 3); }
static inline int kg_conv_spelling(int64_t ia3) { return (int)((ia3 >> 34) & 3); }
static inline bool kg_conv_transposed(int64_t ia3) { return (ia3 >> 36) & 1; }
static inline int64_t kg_conv_outpad(int64_t ia3, int i) { return (ia3 >> (37 + 6 * i)) & 63; }
static inline int64_t kg_conv_ia3(int64_t groups, int nd, int spelling, bool transposed, const int64_t *outpad) {
  uint64_t r = (uint64_t)groups | (uint64_t)nd << 32 | (uint64_t)spelling << 34 | (uint64_t)transposed << 36;
  for (int i = 0; outpad && i < nd; i++) r |= ((uint64_t)outpad[i] & 63) << (37 + 6 * i);
  return (int64_t)r;
}
static inline int64_t kg_pad_left(const int64_t *ia, int d) {
  int64_t f = (int64_t)(((uint64_t)ia[1 + d / 4] >> (16 * (d % 4))) & 0xffffu);
  return f >= 0x8000 ? f - 0x10000 : f;
}
static inline void kg_pad_set_left(int64_t *ia, int d, int64_t v) {
  uint64_t *w = (uint64_t *)&ia[1 + d / 4];
  *w = (*w & ~((uint64_t)0xffffu << (16 * (d % 4)))) | (((uint64_t)v & 0xffffu) << (16 * (d % 4)));
}

/* ---- kernel.c: kernel IR ---- */

typedef enum kg_kx_kind {
  KX_CONST,  /* i (integers, bool) or f (floats) of dtype */
  KX_VAR,    /* a = local variable id */
  KX_PARAM,  /* a = kernel parameter index (a scalar parameter) */
  KX_LOAD,   /* a = buffer parameter index, b = element index expr (index dtype) */
  KX_OP,     /* op applied to a, b, c (arity from the op table); computes in opmath(dtype of operands) */
  KX_CAST,   /* a converted to dtype */
  KX_SELECT, /* a ? b : c, both arms evaluated */
  KX_SREG,   /* a = KG_SREG_*: thread / block index registers */
  KX_SLOAD,  /* a = shared array index (kg_kernel.shared), b = element index expr */
  KX_SMEM,   /* a 32-bit word (dtype int32 or float32) of the dynamic shared memory at byte
                offset a (an int32 expr, 4-aligned) — the tensor-core tiles */
} kg_kx_kind;

enum { KG_SREG_TID_X, KG_SREG_TID_Y, KG_SREG_TID_Z, KG_SREG_CTAID_X, KG_SREG_CTAID_Y, KG_SREG_CTAID_Z,
       KG_SREG_NTID_X, KG_SREG_NTID_Y, KG_SREG_NTID_Z, KG_SREG_NCTAID_X, KG_SREG_NCTAID_Y, KG_SREG_NCTAID_Z,
       KG_SREG_SMEM /* the shared-window address of the dynamic shared memory (int32): descriptors */ };

typedef struct kg_kx {
  uint8_t kind;   /* kg_kx_kind */
  uint8_t dtype;  /* kg_dtype of the value */
  uint16_t op;    /* KX_OP: kg_op */
  uint32_t a, b, c;
  int64_t i;      /* KX_CONST integers/bool; KX_OP: integer attribute (ia[0]) */
  double f;       /* KX_CONST floats; KX_OP: float attribute (fa[0]) */
  double f2, f3;  /* KX_OP: fa[1], fa[2] */
} kg_kx;

/* A reduction op in a kernel (KX_OP of a KG_OPF_REDUCE op) is a collective over the threads
 * of a row; its .i says which (passes/lower_int.h: KG_COLL_*): 0 block-wide, the value in
 * thread 0; 1 block-wide, every thread; 2 warp-wide, every lane — bits 8 and up, when not 0,
 * the lanes of a segment of the warp instead (a power of two below 32). */
static inline int64_t kg_coll_segment(uint32_t lanes) { return 2 | (lanes < 32 ? (int64_t)lanes << 8 : 0); }
static inline uint32_t kg_coll_lanes(int64_t i) { return (i & 0xff) != 2 ? 0 : (i >> 8) ? (uint32_t)(i >> 8) : 32; }

typedef enum kg_ks_kind {
  KS_DECL,    /* declare var a, initialised with expr b (or KG_NONE: zero) */
  KS_ASSIGN,  /* var a = expr b */
  KS_STORE,   /* buffer param a [index expr b] = expr c (converted to the buffer dtype) */
  KS_IF,      /* if (expr a) body else els */
  KS_FOR,     /* for var a from expr b while var < expr c (or <= when incl) step expr d: body;
                 imm 1: its iterations are independent (`#pragma GCC ivdep` on the host) */
  KS_WHILE,   /* while (expr a) body */
  KS_BREAK,   /* leave the innermost FOR / WHILE */
  KS_BARRIER, /* __syncthreads() */
  KS_VLOAD,   /* vector load: vars c .. c+vec-1 = buffer param a [index b .. b+vec-1] (one
                 aligned vec*size-byte access; vec from the kernel) */
  KS_VSTORE,  /* vector store: buffer param a [index b .. b+vec-1] = vars c .. c+vec-1 */
  KS_COMMENT, /* text: a comment naming where code came from */
  KS_SSTORE,  /* shared array a [index expr b] = expr c (converted to the array's dtype) */
  KS_SMEM_ST, /* dynamic shared memory at byte offset expr b (aligned to the width) = vars c ..
                 c+imm-1 (imm = 1, 2 or 4 32-bit words: int32 or float32 vars), one access */
  KS_TC,      /* a tensor-core instruction, sub = kg_tc_op (its operands below) */
  KS_DOT,     /* 16-lane dot products (the CPU target's few-rows products, lower_matmul_cpu.c):
                 P[o_p + t·32 + l] = Σ_{q < d} P[o_x(i) + 16 q + l] · Y[o_y(j) + 16 q + l]
                 for l < 16, t = i·nj + j, i < ni, j < nj (imm = ni | nj << 8: 2 x 2 or 2 x 4);
                 a = P's float32 buffer param (an output: the lanes, and the rows read),
                 b = Y's float32 buffer param, c = the first of 1 + ni + nj int64 vars holding
                 o_p, o_x(0 ..), o_y(0 ..), d = the step count (int32). A prelude call:
                 scalar loops under NVRTC and the emulator, vector registers on the CPU device
                 (kg_cpu.h) */
  KS_TPACK,   /* a transposed panel (the CPU target's packed products of a weight stored [N, K]):
                 P[o_p + w q + j] = Y[o_y(j) + q] for q < d, j < 16, w = imm (the panel's row
                 stride: 16, or 32 for a wide panel's halves; 0 reads as 16); a = P's float32
                 buffer param (an output), b = Y's float32 buffer param, c = the first of 17 int64
                 vars holding o_p, o_y(0 .. 15), d = the count (int32). A prelude call: scalar loops
                 under NVRTC and the emulator, 16 x 16 register transposes on the CPU device */
} kg_ks_kind;

/* KS_TC instructions (PTX ISA; CUDA C through prelude_tc.h, emulated by kg_emu_tc.h). Fragment
 * registers are consecutive variables: int32 vars holding packed f16x2 / bf16x2 or tf32 bits,
 * float32 vars for accumulators. Shared addresses are byte offsets into the dynamic shared
 * memory (kg_launch.smem_dyn). */
typedef enum kg_tc_op {
  KG_TC_MMA_F16,  /* mma.sync m16n8k16 f32 += f16 x f16: a = first of 4 float32 D vars (C = D on
                     entry), b = first of 4 int32 A vars, c = first of 2 int32 B vars */
  KG_TC_MMA_BF16, /* the same with bf16 operands */
  KG_TC_MMA_TF32, /* mma.sync m16n8k8 f32 += tf32 x tf32: operands as above */
  KG_TC_LDSM,     /* ldmatrix.m8n8.b16: a = first of imm & 7 (1, 2, 4) int32 dest vars, b = byte
                     offset expr of this lane's row (16-aligned); imm & 8: .trans */
  KG_TC_CPASYNC,  /* cp.async.cg 16 bytes: a = buffer param, b = element index expr of the first
                     element, c = shared byte offset expr (16-aligned), d = src-size expr in bytes
                     (0..16; the rest zero-filled; 0 reads nothing) */
  KG_TC_COMMIT,   /* cp.async.commit_group */
  KG_TC_WAIT,     /* cp.async.wait_group imm */
  /* Hopper (sm_90a): warpgroup products, mbarriers, TMA */
  KG_TC_WGMMA,    /* wgmma.mma_async m64nNk16 f32 += A B (descriptors): a = first of N/2 float32
                     accumulator vars, b = A's descriptor (int64 expr), c = B's; imm = N | 0x200 for
                     bf16 (else f16) | 0x400 A M-major | 0x800 B N-major (imm-trans); scale-d 1 */
  KG_TC_WG_FENCE, /* wgmma.fence.sync.aligned */
  KG_TC_WG_COMMIT,/* wgmma.commit_group.sync.aligned */
  KG_TC_WG_WAIT,  /* wgmma.wait_group.sync.aligned imm */
  KG_TC_MBAR_INIT,   /* mbarrier.init: b = the barrier's shared byte offset expr, imm = count */
  KG_TC_MBAR_ARRIVE, /* mbarrier.arrive(.expect_tx): b = the barrier, c = transaction bytes expr or KG_NONE */
  KG_TC_MBAR_WAIT,   /* until the phase of parity c (int32 expr) of barrier b has completed */
  KG_TC_TMA,      /* cp.async.bulk.tensor.{imm}d global → shared, complete_tx on a barrier: a = the
                     tensor-map parameter, b = destination shared byte offset expr, c = first of imm
                     int32 coordinate vars (innermost first), d = the barrier's offset expr */
  KG_TC_FENCE_INIT,  /* fence.mbarrier_init (the barriers' initialization visible to TMA) */
  KG_TC_SETMAXNREG,  /* setmaxnreg.{inc if imm & 0x1000, else dec}.sync.aligned.u32 imm & 0xfff (warpgroup-aligned) */
} kg_tc_op;

typedef struct kg_ks {
  uint8_t kind;  /* kg_ks_kind */
  bool incl;     /* KS_FOR: inclusive end (F# for loops) */
  uint32_t a, b, c, d;
  uint32_t body; /* first statement of the nested block or KG_NONE */
  uint32_t els;  /* KS_IF else block or KG_NONE */
  uint32_t next; /* next statement in the same block or KG_NONE */
  const char *text; /* KS_COMMENT */
  uint16_t sub;  /* KS_TC: kg_tc_op */
  uint32_t imm;  /* KS_SMEM_ST, KS_TC: a small constant (see each kind) */
} kg_ks;

/* A statement with every index field set to KG_NONE (0 is a valid index). */
static inline kg_ks kg_ks_make(kg_ks_kind kind) {
  kg_ks s = {(uint8_t)kind, false, KG_NONE, KG_NONE, KG_NONE, KG_NONE, KG_NONE, KG_NONE, KG_NONE, 0, 0, 0};
  return s;
}

typedef struct kg_kvar {
  const char *name; /* hint for printers ("acc", "i"); unique C name is v<id>_<name> */
  uint8_t dtype;
} kg_kvar;

typedef enum kg_kparam_kind { KP_BUFFER, KP_SCALAR, KP_TMAP /* a 128-byte tensor map, by value */ } kg_kparam_kind;

typedef struct kg_kparam {
  kg_kparam_kind kind;
  uint8_t dtype;     /* element dtype (buffers) or value dtype (scalars) */
  bool is_output;    /* buffers: written by the kernel */
  const char *name;  /* C name: "in0", "out0", "n", "s0_1" */
  /* What the host passes here (filled by the scheduler, read by the launcher):
   *   KPR_TMAP k        : (KP_TMAP) a TMA tensor map of operand kg_kernel.tmaps[r0], by value
   *   KPR_TENSOR k      : data pointer of kernel tensor operand k
   *   KPR_NUMEL         : number of elements of the iteration space
   *   KPR_SIZE d        : iteration-space size of dim d
   *   KPR_STRIDE k, d   : element stride of operand k along iteration dim d (0 = broadcast)
   *   KPR_SCALAR k      : value of scalar operand k
   *   KPR_SPLIT_LEN     : split reductions: reduced elements per chunk
   *   KPR_SPLIT_N       : split reductions: number of chunks
   *   KPR_SPLIT_NB      : split reductions: blocks per chunk (column schedule)
   * A KPR_TENSOR with r0 = 3 is the split reduction's scratch (partials). */
  uint8_t role;
  uint32_t r0, r1;
} kg_kparam;

enum { KPR_TENSOR, KPR_NUMEL, KPR_SIZE, KPR_STRIDE, KPR_SCALAR, KPR_RED_N, KPR_SPLIT_LEN, KPR_SPLIT_N, KPR_SPLIT_NB,
       KPR_SYM /* the run-time value of symbol r0 (layout ops over symbolic sizes) */,
       KPR_RNG /* the random generator of the call (int64): r0 = 0 its seed, 1 its offset */,
       KPR_TMAP /* a tensor map: r0 indexes kg_kernel.tmaps */,
       KPR_KEPT /* (int32) the CPU products' kept panels of B, program parameter r1 (lower_matmul_cpu.c,
                   runtime/exec_keep.c): 0 none kept, 1 the scratch holds them, 2 pack and keep them */ };
/* Whose buffer a KPR_TENSOR parameter is (kg_kparam.r0; r1 is its index there); the same
 * numbers as kg_bufref.kind (passes.h) for outputs and temporaries. */
typedef enum kg_buf_owner { KG_BUF_PARAM = 0, KG_BUF_OUTPUT = 1, KG_BUF_TEMP = 2, KG_BUF_SCRATCH = 3 } kg_buf_owner;

/* How a kernel's grid covers its work (kg_launch.per_output). */
typedef enum kg_launch_shape {
  KG_LAUNCH_ELEMENTS = 0,           /* grid.x = ceil(numel / (block.x * elems_per_thread)) */
  KG_LAUNCH_BLOCK_PER_OUTPUT = 1,   /* reductions: grid.x = outputs (block.x chosen per run) */
  KG_LAUNCH_THREAD_PER_OUTPUT = 2,  /* grid.x = ceil(outputs / block.x) */
  KG_LAUNCH_WARP_PER_OUTPUT = 3,    /* a warp or a segment of one per output: grid.x = ceil(outputs / tile_m),
                                       tile_m the rows a block takes */
  KG_LAUNCH_TILES = 4,              /* matrix products: grid = (ceil(N / tile_n), ceil(M / tile_m), batch),
                                       y and z capped at 65535 (the kernel strides over the rest) */
} kg_launch_shape;

/* Launch configuration chosen by the scheduler; grid is computed at run time. */
typedef struct kg_launch {
  uint8_t per_output;        /* kg_launch_shape */
  uint32_t block[3];
  uint32_t elems_per_thread; /* grid.x = ceil(numel / (block.x * elems_per_thread)) */
  uint32_t smem_static;      /* bytes */
  uint32_t smem_dyn;         /* dynamic shared memory bytes (the tensor-core tiles: KX_SMEM,
                                KS_SMEM_ST, KS_TC; declared as kg_smem, 1024-aligned) */
  uint32_t tile_m, tile_n;   /* KG_LAUNCH_TILES: the output tile of a block; KG_LAUNCH_WARP_PER_OUTPUT: tile_m
                                rows a block (8 warps of 2^seg rows each) */
} kg_launch;

/* The blocks along x of launch l over nout outputs (the reduction schedules), numel elements
 * (pointwise) or a product's mm_n columns (tiles): runtime/exec.c launches this many and
 * perf/bench_reduce counts them, one formula. kg_launch_column_blocks: ceil(nout / (block.x ·
 * elems_per_thread)), the column schedules' blocks (a split's blocks per chunk). */
uint64_t kg_launch_blocks_x(const kg_launch *l, uint64_t nout, uint64_t numel, uint64_t mm_n);
uint64_t kg_launch_column_blocks(const kg_launch *l, uint64_t nout);

/* A TMA tensor map a kernel takes (KPR_TMAP), made at launch from a product operand's tensor:
 * the buffer (owner, index as KPR_TENSOR's r0 / r1); its two matrix dims, innermost first, as
 * dims from the end (-1 the last); a third, the product's batch when the operand has batch dims
 * (collapsed into one); the box and the swizzle span (bytes). */
typedef struct kg_ktmap {
  uint32_t owner, index;
  int8_t inner, outer;      /* e.g. -1, -2: [.., M, K] read along K */
  bool batched;
  uint32_t box[2];          /* elements: inner, outer */
  uint32_t swizzle;         /* 0, 32, 64 or 128 */
} kg_ktmap;

/* A __shared__ array of the kernel (one per block; the emulator poisons it at every block
 * start). Elements hold register values of `dtype` (float16 / bfloat16 as float). */
typedef struct kg_kshared {
  const char *name;   /* hint; the C name is sh<id>_<name> */
  uint8_t dtype;
  uint32_t count;     /* elements */
} kg_kshared;

typedef struct kg_kernel {
  const char *name;   /* C identifier, unique in the compiled entry */
  uint8_t index_dtype;/* KG_I32 or KG_I64 */
  KG_VEC(kg_kparam) params;
  KG_VEC(kg_kvar) vars;
  KG_VEC(kg_kx) exprs;
  KG_VEC(kg_ks) stmts;
  KG_VEC(kg_kshared) shared; /* __shared__ arrays, declared at the top of the kernel */
  KG_VEC(kg_ktmap) tmaps;    /* the tensor maps its KPR_TMAP parameters describe */
  bool sm90a;                /* uses sm_90a features (wgmma): NVRTC compiles it for sm_90a */
  uint32_t max_threads;      /* __launch_bounds__(max_threads, 1) (0: none): caps registers a thread */
  uint32_t body;      /* first statement */
  kg_launch launch;
  const char *schedule; /* "pointwise.linear.vec4", "pointwise.strided" — for explain */
  uint32_t vec;       /* elements per vector access (1 = none) */
} kg_kernel;

void kg_kernel_init(kg_kernel *k, const char *name);
void kg_kernel_free(kg_kernel *k);
uint32_t kg_kx_const_i(kg_kernel *k, kg_dtype t, int64_t v);
uint32_t kg_kx_const_f(kg_kernel *k, kg_dtype t, double v);
uint32_t kg_kx_var(kg_kernel *k, uint32_t var);
uint32_t kg_kx_param(kg_kernel *k, uint32_t param);
uint32_t kg_kx_load(kg_kernel *k, uint32_t buf, uint32_t index);
uint32_t kg_kx_op(kg_kernel *k, kg_op op, kg_dtype t, uint32_t a, uint32_t b, uint32_t c);
uint32_t kg_kx_cast(kg_kernel *k, kg_dtype t, uint32_t a);
uint32_t kg_kx_select(kg_kernel *k, kg_dtype t, uint32_t c, uint32_t a, uint32_t b);
uint32_t kg_kx_sreg(kg_kernel *k, int which, kg_dtype t);
uint32_t kg_kx_sload(kg_kernel *k, uint32_t arr, uint32_t index);
uint32_t kg_kx_smem(kg_kernel *k, kg_dtype t, uint32_t byte_offset); /* KX_SMEM: t int32 or float32 */
uint32_t kg_kshared_add(kg_kernel *k, const char *name, kg_dtype t, uint32_t count); /* returns its index */
uint32_t kg_kvar_new(kg_kernel *k, const char *name, kg_dtype t);
uint32_t kg_kparam_add(kg_kernel *k, kg_kparam p);
/* Statement builder: a cursor appends to the end of one block, named by its
 * parent statement (KG_NONE = the kernel body) and which of its blocks. Cursors
 * hold indices, not pointers, so they stay valid while the tables grow. */
typedef struct kg_kcursor { kg_kernel *k; uint32_t parent; bool els; uint32_t last; } kg_kcursor;
kg_kcursor kg_kcursor_top(kg_kernel *k);
kg_kcursor kg_kcursor_body(kg_kernel *k, uint32_t stmt, bool els);
uint32_t kg_ks_add(kg_kcursor *c, kg_ks s); /* appends; returns statement id */

/* Deterministic text form (tests, `kgen explain`). */
void kg_kernel_print(const kg_kernel *k, kg_strbuf *out);
/* Structural checks; records KG_E_INTERNAL diagnostics and returns false on failure. */
bool kg_kernel_verify(const kg_kernel *k, kg_diag *d);
/* kernel_coop.c: do k's threads depend on one another (barriers, shared memory, block or warp
 * collectives, any kind not known to be independent)? The CPU device runs the others as plain
 * loops over their threads. */
bool kg_kernel_cooperates(const kg_kernel *k);
/* Does kernel k use tensor-core instructions (KS_TC, dynamic shared memory, tensor maps)? */
bool kg_kernel_tensor_cores(const kg_kernel *k);

/* A scalar function: F# scalar code (a map lambda) in kernel-IR form, not yet
 * placed in any kernel. Its statements and exprs live in `body` (a kg_kernel
 * used as a container: params are the lambda's arguments as KP_SCALAR, `result`
 * is the expr holding the return value after the statements ran). */
typedef struct kg_sfunc {
  kg_kernel body;
  uint32_t n_args;       /* the lambda's arguments, then captured entry-level scalars */
  uint32_t n_lambda_args;/* 1..3: map / map2 / map3 */
  uint8_t arg_dtypes[8];
  uint32_t cap_nodes[5]; /* graph nodes of captured scalars (args n_lambda_args ..) */
  uint8_t ret_dtype;
  uint32_t result; /* expr id in body.exprs */
} kg_sfunc;

/* ---- graph.c: typed tensor program ---- */

typedef struct kg_dim {
  uint8_t kind;  /* KG_DIM_STATIC or KG_DIM_SYM */
  int64_t v;     /* size, or symbol id (index into kg_graph.syms) */
} kg_dim;

typedef struct kg_shape {
  uint8_t rank;
  kg_dim d[KG_MAX_RANK];
} kg_shape;

typedef enum kg_vkind { KG_V_TENSOR = 0, KG_V_SCALAR = 1 } kg_vkind;

typedef struct kg_gnode {
  uint16_t op;       /* kg_op */
  uint8_t dtype;     /* result dtype */
  uint8_t vkind;     /* kg_vkind */
  uint8_t n_in;
  uint8_t cdtype;    /* compute dtype: operands are converted to it (comparisons: the promoted
                        operand dtype; most ops: == dtype). KG_DT_NONE when not meaningful. */
  uint32_t in[8];    /* operand node ids (MAP: tensors, then captured scalars) */
  kg_shape shape;    /* rank 0 for scalars */
  int64_t ia[4];     /* integer attributes (meaning per op, ops.def) */
  double fa[4];      /* float attributes */
  uint32_t fn;       /* MAP: index into kg_graph.fns */
  const char *path;  /* JSON path of the node that produced it (may be NULL) */
  const char *srcloc;/* F# location or NULL */
} kg_gnode;

typedef struct kg_gparam {
  const char *name;  /* F# variable name / capture name */
  bool is_capture;
  uint32_t node;     /* its INPUT node */
  const double *range; /* [lo, hi) the signature gives for test inputs (kg_sig_param), or NULL */
  uint32_t wb;       /* in-place update of the caller's tensor (x.add_(y) on an input or capture):
                        1 + the index of the output holding its value at the end of a run, which
                        the runtime writes back into this parameter's tensor; 0 = not written.
                        Write-back outputs follow the entry's results (kg_graph_n_results). */
  bool invariant;    /* a host plan region's parameter that is an entry input or capture, read inside
                        a loop: one tensor, never written, for every launch of one call (the CPU
                        products keep its packed panels across the loop's launches: KPR_KEPT) */
} kg_gparam;

/* Two symbols broadcasting assumed equal (elab.c): the sizes bound at run time must agree,
 * else the run fails with a shape error located at the op (path, srcloc). */
typedef struct kg_sym_guard {
  uint32_t a, b;
  const char *path;
  const char *srcloc;
} kg_sym_guard;

/* A derived symbol: its size is coeff · Π sizes of base symbols f[0 .. n) (repeats allowed,
 * sorted) — a view to a product of sizes (x.view(-1, 4) of float32[N, 3, 4] is [N*3, 4]).
 * Bound at run time from its factors (kg_bind_derived), or from a tensor that has it. */
typedef struct kg_symdef {
  uint32_t sym;
  int64_t coeff;
  uint8_t n;
  uint32_t f[KG_MAX_RANK];
} kg_symdef;

typedef struct kg_graph {
  kg_arena *arena;
  KG_VEC(kg_gnode) nodes;
  KG_VEC(kg_gparam) params;   /* entry parameters, then captures */
  KG_VEC(uint32_t) outputs;   /* result nodes in output order (tuples flattened) */
  KG_VEC(const char *) syms;  /* symbolic dim names */
  KG_VEC(kg_sym_guard) guards; /* symbol pairs assumed equal, checked when sizes are bound */
  KG_VEC(kg_symdef) symdefs;  /* the derived symbols among syms (the others are bound by tensors) */
  KG_VEC(kg_sfunc *) fns;     /* map functions */
  const char *entry;          /* entry name */
  bool fns_borrowed;          /* fns belong to another graph (a lowering copy): not freed here */
  uint32_t n_entry_params;    /* params[0 .. n_entry_params) are entry parameters */
  const char *warnings;       /* the frontend's warnings ("Model.fs:5:12: warning: ...\n  at $.path\n"), arena text; NULL: none */
} kg_graph;

void kg_graph_init(kg_graph *g, kg_arena *arena, const char *entry);
void kg_graph_free(kg_graph *g);
uint32_t kg_graph_add(kg_graph *g, const kg_gnode *n); /* returns node id */
/* out (initialised) := a copy of g: nodes, parameters, outputs, symbols, guards; map
 * functions borrowed from g (g must outlive out) */
void kg_graph_clone(kg_graph *out, const kg_graph *g);
/* out's symbols (names and derived definitions) := g's, same ids */
void kg_graph_copy_syms(kg_graph *out, const kg_graph *g);
/* the derived symbol of a product's definition, or NULL for a base symbol */
const kg_symdef *kg_graph_symdef(const kg_graph *g, uint32_t sym);
/* The dim coeff · Π syms f[0 .. n) (derived factors expanded into their base symbols): a static
 * dim when no symbol is left, the symbol itself for 1 · s, else the derived symbol of that
 * product, made on first use and named "N*T*3". */
kg_dim kg_graph_sym_product(kg_graph *g, int64_t coeff, const uint32_t *f, int n);
bool kg_shape_equal(const kg_shape *a, const kg_shape *b);
/* PyTorch broadcasting of two shapes, right-aligned: kgen's one broadcast rule. A static 1
 * takes the other side; two static sizes must agree (else false, *bad_dim = the dim of the
 * result where they differ); a symbol is taken not to be 1, so against a static size the
 * static size wins; two different symbols are taken to be equal — each such pair goes to
 * assumed[*n_assumed] (when assumed is not NULL) for the caller to guard at run time. */
bool kg_shape_broadcast(const kg_shape *a, const kg_shape *b, kg_shape *out, int *bad_dim, uint32_t (*assumed)[2], int *n_assumed);
void kg_shape_print(const kg_graph *g, const kg_shape *s, kg_strbuf *out);
void kg_graph_print(const kg_graph *g, kg_strbuf *out);
bool kg_graph_verify(const kg_graph *g, kg_diag *d);
/* Rebuilds g with the nodes add[0 .. nadd) inserted before old node `pos` (pos = g->nodes.n: at
 * the end). An added node's operand is an old node id, or KG_GRAPH_NEW(b) for add[b] (b < its
 * own index). The old nodes at or after pos that the added nodes read move before them, with their
 * own operands (the caller knows moving them changes nothing: views, casts, inputs). Every use of
 * an old node k with repl[k] != KG_NONE reads add[repl[k]] instead (the caller makes sure those
 * uses come after pos); replaced nodes stay, read by nobody (DCE drops them). */
#define KG_GRAPH_NEW(a) (0x80000000u + (uint32_t)(a))
void kg_graph_insert(kg_graph *g, uint32_t pos, const kg_gnode *add, uint32_t nadd, const uint32_t *repl);
/* The entry's results: outputs[0 .. n) (the rest are write-backs into parameters, kg_gparam.wb). */
uint32_t kg_graph_n_results(const kg_graph *g);
/* Number of uses of each node (outputs count as uses); caller frees. */
uint32_t *kg_graph_use_counts(const kg_graph *g);

/* ---- eval.c: exact scalar semantics (constant folding, compile-time conditions) ----
 * A constant: integers and bool in i (wrapped to the dtype's width), floats in f
 * (already rounded to the dtype: float32, float16 and bfloat16 values are exactly
 * representable in the double). These functions define the same semantics the
 * emitted kernels have, so folding can never disagree with run time. */
typedef struct kg_cval {
  kg_dtype dt;
  int64_t i;
  double f;
} kg_cval;

kg_cval kg_cval_int(kg_dtype t, int64_t v);   /* wraps v to t */
kg_cval kg_cval_float(kg_dtype t, double v);  /* rounds v to t */
kg_cval kg_cval_cast(kg_cval v, kg_dtype t);  /* kernel conversion rules */
double kg_cval_as_double(kg_cval v);
bool kg_cval_truthy(kg_cval v);
/* Evaluates op on constant operands (already of the compute dtype cdt); the result
 * has dtype `out`. Returns false when the op is not evaluated at compile time. */
bool kg_eval_op(kg_op op, kg_dtype out, kg_dtype cdt, const kg_cval *args, int n,
                const int64_t ia[2], const double fa[4], kg_cval *res);
/* IEEE half and bfloat16 conversions (round to nearest even). */
uint16_t kg_f32_to_f16(float f);
float kg_f16_to_f32(uint16_t h);
uint16_t kg_f32_to_bf16(float f);
float kg_bf16_to_f32(uint16_t h);

/* Evaluates graph node n on constant operand values (each converted to the node's
 * compute dtype, as passes/fold.c and the host plan do). False when the op is not
 * evaluated on the host (transcendentals: device libm may differ by an ulp).
 * operands[j] hold the values of n->in[j] in their own dtypes. */
bool kg_eval_node(const kg_gnode *n, const kg_cval *operands, kg_cval *res);
/* The same, plus transcendentals with the host's libm (exp, log, sin, tanh, pow, …): for
 * the host plan's own values only (never for folding what a kernel would compute). */
bool kg_eval_node_host(const kg_gnode *n, const kg_cval *operands, kg_cval *res);

/* ---- plan.c: the host plan ----
 *
 * What runs on the host around the kernels of an entry with control flow over
 * tensors. Values are nodes of the entry's typed program (one kg_graph holds every
 * tensor and scalar op of every branch and loop body, each evaluated once per
 * execution of its block); the plan says in which block and order they are
 * evaluated and defines the PLANVAL nodes:
 *
 *   block 0 (the entry)
 *     NODES [%4 %5 %6]         graph nodes, in order (before partitioning)
 *     REGION r                 after partitioning: the kernels of region r, which
 *                              read its inputs and write its outputs (all plan values)
 *     HOST %9                  a scalar op evaluated on the host (kg_eval_node)
 *     READ %12 <- %11          item(): a 0-dim tensor's value read back to the host
 *     VIEW %13 <- select(%3, dim 0, index %7) / narrow(%3, dim, start %7, length L) / unsqueeze(%3, dim)
 *     SIZE %14 <- %3.shape[d]  a run-time size
 *     FOR %7 = %5 to %6 (inclusive) carried (%8 <- %2 ... yield %20) results %21: block
 *     WHILE carried (...) cond block (computes bool %c), body block, results
 *     IF %c then block else block, results (each branch yields one value per result)
 *
 * Loop-carried values are SSA phis (PLANVAL): set from `init` before the first trip,
 * from `yld` after every trip; the loop's `res` take their final values. An IF's
 * `res` take `yld` (then) or `yld2` (else). Kill lists (passes/plan_regions.c) name
 * the values whose last use is an op, so buffers go back to the pool there. */
typedef enum kg_pop_kind {
  KG_P_NODES, KG_P_REGION, KG_P_HOST, KG_P_READ, KG_P_VIEW, KG_P_SIZE, KG_P_FOR, KG_P_WHILE, KG_P_IF,
} kg_pop_kind;

enum { KG_VIEW_SELECT = 0, KG_VIEW_NARROW = 1, KG_VIEW_UNSQUEEZE = 2 };

typedef struct kg_pop {
  uint8_t kind;      /* kg_pop_kind */
  uint8_t view;      /* VIEW: KG_VIEW_* */
  int32_t dim;       /* VIEW, SIZE */
  int64_t len;       /* VIEW narrow: length */
  uint32_t a, b, c;  /* see the list above: a = the defined node (HOST, READ, VIEW, SIZE; FOR: the
                        loop variable), b = source / start, c = index / end / condition */
  uint32_t region;   /* REGION */
  uint32_t *nodes;   /* NODES */
  uint32_t n_nodes;
  uint32_t body, els, cond; /* blocks (KG_NONE when absent) */
  uint32_t n_car;    /* FOR / WHILE: carried values; IF: results */
  uint32_t *init, *phi, *yld, *yld2, *res;
  uint32_t *kill;    /* values released after this op */
  uint32_t n_kill;
  const char *path, *srcloc;
} kg_pop;

typedef struct kg_pblock {
  KG_VEC(uint32_t) ops;
  uint32_t *kill;    /* released when the block ends (after its yields were taken) */
  uint32_t n_kill;
} kg_pblock;

/* A region: graph nodes that run as kernels between two host steps. */
typedef struct kg_region {
  KG_VEC(uint32_t) nodes; /* program nodes computed here (in order) */
  KG_VEC(uint32_t) ins;   /* program values read from outside (the region graph's parameters) */
  KG_VEC(uint32_t) outs;  /* program values other steps read (the region graph's outputs) */
  uint32_t block, depth;  /* where it runs; loop nesting depth */
} kg_region;

typedef struct kg_plan {
  kg_arena *arena;
  KG_VEC(kg_pop) ops;
  KG_VEC(kg_pblock) blocks; /* block 0 is the entry */
  KG_VEC(kg_region) regions;
  bool partitioned;
} kg_plan;

void kg_plan_init(kg_plan *p, kg_arena *arena);
void kg_plan_free(kg_plan *p);
uint32_t kg_plan_block(kg_plan *p);                         /* a new empty block */
uint32_t kg_plan_op(kg_plan *p, uint32_t block, kg_pop op);  /* appends; returns op id */
void kg_plan_clone(const kg_plan *src, kg_plan *dst);        /* a copy passes can change independently */
/* True when the plan is straight-line code: one block of NODES (no host work), i.e.
 * the whole program is one region (compiled exactly as an entry without a plan). */
bool kg_plan_trivial(const kg_plan *p);
/* Calls fn(node, ud) for every value op o reads directly (not inside its blocks). */
void kg_pop_uses(const kg_plan *p, const kg_graph *g, const kg_pop *o, void (*fn)(uint32_t, void *), void *ud);
void kg_plan_print(const kg_plan *p, const kg_graph *g, kg_strbuf *out);
/* Structure: blocks form a tree, every value is defined before it is used, carried
 * values agree in dtype and shape with their initial and yielded values. */
bool kg_plan_verify(const kg_plan *p, const kg_graph *g, kg_diag *d);

#endif
