#!/usr/bin/env python3
"""How fast `reqplan lsp` answers as a plan is edited, and whether its memory stays flat.

Usage: scripts/bench-lsp.py [--binary .build/release/reqplan] [--steps 1000] [--edits 200] [--check-delay 120]

Starts `reqplan lsp`, opens a generated plan (scripts/generate-plan.py --shape mixed: groups with data
references), then types into it: each edit inserts or deletes one character in a step's description and waits
for the diagnostics it causes. Prints the median and 90th percentile of the time from sending the change to
receiving `textDocument/publishDiagnostics` (the check delay included: it is part of what a user waits), of a
completion in `needs: [`, and the server's resident memory (VmRSS) at the start, middle and end. Talks
JSON-RPC over the server's standard input and output itself, framed as LSP frames it.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Server:
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line == b"\r\n":
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for_diagnostics(self, uri):
        while True:
            message = self.read()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return message["params"]["diagnostics"]

    def rss_kib(self):
        for line in pathlib.Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / ".build/release/reqplan"))
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--check-delay", type=int, default=120)
    args = parser.parse_args()

    plan = subprocess.run(
        [sys.executable, str(ROOT / "scripts/generate-plan.py"), "--shape", "mixed", "--steps", str(args.steps)],
        check=True, capture_output=True, text=True).stdout
    # A step to type into (its description) and to complete in (its `needs: []`), first under `steps:`.
    lines = plan.splitlines()
    steps = lines.index("steps:")
    lines[steps + 1:steps + 1] = ["  probe:", "    description: typed here", "    needs: []",
                                  "    request: { url: /probe }"]
    text = "\n".join(lines) + "\n"
    typed_line, needs_line = steps + 2, steps + 3
    server = Server([args.binary, "lsp", "--check-delay", str(args.check_delay)])
    server.request("initialize", {"processId": os.getpid(), "capabilities": {}})
    server.notify("initialized", {})
    uri = pathlib.Path("/tmp/reqplan-bench-lsp/plan.yaml").as_uri()
    started = time.perf_counter()
    server.notify("textDocument/didOpen",
                  {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
    server.wait_for_diagnostics(uri)
    opened = time.perf_counter() - started
    rss = {"start": server.rss_kib()}

    diagnostics, completions = [], []
    column = len("    description: typed here")
    for edit in range(args.edits):
        # Insert a character, then delete it: the text comes back to where it was every other edit.
        if edit % 2 == 0:
            change = {"range": {"start": {"line": typed_line, "character": column},
                                "end": {"line": typed_line, "character": column}}, "text": "x"}
        else:
            change = {"range": {"start": {"line": typed_line, "character": column},
                                "end": {"line": typed_line, "character": column + 1}}, "text": ""}
        sent = time.perf_counter()
        server.notify("textDocument/didChange",
                      {"textDocument": {"uri": uri, "version": edit + 2}, "contentChanges": [change]})
        server.wait_for_diagnostics(uri)
        diagnostics.append((time.perf_counter() - sent) * 1000)
        if edit % 10 == 0:
            sent = time.perf_counter()
            answer = server.request("textDocument/completion", {
                "textDocument": {"uri": uri}, "position": {"line": needs_line, "character": len("    needs: [")}})
            completions.append((time.perf_counter() - sent) * 1000)
            assert answer["result"]["items"], answer
        if edit == args.edits // 2:
            rss["middle"] = server.rss_kib()
    rss["end"] = server.rss_kib()
    server.request("shutdown", None)
    server.notify("exit", None)
    server.process.wait(timeout=10)

    print(f"plan: {args.steps} steps ({len(text)} bytes), check delay {args.check_delay} ms, {args.edits} edits")
    print(f"open to first diagnostics: {opened * 1000:.0f} ms")
    print(f"change to diagnostics: median {statistics.median(diagnostics):.1f} ms, "
          f"p90 {percentile(diagnostics, 0.9):.1f} ms")
    print(f"completion in needs: median {statistics.median(completions):.1f} ms, "
          f"p90 {percentile(completions, 0.9):.1f} ms")
    print(f"resident memory: start {rss['start'] / 1024:.1f} MiB, middle {rss['middle'] / 1024:.1f} MiB, "
          f"end {rss['end'] / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
