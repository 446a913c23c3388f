#!/usr/bin/env bash
# A suite of 200 small plans against nginx, beside the same requests in one plan (issue 11's target: the
# suite takes less than 1.5× the one plan's time). Needs a release build, nginx with the echo module,
# openssl, curl and python3 (as scripts/bench-nginx.sh, whose nginx set-up this reuses).
#
#   swift build -c release --static-swift-stdlib --scratch-path .build-release
#   scripts/bench-suite.sh [.build-release/release/reqplan] [ROUNDS] [JOBS]
#
# Each small plan is 5 GETs of a 60-byte static JSON file in 3 levels (a login-like request, two that
# read it, one after both): 1,000 requests in all. The one plan holds the 200 plans' steps side by side
# (ids suffixed), with the same dependencies. Both run with `--progress none` and print their summary;
# the suite runs with `--jobs JOBS` (default: reqplan's own default, the number of cores). The commands
# alternate, ROUNDS rounds (default 20), through scripts/bench-compare.py (medians, quartiles, CPU).
set -euo pipefail
R=${1:-.build-release/release/reqplan}
ROUNDS=${2:-20}
JOBS=${3:-}
source "$(dirname "$0")/bench-nginx-server.sh"
echo "== machine: $(nproc) cores, $(uname -r); nginx $(nginx -v 2>&1 | sed 's/.*\///')"

python3 - "$WORK" <<'PY'
import os, sys
work = sys.argv[1]
os.makedirs(f"{work}/suite", exist_ok=True)
header = """reqplan: 1
inputs: { base_url: { default: "http://127.0.0.1:8080" } }
defaults: { base_url: "${{ inputs.base_url }}" }
steps:
"""
def steps(suffix):
    return f"""  login{suffix}: {{ request: {{ url: "/small.json?p={suffix}&s=login" }} }}
  read{suffix}:
    needs: [login{suffix}]
    group:
      config{suffix}: {{ request: {{ url: "/small.json?p={suffix}&s=config&t=${{{{ steps.login{suffix}.body.id }}}}" }} }}
      prefs{suffix}: {{ request: {{ url: "/small.json?p={suffix}&s=prefs" }} }}
  home{suffix}: {{ needs: [read{suffix}], request: {{ url: "/small.json?p={suffix}&s=home" }} }}
"""
for index in range(200):
    with open(f"{work}/suite/plan-{index:03d}.yaml", "w") as f:
        f.write(header + steps(f"_{index:03d}"))
with open(f"{work}/one.yaml", "w") as f:
    f.write(header + "".join(steps(f"_{index:03d}") for index in range(200)))
PY

BASE="base_url=http://127.0.0.1:$PLAIN"
JOBS_OPTION=${JOBS:+--jobs $JOBS}
# Both must succeed (every request 200), and both must send the 1,000 requests.
"$R" run "$WORK/suite" --input "$BASE" --progress none $JOBS_OPTION | tail -1
"$R" run "$WORK/one.yaml" --input "$BASE" --progress none | tail -1
echo "== 200 plans of 5 requests as a suite, and the same 1,000 requests in one plan ($ROUNDS rounds)"
python3 "$(dirname "$0")/bench-compare.py" "$ROUNDS" \
  "suite=$R run $WORK/suite --input $BASE --progress none $JOBS_OPTION" \
  "one-plan=$R run $WORK/one.yaml --input $BASE --progress none"
