#!/usr/bin/env bash
# perfhound record's cost on a launch-heavy PyTorch program, measured inside one process (bench/RESULTS.md). Between
# processes the GPT-2-small eager decoder's plain time alone spread +-28% on the H200, more than the cost sought;
# so each run here is one process that times its steps in pairs of blocks, one block inside a cudaProfilerStart ..
# cudaProfilerStop window and one outside, in ABBA order (launch_heavy.py --alternate), and the cost is the median
# of the pairs' ratios. The settings, each a process, rotated every round:
#   plain         no tracer: the windows record nothing, so window/outside is the control (should read 1.00)
#   whole         perfhound record, the whole run: both sides recorded, the second control; its blocks against
#                 plain's are the between-process view
#   window        perfhound record --capture-range cudaProfilerApi (the defaults: --api classified, the default
#                 kinds, the driver's launch calls): the reading
#   window-all    the same with --api all: every runtime call (the default before 2026-12-05)
#   window-classified  --api classified named (the default since 2026-12-05; before, the setting to compare)
#   window-none   the same with --api none --kinds kernels: CUPTI's kernel records alone
#   torch         no perfhound; each window a torch.profiler session (CPU + CUDA activities): the reference
# Pinned as record_device.sh pins. One JSON line a run, then a summary line a setting: the pairs of every round
# pooled, their median ratio with the 25th and 75th percentiles, how many pairs the window was slower in, each
# round's median, and the added microseconds a kernel (the median window block less the median outside block, over
# the kernels a window kept, counted in the run's trace).
#   bench/record/record_windows.sh PERFHOUND OUTDIR     (ROUNDS, default 3; SETTINGS; PROGRAM_ARGS for launch_heavy.py,
#                                                        default "--mode decode --iters 1000 --alternate 50")
set -uo pipefail
cd "$(dirname "$0")/../.."
ph=${1:-build/perfhound}
out=${2:-/tmp/record_windows}
mkdir -p "$out"
py=${PYTHON:-python3}
program=(bench/record/launch_heavy.py ${PROGRAM_ARGS:---mode decode --iters 1000 --alternate 50})
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $($ph --version) ${program[*]}"
# Pinned to two cores by default, as every figure since 2026-12-05 was. Unpinned (PIN_CORES=0-15 on 16 cores) the
# window/outside ratio read the same on an H100 (1.065 against 1.069), but pinned, a recorded process's unrecorded
# blocks took 1.48x a plain process's; unpinned 0.97x (bench/RESULTS.md, 2026-12-06T21:04Z).
pin=(); command -v taskset >/dev/null && pin=(taskset -c ${PIN_CORES:-2,3})
declare -A record_flags=([whole]="" [window]="--capture-range cudaProfilerApi"
                         [window-all]="--capture-range cudaProfilerApi --api all"
                         [window-classified]="--capture-range cudaProfilerApi --api classified"
                         [window-none]="--capture-range cudaProfilerApi --api none --kinds kernels")
settings=(${SETTINGS:-plain whole window window-all window-none torch})
n=${#settings[@]}
for i in $(seq 1 "${ROUNDS:-3}"); do
  for j in $(seq 0 $((n - 1))); do
    c=${settings[$(( (i + j) % n ))]}
    case $c in
      plain) result=$("${pin[@]}" $py "${program[@]}" | grep -m1 '^{'); kept=null ;;
      torch) result=$("${pin[@]}" $py "${program[@]}" --window-tracer torch 2>"$out/torch.err" | grep -m1 '^{'); kept=null ;;
      *)
        stdout=$("${pin[@]}" $ph record ${record_flags[$c]} -o "$out/rec.json" -- $py "${program[@]}" 2>"$out/rec.err")
        result=$(grep -m1 '^{' <<<"$stdout")
        kept=$(sed -n "s/.*perfhound record: wrote '[^']*': \([0-9]*\) kernels.*/\1/p" <<<"$stdout")
        grep -q "perfhound record: wrote" <<<"$stdout" || { echo "record_windows: $c round $i:"; tail -3 "$out/rec.err"; }
        rm -f "$out/rec.json" ;;
    esac
    echo "{\"run\": \"$c\", \"round\": $i, \"kernels_kept\": ${kept:-null}, \"result\": ${result:-null}}"
  done
done | tee "$out/windows.jsonl"
$py - "$out/windows.jsonl" <<'PY'
import json, statistics, sys

def quantile(xs, q):  # numpy's linear rule
    xs = sorted(xs)
    at = (len(xs) - 1) * q
    lo = int(at)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (at - lo)

runs = {}
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if d["result"] is not None:
        runs.setdefault(d["run"], []).append(d)
plain_outside = [t for d in runs.get("plain", []) for t in d["result"]["outside_s"]]
for name, ds in runs.items():
    ratios = [a / b for d in ds for a, b in zip(d["result"]["window_s"], d["result"]["outside_s"])]
    inside = [t for d in ds for t in d["result"]["window_s"]]
    outside = [t for d in ds for t in d["result"]["outside_s"]]
    r0 = ds[0]["result"]
    row = {"setting": name, "processes": len(ds), "pairs": len(ratios),
           "median_ratio": round(statistics.median(ratios), 4),
           "p25_p75": [round(quantile(ratios, 0.25), 4), round(quantile(ratios, 0.75), 4)],
           "window_slower_pairs": sum(r > 1 for r in ratios),
           "per_process_median": [round(d["result"]["median_ratio"], 4) for d in ds],
           "median_block_ms": {"window": round(statistics.median(inside) * 1e3, 3),
                               "outside": round(statistics.median(outside) * 1e3, 3)}}
    if plain_outside and name != "plain":
        row["outside_vs_plain_outside"] = round(statistics.median(outside) / statistics.median(plain_outside), 4)
    # Kernels a window block launches: the program's count where it keeps one, else what a window trace kept over
    # the window blocks it ran (every window holds the same steps).
    per_block = r0.get("kernels_per_block")
    kept = [d["kernels_kept"] / len(d["result"]["window_s"]) for d in runs.get("window", []) if d["kernels_kept"]]
    if per_block is None and kept:
        per_block = statistics.median(kept)
    if per_block:
        row["kernels_per_block"] = round(per_block, 1)
        row["added_us_per_kernel"] = round((statistics.median(inside) - statistics.median(outside)) / per_block * 1e6, 3)
        row["outside_us_per_kernel"] = round(statistics.median(outside) / per_block * 1e6, 3)
    print(json.dumps(row))
PY
