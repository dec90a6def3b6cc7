// tools/dump_members.fsx — the exact member keys of TorchSharp 0.107 for a list of names, as
// rows of ../shared/spec/torchsharp-members.md's tables (key | kind | return type | defaults |
// notes with the C# parameter names), read by reflection from the TorchSharp.dll the F#
// compiler binds to. docs/members-extra.md holds its output for the members kgen compiles
// that the shared spec lacks; tools/gen_members.py reads both.
//   dotnet fsi tools/dump_members.fsx squeeze flip roll ... > rows.md
#r "nuget: TorchSharp, 0.107.0"
open System
open System.Reflection

let types = [ typeof<TorchSharp.torch>; typeof<TorchSharp.torch.Tensor>; typeof<TorchSharp.torch.nn.functional> ]
let names = fsi.CommandLineArgs |> Array.skip 1 |> Set.ofArray
let defaultText (p: ParameterInfo) =
    if not p.HasDefaultValue then None
    else
        match p.DefaultValue with
        | null -> Some(p.Name + "=null")
        | :? bool as b -> Some(sprintf "%s=%s" p.Name (if b then "true" else "false"))
        | v -> Some(sprintf "%s=%O" p.Name v)
for t in types do
    let ms = t.GetMethods(BindingFlags.Public ||| BindingFlags.Static ||| BindingFlags.Instance ||| BindingFlags.DeclaredOnly)
    for m in ms |> Array.sortBy (fun m -> m.Name, m.GetParameters().Length, m.ToString()) do
        if names.Contains m.Name && not m.IsGenericMethod then
            let ps = m.GetParameters()
            let key = sprintf "%s::%s(%s)" (t.ToString()) m.Name (ps |> Array.map (fun p -> p.ParameterType.ToString()) |> String.concat ",")
            let quoted = if key.Contains "`" then "`` " + key + " ``" else "`" + key + "`"
            let defs = ps |> Array.choose defaultText |> String.concat ", "
            printfn "| %s | %s | `%s` | %s | C# params: (%s); TorchSharp 0.107.0 (reflection) |" quoted
                (if m.IsStatic then "static" else "instance") (m.ReturnType.ToString()) (if defs = "" then "—" else defs)
                (ps |> Array.map (fun p -> (if p.GetCustomAttributes(typeof<ParamArrayAttribute>, false).Length > 0 then "params " else "") + p.Name) |> String.concat ", ")
