// act_mish_hard_logsigmoid: mish, hardsigmoid, hardswish, logsigmoid (torch.nn.functional)
module Examples.ActMishHardLogsigmoid

open TorchSharp

[<Kgen.Entry("float32[300]")>]
let act_mish_hard_logsigmoid =
    <@ fun (x: torch.Tensor) ->
        (torch.nn.functional.mish(x),
         torch.nn.functional.hardsigmoid(x),
         torch.nn.functional.hardswish(x),
         torch.nn.functional.logsigmoid(x)) @>
