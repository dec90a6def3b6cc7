// red_epilogue_squeezed_reads: epilogues without keepdim that read other tensors, broadcast against the squeezed result: x.sum(1) + b (b: [9]) and x.amax(1) * c (c: [5, 1]) over x [5, 7, 9]: both ride in the reduction kernel
module Examples.RedEpilogueSqueezedReads

open TorchSharp

[<Kgen.Entry("float32[5,7,9], float32[9], float32[5,1]")>]
let red_epilogue_squeezed_reads =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) ->
        (x.sum(1L) + b, x.amax([| 1L |]) * c) @>
