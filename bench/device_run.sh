#!/usr/bin/env bash
# Everything issue 9 asks to see on a GPU, in one device call, over the .devbin/ bundle (bench/device_bundle.sh):
# the GPU tests, the perfhound::bench examples (and compare on two runs of one), perfhound probe beside
# PyTorch, perfhound record's overhead and fidelity. Logs and JSON land in $OUT (at most 8 files).
# windows: perfhound record's cost on the decoder measured inside one process (bench/record/record_windows.sh).
# checks: perfhound record on PyTorch programs: NVTX before CUDA, SIGHUP, a program started by a shell.
#   OUT=... bench/device_run.sh [tests] [examples] [probe] [record] [windows] [checks]  (none named: the first five)
set -uo pipefail
steps=" ${*:-tests examples probe record windows} "
want() { [[ $steps == *" $1 "* ]]; }
cd "$(dirname "$0")/.."
D=$PWD/.devbin
OUT=${OUT:-/tmp/device_out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo; echo "== $* ($(date -u +%T))"; }

step environment
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv
ldd "$D/perfhound" | grep -E "not found|cudart|cublas" || true

if want tests; then
step GPU tests
(cd tests && timeout 120 "$D/probe_gpu_test" --gtest_brief=1; echo "probe_gpu_test exit $?")
(cd tests && timeout 90 "$D/gpu_bench_gpu_test"; echo "gpu_bench_gpu_test exit $?")
(cd tests && timeout 90 "$D/record_gpu_test"; echo "record_gpu_test exit $?")
fi

if want examples; then
step perfhound::bench examples
timeout 90 "$D/bench_example_copy_kernel" --timeout ${BENCH_TIMEOUT:-5} --json "$OUT/copy.json"; echo "copy exit $?"
timeout 60 "$D/bench_example_gemm_naive_vs_tiled" --timeout ${BENCH_TIMEOUT:-5} --json "$OUT/gemm.json"; echo "gemm exit $?"
timeout 40 "$D/bench_example_copy_kernel" --timeout ${BENCH_TIMEOUT:-5} --filter "1024 MiB" --quiet --json "$OUT/copy2.json" >/dev/null; echo "copy (2nd) exit $?"
"$D/perfhound" compare "$OUT/copy.json" "$OUT/copy2.json"; echo "compare exit $?"
fi

if want probe; then
step perfhound probe
OUT=$OUT timeout 150 bench/cuda/probe_device.sh "$D/perfhound"; echo "probe_device exit $?"
rm -f "$OUT/probe.stderr"  # its lines are in the log
fi

if want record; then
step perfhound record
ROUNDS=${ROUNDS:-5} timeout ${RECORD_TIMEOUT:-540} bench/record/record_device.sh "$D/perfhound" /tmp/rec; echo "record_device exit $?"
fi

if want windows; then
step perfhound record inside one process
ROUNDS=${WINDOW_ROUNDS:-3} timeout ${WINDOWS_TIMEOUT:-400} bench/record/record_windows.sh "$D/perfhound" /tmp/win
echo "record_windows exit $?"; cp /tmp/win/windows.jsonl "$OUT/" 2>/dev/null
fi

if want checks; then
step perfhound record on PyTorch: NVTX before CUDA, SIGHUP, a program started by a shell
timeout ${CHECKS_TIMEOUT:-120} bench/record/record_checks.sh "$D/perfhound" /tmp/checks; echo "record_checks exit $?"
fi
