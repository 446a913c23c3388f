#!/usr/bin/env python3
"""Checks that the runtime and the planner render nothing: no terminal escape code, no output format.

Usage: scripts/check-presentation.py [ROOT]   (ROOT: the package root, default the current folder)

Everything reqplan shows (the live progress, summaries, validate's formats, diagrams, reports) lives in
`ReqPlanPresentation`; `ReqPlanRuntime` reports events and results, `ReqPlanPlanner` exposes facts. This
reads every Swift file under `Sources/ReqPlanRuntime` and `Sources/ReqPlanPlanner` (comment lines aside)
and reports each line that holds an escape code (ESC written any way Swift can write it, or the byte
itself), an ANSI control sequence, or the mark of an output format or of a renderer that belongs in the
presentation target. `DiagnosticRenderer` in `ReqPlanSyntax` (the one renderer of static and run-time
diagnostics, with its colors) is not checked: the issue names the runtime and the planner. Exit status 0 when none is found, 1 otherwise (each finding is printed).
"""
import pathlib
import re
import sys

CHECKED = ["Sources/ReqPlanRuntime", "Sources/ReqPlanPlanner"]

ESCAPES = [
    (re.compile(r"\\u\{0*1[bB]\}"), "an escape code (\\u{1B})"),
    (re.compile(r"\\u\{0*9[bB]\}"), "a control sequence introducer (\\u{9B})"),
    (re.compile(r"\\e\["), "an escape code (\\e[)"),
    (re.compile(r"\\0?33\["), "an escape code (\\033[)"),
    (re.compile(r"\\x1[bB]"), "an escape code (\\x1B)"),
    (re.compile(r"\x1b"), "an ESC byte"),
    (re.compile(r"(?:UnicodeScalar|Unicode\.Scalar|Character)\(\s*(?:27|0x1[bB])\s*\)"), "an ESC scalar"),
    # A control sequence body after an ESC kept in a constant: "[2K", "[1A", "[0m", "[1;31m".
    (re.compile(r'"\[(?:\d+(?:;\d+)*)?[ABCDHJKm]'), "an ANSI control sequence"),
]

FORMATS = [
    (re.compile(r"\bflowchart (?:LR|TD|TB|RL|BT)\b|\bsubgraph\b"), "a Mermaid diagram"),
    (re.compile(r"\bdigraph\b|\brankdir\b"), "a Graphviz DOT diagram"),
    (re.compile(r"::(?:error|warning|notice) "), "GitHub annotations"),
    (re.compile(r"<testsuites?\b|<testcase\b"), "JUnit XML"),
    (re.compile(r"traceEvents"), "Chrome trace events"),
    (re.compile(r"reqplan-(?:validate|report|suite)/\d"), "a reqplan output format"),
    (re.compile(r"[█░]"), "a progress bar"),
    (re.compile(r"\b(?:LiveProgress|SuiteProgress|SuiteSummaryLine|VerboseLog|ValidationOutput)\b"),
     "a renderer of ReqPlanPresentation"),
    (re.compile(r"\bfunc (?:summaryText|totalsText|outputsJSON|explanation|explanationJSON|mermaid|dot)\("),
     "a renderer of ReqPlanPresentation"),
]


def findings(root: pathlib.Path) -> list[str]:
    found = []
    for folder in CHECKED:
        for source in sorted((root / folder).rglob("*.swift")):
            text = source.read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(), start=1):
                if line.lstrip().startswith("//"):
                    continue
                for pattern, what in ESCAPES + FORMATS:
                    if pattern.search(line):
                        found.append(f"{source.relative_to(root)}:{number}: {what}: {line.strip()}")
    return found


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    if not all((root / folder).is_dir() for folder in CHECKED):
        print(f"{root}: no {' or '.join(CHECKED)} here", file=sys.stderr)
        return 2
    problems = findings(root)
    for problem in problems:
        print(problem)
    if problems:
        print("the runtime and the planner render nothing: move this to Sources/ReqPlanPresentation")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
