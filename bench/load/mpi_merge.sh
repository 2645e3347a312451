#!/usr/bin/env bash
# The cost of spreading one load over MPI ranks, and of perfhound merge (issue 11; a benchmark, not CI), on
# one machine against perfhound serve (fixed 1 ms steps, 8 output tokens):
#   1. the same open-loop schedule (RATE req/s, REQUESTS measured) from one process and from mpirun -np 2
#      and -np 4: wall time of the command, TTFT p50 / p99, achieved rate, dispatch lag p99, busiest client's
#      CPU, the ranks' clock offsets; the extra wall time is MPI start, the clock ping-pong, the 200 ms
#      common-start lead and rank 0's gather and merge;
#   2. perfhound merge over the 4 ranks' own files: wall time and records per second.
#   bench/load/mpi_merge.sh [RATE] [REQUESTS] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-400}
requests=${2:-8000}
out=${3:-/tmp/perfhound_mpi_merge}
perfhound=$(realpath "${PERFHOUND:-build/perfhound}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
rm -rf "$out" && mkdir -p "$out"
"$perfhound" serve --port 0 --port-file "$out/port" --fixed-step-time 1ms 2>"$out/serve.err" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$out/port" ] && break; sleep 0.1; done
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $($perfhound --version); $(mpirun --version | head -1)"
echo "# open loop $rate req/s Poisson, $requests measured + 200 warm-up, input 64, output 8 tokens, perfhound serve --fixed-step-time 1ms"
args=(load --url "http://127.0.0.1:$(cat "$out/port")" --rate "$rate" --requests "$requests" --warmup 200
      --input-len 64 --output-len 8 --seed 3 --quiet --json)
for np in 1 2 4; do
  launch=(); [ "$np" -gt 1 ] && launch=(mpirun --oversubscribe -np "$np")
  start=$(date +%s.%N)
  "${launch[@]}" "$perfhound" "${args[@]}" --records "$out/np$np.jsonl" > "$out/np$np.json" 2>"$out/np$np.err" || true
  end=$(date +%s.%N)
  python3 - "$out/np$np.json" "$np" "$start" "$end" "$rate" "$requests" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); np_, start, end = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
r, p = d["result"], d["conditions"]["parameters"]
s = r["summary"]; ttft = s["latency"]["from_intended"]["ttft"]
ranks = r.get("ranks", [])
cpu = max([k["client"]["cpu_ratio"] for k in ranks] or [r["client"]["cpu_ratio"]])
offsets = [round(c["clock_offset_s"] * 1e6, 1) for c in p.get("mpi_clocks", [])]
schedule_s = (int(sys.argv[6]) + 200) / float(sys.argv[5])
print(json.dumps({"ranks": int(np_), "status": r["status"], "wall_s": round(end - start, 3),
                  "schedule_s": round(schedule_s, 3), "completed": s["requests"]["completed"],
                  "rate_per_s": round(s["throughput"]["requests_per_s"], 2),
                  "ttft_p50_ms": round(ttft["p50_s"] * 1e3, 3), "ttft_p99_ms": round(ttft["p99_s"] * 1e3, 3),
                  "dispatch_lag_p99_us": round(r["client"]["dispatch_lag"].get("p99_s", 0) * 1e6, 1),
                  "busiest_cpu": round(cpu, 3), "clock_offsets_us": offsets}))
PY
done
files=("$out"/np4.rank*.jsonl)
start=$(date +%s.%N)
"$perfhound" merge "${files[@]}" --records "$out/merged.jsonl" --json > "$out/merge.json" 2>"$out/merge.err"
end=$(date +%s.%N)
python3 - "$out/merge.json" "$start" "$end" "$out/np4.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); n = m["result"]["summary"]["requests"]["total"]
mpi = json.load(open(sys.argv[4]))["result"]["summary"]
wall = float(sys.argv[3]) - float(sys.argv[2])
print(json.dumps({"merge_files": len(m["result"]["files"]), "records": n, "wall_s": round(wall, 3),
                  "records_per_s": round(n / wall), "same_latency_as_mpirun": m["result"]["summary"]["latency"] == mpi["latency"]}))
PY
