# kgen: TorchScript twin of entry 'cf_nested_mixed' (generated: one torch call per op)

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


def cf_nested_mixed(x: torch.Tensor, n: torch.Tensor):
    t1 = int(n)  # %1 $.entries[0].expr.body
    t3 = torch.mul(x, 0.009999999776482582)  # %3 $.entries[0].expr.body.body.value
    t7 = t3
    t8 = 0
    for t6 in range(int(1), int(t1) + 1):  # %6 $.entries[0].expr.body.body.body.body.first
        t10 = int(_kg_imod(torch.full([], t6, dtype=torch.int32), torch.full([], 2, dtype=torch.int32), True, False))  # %10 $.entries[0].expr.body.body.body.body.first.body.first.cond.args[0]
        t12 = bool(torch.eq(torch.full([], t10, dtype=torch.int32), 0))  # %12 $.entries[0].expr.body.body.body.body.first.body.first.cond
        if t12:
            t14 = torch.mul(t7, 0.5)  # %14 $.entries[0].expr.body.body.body.body.first.body.first.then.value
            t26 = t14
        else:
            t15 = t7
            while True:
                t16 = torch.abs(t15)  # %16 $.entries[0].expr.body.body.body.body.first.body.first.else.cond.args[0].obj.obj
                t17 = torch.max(t16)  # %17 $.entries[0].expr.body.body.body.body.first.body.first.else.cond.args[0].obj
                t18 = float(t17.item())  # %18 $.entries[0].expr.body.body.body.body.first.body.first.else.cond.args[0]
                t20 = bool(torch.lt(torch.full([], t18, dtype=torch.float32), 4.0))  # %20 $.entries[0].expr.body.body.body.body.first.body.first.else.cond
                if not t20:
                    break
                t22 = torch.mul(t15, 2.0)  # %22 $.entries[0].expr.body.body.body.body.first.body.first.else.body.value.args[0]
                t24 = torch.add(t22, 0.10000000149011612)  # %24 $.entries[0].expr.body.body.body.body.first.body.first.else.body.value
                t15 = t24
            t25 = t15
            t26 = t25
        t28 = int(torch.add(torch.full([], t8, dtype=torch.int32), 1))  # %28 $.entries[0].expr.body.body.body.body.first.body.second.value
        t7 = t26
        t8 = t28
    t29 = t7
    t30 = t8
    return t29, torch.full([], t30, dtype=torch.int32)
