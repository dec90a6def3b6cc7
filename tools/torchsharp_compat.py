#!/usr/bin/env python3
"""tools/torchsharp_compat.py -- lets TorchSharp 0.107's native glue load on Debian 12.

TorchSharp-cpu 0.107.0's libLibTorchSharp.so was built with GCC 13: it asks libstdc++ for the
version node GLIBCXX_3.4.32, which Debian 12's libstdc++ (GCC 12, up to GLIBCXX_3.4.30) lacks,
so the dynamic loader refuses the library ("version `GLIBCXX_3.4.32' not found") and every
TorchSharp op throws. The only symbol bound to that node is std::ios_base_library_init(),
which GCC 13's <iostream> references with `.globl` alone (no relocation uses it: it exists to
force the version dependency); with GCC 12's libstdc++ the iostreams are initialized by the
older static ios_base::Init objects instead. So marking that version requirement WEAK
(VER_FLG_WEAK in its Vernaux entry: glibc then only warns under LD_DEBUG) is enough.

  python3 tools/torchsharp_compat.py [NUGET_PACKAGES_DIR]

patches every torchsharp/*/runtimes/linux-x64/native/libLibTorchSharp.so under the NuGet
package folder (default ~/.nuget/packages) in place, only for the GLIBCXX_* versions the
system libstdc++ lacks; it relies on no symbol of those versions being relocated, and checks
that (refusing to patch otherwise). Idempotent; a no-op on systems with a newer libstdc++.
Standard library only.
"""
import glob
import os
import struct
import subprocess
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE
SHT_GNU_VERSYM = 0x6FFFFFFF
SHT_DYNSYM = 11
VER_FLG_WEAK = 0x2


def system_glibcxx_versions():
    for path in ("/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                 "/usr/lib64/libstdc++.so.6"):
        if os.path.exists(path):
            data = open(path, "rb").read()
            out = set()
            for chunk in data.split(b"\0"):
                if chunk.startswith(b"GLIBCXX_") and chunk[8:9].isdigit():
                    out.add(chunk.decode())
            return out
    return None


def sections(b):
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3A)
    return [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]


def cstr(b, off):
    return b[off:b.index(0, off)].decode()


def relocated_symbol_versions(path):
    """Version indices of symbols that some relocation refers to (readelf -r)."""
    out = subprocess.run(["readelf", "-W", "-r", path], capture_output=True, text=True).stdout
    return out


def patch(path, have):
    b = bytearray(open(path, "rb").read())
    if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
        return []
    secs = sections(b)
    missing = []
    for s in secs:
        if s[1] != SHT_GNU_VERNEED:
            continue
        strtab = secs[s[6]][4]
        off = s[4]
        for _ in range(s[7]):
            _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", b, off)
            a = off + aux
            for _ in range(cnt):
                _, flags, other, name, anext = struct.unpack_from("<IHHII", b, a)
                nm = cstr(b, strtab + name)
                if nm.startswith("GLIBCXX_") and nm not in have and not flags & VER_FLG_WEAK:
                    missing.append((a, flags, other, nm))
                a += anext
            if not nxt:
                break
            off += nxt
    if not missing:
        return []
    # Refuse if a relocation uses a symbol of a missing version: weakening would then only
    # move the failure to the first call.
    relocs = relocated_symbol_versions(path)
    for _, _, _, nm in missing:
        if "@" + nm in relocs:
            raise SystemExit("torchsharp_compat: %s relocates a symbol of %s; cannot patch" % (path, nm))
    for a, flags, _, _ in missing:
        struct.pack_into("<H", b, a + 4, flags | VER_FLG_WEAK)
    tmp = path + ".kgen-tmp"
    open(tmp, "wb").write(b)
    os.chmod(tmp, os.stat(path).st_mode)
    os.replace(tmp, path)
    return [nm for _, _, _, nm in missing]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "NUGET_PACKAGES", os.path.expanduser("~/.nuget/packages"))
    have = system_glibcxx_versions()
    if have is None:
        print("torchsharp_compat: no system libstdc++ found; nothing to do")
        return
    libs = glob.glob(os.path.join(root, "torchsharp", "*", "runtimes", "linux-x64", "native",
                                  "libLibTorchSharp.so"))
    for lib in libs:
        changed = patch(lib, have)
        if changed:
            print("torchsharp_compat: %s: made %s weak (system libstdc++ lacks them)"
                  % (lib, ", ".join(changed)))


if __name__ == "__main__":
    main()
