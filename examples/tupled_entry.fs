// tupled_entry: fun (a, b) -> ...: one Lambda over tupledArg, then Lets of TupleGet
module Examples.TupledEntry

open TorchSharp

[<Kgen.Entry("float32[30], float32[30]")>]
let tupled_entry =
    <@ fun (a: torch.Tensor, b: torch.Tensor) -> a * b + a @>
