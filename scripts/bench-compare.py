#!/usr/bin/env python3
# Alternates whole commands round by round and prints, for each, the median wall time, the quartiles and
# the median CPU (user + system of the child). For before/after comparisons of two reqplan builds:
#
#   scripts/bench-compare.py [--server PIDFILE] ROUNDS "name=command args..." "name=command args..." ...
#
# (arguments are split on spaces; three warm-up rounds are not counted).
#
# With `--server`, also the CPU time a local server spends on each command's requests: for comparing clients
# on a machine they share with the server (on two cores the wall time follows the two together). PIDFILE is
# the server's master process id file (nginx's `pid`); its children are the workers, whose CPU time is read
# from /proc before and after each command (Linux only, at the kernel's tick resolution).
import os, resource, statistics, subprocess, sys, time

args = sys.argv[1:]
server_pid = None
if args[:1] == ["--server"]:
    server_pid, args = open(args[1]).read().strip(), args[2:]
rounds = int(args[0])
commands = {}
for spec in args[1:]:
    name, command = spec.split("=", 1)
    commands[name] = command.split()


def stat(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None


workers = []
if server_pid:
    workers = [p for p in os.listdir("/proc") if p.isdigit() and (stat(p) or [None, None])[1] == server_pid]
    if not workers:
        sys.exit(f"no worker processes of {server_pid}")


def server_cpu():
    fields = [stat(worker) for worker in workers]
    return sum(int(f[11]) + int(f[12]) for f in fields if f) / os.sysconf("SC_CLK_TCK")


def measure(command):
    before, server_before = resource.getrusage(resource.RUSAGE_CHILDREN), server_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed: {command}\n{done.stderr.decode()[-1000:]}")
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, server_cpu() - server_before


times = {n: [] for n in commands}; cpu = {n: [] for n in commands}; server = {n: [] for n in commands}
for _ in range(3):
    for c in commands.values(): measure(c)
for _ in range(rounds):
    for n, c in commands.items():
        e, u, s = measure(c); times[n].append(e); cpu[n].append(u); server[n].append(s)
for n in commands:
    v = sorted(times[n])
    line = f"{n}: median {statistics.median(v)*1000:.1f} ms, quartiles {v[rounds//4]*1000:.1f}-{v[3*rounds//4]*1000:.1f} ms, CPU median {statistics.median(cpu[n])*1000:.1f} ms"
    if workers:
        line += f", server CPU mean {statistics.mean(server[n])*1000:.0f} ms"
    print(line)
