#!/usr/bin/env bash
# Every JSON document dtplan reads or writes, checked against its JSON Schema in docs/schemas/
# (docs/formats.md): the shipped configs and scenarios as they are, and the documents the built
# dtplan writes for a set of commands; then a few broken documents that the schemas must reject,
# so that the check can fail. Skips (exit 77) where python3-jsonschema is missing.
# Usage: schema_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?usage: schema_test.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: schema_test.sh SOURCE_DIR BUILD_DIR}
dtplan="$build/apps/dtplan"
# Debian's python3 first: scripts/setup.sh installs python3-jsonschema for it.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
validate=("$py" "$src/tests/schemas/validate.py" "$src/docs/schemas")
"$py" -c 'import jsonschema' 2>/dev/null || {
  echo "schema_test: python3-jsonschema is not installed (scripts/setup.sh installs it); skipped"
  exit 77
}
out=$(mktemp -d "${TMPDIR:-/tmp}/dtplan-schema.XXXXXX")
trap 'rm -rf "$out"' EXIT
cd "$src"
export DTPLAN_CONFIG_DIR="$src/configs"

# Inputs that ship.
pairs=()
for f in configs/models/*.json; do pairs+=("model=$f"); done
pairs+=("fx_model=tests/data/fx_export_sample.json")
for f in configs/meshes/*.json; do pairs+=("mesh_file=$f"); done
for f in configs/hardware/*.json; do pairs+=("hardware=$f"); done
for f in scenarios/*.json scenarios/multi-run/*.json; do pairs+=("scenario=$f"); done

# Documents dtplan writes.
run() { local name=$1; shift; "$dtplan" "$@" >"$out/$name.json"; pairs+=("${name%%.*}=$out/$name.json"); }
run mesh.shape mesh --shape 2,4 --names dp,tp --json
run mesh.all mesh --shape 2,4 --names dp,tp --flatten dp,tp --slice tp --unflatten tp=2,2:a,b --json
run redistribution_plan.merged redistribute --mesh 2,2,2 --names A,B,C --flatten A,C \
  --shape 16,16,16 --from 'P(sum),R,P(sum)' --to R,R,R --json
run redistribution_plan.verified redistribute --mesh 8,5 --names ddp,fsdp --shape 4096 \
  --from 'P(sum),P(sum)' --to R,R --verify --json
run redistribution_plan.strided redistribute --mesh 2,2 --names dp,tp --shape 8,8 \
  --from '_S(0,2),S(0)' --to R,R --planner min-cost --json
run plan.json plan --model llama3-tiny --mesh 2x2 --solver greedy --json
"$dtplan" plan --model llama3-tiny --mesh dp_shard=2,tp=2 --parallelize torchtitan --compile \
  --async-tp --out "$out/tt.json" >/dev/null
"$dtplan" plan --model llama3-tiny --mesh dp_shard=4 --parallelize torchtitan --checkpoint full \
  --memory-limit 1GiB --out "$out/fsdp.json" >/dev/null
"$dtplan" plan --model tests/data/fx_export_sample.json --mesh 2x2 --out "$out/fx.json" >/dev/null
pairs+=("plan=$out/tt.json" "plan=$out/fsdp.json" "plan=$out/fx.json")
run simulate.model simulate --plan "$out/tt.json" --trace "$out/trace.json" \
  --html "$out/step.html" --json
run explain.einsum explain --plan "$out/tt.json" --op layers.0.attention.wq.einsum --json
run explain.weight explain --plan "$out/fx.json" --op layers.0.fc.weight \
  --model tests/data/fx_export_sample.json --json
pairs+=("trace=$out/trace.json")
run simulate.redistribution simulate --plan "$out/redistribution_plan.verified.json" --data --json
run compare.two compare "$out/fsdp.json" "$out/tt.json" --json
run sweep.small sweep --model tests/data/fx_export_sample.json --world 8 --dims 1,2 --json
"$dtplan" sweep --model tests/data/fx_export_sample.json --world 8 --dims 1,2 --json \
  --resume "$out/resume" >/dev/null 2>&1
pairs+=("sweep_resume_fingerprint=$out/resume/fingerprint.json")
for f in "$out"/resume/points/*.json; do pairs+=("sweep_resume_point=$f"); done
# A failed point (its plan file cannot be written): a row with "error", exit 3.
mkdir -p "$out/failed/8_dp_shard.json"
code=0
"$dtplan" sweep --model tests/data/fx_export_sample.json --world 8 --dims 1,2 --json \
  --plans "$out/failed" >"$out/sweep.failed.json" 2>/dev/null || code=$?
[ "$code" = 3 ] || { echo "schema_test: the failing sweep exited $code, not 3"; exit 1; }
pairs+=("sweep=$out/sweep.failed.json")
run replay.model replay --plan "$out/fx.json" --backend fake --iters 2 --warmup 1 --json
run replay.redistribution replay --plan "$out/redistribution_plan.merged.json" --backend fake \
  --iters 2 --warmup 1 --json
run cost.ranks cost --collective all_reduce --ranks 16 --sizes 1KiB:1MiB:x32 --json
run cost.group cost --collective all_gather --group 0,8,16,24 --json
"$dtplan" calibrate --nccl-tests tests/data/nccl-tests/all_gather_perf_2x8_h100.log \
  --replay "$out/replay.redistribution.json" --name lab --out "$out/lab.json" --json \
  >"$out/calibrate.json"
pairs+=("calibrate=$out/calibrate.json" "hardware=$out/lab.json")
for what in models meshes hardware; do run "list.$what" list "$what" --json; done

"${validate[@]}" "${pairs[@]}"

# Broken documents: a field removed, a field added, a type changed.
"$py" - "$out" <<'PY'
import json, sys
d = sys.argv[1]
plan = json.load(open(f"{d}/tt.json"))
del plan["memory"]
json.dump(plan, open(f"{d}/bad_plan_missing.json", "w"))
sim = json.load(open(f"{d}/simulate.model.json"))
sim["unexpected"] = 1
json.dump(sim, open(f"{d}/bad_simulate_extra.json", "w"))
cost = json.load(open(f"{d}/cost.ranks.json"))
cost["rows"][0]["time_us"] = "fast"
json.dump(cost, open(f"{d}/bad_cost_type.json", "w"))
PY
"${validate[@]}" --expect-invalid "plan=$out/bad_plan_missing.json" \
  "simulate=$out/bad_simulate_extra.json" "cost=$out/bad_cost_type.json"
echo "schema_test: ${#pairs[@]} documents valid, 3 broken ones rejected"
