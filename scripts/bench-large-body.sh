#!/usr/bin/env bash
# Peak memory of a run that fetches one large response body (BENCHMARKS.md, "Large response bodies"):
# a body nothing reads (only its first 64 KiB kept) and one an output reads (kept whole, once).
#
#   swift build -c release --product reqplan
#   scripts/bench-large-body.sh [.build/release/reqplan] [MEGABYTES]
#
# Needs GNU time (/usr/bin/time, apt-get install time). The body comes from the demo API's `/huge`.
set -euo pipefail
cd "$(dirname "$0")/.."
R=$(readlink -f "${1:-.build/release/reqplan}")
MB=${2:-200}
WORK=$(mktemp -d)
trap 'kill "$DEMO" 2>/dev/null; rm -rf "$WORK"' EXIT

"$R" demo --serve 0 >"$WORK/demo.log" 2>&1 &
DEMO=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$WORK/demo.log" && break; sleep 0.1; done
BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$WORK/demo.log" | head -n 1)

cat >"$WORK/unread.yaml" <<YAML
reqplan: 1
steps:
  download: { request: { url: "$BASE/huge?mb=$MB" } }
YAML
cat >"$WORK/read.yaml" <<YAML
reqplan: 1
steps:
  download: { request: { url: "$BASE/huge?mb=$MB" } }
outputs:
  length: \${{ length(steps.download.body) }}
YAML
LIMIT=$(((MB + 1) << 20))
for plan in unread read; do
    echo "== $MB MB, body $plan (three runs: seconds, peak KB)"
    for _ in 1 2 3; do
        /usr/bin/time -f "%e s %M KB" "$R" run "$WORK/$plan.yaml" --max-response-size "$LIMIT" --quiet >/dev/null
    done
done
