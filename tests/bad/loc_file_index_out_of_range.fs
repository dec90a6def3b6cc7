// loc_file_index_out_of_range: a loc whose file index (3) is outside "files" (1 entry)
module Bad.LocFileIndexOutOfRange

open TorchSharp

let loc_file_index_out_of_range =
    <@ fun (x: torch.Tensor) -> x.sigmoid() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a loc whose file index (3) is outside "files" (1 entry)
