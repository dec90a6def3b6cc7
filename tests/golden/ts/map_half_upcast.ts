# kgen: TorchScript twin of entry 'map_half' (generated: one torch call per op)
# reference mode: float16/bfloat16 values are carried as float32 and rounded after every op


def map_half(x: torch.Tensor):
    t0 = x.float()  # %0
    # map fn0 over (%0)  # %1
    t1_a0 = t0
    t1_m0 = torch.ones_like(t1_a0, dtype=torch.bool)
    t1 = torch.add(torch.mul(t1_a0, t1_a0).to(torch.float16).float(), 1.0).to(torch.float16).float()  # %1
    # map fn1 over (%0)  # %2
    t2_a0 = t0
    t2_m0 = torch.ones_like(t2_a0, dtype=torch.bool)
    t2 = torch.full_like(t2_m0, 1, dtype=torch.int32)  # %2
    return t1.to(torch.float16), t2
