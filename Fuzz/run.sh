#!/bin/sh
# Fuzzes the predicate and expression parser, the printer, the in-memory evaluator and the SQL
# compiler with libFuzzer under a sanitizer for SECONDS seconds (default 60: a CI smoke run).
#
#   Fuzz/run.sh              # 60 s under AddressSanitizer
#   Fuzz/run.sh 3600         # an hour
#   JOBS=2 Fuzz/run.sh 3600  # two processes sharing one corpus
#   SANITIZER=thread SCRATCH_PATH=../.build-tsan Fuzz/run.sh 60
#                            # as CI runs it: under ThreadSanitizer, in the build folder of the
#                            # main package's ThreadSanitizer tests, whose modules it reuses
#   Fuzz/run.sh --build-flags  # the coverage flags, which such a shared build must also give
#   EXTRA_BUILD_FLAGS="…"      # more `swift build` flags (split at spaces), after the coverage ones
#
# The checked-in seeds (Fuzz/Corpus) are read, not written: new inputs go to Fuzz/work-corpus
# (ignored by git). A crash, a trap, a sanitizer report or an input slower than 10 s is a finding
# (leaks are not: the stores' one-time set-up keeps caches that LeakSanitizer would report):
# libFuzzer writes it to Fuzz/findings/ and the script exits non-zero. Reproduce one with
#   Fuzz/.build/debug/PredicateFuzz Fuzz/findings/crash-…
# (a run with SCRATCH_PATH leaves the executable in that folder's debug/ instead).
set -eu
# Coverage instrumentation for libFuzzer, in every module (the library's code is what is fuzzed).
# `-sanitize=fuzzer` would also link libFuzzer's `main` into every executable, the package's macro
# plug-in included (which then fails to link), so the instrumentation is asked for directly and
# libFuzzer is linked without its `main`, into the fuzz target alone (see Package.swift).
BUILD_FLAGS="-Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp"
if [ "${1:-}" = "--build-flags" ]; then
    echo "$BUILD_FLAGS"
    exit 0
fi
BUILD_FLAGS="$BUILD_FLAGS ${EXTRA_BUILD_FLAGS:-}"
SECONDS_TO_RUN=${1:-60}
JOBS=${JOBS:-1}
SANITIZER=${SANITIZER:-address}
SCRATCH_PATH=${SCRATCH_PATH:-.build}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE"
SWIFT_BIN=$(dirname "$(readlink -f "$(command -v swift)")")
FUZZER_LIB=$(ls "$SWIFT_BIN"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)
if [ -z "$FUZZER_LIB" ]; then
    echo "run.sh: libclang_rt.fuzzer_no_main-x86_64.a not found next to $SWIFT_BIN (a swift.org Linux toolchain has it)" >&2
    exit 2
fi
export FUZZER_LIB
# shellcheck disable=SC2086 # BUILD_FLAGS is several words
swift build -c debug --product PredicateFuzz --scratch-path "$SCRATCH_PATH" --sanitize="$SANITIZER" $BUILD_FLAGS
# Swift's crash backtracer would hold a crashing run for minutes; libFuzzer prints its own.
export SWIFT_BACKTRACE=enable=no
# Leaks are not findings here (see above), also not at exit: LeakSanitizer reports ~3.5 KB that
# the stores' set-up allocates once (NSEntityDescription.versionHash's Data).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
mkdir -p work-corpus findings
set -- "$SCRATCH_PATH"/debug/PredicateFuzz work-corpus Corpus \
    -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 -max_len=512 \
    -artifact_prefix=findings/ -print_final_stats=1 -detect_leaks=0
if [ "$JOBS" -gt 1 ]; then
    exec "$@" -fork="$JOBS" -ignore_crashes=0
fi
exec "$@"
