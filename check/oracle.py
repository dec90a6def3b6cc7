# check/oracle.py — the PyTorch oracle: runs a reference function on .npy inputs
# and compares kgen's outputs with its results.
#
# One long-lived process (importing torch takes seconds), started by check/oracle.c
# as `python3 -c <this text>`, speaking line-delimited JSON on stdin/stdout: one
# request line in, one response line out. Anything the reference code prints goes
# to stderr, so it can never corrupt the protocol.
#
# Startup: the first line written is
#   {"ready": true, "python": "3.11.2", "torch": "1.13.0", "numpy": "1.24.2"}
# or {"ready": false, "error": "ModuleNotFoundError: No module named 'torch'"}.
#
# Requests ("op" defaults to "check"; unknown fields are ignored):
#   {"op": "ping"}  ->  {"id": null, "ok": true, "pong": true}
#   {"op": "quit"}  ->  no response; the process exits (so does EOF on stdin)
#   {"op": "grad", ...the check fields..., "weights": [path or null per result],
#    "wanted": [{"input": 0}, {"capture": "w"}], "fd": bool}
#                   ->  rows as for check, one per wanted parameter: kgen's gradient ("ours")
#                       against torch.autograd.grad of Σ_i (result_i · weights_i).sum() through the
#                       twin; its float64 rerun for the rmse rule; with "fd" and at most 256
#                       wanted elements also float64 central differences of the twin
#                       ("fd_verdict", "fd_ok", "fd_max_abs": |ours - fd| <= 1e-4 + 1e-3·|fd|;
#                       not for float16 / bfloat16); a null path in "ours": kgen gives that
#                       parameter no gradient, and PyTorch must refuse one, or give None or zeros;
#                       kind "nograd": PyTorch's autograd itself failed (not kgen's business)
#   {"op": "check", "id": 7,
#    "script": "/tmp/f.ts", "fn": "f", "torchscript": true,
#    "inputs": ["/tmp/x.npy", ...],          positional arguments, in order
#    "captures": {"alpha": "/tmp/a.npy"},     keyword arguments
#    "ours": ["/tmp/out0.npy", ...],          kgen's outputs, in output order
#    "expect_dtypes": ["float32", ...],       torch dtype names, one per output
#    "tol_scale": 1.0,                        multiplies rtol and atol
#    "mutated": [{"input": 0}, {"capture": "running_mean"}]}   parameters the function changes
#                                             in place: their values after the call follow the
#                                             results, compared with the last entries of "ours";
#                                             every run gets fresh copies of the inputs
# Responses:
#   {"id": 7, "ok": true, "ms": 3.1, "rows": [row, ...]}      one row per output
#   {"id": 7, "ok": false, "kind": K, "error": "text"}
#     K = "reference" (the reference raised, TorchScript compile errors included),
#         "io" (an .npy file could not be loaded), "request" (malformed request).
#   row = {"ok": bool, "verdict": str, "dtype": ours, "torch_dtype": str,
#          "shape": "[4, 7]", "max_abs": x, "max_rel": x, "n_bad": n, "note": str}
#   max_abs / max_rel are numbers, or the strings "inf" / "nan" when not finite.
#
# Verdicts: "ok (allclose)", "ok (rmse vs fp64)", "ok (empty)", "ok (exact)",
#   "dtype mismatch: ours int32, torch int64", "dtype mismatch: ours X, expected Y",
#   "shape mismatch: ours [2, 3], torch [3, 2]",
#   "output count mismatch: ours 1, torch 2",
#   "MISMATCH at [i, j]: ours X, torch Y".
#
# Comparison rules (docs: design/reliability.md "Comparing numbers"):
#   - dtype of ours == expected dtype == the reference's dtype; shapes equal.
#   - bool and integers: exact.
#   - floats: |ours - ref| <= atol + rtol·|ref| elementwise (torch.testing.assert_close
#     defaults, scaled by tol_scale); NaN equals NaN; infinities must match exactly,
#     sign included; -0 equals +0.
#   - when that fails for a float output and every NaN / inf position agrees, the
#     TorchInductor rule: run the reference again with every floating input cast to
#     float64 (and the twin's float32 carriers of half values and its float32 casts widened to
#     float64), and pass if rmse(ours, fp64) <= k·rmse(torch, fp64) + atol/10, with
#     k = 3 for float16 / bfloat16 or tiny outputs (numel < 32), else 2; positions
#     where anything is NaN or inf are left out of the rmse.
#
# .npy loading follows check/npy.c: bfloat16 arrives as the 2-byte void dtype 'V2'
# holding the raw bits (numpy has no bfloat16); 0-dim arrays become 0-dim tensors
# (scalar parameters).

import json
import math
import os
import re
import sys
import time
import traceback
import warnings

np = None     # numpy, imported in main()
torch = None  # torch, imported in main()

# assert_close defaults: dtype name -> (rtol, atol)
TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}
FLOAT_NAMES = set(TOLERANCES)
KNOWN_DTYPES = FLOAT_NAMES | {"bool", "uint8", "int8", "int16", "int32", "int64"}

MAX_ERROR_CHARS = 4000   # error text sent back (the tail of a traceback)
MAX_CACHED_FUNCTIONS = 64


class JobError(Exception):
    """A failure reported as {"ok": false, "kind": kind, "error": text}."""

    def __init__(self, kind, text):
        super().__init__(text)
        self.kind = kind
        self.text = text


def dtype_name(dt):
    """torch.float32 -> 'float32'."""
    return str(dt).replace("torch.", "")


def shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def num(x):
    """A float for JSON: non-finite values become strings (JSON has no NaN)."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


def tail(text, limit=MAX_ERROR_CHARS):
    text = text.rstrip()
    return text if len(text) <= limit else "..." + text[-limit:]


# ---- loading -------------------------------------------------------------------------

def load_npy(path, what):
    """An .npy file as a CPU tensor (bfloat16 from the 'V2' convention)."""
    try:
        a = np.load(path, allow_pickle=False)
    except Exception as e:
        raise JobError("io", "cannot load %s %s: %s: %s" % (what, path, type(e).__name__, e))
    if not isinstance(a, np.ndarray):
        raise JobError("io", "%s %s is not a single array" % (what, path))
    if a.dtype.kind == "V" and a.dtype.itemsize == 2 and a.dtype.names is None:
        bits = np.array(a, copy=True, order="C").view(np.int16)
        return torch.from_numpy(bits).view(torch.bfloat16)
    if a.dtype.kind not in "biuf" or a.dtype == np.uint16 or a.dtype.itemsize > 8:
        raise JobError("io", "%s %s has the unsupported dtype %s" % (what, path, a.dtype))
    # C order, native byte order, writable (np.array copies; ascontiguousarray would
    # turn a 0-dim array into a 1-dim one).
    a = np.array(a, dtype=a.dtype.newbyteorder("="), copy=True, order="C")
    return torch.from_numpy(a)


# ---- running the reference -----------------------------------------------------------

_functions = {}  # (torchscript, fn, path, source) -> callable


# The float64 gradient reference rounds a half-precision twin's values where the twin does, but
# not its gradients: autograd of `x.to(torch.bfloat16).double()` rounds the gradient flowing back
# through it to bfloat16 too (the backward of a cast is a cast), which made the "float64"
# reference of a half program's gradient PyTorch's own half-precision backward again, and any
# backward more exact than eager's (kgen's, in float32) "worse" than PyTorch's by the rmse rule
# (norm_prim_softmax_half's bfloat16 rows: 3.7x). So for gradients each such rounding is
# straight-through: the rounded value forward, the float64 gradient unchanged backward (exact:
# x + (r - x) == r in float64 for a rounding r of x; where either is not finite, r itself).
_ROUNDING = re.compile(r"\.to\(torch\.(float16|bfloat16)\)\.double\(\)")
_STRAIGHT = """
def _kg_st_float16(x: torch.Tensor) -> torch.Tensor:
    r = x.to(torch.float16).double()
    return torch.where(torch.isfinite(x) & torch.isfinite(r), x + (r - x).detach(), r)


def _kg_st_bfloat16(x: torch.Tensor) -> torch.Tensor:
    r = x.to(torch.bfloat16).double()
    return torch.where(torch.isfinite(x) & torch.isfinite(r), x + (r - x).detach(), r)

"""


def _receiver_start(line, end):
    """Where the primary expression ending at line[end] begins (names, dots, balanced brackets),
    or -1 when it is not one."""
    i = end
    while i > 0:
        ch = line[i - 1]
        if ch in ")]":
            depth, j = 0, i - 1
            while j >= 0:
                if line[j] in ")]":
                    depth += 1
                elif line[j] in "([":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            if j < 0:
                return -1
            i = j
        elif ch.isalnum() or ch in "_.":
            i -= 1
        else:
            break
    return i if i < end else -1


def straight_through(src):
    """A widened twin's roundings to half precision as straight-through calls (see _ROUNDING)."""
    out = []
    for line in src.split("\n"):
        pos = 0
        while True:
            m = _ROUNDING.search(line, pos)
            if not m:
                break
            start = _receiver_start(line, m.start())
            if start < 0:  # not a plain receiver: left as a rounding of value and gradient
                pos = m.end()
                continue
            call = "_kg_st_%s(%s)" % (m.group(1), line[start:m.start()])
            line = line[:start] + call + line[m.end():]
            pos = start + len(call)
        out.append(line)
    text = "\n".join(out)
    return _STRAIGHT + text if text != src else src


def get_function(path, fn, torchscript, widen=False, straight=False):
    """The script's function; widen: its half-precision emulation carried in float64 instead of
    float32 (the twin holds float16 / bfloat16 values as `.float()` between the roundings of
    each op, `.to(torch.float16).float()`; the float64 reference of the rmse rule widens them
    to `.double()`, so it is float64 between the same roundings, not float32 again); straight
    (with widen, for gradients): those roundings straight-through (see _ROUNDING)."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            src = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise JobError("io", "cannot read the reference script %s: %s" % (path, e))
    if widen:
        # float32 everywhere in the script too: a cast to float32 (`w.to(torch.float32)` of an
        # integer operand) would meet float64 operands in a product (a dtype error) or round
        # the reference to float32 again
        src = src.replace(".float()", ".double()").replace("torch.float32", "torch.float64")
        if straight:
            src = straight_through(src)
    key = (torchscript, fn, path, src)
    if key in _functions:
        return _functions[key]
    try:
        if torchscript:
            scope = torch.jit.CompilationUnit(src)
        else:
            scope = {"torch": torch, "math": math, "__name__": "kgen_reference",
                     "__file__": path}
            exec(compile(src, path, "exec"), scope)
    except Exception as e:
        raise JobError("reference", "%s failed to compile:\n%s" % (
            path, tail("".join(traceback.format_exception_only(type(e), e)))))
    func = getattr(scope, fn, None) if torchscript else scope.get(fn)
    if not callable(func):
        raise JobError("reference", "%s defines no function '%s'" % (path, fn))
    if len(_functions) >= MAX_CACHED_FUNCTIONS:
        _functions.pop(next(iter(_functions)))
    _functions[key] = func
    return func


def flatten(result, out):
    """Tensors of a (nested) tuple / list result, in order; Python scalars as 0-dim."""
    if isinstance(result, (tuple, list)):
        for r in result:
            flatten(r, out)
    elif isinstance(result, torch.Tensor):
        out.append(result.detach())
    elif isinstance(result, bool):
        out.append(torch.tensor(result, dtype=torch.bool))
    elif isinstance(result, int):
        out.append(torch.tensor(result, dtype=torch.int64))
    elif isinstance(result, float):
        out.append(torch.tensor(result, dtype=torch.float64))
    else:
        raise JobError("reference", "the reference returned a %s, not tensors"
                       % type(result).__name__)
    return out


def call(func, args, kwargs, path, label):
    try:
        # the reference's UserWarnings (a broadcast loss target, kl_div's 'mean') are PyTorch
        # talking to a user: not the check's business
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = func(*args, **kwargs)
    except Exception as e:
        # Drop our own frame (the call above): the user's frames and message remain.
        tb = traceback.format_exception(type(e), e, e.__traceback__.tb_next)
        raise JobError("reference", "%s raised in %s:\n%s" % (label, path, tail("".join(tb))))
    return flatten(result, [])


def to_fp64(t):
    return t.to(torch.float64) if t.is_floating_point() else t


# ---- comparing -----------------------------------------------------------------------

def fmt_value(t, dtype):
    v = t.item()
    if dtype in FLOAT_NAMES:
        return "%.9g" % v if dtype == "float64" else "%.8g" % v
    return str(int(v))


def finite_rmse(a, b, mask):
    if not bool(mask.any()):
        return 0.0
    d = (a - b)[mask]
    return math.sqrt(float((d * d).mean()))


def compare(ours, ref, expected, tol_scale, fp64_ref, rounded_nonfinite=False):
    """One row. fp64_ref() returns the float64 reference tensor or raises JobError.
    rounded_nonfinite (gradients): where the reference is NaN / inf but its float64 run is
    finite (a float32 rounding made it so: a saturated tanh's 1 - t² = 0 times an infinite
    asin'), the reference says nothing: a finite value of ours there is not compared (the note
    counts those positions)."""
    od, rd = dtype_name(ours.dtype), dtype_name(ref.dtype)
    row = {"ok": False, "dtype": od, "torch_dtype": rd, "shape": shape_str(ours.shape),
           "max_abs": 0.0, "max_rel": 0.0, "n_bad": 0, "note": ""}
    if od != rd:
        row["verdict"] = "dtype mismatch: ours %s, torch %s" % (od, rd)
        return row
    if od != expected:
        row["verdict"] = "dtype mismatch: ours %s, expected %s" % (od, expected)
        return row
    if tuple(ours.shape) != tuple(ref.shape):
        row["verdict"] = "shape mismatch: ours %s, torch %s" % (
            shape_str(ours.shape), shape_str(ref.shape))
        return row
    if ours.numel() == 0:
        row.update(ok=True, verdict="ok (empty)")
        return row

    o, r = ours.to(torch.float64), ref.to(torch.float64)
    is_float = od in FLOAT_NAMES
    finite = torch.isfinite(o) & torch.isfinite(r)
    diff = torch.where(finite, (o - r).abs(), torch.zeros_like(o))
    row["max_abs"] = num(diff.max())
    nz = finite & (r != 0)
    row["max_rel"] = num((diff[nz] / r[nz].abs()).max()) if bool(nz.any()) else 0.0

    if not is_float:
        bad = ours.to(torch.int64) != ref.to(torch.int64)
        nonfinite_bad = torch.zeros_like(bad)
    else:
        rtol, atol = TOLERANCES[od]
        rtol, atol = rtol * tol_scale, atol * tol_scale
        nan_o, nan_r = torch.isnan(o), torch.isnan(r)
        # NaN must meet NaN; an infinity must meet the same infinity.
        nonfinite_bad = (nan_o != nan_r) | (~finite & ~nan_o & ~nan_r & (o != r))
        if rounded_nonfinite and bool(nonfinite_bad.any()):
            try:
                f = fp64_ref().to(torch.float64)
            except JobError:
                f = None
            if f is not None and tuple(f.shape) == tuple(o.shape):
                rounded = nonfinite_bad & torch.isfinite(o) & ~torch.isfinite(r) & torch.isfinite(f)
                if bool(rounded.any()):
                    row["note"] = "%d position(s) not compared: non-finite in torch by rounding (finite in its float64 run)" % int(rounded.sum())
                    r = torch.where(rounded, o, r)
                    nan_r = torch.isnan(r)
                    finite = torch.isfinite(o) & torch.isfinite(r)
                    nonfinite_bad = (nan_o != nan_r) | (~finite & ~nan_o & ~nan_r & (o != r))
                    diff = torch.where(finite, (o - r).abs(), torch.zeros_like(o))
        bad = nonfinite_bad | (finite & (diff > atol + rtol * r.abs()))
    n_bad = int(bad.sum())
    row["n_bad"] = n_bad
    if n_bad == 0:
        row.update(ok=True, verdict="ok (allclose)" if is_float else "ok (exact)")
        return row

    if is_float and not bool(nonfinite_bad.any()):
        try:
            f = fp64_ref()
        except JobError as e:
            f = None
            row["note"] = "rmse rule unavailable: " + tail(e.text, 300)
        if f is not None and tuple(f.shape) == tuple(ours.shape):
            f = f.to(torch.float64)
            mask = finite & torch.isfinite(f)
            e_ours, e_torch = finite_rmse(o, f, mask), finite_rmse(r, f, mask)
            k = 3.0 if od in ("float16", "bfloat16") or ours.numel() < 32 else 2.0
            bound = k * e_torch + atol / 10
            row["note"] = "rmse vs fp64: ours %.3g, torch %.3g, bound %.3g" % (
                e_ours, e_torch, bound)
            if e_ours <= bound:
                row.update(ok=True, verdict="ok (rmse vs fp64)")
                return row
        elif f is not None:
            row["note"] = "rmse rule unavailable: fp64 result has shape %s" % shape_str(f.shape)

    first = int(np.flatnonzero(bad.reshape(-1).numpy())[0])
    index = [int(i) for i in np.unravel_index(first, tuple(ours.shape))]
    row["verdict"] = "MISMATCH at %s: ours %s, torch %s" % (
        shape_str(index), fmt_value(ours.reshape(-1)[first], od),
        fmt_value(ref.reshape(-1)[first], od))
    return row


# ---- requests ------------------------------------------------------------------------

def field(req, name, kind, default=None):
    v = req.get(name, default)
    if not isinstance(v, kind):
        raise JobError("request", "request field '%s' is missing or not a %s"
                       % (name, kind.__name__ if isinstance(kind, type) else "valid value"))
    return v


def check(req):
    script = field(req, "script", str)
    fn = field(req, "fn", str)
    torchscript = field(req, "torchscript", bool, True)
    inputs = field(req, "inputs", list, [])
    captures = field(req, "captures", dict, {})
    ours_paths = field(req, "ours", list)
    expected = field(req, "expect_dtypes", list)
    tol_scale = field(req, "tol_scale", (int, float), 1.0)
    if not tol_scale or tol_scale <= 0:
        tol_scale = 1.0
    if len(expected) != len(ours_paths):
        raise JobError("request", "%d outputs but %d expected dtypes"
                       % (len(ours_paths), len(expected)))
    for e in expected:
        if e not in KNOWN_DTYPES:
            raise JobError("request", "unknown expected dtype %r" % (e,))

    mutated = field(req, "mutated", list, [])
    args = [load_npy(p, "input %d" % i) for i, p in enumerate(inputs)]
    kwargs = {k: load_npy(p, "capture '%s'" % k) for k, p in captures.items()}
    for m in mutated:
        if not (isinstance(m, dict) and (m.get("input") in range(len(args))
                                         or m.get("capture") in kwargs)):
            raise JobError("request", "mutated entry %r names no input or capture" % (m,))
    ours = [load_npy(p, "output %d" % i) for i, p in enumerate(ours_paths)]
    func = get_function(script, fn, torchscript)

    def run(a, kw, label, f=func):
        # the function may change parameters in place (x.add_(y)): each run gets its own
        # copies, and their values after the call follow the results
        a = [t.clone() for t in a]
        kw = {k: v.clone() for k, v in kw.items()}
        res = call(f, a, kw, script, label)
        for m in mutated:
            res.append((a[m["input"]] if "input" in m else kw[m["capture"]]).detach())
        return res

    refs = run(args, kwargs, fn)

    fp64 = []  # computed once, on first need; [result] or [JobError]

    def fp64_ref(i):
        if not fp64:
            try:
                fp64.append(run([to_fp64(a) for a in args],
                                {k: to_fp64(v) for k, v in kwargs.items()},
                                fn + " (float64 inputs)",
                                get_function(script, fn, torchscript, widen=True)))
            except JobError as e:
                fp64.append(e)
        if isinstance(fp64[0], JobError):
            raise fp64[0]
        if i >= len(fp64[0]):
            raise JobError("reference", "the float64 run returned fewer outputs")
        return fp64[0][i]

    rows = []
    for i, o in enumerate(ours):
        if len(refs) != len(ours):
            rows.append({"ok": False, "dtype": dtype_name(o.dtype), "torch_dtype": "",
                         "shape": shape_str(o.shape), "max_abs": 0.0, "max_rel": 0.0,
                         "n_bad": 0, "note": "",
                         "verdict": "output count mismatch: ours %d, torch %d"
                                    % (len(ours), len(refs))})
            continue
        rows.append(compare(o, refs[i], expected[i], float(tol_scale),
                            lambda i=i: fp64_ref(i)))
    return rows


# ---- gradients ------------------------------------------------------------------------

FD_MAX_ELEMENTS = 256   # finite differences only over this many wanted elements in all
FD_RTOL, FD_ATOL = 1e-3, 1e-4


def flatten_live(result, out):
    """The result's tensors in order, still attached to the autograd graph (numbers: None)."""
    if isinstance(result, (tuple, list)):
        for r in result:
            flatten_live(r, out)
    else:
        out.append(result if isinstance(result, torch.Tensor) else None)
    return out


def weighted_sum(func, args, kwargs, weights, wanted, path, label, double=False):
    """Σ_i Σ out_i · W_i of a run of func, with the wanted parameters requiring grad (fresh
    copies; float64 throughout when double) -> (total, leaves)."""
    a = [t.clone() for t in args]
    kw = {k: v.clone() for k, v in kwargs.items()}
    if double:
        a = [to_fp64(t) for t in a]
        kw = {k: to_fp64(v) for k, v in kw.items()}
    leaves = []
    for w in wanted:
        t = a[w["input"]] if "input" in w else kw[w["capture"]]
        t.requires_grad_(True)
        leaves.append(t)
    try:
        with torch.enable_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = flatten_live(func(*a, **kw), [])
    except Exception as e:
        text = str(e)
        if "not differentiable" in text or "does not require grad" in text:
            last = [l for l in text.splitlines() if "differentiable" in l or "require grad" in l]
            raise JobError("nograd", "PyTorch does not differentiate %s: %s" % (label, last[-1].strip() if last else text[:300]))
        tb = traceback.format_exception(type(e), e, e.__traceback__.tb_next)
        raise JobError("reference", "%s raised in %s:\n%s" % (label, path, tail("".join(tb))))
    if len(outs) < len(weights):
        raise JobError("reference", "%s returned %d outputs, %d weights" % (label, len(outs), len(weights)))
    total = None
    for o, w in zip(outs, weights):
        if w is None or o is None or not o.is_floating_point() or not o.requires_grad:
            continue
        w = w.to(torch.float64 if double else o.dtype)
        term = (o * w).sum()
        total = term if total is None else total + term.to(total.dtype if total.dtype == torch.float64 else term.dtype)
    return total, leaves


def autograd_of(func, args, kwargs, weights, wanted, path, label, double=False):
    total, leaves = weighted_sum(func, args, kwargs, weights, wanted, path, label, double)
    if total is None:
        return [torch.zeros_like(t).detach() for t in leaves]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gs = torch.autograd.grad(total, leaves, allow_unused=True)
    except Exception as e:
        raise JobError("nograd", "PyTorch's autograd of %s failed: %s: %s" % (label, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    return [(g if g is not None else torch.zeros_like(t)).detach() for g, t in zip(gs, leaves)]


def finite_differences(func, args, kwargs, weights, wanted, path, label):
    """Central differences in float64 of Σ out_i · W_i, per element of each wanted parameter."""
    a = [to_fp64(t) for t in args]
    kw = {k: to_fp64(v) for k, v in kwargs.items()}

    def f(mag=False):
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = flatten_live(func(*[t.clone() for t in a], **{k: v.clone() for k, v in kw.items()}), [])
        tot = 0.0
        for o, w in zip(outs, weights):
            if w is not None and o is not None and o.is_floating_point():
                t = o.to(torch.float64) * w.to(torch.float64)
                tot += float(t.abs().sum() if mag else t.sum())
        return tot

    # the rounding noise of a difference of two sums of this size: a gradient below it is not seen
    scale = f(mag=True)

    grads = []
    for w in wanted:
        t = a[w["input"]] if "input" in w else kw[w["capture"]]
        g, g2 = torch.zeros_like(t), torch.zeros_like(t)
        flat, gf, gf2 = t.view(-1), g.view(-1), g2.view(-1)
        for i in range(flat.numel()):
            x0 = float(flat[i])
            for step, out in ((1e-6, gf), (4e-6, gf2)):
                h = step * max(1.0, abs(x0))
                flat[i] = x0 + h
                fp = f()
                flat[i] = x0 - h
                fm = f()
                flat[i] = x0
                out[i] = (fp - fm) / (2 * h)
        noise = 8e-16 * scale / (1e-6 * torch.clamp(t.detach().abs(), min=1.0))
        grads.append((g, g2, noise))
    return grads


def grad(req):
    """op "grad": kgen's gradients against the twin's autograd (and finite differences)."""
    script = field(req, "script", str)
    fn = field(req, "fn", str)
    torchscript = field(req, "torchscript", bool, True)
    inputs = field(req, "inputs", list, [])
    captures = field(req, "captures", dict, {})
    ours_paths = field(req, "ours", list)
    expected = field(req, "expect_dtypes", list)
    wanted = field(req, "wanted", list)
    wpaths = field(req, "weights", list)
    tol_scale = field(req, "tol_scale", (int, float), 1.0) or 1.0
    want_fd = field(req, "fd", bool, False)
    if len(wanted) != len(ours_paths) or len(expected) != len(ours_paths):
        raise JobError("request", "%d gradients, %d wanted, %d dtypes" % (len(ours_paths), len(wanted), len(expected)))
    args = [load_npy(p, "input %d" % i) for i, p in enumerate(inputs)]
    kwargs = {k: load_npy(p, "capture '%s'" % k) for k, p in captures.items()}
    for w in wanted:
        if not (isinstance(w, dict) and (w.get("input") in range(len(args)) or w.get("capture") in kwargs)):
            raise JobError("request", "wanted entry %r names no input or capture" % (w,))
    weights = [None if p is None else load_npy(p, "weights %d" % i) for i, p in enumerate(wpaths)]
    # a null path: kgen gives that parameter no gradient; PyTorch must not either (see absent_row)
    present = [i for i, p in enumerate(ours_paths) if p is not None]
    absent = [i for i, p in enumerate(ours_paths) if p is None]
    ours = {i: load_npy(ours_paths[i], "gradient %d" % i) for i in present}
    func = get_function(script, fn, torchscript)
    wanted_all, wanted = wanted, [wanted[i] for i in present]
    refs = autograd_of(func, args, kwargs, weights, wanted, script, fn)
    fp64 = []

    def fp64_ref(i):
        if not fp64:
            try:
                fp64.append(autograd_of(get_function(script, fn, torchscript, widen=True, straight=True), args, kwargs, weights, wanted, script,
                                        fn + " (float64 inputs)", double=True))
            except JobError as e:
                fp64.append(e)
        if isinstance(fp64[0], JobError):
            raise fp64[0]
        return fp64[0][i]

    fds = None
    n_wanted = sum((args[w["input"]] if "input" in w else kwargs[w["capture"]]).numel() for w in wanted)
    # finite differences of a twin that rounds to half precision after every op are noise: not
    # for float16 / bfloat16 parameters
    exact = all((args[w["input"]] if "input" in w else kwargs[w["capture"]]).dtype not in (torch.float16, torch.bfloat16) for w in wanted)
    with open(script, "r", encoding="utf-8") as fh:  # a twin rounding to half precision: piecewise constant
        src = fh.read()
    exact = exact and "float16" not in src
    if want_fd and exact and n_wanted <= FD_MAX_ELEMENTS:
        fds = finite_differences(get_function(script, fn, torchscript, widen=True), args, kwargs, weights, wanted, script, fn)
    rows = []
    for j, i in enumerate(present + absent):
        if i in absent:
            rows.append(absent_row(func, args, kwargs, weights, wanted_all[i], expected[i], script, fn))
            continue
        o, k = ours[i], present.index(i)
        row = compare(o, refs[k], expected[i], float(tol_scale), lambda k=k: fp64_ref(k), rounded_nonfinite=True)
        row["fd_verdict"], row["fd_ok"], row["fd_max_abs"] = "", True, 0.0
        i = k
        if fds is not None and o.is_floating_point() and tuple(o.shape) == tuple(fds[i][0].shape):
            # an element counts where two step sizes agree (not at a kink, a jump, an overflow or
            # a value quantized by a cast to half precision, where differences say nothing)
            fd, fd2, noise = fds[i]
            bound = FD_ATOL * tol_scale + FD_RTOL * tol_scale * fd.abs() + 2 * noise
            smooth = torch.isfinite(fd) & torch.isfinite(fd2) & ((fd - fd2).abs() <= bound)
            d = (o.to(torch.float64) - fd).abs()
            bad = smooth & ~(d <= bound)
            row["fd_max_abs"] = num(d[smooth].max()) if bool(smooth.any()) else 0.0
            row["fd_ok"] = not bool(bad.any())
            n_smooth = int(smooth.sum())
            row["fd_verdict"] = ("fd ok" if n_smooth == o.numel() else "fd ok (%d of %d elements smooth)" % (n_smooth, o.numel())) \
                if row["fd_ok"] else "fd MISMATCH"
        rows.append(row)
    order = present + absent
    return [rows[order.index(i)] for i in range(len(ours_paths))]


def absent_row(func, args, kwargs, weights, w, expected, path, fn):
    """kgen gives parameter w no gradient: PyTorch must refuse one too (its argument is not
    differentiable: a loss's class weights) or give None or zeros."""
    t = args[w["input"]] if "input" in w else kwargs[w["capture"]]
    row = {"ok": True, "dtype": expected, "torch_dtype": dtype_name(t.dtype), "shape": shape_str(t.shape), "max_abs": 0.0,
           "max_rel": 0.0, "n_bad": 0, "note": "", "fd_verdict": "", "fd_ok": True, "fd_max_abs": 0.0}
    try:
        g = autograd_of(func, args, kwargs, weights, [w], path, fn)[0]
    except JobError as e:
        if "not differentiable" in e.text or "does not require grad" in e.text:
            row["verdict"] = "ok (no gradient: PyTorch's argument is not differentiable)"
            return row
        raise
    m = float(g.abs().max()) if g.numel() else 0.0
    if m == 0.0:
        row["verdict"] = "ok (no gradient: PyTorch's is zero)"
    else:
        row.update(ok=False, max_abs=num(m), verdict="MISMATCH: kgen gives no gradient, PyTorch's max |g| is %.3g" % m)
    return row


def handle(line):
    t0 = time.perf_counter()
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"id": None, "ok": False, "kind": "request", "error": "bad JSON: %s" % e}
    if not isinstance(req, dict):
        return {"id": None, "ok": False, "kind": "request",
                "error": "a request must be a JSON object"}
    try:
        op = req.get("op", "check")
        if op == "quit":
            return None
        if op == "ping":
            return {"id": req.get("id"), "ok": True, "pong": True}
        if op not in ("check", "grad"):
            raise JobError("request", "unknown op %r" % (op,))
        rows = check(req) if op == "check" else grad(req)
        return {"id": req.get("id"), "ok": True, "rows": rows,
                "ms": round((time.perf_counter() - t0) * 1e3, 3)}
    except JobError as e:
        return {"id": req.get("id"), "ok": False, "kind": e.kind, "error": e.text}
    except Exception as e:  # a bug here: report it, stay alive
        return {"id": req.get("id"), "ok": False, "kind": "internal",
                "error": "oracle internal error:\n" + tail(traceback.format_exc())}


def main():
    global np, torch
    # The protocol owns the original stdout; fd 1 and sys.stdout now go to stderr,
    # so prints in reference code (or in torch) cannot interleave with responses.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(obj):
        proto.write(json.dumps(obj, allow_nan=False) + "\n")
        proto.flush()

    try:
        import numpy
        import torch as torch_module
    except Exception as e:
        send({"ready": False, "error": "%s: %s" % (type(e).__name__, e)})
        return 1
    np, torch = numpy, torch_module
    send({"ready": True, "python": "%d.%d.%d" % sys.version_info[:3],
          "torch": torch.__version__, "numpy": np.__version__})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        response = handle(line)
        if response is None:  # {"op": "quit"}
            break
        send(response)
    return 0


sys.exit(main())
