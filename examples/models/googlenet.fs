// googlenet: TorchVision's GoogLeNet (TorchSharp's own C# port of
// torchvision/models/googlenet.py): the 7x7 stem, 1x1 and 3x3 convolution blocks (convolution
// without bias, batch norm with eps 0.001, ReLU), ceil-mode max pools, nine Inception blocks
// (four branches: 1x1; 1x1 -> 3x3; 1x1 -> 3x3; 3x3 max pool -> 1x1; concatenated over
// channels), global average pool, dropout and linear; in evaluation mode, transcribed from C#
// into F#.
//
// Source: https://github.com/dotnet/TorchSharp, commit c20b6a1cc574d690707638a488d2583f3b8b983f
//   src/TorchVision/models/GoogleNet.cs (googlenet, GoogleNet, conv_block, inception_block,
//   forward, Inception)
// Changes F# needs: [<ReflectedDefinition>] on the forwards; F# has no nested classes, so
// Inception (nested in GoogleNet) comes first and conv_block, a private static of GoogleNet it
// calls, is a static member of a small type before both; C#'s `using (var scope =
// NewDisposeScope())` is `use scope =`, `using var branch1 =` is `use branch1 =`; C#'s
// `x[(null, null), 0]` is `x[Colon, Single 0L]` (the transform_input branch: false, as the
// source's default); the `named_modules()` type switch is a match. Left out: the (long, long)
// overload of conv_block (GoogLeNet calls only the int one), InceptionAux (the source creates
// none: aux1 / aux2 are commented out), loading a weights file, the device move.
// The entry runs with stand-in trained statistics: the source initializes every BatchNorm2d
// to weight 1, bias 0, running mean 0, variance 1, so after construction each gets random
// running statistics and affine parameters, as a checkpoint would.
// Sizes: GoogLeNet as TorchVision builds it (all widths, 1000 classes); a batch of 2 images of
// 3x64x64 (ImageNet's are 224x224): inception3 at 8x8, inception4 at 4x4, inception5 at 2x2.
module Models.GoogleNet

open System
open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn
open type TorchSharp.torch.TensorIndex
open FSharp.Core.Operators   // reclaim int64, float from `open type torch`

type Blocks =
    static member conv_block(in_channels: int, out_channels: int, kernel_size: int, ?stride: int, ?padding: int) : Module<Tensor, Tensor> =
        let stride = defaultArg stride 1
        let padding = defaultArg padding 0
        Sequential(
            ("conv", Conv2d(int64 in_channels, int64 out_channels, bias = false, kernel_size = int64 kernel_size, stride = int64 stride, padding = int64 padding) :> Module<Tensor, Tensor>),
            ("bn", BatchNorm2d(int64 out_channels, eps = 0.001) :> Module<Tensor, Tensor>),
            ("relu", ReLU(true) :> Module<Tensor, Tensor>)
        )

type Inception(in_channels: int, ch1x1: int, ch3x3red: int, ch3x3: int, ch5x5red: int, ch5x5: int, pool_proj: int) as this =
    inherit Module<Tensor, Tensor>("Inception")

    let branch1 = Blocks.conv_block(in_channels, ch1x1, kernel_size = 1)
    let branch2 =
        nn.Sequential(
            Blocks.conv_block(in_channels, ch3x3red, kernel_size = 1),
            Blocks.conv_block(ch3x3red, ch3x3, kernel_size = 3, padding = 1)
        )
    let branch3 =
        nn.Sequential(
            Blocks.conv_block(in_channels, ch5x5red, kernel_size = 1),
            Blocks.conv_block(ch5x5red, ch5x5, kernel_size = 3, padding = 1)
        )
    let branch4 =
        nn.Sequential(
            nn.MaxPool2d(kernel_size = 3L, stride = 1L, padding = 1L, ceil_mode = true) :> Module<Tensor, Tensor>,
            Blocks.conv_block(in_channels, pool_proj, kernel_size = 1)
        )
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        use branch1 = branch1.call(x)
        use branch2 = branch2.call(x)
        use branch3 = branch3.call(x)
        use branch4 = branch4.call(x)
        let outputs = [| branch1; branch2; branch3; branch4 |]
        torch.cat(outputs, 1L)

type GoogleNet(?numClasses: int, ?transform_input: bool, ?dropout: float32, ?dropout_aux: float32) as this =
    inherit Module<Tensor, Tensor>("GoogleNet")

    // The code here is based on
    // https://github.com/pytorch/vision/blob/main/torchvision/models/googlenet.py
    // Licence and copypright notice at: https://github.com/pytorch/vision/blob/main/LICENSE

    let numClasses = defaultArg numClasses 1000
    let transform_input = defaultArg transform_input false
    let dropout = defaultArg dropout 0.2f

    let inception_block (in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj) =
        new Inception(in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj) :> Module<Tensor, Tensor>

    let conv1 = Blocks.conv_block(3, 64, kernel_size = 7, stride = 2, padding = 3)
    let maxpool1 = MaxPool2d(kernel_size = 3L, stride = 2L, ceil_mode = true)
    let conv2 = Blocks.conv_block(64, 64, kernel_size = 1)
    let conv3 = Blocks.conv_block(64, 192, kernel_size = 3, padding = 1)
    let maxpool2 = MaxPool2d(kernel_size = 3L, stride = 2L, ceil_mode = true)
    let inception3a = inception_block (192, 64, 96, 128, 16, 32, 32)
    let inception3b = inception_block (256, 128, 128, 192, 32, 96, 64)
    let maxpool3 = nn.MaxPool2d(3L, stride = 2L, ceil_mode = true)
    let inception4a = inception_block (480, 192, 96, 208, 16, 48, 64)
    let inception4b = inception_block (512, 160, 112, 224, 24, 64, 64)
    let inception4c = inception_block (512, 128, 128, 256, 24, 64, 64)
    let inception4d = inception_block (512, 112, 144, 288, 32, 64, 64)
    let inception4e = inception_block (528, 256, 160, 320, 32, 128, 128)
    let maxpool4 = nn.MaxPool2d(2L, stride = 2L, ceil_mode = true)
    let inception5a = inception_block (832, 256, 160, 320, 32, 128, 128)
    let inception5b = inception_block (832, 384, 192, 384, 48, 128, 128)
    let avgpool = nn.AdaptiveAvgPool2d(struct (1L, 1L))
    let dropout = nn.Dropout(p = float dropout)
    let fc = nn.Linear(1024L, int64 numClasses)

    do
        this.RegisterComponents()

        for struct (_, m) in this.named_modules() do
            match m with
            | :? Modules.Conv2d as conv ->
                torch.nn.init.kaiming_normal_(conv.weight, mode = init.FanInOut.FanOut, nonlinearity = init.NonlinearityType.ReLU) |> ignore
            | :? Modules.BatchNorm2d as bn ->
                torch.nn.init.constant_(bn.weight, 1) |> ignore
                torch.nn.init.constant_(bn.bias, 0) |> ignore
            | _ -> ()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        // Transform
        use scope = NewDisposeScope()
        let mutable x = x
        if transform_input then
            let x_ch0 = torch.unsqueeze(x[Colon, Single 0L], 1L) * (0.229f / 0.5f) + (0.485f - 0.5f) / 0.5f
            let x_ch1 = torch.unsqueeze(x[Colon, Single 1L], 1L) * (0.224f / 0.5f) + (0.456f - 0.5f) / 0.5f
            let x_ch2 = torch.unsqueeze(x[Colon, Single 2L], 1L) * (0.225f / 0.5f) + (0.406f - 0.5f) / 0.5f
            x <- torch.cat([| x_ch0; x_ch1; x_ch2 |], 1L)
        // N x 3 x 224 x 224
        x <- conv1.call(x)
        // N x 64 x 112 x 112
        x <- maxpool1.call(x)
        // N x 64 x 56 x 56
        x <- conv2.call(x)
        // N x 64 x 56 x 56
        x <- conv3.call(x)
        // N x 192 x 56 x 56
        x <- maxpool2.call(x)
        // N x 192 x 28 x 28
        x <- inception3a.call(x)
        // N x 256 x 28 x 28
        x <- inception3b.call(x)
        // N x 480 x 28 x 28
        x <- maxpool3.call(x)
        // N x 480 x 14 x 14
        x <- inception4a.call(x)
        // N x 512 x 14 x 14
        x <- inception4b.call(x)
        // N x 512 x 14 x 14
        x <- inception4c.call(x)
        // N x 512 x 14 x 14
        x <- inception4d.call(x)
        // N x 528 x 14 x 14
        x <- inception4e.call(x)
        // N x 832 x 14 x 14
        x <- maxpool4.call(x)
        // N x 832 x 7 x 7
        x <- inception5a.call(x)
        // N x 832 x 7 x 7
        x <- inception5b.call(x)
        // N x 1024 x 7 x 7
        x <- avgpool.call(x)
        // N x 1024 x 1 x 1
        x <- torch.flatten(x, 1L)
        // N x 1024
        x <- dropout.call(x)
        x <- fc.call(x)
        // N x 1000 (num_classes)
        x.MoveToOuterDisposeScope()

// torchvision.models.googlenet()
let googlenet () = new GoogleNet()

/// Stand-in trained statistics (see the file-top comment).
let trained (m: Module) =
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

let model = googlenet ()
trained model
model.eval() |> ignore

[<Kgen.Entry("float32[2,3,64,64]")>]
let googlenet_forward = <@ fun (x: Tensor) -> model.forward(x) @>
