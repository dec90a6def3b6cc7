/* codegen-cuda/ts_int.h — what torchscript.c (the PyTorch twin: lines, literals, one
 * torch call per op, graph nodes, the entry) shares with ts_map.c (map lambdas vectorized
 * under masks) and ts_plan.c (the host plan as Python control flow). Internal to
 * codegen-cuda/; codegen.h holds the printers' interface.
 *
 * torchscript.c defines the helpers below as kg_twin_*; both files call them by the
 * short names torchscript.c always used (fmt, line, vop, ...), through the function-like
 * aliases at the end (function-like, so that a field such as st->text is left alone).
 */
#ifndef KG_TS_INT_H
#define KG_TS_INT_H

#include "codegen.h"

/* helper functions the emitted code may call (torchscript.c emits each before the entry
 * function when used) */
enum { H_IDIV, H_FLOORDIV, H_IMOD, H_SHL, H_SHR, H_IPOW, H_CBRT,
       H_SAT_U8, H_SAT_I8, H_SAT_I16, H_SAT_I32, H_SAT_I64, H_RAND, H__COUNT };
/* ts_helpers.c: their Python source, by H_* */
extern const char *const kg_twin_helper_src[H__COUNT];
/* ts_layout.c: the H_RAND helpers (Philox 4x32-10 in int64 tensor arithmetic, bit-exact with the
 * kernels' generator) */
extern const char kg_twin_rand_src[];

/* ---- the emitter's context ---- */

#define TS_MAX_NEST 64

typedef struct ts_ctx {
  const kg_graph *g;
  const kg_ts_opts *o;
  kg_diag *d;
  kg_arena *a;       /* scratch: expression strings, names */
  kg_strbuf *body;   /* the entry function's body */
  const char **name; /* per node: Python name of its value (NULL: CONST, inlined) */
  bool helper[H__COUNT];
  bool ok;
  int ind;           /* indentation level (4 spaces each) */
  /* expression context */
  bool up;           /* carry float16/bfloat16 as float32, rounding after each op */
  const char *like;  /* map code: a full-shape tensor that tensorized literals copy; NULL: 0-dim */
  /* map state */
  uint32_t node;     /* the MAP node being emitted */
  const kg_sfunc *fn;
  unsigned n_mask, n_loop, n_cond;
  const char *mask[TS_MAX_NEST]; /* mask of each enclosing block, innermost last */
  bool mloop[TS_MAX_NEST];       /* that block is a loop body */
  int n_stack;
} ts_ctx;

/* A value in an expression being built. */
typedef struct vval {
  const char *s; /* Python expression; NULL for a literal (rendered from i / f on use) */
  uint8_t dt;    /* kgen dtype; a tensor holds carry(dt) */
  bool num;      /* a Python number (literal or scalar variable), not a tensor */
  bool full;     /* map code: a full-shape tensor (else 0-dim, or a number) */
  int64_t i;     /* literal value (integers, bool) */
  double f;      /* literal value (floats) */
} vval;


/* ---- torchscript.c ---- */
/* printf into the scratch arena */
const char *kg_twin_fmt(ts_ctx *c, const char *f, ...) KG_PRINTF(2, 3);
/* records "TorchScript twin: ..." at node (once) and marks the emission failed */
void kg_twin_fail(ts_ctx *c, uint32_t node, const char *f, ...) KG_PRINTF(3, 4);
/* an indented body line, ending with node's comment unless node is KG_NONE */
void kg_twin_line(ts_ctx *c, uint32_t node, const char *f, ...) KG_PRINTF(3, 4);
void kg_twin_pad(ts_ctx *c);                        /* the current indentation */
void kg_twin_node_comment(ts_ctx *c, uint32_t id);  /* "  # %<id> <path>" */
kg_dtype kg_twin_carry(const ts_ctx *c, kg_dtype t); /* the dtype a tensor of t is held in */
const char *kg_twin_tdt(ts_ctx *c, kg_dtype t);     /* "torch.float32" */
const char *kg_twin_text(ts_ctx *c, vval v);        /* v as Python source */
const char *kg_twin_scalar_arg(ts_ctx *c, vval v);  /* a Python number as a Scalar argument */
/* a 0-dim tensor holding a Python number (on device's device when given) */
const char *kg_twin_zero_dim(ts_ctx *c, const char *val, kg_dtype dt, const char *device);
vval kg_twin_vlit(kg_dtype dt, int64_t i, double f);         /* a literal */
vval kg_twin_vtens(const char *s, kg_dtype dt, bool full);   /* a tensor expression */
vval kg_twin_vtensor(ts_ctx *c, vval v);                     /* a literal made a tensor */
vval kg_twin_vcast(ts_ctx *c, vval v, kg_dtype to);          /* converted as a kernel converts */
/* op applied with kernel semantics to in[0..n); want: the kernel-IR dtype */
vval kg_twin_vop(ts_ctx *c, uint32_t node, kg_op op, int64_t ia, const double *fa, vval *in, int n, kg_dtype want);
vval kg_twin_node_val(ts_ctx *c, uint32_t id);               /* graph node id as an operand */
const char *kg_twin_py_conv(kg_dtype t);                     /* "bool", "int" or "float" */
void kg_twin_emit_node(ts_ctx *c, uint32_t id);              /* the line(s) of graph node id */

/* ---- ts_map.c ---- */
/* A MAP node: the scalar function vectorized over the broadcast inputs. */
void kg_twin_emit_map(ts_ctx *c, uint32_t id);

/* ---- ts_reduce.c ---- */
/* A reduction, scan or normalization as PyTorch's own call (NULL after a failure). */
const char *kg_twin_reduce(ts_ctx *c, uint32_t id, const vval *a);

/* ---- ts_cnn.c ---- */
/* Pooling, batch / instance / group norm, resampling, pixel shuffle as PyTorch's own aten op. */
const char *kg_twin_cnn(ts_ctx *c, uint32_t id, const vval *a);

/* ---- ts_loss.c ---- */
/* A loss function as PyTorch's own torch.nn.functional call. */
const char *kg_twin_loss(ts_ctx *c, uint32_t id, const vval *a);
/* ---- ts_attn.c ---- */
/* scaled_dot_product_attention (ATTN) as PyTorch's math path over operand values a. */
const char *kg_twin_attention(ts_ctx *c, const kg_gnode *n, const vval *a);

/* ---- ts_layout.c ---- */
/* A layout op (views, cat, indexing, factories) as PyTorch's own call on operand values a. */
const char *kg_twin_layout(ts_ctx *c, uint32_t id, const vval *a);

/* ---- ts_plan.c ---- */
/* Block b of the elaborated host plan p as Python statements. */
void kg_twin_emit_pblock(ts_ctx *c, const kg_plan *p, uint32_t b);

/* the short names */
#define fmt(...) kg_twin_fmt(__VA_ARGS__)
#define fail(...) kg_twin_fail(__VA_ARGS__)
#define line(...) kg_twin_line(__VA_ARGS__)
#define pad(...) kg_twin_pad(__VA_ARGS__)
#define node_comment(...) kg_twin_node_comment(__VA_ARGS__)
#define carry(...) kg_twin_carry(__VA_ARGS__)
#define tdt(...) kg_twin_tdt(__VA_ARGS__)
#define text(...) kg_twin_text(__VA_ARGS__)
#define scalar_arg(...) kg_twin_scalar_arg(__VA_ARGS__)
#define zero_dim(...) kg_twin_zero_dim(__VA_ARGS__)
#define vlit(...) kg_twin_vlit(__VA_ARGS__)
#define vtens(...) kg_twin_vtens(__VA_ARGS__)
#define vtensor(...) kg_twin_vtensor(__VA_ARGS__)
#define vcast(...) kg_twin_vcast(__VA_ARGS__)
#define vop(...) kg_twin_vop(__VA_ARGS__)
#define node_val(...) kg_twin_node_val(__VA_ARGS__)
#define py_conv(...) kg_twin_py_conv(__VA_ARGS__)
#define emit_node(...) kg_twin_emit_node(__VA_ARGS__)
#define emit_pblock(...) kg_twin_emit_pblock(__VA_ARGS__)

#endif
