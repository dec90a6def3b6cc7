#!/usr/bin/env bash
# tools/test.sh — THE test command (README, .ci/run): sets up, builds with
# warnings as errors, and runs the whole Criterion suite (unit, golden,
# structural, NVRTC and every example checked against PyTorch on the CPU
# emulator); then the .NET suite (dotnet/: serializer, examples compiled by the F# compiler
# and serialized to exactly the checked-in JSON; skipped loudly without the .NET SDK); then
# the C suite again under AddressSanitizer + UBSan (its numeric example checks on every third
# example, NVRTC on every eighth: the plain pass has checked them all); then the libFuzzer targets (tools/fuzz/run.sh:
# the JSON reader, the whole compile path, the .npy reader and the kernel package reader, KGEN_FUZZ_SECONDS each, default 60,
# from their checked-in seed corpora; any crash fails).
# KGEN_NO_ASAN=1 skips the sanitizer pass, KGEN_NO_FUZZ=1 the fuzzers (local iteration only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_jobs=$(( jobs > 8 ? 8 : jobs ))

# One kernel cache for every step: the emulator objects the C suite compiles for the examples are
# the ones the .NET three-way check and the sanitizer pass run (the key holds the compiler, its
# flags and the ABI, so differently built objects never mix), compiled once instead of three times.
export KGEN_CACHE_DIR="$PWD/build/kcache"
cmake -S . -B build -DKGEN_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure)
# The program fuzzer (docs/fuzz.md) over a fixed seed range: 500 random programs here, 300 more
# under ASan+UBSan below (a sample: the sanitizers watch kgen's own code, which the plain run's
# programs exercise the same way), each checked against PyTorch (every other one also under its schedule
# variant), one job per core; any finding fails the run. KGEN_FUZZ_COUNT changes the count.
fuzz_programs() { # BUILDDIR FIRST_SEED COUNT
  if [ "${KGEN_NO_FUZZ:-0}" = "1" ]; then
    echo "=== SKIPPED: kgen fuzz (seeds $2..): KGEN_NO_FUZZ=1 ==="
  else
    "$1/kgen" fuzz --seed "$2" --count "${KGEN_FUZZ_COUNT:-$3}" --jobs "$fuzz_jobs" --variant-every 2 \
      --out "$1/fuzz-findings"
  fi
}
fuzz_programs build 0 500

if command -v dotnet >/dev/null 2>&1; then
  # the console logger at normal verbosity: a failing test prints its message (-v q alone hid it);
  # --blame: a test host that crashes is named with the tests it was running (a crash once said
  # only "Test host process crashed")
  KGEN_LIB="$PWD/build/libkgen.so" dotnet test dotnet/kgen.slnx -nologo -v q --blame --logger "console;verbosity=normal"
else
  echo "=== SKIPPED: the .NET tests (dotnet/): no .NET SDK on this machine ==="
fi

if [ "${KGEN_NO_ASAN:-0}" != "1" ]; then
  cmake -S . -B build-asan -DKGEN_WERROR=ON -DKGEN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build build-asan -j"$jobs"
  # allocator_may_return_null: a size too large to allocate must come back as NULL, which kgen
  # reports as an error (tests/test_cli.c), instead of ASan aborting the process
  (
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
    (cd build-asan && ctest --output-on-failure)
    # kgen itself is what the sanitizers watch: the emulated kernels (plain cc, not sanitized)
    # are compiled at -O0 here, which takes a third less time than -O1 (docs/fuzz.md, In CI)
    KGEN_EMU_CFLAGS=-O0 fuzz_programs build-asan 500 300
  )
fi

if [ "${KGEN_NO_FUZZ:-0}" = "1" ]; then
  echo "=== SKIPPED: the libFuzzer run (tools/fuzz/run.sh): KGEN_NO_FUZZ=1 ==="
else
  fuzz_rc=0
  bash tools/fuzz/run.sh || fuzz_rc=$?
  if [ "$fuzz_rc" -eq 77 ]; then
    echo "=== SKIPPED: the libFuzzer run (tools/fuzz/run.sh): no clang or no libFuzzer runtime on this machine ==="
  elif [ "$fuzz_rc" -ne 0 ]; then
    exit "$fuzz_rc"
  fi
fi
