#!/usr/bin/env bash
# The first command of the README: installs the libcurl and OpenSSL headers the build needs (if
# they are missing; nothing heavier), then runs every flow offline against the embedded Entra
# emulator with `swift run msal demo`. Arguments are passed to `msal demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! pkg-config --exists libcurl openssl 2>/dev/null; then
    scripts/install-deps.sh --build
    # A build tried before the headers were there failed half-way, and SwiftPM keeps such a build
    # in a state it does not recover from ("error opening input file ... .swift.o"): start over.
    if [ -d .build ]; then
        echo "demo.sh: removing .build, which was made without the libcurl and OpenSSL headers" >&2
        rm -rf .build
    fi
fi
exec swift run msal demo "$@"
