#!/usr/bin/env bash
# The HTML pages in a real browser: headless Chromium loads the page of `dtplan simulate --html`
# and of `dtplan sweep --html`, each with a small probe script appended (a copy; the pages
# themselves have no script) that records errors and counts what the browser's DOM holds:
#   simulate: the task rectangles' data-n add up to the timeline's tasks (simulate --json), the
#             outlined ones' data-critical to its critical path, the chart laid out with a width;
#   sweep:    one scatter point per feasible mesh, the usable ones one per plan file (--plans),
#             a Pareto line, and the links to the plan files.
# No console error may appear (Chromium's log on stderr). Exit 77 (ctest: skipped) when no
# Chromium is installed. Usage: browser_test.sh DTPLAN_EXE   (run from the source root)
set -euo pipefail
dt=${1:?usage: browser_test.sh DTPLAN_EXE}

browser=""
for name in chromium chromium-browser google-chrome; do
  if command -v "$name" >/dev/null 2>&1; then browser=$name; break; fi
done
if [ -z "$browser" ]; then
  echo "browser test skipped: no Chromium installed (apt-get install chromium)"
  exit 77
fi

tmp=$(mktemp -d /tmp/dtplan_browser.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "browser test FAILED: $*" >&2; exit 1; }

# The probe: errors and element counts as attributes of <body>, read back from --dump-dom.
probe='<script>
var errors = 0;
window.addEventListener("error", function () { errors++; });
window.addEventListener("load", function () {
  var q = function (s) { return document.querySelectorAll(s); };
  var n = 0, c = 0;
  q("#timeline-chart rect.task").forEach(function (r) {
    n += Number(r.getAttribute("data-n"));
    c += r.classList.contains("critical") ? Number(r.getAttribute("data-critical")) : 0;
  });
  var chart = document.querySelector("svg");
  var b = document.body;
  b.setAttribute("data-probe-tasks", n);
  b.setAttribute("data-probe-critical", c);
  b.setAttribute("data-probe-points", q("#pareto-chart circle.point").length);
  b.setAttribute("data-probe-usable", q("#pareto-chart circle.usable").length);
  b.setAttribute("data-probe-links", q("#pareto-chart a circle").length);
  b.setAttribute("data-probe-front", q("#pareto-chart polyline.front").length);
  b.setAttribute("data-probe-svg", chart.namespaceURI === "http://www.w3.org/2000/svg" ? 1 : 0);
  b.setAttribute("data-probe-width", Math.round(chart.getBoundingClientRect().width));
  b.setAttribute("data-probe-errors", errors);
});
</script>'
probe_line=$(printf '%s' "$probe" | tr '\n' ' ')  # awk -v takes one line

# render PAGE: loads a probed copy of PAGE; leaves its DOM in $tmp/dom and Chromium's log in
# $tmp/log.
render() {
  local page=$1 copy="$tmp/probed.html"
  awk -v probe="$probe_line" '{ i = index($0, "</body></html>")
    if (i > 0) $0 = substr($0, 1, i - 1) probe substr($0, i)
    print }' "$page" > "$copy"
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 --virtual-time-budget=2000 \
    --dump-dom "file://$copy" > "$tmp/dom" 2> "$tmp/log" || fail "$browser exited $? on $page"
  if grep -E ":CONSOLE|Uncaught" "$tmp/log"; then fail "console errors on $page"; fi
}
# dom_value NAME: the value of data-probe-NAME in the DOM.
dom_value() {
  local v
  v=$(grep -o "data-probe-$1=\"[0-9]*\"" "$tmp/dom" | head -1 | sed 's/.*="\([0-9]*\)"/\1/')
  [ -n "$v" ] || fail "the probe did not run (no data-probe-$1 in the DOM)"
  echo "$v"
}
expect() {  # expect WHAT GOT WANT
  [ "$2" = "$3" ] || fail "$1: $2 in the browser's DOM, expected $3"
  echo "ok: $1 = $2"
}

# ---- simulate --html ----
"$dt" plan --model configs/models/llama3-tiny.json --mesh configs/meshes/2x2.json --threads 1 \
  --out "$tmp/plan.json" > /dev/null
"$dt" simulate --plan "$tmp/plan.json" --html "$tmp/sim.html" --json > "$tmp/sim.json"
tasks=$(grep -o '"tasks": [0-9]*' "$tmp/sim.json" | head -1 | grep -o '[0-9]*$')
critical=$(grep -c '"binding":' "$tmp/sim.json" || true)
[ -n "$tasks" ] && [ "$tasks" -gt 0 ] || fail "no task count in simulate --json"
render "$tmp/sim.html"
expect "simulate: tasks drawn" "$(dom_value tasks)" "$tasks"
expect "simulate: critical-path tasks" "$(dom_value critical)" "$critical"
expect "simulate: svg namespace" "$(dom_value svg)" 1
expect "simulate: script errors" "$(dom_value errors)" 0
[ "$(dom_value width)" -gt 500 ] || fail "simulate: the timeline chart is $(dom_value width) px wide"

# ---- sweep --html with --plans ----
"$dt" sweep --model tests/data/fx_export_sample.json --world 8 --gpus-per-node 8 --dims 1,2 \
  --threads 1 --html "$tmp/sweep.html" --plans "$tmp/plans" --json > "$tmp/sweep.json"
feasible=$(grep -c '"feasible": true' "$tmp/sweep.json" || true)
usable=$(find "$tmp/plans" -name '*.json' | wc -l | tr -d ' ')
[ "$usable" -gt 0 ] || fail "sweep --plans wrote no plan"
render "$tmp/sweep.html"
expect "sweep: scatter points" "$(dom_value points)" "$feasible"
expect "sweep: usable points" "$(dom_value usable)" "$usable"
expect "sweep: linked points" "$(dom_value links)" "$usable"
expect "sweep: Pareto lines" "$(dom_value front)" 1
expect "sweep: script errors" "$(dom_value errors)" 0
echo "browser test passed ($browser)"
