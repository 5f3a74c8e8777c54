#!/usr/bin/env bash
# The test command: installs what the tests need, builds everything with warnings as errors,
# and runs the whole XCTest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
