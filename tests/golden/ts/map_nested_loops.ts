# kgen: TorchScript twin of entry 'loops' (generated: one torch call per op)

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


def loops(x: torch.Tensor):
    # map fn0 over (%0)  # %1
    t1_a0 = x
    t1_m0 = torch.ones_like(t1_a0, dtype=torch.bool)
    t1_v0 = torch.zeros_like(t1_m0, dtype=torch.int32)  # total: int32
    t1_v1 = torch.zeros_like(t1_m0, dtype=torch.int32)  # i: int32
    t1_v2 = torch.zeros_like(t1_m0, dtype=torch.int32)  # j: int32
    t1_v3 = torch.zeros_like(t1_m0, dtype=torch.bool)  # flag: bool
    t1_v0 = torch.where(t1_m0, 0, t1_v0)
    t1_v1 = torch.where(t1_m0, 0, t1_v1)
    t1_l0 = t1_m0
    while True:
        t1_m1 = torch.logical_and(t1_l0, torch.lt(t1_v1, t1_a0))
        if not bool(t1_m1.any()):
            break
        t1_v2 = torch.where(t1_m1, 0, t1_v2)
        t1_l1 = t1_m1
        while True:
            t1_m2 = torch.logical_and(t1_l1, torch.full_like(t1_m0, 1, dtype=torch.bool))
            if not bool(t1_m2.any()):
                break
            t1_c0 = torch.ge(t1_v2, t1_v1)
            t1_m3 = torch.logical_and(t1_m2, t1_c0)
            t1_m2 = torch.logical_and(t1_m2, torch.logical_not(t1_m3))
            t1_m3 = torch.zeros_like(t1_m3)
            t1_c1 = torch.eq(_kg_imod(torch.add(t1_v1, t1_v2), torch.full_like(t1_m0, 3, dtype=torch.int32), True, False), 0)
            t1_m4 = torch.logical_and(t1_m2, t1_c1)
            t1_m2 = torch.logical_and(t1_m2, torch.logical_not(t1_m4))
            t1_m4 = torch.zeros_like(t1_m4)
            t1_v0 = torch.where(t1_m2, torch.add(t1_v0, 1), t1_v0)
            t1_v2 = torch.where(t1_m2, torch.add(t1_v2, 1), t1_v2)
            t1_l1 = t1_m2
        t1_v3 = torch.where(t1_m1, torch.gt(t1_v0, 10), t1_v3)
        t1_c2 = t1_v3
        t1_m5 = torch.logical_and(t1_m1, t1_c2)
        t1_m1 = torch.logical_and(t1_m1, torch.logical_not(t1_m5))
        t1_m5 = torch.zeros_like(t1_m5)
        t1_v1 = torch.where(t1_m1, torch.add(t1_v1, 1), t1_v1)
        t1_l0 = t1_m1
    t1 = t1_v0  # %1
    return t1
