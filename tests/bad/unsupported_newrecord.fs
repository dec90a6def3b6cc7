// unsupported_newrecord: NewRecord ({ A = x; B = y }) is parsed but not supported
module Bad.UnsupportedNewrecord

open TorchSharp

let unsupported_newrecord =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> (x, y) @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   NewRecord ({ A = x; B = y }) is parsed but not supported
// The F# it stands for:
//   type Pair = { A: torch.Tensor; B: torch.Tensor }
//   <@ fun (x: torch.Tensor) (y: torch.Tensor) -> { A = x; B = y } @>
