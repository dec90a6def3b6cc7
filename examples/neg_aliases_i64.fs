// neg_aliases_i64: neg / negative, static and instance, on int64
module Examples.NegAliasesI64

open TorchSharp

[<Kgen.Entry("int64[31]")>]
let neg_aliases_i64 =
    <@ fun (x: torch.Tensor) -> (torch.neg(x), x.negative(), torch.negative(x).neg()) @>
