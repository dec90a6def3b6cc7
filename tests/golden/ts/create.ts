# kgen: TorchScript twin of entry 'create' (generated: one torch call per op)


def create(x: torch.Tensor, s: torch.Tensor):
    t1 = int(s)  # %1
    t2 = x.to(torch.int32)  # %2
    t3 = x.to(torch.float16)  # %3
    t4 = t3.to(torch.float64)  # %4
    t6 = torch.full_like(x, 0.10000000149011612, dtype=torch.float32)  # %6
    t8 = torch.zeros_like(x, dtype=torch.int32)  # %8
    t10 = torch.ones_like(x, dtype=torch.bool)  # %10
    t12 = torch.zeros_like(x, dtype=torch.float64)  # %12
    t13 = torch.full([], t1, dtype=torch.int64)  # %13
    t15 = torch.full([], 1e-300, dtype=torch.float64)  # %15
    t17 = torch.full([], 1.2345678901234568e-300, dtype=torch.float64)  # %17
    t19 = torch.add(x, float('nan'))  # %19
    t21 = torch.mul(x, float('-inf'))  # %21
    t23 = torch.add(x, -0.0)  # %23
    t25 = torch.full([], (-9223372036854775807 - 1), dtype=torch.int64)  # %25
    t27 = torch.mul(x, torch.full([], 1, dtype=torch.float32))  # %27
    t28 = torch.add(x, t1)  # %28
    return t2, t4, t6, t8, t10, t12, t13, t15, t17, t19, t21, t23, t25, t27, t28
