// vgg: TorchVision's VGG-11 (TorchSharp's own C# port of torchvision/models/vgg.py, configuration
// "A": eight 3x3 convolutions with ReLU and five max pools, an adaptive average pool to 7x7, a
// classifier of three linear layers with ReLU and dropout), in evaluation mode, transcribed from
// C# into F#.
//
// Source: https://github.com/dotnet/TorchSharp, commit c20b6a1cc574d690707638a488d2583f3b8b983f
//   src/TorchVision/models/VGG.cs (vgg11, the VGG constructor and forward)
// Changes F# needs: [<ReflectedDefinition>] on forward; C#'s `using (var _ = NewDisposeScope())`
// is `use _ =`; the `named_modules()` type switch is a match; the configuration dictionary is
// an F# dict. Left out: loading a weights file, the device move.
// Sizes: VGG-11 as TorchVision builds it (feature widths 64 ... 512, 1000 classes) except the
// classifier's hidden width, 4096 -> 256 (the source's 512·7·7 -> 4096 -> 4096 is 120M of its
// 133M parameters: half a gigabyte the checks would draw, copy and multiply for one image); a
// batch of 2 images of 3x32x32 (ImageNet's are 224x224): the five pools leave 1x1, which the
// adaptive pool spreads to 7x7 as it does in the source.
module Models.Vgg

open System
open System.Collections.Generic
open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn
open FSharp.Core.Operators   // reclaim int64, float32 from `open type torch`

/// The classifier's hidden width (the source: 4096; see the file-top comment).
let hidden = 256L

type VGG(name: string, numClasses: int, batch_norm: bool, ?dropout: float32) as this =
    inherit Module<Tensor, Tensor>(name)

    // The code here is based on
    // https://github.com/pytorch/vision/blob/main/torchvision/models/vgg.py
    // Licence and copypright notice at: https://github.com/pytorch/vision/blob/main/LICENSE

    let dropout = defaultArg dropout 0.5f

    let _channels =
        dict [
            "VGG11", [| 64L; 0L; 128L; 0L; 256L; 256L; 0L; 512L; 512L; 0L; 512L; 512L; 0L |]
            "VGG13", [| 64L; 64L; 0L; 128L; 128L; 0L; 256L; 256L; 0L; 512L; 512L; 0L; 512L; 512L; 0L |]
            "VGG16", [| 64L; 64L; 0L; 128L; 128L; 0L; 256L; 256L; 256L; 0L; 512L; 512L; 512L; 0L; 512L; 512L; 512L; 0L |]
            "VGG19", [| 64L; 64L; 0L; 128L; 128L; 0L; 256L; 256L; 256L; 256L; 0L; 512L; 512L; 512L; 512L; 0L; 512L; 512L; 512L; 512L; 0L |]
        ]

    let features =
        let layers = List<Module<Tensor, Tensor>>()
        let channels = _channels.[name]
        let mutable in_channels = 3L
        for i in 0 .. channels.Length - 1 do
            if channels.[i] = 0L then
                layers.Add(MaxPool2d(kernel_size = 2L, stride = 2L))
            else
                layers.Add(Conv2d(in_channels, channels.[i], kernel_size = 3L, padding = 1L))
                if batch_norm then
                    layers.Add(BatchNorm2d(channels.[i]))
                layers.Add(ReLU(inplace = true))
                in_channels <- channels.[i]
        Sequential(layers)
    let avgpool = AdaptiveAvgPool2d([| 7L; 7L |])
    let classifier =
        Sequential(
            Linear(512L * 7L * 7L, hidden),
            ReLU(true),
            Dropout(p = float dropout),
            Linear(hidden, hidden),
            ReLU(true),
            Dropout(p = float dropout),
            Linear(hidden, int64 numClasses)
            )

    do
        this.RegisterComponents()

        for struct (_, m) in this.named_modules() do
            match m with
            // This test must come before the Tensor test
            | :? Modules.Conv2d as conv ->
                torch.nn.init.kaiming_normal_(conv.weight, mode = init.FanInOut.FanOut, nonlinearity = init.NonlinearityType.ReLU) |> ignore
                if not (isNull conv.bias) && not conv.bias.IsInvalid then
                    torch.nn.init.constant_(conv.bias, 0) |> ignore
            | :? Modules.BatchNorm2d as bn ->
                torch.nn.init.constant_(bn.weight, 1) |> ignore
                torch.nn.init.constant_(bn.bias, 0) |> ignore
            | :? Modules.Linear as ln ->
                torch.nn.init.normal_(ln.weight, 0.0, 0.01) |> ignore
                torch.nn.init.constant_(ln.bias, 0) |> ignore
            | _ -> ()

    [<ReflectedDefinition>]
    override _.forward(input: Tensor) =
        use _ = NewDisposeScope()
        let mutable input = features.call(input)
        input <- avgpool.call(input).flatten(1L)
        classifier.call(input).MoveToOuterDisposeScope()

// torchvision.models.vgg11()
let vgg11 (num_classes: int) = new VGG("VGG11", num_classes, false, 0.5f)

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let model = vgg11 1000
model.eval() |> ignore

[<Kgen.Entry("float32[2,3,32,32]")>]
let vgg11_forward = <@ fun (input: Tensor) -> model.forward(input) @>
