#include "FuzzerDriver.h"

// libFuzzer's entry point for programs with a `main` of their own, from the toolchain's
// libclang_rt.fuzzer_no_main. Weak, so that one build serves both: Fuzz/run.sh links the archive
// (and names the symbol undefined, which a weak reference alone would not pull from it), and a
// plain build links without it and replays files. No `-D` flag tells them apart, so the library
// modules compile with the very flags of CI's ThreadSanitizer test build and are shared with it.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size))
    __attribute__((weak));

int fuzzer_driver_available(void) { return LLVMFuzzerRunDriver != 0; }

int fuzzer_driver_run(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
