// norm_var_std_single_element: var / std of one element: 0 when unbiased = false, NaN when unbiased (0 / 0; checked with isnan): rows of [2000, 1], the 1-row dim of [1, 4097], a [1] all-reduce
module Examples.NormVarStdSingleElement

open TorchSharp

[<Kgen.Entry("float32[2000,1], float32[1,4097], float32[1]")>]
let norm_var_std_single_element =
    <@ fun (a: torch.Tensor) (r: torch.Tensor) (s: torch.Tensor) ->
        (a.var(1L, false),
         a.std(-1L, false, true),
         a.var(1L).isnan(),
         r.std(0L).isnan(),
         torch.var(s, true).isnan(),
         s.std(false),
         r.var(1L)) @>
