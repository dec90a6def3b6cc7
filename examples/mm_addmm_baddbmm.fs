// mm_addmm_baddbmm: torch.addmm / Tensor.addmm and torch.baddbmm / Tensor.baddbmm with beta and alpha (beta = 0 leaves the input out), an input broadcast to the product's shape; TorchSharp 0.107's baddbmm(x, b1, b2) computes b2 * beta + alpha * (x @ b1) (its native call's argument order), which kgen follows
module Examples.MmAddmmBaddbmm

open TorchSharp

[<Kgen.Entry("float32[5], float32[3,7], float32[7,5], float32[2,3,7], float32[2,7,5], float32[2,3,5]")>]
let mm_addmm_baddbmm =
    <@ fun (c: torch.Tensor) (a: torch.Tensor) (b: torch.Tensor) (c3: torch.Tensor) (a3: torch.Tensor) (b3: torch.Tensor) ->
        torch.addmm(c, a, b, 0.5f, 2.0f), c.addmm(a, b), torch.baddbmm(c3, a3, b3, 0.0f, 1.5f), c3.baddbmm(a3, b3, 2.0f, 1.0f) @>
