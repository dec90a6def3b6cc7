/* frontend/frontend.h — quotation JSON → AST → typed tensor program.
 *
 * Sections, one per source file:
 *   json.c      — reads a kgen-quotation document (cJSON) into the AST below,
 *                 enforcing limits and validating every node's fields; errors carry
 *                 the JSON path, the F# location, and line:col for malformed JSON.
 *   types.c     — CLR type strings ("System.Single", "System.Tuple`2[...]"): generic
 *                 arguments, tensor / tuple / function tests.
 *   members.c   — member key → op resolution through the one member table
 *                 (members.def, keyed by the exact keys of torchsharp-members.md).
 *   elab.c      — elaboration: inlines lambdas / applications / lets / reflected
 *                 definitions, resolves members, infers dtypes (PyTorch promotion)
 *                 and shapes (broadcasting) from a signature, and builds the typed
 *                 tensor program (ir/graph).
 *   calls.c     — member calls: the handlers of the member table's rows (argument
 *                 binding, tensor ops, reductions, F# operators, System.Math).
 *   scalar.c    — elaboration of scalar F# code (map lambdas, scalar params) into
 *                 kernel-IR statements with .NET semantics.
 *
 * The AST mirrors Microsoft.FSharp.Quotations.Patterns node for node: nothing is
 * desugared while reading, so diagnostics can point at exactly what the user wrote.
 */
#ifndef KG_FRONTEND_H
#define KG_FRONTEND_H

#include <stdbool.h>

#include "../ir/ir.h"
#include "../support/support.h"

/* ---- AST (json.c) ---- */

/* Every pattern case of the spec, in its order; X(name) where name is the "k" string. */
#define KG_AST_KINDS(X)                                                                  \
  X(Var) X(Value) X(ValueWithName) X(Lambda) X(Application) X(Let) X(LetRecursive)      \
  X(IfThenElse) X(ForIntegerRangeLoop) X(WhileLoop) X(Sequential) X(VarSet) X(Call)     \
  X(PropertyGet) X(PropertySet) X(FieldGet) X(NewTuple) X(NewStructTuple) X(TupleGet)   \
  X(NewArray) X(NewObject) X(Coerce) X(DefaultValue) X(NewRecord) X(NewUnionCase)       \
  X(UnionCaseTest) X(TypeTest) X(TryWith) X(TryFinally) X(AddressOf) X(AddressSet)      \
  X(FieldSet) X(NewDelegate) X(Quote) X(WithValue)

typedef enum kg_ast_kind {
#define X(n) KG_AST_##n,
  KG_AST_KINDS(X)
#undef X
  KG_AST__COUNT
} kg_ast_kind;

const char *kg_ast_kind_name(kg_ast_kind k);

/* A member reference (spec "Members"). */
typedef struct kg_member {
  const char *decl;          /* declaring type, e.g. "TorchSharp.torch+Tensor" */
  const char *name;          /* compiled name ("tanh", "op_Addition", "shape", "float32") */
  bool is_static;            /* "static" */
  const char **params;       /* instantiated parameter types (no receiver) */
  uint32_t n_params;
  const char *ret;           /* return type or NULL */
  const char **generic_args; /* "genericArgs" */
  uint32_t n_generic_args;
  const char *key;           /* lookup key: "decl::name(p1,p2)", "decl::get_name(...)", "decl::name" */
} kg_member;

/* A constant (spec "Values"). */
typedef enum kg_value_kind {
  KG_VAL_NULL,   /* null / unit */
  KG_VAL_BOOL,   /* b */
  KG_VAL_INT,    /* i (exact, including 64-bit values given as digit strings); is_unsigned for UInt64 > INT64_MAX */
  KG_VAL_FLOAT,  /* f (for System.Single already rounded to single precision); NaN/±Infinity allowed */
  KG_VAL_STRING, /* s (a System.String constant) */
  KG_VAL_ENUM,   /* i = numeric value, s = member name */
  KG_VAL_ARRAY,  /* items[n_items] */
  KG_VAL_OPAQUE, /* {"opaque": true}: a captured Tensor */
} kg_value_kind;

typedef struct kg_value {
  kg_value_kind kind;
  bool b;
  bool is_unsigned; /* KG_VAL_INT holding a UInt64 above INT64_MAX (stored in u) */
  int64_t i;
  uint64_t u;
  double f;
  const char *s;
  struct kg_value *items;
  uint32_t n_items;
} kg_value;

typedef struct kg_ast kg_ast;

/* One node. Which fields are live depends on k (listed per kind). */
struct kg_ast {
  kg_ast_kind k;
  const char *ty;   /* "ty": the node's Expr.Type as a CLR type string */
  const char *path; /* JSON path of this node, e.g. "$.entries[0].expr.body" */
  bool has_loc;
  int32_t loc[5];   /* [fileIndex, startLine, startCol, endLine, endCol] */

  uint32_t var;         /* Var, Lambda, Let, ForIntegerRangeLoop, VarSet: index into doc vars */
  kg_value value;       /* Value, ValueWithName (+ name), WithValue */
  const char *name;     /* ValueWithName */
  kg_member *member;    /* Call.method, PropertyGet/Set.property, FieldGet.field, NewObject.ctor */
  const char *elem_type;/* NewArray.elemType */
  int32_t index;        /* TupleGet.index */
  /* Children. Named slots by kind:
   *   Lambda: a=body | Application: a=func b=arg | Let: a=value b=body
   *   LetRecursive: kids=binding values (bind_vars[i] their vars), a=body
   *   IfThenElse: a=cond b=then c=else | ForIntegerRangeLoop: a=start b=end c=body
   *   WhileLoop: a=cond b=body | TryFinally: a=body b=finally | Sequential: a=first b=second | VarSet: a=value
   *   Call / PropertyGet: a=obj (may be NULL), kids=args (Call: wits=witnesses)
   *   PropertySet: a=obj, kids=args, b=value | FieldGet: a=obj (may be NULL)
   *   NewTuple / NewStructTuple / NewArray / NewObject / NewRecord / NewUnionCase: kids=items/args
   *   TupleGet: a=tuple | Coerce: a=expr | TypeTest / UnionCaseTest: a=expr
   *   Quote / WithValue / AddressOf: a=expr | other unsupported kinds: kids = any node children */
  kg_ast *a, *b, *c;
  kg_ast **kids;
  uint32_t n_kids;
  kg_ast **wits;
  uint32_t n_wits;
  uint32_t *bind_vars;  /* LetRecursive */
};

typedef struct kg_doc_var {
  const char *name;
  const char *type;
  bool is_mutable;
} kg_doc_var;

typedef struct kg_doc_entry {
  const char *name;
  kg_ast *expr;
  kg_sig *sig;      /* parsed "signature", or NULL */
  const char *path; /* "$.entries[3]" */
} kg_doc_entry;

typedef struct kg_doc_def {
  kg_member *member;
  kg_ast *expr;
  const char *path;
} kg_doc_def;

typedef struct kg_doc {
  const char **files;
  uint32_t n_files;
  kg_doc_var *vars;
  uint32_t n_vars;
  kg_doc_entry *entries;
  uint32_t n_entries;
  kg_doc_def *defs;
  uint32_t n_defs;
  uint32_t n_nodes; /* total AST nodes read */
} kg_doc;

typedef struct kg_fe_limits {
  size_t max_bytes;     /* document size; default 64 MiB */
  uint32_t max_depth;   /* JSON nesting depth; default 200 (cJSON's own limit is 1000) */
  uint32_t max_nodes;   /* AST nodes; default 1,000,000 */
  uint32_t max_rank;    /* tensor rank in signatures; default KG_MAX_RANK */
} kg_fe_limits;

void kg_fe_limits_default(kg_fe_limits *l);

/* Reads a document. All memory comes from `arena`. Returns NULL and records
 * diagnostics on error; never crashes on any input. `name` is used in messages. */
kg_doc *kg_fe_read(kg_arena *arena, const char *json, size_t len, const kg_fe_limits *lim,
                   kg_diag *d);

/* Parses a signature object (the "signature" JSON of the spec) given as text, as
 * used by `kgen compile --sig`. Also accepts the compact CLI form
 * "float32[B,1024], float32[1024], float32" (a bare dtype is a scalar parameter). */
kg_sig *kg_fe_parse_sig(kg_arena *arena, const char *text, kg_diag *d);

/* F# quotes `fun (a, b) c -> e` as Lambda(t, Let(a, TupleGet(t, 0), Let(b, TupleGet(t, 1),
 * Lambda(c, e)))): after a tupled parameter, the lets that only unpack it come before the next
 * parameter. Returns that next Lambda when `e` is such a chain of lets, else NULL. */
const kg_ast *kg_fe_after_unpacking(const kg_ast *e);

/* "Model.fs:12:5" for a node with loc (arena string), else NULL. */
const char *kg_fe_srcloc(kg_arena *arena, const kg_doc *doc, const kg_ast *n);

/* ---- types.c ---- */
bool kg_clr_is_tensor(const char *ty);
bool kg_clr_is_unit(const char *ty);
bool kg_clr_is_tuple(const char *ty);    /* System.Tuple`N[...] or System.ValueTuple`N[...] */
/* Splits the generic arguments of "Name`N[A,B]" into out[] (arena strings);
 * returns their count (0 when not generic). */
int kg_clr_generic_args(kg_arena *a, const char *ty, const char **out, int max);

/* ---- members.c ---- */
typedef enum kg_mhandler {
  H_OP,        /* node op(operands), attributes from f/F/b/g chars */
  H_REDUCE,    /* sum / mean / prod / amax / amin / max() / min(): dims (D), keepdim (k), dtype (d) */
  H_ALPHA,     /* add(x, y[, alpha]) = x + alpha * y */
  H_DIVMODE,   /* div(x, y, rounding_mode) */
  H_ATAN,      /* arctan(x) or arctan(y, x) */
  H_CLAMP,     /* clamp / clip with optional bounds */
  H_WHERE,     /* torch.where(c, x, y) or x.where(c, y) */
  H_LIKE,      /* zeros_like / ones_like / full_like / empty_like */
  H_TENSOR,    /* torch.tensor(scalar[, dtype]) and Tensor.op_Implicit(scalar) */
  H_CAST,      /* to / to_type / type / type_as / float() / ... */
  H_PASS,      /* Scalar wrappers (op_Implicit, ToScalar): the operand itself */
  H_ID,        /* detach / clone / contiguous / cpu / cuda: the tensor itself */
  H_DTYPE,     /* torch.float32 etc. (FieldGet): a dtype value */
  H_GETDTYPE,  /* x.dtype */
  H_MAP,       /* Kgen.Ops.map / map2 / map3 */
  H_FSHARP,    /* F# generic operator: resolved by operand types */
  H_SMATH,     /* F# / System.Math / System.MathF scalar math */
  H_SCONV,     /* F# conversions (ToSingle, ToInt32, ...) on scalars */
  H_MATMUL,    /* matmul / mm / bmm / mv / dot / linear / addmm / baddbmm (products.c) */
  H_CONV,      /* conv1d / conv2d / conv_transpose1d / conv_transpose2d / pad (conv.c binds the raw argspec) */
  H_LAYOUT,    /* views, joins, indexing, factories, dropout (layout.c binds the raw argspec itself) */
  H_CNN,       /* pooling, batch / instance / group norm, interpolate, pixel_shuffle (cnn.c binds the raw arguments) */
  H_LOSS,      /* the loss functions: cross_entropy, nll_loss, mse_loss, ... (loss.c binds the raw arguments) */
  H_ATTN,      /* scaled_dot_product_attention (attention.c binds the raw arguments) */
} kg_mhandler;

typedef struct kg_member_row {
  const char *key;
  kg_mhandler handler;
  kg_op op;
  const char *argspec; /* see members.def */
  kg_dtype dtype;      /* fixed dtype (casts, dtype fields, tensor()) or KG_DT_NONE */
  int extra;           /* H_LIKE: fill kind */
} kg_member_row;

/* Exact key first, then the F# / .NET families (keyed "decl::name"). */
const kg_member_row *kg_member_lookup(const kg_member *m);
const kg_member_row *kg_member_lookup_key(const char *key);
/* calls.c: the row of TorchSharp.torch+Tensor::NAME(m's parameter types) — name's first len
 * characters, a Parameter operand typed as a Tensor — or NULL; *key (to free) holds the key. */
const kg_member_row *kg_member_tensor_row(const char *name, size_t len, const kg_member *m, kg_strbuf *key);
/* Every exact row (for docs and tests). */
const kg_member_row *kg_member_rows(uint32_t *n);
const kg_member_row *kg_member_family_rows(uint32_t *n);
/* The supported-ops table (docs/ops.md) generated from the member table and the
 * op table: every op, its semantics, and every member key that reaches it. */
void kg_member_doc(kg_strbuf *out);

/* ---- elab.c ---- */
/* Specializes entry `entry` of `doc` for signature `sig` (NULL: the entry's own) into the
 * typed tensor program g and its host plan (both initialised by the caller): control flow
 * over tensors known only at run time becomes plan steps (a plan of NODES steps only is
 * straight-line code). Returns false and records diagnostics on bad input. */
bool kg_elaborate_plan(kg_arena *arena, const kg_doc *doc, uint32_t entry, const kg_sig *sig,
                       kg_graph *g, kg_plan *plan, kg_diag *d);

/* ---- elaboration internals (elab.c, calls.c, scalar.c, hostflow.c) ---- */
typedef enum kg_ev_kind {
  EV_ERR,   /* an error was recorded */
  EV_UNIT,  /* () */
  EV_NULL,  /* null / a default Nullable */
  EV_CONST, /* c: a compile-time scalar (its dtype from the CLR type) */
  EV_NODE,  /* id: a graph node (tensor, or a run-time .NET scalar at entry level) */
  EV_SX,    /* id: an expression of the map function being built (scalar code) */
  EV_MVAR,  /* id: a mutable local of the map function (kernel var) */
  EV_DTYPE, /* dt: a torch dtype */
  EV_ENUM,  /* c.i: an enum value of type ety (RoundingMode, GELU+Approximate, ...) */
  EV_FUNC,  /* lam: a function value (a Lambda node, evaluated in the current environment) */
  EV_TUPLE, /* items[n] */
  EV_ARRAY, /* items[n] */
  EV_TINDEX,/* a TorchSharp TensorIndex (layout.c): c.i = KG_TI_*, items[n] its operands */
  EV_STR,   /* s: a System.String constant (einsum's equation) */
  EV_RANGE, /* an F# integer range a .. b / a .. k .. b (seqloop.c): items[0] start, items[1] end
               (numbers of dtype dt), c the constant step (never 0) */
} kg_ev_kind;

typedef struct kg_ev {
  kg_ev_kind kind;
  kg_cval c;
  uint32_t id;
  kg_dtype dt;
  const char *ety;
  const kg_ast *lam;
  struct kg_ev *items;
  uint32_t n;
  const struct kg_closure *clo; /* EV_FUNC: the bindings where the lambda was made (NULL: none) */
  const char *s;                /* EV_STR */
} kg_ev;

/* What a lambda closes over: the variables bound where it was evaluated, with their values
 * then (applying it rebinds them, so a function value used outside the scope that made it —
 * a curried helper's partial application, Tuple3.map f — still sees them). */
typedef struct kg_closure {
  uint32_t n;
  uint32_t *vars;
  struct kg_ev *vals;
} kg_closure;

/* An in-place op's result (effects.c): the value variable `var` and parameter `param` (the
 * caller's tensor, written back at the end of a run) hold from now on; KG_NONE = none. */
typedef struct kg_inplace {
  uint32_t node, var, param;
  struct kg_inplace *prev; /* the one before (arena list, newest first) */
} kg_inplace;

typedef struct kg_elab {
  kg_arena *arena;
  const kg_doc *doc;
  kg_diag *d;
  kg_graph *g;
  const kg_sig *sig;
  kg_ev *env;          /* per doc var: current binding */
  uint8_t *bound;      /* per doc var: 1 when bound */
  uint32_t *capture_node; /* per signature capture: INPUT node or KG_NONE */
  int inline_depth;
  /* scalar mode (inside a map lambda): the function being built and where
   * statements go */
  kg_sfunc *fn;
  kg_kcursor cur;
  int loop_depth;
  /* host plan (hostflow.c): where entry-level control flow goes. blk is the block
   * being filled; nodes from `mark` on are not yet in any NODES step. */
  kg_plan *plan;
  uint32_t blk, mark;
  int plan_depth;  /* run-time loops / branches being elaborated, inside each other */
  kg_inplace *inplace; /* in-place results, newest first (effects.c) */
} kg_elab;

/* effects.c: after the entry's results, the final value of every parameter an in-place op
 * changed becomes a write-back output (kg_gparam.wb). */
void kg_elab_writebacks(kg_elab *el);
/* effects.c: an op that updates tensor `target` in place as a side effect (batch_norm's running
 * statistics in training mode): `value` becomes its value from now on — the variable `recv`
 * names (the argument's AST, or NULL), the capture, and the caller's tensor written back — with
 * the refusals of the in-place members (views, host-plan loops); `what` names it in errors.
 * Returns the new value or EV_ERR. */
kg_ev kg_elab_write_in_place(kg_elab *el, const kg_ast *at, const kg_ast *recv, uint32_t target, kg_ev value, const char *what);

kg_ev kg_elab_eval(kg_elab *el, const kg_ast *n);
/* f applied to arg (an F# function value: a lambda with its closure) */
kg_ev kg_elab_apply(kg_elab *el, const kg_ast *at, kg_ev f, kg_ev arg);
kg_ev kg_ev_err(void);
/* Records an error located at node n. Returns EV_ERR for convenience. */
kg_ev kg_elab_error(kg_elab *el, const kg_ast *n, kg_diag_code code, const char *fmt, ...) KG_PRINTF(4, 5);
/* Records a warning located at node n (the specialization goes on; kg_compiled_warnings). */
void kg_elab_warn(kg_elab *el, const kg_ast *n, const char *fmt, ...) KG_PRINTF(3, 4);
kg_dtype kg_ev_dtype(const kg_elab *el, kg_ev v);
/* scalar.c: scalar (.NET) operations on EV_CONST / EV_SX / EV_NODE(scalar) values */
kg_ev kg_elab_sop(kg_elab *el, const kg_ast *at, kg_op op, kg_dtype out, const kg_ev *a, int n);
kg_ev kg_elab_scast(kg_elab *el, const kg_ast *at, kg_ev v, kg_dtype t);
/* Scalar-mode control flow: IfThenElse / loops / mutable locals inside map lambdas. */
kg_ev kg_elab_scalar_if(kg_elab *el, const kg_ast *n);
kg_ev kg_elab_scalar_while(kg_elab *el, const kg_ast *n);
kg_ev kg_elab_scalar_let_mutable(kg_elab *el, const kg_ast *n);
kg_ev kg_elab_scalar_varset(kg_elab *el, const kg_ast *n);
/* Builds the map function for H_MAP: fnv is the function value, nargs 1..3. */
bool kg_elab_map_fn(kg_elab *el, const kg_ast *at, kg_ev fnv, int nargs, const kg_dtype *args,
                    kg_dtype ret, uint32_t *fn_index);
/* elab.c helpers shared with hostflow.c and calls.c */
kg_ev kg_ev_make(kg_ev_kind k);
kg_ev kg_ev_node(uint32_t id);
kg_ev kg_ev_const(kg_cval c);
const kg_gnode *kg_elab_gnode(const kg_elab *el, uint32_t id);
bool kg_elab_as_node(kg_elab *el, const kg_ast *at, kg_ev v, uint32_t *id);
uint32_t kg_elab_add_node(kg_elab *el, const kg_ast *at, kg_gnode *n);
const char *kg_elab_shape_str(kg_elab *el, const kg_shape *s);
bool kg_ev_is_tensor(const kg_elab *el, kg_ev v);
/* A tensor op over operand nodes: result dtype by the op's typing class (ops.def flags +
 * PyTorch promotion; `fixed` for casts, creations and maps), shape by broadcasting the
 * tensor operands; ia / fa (may be NULL) are its attributes. _ev: over values (constants
 * become CONST nodes). */
kg_ev kg_elab_tensor_op(kg_elab *el, const kg_ast *at, kg_op op, const uint32_t *in, int n,
                        const int64_t ia[2], const double fa[4], kg_dtype fixed);
kg_ev kg_elab_tensor_op_ev(kg_elab *el, const kg_ast *at, kg_op op, const kg_ev *a, int n,
                           const int64_t ia[2], const double fa[4], kg_dtype fixed);
/* calls.c: a member call resolved to a row of the member table (av: the receiver, if any,
 * then the arguments, all evaluated) → its value */
kg_ev kg_elab_call_row(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n);
/* products.c: a matrix product (op MATMUL, LINEAR or ADDMM; spelling = the member row's
 * extra) over ops[0 .. n) (present[j]: an optional operand was given), attributes fattr
 * (addmm's beta, alpha): PyTorch's shape rules and errors, located at `at` */
kg_ev kg_elab_product(kg_elab *el, const kg_ast *at, kg_op op, int spelling, const kg_ev *ops, const bool *present, int n,
                      const double *fattr, int n_f);
/* PyTorch broadcasting of two shapes (symbol pairs assumed equal are guarded); a located
 * error when they cannot broadcast */
bool kg_elab_broadcast(kg_elab *el, const kg_ast *at, const kg_shape *a, const kg_shape *b, kg_shape *out);
/* ---- effects.c ---- */
/* memory scopes, devices, ignore, Debug.Assert, static facts: true when handled (*out set) */
bool kg_elab_effect_member(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out);
/* x.op_(...) with no row of its own: the row of op(...), rebinding x; true when handled */
bool kg_elab_in_place(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out);
/* ---- cnn.c: pooling, normalization over channels, resampling, pixel shuffle ---- */
kg_ev kg_elab_cnn(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n);
/* ---- loss.c: the loss functions (H_LOSS rows), one composite node each ---- */
kg_ev kg_elab_loss(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n);
/* attention.c: scaled_dot_product_attention as one ATTN node */
kg_ev kg_elab_attention(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n);
/* ---- conv.c: convolutions and pad (H_CONV rows, a raw argspec like H_LAYOUT's) ---- */
kg_ev kg_elab_conv(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n);
/* ---- layout.c ---- */
kg_ev kg_elab_layout(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n);
/* hostflow.c: entry-level control flow and host values (the host plan) */
void kg_hf_flush(kg_elab *el);
kg_ev kg_hf_while(kg_elab *el, const kg_ast *n);
kg_ev kg_hf_if(kg_elab *el, const kg_ast *n, kg_ev cond);
/* The 0-dim bool tensor computing host condition c on the device, when c depends on
 * item() reads (so a select needs no read back); KG_NONE when it does not. */
uint32_t kg_hf_device_cond(kg_elab *el, const kg_ast *at, uint32_t c);
/* Tensor members that read shapes or make views, and F# array indexing on shapes:
 * handled = false when `m` is none of them. */
kg_ev kg_hf_call(kg_elab *el, const kg_ast *at, const kg_ev *av, int n, bool *handled);
/* The members kg_hf_call handles, for docs/ops.md: key, meaning, key, meaning, … */
const char *const *kg_hf_member_doc(uint32_t *n);
/* Materializes a scalar-mode value as an expression of the current function. */
uint32_t kg_elab_sx(kg_elab *el, kg_ev v, kg_dtype t);

/* ---- seqloop.c: F#'s loops over ranges, arrays and lists as the integer loops they mean ---- */
/* An integer loop: its variable takes start, start + step, ... while not past end (inclusive);
 * the body is either the AST `body` with doc var `var` bound to the value, or the function
 * value `fn` applied to it (Seq.iter). `unroll`: it must be unrolled (it indexes an array that
 * exists only when kgen compiles). */
typedef struct kg_iloop {
  const kg_ast *at, *start_at, *end_at; /* the loop, and where its bounds were written */
  kg_ev start, end;                     /* numbers of dtype vt */
  int64_t step;                         /* a constant, never 0 */
  kg_dtype vt;
  uint32_t var;
  const kg_ast *body;
  kg_ev fn;
  bool unroll;
} kg_iloop;
kg_ev kg_elab_for(kg_elab *el, const kg_ast *n);                   /* ForIntegerRangeLoop */
bool kg_elab_seq_let(kg_elab *el, const kg_ast *n, kg_ev *out);     /* `for x in seq`: its Let, else false */
bool kg_elab_seq_call(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out);
kg_ev kg_elab_list_case(kg_elab *el, const kg_ast *n);             /* NewUnionCase: F# list literals */
kg_ev kg_elab_range_item(kg_elab *el, const kg_ast *at, kg_ev r, kg_ev i); /* (range as array).[i] */
/* The number of iterations when start and end are constants (false otherwise). */
bool kg_iloop_const_trips(const kg_iloop *L, uint64_t *trips);
kg_ev kg_elab_loop_unrolled(kg_elab *el, const kg_iloop *L, uint64_t trips);
/* One iteration's body with the loop variable's value v; the AST whose assignments it makes. */
kg_ev kg_elab_loop_body(kg_elab *el, const kg_iloop *L, kg_ev v);
const kg_ast *kg_iloop_scan(const kg_iloop *L);
/* hostflow.c / scalar.c: the loop at entry level (folded, unrolled or a plan FOR) / in a map lambda */
kg_ev kg_hf_loop(kg_elab *el, const kg_iloop *L);
kg_ev kg_elab_scalar_loop(kg_elab *el, const kg_iloop *L);
/* elab.c: a finally that only disposes (what `use` and F#'s enumerator loops write) */
bool kg_elab_dispose_only(const kg_ast *n);

/* PyTorch's error for an integer addmm / baddbmm (a float beta != 0) whose mat1 / batch1 has
 * no columns and whose result is not empty (frontend/products.c; runtime/exec.c when a size
 * is symbolic) */
void kg_addmm_k0_message(kg_dtype dt, bool batched, char *buf, size_t cap);

#endif
