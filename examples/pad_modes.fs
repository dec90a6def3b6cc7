// pad_modes: torch.nn.functional.pad as index arithmetic in the reading kernel — constant (a value; negative pads crop), reflect, replicate and circular
module Examples.PadModes

open TorchSharp

[<Kgen.Entry("float32[2,3,5,4]")>]
let pad_modes =
    <@ fun (x: torch.Tensor) ->
        torch.nn.functional.pad(x, [| 1L; 2L; 0L; 3L |], value = 1.5),
        torch.nn.functional.pad(x, [| -1L; 2L; 1L; -2L; 1L; 1L |]),
        torch.nn.functional.pad(x, [| 3L; 2L; 4L; 1L |], PaddingModes.Reflect),
        torch.nn.functional.pad(x, [| 2L; 5L; 1L; 0L |], PaddingModes.Replicate) + 1.0f,
        torch.nn.functional.pad(x, [| 4L; 1L; 2L; 3L |], PaddingModes.Circular) @>

[<Kgen.Entry("float32[3,7]")>]
let pad_1d =
    <@ fun (x: torch.Tensor) ->
        torch.nn.functional.pad(x, [| 2L; 3L |], PaddingModes.Reflect), torch.nn.functional.pad(x, 1L) @>
