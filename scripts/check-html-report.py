#!/usr/bin/env python3
"""Opens a reqplan HTML report in a real browser (headless Chromium through Selenium) and checks it.

    check-html-report.py REPORT.html RUN.json [SCREENSHOT.png]

RUN.json is the JSON report of the same run (`--report json:`), the facts the page must show. Checks:
the page loads from file:// with no console error and asks the network for nothing; it shows one waterfall
bar per request that sent something and one step per step of the report, with the counts of the run; each
step lists its expectations, met and not, as the report does; each plan's graph draws its steps; a click on the
bar of a failed request opens that step, which shows what came back. Prints what it checked; exits 1 with the
reason on the first check that fails.
"""
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def plans_of(report):
    """Each plan's report with the id of its section on the page: `run` for a plan, `plan-N` in a suite."""
    if report.get("format") == "reqplan-suite/1":
        return [("plan-%d" % (n + 1), plan) for n, plan in enumerate(report["plans"])]
    return [("run", report)]


def steps_of(report):
    found = []

    def visit(step, section):
        step = dict(step, section=section)
        found.append(step)
        for child in step.get("children", []):
            visit(child, section)

    for section, plan in plans_of(report):
        for step in plan["steps"]:
            visit(step, section)
    return found


def main():
    html, run_json = sys.argv[1], sys.argv[2]
    screenshot = sys.argv[3] if len(sys.argv) > 3 else None
    report = json.load(open(run_json))
    steps = steps_of(report)
    requests = [s for s in steps if s["kind"] == "request" and s["attempts"]]
    failed = [s for s in requests if s["state"] == "failed" and s.get("status")]

    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1800"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        url = "file://" + html
        driver.get(url)
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            fail("console errors: %s" % errors)
        asked = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                asked.append(message["params"]["request"]["url"])
        outside = [u for u in asked if u != url and not u.startswith("data:")]
        if outside:
            fail("the page asked the network for %s" % outside)
        # The page as it first shows, before the checks below click on it.
        if screenshot:
            driver.save_screenshot(screenshot)
        print("loaded from file:// with no console error, nothing asked of the network (%d requests: the page)" % len(asked))

        bars = driver.find_elements(By.CSS_SELECTOR, "svg.reqplan-waterfall g.bar")
        if len(bars) != len(requests):
            fail("%d waterfall bars for %d requests that sent something" % (len(bars), len(requests)))
        details = driver.find_elements(By.CSS_SELECTOR, "details.step")
        if len(details) != len(steps):
            fail("%d steps on the page for %d in the report" % (len(details), len(steps)))
        for state in ["succeeded", "failed", "skipped", "cancelled"]:
            shown = len(driver.find_elements(By.CSS_SELECTOR, "details.step[data-state=%s]" % state))
            wanted = len([s for s in steps if s["state"] == state])
            if shown != wanted:
                fail("%d %s steps on the page, %d in the report" % (shown, state, wanted))
        print("%d bars, %d steps, counts by state as in the report" % (len(bars), len(details)))

        # Each step's expectations, in one pass over the page: `section-step-id` -> the marks in order.
        shown = driver.execute_script("""
            var found = {};
            document.querySelectorAll('details.step').forEach(function (step) {
              found[step.id] = Array.prototype.map.call(
                step.querySelectorAll('ul.checks > li'), function (item) { return item.className; });
            });
            return found;""")
        listed = 0
        for step in steps:
            wanted = ["passed" if e["passed"] else "failed" for e in step.get("expectations", [])]
            got = shown.get("%s-step-%s" % (step["section"], step["id"]))
            if got != wanted:
                fail("step %s lists expectations %s on the page, %s in the report" % (step["id"], got, wanted))
            listed += len(wanted)
        print("%d expectations listed, each met or not as in the report" % listed)

        # Each plan's graph draws each of its steps that sends requests.
        for section, plan in plans_of(report):
            nodes = plan.get("graph", {}).get("nodes", [])
            boxes = driver.find_elements(By.CSS_SELECTOR, "#%s svg.reqplan-graph g.step" % section)
            units = [n for n in nodes if n["wave"] is not None]
            if len(boxes) != len(units):
                fail("the graph of %s draws %d boxes for %d steps that send requests" % (section, len(boxes), len(units)))
        print("each plan's graph draws its steps")

        # The filter by state: showing the succeeded steps hides the failed ones.
        driver.find_element(By.CSS_SELECTOR, '.filters button[data-filter="succeeded"]').click()
        hidden = [d for d in driver.find_elements(By.CSS_SELECTOR, "details.step[data-state=failed]") if d.is_displayed()]
        if hidden:
            fail("%d failed steps still shown under the `succeeded` filter" % len(hidden))
        print("the filter by state hides the other steps")
        if failed:
            target = failed[-1]["id"]
            element = "%s-step-%s" % (failed[-1]["section"], target)
            driver.execute_script("document.getElementById(arguments[0]).open = false", element)
            bar = driver.find_element(
                By.CSS_SELECTOR, '#%s svg.reqplan-waterfall g.bar[data-step="%s"]' % (failed[-1]["section"], target))
            driver.execute_script(
                "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", bar)
            step = driver.find_element(By.ID, element)
            if step.get_attribute("open") is None or not step.is_displayed():
                fail("clicking the bar of %s did not open its step" % target)
            came_back = str(failed[-1]["status"])
            summary = step.find_element(By.CSS_SELECTOR, "summary .status").text
            if summary != came_back or (failed[-1].get("response_excerpt") and "response" not in step.text):
                fail("the step of %s does not show what came back (%s): %s" % (target, came_back, step.text))
            print("clicking the bar of failed %s opens it, with its response" % target)
    finally:
        driver.quit()


main()
