#!/usr/bin/env python3
"""A small mock server for an API description: answers each request with the description's own example
for the operation it matches (or, where the description has none, a value made from the response
schema), for OpenAPI 3.0, 3.1 and Swagger 2.0, in one file or split over many.

    scripts/openapi-mock.py DESCRIPTION [--port PORT]

Prints `listening on PORT` once it serves. Used by the real-descriptions tests
(Tests/ReqPlanOpenAPITests/RealDescriptionsTests.swift). connexion's `--mock=all` serves OpenAPI 3.0
examples, but not 3.1, and took over two minutes to start on a 1.7 MB description here (it validates the
whole description first), against a budget of a few seconds per description in CI.
"""
import argparse
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

import yaml

try:
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as Loader

METHODS = ["get", "put", "post", "delete", "patch", "head", "options"]
_files = {}


def load(path):
    path = os.path.normpath(path)
    if path not in _files:
        with open(path, encoding="utf-8") as handle:
            if path.endswith(".json"):
                _files[path] = json.load(handle)
            elif path.endswith((".yaml", ".yml")):
                _files[path] = yaml.load(handle, Loader=Loader)
            else:
                _files[path] = handle.read()
    return _files[path]


def resolve(node, base, hops=0):
    """The node a `$ref` names (followed until it is not one), and the file it is in."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and hops < 64:
        ref = node["$ref"]
        target, _, pointer = ref.partition("#")
        path = os.path.join(os.path.dirname(base), unquote(target)) if target else base
        node = load(path)
        for token in [t for t in unquote(pointer).split("/")[1:]]:
            token = token.replace("~1", "/").replace("~0", "~")
            node = node[int(token)] if isinstance(node, list) else node[token]
        base = path
        hops += 1
    return node, base


FORMATS = {
    "date-time": "2024-01-02T03:04:05Z",
    "date": "2024-01-02",
    "uri": "https://example.com/x",
    "url": "https://example.com/x",
    "email": "someone@example.com",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
}


def merged(schema, base, depth=0):
    """One schema holding what `schema` and its `allOf` parts say: properties and required joined, the
    first word of each other keyword kept."""
    result = {"properties": {}, "required": []}
    parts = [{k: v for k, v in schema.items() if k != "allOf"}]
    for part in schema.get("allOf", []):
        part, _ = resolve(part, base)
        if isinstance(part, dict):
            parts.append(merged(part, base, depth + 1) if "allOf" in part and depth < 16 else part)
    for part in parts:
        for key, value in part.items():
            if key == "properties":
                for name, inner in (value or {}).items():
                    result["properties"].setdefault(name, inner)
            elif key == "required":
                result["required"] += [name for name in value if name not in result["required"]]
            else:
                result.setdefault(key, value)
    if not result["properties"]:
        del result["properties"]
    return result


def sample(schema, base, depth=0, seen=()):
    """A value that fits `schema`: its example or default where it gives one."""
    schema, base = resolve(schema, base)
    if not isinstance(schema, dict) or depth > 48:
        return None
    key = (base, id(schema))
    if key in seen:
        return None
    seen = seen + (key,)
    for name in ("example", "default"):
        if name in schema:
            return schema[name]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "allOf" in schema:
        return sample(merged(schema, base), base, depth + 1, seen)
    for name in ("oneOf", "anyOf"):
        if schema.get(name):
            choices = [c for c in schema[name] if resolve(c, base)[0].get("type") != "null"]
            return sample((choices or schema[name])[0], base, depth + 1, seen)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else ("array" if "items" in schema else None)
    if kind == "object":
        value = {}
        required = schema.get("required", [])
        for name, inner in (schema.get("properties") or {}).items():
            if depth > 8 and name not in required:
                continue  # deep down, only what must be there
            value[name] = sample(inner, base, depth + 1, seen)
            if value[name] is None and name not in schema.get("required", []):
                del value[name]
        for name in schema.get("required", []):
            # Required but not described (a description's own slip): any value will do.
            value.setdefault(name, "text")
        return value
    if kind == "array":
        item = sample(schema.get("items", {}), base, depth + 1, seen)
        return [] if item is None else [item]
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 1.5)
    if kind == "boolean":
        return True
    if kind == "string":
        value = FORMATS.get(schema.get("format"), "text")
        if "pattern" in schema:
            # A value of a simple pattern (`^[0-9]+$`, `^[A-Z]{2}$`) among a few that often fit.
            for candidate in [value, "1", "123456789012345678", "AB", "ab", "a1", "A1", "x-1", "2024-01-02"]:
                try:
                    if re.search(schema["pattern"], candidate):
                        return candidate
                except re.error:
                    break
        return value
    if kind == "null":
        return None
    return None


def answer(operation, base, swagger2):
    """(status, body or None) for an operation: its first 2xx response."""
    responses = operation.get("responses") or {}
    codes = sorted(str(c) for c in responses if str(c).startswith("2")) or [
        str(c) for c in responses if str(c) == "default"
    ]
    if not codes:
        return 200, None
    code = codes[0]
    response, rbase = resolve(responses[code] if code in responses else responses[int(code)], base)
    status = 200 if code == "default" else int(code.replace("XX", "00"))
    if swagger2:
        examples = response.get("examples") or {}
        for media, example in examples.items():
            if "json" in media:
                return status, example
        return status, sample(response["schema"], rbase) if "schema" in response else None
    content = response.get("content") or {}
    media = next((m for t, m in content.items() if "json" in t), None)
    if media is None:
        return status, None
    media, mbase = resolve(media, rbase)
    if "example" in media:
        return status, media["example"]
    for example in (media.get("examples") or {}).values():
        example, _ = resolve(example, mbase)
        if isinstance(example, dict) and "value" in example:
            return status, example["value"]
    return status, sample(media.get("schema", {}), mbase)


def routes(root):
    document = load(root)
    swagger2 = "swagger" in document
    if swagger2:
        prefix = document.get("basePath", "")
    else:
        servers = document.get("servers") or [{"url": ""}]
        prefix = urlsplit(servers[0].get("url", "")).path
    prefix = prefix.rstrip("/")
    table = []
    for template, item in (document.get("paths") or {}).items():
        item, base = resolve(item, root)
        parts = re.split(r"\{[^}/]+\}", template)
        pattern = "[^/]+".join(re.escape(part) for part in parts)
        literals = len(re.sub(r"\{[^}/]+\}", "", template))
        for method in METHODS:
            if method in item:
                table.append((method.upper(), re.compile("^" + pattern + "$"), literals, item[method], base))
    table.sort(key=lambda route: -route[2])
    return table, prefix, swagger2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("description")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    table, prefix, swagger2 = routes(os.path.abspath(options.description))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            path = urlsplit(self.path).path
            if prefix and path.startswith(prefix + "/"):
                path = path[len(prefix):]
            for method, pattern, _, operation, base in table:
                if method == self.command and pattern.match(path):
                    status, body = answer(operation, base, swagger2)
                    break
            else:
                status, body = 404, {"error": "no operation matches " + self.command + " " + path}
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    print("listening on", server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sys.stdin.read()  # until the test closes our standard input (or ends)
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
