#!/bin/bash
# Plain `swift test`, as the README says, several times in a row on a fresh clone while the machine is loaded:
# `stress-ng --cpu N` (one hog per core by default) runs for the whole loop. Prints a line per run and exits 1
# if any failed. The logs are kept in the work folder.
#
#   scripts/loaded-test-runs.sh [RUNS] [WORK]     (defaults: 10 runs, a new temporary folder)
#
# Needs git, stress-ng (Debian: apt-get install stress-ng) and what the tests need (`.ci/run` installs it).
set -uo pipefail
RUNS=${1:-10}
WORK=${2:-$(mktemp -d)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
git clone -q "$ROOT" "$WORK/clone" || exit 2
cd "$WORK/clone" || exit 2
echo "commit $(git rev-parse --short HEAD); building the tests (not timed, not loaded)"
swift build --build-tests > "$WORK/build.log" 2>&1 || { echo "the build failed: $WORK/build.log"; exit 2; }
stress-ng --cpu "$(nproc)" --timeout 7200s > /dev/null 2>&1 &
STRESS=$!
trap 'kill $STRESS 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$RUNS"); do
  start=$(date +%s)
  swift test > "$WORK/run-$i.log" 2>&1
  status=$?
  [ $status -eq 0 ] || failed=1
  echo "run $i: exit $status, $(( $(date +%s) - start )) s: $(grep -E 'Test run with' "$WORK/run-$i.log" | tail -1 | cut -c1-100)"
done
echo "logs in $WORK"
exit $failed
