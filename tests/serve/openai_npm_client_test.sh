#!/usr/bin/env bash
# The official `openai` npm client streaming from `perfhound serve` (issue 5, validation).
#
#   openai_npm_client_test.sh <perfhound binary> <npm cache dir>
#
# Installs a pinned `openai` into <npm cache dir> the first time (later runs use it offline), starts
# `perfhound serve` with a fixed step time on a free port and runs openai_npm_client.mjs against it.
# Exit 77 (ctest: skipped) with "SKIP: <reason>" when node or npm is missing or the install fails.
set -euo pipefail

# The newest `openai` that supports the Node.js here: 7.x declares engines.node >= 22, this machine has
# Node 20, and 6.49.0 (the last 6.x) declares no engine limit and needs no dependencies.
readonly OPENAI_VERSION=6.49.0
readonly SKIP=77

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <perfhound binary> <npm cache dir>" >&2
  exit 2
fi
perfhound=$1
cache=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() {
  echo "SKIP: $*"
  exit "$SKIP"
}

[[ -x $perfhound ]] || { echo "FAIL: $perfhound is not an executable" >&2; exit 1; }
command -v node > /dev/null 2>&1 || skip "node is not on PATH (the openai npm client test needs Node.js and npm)"
command -v npm > /dev/null 2>&1 || skip "npm is not on PATH (the openai npm client test needs Node.js and npm)"

installed_version() {
  node -e 'try { process.stdout.write(require(process.argv[1]).version) } catch { }' \
    "$cache/node_modules/openai/package.json" 2> /dev/null || true
}

mkdir -p "$cache"
if [[ $(installed_version) != "$OPENAI_VERSION" ]]; then
  echo "installing openai@$OPENAI_VERSION into $cache (node $(node --version), npm $(npm --version))"
  start=$(date +%s.%N)
  # A registry that drops packets would keep npm waiting past ctest's 300 s: give up (and skip) at 240 s.
  limit=()
  command -v timeout > /dev/null 2>&1 && limit=(timeout 240)
  if ! "${limit[@]}" npm install --no-audit --no-fund --prefix "$cache" "openai@$OPENAI_VERSION" > "$cache/npm-install.log" 2>&1; then
    tail -n 20 "$cache/npm-install.log"
    skip "npm install openai@$OPENAI_VERSION failed (is the npm registry reachable?); log: $cache/npm-install.log"
  fi
  [[ $(installed_version) == "$OPENAI_VERSION" ]] || skip "npm install did not leave openai@$OPENAI_VERSION in $cache"
  echo "installed in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
else
  echo "openai@$OPENAI_VERSION already installed in $cache (no network needed)"
fi
# ES modules resolve packages from the importing file's folder, so the client script runs from the cache.
cp "$here/openai_npm_client.mjs" "$cache/openai_npm_client.mjs"

work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2> /dev/null; then
    kill "$server_pid" 2> /dev/null || true
    wait "$server_pid" 2> /dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

port_file=$work/port
"$perfhound" serve --port 0 --port-file "$port_file" --fixed-step-time 1ms --duration 60s > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  [[ -s $port_file ]] && break
  kill -0 "$server_pid" 2> /dev/null || { cat "$work/server.log"; echo "FAIL: perfhound serve exited at start" >&2; exit 1; }
  sleep 0.1
done
[[ -s $port_file ]] || { cat "$work/server.log"; echo "FAIL: no port file after 10 s" >&2; exit 1; }
port=$(tr -d '[:space:]' < "$port_file")
cat "$work/server.log"

status=0
node "$cache/openai_npm_client.mjs" "$port" || status=$?
if ! kill -0 "$server_pid" 2> /dev/null; then
  cat "$work/server.log"
  echo "FAIL: perfhound serve is no longer running" >&2
  status=1
fi
[[ $status -eq 0 ]] || echo "FAIL: the openai npm client checks failed (exit $status)" >&2
exit "$status"
