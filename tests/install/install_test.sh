#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` into a fresh prefix outside the source tree, then the
# installed binary, run from `/` with no DTPLAN_CONFIG_DIR, finds the shipped configurations by
# name (P/share/dtplan/configs) and plans. Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/dtplan-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/dtplan share/dtplan/configs/models/llama3-8b.json \
  share/dtplan/configs/hardware/h100-dgx.json share/dtplan/configs/meshes/8x8.json; do
  [ -e "$prefix/$f" ] || { echo "install_test: $prefix/$f is missing" >&2; exit 1; }
done
out=$(cd / && env -u DTPLAN_CONFIG_DIR "$prefix/bin/dtplan" plan --model llama3-8b --layers 2 \
  --mesh dp=8,tp=8 --hardware h100-dgx --json)
grep -q '"model": *"llama3-8b"' <<<"$out" || { echo "install_test: no llama3-8b plan" >&2; exit 1; }
grep -q '"hardware": *"h100-dgx"' <<<"$out" || { echo "install_test: no h100-dgx" >&2; exit 1; }
listed=$(cd / && env -u DTPLAN_CONFIG_DIR "$prefix/bin/dtplan" list models)
grep -q '^llama3-70b' <<<"$listed" || { echo "install_test: list models: $listed" >&2; exit 1; }
echo "install_test: installed to $prefix, planned llama3-8b from /"
