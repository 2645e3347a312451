#!/usr/bin/env bash
# Throughput and peak memory of `perfhound trace` on a synthetic Kineto trace of >= 1 GB, plus the real
# traces it is tested on. Prints one line per run; bench/RESULTS.md records the figures with conditions.
#
#   bench/trace/run_trace_bench.sh [SIZE_MB] [RUNS]       (defaults: 1100 MB, 5 runs)
#
# Needs a built tree (make build). The trace goes to $TMPDIR (default /tmp) and is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb=${1:-1100}
runs=${2:-5}
perfhound=build/perfhound
generator=build/bench/make_synthetic_trace
[ -x "$perfhound" ] && [ -x "$generator" ] || { echo "run 'make build' first" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

trace=$(mktemp "${TMPDIR:-/tmp}/perfhound_bench_XXXXXX.json")
trap 'rm -f "$trace"' EXIT
"$generator" "$trace" "$size_mb"
bytes=$(stat -c %s "$trace")
cat "$trace" > /dev/null  # warm the page cache: measure parsing, not the disk

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "build: $($perfhound --version)"
echo "input: synthetic Kineto trace, $bytes bytes"
echo "run  wall_s  user_s  sys_s  peak_rss_MB  MB_per_s(wall)  MB_per_s(user+sys)"
for i in $(seq 1 "$runs"); do
  /usr/bin/time -f "%e %U %S %M" -o /tmp/perfhound_bench_time "$perfhound" trace "$trace" > /dev/null
  read -r wall user sys rss_kb < /tmp/perfhound_bench_time
  awk -v i="$i" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" -v b="$bytes" \
    'BEGIN { printf "%3d  %6.2f  %6.2f  %5.2f  %11.0f  %14.0f  %18.0f\n", i, w, u, s, r / 1024, b / 1e6 / w, b / 1e6 / (u + s) }'
done
for f in tests/data/traces/h200/llama1b_decode_bs1.json.gz /work/shared/data/peers/hta/df_index_resolver.json.gz; do
  [ -f "$f" ] || continue
  /usr/bin/time -f "%e %M" -o /tmp/perfhound_bench_time "$perfhound" trace "$f" > /dev/null
  read -r wall rss_kb < /tmp/perfhound_bench_time
  echo "real trace $(basename "$f"): wall ${wall} s, peak RSS $((rss_kb / 1024)) MB (gzip, decompression included)"
done
rm -f /tmp/perfhound_bench_time
