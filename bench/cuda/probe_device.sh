#!/usr/bin/env bash
# perfhound probe on a GPU machine, side by side with PyTorch's copy and bf16 matmul on the same GPU.
# Usage: bench/cuda/probe_device.sh [PERFHOUND_BINARY]   (results in $OUT, default ./probe-out)
# Targets (issue 9): perfhound's D2D copy >= 95% of torch's copy_, its bf16 GEMM >= 95% of torch.matmul.
set -uo pipefail
PERFHOUND=${1:-./build/perfhound}
OUT=${OUT:-./probe-out}
mkdir -p "$OUT"

echo "== environment"
nvidia-smi -q | head -40
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv || true
nvcc --version || echo "nvcc not on PATH"
ldd "$PERFHOUND" | grep -E "cudart|cublas|not found" || true

echo "== perfhound probe"
# The catalogue entry the measured ceilings start from (figures probe does not measure: memory size, spec peaks):
# the chip this is, as nvidia-smi names it (the device tool lends H100 SXMs as well as H200s).
# Another GPU gets no base (its spec-sheet figures are not H200's): the chip file then carries the device query's.
base_flag=()
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H100*PCIe*) base=h100-pcie ;;
  *H100*) base=h100-sxm ;;
  *GH200*|*H200*NVL*) base=gpu ;;  # not the SXM part the catalogue's h200-sxm describes
  *H200*) base=h200-sxm ;;
  *) base=gpu ;;
esac
[ "$base" != gpu ] && base_flag=(--base "$base")
"$PERFHOUND" probe "${base_flag[@]}" --catalogue-out "$OUT/$base-measured.json" -o "$OUT/probe.json" \
  2> >(tee "$OUT/probe.stderr" >&2) | tee "$OUT/probe.txt"
probe_rc=${PIPESTATUS[0]}
echo "perfhound probe exit code: $probe_rc"

echo "== PyTorch reference"
python3 - "$OUT" <<'PY' | tee "$OUT/torch.json"
import json, statistics, sys
import torch

WARMUP, REPEATS = 5, 20

def timed(fn):
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPEATS):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return times

def summary(work, times):
    rates = sorted(work / t for t in times)
    q = statistics.quantiles(rates, n=10, method="inclusive")
    return {"median": statistics.median(rates), "p10": q[0], "p90": q[-1], "repeats": len(rates)}

dev = torch.device("cuda")
nbytes = 4 << 30
src = torch.empty(nbytes, dtype=torch.uint8, device=dev).random_(0, 255)
dst = torch.empty_like(src)
copy = summary(2 * nbytes, timed(lambda: dst.copy_(src)))  # bytes read + written
del src, dst
n = 8192
a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
gemm = summary(2 * n ** 3, timed(lambda: torch.matmul(a, b)))
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(),
                  "warmup": WARMUP, "copy_bytes_per_s": copy, "bf16_flops_per_s": gemm}, indent=2))
PY

echo "== side by side"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
probe = json.load(open(f"{out}/probe.json"))
torch = json.load(open(f"{out}/torch.json"))
fig = {f["key"]: f for f in probe["result"]["figures"]}
def ratio(name, ours, theirs):
    r = ours / theirs
    print(f"{name}: perfhound {ours:.4g}, torch {theirs:.4g}, ratio {r:.3f} ({'PASS' if r >= 0.95 else 'FAIL'} >= 0.95)")
best_copy = max(fig[k]["median"] for k in ("copy_kernel", "copy_memcpy") if fig[k].get("median"))
ratio("D2D copy B/s", best_copy, torch["copy_bytes_per_s"]["median"])
ratio("bf16 GEMM FLOP/s", fig["bf16_gemm"]["median"], torch["bf16_flops_per_s"]["median"])
PY
exit "$probe_rc"
