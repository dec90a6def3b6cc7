// resnet: TorchVision's ResNet-18 (TorchSharp's own C# port of torchvision/models/resnet.py):
// the 7x7 stem with batch norm, ReLU and max pool, four layers of two BasicBlocks each (3x3
// convolution, batch norm, ReLU, 3x3 convolution, batch norm, the identity or a 1x1-convolution
// downsample added, ReLU), global average pool, flatten, linear; in evaluation mode; and one
// BasicBlock with a downsample in training mode (batch statistics, running statistics updated in
// place), transcribed from C# into F#.
//
// Source: https://github.com/dotnet/TorchSharp, commit c20b6a1cc574d690707638a488d2583f3b8b983f
//   src/TorchVision/models/ResNet.cs (resnet18, ResNet.ResNet18, the ResNet constructor,
//   MakeLayer, forward, BasicBlock)
// Changes F# needs: [<ReflectedDefinition>] on the forwards; F# has no nested classes, so
// BasicBlock (private in ResNet) comes first, its `internal bn2` the member Bn2 (F# forbids a
// member and a let of one name); the BlockFunc delegate
// is an F# function of a tuple; C#'s `using (var scope = NewDisposeScope())` is `use scope =`,
// `scope.MoveToOuter(res)` returns its argument (ignored, as C# discards it); `downsample is not
// null` is `not (isNull downsample)`; the `foreach (var (_, m) in named_modules())` type switch
// is a match over the tuples. Left out: the Bottleneck block (ResNet-50 and up), loading a
// weights file, the device move, replace_stride_with_dilation (ResNet-18 passes none).
// The entries run with stand-in trained statistics: the source initializes every BatchNorm2d
// to weight 1, bias 0, running mean 0, variance 1 (an identity in evaluation mode), so after
// construction each gets random running statistics and affine parameters, as a checkpoint would.
// Sizes: ResNet-18 as TorchVision builds it (widths 64/128/256/512, 11.7M parameters, 1000
// classes); a batch of 2 images of 3x64x64 (ImageNet's are 224x224), so layer4 runs at 2x2.
module Models.ResNet

open System
open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn
open FSharp.Core.Operators   // reclaim int64 from `open type torch`

type BasicBlock(in_planes: int, planes: int, stride: int, downsample: Module<Tensor, Tensor>,
                groups: int, base_width: int, dilation: int, norm_layer: Func<int, Module<Tensor, Tensor>>) as this =
    inherit Module<Tensor, Tensor>("BasicBlock")

    do
        if groups <> 1 || base_width <> 64 then raise (ArgumentException("BasicBlock only supports groups=1 and base_width=64"))
        if dilation > 1 then raise (NotImplementedException("dilation > 1 not supported in BasicBlock"))

    let norm_layer = if isNull norm_layer then Func<int, Module<Tensor, Tensor>>(fun planes -> BatchNorm2d(int64 planes)) else norm_layer

    let conv1 = Conv2d(int64 in_planes, int64 planes, kernel_size = 3L, stride = int64 stride, padding = 1L, bias = false)
    let bn1 = norm_layer.Invoke(planes)
    let relu1 = ReLU(inplace = true)
    let conv2 = Conv2d(int64 planes, int64 planes, kernel_size = 3L, stride = 1L, padding = 1L, bias = false)
    let bn2 = norm_layer.Invoke(planes)
    let downsample = downsample

    do this.RegisterComponents()

    static member expansion = 1

    member _.Bn2 = bn2

    [<ReflectedDefinition>]
    override _.forward(input: Tensor) =
        let identity = input

        let mutable x = relu1.call(bn1.call(conv1.call(input)))
        x <- bn2.call(conv2.call(x))

        let identity = if not (isNull downsample) then downsample.call(input) else identity

        x.add_(identity).relu_()

/// ResNet.BlockFunc: (inplanes, planes, stride, downsample, groups, base_width, dilation, norm_layer)
type BlockFunc = int * int * int * Module<Tensor, Tensor> * int * int * int * Func<int, Module<Tensor, Tensor>> -> Module<Tensor, Tensor>

type ResNet(name: string, block: BlockFunc, expansion: int, layers: int[], numClasses: int, zero_init_residual: bool,
            groups: int, width_per_group: int, norm_layer: Func<int, Module<Tensor, Tensor>>) as this =
    inherit Module<Tensor, Tensor>(name)

    let norm_layer = if not (isNull norm_layer) then norm_layer else Func<int, Module<Tensor, Tensor>>(fun planes -> BatchNorm2d(int64 planes))

    let mutable in_planes = 64
    let mutable dilation = 1
    let groups = groups
    let base_width = width_per_group

    let layer1 = Sequential()
    let layer2 = Sequential()
    let layer3 = Sequential()
    let layer4 = Sequential()

    let makeLayer (modules: Modules.Sequential) (block: BlockFunc) (expansion: int) (planes: int) (blocks: int) (stride: int) (dilate: bool) =
        let mutable downsample : Module<Tensor, Tensor> = null
        let previous_dilation = dilation
        let mutable stride = stride

        if dilate then
            dilation <- dilation * stride
            stride <- 1

        if stride <> 1 || in_planes <> planes * expansion then
            downsample <-
                Sequential(
                    Conv2d(int64 in_planes, int64 (planes * expansion), kernel_size = 1L, stride = int64 stride, bias = false),
                    norm_layer.Invoke(planes * expansion))

        modules.append(block (in_planes, planes, stride, downsample, groups, base_width, previous_dilation, norm_layer)) |> ignore

        in_planes <- planes * expansion

        for i in 1 .. blocks - 1 do
            modules.append(block (in_planes, planes, 1, null, groups, base_width, dilation, norm_layer)) |> ignore

    let conv1 = Conv2d(3L, int64 in_planes, kernel_size = 7L, stride = 2L, padding = 3L, bias = false)
    let bn1 = norm_layer.Invoke(in_planes)
    let relu = ReLU(inplace = true)
    let maxpool = MaxPool2d(kernel_size = 3L, stride = 2L, padding = 1L)

    do
        makeLayer layer1 block expansion 64 layers.[0] 1 false
        makeLayer layer2 block expansion 128 layers.[1] 2 false
        makeLayer layer3 block expansion 256 layers.[2] 2 false
        makeLayer layer4 block expansion 512 layers.[3] 2 false

    let avgpool = nn.AdaptiveAvgPool2d([| 1L; 1L |])
    let flatten = Flatten()
    let fc = Linear(int64 (512 * expansion), int64 numClasses)

    do
        this.RegisterComponents()

        for struct (_, m) in this.named_modules() do
            match m with
            | :? Modules.Conv2d as conv ->
                torch.nn.init.kaiming_normal_(conv.weight, mode = init.FanInOut.FanOut, nonlinearity = init.NonlinearityType.ReLU) |> ignore
            | :? Modules.BatchNorm2d as bn ->
                torch.nn.init.constant_(bn.weight, 1) |> ignore
                torch.nn.init.constant_(bn.bias, 0) |> ignore
            | :? Modules.GroupNorm as gn ->
                torch.nn.init.constant_(gn.weight, 1) |> ignore
                torch.nn.init.constant_(gn.bias, 0) |> ignore
            | _ -> ()

        if zero_init_residual then
            for struct (_, m) in this.named_modules() do
                match m with
                | :? BasicBlock as bb ->
                    match bb.Bn2 with
                    | :? Modules.BatchNorm2d as bb2d -> torch.nn.init.constant_(bb2d.weight, 0) |> ignore
                    | _ -> ()
                | _ -> ()

    static member ResNet18(?numClasses: int, ?zero_init_residual: bool, ?groups: int, ?width_per_group: int,
                           ?norm_layer: Func<int, Module<Tensor, Tensor>>) =
        new ResNet(
            "ResNet18",
            (fun (in_planes, planes, stride, downsample, groups, base_width, dilation, norm_layer) ->
                new BasicBlock(in_planes, planes, stride, downsample, groups, base_width, dilation, norm_layer) :> Module<Tensor, Tensor>),
            BasicBlock.expansion, [| 2; 2; 2; 2 |],
            defaultArg numClasses 1000,
            defaultArg zero_init_residual false,
            defaultArg groups 1,
            defaultArg width_per_group 64,
            defaultArg norm_layer null)

    [<ReflectedDefinition>]
    override _.forward(input: Tensor) =
        use scope = NewDisposeScope()

        let mutable x = maxpool.call(relu.call(bn1.call(conv1.call(input))))

        x <- layer1.call(x)
        x <- layer2.call(x)
        x <- layer3.call(x)
        x <- layer4.call(x)

        let res = fc.call(flatten.call(avgpool.call(x)))
        scope.MoveToOuter(res) |> ignore
        res

// torchvision.models.resnet18()
let resnet18 (numClasses: int) = ResNet.ResNet18(numClasses)

/// Stand-in trained statistics (see the file-top comment): every BatchNorm2d's running mean,
/// running variance, weight and bias drawn at a checkpoint's scale.
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

let model = resnet18 1000
trained model
model.eval() |> ignore

[<Kgen.Entry("float32[2,3,64,64]")>]
let resnet18_forward = <@ fun (input: Tensor) -> model.forward(input) @>

// one BasicBlock of layer2 (64 -> 128, stride 2, with its downsample) in training mode
let block =
    new BasicBlock(64, 128, 2, Sequential(Conv2d(64L, 128L, kernel_size = 1L, stride = 2L, bias = false), BatchNorm2d(128L)),
                   1, 64, 1, null)
trained block
block.train() |> ignore

[<Kgen.Entry("float32[2,64,16,16]")>]
let resnet_basic_block_train = <@ fun (input: Tensor) -> block.forward(input) @>
