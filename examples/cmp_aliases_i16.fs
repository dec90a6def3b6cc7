// cmp_aliases_i16: equal (a Tensor, not bool), not_equal, less, greater, less_equal, greater_equal
module Examples.CmpAliasesI16

open TorchSharp

[<Kgen.Entry("int16[60], int16[60]")>]
let cmp_aliases_i16 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) ->
        (torch.equal(a, b),
         a.not_equal(b),
         torch.less(a, b),
         a.greater(b),
         torch.less_equal(a, b),
         a.greater_equal(b),
         a.equal(b)) @>
