#!/usr/bin/env bash
# Builds the Release benchmark binary and runs it. Usage: scripts/bench.sh [FILTER] [benchmark args]
# FILTER is a benchmark name regex (e.g. "mesh" runs BM_Mesh*); figures are printed as ratios
# against the baseline benchmark of the same run where one exists.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build/bench -DCMAKE_BUILD_TYPE=Release >&2
filter=${1:-.}
shift || true
exec build/bench/tests/dtplan_bench --benchmark_filter="$filter" "$@"
