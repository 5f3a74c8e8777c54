#!/usr/bin/env bash
# The first command of the README: installs the libcurl and OpenSSL headers the build needs (if
# they are missing; nothing heavier), then runs every flow offline against the embedded Entra
# emulator with `swift run msal demo`. Arguments are passed to `msal demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build
exec swift run msal demo "$@"
