// Kgen.FastPath: the hot path of a compiled entry over TorchSharp tensors (issue 10).
//
// An Engine owns one loaded kgen document entry and, per device (kgen's CPU device — or its
// emulator, Options.Emulator — each CUDA device, the null device), a kgen context, the module
// and the entry's specializations. A
// call sets its arguments (SetTensor / SetScalar, in parameter order) and then Invoke()s:
//   1. every tensor's metadata is read straight from LibTorchSharp (dtype, device, sizes,
//      strides, data pointer: no managed arrays) into DLTensor structs in native memory that
//      the engine allocated once;
//   2. the signature key is built in a reused buffer: per tensor its dtype, device and rank,
//      and per dim its size class — 0, 1, or the index of the first equal size met so far
//      ("duck sizing", the rule of kg_specialize_for_ex's KG_SPEC_DYNAMIC), or the exact size
//      where KG_SPEC_DYNAMIC keeps it static (a captured tensor's sizes, and an input's size
//      that a captured tensor has) and once an entry had to be specialized statically. The key is compared with the few keys
//      specialized so far: no JSON, no strings, no dictionary;
//   3. a new key specializes (kg_specialize_for_ex; the cold path) — dynamically first, and
//      statically from then on if kgen could not generalize the entry;
//   4. outputs are allocated by TorchSharp (libtorch's empty, as torch.empty calls it, on the
//      inputs' device; shapes from the output dims' symbols) and kg_run writes into them. CUDA tensors run on TorchSharp's
//      current stream of their device (libtorch's aoti_torch_get_current_cuda_stream, else the
//      legacy default stream that TorchSharp uses), enqueued, not synchronized.
// Captured tensors (module parameters) are read through a function at every call, so a
// parameter updated in place is seen updated. A lock per engine serializes calls (a kgen
// context is for one thread at a time); Stats counts what was compiled.
module Kgen.FastPath

#nowarn "9" // native memory: the DLTensor tables
#nowarn "51" // address-of for fixed buffers

open System
open System.Collections.Generic
open System.Diagnostics
open System.Runtime.InteropServices
open System.Text
open System.Threading
open Microsoft.FSharp.NativeInterop
open TorchSharp
open Kgen.Native

type private Tensor = torch.Tensor

/// What a compiled function has compiled so far (summed over its devices).
type CompileStats =
    { Specializations: int64
      EmuCompiles: int64
      EmuCacheHits: int64
      NvrtcCompiles: int64
      CubinCacheHits: int64 }

/// Host time spent per phase over the calls since profiling was enabled (Stopwatch ticks).
type Profile =
    { Calls: int64
      /// metadata reads, signature key and lookup
      LookupTicks: int64
      /// output allocation by TorchSharp
      OutputTicks: int64
      /// kg_run: binding, schedule choice, launches (and on the CPU device or the emulator, the kernels)
      RunTicks: int64 }

/// How float32 products (matmul, linear, convolutions) run on tensor cores (kg_f32_matmul).
type Float32Matmul =
    /// Each operand a TF32 high part plus a TF32 remainder, three products accumulated in
    /// float32: at least as close to float64 as PyTorch's float32 product (the default).
    | SplitTF32 = 0
    /// One TF32 product: PyTorch's set_float32_matmul_precision("high"), ~1e-3 relative.
    | TF32 = 1
    /// float32 FMAs on the SIMT tiles, no tensor cores.
    | Simt = 2

/// How an engine runs its entry.
type Options =
    { /// Specialize on the size pattern (duck sizing) rather than on exact sizes.
      DynamicSizes: bool
      /// Launch nothing (host memory, kernels not run): for measuring kgen's host overhead.
      NullDevice: bool
      /// The kernel cache folder (None: $KGEN_CACHE_DIR, else ~/.cache/kgen).
      CacheDir: string option
      /// An offline kernel package (.kgpkg) to run the entry from instead of the document
      /// (Kgen.Package): nothing is compiled for CUDA, sizes are matched to its signatures.
      Package: string option
      /// CPU tensors on kgen's emulator (the GPU's semantics checked, 10-60x slower) instead of
      /// its CPU device (kernels compiled for this CPU, run on its cores): for checking.
      Emulator: bool
      /// How float32 products run on tensor cores (docs/design.md, "Tensor cores"); the CPU
      /// device has none (float32 FMAs whatever the mode).
      Float32Matmul: Float32Matmul }
    static member Default =
        { DynamicSizes = true; NullDevice = false; CacheDir = None; Package = None; Emulator = false
          Float32Matmul = Float32Matmul.SplitTF32 }

/// The kind of a parameter: a tensor, or a .NET number passed by value.
type ParamKind =
    | TensorParam
    | ScalarParam of torch.ScalarType

let private scalarTypeOfDl = Runtime.scalarTypeOf

/// The current CUDA stream of a device as libtorch sees it (TorchSharp has no stream API;
/// libtorch's stable C shim has the call). IntPtr 1 = CU_STREAM_LEGACY: the legacy default
/// stream, which is TorchSharp's, enqueued asynchronously.
module private CudaStream =
    type GetStream = delegate of int * nativeint byref -> int
    let private getter : Lazy<GetStream option> =
        lazy
            (let libs =
                try
                    IO.File.ReadLines "/proc/self/maps"
                    |> Seq.choose (fun l ->
                        let i = l.IndexOf '/'
                        if i >= 0 && l.EndsWith("libtorch_cuda.so", StringComparison.Ordinal) then Some(l.Substring i) else None)
                    |> Seq.distinct
                    |> List.ofSeq
                with _ -> []
             libs
             |> List.tryPick (fun path ->
                 let mutable h = 0n
                 let mutable f = 0n
                 if NativeLibrary.TryLoad(path, &h) && NativeLibrary.TryGetExport(h, "aoti_torch_get_current_cuda_stream", &f) then
                     Some(Marshal.GetDelegateForFunctionPointer<GetStream> f)
                 else None))
    let current (device: int) : nativeint =
        match getter.Force() with
        | Some g ->
            let mutable s = 0n
            if g.Invoke(device, &s) = 0 && s <> 0n then s else 1n
        | None -> 1n

let private maxRank = 8

/// Zeroed unmanaged memory, freed on Dispose or by the finalizer (a compiled function dropped
/// without Dispose leaks nothing).
[<AllowNullLiteral>]
type private NativeBuffer(bytes: int) as this =
    inherit Microsoft.Win32.SafeHandles.SafeHandleZeroOrMinusOneIsInvalid(true)
    do this.SetHandle(NativePtr.toNativeInt (NativePtr.ofVoidPtr<byte> (NativeMemory.AllocZeroed(unativeint (max bytes 8)))))
    member h.Ptr : nativeint = h.DangerousGetHandle()
    override h.ReleaseHandle() =
        NativeMemory.Free(NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> h.handle))
        true

/// Per device: a kgen context, the loaded module and the specializations made on it.
type internal Spec =
    { Key: int64[]
      Handle: Runtime.KgHandle
      OutTypes: torch.ScalarType[]
      /// per output, per dim: the static size (>= 0) or -(i + 1) for OutSizes.[i]
      OutDims: int64[][]
      /// sizes known per call: coefficient · Π the call's sizes at these duck-symbol indices
      /// (s<k> is [| k |]; a view to a product of sizes, "s0*s1*3", is [| 0; 1 |] times 3)
      OutSizes: (int64 * int[])[]
      /// compiled for gradients (kg_specialize_grad): the entry's results, then Saved values
      Saved: int
      /// its backward (owned by Handle), what each backward input is (source, index), whose
      /// gradient each backward output is (is a capture, index)
      Bwd: nativeint
      BwdIn: struct (int * int)[]
      BwdOut: struct (bool * int)[] }

type internal DeviceState =
    { Ctx: Runtime.KgHandle
      Module: Runtime.KgHandle
      Kind: KgDevice
      TorchDevice: torch.Device
      CudaIndex: int
      Specs: List<Spec>
      mutable Static: bool }

/// One entry of a kgen document run on TorchSharp tensors.
type Engine(json: string, entry: string, kinds: ParamKind[], captureNames: string[], captures: unit -> Tensor[], options: Options) =
    let gate = obj ()
    let nIn = kinds.Length
    let nCap = captureNames.Length
    let nT = nIn + nCap
    // native memory, allocated once: DLTensor structs with their shape/stride arrays, the
    // pointer tables kg_run takes, named captures, scalar slots; outputs grow on demand
    let dlSize = sizeof<DLTensor>
    let block = new NativeBuffer(nT * (dlSize + 16 * maxRank + 8) + 16 * nCap + 8 * nIn + 64)
    let baseP = block.Ptr
    let tensorAt i = baseP + nativeint (i * dlSize)
    let shapeAt i = baseP + nativeint (nT * dlSize + i * 16 * maxRank)
    let strideAt i = shapeAt i + nativeint (8 * maxRank)
    let tablePtr = baseP + nativeint (nT * (dlSize + 16 * maxRank))
    let namedPtr = tablePtr + nativeint (8 * nT)
    let scalarSlot i = namedPtr + nativeint (16 * nCap) + nativeint (8 * i)
    // the entry's and the captures' names, NUL-terminated UTF-8, in one buffer
    let utf8 = Array.append [| entry |] captureNames |> Array.map (fun n -> Array.append (Encoding.UTF8.GetBytes n) [| 0uy |])
    let strings = new NativeBuffer(utf8 |> Array.sumBy Array.length)
    let offsets = utf8 |> Array.scan (fun o b -> o + b.Length) 0
    do utf8 |> Array.iteri (fun i b -> Marshal.Copy(b, 0, strings.Ptr + nativeint offsets.[i], b.Length))
    let entryName = strings.Ptr
    let names = Array.init nCap (fun j -> strings.Ptr + nativeint offsets.[j + 1])
    do
        for i in 0 .. nT - 1 do
            Marshal.WriteIntPtr(tablePtr, 8 * i, tensorAt i)
            let t = NativePtr.ofNativeInt<DLTensor> (tensorAt i)
            let mutable v = NativePtr.read t
            v.Shape <- NativePtr.ofNativeInt (shapeAt i)
            v.Strides <- NativePtr.ofNativeInt (strideAt i)
            NativePtr.write t v
        for j in 0 .. nCap - 1 do
            Marshal.WriteIntPtr(namedPtr, 16 * j, names.[j])
            Marshal.WriteIntPtr(namedPtr, 16 * j + 8, tensorAt (nIn + j))
    let mutable outBlock : NativeBuffer = null
    let mutable outCap = 0
    let outTable n =
        if n > outCap then
            if not (isNull outBlock) then outBlock.Dispose()
            outBlock <- new NativeBuffer(n * (dlSize + 16 * maxRank + 8))
            outCap <- n
        outBlock.Ptr
    // per-call state, reused (under the lock)
    let args : Tensor[] = Array.zeroCreate nT
    let key = List<int64>(16 * nT + 4)
    let seen : int64[] = Array.zeroCreate (nT * maxRank + 1)
    let mutable nSeen = 0
    let mutable outputs : Tensor[] = [||]
    let devices = Dictionary<int, DeviceState>()
    let mutable specializations = 0
    let mutable profiling = false
    let mutable pCalls = 0L
    let mutable pLookup = 0L
    let mutable pOutput = 0L
    let mutable pRun = 0L
    let mutable lastSpec = Unchecked.defaultof<Spec>
    let mutable disposed = false

    let fail (ctx: nativeint) status =
        let text = Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_last_error ctx))
        raise (Runtime.KgenException((if String.IsNullOrEmpty text then sprintf "kgen failed (status %d)" status else text.TrimEnd()), status))

    let newDevice (slot: int) (devType: int) (devIndex: int) =
        let mutable o = KgOptions()
        o.VerifyIr <- 1
        o.CudaDevice <- (if devType = 1 then devIndex else 0)
        o.F32Matmul <- int options.Float32Matmul
        let cache = options.CacheDir |> Option.map Marshal.StringToCoTaskMemUTF8 |> Option.defaultValue 0n
        o.CacheDir <- NativePtr.ofNativeInt cache
        let ctxP = Lib.kg_context_new(NativePtr.toNativeInt &&o)
        // the context copied the options; the cache path string must outlive it (kept below)
        if ctxP = 0n then raise (Runtime.KgenException("kg_context_new failed", 2))
        let ctx = new Runtime.KgHandle(ctxP, (fun p -> Lib.kg_context_free p; if cache <> 0n then Marshal.FreeCoTaskMem cache))
        let mutable m = 0n
        let st =
            match options.Package with
            | Some path -> // a package: its signatures, not duck sizes, decide (Static below)
                let bytes = Encoding.UTF8.GetBytes(path + "\000")
                use p = fixed bytes
                Lib.kg_package_load(ctxP, p, &m)
            | None ->
                let bytes = Encoding.UTF8.GetBytes json
                use p = fixed bytes
                Lib.kg_module_load(ctxP, p, unativeint bytes.Length, &m)
        if st <> 0 then fail ctxP st
        let kind, tdev =
            if options.NullDevice then KgDevice.Null, torch.CPU
            elif devType = 1 then KgDevice.Cuda, torch.device(DeviceType.CUDA, devIndex)
            elif options.Emulator || options.Package.IsSome then KgDevice.Emu, torch.CPU // a package's kernels are GPU schedules
            else KgDevice.Cpu, torch.CPU
        let d =
            { Ctx = ctx
              Module = new Runtime.KgHandle(m, Lib.kg_module_free, ctx)
              Kind = kind
              TorchDevice = tdev
              CudaIndex = devIndex
              Specs = List()
              Static = not options.DynamicSizes || options.Package.IsSome }
        devices.[slot] <- d
        d

    /// What tensor i is, for messages (formatted only when raising).
    let what (i: int) = if i < nIn then sprintf "argument %d" (i + 1) else sprintf "captured tensor '%s'" captureNames.[i - nIn]

    /// Reads tensor i's metadata into its DLTensor; returns (device type 0 CPU / 1 CUDA, index).
    let bindTensor (i: int) (t: Tensor) : struct (int * int) =
        if isNull t then raise (Runtime.KgenException(sprintf "%s is null" (what i), 1))
        if t.IsInvalid then raise (Runtime.KgenException(sprintf "%s has been disposed" (what i), 1))
        let h = t.Handle
        let mutable ok = false
        let st = Lib.THSTensor_type h
        let dt = Runtime.dlOfScalarType st &ok
        if not ok then
            raise (Runtime.KgenException(sprintf "%s has dtype %O, which kgen does not support (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)" (what i) (LanguagePrimitives.EnumOfValue<sbyte, torch.ScalarType> st), 1))
        let nd = int (Lib.THSTensor_ndimension h)
        if nd > maxRank then raise (Runtime.KgenException(sprintf "%s has rank %d; kgen supports up to %d" (what i) nd maxRank, 1))
        let devT = Lib.THSTensor_device_type h
        let devI = if devT = 1 then Lib.THSTensor_device_index h else 0
        if devT <> 0 && devT <> 1 then
            raise (Runtime.KgenException(sprintf "%s is on a %O device; kgen runs CPU tensors (on its CPU device) and CUDA tensors" (what i) (enum<DeviceType> devT), 1))
        let p = NativePtr.ofNativeInt<DLTensor> (tensorAt i)
        let mutable v = NativePtr.read p
        v.Data <- NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> (Lib.THSTensor_data h))
        v.Device <- DLDevice(DeviceType = (if devT = 1 then 2 else 1), DeviceId = devI)
        v.NDim <- nd
        v.DType <- dt
        NativePtr.write p v
        let shp = NativePtr.ofNativeInt<int64> (shapeAt i)
        let str = NativePtr.ofNativeInt<int64> (strideAt i)
        for d in 0 .. nd - 1 do
            NativePtr.set shp d (Lib.THSTensor_size(h, int64 d))
            NativePtr.set str d (Lib.THSTensor_stride(h, int64 d))
        struct (devT, devI)

    let bindScalar (i: int) (t: torch.ScalarType) =
        let p = NativePtr.ofNativeInt<DLTensor> (tensorAt i)
        let mutable v = NativePtr.read p
        let mutable ok = false
        v.Data <- NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> (scalarSlot i))
        v.Device <- DLDevice(DeviceType = 1, DeviceId = 0)
        v.NDim <- 0
        v.DType <- Runtime.dlOfScalarType (sbyte t) &ok
        NativePtr.write p v

    /// Whether s is the size of a dim of a bound captured tensor.
    let captureSize (s: int64) =
        let mutable found = false
        let mutable j = nIn
        while not found && j < nT do
            let nd = (NativePtr.read (NativePtr.ofNativeInt<DLTensor> (tensorAt j))).NDim
            let shp = NativePtr.ofNativeInt<int64> (shapeAt j)
            let mutable d = 0
            while not found && d < nd do
                found <- NativePtr.get shp d = s
                d <- d + 1
            j <- j + 1
        found

    /// The signature key of the bound arguments, into `key`.
    let buildKey (isStatic: bool) =
        key.Clear()
        nSeen <- 0
        for i in 0 .. nT - 1 do
            let v = NativePtr.read (NativePtr.ofNativeInt<DLTensor> (tensorAt i))
            key.Add(int64 v.DType.Code <<< 16 ||| int64 v.DType.Bits <<< 8 ||| int64 v.NDim)
            key.Add(int64 v.Device.DeviceType <<< 32 ||| int64 v.Device.DeviceId)
            let shp = NativePtr.ofNativeInt<int64> (shapeAt i)
            for d in 0 .. v.NDim - 1 do
                let s = NativePtr.get shp d
                // KG_SPEC_DYNAMIC keeps static a capture's sizes, and an input's size a capture has
                if isStatic || s <= 1L || i >= nIn || captureSize s then key.Add s
                else
                    let mutable k = 0
                    while k < nSeen && seen.[k] <> s do k <- k + 1
                    if k = nSeen then
                        seen.[k] <- s
                        nSeen <- nSeen + 1
                    key.Add(-(int64 k) - 1L)

    let keyEquals (k: int64[]) =
        if k.Length <> key.Count then false
        else
            let mutable eq = true
            let mutable j = 0
            while eq && j < k.Length do
                eq <- k.[j] = key.[j]
                j <- j + 1
            eq

    let specialize (dev: DeviceState) (dynamic: bool) (wants: byte[]) : Result<Spec, Runtime.KgenException> =
        let mutable c = 0n
        let flags = if dynamic then Lib.SpecDynamic else 0u
        let st =
            if isNull wants then
                Lib.kg_specialize_for_ex(dev.Module.DangerousGetHandle(), NativePtr.ofNativeInt entryName, NativePtr.ofNativeInt tablePtr, nIn,
                                         NativePtr.ofNativeInt namedPtr, nCap, flags, &c)
            else
                use pw = fixed wants
                Lib.kg_specialize_grad(dev.Module.DangerousGetHandle(), NativePtr.ofNativeInt entryName, NativePtr.ofNativeInt tablePtr, nIn,
                                       NativePtr.ofNativeInt namedPtr, nCap, flags, pw, &c)
        if st <> 0 then
            let ctxP = dev.Ctx.DangerousGetHandle()
            let text = Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_last_error ctxP))
            Error(Runtime.KgenException(text.TrimEnd(), st))
        else
            let h = new Runtime.KgHandle(c, Lib.kg_compiled_free, dev.Module)
            let warnings = Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_compiled_warnings c))
            if warnings <> "" then eprintf "kgen: %s" warnings // once per specialization
            let n = Lib.kg_compiled_n_outputs c
            let types = Array.zeroCreate n
            let dims = Array.zeroCreate n
            let sizes = ResizeArray<int64 * int[]>()
            // a duck symbol "s<k>" is the k-th distinct size of this call's key; a derived one
            // ("s0*s2*3", a view to a product of sizes) is their product
            let duck (tok: string) =
                if tok.StartsWith "s" && fst (Int32.TryParse(tok.Substring 1)) then Some(Int32.Parse(tok.Substring 1)) else None
            let sizeOf (o: int) (d: int) (s: string) =
                let toks = s.Split('*')
                let mutable coeff = 1L
                let factors = ResizeArray<int>()
                for t in toks do
                    match duck t, Int64.TryParse t with
                    | Some k, _ -> factors.Add k
                    | None, (true, c) -> coeff <- coeff * c
                    | _ -> raise (Runtime.KgenException(sprintf "output %d dim %d is the document's symbol %s, which no input binds here" o d s, 2))
                sizes.Add((coeff, factors.ToArray()))
                -(int64 (sizes.Count - 1)) - 1L
            for o in 0 .. n - 1 do
                let shape = Array.zeroCreate<int64> maxRank
                let mutable dt = DLDataType()
                let mutable nd = 0
                use ps = fixed shape
                Lib.kg_compiled_output(c, o, &dt, &nd, ps) |> ignore
                types.[o] <- scalarTypeOfDl dt
                dims.[o] <-
                    Array.init nd (fun d ->
                        if shape.[d] >= 0L then shape.[d]
                        else
                            let s = Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_compiled_output_symbol(c, o, d)))
                            match s with
                            | null -> raise (Runtime.KgenException(sprintf "output %d dim %d has no size" o d, 2))
                            | s -> sizeOf o d s)
            specializations <- specializations + 1
            let bwd = if isNull wants then 0n else Lib.kg_compiled_backward c
            let bin =
                [| for i in 0 .. (if bwd = 0n then 0 else Lib.kg_compiled_backward_n_inputs c) - 1 ->
                       let mutable src = 0
                       let mutable idx = 0
                       Lib.kg_compiled_backward_input(c, i, &src, &idx) |> ignore
                       struct (src, idx) |]
            let bout =
                [| for i in 0 .. (if bwd = 0n then 0 else Lib.kg_compiled_backward_n_outputs c) - 1 ->
                       let mutable cap = 0
                       let mutable idx = 0
                       Lib.kg_compiled_backward_output(c, i, &cap, &idx) |> ignore
                       struct (cap <> 0, idx) |]
            Ok
                { Key = key.ToArray()
                  Handle = h
                  OutTypes = types
                  OutDims = dims
                  OutSizes = sizes.ToArray()
                  Saved = (if isNull wants then 0 else Lib.kg_compiled_n_saved c)
                  Bwd = bwd
                  BwdIn = bin
                  BwdOut = bout }

    /// wants: null for the plain entry, else per input and capture whether its gradient is wanted
    /// (a gradient specialization: its own key, the flags appended)
    let findOrSpecialize (dev: DeviceState) (wants: byte[]) : Spec =
        let withWants () =
            if not (isNull wants) then
                key.Add(-424242L)
                for w in wants do key.Add(int64 w)
        buildKey dev.Static
        withWants ()
        let mutable found = Unchecked.defaultof<Spec>
        for s in dev.Specs do
            if isNull (box found) && keyEquals s.Key then found <- s
        if not (isNull (box found)) then found
        else
            let spec =
                if dev.Static then
                    match specialize dev false wants with
                    | Ok s -> s
                    | Error e -> raise e
                else
                    match specialize dev true wants with
                    | Ok s -> s
                    | Error e when e.Status = 1 ->
                        // kgen could not generalize this entry over sizes: exact sizes from now on
                        match specialize dev false wants with
                        | Ok s ->
                            dev.Static <- true
                            buildKey true
                            withWants ()
                            { s with Key = key.ToArray() }
                        | Error e2 -> raise e2
                    | Error e -> raise e
            dev.Specs.Add spec
            spec

    /// Binds the arguments set so far (the captures read now) and finds their device.
    let bindAll () : DeviceState =
        let mutable devT = -1
        let mutable devI = 0
        let mutable mixed = false
        if nCap > 0 then
            let caps = captures ()
            for j in 0 .. nCap - 1 do args.[nIn + j] <- caps.[j]
        for i in 0 .. nT - 1 do
            let isTensor = i >= nIn || (match kinds.[i] with TensorParam -> true | _ -> false)
            if isTensor then
                let struct (t, di) = bindTensor i args.[i]
                if devT < 0 then
                    devT <- t
                    devI <- di
                elif devT <> t || devI <> di then mixed <- true
            else
                match kinds.[i] with
                | ScalarParam st -> bindScalar i st
                | TensorParam -> ()
        if mixed then
            let where =
                [ for i in 0 .. nT - 1 do
                      if not (isNull args.[i]) then
                          let t = args.[i]
                          yield sprintf "%s on %O" (if i < nIn then sprintf "argument %d" (i + 1) else sprintf "'%s'" captureNames.[i - nIn]) t.device ]
            raise (Runtime.KgenException(sprintf "the tensors are on different devices (%s): kgen runs an entry on one device" (String.Join(", ", where)), 1))
        if devT < 0 then devT <- 0
        let slot = if options.NullDevice then -1 elif devT = 1 then 1 + devI else 0
        match devices.TryGetValue slot with
        | true, d -> d
        | _ -> newDevice slot devT devI

    /// Outputs of spec allocated by TorchSharp (shapes from this call's sizes) into `outputs` and
    /// their DLTensor table; returns the table.
    let allocOutputs (dev: DeviceState) (spec: Spec) : nativeint =
        let nOut = spec.OutTypes.Length
        if outputs.Length <> nOut then outputs <- Array.zeroCreate nOut
        let ob = outTable nOut
        let oTensor o = ob + nativeint (o * dlSize)
        let oShape o = ob + nativeint (nOut * dlSize + o * 16 * maxRank)
        let oTable = ob + nativeint (nOut * (dlSize + 16 * maxRank))
        for o in 0 .. nOut - 1 do
            let dims = spec.OutDims.[o]
            let sp = NativePtr.ofNativeInt<int64> (oShape o)
            for d in 0 .. dims.Length - 1 do
                NativePtr.set sp d (
                    if dims.[d] >= 0L then dims.[d]
                    else
                        let (coeff, factors) = spec.OutSizes.[int (-dims.[d] - 1L)]
                        let mutable v = coeff
                        for k in factors do v <- v * seen.[k]
                        v)
            // libtorch's empty, as torch.empty calls it (without its managed size array)
            let devType, devIndex = if dev.Kind = KgDevice.Cuda then 1, dev.CudaIndex else 0, 0
            let h = Lib.THSTensor_empty(sp, dims.Length, sbyte spec.OutTypes.[o], devType, devIndex, 0uy)
            if h = 0n then
                raise (Runtime.KgenException(sprintf "TorchSharp could not allocate output %d (%O on %O)" o spec.OutTypes.[o] dev.TorchDevice, 2))
            outputs.[o] <- Tensor.UnsafeCreateTensor h
            let p = NativePtr.ofNativeInt<DLTensor> (oTensor o)
            let mutable v = NativePtr.read p
            let mutable ok = false
            v.Data <- NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> (Lib.THSTensor_data h))
            v.Device <- (if dev.Kind = KgDevice.Cuda then DLDevice(DeviceType = 2, DeviceId = dev.CudaIndex) else DLDevice(DeviceType = 1, DeviceId = 0))
            v.NDim <- dims.Length
            v.DType <- Runtime.dlOfScalarType (sbyte spec.OutTypes.[o]) &ok
            v.Shape <- sp
            v.Strides <- NativePtr.ofNativeInt 0n // contiguous (empty)
            NativePtr.write p v
            Marshal.WriteIntPtr(oTable, 8 * o, oTensor o)
        oTable

    let runSpec (dev: DeviceState) (spec: Spec) (oTable: nativeint) =
        let stream = if dev.Kind = KgDevice.Cuda then CudaStream.current dev.CudaIndex else 0n
        let st =
            Lib.kg_run(spec.Handle.DangerousGetHandle(), int dev.Kind, NativePtr.ofNativeInt tablePtr, nIn, NativePtr.ofNativeInt namedPtr, nCap,
                       NativePtr.ofNativeInt oTable, spec.OutTypes.Length, stream)
        if st <> 0 then fail (dev.Ctx.DangerousGetHandle()) st
        lastSpec <- spec

    /// Binds the arguments set so far and runs; outputs in Outputs.
    member private _.InvokeLocked() =
        let t0 = if profiling then Stopwatch.GetTimestamp() else 0L
        let dev = bindAll ()
        let spec = findOrSpecialize dev null
        let t1 = if profiling then Stopwatch.GetTimestamp() else 0L
        // outputs: allocated by TorchSharp, written by kg_run
        let oTable = allocOutputs dev spec
        let t2 = if profiling then Stopwatch.GetTimestamp() else 0L
        runSpec dev spec oTable
        if profiling then
            let t3 = Stopwatch.GetTimestamp()
            pCalls <- pCalls + 1L
            pLookup <- pLookup + (t1 - t0)
            pOutput <- pOutput + (t2 - t1)
            pRun <- pRun + (t3 - t2)

    /// Whether this call needs gradients: grad mode on and a tensor argument or capture requiring
    /// grad (the arguments set, the captures read now).
    member _.WantsGrad() : bool =
        if not (torch.is_grad_enabled ()) then false
        else
            let mutable any = false
            for i in 0 .. nIn - 1 do
                match args.[i] with
                | null -> ()
                | t -> if not any && not t.IsInvalid && Lib.THSTensor_requires_grad t.Handle <> 0uy then any <- true
            if not any && nCap > 0 then
                for t in captures () do
                    if not any && not (isNull t) && not t.IsInvalid && Lib.THSTensor_requires_grad t.Handle <> 0uy then any <- true
            any

    /// The forward of a call that needs gradients (Autograd.KgenFunction's forward, under the
    /// engine's lock): the arguments bound, the specialization for the gradients of the tensors
    /// requiring grad (floating ones), its forward run. The record keeps what its backward needs.
    member internal this.ForwardForGrad() : GradCall =
        let dev = bindAll ()
        let wants = Array.init nT (fun i ->
            let t = args.[i]
            if isNull t || t.IsInvalid then 0uy
            elif Lib.THSTensor_requires_grad t.Handle = 0uy then 0uy
            else
                let st = t.dtype
                if st = torch.ScalarType.Float32 || st = torch.ScalarType.Float64 || st = torch.ScalarType.Float16 || st = torch.ScalarType.BFloat16 then 1uy else 0uy)
        let spec = findOrSpecialize dev wants
        let oTable = allocOutputs dev spec
        runSpec dev spec oTable
        let mutable seed = 0UL
        let mutable off = 0UL
        Lib.kg_compiled_rng_last(spec.Handle.DangerousGetHandle(), &seed, &off) |> ignore
        let nRes = outputs.Length - spec.Saved
        { Engine = this
          Spec = spec
          Device = dev
          Results = Array.sub outputs 0 nRes
          Saved = Array.sub outputs nRes spec.Saved
          Args = Array.copy args
          Shapes = args |> Array.map (fun t -> if isNull t || t.IsInvalid then [||] else t.shape)
          Types = args |> Array.map (fun t -> if isNull t || t.IsInvalid then torch.ScalarType.Float32 else t.dtype)
          Rng = struct (seed, off) }

    /// The backward of a call (Autograd.KgenFunction's backward): the backward kernels run on the
    /// results' gradients and what the forward saved, at the forward's generator state; returns
    /// per argument (inputs, then captures) its gradient or null.
    member internal _.BackwardOf(call: GradCall, needed: torch.Tensor[], grads: torch.Tensor[]) : torch.Tensor[] =
        lock gate (fun () ->
            let spec, dev = call.Spec, call.Device
            let nb = spec.BwdIn.Length
            let ins : Tensor[] =
                spec.BwdIn |> Array.mapi (fun i (struct (src, idx)) ->
                    match src with
                    | s when s = Lib.BwdInGrad -> grads.[idx]
                    | _ -> needed.[i])
            let outs =
                spec.BwdOut |> Array.map (fun (struct (cap, idx)) ->
                    let a = if cap then nIn + idx else idx
                    torch.empty(call.Shapes.[a], dtype = call.Types.[a], device = dev.TorchDevice))
            let bytesPer = dlSize + 16 * maxRank
            use buf = new NativeBuffer((nb + outs.Length) * (bytesPer + 8) + 16)
            let table = buf.Ptr + nativeint ((nb + outs.Length) * bytesPer)
            let bind (k: int) (t: Tensor) =
                let tp = buf.Ptr + nativeint (k * bytesPer)
                let shp = tp + nativeint dlSize
                let str = shp + nativeint (8 * maxRank)
                let h = t.Handle
                let nd = int (Lib.THSTensor_ndimension h)
                let mutable ok = false
                let mutable v = DLTensor()
                v.Data <- NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> (Lib.THSTensor_data h))
                let devT = Lib.THSTensor_device_type h
                v.Device <- (if devT = 1 then DLDevice(DeviceType = 2, DeviceId = Lib.THSTensor_device_index h) else DLDevice(DeviceType = 1, DeviceId = 0))
                v.NDim <- nd
                v.DType <- Runtime.dlOfScalarType (Lib.THSTensor_type h) &ok
                v.Shape <- NativePtr.ofNativeInt shp
                v.Strides <- NativePtr.ofNativeInt str
                for d in 0 .. nd - 1 do
                    NativePtr.set (NativePtr.ofNativeInt<int64> shp) d (Lib.THSTensor_size(h, int64 d))
                    NativePtr.set (NativePtr.ofNativeInt<int64> str) d (Lib.THSTensor_stride(h, int64 d))
                NativePtr.write (NativePtr.ofNativeInt<DLTensor> tp) v
                Marshal.WriteIntPtr(table, 8 * k, tp)
            ins |> Array.iteri bind
            outs |> Array.iteri (fun o t -> bind (nb + o) t)
            let struct (seed, off) = call.Rng
            Lib.kg_compiled_rng_pin(spec.Bwd, 1, seed, off) |> ignore
            let stream = if dev.Kind = KgDevice.Cuda then CudaStream.current dev.CudaIndex else 0n
            let st =
                Lib.kg_run(spec.Bwd, int dev.Kind, NativePtr.ofNativeInt table, nb, NativePtr.ofNativeInt 0n, 0,
                           NativePtr.ofNativeInt (table + nativeint (8 * nb)), outs.Length, stream)
            GC.KeepAlive ins
            if st <> 0 then fail (dev.Ctx.DangerousGetHandle()) st
            let res : Tensor[] = Array.zeroCreate nT
            spec.BwdOut |> Array.iteri (fun o (struct (cap, idx)) -> res.[if cap then nIn + idx else idx] <- outs.[o])
            res)

    /// Sets the outputs a call returns (the autograd path's results).
    member internal _.SetOutputs(ts: torch.Tensor[]) = outputs <- ts
    /// The values an autograd Function's apply takes for this call: the engine, then each
    /// argument (a tensor, or a placeholder number) and each capture (read now).
    member internal this.AutogradVars() : obj[] =
        let caps = if nCap > 0 then captures () else [||]
        Array.init (1 + nT) (fun i ->
            if i = 0 then box this
            elif i - 1 < nIn then (match args.[i - 1] with null -> box 0.0 | t -> box t)
            else box caps.[i - 1 - nIn])
    member internal _.InputCount = nIn

    /// Enters the engine's lock: a call is Enter, Set*, Invoke, read Output, Exit.
    member _.Enter() = Monitor.Enter gate
    member _.Exit() =
        for i in 0 .. nT - 1 do args.[i] <- null
        Monitor.Exit gate
    member _.SetTensor(i: int, t: Tensor) =
        match kinds.[i] with
        | TensorParam -> args.[i] <- t
        | ScalarParam _ -> raise (Runtime.KgenException(sprintf "argument %d is a number, a tensor was given" (i + 1), 1))
    member _.SetScalar(i: int, v: float) =
        match kinds.[i] with
        | ScalarParam t ->
            let p = scalarSlot i
            match t with
            | torch.ScalarType.Float32 -> NativePtr.write (NativePtr.ofNativeInt<float32> p) (float32 v)
            | torch.ScalarType.Float64 -> NativePtr.write (NativePtr.ofNativeInt<float> p) v
            | torch.ScalarType.Int32 -> NativePtr.write (NativePtr.ofNativeInt<int> p) (int v)
            | torch.ScalarType.Bool -> NativePtr.write (NativePtr.ofNativeInt<byte> p) (if v <> 0.0 then 1uy else 0uy)
            | _ -> NativePtr.write (NativePtr.ofNativeInt<int64> p) (int64 v)
        | TensorParam -> raise (Runtime.KgenException(sprintf "argument %d is a tensor, a number was given" (i + 1), 1))
    member this.SetInt64(i: int, v: int64) =
        match kinds.[i] with
        | ScalarParam torch.ScalarType.Int64 -> NativePtr.write (NativePtr.ofNativeInt<int64> (scalarSlot i)) v
        | ScalarParam _ -> this.SetScalar(i, float v)
        | TensorParam -> raise (Runtime.KgenException(sprintf "argument %d is a tensor, a number was given" (i + 1), 1))
    member this.Invoke() =
        if disposed then raise (ObjectDisposedException "Kgen compiled function")
        this.InvokeLocked()
    member _.Output(i: int) = outputs.[i]
    member _.OutputCount = outputs.Length
    member _.Kinds = kinds
    member _.Specializations = specializations
    member _.Stats =
        lock gate (fun () ->
            let mutable acc = { Specializations = 0L; EmuCompiles = 0L; EmuCacheHits = 0L; NvrtcCompiles = 0L; CubinCacheHits = 0L }
            for d in devices.Values do
                let mutable s = KgContextStats()
                Lib.kg_context_stats_get(d.Ctx.DangerousGetHandle(), &s) |> ignore
                acc <-
                    { Specializations = acc.Specializations + int64 s.Specializations
                      EmuCompiles = acc.EmuCompiles + int64 s.EmuCompiles
                      EmuCacheHits = acc.EmuCacheHits + int64 s.EmuCacheHits
                      NvrtcCompiles = acc.NvrtcCompiles + int64 s.NvrtcCompiles
                      CubinCacheHits = acc.CubinCacheHits + int64 s.CubinCacheHits }
            acc)
    /// Turns per-phase timing on (and resets it) or off.
    member _.Profiling
        with get () = profiling
        and set v =
            lock gate (fun () ->
                profiling <- v
                pCalls <- 0L
                pLookup <- 0L
                pOutput <- 0L
                pRun <- 0L)
    member _.Profile = { Calls = pCalls; LookupTicks = pLookup; OutputTicks = pOutput; RunTicks = pRun }
    /// The kgen runs (launches, allocations...) of the last call.
    member _.LastRunStats =
        lock gate (fun () ->
            let mutable s = KgRunStats()
            if not (isNull (box lastSpec)) then Lib.kg_run_stats_get(lastSpec.Handle.DangerousGetHandle(), &s) |> ignore
            s)
    interface IDisposable with
        member _.Dispose() =
            lock gate (fun () ->
                if not disposed then
                    disposed <- true
                    for d in devices.Values do
                        for s in d.Specs do s.Handle.Dispose()
                        d.Module.Dispose()
                        d.Ctx.Dispose()
                    devices.Clear()
                    block.Dispose()
                    strings.Dispose()
                    if not (isNull outBlock) then outBlock.Dispose())

/// A call that needs gradients (Engine.ForwardForGrad): its specialization, the forward's
/// results and saved values, its arguments (inputs, then captures), their shapes and dtypes (the
/// gradients'), the generator state the forward drew at (the backward redraws dropout's masks).
and internal GradCall =
    { Engine: Engine
      Spec: Spec
      Device: DeviceState
      Results: torch.Tensor[]
      Saved: torch.Tensor[]
      Args: torch.Tensor[]
      Shapes: int64[][]
      Types: torch.ScalarType[]
      Rng: struct (uint64 * uint64) }
