#!/usr/bin/env python3
"""tools/gen_members.py — generates frontend/members.def, the member table.

The member table maps EXACT member keys of ../shared/spec/torchsharp-members.md
(plus the F# / System.Math families of its section J) onto kgen ops. It is
generated from the spec so that keys can never drift from it: every row's key is
copied verbatim from a table of the spec. The mapping below says, per member
name, which handler builds the node, which op it means and how each parameter
is used (decided from the parameter's name and CLR type in the spec).

Usage:  python3 tools/gen_members.py ../shared/spec/torchsharp-members.md docs/members-extra.md > frontend/members.def
The generated file is committed; tests/test_members.c re-checks every key
against the spec when the spec is present.
"""
import re
import sys

T = "TorchSharp.torch+Tensor"

# name -> (handler, op, extra). Handlers are documented in frontend/members.c.
NAMES = {
    # A1 operators (reached through F#'s generic Operators.op_*)
    "op_Addition": ("H_OP", "ADD"), "op_Subtraction": ("H_OP", "SUB"),
    "op_Multiply": ("H_OP", "MUL"), "op_Division": ("H_OP", "DIV"),
    "op_Modulus": ("H_OP", "REM"), "op_UnaryNegation": ("H_OP", "NEG"),
    "op_BitwiseAnd": ("H_OP", "BAND"), "op_BitwiseOr": ("H_OP", "BOR"),
    "op_ExclusiveOr": ("H_OP", "BXOR"), "op_OnesComplement": ("H_OP", "BNOT"),
    "op_Equality": ("H_OP", "EQ"), "op_Inequality": ("H_OP", "NE"),
    "op_LessThan": ("H_OP", "LT"), "op_LessThanOrEqual": ("H_OP", "LE"),
    "op_GreaterThan": ("H_OP", "GT"), "op_GreaterThanOrEqual": ("H_OP", "GE"),
    # A4
    "add": ("H_ALPHA", "ADD"), "sub": ("H_OP", "SUB"), "subtract": ("H_OP", "SUB"),
    "mul": ("H_OP", "MUL"), "multiply": ("H_OP", "MUL"),
    "div": ("H_DIVMODE", "DIV"), "divide": ("H_DIVMODE", "DIV"), "true_divide": ("H_OP", "DIV"),
    "floor_divide": ("H_OP", "FLOORDIV"), "remainder": ("H_OP", "REM"), "fmod": ("H_OP", "FMOD"),
    "neg": ("H_OP", "NEG"), "negative": ("H_OP", "NEG"),
    # B
    "eq": ("H_OP", "EQ"), "equal": ("H_OP", "EQ"), "ne": ("H_OP", "NE"), "not_equal": ("H_OP", "NE"),
    "lt": ("H_OP", "LT"), "less": ("H_OP", "LT"), "le": ("H_OP", "LE"), "less_equal": ("H_OP", "LE"),
    "gt": ("H_OP", "GT"), "greater": ("H_OP", "GT"), "ge": ("H_OP", "GE"), "greater_equal": ("H_OP", "GE"),
    "logical_and": ("H_OP", "LAND"), "logical_or": ("H_OP", "LOR"), "logical_xor": ("H_OP", "LXOR"),
    "logical_not": ("H_OP", "LNOT"), "bitwise_and": ("H_OP", "BAND"), "bitwise_or": ("H_OP", "BOR"),
    "bitwise_xor": ("H_OP", "BXOR"), "bitwise_not": ("H_OP", "BNOT"),
    "bitwise_left_shift": ("H_OP", "SHL"), "bitwise_right_shift": ("H_OP", "SHR"),
    "isclose": ("H_OP", "ISCLOSE"),
    # C1
    "abs": ("H_OP", "ABS"), "absolute": ("H_OP", "ABS"), "exp": ("H_OP", "EXP"), "exp2": ("H_OP", "EXP2"),
    "expm1": ("H_OP", "EXPM1"), "log": ("H_OP", "LOG"), "log1p": ("H_OP", "LOG1P"), "log2": ("H_OP", "LOG2"),
    "log10": ("H_OP", "LOG10"), "sqrt": ("H_OP", "SQRT"), "rsqrt": ("H_OP", "RSQRT"), "square": ("H_OP", "SQUARE"),
    "reciprocal": ("H_OP", "RECIP"), "sin": ("H_OP", "SIN"), "cos": ("H_OP", "COS"), "tan": ("H_OP", "TAN"),
    "asin": ("H_OP", "ASIN"), "arcsin": ("H_OP", "ASIN"), "acos": ("H_OP", "ACOS"), "arccos": ("H_OP", "ACOS"),
    "atan": ("H_OP", "ATAN"), "arctan": ("H_ATAN", "ATAN"), "sinh": ("H_OP", "SINH"), "cosh": ("H_OP", "COSH"),
    "tanh": ("H_OP", "TANH"), "sigmoid": ("H_OP", "SIGMOID"), "expit": ("H_OP", "SIGMOID"),
    "relu": ("H_OP", "RELU"), "relu6": ("H_OP", "RELU6"), "gelu": ("H_OP", "GELU"), "silu": ("H_OP", "SILU"),
    "elu": ("H_OP", "ELU"), "celu": ("H_OP", "CELU"), "selu": ("H_OP", "SELU"),
    "leaky_relu": ("H_OP", "LEAKY_RELU"), "hardtanh": ("H_OP", "HARDTANH"), "softplus": ("H_OP", "SOFTPLUS"),
    "mish": ("H_OP", "MISH"), "logsigmoid": ("H_OP", "LOGSIGMOID"), "hardsigmoid": ("H_OP", "HARDSIGMOID"),
    "hardswish": ("H_OP", "HARDSWISH"),
    "erf": ("H_OP", "ERF"), "erfc": ("H_OP", "ERFC"), "floor": ("H_OP", "FLOOR"), "ceil": ("H_OP", "CEIL"),
    "round": ("H_OP", "ROUND"), "trunc": ("H_OP", "TRUNC"), "fix": ("H_OP", "TRUNC"), "frac": ("H_OP", "FRAC"),
    "sign": ("H_OP", "SIGN"), "sgn": ("H_OP", "SIGN"), "logit": ("H_OP", "LOGIT"),
    "isnan": ("H_OP", "ISNAN"), "isinf": ("H_OP", "ISINF"), "isfinite": ("H_OP", "ISFINITE"),
    "nan_to_num": ("H_OP", "NAN_TO_NUM"),
    # C2
    "atan2": ("H_OP", "ATAN2"), "arctan2": ("H_OP", "ATAN2"), "pow": ("H_OP", "POW"),
    "float_power": ("H_OP", "FLOAT_POW"), "maximum": ("H_OP", "MAXIMUM"), "minimum": ("H_OP", "MINIMUM"),
    "fmax": ("H_OP", "FMAX"), "fmin": ("H_OP", "FMIN"), "clamp": ("H_CLAMP", "CLAMP"), "clip": ("H_CLAMP", "CLAMP"),
    "clamp_min": ("H_OP", "CLAMP_MIN"), "clamp_max": ("H_OP", "CLAMP_MAX"), "where": ("H_WHERE", "WHERE"),
    "lerp": ("H_OP", "LERP"), "hypot": ("H_OP", "HYPOT"), "xlogy": ("H_OP", "XLOGY"),
    # E (reductions; max/min are special-cased below)
    "sum": ("H_REDUCE", "RSUM"), "nansum": ("H_REDUCE", "RNANSUM"), "mean": ("H_REDUCE", "RMEAN"),
    "prod": ("H_REDUCE", "RPROD"), "amax": ("H_REDUCE", "RAMAX"), "amin": ("H_REDUCE", "RAMIN"),
    "max": ("H_REDUCE", "RAMAX"), "min": ("H_REDUCE", "RAMIN"),
    "argmax": ("H_REDUCE", "RARGMAX"), "argmin": ("H_REDUCE", "RARGMIN"), "cumsum": ("H_REDUCE", "RCUMSUM"),
    "var": ("H_REDUCE", "RVAR"), "std": ("H_REDUCE", "RSTD"), "logsumexp": ("H_REDUCE", "RLOGSUMEXP"),
    "norm": ("H_REDUCE", "RNORM"), "softmax": ("H_REDUCE", "SOFTMAX"), "log_softmax": ("H_REDUCE", "LOG_SOFTMAX"),
    "layer_norm": ("H_REDUCE", "LAYER_NORM"),
    # H1 / H2 / A2 / A3
    "zeros_like": ("H_LIKE", "FULL", 1), "ones_like": ("H_LIKE", "FULL", 2), "full_like": ("H_LIKE", "FULL", 0),
    "empty_like": ("H_LIKE", "FULL", 3), "tensor": ("H_TENSOR", "TENSOR"),
    "ToScalar": ("H_PASS", "CONST"),
    # I
    "to_type": ("H_CAST", "CAST"), "to": ("H_CAST", "CAST"), "type": ("H_CAST", "CAST"), "type_as": ("H_CAST", "CAST"),
    "float": ("H_CAST", "CAST", "F32"), "double": ("H_CAST", "CAST", "F64"), "half": ("H_CAST", "CAST", "F16"),
    "bfloat16": ("H_CAST", "CAST", "BF16"), "long": ("H_CAST", "CAST", "I64"), "int": ("H_CAST", "CAST", "I32"),
    "short": ("H_CAST", "CAST", "I16"), "char": ("H_CAST", "CAST", "I8"), "byte": ("H_CAST", "CAST", "U8"),
    "bool": ("H_CAST", "CAST", "BOOL"),
    "detach": ("H_ID", "CONST"), "alias": ("H_ID", "CONST"), "clone": ("H_ID", "CONST"), "cpu": ("H_ID", "CONST"), "cuda": ("H_ID", "CONST"),
    "get_dtype": ("H_GETDTYPE", "CONST"),
    # G (matrix products; extra = the twin's spelling of MATMUL, or baddbmm for ADDMM) and D (linear)
    "matmul": ("H_MATMUL", "MATMUL", 0), "mm": ("H_MATMUL", "MATMUL", 1), "bmm": ("H_MATMUL", "MATMUL", 2),
    "mv": ("H_MATMUL", "MATMUL", 3), "dot": ("H_MATMUL", "MATMUL", 4),
    "addmm": ("H_MATMUL", "ADDMM", 0), "baddbmm": ("H_MATMUL", "ADDMM", 1), "linear": ("H_MATMUL", "LINEAR"),
}
# Layout, joining, indexing and factories (frontend/layout.c; H_LAYOUT rows get a raw argspec
# of parameter kinds, layout_argspec, and the handler binds them itself).
LAYOUT = {
    "view": "RESHAPE", "reshape": "RESHAPE", "view_as": "RESHAPE", "reshape_as": "RESHAPE", "flatten": "RESHAPE",
    "unflatten": "RESHAPE", "squeeze": "RESHAPE", "unsqueeze": "RESHAPE", "contiguous": "RESHAPE",
    "transpose": "PERMUTE", "swapaxes": "PERMUTE", "swapdims": "PERMUTE", "permute": "PERMUTE", "t": "PERMUTE",
    "get_T": "PERMUTE", "get_mT": "PERMUTE", "movedim": "PERMUTE",
    "expand": "EXPAND", "expand_as": "EXPAND", "broadcast_to": "EXPAND", "repeat": "REPEAT",
    "flip": "FLIP", "roll": "ROLL", "narrow": "SLICE", "slice": "SLICE", "chunk": "SLICE", "split": "SLICE",
    "tensor_split": "SLICE", "select": "SELECT", "unbind": "SELECT", "select_scatter": "SELECT_SCATTER",
    "cat": "CAT", "concat": "CAT", "concatenate": "CAT", "stack": "CAT", "hstack": "CAT", "vstack": "CAT",
    "index_select": "INDEX", "take_along_dim": "GATHER", "gather": "GATHER",
    "masked_fill": "WHERE", "tril": "TRIL", "triu": "TRIL",
    "arange": "ARANGE", "eye": "EYE", "linspace": "LINSPACE", "zeros": "FILL", "ones": "FILL", "full": "FILL", "empty": "FILL",
    # random generators (frontend/random.c)
    "dropout": "RAND", "rand_like": "RAND", "randn_like": "RAND", "rand": "RAND", "randn": "RAND",
    "bernoulli": "BERNOULLI",
    # contractions as products and layout ops (frontend/einsum.c)
    "einsum": "MATMUL", "outer": "MUL", "ger": "MUL",
    # indexing: x.[TensorIndex...], x.index(TensorIndex[]), x.[tensor]; TensorIndex's factories and fields
    "get_TensorItems": "INDEX", "index": "INDEX",
    "Slice": "CONST", "Single": "CONST", "Tensor": "CONST", "Bool": "CONST", "Ellipsis": "CONST", "None": "CONST",
    "Null": "CONST", "Colon": "CONST",
}
TINDEX = "TorchSharp.torch+TensorIndex"
LIST_TYPES = ("TorchSharp.torch+Tensor[]", "System.Collections.Generic.IList`1[TorchSharp.torch+Tensor]",
              "System.Collections.Generic.IEnumerable`1[TorchSharp.torch+Tensor]")


def layout_argspec(kind, params, pnames):
    """Parameter kinds for H_LAYOUT rows: t tensor, T tensor list, a Int64[] or Size, i integer,
    n Nullable<Int64>, s scalar value, d dtype, b bool, f double, x ignored, X must be false,
    G a TorchSharp Generator (must be null: kgen draws from its own), q a string constant."""
    spec = "t" if kind == "instance" else ""
    for i, p in enumerate(params):
        pn = pnames[i] if i < len(pnames) else ""
        if pn in IGNORED_NAMES or p in ("TorchSharp.torch+Device", "System.String[]"):
            spec += "x"
        elif pn in FALSE_NAMES:
            spec += "X"
        elif p == T:
            spec += "t"
        elif p == "TorchSharp.torch+Generator":
            spec += "G"
        elif p == "System.String":
            spec += "q"
        elif p in LIST_TYPES:
            spec += "T"
        elif p == "TorchSharp.torch+TensorIndex[]":
            spec += "I"
        elif p in ("System.Int64[]", "TorchSharp.torch+Size"):
            spec += "a"
        elif p in ("System.Int64", "System.Int32"):
            spec += "i"
        elif p == "System.Nullable`1[System.Int64]":
            spec += "n"
        elif p in ("TorchSharp.Scalar", "System.Single"):
            spec += "s"
        elif p == "System.Double":
            spec += "f"
        elif p == "System.Boolean":
            spec += "b"
        elif p in ("TorchSharp.torch+ScalarType", "System.Nullable`1[TorchSharp.torch+ScalarType]"):
            spec += "d"
        else:
            return None
    return spec
# Convolutions and pad (frontend/conv.c; H_CONV rows get a raw argspec of parameter kinds, like
# H_LAYOUT's, and the handler binds them itself): t tensor, o optional tensor (a bias), a Int64[],
# n Nullable<Int64>, i an integer, e an enum (Padding, PaddingModes), f double.
CONV = {"conv1d", "conv2d", "conv1d_padding", "conv2d_padding", "conv_transpose1d", "conv_transpose2d", "pad"}


def conv_argspec(params, pnames):
    spec = ""
    for i, p in enumerate(params):
        pn = pnames[i] if i < len(pnames) else ""
        if p == T:
            spec += "o" if pn == "bias" else "t"
        elif p == "System.Int64[]":
            spec += "a"
        elif p == "System.Nullable`1[System.Int64]":
            spec += "n"
        elif p in ("System.Int64", "System.Int32"):
            spec += "i"
        elif p in ("TorchSharp.Padding", "TorchSharp.PaddingModes"):
            spec += "e"
        elif p == "System.Double":
            spec += "f"
        else:
            return None
    return spec


DTYPE_FIELDS = {"bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "short": "I16", "int32": "I32",
                "int": "I32", "int64": "I64", "long": "I64", "bfloat16": "BF16", "float16": "F16", "half": "F16",
                "float32": "F32", "float": "F32", "float64": "F64", "double": "F64",
                "complex64": "NONE", "complex128": "NONE", "cfloat": "NONE", "cdouble": "NONE",
                "qint8": "NONE", "quint8": "NONE", "qint32": "NONE"}
PRIM_DTYPE = {"System.Single": "F32", "System.Double": "F64", "System.Int32": "I32", "System.Int64": "I64",
              "System.Boolean": "BOOL", "System.Byte": "U8", "System.SByte": "I8", "System.Int16": "I16"}
SECTIONS = {"A1.", "A2.", "A3.", "A4.", "B.", "C1.", "C2.", "D.", "E.", "F1.", "G.", "H1.", "H2.", "I.", "I2.", "X1.", "X2."}
REDUCE_DIM_NAMES = {"dim", "dims", "params dims", "dim0", "dim1", "dim2", "dimensions", "dimension"}
REDUCE_NAMES = ("sum", "nansum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "cumsum", "var", "std", "logsumexp", "norm", "softmax",
                "log_softmax", "layer_norm")
IGNORED_NAMES = {"device", "names", "non_blocking", "copy", "disposeAfter", "deviceIndex"}
FALSE_NAMES = {"inplace", "requires_grad"}


# Pooling, normalization over channels, resampling and pixel shuffle (issue 12): H_CNN rows,
# bound by frontend/cnn.c from the raw arguments (the argspec says their kinds, for docs).
CNN = {"max_pool1d": "POOL", "max_pool2d": "POOL", "avg_pool1d": "POOL", "avg_pool2d": "POOL",
       "adaptive_avg_pool1d": "POOL", "adaptive_avg_pool2d": "POOL", "adaptive_max_pool1d": "POOL",
       "adaptive_max_pool2d": "POOL", "batch_norm": "BATCH_NORM", "instance_norm": "BATCH_NORM",
       "group_norm": "GROUP_NORM", "interpolate": "UPSAMPLE", "upsample": "UPSAMPLE",
       "upsample_nearest": "UPSAMPLE", "upsample_bilinear": "UPSAMPLE", "pixel_shuffle": "PIXEL_SHUFFLE",
       "pixel_unshuffle": "PIXEL_SHUFFLE"}
CNN_KINDS = {T: "t", "System.Int64": "i", "System.Nullable`1[System.Int64]": "n", "System.Int64[]": "a",
             "System.Double[]": "F", "System.Boolean": "b", "System.Nullable`1[System.Boolean]": "B",
             "System.Double": "f", "TorchSharp.torch+InterpolationMode": "e", "TorchSharp.torch+UpsampleMode": "e",
             # C#'s (h, w) tuples (TorchVision: adaptive_avg_pool2d(x, (1, 1))): frontend/cnn.c reads them as arrays
             "System.ValueTuple`2[System.Int64,System.Int64]": "a",
             "System.Nullable`1[System.ValueTuple`2[System.Int64,System.Int64]]": "a"}


# Loss functions (issue 24): H_LOSS rows, bound by frontend/loss.c from the raw arguments: t a
# tensor, o an optional tensor (weight, pos_weights), e a Reduction, i an integer, f a double, b a
# bool.
LOSS = {"cross_entropy": "CROSS_ENTROPY", "nll_loss": "NLL_LOSS", "mse_loss": "MSE_LOSS", "l1_loss": "L1_LOSS",
        "smooth_l1_loss": "SMOOTH_L1_LOSS", "huber_loss": "HUBER_LOSS", "binary_cross_entropy": "BCE_LOSS",
        "binary_cross_entropy_with_logits": "BCE_LOGITS_LOSS", "kl_div": "KL_DIV"}
LOSS_KINDS = {"TorchSharp.torch+nn+Reduction": "e", "System.Int64": "i", "System.Double": "f", "System.Boolean": "b"}


def loss_argspec(params, pnames):
    spec = ""
    for i, p in enumerate(params):
        pn = pnames[i] if i < len(pnames) else ""
        if p == T:
            spec += "o" if pn in ("weight", "pos_weights") else "t"
        elif p in LOSS_KINDS:
            spec += LOSS_KINDS[p]
        else:
            return None
    return spec


def cnn_argspec(params):
    if any(p not in CNN_KINDS for p in params):
        return None
    return "".join(CNN_KINDS[p] for p in params)


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[": depth += 1
        if ch == "]": depth -= 1
        if ch == "," and depth == 0:
            out.append(cur); cur = ""
        else:
            cur += ch
    if cur: out.append(cur)
    return out


def argspec(name, kind, params, pnames, handler):
    """One char per operand (receiver first for instance methods)."""
    spec = "t" if kind == "instance" else ""
    for i, p in enumerate(params):
        pn = pnames[i] if i < len(pnames) else ""
        if handler == "H_REDUCE" and pn in REDUCE_DIM_NAMES and p in ("System.Int64", "System.Int64[]", "System.Int32"):
            spec += "D"
            continue
        if handler == "H_REDUCE" and pn == "keepdim" and p == "System.Boolean":
            spec += "k"
            continue
        if handler == "H_REDUCE" and pn == "out" and p == T:
            spec += "X"
            continue
        if handler == "H_REDUCE" and pn == "unbiased" and p == "System.Boolean":
            spec += "u"
            continue
        if handler == "H_REDUCE" and pn == "normalized_shape" and p == "System.Int64[]":
            spec += "S"
            continue
        if handler == "H_REDUCE" and pn in ("weight", "bias") and p == T:
            spec += "o"
            continue
        if handler == "H_REDUCE" and pn in ("p", "eps") and p in ("System.Single", "System.Double"):
            spec += "f"
            continue
        if pn in IGNORED_NAMES or p in ("TorchSharp.torch+Device", "System.String[]", "TorchSharp.DeviceType"):
            spec += "x"
        elif pn in FALSE_NAMES:
            spec += "X"
        elif p == T and handler == "H_MATMUL" and pn == "bias":
            spec += "o"  # linear's optional bias
        elif p == T:
            spec += "o" if handler == "H_CLAMP" else "t"
        elif p == "TorchSharp.torch+RoundingMode":
            spec += "r"
        elif p == "TorchSharp.Modules.GELU+Approximate":
            spec += "g"
        elif p in ("TorchSharp.torch+ScalarType", "System.Nullable`1[TorchSharp.torch+ScalarType]"):
            spec += "d"
        elif p == "System.Nullable`1[System.Double]":
            spec += "F"
        elif p == "System.Boolean" and pn in ("nanEqual", "equal_nan"):
            spec += "b"
        elif handler == "H_CLAMP" and p == "TorchSharp.Scalar":
            spec += "p"
        elif handler == "H_ALPHA" and pn == "alpha":
            spec += "s"
        elif p in ("TorchSharp.Scalar",) + tuple(PRIM_DTYPE):
            # Scalars are operands of arithmetic; parameters of activations are attributes.
            attr_ops = ("ELU", "CELU", "LEAKY_RELU", "HARDTANH", "SOFTPLUS", "ROUND", "NAN_TO_NUM", "ISCLOSE", "ADDMM")
            spec += "f" if NAMES[name][1] in attr_ops else "s"
        else:
            return None
    return spec


def main():
    text = "\n".join(open(f, encoding="utf-8").read() for f in sys.argv[1:])
    rows, sec, seen = [], None, set()
    for line in text.splitlines():
        if line.startswith("### "):
            sec = line.split()[1]
            continue
        if not line.startswith("| `"):
            continue
        cols = line.split(" | ")
        m = re.match(r"\| (``?)(.*?)\1$", cols[0].strip() if cols[0].endswith("`") else cols[0].strip())
        raw = cols[0][2:].strip()
        key = raw.strip("`").strip()
        kind = cols[1].strip()
        notes = cols[-1]
        pm = re.search(r"C# params: \(([^)]*)\)", notes)
        pnames = [s.strip() for s in pm.group(1).split(",")] if pm else []
        if pnames and pnames[0] == "this value":
            pnames = pnames[1:]
        km = re.match(r"^([\w.+`\[\]]+?)::(\w+)(?:\((.*)\))?$", key)
        if not km:
            continue
        decl, name, plist = km.group(1), km.group(2), km.group(3)
        params = split_params(plist) if plist else []
        if sec == "I2." and name not in LAYOUT:
            dt = DTYPE_FIELDS.get(name)
            if dt:
                rows.append((key, "H_DTYPE", "CONST", "", dt, 0))
            continue
        if name == "op_Implicit" and decl == TINDEX and params == ["System.Int64"]:
            rows.append((key, "H_LAYOUT", "CONST", "i", "NONE", 0))
            continue
        if name == "op_Implicit":
            if decl == T and len(params) == 1 and params[0] in PRIM_DTYPE:
                rows.append((key, "H_TENSOR", "TENSOR", "s", PRIM_DTYPE[params[0]], 0))
            elif decl == "TorchSharp.Scalar" and params[0] in PRIM_DTYPE:
                rows.append((key, "H_PASS", "CONST", "s", "NONE", 0))
            continue
        if name == "ToScalar":
            if params and params[0] in PRIM_DTYPE:
                rows.append((key, "H_PASS", "CONST", "s", "NONE", 0))
            continue
        if name in CNN and sec in ("D.", "X2.") and decl == "TorchSharp.torch+nn+functional":
            spec = cnn_argspec(params)
            if spec is not None and key not in seen:
                seen.add(key)
                rows.append((key, "H_CNN", CNN[name], spec, "NONE", 0))
            continue
        if name in LOSS and sec == "XL." and decl == "TorchSharp.torch+nn+functional":
            spec = loss_argspec(params, pnames)
            if spec is not None and key not in seen:
                seen.add(key)
                rows.append((key, "H_LOSS", LOSS[name], spec, "NONE", 0))
            continue
        if name == "scaled_dot_product_attention" and decl == "TorchSharp.torch+nn+functional" and key not in seen:
            seen.add(key)  # issue 23: frontend/attention.c binds the raw arguments (query, key, value, mask, p, is_causal)
            rows.append((key, "H_ATTN", "ATTN", "tttofb", "NONE", 0))
            continue
        if name in LAYOUT and sec is not None:
            if decl not in (T, "TorchSharp.torch", "TorchSharp.torch+nn+functional", TINDEX) or key in seen:
                continue
            if (decl == TINDEX) != (LAYOUT[name] == "CONST") or (name == "get_TensorItems" and params and params[0] in ("System.Int64", "System.Int64[]")):
                continue  # x.[i] with integers stays frontend/hostflow.c's (a host index may be a loop variable)
            if decl == T and name in ("zeros", "ones", "full", "empty", "eye", "arange"):
                continue  # instance members that fill or resize the receiver in place
                continue
            if any("ValueTuple" in q or "ReadOnlySpan" in q for q in params):
                continue
            spec = layout_argspec("instance" if kind.startswith("instance") else "static", params, pnames)
            if spec is not None:
                seen.add(key)
                rows.append((key, "H_LAYOUT", LAYOUT[name], spec, "NONE", 0))
            continue
        if name in CONV and decl == "TorchSharp.torch+nn+functional" and sec is not None:
            spec = conv_argspec(params, pnames)
            if spec is not None and key not in seen:
                seen.add(key)
                rows.append((key, "H_CONV", "PAD" if name == "pad" else "CONV", spec, "NONE", 0))
            continue
        if sec not in SECTIONS or name not in NAMES:
            continue
        if decl == T and name in ("zeros", "ones", "full", "empty"):
            continue
        if name == "where" and len(params) == 1 and kind == "static":
            continue  # torch.where(cond) = nonzero: not pointwise
        if name == "type" and params and params[0].startswith("System.Func"):
            continue
        if name == "to" and params and params[0] in ("System.String", "TorchSharp.torch+Device", "TorchSharp.DeviceType"):
            continue  # device moves
        ent = NAMES[name]
        if sec == "E." and name not in REDUCE_NAMES:
            continue
        if sec != "E." and ent[0] == "H_REDUCE" and not (sec == "D." and name in ("softmax", "log_softmax", "layer_norm")):
            continue
        if decl == "TorchSharp.torch+linalg":
            continue
        if any("ValueTuple" in q for q in params):
            continue
        if name in ("max", "min"):
            tensors = [q for q in params if q == T]
            if any(q not in (T,) for q in params):
                ent = ("H_REDUCE", "RAMAX" if name == "max" else "RAMIN", 1)  # (values, indices) of a dim
            if len(tensors) + (1 if kind == "instance" else 0) == 2:
                ent = ("H_OP", "MAXIMUM" if name == "max" else "MINIMUM")
        handler, op = ent[0], ent[1]
        extra = ent[2] if len(ent) > 2 else 0  # H_REDUCE: 1 = also return the indices
        dt = "NONE"
        if isinstance(extra, str):
            dt, extra = extra, 0
        if handler == "H_TENSOR":
            if not params or params[0] not in PRIM_DTYPE or (len(params) > 1 and params[1] in ("System.Single", "System.Double")):
                continue  # complex (real, imaginary) forms
            dt = PRIM_DTYPE[params[0]]
        if kind.startswith("instance property"):
            kind = "instance"
        spec = argspec(name, "instance" if kind == "instance" else "static", params, pnames, handler)
        if spec is None:
            continue
        if decl == "TorchSharp.torch" and name in ("div", "divide") and spec in ("ttr", "tsr"):
            # TorchSharp 0.107's static torch.div / torch.divide drop their rounding_mode
            # (torch.PointwiseOps.cs:594/603, 630/639: `=> left.div(right)`): true division, as
            # the F# code really computes (found by the .NET three-way check)
            handler, spec = "H_OP", spec[:2] + "x"
        rows.append((key, handler, op, spec, dt, extra))
    print("/* frontend/members.def — GENERATED by tools/gen_members.py from")
    print(" * shared/spec/torchsharp-members.md; do not edit by hand.")
    print(" *")
    print(" *   KG_MEMBER(key, handler, op, argspec, dtype, extra)")
    print(" *")
    print(" * key: the exact member key of the spec. argspec: one char per operand, the")
    print(" * receiver first for instance members: t tensor, o optional tensor (null ok),")
    print(" * s scalar operand, p optional scalar, f float attribute (a constant), F nullable")
    print(" * float attribute, b bool attribute, d dtype, r RoundingMode, g GELU approximate,")
    print(" * x ignored (device, names), X must be false (inplace, requires_grad).")
    print(" * Handlers are documented in frontend/members.c. */")
    for key, h, op, spec, dt, extra in rows:
        print(f'KG_MEMBER("{key}", {h}, {op}, "{spec}", {dt}, {extra})')


main()
