#!/usr/bin/env bash
# Builds the API reference of the MSAL module with docc, without the swift-docc-plugin package:
# the compiler emits the module's symbol graph while building it, then `docc convert` combines it
# with the catalog Sources/MSAL/MSAL.docc. Fails when docc reports any warning (an unresolved
# symbol link, an undocumented parameter, ...).
#
#   scripts/build-docs.sh [output folder]      default: .build-docs/MSAL.doccarchive
#
# Builds in its own scratch folder (.build-docs) so it never waits on, or invalidates, other builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs="$scratch/symbol-graphs"        # written by the compiler
staged="$scratch/symbol-graphs-MSAL"   # only the MSAL module's graphs, for docc
output="${1:-$scratch/MSAL.doccarchive}"
log="$scratch/docc.log"
docc="$(command -v docc || true)"
if [ -z "$docc" ]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$docc" ] || { echo "docc not found next to swift; install a Swift toolchain that ships it" >&2; exit 1; }

start=$(date +%s)

# The compiler writes graphs only when it compiles the module. Drop old graphs when a source is
# newer (that build re-emits them all), so none of a removed declaration survives.
if [ -f "$graphs/MSAL.symbols.json" ] \
    && [ -n "$(find Sources/MSAL Sources/MSALNative -name '*.swift' -newer "$graphs/MSAL.symbols.json" -print -quit)" ]; then
    rm -rf "$graphs"
fi
mkdir -p "$graphs"

echo "== symbol graph (swift build --target MSAL, scratch path $scratch)"
build() {
    swift build --target MSAL --scratch-path "$scratch" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
        -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
}
build
if [ ! -f "$graphs/MSAL.symbols.json" ]; then
    # Up to date but the graphs were deleted: build again from scratch (the compiler writes
    # graphs only when it compiles).
    rm -rf "$scratch"
    mkdir -p "$graphs"
    build
fi
[ -f "$graphs/MSAL.symbols.json" ] || { echo "the compiler wrote no MSAL symbol graph" >&2; exit 1; }

rm -rf "$staged"
mkdir -p "$staged"
cp "$graphs"/MSAL.symbols.json "$staged"/
for extension in "$graphs"/MSAL@*.symbols.json; do
    [ -e "$extension" ] && cp "$extension" "$staged"/
done

echo "== docc convert"
rm -rf "$output"
set +e
"$docc" convert Sources/MSAL/MSAL.docc \
    --additional-symbol-graph-dir "$staged" \
    --output-path "$output" \
    --fallback-display-name MSAL \
    --fallback-bundle-identifier org.swift-msal.MSAL \
    --fallback-default-module-kind "Swift package" \
    --transform-for-static-hosting \
    --diagnostic-level warning >"$log" 2>&1
status=$?
set -e
cat "$log"
if [ $status -ne 0 ]; then
    echo "docc convert failed (exit $status)" >&2
    exit 1
fi
if grep -qE '(^|[^a-z])(warning|error):' "$log"; then
    echo "docc reported $(grep -cE '(^|[^a-z])(warning|error):' "$log") warning(s); fix the doc comments or the catalog" >&2
    exit 1
fi

echo "API reference: $output (open $output/index.html through a web server, or serve with: python3 -m http.server -d $output)"
echo "docs built in $(($(date +%s) - start)) s"
