#!/usr/bin/env python3
# What a reqplan process does over time, from `perf script`: for each process (at most three), its samples in
# 2 ms bins, with how many threads were busy in each (samples over what one thread gives at FREQ) and the
# phases most of them were in (the first phase whose pattern a sample's stack matches).
#
#   perf record -F 10000 -g -o t.data -- sh -c 'for i in 1 2 3; do $R validate named.yaml >/dev/null; done'
#   perf script -i t.data -F comm,pid,tid,time,ip,sym | scripts/perf-timeline.py 10000
import collections, re, sys

phases = [
    ("compose", re.compile(r"Yams6Parser|yaml_parser|YAMLLoader")),
    ("steps", re.compile(r"StepBlocks")),
    ("read", re.compile(r"ReqPlanSyntax")),
    ("plan", re.compile(r"ReqPlanPlanner")),
    ("argp", re.compile(r"ArgumentParser")),
    ("load", re.compile(r"_dl_|dl_main|_dl_start")),
]
frequency, bin_ms = float(sys.argv[1]), 2.0
processes = collections.defaultdict(list)
stack, head = [], None


def flush():
    if head is None:
        return
    match = re.match(r"\s*(\S+)\s+(\d+)/(\d+)\s+(\d+\.\d+):", head) or re.match(r"\s*(\S+)\s+(\d+)\s+(\d+\.\d+):", head)
    if not match or match.group(1) in ("sh", "bash"):
        return
    joined = "\n".join(stack)
    phase = next((name for name, pattern in phases if pattern.search(joined)), "other")
    processes[match.group(2)].append((float(match.groups()[-1]), phase))


for line in sys.stdin:
    if not line.strip():
        flush()
        stack, head = [], None
    elif not line.startswith((" ", "\t")):
        head = line
    else:
        stack.append(line)
flush()
for pid, samples in list(processes.items())[:3]:
    samples.sort()
    start = samples[0][0]
    bins = collections.defaultdict(collections.Counter)
    for time, phase in samples:
        bins[int((time - start) * 1000 / bin_ms)][phase] += 1
    print(f"process {pid}: {len(samples)} samples over {(samples[-1][0] - start) * 1000:.1f} ms")
    for index in range(max(bins) + 1):
        counts = bins[index]
        busy = sum(counts.values()) / (frequency * bin_ms / 1000)
        print(f"  {index * bin_ms:5.0f} ms  busy {busy:4.1f}  " + " ".join(f"{k}:{v}" for k, v in counts.most_common(3)))
