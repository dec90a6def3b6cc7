// fs_split_overloads: TorchSharp's overloads as F# binds them — x.split(3L, 2) (pieces of 3 along dim 2: the dim is an int), x.split([| 1L; 4L |]) (sizes along dim 0), x.split(3L, 2L) (F# picks split(params int64[] sizes): sizes [3; 2] along dim 0, and kgen warns that 2 could have been meant as the dim), and x.pow(2.0f.ToScalar()) / x.eq(0.0f.ToScalar()), what kgen-fsharp's hint under F#'s FS0041 for x.pow(2.0f) says to write
module Examples.FsSplitOverloads

open TorchSharp

[<Kgen.Entry("float32[5,4,6]")>]
let fs_split_overloads =
    <@ fun (x: torch.Tensor) ->
        let pieces = x.split (3L, 2)
        let sizes = x.split ([| 1L; 4L |])
        let parts = x.split (3L, 2L) // warning: sizes [3; 2] along dim 0
        let sq = pieces.[0].pow (2.0f.ToScalar())
        let zeros = parts.[1].eq (0.0f.ToScalar())
        sq + pieces.[1], sizes.[1].sum (0L) * 0.5f, parts.[0] - sizes.[0], zeros @>
