#!/usr/bin/env bash
# Runs benchmarks and writes their figures as a Markdown report headed by the date, the machine,
# the compiler and the commit, so that figures quoted in docs/ say where they come from.
# Usage: scripts/bench_report.sh [FILTER] [OUT]   (default: PlanSolver, docs/bench/solver.md)
# DTPLAN_BENCH_BIN names an already built dtplan_bench instead of building build/bench.
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-PlanSolver}
out=${2:-docs/bench/solver.md}
bin=${DTPLAN_BENCH_BIN:-}
if [ -z "$bin" ]; then
  scripts/setup.sh
  scripts/build.sh build/bench -DCMAKE_BUILD_TYPE=Release >&2
  bin=build/bench/tests/dtplan_bench
fi
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$bin" --benchmark_filter="$filter" --benchmark_format=json >"$json"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (uncommitted changes)" || true)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
compiler=$(c++ --version | head -1)
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
python3 - "$json" "$filter" "$commit$dirty" "$cpu" "$(nproc)" "$compiler" >"$tmp" <<'PY'
import json, sys, datetime
path, flt, commit, cpu, cores, compiler = sys.argv[1:]
doc = json.load(open(path))
ctx = doc.get("context", {})
print(f"# Benchmark report: `{flt}`\n")
print("Written by `scripts/bench_report.sh`; do not edit by hand.\n")
print(f"- date: {ctx.get('date', datetime.date.today().isoformat())}")
print(f"- machine: {cpu}, {cores} hardware threads, {ctx.get('host_name', '?')}")
print(f"- compiler: {compiler}; the Google Benchmark library reports its own build as {ctx.get('library_build_type', '?')}")
print(f"- commit: {commit}\n")
keys = []
for b in doc["benchmarks"]:
    for k, v in b.items():
        if k in ("name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
                 "iterations", "real_time", "cpu_time", "time_unit", "family_index",
                 "per_family_instance_index", "aggregate_name", "aggregate_unit", "label"):
            continue
        if isinstance(v, (int, float)) and k not in keys:
            keys.append(k)
print("| benchmark | real time | " + " | ".join(keys) + " |")
print("|---|---:|" + "---:|" * len(keys))
def fmt(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
for b in doc["benchmarks"]:
    t = f"{b['real_time']:.4g} {b['time_unit']}"
    print(f"| {b['name']} | {t} | " + " | ".join(fmt(b[k]) if k in b else "" for k in keys) + " |")
PY
mv "$tmp" "$out"
echo "bench_report: wrote $out" >&2
