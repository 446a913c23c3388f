#!/usr/bin/env bash
# The floor of a small run's fixed cost on reqplan's stack (BENCHMARKS.md, "Fixed cost of a small run"): builds
# the programs of Benchmarks/FixedCostFloor statically (as the Install section builds reqplan), prints each one's
# size as built and stripped, and times them with hyperfine beside curl and reqplan. Each program does a part of
# what `reqplan run` of a one-request plan does, with nothing of reqplan in it: print a line; read the plan with
# Yams; decode an OpenAPI description with OpenAPIKit; fetch the URL with SwiftNIO; read the plan and fetch its
# URL (with `Yams.load`, and from libyaml's events as reqplan reads a plan). Needs hyperfine, curl, strip and a
# server at URL.
#
#   scripts/fixed-cost-floor.sh REQPLAN URL
#   (e.g. .build-static/release/reqplan, and nginx from scripts/bench-nginx-server.sh:
#    http://127.0.0.1:18180/small.json)
set -euo pipefail
R=$(realpath "$1")
URL=$2
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$HERE/Benchmarks/FixedCostFloor" && swift build -c release --static-swift-stdlib > "$WORK/build.log" 2>&1) || {
  cat "$WORK/build.log"
  exit 1
}
B=$HERE/Benchmarks/FixedCostFloor/.build/release
printf 'reqplan: 1\nsteps:\n  one:\n    request: { url: "%s" }\n' "$URL" > "$WORK/one.yaml"
printf '{"openapi":"3.1.0","info":{"title":"floor","version":"1"},"paths":{}}' > "$WORK/api.json"
# Sizes in bytes; the last column is the size of ICU's data (`icudt*_dat`) in the binary, 0 when not linked.
icu() {
  local size
  size=$(nm -S "$1" | awk '$NF ~ /^icudt[0-9]+_dat$/ { print $2 }')
  echo $((16#${size:-0}))
}
printf '%-16s %12s %12s %12s\n' program "as built" stripped "ICU data"
for p in floor-print floor-yams floor-openapikit floor-nio floor-nio-yams floor-nio-libyaml; do
  strip -o "$WORK/$p" "$B/$p"
  printf '%-16s %12s %12s %12s\n' "$p" "$(stat -c %s "$B/$p")" "$(stat -c %s "$WORK/$p")" "$(icu "$B/$p")"
done
strip -o "$WORK/reqplan" "$R"
printf '%-16s %12s %12s %12s\n' reqplan "$(stat -c %s "$R")" "$(stat -c %s "$WORK/reqplan")" "$(icu "$R")"
# The stripped copies are what an install runs (`install -s`); each must work before it is timed.
"$WORK/floor-nio-yams" "$WORK/one.yaml" > /dev/null
"$WORK/floor-nio-libyaml" "$WORK/one.yaml" > /dev/null
"$WORK/reqplan" run "$WORK/one.yaml" --progress none > /dev/null
hyperfine -N -w 5 -r "${RUNS:-60}" \
  "curl -s $URL" \
  "$WORK/floor-print" \
  "$WORK/floor-yams $WORK/one.yaml" \
  "$WORK/floor-openapikit $WORK/api.json" \
  "$WORK/floor-nio $URL" \
  "$WORK/floor-nio-yams $WORK/one.yaml" \
  "$WORK/floor-nio-libyaml $WORK/one.yaml" \
  "$WORK/reqplan --version" \
  "$WORK/reqplan run $WORK/one.yaml --progress none"
