// node_missing_ty: a node without its required "ty"
module Bad.NodeMissingTy

open TorchSharp

let node_missing_ty =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a node without its required "ty"
