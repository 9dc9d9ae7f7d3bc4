#!/usr/bin/env bash
# Runs N random verified redistributions through the dtplan executable, every planner with merging
# on and off, and checks their generic properties (tests/soak/soak_main.cc lists them); prints
# "soak: N cases, X verified, Y refused (exit 2/3), F failures" and each failing command line.
# Deterministic from SEED (default 1). Usage: scripts/soak.sh N [SEED]
# Builds dtplan and the soak driver in build/rel (Release) first; DTPLAN_BIN=PATH soaks that
# dtplan instead (the driver is still built here unless DTPLAN_SOAK=PATH names one).
# DTPLAN_SOAK_JOBS sets the number of workers (default: the CPU count).
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:?usage: scripts/soak.sh N [SEED]}
seed=${2:-1}
dir=build/rel
targets=()
[ -z "${DTPLAN_BIN:-}" ] && targets+=(dtplan)
[ -z "${DTPLAN_SOAK:-}" ] && targets+=(dtplan_soak)
if [ ${#targets[@]} -gt 0 ]; then
  scripts/setup.sh
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDTPLAN_BUILD_BENCH=OFF >/dev/null
  fi
  cmake --build "$dir" -j "${DTPLAN_JOBS:-2}" --target "${targets[@]}" >&2
fi
exec "${DTPLAN_SOAK:-$dir/tests/dtplan_soak}" --dtplan "${DTPLAN_BIN:-$dir/apps/dtplan}" \
  --cases "$cases" --seed "$seed" --jobs "${DTPLAN_SOAK_JOBS:-$(nproc)}"
