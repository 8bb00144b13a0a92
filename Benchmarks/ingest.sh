#!/usr/bin/env bash
# Runs the Ingest benchmark suite once (release build; a receiving store on disk, 100,000
# deliveries of 80,000 rows from 10 sender devices, 20,000 of them duplicates) and prints
# messages per second and peak memory as a Markdown table (issue 7).
#
#   ./ingest.sh                  # 5 samples (input building takes about a minute first)
#   ./ingest.sh --table-only     # re-print the table of the last run
#
# A sample takes seconds, so package-benchmark's integer throughput (samples per second) is 0
# and its JMH export refuses it: this script exports every sample of every metric instead
# (`histogramSamples`, one TSV per metric, each value divided by 1,000: wall clock in µs,
# memory in kB, the custom stage times — recorded in µs — in ms).
set -euo pipefail
cd "$(dirname "$0")"

out="${INGEST_OUT:-.build/ingest}"
if [[ "${1:-}" != "--table-only" ]]; then
    rm -rf "$out"
    mkdir -p "$out"
    if ! swift package --allow-writing-to-package-directory benchmark run \
        --target Ingest --format histogramSamples --path "$out" --no-progress "$@" >"$out/run.log" 2>&1; then
        tail -n 40 "$out/run.log" >&2
        echo "benchmark run failed; full log in Benchmarks/$out/run.log" >&2
        exit 1
    fi
fi

grep -h "^ingest " "$out/run.log" || true
python3 - "$out" <<'PY'
import glob, os, sys

MESSAGES = 100_000

def samples(pattern):
    paths = glob.glob(os.path.join(sys.argv[1], f"*{pattern}*.histogram.samples.tsv"))
    if not paths:
        return None
    with open(paths[0]) as f:
        lines = f.read().split("\n")
    return sorted(float(v) for v in lines[1:] if v.strip())

def median(values):
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

wall = samples("Time_(wall_clock)") or samples("wallClock")
if not wall:
    sys.exit("no wall-clock samples found (see run.log)")
rest, frames = samples("REST"), samples("socket")
resident, delta = samples("peakMemoryResident."), samples("peakMemoryResidentDelta")
print(f"| figure ({len(wall)} samples) | median | best |")
print("|---|---:|---:|")
print(f"| wall time for {MESSAGES:,} messages | {median(wall) / 1e6:,.2f} s | {wall[0] / 1e6:,.2f} s |")
print(f"| messages/s | {MESSAGES / (median(wall) / 1e6):,.0f} | {MESSAGES / (wall[0] / 1e6):,.0f} |")
if rest and frames:
    print(f"| of which REST catch-up calls | {median(rest) / 1e3:,.2f} s | {rest[0] / 1e3:,.2f} s |")
    print(f"| of which socket-frame calls | {median(frames) / 1e3:,.2f} s | {frames[0] / 1e3:,.2f} s |")
if resident:
    print(f"| peak resident memory, process (input included) | {median(resident) / 1e3:,.0f} MB | max {resident[-1] / 1e3:,.0f} MB |")
if delta:
    print(f"| peak resident growth over the post-setup baseline | {median(delta) / 1e3:,.0f} MB | max {delta[-1] / 1e3:,.0f} MB |")
PY
