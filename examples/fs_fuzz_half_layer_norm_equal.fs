// fs_fuzz_half_layer_norm_equal: float16 layer_norm of a row of equal values (kgen fuzz seed 118, reduced): exactly 0 where PyTorch's float32 carrier gives 1-ulp noise (-2.5e-5); the rmse rule's float64 reference now widens the twin's half carriers too (check/oracle.py)
module Examples.FsFuzzHalfLayerNormEqual

open TorchSharp

[<Kgen.Entry("float16[8,1]")>]
let fs_fuzz_half_layer_norm_equal =
    <@ fun (y: torch.Tensor) ->
        let t = y.amax([| 0L; -1L |], true).squeeze(0L)
        let row = t.expand([| 3L; 3L |]).logsumexp(0L, true)
        torch.nn.functional.layer_norm(row, [| 3L |], null, null, 1e-05) @>
