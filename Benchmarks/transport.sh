#!/usr/bin/env bash
# Runs the Transport benchmark suite once (release build), exports the results in JMH JSON, and
# prints messages delivered per second through dev server → WebSocket → decoded event (issue 5)
# as a Markdown table.
#
#   ./transport.sh                          # the whole suite, a couple of minutes once built
#   ./transport.sh --filter 'Delivery.*'    # extra arguments go to `benchmark run`
#   ./transport.sh --table-only             # re-print the table of the last run
#
# The raw export stays in .build/transport/ (ignored by git); set TRANSPORT_OUT to use another
# directory. Each benchmark starts its own dev server on a free loopback port.
set -euo pipefail
cd "$(dirname "$0")"

out="${TRANSPORT_OUT:-.build/transport}"
source ./run-suite.sh
run_suite Transport "$out" "$@"

python3 - "${exports[@]}" <<'PY'
import sys
sys.path.insert(0, ".")
from jmh_results import load

# name: messages per sample
SPEC = {
    "Delivery REST 1 sender x100": 100,
    "Delivery REST 4 senders x100": 100,
    "Delivery injected x1000": 1000,
    "Latency REST one message": 1,
    "Latency injected one event": 1,
}

results = load(sys.argv[1:])

def ms(us):
    return f"{us / 1000:,.2f} ms" if us >= 100 else f"{us:,.1f} µs"

print("| measurement | samples | msgs/sample | median | min | p99 | msgs/s (median) | msgs/s (min time) | msgs/s (p99 time) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for name in [n for n in SPEC if n in results] + sorted(n for n in results if n not in SPEC):
    r = results[name]
    count = SPEC.get(name, 1)
    wall = r["wall"]
    median, minimum, p99 = wall["50.0"], wall["0.0"], wall["99.0"]
    rate = lambda us: f"{count / us * 1e6:,.0f}" if us > 0 else ""
    print(f"| {name} | {r['samples'] or ''} | {count} | {ms(median)} | {ms(minimum)} | {ms(p99)} "
          f"| {rate(median)} | {rate(minimum)} | {rate(p99)} |")
PY
