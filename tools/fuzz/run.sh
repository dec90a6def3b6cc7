#!/usr/bin/env bash
# tools/fuzz/run.sh — builds kgen's libFuzzer targets with clang (-fsanitize=fuzzer,address,
# undefined, -g -O1) into build-fuzz/ and runs each for a fixed time from its seed corpus:
#
#   json     tools/fuzz/fuzz_json.c     kg_fe_read + kg_fe_parse_sig
#   compile  tools/fuzz/fuzz_compile.c  kg_module_load → kg_specialize → kg_emit (CUDA, TorchScript)
#   npy      tools/fuzz/fuzz_npy.c      kg_npy_read (+ kg_npy_write round trip)
#   package  tools/fuzz/fuzz_package.c  the offline kernel package reader → specialize → emit → run (null device)
#
# The library is the CMake build's own (targets kgen_core and kgen_check, every source of
# them, compiled with the fuzzer's instrumentation); each target links it. Prints one line
# per target and exits non-zero when any target crashed, leaked, hit UB, a timeout or the
# memory limit (the input is kept under build-fuzz/artifacts/). Exit 77: no clang or no
# libFuzzer runtime on this machine (tools/setup.sh installs them).
#
#   KGEN_FUZZ_SECONDS  seconds per target (default 60)
#   KGEN_FUZZ_TARGETS  which targets, in order (default "json compile npy package")
#   KGEN_FUZZ_SEED     libFuzzer -seed (default 1)
#   KGEN_FUZZ_CC       the compiler (default: clang-14, else clang)
#   KGEN_FUZZ_KEEP=1   keep the grown corpus of the last run (build-fuzz/corpus/<target>)
#                      instead of starting again from the seeds
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/build-fuzz
secs=${KGEN_FUZZ_SECONDS:-60}
targets=${KGEN_FUZZ_TARGETS:-json compile npy package}
seed=${KGEN_FUZZ_SEED:-1}

cc=${KGEN_FUZZ_CC:-}
if [ -z "$cc" ]; then
  for c in clang-14 clang; do
    if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
  done
fi
if [ -z "$cc" ]; then
  echo "fuzz: no clang on this machine (tools/setup.sh installs clang-14)" >&2
  exit 77
fi
mkdir -p "$out"
probe=$out/probe
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >"$probe.log" 2>&1; then
  echo "fuzz: $cc cannot link -fsanitize=fuzzer,address,undefined (libFuzzer runtime missing:" \
       "Debian's libclang-rt-14-dev; tools/setup.sh installs it)" >&2
  sed 's/^/  /' "$probe.log" | tail -3 >&2
  exit 77
fi

# The library, instrumented: the CMake build (no tests, no CLI) with clang.
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
t0=$(date +%s)
CC=$cc cmake -S . -B "$out" -DKGEN_TESTS=OFF -DKGEN_WERROR=OFF -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_C_FLAGS_DEBUG="" >"$out/cmake.log" 2>&1 ||
  { cat "$out/cmake.log" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$out" -j"$jobs" --target kgen_core kgen_check >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log" >&2; exit 1; }
for t in $targets; do
  "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. -I"$root/runtime" \
    -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "tools/fuzz/fuzz_$t.c" "$out/libkgen_check.a" "$out/libkgen_core.a" -lcjson -ldl -lm \
    -o "$out/fuzz_$t"
done
echo "fuzz: built $targets with $cc in $(( $(date +%s) - t0 )) s (build-fuzz/)"

# fuzz_compile's seeds: the shipped examples (examples/*.json), minified, those of at most
# 4096 bytes (its -max_len), plus its regressions (tools/fuzz/corpus_compile/); its dictionary:
# tools/fuzz/json.dict plus the strings those examples use (kinds, methods, types, dtypes).
mk_compile_seeds() {
  rm -rf "$out/seed_compile"
  mkdir -p "$out/seed_compile"
  python3 - "$out/seed_compile" "$out/compile.dict" <<'PY'
import glob, json, os, sys
seeds, dict_path = sys.argv[1], sys.argv[2]
strings = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            strings.add(k); walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
    elif isinstance(v, str) and len(v) <= 96:
        strings.add(v)
n = 0
for f in sorted(glob.glob("examples/*.json")):
    doc = json.load(open(f, encoding="utf-8"))
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    if len(text) > 4096: continue
    walk(doc)
    open(os.path.join(seeds, os.path.basename(f)), "wb").write(text)
    n += 1
with open(dict_path, "w") as d:
    d.write(open("tools/fuzz/json.dict").read())
    for s in sorted(strings):
        q = json.dumps(s, ensure_ascii=True)      # the JSON string token, quotes included
        d.write('"' + "".join(c if c.isalnum() or c in " .,:[]{}_-+`" else "\\x%02x" % ord(c) for c in q) + '"\n')
PY
}

status=0
for t in $targets; do
  work=$out/corpus/$t
  [ "${KGEN_FUZZ_KEEP:-0}" = "1" ] || rm -rf "$work"
  mkdir -p "$work" "$out/artifacts"
  case $t in
    json) args=(tools/fuzz/corpus tests/golden/json -dict=tools/fuzz/json.dict -max_len=4096) ;;
    compile)
      mk_compile_seeds
      args=("$out/seed_compile" tools/fuzz/corpus_compile -dict="$out/compile.dict" -max_len=4096) ;;
    npy) args=(tools/fuzz/corpus_npy -dict=tools/fuzz/npy.dict -max_len=1024) ;;
    package) args=(tools/fuzz/corpus_package -dict=tools/fuzz/package.dict -max_len=131072) ;;
    *) echo "fuzz: unknown target '$t'" >&2; exit 2 ;;
  esac
  log=$out/fuzz_$t.log
  rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$out/fuzz_$t" "$work" "${args[@]}" -seed="$seed" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" >"$log" 2>&1 || rc=$?
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  execs=$(stat number_of_executed_units); eps=$(stat average_exec_per_sec)
  corpus=$(find "$work" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $t ok: ${secs} s, ${execs:-?} execs (${eps:-?}/s), 0 crashes, corpus +$corpus new inputs"
  else
    status=1
    art=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
    echo "fuzz: $t FAILED (exit $rc) after ${execs:-?} execs: $(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|invariant broken|ERROR: libFuzzer' "$log" || echo 'see the log')"
    echo "      input: ${art:-none}; log: $log; replay: $out/fuzz_$t ${art:-INPUT}"
    tail -40 "$log" | sed 's/^/      | /'
  fi
done
exit $status
