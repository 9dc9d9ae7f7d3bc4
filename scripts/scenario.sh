#!/usr/bin/env bash
# Runs one scenario (scenarios/README.md) by hand: prints its description and command, then runs
# the command with the Release build. Usage: scripts/scenario.sh scenarios/NAME.json
# (the test suite checks the expectations: build/dev/tests/dtplan_tests -tc='scenarios*').
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: scripts/scenario.sh scenarios/NAME.json}
command -v jq >/dev/null || { echo "scenario.sh: needs jq (apt-get install jq)" >&2; exit 2; }
scripts/build.sh build/release -DCMAKE_BUILD_TYPE=Release -DDTPLAN_BUILD_TESTS=OFF >&2
jq -r '"# " + .name + ": " + .description' "$file" >&2
args=$(jq -r '.args | @sh' "$file")
json=$(jq -r 'if .json == false then "" else "--json" end' "$file")
echo "# dtplan $args $json" >&2
eval "exec build/release/apps/dtplan $args $json"
