// fs_red_reads_squeezed_red: a reduction over rows that reads an earlier reduction of the same rows without keepdim: on a square [6, 6] the 6 row means broadcast along the columns (PyTorch's right alignment), so the second reduction cannot read them per row
module Examples.FsRedReadsSqueezedRed
open TorchSharp

[<Kgen.Entry("float32[6,6]")>]
let fs_red_reads_squeezed_red =
    <@ fun (x: torch.Tensor) -> (x - x.mean([| 1L |])).sum(1L) @>
