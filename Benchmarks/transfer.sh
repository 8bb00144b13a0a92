#!/usr/bin/env bash
# The history transfer to a new linked device, end to end (issue 46; Benchmarks/README.md
# "History transfer: end to end"): the release dev server and real release e2ee-tool processes,
# messages a second from primary to new device and each side's peak resident memory, for 20,000
# and 200,000 messages. One Markdown table on standard output, progress on standard error.
#
#   Benchmarks/transfer.sh                     # build the three release products if needed, then run
#   Benchmarks/transfer.sh --sizes 20000       # extra arguments go to transfer.py (see --help)
#
# TRANSFER_BIN=<folder> takes the products from another build folder. Products already built are used as they are: rebuild them after a change
# (swift build -c release --product e2ee-tool, then --product e2ee-devserver, --product HistorySeeder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
bin=${TRANSFER_BIN:-$(swift build -c release --show-bin-path)}
for product in e2ee-tool e2ee-devserver HistorySeeder; do
    [ -x "$bin/$product" ] || swift build -c release --product "$product" >&2
done
exec python3 "$here/transfer.py" --tool "$bin/e2ee-tool" --devserver "$bin/e2ee-devserver" --seeder "$bin/HistorySeeder" "$@"
