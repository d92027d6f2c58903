// What the fetch benchmark measures below Swift: callgrind's client requests (C macros in
// <valgrind/callgrind.h>) as functions Swift can call, and the heap in use from mallinfo2().
// Outside valgrind each client request is a few instructions that do nothing.
#pragma once

#include <stddef.h>

/// Non-zero when the process runs under valgrind.
int probes_on_valgrind(void);
/// Starts instrumenting (the child runs with `--instr-atstart=no`).
void probes_callgrind_start(void);
/// Stops instrumenting.
void probes_callgrind_stop(void);
/// Zeroes callgrind's counters.
void probes_callgrind_zero(void);
/// Writes what was collected since the last dump or zeroing to a new `<out-file>.<n>` file,
/// with `name` as its trigger, and zeroes the counters.
void probes_callgrind_dump(const char *name);
/// Bytes of the heap in use: mallinfo2()'s `uordblks` (small blocks) plus `hblkhd` (blocks
/// glibc maps on their own). Counts the main arena only: run with MALLOC_ARENA_MAX=1.
size_t probes_heap_bytes(void);
