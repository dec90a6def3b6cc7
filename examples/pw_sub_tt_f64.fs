// pw_sub_tt_f64: Tensor - Tensor on float64, odd size 457
module Examples.PwSubTtF64

open TorchSharp

let pw_sub_tt_f64 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x - y @>
