#!/usr/bin/env bash
# Builds and runs the Swift samples of Docs/GettingStarted.md and Docs/Testing.md as what they
# describe: a package of its own (MyTool, a command-line tool, and its tests), outside this
# repository, depending on this checkout by path. So the guides cannot drift from what compiles.
#
#   scripts/check-doc-samples.sh                     # everything in a temporary folder, removed after
#   scripts/check-doc-samples.sh --scratch-path DIR  # keep the sample's build there between runs
#   scripts/check-doc-samples.sh --keep              # leave the temporary folder (printed) to look at
#
# Stages: extract the package from the guides (below: the markers); lint it with this repository's
# swift-format configuration; build it and its tests, and the `msal` CLI of the checkout through
# it; run MyTool against `msal emulator` (device-code sign-in approved through the emulator's
# control endpoint, then a second run served from the file cache without a request); run its tests
# (`swift test --parallel`: device code, the file cache, an expired token refreshed, a revoked
# refresh token giving -50002, interactive sign-in, two emulators in parallel). Loopback only: no
# network, and nothing of the repository's .build is used.
#
# Markers, in the guides (an HTML comment, invisible when rendered):
#   <!-- sample: PATH -->                the next fenced block is appended to PATH
#   <!-- sample: PATH indent [N] -->     the same, indented by N (4) spaces (a fragment in a function)
#   <!-- sample: PATH before: TEXT -->   the next block goes before the first line of PATH that
#                                        starts with TEXT (after leading spaces)
#   <!-- sample: PATH contains -->       the next block must appear in PATH as it stands (same lines,
#                                        leading spaces aside): a fragment of a file shown whole
#   <!-- sample: skip REASON -->         the next block is not part of the package
#   <!-- sample: PATH                    (several lines) the lines up to --> are appended to PATH:
#   ...                                  code the reader need not see, such as the function
#   -->                                  a fragment is compiled in
# Every ```swift block of the two guides needs a marker. No hidden line may start with `@`: DocC
# (scripts/build-docs.sh) reads such a line as a directive even inside a comment. PATH is relative to the package; the
# package's folder sits next to a link named swift-msal to this checkout, so the guide's
# `.package(path: "../swift-msal")` is used as written.
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
guides=("$checkout/Docs/GettingStarted.md" "$checkout/Docs/Testing.md")

scratch=""
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --scratch-path) scratch="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "usage: $0 [--scratch-path DIR] [--keep]" >&2; exit 2 ;;
    esac
done

work="$(mktemp -d)"
emulator_pid=""
tool_pid=""
cleanup() {
    # Only the processes this script started, by their PID.
    if [ -n "$tool_pid" ]; then kill "$tool_pid" 2>/dev/null || true; wait "$tool_pid" 2>/dev/null || true; fi
    if [ -n "$emulator_pid" ]; then
        kill "$emulator_pid" 2>/dev/null || true
        wait "$emulator_pid" 2>/dev/null || true
    fi
    if [ -n "$keep" ]; then echo "check-doc-samples: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
package="$work/MyTool"
[ -n "$scratch" ] || scratch="$work/scratch"
mkdir -p "$scratch"
scratch="$(cd "$scratch" && pwd)"
started=$SECONDS
stage() { echo "== check-doc-samples [$((SECONDS - started))s]: $*"; }
fail() {
    echo "check-doc-samples: FAIL: $*" >&2
    exit 1
}

stage "extract the sample package from ${guides[*]##*/}"
ln -s "$checkout" "$work/swift-msal"
python3 - "$package" "${guides[@]}" <<'PY'
import os, re, sys

package, guides = sys.argv[1], sys.argv[2:]
files = {}  # path -> list of lines
single = re.compile(r"^<!-- sample: (.*?)\s*-->\s*$")
opening = re.compile(r"^<!-- sample: (\S+)\s*$")
fence = re.compile(r"^(\s*)(```+)\s*(\S*)\s*$")
problems = []


def location(guide, number):
    return f"{os.path.basename(guide)}:{number}"


def place(directive, block, where):
    if directive.startswith("skip"):
        return
    path, _, mode = directive.partition(" ")
    mode = mode.strip()
    lines = files.setdefault(path, [])
    if mode == "":
        if lines and lines[-1].strip():
            lines.append("")  # blocks of one file are apart, as in the guide
        lines.extend(block)
    elif mode == "indent" or re.fullmatch(r"indent \d+", mode):
        margin = " " * (int(mode.split()[1]) if " " in mode else 4)
        lines.extend((margin + line) if line.strip() else "" for line in block)
    elif mode.startswith("before:"):
        text = mode[len("before:"):].strip()
        for index, line in enumerate(lines):
            if line.lstrip().startswith(text):
                lines[index:index] = block + [""]
                return
        problems.append(f"{where}: no line starting with '{text}' in {path} (yet)")
    elif mode == "contains":
        wanted = [line.strip() for line in block]
        have = [line.strip() for line in lines]
        if not any(have[i:i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1)):
            problems.append(f"{where}: {path} does not contain this block as shown")
    else:
        problems.append(f"{where}: unknown marker mode '{mode}'")


for guide in guides:
    with open(guide, encoding="utf-8") as handle:
        text = handle.read().splitlines()
    pending = None  # (directive, line number) waiting for its block
    index = 0
    while index < len(text):
        line = text[index]
        number = index + 1
        match = single.match(line)
        if match:
            if pending:
                problems.append(f"{location(guide, pending[1])}: marker without a code block")
            pending = (match.group(1), number)
            index += 1
            continue
        match = opening.match(line)
        if match:  # hidden lines, appended as they are
            end = index + 1
            while end < len(text) and text[end].strip() != "-->":
                end += 1
            if end == len(text):
                problems.append(f"{location(guide, number)}: sample comment without -->")
                break
            files.setdefault(match.group(1), []).extend(text[index + 1:end])
            index = end + 1
            continue
        match = fence.match(line)
        if match:
            indent, ticks, language = match.groups()
            end = index + 1
            while end < len(text) and not (text[end].strip() == ticks and text[end].startswith(indent)):
                end += 1
            if end == len(text):
                problems.append(f"{location(guide, number)}: code block without its closing fence")
                break
            block = [body[len(indent):] if body.startswith(indent) else body.lstrip() for body in text[index + 1:end]]
            if pending:
                place(pending[0], block, location(guide, pending[1]))
                pending = None
            elif language == "swift":
                problems.append(f"{location(guide, number)}: swift block without a sample marker")
            index = end + 1
            continue
        if pending and line.strip():
            problems.append(f"{location(guide, pending[1])}: marker not followed by a code block")
            pending = None
        index += 1

if problems:
    for problem in problems:
        print(f"check-doc-samples: {problem}", file=sys.stderr)
    sys.exit(1)
for path, lines in sorted(files.items()):
    target = os.path.join(package, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines).rstrip("\n") + "\n")
    print(f"  {path}: {len(lines)} lines")
PY
[ -f "$package/Package.swift" ] || fail "the guides make no Package.swift"

stage "lint the sample (swift format lint --strict, this repository's configuration)"
(cd "$package" && swift format lint --strict --configuration "$checkout/.swift-format" -r Package.swift Sources Tests) \
    || fail "the samples are not formatted as the repository's Swift is"

stage "build MyTool and its tests, and msal (scratch path $scratch)"
build_started=$SECONDS
# The compiler's output goes to a log, shown when something fails.
build() {
    (cd "$package" && swift build --scratch-path "$scratch" "$@") >>"$work/build.log" 2>&1 \
        || { tail -n 200 "$work/build.log" >&2; fail "swift build $* failed in the sample package"; }
}
build --build-tests
# Its own warnings (the samples'; the library's are the repository's lint and build to catch).
if grep -F "$package/" "$work/build.log" | grep -F ": warning:"; then fail "the samples compile with warnings"; fi
# An app that depends on MSAL (and MSALTestSupport) uses no optional product: nothing about their C
# libraries (pkg-config hints, flags SwiftPM refuses) may reach its build, whichever -dev packages
# this machine has.
if grep -E "warning: (you may be able to install|prohibited flag)|pkg-config" "$work/build.log"; then
    fail "building an app that depends on MSAL alone printed warnings about C libraries it does not use"
fi
# The CLI of the same checkout, built as a product of the dependency: nothing of the repository's
# own .build is used.
build --product msal
bin="$(cd "$package" && swift build --scratch-path "$scratch" --show-bin-path)"
echo "  built in $((SECONDS - build_started))s"

stage "run MyTool against msal emulator"
"$bin/msal" emulator --env-file "$work/emulator.env" >"$work/emulator.log" 2>&1 &
emulator_pid=$!
for _ in $(seq 600); do # the file appears, whole, once the emulator listens
    [ -s "$work/emulator.env" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$work/emulator.log" >&2; fail "msal emulator exited"; }
    sleep 0.05
done
[ -s "$work/emulator.env" ] || { cat "$work/emulator.log" >&2; fail "msal emulator wrote no environment file"; }
# shellcheck disable=SC1091
. "$work/emulator.env"
export MSAL_CACHE="$work/cache/msal_cache.json" # whatever the file says: a cache of this run only
unset DISPLAY WAYLAND_DISPLAY                   # no desktop: MyTool signs in with a device code
control() {
    local command=$1
    shift
    curl -sS --fail-with-body --noproxy '*' --cacert "$MSAL_CA_FILE" \
        -H "Authorization: Bearer $MSAL_EMULATOR_CONTROL_TOKEN" "$MSAL_EMULATOR_URL/.emulator/$command" "$@"
}
requests() { # the emulator's request count for one endpoint
    control state | python3 -c 'import json, sys; print(json.load(sys.stdin)["request_counts"][sys.argv[1]])' "$1"
}

echo "  first run: device-code sign-in"
timeout 120 "$bin/MyTool" </dev/null >"$work/run1.log" 2>&1 &
tool_pid=$!
approved=""
for _ in $(seq 300); do # the user, on another device: the oldest pending code, as the default user
    if approved="$(control device-codes/approve -X POST 2>/dev/null)"; then break; fi
    approved=""
    kill -0 "$tool_pid" 2>/dev/null || break
    sleep 0.1
done
status=0
wait "$tool_pid" || status=$?
tool_pid=""
sed 's/^/    | /' "$work/run1.log"
[ -n "$approved" ] || fail "MyTool asked for no device code"
[ "$status" = 0 ] || fail "MyTool failed (exit $status) on its first run"
user="$(printf '%s' "$approved" | python3 -c 'import json, sys; print(json.load(sys.stdin)["username"])')"
grep -q "Signed in as $user" "$work/run1.log" || fail "MyTool did not sign in as $user"
[ -s "$MSAL_CACHE" ] || fail "MyTool left no cache file at \$MSAL_CACHE"

echo "  second run: silent, from the file cache"
token_requests="$(requests token)"
device_code_requests="$(requests deviceCode)"
timeout 60 "$bin/MyTool" </dev/null >"$work/run2.log" 2>&1 || { cat "$work/run2.log" >&2; fail "MyTool failed on its second run"; }
sed 's/^/    | /' "$work/run2.log"
grep -q "Signed in as $user" "$work/run2.log" || fail "MyTool's second run did not find $user"
[ "$(requests token)" = "$token_requests" ] && [ "$(requests deviceCode)" = "$device_code_requests" ] \
    || fail "MyTool's second run sent a request instead of using its cache"
kill "$emulator_pid"
wait "$emulator_pid" || fail "msal emulator did not stop cleanly"
emulator_pid=""

stage "the shell session of Testing.md (emulator-session.sh), as written"
[ -f "$package/emulator-session.sh" ] || fail "Testing.md shows no shell session against msal emulator"
# As a reader runs it in the package's folder, with msal on the PATH, except that `swift` is a
# function adding this build's scratch path and that its temporary folder is inside ours. Its
# background processes (the emulator, the tool) are stopped by their PIDs when it ends, whichever
# way; at most 3 minutes.
export scratch
(cd "$package" && PATH="$bin:$PATH" TMPDIR="$work" NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
    timeout 180 bash -euo pipefail -c '
        trap "exit 143" TERM
        trap "kill \$(jobs -p) 2>/dev/null || true" EXIT
        swift() { local command=$1; shift; command swift "$command" --scratch-path "$scratch" "$@"; }
        . ./emulator-session.sh' 2>&1 | sed 's/^/    | /') || fail "the shell session of Testing.md failed"

stage "run MyTool's tests (swift test --parallel)"
(cd "$package" && timeout 900 swift test --scratch-path "$scratch" --parallel) || fail "MyTool's tests failed"
stage "passed (the guides' samples compile and run)"
