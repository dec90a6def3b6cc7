// Kgen.Kgen: the entry points an F# user calls (`open Kgen`, then `Kgen.check <@ f @> inputs`).
namespace Kgen

open Microsoft.FSharp.Quotations

[<RequireQualifiedAccess>]
module Kgen =
    /// The three-way check of a quotation on your own inputs (tensors or numbers, in parameter
    /// order): kgen's kernels, the F# function run by TorchSharp, and kgen's TorchScript twin
    /// run by torch.jit, compared output by output (PyTorch's assert_close tolerances; the
    /// rmse-vs-fp64 rule where they fail). Prints a row per output; raises on a mismatch.
    let check (q: Expr) (inputs: obj list) : Check.Row list = Check.quotation q inputs

    /// A quotation as a function of its own type over TorchSharp tensors (curried or tupled as
    /// the quotation is; results a tensor, a number or a tuple): kgen's kernels run each call,
    /// specialized once per input signature; captured tensors are read live at each call.
    let compile (q: Expr<'F>) : 'F = (new Compile.Compiled<'F>(q)).Function

    /// A module's forward (tensor to tensor) as a compiled function: the module is expanded as
    /// in a quotation that calls it (its parameters captured by name and read at each call).
    let compileModule (m: TorchSharp.torch.nn.Module<TorchSharp.torch.Tensor, TorchSharp.torch.Tensor>) : TorchSharp.torch.Tensor -> TorchSharp.torch.Tensor =
        let t = typeof<TorchSharp.torch.Tensor>
        let x = Var("x", t)
        let forward = m.GetType().GetMethod("forward", [| t |])
        let body = Expr.Call(Expr.ValueWithName(m, m.GetType(), "model"), forward, [ Expr.Var x ])
        compile (Expr.Cast<TorchSharp.torch.Tensor -> TorchSharp.torch.Tensor>(Expr.Lambda(x, body)))
