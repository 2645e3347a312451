#!/usr/bin/env bash
# perfhound load's live progress line (issue 6): drawn on a terminal, once a second, with done/total, rate,
# p50 TTFT, errors and in-flight; cleared before the summary; absent with --quiet and when stderr is not a
# terminal. The terminal is a pseudo-terminal from util-linux's `script`.
#   progress_tty_test.sh <perfhound binary>
# Exit 77 (ctest: skipped) with "SKIP: <reason>" when `script` is missing.
set -euo pipefail
perfhound=$1
command -v script > /dev/null || { echo "SKIP: util-linux's script is not installed"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 300 requests of 8 tokens at 2 ms a step, 2 in flight: about 2.4 s, so two or three progress ticks.
run="$perfhound load --sim-fixed-step-time 2ms --concurrency 2 --requests 300 --warmup 0 --input-len 16 --output-len 8"
fail() { echo "FAIL: $*"; exit 1; }

# A load run exits 1 when it judges itself client-limited (a busy test machine): a finding, not a failure here.
script -qec "$run > /dev/null" /dev/null > "$out/tty.txt" || true
grep -q $'\r\033\[K  [0-9]* s  [0-9]*/300 done  [0-9.]* req/s  p50 TTFT [0-9.]* [mun]*s  errors 0  in flight [0-2]' "$out/tty.txt" ||
  fail "no progress line on the terminal: $(od -c "$out/tty.txt" | head -5)"
# The line is cleared before the summary: after the last clear sequence comes no progress text.
content=$(cat "$out/tty.txt")
after_last_clear=${content##*$'\033[K'}
[[ $after_last_clear != *"/300 done"* ]] || fail "the progress line was not cleared at the end: $after_last_clear"
echo "ok   the progress line is drawn and cleared on a terminal"

script -qec "$run --quiet > /dev/null" /dev/null > "$out/quiet.txt" || true
grep -q $'\033\[K' "$out/quiet.txt" && fail "--quiet drew a progress line"
echo "ok   --quiet: no progress line"

$run 2> "$out/pipe.txt" > /dev/null || true
grep -q $'\033\[K' "$out/pipe.txt" && fail "a progress line went to a stderr that is not a terminal"
echo "ok   stderr not a terminal: no progress line"
echo "PASS"
