// dropout_p_range: dropout with p = 1.5 (p must be in [0, 1])
module Bad.DropoutPRange

open TorchSharp

[<Kgen.Entry("float32[4]")>]
let dropout_p_range =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.dropout(x, 1.5, true) @>
