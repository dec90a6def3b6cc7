# kgen: TorchScript twin of entry 'scalar_param_f32' (generated: one torch call per op)


def scalar_param_f32(x: torch.Tensor, s: torch.Tensor):
    t1 = float(s)  # %1 $.entries[0].expr.body
    t2 = torch.mul(x, t1)  # %2 $.entries[0].expr.body.body.args[0]
    t3 = torch.add(t2, t1)  # %3 $.entries[0].expr.body.body
    return t3
