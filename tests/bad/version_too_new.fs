// version_too_new: "version": 2 (above the supported version 1)
module Bad.VersionTooNew

open TorchSharp

let version_too_new =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   "version": 2 (above the supported version 1)
