#!/usr/bin/env bash
# perfhound record on real PyTorch programs, the cases its GPU tests cover with a C++ program (bench/RESULTS.md):
#   nvtx    an NVTX range before CUDA starts (torch.cuda.nvtx before the first tensor): the ranges after it must
#           still be recorded (NVTX decides at its first call whether a tool gets them)
#   hangup  SIGHUP (a closed terminal) to a launch-bound loop: the trace written, the program ended by SIGHUP (129)
#   child   the program started by a shell, as launchers do: its trace found beside the one asked for
#   bench/record/record_checks.sh PERFHOUND OUTDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
ph=${1:-build/perfhound}
out=${2:-/tmp/record_checks}
mkdir -p "$out"
py=${PYTHON:-python3}

echo "== nvtx: a range before CUDA starts, then two after"
"$ph" record -o "$out/nvtx.json" -- $py -c "
import torch
torch.cuda.nvtx.range_push('before CUDA'); torch.cuda.nvtx.range_pop()
x = torch.ones(1 << 20, device='cuda')
for name in ('first', 'second'):
    torch.cuda.nvtx.range_push(name); x = x * 1.5 + 1; torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print('nvtx program done')"
echo "exit $?"
$py - "$out/nvtx.json" <<'PY'
import collections, json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
ranges = collections.Counter(e["name"] for e in events if e.get("cat") == "user_annotation")
print("nvtx ranges recorded:", dict(ranges), "(want first and second once each)")
PY

echo "== hangup: SIGHUP to a launch-bound loop after 5 s"
"$ph" record -o "$out/hup.json" -- $py bench/record/launch_heavy.py --mode launch --iters 100000000 > "$out/hup.txt" 2>&1 &
recorder=$!
sleep 5
program=$(pgrep -P "$recorder" | head -1)
sent=$(date +%s.%N)
kill -HUP "$program"
wait "$recorder"; code=$?
echo "perfhound record exit $code ($($py -c "import time; print(round(time.time() - $sent, 2))") s after SIGHUP to pid $program)"
cat "$out/hup.txt" | grep -v '^{' | tail -4
ls -la "$out/hup.json" 2>&1 | awk '{print $5, $9}'

echo "== child: the program started by a shell"
rm -f "$out"/child*.json
"$ph" record -o "$out/child.json" -- sh -c "$py bench/record/launch_heavy.py --mode launch --iters 2000 > /dev/null; exit \$?"
echo "exit $?"
ls "$out"/child*.json 2>&1
