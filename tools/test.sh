#!/usr/bin/env bash
# tools/test.sh — THE test command (README, .ci/run): sets up, builds with
# warnings as errors, and runs the whole Criterion suite (unit, golden,
# structural, NVRTC and every example checked against PyTorch on the CPU
# emulator); then the same suite under AddressSanitizer + UBSan.
# KGEN_NO_ASAN=1 skips the sanitizer pass (local iteration only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DKGEN_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure)

if [ "${KGEN_NO_ASAN:-0}" != "1" ]; then
  cmake -S . -B build-asan -DKGEN_WERROR=ON -DKGEN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build build-asan -j"$jobs"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure)
fi
