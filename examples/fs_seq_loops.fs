// fs_seq_loops: `for w in [| a; b; a * b |]` over arrays of tensors and of numbers, `for v in [ ... ]` over a list, `Seq.iter` / `List.iter` over int64 ranges with a run-time end, and int64 ranges (reversed, stepped) inside a map lambda: kgen unrolls what it knows when it compiles and loops over the rest
module Examples.FsSeqLoops

open TorchSharp

[<Kgen.Entry("float32[N,8], float32[8], float32[8]")>]
let fs_seq_loops =
    <@ fun (x: torch.Tensor) (a: torch.Tensor) (b: torch.Tensor) ->
        // arrays and lists of tensors and numbers: one copy of the body per item
        let mutable acc = torch.zeros_like x
        for w in [| a; b; a * b |] do
            acc <- acc + x * w
        for s in [| 0.5f; 0.25f; 2.0f; 1.5f; 0.75f |] do
            acc <- (acc * s).tanh ()
        for v in [ a.sigmoid (); b.relu () ] do
            acc <- acc - v
        // Seq.iter / List.iter over ranges whose end is known at run time
        let mutable rows = torch.zeros_like (x.[0L])
        seq { 0L .. x.shape.[0] - 1L } |> Seq.iter (fun t -> rows <- rows + x.[t])
        List.iter (fun (t: int64) -> rows <- rows * 0.5f + x.[t]) [ 1L .. 3L .. x.shape.[0] - 1L ]
        // element level: int64 ranges in a map lambda (Horner's rule, then a stepped correction)
        let poly =
            x
            |> Kgen.Ops.map (fun (v: float32) ->
                let mutable p = 0.0f
                for k in 4L .. -1L .. 0L do
                    p <- p * 0.5f * v + float32 k
                for k in 0L .. 2L .. 5L do
                    p <- p - 0.01f * float32 k * v
                p)
        acc, rows, poly @>
