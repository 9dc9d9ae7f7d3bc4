#!/usr/bin/env bash
# Installs what is missing, builds dtplan with AddressSanitizer and UBSan (Debug at -O1, for
# speed; docs/development.md) and runs every test, two ctest entries at a time
# (tests/CMakeLists.txt shards the suite), then fuzzes every parser and loader for a bounded time
# (scripts/fuzz.sh: 15 s per target, DTPLAN_FUZZ_SECONDS to change, 0 to skip; skipped without
# clang++), with a fixed mutation seed (DTPLAN_FUZZ_SEED, default 1) so that a red run
# reproduces; scripts/fuzz.sh alone explores. Extra arguments go to the doctest binary instead,
# e.g. scripts/test.sh -tc='*mesh*'.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
dir=build/test
scripts/build.sh "$dir" -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" -DDTPLAN_SANITIZE=ON -DDTPLAN_BUILD_BENCH=OFF
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ $# -gt 0 ]; then
  exec "$dir/tests/dtplan_tests" "$@"
fi
ctest --test-dir "$dir" --output-on-failure -j2
DTPLAN_FUZZ_SEED=${DTPLAN_FUZZ_SEED:-1} scripts/fuzz.sh
