// cnn_global_avgpool: ResNet's head: adaptive_avg_pool2d to 1x1 of a relu (a row reduction)
module Perf.CnnGlobalAvgpool

open TorchSharp

[<Kgen.Entry("float32[8,512,7,7]")>]
let cnn_global_avgpool =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.adaptive_avg_pool2d(x.relu(), 1L) @>
