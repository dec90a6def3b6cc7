// Helpers shared by the tests: the repository root and JSON queries on serialized documents.
module Kgen.Tests.Support

open System.IO
open System.Text.Json

/// The repository root: the first folder above the test assembly that holds examples/.
let repoRoot =
    let rec up (d: DirectoryInfo) =
        if isNull d then failwith "no examples/ folder above the test assembly"
        elif Directory.Exists(Path.Combine(d.FullName, "examples")) && Directory.Exists(Path.Combine(d.FullName, "dotnet")) then d.FullName
        else up d.Parent
    up (DirectoryInfo System.AppContext.BaseDirectory)

let parse (json: string) = JsonDocument.Parse(json, JsonDocumentOptions(MaxDepth = Kgen.Serializer.maxDepth)).RootElement

/// Every object node (with "k") of a document, depth first.
let rec nodes (e: JsonElement) : JsonElement seq =
    seq {
        match e.ValueKind with
        | JsonValueKind.Object ->
            let mutable k = Unchecked.defaultof<JsonElement>
            if e.TryGetProperty("k", &k) then yield e
            for p in e.EnumerateObject() do yield! nodes p.Value
        | JsonValueKind.Array -> for x in e.EnumerateArray() do yield! nodes x
        | _ -> ()
    }

let kind (e: JsonElement) = e.GetProperty("k").GetString()
let prop (name: string) (e: JsonElement) = e.GetProperty name
let str (e: JsonElement) = e.GetString()
