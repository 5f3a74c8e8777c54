#!/usr/bin/env bash
# Checks that the portable `msal` (scripts/install-cli.sh) starts where Swift is not installed:
# it links no Swift library (ldd shows no libswift*, libFoundation*, libdispatch, libBlocksRuntime),
# has no RUNPATH but $ORIGIN, links only the C libraries and OpenSSL (libcurl is opened by the
# first request, libsecret with GLib and libkeyutils by the keyring probes), and runs from
# another folder with LD_LIBRARY_PATH empty and a PATH without the toolchain: `msal --version`, and
# `msal demo`, which walks every flow against its in-process emulator over loopback HTTPS.
#
#   scripts/check-portable-cli.sh            # builds it first (install-cli.sh into a temporary prefix)
#   scripts/check-portable-cli.sh PATH       # checks an msal binary built already
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
    cp "$1" "$work/msal"
else
    scripts/install-cli.sh --prefix "$work/prefix"
    cp "$work/prefix/bin/msal" "$work/msal"
fi
binary="$work/msal"
fail() { echo "check-portable-cli: $*" >&2; exit 1; }

libraries="$(env -u LD_LIBRARY_PATH ldd "$binary")"
echo "$libraries"
if grep -Eiq 'libswift|libFoundation|libdispatch|libBlocksRuntime|_FoundationICU|/opt/swift|not found' <<<"$libraries"; then
    fail "msal needs Swift's libraries or a library that is missing (see ldd above)"
fi
# Only the C runtime and OpenSSL (and what the C++ runtime of the Swift runtime needs); libcurl is
# not linked but opened by the first request, which `msal demo` below sends.
allowed='^(linux-vdso|ld-linux(-[a-z0-9_-]+)?|libc|libm|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s|libssl|libcrypto)\.so'
unexpected="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev "$allowed" || true)"
[ -z "$unexpected" ] || fail "msal links libraries besides the C runtime and OpenSSL: $unexpected"
# A RUNPATH of $ORIGIN (next to the binary) is harmless; one into the toolchain is not.
runpath="$(readelf -d "$binary" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')"
if [ -n "$runpath" ] && [ "$runpath" != '$ORIGIN' ]; then
    fail "msal has the RUNPATH '$runpath'"
fi

# Run it from another folder, with nothing of the toolchain reachable through the environment.
mkdir -p "$work/elsewhere" "$work/home" "$work/tmp"
cd "$work/elsewhere"
run() { env -i HOME="$work/home" TMPDIR="$work/tmp" PATH=/usr/bin:/bin LD_LIBRARY_PATH= "$@"; }
version="$(run ../msal --version)" || fail "msal --version did not run"
[[ "$version" == msal\ * ]] || fail "msal --version printed '$version'"
run ../msal demo >"$work/demo.txt" 2>&1 || { cat "$work/demo.txt" >&2; fail "msal demo failed"; }
grep -q "All 10 steps behaved as expected" "$work/demo.txt" || fail "msal demo did not pass every step"
echo "check-portable-cli: $(du -h "$binary" | cut -f1) binary; ldd shows no Swift library; it runs from another folder with LD_LIBRARY_PATH empty ($version, msal demo passed)"
