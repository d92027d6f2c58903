#ifndef FUZZER_DRIVER_H
#define FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for programs with a `main` of their own (libclang_rt.fuzzer_no_main):
// runs the fuzzing loop with `argc`/`argv` as libFuzzer's options and corpus folders.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
