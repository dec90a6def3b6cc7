# kgen: TorchScript twin of entry 'attrs' (generated: one torch call per op)

def _kg_cbrt(a: torch.Tensor) -> torch.Tensor:
    # cube root with the sign of a (PyTorch has no cbrt; not correctly rounded)
    return torch.sign(a) * torch.pow(torch.abs(a), 1.0 / 3.0)


def attrs(x: torch.Tensor, y: torch.Tensor, s: torch.Tensor):
    t2 = float(s)  # %2
    t3 = torch.nn.functional.gelu(x, approximate='tanh')  # %3
    t4 = torch.nn.functional.gelu(x)  # %4
    t5 = torch.nn.functional.softplus(x, beta=2.0, threshold=10.0)  # %5
    t6 = torch.nn.functional.leaky_relu(x, negative_slope=0.1)  # %6
    t7 = torch.nn.functional.elu(x, alpha=1.0)  # %7
    t8 = torch.ops.aten.elu(x, 1.5, 2.0, 0.5)  # %8
    t9 = torch.celu(x, alpha=2.0)  # %9
    t10 = torch.selu(x)  # %10
    t11 = torch.nn.functional.hardtanh(x, min_val=-2.0, max_val=2.0)  # %11
    t12 = torch.nn.functional.relu6(x)  # %12
    t13 = torch.nn.functional.hardsigmoid(x)  # %13
    t14 = torch.nn.functional.hardswish(x)  # %14
    t15 = torch.nn.functional.mish(x)  # %15
    t16 = torch.nn.functional.logsigmoid(x)  # %16
    t17 = torch.nn.functional.silu(x)  # %17
    t18 = torch.relu(x)  # %18
    t19 = torch.round(x, decimals=2)  # %19
    t20 = torch.round(x)  # %20
    t21 = torch.logit(x, eps=0.1)  # %21
    t22 = torch.logit(x)  # %22
    t23 = torch.nan_to_num(x, nan=-1.0, posinf=100.0)  # %23
    t24 = torch.nan_to_num(x, nan=0.0, posinf=100.0, neginf=-100.0)  # %24
    t25 = torch.div(x, y, rounding_mode='trunc')  # %25
    t26 = torch.div(x, y, rounding_mode='floor')  # %26
    t27 = torch.div(x, y)  # %27
    t28 = torch.remainder(x, y)  # %28
    t29 = torch.fmod(x, y)  # %29
    t32 = torch.clamp(x, min=-0.5, max=0.5)  # %32
    t34 = torch.add(y, 1.0)  # %34
    t35 = torch.clamp(x, min=y, max=t34)  # %35
    t37 = torch.clamp(x, min=y, max=torch.full([], 1.0, dtype=torch.float32))  # %37
    t39 = torch.clamp(x, min=0.25)  # %39
    t40 = torch.clamp(x, max=y)  # %40
    t41 = torch.gt(x, y)  # %41
    t42 = torch.where(t41, x, y)  # %42
    t44 = torch.where(t41, x, 0.0)  # %44
    t46 = torch.lerp(x, y, 0.25)  # %46
    t48 = torch.pow(x, 2.0)  # %48
    t50 = torch.float_power(x, 2.0)  # %50
    t51 = torch.xlogy(x, y)  # %51
    t52 = torch.hypot(x, y)  # %52
    t53 = torch.atan2(x, y)  # %53
    t54 = torch.maximum(x, y)  # %54
    t56 = torch.minimum(x, torch.full([], 0.0, dtype=torch.float32))  # %56
    t57 = torch.fmax(x, y)  # %57
    t58 = torch.fmin(x, y)  # %58
    t60 = torch.sub(2.0, x)  # %60
    t61 = torch.mul(t2, x)  # %61
    t63 = torch.eq(x, 1.0)  # %63
    t65 = torch.gt(x, 0.0)  # %65
    t67 = torch.le(x, 0.0)  # %67
    t68 = torch.logical_and(t41, t67)  # %68
    t69 = torch.logical_xor(t41, t67)  # %69
    t70 = torch.logical_not(t41)  # %70
    t71 = torch.isnan(x)  # %71
    t72 = torch.isinf(x)  # %72
    t73 = torch.isfinite(x)  # %73
    t74 = torch.square(x)  # %74
    t75 = torch.reciprocal(x)  # %75
    t76 = torch.sign(x)  # %76
    t77 = _kg_cbrt(x)  # %77
    t78 = torch.frac(x)  # %78
    t79 = torch.exp2(x)  # %79
    t80 = torch.neg(x)  # %80
    t81 = torch.abs(x)  # %81
    return t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t32, t35, t37, t39, t40, t42, t44, t46, t48, t50, t51, t52, t53, t54, t56, t57, t58, t60, t61, t63, t65, t41, t68, t69, t70, t71, t72, t73, t74, t75, t76, t77, t78, t79, t80, t81
