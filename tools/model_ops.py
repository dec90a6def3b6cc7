#!/usr/bin/env python3
"""tools/model_ops.py — what the real model forwards of examples/models use (docs/models.md).

Reads each examples/models/*.json (what the serializer writes for the F# transcriptions) and,
per entry, collects every member the entry reaches — its expression and the [<ReflectedDefinition>]
bodies ("definitions") it calls, transitively — as exact member keys:
  Call        decl::name(params)          PropertyGet  decl::get_name(params)
  FieldGet    decl::name                  NewObject    decl::.ctor(params)
Each key is then looked up in ../shared/spec/torchsharp-members.md (the spec) and in
frontend/members.def (the keys kgen compiles). F#'s generic operators on tensors
(Operators::op_Multiply(Tensor,Tensor)) are looked up as the TorchSharp operator they resolve
to (TorchSharp.torch+Tensor::op_Multiply(...)), as kgen does.

Usage: python3 tools/model_ops.py [--spec ../shared/spec/torchsharp-members.md] [--md]
  default: a plain report; --md: the markdown tables of docs/models.md.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T = "TorchSharp.torch+Tensor"


def member_key(m, kind):
    ps = ",".join(m["params"])
    if kind == "PropertyGet":
        return "%s::get_%s(%s)" % (m["decl"], m["name"], ps)
    if kind == "PropertySet":
        return "%s::set_%s(%s)" % (m["decl"], m["name"], ps)
    if kind == "FieldGet" or kind == "FieldSet":
        return "%s::%s" % (m["decl"], m["name"])
    if kind == "NewObject":
        return "%s::.ctor(%s)" % (m["decl"], ps)
    return "%s::%s(%s)" % (m["decl"], m["name"], ps)


def def_id(m):
    return (m["decl"], m["name"], tuple(m["params"]), tuple(m.get("genericArgs", [])))


def const_bool(node):
    """The value of a condition the serializer made constant (a live field read, `not`, `&&`)."""
    k = node.get("k")
    if k == "Value" and isinstance(node.get("value"), bool):
        return node["value"]
    if k == "Call" and node["method"]["name"] == "Not" and node["method"]["decl"] == "Microsoft.FSharp.Core.Operators":
        v = const_bool(node["args"][0])
        return None if v is None else not v
    if k == "IfThenElse":  # a && b is if a then b else false; a || b is if a then true else b
        c = const_bool(node["cond"])
        if c is not None:
            return const_bool(node["then"] if c else node["else"])
    return None


def walk(node, defs, seen_defs, out):
    """Collect (key, kind, member) of every member node reachable from `node`, skipping the
    branches of conditions the serializer made constant (dead code: `if not (isNull q_proj)`)."""
    if isinstance(node, list):
        for x in node:
            walk(x, defs, seen_defs, out)
        return
    if not isinstance(node, dict):
        return
    k = node.get("k")
    if k == "TryFinally":  # `use`: kgen keeps the body of a finally that only disposes
        walk(node["body"], defs, seen_defs, out)
        return
    if k == "IfThenElse":
        c = const_bool(node["cond"])
        if c is not None:
            walk(node["then"] if c else node["else"], defs, seen_defs, out)
            return
    for field, kind in (("method", "Call"), ("property", k), ("field", k), ("ctor", "NewObject")):
        m = node.get(field)
        if isinstance(m, dict) and "decl" in m and k in ("Call", "PropertyGet", "PropertySet", "FieldGet", "FieldSet", "NewObject"):
            d = defs.get(def_id(m))
            if d is not None:
                if def_id(m) not in seen_defs:
                    seen_defs.add(def_id(m))
                    walk(d, defs, seen_defs, out)
            else:
                out.append((member_key(m, kind), kind, m))
    for key, v in node.items():
        if key == "witnesses":  # the SRTP witnesses restate the operator
            continue
        if isinstance(v, (dict, list)):
            walk(v, defs, seen_defs, out)


def resolved(key, m):
    """F#'s generic operator on non-primitive operands -> the TorchSharp operator kgen resolves."""
    arith = {"op_Addition", "op_Subtraction", "op_Multiply", "op_Division", "op_Modulus", "op_UnaryNegation",
             "op_BitwiseAnd", "op_BitwiseOr", "op_ExclusiveOr", "op_LogicalNot", "op_LeftShift", "op_RightShift"}
    if m["decl"] == "Microsoft.FSharp.Core.Operators" and m["name"] in arith and any(
            p.startswith("TorchSharp.") for p in m["params"]):
        return "%s::%s(%s)" % (T, m["name"], ",".join(m["params"]))
    return None


def short(m, kind):
    """A readable op name: Tensor.view, torch.cat, F.linear, x[...] ..."""
    decl, name = m["decl"], m["name"]
    ops = {"op_Addition": "+", "op_Subtraction": "-", "op_Multiply": "*", "op_Division": "/",
           "op_UnaryNegation": "unary -", "op_Equality": "=", "op_GreaterThan": ">",
           "op_LessThan": "<", "op_LessThanOrEqual": "<=", "op_GreaterThanOrEqual": ">=",
           "op_Inequality": "<>", "op_Modulus": "%", "op_MinusMinusGreater": "-->"}
    pre = {T: "Tensor.", "TorchSharp.torch": "torch.", "TorchSharp.torch+nn+functional": "F.",
           "TorchSharp.torch+TensorIndex": "TensorIndex.", "TorchSharp.Scalar": "Scalar.",
           "TorchSharp.ScalarExtensionMethods": "", "TorchSharp.Modules.Parameter": "Parameter.",
           "TorchSharp.torch+Device": "Device.", "System.Array": "Array.", "System.Math": "Math.",
           "Microsoft.FSharp.Core.Operators": "", "Microsoft.FSharp.Core.LanguagePrimitives+IntrinsicFunctions": "",
           "Microsoft.FSharp.Core.ExtraTopLevelOperators": "", "Microsoft.FSharp.Core.PrintfModule": "Printf.",
           "TorchSharp.DisposeScope": "DisposeScope."}
    if name in ops and any(p.startswith("TorchSharp.") for p in m["params"]):
        tag = "tensor " + ops[name]
        if "TorchSharp.Modules.Parameter" in m["params"]:
            tag += " (Parameter operand)"
        return tag
    if name == "TensorItems":
        return "x[...] (%s)" % ",".join(p.replace("TorchSharp.torch+", "") for p in m["params"])
    if name == "op_Implicit":
        return "%sop_Implicit(%s)" % (pre.get(decl, decl + "."), m["params"][0].replace("System.", ""))
    if name == "ToScalar":
        return "ToScalar(%s)" % m["params"][0].replace("System.", "")
    p = pre.get(decl)
    if p is None:
        p = decl.split(".")[-1].replace("`1", "") + "."
    if kind == "NewObject":
        return "new " + decl.split("`")[0].split(".")[-1].split("+")[-1]
    if name in ops:
        return name + "(" + ",".join(x.split(".")[-1] for x in m["params"]) + ")"
    return p + name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=os.path.join(ROOT, "..", "shared", "spec", "torchsharp-members.md"))
    ap.add_argument("--md", action="store_true")
    a = ap.parse_args()
    spec = open(a.spec).read() if os.path.exists(a.spec) else ""
    known = set(re.findall(r'KG_MEMBER\("([^"]+)"', open(os.path.join(ROOT, "frontend", "members.def")).read()))
    # kgen's F# / System.Math families (frontend/members.c: any instantiation of these names)
    # and the F# members its elaborator reads itself (pipes; array reads of shapes)
    mc = open(os.path.join(ROOT, "frontend", "members.c")).read()
    fs, xt = "Microsoft.FSharp.Core.Operators", "Microsoft.FSharp.Core.ExtraTopLevelOperators"
    families = {(fs, n) for n in re.findall(r'\{FS "(\w+)"', mc)} | {(xt, n) for n in re.findall(r'\{XT "(\w+)"', mc)}
    families |= {(d, n) for n in re.findall(r'\{decl "(\w+)"', mc) for d in (fs, "System.Math", "System.MathF")}
    families |= {(fs, "op_PipeRight"), (fs, "op_PipeLeft")}
    # the host plan's own (frontend/hostflow.c): sizes, item, integer indexing, views
    hostflow = {"%s::%s" % (T, k) for k in ("item()", "get_shape()", "size()", "size(System.Int32)", "size(System.Int64)",
                                           "dim()", "get_ndim()", "get_Dimensions()", "numel()",
                                           "select(System.Int64,System.Int64)", "narrow(System.Int64,System.Int64,System.Int64)",
                                           "unsqueeze(System.Int64)", "get_TensorItems(System.Int64)",
                                           "get_TensorItems(System.Int64,System.Int64)", "get_TensorItems(System.Int64[])")}
    hostflow |= {"TorchSharp.torch::unsqueeze(TorchSharp.torch+Tensor,System.Int64)",
                 "Microsoft.FSharp.Core.LanguagePrimitives+IntrinsicFunctions::GetArray(System.Int64[],System.Int32)"}
    known |= hostflow
    spec_j = spec[spec.find("## J."):spec.find("## K.")] if "## J." in spec else ""

    def in_spec(key):
        return ("`" + key + "`") in spec or ("`` " + key + " ``") in spec

    per_entry = collections.OrderedDict()   # (file, entry) -> {short: set(keys)}
    keyinfo = {}                            # key -> (kind, member, resolved)
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "models", "*.json"))):
        doc = json.load(open(path))
        defs = {def_id(d["member"]): d["expr"] for d in doc.get("definitions", [])}
        for e in doc["entries"]:
            out = []
            walk(e["expr"], defs, set(), out)
            ops = collections.OrderedDict()
            for key, kind, m in out:
                ops.setdefault(short(m, kind), set()).add(key)
                keyinfo[key] = (kind, m, resolved(key, m))
            per_entry[(os.path.basename(path)[:-5], e["name"])] = ops

    # how many entries use each op
    count = collections.Counter()
    for ops in per_entry.values():
        for s in ops:
            count[s] += 1

    def status(key):
        """kgen: kgen compiles it (an exact row, or an F#/Math family kgen maps); spec: in the
        spec (exactly, or an F# core member its section J gives by family); MISSING: neither."""
        kind, m, res = keyinfo[key]
        k = res or key
        fam = (m["decl"], m["name"]) in families and not res
        if k in known or fam:
            return "kgen", k
        if in_spec(k):
            return "spec", k
        if not res and m["decl"].startswith("Microsoft.FSharp.Core.") and re.search(r"\b%s\(" % re.escape(m["name"]), spec_j):
            return "spec", k
        return "MISSING", k

    if a.md:
        print("| op | entries | member keys (status) |")
        print("|---|---|---|")
        for s, n in sorted(count.items(), key=lambda x: (-x[1], x[0])):
            keys = sorted({k for ops in per_entry.values() for k in ops.get(s, ())})
            print("| `%s` | %d | %s |" % (s.replace("|", "\\|"), n, "<br>".join(
                "`` %s `` (%s)" % (status(k)[1], status(k)[0]) for k in keys)))
        print()
        print("| TorchSharp op kgen lacks today | entries | which |")
        print("|---|---|---|")
        lacking = collections.OrderedDict()
        for (f, en), ops in per_entry.items():
            for s_, ks in ops.items():
                if any(keyinfo[k][2] or keyinfo[k][1]["decl"].startswith("TorchSharp.") for k in ks) and \
                        any(status(k)[0] != "kgen" for k in ks):
                    lacking.setdefault(s_, []).append(en)
        for s_, ens in sorted(lacking.items(), key=lambda x: (-len(x[1]), x[0])):
            print("| `%s` | %d | %s |" % (s_.replace("|", "\\|"), len(ens), ", ".join(ens)))
        print()
        print("| model file | entry | TorchSharp ops it uses (**bold**: kgen lacks it today) | other members kgen lacks |")
        print("|---|---|---|---|")

        def torchy(ks):
            return any(keyinfo[k][2] or keyinfo[k][1]["decl"].startswith("TorchSharp.") for k in ks)

        def fmt(x, bold):
            x = "`%s`" % x.replace("|", "\\|")
            return "**%s**" % x if bold else x
        for (f, en), ops in per_entry.items():
            lacks = {s: any(status(k)[0] != "kgen" for k in ks) for s, ks in ops.items()}
            tops = sorted((s for s, ks in ops.items() if torchy(ks)), key=lambda s: (not lacks[s], s))
            other = sorted(s for s, ks in ops.items() if not torchy(ks) and lacks[s])
            print("| %s | %s | %s | %s |" % (f, en, ", ".join(fmt(s, lacks[s]) for s in tops),
                                             ", ".join(fmt(s, False) for s in other)))
        print()
        print("| missing key (as the F# compiler wrote it) | entries |")
        print("|---|---|")
        miss = collections.Counter()
        for ops in per_entry.values():
            for k in {k for ks in ops.values() for k in ks}:
                if status(k)[0] == "MISSING":
                    miss[k] += 1
        for k, n in sorted(miss.items(), key=lambda x: (-x[1], x[0])):
            print("| `` %s `` | %d |" % (k, n))
        return

    for (f, en), ops in per_entry.items():
        print("%s / %s" % (f, en))
        for s, keys in ops.items():
            for k in sorted(keys):
                st, rk = status(k)
                print("  %-8s %-28s %s" % (st, s, rk))
    print()
    print("ops by entries using them:")
    for s, n in sorted(count.items(), key=lambda x: (-x[1], x[0])):
        print("  %3d  %s" % (n, s))


if __name__ == "__main__":
    sys.exit(main())
