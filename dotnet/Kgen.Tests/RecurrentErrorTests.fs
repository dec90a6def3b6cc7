// Bad input to the whole-sequence recurrent modules (nn.LSTM / GRU / RNN expanded by
// Kgen.Recurrent; issue 23's "states of the wrong shape"): an initial state or an input of the
// wrong shape, rank or dtype given to a compiled module (Kgen.compile on CPU tensors) is a
// located error at the F# call naming the shapes or dtypes, never a result. Each case first runs
// TorchSharp's native module on the same tensors and requires it to raise too (its message's
// meaning is named beside each case), so the tests follow TorchSharp's own rule. Errors are raised
// when kgen specializes, before any kernel is compiled, and the one valid call runs on the null
// device: the file runs in about a second.
module Kgen.Tests.RecurrentErrorTests

open System
open Xunit
open TorchSharp
open Kgen

type Tensor = torch.Tensor

type private S = (struct (Tensor * Tensor))

/// The native call raises (its message holding `native`), and kgen's compiled call raises a
/// KgenException located in this file (the F# call) whose message holds every fragment.
let private refused (native: unit -> obj) (nativeSays: string) (kgen: unit -> obj) (fragments: string list) =
    let n = Assert.ThrowsAny<exn>(fun () -> native () |> ignore)
    Assert.Contains(nativeSays, n.Message)
    let e = Assert.Throws<Runtime.KgenException>(fun () -> kgen () |> ignore)
    Assert.Contains("RecurrentErrorTests.fs:", e.Message)
    for f in fragments do
        Assert.Contains(f, e.Message)

let private zeros (s: int64 list) = torch.zeros(Array.ofList s)

[<Fact>]
let ``an LSTM's states of the wrong layer count, batch, hidden size, rank or dtype are refused`` () =
    use _g = torch.no_grad ()
    torch.manual_seed 7L |> ignore
    use lstm = torch.nn.LSTM(4L, 5L, numLayers = 2L)
    let f = Kgen.compile <@ fun (x: Tensor) (h0: Tensor) (c0: Tensor) -> let struct (o, h, c) = lstm.forward(x, Nullable<S>(struct (h0, c0))) in (o, h, c) @>
    let x = torch.randn(6L, 3L, 4L)
    let case (h0: Tensor) (c0: Tensor) (which: string) fragments =
        refused (fun () -> box (lstm.forward(x, Nullable<S>(struct (h0, c0))))) which (fun () -> box (f x h0 c0)) fragments
    let ok = zeros [ 2L; 3L; 5L ]
    // fewer layers than the module's: "Expected hidden[0] size 2 3 5, got [1, 3, 5]"
    case (zeros [ 1L; 3L; 5L ]) ok "Expected hidden[0] size" [ "error[shape]"; "shape [2, 3, 5] is invalid for input of shape [1, 3, 5]" ]
    // more layers: before the check, the third layer's state was silently ignored
    case (zeros [ 3L; 3L; 5L ]) ok "Expected hidden[0] size" [ "expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0" ]
    // a batch of 1: before the check, it broadcast over the input's batch of 3
    case (zeros [ 2L; 1L; 5L ]) ok "Expected hidden[0] size" [ "shape [2, 3, 5] is invalid for input of shape [2, 1, 5]" ]
    case (zeros [ 2L; 4L; 5L ]) ok "Expected hidden[0] size" [ "(3) must match the existing size (4) at non-singleton dimension 1" ]
    case (zeros [ 2L; 3L; 6L ]) ok "Expected hidden[0] size" [ "(5) must match the existing size (6) at non-singleton dimension 2" ]
    case (zeros [ 3L; 5L ]) ok "Expected hidden[0] size" [ "invalid for input of shape [3, 5]" ]
    case ok (zeros [ 2L; 1L; 5L ]) "Expected hidden[1] size" [ "invalid for input of shape [2, 1, 5]" ]
    case ok (zeros [ 2L; 3L; 7L ]) "Expected hidden[1] size" [ "(5) must match the existing size (7) at non-singleton dimension 2" ]
    // a float64 state for float32 weights (libtorch: "get_mkldnn_dtype: unsupported data type")
    case (torch.zeros(2L, 3L, 5L, dtype = torch.float64)) ok "" [ "error[type]"; "expected scalar type Double but found Float" ]

[<Fact>]
let ``a batch-first LSTM's states stay sequence-agnostic: [layers, N, H], checked against the batch`` () =
    use _g = torch.no_grad ()
    torch.manual_seed 8L |> ignore
    use lstm = torch.nn.LSTM(4L, 5L, batchFirst = true)
    let f = Kgen.compile <@ fun (x: Tensor) (h0: Tensor) (c0: Tensor) -> let struct (o, h, c) = lstm.forward(x, Nullable<S>(struct (h0, c0))) in (o, h, c) @>
    let x = torch.randn(3L, 6L, 4L) // N = 3, T = 6
    // the states sized by T instead of N
    let h6, c6 = zeros [ 1L; 6L; 5L ], zeros [ 1L; 6L; 5L ]
    refused (fun () -> box (lstm.forward(x, Nullable<S>(struct (h6, c6))))) "Expected hidden[0] size" (fun () -> box (f x h6 c6)) [ "(3) must match the existing size (6) at non-singleton dimension 1" ]
    // the right states are accepted, with the native module's result shapes: on the null device,
    // so no kernel is compiled (the values are the three-way check's: examples/rnn_seq_modules)
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (h0: Tensor) (c0: Tensor) -> let struct (o, h, c) = lstm.forward(x, Nullable<S>(struct (h0, c0))) in (o, h, c) @>, { FastPath.Options.Default with NullDevice = true })
    let h0, c0 = torch.randn(1L, 3L, 5L), torch.randn(1L, 3L, 5L)
    let (o, h, c) = c.Function x h0 c0
    let struct (no, nh, nc) = lstm.forward(x, Nullable<S>(struct (h0, c0)))
    for (a, b) in [ o, no; h, nh; c, nc ] do
        Assert.Equal<int64[]>(b.shape, a.shape)

[<Fact>]
let ``a bidirectional GRU's state must hold both directions`` () =
    use _g = torch.no_grad ()
    torch.manual_seed 9L |> ignore
    use gru = torch.nn.GRU(4L, 5L, bidirectional = true)
    let f = Kgen.compile <@ fun (x: Tensor) (h0: Tensor) -> let struct (o, h) = gru.forward(x, h0) in (o, h) @>
    let x = torch.randn(6L, 3L, 4L)
    for (h0, says) in
        [ zeros [ 1L; 3L; 5L ], "shape [2, 3, 5] is invalid for input of shape [1, 3, 5]"
          zeros [ 2L; 1L; 5L ], "shape [2, 3, 5] is invalid for input of shape [2, 1, 5]"
          zeros [ 4L; 3L; 5L ], "expanded size of the tensor (2) must match the existing size (4) at non-singleton dimension 0" ] do
        refused (fun () -> box (gru.forward(x, h0))) "Expected hidden size" (fun () -> box (f x h0)) [ "error[shape]"; says ]

[<Fact>]
let ``an RNN's input of the wrong feature size, rank or dtype is refused`` () =
    use _g = torch.no_grad ()
    torch.manual_seed 10L |> ignore
    use rnn = torch.nn.RNN(4L, 5L)
    let f = Kgen.compile <@ fun (x: Tensor) -> let struct (o, h) = rnn.forward(x, null) in (o, h) @>
    let fh = Kgen.compile <@ fun (x: Tensor) (h0: Tensor) -> let struct (o, h) = rnn.call(x, h0) in (o, h) @>
    let case (x: Tensor) (nativeSays: string) fragments = refused (fun () -> box (rnn.forward(x, null))) nativeSays (fun () -> box (f x)) fragments
    // "input.size(-1) must be equal to input_size. Expected 4, got 5"
    case (torch.randn(6L, 3L, 5L)) "must be equal to input_size" [ "mat1 and mat2 shapes cannot be multiplied (18x5 and 4x5)" ]
    case (torch.randn(6L, 3L, 1L)) "must be equal to input_size" [ "mat1 and mat2 shapes cannot be multiplied (18x1 and 4x5)" ]
    // "input must have 3 dimensions, got 2": before the check, [T, I] was misread as a batch
    case (torch.randn(6L, 4L)) "input must have 3 dimensions, got 2" [ "number of dims don't match in permute (the input has 2)" ]
    case (torch.randn(6L, 3L, 1L, 4L)) "input must have 3 dimensions, got 4" [ "number of dims don't match in permute (the input has 4)" ]
    // "mat1 and mat2 must have the same dtype, but got Double and Float"
    case (torch.randn(6L, 3L, 4L, dtype = torch.float64)) "must have the same dtype" [ "error[type]"; "expected scalar type Double but found Float" ]
    case (torch.ones(6L, 3L, 4L, dtype = torch.int32)) "must have the same dtype" [ "expected scalar type Int but found Float" ]
    // the state through `call`: "Expected hidden size 1 3 5, got [1, 3, 1]"
    let x, h1 = torch.randn(6L, 3L, 4L), zeros [ 1L; 3L; 1L ]
    refused (fun () -> box (rnn.call(x, h1))) "Expected hidden size" (fun () -> box (fh x h1)) [ "shape [1, 3, 5] is invalid for input of shape [1, 3, 1]" ]
