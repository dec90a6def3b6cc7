# kgen: TorchScript twin of entry 'cf_rnn_elman' (generated: one torch call per op)


def cf_rnn_elman(x: torch.Tensor, wx: torch.Tensor, wh: torch.Tensor, b: torch.Tensor, h0: torch.Tensor):
    t8 = h0
    for t7 in range(int(0), int(6) + 1):  # %7 $.entries[0].expr.body.body.body.body.body.body.first
        t9 = int(torch.full([], t7, dtype=torch.int32).to(torch.int64))  # %9 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[0].obj.args[0].obj.args[0]
        t10 = torch.select(x, 0, int(t9))  # %10 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[0].obj.args[0].obj
        t11 = t10.reshape([3, 5, 1])  # %11 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[0].obj.args[0]
        t12 = torch.mul(t11, wx)  # %12 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[0].obj
        t13 = torch.sum(t12, dim=[1], keepdim=False)  # %13 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[0]
        t14 = t8.reshape([3, 6, 1])  # %14 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[1].obj.args[0]
        t15 = torch.mul(t14, wh)  # %15 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[1].obj
        t16 = torch.sum(t15, dim=[1], keepdim=False)  # %16 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0].args[1]
        t17 = torch.add(t13, t16)  # %17 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0].args[0]
        t18 = torch.add(t17, b)  # %18 $.entries[0].expr.body.body.body.body.body.body.first.body.value.args[0]
        t19 = torch.tanh(t18)  # %19 $.entries[0].expr.body.body.body.body.body.body.first.body.value
        t8 = t19
    t20 = t8
    return t20
