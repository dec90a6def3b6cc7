# kgen: TorchScript twin of entry 'net_scalars' (generated: one torch call per op)

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

def _kg_sat_int32(v: torch.Tensor) -> torch.Tensor:
    # float -> int32 as kernels convert: truncate, saturate, NaN -> 0
    return torch.clamp(torch.nan_to_num(v.to(torch.float64), nan=0.0), -2147483648.0, 2147483647.0).to(torch.int32)


def net_scalars(a: torch.Tensor, b: torch.Tensor, f: torch.Tensor, x: torch.Tensor):
    t0 = int(a)  # %0
    t1 = int(b)  # %1
    t2 = float(f)  # %2
    t4 = int(_kg_idiv(torch.full([], t0, dtype=torch.int32), torch.full([], t1, dtype=torch.int32), True))  # %4 $.entries[0].expr.body.value
    t5 = int(_kg_imod(torch.full([], t0, dtype=torch.int32), torch.full([], t1, dtype=torch.int32), True, False))  # %5
    t7 = int(torch.add(torch.full([], t0, dtype=torch.int32), 2147483647))  # %7
    t9 = int(torch.bitwise_left_shift(torch.full([], t0, dtype=torch.int32), 1))  # %9
    t11 = float(torch.mul(torch.full([], t2, dtype=torch.float32), 1e+30))  # %11
    t12 = int(_kg_sat_int32(torch.full([], t11, dtype=torch.float32)))  # %12
    t14 = float(torch.div(torch.full([], t2, dtype=torch.float32), 0.0))  # %14
    t15 = float(torch.sqrt(torch.full([], t2, dtype=torch.float32)))  # %15
    t16 = bool(torch.lt(torch.full([], t0, dtype=torch.int32), torch.full([], t1, dtype=torch.int32)))  # %16
    t19 = float(torch.div(torch.full([], 1.0, dtype=torch.float32), 3.0))  # %19
    t20 = torch.full([], t4, dtype=torch.int32)  # %20
    t21 = torch.full([], t5, dtype=torch.int32)  # %21
    t22 = torch.full([], t7, dtype=torch.int32)  # %22
    t23 = torch.full([], t9, dtype=torch.int32)  # %23
    t24 = torch.full([], t12, dtype=torch.int32)  # %24
    t25 = torch.full([], t14, dtype=torch.float32)  # %25
    t26 = torch.full([], t15, dtype=torch.float32)  # %26
    t27 = torch.full([], int(t16), dtype=torch.bool)  # %27
    t28 = torch.full([], t19, dtype=torch.float32)  # %28
    t29 = torch.mul(x, t4)  # %29
    return t20, t21, t22, t23, t24, t25, t26, t27, t28, t29
