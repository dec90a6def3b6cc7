# kgen: TorchScript twin of entry 'bits' (generated: one torch call per op)

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

def _kg_floordiv(a: torch.Tensor, b: torch.Tensor, signed: bool) -> torch.Tensor:
    # integer floor(a / b); x / 0 = 0 and MIN / -1 = MIN, no trap
    z = b == 0
    if signed:
        n = b == -1
    else:
        n = torch.zeros_like(z)
    q = torch.div(a, torch.where(torch.logical_or(z, n), torch.ones_like(b), b), rounding_mode='floor')
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

def _kg_shl(a: torch.Tensor, b: torch.Tensor, bits: int) -> torch.Tensor:
    # a << b; a count outside [0, bits) gives 0
    ok = torch.logical_and(b >= 0, b < bits)
    r = torch.bitwise_left_shift(a, torch.where(ok, b, torch.zeros_like(b)))
    return torch.where(ok, r, torch.zeros_like(r))

def _kg_shr(a: torch.Tensor, b: torch.Tensor, bits: int, signed: bool) -> torch.Tensor:
    # a >> b (arithmetic when signed); a count outside [0, bits) fills with the sign
    ok = torch.logical_and(b >= 0, b < bits)
    r = torch.bitwise_right_shift(a, torch.where(ok, b, torch.zeros_like(b)))
    if signed:
        fill = torch.where(a < 0, torch.full_like(r, -1), torch.zeros_like(r))
    else:
        fill = torch.zeros_like(r)
    return torch.where(ok, r, fill)


def bits(a: torch.Tensor, b: torch.Tensor, u: torch.Tensor, c: torch.Tensor):
    t4 = torch.bitwise_and(a, b)  # %4
    t6 = torch.bitwise_or(a, 3)  # %6
    t7 = torch.bitwise_xor(a, b)  # %7
    t8 = torch.bitwise_not(a)  # %8
    t10 = torch.bitwise_left_shift(a, 2)  # %10
    t11 = torch.bitwise_left_shift(a, torch.bitwise_and(b, 31))  # %11
    t13 = torch.bitwise_right_shift(u, 1)  # %13
    t14 = _kg_idiv(a, b, True)  # %14
    # map fn0 over (%0, %1)  # %15
    t15_a0, t15_a1 = torch.broadcast_tensors(a, b)
    t15_m0 = torch.ones_like(t15_a0, dtype=torch.bool)
    t15 = _kg_shl(t15_a0, t15_a1, 32)  # %15
    # map fn1 over (%0, %1)  # %16
    t16_a0, t16_a1 = torch.broadcast_tensors(a, b)
    t16_m0 = torch.ones_like(t16_a0, dtype=torch.bool)
    t16 = _kg_shr(t16_a0, t16_a1, 32, True)  # %16
    # map fn2 over (%0, %1)  # %17
    t17_a0, t17_a1 = torch.broadcast_tensors(a, b)
    t17_m0 = torch.ones_like(t17_a0, dtype=torch.bool)
    t17 = _kg_floordiv(t17_a0, t17_a1, True)  # %17
    # map fn3 over (%0, %1)  # %18
    t18_a0, t18_a1 = torch.broadcast_tensors(a, b)
    t18_m0 = torch.ones_like(t18_a0, dtype=torch.bool)
    t18 = _kg_imod(t18_a0, t18_a1, True, True)  # %18
    # map fn4 over (%0, %1)  # %19
    t19_a0, t19_a1 = torch.broadcast_tensors(a, b)
    t19_m0 = torch.ones_like(t19_a0, dtype=torch.bool)
    t19 = _kg_idiv(t19_a0, t19_a1, True)  # %19
    # map fn5 over (%2, %3)  # %20
    t20_a0, t20_a1 = torch.broadcast_tensors(u, c)
    t20_m0 = torch.ones_like(t20_a0, dtype=torch.bool)
    t20 = _kg_shr(t20_a0, t20_a1, 8, False)  # %20
    # map fn6 over (%2, %3)  # %21
    t21_a0, t21_a1 = torch.broadcast_tensors(u, c)
    t21_m0 = torch.ones_like(t21_a0, dtype=torch.bool)
    t21 = _kg_idiv(t21_a0, t21_a1, False)  # %21
    # map fn7 over (%0, %1)  # %22
    t22_a0, t22_a1 = torch.broadcast_tensors(a, b)
    t22_m0 = torch.ones_like(t22_a0, dtype=torch.bool)
    t22 = torch.bitwise_right_shift(t22_a0, torch.bitwise_and(t22_a1, 31))  # %22
    return t4, t6, t7, t8, t10, t11, t13, t14, t15, t16, t17, t18, t19, t20, t21, t22
