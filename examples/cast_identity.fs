// cast_identity: casts to the dtype a value already has (`to_type` with the model's own dtype, `type_as`), as real forwards write them — the lowering reads the value itself (passes/drop_casts.c), so a weight behind such a cast is still a tensor a product reads as it is (the CPU's dot schedule for few rows, cp.async and TMA on a GPU); a cast that is a result stays a buffer of its own; a cast that changes the dtype stays
module Examples.CastIdentity

open TorchSharp

[<Kgen.Entry("float32[2,640], float32[96,640], float32[96]")>]
let cast_identity_linear =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        let y = torch.nn.functional.linear(x.to_type(torch.ScalarType.Float32), w.to_type(torch.ScalarType.Float32), b.type_as(x))
        (y.relu(), x.to_type(torch.ScalarType.Float32)) @>

[<Kgen.Entry("float16[4,32], float32[32]")>]
let cast_identity_chain =
    <@ fun (x: torch.Tensor) (s: torch.Tensor) ->
        let h = x.to_type(torch.ScalarType.Float16).to_type(torch.ScalarType.Float16)
        (h.to_type(torch.ScalarType.Float32) * s).to_type(torch.ScalarType.Float16) + h @>
