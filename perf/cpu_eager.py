#!/usr/bin/env python3
"""perf/cpu_eager.py -- the eager-PyTorch baseline of perf/bench_cpu: one model forward, the
eager-Python twin kgen emits for it (one torch call per op of the F# forward), on the same inputs
(.npy files), on the CPU, with as many intra-op threads as kgen's CPU device uses.

  python3 perf/cpu_eager.py TWIN.py FN THREADS REPS IN0.npy ... [--capture NAME=C.npy ...]
      ->  prints "<median wall seconds per call> <median CPU seconds per call (every thread)>"

bfloat16 arrives as numpy's 2-byte void dtype holding the raw bits (check/npy.c), as the oracle
reads it. The twin runs inside torch.no_grad(), as an inference forward does.
"""
import importlib.util
import statistics
import sys
import time

import numpy as np
import torch


def load(path):
    a = np.load(path, allow_pickle=False)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:  # bfloat16 bits
        t = torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    else:
        t = torch.from_numpy(np.ascontiguousarray(a))
    return t


def main():
    twin, fn, threads, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    args, caps = [], {}
    for a in sys.argv[5:]:
        if a.startswith("--capture="):
            name, path = a[len("--capture="):].split("=", 1)
            caps[name] = load(path)
        else:
            args.append(load(a))
    torch.set_num_threads(threads)
    spec = importlib.util.spec_from_file_location("kg_twin", twin)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = getattr(mod, fn)
    times, cpu = [], []
    with torch.no_grad():
        for _ in range(2):  # warm-up: allocator, oneDNN primitives
            f(*args, **caps)
        for _ in range(reps):
            t0, c0 = time.perf_counter(), time.process_time()
            f(*args, **caps)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    print(statistics.median(times), statistics.median(cpu))


if __name__ == "__main__":
    main()
