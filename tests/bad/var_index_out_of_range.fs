// var_index_out_of_range: a Var whose index (17) is outside the vars table
module Bad.VarIndexOutOfRange

open TorchSharp

let var_index_out_of_range =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a Var whose index (17) is outside the vars table
