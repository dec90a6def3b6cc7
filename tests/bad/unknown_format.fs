// unknown_format: an unknown "format" string
module Bad.UnknownFormat

open TorchSharp

let unknown_format =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   an unknown "format" string
