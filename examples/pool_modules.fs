// pool_modules: the CNN modules as users write them (BatchNorm2d in evaluation mode with set running statistics, ReLU, MaxPool2d, AvgPool2d, GroupNorm, InstanceNorm2d, Upsample, PixelShuffle, AdaptiveAvgPool2d, Flatten, Linear) in a Sequential, expanded by the serializer into functional calls with their live tensors captured
module Examples.PoolModules

open TorchSharp
open type TorchSharp.torch.nn

let private m (x: Module<torch.Tensor, torch.Tensor>) = x

let net =
    torch.manual_seed(7L) |> ignore
    let bn = BatchNorm2d(8L)
    bn.running_mean <- torch.randn(8L)
    bn.running_var <- torch.rand(8L) + 0.5
    // TorchSharp 0.107's GroupNorm leaves its affine weight and bias uninitialized (torch.empty,
    // no reset_parameters): set them as PyTorch initializes them
    let gn = GroupNorm(4L, 8L)
    torch.nn.init.ones_(gn.weight) |> ignore
    torch.nn.init.zeros_(gn.bias) |> ignore
    let s =
        Sequential(
            ("bn", m bn), ("relu", m (ReLU())),
            ("pool", m (MaxPool2d([| 3L; 3L |], [| 2L; 2L |], [| 1L; 1L |]))),
            ("gn", m gn),
            ("up", m (Upsample(scale_factor = [| 2.0; 2.0 |], mode = torch.UpsampleMode.Bilinear, align_corners = false))),
            ("avg", m (AvgPool2d([| 2L; 2L |]))),
            ("inorm", m (InstanceNorm2d(8L, affine = true))),
            ("shuffle", m (PixelShuffle(2L))),
            ("gap", m (AdaptiveAvgPool2d([| 1L; 1L |]))),
            ("flat", m (Flatten())),
            ("fc", m (Linear(2L, 3L))))
    s.eval() |> ignore
    s

[<Kgen.Entry("float32[2,8,9,9]")>]
let pool_modules = <@ fun (x: torch.Tensor) -> net.forward x @>
