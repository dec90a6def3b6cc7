# kgen: TorchScript twin of entry 'linear_gelu_residual' (generated: one torch call per op)


def linear_gelu_residual(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, r: torch.Tensor):
    t4 = torch.nn.functional.linear(x, w, b)  # %4 $.entries[0].expr.body.body.body.body.args[0].args[0]
    t5 = torch.nn.functional.gelu(t4)  # %5 $.entries[0].expr.body.body.body.body.args[0]
    t6 = torch.add(t5, r)  # %6 $.entries[0].expr.body.body.body.body
    return t6
