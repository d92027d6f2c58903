// Declarations only: LLVMFuzzerRunDriver comes from the toolchain's libclang_rt.fuzzer_no_main,
// which Fuzz/run.sh links.
#include "FuzzerDriver.h"
