#!/usr/bin/env python3
"""Checks that the runtime and the planner render nothing: no terminal escape code, no output format.

Usage: scripts/check-presentation.py [ROOT]   (ROOT: the package root, default the current folder)

Everything reqplan shows (the live progress, summaries, validate's formats, diagrams, reports) lives in
`ReqPlanPresentation`; `ReqPlanRuntime` reports events and results, `ReqPlanPlanner` exposes facts. This
reads every Swift file of every target under `Sources` but the presentation's (comment lines aside) and
reports each line that holds an escape code (ESC written any way Swift can write it, or the byte itself), an
ANSI control sequence, or the mark of an output format or of a renderer that belongs in the presentation
target. Two files are left out, each the one place of what it does: `DiagnosticRenderer` in `ReqPlanSyntax`
(the one renderer of static and run-time diagnostics, with its colors, shared by the language server) and
`VisibleText` (which makes the escape codes of outside text visible before anything is shown). The command
line calls the presentation's renderers, so naming them there is no finding; defining one would be.
Exit status 0 when none is found, 1 otherwise (each finding is printed).
"""
import pathlib
import re
import sys

PRESENTATION = "Sources/ReqPlanPresentation"
# The one renderer of diagnostics, and what makes outside text's escape codes visible (see above).
LEFT_OUT = {"Sources/ReqPlanSyntax/Diagnostics/DiagnosticRenderer.swift",
            "Sources/ReqPlanSyntax/Diagnostics/VisibleText.swift"}
# Targets that call the presentation's renderers (the command line): naming one there is no finding.
CALLERS = {"Sources/reqplan"}

ESCAPES = [
    (re.compile(r"\\u\{0*1[bB]\}"), "an escape code (\\u{1B})"),
    (re.compile(r"\\u\{0*9[bB]\}"), "a control sequence introducer (\\u{9B})"),
    (re.compile(r"\\e\["), "an escape code (\\e[)"),
    (re.compile(r"\\0?33\["), "an escape code (\\033[)"),
    (re.compile(r"\\x1[bB]"), "an escape code (\\x1B)"),
    (re.compile(r"\x1b"), "an ESC byte"),
    (re.compile(r"(?:UnicodeScalar|Unicode\.Scalar|Character)\(\s*(?:27|0x1[bB])\s*\)"), "an ESC scalar"),
    # A control sequence body after an ESC kept in a constant: "[2K", "[1A", "[0m", "[1;31m".
    (re.compile(r'"\[(?:\d+(?:;\d+)*)?[ABCDHJKm](?:"|\\)'), "an ANSI control sequence"),
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
    for folder in sorted(p for p in (root / "Sources").iterdir() if p.is_dir()):
        name = str(folder.relative_to(root))
        if name == PRESENTATION:
            continue
        patterns = ESCAPES + [(p, what) for p, what in FORMATS
                              if name not in CALLERS or what != "a renderer of ReqPlanPresentation"]
        for source in sorted(folder.rglob("*.swift")):
            if str(source.relative_to(root)) in LEFT_OUT:
                continue
            text = source.read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(), start=1):
                if line.lstrip().startswith("//"):
                    continue
                for pattern, what in patterns:
                    if pattern.search(line):
                        found.append(f"{source.relative_to(root)}:{number}: {what}: {line.strip()}")
    return found


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    if not (root / PRESENTATION).is_dir():
        print(f"{root}: no {PRESENTATION} here", file=sys.stderr)
        return 2
    problems = findings(root)
    for problem in problems:
        print(problem)
    if problems:
        print("only the presentation renders: move this to Sources/ReqPlanPresentation")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
