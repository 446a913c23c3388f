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


def plan(steps: int, resources: int) -> str:
    """STEPS steps in groups of four over resources spread through the document."""
    lines = ["reqplan: 1", "name: Generated API plan", "openapi:",
             '  big: { file: api.json, base_url: "http://127.0.0.1:8080" }', "steps:"]
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
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    doc, resources = document(args.size_mb)
    with open(os.path.join(args.out, "api.json"), "w") as file:
        json.dump(doc, file, indent=2)
    with open(os.path.join(args.out, "plan.yaml"), "w") as file:
        file.write(plan(args.steps, resources))


if __name__ == "__main__":
    main()
