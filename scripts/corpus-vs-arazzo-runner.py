#!/usr/bin/env python3
"""Real Arazzo documents of the corpus (Tests/Fixtures/arazzo/real/) run against mocks by reqplan and by
Jentic's arazzo-runner (PyPI) side by side (issue 38).

For each case (a document, one workflow of it, its inputs) this starts one HTTP server on 127.0.0.1 that
logs every request it gets (method, path, sorted query, body, the headers the document sets) and answers:

  jentic      the fixture's test_config.yaml `custom_mocks` (the workflow's own first, then the global ones:
              method, path with {templates}, `query_params`/`request_params`, `request_body`), as
              arazzo-runner's own test harness serves them; anything else is a logged 404
  json-server a small stand-in for json-server over the fixture's fake-db.json (Respect's local-json-server:
              GET/POST /items, GET/DELETE /items/{id}), the database reset before every process
  httpbin     PyPI's httpbin (the Flask app) served in this process, behind a logging middleware

then runs `reqplan run DOC --server NAME=URL --workflow ID --inputs-file F --output json` and
`arazzo-runner execute-workflow DOC --workflow-id ID --inputs JSON`, each RUNS times (default 3, env RUNS),
and compares what the two sent (in order for a sequential workflow, as multisets otherwise; every run of a
runner must send what its first run sent) and the outcomes (success or failure, and the workflow outputs both
print). It prints one table: the requests each made, same or not, the outcomes, and each runner's median wall
time over its RUNS processes. Exit status 1 when the requests or the outcomes differ (the differences
printed above the table), 2 when the setup fails.

arazzo-runner has no option to point a source description at another server (its --server-variables fill
only a templated server URL), so it runs on a copy of the folder whose OpenAPI descriptions have
`servers: [{url: MOCK}]`; reqplan runs on the corpus files with `--server`. Documents with real mistakes
(expected.yaml) run as corrected copies, the same copy for both runners: each edit below is tied to a
mistake expected.yaml lists at that line (or names that line, `for_line`) and is printed with --show-edits.

A few workflows run twice, the second case tagged in the table: the Discord and json-server ones with
reqplan's --no-response-schema-check (their mocks answer without properties the description requires, which
reqplan checks by default and Arazzo does not ask for), New York Times' with `hl` given as the string its
input schema asks for (test_config.yaml gives a boolean) and without that check. --no-variants leaves those out.

Usage: scripts/corpus-vs-arazzo-runner.py [--reqplan PATH] [--runs N] [--only SUBSTRING] [--show-edits]
                                          [--no-variants] [--markdown] [--verbose]
       (default reqplan: .build/release/reqplan if built, else .build/debug/reqplan)
Needs: python3 with PyYAML, arazzo-runner and httpbin (pip install arazzo-runner httpbin).
"""

import argparse
import copy
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "Fixtures", "arazzo", "real")
DATA = os.path.join(ROOT, "scripts", "corpus-vs-arazzo-runner")
JENTIC = "jentic-arazzo-engine/runner/tests/fixtures"

# ---------------------------------------------------------------------------------------------------------
# Corrections. A rule applies to a line that expected.yaml lists as a mistake whose text contains `when`;
# the regex must match on that line (else the script stops: the corpus moved). `fix` is the replacement
# (a callable or a template), or None to drop the line.


def _body_pointer(m):
    return "$response.body#/" + m.group(1).replace(".", "/")


RULES = {
    # `$response.body.x.y` -> `$response.body#/x/y` (1.0.1 ABNF: `$response.body` then an optional
    # `#/json-pointer`)
    "response-dot": ("`$response.` takes", r"\$response\.body\.([A-Za-z0-9_.]+)", _body_pointer),
    # `$steps.S.name` -> `$steps.S.outputs.name` (the text gives a step's values only as
    # `$steps.STEPID.outputs.NAME`)
    "steps-outputs": ("reads nothing", r"\$steps\.([A-Za-z0-9_-]+)\.(?!outputs\.)([A-Za-z0-9_]+)",
                      r"$steps.\1.outputs.\2"),
    # operationPath `SRC#/paths/...` -> `'{$sourceDescriptions.SRC.url}#/paths/...'` (Step Object
    # operationPath: a runtime expression MUST identify the source description)
    "operation-path": ("does not identify its source description",
                       r"operationPath: ([A-Za-z0-9_-]+)(#\S+)", r"operationPath: '{$sourceDescriptions.\1.url}\2'"),
    # an output whose value is null or a number, not an expression (1.0.x): the output is dropped
    "literal-output": ("output value is a", r"^\s+[A-Za-z0-9_]+: (null|\d+)\s*(#.*)?$", None),
}


@dataclass
class Edit:
    line: int
    rule: str = ""          # a RULES key, or "" for an explicit edit
    old: str = ""           # explicit: a regex that must match on the line
    new: object = None      # explicit: its replacement, None drops the line
    why: str = ""
    for_line: int = 0       # an edit at a line that is no mistake, made for the mistake at this line


@dataclass
class Case:
    doc: str                       # path under CORPUS
    workflow: str
    mock: str                      # jentic | json-server | httpbin
    inputs: dict = field(default_factory=dict)
    config_index: int = -1         # jentic: index of the test_config.yaml workflow entry (its mocks, inputs)
    rules: tuple = ()              # RULES to apply on expected.yaml's mistake lines
    edits: list = field(default_factory=list)
    extra_files: dict = field(default_factory=dict)   # name -> path under DATA, copied beside the document
    note: str = ""
    reqplan_args: tuple = ()       # more arguments for `reqplan run` in this case only
    tag: str = ""                  # told apart from another case of the same workflow in the table


# The Spotify document's three plain operationIds, which name their source as its two OpenAPI sources require
# (both of its workflows run from the same corrected copy).
SPOTIFY_EDITS = [
    Edit(34, old=r"operationId: get-spotify-token", new="operationId: $sourceDescriptions.spotifyAuth.get-spotify-token",
         why="a plain operationId with two openapi sources MUST name its source"),
    Edit(79, old=r"operationId: search", new="operationId: $sourceDescriptions.spotifyApi.search",
         why="a plain operationId with two openapi sources MUST name its source"),
    Edit(129, old=r"operationId: get-track", new="operationId: $sourceDescriptions.spotifyApi.get-track",
         why="a plain operationId with two openapi sources MUST name its source"),
]

# The New York Times document's output names have spaces, which break ^[a-zA-Z0-9.\-_]+$ (MUST): the spaces
# are taken out where each is declared and where it is read.
NYT_OUTPUT_NAMES = [
    Edit(n, old=name, new=name.replace(" ", ""),
         why="an output name with spaces breaks ^[a-zA-Z0-9.\\-_]+$ (MUST): the spaces taken out, "
             "where it is declared and where it is read")
    for name, lines in (("Search ArticlesResponse", (52, 77)),
                        ("Search by Date RangeResponse", (119, 144)),
                        ("Get Article FacetsResponse", (186, 211)),
                        ("Search with HighlightingResponse", (253, 278))) for n in lines]

CASES = [
    Case(f"{JENTIC}/sample_test/example_workflow.yaml", "exampleWorkflow", "jentic", config_index=0,
         rules=("response-dot", "steps-outputs")),
    Case(f"{JENTIC}/sample_login_workflow/login_workflow.yaml", "loginWorkflow", "jentic", config_index=0,
         rules=("response-dot", "steps-outputs")),
    Case(f"{JENTIC}/sample_login_workflow/login_workflow.yaml", "failedLoginWorkflow", "jentic",
         config_index=1, rules=("response-dot", "steps-outputs")),
    Case(f"{JENTIC}/xkcd/xkcd.arazzo.yaml", "getCurrentComic", "jentic", config_index=0,
         rules=("operation-path", "response-dot", "steps-outputs", "literal-output")),
    Case(f"{JENTIC}/xkcd/xkcd.arazzo.yaml", "getComicById", "jentic", config_index=1,
         rules=("operation-path", "response-dot", "steps-outputs", "literal-output")),
    Case(f"{JENTIC}/pet_coupons/pet-coupons.arazzo.yaml", "apply-coupon", "jentic", config_index=0,
         edits=[Edit(40, old=r"name: pet_id", new="name: petId",
                     why="the operation's path parameter is `petId`; `pet_id` is no parameter of "
                         "GET /pet/{petId}/coupons")]),
    Case(f"{JENTIC}/pet_coupons/pet-coupons.arazzo.yaml", "buy-available-pet", "jentic", config_index=1,
         edits=[Edit(40, old=r"name: pet_id", new="name: petId",
                     why="the operation's path parameter is `petId`; `pet_id` is no parameter of "
                         "GET /pet/{petId}/coupons")]),
    Case(f"{JENTIC}/pet_coupons/pet-coupons.arazzo.yaml", "place-order", "jentic", config_index=2,
         edits=[Edit(40, old=r"name: pet_id", new="name: petId",
                     why="the operation's path parameter is `petId`; `pet_id` is no parameter of "
                         "GET /pet/{petId}/coupons")]),
    Case(f"{JENTIC}/train/train.arazzo.yaml", "Search Stations", "jentic", config_index=0),
    Case(f"{JENTIC}/bnpl/bnpl-arazzo.yaml", "ApplyForLoanAtCheckout", "jentic", config_index=0,
         rules=("steps-outputs",),
         edits=[Edit(229, old=r"name: redirectAuthToken", new="name: AuthorizationToken",
                     why="GET /auth's query parameter is `AuthorizationToken`; `redirectAuthToken` is none of its "
                         "parameters"),
                Edit(231, old=r"\$steps\.authenticateCustomerAndAuthorizeLoan\.outputs\.redirectAuthToken",
                     new="$steps.initiateBnplTransaction.outputs.redirectAuthToken",
                     why="the step reads an output of its own it does not declare; `redirectAuthToken` is the "
                         "output of initiateBnplTransaction (line 215)"),
                Edit(235, old=r"\$response\.headers\.Location", new="$response.header.Location",
                     why="`$response.header.NAME` (1.0.1 ABNF), not `headers`"),
                Edit(216, for_line=242, old=r"^\s+loanTransactionResourceUrl: \$response\.body#/links/self$",
                     new="      loanTransactionResourceUrl: $response.body#/links/self\n"
                         "      loanTransactionId: $response.body#/loanTransactionId",
                     why="declares the output `loanTransactionId` that lines 242 and 253 read (the 202 "
                         "response's required `loanTransactionId`)")],
         note="reqplan refuses the document (exit 2): what it reads and sends does not fit bnpl-openapi.yaml "
              "(RP0807, RP0808); with these mocks the first onSuccess action (`end`) applies after one request"),
    Case(f"{JENTIC}/discord/discord.arazzo.yaml", "getUserInfoAndSendMessage", "jentic", config_index=0,
         rules=("response-dot", "steps-outputs")),
    Case(f"{JENTIC}/discord/discord.arazzo.yaml", "listUserGuilds", "jentic", config_index=1,
         rules=("response-dot", "steps-outputs"),
         edits=[Edit(96, old=r"^\s+guildCount: 2\s*$", new=None,
                     why="output `guildCount` is the number 2, not a runtime expression (1.0.x): dropped"),
                Edit(99, old=r"^\s+guildCount: \$steps\.getUserGuilds\.guildCount\s*$", new=None,
                     why="reads `guildCount`, dropped above (and `$steps.X.name` reads nothing)")]),
    # The mocks answer without properties discord.openapi.json marks required (`discriminator`, `features`):
    # reqplan checks responses against the description by default and fails the step (RP0810); Arazzo asks
    # only for the successCriteria, so the same two workflows again without that check
    Case(f"{JENTIC}/discord/discord.arazzo.yaml", "getUserInfoAndSendMessage", "jentic", config_index=0,
         rules=("response-dot", "steps-outputs"), reqplan_args=("--no-response-schema-check",),
         tag="no schema check"),
    Case(f"{JENTIC}/discord/discord.arazzo.yaml", "listUserGuilds", "jentic", config_index=1,
         rules=("response-dot", "steps-outputs"), reqplan_args=("--no-response-schema-check",),
         tag="no schema check",
         edits=[Edit(96, old=r"^\s+guildCount: 2\s*$", new=None,
                     why="output `guildCount` is the number 2, not a runtime expression (1.0.x): dropped"),
                Edit(99, old=r"^\s+guildCount: \$steps\.getUserGuilds\.guildCount\s*$", new=None,
                     why="reads `guildCount`, dropped above (and `$steps.X.name` reads nothing)")]),
    Case(f"{JENTIC}/newyork_times/newyork_times.arazzo.yaml", "Search Articles by Keyword", "jentic",
         config_index=0, rules=("operation-path",),
         edits=NYT_OUTPUT_NAMES),
    # test_config.yaml gives `hl: true`, a boolean, for an input the document types `string`: the case above
    # passes it as given, this one as the string the schema asks for (the mock wants `hl=true`); the mock's
    # answer does not fit the description either (`keywords` an array where it says an object)
    Case(f"{JENTIC}/newyork_times/newyork_times.arazzo.yaml", "Search Articles by Keyword", "jentic",
         config_index=0, rules=("operation-path",), inputs={"hl": "true"}, tag="hl as a string, no schema check",
         reqplan_args=("--no-response-schema-check",),
         edits=NYT_OUTPUT_NAMES),
    Case(f"{JENTIC}/spotify/spotify.arazzo.yaml", "getSpotifyToken", "jentic", config_index=0,
         rules=("response-dot", "steps-outputs"),
         edits=SPOTIFY_EDITS),
    Case(f"{JENTIC}/spotify/spotify.arazzo.yaml", "searchTracks", "jentic", config_index=1,
         rules=("response-dot", "steps-outputs"),
         edits=SPOTIFY_EDITS),
    Case("redocly-respect/tests/e2e/respect/local-json-server/local-json-server.arazzo.yaml", "before",
         "json-server"),
    Case("redocly-respect/tests/e2e/respect/local-json-server/local-json-server.arazzo.yaml", "crud-items",
         "json-server", note="fails by design at get-all-items-again (`$response.body#/0/value == 100`)"),
    # `$faker.number.integer(...)` (Respect's) is no Arazzo runtime expression: reqplan sends the text, the
    # stand-in echoes it back and the response's `value` is not the number the description says (RP0810)
    Case("redocly-respect/tests/e2e/respect/local-json-server/local-json-server.arazzo.yaml", "crud-items",
         "json-server", reqplan_args=("--no-response-schema-check",), tag="no schema check"),
    Case("alirezaght-arazzo/examples/httpbin.arazzo.yaml", "httpbin_smoke", "httpbin",
         inputs={"testHeaderValue": "hello-from-arazzo", "delaySeconds": 1, "message": "it lives"},
         note="inputs given at the schema's defaults: arazzo-runner does not apply `default` (it sends "
              "/delay/None without them)",
         edits=[Edit(9, old=r"url: https://raw\.githubusercontent\.com/\S+", new="url: ./httpbin.yaml",
                     why="the description is remote (conorbranagan/mcp-openapi test-specs/httpbin.yaml); "
                         "its copy beside the document (reqplan refuses remote descriptions, RP1003; "
                         "no network here)")],
         extra_files={"httpbin.yaml": "httpbin.yaml"}),
    Case("alirezaght-arazzo/examples/httpbin.arazzo.yaml", "httpbin_retry_429", "httpbin",
         edits=[Edit(9, old=r"url: https://raw\.githubusercontent\.com/\S+", new="url: ./httpbin.yaml",
                     why="the description is remote; its copy beside the document")],
         extra_files={"httpbin.yaml": "httpbin.yaml"}, note="fails by design after 3 retries of a 429"),
    Case("alirezaght-arazzo/examples/httpbin_advanced.arazzo.yaml", "complex_jsonpath_everywhere", "httpbin",
         inputs={"user": "alice", "password": "s3cret", "authorizationHeader": "Basic YWxpY2U6czNjcmV0",
                 "delaySeconds": 0},
         edits=[Edit(10, old=r"url: https://raw\.githubusercontent\.com/\S+", new="url: ./httpbin.yaml",
                     why="the description is remote; its copy beside the document")],
         extra_files={"httpbin.yaml": "httpbin.yaml"},
         note="delaySeconds 0 (default 2) to keep runs short"),
]


# ---------------------------------------------------------------------------------------------------------
# The request log


def parse_body(raw, content_type):
    if not raw:
        return None
    text = raw.decode("utf-8", "replace")
    ct = (content_type or "").split(";")[0].strip().lower()
    if ct.endswith("json") or ct == "":
        try:
            return json.loads(text)
        except ValueError:
            return text
    if ct == "application/x-www-form-urlencoded":
        return sorted(urllib.parse.parse_qsl(text, keep_blank_values=True))
    return text


class Log:
    def __init__(self, watched_headers):
        self.lock = threading.Lock()
        self.entries = []
        self.watched = {h.lower() for h in watched_headers}

    def add(self, method, raw_path, headers, body):
        parts = urllib.parse.urlsplit(raw_path)
        lower = {k.lower(): v for k, v in headers.items()}
        ct = lower.get("content-type")
        entry = {
            "method": method.upper(),
            "path": urllib.parse.unquote(parts.path),
            # sorted by name; the values of a repeated name keep their order
            "query": sorted(urllib.parse.parse_qsl(parts.query, keep_blank_values=True), key=lambda kv: kv[0]),
            "body": parse_body(body, ct),
            "headers": {k: v for k, v in lower.items() if k in self.watched},
        }
        if ct and body:
            entry["headers"]["content-type"] = ct.split(";")[0].strip().lower()  # the media type only
        with self.lock:
            self.entries.append(entry)
        return entry

    def take(self):
        with self.lock:
            entries, self.entries = self.entries, []
        return entries


# ---------------------------------------------------------------------------------------------------------
# Mocks


def path_matches(template, path):
    t, p = template.rstrip("/").split("/"), path.rstrip("/").split("/")
    if len(t) != len(p):
        return False
    return all(a == b or (a.startswith("{") and a.endswith("}") and b) for a, b in zip(t, p))


def url_path(url):
    return urllib.parse.urlsplit(url).path.rstrip("/") if "://" in url else url.rstrip("/")


class JenticMocks:
    """test_config.yaml's custom_mocks: the workflow's own, then the global ones, first match wins."""

    def __init__(self, config, config_index):
        base_urls = config.get("base_urls") or {}
        first_base = url_path(next(iter(base_urls.values()))) if base_urls else ""
        self.mocks = []
        entry = (config.get("workflows") or [])[config_index]
        for m in entry.get("custom_mocks") or []:
            self.mocks.append(self._norm(m, first_base))
        for source, mocks in (config.get("custom_mocks") or {}).items():
            base = url_path(base_urls.get(source, "")) if source in base_urls else first_base
            for m in mocks or []:
                self.mocks.append(self._norm(m, base))
        self.inputs = entry.get("inputs", entry.get("params")) or {}

    @staticmethod
    def _norm(m, base):
        where = m.get("url") or m.get("path")
        path = url_path(where) if "://" in where else base + where
        return dict(m, full_path=path or "/")

    def reset(self):
        pass

    def answer(self, method, path, query, body):
        for m in self.mocks:
            if m.get("method", "get").upper() != method or not path_matches(m["full_path"], path):
                continue
            wanted = m.get("query_params") or m.get("request_params")
            if wanted and not self._query_matches(wanted, query):
                continue
            if "request_body" in m and m["request_body"] != body:
                continue
            headers = dict(m.get("headers") or {})
            if "response" in m:
                headers.setdefault("Content-Type", "application/json")
                payload = json.dumps(m["response"]).encode()
            elif "text" in m:
                headers.setdefault("Content-Type", "text/plain")
                payload = m["text"].encode()
            else:
                payload = b""
            return m.get("status_code", 200), headers, payload
        return 404, {"Content-Type": "application/json"}, b'{"error": "no mock for this request"}'

    @staticmethod
    def _query_matches(wanted, query):
        got = {}
        for k, v in query:
            got.setdefault(k, []).append(v)
        for k, v in wanted.items():
            values = got.get(k)
            if values is None:
                return False
            if isinstance(v, list):
                want = [str(x) for x in v]
                if values != want and values != [",".join(want)]:
                    return False
            elif values != [str(v).lower() if isinstance(v, bool) else str(v)]:
                return False
        return True


class JsonServer:
    """json-server's routes for one collection, `items`, over fake-db.json; ids "1", "2", ... per process."""

    def __init__(self, db_path):
        with open(db_path) as f:
            self.initial = json.load(f)
        self.reset()

    def reset(self):
        self.db = copy.deepcopy(self.initial)
        self.next_id = 1

    def answer(self, method, path, query, body):
        parts = [p for p in path.split("/") if p]
        json_ct = {"Content-Type": "application/json"}
        if not parts or parts[0] not in self.db:
            return 404, json_ct, b"{}"
        items = self.db[parts[0]]
        if len(parts) == 1:
            if method == "GET":
                return 200, json_ct, json.dumps(items).encode()
            if method == "POST":
                item = dict(body) if isinstance(body, dict) else {}
                item["id"] = str(self.next_id)
                self.next_id += 1
                items.append(item)
                return 201, json_ct, json.dumps(item).encode()
        elif len(parts) == 2:
            found = [i for i in items if str(i.get("id")) == parts[1]]
            if not found:
                return 404, json_ct, b"{}"
            if method == "GET":
                return 200, json_ct, json.dumps(found[0]).encode()
            if method == "DELETE":
                items.remove(found[0])
                return 200, json_ct, json.dumps(found[0]).encode()
        return 404, json_ct, b"{}"


def serve_mock(mock, log):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _any(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            entry = log.add(self.command, self.path, dict(self.headers.items()), raw)
            status, headers, payload = mock.answer(entry["method"], entry["path"], entry["query"],
                                                   entry["body"])
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def serve_httpbin(log):
    import logging
    logging.getLogger("httpbin").setLevel(logging.ERROR)
    import httpbin

    def app(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(raw)
        path = environ.get("PATH_INFO", "")
        if environ.get("QUERY_STRING"):
            path += "?" + environ["QUERY_STRING"]
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        log.add(environ["REQUEST_METHOD"], path, headers, raw)
        return httpbin.app(environ, start_response)

    server = make_server("127.0.0.1", 0, app, server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------------------------------------------------
# Preparing the document


def expected_entry(doc):
    with open(os.path.join(CORPUS, "expected.yaml")) as f:
        for entry in yaml.safe_load(f)["documents"]:
            if entry["path"] == doc:
                return entry
    raise SystemExit(f"{doc} is not in expected.yaml")


def mistake_lines(entry):
    out = {}
    for m in entry.get("mistakes") or []:
        n = int(re.match(r"line (\d+):", m).group(1))
        out.setdefault(n, []).append(m)
    return out


def corrected_lines(case):
    """The document's lines after the case's edits, and a description of each edit."""
    with open(os.path.join(CORPUS, case.doc)) as f:
        lines = f.read().split("\n")
    entry = expected_entry(case.doc)
    mistakes = mistake_lines(entry)
    done, notes = {}, []
    for edit in case.edits:
        i = edit.line - 1
        if not re.search(edit.old, lines[i]):
            raise SystemExit(f"{case.doc}:{edit.line}: `{edit.old}` not found in {lines[i]!r}")
        tied = edit.for_line or edit.line
        if not entry.get("clean") and tied not in mistakes and not edit.why.startswith("the description is remote"):
            # an edit for a mistake must be at a line expected.yaml lists, or name one (`for_line`); a remote
            # description is no mistake
            if "dropped above" not in edit.why:
                raise SystemExit(f"{case.doc}:{tied}: no mistake in expected.yaml at this line")
        new = None if edit.new is None else re.sub(edit.old, lambda m: edit.new, lines[i])
        notes.append((edit.line, lines[i].strip(), None if new is None else new.strip(), edit.why,
                      "; ".join(mistakes.get(tied, [])) or "(not a mistake)"))
        done[i] = new
    for rule_name in case.rules:
        when, pattern, fix = RULES[rule_name]
        for n, texts in sorted(mistakes.items()):
            if not any(when in t for t in texts) or (n - 1) in done:
                continue
            i = n - 1
            if not re.search(pattern, lines[i]):
                raise SystemExit(f"{case.doc}:{n}: rule {rule_name} does not match {lines[i]!r}")
            new = None if fix is None else re.sub(pattern, fix, lines[i])
            notes.append((n, lines[i].strip(), None if new is None else new.strip(), rule_name,
                          "; ".join(t for t in texts if when in t)))
            done[i] = new
    out = [done.get(i, line) for i, line in enumerate(lines) if not (i in done and done[i] is None)]
    return out, sorted(notes)


def source_descriptions(doc_text):
    doc = yaml.safe_load(doc_text)
    return [s for s in doc.get("sourceDescriptions") or [] if s.get("type", "openapi") == "openapi"]


def load_description(path):
    with open(path) as f:
        text = f.read()
    return yaml.safe_load(text) if path.endswith((".yaml", ".yml")) else json.loads(text)


def server_path(description):
    servers = description.get("servers") or [{"url": "/"}]
    return url_path(servers[0].get("url", "/"))


def prepare(case, work, mock_root):
    """Folders for both runners; returns (reqplan doc, arazzo-runner doc, --server args, edit notes)."""
    src_dir = os.path.dirname(os.path.join(CORPUS, case.doc))
    name = os.path.basename(case.doc)
    if case.edits or case.rules:
        lines, notes = corrected_lines(case)
        text = "\n".join(lines)
    else:
        with open(os.path.join(CORPUS, case.doc)) as f:
            text = f.read()
        notes = []
    sources = source_descriptions(text)
    rp_dir, ar_dir = os.path.join(work, "reqplan"), os.path.join(work, "arazzo-runner")
    for d in (rp_dir, ar_dir):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    server_args = []
    for s in sources:
        rel = s["url"]
        origin = os.path.join(DATA, case.extra_files[os.path.basename(rel)]) \
            if os.path.basename(rel) in case.extra_files else os.path.join(src_dir, rel)
        description = load_description(origin)
        url = mock_root + server_path(description)
        server_args += ["--server", f"{s['name']}={url}"]
        for d in (rp_dir, ar_dir):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        shutil.copyfile(origin, os.path.join(rp_dir, rel))
        description["servers"] = [{"url": url}]
        with open(os.path.join(ar_dir, rel), "w") as f:
            if rel.endswith((".yaml", ".yml")):
                yaml.safe_dump(description, f, sort_keys=False, allow_unicode=True)
            else:
                json.dump(description, f)
    rp_doc = os.path.join(CORPUS, case.doc) if not notes else os.path.join(rp_dir, name)
    if not notes and case.extra_files:
        rp_doc = os.path.join(rp_dir, name)
    return rp_doc, os.path.join(ar_dir, name), server_args, notes


def header_parameters(doc_text):
    names = set(re.findall(r"name:\s*['\"]?([A-Za-z0-9-]+)['\"]?\s*\n\s*in:\s*header", doc_text))
    names |= set(re.findall(r"in:\s*header\s*\n\s*name:\s*['\"]?([A-Za-z0-9-]+)", doc_text))
    return names


# ---------------------------------------------------------------------------------------------------------
# Running


def run_process(argv, cwd, timeout=120):
    env = dict(os.environ, no_proxy="*", NO_PROXY="*")
    start = time.perf_counter()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or "", e.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    return time.perf_counter() - start, code, out, err


def reqplan_outcome(code, out, err):
    outputs = None
    try:
        outputs = json.loads(out) if out.strip() else None
    except ValueError:
        pass
    errors = [l for l in err.splitlines() if l.startswith("error[")]
    return {"success": code == 0, "code": code, "outputs": outputs,
            "detail": (errors[0] if errors else (err.strip().splitlines() or [""])[-1]) if code != 0 else ""}


def _python_literal_after(text, marker):
    """The Python literal (a dict) printed after `marker` in arazzo-runner's repr, or None."""
    import ast
    at = text.find(marker)
    if at < 0:
        return None
    start = at + len(marker)
    for end in range(start + 1, len(text) + 1):
        if text[end - 1] != "}":
            continue
        try:
            return ast.literal_eval(text[start:end])
        except (ValueError, SyntaxError):
            continue
    return None


def arazzo_runner_outcome(code, out, err):
    status = re.search(r"WorkflowExecutionResult\(status=([a-z_]+)", out)
    status = status.group(1) if status else None
    outputs = _python_literal_after(out, ", outputs=")
    error = re.search(r"error=('.*?'|\".*?\"|None)\)\s*$", out.strip(), re.S)
    success = code == 0 and status == "workflow_complete"
    detail = ""
    if not success:
        detail = (error.group(1) if error and error.group(1) != "None" else "") or \
                 (err.strip().splitlines() or [""])[-1]
    return {"success": success, "code": code, "status": status, "outputs": outputs, "detail": detail[:300]}


def canon(entry):
    return json.dumps(entry, sort_keys=True)


def compare_requests(a, b, ordered):
    if ordered:
        return [canon(e) for e in a] == [canon(e) for e in b]
    return sorted(canon(e) for e in a) == sorted(canon(e) for e in b)


def diff_requests(a, b):
    import difflib
    return "\n".join(difflib.unified_diff([canon(e) for e in a], [canon(e) for e in b],
                                          "reqplan", "arazzo-runner", lineterm="", n=1))


def is_ordered(doc_text, workflow):
    doc = yaml.safe_load(doc_text)
    for w in doc.get("workflows") or []:
        if w.get("workflowId") == workflow:
            return not any("dependsOn" in s for s in w.get("steps") or [])
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_rp = os.path.join(ROOT, ".build", "release", "reqplan")
    if not os.path.exists(default_rp):
        default_rp = os.path.join(ROOT, ".build", "debug", "reqplan")
    ap.add_argument("--reqplan", default=default_rp)
    ap.add_argument("--arazzo-runner", default=shutil.which("arazzo-runner") or "arazzo-runner")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "3")))
    ap.add_argument("--reqplan-arg", action="append", default=[],
                    help="one more argument for reqplan run (repeatable), e.g. --no-response-schema-check")
    ap.add_argument("--only", action="append", help="run the cases whose document or workflow contains this")
    ap.add_argument("--show-edits", action="store_true", help="print every edit of a corrected copy")
    ap.add_argument("--verbose", action="store_true", help="print each runner's requests and output")
    ap.add_argument("--no-variants", action="store_true",
                    help="leave out the second cases of a workflow (reqplan without its response check, an input "
                         "as its schema types it)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    if not os.path.exists(args.reqplan):
        print(f"no reqplan at {args.reqplan}: swift build first", file=sys.stderr)
        return 2
    reqplan = os.path.abspath(args.reqplan)
    cases = [c for c in CASES if not args.only or any(o in c.doc or o == c.workflow for o in args.only)]
    if args.no_variants:
        cases = [c for c in cases if not c.tag]
    rows, problems = [], []
    work_root = tempfile.mkdtemp(prefix="corpus-vs-arazzo-runner-")
    try:
        for n, case in enumerate(cases):
            label = f"{case.doc.split('/')[-2]}/{os.path.basename(case.doc)} {case.workflow}" + \
                (f" ({case.tag})" if case.tag else "")
            with open(os.path.join(CORPUS, case.doc)) as f:
                original = f.read()
            log = Log(header_parameters(original))
            src_dir = os.path.dirname(os.path.join(CORPUS, case.doc))
            inputs = dict(case.inputs)
            if case.mock == "jentic":
                with open(os.path.join(src_dir, "test_config.yaml")) as f:
                    mock = JenticMocks(yaml.safe_load(f), case.config_index)
                inputs = dict(mock.inputs, **inputs)
                server = serve_mock(mock, log)
            elif case.mock == "json-server":
                mock = JsonServer(os.path.join(src_dir, "fake-db.json"))
                server = serve_mock(mock, log)
            else:
                mock = None
                server = serve_httpbin(log)
            root = f"http://127.0.0.1:{server.server_address[1]}"
            work = os.path.join(work_root, str(n))
            rp_doc, ar_doc, server_args, notes = prepare(case, work, root)
            if args.show_edits and notes:
                print(f"== {label}: corrected copy, {len(notes)} edit(s)")
                for line, old, new, why, mistake in notes:
                    print(f"  line {line}: {old!r} -> {new!r}  [{why}]")
            inputs_file = os.path.join(work, "inputs.json")
            with open(inputs_file, "w") as f:
                json.dump(inputs, f)
            rp_argv = [reqplan, "run", rp_doc, *server_args, "--workflow", case.workflow,
                       "--inputs-file", inputs_file, "--output", "json", "--progress", "none",
                       *case.reqplan_args, *args.reqplan_arg]
            ar_argv = [args.arazzo_runner, "execute-workflow", ar_doc, "--workflow-id", case.workflow,
                       "--inputs", json.dumps(inputs)]
            results = {}
            for runner, argv, outcome, cwd in (("reqplan", rp_argv, reqplan_outcome, os.path.dirname(rp_doc)),
                                               ("arazzo-runner", ar_argv, arazzo_runner_outcome,
                                                os.path.dirname(ar_doc))):
                times, first, logs_same = [], None, True
                for _ in range(args.runs):
                    if mock:
                        mock.reset()
                    log.take()
                    elapsed, code, out, err = run_process(argv, cwd)
                    time.sleep(0.05)  # let the server finish logging a request whose answer was cut
                    entries = log.take()
                    times.append(elapsed)
                    if first is None:
                        first = (outcome(code, out, err), entries, out, err)
                    elif [canon(e) for e in entries] != [canon(e) for e in first[1]]:
                        logs_same = False
                results[runner] = {"outcome": first[0], "requests": first[1], "median": statistics.median(times),
                                   "stable": logs_same, "out": first[2], "err": first[3]}
                if args.verbose:
                    print(f"-- {label} {runner}: {' '.join(argv)}")
                    for e in first[1]:
                        print("   ", canon(e))
                    print("   out:", first[2].strip()[-2000:])
                    print("   err:", first[3].strip()[-2000:])
            server.shutdown()
            server.server_close()
            rp, ar = results["reqplan"], results["arazzo-runner"]
            ordered = is_ordered(original, case.workflow)
            same_requests = compare_requests(rp["requests"], ar["requests"], ordered)
            same_success = rp["outcome"]["success"] == ar["outcome"]["success"]
            output_diffs = []
            ro, ao = rp["outcome"]["outputs"], ar["outcome"]["outputs"]
            if isinstance(ro, dict) and isinstance(ao, dict):
                if set(ro) == {case.workflow} and isinstance(ro[case.workflow], dict):
                    ro = ro[case.workflow]
                for k in sorted(set(ro) & set(ao)):
                    if ro[k] != ao[k]:
                        output_diffs.append(f"{k}: reqplan {json.dumps(ro[k])[:200]} / "
                                            f"arazzo-runner {json.dumps(ao[k], default=str)[:200]}")
                for k in sorted(set(ro) ^ set(ao)):
                    output_diffs.append(f"{k}: only {'reqplan' if k in ro else 'arazzo-runner'} prints it")
            compared_outputs = isinstance(ro, dict) and isinstance(ao, dict)
            outputs_same = not [d for d in output_diffs if "only" not in d]
            ok = same_requests and same_success and outputs_same and rp["stable"] and ar["stable"]
            if not ok:
                lines = [f"== {label}: DIFFERENT"]
                if not same_requests:
                    lines.append(f"requests ({'in order' if ordered else 'as multisets'}):")
                    lines.append(diff_requests(rp["requests"], ar["requests"]))
                if not same_success:
                    lines.append(f"outcome: reqplan {'success' if rp['outcome']['success'] else 'failure'} "
                                 f"(exit {rp['outcome']['code']}: {rp['outcome']['detail']}) / arazzo-runner "
                                 f"{'success' if ar['outcome']['success'] else 'failure'} (exit "
                                 f"{ar['outcome']['code']}, {ar['outcome'].get('status')}: {ar['outcome']['detail']})")
                for d in output_diffs:
                    if "only" not in d:
                        lines.append("output " + d)
                for r, name in ((rp, "reqplan"), (ar, "arazzo-runner")):
                    if not r["stable"]:
                        lines.append(f"{name}: not every run sent the same requests")
                problems.append("\n".join(lines))
            elif output_diffs:
                print(f"== {label}: outputs only one runner prints: " + "; ".join(output_diffs))
            rows.append((label, len(notes), len(rp["requests"]), len(ar["requests"]),
                         "same" if same_requests else "DIFFERENT",
                         "ok" if rp["outcome"]["success"] else "fail",
                         "ok" if ar["outcome"]["success"] else "fail",
                         (("same" if outputs_same else "DIFFERENT") + f" ({len(set(ro) & set(ao))})")
                         if compared_outputs and set(ro) & set(ao) else "-",
                         rp["median"], ar["median"]))
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    for p in problems:
        print(p)
        print()
    head = ("document / workflow", "edits", "reqplan req", "runner req", "requests", "reqplan", "runner",
            "outputs", "reqplan ms", "runner ms", "runner/reqplan")
    table = [head] + [(r[0], str(r[1]), str(r[2]), str(r[3]), r[4], r[5], r[6], r[7], f"{r[8] * 1000:.0f}",
                       f"{r[9] * 1000:.0f}", f"{r[9] / r[8]:.1f}×") for r in rows]
    print(f"median wall time of {args.runs} processes each; reqplan: {reqplan}")
    if args.markdown:
        for i, row in enumerate(table):
            print("| " + " | ".join(row) + " |")
            if i == 0:
                print("|" + "---|" * len(row))
    else:
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        for row in table:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
