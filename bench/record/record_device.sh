#!/usr/bin/env bash
# perfhound record on a GPU machine: overhead on a launch-heavy PyTorch program (wall time with and without the
# recorder (--api all, classified, none), rotated, ROUNDS rounds, default 5), on the same loop with longer
# kernels and on a GPU-bound one (plain vs all, 3 rounds), fidelity (perfhound trace's verdict and GPU busy share on the recorded
# trace vs on torch.profiler's trace of the same program). One JSON line per run, then the two analyses.
#   bench/record/record_device.sh PERFHOUND OUTDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
ph=${1:-build/perfhound}
out=${2:-/tmp/record_bench}
mkdir -p "$out"
py=${PYTHON:-python3}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $($ph --version)"
# Overhead: each round runs the program plain and under each setting, the order rotated a round so no setting
# always follows the same one, pinned to two cores (the program's thread and CUPTI's) so the runs share one CPU
# placement; the summary is each setting's median over the rounds and its ratio to the plain median (the
# machine is shared: single runs do not rank settings).
#   overhead LABEL ROUNDS "SETTINGS" PROGRAM_ARGS...     (SETTINGS: plain and --api values)
pin=(); command -v taskset >/dev/null && pin=(taskset -c ${PIN_CORES:-2,3})
overhead() {
  local label=$1 rounds=$2 settings=($3); shift 3
  local n=${#settings[@]}
  for i in $(seq 1 "$rounds"); do
    for j in $(seq 0 $((n - 1))); do
      local c=${settings[$(( (i + j) % n ))]}
      if [ "$c" = plain ]; then
        echo "{\"case\": \"$label\", \"run\": \"plain\", \"round\": $i, \"result\": $("${pin[@]}" $py bench/record/launch_heavy.py "$@")}"
      else
        echo "{\"case\": \"$label\", \"run\": \"$c\", \"round\": $i, \"result\": $("${pin[@]}" $ph record --api $c -o "$out/rec.json" -- $py bench/record/launch_heavy.py "$@" 2>"$out/rec.err" | head -1)}"
        rm -f "$out/rec.json"
      fi
    done
  done | tee "$out/overhead_$label.jsonl" | grep -v '^{' || true
  $py - "$out/overhead_$label.jsonl" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue  # a run that printed nothing (its error is in the log)
    runs.setdefault(d["run"], []).append(d["result"])
plain = statistics.median(r["loop_s"] for r in runs["plain"])
for name, rs in runs.items():
    loops = sorted(r["loop_s"] for r in rs)
    med = statistics.median(loops)
    kernels = rs[0]["kernels"] * rs[0]["iters"] / (rs[0]["iters"] + 200)  # the loop's, without the warm-up's
    print(json.dumps({"case": json.loads(open(sys.argv[1]).readline())["case"], "overhead": name, "rounds": len(loops),
                      "median_loop_s": round(med, 4), "min_s": round(loops[0], 4), "max_s": round(loops[-1], 4),
                      "vs_plain": round(med / plain, 3), "added_us_per_kernel": round((med - plain) / kernels * 1e6, 3),
                      "plain_us_per_kernel": round(plain / kernels * 1e6, 3)}))
PY
}
# PARTS picks what runs (default: all three, about 9 minutes on an H200).
parts=" ${PARTS:-overhead fidelity signals} "
if [[ $parts == *" overhead "* ]]; then
  overhead launch4096 ${ROUNDS:-5} "plain all classified none"
  overhead launch1M 3 "plain all" --numel 1048576
  overhead launch16M 3 "plain all" --numel 16777216
  overhead busy 3 "plain all" --mode busy
fi
# Fidelity on both ends: the launch-bound loop above and a GPU-bound one (--mode busy); FIDELITY_MODES picks
# others (decode), FIDELITY_APIS records each with several --api settings (default: classified, perfhound
# record's default), FIDELITY_ARGS go to every run of the program (e.g. --iters 300).
[[ $parts == *" fidelity "* ]] && for mode in ${FIDELITY_MODES:-launch busy}; do
  recorded=()
  for api in ${FIDELITY_APIS:-classified}; do
    $ph record --api $api -o "$out/recorded_${mode}_$api.json" -- $py bench/record/launch_heavy.py --mode $mode \
      ${FIDELITY_ARGS:-} > "$out/record_stdout.txt" 2>&1
    cat "$out/record_stdout.txt"
    recorded+=(recorded_${mode}_$api)
  done
  $py bench/record/launch_heavy.py --mode $mode ${FIDELITY_ARGS:-} --profile "$out/kineto_$mode.json" 2>/dev/null
  for t in "${recorded[@]}" kineto_$mode; do
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
# Signals: a program stopped mid-run keeps what was recorded (the library's writer thread flushes CUPTI and writes,
# then SIGTERM's default action ends the program; SIGINT: Python's KeyboardInterrupt after the write).
# perfhound gets the signal and forwards it.
# Job control on while perfhound starts: without it a script's background job starts with SIGINT and SIGQUIT
# ignored, perfhound leaves an ignored signal ignored (as nohup's SIGHUP), and kill -INT does nothing (seen on an
# H200 on 2026-12-07: the loop ran on 60 s and was killed, no trace).
[[ $parts == *" signals "* ]] && for sig in TERM INT; do
  set -m
  $ph record -o "$out/signal_$sig.json" -- $py bench/record/launch_heavy.py --iters 100000000 > "$out/signal_$sig.txt" 2>&1 &
  pid=$!
  set +m
  sleep ${SIGNAL_AFTER_S:-15}
  kill -$sig $pid
  sent=$(date +%s.%N)
  # A program that does not end within SIGNAL_WAIT_S is a hang: say where its threads wait, then kill it.
  for _ in $(seq 1 $((${SIGNAL_WAIT_S:-60} * 10))); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then
    child=$(pgrep -P $pid)
    echo "{\"signal\": \"SIG$sig\", \"hung_s\": ${SIGNAL_WAIT_S:-60}}"
    for t in /proc/$child/task/*; do echo "thread $(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan)"; done
    kill -9 $child $pid
  fi
  wait $pid
  code=$?
  ended_after=$($py -c "import time; print(round(time.time() - $sent, 2))")
  echo "{\"signal\": \"SIG$sig\", \"perfhound_exit\": $code, \"ended_after_s\": $ended_after}"
  grep "perfhound record" "$out/signal_$sig.txt"
  $ph trace "$out/signal_$sig.json" --json > "$out/signal_$sig.trace.json" 2>&1 && $py -c "
import json, sys; r = json.load(open(sys.argv[1]))['result']; d = r['utilization']['devices'][0]
print(json.dumps({'signal_trace': sys.argv[2], 'bottleneck': r['verdict']['bottleneck'], 'kernels': d['activity_count']}))" \
    "$out/signal_$sig.trace.json" "SIG$sig" || head -3 "$out/signal_$sig.trace.json"
  rm -f "$out/signal_$sig.json"
done
