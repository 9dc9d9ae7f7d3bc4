#!/usr/bin/env bash
# Every C++ source of the repository is clang-formatted (the repository's .clang-format: Google
# base, 100 columns). Prints each file that is not and exits 1; skips (77) without clang-format.
# Usage: format_test.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: format_test.sh SOURCE_DIR}
cd "$src"
command -v clang-format >/dev/null || {
  echo "format_test: clang-format is not installed (scripts/setup.sh installs it); skipped"
  exit 77
}
mapfile -t files < <(find apps lib tests -name '*.cc' -o -name '*.h' | LC_ALL=C sort)
report=$(clang-format --dry-run -Werror "${files[@]}" 2>&1) && {
  echo "format_test: ${#files[@]} files formatted"
  exit 0
}
grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$report" | cut -d: -f1 | LC_ALL=C sort -u |
  sed 's/^/format_test: not clang-formatted (clang-format -i FILE): /'
exit 1
