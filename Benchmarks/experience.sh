#!/usr/bin/env bash
# The user's view of issue 21's targets (Benchmarks/README.md "Connection: measured"): the release
# dev server and real release e2ee-tool processes, one Markdown table on standard output.
#
#   Benchmarks/experience.sh                 # build the two release products if needed, then run
#   Benchmarks/experience.sh --idle 130      # extra arguments go to experience.py (see --help)
#
# Where it may (root, `unshare -n`), the run gets a network namespace of its own, so that the
# loopback counters behind the "idle network" row see only the dev server and `listen`;
# elsewhere that row says "not measured". Takes about 14 minutes: the idle window alone is 310 s
# (about eight of the listener's echo checks), the three deaf-socket runs up to 100 s each.
# Products already built are used as they are: rebuild them after a change
# (`swift build -c release --product e2ee-tool`, then `--product e2ee-devserver`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"
bin=$(swift build -c release --show-bin-path)
if [ ! -x "$bin/e2ee-tool" ] || [ ! -x "$bin/e2ee-devserver" ]; then
    swift build -c release --product e2ee-tool >&2
    swift build -c release --product e2ee-devserver >&2
fi
run=(python3 "$here/experience.py" --tool "$bin/e2ee-tool" --devserver "$bin/e2ee-devserver" "$@")
if unshare -n true 2>/dev/null; then
    exec unshare -n bash -c 'ip link set lo up && E2EE_EXPERIENCE_NETNS=1 exec "$@"' experience "${run[@]}"
fi
exec "${run[@]}"
