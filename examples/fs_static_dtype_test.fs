// fs_static_dtype_test: tests on static facts as real F# writes them (`x.dtype = torch.float32`,
// `x.dim() = 2`, `x.shape.[1] = 33L`), folded when the entry is specialized: one branch remains
module Examples.FsStaticDtypeTest

open TorchSharp

[<Kgen.Entry("float16[4,33], float32[33]")>]
let fs_static_dtype_test =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) ->
        let y = if x.dtype = torch.float32 then x + b else x.to_type(torch.float32) + b
        let z = if x.dim() = 2L && x.shape.[1] = 33L then y.relu() else y
        if b.dtype <> torch.float64 then z * 2.0f else z @>
