// cmp_scalar: comparisons with a Scalar (.ToScalar()) on float32 and int16
module Examples.CmpScalar

open TorchSharp

[<Kgen.Entry("float32[128], int16[128]")>]
let cmp_scalar =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) ->
        (x.gt(0.5f.ToScalar()).logical_and(x.le(4.0.ToScalar())),
         n.eq((3).ToScalar()),
         n.ne((-2).ToScalar()),
         x.lt((-1.0f).ToScalar()),
         x.ge(2L.ToScalar())) @>
