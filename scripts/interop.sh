#!/usr/bin/env bash
# Token cache interoperability with the real MSAL for Python and msal-extensions (Docs/TokenCache.md).
#
#   scripts/interop.sh               set up the virtualenv, then run the Swift interop tests (the
#                                    cache both ways, the tests that read our files with MSAL for
#                                    Python, and the shared-file soak with msal-extensions' writers)
#   scripts/interop.sh --setup-only  only set up the virtualenv (CI runs this before the tests)
#
# The virtualenv is ${MSAL_INTEROP_VENV:-.build-interop/venv}, made with ${MSAL_INTEROP_PYTHON:-python3}
# and filled from Tests/Interop/requirements.txt (pinned msal, msal-extensions, portalocker). It is
# re-used while the requirements are unchanged. The Swift tests find it at the same place.
# A second one, ${MSAL_INTEROP_SYSTEM_VENV:-.build-interop/venv-system}, with the same requirements,
# is made from Debian's /usr/bin/python3 with --system-site-packages: msal-extensions'
# LibsecretPersistence needs PyGObject, which only Debian's python3-gi provides, for that
# interpreter only (the keyring interop tests, SecretServiceExtensionsInteropTests).
set -euo pipefail
cd "$(dirname "$0")/.."

setup_only=0
case "${1:-}" in
    --setup-only) setup_only=1 ;;
    "") ;;
    *) echo "usage: scripts/interop.sh [--setup-only]" >&2; exit 2 ;;
esac

venv="${MSAL_INTEROP_VENV:-$PWD/.build-interop/venv}"
python="${MSAL_INTEROP_PYTHON:-python3}"
system_venv="${MSAL_INTEROP_SYSTEM_VENV:-$PWD/.build-interop/venv-system}"
requirements="Tests/Interop/requirements.txt"
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)

# make_venv VENV PYTHON CHECK [venv options]: (re)makes VENV unless it is up to date.
make_venv() {
    local venv=$1 python=$2 check=$3
    shift 3
    local stamp="$venv/.requirements.sha256"
    if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] \
        && "$venv/bin/python" -c "$check" 2>/dev/null; then
        echo "interop: virtualenv $venv is up to date"
        return
    fi
    start=$(date +%s%N)
    echo "interop: creating $venv with $("$python" --version 2>&1) $*"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$@" "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    echo "$wanted" >"$stamp"
    elapsed_ms=$((($(date +%s%N) - start) / 1000000))
    version=$("$venv/bin/python" -c 'import msal; print(msal.__version__)')
    extensions=$("$venv/bin/python" -c 'import msal_extensions; print(msal_extensions.__version__)')
    echo "interop: installed msal $version and msal-extensions $extensions in $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s"
}

make_venv "$venv" "$python" "import msal, msal_extensions, portalocker"
# Debian's python3-venv, python3-gi and gir1.2-secret-1 (CI runs this before scripts/test.sh,
# which installs them too; install-deps.sh installs only what is missing).
if ! /usr/bin/python3 -c "import venv, ensurepip, gi" 2>/dev/null; then
    scripts/install-deps.sh
fi
make_venv "$system_venv" /usr/bin/python3 "import msal, msal_extensions, portalocker, gi" --system-site-packages

if [ "$setup_only" -eq 1 ]; then
    exit 0
fi
export MSAL_INTEROP_VENV="$venv"
export MSAL_INTEROP_SYSTEM_VENV="$system_venv"
export MSAL_REQUIRE_INTEROP=1
swift test -Xswiftc -warnings-as-errors \
    --filter 'PythonCacheInteropTests|AdversarialCacheForeignEntryTests|AdversarialCacheMSALExtensionsSoakTests|SecretServiceExtensionsInteropTests'
