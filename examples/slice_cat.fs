// slice_cat: narrow, slicing with steps, chunk, split, select, unbind, cat, stack, flip, roll, repeat and expand, read by the consuming kernel (cat as predicated loads)
module Examples.SliceCat

open TorchSharp

/// rotary-style halves: x1, x2 = chunk(2); cat(-x2, x1)
[<Kgen.Entry("float32[3,8]")>]
let slice_rotate_half =
    <@ fun (x: torch.Tensor) ->
        let parts = x.chunk(2L, -1L)
        torch.cat([| -parts.[1]; parts.[0] |], -1L) * x @>

/// narrow, slice with a step, select and stack
[<Kgen.Entry("float32[6,7]")>]
let slice_narrow_step_stack =
    <@ fun (x: torch.Tensor) ->
        let a = x.narrow(1L, 2L, 3L)
        let b = x.slice(1L, 0L, 6L, 2L)
        let r = x.select(0L, -1L)
        torch.stack([| a; b |], 0L) + r.narrow(0L, 0L, 3L) @>

/// split sizes, unbind, flip, roll, repeat, expand
[<Kgen.Entry("float32[4,5], float32[5]")>]
let slice_split_flip_roll =
    <@ fun (x: torch.Tensor) (v: torch.Tensor) ->
        let s = x.split([| 1L; 3L |], 0L)
        let rows = x.unbind(0L)
        let f = s.[1].flip(0L, 1L) + rows.[0]
        let g = x.roll(2L, System.Nullable 1L) + v.expand(4L, 5L)
        (f, g, v.repeat(2L, 1L)) @>

/// cat of three inputs of mixed dtypes along dim 0 (PyTorch promotes)
[<Kgen.Entry("float32[2,3], int32[1,3], float16[3,3]")>]
let slice_cat_promote =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) ->
        torch.cat([| a; b; c |], 0L).relu() @>
