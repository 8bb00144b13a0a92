#!/usr/bin/env bash
# The project's test command (README.md): builds everything, then runs every test target
# (unit, conformance on TestVectors/, and integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
swift test --skip-build
