#ifndef C_FUZZER_DRIVER_H
#define C_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, from `libclang_rt.fuzzer_no_main` (linked by scripts/fuzz.sh): the fuzz
/// targets' `main.swift` calls it, as SwiftPM gives an executable its own `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
