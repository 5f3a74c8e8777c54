#!/usr/bin/env bash
# Builds the portable `msal` (the Swift runtime and Foundation linked statically: it needs only the
# system's libcurl and OpenSSL) and installs it as PREFIX/bin/msal.
#
#   scripts/install-cli.sh                       # into ~/.local/bin
#   scripts/install-cli.sh --prefix /usr/local   # or PREFIX=/usr/local scripts/install-cli.sh
#   DESTDIR=/tmp/pkg scripts/install-cli.sh --prefix /usr   # staged, for packaging
#
# The binary runs on machines without Swift that have libcurl 4 and OpenSSL 3 (Debian 12:
# libcurl4 and libssl3). scripts/check-portable-cli.sh checks that it does.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${PREFIX:-$HOME/.local}"
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install-cli.sh: --prefix needs a folder" >&2; exit 2; }
                  prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-cli.sh: unknown argument '$1'; see scripts/install-cli.sh --help" >&2; exit 2 ;;
    esac
done

build=(swift build -c release --static-swift-stdlib --product msal)
"${build[@]}" >&2
binary="$("${build[@]}" --show-bin-path)/msal"
target="${DESTDIR:-}$prefix/bin"
install -d "$target"
install -m 0755 -s "$binary" "$target/msal"   # stripped: 59 MB instead of 78
echo "installed $target/msal" >&2
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on PATH" >&2 ;;
esac
