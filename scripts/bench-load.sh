#!/usr/bin/env bash
# reqplan load beside the load tools people run, against nginx on loopback (BENCHMARKS.md, "Load").
#
# Usage: scripts/bench-load.sh [ceiling|rate|omission|memory|journey|shards]...   (default: all but memory)
#   R=path/to/reqplan (default .build/release/reqplan), SECONDS_CEILING (20), CONNECTIONS (64);
#   B=path/to/reqplan-bench adds the floor of a bare SwiftNIO client to `ceiling` (`reqplan-bench nio-floor`).
#
#   ceiling   GET of a 60-byte body, CONNECTIONS connections, SECONDS_CEILING s: wrk (-t1 and -t2, the best),
#             hey, locust (FastHttpUser, --processes 2) and `reqplan load --users CONNECTIONS` (closed model,
#             --threads 1 and 2, as wrk's -t); requests per second of each.
#   paired    the ceiling on a host whose speed moves from minute to minute: ROUNDS (6) rounds, each of wrk -t1,
#             wrk -t2, `reqplan load --threads 1` and `--threads 2` for SECONDS_PAIRED (10) s one right after the
#             other, with the round's better reqplan over its better wrk; then the median and range of the ratios.
#   rate      the open model at 5000 iterations/s for 30 s against a server that answers in 50 ms
#             (nginx echo_sleep): achieved rate, and p50/p99 beside the times nginx itself logged for them.
#   omission  1000/s against a 10 ms server, nginx stopped (SIGSTOP) for 1 s in the middle: the open model's
#             p99 beside the closed model's (10 users, the same rate while the server answers), as wrk2's
#             README shows it.
#   memory    10 million requests (closed model, 64 users): resident memory at the start, middle and end.
#   journey   a 6-step plan with data flow against the demo API at 200 iterations/s for 30 s.
#   shards    the same load whole and as 4 shards on this machine, merged: the figures side by side.
# Needs nginx with the echo module, wrk, hey (Debian) and locust (PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-.build/release/reqplan}
R=$(realpath "$R")
SECONDS_CEILING=${SECONDS_CEILING:-20}
CONNECTIONS=${CONNECTIONS:-64}
# shellcheck source=scripts/bench-nginx-server.sh
source scripts/bench-nginx-server.sh
URL="http://127.0.0.1:$PLAIN/small.json"
PLANS="$WORK/plans"
mkdir -p "$PLANS"
plan() { # plan NAME PATH: a plan of one GET of PATH on the plain port
  cat > "$PLANS/$1.yaml" <<PLAN
reqplan: 1
steps:
  get:
    request: { url: "http://127.0.0.1:$PLAIN$2" }
    expect: { status: 200 }
PLAN
}
plan small /small.json
plan delay10 /delay/10
plan delay50 /delay/50
# p50 p99 max of a step (or the iteration) of a load's JSON report, in ms.
figures() { python3 - "$1" "${2:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["iteration"] if not sys.argv[2] else next(s["figures"] for s in r["steps"] if s["id"] == sys.argv[2])
buckets = f["latency"]["buckets"]; total = sum(c for _, c in buckets)
def pct(p):
    seen = 0
    for v, c in buckets:
        seen += c
        if seen >= total * p / 100: return v / 1000
    return 0
print(f"runs {f['succeeded'] + f['failed']} failed {f['failed']} p50 {pct(50):.2f} ms p99 {pct(99):.2f} ms "
      f"p99.9 {pct(99.9):.2f} ms max {f['latency'].get('max', 0) / 1000:.2f} ms "
      f"rate {(f['succeeded'] + f['failed']) / r['measured_s']:.1f}/s over {r['measured_s']:.2f} s")
PY
}

# Requests a second of wrk, and of reqplan's closed model, with THREADS threads for SECONDS s.
wrk_rate() { wrk -t"$1" -c"$CONNECTIONS" -d"$2s" "$URL" | awk '/Requests\/sec/ {print $2}'; }
reqplan_rate() {
  "$R" load "$PLANS/small.yaml" --users "$CONNECTIONS" --threads "$1" --duration "$2s" --progress none \
    | awk '/^requests/ {gsub("[(/s),]", "", $3); print $3}'
}

ceiling() {
  echo "== ceiling: GET $URL, $CONNECTIONS connections, ${SECONDS_CEILING}s each"
  for threads in 1 2; do
    printf 'wrk -t%s       ' "$threads"
    echo "$(wrk_rate "$threads" "$SECONDS_CEILING") req/s"
  done
  printf 'hey           '
  hey -z "${SECONDS_CEILING}s" -c "$CONNECTIONS" "$URL" | awk '/Requests\/sec/ {print $2 " req/s"}'
  cat > "$WORK/locustfile.py" <<'PY'
from locust import task
from locust.contrib.fasthttp import FastHttpUser
class Get(FastHttpUser):
    @task
    def get(self):
        self.client.get("/small.json")
PY
  printf 'locust        '
  (cd "$WORK" && locust -f locustfile.py --headless -u "$CONNECTIONS" -r "$CONNECTIONS" -t "${SECONDS_CEILING}s" \
    --processes 2 --host "http://127.0.0.1:$PLAIN" --csv "$WORK/locust" --only-summary > /dev/null 2>&1 || true)
  awk -F, '$2 == "Aggregated" {print $10 " req/s"}' "$WORK/locust_stats.csv"
  for threads in 1 2; do
    printf 'reqplan -t%s    ' "$threads"
    echo "$(reqplan_rate "$threads" "$SECONDS_CEILING") req/s"
  done
  if [ -n "${B:-}" ]; then # the floor of a bare SwiftNIO client (needs the default port)
    printf 'nio floor     '
    "$B" nio-floor "$CONNECTIONS" "$SECONDS_CEILING" | awk '{gsub("[(/s)]", "", $6); print $6 " req/s"}'
  fi
}

paired() {
  local rounds=${ROUNDS:-6} seconds=${SECONDS_PAIRED:-10} ratios=()
  echo "== ceiling, paired: $rounds rounds of wrk and reqplan load, -t1 and -t2 each, ${seconds}s each, $CONNECTIONS connections"
  for round in $(seq "$rounds"); do
    local w1 w2 r1 r2
    w1=$(wrk_rate 1 "$seconds")
    w2=$(wrk_rate 2 "$seconds")
    r1=$(reqplan_rate 1 "$seconds")
    r2=$(reqplan_rate 2 "$seconds")
    ratios+=("$(python3 -c "print(f'{max($r1, $r2) / max($w1, $w2):.3f}')")")
    echo "round $round: wrk -t1 $w1, -t2 $w2; reqplan --threads 1 $r1, 2 $r2 req/s: ${ratios[-1]}x"
  done
  python3 -c "import statistics, sys; r = sorted(map(float, sys.argv[1:])); print(f'reqplan / wrk: median {statistics.median(r):.3f}, from {r[0]:.3f} to {r[-1]:.3f}')" "${ratios[@]}"
}

rate() {
  echo "== rate accuracy: open model, 5000/s for 30s, a 50 ms server"
  : > "$WORK/delay50.log"
  "$R" load "$PLANS/delay50.yaml" --rate 5000/s --duration 30s --progress none --report "json:$WORK/rate.json" \
    | sed -n '2,4p'
  printf 'reqplan: '; figures "$WORK/rate.json"
  sleep 1.5 # nginx flushes its log buffer every second
  printf 'nginx:   '; python3 - "$WORK/delay50.log" <<'PY'
import sys
# The time nginx took for each request, from its first byte read to its last byte sent (ms resolution).
times = sorted(float(line) for line in open(sys.argv[1]) if line.strip())
pct = lambda p: times[min(len(times) - 1, int(len(times) * p / 100))] * 1000
print(f"runs {len(times)} p50 {pct(50):.2f} ms p99 {pct(99):.2f} ms p99.9 {pct(99.9):.2f} ms max {times[-1] * 1000:.2f} ms")
PY
}

omission() {
  echo "== coordinated omission: 1000/s against a 10 ms server, stopped for 1 s after 10 s"
  pause() { sleep 10; pkill -STOP -f "nginx: worker process"; sleep 1; pkill -CONT -f "nginx: worker process"; }
  pause & "$R" load "$PLANS/delay10.yaml" --rate 1000/s --duration 20s --progress none \
    --report "json:$WORK/open.json" > /dev/null; wait
  printf 'open model:   '; figures "$WORK/open.json"
  pause & "$R" load "$PLANS/delay10.yaml" --users 10 --duration 20s --progress none \
    --report "json:$WORK/closed.json" > /dev/null; wait
  printf 'closed model: '; figures "$WORK/closed.json"
}

memory() {
  echo "== memory over 10 million requests: closed model, 64 users"
  "$R" load "$PLANS/small.yaml" --users 64 --iterations 10000000 --progress none > "$WORK/memory.txt" &
  local pid=$! start
  start=$(date +%s)
  while kill -0 "$pid" 2>/dev/null; do
    echo "$(( $(date +%s) - start ))s rss $(awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status" 2>/dev/null)"
    sleep 15
  done
  wait "$pid"
  sed -n '2,4p' "$WORK/memory.txt"
}

journey() {
  echo "== a 6-step journey against the demo API at 200 iterations/s for 30s"
  local port=18190
  "$R" demo --serve "$port" > "$WORK/demo.log" 2>&1 &
  local demo=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/items" -H 'X-Api-Key: demo-api-key' > /dev/null && break; sleep 0.1; done
  DEMO_API_KEY=demo-api-key "$R" load scripts/load-journey.yaml --input "base_url=http://127.0.0.1:$port" \
    --rate 200/s --duration 30s --progress none
  kill "$demo"
}

shards() {
  echo "== 2000/s for 20s against the 10 ms server: whole, then 4 shards at once, merged"
  "$R" load "$PLANS/delay10.yaml" --rate 2000/s --duration 20s --progress none --report "json:$WORK/whole.json" > /dev/null
  printf 'whole:  '; figures "$WORK/whole.json"
  for k in 1 2 3 4; do
    (cd "$PLANS" && "$R" load delay10.yaml --rate 2000/s --duration 20s --shard "$k/4" --progress none \
      --report "json:$WORK/shard-$k.json" > /dev/null) &
  done
  wait
  (cd "$PLANS" && "$R" report merge "$WORK"/shard-*.json --report "json:$WORK/merged.json" > /dev/null)
  printf 'merged: '; figures "$WORK/merged.json"
}

for section in "${@:-ceiling rate omission journey shards}"; do
  for name in $section; do "$name"; done
done
