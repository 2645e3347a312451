#!/usr/bin/env bash
# perfhound load against perfhound serve on loopback, side by side with the equivalent Python asyncio/aiohttp
# client (bench/load/aiohttp_client.py, modelled on vllm bench serve's request function), on the same server,
# workloads and pinning: the server on core 0, the client on core 1. Prints one JSON line per run.
#   bench/load/run_load_bench.sh [runs]      (needs a built tree: make build; Debian's python3-aiohttp)
#   PERFHOUND=, PYTHON=, SERVER_CORE= and CLIENT_CORE= override the binary, the interpreter and the pinning.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
perfhound=${PERFHOUND:-build/perfhound}
python=${PYTHON:-/usr/bin/python3}
# the cores the server and the client are pinned to
server_core=${SERVER_CORE:-0}
client_core=${CLIENT_CORE:-1}
port_file=$(mktemp)
paced_port_file=$(mktemp)
trap 'kill $server $paced_server 2>/dev/null || true; rm -f "$port_file" "$paced_port_file"' EXIT
# As fast as it can go (1 us steps): throughput, and the client saturated on purpose.
taskset -c $server_core $perfhound serve --port 0 --port-file "$port_file" --fixed-step-time 1us --duration 1200s 2>/dev/null &
server=$!
# Paced like a real server (a 20 ms decode step, 50 tokens/s per stream, up to 2,000 streams in the batch):
# the client's added timestamp error at 1,000 streams, when the client is not the bottleneck.
taskset -c $server_core $perfhound serve --port 0 --port-file "$paced_port_file" --fixed-step-time 20ms \
  --max-num-seqs 2000 --duration 1200s 2>/dev/null &
paced_server=$!
for _ in $(seq 50); do [ -s "$port_file" ] && [ -s "$paced_port_file" ] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat "$port_file")
paced_url=http://127.0.0.1:$(cat "$paced_port_file")
model=perfhound-fixed-step
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "# build: $($perfhound --version); $($python -c 'import sys, aiohttp; print("python", sys.version.split()[0], "aiohttp", aiohttp.__version__)')"

# One perfhound load run as a JSON line with the figures the Python client prints.
ph() {
  local name=$1; shift
  # exit 1 (INVALID) is a finding, not a failure of the benchmark
  { taskset -c $client_core $perfhound load --url "$url" --model $model --warmup 0 --emit-timestamps --json "$@" 2>/dev/null || true; } |
    $python -c '
import json, sys
d = json.load(sys.stdin); r = d["result"]; s = r["summary"]; c = r["client"]; lat = s["latency"]["from_sent"]
chunks = s["itl"]["count"] + s["requests"]["completed"]
print(json.dumps({"client": "perfhound", "workload": sys.argv[1], "status": r["status"],
  "completed": s["requests"]["completed"], "failed": s["requests"]["failed"], "wall_s": c["wall_s"],
  "requests_per_s": s["throughput"]["requests_per_s"], "chunks_per_s": chunks / s["window"]["duration_s"],
  "ttft_p50_s": lat["ttft"]["p50_s"], "ttft_p99_s": lat["ttft"]["p99_s"],
  "schedule_lag_p99_s": s["schedule_lag"].get("p99_s"), "dispatch_lag_p99_s": c["dispatch_lag"].get("p99_s"),
  "dispatch_lag_p50_s": c["dispatch_lag"].get("p50_s"), "itl_p50_s": s["itl"].get("p50_s"),
  "emit_to_receive_p50_s": c["emit_to_receive"].get("p50_s"), "emit_to_receive_p99_s": c["emit_to_receive"].get("p99_s"),
  "receive_backlog_p50_s": c["receive_backlog"].get("p50_s"), "receive_backlog_p99_s": c["receive_backlog"].get("p99_s"),
  "kernel_stamped_reads": c["receive_timestamps"]["kernel_stamped_reads"],
  "unstamped_reads": c["receive_timestamps"]["unstamped_reads"], "loop_lag_p99_s": c["loop_lag"].get("p99_s"),
  "cpu_s": c["cpu_s"], "cpu_ratio": c["cpu_ratio"]}))' "$name"
}
py() {
  local name=$1; shift
  taskset -c $client_core $python -B bench/load/aiohttp_client.py --url "$url" --model $model "$@" |
    $python -c 'import json, sys; d = json.loads(sys.stdin.read()); d["workload"] = sys.argv[1]; print(json.dumps(d))' "$name"
}

for _ in $(seq "$runs"); do
  ph chunks --concurrency 64 --requests 2000 --input-len 64 --output-len 256
  py chunks --concurrency 64 --requests 2000 --input-tokens 64 --max-tokens 256 --seed 1
  ph short --concurrency 64 --requests 20000 --input-len 64 --output-len 1
  py short --concurrency 64 --requests 5000 --input-tokens 64 --max-tokens 1 --seed 1
  ph open1000 --rate 1000 --requests 5000 --input-len 64 --output-len 16
  py open1000 --rate 1000 --requests 5000 --input-tokens 64 --max-tokens 16 --seed 1
  # perfhound alone (the Python client is not run at 1,000 streams): the added timestamp error, each round
  url=$paced_url ph streams1000_paced --concurrency 1000 --requests 3000 --input-len 16 --output-len 64
done
# perfhound alone, once: 1,000 and 10,000 concurrent streams as fast as the server goes.
ph streams1000 --concurrency 1000 --requests 5000 --input-len 16 --output-len 64
ph streams10000 --concurrency 10000 --requests 20000 --input-len 16 --output-len 32
