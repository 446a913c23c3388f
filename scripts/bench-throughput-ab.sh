#!/usr/bin/env bash
# Throughput of two reqplan builds and curl, alternating round by round against one demo API: 2,000 GETs
# to /delay/0 at concurrency 64 (the throughput scenario of scripts/bench-loopback.sh). For checking that
# a change leaves the plain-HTTP path as fast as it was.
#
#   git worktree add /tmp/before main && (cd /tmp/before && swift build -c release --product reqplan)
#   swift build -c release --product reqplan --scratch-path .build-release
#   scripts/bench-throughput-ab.sh /tmp/before/.build/release/reqplan .build-release/release/reqplan [ROUNDS]
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-40}; PORT=${PORT:-18182}
BASE="http://127.0.0.1:$PORT"
WORK=$(mktemp -d)
"$A" demo --serve "$PORT" > "$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do curl -sf "$BASE/health" > /dev/null && break; sleep 0.1; done
python3 - "$A" "$B" "$WORK" "$BASE" "$ROUNDS" <<'PY2'
import resource, statistics, subprocess, sys, time
a, b, work, base, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
with open(f"{work}/throughput.yaml", "w") as f:
    f.write(f"""reqplan: 1
inputs: {{ base_url: {{ default: "http://127.0.0.1:8080" }} }}
defaults: {{ base_url: "${{{{ inputs.base_url }}}}" }}
concurrency: 64
steps:
  each:
    for_each: {list(range(2000))}
    request: {{ url: "/delay/0?i=${{{{ item }}}}" }}
""")
with open(f"{work}/curl.cfg", "w") as f:
    for i in range(2000):
        f.write(f'url = "{base}/delay/0?i={i}"\noutput = "/dev/null"\n')
plan = lambda r: [r, "run", f"{work}/throughput.yaml", "--input", f"base_url={base}", "--color", "never"]
commands = {"before (main)": plan(a), "after (wire)": plan(b),
            "curl": ["curl", "--parallel", "--parallel-max", "64", "-s", "-K", f"{work}/curl.cfg"]}
times = {n: [] for n in commands}; cpu = {n: [] for n in commands}
for _ in range(3):
    for c in commands.values(): subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(rounds):
    for n, c in commands.items():
        x = resource.getrusage(resource.RUSAGE_CHILDREN); s = time.perf_counter()
        r = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert r.returncode == 0, n
        times[n].append(time.perf_counter() - s); y = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[n].append(y.ru_utime - x.ru_utime + y.ru_stime - x.ru_stime)
for n in commands:
    v = sorted(times[n])
    print(f"{n}: median {statistics.median(v)*1000:.1f} ms, quartiles {v[rounds//4]*1000:.1f}-{v[3*rounds//4]*1000:.1f}, CPU median {statistics.median(cpu[n])*1000:.1f} ms")
names = list(commands)
print("after faster than before in", sum(p < q for p, q in zip(times[names[1]], times[names[0]])), "of", rounds)
print("after used less CPU than before in", sum(p < q for p, q in zip(cpu[names[1]], cpu[names[0]])), "of", rounds)
PY2
