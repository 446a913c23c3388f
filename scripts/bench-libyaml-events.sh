#!/usr/bin/env bash
# How long libyaml alone takes to parse a file into events, with no tree built: the floor under any
# reader of a plan (BENCHMARKS.md, issue 20). Compiles a small C program against the libyaml that Yams
# vendors (its checkout under .build, so build the package once first) and parses the file RUNS times.
#
#   scripts/bench-libyaml-events.sh FILE [RUNS]
#
# Needs clang (the Swift toolchain's).
set -euo pipefail
cd "$(dirname "$0")/.."
FILE=$(readlink -f "$1")
RUNS=${2:-50}
CYAML=.build/checkouts/Yams/Sources/CYaml
[ -d "$CYAML" ] || { echo "no $CYAML: run swift build first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/events.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "yaml.h"
int main(int argc, char **argv) {
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 2; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *text = malloc(size);
    if (fread(text, 1, size, file) != (size_t)size) { perror("read"); return 2; }
    fclose(file);
    int runs = atoi(argv[2]);
    long events = 0;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int run = 0; run < runs; run++) {
        yaml_parser_t parser;
        yaml_parser_initialize(&parser);
        yaml_parser_set_input_string(&parser, text, size);
        for (;;) {
            yaml_event_t event;
            if (!yaml_parser_parse(&parser, &event)) { fprintf(stderr, "not YAML: %s\n", parser.problem); return 1; }
            int type = event.type;
            yaml_event_delete(&event);
            events++;
            if (type == YAML_STREAM_END_EVENT) break;
        }
        yaml_parser_delete(&parser);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double ms = ((end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6) / runs;
    printf("%ld bytes, %ld events, %.2f ms a parse (mean of %d)\n", size, events / runs, ms, runs);
    return 0;
}
C
clang -O2 -w -DYAML_DECLARE_STATIC -I"$CYAML/include" -I"$CYAML/src" -o "$WORK/events" "$WORK/events.c" "$CYAML"/src/*.c
"$WORK/events" "$FILE" "$RUNS"
