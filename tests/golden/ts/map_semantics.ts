# kgen: TorchScript twin of entry 'semantics' (generated: one torch call per op)

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

def _kg_ipow(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # integer a ** b (wraps); a negative exponent gives 0 unless |a| = 1
    neg = b < 0
    p = torch.pow(a, torch.where(neg, torch.zeros_like(b), b))
    one = torch.ones_like(p)
    q = torch.where(a == 1, one, torch.zeros_like(p))
    q = torch.where(a == -1, torch.where(torch.bitwise_and(b, 1) != 0, torch.neg(one), one), q)
    return torch.where(neg, q, p)

def _kg_sat_int32(v: torch.Tensor) -> torch.Tensor:
    # float -> int32 as kernels convert: truncate, saturate, NaN -> 0
    return torch.clamp(torch.nan_to_num(v.to(torch.float64), nan=0.0), -2147483648.0, 2147483647.0).to(torch.int32)


def semantics(a: torch.Tensor, b: torch.Tensor, s: torch.Tensor):
    t2 = int(s)  # %2
    # map fn0 over (%0, %1, %2)  # %3
    t3_a0, t3_a1, t3_a2 = torch.broadcast_tensors(a.to(torch.float32), b, torch.full([], t2, dtype=torch.int32, device=a.device))
    t3_m0 = torch.ones_like(t3_a0, dtype=torch.bool)
    t3_v0 = torch.zeros_like(t3_m0, dtype=torch.int32)  # v: int32
    t3_v1 = torch.zeros_like(t3_m0, dtype=torch.int32)  # w: int32
    t3_v2 = torch.zeros_like(t3_m0, dtype=torch.int32)  # r: int32
    t3_v0 = _kg_sat_int32(t3_a0)
    t3_v1 = torch.where(torch.gt(t3_a1, 0), torch.bitwise_left_shift(t3_a1, 3), torch.neg(t3_a1))
    t3_v2 = torch.add(torch.add(torch.add(_kg_idiv(t3_v0, t3_a1, True), torch.mul(_kg_imod(t3_v0, t3_a1, True, False), 7)), t3_v1), _kg_ipow(t3_a2, t3_a1))
    t3 = t3_v2.to(torch.int64)  # %3
    return t3
