// fs_fuzz_masked_fill_inplace: masked_fill_ on an intermediate (a cosine of a product) with a mask from a selected column of a cat: elaborating masked_fill read the input's node through a pointer that adding its where() had freed (kgen fuzz under ASan, seed 40006)
module Examples.FsFuzzMaskedFillInplace
open TorchSharp

[<Kgen.Entry("uint8[1,8], uint8[1,8], uint8[8,7]")>]
let fs_fuzz_masked_fill_inplace =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) ->
        let t0 = torch.cat([| z; z |], 1L)
        let t3 = y.to_type(torch.float32)
        let t7 = z.matmul(z.div(z.abs() + 1, torch.RoundingMode.floor).t()).cos()
        let t9 = t0.select(1L, 1L)
        t7.masked_fill_(t9.eq(1.0f.ToScalar()), TorchSharp.Scalar.op_Implicit -0.5f) |> ignore
        (t7, t9 / (t3.mean([| -2L |], false).abs() + 1.0f), t9.select(0L, -6L)) @>
