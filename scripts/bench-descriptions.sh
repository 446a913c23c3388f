#!/usr/bin/env bash
# Loading large API descriptions (BENCHMARKS.md, "API descriptions as published"), one build beside another:
# a 10-step plan against a description split over 2,500 files, Box's 1.7 MB description with its plan, and
# a 50-step plan against a generated 5 MB document; then each one's peak memory.
#
#   scripts/bench-descriptions.sh BASELINE_BINARY BINARY [RUNS]
#
# Needs python3 (PyYAML) and hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$(readlink -f "$1")
AFTER=$(readlink -f "$2")
RUNS=${3:-10}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 scripts/generate-openapi.py --split 2500 --steps 10 --out "$WORK/split" > /dev/null
python3 scripts/generate-openapi.py --size-mb 5 --steps 50 --out "$WORK/big" > /dev/null
mkdir -p "$WORK/box"
cp Tests/Fixtures/openapi/real/box/openapi.json Tests/Fixtures/openapi/real/box/plan.yaml "$WORK/box/"
echo "split: $(find "$WORK/split" -name '*.yaml' ! -name plan.yaml | wc -l) files, $(cat "$WORK"/split/openapi.yaml "$WORK"/split/*/*.yaml | wc -c) bytes;" \
    "big: $(du -b "$WORK"/big/*.json | cut -f1) bytes"
for plan in split/plan.yaml box/plan.yaml big/plan.yaml; do
    "$AFTER" validate "$WORK/$plan" > /dev/null
    hyperfine -N --warmup 2 --runs "$RUNS" -n "before $plan" "$BEFORE validate $WORK/$plan" \
        -n "after $plan" "$AFTER validate $WORK/$plan"
done
for plan in split/plan.yaml box/plan.yaml big/plan.yaml; do
    for binary in "$BEFORE" "$AFTER"; do
        /usr/bin/time -f "$plan $(basename "$binary"): %e s, %M KB" "$binary" validate "$WORK/$plan" > /dev/null
    done
done
