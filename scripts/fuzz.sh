#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Targets, declared in Package.swift only when MSAL_FUZZ=1)
# with coverage and AddressSanitizer, then runs each for a bounded time from its seed corpus
# (Fuzz/Corpus/<target>). Prints executions and coverage per target; exits non-zero when a target
# crashes (a trap, an ASan report, a leak of time past -timeout), leaving the input in
# .build-fuzz/artifacts/<target>/.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]     default: 20 s each, every target
#
# Targets: JWT TokenResponse Cache Redirect Authority Discovery JSON Challenge RedisReply BrokerReply. Reproduce a crash with
#   SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 .build-fuzz/release/Fuzz<target> <file>
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    targets=(JWT TokenResponse Cache Redirect Authority Discovery JSON Challenge RedisReply BrokerReply)
fi
scratch=.build-fuzz

# `--sanitize=fuzzer --sanitize=address` would pass two -sanitize= flags to swiftc, and the last
# one wins: the code would get ASan but no coverage. One combined flag gives both.
export MSAL_FUZZ=1
build=(swift build -c release --scratch-path "$scratch" --disable-dead-strip
    --sanitize=fuzzer -Xswiftc "-sanitize=fuzzer,address" -Xswiftc -enable-testing -Xswiftc -warnings-as-errors)

start=$(date +%s)
for target in "${targets[@]}"; do
    [[ -d Fuzz/Targets/$target ]] || { echo "fuzz.sh: no target $target" >&2; exit 2; }
    echo "== build Fuzz$target"
    "${build[@]}" --product "Fuzz$target" 2>&1 | grep -vE "ld.gold: warning: Cannot export local symbol" || {
        echo "fuzz.sh: building Fuzz$target failed" >&2
        exit 2
    }
done
built=$(date +%s)
echo "== built in $((built - start)) s"

# The Swift runtime's backtracer would catch the trap before libFuzzer and no crash file would
# be written; LeakSanitizer reports Foundation's own allocations.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

failed=()
summary=()
for target in "${targets[@]}"; do
    corpus=$scratch/corpus/$target
    artifacts=$scratch/artifacts/$target
    log=$scratch/logs/$target.log
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    options=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/")
    case $target in
    TokenResponse | Cache | Discovery | JSON) options+=(-dict=Fuzz/Dictionaries/json.dict) ;;
    BrokerReply) options+=(-dict=Fuzz/Dictionaries/broker.dict) ;;
    Redirect | Authority) options+=(-dict=Fuzz/Dictionaries/url.dict) ;;
    Challenge) options+=(-dict=Fuzz/Dictionaries/challenge.dict) ;;
    RedisReply) options+=(-dict=Fuzz/Dictionaries/redis.dict) ;;
    esac
    echo "== fuzz $target for $seconds s"
    status=0
    "$scratch/release/Fuzz$target" "${options[@]}" "$corpus" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    units=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | sed 's/corp: //' || true)
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    if [[ $status -ne 0 ]]; then
        failed+=("$target")
        echo "-- Fuzz$target FAILED (exit $status); log $log:"
        grep -E "ERROR|Fatal error|fatal error|Test unit written|SUMMARY|deadly signal|timeout" "$log" | head -20
        summary+=("$(printf '%-14s %-8s %12s %9s  %-22s %6s' "$target" CRASH "${executions:--}" "${rate:--}" \
            "${coverage:--}" "${units:--}")")
    else
        summary+=("$(printf '%-14s %-8s %12s %9s  %-22s %6s' "$target" ok "$executions" "$rate" "$coverage" "$units")")
    fi
done

echo
printf '%-14s %-8s %12s %9s  %-22s %6s\n' target result executions exec/s "coverage (edges, features)" corpus
printf '%s\n' "${summary[@]}"
echo "== fuzzing took $(($(date +%s) - built)) s (${#targets[@]} targets x $seconds s), build $((built - start)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz.sh: crashes in ${failed[*]}; inputs in $scratch/artifacts/" >&2
    exit 1
fi
