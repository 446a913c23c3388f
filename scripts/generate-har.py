#!/usr/bin/env python3
"""Writes a HAR 1.2 log of a long API session, for scripts/bench-import.sh: SIZE_MB megabytes (default 50),
deterministic (a seeded generator). Each round logs in, lists a catalogue (a large JSON body), creates an
item, reads it by the id the create returned, updates and deletes it, and loads a page's static assets, with
the headers a browser sends: the shape of a real session, with data flow to find in every round."""
import json, random, sys, uuid

size = float(sys.argv[1]) if len(sys.argv) > 1 else 50.0
rng = random.Random(41)
origin = "https://shop.example.com"
browser = [
    {"name": "User-Agent", "value": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"},
    {"name": "Accept-Language", "value": "en-GB,en;q=0.9"},
    {"name": "sec-ch-ua-platform", "value": "\"Linux\""},
    {"name": "Sec-Fetch-Mode", "value": "cors"},
]

def entry(method, path, status, body=None, response=None, headers=(), response_headers=(), mime="application/json"):
    request = {"method": method, "url": origin + path, "httpVersion": "HTTP/2", "cookies": [], "queryString": [],
               "headers": browser + list(headers), "headersSize": -1, "bodySize": 0}
    if body is not None:
        text = json.dumps(body)
        request["postData"] = {"mimeType": "application/json", "text": text}
        request["bodySize"] = len(text)
    text = json.dumps(response) if response is not None and mime == "application/json" else (response or "")
    return {"startedDateTime": "2026-11-29T12:00:00.000Z", "time": 12.5, "request": request,
            "response": {"status": status, "statusText": "", "httpVersion": "HTTP/2", "cookies": [],
                         "headers": [{"name": "Content-Type", "value": mime}] + list(response_headers),
                         "content": {"size": len(text), "mimeType": mime, "text": text},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
            "cache": {}, "timings": {"send": 0.1, "wait": 12.0, "receive": 0.4}}

def catalogue(n):
    return {"items": [{"id": str(uuid.UUID(int=rng.getrandbits(128))), "name": f"Product {rng.randrange(10**6)}",
                       "price": rng.randrange(100, 100000) / 100, "tags": ["sale", "new", "eco"][: rng.randrange(4)],
                       "description": " ".join(rng.choice(["fine", "small", "red", "steel", "soft", "bright"])
                                               for _ in range(20))} for _ in range(n)]}

entries, written, round_ = [], 0, 0
while written < size * 1024 * 1024:
    round_ += 1
    token = uuid.UUID(int=rng.getrandbits(128)).hex
    item = str(uuid.UUID(int=rng.getrandbits(128)))
    auth = [{"name": "Authorization", "value": "Bearer " + token}]
    batch = [
        entry("POST", "/api/login", 200, {"user": f"user{round_}@example.com", "password": "hunter2"},
              {"token": token, "expires_in": 3600}),
        entry("GET", "/api/catalogue?page=%d" % round_, 200, None, catalogue(60), auth),
        entry("POST", "/api/items", 201, {"name": f"Item {round_}", "price": 12.5}, {"id": item, "name": f"Item {round_}"},
              auth, [{"name": "Location", "value": f"/api/items/{item}"}]),
        entry("GET", f"/api/items/{item}", 200, None, {"id": item, "name": f"Item {round_}", "price": 12.5}, auth),
        entry("PUT", f"/api/items/{item}", 200, {"name": f"Item {round_} (renamed)"}, {"id": item}, auth),
        entry("DELETE", f"/api/items/{item}", 204, None, None, auth),
        entry("GET", "/static/app.js", 200, None, "console.log(1);" * 200, mime="application/javascript"),
        entry("GET", "/static/logo.png", 200, None, "", mime="image/png"),
    ]
    entries += batch
    written += sum(len(json.dumps(e)) for e in batch)

json.dump({"log": {"version": "1.2", "creator": {"name": "scripts/generate-har.py", "version": "1"},
                   "pages": [], "entries": entries}}, sys.stdout)
