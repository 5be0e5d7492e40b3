#!/usr/bin/env bash
# Instructions per operation of one benchmark case, counted by valgrind's callgrind: the figure that
# stays the same on a noisy, shared machine, where nanoseconds do not. Opt-in, for contributors.
#
#   bash Benchmarks/callgrind.sh CASE [SIZE] [OPERATIONS]
#   bash Benchmarks/callgrind.sh store-handle 100000
#
# CASE is a timed case of the benchmark table (`swift run -c release CacheStoreBenchmarks --help`
# lists them), SIZE the store size (default 10), OPERATIONS how many operations the shorter run
# performs (default 10,000; 20,000 for the round-trip cases, whose one-time costs vary more).
#
# How: it builds the release benchmark and runs the case alone (`--case CASE --size SIZE
# --operations K`) under `valgrind --tool=callgrind` twice, with K = OPERATIONS and K = 2 ×
# OPERATIONS, and divides the difference of the two instruction totals (Ir, every thread) by the
# difference of the operation counts. Everything both runs share (process start, the Swift runtime,
# building the case's stores, first-use costs such as key paths built on a key's first read) cancels
# out, so what is left is the steady cost of one more operation. Run it twice to see the figure
# repeat; compare figures of the same build settings and machine kind only. Hashing is made
# deterministic (SWIFT_DETERMINISTIC_HASHING=1), so that dictionary probe lengths, and with them the
# counts, do not change from run to run with the per-process hash seed. Threads are what else
# varies: the case runs on one CPU (`taskset -c 0`, so the concurrency pool has one thread, as
# valgrind runs one thread at a time anyway), and valgrind hands its running slot to threads in
# turn (`--fair-sched=yes`). Without both, which pool thread ran an effect changed from run to run,
# and with it malloc's and the pool's work: `effect-roundtrip` measured anywhere from 9,600 to
# 11,100 instructions per round trip; with both, and 20,000 round trips, within about ±100.
#
# The benchmark binary is copied without its DWARF sections first (`objcopy --strip-debug`):
# valgrind 3.19 cannot read the debug info Swift 6 emits, and function names (for
# `callgrind_annotate`) come from the symbol table, which is kept. The callgrind output files stay in
# .build/callgrind/ for `callgrind_annotate .build/callgrind/CASE-SIZE-K.out`.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || [ $# -gt 3 ] || [ "$1" = "--help" ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
fi
name=$1
size=${2:-10}
case $name in
effect-* | floor-task-*) operations=${3:-20000} ;;
*) operations=${3:-10000} ;;
esac
for tool in valgrind objcopy taskset; do
    if ! command -v "$tool" >/dev/null; then
        echo "error: $tool is not installed (apt-get install valgrind binutils util-linux)" >&2
        exit 69
    fi
done

swift build -c release --product CacheStoreBenchmarks >&2
output=.build/callgrind
mkdir -p "$output"
binary="$output/CacheStoreBenchmarks"
objcopy --strip-debug "$(swift build -c release --show-bin-path)/CacheStoreBenchmarks" "$binary"

# Runs the case for $1 operations under callgrind; prints "operations instructions".
count() {
    local file="$output/$name-$size-$1.out"
    local row
    row=$(SWIFT_DETERMINISTIC_HASHING=1 taskset -c 0 valgrind --tool=callgrind --fair-sched=yes \
        --callgrind-out-file="$file" --log-file="$file.log" "$binary" --case "$name" --size "$size" --operations "$1" | tail -n 1)
    # The row is case, size, operations, ns/op; the operations the case really ran are its third field.
    printf '%s %s\n' "$(cut -f 3 <<<"$row")" "$(sed -n 's/^summary: //p' "$file")"
}

short=$(count "$operations")
long=$(count $((operations * 2)))
read -r shortOperations shortInstructions <<<"$short"
read -r longOperations longInstructions <<<"$long"
awk -v name="$name" -v size="$size" \
    -v n1="$shortOperations" -v i1="$shortInstructions" -v n2="$longOperations" -v i2="$longInstructions" \
    'BEGIN {
        printf "%s\t%d\t%.0f Ir/op\t(%.0f Ir for %d operations, %.0f Ir for %d)\n",
            name, size, (i2 - i1) / (n2 - n1), i1, n1, i2, n2
    }'
