#!/usr/bin/env python3
# Sends SIGINT to `reqplan run` in the moment after it opens its inputs file (a named pipe it blocks on), with
# the machine's cores kept busy, and counts the runs that missed the signal: they go on and send requests
# instead of stopping with status 130. A check of InterruptSignals.monitor(), for the race that a unit test meets
# only on a loaded machine (a signal source on Linux is registered asynchronously on libdispatch's manager thread).
#
#   scripts/stress-early-signal.py BINARY ROUNDS [BUSY_LOOPS]
import os, signal, subprocess, sys, tempfile, time

binary, rounds = sys.argv[1], int(sys.argv[2])
busy = int(sys.argv[3]) if len(sys.argv) > 3 else 3 * (os.cpu_count() or 1)
plan = """reqplan: 1
inputs: { base_url: { default: "http://127.0.0.1:1" } }
defaults: { base_url: "${{ inputs.base_url }}" }
steps:
  a: { request: { url: /a } }
  b: { request: { url: /b } }
"""
hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
missed = 0
try:
    for _ in range(rounds):
        folder = tempfile.mkdtemp()
        path, fifo = os.path.join(folder, "plan.yaml"), os.path.join(folder, "inputs.fifo")
        with open(path, "w") as file:
            file.write(plan)
        os.mkfifo(fifo)
        run = subprocess.Popen(
            [binary, "run", path, "--inputs-file", fifo, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        writer = -1
        while writer < 0 and run.poll() is None:
            try:  # succeeds once reqplan has opened the pipe to read
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.0005)
        run.send_signal(signal.SIGINT)
        time.sleep(0.2)
        if writer >= 0:
            try:
                os.write(writer, b"{}")
            except OSError:
                pass
            os.close(writer)
        _, err = run.communicate(timeout=60)
        if run.returncode != 130 or b"SIGINT received" not in err:
            missed += 1
finally:
    for hog in hogs:
        hog.kill()
print(f"{rounds} runs, {busy} busy loops: {missed} missed the signal")
sys.exit(1 if missed else 0)
