#!/usr/bin/env bash
# Checks dtplan's compute model on this machine's GPU 0, against dtplan's own predictions for it:
#  1. dtplan replay --compute --no-verify (verifying every tensor of an 8B model on the host takes
#     minutes): the GEMMs of a pinned LLaMA3-8B plan (4 layers, local batch 2,
#     seq 8192, one rank) timed with cuBLAS, each against its predicted time;
#  2. scripts/gpu/llama3_step.py: the same model's forward and backward in PyTorch, eager and
#     compiled, against `dtplan simulate` of the same plan.
# Needs dtplan built with the NCCL backend (CUDA found at configure time) and PyTorch with CUDA.
# Usage: scripts/gpu_check.sh OUTDIR [HARDWARE]   (HARDWARE: a profile name, default h200-dgx)
# DTPLAN names the binary (default build/release/apps/dtplan).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu_check.sh OUTDIR [HARDWARE]}
hw=${2:-h200-dgx}
dtplan=${DTPLAN:-build/release/apps/dtplan}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,power.limit,driver_version --format=csv \
  >"$out/gpu.csv"
cat "$out/gpu.csv"
common=(--model llama3-8b --layers 4 --mesh dp_shard=1 --batch 2 --checkpoint none
  --parallelize torchtitan --hardware "$hw")
for mode in eager compiled; do
  flag=--no-compile
  [ "$mode" = compiled ] && flag=--compile
  "$dtplan" plan "${common[@]}" "$flag" --out "$out/plan-$mode.json" >/dev/null || exit 1
  "$dtplan" simulate --plan "$out/plan-$mode.json" --json >"$out/simulate-$mode.json" || exit 1
  python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["timeline"]
print(sys.argv[2], "predicted step", round(t["step_time_us"] / 1e3, 3), "ms")' \
    "$out/simulate-$mode.json" "$mode"
done
"$dtplan" replay --plan "$out/plan-eager.json" --backend nccl --compute --no-verify \
  --out "$out/replay.json" \
  | tee "$out/replay.txt"
for mode in eager compiled; do
  flag=
  [ "$mode" = compiled ] && flag=--compile
  timeout 240 python3 scripts/gpu/llama3_step.py --layers 4 --batch 2 --seq-len 8192 $flag \
    >"$out/torch-$mode.json"
  grep -E '"step_ms_median"|"peak_allocated_bytes"' "$out/torch-$mode.json"
done
