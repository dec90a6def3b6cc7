# kgen: TorchScript twin of entry 'half_chain' (generated: one torch call per op)
# reference mode: float16/bfloat16 values are carried as float32 and rounded after every op


def half_chain(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor):
    t0 = x.float()  # %0
    t1 = y.float()  # %1
    t3 = torch.tanh(t0).to(torch.float16).float()  # %3
    t5 = torch.mul(t3, 0.0999755859375).to(torch.float16).float()  # %5
    t6 = torch.add(t5, z.to(torch.float16).float()).to(torch.float16).float()  # %6
    t7 = torch.exp(t1).to(torch.bfloat16).float()  # %7
    t8 = torch.add(t6, t7)  # %8
    t9 = t8.to(torch.float16).float()  # %9
    t11 = torch.mul(t0, float('inf')).to(torch.float16).float()  # %11
    t12 = torch.nan_to_num(t11, nan=0.0, posinf=65504.0, neginf=-65504.0).to(torch.float16).float()  # %12
    t14 = torch.full_like(t0, 0.1, dtype=torch.float16).float()  # %14
    t15 = torch.eq(t0, z.to(torch.float16).float())  # %15
    t17 = torch.eq(t14, 0.0999755859375)  # %17
    return t6.to(torch.float16), t7.to(torch.bfloat16), t8, t9.to(torch.float16), t12.to(torch.float16), t14.to(torch.float16), t15, t17
