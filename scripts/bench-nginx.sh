#!/usr/bin/env bash
# Benchmarks of `reqplan run` against nginx (a C server: its own CPU is small, so the client's cost
# shows), each beside curl doing the same requests in the same run. Needs a release build, nginx with
# the echo module, openssl, curl and python3 (apt-get install nginx libnginx-mod-http-echo openssl curl).
#
#   swift build -c release --static-swift-stdlib --scratch-path .build-release
#   scripts/bench-nginx.sh [.build-release/release/reqplan] [ROUNDS]
#   REQPLAN_ARGS="--http-client asynchttpclient" scripts/bench-nginx.sh ...   # extra options for reqplan run
#
# Scenarios:
# 1. Throughput: 2,000 small GETs (a 60-byte static JSON file) at concurrency 64, over http://,
#    https:// with HTTP/2 and https:// with HTTP/1.1; curl --parallel --parallel-max 64 with the same
#    URLs (curl multiplexes HTTP/2 streams on one connection as reqplan does). reqplan and curl
#    alternate, ROUNDS rounds (default 40); medians, quartiles, CPU and how often reqplan was faster.
#    Over http:// also as 2,000 independent named steps (`s0` … `s1999`, one request each) instead of
#    one for_each: the cost per step before anything is sent (reading, checking, scheduling) shows there;
#    and once more with `--progress lines` (the benchmark reads standard error through a pipe, as a CI
#    runner does): what the line per step costs.
# 2. Fidelity: 200 requests to a 50 ms endpoint at concurrency 50 (ideal 0.2 s), a 10-layer × 20-wide
#    DAG of 20 ms requests (ideal 0.2 s), a 50-step chain of 10 ms requests (ideal 0.5 s); the delays
#    are nginx's echo_sleep. The server's floor for each shape comes from a minimal client
#    (Python threads, one kept-alive connection each) in the same run.
set -euo pipefail
R=${1:-.build-release/release/reqplan}
ROUNDS=${2:-40}
# nginx on loopback (plain HTTP, HTTPS with HTTP/2, HTTPS with HTTP/1.1), its test CA, and how reqplan
# trusts it: WORK, PLAIN, H2, H1S and TLS (scripts/bench-nginx-server.sh).
source "$(dirname "$0")/bench-nginx-server.sh"
echo "== machine: $(nproc) cores, $(uname -r); nginx $(nginx -v 2>&1 | sed 's/.*\///'); $(curl --version | head -1 | cut -d' ' -f1-2)"
echo "== reqplan TLS trust: ${TLS[*]}"

python3 - "$WORK" "$PLAIN" "$H2" "$H1S" <<'PY'
import sys
work, plain, h2, h1s = sys.argv[1:5]
def curl_config(name, base, urls):
    with open(f"{work}/{name}.cfg", "w") as f:
        for url in urls:
            f.write(f'url = "{base}{url}"\noutput = "/dev/null"\n')
for name, base in [("plain", f"http://127.0.0.1:{plain}"), ("h2", f"https://127.0.0.1:{h2}"),
                   ("h1s", f"https://127.0.0.1:{h1s}")]:
    curl_config(f"curl-{name}", base, [f"/small.json?i={i}" for i in range(2000)])
PY
GENERATE="python3 $(dirname "$0")/generate-plan.py"
$GENERATE --shape for_each --steps 2000 --concurrency 64 --url '/small.json?i=${{ item }}' > "$WORK/throughput.yaml"
$GENERATE --shape independent --steps 2000 --concurrency 64 --url '/small.json?i={i}' > "$WORK/throughput-named.yaml"
$GENERATE --shape for_each --steps 200 --concurrency 50 --url /delay/50 > "$WORK/fanout.yaml"
$GENERATE --shape layers --steps 200 --width 20 --url /delay/20 > "$WORK/layers.yaml"
$GENERATE --shape chain --steps 50 --url /delay/10 > "$WORK/chain.yaml"

echo "== throughput: 2,000 GETs at concurrency 64, reqplan and curl alternating ($ROUNDS rounds each)"
python3 - "$R" "$WORK" "$ROUNDS" "$PLAIN" "$H2" "$H1S" "${TLS[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time
reqplan, work, rounds, plain, h2, h1s = sys.argv[1:7]
tls = sys.argv[7:]
extra = os.environ.get("REQPLAN_ARGS", "").split()
rounds = int(rounds)
cases = [
    ("http://", f"http://127.0.0.1:{plain}", [], "curl-plain", []),
    ("http://, 2,000 named steps", f"http://127.0.0.1:{plain}", [], "curl-plain", []),
    ("http://, 2,000 named steps, a progress line each (standard error is a pipe)", f"http://127.0.0.1:{plain}",
     ["--progress", "lines"], "curl-plain", []),
    ("https:// HTTP/2", f"https://127.0.0.1:{h2}", tls, "curl-h2", ["--cacert", f"{work}/ca.pem", "--http2"]),
    ("https:// HTTP/1.1", f"https://127.0.0.1:{h1s}", tls, "curl-h1s", ["--cacert", f"{work}/ca.pem", "--http1.1"]),
]
def measure(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode != 0:
        sys.exit(f"failed ({finished.returncode}): {' '.join(command)}\n{finished.stderr.decode()[-2000:]}")
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
for label, base, options, config, curl_options in cases:
    commands = {
        "reqplan": [reqplan, "run", f"{work}/throughput{'-named' if 'named' in label else ''}.yaml", "--input", f"base_url={base}", "--color", "never",
                    "--progress", "none", *options, *extra],
        "curl": ["curl", "--parallel", "--parallel-max", "64", "-s", "--fail", *curl_options, "-K", f"{work}/{config}.cfg"],
    }
    times = {name: [] for name in commands}
    cpu = {name: [] for name in commands}
    for _ in range(3):
        for command in commands.values():
            measure(command)
    for _ in range(rounds):
        for name, command in commands.items():
            elapsed, used = measure(command)
            times[name].append(elapsed)
            cpu[name].append(used)
    wins = sum(a < b for a, b in zip(times["reqplan"], times["curl"]))
    medians = {name: statistics.median(times[name]) for name in commands}
    print(f"-- {label}")
    for name in commands:
        values = sorted(times[name])
        print(f"   {name}: median {medians[name] * 1000:.1f} ms, quartiles {values[rounds // 4] * 1000:.1f}-"
              f"{values[3 * rounds // 4] * 1000:.1f} ms, CPU (user+sys) median {statistics.median(cpu[name]) * 1000:.1f} ms")
    print(f"   ratio reqplan/curl {medians['reqplan'] / medians['curl']:.2f}; reqplan faster in {wins} of {rounds} rounds")
PY

echo "== server floor: a minimal client (Python threads, one kept-alive connection each), same shapes (median of 5)"
python3 - "$PLAIN" <<'PY'
import http.client, statistics, sys, threading, time
port = int(sys.argv[1])
def run_threads(count, body):
    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    start = time.perf_counter()
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    return time.perf_counter() - start
def fanout():
    # 200 requests to /delay/50 over 50 connections: each connection asks 4 times.
    def worker(_):
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(4):
            connection.request("GET", "/delay/50")
            connection.getresponse().read()
    return run_threads(50, worker)
def layers():
    # 10 layers of 20 requests to /delay/20; a layer starts when the one before has ended.
    barrier = threading.Barrier(20)
    def worker(_):
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(10):
            connection.request("GET", "/delay/20")
            connection.getresponse().read()
            barrier.wait()
    return run_threads(20, worker)
def chain():
    connection = http.client.HTTPConnection("127.0.0.1", port)
    start = time.perf_counter()
    for _ in range(50):
        connection.request("GET", "/delay/10")
        connection.getresponse().read()
    return time.perf_counter() - start
for name, shape in [("fanout", fanout), ("layers", layers), ("chain", chain)]:
    shape()
    runs = sorted(shape() for _ in range(5))
    print(f"{name}: {statistics.median(runs):.3f} s (min {runs[0]:.3f})")
PY
for plan in fanout layers chain; do
  echo "== $plan: run durations reported by reqplan (9 runs, sorted)"
  for _ in 1 2 3 4 5 6 7 8 9; do
    "$R" run "$WORK/$plan.yaml" --input "base_url=http://127.0.0.1:$PLAIN" --color never --progress none ${REQPLAN_ARGS:-} | tail -1 | sed 's/.* in //'
  done | sort -n | tr '\n' ' '
  echo
done
