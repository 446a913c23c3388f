#!/usr/bin/env bash
# Issue 42's import figures (BENCHMARKS.md "Import"):
#   speed   a 50 MB HAR of a long API session (scripts/generate-har.py): time (hyperfine) and peak memory
#           (/usr/bin/time) of `reqplan import har`; the goal is under 2 s and 300 MB.
#   share   the share of dynamic values (ids, tokens, cookies a response gave and a later request sent) turned
#           into references, over the HAR corpus (Tests/Fixtures/import/har) and a generated 2 MB session
#           (scripts/import-literal-share.py says how a value is counted).
# Usage: R=.build/release/reqplan scripts/bench-import.sh [speed|share]...   Needs hyperfine (Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
R=$(realpath "${R:-.build/release/reqplan}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

speed() {
  python3 scripts/generate-har.py 50 > "$WORK/session.har"
  echo "== speed: $(du -m "$WORK/session.har" | cut -f1) MB, $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['log']['entries']))" "$WORK/session.har") entries"
  hyperfine --warmup 1 --runs 5 --style basic "$R import har $WORK/session.har -o $WORK/plan.yaml"
  /usr/bin/time -f "peak memory %M KB, %e s wall, %U s user, %S s system" "$R" import har "$WORK/session.har" -o "$WORK/plan.yaml"
  echo "plan: $(wc -c < "$WORK/plan.yaml") bytes, $(grep -c 'data flow:' "$WORK/plan.yaml") data-flow links"
}

share() {
  python3 scripts/generate-har.py 2 > "$WORK/session-2mb.har"
  echo "== share of dynamic values referenced"
  python3 scripts/import-literal-share.py "$R" Tests/Fixtures/import/har/*.har "$WORK/session-2mb.har"
}

for section in "${@:-speed share}"; do
  for name in $section; do "$name"; done
done
