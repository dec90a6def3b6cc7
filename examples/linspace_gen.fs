// linspace_gen: torch.linspace with static and symbolic step counts (PyTorch's symmetric formula; steps 0 and 1; integer dtypes truncate), used in a fused expression
module Examples.LinspaceGen

open TorchSharp

[<Kgen.Entry("float32[N,7]")>]
let linspace_gen =
    <@ fun (x: torch.Tensor) ->
        x * torch.linspace(-1.0, 2.5, 7L), torch.linspace(0.0, 1.0, x.shape.[0]), torch.linspace(0.0, 10.0, 5L, dtype = torch.int64),
        torch.linspace(3.0, 3.0, 1L), torch.linspace(-3.0, 7.5, 0L), torch.linspace(1.0, -2.0, 9L, dtype = torch.float64),
        torch.linspace(0.0, 1.0, 11L, dtype = torch.float16) @>
