// Kgen.Autograd: a kgen call inside TorchSharp's autograd (issue 24).
//
// When grad mode is on and an argument or a captured tensor (a module's parameter) requires grad,
// a compiled function's call goes through KgenFunction, a torch.autograd.MultiTensorFunction:
//   forward   the engine specializes the entry for the gradients of the floating tensors that
//             require grad (kg_specialize_grad: the forward saves what its backward reads, a
//             minimum cut of bytes) and runs the forward kernels; the tensors the backward reads
//             (arguments, results, saved values) go to ctx.save_for_backward (PyTorch's version
//             checks: an in-place change before backward is an error), integer and bool results
//             are marked non-differentiable;
//   backward  kgen's backward kernels on the results' gradients and the saved tensors, at the
//             generator state the forward drew at (dropout's masks drawn again); the gradients
//             of the arguments and captures that require grad, null elsewhere.
// So `loss.backward()` fills .grad of the captured parameters as eager TorchSharp does. Under
// no_grad, or with nothing requiring grad, the call is the plain fast path and nothing is saved.
// A function kgen cannot differentiate (host control flow, a map lambda) fails at the call with
// kgen's located error: never a silent detach.
module Kgen.Autograd

open System.Collections.Generic
open TorchSharp
open Kgen.FastPath

type private Tensor = torch.Tensor

let private isFloating (t: Tensor) =
    let st = t.dtype
    st = torch.ScalarType.Float32 || st = torch.ScalarType.Float64 || st = torch.ScalarType.Float16 || st = torch.ScalarType.BFloat16

/// The autograd node of a kgen call. Its vars: the engine, then the call's arguments (tensors,
/// or placeholder numbers) and captures (Engine.AutogradVars).
type KgenFunction() =
    inherit torch.autograd.MultiTensorFunction<KgenFunction>()
    override _.Name = "KgenFunction"

    override _.forward(ctx, vars) =
        let engine = vars.[0] :?> Engine
        let call = engine.ForwardForGrad()
        let nIn = engine.InputCount
        // what the backward reads besides the results' gradients, in its input order
        let needed = List<Tensor>()
        for struct (src, idx) in call.Spec.BwdIn do
            match src with
            | s when s = Kgen.Native.Lib.BwdInInput -> needed.Add call.Args.[idx]
            | s when s = Kgen.Native.Lib.BwdInCapture -> needed.Add call.Args.[nIn + idx]
            | s when s = Kgen.Native.Lib.BwdInResult -> needed.Add call.Results.[idx]
            | s when s = Kgen.Native.Lib.BwdInSaved -> needed.Add call.Saved.[idx]
            | _ -> ()
        ctx.save_for_backward needed
        ctx.save_data("kgen", box call)
        let nondiff = call.Results |> Array.filter (fun t -> not (isFloating t))
        if nondiff.Length > 0 then ctx.mark_non_differentiable(List<Tensor>(nondiff))
        List<Tensor>(call.Results)

    override _.backward(ctx, grads) =
        let call = ctx.get_data "kgen" :?> GradCall
        let saved = ctx.get_saved_variables()
        let needed : Tensor[] = Array.zeroCreate call.Spec.BwdIn.Length
        let mutable k = 0
        call.Spec.BwdIn |> Array.iteri (fun i (struct (src, _)) ->
            if src <> Kgen.Native.Lib.BwdInGrad then
                needed.[i] <- saved.[k]
                k <- k + 1)
        let gs = call.Engine.BackwardOf(call, needed, grads.ToArray())
        let res = List<Tensor>(gs.Length + 1)
        res.Add null // the engine
        for g in gs do res.Add g
        res

/// Runs the call whose arguments are set through KgenFunction (its results: the engine's outputs).
let invoke (engine: Engine) =
    let outs = KgenFunction.apply(engine.AutogradVars())
    engine.SetOutputs(outs.ToArray())
