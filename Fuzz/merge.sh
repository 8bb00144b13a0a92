#!/usr/bin/env bash
# Folds what campaigns found (.work/<target>/corpus) into the committed corpus, minimised.
#
# usage: Fuzz/merge.sh [TARGET...]
set -euo pipefail
source "$(dirname "$0")/common.sh"
mapfile -t targets < <(fuzz_select "$@")
fuzz_build "${targets[@]}"
for target in "${targets[@]}"; do
    mkdir -p "$FUZZ_DIR/.work/$target/corpus"
    fuzz_merge "$target" "$FUZZ_DIR/.work/$target/corpus"
done
