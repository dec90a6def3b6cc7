// free_var_entry: an entry that is not a lambda and uses a free variable x
module Bad.FreeVarEntry

open TorchSharp

let free_var_entry =
    <@ fun (x: torch.Tensor) -> x + x @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   an entry that is not a lambda and uses a free variable x
