#!/usr/bin/env bash
# Runs the KeyStore benchmark suite once (release build), exports the results in JMH JSON, and
# prints the key store's figures against the aims of issue 4 as a Markdown table.
#
#   ./keystore.sh                          # the whole suite, about a minute of runs once built
#   ./keystore.sh --filter 'Store.*'       # extra arguments go to `benchmark run`
#   ./keystore.sh --table-only             # re-print the table of the last run
#
# The raw export stays in .build/keystore/ (ignored by git); set KEYSTORE_OUT to use another
# directory. The stores live in temporary directories that the suite removes.
set -euo pipefail
cd "$(dirname "$0")"

out="${KEYSTORE_OUT:-.build/keystore}"
source ./run-suite.sh
run_suite KeyStore "$out" "$@"

python3 - "${exports[@]}" <<'PY'
import sys
sys.path.insert(0, ".")
from jmh_results import load

# name: (rows per sample or None, aim text, check(median µs) -> bool)
SPEC = {
    "Store decryptions batch of 1000": (1000, "≥ 50,000 rows/s", lambda us: 1000 / us * 1e6 >= 50_000),
    "Store decryption one per transaction": (1, "", None),
    "Open store of 100000 messages": (None, "< 50 ms", lambda us: us < 50_000),
    "Timeline page of 50": (None, "< 1 ms", lambda us: us < 1_000),
    "Cost: seal 100 B": (None, "", None),
}

results = load(sys.argv[1:])

def ms(us):
    return f"{us / 1000:,.2f} ms" if us >= 100 else f"{us:,.2f} µs"

print("| measurement | samples | median | min | p90 | rows/s (median) | rows/s (min) | aim | met (median) |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
for name in [n for n in SPEC if n in results] + sorted(n for n in results if n not in SPEC):
    r = results[name]
    rows, aim, check = SPEC.get(name, (None, "", None))
    wall = r["wall"]
    median, minimum, p90 = wall["50.0"], wall["0.0"], wall["90.0"]
    rate = lambda us: f"{rows / us * 1e6:,.0f}" if rows and us > 0 else ""
    met = "" if check is None else ("yes" if check(median) else "no")
    print(f"| {name} | {r['samples'] or ''} | {ms(median)} | {ms(minimum)} | {ms(p90)} "
          f"| {rate(median)} | {rate(minimum)} | {aim} | {met} |")
PY
