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
import sys
import time
import traceback

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


def get_function(path, fn, torchscript, widen=False):
    """The script's function; widen: its half-precision emulation carried in float64 instead of
    float32 (the twin holds float16 / bfloat16 values as `.float()` between the roundings of
    each op, `.to(torch.float16).float()`; the float64 reference of the rmse rule widens them
    to `.double()`, so it is float64 between the same roundings, not float32 again)."""
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
        with torch.no_grad():
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


def compare(ours, ref, expected, tol_scale, fp64_ref):
    """One row. fp64_ref() returns the float64 reference tensor or raises JobError."""
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
        if op != "check":
            raise JobError("request", "unknown op %r" % (op,))
        rows = check(req)
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
