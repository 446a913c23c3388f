#!/usr/bin/env bash
# Rewrites the conformance fixtures (NOTICE.md) from clones of the two suites, keeping only what
# ReaderConformanceTests reads: each YAML Test Suite case's in.yaml, in.json and error, JSONTestSuite's
# y_ cases, and both licences. The tests never run it and need no network.
#
#   Tests/Fixtures/conformance/fetch.sh YAML_TEST_SUITE_GIT_DIR JSON_TEST_SUITE_GIT_DIR [DATA_REF] [JSON_REF]
#
# DATA_REF defaults to the yaml-test-suite data release NOTICE.md names (tag data-2022-01-17), JSON_REF to
# the JSONTestSuite commit it names. Then run
# `RECORD_CONFORMANCE=1 swift test --filter ReaderConformanceTests`, give each new line of
# expected-outcomes.txt a reason, and update NOTICE.md and docs/conformance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
yaml_git=$1
json_git=$2
data_ref=${3:-6e6c296ae9c9d2d5c4134b4b64d01b29ac19ff6f}
json_ref=${4:-1ef36fa01286573e846ac449e8683f8833c5b26a}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/yaml"
git --git-dir="$yaml_git" archive "$data_ref" | tar -x -C "$work/yaml"

rm -rf "$here/yaml-test-suite" "$here/JSONTestSuite"
mkdir -p "$here/yaml-test-suite" "$here/JSONTestSuite"
(cd "$work/yaml" && find . -path ./name -prune -o -type f \( -name in.yaml -o -name in.json -o -name error \) -print) |
    while read -r file; do
        mkdir -p "$here/yaml-test-suite/$(dirname "$file")"
        cp "$work/yaml/$file" "$here/yaml-test-suite/$file"
    done
# A data release carries no licence; the main branch it was generated from ("Regenerated data from main X") does.
source=$(git --git-dir="$yaml_git" log -1 --format=%s "$data_ref" | sed -n 's/^Regenerated data from main //p')
git --git-dir="$yaml_git" show "${source:-main}:License" >"$here/yaml-test-suite/LICENSE"
# File by file: a mirror may lack the large blobs elsewhere in JSONTestSuite's tree (its parsers' binaries).
git --git-dir="$json_git" ls-tree --name-only "$json_ref" test_parsing/ | grep '^test_parsing/y_.*\.json$' |
    while read -r file; do
        git --git-dir="$json_git" show "$json_ref:$file" >"$here/JSONTestSuite/${file#test_parsing/}"
    done
git --git-dir="$json_git" show "$json_ref:LICENSE" >"$here/JSONTestSuite/LICENSE"
echo "yaml-test-suite $data_ref: $(find "$here/yaml-test-suite" -name in.yaml | wc -l) cases;" \
    "JSONTestSuite $json_ref: $(ls "$here/JSONTestSuite" | grep -c '^y_') y_ cases"
