// KgenFunction from C#: documents written by the F# serializer, loaded and called on
// TorchSharp tensors; captures by name, number parameters, several outputs, errors as
// KgenException with kgen's located diagnostic.
using System;
using System.Collections.Generic;
using System.IO;
using Kgen;
using TorchSharp;
using Xunit;
using static TorchSharp.torch;

public class KgenFunctionTests
{
    static string Example(string name)
    {
        for (var d = new DirectoryInfo(AppContext.BaseDirectory); d != null; d = d.Parent)
        {
            var p = Path.Combine(d.FullName, "examples", name + ".json");
            if (File.Exists(p)) return File.ReadAllText(p);
        }
        throw new FileNotFoundException(name);
    }

    [Fact]
    public void A_document_entry_is_called_on_tensors()
    {
        using var f = KgenFunction.Load(Example("bcast_bias_gelu"));
        var x = randn(6, 768);
        var b = randn(768);
        Tensor y = f.Call(x, b);
        Assert.True(y.allclose((x + b).gelu(), rtol: 1e-5, atol: 1e-5));
        // another batch size reuses the specialization
        var x2 = randn(3, 768);
        Assert.True(f.Call(x2, b).allclose((x2 + b).gelu(), rtol: 1e-5, atol: 1e-5));
        Assert.Equal(1, f.Specializations);
    }

    [Fact]
    public void Captures_by_name_numbers_and_several_outputs()
    {
        var w = randn(768);
        using var f = KgenFunction.Load(Example("capture_weight_mul"), captures: new Dictionary<string, Tensor> { ["w"] = w });
        var x = randn(4, 768);
        Assert.True(f.Call(x).allclose(x * w, rtol: 1e-5, atol: 1e-5));
        w.mul_(2.0f); // updated in place: seen by the next call
        Assert.True(f.Call(x).allclose(x * w, rtol: 1e-5, atol: 1e-5));
        using var g = KgenFunction.Load(Example("fs_tupled_then_curried"));
        var xs = randn(5, 17);
        var bs = randn(17);
        Tensor[] outs = g.Invoke(xs, bs, 0.5f);
        Assert.Single(outs);
        Assert.True(outs[0].allclose((xs + bs).tanh() * 0.5f + xs, rtol: 1e-5, atol: 1e-5));
    }

    [Fact]
    public void Errors_are_exceptions_with_kgen_diagnostics()
    {
        using var f = KgenFunction.Load(Example("bcast_bias_gelu"));
        var e = Assert.Throws<Runtime.KgenException>(() => f.Call(randn(3, 768), randn(5)));
        Assert.Contains("cannot be broadcast", e.Message);
        Assert.Contains("bcast_bias_gelu.fs:", e.Message);
        Assert.Throws<Runtime.KgenException>(() => f.Call(randn(3, 768)));
        var missing = Assert.Throws<Runtime.KgenException>(() => KgenFunction.Load(Example("capture_weight_mul")).Call(randn(2, 768)));
        Assert.Contains("'w'", missing.Message);
    }
}
