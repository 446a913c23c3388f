#!/usr/bin/env bash
# The OpenAPI benchmarks (BENCHMARKS.md, "OpenAPI"): validating against a 5 MB document, a plan bound to a
# document against the same plan unbound, and response checks at run time against the demo API.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build-release --product reqplan
#   scripts/bench-openapi.sh [.build-release/release/reqplan] [ROUNDS]
#
# Needs python3 and hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
R=$(readlink -f "${1:-.build-release/release/reqplan}")
ROUNDS=${2:-20}
PORT=${DEMO_PORT:-18093}
WORK=$(mktemp -d)
trap 'kill "$DEMO" 2>/dev/null; rm -rf "$WORK"' EXIT

echo "== a 50-step plan against a 5 MB OpenAPI 3.1 document (three runs: seconds, peak KB)"
python3 scripts/generate-openapi.py --size-mb 5 --steps 50 --out "$WORK/big"
for _ in 1 2 3; do /usr/bin/time -f "%e s %M KB" "$R" validate "$WORK/big/plan.yaml" > /dev/null; done

echo "== a 10-step plan against a description split over 2,500 files (2.9 MB), and the same plan unbound"
python3 scripts/generate-openapi.py --split 2500 --steps 10 --out "$WORK/split"
sed '/^openapi:/,+1d' "$WORK/split/plan.yaml" > "$WORK/split/unbound.yaml"
echo "files: $(find "$WORK/split" -name '*.yaml' ! -name 'plan.yaml' ! -name 'unbound.yaml' | wc -l), bytes: $(cat "$WORK"/split/openapi.yaml "$WORK"/split/*/*.yaml | wc -c)"
for _ in 1 2 3; do /usr/bin/time -f "%e s %M KB" "$R" validate "$WORK/split/plan.yaml" > /dev/null; done
# Unbound, its `operation:` requests name no API (RP0802, exit 1): the time of reading and checking the plan alone.
for _ in 1 2 3; do /usr/bin/time -f "unbound: %e s %M KB" "$R" validate "$WORK/split/unbound.yaml" > /dev/null || true; done

echo "== Box's 1.7 MB single-file description (Tests/Fixtures/openapi/real/box) with its plan"
mkdir -p "$WORK/box"
cp Tests/Fixtures/openapi/real/box/openapi.json Tests/Fixtures/openapi/real/box/plan.yaml "$WORK/box/"
for _ in 1 2 3; do /usr/bin/time -f "%e s %M KB" "$R" validate "$WORK/box/plan.yaml" > /dev/null; done

echo "== validate, bound to a document and not"
mkdir -p "$WORK/vb/_openapi"
cp plans/data-flow.yaml "$WORK/vb/bound-demo.yaml"
cp plans/_openapi/demo-api.yaml "$WORK/vb/_openapi/"
sed '/^openapi:/,+1d' "$WORK/vb/bound-demo.yaml" > "$WORK/vb/unbound-demo.yaml"
cp Tests/Fixtures/openapi/petstore-expanded.yaml "$WORK/vb/"
cat > "$WORK/vb/bound-pets.yaml" <<'YAML'
reqplan: 1
openapi:
  pets: petstore-expanded.yaml
defaults:
  base_url: http://127.0.0.1:8080/api
steps:
  list:
    request: { url: /pets, query: { limit: 10 } }
  create:
    request: { method: POST, url: /pets, json: { name: Rex, tag: dog } }
  show:
    request: { url: "/pets/${{ steps.create.body.id }}" }
  remove:
    needs: [show]
    request: { method: DELETE, url: "/pets/${{ steps.show.body.id }}" }
outputs:
  name: ${{ steps.show.body.name }}
YAML
sed '/^openapi:/,+1d' "$WORK/vb/bound-pets.yaml" > "$WORK/vb/unbound-pets.yaml"
(cd "$WORK/vb" && hyperfine -N --warmup 3 --runs "$ROUNDS" \
    "$R validate bound-demo.yaml" "$R validate unbound-demo.yaml" \
    "$R validate bound-pets.yaml" "$R validate unbound-pets.yaml")

echo "== 2,000 requests with response checks and without (--no-response-schema-check), CPU"
"$R" demo --serve "$PORT" > /dev/null 2>&1 &
DEMO=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/health" > /dev/null && break; sleep 0.1; done
python3 - "$WORK/vb" <<'PY'
import sys
folder = sys.argv[1]
head = """reqplan: 1
inputs: { base_url: { default: "http://127.0.0.1:8080" } }
openapi:
  demo: _openapi/demo-api.yaml
defaults: { base_url: "${{ inputs.base_url }}" }
concurrency: 64
steps:
  each:
    for_each: %s
""" % list(range(2000))
open(f"{folder}/health.yaml", "w").write(head + "    request: { url: /health }\n")
open(f"{folder}/items-read.yaml", "w").write(
    head + "    request: { url: /items, query: { limit: 20 } }\n    expect: { body: { count: { exists: true } } }\n")
PY
run="--input base_url=http://127.0.0.1:$PORT --progress none"
(cd "$WORK/vb" && python3 "$OLDPWD/scripts/bench-compare.py" "$ROUNDS" \
    "health-checked=$R run health.yaml $run" \
    "health-unchecked=$R run health.yaml $run --no-response-schema-check" \
    "items-checked=$R run items-read.yaml $run" \
    "items-unchecked=$R run items-read.yaml $run --no-response-schema-check")
