"""perf/gpu/bench.py — kgen's kernels on a real GPU, timed beside eager PyTorch.

Run by perf/gpu/run.sh on a machine with a CUDA GPU and a CUDA build of PyTorch
(the `device` machines of this workplace). It drives libkgen.so through its C ABI
exactly as the TorchSharp binding does: device pointers of torch tensors wrapped
in DLTensors, kg_specialize_for, kg_run on a stream. For each program of
perf/programs (softmax, layer_norm, rmsnorm from primitives, row_sum, outer_sum)
at the issue's transformer sizes it:

  1. checks kgen's output against PyTorch's own op on the GPU (fresh random
     inputs, output poisoned with NaN first: every element must be written),
     relative error ||ours - ref|| / ||ref|| computed in float64;
  2. times kgen and eager PyTorch on the same stream with CUDA events: warm-up,
     then `reps` calls between two events, median of `trials` such windows;
  3. reports microseconds, achieved bandwidth over the minimum bytes (each input
     read once, each output written once) and eager/ours.

Also: per-call host overhead of kg_run (1-element tensors, many calls, the GPU
idle), beside one eager PyTorch op on the same tensors; and the control-flow loops of
examples/ (cf_rnn_elman, cf_lstm: a host plan, one kg_run per sequence) at RNN sizes,
checked against the same loop in PyTorch and timed beside it op by op (the F#'s own
formulation) and with matmuls (eager's best).

With --tensor-cores, instead: the products and convolutions of perf/programs/tc_bench.json
(matmul 4096³ in float32 — split-TF32 and TF32 — float16 and bfloat16, transformer projections,
attention's batched products, the fused attention on its tensor-core tile beside PyTorch's flash
SDPA, ResNet-50's 3x3 and 1x1 convolutions) checked against PyTorch and
timed beside it (cuBLAS / cuDNN, PyTorch's default full-float32 products) and torch.compile, in
TFLOP/s; --no-compile leaves torch.compile out; --small runs tiny sizes on the CPU emulator (the
script's own check, no timings).

With --models, instead: every entry of the model documents (examples/models/*.json, or --docs
A,B; --entries E1,E2 to pick) end to end on their example inputs (`kgen check --eager --keep`
first: the entry checked on the device against PyTorch, its inputs and eager-Python twin kept):
kgen replayed as a CUDA graph (the default), replayed launch by launch (KGEN_CUDA_GRAPHS=0) and
not replayed (kg_options.no_replay), beside the eager twin (PyTorch op by op, what TorchSharp
runs) and, for the issue's forwards (COMPILE_ENTRIES; --compile-all: every one, --no-compile:
none), torch.compile default and with CUDA graphs (mode="reduce-overhead"); with the host µs of
one call of each; --cpu checks the script on the CPU device (no GPU, no compile).

Usage: python3 perf/gpu/bench.py LIBKGEN.so [--programs perf/programs] [--reps 50] [--tensor-cores [--small] [--no-compile]]
       python3 perf/gpu/bench.py LIBKGEN.so --models [--docs GLOBS] [--entries E,..] [--kgen KGEN] [--keep DIR] [--cpu]
                                 [--no-compile | --compile-all] [--reps 50] [--trials 5]
Prints a markdown table last. Exits 1 if any check fails.
"""
import ctypes as C
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


KDL_CPU, KDL_CUDA = 1, 2
DT = {torch.float32: (2, 32), torch.float16: (2, 16), torch.bfloat16: (4, 16), torch.float64: (2, 64),
      torch.int32: (0, 32), torch.int64: (0, 64), torch.bool: (6, 8)}
DT_BACK = {v: k for k, v in DT.items()}
KG_DEVICE_CUDA, KG_DEVICE_EMU, KG_DEVICE_CPU = 1, 2, 4


class NamedTensor(C.Structure):
    _fields_ = [("name", C.c_char_p), ("t", C.POINTER(DLTensor))]


class KgOptions(C.Structure):
    """kg_options (runtime/kgen.h), field for field."""
    _fields_ = [("cache_dir", C.c_char_p), ("cc", C.c_char_p), ("emu_thread_order", C.c_int), ("emu_seed", C.c_uint),
                ("verify_ir", C.c_int), ("force_variant", C.c_int), ("cuda_device", C.c_int), ("f32_matmul", C.c_int),
                ("emu_arch", C.c_int), ("no_replay", C.c_int)]


class Kgen:
    def __init__(self, path, **options):
        L = C.CDLL(path)
        L.kg_context_new.restype = C.c_void_p
        L.kg_context_new.argtypes = [C.c_void_p]
        L.kg_last_error.restype = C.c_char_p
        L.kg_last_error.argtypes = [C.c_void_p]
        L.kg_module_load_file.argtypes = [C.c_void_p, C.c_char_p, C.POINTER(C.c_void_p)]
        L.kg_specialize_for.argtypes = [C.c_void_p, C.c_char_p, C.POINTER(C.POINTER(DLTensor)), C.c_int,
                                        C.POINTER(NamedTensor), C.c_int, C.POINTER(C.c_void_p)]
        L.kg_compiled_n_outputs.argtypes = [C.c_void_p]
        L.kg_compiled_n_kernels.argtypes = [C.c_void_p]
        L.kg_compiled_output.argtypes = [C.c_void_p, C.c_int, C.POINTER(DLDataType), C.POINTER(C.c_int),
                                         C.POINTER(C.c_int64 * 8)]
        L.kg_run.argtypes = [C.c_void_p, C.c_int, C.POINTER(C.POINTER(DLTensor)), C.c_int, C.POINTER(NamedTensor), C.c_int,
                             C.POINTER(C.POINTER(DLTensor)), C.c_int, C.c_void_p]
        self.L = L
        self.opts = KgOptions(**options) if options else None
        self.ctx = L.kg_context_new(C.byref(self.opts) if options else None)

    def err(self):
        return (self.L.kg_last_error(self.ctx) or b"").decode()

    def load(self, path):
        m = C.c_void_p()
        if self.L.kg_module_load_file(self.ctx, path.encode(), C.byref(m)):
            raise RuntimeError(self.err())
        return m


def dl(t, keep):
    """A DLTensor view of a torch tensor (kept alive through `keep`)."""
    shape = (C.c_int64 * max(t.dim(), 1))(*t.shape)
    strides = (C.c_int64 * max(t.dim(), 1))(*t.stride())
    code, bits = DT[t.dtype]
    d = DLTensor(C.c_void_p(t.data_ptr()), DLDevice(KDL_CUDA if t.is_cuda else KDL_CPU, 0), t.dim(),
                 DLDataType(code, bits, 1), shape, strides, 0)
    keep += [shape, strides, d]
    return d


class Entry:
    """One specialized entry, bound to fixed input tensors; run() enqueues on `stream`."""

    def __init__(self, kg, module, entry, inputs, stream, device=None, captures=None):
        self.kg, self.keep = kg, []
        views = [dl(t, self.keep) for t in inputs]
        self.ins = (C.POINTER(DLTensor) * len(views))(*[C.pointer(v) for v in views])
        self.n_in = len(views)
        caps = list((captures or {}).items())
        self.caps = (NamedTensor * max(len(caps), 1))(*[NamedTensor(n.encode(), C.pointer(dl(t, self.keep))) for n, t in caps])
        self.n_caps = len(caps)
        c = C.c_void_p()
        if kg.L.kg_specialize_for(module, entry.encode(), self.ins, self.n_in, self.caps, self.n_caps, C.byref(c)):
            raise RuntimeError(kg.err())
        self.c = c
        self.n_kernels = kg.L.kg_compiled_n_kernels(c)
        self.outs = []
        for i in range(kg.L.kg_compiled_n_outputs(c)):
            dt, nd, shp = DLDataType(), C.c_int(), (C.c_int64 * 8)()
            kg.L.kg_compiled_output(c, i, C.byref(dt), C.byref(nd), C.byref(shp))
            self.outs.append(torch.empty(list(shp[:nd.value]), dtype=DT_BACK[(dt.code, dt.bits)], device=inputs[0].device))
        oviews = [dl(t, self.keep) for t in self.outs]
        self.op = (C.POINTER(DLTensor) * len(oviews))(*[C.pointer(v) for v in oviews])
        self.stream = C.c_void_p(stream.cuda_stream) if stream is not None else None
        self.device = device if device is not None else KG_DEVICE_CUDA

    def run(self):
        if self.kg.L.kg_run(self.c, self.device, self.ins, self.n_in, self.caps, self.n_caps, self.op, len(self.outs), self.stream):
            raise RuntimeError(self.kg.err())


def time_gpu(fn, stream, reps, trials):
    """Median over `trials` of (event-timed window of `reps` calls) / reps, in µs."""
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
        stream.synchronize()
        ts = []
        for _ in range(trials):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(stream)
            for _ in range(reps):
                fn()
            b.record(stream)
            b.synchronize()
            ts.append(a.elapsed_time(b) * 1000.0 / reps)
    return statistics.median(ts), min(ts), max(ts)


def rel_err(ours, ref):
    o, r = ours.double(), ref.double()
    if torch.isnan(o).any():
        return float("inf")
    return (torch.linalg.vector_norm(o - r) / max(torch.linalg.vector_norm(r).item(), 1e-300)).item()


# the last two: rows much shorter than a warp (segments of one: 8 and 2 lanes a row)
SIZES = [(4096, 4096), (32768, 1024), (16, 1048576), (262144, 64), (1048576, 16)]


def cases():
    eps = 1e-6
    yield ("softmax", "softmax", lambda R, D: [torch.randn(R, D, device="cuda")],
           lambda x: torch.softmax(x, -1), lambda R, D: 2 * R * D * 4)
    yield ("layer_norm", "layer_norm_{D}", lambda R, D: [torch.randn(R, D, device="cuda"),
                                                         torch.randn(D, device="cuda"), torch.randn(D, device="cuda")],
           lambda x, w, b: F.layer_norm(x, [x.shape[-1]], w, b, 1e-5), lambda R, D: (2 * R * D + 2 * D) * 4)
    yield ("rmsnorm", "rmsnorm", lambda R, D: [torch.randn(R, D, device="cuda"), torch.randn(D, device="cuda")],
           lambda x, w: x * (x * x).mean([-1], True).add(eps).rsqrt() * w, lambda R, D: (2 * R * D + D) * 4)
    yield ("row_sum", "row_sum", lambda R, D: [torch.randn(R, D, device="cuda")],
           lambda x: x.sum(-1), lambda R, D: (R * D + R) * 4)
    yield ("outer_sum", "outer_sum", lambda R, D: [torch.randn(R, D, device="cuda")],
           lambda x: x.sum(0), lambda R, D: (R * D + D) * 4)


def loop_cases():
    """(example, entry inputs, the F#'s loop in eager PyTorch, the same with matmul)"""
    T, B, I, H = 64, 32, 64, 64

    def elman_in():
        return [torch.randn(T, B, I, device="cuda") * 0.5, torch.randn(I, H, device="cuda") * 0.1,
                torch.randn(H, H, device="cuda") * 0.1, torch.randn(H, device="cuda") * 0.1, torch.zeros(B, H, device="cuda")]

    def elman_ops(x, wx, wh, b, h):
        for t in range(x.shape[0]):
            h = torch.tanh((x.select(0, t).unsqueeze(-1) * wx).sum(1) + (h.unsqueeze(-1) * wh).sum(1) + b)
        return h

    def elman_mm(x, wx, wh, b, h):
        for t in range(x.shape[0]):
            h = torch.tanh(x[t] @ wx + h @ wh + b)
        return h

    def lstm_in():
        return [torch.randn(T, B, I, device="cuda") * 0.5, torch.randn(I, 4, H, device="cuda") * 0.1,
                torch.randn(H, 4, H, device="cuda") * 0.1, torch.randn(4, H, device="cuda") * 0.1,
                torch.zeros(B, H, device="cuda"), torch.zeros(B, H, device="cuda")]

    def lstm_ops(x, w, u, b, h, c):
        for t in range(x.shape[0]):
            z = (x.select(0, t).unsqueeze(-1).unsqueeze(-1) * w).sum(1) + (h.unsqueeze(-1).unsqueeze(-1) * u).sum(1) + b
            c2 = torch.sigmoid(z.select(1, 1)) * c + torch.sigmoid(z.select(1, 0)) * torch.tanh(z.select(1, 2))
            h, c = torch.sigmoid(z.select(1, 3)) * torch.tanh(c2), c2
        return h

    def lstm_mm(x, w, u, b, h, c):
        w2, u2 = w.reshape(w.shape[0], -1), u.reshape(u.shape[0], -1)
        for t in range(x.shape[0]):
            z = (x[t] @ w2 + h @ u2).reshape(-1, 4, u.shape[-1]) + b
            c2 = torch.sigmoid(z[:, 1]) * c + torch.sigmoid(z[:, 0]) * torch.tanh(z[:, 2])
            h, c = torch.sigmoid(z[:, 3]) * torch.tanh(c2), c2
        return h

    yield "cf_rnn_elman", elman_in, elman_ops, elman_mm, f"T={T} B={B} I={I} H={H}"
    yield "cf_lstm", lstm_in, lstm_ops, lstm_mm, f"T={T} B={B} I={I} H={H}"


def loops(kg, stream, reps, trials):
    rows, failed = [], 0
    for name, mk, ops, mm, size in loop_cases():
        try:
            torch.manual_seed(7)
            ins = mk()
            e = Entry(kg, kg.load(os.path.join("examples", name + ".json")), name, ins, stream)
            for o in e.outs:
                o.fill_(float("nan"))
            with torch.cuda.stream(stream):
                e.run()
            stream.synchronize()
            err = rel_err(e.outs[0], mm(*ins))
            ok = err < 1e-4
            failed += not ok
            t_k = time_gpu(e.run, stream, reps, trials)
            t_o = time_gpu(lambda: ops(*ins), stream, max(reps // 10, 2), trials)
            t_m = time_gpu(lambda: mm(*ins), stream, max(reps // 10, 2), trials)
        except Exception as ex:  # one failing case must not hide the others
            print(f"{name}: FAILED: {ex}", flush=True)
            failed += 1
            continue
        rows.append((name, size, e.n_kernels, err, "ok" if ok else "WRONG", t_k[0], t_o[0], t_m[0]))
        print(f"{name} {size}: kgen {t_k[0]:.1f} us, eager op by op {t_o[0]:.1f} us, eager matmul {t_m[0]:.1f} us, err {err:.2e}",
              flush=True)
    return rows, failed


# ---- products and convolutions on the tensor-core tiers (issue: tensor cores) ----

def tc_cases(small):
    """(label, entry of perf/programs/tc_bench.json, inputs(device), PyTorch's op, FLOPs, f32 options)"""
    r = torch.randn
    s = 1 if not small else 0

    def mm(dt, M, K, N):
        return lambda dev: [r(M, K, device=dev, dtype=dt), r(K, N, device=dev, dtype=dt)]
    n = 4096 if s else 96
    yield (f"matmul {n}³ float32 (split-TF32)", "mm_f32", mm(torch.float32, n, n, n), torch.matmul, 2 * n ** 3, {})
    yield (f"matmul {n}³ float32 (TF32)", "mm_f32", mm(torch.float32, n, n, n), torch.matmul, 2 * n ** 3, {"f32_matmul": 1})
    yield (f"matmul {n}³ float16", "mm_f16", mm(torch.float16, n, n, n), torch.matmul, 2 * n ** 3, {})
    yield (f"matmul {n}³ bfloat16", "mm_bf16", mm(torch.bfloat16, n, n, n), torch.matmul, 2 * n ** 3, {})
    # the mma.sync tier on the same GPU (kg_options.emu_arch 80 keeps the Hopper tier out)
    yield (f"matmul {n}³ float16 (mma.sync tier)", "mm_f16", mm(torch.float16, n, n, n), torch.matmul, 2 * n ** 3, {"emu_arch": 80})
    for M, K, N in ([(8192, 4096, 4096), (8192, 4096, 11008)] if s else [(80, 64, 72)]):
        yield (f"linear M={M} K={K} N={N} bfloat16", "linear_bf16",
               lambda dev, M=M, K=K, N=N: [r(M, K, device=dev, dtype=torch.bfloat16) * 0.1, r(N, K, device=dev, dtype=torch.bfloat16) * 0.1],
               F.linear, 2 * M * K * N, {})
    B, H, T, D = (4, 32, 2048, 128) if s else (1, 2, 80, 64)
    yield (f"attention q·kᵀ B={B} H={H} T={T} D={D} float16", "attn_scores_f16",
           lambda dev: [r(B, H, T, D, device=dev, dtype=torch.float16), r(B, H, T, D, device=dev, dtype=torch.float16)],
           lambda q, k: q.matmul(k.transpose(-2, -1)), 2 * B * H * T * T * D, {})
    yield (f"attention p·v B={B} H={H} T={T} D={D} float16", "attn_pv_f16",
           lambda dev: [torch.rand(B, H, T, T, device=dev, dtype=torch.float16) / T, r(B, H, T, D, device=dev, dtype=torch.float16)],
           torch.matmul, 2 * B * H * T * T * D, {})
    # the fused attention (one kernel, tensor-core tile) beside PyTorch's fused SDPA (flash) where
    # it has one; the emulator's check against the math path in float64
    sdpa = getattr(F, "scaled_dot_product_attention", None)

    def attn_ref(causal):
        def math(q, k, v):
            s_ = q.matmul(k.transpose(-2, -1)) / q.shape[-1] ** 0.5
            if causal:
                s_ = s_.masked_fill(torch.ones(s_.shape[-2:], dtype=torch.bool, device=q.device).triu(1), float("-inf"))
            return s_.softmax(-1).matmul(v)
        if sdpa is None:
            return math
        return lambda q, k, v: math(q, k, v) if q.dtype == torch.float64 else sdpa(q, k, v, is_causal=causal)
    for entry, D, causal in (("sdpa_causal_f16_d128", 128, True), ("sdpa_f16_d64", 64, False)):
        B, H, T = (4, 32, 2048) if s else (1, 2, 80)
        yield (f"attention (fused) B={B} H={H} T={T} D={D} float16{' causal' if causal else ''}", entry,
               lambda dev, B=B, H=H, T=T, D=D: [r(B, H, T, D, device=dev, dtype=torch.float16) for _ in range(3)],
               attn_ref(causal), 4 * B * H * T * T * D // (2 if causal else 1), {})
    convs = [("conv3x3_relu_f16", 32, 64, 64, 56, 1, torch.float16), ("conv3x3_relu_f16", 32, 256, 256, 14, 1, torch.float16),
             ("conv1x1_relu_f16", 32, 256, 64, 56, 1, torch.float16), ("conv1x1_relu_f16", 32, 64, 256, 56, 1, torch.float16),
             ("conv3x3s2_relu_f32", 32, 64, 64, 56, 2, torch.float32), ("conv3x3s2_relu_f32", 32, 256, 256, 14, 2, torch.float32)]
    if not s:
        convs = [("conv3x3_relu_f16", 2, 16, 24, 10, 1, torch.float16), ("conv1x1_relu_f16", 2, 32, 16, 9, 1, torch.float16),
                 ("conv3x3s2_relu_f32", 2, 8, 16, 11, 2, torch.float32)]
    for entry, N, Cin, O, HW, st, dt in convs:
        k = 1 if "1x1" in entry else 3
        Ho = (HW + 2 * (k // 2) - k) // st + 1
        yield (f"relu(conv2d {k}x{k} s{st}) N={N} C={Cin} O={O} {HW}x{HW} {str(dt)[6:]}", entry,
               lambda dev, N=N, Cin=Cin, O=O, HW=HW, k=k, dt=dt: [r(N, Cin, HW, HW, device=dev, dtype=dt), r(O, Cin, k, k, device=dev, dtype=dt) * 0.1,
                                                           r(O, device=dev, dtype=dt)],
               lambda x, w, b, k=k, st=st: F.relu(F.conv2d(x, w, b, stride=st, padding=k // 2)), 2 * N * O * Ho * Ho * Cin * k * k, {})


def tensor_cores(lib, progdir, stream, reps, trials, small=False, compile_too=True):
    """kgen's products beside PyTorch (cuBLAS / cuDNN, full float32 by default) and torch.compile."""
    dev = "cpu" if small else "cuda"
    rows, failed = [], 0
    kgs = {}
    for label, entry, mk, ref, flops, opts in tc_cases(small):
        if small:  # the emulator's check: the tensor-core tiers at these tiny sizes too (kg_force_variant 6)
            opts = dict(opts, force_variant=6)
        key = tuple(sorted(opts.items()))
        if key not in kgs:
            kgs[key] = Kgen(lib, **opts)
        kg = kgs[key]
        try:
            torch.manual_seed(len(label))
            ins = mk(dev)
            e = Entry(kg, kg.load(os.path.join(progdir, "tc_bench.json")), entry, ins, stream, None if not small else 2)
            for o in e.outs:
                o.fill_(float("nan"))
            if small:
                e.run()
            else:
                with torch.cuda.stream(stream):
                    e.run()
                stream.synchronize()
            want = ref(*[t.double() for t in ins]) if small or entry.endswith("f32") else ref(*ins)
            err = rel_err(e.outs[0], want)
            tol = 2e-5 if entry.endswith("f32") and not opts.get("f32_matmul") else 2e-3 if entry.endswith("f32") else 2e-2
            ok = err < tol
            failed += not ok
            if small:
                t_k = t_t = t_c = (float("nan"),) * 3
            else:
                t_k = time_gpu(e.run, stream, reps, trials)
                t_t = time_gpu(lambda: ref(*ins), stream, reps, trials)
                t_c = (float("nan"),) * 3
                if compile_too:
                    cf = torch.compile(ref)
                    with torch.cuda.stream(stream):
                        cf(*ins)
                    t_c = time_gpu(lambda: cf(*ins), stream, reps, trials)
        except Exception as ex:  # one failing case must not hide the others
            print(f"{label}: FAILED: {ex}", flush=True)
            failed += 1
            continue
        tf = lambda us: flops / (us * 1e-6) / 1e12
        rows.append((label, e.n_kernels, err, "ok" if ok else "WRONG", t_k[0], tf(t_k[0]), tf(t_t[0]), tf(t_c[0]), t_t[0] / t_k[0], t_c[0] / t_k[0]))
        print(f"{label}: kgen {t_k[0]:.1f} us ({tf(t_k[0]):.1f} TFLOP/s), torch {t_t[0]:.1f} us, compile {t_c[0]:.1f} us, "
              f"err {err:.2e} {'ok' if ok else 'WRONG'}", flush=True)
        del ins, e
        if not small:
            torch.cuda.empty_cache()
    print()
    print("| case | kernels | rel err | check | kgen µs | kgen TFLOP/s | PyTorch TFLOP/s | torch.compile TFLOP/s | kgen / PyTorch | kgen / compile |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1e} | {r[3]} | {r[4]:.1f} | {r[5]:.1f} | {r[6]:.1f} | {r[7]:.1f} | {r[8]:.2f} | {r[9]:.2f} |")
    return rows, failed


# ---- model forwards end to end (issue 28: small-batch calls, CUDA graph replay) ----

# the table: what torch.compile is also timed on (each compilation takes a minute or two)
COMPILE_ENTRIES = ["llama_decoder_layer", "transformer_block", "gpt_forward", "mobilenet_v2_forward", "resnet18_forward",
                   "nasbert_self_attention_layer", "phi3_attention"]


def load_npy(path, dev):
    import numpy as np
    a = np.load(path, allow_pickle=False)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:  # bfloat16 bits (check/npy.c)
        t = torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    else:
        t = torch.from_numpy(np.ascontiguousarray(a))
    return t.to(dev)


def model_inputs(kgen_bin, doc, entry, dev, keepdir):
    """`kgen check --eager --keep`: checks the entry on the device against PyTorch and keeps its inputs
    (in*.npy, then the captures cap*.npy, numbered as the twin's parameters) and its eager-Python twin;
    returns (twin function, params, captures by name)."""
    import glob
    import importlib.util
    import inspect
    import subprocess
    d = os.path.join(keepdir, entry)
    r = subprocess.run([kgen_bin, "check", doc, "--entry", entry, "--device", "cuda" if dev == "cuda" else "cpu", "--eager", "--keep", d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"kgen check --device {dev}: rc {r.returncode}: {(r.stdout + r.stderr)[-600:]}")
    spec = importlib.util.spec_from_file_location("kg_twin_" + entry, os.path.join(d, entry + ".ts.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, entry)
    names = list(inspect.signature(fn).parameters)
    num = lambda p: int("".join(ch for ch in os.path.basename(p) if ch.isdigit()))
    ins = [load_npy(p, dev) for p in sorted(glob.glob(os.path.join(d, "in*.npy")), key=num)]
    caps = {names[num(p)]: load_npy(p, dev) for p in glob.glob(os.path.join(d, "cap*.npy"))}
    return fn, ins, caps


def time_cpu(fn, reps, trials):
    """The CPU check's stand-in for time_gpu: wall µs per call, median over `trials` windows."""
    for _ in range(2):
        fn()
    ts = []
    for _ in range(trials):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        ts.append((time.perf_counter() - t0) * 1e6 / reps)
    return statistics.median(ts), min(ts), max(ts)


def host_us(fn, stream, n):
    """Host µs per call: enqueue n calls back to back (CPU timer), the GPU left to drain after."""
    with torch.cuda.stream(stream):
        fn()
        stream.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        stream.synchronize()
    return (t1 - t0) * 1e6 / n


def models(lib, kgen_bin, docs, only, cpu, reps, trials, compile_too, keepdir):
    """Every entry of the model documents end to end: kgen (replayed as a CUDA graph — the default —,
    replayed launch by launch, not replayed) beside the eager-Python twin (eager PyTorch op by op:
    what a TorchSharp forward runs), torch.compile default and with CUDA graphs (reduce-overhead)
    on COMPILE_ENTRIES (or all with --compile-all); the host µs of a kgen call and of an eager call.
    --cpu: the script's own check on this machine's CPU (kgen's CPU device, perf_counter timings, no
    compile)."""
    import glob
    dev = "cpu" if cpu else "cuda"
    stream = None if cpu else torch.cuda.Stream()
    if not cpu:
        torch.set_default_device("cuda")  # the twins' factory calls (torch.zeros(...), arange) on the GPU too
    kgs = {"graphs": Kgen(lib), "replay": Kgen(lib), "none": Kgen(lib, no_replay=1)}
    timer = (lambda f: time_cpu(f, max(reps // 10, 2), trials)) if cpu else (lambda f: time_gpu(f, stream, reps, trials))
    rows, failed = [], 0
    for doc in docs:
        entries = [e["name"] for e in json.load(open(doc))["entries"]]
        for entry in entries:
            if only and entry not in only:
                continue
            try:
                torch.manual_seed(11)
                fn, ins, caps = model_inputs(kgen_bin, doc, entry, dev, keepdir)
                res = {}
                with torch.no_grad():
                    ref = fn(*ins, **caps)
                ref = list(ref) if isinstance(ref, (tuple, list)) else [ref]
                for mode, kg in kgs.items():
                    e = Entry(kg, kg.load(doc), entry, ins, stream, KG_DEVICE_CPU if cpu else KG_DEVICE_CUDA, caps)
                    os.environ["KGEN_CUDA_GRAPHS"] = "0" if mode == "replay" else "1"
                    for _ in range(2):  # the second call records the replay
                        for o in e.outs:
                            o.fill_(float("nan")) if o.is_floating_point() else o.zero_()
                        if cpu:
                            e.run()
                        else:
                            with torch.cuda.stream(stream):
                                e.run()
                            stream.synchronize()
                    err = max((rel_err(o, r) if o.is_floating_point() else float(not torch.equal(o, r)) for o, r in zip(e.outs, ref)), default=0.0)
                    t = timer(e.run)
                    h = t[0] if cpu else host_us(e.run, stream, reps)
                    res[mode] = (t[0], h, err)
                    os.environ.pop("KGEN_CUDA_GRAPHS", None)
                    n_kernels = e.n_kernels
                    del e
                with torch.no_grad():
                    t_e = timer(lambda: fn(*ins, **caps))
                    h_e = t_e[0] if cpu else host_us(lambda: fn(*ins, **caps), stream, max(reps // 5, 2))
                    t_c = t_g = (float("nan"),) * 3
                    if compile_too and not cpu and (entry in COMPILE_ENTRIES or compile_too == "all"):
                        cf = torch.compile(fn)
                        with torch.cuda.stream(stream):
                            cf(*ins, **caps)
                        t_c = timer(lambda: cf(*ins, **caps))
                        cg = torch.compile(fn, mode="reduce-overhead")
                        with torch.cuda.stream(stream):
                            for _ in range(3):  # records its graphs
                                cg(*ins, **caps)
                        t_g = timer(lambda: cg(*ins, **caps))
            except Exception as ex:  # one failing forward must not hide the others
                print(f"{entry}: FAILED: {ex}", flush=True)
                failed += 1
                continue
            err = max(r[2] for r in res.values())
            ok = err < 2e-3  # kgen's own check against PyTorch passed above; this is the binding's
            failed += not ok
            g, rp, nr = res["graphs"], res["replay"], res["none"]
            rows.append((entry, n_kernels, err, "ok" if ok else "WRONG", g[0], rp[0], nr[0], t_e[0], t_c[0], t_g[0], g[1], nr[1], h_e))
            print(f"{entry}: kgen {g[0]:.1f} / {rp[0]:.1f} / {nr[0]:.1f} us (graphs / replay / none), eager {t_e[0]:.1f} us, "
                  f"compile {t_c[0]:.1f} us, compile+graphs {t_g[0]:.1f} us, host {g[1]:.1f} / {nr[1]:.1f} us, err {err:.1e}", flush=True)
    print()
    unit = "wall µs (CPU)" if cpu else "µs (CUDA events)"
    print(f"| forward | kernels | rel err | check | kgen graphs {unit} | kgen replay, no graphs | kgen no replay | eager | "
          "torch.compile | compile + CUDA graphs | eager / kgen | compile+graphs / kgen | kgen host µs (graphs) | kgen host µs (no replay) | eager host µs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.1e} | {r[3]} | {r[4]:.1f} | {r[5]:.1f} | {r[6]:.1f} | {r[7]:.1f} | {r[8]:.1f} | {r[9]:.1f} | "
              f"{r[7] / r[4]:.2f} | {r[9] / r[4]:.2f} | {r[10]:.1f} | {r[11]:.1f} | {r[12]:.1f} |")
    return rows, failed


def main():
    args = sys.argv[1:]
    lib = args[0]
    if "--models" in args:  # the model forwards end to end; --cpu: the script's own check on the CPU device
        import glob
        opt = lambda k, d: args[args.index(k) + 1] if k in args else d
        docs = opt("--docs", "examples/models/*.json")
        docs = sorted(sum((glob.glob(p) for p in docs.split(",")), []))
        only = [e for e in opt("--entries", "").split(",") if e]
        cpu = "--cpu" in args
        if not cpu:
            props = torch.cuda.get_device_properties(0)
            print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}", flush=True)
        keep = opt("--keep", "")
        if not keep:
            import tempfile
            keep = tempfile.mkdtemp(prefix="kgen-models-")
        compile_too = False if "--no-compile" in args else "all" if "--compile-all" in args else True
        _, failed = models(lib, opt("--kgen", os.path.join(os.path.dirname(os.path.abspath(lib)), "kgen")), docs, only, cpu,
                           int(opt("--reps", "50")), int(opt("--trials", "5")), compile_too, keep)
        sys.exit(1 if failed else 0)
    if "--tensor-cores" in args:  # the products only; --small: tiny sizes on the CPU emulator (the script's own check)
        small = "--small" in args
        progdir = args[args.index("--programs") + 1] if "--programs" in args else "perf/programs"
        stream = None if small else torch.cuda.Stream()
        if not small:
            props = torch.cuda.get_device_properties(0)
            print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}", flush=True)
        _, failed = tensor_cores(lib, progdir, stream, int(args[args.index("--reps") + 1]) if "--reps" in args else 20, 5, small,
                                 "--no-compile" not in args)
        sys.exit(1 if failed else 0)
    progdir = args[args.index("--programs") + 1] if "--programs" in args else "perf/programs"
    reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 50
    trials = 7
    kg = Kgen(lib)
    stream = torch.cuda.Stream()
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}", flush=True)
    # the copy ceiling: a large device-to-device copy (bytes read + written)
    big = torch.empty(256 << 20, dtype=torch.float32, device="cuda").normal_()
    dst = torch.empty_like(big)
    t_copy, _, _ = time_gpu(lambda: dst.copy_(big), stream, 10, 5)
    copy_bw = 2 * big.numel() * 4 / (t_copy * 1e-6) / 1e12
    del big, dst
    print(f"copy ceiling: {copy_bw:.2f} TB/s (read + write, 1 GiB buffers)", flush=True)
    rows, failed = [], 0
    for name, entry, mk, ref, minbytes in cases():
        m = kg.load(os.path.join(progdir, name + ".json"))
        for R, D in SIZES:
            torch.manual_seed(R + D)
            ins = mk(R, D)
            try:
                e = Entry(kg, m, entry.format(D=D), ins, stream)
                for o in e.outs:
                    o.fill_(float("nan"))
                with torch.cuda.stream(stream):
                    e.run()
                stream.synchronize()
                want = ref(*ins)
                err = rel_err(e.outs[0], want)
                ok = err < 1e-5
                failed += not ok
                t_k = time_gpu(e.run, stream, reps, trials)
                t_t = time_gpu(lambda: ref(*ins), stream, reps, trials)
            except Exception as ex:  # one failing case must not hide the others
                print(f"{name} {R}x{D}: FAILED: {ex}", flush=True)
                failed += 1
                continue
            mb = minbytes(R, D)
            rows.append((name, f"{R}x{D}", e.n_kernels, err, "ok" if ok else "WRONG", t_k[0], t_t[0],
                         mb / (t_k[0] * 1e-6) / 1e12, mb / (t_t[0] * 1e-6) / 1e12, t_t[0] / t_k[0],
                         mb / 3.35e12 * 1e6, t_k[1], t_k[2]))
            print(f"{name} {R}x{D}: kgen {t_k[0]:.1f} us (min {t_k[1]:.1f}, max {t_k[2]:.1f}), "
                  f"torch {t_t[0]:.1f} us, err {err:.2e}", flush=True)
            del ins, e
            torch.cuda.empty_cache()
    lrows, lfailed = loops(kg, stream, reps, trials)
    failed += lfailed
    # host overhead per kg_run call: a 1-element pointwise program, GPU idle
    over = None
    rs = os.path.join(progdir, "row_sum.json")
    if os.path.exists(rs):
        x = torch.randn(1, 1, device="cuda")
        e = Entry(kg, kg.load(rs), "row_sum", [x], stream)
        n = 2000
        with torch.cuda.stream(stream):
            for _ in range(50):
                e.run()
            stream.synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                e.run()
            t1 = time.perf_counter()
            stream.synchronize()
            for _ in range(50):
                x.sum(-1)
            stream.synchronize()
            t2 = time.perf_counter()
            for _ in range(n):
                x.sum(-1)
            t3 = time.perf_counter()
            stream.synchronize()
        over = ((t1 - t0) / n * 1e6, (t3 - t2) / n * 1e6)
    print()
    print(f"GPU: {props.name}; copy ceiling {copy_bw:.2f} TB/s; CUDA-event medians of {trials} windows x {reps} calls")
    print()
    print("| program | size | kernels | rel err | check | kgen µs | eager µs | kgen TB/s | eager TB/s | eager/kgen | "
          "floor µs @3.35 | kgen min–max µs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.1e} | {r[4]} | {r[5]:.1f} | {r[6]:.1f} | {r[7]:.2f} | {r[8]:.2f} | "
              f"{r[9]:.2f} | {r[10]:.1f} | {r[11]:.1f}–{r[12]:.1f} |")
    if lrows:
        print()
        print("| loop | size | kernels | rel err | check | kgen µs / sequence | eager op by op µs | eager matmul µs | "
              "op by op / kgen | matmul / kgen |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in lrows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.1e} | {r[4]} | {r[5]:.1f} | {r[6]:.1f} | {r[7]:.1f} | "
                  f"{r[6] / r[5]:.2f} | {r[7] / r[5]:.2f} |")
    if over:
        print()
        print(f"host time per call (1x1 row_sum, Python ctypes caller): kg_run {over[0]:.1f} µs, "
              f"eager x.sum(-1) {over[1]:.1f} µs")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
