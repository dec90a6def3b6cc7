// cast_dtype_aliases: to_type with the alias fields torch.double / long / half / float / short / int
module Examples.CastDtypeAliases

open TorchSharp

[<Kgen.Entry("float32[64]")>]
let cast_dtype_aliases =
    <@ fun (x: torch.Tensor) ->
        (x.to_type(torch.double),
         x.to_type(torch.long),
         x.to_type(torch.half),
         x.to_type(torch.float),
         x.to_type(torch.short),
         x.to_type(torch.int)) @>
