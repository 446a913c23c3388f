#!/usr/bin/env bash
# Loopback benchmarks of `reqplan run` against the demo API: fidelity to the ideal schedule
# and throughput against curl. Needs a release build and hyperfine (apt-get install hyperfine).
#
#   swift build -c release --static-swift-stdlib --scratch-path .build-release
#   scripts/bench-loopback.sh [.build-release/release/reqplan]
set -euo pipefail
R=${1:-.build-release/release/reqplan}
PORT=${PORT:-18080}
BASE="http://127.0.0.1:$PORT"
WORK=$(mktemp -d)
"$R" demo --serve "$PORT" > "$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do curl -sf "$BASE/health" > /dev/null && break; sleep 0.1; done

# The scenarios, and the same requests for curl as a reference client (curl: the fan-out with
# --parallel, the layers and the chain one request after another):
# 1. 200 requests to a 50 ms endpoint at concurrency 50: ideal 4 rounds × 50 ms = 0.2 s.
# 2. A 10-layer × 20-wide DAG of 20 ms requests, each reading one step of the layer before: ideal 10 × 20 ms = 0.2 s.
# 3. A 50-step chain of 10 ms requests: ideal 50 × 10 ms = 0.5 s.
# 4. 2,000 small GETs at concurrency 64, and the same URLs with curl --parallel --parallel-max 64.
# A single-threaded Python client on one kept-alive connection (below) gives the server's floor for
# the sequential scenarios: what the endpoints really take here.
python3 scripts/generate-plan.py --shape layers --steps 200 --width 20 --url /delay/20 > "$WORK/layers.yaml"
python3 scripts/generate-plan.py --shape chain --steps 50 --url /delay/10 > "$WORK/chain.yaml"
python3 scripts/generate-plan.py --shape for_each --steps 200 --concurrency 50 --url /delay/50 > "$WORK/fanout.yaml"
python3 scripts/generate-plan.py --shape for_each --steps 2000 --concurrency 64 --url '/delay/0?i=${{ item }}' \
  > "$WORK/throughput.yaml"
python3 - "$WORK" "$BASE" <<'PY2'
import sys
work, base = sys.argv[1], sys.argv[2]
def curl_config(name, urls):
    with open(f"{work}/{name}.cfg", "w") as f:
        for url in urls:
            f.write(f'url = "{base}{url}"\noutput = "/dev/null"\n')
curl_config("curl-fanout", [f"/delay/50?i={i}" for i in range(200)])
curl_config("curl-layers", ["/delay/20"] * 10)
curl_config("curl-chain", ["/delay/10"] * 50)
curl_config("curl", [f"/delay/0?i={i}" for i in range(2000)])
PY2
echo "== reference: the same requests with curl"
hyperfine -N --warmup 1 --runs 5 \
  "curl --parallel --parallel-max 50 -s -K $WORK/curl-fanout.cfg" \
  "curl -s -K $WORK/curl-layers.cfg" \
  "curl -s -K $WORK/curl-chain.cfg"
echo "== server floor: one kept-alive connection, requests one after another (median of 5)"
python3 - "$PORT" <<'PY2'
import http.client, statistics, sys, time
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
def sequence(path, count):
    start = time.perf_counter()
    for _ in range(count):
        connection.request("GET", path)
        connection.getresponse().read()
    return time.perf_counter() - start
for path, count in [("/delay/20", 10), ("/delay/10", 50)]:
    sequence(path, 2)
    runs = [sequence(path, count) for _ in range(5)]
    print(f"{count} x {path}: {statistics.median(runs):.3f} s (min {min(runs):.3f})")
PY2

for plan in fanout layers chain; do
  echo "== $plan: run durations reported by reqplan (9 runs, sorted)"
  for _ in 1 2 3 4 5 6 7 8 9; do
    "$R" run "$WORK/$plan.yaml" --input "base_url=$BASE" --color never --progress none | tail -1 | sed 's/.* in //'
  done | sort -n | tr '\n' ' '
  echo
done
echo "== throughput: 2,000 GETs at concurrency 64, reqplan and curl alternating (60 rounds)"
python3 - "$R" "$WORK" "$BASE" <<'PY2'
import resource, statistics, subprocess, sys, time
reqplan, work, base = sys.argv[1:4]
commands = {
    "reqplan run (whole process)": [reqplan, "run", f"{work}/throughput.yaml", "--input", f"base_url={base}",
                                    "--color", "never"],
    "curl --parallel --parallel-max 64": ["curl", "--parallel", "--parallel-max", "64", "-s", "-K", f"{work}/curl.cfg"],
}
rounds = 60
times = {name: [] for name in commands}
cpu = {name: [] for name in commands}
for _ in range(3):
    for command in commands.values():
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(rounds):
    for name, command in commands.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[name].append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
names = list(commands)
wins = sum(a < b for a, b in zip(times[names[0]], times[names[1]]))
for name in names:
    values = sorted(times[name])
    print(f"{name}: median {statistics.median(values) * 1000:.1f} ms, "
          f"quartiles {values[rounds // 4] * 1000:.1f}-{values[3 * rounds // 4] * 1000:.1f} ms, "
          f"CPU (user+sys) median {statistics.median(cpu[name]) * 1000:.1f} ms")
print(f"reqplan was faster in {wins} of {rounds} rounds")
PY2
