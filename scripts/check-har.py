#!/usr/bin/env python3
"""Checks a HAR file: reads it back with haralyzer (PyPI) and checks the HAR 1.2 structure
(http://www.softwareishard.com/blog/har-12-spec/): the required keys of each object and their types,
timings (send, wait and receive non-negative, the others -1 or more, `time` their sum), ISO 8601 dates,
and each entry's page. Prints one line per problem and exits 1 when there is one, else prints a summary
(`entries N pages P`) and exits 0.

Usage: scripts/check-har.py FILE
"""
import json
import re
import sys

from haralyzer import HarParser

NUMBER = (int, float)
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")

# Required keys and their types, per object (HAR 1.2).
REQUIRED = {
    "log": {"version": str, "creator": dict, "entries": list},
    "creator": {"name": str, "version": str},
    "page": {"startedDateTime": str, "id": str, "title": str, "pageTimings": dict},
    "entry": {
        "startedDateTime": str, "time": NUMBER, "request": dict, "response": dict, "cache": dict,
        "timings": dict,
    },
    "request": {
        "method": str, "url": str, "httpVersion": str, "cookies": list, "headers": list, "queryString": list,
        "headersSize": int, "bodySize": int,
    },
    "response": {
        "status": int, "statusText": str, "httpVersion": str, "cookies": list, "headers": list,
        "content": dict, "redirectURL": str, "headersSize": int, "bodySize": int,
    },
    "pair": {"name": str, "value": str},
    "cookie": {"name": str, "value": str},
    "postData": {"mimeType": str},
    "content": {"size": int, "mimeType": str},
    "timings": {"send": NUMBER, "wait": NUMBER, "receive": NUMBER},
}
OPTIONAL_TIMINGS = ("blocked", "dns", "connect", "ssl")


def main(path):
    problems = []

    def check(kind, value, where):
        if not isinstance(value, dict):
            problems.append(f"{where}: a {kind} must be an object")
            return False
        for key, kind_of_value in REQUIRED[kind].items():
            if key not in value:
                problems.append(f"{where}: {kind} has no `{key}`")
            elif isinstance(value[key], bool) or not isinstance(value[key], kind_of_value):
                problems.append(f"{where}.{key}: wrong type {type(value[key]).__name__}")
        return True

    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    log = document.get("log")
    if not check("log", log, "log"):
        return report(problems)
    if log.get("version") != "1.2":
        problems.append("log.version is not 1.2")
    check("creator", log.get("creator"), "log.creator")
    page_ids = set()
    for index, page in enumerate(log.get("pages", [])):
        where = f"log.pages[{index}]"
        if check("page", page, where):
            page_ids.add(page.get("id"))
            if not ISO_8601.match(str(page.get("startedDateTime"))):
                problems.append(f"{where}.startedDateTime is not ISO 8601")
    for index, entry in enumerate(log.get("entries", [])):
        where = f"log.entries[{index}]"
        if not check("entry", entry, where):
            continue
        if "pageref" in entry and entry["pageref"] not in page_ids:
            problems.append(f"{where}.pageref names no page")
        if not ISO_8601.match(str(entry.get("startedDateTime"))):
            problems.append(f"{where}.startedDateTime is not ISO 8601")
        request, response = entry.get("request"), entry.get("response")
        if check("request", request, where + ".request"):
            for key in ("headers", "queryString"):
                for pair in request.get(key) or []:
                    check("pair", pair, f"{where}.request.{key}")
            for cookie in request.get("cookies") or []:
                check("cookie", cookie, f"{where}.request.cookies")
            if "postData" in request:
                check("postData", request["postData"], where + ".request.postData")
        if check("response", response, where + ".response"):
            for pair in response.get("headers") or []:
                check("pair", pair, f"{where}.response.headers")
            for cookie in response.get("cookies") or []:
                check("cookie", cookie, f"{where}.response.cookies")
            check("content", response.get("content"), where + ".response.content")
        timings = entry.get("timings")
        if check("timings", timings, where + ".timings"):
            total = 0
            for key in ("send", "wait", "receive"):
                if isinstance(timings.get(key), NUMBER) and timings[key] < 0:
                    problems.append(f"{where}.timings.{key} is negative")
                total += timings.get(key, 0)
            for key in OPTIONAL_TIMINGS:
                value = timings.get(key, -1)
                if not isinstance(value, NUMBER) or value < -1:
                    problems.append(f"{where}.timings.{key} is not -1 or more")
                elif value >= 0 and key != "ssl":
                    total += value
            if isinstance(entry.get("time"), NUMBER) and abs(entry["time"] - total) > 0.01:
                problems.append(f"{where}.time {entry['time']} is not the sum of its timings ({total})")

    # haralyzer reads it back: every page's entries, and every entry's request and response.
    parser = HarParser(document)
    entries = 0
    for page in parser.pages:
        for entry in page.entries:
            entries += 1
            _ = (entry.request.method, entry.request.url, entry.response.status, entry.startTime)
    if entries != len(log.get("entries", [])):
        problems.append(f"haralyzer read {entries} entries in pages, the file has {len(log['entries'])}")
    if not problems:
        print(f"entries {entries} pages {len(parser.pages)}")
    return report(problems)


def report(problems):
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
