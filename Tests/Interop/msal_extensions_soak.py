"""The Python side of the shared-file soak (AdversarialCacheMSALExtensionsSoakTests) and of the
cache-file checks of the adversarial cache tests, with the real msal-extensions and MSAL for Python.

    msal_extensions_soak.py write --cache FILE --writer NAME [--accounts N]
        Writes tokens into FILE through msal-extensions' PersistedTokenCache + FilePersistence
        (its `<FILE>.lockfile` lock, its in-place rewrite) until killed. After each write returns it
        prints one line:
            ack ACCOUNT SECRET FALLBACK PROTECTED ENTER EXIT
        FALLBACK is 1 when msal-extensions gave up creating its lock file (a stale one was left by
        a killed writer) and locked the existing file instead; PROTECTED is 0 when the lock file it
        held was not (or no longer) the file at the lock path while it held it, which is
        msal-extensions' own race (see the soak test); ENTER and EXIT are the wall-clock times the
        lock was taken and about to be released. A line "park" on standard input makes it stop
        between two writes (outside any lock), print "parked" and wait to be killed. --pause-ms M
        makes it pause a random 0 to 2M ms between writes (more after a slow write).

    msal_extensions_soak.py stale-lock-race --cache FILE [--writers N]
        msal-extensions alone, no code of ours: leaves a stale FILE.lockfile (as a writer killed
        inside the lock does), starts N (6) Python writers at once, each adding 20 tokens, and
        prints a JSON object with how many acknowledged tokens are missing from the file. Shows
        msal-extensions' own race (see the soak test); not run by the tests.

    msal_extensions_soak.py inspect --cache FILE
        Prints a JSON object: "duplicates" (member names that occur twice in one JSON object of
        the file, found with a duplicate-detecting parser), "error" (why the file is not JSON),
        "msal_error" (why MSAL for Python cannot read it), and what MSAL for Python reads from it: "access_tokens" (home_account_id -> secrets),
        "accounts" (home_account_id list) and "sections" (section -> keys).
"""

import argparse
import base64
import json
import logging
import os
import random
import select
import signal
import sys
import time

import msal

CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
TENANT = "5c1b3e8a-0000-4000-8000-000000000001"
TOKEN_ENDPOINT = "https://login.microsoftonline.com/%s/oauth2/v2.0/token" % TENANT


class _Probe(object):
    """What happened to msal-extensions' lock during the current write (observed, not changed)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.fallback = False
        self.protected = True
        self.enter = None
        self.exit = None


PROBE = _Probe()


class _FallbackLog(logging.Handler):
    def emit(self, record):
        if "failed to create lock file" in record.getMessage():
            PROBE.fallback = True


def _same_file(handle, path):
    try:
        held = os.fstat(handle.fileno())
        current = os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)


def _observed_lock(real_lock):
    """msal-extensions' CrossPlatLock unchanged, plus a look at which file it locked: after it is
    taken and before it is released, whether the locked file is the one at the lock path."""

    class _ObservedLock(real_lock):
        def __enter__(self):
            handle = super(_ObservedLock, self).__enter__()
            self._observed = handle
            if PROBE.enter is None:
                PROBE.enter = time.time()
            if not _same_file(handle, self._lockpath):
                PROBE.protected = False
            return handle

        def __exit__(self, *args):
            if not _same_file(self._observed, self._lockpath):
                PROBE.protected = False
            PROBE.exit = time.time()
            return super(_ObservedLock, self).__exit__(*args)

    return _ObservedLock


def _b64(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def write(arguments):
    # msal-extensions only here: `inspect` needs MSAL for Python alone.
    import msal_extensions  # pylint: disable=import-outside-toplevel
    import msal_extensions.token_cache  # pylint: disable=import-outside-toplevel

    token_cache = msal_extensions.token_cache
    token_cache.CrossPlatLock = _observed_lock(token_cache.CrossPlatLock)
    logging.getLogger("msal_extensions").addHandler(_FallbackLog())
    logging.getLogger("msal_extensions").setLevel(logging.WARNING)
    persistence = msal_extensions.FilePersistence(arguments.cache)
    index = 0
    while True:
        account = index % arguments.accounts
        secret = "at-%s-%09d" % (arguments.writer, index)
        uid = "00000000-0000-4000-9000-%s%06d" % (arguments.slot_digits, account)
        # A new PersistedTokenCache for every write: one kept across writes decides whether to
        # re-read the file by comparing its mtime with time.time() of its last save, and the
        # kernel's coarse file clock can put a later write by another process before that, so a
        # long-lived instance can overwrite that write with stale contents (msal-extensions'
        # own limitation, not what this soak is about).
        cache = msal_extensions.PersistedTokenCache(persistence)
        PROBE.reset()
        cache.add({
            "client_id": CLIENT_ID,
            "scope": ["User.Read"],
            "token_endpoint": TOKEN_ENDPOINT,
            "response": {
                "access_token": secret,
                "token_type": "Bearer",
                "expires_in": 3600,
                "refresh_token": "rt-" + secret,
                "client_info": _b64({"uid": uid, "utid": TENANT}),
            },
        })
        sys.stdout.write("ack %d %s %d %d %.6f %.6f\n" % (
            account, secret, int(PROBE.fallback), int(PROBE.protected), PROBE.enter or 0, PROBE.exit or 0))
        sys.stdout.flush()
        index += 1
        if arguments.stop_after and index >= arguments.stop_after:
            return
        # Paced (see the soak test): park requests are answered during the pause too.
        # Slower writes pause longer, so the lock stays mostly free.
        pause = max(arguments.pause_ms / 1000.0, 3 * ((PROBE.exit or 0) - (PROBE.enter or 0)))
        readable, _, _ = select.select([sys.stdin], [], [], random.uniform(0, 2 * pause))
        if readable and sys.stdin.readline().strip() == "park":
            sys.stdout.write("parked\n")
            sys.stdout.flush()
            while True:
                signal.pause()


def stale_lock_race(arguments):
    import subprocess  # pylint: disable=import-outside-toplevel

    for path in (arguments.cache, arguments.cache + ".lockfile"):
        if os.path.exists(path):
            os.remove(path)
    with open(arguments.cache + ".lockfile", "w"):  # pylint: disable=unspecified-encoding
        pass
    writers = [
        subprocess.Popen(  # pylint: disable=consider-using-with
            [sys.executable, os.path.abspath(__file__), "write", "--cache", arguments.cache,
             "--writer", "p%d-00000" % slot, "--slot", str(slot), "--accounts", "20", "--stop-after", "20"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for slot in range(arguments.writers)]
    acknowledged, fallbacks, crashed = [], 0, 0
    for writer in writers:
        output, _ = writer.communicate()
        crashed += int(writer.returncode != 0)
        for line in output.splitlines():
            fields = line.split()
            if fields and fields[0] == "ack":
                acknowledged.append(fields[2])
                fallbacks += int(fields[3])
    with open(arguments.cache, "rb") as handle:
        try:
            stored = {entry.get("secret") for entry in json.loads(handle.read()).get("AccessToken", {}).values()}
        except ValueError:
            stored = set()
    missing = sorted(secret for secret in acknowledged if secret not in stored)
    print(json.dumps({
        "acknowledged": len(acknowledged), "fallback_writes": fallbacks, "writers_crashed": crashed,
        "missing": len(missing), "first_missing": missing[:10]}))


def _reject_duplicates(found):
    def hook(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                found.append(key)
            seen.add(key)
        return dict(pairs)
    return hook


def inspect(arguments):
    result = {
        "duplicates": [], "error": None, "msal_error": None, "access_tokens": {}, "accounts": [], "sections": {}}
    with open(arguments.cache, "rb") as handle:
        text = handle.read().decode("utf-8-sig")
    try:
        document = json.loads(text, object_pairs_hook=_reject_duplicates(result["duplicates"]))
    except ValueError as error:
        result["error"] = str(error)
        print(json.dumps(result))
        return
    result["sections"] = {
        name: sorted(value.keys()) if isinstance(value, dict) else type(value).__name__
        for name, value in document.items()}
    try:
        cache = msal.SerializableTokenCache()
        cache.deserialize(text)
        for token in cache.search(msal.TokenCache.CredentialType.ACCESS_TOKEN):
            result["access_tokens"].setdefault(str(token.get("home_account_id")), []).append(token.get("secret"))
        result["accounts"] = sorted(
            str(account.get("home_account_id"))
            for account in cache.search(msal.TokenCache.CredentialType.ACCOUNT))
    except Exception as error:  # pylint: disable=broad-except
        result["msal_error"] = "%s: %s" % (type(error).__name__, error)
    print(json.dumps(result))


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    writer = commands.add_parser("write")
    writer.add_argument("--cache", required=True)
    writer.add_argument("--writer", required=True, help="p<slot>-<generation>")
    writer.add_argument("--slot", type=int, required=True)
    writer.add_argument("--accounts", type=int, default=10)
    writer.add_argument("--pause-ms", type=float, default=0, help="mean pause between writes")
    writer.add_argument("--stop-after", type=int, default=0, help="stop after this many writes (0: never)")
    race = commands.add_parser("stale-lock-race")
    race.add_argument("--cache", required=True)
    race.add_argument("--writers", type=int, default=6)
    inspector = commands.add_parser("inspect")
    inspector.add_argument("--cache", required=True)
    arguments = parser.parse_args()
    if arguments.command == "write":
        arguments.slot_digits = "%06d" % arguments.slot
        write(arguments)
    elif arguments.command == "stale-lock-race":
        stale_lock_race(arguments)
    else:
        inspect(arguments)


if __name__ == "__main__":
    main()
