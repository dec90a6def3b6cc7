#!/bin/bash
# perf/gpu/run.sh — the real-GPU run: every example and model forward through NVRTC + the CUDA
# Driver API against PyTorch, the reduction size matrix on the GPU, ptxas stats from the
# device's own NVRTC, and perf/gpu/bench.py (kgen vs eager PyTorch, CUDA events; the products
# and convolutions on the tensor-core tiers beside cuBLAS / cuDNN and torch.compile).
#
#   bash perf/gpu/run.sh BINDIR OUTDIR
#
# BINDIR holds kgen, libkgen.so and libcjson.so.1 built on an x86-64 machine with
# tools/setup.sh (the GPU machines of this workplace have no package registry, so
# the binaries travel; see docs/gpu.md). OUTDIR receives the logs. Needs a CUDA
# driver, an NVRTC (libnvrtc.so*) and a python3 with a CUDA build of torch.
set -u
B=$(cd "${1:?BINDIR}" && pwd); O=$(mkdir -p "${2:?OUTDIR}" && cd "$2" && pwd)
export LD_LIBRARY_PATH=$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KGEN_PYTHON=${KGEN_PYTHON:-python3} KGEN_CACHE_DIR=${KGEN_CACHE_DIR:-/tmp/kgen-gpu-cache}
if [ -z "${KGEN_NVRTC_LIB:-}" ]; then
  for f in /usr/local/cuda/lib64/libnvrtc.so /usr/local/cuda/lib64/libnvrtc.so.* \
           $(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia/cu*/lib/libnvrtc.so*; do
    [ -f "$f" ] && export KGEN_NVRTC_LIB=$f && break
  done
fi
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  echo "nvrtc: ${KGEN_NVRTC_LIB:-default search}"; "$B/kgen" version
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
} 2>&1 | tee "$O/env.txt"

one() {  # FILE ENTRY [--size ...]
  local f=$1 e=$2; shift 2
  local log; log=$("$B/kgen" check "$f" --entry "$e" --device cuda "$@" 2>&1); local rc=$?
  printf '%s\t%s\t%s\t%s\n' "$rc" "$f" "$e $*" "$(printf '%s' "$log" | tr '\n' '|' | cut -c1-600)"
}
export -f one; export B
if [ -z "${KGEN_GPU_BENCH_ONLY:-}" ]; then
# 1. every example entry, on the GPU, against PyTorch (12 at a time)
python3 - > "$O/jobs.txt" <<'PY'
import glob, json
for f in sorted(glob.glob("examples/*.json")) + sorted(glob.glob("examples/models/*.json")):
    for e in json.load(open(f))["entries"]:
        print(f, e["name"])
PY
t0=$(date +%s)
xargs -P 12 -L 1 bash -c 'one "$@"' _ < "$O/jobs.txt" > "$O/examples.tsv"
echo "examples: $(wc -l < "$O/examples.tsv") entries, rc: $(cut -f1 "$O/examples.tsv" | sort | uniq -c | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"

# 2. the reduction size matrix on the GPU (the sizes of tests/test_examples.c, empty ones aside)
for f in examples/red_matrix_*.json; do
  python3 -c 'import json,sys; [print(e["name"]) for e in json.load(open(sys.argv[1]))["entries"]]' "$f" | while read -r e; do
    for rc in "1 1" "1 7" "7 67" "67 457" "457 1024" "3 4097" "4097 3" "1 65537" "9000 3" "70 9" "2 1048576" \
              "457 67" "1024 3" "3 1024" "2000 67" "5 1025" "2 8193"; do
      set -- $rc
      if grep -q '"A"' "$f"; then echo "$f $e --size A=3 --size R=$1 --size C=$2"; else echo "$f $e --size R=$1 --size C=$2"; fi
    done
  done
done > "$O/matrix_jobs.txt"
t0=$(date +%s)
xargs -P 12 -L 1 bash -c 'one "$@"' _ < "$O/matrix_jobs.txt" > "$O/matrix.tsv"
echo "size matrix: $(wc -l < "$O/matrix.tsv") runs, rc: $(cut -f1 "$O/matrix.tsv" | sort | uniq -c | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"

fi

# 3. timings; KGEN_GPU_BLOCKS="128 512" also times the block-per-row kernels at those block
#    sizes (the KGEN_REDUCE_BLOCK experiment knob of runtime/exec.c)
PYTHONUNBUFFERED=1 python3 perf/gpu/bench.py "$B/libkgen.so" --programs perf/programs 2>&1 | tee "$O/bench.txt"
# 4. products and convolutions on the tensor-core tiers beside cuBLAS / cuDNN and torch.compile
#    (KGEN_GPU_NO_COMPILE=1: without torch.compile, whose compilations take minutes)
PYTHONUNBUFFERED=1 python3 perf/gpu/bench.py "$B/libkgen.so" --tensor-cores --programs perf/programs \
  ${KGEN_GPU_NO_COMPILE:+--no-compile} 2>&1 | tee "$O/tensor_cores.txt"
for nb in ${KGEN_GPU_BLOCKS:-}; do
  echo "== block-per-row kernels with $nb threads"
  KGEN_REDUCE_BLOCK=$nb PYTHONUNBUFFERED=1 python3 perf/gpu/bench.py "$B/libkgen.so" --programs perf/programs 2>&1 | grep '^| [a-z]' | tee "$O/bench_block$nb.txt"
done
# 5. offline kernel packages on the device (issue 22): model forwards packaged for this GPU's
#    arch, then each checked from the package against PyTorch with NVRTC made unloadable (the
#    cubin through cuModuleLoadData), beside the same check from its document (NVRTC, a cold
#    kernel cache): wall seconds of each. KGEN_GPU_DEVICE=emu tries the step's logic without a
#    GPU (the packaged CUDA C through the emulator; KGEN_GPU_ARCH=90 then names the cubins' arch).
dev=${KGEN_GPU_DEVICE:-cuda}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
arch=${KGEN_GPU_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')}
pkg_entries=${KGEN_GPU_PKG_ENTRIES:-"examples/models/llama.json:llama_decoder_layer examples/models/modestgpt.json:gpt_forward examples/models/resnet.json:resnet18_forward"}
{
  docs=""; ents=""
  for fe in $pkg_entries; do docs="$docs ${fe%%:*}"; ents="$ents --entry ${fe##*:}"; done
  t0=$EPOCHREALTIME
  "$B/kgen" package $(printf '%s\n' $docs | sort -u) $ents --arch "sm_${arch:-90}" -o "$O/models.kgpkg"; rc=$?
  echo "package rc $rc in $(secs "$t0" "$EPOCHREALTIME") s"
  for fe in $pkg_entries; do
    e=${fe##*:}
    t0=$EPOCHREALTIME; KGEN_CACHE_DIR=$(mktemp -d) "$B/kgen" check "${fe%%:*}" --entry "$e" --device "$dev" > "$O/pkg_json_$e.txt" 2>&1; r1=$?
    t1=$EPOCHREALTIME; KGEN_NVRTC_LIB=/nonexistent/libnvrtc.so KGEN_CACHE_DIR=$(mktemp -d) "$B/kgen" check "$O/models.kgpkg" --entry "$e" --device "$dev" > "$O/pkg_pkg_$e.txt" 2>&1; r2=$?
    t2=$EPOCHREALTIME
    printf '%s\tdocument rc %s %s s\tpackage rc %s %s s\n' "$e" "$r1" "$(secs "$t0" "$t1")" "$r2" "$(secs "$t1" "$t2")"
  done
} 2>&1 | tee "$O/packages.txt"
# 6. the model forwards end to end (issue 28): kgen replayed as a CUDA graph, replayed launch by
#    launch and not replayed, beside eager (the twin, op by op), torch.compile and torch.compile with
#    CUDA graphs (the issue's forwards; KGEN_GPU_NO_COMPILE=1: none), device µs and host µs a call.
#    KGEN_GPU_MODELS=e1,e2 picks entries. `--cpu` tries the step's logic without a GPU.
PYTHONUNBUFFERED=1 python3 perf/gpu/bench.py "$B/libkgen.so" --models --kgen "$B/kgen" --keep "$O/models_keep" \
  ${KGEN_GPU_MODELS:+--entries "$KGEN_GPU_MODELS"} ${KGEN_GPU_NO_COMPILE:+--no-compile} 2>&1 | tee "$O/models.txt"
if [ -z "${KGEN_GPU_BENCH_ONLY:-}" ]; then
  echo "failures:"; awk -F'\t' '$1 != 0' "$O/examples.tsv" "$O/matrix.tsv" | cut -c1-400 | head -40
fi
