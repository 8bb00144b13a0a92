#!/usr/bin/env bash
# Issue 43 items 1 and 2, measured through the public API against the in-process development
# server (a debug test build: the figures are waits, not CPU): how long `Account.send` takes to
# return while the server refuses connections and while something on its port accepts
# connections and never answers, and how long after the server restarts on the same port the
# socket of an account connected with `connect(to:)` is back. Prints one Markdown table.
#
#   Benchmarks/outage.sh                                  # outages of 5, 15 and 45 s, 5 sends each
#   E2EE_OUTAGE_SECONDS=10 E2EE_OUTAGE_SENDS=3 Benchmarks/outage.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests >&2
E2EE_MEASURE_OUTAGE=1 swift test --skip-build --filter "OutageMeasurement" 2>&1 | grep '^|'
