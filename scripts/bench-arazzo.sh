#!/usr/bin/env bash
# reqplan against Jentic's arazzo-runner (PyPI) on the same Arazzo workflows and the same server: five
# independent GET requests to httpbin's /delay/0.1 (PyPI httpbin under gunicorn, 16 threads), as a 1.1
# workflow whose steps declare `dependsOn: []` and as a 1.0 workflow (list order, and by its data flow with
# reqplan's `--parallel`). Prints each runner's outcome and the median wall time of RUNS processes (default 5).
# Usage: scripts/bench-arazzo.sh [path/to/reqplan]   (default .build/release/reqplan)
set -euo pipefail
reqplan=${1:-.build/release/reqplan}
runs=${RUNS:-5}
folder=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$folder"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m gunicorn --bind 127.0.0.1:$port --workers 1 --threads 16 httpbin:app >"$folder/gunicorn.log" 2>&1 &
server=$!
until curl -s -o /dev/null "http://127.0.0.1:$port/get"; do sleep 0.1; done

cat >"$folder/delay.openapi.yaml" <<YAML
openapi: 3.0.3
info: { title: httpbin's delayed responses, version: 1.0.0 }
servers: [ { url: "http://127.0.0.1:$port" } ]
paths:
  /delay/{seconds}:
    get:
      operationId: delay
      parameters: [ { name: seconds, in: path, required: true, schema: { type: number } } ]
      responses:
        '200':
          description: the request, echoed after the delay
          content: { application/json: { schema: { type: object, properties: { url: { type: string } } } } }
YAML
workflow() { # version, id, dependsOn line
    printf 'arazzo: %s\ninfo: { title: five requests to a 100 ms endpoint, version: 1.0.0 }\n' "$1"
    printf 'sourceDescriptions: [ { name: httpbin, url: ./delay.openapi.yaml, type: openapi } ]\n'
    printf 'workflows:\n  - workflowId: %s\n    steps:\n' "$2"
    for i in 1 2 3 4 5; do
        printf '      - stepId: s%s\n        operationId: delay\n%b' "$i" "$3"
        printf '        parameters: [ { name: seconds, in: path, value: 0.1 } ]\n'
        printf '        successCriteria: [ { condition: $statusCode == 200 } ]\n'
        printf '        outputs: { url: $response.body#/url }\n'
    done
    printf '    outputs: { last: $steps.s5.outputs.url }\n'
}
workflow 1.1.0 independent '        dependsOn: []\n' >"$folder/independent.arazzo.yaml"
workflow 1.0.1 sequential '' >"$folder/sequential.arazzo.yaml"

median() { # command…: the median wall time of $runs runs, in ms
    local times=()
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
        end=$(date +%s%N)
        times+=($(((end - start) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}
for id in independent sequential; do
    file="$folder/$id.arazzo.yaml"
    echo "$id: reqplan $(median env no_proxy='*' "$reqplan" run "$file" --progress none) ms," \
        "arazzo-runner $(median env no_proxy='*' arazzo-runner execute-workflow "$file" --workflow-id "$id" --inputs '{}') ms"
done
echo "sequential, --parallel: reqplan $(median env no_proxy='*' "$reqplan" run "$folder/sequential.arazzo.yaml" --parallel --progress none) ms"
echo "outcomes (one run each):"
no_proxy='*' "$reqplan" run "$folder/independent.arazzo.yaml" --progress none --output json
no_proxy='*' arazzo-runner execute-workflow "$folder/independent.arazzo.yaml" --workflow-id independent --inputs '{}' 2>/dev/null |
    grep -o "status=[a-z_]*, workflow_id='[a-z]*', outputs={[^}]*}"
