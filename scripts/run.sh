#!/usr/bin/env bash
# Installs what is missing, builds dtplan (Release) and runs the main job on a built-in default:
# the exact-solver plan of LLaMA3-8B (32 layers) on the 8x8 H100 mesh.
# Extra arguments replace the default job: scripts/run.sh mesh --shape 4,4 --names dp,tp
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build/release -DCMAKE_BUILD_TYPE=Release -DDTPLAN_BUILD_TESTS=OFF >&2
if [ $# -gt 0 ]; then
  exec build/release/apps/dtplan "$@"
fi
exec build/release/apps/dtplan plan --model configs/models/llama3-8b.json \
  --mesh configs/meshes/8x8.json --solver exact
