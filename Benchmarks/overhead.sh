#!/usr/bin/env bash
# Runs the Primitives benchmark suite once (release build), exports the results in JMH JSON,
# and prints, for each primitive, the wrapper's and the direct libsodium call's time per
# operation and the wrapper's overhead, as a Markdown table.
#
#   ./overhead.sh                          # the whole suite, a few minutes
#   ./overhead.sh --filter 'SHA-256.*'     # extra arguments go to `benchmark run`
#   ./overhead.sh --table-only             # re-print the table of the last run
#
# The raw export stays in .build/overhead/ (ignored by git); set OVERHEAD_OUT to use another
# directory (for instance with --table-only on an export made by hand).
set -euo pipefail
cd "$(dirname "$0")"

out="${OVERHEAD_OUT:-.build/overhead}"
source ./run-suite.sh
run_suite Primitives "$out" "$@"

python3 - "${exports[@]}" <<'PY'
import sys
sys.path.insert(0, ".")
from jmh_results import load, per_operation

# Registration order of the pairs; anything else follows alphabetically.
ORDER = ["SHA-256", "SHA-512", "HMAC-SHA256", "HKDF-SHA256", "Argon2id t=1 m=64KiB",
         "AES-256-GCM seal", "AES-256-GCM open", "XChaCha20-Poly1305 seal", "XChaCha20-Poly1305 open",
         "Ed25519 sign", "Ed25519 verify", "X25519 DH", "Base64 encode", "Base64 decode",
         "Constant-time compare", "Random"]

pairs, costs = {}, {}
for name, record in load(sys.argv[1:]).items():
    entry = per_operation(record)
    if name.startswith("Cost: "):
        costs[name[len("Cost: "):]] = entry
    elif name.endswith(" wrapper") or name.endswith(" direct"):
        primitive, side = name.rsplit(" ", 1)
        pairs.setdefault(primitive, {})[side] = entry

floor = costs.get("timer floor", {}).get("min", 0.0)

def overhead(wrapper, direct):
    w, d = wrapper - floor, direct - floor
    return f"{(w / d - 1) * 100:+.1f} %" if d > 0 else "n/a"

def ns(value):
    return f"{value:,.0f}"

print(f"Per operation. Overhead = wrapper / direct - 1, after subtracting the timer floor "
      f"({floor:.0f} ns, the minimum of an empty sample) from both.")
print()
print("| primitive (1 KiB where sized) | wrapper median ns | direct median ns | overhead (median) "
      "| wrapper min ns | direct min ns | overhead (min) | mallocs/op wrapper | mallocs/op direct |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for primitive in [p for p in ORDER if p in pairs] + sorted(p for p in pairs if p not in ORDER):
    pair = pairs[primitive]
    if "wrapper" not in pair or "direct" not in pair:
        print(f"| {primitive} | (incomplete pair) | | | | | | | |")
        continue
    w, d = pair["wrapper"], pair["direct"]
    print(f"| {primitive} | {ns(w['p50'])} | {ns(d['p50'])} | {overhead(w['p50'], d['p50'])} "
          f"| {ns(w['min'])} | {ns(d['min'])} | {overhead(w['min'], d['min'])} "
          f"| {w['mallocs']:g} | {d['mallocs']:g} |")

if costs:
    print()
    print("| reference cost | median ns | min ns | mallocs/op |")
    print("|---|---:|---:|---:|")
    for what in sorted(costs, key=lambda k: (k != "timer floor", k)):
        c = costs[what]
        print(f"| {what} | {ns(c['p50'])} | {ns(c['min'])} | {c['mallocs']:g} |")
PY
