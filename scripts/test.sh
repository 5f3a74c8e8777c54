#!/usr/bin/env bash
# The test command: installs what the tests need, builds everything with warnings as errors,
# and runs the whole XCTest suite. Tests that need a real browser fail (instead of skipping)
# once the installation succeeded, unless MSAL_REQUIRE_BROWSER=0 is set (Ubuntu without a
# Chromium binary, see install-deps.sh); so do the Secret Service tests without dbus-daemon or
# gnome-keyring-daemon, unless MSAL_REQUIRE_SECRET_SERVICE=0.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
export MSAL_REQUIRE_BROWSER="${MSAL_REQUIRE_BROWSER:-1}"
# The Secret Service tests start dbus-daemon and gnome-keyring-daemon: installed above, so missing
# ones are a failure here.
export MSAL_REQUIRE_SECRET_SERVICE="${MSAL_REQUIRE_SECRET_SERVICE:-1}"
# The MSALRedisCache tests start their own redis-server (installed above): a missing one fails them.
export MSAL_REQUIRE_REDIS="${MSAL_REQUIRE_REDIS:-1}"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
