#!/usr/bin/env bash
# `msal token` for a cached token, as a shell script runs it: the wall time of whole processes
# (hyperfine, median of BENCH_CLI_RUNS runs, default 20), beside MSAL for Python doing the same
# from the same cache file (`python -c "import msal; ..."`: load the cache, create the app,
# acquire_token_silent). Both talk to one `msal emulator` over loopback HTTPS (each process asks
# it for the tenant's OpenID configuration, as both libraries do once per process); neither sends
# a token request. `msal --version` (start and exit) and `curl --version` (a process that loads the
# system's libcurl and its libraries, as msal does) are the floors. With `perf` installed it also
# prints each command's CPU time, which a busy machine disturbs far less than wall time.
# With BENCH_CLI_AZ it also runs Azure CLI's `az account get-access-token` on the same cache file
# (the emulator registers Azure CLI's client id; az reaches it through a loopback CONNECT proxy,
# scripts/bench/connect-proxy.py, and trusts only its CA). Docs/Performance.md records the figures.
#
#   scripts/bench-cli.sh              # builds the portable msal (scripts/install-cli.sh) first
#   scripts/bench-cli.sh PATH/msal    # measures that binary
#   BENCH_CLI_OTHER=OLD/msal scripts/bench-cli.sh PATH/msal   # and another build beside it
#   BENCH_CLI_AZ=VENV/bin/az scripts/bench-cli.sh PATH/msal   # and Azure CLI (pip install azure-cli)
#
# Needs hyperfine (Debian: apt-get install hyperfine) and MSAL for Python
# (scripts/interop.sh --setup-only, from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${BENCH_CLI_RUNS:-20}"
command -v hyperfine >/dev/null || { echo "bench-cli.sh: needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
work="$(mktemp -d)"
emulator_pid=""
proxy_pid=""
cleanup() {
    if [ -n "$emulator_pid" ]; then kill -TERM "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; fi
    if [ -n "$proxy_pid" ]; then kill -TERM "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

if [ $# -ge 1 ]; then
    msal="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
    scripts/install-cli.sh --prefix "$work/prefix"
    msal="$work/prefix/bin/msal"
fi
scripts/interop.sh --setup-only >&2
python="$PWD/.build-interop/venv/bin/python"

# The app is registered under Azure CLI's client id, so that az can use the same cache file.
azure_cli_client=04b07795-8ddb-461a-bbee-02f9e1bf7b46
arm_scope="https://management.core.windows.net//.default"
"$msal" emulator --approve-device-codes --client-id "$azure_cli_client" --scopes "User.Read $arm_scope" \
    >"$work/emulator.txt" 2>&1 &
emulator_pid=$!
for _ in $(seq 100); do grep -q "Press Ctrl-C" "$work/emulator.txt" && break; sleep 0.1; done
eval "$(sed -n 's/^ *export \(MSAL_CLIENT_ID\|MSAL_CA_FILE\|MSAL_CONNECT_TO\)=/export \1=/p' "$work/emulator.txt")"
mkdir -p "$work/azure"
export MSAL_CACHE="$work/azure/msal_token_cache.json"   # where Azure CLI keeps its cache on Linux
# The plaintext file, which MSAL for Python and Azure CLI read too (a key store would encrypt it).
export MSAL_CACHE_BACKEND=plaintext
export REQUESTS_CA_BUNDLE="$MSAL_CA_FILE"   # MSAL Python's requests trust the emulator's CA only
"$msal" login --device-code --scopes User.Read -o none 2>/dev/null
IFS=$'\t' read -r _ _ _ tenant _ < <("$msal" token --scopes User.Read -o tsv)
username="$("$msal" accounts -o tsv | cut -f1)"

# MSAL Python looks the access token up under the authority's tenant: give it the home tenant,
# which `msal token` reaches from `common` the same way (the account's home tenant).
read -r -d '' python_code <<PY || true
import os, sys; sys.path.insert(0, "Tests/Interop"); import msal, msal_interop; e = os.environ; cache = msal.SerializableTokenCache(); cache.deserialize(open(e["MSAL_CACHE"]).read()); app = msal.PublicClientApplication(e["MSAL_CLIENT_ID"], authority="https://login.microsoftonline.com/$tenant", token_cache=cache, http_client=msal_interop.connect_to_session(e["MSAL_CONNECT_TO"].split(","), e["MSAL_CA_FILE"])); result = app.acquire_token_silent(["User.Read"], app.get_accounts()[0]); assert result["token_source"] == "cache"; print(result["access_token"])
PY
[ "$("$python" -c "$python_code")" = "$("$msal" token --scopes User.Read)" ] \
    || { echo "bench-cli.sh: the two commands print different tokens" >&2; exit 1; }

# BENCH_CLI_OTHER=PATH/msal measures another build beside (an older commit, a dynamic build).
other=()
if [ -n "${BENCH_CLI_OTHER:-}" ]; then other=(-n "other msal token" "$BENCH_CLI_OTHER token --scopes User.Read"); fi

# BENCH_CLI_AZ=PATH/az: Azure CLI signed in as the same user, from the same cache file (its
# subscription list, azureProfile.json, written here), for Azure Resource Manager's scope.
azure=()
if [ -n "${BENCH_CLI_AZ:-}" ]; then
    emulator_port="$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\).*|\1|p' "$work/emulator.txt")"
    python3 scripts/bench/connect-proxy.py "$emulator_port" >"$work/proxy.txt" &
    proxy_pid=$!
    for _ in $(seq 50); do [ -s "$work/proxy.txt" ] && break; sleep 0.1; done
    "$msal" token --scopes "$arm_scope" >/dev/null   # a refresh-token grant: ARM's token cached too
    cat >"$work/azure/azureProfile.json" <<JSON
{"installationId": "00000000-0000-4000-8000-000000000001", "subscriptions": [{"id": "00000000-0000-4000-8000-0000000000aa", "name": "bench", "state": "Enabled", "user": {"name": "$username", "type": "user"}, "isDefault": true, "tenantId": "$tenant", "environmentName": "AzureCloud", "homeTenantId": "$tenant", "managedByTenants": []}]}
JSON
    az_command=(env AZURE_CONFIG_DIR="$work/azure" HTTPS_PROXY="http://127.0.0.1:$(cat "$work/proxy.txt")"
        REQUESTS_CA_BUNDLE="$MSAL_CA_FILE" AZURE_CORE_COLLECT_TELEMETRY=no AZURE_CORE_SURVEY_MESSAGE=no
        "$BENCH_CLI_AZ" account get-access-token)
    [ "$("${az_command[@]}" --query accessToken -o tsv)" = "$("$msal" token --scopes "$arm_scope")" ] \
        || { echo "bench-cli.sh: az and msal print different tokens for $arm_scope" >&2; exit 1; }
    azure=(-n "az account get-access-token" "${az_command[*]}"
        -n "msal token (ARM scope)" "$msal token --scopes $arm_scope")
fi
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/result.json" \
    -n "msal token" "$msal token --scopes User.Read" "${other[@]}" \
    -n "msal --version" "$msal --version" \
    -n "curl --version" "curl --version" \
    -n "MSAL for Python" "$python -c '$python_code'" "${azure[@]}" >&2
python3 - "$work/result.json" "$runs" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
for r in results:
    print(f"{r['command']}: median {r['median'] * 1000:.1f} ms (min {r['min'] * 1000:.1f}, max {r['max'] * 1000:.1f}) over {sys.argv[2]} runs")
PY
# CPU time (task-clock) moves far less than wall time on a busy machine: `perf stat`, when there.
if command -v perf >/dev/null; then
    cpu() {
        local name="$1"; shift
        local ms
        ms=$(perf stat -x, -e task-clock -r "$runs" "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
        echo "$name: CPU time (task-clock) $ms ms, mean of $runs runs"
    }
    cpu "msal token" "$msal" token --scopes User.Read
    if [ -n "${BENCH_CLI_OTHER:-}" ]; then cpu "other msal token" "$BENCH_CLI_OTHER" token --scopes User.Read; fi
    cpu "msal --version" "$msal" --version
    cpu "curl --version" curl --version
    cpu "MSAL for Python" "$python" -c "$python_code"
    if [ -n "${BENCH_CLI_AZ:-}" ]; then cpu "az account get-access-token" "${az_command[@]}"; fi
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
