#!/usr/bin/env python3
"""The share of dynamic values a HAR import turns into references, over HAR files (issue 42).

Usage: scripts/import-literal-share.py REQPLAN HAR...

A value is *dynamic* when a request sends it whole (a path segment, a query or form value, a header value or
the credential after `Bearer `, a JSON body's string or integer) and it appeared before in a response of the
same HAR (a JSON body's string or integer, a `Location`, a `Set-Cookie` value), and the client had not sent
it before that response; values of fewer than 3 characters and booleans are not counted. This rule is the
script's own, looser than the importer's (which also skips short values unless their field is named like an
id), so it can show what the importer leaves as literals. Each file is imported with `reqplan import har`;
a dynamic value counts as *referenced* when it no longer appears in the plan outside comments.
"""
import json, subprocess, sys, urllib.parse

def leaves(value):
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict): stack.extend(item.values())
        elif isinstance(item, list): stack.extend(item)
        elif isinstance(item, bool) or item is None: continue
        elif isinstance(item, (int, str)): yield str(item)

def entries(document):
    if isinstance(document, dict) and "log" in document: return document["log"].get("entries", [])
    if isinstance(document, list): return document
    if isinstance(document, dict) and "request" in document: return [document]
    if isinstance(document, dict) and "method" in document: return [{"request": document}]
    return []

def sent(request):
    values = []
    url = urllib.parse.urlsplit(request.get("url", ""))
    values += [urllib.parse.unquote(s) for s in url.path.split("/") if s]
    values += [v for _, v in urllib.parse.parse_qsl(url.query)]
    for header in request.get("headers", []):
        value = header.get("value", "")
        values.append(value)
        if " " in value: values.append(value.split(" ", 1)[1])
    post = request.get("postData") or {}
    text = post.get("text") or ""
    try: values += list(leaves(json.loads(text)))
    except ValueError: values += [v for _, v in urllib.parse.parse_qsl(text)]
    values += [p.get("value", "") for p in post.get("params", []) or []]
    return [v for v in values if len(v) >= 3]

def learnt(response):
    values = []
    for header in response.get("headers", []):
        name = header.get("name", "").lower()
        if name == "location": values.append(header.get("value", ""))
        if name == "set-cookie": values.append(header.get("value", "").split(";")[0].partition("=")[2])
    text = (response.get("content") or {}).get("text") or ""
    try: values += list(leaves(json.loads(text)))
    except ValueError: pass
    return values

reqplan, files = sys.argv[1], sys.argv[2:]
total = referenced = 0
for path in files:
    with open(path, encoding="utf-8") as handle: document = json.load(handle)
    seen_sent, sources, dynamic = set(), set(), set()
    for entry in entries(document):
        request = entry.get("request") or {}
        values = sent(request)
        dynamic.update(v for v in values if v in sources)
        seen_sent.update(values)
        sources.update(v for v in learnt(entry.get("response") or {}) if len(v) >= 3 and v not in seen_sent)
    result = subprocess.run([reqplan, "import", "har", path], capture_output=True, text=True)
    plan = "\n".join(line for line in result.stdout.splitlines() if not line.lstrip().startswith("#"))
    kept = {v for v in dynamic if v in plan}
    total += len(dynamic)
    referenced += len(dynamic) - len(kept)
    print(f"{path}: {len(dynamic)} dynamic, {len(dynamic) - len(kept)} referenced, {len(kept)} left as literals"
          + (f" ({', '.join(sorted(kept)[:5])})" if kept else "") + ("" if result.returncode == 0 else " [import failed]"))
print(f"all: {total} dynamic values, {referenced} referenced ({100 * referenced / total if total else 0:.1f} %)")
