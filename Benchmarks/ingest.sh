#!/usr/bin/env bash
# Runs the Ingest benchmark suite once (release build; a receiving account over a store on disk,
# 100,000 deliveries of 80,000 rows from 10 sender devices, 20,000 of them duplicates) and prints
# messages per second and peak memory as a Markdown table (issue 7), and, measured in the same
# process before every sample, this machine's floor for the same rows and ingest ÷ floor
# (issue 20; IngestFloor.swift says what the floor does).
#
# What is fed (issue 29): what the transport hands over, bytes — each `message.new` frame's
# text and each REST catch-up's page bodies (JSON, built once in the setup) — through the
# account's SPI entries `Account.admitFrame` / `Account.admitPages`, which decode them as the
# connection and the HTTP client do and then take the account's one way in for posted
# messages (`admit`: own echoes, rollback check, the pipeline). The floor parses the same
# bytes first (JSONSerialization, one thread: its `parse` phase), then does the rows' crypto
# and a plain insert (the old floor, issue 20); the floor that stores the rows (issue 47,
# decision 1) replaces the plain insert by the rows' index keys and their insert into the
# store's timeline schema with its indexes, 10,000 rows a transaction. Both are printed, with
# ingest ÷ each; the new one is the bar.
#
#   ./ingest.sh                  # 5 samples (input building takes about a minute first)
#   INGEST_SAMPLES=3 ./ingest.sh # 3 samples
#   taskset -c 0 ./ingest.sh     # on one core (the floor's crypto then runs on one thread)
#   ./ingest.sh --table-only     # re-print the table of the last run
#   INGEST_FLOOR=0 ./ingest.sh   # without the floor (memory: package-benchmark's peak is a
#                                # maximum over the whole run, the floor's included)
#   INGEST_ALLOCATOR_REPORT=1 ./ingest.sh  # also log glibc's arenas, threads, anonymous vs file memory
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
    INGEST_CORES=$(nproc)  # honours taskset
    export INGEST_CORES
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
    print(f"| peak resident growth over the post-setup baseline (package-benchmark: a maximum over the whole run, each sample's floor included) | {median(delta) / 1e6:,.0f} MB | max {delta[-1] / 1e6:,.0f} MB |")

# The per-sample lines: ingest wall and CPU, the floor's phases, ingest ÷ floor.
pattern = re.compile(r"ingest sample: ([\d.]+) s \(CPU ([\d.]+) s user, ([\d.]+) s system\).*floor ([\d.]+) s "
                     r"\(parse ([\d.]+) s, crypto on (\d+) cores ([\d.]+) s, insert ([\d.]+) s[;)]")
# The floor that stores the rows (issue 47, decision 1; IndexedInsertReference.swift): parse,
# crypto, the index keys, the insert into the store's timeline schema and indexes, 10,000 rows a
# transaction. And, with INGEST_INDEXED_REFERENCE=1, the same insert at 150 rows a transaction.
stored_pattern = re.compile(r"stored floor ([\d.]+) s \(keys ([\d.]+) s, indexed insert ([\d.]+) s at (\d+) rows a transaction\)")
small_pattern = re.compile(r"the indexed insert at (\d+) rows a transaction ([\d.]+) s")
lines = []
log = os.path.join(sys.argv[1], "samples.log")
if os.path.exists(log):
    with open(log) as f:
        lines = [m for m in map(pattern.search, f) if m]
# The ingest's own peak resident growth: its high-water mark (VmHWM), reset as it starts, over
# the resident size then. package-benchmark's figure above is a maximum over the whole run since
# the setup, so it also holds every sample's floor (run before the ingest) and what earlier
# samples left in the allocator's arenas; INGEST_FLOOR=0 runs without the floor.
log_lines = []
if os.path.exists(log):
    with open(log) as f:
        log_lines = f.readlines()
own = sorted(int(m.group(1)) for m in map(re.compile(r"own peak resident growth (\d+) MB").search, log_lines) if m)
if own:
    print(f"| the ingest's own peak resident growth (VmHWM reset as it starts; per sample) | {median(own):.0f} MB | {own[0]}–{own[-1]} MB |")
# What the ingest and the floor's indexed insert wrote to their files (WAL frames, checkpoint copies).
written = [(int(m.group(1)), int(m.group(2))) for m in
           map(re.compile(r"(\d+) MB written to the store's files \(the floor's indexed insert (\d+) MB\)").search, log_lines) if m]
if written:
    def per_row(megabytes):  # KB per stored row (80,000 rows)
        return megabytes * 1e6 / 80_000 / 1024
    ours, floors = sorted(w[0] for w in written), sorted(w[1] for w in written if w[1] > 0)
    print(f"| written to the store's files per stored row (WAL, checkpoints): ingest | {per_row(median(ours)):.1f} KB "
          f"| {per_row(ours[0]):.1f}–{per_row(ours[-1]):.1f} KB |")
    if floors:
        print(f"| the same for the floor's indexed insert (10,000 rows a transaction) | {per_row(median(floors)):.1f} KB | |")
lines = [m for m in lines if float(m.group(4)) > 0]  # INGEST_FLOOR=0: no floor to compare with
if lines:
    rows = [tuple(float(g) for g in m.groups()) for m in lines]
    ingest = sorted(r[0] for r in rows)
    cpu = sorted(r[1] + r[2] for r in rows)
    floor = sorted(r[3] for r in rows)
    parse = sorted(r[4] for r in rows)
    crypto = sorted(r[6] for r in rows)
    insert = sorted(r[7] for r in rows)
    ratios = sorted(r[3] / r[0] for r in rows)
    stored = 80_000
    print()
    print(f"| floor for the same bytes and rows ({len(rows)} samples, crypto on {int(rows[0][5])} cores) | median | range |")
    print("|---|---:|---:|")
    print(f"| old floor wall (issue 20: parse + crypto + primary-key-only insert) | {median(floor):.2f} s | {floor[0]:.2f}–{floor[-1]:.2f} s |")
    print(f"| floor parse phase (JSONSerialization, one thread) | {median(parse):.2f} s | {parse[0]:.2f}–{parse[-1]:.2f} s |")
    print(f"| floor crypto phase | {median(crypto):.2f} s | {crypto[0]:.2f}–{crypto[-1]:.2f} s |")
    print(f"| old floor insert phase (primary key only) | {median(insert):.2f} s | {insert[0]:.2f}–{insert[-1]:.2f} s |")
    print(f"| old floor messages/s | {MESSAGES / median(floor):,.0f} | {MESSAGES / floor[-1]:,.0f}–{MESSAGES / floor[0]:,.0f} |")
    print(f"| ingest ÷ old floor (issue 20: primary-key-only insert; per sample) | {median(ratios):.2f} | {ratios[0]:.2f}–{ratios[-1]:.2f} |")
    print(f"| ingest CPU per stored row (user + system) | {median(cpu) / stored * 1e6:.0f} µs | {cpu[0] / stored * 1e6:.0f}–{cpu[-1] / stored * 1e6:.0f} µs |")
    print(f"| cores busy during ingest (CPU ÷ wall) | {median([r[1] + r[2] for r in rows]) / median(ingest):.2f} | |")
    with open(log) as f:
        matched = [l for l in f if pattern.search(l)]
    stored_rows = [(m, r) for m, r in zip(map(stored_pattern.search, matched), rows) if m]
    if stored_rows:
        stored_floor = sorted(float(m.group(1)) for m, _ in stored_rows)
        keys = sorted(float(m.group(2)) for m, _ in stored_rows)
        indexed = sorted(float(m.group(3)) for m, _ in stored_rows)
        stored_ratios = sorted(float(m.group(1)) / r[0] for m, r in stored_rows)
        print(f"| floor that stores the rows: keys phase (content hash, payload key; every core) | {median(keys):.2f} s | {keys[0]:.2f}–{keys[-1]:.2f} s |")
        print(f"| floor that stores the rows: insert into the timeline schema with its indexes, {int(stored_rows[0][0].group(4)):,} rows a transaction | {median(indexed):.2f} s | {indexed[0]:.2f}–{indexed[-1]:.2f} s |")
        print(f"| **floor that stores the rows** (decision 1: parse + crypto + keys + indexed insert) | **{median(stored_floor):.2f} s** | {stored_floor[0]:.2f}–{stored_floor[-1]:.2f} s |")
        print(f"| floor that stores the rows, messages/s | {MESSAGES / median(stored_floor):,.0f} | {MESSAGES / stored_floor[-1]:,.0f}–{MESSAGES / stored_floor[0]:,.0f} |")
        print(f"| **ingest ÷ floor that stores the rows** (per sample; bar 0.70 on 1 core, 0.65 on 2) | **{median(stored_ratios):.2f}** | {stored_ratios[0]:.2f}–{stored_ratios[-1]:.2f} |")
    small = [(m, r) for m, r in zip(map(small_pattern.search, matched), rows) if m]
    if small:
        times = sorted(float(m.group(2)) for m, _ in small)
        print(f"| reference: the same indexed insert at {small[0][0].group(1)} rows a transaction | {median(times):.2f} s | {times[0]:.2f}–{times[-1]:.2f} s |")
    frames = []
    with open(log) as f:
        for m in map(re.compile(r"frames \((\d+)\) ([\d.]+) s").search, f):
            if m:
                frames.append(float(m.group(2)) / int(m.group(1)) * 1e3)
    if frames:
        frames.sort()
        print(f"| one socket frame (mean per sample) | {median(frames):.2f} ms | {frames[0]:.2f}–{frames[-1]:.2f} ms |")
PY
