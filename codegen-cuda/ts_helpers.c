/* codegen-cuda/ts_helpers.c — the Python helper functions a TorchScript twin may call, each
 * emitted before the entry function only when one of its ops needs it (kernel semantics PyTorch
 * has no single op for: .NET integer division and shifts, saturating casts, exact integer pow,
 * cbrt, and the Philox generator of ts_layout.c). Split from torchscript.c, which records in
 * the context which helpers an entry used. */
#include "ts_int.h"

/* (the H_* names are in ts_int.h: the context records which helpers were used) */

const char *const kg_twin_helper_src[H__COUNT] = {
  [H_IDIV] =
    "def _kg_idiv(a: torch.Tensor, b: torch.Tensor, signed: bool) -> torch.Tensor:\n"
    "    # integer a / b truncated toward zero (.NET /); x / 0 = 0 and MIN / -1 = MIN, no trap\n"
    "    z = b == 0\n"
    "    if signed:\n"
    "        n = b == -1\n"
    "    else:\n"
    "        n = torch.zeros_like(z)\n"
    "    q = torch.div(a, torch.where(torch.logical_or(z, n), torch.ones_like(b), b), rounding_mode='trunc')\n"
    "    q = torch.where(n, torch.neg(a), q)\n"
    "    return torch.where(z, torch.zeros_like(q), q)\n",
  [H_FLOORDIV] =
    "def _kg_floordiv(a: torch.Tensor, b: torch.Tensor, signed: bool) -> torch.Tensor:\n"
    "    # integer floor(a / b); x / 0 = 0 and MIN / -1 = MIN, no trap\n"
    "    z = b == 0\n"
    "    if signed:\n"
    "        n = b == -1\n"
    "    else:\n"
    "        n = torch.zeros_like(z)\n"
    "    q = torch.div(a, torch.where(torch.logical_or(z, n), torch.ones_like(b), b), rounding_mode='floor')\n"
    "    q = torch.where(n, torch.neg(a), q)\n"
    "    return torch.where(z, torch.zeros_like(q), q)\n",
  [H_IMOD] =
    "def _kg_imod(a: torch.Tensor, b: torch.Tensor, signed: bool, floored: bool) -> torch.Tensor:\n"
    "    # integer remainder (floored: Python %, else truncated: .NET %); x % 0 = 0, no trap on MIN % -1\n"
    "    bad = b == 0\n"
    "    if signed:\n"
    "        bad = torch.logical_or(bad, b == -1)\n"
    "    s = torch.where(bad, torch.ones_like(b), b)\n"
    "    if floored:\n"
    "        r = torch.remainder(a, s)\n"
    "    else:\n"
    "        r = torch.fmod(a, s)\n"
    "    return r\n",
  [H_SHL] =
    "def _kg_shl(a: torch.Tensor, b: torch.Tensor, bits: int) -> torch.Tensor:\n"
    "    # a << b; a count outside [0, bits) gives 0\n"
    "    ok = torch.logical_and(b >= 0, b < bits)\n"
    "    r = torch.bitwise_left_shift(a, torch.where(ok, b, torch.zeros_like(b)))\n"
    "    return torch.where(ok, r, torch.zeros_like(r))\n",
  [H_SHR] =
    "def _kg_shr(a: torch.Tensor, b: torch.Tensor, bits: int, signed: bool) -> torch.Tensor:\n"
    "    # a >> b (arithmetic when signed); a count outside [0, bits) fills with the sign\n"
    "    ok = torch.logical_and(b >= 0, b < bits)\n"
    "    r = torch.bitwise_right_shift(a, torch.where(ok, b, torch.zeros_like(b)))\n"
    "    if signed:\n"
    "        fill = torch.where(a < 0, torch.full_like(r, -1), torch.zeros_like(r))\n"
    "    else:\n"
    "        fill = torch.zeros_like(r)\n"
    "    return torch.where(ok, r, fill)\n",
  [H_IPOW] =
    "def _kg_ipow(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n"
    "    # integer a ** b (wraps); a negative exponent gives 0 unless |a| = 1\n"
    "    neg = b < 0\n"
    "    p = torch.pow(a, torch.where(neg, torch.zeros_like(b), b))\n"
    "    one = torch.ones_like(p)\n"
    "    q = torch.where(a == 1, one, torch.zeros_like(p))\n"
    "    q = torch.where(a == -1, torch.where(torch.bitwise_and(b, 1) != 0, torch.neg(one), one), q)\n"
    "    return torch.where(neg, q, p)\n",
  [H_CBRT] =
    "def _kg_cbrt(a: torch.Tensor) -> torch.Tensor:\n"
    "    # cube root with the sign of a (PyTorch has no cbrt; not correctly rounded)\n"
    "    return torch.sign(a) * torch.pow(torch.abs(a), 1.0 / 3.0)\n",
  [H_SAT_U8] =
    "def _kg_sat_uint8(v: torch.Tensor) -> torch.Tensor:\n"
    "    # float -> uint8 as kernels convert: truncate, saturate, NaN -> 0\n"
    "    return torch.clamp(torch.nan_to_num(v.to(torch.float64), nan=0.0), 0.0, 255.0).to(torch.uint8)\n",
  [H_SAT_I8] =
    "def _kg_sat_int8(v: torch.Tensor) -> torch.Tensor:\n"
    "    # float -> int8 as kernels convert: truncate, saturate, NaN -> 0\n"
    "    return torch.clamp(torch.nan_to_num(v.to(torch.float64), nan=0.0), -128.0, 127.0).to(torch.int8)\n",
  [H_SAT_I16] =
    "def _kg_sat_int16(v: torch.Tensor) -> torch.Tensor:\n"
    "    # float -> int16 as kernels convert: truncate, saturate, NaN -> 0\n"
    "    return torch.clamp(torch.nan_to_num(v.to(torch.float64), nan=0.0), -32768.0, 32767.0).to(torch.int16)\n",
  [H_SAT_I32] =
    "def _kg_sat_int32(v: torch.Tensor) -> torch.Tensor:\n"
    "    # float -> int32 as kernels convert: truncate, saturate, NaN -> 0\n"
    "    return torch.clamp(torch.nan_to_num(v.to(torch.float64), nan=0.0), -2147483648.0, 2147483647.0).to(torch.int32)\n",
  [H_SAT_I64] =
    "def _kg_sat_int64(v: torch.Tensor) -> torch.Tensor:\n"
    "    # float -> int64 as kernels convert: truncate, saturate, NaN -> 0 (2^63 is not a double below MAX)\n"
    "    d = torch.nan_to_num(v.to(torch.float64), nan=0.0)\n"
    "    r = torch.clamp(d, -9.2233720368547758e18, 9.2233720368547748e18).to(torch.int64)\n"
    "    return torch.where(d >= 9.2233720368547758e18, torch.full_like(r, 9223372036854775807), r)\n",
  [H_RAND] = kg_twin_rand_src,
};

