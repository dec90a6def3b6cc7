#!/usr/bin/env bash
# tools/setup.sh — installs what kgen needs on a fresh Debian/Ubuntu machine:
# the build (cmake, a C compiler), cJSON, Criterion, and the PyTorch oracle
# (python3-torch, python3-numpy for /usr/bin/python3). The CUDA toolkit is
# optional: without NVRTC, `kgen compile --emit ptx/cubin` reports it is missing
# and the NVRTC tests skip. Idempotent and quiet when everything is present.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake gcc make libcjson-dev libcriterion-dev python3-torch python3-numpy pkg-config; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if ! /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
  echo "setup: /usr/bin/python3 cannot import torch and numpy" >&2
  exit 1
fi
if [ -e /usr/local/cuda/lib64/libnvrtc.so ] || ldconfig -p 2>/dev/null | grep -q libnvrtc; then
  echo "setup: NVRTC found"
else
  echo "setup: NVRTC not found (PTX/cubin output and NVRTC tests will be skipped)"
fi

# The .NET side (dotnet/: the F# library Kgen, its serializer, the example project and the
# xunit tests) needs the .NET SDK; on a machine without it, tools/test.sh skips the .NET tests
# with a loud line. Restore fetches TorchSharp-cpu 0.107.0 (libtorch 2.10, CPU) from NuGet;
# tools/torchsharp_compat.py then lets its native glue load on Debian 12's libstdc++.
root="$(cd "$(dirname "$0")/.." && pwd)"
if command -v dotnet >/dev/null 2>&1; then
  dotnet restore "$root/dotnet/kgen.slnx" -nologo -v q >/dev/null
  python3 "$root/tools/torchsharp_compat.py"
  echo "setup: .NET SDK $(dotnet --version) found; dotnet/ restored"
else
  echo "setup: .NET SDK not found (the .NET tests will be skipped)"
fi
