// un_nan_to_num_custom: nan_to_num with posinf / neginf given (Nullable<double> ctor) and only neginf named
module Examples.UnNanToNumCustom

open TorchSharp

[<Kgen.Entry("float64[500]")>]
let un_nan_to_num_custom =
    <@ fun (x: torch.Tensor) ->
        let y = x.log() * (x * 1000.0).exp()
        (y.nan_to_num(1.0, 100.0, -100.0), torch.nan_to_num(y, 0.0, neginf = -1.0)) @>
