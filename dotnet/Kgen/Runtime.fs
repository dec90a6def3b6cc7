// Kgen.Runtime: kgen's C library (libkgen) from F#, on TorchSharp tensors.
//
// SafeHandles own the context, module and compiled handles (a module and its compiled
// entries keep their context alive); every failing call becomes a KgenException carrying
// kgen's diagnostic (JSON path, F# position). Tensors cross as borrowed DLPack views: the data
// pointer from TorchSharp's THSTensor_data (storage offset included, every dtype), shape and
// strides in elements, so views and non-contiguous tensors need no copy. Outputs are
// allocated by TorchSharp (torch.empty on the inputs' device) and passed as destinations.
// CPU tensors run on kgen's emulator (the same CUDA C, compiled by the host C compiler and
// cached), CUDA tensors through NVRTC and the Driver API on the legacy default stream.
// A context serializes its calls with a lock (kgen.h: a context is not for concurrent use).
module Kgen.Runtime

#nowarn "9" // native pointers: the DLPack views

open System
open Microsoft.FSharp.NativeInterop
open System.Runtime.InteropServices
open System.Text
open Microsoft.Win32.SafeHandles
open TorchSharp
open Kgen.Native

type private Tensor = torch.Tensor

/// A failure reported by kgen: Status 1 is bad input (document, signature, tensors), 2 an
/// internal error; the message is kgen's diagnostic.
type KgenException(message: string, status: int) =
    inherit Exception(message)
    member _.Status = status
    member _.IsInputError = status = 1

/// A native kgen handle (context, module or compiled entry) and the function that frees it.
/// A module needs its context and a compiled entry its module until they are freed, also when
/// the finalizer frees them in any order: a child holds a reference on its parent handle
/// (DangerousAddRef), released after the child is freed.
[<AllowNullLiteral>]
type KgHandle(p: nativeint, release: nativeint -> unit, parent: KgHandle) as this =
    inherit SafeHandleZeroOrMinusOneIsInvalid(true)
    do
        if not (isNull parent) then
            let mutable added = false
            parent.DangerousAddRef(&added)
        this.SetHandle p
    new(p, release) = new KgHandle(p, release, null)
    override h.ReleaseHandle() =
        release h.handle
        if not (isNull parent) then parent.DangerousRelease()
        true

let private utf8z (s: string) =
    let b = Encoding.UTF8.GetBytes s
    Array.append b [| 0uy |]

let private dl (code: byte) (bits: byte) = DLDataType(Code = code, Bits = bits, Lanes = 1us)

/// kgen's DLPack dtype of a TorchSharp scalar type (c10's numbering); ok false when kgen has none.
let internal dlOfScalarType (t: sbyte) (ok: byref<bool>) =
    ok <- true
    match t with
    | 11y -> dl 6uy 8uy // Bool
    | 0y -> dl 1uy 8uy // Byte
    | 1y -> dl 0uy 8uy // Int8
    | 2y -> dl 0uy 16uy // Int16
    | 3y -> dl 0uy 32uy // Int32
    | 4y -> dl 0uy 64uy // Int64
    | 5y -> dl 2uy 16uy // Float16
    | 15y -> dl 4uy 16uy // BFloat16
    | 6y -> dl 2uy 32uy // Float32
    | 7y -> dl 2uy 64uy // Float64
    | _ ->
        ok <- false
        dl 0uy 0uy

let private dlType (t: torch.ScalarType) =
    let mutable ok = false
    let d = dlOfScalarType (sbyte t) &ok
    if not ok then
        raise (KgenException(sprintf "tensors of dtype %O are not supported by kgen (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64 are)" t, 1))
    d

/// The TorchSharp scalar type of a DLPack dtype kgen reports.
let internal scalarTypeOf (d: DLDataType) =
    match d.Code, d.Bits with
    | 6uy, 8uy -> torch.ScalarType.Bool
    | 1uy, 8uy -> torch.ScalarType.Byte
    | 0uy, 8uy -> torch.ScalarType.Int8
    | 0uy, 16uy -> torch.ScalarType.Int16
    | 0uy, 32uy -> torch.ScalarType.Int32
    | 0uy, 64uy -> torch.ScalarType.Int64
    | 2uy, 16uy -> torch.ScalarType.Float16
    | 4uy, 16uy -> torch.ScalarType.BFloat16
    | 2uy, 32uy -> torch.ScalarType.Float32
    | 2uy, 64uy -> torch.ScalarType.Float64
    | c, b -> raise (KgenException(sprintf "kgen reported an output of DLPack type code %d bits %d" c b, 2))

/// Unmanaged DLPack views of tensors, alive until disposed.
type private DlViews(tensors: Tensor list) =
    let allocs = Collections.Generic.List<nativeint>()
    let alloc (bytes: int) =
        let p = Marshal.AllocHGlobal(max bytes 8)
        allocs.Add p
        p
    let view (t: Tensor) : nativeint =
        if isNull t then raise (KgenException("a tensor argument is null", 1))
        if t.IsInvalid then raise (KgenException("a tensor argument has been disposed", 1))
        let nd = int t.Dimensions
        let shape = alloc (8 * nd)
        let strides = alloc (8 * nd)
        let st = t.stride()
        for i in 0 .. nd - 1 do
            Marshal.WriteInt64(shape, 8 * i, t.shape.[i])
            Marshal.WriteInt64(strides, 8 * i, st.[i])
        let dev =
            match t.device_type with
            | DeviceType.CPU -> DLDevice(DeviceType = 1, DeviceId = 0)
            | DeviceType.CUDA -> DLDevice(DeviceType = 2, DeviceId = t.device_index)
            | d -> raise (KgenException(sprintf "tensors on device %O are not supported (CPU and CUDA are)" d, 1))
        let mutable dl = DLTensor()
        dl.Data <- NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> (Lib.THSTensor_data t.Handle))
        dl.Device <- dev
        dl.NDim <- nd
        dl.DType <- dlType t.dtype
        dl.Shape <- NativePtr.ofNativeInt shape
        dl.Strides <- NativePtr.ofNativeInt strides
        dl.ByteOffset <- 0UL
        let p = alloc (Marshal.SizeOf<DLTensor>())
        Marshal.StructureToPtr(dl, p, false)
        p
    let ptrs = tensors |> List.map view |> Array.ofList
    let table =
        let p = alloc (8 * ptrs.Length)
        ptrs |> Array.iteri (fun i q -> Marshal.WriteIntPtr(p, 8 * i, q))
        p
    member _.Table = table
    member _.Views = ptrs
    member _.Count = ptrs.Length
    /// Names + views as a kg_named_tensor array (for captures).
    member _.Named(names: string list) =
        let size = Marshal.SizeOf<KgNamedTensor>()
        let p = alloc (size * ptrs.Length)
        names
        |> List.iteri (fun i n ->
            let bytes = utf8z n
            let s = alloc bytes.Length
            Marshal.Copy(bytes, 0, s, bytes.Length)
            Marshal.WriteIntPtr(p, size * i, s)
            Marshal.WriteIntPtr(p, size * i + 8, ptrs.[i]))
        p
    interface IDisposable with
        member _.Dispose() =
            for p in allocs do Marshal.FreeHGlobal p
            allocs.Clear()

/// The device all tensors live on: the emulator for CPU, CUDA for CUDA; mixed is an error.
let private deviceOf (ts: Tensor list) =
    let kinds = ts |> List.filter (fun t -> not (isNull t)) |> List.map (fun t -> t.device_type, t.device_index) |> List.distinct
    match kinds with
    | [] | [ (DeviceType.CPU, _) ] -> KgDevice.Emu, torch.CPU
    | [ (DeviceType.CUDA, i) ] -> KgDevice.Cuda, torch.CUDA
    | ks -> raise (KgenException(sprintf "the tensors are on different devices (%s): kgen runs an entry on one" (ks |> List.map (fun (d, i) -> sprintf "%O:%d" d i) |> String.concat ", "), 1))

/// A kgen context: options, caches, devices. Calls through it are serialized.
type Context() =
    let h = new KgHandle(Lib.kg_context_new 0n, Lib.kg_context_free)
    do if h.IsInvalid then raise (KgenException("kg_context_new failed", 2))
    // one object for the context's life: a property `= obj ()` would make a new one per access
    // and lock nothing (it once did: concurrent calls then raced inside kgen and crashed)
    let gate = obj ()
    member internal _.Handle = h
    member internal _.Gate = gate
    /// A release function that frees under the context's lock: freeing a module or a compiled
    /// entry unloads its kernels from the context's devices, which must not race a call on
    /// another thread (Dispose, or the finalizer thread).
    member internal _.Locked(release: nativeint -> unit) = fun (p: nativeint) -> lock gate (fun () -> release p)
    member internal this.Check(status: int) =
        if status <> 0 then
            let msg = NativePtr.ofNativeInt<byte> (NativePtr.toNativeInt (Lib.kg_last_error(h.DangerousGetHandle())))
            let text = Marshal.PtrToStringUTF8(NativePtr.toNativeInt msg)
            raise (KgenException((if String.IsNullOrEmpty text then sprintf "kgen failed (status %d)" status else text.TrimEnd()), status))
    /// Load a kgen document (JSON text).
    member this.Load(json: string) : Module =
        lock this.Gate (fun () ->
            let bytes = Encoding.UTF8.GetBytes json
            let mutable m = 0n
            use p = fixed bytes
            this.Check(Lib.kg_module_load(h.DangerousGetHandle(), p, unativeint bytes.Length, &m))
            new Module(this, new KgHandle(m, this.Locked Lib.kg_module_free, h)))
    /// Load an offline kernel package (.kgpkg, docs/package.md): a module whose entries run
    /// without the frontend or NVRTC.
    member this.LoadPackage(path: string) : Module =
        lock this.Gate (fun () ->
            let bytes = Encoding.UTF8.GetBytes(path + "\000")
            let mutable m = 0n
            use p = fixed bytes
            this.Check(Lib.kg_package_load(h.DangerousGetHandle(), p, &m))
            new Module(this, new KgHandle(m, this.Locked Lib.kg_module_free, h)))
    /// The random generator entries that draw (dropout in training mode, rand_like, ...) use:
    /// seed it (offset 0), or read / restore its (seed, offset) (docs/design.md "The random generator").
    member this.ManualSeed(seed: uint64) = lock this.Gate (fun () -> this.Check(Lib.kg_context_manual_seed(h.DangerousGetHandle(), seed)))
    member this.RngState
        with get () =
            lock this.Gate (fun () ->
                let mutable s = 0UL
                let mutable o = 0UL
                this.Check(Lib.kg_context_rng_state(h.DangerousGetHandle(), &s, &o))
                s, o)
        and set ((s: uint64), (o: uint64)) = lock this.Gate (fun () -> this.Check(Lib.kg_context_set_rng_state(h.DangerousGetHandle(), s, o)))
    interface IDisposable with
        member _.Dispose() = h.Dispose()

/// A loaded document (or offline kernel package).
and Module internal (ctx: Context, h: KgHandle) =
    member _.Context = ctx
    member internal _.Handle = h
    /// Whether it is an offline kernel package.
    member _.IsPackage = Lib.kg_module_is_package(h.DangerousGetHandle()) <> 0
    member _.Entries =
        let n = Lib.kg_module_n_entries(h.DangerousGetHandle())
        [ for i in 0 .. n - 1 -> Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_module_entry_name(h.DangerousGetHandle(), i))) ]
    /// An entry's parameters in call order: None for a tensor, Some dtype for a .NET number.
    member _.Parameters(entry: string) : torch.ScalarType option list =
        let name = utf8z entry
        use pn = fixed name
        let n = Lib.kg_module_entry_n_params(h.DangerousGetHandle(), pn)
        if n < 0 then raise (KgenException(sprintf "the document has no entry named '%s'" entry, 1))
        [ for i in 0 .. n - 1 ->
              let mutable dt = DLDataType()
              match Lib.kg_module_entry_param(h.DangerousGetHandle(), pn, i, &dt) with
              | 1 -> Some(scalarTypeOf dt)
              | _ -> None ]
    /// Specialize an entry for these tensors (inputs in parameter order, scalars as 0-dim
    /// tensors; captures by name).
    member this.Specialize(entry: string, inputs: Tensor list, captures: (string * Tensor) list) : Compiled =
        lock ctx.Gate (fun () ->
            use ins = new DlViews(inputs)
            use caps = new DlViews(captures |> List.map snd)
            let named = caps.Named(captures |> List.map fst)
            let name = utf8z entry
            use pn = fixed name
            let mutable c = 0n
            ctx.Check(Lib.kg_specialize_for(h.DangerousGetHandle(), pn, NativePtr.ofNativeInt ins.Table, ins.Count,
                                            NativePtr.ofNativeInt named, caps.Count, &c))
            new Compiled(this, new KgHandle(c, ctx.Locked Lib.kg_compiled_free, h)))
    /// Specialize an entry for the gradients of the inputs and captures `wants` flags (inputs in
    /// order, then captures; kg_specialize_grad): the forward, whose Backward is the backward.
    member this.SpecializeGrad(entry: string, inputs: Tensor list, captures: (string * Tensor) list, wants: bool list) : Compiled =
        lock ctx.Gate (fun () ->
            use ins = new DlViews(inputs)
            use caps = new DlViews(captures |> List.map snd)
            let named = caps.Named(captures |> List.map fst)
            let name = utf8z entry
            use pn = fixed name
            let w = wants |> List.map (fun b -> if b then 1uy else 0uy) |> Array.ofList
            use pw = fixed (if w.Length = 0 then [| 0uy |] else w)
            let mutable c = 0n
            ctx.Check(Lib.kg_specialize_grad(h.DangerousGetHandle(), pn, NativePtr.ofNativeInt ins.Table, ins.Count,
                                             NativePtr.ofNativeInt named, caps.Count, 0u, pw, &c))
            new Compiled(this, new KgHandle(c, ctx.Locked Lib.kg_compiled_free, h)))
    interface IDisposable with
        member _.Dispose() = h.Dispose()

/// An entry specialized for a signature: run it, read its artifacts.
and Compiled internal (m: Module, h: KgHandle) =
    let ctx = m.Context
    /// Output dtypes and shapes.
    member _.Outputs =
        let n = Lib.kg_compiled_n_outputs(h.DangerousGetHandle())
        [ for i in 0 .. n - 1 ->
              let shape = Array.zeroCreate<int64> 8
              let mutable dt = DLDataType()
              let mutable nd = 0
              use ps = fixed shape
              ctx.Check(Lib.kg_compiled_output(h.DangerousGetHandle(), i, &dt, &nd, ps))
              scalarTypeOf dt, Array.sub shape 0 nd ]
    member _.Kernels = Lib.kg_compiled_n_kernels(h.DangerousGetHandle())
    /// What kgen warns about in the entry ("Model.fs:5:12: warning: ..." lines; "" when none).
    member _.Warnings = Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_compiled_warnings(h.DangerousGetHandle())))
    /// Counter offsets a call consumes from the context's random generator (0: it draws nothing).
    member _.RngStreams = Lib.kg_compiled_rng_streams(h.DangerousGetHandle())
    /// An artifact as text (CUDA C, TorchScript, eager Python, IR, explain).
    member _.Emit(kind: KgArtifact) : string =
        lock ctx.Gate (fun () ->
            let mutable data = 0n
            let mutable len = 0un
            ctx.Check(Lib.kg_emit(h.DangerousGetHandle(), int kind, 80, &data, &len))
            let s = Marshal.PtrToStringUTF8(data, int len)
            NativeMemory.Free(NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> data))
            s.TrimEnd('\000'))
    /// Compiled for gradients (Module.SpecializeGrad): the last Saved outputs are the values the
    /// backward reads; Backward is the backward (owned by this forward), BackwardInputs says what
    /// each of its inputs is (kg_compiled_backward_input: source, index), BackwardOutputs whose
    /// gradient each of its outputs is (is a capture, index).
    member _.Saved = Lib.kg_compiled_n_saved(h.DangerousGetHandle())
    member this.Backward : Compiled option =
        let b = Lib.kg_compiled_backward(h.DangerousGetHandle())
        if b = 0n then None else Some(new Compiled(m, new KgHandle(b, ignore, h)))
    member _.BackwardInputs =
        [ for i in 0 .. Lib.kg_compiled_backward_n_inputs(h.DangerousGetHandle()) - 1 ->
              let mutable src = 0
              let mutable idx = 0
              Lib.kg_compiled_backward_input(h.DangerousGetHandle(), i, &src, &idx) |> ignore
              src, idx ]
    member _.BackwardOutputs =
        [ for i in 0 .. Lib.kg_compiled_backward_n_outputs(h.DangerousGetHandle()) - 1 ->
              let mutable cap = 0
              let mutable idx = 0
              Lib.kg_compiled_backward_output(h.DangerousGetHandle(), i, &cap, &idx) |> ignore
              cap <> 0, idx ]
    /// The generator state the last Run drew from; PinRng makes Run draw at a given state (a
    /// backward redrawing its forward's dropout masks) without touching the context's generator.
    member _.RngLast =
        let mutable s = 0UL
        let mutable o = 0UL
        Lib.kg_compiled_rng_last(h.DangerousGetHandle(), &s, &o) |> ignore
        s, o
    member _.PinRng(seed: uint64, offset: uint64) = Lib.kg_compiled_rng_pin(h.DangerousGetHandle(), 1, seed, offset) |> ignore
    /// Run on these tensors; the outputs are allocated by TorchSharp on the inputs' device.
    member this.Run(inputs: Tensor list, captures: (string * Tensor) list) : Tensor list =
        let dev, tdev = deviceOf (inputs @ (captures |> List.map snd))
        let outs = this.Outputs |> List.map (fun (dt, shape) -> torch.empty(shape, dtype = dt, device = tdev))
        lock ctx.Gate (fun () ->
            use ins = new DlViews(inputs)
            use caps = new DlViews(captures |> List.map snd)
            use os = new DlViews(outs)
            let named = caps.Named(captures |> List.map fst)
            ctx.Check(Lib.kg_run(h.DangerousGetHandle(), int dev, NativePtr.ofNativeInt ins.Table, ins.Count,
                                 NativePtr.ofNativeInt named, caps.Count, NativePtr.ofNativeInt os.Table, os.Count, 0n)))
        // keep the inputs alive until the launch is ordered (NULL stream: kg_run returned after it)
        GC.KeepAlive inputs
        outs
    interface IDisposable with
        member _.Dispose() = h.Dispose()
