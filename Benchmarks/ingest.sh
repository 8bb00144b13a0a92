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
# (`histogramSamples`, one TSV per metric, in the unit its header names). The benchmark also
# writes one line per sample (time in REST catch-up calls and in socket-frame calls, outcome
# counts) to $INGEST_SAMPLE_LOG, printed first.
set -euo pipefail
cd "$(dirname "$0")"

out="${INGEST_OUT:-.build/ingest}"
if [[ "${1:-}" != "--table-only" ]]; then
    rm -rf "$out"
    mkdir -p "$out"
    export INGEST_SAMPLE_LOG="$PWD/$out/samples.log"
    if ! swift package --allow-writing-to-package-directory benchmark run \
        --target Ingest --format histogramSamples --path "$out" --no-progress "$@" >"$out/run.log" 2>&1; then
        tail -n 40 "$out/run.log" >&2
        echo "benchmark run failed; full log in Benchmarks/$out/run.log" >&2
        exit 1
    fi
fi

cat "$out/samples.log" 2>/dev/null || true
python3 - "$out" <<'PY'
import glob, os, re, sys

MESSAGES = 100_000
SCALE = {"ns": 1e-9, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "": 1.0}

def samples(metric):
    """Every sample of `metric` in base units (seconds for time, bytes or counts otherwise)."""
    paths = glob.glob(os.path.join(sys.argv[1], f"*.{metric}.histogram.samples.tsv"))
    if not paths:
        return None
    with open(paths[0]) as f:
        header, *values = f.read().split("\n")
    unit = re.search(r"\(([^()]*)\)\s*$", header)
    scale = SCALE.get(unit.group(1) if unit else "", 1.0)
    return sorted(float(v) * scale for v in values if v.strip())

def median(values):
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

wall = samples("wallClock")
if not wall:
    sys.exit("no wall-clock samples found (see run.log)")
resident, delta = samples("peakMemoryResident"), samples("peakMemoryResidentDelta")
print()
print(f"| figure ({len(wall)} samples) | median | best |")
print("|---|---:|---:|")
print(f"| wall time for {MESSAGES:,} messages | {median(wall):,.2f} s | {wall[0]:,.2f} s |")
print(f"| messages/s | {MESSAGES / median(wall):,.0f} | {MESSAGES / wall[0]:,.0f} |")
if resident:
    print(f"| peak resident memory of the process (input included) | {median(resident) / 1e6:,.0f} MB | max {resident[-1] / 1e6:,.0f} MB |")
if delta:
    print(f"| peak resident growth over the post-setup baseline | {median(delta) / 1e6:,.0f} MB | max {delta[-1] / 1e6:,.0f} MB |")
PY
