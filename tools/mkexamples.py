#!/usr/bin/env python3
"""tools/mkexamples.py -- builds kgen's example suite and its bad-input documents.

  python3 tools/mkexamples.py           write examples/INDEX.md, tests/bad/*.json, tests/bad/*.fs,
                                        tests/bad/INDEX.md and validate every document
                                        (standard library only)

The examples themselves are real F# now: examples/*.fs are compiled by the F# compiler
(dotnet/Examples) and examples/*.json are what the real serializer writes for them
(tools/regen-examples). This script no longer writes either; it keeps the example list
(INDEX.md, `--check` of its PyTorch references, `--list`) and generates the bad-input
documents of tests/bad, which F# cannot produce (malformed or contract-breaking JSON).
  python3 tools/mkexamples.py --check   also evaluate every example with PyTorch (needs `torch`;
                                        e.g. /usr/bin/python3) and compare with its reference
  python3 tools/mkexamples.py --list    list the examples
  options: --only NAME[,NAME...]  (shell patterns allowed: --only 'red_*')
           --out DIR (repository root; default: this file's ../)

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
import fnmatch
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
    if not base.startswith("System.Tuple`") and not base.startswith("System.ValueTuple`"):
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
        base = lit(arg)          # an F# literal has its own type (2.0 is a double)
        if base._ty == pty:
            return base, 0
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


def let_struct(names, val, body_fn):
    """let struct (a, b) = val in body: F# binds the struct tuple to patternInput and
    takes its items with TupleGet (the TupleGets are printed as part of the pattern)"""
    val = lit(val)
    items = generic_args(val._ty)[1]
    vs = [Var(n, t) for n, t in zip(names, items)]
    body = lit(body_fn(*[var_node(v) for v in vs]), None)
    tv = Var("patternInput", val._ty)
    for idx in reversed(range(len(vs))):
        tg = N("TupleGet", vs[idx].ty, {"tuple": var_node(tv), "index": idx}, {"kind": "hidden"})
        body = N("Let", body._ty, {"var": vs[idx].index, "value": tg, "body": body},
                 {"varobj": vs[idx], "kind": "tuplelet"})
    return N("Let", body._ty, {"var": tv.index, "value": val, "body": body},
             {"varobj": tv, "kind": "structlet", "names": [v.name for v in vs]})


def let_tuple(names, val, body_fn):
    """let (a, b) = val in body (a reference tuple: F# binds patternInput, then TupleGets)"""
    node = let_struct(names, val, body_fn)
    node.__dict__["_pr"]["kind"] = "tuplepat"
    return node


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


IFUNS = "Microsoft.FSharp.Core.LanguagePrimitives+IntrinsicFunctions"


def item(x, ty):
    """x.item<ty>(): a generic method (the key has no parameters; genericArgs = [ty])"""
    m = mk_member(TENSOR, "item", [], ty, False, gargs=[ty])
    return N("Call", ty, {"obj": x, "method": m, "args": []}, {"kind": "generic", "targ": FS_TYPE[ty]})


def get_array(arr, i):
    """arr.[i] on a .NET array (e.g. x.shape.[0]): IntrinsicFunctions.GetArray<T>"""
    elem = arr._ty[:-2]
    m = mk_member(IFUNS, "GetArray", [arr._ty, INT32], elem, True, gargs=[elem])
    return N("Call", elem, {"obj": None, "method": m, "args": [arr, lit(i, INT32)]}, {"kind": "index"})


def at(x, *idx):
    """x.[i] / x.[i, j]: the TensorItems indexer with Int64 indices"""
    idx = [lit(i, INT64) for i in idx]
    m = mk_member(TENSOR, "TensorItems", [INT64] * len(idx), TENSOR, False)
    return N("PropertyGet", TENSOR, {"obj": x, "property": m, "args": idx}, {"kind": "index"})


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


# ----------------------------------------------------------------------------------------
# F# pretty-printer: writes NAME.fs from the tree and records every node's location
# ----------------------------------------------------------------------------------------
FS_KEYWORDS = set("""abstract and as assert base begin class default delegate do done downcast
downto elif else end exception extern false finally fixed for fun function global if in
inherit inline interface internal lazy let match member module mutable namespace new null of
open or override private public rec return select sig static struct then to true try type
upcast use val void when while with yield const atomic break checked component constraint
constructor continue eager event external functor include method mixin object parallel
process protected pure sealed tailcall trait virtual volatile""".split())


def fs_ident(name):
    return "``%s``" % name if name in FS_KEYWORDS else name


def fs_type(t):
    if t in FS_TYPE:
        return FS_TYPE[t]
    fp = fn_parts(t)
    if fp:
        return "(%s -> %s)" % (fs_type(fp[0]), fs_type(fp[1]))
    it = tuple_items(t)
    if it:
        return "(%s)" % " * ".join(fs_type(x) for x in it)
    return t


def fs_literal(n):
    v, t = n._f["value"], n._ty
    if isinstance(v, dict) and "enum" in v:
        path = {STYPE: "torch.ScalarType", RMODE: "torch.RoundingMode",
                GELU_APPROX: "GELU.Approximate"}[t]
        return "%s.%s" % (path, v["name"])
    if t == BOOL:
        return "true" if v else "false"
    if t == SINGLE:
        # System.Single.PositiveInfinity etc. are literal fields, so the quotation holds a Value;
        # FSharp.Core's infinityf / nanf are module values and would arrive as a PropertyGet
        if v != v:
            return "System.Single.NaN"
        if v in (float("inf"), float("-inf")):
            return "System.Single.PositiveInfinity" if v > 0 else "System.Single.NegativeInfinity"
        s = repr(float(v))
        return s + "f"
    if t == DOUBLE:
        if v != v:
            return "System.Double.NaN"
        if v in (float("inf"), float("-inf")):
            return "System.Double.PositiveInfinity" if v > 0 else "System.Double.NegativeInfinity"
        return repr(float(v))
    if t in INTS:
        return str(v) + {INT32: "", INT64: "L", INT16: "s", SBYTE: "y", BYTE: "uy"}[t]
    if t == UNIT:
        return "()"
    raise ValueError("literal of %s" % t)


def is_neg_literal(n):
    return (n._k == "Value" and isinstance(n._f["value"], (int, float))
            and not isinstance(n._f["value"], bool) and n._f["value"] < 0)


def visible_args(n):
    return [a for a in n._f["args"] if not a._pr.get("default")]


def nprec(n):
    k, pr = n._k, n._pr
    if k == "Call":
        kind = pr.get("kind")
        if kind == "infix":
            return INFIX[n._f["method"]["name"]][1]
        if kind == "prefix":
            return 9
        if kind in ("fnapp", "tupledapp"):
            return 8
        if kind == "hidden":
            return nprec(n._f["args"][0])
        return 10
    if k in ("NewObject", "Coerce") and pr.get("kind") == "hidden":
        return nprec(n._f["args"][0] if k == "NewObject" else n._f["expr"])
    if k == "Value":
        return 9 if is_neg_literal(n) else 10
    if k == "IfThenElse":
        return {"and": 2, "or": 1}.get(pr.get("kind"), 0)
    if k == "Application":
        return 8
    if k in ("Lambda", "VarSet"):
        return 0
    if k in ("Let", "Sequential", "ForIntegerRangeLoop", "WhileLoop"):
        return -1
    return 10


def is_block(n):
    k = n._k
    if k in ("Let", "Sequential", "ForIntegerRangeLoop", "WhileLoop"):
        return True
    return any(is_block(c) for c in n._children())


class Printer:
    def __init__(self):
        self.lines, self.cur, self.indent = [], "", 0
        self.dry = False

    def pos(self):
        return (len(self.lines) + 1, len(self.cur))

    def put(self, s):
        self.cur += s

    def nl(self, indent):
        self.lines.append(self.cur.rstrip())
        self.cur = " " * indent
        self.indent = indent

    def text(self):
        return "\n".join(self.lines + [self.cur.rstrip()]) + "\n"

    def _mark(self, n, start):
        end = self.pos()
        n.__dict__["_loc"] = [start[0], start[1], end[0], end[1]]

    # -- expressions --
    def expr(self, n, minprec=0):
        if nprec(n) < minprec and not (n._k == "Lambda" and False):
            self.put("(")
            self.expr(n, 0)
            self.put(")")
            return
        start = self.pos()
        k, pr = n._k, n._pr
        if k == "Var":
            self.put(fs_ident(pr["varobj"].name))
        elif k == "Value":
            self.put(fs_literal(n))
        elif k == "ValueWithName":
            self.put(n._f["name"])
        elif k == "FieldGet":
            self.put("torch." + fs_ident(n._f["field"]["name"]))
        elif k == "PropertyGet" and pr.get("kind") == "index":
            self.expr(n._f["obj"], 10)
            self.put(".[")
            for j, a in enumerate(n._f["args"]):
                if j:
                    self.put(", ")
                self.expr(a, 0)
            self.put("]")
        elif k == "PropertyGet":
            self.expr(n._f["obj"], 10)
            self.put("." + n._f["property"]["name"])
        elif k == "NewObject" or k == "Coerce":
            inner = n._f["args"][0] if k == "NewObject" else n._f["expr"]
            self.expr(inner, minprec)
            n.__dict__["_loc"] = inner._loc
            return
        elif k == "Call":
            self.call(n, minprec)
            if pr.get("kind") == "hidden":
                n.__dict__["_loc"] = n._f["args"][0]._loc
                return
        elif k == "Lambda":
            self.lam(n)
        elif k == "Application":
            self.expr(n._f["func"], 8)
            self.put(" ")
            self.expr(n._f["arg"], 10)
        elif k == "IfThenElse":
            kind = pr.get("kind")
            if kind in ("and", "or"):
                p = 2 if kind == "and" else 1
                self.expr(n._f["cond"], p)
                self.put(" && " if kind == "and" else " || ")
                self.expr(n._f["then"] if kind == "and" else n._f["else"], p + 1)
            else:
                if is_block(n):
                    self.block(n, self.indent)
                else:
                    self.put("if ")
                    self.expr(n._f["cond"], 0)
                    self.put(" then ")
                    self.expr(n._f["then"], 0)
                    if not n._f["else"]._pr.get("implicit"):
                        self.put(" else ")
                        self.expr(n._f["else"], 0)
        elif k == "NewTuple":
            multi = self.long_tuple(n)
            self.put("(")
            col = self.pos()[1]
            for i, it in enumerate(n._f["items"]):
                if i:
                    self.put(",")
                    if multi:
                        self.nl(col)
                    else:
                        self.put(" ")
                self.expr(it, 0)
            self.put(")")
        elif k == "NewArray":
            self.put("[| ")
            for i, it in enumerate(n._f["items"]):
                if i:
                    self.put("; ")
                self.expr(it, 0)
            self.put(" |]")
        elif k == "VarSet":
            self.put(fs_ident(pr["varobj"].name) + " <- ")
            self.expr(n._f["value"], 0)
        elif k in ("Let", "Sequential", "ForIntegerRangeLoop", "WhileLoop"):
            self.block(n, self.indent)
        else:
            raise ValueError("cannot print " + k)
        self._mark(n, start)

    def args(self, args):
        self.put("(")
        for i, a in enumerate(args):
            if i:
                self.put(", ")
            if a._pr.get("argname"):
                self.put(a._pr["argname"] + " = ")
            self.expr(a, 0)
        self.put(")")

    def call(self, n, minprec):
        pr, m, args = n._pr, n._f["method"], n._f["args"]
        kind = pr.get("kind")
        if kind == "infix":
            op = m["name"]
            sym, p = INFIX[op]
            right = op in RIGHT_ASSOC

            def need(c, base):
                # clarity: a different bitwise / comparison operator inside one gets parentheses
                if p in (3, 4) and c._k == "Call" and c._pr.get("kind") == "infix" and \
                        c._f["method"]["name"] != op and INFIX[c._f["method"]["name"]][1] in (3, 4):
                    return 11
                return base
            self.expr(args[0], need(args[0], p + 1 if right else p))
            self.put(" %s " % sym)
            self.expr(args[1], need(args[1], p if right else p + 1))
        elif kind == "prefix":
            self.put("-" if m["name"] == "op_UnaryNegation" else "+")
            a = args[0]
            self.expr(a, 10 if (is_neg_literal(a) or a._pr.get("kind") == "prefix") else 9)
        elif kind == "fnapp":
            self.put(pr["name"])
            for a in args:
                self.put(" ")
                self.expr(a, 10)
        elif kind == "tupledapp":
            self.put(pr["name"] + " ")
            self.args(args)
        elif kind == "method":
            self.expr(n._f["obj"], 10)
            self.put("." + fs_ident(m["name"]))
            self.args(visible_args(n))
        elif kind == "static":
            self.put(pr["path"] + "." + fs_ident(m["name"]))
            self.args(visible_args(n))
        elif kind == "ext":
            a = args[0]
            need = a._k == "Value" and a._ty in INTS and a._ty == INT32
            self.expr(a, 11 if need else 10)
            self.put("." + pr["name"] + "()")
        elif kind == "hidden":
            self.expr(args[0], minprec)
        elif kind == "generic":
            self.expr(n._f["obj"], 10)
            self.put(".%s<%s>()" % (fs_ident(m["name"]), pr["targ"]))
        elif kind == "index":
            self.expr(args[0], 10)
            self.put(".[")
            self.expr(args[1], 0)
            self.put("]")
        else:
            raise ValueError("call print kind %r" % kind)

    def lam_params(self, n):
        """Prints '(a: A) (b: B)' or '(a: A, b: B)'; returns the body node."""
        chain = [n]
        body = n._f["body"]
        tup = n._pr.get("tupled")
        if tup:
            self.put("(" + ", ".join("%s: %s" % (fs_ident(v.name), fs_type(v.ty)) for v in tup) + ")")
            while body._k == "Let" and body._pr.get("kind") == "tuplelet":
                body = body._f["body"]
            return chain, body
        self.put("(%s: %s)" % (fs_ident(n._pr["varobj"].name), fs_type(n._pr["varobj"].ty)))
        while body._k == "Lambda" and not body._pr.get("tupled"):
            chain.append(body)
            self.put(" ")
            body.__dict__["_start"] = self.pos()
            self.put("(%s: %s)" % (fs_ident(body._pr["varobj"].name), fs_type(body._pr["varobj"].ty)))
            body = body._f["body"]
        return chain, body

    def long_tuple(self, n, extra=0):
        if self.dry or n._k != "NewTuple" or is_block(n):
            return False
        p = Printer()
        p.dry = True
        p.expr(n, 0)
        return len(p.text().strip()) + self.pos()[1] + extra > 100

    def lam(self, n):
        self.put("fun ")
        chain, body = self.lam_params(n)
        self.put(" ->")
        if self.long_tuple(body, 1):
            base = self.indent
            self.nl(base + 4)
            self.expr(body, 0)
            self.indent = base
        elif is_block(body):
            base = self.indent
            self.nl(base + 4)
            self.block(body, base + 4)
            self.indent = base
        else:
            self.put(" ")
            self.expr(body, 0)
        self._close_chain(chain)

    def _close_chain(self, chain):
        end = self.pos()
        for inner in chain[1:]:
            s = inner.__dict__.pop("_start")
            inner.__dict__["_loc"] = [s[0], s[1], end[0], end[1]]
        for c in chain:
            if c._pr.get("tupled"):
                pass

    # -- statements --
    def block(self, n, indent):
        self.indent = indent
        start = self.pos()
        k = n._k
        if k == "Let" and n._pr.get("kind") in ("structlet", "tuplepat"):
            kw = "let struct (" if n._pr["kind"] == "structlet" else "let ("
            self.put(kw + ", ".join(fs_ident(x) for x in n._pr["names"]) + ") = ")
            self.expr(n._f["value"], 0)
            self.nl(indent)
            body = n._f["body"]
            while body._k == "Let" and body._pr.get("kind") == "tuplelet":
                body = body._f["body"]
            self.block(body, indent)
        elif k == "Let":
            v = n._pr["varobj"]
            self.put("let " + ("mutable " if v.mutable else "") + fs_ident(v.name) + " = ")
            val = n._f["value"]
            if is_block(val) and val._k != "Lambda":
                self.nl(indent + 4)
                self.block(val, indent + 4)
            else:
                self.expr(val, 0)
            self.nl(indent)
            self.block(n._f["body"], indent)
        elif k == "Sequential":
            self.block(n._f["first"], indent)
            self.nl(indent)
            self.block(n._f["second"], indent)
        elif k == "ForIntegerRangeLoop":
            self.put("for %s in " % fs_ident(n._pr["varobj"].name))
            self.expr(n._f["start"], 0)
            self.put(" .. ")
            self.expr(n._f["end"], 0)
            self.put(" do")
            self.nl(indent + 4)
            self.block(n._f["body"], indent + 4)
        elif k == "WhileLoop":
            self.put("while ")
            self.expr(n._f["cond"], 0)
            self.put(" do")
            self.nl(indent + 4)
            self.block(n._f["body"], indent + 4)
        elif k == "IfThenElse" and not n._pr.get("kind") and is_block(n):
            self.put("if ")
            self.expr(n._f["cond"], 0)
            self.put(" then")
            self.nl(indent + 4)
            self.block(n._f["then"], indent + 4)
            if not n._f["else"]._pr.get("implicit"):
                self.nl(indent)
                self.put("else")
                self.nl(indent + 4)
                self.block(n._f["else"], indent + 4)
        else:
            self.expr(n, 0)
            self.indent = indent
            return
        self.indent = indent
        self._mark(n, start)


# ----------------------------------------------------------------------------------------
# Serialization
# ----------------------------------------------------------------------------------------
NO_LOC = ("Var", "Value", "DefaultValue")


def ser(n):
    if isinstance(n, list):
        return [ser(x) for x in n]
    if not isinstance(n, N):
        return n
    o = {"k": n._k, "ty": n._ty}
    for fname in FIELD_ORDER[n._k]:
        o[fname] = ser(n._f[fname])
    if n._k == "Value" and isinstance(o["value"], float) and not math.isfinite(o["value"]):
        v = o["value"]
        o["value"] = "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    if n._loc and n._k not in NO_LOC:
        o["loc"] = [0] + list(n._loc)
    return o


# ----------------------------------------------------------------------------------------
# Validation of a written document (the JSON, not the DSL tree)
# ----------------------------------------------------------------------------------------
ARITH3 = {"op_Addition", "op_Subtraction", "op_Multiply", "op_Division", "op_Modulus"}
ONEG = {"op_UnaryNegation", "op_UnaryPlus", "op_BitwiseAnd", "op_BitwiseOr", "op_ExclusiveOr",
        "op_LeftShift", "op_RightShift", "op_Equality", "op_Inequality", "op_LessThan",
        "op_LessThanOrEqual", "op_GreaterThan", "op_GreaterThanOrEqual", "op_LogicalNot"}
UNSUPPORTED_KINDS = {"NewRecord", "NewUnionCase", "UnionCaseTest", "TypeTest", "TryWith",
                     "TryFinally", "AddressOf", "AddressSet", "FieldSet", "NewDelegate", "Quote",
                     "WithValue", "LetRecursive", "PropertySet", "NewStructTuple"}


def member_key(m, kind):
    if kind == "FieldGet":
        return "%s::%s" % (m["decl"], m["name"])
    if kind == "PropertyGet":
        return "%s::get_%s(%s)" % (m["decl"], m["name"], ",".join(m["params"]))
    return "%s::%s(%s)" % (m["decl"], m["name"], ",".join(m["params"]))


def check_member(m, kind, defs, E):
    for fld in ("decl", "name", "static", "params", "ret", "genericArgs"):
        if fld not in m:
            E("member lacks %r" % fld)
            return
    decl, name, params, gargs, ret = m["decl"], m["name"], m["params"], m["genericArgs"], m["ret"]
    sp = spec()
    if kind in ("FieldGet", "PropertyGet") or decl.startswith("TorchSharp."):
        key = member_key(m, kind)
        r = sp.lookup(key, ret)
        if r is None:
            E("member key %s is not in torchsharp-members.md" % key)
            return
        if r.ret != ret and not (r.ret == "T" and gargs == [ret]):
            E("%s: ret %s, spec says %s" % (key, ret, r.ret))
        if kind == "Call" and r.static != m["static"]:
            E("%s: static=%s, spec says %s" % (key, m["static"], r.kindcol))
        if gargs and not (r.ret == "T" and gargs == [ret]):
            E("%s: unexpected genericArgs" % key)
        return
    if decl == KOPS:
        n = {"map": 1, "map2": 2, "map3": 3}.get(name)
        if n is None or len(params) != n + 1 or any(p != TENSOR for p in params[1:]):
            E("bad Kgen.Ops member %s" % member_key(m, kind))
            return
        t, tys = params[0], []
        for _ in range(n):
            fp = fn_parts(t)
            if not fp:
                E("Kgen.Ops.%s: %s is not a curried function of %d args" % (name, params[0], n))
                return
            tys.append(fp[0])
            t = fp[1]
        if gargs != tys + [t] or ret != TENSOR or not m["static"]:
            E("Kgen.Ops.%s: genericArgs %s, expected %s" % (name, gargs, tys + [t]))
        return
    if decl.startswith("System.Nullable`1["):
        inner = decl[len("System.Nullable`1["):-1]
        if name != ".ctor" or params != [inner] or ret != decl:
            E("bad Nullable ctor %s" % member_key(m, kind))
        return
    if (decl, name) in defs:
        dm = defs[(decl, name)]
        if dm["params"] != params or dm["ret"] != ret:
            E("call to %s does not match its definition" % name)
        return
    if (decl, name) not in sp.jnames:
        E("member %s::%s is not named in section J/J2/J3" % (decl, name))
        return
    if not m["static"]:
        E("%s::%s must be static" % (decl, name))
    if decl == OPS:
        if name in ARITH3:
            if len(gargs) != 3 or gargs[:2] != params or gargs[2] != ret:
                E("%s: genericArgs must be [T1,T2,T3] = params + ret" % name)
        elif name in ONEG:
            if len(gargs) != 1 or gargs[0] != params[0]:
                E("%s: genericArgs must be [T]" % name)
        elif name == "op_Exponentiation":
            if gargs != params or ret != params[0]:
                E("op_Exponentiation: genericArgs must be [T,U]")
        elif name in FS_FUNS:
            _, ng, rr = FS_FUNS[name]
            exp_ret = params[0] if rr == "same" else rr
            exp_g = {0: [], 1: [params[0]], 2: [params[0], exp_ret]}[ng]
            if gargs != exp_g or ret != exp_ret:
                E("%s: genericArgs %s ret %s, expected %s %s" % (name, gargs, ret, exp_g, exp_ret))
    elif decl == "System.MathF":
        if any(p not in (SINGLE, INT32) for p in params):
            E("MathF.%s takes System.Single" % name)
    elif decl == "System.Math":
        if any(p not in (DOUBLE, INT32) for p in params) and name not in ("Abs", "Max", "Min", "Sign"):
            E("Math.%s takes System.Double" % name)


def check_value(v, ty, E):
    if ty in (SINGLE, DOUBLE):
        if not (isinstance(v, (int, float)) and not isinstance(v, bool)) and v not in ("NaN", "Infinity", "-Infinity"):
            E("bad float value %r" % (v,))
        if ty == SINGLE and isinstance(v, float) and f32_shortest(v) != v:
            E("single %r is not the shortest round-trip spelling" % v)
    elif ty in INTS:
        bits, signed = INTS[ty]
        if isinstance(v, str):
            if ty != INT64 or not re.match(r"^-?\d+$", v) or abs(int(v)) < 2 ** 53:
                E("bad integer string %r" % v)
            return
        if not isinstance(v, int) or isinstance(v, bool):
            E("bad integer value %r" % (v,))
            return
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if not lo <= v <= hi:
            E("integer %d out of range for %s" % (v, ty))
        if ty == INT64 and abs(v) >= 2 ** 53:
            E("Int64 %d must be a string (magnitude >= 2^53)" % v)
    elif ty == BOOL:
        if not isinstance(v, bool):
            E("bad bool %r" % (v,))
    elif ty in ENUMS:
        if not (isinstance(v, dict) and ENUMS[ty].get(v.get("name")) == v.get("enum")):
            E("bad enum %r for %s" % (v, ty))
    elif v is not None and not (isinstance(v, dict) and v.get("opaque")):
        E("bad value %r for %s" % (v, ty))


def loc_text(lines, loc):
    _, l1, c1, l2, c2 = loc
    if l1 == l2:
        return lines[l1 - 1][c1:c2]
    return "\n".join([lines[l1 - 1][c1:]] + lines[l1:l2 - 1] + [lines[l2 - 1][:c2]])


def loc_token(n):
    """A piece of F# text the located node must contain."""
    k = n.get("k")
    if k == "Call":
        m = n["method"]
        if m["decl"] == OPS:
            if m["name"] in INFIX:
                return " %s " % INFIX[m["name"]][0]
            if m["name"] == "op_UnaryNegation":
                return "-"
            return FS_FUNS[m["name"]][0] if m["name"] in FS_FUNS else None
        if m["decl"] == XOPS:
            return {"ToSingle": "single", "ToDouble": "double"}.get(m["name"])
        if m["decl"] in (SCALAR,) or m["name"] == "op_Implicit":
            return None
        if m["decl"] == KOPS:
            return "Ops." + m["name"]
        if m["decl"] == IFUNS and m["name"] == "GetArray":
            return ".["
        return m["name"]
    if k == "PropertyGet" and n.get("property", {}).get("name") == "TensorItems":
        return ".["
    return {"Lambda": None, "Let": "let", "ForIntegerRangeLoop": "for", "WhileLoop": "while",
            "VarSet": "<-", "FieldGet": n.get("field", {}).get("name"),
            "PropertyGet": n.get("property", {}).get("name")}.get(k)


def validate_doc(doc, fs_lines=None):
    errs = []
    for fld in ("format", "version", "vars", "entries"):
        if fld not in doc:
            errs.append("$: missing %r" % fld)
    if errs:
        return errs
    vars_ = doc["vars"]
    files = doc.get("files", [])
    defs = {(dd["member"]["decl"], dd["member"]["name"]): dd["member"]
            for dd in doc.get("definitions", [])}
    captured = set()

    def walk(n, scope, path):
        def E(msg):
            errs.append("%s: %s" % (path, msg))
        k, ty = n.get("k"), n.get("ty")
        if k not in FIELD_ORDER:
            E("kind %r" % k)
            return
        if not isinstance(ty, str):
            E("missing ty")
            return
        for fld in FIELD_ORDER[k]:
            if fld not in n:
                E("missing field %r" % fld)
                return
        if "loc" in n:
            loc = n["loc"]
            if not (isinstance(loc, list) and len(loc) == 5 and all(isinstance(x, int) for x in loc)):
                E("bad loc")
            elif not 0 <= loc[0] < len(files):
                E("loc file index %d out of range" % loc[0])
            elif (loc[1], loc[2]) > (loc[3], loc[4]) or loc[1] < 1:
                E("loc range reversed")
            elif fs_lines is not None:
                if loc[3] > len(fs_lines) or loc[4] > len(fs_lines[loc[3] - 1]) or loc[2] > len(fs_lines[loc[1] - 1]):
                    E("loc %s outside the .fs text" % loc)
                else:
                    want = loc_token(n)
                    txt = loc_text(fs_lines, loc)
                    if want is not None and want not in txt:
                        E("loc %s text %r does not show %r" % (loc, txt[:60], want))
        kids = []

        def var_ok(i, bind=False):
            if not isinstance(i, int) or not 0 <= i < len(vars_):
                E("var %r out of range" % (i,))
                return False
            if not bind and i not in scope:
                E("var %d (%s) used outside its scope" % (i, vars_[i]["name"]))
            return True
        if k == "Var":
            if var_ok(n["var"]) and vars_[n["var"]]["type"] != ty:
                E("Var ty %s != var type %s" % (ty, vars_[n["var"]]["type"]))
        elif k == "Value":
            check_value(n["value"], ty, E)
        elif k == "ValueWithName":
            if ty != TENSOR or n["value"] != {"opaque": True}:
                E("only opaque tensor captures are used here")
            captured.add(n["name"])
        elif k == "Lambda":
            if var_ok(n["var"], True):
                if ty != func_t(vars_[n["var"]]["type"], n["body"].get("ty")):
                    E("Lambda ty %s" % ty)
                walk(n["body"], scope | {n["var"]}, path + ".body")
            return
        elif k == "Let":
            if var_ok(n["var"], True):
                if vars_[n["var"]]["type"] != n["value"].get("ty"):
                    E("Let var type %s != value ty %s" % (vars_[n["var"]]["type"], n["value"].get("ty")))
                if ty != n["body"].get("ty"):
                    E("Let ty != body ty")
                walk(n["value"], scope, path + ".value")
                walk(n["body"], scope | {n["var"]}, path + ".body")
            return
        elif k == "ForIntegerRangeLoop":
            if var_ok(n["var"], True):
                if vars_[n["var"]]["type"] != INT32 or n["start"]["ty"] != INT32 or n["end"]["ty"] != INT32:
                    E("for loop must be over System.Int32")
                if ty != UNIT or n["body"]["ty"] != UNIT:
                    E("for loop ty must be unit")
                walk(n["start"], scope, path + ".start")
                walk(n["end"], scope, path + ".end")
                walk(n["body"], scope | {n["var"]}, path + ".body")
            return
        elif k == "VarSet":
            if var_ok(n["var"]):
                if not vars_[n["var"]]["mutable"]:
                    E("VarSet on immutable var")
                if vars_[n["var"]]["type"] != n["value"]["ty"] or ty != UNIT:
                    E("VarSet types")
            kids = [("value", n["value"])]
        elif k == "Application":
            fp = fn_parts(n["func"]["ty"])
            if not fp or fp != (n["arg"]["ty"], ty):
                E("Application types")
            kids = [("func", n["func"]), ("arg", n["arg"])]
        elif k == "IfThenElse":
            if n["cond"]["ty"] != BOOL or n["then"]["ty"] != ty or n["else"]["ty"] != ty:
                E("IfThenElse types")
            kids = [("cond", n["cond"]), ("then", n["then"]), ("else", n["else"])]
        elif k == "WhileLoop":
            if n["cond"]["ty"] != BOOL or n["body"]["ty"] != UNIT or ty != UNIT:
                E("WhileLoop types")
            kids = [("cond", n["cond"]), ("body", n["body"])]
        elif k == "Sequential":
            if ty != n["second"]["ty"]:
                E("Sequential ty")
            kids = [("first", n["first"]), ("second", n["second"])]
        elif k in ("Call", "PropertyGet", "FieldGet", "NewObject"):
            mf = {"Call": "method", "PropertyGet": "property", "FieldGet": "field", "NewObject": "ctor"}[k]
            m = n[mf]
            check_member(m, k, defs, E)
            if m.get("ret") != ty:
                E("%s ty %s != member ret %s" % (k, ty, m.get("ret")))
            args = n.get("args", [])
            if k != "FieldGet" and [a.get("ty") for a in args] != m.get("params"):
                E("argument types %s != params %s" % ([a.get("ty") for a in args], m.get("params")))
            obj = n.get("obj")
            if k != "NewObject":
                if m.get("static") and obj is not None:
                    E("static member with a receiver")
                if not m.get("static") and (obj is None or obj.get("ty") != m.get("decl")):
                    E("instance member needs a receiver of type %s" % m.get("decl"))
                if obj is not None:
                    kids.append(("obj", obj))
            kids += [("args[%d]" % i, a) for i, a in enumerate(args)]
        elif k == "NewTuple":
            if ty != tuple_t([x["ty"] for x in n["items"]]):
                E("NewTuple ty")
            kids = [("items[%d]" % i, x) for i, x in enumerate(n["items"])]
        elif k == "TupleGet":
            it = tuple_items(n["tuple"]["ty"])
            if not it or not 0 <= n["index"] < len(it) or it[n["index"]] != ty:
                E("TupleGet ty")
            kids = [("tuple", n["tuple"])]
        elif k == "Coerce":
            kids = [("expr", n["expr"])]
        for name, c in kids:
            walk(c, scope, path + "." + name)

    for i, e in enumerate(doc["entries"]):
        p = "$.entries[%d]" % i
        walk(e["expr"], set(), p + ".expr")
        ps = entry_params(doc, e["expr"])
        sig = e.get("signature")
        if sig is None:
            continue
        if len(sig.get("params", [])) != len(ps):
            errs.append("%s.signature: %d params for %d lambda parameters" % (p, len(sig["params"]), len(ps)))
            continue
        for j, (sp_, vt) in enumerate(zip(sig["params"], ps)):
            if "scalar" in sp_:
                if DT_CLR.get(sp_["scalar"]) != vt:
                    errs.append("%s.signature.params[%d]: scalar %s vs %s" % (p, j, sp_["scalar"], vt))
            else:
                if vt != TENSOR or sp_.get("dtype") not in DTYPES:
                    errs.append("%s.signature.params[%d]: tensor vs %s" % (p, j, vt))
                for dim in sp_.get("shape", []):
                    if not (dim is None or isinstance(dim, str) or (isinstance(dim, int) and dim >= 0)):
                        errs.append("%s.signature.params[%d]: bad dim %r" % (p, j, dim))
        caps = set(sig.get("captures", {}))
        if caps != captured:
            errs.append("%s.signature.captures %s != captured names %s" % (p, sorted(caps), sorted(captured)))
    for i, dd in enumerate(doc.get("definitions", [])):
        p = "$.definitions[%d]" % i
        walk(dd["expr"], set(), p + ".expr")
        ps = entry_params(doc, dd["expr"])
        t = dd["expr"]["ty"]
        while fn_parts(t):
            t = fn_parts(t)[1]
        if ps != dd["member"]["params"] or t != dd["member"]["ret"]:
            errs.append("%s: member params/ret do not match its lambda" % p)
    return errs


def entry_params(doc, e):
    """Parameter types of an entry lambda chain (tuple items for a tupled lambda)."""
    out = []
    n = e
    while n.get("k") == "Lambda":
        vt = doc["vars"][n["var"]]["type"]
        items = tuple_items(vt)
        if items and doc["vars"][n["var"]]["name"] == "tupledArg":
            out += items
            break
        out.append(vt)
        n = n["body"]
    return out


# ----------------------------------------------------------------------------------------
# Examples: registry, build, output
# ----------------------------------------------------------------------------------------
def ten(dtype, *shape, nonzero=False):
    s = {"dtype": dtype, "shape": list(shape)}
    if nonzero:
        s["nonzero"] = True
    return s


def scal(dtype):
    return {"scalar": dtype}


class Example:
    def __init__(self, name, covers, params, fn, captures=None, ref=None, expect=None,
                 style="quote", tupled=False, tol=None, bad=None, mutate=None, sizes=None, note=None,
                 torch_error=None):
        self.name, self.covers, self.params, self.fn = name, covers, params, fn
        self.torch_error = torch_error      # bad input: --check expects PyTorch to raise this
        self.captures = captures or {}
        self.ref, self.expect, self.style, self.tupled = ref, expect, style, tupled
        self.tol, self.bad, self.mutate, self.sizes = tol, bad, mutate, sizes or {}
        self.note = note


EXAMPLES = []
BAD = []


def example(name, covers, params, **kw):
    def deco(fn):
        EXAMPLES.append(Example(name, covers, params, fn, **kw))
        return fn
    return deco


def bad(name, rule, params, **kw):
    def deco(fn):
        BAD.append(Example(name, rule, params, fn, bad=rule, **kw))
        return fn
    return deco


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def param_type(sig):
    return DT_CLR[sig["scalar"]] if "scalar" in sig else TENSOR


def build(ex, idx, module_prefix="Examples"):
    """Builds one example: returns (doc dict, F# text, one-line F# of the entry)."""
    global DOC
    DOC = DocState("%s.%s" % (module_prefix, camel(ex.name)),
                   "DefaultValue" if idx % 2 == 0 else "Value")
    if ex.tupled:
        vs = [Var(n, param_type(s)) for n, s in ex.params]
        body = lit(ex.fn(*[var_node(v) for v in vs]))
        tv = Var("tupledArg", tuple_t([v.ty for v in vs]))
        for j in reversed(range(len(vs))):
            tg = N("TupleGet", vs[j].ty, {"tuple": var_node(tv), "index": j}, {"kind": "hidden"})
            body = N("Let", body._ty, {"var": vs[j].index, "value": tg, "body": body},
                     {"varobj": vs[j], "kind": "tuplelet"})
        expr = N("Lambda", func_t(tv.ty, body._ty), {"var": tv.index, "body": body},
                 {"kind": "lambda", "varobj": tv, "tupled": vs})
    else:
        expr = fun([(n, param_type(s)) for n, s in ex.params], ex.fn)

    P = Printer()
    P.put("// %s: %s" % (ex.name, ex.covers.replace("\n", " ")))
    P.nl(0)
    P.put("module " + DOC.module)
    P.nl(0)
    P.nl(0)
    if "system" in DOC.uses:
        P.put("open System")
        P.nl(0)
    P.put("open TorchSharp")
    P.nl(0)
    if "modules" in DOC.uses:
        P.put("open TorchSharp.Modules")
        P.nl(0)
    if "map" in DOC.uses:
        P.put("open Kgen")
        P.nl(0)
    P.nl(0)

    def print_def(fsname, lam):
        P.put("[<ReflectedDefinition>]")
        P.nl(0)
        start = P.pos()
        P.put("let %s " % fsname)
        chain, body = P.lam_params(lam)
        P.put(" =")
        P.nl(4)
        P.block(body, 4)
        P._close_chain(chain)
        P._mark(lam, start)
        P.nl(0)
        P.nl(0)

    for m, lam, fsname, tupled in DOC.defs:
        print_def(fsname, lam)
    if ex.style == "reflected":
        start_line = P.pos()[0]
        print_def(ex.name, expr)
        src_lines = P.text().split("\n")[start_line:]
        one = " ".join(x.strip() for x in src_lines if x.strip())
    else:
        caps = "".join(" (%s: torch.Tensor)" % c for c in ex.captures)
        P.put("let %s%s =" % (ex.name, caps))
        P.nl(4)
        P.put("<@ ")
        s = P.pos()
        P.indent = 4
        P.expr(expr, 0)
        e = P.pos()
        P.put(" @>")
        P.nl(0)
        lines = P.text().split("\n")
        seg = lines[s[0] - 1:e[0]]
        seg[-1] = seg[-1][:e[1]] if len(seg) > 1 else seg[-1][s[1]:e[1]]
        if len(seg) > 1:
            seg[0] = seg[0][s[1]:]
        one = " ".join(x.strip() for x in seg if x.strip())
    text = P.text().rstrip("\n") + "\n"
    if ex.mutate:
        text += "\n// NOTE: the JSON document was edited after serialization to break one rule:\n//   %s\n" % ex.bad
        if ex.note:
            text += "// The F# it stands for:\n" + "".join("//   %s\n" % ln for ln in ex.note.split("\n"))

    sig = {"params": [dict(s) for _, s in ex.params]}
    if ex.captures:
        sig["captures"] = {k: dict(v) for k, v in ex.captures.items()}
    doc = {"format": "kgen-quotation", "version": 1, "files": [ex.name + ".fs"],
           "vars": [{"name": v.name, "type": v.ty, "mutable": v.mutable} for v in DOC.vars],
           "entries": [{"name": ex.name, "signature": sig, "expr": ser(expr)}]}
    if DOC.defs:
        doc["definitions"] = [{"member": m, "expr": ser(lam)} for m, lam, _, _ in DOC.defs]
    renumber_vars(doc)
    if ex.mutate:
        ex.mutate(doc)
    return doc, text, one


def renumber_vars(doc):
    """Var indices in order of first appearance in a pre-order walk (entries, then definitions),
    as a serializer walking the Expr would assign them."""
    order = []

    def visit(n):
        if isinstance(n, dict):
            if "k" in n:
                if "var" in n and n["var"] not in order:
                    order.append(n["var"])
                for fld in FIELD_ORDER.get(n["k"], []):
                    visit(n.get(fld))
            else:
                for v in n.values():
                    visit(v)
        elif isinstance(n, list):
            for v in n:
                visit(v)
    for e in doc["entries"]:
        visit(e["expr"])
    for dd in doc.get("definitions", []):
        visit(dd["expr"])
    order += [i for i in range(len(doc["vars"])) if i not in order]
    remap = {old: new for new, old in enumerate(order)}

    def fix(n):
        if isinstance(n, dict):
            if "k" in n and "var" in n:
                n["var"] = remap[n["var"]]
            for v in n.values():
                fix(v)
        elif isinstance(n, list):
            for v in n:
                fix(v)
    for e in doc["entries"]:
        fix(e["expr"])
    for dd in doc.get("definitions", []):
        fix(dd["expr"])
    doc["vars"] = [doc["vars"][i] for i in order]


def _fmt(o, ind):
    one = json.dumps(o, ensure_ascii=False, separators=(", ", ": "))
    nodes = one.count('"k": ')
    small = nodes == 0 or (isinstance(o, dict) and nodes == 1)
    if not isinstance(o, (dict, list)) or (small and len(one) + ind <= 110) or \
            (isinstance(o, dict) and "decl" in o and "name" in o):
        return one
    pad = " " * (ind + 1)
    if isinstance(o, list):
        if not o:
            return "[]"
        return "[\n" + ",\n".join(pad + _fmt(x, ind + 1) for x in o) + "\n" + " " * ind + "]"
    items = []
    for k, v in o.items():
        items.append(pad + json.dumps(k) + ": " + _fmt(v, ind + 1))
    return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"


def dump(doc):
    """Pretty-printed, deterministic: nodes expanded, members / locs / shapes on one line."""
    return _fmt(doc, 0) + "\n"


def md_escape(s):
    return s.replace("|", "\\|")


def selected(name, only):
    """--only: exact names or shell patterns (red_*)."""
    return not only or name in only or any(fnmatch.fnmatchcase(name, p) for p in only)


HAND_EDITED_NOTE = "NOTE: the JSON document was edited"
NOT_FSHARP = {"unknown_member_key"}  # calls a member TorchSharp does not have: F# rejects it


def write_outputs(out_root, only=None):
    exdir = os.path.join(out_root, "examples")
    baddir = os.path.join(out_root, "tests", "bad")
    os.makedirs(exdir, exist_ok=True)
    os.makedirs(baddir, exist_ok=True)
    names = set()
    failures = 0
    index_rows = []
    for idx, ex in enumerate(EXAMPLES):
        if ex.name in names:
            sys.exit("duplicate example " + ex.name)
        names.add(ex.name)
        if not selected(ex.name, only):
            continue
        doc, text, one = build(ex, idx)
        errs = validate_doc(doc, text.split("\n"))
        if not any("loc" in json.dumps(n) for n in [doc["entries"][0]["expr"]]) or "loc" not in doc["entries"][0]["expr"]:
            errs.append("entry top node has no loc")
        if errs:
            failures += 1
            print("INVALID %s:\n  %s" % (ex.name, "\n  ".join(errs[:20])))
        # examples/NAME.fs and NAME.json are real F# and the serializer's output now
        # (tools/regen-examples): not written here.
        index_rows.append((ex, one))
    if not only:
        write_index(exdir, index_rows)
    bad_rows = []
    for idx, ex in enumerate(BAD):
        if not selected(ex.name, only):
            continue
        doc, text, one = build(ex, idx, "Bad")
        # a bad input the F# compiler can write is real F# now (tests/bad/NAME.fs compiled by
        # dotnet/Examples, NAME.json the serializer's output: tools/regen-examples); only the
        # documents F# cannot produce (edited after serialization, or F# that does not compile)
        # are generated here
        if HAND_EDITED_NOTE in text or ex.name in NOT_FSHARP:
            with open(os.path.join(baddir, ex.name + ".json"), "w") as fh:
                fh.write(dump(doc))
            with open(os.path.join(baddir, ex.name + ".fs"), "w") as fh:
                fh.write(text)
        bad_rows.append((ex, one))
    if not only:
        write_bad_index(baddir, bad_rows)
    # every written file must load
    for dd in (exdir, baddir):
        for fn_ in sorted(os.listdir(dd)):
            if fn_.endswith(".json"):
                with open(os.path.join(dd, fn_)) as fh:
                    json.load(fh)
    return failures


INDEX_HEAD = """# kgen examples

Each example is one F# quotation over TorchSharp. `NAME.fs` is real F#, compiled by the F#
compiler against TorchSharp 0.107 and Kgen (dotnet/Examples); `NAME.json` is exactly what
kgen's serializer writes for it (`tools/regen-examples`; the .NET tests fail when a checked-in
document is stale). See docs/fsharp.md for how each F# construct arrives.

- Every node carries `loc` = `[fileIndex, startLine, startCol, endLine, endCol]` into
  `NAME.fs` (lines 1-based, columns 0-based, end column exclusive: F# range conventions;
  the example project compiles with `--quotations-debug+`).
- Each entry has a `signature` (from its `[<Kgen.Entry("...")>]` attribute), so it runs
  without extra arguments. Sizes are static except
  in the examples that use symbols (`"N"`, `"B"`: the runner picks them).
- **Non-standard signature field `"nonzero": true`** on a tensor parameter: the runner must
  generate that input without zeros (integer divisors of `/`, `%`, `div`, `fmod`, ...).
  It is optional; an implementation that ignores it may divide by zero.
- A `null` size (`bcast_unknown_dim`) means any size: the runner picks one, as for symbols.
- Inputs are expected in PyTorch `make_tensor` ranges (floats in [-9, 9], signed integers
  in [-9, 10), uint8 in [0, 10), bool {0, 1}); the examples are written so that every
  result is well defined for such inputs (no float->int casts out of range, shift counts
  in [0, 8), integer divisors marked `nonzero`, bounded loops).
- Scalar parameters are `{"scalar": "float32"}` entries (an F# `(s: float32)` parameter).
- Captured tensors (`ValueWithName`, value `{"opaque": true}`) are listed under
  `signature.captures`.

TorchSharp semantics worth knowing when writing the reference (checked in
`tools/mkexamples.py --check`):

- `Scalar - Tensor` is `right.negative().add(left)` and `Scalar / Tensor` is
  `right.reciprocal().mul(left)` (TorchSharp's operators), not `torch.sub/div(scalar, t)`.
- A tensor's `%` is `remainder` (floored, sign of the divisor); `/` is true division
  (integers promote to float32).
- `torch.tensor(2.5)` (a .NET `double`) is a **float64** 0-dim tensor, unlike Python's
  `torch.tensor(2.5)`; `torch.tensor(2.5f)` is float32.
- A `float32` literal (`0.1f`) passed as a Scalar is the single `0.1f` widened to double
  (0.100000001490116...), also when it scales a float64 tensor.
- `x.where(cond, y)` is `torch.where(cond, x, y)`: the receiver is `x`.
- Inside `Kgen.Ops.map` lambdas scalar code has .NET semantics: integer `/` truncates, `%`
  is the truncated remainder, `int32` arithmetic wraps, `float32` stays single precision,
  `int` of a float truncates, `round` rounds half to even.

Optional arguments left out arrive filled in by the F# compiler: `Value null` for reference
types and `DefaultValue` for `Nullable` parameters. Overloads taking either a `Tensor` or a `Scalar` are called
with an explicit `.ToScalar()` (a bare `0.5f` would be ambiguous in F#: both `Tensor` and
`Scalar` have `op_Implicit(float32)`); parameters that only take a `Scalar` get the implicit
`Scalar.op_Implicit` conversion.

Examples that are valid F# but need more than plain pointwise kernels: `scalar_param_if_bool`
(an `if` on a bool parameter choosing between two tensor expressions: host control flow) and
`like_empty_shape_only` (`empty_like` whose content must never be read).

Regenerate the documents with `tools/regen-examples` (needs the .NET SDK); this index with
`python3 tools/mkexamples.py`, which also checks its PyTorch references with `--check`.

| # | example | covers | F# |
|---|---|---|---|
"""


GROUPS = [
    ("A1: F# operators on tensors (generic Operators.op_* at Tensor / primitive types)", ("pw_",)),
    ("A4: arithmetic methods and aliases", ("add_", "sub_", "mul_", "div_", "true_", "floor_", "remainder_", "neg_")),
    ("B: comparisons, logical, bitwise, shifts", ("cmp_", "logical_", "bitwise_", "shift_")),
    ("C1: pointwise unary", ("un_",)),
    ("C2: pointwise binary / ternary", ("bin_", "clamp_", "where_", "lerp_", "hypot_")),
    ("D: activations", ("act_",)),
    ("I: casts and dtypes", ("cast_",)),
    ("H: creators (*_like, torch.tensor)", ("like_", "tensor_")),
    ("Shapes: 0-dim, size 0, size 1, odd / large sizes, broadcasting, symbolic sizes",
     ("zero_", "size", "odd_", "large_", "bcast_")),
    ("Type promotion", ("promo_",)),
    ("Scalar parameters, multiple outputs, captured tensors", ("scalar_param", "multi_out", "capture_")),
    ("Structure: tupled entry, [<ReflectedDefinition>] helpers, let-bound lambdas, shadowing",
     ("tupled_", "reflected_", "let_")),
    ("Longer realistic chains", ("chain_",)),
    ("Kgen.Ops.map / map2 / map3: scalar F# per element (.NET semantics)", ("map",)),
    ("E: reductions (sum, nansum, mean, prod, amax / amin, all-reduce max / min): every overload, "
     "axis, dtype; fused prologues / epilogues", ("red_",)),
    ("D / E: normalizations (softmax, log_softmax, var / std, logsumexp, layer_norm, norm): every "
     "overload; the same written from primitives (softmax, log_softmax, RMSNorm, layer norm by hand)",
     ("norm_",)),
    ("Control flow over tensors: run-time for / while / if, item(), views (x.[t], select, narrow, unsqueeze) "
     "and loop-carried values, compiled to a host plan", ("cf_",)),
]


def group_of(name):
    for i, (_, prefixes) in enumerate(GROUPS):
        if any(name.startswith(p) for p in prefixes):
            return i
    return len(GROUPS)


def write_index(exdir, rows):
    out = [INDEX_HEAD.rsplit("| # |", 1)[0]]
    n_fs = len([f for f in os.listdir(exdir) if f.endswith(".fs")])
    out.append("%d examples.\n" % max(n_fs, len(rows)))
    i = 0
    for g, (title, _) in enumerate(GROUPS + [("Other", ())]):
        grp = [r for r in rows if group_of(r[0].name) == g]
        if not grp:
            continue
        out.append("\n## %s\n\n| # | example | covers | F# |\n|---|---|---|---|\n" % title)
        for ex, one in grp:
            i += 1
            if len(one) > 160:
                one = one[:157] + "..."
            out.append("| %d | [%s](%s.fs) | %s | `%s` |\n" % (i, ex.name, ex.name, md_escape(ex.covers),
                                                            md_escape(one).replace("`", "'")))
    # examples written in F# only (no DSL entry here): their first comment line says what
    known = set(ex.name for ex, _ in rows)
    extra = []
    for fn_ in sorted(os.listdir(exdir)):
        if fn_.endswith(".fs") and fn_[:-3] not in known:
            with open(os.path.join(exdir, fn_)) as fh:
                first = fh.readline().strip()
            extra.append((fn_[:-3], first.lstrip("/ ").split(": ", 1)[-1]))
    if extra:
        out.append("\n## Written in F# only: real F# patterns (use, modules, -->, pipes, static tests)\n\n"
                   "| # | example | covers |\n|---|---|---|\n")
        for name, what in extra:
            i += 1
            out.append("| %d | [%s](%s.fs) | %s |\n" % (i, name, name, md_escape(what)))
    with open(os.path.join(exdir, "INDEX.md"), "w") as fh:
        fh.write("".join(out))


BAD_HEAD = """# Bad inputs

Documents that are valid JSON but break a rule of the `kgen-quotation` contract or of
kgen's supported subset. kgen must reject each with a clear error naming the JSON path (and
the F# location where the node has `loc`), never crash. Each `NAME.fs` shows the F# the
document claims to come from (for hand-broken documents, the closest F#). Expected-error
golden files are produced separately.

| document | rule it breaks |
|---|---|
"""


def write_bad_index(baddir, rows):
    out = [BAD_HEAD]
    listed = set()
    for ex, one in rows:
        listed.add(ex.name)
        out.append("| [%s](%s.json) | %s |\n" % (ex.name, ex.name, md_escape(ex.bad)))
    # the bad inputs written only in F# (tests/bad/NAME.fs, serialized by tools/regen-examples):
    # their rule is the first comment line, "// NAME: rule"
    for fn_ in sorted(os.listdir(baddir)):
        name = fn_[:-3]
        if not fn_.endswith(".fs") or name in listed or not os.path.exists(os.path.join(baddir, name + ".json")):
            continue
        with open(os.path.join(baddir, fn_)) as fh:
            first = fh.readline().strip()
        rule = first[2:].strip() if first.startswith("//") else ""
        if rule.startswith(name + ":"):
            rule = rule[len(name) + 1:].strip()
        out.append("| [%s](%s.json) | %s |\n" % (name, name, md_escape(rule or "(see the .fs)")))
    with open(os.path.join(baddir, "INDEX.md"), "w") as fh:
        fh.write("".join(out))


# ----------------------------------------------------------------------------------------
# --check: evaluate each written document with PyTorch and compare with its reference
# ----------------------------------------------------------------------------------------
TH = None


class Closure:
    def __init__(self, var, body, env):
        self.var, self.body, self.env = var, body, env


def wrap_int(v, ty):
    bits, signed = INTS[ty]
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def norm(v, ty):
    if ty == SINGLE:
        return f32_round(float(v))
    if ty == DOUBLE:
        return float(v)
    if ty in INTS:
        return wrap_int(int(v), ty)
    if ty == BOOL:
        return bool(v)
    return v


def fdiv(a, b_):
    try:
        return a / b_
    except ZeroDivisionError:
        if a != a or a == 0:
            return float("nan")
        return math.copysign(float("inf"), a) * math.copysign(1.0, b_)


def safe(fn, *a):
    try:
        return fn(*a)
    except OverflowError:
        return float("inf")
    except ValueError:
        if fn is math.log and a[0] == 0:
            return float("-inf")
        return float("nan")


def trunc_div(a, b_):
    q = abs(a) // abs(b_)
    return q if (a < 0) == (b_ < 0) else -q


def trunc_rem(a, b_):
    r = abs(a) % abs(b_)
    return -r if a < 0 else r


MATHFN = {"Exp": math.exp, "Log": math.log, "Log10": math.log10, "Log2": math.log2,
          "Sqrt": math.sqrt, "Sin": math.sin, "Cos": math.cos, "Tan": math.tan,
          "Asin": math.asin, "Acos": math.acos, "Atan": math.atan, "Sinh": math.sinh,
          "Cosh": math.cosh, "Tanh": math.tanh, "Floor": math.floor, "Ceiling": math.ceil,
          "Truncate": math.trunc, "Cbrt": lambda x: math.copysign(abs(x) ** (1.0 / 3), x)}


def scalar_op(name, m, a):
    params, ret = m["params"], m["ret"]
    t = params[0] if params else ret
    isf = t in FLOATS
    if name == "op_Addition":
        return norm(a[0] + a[1], ret)
    if name == "op_Subtraction":
        return norm(a[0] - a[1], ret)
    if name == "op_Multiply":
        return norm(a[0] * a[1], ret)
    if name == "op_Division":
        return norm(fdiv(a[0], a[1]) if isf else trunc_div(a[0], a[1]), ret)
    if name == "op_Modulus":
        if isf:
            return norm(safe(math.fmod, a[0], a[1]), ret)
        return norm(trunc_rem(a[0], a[1]), ret)
    if name == "op_UnaryNegation":
        return norm(-a[0], ret)
    if name == "op_UnaryPlus":
        return a[0]
    if name in ("op_BitwiseAnd", "op_BitwiseOr", "op_ExclusiveOr"):
        if t == BOOL:
            return {"op_BitwiseAnd": a[0] and a[1], "op_BitwiseOr": a[0] or a[1],
                    "op_ExclusiveOr": a[0] != a[1]}[name]
        return norm({"op_BitwiseAnd": a[0] & a[1], "op_BitwiseOr": a[0] | a[1],
                     "op_ExclusiveOr": a[0] ^ a[1]}[name], ret)
    if name in ("op_LeftShift", "op_RightShift"):
        bits = INTS[t][0]
        cnt = a[1] & (31 if bits <= 32 else 63)
        return norm(a[0] << cnt if name == "op_LeftShift" else a[0] >> cnt, ret)
    if name == "op_Equality":
        return a[0] == a[1]
    if name == "op_Inequality":
        return a[0] != a[1]
    if name == "op_LessThan":
        return a[0] < a[1]
    if name == "op_LessThanOrEqual":
        return a[0] <= a[1]
    if name == "op_GreaterThan":
        return a[0] > a[1]
    if name == "op_GreaterThanOrEqual":
        return a[0] >= a[1]
    if name == "op_Exponentiation":
        return norm(safe(math.pow, a[0], a[1]), ret)
    if name == "Not":
        return not a[0]
    if name == "Abs":
        return norm(abs(a[0]), ret)
    if name == "Sign":
        return 0 if a[0] == 0 else (1 if a[0] > 0 else -1)
    if name in ("Max", "Min"):
        if isf and (a[0] != a[0] or a[1] != a[1]):
            return float("nan")
        return max(a[0], a[1]) if name == "Max" else min(a[0], a[1])
    if name == "Round":
        if len(a) == 2:
            return norm(round(a[0], a[1]), ret)
        return norm(float(round(a[0])) if a[0] == a[0] and abs(a[0]) != float("inf") else a[0], ret)
    if name == "PowInteger":
        return norm(safe(math.pow, a[0], a[1]) if isf else a[0] ** a[1], ret)
    if name in ("Atan2",):
        return norm(math.atan2(a[0], a[1]), ret)
    if name == "Pow":
        return norm(safe(math.pow, a[0], a[1]), ret)
    if name == "FusedMultiplyAdd":
        return norm(a[0] * a[1] + a[2], ret)
    if name == "Clamp":
        return norm(min(max(a[0], a[1]), a[2]), ret)
    if name in ("ToSingle", "ToDouble"):
        return norm(float(a[0]), ret)
    if name in ("ToInt32", "ToInt64", "ToInt16", "ToSByte", "ToByte"):
        v = a[0]
        if isinstance(v, float):
            v = math.trunc(v)
        return norm(int(v), ret)
    if name == "Log" and len(a) == 2:
        return norm(safe(math.log, a[0]) / math.log(a[1]), ret)
    if name in MATHFN:
        r = safe(MATHFN[name], a[0]) if a[0] == a[0] else float("nan")
        return norm(r, ret)
    raise NotImplementedError("scalar op " + name)


def load_value(n):
    v, ty = n["value"], n["ty"]
    th = TH
    if isinstance(v, str) and ty in FLOATS:
        v = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[v]
    if isinstance(v, str) and ty in INTS:
        v = int(v)
    if ty == SINGLE:
        return f32_round(float(v))
    if ty == DOUBLE:
        return float(v)
    if ty == STYPE:
        return TH_ST[v["enum"]]
    if ty == RMODE:
        return {0: None, 1: "trunc", 2: "floor"}[v["enum"]]
    if ty == GELU_APPROX:
        return v["name"]
    return v


def th_dtype_of_clr(t):
    th = TH
    return {SINGLE: th.float32, DOUBLE: th.float64, INT32: th.int32, INT64: th.int64,
            INT16: th.int16, SBYTE: th.int8, BYTE: th.uint8, BOOL: th.bool}[t]


def torch_call(fn, o, a):
    th = TH
    try:
        return fn(o, a)
    except RuntimeError as e:
        if "Half" not in str(e):
            raise
    vals = [o] + list(a)
    had32 = any(isinstance(v, th.Tensor) and v.dtype in (th.float32, th.float64) for v in vals)

    def up(v):
        return v.float() if isinstance(v, th.Tensor) and v.dtype == th.float16 else v
    r = fn(up(o), [up(x) for x in a])
    FALLBACKS.append(1)
    return r.half() if (isinstance(r, th.Tensor) and r.dtype == th.float32 and not had32) else r


FALLBACKS = []


def tensor_table():
    th = TH
    F = th.nn.functional
    t = {}

    def one(name, f_):
        t[name] = lambda o, a: f_(o)
    for nm in ("abs absolute exp exp2 expm1 log log1p log2 log10 sqrt rsqrt square reciprocal sin "
               "cos tan asin arcsin acos arccos atan sinh cosh tanh sigmoid erf erfc floor ceil "
               "trunc fix frac sign sgn isnan isinf isfinite relu neg negative logical_not "
               "bitwise_not").split():
        one(nm, getattr(th, nm))
    for nm in ("eq ne lt le gt ge logical_and logical_or logical_xor bitwise_and bitwise_or "
               "bitwise_xor bitwise_left_shift bitwise_right_shift atan2 arctan2 pow float_power "
               "maximum minimum fmax fmin hypot xlogy true_divide floor_divide remainder fmod "
               "sub subtract mul multiply").split():
        t[nm] = (lambda f_: lambda o, a: f_(o, a[0]))(getattr(th, nm))
    for al, nm in (("equal", "eq"), ("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"),
                   ("greater", "gt"), ("greater_equal", "ge")):
        t[al] = t[nm]
    t["add"] = lambda o, a: th.add(o, a[0], alpha=a[1]) if len(a) > 1 else th.add(o, a[0])
    t["div"] = t["divide"] = lambda o, a: th.div(o, a[0], rounding_mode=a[1] if len(a) > 1 else None)
    t["arctan"] = lambda o, a: th.atan2(o, a[0]) if a else th.atan(o)
    t["relu6"] = lambda o, a: F.relu6(o)
    t["gelu"] = lambda o, a: F.gelu(o, approximate=a[0]) if a and isinstance(a[0], str) else F.gelu(o)
    t["silu"] = lambda o, a: F.silu(o)
    t["selu"] = lambda o, a: F.selu(o)
    t["celu"] = lambda o, a: F.celu(o, a[0]) if a else F.celu(o)
    t["elu"] = lambda o, a: (F.elu(o, a[0]) if len(a) < 3 else th._C._nn.elu(o, a[0], a[1], a[2]))
    t["leaky_relu"] = lambda o, a: F.leaky_relu(o, a[0] if a else 0.01)
    t["hardtanh"] = lambda o, a: F.hardtanh(o, a[0], a[1]) if a else F.hardtanh(o)
    t["softplus"] = lambda o, a: F.softplus(o, beta=a[0], threshold=a[1]) if a else F.softplus(o)
    t["mish"] = lambda o, a: F.mish(o)
    t["round"] = lambda o, a: th.round(o, decimals=a[0]) if a and a[0] else th.round(o)
    t["logit"] = lambda o, a: th.logit(o, eps=a[0]) if a and a[0] is not None else th.logit(o)
    t["nan_to_num"] = lambda o, a: th.nan_to_num(o, nan=a[0], posinf=a[1], neginf=a[2])
    t["clamp"] = t["clip"] = lambda o, a: th.clamp(o, min=a[0], max=a[1])
    t["clamp_min"] = lambda o, a: th.clamp_min(o, a[0])
    t["clamp_max"] = lambda o, a: th.clamp_max(o, a[0])
    t["where"] = lambda o, a: th.where(a[0], o, a[1])
    t["lerp"] = lambda o, a: th.lerp(o, a[0], a[1])
    t["to_type"] = t["to"] = t["type"] = lambda o, a: o.to(a[0])
    for nm in ("float double half bfloat16 long int short char byte bool".split()):
        t[nm] = (lambda nm_: lambda o, a: getattr(o, nm_)())(nm)
    t["zeros_like"] = lambda o, a: th.zeros_like(o, dtype=a[0] if a else None)
    t["ones_like"] = lambda o, a: th.ones_like(o, dtype=a[0] if a else None)
    t["empty_like"] = lambda o, a: th.empty_like(o, dtype=a[0] if a else None)
    t["full_like"] = lambda o, a: th.full_like(o, a[0], dtype=a[1] if len(a) > 1 else None)
    return t


TT = None
TH_ST = None


def eval_call(n, env, ctx):
    th = TH
    m = n["method"]
    decl, name = m["decl"], m["name"]
    if decl == KOPS:
        return eval_map(n, env, ctx)
    obj = ev(n["obj"], env, ctx) if n.get("obj") is not None else None
    args = [ev(a, env, ctx) for a in n["args"]]
    if decl == OPS or decl == XOPS:
        if any(isinstance(x, th.Tensor) for x in args):
            return tensor_operator(name, args)
        return scalar_op(name, m, args)
    if decl in ("System.Math", "System.MathF"):
        return scalar_op(name, m, args)
    if decl == IFUNS and name == "GetArray":
        return args[0][args[1]]
    if decl == TENSOR and name == "item":
        return norm(obj.item(), m["ret"])
    if decl == TENSOR and name in ("numel", "dim"):
        return getattr(obj, name)()
    if decl in (SCALAR, "TorchSharp.ScalarExtensionMethods"):
        return args[0]
    if decl == TENSOR and name == "op_Implicit":
        return th.tensor(args[0], dtype=th_dtype_of_clr(m["params"][0]))
    if (decl, name) in ctx["defs"]:
        c = ctx["defs"][(decl, name)]
        tup = tuple_items(ctx["vars"][c.var]["type"]) if ctx["vars"][c.var]["name"] == "tupledArg" else None
        if tup:
            return apply(c, tuple(args), ctx)
        r = c
        for x in args:
            r = apply(r, x, ctx)
        return r
    if decl == "TorchSharp.torch" and name == "where" and len(args) == 3:
        return torch_call(lambda o, a: th.where(o, a[0], a[1]), args[0], args[1:])
    if decl == "TorchSharp.torch" and name == "tensor":
        dt = th_dtype_of_clr(m["params"][0])
        if len(args) > 3 and args[1] is not None:
            dt = args[1]
        return th.tensor(args[0], dtype=dt)
    if decl in NORM_DECLS and name in NORM_OPS:
        if obj is None:
            return eval_norm(name, m["params"][1:], args[0], args[1:])
        return eval_norm(name, m["params"], obj, args)
    if decl == "TorchSharp.torch+special":
        name = {"expit": "sigmoid"}.get(name, name)
    if decl == "TorchSharp.torch+nn+functional":
        x = args[0]
        if name in ("relu", "relu6", "silu", "selu", "tanh", "sigmoid", "mish", "hardsigmoid", "hardswish", "logsigmoid"):
            return torch_call(lambda o, a: getattr(th.nn.functional, name)(o), x, [])
        if name == "gelu":
            ap = args[1] if len(args) > 2 else "none"
            return torch_call(lambda o, a: th.nn.functional.gelu(o, approximate=ap), x, [])
        if name == "softplus":
            return torch_call(lambda o, a: th.nn.functional.softplus(o, beta=a[0], threshold=a[1]), x, args[1:])
        if name == "leaky_relu":
            return torch_call(lambda o, a: th.nn.functional.leaky_relu(o, a[0]), x, args[1:])
        if name in ("elu", "celu"):
            return torch_call(lambda o, a: getattr(th.nn.functional, name)(o, a[0]), x, args[1:])
        if name == "hardtanh":
            return torch_call(lambda o, a: th.nn.functional.hardtanh(o, a[0], a[1]), x, args[1:])
        raise NotImplementedError("functional " + name)
    if name == "get_dtype" or (n["k"] == "PropertyGet" and name == "dtype"):
        return obj.dtype
    if obj is None:
        obj, args = args[0], args[1:]
    if decl in ("TorchSharp.torch", TENSOR) and name in ("select", "narrow", "unsqueeze"):
        return getattr(obj, name)(*[int(a) for a in args])
    if decl in ("TorchSharp.torch", TENSOR) and name in REDUCTIONS:
        return eval_reduction(name, m["params"][0 if n.get("obj") is not None else 1:], obj, args)
    if name not in TT:
        raise NotImplementedError("%s::%s" % (decl, name))
    return torch_call(TT[name], obj, args)


REDUCTIONS = ("sum", "nansum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "cumsum")
NORM_OPS = ("softmax", "log_softmax", "var", "std", "logsumexp", "norm", "layer_norm")
NORM_DECLS = ("TorchSharp.torch", TENSOR, "TorchSharp.torch+special", "TorchSharp.torch+nn+functional")


def eval_norm(name, params, x, a):
    """The softmax family, var / std, logsumexp, norm and layer_norm (sections D / E), by overload
    (params without the input), with TorchSharp's semantics:
      - softmax / log_softmax pass dtype = input.dtype when it is null (torch.special.*);
      - var / std ignore their `type` argument (TorchSharp never passes it to LibTorch);
      - torch.norm(input) is p = 2; nn.functional.log_softmax has no dtype.
    float16 / bfloat16 are computed in float32 and rounded once (CPU PyTorch 1.13 lacks several
    half kernels; CUDA accumulates in float32 too)."""
    th = TH
    halfs = (th.float16, th.bfloat16)
    half = x.dtype in halfs
    xc = x.float() if half else x

    def back(r):
        return r.to(x.dtype) if half else r
    if name in ("softmax", "log_softmax"):
        dt = a[1] if len(a) > 1 and a[1] is not None else x.dtype
        f_ = getattr(th.special, name)
        if dt in halfs:
            # PyTorch converts the input to dtype first, then normalizes in that dtype
            return f_(x.to(dt).float(), a[0]).to(dt)
        return f_(x, a[0], dtype=dt)
    if name in ("var", "std"):
        f_ = getattr(th, name)
        if params == [BOOL]:
            return back(f_(xc, unbiased=a[0]))
        ds = list(a[0]) if isinstance(a[0], list) else [a[0]]
        return back(f_(xc, ds, unbiased=a[1], keepdim=a[2]))
    if name == "logsumexp":
        return back(th.logsumexp(xc, a[0], a[1]))
    if name == "norm":
        if not params:
            return back(xc.norm(2.0))
        if params == [SINGLE]:
            return back(xc.norm(a[0]))
        return back(xc.norm(a[2], a[0], a[1]))
    if name == "layer_norm":
        shape, w, b_, eps = a

        def up(t):
            return t.float() if t is not None and half and t.dtype == x.dtype else t
        return back(th.nn.functional.layer_norm(xc, list(shape), up(w), up(b_), eps))
    raise NotImplementedError(name)


def eval_reduction(name, params, x, a):
    """A TorchSharp reduction member (section E), by overload (params without the input)."""
    th = TH
    dims, keepdim, dtype = None, False, None
    if name in ("max", "min") and params == [TENSOR]:
        return torch_call(lambda o, r: getattr(th, name)(o, r[0]), x, a)
    if params and params[0] == INT64:
        k = sum(1 for p_ in params if p_ == INT64)
        dims = list(a[:k])
        rest = a[k:]
    elif params and params[0] == INT64 + "[]":
        dims, rest = list(a[0]), a[1:]
    else:
        rest = a
    rp = params[len(params) - len(rest):]
    for p_, v in zip(rp, rest):
        if p_ == BOOL:
            keepdim = v
        elif p_ == nullable_t(STYPE):
            dtype = v
        elif p_ == TENSOR and v is not None:
            raise NotImplementedError("%s with an out= tensor" % name)
    if name in ("sum", "mean", "nansum") or (name == "prod" and dims is None):
        kw = {"dtype": dtype} if dtype is not None else {}
        f_ = getattr(th, name)
        if dims is None:
            call = lambda o: f_(o, **kw)
        else:
            call = lambda o: f_(o, dims, keepdim, **kw)
    elif name == "prod":
        if len(dims) != 1:
            raise NotImplementedError("prod over %d dims" % len(dims))
        kw = {"dtype": dtype} if dtype is not None else {}
        call = lambda o: th.prod(o, dims[0], keepdim, **kw)
    elif name in ("amax", "amin"):
        call = lambda o: getattr(th, name)(o, dims, keepdim)
    elif name in ("max", "min") and dims is not None:
        call = lambda o: tuple(getattr(th, name)(o, dims[0], keepdim))  # (values, indices)
    elif name == "cumsum":
        kw = {"dtype": dtype} if dtype is not None else {}
        call = lambda o: th.cumsum(o, dims[0], **kw)
    elif name in ("argmax", "argmin") and dims is not None:
        call = lambda o: getattr(th, name)(o, dims[0], keepdim)
    else:
        call = lambda o: getattr(th, name)(o)
    try:
        return call(x)
    except RuntimeError as e:
        # CPU PyTorch 1.13 lacks some half kernels (prod): accumulate in float32 like CUDA does
        if x.dtype not in (th.float16, th.bfloat16) or "not implemented" not in str(e):
            raise
    FALLBACKS.append(1)
    r = call(x.float())
    return r.to(x.dtype) if dtype is None else r


def torch_check_bad(out_root, only=None):
    """Bad inputs marked torch_error: PyTorch itself must reject them (with that message)."""
    th = TH
    nbad = 0
    for idx, ex in enumerate(BAD):
        if ex.torch_error is None or not selected(ex.name, only):
            continue
        with open(os.path.join(out_root, "tests", "bad", ex.name + ".json")) as fh:
            doc = json.load(fh)
        rng = random.Random(idx * 7919 + 1)
        gen = th.Generator().manual_seed(idx)
        e = doc["entries"][0]
        sizes = dict(ex.sizes)
        inputs = [gen_input(s, rng, gen, sizes) for s in e["signature"]["params"]]
        ctx = {"vars": doc["vars"], "captures": {}, "defs": {}}
        try:
            got = ev(e["expr"], {}, ctx)
            for x in inputs:
                got = apply(got, x, ctx)
            msg = "FAIL %-34s PyTorch accepted it" % ex.name
        except (RuntimeError, IndexError, NotImplementedError, ValueError) as exc:
            first = str(exc).split("\n")[0]
            if ex.torch_error in first:
                print("ok   %-34s PyTorch rejects it: %s" % (ex.name, first[:110]))
                continue
            msg = "FAIL %-34s %s: %s (expected %r)" % (ex.name, type(exc).__name__, first[:110], ex.torch_error)
        print(msg)
        nbad += 1
    return nbad


def tensor_operator(name, a):
    th = TH
    x, y = (a + [None])[:2]
    scalar_left = not isinstance(x, th.Tensor)
    f_ = {"op_Addition": lambda o, r: (r[0] + o) if scalar_left else th.add(o, r[0]),
          "op_Subtraction": lambda o, r: (th.neg(r[0]) + o) if scalar_left else th.sub(o, r[0]),
          "op_Multiply": lambda o, r: (r[0] * o) if scalar_left else th.mul(o, r[0]),
          "op_Division": lambda o, r: (th.reciprocal(r[0]) * o) if scalar_left else th.div(o, r[0]),
          "op_Modulus": lambda o, r: th.remainder(o, r[0]),
          "op_UnaryNegation": lambda o, r: th.neg(o),
          "op_BitwiseAnd": lambda o, r: th.bitwise_and(o, r[0]),
          "op_BitwiseOr": lambda o, r: th.bitwise_or(o, r[0]),
          "op_ExclusiveOr": lambda o, r: th.bitwise_xor(o, r[0])}[name]
    return torch_call(f_, x, [y] if y is not None else [])


def apply(c, v, ctx):
    env = dict(c.env)
    env[c.var] = v
    return ev(c.body, env, ctx)


def eval_map(n, env, ctx):
    th = TH
    m = n["method"]
    fnc = ev(n["args"][0], env, ctx)
    ts = [ev(a, env, ctx) for a in n["args"][1:]]
    tys, rty = m["genericArgs"][:-1], m["genericArgs"][-1]
    ts = th.broadcast_tensors(*ts)
    shape = ts[0].shape
    cols = [t.reshape(-1).tolist() for t in ts]
    out = []
    for i in range(len(cols[0]) if cols else 0):
        r = fnc
        for col, ty in zip(cols, tys):
            r = apply(r, norm(col[i], ty), ctx)
        out.append(r)
    return th.tensor(out, dtype=th_dtype_of_clr(rty)).reshape(shape)


def ev(n, env, ctx):
    k = n["k"]
    if k == "Var":
        return env[n["var"]]
    if k == "Value":
        return load_value(n)
    if k == "ValueWithName":
        return ctx["captures"][n["name"]]
    if k == "Call" or k == "PropertyGet":
        if k == "PropertyGet":
            o = ev(n["obj"], env, ctx)
            pn = n["property"]["name"]
            if pn == "TensorItems":
                for a in n["args"]:
                    o = o[ev(a, env, ctx)]
                return o
            if pn == "shape":
                return list(o.shape)
            return o.dtype if pn == "dtype" else None
        return eval_call(n, env, ctx)
    if k == "Lambda":
        return Closure(n["var"], n["body"], env)
    if k == "Let":
        env[n["var"]] = ev(n["value"], env, ctx)
        return ev(n["body"], env, ctx)
    if k == "Application":
        return apply(ev(n["func"], env, ctx), ev(n["arg"], env, ctx), ctx)
    if k == "IfThenElse":
        return ev(n["then"] if ev(n["cond"], env, ctx) else n["else"], env, ctx)
    if k == "ForIntegerRangeLoop":
        s, e = ev(n["start"], env, ctx), ev(n["end"], env, ctx)
        for i in range(s, e + 1):
            env[n["var"]] = i
            ev(n["body"], env, ctx)
        return None
    if k == "WhileLoop":
        guard = 0
        while ev(n["cond"], env, ctx):
            ev(n["body"], env, ctx)
            guard += 1
            if guard > 10 ** 6:
                raise RuntimeError("runaway while loop")
        return None
    if k == "Sequential":
        ev(n["first"], env, ctx)
        return ev(n["second"], env, ctx)
    if k == "VarSet":
        env[n["var"]] = ev(n["value"], env, ctx)
        return None
    if k == "NewTuple":
        return tuple(ev(x, env, ctx) for x in n["items"])
    if k == "TupleGet":
        return ev(n["tuple"], env, ctx)[n["index"]]
    if k == "NewObject":
        return ev(n["args"][0], env, ctx)
    if k == "DefaultValue":
        return None
    if k == "FieldGet":
        return TH_ST[SCALARTYPE[DTYPE_FIELDS[n["field"]["name"]]]]
    if k == "Coerce":
        return ev(n["expr"], env, ctx)
    if k == "NewArray":
        return [ev(x, env, ctx) for x in n["items"]]
    raise NotImplementedError(k)


def gen_input(sig, rng, gen, sizes):
    th = TH
    if "scalar" in sig:
        dt = sig["scalar"]
        if dt in ("float32", "float64"):
            v = rng.uniform(-9, 9)
            return f32_round(v) if dt == "float32" else v
        if dt == "bool":
            return rng.random() < 0.5
        lo = 0 if dt == "uint8" else -9
        v = rng.randrange(lo, 10)
        return v if not (sig.get("nonzero") and v == 0) else 1
    shape = [sizes.setdefault(dd, 6) if isinstance(dd, str) else (5 if dd is None else dd)
             for dd in sig["shape"]]
    dt = getattr(th, sig["dtype"])
    if sig["dtype"] in ("float32", "float64", "float16", "bfloat16"):
        x = (th.rand(shape, generator=gen, dtype=th.float64) * 18 - 9).to(dt)
        if sig.get("nonzero"):
            x = th.where(x == 0, th.ones_like(x), x)
        return x
    if sig["dtype"] == "bool":
        return th.randint(0, 2, shape, generator=gen).bool()
    lo = 0 if sig["dtype"] == "uint8" else -9
    x = th.randint(lo, 10, shape, generator=gen).to(dt)
    if sig.get("nonzero"):
        x = th.where(x == 0, th.ones_like(x), x)
    return x


def as_list(r):
    return list(r) if isinstance(r, tuple) else [r]


def compare(a, b_, tol, th):
    if tuple(a.shape) != tuple(b_.shape):
        return "shape %s vs %s" % (tuple(a.shape), tuple(b_.shape))
    if a.dtype.is_floating_point or b_.dtype.is_floating_point:
        x, y = a.double(), b_.double()
        nx, ny = th.isnan(x), th.isnan(y)
        if not th.equal(nx, ny):
            return "NaN positions differ"
        x, y = th.where(nx, th.zeros_like(x), x), th.where(ny, th.zeros_like(y), y)
        if not th.allclose(x, y, rtol=tol[0], atol=tol[1]):
            diff = (x - y).abs().max().item()
            return "values differ (max abs diff %g)" % diff
        return None
    if not th.equal(a.to(th.int64), b_.to(th.int64)):
        return "values differ"
    return None


def default_tol(dtypes):
    if "bfloat16" in dtypes:
        return (3e-2, 3e-2)
    if "float16" in dtypes:
        return (1e-2, 1e-2)
    return (2e-5, 1e-5)


def torch_check(out_root, only=None):
    global TH, TT, TH_ST
    try:
        import torch as th
    except ImportError:
        sys.exit("--check needs PyTorch (try /usr/bin/python3)")
    TH = th
    TT = tensor_table()
    TH_ST = {0: th.uint8, 1: th.int8, 2: th.int16, 3: th.int32, 4: th.int64, 5: th.float16,
             6: th.float32, 7: th.float64, 9: th.complex64, 10: th.complex128, 11: th.bool,
             15: th.bfloat16}
    import warnings
    warnings.filterwarnings("ignore")
    bad_count = 0
    for idx, ex in enumerate(EXAMPLES):
        if not selected(ex.name, only):
            continue
        with open(os.path.join(out_root, "examples", ex.name + ".json")) as fh:
            doc = json.load(fh)
        rng = random.Random(idx * 7919 + 1)
        gen = th.Generator().manual_seed(idx)
        sizes = dict(ex.sizes)
        e = doc["entries"][0]
        sig = e["signature"]
        inputs = [gen_input(s, rng, gen, sizes) for s in sig["params"]]
        caps = {k: gen_input(v, rng, gen, sizes) for k, v in sig.get("captures", {}).items()}
        ctx = {"vars": doc["vars"], "captures": caps, "defs": {}}
        for dd in doc.get("definitions", []):
            ctx["defs"][(dd["member"]["decl"], dd["member"]["name"])] = ev(dd["expr"], {}, ctx)
        del FALLBACKS[:]
        problems = []
        try:
            fnc = ev(e["expr"], {}, ctx)
            if ex.tupled:
                got = apply(fnc, tuple(inputs), ctx)
            else:
                got = fnc
                for x in inputs:
                    got = apply(got, x, ctx)
        except Exception as exc:  # noqa
            print("FAIL %s: evaluation raised %s: %s" % (ex.name, type(exc).__name__, exc))
            bad_count += 1
            continue
        fb = bool(FALLBACKS)
        outs = as_list(got)
        # a .NET number returned by the entry: a 0-dim tensor of its type
        outs = [o if isinstance(o, th.Tensor) else th.tensor(o, dtype=getattr(th, ex.expect[j]) if ex.expect else None)
                for j, o in enumerate(outs)]
        in_dtypes = [s.get("dtype", s.get("scalar")) for s in sig["params"]] + \
                    [v["dtype"] for v in sig.get("captures", {}).values()]
        out_dtypes = [str(o.dtype).replace("torch.", "") for o in outs]
        tol = ex.tol or default_tol(in_dtypes + out_dtypes)
        if ex.expect is not None and out_dtypes != ex.expect:
            problems.append("output dtypes %s, expected %s" % (out_dtypes, ex.expect))
        for j, o in enumerate(outs):
            if o.dtype.is_floating_point and o.numel() > 0:
                frac = th.isnan(o.double()).double().mean().item()
                if frac > 0.5:
                    problems.append("output %d is %.0f%% NaN" % (j, frac * 100))
        if ex.ref is not None:
            ref_in = list(inputs)
            ref_caps = dict(caps)
            try:
                want = ex.ref(th, *ref_in, **ref_caps)
            except RuntimeError as exc:
                if "Half" not in str(exc):
                    raise
                up = [x.float() if isinstance(x, th.Tensor) and x.dtype == th.float16 else x for x in ref_in]
                upc = {k: (v.float() if v.dtype == th.float16 else v) for k, v in ref_caps.items()}
                want = ex.ref(th, *up, **upc)
                want = tuple(w.to(o.dtype) for w, o in zip(as_list(want), outs)) if isinstance(want, tuple) \
                    else want.to(outs[0].dtype)
                fb = True
            wl = as_list(want)
            if len(wl) != len(outs):
                problems.append("%d outputs, reference has %d" % (len(outs), len(wl)))
            for j, (o, w) in enumerate(zip(outs, wl)):
                if not isinstance(w, th.Tensor):
                    w = th.tensor(w)
                if o.dtype != w.dtype and not fb:
                    problems.append("output %d dtype %s, reference %s" % (j, o.dtype, w.dtype))
                msg = compare(o, w.to(o.dtype) if fb else w, tol, th)
                if msg:
                    problems.append("output %d: %s" % (j, msg))
        status = "ok  " if not problems else "FAIL"
        shapes = ", ".join("%s%s" % (dt, list(o.shape)) for dt, o in zip(out_dtypes, outs))
        print("%s %-34s -> %s%s%s" % (status, ex.name, shapes, "  [f16 upcast]" if fb else "",
                                      "" if ex.ref else "  (no reference)"))
        for p in problems:
            print("       " + p)
        if problems:
            bad_count += 1
    bad_count += torch_check_bad(out_root, only)
    print("%d examples checked, %d failed" % (sum(1 for ex in EXAMPLES if selected(ex.name, only)), bad_count))
    return bad_count


def main(argv):
    out_root = ROOT
    only = None
    if "--out" in argv:
        out_root = argv[argv.index("--out") + 1]
    if "--only" in argv:
        only = set(argv[argv.index("--only") + 1].split(","))
    if "--list" in argv:
        for ex in EXAMPLES:
            print("%-36s %s" % (ex.name, ex.covers))
        return 0
    failures = write_outputs(out_root, only)
    n = len(EXAMPLES) if not only else len([e for e in EXAMPLES if selected(e.name, only)])
    print("indexed %d examples (their .fs/.json are not written here), wrote %d bad inputs; %d invalid" % (n, len(BAD), failures))
    if failures:
        return 1
    if "--check" in argv:
        return 1 if torch_check(out_root, only) else 0
    return 0


# ========================================================================================
# THE EXAMPLES
# ========================================================================================
F32, F64, F16, BF16 = "float32", "float64", "float16", "bfloat16"
I8, U8, I16, I32_, I64_, BOOL_ = "int8", "uint8", "int16", "int32", "int64", "bool"


def F():
    """torch.nn.functional"""
    return torch.nn.functional


def rmode(name):
    return getattr(torch.RoundingMode, name)


# ---- A1: F# operators on tensors ---------------------------------------------------------
@example("pw_add_tt_f32", "Tensor + Tensor: Operators.op_Addition<Tensor,Tensor,Tensor>",
         [("x", ten(F32, 257, 67)), ("y", ten(F32, 257, 67))],
         ref=lambda th, x, y: x + y)
def _(x, y):
    return x + y


@example("pw_sub_tt_f64", "Tensor - Tensor on float64, odd size 457",
         [("x", ten(F64, 457)), ("y", ten(F64, 457))],
         ref=lambda th, x, y: x - y)
def _(x, y):
    return x - y


@example("pw_mul_tt_i32", "Tensor * Tensor on int32",
         [("x", ten(I32_, 64, 33)), ("y", ten(I32_, 64, 33))],
         ref=lambda th, x, y: x * y, expect=["int32"])
def _(x, y):
    return x * y


@example("pw_div_tt_f32", "Tensor / Tensor (true division), size 1023",
         [("x", ten(F32, 1023)), ("y", ten(F32, 1023, nonzero=True))],
         ref=lambda th, x, y: x / y)
def _(x, y):
    return x / y


@example("pw_div_int_true_i64", "int64 / int64 is true division: result float32",
         [("x", ten(I64_, 7, 13)), ("y", ten(I64_, 7, 13, nonzero=True))],
         ref=lambda th, x, y: x / y, expect=["float32"])
def _(x, y):
    return x / y


@example("pw_mod_tt_i32", "Tensor % Tensor is remainder (floored, sign of divisor) on int32",
         [("x", ten(I32_, 67)), ("y", ten(I32_, 67, nonzero=True))],
         ref=lambda th, x, y: th.remainder(x, y), expect=["int32"])
def _(x, y):
    return x % y


@example("pw_neg_f32", "unary minus: Operators.op_UnaryNegation<Tensor>, rank 3",
         [("x", ten(F32, 3, 5, 7))], ref=lambda th, x: -x)
def _(x):
    return -x


@example("pw_neg_i8", "unary minus on int8", [("x", ten(I8, 100))],
         ref=lambda th, x: -x, expect=["int8"])
def _(x):
    return -x


@example("pw_scalar_right_f32",
         "Tensor op primitive on the right: + Int32, * Int64, - Single, / Double",
         [("x", ten(F32, 32, 32))],
         ref=lambda th, x: ((x + 1) * 2 - 0.5) / 4.0, expect=["float32"])
def _(x):
    return ((x + 1) * L(2) - f(0.5)) / 4.0


@example("pw_scalar_left_f64",
         "primitive op Tensor on the left: Int32 +, Int64 *, Single - (negative().add), Double / (reciprocal().mul)",
         [("x", ten(F64, 50))],
         ref=lambda th, x: (1 + x, 2 * x, th.neg(x) + 0.5, th.reciprocal(x.abs() + 1) * 4.0),
         expect=["float64"] * 4)
def _(x):
    return tuple_(1 + x, L(2) * x, f(0.5) - x, 4.0 / (x.abs() + 1))


@example("pw_mod_scalar_f32", "Tensor % Single and Tensor % Double: remainder with a scalar",
         [("x", ten(F32, 300))],
         ref=lambda th, x: (th.remainder(x, 2.5), th.remainder(x, -3.0)))
def _(x):
    return tuple_(x % f(2.5), x % -3.0)


@example("pw_mod_scalar_i16", "Tensor % Int32 and % Int64 on int16 (floored remainder, dtype kept)",
         [("x", ten(I16, 120))],
         ref=lambda th, x: (th.remainder(x, 4), th.remainder(x, -3)), expect=["int16", "int16"])
def _(x):
    return tuple_(x % 4, x % L(-3))


@example("pw_bitops_i32", "&&& ||| ^^^ on int32 tensors (Operators.op_BitwiseAnd<Tensor> ...)",
         [("a", ten(I32_, 128)), ("b", ten(I32_, 128)), ("c", ten(I32_, 128))],
         ref=lambda th, a, b, c: (a & b) ^ (a | c), expect=["int32"])
def _(a, b_, c):
    return (a & b_) ^ (a | c)


@example("pw_bitops_bool", "&&& ||| ^^^ on bool tensors",
         [("p", ten(BOOL_, 9, 9)), ("q", ten(BOOL_, 9, 9)), ("r", ten(BOOL_, 9, 9))],
         ref=lambda th, p, q, r: (p ^ (q & r)) | q, expect=["bool"])
def _(p, q, r):
    return (p ^ (q & r)) | q


@example("pw_int_scalar_keeps_dtype", "int32 tensor * Int32 + Int64 scalar stays int32 (scalars do not promote)",
         [("x", ten(I32_, 10, 10))],
         ref=lambda th, x: x * 3 + 7, expect=["int32"])
def _(x):
    return x * 3 + L(7)


@example("pw_u8_sub_wrap", "uint8 arithmetic wraps: u - 3 and 5 - u (= u.negative().add(5))",
         [("u", ten(U8, 40))],
         ref=lambda th, u: (u - 3, th.neg(u) + 5), expect=["uint8", "uint8"])
def _(u):
    return tuple_(u - 3, 5 - u)


@example("pw_i8_mul_wrap", "int8 multiplication wraps (x * 20)", [("x", ten(I8, 64))],
         ref=lambda th, x: x * 20, expect=["int8"])
def _(x):
    return x * 20


# ---- A4: arithmetic methods --------------------------------------------------------------
@example("add_alpha_f32", "x.add(y, alpha) with alpha via Scalar.op_Implicit(Single)",
         [("x", ten(F32, 64, 100)), ("y", ten(F32, 64, 100))],
         ref=lambda th, x, y: th.add(x, y, alpha=0.5))
def _(x, y):
    return x.add(y, f(0.5))


@example("add_static_scalar_alpha", "torch.add(Tensor, Scalar, Scalar) and torch.add(Tensor, Tensor) on float64",
         [("x", ten(F64, 20, 30)), ("y", ten(F64, 30))],
         ref=lambda th, x, y: (th.add(x, 2.0, alpha=3.0), th.add(x, y)))
def _(x, y):
    return tuple_(torch.add(x, f(2.0).ToScalar(), f(3.0).ToScalar()), torch.add(x, y))


@example("sub_subtract_f32", "sub / subtract: instance, static, Tensor and Scalar forms",
         [("x", ten(F32, 100)), ("y", ten(F32, 100))],
         ref=lambda th, x, y: (x - y - 1.5, x - y, x - y, x - 2))
def _(x, y):
    return tuple_(torch.subtract(x.sub(y), f(1.5).ToScalar()), torch.sub(x, y), x.subtract(y),
                  x.sub(i32(2).ToScalar()))


@example("mul_multiply_f64", "mul / multiply: instance, static, Tensor and Scalar forms",
         [("x", ten(F64, 10, 11)), ("y", ten(F64, 10, 11))],
         ref=lambda th, x, y: (x * y, x * 0.25, x * y, x * y))
def _(x, y):
    return tuple_(x.mul(y), torch.multiply(x, d(0.25).ToScalar()), x.multiply(y), torch.mul(x, y))


@example("div_rounding_none_f32", "div with the default RoundingMode.None filled in (enum Value), divide with a Scalar",
         [("x", ten(F32, 200)), ("y", ten(F32, 200, nonzero=True))],
         ref=lambda th, x, y: (x / y, x / y, x / 2.0))
def _(x, y):
    return tuple_(x.div(y), torch.div(x, y), torch.divide(x, d(2.0).ToScalar()))


@example("div_rounding_trunc_i32", "div(..., RoundingMode.trunc) on int32 (tensor and Scalar divisor)",
         [("x", ten(I32_, 150)), ("y", ten(I32_, 150, nonzero=True))],
         ref=lambda th, x, y: (th.div(x, y, rounding_mode="trunc"), th.div(x, 2.5, rounding_mode="trunc")),
         expect=["int32", "float32"])
def _(x, y):
    return tuple_(torch.div(x, y, rmode("trunc")),
                  x.div(f(2.5).ToScalar(), rounding_mode=rmode("trunc")))


@example("div_rounding_floor", "div(..., RoundingMode.floor) on float32 (named argument) and divide on int64",
         [("x", ten(F32, 90)), ("y", ten(F32, 90, nonzero=True)), ("n", ten(I64_, 90))],
         ref=lambda th, x, y, n: (th.div(x, y, rounding_mode="floor"), th.div(n, 3, rounding_mode="floor")),
         expect=["float32", "int64"])
def _(x, y, n):
    return tuple_(x.div(y, rounding_mode=rmode("floor")),
                  torch.divide(n, i32(3).ToScalar(), rmode("floor")))


@example("true_divide_i16", "true_divide on int16 gives float32 (instance, static, Scalar)",
         [("x", ten(I16, 77)), ("y", ten(I16, 77, nonzero=True))],
         ref=lambda th, x, y: (th.true_divide(x, y), th.true_divide(x, y), th.true_divide(x, 2)),
         expect=["float32"] * 3)
def _(x, y):
    return tuple_(x.true_divide(y), torch.true_divide(x, y), x.true_divide(i32(2).ToScalar()))


@example("floor_divide_i32", "floor_divide: int32 tensors (floors toward -inf) and float32 / Scalar",
         [("x", ten(I32_, 120)), ("y", ten(I32_, 120, nonzero=True)), ("z", ten(F32, 120))],
         ref=lambda th, x, y, z: (th.floor_divide(x, y), th.floor_divide(x, y), th.floor_divide(z, 2.5)),
         expect=["int32", "int32", "float32"])
def _(x, y, z):
    return tuple_(torch.floor_divide(x, y), x.floor_divide(y), z.floor_divide(f(2.5).ToScalar()))


@example("remainder_fmod_i32", "remainder (floored) vs fmod (truncated) on int32, static and instance",
         [("x", ten(I32_, 200)), ("y", ten(I32_, 200, nonzero=True))],
         ref=lambda th, x, y: (th.remainder(x, y), th.fmod(x, y), th.remainder(x, y), th.fmod(x, y)),
         expect=["int32"] * 4)
def _(x, y):
    return tuple_(torch.remainder(x, y), torch.fmod(x, y), x.remainder(y), x.fmod(y))


@example("remainder_fmod_scalar_f32", "remainder / fmod with Scalar divisors of both signs",
         [("x", ten(F32, 16, 16))],
         ref=lambda th, x: (th.remainder(x, 2.5), th.fmod(x, -2.5), th.remainder(x, 3), th.fmod(x, 3)))
def _(x):
    return tuple_(x.remainder(f(2.5).ToScalar()), x.fmod(f(-2.5).ToScalar()),
                  torch.remainder(x, i32(3).ToScalar()), torch.fmod(x, i32(3).ToScalar()))


@example("neg_aliases_i64", "neg / negative, static and instance, on int64",
         [("x", ten(I64_, 31))],
         ref=lambda th, x: (-x, -x, x), expect=["int64"] * 3)
def _(x):
    return tuple_(torch.neg(x), x.negative(), torch.negative(x).neg())


# ---- B: comparisons, logical, bitwise ----------------------------------------------------
@example("cmp_tensor_i32", "eq ne lt le gt ge, instance Tensor forms, on int32 (ties are common)",
         [("x", ten(I32_, 40, 25)), ("y", ten(I32_, 40, 25))],
         ref=lambda th, x, y: (x == y, x != y, x < y, x <= y, x > y, x >= y), expect=["bool"] * 6)
def _(x, y):
    return tuple_(x.eq(y), x.ne(y), x.lt(y), x.le(y), x.gt(y), x.ge(y))


@example("cmp_static_bcast_f32", "torch.eq/ne/lt/le/gt/ge static forms with broadcasting [40,25] vs [1,25]",
         [("x", ten(F32, 40, 25)), ("y", ten(F32, 1, 25))],
         ref=lambda th, x, y: (x == y, x != y, x < y, x <= y, x > y, x >= y), expect=["bool"] * 6)
def _(x, y):
    return tuple_(torch.eq(x, y), torch.ne(x, y), torch.lt(x, y), torch.le(x, y), torch.gt(x, y),
                  torch.ge(x, y))


@example("cmp_scalar", "comparisons with a Scalar (.ToScalar()) on float32 and int16",
         [("x", ten(F32, 128)), ("n", ten(I16, 128))],
         ref=lambda th, x, n: ((x > 0.5) & (x <= 4.0), n == 3, n != -2, x < -1, x >= 2),
         expect=["bool"] * 5)
def _(x, n):
    return tuple_(x.gt(f(0.5).ToScalar()).logical_and(x.le(d(4.0).ToScalar())),
                  n.eq(i32(3).ToScalar()), n.ne(i32(-2).ToScalar()), x.lt(f(-1.0).ToScalar()),
                  x.ge(L(2).ToScalar()))


@example("cmp_aliases_i16", "equal (a Tensor, not bool), not_equal, less, greater, less_equal, greater_equal",
         [("a", ten(I16, 60)), ("b", ten(I16, 60))],
         ref=lambda th, a, b: (a == b, a != b, a < b, a > b, a <= b, a >= b, a == b),
         expect=["bool"] * 7)
def _(a, b_):
    return tuple_(torch.equal(a, b_), a.not_equal(b_), torch.less(a, b_), a.greater(b_),
                  torch.less_equal(a, b_), a.greater_equal(b_), a.equal(b_))


@example("logical_bool", "logical_and / or / xor / not on bool tensors",
         [("p", ten(BOOL_, 50)), ("q", ten(BOOL_, 50)), ("r", ten(BOOL_, 50))],
         ref=lambda th, p, q, r: ((p & q) ^ ~r) | (p & r), expect=["bool"])
def _(p, q, r):
    return torch.logical_xor(p.logical_and(q), r.logical_not()).logical_or(torch.logical_and(p, r))


@example("logical_on_numbers", "logical ops on float32 / int8 operands (truthiness)",
         [("x", ten(F32, 70)), ("n", ten(I8, 70))],
         ref=lambda th, x, n: (th.logical_and(x.relu(), n), th.logical_or(x.relu(), n),
                               th.logical_not(n), th.logical_xor(x.relu(), n)),
         expect=["bool"] * 4)
def _(x, n):
    r = x.relu()
    return tuple_(torch.logical_and(r, n), r.logical_or(n), torch.logical_not(n), torch.logical_xor(r, n))


@example("bitwise_methods_i64", "bitwise_and / or / xor / not methods on int64",
         [("a", ten(I64_, 99)), ("b", ten(I64_, 99))],
         ref=lambda th, a, b: ~((a & b) ^ (a | b)), expect=["int64"])
def _(a, b_):
    return torch.bitwise_xor(a.bitwise_and(b_), torch.bitwise_or(a, b_)).bitwise_not()


@example("bitwise_bool_u8", "bitwise_not on bool (logical not) and uint8; bitwise_and / or on uint8",
         [("p", ten(BOOL_, 33)), ("u", ten(U8, 33)), ("v", ten(U8, 33))],
         ref=lambda th, p, u, v: (~p, ~u, u & v, u | v), expect=["bool", "uint8", "uint8", "uint8"])
def _(p, u, v):
    return tuple_(p.bitwise_not(), torch.bitwise_not(u), u.bitwise_and(v), torch.bitwise_or(u, v))


@example("shift_i32", "bitwise_left_shift / right_shift on int32, counts s % 8 in [0, 8)",
         [("x", ten(I32_, 257)), ("s", ten(I32_, 257))],
         ref=lambda th, x, s: (x << th.remainder(s, 8), x >> th.remainder(s, 8)), expect=["int32"] * 2)
def _(x, s):
    return tuple_(x.bitwise_left_shift(s % 8), torch.bitwise_right_shift(x, s % 8))


@example("shift_u8", "shifts on uint8 (left shift wraps in 8 bits), counts % 8",
         [("u", ten(U8, 3, 41)), ("v", ten(U8, 3, 41)), ("w", ten(U8, 3, 41))],
         ref=lambda th, u, v, w: (u << th.remainder(v, 8)) >> th.remainder(w, 8), expect=["uint8"])
def _(u, v, w):
    return torch.bitwise_left_shift(u, v % 8).bitwise_right_shift(w % 8)


@example("shift_i8_by_i16", "int8 << int16 counts: promotes to int16; arithmetic right shift of negatives",
         [("x", ten(I8, 80)), ("s", ten(I16, 80))],
         ref=lambda th, x, s: ((x << th.remainder(s, 8)), x >> th.remainder(s, 8)),
         expect=["int16", "int16"])
def _(x, s):
    return tuple_(x.bitwise_left_shift(s % 8), x.bitwise_right_shift(s % 8))


# ---- C1: pointwise unary -----------------------------------------------------------------
@example("un_exp_family_f32", "exp, exp2, expm1 (torch, Tensor and torch.special forms)",
         [("x", ten(F32, 500))],
         ref=lambda th, x: (x.exp(), th.exp2(x), x.expm1(), th.exp2(x), th.expm1(x)))
def _(x):
    return tuple_(x.exp(), torch.exp2(x), x.expm1(), torch.special.exp2(x), torch.special.expm1(x))


@example("un_log_family_f32", "log, log1p, log2, log10 of a positive tensor bound with let",
         [("x", ten(F32, 40, 40))],
         ref=lambda th, x: tuple(f_(x.abs() + 0.5) for f_ in (th.log, th.log1p, th.log2, th.log10)))
def _(x):
    return let_("p", x.abs() + f(0.5),
                lambda p: tuple_(p.log(), torch.log1p(p), p.log2(), torch.log10(p)))


@example("un_sqrt_rsqrt_f64", "sqrt, rsqrt on float64",
         [("x", ten(F64, 333))],
         ref=lambda th, x: (th.sqrt(x.abs() + 1e-3), th.rsqrt(x.abs() + 1e-3), (x * x).sqrt()))
def _(x):
    return let_("p", x.abs() + 1e-3, lambda p: tuple_(torch.sqrt(p), p.rsqrt(), (x * x).sqrt()))


@example("un_square_reciprocal_i32", "square keeps int32; reciprocal of int32 is float32",
         [("x", ten(I32_, 77))],
         ref=lambda th, x: (x * x, th.square(x), th.reciprocal(x + 10)),
         expect=["int32", "int32", "float32"])
def _(x):
    return tuple_(x.square(), torch.square(x), (x + 10).reciprocal())


@example("un_trig_f32", "sin, cos, tan in one expression",
         [("x", ten(F32, 8, 128))],
         ref=lambda th, x: th.sin(x) + x.cos() * th.tan(x * 0.1))
def _(x):
    return torch.sin(x) + x.cos() * torch.tan(x * f(0.1))


@example("un_invtrig_f32", "asin/arcsin, acos/arccos, atan/arctan (inputs squashed into (-1, 1) by tanh)",
         [("x", ten(F32, 257))],
         ref=lambda th, x: (th.asin(x.tanh()), th.acos(x.tanh()), th.atan(x), th.asin(x.tanh()),
                            th.acos(x.tanh()), th.atan(x), th.atan(x)))
def _(x):
    return let_("t", x.tanh(), lambda t: tuple_(torch.asin(t), t.acos(), torch.atan(x), torch.arcsin(t),
                                                t.arccos(), x.arctan(), torch.arctan(x)))


@example("un_hyperbolic_f64", "sinh, cosh, tanh on float64",
         [("x", ten(F64, 6, 50))],
         ref=lambda th, x: (x.sinh(), x.cosh(), x.tanh(), x.tanh()))
def _(x):
    return tuple_(x.sinh(), torch.cosh(x), x.tanh(), torch.tanh(x))


@example("un_sigmoid_erf_f32", "sigmoid, erf, erfc (torch, Tensor, torch.special incl. expit)",
         [("x", ten(F32, 1000))],
         ref=lambda th, x: (x.sigmoid(), x.erf(), x.erfc(), x.sigmoid(), x.sigmoid(), x.erf(), x.erfc()))
def _(x):
    return tuple_(torch.sigmoid(x), x.erf(), torch.erfc(x), torch.special.expit(x), x.sigmoid(),
                  torch.special.erf(x), torch.special.erfc(x))


@example("un_rounding_f32", "floor, ceil, round (decimals=0L filled in), trunc, frac, fix",
         [("x", ten(F32, 21, 21))],
         ref=lambda th, x: (x.floor(), x.ceil(), x.round(), x.trunc(), x.frac(), x.trunc(), x.trunc()))
def _(x):
    return tuple_(x.floor(), torch.ceil(x), x.round(), torch.trunc(x), x.frac(), torch.fix(x), x.fix())


@example("un_round_half_even", "round of exact halves rounds half to even (built as round(2x) * 0.5)",
         [("x", ten(F32, 200))],
         ref=lambda th, x: (th.round(th.round(x * 2.0) * 0.5), th.round(th.round(x * 2.0) * 0.5)))
def _(x):
    return let_("h", (x * f(2.0)).round() * f(0.5), lambda h: tuple_(h.round(), torch.round(h)))


@example("un_round_decimals_f64", "round with decimals 2, 1 and -1 (Int64 argument)",
         [("x", ten(F64, 150))],
         ref=lambda th, x: (th.round(x, decimals=2), th.round(x, decimals=1), th.round(x * 10.0, decimals=-1)))
def _(x):
    return tuple_(x.round(L(2)), torch.round(x, L(1)), (x * 10.0).round(L(-1)))


@example("un_sign_abs_i8", "sign, sgn, abs, absolute on int8",
         [("x", ten(I8, 99))],
         ref=lambda th, x: (x.sign(), x.abs(), x.abs(), th.sgn(x), x.abs()), expect=["int8"] * 5)
def _(x):
    return tuple_(x.sign(), torch.abs(x), x.absolute(), torch.sgn(x), torch.absolute(x))


@example("un_logit", "logit without eps (DefaultValue / Value null Nullable<double>) and with eps (Nullable ctor)",
         [("x", ten(F32, 300))],
         ref=lambda th, x: (th.logit(x.sigmoid()), th.logit(x.sigmoid(), eps=1e-3),
                            th.special.logit(x.sigmoid()), th.logit(x, eps=0.25)))
def _(x):
    return let_("p", x.sigmoid(), lambda p: tuple_(p.logit(), torch.logit(p, 1e-3),
                                                   torch.special.logit(p), x.logit(0.25)))


@example("un_isnan_isinf_isfinite", "isnan, isinf, isfinite on a tensor with inf (x * 1e38f) and NaN (inf - inf)",
         [("x", ten(F32, 400))],
         ref=lambda th, x: ((x * 1e38).isinf(), (x * 1e38).isfinite(), ((x * 1e38) - (x * 1e38)).isnan(),
                            (x * 1e38).isnan(), x.isfinite()),
         expect=["bool"] * 5)
def _(x):
    return let_("y", x * f(1e38), lambda y: tuple_(y.isinf(), torch.isfinite(y), (y - y).isnan(),
                                                   torch.isnan(y), x.isfinite()))


@example("un_nan_to_num_default", "nan_to_num with defaults (nan=0, posinf/neginf = dtype max/lowest)",
         [("x", ten(F32, 500))],
         ref=lambda th, x: (th.nan_to_num(th.log(x) * th.exp(x * 100.0)), th.nan_to_num(th.log(x) * th.exp(x * 100.0))))
def _(x):
    return let_("y", x.log() * (x * f(100.0)).exp(), lambda y: tuple_(y.nan_to_num(), torch.nan_to_num(y)))


@example("un_nan_to_num_custom", "nan_to_num with posinf / neginf given (Nullable<double> ctor) and only neginf named",
         [("x", ten(F64, 500))],
         ref=lambda th, x: (th.nan_to_num(th.log(x) * th.exp(x * 1000.0), 1.0, 100.0, -100.0),
                            th.nan_to_num(th.log(x) * th.exp(x * 1000.0), 0.0, neginf=-1.0)))
def _(x):
    return let_("y", x.log() * (x * 1000.0).exp(),
                lambda y: tuple_(y.nan_to_num(1.0, 100.0, -100.0), torch.nan_to_num(y, 0.0, neginf=-1.0)))


@example("un_f16_ops", "float16 tensor: abs * 2f, unary minus, exp (result float16)",
         [("x", ten(F16, 1000))],
         ref=lambda th, x: (x.abs() * 2.0, -x, x.exp()), expect=["float16"] * 3)
def _(x):
    return tuple_(x.abs() * f(2.0), -x, x.exp())


@example("un_bf16_ops", "bfloat16 tensor: tanh + sigmoid * 2.0 stays bfloat16",
         [("x", ten(BF16, 16, 64))],
         ref=lambda th, x: x.tanh() + x.sigmoid() * 2.0, expect=["bfloat16"])
def _(x):
    return x.tanh() + x.sigmoid() * 2.0


# ---- C2: pointwise binary / ternary ------------------------------------------------------
@example("bin_atan2_f32", "atan2 / arctan2 / two-argument arctan, static and instance",
         [("y", ten(F32, 100)), ("x", ten(F32, 100))],
         ref=lambda th, y, x: tuple([th.atan2(y, x)] * 6))
def _(y, x):
    return tuple_(torch.atan2(y, x), y.arctan2(x), torch.arctan2(y, x), y.atan2(x), torch.arctan(y, x),
                  y.arctan(x))


@example("bin_pow_tensor_f32", "pow with a tensor exponent (static and instance)",
         [("x", ten(F32, 300)), ("y", ten(F32, 300))],
         ref=lambda th, x, y: (th.pow(x.abs() + 0.5, y * 0.25), (x.abs() + 1).pow(y.abs() * 0.1)))
def _(x, y):
    return tuple_(torch.pow(x.abs() + f(0.5), y * f(0.25)), (x.abs() + 1).pow(y.abs() * 0.1))


@example("bin_pow_scalar", "pow with a Scalar exponent: float32 ^ 2f, int32 ^ 3 stays int32, sqrt via ^ 0.5",
         [("x", ten(F32, 128)), ("n", ten(I32_, 128))],
         ref=lambda th, x, n: (x ** 2.0, n ** 3, n ** 2, x.abs() ** 0.5),
         expect=["float32", "int32", "int32", "float32"])
def _(x, n):
    return tuple_(x.pow(f(2.0).ToScalar()), torch.pow(n, i32(3).ToScalar()), n.pow(i32(2).ToScalar()),
                  x.abs().pow(d(0.5).ToScalar()))


@example("bin_float_power", "float_power computes in float64 (float32 and int32 inputs)",
         [("x", ten(F32, 64)), ("y", ten(F32, 64)), ("n", ten(I32_, 64)), ("m", ten(I32_, 64))],
         ref=lambda th, x, y, n, m: (th.float_power(x.abs(), y), (n.abs() + 1).float_power(m)),
         expect=["float64", "float64"])
def _(x, y, n, m):
    return tuple_(torch.float_power(x.abs(), y), (n.abs() + 1).float_power(m))


@example("bin_max_min_nan", "maximum / minimum propagate NaN, fmax / fmin ignore it (log(x + 6) is NaN for x < -6)",
         [("x", ten(F32, 500)), ("y", ten(F32, 500))],
         ref=lambda th, x, y: (th.maximum(th.log(x + 6), y), th.minimum(th.log(x + 6), y),
                               th.fmax(th.log(x + 6), y), th.fmin(th.log(x + 6), y)))
def _(x, y):
    return let_("xn", (x + 6).log(), lambda xn: tuple_(torch.maximum(xn, y), xn.minimum(y),
                                                       torch.fmax(xn, y), xn.fmin(y)))


@example("clamp_scalar_f32", "clamp with Scalar bounds (instance and static)",
         [("x", ten(F32, 48, 48))],
         ref=lambda th, x: (x.clamp(-1.0, 1.0), x.clamp(-2.0, 2.0)))
def _(x):
    return tuple_(x.clamp(f(-1.0).ToScalar(), f(1.0).ToScalar()),
                  torch.clamp(x, d(-2.0).ToScalar(), d(2.0).ToScalar()))


@example("clamp_tensor_f32", "clamp with Tensor bounds that broadcast ([8,64] between [1,64] and [8,1])",
         [("x", ten(F32, 8, 64)), ("lo", ten(F32, 1, 64)), ("hi", ten(F32, 8, 1))],
         ref=lambda th, x, lo, hi: (th.clamp(x, lo, hi), th.clamp(x, lo, hi)))
def _(x, lo, hi):
    return tuple_(x.clamp(lo, hi), torch.clamp(x, lo, hi))


@example("clamp_one_sided", "one-sided clamp via named arguments: the other bound arrives as Value null",
         [("x", ten(F32, 200)), ("hi", ten(F32, 200))],
         ref=lambda th, x, hi: (x.clamp(min=0.5), th.clamp(x, max=hi), x.clamp(max=-1.0)))
def _(x, hi):
    return tuple_(x.clamp(min=f(0.5).ToScalar()), x.clamp(max=hi), torch.clamp(x, max=d(-1.0).ToScalar()))


@example("clamp_min_max_clip", "clamp_min / clamp_max / clip (Scalar-only parameters: implicit Scalar conversion)",
         [("x", ten(F32, 120))],
         ref=lambda th, x: (x.clamp_min(-2.0), x.clamp_max(3.0), th.clamp_min(x, 0), x.clamp(-1, 1),
                            x.clamp(-0.5, 0.5)))
def _(x):
    return tuple_(x.clamp_min(f(-2.0)), x.clamp_max(3.0), torch.clamp_min(x, 0),
                  torch.clip(x, -1, 1), x.clip(f(-0.5), f(0.5)))


@example("where_static_f32", "torch.where(cond, x, y) with the condition from gt",
         [("x", ten(F32, 30, 30)), ("y", ten(F32, 30, 30))],
         ref=lambda th, x, y: th.where(x > y, x, y * 2.0))
def _(x, y):
    return torch.where(x.gt(y), x, y * f(2.0))


@example("where_method_receiver", "x.where(cond, y) == torch.where(cond, x, y): the receiver is x, not the condition",
         [("c", ten(BOOL_, 100)), ("x", ten(F32, 100)), ("y", ten(F32, 100))],
         ref=lambda th, c, x, y: (th.where(c, x, y), th.where(c, y, x)))
def _(c, x, y):
    return tuple_(x.where(c, y), torch.where(c, y, x))


@example("lerp_f32", "lerp with a tensor weight (static and instance; weights outside [0,1] extrapolate)",
         [("a", ten(F32, 256)), ("b", ten(F32, 256)), ("w", ten(F32, 256))],
         ref=lambda th, a, b, w: (th.lerp(a, b, w * 0.1), th.lerp(a, b, w.sigmoid())))
def _(a, b_, w):
    return tuple_(torch.lerp(a, b_, w * f(0.1)), a.lerp(b_, w.sigmoid()))


@example("hypot_xlogy", "hypot and xlogy (xlogy(0, y) = 0), Tensor and Scalar forms",
         [("x", ten(F32, 180)), ("y", ten(F32, 180))],
         ref=lambda th, x, y: (th.hypot(x, y), th.hypot(x, y), th.xlogy(x.relu(), y.abs()),
                               th.xlogy(x.relu(), 2.0), th.xlogy(x, 3.0)))
def _(x, y):
    return tuple_(torch.hypot(x, y), x.hypot(y), torch.xlogy(x.relu(), y.abs()),
                  x.relu().xlogy(f(2.0).ToScalar()), torch.xlogy(x, d(3.0).ToScalar()))


# ---- D: activations ------------------------------------------------------------------------
@example("act_relu", "relu / relu6: Tensor methods and torch.nn.functional (inplace=false filled in)",
         [("x", ten(F32, 4, 250))],
         ref=lambda th, x: (x.relu(), x.relu(), th.nn.functional.relu6(x), th.nn.functional.relu6(x * 0.8)))
def _(x):
    return tuple_(x.relu(), F().relu(x), x.relu6(), F().relu6(x * f(0.8)))


@example("act_gelu_exact", "exact (erf) GELU: functional.gelu(Tensor) and Tensor.gelu()",
         [("x", ten(F32, 1024))],
         ref=lambda th, x: (th.nn.functional.gelu(x), th.nn.functional.gelu(x)))
def _(x):
    return tuple_(F().gelu(x), x.gelu())


@example("act_gelu_tanh", "tanh-approximate GELU: GELU.Approximate enum (Tensor and functional), and Approximate.none",
         [("x", ten(F32, 1024))],
         ref=lambda th, x: (th.nn.functional.gelu(x, approximate="tanh"),
                            th.nn.functional.gelu(x, approximate="tanh"), th.nn.functional.gelu(x)))
def _(x):
    return tuple_(x.gelu(GELU.Approximate.tanh), F().gelu(x, GELU.Approximate.tanh),
                  x.gelu(GELU.Approximate.none))


@example("act_silu_sigmoid_tanh", "silu (functional and Tensor), functional sigmoid and tanh",
         [("x", ten(F32, 600))],
         ref=lambda th, x: (th.nn.functional.silu(x), th.nn.functional.silu(x), x.sigmoid(), x.tanh()))
def _(x):
    return tuple_(F().silu(x), x.silu(), F().sigmoid(x), F().tanh(x))


@example("act_softplus_default", "softplus with beta=1, threshold=20 filled in (x * 3 reaches the threshold)",
         [("x", ten(F32, 500))],
         ref=lambda th, x: (th.nn.functional.softplus(x * 3.0), th.nn.functional.softplus(x * 3.0)))
def _(x):
    return let_("z", x * 3.0, lambda z: tuple_(z.softplus(), F().softplus(z)))


@example("act_softplus_beta", "softplus with custom beta / threshold (positional and named)",
         [("x", ten(F32, 500))],
         ref=lambda th, x: (th.nn.functional.softplus(x, 2.0, 5.0), th.nn.functional.softplus(x, beta=0.5),
                            th.nn.functional.softplus(x, 1.5, 4.0)))
def _(x):
    return tuple_(x.softplus(2.0, 5.0), F().softplus(x, beta=0.5), F().softplus(x, 1.5, 4.0))


@example("act_leaky_relu", "leaky_relu: Tensor (Scalar slope) and functional (default 0.01 and 0.3)",
         [("x", ten(F32, 333))],
         ref=lambda th, x: (th.nn.functional.leaky_relu(x, 0.2), th.nn.functional.leaky_relu(x),
                            th.nn.functional.leaky_relu(x, 0.3)))
def _(x):
    return tuple_(x.leaky_relu(0.2), F().leaky_relu(x), F().leaky_relu(x, 0.3))


@example("act_elu_family", "elu (default alpha, functional alpha, alpha/scale/input_scale), celu, selu",
         [("x", ten(F32, 400))],
         ref=lambda th, x: (th.nn.functional.elu(x), th.nn.functional.elu(x, 0.5),
                            th._C._nn.elu(x, 1.0, 2.0, 0.5), th.nn.functional.celu(x),
                            th.nn.functional.selu(x)))
def _(x):
    return tuple_(x.elu(), F().elu(x, 0.5), x.elu(f(1.0).ToScalar(), f(2.0).ToScalar(), f(0.5).ToScalar()),
                  x.celu(), F().selu(x))


@example("act_hardtanh", "hardtanh: Tensor (Scalar bounds) and functional (defaults -1, 1 and custom)",
         [("x", ten(F32, 300))],
         ref=lambda th, x: (x.clamp(-2.0, 2.0), x.clamp(-1.0, 1.0), x.clamp(-0.5, 0.5)))
def _(x):
    return tuple_(x.hardtanh(f(-2.0), f(2.0)), F().hardtanh(x), F().hardtanh(x, -0.5, 0.5))


@example("act_mish_hard_logsigmoid", "mish, hardsigmoid, hardswish, logsigmoid (torch.nn.functional)",
         [("x", ten(F32, 300))],
         ref=lambda th, x: (th.nn.functional.mish(x), th.nn.functional.hardsigmoid(x),
                            th.nn.functional.hardswish(x), th.nn.functional.logsigmoid(x)))
def _(x):
    return tuple_(F().mish(x), F().hardsigmoid(x), F().hardswish(x), F().logsigmoid(x))


# ---- I: casts ------------------------------------------------------------------------------
@example("cast_to_type_f32", "to_type(torch.int32 / int8 / float16): float -> int truncates toward zero",
         [("x", ten(F32, 256))],
         ref=lambda th, x: (x.to(th.int32), x.to(th.int8), x.to(th.float16)),
         expect=["int32", "int8", "float16"])
def _(x):
    return tuple_(x.to_type(torch.int32), x.to_type(torch.int8), x.to_type(torch.float16))


@example("cast_to_scalartype_i16", "Tensor.to(ScalarType.Float64 / Int8): enum Value arguments",
         [("x", ten(I16, 100))],
         ref=lambda th, x: (x.to(th.float64), x.to(th.int8)), expect=["float64", "int8"])
def _(x):
    return tuple_(x.to(torch.ScalarType.Float64), x.to(torch.ScalarType.Int8))


@example("cast_float_methods_i32", "float(), double(), half(), bfloat16() from int32",
         [("x", ten(I32_, 100))],
         ref=lambda th, x: (x.float(), x.double(), x.half(), x.bfloat16()),
         expect=["float32", "float64", "float16", "bfloat16"])
def _(x):
    return tuple_(x.float(), x.double(), x.half(), x.bfloat16())


@example("cast_int_methods_f32", "long(), int(), short(), char() (int8), byte() of |x|, bool() (non-zero)",
         [("x", ten(F32, 100))],
         ref=lambda th, x: (x.long(), x.int(), x.short(), x.char(), x.abs().byte(), x.bool()),
         expect=["int64", "int32", "int16", "int8", "uint8", "bool"])
def _(x):
    return tuple_(x.long(), x.int(), x.short(), x.char(), x.abs().byte(), x.bool())


@example("cast_type_method_f64", "Tensor.type(ScalarType) (an F# keyword: x.``type``(...))",
         [("x", ten(F64, 60))],
         ref=lambda th, x: (x.to(th.int64), x.to(th.float32)), expect=["int64", "float32"])
def _(x):
    return tuple_(x.type(torch.ScalarType.Int64), x.type(torch.ScalarType.Float32))


@example("cast_dtype_aliases", "to_type with the alias fields torch.double / long / half / float / short / int",
         [("x", ten(F32, 64))],
         ref=lambda th, x: (x.double(), x.long(), x.half(), x.float(), x.short(), x.int()),
         expect=["float64", "int64", "float16", "float32", "int16", "int32"])
def _(x):
    return tuple_(x.to_type(torch.double), x.to_type(torch.long), x.to_type(torch.half),
                  x.to_type(torch.float), x.to_type(torch.short), x.to_type(torch.int))


@example("cast_bool_mask_mul", "bool mask cast to float32 (to_type(torch.float32)) times a tensor",
         [("p", ten(BOOL_, 16, 16)), ("x", ten(F32, 16, 16))],
         ref=lambda th, p, x: x * p.float(), expect=["float32"])
def _(p, x):
    return x * p.to_type(torch.float32)


@example("cast_to_dtype_of_other", "y.to_type(x.dtype): the dtype property (PropertyGet get_dtype)",
         [("x", ten(F16, 50)), ("y", ten(I32_, 50))],
         ref=lambda th, x, y: y.to(th.float16) + x, expect=["float16"])
def _(x, y):
    return y.to_type(x.dtype) + x


# ---- H: *_like creators and scalar tensors -------------------------------------------------
@example("like_zeros_ones", "zeros_like / ones_like, static and instance, with and without a dtype",
         [("x", ten(F32, 7, 9))],
         ref=lambda th, x: (th.zeros_like(x), th.ones_like(x), th.ones_like(x, dtype=th.int32),
                            th.zeros_like(x, dtype=th.float64)),
         expect=["float32", "float32", "int32", "float64"])
def _(x):
    return tuple_(torch.zeros_like(x), x.ones_like(), torch.ones_like(x, torch.ScalarType.Int32),
                  x.zeros_like(torch.float64))


@example("like_full", "full_like with an implicit Scalar (Double), a ToScalar Int32 with dtype int64, and used in arithmetic",
         [("x", ten(F32, 5, 6))],
         ref=lambda th, x: (th.full_like(x, 3.0), th.full_like(x, 2, dtype=th.int64), th.full_like(x, -1.5) + x),
         expect=["float32", "int64", "float32"])
def _(x):
    return tuple_(torch.full_like(x, 3.0), x.full_like(i32(2).ToScalar(), torch.int64),
                  torch.full_like(x, f(-1.5)) + x)


@example("like_empty_shape_only", "empty_like used only for its shape / dtype (its content is never read)",
         [("x", ten(F32, 12, 5))],
         ref=lambda th, x: (x + 1.0, th.zeros(12, 5, dtype=th.int16)), expect=["float32", "int16"])
def _(x):
    return tuple_(torch.ones_like(torch.empty_like(x)) + x,
                  torch.zeros_like(x.empty_like(torch.ScalarType.Int16)))


@example("tensor_scalar_0dim", "torch.tensor(2.5) is a float64 0-dim tensor (does not promote float32), tensor(2f), tensor(3L, Int32)",
         [("x", ten(F32, 4, 6))],
         ref=lambda th, x: (x * th.tensor(2.5, dtype=th.float64), x + th.tensor(2.0), x.int() + th.tensor(3, dtype=th.int32)),
         expect=["float32", "float32", "int32"])
def _(x):
    return tuple_(x * torch.tensor(2.5), x + torch.tensor(f(2.0)),
                  x.to_type(torch.int32) + torch.tensor(L(3), torch.ScalarType.Int32))


# ---- shapes: 0-dim, size 0, size 1, odd and large sizes, broadcasting ---------------------
@example("zero_dim_inputs", "0-dim tensors (shape []) in and out", [("x", ten(F32)), ("y", ten(F32))],
         ref=lambda th, x, y: x * y + x.exp())
def _(x, y):
    return x * y + x.exp()


@example("zero_dim_scalar_param", "0-dim float64 tensor times an F# float32 parameter plus an int literal",
         [("x", ten(F64)), ("s", scal(F32))],
         ref=lambda th, x, s: x * s + 1, expect=["float64"])
def _(x, s):
    return x * s + 1


@example("size0_relu", "a size-0 dimension ([0, 5]): empty output, no kernel work",
         [("x", ten(F32, 0, 5))], ref=lambda th, x: x.relu())
def _(x):
    return x.relu()


@example("size0_bcast", "[0,5] + [5] -> [0,5]; second output of another shape [5]",
         [("x", ten(F32, 0, 5)), ("b", ten(F32, 5))],
         ref=lambda th, x, b: (x + b, b * 2.0))
def _(x, b_):
    return tuple_(x + b_, b_ * f(2.0))


@example("size1_dims", "size-1 dims broadcast: [1,1,7] * [3,1,1] - [1] -> [3,1,7]",
         [("x", ten(F32, 1, 1, 7)), ("y", ten(F32, 3, 1, 1)), ("z", ten(F32, 1))],
         ref=lambda th, x, y, z: x * y - z)
def _(x, y, z):
    return x * y - z


@example("odd_size_1023_chain", "an odd size (1023): sqrt(|x - y|) * 2",
         [("x", ten(F32, 1023)), ("y", ten(F32, 1023))],
         ref=lambda th, x, y: (x - y).abs().sqrt() * 2.0)
def _(x, y):
    return (x - y).abs().sqrt() * 2.0


@example("large_2d_bias_tanh", "64 x 1000 with a [1000] bias: tanh(x * 2.0 + b)",
         [("x", ten(F32, 64, 1000)), ("b", ten(F32, 1000))],
         ref=lambda th, x, b: th.tanh(x * 2.0 + b))
def _(x, b_):
    return (x * 2.0 + b_).tanh()


@example("bcast_bias_gelu", "[<ReflectedDefinition>] entry: gelu(x + b) with x [N,768] (symbolic N) and b [768]",
         [("x", ten(F32, "N", 768)), ("b", ten(F32, 768))], style="reflected",
         ref=lambda th, x, b: th.nn.functional.gelu(x + b))
def _(x, b_):
    return (x + b_).gelu()


@example("bcast_outer_4x1x5_3x1", "[4,1,5] * [3,1] -> [4,3,5]",
         [("a", ten(F32, 4, 1, 5)), ("b", ten(F32, 3, 1))],
         ref=lambda th, a, b: a * b)
def _(a, b_):
    return a * b_


@example("bcast_scalar_like_1", "[6,10] with [1] and [1,1] tensors: (x - m) * s",
         [("x", ten(F32, 6, 10)), ("m", ten(F32, 1)), ("s", ten(F32, 1, 1))],
         ref=lambda th, x, m, s: (x - m) * s)
def _(x, m, s):
    return (x - m) * s


@example("bcast_where_3way", "where(c [5,1,1], a [1,7,1] f32, b [1,1,9] f16) -> [5,7,9] float32",
         [("c", ten(BOOL_, 5, 1, 1)), ("a", ten(F32, 1, 7, 1)), ("b", ten(F16, 1, 1, 9))],
         ref=lambda th, c, a, b: th.where(c, a, b.float()), expect=["float32"])
def _(c, a, b_):
    return torch.where(c, a, b_)


@example("bcast_lerp_3way", "lerp(a [8,1], b [1,8], w [1]) -> [8,8]",
         [("a", ten(F32, 8, 1)), ("b", ten(F32, 1, 8)), ("w", ten(F32, 1))],
         ref=lambda th, a, b, w: th.lerp(a, b, w.sigmoid()))
def _(a, b_, w):
    return torch.lerp(a, b_, w.sigmoid())


@example("bcast_symbolic", "symbolic sizes: x [B,N] * y [N] - y (one kernel for every B, N)",
         [("x", ten(F32, "B", "N")), ("y", ten(F32, "N"))], sizes={"B": 3, "N": 17},
         ref=lambda th, x, y: x * y - y)
def _(x, y):
    return x * y - y


@example("bcast_unknown_dim", "a null (any) size in the signature: x [null, 4] + 1",
         [("x", ten(F64, None, 4))], ref=lambda th, x: x + 1)
def _(x):
    return x + 1


# ---- type promotion ------------------------------------------------------------------------
@example("promo_int_plus_float_scalar", "int32 tensor + 2.5f -> float32", [("x", ten(I32_, 100))],
         ref=lambda th, x: x + 2.5, expect=["float32"])
def _(x):
    return x + f(2.5)


@example("promo_f16_plus_f64_0dim", "float16 [33] + float64 0-dim -> float16 (0-dim does not promote)",
         [("x", ten(F16, 33)), ("y", ten(F64))],
         ref=lambda th, x, y: x + y, expect=["float16"])
def _(x, y):
    return x + y


@example("promo_i8_plus_i64_0dim", "int8 [50] + int64 0-dim -> int8", [("x", ten(I8, 50)), ("y", ten(I64_))],
         ref=lambda th, x, y: x + y, expect=["int8"])
def _(x, y):
    return x + y


@example("promo_bool_plus_int", "bool + 1 -> int64; bool + int32 tensor -> int32",
         [("p", ten(BOOL_, 40)), ("n", ten(I32_, 40))],
         ref=lambda th, p, n: (p + 1, p + n), expect=["int64", "int32"])
def _(p, n):
    return tuple_(p + 1, p + n)


@example("promo_u8_i8", "uint8 + int8 -> int16", [("u", ten(U8, 60)), ("s", ten(I8, 60))],
         ref=lambda th, u, s: u + s, expect=["int16"])
def _(u, s):
    return u + s


@example("promo_mixed_float_tensors", "int32 * float16 -> float16; float16 + bfloat16 -> float32; float32 + float64 -> float64",
         [("n", ten(I32_, 24)), ("h", ten(F16, 24)), ("g", ten(BF16, 24)), ("x", ten(F32, 24)), ("y", ten(F64, 24))],
         ref=lambda th, n, h, g, x, y: (n * h, h + g, x + y), expect=["float16", "float32", "float64"])
def _(n, h, g, x, y):
    return tuple_(n * h, h + g, x + y)


@example("promo_int_true_div_scalar", "int16 / 2 and int16 * 2.5 give float32",
         [("x", ten(I16, 70))],
         ref=lambda th, x: (x / 2, x * 2.5), expect=["float32", "float32"])
def _(x):
    return tuple_(x / 2, x * 2.5)


# ---- scalar parameters -----------------------------------------------------------------------
@example("scalar_param_f32", "an F# float32 parameter used twice: x * s + s",
         [("x", ten(F32, 100)), ("s", scal(F32))], ref=lambda th, x, s: x * s + s)
def _(x, s):
    return x * s + s


@example("scalar_param_int_double", "int and float parameters: (x + k) * d on an int32 tensor -> float32",
         [("x", ten(I32_, 50)), ("k", scal(I32_)), ("d", scal(F64))],
         ref=lambda th, x, k, d: (x + k) * d, expect=["float32"])
def _(x, k, d_):
    return (x + k) * d_


@example("scalar_param_alpha", "a float32 parameter passed as Scalar: x.add(y, s) (Scalar.op_Implicit(Var s))",
         [("x", ten(F32, 10, 10)), ("y", ten(F32, 10, 10)), ("s", scal(F32))],
         ref=lambda th, x, y, s: th.add(x, y, alpha=s))
def _(x, y, s):
    return x.add(y, s)


@example("scalar_param_if_bool", "a bool parameter selecting the tensor expression: if flag then relu x else -x",
         [("x", ten(F32, 64)), ("flag", scal(BOOL_))],
         ref=lambda th, x, flag: x.relu() if flag else -x)
def _(x, flag):
    return if_(flag, x.relu(), -x)


@example("scalar_param_int64_clamp", "an int64 parameter as a clamp bound: x.clamp_max(k) on int64",
         [("x", ten(I64_, 80)), ("k", scal(I64_))],
         ref=lambda th, x, k: x.clamp_max(k), expect=["int64"])
def _(x, k):
    return x.clamp_max(k)


# ---- multiple outputs, captures ------------------------------------------------------------
@example("multi_out_3tuple_shapes", "a 3-tuple of outputs with different shapes and dtypes",
         [("x", ten(F32, 4, 8)), ("b", ten(F32, 8))],
         ref=lambda th, x, b: (x + b, b.exp(), x > 0), expect=["float32", "float32", "bool"])
def _(x, b_):
    return tuple_(x + b_, b_.exp(), x.gt(d(0.0).ToScalar()))


@example("capture_weight_mul", "a captured tensor w (ValueWithName, opaque) used as an input",
         [("x", ten(F32, 16, 768))], captures={"w": ten(F32, 768)},
         ref=lambda th, x, w: x * w)
def _(x):
    return x * capture("w")


@example("capture_scale_shift_f16", "two captured float16 tensors: x * scale + shift",
         [("x", ten(F16, 8, 256))], captures={"scale": ten(F16, 256), "shift": ten(F16, 256)},
         ref=lambda th, x, scale, shift: x * scale + shift, expect=["float16"])
def _(x):
    return x * capture("scale") + capture("shift")


@example("capture_layer_scale_residual", "res + gamma * gelu_tanh(x + b) with a captured gamma",
         [("x", ten(F32, 16, 512)), ("b", ten(F32, 512)), ("res", ten(F32, 16, 512))],
         captures={"gamma": ten(F32, 512)},
         ref=lambda th, x, b, res, gamma: res + gamma * th.nn.functional.gelu(x + b, approximate="tanh"))
def _(x, b_, res):
    return res + capture("gamma") * (x + b_).gelu(GELU.Approximate.tanh)


# ---- structure: tupled entry, reflected helpers, let-bound lambda, shadowing ----------------
@example("tupled_entry", "fun (a, b) -> ...: one Lambda over tupledArg, then Lets of TupleGet",
         [("a", ten(F32, 30)), ("b", ten(F32, 30))], tupled=True,
         ref=lambda th, a, b: a * b + a)
def _(a, b_):
    return a * b_ + a


def _gelu_tanh_helper():
    return defn("geluTanh", [("x", TENSOR)],
                lambda x: f(0.5) * x * (f(1.0) + torch.tanh(f(0.7978845608) * (x + f(0.044715) * x * x * x))))


@example("reflected_helper_gelu", "a [<ReflectedDefinition>] helper (tanh GELU written out) called from the entry",
         [("x", ten(F32, 32, 128)), ("b", ten(F32, 128))],
         ref=lambda th, x, b: th.nn.functional.gelu(x + b, approximate="tanh"), tol=(1e-4, 1e-5))
def _(x, b_):
    g = _gelu_tanh_helper()
    return g(x + b_)


@example("reflected_helpers_tupled_curried", "two helpers: a tupled one (scaled (x, s)) and a curried one (shifted x c)",
         [("x", ten(F32, 100)), ("c", ten(F32, 100))],
         ref=lambda th, x, c: (x * 2.0 - c).relu())
def _(x, c):
    scaled = defn("scaled", [("t", TENSOR), ("s", SINGLE)], lambda t, s: t * s, tupled=True)
    shifted = defn("shifted", [("t", TENSOR), ("u", TENSOR)], lambda t, u: (t - u).relu())
    return shifted(scaled(x, f(2.0)), c)


@example("let_bound_lambda", "let act = fun t -> ... applied twice with Application",
         [("x", ten(F32, 64)), ("y", ten(F32, 64))],
         ref=lambda th, x, y: x * x.sigmoid() + (y * 2.0) * (y * 2.0).sigmoid())
def _(x, y):
    return let_("act", fun(("t", TENSOR), lambda t: t * t.sigmoid()),
                lambda act: app(act, x) + app(act, y * f(2.0)))


@example("let_shadowing", "let y = x + 1 in let y = y * y in y - x: two distinct vars named y",
         [("x", ten(F32, 64))], ref=lambda th, x: (x + 1) * (x + 1) - x)
def _(x):
    return let_("y", x + f(1.0), lambda y: let_("y", y * y, lambda y2: y2 - x))


# ---- longer realistic chains -------------------------------------------------------------
@example("chain_swiglu", "[<ReflectedDefinition>] swish-GLU block: silu(xg + bg) * (xu + bu) * 0.5",
         [("xg", ten(F32, 32, 256)), ("bg", ten(F32, 256)), ("xu", ten(F32, 32, 256)), ("bu", ten(F32, 256))],
         style="reflected",
         ref=lambda th, xg, bg, xu, bu: th.nn.functional.silu(xg + bg) * (xu + bu) * 0.5)
def _(xg, bg, xu, bu):
    return let_("g", (xg + bg).silu(), lambda g: let_("u", xu + bu, lambda u: g * u * f(0.5)))


@example("chain_clamp_nan_cleanup", "cleanup chain: nan_to_num, where(isfinite), clamp, clip",
         [("x", ten(F32, 40, 50)), ("s", ten(F32, 50))],
         ref=lambda th, x, s: th.where(th.isfinite(th.nan_to_num(th.log(x) * s, 0.0, 10.0, -10.0)),
                                       th.nan_to_num(th.log(x) * s, 0.0, 10.0, -10.0).clamp(-5.0, 5.0),
                                       th.zeros_like(x)).clamp(-4.0, 4.0))
def _(x, s):
    return let_("y", (x.log() * s).nan_to_num(0.0, 10.0, -10.0),
                lambda y: torch.where(y.isfinite(), y.clamp(f(-5.0).ToScalar(), f(5.0).ToScalar()),
                                      torch.zeros_like(y)).clip(f(-4.0), f(4.0)))


@example("chain_mish_manual", "mish written out: x * tanh(softplus(x))",
         [("x", ten(F32, 700))], ref=lambda th, x: th.nn.functional.mish(x), tol=(1e-5, 1e-6))
def _(x):
    return x * torch.tanh(F().softplus(x))


@example("chain_f16_swiglu", "float16 swish-GLU: silu(xg) * xu",
         [("xg", ten(F16, 32, 128)), ("xu", ten(F16, 32, 128))],
         ref=lambda th, xg, xu: th.nn.functional.silu(xg) * xu, expect=["float16"])
def _(xg, xu):
    return xg.silu() * xu


@example("chain_bf16_bias_gelu_cast", "bfloat16 bias + gelu * 0.5 then cast to float32",
         [("x", ten(BF16, 16, 96)), ("b", ten(BF16, 96))],
         ref=lambda th, x, b: (th.nn.functional.gelu(x + b) * 0.5).to(th.float32), expect=["float32"])
def _(x, b_):
    return ((x + b_).gelu() * 0.5).to_type(torch.float32)


@example("chain_norm_affine", "normalization epilogue: (x - mean) * rstd * w + b with per-row mean / rstd [R,1]",
         [("x", ten(F32, 24, 384)), ("mean", ten(F32, 24, 1)), ("rstd", ten(F32, 24, 1)),
          ("w", ten(F32, 384)), ("b", ten(F32, 384))],
         ref=lambda th, x, mean, rstd, w, b: (x - mean) * rstd * w + b)
def _(x, mean, rstd, w, b_):
    return (x - mean) * rstd * w + b_


@example("chain_quant_dequant", "fake quantization: round(x / s).clamp(-128, 127) to int8, back to float32 * s",
         [("x", ten(F32, 64, 64)), ("s", scal(F32))],
         ref=lambda th, x, s: (th.round(x / s).clamp(-128, 127).to(th.int8).to(th.float32) * s,
                               th.round(x / s).clamp(-128, 127).to(th.int8)),
         expect=["float32", "int8"])
def _(x, s):
    return let_("q", (x / s).round().clamp(i32(-128).ToScalar(), i32(127).ToScalar()).to_type(torch.int8),
                lambda q: tuple_(q.to_type(torch.float32) * s, q))


# ---- Kgen.Ops.map: scalar F# code per element ----------------------------------------------
def _per_elem(th, fn, *ts, dtype):
    """Reference helper: applies a Python function (written with .NET semantics) elementwise."""
    ts = th.broadcast_tensors(*ts)
    cols = [t.reshape(-1).tolist() for t in ts]
    out = [fn(*vals) for vals in zip(*cols)]
    return th.tensor(out, dtype=dtype).reshape(ts[0].shape)


def _f32(v):
    return f32_round(v)


def _i32(v):
    return wrap_int(v, INT32)


@example("map_affine_f32", "Kgen.Ops.map (fun v -> v * 2.0f + 1.0f): single-precision scalar arithmetic",
         [("x", ten(F32, 40, 50))], ref=lambda th, x: x * 2.0 + 1.0, expect=["float32"])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: v * 2.0 + 1.0), x)


@example("map_if_expr_leaky", "if/then/else as an expression: a leaky relu",
         [("x", ten(F32, 1000))], ref=lambda th, x: th.where(x > 0, x, x * 0.1))
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: if_(gt(v, 0.0), v, f(0.1) * v)), x)


@example("map_if_stmt_unit_else", "let mutable + if/then with a unit else (statement) + VarSet: abs",
         [("x", ten(F32, 300))], ref=lambda th, x: x.abs())
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: letm("r", v, lambda r: seq(
        if_(lt(r, 0.0), r.set(-r)), r))), x)


@example("map_and_or", "&& and || (IfThenElse(a, b, false) / IfThenElse(a, true, b)) in a condition",
         [("x", ten(F32, 500))],
         ref=lambda th, x: (((x > -1.0) & (x < 1.0)) | (x > 5.0)).float())
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: if_(or_(and_(gt(v, -1.0), lt(v, 1.0)), gt(v, 5.0)),
                                                    f(1.0), f(0.0))), x)


@example("map_for_const", "for i in 1 .. 4 do (inclusive end) accumulating v / float32 i",
         [("x", ten(F32, 256))],
         ref=lambda th, x: _per_elem(th, lambda v: _map_for_const_ref(v), x, dtype=th.float32))
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: letm("acc", f(0.0), lambda acc: seq(
        for_("i", 1, 4, lambda i: acc.set(acc + v / float32_(i))), acc))), x)


def _map_for_const_ref(v):
    acc = 0.0
    for i in range(1, 5):
        acc = _f32(acc + _f32(v / float(i)))
    return acc


@example("map_for_dynamic_bound", "a for loop whose bound comes from the element: for i in 0 .. int (abs v) (int result)",
         [("x", ten(F32, 20, 20))],
         ref=lambda th, x: _per_elem(th, lambda v: sum(i * i for i in range(0, int(abs(v)) + 1)), x,
                                     dtype=th.int32),
         expect=["int32"])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: letm("s", 0, lambda s: seq(
        for_("i", 0, int_(abs_(v)), lambda i: s.set(s + i * i)), s))), x)


def _collatz_ref(v):
    n, steps = abs(v) * 7 + 1, 0
    while n != 1 and steps < 1000:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@example("map_while_collatz", "while with a data-dependent trip count (Collatz steps of |v| * 7 + 1, capped) on int32",
         [("x", ten(I32_, 16, 32))],
         ref=lambda th, x: _per_elem(th, _collatz_ref, x, dtype=th.int32), expect=["int32"])
def _(x):
    def body(v):
        return letm("n", abs_(v) * 7 + 1, lambda n: letm("steps", 0, lambda steps: seq(
            while_(and_(ne(n, 1), lt(steps, 1000)), seq(
                if_(eq(n % 2, 0), n.set(n / 2), n.set(3 * n + 1)),
                steps.set(steps + 1))),
            steps)))
    return Ops.map(fun(("v", INT32), body), x)


def _newton_ref(v):
    a = _f32(abs(v) + 1.0)
    x, it = a, 0
    while abs(_f32(_f32(x * x) - a)) > _f32(_f32(1e-4) * a) and it < 50:
        x = _f32(_f32(0.5) * _f32(x + _f32(a / x)))
        it += 1
    return x


@example("map_while_newton", "Newton iterations for sqrt until |x*x - a| <= 1e-4 a, with an iteration cap",
         [("x", ten(F32, 512))],
         ref=lambda th, x: _per_elem(th, _newton_ref, x, dtype=th.float32), tol=(1e-4, 1e-5))
def _(x):
    def body(v):
        return let_("a", abs_(v) + 1.0, lambda a: letm("g", a, lambda xx: letm("it", 0, lambda it: seq(
            while_(and_(gt(abs_(xx * xx - a), f(1e-4) * a), lt(it, 50)), seq(
                xx.set(f(0.5) * (xx + a / xx)),
                it.set(it + 1))),
            xx))))
    return Ops.map(fun(("v", SINGLE), body), x)


def _nested_ref(v):
    s = 0.0
    for i in range(1, 4):
        for j in range(i, 4):
            s = _f32(s + _f32(v * float(i * j)))
    return s


@example("map_nested_loops", "nested for loops, the inner range starting at the outer counter",
         [("x", ten(F32, 128))],
         ref=lambda th, x: _per_elem(th, _nested_ref, x, dtype=th.float32))
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: letm("s", f(0.0), lambda s: seq(
        for_("i", 1, 3, lambda i: for_("j", i, 3, lambda j: s.set(s + v * float32_(i * j)))), s))), x)


@example("map_int_trunc_div_rem", ".NET integer / truncates and % is the truncated remainder (unlike a tensor's %)",
         [("x", ten(I32_, 200))],
         ref=lambda th, x: th.div(x, 4, rounding_mode="trunc") * 10 + th.fmod(x, 4), expect=["int32"])
def _(x):
    return Ops.map(fun(("v", INT32), lambda v: v / 4 * 10 + v % 4), x)


def _hash_ref(v):
    h = v
    for i in range(0, 4):
        h = _i32((h ^ i) * 16777619)
    return h


@example("map_int_wrap_hash", "int32 multiplication wraps (.NET unchecked): an FNV-like hash loop",
         [("x", ten(I32_, 300))],
         ref=lambda th, x: _per_elem(th, _hash_ref, x, dtype=th.int32), expect=["int32"])
def _(x):
    return Ops.map(fun(("v", INT32), lambda v: letm("h", v, lambda h: seq(
        for_("i", 0, 3, lambda i: h.set((h ^ i) * 16777619)), h))), x)


@example("map_mathf", "System.MathF functions: Exp, Tanh, Sqrt, Abs, Floor, Round (half to even), Pow",
         [("x", ten(F32, 400))],
         ref=lambda th, x: th.exp(-x * x) + th.tanh(x) * th.sqrt(x.abs()) + th.floor(x) - th.round(x)
         + th.pow(x.abs(), 0.5), tol=(1e-5, 1e-5))
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v:
                       MathF.Exp(-v * v) + MathF.Tanh(v) * MathF.Sqrt(MathF.Abs(v)) + MathF.Floor(v)
                       - MathF.Round(v) + MathF.Pow(MathF.Abs(v), f(0.5))), x)


@example("map_math_double", "System.Math on float64 elements: a normal density plus log1p(|v|)",
         [("x", ten(F64, 300))],
         ref=lambda th, x: th.exp(-x * x / 2.0) / math.sqrt(2.0 * 3.141592653589793) + th.log(x.abs() + 1.0),
         expect=["float64"])
def _(x):
    return Ops.map(fun(("v", DOUBLE), lambda v: Math.Exp(-v * v / 2.0) / Math.Sqrt(2.0 * 3.141592653589793)
                       + Math.Log(Math.Abs(v) + 1.0)), x)


@example("map_fsharp_math", "F# Operators math: exp log sqrt abs sin cos tanh floor ceil round truncate max min pown ** atan2",
         [("x", ten(F32, 256)), ("y", ten(F32, 256))],
         ref=lambda th, x, y: (th.exp(x * 0.1) + th.log(x.abs() + 1) + th.sqrt(y.abs()) + th.sin(x) * th.cos(y)
                               + th.tanh(x), th.floor(x) + th.ceil(y) + th.round(x) + th.trunc(y),
                               th.maximum(x, y) - th.minimum(x, y) + (x * 0.5) ** 3 + y.abs() ** 0.5
                               + th.atan2(y, x)),
         tol=(1e-5, 2e-5))
def _(x, y):
    a = Ops.map2(fun([("a", SINGLE), ("b", SINGLE)], lambda a, b_:
                     exp_(a * 0.1) + log_(abs_(a) + 1.0) + sqrt_(abs_(b_)) + sin_(a) * cos_(b_) + tanh_(a)), x, y)
    r = Ops.map2(fun([("a", SINGLE), ("b", SINGLE)], lambda a, b_:
                     floor_(a) + ceil_(b_) + round_(a) + truncate_(b_)), x, y)
    m = Ops.map2(fun([("a", SINGLE), ("b", SINGLE)], lambda a, b_:
                     max_(a, b_) - min_(a, b_) + pown_(a * 0.5, 3) + abs_(b_) ** 0.5 + atan2_(b_, a)), x, y)
    return tuple_(a, r, m)


@example("map_conversions", "int (v * 2.5f) truncates; float / float32 / int64 conversions; a float result gives float64",
         [("x", ten(F32, 300))],
         ref=lambda th, x: th.trunc(x * 2.5).double() + x.double() * 0.5 + (x.to(th.int64) * 3).double(),
         expect=["float64"])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: float_(int_(v * 2.5)) + float_(v) * 0.5
                       + float_(int64_(v) * L(3))), x)


@example("map_returns_bool", "a lambda returning bool gives a bool tensor (&& inside)",
         [("x", ten(F32, 333))], ref=lambda th, x: (x > 0.5) & (x < 4.0), expect=["bool"])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: and_(gt(v, 0.5), lt(v, 4.0))), x)


@example("map2_mixed_f32_i32", "Kgen.Ops.map2 over float32 and int32 tensors (curried lambda)",
         [("x", ten(F32, 128)), ("n", ten(I32_, 128))],
         ref=lambda th, x, n: th.where(n > 0, x * n.float(), x - 1.0), expect=["float32"])
def _(x, n):
    return Ops.map2(fun([("a", SINGLE), ("k", INT32)], lambda a, k: if_(gt(k, 0), a * float32_(k), a - 1.0)), x, n)


@example("map2_broadcast", "map2 broadcasts its inputs: [4,1] with [1,6] -> [4,6]",
         [("x", ten(F32, 4, 1)), ("y", ten(F32, 1, 6))],
         ref=lambda th, x, y: (x - y).abs())
def _(x, y):
    return Ops.map2(fun([("a", SINGLE), ("b", SINGLE)], lambda a, b_: max_(a, b_) - min_(a, b_)), x, y)


@example("map3_select_lerp", "Kgen.Ops.map3 over bool, float32 and float32 tensors",
         [("c", ten(BOOL_, 200)), ("x", ten(F32, 200)), ("w", ten(F32, 200))],
         ref=lambda th, c, x, w: th.where(c, x + w * (1.0 - x), x))
def _(c, x, w):
    return Ops.map3(fun([("c", BOOL), ("a", SINGLE), ("w", SINGLE)],
                        lambda c_, a, w_: if_(c_, a + w_ * (f(1.0) - a), a)), c, x, w)


@example("map_in_chain", "a map result used by tensor ops: relu(map (v*v - 1) x) + y",
         [("x", ten(F32, 64, 64)), ("y", ten(F32, 64, 64))],
         ref=lambda th, x, y: (x * x - 1.0).relu() + y)
def _(x, y):
    return Ops.map(fun(("v", SINGLE), lambda v: v * v - 1.0), x).relu() + y


@example("map_closure_scalar_param", "a map lambda closing over the entry's float32 parameter s",
         [("x", ten(F32, 100)), ("s", scal(F32))],
         ref=lambda th, x, s: th.where(x > s, x - s, th.zeros_like(x)))
def _(x, s):
    return Ops.map(fun(("v", SINGLE), lambda v: if_(gt(v, s), v - s, f(0.0))), x)


@example("map_f16_input", "map over a float16 tensor with a float32 lambda: elements widen, result float32",
         [("x", ten(F16, 500))],
         ref=lambda th, x: x.float() * x.float() * 0.5, expect=["float32"])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: v * v * f(0.5)), x)


@example("map_int8_input_int_lambda", "map over int8 with an int lambda: result int32 (v * v * v)",
         [("x", ten(I8, 90))],
         ref=lambda th, x: x.int() * x.int() * x.int(), expect=["int32"])
def _(x):
    return Ops.map(fun(("v", INT32), lambda v: v * v * v), x)


@example("map_let_shadow_sequential", "shadowed lets and a mutable updated in a sequence inside a lambda",
         [("x", ten(F32, 150))],
         ref=lambda th, x: _per_elem(th, _shadow_ref, x, dtype=th.float32))
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: let_("a", v * 2.0, lambda a: let_("a", a + 1.0, lambda a2: letm(
        "r", a2, lambda r: seq(r.set(r * r), r.set(r - a2), r))))), x)


def _shadow_ref(v):
    a = _f32(_f32(v * 2.0) + 1.0)
    r = _f32(a * a)
    return _f32(r - a)


@example("map_not_sign", "not (...) and sign (int result, converted back with float32)",
         [("x", ten(F32, 200))],
         ref=lambda th, x: th.where(x > 0, x, th.sign(x)))
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: if_(not_(gt(v, 0.0)), float32_(sign_(v)), v)), x)


@example("map_int_bitwise_shift", "<<< >>> ^^^ &&& on int (.NET shifts), masked with 0xFF",
         [("x", ten(I32_, 256))],
         ref=lambda th, x: ((x << 3) ^ (x >> 1)) & 255, expect=["int32"])
def _(x):
    return Ops.map(fun(("v", INT32), lambda v: ((v << 3) ^ (v >> 1)) & 255), x)


@example("map_bool_input", "map over a bool tensor: if b then 1.0f else -1.0f",
         [("p", ten(BOOL_, 77))],
         ref=lambda th, p: p.float() * 2.0 - 1.0, expect=["float32"])
def _(p):
    return Ops.map(fun(("b", BOOL), lambda b_: if_(b_, f(1.0), f(-1.0))), p)


@example("map_int64_lambda", "an int64 lambda: v * 1000000007L % 97L (truncated remainder)",
         [("x", ten(I64_, 100))],
         ref=lambda th, x: th.fmod(x * 1000000007, 97), expect=["int64"])
def _(x):
    return Ops.map(fun(("v", INT64), lambda v: v * L(1000000007) % L(97)), x)


@example("map_double_lambda_on_f32", "a float (double) lambda over a float32 tensor: elements widen, result float64",
         [("x", ten(F32, 100))],
         ref=lambda th, x: x.double().abs().sqrt(), expect=["float64"])
def _(x):
    return Ops.map(fun(("v", DOUBLE), lambda v: Math.Sqrt(Math.Abs(v))), x)


def _bisect_ref(v):
    target = _f32(abs(v) + 1.0)
    lo, hi = _f32(0.0), _f32(target + 1.0)
    it = 0
    while _f32(hi - lo) > _f32(1e-3) and it < 40:
        mid = _f32(_f32(lo + hi) * _f32(0.5))
        if _f32(_f32(mid * mid) * mid) < target:
            lo = mid
        else:
            hi = mid
        it += 1
    return lo


@example("map_while_bisection", "cube root by bisection: while with && and an if statement updating two mutables",
         [("x", ten(F32, 256))],
         ref=lambda th, x: _per_elem(th, _bisect_ref, x, dtype=th.float32))
def _(x):
    def body(v):
        return let_("t", abs_(v) + 1.0, lambda t: letm("lo", f(0.0), lambda lo: letm("hi", t + 1.0, lambda hi: letm(
            "it", 0, lambda it: seq(
                while_(and_(gt(hi - lo, f(1e-3)), lt(it, 40)), let_("mid", (lo + hi) * f(0.5), lambda mid: seq(
                    if_(lt(mid * mid * mid, t), lo.set(mid), hi.set(mid)),
                    it.set(it + 1)))),
                lo)))))
    return Ops.map(fun(("v", SINGLE), body), x)


# ========================================================================================
# BAD INPUTS (tests/bad): valid JSON, each breaking one rule
# ========================================================================================
def raw_call(decl, name, params, ret, args, obj=None, path=None):
    m = mk_member(decl, name, params, ret, obj is None)
    pr = {"kind": "method"} if obj is not None else {"kind": "static", "path": path or decl.split(".")[-1]}
    if decl.startswith("System"):
        DOC.uses.add("system")
    return N("Call", ret, {"obj": obj, "method": m, "args": list(args)}, pr)


def walk_json(n, fn, path="$"):
    if isinstance(n, dict):
        fn(n, path)
        for k, v in n.items():
            walk_json(v, fn, path + "." + k)
    elif isinstance(n, list):
        for i, v in enumerate(n):
            walk_json(v, fn, "%s[%d]" % (path, i))


def find_nodes(doc, pred):
    out = []
    walk_json(doc, lambda n, p: out.append(n) if "k" in n and pred(n) else None)
    return out


def body_of_entry(doc, depth=1):
    e = doc["entries"][0]["expr"]
    for _ in range(depth):
        e = e["body"]
    return e


@bad("unknown_member_key", "a Call to a member key that is not in the member table (Tensor::frobnicate())",
     [("x", ten(F32, 10))])
def _(x):
    return raw_call(TENSOR, "frobnicate", [], TENSOR, [], obj=x)


def _wrap_trywith(doc):
    b = body_of_entry(doc)
    nv = len(doc["vars"])
    doc["vars"] += [{"name": "exn", "type": "System.Exception", "mutable": False}]
    doc["entries"][0]["expr"]["body"] = {
        "k": "TryWith", "ty": TENSOR, "body": b, "filterVar": nv,
        "filterBody": {"k": "Value", "ty": "System.Int32", "value": 1},
        "catchVar": nv, "catchBody": {"k": "Var", "ty": TENSOR, "var": 0}, "loc": b.get("loc")}


@bad("unsupported_trywith", "TryWith (try ... with) is parsed but not supported: must be rejected naming the construct",
     [("x", ten(F32, 10))], mutate=_wrap_trywith,
     note="<@ fun (x: torch.Tensor) -> try x.tanh() with _ -> x @>")
def _(x):
    return x.tanh()


@bad("unsupported_newrecord", "NewRecord ({ A = x; B = y }) is parsed but not supported",
     [("x", ten(F32, 10)), ("y", ten(F32, 10))], mutate=lambda d: _newrecord2(d),
     note="type Pair = { A: torch.Tensor; B: torch.Tensor }\n<@ fun (x: torch.Tensor) (y: torch.Tensor) -> { A = x; B = y } @>")
def _(x, y):
    return tuple_(x, y)


def _newrecord2(doc):
    b = body_of_entry(doc, 2)
    pair = "Bad.UnsupportedNewrecord+Pair"
    doc["entries"][0]["expr"]["body"]["body"] = {"k": "NewRecord", "ty": pair, "args": b["items"], "loc": b.get("loc")}
    doc["entries"][0]["expr"]["body"]["ty"] = func_t(TENSOR, pair)
    doc["entries"][0]["expr"]["ty"] = func_t(TENSOR, func_t(TENSOR, pair))


def _quote(doc):
    b = body_of_entry(doc)
    doc["entries"][0]["expr"]["body"] = {
        "k": "Quote", "ty": "Microsoft.FSharp.Quotations.FSharpExpr`1[TorchSharp.torch+Tensor]", "expr": b,
        "loc": b.get("loc")}
    doc["entries"][0]["expr"]["ty"] = func_t(TENSOR, "Microsoft.FSharp.Quotations.FSharpExpr`1[TorchSharp.torch+Tensor]")


@bad("unsupported_quote", "a nested quotation (Quote: <@ x.exp() @> inside the quotation) is not supported",
     [("x", ten(F32, 10))], mutate=_quote,
     note="<@ fun (x: torch.Tensor) -> <@ x.exp() @> @>")
def _(x):
    return x.exp()


def _letrec(doc):
    lam = find_nodes(doc, lambda n: n["k"] == "Lambda" and n["ty"] == func_t(SINGLE, SINGLE))[0]
    body = lam["body"]
    nv = len(doc["vars"])
    ft = func_t(INT32, INT32)
    doc["vars"] += [{"name": "fact", "type": ft, "mutable": False}, {"name": "n", "type": INT32, "mutable": False}]
    n_var = {"k": "Var", "ty": INT32, "var": nv + 1}
    rec = {"k": "Lambda", "ty": ft, "var": nv + 1, "body": {
        "k": "IfThenElse", "ty": INT32,
        "cond": {"k": "Call", "ty": BOOL, "obj": None,
                 "method": mk_member(OPS, "op_LessThanOrEqual", [INT32, INT32], BOOL, True, [INT32]),
                 "args": [n_var, {"k": "Value", "ty": INT32, "value": 1}]},
        "then": {"k": "Value", "ty": INT32, "value": 1},
        "else": {"k": "Call", "ty": INT32, "obj": None,
                 "method": mk_member(OPS, "op_Multiply", [INT32, INT32], INT32, True, [INT32] * 3),
                 "args": [n_var, {"k": "Application", "ty": INT32, "func": {"k": "Var", "ty": ft, "var": nv},
                                  "arg": {"k": "Call", "ty": INT32, "obj": None,
                                          "method": mk_member(OPS, "op_Subtraction", [INT32, INT32], INT32, True, [INT32] * 3),
                                          "args": [n_var, {"k": "Value", "ty": INT32, "value": 1}]}}]}}}
    lam["body"] = {"k": "LetRecursive", "ty": SINGLE, "bindings": [{"var": nv, "value": rec}], "body": body}


@bad("letrec_unsupported", "let rec inside a map lambda (LetRecursive) is not supported",
     [("x", ten(F32, 10))], mutate=_letrec,
     note="<@ fun (x: torch.Tensor) ->\n    Ops.map (fun (v: float32) ->\n        let rec fact n = if n <= 1 then 1 else n * fact (n - 1)\n        v * 2.0f) x @>")
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: v * 2.0), x)


def _float_for_end(doc):
    loop = find_nodes(doc, lambda n: n["k"] == "ForIntegerRangeLoop")[0]
    loop["end"] = {"k": "Value", "ty": SINGLE, "value": 3.5}


@bad("for_float_bounds", "a for loop whose end is a float32 (F# only writes integer bounds: the document was edited); "
     "rejected naming the bound, not rounded", [("x", ten(F32, 10))], mutate=_float_for_end,
     note="<@ fun (x: torch.Tensor) ->\n    Ops.map (fun (v: float32) ->\n        let mutable acc = 0.0f\n"
          "        for i in 1 .. 3.5f do acc <- acc + v\n        acc) x @>")
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: letm("acc", f(0.0), lambda acc: seq(
        for_("i", 1, 3, lambda i: acc.set(acc + v)), acc))), x)


@bad("bcast_shape_mismatch", "shapes [3,4] and [5] do not broadcast", [("x", ten(F32, 3, 4)), ("y", ten(F32, 5))])
def _(x, y):
    return x + y


@bad("where_cond_not_bool", "where() needs a bool condition (TorchSharp / LibTorch 2.x reject float32 and uint8; PyTorch 1.13 only warned for uint8)",
     [("c", ten(F32, 8)), ("x", ten(F32, 8)), ("y", ten(F32, 8))])
def _(c, x, y):
    return torch.where(c, x, y)


@bad("where_cond_uint8", "where() with a uint8 condition: rejected by TorchSharp (Tensor.where throws unless Bool)",
     [("c", ten(U8, 8)), ("x", ten(F32, 8)), ("y", ten(F32, 8))])
def _(c, x, y):
    return x.where(c, y)


@bad("bitwise_on_float", "&&& on float32 tensors (bitwise ops need integer or bool dtypes)",
     [("x", ten(F32, 16)), ("y", ten(F32, 16))])
def _(x, y):
    return x & y


@bad("shift_on_float", "bitwise_left_shift on float32 tensors",
     [("x", ten(F32, 16)), ("y", ten(F32, 16))])
def _(x, y):
    return x.bitwise_left_shift(y)


@bad("map_unsupported_call", "a map lambda calling a member kgen cannot compile (System.Console.WriteLine)",
     [("x", ten(F32, 16))])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: seq(
        raw_call("System.Console", "WriteLine", [SINGLE], UNIT, [v]), v * 2.0)), x)


def _immutable(doc):
    for v in doc["vars"]:
        if v["name"] == "r":
            v["mutable"] = False


@bad("varset_immutable", "VarSet on a variable that is not mutable (vars[].mutable = false)",
     [("x", ten(F32, 16))], mutate=_immutable)
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: letm("r", v, lambda r: seq(r.set(r * r), r))), x)


def _sig_count(doc):
    doc["entries"][0]["signature"]["params"] = doc["entries"][0]["signature"]["params"][:1]


@bad("signature_param_count", "the signature has 1 parameter, the entry lambda 2",
     [("x", ten(F32, 16)), ("y", ten(F32, 16))], mutate=_sig_count)
def _(x, y):
    return x * y


def _no_capture(doc):
    del doc["entries"][0]["signature"]["captures"]


@bad("capture_missing_in_signature", "a captured tensor (ValueWithName \"w\") that the signature does not describe",
     [("x", ten(F32, 16))], captures={"w": ten(F32, 16)}, mutate=_no_capture)
def _(x):
    return x * capture("w")


def _free_var(doc):
    e = doc["entries"][0]
    e["expr"] = e["expr"]["body"]
    e["signature"]["params"] = []


@bad("free_var_entry", "an entry that is not a lambda and uses a free variable x",
     [("x", ten(F32, 16))], mutate=_free_var)
def _(x):
    return x + x


@bad("dtype_complex64", "a cast to an unsupported dtype: x.to_type(torch.complex64)", [("x", ten(F32, 16))])
def _(x):
    return x.to_type(torch.complex64)


def _big_int(doc):
    for n in find_nodes(doc, lambda n: n["k"] == "Value" and n["ty"] == INT64):
        n["value"] = 9007199254740993


@bad("int64_bare_big_number", "an Int64 of magnitude >= 2^53 written as a bare JSON number (must be a digit string)",
     [("x", ten(I64_, 16))], mutate=_big_int)
def _(x):
    return x + L(1)


def _loc_oob(doc):
    doc["entries"][0]["expr"]["body"]["loc"][0] = 3


@bad("loc_file_index_out_of_range", "a loc whose file index (3) is outside \"files\" (1 entry)",
     [("x", ten(F32, 16))], mutate=_loc_oob)
def _(x):
    return x.sigmoid()


def _unknown_kind(doc):
    doc["entries"][0]["expr"]["body"]["k"] = "Frobnicate"


@bad("unknown_node_kind", "a node kind that is not a Patterns case (\"k\": \"Frobnicate\")",
     [("x", ten(F32, 16))], mutate=_unknown_kind)
def _(x):
    return x.sigmoid()


def _var_oob(doc):
    find_nodes(doc, lambda n: n["k"] == "Var")[0]["var"] = 17


@bad("var_index_out_of_range", "a Var whose index (17) is outside the vars table",
     [("x", ten(F32, 16))], mutate=_var_oob)
def _(x):
    return x.exp()


def _version(doc):
    doc["version"] = 2


@bad("version_too_new", "\"version\": 2 (above the supported version 1)", [("x", ten(F32, 16))], mutate=_version)
def _(x):
    return x.exp()


def _format(doc):
    doc["format"] = "kgen-quote"


@bad("unknown_format", "an unknown \"format\" string", [("x", ten(F32, 16))], mutate=_format)
def _(x):
    return x.exp()


def _argcount(doc):
    body_of_entry(doc, 2)["args"].pop()


@bad("call_arg_count_mismatch", "a Call with fewer args than its member's params (op_Addition with 1 argument)",
     [("x", ten(F32, 16)), ("y", ten(F32, 16))], mutate=_argcount)
def _(x, y):
    return x + y


def _map_arity(doc):
    c = body_of_entry(doc)
    inner = c["args"][0]
    nv = len(doc["vars"])
    doc["vars"].append({"name": "w", "type": SINGLE, "mutable": False})
    c["args"][0] = {"k": "Lambda", "ty": func_t(SINGLE, inner["ty"]), "var": nv, "body": inner}
    c["method"]["params"][0] = func_t(SINGLE, inner["ty"])
    c["method"]["genericArgs"] = [SINGLE, inner["ty"]]


@bad("map_lambda_arity", "Kgen.Ops.map given a curried two-argument lambda (its result would be a function)",
     [("x", ten(F32, 16))], mutate=_map_arity,
     note="<@ fun (x: torch.Tensor) -> Ops.map (fun (w: float32) (v: float32) -> v + 1.0f) x @>")
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: v + 1.0), x)


def _sig_dtype(doc):
    doc["entries"][0]["signature"]["params"][0]["dtype"] = "complex64"


@bad("signature_bad_dtype", "a signature dtype kgen does not support (\"complex64\")", [("x", ten(F32, 16))],
     mutate=_sig_dtype)
def _(x):
    return x.exp()


def _sig_scalar(doc):
    doc["entries"][0]["signature"]["params"][0] = {"scalar": "float32"}


@bad("signature_scalar_for_tensor", "the signature says scalar float32 for a Tensor parameter", [("x", ten(F32, 16))],
     mutate=_sig_scalar)
def _(x):
    return x.exp()


def _missing_ty(doc):
    del body_of_entry(doc)["ty"]


@bad("node_missing_ty", "a node without its required \"ty\"", [("x", ten(F32, 16))], mutate=_missing_ty)
def _(x):
    return x.exp()


def _call_ty(doc):
    body_of_entry(doc)["ty"] = "System.Single"
    doc["entries"][0]["expr"]["ty"] = func_t(TENSOR, SINGLE)


@bad("call_ty_mismatch", "a Call whose ty (System.Single) differs from its member's ret (Tensor)",
     [("x", ten(F32, 16))], mutate=_call_ty)
def _(x):
    return x.exp()


@bad("shape_rank_limit", "a signature rank above kgen's maximum rank (9 dims)",
     [("x", ten(F32, 1, 1, 1, 1, 1, 1, 1, 1, 2))])
def _(x):
    return x.exp()


# ---- more coverage: every primitive operator overload on both sides, bfloat16, small ints ----
# (registered after the bad inputs in this file, but listed with the A1 examples in INDEX.md)
@example("pw_add_overloads_all", "+ with Int32 / Int64 / Single / Double on both sides of a float32 tensor",
         [("x", ten(F32, 96))],
         ref=lambda th, x: (1 + x + 2) + (3 + x + 0.5) + (0.25 + x + 1.5) + (2.0 + x + 4))
def _(x):
    return (1 + x + L(2)) + (L(3) + x + f(0.5)) + (f(0.25) + x + 1.5) + (2.0 + x + 4)


@example("pw_sub_overloads_all", "- with Int32 / Int64 / Single / Double on both sides of a float64 tensor",
         [("x", ten(F64, 96))],
         ref=lambda th, x: ((-x + 1) - 2) - ((-x + 3) - 0.5) + ((-x + 0.25) - 1.5) + ((-x + 2.0) - 4))
def _(x):
    return (1 - x - L(2)) - (L(3) - x - f(0.5)) + (f(0.25) - x - 1.5) + (2.0 - x - 4)


@example("pw_mul_overloads_all", "* with Int32 / Int64 / Single / Double on both sides of an int64 tensor (float scalars -> float32)",
         [("x", ten(I64_, 96))],
         ref=lambda th, x: (x * 2 * 3) + (x * 2 * 0.5) + (x * 0.25 * 1.5) + (x * 2.0 * 4), expect=["float32"])
def _(x):
    return (2 * x * L(3)) + (L(2) * x * f(0.5)) + (f(0.25) * x * 1.5) + (2.0 * x * 4)


@example("pw_div_overloads_all", "/ with Int32 / Int64 / Single / Double on both sides (scalar / tensor = reciprocal().mul)",
         [("y", ten(F32, 96, nonzero=True))],
         ref=lambda th, y: (th.reciprocal(y) * 2 / 3) + (th.reciprocal(y) * 2 / 0.5)
         + (th.reciprocal(y) * 0.25 / 1.5) + (th.reciprocal(y) * 2.0 / 4),
         tol=(1e-5, 1e-5))
def _(y):
    return (2 / y / L(3)) + (L(2) / y / f(0.5)) + (f(0.25) / y / 1.5) + (2.0 / y / 4)


@example("pw_bf16_arith_cmp", "bfloat16 tensors: x * y + 1, and where(x > y, x, y)",
         [("x", ten(BF16, 40, 40)), ("y", ten(BF16, 40, 40))],
         ref=lambda th, x, y: (x * y + 1, th.where(x > y, x, y)), expect=["bfloat16", "bfloat16"])
def _(x, y):
    return tuple_(x * y + 1, torch.where(x.gt(y), x, y))


@example("cast_bf16_f16_roundtrip", "bfloat16 -> float16 -> float32 casts and a float32 -> bfloat16 cast",
         [("g", ten(BF16, 64)), ("x", ten(F32, 64))],
         ref=lambda th, g, x: (g.half().float(), x.bfloat16()), expect=["float32", "bfloat16"])
def _(g, x):
    return tuple_(g.to_type(torch.float16).float(), x.to_type(torch.bfloat16))


@example("map_small_int_results", "byte / int16 / sbyte conversions wrap (unchecked): uint8, int16 and int8 results",
         [("x", ten(I32_, 128))],
         ref=lambda th, x: ((x * 37).to(th.uint8), (x * 5000).to(th.int16), (x * 20).to(th.int8)),
         expect=["uint8", "int16", "int8"])
def _(x):
    return tuple_(Ops.map(fun(("v", INT32), lambda v: fsfun("ToByte", v * 37)), x),
                  Ops.map(fun(("v", INT32), lambda v: fsfun("ToInt16", v * 5000)), x),
                  Ops.map(fun(("v", INT32), lambda v: fsfun("ToSByte", v * 20)), x))


@example("map_extra_conversions", "single / double (ExtraTopLevelOperators) next to float32 / float (Operators)",
         [("x", ten(I32_, 100))],
         ref=lambda th, x: x.double() * 0.5 + x.double() * 2.0, expect=["float64"])
def _(x):
    return Ops.map(fun(("v", INT32), lambda v: xconv("ToDouble", xconv("ToSingle", v)) * 0.5 + float_(v) * 2.0), x)


def xconv(name, x):
    """ExtraTopLevelOperators.ToSingle / ToDouble (F# `single x` / `double x`)."""
    ret = SINGLE if name == "ToSingle" else DOUBLE
    m = mk_member(XOPS, name, [x._ty], ret, True, [x._ty])
    return N("Call", ret, {"obj": None, "method": m, "args": [x]},
             {"kind": "fnapp", "name": "single" if name == "ToSingle" else "double"})


def coerce(x, ty):
    """An upcast (F# :>) node; kgen treats it as the identity on the value."""
    return N("Coerce", ty, {"expr": x}, {"kind": "hidden"})


def new_array(elem_ty, items):
    items = [lit(x, elem_ty) for x in items]
    return N("NewArray", elem_ty + "[]", {"elemType": elem_ty, "items": items}, {"kind": "array"})


# ========================================================================================
# E: REDUCTIONS (registered last so that every earlier example keeps its index: the
# DefaultValue / Value null style and the --check seeds depend on it)
# ========================================================================================
def dims(*ds):
    """An F# `[| 0L; 2L |]` (System.Int64[]) dims argument: a NewArray node."""
    return new_array(INT64, [L(x) for x in ds])


def _hf(th, x):
    """Half-precision inputs are reduced in float32 by the references."""
    return x.float() if x.dtype in (th.float16, th.bfloat16) else x


# ---- sum: all-reduce, one dim, Int64[] dims, the two- and three-dim forms, static forms ----
@example("red_sum_all_f32", "all-reduce sum: x.sum() and torch.sum(x) (type = null filled in) on [457, 67]",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: (x.sum(), x.sum()), expect=["float32", "float32"])
def _(x):
    return tuple_(x.sum(), torch.sum(x))


@example("red_sum_all_dtype", "all-reduce sum(dtype): float32 summed as float64 (FieldGet and enum spellings); bfloat16 summed as is and as float32",
         [("x", ten(F32, 67, 4097)), ("g", ten(BF16, 1024))],
         ref=lambda th, x, g: (x.double().sum(), x.double().sum(), g.float().sum().bfloat16(), g.float().sum()),
         expect=["float64", "float64", "bfloat16", "float32"])
def _(x, g):
    return tuple_(x.sum(torch.float64), torch.sum(x, torch.ScalarType.Float64), g.sum(), g.sum(torch.float32))


@example("red_sum_dim_2d", "sum(dim, keepdim) of 2-D inputs: last axis of [3, 4097] (dim 1, dim -1 keepdim, named keepdim), leading strided axis of [457, 67] (dim 0, dim -2 keepdim) and [2000, 7]",
         [("x", ten(F32, 3, 4097)), ("y", ten(F32, 457, 67)), ("z", ten(F32, 2000, 7))],
         ref=lambda th, x, y, z: (x.sum(1), x.sum(-1, keepdim=True), x.sum(1, keepdim=False), y.sum(0),
                                  y.sum(-2, keepdim=True), z.sum(0)),
         expect=["float32"] * 6)
def _(x, y, z):
    return tuple_(x.sum(L(1)), x.sum(L(-1), True), x.sum(L(1), keepdim=False), y.sum(L(0)), y.sum(L(-2), True),
                  z.sum(L(0)))


@example("red_sum_1d", "sum of 1-D inputs: [4097] dim 0 -> 0-dim, dim -1 keepdim -> [1], torch.sum(x, 0L); [1] dim 0",
         [("x", ten(F32, 4097)), ("y", ten(F32, 1))],
         ref=lambda th, x, y: (x.sum(0), x.sum(-1, keepdim=True), x.sum(0), y.sum(0)),
         expect=["float32"] * 4)
def _(x, y):
    return tuple_(x.sum(L(0)), x.sum(L(-1), True), torch.sum(x, L(0)), y.sum(L(0)))


@example("red_sum_3d_each_axis", "sum of [7, 67, 457] over each axis (0, 1, 2) and over -1 / -2 with keepdim",
         [("x", ten(F32, 7, 67, 457))],
         ref=lambda th, x: (x.sum(0), x.sum(1), x.sum(2), x.sum(-1, keepdim=True), x.sum(-2, keepdim=True)),
         expect=["float32"] * 5)
def _(x):
    return tuple_(x.sum(L(0)), x.sum(L(1)), x.sum(L(2)), x.sum(L(-1), True), x.sum(L(-2), True))


@example("red_sum_dims_array", "sum(Int64[] dims, keepdim, type) on [67, 7, 67]: [|0L; 2L|] with and without keepdim, [|-1L; -2L|], [|1L|] as float64",
         [("x", ten(F32, 67, 7, 67))],
         ref=lambda th, x: (x.sum([0, 2]), x.sum([0, 2], keepdim=True), x.sum([-1, -2]),
                            x.sum([1], dtype=th.float64)),
         expect=["float32", "float32", "float32", "float64"])
def _(x):
    return tuple_(x.sum(dims(0, 2)), x.sum(dims(0, 2), True), x.sum(dims(-1, -2)),
                  x.sum(dims(1), False, torch.float64))


@example("red_sum_two_three_dim_forms", "sum(d0, d1, keepdim, type) and sum(d0, d1, d2, keepdim, type) on [7, 457, 7] (unordered and negative dims, enum dtype)",
         [("x", ten(F32, 7, 457, 7))],
         ref=lambda th, x: (x.sum([0, 2]), x.sum([2, 0]), x.sum([1, -1], keepdim=True), x.sum([0, 1, 2]),
                            x.sum([2, 0, 1], keepdim=True, dtype=th.float64)),
         expect=["float32", "float32", "float32", "float32", "float64"])
def _(x):
    return tuple_(x.sum(L(0), L(2)), x.sum(L(2), L(0)), x.sum(L(1), L(-1), True), x.sum(L(0), L(1), L(2)),
                  x.sum(L(2), L(0), L(1), True, torch.ScalarType.Float64))


@example("red_sum_static_dim", "torch.sum(input, dim, keepdim, type) on [1024, 67]: dim 1, dim -1 keepdim, dim 0 as float64",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: (x.sum(1), x.sum(-1, keepdim=True), x.sum(0, dtype=th.float64)),
         expect=["float32", "float32", "float64"])
def _(x):
    return tuple_(torch.sum(x, L(1)), torch.sum(x, L(-1), True), torch.sum(x, L(0), False, torch.float64))


@example("red_sum_f64", "float64 sums of [2000, 7]: over the 7-wide rows, over the 2000 rows, all",
         [("x", ten(F64, 2000, 7))],
         ref=lambda th, x: (x.sum(1), x.sum([0]), x.sum()), expect=["float64"] * 3)
def _(x):
    return tuple_(x.sum(L(1)), x.sum(dims(0)), x.sum())


@example("red_sum_f16", "float16 sums of [67, 457] (accumulate in float32, round once): dim -1, dim 0 keepdim, [|0L; 1L|]",
         [("x", ten(F16, 67, 457))],
         ref=lambda th, x: (x.float().sum(-1).half(), x.float().sum(0, keepdim=True).half(),
                            x.float().sum([0, 1]).half()),
         expect=["float16"] * 3)
def _(x):
    return tuple_(x.sum(L(-1)), x.sum(L(0), True), x.sum(dims(0, 1)))


@example("red_sum_bf16", "bfloat16 sums of [457, 67]: [|1L|], [|0L|] keepdim, torch.sum(x, 1L, false, float32)",
         [("x", ten(BF16, 457, 67))],
         ref=lambda th, x: (x.float().sum(1).bfloat16(), x.float().sum(0, keepdim=True).bfloat16(),
                            x.float().sum(1)),
         expect=["bfloat16", "bfloat16", "float32"])
def _(x):
    return tuple_(x.sum(dims(1)), x.sum(dims(0), True), torch.sum(x, L(1), False, torch.float32))


@example("red_sum_half_dtype", "float16 [3, 4097] summed with an explicit dtype: float32 rows, float64 all-reduce, float16 (same dtype) keepdim",
         [("x", ten(F16, 3, 4097))],
         ref=lambda th, x: (x.float().sum(1), x.double().sum(), x.float().sum(-1, keepdim=True).half()),
         expect=["float32", "float64", "float16"])
def _(x):
    return tuple_(x.sum(L(1), False, torch.float32), x.sum(torch.float64), x.sum(L(-1), True, torch.float16))


@example("red_sum_int32", "int32 sums give int64 unless a dtype is given: [1024, 67] rows, rows as int32, all as float64, torch.sum",
         [("n", ten(I32_, 1024, 67))],
         ref=lambda th, n: (n.sum(1), n.sum(1, dtype=th.int32), n.sum(dtype=th.float64), n.sum()),
         expect=["int64", "int32", "float64", "int64"])
def _(n):
    return tuple_(n.sum(L(1)), n.sum(L(1), False, torch.int32), n.sum(torch.float64), torch.sum(n))


@example("red_sum_int64", "int64 sums of [7, 4097]: dim -1, [|0L|] keepdim, the two-dim form (all)",
         [("m", ten(I64_, 7, 4097))],
         ref=lambda th, m: (m.sum(-1), m.sum([0], keepdim=True), m.sum([0, 1])), expect=["int64"] * 3)
def _(m):
    return tuple_(m.sum(L(-1)), m.sum(dims(0), True), m.sum(L(0), L(1)))


@example("red_sum_small_ints", "int8 / uint8 / int16 sums are int64 (no wrap); uint8 rows summed as int32",
         [("a", ten(I8, 457, 67)), ("b", ten(U8, 67, 457)), ("c", ten(I16, 1, 1024))],
         ref=lambda th, a, b, c: (a.sum(1), b.sum(0), c.sum(-1, keepdim=True), b.sum(1, dtype=th.int32), a.sum()),
         expect=["int64", "int64", "int64", "int32", "int64"])
def _(a, b_, c):
    return tuple_(a.sum(L(1)), b_.sum(L(0)), c.sum(L(-1), True), b_.sum(L(1), False, torch.int32), a.sum())


@example("red_sum_bool", "bool sums count true values (int64); as float32 and int32 with a dtype",
         [("m", ten(BOOL_, 2000, 7))],
         ref=lambda th, m: (m.sum(1), m.sum(), m.sum(0, keepdim=True, dtype=th.float32), m.sum([1], dtype=th.int32)),
         expect=["int64", "int64", "float32", "int32"])
def _(m):
    return tuple_(m.sum(L(1)), torch.sum(m), m.sum(L(0), True, torch.float32), m.sum(dims(1), False, torch.int32))


@example("red_sum_float_to_int_dtype", "sum(dtype = int64 / int32) of float32: every element is converted (truncated) first, then summed",
         [("x", ten(F32, 67, 457))],
         ref=lambda th, x: (x.to(th.int64).sum(1), x.to(th.int32).sum(dtype=th.int32)),
         expect=["int64", "int32"])
def _(x):
    return tuple_(x.sum(L(1), False, torch.int64), x.sum(torch.ScalarType.Int32))


# ---- nansum ----------------------------------------------------------------------------------
@example("red_nansum", "nansum (torch static and instance; all-reduce only) skips NaN (sqrt of negatives, log(y + 6) for y < -6) in float32 / float64 / float16 / bfloat16",
         [("x", ten(F32, 457, 67)), ("y", ten(F64, 1024)), ("h", ten(F16, 67, 7)), ("g", ten(BF16, 1, 1024))],
         ref=lambda th, x, y, h, g: (th.nansum(x.sqrt()), th.nansum(x.sqrt()), th.nansum((y + 6).log()), x.sum(),
                                     th.nansum(h.float().sqrt()).half(), th.nansum(g.float().log()).bfloat16(),
                                     h.float().sum().half()),
         expect=["float32", "float32", "float64", "float32", "float16", "bfloat16", "float16"])
def _(x, y, h, g):
    return tuple_(torch.nansum(x.sqrt()), x.sqrt().nansum(), (y + 6.0).log().nansum(), torch.nansum(x),
                  h.sqrt().nansum(), torch.nansum(g.log()), h.nansum())


# ---- mean ------------------------------------------------------------------------------------
@example("red_mean_all", "all-reduce mean (torch static and instance) of float32 [3, 4097], float64 [2000, 7] and float64 [4097]",
         [("x", ten(F32, 3, 4097)), ("y", ten(F64, 2000, 7)), ("z", ten(F64, 4097))],
         ref=lambda th, x, y, z: (x.mean(), x.mean(), y.mean(), y.mean(), z.mean([0]), z.mean(-1, keepdim=True)),
         expect=["float32", "float32", "float64", "float64", "float64", "float64"])
def _(x, y, z):
    return tuple_(x.mean(), torch.mean(x), y.mean(), torch.mean(y), z.mean(dims(0)), z.mean(dims(-1), True))


@example("red_mean_dims_2d", "mean(Int64[] dims, keepdim, type) on [457, 67]: rows, rows keepdim, columns (static), all keepdim, columns as float64",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: (x.mean([1]), x.mean([-1], keepdim=True), x.mean([0]), x.mean([0, 1], keepdim=True),
                            x.mean([0], dtype=th.float64)),
         expect=["float32", "float32", "float32", "float32", "float64"])
def _(x):
    return tuple_(x.mean(dims(1)), x.mean(dims(-1), True), torch.mean(x, dims(0)), torch.mean(x, dims(0, 1), True),
                  x.mean(dims(0), False, torch.float64))


@example("red_mean_3d", "mean of [67, 7, 67] over [|0L; 2L|], [|1L|] keepdim, [|-2L; -1L|], all three dims",
         [("x", ten(F32, 67, 7, 67))],
         ref=lambda th, x: (x.mean([0, 2]), x.mean([1], keepdim=True), x.mean([-2, -1]), x.mean([0, 1, 2])),
         expect=["float32"] * 4)
def _(x):
    return tuple_(x.mean(dims(0, 2)), x.mean(dims(1), True), x.mean(dims(-2, -1)), x.mean(dims(0, 1, 2)))


@example("red_mean_half", "mean of float16 [67, 457] and bfloat16 [457, 67]; a float32 dtype (FieldGet and enum) gives a float32 result",
         [("h", ten(F16, 67, 457)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, h, g: (h.float().mean([1]).half(), h.float().mean().half(),
                               g.float().mean([0], keepdim=True).bfloat16(), g.float().mean([-1]),
                               h.float().mean([0])),
         expect=["float16", "float16", "bfloat16", "float32", "float32"])
def _(h, g):
    return tuple_(h.mean(dims(1)), h.mean(), g.mean(dims(0), True), g.mean(dims(-1), False, torch.float32),
                  torch.mean(h, dims(0), False, torch.ScalarType.Float32))


@example("red_mean_int_with_dtype", "mean of integers is allowed only with a floating dtype: int32 -> float32, int64 -> float64, uint8 -> float32",
         [("n", ten(I32_, 1024, 7)), ("m", ten(I64_, 67, 67)), ("u", ten(U8, 7, 457))],
         ref=lambda th, n, m, u: (n.float().mean([1]), m.double().mean([0, 1], keepdim=True), u.float().mean([-1])),
         expect=["float32", "float64", "float32"])
def _(n, m, u):
    return tuple_(n.mean(dims(1), False, torch.float32), m.mean(dims(0, 1), True, torch.float64),
                  torch.mean(u, dims(-1), False, torch.float32))


# ---- prod (values kept near 1 so that products stay finite and away from 0) -------------------
@example("red_prod_rows_f32", "prod(dim, keepdim, type) of float32: rows of 67 of x * 0.01 + 1 and of tanh(0.1 x) + 1, rows of 7 of raw y, static over 457 rows as float64",
         [("x", ten(F32, 457, 67)), ("y", ten(F32, 2000, 7))],
         ref=lambda th, x, y: ((x * 0.01 + 1).prod(1), y.prod(-1, keepdim=True), (x * 0.01 + 1).prod(0, dtype=th.float64),
                               y.prod(1, dtype=th.float64), ((x * 0.1).tanh() + 1).prod(1)),
         expect=["float32", "float32", "float64", "float64", "float32"])
def _(x, y):
    return let_("p", x * f(0.01) + f(1.0), lambda p: tuple_(
        p.prod(L(1)), y.prod(L(-1), True), torch.prod(p, L(0), False, torch.float64), y.prod(L(1), False, torch.float64),
        (x * f(0.1)).tanh().add(f(1.0).ToScalar()).prod(L(1))))


@example("red_prod_all", "all-reduce prod (torch static and instance, with and without dtype) of 30k float32 near 1; 4097 float64",
         [("x", ten(F32, 67, 457)), ("z", ten(F64, 4097))],
         ref=lambda th, x, z: ((x * 0.01 + 1).prod(), (x * 0.01 + 1).prod(), (x * 0.01 + 1).double().prod(),
                               (x * 0.01 + 1).double().prod(), (z * 0.01 + 1).prod()),
         expect=["float32", "float32", "float64", "float64", "float64"])
def _(x, z):
    return let_("p", x * f(0.01) + f(1.0), lambda p: tuple_(
        p.prod(), torch.prod(p), p.prod(torch.float64), torch.prod(p, torch.ScalarType.Float64), (z * 0.01 + 1.0).prod()))


@example("red_prod_half", "prod of float16 / bfloat16 factors x.sign() * 0.25 + 1 (exact in half: only the result rounds) over rows of 67 / 7 and all of [7, 7]; raw bfloat16 rows of 7 as float32, float16 [7, 7] as float64",
         [("h", ten(F16, 457, 67)), ("g", ten(BF16, 457, 7)), ("s", ten(F16, 7, 7))],
         ref=lambda th, h, g, s: ((h.float().sign() * 0.25 + 1).prod(1).half(), (h.float().sign() * 0.25 + 1).prod(-1, keepdim=True),
                                  (g.float().sign() * 0.25 + 1).prod(-1).bfloat16(), g.float().prod(-1),
                                  (s.float().sign() * 0.25 + 1).prod().half(), s.double().prod()),
         expect=["float16", "float32", "bfloat16", "float32", "float16", "float64"])
def _(h, g, s):
    return let_("ph", h.sign() * f(0.25) + f(1.0), lambda ph: tuple_(
        ph.prod(L(1)), ph.prod(L(-1), True, torch.float32), (g.sign() * f(0.25) + f(1.0)).prod(L(-1)),
        g.prod(L(-1), False, torch.float32), (s.sign() * f(0.25) + f(1.0)).prod(), s.prod(torch.float64)))


@example("red_prod_int32_int64", "integer prod over rows of 7 (|product| <= 9^7): int32 -> int64, int32 with dtype int32, int64 all-reduce",
         [("n", ten(I32_, 1024, 7)), ("m", ten(I64_, 7))],
         ref=lambda th, n, m: (n.prod(1), n.prod(-1, keepdim=True, dtype=th.int32), m.prod(), m.prod(0, keepdim=True)),
         expect=["int64", "int32", "int64", "int64"])
def _(n, m):
    return tuple_(n.prod(L(1)), n.prod(L(-1), True, torch.int32), m.prod(), torch.prod(m, L(0), True))


@example("red_prod_small_ints_bool", "int8 / uint8 / int16 / bool prod (int64 results; bool prod is `all`), int16 rows as float64",
         [("a", ten(I8, 457, 7)), ("b", ten(U8, 1, 7)), ("c", ten(I16, 67, 7)), ("q", ten(BOOL_, 2000, 7))],
         ref=lambda th, a, b, c, q: (a.prod(1), b.prod(-1, keepdim=True), b.prod(), c.prod(1, dtype=th.float64), q.prod(1)),
         expect=["int64", "int64", "int64", "float64", "int64"])
def _(a, b_, c, q):
    return tuple_(a.prod(L(1)), b_.prod(L(-1), True), torch.prod(b_), c.prod(L(1), False, torch.float64), q.prod(L(1)))


# ---- amax / amin -----------------------------------------------------------------------------
@example("red_amax_amin_2d", "amax(Int64[]) / amax(Int64[], keepdim, out = null), instance and static, on [3, 4097]; amin on [457, 67] (torch.amin: keepdim and out filled in)",
         [("x", ten(F32, 3, 4097)), ("y", ten(F32, 457, 67))],
         ref=lambda th, x, y: (x.amax([1]), x.amax([-1]), x.amax([0], keepdim=True), x.amax([1], keepdim=True),
                               y.amin([1]), y.amin([0]), y.amin([-1], keepdim=True), y.amin([0, 1])),
         expect=["float32"] * 8)
def _(x, y):
    return tuple_(x.amax(dims(1)), torch.amax(x, dims(-1)), x.amax(dims(0), True), torch.amax(x, dims(1), True),
                  y.amin(dims(1)), torch.amin(y, dims(0)), y.amin(dims(-1), True), y.amin(dims(0, 1)))


@example("red_amax_amin_3d", "amax / amin of [7, 7, 457] over [|0L; 2L|], [|1L|] keepdim, [|-2L; -1L|], all dims unordered, [|0L|]",
         [("x", ten(F32, 7, 7, 457))],
         ref=lambda th, x: (x.amax([0, 2]), x.amin([1], keepdim=True), x.amax([-2, -1]), x.amin([2, 0, 1]), x.amax([0])),
         expect=["float32"] * 5)
def _(x):
    return tuple_(x.amax(dims(0, 2)), x.amin(dims(1), True), x.amax(dims(-2, -1)), x.amin(dims(2, 0, 1)),
                  torch.amax(x, dims(0)))


@example("red_amax_amin_floats", "amax / amin of float64 [2000, 7], float16 [67, 457], bfloat16 [1, 1024] (exact: no rounding)",
         [("d", ten(F64, 2000, 7)), ("h", ten(F16, 67, 457)), ("g", ten(BF16, 1, 1024))],
         ref=lambda th, d, h, g: (d.amax([1]), d.amin([0], keepdim=True), h.amax([0]), h.amin([-1], keepdim=True),
                                  g.amax([1]), g.amin([0, 1])),
         expect=["float64", "float64", "float16", "float16", "bfloat16", "bfloat16"])
def _(d, h, g):
    return tuple_(d.amax(dims(1)), d.amin(dims(0), True), h.amax(dims(0)), h.amin(dims(-1), True),
                  g.amax(dims(1)), torch.amin(g, dims(0, 1)))


@example("red_amax_amin_ints", "amax / amin keep the integer dtype: int8, uint8, int16, int32, int64",
         [("a", ten(I8, 457, 67)), ("b", ten(U8, 67, 7)), ("c", ten(I16, 1, 1024)), ("n", ten(I32_, 1024, 67)),
          ("m", ten(I64_, 7, 4097))],
         ref=lambda th, a, b, c, n, m: (a.amax([1]), a.amin([0]), b.amax([-1], keepdim=True), b.amin([1]),
                                        c.amax([1]), n.amin([1]), n.amax([0, 1]), m.amin([-1]), m.amax([0], keepdim=True)),
         expect=["int8", "int8", "uint8", "uint8", "int16", "int32", "int32", "int64", "int64"])
def _(a, b_, c, n, m):
    return tuple_(a.amax(dims(1)), a.amin(dims(0)), b_.amax(dims(-1), True), b_.amin(dims(1)), c.amax(dims(1)),
                  n.amin(dims(1)), n.amax(dims(0, 1)), torch.amin(m, dims(-1)), torch.amax(m, dims(0), True))


@example("red_amax_amin_bool", "amax / amin of bool stay bool (any / all over the dims)",
         [("q", ten(BOOL_, 2000, 7))],
         ref=lambda th, q: (q.amax([1]), q.amin([1]), q.amax([0], keepdim=True), q.amin([0, 1])),
         expect=["bool"] * 4)
def _(q):
    return tuple_(q.amax(dims(1)), q.amin(dims(1)), torch.amax(q, dims(0), True), q.amin(dims(0, 1)))


# ---- max() / min() all-reduce --------------------------------------------------------------
@example("red_max_min_all_floats", "all-reduce max() / min() (torch static and instance) of float32 [67, 4097], float64 [2000, 7], float16 [457, 67], bfloat16 [1024]",
         [("x", ten(F32, 67, 4097)), ("d", ten(F64, 2000, 7)), ("h", ten(F16, 457, 67)), ("g", ten(BF16, 1024))],
         ref=lambda th, x, d, h, g: (x.max(), x.max(), x.min(), x.min(), d.max(), d.min(), h.max(), h.min(), g.max(), g.min()),
         expect=["float32"] * 4 + ["float64", "float64", "float16", "float16", "bfloat16", "bfloat16"])
def _(x, d, h, g):
    return tuple_(torch.max(x), x.max(), torch.min(x), x.min(), d.max(), torch.min(d), h.max(), h.min(), torch.max(g),
                  g.min())


@example("red_max_min_all_ints_bool", "all-reduce max() / min() keep the dtype: int8, uint8, int16, int32, int64, bool",
         [("a", ten(I8, 457, 67)), ("b", ten(U8, 1024)), ("c", ten(I16, 7, 7)), ("n", ten(I32_, 67, 457)),
          ("m", ten(I64_, 2000, 7)), ("q", ten(BOOL_, 1, 67))],
         ref=lambda th, a, b, c, n, m, q: (a.max(), a.min(), b.max(), b.min(), c.max(), c.min(), n.max(), n.min(),
                                           m.max(), m.min(), q.max(), q.min()),
         expect=["int8", "int8", "uint8", "uint8", "int16", "int16", "int32", "int32", "int64", "int64", "bool", "bool"])
def _(a, b_, c, n, m, q):
    return tuple_(a.max(), a.min(), b_.max(), torch.min(b_), c.max(), c.min(), torch.max(n), n.min(),
                  m.max(), m.min(), q.max(), q.min())


@example("red_nan_propagation", "NaN propagates through sum / mean / amax / amin rows of 7 (log(x + 8.5) is NaN for x < -8.5); nansum skips it",
         [("x", ten(F32, 2000, 7))],
         ref=lambda th, x: tuple(f_((x + 8.5).log()) for f_ in (
             lambda y: y.amax([1]), lambda y: y.sum(1), lambda y: y.mean([1]), lambda y: y.amin([-1], keepdim=True),
             lambda y: th.nansum(y))),
         expect=["float32"] * 5)
def _(x):
    return let_("y", (x + f(8.5)).log(), lambda y: tuple_(
        y.amax(dims(1)), y.sum(L(1)), y.mean(dims(1)), y.amin(dims(-1), True), y.nansum()))


# ---- fusion shapes -----------------------------------------------------------------------------
@example("red_fuse_prologue_affine", "a pointwise prologue feeding a row sum: (x * 2.0f + b).sum(-1L), b [1024] broadcast over rows",
         [("x", ten(F32, 67, 1024)), ("b", ten(F32, 1024))],
         ref=lambda th, x, b: (x * 2.0 + b).sum(-1), expect=["float32"])
def _(x, b_):
    return (x * f(2.0) + b_).sum(L(-1))


@example("red_fuse_exp_sum", "x.exp().sum([|1L|]) on [457, 67] (the exp is fused into the reduction's loads)",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: x.exp().sum([1]), expect=["float32"])
def _(x):
    return x.exp().sum(dims(1))


@example("red_fuse_map_sum", "a Kgen.Ops.map lambda (if / else per element) feeding a row sum on [1024, 67]",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: th.where(x > 0, x * x, x * 0.5).sum(1), expect=["float32"])
def _(x):
    return Ops.map(fun(("v", SINGLE), lambda v: if_(gt(v, 0.0), v * v, f(0.5) * v)), x).sum(L(1))


@example("red_fuse_epilogue", "pointwise epilogues on a reduction's output shape: sum(-1L, false) * 0.5f, amax(...).sqrt(), amin(...).abs() + 1",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: (x.sum(-1) * 0.5, x.amax([-1]).sqrt(), x.amin([0]).abs() + 1),
         expect=["float32"] * 3)
def _(x):
    return tuple_(x.sum(L(-1), False) * f(0.5), x.amax(dims(-1)).sqrt(), x.amin(dims(0)).abs() + f(1.0))


@example("red_fuse_center", "x - x.mean([|-1L|], true): a keepdim reduction broadcast back into its input ([457, 67])",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: x - x.mean([-1], keepdim=True), expect=["float32"])
def _(x):
    return x - x.mean(dims(-1), True)


@example("red_fuse_center_half", "centering in float16 (rows of 1024) and bfloat16 (columns: mean over dim 0 broadcast down the rows)",
         [("h", ten(F16, 67, 1024)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, h, g: ((h.float() - h.float().mean([-1], keepdim=True)).half(),
                               (g.float() - g.float().mean([0], keepdim=True)).bfloat16()),
         expect=["float16", "bfloat16"])
def _(h, g):
    return tuple_(h - h.mean(dims(-1), True), g - g.mean(dims(0), True))


@example("red_fuse_normalize", "p / p.sum(-1L, true) with p = |x| + 0.5 (positive, so the sum is far from 0); x / |x|.amax(keepdim)",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: ((x.abs() + 0.5) / (x.abs() + 0.5).sum(-1, keepdim=True),
                            x / x.abs().amax([-1], keepdim=True)),
         expect=["float32", "float32"])
def _(x):
    return let_("p", x.abs() + f(0.5), lambda p: tuple_(p / p.sum(L(-1), True), x / x.abs().amax(dims(-1), True)))


@example("red_fuse_two_reductions", "several reductions of one input in one tuple: (x.sum(-1L), x.amax([|-1L|]), x.mean([|-1L|], true))",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: (x.sum(-1), x.amax([-1]), x.mean([-1], keepdim=True)),
         expect=["float32"] * 3)
def _(x):
    return tuple_(x.sum(L(-1)), x.amax(dims(-1)), x.mean(dims(-1), True))


@example("red_fuse_bcast_input", "reductions of broadcast expressions: (x + b).sum(0L) with b [67]; ((x + c) * b).amax over rows with c [457, 1]",
         [("x", ten(F32, 457, 67)), ("b", ten(F32, 67)), ("c", ten(F32, 457, 1))],
         ref=lambda th, x, b, c: ((x + b).sum(0), ((x + c) * b).amax([1])), expect=["float32", "float32"])
def _(x, b_, c):
    return tuple_((x + b_).sum(L(0)), ((x + c) * b_).amax(dims(1)))


@example("red_fuse_two_stage", "a reduction of an expression that uses another reduction: variance by hand, and x normalized by it",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: (((x - x.mean([-1], keepdim=True)) ** 2).mean([-1]),
                            (x - x.mean([-1], keepdim=True)) / (((x - x.mean([-1], keepdim=True)) ** 2).mean([-1], keepdim=True) + 1e-5).sqrt()),
         expect=["float32", "float32"], tol=(1e-4, 1e-5))
def _(x):
    return let_("c", x - x.mean(dims(-1), True), lambda c: tuple_(
        (c * c).mean(dims(-1)), c / ((c * c).mean(dims(-1), True) + f(1e-5)).sqrt()))


@example("red_reduce_of_reduce", "a reduction of a reduction: x.sum(2L).amax([|0L|]) and x.amin([|2L|]).mean([|0L|]) on [7, 67, 67]",
         [("x", ten(F32, 7, 67, 67))],
         ref=lambda th, x: (x.sum(2).amax([0]), x.amin([2]).mean([0])), expect=["float32", "float32"])
def _(x):
    return tuple_(x.sum(L(2)).amax(dims(0)), x.amin(dims(2)).mean(dims(0)))


@example("red_size_one_dims", "reducing size-1 dims (a copy) and size-1 results: [1, 1024] over 0 / 1 / both keepdim, [1024, 1] over 1 / 0",
         [("a", ten(F32, 1, 1024)), ("c", ten(F32, 1024, 1))],
         ref=lambda th, a, c: (a.sum(0), a.sum(1), a.amax([0, 1], keepdim=True), c.mean([1]), c.amin([0])),
         expect=["float32"] * 5)
def _(a, c):
    return tuple_(a.sum(L(0)), a.sum(L(1)), a.amax(dims(0, 1), True), c.mean(dims(1)), c.amin(dims(0)))


# ---- symbolic sizes ----------------------------------------------------------------------------
@example("red_argmax_argmin", "argmax / argmin over rows, columns (keepdim) and all elements: float32 with NaNs (x.sqrt(): the first NaN wins) and int32 with many ties (the first occurrence wins)",
         [("x", ten(F32, 67, 457)), ("n", ten(I32_, 457, 67))],
         ref=lambda th, x, n: (x.argmax(-1), th.argmin(x, 0, keepdim=True), x.argmax(), x.sqrt().argmax(1),
                               x.sqrt().argmin(0), n.argmax(1), th.argmin(n, 0), n.argmin(), n.argmax(0, keepdim=True)),
         expect=["int64"] * 9)
def _(x, n):
    return tuple_(x.argmax(L(-1)), torch.argmin(x, L(0), True), x.argmax(), x.sqrt().argmax(L(1)),
                  x.sqrt().argmin(L(0)), n.argmax(L(1)), torch.argmin(n, L(0)), n.argmin(), n.argmax(L(0), True))


@example("red_max_min_dim", "let struct (v, i) = x.max(1L) and torch.min(x, 0L, true): values and indices from one call, used in later arithmetic; float32 [67, 457] and int16 with ties",
         [("x", ten(F32, 67, 457)), ("n", ten(I16, 457, 67))],
         ref=lambda th, x, n: (x.max(1)[0] * 2.0, x.max(1)[1], th.min(x, 0, keepdim=True)[0], th.min(x, 0, keepdim=True)[1] + 1,
                               n.max(-1)[0], n.max(-1)[1]),
         expect=["float32", "int64", "float32", "int64", "int16", "int64"])
def _(x, n):
    return let_struct(["v", "i"], x.max(L(1)), lambda v, i: let_struct(
        ["w", "j"], torch.min(x, L(0), True), lambda w, j: let_struct(
            ["u", "k"], n.max(L(-1)), lambda u, k: tuple_(v * f(2.0), i, w, j + L(1), u, k))))


# ---- cumsum -------------------------------------------------------------------------------------
def _cumsum_example(dt, covers, out_dts, ref_up):
    @example("red_cumsum_axes_" + dt, covers, [("x", ten(dt, 13, 67))],
             ref=lambda th, x: ref_up(th, x), expect=out_dts)
    def _(x):
        return tuple_(x.cumsum(L(-1)), x.cumsum(L(0)), x.cumsum(L(-1)) * f(2.0))


_cumsum_example(F32, "`x.cumsum(-1L)`, `x.cumsum(0L)` and `x.cumsum(-1L) * 2.0f` on float32 [13, 67]", ["float32"] * 3,
                lambda th, x: (x.cumsum(-1), x.cumsum(0), x.cumsum(-1) * 2.0))
_cumsum_example(I32_, "the same on int32 (int64 scans; times 2.0f is float32)", ["int64", "int64", "float32"],
                lambda th, x: (x.cumsum(-1), x.cumsum(0), x.cumsum(-1) * 2.0))
_cumsum_example(F16, "the same on float16 (float64 accumulation, rounded once per element)", ["float16"] * 3,
                lambda th, x: (x.double().cumsum(-1).half(), x.double().cumsum(0).half(),
                               x.double().cumsum(-1).half() * 2.0))


# ---- the size matrix (tests/test_examples.c: reduce_size_matrix re-runs these over many sizes) --
@example("red_matrix_rows_f32", "every float reduction over the last dim of a symbolic [\"R\", \"C\"] float32: sum, mean, amax, amin keepdim, argmax, max(dim), var, std, logsumexp, norm, softmax, log_softmax, cumsum",
         [("x", ten(F32, "R", "C"))], sizes={"R": 7, "C": 33},
         ref=lambda th, x: (x.sum(-1), x.mean([-1]), x.amax([-1]), x.amin([-1], keepdim=True), x.argmax(-1),
                            x.max(-1)[0], x.max(-1)[1], x.var(-1), x.std(-1, unbiased=False, keepdim=True),
                            th.logsumexp(x, -1), x.norm(2.0, -1), x.softmax(-1), x.log_softmax(-1), x.cumsum(-1)),
         expect=["float32"] * 4 + ["int64", "float32", "int64"] + ["float32"] * 7)
def _(x):
    return let_struct(["v", "i"], x.max(L(-1)), lambda v, i: tuple_(
        x.sum(L(-1)), x.mean(dims(-1)), x.amax(dims(-1)), x.amin(dims(-1), True), x.argmax(L(-1)), v, i,
        x.var(L(-1)), x.std(L(-1), False, True), x.logsumexp(L(-1)), x.norm(-1), x.softmax(L(-1)),
        x.log_softmax(L(-1)), x.cumsum(L(-1))))


@example("red_matrix_cols_f32", "the same reductions over the first dim of a symbolic [\"R\", \"C\"] float32 (outer reductions: column schedules)",
         [("x", ten(F32, "R", "C"))], sizes={"R": 33, "C": 7},
         ref=lambda th, x: (x.sum(0), x.mean([0]), x.amax([0]), x.amin([0], keepdim=True), x.argmin(0),
                            x.min(0)[0], x.min(0)[1], x.var(0), x.std(0, unbiased=False, keepdim=True),
                            th.logsumexp(x, 0), x.norm(1.0, 0), x.softmax(0), x.log_softmax(0), x.cumsum(0)),
         expect=["float32"] * 4 + ["int64", "float32", "int64"] + ["float32"] * 7)
def _(x):
    return let_struct(["v", "i"], x.min(L(0)), lambda v, i: tuple_(
        x.sum(L(0)), x.mean(dims(0)), x.amax(dims(0)), x.amin(dims(0), True), x.argmin(L(0)), v, i,
        x.var(L(0)), x.std(L(0), False, True), x.logsumexp(L(0)), x.norm(0, p=f(1.0)), x.softmax(L(0)),
        x.log_softmax(L(0)), x.cumsum(L(0))))


@example("red_matrix_int32", "integer reductions of a symbolic [\"R\", \"C\"] int32 over each dim: sum and prod (int64, wrapping: exact in any order), amax, argmax / argmin with ties, cumsum",
         [("n", ten(I32_, "R", "C"))], sizes={"R": 7, "C": 33},
         ref=lambda th, n: (n.sum(-1), n.prod(-1), n.amax([-1]), n.argmax(-1), n.cumsum(-1),
                            n.sum(0), n.prod(0), n.amin([0]), n.argmin(0), n.cumsum(0)),
         expect=["int64", "int64", "int32", "int64", "int64", "int64", "int64", "int32", "int64", "int64"])
def _(n):
    return tuple_(n.sum(L(-1)), n.prod(L(-1)), n.amax(dims(-1)), n.argmax(L(-1)), n.cumsum(L(-1)),
                  n.sum(L(0)), n.prod(L(0)), n.amin(dims(0)), n.argmin(L(0)), n.cumsum(L(0)))


@example("red_matrix_half_f64", "float16 rows and bfloat16 columns of a symbolic [\"R\", \"C\"] (float32 accumulation, one rounding), float64 rows: sum, amax, var, softmax, cumsum",
         [("h", ten(F16, "R", "C")), ("g", ten(BF16, "R", "C")), ("d", ten(F64, "R", "C"))], sizes={"R": 7, "C": 33},
         ref=lambda th, h, g, d: (h.float().sum(-1).half(), h.amax([-1]), h.float().var(-1).half(),
                                  h.float().softmax(-1).half(), h.cumsum(-1),
                                  g.float().sum(0).bfloat16(), g.amax([0]), g.float().softmax(0).bfloat16(),
                                  d.sum(-1), d.var(-1), d.softmax(-1), d.cumsum(-1)),
         expect=["float16"] * 5 + ["bfloat16"] * 3 + ["float64"] * 4)
def _(h, g, d_):
    return tuple_(h.sum(L(-1)), h.amax(dims(-1)), h.var(L(-1)), h.softmax(L(-1)), h.cumsum(L(-1)),
                  g.sum(L(0)), g.amax(dims(0)), g.softmax(L(0)),
                  d_.sum(L(-1)), d_.var(L(-1)), d_.softmax(L(-1)), d_.cumsum(L(-1)))


@example("red_matrix_empty_ok", "the reductions PyTorch defines on an empty reduced dim, over the last dim of a symbolic [\"R\", \"C\"] float32 (C = 0: sum 0, mean NaN, var NaN, logsumexp -inf, norm 0, empty softmax / cumsum)",
         [("x", ten(F32, "R", "C"))], sizes={"R": 7, "C": 33},
         ref=lambda th, x: (x.sum(-1), x.mean([-1]), x.var(-1), th.logsumexp(x, -1), x.norm(2.0, -1), x.softmax(-1),
                            x.cumsum(-1), x.sum(0)),
         expect=["float32"] * 8)
def _(x):
    return tuple_(x.sum(L(-1)), x.mean(dims(-1)), x.var(L(-1)), x.logsumexp(L(-1)), x.norm(-1), x.softmax(L(-1)),
                  x.cumsum(L(-1)), x.sum(L(0)))


@example("red_sym_rows", "symbolic row count [\"N\", 1024]: (x * 2.0f + b).sum(-1L) and x.amax([|-1L|], true)",
         [("x", ten(F32, "N", 1024)), ("b", ten(F32, 1024))], sizes={"N": 67},
         ref=lambda th, x, b: ((x * 2.0 + b).sum(-1), x.amax([-1], keepdim=True)), expect=["float32", "float32"])
def _(x, b_):
    return tuple_((x * f(2.0) + b_).sum(L(-1)), x.amax(dims(-1), True))


@example("red_sym_reduced", "a symbolic reduced size [67, \"K\"]: amax, sum keepdim and mean over K",
         [("x", ten(F32, 67, "K"))], sizes={"K": 4097},
         ref=lambda th, x: (x.amax([1]), x.sum(1, keepdim=True), x.mean([-1])), expect=["float32"] * 3)
def _(x):
    return tuple_(x.amax(dims(1)), x.sum(L(1), True), x.mean(dims(-1)))


@example("red_sym_3d", "[\"B\", \"T\", 67]: centering over the last dim, and a sum over both symbolic dims",
         [("x", ten(F32, "B", "T", 67))], sizes={"B": 3, "T": 457},
         ref=lambda th, x: (x - x.mean([-1], keepdim=True), x.sum([0, 1])), expect=["float32", "float32"])
def _(x):
    return tuple_(x - x.mean(dims(-1), True), x.sum(dims(0, 1)))


@example("cf_if_sizes", "conditions on sizes known only at run time (x is [N, 4]): numel(), dim() and x.shape.[0] are host "
         "values (SIZE steps, host arithmetic); an if that assigns on them is a plan IF, a pure one a select",
         [("x", ten(F32, "N", 4))], sizes={"N": 5},
         ref=lambda th, x: _ref_if_sizes(th, x))
def _(x):
    return letm("y", x, lambda y: seq(
        if_(and_(gt(x.numel(), L(12)), eq(x.dim(), L(2))), y.set(y.relu() + float32_(get_array(x.shape, 0)))),
        if_(gt(get_array(x.shape, 0), L(100)), y * f(2.0), y - f(1.0))))


def _ref_if_sizes(th, x):
    y = x
    if x.numel() > 12 and x.dim() == 2:
        y = y.relu() + float(x.shape[0])
    return y * 2.0 if x.shape[0] > 100 else y - 1.0


@example("cf_nested_mixed", "a while inside an if inside a for, with a scalar counter and the tensor carried through all "
         "three: for i in 1 .. n do (if i % 2 = 0 then y <- y * 0.5f else while max |y| < 4 do y <- y * 2 + 0.1); count",
         [("x", ten(F32, 3, 5)), ("n", scal(I32_))],
         ref=lambda th, x, n: _ref_nested_mixed(th, x, n), expect=["float32", "int32"])
def _(x, n):
    return letm("y", x * f(0.01), lambda y: letm("count", 0, lambda cnt: seq(
        for_("i", 1, n, lambda i: seq(
            if_(eq(i % 2, 0), y.set(y * f(0.5)),
                while_(lt(item(y.abs().max(), SINGLE), f(4.0)), y.set(y * f(2.0) + f(0.1)))),
            cnt.set(cnt + 1))),
        tuple_(y, cnt))))


def _ref_nested_mixed(th, x, n):
    y, cnt = x * 0.01, 0
    for i in range(1, int(n) + 1):
        if i % 2 == 0:
            y = y * 0.5
        else:
            while y.abs().max().item() < 4.0:
                y = y * 2.0 + 0.1
        cnt += 1
    return y, th.tensor(cnt, dtype=th.int32)


@example("cf_carry_views", "a loop that only moves a view and counts: last <- x.[t] (the carried tensor is a view of the "
         "input, no copy, no kernel in the loop) and s <- s + t (host arithmetic); then last * float32 s",
         [("x", ten(F32, 6, 4))],
         ref=lambda th, x: x[5] * 15.0)
def _(x):
    return letm("s", 0, lambda s_: letm("last", at(x, L(0)), lambda last: seq(
        for_("t", 0, int_(get_array(x.shape, 0)) - 1, lambda t: seq(s_.set(s_ + t), last.set(at(x, _i64(t))))),
        last * float32_(s_))))


@example("cf_captured_weights", "captured tensors (a closure's weights) used only inside a loop body: "
         "for i in 1 .. 5 do h <- tanh(h * w + bias)",
         [("x", ten(F32, 3, 16))], captures={"w": ten(F32, 16), "bias": ten(F32, 16)},
         ref=lambda th, x, w, bias: _ref_captured(th, x, w, bias))
def _(x):
    return letm("h", x, lambda h: seq(
        for_("i", 1, 5, lambda i: h.set(torch.tanh(h * capture("w") + capture("bias")))), h))


def _ref_captured(th, x, w, bias):
    h = x
    for _ in range(5):
        h = th.tanh(h * w + bias)
    return h


@example("cf_host_transcendental", "a carried float32 computed with exp on the host (a decaying step size): "
         "y <- y - lr * tanh y; lr <- lr * exp(-0.5f * float32 i); returns (y, lr)",
         [("x", ten(F32, 4, 8)), ("n", scal(I32_))],
         ref=lambda th, x, n: _ref_host_exp(th, x, n), expect=["float32", "float32"])
def _(x, n):
    return letm("y", x, lambda y: letm("lr", f(1.0), lambda lr: seq(
        for_("i", 1, n, lambda i: seq(y.set(y - lr * y.tanh()), lr.set(lr * exp_(f(-0.5) * float32_(i))))),
        tuple_(y, lr))))


def _ref_host_exp(th, x, n):
    y, lr = x, th.tensor(1.0, dtype=th.float32)
    for i in range(1, int(n) + 1):
        y = y - lr * y.tanh()
        lr = lr * th.exp(th.tensor(-0.5, dtype=th.float32) * float(i))
    return y, lr


@example("cf_dtypes_loop", "loop-carried float16, bfloat16 and int32 tensors (rounded after every op in every iteration; "
         "integer arithmetic wraps): y <- y * 0.5 + x, w <- w * 0.75 + 1, z <- (z * 3 + i) % 1000",
         [("x", ten(F16, 8, 16)), ("v", ten(BF16, 5)), ("k", ten(I32_, 7)), ("n", scal(I32_))],
         ref=lambda th, x, v, k, n: _ref_dtypes_loop(th, x, v, k, n), expect=["float16", "bfloat16", "int32"])
def _(x, v, k, n):
    return letm("y", x, lambda y: letm("w", v, lambda w: letm("z", k, lambda z: seq(
        for_("i", 1, n, lambda i: seq(y.set(y * f(0.5) + x), w.set(w * f(0.75) + f(1.0)), z.set((z * 3 + i) % 1000))),
        tuple_(y, w, z)))))


def _ref_dtypes_loop(th, x, v, k, n):
    y, w, z = x, v, k
    for i in range(1, int(n) + 1):
        y = (y.float() * 0.5).half().float().add(x.float()).half()
        w = (w.float() * 0.75).bfloat16().float().add(1.0).bfloat16()
        z = th.remainder(z * 3 + i, 1000)
    return y, w, z


@example("cf_while_invariant_read", "a while whose condition reads two device values, one of them the same in every "
         "iteration: x's read moves before the loop (one sync), y's stays: while max|y| > max|x| * 0.25 do y <- y * 0.5",
         [("x", ten(F32, 6, 5)), ("y", ten(F32, 4, 4))],
         ref=lambda th, x, y: _ref_while_inv(th, x, y))
def _(x, y0):
    return letm("y", y0, lambda y: seq(
        while_(gt(item(y.abs().max(), SINGLE), item(x.abs().max(), SINGLE) * f(0.25)), y.set(y * f(0.5))), y))


def _ref_while_inv(th, x, y):
    lim = x.abs().max().item()
    while y.abs().max().item() > th.tensor(lim, dtype=th.float32).mul(0.25).item():
        y = y * 0.5
    return y


# ---- bad inputs ----------------------------------------------------------------------------------
@bad("red_dim_out_of_range", "sum over dim 2 of a 2-D tensor (dims must be in [-rank, rank - 1])",
     [("x", ten(F32, 3, 4))], torch_error="Dimension out of range")
def _(x):
    return x.sum(L(2))


@bad("red_dim_out_of_range_negative", "amax over dim -3 of a 2-D tensor (negative dims count from the end, down to -rank)",
     [("x", ten(F32, 3, 4))], torch_error="Dimension out of range")
def _(x):
    return x.amax(dims(-3))


@bad("red_duplicate_dims", "the same dim twice in an Int64[] dims array: x.sum([| 1L; 1L |])",
     [("x", ten(F32, 3, 4))], torch_error="appears multiple times")
def _(x):
    return x.sum(dims(1, 1))


@bad("red_duplicate_dims_alias", "dims -1 and 2 name the same axis of a 3-D tensor: x.mean([| -1L; 2L |])",
     [("x", ten(F32, 3, 4, 5))], torch_error="appears multiple times")
def _(x):
    return x.mean(dims(-1, 2))


@bad("red_amax_empty_dim", "amax over a dim of size 0 (no identity for max: PyTorch errors; sum would give 0)",
     [("x", ten(F32, 4, 0))], torch_error="non-zero size")
def _(x):
    return x.amax(dims(1))


@bad("red_max_all_empty", "all-reduce max() of a tensor with no elements (PyTorch errors)",
     [("x", ten(F32, 0, 5))], torch_error="numel() == 0")
def _(x):
    return x.max()


@bad("red_mean_of_int", "mean of an int32 tensor without a floating dtype (PyTorch: could not infer output dtype)",
     [("x", ten(I32_, 4, 7))], torch_error="could not infer output dtype")
def _(x):
    return x.mean(dims(-1))


@bad("red_mean_int_dtype", "mean with an integer dtype (torch.int64): mean's dtype must be floating",
     [("x", ten(F32, 4, 7))], torch_error="could not infer output dtype")
def _(x):
    return x.mean(dims(1), False, torch.int64)


@bad("red_sum_dim_not_constant", "sum over a dim that is a parameter (d: int64), not a constant: the output rank would depend on a run-time value",
     [("x", ten(F32, 3, 4)), ("d", scal("int64"))])
def _(x, d_):
    return x.sum(d_)


@bad("red_amax_dims_not_constant", "amax over [| d |] with d a parameter: dims arrays must hold constants",
     [("x", ten(F32, 3, 4)), ("d", scal("int64"))])
def _(x, d_):
    return x.amax(new_array(INT64, [d_]))


@bad("red_amax_out_tensor", "amax(dims, keepdim, out) with an out= tensor: the out argument must be Value null (kgen writes no caller tensors)",
     [("x", ten(F32, 3, 4)), ("y", ten(F32, 3))])
def _(x, y):
    return x.amax(dims(1), False, y)


# ========================================================================================
# D / E: NORMALIZATIONS (registered after the reductions, for the same reason: every earlier
# example and bad input keeps its index, hence its DefaultValue / Value null style and seeds)
# ========================================================================================
NNF = torch.nn.functional


def finf():
    """A float32 +infinity (F#: System.Single.PositiveInfinity, a literal field -> Value "Infinity")."""
    return f(float("inf"))


def _sm_rows(th, x, dim):
    return th.softmax(_hf(th, x), dim).to(x.dtype)


# ---- softmax: torch.softmax (Int32 dim), Tensor.softmax, torch.special.softmax, nn.functional ----
@example("norm_softmax_torch_int32_dim", "torch.softmax(input, Int32 dim, dtype): dim -1 / 1 (rows of 67) and 0 (columns of 457) of [457, 67], dtype float64; int32 [1024, 7] with dtype float32",
         [("x", ten(F32, 457, 67)), ("n", ten(I32_, 1024, 7))],
         ref=lambda th, x, n: (x.softmax(-1), x.softmax(1), x.softmax(0), x.double().softmax(-1), n.float().softmax(-1)),
         expect=["float32", "float32", "float32", "float64", "float32"])
def _(x, n):
    return tuple_(torch.softmax(x, -1), torch.softmax(x, 1), torch.softmax(x, 0), torch.softmax(x, -1, torch.float64),
                  torch.softmax(n, -1, torch.float32))


@example("norm_softmax_method", "x.softmax(Int64 dim, dtype): rows of 4097 ([67, 4097]), as float64 (enum), columns of 2000 and rows of 7 of [2000, 7], float64 rows of 67",
         [("x", ten(F32, 67, 4097)), ("y", ten(F32, 2000, 7)), ("d", ten(F64, 457, 67))],
         ref=lambda th, x, y, d: (x.softmax(-1), x.double().softmax(1), y.softmax(0), y.softmax(-1), d.softmax(-1),
                                  d.float().softmax(0)),
         expect=["float32", "float64", "float32", "float32", "float64", "float32"])
def _(x, y, d_):
    return tuple_(x.softmax(L(-1)), x.softmax(L(1), torch.ScalarType.Float64), y.softmax(L(0)), y.softmax(L(-1)),
                  d_.softmax(L(-1)), d_.softmax(L(0), torch.float32))


@example("norm_softmax_special_functional", "torch.special.softmax and nn.functional.softmax (Int64 dim, dtype) on [1024, 67] (rows, columns) and over each axis of [7, 457, 67] (the middle one strided)",
         [("x", ten(F32, 1024, 67)), ("z", ten(F32, 7, 457, 67))],
         ref=lambda th, x, z: (x.softmax(-1), x.softmax(0), x.softmax(1), z.softmax(1), z.double().softmax(-1),
                               z.softmax(0)),
         expect=["float32", "float32", "float32", "float32", "float64", "float32"])
def _(x, z):
    return tuple_(torch.special.softmax(x, L(-1)), torch.special.softmax(x, L(0), torch.float32),
                  NNF.softmax(x, L(1)), NNF.softmax(z, L(1)), torch.special.softmax(z, L(-1), torch.float64),
                  NNF.softmax(z, L(0), torch.ScalarType.Float32))


@example("norm_softmax_half_dtype_f32", "float16 / bfloat16 inputs with dtype float32: the input is converted first, the result is float32 (all four softmax members)",
         [("h", ten(F16, 67, 1024)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, h, g: (h.float().softmax(-1), h.float().softmax(0), g.float().softmax(-1), g.float().softmax(0)),
         expect=["float32"] * 4)
def _(h, g):
    return tuple_(h.softmax(L(-1), torch.float32), torch.softmax(h, 0, torch.float32),
                  torch.special.softmax(g, L(-1), torch.ScalarType.Float32), NNF.softmax(g, L(0), torch.float32))


@example("norm_softmax_half", "softmax without a dtype keeps float16 / bfloat16 (rows and columns); float32 with dtype float16 is converted to half first",
         [("h", ten(F16, 67, 1024)), ("g", ten(BF16, 1024, 67)), ("x", ten(F32, 7, 457))],
         ref=lambda th, h, g, x: (_sm_rows(th, h, -1), _sm_rows(th, h, 0), _sm_rows(th, g, -1), _sm_rows(th, g, 0),
                                  _sm_rows(th, x.half(), -1)),
         expect=["float16", "float16", "bfloat16", "bfloat16", "float16"])
def _(h, g, x):
    return tuple_(h.softmax(L(-1)), torch.softmax(h, 0), torch.special.softmax(g, L(-1)), NNF.softmax(g, L(0)),
                  x.softmax(L(-1), torch.float16))


@example("norm_softmax_sym", "symbolic row count [\"N\", 1024]: softmax and nn.functional.log_softmax over the last dim; [\"B\", 457, 7] over the middle dim",
         [("x", ten(F32, "N", 1024)), ("z", ten(F32, "B", 457, 7))], sizes={"N": 67, "B": 7},
         ref=lambda th, x, z: (x.softmax(-1), x.log_softmax(-1), z.softmax(1)), expect=["float32"] * 3)
def _(x, z):
    return tuple_(x.softmax(L(-1)), NNF.log_softmax(x, L(-1)), torch.softmax(z, 1))


@example("norm_softmax_fused_prologue", "attention-style (s * 0.125f + mask).softmax(-1L) * 2.0f: a broadcast pointwise prologue and an epilogue around a softmax over rows of 457",
         [("s", ten(F32, 4, 67, 457)), ("mask", ten(F32, 67, 457))],
         ref=lambda th, s, mask: (s * 0.125 + mask).softmax(-1) * 2.0, expect=["float32"])
def _(s, mask):
    return (s * f(0.125) + mask).softmax(L(-1)) * f(2.0)


@example("norm_size_one_rows", "normalizing size-1 dims and single rows: softmax of [2000, 1] rows (ones), log_softmax (zeros), [1, 4097] over dim 0 (ones) and dim 1; layer_norm over [|1L|] (bias) and of one 4097 row",
         [("a", ten(F32, 2000, 1)), ("r", ten(F32, 1, 4097)), ("w", ten(F32, 1)), ("b", ten(F32, 1))],
         ref=lambda th, a, r, w, b: (a.softmax(-1), a.log_softmax(1), r.softmax(0), r.softmax(1),
                                     th.nn.functional.layer_norm(a, [1], w, b), th.nn.functional.layer_norm(r, [4097])),
         expect=["float32"] * 6)
def _(a, r, w, b_):
    return tuple_(a.softmax(L(-1)), torch.special.log_softmax(a, L(1)), torch.softmax(r, 0), NNF.softmax(r, L(1)),
                  NNF.layer_norm(a, dims(1), w, b_), NNF.layer_norm(r, dims(4097)))


# ---- log_softmax: Tensor.log_softmax, torch.special.log_softmax, nn.functional.log_softmax (no dtype) ----
@example("norm_log_softmax_method", "x.log_softmax(Int64 dim, dtype) on [457, 457]: rows, columns, rows as float64",
         [("x", ten(F32, 457, 457))],
         ref=lambda th, x: (x.log_softmax(-1), x.log_softmax(0), x.double().log_softmax(1)),
         expect=["float32", "float32", "float64"])
def _(x):
    return tuple_(x.log_softmax(L(-1)), x.log_softmax(L(0)), x.log_softmax(L(1), torch.float64))


@example("norm_log_softmax_special_functional", "torch.special.log_softmax (dtype) and nn.functional.log_softmax(T, Int64) on [1024, 67] and over the middle / last dim of [67, 7, 457]",
         [("x", ten(F32, 1024, 67)), ("z", ten(F32, 67, 7, 457))],
         ref=lambda th, x, z: (x.log_softmax(-1), x.double().log_softmax(0), x.log_softmax(1), z.log_softmax(1),
                               z.log_softmax(-1)),
         expect=["float32", "float64", "float32", "float32", "float32"])
def _(x, z):
    return tuple_(torch.special.log_softmax(x, L(-1)), torch.special.log_softmax(x, L(0), torch.float64),
                  NNF.log_softmax(x, L(1)), NNF.log_softmax(z, L(1)), torch.special.log_softmax(z, L(-1)))


@example("norm_log_softmax_half", "log_softmax of float16 [67, 1024] (as float32 and as is) and bfloat16 [457, 67] (nn.functional: bfloat16; special with dtype float32, columns)",
         [("h", ten(F16, 67, 1024)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, h, g: (h.float().log_softmax(-1), h.float().log_softmax(-1).half(),
                               g.float().log_softmax(-1).bfloat16(), g.float().log_softmax(0)),
         expect=["float32", "float16", "bfloat16", "float32"])
def _(h, g):
    return tuple_(h.log_softmax(L(-1), torch.float32), h.log_softmax(L(-1)), NNF.log_softmax(g, L(-1)),
                  torch.special.log_softmax(g, L(0), torch.float32))


# ---- var / std ---------------------------------------------------------------------------------
@example("norm_var_std_all", "all-reduce var / std (Boolean unbiased, default true): Tensor and torch static forms, unbiased true / false, on [457, 67] and [3, 4097] (PyTorch semantics: TorchSharp 0.107's native THSTensor_var(tensor) drops the unbiased argument of var(Boolean))",
         [("x", ten(F32, 457, 67)), ("y", ten(F32, 3, 4097))],
         ref=lambda th, x, y: (x.var(), x.var(unbiased=False), x.var(), x.var(), y.var(unbiased=False), y.var(),
                               x.std(), x.std(unbiased=False), y.std(), y.std(unbiased=False)),
         expect=["float32"] * 10)
def _(x, y):
    return tuple_(x.var(), x.var(False), torch.var(x, True), torch.var(x), torch.var(y, False), y.var(True),
                  x.std(), torch.std(x, False), torch.std(y), y.std(False))


@example("norm_var_std_dim", "var / std over one Int64 dim (unbiased, keepdim, type = null): rows of 67 and columns of 1024 of [1024, 67], unbiased / keepdim true and false, named arguments, torch static forms",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: (x.var(-1), x.var(1, unbiased=False), x.var(-1, keepdim=True), x.var(0, unbiased=False, keepdim=True),
                            x.var(0), x.var(-1, unbiased=False, keepdim=True), x.std(-1), x.std(1, unbiased=False),
                            x.std(0, unbiased=False, keepdim=True), x.std(0), x.std(1, keepdim=True)),
         expect=["float32"] * 11)
def _(x):
    return tuple_(x.var(L(-1)), x.var(L(1), False), x.var(L(-1), True, True), x.var(L(0), unbiased=False, keepdim=True),
                  torch.var(x, L(0)), torch.var(x, L(-1), False, True), x.std(L(-1)), x.std(L(1), False),
                  x.std(L(0), False, True), torch.std(x, L(0)), torch.std(x, L(1), True, True))


@example("norm_var_std_dims_array", "var / std over Int64[] dims of [7, 457, 67]: [|0L; 2L|], the middle dim keepdim, [|-1L|], all three dims, unordered [|2L; 0L|] (Tensor and torch static)",
         [("z", ten(F32, 7, 457, 67))],
         ref=lambda th, z: (z.var([0, 2]), z.var([1], unbiased=False, keepdim=True), z.var([-1]),
                            z.var([0, 1, 2], unbiased=False, keepdim=True), z.std([-2]), z.std([2, 0], unbiased=False, keepdim=True),
                            z.std([0, 1, 2])),
         expect=["float32"] * 7)
def _(z):
    return tuple_(z.var(dims(0, 2)), z.var(dims(1), False, True), torch.var(z, dims(-1), True, False),
                  torch.var(z, dims(0, 1, 2), False, True), z.std(dims(-2)), torch.std(z, dims(2, 0), False, True),
                  z.std(dims(0, 1, 2)))


@example("norm_var_std_dtype_ignored", "var / std with a `type` argument: TorchSharp never passes it to LibTorch, so float32 stays float32 (float64 / float16 requests ignored)",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: (x.var(-1), x.var([0], unbiased=False, keepdim=True), x.std([1]), x.std(0)),
         expect=["float32"] * 4)
def _(x):
    return tuple_(x.var(L(-1), True, False, torch.float64),
                  torch.var(x, dims(0), False, True, torch.ScalarType.Float64),
                  x.std(dims(1), True, False, torch.float16), torch.std(x, L(0), True, False, torch.float64))


@example("norm_var_std_dtypes", "var / std keep the input dtype: float16 [67, 1024], bfloat16 [457, 67], float64 [2000, 7] (rows, columns, all; unbiased true / false)",
         [("h", ten(F16, 67, 1024)), ("g", ten(BF16, 457, 67)), ("d", ten(F64, 2000, 7))],
         ref=lambda th, h, g, d: (h.float().var(-1).half(), h.float().std(0, unbiased=False, keepdim=True).half(),
                                  h.float().var().half(), g.float().std([1]).bfloat16(),
                                  g.float().var(0, unbiased=False).bfloat16(), g.float().std().bfloat16(),
                                  d.var(1), d.std(0, unbiased=False, keepdim=True), d.var([0, 1]), d.std(unbiased=False)),
         expect=["float16"] * 3 + ["bfloat16"] * 3 + ["float64"] * 4)
def _(h, g, d_):
    return tuple_(h.var(L(-1)), h.std(L(0), False, True), torch.var(h), g.std(dims(1)), torch.var(g, L(0), False),
                  g.std(True), d_.var(L(1)), d_.std(L(0), False, True), torch.var(d_, dims(0, 1)), torch.std(d_, False))


@example("norm_var_std_single_element", "var / std of one element: 0 when unbiased = false, NaN when unbiased (0 / 0; checked with isnan): rows of [2000, 1], the 1-row dim of [1, 4097], a [1] all-reduce",
         [("a", ten(F32, 2000, 1)), ("r", ten(F32, 1, 4097)), ("s", ten(F32, 1))],
         ref=lambda th, a, r, s: (a.var(1, unbiased=False), a.std(-1, unbiased=False, keepdim=True), a.var(1).isnan(),
                                  r.std(0).isnan(), s.var().isnan(), s.std(unbiased=False), r.var(1)),
         expect=["float32", "float32", "bool", "bool", "bool", "float32", "float32"])
def _(a, r, s):
    return tuple_(a.var(L(1), False), a.std(L(-1), False, True), a.var(L(1)).isnan(), r.std(L(0)).isnan(),
                  torch.var(s, True).isnan(), s.std(False), r.var(L(1)))


# ---- logsumexp ---------------------------------------------------------------------------------
@example("norm_logsumexp", "torch.logsumexp(T, Int64, Boolean) and x.logsumexp(Int64, Boolean) on [67, 4097]: rows (keepdim false / true), columns (keepdim false / true)",
         [("x", ten(F32, 67, 4097))],
         ref=lambda th, x: (th.logsumexp(x, -1), th.logsumexp(x, 1, keepdim=True), th.logsumexp(x, 0),
                            th.logsumexp(x, 0, keepdim=True)),
         expect=["float32"] * 4)
def _(x):
    return tuple_(torch.logsumexp(x, L(-1)), x.logsumexp(L(1), True), x.logsumexp(L(0)), torch.logsumexp(x, L(0), True))


@example("norm_logsumexp_dtypes", "logsumexp of float64 rows of 7, the middle dim of [7, 457, 7], float16 rows of 457, bfloat16 columns",
         [("d", ten(F64, 2000, 7)), ("z", ten(F32, 7, 457, 7)), ("h", ten(F16, 67, 457)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, d, z, h, g: (th.logsumexp(d, 1), th.logsumexp(z, 1, keepdim=True),
                                     th.logsumexp(h.float(), -1).half(), th.logsumexp(g.float(), 0).bfloat16()),
         expect=["float64", "float32", "float16", "bfloat16"])
def _(d_, z, h, g):
    return tuple_(d_.logsumexp(L(1)), z.logsumexp(L(1), True), h.logsumexp(L(-1)), torch.logsumexp(g, L(0), False))


@example("norm_logsumexp_int32", "logsumexp of an int32 tensor is allowed and gives float32 (the default dtype), unlike softmax / var / norm: rows of 7 of [1024, 7], columns keepdim",
         [("n", ten(I32_, 1024, 7))],
         ref=lambda th, n: (th.logsumexp(n.float(), 1), th.logsumexp(n.float(), 0, keepdim=True)),
         expect=["float32", "float32"])
def _(n):
    return tuple_(n.logsumexp(L(1)), torch.logsumexp(n, L(0), True))


# ---- layer_norm ----------------------------------------------------------------------------------
def _ln(th, x, shape, w=None, b=None, eps=1e-5):
    r = th.nn.functional.layer_norm(_hf(th, x), shape, None if w is None else _hf(th, w),
                                    None if b is None else _hf(th, b), eps)
    return r.to(x.dtype)


@example("norm_layer_norm_affine", "nn.functional.layer_norm(x, [|1024L|], w, b) (eps = 1e-5 filled in) on [67, 1024]",
         [("x", ten(F32, 67, 1024)), ("w", ten(F32, 1024)), ("b", ten(F32, 1024))],
         ref=lambda th, x, w, b: _ln(th, x, [1024], w, b), expect=["float32"])
def _(x, w, b_):
    return NNF.layer_norm(x, dims(1024), w, b_)


@example("norm_layer_norm_plain_eps", "layer_norm without weight and bias (Value null) on [457, 457], with the default eps and with a named eps = 0.001",
         [("x", ten(F32, 457, 457))],
         ref=lambda th, x: (_ln(th, x, [457]), _ln(th, x, [457], eps=1e-3)), expect=["float32"] * 2)
def _(x):
    return tuple_(NNF.layer_norm(x, dims(457)), NNF.layer_norm(x, dims(457), eps=1e-3))


@example("norm_layer_norm_weight_only", "layer_norm with only a weight (bias null), with a weight and a custom named eps = 1e-6, and with only a named bias, on rows of 67 ([2000, 67])",
         [("x", ten(F32, 2000, 67)), ("w", ten(F32, 67)), ("b", ten(F32, 67))],
         ref=lambda th, x, w, b: (_ln(th, x, [67], w), _ln(th, x, [67], w, eps=1e-6), _ln(th, x, [67], b=b)),
         expect=["float32"] * 3)
def _(x, w, b_):
    return tuple_(NNF.layer_norm(x, dims(67), w), NNF.layer_norm(x, dims(67), w, eps=1e-6),
                  NNF.layer_norm(x, dims(67), bias=b_))


@example("norm_layer_norm_last2", "layer_norm over the last two dims of [7, 67, 457] (normalized_shape [|67L; 457L|]) with [67, 457] weight / bias and eps 1e-6 (positional), and without affine",
         [("x", ten(F32, 7, 67, 457)), ("w", ten(F32, 67, 457)), ("b", ten(F32, 67, 457))],
         ref=lambda th, x, w, b: (_ln(th, x, [67, 457], w, b, 1e-6), _ln(th, x, [67, 457])),
         expect=["float32"] * 2, tol=(1e-4, 1e-5))
def _(x, w, b_):
    return tuple_(NNF.layer_norm(x, dims(67, 457), w, b_, 1e-6), NNF.layer_norm(x, dims(67, 457)))


@example("norm_layer_norm_half", "layer_norm of float16 [67, 1024] with float16 weight / bias and of bfloat16 [457, 67] with a bfloat16 weight (statistics in float32, result in the input dtype)",
         [("h", ten(F16, 67, 1024)), ("wh", ten(F16, 1024)), ("bh", ten(F16, 1024)), ("g", ten(BF16, 457, 67)),
          ("wg", ten(BF16, 67))],
         ref=lambda th, h, wh, bh, g, wg: (_ln(th, h, [1024], wh, bh), _ln(th, g, [67], wg)),
         expect=["float16", "bfloat16"])
def _(h, wh, bh, g, wg):
    return tuple_(NNF.layer_norm(h, dims(1024), wh, bh), NNF.layer_norm(g, dims(67), wg))


@example("norm_layer_norm_f64_sym", "float64 layer_norm of [\"N\", 1024] with weight / bias and eps 1e-12; a float32 [\"N\", 7, 67] over its last dim",
         [("d", ten(F64, "N", 1024)), ("w", ten(F64, 1024)), ("b", ten(F64, 1024)), ("x", ten(F32, "N", 7, 67))],
         sizes={"N": 67},
         ref=lambda th, d, w, b, x: (_ln(th, d, [1024], w, b, 1e-12), _ln(th, x, [67])),
         expect=["float64", "float32"])
def _(d_, w, b_, x):
    return tuple_(NNF.layer_norm(d_, dims(1024), w, b_, 1e-12), NNF.layer_norm(x, dims(67)))


# ---- norm (p is Single, dim is Int32) -----------------------------------------------------------
@example("norm_norm_all", "all-element norms: torch.norm(x) (p = 2), torch.norm(x, p) and x.norm(p) with p = 2 (default), 1, 3 and infinity (System.Single.PositiveInfinity) on [457, 67]",
         [("x", ten(F32, 457, 67))],
         ref=lambda th, x: (x.norm(), x.norm(1.0), x.norm(3.0), x.norm(float("inf")), x.norm(), x.norm(1.0),
                            x.norm(float("inf")), x.norm(3.0)),
         expect=["float32"] * 8)
def _(x):
    return tuple_(torch.norm(x), torch.norm(x, f(1.0)), torch.norm(x, f(3.0)), torch.norm(x, finf()), x.norm(),
                  x.norm(f(1.0)), x.norm(finf()), x.norm(f(3.0)))


@example("norm_norm_dim", "norm over one Int32 dim (keepdim, p): torch.norm and x.norm on [1024, 67], rows and columns, p = 2 / 1 / 3 / infinity, keepdim true and false, a named p",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: (x.norm(2.0, -1), x.norm(1.0, 0, True), x.norm(float("inf"), 1), x.norm(3.0, 1),
                            x.norm(2.0, -1, True), x.norm(float("inf"), 0), x.norm(3.0, 0)),
         expect=["float32"] * 7)
def _(x):
    return tuple_(torch.norm(x, -1), torch.norm(x, 0, True, f(1.0)), torch.norm(x, 1, False, finf()),
                  x.norm(1, False, f(3.0)), x.norm(-1, True), x.norm(0, False, finf()), x.norm(0, p=f(3.0)))


@example("norm_norm_dtypes_3d", "norm over the middle dim of [7, 457, 67] (keepdim), float64 rows of 7 (p = 1), float16 rows of 457 (p = 3), bfloat16 all-element (infinity) and columns",
         [("z", ten(F32, 7, 457, 67)), ("d", ten(F64, 2000, 7)), ("h", ten(F16, 67, 457)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, z, d, h, g: (z.norm(2.0, 1, True), d.norm(1.0, 1), h.float().norm(3.0, -1).half(),
                                     g.float().norm(float("inf")).bfloat16(), g.float().norm(2.0, 0).bfloat16()),
         expect=["float32", "float64", "float16", "bfloat16", "bfloat16"])
def _(z, d_, h, g):
    return tuple_(z.norm(1, True), torch.norm(d_, 1, False, f(1.0)), h.norm(-1, False, f(3.0)), g.norm(finf()),
                  torch.norm(g, 0))


# ---- the same normalizations written from primitives ---------------------------------------------
def _softmax_by_hand(x, dim=-1, sfx="", k=lambda r: r):
    """let m = x.amax([| dim |], true) in let e = (x - m).exp() in k (e / e.sum(dim, true))
    (the printer writes lets as statements, so a tuple of several goes inside the last one: k)"""
    return let_("m" + sfx, x.amax(dims(dim), True), lambda m: let_(
        "e" + sfx, (x - m).exp(), lambda e: k(e / e.sum(L(dim), True))))


def _log_softmax_by_hand(x, dim=-1, sfx="", k=lambda r: r):
    """let m = x.amax([| dim |], true) in let s = x - m in k (s - s.exp().sum(dim, true).log())"""
    return let_("m" + sfx, x.amax(dims(dim), True), lambda m: let_(
        "s" + sfx, x - m, lambda s: k(s - s.exp().sum(L(dim), True).log())))


@example("norm_prim_softmax", "softmax by hand over rows of 67: let m = x.amax([|-1L|], true) in let e = (x - m).exp() in e / e.sum(-1L, true)",
         [("x", ten(F32, 1024, 67))],
         ref=lambda th, x: x.softmax(-1), expect=["float32"])
def _(x):
    return _softmax_by_hand(x)


@example("norm_prim_softmax_sym", "softmax by hand over rows of 4097 with a symbolic row count [\"N\", 4097]",
         [("x", ten(F32, "N", 4097))], sizes={"N": 67},
         ref=lambda th, x: x.softmax(-1), expect=["float32"])
def _(x):
    return _softmax_by_hand(x)


@example("norm_prim_softmax_axes", "softmax by hand over dim 0 of [457, 67] (columns) and over the middle dim of [7, 457, 67]",
         [("x", ten(F32, 457, 67)), ("z", ten(F32, 7, 457, 67))],
         ref=lambda th, x, z: (x.softmax(0), z.softmax(1)), expect=["float32"] * 2)
def _(x, z):
    return _softmax_by_hand(x, 0, "0", lambda a: _softmax_by_hand(z, 1, "1", lambda c: tuple_(a, c)))


@example("norm_prim_softmax_half", "softmax by hand in a [<ReflectedDefinition>] helper, applied to float16 rows of 1024 and bfloat16 rows of 67 (results stay half)",
         [("h", ten(F16, 67, 1024)), ("g", ten(BF16, 457, 67))],
         ref=lambda th, h, g: (_sm_rows(th, h, -1), _sm_rows(th, g, -1)), expect=["float16", "bfloat16"])
def _(h, g):
    sm = defn("softmaxRows", [("t", TENSOR)], lambda t: _softmax_by_hand(t))
    return tuple_(sm(h), sm(g))


@example("norm_prim_log_softmax", "log_softmax by hand: let m = x.amax(...) in let s = x - m in s - s.exp().sum(-1L, true).log(), float32 rows of 67 and float64 rows of 1024",
         [("x", ten(F32, 2000, 67)), ("d", ten(F64, 67, 1024))],
         ref=lambda th, x, d: (x.log_softmax(-1), d.log_softmax(-1)), expect=["float32", "float64"], tol=(1e-4, 1e-5))
def _(x, d_):
    return _log_softmax_by_hand(x, -1, "x", lambda a: _log_softmax_by_hand(d_, -1, "d", lambda c: tuple_(a, c)))


@example("norm_prim_logsumexp", "logsumexp by hand (keepdim): let m = x.amax([|-1L|], true) in (x - m).exp().sum(-1L, true).log() + m, rows of 457",
         [("x", ten(F32, 457, 457))],
         ref=lambda th, x: th.logsumexp(x, -1, keepdim=True), expect=["float32"])
def _(x):
    return let_("m", x.amax(dims(-1), True), lambda m: (x - m).exp().sum(L(-1), True).log() + m)


@example("norm_prim_rmsnorm_capture", "RMSNorm by hand with a captured weight: x * (x.square().mean([|-1L|], true) + 1e-6f).rsqrt() * w, rows of 1024",
         [("x", ten(F32, 67, 1024))], captures={"w": ten(F32, 1024)},
         ref=lambda th, x, w: x * (x.square().mean([-1], keepdim=True) + 1e-6).rsqrt() * w, expect=["float32"])
def _(x):
    return x * (x.square().mean(dims(-1), True) + f(1e-6)).rsqrt() * capture("w")


@example("norm_prim_rmsnorm_half", "RMSNorm by hand in float16 (rows of 457, weight a float16 parameter) and bfloat16 (rows of 4097)",
         [("h", ten(F16, 457, 457)), ("wh", ten(F16, 457)), ("g", ten(BF16, 7, 4097)), ("wg", ten(BF16, 4097))],
         ref=lambda th, h, wh, g, wg: (
             (h.float() * (h.float().square().mean([-1], keepdim=True) + 1e-5).rsqrt() * wh.float()).half(),
             (g.float() * (g.float().square().mean([-1], keepdim=True) + 1e-5).rsqrt() * wg.float()).bfloat16()),
         expect=["float16", "bfloat16"])
def _(h, wh, g, wg):
    return tuple_(h * (h.square().mean(dims(-1), True) + f(1e-5)).rsqrt() * wh,
                  g * (g.square().mean(dims(-1), True) + f(1e-5)).rsqrt() * wg)


@example("norm_prim_rmsnorm_eps_param_sym", "RMSNorm by hand with eps a float32 parameter and a weight parameter, symbolic rows [\"N\", 1024]",
         [("x", ten(F32, "N", 1024)), ("w", ten(F32, 1024)), ("eps", scal(F32))], sizes={"N": 200},
         ref=lambda th, x, w, eps: x * (x.square().mean([-1], keepdim=True) + eps).rsqrt() * w, expect=["float32"])
def _(x, w, eps):
    return x * (x.square().mean(dims(-1), True) + eps).rsqrt() * w


@example("norm_prim_layer_norm", "layer norm by hand: let mean = x.mean([|-1L|], true) in let var = (x - mean).pow(2.0f).mean([|-1L|], true) in (x - mean) / torch.sqrt(var + 1e-5f) * w + b, rows of 457",
         [("x", ten(F32, 457, 457)), ("w", ten(F32, 457)), ("b", ten(F32, 457))],
         ref=lambda th, x, w, b: _ln(th, x, [457], w, b), expect=["float32"], tol=(1e-4, 1e-4))
def _(x, w, b_):
    return let_("mean", x.mean(dims(-1), True), lambda mean: let_(
        "var", (x - mean).pow(f(2.0).ToScalar()).mean(dims(-1), True), lambda var:
        (x - mean) / torch.sqrt(var + f(1e-5)) * w + b_))


@example("norm_prim_layer_norm_half", "layer norm by hand in float16 (rows of 1024: d = x - mean, d.square(), rsqrt) and over the last dim of a bfloat16 [7, 67, 457]",
         [("h", ten(F16, 67, 1024)), ("w", ten(F16, 1024)), ("b", ten(F16, 1024)), ("g", ten(BF16, 7, 67, 457))],
         ref=lambda th, h, w, b, g: (_ln(th, h, [1024], w, b), _ln(th, g, [457])),
         expect=["float16", "bfloat16"])
def _(h, w, b_, g):
    return let_("d", h - h.mean(dims(-1), True), lambda d_: let_("c", g - g.mean(dims(-1), True), lambda c: tuple_(
        d_ * (d_.square().mean(dims(-1), True) + f(1e-5)).rsqrt() * w + b_,
        c / (c.square().mean(dims(-1), True) + f(1e-5)).sqrt())))


@example("norm_prim_mean_abs_dev", "(x - x.mean([|-1L|], true)).abs().sum(-1L) * 2.0f: a centered absolute sum over rows of 4097",
         [("x", ten(F32, 67, 4097))],
         ref=lambda th, x: (x - x.mean([-1], keepdim=True)).abs().sum(-1) * 2.0, expect=["float32"])
def _(x):
    return (x - x.mean(dims(-1), True)).abs().sum(L(-1)) * f(2.0)


@example("red_matrix_mid_f32", "reductions over the middle dim of a symbolic [\"A\", \"R\", \"C\"] float32 (strided rows): sum, amax keepdim, argmax, var, logsumexp, softmax, cumsum",
         [("x", ten(F32, "A", "R", "C"))], sizes={"A": 3, "R": 7, "C": 33},
         ref=lambda th, x: (x.sum(1), x.amax([1], keepdim=True), x.argmax(1), x.var(1), th.logsumexp(x, 1),
                            x.softmax(1), x.cumsum(1)),
         expect=["float32", "float32", "int64", "float32", "float32", "float32", "float32"])
def _(x):
    return tuple_(x.sum(L(1)), x.amax(dims(1), True), x.argmax(L(1)), x.var(L(1)), x.logsumexp(L(1)),
                  x.softmax(L(1)), x.cumsum(L(1)))


@example("red_epilogue_other_group", "an epilogue over two row groups: x.sum(-1L) + y.amax([|-1L|]) * 2 with x [67, 33] and y [67, 45] (the sum crosses kernels through a temporary)",
         [("x", ten(F32, 67, 33)), ("y", ten(F32, 67, 45))],
         ref=lambda th, x, y: (x.sum(-1) + y.amax([-1]) * 2.0, x.logsumexp(-1) - y.mean([-1])),
         expect=["float32", "float32"])
def _(x, y):
    return tuple_(x.sum(L(-1)) + y.amax(dims(-1)) * f(2.0), x.logsumexp(L(-1)) - y.mean(dims(-1)))


@example("red_fuse_many_row_outputs", "ten outputs over the rows of one reduction: x - m * k for k = 1 .. 10 with m = x.mean([|-1L|], true) on [33, 65] (more row outputs than one row kernel takes)",
         [("x", ten(F32, 33, 65))],
         ref=lambda th, x: tuple(x - x.mean([-1], keepdim=True) * float(k) for k in range(1, 11)),
         expect=["float32"] * 10)
def _(x):
    return let_("m", x.mean(dims(-1), True), lambda m: tuple_(*[x - m * f(float(k)) for k in range(1, 11)]))


@example("norm_welford_offset", "mean and variance of rows far from zero, (x + 10000) over [67, 4097]: one pass (Welford), then normalized",
         [("x", ten(F32, 67, 4097))],
         ref=lambda th, x: ((x + 10000.0).mean([-1]), (x + 10000.0).var(-1),
                            ((x + 10000.0) - (x + 10000.0).mean([-1], keepdim=True)) / ((x + 10000.0).var(-1, keepdim=True) + 1e-5).sqrt()),
         expect=["float32", "float32", "float32"], tol=(1e-3, 1e-4))
def _(x):
    return let_("y", x + f(10000.0), lambda y: tuple_(
        y.mean(dims(-1)), y.var(L(-1)),
        (y - y.mean(dims(-1), True)) / (y.var(L(-1), True, True) + f(1e-5)).sqrt()))


@example("red_epilogue_squeezed_reads", "epilogues without keepdim that read other tensors, broadcast against the squeezed "
         "result: x.sum(1) + b (b: [9]) and x.amax(1) * c (c: [5, 1]) over x [5, 7, 9]: both ride in the reduction kernel",
         [("x", ten(F32, 5, 7, 9)), ("b", ten(F32, 9)), ("c", ten(F32, 5, 1))],
         ref=lambda th, x, b, c: (x.sum(1) + b, x.amax([1]) * c))
def _(x, b, c):
    return tuple_(x.sum(L(1)) + b, x.amax(dims(1)) * c)


# ---- control flow over tensors: the host plan (issue 4) --------------------------------------------
def _i64(n):
    return int64_(n)


@example("cf_rnn_elman", "an Elman RNN over the T = x.shape.[0] steps of x: h <- tanh(x.[t] Wx + h Wh + b), the matrix products "
         "written as broadcast products and sums; a plan loop (one iteration = one region of kernels), x.[t] a view",
         [("x", ten(F32, 7, 3, 5)), ("wx", ten(F32, 5, 6)), ("wh", ten(F32, 6, 6)), ("b", ten(F32, 6)), ("h0", ten(F32, 3, 6))],
         ref=lambda th, x, wx, wh, b, h0: _ref_elman(th, x, wx, wh, b, h0), tol=(1e-4, 1e-5))
def _(x, wx, wh, b, h0):
    return letm("h", h0, lambda h: seq(
        for_("t", 0, int_(get_array(x.shape, 0)) - 1, lambda t: h.set(
            torch.tanh((at(x, _i64(t)).unsqueeze(L(-1)) * wx).sum(L(1)) + (h.unsqueeze(L(-1)) * wh).sum(L(1)) + b))),
        h))


def _ref_elman(th, x, wx, wh, b, h0):
    h = h0
    for t in range(x.shape[0]):
        h = th.tanh(x[t] @ wx + h @ wh + b)
    return h


@example("cf_lstm", "an LSTM cell over the T steps of x: the four gates from one [I, 4, H] / [H, 4, H] weight pair, "
         "gates picked with select (views of an intermediate), (h, c) carried as one tuple-valued mutable",
         [("x", ten(F32, 6, 2, 4)), ("w", ten(F32, 4, 4, 5)), ("u", ten(F32, 5, 4, 5)), ("b", ten(F32, 4, 5)),
          ("h0", ten(F32, 2, 5)), ("c0", ten(F32, 2, 5))],
         ref=lambda th, x, w, u, b, h0, c0: _ref_lstm(th, x, w, u, b, h0, c0), tol=(1e-4, 1e-5))
def _(x, w, u, b, h0, c0):
    def step(t, st):
        return let_tuple(("h", "c"), st, lambda h, c: let_(
            "z", (at(x, _i64(t)).unsqueeze(L(-1)).unsqueeze(L(-1)) * w).sum(L(1)) +
                 (h.unsqueeze(L(-1)).unsqueeze(L(-1)) * u).sum(L(1)) + b, lambda z:
            let_("c2", torch.sigmoid(z.select(L(1), L(1))) * c + torch.sigmoid(z.select(L(1), L(0))) * torch.tanh(z.select(L(1), L(2))),
                 lambda c2: st.set(tuple_(torch.sigmoid(z.select(L(1), L(3))) * torch.tanh(c2), c2)))))
    return letm("state", tuple_(h0, c0), lambda st: seq(
        for_("t", 0, int_(get_array(x.shape, 0)) - 1, lambda t: step(t, st)), st))


def _ref_lstm(th, x, w, u, b, h0, c0):
    h, c = h0, c0
    for t in range(x.shape[0]):
        z = th.einsum("bi,igh->bgh", x[t], w) + th.einsum("bj,jgh->bgh", h, u) + b
        i, f, g, o = z[:, 0].sigmoid(), z[:, 1].sigmoid(), z[:, 2].tanh(), z[:, 3].sigmoid()
        c = f * c + i * g
        h = o * c.tanh()
    return h, c


@example("cf_for_scalar_bound", "for i in 1 .. n with n a scalar parameter (0, 1 or many trips at run time); the loop variable "
         "takes part in the tensor math",
         [("x", ten(F32, 4, 33)), ("n", scal(I32_))],
         ref=lambda th, x, n: _ref_for_scalar(th, x, n))
def _(x, n):
    return letm("y", x, lambda y: seq(
        for_("i", 1, n, lambda i: y.set(y * f(0.5) + float32_(i))), y))


def _ref_for_scalar(th, x, n):
    y = x
    for i in range(1, int(n) + 1):
        y = y * 0.5 + float(i)
    return y


@example("cf_while_item", "while y.abs().max().item<float32>() > abs limit + 0.5f do y <- y * 0.5f: a data-dependent while "
         "(one device-to-host read per test), trip count from the data",
         [("x", ten(F32, 5, 7)), ("limit", scal(F32))],
         ref=lambda th, x, limit: _ref_while_item(th, x, limit))
def _(x, limit):
    return letm("y", x, lambda y: seq(
        while_(gt(item(y.abs().max(), SINGLE), abs_(limit) + f(0.5)), y.set(y * f(0.5))), y))


def _ref_while_item(th, x, limit):
    y = x
    lim = th.tensor(abs(float(limit)), dtype=th.float32) + th.tensor(0.5, dtype=th.float32)
    while y.abs().max().item() > lim.item():
        y = y * 0.5
    return y


@example("cf_while_count", "a while with a tensor condition and a scalar counter carried beside the tensor: "
         "while n < steps && y.sum().item() < 1000 do y <- y * 1.5 + 1; n <- n + 1; returns (y, n)",
         [("x", ten(F32, 6)), ("steps", scal(I32_))],
         ref=lambda th, x, steps: _ref_while_count(th, x, steps), expect=["float32", "int32"])
def _(x, steps):
    return letm("y", x, lambda y: letm("n", 0, lambda n: seq(
        while_(and_(lt(n, steps), lt(item(y.sum(), SINGLE), f(1000.0))), seq(y.set(y * f(1.5) + f(1.0)), n.set(n + 1))),
        tuple_(y, n))))


def _ref_while_count(th, x, steps):
    y, n = x, 0
    while n < int(steps) and y.sum().item() < 1000.0:
        y = y * 1.5 + 1.0
        n += 1
    return y, th.tensor(n, dtype=th.int32)


@example("cf_if_item_assign", "if x.sum().item<float32>() > 0 then y <- relu y * 2 else y <- tanh y: a branch that assigns, "
         "on a condition read back from the device (a plan IF)",
         [("x", ten(F32, 3, 17))],
         ref=lambda th, x: (x.relu() * 2.0) if x.sum().item() > 0 else x.tanh())
def _(x):
    return letm("y", x, lambda y: seq(
        if_(gt(item(x.sum(), SINGLE), f(0.0)), y.set(y.relu() * f(2.0)), y.set(y.tanh())), y))


@example("cf_if_item_select", "if x.mean().item<float32>() > 0 then x * 2 else x - 1: pure branches of one type become a select "
         "whose condition is computed on the device (no read back)",
         [("x", ten(F32, 4, 9))],
         ref=lambda th, x: x * 2.0 if x.mean().item() > 0 else x - 1.0)
def _(x):
    return if_(gt(item(x.mean(), SINGLE), f(0.0)), x * f(2.0), x - f(1.0))


@example("cf_if_shapes", "if flag then x.sum(0) else x.amax(0) * 0.5: unlike computations chosen on a bool parameter "
         "(a plan IF: only the taken branch runs)",
         [("x", ten(F32, 5, 8)), ("flag", scal(BOOL_))],
         ref=lambda th, x, flag: x.sum(0) if flag else x.amax([0]) * 0.5)
def _(x, flag):
    return letm("r", x.sum(L(0)), lambda r: seq(if_(flag, unit(), r.set(x.amax(dims(0)) * f(0.5))), r))


@example("cf_nested_loops", "nested loops over both leading dims: acc <- acc + x.[i, j] * float32 (i + j) (x.[i, j] a view)",
         [("x", ten(F32, 5, 6, 8))],
         ref=lambda th, x: sum(x[i, j] * float(i + j) for i in range(5) for j in range(6)))
def _(x):
    return letm("acc", torch.zeros_like(at(x, L(0), L(0))), lambda acc: seq(
        for_("i", 0, int_(get_array(x.shape, 0)) - 1, lambda i:
             for_("j", 0, int_(get_array(x.shape, 1)) - 1, lambda j:
                  acc.set(acc + at(x, _i64(i), _i64(j)) * float32_(i + j)))), acc))


@example("cf_narrow_window", "sliding-window sum with narrow: for t in 0 .. T - 3 do acc <- acc + x.narrow(0, t, 3)",
         [("x", ten(F32, 9, 4))],
         ref=lambda th, x: sum(x.narrow(0, t, 3) for t in range(7)))
def _(x):
    return letm("acc", torch.zeros_like(x.narrow(L(0), L(0), L(3))), lambda acc: seq(
        for_("t", 0, int_(get_array(x.shape, 0)) - 3, lambda t: acc.set(acc + x.narrow(L(0), _i64(t), L(3)))), acc))


@example("cf_hoist_invariant", "a loop whose body has work that does not change across iterations (softmax of w): computed "
         "once before the loop",
         [("x", ten(F32, 4, 16)), ("w", ten(F32, 16)), ("n", scal(I32_))],
         ref=lambda th, x, w, n: _ref_hoist(th, x, w, n))
def _(x, w, n):
    return letm("y", x, lambda y: seq(
        for_("i", 1, n, lambda i: y.set(y * w.softmax(L(0)) + f(1.0))), y))


def _ref_hoist(th, x, w, n):
    y = x
    for _ in range(1, int(n) + 1):
        y = y * w.softmax(0) + 1.0
    return y



# ---- bad inputs ----------------------------------------------------------------------------------
@bad("norm_softmax_dim_out_of_range", "softmax over dim 2 of a 2-D tensor (dims must be in [-rank, rank - 1])",
     [("x", ten(F32, 3, 4))], torch_error="Dimension out of range")
def _(x):
    return x.softmax(L(2))


@bad("norm_layer_norm_shape_mismatch", "layer_norm whose normalized_shape [|8L|] is not the input's last dim (7)",
     [("x", ten(F32, 4, 7))], torch_error="Given normalized_shape=[8]")
def _(x):
    return NNF.layer_norm(x, dims(8))


@bad("norm_var_duplicate_dims", "var over dims [| 1L; -1L |] of a 2-D tensor: both name the last axis",
     [("x", ten(F32, 3, 4))], torch_error="appears multiple times")
def _(x):
    return x.var(dims(1, -1))


@bad("norm_softmax_int32", "softmax of an int32 tensor without a floating dtype (TorchSharp passes dtype = int32; PyTorch has no integer softmax)",
     [("n", ten(I32_, 3, 4))], torch_error="not implemented for 'Int'")
def _(n):
    return torch.softmax(n, -1)


@bad("norm_norm_p_not_constant", "x.norm(p) with p a float32 parameter, not a constant: the kind of norm must be known at compile time",
     [("x", ten(F32, 3, 4)), ("p", scal(F32))])
def _(x, p):
    return x.norm(p)

@bad("cf_carried_shape_change", "a tensor carried by a run-time loop must keep its dtype and shape (y becomes y.sum(0))",
     [("x", ten(F32, 4, 5)), ("n", scal(I32_))])
def _(x, n):
    return letm("y", x, lambda y: seq(for_("i", 1, n, lambda i: y.set(y.sum(L(0)))), y))


@bad("cf_while_always_true", "a while loop whose condition is the constant true never ends",
     [("x", ten(F32, 4))])
def _(x):
    return letm("y", x, lambda y: seq(while_(b(True), y.set(y * f(2.0))), y))


@bad("cf_item_many_elements", "item() needs a tensor of exactly one element",
     [("x", ten(F32, 4))], torch_error="only one element tensors can be converted")
def _(x):
    return let_("s", item(x, SINGLE), lambda s: x * s)


@bad("cf_if_unlike_shapes", "the branches of an if on a run-time condition give tensors of different shapes",
     [("x", ten(F32, 4, 5)), ("flag", scal(BOOL_))])
def _(x, flag):
    return if_(flag, x, x.sum(L(0)))


@bad("cf_select_out_of_range", "select with a constant index outside the dimension",
     [("x", ten(F32, 4, 5))], torch_error="out of range")
def _(x):
    return x.select(L(0), L(4)) * f(2.0)



if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

