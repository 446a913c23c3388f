#!/usr/bin/env python3
"""Records a HAR 1.2 file of a session in headless Chromium against reqplan's demo API, as a browser's network
panel would save it ("Save all as HAR"), for `reqplan import har` to be tested on a browser's own recording.

Usage: scripts/record-browser-har.py BASE_URL OUT.har

The page at BASE_URL/ is opened, then its script (run in the page, as an application's would) logs in
(POST /login), creates an item with the session token (POST /items, `Authorization: Bearer …`), reads it back
(GET /items/{id}, `X-Session: …`) and deletes it (DELETE /items/{id}). Chromium's DevTools protocol events
(Network.*, through chromedriver's performance log) and each response's body (Network.getResponseBody) are
written as the HAR's entries, in the order the requests were sent; nothing is redacted (a browser's HAR is not).
Needs python3's selenium and /usr/bin/chromedriver (Debian's chromium-driver).
"""
import json
import sys
from datetime import datetime, timezone

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

SESSION = """
const done = arguments[arguments.length - 1];
(async () => {
  const json = {"Content-Type": "application/json"};
  const login = await (await fetch("/login", {method: "POST", headers: json,
      body: JSON.stringify({user: "alice"})})).json();
  const created = await (await fetch("/items", {method: "POST",
      headers: {...json, "Authorization": "Bearer " + login.token},
      body: JSON.stringify({name: "from the browser", kind: "note"})})).json();
  await (await fetch("/items/" + created.id, {headers: {"X-Session": login.token}})).json();
  await fetch("/items/" + created.id, {method: "DELETE", headers: {"Authorization": "Bearer " + login.token}});
  done("ok");
})().catch(error => done("failed: " + error));
"""


def headers(mapping):
    return [{"name": name, "value": value} for name, value in (mapping or {}).items()]


def main():
    base, out = sys.argv[1].rstrip("/"), sys.argv[2]
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.get(base + "/")
        driver.set_script_timeout(60)
        outcome = driver.execute_async_script(SESSION)
        if outcome != "ok":
            sys.exit("the session in the browser failed: %s" % outcome)
        requests, responses, extra, order = {}, {}, {}, []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message.get("method"), message.get("params", {})
            if method == "Network.requestWillBeSent":
                request_id = params["requestId"]
                if request_id not in requests:
                    order.append(request_id)
                requests[request_id] = params
            elif method == "Network.requestWillBeSentExtraInfo":
                extra[params["requestId"]] = params.get("headers", {})
            elif method == "Network.responseReceived":
                responses[params["requestId"]] = params
        entries = []
        for request_id in order:
            sent, answer = requests[request_id], responses.get(request_id)
            request = sent["request"]
            if answer is None or not request["url"].startswith("http"):
                continue
            try:
                body = driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": request_id})
            except Exception:
                body = {"body": "", "base64Encoded": False}
            response = answer["response"]
            har_request = {
                "method": request["method"], "url": request["url"], "httpVersion": response.get("protocol", ""),
                "cookies": [], "headers": headers(extra.get(request_id) or request.get("headers")),
                "queryString": [], "headersSize": -1, "bodySize": len(request.get("postData", "")),
            }
            if "postData" in request:
                content_type = next((v for k, v in request.get("headers", {}).items() if k.lower() == "content-type"), "")
                har_request["postData"] = {"mimeType": content_type, "text": request["postData"]}
            content = {"size": len(body.get("body", "")), "mimeType": response.get("mimeType", ""),
                       "text": body.get("body", "")}
            if body.get("base64Encoded"):
                content["encoding"] = "base64"
            started = datetime.fromtimestamp(sent.get("wallTime", 0), tz=timezone.utc)
            entries.append({
                "startedDateTime": started.isoformat().replace("+00:00", "Z"), "time": 0,
                "request": har_request,
                "response": {
                    "status": response["status"], "statusText": response.get("statusText", ""),
                    "httpVersion": response.get("protocol", ""), "cookies": [],
                    "headers": headers(response.get("headers")), "content": content,
                    "redirectURL": response.get("headers", {}).get("Location", ""), "headersSize": -1,
                    "bodySize": content["size"],
                },
                "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0},
            })
        har = {"log": {"version": "1.2", "creator": {"name": "record-browser-har.py", "version": "1"},
                       "browser": {"name": "Chromium", "version": driver.capabilities.get("browserVersion", "")},
                       "pages": [], "entries": entries}}
        with open(out, "w") as file:
            json.dump(har, file, indent=2)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
