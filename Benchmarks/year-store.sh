#!/usr/bin/env bash
# The store a year of use has filled (issue 47): 1,000,000 timeline rows in 1,000 channels,
# with sessions, sender keys and pending rows in proportion (Benchmarks/Ingest/YearStore.swift),
# built once through the store's own receive write and cached under Benchmarks/.cache (reused by
# later runs; delete the folder to rebuild). Each sample of the Ingest suite then runs as in
# ingest.sh (the empty store, the floors), and after it, on a copy of the cached store: open,
# the newest page and a page 10,000 rows back, the same 100,000 deliveries, size and memory
# (YearSample.swift). Prints ingest.sh's tables, then the year store's.
#
#   ./year-store.sh                    # 3 samples
#   INGEST_SAMPLES=5 ./year-store.sh
#   taskset -c 0 ./year-store.sh       # one core
#   ./year-store.sh --table-only
set -euo pipefail
cd "$(dirname "$0")"
export INGEST_YEAR_STORE=1
export INGEST_YEAR_CACHE="${INGEST_YEAR_CACHE:-$PWD/.cache}"
export INGEST_SAMPLES="${INGEST_SAMPLES:-3}"
export INGEST_OUT="${INGEST_OUT:-.build/year-store}"
./ingest.sh "$@"
python3 - "$INGEST_OUT/samples.log" <<'PY'
import re, sys

def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

empty_pattern = re.compile(r"ingest sample: ([\d.]+) s")
year_pattern = re.compile(
    r"year store sample: open median ([\d.]+) ms \(([^)]*)\), open peak growth (\d+) MB; newest page median ([\d.]+) ms, "
    r"page 10000 back median ([\d.]+) ms; size before (\d+) MB \((\d+) B a row\); ingest ([\d.]+) s \(CPU ([\d.]+) s\), "
    r"peak growth (\d+) MB; size after ingest (\d+) MB, after checkpoint (\d+) MB \(growth (-?\d+) B a stored row\)")
pairs, empty = [], None
for line in open(sys.argv[1]):
    if m := empty_pattern.search(line):
        empty = float(m.group(1))
    elif (m := year_pattern.search(line)) and empty:
        pairs.append((empty, m))
if not pairs:
    sys.exit("no year store samples in the log")
def col(i, cast=float):
    return [cast(m.group(i)) for _, m in pairs]
def row(name, values, unit, bar=""):
    print(f"| {name} | {median(values):,.2f} {unit} | {min(values):,.2f}–{max(values):,.2f} {unit} | {bar} |")
print()
print(f"| the store a year of use has filled: 1,000,000 rows, 1,000 channels ({len(pairs)} samples) | median | range | bar |")
print("|---|---:|---:|---|")
row("open (`KeyStore.open` + `Account.open`, median of 5 per sample)", col(1), "ms", "< 200 ms")
row("peak resident growth during an open", col(3), "MB", "does not grow with the rows")
row("newest page of 50 of a 50,000-row channel (`Account.timeline`, median of 21)", col(4), "ms", "< 5 ms")
row("a page of 50, 10,000 rows back (median of 21)", col(5), "ms", "< 20 ms")
row("store size on disk before the ingest", col(6), "MB")
row("  per timeline row", col(7), "B")
row("ingest of the 100,000 deliveries, wall", col(8), "s")
row("ingest messages/s", [100_000 / v for v in col(8)], "")
row("**ingest rate, year store ÷ empty store** (same sample)", [e / float(m.group(8)) for e, m in pairs], "", "≥ 0.90")
row("ingest CPU per stored row", [v / 80_000 * 1e6 for v in col(9)], "µs")
row("peak resident growth during the ingest", col(10), "MB")
row("store growth after the ingest and a checkpoint, per stored row", col(13), "B")
PY
