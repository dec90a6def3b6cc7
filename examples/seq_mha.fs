// seq_mha: TorchSharp's nn.MultiheadAttention (libtorch's C++ module) expanded by the serializer
// into the arithmetic its forward computes (dotnet/Kgen/Modules.fs, mhaForward), which kgen
// recognizes as one fused attention (passes/attention.c): self-attention with a boolean attn_mask
// (which libtorch 2.10's C++ function, what TorchSharp runs, adds to the scores as 0 / 1 rather
// than masking: the expansion does the same) without the weights, and cross-attention with a
// key_padding_mask and an additive mask returning the head-averaged weights
module Examples.SeqMha

open TorchSharp

let private mha =
    torch.manual_seed 23L |> ignore
    let m = torch.nn.MultiheadAttention(32L, 4L)
    m.eval()
    m

[<Kgen.Entry("float32[9,2,32], bool[9,9]")>]
let seq_mha_self =
    <@ fun (x: torch.Tensor) (causal: torch.Tensor) ->
        let o, _ = mha.forward(x, x, x, null, false, causal)
        o @>

[<Kgen.Entry("float32[7,3,32], float32[11,3,32], bool[3,11], float32[7,11]")>]
let seq_mha_cross =
    <@ fun (q: torch.Tensor) (mem: torch.Tensor) (pad: torch.Tensor) (bias: torch.Tensor) ->
        let o, w = mha.forward(q, mem, mem, pad, true, bias)
        o, w @>
