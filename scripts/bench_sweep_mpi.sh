#!/usr/bin/env bash
# The same sweep on one process and on `mpirun -np 2`, one thread each: both wall times and the
# ratio (docs/sweep.md "Many processes"; goal: at least 1.7x on 2 cores). The two reports must be
# identical. Usage: scripts/bench_sweep_mpi.sh [BUILD_DIR] [sweep flags...]
# (default: build/release, and a LLaMA3-tiny sweep of 64 ranks over 1-3 dims).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
shift || true
dt=$build/apps/dtplan
[ -x "$dt" ] || { echo "bench_sweep_mpi.sh: no $dt (build first: scripts/build.sh $build)" >&2; exit 2; }
if [ $# -eq 0 ]; then
  set -- --model configs/models/llama3-tiny.json --world 64 --gpus-per-node 8 --dims 1,2,3
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seconds() { python3 -c 'import time; print(f"{time.monotonic():.3f}")'; }
t0=$(seconds)
"$dt" sweep "$@" --threads 1 --json --quiet > "$tmp/one.json"
t1=$(seconds)
mpirun -np 2 "$dt" sweep "$@" --threads 1 --json --quiet > "$tmp/two.json"
t2=$(seconds)
cmp -s "$tmp/one.json" "$tmp/two.json" || { echo "bench_sweep_mpi.sh: the reports differ" >&2; exit 1; }
python3 - "$t0" "$t1" "$t2" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["candidates"])' "$tmp/one.json")" <<'PY'
import sys
t0, t1, t2, n = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
one, two = t1 - t0, t2 - t1
print(f"points: {n}")
print(f"1 process, --threads 1:           {one:.2f} s")
print(f"mpirun -np 2, --threads 1 each:   {two:.2f} s")
print(f"speedup: {one / two:.2f}x")
PY
