#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) in build/fuzz and runs each for
# a bounded time, starting from its seed corpus and regression inputs. Skipped (exit 0) when no
# clang++ is installed.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]    # default 15 s, every target
#   DTPLAN_FUZZ_SECONDS=60 scripts/fuzz.sh mesh model
#   DTPLAN_FUZZ_SEED=1 scripts/fuzz.sh                   # fixed mutation sequence (CI: see test.sh)
#
# Without DTPLAN_FUZZ_SEED every run explores new inputs (libFuzzer picks a seed). With it, and an
# empty build/fuzz/corpus, the inputs tried are the same sequence on every machine, so a run cut
# short by the time limit tries a prefix of a longer run with the same seed: CI's fuzz step is
# reproducible, and a local run with that seed for longer covers it.
#
# A crash, sanitizer report or failed property stops the run (exit 1) and leaves the input under
# build/fuzz/crashes/<target>/; turn it into a regression (tests/fuzz/README.md). New inputs that
# reach new code go to build/fuzz/corpus/<target>/ (kept between runs, not checked in).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${DTPLAN_FUZZ_SECONDS:-15}
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
if [ "$seconds" -eq 0 ]; then
  echo "fuzz: skipped (0 seconds per target)" >&2
  exit 0
fi
cxx=$(command -v clang++ || command -v clang++-14 || true)
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' >"$probe/p.cc"
if [ -z "$cxx" ] || ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" 2>/dev/null
then
  echo "fuzz: no clang++ with libFuzzer found; the fuzz targets are skipped" >&2
  exit 0
fi
dir=build/fuzz
scripts/build.sh "$dir" -DDTPLAN_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$dir"/tests/fuzz/dtplan_fuzz_*; do targets+=("${exe##*/dtplan_fuzz_}"); done
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in "${targets[@]}"; do
  exe=$dir/tests/fuzz/dtplan_fuzz_$t
  [ -x "$exe" ] || { echo "fuzz: no target '$t'" >&2; exit 2; }
  work=$dir/corpus/$t
  mkdir -p "$work" "$dir/crashes/$t"
  seeds=(tests/fuzz/corpus/"$t")
  [ -d tests/fuzz/regressions/"$t" ] && seeds+=(tests/fuzz/regressions/"$t")
  log=$dir/crashes/$t/last.log
  # -timeout: a single input taking 10 s is a hang; -rss_limit_mb/-malloc_limit_mb: an input
  # that makes the library allocate gigabytes is a bug (the CLI would run out of memory).
  seed_arg=()
  [ -n "${DTPLAN_FUZZ_SEED:-}" ] && seed_arg=(-seed="$DTPLAN_FUZZ_SEED")
  if ! "$exe" "${seed_arg[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
      -artifact_prefix="$dir/crashes/$t/" -print_final_stats=1 "$work" "${seeds[@]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz $t: FAILED; the input is in $dir/crashes/$t/ (log: $log)" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  corpus=$(find "$work" -type f | wc -l)
  echo "fuzz $t: $runs inputs in ${seconds}s ($rate exec/s), corpus $corpus, no crash"
done
