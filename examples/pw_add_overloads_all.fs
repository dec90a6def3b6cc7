// pw_add_overloads_all: + with Int32 / Int64 / Single / Double on both sides of a float32 tensor
module Examples.PwAddOverloadsAll

open TorchSharp

[<Kgen.Entry("float32[96]")>]
let pw_add_overloads_all =
    <@ fun (x: torch.Tensor) -> 1 + x + 2L + (3L + x + 0.5f) + (0.25f + x + 1.5) + (2.0 + x + 4) @>
