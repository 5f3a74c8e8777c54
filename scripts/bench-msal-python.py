#!/usr/bin/env python3
"""msal-bench's scenarios, measured with the real MSAL for Python (the `msal` package).

Run it with the interop virtualenv (scripts/interop.sh --setup-only makes it):

    .build-interop/venv/bin/python scripts/bench-msal-python.py --scenario NAME [options]

It prints one JSON line per measurement, shaped like msal-bench's:
{"scenario", "params", "median_ns", "p99_ns", "runs"}, with params.client "msal_python"
(or "requests_floor" for the bare `requests` round trip beside silent_refresh).

The network scenarios talk to the emulator of `msal-bench --scenario emulator`: pass its
control_url (--control-url) and CA file (--ca-file). A `requests` session sends the Microsoft
host names to the emulator on 127.0.0.1 (TLS still verifies the host name; the same session code
as Tests/Interop/msal_interop.py), and token requests are counted twice: by the emulator (its
/counts) and by the session.

Scenarios:
  silent_cache_hit --file F --accounts N   acquire_token_silent answered from a cache loaded from
                                           F (msal-bench --scenario cache_fixture), for one account
                                           in the middle of the file
  silent_refresh                           acquire_token_silent(force_refresh=True) after an
                                           authorization-code sign-in; the same token request
                                           with the bare session beside it
  silent_concurrent --callers N            N threads call acquire_token_silent at once for one
                                           expired access token; token requests counted
  cache_load --file F                      open + read + SerializableTokenCache.deserialize
  cache_save --file F                      serialize + write a temp file (+ fsync) + rename
  cache_load_once --file F                 peak RSS of this process after loading F (run it in a
                                           process of its own)

No token is printed.
"""

import argparse
import json
import logging
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import warnings

# The fixture of msal-bench's cache_fixture (Sources/MSALCacheFixtures/PythonShapedCacheFile.swift).
FIXTURE_CLIENT = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
FIXTURE_TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
# The emulator's sample app and tenant (EmulatorClient.sample, EmulatorTenant.contoso), as
# msal-bench's silent_refresh and silent_concurrent use them.
SAMPLE_CLIENT = "0b7f3c2e-4a1d-4e6b-9c8f-5d2a7e1b3c9f"
CONTOSO = "8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6"
HOST = "login.microsoftonline.com"


def measurement(scenario, params, samples):
    """One JSON line of msal-bench's shape (nearest-rank percentiles, as msal-bench)."""
    ordered = sorted(samples)

    def percentile(fraction):
        if not ordered:
            return 0
        return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * fraction))]

    return json.dumps({
        "scenario": scenario,
        "params": dict(params, client=params.get("client", "msal_python")),
        "median_ns": percentile(0.5),
        "p99_ns": percentile(0.99),
        "runs": len(samples),
    }, sort_keys=True)


def timed_runs(body, runs, max_seconds, min_runs=5, before=None):
    """Calls body() up to `runs` times, stopping early after max_seconds (but not before
    min_runs); returns the wall-clock nanoseconds of each call. What body() returns is
    dropped after its call is timed (so freeing a loaded cache is not part of loading it).
    before(), when given, runs before each call, untimed."""
    samples = []
    deadline = time.monotonic() + max_seconds
    while len(samples) < runs and (len(samples) < min_runs or time.monotonic() < deadline):
        if before is not None:
            before()
        start = time.perf_counter_ns()
        result = body()
        samples.append(time.perf_counter_ns() - start)
        del result
    return samples


# --- The emulator -------------------------------------------------------------------------------

class Emulator:
    """The control server of `msal-bench --scenario emulator`."""

    def __init__(self, control_url, ca_file):
        import requests

        self.control_url = control_url.rstrip("/")
        self.http = requests.Session()
        self.http.verify = ca_file
        self.connect_to = self._call("GET", "/info")["connect_to"]

    def _call(self, method, path):
        response = self.http.request(method, self.control_url + path, timeout=30)
        response.raise_for_status()
        return response.json()

    def token_requests(self, grant_type=None):
        counts = self._call("GET", "/counts")
        if grant_type is None:
            return counts["endpoints"]["token"]
        return counts["grants"].get(grant_type, 0)

    def set_access_token_lifetime(self, seconds):
        self._call("POST", f"/access-token-lifetime?seconds={seconds}")


# The routing session (curl's CONNECT_TO for requests) is the interop check's.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Interop"))
from msal_interop import connect_to_session  # noqa: E402


def sign_in(app, session):
    """An authorization-code sign-in as msal-bench's (the emulator's authorize endpoint redirects
    at once with a code, Alice signing in); returns the result."""
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri="http://localhost")
    response = session.get(flow["auth_uri"], allow_redirects=False, timeout=30)
    location = response.headers.get("Location", "")
    reply = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    if "code" not in reply:
        raise SystemExit(f"sign-in failed: HTTP {response.status_code}, {reply.get('error')}")
    result = app.acquire_token_by_auth_code_flow(flow, reply)
    if "access_token" not in result:
        raise SystemExit(f"sign-in failed: {result.get('error')}")
    return result


# --- Scenarios ----------------------------------------------------------------------------------

def silent_cache_hit(args, msal, emulator, session):
    cache = msal.SerializableTokenCache()
    with open(args.file, encoding="utf-8") as cache_file:
        cache.deserialize(cache_file.read())
    app = msal.PublicClientApplication(
        FIXTURE_CLIENT, authority=f"https://{HOST}/{FIXTURE_TENANT}", token_cache=cache,
        http_client=session)
    middle = args.accounts // 2
    home_account_id = "%08x-0000-4000-8000-%012x.%s" % (middle, middle * 7919, FIXTURE_TENANT)
    accounts = [a for a in app.get_accounts(username=f"user{middle}@contoso.com")
                if a["home_account_id"] == home_account_id]
    if not accounts:
        raise SystemExit(f"the fixture has no account {home_account_id}")
    account = accounts[0]
    before = emulator.token_requests()
    warm = app.acquire_token_silent(["User.Read"], account)  # instance discovery, once
    if not warm or warm.get("token_source") != "cache":
        raise SystemExit("the warm-up call was no cache hit")

    def call():
        result = app.acquire_token_silent(["User.Read"], account)
        assert result["access_token"] == warm["access_token"]

    samples = timed_runs(call, args.runs, args.max_seconds)
    params = {"accounts": args.accounts, "token_requests": emulator.token_requests() - before}
    if len(samples) < args.runs:
        params["capped_at_seconds"] = args.max_seconds
    print(measurement("silent_cache_hit", params, samples), flush=True)


def silent_refresh(args, msal, emulator, session):
    app = msal.PublicClientApplication(
        SAMPLE_CLIENT, authority=f"https://{HOST}/{CONTOSO}", http_client=session)
    signed_in = sign_in(app, session)
    account = app.get_accounts(username="alice@contoso.onmicrosoft.com")[0]

    def refresh():
        result = app.acquire_token_silent(["User.Read"], account, force_refresh=True)
        assert result and result["token_source"] == "identity_provider"

    # The floor of this side: the same refresh-token grant through the bare session.
    token_url = f"https://{HOST}/{CONTOSO}/oauth2/v2.0/token"
    body = {
        "client_id": SAMPLE_CLIENT, "grant_type": "refresh_token",
        "refresh_token": signed_in["refresh_token"],
        "scope": "User.Read openid profile offline_access", "client_info": "1",
    }

    def bare():
        response = session.post(token_url, data=body, headers={"Accept": "application/json"}, timeout=30)
        assert response.status_code == 200

    for _ in range(20):  # warm up both
        refresh()
        bare()
    before = emulator.token_requests("refresh_token")
    msal_samples, floor_samples = [], []
    deadline = time.monotonic() + args.max_seconds
    while len(msal_samples) < args.runs and (len(msal_samples) < 10 or time.monotonic() < deadline):
        count = min(10, args.runs - len(msal_samples))  # interleaved in blocks of 10, as msal-bench
        msal_samples += timed_runs(refresh, count, float("inf"), 0)
        floor_samples += timed_runs(bare, count, float("inf"), 0)
    # Token requests the emulator saw: the calls of both clients, so twice the runs.
    both = emulator.token_requests("refresh_token") - before
    print(measurement("silent_refresh", {"token_requests_both_clients": both}, msal_samples), flush=True)
    print(measurement("silent_refresh", {"client": "requests_floor"}, floor_samples), flush=True)


def silent_concurrent(args, msal, emulator, session):
    app = msal.PublicClientApplication(
        SAMPLE_CLIENT, authority=f"https://{HOST}/{CONTOSO}", http_client=session)
    # As msal-bench: the sign-in's access token lives 301 s, inside the 300 s expiry buffer
    # 2 s later; the refresh gets a normal one.
    emulator.set_access_token_lifetime(301)
    try:
        sign_in(app, session)
    finally:
        emulator.set_access_token_lifetime(3599)
    account = app.get_accounts(username="alice@contoso.onmicrosoft.com")[0]
    time.sleep(2)
    before = emulator.token_requests("refresh_token")
    seen_before = len(session.token_requests)
    results = [None] * args.callers
    start = threading.Barrier(args.callers + 1)

    def call(index):
        start.wait()
        results[index] = app.acquire_token_silent(["User.Read"], account)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(args.callers)]
    for thread in threads:
        thread.start()
    began = time.perf_counter_ns()
    start.wait()  # every thread is waiting: release them all at once
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter_ns() - began
    failures = sum(1 for r in results if not (r and r.get("access_token")))
    params = {
        "callers": args.callers,
        "token_requests": emulator.token_requests("refresh_token") - before,
        "token_requests_seen_by_session": len(session.token_requests) - seen_before,
        "failures": failures,
    }
    print(measurement("silent_concurrent", params, [elapsed]), flush=True)


def cache_load(args, msal):
    file_bytes = os.path.getsize(args.file)
    count = 0

    def load():
        nonlocal count
        cache = msal.SerializableTokenCache()
        with open(args.file, encoding="utf-8") as cache_file:
            cache.deserialize(cache_file.read())
        count = len(cache._cache.get("AccessToken", {}))  # pylint: disable=protected-access
        return cache

    load()  # warm the page cache
    cpu = []

    def timed_load():
        cpu_start = time.thread_time_ns()
        cache = load()
        cpu.append(time.thread_time_ns() - cpu_start)
        return cache

    samples = timed_runs(timed_load, args.runs, args.max_seconds)
    assert count == args.accounts, f"loaded {count} access tokens of {args.accounts}"
    params = {"accounts": args.accounts, "file_bytes": file_bytes, "cpu_median_ns": int(statistics.median(cpu))}
    print(measurement("cache_load", params, samples), flush=True)


def cache_save(args, msal):
    cache = msal.SerializableTokenCache()
    with open(args.file, encoding="utf-8") as cache_file:
        cache.deserialize(cache_file.read())
    with tempfile.TemporaryDirectory(prefix="msal-python-bench-") as folder:
        path = os.path.join(folder, "msal_cache.json")
        for durable in (False, True):
            cpu = []

            def save():
                # What an app (or msal-extensions) does with MSAL Python's cache: serialize the
                # whole cache, write a temporary file, rename it over the old one.
                cpu_start = time.thread_time_ns()
                text = cache.serialize()
                with open(path + ".tmp", "w", encoding="utf-8") as out:
                    out.write(text)
                    if durable:
                        out.flush()
                        os.fsync(out.fileno())
                os.replace(path + ".tmp", path)
                cpu.append(time.thread_time_ns() - cpu_start)

            def flush_to_disk():
                # As msal-bench does before each timed save: the previous save's file is on the
                # disk, so each save starts with no write-back pending.
                descriptor = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(descriptor)
                finally:
                    os.close(descriptor)

            save()
            cpu.clear()
            samples = timed_runs(save, args.runs, args.max_seconds, before=flush_to_disk)
            params = {
                "accounts": args.accounts, "fsync": durable, "file_bytes": os.path.getsize(path),
                "cpu_median_ns": int(statistics.median(cpu)),
            }
            print(measurement("cache_save", params, samples), flush=True)


def cache_load_once(args, msal):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    cache = msal.SerializableTokenCache()
    with open(args.file, encoding="utf-8") as cache_file:
        cache.deserialize(cache_file.read())
    count = len(cache._cache.get("AccessToken", {}))  # pylint: disable=protected-access
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"accounts": count, "peak_rss_mib": peak / 1024, "rss_before_load_mib": before / 1024}),
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", required=True, choices=[
        "silent_cache_hit", "silent_refresh", "silent_concurrent", "cache_load", "cache_save", "cache_load_once"])
    parser.add_argument("--control-url", help="the emulator's control_url (msal-bench --scenario emulator)")
    parser.add_argument("--ca-file", help="the emulator's ca_file")
    parser.add_argument("--file", help="a cache file of msal-bench --scenario cache_fixture")
    parser.add_argument("--accounts", type=int, default=10_000, help="the accounts in --file")
    parser.add_argument("--runs", type=int, default=200, help="timed calls (at most)")
    parser.add_argument("--max-seconds", type=float, default=10.0,
                        help="stop timing after this long (after at least 5 calls)")
    parser.add_argument("--callers", type=int, default=1_000, help="threads of silent_concurrent")
    args = parser.parse_args()

    if args.ca_file:
        # MSAL Python's requests honour REQUESTS_CA_BUNDLE over any verify= setting: trust the
        # emulator's CA and nothing else.
        os.environ["REQUESTS_CA_BUNDLE"] = args.ca_file
        os.environ.pop("CURL_CA_BUNDLE", None)
    logging.getLogger("urllib3").setLevel(logging.ERROR)  # "connection pool is full" with 1,000 threads
    # msal-bench's sign-in uses response_mode=query too (a loopback redirect URI).
    warnings.filterwarnings("ignore", message="response_mode='form_post' is recommended")
    import msal  # after REQUESTS_CA_BUNDLE is set

    if args.scenario in ("cache_load", "cache_save", "cache_load_once"):
        {"cache_load": cache_load, "cache_save": cache_save, "cache_load_once": cache_load_once}[args.scenario](
            args, msal)
        return
    if not (args.control_url and args.ca_file):
        parser.error(f"{args.scenario} needs --control-url and --ca-file")
    if args.scenario == "silent_cache_hit" and not args.file:
        parser.error("silent_cache_hit needs --file")
    emulator = Emulator(args.control_url, args.ca_file)
    session = connect_to_session(emulator.connect_to, args.ca_file)
    scenario = {
        "silent_cache_hit": silent_cache_hit, "silent_refresh": silent_refresh,
        "silent_concurrent": silent_concurrent,
    }[args.scenario]
    scenario(args, msal, emulator, session)


if __name__ == "__main__":
    sys.exit(main())
