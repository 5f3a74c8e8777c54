#!/usr/bin/env python3
"""msal-extensions' LibsecretPersistence, the Python side of SecretServiceExtensionsInteropTests.

Runs with Debian's /usr/bin/python3 (PyGObject comes from the python3-gi package) in the
virtualenv scripts/interop.sh makes with --system-site-packages. The session bus is the one in
DBUS_SESSION_BUS_ADDRESS. Each command prints one JSON object on stdout.

    msal_extensions_libsecret.py write --signal PATH --account NAME --secret S [--count N] [--schema N] [--attr K=V]
        Signs NAME in (a token response shaped like Microsoft Entra's, access token S) through
        PersistedTokenCache(LibsecretPersistence(PATH, ...)): msal-extensions takes its lock file,
        writes the whole cache as the keyring item, and touches PATH. With --count N, signs in
        NAME-0 ... NAME-(N-1) (access tokens S-0 ...), one write each.

    msal_extensions_libsecret.py read --signal PATH [--schema N] [--attr K=V]
        What PersistedTokenCache(LibsecretPersistence(PATH, ...)) finds: "accounts" (username ->
        home_account_id) and "access_tokens" (home_account_id -> secrets).
"""

import argparse
import base64
import json
import sys
import time

import msal
import msal_extensions

CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
TENANT = "8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6"
ENVIRONMENT = "login.microsoftonline.com"


def _segment(value):
    raw = json.dumps(value).encode("utf-8")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _cache(args):
    attributes = dict(pair.split("=", 1) for pair in args.attr)
    persistence = msal_extensions.LibsecretPersistence(
        args.signal, schema_name=args.schema, attributes=attributes or None)
    return msal_extensions.PersistedTokenCache(persistence)


def write(args):
    cache = _cache(args)
    if args.count is None:
        return {"home_account_id": _sign_in(cache, args.account, args.secret)}
    ids = [_sign_in(cache, f"{args.account}-{n}", f"{args.secret}-{n}") for n in range(args.count)]
    return {"home_account_ids": ids}


def _sign_in(cache, account, secret):
    uid = "uid-" + account
    now = int(time.time())
    claims = {
        "aud": CLIENT_ID, "iss": f"https://{ENVIRONMENT}/{TENANT}/v2.0", "iat": now, "nbf": now,
        "exp": now + 3600, "oid": uid, "tid": TENANT, "name": account,
        "preferred_username": f"{account}@contoso.example",
    }
    response = {
        "token_type": "Bearer", "scope": "User.Read openid profile offline_access",
        "expires_in": 3600, "ext_expires_in": 3600, "access_token": secret,
        "refresh_token": "rt-" + secret,
        "id_token": _segment({"alg": "none", "typ": "JWT"}) + "." + _segment(claims) + ".",
        "client_info": _segment({"uid": uid, "utid": TENANT}),
    }
    cache.add({
        "client_id": CLIENT_ID,
        "scope": response["scope"].split(),
        "token_endpoint": f"https://{ENVIRONMENT}/{TENANT}/oauth2/v2.0/token",
        "grant_type": "authorization_code",
        "response": response,
        "params": {},
        "data": {"scope": response["scope"].split()},
        "environment": ENVIRONMENT,
    })
    return f"{uid}.{TENANT}"


def read(args):
    cache = _cache(args)
    accounts = {
        account["username"]: account["home_account_id"]
        for account in cache.search(msal.TokenCache.CredentialType.ACCOUNT)
    }
    tokens = {}
    for token in cache.search(msal.TokenCache.CredentialType.ACCESS_TOKEN):
        tokens.setdefault(token["home_account_id"], []).append(token["secret"])
    return {"accounts": accounts, "access_tokens": tokens}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["write", "read"])
    parser.add_argument("--signal", required=True)
    parser.add_argument("--schema")
    parser.add_argument("--attr", action="append", default=[])
    parser.add_argument("--account")
    parser.add_argument("--secret")
    parser.add_argument("--count", type=int)
    args = parser.parse_args()
    result = write(args) if args.command == "write" else read(args)
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
