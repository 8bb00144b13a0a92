#!/usr/bin/env bash
# Runs the Protocol benchmark suite once (release build), exports the results in JMH JSON, and
# prints, for each protocol operation, our time per operation (the public E2EECrypto API), the
# floor's (exactly the libsodium calls that operation makes, on C buffers), and our throughput
# as a share of the floor's, as a Markdown table.
#
#   ./protocol-floor.sh                          # the whole suite, about half a minute of runs
#   ./protocol-floor.sh --filter 'X3DH.*'        # extra arguments go to `benchmark run`
#   ./protocol-floor.sh --table-only             # re-print the table of the last run
#
# The raw export stays in .build/protocol-floor/ (ignored by git); set FLOOR_OUT to use another
# directory.
set -euo pipefail
cd "$(dirname "$0")"

out="${FLOOR_OUT:-.build/protocol-floor}"
source ./run-suite.sh
run_suite Protocol "$out" "$@"

python3 - "${exports[@]}" <<'PY'
import sys
sys.path.insert(0, ".")
from jmh_results import load, per_operation

ORDER = ["X3DH initiate", "X3DH respond", "Ratchet encrypt 1KiB", "Ratchet decrypt 1KiB",
         "Sender-key encrypt 1KiB", "Sender-key decrypt 1KiB"]
# The bars of issue 3: our throughput as a share of the floor's.
BARS = {"X3DH initiate": 0.80, "X3DH respond": 0.80, "Sender-key decrypt 1KiB": 0.85}

pairs, timer = {}, 0.0
for name, record in load(sys.argv[1:]).items():
    entry = per_operation(record)
    if name == "Cost: timer floor":
        timer = entry["min"]
    elif name.endswith(" ours") or name.endswith(" floor"):
        operation, side = name.rsplit(" ", 1)
        pairs.setdefault(operation, {})[side] = entry

def ratio(ours, floor):
    o, f = ours - timer, floor - timer
    return f / o if o > 0 else float("nan")

def per_second(ns):
    return f"{1e9 / (ns - timer):,.0f}" if ns > timer else "n/a"

print(f"Per operation. Ratio = floor time / our time = our throughput as a share of the floor's, "
      f"after subtracting the timer floor ({timer:.0f} ns, the minimum of an empty sample) from both.")
print()
print("| operation | ours ops/s (median) | ours median ns | floor ops/s (median) | floor median ns | ratio (median) "
      "| ours min ns | floor min ns | ratio (min) | bar | mallocs/op ours |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
for operation in [p for p in ORDER if p in pairs] + sorted(p for p in pairs if p not in ORDER):
    pair = pairs[operation]
    if "ours" not in pair or "floor" not in pair:
        print(f"| {operation} | (incomplete pair) | | | | | | | | | |")
        continue
    o, f = pair["ours"], pair["floor"]
    median, minimum = ratio(o["p50"], f["p50"]), ratio(o["min"], f["min"])
    bar = BARS.get(operation)
    verdict = "" if bar is None else f"≥ {bar:.0%}: {'met' if min(median, minimum) >= bar else ('met at min' if minimum >= bar else 'missed')}"
    print(f"| {operation} | {per_second(o['p50'])} | {o['p50']:,.0f} | {per_second(f['p50'])} | {f['p50']:,.0f} | {median:.1%} "
          f"| {o['min']:,.0f} | {f['min']:,.0f} | {minimum:.1%} | {verdict} | {o['mallocs']:g} |")
PY
