#!/usr/bin/env python3
"""tools/fuzz/make_package_corpus.py — the seed corpus of fuzz_package.c (tools/fuzz/corpus_package/).

Packages a few examples with `kgen package --arch none` (a pointwise entry, a host-plan RNN, an
in-place batch norm with its split-rows plan, dropout) and makes each small enough to fuzz: the
emulator code and the CUDA C (text the reader only slices) are emptied and every variant's slices
set to nothing, the rest — manifest, plan sections with graphs, fusion, plans, launch metadata,
twins — kept, hashes and offsets recomputed, so each seed is a valid package of the format.

    python3 tools/fuzz/make_package_corpus.py build/kgen
"""
import hashlib, json, os, struct, subprocess, sys, tempfile

KGEN = sys.argv[1] if len(sys.argv) > 1 else "build/kgen"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tools", "fuzz", "corpus_package")
EXAMPLES = ["act_relu", "cf_rnn_elman", "norm_batch_train", "rand_dropout"]


def shrink(blob):
    mlen = struct.unpack("<Q", blob[24:32])[0]
    man = json.loads(blob[64:64 + mlen])
    data = (64 + mlen + 15) & ~15
    secs = [blob[data + s["offset"]:data + s["offset"] + s["length"]] for s in man["sections"]]
    for i, s in enumerate(man["sections"]):
        if s["name"].endswith(".code") or s["name"].endswith(".cuda"):
            secs[i] = b""
        elif s["name"].endswith(".plan"):
            plan = json.loads(secs[i])

            def walk(v):
                if isinstance(v, dict):
                    if "code" in v and "tramp" in v:
                        v["code"], v["tramp"] = [0, 0, 0, 0], [0, 0]
                    for x in v.values():
                        walk(x)
                elif isinstance(v, list):
                    for x in v:
                        walk(x)
            walk(plan)
            secs[i] = json.dumps(plan, separators=(",", ":")).encode()
    body, off = b"", 0
    for s, b in zip(man["sections"], secs):
        body += b"\0" * (-len(body) % 16)
        s["offset"], s["length"], s["sha256"] = len(body), len(b), hashlib.sha256(b).hexdigest()
        body += b
    m = json.dumps(man, separators=(",", ":")).encode()
    head = blob[:8] + struct.pack("<IIQQ", struct.unpack("<I", blob[8:12])[0], 64, 64, len(m)) + hashlib.sha256(m).digest()
    return head + m + b"\0" * (-(64 + len(m)) % 16) + body


os.makedirs(OUT, exist_ok=True)
with tempfile.TemporaryDirectory() as tmp:
    for e in EXAMPLES:
        p = os.path.join(tmp, e + ".kgpkg")
        subprocess.run([KGEN, "package", os.path.join(ROOT, "examples", e + ".json"), "--arch", "none", "-o", p],
                       check=True, stdout=subprocess.DEVNULL)
        small = shrink(open(p, "rb").read())
        open(os.path.join(OUT, e + ".kgpkg"), "wb").write(small)
        print(f"{e}.kgpkg: {len(small)} bytes")
