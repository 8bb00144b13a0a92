#!/usr/bin/env bash
# Regenerates the seeds and folds them, minimised, into the committed corpus:
#  - the protocol vectors (TestVectors/protocol), through Seeds/vectors_to_seeds.py;
#  - real traffic of the development server, through Seeds/record_traffic.py (needs the main
#    package's e2ee-devserver and e2ee-tool: `swift build` at the top first);
#  - real envelopes, serialised state and metadata rows the targets derive from their own
#    fixtures (FUZZ_WRITE_SEEDS).
#
# usage: Fuzz/seed.sh [BIN_DIR of e2ee-tool and e2ee-devserver, default ../.build/debug]
set -euo pipefail
source "$(dirname "$0")/common.sh"
bin=${1:-$FUZZ_DIR/../.build/debug}
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

python3 "$FUZZ_DIR/Seeds/vectors_to_seeds.py" "$FUZZ_DIR/../TestVectors/protocol" "$raw"
python3 "$FUZZ_DIR/Seeds/record_traffic.py" "$bin" "$raw"
fuzz_build "${FUZZ_TARGETS[@]}"
for target in fuzz-receiving-device fuzz-stored-forms fuzz-store-metadata; do
    mkdir -p "$raw/$target" "$raw/empty-$target"
    FUZZ_WRITE_SEEDS="$raw/$target" "$FUZZ_BIN/$target" -runs=0 "$raw/empty-$target" >/dev/null 2>&1
done
for target in "${FUZZ_TARGETS[@]}"; do
    mkdir -p "$raw/$target"
    fuzz_merge "$target" "$raw/$target"
done
