#!/usr/bin/env bash
# swift-msal next to MSAL for Python: the same scenarios against the same emulator, one table.
#
#   scripts/bench.sh
#
# Builds msal-bench (release), sets up the MSAL Python virtualenv (scripts/interop.sh
# --setup-only), starts one emulator (`msal-bench --scenario emulator`) that both libraries talk
# to, writes the cache fixtures once (1 / 1,000 / 10,000 / 100,000 accounts, msal-bench
# --scenario cache_fixture) into a temporary folder, runs msal-bench and
# scripts/bench-msal-python.py in interleaved rounds, and prints one table: scenario, ours,
# MSAL Python, ratio (MSAL Python / ours), floor (the bare libcurl round trip). Then it checks
# the targets; the last line says whether every one held, and the exit status is 1 when one
# did not.
#
# Environment: BENCH_ROUNDS (default 3) rounds of the timed scenarios; BENCH_OUT, a folder that
# keeps the raw JSON lines (default: only in the temporary folder, deleted at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${BENCH_ROUNDS:-3}"
sizes=(1 1000 10000 100000)

swift build -c release --product msal-bench >&2
bench="$PWD/.build/release/msal-bench"
scripts/interop.sh --setup-only >&2
python="${MSAL_INTEROP_VENV:-$PWD/.build-interop/venv}/bin/python"
pybench="$PWD/scripts/bench-msal-python.py"

work=$(mktemp -d "${TMPDIR:-/tmp}/msal-bench.XXXXXX")
emulator_pid=""
cleanup() {
    if [ -n "$emulator_pid" ]; then
        kill "$emulator_pid" 2>/dev/null || true
        wait "$emulator_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

ours="$work/ours.jsonl"
theirs="$work/python.jsonl"
machine="$work/machine.jsonl"
: >"$ours"
: >"$theirs"
: >"$machine"

log() { echo "bench: $*" >&2; }

# Appends each JSON line of a command's output to FILE with "round" and the load average added.
record() {
    local file=$1 round=$2
    shift 2
    "$@" | while IFS= read -r line; do
        case "$line" in
            "{"*) echo "{\"round\":$round,\"loadavg\":\"$(cut -d' ' -f1 /proc/loadavg)\",\"m\":$line}" >>"$file" ;;
        esac
    done
}

# --- the emulator ---------------------------------------------------------------------------------
"$bench" --scenario emulator >"$work/emulator.json" 2>"$work/emulator.log" &
emulator_pid=$!
for _ in $(seq 1 300); do
    [ -s "$work/emulator.json" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$work/emulator.log" >&2; exit 1; }
    sleep 0.1
done
control_url=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["control_url"])' "$work/emulator.json")
ca_file=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["ca_file"])' "$work/emulator.json")
log "emulator pid $emulator_pid, control $control_url"
remote=(--emulator-url "$control_url" --emulator-ca "$ca_file")
py_remote=(--control-url "$control_url" --ca-file "$ca_file")

# --- fixtures -------------------------------------------------------------------------------------
for n in "${sizes[@]}"; do
    start=$(date +%s)
    bytes=$("$bench" --scenario cache_fixture --file "$work/cache-$n.json" --accounts "$n" 2>/dev/null)
    log "fixture of $n accounts: $((bytes / 1048576)) MiB in $(($(date +%s) - start)) s"
done

# --- timed scenarios, interleaved: odd rounds ours first, even rounds MSAL Python first ------------
run_ours() {
    local round=$1
    for n in "${sizes[@]}"; do
        record "$ours" "$round" "$bench" --scenario silent_cache_hit --accounts "$n" \
            --file "$work/cache-$n.json" --runs 2000 "${remote[@]}" 2>/dev/null
    done
    # 1 and 100,000 accounts in one process, alternating blocks: the 1.5x target compares them
    # on the same machine state (the VM has phases about 1.6x apart that last seconds).
    record "$ours" "$round" "$bench" --scenario silent_cache_hit_pair --accounts 100000 \
        --file "$work/cache-100000.json" --runs 2000 "${remote[@]}" 2>/dev/null
    record "$ours" "$round" "$bench" --scenario silent_refresh --runs 300 "${remote[@]}" 2>/dev/null
}
run_python() {
    local round=$1 n runs
    for n in "${sizes[@]}"; do
        runs=2000
        [ "$n" -ge 10000 ] && runs=200
        record "$theirs" "$round" "$python" "$pybench" --scenario silent_cache_hit --accounts "$n" \
            --file "$work/cache-$n.json" --runs "$runs" --max-seconds 5 "${py_remote[@]}"
    done
    record "$theirs" "$round" "$python" "$pybench" --scenario silent_refresh --runs 300 \
        --max-seconds 20 "${py_remote[@]}"
}
for round in $(seq 1 "$rounds"); do
    log "round $round of $rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    if [ $((round % 2)) -eq 1 ]; then
        run_ours "$round"
        run_python "$round"
    else
        run_python "$round"
        run_ours "$round"
    fi
done

# --- once: concurrency, cache load and save, peak memory, our transport ----------------------------
log "silent_concurrent"
record "$ours" 1 "$bench" --scenario silent_concurrent --accounts 1000 "${remote[@]}" 2>/dev/null
record "$theirs" 1 "$python" "$pybench" --scenario silent_concurrent --callers 1000 "${py_remote[@]}"
log "cache_load, cache_save (100 and 10,000 accounts)"
for what in cache_load cache_save; do
    record "$ours" 1 "$bench" --scenario "$what" --accounts 100 --runs 20 2>/dev/null
    record "$ours" 1 "$bench" --scenario "$what" --accounts 10000 --file "$work/cache-10000.json" \
        --runs 20 2>/dev/null
    record "$theirs" 1 "$python" "$pybench" --scenario "$what" --accounts 10000 \
        --file "$work/cache-10000.json" --runs 20 --max-seconds 30
done
log "peak memory (a process of its own per file)"
for n in 10000 100000; do
    line=$("$bench" --scenario cache_load_once --file "$work/cache-$n.json" 2>/dev/null)
    echo "{\"scenario\":\"peak_memory\",\"file_accounts\":$n,\"ours\":$line}" >>"$machine"
    line=$("$python" "$pybench" --scenario cache_load_once --file "$work/cache-$n.json")
    echo "{\"scenario\":\"peak_memory\",\"file_accounts\":$n,\"python\":$line}" >>"$machine"
done
# Every thread on one CPU: with the client and its server thread on different CPUs, a loopback
# round trip on a small virtual machine costs whatever the cross-CPU wake-ups cost that run.
log "transport_roundtrip (ours only, on CPU 0)"
for round in $(seq 1 "$rounds"); do
    record "$ours" "$round" "$bench" --scenario transport_roundtrip --runs 3000 --cpu 0 2>/dev/null
done

if [ -n "${BENCH_OUT:-}" ]; then
    mkdir -p "$BENCH_OUT"
    cp "$ours" "$theirs" "$machine" "$BENCH_OUT/"
fi

# --- the machine, the table and the targets --------------------------------------------------------
echo
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), \
$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)"
echo "versions: $(swift --version 2>/dev/null | head -1); $("$bench" --scenario none 2>&1 >/dev/null | head -1 \
    | cut -d' ' -f1-2); $("$python" --version); msal $("$python" -c 'import msal; print(msal.__version__)')"
"$python" - "$ours" "$theirs" "$machine" "$rounds" <<'PYTHON'
"""Medians over rounds (each round's figure is itself a median of many calls); the table."""
import json
import statistics
import sys

ours_file, theirs_file, machine_file, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]


def read(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


ours, theirs, machine = read(ours_file), read(theirs_file), read(machine_file)


def pick(records, scenario, **params):
    return [r for r in records if r["m"]["scenario"] == scenario
            and all(r["m"]["params"].get(k) == v for k, v in params.items())]


def median_ns(records):
    return statistics.median(r["m"]["median_ns"] for r in records) if records else None


def duration(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}" if ns / scale < 100 else f"{ns / scale:.0f} {unit}"
    return f"{ns:.0f} ns"


rows = []
for n in (1, 1000, 10000, 100000):
    mine, python = pick(ours, "silent_cache_hit", accounts=n), pick(theirs, "silent_cache_hit", accounts=n)
    runs = sorted({r["m"]["runs"] for r in python})
    note = f"MSAL Python {'/'.join(map(str, runs))} calls per round" if python and min(runs) < 2000 else ""
    label = f"silent_cache_hit, {n:,} account" + ("" if n == 1 else "s")
    rows.append((label, median_ns(mine), median_ns(python), None, note))

refresh_ours = pick(ours, "silent_refresh", client="msal")
refresh_floor = pick(ours, "silent_refresh", client="curl_easy_floor")
refresh_python = pick(theirs, "silent_refresh", client="msal_python")
refresh_requests = pick(theirs, "silent_refresh", client="requests_floor")
rows.append(("silent_refresh (force_refresh)", median_ns(refresh_ours), median_ns(refresh_python),
             median_ns(refresh_floor), f"requests-only round trip {duration(median_ns(refresh_requests))}"))

concurrent_ours = pick(ours, "silent_concurrent")
concurrent_python = pick(theirs, "silent_concurrent")
ours_requests = concurrent_ours[0]["m"]["params"]["token_requests"] if concurrent_ours else None
python_requests = concurrent_python[0]["m"]["params"]["token_requests"] if concurrent_python else None
rows.append(("silent_concurrent, 1,000 callers: time", median_ns(concurrent_ours), median_ns(concurrent_python),
             None, ""))
rows.append(("silent_concurrent: token requests", ours_requests, python_requests, None, "counted by the emulator"))

# Every save of this library fsyncs the file and its folder; MSAL Python's is timed the same way.
rows.append(("cache_save, 10,000 accounts, with fsync", median_ns(pick(ours, "cache_save", accounts=10000)),
             median_ns(pick(theirs, "cache_save", fsync=True)), None, "serialize + write + fsync + rename"))
load_note = ""
loads = pick(ours, "cache_load", accounts=10000)
if loads:
    load_note = f"file {loads[0]['m']['params']['file_bytes'] / 1048576:.0f} MiB"
rows.insert(-2, ("cache_load, 10,000 accounts", median_ns(loads), median_ns(pick(theirs, "cache_load")),
                 None, load_note))
for n in (10000, 100000):
    mine = [m["ours"]["peak_rss_mib"] for m in machine if m.get("file_accounts") == n and "ours" in m]
    python = [m["python"]["peak_rss_mib"] for m in machine if m.get("file_accounts") == n and "python" in m]
    rows.append((f"peak RSS, load {n:,}-account file", f"{mine[0]:.0f} MiB" if mine else "-",
                 f"{python[0]:.0f} MiB" if python else "-",
                 python[0] / mine[0] if mine and python else None, "a process of its own"))
transport = median_ns(pick(ours, "transport_roundtrip", client="transport"))
transport_floor = median_ns(pick(ours, "transport_roundtrip", client="curl_easy_floor"))
rows.append(("transport_roundtrip (ours only)", transport, None, transport_floor, ""))

print()
print(f"{'scenario':<42} {'ours':>10} {'MSAL Python':>12} {'ratio':>9} {'floor':>10}  note")
print("-" * 100)
for label, mine, python, floor_or_ratio, note in rows:
    if label.startswith("peak RSS"):
        ratio, floor = floor_or_ratio, None
        mine_text, python_text = mine, python
    elif label.endswith("token requests"):
        ratio, floor = None, None
        mine_text, python_text = str(mine), str(python)
    else:
        floor = floor_or_ratio
        ratio = python / mine if mine and python else None
        mine_text, python_text = duration(mine), duration(python)
    ratio_text = f"{ratio:,.1f}x" if ratio else "-"
    print(f"{label:<42} {mine_text:>10} {python_text:>12} {ratio_text:>9} {duration(floor):>10}  {note}")
loads = [float(r["loadavg"]) for r in ours + theirs]
print(f"\n{rounds} rounds; the time figures are medians over rounds of per-round medians; "
      f"ratio = MSAL Python / ours. Load average while measuring: "
      f"min {min(loads):.2f}, median {statistics.median(loads):.2f}, max {max(loads):.2f}.")

# Targets.
failures = []
hit_ours = median_ns(pick(ours, "silent_cache_hit", accounts=10000))
hit_python = median_ns(pick(theirs, "silent_cache_hit", accounts=10000))
hit_ratio = hit_python / hit_ours if hit_ours and hit_python else 0
print(f"target: silent cache hit at 10,000 accounts >= 100x faster than MSAL Python: {hit_ratio:,.0f}x "
      + ("held" if hit_ratio >= 100 else "MISSED"))
if hit_ratio < 100:
    failures.append("silent cache hit")
# Per round, ours against the floor measured right beside it; the median of those ratios.
per_round = [o["m"]["median_ns"] / f["m"]["median_ns"] for o in refresh_ours for f in refresh_floor
             if o["round"] == f["round"]]
refresh_ratio = statistics.median(per_round) if per_round else float("inf")
print(f"target: silent refresh within 1.2x of the libcurl floor: {refresh_ratio:.3f}x (per round: "
      + ", ".join(f"{r:.3f}" for r in per_round) + ") " + ("held" if refresh_ratio <= 1.2 else "MISSED"))
if refresh_ratio > 1.2:
    failures.append("silent refresh")
print(f"target: exactly one token request for 1,000 concurrent silent calls: {ours_requests} "
      + ("held" if ours_requests == 1 else "MISSED"))
if ours_requests != 1:
    failures.append("concurrent")
# The transport round trip is reported, not a target: the refresh target above holds the whole
# request (transport, JSON, checks, cache) to the libcurl floor, which is what a user waits for.
per_round = [o["m"]["median_ns"] / f["m"]["median_ns"]
             for o in pick(ours, "transport_roundtrip", client="transport")
             for f in pick(ours, "transport_roundtrip", client="curl_easy_floor") if o["round"] == f["round"]]
transport_ratio = statistics.median(per_round) if per_round else float("inf")
print(f"transport round trip against the libcurl floor (one CPU, not a target): {transport_ratio:.3f}x (per round: "
      + ", ".join(f"{r:.3f}" for r in per_round) + ")")
hits = {n: median_ns(pick(ours, "silent_cache_hit", accounts=n)) for n in (1, 1000, 10000, 100000)}
slowest = max(h for h in hits.values() if h)
# The spread: per round, 100,000 accounts against 1 measured in one process in alternating blocks.
pair_rounds = [m["m"]["median_ns"] / o["m"]["median_ns"]
               for o in pick(ours, "silent_cache_hit_pair", accounts=1)
               for m in pick(ours, "silent_cache_hit_pair", accounts=100000) if o["round"] == m["round"]]
spread = statistics.median(pair_rounds) if pair_rounds else float("inf")
print(f"target: silent cache hit under 5 us at every size, 100,000 accounts within 1.5x of 1 (interleaved): "
      f"slowest {slowest / 1000:.2f} us, {spread:.2f}x (per round: " + ", ".join(f"{r:.2f}" for r in pair_rounds)
      + ") " + ("held" if slowest < 5000 and spread <= 1.5 else "MISSED"))
if slowest >= 5000 or spread > 1.5:
    failures.append("cache hit")
# A small cache loads and saves at once; a large one may take what MSAL Python takes (issue 34).
for scenario in ("cache_load", "cache_save"):
    small = median_ns(pick(ours, scenario, accounts=100))
    print(f"target: {scenario} of 100 accounts under 5 ms: {duration(small)} "
          + ("held" if small is not None and small < 5e6 else "MISSED"))
    if small is None or small >= 5e6:
        failures.append(f"{scenario} (100)")
    extra = {"fsync": True} if scenario == "cache_save" else {}
    mine = median_ns(pick(ours, scenario, accounts=10000))
    python = median_ns(pick(theirs, scenario, **extra))
    print(f"target: {scenario} of 10,000 accounts no slower than MSAL Python: {duration(mine)} against "
          f"{duration(python)} " + ("held" if mine is not None and python is not None and mine <= python else "MISSED"))
    if mine is None or python is None or mine > python:
        failures.append(f"{scenario} (10,000)")
rss = [m["ours"]["peak_rss_mib"] for m in machine if m.get("file_accounts") == 10000 and "ours" in m]
rss_python = [m["python"]["peak_rss_mib"] for m in machine if m.get("file_accounts") == 10000 and "python" in m]
held = bool(rss and rss_python and rss[0] <= rss_python[0])
print(f"target: peak RSS with 10,000 accounts no more than MSAL Python's: "
      f"{rss[0] if rss else float('nan'):.0f} MiB against {rss_python[0] if rss_python else float('nan'):.0f} MiB "
      + ("held" if held else "MISSED"))
if not held:
    failures.append("peak RSS")
print("ALL TARGETS HELD" if not failures else "TARGETS MISSED: " + ", ".join(failures))
sys.exit(1 if failures else 0)
PYTHON
