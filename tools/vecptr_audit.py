#!/usr/bin/env python3
"""tools/vecptr_audit.py — candidates for the "pointer into a growable array across an append"
bug (a heap-use-after-free once the KG_VEC reallocates).

kgen keeps graph nodes, kernel expressions/statements, plan ops/blocks/regions in KG_VEC arrays
(support/support.h) that KG_VEC_PUSH grows with realloc. Code that holds `const kg_gnode *n =
&g->nodes.v[i]` (or a pointer from an accessor such as gnode()/gn()/kg_elab_gnode(), or a
pointer into such an element, like &n->shape) and reads it after a call that may append to that
array reads freed memory. ASan finds it only when the append happens to reallocate.

This script is a heuristic, not a proof: it splits each C file into top-level functions, computes
which functions may append (they call KG_VEC_PUSH, kg_graph_add, kg_kx_*, kg_ks_add, kg_plan_op,
... or another function that may, by name, to a fixpoint), and for each pointer variable whose
value comes from an array element or an accessor (or from another such pointer) reports a use
of it textually after an appending call, or a use inside a loop that also appends when the
pointer was set before the loop. Pointer parameters of appending functions are tracked too (a
caller may pass a pointer into the array). Every candidate must be read by a person: many are
pointers into a different array than the one that grows.

usage: python3 tools/vecptr_audit.py [FILE.c ...]   (default: every .c under the source dirs)
"""
import os
import re
import sys

SRC_DIRS = ["frontend", "passes", "ir", "codegen-cuda", "runtime", "check", "cli", "support"]
# the array (by field name) each primitive appends to
BASE_ADDERS = {
    "kg_graph_add": {"nodes"}, "kg_ks_add": {"stmts"}, "kg_kvar_new": {"vars"},
    "kg_kparam_add": {"params"}, "kg_kshared_add": {"shared"}, "kg_plan_block": {"blocks"},
    "kg_plan_op": {"ops"},
}
ADDER_PREFIXES = {"kg_kx_": {"exprs"}}
# functions returning a pointer into an array element, and which array
ACCESSORS = {"gnode": "nodes", "gn": "nodes", "node": "nodes", "kg_elab_gnode": "nodes", "dim_of": "nodes",
             "defining_read": "ops", "at": "nodes"}
# pointer parameter types and the array such a pointer may point into
PARAM_TYPES = {"kg_gnode": "nodes", "kg_shape": "nodes", "kg_dim": "nodes", "kg_kx": "exprs",
               "kg_ks": "stmts", "kg_pop": "ops", "kg_region": "regions", "kg_pblock": "blocks"}

CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), s, flags=re.S)
    s = re.sub(r"//[^\n]*", "", s)
    s = re.sub(r'"(\\.|[^"\\])*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', s)
    return s


def functions(path):
    """(name, params, start_line, body_lines) for each top-level function."""
    text = strip_comments(open(path, encoding="utf-8", errors="replace").read())
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if l and not l[0].isspace() and l.rstrip().endswith("{") and "(" in l and not l.startswith(("typedef", "struct", "enum", "#", "static const", "const")):
            m = re.search(r"([A-Za-z_]\w*)\s*\((.*)\)\s*\{\s*$", l)
            # the signature may span lines: go back to find the name
            sig = l
            j = i
            while m is None and j > 0 and "(" not in sig.split(")")[0]:
                j -= 1
                sig = lines[j] + " " + sig
                m = re.search(r"([A-Za-z_]\w*)\s*\((.*)\)\s*\{\s*$", sig)
            if m is None:
                m = re.search(r"([A-Za-z_]\w*)\s*\((.*)\)\s*\{\s*$", sig, flags=re.S)
            depth = 0
            k = i
            body = []
            while k < len(lines):
                depth += lines[k].count("{") - lines[k].count("}")
                body.append(lines[k])
                if depth == 0:
                    break
                k += 1
            if m:
                out.append((m.group(1), m.group(2), i + 1, body))
            i = k + 1
            continue
        if l and not l[0].isspace() and "(" in l and l.rstrip().endswith(")"):
            # a signature continued on the next lines: join until '{'
            j = i
            sig = l
            while j + 1 < len(lines) and not sig.rstrip().endswith("{") and not sig.rstrip().endswith(";"):
                j += 1
                sig += " " + lines[j].strip()
            if sig.rstrip().endswith("{"):
                m = re.search(r"([A-Za-z_]\w*)\s*\((.*)\)\s*\{\s*$", sig)
                depth = 0
                k = j
                body = [sig]
                depth = 1
                k = j + 1
                while k < len(lines) and depth > 0:
                    depth += lines[k].count("{") - lines[k].count("}")
                    body.append(lines[k])
                    k += 1
                if m:
                    out.append((m.group(1), m.group(2), i + 1, body))
                i = k
                continue
        i += 1
    return out


STATICS = set()  # (file, name) of the static functions: a call in that file means that one


def key(f, name):
    return (f, name) if (f, name) in STATICS else name


def appends(name, adders, f=None):
    """the arrays a call to name (in file f) may append to (empty: none)"""
    k = key(f, name)
    if k in adders:
        return adders[k]
    for p, a in ADDER_PREFIXES.items():
        if name.startswith(p):
            return a
    return set()


PUSH = re.compile(r"KG_VEC_PUSH\s*\(\s*([^,]*?)\.?(\w+)\s*,")


def line_appends(bl, adders, f=None):
    out = set()
    for m in PUSH.finditer(bl):
        out.add(m.group(2))
    for c in CALL.findall(bl):
        if c not in KEYWORDS:
            out |= appends(c, adders, f)
    return out


def main():
    files = sys.argv[1:]
    if not files:
        for d in SRC_DIRS:
            for f in sorted(os.listdir(d)):
                if f.endswith(".c"):
                    files.append(os.path.join(d, f))
    fns = []
    for f in files:
        for name, params, line, body in functions(f):
            fns.append((f, name, params, line, body))
    for f, name, params, line, body in fns:
        if body[0].startswith("static"):
            STATICS.add((f, name))
    adders = {k: set(v) for k, v in BASE_ADDERS.items()}
    changed = True
    while changed:
        changed = False
        for f, name, params, line, body in fns:
            k = key(f, name)
            cur = adders.get(k, set())
            new = set(cur)
            for bl in body[1:]:
                new |= line_appends(bl, adders, f)
            if new != cur:
                adders[k] = new
                changed = True
    n_cand = 0
    decl = re.compile(r"(?:const\s+)?[A-Za-z_]\w*\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)\s*=\s*([^;]*)")
    assign = re.compile(r"(?<![\w.>*])([A-Za-z_]\w*)\s*=(?!=)\s*([^;]*)")
    for f, name, params, line, body in fns:
        # tracked pointer variables: name -> (line index where set, origin text)
        tracked = {}
        pointers = set()  # names declared as pointers in this function
        mine = adders.get(key(f, name), set())
        if mine:
            for p in params.split(","):
                m = re.search(r"\*\s*([A-Za-z_]\w*)\s*$", p.strip())
                t = re.search(r"\b(kg_gnode|kg_kx|kg_ks|kg_pop|kg_region|kg_pblock|kg_shape|kg_dim)\b", p)
                if m and t and PARAM_TYPES[t.group(1)] in mine:
                    tracked[m.group(1)] = (0, "parameter " + p.strip(), PARAM_TYPES[t.group(1)])
                    pointers.add(m.group(1))
        events = []  # (idx, kind, var/name)

        def origin_tracked(expr):
            """the array the pointer expr points into, or None"""
            m = re.search(r"[.>](\w+)\s*\.v\s*(\[|\+)", expr)
            if m and "&" in expr or (m and m.group(2) == "+"):
                return m.group(1)
            for c in CALL.findall(expr):
                if c in ACCESSORS:
                    return ACCESSORS[c]
            for v in tracked:
                if re.search(r"&\s*%s\s*->|\b%s\s*\+|&\s*%s\s*\[|^\s*%s\s*$" % (v, v, v, v), expr):
                    return tracked[v][2]
            return None

        loops = []  # (start idx, end idx) of for/while bodies
        for idx, bl in enumerate(body):
            if re.search(r"\b(for|while|do)\b", bl) and "{" in bl:
                depth = 0
                for k in range(idx, len(body)):
                    depth += body[k].count("{") - body[k].count("}")
                    if depth <= 0 and k > idx:
                        loops.append((idx, k))
                        break
        invalid = {}  # var -> line idx of the appending call after which it is stale
        reported = set()
        for idx, bl in enumerate(body):
            if idx == 0:
                continue
            # uses of stale pointers (before this line's own (re)definitions)
            for v, at in list(invalid.items()):
                if re.search(r"\b%s\b" % re.escape(v), bl):
                    m = re.search(r"(?<![\w.>])%s\s*=(?!=)" % re.escape(v), bl)
                    if m and not re.search(r"\b%s\b" % re.escape(v), bl[m.end():]):
                        # reassigned on this line without being read
                        pass
                    elif (v, at) not in reported:
                        reported.add((v, at))
                        n_cand += 1
                        print("%s:%d: %s(): '%s' (%s) used after the appending call at line %d: %s" % (
                            f, line + idx, name, v, tracked.get(v, (0, "?", ""))[1][:60], line + at, bl.strip()[:100]))
            found = []
            for m in decl.finditer(bl):
                found.append((m.group(1), m.group(2)))
                # more pointers in the same declaration: `T *a = x, *b = y;`
                for m2 in re.finditer(r",\s*\*\s*([A-Za-z_]\w*)\s*=\s*([^,;]*)", m.group(2)):
                    found.append((m2.group(1), m2.group(2)))
            for v, expr in found:
                pointers.add(v)
                if origin_tracked(expr):
                    tracked[v] = (idx, expr.strip(), origin_tracked(expr))
                    invalid.pop(v, None)
                elif v in tracked:
                    del tracked[v]
                    invalid.pop(v, None)
            for m in decl.finditer(bl):
                pointers.add(m.group(1))
            for m in assign.finditer(bl):
                v, expr = m.group(1), m.group(2)
                if v not in pointers:
                    continue
                if v in tracked or origin_tracked(expr):
                    if origin_tracked(expr):
                        tracked[v] = (idx, expr.strip(), origin_tracked(expr))
                    invalid.pop(v, None)
            # an element of the vector pushed onto itself (read after the push moved it)
            for m in re.finditer(r"KG_VEC_PUSH\s*\(\s*([^,]+?)\s*,(.*)\)", bl):
                if re.search(re.escape(m.group(1)) + r"\s*\.v\s*\[", m.group(2)):
                    n_cand += 1
                    print("%s:%d: %s(): an element of %s pushed onto it: %s" % (f, line + idx, name, m.group(1), bl.strip()[:100]))
            grows = line_appends(bl, adders, f)
            calls = sorted(grows)
            if grows:
                for v, (at, _, arr) in tracked.items():
                    if arr not in grows:
                        continue
                    # a pointer set on this very line from the result is fine
                    if at == idx and not re.search(r"\b%s\b" % re.escape(v), bl.split("=", 1)[-1]):
                        continue
                    invalid[v] = idx
                # loop-carried: the pointer set before a loop containing this call, used in it
                for (ls, le) in loops:
                    if ls <= idx <= le:
                        for v, (at, _, arr) in tracked.items():
                            if arr in grows and at < ls and any(re.search(r"\b%s\b" % re.escape(v), body[k]) for k in range(ls, idx)):
                                lkey = (v, "loop", ls)
                                if lkey not in reported:
                                    reported.add(lkey)
                                    n_cand += 1
                                    print("%s:%d: %s(): '%s' set before the loop at line %d that appends (%s, line %d) and reads it" % (
                                        f, line + ls, name, v, line + ls, calls[0], line + idx))
    print("%d candidates; %d appending functions" % (n_cand, len(adders)), file=sys.stderr)


if __name__ == "__main__":
    main()
