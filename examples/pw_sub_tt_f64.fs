// pw_sub_tt_f64: Tensor - Tensor on float64, odd size 457
module Examples.PwSubTtF64

open TorchSharp

[<Kgen.Entry("float64[457], float64[457]")>]
let pw_sub_tt_f64 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x - y @>
