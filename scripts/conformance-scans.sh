#!/usr/bin/env bash
# Who asks for the whole-table protocol-conformance scans of a command (BENCHMARKS.md, "Fixed cost of a small
# run"): runs it under gdb with a breakpoint on the Swift runtime's per-record scan closure, stopping only at the
# table's first record (once per whole scan), and prints each scan's asker: the first frame outside the Swift
# standard library, grouped by module, with the functions that asked most. Needs gdb, nm, python3 and a binary with
# symbols (a static release build, not stripped). Slow: the condition is checked on every record read, about
# 7 minutes for a one-request `run`.
#
#   scripts/conformance-scans.sh .build-static/release/reqplan run one.yaml --progress none
set -euo pipefail
BIN=$(realpath "$1")
shift
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# (awk reads to the end: leaving early would fail the pipe.)
symbol() { nm "$BIN" | awk -v name="$1" '$3 == name && !found { print $1; found = 1 }'; }
MAIN=$(symbol main)
LAMBDA=$(nm -C "$BIN" | awk '/swift_conformsToProtocolMaybeInstantiateSuperclasses.*\{lambda\(swift::TargetProtocolConformanceDescriptor/ && !found { print $1; found = 1 }')
[ -n "$MAIN" ] && [ -n "$LAMBDA" ] || { echo "no symbols for main or the scan closure in $BIN" >&2; exit 1; }
{
  echo "set pagination off"
  echo "set confirm off"
  echo "break main"
  printf 'run'
  printf ' %q' "$@"
  echo
  echo 'set $first = (char*)&__start_swift5_protocol_conformances + *(int*)&__start_swift5_protocol_conformances'
  echo "delete"
  # The closure's address where the binary is loaded: main's run-time address less its offset, plus the closure's.
  echo "break *((char*)&main - 0x$MAIN + 0x$LAMBDA) if \$rsi == \$first"
  echo "commands"
  echo "silent"
  echo "bt 60"
  echo "continue"
  echo "end"
  echo "continue"
} > "$WORK/scan.gdb"
gdb -q -batch -x "$WORK/scan.gdb" "$BIN" > "$WORK/scan.out" 2>&1 < /dev/null || true
python3 - "$WORK/scan.out" <<'PY'
import collections, re, subprocess, sys
traces, current = [], None
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("#0 "):
        current = []
        traces.append(current)
    m = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)", line)
    if m and current is not None:
        current.append(m.group(1))
def module(symbol):
    m = re.match(r"\$s(\d+)(\w+)", symbol)
    return m.group(2)[: int(m.group(1))] if m else None
askers = []
for trace in traces:
    asker = next(((module(s), s) for s in trace if s.startswith("$s") and not s.startswith("$ss") and module(s)),
                 ("(the runtime itself)", ""))
    askers.append(asker)
names = subprocess.run(["swift", "demangle", "--compact", "--simplified"], input="\n".join(s for _, s in askers),
                       capture_output=True, text=True).stdout.splitlines()
print(f"{len(traces)} whole-table scans")
by_module = collections.defaultdict(collections.Counter)
for (mod, _), name in zip(askers, names + [""] * len(askers)):
    by_module[mod][name] += 1
for mod, counter in sorted(by_module.items(), key=lambda kv: -sum(kv[1].values())):
    print(f"{sum(counter.values()):5} {mod}")
    for name, n in counter.most_common(5):
        print(f"        {n:4} {name[:110]}")
PY
