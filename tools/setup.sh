#!/usr/bin/env bash
# tools/setup.sh — installs what kgen needs on a fresh Debian/Ubuntu machine:
# the build (cmake, a C compiler), cJSON, Criterion, and the PyTorch oracle
# (python3-torch, python3-numpy for /usr/bin/python3), and clang-14 with its libFuzzer and
# sanitizer runtimes (libclang-rt-14-dev) for tools/fuzz/run.sh, and NVRTC (the CUDA
# toolkit's when present, else Debian 13's NVRTC 12.4 unpacked into .deps/nvrtc, below).
# Idempotent and quiet when everything is present.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake gcc make libcjson-dev libcriterion-dev python3-torch python3-numpy pkg-config; do
  have_pkg "$p" || need+=("$p")
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=0
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  updated=1
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# libFuzzer (tools/fuzz/run.sh, run by tools/test.sh): clang 14 and the runtimes of
# -fsanitize=fuzzer,address,undefined (Debian 12: libclang-rt-14-dev; older releases ship them
# in libclang-common-14-dev, which clang-14 pulls in). Installed where the distribution has
# them; elsewhere run.sh finds no libFuzzer and tools/test.sh skips the fuzzing loudly.
fuzz_need=()
for p in clang-14 libclang-rt-14-dev; do have_pkg "$p" || fuzz_need+=("$p"); done
if [ ${#fuzz_need[@]} -gt 0 ]; then
  [ "$updated" = 1 ] || apt-cache show clang-14 >/dev/null 2>&1 || $SUDO apt-get update -qq || true
  avail=()
  for p in "${fuzz_need[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1; then avail+=("$p"); fi
  done
  if [ ${#avail[@]} -gt 0 ]; then
    echo "setup: installing ${avail[*]} (libFuzzer)"
    $SUDO apt-get install -y -qq --no-install-recommends "${avail[@]}" >/dev/null ||
      echo "setup: could not install ${avail[*]}: the libFuzzer run will be skipped"
  fi
fi
if ! /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
  echo "setup: /usr/bin/python3 cannot import torch and numpy" >&2
  exit 1
fi
# NVRTC (no GPU needed: PTX, cubins and ptxas' register/spill report for the NVRTC tests and the
# zero-spill check). A CUDA toolkit's libnvrtc is used where present; elsewhere Debian 13's
# non-free NVRTC 12.4 (libnvrtc12 + libnvrtc-builtins12.4, which load on Debian 12) is fetched
# with `apt-get download` through a private sources list, lists and cache under .deps/ (the
# machine's own apt configuration is untouched; the packages are checked against Debian's
# archive keyring) and unpacked with `dpkg -x` into .deps/nvrtc. kgen finds it there on its own
# (runtime/nvrtc.c: KGEN_NVRTC_LIB, the system's, then this copy). KGEN_NO_NVRTC_FETCH=1 skips
# the download.
root="$(cd "$(dirname "$0")/.." && pwd)"
# .deps must be a real folder: a copy of the tree can carry it as a link that does not resolve
# (a CI checkout once had it pointing at itself), and then every path under it fails.
if [ -L "$root/.deps" ] && ! [ -d "$root/.deps/" ] 2>/dev/null; then
  echo "setup: $root/.deps is a link that does not resolve; replacing it with a folder"
  rm -f "$root/.deps"
fi
mkdir -p "$root/.deps" 2>/dev/null || true
nvdir="$root/.deps/nvrtc"
nvlib="$nvdir/usr/lib/x86_64-linux-gnu/libnvrtc.so.12"
if [ -e /usr/local/cuda/lib64/libnvrtc.so ] || ldconfig -p 2>/dev/null | grep -q libnvrtc; then
  echo "setup: NVRTC found (system)"
elif [ -e "$nvlib" ]; then
  echo "setup: NVRTC found ($nvlib)"
elif [ "${KGEN_NO_NVRTC_FETCH:-0}" = "1" ] || [ "$(uname -m)" != "x86_64" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: NVRTC not found (PTX/cubin output and NVRTC tests will be skipped)"
elif ! [ -d "$root/.deps" ] || ! [ -w "$root/.deps" ]; then
  echo "setup: $root/.deps is not a writable folder (NVRTC tests will be skipped)"
else
  apt_dir="$root/.deps/apt"
  rm -rf "$apt_dir" "$nvdir.tmp"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$nvdir.tmp"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie non-free" >"$apt_dir/sources.list"
  aptopts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
           -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
           -o "APT::Sandbox::User=$(id -un)")
  if apt-get "${aptopts[@]}" -qq update >/dev/null 2>&1 &&
     (cd "$apt_dir" && apt-get "${aptopts[@]}" -qq download libnvrtc12 libnvrtc-builtins12.4 >/dev/null 2>&1) &&
     for deb in "$apt_dir"/libnvrtc*.deb; do dpkg -x "$deb" "$nvdir.tmp" || exit 1; done &&
     [ -e "$nvdir.tmp/usr/lib/x86_64-linux-gnu/libnvrtc.so.12" ]; then
    rm -rf "$nvdir" && mv "$nvdir.tmp" "$nvdir"
    rm -rf "$apt_dir"
    echo "setup: NVRTC 12.4 unpacked into $nvdir (Debian trixie non-free)"
  else
    rm -rf "$nvdir.tmp" "$apt_dir"
    echo "setup: NVRTC not found and Debian's libnvrtc12 could not be fetched (NVRTC tests will be skipped)"
  fi
fi

# The .NET side (dotnet/: the F# library Kgen, its serializer, the example project and the
# xunit tests) needs the .NET SDK; on a machine without it, tools/test.sh skips the .NET tests
# with a loud line. Restore fetches TorchSharp-cpu 0.107.0 (libtorch 2.10, CPU) from NuGet;
# tools/torchsharp_compat.py then lets its native glue load on Debian 12's libstdc++.
if command -v dotnet >/dev/null 2>&1; then
  dotnet restore "$root/dotnet/kgen.slnx" -nologo -v q >/dev/null
  python3 "$root/tools/torchsharp_compat.py"
  echo "setup: .NET SDK $(dotnet --version) found; dotnet/ restored"
else
  echo "setup: .NET SDK not found (the .NET tests will be skipped)"
fi
