#!/usr/bin/env bash
# SSE throughput of `perfhound serve` (issue 5 target: >= 500k chunks/s on one core): the server pinned to
# core 0 with tiny fixed steps, the load client (bench/serve/sse_client_bench.cpp) pinned to core 1.
#   bench/serve/run_serve_bench.sh            (needs a built tree: make build)
set -euo pipefail
cd "$(dirname "$0")/../.."
port_file=$(mktemp)
trap 'kill $server 2>/dev/null || true; rm -f "$port_file"' EXIT
taskset -c 0 build/perfhound serve --port 0 --port-file "$port_file" --fixed-step-time 1us --duration 120s 2>/dev/null &
server=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port=$(cat "$port_file")
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "build: $(build/perfhound --version)"
for config in "64 20 256" "256 5 256" "256 5 1024" "1024 2 256"; do
  # shellcheck disable=SC2086
  taskset -c 1 build/bench/sse_client_bench "$port" $config 1
done
