#!/usr/bin/env python3
"""The scale check of issue 38: a 10,000-step Arazzo workflow and the 10,000-step plan that does the same,
each step reading the one before it, both bound to one small OpenAPI description.

    python3 scripts/generate-arazzo-scale.py OUT_DIR [--steps N]

writes OUT_DIR/api.yaml, OUT_DIR/chain.arazzo.yaml and OUT_DIR/chain.yaml; then
    hyperfine -w 2 -r 10 'reqplan validate OUT_DIR/chain.yaml' 'reqplan validate OUT_DIR/chain.arazzo.yaml'
"""
import os
import sys

out = sys.argv[1]
steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 10000
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "api.yaml"), "w") as f:
    f.write("""openapi: 3.0.3
info: { title: items, version: "1" }
servers: [{ url: "http://127.0.0.1:9" }]
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: an item and the id of the next
          content:
            application/json:
              schema:
                type: object
                required: [next]
                properties:
                  next: { type: integer }
""")
with open(os.path.join(out, "chain.arazzo.yaml"), "w") as f:
    f.write("arazzo: 1.0.1\ninfo: { title: chain, version: '1' }\nsourceDescriptions:\n")
    f.write("  - { name: api, url: api.yaml, type: openapi }\nworkflows:\n  - workflowId: chain\n    steps:\n")
    for i in range(steps):
        value = "1" if i == 0 else f"$steps.s{i - 1}.outputs.next"
        f.write(f"      - stepId: s{i}\n        operationId: getItem\n")
        f.write(f"        parameters: [{{ name: id, in: path, value: {value} }}]\n")
        f.write("        outputs: { next: $response.body#/next }\n")
with open(os.path.join(out, "chain.yaml"), "w") as f:
    f.write("reqplan: 1\nopenapi: { api: { file: api.yaml, base_url: \"http://127.0.0.1:9\" } }\nsteps:\n")
    for i in range(steps):
        value = "1" if i == 0 else f"\"${{{{ steps.s{i - 1}.body.next }}}}\""
        f.write(f"  s{i}: {{ request: {{ operation: api.getItem, path: {{ id: {value} }} }} }}\n")
