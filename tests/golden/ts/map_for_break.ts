# kgen: TorchScript twin of entry 'for_break' (generated: one torch call per op)


def for_break(x: torch.Tensor, y: torch.Tensor):
    # map fn0 over (%0, %1)  # %2
    t2_a0, t2_a1 = torch.broadcast_tensors(x, y)
    t2_m0 = torch.ones_like(t2_a0, dtype=torch.bool)
    t2_v0 = torch.zeros_like(t2_m0, dtype=torch.float32)  # acc: float32
    t2_v1 = torch.zeros_like(t2_m0, dtype=torch.int32)  # i: int32
    t2_v0 = torch.where(t2_m0, 0.0, t2_v0)
    t2_v1 = torch.where(t2_m0, 0, t2_v1)
    t2_l0 = t2_m0
    while True:
        t2_m1 = torch.logical_and(t2_l0, torch.le(t2_v1, t2_a0))
        if not bool(t2_m1.any()):
            break
        t2_c0 = torch.eq(t2_v1, 5)
        t2_m2 = torch.logical_and(t2_m1, t2_c0)
        t2_c1 = torch.gt(t2_a1, 0.0)
        t2_m3 = torch.logical_and(t2_m2, t2_c1)
        # Model.fs:7 break
        t2_m1 = torch.logical_and(t2_m1, torch.logical_not(t2_m3))
        t2_m2 = torch.logical_and(t2_m2, torch.logical_not(t2_m3))
        t2_m3 = torch.zeros_like(t2_m3)
        t2_v0 = torch.where(t2_m1, torch.add(t2_v0, torch.mul(t2_a1, t2_v1.to(torch.float32))), t2_v0)
        t2_v1 = torch.where(t2_m1, torch.add(t2_v1, 1), t2_v1)
        t2_l0 = t2_m1
    t2 = t2_v0  # %2
    return t2
