#!/usr/bin/env bash
# Runs a documented sweep end to end: LLaMA3-8B (configs/models/llama3-8b.json) on 64 H100 ranks,
# 8 per node, over every 1-, 2- and 3-D mesh shape, each planned with the exact solver and its
# step simulated, ranked by step time then memory against an 80 GiB limit. Writes the table
# (sweep.txt), sweep.csv and sweep.html into OUT_DIR, and sweep.png, a screenshot of
# the HTML report, when Chromium is installed (apt-get install chromium).
#
# Usage: scripts/sweep.sh [OUT_DIR] [more dtplan sweep flags, e.g. --layers 4 --world 128]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/sweep}
shift || true
scripts/setup.sh
scripts/build.sh build/release -DCMAKE_BUILD_TYPE=Release -DDTPLAN_BUILD_TESTS=OFF >&2
mkdir -p "$out"
args=(sweep --model configs/models/llama3-8b.json --world 64 --gpus-per-node 8
      --hardware h100-dgx --dims 1,2,3 --memory-limit 80GiB "$@")
echo "# dtplan ${args[*]}" >&2
build/release/apps/dtplan "${args[@]}" --csv "$out/sweep.csv" --html "$out/sweep.html" \
  | tee "$out/sweep.txt"
for browser in chromium chromium-browser google-chrome; do
  if command -v "$browser" >/dev/null 2>&1; then
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
      --screenshot="$PWD/$out/sweep.png" --window-size=1100,2200 \
      "file://$PWD/$out/sweep.html" >/dev/null 2>&1 && echo "# screenshot: $out/sweep.png" >&2
    break
  fi
done
echo "# report: $out/sweep.html, $out/sweep.csv, $out/sweep.txt" >&2
