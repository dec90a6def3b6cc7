#!/usr/bin/env bash
# tools/demo.sh — the main job on a fresh machine: set up, build, and run a
# shipped example (bias + GELU, F# source in examples/) through `kgen check`:
# our fused kernel on the device (the CPU emulator when there is no GPU) against
# PyTorch running the emitted TorchScript. Extra arguments go to kgen check.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target kgen_cli
example=${KGEN_EXAMPLE:-examples/bcast_bias_gelu.json}
./build/kgen explain "$example" | sed -n '/== fusion groups/,$p'
./build/kgen check "$example" "$@"
