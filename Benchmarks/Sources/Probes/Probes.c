#include "Probes.h"

#include <malloc.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>

int probes_on_valgrind(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
void probes_callgrind_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void probes_callgrind_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void probes_callgrind_zero(void) { CALLGRIND_ZERO_STATS; }
void probes_callgrind_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
#else
int probes_on_valgrind(void) { return 0; }
void probes_callgrind_start(void) {}
void probes_callgrind_stop(void) {}
void probes_callgrind_zero(void) {}
void probes_callgrind_dump(const char *name) { (void)name; }
#endif

size_t probes_heap_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
