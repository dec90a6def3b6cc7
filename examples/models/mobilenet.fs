// mobilenet: TorchVision's MobileNetV2 (TorchSharp's own C# port of
// torchvision/models/mobilenetv2.py): a 3x3 stride-2 stem, seventeen InvertedResidual blocks
// (1x1 expansion with batch norm and ReLU6, 3x3 depthwise with batch norm and ReLU6, 1x1
// linear projection with batch norm, the residual added where stride 1 keeps the width), a
// 1x1 convolution to 1280 channels, global average pool, dropout and linear; in evaluation
// mode, transcribed from C# into F#.
//
// Source: https://github.com/dotnet/TorchSharp, commit c20b6a1cc574d690707638a488d2583f3b8b983f
//   src/TorchVision/models/MobileNetV2.cs (InvertedResidual, MobileNetV2, mobilenet_v2),
//   src/TorchVision/models/Utils.cs (_make_divisible), src/TorchVision/Ops/Misc.cs
//   (ConvNormActivation, Conv2dNormActivation)
// Changes F# needs: [<ReflectedDefinition>] on the forwards; F# has no nested classes, so
// InvertedResidual (private in MobileNetV2) comes first; C#'s optional arguments are F#
// optional arguments, its `Func<>` layer factories F# functions (`Func` where the C# API
// exposes them); `(1, 1)` (a C# ValueTuple) is `struct (1L, 1L)`; the ConvNormActivation
// helper keeps only rank 2 (Conv3d is not used by MobileNetV2); the `named_modules()` type
// switch is a match. Left out: the ArgumentException messages' formatting of arrays.
// The entry runs with stand-in trained statistics: the source initializes every BatchNorm2d
// to weight 1, bias 0, running mean 0, variance 1, so after construction each gets random
// running statistics and affine parameters, as a checkpoint would.
// Sizes: MobileNetV2 as TorchVision builds it (width 1.0, 3.5M parameters, 1000 classes); a
// batch of 2 images of 3x64x64 (ImageNet's are 224x224), so the last blocks run at 2x2.
module Models.MobileNet

open System
open System.Collections.Generic
open TorchSharp
open type TorchSharp.torch
open FSharp.Core.Operators   // reclaim int64, float from `open type torch`

// ---- src/TorchVision/models/Utils.cs ----------------------------------------------------------

let _make_divisible (v: float) (divisor: int64) (min_value: int64 option) =
    let min_value = defaultArg min_value divisor
    let mutable new_v = max min_value (int64 (v + float divisor / 2.0) / divisor * divisor)
    // Make sure that round down does not go down by more than 10%.
    if float new_v < 0.9 * v then
        new_v <- new_v + divisor
    new_v

// ---- src/TorchVision/Ops/Misc.cs -----------------------------------------------------------------

type ops =
    static member private ConvNormActivation(in_channels: int64, out_channels: int64, ?kernel_size: int64, ?stride: int64,
                                             ?padding: int64, ?groups: int64, ?norm_layer: int64 -> nn.Module<Tensor, Tensor>,
                                             ?activation_layer: bool -> nn.Module<Tensor, Tensor>, ?dilation: int64,
                                             ?inplace: bool, ?bias: bool) : nn.Module<Tensor, Tensor> =
        let kernel_size = defaultArg kernel_size 3L
        let stride = defaultArg stride 1L
        let groups = defaultArg groups 1L
        let dilation = defaultArg dilation 1L
        let inplace = defaultArg inplace true
        let padding = match padding with Some p -> p | None -> (kernel_size - 1L) / 2L * dilation
        let bias = match bias with Some b -> b | None -> norm_layer.IsNone

        let layers = List<nn.Module<Tensor, Tensor>>()
        layers.Add(
            nn.Conv2d(
                in_channels,
                out_channels,
                kernel_size = kernel_size,
                stride = stride,
                padding = padding,
                dilation = dilation,
                groups = groups,
                bias = bias))

        match norm_layer with
        | Some norm_layer -> layers.Add(norm_layer out_channels)
        | None -> ()

        match activation_layer with
        | Some activation_layer -> layers.Add(activation_layer inplace)
        | None -> ()
        nn.Sequential(layers)

    static member Conv2dNormActivation(in_channels: int64, out_channels: int64, ?kernel_size: int64, ?stride: int64,
                                       ?padding: int64, ?groups: int64, ?norm_layer: int64 -> nn.Module<Tensor, Tensor>,
                                       ?activation_layer: bool -> nn.Module<Tensor, Tensor>, ?dilation: int64,
                                       ?inplace: bool, ?bias: bool) =
        ops.ConvNormActivation(in_channels, out_channels, ?kernel_size = kernel_size, ?stride = stride, ?padding = padding,
                               ?groups = groups, ?norm_layer = norm_layer, ?activation_layer = activation_layer,
                               ?dilation = dilation, ?inplace = inplace, ?bias = bias)

// ---- src/TorchVision/models/MobileNetV2.cs ---------------------------------------------------------

type InvertedResidual(name: string, inp: int64, oup: int64, stride: int64, expand_ratio: float,
                      ?norm_layer: int64 -> nn.Module<Tensor, Tensor>) as this =
    inherit nn.Module<Tensor, Tensor>(name)

    let stride = stride
    do
        if stride <> 1L && stride <> 2L then
            raise (ArgumentOutOfRangeException($"stride should be 1 or 2 insted of {stride}"))

    let norm_layer = defaultArg norm_layer (fun features -> nn.BatchNorm2d(features))

    let hidden_dim = int64 (Math.Round(float inp * expand_ratio))
    let use_res_connect = stride = 1L && inp = oup

    let layers = List<nn.Module<Tensor, Tensor>>()
    do
        if expand_ratio <> 1.0 then
            // pw
            layers.Add(
                ops.Conv2dNormActivation(
                    inp,
                    hidden_dim,
                    kernel_size = 1L,
                    norm_layer = norm_layer,
                    activation_layer = (fun inplace -> nn.ReLU6(inplace))))
        layers.AddRange(List<nn.Module<Tensor, Tensor>>([
            // dw
            ops.Conv2dNormActivation(
                hidden_dim,
                hidden_dim,
                stride = stride,
                groups = hidden_dim,
                norm_layer = norm_layer,
                activation_layer = (fun inplace -> nn.ReLU6(inplace)))
            // pw-linear
            nn.Conv2d(hidden_dim, oup, 1L, 1L, 0L, bias = false)
            norm_layer oup
        ]))
    let conv = nn.Sequential(layers)
    let out_channels = oup
    let _is_cn = stride > 1L
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        if use_res_connect then
            x + conv.call(x)
        else
            conv.call(x)

type MobileNetV2(name: string, ?num_classes: int64, ?width_mult: float, ?inverted_residual_setting: int64[][],
                 ?round_nearest: int64, ?block: int64 -> int64 -> int64 -> float -> (int64 -> nn.Module<Tensor, Tensor>) -> nn.Module<Tensor, Tensor>,
                 ?norm_layer: int64 -> nn.Module<Tensor, Tensor>, ?dropout: float) as this =
    inherit nn.Module<Tensor, Tensor>(name)

    let num_classes = defaultArg num_classes 1000L
    let width_mult = defaultArg width_mult 1.0
    let round_nearest = defaultArg round_nearest 8L
    let dropout = defaultArg dropout 0.2
    let block =
        defaultArg block (fun input_channel output_channel stride t norm_layer ->
            new InvertedResidual("InvertedResidual", input_channel, output_channel, stride, t, norm_layer) :> nn.Module<Tensor, Tensor>)
    let norm_layer = defaultArg norm_layer (fun features -> nn.BatchNorm2d(features))

    let mutable input_channel = 32L
    let last_channel = 1280L

    let inverted_residual_setting =
        defaultArg inverted_residual_setting [|
            // t, c, n, s
            [| 1L; 16L; 1L; 1L |]
            [| 6L; 24L; 2L; 2L |]
            [| 6L; 32L; 3L; 2L |]
            [| 6L; 64L; 4L; 2L |]
            [| 6L; 96L; 3L; 1L |]
            [| 6L; 160L; 3L; 2L |]
            [| 6L; 320L; 1L; 1L |]
        |]

    do
        // only check the first element, assuming user knows t,c,n,s are required
        if inverted_residual_setting.Length = 0 || inverted_residual_setting.[0].Length <> 4 then
            raise (ArgumentException($"inverted_residual_setting should be non-empty or a 4-element list, got {inverted_residual_setting}"))

    // building first layer
    do input_channel <- _make_divisible (float input_channel * width_mult) round_nearest None
    let last_channel = _make_divisible (float last_channel * Math.Max(1.0, width_mult)) round_nearest None
    let features =
        List<nn.Module<Tensor, Tensor>>([
            ops.Conv2dNormActivation(3L, input_channel, stride = 2L, norm_layer = norm_layer, activation_layer = (fun inplace -> nn.ReLU6(inplace)))
        ])
    do
        // building inverted residual blocks
        for x in inverted_residual_setting do
            let t = x.[0]
            let c = x.[1]
            let n = x.[2]
            let s = x.[3]
            let output_channel = _make_divisible (float c * width_mult) round_nearest None
            for i in 0L .. n - 1L do
                let stride = if i = 0L then s else 1L
                features.Add(block input_channel output_channel stride (float t) norm_layer)
                input_channel <- output_channel
        // building last several layers
        features.Add(
            ops.Conv2dNormActivation(
                input_channel,
                last_channel,
                kernel_size = 1L,
                norm_layer = norm_layer,
                activation_layer = (fun inplace -> nn.ReLU6(inplace))))
    // make it nn.Sequential
    let features = nn.Sequential(features)

    // building classifier
    let classifier =
        nn.Sequential(
            nn.Dropout(p = dropout),
            nn.Linear(last_channel, num_classes))

    do
        this.RegisterComponents()

        // weight initialization
        for struct (_, m) in this.named_modules() do
            match m with
            | :? Modules.Conv2d as conv ->
                nn.init.kaiming_normal_(conv.weight, mode = nn.init.FanInOut.FanOut) |> ignore
                if not (isNull conv.bias) then
                    nn.init.zeros_(conv.bias) |> ignore
            | :? Modules.BatchNorm2d as norm ->
                nn.init.ones_(norm.weight) |> ignore
                nn.init.zeros_(norm.bias) |> ignore
            | :? Modules.GroupNorm as norm ->
                nn.init.ones_(norm.weight) |> ignore
                nn.init.zeros_(norm.bias) |> ignore
            | :? Modules.Linear as linear ->
                nn.init.normal_(linear.weight, 0.0, 0.01) |> ignore
                nn.init.zeros_(linear.bias) |> ignore
            | _ -> ()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        let mutable x = features.call(x)
        // Cannot use "squeeze" as batch-size can be 1
        x <- nn.functional.adaptive_avg_pool2d(x, struct (1L, 1L))
        x <- torch.flatten(x, 1L)
        x <- classifier.call(x)
        x

// torchvision.models.mobilenet_v2()
let mobilenet_v2 () = new MobileNetV2("MobileNetV2")

/// Stand-in trained statistics (see the file-top comment).
let trained (m: nn.Module) =
    use _ = torch.no_grad()
    for struct (_, c) in m.named_modules() do
        match c with
        | :? Modules.BatchNorm2d as bn ->
            let n = bn.running_mean.shape.[0]
            bn.running_mean.copy_(torch.randn(n) * 0.1) |> ignore
            bn.running_var.copy_(torch.rand(n) + 0.5) |> ignore
            bn.weight.copy_(torch.rand(n) + 0.5) |> ignore
            bn.bias.copy_(torch.randn(n) * 0.1) |> ignore
        | _ -> ()

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let model = mobilenet_v2 ()
trained model
model.eval() |> ignore

[<Kgen.Entry("float32[2,3,64,64]")>]
let mobilenet_v2_forward = <@ fun (x: Tensor) -> model.forward(x) @>
