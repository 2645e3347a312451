#!/usr/bin/env bash
# perfhound record on a GPU machine: overhead on a launch-heavy PyTorch program (wall time with and without the
# recorder (all runtime calls, then --api classified), alternating, ROUNDS rounds, default 5) and fidelity (perfhound trace's verdict and GPU busy share on the recorded
# trace vs on torch.profiler's trace of the same program). One JSON line per run, then the two analyses.
#   bench/record/record_device.sh PERFHOUND OUTDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
ph=${1:-build/perfhound}
out=${2:-/tmp/record_bench}
mkdir -p "$out"
py=${PYTHON:-python3}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $($ph --version)"
for i in $(seq 1 "${ROUNDS:-5}"); do
  echo "{\"run\": \"plain\", \"round\": $i, \"result\": $($py bench/record/launch_heavy.py)}"
  echo "{\"run\": \"recorded\", \"round\": $i, \"result\": $($ph record -o "$out/rec_$i.json" -- $py bench/record/launch_heavy.py 2>"$out/rec_$i.err" | head -1)}"
  tail -2 "$out/rec_$i.err"
  echo "{\"run\": \"recorded --api classified\", \"round\": $i, \"result\": $($ph record --api classified -o "$out/rec_c$i.json" -- $py bench/record/launch_heavy.py 2>"$out/rec_c$i.err" | head -1)}"
  tail -2 "$out/rec_c$i.err"
done
# Fidelity on both ends: the launch-bound loop above and a GPU-bound one (--mode busy).
for mode in launch busy; do
  $ph record -o "$out/recorded_$mode.json" -- $py bench/record/launch_heavy.py --mode $mode > "$out/record_stdout.txt" 2>&1
  cat "$out/record_stdout.txt"
  $py bench/record/launch_heavy.py --mode $mode --profile "$out/kineto_$mode.json" 2>/dev/null
  for t in recorded_$mode kineto_$mode; do
    # The whole trace, then the "loop" range alone (the steady state, without start-up).
    for window in whole loop; do
      range=(); [ "$window" = loop ] && range=(--range loop)
      $ph trace "$out/$t.json" "${range[@]}" --json > "$out/$t.$window.trace.json" 2>"$out/$t.trace.err" || cat "$out/$t.trace.err"
      $py - "$out/$t.$window.trace.json" "$t" "$window" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = d["result"]; dev = r["utilization"]["devices"][0]
print(json.dumps({"trace": sys.argv[2], "window": sys.argv[3], "bottleneck": r["verdict"]["bottleneck"],
                  "active_busy_ratio": dev["active_busy_ratio"], "window_busy_ratio": dev["window_busy_ratio"],
                  "kernels": dev["activity_count"], "busy_s": dev["busy_s"], "active_span_s": dev["active_span_s"],
                  "summary": r["verdict"]["summary"]}))
PY
    done
  done
done
