// signature_bad_dtype: a signature dtype kgen does not support ("complex64")
module Bad.SignatureBadDtype

open TorchSharp

let signature_bad_dtype =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a signature dtype kgen does not support ("complex64")
