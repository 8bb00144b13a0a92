#!/usr/bin/env bash
# Runs the History benchmark suite once (release build), exports the results in JMH JSON, and
# prints the history part's figures (issue 46) as a Markdown table: records a second and the
# peak resident memory of producing and importing 20,000 and 200,000 message records.
#
#   ./history.sh                       # the whole suite (filling the 200,000-message store takes a while)
#   HISTORY_SAMPLES=1 ./history.sh     # one sample each
#   ./history.sh --table-only          # re-print the table of the last run
set -euo pipefail
cd "$(dirname "$0")"

out="${HISTORY_OUT:-.build/history}"
source ./run-suite.sh
run_suite History "$out" "$@"

python3 - "${exports[@]}" <<'PY'
import json, sys

def metric(element, label):
    for name, values in element.get("secondaryMetrics", {}).items():
        if name.lower() == label.lower():
            return values["scorePercentiles"]
    return None

print("| measurement | samples | median wall | records/s (median) | peak resident (median) | peak growth in the sample (median) |")
print("|---|---:|---:|---:|---:|---:|")
for path in sys.argv[1:]:
    for element in json.load(open(path)):
        name = element["benchmark"].split(".", 3)[-1].replace("_", " ")
        wall = metric(element, "time (wall clock)")
        rate, peak, growth = metric(element, "records/s"), metric(element, "peak resident kB"), metric(element, "peak growth kB")
        if wall is None:
            continue
        mb = lambda p: f"{p['50.0'] / 1024:,.1f} MiB" if p else ""
        print(f"| {name} | {element.get('measurementIterations') or ''} | {wall['50.0'] / 1000:,.0f} ms "
              f"| {rate['50.0'] if rate else 0:,.0f} | {mb(peak)} | {mb(growth)} |")
PY
