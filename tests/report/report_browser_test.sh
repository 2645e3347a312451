#!/usr/bin/env bash
# `perfhound report` drawn in a real browser (issue 7, validation).
#
#   report_browser_test.sh <perfhound binary> <fixtures dir (tests/data/report)> <work dir in the build tree>
#
# Writes the report of the fixtures, loads it in headless Chromium and checks from the dumped DOM that every
# chart drew an <svg> whose marks carry the fixtures' data points (check_report_dom.mjs), that the page
# recorded no error (its <body data-errors>) and Chromium logged no uncaught exception; takes a screenshot
# and checks it is a PNG of some size; a negative control (a page that throws) proves both detectors see
# errors. Then --format svg and png, and bad input (exit 2, one line naming the file).
# Exit 77 (ctest: skipped) with "SKIP: <reason>" only when Chromium is not installed.
set -euo pipefail

readonly SKIP=77
if [[ $# -ne 3 ]]; then
  echo "usage: $0 <perfhound binary> <fixtures dir> <work dir>" >&2
  exit 2
fi
perfhound=$1
data=$2
work=$3

chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium ]]; then
  echo "SKIP: chromium is not installed (apt-get install chromium, or scripts/install-deps)"
  exit "$SKIP"
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ -x $perfhound ]] || { echo "FAIL: $perfhound is not an executable" >&2; exit 1; }
command -v node > /dev/null || { echo "FAIL: node is not on PATH (the build needs it too: scripts/install-deps)" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)  # file:// URLs need an absolute path
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# The flags perfhound itself uses (cli/headless_render.cpp): headless, no sandbox, no GPU, no background
# traffic, a throwaway profile; virtual time lets the charts finish before the DOM dump or screenshot.
browser=("$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking
  --disable-component-update --disable-sync --no-first-run --disable-default-apps "--user-data-dir=$profile"
  --virtual-time-budget=10000 --enable-logging=stderr --v=0)
# Console messages reach stderr as INFO:CONSOLE lines whatever their level; exceptions say "Uncaught".
console_errors() { grep -E 'CONSOLE.*(Uncaught|[Ee]rror)' "$1" || true; }

echo "== perfhound report (4 inputs: a sweep, two load runs, a trace)"
"$perfhound" report "$data/sweep_concurrency.json" "$data/load_rate8.json" "$data/load_concurrency12.json" \
  "$data/trace_h200.json" -o "$work/report.html" --title "browser test"
bytes=$(wc -c < "$work/report.html")
echo "report.html: $bytes bytes"
grep -q 'src="http' "$work/report.html" && fail "report.html loads a script from the network"

echo "== chromium --dump-dom ($("$chromium" --version 2> /dev/null | head -n 1))"
start=$(date +%s.%N)
"${browser[@]}" --dump-dom "file://$work/report.html" > "$work/report.dom.html" 2> "$work/chromium-dom.log"
echo "dumped in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
node "$here/check_report_dom.mjs" dom "$work/report.dom.html" || fail "the DOM checks above"
errors=$(console_errors "$work/chromium-dom.log")
if [[ -n $errors ]]; then
  echo "$errors"
  fail "chromium logged console errors"
else
  echo "ok   no console errors in chromium's log"
fi

echo "== chromium --screenshot"
"${browser[@]}" --hide-scrollbars --window-size=1400,2400 --screenshot="$work/report.png" "file://$work/report.html" \
  > /dev/null 2> "$work/chromium-screenshot.log"
png_ok() {  # <file> <min bytes>
  [[ -f $1 ]] && [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] && (($(wc -c < "$1") > $2))
}
if png_ok "$work/report.png" 50000; then
  echo "ok   report.png is a PNG of $(wc -c < "$work/report.png") bytes"
else
  fail "report.png is not a PNG over 50000 bytes"
fi

echo "== negative control: the same page with a script that throws"
# The page's own closing tag is the line "</body>" (the libraries hold the text "</body>" in strings).
sed 's|^</body>$|<script>console.error("control error"); no_such_function();</script></body>|' "$work/report.html" \
  > "$work/control.html"
"${browser[@]}" --dump-dom "file://$work/control.html" > "$work/control.dom.html" 2> "$work/chromium-control.log"
if grep -q 'data-errors="2"' "$work/control.dom.html" && [[ -n $(console_errors "$work/chromium-control.log") ]]; then
  echo "ok   the page counted 2 errors and chromium's log shows the uncaught one"
else
  fail "the negative control's errors went unseen (the checks above could not fail)"
fi

echo "== --format svg"
"$perfhound" report "$data/sweep_concurrency.json" --format svg -o "$work/pareto.svg"
node "$here/check_report_dom.mjs" svg "$work/pareto.svg" || fail "the SVG checks above"
"$perfhound" report "$data/load_rate8.json" "$data/load_concurrency12.json" --format svg -o "$work/ttft_cdf.svg"
n=$(grep -o 'role-mark ttft_cdf_points_marks' "$work/ttft_cdf.svg" | wc -l)
points=$(sed 's/role-mark ttft_cdf_points_marks/\n&/' "$work/ttft_cdf.svg" | tail -n 1 | sed 's|</g>.*||' | grep -o '<path' | wc -l)
if [[ $n -eq 1 && $points -eq 24 ]]; then
  echo "ok   ttft_cdf.svg (the default chart without a sweep) has the 24 percentile points"
else
  fail "ttft_cdf.svg: $n point groups, $points points (want 1 and 24)"
fi

echo "== --format png"
"$perfhound" report "$data/sweep_concurrency.json" --format png --chart pareto -o "$work/pareto.png"
if png_ok "$work/pareto.png" 10000; then
  echo "ok   pareto.png is a PNG of $(wc -c < "$work/pareto.png") bytes"
else
  fail "pareto.png is not a PNG over 10000 bytes"
fi

echo "== bad input"
expect_usage_error() {  # <expected substring> <args...>
  local want=$1
  shift
  local code=0
  "$perfhound" report "$@" -o "$work/bad.report" > "$work/bad.out" 2> "$work/bad.err" || code=$?
  if [[ $code -eq 2 && $(wc -l < "$work/bad.err") -eq 1 ]] && grep -qF -- "$want" "$work/bad.err"; then
    echo "ok   exit 2: $(cat "$work/bad.err")"
  else
    fail "perfhound report $*: exit $code, stderr: $(cat "$work/bad.err") (want exit 2, one line with '$want')"
  fi
}
expect_usage_error "'$data/not_json.txt': not JSON: line 1, column 1" "$data/not_json.txt"
expect_usage_error "cannot open '$work/missing.json'" "$work/missing.json"
expect_usage_error "--chart pareto: no input has its data" "$data/load_rate8.json" --format svg --chart pareto
expect_usage_error "--chart: no chart named 'pie'" "$data/load_rate8.json" --format svg --chart pie
[[ -e $work/bad.report ]] && fail "a failed report left $work/bad.report behind"

if ((failures > 0)); then
  echo "FAILED: $failures check(s); artifacts in $work"
  exit 1
fi
echo "PASS: the report drew in headless chromium; artifacts in $work"
