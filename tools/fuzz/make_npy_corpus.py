#!/usr/bin/python3
"""tools/fuzz/make_npy_corpus.py — writes the seed corpus of fuzz_npy (tools/fuzz/corpus_npy/):
small valid .npy files written by numpy itself, one per feature kg_npy_read handles
(every dtype, 0-dim, empty, Fortran order, big endian, format v2.0 and v3.0, bfloat16 as '<V2').
Run with /usr/bin/python3 (numpy); the output is deterministic."""
import io
import os
import numpy as np
from numpy.lib import format as npf

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus_npy")
os.makedirs(out, exist_ok=True)


def save(name, a, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, a, allow_pickle=False)
    else:
        npf.write_array(buf, a, version=version, allow_pickle=False)
    with open(os.path.join(out, name + ".npy"), "wb") as f:
        f.write(buf.getvalue())


ar = np.arange(24)
save("f32_2x3", (ar[:6].reshape(2, 3) * 0.5 - 1).astype("<f4"))
save("f64_scalar", np.array(3.25, dtype="<f8"))
save("f16_fortran_2x3x2", np.asfortranarray((ar[:12].reshape(2, 3, 2) - 5).astype("<f2")))
save("i64_5", (ar[:5] - 2).astype("<i8"))
save("i32_big_endian_3x2", (ar[:6].reshape(3, 2) * 1000 - 2500).astype(">i4"))
save("i16_4", (ar[:4] * -300).astype("<i2"))
save("i8_2x2", (ar[:4].reshape(2, 2) - 2).astype("i1"))
save("u8_empty_0x4", np.zeros((0, 4), dtype="u1"))
save("bool_3", np.array([True, False, True]))
save("bf16_4", np.array([0x3F80, 0xC000, 0x0000, 0x7F80], dtype="<u2").view("V2"))
save("f32_v2_rank4", np.ones((1, 2, 1, 2), dtype="<f4"), version=(2, 0))
save("i32_v3_2", np.array([7, -7], dtype="<i4"), version=(3, 0))
