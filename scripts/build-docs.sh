#!/usr/bin/env bash
# Builds the documentation site: the API reference of the MSAL and MSALTestSupport modules and of
# the optional products MSALRedisCache, MSALSecretService, MSALKernelKeyring and MSALBroker, and the guides of
# Docs/, as one DocC archive, with docc alone (no swift-docc-plugin package):
#
#  1. the compiler emits the modules' symbol graphs while it builds MSALTestSupport and each
#     product's target (and MSAL with them), one `swift build --target` each;
#  2. a catalog per module is staged in .build-docs/catalogs: MSAL's is Sources/MSAL/MSAL.docc plus
#     every Docs/*.md turned into a DocC article by scripts/docc-guide.pl (links between guides
#     become <doc:> links; Docs/ stays the guides' only source), each other module's is
#     Sources/<Module>/<Module>.docc;
#  3. `docc convert` builds MSAL.doccarchive, then each other module's archive with MSAL's as a
#     dependency (so its pages link to MSAL's symbols and guides);
#  4. `docc merge` combines them into one site.
#
# Fails when docc reports any warning (an unresolved symbol or guide link, an undocumented
# parameter, ...) and when a guide links to a guide or heading that does not exist.
#
#   scripts/build-docs.sh [output folder]      default: .build-docs/swift-msal.doccarchive
#
# Builds in its own scratch folder (.build-docs) so it never waits on, or invalidates, other builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs="$scratch/symbol-graphs"        # written by the compiler (the native targets' too, never staged)
catalogs="$scratch/catalogs"           # staged catalogs and each module's graphs, for docc
archives="$scratch/archives"           # one archive per module, before the merge
output="${1:-$scratch/swift-msal.doccarchive}"
log="$scratch/docc.log"
# A module after the ones it depends on; every module but MSAL is converted with MSAL's archive
# as its only dependency.
modules=(MSAL MSALTestSupport MSALRedisCache MSALSecretService MSALKernelKeyring MSALBroker)
# The targets built: building them compiles every module of the site (MSAL with any of them).
targets=(MSALTestSupport MSALRedisCache MSALSecretService MSALKernelKeyring MSALBroker)
docc="$(command -v docc || true)"
if [ -z "$docc" ]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$docc" ] || { echo "docc not found next to swift; install a Swift toolchain that ships it" >&2; exit 1; }

start=$(date +%s)

# The sources whose declarations end up in a module's graph.
sources_of() {
    case "$1" in
        MSAL) echo Sources/MSAL Sources/MSALNative ;;
        # A product's public declarations are all in its own folder (its *Native target's API is
        # `package`, absent from the graph).
        *) echo "Sources/$1" ;;
    esac
}

# The compiler writes a module's graphs only when it compiles the module. Drop a module's old
# graphs when one of its sources is newer (that build re-emits them), so none of a removed
# declaration survives.
for module in "${modules[@]}"; do
    # shellcheck disable=SC2046  # the folders are words
    if [ -f "$graphs/$module.symbols.json" ] \
        && [ -n "$(find $(sources_of "$module") -name '*.swift' -newer "$graphs/$module.symbols.json" -print -quit)" ]; then
        rm -f "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json
    fi
done
mkdir -p "$graphs"

echo "== symbol graphs (swift build --target ${targets[*]}, scratch path $scratch)"
build() {
    # The same flags for every target, so that no build invalidates another's modules.
    for target in "${targets[@]}"; do
        swift build --target "$target" --scratch-path "$scratch" \
            -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
            -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
    done
}
graphs_missing() {
    for module in "${modules[@]}"; do
        [ -f "$graphs/$module.symbols.json" ] || return 0
    done
    return 1
}
build
if graphs_missing; then
    # Up to date but some graphs were deleted: build again from scratch (the compiler writes
    # graphs only when it compiles).
    rm -rf "$scratch"
    mkdir -p "$graphs"
    build
fi
if graphs_missing; then
    echo "the compiler wrote no symbol graph for one of: ${modules[*]}" >&2
    exit 1
fi

compiled=$(date +%s)

echo "== catalogs (Docs/*.md as DocC articles of MSAL)"
rm -rf "$catalogs"
for module in "${modules[@]}"; do
    mkdir -p "$catalogs/$module-graphs"
    cp "$graphs/$module.symbols.json" "$catalogs/$module-graphs"/
    for extension in "$graphs/$module"@*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$catalogs/$module-graphs"/
    done
    cp -R "Sources/$module/$module.docc" "$catalogs/$module.docc"
done
mkdir -p "$catalogs/MSAL.docc/Guides"
# The top-level symbols the landing page curates (`- ``Name```): in a guide, `Name` links to its page.
sed -n 's/^- ``\([A-Za-z_][A-Za-z0-9_]*\)``$/\1/p' Sources/MSAL/MSAL.docc/MSAL.md >"$catalogs/MSAL-symbols.txt"
for guide in Docs/*.md; do
    perl scripts/docc-guide.pl --symbols "$catalogs/MSAL-symbols.txt" "$guide" \
        >"$catalogs/MSAL.docc/Guides/$(basename "$guide")"
done

: >"$log"
convert() {
    local module="$1"
    shift
    echo "== docc convert $module"
    set +e
    "$docc" convert "$catalogs/$module.docc" \
        --additional-symbol-graph-dir "$catalogs/$module-graphs" \
        --output-path "$archives/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.swift-msal.$module" \
        --fallback-default-module-kind "Swift package" \
        --enable-experimental-external-link-support \
        --transform-for-static-hosting \
        --diagnostic-level warning \
        --warnings-as-errors \
        "$@" >"$scratch/docc-$module.log" 2>&1
    local status=$?
    set -e
    tee -a "$log" <"$scratch/docc-$module.log"
    if [ $status -ne 0 ]; then
        echo "docc convert $module failed (exit $status)" >&2
        [ "$module" = MSAL ] && echo "(a Guides/X.md above is Docs/X.md, same line numbers)" >&2
        exit 1
    fi
}
rm -rf "$archives"
mkdir -p "$archives"
convert MSAL
for module in "${modules[@]:1}"; do
    convert "$module" --dependency "$archives/MSAL.doccarchive"
done

echo "== docc merge"
module_archives=()
for module in "${modules[@]}"; do
    module_archives+=("$archives/$module.doccarchive")
done
rm -rf "$output"
set +e
"$docc" merge "${module_archives[@]}" \
    --output-path "$output" \
    --synthesized-landing-page-name swift-msal \
    --synthesized-landing-page-kind Package >"$scratch/docc-merge.log" 2>&1
status=$?
set -e
tee -a "$log" <"$scratch/docc-merge.log"
if [ $status -ne 0 ]; then
    echo "docc merge failed (exit $status)" >&2
    exit 1
fi

if grep -qE '(^|[^a-z])(warning|error):' "$log"; then
    echo "docc reported $(grep -cE '(^|[^a-z])(warning|error):' "$log") warning(s); fix the doc comments, the catalogs or Docs/" >&2
    exit 1
fi

echo "Documentation site (${modules[*]}, the guides of Docs/): $output"
echo "  serve it with: python3 -m http.server -b 127.0.0.1 -d $output 8000"
echo "  then open http://127.0.0.1:8000/documentation; a module's reference is /documentation/<module in lower case>"
echo "  (MSAL: /documentation/msal, its guides: /documentation/msal/<guide>, e.g. /documentation/msal/tokencache)"
echo "docs built in $(($(date +%s) - start)) s (symbol graphs $((compiled - start)) s, docc $(($(date +%s) - compiled)) s)"
