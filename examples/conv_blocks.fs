// conv_blocks: CNN blocks as few kernels — a ResNet basic block (conv, scale/shift, relu, conv, scale/shift, residual, relu) in two, a MobileNet depthwise + pointwise pair in two
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
