#!/usr/bin/env bash
# Configures and builds dtplan with Ninja. Usage: scripts/build.sh <build-dir> [cmake args...]
# Reuses an existing configuration; parallelism follows DTPLAN_JOBS (default: 2).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/build.sh BUILD_DIR [cmake args...]}
shift
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
fi
cmake --build "$dir" -j "${DTPLAN_JOBS:-2}"
