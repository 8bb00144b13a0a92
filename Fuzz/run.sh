#!/usr/bin/env bash
# A fuzzing campaign: builds every target (or those named) and runs each for SECONDS
# (default 60), one after another, or FUZZ_JOBS at a time. Each target starts from its
# committed corpus (Corpus/<target>, never written) plus what earlier runs found
# (.work/<target>/corpus); findings (crash-*, timeout-*, oom-*, leak-*) go to
# .work/<target>/findings/. Prints, per target: executions, exec/s, coverage (cov/ft), corpus
# size and findings. Exit status 1 when anything was found.
#
# usage: [FUZZ_CONFIGURATION=release] [FUZZ_JOBS=2] [FUZZ_MAX_RUNS=N] Fuzz/run.sh [SECONDS-PER-TARGET] [TARGET...]
set -euo pipefail
source "$(dirname "$0")/common.sh"

seconds=60
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
mapfile -t targets < <(fuzz_select "$@")
jobs=${FUZZ_JOBS:-1}
# FUZZ_MAX_RUNS=N also ends a target after N executions ("10 million or an hour, whichever
# comes first" is FUZZ_MAX_RUNS=10000000 with 3600 seconds).
max_runs=()
if [ -n "${FUZZ_MAX_RUNS:-}" ]; then max_runs=(-runs="$FUZZ_MAX_RUNS"); fi

fuzz_build "${targets[@]}"

campaign() {
    local target=$1 work="$FUZZ_DIR/.work/$1"
    mkdir -p "$work/corpus" "$work/findings" "$FUZZ_DIR/Corpus/$target"
    local dictionary
    dictionary=$(fuzz_dictionary "$target")
    # shellcheck disable=SC2086
    "$FUZZ_BIN/$target" -max_total_time="$seconds" "${max_runs[@]}" -print_final_stats=1 "${FUZZ_LIMITS[@]}" $dictionary \
        -artifact_prefix="$work/findings/" "$work/corpus" "$FUZZ_DIR/Corpus/$target" >"$work/log" 2>&1 || true
}

running=0
for target in "${targets[@]}"; do
    echo "running $target for ${seconds}s" >&2
    campaign "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait

status=0
printf '%-24s %12s %8s %6s %7s %8s %9s  %s\n' target executions exec/s cov ft corpus "corp-kB" findings
for target in "${targets[@]}"; do
    work="$FUZZ_DIR/.work/$target"
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
    line=$(grep -E '^#[0-9]+.*cov: ' "$work/log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$line")
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/\([0-9]*[a-zA-Z]*\).*/\1 \2/p' <<<"$line")
    findings=$(find "$work/findings" -type f | wc -l)
    list=$(find "$work/findings" -type f -printf '%f ' | head -c 200)
    [ "$findings" -eq 0 ] || status=1
    printf '%-24s %12s %8s %6s %7s %8s %9s  %s\n' "$target" "${executions:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
        "$(cut -d' ' -f1 <<<"${corp:-? ?}")" "$(cut -d' ' -f2 <<<"${corp:-? ?}")" "$findings $list"
done
exit "$status"
