#!/usr/bin/env python3
"""The MSAL for Python side of swift-msal's token cache interoperability check.

Two commands, each printing one JSON object on stdout (no token appears in it: a silent result
is reported as whether it equals the access token the plan expects):

  write --cache FILE
      MSAL Python's own SerializableTokenCache.add() stores token responses shaped like
      Microsoft Entra's (work account, personal account, guest account in a second tenant,
      B2C account, FOCI family app) and serializes the cache to FILE.

  read --cache FILE --plan PLAN --ca-file CA --connect-to HOST:443:127.0.0.1:PORT ...
      Loads FILE into a SerializableTokenCache, creates PublicClientApplication objects on
      the plan's authorities, and for each check lists
      get_accounts() and calls acquire_token_silent(). HTTPS requests for the Microsoft host
      names go to the emulator on 127.0.0.1 (TLS still verifies the host name, as curl's
      CONNECT_TO does), trusting only the emulator's CA.

The Swift test Tests/MSALIntegrationTests/Interop/PythonCacheInteropTests.swift runs both.
"""

import argparse
import base64
import json
import os
import sys
import threading
import time
import urllib.parse
import uuid

ENVIRONMENT = "login.microsoftonline.com"
SAMPLE_CLIENT = "0b7f3c2e-4a1d-4e6b-9c8f-5d2a7e1b3c9f"  # EmulatorClient.sample
FAMILY_CLIENT = "3a8e5d7c-1b2f-4c6a-9e8d-0f1a2b3c4d51"  # EmulatorClient.familyAppOne
CONTOSO = "8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6"
FABRIKAM = "2b7e9c4d-5a6f-4e8b-8c1d-f0e1d2c3b4a5"
CONSUMERS = "9188040d-6c67-4c5b-b112-36a304b66dad"
B2C_TENANT = "5e3a7c9b-1d2f-4a6b-8e0c-7f9a1b3c5d7e"
B2C_DOMAIN = "contosob2c.onmicrosoft.com"
B2C_HOST = "contosob2c.b2clogin.com"
B2C_POLICY = "B2C_1_signupsignin"

# Each sign-in: who, where the token endpoint was (MSAL Python takes the cache realm from its
# first path segment), the granted scopes, and the id token's claims.
SIGN_INS = [
    {
        "name": "work",
        "client_id": SAMPLE_CLIENT,
        "environment": ENVIRONMENT,
        "token_endpoint": f"https://{ENVIRONMENT}/{CONTOSO}/oauth2/v2.0/token",
        "scope": "User.Read Mail.Read profile openid email",
        "uid": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "utid": CONTOSO,
        "claims": {
            "oid": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "tid": CONTOSO,
            "preferred_username": "alice@contoso.onmicrosoft.com",
            "name": "Alice Smith",
        },
    },
    {
        "name": "guest",
        "client_id": SAMPLE_CLIENT,
        "environment": ENVIRONMENT,
        "token_endpoint": f"https://{ENVIRONMENT}/{FABRIKAM}/oauth2/v2.0/token",
        "scope": "User.Read profile openid email",
        "uid": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "utid": CONTOSO,
        "claims": {
            "oid": "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910",
            "tid": FABRIKAM,
            "preferred_username": "alice@contoso.onmicrosoft.com",
            "name": "Alice Smith",
        },
    },
    {
        "name": "personal",
        "client_id": SAMPLE_CLIENT,
        "environment": ENVIRONMENT,
        "token_endpoint": f"https://{ENVIRONMENT}/{CONSUMERS}/oauth2/v2.0/token",
        "scope": "User.Read profile openid email",
        "uid": "00000000-0000-0000-66f3-3332eca7ea81",
        "utid": CONSUMERS,
        "claims": {
            "oid": "00000000-0000-0000-66f3-3332eca7ea81",
            "tid": CONSUMERS,
            "preferred_username": "carol@outlook.com",
            "name": "Carol",
        },
    },
    {
        # B2C: client_info's uid is "<oid>-<policy>" (policy lowercased), so MSAL Python's
        # home_account_id is "<oid>-b2c_1_signupsignin.<tenant id>"; the token endpoint names
        # the tenant by its domain, so that is the realm MSAL Python writes.
        "name": "b2c",
        "client_id": SAMPLE_CLIENT,
        "environment": B2C_HOST,
        "token_endpoint": f"https://{B2C_HOST}/{B2C_DOMAIN}/{B2C_POLICY.lower()}/oauth2/v2.0/token",
        "scope": f"https://{B2C_DOMAIN}/api/read",
        "uid": f"2c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f-{B2C_POLICY.lower()}",
        "utid": B2C_TENANT,
        "claims": {
            "oid": "2c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f",
            "tid": B2C_TENANT,
            "tfp": B2C_POLICY,
            "emails": ["dave@example.com"],
            "preferred_username": "dave@example.com",
            "name": "Dave",
        },
    },
    {
        # A family (FOCI) app: the response carries "foci": "1", so the refresh token and the
        # app metadata get family_id "1".
        "name": "family",
        "client_id": FAMILY_CLIENT,
        "environment": ENVIRONMENT,
        "token_endpoint": f"https://{ENVIRONMENT}/{CONTOSO}/oauth2/v2.0/token",
        "scope": "User.Read profile openid email",
        "uid": "1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e",
        "utid": CONTOSO,
        "foci": "1",
        "claims": {
            "oid": "1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e",
            "tid": CONTOSO,
            "preferred_username": "bob@contoso.onmicrosoft.com",
            "name": "Bob Jones",
        },
    },
]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def fake_jwt(claims):
    """A JWT-shaped token: real base64url header and claims, a random signature."""
    header = {"alg": "RS256", "typ": "JWT", "kid": "interop"}
    parts = [b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)]
    return ".".join(parts + [b64url(os.urandom(32))])


def token_response(sign_in, now):
    issuer_host = sign_in["environment"]
    issuer = f"https://{issuer_host}/{sign_in['claims']['tid']}/v2.0"
    id_claims = dict(
        sign_in["claims"],
        aud=sign_in["client_id"],
        iss=issuer,
        iat=now,
        nbf=now,
        exp=now + 3600,
        sub=b64url(os.urandom(24)),
        ver="2.0",
    )
    access_claims = {
        "aud": "https://graph.microsoft.com",
        "iss": issuer,
        "iat": now,
        "exp": now + 3600,
        "oid": sign_in["claims"]["oid"],
        "tid": sign_in["claims"]["tid"],
        "scp": " ".join(s for s in sign_in["scope"].split() if s not in ("openid", "profile", "email")),
        "uti": str(uuid.uuid4()),
    }
    client_info = {"uid": sign_in["uid"], "utid": sign_in["utid"]}
    response = {
        "token_type": "Bearer",
        "scope": sign_in["scope"],
        "expires_in": 3599,
        "ext_expires_in": 3599,
        "access_token": fake_jwt(access_claims),
        "refresh_token": "0.A" + b64url(os.urandom(48)),
        "id_token": fake_jwt(id_claims),
        "client_info": b64url(json.dumps(client_info).encode()),
    }
    if "foci" in sign_in:
        response["foci"] = sign_in["foci"]
    return response


def write(args):
    import msal

    cache = msal.SerializableTokenCache()
    now = int(time.time())
    summary = {"msal_version": msal.__version__, "sign_ins": []}
    for sign_in in SIGN_INS:
        response = token_response(sign_in, now)
        # The event MSAL Python's own token client hands to the cache (oauth2cli's
        # _obtain_token, then application.py adds the environment).
        cache.add({
            "client_id": sign_in["client_id"],
            "scope": response["scope"].split(),
            "token_endpoint": sign_in["token_endpoint"],
            "grant_type": "authorization_code",
            "response": response,
            "params": {},
            "data": {"scope": response["scope"].split()},
            "environment": sign_in["environment"],
        })
        summary["sign_ins"].append({
            "name": sign_in["name"],
            "client_id": sign_in["client_id"],
            "username": sign_in["claims"]["preferred_username"],
            "home_account_id": f"{sign_in['uid']}.{sign_in['utid']}",
            "environment": sign_in["environment"],
            "realm": sign_in["token_endpoint"].split("/")[3],
            "local_account_id": sign_in["claims"]["oid"],
            "target": " ".join(sorted(response["scope"].split())),
        })
    # What a newer library might add: a field on every refresh token and a whole section.
    # MSAL Python keeps both (deserialize, then serialize); so must every other reader.
    document = json.loads(cache.serialize())
    for refresh_token in document["RefreshToken"].values():
        refresh_token["future_field"] = "kept"
    document["FutureSection"] = {"entry": {"note": "unknown to MSAL Python and to swift-msal"}}
    cache.deserialize(json.dumps(document))
    with open(args.cache, "w", encoding="utf-8") as out:
        out.write(cache.serialize())
    summary["sections"] = sorted(document.keys())
    return summary


def connect_to_session(entries, ca_file):
    """A requests session that sends HOST:443 to 127.0.0.1:PORT (curl's CONNECT_TO), keeping
    the host name for the Host header, SNI and certificate verification; and counts the
    requests to token endpoints."""
    import requests
    from requests.adapters import HTTPAdapter

    routes = {}
    for entry in entries:
        host, port, target_host, target_port = entry.split(":")
        routes[(host.lower(), int(port))] = (target_host, int(target_port))

    class ConnectToAdapter(HTTPAdapter):
        def build_connection_pool_key_attributes(self, request, verify, cert=None):
            host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
            route = routes.get((host_params["host"].lower(), host_params["port"] or 443))
            if route:
                pool_kwargs["server_hostname"] = host_params["host"]
                pool_kwargs["assert_hostname"] = host_params["host"]
                host_params["host"], host_params["port"] = route
            return host_params, pool_kwargs

    session = requests.Session()
    session.verify = ca_file
    session.mount("https://", ConnectToAdapter())
    session.token_requests = []
    lock = threading.Lock()  # the benchmark sends from many threads at once

    def count(response, *args, **kwargs):
        url = response.request.url.split("?")[0]
        if "/oauth2/" in url and url.endswith("/token"):
            body = response.request.body or ""
            body = body.decode() if isinstance(body, bytes) else body
            grant = urllib.parse.parse_qs(body).get("grant_type", [""])[0]
            with lock:
                session.token_requests.append(grant)

    session.hooks["response"].append(count)
    return session


def read(args):
    # MSAL Python's requests honour REQUESTS_CA_BUNDLE over any verify= setting: trust the
    # emulator's CA and nothing else.
    os.environ["REQUESTS_CA_BUNDLE"] = args.ca_file
    os.environ.pop("CURL_CA_BUNDLE", None)
    import msal

    with open(args.plan, encoding="utf-8") as plan_file:
        plan = json.load(plan_file)
    cache = msal.SerializableTokenCache()
    with open(args.cache, encoding="utf-8") as cache_file:
        cache.deserialize(cache_file.read())
    session = connect_to_session(args.connect_to, args.ca_file)
    apps = {}

    def app_for(client_id, authority):
        if (client_id, authority) not in apps:
            # Instance discovery stays on (MSAL Python's default) unless the plan turns it off:
            # it is how MSAL Python learns that login.windows.net, where MSAL.NET, MSAL for
            # iOS/macOS and swift-msal cache Microsoft Entra tokens, is an alias of
            # login.microsoftonline.com, where MSAL Python caches them. The session sends it to
            # the emulator like every other request.
            apps[(client_id, authority)] = msal.PublicClientApplication(
                client_id, authority=authority, token_cache=cache, http_client=session,
                instance_discovery=plan.get("instance_discovery"))
        return apps[(client_id, authority)]

    summary = {"msal_version": msal.__version__, "accounts": {}, "checks": []}
    for client_id, authority in {(c["client_id"], c["authority"]) for c in plan["checks"]}:
        accounts = app_for(client_id, authority).get_accounts()
        summary["accounts"][f"{client_id} {authority}"] = sorted(
            (
                {
                    "home_account_id": a["home_account_id"],
                    "username": a["username"],
                    "environment": a["environment"],
                    "realm": a["realm"],
                    "local_account_id": a["local_account_id"],
                    "authority_type": a["authority_type"],
                }
                for a in accounts
            ),
            key=lambda a: a["home_account_id"],
        )
    for check in plan["checks"]:
        app = app_for(check["client_id"], check["authority"])
        accounts = app.get_accounts(username=check["username"])
        before = len(session.token_requests)
        result = None
        if accounts:
            result = app.acquire_token_silent_with_error(
                check["scopes"], account=accounts[0], force_refresh=check.get("force_refresh", False))
        summary["checks"].append({
            "name": check["name"],
            "found_account": bool(accounts),
            "home_account_id": accounts[0]["home_account_id"] if accounts else None,
            "token_source": (result or {}).get("token_source"),
            "access_token_matches": bool(result and result.get("access_token"))
            and result.get("access_token") == check.get("expected_access_token"),
            "error": (result or {}).get("error"),
            "token_requests": session.token_requests[before:],
        })
    summary["token_requests"] = session.token_requests
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    write_parser = commands.add_parser("write", help="write a cache with MSAL Python")
    write_parser.add_argument("--cache", required=True)
    read_parser = commands.add_parser("read", help="read a cache with MSAL Python")
    read_parser.add_argument("--cache", required=True)
    read_parser.add_argument(
        "--plan", required=True,
        help="JSON: {instance_discovery, checks: [{name, client_id, authority, username, scopes, "
        "expected_access_token, force_refresh}]}")
    read_parser.add_argument("--ca-file", required=True)
    read_parser.add_argument("--connect-to", action="append", default=[], help="HOST:443:127.0.0.1:PORT")
    args = parser.parse_args()
    summary = write(args) if args.command == "write" else read(args)
    json.dump(summary, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
