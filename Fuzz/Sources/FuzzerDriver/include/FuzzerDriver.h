#ifndef FUZZER_DRIVER_H
#define FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// Whether libFuzzer is linked in (Fuzz/run.sh links the toolchain's libclang_rt.fuzzer_no_main;
// a plain `swift build` does not).
int fuzzer_driver_available(void);

// libFuzzer's loop (LLVMFuzzerRunDriver) with `argc`/`argv` as libFuzzer's options and corpus
// folders; call only when `fuzzer_driver_available()`.
int fuzzer_driver_run(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
