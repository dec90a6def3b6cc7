// fs_fuzz_inplace_fresh_layout: in-place ops on tensors that kgen computes with layout ops but PyTorch makes fresh (rand_like, flip, max_pool2d), and on a tensor whose only reader is such an op: not views, so PyTorch changes them alone (kgen refused rand_like(x).mul_(s) as a view: kgen fuzz seed 3, reduced)
module Examples.FsFuzzInplaceFreshLayout

open TorchSharp

[<Kgen.Entry("float32[2,3,6,5]")>]
let fs_fuzz_inplace_fresh_layout =
    <@ fun (x: torch.Tensor) ->
        let r = x.rand_like()
        r.mul_(TorchSharp.Scalar.op_Implicit 0.5f) |> ignore
        let f = x.flip([| 1L |])
        f.relu_() |> ignore
        let p = torch.nn.functional.max_pool2d(x, [| 2L; 2L |])
        p.mul_(TorchSharp.Scalar.op_Implicit 2.0f) |> ignore
        let t = x * 2.0f
        let u = t.flip([| 3L |])
        t.relu_() |> ignore
        r, f, p, t, u @>
