// view_heads: attention-style head split and merge: view, transpose, contiguous, reshape, permute, flatten, unflatten, squeeze / unsqueeze, mT, computed as index arithmetic inside one kernel
module Examples.ViewHeads

open TorchSharp

/// q.view(B, T, H, D).transpose(1, 2) and back: [B, H, T, D] then [B, T, H*D]
[<Kgen.Entry("float32[2,5,12]")>]
let view_heads_split_merge =
    <@ fun (q: torch.Tensor) ->
        let h = q.view(2L, 5L, 3L, 4L).transpose(1L, 2L) * 0.5f
        h.transpose(1L, 2L).contiguous().view(2L, 5L, 12L) + q @>

/// permute, flatten and unflatten with a -1 size and a symbolic batch
[<Kgen.Entry("float32[N,3,4]")>]
let view_permute_flatten =
    <@ fun (x: torch.Tensor) ->
        let y = x.permute(0L, 2L, 1L).flatten(1L, 2L)
        let z = x.reshape(-1L, 12L).unflatten(1L, [| 2L; 6L |])
        (y.sin(), z + 1.0f) @>

/// squeeze, unsqueeze, mT and broadcasting against a transposed operand
[<Kgen.Entry("float32[4,1,6], float32[6,4]")>]
let view_squeeze_mt =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        let s = x.squeeze(1L)
        s + w.mT + s.unsqueeze(0L).squeeze() * 2.0f @>
