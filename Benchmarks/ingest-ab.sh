#!/usr/bin/env bash
# Compares the Ingest benchmark of this checkout (B) with another checkout's (A) by running
# both *at the same time*, each pinned to one core, and swapping the cores every round.
#
# On a shared host the machine's speed drifts by ±10 % over minutes (the floor itself, which
# runs no product code, has moved 30 % between back-to-back runs), so A and B run one after
# the other can differ by more than the change under test, consistently for a whole hour. Run
# side by side, both see the same drift; swapping cores cancels a difference between them. The
# two runs share the machine, so their absolute figures are lower than a quiet run's: compare
# A with B, never with another table.
#
#   ./ingest-ab.sh /path/to/other-checkout 4   # 4 rounds; prints one line per run, then sums
#
# Each checkout's Benchmarks package must build (the first run of a checkout builds it).
set -euo pipefail
cd "$(dirname "$0")"
other="${1:?usage: ingest-ab.sh OTHER_CHECKOUT [ROUNDS]}/Benchmarks"
rounds="${2:-4}"
[[ -f "$other/ingest.sh" ]] || { echo "no Benchmarks/ingest.sh under $1" >&2; exit 1; }
(( $(nproc) >= 2 )) || { echo "needs two cores" >&2; exit 1; }

summary() {  # the sample line of a run's log as "wall W user U sys S ratio R"
    sed -nE 's/^ingest sample: ([0-9.]+) s \(CPU ([0-9.]+) s user, ([0-9.]+) s system\).* ratio ([0-9.]+).*/wall \1 user \2 sys \3 ratio \4/p' "$1" | tail -n 1
}

totals=()
for round in $(seq 1 "$rounds"); do
    if (( round % 2 )); then core_a=0; core_b=1; else core_a=1; core_b=0; fi
    (cd "$other" && INGEST_SAMPLES=1 taskset -c "$core_a" bash ingest.sh >/dev/null 2>&1) &
    (INGEST_SAMPLES=1 taskset -c "$core_b" bash ingest.sh >/dev/null 2>&1) &
    wait
    line_a=$(summary "$other/.build/ingest/samples.log")
    line_b=$(summary ".build/ingest/samples.log")
    echo "round $round  A@$core_a $line_a"
    echo "round $round  B@$core_b $line_b"
    totals+=("A $line_a" "B $line_b")
done
printf '%s\n' "${totals[@]}" | awk '{wall[$1]+=$3; user[$1]+=$5; n[$1]++}
    END {for (v in n) printf "%s: %d runs, wall %.2f s, user CPU %.2f s (summed)\n", v, n[v], wall[v], user[v]}' | sort
