# kgen: TorchScript twin of entry 'chain_f16_swiglu' (generated: one torch call per op)


def chain_f16_swiglu(xg: torch.Tensor, xu: torch.Tensor):
    t2 = torch.nn.functional.silu(xg)  # %2 $.entries[0].expr.body.body.args[0]
    t3 = torch.mul(t2, xu)  # %3 $.entries[0].expr.body.body
    return t3
