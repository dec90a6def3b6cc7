// layer_norm: nn.functional.layer_norm(x, [| D |], w, b, 1e-5) over the rows of a float32 ["R", "D"],
// weight and bias ["D"] (perf/bench_reduce). normalized_shape is a constant in the quotation (in F#,
// `let layerNorm (d: int64) = <@ ... [| d |] ... @>` bakes d in), so there is one entry per D:
// layer_norm_<D>; each still has the symbolic signature ["R", "D"].
module Perf.LayerNorm

open TorchSharp

let layer_norm_4096 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 4096L |], w, b, 1e-5) @>

let layer_norm_1024 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 1024L |], w, b, 1e-5) @>

let layer_norm_1048576 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 1048576L |], w, b, 1e-5) @>

let layer_norm_64 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 64L |], w, b, 1e-5) @>

let layer_norm_16 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 16L |], w, b, 1e-5) @>
