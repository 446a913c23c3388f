#!/usr/bin/env python3
"""How fast `reqplan lsp` answers as a user types, and whether its memory stays flat (issue 22).

    scripts/bench-lsp.py REQPLAN [--steps 1000] [--size-mb 5] [--keystrokes 200] [--edits 10000]
                         [--check-delay MS]

Generates a plan of STEPS steps bound to an OpenAPI description of about SIZE-MB megabytes
(scripts/generate-openapi.py), starts `REQPLAN lsp` and talks LSP 3.17 to it over pipes, as an editor does:

- keystrokes: KEYSTROKES times, types one character into a step's description and waits for the
  diagnostics of that version; prints the median and 90th percentile from the change sent to the
  diagnostics received (the server's check delay included: --check-delay, passed to the server);
- completion: asks for completion after `steps.` KEYSTROKES times; the median from request to answer;
- requests that read the description: completion after `operation: big.`, after `steps.X.body.` and in
  `path: {`, hover of a response path and of an operation, go to an operation's definition, KEYSTROKES times
  each;
- memory: EDITS edits (a character typed, then taken back), the server's resident set (VmRSS) at the start,
  the middle and the end of them.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import queue


class Client:
    """A minimal LSP client: Content-Length frames over the server's standard input and output."""

    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.incoming = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            self.incoming.put((time.perf_counter(), message))

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, accept, timeout=60):
        """The first message `accept` takes (others are dropped), with when it was read."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("the server did not answer")
            at, message = self.incoming.get(timeout=left)
            if accept(message):
                return at, message

    def rss_kib(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reqplan")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--size-mb", type=float, default=5)
    parser.add_argument("--keystrokes", type=int, default=200)
    parser.add_argument("--edits", type=int, default=10000)
    parser.add_argument("--check-delay", type=int, default=None)
    arguments = parser.parse_args()

    work = tempfile.mkdtemp(prefix="bench-lsp-")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(
        [sys.executable, os.path.join(here, "generate-openapi.py"), "--size-mb", str(arguments.size_mb),
         "--steps", str(arguments.steps), "--out", work], check=True, stdout=subprocess.DEVNULL)
    plan = os.path.join(work, "plan.yaml")
    description = [f for f in os.listdir(work) if f != "plan.yaml"]
    size = sum(os.path.getsize(os.path.join(work, f)) for f in description)
    text = open(plan).read()
    lines = text.split("\n")
    # The line of the first step's id: a description typed into a new line under it.
    first = next(n for n, line in enumerate(lines) if line.startswith("  ") and line.rstrip().endswith(":")
                 and not line.startswith("   "))
    lines.insert(first + 1, "    description: x")
    text = "\n".join(lines)
    typing_line, typing_column = first + 1, len("    description: x")
    uri = "file://" + plan

    command = [arguments.reqplan, "lsp"]
    if arguments.check_delay is not None:
        command += ["--check-delay", str(arguments.check_delay)]
    client = Client(command)
    client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + work, "capabilities": {}})
    client.wait(lambda m: m.get("id") == 1)
    client.notify("initialized", {})
    version = 1
    started = time.perf_counter()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                             "text": text}})

    def diagnostics_of(wanted):
        return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri and m["params"].get("version") in (wanted, None))

    at, first_diagnostics = client.wait(diagnostics_of(1))
    print("plan: %d steps, %d lines; description: %.1f MB; first diagnostics (%d) %.0f ms after didOpen"
          % (arguments.steps, len(lines), size / 1e6, len(first_diagnostics["params"]["diagnostics"]),
             (at - started) * 1000))

    column = typing_column
    def type_character(character, wait):
        nonlocal version, column
        version += 1
        position = {"line": typing_line, "character": column}
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": position, "end": position}, "text": character}]})
        column += 1
        sent = time.perf_counter()
        if wait:
            at, _ = client.wait(diagnostics_of(version))
            return (at - sent) * 1000

    def take_back(wait):
        nonlocal version, column
        version += 1
        column -= 1
        start = {"line": typing_line, "character": column}
        end = {"line": typing_line, "character": column + 1}
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": start, "end": end}, "text": ""}]})
        if wait:
            client.wait(diagnostics_of(version))

    keystrokes = [type_character("y", True) for _ in range(arguments.keystrokes)]
    for _ in range(arguments.keystrokes):
        take_back(False)
    keystrokes.sort()
    print("keystroke -> diagnostics: median %.1f ms, p90 %.1f ms, max %.1f ms (%d keystrokes, check delay %s)"
          % (statistics.median(keystrokes), keystrokes[int(len(keystrokes) * 0.9)], keystrokes[-1],
             len(keystrokes), "%d ms" % arguments.check_delay if arguments.check_delay is not None else "default"))

    # Completion right after the first `steps.` the plan writes in an expression.
    completion_line = next(n for n, line in enumerate(text.split("\n")) if "steps." in line)
    completion_column = text.split("\n")[completion_line].index("steps.") + len("steps.")
    completions = []
    for _ in range(arguments.keystrokes):
        sent = time.perf_counter()
        identifier = client.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": completion_line, "character": completion_column}})
        at, answer = client.wait(lambda m: m.get("id") == identifier)
        completions.append((at - sent) * 1000)
    completions.sort()
    items = answer.get("result") or []
    items = items.get("items", []) if isinstance(items, dict) else items
    print("completion: median %.1f ms, p90 %.1f ms (%d requests, %d items in the last answer)"
          % (statistics.median(completions), completions[int(len(completions) * 0.9)], len(completions), len(items)))

    # Requests that read the bound description: completion of operations, path parameters and response
    # fields, hover of a response path and of an operation, and going to an operation in the description.
    current = text.split("\n")

    def at(needle, line_has):
        n = next(i for i, line in enumerate(current) if line_has in line)
        return {"line": n, "character": current[n].index(needle) + len(needle)}

    cases = [
        ("completion after `operation: big.`", "textDocument/completion", at("operation: big.", "big.getRes0,")),
        ("completion after `steps.create0.body.`", "textDocument/completion",
         at("steps.create0.body.", "steps.create0.body.id")),
        ("completion after `path: { `", "textDocument/completion", at("path: { ", "big.getRes0,")),
        ("hover over `steps.read0.body.name`", "textDocument/hover", at("steps.read0.body.na", "steps.read0.body.name")),
        ("hover over `big.getRes0`", "textDocument/hover", at("operation: big.get", "big.getRes0,")),
        ("definition of `big.getRes0`", "textDocument/definition", at("operation: big.get", "big.getRes0,")),
    ]
    for name, method, position in cases:
        times = []
        for _ in range(arguments.keystrokes):
            sent = time.perf_counter()
            identifier = client.request(method, {"textDocument": {"uri": uri}, "position": position})
            at_time, answer = client.wait(lambda m: m.get("id") == identifier)
            times.append((at_time - sent) * 1000)
        times.sort()
        if not answer.get("result"):
            raise SystemExit("%s: no answer (%s)" % (name, answer))
        print("%s: median %.1f ms, p90 %.1f ms" % (name, statistics.median(times), times[int(len(times) * 0.9)]))

    # Memory over many edits: a character typed and taken back, the last of every 100 waited for.
    samples = [("start", client.rss_kib())]
    for edit in range(1, arguments.edits + 1):
        if edit % 2:
            type_character("z", edit % 100 == 99)
        else:
            take_back(edit % 100 == 0)
        if edit == arguments.edits // 2:
            samples.append(("middle", client.rss_kib()))
    if arguments.edits % 100:
        client.wait(diagnostics_of(version))
    samples.append(("end", client.rss_kib()))
    print("memory over %d edits: %s" % (arguments.edits, ", ".join("%s %.1f MB" % (n, k / 1024) for n, k in samples)))

    client.request("shutdown", None)
    client.wait(lambda m: m.get("id") == client.next_id)
    client.notify("exit", None)
    client.process.wait(timeout=30)


main()
