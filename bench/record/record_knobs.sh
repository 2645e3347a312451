#!/usr/bin/env bash
# perfhound record's CUPTI knobs on the launch-bound loop (launch_heavy.py, 4096 floats, 40,000 loop kernels):
# does where CUPTI keeps its kernel timestamps, how many device buffers it allocates up front, a larger host
# buffer, or fewer activity kinds cut the 3-9 us CUPTI adds to each launch (bench/RESULTS.md)? Every recorded
# setting runs with --api none, so runtime API records are out of the picture and "none" is the baseline the
# knobs are compared with. Each round runs plain and every setting, the order rotated a round, pinned as
# record_device.sh pins (two cores: the program's thread and CUPTI's). One JSON line a run (the program's own
# line, the kernels the trace kept and the records CUPTI dropped), then a summary line a setting: median loop
# time, its ratio to plain's median in the same call (and the median of the per-round ratios), the added
# microseconds a loop kernel, and whether every trace kept the same kernels as the default's.
#   bench/record/record_knobs.sh PERFHOUND OUTDIR          (ROUNDS, default 5; SETTINGS to pick some)
#   SETTINGS="plain kernels kernels+memcpy kernels+memset kernels+sync kernels+marker kernels+nvtx all" bench/record/record_knobs.sh ...
# A setting written API/KINDS runs `--api API --kinds KINDS` (e.g. all/all, all/kernels,memcpy,memset,nvtx,
# none/kernels): the default recording against the old one and the cheapest. PROGRAM_ARGS go to launch_heavy.py
# (e.g. "--mode decode --iters 1000"); where the program does not count its kernels ("kernels": null), the
# median kept-kernel count of the recorded runs that keep every kernel stands in, scaled to the loop's share.
set -uo pipefail
cd "$(dirname "$0")/../.."
ph=${1:-build/perfhound}
out=${2:-/tmp/record_knobs}
mkdir -p "$out"
py=${PYTHON:-python3}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) $($ph --version)"
pin=(); command -v taskset >/dev/null && pin=(taskset -c ${PIN_CORES:-2,3})
# A setting: the environment it adds and the perfhound record flags it takes (all --api none).
declare -A env=(
  [none]=""
  [devbuf32]="PERFHOUND_RECORD_DEVICE_BUFFER_MB=32"
  [prealloc16]="PERFHOUND_RECORD_DEVICE_BUFFERS_PREALLOC=16"
  [pinned]="PERFHOUND_RECORD_HOST_PINNED=1"
  [kernels]=""
  [hostbuf64]=""
  [combined]="PERFHOUND_RECORD_DEVICE_BUFFER_MB=32 PERFHOUND_RECORD_DEVICE_BUFFERS_PREALLOC=16 PERFHOUND_RECORD_HOST_PINNED=1"
)
# kernels: --kinds kernels (run 2026-12-04T04:58Z as PERFHOUND_RECORD_KINDS=kernels, which the flag now sets).
declare -A flags=([kernels]="--kinds kernels" [hostbuf64]="--buffer-mb 64" [combined]="--kinds kernels --buffer-mb 64")
# kernels+X: kernels and one kind more (--kinds kernels,X), to find which of those `kernels` leaves out costs the
# launch path: memcpy, memset, sync, marker (the MARKER kind, NVTX not routed to CUPTI) and nvtx (MARKER and the
# routing), so nvtx over marker is the routing alone. all: --kinds all, the default, named.
for k in memcpy memset sync marker nvtx; do env[kernels+$k]=""; flags[kernels+$k]="--kinds kernels,$k"; done
env[all]=""; flags[all]="--kinds all"
settings=(${SETTINGS:-plain none devbuf32 prealloc16 pinned kernels hostbuf64 combined})
n=${#settings[@]}
rounds=${ROUNDS:-5}
for i in $(seq 1 "$rounds"); do
  for j in $(seq 0 $((n - 1))); do
    c=${settings[$(( (i + j) % n ))]}
    if [ "$c" = plain ]; then
      result=$("${pin[@]}" $py bench/record/launch_heavy.py ${PROGRAM_ARGS:-} | grep -m1 '^{')
      echo "{\"run\": \"plain\", \"round\": $i, \"result\": ${result:-null}}"
      continue
    fi
    if [[ $c == */* ]]; then
      setting_env="" setting_flags="--api ${c%%/*} --kinds ${c#*/}"
    else
      setting_env=${env[$c]} setting_flags="--api none ${flags[$c]:-}"
    fi
    stdout=$(env $setting_env "${pin[@]}" $ph record $setting_flags -o "$out/rec.json" -- \
             $py bench/record/launch_heavy.py ${PROGRAM_ARGS:-} 2>"$out/rec.err")
    result=$(grep -m1 '^{' <<<"$stdout")
    kept=$(sed -n "s/.*perfhound record: wrote '[^']*': \([0-9]*\) kernels.*/\1/p" <<<"$stdout")
    dropped=$(sed -n 's/.* \([0-9]*\) records dropped.*/\1/p' <<<"$stdout")
    # Host events: with --api none, the NVTX ranges and synchronizations the trace kept (what sync and nvtx add).
    host=$(sed -n 's/.* \([0-9]*\) host events.*/\1/p' <<<"$stdout")
    cupti=$(grep -o '"cupti_version":[0-9]*' "$out/rec.json" 2>/dev/null | head -1 | cut -d: -f2)
    # What the library said besides its banner (an attribute CUPTI refused, a knob ignored), once a setting.
    said=$(grep -v -e '^perfhound record: .* -> ' "$out/rec.err" | head -3 | tr '"\\' "'/" | tr '\n' ' ')
    echo "{\"run\": \"$c\", \"round\": $i, \"kernels_kept\": ${kept:-null}, \"host_events\": ${host:-null}, \"dropped\": ${dropped:-null}," \
         "\"cupti_version\": ${cupti:-null}, \"stderr\": \"$said\", \"result\": ${result:-null}}"
    rm -f "$out/rec.json"
  done
done | tee "$out/knobs.jsonl"
$py - "$out/knobs.jsonl" <<'PY'
import json, statistics, sys
runs, kept, host, dropped, said, by_round = {}, {}, {}, {}, {}, {}
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    name = d["run"]
    kept.setdefault(name, []).append(d.get("kernels_kept"))
    host.setdefault(name, []).append(d.get("host_events"))
    dropped.setdefault(name, []).append(d.get("dropped"))
    if d.get("stderr"):
        said.setdefault(name, set()).add(d["stderr"].strip())
    if d["result"] is not None:  # a run that printed nothing: its error is in rec.err
        runs.setdefault(name, []).append(d["result"])
        by_round.setdefault(d["round"], {})[name] = d["result"]["loop_s"]
if "plain" not in runs:
    sys.exit("record_knobs: no plain run printed a result")
plain = statistics.median(r["loop_s"] for r in runs["plain"])
# The default's kernels (the "none" setting, or "all", or the first recorded setting where neither runs): every
# setting should keep them.
first = next((k for k in kept if k not in ("none", "all")), None)
default_kept = sorted(k for k in kept.get("none", kept.get("all", kept.get(first, []))) if k is not None)
# A program that does not count its kernels: the recorded runs' median kept count (every setting keeps the
# kernels), which includes the warm-up's and the setup's, so scaled by iters / (iters + warm-up) below.
all_kept = sorted(k for ks in kept.values() for k in ks if k is not None)
for name, rs in runs.items():
    loops = sorted(r["loop_s"] for r in rs)
    med = statistics.median(loops)
    counted = rs[0]["kernels"] if rs[0]["kernels"] is not None else (statistics.median(all_kept) if all_kept else None)
    if counted is None:
        sys.exit("record_knobs: the program counts no kernels and no recorded run kept any")
    kernels = counted * rs[0]["iters"] / (rs[0]["iters"] + rs[0].get("warmup", 200))  # the loop's, without the warm-up's
    row = {"setting": name, "rounds": len(loops), "median_loop_s": round(med, 4), "min_s": round(loops[0], 4),
           "max_s": round(loops[-1], 4), "vs_plain": round(med / plain, 3),
           "added_us_per_kernel": round((med - plain) / kernels * 1e6, 3), "plain_us_per_kernel": round(plain / kernels * 1e6, 3)}
    # The same ratio taken inside each round (this setting's run over that round's plain run), then the median:
    # less moved by drift between rounds than the ratio of the medians.
    paired = [rd[name] / rd["plain"] for rd in by_round.values() if name in rd and "plain" in rd]
    if paired and name != "plain":
        row["paired_vs_plain"] = round(statistics.median(paired), 3)
    if name != "plain":
        ks = kept[name]
        row["kernels_kept"] = sorted(set(ks), key=lambda k: (k is None, k))
        row["same_kernels_as_default"] = bool(default_kept) and all(k == default_kept[0] for k in ks)
        row["host_events"] = sorted(set(host[name]), key=lambda k: (k is None, k))
        row["dropped"] = sorted(set(dropped[name]), key=lambda k: (k is None, k))
        if name in said:
            row["stderr"] = sorted(said[name])
    print(json.dumps(row))
PY
