#!/usr/bin/env bash
# The HTML report of a large run: its size, and how long headless Chromium takes to show it from disk.
# A 2,000-step plan (groups of 10 requests, each group after the one before, with data references:
# scripts/generate-plan.py --shape mixed) runs against reqplan's demo API on loopback with
# `--report html:` and `--report har:`; the page is then loaded ROUNDS times (default 5) in headless
# Chromium through Selenium, each time in a new tab, timing navigation start to the load event and to the
# first contentful paint. Needs chromium, chromium-driver (Debian) and selenium (PyPI).
#
#   scripts/bench-html-report.sh [REQPLAN] [ROUNDS]
set -euo pipefail
R=${1:-.build/debug/reqplan}
ROUNDS=${2:-5}
WORK=$(mktemp -d)
trap 'kill $DEMO 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$R" demo --serve "$PORT" > "$WORK/demo.log" 2>&1 &
DEMO=$!
for _ in $(seq 50); do grep -q listening "$WORK/demo.log" 2>/dev/null && break; sleep 0.1; done
python3 "$(dirname "$0")/generate-plan.py" --shape mixed --steps 2000 --url /items --base-url "http://127.0.0.1:$PORT" \
    > "$WORK/plan.yaml"
no_proxy='*' "$R" run "$WORK/plan.yaml" --progress none --quiet --report "html:$WORK/run.html" \
    --report "har:$WORK/run.har" > /dev/null || true
echo "== 2,000 steps: the page is $(stat -c %s "$WORK/run.html") bytes (HAR beside it: $(stat -c %s "$WORK/run.har") bytes)"
python3 - "$WORK/run.html" "$ROUNDS" <<'PY'
import statistics, sys
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
page, rounds = sys.argv[1], int(sys.argv[2])
options = Options()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
loads, paints = [], []
try:
    for _ in range(rounds):
        driver.switch_to.new_window("tab")
        driver.get("file://" + page)
        timing = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "const p = performance.getEntriesByName('first-contentful-paint')[0];"
            "return [n.loadEventEnd, p ? p.startTime : null];")
        loads.append(timing[0])
        if timing[1] is not None:
            paints.append(timing[1])
finally:
    driver.quit()
print("== headless Chromium, %d loads from file://: load event median %.0f ms (min %.0f, max %.0f); "
      "first contentful paint median %.0f ms" % (rounds, statistics.median(loads), min(loads), max(loads),
                                                  statistics.median(paints) if paints else float("nan")))
PY
