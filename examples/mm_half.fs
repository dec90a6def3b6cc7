// mm_half: float16 and bfloat16 products accumulate in float32 and round once at the store (K = 40)
module Examples.MmHalf

open TorchSharp

[<Kgen.Entry("float16[7,40], float16[40,9], bfloat16[2,7,40], bfloat16[40,5]")>]
let mm_half =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) (d: torch.Tensor) -> a.matmul(b), torch.matmul(c, d) @>
