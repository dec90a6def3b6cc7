// index_gen: index_select, gather, masked_fill with a causal mask from triu, tril, arange, zeros / ones / full and eye, fused into the kernels that read them
module Examples.IndexGen

open TorchSharp

/// causal attention mask: scores.masked_fill(triu(ones, 1) = true, -inf)
[<Kgen.Entry("float32[2,5,5]")>]
let index_causal_mask =
    <@ fun (s: torch.Tensor) ->
        let mask = torch.ones(5L, 5L).triu(1L).to_type(torch.ScalarType.Bool)
        s.masked_fill(mask, System.Single.NegativeInfinity).softmax(-1L) @>

/// index_select and gather with int64 indices (negative counts from the end)
[<Kgen.Entry("float32[6,4], int64[3], int64[6,2]")>]
let index_select_gather =
    <@ fun (x: torch.Tensor) (i: torch.Tensor) (j: torch.Tensor) ->
        // indices in range (PyTorch raises on the others): i % 6 in [0, 6), j % 4 in [0, 4)
        (x.index_select(0L, i % 6L) * 2.0f, x.gather(1L, j % 4L)) @>

/// positions from arange, a full bias, eye and tril
[<Kgen.Entry("float32[4,4]")>]
let index_arange_full_eye =
    <@ fun (x: torch.Tensor) ->
        let pos = torch.arange(0L, 4L, 1L).to_type(torch.float32)
        let b = torch.full([| 4L; 4L |], TorchSharp.Scalar.op_Implicit 0.25f) + torch.zeros(4L, 4L)
        x.tril() + pos + b * torch.eye(4L) @>
