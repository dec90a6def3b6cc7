// pw_bitops_i32: &&& ||| ^^^ on int32 tensors (Operators.op_BitwiseAnd<Tensor> ...)
module Examples.PwBitopsI32

open TorchSharp

[<Kgen.Entry("int32[128], int32[128], int32[128]")>]
let pw_bitops_i32 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) -> (a &&& b) ^^^ (a ||| c) @>
