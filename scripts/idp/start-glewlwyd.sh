#!/usr/bin/env bash
# Starts a throwaway glewlwyd OpenID Connect server for the integration tests, on
# https://127.0.0.1:${MSAL_IDP_PORT:-4680}, with its state in ${MSAL_IDP_DIR:-<repo>/.idp}.
#
# Every start makes a new CA and server certificate, new signing keys and a new SQLite database,
# then provisions over the admin REST API: user alice, the scopes, the public client
# swift-public-client and two issuers (/api/oidc, and /api/oidcshort with short lifetimes).
# glewlwyd runs under libfaketime, which reads its wall-clock offset from <state dir>/clock
# (MSAL_IDP_CLOCK_FILE) at every time call: a test writes "+15" there to move the server 15 s
# ahead instead of sleeping until its tokens expire, and "+0" to put it back.
# Installs the Debian packages it needs when they are missing (root or passwordless sudo).
#
# Prints an env block on stdout (`eval "$(scripts/idp/start-glewlwyd.sh)"` exports it) and writes
# it to <state dir>/env. Already running: prints the block and exits at once.
# Progress and errors go to stderr. Stop with scripts/idp/stop-glewlwyd.sh.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
state_dir=${MSAL_IDP_DIR:-$repo_root/.idp}
port=${MSAL_IDP_PORT:-4680}
log_level=${MSAL_IDP_LOG_LEVEL:-INFO}
host=127.0.0.1
base_url="https://$host:$port"

client_id=swift-public-client
user=alice
user_password=alice-password
user_display_name="Alice Tester"
user_email=alice@example.test
scopes=(openid profile email offline_access api.read)
redirect_uris=(
    http://127.0.0.1:8400/callback
    http://localhost:8400/callback
    http://localhost
    http://127.0.0.1
    msauth.swift-msal-tests://auth
)
# The main issuer and the short one: access token, refresh token, code and device code
# lifetimes and the device polling interval, in seconds.
main_lifetimes=(3600 1209600 600 600 1)
short_lifetimes=(3 60 3 3 1)

# The built-in administrator created by glewlwyd's SQL; its password is replaced at each start.
admin_user="admin"
default_admin_password=password

pid_file=$state_dir/glewlwyd.pid
clock_file=$state_dir/clock
env_file=$state_dir/env
conf_file=$state_dir/glewlwyd.conf
log_file=$state_dir/glewlwyd.log
ca_file=$state_dir/ca.pem
jar=$state_dir/admin-cookies

started_at=$(date +%s%N)

log() { printf 'start-glewlwyd: %s\n' "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}
elapsed_ms() { echo $((($(date +%s%N) - started_at) / 1000000)); }

if ! [[ $port =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
    die "MSAL_IDP_PORT must be a TCP port, got '$port'"
fi
# The directory is written into glewlwyd's config (quoted strings) and into the env file.
[[ $state_dir != *[\"\'\\$'\n']* ]] || die "MSAL_IDP_DIR must not contain quotes, backslashes or newlines"

# One start or stop at a time per state directory (parallel test processes may all call this).
mkdir -p "$state_dir"
chmod 700 "$state_dir"
exec 9>"$state_dir/lock"
flock -w 120 9 || die "another start or stop holds $state_dir/lock for more than 120 s"

# --- already running? ----------------------------------------------------------------------

# The PID in the PID file, if that process is the glewlwyd this state directory started.
our_pid() {
    local pid
    [[ -f $pid_file ]] || return 1
    pid=$(<"$pid_file")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    local cmdline
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline") || return 1
    [[ $cmdline == *"--config-file=$conf_file "* ]] || return 1
    echo "$pid"
}

discovery_ok() {
    curl -fsS -o /dev/null --max-time 2 --cacert "$ca_file" "$1/.well-known/openid-configuration" 2>/dev/null
}

print_env() {
    sed 's/^/export /' "$env_file"
}

if pid=$(our_pid) && [[ -f $env_file ]]; then
    # A server from before the movable clock (no MSAL_IDP_CLOCK_FILE) is restarted.
    if grep -qxF "MSAL_IDP_PORT='$port'" "$env_file" && grep -q '^MSAL_IDP_CLOCK_FILE=' "$env_file" \
        && discovery_ok "$base_url/api/oidc" && discovery_ok "$base_url/api/oidcshort"; then
        log "already running (pid $pid) at $base_url"
        print_env
        exit 0
    fi
    log "pid $pid is not serving as expected on port $port (or has no movable clock); restarting it"
fi
if pid=$(our_pid); then
    MSAL_IDP_LOCK_HELD=1 "$repo_root/scripts/idp/stop-glewlwyd.sh" >&2
fi
if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    die "port $port on $host is in use by another process; set MSAL_IDP_PORT to a free port"
fi

# --- packages ------------------------------------------------------------------------------

sudo_cmd=()
as_root() { "${sudo_cmd[@]}" "$@"; }

policy_backup=""
policy_installed=false
restore_policy() {
    if $policy_installed; then
        as_root rm -f /usr/sbin/policy-rc.d
        if [[ -n $policy_backup ]]; then as_root mv "$policy_backup" /usr/sbin/policy-rc.d; fi
    fi
}

install_packages() {
    local missing=() p
    for p in glewlwyd libfaketime sqlite3 jq openssl curl; do
        # No `| grep -q` under pipefail: grep quitting early fails the writer with SIGPIPE.
        [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] || missing+=("$p")
    done
    command -v setsid >/dev/null || die "setsid (util-linux) is missing"
    ((${#missing[@]} == 0)) && return 0
    # With glewlwyd, dbconfig-no-thanks: otherwise apt picks dbconfig-mysql and MariaDB's client.
    [[ " ${missing[*]} " == *" glewlwyd "* ]] && missing+=(dbconfig-no-thanks)
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
            sudo_cmd=(sudo -n)
        else
            die "missing Debian packages: ${missing[*]}. Run this script as root, or install them:" \
                "apt-get install --no-install-recommends ${missing[*]}" \
                "(preseed: glewlwyd glewlwyd/config_type select No configuration)"
        fi
    fi
    log "installing ${missing[*]}"
    # No database configuration by the package, and no system instance started by its scripts.
    echo "glewlwyd glewlwyd/config_type select No configuration" | as_root debconf-set-selections
    trap restore_policy EXIT
    if [[ -e /usr/sbin/policy-rc.d ]]; then
        policy_backup=$(as_root mktemp /usr/sbin/policy-rc.d.msal-idp.XXXXXX)
        as_root cp -p /usr/sbin/policy-rc.d "$policy_backup"
    fi
    policy_installed=true
    printf '#!/bin/sh\nexit 101\n' | as_root tee /usr/sbin/policy-rc.d >/dev/null
    as_root chmod 755 /usr/sbin/policy-rc.d
    # Refresh the package lists only when one of the packages has no install candidate.
    for p in "${missing[@]}"; do
        if [[ $(apt-cache policy "$p" 2>/dev/null || true) != *"Candidate: "[0-9]* ]]; then
            log "apt-get update (no candidate for $p)"
            as_root apt-get update -qq >"$state_dir/apt.log" 2>&1 || {
                tail -n 20 "$state_dir/apt.log" >&2
                die "apt-get update failed"
            }
            break
        fi
    done
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -o Dpkg::Use-Pty=0 "${missing[@]}" >>"$state_dir/apt.log" 2>&1; then
        tail -n 20 "$state_dir/apt.log" >&2
        die "apt-get install ${missing[*]} failed (log: $state_dir/apt.log)"
    fi
    restore_policy
    policy_installed=false
    log "installed in $(elapsed_ms) ms"
}

install_packages

sql=/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3
sql_gz=/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz
[[ -r $sql || -r $sql_gz ]] || die "glewlwyd's SQLite schema is missing ($sql)"
[[ -d /usr/lib/glewlwyd/plugin ]] || die "glewlwyd's modules are missing (/usr/lib/glewlwyd)"
# The thread-safe variant: glewlwyd serves each request on its own thread.
faketime_lib=$(dpkg-query -L libfaketime 2>/dev/null | grep '/libfaketimeMT\.so\.1$' | head -n 1 || true)
[[ -n $faketime_lib && -r $faketime_lib ]] || die "libfaketimeMT.so.1 is missing (package libfaketime)"

# --- fresh state ---------------------------------------------------------------------------

# Only the files this script makes: MSAL_IDP_DIR may be a directory with other content.
for f in env env.tmp clock clock.tmp glewlwyd.pid glewlwyd.conf glewlwyd.log glewlwyd.out glewlwyd.db glewlwyd.db-wal glewlwyd.db-shm admin-cookies response.json \
    ca.pem ca.key server.pem server.key server.csr server.ext oidc.key oidc.pub oidcshort.key oidcshort.pub; do
    rm -f "${state_dir:?}/$f"
done

umask 077
# The server's clock starts at the real time.
echo "+0" >"$clock_file"
(
    cd "$state_dir"
    # TLS: a throwaway CA (EC P-256, fast) and a server certificate for 127.0.0.1 and localhost.
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
    openssl req -x509 -new -key ca.key -sha256 -days 7 -subj "/CN=swift-msal throwaway test CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -out ca.pem 2>/dev/null
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key 2>/dev/null
    openssl req -new -key server.key -subj "/CN=127.0.0.1" -out server.csr 2>/dev/null
    printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
        "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial "0x$(openssl rand -hex 16)" \
        -days 7 -sha256 -extfile server.ext -out server.pem 2>/dev/null
    rm -f server.csr server.ext ca.key
) &
tls_job=$!
(
    # RS256 signing keys, one per issuer, made in parallel.
    cd "$state_dir"
    for name in oidc oidcshort; do
        (openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$name.key" 2>/dev/null \
            && openssl pkey -in "$name.key" -pubout -out "$name.pub") &
    done
    wait
) &
keys_job=$!
# One transaction, and WAL (kept by the database file): glewlwyd then syncs once per commit, which
# matters on a busy disk.
{
    echo "PRAGMA journal_mode=WAL; BEGIN;"
    if [[ -r $sql ]]; then cat "$sql"; else zcat "$sql_gz"; fi
    echo "COMMIT;"
} | sqlite3 "$state_dir/glewlwyd.db" >/dev/null
wait "$tls_job" || die "making the TLS certificates failed"
for f in ca.pem server.pem server.key; do
    [[ -s $state_dir/$f ]] || die "$state_dir/$f was not created"
done
chmod 644 "$ca_file"

cat >"$conf_file" <<EOF
# Written by scripts/idp/start-glewlwyd.sh; recreated at every start.
port=$port
bind_address="$host"
external_url="$base_url"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="file"
log_level="$log_level"
log_file="$log_file"
cookie_secure=1
cookie_same_site="empty"
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie,api_key"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
use_secure_connection=true
secure_connection_key_file="$state_dir/server.key"
secure_connection_pem_file="$state_dir/server.pem"
hash_algorithm="SHA512"
database = { type = "sqlite3" path = "$state_dir/glewlwyd.db" };
EOF

# --- start ---------------------------------------------------------------------------------

# libfaketime (0.9.10) settings, for glewlwyd alone (not the launcher shell):
# - FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1: the offset is read from the clock file at every
#   time(), gettimeofday() and clock_gettime(CLOCK_REALTIME) call, so a new offset applies to the
#   next request. Relative offsets only ("+15", "-3"): they add to the real time, which keeps
#   running. The file is replaced by a rename, never rewritten in place.
# - FAKETIME_DONT_FAKE_MONOTONIC=1: the monotonic clocks stay real, so libmicrohttpd's connection
#   timeouts and condition-variable waits do not jump with the wall clock.
# - NO_FAKE_STAT=1: file times (the SQLite database, the keys) are reported unchanged.
# Expiry in glewlwyd and in SQLite's CURRENT_TIMESTAMP both read the faked wall clock, so they
# agree. TLS does not depend on the server's clock here: the client checks the certificate
# against its own (real) clock, and the certificate is valid for 7 days.

# In its own session, so it outlives this script and the shell that ran it; the launcher shell
# writes its own PID and then becomes glewlwyd, so the PID file names glewlwyd itself.
# The daemon keeps no descriptor but 0-2 (redirected): an inherited one would hold our lock (9)
# for as long as glewlwyd runs, or keep a caller's pipe open, so that a caller waiting for its
# end (CI logs, Foundation's Process, which watches a socket the child inherits) never sees it.
# shellcheck disable=SC2016 # $$ and $1.. are expanded by the launcher shell.
setsid -f bash -c 'for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if [[ $fd -gt 2 ]]; then eval "exec $fd>&-"; fi
    done
    echo $$ >"$1" && LD_PRELOAD=$4 FAKETIME_TIMESTAMP_FILE=$5 FAKETIME_NO_CACHE=1 \
        FAKETIME_DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 exec glewlwyd --config-file="$2" >>"$3" 2>&1 </dev/null' \
    msal-idp-launcher "$pid_file" "$conf_file" "$state_dir/glewlwyd.out" "$faketime_lib" "$clock_file" \
    9>&- </dev/null >/dev/null 2>&1

# Reports a failed start with the end of glewlwyd's log, and stops the half-provisioned server.
fail_start() {
    log "glewlwyd log ($log_file, last lines):"
    tail -n 20 "$log_file" "$state_dir/glewlwyd.out" >&2 2>/dev/null || true
    if our_pid >/dev/null; then MSAL_IDP_LOCK_HELD=1 "$repo_root/scripts/idp/stop-glewlwyd.sh" >&2 || true; fi
    die "$*"
}

# Bounded waits: at most 15 s for the PID file and the first HTTP answer.
pid=""
for _ in $(seq 1 300); do
    if [[ -s $pid_file ]]; then
        pid=$(<"$pid_file")
        break
    fi
    sleep 0.05
done
[[ -n $pid ]] || fail_start "glewlwyd did not start (no PID file after 15 s)"
status=000
for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || fail_start "glewlwyd (pid $pid) exited during start-up"
    status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 --cacert "$ca_file" \
        "$base_url/api/auth/scheme/" || true)
    [[ $status != 000 ]] && break
    sleep 0.05
done
[[ $status != 000 ]] || fail_start "glewlwyd (pid $pid) does not answer on $base_url after 15 s"
log "glewlwyd (pid $pid) answers after $(elapsed_ms) ms; provisioning"
grep -qF "$faketime_lib" "/proc/$pid/maps" 2>/dev/null || fail_start "glewlwyd (pid $pid) did not load $faketime_lib"

# --- provisioning over the admin REST API ----------------------------------------------------

scopes_json=$(printf '%s\n' "${scopes[@]}" | jq -Rsc 'split("\n") | map(select(. != ""))')
redirect_uris_json=$(printf '%s\n' "${redirect_uris[@]}" | jq -Rsc 'split("\n") | map(select(. != ""))')

# api METHOD PATH [JSON]: an admin API call with the session cookie; fails on a non-2xx answer.
api() {
    local method=$1 path=$2 body=${3:-} code
    local args=(-sS --max-time 10 --cacert "$ca_file" -b "$jar" -c "$jar" -X "$method"
        -o "$state_dir/response.json" -w '%{http_code}')
    if [[ -n $body ]]; then args+=(-H "Content-Type: application/json" --data-binary "$body"); fi
    code=$(curl "${args[@]}" "$base_url/api$path") || fail_start "$method /api$path: curl failed"
    if [[ $code != 2?? ]]; then
        fail_start "$method /api$path answered HTTP $code: $(head -c 500 "$state_dir/response.json")"
    fi
}

api POST /auth/ "$(jq -nc --arg u "$admin_user" --arg p "$default_admin_password" \
    '{username: $u, password: $p}')"

for scope in profile email offline_access api.read; do
    api POST /scope/ "$(jq -nc --arg s "$scope" '{name: $s, display_name: $s,
        description: ("swift-msal test scope " + $s), password_required: true, password_max_age: 0, scheme: {}}')"
done

api POST /user/ "$(jq -nc --arg u "$user" --arg p "$user_password" --arg n "$user_display_name" \
    --arg e "$user_email" '{username: $u, password: $p, name: $n, email: $e, enabled: true,
    scope: ["g_profile", "openid", "profile", "email", "offline_access", "api.read"]}')"

# The signing keys were made while glewlwyd started.
wait "$keys_job" || die "making the signing keys failed"
for f in oidc.key oidc.pub oidcshort.key oidcshort.pub; do
    [[ -s $state_dir/$f ]] || die "$state_dir/$f was not created"
done

# add_issuer NAME ACCESS REFRESH CODE DEVICE INTERVAL: an oidc plugin instance at /api/NAME.
add_issuer() {
    local name=$1
    api POST /mod/plugin/ "$(jq -nc --arg name "$name" --arg iss "$base_url/api/$name" \
        --rawfile key "$state_dir/$name.key" --rawfile cert "$state_dir/$name.pub" \
        --argjson access "$2" --argjson refresh "$3" --argjson code "$4" --argjson device "$5" \
        --argjson interval "$6" --argjson scopes "$scopes_json" '{
        module: "oidc", name: $name, display_name: ("swift-msal tests " + $name), enabled: true,
        parameters: {
            iss: $iss, "jwt-type": "rsa", "jwt-key-size": "256", key: $key, cert: $cert,
            "access-token-duration": $access, "refresh-token-duration": $refresh, "code-duration": $code,
            "refresh-token-rolling": true, "refresh-token-one-use": "always",
            "allow-non-oidc": false,
            "auth-type-code-enabled": true, "auth-type-code-revoke-replayed": false,
            "auth-type-token-enabled": false, "auth-type-id-token-enabled": false,
            "auth-type-none-enabled": false, "auth-type-password-enabled": false,
            "auth-type-client-enabled": false, "auth-type-refresh-enabled": true,
            "auth-type-device-enabled": true,
            "device-authorization-expiration": $device, "device-authorization-interval": $interval,
            "pkce-allowed": true, "pkce-method-plain-allowed": false, "pkce-required": false,
            "pkce-required-public-client": true,
            "introspection-revocation-allowed": true, "introspection-revocation-allow-target-client": true,
            "session-management-allowed": true, "session-cookie-name": ("GLEWLWYD_OIDC_SESSION_" + $name),
            "session-cookie-expiration": 2592000,
            "subject-type": "public", "allowed-scope": $scopes,
            "name-claim": "on-demand", "name-claim-scope": ["profile"],
            "email-claim": "on-demand", "email-claim-scope": ["email"],
            scope: [],
            claims: [{name: "preferred_username", "user-property": "username", type: "string",
                mandatory: false, "on-demand": false, scope: ["profile"]}]
        }}')"
}
add_issuer oidc "${main_lifetimes[@]}"
add_issuer oidcshort "${short_lifetimes[@]}"

api POST /client/ "$(jq -nc --arg id "$client_id" \
    --argjson uris "$redirect_uris_json" \
    --argjson scopes "$scopes_json" '{
    client_id: $id, name: "swift-msal tests", description: "Public client of the swift-msal integration tests",
    enabled: true, confidential: false, redirect_uri: $uris,
    authorization_type: ["code", "refresh_token", "device_authorization"],
    token_endpoint_auth_method: ["none"], scope: $scopes}')"

# The well-known admin password would let anyone on this machine administer the server.
admin_password=$(openssl rand -hex 16)
api PUT /profile/password "$(jq -nc --arg old "$default_admin_password" --arg new "$admin_password" \
    '{old_password: $old, password: $new}')"
rm -f "$jar" "$state_dir/response.json"

for issuer in "$base_url/api/oidc" "$base_url/api/oidcshort"; do
    ok=false
    for _ in $(seq 1 100); do
        if discovery_ok "$issuer"; then
            ok=true
            break
        fi
        sleep 0.05
    done
    $ok || fail_start "$issuer/.well-known/openid-configuration does not answer 200"
done

# --- env block -------------------------------------------------------------------------------

{
    echo "MSAL_IDP_DIR='$state_dir'"
    echo "MSAL_IDP_PORT='$port'"
    echo "MSAL_IDP_PID='$pid'"
    echo "MSAL_IDP_BASE_URL='$base_url'"
    echo "MSAL_IDP_ISSUER='$base_url/api/oidc'"
    echo "MSAL_IDP_SHORT_ISSUER='$base_url/api/oidcshort'"
    echo "MSAL_IDP_SHORT_ACCESS_TOKEN_SECONDS='${short_lifetimes[0]}'"
    echo "MSAL_IDP_SHORT_CODE_SECONDS='${short_lifetimes[2]}'"
    echo "MSAL_IDP_SHORT_DEVICE_CODE_SECONDS='${short_lifetimes[3]}'"
    echo "MSAL_IDP_CA_FILE='$ca_file'"
    echo "MSAL_IDP_CLOCK_FILE='$clock_file'"
    echo "MSAL_IDP_CLIENT_ID='$client_id'"
    echo "MSAL_IDP_SCOPES='${scopes[*]}'"
    echo "MSAL_IDP_REDIRECT_URIS='${redirect_uris[*]}'"
    echo "MSAL_IDP_USER='$user'"
    echo "MSAL_IDP_PASSWORD='$user_password'"
    echo "MSAL_IDP_USER_NAME='$user_display_name'"
    echo "MSAL_IDP_USER_EMAIL='$user_email'"
    echo "MSAL_IDP_ADMIN_USER='$admin_user'"
    echo "MSAL_IDP_ADMIN_PASSWORD='$admin_password'"
} >"$env_file.tmp"
mv "$env_file.tmp" "$env_file"

log "ready in $(elapsed_ms) ms: $base_url/api/oidc (env: $env_file)"
print_env
