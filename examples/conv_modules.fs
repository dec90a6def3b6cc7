// conv_modules: the Conv1d, Conv2d (numbers, Padding.Same, a reflect padding mode) and ConvTranspose2d modules, expanded by the serializer into the functional calls their forwards make, weights captured
module Examples.ConvModules

open System
open TorchSharp
open type TorchSharp.torch

// the weights from a fixed seed: the document describes captured tensors by their range
torch.manual_seed(20261125L) |> ignore

let conv2d = nn.Conv2d(3L, 6L, struct (3L, 3L), stride = struct (2L, 1L), padding = struct (1L, 0L))
let conv2dSame = nn.Conv2d(6L, 4L, 3L, Padding.Same, dilation = 2L, groups = 2L)
let conv2dReflect = nn.Conv2d(4L, 4L, 3L, padding = 1L, padding_mode = PaddingModes.Reflect, bias = false)
let convT = nn.ConvTranspose2d(4L, 2L, 3L, stride = 2L, padding = 1L, output_padding = 1L)
let conv1d = nn.Conv1d(2L, 5L, 3L, stride = 2L, padding = 1L)

[<Kgen.Entry("float32[2,3,8,7]")>]
let conv2d_modules =
    <@ fun (x: Tensor) ->
        let h = conv2d.forward(x).relu()
        convT.forward(conv2dReflect.forward(conv2dSame.forward(h))) @>

[<Kgen.Entry("float32[3,2,9]")>]
let conv1d_module = <@ fun (x: Tensor) -> conv1d.forward(x).tanh() @>
