# kgen: TorchScript twin of entry 'class_' (generated: one torch call per op)


def class_(x: torch.Tensor, in_: torch.Tensor, x_1: torch.Tensor, t0_: torch.Tensor, my_var: torch.Tensor, _kg_idiv_: torch.Tensor, p1abc: torch.Tensor, torch_: torch.Tensor, x_1_1: torch.Tensor, w: torch.Tensor):
    t10 = torch.add(x, w)  # %10
    t11 = torch.add(t10, in_)  # %11
    t12 = torch.add(t11, x_1)  # %12
    t13 = torch.add(t12, t0_)  # %13
    t14 = torch.add(t13, my_var)  # %14
    t15 = torch.add(t14, _kg_idiv_)  # %15
    t16 = torch.add(t15, p1abc)  # %16
    t17 = torch.add(t16, torch_)  # %17
    t18 = torch.add(t17, x_1_1)  # %18
    return t18, x_1
