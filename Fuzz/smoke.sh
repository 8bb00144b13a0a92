#!/usr/bin/env bash
# The CI smoke: builds every target, then for each replays the committed corpus
# (Corpus/<target>) and fuzzes for SECONDS more (default 5) into a scratch folder. Fails on
# any crash, hang, unbounded allocation or broken property, naming the input that caused it.
#
# usage: Fuzz/smoke.sh [SECONDS-PER-TARGET]
set -euo pipefail
source "$(dirname "$0")/common.sh"

seconds=${1:-5}
start=$(date +%s)
fuzz_build "${FUZZ_TARGETS[@]}"
built=$(date +%s)
echo "fuzz targets built in $((built - start))s"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for target in "${FUZZ_TARGETS[@]}"; do
    mkdir -p "$scratch/$target/corpus" "$scratch/$target/findings"
    dictionary=$(fuzz_dictionary "$target")
    # shellcheck disable=SC2086
    if "$FUZZ_BIN/$target" -max_total_time="$seconds" -print_final_stats=1 "${FUZZ_LIMITS[@]}" $dictionary \
        -artifact_prefix="$scratch/$target/findings/" "$scratch/$target/corpus" "$FUZZ_DIR/Corpus/$target" \
        >"$scratch/$target/log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$target/log" | tail -1)
        seeds=$(find "$FUZZ_DIR/Corpus/$target" -type f | wc -l)
        echo "ok   $target: $seeds committed inputs replayed, $runs executions"
    else
        echo "FAIL $target:"
        grep -E "ERROR|PROPERTY VIOLATED|Fatal error|SUMMARY|Test unit written" "$scratch/$target/log" | head -20
        failed+=("$target")
    fi
done
echo "fuzz smoke: $(( $(date +%s) - start ))s in all ($(( $(date +%s) - built ))s running)"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz smoke failed: ${failed[*]}"
    exit 1
fi
