#!/usr/bin/env python3
# Alternates whole commands round by round and prints, for each, the median wall time, the quartiles and
# the median CPU (user + system of the child). For before/after comparisons of two reqplan builds:
#
#   scripts/bench-compare.py ROUNDS "name=command args..." "name=command args..." ...
#
# (arguments are split on spaces; three warm-up rounds are not counted).
import resource, statistics, subprocess, sys, time
rounds = int(sys.argv[1])
commands = {}
for spec in sys.argv[2:]:
    name, command = spec.split("=", 1)
    commands[name] = command.split()
def measure(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed: {command}\n{done.stderr.decode()[-1000:]}")
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
times = {n: [] for n in commands}; cpu = {n: [] for n in commands}
for _ in range(3):
    for c in commands.values(): measure(c)
for _ in range(rounds):
    for n, c in commands.items():
        e, u = measure(c); times[n].append(e); cpu[n].append(u)
for n in commands:
    v = sorted(times[n])
    print(f"{n}: median {statistics.median(v)*1000:.1f} ms, quartiles {v[rounds//4]*1000:.1f}-{v[3*rounds//4]*1000:.1f} ms, CPU median {statistics.median(cpu[n])*1000:.1f} ms")
