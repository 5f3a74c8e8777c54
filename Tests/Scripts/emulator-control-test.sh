#!/bin/sh
# A test of sign-in written in shell against `msal emulator` (Docs/Testing.md, "From a shell or
# another language"): the app is registered on the command line, the environment is read from the
# file the emulator writes, and the control endpoint approves device codes, injects a fault and
# moves the clock. Plain curl plays the client. Run by MSALCLITests (CI); by hand:
#   MSAL=.build/debug/msal sh Tests/Scripts/emulator-control-test.sh
set -eu
msal=${MSAL:-msal}
client_id=11111111-2222-4333-8444-555555555555
dir=$(mktemp -d)
"$msal" emulator --client-id "$client_id" --redirect-uri http://localhost --scopes "User.Read Files.Read" \
    --user carol.tester@contoso.onmicrosoft.com,dan.tester@contoso.onmicrosoft.com --env-file "$dir/env" >"$dir/log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
i=0
until [ -s "$dir/env" ]; do # the file appears, whole, once the emulator listens
    i=$((i + 1))
    [ "$i" -le 300 ] || { cat "$dir/log"; echo "FAIL: no environment file" >&2; exit 1; }
    sleep 0.05
done
. "$dir/env"

fail() { echo "FAIL: $*" >&2; exit 1; }
# field JSON NAME: a top-level member of a JSON object (printf, not echo: dash's echo expands "\n").
field() { printf '%s' "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1], ""))' "$2"; }
# The cloud host name goes to the emulator, over TLS checked against its CA.
login() {
    path=$1; shift
    curl -sS --cacert "$MSAL_CA_FILE" --connect-to "login.microsoftonline.com:443:127.0.0.1:${MSAL_EMULATOR_URL##*:}" \
        "https://login.microsoftonline.com/organizations/oauth2/v2.0/$path" "$@"
}
control() {
    command=$1; shift
    curl -sS --fail-with-body --cacert "$MSAL_CA_FILE" -H "Authorization: Bearer $MSAL_EMULATOR_CONTROL_TOKEN" \
        "$MSAL_EMULATOR_URL/.emulator/$command" "$@"
}

[ "$MSAL_CLIENT_ID" = "$client_id" ] || fail "MSAL_CLIENT_ID is $MSAL_CLIENT_ID"

# Device code: approved through the control endpoint, then redeemed.
codes=$(login devicecode -d client_id="$client_id" -d "scope=User.Read offline_access openid profile")
device_code=$(field "$codes" device_code)
user_code=$(field "$codes" user_code)
[ -n "$device_code" ] || fail "no device code: $codes"
pending=$(login token -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d client_id="$client_id" \
    -d device_code="$device_code")
[ "$(field "$pending" error)" = authorization_pending ] || fail "not pending: $pending"
control device-codes/approve -d user_code="$user_code" >/dev/null
control clock -d advance=5 >/dev/null # the polling interval passes without waiting
tokens=$(login token -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d client_id="$client_id" \
    -d device_code="$device_code")
refresh_token=$(field "$tokens" refresh_token)
[ -n "$(field "$tokens" access_token)" ] && [ -n "$refresh_token" ] || fail "no tokens: $tokens"
claims=$(field "$tokens" id_token | python3 -c \
    'import base64, sys; p = sys.stdin.read().split(".")[1]; print(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)).decode())')
[ "$(field "$claims" preferred_username)" = carol.tester@contoso.onmicrosoft.com ] \
    || fail "the default user (--user) did not sign in: $claims"

# The other user, chosen through the control endpoint.
control default-user -d username=dan.tester@contoso.onmicrosoft.com >/dev/null
users=$(control state)
[ "$(field "$users" default_username)" = dan.tester@contoso.onmicrosoft.com ] || fail "default user: $users"

# A scope the app did not register: invalid_scope, AADSTS70011.
bad=$(login devicecode -d client_id="$client_id" -d "scope=Mail.Read openid")
[ "$(field "$bad" error)" = invalid_scope ] || fail "Mail.Read was not refused: $bad"
printf %s "$bad" | grep -q AADSTS70011 || fail "no AADSTS70011: $bad"

# An injected fault, then the refresh token works once the fault is used up.
control faults -d endpoint=token -d fault=server_error -d grant_type=refresh_token >/dev/null
status=$(login token -o /dev/null -w '%{http_code}' -d grant_type=refresh_token -d client_id="$client_id" \
    -d refresh_token="$refresh_token" -d "scope=User.Read")
[ "$status" = 500 ] || fail "the injected fault answered $status"
refreshed=$(login token -d grant_type=refresh_token -d client_id="$client_id" -d refresh_token="$refresh_token" \
    -d "scope=Files.Read offline_access")
[ -n "$(field "$refreshed" access_token)" ] || fail "refresh failed: $refreshed"

# Three months later (the emulator's clock), the rotated refresh token has expired.
rotated=$(field "$refreshed" refresh_token)
[ -n "$rotated" ] || fail "no rotated refresh token: $refreshed"
control clock -d advance=$((91 * 86400)) >/dev/null
expired=$(login token -d grant_type=refresh_token -d client_id="$client_id" -d refresh_token="$rotated" \
    -d "scope=User.Read")
printf %s "$expired" | grep -q AADSTS700082 || fail "the refresh token did not expire: $expired"

# The control endpoint needs its token.
denied=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$MSAL_CA_FILE" "$MSAL_EMULATOR_URL/.emulator/state")
[ "$denied" = 401 ] || fail "the control endpoint answered $denied without its token"
echo "emulator-control-test: ok"
