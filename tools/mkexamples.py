#!/usr/bin/env python3
"""tools/mkexamples.py -- builds kgen's example suite and its bad-input documents.

  python3 tools/mkexamples.py           write examples/*.json, examples/*.fs, examples/INDEX.md,
                                        tests/bad/*.json, tests/bad/*.fs, tests/bad/INDEX.md
                                        and validate every document (standard library only)
  python3 tools/mkexamples.py --check   also evaluate every example with PyTorch (needs `torch`;
                                        e.g. /usr/bin/python3) and compare with its reference
  python3 tools/mkexamples.py --list    list the examples
  options: --only NAME[,NAME...]  --out DIR (repository root; default: this file's ../)

Each example is written in a small DSL that mirrors the F# the user wrote: Python operators
on nodes become the generic F# operators (`x + y` -> Operators.op_Addition<T1,T2,T3>), method
calls on tensor nodes are resolved against the TorchSharp member tables of
shared/spec/torchsharp-members.md exactly like F# overload resolution would (optional C#
parameters are filled in with their defaults, Scalar / Nullable conversions are inserted),
and a pretty-printer writes the F# source (NAME.fs) from the same tree, so every `loc` points
at the text it came from. Locations are [fileIndex, startLine, startCol, endLine, endCol]
with 1-based lines and 0-based columns, endCol exclusive (F# range conventions).

Python literals: next to a scalar operand they take its type; next to a tensor they take
F#'s default type (float -> System.Double, int -> System.Int32). Use f(0.5) for a float32
literal (0.5f), L(2) for 2L, d(..), i16(..), i8(..), u8(..).
"""
import copy
import json
import math
import os
import random
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ----------------------------------------------------------------------------------------
# CLR type strings
# ----------------------------------------------------------------------------------------
TENSOR = "TorchSharp.torch+Tensor"
SCALAR = "TorchSharp.Scalar"
STYPE = "TorchSharp.torch+ScalarType"
RMODE = "TorchSharp.torch+RoundingMode"
GELU_APPROX = "TorchSharp.Modules.GELU+Approximate"
DEVICE = "TorchSharp.torch+Device"
SINGLE = "System.Single"
DOUBLE = "System.Double"
INT32 = "System.Int32"
INT64 = "System.Int64"
INT16 = "System.Int16"
SBYTE = "System.SByte"
BYTE = "System.Byte"
BOOL = "System.Boolean"
UNIT = "Microsoft.FSharp.Core.Unit"
OPS = "Microsoft.FSharp.Core.Operators"
XOPS = "Microsoft.FSharp.Core.ExtraTopLevelOperators"
KOPS = "Kgen.Ops"
PRIMS = (SINGLE, DOUBLE, INT32, INT64, INT16, SBYTE, BYTE, BOOL)
INTS = {INT32: (32, True), INT64: (64, True), INT16: (16, True), SBYTE: (8, True), BYTE: (8, False)}
FLOATS = (SINGLE, DOUBLE)

FS_TYPE = {SINGLE: "float32", DOUBLE: "float", INT32: "int", INT64: "int64", INT16: "int16",
           SBYTE: "sbyte", BYTE: "byte", BOOL: "bool", TENSOR: "torch.Tensor", UNIT: "unit"}
# PyTorch dtype name <-> .NET scalar type of a scalar parameter / map element
DT_CLR = {"float32": SINGLE, "float64": DOUBLE, "int32": INT32, "int64": INT64, "int16": INT16,
          "int8": SBYTE, "uint8": BYTE, "bool": BOOL}
CLR_DT = {v: k for k, v in DT_CLR.items()}
DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
          "int64", "bool")
SCALARTYPE = {"Byte": 0, "Int8": 1, "Int16": 2, "Int32": 3, "Int64": 4, "Float16": 5,
              "Float32": 6, "Float64": 7, "ComplexFloat32": 9, "ComplexFloat64": 10, "Bool": 11,
              "QInt8": 12, "QUInt8": 13, "QInt32": 14, "BFloat16": 15}
DTYPE_FIELDS = {"bool": "Bool", "uint8": "Byte", "int8": "Int8", "int16": "Int16", "short": "Int16",
                "int32": "Int32", "int": "Int32", "int64": "Int64", "long": "Int64",
                "bfloat16": "BFloat16", "float16": "Float16", "half": "Float16",
                "float32": "Float32", "float": "Float32", "float64": "Float64",
                "double": "Float64", "complex64": "ComplexFloat32", "cfloat": "ComplexFloat32",
                "complex128": "ComplexFloat64", "cdouble": "ComplexFloat64"}
ENUMS = {RMODE: {"None": 0, "trunc": 1, "floor": 2}, GELU_APPROX: {"none": 0, "tanh": 1},
         STYPE: SCALARTYPE}


def func_t(a, b):
    return "Microsoft.FSharp.Core.FSharpFunc`2[%s,%s]" % (a, b)


def tuple_t(ts):
    return "System.Tuple`%d[%s]" % (len(ts), ",".join(ts))


def nullable_t(t):
    return "System.Nullable`1[%s]" % t


def split_top(s):
    """Splits 'a,b[c,d],e' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def generic_args(t):
    """'X`2[A,B]' -> ('X`2', ['A','B']); non-generic -> (t, [])."""
    m = re.match(r"^([^\[]+`\d+)\[(.*)\]$", t)
    if not m:
        return t, []
    return m.group(1), split_top(m.group(2))


def fn_parts(t):
    base, args = generic_args(t)
    if base != "Microsoft.FSharp.Core.FSharpFunc`2":
        return None
    return args[0], args[1]


def tuple_items(t):
    base, args = generic_args(t)
    if not base.startswith("System.Tuple`"):
        return None
    return args


def f32_round(v):
    if v != v or v in (float("inf"), float("-inf")):
        return v
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def f32_shortest(v):
    """The shortest decimal that reads back as the same single (the serializer's spelling)."""
    fv = f32_round(v)
    if fv != fv or fv in (float("inf"), float("-inf")) or fv == 0:
        return fv
    for p in range(1, 18):
        c = float("%.*g" % (p, fv))
        if f32_round(c) == fv:
            return c
    return fv


# ----------------------------------------------------------------------------------------
# The member tables of shared/spec/torchsharp-members.md
# ----------------------------------------------------------------------------------------
def find_spec():
    for p in (os.environ.get("KGEN_SPEC"),
              os.path.join(ROOT, "shared", "spec", "torchsharp-members.md"),
              "/work/shared/spec/torchsharp-members.md"):
        if p and os.path.exists(p):
            return p
    sys.exit("mkexamples: cannot find torchsharp-members.md (set KGEN_SPEC)")


class Row:
    pass


class Spec:
    def __init__(self, path):
        self.rows = {}          # key -> [Row] (op_Explicit rows share a key)
        self.by_name = {}       # (decl, name, static) -> [Row]
        self.jnames = set()     # (decl, name) named in section J / J2 / J3
        section = ""
        for line in open(path, encoding="utf-8"):
            if line.startswith("#"):
                m = re.match(r"^#+\s*([A-Z]\d?)\.", line)
                section = m.group(1) if m else ("J" if line.startswith("## J.") else section)
                if line.startswith("## K") or line.startswith("## L"):
                    section = "K"
                continue
            if not line.startswith("| `") or section == "K":
                continue
            if section in ("J", "J2", "J3"):
                self._jrow(line, section)
                continue
            cols = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if len(cols) < 5:
                continue
            key = cols[0].strip("` ").strip()
            r = Row()
            r.key, r.section = key, section
            r.kindcol = cols[1]
            r.ret = cols[2].strip("` ")
            r.defaults = {}
            if cols[3] not in ("—", "-", ""):
                for part in split_top(cols[3].replace(", ", ",")):
                    if "=" in part:
                        k, v = part.split("=", 1)
                        r.defaults[k.strip()] = v.strip()
            m = re.search(r"C# params: \(([^)]*)\)", cols[4])
            r.cparams = [p.strip().replace("params ", "").replace("this ", "")
                         for p in m.group(1).split(",")] if m else []
            m = re.match(r"^(.+?)::([^(]+)(?:\((.*)\))?$", key)
            if not m:
                continue
            r.decl, r.name = m.group(1), m.group(2)
            r.params = split_top(m.group(3)) if m.group(3) else []
            r.static = r.kindcol.startswith("static")
            r.is_field = "field" in r.kindcol
            r.is_property = "property" in r.kindcol
            self.rows.setdefault(key, []).append(r)
            if not r.is_field and not r.is_property:
                self.by_name.setdefault((r.decl, r.name, r.static), []).append(r)
        for k in list(self.rows):
            # the same key appears in several tables (neg in A4 and C1, ...): keep one
            seen, uniq = set(), []
            for r in self.rows[k]:
                sig = (r.ret, r.static)
                if sig not in seen:
                    seen.add(sig)
                    uniq.append(r)
            self.rows[k] = uniq
        for k in list(self.by_name):
            seen, uniq = set(), []
            for r in self.by_name[k]:
                if (r.key, r.ret) not in seen:
                    seen.add((r.key, r.ret))
                    uniq.append(r)
            self.by_name[k] = uniq

    def _jrow(self, line, section):
        first = re.split(r"(?<!\\)\|", line)[1:-1]
        spans = []
        for c in first[:2]:
            spans += re.findall(r"`([^`]+)`", c)
        decl = {"J": OPS, "J2": "System.Math", "J3": "System.MathF"}[section]
        for s in spans:
            s = s.replace("\\|", "|")
            m = re.match(r"^(…|\.\.\.)?([\w.+]*?)::([\w/]+)", s)
            if m:
                d = m.group(2)
                if d == "" and not m.group(1):
                    d = decl
                elif not d.startswith("Microsoft") and not d.startswith("System"):
                    d = OPS
                decl = d
                for nm in m.group(3).split("/"):
                    self.jnames.add((decl, nm))
                continue
            m = re.match(r"^([A-Za-z_]\w*)(\(.*\))?$", s)
            if m:
                self.jnames.add((decl, m.group(1)))

    def lookup(self, key, ret=None):
        rows = self.rows.get(key)
        if not rows:
            return None
        if ret is not None:
            for r in rows:
                if r.ret == ret:
                    return r
        return rows[0]


SPEC = None


def spec():
    global SPEC
    if SPEC is None:
        SPEC = Spec(find_spec())
    return SPEC


# ----------------------------------------------------------------------------------------
# Nodes
# ----------------------------------------------------------------------------------------
FIELD_ORDER = {
    "Var": ["var"], "Value": ["value"], "ValueWithName": ["value", "name"],
    "Lambda": ["var", "body"], "Application": ["func", "arg"], "Let": ["var", "value", "body"],
    "IfThenElse": ["cond", "then", "else"],
    "ForIntegerRangeLoop": ["var", "start", "end", "body"], "WhileLoop": ["cond", "body"],
    "Sequential": ["first", "second"], "VarSet": ["var", "value"],
    "Call": ["obj", "method", "args"], "PropertyGet": ["obj", "property", "args"],
    "FieldGet": ["obj", "field"], "NewTuple": ["items"], "TupleGet": ["tuple", "index"],
    "NewArray": ["elemType", "items"], "NewObject": ["ctor", "args"], "Coerce": ["expr"],
    "DefaultValue": [],
}


class DocState:
    """The document being built: its vars table and definitions."""

    def __init__(self, module, nullable_style):
        self.vars = []
        self.defs = []          # (member, lambda node, fsname, tupled)
        self.module = module
        self.nullable_style = nullable_style   # "DefaultValue" or "Value"
        self.uses = set()       # "map", "math", "modules"


DOC = None


class N:
    """A quotation node. Python operators build F# operator calls."""

    def __init__(self, k, ty, fields, pr=None):
        d = self.__dict__
        d["_k"], d["_ty"], d["_pr"], d["_loc"], d["_used"] = k, ty, dict(pr or {}), None, False
        d["_f"] = {}
        for name, v in fields.items():
            self._f[name] = own(v)

    # -- tensor / scalar operators (F# generic operators) --
    def __add__(self, o): return binop("op_Addition", self, o)
    def __radd__(self, o): return binop("op_Addition", o, self)
    def __sub__(self, o): return binop("op_Subtraction", self, o)
    def __rsub__(self, o): return binop("op_Subtraction", o, self)
    def __mul__(self, o): return binop("op_Multiply", self, o)
    def __rmul__(self, o): return binop("op_Multiply", o, self)
    def __truediv__(self, o): return binop("op_Division", self, o)
    def __rtruediv__(self, o): return binop("op_Division", o, self)
    def __mod__(self, o): return binop("op_Modulus", self, o)
    def __rmod__(self, o): return binop("op_Modulus", o, self)
    def __and__(self, o): return bitop("op_BitwiseAnd", self, o)
    def __rand__(self, o): return bitop("op_BitwiseAnd", o, self)
    def __or__(self, o): return bitop("op_BitwiseOr", self, o)
    def __ror__(self, o): return bitop("op_BitwiseOr", o, self)
    def __xor__(self, o): return bitop("op_ExclusiveOr", self, o)
    def __rxor__(self, o): return bitop("op_ExclusiveOr", o, self)
    def __lshift__(self, o): return shiftop("op_LeftShift", self, o)
    def __rshift__(self, o): return shiftop("op_RightShift", self, o)
    def __pow__(self, o): return powop(self, o)
    def __neg__(self): return unop("op_UnaryNegation", self)
    def __pos__(self): return unop("op_UnaryPlus", self)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "ToScalar":
            return lambda: to_scalar(self)
        if name == "set":
            return lambda v: varset(self, v)
        if self._ty != TENSOR:
            raise AttributeError("%s on a %s node" % (name, self._ty))
        if name in PROPS:
            return prop_get(self, name)
        return lambda *a, **kw: call_member(TENSOR, name, False, self, a, kw)

    def __setattr__(self, k, v):
        raise AttributeError("nodes are immutable")

    def _children(self):
        for v in self._f.values():
            if isinstance(v, N):
                yield v
            elif isinstance(v, list):
                for x in v:
                    if isinstance(x, N):
                        yield x

    def _clone(self):
        n = N.__new__(N)
        d = n.__dict__
        d["_k"], d["_ty"], d["_pr"], d["_loc"], d["_used"] = self._k, self._ty, dict(self._pr), None, False
        d["_f"] = {}
        for name, v in self._f.items():
            if isinstance(v, N):
                c = v._clone()
                c.__dict__["_used"] = True
                d["_f"][name] = c
            elif isinstance(v, list):
                lst = []
                for x in v:
                    if isinstance(x, N):
                        x = x._clone()
                        x.__dict__["_used"] = True
                    lst.append(x)
                d["_f"][name] = lst
            else:
                d["_f"][name] = copy.deepcopy(v)
        return n


def own(v):
    """Attaches a child; a node already in the tree is copied (F# text written twice)."""
    if isinstance(v, N):
        if v._used:
            v = v._clone()
        v.__dict__["_used"] = True
        return v
    if isinstance(v, list):
        return [own(x) for x in v]
    return v


def mk_member(decl, name, params, ret, static=True, gargs=()):
    return {"decl": decl, "name": name, "static": static, "params": list(params), "ret": ret,
            "genericArgs": list(gargs)}


class Var:
    def __init__(self, name, ty, mutable=False):
        self.name, self.ty, self.mutable = name, ty, mutable
        self.index = len(DOC.vars)
        DOC.vars.append(self)


def var_node(v):
    return N("Var", v.ty, {"var": v.index}, {"varobj": v})


def value(v, ty, pr=None):
    if ty == SINGLE and isinstance(v, (int, float)):
        v = f32_shortest(float(v))
    elif ty == DOUBLE and isinstance(v, (int, float)):
        v = float(v)
    elif ty in INTS and isinstance(v, bool):
        raise TypeError("bool literal for " + ty)
    return N("Value", ty, {"value": v}, pr)


def f(v): return value(v, SINGLE)
def d(v): return value(v, DOUBLE)
def i32(v): return value(v, INT32)
def L(v): return value(v, INT64)
def i16(v): return value(v, INT16)
def i8(v): return value(v, SBYTE)
def u8(v): return value(v, BYTE)
def b(v): return value(bool(v), BOOL)


def unit():
    return value(None, UNIT, {"implicit": True})


def enum(ty, name):
    return value({"enum": ENUMS[ty][name], "name": name}, ty)


def lit(x, partner_ty=None):
    """A Python literal as F# would type it next to an operand of type partner_ty."""
    if isinstance(x, N):
        return x
    if partner_ty in PRIMS:
        if partner_ty == BOOL or isinstance(x, bool):
            return value(bool(x), BOOL)
        return value(x, partner_ty)
    if isinstance(x, bool):
        return value(x, BOOL)
    if isinstance(x, int):
        return value(x, INT32)
    if isinstance(x, float):
        return value(x, DOUBLE)
    raise TypeError("not a literal: %r" % (x,))


def ty_of(x):
    return x._ty if isinstance(x, N) else None


# -- F# operators ------------------------------------------------------------------------
INFIX = {"op_Addition": ("+", 5), "op_Subtraction": ("-", 5), "op_Multiply": ("*", 6),
         "op_Division": ("/", 6), "op_Modulus": ("%", 6), "op_BitwiseAnd": ("&&&", 3),
         "op_BitwiseOr": ("|||", 3), "op_ExclusiveOr": ("^^^", 4), "op_LeftShift": ("<<<", 3),
         "op_RightShift": (">>>", 3), "op_Equality": ("=", 3), "op_Inequality": ("<>", 3),
         "op_LessThan": ("<", 3), "op_LessThanOrEqual": ("<=", 3), "op_GreaterThan": (">", 3),
         "op_GreaterThanOrEqual": (">=", 3), "op_Exponentiation": ("**", 7)}
RIGHT_ASSOC = {"op_ExclusiveOr", "op_Exponentiation"}


def binop(name, a, b_):
    a = lit(a, ty_of(b_))
    b_ = lit(b_, a._ty)
    if TENSOR in (a._ty, b_._ty):
        ret = TENSOR
    else:
        if a._ty != b_._ty:
            raise TypeError("%s: %s vs %s (F# needs equal types)" % (name, a._ty, b_._ty))
        ret = a._ty
    m = mk_member(OPS, name, [a._ty, b_._ty], ret, True, [a._ty, b_._ty, ret])
    return N("Call", ret, {"obj": None, "method": m, "args": [a, b_]}, {"kind": "infix"})


def bitop(name, a, b_):
    a = lit(a, ty_of(b_))
    b_ = lit(b_, a._ty)
    if a._ty != b_._ty:
        raise TypeError("%s: %s vs %s" % (name, a._ty, b_._ty))
    m = mk_member(OPS, name, [a._ty, b_._ty], a._ty, True, [a._ty])
    return N("Call", a._ty, {"obj": None, "method": m, "args": [a, b_]}, {"kind": "infix"})


def shiftop(name, a, n):
    n = lit(n, INT32)
    m = mk_member(OPS, name, [a._ty, INT32], a._ty, True, [a._ty])
    return N("Call", a._ty, {"obj": None, "method": m, "args": [a, n]}, {"kind": "infix"})


def powop(a, b_):
    a = lit(a, ty_of(b_))
    b_ = lit(b_, a._ty)
    m = mk_member(OPS, "op_Exponentiation", [a._ty, b_._ty], a._ty, True, [a._ty, b_._ty])
    return N("Call", a._ty, {"obj": None, "method": m, "args": [a, b_]}, {"kind": "infix"})


def unop(name, a):
    m = mk_member(OPS, name, [a._ty], a._ty, True, [a._ty])
    return N("Call", a._ty, {"obj": None, "method": m, "args": [a]}, {"kind": "prefix"})


def cmp(name, a, b_):
    a = lit(a, ty_of(b_))
    b_ = lit(b_, a._ty)
    if a._ty != b_._ty:
        raise TypeError("%s: %s vs %s" % (name, a._ty, b_._ty))
    m = mk_member(OPS, name, [a._ty, b_._ty], BOOL, True, [a._ty])
    return N("Call", BOOL, {"obj": None, "method": m, "args": [a, b_]}, {"kind": "infix"})


def gt(a, b_): return cmp("op_GreaterThan", a, b_)
def ge(a, b_): return cmp("op_GreaterThanOrEqual", a, b_)
def lt(a, b_): return cmp("op_LessThan", a, b_)
def le(a, b_): return cmp("op_LessThanOrEqual", a, b_)
def eq(a, b_): return cmp("op_Equality", a, b_)
def ne(a, b_): return cmp("op_Inequality", a, b_)


# F# functions of the Operators module: name -> (F# spelling, number of generic args, ret rule)
FS_FUNS = {"Abs": ("abs", 1, "same"), "Exp": ("exp", 1, "same"), "Log": ("log", 1, "same"),
           "Log10": ("log10", 1, "same"), "Sqrt": ("sqrt", 2, "same"), "Sin": ("sin", 1, "same"),
           "Cos": ("cos", 1, "same"), "Tan": ("tan", 1, "same"), "Asin": ("asin", 1, "same"),
           "Acos": ("acos", 1, "same"), "Atan": ("atan", 1, "same"), "Sinh": ("sinh", 1, "same"),
           "Cosh": ("cosh", 1, "same"), "Tanh": ("tanh", 1, "same"), "Floor": ("floor", 1, "same"),
           "Ceiling": ("ceil", 1, "same"), "Round": ("round", 1, "same"),
           "Truncate": ("truncate", 1, "same"), "Sign": ("sign", 1, INT32),
           "Max": ("max", 1, "same"), "Min": ("min", 1, "same"),
           "PowInteger": ("pown", 1, "same"), "Atan2": ("atan2", 2, "same"),
           "ToSingle": ("float32", 1, SINGLE), "ToDouble": ("float", 1, DOUBLE),
           "ToInt32": ("int", 1, INT32), "ToInt64": ("int64", 1, INT64),
           "ToInt16": ("int16", 1, INT16), "ToSByte": ("sbyte", 1, SBYTE),
           "ToByte": ("byte", 1, BYTE), "Not": ("not", 0, BOOL)}


def fsfun(name, *args):
    spelling, ng, rr = FS_FUNS[name]
    args = [lit(a, SINGLE if i == 0 else INT32) if not isinstance(a, N) else a
            for i, a in enumerate(args)]
    if name == "Atan2":
        args[1] = lit(args[1], args[0]._ty)
    t0 = args[0]._ty
    ret = t0 if rr == "same" else rr
    gargs = {0: [], 1: [t0], 2: [t0, ret]}[ng]
    m = mk_member(OPS, name, [a._ty for a in args], ret, True, gargs)
    return N("Call", ret, {"obj": None, "method": m, "args": list(args)},
             {"kind": "fnapp", "name": spelling})


def abs_(x): return fsfun("Abs", x)
def exp_(x): return fsfun("Exp", x)
def log_(x): return fsfun("Log", x)
def sqrt_(x): return fsfun("Sqrt", x)
def sin_(x): return fsfun("Sin", x)
def cos_(x): return fsfun("Cos", x)
def tanh_(x): return fsfun("Tanh", x)
def floor_(x): return fsfun("Floor", x)
def ceil_(x): return fsfun("Ceiling", x)
def round_(x): return fsfun("Round", x)
def truncate_(x): return fsfun("Truncate", x)
def sign_(x): return fsfun("Sign", x)
def max_(a, b_): return fsfun("Max", a, lit(b_, ty_of(a)))
def min_(a, b_): return fsfun("Min", a, lit(b_, ty_of(a)))
def pown_(a, n): return fsfun("PowInteger", a, lit(n, INT32))
def atan2_(a, b_): return fsfun("Atan2", a, b_)
def float32_(x): return fsfun("ToSingle", x)
def float_(x): return fsfun("ToDouble", x)
def int_(x): return fsfun("ToInt32", x)
def int64_(x): return fsfun("ToInt64", x)
def not_(x): return fsfun("Not", x)


class _MathNS:
    """System.Math / System.MathF static calls (J2 / J3)."""

    def __init__(self, decl):
        self.decl = decl

    def __getattr__(self, name):
        def mk(*args):
            DOC.uses.add("system")
            kind = SINGLE if self.decl == "System.MathF" else DOUBLE
            args = [lit(a, kind) for a in args]
            ret = INT32 if name == "Sign" else (args[0]._ty if name in ("Abs", "Max", "Min", "Clamp") else kind)
            m = mk_member(self.decl, name, [a._ty for a in args], ret, True)
            return N("Call", ret, {"obj": None, "method": m, "args": args},
                     {"kind": "static", "path": self.decl.split(".")[-1]})
        return mk


MathF = _MathNS("System.MathF")
Math = _MathNS("System.Math")


# -- TorchSharp members, resolved like F# overload resolution ------------------------------
PROPS = {"dtype": "TorchSharp.torch+ScalarType", "shape": "System.Int64[]"}


def prop_get(obj, name):
    m = mk_member(TENSOR, name, [], PROPS[name], False)
    return N("PropertyGet", PROPS[name], {"obj": obj, "property": m, "args": []},
             {"kind": "prop"})


def scalar_implicit(node):
    m = mk_member(SCALAR, "op_Implicit", [node._ty], SCALAR, True)
    return N("Call", SCALAR, {"obj": None, "method": m, "args": [node]}, {"kind": "hidden"})


def to_scalar(node):
    m = mk_member("TorchSharp.ScalarExtensionMethods", "ToScalar", [node._ty], SCALAR, True)
    return N("Call", SCALAR, {"obj": None, "method": m, "args": [node]},
             {"kind": "ext", "name": "ToScalar"})


def nullable_new(node):
    t = nullable_t(node._ty)
    m = {"decl": t, "name": ".ctor", "static": False, "params": [node._ty], "ret": t,
         "genericArgs": []}
    return N("NewObject", t, {"ctor": m, "args": [node]}, {"kind": "hidden"})


def tensor_implicit(node):
    m = mk_member(TENSOR, "op_Implicit", [node._ty], TENSOR, True)
    return N("Call", TENSOR, {"obj": None, "method": m, "args": [node]}, {"kind": "hidden"})


def default_node(lit_s, pty):
    pr = {"default": True}
    if lit_s == "null":
        if pty.startswith("System.Nullable`1["):
            if DOC.nullable_style == "DefaultValue":
                return N("DefaultValue", pty, {}, pr)
            return value(None, pty, pr)
        return value(None, pty, pr)
    if lit_s in ("false", "true"):
        return value(lit_s == "true", BOOL, pr)
    m = re.match(r"^(RoundingMode)\.(\w+)$", lit_s)
    if m:
        return value({"enum": ENUMS[RMODE][m.group(2)], "name": m.group(2)}, RMODE, pr)
    s = lit_s.rstrip("LdfD")
    if pty in (DOUBLE, SINGLE):
        return value(float(s), pty, pr)
    if pty in INTS:
        return value(int(s), pty, pr)
    raise ValueError("default %r for %s" % (lit_s, pty))


class Ambiguous(Exception):
    pass


def convert(arg, pty):
    """(node, cost) for passing arg where pty is expected, or None."""
    if not isinstance(arg, N):
        if pty in PRIMS:
            return lit(arg, pty), 0
        base = lit(arg)
        if pty == SCALAR:
            return scalar_implicit(base), 1
        if pty == nullable_t(base._ty):
            return nullable_new(base), 1
        if pty == TENSOR:
            return tensor_implicit(base), 1
        return None
    if arg._ty == pty:
        return arg, 0
    if pty == SCALAR and arg._ty in PRIMS:
        return scalar_implicit(arg), 1
    if pty == nullable_t(arg._ty):
        return nullable_new(arg), 1
    if pty == TENSOR and arg._ty in PRIMS:
        return tensor_implicit(arg), 1
    return None


def try_overload(r, args, kwargs):
    n = len(r.params)
    if len(args) > n:
        return None
    final = list(args) + [None] * (n - len(args))
    named = {}
    for k, v in kwargs.items():
        if k not in r.cparams:
            return None
        idx = r.cparams.index(k)
        if idx < len(args) or idx >= n:
            return None
        final[idx] = v
        named[idx] = k
    cost, nodes, ndef = 0, [], 0
    for i, a in enumerate(final):
        if a is None:
            cname = r.cparams[i] if i < len(r.cparams) else None
            if cname not in r.defaults:
                return None
            nodes.append((default_node, r.defaults[cname], r.params[i]))
            ndef += 1
            continue
        c = convert(a, r.params[i])
        if c is None:
            return None
        node, k = c
        if i in named:
            node.__dict__["_pr"]["argname"] = named[i]
        cost += k
        nodes.append(node)
    return cost, ndef, nodes


def call_member(decl, name, static, obj, args, kwargs, path=None):
    rows = spec().by_name.get((decl, name, static), [])
    cands = []
    for r in rows:
        if any("ReadOnlySpan" in p for p in r.params):
            continue
        t = try_overload(r, args, kwargs)
        if t is not None:
            cands.append((t[0], t[1], r, t[2]))
    if not cands:
        raise TypeError("no overload of %s::%s(%s) for %r %r" % (
            decl, name, "static" if static else "instance",
            [ty_of(a) or a for a in args], kwargs))
    cands.sort(key=lambda c: (c[0], c[1]))
    best = [c for c in cands if c[:2] == cands[0][:2]]
    if len(best) > 1:
        raise Ambiguous("%s::%s: ambiguous between %s" % (decl, name, [c[2].key for c in best]))
    _, _, r, nodes = best[0]
    argn = []
    for i, x in enumerate(nodes):
        if isinstance(x, tuple):
            x = x[0](x[1], x[2])
        argn.append(x)
    m = mk_member(r.decl, r.name, r.params, r.ret, r.static)
    pr = {"kind": "method"} if not static else {"kind": "static", "path": path}
    return N("Call", r.ret, {"obj": obj, "method": m, "args": argn}, pr)


class _NS:
    def __init__(self, decl, path):
        self.decl, self.path = decl, path

    def __getattr__(self, name):
        if self.decl == "TorchSharp.torch":
            if name in DTYPE_FIELDS:
                m = {"decl": "TorchSharp.torch", "name": name, "static": True, "params": [],
                     "ret": STYPE, "genericArgs": []}
                return N("FieldGet", STYPE, {"obj": None, "field": m}, {"kind": "field"})
            if name == "nn":
                return _NS("TorchSharp.torch+nn", "torch.nn")
            if name == "special":
                return _NS("TorchSharp.torch+special", "torch.special")
            if name == "ScalarType":
                return _EnumNS(STYPE, "torch.ScalarType")
            if name == "RoundingMode":
                return _EnumNS(RMODE, "torch.RoundingMode")
        if self.decl == "TorchSharp.torch+nn" and name == "functional":
            return _NS("TorchSharp.torch+nn+functional", "torch.nn.functional")
        return lambda *a, **kw: call_member(self.decl, name, True, None, a, kw, self.path)


class _EnumNS:
    def __init__(self, ty, path):
        self.ty, self.path = ty, path

    def __getattr__(self, name):
        if self.ty == GELU_APPROX:
            DOC.uses.add("modules")
        return enum(self.ty, name)


torch = _NS("TorchSharp.torch", "torch")


class _GELU:
    Approximate = None


GELU = _GELU()
GELU.Approximate = _EnumNS(GELU_APPROX, "GELU.Approximate")


# -- kgen's map ------------------------------------------------------------------------
class _Ops:
    def _mk(self, name, fn, tensors):
        DOC.uses.add("map")
        tys, t = [], fn._ty
        for _ in tensors:
            a, t = fn_parts(t)
            tys.append(a)
        gargs = tys + [t]
        m = mk_member(KOPS, name, [fn._ty] + [TENSOR] * len(tensors), TENSOR, True, gargs)
        return N("Call", TENSOR, {"obj": None, "method": m, "args": [fn] + list(tensors)},
                 {"kind": "fnapp", "name": "Ops." + name})

    def map(self, fn, x): return self._mk("map", fn, [x])
    def map2(self, fn, x, y): return self._mk("map2", fn, [x, y])
    def map3(self, fn, x, y, z): return self._mk("map3", fn, [x, y, z])


Ops = _Ops()


# -- binding constructs --------------------------------------------------------------------
def fun(params, body_fn):
    """fun (a: A) (b: B) -> body; params = [(name, clr type)] (or one pair)."""
    if isinstance(params, tuple):
        params = [params]
    vs = [Var(n, t) for n, t in params]
    body = lit(body_fn(*[var_node(v) for v in vs]))
    for v in reversed(vs):
        body = N("Lambda", func_t(v.ty, body._ty), {"var": v.index, "body": body},
                 {"kind": "lambda", "varobj": v})
    return body


def let_(name, val, body_fn, mutable=False):
    val = lit(val)
    v = Var(name, val._ty, mutable)
    body = lit(body_fn(var_node(v)), None)
    return N("Let", body._ty, {"var": v.index, "value": val, "body": body}, {"varobj": v})


def letm(name, val, body_fn):
    return let_(name, val, body_fn, mutable=True)


def app(fnode, arg):
    a, r = fn_parts(fnode._ty)
    arg = lit(arg, a)
    return N("Application", r, {"func": fnode, "arg": arg}, {})


def varset(vnode, val):
    v = vnode._pr["varobj"]
    val = lit(val, v.ty)
    return N("VarSet", UNIT, {"var": v.index, "value": val}, {"varobj": v})


def seq(*items):
    items = list(items)
    node = items[-1]
    for first in reversed(items[:-1]):
        node = N("Sequential", node._ty, {"first": first, "second": node}, {})
    return node


def if_(c, t, e=None):
    t = lit(t)
    e = unit() if e is None else lit(e, t._ty)
    t = lit(t, e._ty)
    return N("IfThenElse", t._ty, {"cond": c, "then": t, "else": e}, {})


def and_(a, b_):
    return N("IfThenElse", BOOL, {"cond": a, "then": b_, "else": value(False, BOOL, {"implicit": True})},
             {"kind": "and"})


def or_(a, b_):
    return N("IfThenElse", BOOL, {"cond": a, "then": value(True, BOOL, {"implicit": True}), "else": b_},
             {"kind": "or"})


def for_(name, start, end, body_fn):
    v = Var(name, INT32)
    body = body_fn(var_node(v))
    return N("ForIntegerRangeLoop", UNIT,
             {"var": v.index, "start": lit(start, INT32), "end": lit(end, INT32), "body": body},
             {"varobj": v})


def while_(c, body):
    return N("WhileLoop", UNIT, {"cond": c, "body": body}, {})


def tuple_(*items):
    items = [lit(x) for x in items]
    return N("NewTuple", tuple_t([x._ty for x in items]), {"items": items}, {})


def capture(name):
    return N("ValueWithName", TENSOR, {"value": {"opaque": True}, "name": name}, {"kind": "capture"})


def defn(fsname, params, body_fn, tupled=False):
    """A [<ReflectedDefinition>] module function; returns a function that builds calls to it."""
    if tupled:
        vs = [Var(n, t) for n, t in params]
        body = lit(body_fn(*[var_node(v) for v in vs]))
        tv = Var("tupledArg", tuple_t([t for _, t in params]))
        for idx in reversed(range(len(vs))):
            tg = N("TupleGet", vs[idx].ty, {"tuple": var_node(tv), "index": idx}, {"kind": "hidden"})
            body = N("Let", body._ty, {"var": vs[idx].index, "value": tg, "body": body},
                     {"varobj": vs[idx], "kind": "tuplelet"})
        lam = N("Lambda", func_t(tv.ty, body._ty), {"var": tv.index, "body": body},
                {"kind": "lambda", "varobj": tv, "tupled": [v for v in vs]})
        ret = body._ty
    else:
        lam = fun(params, body_fn)
        t, ret = lam._ty, None
        for _ in params:
            _, t = fn_parts(t)
        ret = t
    m = mk_member(DOC.module, fsname, [t for _, t in params], ret, True)
    DOC.defs.append((m, lam, fsname, tupled))

    def call(*args):
        args = [lit(a, t) for a, (_, t) in zip(args, params)]
        return N("Call", ret, {"obj": None, "method": copy.deepcopy(m), "args": args},
                 {"kind": "tupledapp" if tupled else "fnapp", "name": fsname})
    return call
