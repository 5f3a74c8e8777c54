#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer and under AddressSanitizer, each in its own
# scratch path (.build-tsan, .build-asan) so the normal build is untouched. Exits non-zero when a
# stage fails: a failing test, or any sanitizer report (TSan and ASan make the test process exit
# non-zero). Prints each stage's build and test time.
#
#   scripts/sanitizers.sh [thread] [address]     default: both
#
# - thread: scripts/tsan-suppressions.txt is applied (each entry says why it is there).
# - Both: the eight-process cache tests run shorter (MSAL_CACHE_SAVES_PER_PROCESS=40 instead of
#   200 saves per process, MSAL_SOAK_SECONDS=20 instead of 60, MSAL_EXT_SOAK_SECONDS=10 instead of
#   20 for the msal-extensions soak); set them to override.
# - address: leak detection is off: LeakSanitizer reports allocations that XCTest and Foundation
#   keep for the life of the process (docs: Docs/Reliability.md). UBSan is not supported for
#   Swift on Linux.
set -euo pipefail
cd "$(dirname "$0")/.."

stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(thread address)

export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan-suppressions.txt ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}"
# Backtraces of a trap come from the sanitizer's own report.
export SWIFT_BACKTRACE=enable=no
# Every save and every process start is several times slower under a sanitizer: the multi-process
# cache tests do less (the same code paths, fewer rounds) unless the caller says otherwise.
export MSAL_CACHE_SAVES_PER_PROCESS=${MSAL_CACHE_SAVES_PER_PROCESS:-40}
export MSAL_SOAK_SECONDS=${MSAL_SOAK_SECONDS:-20}
export MSAL_EXT_SOAK_SECONDS=${MSAL_EXT_SOAK_SECONDS:-10}
# A writer that finds both lock files removed starts over: the cleaner of that test must leave
# time for a whole save between two removals.
export MSAL_BOTH_LOCKS_CLEANER_MICROSECONDS=${MSAL_BOTH_LOCKS_CLEANER_MICROSECONDS:-500000}

failed=()
report=()
for sanitizer in "${stages[@]}"; do
    case $sanitizer in
    thread) scratch=.build-tsan ;;
    address) scratch=.build-asan ;;
    *) echo "sanitizers.sh: unknown sanitizer $sanitizer (thread or address)" >&2; exit 2 ;;
    esac
    log=$scratch/sanitizer-test.log
    # Tests whose bounds a sanitizer moves (memory under AddressSanitizer) read which one runs.
    export MSAL_SANITIZER=$sanitizer
    echo "== build tests with --sanitize=$sanitizer"
    t0=$(date +%s)
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
    t1=$(date +%s)
    echo "== swift test --sanitize=$sanitizer (log: $log)"
    status=0
    swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | tee "$log" || status=$?
    t2=$(date +%s)
    reports=$(grep -cE '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)' "$log" || true)
    executed=$(grep -E '^\s*Executed [0-9]+ tests?, with' "$log" | tail -1 | sed -E 's/^\s*//' || true)
    [[ $status -eq 0 ]] || failed+=("$sanitizer")
    report+=("$(printf '%-8s %-4s build %4d s, tests %4d s; %s reports; %s' "$sanitizer" \
        "$([[ $status -eq 0 ]] && echo ok || echo FAIL)" $((t1 - t0)) $((t2 - t1)) "$reports" "$executed")")
done

echo
printf '%s\n' "${report[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "sanitizers.sh: failed under ${failed[*]}" >&2
    exit 1
fi
