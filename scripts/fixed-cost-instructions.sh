#!/usr/bin/env bash
# Where a small run's fixed cost goes, counted rather than timed: the instructions each of `reqplan --version`,
# `validate` and `run` of a one-request plan executes in user space (valgrind's callgrind, the same on a busy
# machine as on a quiet one), beside curl fetching the same URL, and how many of reqplan's protocol-conformance
# lookups scanned the whole conformance table (the first lookup of each type and protocol does; see
# BENCHMARKS.md, "Fixed cost of a small run"). Needs valgrind, curl, python3 and a server at URL.
#
#   scripts/fixed-cost-instructions.sh REQPLAN URL
#   (e.g. a static release build, and nginx from scripts/bench-nginx-server.sh: http://127.0.0.1:18180/small.json)
set -euo pipefail
R=$1
URL=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# valgrind 3.19 cannot read the toolchain's DWARF 5: count on a copy without debug information.
strip --strip-debug -o "$WORK/reqplan" "$R"
printf 'reqplan: 1\nsteps:\n  one:\n    request: { url: "%s" }\n' "$URL" > "$WORK/one.yaml"
RECORDS=$(python3 - "$WORK/reqplan" <<'PY'
import subprocess, sys
for line in subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    fields = line.replace("[ ", "[").split()
    if "swift5_protocol_conformances" in fields:
        print(int(fields[fields.index("swift5_protocol_conformances") + 4], 16) // 4)
PY
)
echo "conformance records in the binary: $RECORDS"
count() {
  local name=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$WORK/$name.out" "$@" > /dev/null 2> "$WORK/$name.err"
  python3 - "$name" "$WORK/$name.out" "$WORK/$name.err" "$RECORDS" <<'PY'
import collections, re, sys
name, out, err, records = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4] or 0)
total = next(int(m.group(1).replace(",", "")) for m in map(re.compile(r"Collected : ([\d,]+)").search,
                                                             open(err)) if m)
names, calls, callee = {}, collections.Counter(), None
for line in open(out, errors="replace"):
    m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(3):
            names[m.group(2)] = m.group(3)
        if m.group(1) == "cfn":
            callee = m.group(2)
        continue
    m = re.match(r"calls=(\d+)", line)
    if m and callee:
        calls[callee] += int(m.group(1))
# The scan calls a closure once per record of the table: its calls over the table's size are whole scans.
visits = max([n for i, n in calls.items()
              if names.get(i, "").startswith("swift_conformsToProtocolMaybeInstantiateSuperclasses")] or [0])
scans = f", {visits / records:.0f} whole-table conformance scans" if records and visits else ""
print(f"{name:>10}: {total / 1e6:6.1f} M instructions{scans}")
PY
}
count curl curl -s "$URL"
count version "$WORK/reqplan" --version
count validate "$WORK/reqplan" validate "$WORK/one.yaml"
count run "$WORK/reqplan" run "$WORK/one.yaml" --progress none
