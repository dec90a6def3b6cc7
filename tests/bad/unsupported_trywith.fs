// unsupported_trywith: TryWith (try ... with) is parsed but not supported: must be rejected naming the construct
module Bad.UnsupportedTrywith

open TorchSharp

let unsupported_trywith =
    <@ fun (x: torch.Tensor) -> x.tanh() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   TryWith (try ... with) is parsed but not supported: must be rejected naming the construct
// The F# it stands for:
//   <@ fun (x: torch.Tensor) -> try x.tanh() with _ -> x @>
