# kgen: TorchScript twin of entry 'half_chain' (generated: one torch call per op)


def half_chain(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor):
    t3 = torch.tanh(x)  # %3
    t5 = torch.mul(t3, 0.1)  # %5
    t6 = torch.add(t5, z)  # %6
    t7 = torch.exp(y)  # %7
    t8 = torch.add(t6, t7)  # %8
    t9 = t8.to(torch.float16)  # %9
    t11 = torch.mul(x, float('inf'))  # %11
    t12 = torch.nan_to_num(t11, nan=0.0)  # %12
    t14 = torch.full_like(x, 0.1, dtype=torch.float16)  # %14
    t15 = torch.eq(x, z)  # %15
    t17 = torch.eq(t14, 0.1)  # %17
    return t6, t7, t8, t9, t12, t14, t15, t17
