#!/usr/bin/env bash
# Two reqplan builds' CPU per request in `reqplan load`, measured at the same time: each run starts both builds
# together, each with USERS/2 users, against nginx on loopback (scripts/bench-nginx-server.sh) for SECONDS s, so
# both meet the same host. On a host whose speed moves from minute to minute (a VM whose neighbours come and go),
# runs one after another differ by up to 2x and hide a change of 5 %; two runs at once see the same slowdowns.
# Prints each run's requests a second and user CPU per request of both, and the median of B's over A's.
#
#   scripts/bench-load-ab.sh BEFORE AFTER [RUNS (8)] [SECONDS (8)]     USERS (64)
#   (e.g. a release build of main in a worktree, and one of the change: BENCHMARKS.md, "Load")
set -euo pipefail
A=$(realpath "$1")
B=$(realpath "$2")
RUNS=${3:-8}
SECONDS_RUN=${4:-8}
USERS=${USERS:-64}
R=$A
# shellcheck source=scripts/bench-nginx-server.sh
source scripts/bench-nginx-server.sh
cat > "$WORK/small.yaml" <<PLAN
reqplan: 1
steps:
  get:
    request: { url: "http://127.0.0.1:$PLAIN/small.json" }
    expect: { status: 200 }
PLAN
for run in $(seq "$RUNS"); do
  for side in a b; do
    binary=$A
    [ "$side" = b ] && binary=$B
    /usr/bin/time -f "cpu user %U" -o "$WORK/$side.time" "$binary" load "$WORK/small.yaml" \
      --users $((USERS / 2)) --duration "${SECONDS_RUN}s" --progress none > "$WORK/$side.out" &
  done
  wait
  python3 - "$WORK" "$run" <<'PY'
import re, sys
work, run = sys.argv[1], sys.argv[2]
row = []
for side in "ab":
    out = open(f"{work}/{side}.out").read()
    requests, rate = re.search(r"^requests\s+(\d+) \(([\d.]+)/s\)", out, re.M).groups()
    user = float(re.search(r"cpu user ([\d.]+)", open(f"{work}/{side}.time").read()).group(1))
    row.append((float(rate), user / int(requests) * 1e6))
ratio = row[1][1] / row[0][1]
print(f"run {run}: A {row[0][0]:.0f}/s {row[0][1]:.2f} µs user/request, B {row[1][0]:.0f}/s {row[1][1]:.2f} µs "
      f"user/request: B/A {ratio:.3f}")
open(f"{work}/ratios", "a").write(f"{ratio}\n")
PY
done
python3 - "$WORK/ratios" <<'PY'
import statistics, sys
r = sorted(float(x) for x in open(sys.argv[1]))
print(f"user CPU per request, B over A: median {statistics.median(r):.3f}, from {r[0]:.3f} to {r[-1]:.3f} ({len(r)} runs)")
PY
