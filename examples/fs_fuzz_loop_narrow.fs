// fs_fuzz_loop_narrow: narrow of a tensor a while loop carried: the host plan's view read the carried tensor's node through a pointer that adding narrow's start had freed (kgen fuzz under ASan, seed 984)
module Examples.FsFuzzLoopNarrow
open TorchSharp

[<Kgen.Entry("uint8[1,N,1,1], uint8[1,N,9,1]")>]
let fs_fuzz_loop_narrow =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let mutable c0 = x
        let mutable n0 = 0
        while n0 < 3 do
            c0 <- (c0 + x) % 100
            n0 <- n0 + 1
        torch.nn.functional.leaky_relu(c0.float(), 0.01, false).narrow(1L, 3L, 4L).clamp((-1.5f).ToScalar(), 1.5f.ToScalar()) @>
