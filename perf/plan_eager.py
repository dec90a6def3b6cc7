#!/usr/bin/env python3
"""perf/plan_eager.py -- the eager-PyTorch baseline of perf/bench_plan: the same loops as
examples/cf_rnn_elman, cf_lstm and cf_for_scalar_bound, written op by op exactly as the F#
does them (one torch call per F# op), on the CPU, at the same tiny sizes, so the time is
PyTorch's per-op dispatch overhead (what a compiled loop removes).

  python3 perf/plan_eager.py PROGRAM STEPS REPS   ->  prints "<best seconds per run> <ops per step>"
"""
import sys
import time

import torch


def elman(T):
    x, wx, wh, b, h = torch.zeros(T, 3, 5), torch.zeros(5, 6), torch.zeros(6, 6), torch.zeros(6), torch.zeros(3, 6)

    def run():
        hh = h
        for t in range(T):                                    # 10 ops per step
            xt = x.select(0, t).unsqueeze(-1)
            a = (xt * wx).sum(1)
            c = (hh.unsqueeze(-1) * wh).sum(1)
            hh = torch.tanh(a + c + b)
        return hh
    return run, 10


def lstm(T):
    x, w, u, b = torch.zeros(T, 2, 4), torch.zeros(4, 4, 5), torch.zeros(5, 4, 5), torch.zeros(4, 5)
    h0, c0 = torch.zeros(2, 5), torch.zeros(2, 5)

    def run():
        h, c = h0, c0
        for t in range(T):                                    # 26 ops per step
            z = (x.select(0, t).unsqueeze(-1).unsqueeze(-1) * w).sum(1) + \
                (h.unsqueeze(-1).unsqueeze(-1) * u).sum(1) + b
            c2 = torch.sigmoid(z.select(1, 1)) * c + torch.sigmoid(z.select(1, 0)) * torch.tanh(z.select(1, 2))
            h = torch.sigmoid(z.select(1, 3)) * torch.tanh(c2)
            c = c2
        return h, c
    return run, 26


def scalar_bound(T):
    x = torch.zeros(4, 33)

    def run():
        y = x
        for i in range(1, T + 1):                             # 2 ops per step
            y = y * 0.5 + float(i)
        return y
    return run, 2


def main():
    prog, steps, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    run, ops = {"cf_rnn_elman": elman, "cf_lstm": lstm, "cf_for_scalar_bound": scalar_bound}[prog](steps)
    run()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    print("%.9f %d" % (best, ops))


if __name__ == "__main__":
    main()
