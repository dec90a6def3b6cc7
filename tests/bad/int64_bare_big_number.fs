// int64_bare_big_number: an Int64 of magnitude >= 2^53 written as a bare JSON number (must be a digit string)
module Bad.Int64BareBigNumber

open TorchSharp

let int64_bare_big_number =
    <@ fun (x: torch.Tensor) -> x + 1L @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   an Int64 of magnitude >= 2^53 written as a bare JSON number (must be a digit string)
