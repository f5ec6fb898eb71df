#!/usr/bin/env bash
# Runs the shared harness (../shared/bench, unmodified) with svc's adapter next to the ceiling.
# run-all.mjs writes results/ next to itself and ../shared is read-only for us, so it runs from
# a fresh copy under /tmp/svc-harness (reports in /tmp/svc-harness/results/).
#   bash bench/shared-harness.sh [run-all options, e.g. --repeat 1 --duration 5]
# Equal durability with svc: SQLITE_SYNCHRONOUS=NORMAL SQLITE_CACHE_SIZE=-65536 bash bench/shared-harness.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SHARED="${SHARED_BENCH_DIR:-$(cd "$ROOT/../shared/bench" && pwd)}"
COPY=/tmp/svc-harness
rm -rf "$COPY/adapters" "$COPY/ceiling" "$COPY/lib" "$COPY/lua" "$COPY/peers"
mkdir -p "$COPY/results"
# -a keeps ceiling/node_modules a symlink to /tmp/peers/ceiling-deps (made by setup.sh)
cp -a "$SHARED"/{adapters,ceiling,lib,lua,peers,run-all.mjs,gen-data.mjs,README.md} "$COPY/"
# A read-only ../shared has no ceiling/node_modules link: point the copy at setup.sh's install.
if [[ ! -e "$COPY/ceiling/node_modules" && -d /tmp/peers/ceiling-deps/node_modules ]]; then
  ln -s /tmp/peers/ceiling-deps/node_modules "$COPY/ceiling/node_modules"
fi
(cd "$ROOT" && npm run build --silent)
servers=(--servers "ceiling,$ROOT/bench/harness-adapter.mjs")
[[ " $* " == *" --servers "* ]] && servers=()
exec node "$COPY/run-all.mjs" "${servers[@]}" "$@"
