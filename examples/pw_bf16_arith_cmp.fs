// pw_bf16_arith_cmp: bfloat16 tensors: x * y + 1, and where(x > y, x, y)
module Examples.PwBf16ArithCmp

open TorchSharp

[<Kgen.Entry("bfloat16[40,40], bfloat16[40,40]")>]
let pw_bf16_arith_cmp =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> (x * y + 1, torch.where(x.gt(y), x, y)) @>
