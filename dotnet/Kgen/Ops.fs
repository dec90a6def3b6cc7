// Kgen.Ops and Kgen.EntryAttribute: what F# code references to be compiled by kgen.
//
// `map`, `map2`, `map3` apply a scalar F# lambda element by element (spec "kgen's own
// element-wise functions"); kgen compiles their calls, and the bodies below run only when the
// function is executed eagerly (the three-way check runs the F# function itself), so they are
// real: the tensor is read into .NET, the lambda applied, and a tensor of the result's dtype made.
// `EntryAttribute` marks a [<ReflectedDefinition>] function or a quotation value as an entry of
// a kgen document and carries its signature in kgen's compact form
// ("float32[N,768], float32[768], w=float16[768]").
namespace Kgen

open System
open TorchSharp

/// Marks a `[<ReflectedDefinition>]` function, a quotation value or a function returning a
/// quotation as an entry of the kgen document of its source file. `signature` is kgen's compact
/// signature (`kgen compile --sig`); `NonZero` lists parameters (0-based) whose random inputs
/// must have no zeros (integer divisors).
[<AttributeUsage(AttributeTargets.Method ||| AttributeTargets.Property, AllowMultiple = false)>]
type EntryAttribute(signature: string) =
    inherit Attribute()
    new() = EntryAttribute(null)
    member _.Signature = signature
    member val NonZero: int[] = [||] with get, set

/// A module whose forward is a quotation it carries, not a [<ReflectedDefinition>] method: a
/// module built from an F# function at run time, as functional model libraries do (TorchSharp.Fun's
/// `F` and `->>`, examples/models/torchsharp_fun.fs), where the compiled closure has no body F#
/// can give back. The serializer inlines `Forward` — a lambda of the forward's parameter — at each
/// application of the live module; the modules and tensors it captures are named by the path of
/// the module and the names they are registered under (docs/fsharp.md "Modules").
type IQuotedForward =
    abstract Forward: Quotations.Expr

module internal Eager =
    let scalarTypeOf (t: Type) =
        if t = typeof<float32> then torch.ScalarType.Float32
        elif t = typeof<float> then torch.ScalarType.Float64
        elif t = typeof<int> then torch.ScalarType.Int32
        elif t = typeof<int64> then torch.ScalarType.Int64
        elif t = typeof<int16> then torch.ScalarType.Int16
        elif t = typeof<sbyte> then torch.ScalarType.Int8
        elif t = typeof<byte> then torch.ScalarType.Byte
        elif t = typeof<bool> then torch.ScalarType.Bool
        elif t = typeof<Half> then torch.ScalarType.Float16
        else invalidArg "T" (sprintf "Kgen.Ops: no tensor dtype for %O" t)

    /// The elements of `t` (converted to 'T, as kgen converts the operand) in row-major order.
    let elements<'T when 'T: unmanaged and 'T: struct and 'T: (new: unit -> 'T) and 'T :> ValueType>
        (t: torch.Tensor) : 'T[] =
        use c = t.to_type(scalarTypeOf typeof<'T>).contiguous().cpu()
        c.data<'T>().ToArray()

    let make<'T> (values: 'T[]) (shape: int64[]) : torch.Tensor =
        let dims = ReadOnlySpan<int64>(shape)
        // by the element type itself: the CLR lets a byte[] pass a `:? sbyte[]` test
        let t = typeof<'T>
        let o = box values
        if t = typeof<float32> then torch.tensor(o :?> float32[], dims)
        elif t = typeof<float> then torch.tensor(o :?> float[], dims)
        elif t = typeof<int> then torch.tensor(o :?> int[], dims)
        elif t = typeof<int64> then torch.tensor(o :?> int64[], dims)
        elif t = typeof<int16> then torch.tensor(o :?> int16[], dims)
        elif t = typeof<sbyte> then torch.tensor(o :?> sbyte[], dims)
        elif t = typeof<byte> then torch.tensor(o :?> byte[], dims)
        elif t = typeof<bool> then torch.tensor(o :?> bool[], dims)
        elif t = typeof<Half> then torch.tensor(o :?> Half[], dims)
        else invalidArg "T" (sprintf "Kgen.Ops: no tensor dtype for %O" typeof<'T>)

/// Element-wise application of scalar F# lambdas (compiled by kgen; run eagerly otherwise).
/// A module, so `Ops.map (fun a -> ...) x` is curried as users write it; its compiled
/// methods are `Kgen.Ops::map(FSharpFunc`2[A,B],Tensor)` etc., the spec's keys.
[<RequireQualifiedAccess>]
module Ops =
    /// Apply `f` to every element of `x` (converted to 'A); the result's dtype is that of 'B.
    let map<'A, 'B when 'A: unmanaged and 'A: struct and 'A: (new: unit -> 'A) and 'A :> ValueType
                     and 'B: unmanaged and 'B: struct and 'B: (new: unit -> 'B) and 'B :> ValueType>
        (f: 'A -> 'B) (x: torch.Tensor) : torch.Tensor =
        let a = Eager.elements<'A> x
        Eager.make (Array.map f a) x.shape

    /// Apply `f` to the elements of `x` and `y` broadcast against each other.
    let map2<'A, 'B, 'C when 'A: unmanaged and 'A: struct and 'A: (new: unit -> 'A) and 'A :> ValueType
                         and 'B: unmanaged and 'B: struct and 'B: (new: unit -> 'B) and 'B :> ValueType
                         and 'C: unmanaged and 'C: struct and 'C: (new: unit -> 'C) and 'C :> ValueType>
        (f: 'A -> 'B -> 'C) (x: torch.Tensor) (y: torch.Tensor) : torch.Tensor =
        let ts = torch.broadcast_tensors(x, y)
        let a = Eager.elements<'A> ts.[0]
        let b = Eager.elements<'B> ts.[1]
        Eager.make (Array.map2 f a b) ts.[0].shape

    /// Apply `f` to the elements of three tensors broadcast against each other.
    let map3<'A, 'B, 'C, 'D when 'A: unmanaged and 'A: struct and 'A: (new: unit -> 'A) and 'A :> ValueType
                             and 'B: unmanaged and 'B: struct and 'B: (new: unit -> 'B) and 'B :> ValueType
                             and 'C: unmanaged and 'C: struct and 'C: (new: unit -> 'C) and 'C :> ValueType
                             and 'D: unmanaged and 'D: struct and 'D: (new: unit -> 'D) and 'D :> ValueType>
        (f: 'A -> 'B -> 'C -> 'D) (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) : torch.Tensor =
        let ts = torch.broadcast_tensors(x, y, z)
        let a = Eager.elements<'A> ts.[0]
        let b = Eager.elements<'B> ts.[1]
        let c = Eager.elements<'C> ts.[2]
        Eager.make (Array.map3 f a b c) ts.[0].shape
