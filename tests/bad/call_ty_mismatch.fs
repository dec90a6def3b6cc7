// call_ty_mismatch: a Call whose ty (System.Single) differs from its member's ret (Tensor)
module Bad.CallTyMismatch

open TorchSharp

let call_ty_mismatch =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a Call whose ty (System.Single) differs from its member's ret (Tensor)
