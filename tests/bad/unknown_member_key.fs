// unknown_member_key: a Call to a member key that is not in the member table (Tensor::frobnicate())
module Bad.UnknownMemberKey

open TorchSharp

let unknown_member_key =
    <@ fun (x: torch.Tensor) -> x.frobnicate() @>
