#!/usr/bin/env bash
# The flake check: the committed HEAD's whole suite, as CI runs it (`CI=true bash .ci/run` in a fresh clone), N
# times in a row (default 3), each with a second whole suite (`./dev.sh test`, another fresh clone) running beside
# it: the load of a busy machine. Any failure in either is a flake to fix at its cause. Prints each round's
# outcome and pytest's summary line of both; the logs stay in the temporary folder it names.
#   bash bench/under_load.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
tmp=$(mktemp -d)
echo "under_load: $rounds rounds of two whole suites side by side, logs in $tmp" >&2
failed=0
for round in $(seq 1 "$rounds"); do
  git clone -q . "$tmp/ci-$round" && git clone -q . "$tmp/beside-$round"
  started=$SECONDS
  (cd "$tmp/beside-$round" && ./dev.sh test >"$tmp/beside-$round.log" 2>&1; echo $? >"$tmp/beside-$round.rc") &
  (cd "$tmp/ci-$round" && CI=true bash .ci/run >"$tmp/ci-$round.log" 2>&1; echo $? >"$tmp/ci-$round.rc")
  wait
  for run in ci beside; do
    rc=$(cat "$tmp/$run-$round.rc")
    [ "$rc" = 0 ] || failed=1
    echo "round $round, $run: exit $rc; $(grep -E '^(=+ )?[0-9]+ (passed|failed)' "$tmp/$run-$round.log" | tail -1)"
  done
  echo "round $round: $((SECONDS - started)) s for both"
  rm -rf "$tmp/ci-$round" "$tmp/beside-$round"  # the clones (and their .venv); the logs stay
done
exit $failed
