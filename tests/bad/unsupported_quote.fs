// unsupported_quote: a nested quotation (Quote: <@ x.exp() @> inside the quotation) is not supported
module Bad.UnsupportedQuote

open TorchSharp

let unsupported_quote =
    <@ fun (x: torch.Tensor) -> x.exp() @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a nested quotation (Quote: <@ x.exp() @> inside the quotation) is not supported
// The F# it stands for:
//   <@ fun (x: torch.Tensor) -> <@ x.exp() @> @>
