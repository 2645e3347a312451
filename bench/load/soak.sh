#!/usr/bin/env bash
# A soak against the simulator (issue 10; a benchmark, not CI): perfhound load --soak for DURATION (default 10m)
# at RATE req/s (default 40) against perfhound serve on loopback (the llama-3-8b / H200 model, so each stream
# lasts as long as a real one), the client's and the server's resident memory sampled every 10 s beside it.
# Prints the result's per-window throughput and latency with the client's RSS at each window's end, then the
# soak verdict. Server on core 0, client on core 1 (override with SERVER_CORE= / CLIENT_CORE=).
#   bench/load/soak.sh [DURATION] [RATE] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10m}
rate=${2:-40}
out=${3:-/tmp/perfhound_soak}
perfhound=${PERFHOUND:-build/perfhound}
mkdir -p "$out"
port_file=$out/port
rm -f "$port_file"
taskset -c "${SERVER_CORE:-0}" "$perfhound" serve --port 0 --port-file "$port_file" --duration 100000s 2>"$out/serve.err" &
server=$!
trap 'kill $server $sampler 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.1; done
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $($perfhound --version)"
echo "# soak $duration at $rate req/s (Poisson), input 256, output 128 tokens, against perfhound serve (llama-3-8b, h200-sxm)"
taskset -c "${CLIENT_CORE:-1}" "$perfhound" load --url "http://127.0.0.1:$(cat "$port_file")" --rate "$rate" \
  --soak "$duration" --warmup 30s --input-len 256 --output-len 128 --records "$out/soak.jsonl" -o "$out/soak.json" \
  --quiet > "$out/soak.txt" 2>"$out/load.err" &
client=$!
# RSS (KiB) of both, every 10 s, seconds from the start.
(start=$(date +%s); while kill -0 $client 2>/dev/null; do
   echo "$(( $(date +%s) - start )) $(ps -o rss= -p $client | tr -d ' ') $(ps -o rss= -p $server | tr -d ' ')"; sleep 10
 done) > "$out/rss.txt" &
sampler=$!
wait $client || true  # 1 when the soak found drift or the run was INVALID: the figures are still the point
wait $sampler || true
python3 - "$out/soak.json" "$out/rss.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
r = doc["result"]
rss = [tuple(int(x) for x in line.split()) for line in open(sys.argv[2]) if len(line.split()) == 3]
def rss_at(t):  # the last sample at or before t
    past = [s for s in rss if s[0] <= t]
    return past[-1] if past else rss[0]
print(f"status {r['status']}, client_limited {r['client_limited']}, partial {r['partial']}, "
      f"requests {r['summary']['requests']}")
print("| window | start s | completed req/s | output tok/s | TTFT p99 | errors | client RSS MiB | server RSS MiB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for i, w in enumerate(r["windows"]):
    start, end = w["start_s"], w["end_s"]
    _, client_kib, server_kib = rss_at(end)
    ttft = w.get("ttft_p99_s")
    print(f"| {i + 1} | {start:.0f} | {w.get('requests_per_s', 0):.2f} | {w.get('output_tokens_per_s', 0):.0f} | "
          f"{'-' if ttft is None else f'{ttft * 1e3:.1f} ms'} | {w['failed']} | {client_kib / 1024:.1f} | "
          f"{server_kib / 1024:.1f} |")
print("client RSS MiB: first sample %.1f, max %.1f, last %.1f" % (rss[0][1] / 1024, max(s[1] for s in rss) / 1024, rss[-1][1] / 1024))
print("soak:", json.dumps(r.get("soak", {}))[:1500])
PY
