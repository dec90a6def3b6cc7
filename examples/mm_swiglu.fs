// mm_swiglu: the SwiGLU MLP (GenAI Llama): down(silu(gate(x)) * up(x)): the up projection's kernel reads the gate product's silu from memory, so the gate's kernel must store it (the fuser left it unstored: found by the Llama MLP transcription)
module Examples.MmSwiglu

open TorchSharp

[<Kgen.Entry("float32[2,3,8], wg=float32[16,8], wu=float32[16,8], wd=float32[8,16]")>]
let mm_swiglu (wg: torch.Tensor) (wu: torch.Tensor) (wd: torch.Tensor) =
    <@ fun (x: torch.Tensor) ->
        let g = torch.nn.functional.silu(torch.matmul(x, wg.t()))
        torch.matmul(g * torch.matmul(x, wu.t()), wd.t()) @>
