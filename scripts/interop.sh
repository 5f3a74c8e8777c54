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
requirements="Tests/Interop/requirements.txt"
stamp="$venv/.requirements.sha256"
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] \
    && "$venv/bin/python" -c "import msal, msal_extensions, portalocker" 2>/dev/null; then
    echo "interop: virtualenv $venv is up to date"
else
    start=$(date +%s%N)
    echo "interop: creating $venv with $("$python" --version 2>&1)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    echo "$wanted" >"$stamp"
    elapsed_ms=$((($(date +%s%N) - start) / 1000000))
    version=$("$venv/bin/python" -c 'import msal; print(msal.__version__)')
    extensions=$("$venv/bin/python" -c 'import msal_extensions; print(msal_extensions.__version__)')
    echo "interop: installed msal $version and msal-extensions $extensions in $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s"
fi

if [ "$setup_only" -eq 1 ]; then
    exit 0
fi
export MSAL_INTEROP_VENV="$venv"
export MSAL_REQUIRE_INTEROP=1
swift test -Xswiftc -warnings-as-errors \
    --filter 'PythonCacheInteropTests|AdversarialCacheForeignEntryTests|AdversarialCacheMSALExtensionsSoakTests'
