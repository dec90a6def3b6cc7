// fs_tupled_then_curried: a tupled parameter followed by a curried one, as F# quotes it:
// Lambda(tupledArg, Let(x, TupleGet(tupledArg, 0), Let(b, ..., Lambda(alpha, body)))): the lets
// that unpack the tuple come before the next parameter, and kgen reads all three parameters
module Examples.FsTupledThenCurried

open TorchSharp

[<Kgen.Entry("float32[5,17], float32[17], float32")>]
let fs_tupled_then_curried =
    <@ fun (x: torch.Tensor, b: torch.Tensor) (alpha: float32) -> (x + b).tanh() * alpha + x @>
