# kgen: TorchScript twin of entry 'multi_out_3tuple_shapes' (generated: one torch call per op)


def multi_out_3tuple_shapes(x: torch.Tensor, b: torch.Tensor):
    t2 = torch.add(x, b)  # %2 $.entries[0].expr.body.body.items[0]
    t3 = torch.exp(b)  # %3 $.entries[0].expr.body.body.items[1]
    t5 = torch.gt(x, 0.0)  # %5 $.entries[0].expr.body.body.items[2]
    return t2, t3, t5
