#!/usr/bin/env bash
# Runs the Messaging benchmark suite once (release build; an in-process development server over
# loopback), exports JMH JSON, and prints messages per second as a Markdown table (issue 6:
# DM fan-out to 10 devices, group send with SKD to 50 devices).
#
#   ./messaging.sh                  # the whole suite
#   ./messaging.sh --table-only     # re-print the table of the last run
set -euo pipefail
cd "$(dirname "$0")"

out="${MESSAGING_OUT:-.build/messaging}"
source ./run-suite.sh
run_suite Messaging "$out" "$@"

python3 - "${exports[@]}" <<'PY'
import sys
sys.path.insert(0, ".")
from jmh_results import load

results = load(sys.argv[1:])
print("| measurement | samples | median | min | p90 | messages/s (median) | messages/s (min) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name in sorted(results):
    r = results[name]
    wall = r["wall"]
    median, minimum, p90 = wall["50.0"], wall["0.0"], wall.get("90.0", float("nan"))
    print(f"| {name} | {r['samples']} | {median:,.0f} µs | {minimum:,.0f} µs | {p90:,.0f} µs | "
          f"{1e6 / median:,.1f} | {1e6 / minimum:,.1f} |")
PY
