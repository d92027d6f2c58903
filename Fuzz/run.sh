#!/bin/sh
# Fuzzes the predicate and expression parser, the printer, the in-memory evaluator and the SQL
# compiler with libFuzzer under AddressSanitizer for SECONDS seconds (default 60: a CI smoke run).
#
#   Fuzz/run.sh            # 60 s, as CI runs it
#   Fuzz/run.sh 3600       # an hour
#   JOBS=2 Fuzz/run.sh 3600  # two processes sharing one corpus
#
# The checked-in seeds (Fuzz/Corpus) are read, not written: new inputs go to Fuzz/work-corpus
# (ignored by git). A crash, a trap, a sanitizer report or an input slower than 10 s is a finding:
# libFuzzer writes it to Fuzz/findings/ and the script exits non-zero. Reproduce one with
#   Fuzz/.build/debug/PredicateFuzz Fuzz/findings/crash-…
set -eu
SECONDS_TO_RUN=${1:-60}
JOBS=${JOBS:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE"
swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product PredicateFuzz
mkdir -p work-corpus findings
set -- .build/debug/PredicateFuzz work-corpus Corpus \
    -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 -max_len=512 \
    -artifact_prefix=findings/ -print_final_stats=1
if [ "$JOBS" -gt 1 ]; then
    exec "$@" -fork="$JOBS" -ignore_crashes=0
fi
exec "$@"
