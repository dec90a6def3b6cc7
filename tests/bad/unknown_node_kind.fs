// unknown_node_kind: a node kind that is not a Patterns case ("k": "Frobnicate")
module Bad.UnknownNodeKind

open TorchSharp

let unknown_node_kind =
    <@ fun (x: torch.Tensor) -> x.sigmoid() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a node kind that is not a Patterns case ("k": "Frobnicate")
