// Kgen.Hints: a line of help under an F# compile error that TorchSharp's overloads cause.
// `kgen-fsharp` shows F#'s errors with their positions (docs/fsharp.md); for the ones users of
// TorchSharp meet most it adds what to write instead, read from the call in the source:
//
//   Model.fs(10,40): error FS0041: A unique overload for method 'pow' could not be determined ...
//     Known type of argument: float32 Candidates: - Tensor.pow(exponent: Scalar) - Tensor.pow(exponent: Tensor)
//     hint: TorchSharp's pow takes a Scalar or a Tensor, and F# converts a float32 to both: say which,
//           x.pow(2.0f.ToScalar()) (ToScalar comes with `open TorchSharp`)
//
// (x.split(3L, 2L), which F# binds to split(params int64[] sizes) without an error, is kgen's
// own warning: frontend/layout_members.c.)
module Kgen.Hints

open System
open System.IO
open System.Text.RegularExpressions

let private errorRx = Regex(@"^(?<file>.+)\((?<line>\d+),(?<col>\d+)\): error (?<code>FS\d+): (?<msg>.*)$")
let private overloadRx = Regex(@"A unique overload for method '(?<name>[^']+)' could not be determined")
let private knownRx = Regex(@"Known type of argument: (?<ty>[A-Za-z0-9_.]+?)(Candidates|\s|$)")
let private scalarRx = Regex(@"\(\w+: Scalar\)")
let private tensorRx = Regex(@"\(\w+: (torch\.)?Tensor\)")
let private numberRx = Regex(@"^-?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?(f|F|m|M)?$")
let private identRx = Regex(@"^[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*$")

let private numberTypes = set [ "float32"; "float"; "single"; "double"; "int"; "int32"; "int64"; "int16"; "byte"; "sbyte"; "bool" ]

/// The receiver and the argument list of the call `recv.name(...)` at (1-based) line and column of
/// `file`, when it is on that line: ("x", "2.0f") for x.pow(2.0f); the receiver "x" unless it is a name.
let private callText (file: string) (line: int) (col: int) (name: string) =
    try
        let lines = File.ReadAllLines file
        if line < 1 || line > lines.Length then None
        else
            let l = lines.[line - 1]
            let i = l.IndexOf(name + "(", max 0 (min l.Length (col - 1)), StringComparison.Ordinal)
            if i < 0 then None
            else
                let start = i + name.Length + 1
                let mutable depth = 1
                let mutable j = start
                while j < l.Length && depth > 0 do
                    match l.[j] with
                    | '(' | '[' -> depth <- depth + 1
                    | ')' | ']' -> depth <- depth - 1
                    | _ -> ()
                    j <- j + 1
                let mutable k = i - 1
                if k >= 0 && l.[k] = '.' then
                    while k > 0 && (Char.IsLetterOrDigit l.[k - 1] || l.[k - 1] = '_' || l.[k - 1] = '.') do k <- k - 1
                let recv = if k < i - 1 then l.Substring(k, i - 1 - k) else ""
                let recv = if identRx.IsMatch recv then recv else "x"
                if depth = 0 then Some(recv, l.Substring(start, j - 1 - start).Trim()) else None
    with _ -> None

/// `arg.ToScalar()` as F# parses it: a float literal or a name as it is, anything else in parentheses.
let private toScalar (arg: string) =
    if (numberRx.IsMatch arg && (arg.Contains "." || arg.EndsWith "f" || arg.EndsWith "F")) || identRx.IsMatch arg then arg + ".ToScalar()"
    else "(" + arg + ").ToScalar()"

/// The hint line (indented, "hint: ...") for one F# error line `File.fs(line,col): error FSnnnn: ...`, if kgen has one.
let forError (error: string) : string option =
    let m = errorRx.Match(error.Replace('\u001d', ' '))
    if not m.Success then None
    else
        let msg = m.Groups.["msg"].Value
        let ov = overloadRx.Match msg
        let known = knownRx.Match msg
        if m.Groups.["code"].Value = "FS0041" && ov.Success && known.Success && scalarRx.IsMatch msg && tensorRx.IsMatch msg
           && numberTypes.Contains(known.Groups.["ty"].Value) then
            let name = ov.Groups.["name"].Value
            let ty = known.Groups.["ty"].Value
            let file, line, col = m.Groups.["file"].Value, int m.Groups.["line"].Value, int m.Groups.["col"].Value
            let call =
                match callText file line col name with
                | Some(recv, arg) when arg <> "" && not (arg.Contains ",") -> sprintf "%s.%s(%s)" recv name (toScalar arg)
                | _ -> sprintf "x.%s(%s)" name (if ty = "float32" then "2.0f.ToScalar()" else "v.ToScalar()")
            let article = if "aeiou".Contains ty.[0] then "an" else "a"
            Some(sprintf "  hint: TorchSharp's %s takes a Scalar or a Tensor, and F# converts %s %s to both: say which, %s (ToScalar comes with `open TorchSharp`)"
                     name article ty call)
        else None

/// Every error line followed by its hint, if any. (MSBuild writes the line breaks of F#'s
/// messages as U+001D: they become spaces.)
let annotate (errors: string seq) : string list =
    [ for e in errors do
          let e = Regex.Replace(e.Replace('\u001d', ' '), " {2,}", " ")
          yield e
          match forError e with
          | Some h -> yield h
          | None -> () ]
