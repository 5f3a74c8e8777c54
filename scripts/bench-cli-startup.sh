#!/usr/bin/env bash
# What `msal token` costs for a cached token beyond starting the process: `msal --version`,
# `msal token` with the plaintext cache and `msal token` with the default encrypted cache (the
# key in the kernel keyring), run alternately in one loop (each round runs every command once,
# in a rotating order), so that a busy machine slows all of them alike. Prints each command's
# median CPU time (user + system, from wait4) and wall time, and the ratio of each `msal token`
# to `msal --version` (issue 34's target: within 1.3x). The emulator is stopped before timing:
# a cached token needs no network, and a command that tried would fail here.
#
#   scripts/bench-cli-startup.sh                 # builds .build/release/msal first
#   scripts/bench-cli-startup.sh PATH/msal       # measures that binary
#   BENCH_CLI_OTHER=OLD/msal scripts/bench-cli-startup.sh PATH/msal   # and another build, interleaved
#   BENCH_CLI_RUNS=200 (default 100) rounds; the first 5 are a warm-up, not counted.
#
# Needs python3 and a kernel keyring (add_key works in most containers; `msal doctor` tells).
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${BENCH_CLI_RUNS:-100}"
if [ $# -ge 1 ]; then
    msal="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
    swift build -c release --product msal >&2
    msal="$PWD/.build/release/msal"
fi
other="${BENCH_CLI_OTHER:-}"
work="$(mktemp -d "${TMPDIR:-/tmp}/msal-bench-cli.XXXXXX")"
emulator_pid=""
stop_emulator() {
    if [ -n "$emulator_pid" ]; then kill -TERM "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; fi
    emulator_pid=""
}
cleanup() {
    stop_emulator
    # The kernel keyring's key of the encrypted cache goes with it.
    MSAL_CACHE="$work/keyring/msal_cache.json" "$msal" logout --all >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

"$msal" emulator --approve-device-codes --scopes User.Read >"$work/emulator.txt" 2>&1 &
emulator_pid=$!
for _ in $(seq 100); do grep -q "Press Ctrl-C" "$work/emulator.txt" && break; sleep 0.1; done
eval "$(sed -n 's/^ *export \(MSAL_CLIENT_ID\|MSAL_CA_FILE\|MSAL_CONNECT_TO\)=/export \1=/p' "$work/emulator.txt")"
unset MSAL_CACHE MSAL_CACHE_BACKEND DBUS_SESSION_BUS_ADDRESS
mkdir -p "$work/plaintext" "$work/keyring"
MSAL_CACHE="$work/plaintext/msal_cache.json" MSAL_CACHE_BACKEND=plaintext \
    "$msal" login --device-code --scopes User.Read -o none 2>/dev/null
# The key store is chosen at sign-in and remembered beside the cache (msal_cli_defaults.json):
# `msal token` below names none, as a user's command would.
MSAL_CACHE="$work/keyring/msal_cache.json" MSAL_CACHE_BACKEND=kernel-keyring \
    "$msal" login --device-code --scopes User.Read -o none 2>/dev/null
[ "$(head -c 9 "$work/keyring/msal_cache.json")" = MSALCACHE ] \
    || { echo "bench-cli-startup.sh: the keyring cache is not encrypted" >&2; exit 1; }
stop_emulator
# As a user's shell runs it: no emulator routing, and its CA file went with it.
unset MSAL_CA_FILE MSAL_CONNECT_TO

python3 - "$runs" "$msal" "$work" "$other" <<'PY'
import os, statistics, sys, time
runs, msal, work, other = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def token(binary, cache, plaintext):
    argv = [binary, "token", "--scopes", "User.Read", "--cache", f"{work}/{cache}/msal_cache.json"]
    return argv + (["--cache-backend", "plaintext"] if plaintext else [])
commands = [("msal --version", [msal, "--version"]),
            ("msal token, plaintext cache", token(msal, "plaintext", True)),
            ("msal token, kernel keyring cache", token(msal, "keyring", False))]
if other:
    commands += [("other msal --version", [other, "--version"]),
                 ("other msal token, plaintext cache", token(other, "plaintext", True)),
                 ("other msal token, kernel keyring cache", token(other, "keyring", False))]
devnull = os.open(os.devnull, os.O_WRONLY)
def once(argv):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"bench-cli-startup.sh: {' '.join(argv)} failed (status {status})")
    return (usage.ru_utime + usage.ru_stime) * 1000, wall * 1000
cpu = {name: [] for name, _ in commands}
wall = {name: [] for name, _ in commands}
for round in range(runs + 5):
    shift = round % len(commands)
    for name, argv in commands[shift:] + commands[:shift]:
        c, w = once(argv)
        if round >= 5:
            cpu[name].append(c)
            wall[name].append(w)
print(f"{runs} interleaved rounds, medians (load average {open('/proc/loadavg').read().split()[0]}):")
for name, _ in commands:
    base = "other msal --version" if name.startswith("other") else "msal --version"
    c, w = statistics.median(cpu[name]), statistics.median(wall[name])
    cb, wb = statistics.median(cpu[base]), statistics.median(wall[base])
    print(f"  {name:40s} CPU {c:6.2f} ms ({c / cb:.2f}x)   wall {w:6.2f} ms ({w / wb:.2f}x)")
PY
