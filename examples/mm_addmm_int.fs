// mm_addmm_int: addmm on int32 truncates beta and alpha to integers as PyTorch does (beta 1.7 -> 1, alpha 2.9 -> 2)
module Examples.MmAddmmInt

open TorchSharp

[<Kgen.Entry("int32[3,4], int32[3,6], int32[6,4]")>]
let mm_addmm_int =
    <@ fun (c: torch.Tensor) (a: torch.Tensor) (b: torch.Tensor) -> torch.addmm(c, a, b, 1.7f, 2.9f) @>
