// signature_param_count: the signature has 1 parameter, the entry lambda 2
module Bad.SignatureParamCount

open TorchSharp

let signature_param_count =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x * y @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   the signature has 1 parameter, the entry lambda 2
