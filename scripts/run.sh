#!/usr/bin/env bash
# Installs what is missing, builds dtplan (Release) and runs the main job on a built-in default.
# Extra arguments replace the default job: scripts/run.sh mesh --shape 4,4 --names dp,tp
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build/release -DCMAKE_BUILD_TYPE=Release -DDTPLAN_BUILD_TESTS=OFF >&2
if [ $# -gt 0 ]; then
  exec build/release/apps/dtplan "$@"
fi
exec build/release/apps/dtplan mesh --shape 2,2,2 --names dp,cp,tp --flatten dp,tp --flatten dp,cp
