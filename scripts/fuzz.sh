#!/usr/bin/env bash
# Builds a libFuzzer target and runs it (FUZZING.md).
#
#   scripts/fuzz.sh TARGET [SECONDS]     TARGET: plan | http1-response | lsp | report-merge | xpath | arazzo | jsonpath | inputs | data | import | auth; SECONDS: 600 by default
#
# The target is built with AddressSanitizer and libFuzzer in its own scratch folder (.build-fuzz), only
# when REQPLAN_FUZZ is set (Package.swift declares the fuzz targets only then). It runs at the lowest
# priority (nice 19, the machine is shared), from the committed seeds (Fuzz/seeds/, and for `plan`
# also plans/ and Tests/Corpus/invalid/), growing a working corpus in .build-fuzz/corpus/TARGET.
# Crashing, leaking or slow inputs are kept in Fuzz/crashes/TARGET/; each found one becomes a
# regression test in the normal suite. libFuzzer's final statistics and /usr/bin/time's CPU time
# are printed at the end. Extra libFuzzer options can follow in FUZZ_OPTIONS; FUZZ_NICE sets the run's
# priority (19 by default: on a machine busy with builds it then gets little CPU, so for a timed run of
# CPU-minutes give it 0 on an idle machine).
set -euo pipefail
cd "$(dirname "$0")/.."

target="${1:?usage: scripts/fuzz.sh plan|http1-response|lsp|report-merge|xpath|arazzo|jsonpath|inputs|data|import|auth [SECONDS]}"
seconds="${2:-600}"
seeds=("Fuzz/seeds/$target")
case "$target" in
    plan) seeds+=(plans Tests/Corpus/invalid Fuzz/seeds/plan-expressions) ;;
    arazzo) seeds+=(Tests/Fixtures/arazzo/golden Tests/Fixtures/arazzo/examples) ;;
    http1-response | lsp | report-merge | xpath | jsonpath | inputs | data | import | auth) ;;
    *) echo "unknown target: $target (plan, http1-response, lsp, report-merge, xpath, arazzo, jsonpath, inputs, data, import or auth)" >&2; exit 2 ;;
esac

# `-sanitize=fuzzer` would link libFuzzer's own `main`, which clashes with the one SwiftPM gives an
# executable; so: AddressSanitizer, libFuzzer's coverage instrumentation, and libFuzzer without its
# main (the target's main.swift calls LLVMFuzzerRunDriver).
swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
libfuzzer="$(ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a | head -1)"
REQPLAN_FUZZ=1 nice -n 10 swift build -c debug --scratch-path .build-fuzz --product "fuzz-$target" \
    -Xswiftc -sanitize=address \
    -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xlinker "$libfuzzer" -Xlinker -lstdc++

corpus=".build-fuzz/corpus/$target"
crashes="Fuzz/crashes/$target"
mkdir -p "$corpus" "$crashes"
existing=()
for seed in "${seeds[@]}"; do [[ -d "$seed" ]] && existing+=("$seed"); done

time_command=()
[[ -x /usr/bin/time ]] && time_command=(/usr/bin/time -v)
# -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: memory must stay bounded;
# -max_len: plans and responses of up to 64 KiB.
# The Swift runtime's backtracer reads memory AddressSanitizer guards; libFuzzer prints the stack.
export SWIFT_BACKTRACE=enable=no
# LeakSanitizer's check at exit is off for the targets whose code keeps process-wide state by design: the
# API descriptions a run has read (arazzo: `CachingAPIDescriptionLoader`, the `Data` it holds) and ICU's
# compiled patterns (jsonpath's `match()`/`search()` through NSRegularExpression). Neither grows with the
# inputs (FUZZING.md, "Leaks"); a leak that did would show as `-rss_limit_mb` being reached.
case "$target" in
    arazzo | jsonpath | import) export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;;
esac
exec "${time_command[@]}" nice -n "${FUZZ_NICE:-19}" ".build-fuzz/debug/fuzz-$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$crashes/" ${FUZZ_OPTIONS:-} \
    "$corpus" "${existing[@]}"
