# kgen: TorchScript twin of entry 'map_while_collatz' (generated: one torch call per op)

def _kg_idiv(a: torch.Tensor, b: torch.Tensor, signed: bool) -> torch.Tensor:
    # integer a / b truncated toward zero (.NET /); x / 0 = 0 and MIN / -1 = MIN, no trap
    z = b == 0
    if signed:
        n = b == -1
    else:
        n = torch.zeros_like(z)
    q = torch.div(a, torch.where(torch.logical_or(z, n), torch.ones_like(b), b), rounding_mode='trunc')
    q = torch.where(n, torch.neg(a), q)
    return torch.where(z, torch.zeros_like(q), q)

def _kg_imod(a: torch.Tensor, b: torch.Tensor, signed: bool, floored: bool) -> torch.Tensor:
    # integer remainder (floored: Python %, else truncated: .NET %); x % 0 = 0, no trap on MIN % -1
    bad = b == 0
    if signed:
        bad = torch.logical_or(bad, b == -1)
    s = torch.where(bad, torch.ones_like(b), b)
    if floored:
        r = torch.remainder(a, s)
    else:
        r = torch.fmod(a, s)
    return r


def map_while_collatz(x: torch.Tensor):
    # map fn0 over (%0)  # %1 $.entries[0].expr.body
    t1_a0 = x
    t1_m0 = torch.ones_like(t1_a0, dtype=torch.bool)
    t1_v0 = torch.zeros_like(t1_m0, dtype=torch.int32)  # n: int32
    t1_v1 = torch.zeros_like(t1_m0, dtype=torch.int32)  # steps: int32
    t1_v2 = torch.zeros_like(t1_m0, dtype=torch.int32)  # n: int32
    t1_v3 = torch.zeros_like(t1_m0, dtype=torch.bool)  # if: bool
    t1_v4 = torch.zeros_like(t1_m0, dtype=torch.int32)  # steps: int32
    t1_v5 = torch.zeros_like(t1_m0, dtype=torch.int32)  # n: int32
    t1_v6 = torch.zeros_like(t1_m0, dtype=torch.int32)  # n: int32
    t1_v7 = torch.zeros_like(t1_m0, dtype=torch.int32)  # n: int32
    t1_v8 = torch.zeros_like(t1_m0, dtype=torch.int32)  # steps: int32
    t1_v9 = torch.zeros_like(t1_m0, dtype=torch.int32)  # steps: int32
    t1_v10 = torch.zeros_like(t1_m0, dtype=torch.int32)  # ret: int32
    t1_v0 = torch.add(torch.mul(torch.abs(t1_a0), 7), 1)
    t1_v1 = torch.where(t1_m0, 0, t1_v1)
    t1_l0 = t1_m0
    while True:
        t1_m1 = torch.logical_and(t1_l0, torch.full_like(t1_m0, 1, dtype=torch.bool))
        if not bool(t1_m1.any()):
            break
        t1_v2 = torch.where(t1_m1, t1_v0, t1_v2)
        t1_v3 = torch.where(t1_m1, torch.full_like(t1_m0, 0, dtype=torch.bool), t1_v3)
        t1_c0 = torch.ne(t1_v2, 1)
        t1_m2 = torch.logical_and(t1_m1, t1_c0)
        t1_m3 = torch.logical_and(t1_m1, torch.logical_not(t1_c0))
        t1_v4 = torch.where(t1_m2, t1_v1, t1_v4)
        t1_v3 = torch.where(t1_m2, torch.lt(t1_v4, 1000), t1_v3)
        t1_v3 = torch.where(t1_m3, torch.full_like(t1_m0, 0, dtype=torch.bool), t1_v3)
        t1_c1 = torch.logical_not(t1_v3)
        t1_m4 = torch.logical_and(t1_m1, t1_c1)
        t1_m1 = torch.logical_and(t1_m1, torch.logical_not(t1_m4))
        t1_m4 = torch.zeros_like(t1_m4)
        t1_v5 = torch.where(t1_m1, t1_v0, t1_v5)
        t1_c2 = torch.eq(_kg_imod(t1_v5, torch.full_like(t1_m0, 2, dtype=torch.int32), True, False), 0)
        t1_m5 = torch.logical_and(t1_m1, t1_c2)
        t1_m6 = torch.logical_and(t1_m1, torch.logical_not(t1_c2))
        t1_v6 = torch.where(t1_m5, t1_v0, t1_v6)
        t1_v0 = torch.where(t1_m5, _kg_idiv(t1_v6, torch.full_like(t1_m0, 2, dtype=torch.int32), True), t1_v0)
        t1_v7 = torch.where(t1_m6, t1_v0, t1_v7)
        t1_v0 = torch.where(t1_m6, torch.add(torch.mul(3, t1_v7), 1), t1_v0)
        t1_v8 = torch.where(t1_m1, t1_v1, t1_v8)
        t1_v1 = torch.where(t1_m1, torch.add(t1_v8, 1), t1_v1)
        t1_l0 = t1_m1
    t1_v9 = t1_v1
    t1_v10 = t1_v9
    t1 = t1_v10  # %1 $.entries[0].expr.body
    return t1
