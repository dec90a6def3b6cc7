// fs_fuzz_bool_times_one: a bool tensor times the int 1 is int64 in PyTorch (a wrapped int promotes bool to the default integer dtype); TorchScript's optimizing executor drops the `* 1` as a no-op and returns bool, so the twin passes the 1 as a 0-dim int64 tensor (kgen fuzz, seed 1544)
module Examples.FsFuzzBoolTimesOne

open TorchSharp

[<Kgen.Entry("float32[13]")>]
let fs_fuzz_bool_times_one =
    <@ fun (x: torch.Tensor) -> x.exp().to_type(torch.bool) * 1 @>
