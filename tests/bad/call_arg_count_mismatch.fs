// call_arg_count_mismatch: a Call with fewer args than its member's params (op_Addition with 1 argument)
module Bad.CallArgCountMismatch

open TorchSharp

let call_arg_count_mismatch =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a Call with fewer args than its member's params (op_Addition with 1 argument)
