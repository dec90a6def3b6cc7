// signature_scalar_for_tensor: the signature says scalar float32 for a Tensor parameter
module Bad.SignatureScalarForTensor

open TorchSharp

let signature_scalar_for_tensor =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   the signature says scalar float32 for a Tensor parameter
