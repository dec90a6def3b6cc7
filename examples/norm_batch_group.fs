// norm_batch_group: batch_norm in evaluation mode (captured running statistics, folded into the relu's kernel) and in training mode without running statistics (batch statistics), instance_norm, group_norm with 1, 2 and C groups
module Examples.NormBatchGroup

open TorchSharp

[<Kgen.Entry("float32[2,6,5,3], float32[6], float32[6], float32[6], float32[6], float32[3,4,7]")>]
let norm_batch_group =
    <@ fun (x: torch.Tensor) (rm: torch.Tensor) (rv: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (s: torch.Tensor) ->
        (torch.nn.functional.batch_norm(x, rm, rv.abs() + 0.5f, w, b).relu(),
         torch.nn.functional.batch_norm(x, null, null, w, b, true, 0.1, 1e-3),
         torch.nn.functional.batch_norm(s, null, null, training = true),
         torch.nn.functional.instance_norm(x, weight = w, bias = b),
         torch.nn.functional.group_norm(x, 2L, w, b),
         torch.nn.functional.group_norm(x, 1L),
         torch.nn.functional.group_norm(x, 6L, w, b, 1e-2)) @>
