#!/usr/bin/env bash
# Installs the Debian or Ubuntu packages swift-msal needs, and nothing that is already there.
#
#   scripts/install-deps.sh           everything the tests need: the build packages, the keyring
#                                     libraries (libkeyutils, libsecret), the Secret Service the keyring tests run (dbus, gnome-keyring,
#                                     secret-tool), the openssl and curl tools, CA roots, and
#                                     Chromium (the real browser of the system-browser tests)
#   scripts/install-deps.sh --build   only what building the package needs: the libcurl and
#                                     OpenSSL headers and pkg-config (what `swift run msal demo` needs)
#
# Runs apt-get as root, or through sudo. Other distributions: install the same libraries by hand
# (libcurl built against OpenSSL, OpenSSL 3, pkg-config); the script says so and stops.
set -euo pipefail

build_packages=(libcurl4-openssl-dev libssl-dev pkgconf)
# The keyring products' libraries (opened at run time; building needs no header of theirs).
# dbus, gnome-keyring and libsecret-tools: a private session bus with a keyring daemon for the
# MSALSecretService tests (which fail, not skip, under scripts/test.sh without them); redis-server
# for the MSALRedisCache tests (likewise).
# python3-gi, gir1.2-secret-1 and python3-venv: msal-extensions' LibsecretPersistence (PyGObject, for
# Debian's /usr/bin/python3 only) in the keyring interop tests (scripts/interop.sh).
test_packages=(libkeyutils1 libsecret-1-0 redis-server dbus gnome-keyring libsecret-tools openssl
    ca-certificates curl python3-gi gir1.2-secret-1 python3-venv)
case "${1:-}" in
    --build) packages=("${build_packages[@]}") ;;
    "") packages=("${build_packages[@]}" "${test_packages[@]}") ;;
    *) echo "usage: scripts/install-deps.sh [--build]" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps.sh: this is not a Debian or Ubuntu system (no apt-get). Install libcurl (built" >&2
    echo "against OpenSSL) with its headers, OpenSSL 3 with its headers, and pkg-config, then build." >&2
    exit 1
fi

# Ubuntu's chromium package is a transitional one that installs a snap, and snaps do not run in
# containers or chroots: the browser tests need a real binary there.
os_id=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")
want_chromium=false
if [ "${1:-}" != "--build" ]; then
    if [ "$os_id" = "ubuntu" ]; then
        if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
            cat >&2 <<'MSG'
install-deps.sh: on Ubuntu, the "chromium" package installs a snap, which does not run in
containers. The browser tests need Chromium as a plain binary named `chromium` or
`chromium-browser` on PATH (from a PPA, or Debian's package). Continuing without it: the browser
tests fail under scripts/test.sh; set MSAL_REQUIRE_BROWSER=0 to let them skip instead.
MSG
        fi
    else
        want_chromium=true
    fi
fi
$want_chromium && packages+=(chromium)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps.sh: run as root, or install sudo" >&2; exit 1; }
    sudo="sudo"
fi
echo "Installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
