#!/usr/bin/env bash
# Installs the Debian packages swift-msal needs to build and test: libcurl and OpenSSL headers,
# pkg-config, the openssl tool, and Chromium (the real browser of the system-browser tests).
# Skips apt when everything is already present.
set -euo pipefail

packages=(libcurl4-openssl-dev libssl-dev pkgconf openssl ca-certificates curl chromium)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "Installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
