// Kgen.Native: libkgen's C ABI (runtime/kgen.h) and DLPack (runtime/dlpack.h) for .NET.
//
// Blittable structs laid out exactly as the C headers, LibraryImport declarations (no bool,
// no marshalled strings: UTF-8 byte pointers), and the library resolver: "kgen" is found as
// $KGEN_LIB, next to this assembly, in runtimes/linux-x64/native/ beside it (the NuGet
// layout), or as build/libkgen.so in a folder above it (a source checkout); "LibTorchSharp" is
// the very copy TorchSharp already loaded (read from /proc/self/maps), so THSTensor_data is
// called in the same library instance that owns the tensors.
using System;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Kgen.Native;

[StructLayout(LayoutKind.Sequential)]
public struct DLDevice
{
    public int DeviceType; // kDLCPU = 1, kDLCUDA = 2
    public int DeviceId;
}

[StructLayout(LayoutKind.Sequential)]
public struct DLDataType
{
    public byte Code;   // kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
    public byte Bits;
    public ushort Lanes;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct DLTensor
{
    public void* Data;
    public DLDevice Device;
    public int NDim;
    public DLDataType DType;
    public long* Shape;
    public long* Strides; // in elements
    public ulong ByteOffset;
}

[StructLayout(LayoutKind.Sequential)]
public unsafe struct KgNamedTensor
{
    public byte* Name; // NUL-terminated UTF-8
    public DLTensor* Tensor;
}

[StructLayout(LayoutKind.Sequential)]
public struct KgRunStats
{
    public ulong Launches, DeviceAllocs, Reads, PlanSteps, Iterations, Replays, InplaceWrites, PanelsKept;
}

[StructLayout(LayoutKind.Sequential)]
public struct KgContextStats
{
    public ulong Specializations, EmuCompiles, EmuCacheHits, NvrtcCompiles, CubinCacheHits;
}

/// <summary>kg_options (runtime/kgen.h), field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct KgOptions
{
    public byte* CacheDir;      // NUL-terminated UTF-8, or null: $KGEN_CACHE_DIR or ~/.cache/kgen
    public byte* Cc;            // host C compiler for the emulator, or null
    public int EmuThreadOrder;
    public uint EmuSeed;
    public int VerifyIr;
    public int ForceVariant;
    public int CudaDevice;
    public int F32Matmul;       // kg_f32_matmul: 0 split-TF32 on tensor cores, 1 TF32, 2 SIMT float32
    public int EmuArch;         // 0: schedules for sm_90; 80: for sm_80
    public int NoReplay;        // 1: no replay of recorded launches (CUDA graphs on CUDA)
}

/// <summary>kg_device_kind</summary>
public enum KgDevice { Auto = 0, Cuda = 1, Emu = 2, Null = 3, Cpu = 4 }

/// <summary>kg_package_item (kgen.h): one entry and signature of a document for kg_package_write.</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct KgPackageItem
{
    public IntPtr Module;
    public byte* Entry; // NUL-terminated UTF-8, or null: every entry
    public byte* Sig;   // NUL-terminated UTF-8, or null: the document signature
}

/// <summary>kg_artifact</summary>
public enum KgArtifact { Cuda = 0, Ptx = 1, Cubin = 2, TorchScript = 3, Python = 4, Ir = 5, Explain = 6 }

/// <summary>The C functions. Status: 0 ok, 1 bad input, 2 internal error.</summary>
public static unsafe partial class Lib
{
    const string Kgen = "kgen";

    [LibraryImport(Kgen)] public static partial IntPtr kg_context_new(IntPtr opts);
    [LibraryImport(Kgen)] public static partial void kg_context_free(IntPtr ctx);
    [LibraryImport(Kgen)] public static partial byte* kg_last_error(IntPtr ctx);
    [LibraryImport(Kgen)] public static partial int kg_module_load(IntPtr ctx, byte* json, nuint len, out IntPtr module);
    [LibraryImport(Kgen)] public static partial void kg_module_free(IntPtr module);
    [LibraryImport(Kgen)] public static partial int kg_module_n_entries(IntPtr module);
    [LibraryImport(Kgen)] public static partial byte* kg_module_entry_name(IntPtr module, int i);
    [LibraryImport(Kgen)] public static partial int kg_module_entry_n_params(IntPtr module, byte* entry);
    [LibraryImport(Kgen)] public static partial int kg_module_entry_param(IntPtr module, byte* entry, int i, out DLDataType scalarDtype);
    [LibraryImport(Kgen)] public static partial int kg_specialize(IntPtr module, byte* entry, byte* sig, out IntPtr compiled);
    [LibraryImport(Kgen)]
    public static partial int kg_specialize_for(IntPtr module, byte* entry, DLTensor** inputs, int nInputs,
                                                KgNamedTensor* captures, int nCaptures, out IntPtr compiled);
    public const uint SpecDynamic = 1; // KG_SPEC_DYNAMIC
    [LibraryImport(Kgen)]
    public static partial int kg_specialize_for_ex(IntPtr module, byte* entry, DLTensor** inputs, int nInputs,
                                                   KgNamedTensor* captures, int nCaptures, uint flags, out IntPtr compiled);
    [LibraryImport(Kgen)] public static partial byte* kg_compiled_output_symbol(IntPtr compiled, int i, int d);
    [LibraryImport(Kgen)] public static partial int kg_context_stats_get(IntPtr ctx, out KgContextStats stats);
    [LibraryImport(Kgen)] public static partial void kg_compiled_free(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial int kg_compiled_n_outputs(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial int kg_compiled_output(IntPtr compiled, int i, out DLDataType dtype, out int ndim, long* shape8);
    [LibraryImport(Kgen)] public static partial int kg_compiled_n_kernels(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial byte* kg_compiled_warnings(IntPtr compiled);
    // the random generator (kgen.h): seed, offset; counters a call of an entry consumes
    [LibraryImport(Kgen)] public static partial int kg_context_manual_seed(IntPtr ctx, ulong seed);
    [LibraryImport(Kgen)] public static partial int kg_context_rng_state(IntPtr ctx, out ulong seed, out ulong offset);
    [LibraryImport(Kgen)] public static partial int kg_context_set_rng_state(IntPtr ctx, ulong seed, ulong offset);
    [LibraryImport(Kgen)] public static partial ulong kg_compiled_rng_streams(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial int kg_emit(IntPtr compiled, int kind, int arch, out IntPtr data, out nuint len);
    [LibraryImport(Kgen)]
    public static partial int kg_run(IntPtr compiled, int device, DLTensor** inputs, int nInputs, KgNamedTensor* captures,
                                     int nCaptures, DLTensor** outputs, int nOutputs, IntPtr stream);
    [LibraryImport(Kgen)] public static partial int kg_run_stats_get(IntPtr compiled, out KgRunStats stats);
    [LibraryImport(Kgen)] public static partial int kg_default_device(IntPtr ctx);
    // gradients (kgen.h "gradients"): a forward compiled for the gradients of the wanted
    // parameters, its backward, what the backward's inputs are, whose gradients it writes
    [LibraryImport(Kgen)]
    public static partial int kg_specialize_grad(IntPtr module, byte* entry, DLTensor** inputs, int nInputs,
                                                 KgNamedTensor* captures, int nCaptures, uint flags, byte* wants, out IntPtr compiled);
    [LibraryImport(Kgen)] public static partial int kg_compiled_n_saved(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial IntPtr kg_compiled_backward(IntPtr compiled);
    /// <summary>kg_compiled_backward_input's sources</summary>
    public const int BwdInGrad = 0, BwdInInput = 1, BwdInCapture = 2, BwdInResult = 3, BwdInSaved = 4;
    [LibraryImport(Kgen)] public static partial int kg_compiled_backward_n_inputs(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial int kg_compiled_backward_input(IntPtr compiled, int i, out int source, out int index);
    [LibraryImport(Kgen)] public static partial int kg_compiled_backward_n_outputs(IntPtr compiled);
    [LibraryImport(Kgen)] public static partial int kg_compiled_backward_output(IntPtr compiled, int i, out int isCapture, out int index);
    [LibraryImport(Kgen)] public static partial int kg_compiled_rng_last(IntPtr compiled, out ulong seed, out ulong offset);
    [LibraryImport(Kgen)] public static partial int kg_compiled_rng_pin(IntPtr compiled, int pinned, ulong seed, ulong offset);
    [LibraryImport(Kgen)] public static partial int kg_package_load(IntPtr ctx, byte* path, out IntPtr module);
    [LibraryImport(Kgen)] public static partial int kg_package_write(IntPtr ctx, KgPackageItem* items, int nItems, int* archs, int nArchs, byte* path);
    [LibraryImport(Kgen)] public static partial int kg_package_describe(IntPtr module, byte* entry, out IntPtr text);
    [LibraryImport(Kgen)] public static partial int kg_module_is_package(IntPtr module);

    /// <summary>TorchSharp's native data pointer of a tensor (storage offset included, every dtype).</summary>
    [LibraryImport("LibTorchSharp")] public static partial IntPtr THSTensor_data(IntPtr tensor);
    // Tensor metadata without managed allocations (TorchSharp's shape / stride() build arrays).
    [LibraryImport("LibTorchSharp")] public static partial long THSTensor_ndimension(IntPtr tensor);
    [LibraryImport("LibTorchSharp")] public static partial long THSTensor_size(IntPtr tensor, long dim);
    [LibraryImport("LibTorchSharp")] public static partial long THSTensor_stride(IntPtr tensor, long dim);
    [LibraryImport("LibTorchSharp")] public static partial sbyte THSTensor_type(IntPtr tensor);
    [LibraryImport("LibTorchSharp")] public static partial int THSTensor_device_type(IntPtr tensor);
    [LibraryImport("LibTorchSharp")] public static partial int THSTensor_device_index(IntPtr tensor);
    /// <summary>Whether a tensor requires grad (a C++ bool).</summary>
    [LibraryImport("LibTorchSharp")] public static partial byte THSTensor_requires_grad(IntPtr tensor);
    /// <summary>An uninitialized tensor (what torch.empty calls); wrap it with Tensor.UnsafeCreateTensor.</summary>
    [LibraryImport("LibTorchSharp")]
    public static partial IntPtr THSTensor_empty(long* sizes, int length, sbyte scalarType, int deviceType, int deviceIndex, byte requiresGrad);

    static Lib() => NativeLibrary.SetDllImportResolver(typeof(Lib).Assembly, Resolve);

    /// <summary>Where libkgen.so was found (for messages).</summary>
    public static string KgenPath { get; private set; }

    static IntPtr Resolve(string name, Assembly asm, DllImportSearchPath? path)
    {
        if (name == Kgen) return LoadKgen();
        if (name == "LibTorchSharp") return LoadTorchSharp();
        return IntPtr.Zero;
    }

    static IntPtr LoadKgen()
    {
        var here = Path.GetDirectoryName(typeof(Lib).Assembly.Location) ?? ".";
        var candidates = new System.Collections.Generic.List<string>();
        var env = Environment.GetEnvironmentVariable("KGEN_LIB");
        if (!string.IsNullOrEmpty(env)) candidates.Add(env);
        candidates.Add(Path.Combine(here, "libkgen.so"));
        candidates.Add(Path.Combine(here, "runtimes", "linux-x64", "native", "libkgen.so"));
        for (var d = new DirectoryInfo(here); d != null; d = d.Parent)
            candidates.Add(Path.Combine(d.FullName, "build", "libkgen.so"));
        foreach (var c in candidates)
            if (File.Exists(c) && NativeLibrary.TryLoad(c, out var h)) { KgenPath = c; return h; }
        throw new DllNotFoundException(
            "libkgen.so not found: build kgen (cmake -S . -B build && cmake --build build) or set KGEN_LIB to its path; looked at "
            + string.Join(", ", candidates));
    }

    static IntPtr LoadTorchSharp()
    {
        // TorchSharp loads libLibTorchSharp.so itself (from its own folder or a copy it makes);
        // use that copy: make sure it is loaded, then find it among the process's mappings.
        TorchSharp.torch.InitializeDeviceType(TorchSharp.DeviceType.CPU);
        foreach (var line in File.ReadLines("/proc/self/maps"))
        {
            var i = line.IndexOf('/');
            if (i >= 0 && line.EndsWith("libLibTorchSharp.so", StringComparison.Ordinal))
                return NativeLibrary.Load(line.Substring(i));
        }
        throw new DllNotFoundException("TorchSharp's libLibTorchSharp.so is not loaded in this process");
    }
}
