// capture_missing_in_signature: a captured tensor (ValueWithName "w") that the signature does not describe
module Bad.CaptureMissingInSignature

open TorchSharp

let capture_missing_in_signature (w: torch.Tensor) =
    <@ fun (x: torch.Tensor) -> x * w @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a captured tensor (ValueWithName "w") that the signature does not describe
