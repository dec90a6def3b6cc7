#!/usr/bin/env python3
"""tools/philox_ref.py — the reference of kgen's random generator, in plain Python integers.

kgen's kernels (codegen-cuda/prelude.h, KG_CUDA_PRELUDE_RNG) and its TorchScript twin
(codegen-cuda/ts_layout.c, _kg_philox) draw from Philox 4x32-10 (Salmon, Moraes, Dror, Shaw:
"Parallel random numbers: as easy as 1, 2, 3", SC'11; the constants of Random123, the generator
PyTorch's CUDA backend uses). This file is written from the paper's definition alone, checked
against Random123's known-answer vectors (--selftest), and tests/test_random.c compares the
kernels' bits with it.

Element e of random op s of a call with generator state (seed, offset) is
    philox(counter = (e mod 2^32, e >> 32, (offset + s) mod 2^32, (offset + s) >> 32),
           key = (seed mod 2^32, seed >> 32))  ->  words r0, r1, r2, r3
and the draws made from the words (docs/design.md "The random generator"):
    u24  = r0 >> 8                 uniform float32 / float16 / bfloat16: u24 * 2^-24; dropout keeps
                                   where u24 < ceil((1 - p) * 2^24)
    u53  = (r0 << 21) | (r1 >> 11) uniform float64: u53 * 2^-53
    normal float32: u1 = ((r0 >> 9) * 2 + 1) * 2^-24, u2 = (r1 >> 8) * 2^-24,
                    sqrt(-2 ln u1) * cos(2 pi u2) (float32 arithmetic)

Usage:
    python3 tools/philox_ref.py --selftest
    python3 tools/philox_ref.py SEED OFFSET STREAM N MODE     one value per line for e = 0 .. N-1
        MODE: words (r0 r1 r2 r3 in hex), u24, u53
"""
import sys

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK, (p0 >> 32) ^ c3 ^ k1, p0 & MASK
        k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    return c0, c1, c2, c3


def words(seed, offset, stream, e):
    ctr = (offset + stream) & 0xFFFFFFFFFFFFFFFF
    seed &= 0xFFFFFFFFFFFFFFFF
    return philox4x32_10((e & MASK, e >> 32, ctr & MASK, ctr >> 32), (seed & MASK, seed >> 32))


def u24(seed, offset, stream, e):
    return words(seed, offset, stream, e)[0] >> 8


def u53(seed, offset, stream, e):
    r = words(seed, offset, stream, e)
    return (r[0] << 21) | (r[1] >> 11)


# Random123 1.09, examples/kat_vectors: "philox4x32 10 ctr key -> out"
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((MASK, MASK, MASK, MASK), (MASK, MASK), (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


def selftest():
    for ctr, key, want in KAT:
        got = philox4x32_10(ctr, key)
        if got != want:
            print("philox4x32-10 KAT FAILED: ctr %s key %s: got %s want %s"
                  % ([hex(x) for x in ctr], [hex(x) for x in key], [hex(x) for x in got], [hex(x) for x in want]))
            return 1
    print("philox4x32-10: %d known-answer vectors ok" % len(KAT))
    return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    seed, offset, stream, n = (int(x, 0) for x in argv[1:5])
    mode = argv[5]
    out = []
    for e in range(n):
        if mode == "words":
            out.append(" ".join("%08x" % w for w in words(seed, offset, stream, e)))
        elif mode == "u24":
            out.append(str(u24(seed, offset, stream, e)))
        elif mode == "u53":
            out.append(str(u53(seed, offset, stream, e)))
        else:
            print("unknown mode %r" % mode, file=sys.stderr)
            return 2
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
