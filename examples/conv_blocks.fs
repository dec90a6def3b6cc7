// conv_blocks: CNN blocks as few kernels — a ResNet basic block (conv, scale/shift, relu, conv, scale/shift, residual, relu) in two, a MobileNet depthwise + pointwise pair in two, a max pool stored once for the 3x3 convolution that reads it
module Examples.ConvBlocks

open TorchSharp

[<Kgen.Entry("float32[2,8,8,8], float32[8,8,3,3], float32[8,1,1], float32[8,1,1], float32[8,8,3,3], float32[8,1,1], float32[8,1,1]")>]
let resnet_basic_block =
    <@ fun (x: torch.Tensor) (w1: torch.Tensor) (s1: torch.Tensor) (t1: torch.Tensor) (w2: torch.Tensor) (s2: torch.Tensor) (t2: torch.Tensor) ->
        let h = (torch.nn.functional.conv2d(x, w1, padding = [| 1L |]) * s1 + t1).relu()
        (torch.nn.functional.conv2d(h, w2, padding = [| 1L |]) * s2 + t2 + x).relu() @>

[<Kgen.Entry("float32[2,6,9,9], float32[6,1,3,3], float32[6], float32[12,6,1,1], float32[12]")>]
let mobilenet_dw_pw =
    <@ fun (x: torch.Tensor) (wd: torch.Tensor) (bd: torch.Tensor) (wp: torch.Tensor) (bp: torch.Tensor) ->
        let h = torch.nn.functional.relu6(torch.nn.functional.conv2d(x, wd, bd, strides = [| 2L |], padding = [| 1L |], groups = 6L))
        torch.nn.functional.relu6(torch.nn.functional.conv2d(h, wp, bp)) @>

// a ResNet stem's max pool read by a 3x3 convolution (each pooled value read 9 times: stored by a
// kernel of its own) and a 2x2 pool read by one 1x1 convolution (read once: computed in its loads)
[<Kgen.Entry("float32[2,3,21,19], float32[8,3,3,3], float32[8], float32[12,8,3,3], float32[12], float32[6,3,1,1]")>]
let pool_then_convs =
    <@ fun (x: torch.Tensor) (w0: torch.Tensor) (b0: torch.Tensor) (w1: torch.Tensor) (b1: torch.Tensor) (w2: torch.Tensor) ->
        let p = torch.nn.functional.max_pool2d(torch.nn.functional.conv2d(x, w0, b0, padding = [| 1L |]).relu(), [| 3L; 3L |], [| 2L; 2L |], [| 1L; 1L |])
        (torch.nn.functional.conv2d(p, w1, b1, padding = [| 1L |]).relu() + p.mean([| 1L |], keepdim = true),
         torch.nn.functional.conv2d(torch.nn.functional.max_pool2d(x, 2L), w2)) @>

// GoogLeNet's inception pattern: a stage's stride-2 max pool read by two 1x1 convolutions (one
// shared IM2COL: two evaluations per pooled value) and by the branch's 3x3 stride-1 pool (nine),
// whose output one 1x1 convolution reads (once: computed in its loads); the branches concatenated.
// The stage pool is stored by a kernel of its own, the branch pool is not.
[<Kgen.Entry("float32[2,6,13,11], float32[5,6,1,1], float32[5], float32[4,6,1,1], float32[7,6,1,1], float32[7]")>]
let inception_pools =
    <@ fun (x: torch.Tensor) (w1: torch.Tensor) (b1: torch.Tensor) (w2: torch.Tensor) (w4: torch.Tensor) (b4: torch.Tensor) ->
        let p = torch.nn.functional.max_pool2d(x, [| 3L; 3L |], [| 2L; 2L |], ceil_mode = true)
        let q = torch.nn.functional.max_pool2d(p, [| 3L; 3L |], [| 1L; 1L |], [| 1L; 1L |])
        torch.cat([| torch.nn.functional.conv2d(p, w1, b1).relu(); torch.nn.functional.conv2d(p, w2).sigmoid(); torch.nn.functional.conv2d(q, w4, b4) |], 1L) @>
