#!/usr/bin/env python3
"""Generate a large OpenAPI 3.1 document and a plan bound to it, for the validation benchmark.

The document has RESOURCES resources, each with a collection (`GET`/`POST /resN`) and an item
(`GET`/`PUT`/`DELETE /resN/{id}`) path, a path-level parameter, query parameters, and schemas that
use `$ref` across components and `allOf` (a base schema extended per resource), until it reaches
about SIZE megabytes. The plan has STEPS steps: it creates an item of a resource, reads it back by
the id the creation returned, updates it with a value read from the read, and lists the collection,
so every step's data flow is checked against the document's schemas.

Usage: scripts/generate-openapi.py --size-mb 5 --steps 50 --out /tmp/bigapi
       reqplan validate /tmp/bigapi/plan.yaml

With --split FILES, the document is written instead as YAML split over at least FILES files, the way
large providers lay theirs out (a root `openapi.yaml`, and `paths/`, `schemas/`, `parameters/`,
`responses/`, `requestBodies/`, `examples/`, `headers/` folders, each object in a file of its own,
referred to by relative `$ref`s), with the plan bound to `openapi.yaml`.
"""
import argparse
import json
import os

FIELDS = ["name", "title", "status", "owner", "region", "label", "kind", "note"]


def resource(number: int) -> tuple[dict, dict]:
    """The paths and schemas of resource `number`."""
    name = f"Res{number}"
    item = {
        "allOf": [
            {"$ref": "#/components/schemas/Base"},
            {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    **{field: {"type": "string", "maxLength": 200, "description": f"The {field} of {name}."}
                       for field in FIELDS},
                    "id": {"type": "integer", "minimum": 1},
                    "count": {"type": "integer"},
                    "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                    "status": {"type": "string", "enum": ["active", "archived", "draft"]},
                },
            },
        ]
    }
    new = {
        "type": "object",
        "required": ["name"],
        "additionalProperties": False,
        "properties": {field: {"type": "string"} for field in FIELDS} | {"count": {"type": "integer"}},
    }
    error = {"description": "Problem", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    ok = lambda schema: {"description": "OK", "content": {"application/json": {"schema": schema}}}
    ref = {"$ref": f"#/components/schemas/{name}"}
    paths = {
        f"/res{number}": {
            "get": {
                "operationId": f"list{name}",
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": ok({"type": "object", "properties": {
                    "items": {"type": "array", "items": ref}, "next": {"type": ["string", "null"]}}}),
                    "default": error},
            },
            "post": {
                "operationId": f"create{name}",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/New{name}"}}}},
                "responses": {"201": ok(ref), "400": error, "default": error},
            },
        },
        f"/res{number}/{{id}}": {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"operationId": f"get{name}", "responses": {"200": ok(ref), "404": error, "default": error}},
            "put": {
                "operationId": f"update{name}",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/New{name}"}}}},
                "responses": {"200": ok(ref), "404": error, "default": error},
            },
            "delete": {"operationId": f"delete{name}", "responses": {"204": {"description": "Deleted"}, "default": error}},
        },
    }
    return paths, {name: item, f"New{name}": new}


def document(size_mb: float) -> tuple[dict, int]:
    paths: dict = {}
    schemas: dict = {
        "Base": {"type": "object", "properties": {"created": {"type": "string"}, "updated": {"type": "string"}}},
        "Tag": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}, "value": {"type": "string"}}},
        "Error": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
    }
    doc = {"openapi": "3.1.0", "info": {"title": "Generated", "version": "1"}, "paths": paths,
           "components": {"schemas": schemas}}
    count = 0
    target = size_mb * 1_000_000
    size = 0
    while size < target:
        for _ in range(50):
            new_paths, new_schemas = resource(count)
            paths.update(new_paths)
            schemas.update(new_schemas)
            count += 1
        size = len(json.dumps(doc, indent=2))
    return doc, count


def split(out: str, files: int) -> int:
    """Writes a description split over at least `files` files; returns its number of resources."""
    import yaml

    def write(path: str, value) -> None:
        os.makedirs(os.path.dirname(os.path.join(out, path)), exist_ok=True)
        with open(os.path.join(out, path), "w") as file:
            yaml.safe_dump(value, file, sort_keys=False, width=120)

    ref = lambda path: {"$ref": path}
    # Prose as long as real descriptions carry (about 1 kB per file overall, as DigitalOcean's 2.7 MB
    # over 2,500 files).
    prose = ("What this object holds and how the API uses it, with the limits that apply to each field, "
             "the states it moves through, the errors a request can meet, and how to page through lists. ") * 4
    write("parameters/id.yaml", {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}})
    write("parameters/limit.yaml", {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}})
    write("parameters/cursor.yaml", {"name": "cursor", "in": "query", "schema": {"type": "string"}})
    write("headers/rate-limit.yaml", {"description": "Requests left", "schema": {"type": "integer"}})
    write("schemas/common.yaml", {
        "Base": {"type": "object", "properties": {"created": {"type": "string"}, "updated": {"type": "string"}}},
        "Tag": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}, "value": {"type": "string"}}},
        "Error": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
    })
    write("responses/error.yaml", {"description": "Problem", "content": {"application/json": {"schema": ref("../schemas/common.yaml#/Error")}}})
    paths = {}
    count = 0
    written = 6
    while written < files:
        name = f"Res{count}"
        fields = {field: {"type": "string", "maxLength": 200, "description": f"The {field} of {name}."} for field in FIELDS}
        write(f"schemas/{name}.yaml", {"description": prose, "allOf": [ref("common.yaml#/Base"), {
            "type": "object", "required": ["id", "name"],
            "properties": {**fields, "id": {"type": "integer", "minimum": 1}, "count": {"type": "integer"},
                           "tags": {"type": "array", "items": ref("common.yaml#/Tag")},
                           "status": {"type": "string", "enum": ["active", "archived", "draft"]}}}]})
        write(f"schemas/New{name}.yaml", {"description": prose, "type": "object", "required": ["name"], "additionalProperties": False,
                                          "properties": {field: {"type": "string"} for field in FIELDS} | {"count": {"type": "integer"}}})
        write(f"examples/{name}.yaml", {"summary": f"A {name}", "description": prose, "value": {"id": 1, "name": "n", "count": 1, "status": "active"}})
        write(f"requestBodies/New{name}.yaml", {"description": prose, "required": True, "content": {"application/json": {"schema": ref(f"../schemas/New{name}.yaml")}}})
        write(f"responses/{name}.yaml", {"description": prose, "headers": {"X-Rate-Limit": ref("../headers/rate-limit.yaml")},
                                         "content": {"application/json": {"schema": ref(f"../schemas/{name}.yaml"),
                                                                          "examples": {"one": ref(f"../examples/{name}.yaml")}}}})
        write(f"responses/{name}List.yaml", {"description": prose, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"items": {"type": "array", "items": ref(f"../schemas/{name}.yaml")},
                                             "next": {"type": ["string", "null"]}}}}}})
        error = ref("../responses/error.yaml")
        write(f"paths/res{count}.yaml", {
            "get": {"operationId": f"list{name}", "description": prose, "parameters": [ref("../parameters/limit.yaml"), ref("../parameters/cursor.yaml")],
                    "responses": {"200": ref(f"../responses/{name}List.yaml"), "default": error}},
            "post": {"operationId": f"create{name}", "requestBody": ref(f"../requestBodies/New{name}.yaml"),
                     "responses": {"201": ref(f"../responses/{name}.yaml"), "400": error, "default": error}}})
        write(f"paths/res{count}-item.yaml", {
            "parameters": [ref("../parameters/id.yaml")],
            "get": {"operationId": f"get{name}", "description": prose, "responses": {"200": ref(f"../responses/{name}.yaml"), "404": error}},
            "put": {"operationId": f"update{name}", "requestBody": ref(f"../requestBodies/New{name}.yaml"),
                    "responses": {"200": ref(f"../responses/{name}.yaml"), "404": error}},
            "delete": {"operationId": f"delete{name}", "responses": {"204": {"description": "Deleted"}, "default": error}}})
        paths[f"/res{count}"] = ref(f"paths/res{count}.yaml")
        paths[f"/res{count}/{{id}}"] = ref(f"paths/res{count}-item.yaml")
        count += 1
        written += 8
    write("openapi.yaml", {"openapi": "3.1.0", "info": {"title": "Generated, split", "version": "1"}, "paths": paths})
    return count


def plan(steps: int, resources: int, file: str = "api.json") -> str:
    """STEPS steps in groups of four over resources spread through the document."""
    lines = ["reqplan: 1", "name: Generated API plan", "openapi:",
             f'  big: {{ file: {file}, base_url: "http://127.0.0.1:8080" }}', "steps:"]
    made = 0
    group = 0
    while made < steps:
        name = f"Res{(group * 37) % resources}"
        create, read, update, listing = (f"{kind}{group}" for kind in ("create", "read", "update", "list"))
        flow = [
            (create, f"{{ operation: big.create{name}, json: {{ name: n{group}, count: 1 }} }}", None),
            (read, f'{{ operation: big.get{name}, path: {{ id: "${{{{ steps.{create}.body.id }}}}" }} }}', None),
            (update, f'{{ operation: big.update{name}, path: {{ id: "${{{{ steps.{read}.body.id }}}}" }}, '
                     f'json: {{ name: "${{{{ steps.{read}.body.name }}}}", count: "${{{{ steps.{read}.body.count }}}}" }} }}',
             None),
            (listing, f"{{ operation: big.list{name}, query: {{ limit: 10 }} }}", update),
        ]
        for step, request, needs in flow[: steps - made]:
            lines.append(f"  {step}:")
            if needs:
                lines.append(f"    needs: [{needs}]")
            lines.append(f"    request: {request}")
            made += 1
        group += 1
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=5)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--out", required=True)
    parser.add_argument("--split", type=int, default=0, metavar="FILES")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.split:
        resources = split(args.out, args.split)
        with open(os.path.join(args.out, "plan.yaml"), "w") as file:
            file.write(plan(args.steps, resources, "openapi.yaml"))
        return
    doc, resources = document(args.size_mb)
    with open(os.path.join(args.out, "api.json"), "w") as file:
        json.dump(doc, file, indent=2)
    with open(os.path.join(args.out, "plan.yaml"), "w") as file:
        file.write(plan(args.steps, resources))


if __name__ == "__main__":
    main()
