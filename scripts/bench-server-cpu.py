#!/usr/bin/env python3
# The CPU time a local server spends on each command's requests, beside the command's own: for comparing
# clients on a machine they share with the server (on two cores the wall time follows the two together).
# Alternates the commands round by round, reading the server's worker processes' CPU time from /proc
# before and after each.
#
#   scripts/bench-server-cpu.py PIDFILE ROUNDS "name=command args..." ...
#
# PIDFILE is the server's master process id file (nginx's `pid`): its children are the workers measured.
# Arguments are split on spaces. Linux only (/proc); the server's time has the kernel's tick resolution.
import os, resource, statistics, subprocess, sys

pid_file, rounds = sys.argv[1], int(sys.argv[2])
commands = dict(spec.split("=", 1) for spec in sys.argv[3:])
master = open(pid_file).read().strip()


def fields(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None


workers = [p for p in os.listdir("/proc") if p.isdigit() and (fields(p) or [None, None])[1] == master]
if not workers:
    sys.exit(f"no worker processes of {master}")


def server_cpu():
    total = 0
    for worker in workers:
        stat = fields(worker)
        if stat:
            total += int(stat[11]) + int(stat[12])
    return total / os.sysconf("SC_CLK_TCK")


server = {name: [] for name in commands}
client = {name: [] for name in commands}
for _ in range(rounds):
    for name, command in commands.items():
        before, usage = server_cpu(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"failed: {command}")
        server[name].append(server_cpu() - before)
        client[name].append(after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime)
for name in commands:
    print(f"{name}: server CPU mean {statistics.mean(server[name]) * 1000:.0f} ms, "
          f"client CPU median {statistics.median(client[name]) * 1000:.0f} ms")
