#!/usr/bin/env bash
# dtplan sweep over processes and resumed (docs/sweep.md "Many processes", "Resuming"):
#   sweep_processes_test.sh DTPLAN SOURCE_DIR mpi MPIRUN NP_FLAG NP...   every NP writes the bytes
#                                                                      one process writes
#   sweep_processes_test.sh DTPLAN SOURCE_DIR resume                    a resumed sweep is identical
#                                                                      and recomputes only what is
#                                                                      missing
#   sweep_processes_test.sh DTPLAN SOURCE_DIR failed [MPIRUN NP_FLAG]   a point that fails is a row
#                                                                      of its own; exit 3
set -uo pipefail
dt=${1:?usage: sweep_processes_test.sh DTPLAN SOURCE_DIR mpi|resume|failed ...}
src=${2:?}
mode=${3:?}
shift 3
tmp=$(mktemp -d /tmp/dtplan_sweep_processes_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
sweep=("$dt" sweep --model "$src/tests/data/fx_export_sample.json" --world 16 --gpus-per-node 8
       --dims 1,2,3 --cp 1,2 --threads 1 --quiet)
fail() { echo "FAIL: $*" >&2; exit 1; }

# run NAME [LAUNCHER...]: the text report with --csv, --html and --plans, and --json, into $tmp/NAME.*
run() {
  local name=$1
  shift
  "$@" "${sweep[@]}" --csv "$tmp/$name.csv" --html "$tmp/$name.html" --plans "$tmp/$name.plans" \
    > "$tmp/$name.txt" 2> "$tmp/$name.err" || fail "$name: exit $? $(cat "$tmp/$name.err")"
  "$@" "${sweep[@]}" --json > "$tmp/$name.json" 2>> "$tmp/$name.err" || fail "$name --json: exit $?"
  [ -s "$tmp/$name.err" ] && fail "$name: stderr: $(cat "$tmp/$name.err")"
  # The page links to the plans by a path relative to it: the same for every run once renamed.
  sed -i "s/$name\.plans/PLANS/g" "$tmp/$name.html" "$tmp/$name.txt"
}

same() {  # same A B: every report of run A equals run B's, byte for byte
  for ext in txt json csv html; do
    cmp -s "$tmp/$1.$ext" "$tmp/$2.$ext" || fail "$2.$ext differs from $1.$ext: $(diff "$tmp/$1.$ext" "$tmp/$2.$ext" | head -5)"
  done
  [ "$(ls "$tmp/$1.plans")" = "$(ls "$tmp/$2.plans")" ] || fail "$2: other plan files than $1"
}

case $mode in
  mpi)
    mpirun=${1:?} np_flag=${2:?}
    shift 2
    run one
    for np in "$@"; do
      run "np$np" "$mpirun" "$np_flag" "$np"
      same one "np$np"
    done
    ;;
  resume)
    "${sweep[@]}" --json > "$tmp/plain.json" || fail "plain sweep"
    "${sweep[@]}" --json --resume "$tmp/r" > "$tmp/first.json" 2> "$tmp/first.err" || fail "first"
    cmp -s "$tmp/plain.json" "$tmp/first.json" || fail "--resume changed the report"
    grep -qx "# resumed 0 of 8 points from $tmp/r" "$tmp/first.err" || fail "first: $(cat "$tmp/first.err")"
    [ "$(ls "$tmp/r/points" | wc -l)" = 8 ] || fail "points recorded: $(ls "$tmp/r/points")"
    rm "$tmp/r/points/16_dp_shard.json" "$tmp/r/points/2x2x4_dp_shard-cp-tp.json"
    # Only the deleted points are planned again: --plans receives theirs alone.
    "${sweep[@]}" --json --resume "$tmp/r" --plans "$tmp/again.plans" > "$tmp/again.json" \
      2> "$tmp/again.err" || fail "resumed: $(cat "$tmp/again.err")"
    cmp -s "$tmp/plain.json" "$tmp/again.json" || fail "the resumed report differs"
    grep -qx "# resumed 6 of 8 points from $tmp/r" "$tmp/again.err" || fail "again: $(cat "$tmp/again.err")"
    [ "$(ls "$tmp/again.plans" | tr '\n' ' ')" = "16_dp_shard.json 2x2x4_dp_shard-cp-tp.json " ] ||
      fail "recomputed: $(ls "$tmp/again.plans")"
    [ "$(ls "$tmp/r/points" | wc -l)" = 8 ] || fail "not recorded again"
    # A different sweep in the same directory: refused, naming what differs.
    "${sweep[@]}" --json --resume "$tmp/r" --gap 0 > /dev/null 2> "$tmp/other.err"
    code=$?
    [ $code = 2 ] || fail "other sweep: exit $code"
    grep -qx "dtplan sweep: error: --resume $tmp/r: recorded for a different sweep (--gap)" \
      "$tmp/other.err" || fail "other: $(cat "$tmp/other.err")"
    ;;
  failed)
    "${sweep[@]}" --json > "$tmp/plain.json" || fail "plain sweep"
    mkdir -p "$tmp/plans/16_dp_shard.json"  # a directory where the plan of mesh 16 goes: its write fails
    "$@" "${sweep[@]}" --json --csv "$tmp/f.csv" --plans "$tmp/plans" > "$tmp/f.json" 2> "$tmp/f.err"
    code=$?
    [ $code = 3 ] || fail "exit $code, stderr: $(cat "$tmp/f.err")"
    # One line from dtplan (under mpirun, from rank 0 alone; mpirun adds its own note).
    [ "$(grep -c '^dtplan' "$tmp/f.err")" = 1 ] || fail "stderr: $(cat "$tmp/f.err")"
    grep -q "^dtplan sweep: error: 1 of 8 points failed; first: mesh 16 (dp_shard): --plans $tmp/plans/16_dp_shard.json: " \
      "$tmp/f.err" || fail "stderr: $(cat "$tmp/f.err")"
    python3 - "$tmp/plain.json" "$tmp/f.json" "$tmp/f.csv" <<'PY' || fail "reports"
import csv, json, sys
plain, failed = (json.load(open(p)) for p in sys.argv[1:3])
rows = failed["results"]
assert len(rows) == 8, len(rows)
last = rows[-1]
assert last["shape"] == [16] and last["feasible"] is False and "is a directory" in last["error"], last
strip = lambda r: {k: v for k, v in r.items() if k != "rank"}
others = [strip(r) for r in plain["results"] if r["shape"] != [16]]
assert [strip(r) for r in rows[:-1]] == others, "the other points changed"
lines = list(csv.reader(open(sys.argv[3])))
assert lines[-1][1] == "16" and lines[-1][-1].startswith("error: --plans"), lines[-1]
PY
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "sweep_processes_test $mode: ok"
